/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pooling over any number of spatial axes, X [N, C, D1..Dk] -> Y [N, C, O1..Ok]:
 * MaxPool (ONNX MaxPool-12: kernel_shape, strides, pads, dilations, auto_pad, ceil_mode,
 * storage_order and the optional Indices output; f16 f32 f64 i8 u8), AveragePool
 * (AveragePool-19, the same plus count_include_pad; f16 f32 f64), LpPool (LpPool-18: p, the same
 * window attributes; f16 f32 f64), and the global forms GlobalAveragePool, GlobalMaxPool,
 * GlobalLpPool (f16 f32 f64).
 *
 * Windows and padding as in common_ref.c. A MaxPool window that lies wholly in the padding
 * yields the dtype's lowest value (-FLT_MAX for f32, ONNX Runtime's choice) and index -1.
 * Indices are flat offsets into X: plane * plane_size + the offset within the plane, row-major
 * (storage_order 0) or column-major (1), the first maximum in row-major scan order winning and
 * NaN propagating (the first NaN is the maximum). AveragePool divides by the taps inside the
 * input, or with count_include_pad by the taps inside the padded input [-pad_begin, in +
 * pad_end) (ceil_mode windows reaching past the end padding do not count those taps, as in ONNX
 * Runtime and PyTorch); an empty window yields 0. LpPool is (sum over the taps inside the input
 * of |x|^p)^(1/p): padding adds nothing. Sums accumulate in double. Work is split over
 * (batch x channel) planes.
 */
#include "ref.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum pool_kind { POOL_MAX, POOL_AVG, POOL_LP } pool_kind;

typedef struct em_pool_attrs {
    em_ref_window win;
    pool_kind kind;
    ember_dtype dt;
    int64_t n_planes; /* N * C */
    int64_t in_plane; /* elements per spatial plane */
    int64_t out_plane;
    bool count_include_pad;
    bool indices;   /* MaxPool's output 1 */
    bool col_major; /* storage_order 1 */
    double p;       /* LpPool */
} em_pool_attrs;

/* Element i as double; f32 first, the type every CNN pools. */
static inline double pool_ld(ember_dtype dt, const void *p, int64_t i)
{
    return dt == EMBER_DTYPE_F32 ? (double)((const float *)p)[i] : em_nn_get(dt, p, i);
}

/* p of LpPool / GlobalLpPool: an int (the spec's type) >= 1. */
static ember_status *pool_p(const em_kinfo *ki, double *p)
{
    int64_t v;
    ember_status *st = em_ref_attr_int(ki, "p", 2, &v);
    if (st == NULL && (v < 1 || v > 1024)) {
        st =
            em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "p = %lld, expected 1 to 1024", (long long)v);
    }
    *p = (double)v;
    return st;
}

/* Checks X and Y (dtypes in `dtypes`), reads ceil_mode and the window, checks Y's shape (and
 * Indices' when present). */
static ember_status *pool_prepare(const em_kinfo *ki, uint32_t dtypes, int max_out,
                                  em_pool_attrs *a)
{
    ember_status *st = NULL;
    int64_t ceil_mode, y_dims[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0];

    EMBER_TRY(em_ref_check_arity(ki, 1, 1, max_out));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, dtypes, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_nc_spatial(ki, x, NULL));
    EMBER_TRY(em_ref_attr_int(ki, "ceil_mode", 0, &ceil_mode));
    if (ceil_mode != 0 && ceil_mode != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "ceil_mode = %lld, expected 0 or 1",
                            (long long)ceil_mode);
    }
    int n_sp = x->rank - 2;
    EMBER_TRY(em_ref_window_parse(ki, n_sp, x->dims + 2, NULL, ceil_mode != 0, &a->win));
    y_dims[0] = x->dims[0];
    y_dims[1] = x->dims[1];
    for (int d = 0; d < n_sp; d++) {
        y_dims[2 + d] = a->win.out[d];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    if (ki->n_out > 1) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], EMBER_DTYPE_I64, "output 1 (Indices)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], y_dims, x->rank, "output 1 (Indices)"));
    }
    a->dt = x->dtype;
    a->n_planes = x->dims[0] * x->dims[1];
    a->in_plane = em_ref_prod(x->dims + 2, n_sp);
    a->out_plane = em_ref_prod(y_dims + 2, n_sp);
    return NULL;
fail:
    return st;
}

