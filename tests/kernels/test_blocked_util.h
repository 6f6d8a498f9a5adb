/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by test_ref_nn_blocked.c and test_x86_blocked.c: cases of BlockedPool, BlockedAffine and
 * BlockedSE
 * (runtime/ir/blocked.h) given on the plain [N, C, H, W] layout, and runners that block the
 * input (NaN in the padding lanes past C), run a kernel, check that the output's padding lanes
 * are exactly 0, and return the output unblocked (plain, test_malloc'ed).
 */
#ifndef EMBER_TESTS_KERNELS_TEST_BLOCKED_UTIL_H
#define EMBER_TESTS_KERNELS_TEST_BLOCKED_UTIL_H

#include "test_x86_harness.h"

/* A pool over [n, c, h, w] in blocks of b (global pools ignore the window fields). */
typedef struct bk_pcase {
    em_op op; /* EM_OP_MAXPOOL, AVERAGEPOOL, GLOBALMAXPOOL, GLOBALAVERAGEPOOL */
    int64_t n, c, h, w, b;
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pads[4];
    int ceil;
    const char *auto_pad; /* NULL: NOTSET */
    int cip;
} bk_pcase;

/* act: 0 none, 1 Relu, 2 LeakyRelu (p[0]), 3 Clip (p), 4 HardSigmoid (p), 5 HardSwish,
 * 6 Sigmoid, 7 Tanh, 8 SiLU. Forms of S and T: 0 absent, 1 [C], 2 [C, 1, 1], 3 [M, C, 1, 1],
 * 4 blocked [M, C/b, 1, 1, b], with M = N when *_batch, else 1 (forms 1 and 2: M = 1). */
typedef struct bk_acase {
    int64_t n, c, h, w, b;
    int act;
    float p[2];
    int s_form, t_form, s_batch, t_batch;
} bk_acase;

/* clang-format off */
static const bk_acase bk_affine_cases[] = {
    /* n  c   h   w   b   act p             S  T  Sb Tb */
    {2, 19, 5,  7,  16, 0, {0, 0},       1, 2, 0, 0},
    {1, 16, 9,  9,  16, 1, {0, 0},       1, 1, 0, 0},
    {2, 12, 3,  5,  8,  2, {0.1f, 0},    3, 3, 1, 0},
    {1, 21, 4,  6,  8,  3, {-0.5f, 0.7f}, 4, 0, 0, 0},
    {2, 40, 6,  3,  16, 4, {0.3f, 0.4f}, 4, 4, 1, 1},
    {1, 5,  7,  7,  8,  5, {0, 0},       3, 0, 0, 0},
    {2, 33, 3,  3,  16, 6, {0, 0},       4, 1, 1, 0},
    {1, 17, 2,  9,  8,  7, {0, 0},       2, 1, 0, 0},
    {2, 24, 5,  5,  8,  8, {0, 0},       3, 0, 1, 0},
    {1, 16, 64, 70, 16, 1, {0, 0},       1, 1, 0, 0},
    {1, 3,  45, 50, 8,  0, {0, 0},       0, 0, 0, 0},
    {1, 9,  1,  1,  16, 6, {0, 0},       0, 3, 0, 0},
    {3, 8,  4,  4,  8,  3, {-0.2f, 0.2f}, 0, 4, 0, 1},
};
/* clang-format on */
static const size_t bk_n_affine_cases = sizeof bk_affine_cases / sizeof bk_affine_cases[0];

/* plain [n, c, plane] -> blocked [n, ceil(c/b), plane, b], NaN past c */
static inline void bk_block(const float *src, float *dst, int64_t n, int64_t c, int64_t plane,
                            int64_t b)
{
    int64_t cb = (c + b - 1) / b;
    for (int64_t i = 0; i < n * cb * plane * b; i++) {
        int64_t l = i % b, p = (i / b) % plane, k = (i / b / plane) % cb, nn = i / b / plane / cb;
        dst[i] = k * b + l < c ? src[(nn * c + k * b + l) * plane + p] : NAN;
    }
}

/* blocked -> plain; fails unless every lane past c is exactly 0 */
static inline void bk_unblock(const float *src, float *dst, int64_t n, int64_t c, int64_t plane,
                              int64_t b, const char *what)
{
    int64_t cb = (c + b - 1) / b;
    for (int64_t i = 0; i < n * cb * plane * b; i++) {
        int64_t l = i % b, p = (i / b) % plane, k = (i / b / plane) % cb, nn = i / b / plane / cb;
        if (k * b + l < c) {
            dst[(nn * c + k * b + l) * plane + p] = src[i];
        } else if (src[i] != 0.0f) {
            fail_msg("%s: padding lane %lld of element %lld is %g, not 0", what, (long long)l,
                     (long long)i, (double)src[i]);
        }
    }
}

static inline void bk_pool_node(t_node *tn, const bk_pcase *c)
{
    t_node_init(tn, EM_OP_BLOCKEDPOOL, "bpool");
    t_set_string(tn, "pool", em_op_name(c->op));
    t_set_int(tn, "channels", c->c);
    if (c->op != EM_OP_MAXPOOL && c->op != EM_OP_AVERAGEPOOL) {
        return;
    }
    int64_t k[2] = {c->kh, c->kw}, s[2] = {c->sh, c->sw}, d[2] = {c->dh, c->dw};
    t_set_ints(tn, "kernel_shape", k, 2);
    t_set_ints(tn, "strides", s, 2);
    t_set_ints(tn, "dilations", d, 2);
    if (c->auto_pad != NULL) {
        t_set_string(tn, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(tn, "pads", c->pads, 4);
    }
    t_set_int(tn, "ceil_mode", c->ceil);
    t_set_int(tn, "count_include_pad", c->cip);
}

/* clang-format off */
static const bk_pcase bk_pool_cases[] = {
    /* op                    n  c   h   w  b   kh kw sh sw dh dw pads        ceil auto_pad     cip */
    {EM_OP_MAXPOOL,          1, 19, 11, 13, 16, 3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, NULL,         0},
    {EM_OP_MAXPOOL,          2, 16, 9,  10, 8,  3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 0, NULL,         0},
    {EM_OP_MAXPOOL,          1, 5,  12, 7,  8,  2, 3, 1, 2, 2, 1, {1, 0, 2, 2}, 1, NULL,         0},
    {EM_OP_MAXPOOL,          1, 21, 9,  9,  16, 4, 4, 3, 3, 1, 1, {0, 0, 0, 0}, 0, "SAME_UPPER", 0},
    {EM_OP_MAXPOOL,          1, 3,  5,  5,  8,  2, 2, 1, 1, 3, 3, {3, 3, 3, 3}, 0, NULL,         0},
    {EM_OP_AVERAGEPOOL,      1, 19, 11, 13, 16, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, NULL,         1},
    {EM_OP_AVERAGEPOOL,      1, 19, 11, 13, 16, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, NULL,         0},
    {EM_OP_AVERAGEPOOL,      2, 24, 8,  9,  8,  2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, 0, NULL,         0},
    {EM_OP_AVERAGEPOOL,      1, 7,  10, 11, 8,  3, 2, 3, 1, 1, 2, {0, 0, 0, 0}, 0, "SAME_LOWER", 1},
    {EM_OP_AVERAGEPOOL,      1, 9,  10, 11, 16, 3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, "VALID",      0},
    {EM_OP_AVERAGEPOOL,      1, 4,  7,  7,  8,  5, 1, 1, 1, 1, 1, {2, 0, 3, 0}, 0, NULL,         1},
    {EM_OP_GLOBALAVERAGEPOOL, 2, 19, 7, 5,  16, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, 0, NULL,         0},
    {EM_OP_GLOBALAVERAGEPOOL, 1, 8,  1, 1,  8,  0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, 0, NULL,         0},
    {EM_OP_GLOBALMAXPOOL,    1, 27, 6,  9,  16, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, 0, NULL,         0},
    {EM_OP_GLOBALMAXPOOL,    2, 5,  3,  4,  8,  0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, 0, NULL,         0},
};
/* clang-format on */

/* The pads and output size of one axis of case c, as ONNX defines them. */
static inline void bk_pool_axis(const bk_pcase *c, int axis, int64_t *pb, int64_t *pe, int64_t *out)
{
    int64_t in = axis == 0 ? c->h : c->w, k = axis == 0 ? c->kh : c->kw;
    int64_t s = axis == 0 ? c->sh : c->sw, d = axis == 0 ? c->dh : c->dw, ext = (k - 1) * d + 1;
    *pb = c->pads[axis];
    *pe = c->pads[axis + 2];
    if (c->auto_pad != NULL && strcmp(c->auto_pad, "VALID") == 0) {
        *pb = *pe = 0;
        *out = (in - ext) / s + 1;
        return;
    }
    if (c->auto_pad != NULL) { /* SAME_UPPER / SAME_LOWER: out = ceil(in / s) */
        *out = (in + s - 1) / s;
        int64_t total = (*out - 1) * s + ext - in;
        total = total > 0 ? total : 0;
        *pb = strcmp(c->auto_pad, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
        *pe = total - *pb;
        return;
    }
    int64_t span = in + *pb + *pe - ext;
    *out = (c->ceil ? (span + s - 1) / s : span / s) + 1;
    if (c->ceil && (*out - 1) * s >= in + *pb) { /* a last window starting in the end pads */
        (*out)--;
    }
}

static inline void bk_pool_out(const bk_pcase *c, int64_t *oh, int64_t *ow)
{
    int64_t pb, pe;
    if (c->op != EM_OP_MAXPOOL && c->op != EM_OP_AVERAGEPOOL) {
        *oh = *ow = 1;
        return;
    }
    bk_pool_axis(c, 0, &pb, &pe, oh);
    bk_pool_axis(c, 1, &pb, &pe, ow);
}

/*
 * Runs kernel k on case c over plain x; returns the plain output. With st != NULL a prepare
 * error is returned there (and NULL); without, prepare must succeed.
 */
static inline float *bk_run_pool(const em_kernel *k, const bk_pcase *c, const float *x,
                                 em_threadpool *pool, ember_status **st)
{
    t_node tn;
    bk_pool_node(&tn, c);
    int64_t oh, ow, cb = (c->c + c->b - 1) / c->b;
    bk_pool_out(c, &oh, &ow);
    int64_t xd[5] = {c->n, cb, c->h, c->w, c->b}, yd[5] = {c->n, cb, oh, ow, c->b};
    float *xb = t_f32(t_numel(xd, 5)), *yb = t_f32(t_numel(yd, 5));
    float *y = t_f32(c->n * c->c * oh * ow);
    bk_block(x, xb, c->n, c->c, c->h * c->w, c->b);
    kt_fill_nan(yb, t_numel(yd, 5));
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, xb);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, yd, yb);
    ember_status *s = kt_run(k, &tn.n, in, 1, out, 1, 0, pool);
    if (st != NULL) {
        *st = s;
    } else {
        t_expect_ok(s, em_op_name(c->op));
    }
    if (s == NULL) {
        bk_unblock(yb, y, c->n, c->c, oh * ow, c->b, k->name);
    }
    test_free(xb);
    test_free(yb);
    if (s != NULL) {
        test_free(y);
        return NULL;
    }
    return y;
}

/* Operand `form` of plain per-channel values v ([M, C], M = N when batch) into t (data in
 * *buf, test_malloc'ed, blocked with zero padding for form 4). */
static inline void bk_operand(const bk_acase *c, int form, int batch, const float *v, em_tensor *t,
                              float **buf)
{
    int64_t m = batch ? c->n : 1, cb = (c->c + c->b - 1) / c->b;
    *buf = NULL;
    if (form == 0) {
        t_absent(t);
        return;
    }
    *buf = t_f32(m * cb * c->b);
    int64_t d[5] = {m, c->c, 1, 1, 0};
    if (form == 4) {
        for (int64_t i = 0; i < m * cb * c->b; i++) {
            int64_t ch = i % (cb * c->b);
            (*buf)[i] = ch < c->c ? v[(i / (cb * c->b)) * c->c + ch] : 0.0f;
        }
        const int64_t bd[5] = {m, cb, 1, 1, c->b};
        t_tensor(t, EMBER_DTYPE_F32, 5, bd, *buf);
        return;
    }
    memcpy(*buf, v, sizeof(float) * (size_t)(m * c->c));
    if (form == 1) {
        t_tensor(t, EMBER_DTYPE_F32, 1, d + 1, *buf);
    } else if (form == 2) {
        t_tensor(t, EMBER_DTYPE_F32, 3, d + 1, *buf);
    } else {
        t_tensor(t, EMBER_DTYPE_F32, 4, d, *buf);
    }
}

/* Sets activation `act` (bk_acase's numbering) with parameters p as attributes `name` and
 * `params` of tn (none for 0). */
static inline void bk_set_act(t_node *tn, const char *name, const char *params, int act,
                              const float *p)
{
    static const char *const names[] = {"",          "Relu",    "LeakyRelu", "Clip", "HardSigmoid",
                                        "HardSwish", "Sigmoid", "Tanh",      "SiLU"};
    static const int n_params[] = {0, 0, 1, 2, 2, 0, 0, 0, 0};
    if (act != 0) {
        t_set_string(tn, name, names[act]);
    }
    if (n_params[act] > 0) {
        t_set_floats(tn, params, p, n_params[act]);
    }
}

static inline void bk_affine_node(t_node *tn, const bk_acase *c)
{
    t_node_init(tn, EM_OP_BLOCKEDAFFINE, "baffine");
    t_set_int(tn, "channels", c->c);
    bk_set_act(tn, "activation", "activation_params", c->act, c->p);
}

/* Runs kernel k on case c: x plain, s and t plain [M, C] (M as the case says). in_place: Y is
 * X's buffer. const_mask as kt_run (bit 1: S, bit 2: T constant in prepare). */
static inline float *bk_run_affine(const em_kernel *k, const bk_acase *c, const float *x,
                                   const float *s, const float *t, em_threadpool *pool,
                                   bool in_place, unsigned const_mask, ember_status **st)
{
    t_node tn;
    bk_affine_node(&tn, c);
    int64_t cb = (c->c + c->b - 1) / c->b, xd[5] = {c->n, cb, c->h, c->w, c->b};
    int64_t nb = t_numel(xd, 5), plane = c->h * c->w;
    float *xb = t_f32(nb), *yb = in_place ? xb : t_f32(nb), *y = t_f32(c->n * c->c * plane);
    float *sb, *tb;
    bk_block(x, xb, c->n, c->c, plane, c->b);
    if (!in_place) {
        kt_fill_nan(yb, nb);
    }
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, xb);
    bk_operand(c, c->s_form, c->s_batch, s, &in[1], &sb);
    bk_operand(c, c->t_form, c->t_batch, t, &in[2], &tb);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, yb);
    ember_status *e = kt_run(k, &tn.n, in, 3, out, 1, const_mask, pool);
    if (st != NULL) {
        *st = e;
    } else {
        t_expect_ok(e, "affine");
    }
    if (e == NULL) {
        bk_unblock(yb, y, c->n, c->c, plane, c->b, k->name);
    }
    test_free(xb);
    if (!in_place) {
        test_free(yb);
    }
    if (sb != NULL) {
        test_free(sb);
    }
    if (tb != NULL) {
        test_free(tb);
    }
    if (e != NULL) {
        test_free(y);
        return NULL;
    }
    return y;
}

