/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every FusedConv f32 kernel in the registry (the reference and oneDNN) against a naive
 * double-precision convolution computed here: Y = act(float(Conv(X, W, B)) + Z), for odd
 * channel counts, strides, dilations, asymmetric pads, groups, depthwise, batch 2, with and
 * without B and Z, every activation (Gelu in its own test, with extreme values), plain and
 * channel-blocked (16 and 8) layouts, X plain with Y blocked (plain_input; an 11x11 stride-4
 * one that oneDNN runs on a plain destination reordered into Y's blocks), W constant and at
 * run time, serial and on a 2- or 3-thread pool (oneDNN slices the output channels per
 * thread, unequally where counts are odd); oneDNN runs the 3x3 stride-1 blocked-16 cases with
 * constant W through Winograd (and ember's AVX2 Winograd, wino_f32_avx2.c, the blocked-8 ones
 * on planes of 14 x 14 or more), and blocked groups narrower than a block with constant W
 * merged (ir/fusedconv.h). A kernel other than the reference may decline a case
 * (UNSUPPORTED), but oneDNN must take the plain ungrouped ones. Also the
 * reorders (ReorderToBlocked / FromBlocked; every kernel on whole blocks) and the errors of
 * the reference kernel.
 */
#include "test_x86_harness.h"

#include "ir/fusedconv.h"

#include <math.h>
#include <string.h>

typedef struct fc_case {
    const char *name;
    int64_t n, c, h, w, m, kh, kw, group;
    int64_t stride[2], dil[2], pads[4];
} fc_case;

/* clang-format off */
static const fc_case cases[] = {
    /* name         n  c   h   w   m   kh kw g   stride  dil     pads */
    {"1x1",         1, 8,  7,  9,  16, 1, 1, 1,  {1, 1}, {1, 1}, {0, 0, 0, 0}},
    {"3x3_odd",     1, 5,  11, 10, 7,  3, 3, 1,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"stride2",     2, 17, 13, 12, 19, 3, 3, 1,  {2, 2}, {1, 1}, {1, 0, 1, 1}},
    {"dilation",    1, 9,  14, 13, 33, 3, 2, 1,  {1, 2}, {2, 1}, {2, 1, 2, 0}},
    {"group2",      1, 8,  9,  9,  12, 3, 3, 2,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"group2_b16",  1, 32, 6,  7,  32, 1, 1, 2,  {1, 1}, {1, 1}, {0, 0, 0, 0}},
    {"depthwise",   1, 24, 10, 9,  24, 3, 3, 24, {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"depthwise_s2",1, 40, 15, 15, 40, 5, 5, 40, {2, 2}, {1, 1}, {2, 2, 2, 2}},
    {"wide",        1, 64, 8,  8,  96, 3, 3, 1,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"first_conv",  1, 3,  23, 21, 32, 7, 7, 1,  {2, 2}, {1, 1}, {3, 3, 3, 3}},
    /* alexnet's: oneDNN has only reference loops for it onto a blocked Y (conv_onednn.c) */
    {"first_11x11", 1, 3,  35, 33, 24, 11, 11, 1, {4, 4}, {1, 1}, {2, 2, 2, 2}},
    {"winograd",    1, 64, 20, 21, 64, 3, 3, 1,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
    /* groups narrower than a block: oneDNN merges 2 (b 8) or 4 (b 16) of them */
    {"group_w4",    1, 32, 9,  10, 32, 3, 3, 8,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"group_w12_s2",1, 48, 11, 9,  48, 3, 3, 4,  {2, 2}, {1, 1}, {1, 0, 1, 1}},
    {"group_4to8",  1, 16, 7,  8,  32, 3, 3, 4,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"group_w4_b2", 2, 64, 6,  5,  64, 1, 1, 16, {1, 1}, {1, 1}, {0, 0, 0, 0}},
    /* AVX2 Winograd (blocks of 8, planes of 14 x 14 or more): edge tiles, odd pads, batch 2 */
    {"wino_odd",    2, 8,  15, 14, 16, 3, 3, 1,  {1, 1}, {1, 1}, {1, 0, 2, 1}},
    {"wino_valid",  1, 8,  18, 16, 8,  3, 3, 1,  {1, 1}, {1, 1}, {0, 0, 0, 0}},
    {"wino_3blk",   1, 16, 14, 14, 24, 3, 3, 1,  {1, 1}, {1, 1}, {1, 1, 1, 1}},
};

static const struct {
    em_conv_act act;
    int np;
    float p[2];
} acts[] = {
    {EM_ACT_NONE, 0, {0, 0}},         {EM_ACT_RELU, 0, {0, 0}},
    {EM_ACT_LEAKYRELU, 1, {0.1f, 0}}, {EM_ACT_CLIP, 2, {-0.5f, 0.7f}},
    {EM_ACT_HARDSIGMOID, 2, {0.3f, 0.4f}}, {EM_ACT_HARDSWISH, 0, {0, 0}},
    {EM_ACT_SIGMOID, 0, {0, 0}},      {EM_ACT_TANH, 0, {0, 0}},
    {EM_ACT_SILU, 0, {0, 0}},
    /* Gelu: not in the sweep (its time under ASan), in test_fusedconv_gelu from here on */
    {EM_ACT_GELU, 0, {0, 0}},         {EM_ACT_GELU_TANH, 0, {0, 0}},
};
/* clang-format on */

static int64_t out_size(const fc_case *c, int d, int64_t in, int64_t k)
{
    int64_t ext = (k - 1) * c->dil[d] + 1;
    return (in + c->pads[d] + c->pads[d + 2] - ext) / c->stride[d] + 1;
}

/* The sweep's activations: acts[0, N_SWEPT); Gelu's two after them. */
#define N_SWEPT 9

static double act_of(em_conv_act a, const float *p, double v)
{
    switch (a) {
    case EM_ACT_RELU: return v > 0 ? v : 0;
    case EM_ACT_LEAKYRELU: return v < 0 ? p[0] * v : v;
    case EM_ACT_CLIP: return v < p[0] ? p[0] : (v > p[1] ? p[1] : v);
    case EM_ACT_HARDSIGMOID: return fmax(0, fmin(1, p[0] * v + p[1]));
    case EM_ACT_HARDSWISH: return v * fmax(0, fmin(1, (v + 3) / 6));
    case EM_ACT_SIGMOID: return 1 / (1 + exp(-v));
    case EM_ACT_TANH: return tanh(v);
    case EM_ACT_SILU: return v / (1 + exp(-v));
    case EM_ACT_GELU: return v * erfc(-v / sqrt(2.0)) / 2;
    case EM_ACT_GELU_TANH:
        return v * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v))) / 2;
    default: return v;
    }
}

