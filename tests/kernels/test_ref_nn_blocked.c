/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference BlockedPool and BlockedAffine (kernels/ref/nn_blocked_ref.c) against naive loops
 * written here on the plain [N, C, H, W] layout, for blocks of 16 and 8 with C a multiple of
 * the block or not: the input's padding lanes hold NaN and the output's must come out 0.
 * BlockedPool: MaxPool / AveragePool with strides, dilations, explicit pads, ceil_mode,
 * auto_pad SAME_UPPER / SAME_LOWER / VALID, count_include_pad, windows wholly in the padding
 * (-FLT_MAX), NaN and -inf inputs; the global pools. BlockedAffine: every activation of
 * FusedConv's epilogue, S and T in each per-channel form (plain [C], [C, 1, 1], [1, C, 1, 1],
 * [N, C, 1, 1], blocked [1 or N, C/b, 1, 1, b]) or absent, in place. BlockedLayerNorm:
 * against LayerNormalization over each pixel's channels written here, C around the blocks,
 * with and without B, large offsets (mean 1000). Errors: bad `channels`, ranks, `pool`, operand
 * shapes, activations, output shapes, a Scale of the wrong length, each naming the node.
 */
#include "test_blocked_util.h"

#include "ir/fusedconv.h"

#include <float.h>

/* ---- BlockedPool ---- */

/* Plain pooling of x [N, C, H, W] into y [N, C, OH, OW] (double). */
static void naive_pool(const bk_pcase *c, const float *x, double *y)
{
    int64_t pt = 0, pbot = 0, pl = 0, pr = 0, oh = 1, ow = 1;
    bool global = c->op == EM_OP_GLOBALMAXPOOL || c->op == EM_OP_GLOBALAVERAGEPOOL;
    bool mx = c->op == EM_OP_MAXPOOL || c->op == EM_OP_GLOBALMAXPOOL;
    if (!global) {
        bk_pool_axis(c, 0, &pt, &pbot, &oh);
        bk_pool_axis(c, 1, &pl, &pr, &ow);
    }
    for (int64_t p = 0; p < c->n * c->c; p++) {
        const float *xp = x + p * c->h * c->w;
        for (int64_t oy = 0; oy < oh; oy++) {
            for (int64_t ox = 0; ox < ow; ox++) {
                double acc = mx ? -INFINITY : 0.0;
                int64_t taps = 0, ty_pad = 0, tx_pad = 0;
                for (int64_t ky = 0; ky < (global ? c->h : c->kh); ky++) {
                    int64_t iy = global ? ky : oy * c->sh - pt + ky * c->dh;
                    ty_pad += iy >= -pt && iy < c->h + pbot;
                }
                for (int64_t kx = 0; kx < (global ? c->w : c->kw); kx++) {
                    int64_t ix = global ? kx : ox * c->sw - pl + kx * c->dw;
                    tx_pad += ix >= -pl && ix < c->w + pr;
                }
                for (int64_t ky = 0; ky < (global ? c->h : c->kh); ky++) {
                    for (int64_t kx = 0; kx < (global ? c->w : c->kw); kx++) {
                        int64_t iy = global ? ky : oy * c->sh - pt + ky * c->dh;
                        int64_t ix = global ? kx : ox * c->sw - pl + kx * c->dw;
                        if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w) {
                            continue;
                        }
                        double v = xp[iy * c->w + ix];
                        taps++;
                        if (!mx) {
                            acc += v;
                        } else if (isnan(v) || (!isnan(acc) && v > acc)) {
                            acc = isnan(acc) ? acc : v;
                        }
                    }
                }
                double r;
                if (mx) {
                    r = taps == 0 ? -FLT_MAX : acc;
                } else {
                    int64_t count = c->cip && !global ? ty_pad * tx_pad : taps;
                    r = taps == 0 || count == 0 ? 0.0 : acc / (double)count;
                }
                y[(p * oh + oy) * ow + ox] = r;
            }
        }
    }
}

