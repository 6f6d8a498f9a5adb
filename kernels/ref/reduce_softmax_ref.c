/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LogSoftmax-13, Hardmax-13 and LpNormalization-22, f32 f64 f16 bf16, along one axis
 * (and Softmax-13 for f64 f16 bf16: exp of the LogSoftmax line, computed in double)
 * (attribute `axis`, default -1). As in reduce_softmax_f32_ref.c the input is viewed as
 * [outer, n, inner] around the axis and each of the outer * inner lines is independent.
 *   LogSoftmax: y = x - max - log(sum(exp(x - max))), in double; a line whose max is not
 *               finite (+inf, an all -inf line, NaN) is all NaN, as in the ONNX reference.
 *   Hardmax:    1 at the first maximum of the line (a NaN, if any, counts as the maximum,
 *               as numpy argmax does), 0 elsewhere.
 *   LpNormalization: y = x / ||x||_p, p 1 (the sum of |x|) or 2 (default; the square root of
 *               the sum of squares), in double; a zero norm gives 0 (the spec's rule since
 *               opset 22, so 0/0 is never NaN).
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>

typedef struct em_axis_attrs {
    ember_dtype dt;
    int64_t outer, n, inner;
    int64_t p;    /* LpNormalization */
    bool softmax; /* the LogSoftmax kernel writing exp(y): Softmax of f64, f16, bf16 */
} em_axis_attrs;

/* Checks X and Y and reads `axis` into a. */
static ember_status *axis_parse(const em_kinfo *ki, em_axis_attrs *a)
{
    ember_status *st = NULL;
    int64_t axis;
    int ax;
    const em_tensor *x = &ki->in[0];

    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (input)"));
    if (!em_rd_is_float(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (output)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (output)"));
    EMBER_TRY(em_ref_attr_int(ki, "axis", -1, &axis));
    if (!em_rd_axis(axis, x->rank, &ax)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x->rank);
    }
    a->dt = x->dtype;
    a->outer = em_ref_prod(x->dims, ax);
    a->n = x->dims[ax];
    a->inner = em_ref_prod(x->dims + ax + 1, x->rank - ax - 1);
    return NULL;
fail:
    return st;
}

static ember_status *axis_prepare(const em_kinfo *ki, void **state)
{
    em_axis_attrs a = {0};
    *state = NULL;
    ember_status *st = axis_parse(ki, &a);
    return st != NULL ? st : em_ref_state_new(ki, &a, sizeof a, state);
}

ember_status *em_logsoftmax_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *scratch_bytes = 0;
    return axis_prepare(ki, state);
}

ember_status *em_softmax_wide_prepare__ref(const em_kinfo *ki, void **state,
                                           size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_axis_attrs a = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(axis_parse(ki, &a));
    a.softmax = true;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

ember_status *em_hardmax_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *scratch_bytes = 0;
    return axis_prepare(ki, state);
}

ember_status *em_lpnorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_axis_attrs a = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(axis_parse(ki, &a));
    EMBER_TRY(em_ref_attr_int(ki, "p", 2, &a.p));
    if (a.p != 1 && a.p != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "p = %lld, expected 1 or 2",
                            (long long)a.p);
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct axis_job {
    const em_axis_attrs *a;
    const void *x;
    void *y;
} axis_job;

static void logsoftmax_task(void *arg, int64_t begin, int64_t end)
{
    const axis_job *j = arg;
    const ember_dtype dt = j->a->dt;
    const int64_t n = j->a->n, inner = j->a->inner;
    for (int64_t item = begin; item < end; item++) {
        int64_t base = (item / inner) * n * inner + item % inner;
        double mx = -INFINITY, sum = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double v = em_rd_load_f(j->x, dt, base + i * inner);
            mx = (isnan(v) || v > mx) && !isnan(mx) ? v : mx;
        }
        if (isfinite(mx)) {
            for (int64_t i = 0; i < n; i++) {
                sum += exp(em_rd_load_f(j->x, dt, base + i * inner) - mx);
            }
        }
        double lse = isfinite(mx) ? log(sum) : NAN;
        for (int64_t i = 0; i < n; i++) {
            double v = em_rd_load_f(j->x, dt, base + i * inner);
            double y = isfinite(mx) ? v - mx - lse : NAN;
            em_rd_store_f(j->y, dt, base + i * inner, j->a->softmax ? exp(y) : y);
        }
    }
}

static void hardmax_task(void *arg, int64_t begin, int64_t end)
{
    const axis_job *j = arg;
    const ember_dtype dt = j->a->dt;
    const int64_t n = j->a->n, inner = j->a->inner;
    for (int64_t item = begin; item < end; item++) {
        int64_t base = (item / inner) * n * inner + item % inner, best = 0;
        double mx = em_rd_load_f(j->x, dt, base);
        for (int64_t i = 1; i < n && !isnan(mx); i++) {
            double v = em_rd_load_f(j->x, dt, base + i * inner);
            if (isnan(v) || v > mx) {
                mx = v;
                best = i;
            }
        }
        for (int64_t i = 0; i < n; i++) {
            em_rd_store_f(j->y, dt, base + i * inner, i == best ? 1.0 : 0.0);
        }
    }
}

void em_logsoftmax__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_axis_attrs *a = state;
    axis_job j = {a, in[0].data, out[0].data};
    if (a->n > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer * a->inner, 16, logsoftmax_task,
                        &j);
    }
}

void em_hardmax__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_axis_attrs *a = state;
    axis_job j = {a, in[0].data, out[0].data};
    if (a->n > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer * a->inner, 16, hardmax_task, &j);
    }
}

static void lpnorm_task(void *arg, int64_t begin, int64_t end)
{
    const axis_job *j = arg;
    const ember_dtype dt = j->a->dt;
    const int64_t n = j->a->n, inner = j->a->inner;
    for (int64_t item = begin; item < end; item++) {
        int64_t base = (item / inner) * n * inner + item % inner;
        double norm = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double v = em_rd_load_f(j->x, dt, base + i * inner);
            norm += j->a->p == 1 ? fabs(v) : v * v;
        }
        norm = j->a->p == 1 ? norm : sqrt(norm);
        for (int64_t i = 0; i < n; i++) {
            double v = em_rd_load_f(j->x, dt, base + i * inner);
            em_rd_store_f(j->y, dt, base + i * inner, norm == 0.0 ? 0.0 : v / norm);
        }
    }
}

void em_lpnorm__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_axis_attrs *a = state;
    axis_job j = {a, in[0].data, out[0].data};
    if (a->n > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer * a->inner, 16, lpnorm_task, &j);
    }
}
