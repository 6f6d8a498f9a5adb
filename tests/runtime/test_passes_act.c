/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decomposed activations -> one op (runtime/passes/passes_act.c), on hand-built graphs of
 * x [2, 3, 8]: Erf GELU in torch.onnx's order, BERT's (x * 0.5 first, Mul by 1/sqrt 2) and
 * with the 0.5 on (1 + erf); tanh GELU in torch.onnx's form (x * x * x) and GPT-2's (Pow 3);
 * HardSwish as Mul(x, HardSigmoid(x)) and as x * relu6(x + 3) / 6, HardSigmoid as
 * Clip(x + 3, 0, 6) * 1/6 (and times x after: HardSwish); SiLU; Mish; a conv followed by the
 * decomposed HardSwish ends as one FusedConv. And what must stay: a wrong sqrt 2, 0.5, tanh
 * coefficient, Clip bound or HardSigmoid alpha, an Erf / Sigmoid output that is a graph
 * output, a product by a value other than x. Each optimised graph computes what the original
 * does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

static const int64_t xd[3] = {2, 3, 8};

static int mul(em_graph *g, int a, int b, const char *name)
{
    return tp_op2(g, EM_OP_MUL, a, b, name);
}

static int add(em_graph *g, int a, int b, const char *name)
{
    return tp_op2(g, EM_OP_ADD, a, b, name);
}

static int k(em_graph *g, const char *name, float v)
{
    return tp_scalar(g, name, v);
}

/* ---- GELU ---- */

enum {
    G_TORCH,
    G_BERT,
    G_HALF_LAST,
    G_BAD_SQRT2,
    G_BAD_HALF,
    G_ERF_OUTPUT,
    G_OTHER_X,
    T_TORCH,
    T_GPT2,
    T_BAD_COEF,
};

static void build_gelu(em_graph *g, int x, int v)
{
    int y, f;
    if (v >= T_TORCH) {
        int x3 = v == T_GPT2 ? tp_op2(g, EM_OP_POW, x, k(g, "three", 3.0f), "x3")
                             : mul(g, x, mul(g, x, x, "sq"), "x3");
        float c = v == T_BAD_COEF ? 0.045f : 0.044715f;
        int w = add(g, x, mul(g, k(g, "c", c), x3, "t"), "w");
        f = tp_op2(g, EM_OP_TANH, mul(g, k(g, "k", 0.7978845608f), w, "u"), -1, "f");
    } else {
        int a = v == G_BERT        ? mul(g, x, k(g, "r2", 0.70710678f), "a")
                : v == G_HALF_LAST ? mul(g, k(g, "r2", 0.70710678f), x, "a")
                                   : tp_op2(g, EM_OP_DIV, x,
                                            k(g, "s2", v == G_BAD_SQRT2 ? 1.5f : 1.41421356f), "a");
        f = tp_op2(g, EM_OP_ERF, a, -1, "f");
    }
    int b = v == G_TORCH ? add(g, f, k(g, "one", 1.0f), "b") : add(g, k(g, "one", 1.0f), f, "b");
    int z = v == G_OTHER_X ? tp_op2(g, EM_OP_ABS, x, -1, "z") : x;
    if (v == G_BERT || v == T_GPT2) {
        y = mul(g, mul(g, z, k(g, "half", 0.5f), "h"), b, "y");
    } else if (v == G_HALF_LAST) {
        y = mul(g, z, mul(g, b, k(g, "half", 0.5f), "c"), "y");
    } else {
        y = mul(g, k(g, "half", v == G_BAD_HALF ? 0.4f : 0.5f), mul(g, z, b, "c"), "y");
    }
    OK(em_graph_mark_output(g, y));
    if (v == G_ERF_OUTPUT) {
        OK(em_graph_mark_output(g, f));
    }
}

