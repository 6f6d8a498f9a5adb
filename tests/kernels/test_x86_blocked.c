/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 BlockedPool, BlockedAffine, BlockedLayerNorm and BlockedSE kernels (AVX2: blocks of
 * 8 and 16; AVX-512: 16) against the reference: the shared cases of test_blocked_util.h plus a
 * sweep of odd channel counts, odd planes, kernels 1..4, strides 1..3, dilations 1..2, explicit
 * pads, ceil_mode, auto_pad and count_include_pad; NaN and -inf inputs for the maxima; every
 * activation and operand form of BlockedAffine, with S and T constant in prepare or not, in
 * place. Each case runs serially and on a 2-thread pool (bitwise equal); padding lanes must
 * come out 0.
 * BlockedLayerNorm: channels 1..70 around the blocks, odd planes (tiles of 8 pixels and their
 * remainders), with and without B, Scale / B constant in prepare or not, offsets up to 1000.
 * BlockedSE against the reference on odd channel and squeezed widths, every activation and gate.
 * Declines: a block the unit does not take (AVX-512: 8), ranks other than 5.
 */
#include "test_blocked_util.h"

/* The sweeps' block for a random bit (test_arm_blocked.c, which includes this file for the
 * NEON units, sweeps 4 and 8 instead). */
#ifndef BK_SWEEP_BLOCK
#define BK_SWEEP_BLOCK(bit) ((bit) ? 16 : 8)
#endif

/* Whether kernel k (name ending in __avx2 / __avx512 / __neon) takes blocks of b. */
static bool takes_block(const em_kernel *k, int64_t b)
{
    if (strstr(k->name, "__neon") != NULL) {
        return b % 4 == 0 && b <= 16;
    }
    return strstr(k->name, "avx512") != NULL ? b == 16 : (b == 8 || b == 16);
}

static const em_kernel *find(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        return NULL;
    }
    return ks[0];
}

static void pool_case(const em_kernel *k, const bk_pcase *c, uint64_t seed, em_threadpool *pool)
{
    char name[160];
    snprintf(
        name, sizeof name,
        "%s_n%lld_c%lld_%lldx%lld_b%lld_k%lldx%lld_s%lldx%lld_d%lldx%lld_p%lld%lld%lld%lld_c%d_%s_"
        "cip%d",
        em_op_name(c->op), (long long)c->n, (long long)c->c, (long long)c->h, (long long)c->w,
        (long long)c->b, (long long)c->kh, (long long)c->kw, (long long)c->sh, (long long)c->sw,
        (long long)c->dh, (long long)c->dw, (long long)c->pads[0], (long long)c->pads[1],
        (long long)c->pads[2], (long long)c->pads[3], c->ceil,
        c->auto_pad != NULL ? c->auto_pad : "", c->cip);
    int64_t nx = c->n * c->c * c->h * c->w, oh, ow;
    bk_pool_out(c, &oh, &ow);
    int64_t ny = c->n * c->c * oh * ow;
    float *x = t_random_f32(nx, seed, -3.0f, 3.0f);
    if ((c->op == EM_OP_MAXPOOL || c->op == EM_OP_GLOBALMAXPOOL) && nx > 10) {
        x[nx / 3] = NAN;
        x[nx / 2] = -INFINITY;
    }
    if (!takes_block(k, c->b)) {
        ember_status *st = NULL;
        assert_null(bk_run_pool(k, c, x, NULL, &st));
        t_expect_error(st, EMBER_ERR_UNSUPPORTED, "bpool", name);
        test_free(x);
        return;
    }
    float *ref = bk_run_pool(t_kernel(EM_OP_BLOCKEDPOOL, EMBER_DTYPE_F32), c, x, NULL, NULL);
    float *got = bk_run_pool(k, c, x, NULL, NULL);
    float *par = bk_run_pool(k, c, x, pool, NULL);
    kt_check(name, k->name, seed, got, ref, ny, 1e-6, 1e-5);
    kt_check_same(name, k->name, "2-thread result", got, par, ny);
    test_free(x);
    test_free(ref);
    test_free(got);
    test_free(par);
}

