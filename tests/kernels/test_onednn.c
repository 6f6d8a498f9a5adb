/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The oneDNN Conv adapter against the reference Conv: 1x1 and 3x3 kernels, strides,
 * dilations, asymmetric pads, auto_pad (SAME_UPPER, SAME_LOWER, VALID), groups and depthwise,
 * with and without bias, batch > 1, weights constant (reordered once in prepare) and as a
 * runtime input; a run with a 2-thread pool must match the serial one; 1-D convolution is
 * declined. Skips when this build has no oneDNN. Tolerance: rtol 1e-4, atol 1e-5 grown
 * linearly with the reduction length C/group * kh * kw (inputs in [-1, 1]).
 */
#include "test_x86_harness.h"

typedef struct conv_case {
    const char *name;
    int64_t n, c, h, w, m, kh, kw;
    int64_t group;
    int64_t stride[2], dil[2], pads[4];
    const char *auto_pad; /* NULL: attribute absent */
    bool bias;
} conv_case;

/* clang-format off */
static const conv_case cases[] = {
    /* name            n  c  h   w   m   kh kw g  stride  dil     pads          auto_pad     bias */
    {"1x1",            1, 8, 7,  9,  16, 1, 1, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, NULL,        true},
    {"3x3_pad1",       2, 3, 17, 15, 8,  3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL,        true},
    {"3x3_nobias",     1, 5, 12, 12, 7,  3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL,        false},
    {"stride2",        1, 4, 19, 16, 6,  3, 3, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL,        true},
    {"stride_2x3",     1, 4, 19, 16, 6,  3, 2, 1, {2, 3}, {1, 1}, {0, 1, 1, 0}, NULL,        true},
    {"dilation2",      1, 3, 16, 16, 5,  3, 3, 1, {1, 1}, {2, 2}, {2, 2, 2, 2}, NULL,        true},
    {"asym_pads",      1, 3, 10, 11, 4,  5, 3, 1, {1, 1}, {1, 1}, {2, 0, 1, 2}, NULL,        true},
    {"same_upper",     1, 3, 10, 11, 4,  4, 4, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}, "SAME_UPPER", true},
    {"same_lower",     1, 3, 10, 11, 4,  4, 4, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}, "SAME_LOWER",false},
    {"valid",          1, 3, 10, 11, 4,  3, 3, 1, {1, 2}, {1, 1}, {0, 0, 0, 0}, "VALID",     true},
    {"group2",         2, 8, 9,  9,  12, 3, 3, 2, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL,        true},
    {"depthwise",      1, 16, 14, 14, 16, 3, 3, 16, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL,      true},
    {"depthwise_s2",   1, 8, 15, 15, 16, 3, 3, 8, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL,        false},
    {"wide_channels",  1, 64, 8, 8,  96, 3, 3, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL,        true},
};
/* clang-format on */

/* Output size of one axis with the case's (or auto_pad's) padding. */
static int64_t out_size(const conv_case *c, int d, int64_t in, int64_t k)
{
    int64_t ext = (k - 1) * c->dil[d] + 1, s = c->stride[d];
    if (c->auto_pad != NULL && strcmp(c->auto_pad, "VALID") == 0) {
        return (in - ext) / s + 1;
    }
    if (c->auto_pad != NULL) {
        return (in + s - 1) / s;
    }
    return (in + c->pads[d] + c->pads[d + 2] - ext) / s + 1;
}

static void run_case(const conv_case *c, uint64_t seed, const em_kernel *k, em_threadpool *pool)
{
    t_node node;
    t_node_init(&node, EM_OP_CONV, c->name);
    int64_t ks[2] = {c->kh, c->kw};
    t_set_ints(&node, "kernel_shape", ks, 2);
    t_set_ints(&node, "strides", c->stride, 2);
    t_set_ints(&node, "dilations", c->dil, 2);
    t_set_int(&node, "group", c->group);
    if (c->auto_pad != NULL) {
        t_set_string(&node, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(&node, "pads", c->pads, 4);
    }
    int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / c->group, c->kh, c->kw};
    int64_t bd[1] = {c->m};
    int64_t yd[4] = {c->n, c->m, out_size(c, 0, c->h, c->kh), out_size(c, 1, c->w, c->kw)};
    int64_t nx = t_numel(xd, 4), nw = t_numel(wd, 4), ny = t_numel(yd, 4);
    float *x = t_random_f32(nx, seed, -1.0f, 1.0f), *w = t_random_f32(nw, seed + 1, -1.0f, 1.0f);
    float *b = t_random_f32(c->m, seed + 2, -1.0f, 1.0f);
    float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bd, b);
    int n_in = c->bias ? 3 : 2;
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, yd, ref);
    t_expect_ok(kt_run(t_kernel(EM_OP_CONV, EMBER_DTYPE_F32), &node.n, in, n_in, out, 1, 0, NULL),
                c->name);
    double atol = 1e-5 * (1.0 + (double)(c->c / c->group * c->kh * c->kw) / 16.0);
    for (unsigned mask = 0; mask <= 2; mask += 2) { /* W runtime, then W constant */
        kt_fill_nan(got, ny);
        out[0].data = got;
        t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, mask, NULL), c->name);
        kt_check(c->name, k->name, seed, got, ref, ny, atol, 1e-4);
        kt_fill_nan(par, ny);
        out[0].data = par;
        t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, mask, pool), c->name);
        kt_check(c->name, k->name, seed, par, ref, ny, atol, 1e-4);
    }
    test_free(x);
    test_free(w);
    test_free(b);
    test_free(ref);
    test_free(got);
    test_free(par);
}

static const em_kernel *onednn_conv_or_skip(void)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_CONV, "__onednn", ks, KT_MAX_KERNELS);
    if (nk == 0) {
        print_message("no oneDNN Conv kernel in this build\n");
        skip();
    }
    if (!kt_isa_ok(ks[0])) {
        skip();
    }
    return ks[0];
}

static void test_conv(void **state)
{
    (void)state;
    const em_kernel *k = onednn_conv_or_skip();
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i], 500 + i, k, pool);
    }
    em_threadpool_destroy(pool);
}

static void test_declines(void **state)
{
    (void)state;
    const em_kernel *k = onednn_conv_or_skip();
    t_node node;
    t_node_init(&node, EM_OP_CONV, "conv1d");
    float buf[64] = {0};
    int64_t xd[3] = {1, 2, 8}, wd[3] = {3, 2, 3}, yd[3] = {1, 3, 6};
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 3, wd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, yd, buf);
    t_expect_error(kt_run(k, &node.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "conv1d",
                   "1-D");
    /* Output size inconsistent with the attributes. */
    int64_t x4[4] = {1, 2, 8, 8}, w4[4] = {3, 2, 3, 3}, y4[4] = {1, 3, 7, 7};
    t_node_init(&node, EM_OP_CONV, "badout");
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, x4, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, w4, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, y4, buf);
    t_expect_error(kt_run(k, &node.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "badout",
                   "bad output");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
