/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RNN-22, GRU-22 and LSTM-22 computed in double (attributes parsed by rnn_prepare_ref.c).
 * Per direction d, in two phases, so that a GEMM-based kernel can replace each one:
 *  1. input projection of every step at once: xw[t, b, :] = X[t, b, :] * W[d]^T + Wb[d] + Rb[d]
 *     (one [S*B, I] x [I, G*H] product; GRU with linear_before_reset keeps Rb of its h gate
 *     out, since that bias sits inside the reset product);
 *  2. the recurrence, step by step: hr[b, :] = H[b, :] * R[d]^T (a [B, H] x [H, G*H]
 *     product; GRU without linear_before_reset multiplies its h gate by (r . H) instead), then
 *     the gates, elementwise. Gate pre-activations are clipped to [-clip, clip] when clip is
 *     set, including LSTM's C before h(C) (the cell state itself is not clipped).
 *       RNN:  H = f(xw + hr)
 *       GRU:  z = f(xw_z + hr_z), r = f(xw_r + hr_r),
 *             n = g(xw_h + (r . H) * Rh^T)  or  g(xw_h + r . (H * Rh^T + Rbh)) (lbr),
 *             H = (1 - z) . n + z . H
 *       LSTM: i = f(xw_i + hr_i + Pi . C), f = input_forget ? 1 - i : f(xw_f + hr_f + Pf . C),
 *             c = g(xw_c + hr_c), C = f . C + i . c, o = f(xw_o + hr_o + Po . C), H = o . h(C)
 * Batch b runs sequence_lens[b] steps (clamped to [0, S]); the reverse direction (and direction
 * 1 of bidirectional) walks t = len - 1 .. 0. Y[t] holds H after step t and is zero for
 * t >= len; Y_h / Y_c hold the last state, zero when len = 0 (as ONNX Runtime does). Batch rows
 * are independent: the recurrence runs rows in parallel.
 * ember's attribute em_dynamic_qmax (127 or 255; the TorchScript loader sets it on PyTorch's
 * dynamically quantized LSTM / GRU) fake-quantizes h before each recurrent product, with one
 * range over the batch (em_q_dynamic_fake_quant_f32): then rows are coupled and the
 * recurrence runs step by step over all rows.
 */
#include "ref.h"

#include "quantization/qmath.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

double em_rnn_act_eval(const em_rnn_act *a, double x)
{
    switch (a->kind) {
    case EM_RNN_RELU:
        return x > 0.0 ? x : 0.0;
    case EM_RNN_TANH:
        return tanh(x);
    case EM_RNN_SIGMOID:
        return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
    case EM_RNN_AFFINE:
        return a->alpha * x + a->beta;
    case EM_RNN_LEAKYRELU:
        return x >= 0.0 ? x : a->alpha * x;
    case EM_RNN_THRESHOLDEDRELU:
        return x >= a->alpha ? x : 0.0;
    case EM_RNN_SCALEDTANH:
        return a->alpha * tanh(a->beta * x);
    case EM_RNN_HARDSIGMOID: {
        double v = a->alpha * x + a->beta;
        return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
    }
    case EM_RNN_ELU:
        return x >= 0.0 ? x : a->alpha * (exp(x) - 1.0);
    case EM_RNN_SOFTSIGN:
        return x / (1.0 + fabs(x));
    case EM_RNN_SOFTPLUS:
        return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
    }
    return x;
}

typedef struct rnn_job {
    const em_rnn_attrs *a;
    const em_tensor *in;
    em_tensor *out;
    double *s; /* scratch */
    int d;     /* direction */
} rnn_job;

/* Activation k of direction d applied to the clipped x. */
static double act(const em_rnn_attrs *a, int d, int k, double x)
{
    if (a->has_clip) {
        x = x < -a->clip ? -a->clip : x > a->clip ? a->clip : x;
    }
    return em_rnn_act_eval(&a->act[d][k], x);
}

