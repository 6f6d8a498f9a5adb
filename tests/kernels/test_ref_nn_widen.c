/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_widen_ref.c: Conv on f16 and bf16 (Conv-22) through the f32 reference kernel on
 * widened copies. X = 1..9 [1, 1, 3, 3], W = [[1, 2], [3, 4]], B = 0.5: each output is the
 * window's dot product plus the bias, worked out by hand (37.5, 47.5, 67.5, 77.5), all exact in
 * both 16-bit formats; their bit patterns come from Python's struct module ('e', and the high
 * half of 'f' for bfloat16). Serial and threaded runs; a mixed f16 / f32 node is refused.
 */
#include "test_ref_util.h"

typedef struct half_case {
    ember_dtype dt;
    uint16_t x[9], w[4], b, want[4];
} half_case;

static const half_case cases[] = {
    {EMBER_DTYPE_F16,
     {0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700, 0x4800, 0x4880},
     {0x3C00, 0x4000, 0x4200, 0x4400},
     0x3800,
     {0x50B0, 0x51F0, 0x5438, 0x54D8}},
    {EMBER_DTYPE_BF16,
     {0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0, 0x40E0, 0x4100, 0x4110},
     {0x3F80, 0x4000, 0x4040, 0x4080},
     0x3F00,
     {0x4216, 0x423E, 0x4287, 0x429B}},
};

static void test_conv_half(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    const int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, bd[1] = {1}, yd[4] = {1, 1, 2, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const half_case *c = &cases[i];
        for (int threaded = 0; threaded < 2; threaded++) {
            uint16_t y[4] = {0};
            em_tensor in[3], out[1];
            t_tensor(&in[0], c->dt, 4, xd, (void *)c->x);
            t_tensor(&in[1], c->dt, 4, wd, (void *)c->w);
            t_tensor(&in[2], c->dt, 1, bd, (void *)&c->b);
            t_tensor(&out[0], c->dt, 4, yd, y);
            t_node tn;
            t_node_init(&tn, EM_OP_CONV, "conv_half");
            t_expect_ok(t_run(t_kernel(EM_OP_CONV, c->dt), &tn.n, in, 3, out, 1,
                              threaded ? pool : NULL),
                        em_dtype_name(c->dt));
            assert_memory_equal(y, c->want, sizeof y);
        }
    }
    em_threadpool_destroy(pool);
}

/* MatMul [2,3] x [3,2] in bf16 and f16 on small integers (exact in both): A = [[1,2,3],[4,5,6]],
 * B = [[1,0],[0,1],[1,1]] -> [[4,5],[10,11]]. bf16 bits: 1 0x3F80 ... ; f16 bits 0x3C00 ... */
static void test_matmul_half(void **state)
{
    (void)state;
    static const uint16_t a_bf[6] = {0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0};
    static const uint16_t b_bf[6] = {0x3F80, 0x0000, 0x0000, 0x3F80, 0x3F80, 0x3F80};
    static const uint16_t y_bf[4] = {0x4080, 0x40A0, 0x4120, 0x4130}; /* 4 5 10 11 */
    static const uint16_t a_h[6] = {0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600};
    static const uint16_t b_h[6] = {0x3C00, 0x0000, 0x0000, 0x3C00, 0x3C00, 0x3C00};
    static const uint16_t y_h[4] = {0x4400, 0x4500, 0x4900, 0x4980};
    const struct {
        ember_dtype dt;
        const uint16_t *a, *b, *y;
    } mm[2] = {{EMBER_DTYPE_BF16, a_bf, b_bf, y_bf}, {EMBER_DTYPE_F16, a_h, b_h, y_h}};
    for (int i = 0; i < 2; i++) {
        uint16_t y[4] = {0};
        em_tensor in[2], out[1];
        t_tensor(&in[0], mm[i].dt, 2, (int64_t[]){2, 3}, (void *)mm[i].a);
        t_tensor(&in[1], mm[i].dt, 2, (int64_t[]){3, 2}, (void *)mm[i].b);
        t_tensor(&out[0], mm[i].dt, 2, (int64_t[]){2, 2}, y);
        t_node tn;
        t_node_init(&tn, EM_OP_MATMUL, "matmul_half");
        t_expect_ok(t_run(t_kernel(EM_OP_MATMUL, mm[i].dt), &tn.n, in, 2, out, 1, NULL),
                    em_dtype_name(mm[i].dt));
        assert_memory_equal(y, mm[i].y, sizeof y);
    }
}

/* Softmax of f64 (reduce_softmax_ref.c's line kernel): exp(x_i) / sum exp(x) per row, and a
 * row holding +inf gives NaN as in the ONNX reference. */
static void test_softmax_f64(void **state)
{
    (void)state;
    double x[6] = {0, 1, 2, -1, INFINITY, 3}, y[6];
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F64, 2, (int64_t[]){2, 3}, x);
    t_tensor(&out[0], EMBER_DTYPE_F64, 2, (int64_t[]){2, 3}, y);
    t_node tn;
    t_node_init(&tn, EM_OP_SOFTMAX, "softmax_f64");
    t_expect_ok(t_run(t_kernel(EM_OP_SOFTMAX, EMBER_DTYPE_F64), &tn.n, in, 1, out, 1, NULL),
                "softmax f64");
    double s = 1 + exp(1) + exp(2);
    assert_true(fabs(y[0] - 1 / s) < 1e-15 && fabs(y[1] - exp(1) / s) < 1e-15 &&
                fabs(y[2] - exp(2) / s) < 1e-15);
    assert_true(isnan(y[3]) && isnan(y[4]) && isnan(y[5]));
}

static void test_conv_half_errors(void **state)
{
    (void)state;
    const int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, yd[4] = {1, 1, 2, 2};
    uint16_t x[9] = {0}, y[4];
    float w[4] = {0};
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_CONV, "conv_mixed");
    t_tensor(&in[0], EMBER_DTYPE_F16, 4, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, w);
    t_tensor(&out[0], EMBER_DTYPE_F16, 4, yd, y);
    t_expect_error(t_run(t_kernel(EM_OP_CONV, EMBER_DTYPE_F16), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "conv_mixed", "f16 x, f32 w");
    /* the f32 kernel's own checks still apply: a weight of the wrong rank */
    const int64_t w3[3] = {1, 2, 2};
    t_node_init(&tn, EM_OP_CONV, "conv_rank");
    t_tensor(&in[1], EMBER_DTYPE_F16, 3, w3, x);
    t_expect_error(t_run(t_kernel(EM_OP_CONV, EMBER_DTYPE_F16), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "conv_rank", "w rank 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_half),
        cmocka_unit_test(test_conv_half_errors),
        cmocka_unit_test(test_matmul_half),
        cmocka_unit_test(test_softmax_f64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
