/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors through the ONNX loader and ember.h: the text.onnx fixture of
 * tools/gen_string_fixtures.py (string inputs from .pb string_data and from numpy '<U' files, a
 * string_data initializer, Constant value_string / value_strings, StringConcat,
 * StringNormalizer, Cast both ways, Concat) against its expected .npy outputs; outputs that
 * outlive the session and the model; bound output slots refilled by a second run; malformed
 * string tensors in models and in .pb files; an allocation-failure sweep over load, session and
 * run. Models use test_allocator() or a counting allocator, so leaks fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "ember.h"

static const char *data_path(const char *dir, const char *file)
{
    static char buf[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s/%s", root != NULL ? root : "tests/data", dir, file);
    return buf;
}

static void expect_strings(const ember_tensor *t, const char *const *want, int64_t n)
{
    assert_int_equal(ember_tensor_dtype(t), EMBER_DTYPE_STRING);
    assert_int_equal(ember_tensor_elem_count(t), n);
    for (int64_t i = 0; i < n; i++) {
        const char *got = ember_tensor_string(t, i);
        if (got == NULL || strcmp(got, want[i]) != 0) {
            fail_msg("element %lld is \"%s\", expected \"%s\"", (long long)i,
                     got != NULL ? got : "(null)", want[i]);
        }
    }
    assert_null(ember_tensor_string(t, n));
}

/* Output k equals text.out<k>.npy exactly. */
static void expect_like_file(const ember_tensor *got, int k)
{
    char name[32];
    ember_tensor *want = NULL;
    snprintf(name, sizeof name, "text.out%d.npy", k);
    OK(ember_tensor_load_npy(data_path("onnx", name), &want));
    assert_int_equal(ember_tensor_dtype(got), ember_tensor_dtype(want));
    assert_int_equal(ember_tensor_rank(got), ember_tensor_rank(want));
    int64_t n = ember_tensor_elem_count(want);
    assert_int_equal(ember_tensor_elem_count(got), n);
    for (int64_t i = 0; i < n; i++) {
        if (ember_tensor_dtype(want) == EMBER_DTYPE_STRING) {
            assert_string_equal(ember_tensor_string(got, i), ember_tensor_string(want, i));
        } else {
            float a = ((const float *)ember_tensor_data((ember_tensor *)got))[i];
            float b = ((const float *)ember_tensor_data(want))[i];
            assert_memory_equal(&a, &b, sizeof a);
        }
    }
    ember_tensor_destroy(want);
}

static void test_text_model(void **state)
{
    (void)state;
    ember_model_options *o = NULL;
    ember_model *m = NULL;
    ember_session *s = NULL;
    ember_tensor *in[2] = {NULL}, *out[5] = {NULL}, *first[5] = {NULL};
    OK(ember_model_options_create(&o));
    ember_model_options_set_allocator(o, test_allocator());
    OK(ember_model_load_file(data_path("onnx", "text.onnx"), o, &m));
    assert_int_equal(ember_model_input_dtype(m, 0), EMBER_DTYPE_STRING);
    assert_int_equal(ember_model_output_dtype(m, 2), EMBER_DTYPE_F32);
    OK(ember_session_create(m, NULL, &s));
    OK(ember_tensor_load(data_path("onnx", "text.in0.pb"), &in[0]));
    OK(ember_tensor_load(data_path("onnx", "text.in1.npy"), &in[1]));
    OK(ember_session_run(s, in, 2, first, 5));
    for (int k = 0; k < 5; k++) {
        expect_like_file(first[k], k);
    }
    /* Bound slots of the right shapes take a second run's strings. */
    const char *x2[3] = {"a", "SKIP", ""}, *n2[2] = {" 2e3 ", "nan"};
    int64_t d3 = 3, d2 = 2, d5 = 5;
    ember_tensor_destroy(in[0]);
    ember_tensor_destroy(in[1]);
    OK(ember_tensor_create_strings(&d3, 1, x2, &in[0]));
    OK(ember_tensor_create_strings(&d2, 1, n2, &in[1]));
    OK(ember_tensor_create(EMBER_DTYPE_STRING, &d3, 1, &out[0]));
    OK(ember_tensor_create(EMBER_DTYPE_STRING, &d2, 1, &out[1]));
    OK(ember_tensor_create(EMBER_DTYPE_F32, &d2, 1, &out[2]));
    OK(ember_tensor_create(EMBER_DTYPE_STRING, &d2, 1, &out[3]));
    OK(ember_tensor_create(EMBER_DTYPE_STRING, &d5, 1, &out[4]));
    OK(ember_session_run(s, in, 2, out, 5));
    ember_session_destroy(s);
    ember_model_destroy(m); /* outputs own their strings */
    for (int i = 0; i < 2; i++) {
        ember_tensor_destroy(in[i]);
    }
    expect_strings(out[0], (const char *const[]){"a=!", "SKIP=!", "=!"}, 3);
    expect_strings(out[1], (const char *const[]){"A", ""}, 2); /* "" is no stopword */
    expect_strings(out[3], (const char *const[]){"2000.0", "nan"}, 2);
    expect_strings(out[4], (const char *const[]){"<", ">", "a", "SKIP", ""}, 5);
    expect_like_file(first[0], 0); /* the first run's outputs are untouched */
    for (int k = 0; k < 5; k++) {
        ember_tensor_destroy(out[k]);
        ember_tensor_destroy(first[k]);
    }
    ember_model_options_destroy(o);
}

static void test_bad_strings(void **state)
{
    (void)state;
    static const struct {
        const char *file, *needle;
    } bad[] = {{"string_count.onnx", "tensor 's': has 1 strings, its dims [2] need 2"},
               {"string_raw.onnx", "keeps its data in string_data"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ember_model *m = NULL;
        ember_status *st = ember_model_load_file(data_path("onnx_bad", bad[i].file), NULL, &m);
        assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
        if (strstr(ember_status_message(st), bad[i].needle) == NULL) {
            fail_msg("%s: %s", bad[i].file, ember_status_message(st));
        }
        ember_status_destroy(st);
        assert_null(m);
    }
    /* A TensorProto: dims [2], data_type 8, one string "a". */
    static const unsigned char pb[] = {0x08, 0x02, 0x10, 0x08, 0x32, 0x01, 'a'};
    ember_tensor *t = NULL;
    ember_status *st = ember_tensor_load_pb_memory(pb, sizeof pb, "short.pb", &t);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(st), "has 1 strings"));
    ember_status_destroy(st);
    /* dims [2], two strings "a" and "" (an empty bytes entry). */
    static const unsigned char ok[] = {0x08, 0x02, 0x10, 0x08, 0x32, 0x01, 'a', 0x32, 0x00};
    OK(ember_tensor_load_pb_memory(ok, sizeof ok, "ok.pb", &t));
    expect_strings(t, (const char *const[]){"a", ""}, 2);
    ember_tensor_destroy(t);
}

