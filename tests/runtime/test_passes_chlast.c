/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Channel-last MLP blocks -> channel-first (runtime/passes/passes_chlast.c) and the layout
 * pass's BlockedLayerNorm (passes_layout_ops.c), the Gelus fused into the 1x1 convs before them
 * (FusedConv's Gelu epilogue, passes_conv.c), on hand-built ConvNeXt blocks
 * of x [2, 16, 5, 3]: a depthwise 3x3 conv, Transpose(0,2,3,1), LayerNormalization, MatMuls to
 * 32 and back with biases and Gelu, Transpose(0,3,1,2), the layer-scale Mul and the residual
 * Add. Positives in several forms: torch.onnx's (bias on the left, scale [16, 1, 1], residual),
 * TorchScript's (bias on the right, scale [1, 16, 1, 1] on the right, tanh Gelu, no B, no
 * residual), a per-channel Mul after the first MatMul, a chain ending in Gelu (the layer scale
 * then stays, as a BlockedAffine), and LayerNorm2d alone (Transpose / LayerNorm / Transpose
 * between convs). Negatives, left with both Transposes: an intermediate that is a graph output,
 * a second reader of the first Transpose, another perm, a Relu in the chain, a bias before any
 * MatMul, a LayerNorm over two axes, and LayerNorm2d of a graph input (no blocked twin to read).
 * Each optimised graph (layout pass on, blocks of 8 and 16) computes what the original does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    CL_TORCH,
    CL_TS,
    CL_MID_SCALE,
    CL_GELU_LAST,
    CL_LN2D,
    N_GELU_OUTPUT,
    N_T1_READER,
    N_PERM,
    N_RELU,
    N_BIAS_FIRST,
    N_LN_2AXES,
    N_LN2D_INPUT,
};

static const int64_t xd[4] = {2, 16, 5, 3};

static int transpose(em_graph *g, int v, const int64_t *perm, const char *name)
{
    int y = tp_op2(g, EM_OP_TRANSPOSE, v, -1, name);
    OK(em_node_set_ints(g, g->n_nodes - 1, "perm", perm, 4));
    return y;
}

static int conv(em_graph *g, int v, int64_t cin, int64_t cout, bool dw, const char *name)
{
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s/w", name);
    snprintf(bn, sizeof bn, "%s/b", name);
    const int64_t wd[4] = {cout, dw ? 1 : cin, dw ? 3 : 1, dw ? 3 : 1};
    const int in[3] = {v, tp_init_f32(g, wn, 4, wd, 11, -0.3f, 0.3f),
                       tp_init_f32(g, bn, 1, &cout, 12, -0.2f, 0.2f)};
    int y = tp_op(g, EM_OP_CONV, in, 3, name);
    if (dw) {
        static const int64_t pads[4] = {1, 1, 1, 1};
        OK(em_node_set_int(g, g->n_nodes - 1, "group", cin));
        OK(em_node_set_ints(g, g->n_nodes - 1, "pads", pads, 4));
    }
    return y;
}

