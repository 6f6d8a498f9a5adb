/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON convolutions against the reference kernels: the im2col one (kernels/arm/
 * conv_f32_neon.c: Conv and FusedConv, 2-D NCHW, on the 6x16 SGEMM) and the depthwise one
 * (dwconv_f32_neon.c: every depthwise case, stride 1, 2 and 3, 3x3 and 5x5, dilated, odd and
 * vector-multiple widths; it must decline the others). Cases: 1x1 (read directly, and
 * strided), 3x3, 5x5 dilated with asymmetric pads, the 7x7 stride-2 stem, grouped and depthwise convs,
 * SAME_UPPER, a kernel larger than the input, K over several KC blocks, batch 2, odd sizes,
 * with and without bias, FusedConv with each activation family and with a residual Z, NaN
 * and +-inf in X (propagated as the reference does); tolerance grows with the dot-product
 * length (f32 against the reference's double sums). A 2-thread pool must reproduce the
 * serial result bit for bit. The channel-blocked layout of 4 (the layout pass's block on ARM):
 * every case as a FusedConv with `blocked` = 4 on the im2col kernel against the reference's
 * blocked FusedConv, X and Z blocked with NaN in their padding lanes (ignored), or X plain
 * (`plain_input`); Y's padding lanes must come out 0. Declines: another block, a blocked node
 * with a plain X, f64, 3-D convs, window attributes that do not match the shapes.
 */
#include "test_x86_harness.h"

typedef struct cv_case {
    const char *name;
    int64_t n, c, h, w, m, kh, kw, sh, sw, dh, dw;
    int64_t pads[4];
    int64_t group;
    int bias, z;
    const char *act; /* FusedConv's activation; NULL: a Conv node */
    int n_p;
    float p[2];
    const char *auto_pad; /* NULL: NOTSET */
    int special;          /* put NaN and +-inf into X */
} cv_case;

/* clang-format off */
static const cv_case cases[] = {
    {"1x1_direct",   1, 5, 7, 9, 13,  1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, 0, 0, NULL, 0, {0, 0}, NULL, 0},
    {"1x1_s2_bias",  2, 6, 9, 8, 7,   1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 1, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"3x3_p1",       2, 3, 11, 13, 17, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"3x3_s2_relu",  1, 8, 15, 16, 24, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, 1, 0, "Relu", 0, {0, 0}, NULL, 0},
    {"7x7_s2_stem",  1, 3, 23, 21, 8,  7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, 1, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"5x5_dil_asym", 1, 4, 13, 12, 5,  5, 5, 1, 2, 2, 1, {1, 2, 3, 0}, 1, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"grouped",      2, 8, 9, 10, 6,   3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 2, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"depthwise_clip", 1, 7, 12, 11, 7, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 7, 1, 0, "Clip", 2, {0, 6}, NULL, 0},
    {"residual_relu", 2, 6, 8, 9, 10,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 1, "Relu", 0, {0, 0}, NULL, 0},
    {"residual_none", 1, 9, 5, 7, 11,  1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 1, 0, 1, "", 0, {0, 0}, NULL, 0},
    {"hardswish",    1, 5, 10, 9, 19,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 0, "HardSwish", 0, {0, 0}, NULL, 0},
    {"silu",         1, 4, 9, 9, 21,   3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 0, "SiLU", 0, {0, 0}, NULL, 0},
    {"sigmoid_res",  1, 4, 6, 5, 9,    3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 1, "Sigmoid", 0, {0, 0}, NULL, 0},
    {"leaky",        1, 3, 7, 6, 5,    3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 1, 1, 0, "LeakyRelu", 1, {0.1f, 0}, NULL, 0},
    {"same_upper",   1, 3, 10, 12, 4,  3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, 1, 0, NULL, 0, {0, 0}, "SAME_UPPER", 0},
    {"k_gt_input",   1, 2, 3, 4, 3,    5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, 1, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"k_blocks",     1, 64, 9, 9, 20,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 0, "Relu", 0, {0, 0}, NULL, 0},
    {"nan_inf",      1, 4, 8, 7, 6,    3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, 1, 0, NULL, 0, {0, 0}, NULL, 1},
    /* depthwise: the dw kernel (and the im2col one) */
    {"dw_s1_res",    2, 5, 9, 13, 5,   3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 5, 1, 1, "Relu", 0, {0, 0}, NULL, 0},
    {"dw_conv_nob",  1, 3, 7, 6, 3,    3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 3, 0, 0, NULL, 0, {0, 0}, NULL, 0},
    {"dw_5x5_s2",    1, 6, 17, 19, 6,  5, 5, 2, 2, 1, 1, {2, 2, 2, 2}, 6, 1, 0, "SiLU", 0, {0, 0}, NULL, 0},
    {"dw_s2_even",   1, 4, 16, 32, 4,  3, 3, 2, 2, 1, 1, {0, 0, 1, 1}, 4, 1, 0, "Clip", 2, {0, 6}, NULL, 0},
    {"dw_dil2",      1, 3, 11, 14, 3,  3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 3, 1, 0, NULL, 0, {0, 0}, NULL, 0},
    {"dw_s3_asym",   1, 2, 10, 11, 2,  3, 2, 3, 3, 1, 1, {0, 1, 2, 0}, 2, 1, 0, "HardSwish", 0, {0, 0}, NULL, 0},
    {"dw_nan_inf",   1, 3, 8, 9, 3,    3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 3, 1, 0, NULL, 0, {0, 0}, NULL, 1},
};
/* clang-format on */

static int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                       const char *auto_pad)
{
    if (auto_pad != NULL) {
        return (in + s - 1) / s; /* SAME_* */
    }
    return (in + pb + pe - ((k - 1) * d + 1)) / s + 1;
}

static void node_of(const cv_case *c, t_node *tn)
{
    t_node_init(tn, c->act != NULL ? EM_OP_FUSEDCONV : EM_OP_CONV, c->name);
    const int64_t k[2] = {c->kh, c->kw}, st[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw};
    t_set_ints(tn, "kernel_shape", k, 2);
    t_set_ints(tn, "strides", st, 2);
    t_set_ints(tn, "dilations", dl, 2);
    t_set_int(tn, "group", c->group);
    if (c->auto_pad != NULL) {
        t_set_string(tn, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(tn, "pads", c->pads, 4);
    }
    if (c->act != NULL && c->act[0] != '\0') {
        t_set_string(tn, "activation", c->act);
        if (c->n_p > 0) {
            t_set_floats(tn, "activation_params", c->p, c->n_p);
        }
    }
}

/* The im2col kernel of op for the ISA suffix. */
static const em_kernel *find_im2col(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    char name[32];
    snprintf(name, sizeof name, "_im2col%s", suffix);
    size_t nk = kt_find(op, name, ks, KT_MAX_KERNELS);
    return nk > 0 && kt_isa_ok(ks[0]) ? ks[0] : NULL;
}

static void test_cases(void **state)
{
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0, ran_dw = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const cv_case *c = &cases[ci];
        t_node tn;
        node_of(c, &tn);
        const em_kernel *ks[KT_MAX_KERNELS];
        const size_t nk = kt_find(tn.n.op, *state, ks, KT_MAX_KERNELS);
        const int64_t oh = out_dim(c->h, c->kh, c->sh, c->dh, c->pads[0], c->pads[2], c->auto_pad);
        const int64_t ow = out_dim(c->w, c->kw, c->sw, c->dw, c->pads[1], c->pads[3], c->auto_pad);
        int64_t dx[4] = {c->n, c->c, c->h, c->w}, dw[4] = {c->m, c->c / c->group, c->kh, c->kw};
        int64_t db[1] = {c->m}, dy[4] = {c->n, c->m, oh, ow};
        const int64_t nx = dx[0] * dx[1] * dx[2] * dx[3], nw = dw[0] * dw[1] * dw[2] * dw[3];
        const int64_t ny = dy[0] * dy[1] * dy[2] * dy[3];
        float *x = t_random_f32(nx, 7 * ci + 1, -1.0f, 1.0f);
        float *w = t_random_f32(nw, 7 * ci + 2, -1.0f, 1.0f);
        float *b = t_random_f32(c->m, 7 * ci + 3, -1.0f, 1.0f);
        float *z = t_random_f32(ny, 7 * ci + 4, -2.0f, 2.0f);
        if (c->special) {
            x[3] = NAN;
            x[nx / 2] = INFINITY;
            x[nx - 5] = -INFINITY;
        }
        float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
        em_tensor in[4], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 4, dx, x);
        t_tensor(&in[1], EMBER_DTYPE_F32, 4, dw, w);
        t_tensor(&in[2], EMBER_DTYPE_F32, 1, db, b);
        t_tensor(&in[3], EMBER_DTYPE_F32, 4, dy, z);
        if (!c->bias) {
            t_absent(&in[2]);
        }
        const int n_in = c->z ? 4 : 3;
        t_tensor(&out[0], EMBER_DTYPE_F32, 4, dy, ref);
        t_expect_ok(kt_run(t_kernel(tn.n.op, EMBER_DTYPE_F32), &tn.n, in, n_in, out, 1, 0x6u, NULL),
                    c->name);
        const bool depthwise = c->group == c->c && c->m == c->c;
        for (size_t ki = 0; ki < nk; ki++) {
            const em_kernel *k = ks[ki];
            if (!kt_isa_ok(k)) {
                continue;
            }
            if (strstr(k->name, "_dwblk__") != NULL) {
                continue; /* the blocked layout's depthwise kernel: test_arm_dwconv.c */
            }
            const bool dw_kernel = strstr(k->name, "_dw__") != NULL;
            kt_fill_nan(got, ny);
            out[0].data = got;
            ember_status *st = kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, NULL);
            if (dw_kernel && !depthwise) { /* the depthwise kernel takes depthwise convs only */
                t_expect_error(st, EMBER_ERR_UNSUPPORTED, c->name, "not depthwise");
                continue;
            }
            t_expect_ok(st, c->name);
            const int64_t kdim = c->c / c->group * c->kh * c->kw;
            kt_check(c->name, k->name, ci, got, ref, ny, kt_mm_atol(kdim), KT_MM_RTOL);
            kt_fill_nan(par, ny);
            out[0].data = par;
            t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, pool), c->name);
            kt_check_same(c->name, k->name, "2-thread result", got, par, ny);
            ran++;
            ran_dw += dw_kernel;
        }
        test_free(x);
        test_free(w);
        test_free(b);
        test_free(z);
        test_free(ref);
        test_free(got);
        test_free(par);
    }
    em_threadpool_destroy(pool);
    if (ran == 0) {
        skip();
    }
    /* the depthwise kernel ran every depthwise case (8) */
    assert_true(ran_dw == 8);
}