ember_status *em_maxpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_pool_attrs a = {0};
    int64_t storage_order;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_attr_int(ki, "storage_order", 0, &storage_order));
    if (storage_order != 0 && storage_order != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "storage_order = %lld, expected 0 or 1",
                            (long long)storage_order);
    }
    EMBER_TRY(pool_prepare(ki, EM_NN_FLOATS | EM_NN_BIT(I8) | EM_NN_BIT(U8), 2, &a));
    a.kind = POOL_MAX;
    a.indices = ki->n_out > 1;
    a.col_major = storage_order == 1;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

ember_status *em_avgpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_pool_attrs a = {0};
    int64_t cip;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(pool_prepare(ki, EM_NN_FLOATS, 1, &a));
    EMBER_TRY(em_ref_attr_int(ki, "count_include_pad", 0, &cip));
    if (cip != 0 && cip != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "count_include_pad = %lld, expected 0 or 1", (long long)cip);
    }
    a.kind = POOL_AVG;
    a.count_include_pad = cip != 0;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

ember_status *em_lppool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_pool_attrs a = {0};

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(pool_prepare(ki, EM_NN_FLOATS, 1, &a));
    EMBER_TRY(pool_p(ki, &a.p));
    a.kind = POOL_LP;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct pool_job {
    const em_pool_attrs *a;
    const void *x;
    void *y;
    int64_t *idx;
} pool_job;

/* The window of output position o: its origin and its valid taps per axis. False when empty. */
static bool pool_window(const em_ref_window *win, const int64_t *o, int64_t *start, int64_t *lo,
                        int64_t *hi)
{
    bool empty = false;
    for (int d = 0; d < win->n_sp; d++) {
        start[d] = o[d] * win->stride[d] - win->pad_begin[d];
        em_ref_taps(start[d], win->kernel[d], win->dilation[d], win->in[d], &lo[d], &hi[d]);
        empty = empty || lo[d] == hi[d];
    }
    return !empty;
}

/* Max (with its plane offset in *arg), sum or sum of |x|^p of the valid taps [lo, hi) of the
 * plane starting at element x0; outer axes as an odometer. */
static double window_reduce(const em_pool_attrs *a, const void *x, int64_t x0, const int64_t *start,
                            const int64_t *lo, const int64_t *hi, int64_t *arg)
{
    const em_ref_window *win = &a->win;
    const int last = win->n_sp - 1;
    int64_t t[EM_MAX_RANK];
    double acc = a->kind == POOL_MAX ? -INFINITY : 0.0;
    for (int d = 0; d < win->n_sp; d++) {
        t[d] = lo[d];
    }
    for (;;) {
        int64_t xo = 0;
        for (int d = 0; d < last; d++) {
            xo = xo * win->in[d] + start[d] + t[d] * win->dilation[d];
        }
        xo = xo * win->in[last] + start[last];
        for (int64_t tl = lo[last]; tl < hi[last]; tl++) {
            int64_t off = xo + tl * win->dilation[last];
            double v = pool_ld(a->dt, x, x0 + off);
            if (a->kind == POOL_AVG) {
                acc += v;
            } else if (a->kind == POOL_LP) {
                acc += pow(fabs(v), a->p);
            } else if (!isnan(acc) && (v > acc || isnan(v) || *arg < 0)) {
                acc = v; /* NaN propagates, as in numpy's max */
                *arg = off;
            }
        }
        int d = last - 1;
        while (d >= 0 && ++t[d] == hi[d]) {
            t[d] = lo[d];
            d--;
        }
        if (d < 0) {
            return acc;
        }
    }
}

/* The AveragePool divisor of a window: taps inside the input, or inside the padded input. */
static int64_t pool_count(const em_pool_attrs *a, const int64_t *start, const int64_t *lo,
                          const int64_t *hi)
{
    const em_ref_window *win = &a->win;
    int64_t count = 1;
    for (int d = 0; d < win->n_sp; d++) {
        int64_t l = lo[d], h = hi[d];
        if (a->count_include_pad) {
            em_ref_taps(start[d] + win->pad_begin[d], win->kernel[d], win->dilation[d],
                        win->in[d] + win->pad_begin[d] + win->pad_end[d], &l, &h);
        }
        count *= h - l;
    }
    return count;
}

/* A row-major offset within the plane re-expressed column-major (storage_order 1). */
static int64_t pool_col_major(const em_ref_window *win, int64_t off)
{
    int64_t c[EM_MAX_RANK], r = 0;
    for (int d = win->n_sp - 1; d >= 0; d--) {
        c[d] = off % win->in[d];
        off /= win->in[d];
    }
    for (int d = win->n_sp - 1; d >= 0; d--) {
        r = r * win->in[d] + c[d];
    }
    return r;
}