/* The naive convolution plus epilogue, NCHW. */
static void naive(const fc_case *c, const float *x, const float *w, const float *b,
                  const float *z, int ai, const int64_t *yd, float *y)
{
    int64_t cg = c->c / c->group, mg = c->m / c->group;
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t m = 0; m < c->m; m++) {
            for (int64_t oh = 0; oh < yd[2]; oh++) {
                for (int64_t ow = 0; ow < yd[3]; ow++) {
                    double acc = b != NULL ? b[m] : 0.0;
                    for (int64_t ic = 0; ic < cg; ic++) {
                        int64_t ch = m / mg * cg + ic;
                        for (int64_t i = 0; i < c->kh; i++) {
                            for (int64_t j = 0; j < c->kw; j++) {
                                int64_t ih = oh * c->stride[0] - c->pads[0] + i * c->dil[0];
                                int64_t iw = ow * c->stride[1] - c->pads[1] + j * c->dil[1];
                                if (ih < 0 || ih >= c->h || iw < 0 || iw >= c->w) {
                                    continue;
                                }
                                acc += (double)x[((n * c->c + ch) * c->h + ih) * c->w + iw] *
                                       w[((m * cg + ic) * c->kh + i) * c->kw + j];
                            }
                        }
                    }
                    int64_t o = ((n * c->m + m) * yd[2] + oh) * yd[3] + ow;
                    double v = (double)(float)acc;
                    if (z != NULL) {
                        v = (double)(float)(v + z[o]);
                    }
                    y[o] = (float)act_of(acts[ai].act, acts[ai].p, v);
                }
            }
        }
    }
}

