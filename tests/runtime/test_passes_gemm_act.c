/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gemm + activation -> FusedGemm (runtime/passes/passes_gemm.c, step 4c), on hand-built graphs
 * of x [2, 3, 16]: a rank-3 MatMul + bias (made a Gemm between Reshapes by step 4b) followed
 * by Gelu (erf and tanh), Relu, Clip with constant bounds or the decomposed x * Sigmoid(x)
 * (SiLU); a rank-2 Gemm with transB followed by Tanh or LeakyRelu; two activations in a row
 * (only the first is fused). And what must stay: a product that is also read elsewhere or is a
 * graph output, the Reshape's output read twice, an activation FusedGemm does not take
 * (Softplus), a Clip with a runtime bound. Each optimised graph computes what the original
 * does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

static const int64_t xd[3] = {2, 3, 16};

enum {
    V_GELU,
    V_GELU_TANH,
    V_RELU,
    V_CLIP,
    V_SILU,
    V_GEMM_TANH,
    V_GEMM_LEAKY,
    V_TWO_ACTS,
    /* negatives */
    V_PRODUCT_READ_TWICE,
    V_PRODUCT_OUTPUT,
    V_RESHAPED_READ_TWICE,
    V_SOFTPLUS,
    V_CLIP_RUNTIME,
};

/* Linear(16 -> 24) on x [2, 3, 16] as torch.onnx writes it: MatMul + bias Add. */
static int linear3(em_graph *g, int x)
{
    const int64_t wd[2] = {16, 24}, bd[1] = {24};
    int w = tp_init_f32(g, "W", 2, wd, 11, -0.5f, 0.5f);
    int b = tp_init_f32(g, "bias", 1, bd, 12, -0.5f, 0.5f);
    return tp_op2(g, EM_OP_ADD, tp_op2(g, EM_OP_MATMUL, x, w, "mm"), b, "lin");
}

/* Gemm(x as [6, 16], W [24, 16], bias, transB = 1). */
static int gemm2(em_graph *g, int x)
{
    const int64_t wd[2] = {24, 16}, bd[1] = {24}, flat[2] = {6, 16};
    int x2 = tp_op2(g, EM_OP_RESHAPE, x, tp_ints(g, "flat", flat, 2), "x2");
    const int in[3] = {x2, tp_init_f32(g, "Wt", 2, wd, 13, -0.5f, 0.5f),
                       tp_init_f32(g, "bias2", 1, bd, 14, -0.5f, 0.5f)};
    int y = tp_op(g, EM_OP_GEMM, in, 3, "gemm");
    OK(em_node_set_int(g, g->values[y].producer, "transB", 1));
    return y;
}

static int act(em_graph *g, em_op op, int x, const char *name)
{
    return tp_op2(g, op, x, -1, name);
}

static void build(em_graph *g, int x, int v)
{
    int y, extra = -1;
    switch (v) {
    case V_GELU:
    case V_GELU_TANH:
        y = act(g, EM_OP_GELU, linear3(g, x), "y");
        if (v == V_GELU_TANH) {
            OK(em_node_set_string(g, g->values[y].producer, "approximate", "tanh"));
        }
        break;
    case V_RELU:
        y = act(g, EM_OP_RELU, linear3(g, x), "y");
        break;
    case V_CLIP:
    case V_CLIP_RUNTIME: {
        int lo = tp_scalar(g, "lo", -0.25f);
        if (v == V_CLIP_RUNTIME) { /* -max(x), a scalar known only at run time */
            int mx = tp_op2(g, EM_OP_REDUCEMAX, x, -1, "mx");
            OK(em_node_set_int(g, g->values[mx].producer, "keepdims", 0));
            lo = act(g, EM_OP_NEG, mx, "lo");
        }
        const int in[3] = {linear3(g, x), lo, tp_scalar(g, "hi", 0.5f)};
        y = tp_op(g, EM_OP_CLIP, in, 3, "y");
        break;
    }
    case V_SILU: {
        int l = linear3(g, x);
        y = tp_op2(g, EM_OP_MUL, l, act(g, EM_OP_SIGMOID, l, "sig"), "y");
        break;
    }
    case V_GEMM_TANH:
        y = act(g, EM_OP_TANH, gemm2(g, x), "y");
        break;
    case V_GEMM_LEAKY:
        y = act(g, EM_OP_LEAKYRELU, gemm2(g, x), "y");
        OK(em_node_set_float(g, g->values[y].producer, "alpha", 0.2f));
        break;
    case V_TWO_ACTS:
        y = act(g, EM_OP_SIGMOID, act(g, EM_OP_RELU, linear3(g, x), "r"), "y");
        break;
    case V_PRODUCT_READ_TWICE: {
        int p = gemm2(g, x);
        y = act(g, EM_OP_RELU, p, "y");
        extra = act(g, EM_OP_NEG, p, "neg");
        break;
    }
    case V_PRODUCT_OUTPUT:
        extra = gemm2(g, x);
        y = act(g, EM_OP_GELU, extra, "y");
        break;
    case V_RESHAPED_READ_TWICE: {
        int l = linear3(g, x);
        y = act(g, EM_OP_RELU, l, "y");
        extra = tp_op2(g, EM_OP_ADD, l, l, "twice");
        break;
    }
    default: /* V_SOFTPLUS */
        y = act(g, EM_OP_SOFTPLUS, linear3(g, x), "y");
        break;
    }
    OK(em_graph_mark_output(g, y));
    if (extra >= 0) {
        OK(em_graph_mark_output(g, extra));
    }
}

static void check(int v, int fused, int gemm)
{
    const tp_count want[] = {{EM_OP_FUSEDGEMM, fused}, {EM_OP_GEMM, gemm}, {EM_OP_MATMUL, 0}};
    tp_check_fused(build, v, 3, xd, want, 3, 1e-5, 1e-5);
}

static void test_fused(void **state)
{
    (void)state;
    for (int v = V_GELU; v <= V_GEMM_LEAKY; v++) {
        check(v, 1, 0);
    }
    const tp_count gelu[] = {{EM_OP_GELU, 0}, {EM_OP_RESHAPE, 2}};
    tp_check_fused(build, V_GELU, 3, xd, gelu, 2, 1e-5, 1e-5);
    const tp_count silu[] = {{EM_OP_SIGMOID, 0}, {EM_OP_MUL, 0}, {EM_OP_SWISH, 0}};
    tp_check_fused(build, V_SILU, 3, xd, silu, 3, 1e-5, 1e-5);
    /* Relu is fused, the Sigmoid after it stays */
    const tp_count two[] = {{EM_OP_FUSEDGEMM, 1}, {EM_OP_RELU, 0}, {EM_OP_SIGMOID, 1}};
    tp_check_fused(build, V_TWO_ACTS, 3, xd, two, 3, 1e-5, 1e-5);
}

static void test_left_alone(void **state)
{
    (void)state;
    for (int v = V_PRODUCT_READ_TWICE; v <= V_CLIP_RUNTIME; v++) {
        check(v, 0, 1);
    }
    const tp_count relu[] = {{EM_OP_RELU, 1}};
    tp_check_fused(build, V_RESHAPED_READ_TWICE, 3, xd, relu, 1, 1e-5, 1e-5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
