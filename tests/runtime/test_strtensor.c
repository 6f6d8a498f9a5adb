/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/strtensor.c: packed string storages (NULL and empty elements, explicit lengths with
 * bytes past them, no elements), keeping bytes alive (a copy outlives its source; keeping is
 * flattened one level deep and never duplicated), kernel output arenas (many small strings
 * and one larger than a chunk, the first recorded error winning, out of memory through a
 * failing allocator, finish resetting the arena), and UTF-8 decoding and encoding at every
 * length boundary, overlong forms, surrogates and truncation. Every allocation goes through
 * the test allocator, so a leak or a use after free fails (the latter under ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "core/status.h"
#include "core/strtensor.h"

static void test_pack(void **state)
{
    (void)state;
    const char *src[4] = {"abc", NULL, "", "\xc3\xa9t\xc3\xa9"};
    em_storage *s = NULL;
    OK(em_str_pack(test_allocator(), src, NULL, 4, &s));
    const char *const *p = em_storage_data(s);
    const char *base = em_storage_data(s);
    for (int i = 0; i < 4; i++) { /* the bytes live in the storage itself */
        assert_true(p[i] >= base && p[i] < base + em_storage_size(s));
    }
    assert_string_equal(p[0], "abc");
    assert_string_equal(p[1], "");
    assert_string_equal(p[2], "");
    assert_string_equal(p[3], "\xc3\xa9t\xc3\xa9");
    em_storage_release(s);
    /* Lengths: bytes past them are not copied, and the copy is NUL-terminated. */
    const char *raw[2] = {"hello", "xyz"};
    const size_t lens[2] = {2, 0};
    OK(em_str_pack(test_allocator(), raw, lens, 2, &s));
    p = em_storage_data(s);
    assert_string_equal(p[0], "he");
    assert_string_equal(p[1], "");
    em_storage_release(s);
    OK(em_str_pack(test_allocator(), NULL, NULL, 0, &s));
    em_storage_release(s);
}

static void test_keep(void **state)
{
    (void)state;
    const char *src[2] = {"one", "two"};
    em_storage *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    OK(em_str_pack(test_allocator(), src, NULL, 2, &a));
    OK(em_storage_new_owned(test_allocator(), 2 * sizeof(char *), &b));
    memcpy(em_storage_data(b), em_storage_data(a), 2 * sizeof(char *)); /* a copy: pointers */
    OK(em_str_keep_bytes(b, a));
    OK(em_str_keep_bytes(b, a)); /* once only */
    assert_int_equal(em_storage_kept_count(b), 1);
    em_storage_release(a); /* b keeps a's bytes */
    const char *const *pb = em_storage_data(b);
    assert_string_equal(pb[1], "two");
    /* A copy of the copy keeps what b keeps, not b. */
    OK(em_storage_new_owned(test_allocator(), sizeof(char *), &c));
    memcpy(em_storage_data(c), pb, sizeof(char *));
    OK(em_str_keep_bytes(c, b));
    assert_int_equal(em_storage_kept_count(c), 1);
    assert_ptr_not_equal(em_storage_kept(c, 0), b);
    em_storage_release(b);
    assert_string_equal(*(const char *const *)em_storage_data(c), "one");
    OK(em_str_keep_bytes(c, c)); /* itself: nothing */
    OK(em_str_keep_bytes(c, NULL));
    assert_int_equal(em_storage_kept_count(c), 1);
    assert_null(em_storage_kept(c, 1));
    OK(em_str_pack(test_allocator(), src, NULL, 1, &d));
    OK(em_str_keep_bytes(c, d));
    assert_int_equal(em_storage_kept_count(c), 2);
    em_storage_release(d);
    em_storage_release(c);
}

static void test_arena(void **state)
{
    (void)state;
    em_tensor t = {0};
    em_storage *s = NULL;
    int64_t dims[1] = {3000};
    em_tensor_set_shape(&t, EMBER_DTYPE_STRING, dims, 1);
    OK(em_str_out_new(test_allocator(), &t, &s));
    const char **y = t.data;
    assert_string_equal(em_str_at(&t, 5), ""); /* zeroed: empty strings */
    char big[40000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (int i = 0; i < 3000; i++) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "s%d", i);
        y[i] = i == 1234 ? em_str_dup(&t, big, strlen(big)) : em_str_dup(&t, buf, (size_t)n);
    }
    char *raw = em_str_alloc(&t, 3);
    memcpy(raw, "abc", 3);
    assert_string_equal(raw, "abc");
    em_str_fail(&t, "first %d", 1);
    em_str_fail(&t, "second");
    ember_status *st = em_str_out_finish(s, &t, "node 'n' (Op)");
    assert_non_null(st);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "node 'n' (Op): first 1"));
    ember_status_destroy(st);
    assert_true(em_storage_kept_count(s) >= 2); /* the big string needed its own chunk */
    assert_string_equal(y[2999], "s2999");
    assert_int_equal(strlen(y[1234]), sizeof big - 1);
    OK(em_str_out_finish(s, &t, "again")); /* the arena is empty and the error cleared */
    em_storage_release(s);
}

