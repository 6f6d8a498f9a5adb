/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/status.c: status objects carry a code and a formatted message; NULL is success
 * ("ok"); em_status_wrap prefixes the message and keeps the code; the out-of-memory status
 * is one static object that destroy ignores (so reporting OOM never allocates); every
 * ember_code has a name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/status.h"

static void test_null_is_ok(void **state)
{
    (void)state;
    assert_int_equal(ember_status_code(NULL), EMBER_OK);
    assert_string_equal(ember_status_message(NULL), "ok");
    ember_status_destroy(NULL); /* a no-op */
}

static void test_new_code_and_message(void **state)
{
    (void)state;
    static const ember_code codes[] = {EMBER_ERR_INVALID_ARG, EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_UNSUPPORTED, EMBER_ERR_OUT_OF_MEMORY,
                                       EMBER_ERR_IO,          EMBER_ERR_DEVICE,
                                       EMBER_ERR_STATE,       EMBER_ERR_INTERNAL};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        ember_status *st = em_status_new(codes[i], "node '%s': %d of %zu", "conv_3", 7, i);
        assert_non_null(st);
        assert_int_equal(ember_status_code(st), codes[i]);
        char want[64];
        snprintf(want, sizeof want, "node 'conv_3': 7 of %zu", i);
        assert_string_equal(ember_status_message(st), want);
        ember_status_destroy(st);
    }
}

/* Messages are not cut at any internal buffer size. */
static void test_long_message(void **state)
{
    (void)state;
    char big[3000];
    for (size_t i = 0; i < sizeof big - 1; i++) {
        big[i] = (char)('a' + i % 26);
    }
    big[sizeof big - 1] = '\0';
    ember_status *st = em_status_new(EMBER_ERR_IO, "<%s>", big);
    const char *m = ember_status_message(st);
    assert_int_equal(strlen(m), strlen(big) + 2);
    assert_int_equal(m[0], '<');
    assert_memory_equal(m + 1, big, strlen(big));
    assert_int_equal(m[strlen(big) + 1], '>');
    ember_status_destroy(st);

    st = em_status_new(EMBER_ERR_IO, "%s", "");
    assert_string_equal(ember_status_message(st), "");
    assert_int_equal(ember_status_code(st), EMBER_ERR_IO);
    ember_status_destroy(st);
}

static ember_status *vnew_helper(ember_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ember_status *st = em_status_vnew(code, fmt, ap);
    va_end(ap);
    return st;
}

static void test_vnew(void **state)
{
    (void)state;
    ember_status *st = vnew_helper(EMBER_ERR_STATE, "%s=%lld", "x", (long long)-42);
    assert_int_equal(ember_status_code(st), EMBER_ERR_STATE);
    assert_string_equal(ember_status_message(st), "x=-42");
    ember_status_destroy(st);
}

static void test_wrap_prefixes_and_keeps_code(void **state)
{
    (void)state;
    ember_status *st = em_status_new(EMBER_ERR_UNSUPPORTED, "dtype %s", "f16");
    st = em_status_wrap(st, "node '%s' (%s)", "gemm_1", "Gemm");
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_string_equal(ember_status_message(st), "node 'gemm_1' (Gemm): dtype f16");
    /* Wrapping twice nests the prefixes, outermost first. */
    st = em_status_wrap(st, "model '%s'", "m.onnx");
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_string_equal(ember_status_message(st),
                        "model 'm.onnx': node 'gemm_1' (Gemm): dtype f16");
    ember_status_destroy(st);

    /* Success stays success. */
    assert_null(em_status_wrap(NULL, "prefix %d", 1));
}

static void test_oom_is_static(void **state)
{
    (void)state;
    ember_status *a = em_status_oom();
    ember_status *b = em_status_oom();
    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_int_equal(ember_status_code(a), EMBER_ERR_OUT_OF_MEMORY);
    assert_string_equal(ember_status_message(a), "out of memory");
    /* destroy ignores it: destroying many times must neither crash nor change it. */
    for (int i = 0; i < 3; i++) {
        ember_status_destroy(a);
    }
    assert_int_equal(ember_status_code(em_status_oom()), EMBER_ERR_OUT_OF_MEMORY);
    assert_string_equal(ember_status_message(em_status_oom()), "out of memory");
    /* Wrapping OOM returns the same static object (a wrap would have to allocate). */
    ember_status *w = em_status_wrap(a, "while loading '%s'", "x");
    assert_ptr_equal(w, a);
    assert_string_equal(ember_status_message(w), "out of memory");
}

static void test_code_names(void **state)
{
    (void)state;
    static const struct {
        ember_code code;
        const char *name;
    } names[] = {
        {EMBER_OK, "OK"},
        {EMBER_ERR_INVALID_ARG, "INVALID_ARG"},
        {EMBER_ERR_INVALID_MODEL, "INVALID_MODEL"},
        {EMBER_ERR_UNSUPPORTED, "UNSUPPORTED"},
        {EMBER_ERR_OUT_OF_MEMORY, "OUT_OF_MEMORY"},
        {EMBER_ERR_IO, "IO"},
        {EMBER_ERR_DEVICE, "DEVICE"},
        {EMBER_ERR_STATE, "STATE"},
        {EMBER_ERR_INTERNAL, "INTERNAL"},
    };
    /* The public enum is contiguous 0..8: every value has a row above. */
    assert_int_equal(sizeof names / sizeof names[0], EMBER_ERR_INTERNAL + 1);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal(names[i].code, (int)i);
        assert_string_equal(ember_code_name(names[i].code), names[i].name);
    }
    assert_string_equal(ember_code_name((ember_code)99), "UNKNOWN");
    assert_string_equal(ember_code_name((ember_code)-1), "UNKNOWN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_is_ok),
        cmocka_unit_test(test_new_code_and_message),
        cmocka_unit_test(test_long_message),
        cmocka_unit_test(test_vnew),
        cmocka_unit_test(test_wrap_prefixes_and_keeps_code),
        cmocka_unit_test(test_oom_is_static),
        cmocka_unit_test(test_code_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