/* [N, C, plane] -> [N, ceil(C/b), plane, b] with zero lanes (b = 0: a copy), and back. */
static float *to_blk(const float *p, int64_t n, int64_t ch, int64_t plane, int64_t b)
{
    int64_t cb = b > 0 ? (ch + b - 1) / b * b : ch;
    float *q = t_f32(n * cb * plane);
    for (int64_t i = 0; i < n * cb * plane; i++) {
        q[i] = 0.0f;
    }
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = 0; k < ch; k++) {
            for (int64_t s = 0; s < plane; s++) {
                int64_t at = b > 0 ? ((i * (cb / b) + k / b) * plane + s) * b + k % b
                                   : (i * ch + k) * plane + s;
                q[at] = p[(i * ch + k) * plane + s];
            }
        }
    }
    return q;
}

static void from_blk(const float *q, float *p, int64_t n, int64_t ch, int64_t plane, int64_t b)
{
    int64_t cb = b > 0 ? (ch + b - 1) / b : 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = 0; k < ch; k++) {
            for (int64_t s = 0; s < plane; s++) {
                p[(i * ch + k) * plane + s] =
                    b > 0 ? q[((i * cb + k / b) * plane + s) * b + k % b] : q[(i * ch + k) * plane + s];
            }
        }
    }
}

static void layout_dims(const int64_t *d, int64_t b, int64_t *out, int *rank)
{
    out[0] = d[0], out[2] = d[2], out[3] = d[3];
    out[1] = b > 0 ? (d[1] + b - 1) / b : d[1];
    out[4] = b;
    *rank = b > 0 ? 5 : 4;
}

typedef struct fc_run {
    const em_kernel *k;
    em_threadpool *pool, *pool3; /* 2 and 3 threads, taken in turn */
    int taken;    /* cases the kernel accepted */
    float scale;  /* X and B scaled by it (and the tolerance) */
    bool poison;  /* Z: +Inf, -Inf and NaN at every 7th, 11th and 13th value */
} fc_run;

/* b: the channel block of Y and Z (0: plain), and of X unless px (plain_input). */
static void run_case(const fc_case *c, int ai, bool bias, bool zres, int64_t b, bool px,
                     uint64_t seed, fc_run *r)
{
    char name[128];
    snprintf(name, sizeof name, "%s/%s/%s%s/b%lld%s", c->name,
             acts[ai].act ? em_conv_act_name(acts[ai].act) : "none", bias ? "B" : "",
             zres ? "Z" : "", (long long)b, px ? "/plain_x" : "");
    t_node node;
    t_node_init(&node, EM_OP_FUSEDCONV, name);
    int64_t ks[2] = {c->kh, c->kw};
    t_set_ints(&node, "kernel_shape", ks, 2);
    t_set_ints(&node, "strides", c->stride, 2);
    t_set_ints(&node, "dilations", c->dil, 2);
    t_set_ints(&node, "pads", c->pads, 4);
    t_set_int(&node, "group", c->group);
    if (acts[ai].act != EM_ACT_NONE) {
        t_set_string(&node, "activation", em_conv_act_name(acts[ai].act));
    }
    if (acts[ai].np > 0) {
        t_set_floats(&node, "activation_params", acts[ai].p, acts[ai].np);
    }
    if (b > 0) {
        t_set_int(&node, "blocked", b);
    }
    if (px) {
        t_set_int(&node, "plain_input", 1);
    }
    int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / c->group, c->kh, c->kw};
    int64_t yd[4] = {c->n, c->m, out_size(c, 0, c->h, c->kh), out_size(c, 1, c->w, c->kw)};
    int64_t bd[1] = {c->m}, ny = t_numel(yd, 4), xl[5], yl[5];
    int xr, yr;
    layout_dims(xd, px ? 0 : b, xl, &xr);
    layout_dims(yd, b, yl, &yr);
    float *x = t_random_f32(t_numel(xd, 4), seed, -1, 1), *w = t_random_f32(t_numel(wd, 4), seed + 1, -1, 1);
    float *bv = t_random_f32(c->m, seed + 2, -1, 1), *z = t_random_f32(ny, seed + 3, -1, 1);
    for (int64_t i = 0; i < t_numel(xd, 4); i++) {
        x[i] *= r->scale;
    }
    for (int64_t i = 0; i < c->m; i++) {
        bv[i] *= r->scale * 2.5f;
    }
    for (int64_t i = 0; r->poison && i < ny; i++) {
        z[i] = i % 7 == 0 ? INFINITY : i % 11 == 0 ? -INFINITY : i % 13 == 0 ? NAN : z[i];
    }
    float *want = t_f32(ny), *got = t_f32(ny);
    naive(c, x, w, bias ? bv : NULL, zres ? z : NULL, ai, yd, want);
    float *xb = to_blk(x, c->n, c->c, c->h * c->w, px ? 0 : b), *zb = to_blk(z, c->n, c->m, yd[2] * yd[3], b);
    float *yb = t_f32(t_numel(yl, yr));
    em_tensor in[4], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, xr, xl, xb);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bd, bv);
    t_tensor(&in[3], EMBER_DTYPE_F32, yr, yl, zb);
    if (!bias) {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, yr, yl, yb);
    int n_in = zres ? 4 : (bias ? 3 : 2);
    double atol = 1e-5 * r->scale * (1.0 + (double)(c->c / c->group * c->kh * c->kw) / 16.0);
    for (int pass = 0; pass < 2; pass++) { /* W runtime and serial, then W constant on a pool */
        kt_fill_nan(yb, t_numel(yl, yr));
        ember_status *st = kt_run(r->k, &node.n, in, n_in, out, 1, pass ? 2u : 0u,
                                  pass ? (seed % 2 ? r->pool3 : r->pool) : NULL);
        if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED &&
            !strstr(r->k->name, "__ref")) {
            ember_status_destroy(st);
            continue;
        }
        t_expect_ok(st, name);
        r->taken++;
        from_blk(yb, got, c->n, c->m, yd[2] * yd[3], b);
        kt_check(name, r->k->name, seed, got, want, ny, atol, 1e-4);
    }
    test_free(x);
    test_free(w);
    test_free(bv);
    test_free(z);
    test_free(want);
    test_free(got);
    test_free(xb);
    test_free(zb);
    test_free(yb);
}

