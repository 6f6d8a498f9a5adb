/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 depthwise FusedConv kernels (em_fusedconv_f32_dw__avx2 on nChw8c, __avx512 on
 * nChw16c) against a naive double-precision convolution written here over the blocked layout:
 * Y = act(float(Conv(X, W, B)) + Z). Channel counts below, at and across the block (padded
 * lanes: X and Z hold NaN there, Y must come out 0), planes 1x1 up to 9x112, kernels 1x1, 2x2,
 * 3x3, 5x5, 3x5 and 7x7, strides 1, 2 and 3, asymmetric pads, auto_pad, dilation 2, batch 2,
 * with and without B and Z, every activation (the AVX2 kernel must decline all but Sigmoid,
 * Tanh, SiLU and Gelu: oneDNN runs the others faster); each case serially and on a 2-thread
 * pool (bitwise equal), outputs starting as NaN. Then every decline: plain layout, the other
 * block size, plain_input, grouped but not depthwise, channel multiplier 2, W or B computed at
 * run time, f64, an unknown activation, an output size that does not fit the attributes.
 */
#include "test_x86_harness.h"

#include "ir/fusedconv.h"

#include <math.h>

typedef struct dc_case {
    int64_t n, c, h, w, kh, kw, sh, sw, dh, dw;
    int64_t pads[4];
    const char *auto_pad; /* NULL: NOTSET */
} dc_case;

/* clang-format off */
static const dc_case cases[] = {
    /* n  c   h   w    kh kw sh sw dh dw pads          auto_pad */
    {1, 5,  13, 17,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL},  /* one partial block */
    {1, 19, 5,  5,   3, 3, 2, 2, 1, 1, {1, 0, 0, 1}, NULL},  /* asymmetric pads */
    {2, 32, 17, 13,  5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, NULL},  /* batch 2 */
    {1, 24, 1,  1,   3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL},  /* only the centre tap */
    {1, 16, 1,  17,  1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, NULL},
    {1, 40, 17, 17,  3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, NULL},  /* dilation */
    {1, 33, 13, 13,  5, 5, 2, 2, 1, 1, {2, 2, 2, 2}, NULL},
    {1, 48, 17, 5,   3, 5, 2, 1, 1, 1, {0, 2, 1, 1}, NULL},
    {1, 7,  5,  13,  3, 3, 3, 3, 1, 1, {1, 1, 1, 1}, NULL},  /* stride 3: the generic loop */
    {1, 9,  13, 13,  2, 2, 1, 1, 1, 1, {0, 0, 0, 0}, "SAME_UPPER"},
    {1, 20, 13, 17,  5, 5, 1, 1, 1, 1, {0, 0, 0, 0}, "VALID"},
    {1, 17, 14, 21,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL},  /* strips of 7 */
    {1, 16, 9,  112, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL},  /* interior strips */
    {1, 64, 56, 56,  3, 3, 2, 2, 1, 1, {0, 0, 1, 1}, NULL},  /* large enough for the pool */
    {1, 32, 7,  7,   5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, NULL},
    {1, 8,  6,  9,   5, 5, 1, 2, 1, 1, {4, 0, 0, 4}, NULL},  /* pads wider than the input */
    {1, 24, 14, 14,  7, 7, 1, 1, 1, 1, {3, 3, 3, 3}, NULL},  /* ConvNeXt's 7x7: pieces of DW_R7 */
    {2, 13, 9,  23,  7, 7, 1, 1, 1, 1, {3, 3, 2, 1}, NULL},  /* 7x7, strips of 8, odd pads */
    {1, 16, 3,  5,   7, 7, 1, 1, 1, 1, {3, 3, 3, 3}, NULL},  /* 7x7 wider than the input */
};

/* The activations by name, with parameters (the expected values use em_conv_act_apply). */
static const struct {
    const char *name;
    int np;
    float p[2];
} acts[] = {
    {"",          0, {0, 0}},         {"Relu",      0, {0, 0}},
    {"LeakyRelu", 1, {0.2f, 0}},      {"Clip",      2, {-0.5f, 0.7f}},
    {"HardSigmoid", 2, {0.25f, 0.45f}}, {"HardSwish", 0, {0, 0}},
    {"Sigmoid",   0, {0, 0}},         {"Tanh",      0, {0, 0}},
    {"SiLU",      0, {0, 0}},         {"Gelu",      0, {0, 0}},
    {"GeluTanh",  0, {0, 0}},
};
/* clang-format on */

