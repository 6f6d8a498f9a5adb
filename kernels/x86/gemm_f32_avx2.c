/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX2 + FMA: the packed driver of gemm_driver.inc around the classic
 * 6x16 micro-kernel (12 ymm accumulators, 2 for the B row, 1 broadcast of A: 15 of 16 registers).
 * Blocking: KC 256 (B micro-panel 16 KiB in L1), MC 144, NC 512. Accumulation is in f32 with
 * FMA, in K order within each KC block. Full 6-row A panels are packed by 8 x 8 transposes in
 * registers (gemm_pack_a16).
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#define GEMM_KC 256
#define GEMM_MC 144
#define GEMM_NC 512

/* One 16-column block of a full 6-row A panel (gemm_driver.inc's GEMM_PACK_A16):
 * dst[k * 6 + i] = alpha * src[i * lda + k] for i < 6, k < 16. Two 8 x 8 transposes in
 * registers (rows 6 and 7 zero): each column k is 8 floats, rows 0..5 then two zeros, stored
 * at dst + 6k, so the next column's store overwrites the two zeros; the block's last column
 * goes out as 4 + 2 floats, so nothing past dst[95] is written. */
static inline void gemm_pack_a16(const float *src, int64_t lda, float alpha, float *dst)
{
    const __m256 al = _mm256_set1_ps(alpha), z = _mm256_setzero_ps();
    for (int h = 0; h < 2; h++) {
        __m256 r[8];
        for (int i = 0; i < 6; i++) {
            r[i] = _mm256_mul_ps(al, _mm256_loadu_ps(src + i * lda + h * 8));
        }
        r[6] = r[7] = z;
        /* 8 x 8 transpose: 32-bit and 64-bit unpacks within lanes, then lane swaps */
        __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
        __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
        __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
        __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
        __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
        __m256 u4 = _mm256_shuffle_ps(t4, z, 0x44), u5 = _mm256_shuffle_ps(t4, z, 0xEE);
        __m256 u6 = _mm256_shuffle_ps(t5, z, 0x44), u7 = _mm256_shuffle_ps(t5, z, 0xEE);
        __m256 c[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                       _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                       _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                       _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
        float *d = dst + h * 48;
        for (int k = 0; k < 7; k++) {
            _mm256_storeu_ps(d + k * 6, c[k]);
        }
        if (h == 0) {
            _mm256_storeu_ps(d + 42, c[7]); /* its zeros are overwritten by the second half */
        } else {
            /* 4 + 2 floats: AMD's masked stores are slow */
            _mm_storeu_ps(d + 42, _mm256_castps256_ps128(c[7]));
            _mm_storel_pi((__m64 *)(void *)(d + 46), _mm256_extractf128_ps(c[7], 1));
        }
    }
}
#define GEMM_PACK_A16 gemm_pack_a16

#include "kernels/vec/gemm_epi.inc"
#define GEMM_UKR_TAIL
#include "gemm_ukr_avx2.inc"

#include "kernels/vec/gemm_driver.inc"

ember_status *em_gemm_f32_6x16_prepare__avx2(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    em_gemm_shape sh;
    ember_status *st = em_gemm_shape_from_gemm(ki, &sh);
    return st != NULL ? st : gemm_prepare_common(ki, &sh, state, scratch_bytes);
}

ember_status *em_matmul_f32_6x16_prepare__avx2(const em_kinfo *ki, void **state,
                                               size_t *scratch_bytes)
{
    em_gemm_shape sh;
    ember_status *st = em_gemm_shape_from_matmul(ki, &sh);
    return st != NULL ? st : gemm_prepare_common(ki, &sh, state, scratch_bytes);
}

void em_gemm_f32_6x16_release__avx2(const ember_allocator *al, void *state)
{
    gemm_state_free(al, state);
}

void em_gemm_f32_6x16__avx2(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    gemm_run_common(state, in, out, ctx);
}