static void test_fusedconv_sweep(void **state)
{
    (void)state;
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, "", ks, KT_MAX_KERNELS);
    em_threadpool *pool = NULL, *pool3 = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pool3), "pool3");
    assert_true(nk >= 1);
    for (size_t ki = 0; ki < nk; ki++) {
        fc_run r = {ks[ki], pool, pool3, 0, 1.0f, false};
        if (!kt_isa_ok(ks[ki])) {
            continue;
        }
        uint64_t seed = 9000;
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            for (int ai = 0; ai < N_SWEPT; ai++) {
                static const int64_t blocks[3] = {0, 16, 8};
                int64_t b = blocks[(ci + (size_t)ai) % 3];
                /* every activation with and without Z; bias alternates */
                run_case(&cases[ci], ai, ai % 2 == 0, false, b, false, seed++, &r);
                run_case(&cases[ci], ai, ai % 2 == 1, true, b, false, seed++, &r);
            }
            bool wino = strncmp(cases[ci].name, "wino", 4) == 0; /* every epilogue at block 8 */
            for (int ai = 0; wino && ai < N_SWEPT; ai++) {
                run_case(&cases[ci], ai, ai % 2 == 1, ai % 3 != 0, 8, false, seed++, &r);
            }
            for (int64_t b = 0; b <= 16; b += 8) { /* every layout with the residual + ReLU */
                run_case(&cases[ci], 1, true, true, b, false, seed++, &r);
                if (b > 0 && cases[ci].group == 1) { /* X plain, Y and Z blocked */
                    run_case(&cases[ci], 1, true, true, b, true, seed++, &r);
                    run_case(&cases[ci], 3, ci % 2 == 0, false, b, true, seed++, &r);
                }
            }
        }
        print_message("%s: %d runs\n", ks[ki]->name, r.taken);
        assert_true(r.taken > 0);
        if (strstr(ks[ki]->name, "wino") != NULL) { /* it must take its cases at block 8 */
            assert_true(r.taken >= 20);
        }
    }
    em_threadpool_destroy(pool);
    em_threadpool_destroy(pool3);
}

