/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/grad_rules_nn.c: the nn family's rules against central finite differences
 * (test_autograd_util.h), f32 (the Conv, MatMul and BatchNormalization kernels are f32): Conv
 * 1-D / 2-D / 3-D with groups, depthwise, strides with a remainder, asymmetric pads,
 * dilations, auto_pad and a symbolic batch; MaxPool with and without its Indices output;
 * AveragePool with and without count_include_pad and with ceil_mode; GlobalAveragePool,
 * GlobalMaxPool; BatchNormalization in inference (all five inputs) and training; MatMul
 * (batched, broadcast, 1-D, a symbolic batch) and Gemm (each transposition, alpha, beta, C
 * broadcast or absent).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define IN1(a) {1, {a}, {a}, AG_ANY, false}
#define POS1(a) {1, {a}, {a}, AG_POS, false}
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}
#define IN3(a, b, c) {3, {a, b, c}, {a, b, c}, AG_ANY, false}
#define IN4(a, b, c, d) {4, {a, b, c, d}, {a, b, c, d}, AG_ANY, false}
#define IN5(a, b, c, d, e) {5, {a, b, c, d, e}, {a, b, c, d, e}, AG_ANY, false}
#define SCALAR {0, {0}, {0}, AG_ANY, false}

typedef struct conv_attrs {
    int64_t strides[3], pads[6], dilations[3], group;
    const char *auto_pad;
} conv_attrs;

static int conv(em_graph *g, const int *x, int n_in, int nsp, const conv_attrs *a)
{
    int y = ag_node(g, EM_OP_CONV, x, n_in);
    if (a->strides[0]) {
        ag_ints(g, y, "strides", a->strides, nsp);
    }
    if (a->dilations[0]) {
        ag_ints(g, y, "dilations", a->dilations, nsp);
    }
    if (a->auto_pad != NULL) {
        ag_string(g, y, "auto_pad", a->auto_pad);
    } else {
        ag_ints(g, y, "pads", a->pads, 2 * nsp);
    }
    if (a->group) {
        ag_int(g, y, "group", a->group);
    }
    return y;
}

static int b_conv_pads(em_graph *g, const int *x)
{
    const conv_attrs a = {{1, 1}, {1, 0, 1, 1}, {0}, 0, NULL};
    return conv(g, x, 3, 2, &a);
}

static int b_conv_stride(em_graph *g, const int *x)
{
    const conv_attrs a = {{2, 2}, {0, 1, 1, 0}, {2, 1}, 0, NULL};
    return conv(g, x, 2, 2, &a);
}

static int b_conv_group(em_graph *g, const int *x)
{
    const conv_attrs a = {{2, 1}, {1, 1, 1, 1}, {0}, 2, NULL};
    return conv(g, x, 3, 2, &a);
}

static int b_conv_depthwise(em_graph *g, const int *x)
{
    const conv_attrs a = {{1, 1}, {1, 1, 1, 1}, {1, 2}, 3, NULL};
    return conv(g, x, 2, 2, &a);
}

static int b_conv1d_same(em_graph *g, const int *x)
{
    const conv_attrs a = {{2}, {0}, {0}, 0, "SAME_UPPER"};
    return conv(g, x, 3, 1, &a);
}

static int b_conv3d(em_graph *g, const int *x)
{
    const conv_attrs a = {{1, 2, 1}, {0, 1, 0, 1, 0, 1}, {0}, 0, NULL};
    return conv(g, x, 2, 3, &a);
}

typedef struct pool_attrs {
    int64_t kernel[2], strides[2], pads[4], dilations[2];
    int ceil, include_pad;
} pool_attrs;

