/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conv f32 (ONNX Conv-11), any number of spatial axes: X [N, C, D1..Dk], W [M, C/group,
 * K1..Kk], optional B [M] -> Y [N, M, O1..Ok]. A direct convolution: each output element is
 * the bias plus a dot product over the C/group input channels and the kernel taps that fall
 * inside the input (padding contributes zero), accumulated in double and rounded once.
 * The range of valid taps is computed per output position, so the inner loops carry no
 * bounds checks. Work is split over (batch x output channel) planes; every element is
 * computed in the same order whatever the split, so threaded and serial runs agree bit-exactly.
 */
#include "ref.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct em_conv_attrs {
    em_ref_window win;
    int64_t batch;    /* N */
    int64_t c_in;     /* C */
    int64_t c_out;    /* M */
    int64_t c_in_g;   /* C / group: input channels each output channel sees */
    int64_t c_out_g;  /* M / group */
    int64_t in_plane; /* elements per spatial plane of X, W and Y */
    int64_t k_plane;
    int64_t out_plane;
    bool has_bias;
} em_conv_attrs;

static ember_status *conv_check_inputs(const em_kinfo *ki)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    const em_tensor *x = &ki->in[0], *w = &ki->in[1];
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, w, EMBER_DTYPE_F32, "input 1 (W)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    if (em_ref_has_input(ki, 2)) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], EMBER_DTYPE_F32, "input 2 (B)"));
    }
    return em_ref_check_nc_spatial(ki, x, w);
fail:
    return st;
}

/* Group and channel counts: C = group * W[1], M divisible by group, B is [M]. */
static ember_status *conv_channels(const em_kinfo *ki, em_conv_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1];
    int64_t group;
    EMBER_TRY(em_ref_attr_int(ki, "group", 1, &group));
    a->batch = x->dims[0];
    a->c_in = x->dims[1];
    a->c_out = w->dims[0];
    if (group < 1 || a->c_out % group != 0 || a->c_in % group != 0) {
        return em_ref_error(
            ki, EMBER_ERR_INVALID_MODEL,
            "group %lld does not divide input channels %lld and output channels %lld",
            (long long)group, (long long)a->c_in, (long long)a->c_out);
    }
    a->c_in_g = a->c_in / group;
    a->c_out_g = a->c_out / group;
    if (w->dims[1] != a->c_in_g) {
        return em_ref_error(
            ki, EMBER_ERR_INVALID_MODEL,
            "weight has %lld input channels, expected %lld (X channels %lld / group %lld)",
            (long long)w->dims[1], (long long)a->c_in_g, (long long)a->c_in, (long long)group);
    }
    if (em_ref_has_input(ki, 2)) {
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], &a->c_out, 1, "input 2 (B)"));
    }
    return NULL;
fail:
    return st;
}

ember_status *em_conv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_conv_attrs a = {0};
    int64_t y_dims[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(conv_check_inputs(ki));
    const em_tensor *x = &ki->in[0], *w = &ki->in[1];
    int n_sp = x->rank - 2;
    EMBER_TRY(conv_channels(ki, &a));
    EMBER_TRY(em_ref_window_parse(ki, n_sp, x->dims + 2, w->dims + 2, false, &a.win));
    y_dims[0] = a.batch;
    y_dims[1] = a.c_out;
    for (int d = 0; d < n_sp; d++) {
        y_dims[2 + d] = a.win.out[d];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    a.in_plane = em_ref_prod(x->dims + 2, n_sp);
    a.k_plane = em_ref_prod(w->dims + 2, n_sp);
    a.out_plane = em_ref_prod(y_dims + 2, n_sp);
    a.has_bias = em_ref_has_input(ki, 2);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* Sum of x * w over the valid taps [lo, hi) of one input channel. x is the channel's input
 * plane, w its kernel plane, start the window origin in input coordinates. The outer spatial
 * axes advance as an odometer; the last axis is the inner loop. */
static double window_dot(const em_ref_window *win, const float *x, const float *w,
                         const int64_t *start, const int64_t *lo, const int64_t *hi)
{
    const int last = win->n_sp - 1;
    const int64_t dil_last = win->dilation[last];
    int64_t t[EM_MAX_RANK];
    double acc = 0.0;
    for (int d = 0; d < win->n_sp; d++) {
        t[d] = lo[d];
    }
    for (;;) {
        int64_t xo = 0, wo = 0;
        for (int d = 0; d < last; d++) {
            xo = xo * win->in[d] + start[d] + t[d] * win->dilation[d];
            wo = wo * win->kernel[d] + t[d];
        }
        xo = xo * win->in[last] + start[last];
        wo = wo * win->kernel[last];
        for (int64_t tl = lo[last]; tl < hi[last]; tl++) {
            acc += (double)x[xo + tl * dil_last] * (double)w[wo + tl];
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

typedef struct conv_job {
    const em_conv_attrs *a;
    const float *x, *w, *b;
    float *y;
} conv_job;

/* One output plane: batch n, output channel m. */
static void conv_plane(const conv_job *j, int64_t n, int64_t m)
{
    const em_conv_attrs *a = j->a;
    const em_ref_window *win = &a->win;
    const int64_t g = m / a->c_out_g;
    const float *xg = j->x + (n * a->c_in + g * a->c_in_g) * a->in_plane;
    const float *wm = j->w + m * a->c_in_g * a->k_plane;
    float *yp = j->y + (n * a->c_out + m) * a->out_plane;
    const double bias = j->b != NULL ? (double)j->b[m] : 0.0;
    int64_t o[EM_MAX_RANK] = {0};
    int64_t start[EM_MAX_RANK], lo[EM_MAX_RANK], hi[EM_MAX_RANK];

    for (int64_t i = 0; i < a->out_plane; i++) {
        bool empty = false;
        for (int d = 0; d < win->n_sp; d++) {
            start[d] = o[d] * win->stride[d] - win->pad_begin[d];
            em_ref_taps(start[d], win->kernel[d], win->dilation[d], win->in[d], &lo[d], &hi[d]);
            empty = empty || lo[d] == hi[d];
        }
        double acc = 0.0;
        for (int64_t ic = 0; !empty && ic < a->c_in_g; ic++) {
            acc += window_dot(win, xg + ic * a->in_plane, wm + ic * a->k_plane, start, lo, hi);
        }
        yp[i] = (float)(bias + acc);
        em_ref_coord_next(o, win->out, win->n_sp);
    }
}

static void conv_task(void *arg, int64_t begin, int64_t end)
{
    const conv_job *j = arg;
    for (int64_t nm = begin; nm < end; nm++) {
        conv_plane(j, nm / j->a->c_out, nm % j->a->c_out);
    }
}

void em_conv_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_conv_attrs *a = state;
    conv_job j = {a, in[0].data, in[1].data, a->has_bias ? in[2].data : NULL, out[0].data};
    if (a->out_plane == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->c_out, 1, conv_task, &j);
}
