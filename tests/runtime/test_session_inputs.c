/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember_session_run with many inputs (runtime/api/session.c): up to 64 on the stack, more in
 * one allocation, at most EM_SESSION_MAX_INPUTS (4096; a trainer binds every parameter as an
 * input, so mobilenet_v2 trained whole has 150). A graph of n f32 [3] inputs summed by a chain
 * of Adds, run with n = 1, 64, 65, 150 and 1000 (each input i holds i + 0.25 k, k = 0..2):
 * the output is the exact sum; twice on one session (the second run reuses the plan); a
 * wrong count is INVALID_ARG; 4097 inputs are UNSUPPORTED, naming the limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include <stdio.h>
#include <string.h>

static ember_model *sum_model(int n)
{
    ember_model *m = ag_model();
    const int64_t d[1] = {3};
    int acc = -1;
    for (int i = 0; i < n; i++) {
        char name[32];
        int x;
        snprintf(name, sizeof name, "x%d", i);
        OK(em_graph_add_input(m->g, name, EMBER_DTYPE_F32, 1, d, NULL, &x));
        if (acc < 0) {
            acc = x;
        } else {
            snprintf(name, sizeof name, "s%d", i);
            acc = tp_op2(m->g, EM_OP_ADD, acc, x, name);
        }
    }
    if (n == 1) {
        acc = tp_op2(m->g, EM_OP_IDENTITY, acc, -1, "s");
    }
    OK(em_graph_mark_output(m->g, acc));
    OK(em_graph_verify(m->g));
    OK(em_graph_infer_shapes(m->g));
    return m;
}

static void run_sum(int n)
{
    ember_model *m = sum_model(n);
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    ember_tensor **in = test_calloc((size_t)n, sizeof *in);
    float *buf = test_malloc(sizeof(float) * 3 * (size_t)n);
    const int64_t d[1] = {3};
    double want[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            buf[3 * i + k] = (float)i + 0.25f * (float)k;
            want[k] += buf[3 * i + k];
        }
        OK(ember_tensor_wrap(EMBER_DTYPE_F32, d, 1, buf + 3 * i, sizeof(float) * 3, &in[i]));
    }
    for (int rep = 0; rep < 2; rep++) {
        ember_tensor *out = NULL;
        OK(ember_session_run(s, in, (size_t)n, &out, 1));
        const float *y = ember_tensor_data(out);
        for (int k = 0; k < 3; k++) {
            assert_float_equal(y[k], want[k], 0.0); /* integers and quarters: exact */
        }
        ember_tensor_destroy(out);
    }
    if (n > 1) { /* one input short */
        ember_tensor *out = NULL;
        ember_status *st = ember_session_run(s, in, (size_t)n - 1, &out, 1);
        assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
        ember_status_destroy(st);
        assert_null(out);
    }
    for (int i = 0; i < n; i++) {
        ember_tensor_destroy(in[i]);
    }
    test_free(in);
    test_free(buf);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_many_inputs(void **state)
{
    (void)state;
    static const int counts[] = {1, 64, 65, 150, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        run_sum(counts[i]);
    }
}

static void test_too_many_inputs(void **state)
{
    (void)state;
    const int n = 4097;
    ember_model *m = sum_model(n);
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    ember_tensor **in = test_calloc((size_t)n, sizeof *in);
    const int64_t d[1] = {3};
    static float zero[3];
    for (int i = 0; i < n; i++) {
        OK(ember_tensor_wrap(EMBER_DTYPE_F32, d, 1, zero, sizeof zero, &in[i]));
    }
    ember_tensor *out = NULL;
    ember_status *st = ember_session_run(s, in, (size_t)n, &out, 1);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "at most 4096"));
    ember_status_destroy(st);
    for (int i = 0; i < n; i++) {
        ember_tensor_destroy(in[i]);
    }
    test_free(in);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_inputs),
        cmocka_unit_test(test_too_many_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
