/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/rnn_cell_ref.c and rnn_prepare_ref.c: RNN, GRU and LSTM against a naive double
 * computation written here from the ONNX equations (each gate a full dot product per step, no
 * projection phase), in f32, f64 and f16. Cases use odd sizes (hidden 3, batch 2 or 3, seq 5,
 * input 4) and cover forward, reverse and bidirectional, layouts 0 and 1, B, initial_h,
 * initial_c, P, sequence_lens shorter than seq (and 0), every activation ONNX lists with
 * activation_alpha / activation_beta, clip, GRU linear_before_reset, LSTM input_forget, and
 * absent outputs. Each case runs serially and on two threads; outputs start as a sentinel so
 * that the zeros past a batch's length are checked too. Exact vectors and errors are in
 * test_ref_rnn_vectors.c.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_RNN_C
#define EMBER_TESTS_KERNELS_TEST_REF_RNN_C

#include "test_ref_util.h"

#include <stdio.h>

/* The family's kernels take any dtype: one entry per op. */
static ember_status *r_run(em_op op, const em_node *node, em_tensor *in, int n_in, em_tensor *out,
                           int n_out, em_threadpool *pool, unsigned const_mask)
{
    return t_run_const(t_kernel(op, EMBER_DTYPE_UNDEFINED), node, in, n_in, out, n_out, pool,
                       const_mask);
}

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define RNN EM_OP_RNN
#define GRU EM_OP_GRU
#define LSTM EM_OP_LSTM

#ifndef EM_RNN_TEST_HELPERS_ONLY

enum { MAX_ACTS = 6 };

typedef struct rnn_case {
    const char *name;
    em_op op;
    const char *direction; /* NULL: attribute absent (forward) */
    int layout;
    int64_t s, b, i, h;
    bool has_b, has_h0, has_c0, has_p, has_lens;
    int64_t lens[3];
    int n_acts;
    const char *acts[MAX_ACTS];
    int n_alpha, n_beta;
    float alpha[4], beta[4];
    float clip; /* 0: attribute absent */
    int lbr, input_forget;
    unsigned outs; /* bit o: output o computed */
    ember_dtype dt;
} rnn_case;

/* ---- the naive reference ----------------------------------------------------------------- */

typedef struct ref_act {
    const char *name;
    double alpha, beta;
} ref_act;

/* ASCII case-insensitive comparison (ci_cmp is POSIX, not C11). */
static int ci_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = *a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a;
        int cb = *b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b;
        if (ca != cb || ca == 0) {
            return ca - cb;
        }
    }
}

/* The ONNX definitions of the activation functions, by (case-insensitive) name. */
static double act_eval(const ref_act *a, double x)
{
    const char *n = a->name;
    if (ci_cmp(n, "Relu") == 0) {
        return fmax(x, 0.0);
    }
    if (ci_cmp(n, "Tanh") == 0) {
        return tanh(x);
    }
    if (ci_cmp(n, "Sigmoid") == 0) {
        return 1.0 / (1.0 + exp(-x));
    }
    if (ci_cmp(n, "Affine") == 0) {
        return a->alpha * x + a->beta;
    }
    if (ci_cmp(n, "LeakyRelu") == 0) {
        return x >= 0.0 ? x : a->alpha * x;
    }
    if (ci_cmp(n, "ThresholdedRelu") == 0) {
        return x >= a->alpha ? x : 0.0;
    }
    if (ci_cmp(n, "ScaledTanh") == 0) {
        return a->alpha * tanh(a->beta * x);
    }
    if (ci_cmp(n, "HardSigmoid") == 0) {
        return fmin(fmax(a->alpha * x + a->beta, 0.0), 1.0);
    }
    if (ci_cmp(n, "Elu") == 0) {
        return x >= 0.0 ? x : a->alpha * (exp(x) - 1.0);
    }
    if (ci_cmp(n, "Softsign") == 0) {
        return x / (1.0 + fabs(x));
    }
    if (ci_cmp(n, "Softplus") == 0) {
        return log(1.0 + exp(x));
    }
    fail_msg("unknown activation %s", n);
    return 0.0;
}

