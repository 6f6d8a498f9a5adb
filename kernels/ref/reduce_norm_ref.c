/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Normalisations, f32 f64 f16 bf16, statistics in double with a two-pass variance (mean first,
 * then the mean of squared deviations, so it is never negative).
 *
 *  LayerNormalization-17: over axes [axis, r): Y = (X - mean) / sqrt(var + epsilon) * Scale + B;
 *    Scale and the optional B broadcast (numpy, right-aligned) to the normalised dims X[axis:].
 *    Optional outputs Mean and InvStdDev (1 / sqrt(var + epsilon)) have X's shape with the
 *    normalised dims set to 1, dtype f32 (stash_type 1) or f64. stash_type only chooses that
 *    dtype here: computation is in double either way.
 *  InstanceNormalization-6: per (n, c) over the spatial axes, scale[c] and B[c].
 *  MeanVarianceNormalization-13: over `axes` (default [0, 2, 3]):
 *    Y = (X - mean) / (sqrt(var) + 1e-9), the epsilon of the ONNX function body.
 *  LRN-13: across channels, y = x / (bias + alpha / size * sum x^2)^beta, the sum over
 *    channels [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to [0, C).
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static ember_status *float_input(const em_kinfo *ki, const em_tensor *t, ember_dtype dt,
                                 const char *what)
{
    ember_status *st = em_ref_check_tensor(ki, t, dt, what);
    if (st == NULL && !em_rd_is_float(t->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "%s: dtype %s is not supported", what,
                            em_dtype_name(t->dtype));
    }
    return st;
}

/* ---- LayerNormalization ------------------------------------------------------------------ */

typedef struct em_layernorm_attrs {
    ember_dtype dt, stat_dt[3]; /* stat_dt[1], [2]: UNDEFINED when the output is absent */
    double eps;
    bool has_b;
    int nr;                                               /* number of normalised axes */
    int64_t ndim[EM_MAX_RANK];                            /* normalised dims */
    int64_t s_stride[EM_MAX_RANK], b_stride[EM_MAX_RANK]; /* 0 along broadcast axes */
    int64_t outer, n;
} em_layernorm_attrs;

/* Strides of `t` broadcast onto the last nr dims `nd` (0 where t has 1 or no axis). */
static ember_status *bcast_strides(const em_kinfo *ki, const em_tensor *t, int nr,
                                   const int64_t *nd, int64_t *strides, const char *what)
{
    int64_t s = 1;
    if (t->rank > nr) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "%s has rank %d, above the %d normalised "
                            "axes",
                            what, t->rank, nr);
    }
    for (int d = nr - 1; d >= 0; d--) {
        int td = d - (nr - t->rank);
        int64_t dim = td >= 0 ? t->dims[td] : 1;
        if (dim != 1 && dim != nd[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "%s does not broadcast to the normalised dims", what);
        }
        strides[d] = dim == 1 ? 0 : s;
        s *= dim;
    }
    return NULL;
}

static ember_status *layernorm_stats(const em_kinfo *ki, int ax, em_layernorm_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    int64_t sd[EM_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        sd[d] = d < ax ? x->dims[d] : 1;
    }
    a->stat_dt[1] = a->stat_dt[2] = EMBER_DTYPE_UNDEFINED;
    for (int o = 1; o < ki->n_out; o++) {
        const em_tensor *t = &ki->out[o];
        const char *what = o == 1 ? "output 1 (Mean)" : "output 2 (InvStdDev)";
        if (t->dtype == EMBER_DTYPE_UNDEFINED) {
            continue; /* an absent optional output */
        }
        EMBER_TRY(float_input(ki, t, EMBER_DTYPE_UNDEFINED, what));
        EMBER_TRY(em_ref_check_shape(ki, t, sd, x->rank, what));
        a->stat_dt[o] = t->dtype;
    }
    return NULL;
fail:
    return st;
}

ember_status *em_layernorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_layernorm_attrs a;
    const em_tensor *x = &ki->in[0];
    int64_t axis, stash;
    float eps;
    int ax;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&a, 0, sizeof a);
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 3));
    EMBER_TRY(float_input(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], x->dtype, "input 1 (Scale)"));
    a.has_b = em_ref_has_input(ki, 2);
    if (a.has_b) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], x->dtype, "input 2 (B)"));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_int(ki, "axis", -1, &axis));
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &eps));
    EMBER_TRY(em_ref_attr_int(ki, "stash_type", 1, &stash));
    if (!em_rd_axis(axis, x->rank, &ax)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x->rank);
    }
    a.dt = x->dtype;
    a.eps = eps;
    a.nr = x->rank - ax;
    memcpy(a.ndim, x->dims + ax, sizeof(int64_t) * (size_t)a.nr);
    EMBER_TRY(bcast_strides(ki, &ki->in[1], a.nr, a.ndim, a.s_stride, "input 1 (Scale)"));
    if (a.has_b) {
        EMBER_TRY(bcast_strides(ki, &ki->in[2], a.nr, a.ndim, a.b_stride, "input 2 (B)"));
    }
    EMBER_TRY(layernorm_stats(ki, ax, &a));
    a.outer = em_ref_prod(x->dims, ax);
    a.n = em_ref_prod(a.ndim, a.nr);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct norm_job {
    const void *state;
    const em_tensor *in;
    em_tensor *out;
} norm_job;

