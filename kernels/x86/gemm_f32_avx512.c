/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX-512: the packed driver of gemm_driver.inc around a 14x32
 * micro-kernel (28 zmm accumulators, 2 for the B row, 1 broadcast of A: 31 of 32 registers).
 * Blocking: KC 256 (the 14x32 A micro-panel is 14 KiB, the B micro-panel 32 KiB), MC 140,
 * NC 512. Accumulation is in f32 with FMA, in K order within each KC block.
 */
#include "x86.h"

#include <immintrin.h>

#define GEMM_KC 256
#define GEMM_MC 140
#define GEMM_NC 512
#define GEMV_NB 64

/* M = 1, constant B (gemm_driver.inc): acc[0:64] = sum over i < k of x[i] * b[i * 64 + 0:64]
 * for one packed panel. Even and odd rows go to separate accumulators (8 chains of FMAs, 4 zmm
 * per row) so the loop streams B instead of waiting on FMA latency. */
static void gemv_panel(size_t k, const float *restrict x, const float *restrict b,
                       float *restrict acc)
{
    __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    __m512 d0 = c0, d1 = c0, d2 = c0, d3 = c0;
    size_t i = 0;
    for (; i + 1 < k; i += 2, b += 2 * GEMV_NB) {
        __m512 xa = _mm512_set1_ps(x[i]), xb = _mm512_set1_ps(x[i + 1]);
        c0 = _mm512_fmadd_ps(xa, _mm512_load_ps(b), c0);
        c1 = _mm512_fmadd_ps(xa, _mm512_load_ps(b + 16), c1);
        c2 = _mm512_fmadd_ps(xa, _mm512_load_ps(b + 32), c2);
        c3 = _mm512_fmadd_ps(xa, _mm512_load_ps(b + 48), c3);
        d0 = _mm512_fmadd_ps(xb, _mm512_load_ps(b + 64), d0);
        d1 = _mm512_fmadd_ps(xb, _mm512_load_ps(b + 80), d1);
        d2 = _mm512_fmadd_ps(xb, _mm512_load_ps(b + 96), d2);
        d3 = _mm512_fmadd_ps(xb, _mm512_load_ps(b + 112), d3);
    }
    if (i < k) {
        __m512 xa = _mm512_set1_ps(x[i]);
        c0 = _mm512_fmadd_ps(xa, _mm512_load_ps(b), c0);
        c1 = _mm512_fmadd_ps(xa, _mm512_load_ps(b + 16), c1);
        c2 = _mm512_fmadd_ps(xa, _mm512_load_ps(b + 32), c2);
        c3 = _mm512_fmadd_ps(xa, _mm512_load_ps(b + 48), c3);
    }
    _mm512_store_ps(acc, _mm512_add_ps(c0, d0));
    _mm512_store_ps(acc + 16, _mm512_add_ps(c1, d1));
    _mm512_store_ps(acc + 32, _mm512_add_ps(c2, d2));
    _mm512_store_ps(acc + 48, _mm512_add_ps(c3, d3));
}

#include "gemm_ukr_avx512.inc"

#include "gemm_driver.inc"

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
