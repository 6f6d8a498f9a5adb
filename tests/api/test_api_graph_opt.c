/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember_model_options_set_graph_optimization through ember.h only: NONE keeps the graph the
 * loader built (tests/data/onnx/cnn_v13.onnx: Conv, BatchNormalization, Relu, MaxPool,
 * GlobalAveragePool, Flatten, Gemm), BASIC and ALL fold Conv + BatchNormalization + Relu into
 * one FusedConv; every level gives onnx's reference output (cnn_v13.out0.npy, from numpy).
 */
#include "ember.h"

#include "common/test_alloc.h"

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
#include "common/test_model.h"

static const char *data_path(const char *rel, char *buf, size_t cap)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/%s", root ? root : "tests/data", rel);
    return buf;
}

/* Loads cnn_v13.onnx at `level`; NULL (the test skips) when this build has no ONNX loader. */
static ember_model *load_cnn(ember_graph_opt level)
{
    char path[4096];
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, test_allocator());
    OK(ember_model_options_set_graph_optimization(mo, level));
    ember_status *st = ember_model_load_file(data_path("onnx/cnn_v13.onnx", path, sizeof path),
                                             mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED) {
        ember_status_destroy(st);
        return NULL;
    }
    OK(st);
    return m;
}

/* Runs m on cnn_v13.in0.npy and compares with cnn_v13.out0.npy. */
static void expect_reference_output(const ember_model *m)
{
    char path[4096];
    ember_tensor *x = NULL, *want = NULL, *y = NULL;
    ember_session *s = NULL;
    OK(ember_tensor_load_npy(data_path("onnx/cnn_v13.in0.npy", path, sizeof path), &x));
    OK(ember_tensor_load_npy(data_path("onnx/cnn_v13.out0.npy", path, sizeof path), &want));
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_int_equal(ember_tensor_elem_count(y), ember_tensor_elem_count(want));
    const float *a = ember_tensor_data(y), *b = ember_tensor_data(want);
    for (int64_t i = 0; i < ember_tensor_elem_count(y); i++) {
        assert_true(fabsf(a[i] - b[i]) <= 1e-4f + 1e-4f * fabsf(b[i]));
    }
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_tensor_destroy(want);
    ember_tensor_destroy(x);
}

static void test_none_keeps_loaded_graph(void **state)
{
    (void)state;
    ember_model *m = load_cnn(EMBER_GRAPH_OPT_NONE);
    if (m == NULL) {
        skip();
    }
    assert_int_equal(ember_model_node_count(m), 7);
    assert_int_equal(tm_count_op(m, "Conv"), 1);
    assert_int_equal(tm_count_op(m, "BatchNormalization"), 1);
    assert_int_equal(tm_count_op(m, "Relu"), 1);
    assert_int_equal(tm_count_op(m, "FusedConv"), 0);
    expect_reference_output(m);
    ember_model_destroy(m);
}

static void test_basic_and_all_fuse(void **state)
{
    (void)state;
    const ember_graph_opt levels[] = {EMBER_GRAPH_OPT_BASIC, EMBER_GRAPH_OPT_ALL};
    for (size_t i = 0; i < 2; i++) {
        ember_model *m = load_cnn(levels[i]);
        if (m == NULL) {
            skip();
        }
        assert_int_equal(tm_count_op(m, "FusedConv"), 1);
        assert_int_equal(tm_count_op(m, "Conv"), 0);
        assert_int_equal(tm_count_op(m, "BatchNormalization"), 0);
        assert_int_equal(tm_count_op(m, "Relu"), 0);
        if (levels[i] == EMBER_GRAPH_OPT_BASIC) { /* no reorders without the layout pass */
            assert_int_equal(ember_model_node_count(m), 5);
        }
        expect_reference_output(m);
        ember_model_destroy(m);
    }
}

/* Without the option the level is ALL; the built-in model fuses too. */
static void test_default_is_all(void **state)
{
    (void)state;
    ember_model *m = NULL;
    OK(ember_model_load_builtin(NULL, NULL, &m));
    assert_int_equal(tm_count_op(m, "BatchNormalization"), 0);
    assert_true(tm_count_op(m, "FusedConv") >= 3);
    ember_model_destroy(m);
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    OK(ember_model_load_builtin(NULL, mo, &m));
    assert_int_equal(tm_count_op(m, "BatchNormalization"), 1);
    assert_int_equal(tm_count_op(m, "Conv"), 3);
    assert_int_equal(tm_count_op(m, "FusedConv"), 0);
    ember_model_destroy(m);
    ember_model_options_destroy(mo);
}

/* FOLD: constants folded, nothing fused, so every node stays a standard ONNX op. */
static void test_fold_keeps_standard_ops(void **state)
{
    (void)state;
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD));
    OK(ember_model_load_builtin(NULL, mo, &m));
    assert_int_equal(tm_count_op(m, "BatchNormalization"), 1);
    assert_int_equal(tm_count_op(m, "Conv"), 3);
    assert_int_equal(tm_count_op(m, "FusedConv"), 0);
    assert_int_equal(tm_count_op(m, "ReorderToBlocked"), 0);
    ember_model_destroy(m);
    ember_model_options_destroy(mo);
}

static void test_bad_level(void **state)
{
    (void)state;
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    ember_status *st = ember_model_options_set_graph_optimization(mo, (ember_graph_opt)4);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "unknown level"));
    ember_status_destroy(st);
    st = ember_model_options_set_graph_optimization(mo, (ember_graph_opt)-1);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = ember_model_options_set_graph_optimization(NULL, EMBER_GRAPH_OPT_ALL);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    ember_model_options_destroy(mo);
}

int main(void)
{
    _Static_assert(EMBER_GRAPH_OPT_NONE == 0 && EMBER_GRAPH_OPT_BASIC == 1 &&
                       EMBER_GRAPH_OPT_ALL == 2,
                   "ember_graph_opt values are ABI");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none_keeps_loaded_graph),
        cmocka_unit_test(test_basic_and_all_fuse),
        cmocka_unit_test(test_default_is_all),
        cmocka_unit_test(test_fold_keeps_standard_ops),
        cmocka_unit_test(test_bad_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
