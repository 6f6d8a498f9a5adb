/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RMSNormalization-23 and GroupNormalization-21.
 *
 * RMSNormalization: X viewed as [outer, inner] with inner = prod(dims[axis..]); each row gets
 * r = 1 / sqrt(mean(x^2) + epsilon) and y = x * r * scale, scale broadcast to X (numpy,
 * unidirectional: its dims are 1 or X's). stash_type 1 (float) is the only value ONNX defines;
 * statistics are kept in double, which is at least float's precision. Y has scale's dtype.
 *
 * GroupNormalization (the opset-21 form; the loader rewrites opset 18's per-group scale and bias
 * into per-channel ones): X [N, C, ...] in num_groups groups of C / G channels; per (n, group)
 * the mean and the population variance over the group's channels and spatial positions, then
 * y = scale[c] * (x - mean) / sqrt(var + epsilon) + bias[c].
 *
 * Both read a row's statistics before writing it, one row per parallel item.
 */
#include "ref.h"

#include <math.h>
#include <string.h>

/* ---- RMSNormalization ---------------------------------------------------------------------- */

typedef struct em_rmsnorm_attrs {
    ember_dtype xt, wt, yt;
    int rank;
    int64_t outer, inner;
    int64_t dims[EM_MAX_RANK], wstride[EM_MAX_RANK]; /* scale's element stride per X axis */
    double eps;
} em_rmsnorm_attrs;

ember_status *em_rmsnorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_rmsnorm_attrs a;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    int64_t axis, stash;
    float eps;
    int ax;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_attn_check_float(ki, x, "input 0 (X)"));
    EMBER_TRY(em_attn_check_float(ki, w, "input 1 (scale)"));
    EMBER_TRY(em_attn_check_float(ki, y, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, y, x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_int(ki, "axis", -1, &axis));
    EMBER_TRY(em_ref_attr_int(ki, "stash_type", 1, &stash));
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &eps));
    EMBER_TRY(em_tref_axis(ki, axis, x->rank, &ax));
    if (stash != 1) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "stash_type %lld is not supported (1 is)",
                            (long long)stash);
    }
    if (w->rank > x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "scale has rank %d, above X's %d", w->rank,
                            x->rank);
    }
    int64_t stride = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        int wd = d - (x->rank - w->rank);
        int64_t dim = wd >= 0 ? w->dims[wd] : 1;
        if (dim != 1 && dim != x->dims[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "scale's dim %d (%lld) does not broadcast to X's %lld", wd,
                                (long long)dim, (long long)x->dims[d]);
        }
        a.wstride[d] = dim == 1 ? 0 : stride;
        stride *= dim;
        a.dims[d] = x->dims[d];
    }
    a.xt = x->dtype;
    a.wt = w->dtype;
    a.yt = y->dtype;
    a.rank = x->rank;
    a.outer = em_ref_prod(x->dims, ax);
    a.inner = em_ref_prod(x->dims + ax, x->rank - ax);
    a.eps = eps;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct norm_job {
    const void *attrs;
    const em_tensor *in;
    em_tensor *out;
} norm_job;

static void rmsnorm_task(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const em_rmsnorm_attrs *a = j->attrs;
    const void *x = j->in[0].data, *w = j->in[1].data;
    for (int64_t r = begin; r < end; r++) {
        const int64_t e0 = r * a->inner;
        double ss = 0.0;
        for (int64_t e = e0; e < e0 + a->inner; e++) {
            double v = em_nn_get(a->xt, x, e);
            ss += v * v;
        }
        double inv = 1.0 / sqrt(ss / (double)a->inner + a->eps);
        int64_t c[EM_MAX_RANK], rest = e0; /* X's coordinate of element e0 */
        for (int d = a->rank - 1; d >= 0; d--) {
            c[d] = rest % a->dims[d];
            rest /= a->dims[d];
        }
        for (int64_t e = e0; e < e0 + a->inner; e++) {
            int64_t wi = 0;
            for (int d = 0; d < a->rank; d++) {
                wi += c[d] * a->wstride[d];
            }
            double v = em_nn_get(a->xt, x, e) * inv;
            em_nn_set(a->yt, j->out[0].data, e, v * em_nn_get(a->wt, w, wi));
            em_ref_coord_next(c, a->dims, a->rank);
        }
    }
}

void em_rmsnorm__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_rmsnorm_attrs *a = state;
    norm_job j = {a, in, out};
    if (a->inner > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer, 1, rmsnorm_task, &j);
    }
}

/* ---- GroupNormalization -------------------------------------------------------------------- */

typedef struct em_groupnorm_attrs {
    ember_dtype dt;
    int64_t n, c, groups, spatial;
    double eps;
} em_groupnorm_attrs;

ember_status *em_groupnorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_groupnorm_attrs a;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    int64_t groups, stash;
    float eps;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 3, 1));
    EMBER_TRY(em_attn_check_float(ki, x, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, y, x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_int(ki, "num_groups", 0, &groups));
    EMBER_TRY(em_ref_attr_int(ki, "stash_type", 1, &stash));
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &eps));
    if (x->rank < 2 || groups < 1 || x->dims[1] % groups != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "X must be [N, C, ...] and num_groups (%lld) a positive divisor of C",
                            (long long)groups);
    }
    if (stash != 1) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "stash_type %lld is not supported (1 is)",
                            (long long)stash);
    }
    for (int i = 1; i < 3; i++) {
        const em_tensor *t = &ki->in[i];
        EMBER_TRY(em_attn_check_float(ki, t, i == 1 ? "input 1 (scale)" : "input 2 (bias)"));
        if (t->rank != 1 || t->dims[0] != x->dims[1]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input %d (%s) must be [C] = [%lld] (per channel, opset 21)", i,
                                i == 1 ? "scale" : "bias", (long long)x->dims[1]);
        }
    }
    a.dt = x->dtype;
    a.n = x->dims[0];
    a.c = x->dims[1];
    a.groups = groups;
    a.spatial = em_ref_prod(x->dims + 2, x->rank - 2);
    a.eps = eps;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

static void groupnorm_task(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const em_groupnorm_attrs *a = j->attrs;
    const int64_t cg = a->c / a->groups, len = cg * a->spatial;
    const void *x = j->in[0].data;
    for (int64_t ng = begin; ng < end; ng++) {
        const int64_t e0 = ng * len, c0 = ng % a->groups * cg;
        double mean, var;
        em_rd_moments(x, a->dt, e0, len, 1, &mean, &var); /* len 0: nothing is written */
        double inv = 1.0 / sqrt(var + a->eps);
        for (int64_t e = e0; e < e0 + len; e++) {
            int64_t c = c0 + (e - e0) / a->spatial;
            double s = em_nn_get(j->in[1].dtype, j->in[1].data, c);
            double b = em_nn_get(j->in[2].dtype, j->in[2].data, c);
            em_nn_set(a->dt, j->out[0].data, e, s * ((em_nn_get(a->dt, x, e) - mean) * inv) + b);
        }
    }
}

void em_groupnorm__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_groupnorm_attrs *a = state;
    norm_job j = {a, in, out};
    if (a->spatial > 0 && a->c > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n * a->groups, 1, groupnorm_task, &j);
    }
}