static void test_arena_oom(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    em_tensor t = {0};
    em_storage *s = NULL;
    int64_t dims[1] = {2};
    em_tensor_set_shape(&t, EMBER_DTYPE_STRING, dims, 1);
    OK(em_str_out_new(&ca.al, &t, &s));
    ca.fail_at = (long)atomic_load(&ca.n_alloc) + 1; /* the next allocation fails */
    assert_null(em_str_alloc(&t, 10));
    assert_string_equal(em_str_dup(&t, "abc", 3), ""); /* stays failed */
    ember_status *st = em_str_out_finish(s, &t, "oom");
    assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
    ember_status_destroy(st);
    em_storage_release(s);
    assert_int_equal(atomic_load(&ca.live), 0);
}

static void test_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int len;
        uint32_t cp;
    } good[] = {{"\x7f", 1, 0x7f},         {"\xc2\x80", 2, 0x80},
                {"\xdf\xbf", 2, 0x7ff},    {"\xe0\xa0\x80", 3, 0x800},
                {"\xed\x9f\xbf", 3, 0xd7ff}, {"\xee\x80\x80", 3, 0xe000},
                {"\xef\xbf\xbf", 3, 0xffff}, {"\xf0\x90\x80\x80", 4, 0x10000},
                {"\xf4\x8f\xbf\xbf", 4, 0x10ffff}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint32_t cp = 0;
        char out[4];
        const char *s = good[i].s;
        assert_int_equal(em_utf8_decode(s, s + strlen(s), &cp), good[i].len);
        assert_int_equal(cp, good[i].cp);
        assert_int_equal(em_utf8_encode(good[i].cp, out), good[i].len);
        assert_memory_equal(out, s, (size_t)good[i].len);
    }
    static const char *const bad[] = {"\x80", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80",
                                      "\xed\xa0\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80",
                                      "\xf8\x88\x80\x80\x80", "\xc3", "\xe4\xb8", "\xc3\x28"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t cp = 0;
        assert_int_equal(em_utf8_decode(bad[i], bad[i] + strlen(bad[i]), &cp), 0);
    }
    char out[4];
    assert_int_equal(em_utf8_encode(0xd800, out), 0);
    assert_int_equal(em_utf8_encode(0x110000, out), 0);
    size_t at = 99;
    assert_true(em_utf8_valid("a\xc3\xa9" "b", 4, &at));
    assert_int_equal(at, 99);
    assert_false(em_utf8_valid("ab\xc3\xa9\xff", 5, &at));
    assert_int_equal(at, 4);
    assert_true(em_utf8_valid("", 0, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack),  cmocka_unit_test(test_keep),
        cmocka_unit_test(test_arena), cmocka_unit_test(test_arena_oom),
        cmocka_unit_test(test_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