static void test_pool_vs_naive(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t ci = 0; ci < sizeof bk_pool_cases / sizeof bk_pool_cases[0]; ci++) {
        const bk_pcase *c = &bk_pool_cases[ci];
        char name[64];
        snprintf(name, sizeof name, "%s#%zu", em_op_name(c->op), ci);
        int64_t oh, ow, nx = c->n * c->c * c->h * c->w;
        bk_pool_out(c, &oh, &ow);
        float *x = t_random_f32(nx, 10 + ci, -3.0f, 3.0f);
        if (c->op == EM_OP_MAXPOOL || c->op == EM_OP_GLOBALMAXPOOL) {
            x[nx / 3] = NAN;
            x[nx / 2] = -INFINITY;
        }
        int64_t ny = c->n * c->c * oh * ow;
        double *want = t_f64(ny);
        naive_pool(c, x, want);
        for (int pass = 0; pass < 2; pass++) { /* serial, then on the pool */
            float *got = bk_run_pool(t_kernel(EM_OP_BLOCKEDPOOL, EMBER_DTYPE_F32), c, x,
                                     pass ? pool : NULL, NULL);
            t_check_f32(name, got, want, ny, 1e-6, 1e-6);
            test_free(got);
        }
        test_free(want);
        test_free(x);
    }
    em_threadpool_destroy(pool);
}

/* ---- BlockedAffine ---- */

static double act(const bk_acase *c, double v)
{
    switch (c->act) {
    case 1:
        return v > 0.0 ? v : 0.0;
    case 2:
        return v < 0.0 ? c->p[0] * v : v;
    case 3:
        return v < c->p[0] ? c->p[0] : v > c->p[1] ? c->p[1] : v;
    case 4: {
        double h = c->p[0] * v + c->p[1];
        return h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h;
    }
    case 5: {
        double h = v / 6.0 + 0.5;
        return v * (h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h);
    }
    case 6:
        return 1.0 / (1.0 + exp(-v));
    case 7:
        return tanh(v);
    case 8:
        return v / (1.0 + exp(-v));
    default:
        return v;
    }
}

/* y = act(x * s + t) on the plain layout; s, t plain [M, C] (M = 1 or N) or NULL. */
static void naive_affine(const bk_acase *c, const float *x, const float *s, const float *t,
                         double *y)
{
    int64_t plane = c->h * c->w;
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t ch = 0; ch < c->c; ch++) {
            double sc = s != NULL ? s[(c->s_batch ? n * c->c : 0) + ch] : 1.0;
            double sh = t != NULL ? t[(c->t_batch ? n * c->c : 0) + ch] : 0.0;
            for (int64_t p = 0; p < plane; p++) {
                int64_t i = (n * c->c + ch) * plane + p;
                y[i] = act(c, (double)x[i] * sc + sh);
            }
        }
    }
}

static void test_affine_vs_naive(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (int ci = 0; ci < (int)bk_n_affine_cases; ci++) {
        const bk_acase *c = &bk_affine_cases[ci];
        char name[64];
        snprintf(name, sizeof name, "affine#%d", ci);
        int64_t nx = c->n * c->c * c->h * c->w;
        float *x = t_random_f32(nx, 100 + (uint64_t)ci, -4.0f, 4.0f);
        float *s = t_random_f32(c->n * c->c, 200 + (uint64_t)ci, -2.0f, 2.0f);
        float *t = t_random_f32(c->n * c->c, 300 + (uint64_t)ci, -1.0f, 1.0f);
        double *want = t_f64(nx);
        naive_affine(c, x, c->s_form ? s : NULL, c->t_form ? t : NULL, want);
        for (int pass = 0; pass < 3; pass++) { /* serial, on the pool, in place */
            float *got = bk_run_affine(t_kernel(EM_OP_BLOCKEDAFFINE, EMBER_DTYPE_F32), c, x, s, t,
                                       pass == 1 ? pool : NULL, pass == 2, 0, NULL);
            t_check_f32(name, got, want, nx, 1e-6, 1e-6);
            test_free(got);
        }
        test_free(want);
        test_free(x);
        test_free(s);
        test_free(t);
    }
    em_threadpool_destroy(pool);
}