/* Group and block counts that do not divide by the thread count: oneDNN's slices are unequal
 * (conv_onednn.c plan_slices). Blocked layouts only, a few epilogues, on 2 and 3 threads (the
 * sweep above already takes ~6 min under ASan). */
static const fc_case odd_cases[] = {
    {"group13",     1, 104, 8, 7,  104, 3, 3, 13, {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"depthwise20", 1, 20, 9,  10, 20, 3, 3, 20, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"1x1_m40",     1, 24, 5,  6,  40, 1, 1, 1,  {1, 1}, {1, 1}, {0, 0, 0, 0}},
};

static void test_fusedconv_odd_slices(void **state)
{
    (void)state;
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, "", ks, KT_MAX_KERNELS);
    em_threadpool *pool = NULL, *pool3 = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pool3), "pool3");
    for (size_t ki = 0; ki < nk; ki++) {
        fc_run r = {ks[ki], pool, pool3, 0, 1.0f, false};
        if (!kt_isa_ok(ks[ki])) {
            continue;
        }
        uint64_t seed = 9900;
        for (size_t ci = 0; ci < sizeof odd_cases / sizeof odd_cases[0]; ci++) {
            for (int64_t b = 8; b <= 16; b += 8) { /* seeds alternate the 2- and 3-thread pool */
                run_case(&odd_cases[ci], 0, true, false, b, false, seed++, &r);
                run_case(&odd_cases[ci], 1, false, true, b, false, seed++, &r);
                run_case(&odd_cases[ci], 8, true, true, b, false, seed++, &r);
                run_case(&odd_cases[ci], 3, false, false, b, false, seed++, &r);
            }
        }
        if (strstr(ks[ki]->name, "onednn") != NULL) {
            assert_true(r.taken > 0);
        }
    }
    em_threadpool_destroy(pool);
    em_threadpool_destroy(pool3);
}

/* Gelu (erf and tanh) on every case and kernel, plain and blocked (8 and 16), with and without
 * B and Z, the winograd cases also at block 8 (AVX2 Winograd); X scaled by 4 and B by 10 so
 * that conv outputs reach Gelu's tails (|v| up to ~100, where the erf form's negative side is
 * below 1e-30), and every first run with Z holding +Inf, -Inf and NaN: Y there is what the
 * reference gives (Inf, NaN, NaN). No B in the depthwise and Winograd runs: those kernels take
 * only a constant B, and here only W is constant. */
static void test_fusedconv_gelu(void **state)
{
    (void)state;
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, "", ks, KT_MAX_KERNELS);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t ki = 0; ki < nk; ki++) {
        fc_run r = {ks[ki], pool, pool, 0, 4.0f, false}; /* 2 threads throughout */
        if (!kt_isa_ok(ks[ki])) {
            continue;
        }
        uint64_t seed = 19000;
        int wino_runs = 0;
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            bool wino = strncmp(cases[ci].name, "wino", 4) == 0;
            bool dw = cases[ci].group > 1 && cases[ci].group == cases[ci].c;
            for (int ai = N_SWEPT; ai < (int)(sizeof acts / sizeof acts[0]); ai++) {
                static const int64_t blocks[3] = {0, 16, 8};
                int64_t b = wino ? 8 : blocks[(ci + (size_t)ai) % 3];
                int taken = r.taken;
                r.poison = true;
                run_case(&cases[ci], ai, !wino && !dw, true, b, false, seed++, &r);
                r.poison = false;
                run_case(&cases[ci], ai, ci % 3 == 0 && !dw, ci % 2 == 1, wino ? 16 : (b + 8) % 24,
                         false, seed++, &r);
                wino_runs += wino && r.taken > taken;
            }
        }
        print_message("%s: %d Gelu runs\n", ks[ki]->name, r.taken);
        assert_true(r.taken > 0);
        if (strstr(ks[ki]->name, "wino") != NULL) { /* it takes its cases with Gelu */
            assert_true(wino_runs >= 6);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_reorders(void **state)
{
    (void)state;
    const int64_t plain[4] = {2, 21, 3, 5}, blk[5] = {2, 2, 3, 5, 16};
    int64_t n = t_numel(plain, 4), nb = t_numel(blk, 5);
    float *x = t_random_f32(n, 77, -1, 1), *b = t_f32(nb), *back = t_f32(n);
    em_tensor in[1], out[1];
    t_node to, from;
    t_node_init(&to, EM_OP_REORDERTOBLOCKED, "to");
    t_set_int(&to, "block", 16);
    t_node_init(&from, EM_OP_REORDERFROMBLOCKED, "from");
    t_set_int(&from, "channels", 21);
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, plain, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, blk, b);
    t_expect_ok(t_run(t_kernel(EM_OP_REORDERTOBLOCKED, EMBER_DTYPE_F32), &to.n, in, 1, out, 1, NULL),
                "to");
    float *want = to_blk(x, 2, 21, 15, 16);
    for (int64_t i = 0; i < nb; i++) {
        assert_true(b[i] == want[i]); /* lanes past channel 21 are zeros */
    }
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, blk, b);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, plain, back);
    t_expect_ok(t_run(t_kernel(EM_OP_REORDERFROMBLOCKED, EMBER_DTYPE_F32), &from.n, in, 1, out, 1, NULL),
                "from");
    for (int64_t i = 0; i < n; i++) {
        assert_true(back[i] == x[i]);
    }
    /* A blocked shape that does not fit the channels. */
    int64_t bad[5] = {2, 3, 3, 5, 16};
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, bad, b);
    t_expect_error(t_run(t_kernel(EM_OP_REORDERFROMBLOCKED, EMBER_DTYPE_F32), &from.n, in, 1, out,
                         1, NULL),
                   EMBER_ERR_INVALID_MODEL, "from", "blocked");
    test_free(x);
    test_free(b);
    test_free(back);
    test_free(want);
}

