/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AVX2 FusedConv with half-packed weights (convh_f32_avx2.c) against the naive
 * double-precision conv of test_fusedconv_util.h on the same half weights: W random in
 * [-1, 1] rounded to f16 / bf16, and with every 7th weight from the format's edges
 * (subnormals, the smallest normal, large values); 1x1, 3x3, 7x7 stride 2 (resnet's
 * stem), strides, dilations, asymmetric pads, batch 2, output rows not a multiple of the
 * 6-pixel tile, an odd count of output blocks (a half-empty weight panel), every activation
 * with and without B and Z, serial and on 2 threads; its pack holds half the f32 weights'
 * bytes; f32 weights (no half note from the planner) and grouped / plain layouts are declined.
 * The Winograd conv (wino_f32_avx2.c) declines half weights on planes under 28 x 28 (its f32
 * U would be 8x their bytes) and takes them on larger ones and f32 weights on both.
 */
#include "test_fusedconv_util.h"

#include "core/lowp.h"

/* clang-format off */
static const fc_case h_cases[] = {
    /* name         n  c   h   w   m   kh kw g  stride  dil     pads */
    {"h_1x1",       1, 16, 7,  9,  32, 1, 1, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}},
    {"h_1x1_s2",    2, 8,  13, 14, 24, 1, 1, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}},
    {"h_3x3",       1, 24, 7,  7,  40, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"h_3x3_s2",    1, 8,  15, 13, 8,  3, 3, 1, {2, 2}, {1, 1}, {1, 0, 1, 1}},
    {"h_dil",       1, 16, 12, 11, 16, 3, 2, 1, {1, 2}, {2, 1}, {2, 1, 2, 0}},
    {"h_stem",      1, 8,  23, 21, 16, 7, 7, 1, {2, 2}, {1, 1}, {3, 3, 3, 3}},
    {"h_wide",      2, 64, 5,  13, 72, 3, 3, 1, {1, 1}, {1, 1}, {0, 1, 2, 1}},
};
/* clang-format on */

/* W's n values rounded to `half`; with specials every 7th from the format's edges:
 * subnormals, the smallest normal, large values (f16's largest finite; for bf16 2^63, as its
 * largest finite, 3.4e38, overflows f32 sums in an order-dependent way; test_x86_gemm has it). */
static void round_half(ember_dtype half, float *w, int64_t n, bool specials)
{
    static const uint16_t f16_ext[] = {0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff};
    static const uint16_t bf16_ext[] = {0x0001, 0x807f, 0x0080, 0x5f00, 0xdf00};
    const uint16_t *ext = half == EMBER_DTYPE_F16 ? f16_ext : bf16_ext;
    uint16_t *h = test_calloc((size_t)n, sizeof *h);
    em_f32_to_half_n(half, w, h, (size_t)n);
    for (int64_t i = 3; specials && i < n; i += 7) {
        h[i] = ext[(i / 7) % 5];
    }
    em_half_to_f32_n(half, h, w, (size_t)n);
    test_free(h);
}

/* Runs case c (activation acts[ai], B / Z as asked) on the half-weight kernel k and checks it
 * against the naive conv; returns the kernel's pack bytes. */
