/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/text_regex_ref.c: RegexFullMatch. The onnx 1.23 patterns, then one RE2 feature
 * per case with inputs that match and inputs that must not (expected results worked out from
 * RE2's documented syntax): \d \w \s and negations inside and outside brackets, escaped '-'
 * and ']' in brackets, (?i), (?:...), lazy quantifiers, '.' against a newline and a multi-byte
 * code point, bounded repetition, \x escapes, alternation under the full-match anchors; an
 * empty tensor; patterns POSIX cannot express (UNSUPPORTED) and malformed ones.
 */
#include "test_ref_text_util.h"

typedef struct rx_case {
    const char *pattern;
    int n;
    const char *x[4];
    uint8_t want[4];
} rx_case;

static const rx_case cases[] = {
    {"www\\.[\\w.-]+\\.\\bcom\\b", 3, {"www.google.com", "www.facebook.com", "www.bbc.co.uk"},
     {1, 1, 0}},
    {"(\\W|^)[\\w.\\-]{0,25}@(yahoo|gmail)\\.com(\\W|$)", 4,
     {"account@gmail.com", "account@hotmail.com", "not email", "account2@yahoo.com"},
     {1, 0, 0, 1}},
    {"\\d+", 3, {"123", "12a", ""}, {1, 0, 0}},
    {"[^\\s]+", 3, {"ab", "a b", "a\tb"}, {1, 0, 0}},
    {"\\D\\W\\S", 3, {"a!x", "1!x", "a! "}, {1, 0, 0}},
    {"(?i)hello", 2, {"HeLLo", "help"}, {1, 0}},
    {"a.c", 4, {"abc", "a\nc", "a\xe4\xb8\xad" "c", "ac"}, {1, 0, 1, 0}},
    {"a+?b", 2, {"aaab", "b"}, {1, 0}},
    {"(?:ab)+", 3, {"abab", "aba", ""}, {1, 0, 0}},
    {"[a\\-z]", 4, {"-", "a", "z", "m"}, {1, 1, 1, 0}},
    {"[]a]+", 3, {"]a]", "a", "b"}, {1, 1, 0}},
    {"x{2,3}", 3, {"xx", "xxxx", "x"}, {1, 0, 0}},
    {"\\x41\\x{42}\\.", 2, {"AB.", "ABC"}, {1, 0}},
    {"colou?r", 3, {"color", "colour", "colouur"}, {1, 1, 0}},
    {"^abc$", 2, {"abc", "abcd"}, {1, 0}},
    {"a|b", 3, {"a", "b", "ab"}, {1, 1, 0}},
    {"[\\d_]+z", 3, {"1_2z", "z", "a1z"}, {1, 0, 0}},
    {"[\\^\\-]+", 3, {"^-^", "-", "a"}, {1, 1, 0}},
    {"[^\\^]", 3, {"a", "^", "ab"}, {1, 0, 0}},
    {"[\\^]", 2, {"^", "a"}, {1, 0}},
    {"", 2, {"", "a"}, {1, 0}},
};

static ember_status *rx_run(const char *name, const char *pattern, int rank, const int64_t *dims,
                            const char *const *x, uint8_t *y)
{
    em_tensor in[1], out[1];
    ts_in(&in[0], rank, dims, x);
    t_tensor(&out[0], EMBER_DTYPE_BOOL, rank, dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_REGEXFULLMATCH, name);
    if (pattern != NULL) {
        t_set_string(&tn, "pattern", pattern);
    }
    return ts_run(t_kernel(EM_OP_REGEXFULLMATCH, EMBER_DTYPE_STRING), &tn.n, in, 1, out, 1, NULL,
                  0);
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rx_case *c = &cases[i];
        uint8_t y[4] = {7, 7, 7, 7};
        int64_t d[1] = {c->n};
        t_expect_ok(rx_run("rx", c->pattern, 1, d, c->x, y), c->pattern);
        ts_expect_bool(c->pattern, &(em_tensor){.data = y}, c->want, c->n);
    }
}

static void test_empty(void **state)
{
    (void)state;
    const int64_t d[2] = {2, 0};
    t_expect_ok(rx_run("rx_empty", "(\\W|^)x", 2, d, NULL, NULL), "empty");
}

static void test_errors(void **state)
{
    (void)state;
    const int64_t d[1] = {1};
    const char *x[1] = {"a"};
    uint8_t y[1];
    static const char *const unsupported[] = {"\\p{L}+", "a(?s).", "(a)\\1", "\\Qa.b\\E",
                                              "[\\D]"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        t_expect_error(rx_run("rx_unsup", unsupported[i], 1, d, x, y), EMBER_ERR_UNSUPPORTED,
                       "rx_unsup", unsupported[i]);
    }
    static const char *const malformed[] = {"(ab", "[ab", "a{2,1}"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        t_expect_error(rx_run("rx_bad", malformed[i], 1, d, x, y), EMBER_ERR_INVALID_MODEL,
                       "rx_bad", malformed[i]);
    }
    t_expect_error(rx_run("rx_nopattern", NULL, 1, d, x, y), EMBER_ERR_INVALID_MODEL,
                   "rx_nopattern", "no pattern");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
