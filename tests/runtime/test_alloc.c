/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/alloc.c: checked size arithmetic at the overflow edges; aligned allocations are
 * EM_ALIGN-aligned with sizes rounded up to EM_ALIGN (and an impossible size is refused
 * before the allocator is called); every wrapper routes to the user allocator when one is
 * given and to libc when it is NULL; em_strbuf grows across many printf calls and hands its
 * text over with em_strbuf_take.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/test_alloc.h"

static void test_size_mul(void **state)
{
    (void)state;
    size_t r = 12345;
    assert_true(em_size_mul(0, SIZE_MAX, &r) && r == 0);
    assert_true(em_size_mul(SIZE_MAX, 0, &r) && r == 0);
    assert_true(em_size_mul(SIZE_MAX, 1, &r) && r == SIZE_MAX);
    assert_true(em_size_mul(1, SIZE_MAX, &r) && r == SIZE_MAX);
    assert_true(em_size_mul(6, 7, &r) && r == 42);
    /* SIZE_MAX = 2^w - 1 is odd; (SIZE_MAX / 2) * 2 = SIZE_MAX - 1 fits, one more does not. */
    assert_true(em_size_mul(SIZE_MAX / 2, 2, &r) && r == SIZE_MAX - 1);
    assert_false(em_size_mul(SIZE_MAX / 2 + 1, 2, &r));
    assert_false(em_size_mul(2, SIZE_MAX / 2 + 1, &r));
    assert_false(em_size_mul(SIZE_MAX, SIZE_MAX, &r));
    /* 2^(w/2) squared is 2^w: just past the end. */
    size_t half = (size_t)1 << (sizeof(size_t) * 4);
    assert_false(em_size_mul(half, half, &r));
    assert_true(em_size_mul(half - 1, half + 1, &r) && r == SIZE_MAX); /* 2^w - 1 */
    /* SIZE_MAX = 3 * 5 * 17 * 257 * ... : an exact product to the last unit. */
    assert_true(em_size_mul(SIZE_MAX / 3, 3, &r) && r == SIZE_MAX);
    assert_false(em_size_mul(SIZE_MAX / 3 + 1, 3, &r));
}

static void test_size_add(void **state)
{
    (void)state;
    size_t r = 0;
    assert_true(em_size_add(SIZE_MAX, 0, &r) && r == SIZE_MAX);
    assert_true(em_size_add(0, SIZE_MAX, &r) && r == SIZE_MAX);
    assert_true(em_size_add(SIZE_MAX - 5, 5, &r) && r == SIZE_MAX);
    assert_false(em_size_add(SIZE_MAX - 5, 6, &r));
    assert_false(em_size_add(SIZE_MAX, 1, &r));
    assert_false(em_size_add(1, SIZE_MAX, &r));
    assert_false(em_size_add(SIZE_MAX, SIZE_MAX, &r));
    assert_true(em_size_add(SIZE_MAX / 2, SIZE_MAX / 2 + 1, &r) && r == SIZE_MAX);
    assert_true(em_size_add(0, 0, &r) && r == 0);
}

static void test_align_up(void **state)
{
    (void)state;
    for (size_t n = 0; n < 1000; n++) {
        size_t a = em_align_up(n, 64);
        assert_true(a % 64 == 0);
        assert_true(a >= n && a - n < 64);
    }
}

/* An allocator that records the last aligned request and serves it from libc. */
typedef struct rec_alloc {
    ember_allocator al;
    int n_aligned;
    size_t last_align, last_size;
} rec_alloc;

static void *rec_aligned(void *ctx, size_t align, size_t n)
{
    rec_alloc *r = ctx;
    r->n_aligned++;
    r->last_align = align;
    r->last_size = n;
    void *p = NULL;
    return posix_memalign(&p, align, n) == 0 ? p : NULL;
}