/* Mean and variance (two-pass) of n elements `stride` apart from `base`. */
void em_rd_moments(const void *x, ember_dtype dt, int64_t base, int64_t n, int64_t stride,
                   double *mean, double *var)
{
    double s = 0.0, q = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += em_rd_load_f(x, dt, base + i * stride);
    }
    *mean = n > 0 ? s / (double)n : NAN;
    for (int64_t i = 0; i < n; i++) {
        double d = em_rd_load_f(x, dt, base + i * stride) - *mean;
        q += d * d;
    }
    *var = n > 0 ? q / (double)n : NAN;
}

static void layernorm_task(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const em_layernorm_attrs *a = j->state;
    for (int64_t row = begin; row < end; row++) {
        double mean, var;
        em_rd_moments(j->in[0].data, a->dt, row * a->n, a->n, 1, &mean, &var);
        double inv = 1.0 / sqrt(var + a->eps);
        for (int64_t i = 0; i < a->n; i++) {
            int64_t so = 0, bo = 0, r = i;
            for (int d = a->nr - 1; d >= 0; d--) {
                so += (r % a->ndim[d]) * a->s_stride[d];
                bo += (r % a->ndim[d]) * a->b_stride[d];
                r /= a->ndim[d];
            }
            double v = (em_rd_load_f(j->in[0].data, a->dt, row * a->n + i) - mean) * inv;
            v *= em_rd_load_f(j->in[1].data, a->dt, so);
            if (a->has_b) {
                v += em_rd_load_f(j->in[2].data, a->dt, bo);
            }
            em_rd_store_f(j->out[0].data, a->dt, row * a->n + i, v);
        }
        if (a->stat_dt[1] != EMBER_DTYPE_UNDEFINED) {
            em_rd_store_f(j->out[1].data, a->stat_dt[1], row, mean);
        }
        if (a->stat_dt[2] != EMBER_DTYPE_UNDEFINED) {
            em_rd_store_f(j->out[2].data, a->stat_dt[2], row, inv);
        }
    }
}

void em_layernorm__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_layernorm_attrs *a = state;
    norm_job j = {state, in, out};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer, 8, layernorm_task, &j);
}

/* ---- InstanceNormalization --------------------------------------------------------------- */

typedef struct em_instancenorm_attrs {
    ember_dtype dt;
    double eps;
    int64_t n, c, sp; /* batch, channels, spatial elements per channel */
} em_instancenorm_attrs;

ember_status *em_instancenorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_instancenorm_attrs a;
    const em_tensor *x = &ki->in[0];
    float eps;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 3, 1));
    EMBER_TRY(float_input(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (input)"));
    if (x->rank < 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 has rank %d, expected >= 3",
                            x->rank);
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], x->dtype, "input 1 (scale)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[1], x->dims + 1, 1, "input 1 (scale)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], x->dtype, "input 2 (B)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], x->dims + 1, 1, "input 2 (B)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (output)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (output)"));
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &eps));
    a.dt = x->dtype;
    a.eps = eps;
    a.n = x->dims[0];
    a.c = x->dims[1];
    a.sp = em_ref_prod(x->dims + 2, x->rank - 2);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

static void instancenorm_task(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const em_instancenorm_attrs *a = j->state;
    for (int64_t nc = begin; nc < end; nc++) {
        int64_t c = nc % a->c, base = nc * a->sp;
        double mean, var;
        em_rd_moments(j->in[0].data, a->dt, base, a->sp, 1, &mean, &var);
        double k = em_rd_load_f(j->in[1].data, a->dt, c) / sqrt(var + a->eps);
        double b = em_rd_load_f(j->in[2].data, a->dt, c);
        for (int64_t i = 0; i < a->sp; i++) {
            double v = em_rd_load_f(j->in[0].data, a->dt, base + i);
            em_rd_store_f(j->out[0].data, a->dt, base + i, (v - mean) * k + b);
        }
    }
}

void em_instancenorm__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const em_instancenorm_attrs *a = state;
    norm_job j = {state, in, out};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n * a->c, 4, instancenorm_task, &j);
}

/* ---- MeanVarianceNormalization ----------------------------------------------------------- */

typedef struct em_mvn_attrs {
    ember_dtype dt;
    em_rd_walk w;
} em_mvn_attrs;