/* ---- BlockedLayerNorm ---- */

/* LayerNormalization of each pixel of x [n, c, plane] over its c channels (double). */
static void naive_ln(const int64_t *ncp, const float *x, const float *sc, const float *bi,
                     double eps, double *y)
{
    const int64_t n = ncp[0], c = ncp[1], plane = ncp[2];
    for (int64_t b = 0; b < n; b++) {
        for (int64_t p = 0; p < plane; p++) {
            double m = 0.0, v = 0.0;
            for (int64_t ch = 0; ch < c; ch++) {
                m += x[(b * c + ch) * plane + p];
            }
            m /= (double)c;
            for (int64_t ch = 0; ch < c; ch++) {
                double d = x[(b * c + ch) * plane + p] - m;
                v += d * d;
            }
            double inv = 1.0 / sqrt(v / (double)c + eps);
            for (int64_t ch = 0; ch < c; ch++) {
                int64_t i = (b * c + ch) * plane + p;
                y[i] = (x[i] - m) * inv * sc[ch] + (bi != NULL ? bi[ch] : 0.0);
            }
        }
    }
}

static void test_layernorm_vs_naive(void **state)
{
    (void)state;
    static const int64_t cases[][4] = {/* n, c, plane, b */
                                       {1, 16, 9, 8},  {2, 5, 7, 8},  {1, 19, 6, 16},
                                       {2, 40, 3, 16}, {1, 1, 4, 8},  {1, 96, 13, 8}};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (int ci = 0; ci < (int)(sizeof cases / sizeof cases[0]); ci++) {
        const int64_t *c = cases[ci];
        int64_t nx = c[0] * c[1] * c[2];
        float off = ci % 2 ? 1000.0f : 0.0f; /* a large mean: the variance must not cancel */
        float *x = t_random_f32(nx, 900 + (uint64_t)ci, off - 3.0f, off + 3.0f);
        float *sc = t_random_f32(c[1], 910 + (uint64_t)ci, 0.5f, 1.5f);
        float *bi = t_random_f32(c[1], 920 + (uint64_t)ci, -1.0f, 1.0f);
        double *want = t_f64(nx);
        for (int pass = 0; pass < 3; pass++) { /* with B serially, on the pool; without B */
            char name[64];
            snprintf(name, sizeof name, "layernorm#%d/%d", ci, pass);
            naive_ln(c, x, sc, pass < 2 ? bi : NULL, 1e-5, want);
            float *got = bk_run_ln(t_kernel(EM_OP_BLOCKEDLAYERNORM, EMBER_DTYPE_F32), c, c[3], x,
                                   sc, pass < 2 ? bi : NULL, 1e-5f, pass == 1 ? pool : NULL, 0,
                                   NULL);
            t_check_f32(name, got, want, nx, 1e-5, 1e-5);
            test_free(got);
        }
        test_free(want);
        test_free(x);
        test_free(sc);
        test_free(bi);
    }
    em_threadpool_destroy(pool);
}

/* BlockedSE in double on the plain layout. */
static void naive_se(const bk_scase *c, const float *x, const float *w1, const float *w2,
                     const float *b1, const float *b2, double *y)
{
    em_conv_epilogue ea = {(em_conv_act)c->act, {c->p[0], c->p[1]}};
    em_conv_epilogue eg = {(em_conv_act)c->gate, {c->g[0], c->g[1]}};
    int64_t plane = c->h * c->w;
    double *m = t_f64(c->c), *h = t_f64(c->r);
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t ch = 0; ch < c->c; ch++) {
            double s = 0;
            for (int64_t p = 0; p < plane; p++) {
                s += x[(n * c->c + ch) * plane + p];
            }
            m[ch] = s / (double)plane;
        }
        for (int64_t k = 0; k < c->r; k++) {
            double a = c->bias ? b1[k] : 0.0;
            for (int64_t ch = 0; ch < c->c; ch++) {
                a += (double)w1[k * c->c + ch] * m[ch];
            }
            h[k] = em_conv_act_apply(&ea, a);
        }
        for (int64_t ch = 0; ch < c->c; ch++) {
            double a = c->bias ? b2[ch] : 0.0;
            for (int64_t k = 0; k < c->r; k++) {
                a += (double)w2[ch * c->r + k] * h[k];
            }
            double gate = em_conv_act_apply(&eg, a);
            for (int64_t p = 0; p < plane; p++) {
                int64_t at = (n * c->c + ch) * plane + p;
                y[at] = (double)x[at] * gate;
            }
        }
    }
    test_free(m);
    test_free(h);
}