static size_t h_run(const em_kernel *k, const fc_case *c, ember_dtype half, bool specials, int ai,
                    bool bias, bool zres, uint64_t seed, em_threadpool *pool)
{
    char name[128];
    snprintf(name, sizeof name, "%s/%s/%s/%s%s%s", c->name, em_dtype_name(half),
             acts[ai].act ? em_conv_act_name(acts[ai].act) : "none", bias ? "B" : "",
             zres ? "Z" : "", specials ? "/edges" : "");
    t_node node;
    fc_node_init(&node, name, c, ai, 8, false);
    int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c, c->kh, c->kw};
    int64_t yd[4] = {c->n, c->m, out_size(c, 0, c->h, c->kh), out_size(c, 1, c->w, c->kw)};
    int64_t bd[1] = {c->m}, ny = t_numel(yd, 4), nw = t_numel(wd, 4), xl[5], yl[5];
    int xr, yr;
    layout_dims(xd, 8, xl, &xr);
    layout_dims(yd, 8, yl, &yr);
    float *x = t_random_f32(t_numel(xd, 4), seed, -1, 1), *w = t_random_f32(nw, seed + 1, -1, 1);
    float *bv = t_random_f32(c->m, seed + 2, -1, 1), *z = t_random_f32(ny, seed + 3, -1, 1);
    round_half(half, w, nw, specials);
    float wmax = 1.0f;
    for (int64_t i = 0; i < nw; i++) {
        wmax = fabsf(w[i]) > wmax ? fabsf(w[i]) : wmax;
    }
    float *want = t_f32(ny), *got = t_f32(ny);
    naive(c, x, w, bias ? bv : NULL, zres ? z : NULL, ai, yd, want);
    float *xb = to_blk(x, c->n, c->c, c->h * c->w, 8), *zb = to_blk(z, c->n, c->m, yd[2] * yd[3], 8);
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
    em_pack_cache *cache = NULL;
    t_expect_ok(em_pack_cache_new(test_allocator(), &cache), "cache");
    uint64_t bit = (uint64_t)1 << 1;
    em_kpacks kp = {NULL, cache, 0, NULL, half == EMBER_DTYPE_F16 ? bit : 0,
                    half == EMBER_DTYPE_BF16 ? bit : 0, NULL};
    /* the sums' f32 rounding against the double reference, K terms of size up to wmax */
    double atol = 1e-5 * wmax * (1.0 + (double)(c->c * c->kh * c->kw) / 16.0);
    size_t bytes = 0;
    for (int pass = 0; pass < 2; pass++) { /* serial, then on 2 threads */
        kt_fill_nan(yb, t_numel(yl, yr));
        t_expect_ok(kt_run_kp(k, &node.n, in, n_in, out, 1, 6u, pass ? pool : NULL, &kp, &bytes),
                    name);
        from_blk(yb, got, c->n, c->m, yd[2] * yd[3], 8);
        kt_check(name, k->name, seed, got, want, ny, atol, 1e-4);
    }
    em_pack_cache_destroy(cache);
    test_free(x);
    test_free(w);
    test_free(bv);
    test_free(z);
    test_free(want);
    test_free(got);
    test_free(xb);
    test_free(zb);
    test_free(yb);
    return bytes;
}

static const em_kernel *h_kernel(void)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, "_half__avx2", ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    return ks[0];
}

static void test_against_naive(void **state)
{
    (void)state;
    const em_kernel *k = h_kernel();
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    uint64_t seed = 12000;
    for (size_t ci = 0; ci < sizeof h_cases / sizeof h_cases[0]; ci++) {
        const fc_case *c = &h_cases[ci];
        for (int h = 0; h < 2; h++) {
            ember_dtype half = h == 0 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
            size_t bytes = h_run(k, c, half, false, 1, true, true, seed++, pool);
            /* [M/16][C/8][KH][KW][8][16] halves: M padded to 16 */
            size_t want = (size_t)((c->m + 15) / 16 * 16 * c->c * c->kh * c->kw) * 2;
            assert_int_equal(bytes, want);
            h_run(k, c, half, true, (int)(ci % N_SWEPT), ci % 2 == 0, ci % 3 != 0, seed++, pool);
        }
    }
    /* every activation of the sweep, with and without B and Z */
    for (int ai = 0; ai < N_SWEPT; ai++) {
        const fc_case *c = &h_cases[(size_t)ai % (sizeof h_cases / sizeof h_cases[0])];
        h_run(k, c, ai % 2 ? EMBER_DTYPE_BF16 : EMBER_DTYPE_F16, false, ai, ai % 2 == 0,
              ai % 3 == 1, seed++, pool);
    }
    em_threadpool_destroy(pool);
}

