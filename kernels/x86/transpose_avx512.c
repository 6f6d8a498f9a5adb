/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Transpose of 1-, 2-, 4- and 8-byte elements, AVX-512: transpose_driver.inc with 16 x 16
 * register tiles of 4-byte elements (below) and AVX2's 4 x 4 tiles of 8-byte ones.
 */
#include "x86.h"

#include "transpose_tiles_avx2.inc"

/* dst[c * ds + r] = src[r * ss + c] for 16 x 16 4-byte elements: pairs of rows interleaved,
 * then 4 x 4 transposes within each 128-bit lane (r[4k + m] holds column 4L + m of rows
 * 4k..4k+3 in lane L), then two rounds of 128-bit lane shuffles gather column 4L + m's four
 * lanes. */
static inline void tr_tile4x16(const uint32_t *src, int64_t ss, uint32_t *dst, int64_t ds)
{
    __m512 r[16], t[16];
    for (int i = 0; i < 16; i++) {
        r[i] = _mm512_loadu_ps((const float *)(src + i * ss));
    }
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int m = 0; m < 4; m++) {
        __m512 a = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x88);  /* lanes 0, 2 of rows 0-7 */
        __m512 b = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xDD);  /* lanes 1, 3 */
        __m512 c = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x88);
        __m512 d = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xDD);
        _mm512_storeu_ps((float *)(dst + m * ds), _mm512_shuffle_f32x4(a, c, 0x88));
        _mm512_storeu_ps((float *)(dst + (8 + m) * ds), _mm512_shuffle_f32x4(a, c, 0xDD));
        _mm512_storeu_ps((float *)(dst + (4 + m) * ds), _mm512_shuffle_f32x4(b, d, 0x88));
        _mm512_storeu_ps((float *)(dst + (12 + m) * ds), _mm512_shuffle_f32x4(b, d, 0xDD));
    }
}

#define TR_T4 16
#define TR_T8 4
#define tr_tile4 tr_tile4x16
#define tr_tile8 tr_tile8x4
#define TR_NAME(base) base##__avx512
#include "transpose_driver.inc"