static void build(em_graph *g, int x, int variant)
{
    static const int64_t to_last[4] = {0, 2, 3, 1}, to_first[4] = {0, 3, 1, 2};
    static const int64_t swap_hw[4] = {0, 3, 2, 1};
    const int64_t c16[1] = {16}, c32[1] = {32}, c1132[4] = {1, 1, 1, 32};
    const int64_t w1d[2] = {16, 32}, w2d[2] = {32, 16}, ls3[3] = {16, 1, 1}, ls4[4] = {1, 16, 1, 1};
    bool ts = variant == CL_TS;
    if (variant == N_LN2D_INPUT) { /* LayerNorm2d straight on the graph input */
        int t = transpose(g, x, to_last, "t1");
        const int in[3] = {t, tp_init_f32(g, "g", 1, c16, 1, 0.5f, 1.5f),
                           tp_init_f32(g, "be", 1, c16, 2, -0.5f, 0.5f)};
        int y = transpose(g, tp_op(g, EM_OP_LAYERNORM, in, 3, "ln"), to_first, "t2");
        OK(em_graph_mark_output(g, conv(g, y, 16, 16, false, "pw")));
        return;
    }
    int d = conv(g, x, 16, 16, true, "dw");
    int t1 = transpose(g, d, to_last, "t1");
    int lin[3] = {variant == N_BIAS_FIRST ? tp_op2(g, EM_OP_ADD, t1,
                                                   tp_init_f32(g, "pre", 1, c16, 3, -1.0f, 1.0f),
                                                   "pre_add")
                                          : t1,
                  tp_init_f32(g, "g", 1, c16, 1, 0.5f, 1.5f),
                  tp_init_f32(g, "be", 1, c16, 2, -0.5f, 0.5f)};
    int ln = tp_op(g, EM_OP_LAYERNORM, lin, ts ? 2 : 3, "ln");
    OK(em_node_set_float(g, g->n_nodes - 1, "epsilon", 1e-6f));
    if (variant == N_LN_2AXES) {
        OK(em_node_set_int(g, g->n_nodes - 1, "axis", 2));
    }
    if (variant == CL_LN2D) {
        int y = transpose(g, ln, to_first, "t2");
        OK(em_graph_mark_output(g, conv(g, y, 16, 16, false, "pw")));
        return;
    }
    int v = tp_op2(g, EM_OP_MATMUL, ln, tp_init_f32(g, "w1", 2, w1d, 4, -0.3f, 0.3f), "mm1");
    if (variant != CL_GELU_LAST) {
        int b1 = tp_init_f32(g, "b1", 1, c32, 5, -0.2f, 0.2f);
        v = ts ? tp_op2(g, EM_OP_ADD, v, b1, "add1") : tp_op2(g, EM_OP_ADD, b1, v, "add1");
    }
    if (variant == CL_MID_SCALE) {
        v = tp_op2(g, EM_OP_MUL, tp_init_f32(g, "s1", 4, c1132, 6, 0.5f, 1.5f), v, "mul1");
    }
    int act = tp_op2(g, variant == N_RELU ? EM_OP_RELU : EM_OP_GELU, v, -1, "act");
    if (ts) {
        OK(em_node_set_string(g, g->n_nodes - 1, "approximate", "tanh"));
    }
    v = act;
    if (variant != CL_GELU_LAST) {
        v = tp_op2(g, EM_OP_MATMUL, act, tp_init_f32(g, "w2", 2, w2d, 7, -0.3f, 0.3f), "mm2");
        if (variant != CL_MID_SCALE) {
            int b2 = tp_init_f32(g, "b2", 1, c16, 8, -0.2f, 0.2f);
            v = ts ? tp_op2(g, EM_OP_ADD, v, b2, "add2") : tp_op2(g, EM_OP_ADD, b2, v, "add2");
        }
    } else {
        v = tp_op2(g, EM_OP_MATMUL, v, tp_init_f32(g, "w2", 2, w2d, 7, -0.3f, 0.3f), "mm2");
        v = tp_op2(g, EM_OP_GELU, v, -1, "act2");
    }
    int y = transpose(g, v, variant == N_PERM ? swap_hw : to_first, "t2");
    if (variant != N_PERM && variant != CL_MID_SCALE) {
        int s = ts ? tp_init_f32(g, "ls", 4, ls4, 9, 0.1f, 0.9f)
                   : tp_init_f32(g, "ls", 3, ls3, 9, 0.1f, 0.9f);
        y = ts ? tp_op2(g, EM_OP_MUL, y, s, "scale") : tp_op2(g, EM_OP_MUL, s, y, "scale");
    }
    if (!ts && variant != N_PERM) {
        y = tp_op2(g, EM_OP_ADD, y, x, "residual");
    }
    OK(em_graph_mark_output(g, y));
    if (variant == N_GELU_OUTPUT) {
        OK(em_graph_mark_output(g, act));
    }
    if (variant == N_T1_READER) {
        OK(em_graph_mark_output(g, tp_op2(g, EM_OP_ABS, t1, -1, "abs_t1")));
    }
}

