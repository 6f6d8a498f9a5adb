/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX2 + FMA: the packed driver of gemm_driver.inc around the classic
 * 6x16 micro-kernel (12 ymm accumulators, 2 for the B row, 1 broadcast of A: 15 of 16 registers).
 * Blocking: KC 256 (B micro-panel 16 KiB in L1), MC 144, NC 512. Accumulation is in f32 with
 * FMA, in K order within each KC block.
 */
#include "x86.h"

#include <immintrin.h>

#define GEMM_MR 6
#define GEMM_NR 16
#define GEMM_KC 256
#define GEMM_MC 144
#define GEMM_NC 512

/* Micro-kernels: c[0:r, 0:16] = a.b (ukr_set_r) or += a.b (ukr_add_r) for r = 1..6 rows; a is
 * kc x 6 and b kc x 16, both packed. One function per row count, so short M (down to a
 * single row, as in batch-1 inference) does not pay for 6 rows; separate set and add
 * versions, so that no flag is live across the k loop. */
#define R1(X) X(0)
#define R2(X) R1(X) X(1)
#define R3(X) R2(X) X(2)
#define R4(X) R3(X) X(3)
#define R5(X) R4(X) X(4)
#define R6(X) R5(X) X(5)
#define DECL(i) __m256 c##i##a = _mm256_setzero_ps(), c##i##b = _mm256_setzero_ps();
#define FMA(i)                                                                                     \
    {                                                                                              \
        __m256 ai = _mm256_broadcast_ss(a + i);                                                    \
        c##i##a = _mm256_fmadd_ps(ai, b0, c##i##a);                                                \
        c##i##b = _mm256_fmadd_ps(ai, b1, c##i##b);                                                \
    }
#define STORE_SET(i)                                                                               \
    _mm256_storeu_ps(c + i * ldc, c##i##a);                                                        \
    _mm256_storeu_ps(c + i * ldc + 8, c##i##b);
#define STORE_ADD(i)                                                                               \
    _mm256_storeu_ps(c + i * ldc, _mm256_add_ps(c##i##a, _mm256_loadu_ps(c + i * ldc)));           \
    _mm256_storeu_ps(c + i * ldc + 8, _mm256_add_ps(c##i##b, _mm256_loadu_ps(c + i * ldc + 8)));
#define UKR(fn, ROWS, STORE)                                                                       \
    static void fn(size_t kc, const float *restrict a, const float *restrict b, float *restrict c, \
                   size_t ldc)                                                                     \
    {                                                                                              \
        ROWS(DECL)                                                                                 \
        for (size_t k = 0; k < kc; k++) {                                                          \
            __m256 b0 = _mm256_loadu_ps(b);                                                        \
            __m256 b1 = _mm256_loadu_ps(b + 8);                                                    \
            ROWS(FMA)                                                                              \
            a += GEMM_MR;                                                                          \
            b += GEMM_NR;                                                                          \
        }                                                                                          \
        ROWS(STORE)                                                                                \
    }
UKR(ukr_set_1, R1, STORE_SET)
UKR(ukr_add_1, R1, STORE_ADD)
UKR(ukr_set_2, R2, STORE_SET)
UKR(ukr_add_2, R2, STORE_ADD)
UKR(ukr_set_3, R3, STORE_SET)
UKR(ukr_add_3, R3, STORE_ADD)
UKR(ukr_set_4, R4, STORE_SET)
UKR(ukr_add_4, R4, STORE_ADD)
UKR(ukr_set_5, R5, STORE_SET)
UKR(ukr_add_5, R5, STORE_ADD)
UKR(ukr_set_6, R6, STORE_SET)
UKR(ukr_add_6, R6, STORE_ADD)
#undef UKR
#undef STORE_ADD
#undef STORE_SET
#undef FMA
#undef DECL
#undef R6
#undef R5
#undef R4
#undef R3
#undef R2
#undef R1

typedef void (*gemm_ukr_fn)(size_t kc, const float *a, const float *b, float *c, size_t ldc);
static const gemm_ukr_fn gemm_ukr_set[GEMM_MR + 1] = {NULL,      ukr_set_1, ukr_set_2, ukr_set_3,
                                                      ukr_set_4, ukr_set_5, ukr_set_6};
static const gemm_ukr_fn gemm_ukr_add[GEMM_MR + 1] = {NULL,      ukr_add_1, ukr_add_2, ukr_add_3,
                                                      ukr_add_4, ukr_add_5, ukr_add_6};

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