static void test_gelu(void **state)
{
    (void)state;
    const tp_count fused[] = {{EM_OP_GELU, 1}, {EM_OP_MUL, 0}, {EM_OP_ERF, 0}, {EM_OP_TANH, 0}};
    const int ok[] = {G_TORCH, G_BERT, G_HALF_LAST, T_TORCH, T_GPT2};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        tp_check_fused(build_gelu, ok[i], 3, xd, fused, 4, 2e-6, 2e-6);
    }
    const tp_count erf_kept[] = {{EM_OP_GELU, 0}, {EM_OP_ERF, 1}};
    const int bad[] = {G_BAD_SQRT2, G_BAD_HALF, G_ERF_OUTPUT, G_OTHER_X};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tp_check_fused(build_gelu, bad[i], 3, xd, erf_kept, 2, 2e-6, 2e-6);
    }
    const tp_count tanh_kept[] = {{EM_OP_GELU, 0}, {EM_OP_TANH, 1}};
    tp_check_fused(build_gelu, T_BAD_COEF, 3, xd, tanh_kept, 2, 2e-6, 2e-6);
}

/* ---- HardSigmoid, HardSwish, SiLU, Mish ---- */

enum {
    H_HARDSIGMOID_X,
    H_RELU6,
    H_CLIP_SIXTH,
    H_CLIP_DIV_TIMES_X,
    H_BAD_ALPHA,
    H_BAD_CLIP,
    S_SILU,
    S_OTHER,
    S_SIGMOID_OUTPUT,
    M_MISH,
    M_OTHER,
};

static int clip06(em_graph *g, int a, float hi)
{
    const int in[3] = {a, k(g, "lo", 0.0f), k(g, "hi", hi)};
    return tp_op(g, EM_OP_CLIP, in, 3, "clip");
}

static void build_act(em_graph *g, int x, int v)
{
    int y = -1, ni;
    switch (v) {
    case H_HARDSIGMOID_X:
    case H_BAD_ALPHA: {
        const char *outs[1] = {"hs"};
        OK(em_graph_add_node(g, EM_OP_HARDSIGMOID, "hs", &x, 1, outs, 1, &ni));
        if (v == H_HARDSIGMOID_X) {
            OK(em_node_set_float(g, ni, "alpha", 1.0f / 6.0f));
        }
        y = mul(g, x, g->nodes[ni].out[0], "y");
        break;
    }
    case H_RELU6: {
        int r = tp_op2(g, EM_OP_RELU, add(g, x, k(g, "three", 3.0f), "a"), -1, "r");
        y = tp_op2(g, EM_OP_DIV, mul(g, x, clip06(g, r, 6.0f), "m"), k(g, "six", 6.0f), "y");
        break;
    }
    case H_CLIP_SIXTH:
    case H_BAD_CLIP:
        y = mul(g, clip06(g, add(g, k(g, "three", 3.0f), x, "a"), v == H_BAD_CLIP ? 5.0f : 6.0f),
                k(g, "sixth", 1.0f / 6.0f), "y");
        break;
    case H_CLIP_DIV_TIMES_X:
        y = mul(g,
                tp_op2(g, EM_OP_DIV, clip06(g, add(g, x, k(g, "three", 3.0f), "a"), 6.0f),
                       k(g, "six", 6.0f), "hs"),
                x, "y");
        break;
    case S_SILU:
    case S_OTHER:
    case S_SIGMOID_OUTPUT: {
        int s =
            tp_op2(g, EM_OP_SIGMOID, v == S_OTHER ? tp_op2(g, EM_OP_ABS, x, -1, "ax") : x, -1, "s");
        y = mul(g, s, x, "y");
        if (v == S_SIGMOID_OUTPUT) {
            OK(em_graph_mark_output(g, s));
        }
        break;
    }
    default: { /* Mish */
        int t = tp_op2(g, EM_OP_TANH, tp_op2(g, EM_OP_SOFTPLUS, x, -1, "sp"), -1, "t");
        y = mul(g, v == M_OTHER ? tp_op2(g, EM_OP_ABS, x, -1, "ax") : x, t, "y");
        break;
    }
    }
    OK(em_graph_mark_output(g, y));
}

