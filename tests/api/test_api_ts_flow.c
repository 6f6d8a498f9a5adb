/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript control flow that depends on tensor data (issue #4: "keep control flow that
 * depends on tensor data as If/Loop nodes with subgraphs"), through the public API: the
 * scripted fixtures of tests/data/torchscript/flow (tools/gen_ts_flow_fixtures.py), saved by
 * PyTorch 1.13 (t113) and 2.x (t2), each run on two inputs of different shapes chosen so that
 * every branch is taken by one of them, and compared with PyTorch eager's outputs (every
 * output, dtype and shape; rtol 1e-4, atol 1e-5). A graph folded at load time could not give
 * both inputs' results; the tests also check that the If and Loop nodes are there. And the
 * loops ember refuses: a clear error naming what is unsupported, with the line of serialized
 * code and a caret.
 */
#include "ember.h"
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/test_ok.h"
#include "common/test_data.h"
#include "common/test_ts.h"

#define MAX_OUTPUTS 8

static const char *const tags[] = {"t113", "t2"};

#define data_path(rel) test_data_path("torchscript/flow/", rel)

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        fclose(f);
    }
    return f != NULL;
}

static void compare(const char *what, int k, ember_tensor *y, ember_tensor *want)
{
    assert_int_equal(ember_tensor_dtype(y), ember_tensor_dtype(want));
    assert_int_equal(ember_tensor_rank(y), ember_tensor_rank(want));
    for (int d = 0; d < ember_tensor_rank(y); d++) {
        assert_int_equal(ember_tensor_dims(y)[d], ember_tensor_dims(want)[d]);
    }
    int64_t n = ember_tensor_elem_count(want);
    if (ember_tensor_dtype(want) == EMBER_DTYPE_I64) {
        const int64_t *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
        for (int64_t i = 0; i < n; i++) {
            if (got[i] != ref[i]) {
                fail_msg("%s: output %d element %lld is %lld, PyTorch gives %lld", what, k,
                         (long long)i, (long long)got[i], (long long)ref[i]);
            }
        }
        return;
    }
    assert_int_equal(ember_tensor_dtype(want), EMBER_DTYPE_F32);
    const float *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
    for (int64_t i = 0; i < n; i++) {
        if (!(fabs((double)got[i] - ref[i]) <= 1e-5 + 1e-4 * fabs((double)ref[i]))) {
            fail_msg("%s: output %d element %lld is %.8g, PyTorch gives %.8g", what, k,
                     (long long)i, (double)got[i], (double)ref[i]);
        }
    }
}

/* Runs `model` on <name>.in<sfx>.npy; compares every output with <name>.out<sfx>_<k>.npy. */
static void check_case(const char *model, const char *name, const char *sfx)
{
    char file[128], what[256];
    ember_tensor *x = NULL, *ys[MAX_OUTPUTS] = {NULL};
    ember_model *m = NULL;
    ember_session *s = NULL;
    snprintf(file, sizeof file, "%s.in%s.npy", name, sfx);
    snprintf(what, sizeof what, "%s on %s", model, file);
    OK(ember_tensor_load(data_path(file), &x));
    ember_dtype dt_ = ember_tensor_dtype(x);
    int rank_ = ember_tensor_rank(x);
    ember_status *st = ts_test_try_load(data_path(model), &dt_, &rank_, 1, &m);
    if (st != NULL) {
        fail_msg("%s: %s", model, ember_status_message(st));
    }
    size_t n_out = ember_model_output_count(m);
    assert_true(n_out >= 1 && n_out <= MAX_OUTPUTS);
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, ys, n_out));
    for (size_t k = 0; k < n_out; k++) {
        ember_tensor *want = NULL;
        snprintf(file, sizeof file, "%s.out%s_%zu.npy", name, sfx, k);
        OK(ember_tensor_load(data_path(file), &want));
        compare(what, (int)k, ys[k], want);
        ember_tensor_destroy(want);
        ember_tensor_destroy(ys[k]);
    }
    snprintf(file, sizeof file, "%s.out%s_%zu.npy", name, sfx, n_out);
    assert_false(file_exists(data_path(file))); /* PyTorch gave no more outputs */
    ember_session_destroy(s);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
}

