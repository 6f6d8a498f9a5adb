/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/autograd.c and the builders (grad_build.c, grad_shape.c), whatever the
 * rules: gradients summed over several consumers and broadcasting undone over symbolic dims
 * (against central finite differences, test_autograd_util.h), the default seed (ones), zeros
 * for an x that y does not depend on, the errors for an op without a rule and for a bad spec,
 * and a failing allocation at every step of em_autograd. The rules are tested beside their
 * family's file (test_autograd_<family>.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F64 EMBER_DTYPE_F64
#define F32 EMBER_DTYPE_F32
/* An input of rank r: declared dims, run dims, kind. */
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}

static int b_add(em_graph *g, const int *x) { return ag_op2(g, EM_OP_ADD, x[0], x[1]); }
static int b_mul(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MUL, x[0], x[1]); }

/* Several consumers of one value: y = x * x + Exp(x) - x / (1 + x^2). */
static int b_fanout(em_graph *g, const int *x)
{
    const double one = 1.0;
    int x2 = ag_op2(g, EM_OP_MUL, x[0], x[0]);
    int d = ag_op2(g, EM_OP_ADD, ag_const(g, ag_dt(g), 0, NULL, &one), x2);
    int t = ag_op2(g, EM_OP_ADD, x2, ag_op1(g, EM_OP_EXP, x[0]));
    return ag_op2(g, EM_OP_SUB, t, ag_op2(g, EM_OP_DIV, x[0], d));
}

static const ag_case cases[] = {
    {"fan-out", F64, 1, {IN2(3, 3)}, b_fanout, 0, 0, 0},
    /* Symbolic dims: the broadcast axes are not known while building (split, then summed). */
    {"add symbolic broadcast", F64, 2,
     {{2, {-1, 3}, {4, 3}, AG_ANY, false}, {2, {-1, 3}, {1, 3}, AG_ANY, false}}, b_add, 0, 0, 0},
    {"mul symbolic both ways", F64, 2,
     {{3, {-1, -1, 2}, {1, 3, 2}, AG_ANY, false}, {2, {-1, 2}, {3, 2}, AG_ANY, false}}, b_mul, 0,
     0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 1000);
}

/* y = x0 * 3 with the default seed: dy/dx0 = 3 everywhere; x1 is not used: zeros. */
static void test_default_seed_and_unused(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    const int64_t d[2] = {2, 3};
    const double three = 3.0;
    int x0, x1, dxs[2];
    OK(em_graph_add_input(m->g, "x0", F32, 2, d, NULL, &x0));
    OK(em_graph_add_input(m->g, "x1", F32, 2, d, NULL, &x1));
    int y = ag_op2(m->g, EM_OP_MUL, x0, ag_const(m->g, F32, 0, NULL, &three));
    const int xs[2] = {x0, x1};
    em_autograd_spec spec = {y, -1, 2, xs, "d"};
    OK(em_autograd(m->g, &spec, dxs));
    OK(em_graph_mark_output(m->g, dxs[0]));
    OK(em_graph_mark_output(m->g, dxs[1]));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
    ember_tensor *in[2], *out[2] = {NULL, NULL};
    OK(ember_tensor_wrap(F32, d, 2, a, sizeof a, &in[0]));
    OK(ember_tensor_wrap(F32, d, 2, b, sizeof b, &in[1]));
    OK(ember_session_run(s, in, 2, out, 2));
    for (int i = 0; i < 6; i++) {
        assert_float_equal(((const float *)ember_tensor_data(out[0]))[i], 3.0f, 0.0f);
        assert_float_equal(((const float *)ember_tensor_data(out[1]))[i], 0.0f, 0.0f);
    }
    ag_free_outs(out, 2);
    ember_tensor_destroy(in[0]);
    ember_tensor_destroy(in[1]);
    ember_session_destroy(s);
    /* New names carry the prefix; a second call picks another one. */
    assert_non_null(strstr(m->g->values[dxs[1]].name, "d/"));
    int again[2];
    OK(em_autograd(m->g, &spec, again));
    assert_non_null(strstr(m->g->values[again[1]].name, "d.1/"));
    ember_model_destroy(m);
}

static void expect_error(ember_status *st, ember_code code, const char *part1, const char *part2)
{
    assert_non_null(st);
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strstr(msg, part1) == NULL ||
        (part2 != NULL && strstr(msg, part2) == NULL)) {
        fail_msg("unexpected error: %s", msg);
    }
    ember_status_destroy(st);
}

/* An op without a rule on the path is an error naming the node and the op; off the path (a
 * constant branch) it costs nothing. */
static void test_no_rule(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    const int64_t d[2] = {2, 3}, axes[1] = {1};
    const double k[3] = {1, 2, 3};
    int x, dx;
    OK(em_graph_add_input(m->g, "x", F32, 2, d, NULL, &x));
    int off = ag_op2(m->g, EM_OP_REDUCEPROD, ag_const(m->g, F32, 2, (int64_t[]){1, 3}, k),
                     ag_i64(m->g, axes, 1));
    int y = ag_op2(m->g, EM_OP_MUL, x, off);
    em_autograd_spec spec = {y, -1, 1, &x, NULL};
    OK(em_autograd(m->g, &spec, &dx));
    int r = ag_op2(m->g, EM_OP_REDUCEPROD, y, ag_i64(m->g, axes, 1));
    char want[64];
    snprintf(want, sizeof want, "node '%s' (ReduceProd)", m->g->nodes[ag_prod(m->g, r)].name);
    spec.y = ag_op2(m->g, EM_OP_MUL, r, r);
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_UNSUPPORTED, want,
                 "no gradient rule for ReduceProd");
    ember_model_destroy(m);
}