static void test_declines(void **state)
{
    const em_kernel *k = find_im2col(EM_OP_FUSEDCONV, *state);
    if (k == NULL) {
        skip();
    }
    float buf[512] = {0};
    t_node tn;
    node_of(&cases[2], &tn); /* 3x3, pads 1 */
    tn.n.op = EM_OP_FUSEDCONV;
    int64_t dx[4] = {1, 3, 5, 5}, dw[4] = {4, 3, 3, 3}, dy[4] = {1, 4, 5, 5};
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, dx, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, dw, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, dy, buf);
    t_expect_ok(kt_run(k, &tn.n, in, 2, out, 1, 0x2u, NULL), "accepted");
    /* the output size does not follow from the window */
    int64_t bad[4] = {1, 4, 4, 5};
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, bad, buf);
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0x2u, NULL), EMBER_ERR_UNSUPPORTED,
                   cases[2].name, "window");
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, dy, buf);
    /* f64 */
    in[0].dtype = EMBER_DTYPE_F64;
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0x2u, NULL), EMBER_ERR_UNSUPPORTED,
                   cases[2].name, "f64");
    in[0].dtype = EMBER_DTYPE_F32;
    /* 3-D */
    int64_t dx5[5] = {1, 3, 2, 5, 5}, dw5[5] = {4, 3, 1, 3, 3}, dy5[5] = {1, 4, 2, 5, 5};
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, dx5, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 5, dw5, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, dy5, buf);
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0x2u, NULL), EMBER_ERR_UNSUPPORTED,
                   cases[2].name, "3-D");
    /* channel-blocked: a block of 8, and a block of 4 with X, Y given plain */
    int64_t bx[5] = {1, 1, 5, 5, 8}, by[5] = {1, 1, 5, 5, 8};
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, bx, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, dw, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, by, buf);
    t_set_int(&tn, "blocked", 8);
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0x2u, NULL), EMBER_ERR_UNSUPPORTED,
                   cases[2].name, "block other than 4");
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, dx, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, dy, buf);
    t_set_int(&tn, "blocked", 4);
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0x2u, NULL), EMBER_ERR_UNSUPPORTED,
                   cases[2].name, "2-D");
}

