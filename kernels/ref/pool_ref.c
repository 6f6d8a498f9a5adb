/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pooling f32 over any number of spatial axes, X [N, C, D1..Dk] -> Y [N, C, O1..Ok]:
 * MaxPool (ONNX MaxPool-12: kernel_shape, strides, pads, dilations, auto_pad, ceil_mode; the
 * optional Indices output and storage_order != 0 are declined), AveragePool (AveragePool-19,
 * the same plus count_include_pad) and GlobalAveragePool.
 *
 * Windows and padding as in common_ref.c. A MaxPool window that lies wholly in the padding
 * yields -FLT_MAX (ONNX Runtime's choice). AveragePool divides by the taps inside the input,
 * or with count_include_pad by the taps inside the padded input [-pad_begin, in + pad_end)
 * (ceil_mode windows reaching past the end padding do not count those taps, as in ONNX Runtime
 * and PyTorch); an empty window yields 0. Sums accumulate in double. Work is split over
 * (batch x channel) planes.
 */
#include "ref.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct em_pool_attrs {
    em_ref_window win;
    int64_t n_planes; /* N * C */
    int64_t in_plane; /* elements per spatial plane */
    int64_t out_plane;
    bool count_include_pad;
} em_pool_attrs;

/* Checks X and Y, reads ceil_mode and the window, checks Y's shape. */
static ember_status *pool_prepare(const em_kinfo *ki, em_pool_attrs *a)
{
    ember_status *st = NULL;
    int64_t ceil_mode, y_dims[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0];

    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    if (x->rank < 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input X has rank %d, expected at least 3 (N, C, spatial...)", x->rank);
    }
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
    if (ki->n_out == 2) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "the Indices output is not supported");
    }
    EMBER_TRY(em_ref_attr_int(ki, "storage_order", 0, &storage_order));
    if (storage_order != 0) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "storage_order = %lld is not supported",
                            (long long)storage_order);
    }
    EMBER_TRY(pool_prepare(ki, &a));
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
    EMBER_TRY(pool_prepare(ki, &a));
    EMBER_TRY(em_ref_attr_int(ki, "count_include_pad", 0, &cip));
    if (cip != 0 && cip != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "count_include_pad = %lld, expected 0 or 1", (long long)cip);
    }
    a.count_include_pad = cip != 0;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct pool_job {
    const em_pool_attrs *a;
    const float *x;
    float *y;
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

/* Max (is_max) or sum of the valid taps [lo, hi) of plane x; outer axes as an odometer. */
static double window_reduce(const em_ref_window *win, const float *x, const int64_t *start,
                            const int64_t *lo, const int64_t *hi, bool is_max)
{
    const int last = win->n_sp - 1;
    int64_t t[EM_MAX_RANK];
    double acc = is_max ? -DBL_MAX : 0.0;
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
            double v = x[xo + tl * win->dilation[last]];
            if (!is_max) {
                acc += v;
            } else if (v > acc || isnan(v)) { /* NaN propagates, as in numpy's max */
                acc = v;
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

static void pool_plane(const pool_job *j, int64_t p, bool is_max)
{
    const em_pool_attrs *a = j->a;
    const float *x = j->x + p * a->in_plane;
    float *y = j->y + p * a->out_plane;
    int64_t o[EM_MAX_RANK] = {0};
    int64_t start[EM_MAX_RANK], lo[EM_MAX_RANK], hi[EM_MAX_RANK];
    for (int64_t i = 0; i < a->out_plane; i++) {
        bool any = pool_window(&a->win, o, start, lo, hi);
        if (is_max) {
            y[i] = any ? (float)window_reduce(&a->win, x, start, lo, hi, true) : -FLT_MAX;
        } else {
            int64_t count = pool_count(a, start, lo, hi);
            double sum = any ? window_reduce(&a->win, x, start, lo, hi, false) : 0.0;
            y[i] = count > 0 ? (float)(sum / (double)count) : 0.0f;
        }
        em_ref_coord_next(o, a->win.out, a->win.n_sp);
    }
}

static void maxpool_task(void *arg, int64_t begin, int64_t end)
{
    for (int64_t p = begin; p < end; p++) {
        pool_plane(arg, p, true);
    }
}

static void avgpool_task(void *arg, int64_t begin, int64_t end)
{
    for (int64_t p = begin; p < end; p++) {
        pool_plane(arg, p, false);
    }
}

void em_maxpool_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_pool_attrs *a = state;
    pool_job j = {a, in[0].data, out[0].data};
    if (a->out_plane > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_planes, 1, maxpool_task, &j);
    }
}

void em_avgpool_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_pool_attrs *a = state;
    pool_job j = {a, in[0].data, out[0].data};
    if (a->out_plane > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_planes, 1, avgpool_task, &j);
    }
}

/* ---- GlobalAveragePool -------------------------------------------------------------------- */

typedef struct em_gap_attrs {
    int64_t n_planes;
    int64_t in_plane;
} em_gap_attrs;

ember_status *em_globalavgpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_gap_attrs a;
    int64_t y_dims[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    if (x->rank < 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input X has rank %d, expected at least 3 (N, C, spatial...)", x->rank);
    }
    y_dims[0] = x->dims[0];
    y_dims[1] = x->dims[1];
    for (int d = 2; d < x->rank; d++) {
        y_dims[d] = 1;
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    a.n_planes = x->dims[0] * x->dims[1];
    a.in_plane = em_ref_prod(x->dims + 2, x->rank - 2);
    if (a.in_plane == 0 && a.n_planes > 0) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "average over an empty spatial extent");
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct gap_job {
    const em_gap_attrs *a;
    const float *x;
    float *y;
} gap_job;

static void gap_task(void *arg, int64_t begin, int64_t end)
{
    const gap_job *j = arg;
    for (int64_t p = begin; p < end; p++) {
        const float *x = j->x + p * j->a->in_plane;
        double sum = 0.0;
        for (int64_t i = 0; i < j->a->in_plane; i++) {
            sum += x[i];
        }
        j->y[p] = (float)(sum / (double)j->a->in_plane);
    }
}

void em_globalavgpool_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                               const em_kctx *ctx)
{
    const em_gap_attrs *a = state;
    gap_job j = {a, in[0].data, out[0].data};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_planes, 16, gap_task, &j);
}