/* How many top-level nodes of the lowered graph run op `op`. */
static size_t count_op(const char *model, int rank, const char *op)
{
    ember_model *m = NULL;
    ember_dtype dt_ = EMBER_DTYPE_F32;
    int rank_ = rank;
    ember_status *st = ts_test_try_load(data_path(model), &dt_, &rank_, 1, &m);
    if (st != NULL) {
        fail_msg("%s: %s", model, ember_status_message(st));
    }
    size_t n = 0;
    for (size_t i = 0; i < ember_model_node_count(m); i++) {
        n += strcmp(ember_model_node_op(m, i), op) == 0;
    }
    ember_model_destroy(m);
    return n;
}

/* A scripted fixture: its archives <name>.script.<tag>.pt run on the inputs of <data>, and
 * how many top-level If and Loop nodes they lower to (nodes in bodies are not counted). */
typedef struct flow_case {
    const char *name, *data;
    int rank;
    size_t n_if, n_loop;
} flow_case;

static const flow_case cases[] = {
    /* `if` on data, taken for one input and not the other; an int assigned in both branches
     * becomes a dynamic scalar. */
    {"flow_if", "flow_if", 2, 1, 0},
    /* The same written as conditional expressions (`a if c else b`). */
    {"flow_ifexp", "flow_if", 2, 2, 0},
    /* An RNN cell over the run-time sequence length with an `if` inside. */
    {"flow_loop", "flow_loop", 3, 0, 1},
    /* `while` on data: the second input runs no iteration; the counted int is an output. */
    {"flow_while", "flow_while", 2, 0, 1},
    /* Nested ifs in a loop, an int carried through them, the counter used as a number. */
    {"flow_nested", "flow_nested", 2, 0, 1},
    /* Lists appended in a loop: stacked, concatenated, measured, indexed after it. */
    {"flow_stack", "flow_stack", 3, 0, 1},
    /* range(lo, hi, step) and a reversed range on symbolic sizes (one runs no iteration for
     * the second input), a tuple carried through a loop, `for row in x`. */
    {"flow_range", "flow_range", 2, 1, 3},
    /* Optional[Tensor] arguments and `is` checks fold at load time. */
    {"flow_optional", "flow_optional", 2, 0, 0},
};

static void test_case(void **state)
{
    const flow_case *fc = *state;
    for (int t = 0; t < 2; t++) {
        char model[128];
        snprintf(model, sizeof model, "%s.script.%s.pt", fc->name, tags[t]);
        check_case(model, fc->data, "");
        check_case(model, fc->data, "2");
        size_t n_if = count_op(model, fc->rank, "If"), n_loop = count_op(model, fc->rank, "Loop");
        if (n_if != fc->n_if || n_loop != fc->n_loop) {
            fail_msg("%s: %zu If and %zu Loop nodes, expected %zu and %zu", model, n_if, n_loop,
                     fc->n_if, fc->n_loop);
        }
    }
}

static void expect_error(const char *name, const char *needle, const char *line)
{
    for (int t = 0; t < 2; t++) {
        char model[128];
        ember_model *m = NULL;
        snprintf(model, sizeof model, "%s.script.%s.pt", name, tags[t]);
        ember_dtype dt_ = EMBER_DTYPE_F32;
        int rank_ = 2;
        ember_status *st = ts_test_try_load(data_path(model), &dt_, &rank_, 1, &m);
        if (st == NULL) {
            ember_model_destroy(m);
            fail_msg("%s: loaded, expected an error containing '%s'", model, needle);
        }
        const char *msg = ember_status_message(st);
        if (ember_status_code(st) != EMBER_ERR_UNSUPPORTED || strstr(msg, needle) == NULL ||
            strstr(msg, line) == NULL || strchr(msg, '^') == NULL ||
            strstr(msg, ".py:") == NULL) {
            fail_msg("%s: expected UNSUPPORTED with '%s' at '%s', got %s: %s", model, needle,
                     line, ember_code_name(ember_status_code(st)), msg);
        }
        ember_status_destroy(st);
        assert_null(m);
    }
}

/* A loop on data that reads the list it appends to, and one that appends under an `if` on
 * data: refused, pointing at the line. */
static void test_errors(void **state)
{
    (void)state;
    expect_error("flow_err_read", "can only be appended to", "outs[-1]");
    expect_error("flow_err_cond_append", "appended to inside an `if` on tensor data",
                 "if bool(_0):");
}

int main(void)
{
    enum { N_CASES = sizeof cases / sizeof cases[0] };
    struct CMUnitTest tests[N_CASES + 1];
    for (size_t i = 0; i < N_CASES; i++) {
        tests[i] = (struct CMUnitTest){cases[i].name, test_case, NULL, NULL, (void *)&cases[i]};
    }
    tests[N_CASES] = (struct CMUnitTest){"errors", test_errors, NULL, NULL, NULL};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
