/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX Runtime's com.microsoft quantization ops that the ONNX loader expands
 * (loaders/onnx/onnx_msquant.c: DynamicQuantizeMatMul, MatMulIntegerToFloat) or maps to the
 * default domain (QuantizeLinear, DequantizeLinear), on tests/data/qdq/ms_*.onnx
 * (tools/gen_msquant_fixtures.py: outputs by the ops' definitions, computed in numpy with exact
 * integer products). Each model runs with the int8 rewrite off and on; the integer outputs must
 * be equal, the float ones within 2 ulp of the reference (the float steps are the reference's:
 * one multiply by the product of the scales, then the bias; a pass may fuse them into one
 * rounding).
 */
#include "ember.h"

#include "common/test_alloc.h"
#include "common/test_data.h"

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

/* qdq/<name>.onnx with int8 mode `mode`; skips without an ONNX loader. */
static ember_model *load(const char *name, ember_int8_mode mode)
{
    char rel[256];
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, test_allocator());
    OK(ember_model_options_set_int8(mo, mode));
    snprintf(rel, sizeof rel, "%s.onnx", name);
    ember_status *st = ember_model_load_file(test_data_path("qdq/", rel), mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL && strstr(ember_build_info(), ",onnx") == NULL) {
        ember_status_destroy(st); /* a build without the ONNX loader */
        skip();
    }
    OK(st);
    return m;
}

static ember_tensor *load_npy(const char *name, const char *kind, int i)
{
    char rel[256];
    ember_tensor *t = NULL;
    snprintf(rel, sizeof rel, "%s.%s%d.npy", name, kind, i);
    OK(ember_tensor_load_npy(test_data_path("qdq/", rel), &t));
    return t;
}

static void expect_equal(const char *what, ember_tensor *got, ember_tensor *want)
{
    assert_int_equal(ember_tensor_dtype(got), ember_tensor_dtype(want));
    assert_int_equal(ember_tensor_elem_count(got), ember_tensor_elem_count(want));
    const void *a = ember_tensor_data(got), *b = ember_tensor_data(want);
    int64_t n = ember_tensor_elem_count(got);
    if (ember_tensor_dtype(got) != EMBER_DTYPE_F32) {
        if (memcmp(a, b, ember_tensor_nbytes(got)) != 0) {
            fail_msg("%s: integer output differs from the reference", what);
        }
        return;
    }
    const float *x = a, *y = b;
    for (int64_t i = 0; i < n; i++) {
        float tol = 2.0f * (nextafterf(fabsf(y[i]), INFINITY) - fabsf(y[i]));
        if (!(fabsf(x[i] - y[i]) <= tol)) {
            fail_msg("%s[%lld]: %.9g, reference %.9g", what, (long long)i, x[i], y[i]);
        }
    }
}

/* Runs qdq/<name>.onnx (n_in inputs, n_out outputs) in both int8 modes against the reference
 * outputs. */
static void check(const char *name, int n_in, int n_out)
{
    static const ember_int8_mode modes[2] = {EMBER_INT8_OFF, EMBER_INT8_ON};
    ember_tensor *in[4] = {0}, *out[4] = {0}, *want[4] = {0};
    for (int i = 0; i < n_in; i++) {
        in[i] = load_npy(name, "in", i);
    }
    for (int i = 0; i < n_out; i++) {
        want[i] = load_npy(name, "out", i);
    }
    for (int k = 0; k < 2; k++) {
        ember_model *m = load(name, modes[k]);
        ember_session *s = NULL;
        OK(ember_session_create(m, NULL, &s));
        OK(ember_session_run(s, in, (size_t)n_in, out, (size_t)n_out));
        for (int i = 0; i < n_out; i++) {
            char what[128];
            snprintf(what, sizeof what, "%s int8 %s out%d", name, k ? "on" : "off", i);
            expect_equal(what, out[i], want[i]);
            ember_tensor_destroy(out[i]);
            out[i] = NULL;
        }
        ember_session_destroy(s);
        ember_model_destroy(m);
    }
    for (int i = 0; i < 4; i++) {
        ember_tensor_destroy(in[i]);
        ember_tensor_destroy(want[i]);
    }
}

static void test_dynamic_quantize_matmul(void **state)
{
    (void)state;
    check("ms_dqmm", 1, 3);
}

static void test_matmul_integer_to_float(void **state)
{
    (void)state;
    check("ms_mmitf", 2, 2);
}

static void test_quantize_dequantize(void **state)
{
    (void)state;
    check("ms_qdq", 1, 4);
}

static void expect_refused(const char *name, const char *node, const char *needle)
{
    char rel[256];
    ember_model *m = NULL;
    snprintf(rel, sizeof rel, "%s.onnx", name);
    ember_status *st = ember_model_load_file(test_data_path("qdq/", rel), NULL, &m);
    if (st == NULL) {
        ember_model_destroy(m);
        fail_msg("%s loaded", name);
    }
    const char *msg = ember_status_message(st);
    if (strstr(ember_build_info(), ",onnx") == NULL) {
        ember_status_destroy(st);
        skip();
    }
    if (strstr(msg, node) == NULL || strstr(msg, needle) == NULL) {
        fail_msg("%s: message lacks '%s' / '%s': %s", name, node, needle, msg);
    }
    ember_status_destroy(st);
}

static void test_bad(void **state)
{
    (void)state;
    expect_refused("ms_bad_float_b", "dqmm_float_b", "B");
    expect_refused("ms_bad_a_scale", "mmitf_a_scale", "a_scale must be a scalar");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_quantize_matmul),
        cmocka_unit_test(test_matmul_integer_to_float),
        cmocka_unit_test(test_quantize_dequantize),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