/* Every reorder kernel (oneDNN's takes whole blocks) both ways, exactly, blocks 16 and 8. */
static void test_reorders_all_kernels(void **state)
{
    (void)state;
    for (int64_t b = 8; b <= 16; b += 8) {
        const int64_t c = 3 * b, plain[4] = {2, c, 3, 5}, blk[5] = {2, 3, 3, 5, b};
        int64_t n = t_numel(plain, 4);
        float *x = t_random_f32(n, 78, -1, 1), *got = t_f32(n), *back = t_f32(n);
        float *want = to_blk(x, 2, c, 15, b);
        const em_kernel *ks[KT_MAX_KERNELS];
        for (int dir = 0; dir < 2; dir++) {
            em_op op = dir == 0 ? EM_OP_REORDERTOBLOCKED : EM_OP_REORDERFROMBLOCKED;
            size_t nk = kt_find(op, "", ks, KT_MAX_KERNELS);
            assert_true(nk >= 1);
            for (size_t ki = 0; ki < nk; ki++) {
                if (!kt_isa_ok(ks[ki])) {
                    continue;
                }
                t_node node;
                t_node_init(&node, op, ks[ki]->name);
                t_set_int(&node, dir == 0 ? "block" : "channels", dir == 0 ? b : c);
                em_tensor in[1], out[1];
                t_tensor(&in[0], EMBER_DTYPE_F32, dir == 0 ? 4 : 5, dir == 0 ? plain : blk,
                         dir == 0 ? x : want);
                t_tensor(&out[0], EMBER_DTYPE_F32, dir == 0 ? 5 : 4, dir == 0 ? blk : plain,
                         dir == 0 ? got : back);
                kt_fill_nan(dir == 0 ? got : back, n);
                t_expect_ok(kt_run(ks[ki], &node.n, in, 1, out, 1, 0u, NULL), ks[ki]->name);
                for (int64_t i = 0; i < n; i++) {
                    assert_true(dir == 0 ? got[i] == want[i] : back[i] == x[i]);
                }
            }
        }
        test_free(x);
        test_free(got);
        test_free(back);
        test_free(want);
    }
}

/* Every reorder kernel on planes big enough to be split over a pool (2 and 3 threads, and
 * serially), with partial blocks (21 channels; oneDNN may decline those) and whole ones. */