static int pool(em_graph *g, em_op op, int x, int nsp, const pool_attrs *a, int n_out)
{
    const char *outs[2] = {"pool", "pool_idx"};
    int ni;
    OK(em_graph_add_node(g, op, "pool", &x, 1, outs, n_out, &ni));
    OK(em_node_set_ints(g, ni, "kernel_shape", a->kernel, nsp));
    OK(em_node_set_ints(g, ni, "strides", a->strides, nsp));
    OK(em_node_set_ints(g, ni, "pads", a->pads, 2 * nsp));
    if (a->dilations[0]) {
        OK(em_node_set_ints(g, ni, "dilations", a->dilations, nsp));
    }
    OK(em_node_set_int(g, ni, "ceil_mode", a->ceil));
    if (op == EM_OP_AVERAGEPOOL) {
        OK(em_node_set_int(g, ni, "count_include_pad", a->include_pad));
    }
    return g->nodes[ni].out[0];
}

static const pool_attrs p_plain = {{2, 3}, {2, 2}, {0, 1, 1, 0}, {0}, 0, 0};
static const pool_attrs p_ceil = {{3, 2}, {2, 2}, {1, 0, 0, 1}, {1, 2}, 1, 0};
static const pool_attrs p_incl = {{2, 2}, {1, 2}, {1, 1, 0, 1}, {0}, 0, 1};

static int b_maxpool(em_graph *g, const int *x) { return pool(g, EM_OP_MAXPOOL, x[0], 2, &p_plain, 1); }
static int b_maxpool_idx(em_graph *g, const int *x) { return pool(g, EM_OP_MAXPOOL, x[0], 2, &p_ceil, 2); }
static int b_avgpool(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 2, &p_plain, 1); }
static int b_avgpool_ceil(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 2, &p_ceil, 1); }
static int b_avgpool_incl(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 2, &p_incl, 1); }
static int b_avgpool_1d(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 1, &p_incl, 1); }
static int b_gap(em_graph *g, const int *x) { return ag_op1(g, EM_OP_GLOBALAVERAGEPOOL, x[0]); }

static int b_bn(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_BATCHNORM, x, 5);
    ag_float(g, y, "epsilon", 0.01f);
    return y;
}

static int b_bn_train(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_BATCHNORM, x, 5);
    ag_int(g, y, "training_mode", 1);
    return y;
}

static int b_gmp(em_graph *g, const int *x) { return ag_op1(g, EM_OP_GLOBALMAXPOOL, x[0]); }
static int b_matmul(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MATMUL, x[0], x[1]); }

#define GEMM(fn, ta, tb, alpha, beta)                                                       \
    static int fn(em_graph *g, const int *x)                                               \
    {                                                                                      \
        int y = ag_op3(g, EM_OP_GEMM, x[0], x[1], x[2]);                                   \
        ag_int(g, y, "transA", ta);                                                        \
        ag_int(g, y, "transB", tb);                                                        \
        ag_float(g, y, "alpha", alpha);                                                    \
        ag_float(g, y, "beta", beta);                                                      \
        return y;                                                                          \
    }
GEMM(b_gemm00, 0, 0, 1.0f, 1.0f)
GEMM(b_gemm01, 0, 1, 0.5f, 2.0f)
GEMM(b_gemm10, 1, 0, -1.5f, 0.25f)
GEMM(b_gemm11, 1, 1, 2.0f, -1.0f)

static int b_gemm_noc(em_graph *g, const int *x) { return ag_op2(g, EM_OP_GEMM, x[0], x[1]); }

