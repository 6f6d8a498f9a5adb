/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 Pad kernel (constant mode, f32: kernels/x86/pad_f32_avx2.c) against the reference:
 * ranks 1 to 5, pads on every axis or on some (the axes input, negative axes), begin and end
 * pads apart, negative pads (crops) and pads wider than the input, rows wholly in the
 * padding, swin_t's all-zero pads on NHWC, a constant_value and an absent one, pads given as
 * a constant (prepare sees them) or only at run time. Each case runs serially and on a
 * 2-thread pool, outputs starting as NaN. Declines: edge / reflect / wrap, f64.
 */
#include "test_x86_harness.h"

typedef struct pad_case {
    const char *name;
    int rank;
    int64_t x[5];
    int n_axes; /* 0: no axes input, pads cover every axis */
    int64_t axes[5];
    int64_t pads[10]; /* begins then ends, per listed axis */
    int has_value;
    float value;
} pad_case;

/* clang-format off */
static const pad_case cases[] = {
    {"swin_zero",   4, {1, 14, 14, 24}, 0, {0}, {0, 0, 0, 0, 0, 0, 0, 0}, 0, 0.0f},
    {"swin_end",    4, {1, 12, 10, 5},  0, {0}, {0, 0, 0, 0, 0, 2, 4, 0}, 0, 0.0f},
    {"nchw",        4, {2, 3, 5, 7},    0, {0}, {0, 0, 1, 2, 0, 0, 3, 1}, 1, 2.5f},
    {"crop",        3, {4, 6, 9},       0, {0}, {-1, 2, -3, 1, -2, 2}, 1, -1.0f},
    {"crop_row",    2, {5, 8},          0, {0}, {0, -3, 0, -5}, 0, 0.0f},
    {"wide",        2, {2, 3},          0, {0}, {4, 5, 3, 6}, 1, 7.0f},
    {"rank1",       1, {11},            0, {0}, {3, 2}, 1, 1.5f},
    {"rank5",       5, {2, 1, 3, 2, 4}, 0, {0}, {1, 0, 2, 0, 1, 0, 1, 1, 0, 2}, 0, 0.0f},
    {"axes",        4, {2, 3, 4, 5},    2, {1, -1}, {1, 2, 0, 3}, 1, 4.0f},
    {"axes_outer",  3, {3, 4, 5},       1, {0}, {2, 1}, 0, 0.0f},
    {"empty_copy",  2, {3, 4},          0, {0}, {0, -4, 0, 2}, 1, 3.0f},
};
/* clang-format on */

static void run_case(const em_kernel *k, const pad_case *c, em_threadpool *pool, unsigned cmask)
{
    t_node tn;
    t_node_init(&tn, EM_OP_PAD, c->name);
    int r = c->rank, na = c->n_axes > 0 ? c->n_axes : r;
    int64_t yd[5], np = 2 * na, nax = na;
    for (int d = 0; d < r; d++) {
        yd[d] = c->x[d];
    }
    for (int i = 0; i < na; i++) {
        int64_t a = c->n_axes > 0 ? c->axes[i] : i;
        a = a < 0 ? a + r : a;
        yd[a] += c->pads[i] + c->pads[na + i];
    }
    int64_t nx = t_numel(c->x, r), ny = t_numel(yd, r);
    float *x = t_random_f32(nx, 70 + (uint64_t)r, -3.0f, 3.0f);
    float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
    float value = c->value;
    int64_t one = 1;
    em_tensor in[4], out[1];
    int n_in = c->n_axes > 0 ? 4 : c->has_value ? 3 : 2;
    t_tensor(&in[0], EMBER_DTYPE_F32, r, c->x, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &np, (void *)c->pads);
    if (c->has_value) {
        t_tensor(&in[2], EMBER_DTYPE_F32, 1, &one, &value);
    } else {
        memset(&in[2], 0, sizeof in[2]); /* absent */
    }
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &nax, (void *)c->axes);
    t_tensor(&out[0], EMBER_DTYPE_F32, r, yd, ref);
    t_expect_ok(kt_run(t_kernel(EM_OP_PAD, EMBER_DTYPE_UNDEFINED), &tn.n, in, n_in, out, 1, cmask,
                       NULL),
                c->name);
    kt_fill_nan(got, ny);
    out[0].data = got;
    t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, cmask, NULL), c->name);
    kt_check(c->name, k->name, 70 + (uint64_t)r, got, ref, ny, 0.0, 0.0);
    kt_fill_nan(par, ny);
    out[0].data = par;
    t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, cmask, pool), c->name);
    kt_check_same(c->name, k->name, "2-thread result", got, par, ny);
    test_free(x);
    test_free(ref);
    test_free(got);
    test_free(par);
}

static void test_pad(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_PAD, (const char *)*state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(ks[0], &cases[i], pool, 0);    /* pads known only at run time */
        run_case(ks[0], &cases[i], pool, 0xe);  /* pads, value and axes constant */
    }
    em_threadpool_destroy(pool);
}

static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_PAD, (const char *)*state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    int64_t xd[2] = {3, 4}, yd[2] = {3, 6}, np = 4, pads[4] = {0, 1, 0, 1};
    double buf[24] = {0};
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_PAD, "pad");
    t_set_string(&tn, "mode", "reflect");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, buf);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &np, pads);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, yd, buf);
    t_expect_error(kt_run(ks[0], &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "pad",
                   "reflect");
    t_node_init(&tn, EM_OP_PAD, "pad");
    t_tensor(&in[0], EMBER_DTYPE_F64, 2, xd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F64, 2, yd, buf);
    t_expect_error(kt_run(ks[0], &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "pad",
                   "f64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_pad, "__avx2"),
        KT_TEST(test_declines, "__avx2"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
