/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the FusedConv kernel tests (test_fusedconv.c: reorders and errors;
 * test_fusedconv_sweep_a.c / _b.c: the sweep, split in two for its time under ASan;
 * test_fusedconv_gelu.c; test_fusedconv_odd.c: odd slices). Every FusedConv f32 kernel in the
 * registry (the reference and oneDNN) against a naive double-precision convolution computed
 * here: Y = act(float(Conv(X, W, B)) + Z), for odd channel counts, strides, dilations,
 * asymmetric pads, groups, depthwise, batch 2, with and without B and Z, every activation
 * (Gelu in its own test, with extreme values), plain and channel-blocked (16 and 8) layouts, X
 * plain with Y blocked (plain_input; an 11x11 stride-4 one that oneDNN runs on a plain
 * destination reordered into Y's blocks), W constant and at run time, serial and on a 2- or
 * 3-thread pool (oneDNN slices the output channels per thread, unequally where counts are
 * odd); oneDNN runs the 3x3 stride-1 blocked-16 cases with constant W through Winograd (and
 * ember's AVX2 Winograd, wino_f32_avx2.c, the blocked-8 ones on planes of 14 x 14 or more),
 * and blocked groups narrower than a block with constant W merged (ir/fusedconv.h). A kernel
 * other than the reference may decline a case (UNSUPPORTED), but oneDNN must take the plain
 * ungrouped ones.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_FUSEDCONV_UTIL_H
#define EMBER_TESTS_KERNELS_TEST_FUSEDCONV_UTIL_H

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
    /* AVX2 Winograd on grouped convs of whole blocks (test_fusedconv_sweep_c): the groups'
     * widths at or above WINO_MIN_GROUP (96, wino_f32_avx2.c) take it, odd block counts a group (a lone block in the last panel), batch 2, edge
     * tiles; the narrower ones are declined */
    {"wino_g2_c96", 1, 192, 14, 15, 32,  3, 3, 2, {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"wino_g4_c128",1, 512, 15, 14, 32,  3, 3, 4, {1, 1}, {1, 1}, {0, 1, 1, 1}},
    {"wino_g2_w96", 2, 192, 15, 14, 48,  3, 3, 2, {1, 1}, {1, 1}, {1, 0, 2, 1}},
    {"wino_g5_w8",  1, 40,  16, 14, 80,  3, 3, 5, {1, 1}, {1, 1}, {1, 1, 1, 1}},
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

static inline int64_t out_size(const fc_case *c, int d, int64_t in, int64_t k)
{
    int64_t ext = (k - 1) * c->dil[d] + 1;
    return (in + c->pads[d] + c->pads[d + 2] - ext) / c->stride[d] + 1;
}

/* The sweep's activations: acts[0, N_SWEPT); Gelu's two after them. */
#define N_SWEPT 9

static inline double act_of(em_conv_act a, const float *p, double v)
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

/* The naive convolution plus epilogue, NCHW (row and tap offsets hoisted: under ASan at -O0
 * this loop was nearly all of the sweep's time). */
static inline void naive(const fc_case *c, const float *x, const float *w, const float *b,
                         const float *z, int ai, const int64_t *yd, float *y)
{
    const int64_t cg = c->c / c->group, mg = c->m / c->group, kk = c->kh * c->kw;
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t m = 0; m < c->m; m++) {
            const float *xg = x + (n * c->c + m / mg * cg) * c->h * c->w, *wm = w + m * cg * kk;
            float *ym = y + (n * c->m + m) * yd[2] * yd[3];
            const float *zm = z != NULL ? z + (n * c->m + m) * yd[2] * yd[3] : NULL;
            for (int64_t oh = 0; oh < yd[2]; oh++) {
                for (int64_t ow = 0; ow < yd[3]; ow++) {
                    double acc = b != NULL ? b[m] : 0.0;
                    const int64_t h0 = oh * c->stride[0] - c->pads[0];
                    const int64_t w0 = ow * c->stride[1] - c->pads[1];
                    for (int64_t i = 0; i < c->kh; i++) {
                        const int64_t ih = h0 + i * c->dil[0];
                        if (ih < 0 || ih >= c->h) {
                            continue;
                        }
                        for (int64_t j = 0; j < c->kw; j++) {
                            const int64_t iw = w0 + j * c->dil[1];
                            if (iw < 0 || iw >= c->w) {
                                continue;
                            }
                            const float *xt = xg + ih * c->w + iw, *wt = wm + i * c->kw + j;
                            for (int64_t ic = 0; ic < cg; ic++) {
                                acc += (double)xt[ic * c->h * c->w] * wt[ic * kk];
                            }
                        }
                    }
                    int64_t o = oh * yd[3] + ow;
                    double v = (double)(float)acc;
                    if (zm != NULL) {
                        v = (double)(float)(v + zm[o]);
                    }
                    ym[o] = (float)act_of(acts[ai].act, acts[ai].p, v);
                }
            }
        }
    }
}

/* [N, C, plane] -> [N, ceil(C/b), plane, b] with zero lanes (b = 0: a copy), and back. */
static inline float *to_blk(const float *p, int64_t n, int64_t ch, int64_t plane, int64_t b)
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

static inline void from_blk(const float *q, float *p, int64_t n, int64_t ch, int64_t plane, int64_t b)
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

static inline void layout_dims(const int64_t *d, int64_t b, int64_t *out, int *rank)
{
    out[0] = d[0], out[2] = d[2], out[3] = d[3];
    out[1] = b > 0 ? (d[1] + b - 1) / b : d[1];
    out[4] = b;
    *rank = b > 0 ? 5 : 4;
}

typedef struct fc_run {
    const em_kernel *k;
    int taken; /* runs the kernel accepted */
} fc_run;

/* The kernels of this CPU, run on the same inputs case by case (the naive result is computed
 * once per case for all of them). */
typedef struct fc_set {
    fc_run r[KT_MAX_KERNELS];
    size_t n;
    em_threadpool *pool, *pool3; /* 2 and 3 threads, taken in turn */
    float scale;  /* X and B scaled by it (and the tolerance) */
    bool poison;  /* Z: +Inf, -Inf and NaN at every 7th, 11th and 13th value */
} fc_set;

/* three: a 3-thread pool beside the 2-thread one (else pool3 is the 2-thread pool). */
static inline void fc_set_init(fc_set *s, float scale, bool three)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, "", ks, KT_MAX_KERNELS);
    assert_true(nk >= 1);
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < nk; i++) {
        /* the half-weight conv takes only weights held in half (test_x86_convh.c) */
        if (kt_isa_ok(ks[i]) && strstr(ks[i]->name, "_half") == NULL) {
            s->r[s->n++].k = ks[i];
        }
    }
    s->scale = scale;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &s->pool), "pool");
    s->pool3 = s->pool;
    if (three) {
        t_expect_ok(em_threadpool_create(test_allocator(), 3, &s->pool3), "pool3");
    }
}

