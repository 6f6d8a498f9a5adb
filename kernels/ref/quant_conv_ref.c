/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ConvInteger-10 and QLinearConv-10: Conv-11 geometry (N-D spatial, pads, strides, dilations,
 * group, auto_pad; em_ref_window_parse) over u8/i8 x [N, C, D...] and w [M, C/group, K...],
 * accumulated exactly in int64:
 *     acc[n, m, o] = sum over channels and in-range taps of (x - x_zp) * (w - w_zp[m]).
 * Padding contributes 0 (the real zero, x_zp), as the spec's "x - x_zp, then convolve" reads.
 * ConvInteger stores acc as int32 (wrapping). QLinearConv adds the int32 bias B[m] (quantized
 * with scale x_scale * w_scale[m] and zero point 0) and stores
 * saturate(round_half_even((acc + B[m]) * (x_scale * w_scale[m] / y_scale)) + y_zp), the
 * multiplier in float32 as ONNX's reference and ONNX Runtime compute it.
 * x's zero point and scale, y's scale and zero point are per tensor; w's per tensor or per
 * output channel (1-D [M]). Work is split over (batch x output channel) planes.
 */
#include "ref.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A per-tensor or per-output-channel parameter: value index = m * stride. */
typedef struct qc_param {
    bool present;
    ember_dtype dt;
    int64_t stride;
} qc_param;

typedef struct em_qconv_attrs {
    em_ref_window win;
    int64_t batch, c_in, c_out, c_in_g, c_out_g;
    int64_t in_plane, k_plane, out_plane;
    const em_qtype *xt, *wt, *yt;
    bool qlinear, has_bias;
    int iw; /* input index of w: 1 (ConvInteger) or 3 (QLinearConv) */
    qc_param xzp, wzp, xs, ws, ys, yzp;
} em_qconv_attrs;

/* Parameter input i: one value, or (per_channel) one per output channel. A zero point must
 * have dtype `want`; a scale (want UNDEFINED) f32, f16 or bf16. Absent: not present, unless
 * `required`. */
static ember_status *qc_param_parse(const em_kinfo *ki, const em_qconv_attrs *a, int i,
                                    bool per_channel, ember_dtype want, bool required, qc_param *p)
{
    const em_tensor *t = &ki->in[i];
    memset(p, 0, sizeof *p);
    if (!em_ref_has_input(ki, i)) {
        return required ? em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d is missing", i)
                        : NULL;
    }
    ember_status *st = em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, "a scale or zero point");
    if (st != NULL) {
        return st;
    }
    bool scale = want == EMBER_DTYPE_UNDEFINED;
    if (!em_q_param_dtype_ok(t->dtype, want)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d has dtype %s, expected %s", i,
                            em_dtype_name(t->dtype),
                            scale ? "float, float16 or bfloat16" : em_dtype_name(want));
    }
    p->present = true;
    p->dt = t->dtype;
    if (t->rank <= 1 && em_ref_prod(t->dims, t->rank) == 1) {
        return NULL;
    }
    if (per_channel && t->rank == 1 && t->dims[0] == a->c_out) {
        p->stride = 1;
        return NULL;
    }
    char buf[96];
    em_dims_str(t->dims, t->rank, buf, sizeof buf);
    return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d has shape %s, expected %s", i, buf,
                        per_channel ? "one value or one per output channel" : "one value");
}

