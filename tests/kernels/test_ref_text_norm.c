/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/text_norm_ref.c: StringNormalizer. The onnx conformance cases (stopwords case
 * sensitive and not, LOWER / UPPER / NONE, everything filtered to [""] and [[""]]), Unicode
 * case changes written out by hand (Latin-1, Latin Extended-A, Greek with final sigma,
 * Cyrillic, the expansions "ß" -> "SS" and "İ" -> "i̇"), case-insensitive stopwords in Greek
 * and Cyrillic, empty elements kept, NULL elements as "", invalid UTF-8 (an error where the
 * case must change, passed through with NONE), and malformed nodes.
 */
#include "test_ref_text_util.h"

typedef struct norm_case {
    const char *name;
    const char *action; /* NULL: attribute absent */
    int case_sensitive; /* -1: attribute absent */
    int n_stops;
    char *stops[3];
    bool two_d;
    int64_t n;
    const char *x[6];
    int64_t m;
    const char *y[6];
} norm_case;

static const norm_case cases[] = {
    {"cs_lower", "LOWER", 1, 1, {"monday"}, false, 4, {"monday", "tuesday", "wednesday", "thursday"},
     3, {"tuesday", "wednesday", "thursday"}},
    {"cs_none", NULL, 1, 1, {"monday"}, false, 4, {"monday", "tuesday", "wednesday", "thursday"},
     3, {"tuesday", "wednesday", "thursday"}},
    {"cs_upper", "UPPER", 1, 1, {"monday"}, false, 4,
     {"monday", "tuesday", "wednesday", "thursday"}, 3, {"TUESDAY", "WEDNESDAY", "THURSDAY"}},
    {"all_dropped", "UPPER", 1, 1, {"monday"}, false, 2, {"monday", "monday"}, 1, {""}},
    {"ci_upper_2d", "UPPER", -1, 1, {"monday"}, true, 6,
     {"Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"}, 4,
     {"TUESDAY", "WEDNESDAY", "TUESDAY", "WEDNESDAY"}},
    {"no_stopwords", NULL, 1, 0, {0}, false, 2, {"monday", "tuesday"}, 2, {"monday", "tuesday"}},
    {"all_dropped_2d", "LOWER", 0, 2, {"A", "b"}, true, 3, {"a", "B", "a"}, 1, {""}},
    {"cs_keeps_other_case", "NONE", 1, 1, {"monday"}, false, 2, {"Monday", "monday"}, 1,
     {"Monday"}},
    {"latin1", "LOWER", 0, 0, {0}, false, 2, {"\xc3\x80\xc3\x89\xc3\x8e", "\xc3\x9e" "X"}, 2,
     {"\xc3\xa0\xc3\xa9\xc3\xae", "\xc3\xbe" "x"}},
    {"latin_ext_a", "UPPER", 0, 0, {0}, false, 2, {"\xc4\x9f\xc5\x82", "\xc5\x93"}, 2,
     {"\xc4\x9e\xc5\x81", "\xc5\x92"}},
    {"sharp_s", "UPPER", 0, 0, {0}, false, 1, {"Stra\xc3\x9f" "e"}, 1, {"STRASSE"}},
    {"dotted_i", "LOWER", 0, 0, {0}, false, 1, {"\xc4\xb0" "Z"}, 1, {"i\xcc\x87z"}},
    {"greek_final_sigma", "LOWER", 0, 0, {0}, false, 2,
     {"\xce\x9f\xce\x94\xce\x9f\xce\xa3", "\xce\xa3\xce\x91\xce\xa3 \xce\xa3"}, 2,
     {"\xce\xbf\xce\xb4\xce\xbf\xcf\x82", "\xcf\x83\xce\xb1\xcf\x82 \xcf\x83"}},
    {"cyrillic", "UPPER", 0, 0, {0}, false, 1,
     {"\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"}, 1,
     {"\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2"}},
    {"ci_greek_cyrillic", "NONE", 0, 2,
     {"\xcf\x83\xce\xb1\xcf\x82", "\xd0\x9c\xd0\x98\xd0\xa0"}, false, 3,
     {"\xce\xa3\xce\x91\xce\xa3", "\xd0\xbc\xd0\xb8\xd1\x80", "\xce\xb1"}, 1, {"\xce\xb1"}},
    {"empty_and_null_kept", "UPPER", 1, 1, {"x"}, false, 3, {"", NULL, "x"}, 2, {"", ""}},
};