static void test_hard(void **state)
{
    (void)state;
    const tp_count swish[] = {{EM_OP_HARDSWISH, 1},
                              {EM_OP_HARDSIGMOID, 0},
                              {EM_OP_MUL, 0},
                              {EM_OP_CLIP, 0},
                              {EM_OP_RELU, 0}};
    tp_check_fused(build_act, H_HARDSIGMOID_X, 3, xd, swish, 5, 1e-6, 1e-6);
    tp_check_fused(build_act, H_RELU6, 3, xd, swish, 5, 1e-6, 1e-6);
    tp_check_fused(build_act, H_CLIP_DIV_TIMES_X, 3, xd, swish, 5, 1e-6, 1e-6);
    const tp_count sigm[] = {{EM_OP_HARDSIGMOID, 1}, {EM_OP_MUL, 0}, {EM_OP_CLIP, 0}};
    tp_check_fused(build_act, H_CLIP_SIXTH, 3, xd, sigm, 3, 1e-6, 1e-6);
    const tp_count alpha[] = {{EM_OP_HARDSWISH, 0}, {EM_OP_HARDSIGMOID, 1}, {EM_OP_MUL, 1}};
    tp_check_fused(build_act, H_BAD_ALPHA, 3, xd, alpha, 3, 1e-6, 1e-6);
    const tp_count clip5[] = {{EM_OP_HARDSIGMOID, 0}, {EM_OP_CLIP, 1}, {EM_OP_MUL, 1}};
    tp_check_fused(build_act, H_BAD_CLIP, 3, xd, clip5, 3, 1e-6, 1e-6);
}

static void test_silu_mish(void **state)
{
    (void)state;
    const tp_count silu[] = {{EM_OP_SWISH, 1}, {EM_OP_SIGMOID, 0}, {EM_OP_MUL, 0}};
    tp_check_fused(build_act, S_SILU, 3, xd, silu, 3, 1e-6, 1e-6);
    const tp_count kept[] = {{EM_OP_SWISH, 0}, {EM_OP_SIGMOID, 1}, {EM_OP_MUL, 1}};
    tp_check_fused(build_act, S_OTHER, 3, xd, kept, 3, 1e-6, 1e-6);
    tp_check_fused(build_act, S_SIGMOID_OUTPUT, 3, xd, kept, 3, 1e-6, 1e-6);
    const tp_count mish[] = {{EM_OP_MISH, 1}, {EM_OP_SOFTPLUS, 0}, {EM_OP_TANH, 0}};
    tp_check_fused(build_act, M_MISH, 3, xd, mish, 3, 1e-6, 1e-6);
    const tp_count mkept[] = {{EM_OP_MISH, 0}, {EM_OP_SOFTPLUS, 1}, {EM_OP_MUL, 1}};
    tp_check_fused(build_act, M_OTHER, 3, xd, mkept, 3, 1e-6, 1e-6);
}

/* Conv then x * relu6(x + 3) / 6: the HardSwish the act pass makes becomes the conv's epilogue. */
static void build_conv_hardswish(em_graph *g, int x, int v)
{
    (void)v;
    const int64_t wd[4] = {4, 3, 3, 3}, bd[1] = {4}, pads[4] = {1, 1, 1, 1};
    const int in[3] = {x, tp_init_f32(g, "w", 4, wd, 7, -0.5f, 0.5f),
                       tp_init_f32(g, "b", 1, bd, 8, -0.5f, 0.5f)};
    int c = tp_op(g, EM_OP_CONV, in, 3, "conv");
    OK(em_node_set_ints(g, g->n_nodes - 1, "pads", pads, 4));
    int r = tp_op2(g, EM_OP_RELU, add(g, c, k(g, "three", 3.0f), "a"), -1, "r");
    int y = tp_op2(g, EM_OP_DIV, mul(g, c, clip06(g, r, 6.0f), "m"), k(g, "six", 6.0f), "y");
    OK(em_graph_mark_output(g, y));
}

static void test_conv_hardswish(void **state)
{
    (void)state;
    const int64_t cd[4] = {1, 3, 6, 5};
    const tp_count want[] = {{EM_OP_FUSEDCONV, 1}, {EM_OP_CONV, 0}, {EM_OP_HARDSWISH, 0},
                             {EM_OP_MUL, 0},       {EM_OP_DIV, 0},  {EM_OP_CLIP, 0}};
    tp_check_fused(build_conv_hardswish, 0, 4, cd, want, 6, 1e-5, 1e-5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gelu),
        cmocka_unit_test(test_hard),
        cmocka_unit_test(test_silu_mish),
        cmocka_unit_test(test_conv_hardswish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
