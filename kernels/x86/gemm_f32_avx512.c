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
