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

/* rows[0..16) transposed by 128-bit-lane unpacks and shuffles (64 shuffles), column l stored
 * at d + l * ld. */
static inline vf at_tr_store(const vf *rows, float *d, int64_t ld)
{
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(rows[i], rows[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(rows[i], rows[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) { /* u[i + c]: columns c, c + 4, c + 8, c + 12 of rows i.. */
        __m512d a0 = _mm512_castps_pd(t[i]), a1 = _mm512_castps_pd(t[i + 1]);
        __m512d b0 = _mm512_castps_pd(t[i + 2]), b1 = _mm512_castps_pd(t[i + 3]);
        u[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, b0));
        u[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, b0));
        u[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, b1));
        u[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, b1));
    }
    __m512 col[16], sum = _mm512_setzero_ps();
    for (int c = 0; c < 4; c++) {
        __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88); /* cols c, c + 8 */
        __m512 v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd); /* cols c + 4, c + 12 */
        __m512 w0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        __m512 w1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
        col[c] = _mm512_shuffle_f32x4(v0, w0, 0x88);
        col[c + 4] = _mm512_shuffle_f32x4(v1, w1, 0x88);
        col[c + 8] = _mm512_shuffle_f32x4(v0, w0, 0xdd);
        col[c + 12] = _mm512_shuffle_f32x4(v1, w1, 0xdd);
    }
    for (int l = 0; l < 16; l++) { /* in order: each store's spill is overwritten by the next */
        sum = _mm512_add_ps(sum, col[l]);
        _mm512_storeu_ps(d + l * ld, col[l]);
    }
    return sum;
}

#include "attn_driver.inc"