static void rec_aligned_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void test_aligned_alloc_alignment_and_rounding(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, 4096, 100003};
    rec_alloc r;
    memset(&r, 0, sizeof r);
    r.al.ctx = &r;
    r.al.aligned_alloc = rec_aligned;
    r.al.aligned_free = rec_aligned_free;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        /* Expected request: the next multiple of 64 at or above max(n, 1). */
        size_t want = ((n == 0 ? 1 : n) + 63) / 64 * 64;
        int before = r.n_aligned;
        unsigned char *p = em_aligned_alloc(&r.al, n);
        assert_non_null(p);
        assert_int_equal(r.n_aligned, before + 1);
        assert_int_equal(r.last_align, EM_ALIGN);
        assert_int_equal(r.last_size, want);
        assert_int_equal((uintptr_t)p % EM_ALIGN, 0);
        memset(p, 0xab, want); /* the whole rounded size is usable (ASan checks) */
        em_aligned_free(&r.al, p);

        /* libc path (NULL allocator) and the cmocka-tracked one. */
        p = em_aligned_alloc(NULL, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % EM_ALIGN, 0);
        memset(p, 0xcd, want);
        em_aligned_free(NULL, p);
        p = em_aligned_alloc(test_allocator(), n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % EM_ALIGN, 0);
        memset(p, 0xef, want);
        em_aligned_free(test_allocator(), p);
    }
    /* Sizes whose rounding would wrap around are refused without calling the allocator. */
    int before = r.n_aligned;
    assert_null(em_aligned_alloc(&r.al, SIZE_MAX));
    assert_null(em_aligned_alloc(&r.al, SIZE_MAX - 62));
    assert_int_equal(r.n_aligned, before);
    em_aligned_free(&r.al, NULL);
    em_aligned_free(NULL, NULL);
}

static void test_routing_to_user_allocator(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    const ember_allocator *al = &ca.al;

    char *a = em_malloc(al, 10);
    assert_non_null(a);
    assert_int_equal(ca.n_alloc, 1);
    assert_int_equal(ca.live, 1);
    unsigned char *z = em_calloc(al, 7, 9);
    assert_non_null(z);
    for (int i = 0; i < 63; i++) {
        assert_int_equal(z[i], 0);
    }
    assert_int_equal(ca.n_alloc, 2);
    a = em_realloc(al, a, 1000);
    assert_non_null(a);
    assert_int_equal(ca.n_alloc, 3);
    assert_int_equal(ca.live, 2); /* realloc of a live block does not add one */
    char *s = em_strdup(al, "hello, ember");
    assert_string_equal(s, "hello, ember");
    assert_int_equal(ca.n_alloc, 4);
    void *al64 = em_aligned_alloc(al, 100);
    assert_int_equal((uintptr_t)al64 % EM_ALIGN, 0);
    assert_int_equal(ca.n_alloc, 5);
    assert_int_equal(ca.live, 4);
    em_free(al, a);
    em_free(al, z);
    em_free(al, s);
    em_aligned_free(al, al64);
    em_free(al, NULL); /* NULL is ignored, not forwarded */
    assert_int_equal(ca.n_free, 4);
    assert_int_equal(ca.live, 0);

    /* em_malloc(0) is a real, freeable allocation. */
    void *zero = em_malloc(al, 0);
    assert_non_null(zero);
    em_free(al, zero);
    assert_int_equal(ca.live, 0);

    /* Failure injection: the injected failure comes back as NULL. */
    ca.fail_at = ca.n_alloc + 1;
    assert_null(em_malloc(al, 16));
    assert_int_equal(ca.live, 0);
    ca.fail_at = ca.n_alloc + 1;
    assert_null(em_strdup(al, "x"));
    ca.fail_at = ca.n_alloc + 1;
    assert_null(em_aligned_alloc(al, 64));
    assert_int_equal(ca.live, 0);

    /* An overflowing calloc is refused before the allocator is asked. */
    long n = ca.n_alloc;
    assert_null(em_calloc(al, SIZE_MAX / 2, 3));
    assert_int_equal(ca.n_alloc, n);
}

static void test_libc_when_null(void **state)
{
    (void)state;
    char *p = em_malloc(NULL, 32);
    assert_non_null(p);
    memset(p, 1, 32);
    p = em_realloc(NULL, p, 4096);
    assert_non_null(p);
    assert_int_equal(p[31], 1);
    em_free(NULL, p);
    char *s = em_strdup(NULL, "abc");
    assert_string_equal(s, "abc");
    em_free(NULL, s);
    unsigned char *z = em_calloc(NULL, 100, 3);
    for (int i = 0; i < 300; i++) {
        assert_int_equal(z[i], 0);
    }
    em_free(NULL, z);
    assert_null(em_calloc(NULL, SIZE_MAX, 2));

    /* An allocator whose members are all NULL behaves like libc too. */
    ember_allocator empty;
    memset(&empty, 0, sizeof empty);
    p = em_malloc(&empty, 8);
    p = em_realloc(&empty, p, 80);
    assert_non_null(p);
    em_free(&empty, p);
    p = em_aligned_alloc(&empty, 3);
    assert_int_equal((uintptr_t)p % EM_ALIGN, 0);
    em_aligned_free(&empty, p);
}