static void test_se_vs_naive(void **state)
{
    (void)state;
    for (int ci = 0; ci < (int)bk_n_se_cases; ci++) {
        const bk_scase *c = &bk_se_cases[ci];
        char name[64];
        snprintf(name, sizeof name, "se#%d", ci);
        int64_t nx = c->n * c->c * c->h * c->w;
        float *x = t_random_f32(nx, 400 + (uint64_t)ci, -3.0f, 3.0f);
        float *w1 = t_random_f32(c->r * c->c, 410 + (uint64_t)ci, -0.5f, 0.5f);
        float *w2 = t_random_f32(c->r * c->c, 420 + (uint64_t)ci, -0.5f, 0.5f);
        float *b1 = t_random_f32(c->r, 430 + (uint64_t)ci, -1.0f, 1.0f);
        float *b2 = t_random_f32(c->c, 440 + (uint64_t)ci, -1.0f, 1.0f);
        double *want = t_f64(nx);
        naive_se(c, x, w1, w2, b1, b2, want);
        float *got = bk_run_se(t_kernel(EM_OP_BLOCKEDSE, EMBER_DTYPE_F32), c, x, w1, w2, b1, b2,
                               NULL, 0);
        t_check_f32(name, got, want, nx, 1e-6, 1e-6);
        test_free(got);
        test_free(want);
        test_free(x);
        test_free(w1);
        test_free(w2);
        test_free(b1);
        test_free(b2);
    }
}

/* ---- errors ---- */

static ember_status *run_err(const t_node *tn, int rank_x, const int64_t *xd, int rank_y,
                             const int64_t *yd, int n_in, const em_tensor *extra)
{
    static float buf[4096];
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, rank_x, xd, buf);
    for (int i = 1; i < n_in; i++) {
        in[i] = extra[i - 1];
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, rank_y, yd, buf);
    return t_run(t_kernel(tn->n.op, EMBER_DTYPE_F32), &tn->n, in, n_in, out, 1, NULL);
}