/* Element offsets of X[t, b, 0], Y[t, d, b, 0] and a state tensor's [d, b, 0] for the layout. */
static int64_t x_at(const em_rnn_attrs *a, int64_t t, int64_t b)
{
    return (a->layout == 0 ? t * a->batch + b : b * a->seq + t) * a->input;
}

static int64_t y_at(const em_rnn_attrs *a, int64_t t, int d, int64_t b)
{
    return (a->layout == 0 ? (t * a->dirs + d) * a->batch + b : (b * a->seq + t) * a->dirs + d) *
           a->hidden;
}

static int64_t state_at(const em_rnn_attrs *a, int d, int64_t b)
{
    return (a->layout == 0 ? d * a->batch + b : b * a->dirs + d) * a->hidden;
}

/* Phase 1 over rows tb = t * batch + b. */
static void project_task(void *arg, int64_t begin, int64_t end)
{
    const rnn_job *j = arg;
    const em_rnn_attrs *a = j->a;
    const int64_t gh = a->gates * a->hidden;
    const void *x = j->in[EM_RNN_X].data, *w = j->in[EM_RNN_W].data, *bias = j->in[EM_RNN_B].data;
    for (int64_t tb = begin; tb < end; tb++) {
        int64_t xo = x_at(a, tb / a->batch, tb % a->batch);
        double *row = j->s + a->xw_off + tb * gh;
        for (int64_t g = 0; g < gh; g++) {
            int64_t wo = (j->d * gh + g) * a->input;
            double acc = 0.0;
            for (int64_t k = 0; k < a->input; k++) {
                acc += em_tref_get(a->dt, x, xo + k) * em_tref_get(a->dt, w, wo + k);
            }
            if (a->has_in[EM_RNN_B]) {
                acc += em_tref_get(a->dt, bias, 2 * j->d * gh + g);
                if (!(a->lbr && g >= 2 * a->hidden)) {
                    acc += em_tref_get(a->dt, bias, (2 * j->d + 1) * gh + g);
                }
            }
            row[g] = acc;
        }
    }
}

/* out[g] = sum_k R[d, row0 + g, k] * v[k] for g in [0, n). */
static void recur(const rnn_job *j, int64_t row0, int64_t n, const double *v, double *out)
{
    const em_rnn_attrs *a = j->a;
    const void *r = j->in[EM_RNN_R].data;
    for (int64_t g = 0; g < n; g++) {
        int64_t ro = (j->d * a->gates * a->hidden + row0 + g) * a->hidden;
        double acc = 0.0;
        for (int64_t k = 0; k < a->hidden; k++) {
            acc += em_tref_get(a->dt, r, ro + k) * v[k];
        }
        out[g] = acc;
    }
}

/* One step of batch row b: h (and c) updated in place from the projection row xw. */
static void rnn_step(const rnn_job *j, const double *xw, const double *hin, double *hr, double *h)
{
    const em_rnn_attrs *a = j->a;
    recur(j, 0, a->hidden, hin, hr);
    for (int64_t k = 0; k < a->hidden; k++) {
        h[k] = act(a, j->d, 0, xw[k] + hr[k]);
    }
}

static void gru_step(const rnn_job *j, const double *xw, const double *hin, double *hr, double *h,
                     double *tmp)
{
    const em_rnn_attrs *a = j->a;
    const int64_t hs = a->hidden;
    double *z = hr, *r = hr + hs, *n = hr + 2 * hs;
    recur(j, 0, 2 * hs, hin, hr);
    for (int64_t k = 0; k < hs; k++) {
        z[k] = act(a, j->d, 0, xw[k] + z[k]);
        r[k] = act(a, j->d, 0, xw[hs + k] + r[k]);
    }
    if (a->lbr) {
        recur(j, 2 * hs, hs, hin, n);
        for (int64_t k = 0; k < hs; k++) {
            double rb = a->has_in[EM_RNN_B] ? em_tref_get(a->dt, j->in[EM_RNN_B].data,
                                                          (2 * j->d + 1) * 3 * hs + 2 * hs + k)
                                            : 0.0;
            n[k] = xw[2 * hs + k] + r[k] * (n[k] + rb);
        }
    } else {
        for (int64_t k = 0; k < hs; k++) {
            tmp[k] = r[k] * h[k];
        }
        recur(j, 2 * hs, hs, tmp, n);
        for (int64_t k = 0; k < hs; k++) {
            n[k] += xw[2 * hs + k];
        }
    }
    for (int64_t k = 0; k < hs; k++) {
        double nk = act(a, j->d, 1, n[k]);
        h[k] = (1.0 - z[k]) * nk + z[k] * h[k];
    }
}

