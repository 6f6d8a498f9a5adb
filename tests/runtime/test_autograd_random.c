/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/grad_rules_random.c: Dropout. In inference it passes the gradient on
 * (against central finite differences, test_autograd_util.h); in training it is random, so it is
 * checked by its defining property (dx = g * mask / (1 - ratio)) instead.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F32 EMBER_DTYPE_F32
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}

static int b_dropout_inference(em_graph *g, const int *x)
{
    const double r = 0.3;
    const int in[2] = {x[0], ag_const(g, F32, 0, NULL, &r)};
    return ag_op2(g, EM_OP_MUL, ag_node(g, EM_OP_DROPOUT, in, 2), x[0]);
}

static const ag_case cases[] = {
    {"dropout inference", F32, 1, {IN2(3, 4)}, b_dropout_inference, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 3000);
}

/* Dropout in training: with the default seed, dx = mask / (1 - ratio) where the mask (added
 * to the node by autodiff) holds the kept elements: dx = y / x elementwise. training_mode is
 * a constant true, or a run-time input (given true, then false: then dx = 1). */
static void dropout_case(bool runtime_flag)
{
    ember_model *m = ag_model();
    const int64_t d[2] = {4, 8};
    const double ratio = 0.25;
    const unsigned char yes = 1;
    int x, t, dx;
    OK(em_graph_add_input(m->g, "x", F32, 2, d, NULL, &x));
    if (runtime_flag) {
        OK(em_graph_add_input(m->g, "t", EMBER_DTYPE_BOOL, 0, NULL, NULL, &t));
    } else {
        OK(em_graph_add_initializer_copy(m->g, "t", EMBER_DTYPE_BOOL, 0, NULL, &yes, &t));
    }
    const int in[3] = {x, ag_const(m->g, F32, 0, NULL, &ratio), t};
    int y = ag_node(m->g, EM_OP_DROPOUT, in, 3);
    em_autograd_spec spec = {y, -1, 1, &x, NULL};
    OK(em_autograd(m->g, &spec, &dx));
    assert_int_equal(m->g->nodes[ag_prod(m->g, y)].n_out, 2);
    OK(em_graph_mark_output(m->g, y));
    OK(em_graph_mark_output(m->g, dx));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    float xv[32];
    unsigned char flag = 1;
    for (int i = 0; i < 32; i++) {
        xv[i] = 0.5f + (float)i;
    }
    ember_tensor *tin[2], *out[2] = {NULL, NULL};
    OK(ember_tensor_wrap(F32, d, 2, xv, sizeof xv, &tin[0]));
    OK(ember_tensor_wrap(EMBER_DTYPE_BOOL, NULL, 0, &flag, 1, &tin[1]));
    for (int pass = 0; pass < (runtime_flag ? 2 : 1); pass++) {
        flag = pass == 0;
        OK(ember_session_run(s, tin, runtime_flag ? 2 : 1, out, 2));
        const float *yv = ember_tensor_data(out[0]), *dv = ember_tensor_data(out[1]);
        int kept = 0;
        for (int i = 0; i < 32; i++) {
            assert_true(fabsf(dv[i] - yv[i] / xv[i]) <= 1e-6f);
            assert_true(dv[i] == 0.0f || fabsf(dv[i] - (flag ? 1.0f / 0.75f : 1.0f)) <= 1e-6f);
            kept += dv[i] != 0.0f;
        }
        assert_true(kept > 0 && (kept < 32) == (flag != 0));
        ag_free_outs(out, 2);
    }
    ember_tensor_destroy(tin[0]);
    ember_tensor_destroy(tin[1]);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_dropout_training(void **state)
{
    (void)state;
    dropout_case(false);
    dropout_case(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_dropout_training),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
