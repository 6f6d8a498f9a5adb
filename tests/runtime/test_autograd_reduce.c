/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/grad_rules_reduce.c: the reduce family's rules against central finite
 * differences (test_autograd_util.h), f64 but Softmax (f32): the reductions (keepdims, no axes,
 * noop; ReduceMax with ties), with known and symbolic dims, Softmax and LogSoftmax, TopK,
 * CumSum (exclusive, reverse), InstanceNormalization and LayerNormalization.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define IN1(a) {1, {a}, {a}, AG_ANY, false}
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}
#define IN3(a, b, c) {3, {a, b, c}, {a, b, c}, AG_ANY, false}
#define IN4(a, b, c, d) {4, {a, b, c, d}, {a, b, c, d}, AG_ANY, false}
#define SYM3(a, b, c) {3, {-1, b, -1}, {a, b, c}, AG_ANY, false}

/* Every case squares its result first, so that the gradient depends on the values routed. */
static int sq(em_graph *g, int v) { return ag_op2(g, EM_OP_MUL, v, v); }

static int b_topk(em_graph *g, const int *x)
{
    const int64_t k = 2;
    const char *outs[2] = {"values", "indices"};
    const int in[2] = {x[0], ag_i64(g, &k, 1)};
    int ni;
    OK(em_graph_add_node(g, EM_OP_TOPK, "topk", in, 2, outs, 2, &ni));
    OK(em_node_set_int(g, ni, "axis", 1));
    return sq(g, g->nodes[ni].out[0]);
}

static int cumsum(em_graph *g, int x, int exclusive, int reverse)
{
    const int64_t axis = 1;
    int y = ag_op2(g, EM_OP_CUMSUM, x, ag_i64(g, &axis, -1));
    ag_int(g, y, "exclusive", exclusive);
    ag_int(g, y, "reverse", reverse);
    return sq(g, y);
}

static int b_cumsum(em_graph *g, const int *x) { return cumsum(g, x[0], 0, 0); }
static int b_cumsum_ex_rev(em_graph *g, const int *x) { return cumsum(g, x[0], 1, 1); }

static int reduce(em_graph *g, em_op op, int x, const int64_t *axes, int n, int keep, int noop)
{
    int y = n >= 0 ? ag_op2(g, op, x, ag_i64(g, axes, n)) : ag_op1(g, op, x);
    ag_int(g, y, "keepdims", keep);
    ag_int(g, y, "noop_with_empty_axes", noop);
    return sq(g, y);
}

static const int64_t ax02[2] = {0, -1}, ax1[1] = {1};
static int b_rsum(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCESUM, x[0], ax02, 2, 0, 0); }
static int b_rsum_keep(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCESUM, x[0], ax1, 1, 1, 0); }
static int b_rsum_all(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCESUM, x[0], NULL, -1, 0, 0); }
static int b_rsum_noop(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCESUM, x[0], NULL, 0, 1, 1); }
static int b_rmean(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCEMEAN, x[0], ax1, 1, 0, 0); }
static int b_rmean_all(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCEMEAN, x[0], NULL, -1, 1, 0); }

static const int64_t ax2[1] = {2};
static int b_rsumsq(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCESUMSQUARE, x[0], ax02, 2, 1, 0); }
static int b_rl1(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCEL1, x[0], ax1, 1, 0, 0); }
static int b_rl2(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCEL2, x[0], ax2, 1, 0, 0); }
static int b_rlse(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCELOGSUMEXP, x[0], ax1, 1, 1, 0); }
static int b_rlogsum(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCELOGSUM, x[0], NULL, -1, 0, 0); }
static int b_rmax(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCEMAX, x[0], ax1, 1, 0, 0); }
static int b_rmin(em_graph *g, const int *x) { return reduce(g, EM_OP_REDUCEMIN, x[0], ax02, 2, 1, 0); }

/* ReduceMax over Concat(x, x): every maximum appears twice, each copy gets half of g, and
 * the two halves add up again in x (giving each copy all of g would double it). */
static int b_rmax_ties(em_graph *g, const int *x)
{
    int t = ag_op2(g, EM_OP_CONCAT, x[0], x[0]);
    ag_int(g, t, "axis", 1);
    return reduce(g, EM_OP_REDUCEMAX, t, ax1, 1, 0, 0);
}

static int b_softmax(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_SOFTMAX, x[0]);
    ag_int(g, y, "axis", 1);
    return y;
}

static int b_logsoftmax(em_graph *g, const int *x) { return ag_op1(g, EM_OP_LOGSOFTMAX, x[0]); }

static int b_instancenorm(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_INSTANCENORM, x, 3);
    ag_float(g, y, "epsilon", 0.01f);
    return y;
}

static int b_layernorm(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_LAYERNORM, x, 3);
    ag_int(g, y, "axis", 1);
    return y;
}

static const ag_case cases[] = {
    {"reducesum", F64, 1, {IN3(2, 3, 4)}, b_rsum, 0, 0, 0},
    {"reducesum keepdims", F64, 1, {IN3(2, 3, 2)}, b_rsum_keep, 0, 0, 0},
    {"reducesum all", F64, 1, {IN2(2, 3)}, b_rsum_all, 0, 0, 0},
    {"reducesum noop", F64, 1, {IN2(2, 3)}, b_rsum_noop, 0, 0, 0},
    {"reducesum symbolic", F64, 1, {SYM3(2, 3, 2)}, b_rsum, 0, 0, 0},
    {"reducemean", F64, 1, {IN3(2, 3, 2)}, b_rmean, 0, 0, 0},
    {"reducemean all", F64, 1, {IN2(3, 3)}, b_rmean_all, 0, 0, 0},
    {"reducemean symbolic", F64, 1, {SYM3(2, 3, 4)}, b_rmean, 0, 0, 0},
    {"reducesumsquare", F64, 1, {IN3(2, 3, 2)}, b_rsumsq, 0, 0, 0},
    {"reducel1", F64, 1, {IN3(2, 3, 2)}, b_rl1, 0, 0, 0},
    {"reducel2", F64, 1, {IN3(2, 3, 2)}, b_rl2, 0, 0, 0},
    {"reducelogsumexp", F64, 1, {IN3(2, 3, 2)}, b_rlse, 0, 0, 0},
    {"reducelogsum", F64, 1, {{2, {2, 3}, {2, 3}, AG_POS, false}}, b_rlogsum, 0, 0, 0},
    {"reducemax", F64, 1, {IN3(2, 4, 2)}, b_rmax, 0, 0, 0},
    {"reducemin", F64, 1, {IN3(2, 3, 2)}, b_rmin, 0, 0, 0},
    {"reducemax ties", F64, 1, {IN2(2, 3)}, b_rmax_ties, 0, 0, 0},
    {"softmax", F32, 1, {IN3(2, 3, 4)}, b_softmax, 0, 0, 0},
    {"logsoftmax", F64, 1, {IN3(2, 3, 4)}, b_logsoftmax, 0, 0, 0},
    {"topk", F64, 1, {IN3(2, 5, 2)}, b_topk, 0, 0, 0},
    {"cumsum", F64, 1, {IN2(2, 4)}, b_cumsum, 0, 0, 0},
    {"cumsum exclusive reverse", F64, 1, {IN3(2, 4, 2)}, b_cumsum_ex_rev, 0, 0, 0},
    {"instancenorm", F64, 3, {IN4(2, 3, 2, 2), IN1(3), IN1(3)}, b_instancenorm, 0, 0, 0},
    {"layernorm", F64, 3, {IN3(2, 3, 4), IN2(3, 4), IN1(4)}, b_layernorm, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