static void lstm_step(const rnn_job *j, const double *xw, const double *hin, double *hr, double *h,
                      double *c)
{
    const em_rnn_attrs *a = j->a;
    const int64_t hs = a->hidden;
    const void *p = a->has_in[EM_RNN_P] ? j->in[EM_RNN_P].data : NULL;
    const int64_t po = j->d * 3 * hs; /* P[d] = [Pi, Po, Pf] */
    recur(j, 0, 4 * hs, hin, hr);
    for (int64_t k = 0; k < hs; k++) {
        double pi = p != NULL ? em_tref_get(a->dt, p, po + k) : 0.0;
        double pf = p != NULL ? em_tref_get(a->dt, p, po + 2 * hs + k) : 0.0;
        double pov = p != NULL ? em_tref_get(a->dt, p, po + hs + k) : 0.0;
        double i = act(a, j->d, 0, xw[k] + hr[k] + pi * c[k]);
        double f = a->input_forget ? 1.0 - i
                                   : act(a, j->d, 0, xw[2 * hs + k] + hr[2 * hs + k] + pf * c[k]);
        double cc = act(a, j->d, 1, xw[3 * hs + k] + hr[3 * hs + k]);
        c[k] = f * c[k] + i * cc;
        double o = act(a, j->d, 0, xw[hs + k] + hr[hs + k] + pov * c[k]);
        h[k] = o * act(a, j->d, 2, c[k]);
    }
}

static int64_t seq_len(const rnn_job *j, int64_t b)
{
    const em_rnn_attrs *a = j->a;
    if (!a->has_in[EM_RNN_LENS]) {
        return a->seq;
    }
    int64_t v = em_tref_index(&j->in[EM_RNN_LENS], b);
    return v < 0 ? 0 : v > a->seq ? a->seq : v;
}

/* Loads a state row (initial_h / initial_c at slot, or zeros). */
static void load_state(const rnn_job *j, int slot, int64_t b, double *dst)
{
    const em_rnn_attrs *a = j->a;
    int64_t o = state_at(a, j->d, b);
    for (int64_t k = 0; k < a->hidden; k++) {
        dst[k] = a->has_in[slot] ? em_tref_get(a->dt, j->in[slot].data, o + k) : 0.0;
    }
}

/* Stores n values of src (zeros when src is NULL) at element `at` of output slot. */
static void store(const rnn_job *j, int slot, int64_t at, const double *src, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        em_tref_set(j->a->dt, j->out[slot].data, at + k, src != NULL ? src[k] : 0.0);
    }
}

/* One step of one batch row; hin is the h the recurrent product reads (h itself, or its
 * fake-quantized copy). */
static void step(const rnn_job *j, const double *xw, const double *hin, double *hr, double *h,
                 double *c, double *tmp)
{
    if (j->a->op == EM_OP_RNN) {
        rnn_step(j, xw, hin, hr, h);
    } else if (j->a->op == EM_OP_GRU) {
        gru_step(j, xw, hin, hr, h, tmp);
    } else {
        lstm_step(j, xw, hin, hr, h, c);
    }
}

/* Phase 2 with em_dynamic_qmax: step by step over all rows, since the quantization range of
 * h spans the batch (PyTorch's dynamic quantized LSTM / GRU quantize h, [batch, hidden], at
 * each step before its recurrent Linear). h is rounded to float first, as torch holds it. No
 * sequence_lens (prepare refuses them): every row runs every step. */