/* Shapes, channels, window and output shape of x (input 0) and w (input a->iw). */
static ember_status *qc_geometry(const em_kinfo *ki, em_qconv_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *w = &ki->in[a->iw];
    int64_t group, y_dims[EM_MAX_RANK];
    if (x->rank < 3 || w->rank != x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "x has rank %d and w rank %d, expected one rank >= 3", x->rank,
                            w->rank);
    }
    EMBER_TRY(em_ref_attr_int(ki, "group", 1, &group));
    a->batch = x->dims[0];
    a->c_in = x->dims[1];
    a->c_out = w->dims[0];
    if (group < 1 || a->c_in % group != 0 || a->c_out % group != 0 ||
        w->dims[1] != a->c_in / group) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "group %lld does not fit x's %lld and w's [%lld, %lld] channels",
                            (long long)group, (long long)a->c_in, (long long)a->c_out,
                            (long long)w->dims[1]);
    }
    a->c_in_g = a->c_in / group;
    a->c_out_g = a->c_out / group;
    int n_sp = x->rank - 2;
    EMBER_TRY(em_ref_window_parse(ki, n_sp, x->dims + 2, w->dims + 2, false, &a->win));
    y_dims[0] = a->batch;
    y_dims[1] = a->c_out;
    memcpy(y_dims + 2, a->win.out, sizeof(int64_t) * (size_t)n_sp);
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (y)"));
    a->in_plane = em_ref_prod(x->dims + 2, n_sp);
    a->k_plane = em_ref_prod(w->dims + 2, n_sp);
    a->out_plane = em_ref_prod(y_dims + 2, n_sp);
    return NULL;
fail:
    return st;
}

ember_status *em_convinteger_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qconv_attrs a = {0};

    *state = NULL;
    *scratch_bytes = 0;
    a.iw = 1;
    EMBER_TRY(em_ref_check_arity(ki, 2, 4, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (x)", &a.xt));
    EMBER_TRY(em_q_operand_8bit(ki, 1, "input 1 (w)", &a.wt));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_I32, "output 0 (y)"));
    EMBER_TRY(qc_geometry(ki, &a));
    EMBER_TRY(qc_param_parse(ki, &a, 2, false, a.xt->dt, false, &a.xzp));
    EMBER_TRY(qc_param_parse(ki, &a, 3, true, a.wt->dt, false, &a.wzp));
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

ember_status *em_qlinearconv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qconv_attrs a = {0};
    const em_tensor *y = &ki->out[0];

    *state = NULL;
    *scratch_bytes = 0;
    a.iw = 3;
    a.qlinear = true;
    EMBER_TRY(em_ref_check_arity(ki, 8, 9, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (x)", &a.xt));
    EMBER_TRY(em_q_operand_8bit(ki, 3, "input 3 (w)", &a.wt));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_UNDEFINED, "output 0 (y)"));
    if (y->dtype != EMBER_DTYPE_U8 && y->dtype != EMBER_DTYPE_I8) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "output dtype %s is not supported",
                            em_dtype_name(y->dtype));
    }
    a.yt = em_q_type(y->dtype);
    EMBER_TRY(qc_geometry(ki, &a));
    EMBER_TRY(qc_param_parse(ki, &a, 1, false, EMBER_DTYPE_UNDEFINED, true, &a.xs));
    EMBER_TRY(qc_param_parse(ki, &a, 2, false, a.xt->dt, false, &a.xzp));
    EMBER_TRY(qc_param_parse(ki, &a, 4, true, EMBER_DTYPE_UNDEFINED, true, &a.ws));
    EMBER_TRY(qc_param_parse(ki, &a, 5, true, a.wt->dt, false, &a.wzp));
    EMBER_TRY(qc_param_parse(ki, &a, 6, false, EMBER_DTYPE_UNDEFINED, true, &a.ys));
    EMBER_TRY(qc_param_parse(ki, &a, 7, false, a.yt->dt, false, &a.yzp));
    a.has_bias = em_ref_has_input(ki, 8);
    if (a.has_bias) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[8], EMBER_DTYPE_I32, "input 8 (B)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[8], &a.c_out, 1, "input 8 (B)"));
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct qc_job {
    const em_qconv_attrs *a;
    const em_tensor *in;
    em_tensor *out;
} qc_job;

/* Value of parameter p (input i) for output channel m; `dflt` when absent. */
static double qc_pv(const qc_job *j, const qc_param *p, int i, int64_t m, double dflt)
{
    return p->present ? em_tref_get(p->dt, j->in[i].data, m * p->stride) : dflt;
}

/* Sum of (x - xzp) * (w - wzp) over the valid taps [lo, hi) of one input channel: x elements
 * from x_base (the channel's plane), w from w_base; outer axes advance as an odometer. */