/* Plain [n, c, plane] -> blocked [n, ceil(c/4), plane, 4], padding lanes `pad`. */
static float *to_blocked4(const float *x, int64_t n, int64_t c, int64_t plane, float pad)
{
    const int64_t cb = (c + 3) / 4;
    float *xb = t_f32(n * cb * plane * 4);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t ch = 0; ch < cb * 4; ch++) {
            for (int64_t p = 0; p < plane; p++) {
                xb[((i * cb + ch / 4) * plane + p) * 4 + ch % 4] =
                    ch < c ? x[(i * c + ch) * plane + p] : pad;
            }
        }
    }
    return xb;
}

/* Every case on the blocked layout of 4 (X blocked, or plain with plain_input on odd cases),
 * the im2col kernel against the reference's blocked FusedConv. */
static void test_blocked(void **state)
{
    const em_kernel *k = find_im2col(EM_OP_FUSEDCONV, *state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const cv_case *c = &cases[ci];
        const bool plain_x = ci % 3 == 1;
        t_node tn;
        node_of(c, &tn);
        tn.n.op = EM_OP_FUSEDCONV;
        t_set_int(&tn, "blocked", 4);
        if (plain_x) {
            t_set_int(&tn, "plain_input", 1);
        }
        const int64_t oh = out_dim(c->h, c->kh, c->sh, c->dh, c->pads[0], c->pads[2], c->auto_pad);
        const int64_t ow = out_dim(c->w, c->kw, c->sw, c->dw, c->pads[1], c->pads[3], c->auto_pad);
        const int64_t cb = (c->c + 3) / 4, mb = (c->m + 3) / 4;
        int64_t dxp[4] = {c->n, c->c, c->h, c->w}, dxb[5] = {c->n, cb, c->h, c->w, 4};
        int64_t dw[4] = {c->m, c->c / c->group, c->kh, c->kw}, db[1] = {c->m};
        int64_t dy[5] = {c->n, mb, oh, ow, 4};
        const int64_t nx = c->n * c->c * c->h * c->w, nw = dw[0] * dw[1] * dw[2] * dw[3];
        const int64_t ny = c->n * mb * oh * ow * 4;
        float *x = t_random_f32(nx, 11 * ci + 1, -1.0f, 1.0f);
        float *w = t_random_f32(nw, 11 * ci + 2, -1.0f, 1.0f);
        float *b = t_random_f32(c->m, 11 * ci + 3, -1.0f, 1.0f);
        float *zp = t_random_f32(c->n * c->m * oh * ow, 11 * ci + 4, -2.0f, 2.0f);
        if (c->special) {
            x[3] = NAN;
            x[nx / 2] = INFINITY;
            x[nx - 5] = -INFINITY;
        }
        float *xb = to_blocked4(x, c->n, c->c, c->h * c->w, NAN);
        float *z = to_blocked4(zp, c->n, c->m, oh * ow, NAN);
        float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
        em_tensor in[4], out[1];
        if (plain_x) {
            t_tensor(&in[0], EMBER_DTYPE_F32, 4, dxp, x);
        } else {
            t_tensor(&in[0], EMBER_DTYPE_F32, 5, dxb, xb);
        }
        t_tensor(&in[1], EMBER_DTYPE_F32, 4, dw, w);
        t_tensor(&in[2], EMBER_DTYPE_F32, 1, db, b);
        t_tensor(&in[3], EMBER_DTYPE_F32, 5, dy, z);
        if (!c->bias) {
            t_absent(&in[2]);
        }
        const int n_in = c->z ? 4 : 3;
        t_tensor(&out[0], EMBER_DTYPE_F32, 5, dy, ref);
        t_expect_ok(kt_run(t_kernel(EM_OP_FUSEDCONV, EMBER_DTYPE_F32), &tn.n, in, n_in, out, 1,
                           0x6u, NULL),
                    c->name);
        kt_fill_nan(got, ny);
        out[0].data = got;
        t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, NULL), c->name);
        const int64_t kdim = c->c / c->group * c->kh * c->kw;
        kt_check(c->name, k->name, ci, got, ref, ny, kt_mm_atol(kdim), KT_MM_RTOL);
        for (int64_t i = 0; i < ny; i++) {
            if (i % 4 + i / (oh * ow * 4) % mb * 4 >= c->m && got[i] != 0.0f) {
                fail_msg("case %s: padding lane at %lld is %g, not 0", c->name, (long long)i,
                         (double)got[i]);
            }
        }
        kt_fill_nan(par, ny);
        out[0].data = par;
        t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, pool), c->name);
        kt_check_same(c->name, k->name, "2-thread result", got, par, ny);
        test_free(x);
        test_free(xb);
        test_free(w);
        test_free(b);
        test_free(zp);
        test_free(z);
        test_free(ref);
        test_free(got);
        test_free(par);
    }
    em_threadpool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__neon"),
        KT_TEST(test_declines, "__neon"),
        KT_TEST(test_blocked, "__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