/* Runs BlockedLayerNorm kernel k on x plain [n, c, plane] in blocks of b (NaN in X's padding
 * lanes) with Scale sc and B bi [c] (bi NULL: absent); returns plain Y (its padding lanes
 * checked 0). const_mask as kt_run (bit 1: Scale, bit 2: B constant in prepare). */
static inline float *bk_run_ln(const em_kernel *k, const int64_t *ncp, int64_t b, const float *x,
                               const float *sc, const float *bi, float eps, em_threadpool *pool,
                               unsigned const_mask, ember_status **st)
{
    const int64_t n = ncp[0], c = ncp[1], plane = ncp[2];
    t_node tn;
    t_node_init(&tn, EM_OP_BLOCKEDLAYERNORM, "bln");
    t_set_int(&tn, "channels", c);
    t_set_float(&tn, "epsilon", eps);
    int64_t cb = (c + b - 1) / b, xd[5] = {n, cb, plane, 1, b};
    int64_t nb = t_numel(xd, 5);
    float *xb = t_f32(nb), *yb = t_f32(nb), *y = t_f32(n * c * plane);
    bk_block(x, xb, n, c, plane, b);
    kt_fill_nan(yb, nb);
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, xb);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &c, (void *)sc);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, &c, (void *)bi);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, yb);
    ember_status *e = kt_run(k, &tn.n, in, bi != NULL ? 3 : 2, out, 1, const_mask, pool);
    if (st != NULL) {
        *st = e;
    } else {
        t_expect_ok(e, "blockedlayernorm");
    }
    if (e == NULL) {
        bk_unblock(yb, y, n, c, plane, b, k->name);
    }
    test_free(xb);
    test_free(yb);
    if (e != NULL) {
        test_free(y);
        return NULL;
    }
    return y;
}

