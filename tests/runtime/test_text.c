/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/ir/text.c: case mapping swept over whole blocks with the rules of the Unicode charts
 * written out here (ASCII, Latin-1 with ÿ <-> Ÿ, µ -> Μ and ß -> SS, Latin Extended-A pairs,
 * Greek with final sigma, Cyrillic), single letters from Latin Extended-B, Greek tonos,
 * Armenian and fullwidth forms, invalid UTF-8 rejected with its offset; case-insensitive
 * equality; Python's whitespace set; str.split counts and truncation to `cap`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/strtensor.h"
#include "ir/text.h"

/* The one-code-point mapping of cp, checked through em_text_case_map. */
static void expect_map(uint32_t cp, bool upper, const char *want)
{
    char in[4], out[16];
    int k = em_utf8_encode(cp, in);
    assert_true(k > 0);
    size_t n = em_text_case_map(in, (size_t)k, upper, NULL, NULL);
    if (n != strlen(want) || n > sizeof out) {
        fail_msg("U+%04X %s: %zu bytes, expected %zu", cp, upper ? "upper" : "lower", n,
                 strlen(want));
    }
    assert_int_equal(em_text_case_map(in, (size_t)k, upper, out, NULL), n);
    if (memcmp(out, want, n) != 0) {
        fail_msg("U+%04X %s: wrong bytes", cp, upper ? "upper" : "lower");
    }
}

static void expect_cp(uint32_t cp, bool upper, uint32_t to)
{
    char want[5] = {0};
    em_utf8_encode(to, want);
    expect_map(cp, upper, want);
}

static void test_block_sweeps(void **state)
{
    (void)state;
    for (uint32_t c = 1; c < 0x80; c++) {
        bool lo = c >= 'a' && c <= 'z', up = c >= 'A' && c <= 'Z';
        expect_cp(c, true, lo ? c - 32 : c);
        expect_cp(c, false, up ? c + 32 : c);
    }
    for (uint32_t c = 0xc0; c <= 0xde; c++) { /* Latin-1 capitals, × excepted */
        expect_cp(c, false, c == 0xd7 ? c : c + 0x20);
        expect_cp(c + 0x20, true, c == 0xd7 ? c + 0x20 : c);
    }
    expect_cp(0xff, true, 0x178);
    expect_cp(0x178, false, 0xff);
    expect_cp(0xb5, true, 0x39c);
    expect_map(0xdf, true, "SS");
    for (uint32_t c = 0x100; c < 0x138; c += 2) { /* Latin Extended-A: even upper, odd lower */
        if (c == 0x130) {
            continue; /* İ / ı: below */
        }
        expect_cp(c, false, c + 1);
        expect_cp(c + 1, true, c);
    }
    expect_map(0x130, false, "i\xcc\x87");
    expect_cp(0x131, true, 'I');
    for (uint32_t c = 0x391; c <= 0x3a9; c++) { /* Greek capitals; U+03A2 is unassigned */
        if (c == 0x3a2 || c == 0x3a3) {
            continue;
        }
        expect_cp(c, false, c + 0x20);
        expect_cp(c + 0x20, true, c);
    }
    expect_cp(0x3c2, true, 0x3a3);
    expect_cp(0x3a3, false, 0x3c3); /* alone: not final (no cased letter before it) */
    for (uint32_t c = 0x410; c <= 0x42f; c++) { /* Cyrillic */
        expect_cp(c, false, c + 0x20);
        expect_cp(c + 0x20, true, c);
    }
    for (uint32_t c = 0x400; c <= 0x40f; c++) {
        expect_cp(c, false, c + 0x50);
        expect_cp(c + 0x50, true, c);
    }
    expect_cp(0x1c5, true, 0x1c4); /* ǅ: Latin Extended-B titlecase digraph */
    expect_cp(0x1c5, false, 0x1c6);
    expect_cp(0x3ac, true, 0x386); /* ά -> Ά */
    expect_cp(0x561, true, 0x531); /* Armenian ա -> Ա */
    expect_cp(0xff41, true, 0xff21); /* fullwidth a -> A */
    expect_cp(0x4e2d, true, 0x4e2d); /* 中: no case */
}

static void test_strings(void **state)
{
    (void)state;
    char out[64];
    const char *s = "\xce\x9f\xce\x94\xce\x9f\xce\xa3 \xce\xa3\xcc\x81" "A"; /* ΟΔΟΣ Σ́A */
    size_t n = em_text_case_map(s, strlen(s), false, out, NULL);
    /* ΟΔΟΣ: final; Σ followed by a combining acute then A: not final */
    const char *want = "\xce\xbf\xce\xb4\xce\xbf\xcf\x82 \xcf\x83\xcc\x81" "a";
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
    size_t bad = 0;
    assert_int_equal(em_text_case_map("ab\xe4\xb8", 4, true, NULL, &bad), EM_TEXT_BAD);
    assert_int_equal(bad, 2);
    assert_int_equal(em_text_case_map("", 0, true, NULL, NULL), 0);
}

static void test_fold(void **state)
{
    (void)state;
    assert_true(em_text_equal_fold("HeLLo", "hello"));
    assert_false(em_text_equal_fold("hello", "hell"));
    assert_false(em_text_equal_fold("Stra\xc3\x9f" "e", "STRASSE")); /* as Python's lower() */
    assert_true(em_text_equal_fold("\xce\x9f\xce\x94\xce\x9f\xce\xa3", "\xce\xbf\xce\xb4\xce\xbf"
                                                                        "\xcf\x83"));
    assert_true(em_text_equal_fold("\xc4\xb0", "i\xcc\x87"));
    assert_true(em_text_equal_fold("\xff", "\xff"));
    assert_false(em_text_equal_fold("\xff", "\xfe"));
    assert_true(em_text_equal_fold("", ""));
    char *list[2] = {"Monday", "x"};
    assert_true(em_text_in_list("MONDAY", list, 2, false));
    assert_false(em_text_in_list("MONDAY", list, 2, true));
    assert_false(em_text_in_list("", list, 2, false));
}

static void test_space_and_split(void **state)
{
    (void)state;
    static const uint32_t spaces[] = {0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20,
                                      0x85, 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x2028,
                                      0x2029, 0x202f, 0x205f, 0x3000};
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
        assert_true(em_text_is_space(spaces[i]));
    }
    static const uint32_t others[] = {0x00, 0x08, 0x21, 0x200b, 0x180e, 0xfeff, 'a'};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        assert_false(em_text_is_space(others[i]));
    }
    em_text_piece p[2];
    assert_int_equal(em_text_split("a,b,,c", ",", -1, NULL, 0), 4);
    assert_int_equal(em_text_split("a,b,,c", ",", -1, p, 2), 4); /* only 2 written */
    assert_int_equal(p[1].len, 1);
    assert_memory_equal(p[1].s, "b", 1);
    assert_int_equal(em_text_split("a,b,,c", ",", 2, NULL, 0), 3);
    assert_int_equal(em_text_split(" \xe3\x80\x80 ", NULL, -1, NULL, 0), 0);
    assert_int_equal(em_text_split("x\xe3\x80\x80y", "", -1, p, 2), 2);
    assert_memory_equal(p[1].s, "y", 1);
    assert_int_equal(em_text_split("abab", "ab", -1, NULL, 0), 3);
    assert_int_equal(em_text_split("a\xff" "b c", NULL, -1, p, 2), 2); /* a bad byte is text */
    assert_int_equal(p[0].len, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_sweeps),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_fold),
        cmocka_unit_test(test_space_and_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