static void test_reorders_pooled(void **state)
{
    (void)state;
    em_threadpool *pools[3] = {NULL, NULL, NULL};
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pools[1]), "pool2");
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pools[2]), "pool3");
    const em_kernel *ks[KT_MAX_KERNELS];
    int ran_partial = 0;
    for (int64_t b = 8; b <= 16; b += 8) {
        for (int64_t c = 21; c <= 3 * b; c += 3 * b - 21) {
            const int64_t plain[4] = {2, c, 40, 31}, blk[5] = {2, (c + b - 1) / b, 40, 31, b};
            int64_t n = t_numel(plain, 4), nb = t_numel(blk, 5);
            float *x = t_random_f32(n, 79 + c, -1, 1), *got = t_f32(nb), *back = t_f32(n);
            float *want = to_blk(x, 2, c, 40 * 31, b);
            for (int dir = 0; dir < 2; dir++) {
                em_op op = dir == 0 ? EM_OP_REORDERTOBLOCKED : EM_OP_REORDERFROMBLOCKED;
                size_t nk = kt_find(op, "", ks, KT_MAX_KERNELS);
                for (size_t ki = 0; ki < nk; ki++) {
                    for (int pi = 0; pi < 3 && kt_isa_ok(ks[ki]); pi++) {
                        t_node node;
                        t_node_init(&node, op, ks[ki]->name);
                        t_set_int(&node, dir == 0 ? "block" : "channels", dir == 0 ? b : c);
                        em_tensor in[1], out[1];
                        t_tensor(&in[0], EMBER_DTYPE_F32, dir == 0 ? 4 : 5,
                                 dir == 0 ? plain : blk, dir == 0 ? x : want);
                        t_tensor(&out[0], EMBER_DTYPE_F32, dir == 0 ? 5 : 4,
                                 dir == 0 ? blk : plain, dir == 0 ? got : back);
                        kt_fill_nan(dir == 0 ? got : back, dir == 0 ? nb : n);
                        ember_status *st = kt_run(ks[ki], &node.n, in, 1, out, 1, 0u, pools[pi]);
                        if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED &&
                            c % b != 0 && !strstr(ks[ki]->name, "__ref")) {
                            ember_status_destroy(st);
                            continue;
                        }
                        t_expect_ok(st, ks[ki]->name);
                        ran_partial += c % b != 0;
                        for (int64_t i = 0; i < (dir == 0 ? nb : n); i++) {
                            assert_true(dir == 0 ? got[i] == want[i] : back[i] == x[i]);
                        }
                    }
                }
            }
            test_free(x);
            test_free(got);
            test_free(back);
            test_free(want);
        }
    }
    assert_true(ran_partial >= 12); /* the reference, both ways, b 8 and 16, 3 pools */
    em_threadpool_destroy(pools[1]);
    em_threadpool_destroy(pools[2]);
}

static void test_ref_errors(void **state)
{
    (void)state;
    float buf[512] = {0};
    int64_t xd[4] = {1, 2, 6, 6}, wd[4] = {3, 2, 3, 3}, yd[4] = {1, 3, 4, 4}, zd[4] = {1, 3, 5, 4};
    em_tensor in[4], out[1];
    t_node node;
    t_node_init(&node, EM_OP_FUSEDCONV, "fc");
    t_set_string(&node, "activation", "Mish");
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xd, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, buf);
    t_absent(&in[2]);
    t_tensor(&in[3], EMBER_DTYPE_F32, 4, zd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, yd, buf);
    const em_kernel *k = t_kernel(EM_OP_FUSEDCONV, EMBER_DTYPE_F32);
    t_expect_error(t_run(k, &node.n, in, 2, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "fc",
                   "activation");
    t_node_init(&node, EM_OP_FUSEDCONV, "fz");
    t_set_string(&node, "activation", "Relu");
    t_set_floats(&node, "activation_params", (const float[]){1.0f}, 1);
    t_expect_error(t_run(k, &node.n, in, 2, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "fz",
                   "activation_params");
    t_node_init(&node, EM_OP_FUSEDCONV, "zshape");
    t_expect_error(t_run(k, &node.n, in, 4, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "zshape", "Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_sweep),
        cmocka_unit_test(test_fusedconv_gelu),
        cmocka_unit_test(test_fusedconv_odd_slices),
        cmocka_unit_test(test_reorders),
        cmocka_unit_test(test_reorders_all_kernels),
        cmocka_unit_test(test_reorders_pooled),
        cmocka_unit_test(test_ref_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