/* Pads of one axis (ONNX Conv): explicit, or from auto_pad. */
static void axis_pads(const dc_case *c, int d, int64_t *pb, int64_t *pe)
{
    int64_t in = d == 0 ? c->h : c->w, k = d == 0 ? c->kh : c->kw;
    int64_t s = d == 0 ? c->sh : c->sw, dl = d == 0 ? c->dh : c->dw;
    *pb = c->pads[d];
    *pe = c->pads[d + 2];
    if (c->auto_pad != NULL && strcmp(c->auto_pad, "VALID") == 0) {
        *pb = *pe = 0;
    } else if (c->auto_pad != NULL) {
        int64_t out = (in + s - 1) / s, total = (out - 1) * s + (k - 1) * dl + 1 - in;
        total = total > 0 ? total : 0;
        *pb = strcmp(c->auto_pad, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
        *pe = total - *pb;
    }
}

static int64_t out_size(const dc_case *c, int d)
{
    int64_t pb, pe, in = d == 0 ? c->h : c->w, k = d == 0 ? c->kh : c->kw;
    int64_t s = d == 0 ? c->sh : c->sw, dl = d == 0 ? c->dh : c->dw;
    axis_pads(c, d, &pb, &pe);
    return (in + pb + pe - (k - 1) * dl - 1) / s + 1;
}

/* The expected Y over the blocked layout [n, ceil(c/b), oh, ow, b]: lanes past c are 0. */
static void naive(const dc_case *c, int64_t b, const float *x, const float *w, const float *bias,
                  const float *z, const em_conv_epilogue *epi, int64_t oh, int64_t ow, float *y)
{
    int64_t cb = (c->c + b - 1) / b, pt, pl, pe;
    axis_pads(c, 0, &pt, &pe);
    axis_pads(c, 1, &pl, &pe);
    for (int64_t i = 0; i < c->n * cb * oh * ow * b; i++) {
        y[i] = 0.0f;
    }
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t ch = 0; ch < c->c; ch++) {
            const float *xp = x + ((n * cb + ch / b) * c->h * c->w) * b + ch % b;
            for (int64_t oy = 0; oy < oh; oy++) {
                for (int64_t ox = 0; ox < ow; ox++) {
                    double acc = bias != NULL ? bias[ch] : 0.0;
                    for (int64_t i = 0; i < c->kh; i++) {
                        for (int64_t j = 0; j < c->kw; j++) {
                            int64_t iy = oy * c->sh - pt + i * c->dh;
                            int64_t ix = ox * c->sw - pl + j * c->dw;
                            if (iy >= 0 && iy < c->h && ix >= 0 && ix < c->w) {
                                acc += (double)xp[(iy * c->w + ix) * b] *
                                       w[(ch * c->kh + i) * c->kw + j];
                            }
                        }
                    }
                    int64_t o = (((n * cb + ch / b) * oh + oy) * ow + ox) * b + ch % b;
                    double v = (double)(float)acc;
                    if (z != NULL) {
                        v = (double)(float)(v + z[o]);
                    }
                    y[o] = (float)em_conv_act_apply(epi, v);
                }
            }
        }
    }
}

/* Random values in the lanes below c, NaN in the padded lanes of the last block. */
static float *blocked_random(int64_t n, int64_t c, int64_t plane, int64_t b, uint64_t seed)
{
    int64_t cb = (c + b - 1) / b, total = n * cb * plane * b;
    float *p = t_random_f32(total, seed, -1.0f, 1.0f);
    for (int64_t i = 0; i < total; i++) {
        int64_t blk = i / (plane * b) % cb;
        if (blk * b + i % b >= c) {
            p[i] = NAN;
        }
    }
    return p;
}

