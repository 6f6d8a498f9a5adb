/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul, AVX-512: the packed driver of gemm_driver.inc around a 14x32
 * micro-kernel (28 zmm accumulators, 2 for the B row, 1 broadcast of A: 31 of 32 registers).
 * Blocking: KC 256 (the 14x32 A micro-panel is 14 KiB, the B micro-panel 32 KiB), MC 140,
 * NC 512. Accumulation is in f32 with FMA, in K order within each KC block.
 */
#include "x86.h"

#include <immintrin.h>

#define GEMM_MR 14
#define GEMM_NR 32
#define GEMM_KC 256
#define GEMM_MC 140
#define GEMM_NC 512

/* Micro-kernels: c[0:r, 0:32] = a.b (ukr_set_r) or += a.b (ukr_add_r) for r = 1..14 rows; a is
 * kc x 14 and b kc x 32, both packed. One function per row count, so short M (down to a
 * single row, as in batch-1 inference) does not pay for 14 rows; separate set and add
 * versions, so that no flag is live across the k loop. */
#define R1(X) X(0)
#define R2(X) R1(X) X(1)
#define R3(X) R2(X) X(2)
#define R4(X) R3(X) X(3)
#define R5(X) R4(X) X(4)
#define R6(X) R5(X) X(5)
#define R7(X) R6(X) X(6)
#define R8(X) R7(X) X(7)
#define R9(X) R8(X) X(8)
#define R10(X) R9(X) X(9)
#define R11(X) R10(X) X(10)
#define R12(X) R11(X) X(11)
#define R13(X) R12(X) X(12)
#define R14(X) R13(X) X(13)
#define DECL(i) __m512 c##i##a = _mm512_setzero_ps(), c##i##b = _mm512_setzero_ps();
#define FMA(i)                                                                                     \
    {                                                                                              \
        __m512 ai = _mm512_set1_ps(a[i]);                                                          \
        c##i##a = _mm512_fmadd_ps(ai, b0, c##i##a);                                                \
        c##i##b = _mm512_fmadd_ps(ai, b1, c##i##b);                                                \
    }
#define STORE_SET(i)                                                                               \
    _mm512_storeu_ps(c + i * ldc, c##i##a);                                                        \
    _mm512_storeu_ps(c + i * ldc + 16, c##i##b);
#define STORE_ADD(i)                                                                               \
    _mm512_storeu_ps(c + i * ldc, _mm512_add_ps(c##i##a, _mm512_loadu_ps(c + i * ldc)));           \
    _mm512_storeu_ps(c + i * ldc + 16, _mm512_add_ps(c##i##b, _mm512_loadu_ps(c + i * ldc + 16)));
#define UKR(fn, ROWS, STORE)                                                                       \
    static void fn(size_t kc, const float *restrict a, const float *restrict b, float *restrict c, \
                   size_t ldc)                                                                     \
    {                                                                                              \
        ROWS(DECL)                                                                                 \
        for (size_t k = 0; k < kc; k++) {                                                          \
            __m512 b0 = _mm512_loadu_ps(b);                                                        \
            __m512 b1 = _mm512_loadu_ps(b + 16);                                                   \
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
UKR(ukr_set_7, R7, STORE_SET)
UKR(ukr_add_7, R7, STORE_ADD)
UKR(ukr_set_8, R8, STORE_SET)
UKR(ukr_add_8, R8, STORE_ADD)
UKR(ukr_set_9, R9, STORE_SET)
UKR(ukr_add_9, R9, STORE_ADD)
UKR(ukr_set_10, R10, STORE_SET)
UKR(ukr_add_10, R10, STORE_ADD)
UKR(ukr_set_11, R11, STORE_SET)
UKR(ukr_add_11, R11, STORE_ADD)
UKR(ukr_set_12, R12, STORE_SET)
UKR(ukr_add_12, R12, STORE_ADD)
UKR(ukr_set_13, R13, STORE_SET)
UKR(ukr_add_13, R13, STORE_ADD)
UKR(ukr_set_14, R14, STORE_SET)
UKR(ukr_add_14, R14, STORE_ADD)
#undef UKR
#undef STORE_ADD
#undef STORE_SET
#undef FMA
#undef DECL
#undef R14
#undef R13
#undef R12
#undef R11
#undef R10
#undef R9
#undef R8
#undef R7
#undef R6
#undef R5
#undef R4
#undef R3
#undef R2
#undef R1

typedef void (*gemm_ukr_fn)(size_t kc, const float *a, const float *b, float *c, size_t ldc);
static const gemm_ukr_fn gemm_ukr_set[GEMM_MR + 1] = {
    NULL,      ukr_set_1, ukr_set_2,  ukr_set_3,  ukr_set_4,  ukr_set_5,  ukr_set_6, ukr_set_7,
    ukr_set_8, ukr_set_9, ukr_set_10, ukr_set_11, ukr_set_12, ukr_set_13, ukr_set_14};
static const gemm_ukr_fn gemm_ukr_add[GEMM_MR + 1] = {
    NULL,      ukr_add_1, ukr_add_2,  ukr_add_3,  ukr_add_4,  ukr_add_5,  ukr_add_6, ukr_add_7,
    ukr_add_8, ukr_add_9, ukr_add_10, ukr_add_11, ukr_add_12, ukr_add_13, ukr_add_14};

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