/* Every test allocation is tracked by cmocka: a leak here fails the test. */
static void test_tracked_allocator_roundtrip(void **state)
{
    (void)state;
    const ember_allocator *al = test_allocator();
    char *p = em_malloc(al, 5);
    p = em_realloc(al, p, 500);
    char *s = em_strdup(al, "tracked");
    void *a = em_aligned_alloc(al, 65);
    assert_non_null(p);
    assert_string_equal(s, "tracked");
    assert_int_equal((uintptr_t)a % EM_ALIGN, 0);
    em_free(al, p);
    em_free(al, s);
    em_aligned_free(al, a);
}

static void test_strbuf_growth(void **state)
{
    (void)state;
    em_strbuf sb;
    em_strbuf_init(&sb, test_allocator());
    assert_int_equal(sb.len, 0);
    /* The expected text, built independently with snprintf into a fixed buffer. */
    static char want[200000];
    size_t wl = 0;
    for (int i = 0; i < 5000; i++) {
        em_strbuf_printf(&sb, "%d:%s,", i, i % 7 == 0 ? "seven" : "x");
        wl +=
            (size_t)snprintf(want + wl, sizeof want - wl, "%d:%s,", i, i % 7 == 0 ? "seven" : "x");
        assert_int_equal(sb.len, wl);
    }
    assert_false(sb.failed);
    assert_true(sb.cap > sb.len);
    assert_int_equal(strlen(sb.data), wl);
    /* One call larger than twice the current capacity. */
    static char big[70000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    em_strbuf_printf(&sb, "[%s]", big);
    wl += (size_t)snprintf(want + wl, sizeof want - wl, "[%s]", big);
    assert_int_equal(sb.len, wl);

    char *text = em_strbuf_take(&sb);
    assert_non_null(text);
    assert_int_equal(strlen(text), wl);
    assert_memory_equal(text, want, wl + 1);
    /* take resets the buffer, which is usable again. */
    assert_null(sb.data);
    assert_int_equal(sb.len, 0);
    assert_int_equal(sb.cap, 0);
    ember_string_free(text);

    em_strbuf_printf(&sb, "%s-%03d", "again", 7);
    text = em_strbuf_take(&sb);
    assert_string_equal(text, "again-007");
    ember_string_free(text);
}

static void test_strbuf_empty_and_free(void **state)
{
    (void)state;
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    char *text = em_strbuf_take(&sb); /* nothing printed: an empty string, not NULL */
    assert_non_null(text);
    assert_string_equal(text, "");
    ember_string_free(text);

    em_strbuf_printf(&sb, "%s", "");
    text = em_strbuf_take(&sb);
    assert_string_equal(text, "");
    ember_string_free(text);

    em_strbuf_printf(&sb, "discarded %d", 1);
    em_strbuf_free(&sb);
    assert_null(sb.data);
    assert_int_equal(sb.len, 0);

    /* A failed buffer hands back NULL and frees what it had. */
    em_strbuf_printf(&sb, "partial");
    sb.failed = true;
    em_strbuf_printf(&sb, "ignored");
    assert_int_equal(sb.len, strlen("partial"));
    assert_null(em_strbuf_take(&sb));
    assert_null(sb.data);
    assert_false(sb.failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_mul),
        cmocka_unit_test(test_size_add),
        cmocka_unit_test(test_align_up),
        cmocka_unit_test(test_aligned_alloc_alignment_and_rounding),
        cmocka_unit_test(test_routing_to_user_allocator),
        cmocka_unit_test(test_libc_when_null),
        cmocka_unit_test(test_tracked_allocator_roundtrip),
        cmocka_unit_test(test_strbuf_growth),
        cmocka_unit_test(test_strbuf_empty_and_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
