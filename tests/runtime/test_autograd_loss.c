/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/grad_rules_loss.c: SoftmaxCrossEntropyLoss (with its log_prob output) and
 * NegativeLogLikelihoodLoss against central finite differences (test_autograd_util.h), with
 * class weights, ignore_index and each reduction.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}
#define IN3(a, b, c) {3, {a, b, c}, {a, b, c}, AG_ANY, false}

/* A loss over x [N, C, d..] with int64 targets t (the ints given), optional weights. */
static int loss(em_graph *g, em_op op, int x, const int64_t *t, int rank, const int64_t *td,
                bool weights, const char *red, int64_t ignore, int n_out)
{
    const double w[4] = {0.5, 2.0, 1.0, 1.5};
    const char *outs[2] = {"loss", "log_prob"};
    int tv, ni;
    OK(em_graph_add_initializer_copy(g, "target", EMBER_DTYPE_I64, rank, td, t, &tv));
    const int in[3] = {x, tv, weights ? ag_const(g, ag_dt(g), 1, (int64_t[]){4}, w) : -1};
    OK(em_graph_add_node(g, op, "loss", in, weights ? 3 : 2, outs, n_out, &ni));
    OK(em_node_set_string(g, ni, "reduction", red));
    if (ignore != 99) {
        OK(em_node_set_int(g, ni, "ignore_index", ignore));
    }
    if (n_out == 2) { /* y = log_prob + loss, so that both outputs carry a gradient */
        const int64_t one = 1;
        int l = ag_op2(g, EM_OP_UNSQUEEZE, g->nodes[ni].out[0], ag_i64(g, &one, 1));
        return ag_op2(g, EM_OP_ADD, g->nodes[ni].out[1], l);
    }
    return g->nodes[ni].out[0];
}

static const int64_t t3[3] = {2, 0, 3}, t22[4] = {1, 3, -1, 0};

static int b_sce_mean(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t3, 1, (int64_t[]){3}, false, "mean", 99, 1);
}

static int b_sce_weighted(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t22, 2, (int64_t[]){2, 2}, true, "mean", -1, 1);
}

static int b_sce_none_logprob(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t22, 2, (int64_t[]){2, 2}, false, "none", -1, 2);
}

static int b_sce_sum(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t3, 1, (int64_t[]){3}, true, "sum", 0, 1);
}

static int b_nll_mean(em_graph *g, const int *x)
{
    return loss(g, EM_OP_NLLLOSS, x[0], t22, 2, (int64_t[]){2, 2}, true, "mean", -1, 1);
}

static int b_nll_none(em_graph *g, const int *x)
{
    return loss(g, EM_OP_NLLLOSS, x[0], t3, 1, (int64_t[]){3}, false, "none", 99, 1);
}

static const ag_case cases[] = {
    {"sce mean", F32, 1, {IN2(3, 4)}, b_sce_mean, 0, 0, 0},
    {"sce weighted ignore", F32, 1, {IN3(2, 4, 2)}, b_sce_weighted, 0, 0, 0},
    {"sce none log_prob", F32, 1, {IN3(2, 4, 2)}, b_sce_none_logprob, 0, 0, 0},
    {"sce sum", F32, 1, {IN2(3, 4)}, b_sce_sum, 0, 0, 0},
    {"nll mean weighted", F64, 1, {IN3(2, 4, 2)}, b_nll_mean, 0, 0, 0},
    {"nll none", F64, 1, {IN2(3, 4)}, b_nll_none, 0, 0, 0},
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
