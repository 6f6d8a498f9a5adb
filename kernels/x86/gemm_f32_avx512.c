/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX-512: the packed driver of gemm_driver.inc around a 14x32
 * micro-kernel (28 zmm accumulators, 2 for the B row, 1 broadcast of A: 31 of 32 registers).
 * Blocking: KC 256 (the 14x32 A micro-panel is 14 KiB, the B micro-panel 32 KiB), MC 140,
 * NC 512. Accumulation is in f32 with FMA, in K order within each KC block.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#define GEMM_KC 256
#define GEMM_MC 140
#define GEMM_NC 512

#include "kernels/vec/gemm_epi.inc"
#define GEMM_UKR_TAIL
#include "gemm_ukr_avx512.inc"

/* One 16-column block of a full 14-row A panel (gemm_driver.inc's GEMM_PACK_A16):
 * dst[k * 14 + i] = alpha * src[i * lda + k] for i < 14, k < 16. A 16 x 16 transpose in
 * registers (rows 14 and 15 zero): 32-bit and 64-bit unpacks within 128-bit lanes, then two
 * rounds of lane shuffles; each column goes out as one 14-lane masked store. */
static inline void gemm_pack_a16(const float *src, int64_t lda, float alpha, float *dst)
{
    const __m512 al = _mm512_set1_ps(alpha);
    __m512 r[16], t[16];
    for (int i = 0; i < 14; i++) {
        r[i] = _mm512_mul_ps(al, _mm512_loadu_ps(src + i * lda));
    }
    r[14] = r[15] = _mm512_setzero_ps();
    for (int g = 0; g < 16; g += 4) { /* t[g + j]: column 4L + j of rows g..g+3 in lane L */
        __m512 lo0 = _mm512_unpacklo_ps(r[g], r[g + 1]), hi0 = _mm512_unpackhi_ps(r[g], r[g + 1]);
        __m512 lo1 = _mm512_unpacklo_ps(r[g + 2], r[g + 3]);
        __m512 hi1 = _mm512_unpackhi_ps(r[g + 2], r[g + 3]);
        __m512d a0 = _mm512_castps_pd(lo0), a1 = _mm512_castps_pd(lo1);
        __m512d b0 = _mm512_castps_pd(hi0), b1 = _mm512_castps_pd(hi1);
        t[g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a1));
        t[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a1));
        t[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b0, b1));
        t[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b0, b1));
    }
    for (int j = 0; j < 4; j++) {
        /* Lanes 0 and 2 (v) and 1 and 3 (w) of row groups 0-1 and 2-3. */
        __m512 v01 = _mm512_shuffle_f32x4(t[j], t[4 + j], 0x88);
        __m512 w01 = _mm512_shuffle_f32x4(t[j], t[4 + j], 0xDD);
        __m512 v23 = _mm512_shuffle_f32x4(t[8 + j], t[12 + j], 0x88);
        __m512 w23 = _mm512_shuffle_f32x4(t[8 + j], t[12 + j], 0xDD);
        _mm512_mask_storeu_ps(dst + (0 + j) * 14, 0x3FFF, _mm512_shuffle_f32x4(v01, v23, 0x88));
        _mm512_mask_storeu_ps(dst + (4 + j) * 14, 0x3FFF, _mm512_shuffle_f32x4(w01, w23, 0x88));
        _mm512_mask_storeu_ps(dst + (8 + j) * 14, 0x3FFF, _mm512_shuffle_f32x4(v01, v23, 0xDD));
        _mm512_mask_storeu_ps(dst + (12 + j) * 14, 0x3FFF, _mm512_shuffle_f32x4(w01, w23, 0xDD));
    }
}
#define GEMM_PACK_A16 gemm_pack_a16

#include "kernels/vec/gemm_driver.inc"

ember_status *em_gemm_f32_14x32_prepare__avx512(const em_kinfo *ki, void **state,
                                                size_t *scratch_bytes)
{
    em_gemm_shape sh;
    ember_status *st = em_gemm_shape_from_gemm(ki, &sh);
    return st != NULL ? st : gemm_prepare_common(ki, &sh, state, scratch_bytes);
}

ember_status *em_matmul_f32_14x32_prepare__avx512(const em_kinfo *ki, void **state,
                                                  size_t *scratch_bytes)
{
    em_gemm_shape sh;
    ember_status *st = em_gemm_shape_from_matmul(ki, &sh);
    return st != NULL ? st : gemm_prepare_common(ki, &sh, state, scratch_bytes);
}

void em_gemm_f32_14x32_release__avx512(const ember_allocator *al, void *state)
{
    gemm_state_free(al, state);
}

void em_gemm_f32_14x32__avx512(const void *state, const em_tensor *in, em_tensor *out,
                               const em_kctx *ctx)
{
    gemm_run_common(state, in, out, ctx);
}
