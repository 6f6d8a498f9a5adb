/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Relu, Add, Mul (same shape), AVX-512. Four vectors per step, then single vectors, then
 * one masked load/store for the tail: nothing past the end is read or written. Each vector
 * is loaded before it is stored, so out may alias an input exactly (in place).
 * Relu is max(0, x) with NaN propagated (as numpy.maximum and the ONNX reference do).
 */
#include "x86.h"

#include "eltwise_shape.h"

#include <immintrin.h>

typedef struct ew_args {
    const float *a, *b;
    float *y;
    int64_t n;
} ew_args;

typedef enum ew_kind { EW_RELU, EW_ADD, EW_MUL } ew_kind;

static inline __m512 ew_op(ew_kind kind, __m512 a, __m512 b)
{
    switch (kind) {
    case EW_RELU:
        return _mm512_max_ps(_mm512_setzero_ps(), a); /* NaN in a -> a */
    case EW_ADD:
        return _mm512_add_ps(a, b);
    default:
        return _mm512_mul_ps(a, b);
    }
}

/* `kind` is a constant at every call site, so each instance compiles to one loop. */
static inline void ew_span(ew_kind kind, const float *a, const float *b, float *y, int64_t n)
{
    int64_t i = 0;
    __m512 z = _mm512_setzero_ps();
    for (; i + 64 <= n; i += 64) {
        __m512 r0 =
            ew_op(kind, _mm512_loadu_ps(a + i), kind == EW_RELU ? z : _mm512_loadu_ps(b + i));
        __m512 r1 = ew_op(kind, _mm512_loadu_ps(a + i + 16),
                          kind == EW_RELU ? z : _mm512_loadu_ps(b + i + 16));
        __m512 r2 = ew_op(kind, _mm512_loadu_ps(a + i + 32),
                          kind == EW_RELU ? z : _mm512_loadu_ps(b + i + 32));
        __m512 r3 = ew_op(kind, _mm512_loadu_ps(a + i + 48),
                          kind == EW_RELU ? z : _mm512_loadu_ps(b + i + 48));
        _mm512_storeu_ps(y + i, r0);
        _mm512_storeu_ps(y + i + 16, r1);
        _mm512_storeu_ps(y + i + 32, r2);
        _mm512_storeu_ps(y + i + 48, r3);
    }
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(y + i, ew_op(kind, _mm512_loadu_ps(a + i),
                                      kind == EW_RELU ? z : _mm512_loadu_ps(b + i)));
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        __m512 va = _mm512_maskz_loadu_ps(m, a + i);
        __m512 vb = kind == EW_RELU ? z : _mm512_maskz_loadu_ps(m, b + i);
        _mm512_mask_storeu_ps(y + i, m, ew_op(kind, va, vb));
    }
}

#define EW_TASK(fn, kind)                                                                          \
    static void fn(void *arg, int64_t begin, int64_t end)                                          \
    {                                                                                              \
        const ew_args *x = arg;                                                                    \
        int64_t i = begin * EM_EW_BLOCK, e = end * EM_EW_BLOCK;                                    \
        if (e > x->n) {                                                                            \
            e = x->n;                                                                              \
        }                                                                                          \
        ew_span(kind, x->a + i, x->b != NULL ? x->b + i : NULL, x->y + i, e - i);                  \
    }
EW_TASK(relu_task, EW_RELU)
EW_TASK(add_task, EW_ADD)
EW_TASK(mul_task, EW_MUL)
#undef EW_TASK

static void ew_run(em_task_fn task, const em_tensor *in, int n_in, em_tensor *out,
                   const em_kctx *ctx)
{
    ew_args x = {in[0].data, n_in > 1 ? in[1].data : NULL, out[0].data, em_tensor_numel(&out[0])};
    em_parallel_for(ctx->pool, (x.n + EM_EW_BLOCK - 1) / EM_EW_BLOCK, 1, task, &x);
}

ember_status *em_eltwise_f32_prepare__avx512(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    return em_eltwise_check(ki, state, scratch_bytes);
}

void em_relu_f32__avx512(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)state;
    ew_run(relu_task, in, 1, out, ctx);
}

void em_add_f32__avx512(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)state;
    ew_run(add_task, in, 2, out, ctx);
}

void em_mul_f32__avx512(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)state;
    ew_run(mul_task, in, 2, out, ctx);
}
