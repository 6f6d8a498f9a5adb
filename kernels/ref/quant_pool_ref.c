/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX Runtime's com.microsoft QLinearAveragePool and QLinearGlobalAveragePool (version 1,
 * NCHW: channels_last 0), the spec's way: X dequantized, AveragePool (AveragePool-19's window
 * attributes: kernel_shape, strides, pads, auto_pad, ceil_mode, count_include_pad; dilations 1)
 * or the mean over each plane, the result quantized with Y's parameters (round half to even,
 * saturating). In double: a window's sum of (x - x_zp) is exact, a padded tap counted by
 * count_include_pad is the real value 0, and an empty window gives the zero point.
 */
#include "ref.h"

#include <stdint.h>
#include <string.h>

typedef struct em_qpool_attrs {
    em_ref_window win;
    bool global;
    bool count_include_pad;
    bool x_zp, y_zp;
    const em_qtype *t;
    int64_t n_planes, in_plane, out_plane;
} em_qpool_attrs;

static ember_status *qpool_prepare(const em_kinfo *ki, bool global, void **state,
                                   size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qpool_attrs q = {.global = global};
    int64_t y_dims[EM_MAX_RANK], v;
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 4, 5, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (X)", &q.t));
    const em_tensor *x = &ki->in[0];
    EMBER_TRY(em_ref_check_nc_spatial(ki, x, NULL));
    EMBER_TRY(em_q_tensor_params(ki, 1, 2, q.t->dt, "X", &q.x_zp));
    EMBER_TRY(em_q_tensor_params(ki, 3, 4, q.t->dt, "Y", &q.y_zp));
    EMBER_TRY(em_ref_attr_int(ki, "channels_last", 0, &v));
    if (v != 0) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "channels_last = %lld (NCHW only)",
                            (long long)v);
    }
    const int n_sp = x->rank - 2;
    y_dims[0] = x->dims[0];
    y_dims[1] = x->dims[1];
    if (global) {
        for (int d = 0; d < n_sp; d++) {
            y_dims[2 + d] = 1;
        }
    } else {
        int64_t ceil_mode, cip;
        EMBER_TRY(em_ref_attr_int(ki, "ceil_mode", 0, &ceil_mode));
        EMBER_TRY(em_ref_attr_int(ki, "count_include_pad", 0, &cip));
        if ((ceil_mode != 0 && ceil_mode != 1) || (cip != 0 && cip != 1)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "ceil_mode and count_include_pad must be 0 or 1");
        }
        q.count_include_pad = cip != 0;
        EMBER_TRY(em_ref_window_parse(ki, n_sp, x->dims + 2, NULL, ceil_mode != 0, &q.win));
        for (int d = 0; d < n_sp; d++) {
            y_dims[2 + d] = q.win.out[d];
        }
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], q.t->dt, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    q.n_planes = x->dims[0] * x->dims[1];
    q.in_plane = em_ref_prod(x->dims + 2, n_sp);
    q.out_plane = em_ref_prod(y_dims + 2, n_sp);
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

ember_status *em_qlinearavgpool_prepare__ref(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    return qpool_prepare(ki, false, state, scratch_bytes);
}

ember_status *em_qlinearglobalavgpool_prepare__ref(const em_kinfo *ki, void **state,
                                                   size_t *scratch_bytes)
{
    return qpool_prepare(ki, true, state, scratch_bytes);
}

typedef struct qpool_job {
    const em_qpool_attrs *q;
    const em_tensor *in;
    void *y;
    double xs, xz, ys, yz;
} qpool_job;

/* Sum of (x - xz) over the valid taps [lo, hi) of the window at `start` in the plane at x0. */
static double qpool_window(const qpool_job *j, int64_t x0, const int64_t *start, const int64_t *lo,
                           const int64_t *hi)
{
    const em_ref_window *w = &j->q->win;
    int64_t t[EM_MAX_RANK];
    memcpy(t, lo, sizeof(int64_t) * (size_t)w->n_sp);
    double acc = 0.0;
    for (;;) {
        int64_t off = 0;
        for (int d = 0; d < w->n_sp; d++) {
            off = off * w->in[d] + start[d] + t[d] * w->dilation[d];
        }
        acc += (double)em_q_int(j->q->t, j->in[0].data, x0 + off) - j->xz;
        int d = w->n_sp - 1;
        while (d >= 0 && ++t[d] == hi[d]) {
            t[d] = lo[d];
            d--;
        }
        if (d < 0) {
            return acc;
        }
    }
}

static void qpool_task(void *arg, int64_t begin, int64_t end)
{
    const qpool_job *j = arg;
    const em_qpool_attrs *q = j->q;
    const em_ref_window *w = &q->win;
    for (int64_t p = begin; p < end; p++) {
        const int64_t x0 = p * q->in_plane, y0 = p * q->out_plane;
        if (q->global) {
            double acc = 0.0;
            for (int64_t i = 0; i < q->in_plane; i++) {
                acc += (double)em_q_int(q->t, j->in[0].data, x0 + i) - j->xz;
            }
            double v = q->in_plane > 0 ? acc * j->xs / (double)q->in_plane : 0.0;
            em_q_quantize(q->t, j->y, y0, v / j->ys, j->yz, true);
            continue;
        }
        int64_t o[EM_MAX_RANK] = {0}, start[EM_MAX_RANK], lo[EM_MAX_RANK], hi[EM_MAX_RANK];
        for (int64_t i = 0; i < q->out_plane; i++) {
            int64_t count = 1, valid = 1;
            for (int d = 0; d < w->n_sp; d++) {
                start[d] = o[d] * w->stride[d] - w->pad_begin[d];
                em_ref_taps(start[d], w->kernel[d], w->dilation[d], w->in[d], &lo[d], &hi[d]);
                int64_t l = lo[d], h = hi[d];
                if (q->count_include_pad) {
                    em_ref_taps(start[d] + w->pad_begin[d], w->kernel[d], w->dilation[d],
                                w->in[d] + w->pad_begin[d] + w->pad_end[d], &l, &h);
                }
                count *= h - l;
                valid *= hi[d] - lo[d];
            }
            double v = valid > 0 && count > 0
                           ? qpool_window(j, x0, start, lo, hi) * j->xs / (double)count
                           : 0.0;
            em_q_quantize(q->t, j->y, y0 + i, v / j->ys, j->yz, true);
            em_ref_coord_next(o, w->out, w->n_sp);
        }
    }
}

static void qpool_run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_qpool_attrs *q = state;
    qpool_job j = {q,
                   in,
                   out[0].data,
                   em_q_param_at(in, 1, true, 0, 1.0),
                   em_q_param_at(in, 2, q->x_zp, 0, 0.0),
                   em_q_param_at(in, 3, true, 0, 1.0),
                   em_q_param_at(in, 4, q->y_zp, 0, 0.0)};
    if (q->out_plane > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, q->n_planes, 1, qpool_task, &j);
    }
}

void em_qlinearavgpool__ref(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    qpool_run(state, in, out, ctx);
}

void em_qlinearglobalavgpool__ref(const void *state, const em_tensor *in, em_tensor *out,
                                  const em_kctx *ctx)
{
    qpool_run(state, in, out, ctx);
}