/* A spec naming integer values or out-of-range indices is refused. */
static void test_bad_spec(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    const int64_t d[1] = {3};
    int x, n, dx;
    OK(em_graph_add_input(m->g, "x", F32, 1, d, NULL, &x));
    OK(em_graph_add_input(m->g, "n", EMBER_DTYPE_I64, 1, d, NULL, &n));
    int y = ag_op1(m->g, EM_OP_SHAPE, x);
    em_autograd_spec spec = {y, -1, 1, &x, NULL};
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_INVALID_ARG, "not a floating-point",
                 NULL);
    spec.y = x;
    spec.xs = &n;
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_INVALID_ARG, "'n' is i64", NULL);
    spec.y = m->g->n_values;
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_INVALID_ARG, "bad y", NULL);
    /* dy/dy is the seed. */
    spec.y = x;
    spec.xs = &x;
    OK(em_autograd(m->g, &spec, &dx));
    ember_model_destroy(m);
}

/* A small CNN with a loss, built on allocator al: X -> Conv -> BatchNorm -> Relu -> MaxPool ->
 * Flatten -> Gemm -> SoftmaxCrossEntropyLoss. xs[4]: X, the conv weight, the BN scale and
 * the Gemm weight. */
static em_graph *small_cnn(const ember_allocator *al, int *y, int *xs)
{
    em_graph *g = NULL;
    static const float zeros[3 * 3 * 3 * 3 * 4];
    const int64_t xd[4] = {2, 3, 6, 6}, wd[4] = {4, 3, 3, 3}, cd[1] = {4}, gd[2] = {36, 5};
    const int64_t labels[2] = {1, 4}, ld[1] = {2};
    const int64_t pads[4] = {1, 1, 1, 1}, k[2] = {2, 2};
    int bn_in[5], t;
    OK(em_graph_new(al, &g));
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &xs[0]));
    OK(em_graph_add_initializer_copy(g, "w", F32, 4, wd, zeros, &xs[1]));
    int c = ag_op2(g, EM_OP_CONV, xs[0], xs[1]);
    ag_ints(g, c, "pads", pads, 4);
    bn_in[0] = c;
    for (int i = 1; i < 5; i++) {
        char name[8] = {'b', 'n', (char)('0' + i), 0};
        OK(em_graph_add_initializer_copy(g, name, F32, 1, cd, zeros, &bn_in[i]));
    }
    xs[2] = bn_in[1];
    int r = ag_op1(g, EM_OP_RELU, ag_node(g, EM_OP_BATCHNORM, bn_in, 5));
    int p = ag_op1(g, EM_OP_MAXPOOL, r);
    ag_ints(g, p, "kernel_shape", k, 2);
    ag_ints(g, p, "strides", k, 2);
    OK(em_graph_add_initializer_copy(g, "wg", F32, 2, gd, zeros, &xs[3]));
    int logits = ag_op2(g, EM_OP_GEMM, ag_op1(g, EM_OP_FLATTEN, p), xs[3]);
    OK(em_graph_add_initializer_copy(g, "labels", EMBER_DTYPE_I64, 1, ld, labels, &t));
    *y = ag_op2(g, EM_OP_SCELOSS, logits, t);
    return g;
}

/* Failing each allocation em_autograd makes, in turn, gives OUT_OF_MEMORY and leaks nothing
 * (the graph, with whatever was added, is destroyed cleanly). */
static void test_oom_sweep(void **state)
{
    (void)state;
    counting_alloc ca;
    int y, xs[4], dxs[4];
    counting_alloc_init(&ca);
    em_graph *g = small_cnn(&ca.al, &y, xs);
    long base = ca.n_alloc;
    em_autograd_spec spec = {y, -1, 4, xs, NULL};
    OK(em_autograd(g, &spec, dxs));
    long n = ca.n_alloc - base;
    em_graph_destroy(g);
    assert_int_equal(ca.live, 0);
    for (long i = 1; i <= n; i++) {
        counting_alloc_init(&ca);
        g = small_cnn(&ca.al, &y, xs);
        ca.fail_at = ca.n_alloc + i;
        spec.y = y;
        ember_status *st = em_autograd(g, &spec, dxs);
        if (ember_status_code(st) != EMBER_ERR_OUT_OF_MEMORY) {
            fail_msg("failing allocation %ld of %ld: %s", i, n,
                     st != NULL ? ember_status_message(st) : "no error");
        }
        ember_status_destroy(st);
        em_graph_destroy(g);
        if (ca.live != 0) {
            fail_msg("failing allocation %ld of %ld: %ld leaked", i, n, (long)ca.live);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_default_seed_and_unused),
        cmocka_unit_test(test_no_rule),
        cmocka_unit_test(test_bad_spec),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
