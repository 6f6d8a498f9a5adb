/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm, MatMul and FusedGemm, NEON (AArch64): the packed driver of kernels/vec/
 * gemm_driver.inc around a 6x16 micro-kernel. 24 q-register accumulators (6 rows x 4
 * vectors of 4 columns), 4 for the B row and 2 for the A column (rows 0-3 in one q register,
 * rows 4-5 in a d register): 30 of the 32 vector registers. Each B vector is multiplied by
 * one lane of A with FMLA (by element), as the AArch64 SGEMM kernels of XNNPACK, ruy and
 * MLAS do, so A needs no broadcast. The tile is 6x16 rather than the 8x12 of those kernels
 * because the shared driver packs B in 16-column panels (its 64-byte panel alignment) and
 * ends rows in gemm_epi.inc's tail two vectors at a time. Blocking as the AVX2 unit: KC 256
 * (the B micro-panel, 16 KiB, stays in a 64 KiB L1), MC 144, NC 512. Accumulation is in f32
 * with FMA, in K order within each KC block, so results are bitwise independent of the
 * thread count as on x86.
 */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#define GEMM_KC 256
#define GEMM_MC 144
#define GEMM_NC 512
#define GEMM_MR 6
#define GEMM_NR 16

#include "kernels/vec/gemm_epi.inc"

/* c[0:r, 0:16] = tail(a.b) for r = 1..6 rows, a kc x 6 and b kc x 16 packed: one function per
 * row count (no flag live across the k loop), each row ending in gemm_tail_row twice. */
#define R1(X) X(0)
#define R2(X) R1(X) X(1)
#define R3(X) R2(X) X(2)
#define R4(X) R3(X) X(3)
#define R5(X) R4(X) X(4)
#define R6(X) R5(X) X(5)
#define DECL(i)                                                                                    \
    float32x4_t c##i##0 = vdupq_n_f32(0.0f), c##i##1 = c##i##0, c##i##2 = c##i##0,                 \
                c##i##3 = c##i##0;
/* Row i takes lane i of a0 (rows 0-3, a q register) or lane i - 4 of a1 (rows 4-5). */
#define LANE_0(acc, bv) vfmaq_laneq_f32(acc, bv, a0, 0)
#define LANE_1(acc, bv) vfmaq_laneq_f32(acc, bv, a0, 1)
#define LANE_2(acc, bv) vfmaq_laneq_f32(acc, bv, a0, 2)
#define LANE_3(acc, bv) vfmaq_laneq_f32(acc, bv, a0, 3)
#define LANE_4(acc, bv) vfmaq_lane_f32(acc, bv, a1, 0)
#define LANE_5(acc, bv) vfmaq_lane_f32(acc, bv, a1, 1)
#define FMA(i)                                                                                     \
    c##i##0 = LANE_##i(c##i##0, b0);                                                               \
    c##i##1 = LANE_##i(c##i##1, b1);                                                               \
    c##i##2 = LANE_##i(c##i##2, b2);                                                               \
    c##i##3 = LANE_##i(c##i##3, b3);
