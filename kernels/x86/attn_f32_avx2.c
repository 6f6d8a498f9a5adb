/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Attention, AVX2 + FMA: attn_driver.inc on vmath_avx2.inc and the 6x16 GEMM
 * micro-kernels (gemm_ukr_avx2.inc): query blocks of 6 rows, key and value panels of 16.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "gemm_ukr_avx2.inc"
#include "vmath_avx2.inc"

/* 8 bool bytes as an additive bias: 0 where true (nonzero), -inf where false. */
static inline vf at_bool_bias(const uint8_t *m)
{
    __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const void *)m));
    __m256 drop = _mm256_castsi256_ps(_mm256_cmpeq_epi32(b, _mm256_setzero_si256()));
    return _mm256_and_ps(drop, _mm256_set1_ps(-INFINITY));
}

#include "attn_driver.inc"