/* Resolves the activations of a case: names per direction, alphas and betas consumed in
 * order by the functions that take them, else the ONNX operator defaults. */
static void resolve_acts(const rnn_case *c, int dirs, int n_act, ref_act *out)
{
    static const char *const dflt[3][3] = {
        {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    int ia = 0, ib = 0;
    for (int k = 0; k < dirs * n_act; k++) {
        ref_act *a = &out[k];
        a->name = c->n_acts > 0 ? c->acts[k % c->n_acts] : dflt[n_act - 1][k % n_act];
        bool ua = false, ub = false;
        a->alpha = a->beta = 0.0;
        if (ci_cmp(a->name, "Affine") == 0) {
            ua = ub = true, a->alpha = 1.0;
        } else if (ci_cmp(a->name, "LeakyRelu") == 0) {
            ua = true, a->alpha = 0.01;
        } else if (ci_cmp(a->name, "ThresholdedRelu") == 0 || ci_cmp(a->name, "Elu") == 0) {
            ua = true, a->alpha = 1.0;
        } else if (ci_cmp(a->name, "ScaledTanh") == 0) {
            ua = ub = true, a->alpha = a->beta = 1.0;
        } else if (ci_cmp(a->name, "HardSigmoid") == 0) {
            ua = ub = true, a->alpha = 0.2, a->beta = 0.5;
        }
        if (ua && ia < c->n_alpha) {
            a->alpha = c->alpha[ia++];
        }
        if (ub && ib < c->n_beta) {
            a->beta = c->beta[ib++];
        }
    }
}

typedef struct ref_io {
    const double *x, *w, *r, *bias, *h0, *c0, *p;
    double *y, *yh, *yc;
} ref_io;

typedef struct ref_ctx {
    const rnn_case *c;
    const ref_io *io;
    int dirs, g;
    ref_act acts[2 * 3];
} ref_ctx;

static double f_act(const ref_ctx *k, int d, int which, double x)
{
    const rnn_case *c = k->c;
    int n_act = k->g == 1 ? 1 : k->g == 3 ? 2 : 3;
    if (c->clip > 0.0f) {
        x = fmin(fmax(x, -(double)c->clip), (double)c->clip);
    }
    return act_eval(&k->acts[d * n_act + which], x);
}

/* sum_k v[k] * M[d, g*H + u, k] over a matrix of n columns. */
static double dot_row(const double *m, int64_t rows, int64_t n, int d, int64_t row, const double *v)
{
    double s = 0.0;
    for (int64_t k = 0; k < n; k++) {
        s += v[k] * m[(d * rows + row) * n + k];
    }
    return s;
}

static double bias_of(const ref_ctx *k, int d, int rb, int64_t row)
{
    int64_t gh = k->g * k->c->h;
    return k->c->has_b ? k->io->bias[(d * 2 + rb) * gh + row] : 0.0;
}

/* One step of direction d from input xt and state h (c): writes hn (cn). */
static void ref_step(const ref_ctx *k, int d, const double *xt, const double *h, const double *c,
                     double *hn, double *cn)
{
    const rnn_case *cs = k->c;
    const ref_io *io = k->io;
    const int64_t hs = cs->h, gh = k->g * hs;
    double rh[8];
    for (int64_t u = 0; u < hs; u++) {
        /* pre(g): Xt*W_g^T + H*R_g^T + Wb_g + Rb_g for unit u */
#define PRE(gate, hv)                                                                              \
    (dot_row(io->w, gh, cs->i, d, (gate)*hs + u, xt) +                                             \
     dot_row(io->r, gh, hs, d, (gate)*hs + u, hv) + bias_of(k, d, 0, (gate)*hs + u) +              \
     bias_of(k, d, 1, (gate)*hs + u))
        if (cs->op == EM_OP_RNN) {
            hn[u] = f_act(k, d, 0, PRE(0, h));
        } else if (cs->op == EM_OP_LSTM) {
            double pi = cs->has_p ? io->p[d * 3 * hs + u] : 0.0;
            double po = cs->has_p ? io->p[d * 3 * hs + hs + u] : 0.0;
            double pf = cs->has_p ? io->p[d * 3 * hs + 2 * hs + u] : 0.0;
            double ig = f_act(k, d, 0, PRE(0, h) + pi * c[u]);
            double fg = cs->input_forget ? 1.0 - ig : f_act(k, d, 0, PRE(2, h) + pf * c[u]);
            double cg = f_act(k, d, 1, PRE(3, h));
            cn[u] = fg * c[u] + ig * cg;
            double og = f_act(k, d, 0, PRE(1, h) + po * cn[u]);
            hn[u] = og * f_act(k, d, 2, cn[u]);
        }
    }
    if (cs->op == EM_OP_GRU) {
        double z[8], r[8];
        for (int64_t u = 0; u < hs; u++) {
            z[u] = f_act(k, d, 0, PRE(0, h));
            r[u] = f_act(k, d, 0, PRE(1, h));
            rh[u] = r[u] * h[u];
        }
        for (int64_t u = 0; u < hs; u++) {
            double n;
            if (cs->lbr) {
                double hr = dot_row(io->r, gh, hs, d, 2 * hs + u, h) + bias_of(k, d, 1, 2 * hs + u);
                n = dot_row(io->w, gh, cs->i, d, 2 * hs + u, xt) + bias_of(k, d, 0, 2 * hs + u) +
                    r[u] * hr;
            } else {
                n = PRE(2, rh);
            }
            hn[u] = (1.0 - z[u]) * f_act(k, d, 1, n) + z[u] * h[u];
        }
    }
#undef PRE
}

static void naive(const rnn_case *c, const ref_io *io)
{
    ref_ctx k = {c, io, 1, 1, {{0}}};
    k.dirs = c->direction != NULL && strcmp(c->direction, "bidirectional") == 0 ? 2 : 1;
    k.g = c->op == EM_OP_LSTM ? 4 : c->op == EM_OP_GRU ? 3 : 1;
    resolve_acts(c, k.dirs, k.g == 1 ? 1 : k.g == 3 ? 2 : 3, k.acts);
    const int64_t S = c->s, B = c->b, I = c->i, H = c->h, D = k.dirs;
    for (int d = 0; d < D; d++) {
        bool rev = d == 1 || (c->direction != NULL && strcmp(c->direction, "reverse") == 0);
        for (int64_t b = 0; b < B; b++) {
            int64_t len = c->has_lens ? c->lens[b] : S;
            int64_t so = c->layout == 0 ? (d * B + b) * H : (b * D + d) * H;
            double h[8], cc[8], hn[8], cn[8], xt[8];
            for (int64_t u = 0; u < H; u++) {
                h[u] = c->has_h0 ? io->h0[so + u] : 0.0;
                cc[u] = c->has_c0 ? io->c0[so + u] : 0.0;
            }
            for (int64_t t = 0; t < S; t++) {
                int64_t yo = c->layout == 0 ? ((t * D + d) * B + b) * H : ((b * S + t) * D + d) * H;
                for (int64_t u = 0; u < H; u++) {
                    io->y[yo + u] = 0.0;
                }
            }
            for (int64_t step = 0; step < len; step++) {
                int64_t t = rev ? len - 1 - step : step;
                for (int64_t q = 0; q < I; q++) {
                    xt[q] = io->x[(c->layout == 0 ? t * B + b : b * S + t) * I + q];
                }
                ref_step(&k, d, xt, h, cc, hn, cn);
                memcpy(h, hn, sizeof h);
                memcpy(cc, cn, sizeof cc);
                int64_t yo = c->layout == 0 ? ((t * D + d) * B + b) * H : ((b * S + t) * D + d) * H;
                memcpy(io->y + yo, h, sizeof(double) * (size_t)H);
            }
            for (int64_t u = 0; u < H; u++) {
                io->yh[so + u] = len > 0 ? h[u] : 0.0;
                io->yc[so + u] = len > 0 ? cc[u] : 0.0;
            }
        }
    }
}

/* ---- the cases --------------------------------------------------------------------------- */

/* clang-format off */
static const rnn_case cases[] = {
    {"rnn_defaults", RNN, NULL, 0, 5, 2, 4, 3, false, false, false, false, false, {0}, 0, {NULL},
     0, 0, {0}, {0}, 0, 0, 0, 0x3, F32},
    {"rnn_reverse_relu_lens_layout1", RNN, "reverse", 1, 5, 2, 4, 3, true, true, false, false,
     true, {5, 2}, 1, {"Relu"}, 0, 0, {0}, {0}, 0, 0, 0, 0x3, F64},
    {"rnn_bi_leaky_scaledtanh_clip_lens0", RNN, "bidirectional", 0, 5, 3, 4, 3, true, true, false,
     false, true, {3, 5, 0}, 2, {"LeakyRelu", "ScaledTanh"}, 2, 1, {0.2f, 0.7f}, {1.3f}, 0.3f, 0,
     0, 0x2, F32},
    {"rnn_bi_layout1_affine_thresh", RNN, "bidirectional", 1, 5, 2, 4, 3, true, false, false,
     false, false, {0}, 2, {"affine", "thresholdedrelu"}, 1, 1, {0.6f}, {0.1f}, 0, 0, 0, 0x3,
     F64},
    {"gru_defaults", GRU, NULL, 0, 5, 2, 4, 3, false, false, false, false, false, {0}, 0, {NULL}, 0,
     0, {0}, {0}, 0, 0, 0, 0x3, F32},
    {"gru_bi_lbr_layout1_lens", GRU, "bidirectional", 1, 5, 2, 4, 3, true, true, false, false,
     true, {4, 5}, 0, {NULL}, 0, 0, {0}, {0}, 0, 1, 0, 0x3, F64},
    {"gru_reverse_hardsigmoid_softsign_clip", GRU, "reverse", 0, 5, 2, 4, 3, true, true, false,
     false, true, {2, 5}, 2, {"HardSigmoid", "Softsign"}, 1, 1, {0.3f}, {0.4f}, 0.25f, 0, 0, 0x3,
     F32},
    {"gru_bi_four_acts", GRU, "bidirectional", 0, 5, 3, 4, 3, true, false, false, false, false,
     {0}, 4, {"Sigmoid", "Tanh", "HardSigmoid", "Elu"}, 2, 0, {0.25f, 0.5f}, {0}, 0, 0, 0, 0x1,
     F64},
    {"lstm_defaults_y_only", LSTM, NULL, 0, 5, 2, 4, 3, false, false, false, false, false, {0}, 0,
     {NULL}, 0, 0, {0}, {0}, 0, 0, 0, 0x1, F32},
    {"lstm_bi_peep_lens_layout1", LSTM, "bidirectional", 1, 5, 2, 4, 3, true, true, true, true,
     true, {2, 5}, 0, {NULL}, 0, 0, {0}, {0}, 0, 0, 0, 0x7, F64},
    {"lstm_input_forget_elu_softplus_clip", LSTM, "forward", 0, 5, 2, 4, 3, true, true, true, true,
     false, {0}, 3, {"Sigmoid", "Elu", "Softplus"}, 1, 0, {0.8f}, {0}, 0.5f, 0, 1, 0x6, F32},
    {"lstm_bi_six_acts_lens", LSTM, "bidirectional", 0, 5, 3, 4, 3, true, true, true,
     false, true, {5, 0, 3}, 6, {"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Relu", "Softsign"},
     0, 0, {0}, {0}, 0, 0, 0, 0x7, F32},
    {"lstm_reverse_layout1_f16", LSTM, "reverse", 1, 5, 2, 4, 3, true, true, true, true, true,
     {3, 5}, 0, {NULL}, 0, 0, {0}, {0}, 0, 0, 0, 0x7, EMBER_DTYPE_F16},
    {"gru_lbr_f16", GRU, NULL, 0, 5, 2, 4, 3, true, false, false, false, false, {0}, 0, {NULL}, 0,
     0, {0}, {0}, 0, 1, 0, 0x3, EMBER_DTYPE_F16},
};
/* clang-format on */

static double tol_of(ember_dtype dt)
{
    return dt == F64 ? 1e-12 : dt == F32 ? 2e-6 : 1e-2;
}

/* A buffer of n random values in [lo, hi] stored as dt, and the stored values as doubles. */
static void *rand_buf(ember_dtype dt, int64_t n, test_rng *rng, double lo, double hi, double **vals)
{
    void *p = test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
    *vals = t_f64(n);
    for (int64_t i = 0; i < n; i++) {
        em_tref_set(dt, p, i, test_rng_float(rng, (float)lo, (float)hi));
        (*vals)[i] = em_tref_get(dt, p, i);
    }
    return p;
}

static void check_out(const rnn_case *c, const char *what, const void *got, const double *ref,
                      int64_t n)
{
    double tol = tol_of(c->dt);
    for (int64_t i = 0; i < n; i++) {
        double g = em_tref_get(c->dt, got, i);
        if (!t_close(g, ref[i], tol, tol)) {
            fail_msg("case %s: %s[%lld]: got %.9g, expected %.9g", c->name, what, (long long)i, g,
                     ref[i]);
        }
    }
}

static void set_attrs(t_node *tn, const rnn_case *c)
{
    t_node_init(tn, c->op, c->name);
    t_set_int(tn, "hidden_size", c->h);
    if (c->direction != NULL) {
        t_set_string(tn, "direction", c->direction);
    }
    if (c->layout != 0) {
        t_set_int(tn, "layout", c->layout);
    }
    if (c->n_acts > 0) {
        em_attr *a = t_attr_new(tn, "activations", EM_ATTR_STRINGS);
        a->strings = (char **)c->acts;
        a->n = c->n_acts;
    }
    if (c->n_alpha > 0) {
        t_set_floats(tn, "activation_alpha", c->alpha, c->n_alpha);
    }
    if (c->n_beta > 0) {
        t_set_floats(tn, "activation_beta", c->beta, c->n_beta);
    }
    if (c->clip > 0.0f) {
        t_set_float(tn, "clip", c->clip);
    }
    if (c->op == GRU) {
        t_set_int(tn, "linear_before_reset", c->lbr);
    }
    if (c->op == LSTM) {
        t_set_int(tn, "input_forget", c->input_forget);
    }
}

static void run_case(const rnn_case *c, em_threadpool *pool, uint64_t seed)
{
    const int dirs = c->direction != NULL && strcmp(c->direction, "bidirectional") == 0 ? 2 : 1;
    const int g = c->op == LSTM ? 4 : c->op == GRU ? 3 : 1;
    const int64_t S = c->s, B = c->b, H = c->h, I = c->i, gh = g * H;
    const int64_t xd[3] = {c->layout ? B : S, c->layout ? S : B, I};
    const int64_t wd[3] = {dirs, gh, I}, rd[3] = {dirs, gh, H}, bd[2] = {dirs, 2 * gh};
    const int64_t sd[3] = {c->layout ? B : dirs, c->layout ? dirs : B, H}, pd[2] = {dirs, 3 * H};
    const int64_t yd[4] = {c->layout ? B : S, c->layout ? S : dirs, c->layout ? dirs : B, H};
    const int64_t ny = S * dirs * B * H, ns = dirs * B * H;
    test_rng rng = {seed};
    double *v[8];
    void *x = rand_buf(c->dt, S * B * I, &rng, -1.0, 1.0, &v[0]);
    void *w = rand_buf(c->dt, dirs * gh * I, &rng, -0.6, 0.6, &v[1]);
    void *r = rand_buf(c->dt, dirs * gh * H, &rng, -0.6, 0.6, &v[2]);
    void *bias = rand_buf(c->dt, dirs * 2 * gh, &rng, -0.4, 0.4, &v[3]);
    void *h0 = rand_buf(c->dt, ns, &rng, -0.8, 0.8, &v[4]);
    void *c0 = rand_buf(c->dt, ns, &rng, -0.8, 0.8, &v[5]);
    void *p = rand_buf(c->dt, dirs * 3 * H, &rng, -0.5, 0.5, &v[6]);
    int32_t lens[3];
    for (int64_t b = 0; b < B; b++) {
        lens[b] = (int32_t)c->lens[b];
    }
    em_tensor in[8], out[3];
    t_tensor(&in[0], c->dt, 3, xd, x);
    t_tensor(&in[1], c->dt, 3, wd, w);
    t_tensor(&in[2], c->dt, 3, rd, r);
    t_tensor(&in[3], c->dt, 2, bd, bias);
    t_tensor(&in[4], EMBER_DTYPE_I32, 1, &B, lens);
    t_tensor(&in[5], c->dt, 3, sd, h0);
    t_tensor(&in[6], c->dt, 3, sd, c0);
    t_tensor(&in[7], c->dt, 2, pd, p);
    const bool given[8] = {true, true, true, c->has_b, c->has_lens, c->has_h0, c->has_c0, c->has_p};
    int n_in = 3;
    for (int i = 3; i < 8; i++) {
        if (given[i]) {
            n_in = i + 1;
        } else {
            t_absent(&in[i]);
        }
    }
    void *yb[3];
    int n_out = 0;
    for (int o = 0; o < 3; o++) {
        int64_t n = o == 0 ? ny : ns;
        yb[o] = test_calloc((size_t)n, em_dtype_size(c->dt));
        for (int64_t i = 0; i < n; i++) {
            em_tref_set(c->dt, yb[o], i, 123.0); /* sentinel: every element must be written */
        }
        t_tensor(&out[o], c->dt, o == 0 ? 4 : 3, o == 0 ? yd : sd, yb[o]);
        if (c->outs & (1u << o)) {
            n_out = o + 1;
        } else {
            memset(&out[o], 0, sizeof out[o]); /* absent (dtype UNDEFINED) */
        }
    }
    t_node tn;
    set_attrs(&tn, c);
    t_expect_ok(r_run(c->op, &tn.n, in, n_in, out, n_out, pool, 0), c->name);
    double *ry = t_f64(ny), *rh = t_f64(ns), *rc = t_f64(ns);
    ref_io io = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], ry, rh, rc};
    naive(c, &io);
    if (c->outs & 1u) {
        check_out(c, "Y", yb[0], ry, ny);
    }
    if (c->outs & 2u) {
        check_out(c, "Y_h", yb[1], rh, ns);
    }
    if (c->outs & 4u) {
        check_out(c, "Y_c", yb[2], rc, ns);
    }
    for (int i = 0; i < 7; i++) {
        test_free(v[i]);
    }
    test_free(x), test_free(w), test_free(r), test_free(bias), test_free(h0), test_free(c0);
    test_free(p), test_free(yb[0]), test_free(yb[1]), test_free(yb[2]);
    test_free(ry), test_free(rh), test_free(rc);
}

static void test_rnn_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        run_case(&cases[ci], NULL, 1000 + ci);
        run_case(&cases[ci], pool, 1000 + ci);
    }
    em_threadpool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rnn_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* EM_RNN_TEST_HELPERS_ONLY */
#endif /* EMBER_TESTS_KERNELS_TEST_REF_RNN_C */
