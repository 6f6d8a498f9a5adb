/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Softmax f32 (ONNX Softmax-13): y = exp(x - max) / sum(exp(x - max)) along one axis
 * (attribute `axis`, default -1, negative counts from the end). The input is viewed as
 * [outer, n, inner] around that axis; each of the outer * inner lines is independent.
 * Subtracting the line's maximum keeps exp from overflowing; exp and the sum are in double.
 */
#include "ref.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct em_softmax_attrs {
    int64_t outer, n, inner;
} em_softmax_attrs;

ember_status *em_softmax_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_softmax_attrs a;
    int64_t axis;
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_int(ki, "axis", -1, &axis));
    if (axis < -(int64_t)x->rank || axis >= x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x->rank);
    }
    int ax = (int)(axis < 0 ? axis + x->rank : axis);
    a.outer = em_ref_prod(x->dims, ax);
    a.n = x->dims[ax];
    a.inner = em_ref_prod(x->dims + ax + 1, x->rank - ax - 1);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct softmax_job {
    const em_softmax_attrs *a;
    const float *x;
    float *y;
} softmax_job;

/* Items are lines: item = outer_index * inner + inner_index; elements `inner` apart. */
static void softmax_task(void *arg, int64_t begin, int64_t end)
{
    const softmax_job *j = arg;
    const int64_t n = j->a->n, inner = j->a->inner;
    for (int64_t item = begin; item < end; item++) {
        int64_t base = (item / inner) * n * inner + item % inner;
        const float *x = j->x + base;
        float *y = j->y + base;
        double mx = -INFINITY, sum = 0.0;
        for (int64_t i = 0; i < n; i++) {
            mx = x[i * inner] > mx ? x[i * inner] : mx;
        }
        for (int64_t i = 0; i < n; i++) {
            sum += exp((double)x[i * inner] - mx);
        }
        for (int64_t i = 0; i < n; i++) {
            y[i * inner] = (float)(exp((double)x[i * inner] - mx) / sum);
        }
    }
}

void em_softmax_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_softmax_attrs *a = state;
    softmax_job j = {a, in[0].data, out[0].data};
    if (a->n == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer * a->inner, 16, softmax_task, &j);
}
