/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ReduceMean over H, W -> GlobalAveragePool [+ Flatten] (runtime/passes/passes_mean.c), on
 * x [2, 5, 3, 7]: axes {2, 3} without keepdims (GlobalAveragePool + Flatten, as MNASNet's and
 * ShuffleNetV2's x.mean([2, 3]) exports), axes {-1, -2} with keepdims (GlobalAveragePool
 * alone), the mean as a graph output (its name kept), a symbolic batch; and after a conv with
 * the layout pass, the pool runs blocked and no Reduce is left. Left alone: axes {1, 2}, axis
 * {3} alone, a rank-3 input (a Reshape of x) reduced over its last axis. Each optimised graph
 * computes what the original does. M_THEN_CONV: a Conv -> BatchNormalization -> Relu after the
 * mean, folded and fused after the Flatten was placed (torch.export's core-aten mobilenet_v3
 * failed there once: the placement moved every later node and left their producers stale, so
 * the fusion took a Conv for the BatchNormalization's producer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    M_HW,
    M_HW_KEEP,
    M_OUTPUT,
    M_CONV,
    M_THEN_CONV,
    N_AXES12,
    N_AXIS3,
    N_RANK3,
};

static const int64_t xd[4] = {2, 5, 3, 7};

static int mean(em_graph *g, int v, const int64_t *axes, int n, int keepdims)
{
    int y = tp_op2(g, EM_OP_REDUCEMEAN, v, tp_ints(g, "axes", axes, n), "m");
    OK(em_node_set_int(g, g->n_nodes - 1, "keepdims", keepdims));
    return y;
}

static void build(em_graph *g, int x, int v)
{
    static const int64_t hw[2] = {2, 3}, hw_neg[2] = {-1, -2}, a12[2] = {1, 2}, a3[1] = {3};
    static const int64_t r3[3] = {2, 5, 21}, last[1] = {2}, wd[4] = {16, 5, 3, 3};
    static const int64_t bd[1] = {16}, pads[4] = {1, 1, 1, 1};
    int y;
    if (v == M_HW_KEEP) {
        y = mean(g, x, hw_neg, 2, 1);
    } else if (v == N_AXES12) {
        y = mean(g, x, a12, 2, 0);
    } else if (v == N_AXIS3) {
        y = mean(g, x, a3, 1, 0);
    } else if (v == N_RANK3) {
        y = mean(g, tp_op2(g, EM_OP_RESHAPE, x, tp_ints(g, "r3", r3, 3), "r"), last, 1, 0);
    } else if (v == M_CONV) {
        int c = tp_op(g, EM_OP_CONV,
                      (int[3]){x, tp_init_f32(g, "w", 4, wd, 1, -0.3f, 0.3f),
                               tp_init_f32(g, "b", 1, bd, 2, -0.5f, 0.5f)},
                      3, "c");
        OK(em_node_set_ints(g, g->n_nodes - 1, "pads", pads, 4));
        y = mean(g, tp_op2(g, EM_OP_RELU, c, -1, "cr"), hw, 2, 0);
    } else if (v == M_THEN_CONV) {
        OK(em_graph_mark_output(g, tp_op2(g, EM_OP_NEG, mean(g, x, hw, 2, 0), -1, "mn")));
        static const int64_t cd[1] = {16};
        int in[5] = {x, tp_init_f32(g, "w", 4, wd, 1, -0.3f, 0.3f)};
        int c = tp_op(g, EM_OP_CONV, in, 2, "c");
        OK(em_node_set_ints(g, g->n_nodes - 1, "pads", pads, 4));
        in[0] = c;
        in[1] = tp_init_f32(g, "gamma", 1, cd, 3, 0.5f, 1.5f);
        in[2] = tp_init_f32(g, "beta", 1, cd, 4, -0.5f, 0.5f);
        in[3] = tp_init_f32(g, "mean", 1, cd, 5, -0.5f, 0.5f);
        in[4] = tp_init_f32(g, "var", 1, cd, 6, 0.5f, 2.0f);
        y = tp_op2(g, EM_OP_RELU, tp_op(g, EM_OP_BATCHNORM, in, 5, "bn"), -1, "br");
    } else {
        y = mean(g, x, hw, 2, 0);
    }
    if (v != M_OUTPUT) {
        y = tp_op2(g, EM_OP_NEG, y, -1, "y");
    }
    OK(em_graph_mark_output(g, y));
}

static void check(int v, int pools, int flattens, int means)
{
    const tp_count want[] = {{EM_OP_GLOBALAVERAGEPOOL, pools},
                             {EM_OP_FLATTEN, flattens},
                             {EM_OP_REDUCEMEAN, means}};
    tp_check_fused(build, v, 4, xd, want, 3, 1e-6, 1e-5);
}

static void test_spatial_means(void **state)
{
    (void)state;
    check(M_HW, 1, 1, 0);
    check(M_HW_KEEP, 1, 0, 0);
    check(M_OUTPUT, 1, 1, 0);
    static const char *const batch[4] = {"N", NULL, NULL, NULL};
    const tp_count want[] = {{EM_OP_GLOBALAVERAGEPOOL, 1}, {EM_OP_REDUCEMEAN, 0}};
    tp_check_fused_named(build, M_HW, 4, xd, batch, want, 2, 1e-6, 1e-5);
    const tp_count conv[] = {{EM_OP_GLOBALAVERAGEPOOL, 1}, {EM_OP_FLATTEN, 1},
                             {EM_OP_BATCHNORM, 0}, {EM_OP_RELU, 0}, {EM_OP_FUSEDCONV, 1}};
    tp_check_fused(build, M_THEN_CONV, 4, xd, conv, 5, 1e-5, 1e-5);
}

static void test_other_means(void **state)
{
    (void)state;
    check(N_AXES12, 0, 0, 1);
    check(N_AXIS3, 0, 0, 1);
    check(N_RANK3, 0, 0, 1);
}

static void test_blocked(void **state)
{
    (void)state;
    for (int block = 8; block <= 16; block += 8) {
        em_passes_options o = {true, true, true, block, em_plan_eval_const};
        const tp_count want[] = {{EM_OP_REDUCEMEAN, 0},
                                 {EM_OP_GLOBALAVERAGEPOOL, 0},
                                 {EM_OP_BLOCKEDPOOL, 1},
                                 {EM_OP_FLATTEN, 1}};
        tp_check_passes(build, M_CONV, 4, xd, want, 4, 1e-5, 1e-5, &o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spatial_means),
        cmocka_unit_test(test_other_means),
        cmocka_unit_test(test_blocked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