ember_status *em_mvn_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_mvn_attrs a;
    const em_tensor *x = &ki->in[0];
    const em_attr *axes_attr = em_node_attr(ki->node, "axes");
    int64_t axes[EM_MAX_RANK];
    int64_t n_axes = axes_attr != NULL ? axes_attr->n : 3;
    unsigned mask = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(float_input(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    if (n_axes > x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%lld axes for rank %d", (long long)n_axes,
                            x->rank);
    }
    if (axes_attr != NULL) {
        EMBER_TRY(em_ref_attr_ints(ki, "axes", (int)n_axes, 0, axes, NULL));
    } else {
        axes[0] = 0, axes[1] = 2, axes[2] = 3;
    }
    for (int64_t i = 0; i < n_axes; i++) {
        int d;
        if (!em_rd_axis(axes[i], x->rank, &d) || (mask & (1u << d))) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "axes[%lld] = %lld is out of range or repeated", (long long)i,
                                (long long)axes[i]);
        }
        mask |= 1u << d;
    }
    a.dt = x->dtype;
    em_rd_walk_init(&a.w, x->dims, x->rank, mask);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

static void mvn_task(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const em_mvn_attrs *a = j->state;
    const void *x = j->in[0].data;
    for (int64_t g = begin; g < end; g++) {
        int64_t base = em_rd_walk_base(&a->w, g);
        double s = 0.0, q = 0.0;
        for (int64_t r = 0; r < a->w.n_red; r++) {
            s += em_rd_load_f(x, a->dt, em_rd_walk_offset(&a->w, base, r));
        }
        double mean = s / (double)a->w.n_red;
        for (int64_t r = 0; r < a->w.n_red; r++) {
            double d = em_rd_load_f(x, a->dt, em_rd_walk_offset(&a->w, base, r)) - mean;
            q += d * d;
        }
        double den = sqrt(q / (double)a->w.n_red) + 1e-9;
        for (int64_t r = 0; r < a->w.n_red; r++) {
            int64_t off = em_rd_walk_offset(&a->w, base, r);
            em_rd_store_f(j->out[0].data, a->dt, off, (em_rd_load_f(x, a->dt, off) - mean) / den);
        }
    }
}

void em_mvn__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_mvn_attrs *a = state;
    norm_job j = {state, in, out};
    if (a->w.n_red > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->w.n_groups, 4, mvn_task, &j);
    }
}

/* ---- LRN --------------------------------------------------------------------------------- */

typedef struct em_lrn_attrs {
    ember_dtype dt;
    double alpha, beta, bias;
    int64_t size, n, c, sp;
} em_lrn_attrs;

ember_status *em_lrn_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_lrn_attrs a;
    const em_tensor *x = &ki->in[0];
    float alpha, beta, bias;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(float_input(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    if (x->rank < 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 has rank %d, expected >= 2",
                            x->rank);
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_float(ki, "alpha", 1e-4f, &alpha));
    EMBER_TRY(em_ref_attr_float(ki, "beta", 0.75f, &beta));
    EMBER_TRY(em_ref_attr_float(ki, "bias", 1.0f, &bias));
    EMBER_TRY(em_ref_attr_int(ki, "size", 0, &a.size));
    if (a.size < 1 || a.size > ((int64_t)1 << 31)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'size' is missing or out of range");
    }
    a.dt = x->dtype;
    a.alpha = alpha;
    a.beta = beta;
    a.bias = bias;
    a.n = x->dims[0];
    a.c = x->dims[1];
    a.sp = em_ref_prod(x->dims + 2, x->rank - 2);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

static void lrn_task(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const em_lrn_attrs *a = j->state;
    const int64_t lo_off = (a->size - 1) / 2, hi_off = a->size - 1 - lo_off;
    for (int64_t nc = begin; nc < end; nc++) {
        int64_t n = nc / a->c, c = nc % a->c;
        int64_t lo = c - lo_off > 0 ? c - lo_off : 0;
        int64_t hi = c + hi_off < a->c - 1 ? c + hi_off : a->c - 1;
        for (int64_t s = 0; s < a->sp; s++) {
            double sum = 0.0;
            for (int64_t k = lo; k <= hi; k++) {
                double v = em_rd_load_f(j->in[0].data, a->dt, (n * a->c + k) * a->sp + s);
                sum += v * v;
            }
            int64_t off = nc * a->sp + s;
            double v = em_rd_load_f(j->in[0].data, a->dt, off);
            double den = pow(a->bias + a->alpha / (double)a->size * sum, a->beta);
            em_rd_store_f(j->out[0].data, a->dt, off, v / den);
        }
    }
}

void em_lrn__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_lrn_attrs *a = state;
    norm_job j = {state, in, out};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n * a->c, 4, lrn_task, &j);
}