static void test_pool(void **state)
{
    const em_kernel *k = find(EM_OP_BLOCKEDPOOL, *state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    size_t nf = sizeof bk_pool_cases / sizeof bk_pool_cases[0];
    for (size_t i = 0; i < nf; i++) {
        pool_case(k, &bk_pool_cases[i], 7 + i, pool);
    }
    /* squeezenet's and resnet's stems, densenet's transition, big enough for the pool */
    const bk_pcase big[] = {
        {EM_OP_MAXPOOL, 1, 64, 111, 111, 16, 3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, NULL, 0},
        {EM_OP_MAXPOOL, 1, 64, 112, 112, 8, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 0, NULL, 0},
        {EM_OP_AVERAGEPOOL, 1, 128, 56, 56, 16, 2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, 0, NULL, 0},
        {EM_OP_GLOBALAVERAGEPOOL, 1, 1280, 7, 7, 16, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, 0, NULL, 0},
        {EM_OP_GLOBALAVERAGEPOOL, 1, 96, 112, 112, 8, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        pool_case(k, &big[i], 50 + i, pool);
    }
    for (uint64_t ci = 0; ci < 120; ci++) { /* the sweep: sizes and windows rotate */
        uint64_t q = ci * 2654435761u;
        static const em_op ops[4] = {EM_OP_MAXPOOL, EM_OP_AVERAGEPOOL, EM_OP_GLOBALMAXPOOL,
                                     EM_OP_GLOBALAVERAGEPOOL};
        static const char *const aps[4] = {NULL, "SAME_UPPER", "SAME_LOWER", "VALID"};
        bk_pcase c = {ops[ci % 4 == 3 ? (q >> 20) % 4 : ci % 2],
                      1 + (int64_t)((q >> 2) % 2),
                      1 + (int64_t)(q % 37),
                      1 + (int64_t)(ci % 13),
                      1 + (int64_t)((ci * 7) % 19),
                      BK_SWEEP_BLOCK((q >> 4) % 2),
                      1 + (int64_t)((q >> 5) % 4),
                      1 + (int64_t)((q >> 7) % 4),
                      1 + (int64_t)((q >> 9) % 3),
                      1 + (int64_t)((q >> 11) % 3),
                      1 + (int64_t)((q >> 13) % 2),
                      1 + (int64_t)((q >> 14) % 2),
                      {0, 0, 0, 0},
                      (int)((q >> 15) & 1),
                      aps[(q >> 16) % 8 < 4 ? 0 : (q >> 16) % 4],
                      (int)((q >> 19) & 1)};
        if (c.auto_pad == NULL) {
            c.pads[0] = (int64_t)((q >> 21) % (uint64_t)c.kh);
            c.pads[1] = (int64_t)((q >> 23) % (uint64_t)c.kw);
            c.pads[2] = (int64_t)((q >> 25) % (uint64_t)c.kh);
            c.pads[3] = (int64_t)((q >> 27) % (uint64_t)c.kw);
        }
        int64_t oh, ow;
        bool windowed = c.op == EM_OP_MAXPOOL || c.op == EM_OP_AVERAGEPOOL;
        if (windowed && ((c.kh - 1) * c.dh + 1 > c.h + c.pads[0] + c.pads[2] ||
                         (c.kw - 1) * c.dw + 1 > c.w + c.pads[1] + c.pads[3])) {
            continue;
        }
        bk_pool_out(&c, &oh, &ow);
        if (oh < 1 || ow < 1) {
            continue;
        }
        pool_case(k, &c, 100 + ci, pool);
    }
    em_threadpool_destroy(pool);
}

/* MaxPool bit for bit against the reference on inputs full of ties: values from {+0, -0, 1,
 * -1, 0.5}, so which zero comes out depends on the order taps meet (the reference keeps the first
 * in row-major order), and in half of the runs quiet NaNs of distinct payloads (the first in
 * row-major order is the one returned) and -inf. The separable form (kh, kw >= 3, vertical stride
 * 1, bands of rows) and the direct one, odd sizes, pads, dilations, ceil_mode, SAME, channels that
 * fill their blocks (no NaN in the padding lanes: the NaN-free form on every block) or not. */
static void test_maxpool_bitwise(void **state)
{
    const em_kernel *k = find(EM_OP_BLOCKEDPOOL, *state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    /* clang-format off */
    const bk_pcase cases[] = {
        /* op          n  c   h   w   b   kh kw sh sw dh dw pads        ceil auto_pad     cip */
        {EM_OP_MAXPOOL, 1, 16, 28, 28, 8,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 0, NULL,         0},
        {EM_OP_MAXPOOL, 2, 19, 17, 13, 16, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, NULL,         0},
        {EM_OP_MAXPOOL, 1, 8,  40, 37, 8,  3, 3, 1, 2, 1, 1, {0, 1, 2, 1}, 1, NULL,         0},
        {EM_OP_MAXPOOL, 1, 32, 23, 21, 16, 5, 3, 1, 1, 2, 1, {4, 1, 3, 1}, 0, NULL,         0},
        {EM_OP_MAXPOOL, 1, 5,  35, 35, 8,  3, 4, 1, 3, 1, 2, {0, 0, 0, 0}, 1, "SAME_LOWER", 0},
        {EM_OP_MAXPOOL, 1, 16, 9,  11, 16, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 0, "SAME_UPPER", 0},
        {EM_OP_MAXPOOL, 1, 8,  3,  500,8,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 0, NULL,         0},
        {EM_OP_MAXPOOL, 1, 24, 29, 27, 8,  3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, NULL,         0},
        {EM_OP_MAXPOOL, 2, 13, 15, 16, 16, 2, 2, 1, 1, 1, 1, {0, 1, 1, 0}, 0, NULL,         0},
        {EM_OP_MAXPOOL, 1, 16, 12, 10, 8,  3, 1, 1, 1, 2, 1, {2, 0, 2, 0}, 0, NULL,         0},
        {EM_OP_MAXPOOL, 1, 8,  6,  7,  8,  3, 3, 1, 1, 1, 1, {2, 2, 2, 2}, 1, NULL,         0},
    };
    /* clang-format on */
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const bk_pcase *c = &cases[ci];
        if (!takes_block(k, c->b)) {
            continue;
        }
        int64_t nx = c->n * c->c * c->h * c->w, oh, ow;
        bk_pool_out(c, &oh, &ow);
        int64_t ny = c->n * c->c * oh * ow;
        static const float vals[5] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f};
        for (int nan = 0; nan < 2; nan++) {
            float *x = t_f32(nx);
            for (int64_t i = 0; i < nx; i++) {
                uint64_t q = ((uint64_t)i + 977 * ci) * 2654435761u;
                x[i] = vals[(q >> 7) % 5];
                if (nan && (q >> 3) % 41 == 0) {
                    uint32_t bits = 0x7fc00000u | (uint32_t)(i & 0x3fffff);
                    memcpy(&x[i], &bits, sizeof bits); /* a quiet NaN with payload i */
                } else if (nan && (q >> 3) % 41 == 1) {
                    x[i] = -INFINITY;
                }
            }
            float *ref = bk_run_pool(t_kernel(EM_OP_BLOCKEDPOOL, EMBER_DTYPE_F32), c, x, NULL, NULL);
            float *got = bk_run_pool(k, c, x, NULL, NULL);
            float *par = bk_run_pool(k, c, x, pool, NULL);
            for (int64_t i = 0; i < ny; i++) {
                uint32_t r, g, pg;
                memcpy(&r, &ref[i], 4);
                memcpy(&g, &got[i], 4);
                memcpy(&pg, &par[i], 4);
                if (r != g || r != pg) {
                    fail_msg("%s: MaxPool case %zu (nan %d) output %lld: 0x%08x (2 threads 0x%08x), "
                             "reference 0x%08x",
                             k->name, ci, nan, (long long)i, g, pg, r);
                }
            }
            test_free(x);
            test_free(ref);
            test_free(got);
            test_free(par);
        }
    }
    em_threadpool_destroy(pool);
}

static void affine_case(const em_kernel *k, const bk_acase *c, uint64_t seed, em_threadpool *pool)
{
    char name[96];
    snprintf(name, sizeof name, "affine_n%lld_c%lld_%lldx%lld_b%lld_act%d_S%d%d_T%d%d",
             (long long)c->n, (long long)c->c, (long long)c->h, (long long)c->w, (long long)c->b,
             c->act, c->s_form, c->s_batch, c->t_form, c->t_batch);
    int64_t nx = c->n * c->c * c->h * c->w;
    float *x = t_random_f32(nx, seed, -5.0f, 5.0f);
    float *s = t_random_f32(c->n * c->c, seed + 1, -2.0f, 2.0f);
    float *t = t_random_f32(c->n * c->c, seed + 2, -1.0f, 1.0f);
    x[nx / 2] = NAN;
    if (!takes_block(k, c->b)) {
        ember_status *st = NULL;
        assert_null(bk_run_affine(k, c, x, s, t, NULL, false, 0, &st));
        t_expect_error(st, EMBER_ERR_UNSUPPORTED, "baffine", name);
    } else {
        const em_kernel *rk = t_kernel(EM_OP_BLOCKEDAFFINE, EMBER_DTYPE_F32);
        float *ref = bk_run_affine(rk, c, x, s, t, NULL, false, 0, NULL);
        for (int pass = 0; pass < 3; pass++) { /* runtime S / T; constant; in place, pooled */
            float *got = bk_run_affine(k, c, x, s, t, NULL, pass == 2, pass == 1 ? 6u : 0u, NULL);
            float *par = bk_run_affine(k, c, x, s, t, pool, pass == 2, 0, NULL);
            kt_check(name, k->name, seed, got, ref, nx, 1e-6, 1e-5);
            kt_check_same(name, k->name, "2-thread result", got, par, nx);
            test_free(got);
            test_free(par);
        }
        test_free(ref);
    }
    test_free(x);
    test_free(s);
    test_free(t);
}

static void test_affine(void **state)
{
    const em_kernel *k = find(EM_OP_BLOCKEDAFFINE, *state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < bk_n_affine_cases; i++) {
        affine_case(k, &bk_affine_cases[i], 500 + i, pool);
    }
    for (uint64_t ci = 0; ci < 90; ci++) { /* every activation x operand form, odd sizes */
        uint64_t q = ci * 2654435761u;
        bk_acase c = {1 + (int64_t)(q % 2),
                      1 + (int64_t)((q >> 3) % 40),
                      1 + (int64_t)(ci % 9),
                      1 + (int64_t)((ci * 5) % 11),
                      BK_SWEEP_BLOCK((q >> 9) % 2),
                      (int)(ci % 9),
                      {-0.3f, 0.8f},
                      (int)((q >> 10) % 5),
                      (int)((q >> 13) % 5),
                      0,
                      0};
        c.s_batch = c.s_form >= 3 && ((q >> 16) & 1);
        c.t_batch = c.t_form >= 3 && ((q >> 17) & 1);
        affine_case(k, &c, 700 + ci, pool);
    }
    em_threadpool_destroy(pool);
}

static void test_layernorm(void **state)
{
    const em_kernel *k = find(EM_OP_BLOCKEDLAYERNORM, *state);
    if (k == NULL) {
        skip();
    }
    const em_kernel *rk = t_kernel(EM_OP_BLOCKEDLAYERNORM, EMBER_DTYPE_F32);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (uint64_t ci = 0; ci < 60; ci++) {
        uint64_t q = ci * 2654435761u;
        int64_t c[3] = {1 + (int64_t)(q % 2), 1 + (int64_t)((q >> 3) % 70),
                        1 + (int64_t)((ci * 7) % 37)};
        int64_t b = BK_SWEEP_BLOCK((q >> 9) % 2), nx = c[0] * c[1] * c[2];
        bool with_b = (q >> 11) % 4 != 0;
        char name[96];
        snprintf(name, sizeof name, "layernorm_n%lld_c%lld_p%lld_b%lld_B%d", (long long)c[0],
                 (long long)c[1], (long long)c[2], (long long)b, with_b);
        float off = ci % 3 == 0 ? 1000.0f : 0.0f;
        float *x = t_random_f32(nx, 1100 + ci, off - 4.0f, off + 4.0f);
        float *sc = t_random_f32(c[1], 1200 + ci, -2.0f, 2.0f);
        float *bi = with_b ? t_random_f32(c[1], 1300 + ci, -1.0f, 1.0f) : NULL;
        if (!takes_block(k, b)) {
            ember_status *st = NULL;
            assert_null(bk_run_ln(k, c, b, x, sc, bi, 1e-6f, NULL, 0, &st));
            t_expect_error(st, EMBER_ERR_UNSUPPORTED, "bln", name);
        } else {
            float *ref = bk_run_ln(rk, c, b, x, sc, bi, 1e-6f, NULL, 0, NULL);
            for (unsigned mask = 0; mask <= 6; mask += 6) { /* runtime, then constant Scale, B */
                float *got = bk_run_ln(k, c, b, x, sc, bi, 1e-6f, NULL, mask, NULL);
                float *par = bk_run_ln(k, c, b, x, sc, bi, 1e-6f, pool, mask, NULL);
                kt_check(name, k->name, ci, got, ref, nx, 1e-4, 1e-4);
                kt_check_same(name, k->name, "2-thread result", got, par, nx);
                test_free(got);
                test_free(par);
            }
            test_free(ref);
        }
        test_free(x);
        test_free(sc);
        if (bi != NULL) {
            test_free(bi);
        }
    }
    em_threadpool_destroy(pool);
}

/* BlockedSE against the reference: the shared cases, a sweep of odd C and R, activations and
 * gates, with large inputs in some (saturated gates); weights constant or not, serial and on
 * the pool (bitwise equal). */
static void se_case(const em_kernel *k, const bk_scase *c, uint64_t seed, em_threadpool *pool)
{
    char name[96];
    snprintf(name, sizeof name, "se_n%lld_c%lld_%lldx%lld_b%lld_r%lld_act%d_gate%d",
             (long long)c->n, (long long)c->c, (long long)c->h, (long long)c->w, (long long)c->b,
             (long long)c->r, c->act, c->gate);
    int64_t nx = c->n * c->c * c->h * c->w;
    float big = seed % 3 == 0 ? 300.0f : 3.0f;
    float *x = t_random_f32(nx, seed, -big, big);
    float *w1 = t_random_f32(c->r * c->c, seed + 1, -0.5f, 0.5f);
    float *w2 = t_random_f32(c->r * c->c, seed + 2, -0.5f, 0.5f);
    float *b1 = t_random_f32(c->r, seed + 3, -1.0f, 1.0f);
    float *b2 = t_random_f32(c->c, seed + 4, -1.0f, 1.0f);
    if (takes_block(k, c->b)) {
        float *ref =
            bk_run_se(t_kernel(EM_OP_BLOCKEDSE, EMBER_DTYPE_F32), c, x, w1, w2, b1, b2, NULL, 0);
        for (unsigned mask = 0; mask <= 30; mask += 30) {
            float *got = bk_run_se(k, c, x, w1, w2, b1, b2, NULL, mask);
            float *par = bk_run_se(k, c, x, w1, w2, b1, b2, pool, mask);
            kt_check(name, k->name, seed, got, ref, nx, 1e-5 * big, 1e-4);
            kt_check_same(name, k->name, "2-thread result", got, par, nx);
            test_free(got);
            test_free(par);
        }
        test_free(ref);
    }
    test_free(x);
    test_free(w1);
    test_free(w2);
    test_free(b1);
    test_free(b2);
}

static void test_se(void **state)
{
    const em_kernel *k = find(EM_OP_BLOCKEDSE, *state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < bk_n_se_cases; i++) {
        se_case(k, &bk_se_cases[i], 900 + i, pool);
    }
    for (uint64_t ci = 0; ci < 60; ci++) {
        uint64_t q = ci * 2654435761u;
        bk_scase c = {1 + (int64_t)(q % 2),
                      1 + (int64_t)((q >> 3) % 70),
                      1 + (int64_t)(ci % 9),
                      1 + (int64_t)((ci * 5) % 11),
                      BK_SWEEP_BLOCK((q >> 9) % 2),
                      1 + (int64_t)((q >> 10) % 40),
                      (int)(ci % 9),
                      (int)((q >> 14) % 9),
                      {-0.3f, 0.8f},
                      {0.2f, 0.5f},
                      (q >> 18) % 2 == 0};
        se_case(k, &c, 1000 + ci, pool);
    }
    em_threadpool_destroy(pool);
}

static void test_declines(void **state)
{
    const em_kernel *k = find(EM_OP_BLOCKEDAFFINE, *state);
    if (k == NULL) {
        skip();
    }
    t_node tn;
    t_node_init(&tn, EM_OP_BLOCKEDAFFINE, "plain");
    t_set_int(&tn, "channels", 16);
    const int64_t d[4] = {1, 16, 4, 4};
    float buf[256] = {0};
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, d, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, d, buf);
    t_expect_error(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "plain",
                   "rank 4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_pool, "__avx2"),     KT_TEST(test_pool, "__avx512"),
        KT_TEST(test_maxpool_bitwise, "__avx2"), KT_TEST(test_maxpool_bitwise, "__avx512"),
        KT_TEST(test_affine, "__avx2"),   KT_TEST(test_affine, "__avx512"),
        KT_TEST(test_layernorm, "__avx2"), KT_TEST(test_layernorm, "__avx512"),
        KT_TEST(test_se, "__avx2"),       KT_TEST(test_se, "__avx512"),
        KT_TEST(test_declines, "__avx2"), KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