static void pool_plane(const pool_job *j, int64_t p)
{
    const em_pool_attrs *a = j->a;
    const int64_t x0 = p * a->in_plane, y0 = p * a->out_plane;
    int64_t o[EM_MAX_RANK] = {0};
    int64_t start[EM_MAX_RANK], lo[EM_MAX_RANK], hi[EM_MAX_RANK];
    for (int64_t i = 0; i < a->out_plane; i++) {
        bool any = pool_window(&a->win, o, start, lo, hi);
        int64_t arg = -1;
        double v = any ? window_reduce(a, j->x, x0, start, lo, hi, &arg) : 0.0;
        if (a->kind == POOL_MAX) {
            v = any ? v : em_nn_lowest(a->dt);
            if (j->idx != NULL) {
                j->idx[y0 + i] =
                    arg < 0 ? -1 : x0 + (a->col_major ? pool_col_major(&a->win, arg) : arg);
            }
        } else if (a->kind == POOL_AVG) {
            int64_t count = pool_count(a, start, lo, hi);
            v = count > 0 ? v / (double)count : 0.0;
        } else {
            v = pow(v, 1.0 / a->p);
        }
        em_nn_set(a->dt, j->y, y0 + i, v);
        em_ref_coord_next(o, a->win.out, a->win.n_sp);
    }
}

static void pool_task(void *arg, int64_t begin, int64_t end)
{
    for (int64_t p = begin; p < end; p++) {
        pool_plane(arg, p);
    }
}

/* MaxPool, AveragePool and LpPool: the state says which. */
void em_pool__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_pool_attrs *a = state;
    pool_job j = {a, in[0].data, out[0].data, a->indices ? out[1].data : NULL};
    if (a->out_plane > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_planes, 1, pool_task, &j);
    }
}

/* ---- GlobalAveragePool, GlobalMaxPool, GlobalLpPool ---------------------------------------- */

typedef struct em_gpool_attrs {
    pool_kind kind;
    ember_dtype dt;
    int64_t n_planes;
    int64_t in_plane;
    double p;
} em_gpool_attrs;

static ember_status *gpool_prepare(const em_kinfo *ki, pool_kind kind, void **state,
                                   size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_gpool_attrs a = {kind, EMBER_DTYPE_UNDEFINED, 0, 0, 2.0};
    int64_t y_dims[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_nc_spatial(ki, x, NULL));
    y_dims[0] = x->dims[0];
    y_dims[1] = x->dims[1];
    for (int d = 2; d < x->rank; d++) {
        y_dims[d] = 1;
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    if (kind == POOL_LP) {
        EMBER_TRY(pool_p(ki, &a.p));
    }
    a.dt = x->dtype;
    a.n_planes = x->dims[0] * x->dims[1];
    a.in_plane = em_ref_prod(x->dims + 2, x->rank - 2);
    if (a.in_plane == 0 && a.n_planes > 0 && kind != POOL_LP) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "pooling an empty spatial extent");
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

ember_status *em_globalavgpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return gpool_prepare(ki, POOL_AVG, state, scratch_bytes);
}

ember_status *em_globalmaxpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return gpool_prepare(ki, POOL_MAX, state, scratch_bytes);
}

ember_status *em_globallppool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return gpool_prepare(ki, POOL_LP, state, scratch_bytes);
}

typedef struct gpool_job {
    const em_gpool_attrs *a;
    const void *x;
    void *y;
} gpool_job;

static void gpool_task(void *arg, int64_t begin, int64_t end)
{
    const gpool_job *j = arg;
    const em_gpool_attrs *a = j->a;
    for (int64_t p = begin; p < end; p++) {
        double acc = a->kind == POOL_MAX ? -INFINITY : 0.0;
        for (int64_t i = 0; i < a->in_plane; i++) {
            double v = pool_ld(a->dt, j->x, p * a->in_plane + i);
            if (a->kind == POOL_AVG) {
                acc += v;
            } else if (a->kind == POOL_LP) {
                acc += pow(fabs(v), a->p);
            } else if (v > acc || isnan(v)) {
                acc = v;
                if (isnan(v)) {
                    break;
                }
            }
        }
        double y = a->kind == POOL_AVG  ? acc / (double)a->in_plane
                   : a->kind == POOL_LP ? pow(acc, 1.0 / a->p)
                                        : acc;
        em_nn_set(a->dt, j->y, p, y);
    }
}

/* GlobalAveragePool, GlobalMaxPool and GlobalLpPool: the state says which. */
void em_globalpool__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_gpool_attrs *a = state;
    gpool_job j = {a, in[0].data, out[0].data};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_planes, 16, gpool_task, &j);
}