static int64_t qc_window(const qc_job *j, int64_t x_base, int64_t w_base, const int64_t *start,
                         const int64_t *lo, const int64_t *hi, int64_t xzp, int64_t wzp)
{
    const em_qconv_attrs *a = j->a;
    const em_ref_window *win = &a->win;
    const void *x = j->in[0].data, *w = j->in[a->iw].data;
    const int last = win->n_sp - 1;
    int64_t t[EM_MAX_RANK], acc = 0;
    memcpy(t, lo, sizeof(int64_t) * (size_t)win->n_sp);
    for (;;) {
        int64_t xo = 0, wo = 0;
        for (int d = 0; d < last; d++) {
            xo = xo * win->in[d] + start[d] + t[d] * win->dilation[d];
            wo = wo * win->kernel[d] + t[d];
        }
        xo = x_base + xo * win->in[last] + start[last];
        wo = w_base + wo * win->kernel[last];
        for (int64_t tl = lo[last]; tl < hi[last]; tl++) {
            acc += (em_q_int(a->xt, x, xo + tl * win->dilation[last]) - xzp) *
                   (em_q_int(a->wt, w, wo + tl) - wzp);
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

/* One output plane: batch n, output channel m. */
static void qc_plane(const qc_job *j, int64_t n, int64_t m)
{
    const em_qconv_attrs *a = j->a;
    const em_ref_window *win = &a->win;
    const int64_t g = m / a->c_out_g;
    const int64_t x_base = (n * a->c_in + g * a->c_in_g) * a->in_plane;
    const int64_t w_base = m * a->c_in_g * a->k_plane;
    const int64_t y_base = (n * a->c_out + m) * a->out_plane;
    const int64_t xzp = (int64_t)qc_pv(j, &a->xzp, 2, 0, 0.0);
    const int64_t wzp = (int64_t)qc_pv(j, &a->wzp, a->qlinear ? 5 : 3, m, 0.0);
    const int64_t bias = a->has_bias ? ((const int32_t *)j->in[8].data)[m] : 0;
    double mult = 0.0, yzp = 0.0;
    if (a->qlinear) {
        mult = em_q_multiplier(qc_pv(j, &a->xs, 1, 0, 1.0), qc_pv(j, &a->ws, 4, m, 1.0),
                               qc_pv(j, &a->ys, 6, 0, 1.0));
        yzp = qc_pv(j, &a->yzp, 7, 0, 0.0);
    }
    int64_t o[EM_MAX_RANK] = {0};
    int64_t start[EM_MAX_RANK], lo[EM_MAX_RANK], hi[EM_MAX_RANK];
    for (int64_t i = 0; i < a->out_plane; i++) {
        bool empty = false;
        for (int d = 0; d < win->n_sp; d++) {
            start[d] = o[d] * win->stride[d] - win->pad_begin[d];
            em_ref_taps(start[d], win->kernel[d], win->dilation[d], win->in[d], &lo[d], &hi[d]);
            empty = empty || lo[d] == hi[d];
        }
        int64_t acc = 0;
        for (int64_t ic = 0; !empty && ic < a->c_in_g; ic++) {
            acc += qc_window(j, x_base + ic * a->in_plane, w_base + ic * a->k_plane, start, lo, hi,
                             xzp, wzp);
        }
        if (a->qlinear) {
            em_q_requantize(a->yt, j->out[0].data, y_base + i, acc + bias, mult, yzp);
        } else {
            ((int32_t *)j->out[0].data)[y_base + i] = em_q_wrap32(acc);
        }
        em_ref_coord_next(o, win->out, win->n_sp);
    }
}

static void qc_task(void *arg, int64_t begin, int64_t end)
{
    const qc_job *j = arg;
    for (int64_t nm = begin; nm < end; nm++) {
        qc_plane(j, nm / j->a->c_out, nm % j->a->c_out);
    }
}

static void qc_run(const em_qconv_attrs *a, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    qc_job j = {a, in, out};
    if (a->out_plane == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->c_out, 1, qc_task, &j);
}

void em_convinteger__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    qc_run(state, in, out, ctx);
}

void em_qlinearconv__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    qc_run(state, in, out, ctx);
}
