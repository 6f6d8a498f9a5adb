/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/pt2/pt2_json.c: values of every kind, escapes (\uXXXX, surrogate pairs), numbers
 * (integers that fit int64 keep their exact value), members in file order; and text that is
 * not JSON, nesting past the depth limit and every truncation of a document give
 * INVALID_MODEL "<what>: JSON: <why> at byte <n>", never a crash or leak.
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
#include "core/status.h"
#include "loaders/pt2/pt2_json.h"

static const em_pt2_json *parse(em_ts_arena *a, const char *text)
{
    const em_pt2_json *j = NULL;
    ember_status *st = em_pt2_json_parse(a, text, strlen(text), "t.json", &j);
    if (st != NULL) {
        fail_msg("%s: %s", text, ember_status_message(st));
    }
    return j;
}

static void test_values(void **state)
{
    (void)state;
    em_ts_arena a;
    em_ts_arena_init(&a, test_allocator());
    const em_pt2_json *j = parse(&a, " {\"b\": [true, false, null], \"i\": -9223372036854775807,"
                                     " \"f\": 1.5e-3, \"s\": \"a\\\"\\u00e9\\ud83d\\ude00\\n\","
                                     " \"o\": {}, \"e\": []} ");
    assert_int_equal(j->k, EM_PT2_JOBJ);
    assert_int_equal(j->n, 6);
    assert_string_equal(j->keys[0], "b");
    assert_string_equal(j->keys[5], "e");
    const em_pt2_json *b = em_pt2_json_get(j, "b");
    assert_int_equal(b->n, 3);
    assert_true(b->items[0]->k == EM_PT2_JBOOL && b->items[0]->b);
    assert_true(b->items[1]->k == EM_PT2_JBOOL && !b->items[1]->b);
    assert_int_equal(b->items[2]->k, EM_PT2_JNULL);
    const em_pt2_json *i = em_pt2_json_get(j, "i");
    assert_true(i->is_int);
    assert_true(i->i == -9223372036854775807LL);
    const em_pt2_json *f = em_pt2_json_get(j, "f");
    assert_false(f->is_int);
    assert_true(f->f == 1.5e-3);
    const em_pt2_json *s = em_pt2_json_get(j, "s");
    assert_string_equal(s->s, "a\"\xc3\xa9\xf0\x9f\x98\x80\n");
    assert_int_equal(s->n, 9);
    assert_int_equal(em_pt2_json_get(j, "o")->k, EM_PT2_JOBJ);
    assert_int_equal(em_pt2_json_get(j, "e")->n, 0);
    assert_null(em_pt2_json_get(j, "missing"));
    assert_null(em_pt2_json_get(b, "b")); /* not an object */
    const em_pt2_json *big = parse(&a, "[92233720368547758070]");
    assert_false(big->items[0]->is_int);
    assert_true(big->items[0]->f > 9.2e19);
    em_ts_arena_free(&a);
}

static void expect_bad(const char *text, size_t n, const char *why)
{
    em_ts_arena a;
    em_ts_arena_init(&a, test_allocator());
    const em_pt2_json *j = (const em_pt2_json *)(uintptr_t)1;
    ember_status *st = em_pt2_json_parse(&a, text, n, "t.json", &j);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_null(j);
    if (why != NULL && strstr(ember_status_message(st), why) == NULL) {
        fail_msg("%.*s gave: %s; expected: %s", (int)n, text, ember_status_message(st), why);
    }
    ember_status_destroy(st);
    em_ts_arena_free(&a);
}
#define BAD(text, why) expect_bad(text, strlen(text), why)

static void test_bad(void **state)
{
    (void)state;
    BAD("", "t.json: JSON: unexpected end at byte 0");
    BAD("{\"a\" 1}", "expected ':' at byte 5");
    BAD("[1 2]", "expected ',' or ']' at byte 3");
    BAD("[1,]", "unexpected character at byte 3");
    BAD("{\"a\":1,}", "expected a key");
    BAD("\"abc", "unterminated string");
    BAD("\"a\\x\"", "bad escape");
    BAD("\"\\u0000\"", "bad escape");        /* a NUL inside a C string */
    BAD("\"\\ud800\"", "bad escape");        /* a lone surrogate */
    BAD("\"\\udc00\"", "bad escape");
    BAD("\"a\tb\"", "control character");
    BAD("01", "bad number");
    BAD("1.", "bad number");
    BAD("1e", "bad number");
    BAD("-", "bad number");
    BAD("tru", "bad literal");
    BAD("nul", "bad literal");
    BAD("{} x", "trailing characters");
    BAD("[1e5555555555555555555555555555555555555555555555555555555555555555]",
        "number too long");
}

static void test_depth(void **state)
{
    (void)state;
    char deep[2 * EM_PT2_JSON_MAX_DEPTH + 8];
    size_t n = EM_PT2_JSON_MAX_DEPTH + 1;
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    expect_bad(deep, 2 * n, NULL); /* one level too deep: refused */
    expect_bad(deep, 2 * n, "nested too deeply");
    em_ts_arena a;
    em_ts_arena_init(&a, test_allocator());
    const em_pt2_json *j = NULL;
    ember_status *st = em_pt2_json_parse(&a, deep + 1, 2 * n - 2, "t.json", &j); /* at the limit */
    assert_null(st);
    assert_int_equal(j->k, EM_PT2_JARR);
    em_ts_arena_free(&a);
}

static void test_truncations(void **state)
{
    (void)state;
    static const char doc[] = "{\"graph\": {\"nodes\": [{\"target\": \"torch.ops.aten.relu\","
                              " \"inputs\": [{\"as_ints\": [1, -2, 3.5e1]}]}], \"x\": null}}";
    for (size_t n = 0; n + 1 < sizeof doc; n++) {
        expect_bad(doc, n, "JSON: ");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
