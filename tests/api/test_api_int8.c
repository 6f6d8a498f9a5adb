/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember_model_options_set_int8 and ember_model_int8_note through ember.h only, on the fixtures
 * of tools/gen_qdq_fixtures.py (a small CNN quantized by ONNX Runtime's quantize_static):
 * small_qdq.onnx (QDQ format) with EMBER_INT8_ON runs every chain as an integer op (QLinearConv,
 * QLinearAdd, QLinearSigmoid, QLinearLeakyRelu, QLinearMul, QLinearConcat, QLinearAveragePool,
 * QLinearGlobalAveragePool, QGemm, MaxPool and Flatten on the 8-bit values), says so in its
 * notes, and gives ONNX Runtime's output of the unoptimised QDQ graph (ONNX's semantics) within
 * one output step; OFF and AUTO (today: off) keep the float ops and give no notes.
 * small_qop.onnx (QOperator format: com.microsoft QLinearAdd, QGemm, ...) loads and gives the
 * same output within one step (ORT's own QOperator kernels are two steps away from ONNX's
 * semantics on this input, by their float and table shortcuts). Bad modes are INVALID_ARG.
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

/* y's scale in small_qdq.onnx (printed by the generator's model): one output step. */
#define Y_STEP 0.0382015f

static const char *data_path(const char *rel, char *buf, size_t cap)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/%s", root ? root : "tests/data", rel);
    return buf;
}

/* Loads qdq/<name> with int8 mode `mode`; NULL (the test skips) without an ONNX loader. */
static ember_model *load(const char *name, ember_int8_mode mode)
{
    char rel[256], path[4096];
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, test_allocator());
    OK(ember_model_options_set_int8(mo, mode));
    snprintf(rel, sizeof rel, "qdq/%s", name);
    ember_status *st = ember_model_load_file(data_path(rel, path, sizeof path), mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED) {
        ember_status_destroy(st);
        return NULL;
    }
    OK(st);
    return m;
}

/* Runs m on small.in0.npy; the largest difference from `ref` (a .npy under qdq/). */
static float max_diff(const ember_model *m, const char *ref)
{
    char path[4096], rel[256];
    ember_tensor *x = NULL, *want = NULL, *y = NULL;
    ember_session *s = NULL;
    snprintf(rel, sizeof rel, "qdq/%s", ref);
    OK(ember_tensor_load_npy(data_path("qdq/small.in0.npy", path, sizeof path), &x));
    OK(ember_tensor_load_npy(data_path(rel, path, sizeof path), &want));
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_int_equal(ember_tensor_elem_count(y), ember_tensor_elem_count(want));
    const float *a = ember_tensor_data(y), *b = ember_tensor_data(want);
    float d = 0.0f;
    for (int64_t i = 0; i < ember_tensor_elem_count(y); i++) {
        d = fabsf(a[i] - b[i]) > d ? fabsf(a[i] - b[i]) : d;
    }
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_tensor_destroy(want);
    ember_tensor_destroy(x);
    return d;
}

static void test_int8_on(void **state)
{
    (void)state;
    ember_model *m = load("small_qdq.onnx", EMBER_INT8_ON);
    if (m == NULL) {
        skip();
    }
    static const char *const int8_ops[] = {
        "QLinearConv",       "QLinearAdd",      "QLinearSigmoid",     "QLinearLeakyRelu",
        "QLinearMul",        "QLinearConcat",   "QLinearAveragePool", "QLinearGlobalAveragePool",
        "QGemm"};
    for (size_t i = 0; i < sizeof int8_ops / sizeof int8_ops[0]; i++) {
        if (tm_count_op(m, int8_ops[i]) < 1) {
            fail_msg("no %s node", int8_ops[i]);
        }
    }
    static const char *const float_ops[] = {"Conv", "Add", "Sigmoid", "LeakyRelu", "Mul",
                                            "Concat", "AveragePool", "GlobalAveragePool", "Gemm"};
    for (size_t i = 0; i < sizeof float_ops / sizeof float_ops[0]; i++) {
        assert_int_equal(tm_count_op(m, float_ops[i]), 0);
    }
    /* every chain noted as int8, in graph order, each with its op */
    size_t n = ember_model_int8_note_count(m);
    assert_true(n >= 13);
    bool maxpool = false;
    for (size_t i = 0; i < n; i++) {
        const char *node = NULL, *op = NULL, *why = "unset";
        assert_true(ember_model_int8_note(m, i, &node, &op, &why));
        assert_non_null(node);
        assert_non_null(op);
        assert_null(why);
        maxpool = maxpool || strcmp(op, "MaxPool (int8)") == 0;
    }
    assert_true(maxpool);
    assert_false(ember_model_int8_note(m, n, NULL, NULL, NULL));
    float d = max_diff(m, "small_qdq.out0.npy");
    if (!(d <= 1.001f * Y_STEP)) {
        fail_msg("int8 output differs from ORT's QDQ graph by %g (step %g)", (double)d,
                 (double)Y_STEP);
    }
    ember_model_destroy(m);
}

static void test_int8_off_and_auto(void **state)
{
    (void)state;
    const ember_int8_mode modes[2] = {EMBER_INT8_OFF, EMBER_INT8_AUTO};
    for (int i = 0; i < 2; i++) {
        ember_model *m = load("small_qdq.onnx", modes[i]);
        if (m == NULL) {
            skip();
        }
        assert_int_equal(ember_model_int8_note_count(m), 0);
        assert_int_equal(tm_count_op(m, "QLinearAdd"), 0);
        assert_true(tm_count_op(m, "Add") + tm_count_op(m, "FusedConv") >= 1);
        assert_true(max_diff(m, "small_qdq.out0.npy") <= 1.001f * Y_STEP);
        ember_model_destroy(m);
    }
}

/* The QOperator file: com.microsoft ops as ORT's quantizer writes them. */
static void test_qoperator_model(void **state)
{
    (void)state;
    ember_model *m = load("small_qop.onnx", EMBER_INT8_AUTO);
    if (m == NULL) {
        skip();
    }
    assert_true(tm_count_op(m, "QLinearAdd") == 1 && tm_count_op(m, "QGemm") == 1 &&
                tm_count_op(m, "QLinearConcat") == 1);
    float d = max_diff(m, "small_qdq.out0.npy");
    if (!(d <= 1.001f * Y_STEP)) {
        fail_msg("QOperator output differs from ONNX's semantics by %g (step %g)", (double)d,
                 (double)Y_STEP);
    }
    assert_true(max_diff(m, "small_qop.out0.npy") <= 2.001f * Y_STEP);
    ember_model_destroy(m);
}

static void test_bad_mode(void **state)
{
    (void)state;
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    ember_status *st = ember_model_options_set_int8(mo, (ember_int8_mode)3);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "unknown mode 3"));
    ember_status_destroy(st);
    st = ember_model_options_set_int8(NULL, EMBER_INT8_ON);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    ember_model_options_destroy(mo);
    assert_int_equal(ember_model_int8_note_count(NULL), 0);
    assert_false(ember_model_int8_note(NULL, 0, NULL, NULL, NULL));
}

int main(void)
{
    _Static_assert(EMBER_INT8_AUTO == 0 && EMBER_INT8_ON == 1 && EMBER_INT8_OFF == 2,
                   "ember_int8_mode values are ABI");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8_on),
        cmocka_unit_test(test_int8_off_and_auto),
        cmocka_unit_test(test_qoperator_model),
        cmocka_unit_test(test_bad_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