static const ag_case cases[] = {
    {"conv pads bias", F32, 3, {IN4(2, 3, 5, 4), IN4(4, 3, 3, 2), IN1(4)}, b_conv_pads, 0, 0, 0},
    {"conv stride dilation", F32, 2, {IN4(1, 2, 7, 6), IN4(3, 2, 2, 3)}, b_conv_stride, 0, 0, 0},
    {"conv group", F32, 3, {IN4(2, 4, 4, 4), IN4(6, 2, 3, 3), IN1(6)}, b_conv_group, 0, 0, 0},
    {"conv depthwise", F32, 2, {IN4(1, 3, 5, 5), IN4(3, 1, 3, 3)}, b_conv_depthwise, 0, 0, 0},
    {"conv1d same", F32, 3, {IN3(2, 3, 7), IN3(2, 3, 3), IN1(2)}, b_conv1d_same, 0, 0, 0},
    {"conv3d", F32, 2, {IN5(1, 2, 3, 4, 3), IN5(2, 2, 2, 2, 2)}, b_conv3d, 0, 0, 0},
    {"conv symbolic batch", F32, 3,
     {{4, {-1, 3, 5, 4}, {2, 3, 5, 4}, AG_ANY, false}, IN4(4, 3, 3, 2), IN1(4)}, b_conv_pads, 0,
     0, 0},
    {"maxpool", F32, 1, {IN4(2, 2, 5, 6)}, b_maxpool, 0, 0, 0},
    {"maxpool indices ceil dilation", F32, 1, {IN4(1, 2, 6, 7)}, b_maxpool_idx, 0, 0, 0},
    {"averagepool", F32, 1, {IN4(2, 2, 5, 6)}, b_avgpool, 0, 0, 0},
    {"averagepool ceil dilation", F32, 1, {IN4(1, 2, 6, 7)}, b_avgpool_ceil, 0, 0, 0},
    {"averagepool count_include_pad", F32, 1, {IN4(1, 2, 4, 5)}, b_avgpool_incl, 0, 0, 0},
    {"averagepool 1-d", F32, 1, {IN3(2, 2, 5)}, b_avgpool_1d, 0, 0, 0},
    {"globalaveragepool", F32, 1, {IN4(2, 3, 2, 3)}, b_gap, 0, 0, 0},
    {"globalmaxpool", F64, 1, {IN4(2, 3, 2, 3)}, b_gmp, 0, 0, 0},
    {"batchnorm inference", F32, 5,
     {IN4(2, 3, 2, 2), IN1(3), IN1(3), IN1(3), POS1(3)}, b_bn, 0, 0, 0},
    {"batchnorm training", F32, 5,
     {IN4(3, 2, 2, 2), IN1(2), IN1(2), {1, {2}, {2}, AG_ANY, true}, {1, {2}, {2}, AG_POS, true}},
     b_bn_train, 0, 0, 0},
    {"batchnorm rank 2", F32, 5, {IN2(4, 3), IN1(3), IN1(3), IN1(3), POS1(3)}, b_bn, 0, 0, 0},
    {"matmul", F32, 2, {IN2(2, 3), IN2(3, 4)}, b_matmul, 0, 0, 0},
    {"matmul batched broadcast", F32, 2, {IN4(2, 1, 3, 4), IN3(3, 4, 5)}, b_matmul, 0, 0, 0},
    {"matmul vector-matrix", F32, 2, {IN1(3), IN3(2, 3, 4)}, b_matmul, 0, 0, 0},
    {"matmul matrix-vector", F32, 2, {IN3(2, 2, 3), IN1(3)}, b_matmul, 0, 0, 0},
    {"matmul vector-vector", F32, 2, {IN1(5), IN1(5)}, b_matmul, 0, 0, 0},
    {"matmul symbolic batch", F32, 2,
     {{3, {-1, 2, 3}, {3, 2, 3}, AG_ANY, false}, {3, {-1, 3, 2}, {1, 3, 2}, AG_ANY, false}},
     b_matmul, 0, 0, 0},
    {"gemm", F32, 3, {IN2(2, 3), IN2(3, 4), IN1(4)}, b_gemm00, 0, 0, 0},
    {"gemm transB", F32, 3, {IN2(2, 3), IN2(4, 3), IN2(2, 1)}, b_gemm01, 0, 0, 0},
    {"gemm transA", F32, 3, {IN2(3, 2), IN2(3, 4), SCALAR}, b_gemm10, 0, 0, 0},
    {"gemm transA transB", F32, 3, {IN2(3, 2), IN2(4, 3), IN2(2, 4)}, b_gemm11, 0, 0, 0},
    {"gemm without C", F32, 2, {IN2(3, 2), IN2(2, 5)}, b_gemm_noc, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
