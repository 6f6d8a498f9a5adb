/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX2 + FMA: the packed driver of gemm_driver.inc around the classic
 * 6x16 micro-kernel (12 ymm accumulators, 2 for the B row, 1 broadcast of A: 15 of 16 registers).
 * Blocking: KC 256 (B micro-panel 16 KiB in L1), MC 144, NC 512. Accumulation is in f32 with
 * FMA, in K order within each KC block.
 */
#include "x86.h"

#include <immintrin.h>

#define GEMM_KC 256
#define GEMM_MC 144
#define GEMM_NC 512
#define GEMV_NB 32

/* M = 1, constant B (gemm_driver.inc): acc[0:32] = sum over i < k of x[i] * b[i * 32 + 0:32]
 * for one packed panel. Even and odd rows go to separate accumulators (8 chains of FMAs, 4 ymm
 * per row) so the loop streams B instead of waiting on FMA latency. */
static void gemv_panel(size_t k, const float *restrict x, const float *restrict b,
                       float *restrict acc)
{
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    __m256 d0 = c0, d1 = c0, d2 = c0, d3 = c0;
    size_t i = 0;
    for (; i + 1 < k; i += 2, b += 2 * GEMV_NB) {
        __m256 xa = _mm256_set1_ps(x[i]), xb = _mm256_set1_ps(x[i + 1]);
        c0 = _mm256_fmadd_ps(xa, _mm256_load_ps(b), c0);
        c1 = _mm256_fmadd_ps(xa, _mm256_load_ps(b + 8), c1);
        c2 = _mm256_fmadd_ps(xa, _mm256_load_ps(b + 16), c2);
        c3 = _mm256_fmadd_ps(xa, _mm256_load_ps(b + 24), c3);
        d0 = _mm256_fmadd_ps(xb, _mm256_load_ps(b + 32), d0);
        d1 = _mm256_fmadd_ps(xb, _mm256_load_ps(b + 40), d1);
        d2 = _mm256_fmadd_ps(xb, _mm256_load_ps(b + 48), d2);
        d3 = _mm256_fmadd_ps(xb, _mm256_load_ps(b + 56), d3);
    }
    if (i < k) {
        __m256 xa = _mm256_set1_ps(x[i]);
        c0 = _mm256_fmadd_ps(xa, _mm256_load_ps(b), c0);
        c1 = _mm256_fmadd_ps(xa, _mm256_load_ps(b + 8), c1);
        c2 = _mm256_fmadd_ps(xa, _mm256_load_ps(b + 16), c2);
        c3 = _mm256_fmadd_ps(xa, _mm256_load_ps(b + 24), c3);
    }
    _mm256_store_ps(acc, _mm256_add_ps(c0, d0));
    _mm256_store_ps(acc + 8, _mm256_add_ps(c1, d1));
    _mm256_store_ps(acc + 16, _mm256_add_ps(c2, d2));
    _mm256_store_ps(acc + 24, _mm256_add_ps(c3, d3));
}

#include "gemm_ukr_avx2.inc"

#include "gemm_driver.inc"

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
