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

#include "core/alloc.h"
#include "ir/fusedconv.h"

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
    bool has_z;        /* FusedConv: residual Z [N, M, O...] added before the activation */
    em_conv_epilogue epi;
    int64_t block;     /* FusedConv blocked = b > 0: X, Z, Y channel-blocked (b, 2-D only) */
} em_conv_attrs;

static ember_status *conv_check_inputs(const em_kinfo *ki)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, 2, ki->node->op == EM_OP_FUSEDCONV ? 4 : 3, 1));
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

/* Validates a (plain layout) Conv or FusedConv node and fills a. */
static ember_status *conv_parse(const em_kinfo *ki, em_conv_attrs *a)
{
    ember_status *st = NULL;
    int64_t y_dims[EM_MAX_RANK];

    EMBER_TRY(conv_check_inputs(ki));
    const em_tensor *x = &ki->in[0], *w = &ki->in[1];
    int n_sp = x->rank - 2;
    EMBER_TRY(conv_channels(ki, a));
    EMBER_TRY(em_ref_window_parse(ki, n_sp, x->dims + 2, w->dims + 2, false, &a->win));
    y_dims[0] = a->batch;
    y_dims[1] = a->c_out;
    for (int d = 0; d < n_sp; d++) {
        y_dims[2 + d] = a->win.out[d];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    a->in_plane = em_ref_prod(x->dims + 2, n_sp);
    a->k_plane = em_ref_prod(w->dims + 2, n_sp);
    a->out_plane = em_ref_prod(y_dims + 2, n_sp);
    a->has_bias = em_ref_has_input(ki, 2);
    a->has_z = em_ref_has_input(ki, 3);
    if (a->has_z) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[3], EMBER_DTYPE_F32, "input 3 (Z)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[3], y_dims, x->rank, "input 3 (Z)"));
    }
    if (!em_conv_epilogue_parse(ki->node, &a->epi)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "unknown activation '%s' or wrong activation_params",
                            em_node_attr_string(ki->node, "activation", ""));
    }
    return NULL;
fail:
    return st;
}

ember_status *em_conv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    em_conv_attrs a = {0};
    *state = NULL;
    *scratch_bytes = 0;
    ember_status *st = conv_parse(ki, &a);
    return st != NULL ? st : em_ref_state_new(ki, &a, sizeof a, state);
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
    const float *x, *w, *b, *z;
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
    const float *zp = j->z != NULL ? j->z + (n * a->c_out + m) * a->out_plane : NULL;
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
        double v = (double)(float)(bias + acc); /* Conv's output, then the epilogue */
        if (zp != NULL) {
            v = (double)(float)(v + (double)zp[i]);
        }
        yp[i] = (float)em_conv_act_apply(&a->epi, v);
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
    conv_job j = {a, in[0].data, in[1].data, a->has_bias ? in[2].data : NULL, NULL, out[0].data};
    if (a->out_plane == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->c_out, 1, conv_task, &j);
}

/* ---- FusedConv: Conv + residual + activation; channel-blocked X, Z, Y through scratch ---- */

typedef struct fused_state {
    em_conv_attrs a;
    int64_t x_plain[EM_MAX_RANK], y_plain[EM_MAX_RANK];
    size_t x_off, z_off, y_off; /* scratch offsets of the plain copies (blocked only) */
    bool plain_x;               /* plain_input: X stays [N, C, H, W] */
} fused_state;

static size_t align_up(size_t v)
{
    return (v + EM_ALIGN - 1) / EM_ALIGN * EM_ALIGN;
}

/* A plain [N, C, spatial...] view of the blocked tensor t holding c channels. */
static void plain_view(const em_tensor *t, int64_t c, em_tensor *v)
{
    *v = *t;
    v->rank = t->rank - 1;
    v->dims[1] = c;
}

ember_status *em_fusedconv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    fused_state s = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_attr_int(ki, "blocked", 0, &s.a.block));
    if (s.a.block <= 0) {
        EMBER_TRY(conv_parse(ki, &s.a));
        return em_ref_state_new(ki, &s, sizeof s, state);
    }
    const em_tensor *w = &ki->in[1];
    int64_t group, plain_x;
    EMBER_TRY(em_ref_attr_int(ki, "group", 1, &group));
    EMBER_TRY(em_ref_attr_int(ki, "plain_input", 0, &plain_x));
    int64_t xr = plain_x != 0 ? 4 : 5;
    if (ki->n_in < 2 || ki->in[0].rank != xr || w->rank != 4 || ki->out[0].rank != 5 ||
        (xr == 5 && ki->in[0].dims[4] != s.a.block) || ki->out[0].dims[4] != s.a.block) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "blocked FusedConv takes X (unless plain_input), Z, Y [N, C/%lld, "
                            "H, W, %lld] and W [M, C/group, kH, kW]",
                            (long long)s.a.block, (long long)s.a.block);
    }
    em_tensor in[4], out;
    for (int i = 0; i < ki->n_in; i++) {
        in[i] = ki->in[i];
    }
    if (plain_x == 0) {
        plain_view(&ki->in[0], w->dims[1] * group, &in[0]);
    }
    plain_view(&ki->out[0], w->dims[0], &out);
    bool z = em_ref_has_input(ki, 3);
    if (z) {
        plain_view(&ki->in[3], w->dims[0], &in[3]);
    }
    em_kinfo pk = *ki;
    pk.in = in;
    pk.out = &out;
    EMBER_TRY(conv_parse(&pk, &s.a));
    s.a.block = ki->out[0].dims[4];
    s.plain_x = plain_x != 0;
    for (int d = 0; d < 4; d++) {
        s.x_plain[d] = in[0].dims[d];
        s.y_plain[d] = out.dims[d];
    }
    size_t xb = s.plain_x ? 0 : align_up(em_tensor_nbytes(&in[0]));
    size_t yb = align_up(em_tensor_nbytes(&out));
    s.x_off = 0;
    s.z_off = xb;
    s.y_off = xb + (z ? yb : 0);
    *scratch_bytes = s.y_off + yb;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_fusedconv_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const fused_state *s = state;
    const em_conv_attrs *a = &s->a;
    conv_job j = {a, in[0].data, in[1].data, a->has_bias ? in[2].data : NULL,
                  a->has_z ? in[3].data : NULL, out[0].data};
    if (a->out_plane == 0) {
        return;
    }
    char *scratch = ctx != NULL ? ctx->scratch : NULL;
    int64_t b = a->block;
    if (b > 0) {
        float *x = (float *)(scratch + s->x_off), *y = (float *)(scratch + s->y_off);
        if (s->plain_x) {
            x = in[0].data;
        } else {
            em_ref_unblock(in[0].data, x, a->batch, a->c_in, a->in_plane, b);
        }
        if (a->has_z) {
            float *z = (float *)(scratch + s->z_off);
            em_ref_unblock(in[3].data, z, a->batch, a->c_out, a->out_plane, b);
            j.z = z;
        }
        j.x = x;
        j.y = y;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->c_out, 1, conv_task, &j);
    if (b > 0) {
        em_ref_block(j.y, out[0].data, a->batch, a->c_out, a->out_plane, b);
    }
}