static void set_window(t_node *node, const dc_case *c, int64_t group, int64_t b)
{
    int64_t ks[2] = {c->kh, c->kw}, st[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw};
    t_set_ints(node, "kernel_shape", ks, 2);
    t_set_ints(node, "strides", st, 2);
    t_set_ints(node, "dilations", dl, 2);
    if (c->auto_pad != NULL) {
        t_set_string(node, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(node, "pads", c->pads, 4);
    }
    t_set_int(node, "group", group);
    if (b > 0) {
        t_set_int(node, "blocked", b);
    }
}

/* One decline: prepare must answer UNSUPPORTED naming the node and giving `why`. */
static void expect_decline(const em_kernel *k, const t_node *node, em_tensor *in, int n_in,
                           em_tensor *out, unsigned const_mask, const char *why)
{
    ember_status *st = kt_run(k, &node->n, in, n_in, out, 1, const_mask, NULL);
    if (st == NULL || strstr(ember_status_message(st), why) == NULL) {
        fail_msg("case %s: expected a decline for '%s', got %s", node->n.name, why,
                 st != NULL ? ember_status_message(st) : "success");
    }
    t_expect_error(st, EMBER_ERR_UNSUPPORTED, node->n.name, node->n.name);
}

static void run_case(const em_kernel *k, int64_t b, const dc_case *c, int ai, bool bias, bool zres,
                     uint64_t seed, em_threadpool *pool)
{
    char name[160];
    snprintf(name, sizeof name, "n%lld_c%lld_%lldx%lld_k%lldx%lld_s%lldx%lld_d%lldx%lld_%s%s%s",
             (long long)c->n, (long long)c->c, (long long)c->h, (long long)c->w, (long long)c->kh,
             (long long)c->kw, (long long)c->sh, (long long)c->sw, (long long)c->dh,
             (long long)c->dw, acts[ai].name[0] != '\0' ? acts[ai].name : "none", bias ? "_B" : "",
             zres ? "_Z" : "");
    t_node node;
    t_node_init(&node, EM_OP_FUSEDCONV, name);
    set_window(&node, c, c->c, b);
    if (acts[ai].name[0] != '\0') {
        t_set_string(&node, "activation", acts[ai].name);
    }
    if (acts[ai].np > 0) {
        t_set_floats(&node, "activation_params", acts[ai].p, acts[ai].np);
    }
    em_conv_epilogue epi;
    assert_true(em_conv_epilogue_parse(&node.n, &epi));
    int64_t oh = out_size(c, 0), ow = out_size(c, 1), cb = (c->c + b - 1) / b;
    int64_t xd[5] = {c->n, cb, c->h, c->w, b}, yd[5] = {c->n, cb, oh, ow, b};
    int64_t wd[4] = {c->c, 1, c->kh, c->kw}, bd[1] = {c->c}, ny = t_numel(yd, 5);
    float *x = blocked_random(c->n, c->c, c->h * c->w, b, seed);
    float *z = blocked_random(c->n, c->c, oh * ow, b, seed + 1);
    float *w = t_random_f32(t_numel(wd, 4), seed + 2, -1.0f, 1.0f);
    float *bv = t_random_f32(c->c, seed + 3, -1.0f, 1.0f);
    float *want = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
    naive(c, b, x, w, bias ? bv : NULL, zres ? z : NULL, &epi, oh, ow, want);
    em_tensor in[4], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bd, bv);
    t_tensor(&in[3], EMBER_DTYPE_F32, 5, yd, z);
    if (!bias) {
        t_absent(&in[2]);
    }
    int n_in = zres ? 4 : (bias ? 3 : 2);
    /* the AVX2 kernel leaves the activations without an exp to oneDNN */
    if (b == 8 && epi.act != EM_ACT_SIGMOID && epi.act != EM_ACT_TANH && epi.act != EM_ACT_SILU &&
        epi.act != EM_ACT_GELU && epi.act != EM_ACT_GELU_TANH) {
        t_tensor(&out[0], EMBER_DTYPE_F32, 5, yd, got);
        expect_decline(k, &node, in, n_in, out, 0x6u, "exp-based activation");
        goto done;
    }
    double atol = 1e-5 * (1.0 + (double)(c->kh * c->kw) / 16.0);
    kt_fill_nan(got, ny);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, yd, got);
    t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, 0x6u, NULL), name);
    kt_check(name, k->name, seed, got, want, ny, atol, 1e-4);
    for (int64_t i = 0; i < ny; i++) {
        if (i % b + i / (oh * ow * b) % cb * b >= c->c && got[i] != 0.0f) {
            fail_msg("case %s: padded lane at index %lld is %g, not 0", name, (long long)i,
                     (double)got[i]);
        }
    }
    kt_fill_nan(par, ny);
    out[0].data = par;
    t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, 0x6u, pool), name);
    kt_check_same(name, k->name, "2-thread result", got, par, ny);
done:
    test_free(x);
    test_free(z);
    test_free(w);
    test_free(bv);
    test_free(want);
    test_free(got);
    test_free(par);
}

/* The kernel of the ISA named by `suffix` and its block (the vector width); skip()s when
 * absent or not runnable here. */
