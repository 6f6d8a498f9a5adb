/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX2 + FMA: the packed driver of gemm_driver.inc around the classic
 * 6x16 micro-kernel (12 ymm accumulators, 2 for the B row, 1 broadcast of A: 15 of 16 registers).
 * Blocking: KC 256 (B micro-panel 16 KiB in L1), MC 144, NC 512. Accumulation is in f32 with
 * FMA, in K order within each KC block.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#define GEMM_KC 256
#define GEMM_MC 144
#define GEMM_NC 512

#include "gemm_epi.inc"
#define GEMM_UKR_TAIL
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