/* Declined: W not marked half (fp32 models never reach it), grouped, plain layout. */
static void test_declines(void **state)
{
    (void)state;
    const em_kernel *k = h_kernel();
    const fc_case c = {"decl", 1, 16, 5, 5, 16, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}};
    t_node node;
    fc_node_init(&node, "hd", &c, 0, 8, false);
    int64_t xl[5] = {1, 2, 5, 5, 8}, wd[4] = {16, 16, 3, 3}, wg[4] = {16, 8, 3, 3};
    float *x = t_f32(400), *w = t_f32(16 * 16 * 9), *y = t_f32(400);
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, xl, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, xl, y);
    t_expect_error(kt_run(k, &node.n, in, 2, out, 1, 2u, NULL), EMBER_ERR_UNSUPPORTED, "hd",
                   "f32 W");
    em_kpacks kp = {NULL, NULL, 0, NULL, 2, 0, NULL};
    t_expect_error(kt_run_kp(k, &node.n, in, 2, out, 1, 0u, NULL, &kp, NULL),
                   EMBER_ERR_UNSUPPORTED, "hd", "W at run time");
    t_node gn;
    const fc_case g2 = {"decl_g2", 1, 16, 5, 5, 16, 3, 3, 2, {1, 1}, {1, 1}, {1, 1, 1, 1}};
    fc_node_init(&gn, "hg", &g2, 0, 8, false);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wg, w);
    t_expect_error(kt_run_kp(k, &gn.n, in, 2, out, 1, 2u, NULL, &kp, NULL),
                   EMBER_ERR_UNSUPPORTED, "hg", "grouped");
    t_node pn;
    fc_node_init(&pn, "hp", &c, 0, 0, false);
    int64_t xp[4] = {1, 16, 5, 5};
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xp, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, xp, y);
    t_expect_error(kt_run_kp(k, &pn.n, in, 2, out, 1, 2u, NULL, &kp, NULL),
                   EMBER_ERR_UNSUPPORTED, "hp", "plain layout");
    test_free(x);
    test_free(w);
    test_free(y);
}

/* Winograd and half weights: declined on 14 x 14 (with the reason), taken on 28 x 28, and f32
 * weights taken on both; the outputs it computes match the naive conv. */
static void test_wino_half_plane(void **state)
{
    (void)state;
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDCONV, "_wino__avx2", ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    for (int side = 14; side <= 28; side += 14) {
        const fc_case c = {"wh", 1, 16, side, side, 16, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}};
        t_node node;
        fc_node_init(&node, "wh", &c, 0, 8, false);
        int64_t n = 16 * side * side, xl[5] = {1, 2, side, side, 8}, wd[4] = {16, 16, 3, 3};
        int64_t xd[4] = {1, 16, side, side};
        float *x = t_random_f32(n, 77, -1, 1), *w = t_random_f32(16 * 16 * 9, 78, -1, 1);
        round_half(EMBER_DTYPE_F16, w, 16 * 16 * 9, false);
        float *xb = to_blk(x, 1, 16, side * side, 8), *yb = t_f32(n), *got = t_f32(n);
        float *want = t_f32(n);
        naive(&c, x, w, NULL, NULL, 0, xd, want);
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 5, xl, xb);
        t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
        t_tensor(&out[0], EMBER_DTYPE_F32, 5, xl, yb);
        for (int half = 0; half < 2; half++) {
            em_kpacks kp = {NULL, NULL, 0, NULL, half ? 2u : 0u, 0, NULL};
            ember_status *st = kt_run_kp(ks[0], &node.n, in, 2, out, 1, 2u, NULL, &kp, NULL);
            if (half && side == 14) {
                t_expect_error(st, EMBER_ERR_UNSUPPORTED, "wh", "half weights");
                continue;
            }
            t_expect_ok(st, "wino");
            from_blk(yb, got, 1, 16, side * side, 8);
            kt_check("wh", ks[0]->name, 77, got, want, n, 1e-4, 1e-4);
        }
        test_free(x);
        test_free(w);
        test_free(xb);
        test_free(yb);
        test_free(got);
        test_free(want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_naive),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_wino_half_plane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
