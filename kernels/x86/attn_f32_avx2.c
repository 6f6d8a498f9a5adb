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

/* rows[0..8) transposed by unpacks, in-lane shuffles and lane permutes (24 shuffles), column
 * l stored at d + l * ld. */
static inline vf at_tr_store(const vf *rows, float *d, int64_t ld)
{
    __m256 t[8], u[8], col[8], sum = _mm256_setzero_ps();
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(rows[i], rows[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(rows[i], rows[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) { /* u[i + c]: columns c and c + 4 of rows i.. */
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int c = 0; c < 4; c++) {
        col[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
        col[c + 4] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
    for (int l = 0; l < 8; l++) { /* in order: each store's spill is overwritten by the next */
        sum = _mm256_add_ps(sum, col[l]);
        _mm256_storeu_ps(d + l * ld, col[l]);
    }
    return sum;
}

#include "attn_driver.inc"