/* BlockedSE over [n, c, h, w] in blocks of b, squeezed to r; act and gate as bk_acase's act
 * (parameters p, g); bias: B1 and B2 given. */
typedef struct bk_scase {
    int64_t n, c, h, w, b, r;
    int act, gate;
    float p[2], g[2];
    bool bias;
} bk_scase;

/* clang-format off */
static const bk_scase bk_se_cases[] = {
    /* n  c    h    w    b   r    act gate p          g             bias */
    {1, 24,  7,   9,   8,  8,   1,  6,   {0, 0},    {0, 0},       true},  /* efficientnet */
    {2, 20,  5,   3,   16, 6,   8,  6,   {0, 0},    {0, 0},       true},  /* SiLU, partial */
    {1, 40,  4,   4,   8,  10,  1,  4,   {0, 0},    {0.2f, 0.5f}, true},  /* mobilenet_v3 */
    {2, 9,   6,   5,   8,  3,   2,  7,   {0.1f, 0}, {0, 0},       false},
    {1, 96,  28,  28,  8,  4,   8,  6,   {0, 0},    {0, 0},       true},
    {1, 440, 7,   7,   16, 110, 1,  6,   {0, 0},    {0, 0},       true},  /* regnet_y */
    {1, 17,  1,   1,   8,  1,   0,  3,   {0, 0},    {-0.5f, 0.7f}, true},
    {1, 64,  70,  66,  8,  16,  1,  6,   {0, 0},    {0, 0},       true},  /* big: the pool */
};
/* clang-format on */
static const size_t bk_n_se_cases = sizeof bk_se_cases / sizeof bk_se_cases[0];