static const em_kernel *dw_kernel(const char *suffix, int64_t *b)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        print_message("%s: no runnable kernel here\n", suffix);
        skip();
    }
    *b = strstr(suffix, "512") != NULL ? 16 : strstr(suffix, "neon") != NULL ? 4 : 8;
    return ks[0];
}

static void test_dwconv_cases(void **state)
{
    int64_t b;
    const em_kernel *k = dw_kernel(*state, &b);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    uint64_t seed = 500;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (int ai = 0; ai < (int)(sizeof acts / sizeof acts[0]); ai++) {
            run_case(k, b, &cases[ci], ai, ai % 2 == 0, false, seed, pool);
            run_case(k, b, &cases[ci], ai, ai % 2 == 1, true, seed + 7, pool);
            seed += 11;
        }
    }
    em_threadpool_destroy(pool);
}

/* A node of the decline tests: SiLU, which both kernels take when nothing else is wrong. */
static void decline_node(t_node *node, const char *name, const dc_case *c, int64_t group, int64_t b)
{
    t_node_init(node, EM_OP_FUSEDCONV, name);
    set_window(node, c, group, b);
    t_set_string(node, "activation", "SiLU");
}

static void test_dwconv_declines(void **state)
{
    int64_t b;
    const em_kernel *k = dw_kernel(*state, &b);
    static float buf[4096], ybuf[4096];
    const dc_case c = {1, 2 * b, 6, 6, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL};
    int64_t xd[5] = {1, 2, 6, 6, b}, wd[4] = {2 * b, 1, 3, 3}, bd[1] = {2 * b};
    int64_t plain[4] = {1, 2 * b, 6, 6};
    em_tensor in[3], out[1];
    t_node node;
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, buf);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, ybuf);

    decline_node(&node, "accepted", &c, 2 * b, b);
    t_expect_ok(kt_run(k, &node.n, in, 3, out, 1, 0x6u, NULL), "accepted");

    decline_node(&node, "plain_layout", &c, 2 * b, 0);
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, plain, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, plain, ybuf);
    expect_decline(k, &node, in, 3, out, 0x6u, "blocked by the vector width");

    decline_node(&node, "plain_input", &c, 2 * b, b);
    t_set_int(&node, "plain_input", 1);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, ybuf);
    expect_decline(k, &node, in, 3, out, 0x6u, "blocked by the vector width");

    int64_t other = b == 4 ? 8 : 24 - b, xo[5] = {1, 2 * b / other, 6, 6, other};
    decline_node(&node, "other_block", &c, 2 * b, other);
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xo, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xo, ybuf);
    expect_decline(k, &node, in, 3, out, 0x6u, "blocked by the vector width");

    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, ybuf);
    int64_t w2[4] = {2 * b, 2, 3, 3};
    decline_node(&node, "two_per_group", &c, b, b);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, w2, buf);
    expect_decline(k, &node, in, 2, out, 0x2u, "not depthwise");

    int64_t wm[4] = {4 * b, 1, 3, 3}, ym[5] = {1, 4, 6, 6, b}, bm[1] = {4 * b};
    decline_node(&node, "multiplier_2", &c, 2 * b, b);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wm, buf);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bm, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, ym, ybuf);
    expect_decline(k, &node, in, 3, out, 0x6u, "not depthwise");

    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, buf);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xd, ybuf);
    decline_node(&node, "runtime_w", &c, 2 * b, b);
    expect_decline(k, &node, in, 3, out, 0x4u, "constant");
    decline_node(&node, "runtime_b", &c, 2 * b, b);
    expect_decline(k, &node, in, 3, out, 0x2u, "constant");

    decline_node(&node, "f64", &c, 2 * b, b);
    t_tensor(&in[0], EMBER_DTYPE_F64, 5, xd, buf);
    expect_decline(k, &node, in, 3, out, 0x6u, "only f32");
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xd, buf);

    t_node_init(&node, EM_OP_FUSEDCONV, "mish");
    set_window(&node, &c, 2 * b, b);
    t_set_string(&node, "activation", "Mish");
    expect_decline(k, &node, in, 3, out, 0x6u, "activation");

    int64_t yw[5] = {1, 2, 5, 6, b};
    decline_node(&node, "output_size", &c, 2 * b, b);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, yw, ybuf);
    expect_decline(k, &node, in, 3, out, 0x6u, "window");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_dwconv_cases, "_dw__avx2"),
        KT_TEST(test_dwconv_cases, "_dw__avx512"),
        KT_TEST(test_dwconv_declines, "_dw__avx2"),
        KT_TEST(test_dwconv_declines, "_dw__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