static ember_status *norm_run(const norm_case *c, em_tensor *out, em_storage **s)
{
    int64_t xd[2] = {1, c->n}, yd[2] = {1, c->m};
    em_tensor in[1];
    ts_in(&in[0], c->two_d ? 2 : 1, c->two_d ? xd : xd + 1, c->x);
    *s = ts_out(out, c->two_d ? 2 : 1, c->two_d ? yd : yd + 1);
    static t_node tn;
    t_node_init(&tn, EM_OP_STRINGNORMALIZER, c->name);
    if (c->action != NULL) {
        t_set_string(&tn, "case_change_action", c->action);
    }
    if (c->case_sensitive >= 0) {
        t_set_int(&tn, "is_case_sensitive", c->case_sensitive);
    }
    if (c->n_stops > 0) {
        ts_set_strings(&tn, "stopwords", (char **)c->stops, c->n_stops);
    }
    t_set_string(&tn, "locale", "tr_TR"); /* any locale: the mapping does not change */
    return ts_run(t_kernel(EM_OP_STRINGNORMALIZER, EMBER_DTYPE_STRING), &tn.n, in, 1, out, 1, s,
                  0);
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        em_tensor out;
        em_storage *s = NULL;
        t_expect_ok(norm_run(&cases[i], &out, &s), cases[i].name);
        ts_expect(cases[i].name, &out, cases[i].y, cases[i].m);
        em_storage_release(s);
    }
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    norm_case c = {"bad_utf8", "UPPER", 1, 0, {0}, false, 2, {"ok", "a\xff"}, 2, {0}};
    em_tensor out;
    em_storage *s = NULL;
    t_expect_error(norm_run(&c, &out, &s), EMBER_ERR_INVALID_ARG, "bad_utf8", "upper");
    em_storage_release(s);
    /* NONE copies the bytes unchanged; case-insensitive stopwords compare them as bytes. */
    norm_case n = {"bad_utf8_none", "NONE", 0, 1, {"A\xff"}, false, 3, {"a\xff", "b\xfe", "A\xff"},
                   1, {"b\xfe"}};
    t_expect_ok(norm_run(&n, &out, &s), n.name);
    ts_expect(n.name, &out, n.y, 1);
    em_storage_release(s);
}

static void test_errors(void **state)
{
    (void)state;
    em_tensor in[1], out[1];
    const int64_t d23[2] = {2, 3}, d3[1] = {3};
    const char *x[6] = {"a", "b", "c", "d", "e", "f"};
    const em_kernel *k = t_kernel(EM_OP_STRINGNORMALIZER, EMBER_DTYPE_STRING);
    t_node tn;
    t_node_init(&tn, EM_OP_STRINGNORMALIZER, "bad_norm");
    ts_in(&in[0], 2, d23, x);
    em_storage *s = ts_out(&out[0], 2, d23);
    t_expect_error(ts_run(k, &tn.n, in, 1, out, 1, &s, 0), EMBER_ERR_INVALID_MODEL, "bad_norm",
                   "[2, C]");
    em_storage_release(s);
    ts_in(&in[0], 1, d3, x);
    s = ts_out(&out[0], 1, d3);
    t_set_string(&tn, "case_change_action", "TITLE");
    t_expect_error(ts_run(k, &tn.n, in, 1, out, 1, &s, 0), EMBER_ERR_INVALID_MODEL, "bad_norm",
                   "TITLE");
    em_storage_release(s);
    float f[3] = {0};
    t_node_init(&tn, EM_OP_STRINGNORMALIZER, "float_norm");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, d3, f);
    s = ts_out(&out[0], 1, d3);
    t_expect_error(ts_run(k, &tn.n, in, 1, out, 1, &s, 0), EMBER_ERR_INVALID_MODEL, "float_norm",
                   "float input");
    em_storage_release(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