static inline void fc_set_free(fc_set *s)
{
    if (s->pool3 != s->pool) {
        em_threadpool_destroy(s->pool3);
    }
    em_threadpool_destroy(s->pool);
}

/* Case c's FusedConv node with activation acts[ai], blocked by b (0: plain), plain_input px. */
static inline void fc_node_init(t_node *node, const char *name, const fc_case *c, int ai,
                                int64_t b, bool px)
{
    t_node_init(node, EM_OP_FUSEDCONV, name);
    int64_t ks[2] = {c->kh, c->kw};
    t_set_ints(node, "kernel_shape", ks, 2);
    t_set_ints(node, "strides", c->stride, 2);
    t_set_ints(node, "dilations", c->dil, 2);
    t_set_ints(node, "pads", c->pads, 4);
    t_set_int(node, "group", c->group);
    if (acts[ai].act != EM_ACT_NONE) {
        t_set_string(node, "activation", em_conv_act_name(acts[ai].act));
    }
    if (acts[ai].np > 0) {
        t_set_floats(node, "activation_params", acts[ai].p, acts[ai].np);
    }
    if (b > 0) {
        t_set_int(node, "blocked", b);
    }
    if (px) {
        t_set_int(node, "plain_input", 1);
    }
}

/* b: the channel block of Y and Z (0: plain), and of X unless px (plain_input). */
static inline void run_case(const fc_case *c, int ai, bool bias, bool zres, int64_t b, bool px,
                            uint64_t seed, fc_set *r)
{
    char name[128];
    snprintf(name, sizeof name, "%s/%s/%s%s/b%lld%s", c->name,
             acts[ai].act ? em_conv_act_name(acts[ai].act) : "none", bias ? "B" : "",
             zres ? "Z" : "", (long long)b, px ? "/plain_x" : "");
    t_node node;
    fc_node_init(&node, name, c, ai, b, px);
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
    for (size_t ki = 0; ki < r->n; ki++) {
        for (int pass = 0; pass < 2; pass++) { /* W runtime and serial, then W constant pooled */
            const em_kernel *k = r->r[ki].k;
            kt_fill_nan(yb, t_numel(yl, yr));
            ember_status *st = kt_run(k, &node.n, in, n_in, out, 1, pass ? 2u : 0u,
                                      pass ? (seed % 2 ? r->pool3 : r->pool) : NULL);
            if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED &&
                !strstr(k->name, "__ref")) {
                ember_status_destroy(st);
                continue;
            }
            t_expect_ok(st, name);
            r->r[ki].taken++;
            from_blk(yb, got, c->n, c->m, yd[2] * yd[3], b);
            kt_check(name, k->name, seed, got, want, ny, atol, 1e-4);
        }
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

/* The sweep over cases[lo, hi): every activation but Gelu, with and without B and Z, in every
 * layout. Seeds are per case, so a split of the range keeps each case's data. */
static inline void fc_sweep(size_t lo, size_t hi)
{
    fc_set r;
    fc_set_init(&r, 1.0f, true);
    assert_true(lo < hi && hi <= sizeof cases / sizeof cases[0]);
    bool has_wino = false, has_dw = false; /* the specialised kernels' cases in the range */
    for (size_t ci = lo; ci < hi; ci++) {
        has_wino |= strncmp(cases[ci].name, "wino", 4) == 0;
        has_dw |= cases[ci].group > 1 && cases[ci].group == cases[ci].c;
    }
    for (size_t ci = lo; ci < hi; ci++) {
        uint64_t seed = 9000 + 64 * (uint64_t)ci; /* at most 34 a case */
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
    for (size_t ki = 0; ki < r.n; ki++) {
        const char *name = r.r[ki].k->name;
        print_message("%s: %d runs\n", name, r.r[ki].taken);
        if (strstr(name, "wino") != NULL) { /* it must take its cases at block 8 */
            assert_true(!has_wino || r.r[ki].taken >= 20);
        } else if (strstr(name, "_dw") != NULL) {
            assert_true(!has_dw || r.r[ki].taken > 0);
        } else {
            assert_true(r.r[ki].taken > 0);
        }
    }
    fc_set_free(&r);
}

#endif /* EMBER_TESTS_KERNELS_TEST_FUSEDCONV_UTIL_H */
