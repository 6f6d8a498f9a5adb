/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MatMul + Softmax attention chains -> Attention (runtime/passes/passes_attn.c): torch.onnx's
 * MultiheadAttention form on 3-D [N, S, D] values (Q divided by sqrt(D) before the MatMul,
 * K^T a Transpose [1, 2, 0] of [S, N, D]), the same with the scores scaled and a [S, S] mask
 * added, and the 4-D [B, H, S, D] form of torch 2 (Q and K^T each scaled, K^T = Transpose
 * [0, 1, 3, 2] of K, dropped, a [B, 1, S, S] mask). Not fused: a Softmax along another axis, a
 * 3-D mask with a batch dim (it is not Attention's broadcast), scores that are a graph output,
 * the scaling after the mask, K^T not written by a Transpose, a scalar bias or a [S, 1] mask
 * (Add broadcasts them over the keys; Attention pads a short mask's keys instead).
 *
 * Issue #18's forms (build_more): rank-5 Q, K, V [B, G, H, S, D] (maxvit after the Einsum pass)
 * with a [1, H, S, T] or [H, S, T] mask, merged by Reshapes around a 4-D Attention; two
 * constant terms (a relative-position bias [H, S, T] and a window mask [B, 1, S, T]) summed
 * into one mask; swin's window mask added through Reshape [1, B, H, S, T] / Reshape back. Not
 * fused: rank 5 with a symbolic dim or a mask with a batch dim, a second term that is not a
 * constant, a window Reshape that splits a dim instead of adding leading 1s. Each optimised
 * graph computes what the original does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    A3_TORCH,
    A3_MASK,
    A4_TORCH2,
    N_AXIS,
    N_MASK_BATCH,
    N_SCORES_OUTPUT,
    N_SCALE_AFTER_MASK,
    N_KT_COMPUTED,
    N_MASK_SCALAR,
    N_MASK_ONE_KEY,
};

static int transpose(em_graph *g, int x, const int64_t *perm, int r, const char *name)
{
    int v = tp_op2(g, EM_OP_TRANSPOSE, x, -1, name);
    OK(em_node_set_ints(g, g->n_nodes - 1, "perm", perm, r));
    return v;
}

/* x [S, N, D] = [5, 2, 8] (3-D cases) or [B, H, S, D] = [2, 2, 5, 8] (4-D): Q, K, V from
 * Tanh, Sigmoid, Neg of x, so that each is its own value. */
static void build(em_graph *g, int x, int v)
{
    static const int64_t p102[3] = {1, 0, 2}, p120[3] = {1, 2, 0}, p0132[4] = {0, 1, 3, 2};
    const int64_t m55[2] = {5, 5}, m255[3] = {2, 5, 5}, m2155[4] = {2, 1, 5, 5}, m51[2] = {5, 1};
    bool four = v == A4_TORCH2;
    int q = tp_op2(g, EM_OP_TANH, x, -1, "qs"), ks = tp_op2(g, EM_OP_SIGMOID, x, -1, "ks");
    int vs = tp_op2(g, EM_OP_NEG, x, -1, "vs");
    int kt;
    if (four) {
        q = tp_op2(g, EM_OP_MUL, q, tp_scalar(g, "cq", 0.5946f), "q");
        kt = tp_op2(g, EM_OP_MUL, transpose(g, ks, p0132, 4, "kt0"), tp_scalar(g, "ck", 0.5946f),
                    "kt");
    } else {
        q = transpose(g, q, p102, 3, "q3");
        vs = transpose(g, vs, p102, 3, "v3");
        if (v == N_KT_COMPUTED) {
            kt = tp_op2(g, EM_OP_RELU, transpose(g, ks, p120, 3, "kt0"), -1, "kt");
        } else {
            kt = transpose(g, ks, p120, 3, "kt");
        }
        if (v != A3_MASK) {
            q = tp_op2(g, EM_OP_DIV, q, tp_scalar(g, "sqrtd", 2.828427f), "qd");
        }
    }
    int s = tp_op2(g, EM_OP_MATMUL, q, kt, "scores");
    if (v == A3_MASK || v == N_MASK_BATCH) {
        s = tp_op2(g, EM_OP_MUL, s, tp_scalar(g, "c", 0.35f), "scaled");
    }
    if (v == A3_MASK || v == A4_TORCH2 || v == N_MASK_BATCH || v == N_SCALE_AFTER_MASK ||
        v == N_MASK_SCALAR || v == N_MASK_ONE_KEY) {
        int mk = four                  ? tp_init_f32(g, "mask", 4, m2155, 5, -3.0f, 0.0f)
                 : v == N_MASK_BATCH   ? tp_init_f32(g, "mask", 3, m255, 5, -3.0f, 0.0f)
                 : v == N_MASK_SCALAR  ? tp_scalar(g, "mask", -1.5f)
                 : v == N_MASK_ONE_KEY ? tp_init_f32(g, "mask", 2, m51, 5, -3.0f, 0.0f)
                                       : tp_init_f32(g, "mask", 2, m55, 5, -3.0f, 0.0f);
        s = tp_op2(g, EM_OP_ADD, mk, s, "masked");
    }
    if (v == N_SCALE_AFTER_MASK) {
        s = tp_op2(g, EM_OP_DIV, s, tp_scalar(g, "c2", 2.0f), "scaled2");
    }
    int p = tp_op2(g, EM_OP_SOFTMAX, s, -1, "p");
    OK(em_node_set_int(g, g->n_nodes - 1, "axis", v == N_AXIS ? 1 : -1));
    int y = tp_op2(g, EM_OP_MATMUL, p, vs, "o");
    OK(em_graph_mark_output(g, tp_op2(g, EM_OP_RELU, y, -1, "y")));
    if (v == N_SCORES_OUTPUT) {
        OK(em_graph_mark_output(g, s));
    }
}

static const int64_t x3[3] = {5, 2, 8}, x4[4] = {2, 2, 5, 8};

enum {
    A5_WIDE,        /* x [2, 3, 2, 5, 8], mask [1, 2, 5, 5] */
    A5_WIDE_MASK3,  /* the same, mask [2, 5, 5] */
    A4_TWO_TERMS,   /* x [2, 2, 5, 8]: s + bias [2, 5, 5] + mask [2, 1, 5, 5] */
    A4_WINDOW,      /* Reshape(Reshape(s + bias, [1, 2, 2, 5, 5]) + mask [1, 2, 1, 5, 5]) */
    N5_MASK_BATCH,  /* rank 5, mask [2, 1, 2, 5, 5] */
    N4_TERM_VAR,    /* the second term computed from x */
    N4_WINDOW_SPLIT /* the window Reshape is [2, 1, 2, 5, 5]: a split, no leading 1 */
};

/* Q = Tanh(x) * 0.35, K^T = Transpose(Sigmoid(x)) over the last two axes (at rank 5 of
 * Sigmoid(x) * 0.7), V = -x, then the case's score terms, Softmax, P V, Relu. */
static void build_more(em_graph *g, int x, int v)
{
    static const int64_t p0132[4] = {0, 1, 3, 2}, p01243[5] = {0, 1, 2, 4, 3};
    static const int64_t m1255[4] = {1, 2, 5, 5}, m255[3] = {2, 5, 5}, m2155[4] = {2, 1, 5, 5};
    static const int64_t m21255[5] = {2, 1, 2, 5, 5}, w5[5] = {1, 2, 2, 5, 5};
    static const int64_t m12155[5] = {1, 2, 1, 5, 5}, split[5] = {2, 1, 2, 5, 5};
    static const int64_t m21155[5] = {2, 1, 1, 5, 5};
    static const int64_t back[4] = {2, 2, 5, 5};
    bool five = v == A5_WIDE || v == A5_WIDE_MASK3 || v == N5_MASK_BATCH;
    int q = tp_op2(g, EM_OP_MUL, tp_op2(g, EM_OP_TANH, x, -1, "qs"), tp_scalar(g, "cq", 0.35f),
                   "q");
    int ks = tp_op2(g, EM_OP_SIGMOID, x, -1, "ks");
    if (five) { /* maxvit scales K before its Transpose */
        ks = tp_op2(g, EM_OP_MUL, ks, tp_scalar(g, "ck", 0.7f), "kscaled");
    }
    int kt = transpose(g, ks, five ? p01243 : p0132, five ? 5 : 4, "kt");
    int vs = tp_op2(g, EM_OP_NEG, x, -1, "vs");
    int s = tp_op2(g, EM_OP_MATMUL, q, kt, "scores");
    if (five) {
        int mk = v == A5_WIDE         ? tp_init_f32(g, "mask", 4, m1255, 5, -3.0f, 0.0f)
                 : v == A5_WIDE_MASK3 ? tp_init_f32(g, "mask", 3, m255, 5, -3.0f, 0.0f)
                                      : tp_init_f32(g, "mask", 5, m21255, 5, -3.0f, 0.0f);
        s = tp_op2(g, EM_OP_ADD, s, mk, "masked");
    } else {
        s = tp_op2(g, EM_OP_ADD, s, tp_init_f32(g, "bias", 3, m255, 7, -1.0f, 1.0f), "biased");
        if (v == A4_TWO_TERMS) {
            s = tp_op2(g, EM_OP_ADD, tp_init_f32(g, "mask", 4, m2155, 5, -3.0f, 0.0f), s, "masked");
        } else if (v == N4_TERM_VAR) {
            int t = tp_op2(g, EM_OP_MATMUL, tp_op2(g, EM_OP_NEG, q, -1, "nq"), kt, "term");
            s = tp_op2(g, EM_OP_ADD, s, t, "masked");
        } else {
            const int64_t *to = v == A4_WINDOW ? w5 : split;
            int r5 = tp_op2(g, EM_OP_RESHAPE, s, tp_ints(g, "to5", to, 5), "win");
            int mk = tp_init_f32(g, "mask", 5, v == A4_WINDOW ? m12155 : m21155, 5, -3.0f, 0.0f);
            int a5 = tp_op2(g, EM_OP_ADD, r5, mk, "win_masked");
            s = tp_op2(g, EM_OP_RESHAPE, a5, tp_ints(g, "to4", back, 4), "masked");
        }
    }
    int p = tp_op2(g, EM_OP_SOFTMAX, s, -1, "p");
    OK(em_node_set_int(g, g->n_nodes - 1, "axis", -1));
    int y = tp_op2(g, EM_OP_MATMUL, p, vs, "o");
    OK(em_graph_mark_output(g, tp_op2(g, EM_OP_RELU, y, -1, "y")));
}

static const int64_t x5[5] = {2, 3, 2, 5, 8};

static void test_more_fused(void **state)
{
    (void)state;
    /* rank 5: Q, K, V and the output through one Reshape each; K's Transpose drops */
    const tp_count wide[] = {{EM_OP_ATTENTION, 1}, {EM_OP_MATMUL, 0}, {EM_OP_SOFTMAX, 0},
                             {EM_OP_MUL, 0},       {EM_OP_ADD, 0},    {EM_OP_TRANSPOSE, 0},
                             {EM_OP_RESHAPE, 4}};
    tp_check_fused(build_more, A5_WIDE, 5, x5, wide, 7, 1e-5, 1e-5);
    tp_check_fused(build_more, A5_WIDE_MASK3, 5, x5, wide, 7, 1e-5, 1e-5);
    const tp_count four[] = {{EM_OP_ATTENTION, 1}, {EM_OP_MATMUL, 0}, {EM_OP_SOFTMAX, 0},
                             {EM_OP_ADD, 0},       {EM_OP_RESHAPE, 0}};
    tp_check_fused(build_more, A4_TWO_TERMS, 4, x4, four, 5, 1e-5, 1e-5);
    tp_check_fused(build_more, A4_WINDOW, 4, x4, four, 5, 1e-5, 1e-5);
}

static void test_more_not_fused(void **state)
{
    (void)state;
    const tp_count kept[] = {{EM_OP_ATTENTION, 0}, {EM_OP_SOFTMAX, 1}};
    tp_check_fused(build_more, N5_MASK_BATCH, 5, x5, kept, 2, 1e-5, 1e-5);
    tp_check_fused(build_more, N4_TERM_VAR, 4, x4, kept, 2, 1e-5, 1e-5);
    const tp_count split[] = {{EM_OP_ATTENTION, 0}, {EM_OP_SOFTMAX, 1}, {EM_OP_RESHAPE, 2}};
    tp_check_fused(build_more, N4_WINDOW_SPLIT, 4, x4, split, 3, 1e-5, 1e-5);
    /* rank 5 with a symbolic batch: no Reshape target can be written */
    const char *const names[5] = {"B", NULL, NULL, NULL, NULL};
    tp_check_fused_named(build_more, A5_WIDE, 5, x5, names, kept, 2, 1e-5, 1e-5);
}

static void test_fused(void **state)
{
    (void)state;
    /* Q's and V's Transposes stay; K's becomes [1, 0, 2] */
    const tp_count three[] = {{EM_OP_ATTENTION, 1}, {EM_OP_MATMUL, 0}, {EM_OP_SOFTMAX, 0},
                              {EM_OP_DIV, 0},       {EM_OP_MUL, 0},    {EM_OP_ADD, 0},
                              {EM_OP_TRANSPOSE, 3}};
    tp_check_fused(build, A3_TORCH, 3, x3, three, 7, 1e-5, 1e-5);
    tp_check_fused(build, A3_MASK, 3, x3, three, 7, 1e-5, 1e-5);
    const tp_count four[] = {{EM_OP_ATTENTION, 1},
                             {EM_OP_MATMUL, 0},
                             {EM_OP_MUL, 0},
                             {EM_OP_ADD, 0},
                             {EM_OP_TRANSPOSE, 0}};
    tp_check_fused(build, A4_TORCH2, 4, x4, four, 5, 1e-5, 1e-5);
}

static void test_not_fused(void **state)
{
    (void)state;
    const tp_count kept[] = {{EM_OP_ATTENTION, 0}, {EM_OP_MATMUL, 2}, {EM_OP_SOFTMAX, 1}};
    const int cases[] = {N_AXIS,        N_MASK_BATCH,  N_SCORES_OUTPUT, N_SCALE_AFTER_MASK,
                         N_KT_COMPUTED, N_MASK_SCALAR, N_MASK_ONE_KEY};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_check_fused(build, cases[i], 3, x3, kept, 3, 1e-5, 1e-5);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused),
        cmocka_unit_test(test_not_fused),
        cmocka_unit_test(test_more_fused),
        cmocka_unit_test(test_more_not_fused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
