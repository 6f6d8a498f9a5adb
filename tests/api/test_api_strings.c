/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors in ember.h: EMBER_DTYPE_STRING's size and name, ember_tensor_create_strings
 * (copies, NULL entries as "", empty tensors, argument errors), ember_tensor_string (ranges,
 * other dtypes), ember_tensor_create giving empty strings, wrapping caller arrays, sequences
 * of strings owning copies, and .npy files written and read back (multi-byte text, empty
 * strings, text that is not UTF-8 refused).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/test_ok.h"
#include "ember.h"

static void test_dtype(void **state)
{
    (void)state;
    assert_int_equal(EMBER_DTYPE_STRING, 8);
    assert_int_equal(ember_dtype_size(EMBER_DTYPE_STRING), sizeof(const char *));
    assert_string_equal(ember_dtype_name(EMBER_DTYPE_STRING), "string");
}

static void test_create(void **state)
{
    (void)state;
    char buf[8] = "mutable";
    const char *src[4] = {"a", NULL, "", buf};
    int64_t dims[2] = {2, 2};
    ember_tensor *t = NULL;
    OK(ember_tensor_create_strings(dims, 2, src, &t));
    strcpy(buf, "changed"); /* the tensor holds a copy */
    assert_int_equal(ember_tensor_dtype(t), EMBER_DTYPE_STRING);
    assert_int_equal(ember_tensor_nbytes(t), 4 * sizeof(char *));
    assert_string_equal(ember_tensor_string(t, 0), "a");
    assert_string_equal(ember_tensor_string(t, 1), "");
    assert_string_equal(ember_tensor_string(t, 2), "");
    assert_string_equal(ember_tensor_string(t, 3), "mutable");
    assert_null(ember_tensor_string(t, 4));
    assert_null(ember_tensor_string(t, -1));
    assert_null(ember_tensor_string(NULL, 0));
    const char *const *raw = ember_tensor_data(t);
    assert_string_equal(raw[3], "mutable");
    ember_tensor_destroy(t);

    int64_t zero = 0;
    OK(ember_tensor_create_strings(&zero, 1, NULL, &t));
    assert_int_equal(ember_tensor_elem_count(t), 0);
    ember_tensor_destroy(t);
    OK(ember_tensor_create_strings(NULL, 0, (const char *[]){"\xe4\xb8\xad"}, &t));
    assert_string_equal(ember_tensor_string(t, 0), "\xe4\xb8\xad");
    ember_tensor_destroy(t);

    ember_status *st = ember_tensor_create_strings(dims, 2, NULL, &t);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_null(t);
    ember_status_destroy(st);
    st = ember_tensor_create_strings(dims, -1, src, &t);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = ember_tensor_create_strings(dims, 2, src, NULL);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
}

static void test_create_wrap_and_others(void **state)
{
    (void)state;
    int64_t n = 3;
    ember_tensor *t = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_STRING, &n, 1, &t)); /* zeroed: empty strings */
    for (int64_t i = 0; i < n; i++) {
        assert_string_equal(ember_tensor_string(t, i), "");
    }
    ember_tensor_destroy(t);
    const char *mine[3] = {"x", "y", NULL};
    OK(ember_tensor_wrap(EMBER_DTYPE_STRING, &n, 1, mine, sizeof mine, &t));
    assert_ptr_equal(ember_tensor_string(t, 0), mine[0]);
    assert_string_equal(ember_tensor_string(t, 2), "");
    ember_tensor_destroy(t);
    float f[3] = {0};
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, &n, 1, f, sizeof f, &t));
    assert_null(ember_tensor_string(t, 0));
    ember_tensor_destroy(t);
}

static void test_sequence(void **state)
{
    (void)state;
    int64_t n = 2;
    ember_tensor *items[2] = {NULL}, *seq = NULL;
    OK(ember_tensor_create_strings(&n, 1, (const char *[]){"p", "q"}, &items[0]));
    OK(ember_tensor_create_strings(&n, 1, (const char *[]){"", "\xc3\xa9"}, &items[1]));
    OK(ember_sequence_create(EMBER_DTYPE_STRING, items, 2, &seq));
    ember_tensor_destroy(items[0]);
    ember_tensor_destroy(items[1]);
    assert_int_equal(ember_sequence_length(seq), 2);
    assert_string_equal(ember_tensor_string(ember_sequence_item(seq, 0), 1), "q");
    assert_string_equal(ember_tensor_string(ember_sequence_item(seq, 1), 1), "\xc3\xa9");
    ember_tensor_destroy(seq);
}

static void test_npy_roundtrip(void **state)
{
    (void)state;
    char path[] = "/tmp/ember_test_strings_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    int64_t dims[2] = {2, 2};
    const char *src[4] = {"\xe4\xb8\xad\xe6\x96\x87", "", "abc", "\xf0\x9f\x98\x80!"};
    ember_tensor *t = NULL, *back = NULL;
    OK(ember_tensor_create_strings(dims, 2, src, &t));
    OK(ember_tensor_save_npy(t, path));
    OK(ember_tensor_load_npy(path, &back));
    assert_int_equal(ember_tensor_rank(back), 2);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(ember_tensor_string(back, i), src[i]);
    }
    ember_tensor_destroy(back);
    ember_tensor_destroy(t);
    /* Text that is not UTF-8 has no numpy unicode form. */
    const char *bad[1] = {"a\xff"};
    int64_t one = 1;
    OK(ember_tensor_create_strings(&one, 1, bad, &t));
    ember_status *st = ember_tensor_save_npy(t, path);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "not valid UTF-8"));
    ember_status_destroy(st);
    ember_tensor_destroy(t);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype),
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_create_wrap_and_others),
        cmocka_unit_test(test_sequence),
        cmocka_unit_test(test_npy_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