static inline void bk_se_node(t_node *tn, const bk_scase *c)
{
    t_node_init(tn, EM_OP_BLOCKEDSE, "bse");
    t_set_int(tn, "channels", c->c);
    bk_set_act(tn, "activation", "activation_params", c->act, c->p);
    bk_set_act(tn, "gate", "gate_params", c->gate, c->g);
}

/* Runs kernel k on case c: x plain; w1 [r, c], w2 [c, r], b1 [r], b2 [c]. const_mask as
 * kt_run (the weights are bits 1 to 4). */
static inline float *bk_run_se(const em_kernel *k, const bk_scase *c, const float *x,
                               const float *w1, const float *w2, const float *b1, const float *b2,
                               em_threadpool *pool, unsigned const_mask)
{
    t_node tn;
    bk_se_node(&tn, c);
    int64_t cb = (c->c + c->b - 1) / c->b, xd[5] = {c->n, cb, c->h, c->w, c->b};
    int64_t nb = t_numel(xd, 5), plane = c->h * c->w;
    const int64_t w1d[4] = {c->r, c->c, 1, 1}, w2d[4] = {c->c, c->r, 1, 1};
    float *xb = t_f32(nb), *yb = t_f32(nb), *y = t_f32(c->n * c->c * plane);
    bk_block(x, xb, c->n, c->c, plane, c->b);
    kt_fill_nan(yb, nb);
    em_tensor in[5], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, xb);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, w1d, (float *)w1);
    t_tensor(&in[2], EMBER_DTYPE_F32, 4, w2d, (float *)w2);
    t_tensor(&in[3], EMBER_DTYPE_F32, 1, &c->r, (float *)b1);
    t_tensor(&in[4], EMBER_DTYPE_F32, 1, &c->c, (float *)b2);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, yb);
    t_expect_ok(kt_run(k, &tn.n, in, c->bias ? 5 : 3, out, 1, const_mask, pool), "bse");
    bk_unblock(yb, y, c->n, c->c, plane, c->b, k->name);
    test_free(xb);
    test_free(yb);
    return y;
}

#endif /* EMBER_TESTS_KERNELS_TEST_BLOCKED_UTIL_H */