static void check(int variant, const tp_count *want, int n_want)
{
    for (int block = 8; block <= 16; block += 8) {
        em_passes_options o = {true, true, true, block, em_plan_eval_const};
        tp_check_passes(build, variant, 4, xd, want, n_want, 1e-4, 1e-4, &o);
    }
}

/* Rewritten: no Transpose, MatMul, Gemm or LayerNormalization left; one BlockedLayerNorm, the
 * depthwise conv and one FusedConv per MatMul (the Gelu in the first, the residual Add and the
 * layer scale in the last). */
static void test_blocks(void **state)
{
    (void)state;
    static const int variants[] = {CL_TORCH, CL_TS, CL_MID_SCALE};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        const tp_count want[] = {{EM_OP_TRANSPOSE, 0}, {EM_OP_MATMUL, 0},
                                 {EM_OP_GEMM, 0},      {EM_OP_LAYERNORM, 0},
                                 {EM_OP_ADD, 0},       {EM_OP_MUL, 0},
                                 {EM_OP_GELU, 0},      {EM_OP_BLOCKEDLAYERNORM, 1},
                                 {EM_OP_FUSEDCONV, 3}, {EM_OP_REORDERTOBLOCKED, 1}};
        check(variants[i], want, (int)(sizeof want / sizeof want[0]));
    }
}

/* A chain ending in Gelu: the layer scale cannot fold and runs blocked as BlockedAffine; both
 * Gelus are the epilogues of the 1x1 convs before them. */
static void test_gelu_last(void **state)
{
    (void)state;
    const tp_count want[] = {{EM_OP_TRANSPOSE, 0},     {EM_OP_MATMUL, 0},
                             {EM_OP_GELU, 0},          {EM_OP_BLOCKEDLAYERNORM, 1},
                             {EM_OP_BLOCKEDAFFINE, 1}, {EM_OP_FUSEDCONV, 3}};
    check(CL_GELU_LAST, want, (int)(sizeof want / sizeof want[0]));
}

static void test_layernorm2d(void **state)
{
    (void)state;
    const tp_count want[] = {{EM_OP_TRANSPOSE, 0},
                             {EM_OP_LAYERNORM, 0},
                             {EM_OP_BLOCKEDLAYERNORM, 1},
                             {EM_OP_FUSEDCONV, 2},
                             {EM_OP_REORDERFROMBLOCKED, 1}};
    check(CL_LN2D, want, (int)(sizeof want / sizeof want[0]));
    /* On a graph input there is no blocked value to normalise: left as it is. */
    const tp_count left[] = {{EM_OP_TRANSPOSE, 2}, {EM_OP_LAYERNORM, 1},
                             {EM_OP_BLOCKEDLAYERNORM, 0}};
    check(N_LN2D_INPUT, left, (int)(sizeof left / sizeof left[0]));
}

/* Not rewritten: both Transposes and the LayerNorm stay, the MatMuls become Gemms (or stay). */
static void test_left_alone(void **state)
{
    (void)state;
    static const int variants[] = {N_GELU_OUTPUT, N_T1_READER, N_PERM,
                                   N_RELU,        N_BIAS_FIRST, N_LN_2AXES};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        const tp_count want[] = {{EM_OP_TRANSPOSE, 2},
                                 {EM_OP_LAYERNORM, 1},
                                 {EM_OP_BLOCKEDLAYERNORM, 0},
                                 {EM_OP_FUSEDCONV, 1}};
        check(variants[i], want, (int)(sizeof want / sizeof want[0]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_gelu_last),
        cmocka_unit_test(test_layernorm2d),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
