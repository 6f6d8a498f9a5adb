/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Attention, AVX-512: attn_driver.inc on vmath_avx512.inc and the 14x32 GEMM
 * micro-kernels (gemm_ukr_avx512.inc): query blocks of 14 rows, key and value panels of 32.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "gemm_ukr_avx512.inc"
#include "vmath_avx512.inc"

/* 16 bool bytes as an additive bias: 0 where true (nonzero), -inf where false. */
static inline vf at_bool_bias(const uint8_t *m)
{
    __mmask16 keep = _mm512_test_epi32_mask(_mm512_cvtepu8_epi32(_mm_loadu_si128((const void *)m)),
                                            _mm512_set1_epi32(0xff));
    return _mm512_mask_blend_ps(keep, _mm512_set1_ps(-INFINITY), _mm512_setzero_ps());
}

#include "attn_driver.inc"