static void recur_dynamic(const rnn_job *j)
{
    const em_rnn_attrs *a = j->a;
    const int64_t hs = a->hidden, gh = a->gates * hs, B = a->batch;
    const bool rev = a->reverse || j->d == 1;
    double *h = j->s + a->h_off, *c = j->s + a->c_off, *tmp = j->s + a->tmp_off;
    double *hq = j->s + a->hq_off, *hr = j->s + a->hr_off;
    float *f = (float *)(void *)hr; /* B * hs floats fit in hr's B * gh doubles */
    for (int64_t b = 0; b < B; b++) {
        load_state(j, EM_RNN_H0, b, h + b * hs);
        load_state(j, EM_RNN_C0, b, c + b * hs);
    }
    for (int64_t s = 0; s < a->seq; s++) {
        int64_t t = rev ? a->seq - 1 - s : s;
        for (int64_t e = 0; e < B * hs; e++) {
            f[e] = (float)h[e];
        }
        em_q_dynamic_fake_quant_f32(f, B, hs, hs, f, hs, a->dyn_qmax);
        for (int64_t e = 0; e < B * hs; e++) {
            hq[e] = f[e];
        }
        for (int64_t b = 0; b < B; b++) {
            const double *xw = j->s + a->xw_off + (t * B + b) * gh;
            step(j, xw, hq + b * hs, hr + b * gh, h + b * hs, c + b * hs, tmp + b * hs);
            if (a->has_out[EM_RNN_Y]) {
                store(j, EM_RNN_Y, y_at(a, t, j->d, b), h + b * hs, hs);
            }
        }
    }
    for (int64_t b = 0; b < B; b++) {
        if (a->has_out[EM_RNN_YH]) {
            store(j, EM_RNN_YH, state_at(a, j->d, b), a->seq > 0 ? h + b * hs : NULL, hs);
        }
        if (a->has_out[EM_RNN_YC]) {
            store(j, EM_RNN_YC, state_at(a, j->d, b), a->seq > 0 ? c + b * hs : NULL, hs);
        }
    }
}

/* Phase 2 over batch rows. */
static void recur_task(void *arg, int64_t begin, int64_t end)
{
    const rnn_job *j = arg;
    const em_rnn_attrs *a = j->a;
    const int64_t hs = a->hidden, gh = a->gates * hs;
    const bool rev = a->reverse || j->d == 1;
    for (int64_t b = begin; b < end; b++) {
        double *hr = j->s + a->hr_off + b * gh, *h = j->s + a->h_off + b * hs;
        double *c = j->s + a->c_off + b * hs, *tmp = j->s + a->tmp_off + b * hs;
        int64_t len = seq_len(j, b);
        load_state(j, EM_RNN_H0, b, h);
        load_state(j, EM_RNN_C0, b, c);
        for (int64_t s = 0; s < len; s++) {
            int64_t t = rev ? len - 1 - s : s;
            const double *xw = j->s + a->xw_off + (t * a->batch + b) * gh;
            step(j, xw, h, hr, h, c, tmp);
            if (a->has_out[EM_RNN_Y]) {
                store(j, EM_RNN_Y, y_at(a, t, j->d, b), h, hs);
            }
        }
        for (int64_t t = len; t < a->seq && a->has_out[EM_RNN_Y]; t++) {
            store(j, EM_RNN_Y, y_at(a, t, j->d, b), NULL, hs);
        }
        if (a->has_out[EM_RNN_YH]) {
            store(j, EM_RNN_YH, state_at(a, j->d, b), len > 0 ? h : NULL, hs);
        }
        if (a->has_out[EM_RNN_YC]) {
            store(j, EM_RNN_YC, state_at(a, j->d, b), len > 0 ? c : NULL, hs);
        }
    }
}

void em_rnn__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_rnn_attrs *a = state;
    for (int d = 0; d < a->dirs; d++) {
        rnn_job j = {a, in, out, ctx->scratch, d};
        em_parallel_for(ctx->pool, a->seq * a->batch, 4, project_task, &j);
        if (a->dyn_qmax != 0) {
            recur_dynamic(&j);
        } else {
            em_parallel_for(ctx->pool, a->batch, 1, recur_task, &j);
        }
    }
}