static void test_errors(void **state)
{
    (void)state;
    t_node tn;
    const int64_t x[5] = {1, 2, 4, 4, 8}, y[5] = {1, 2, 2, 2, 8}, plain[4] = {1, 16, 4, 4};
    const int64_t ks[2] = {2, 2}, st[2] = {2, 2};
    /* BlockedPool */
    t_node_init(&tn, EM_OP_BLOCKEDPOOL, "bp_channels");
    t_set_string(&tn, "pool", "MaxPool");
    t_set_ints(&tn, "kernel_shape", ks, 2);
    t_set_ints(&tn, "strides", st, 2);
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_channels", "");
    t_set_int(&tn, "channels", 17); /* 3 blocks of 8, X has 2 */
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_channels", "");
    t_node_init(&tn, EM_OP_BLOCKEDPOOL, "bp_rank");
    t_set_string(&tn, "pool", "MaxPool");
    t_set_int(&tn, "channels", 16);
    t_set_ints(&tn, "kernel_shape", ks, 2);
    t_expect_error(run_err(&tn, 4, plain, 4, plain, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_rank",
                   "");
    t_node_init(&tn, EM_OP_BLOCKEDPOOL, "bp_pool");
    t_set_string(&tn, "pool", "LpPool");
    t_set_int(&tn, "channels", 16);
    t_set_ints(&tn, "kernel_shape", ks, 2);
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_pool", "");
    t_node_init(&tn, EM_OP_BLOCKEDPOOL, "bp_out"); /* stride 1: Y should be 3 x 3 */
    t_set_string(&tn, "pool", "AveragePool");
    t_set_int(&tn, "channels", 16);
    t_set_ints(&tn, "kernel_shape", ks, 2);
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_out", "");
    t_node_init(&tn, EM_OP_BLOCKEDPOOL, "bp_ceil");
    t_set_string(&tn, "pool", "MaxPool");
    t_set_int(&tn, "channels", 16);
    t_set_ints(&tn, "kernel_shape", ks, 2);
    t_set_ints(&tn, "strides", st, 2);
    t_set_int(&tn, "ceil_mode", 2);
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_ceil", "");
    t_node_init(&tn, EM_OP_BLOCKEDPOOL, "bp_gap_out");
    t_set_string(&tn, "pool", "GlobalAveragePool");
    t_set_int(&tn, "channels", 16);
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "bp_gap_out", "");
    /* BlockedAffine */
    static float sbuf[64];
    const int64_t s_bad[1] = {15}, s_blk[5] = {1, 2, 1, 1, 16};
    em_tensor ops[2];
    t_tensor(&ops[0], EMBER_DTYPE_F32, 1, s_bad, sbuf);
    t_absent(&ops[1]);
    t_node_init(&tn, EM_OP_BLOCKEDAFFINE, "ba_s");
    t_set_int(&tn, "channels", 16);
    t_expect_error(run_err(&tn, 5, x, 5, x, 3, ops), EMBER_ERR_INVALID_MODEL, "ba_s", "");
    t_tensor(&ops[1], EMBER_DTYPE_F32, 5, s_blk, sbuf); /* blocks of 16, X has 8 */
    t_absent(&ops[0]);
    t_node_init(&tn, EM_OP_BLOCKEDAFFINE, "ba_t");
    t_set_int(&tn, "channels", 16);
    t_expect_error(run_err(&tn, 5, x, 5, x, 3, ops), EMBER_ERR_INVALID_MODEL, "ba_t", "");
    t_node_init(&tn, EM_OP_BLOCKEDAFFINE, "ba_act");
    t_set_int(&tn, "channels", 16);
    t_set_string(&tn, "activation", "Mish");
    t_expect_error(run_err(&tn, 5, x, 5, x, 1, NULL), EMBER_ERR_INVALID_MODEL, "ba_act", "");
    t_node_init(&tn, EM_OP_BLOCKEDAFFINE, "ba_out");
    t_set_int(&tn, "channels", 16);
    t_expect_error(run_err(&tn, 5, x, 5, y, 1, NULL), EMBER_ERR_INVALID_MODEL, "ba_out", "");
    t_node_init(&tn, EM_OP_BLOCKEDAFFINE, "ba_rank");
    t_set_int(&tn, "channels", 16);
    t_expect_error(run_err(&tn, 4, plain, 4, plain, 1, NULL), EMBER_ERR_INVALID_MODEL, "ba_rank",
                   "");
    /* BlockedLayerNorm: Scale of 15 values for 16 channels */
    static float s15[16];
    const int64_t c15 = 15;
    em_tensor sc;
    t_tensor(&sc, EMBER_DTYPE_F32, 1, &c15, s15);
    const int64_t xb[5] = {1, 2, 4, 4, 8};
    t_node_init(&tn, EM_OP_BLOCKEDLAYERNORM, "bln_scale");
    t_set_int(&tn, "channels", 16);
    t_expect_error(run_err(&tn, 5, xb, 5, xb, 2, &sc), EMBER_ERR_INVALID_MODEL, "bln_scale",
                   "Scale");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_vs_naive),
        cmocka_unit_test(test_affine_vs_naive),
        cmocka_unit_test(test_layernorm_vs_naive),
        cmocka_unit_test(test_se_vs_naive),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