static void test_pb_files(void **state)
{
    (void)state;
    ember_tensor *a = NULL, *b = NULL;
    OK(ember_tensor_load_pb(data_path("onnx", "text.in0.pb"), &a));
    OK(ember_value_load_pb(data_path("onnx", "text.in0.pb"), EMBER_TYPE_TENSOR, &b));
    const char *want[3] = {"\xc3\xa9", "Skip", "\xe4\xb8\xad\xe6\x96\x87"};
    expect_strings(a, want, 3);
    expect_strings(b, want, 3);
    ember_tensor_destroy(a);
    ember_tensor_destroy(b);
}

/* Load, session and run of text.onnx with allocation i failing, for every i until all
 * succeed: each failure is OUT_OF_MEMORY and leaves nothing allocated. */
static void test_oom_sweep(void **state)
{
    (void)state;
    ember_tensor *in[2] = {NULL};
    ember_model_options *o = NULL;
    counting_alloc ca;
    OK(ember_tensor_load(data_path("onnx", "text.in0.pb"), &in[0]));
    OK(ember_tensor_load(data_path("onnx", "text.in1.pb"), &in[1]));
    OK(ember_model_options_create(&o));
    for (long i = 1;; i++) {
        ember_model *m = NULL;
        ember_session *s = NULL;
        ember_tensor *out[5] = {NULL};
        counting_alloc_init(&ca);
        ca.fail_at = i;
        ember_model_options_set_allocator(o, &ca.al); /* the model's, its sessions' and runs' */
        ember_status *st = ember_model_load_file(data_path("onnx", "text.onnx"), o, &m);
        if (st == NULL) {
            st = ember_session_create(m, NULL, &s);
        }
        if (st == NULL) {
            st = ember_session_run(s, in, 2, out, 5);
        }
        for (int k = 0; k < 5; k++) {
            ember_tensor_destroy(out[k]);
        }
        ember_session_destroy(s);
        ember_model_destroy(m);
        if (atomic_load(&ca.live) != 0) {
            fail_msg("allocation %ld failed, %ld allocations leaked", i, (long)atomic_load(&ca.live));
        }
        if (st == NULL) {
            assert_true(i > 20);
            break;
        }
        if (ember_status_code(st) != EMBER_ERR_OUT_OF_MEMORY) {
            fail_msg("allocation %ld: %s", i, ember_status_message(st));
        }
        ember_status_destroy(st);
    }
    ember_model_options_destroy(o);
    ember_tensor_destroy(in[0]);
    ember_tensor_destroy(in[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_model),
        cmocka_unit_test(test_bad_strings),
        cmocka_unit_test(test_pb_files),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
