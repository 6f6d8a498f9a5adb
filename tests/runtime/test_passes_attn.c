/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MatMul + Softmax attention chains -> Attention (runtime/passes/passes_attn.c): torch.onnx's
 * MultiheadAttention form on 3-D [N, S, D] values (Q divided by sqrt(D) before the MatMul,
 * K^T a Transpose [1, 2, 0] of [S, N, D]), the same with the scores scaled and a [S, S] mask
 * added, and the 4-D [B, H, S, D] form of torch 2 (Q and K^T each scaled, K^T = Transpose
 * [0, 1, 3, 2] of K, dropped, a [B, 1, S, S] mask). Not fused: a Softmax along another axis, a
 * 3-D mask with a batch dim (it is not Attention's broadcast), scores that are a graph output,
 * the scaling after the mask, K^T not written by a Transpose, a scalar bias or a [S, 1] mask
 * (Add broadcasts them over the keys; Attention pads a short mask's keys instead). Each optimised graph computes
 * what the original does.
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