#define TAIL(i)                                                                                    \
    gemm_tail_row(t, c##i##0, c##i##1, bv0, bv1, c + i * ldc);                                     \
    gemm_tail_row(t, c##i##2, c##i##3, bv2, bv3, c + i * ldc + 8);
/* A's rows 4-5 are loaded only by the 5- and 6-row kernels (never past the panel). */
#define LOAD_A1_NO (void)0
#define LOAD_A1_YES a1 = vld1_f32(a + 4)
#define UKR(fn, ROWS, A1)                                                                          \
    static void fn(size_t kc, const float *restrict a, const float *restrict b, float *restrict c, \
                   size_t ldc, const gemm_tail *t)                                                 \
    {                                                                                              \
        ROWS(DECL)                                                                                 \
        float32x2_t a1 = vdup_n_f32(0.0f);                                                         \
        (void)a1;                                                                                  \
        for (size_t k = 0; k < kc; k++) {                                                          \
            const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);                            \
            const float32x4_t b2 = vld1q_f32(b + 8), b3 = vld1q_f32(b + 12);                       \
            const float32x4_t a0 = vld1q_f32(a);                                                   \
            LOAD_A1_##A1;                                                                          \
            ROWS(FMA)                                                                              \
            a += GEMM_MR;                                                                          \
            b += GEMM_NR;                                                                          \
        }                                                                                          \
        float32x4_t bv0 = vdupq_n_f32(0.0f), bv1 = bv0, bv2 = bv0, bv3 = bv0;                      \
        if (t->bias != NULL) {                                                                     \
            const float32x4_t be = vdupq_n_f32(t->beta);                                           \
            bv0 = vmulq_f32(be, vld1q_f32(t->bias));                                               \
            bv1 = vmulq_f32(be, vld1q_f32(t->bias + 4));                                           \
            bv2 = vmulq_f32(be, vld1q_f32(t->bias + 8));                                           \
            bv3 = vmulq_f32(be, vld1q_f32(t->bias + 12));                                          \
        }                                                                                          \
        ROWS(TAIL)                                                                                 \
    }
UKR(ukr_tail_1, R1, NO)
UKR(ukr_tail_2, R2, NO)
UKR(ukr_tail_3, R3, NO)
UKR(ukr_tail_4, R4, NO)
UKR(ukr_tail_5, R5, YES)
UKR(ukr_tail_6, R6, YES)
#undef UKR
typedef void (*gemm_ukr_fn)(size_t kc, const float *a, const float *b, float *c, size_t ldc,
                            const gemm_tail *t);
static const gemm_ukr_fn gemm_ukr_tail[GEMM_MR + 1] = {
    NULL, ukr_tail_1, ukr_tail_2, ukr_tail_3, ukr_tail_4, ukr_tail_5, ukr_tail_6};

#include "kernels/vec/gemm_driver.inc"

ember_status *em_gemm_f32_6x16_prepare__neon(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    em_gemm_shape sh;
    ember_status *st = em_gemm_shape_from_gemm(ki, &sh);
    return st != NULL ? st : gemm_prepare_common(ki, &sh, state, scratch_bytes);
}

ember_status *em_matmul_f32_6x16_prepare__neon(const em_kinfo *ki, void **state,
                                               size_t *scratch_bytes)
{
    em_gemm_shape sh;
    ember_status *st = em_gemm_shape_from_matmul(ki, &sh);
    return st != NULL ? st : gemm_prepare_common(ki, &sh, state, scratch_bytes);
}

void em_gemm_f32_6x16_release__neon(const ember_allocator *al, void *state)
{
    gemm_state_free(al, state);
}

void em_gemm_f32_6x16__neon(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    gemm_run_common(state, in, out, ctx);
}

/* The driver for other kernels of the NEON units (conv_f32_neon.c): a plan for sh with A and
 * B both read at run time (nothing prepacked), and one run of it. */
ember_status *em_sgemm_plan__neon(const em_kinfo *ki, const em_gemm_shape *sh, void **state,
                                  size_t *scratch_bytes)
{
    em_tensor in[2] = {ki->in[0], ki->in[1]};
    in[1].data = NULL;
    em_kinfo k = *ki;
    k.in = in;
    k.n_in = 2;
    return gemm_prepare_common(&k, sh, state, scratch_bytes);
}

void em_sgemm_release__neon(const ember_allocator *al, void *state)
{
    gemm_state_free(al, state);
}

void em_sgemm_run__neon(const void *state, const float *a, const float *b, const float *c,
                        float *y, float *scratch, em_threadpool *pool)
{
    const gemm_state *g = state;
    gemm_args x = {g, a, b, c, y, scratch};
    if (g->n_tiles > 0) {
        em_parallel_for(g->slots > 1 ? pool : NULL, g->slots, 1, gemm_task, &x);
    }
}
