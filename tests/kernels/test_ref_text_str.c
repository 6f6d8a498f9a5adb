/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/text_str_ref.c: StringConcat, StringSplit, and Equal / Where on strings.
 * StringConcat: the onnx 1.23 cases (plain, broadcast, empty strings, UTF-8, 0-D), a 2-D
 * broadcast checked against a naive loop, an empty tensor, malformed nodes. StringSplit:
 * Python str.split results written out by hand (delimiters, consecutive delimiters, whitespace
 * runs with Unicode spaces, maxsplit 0/1/2 with the rest kept, empty strings, a multi-byte
 * delimiter, padding with ""). Equal and Where: broadcasting, NULL elements as "", and the
 * decline (UNSUPPORTED) on numeric inputs that lets the generic kernels run.
 */
#include "test_ref_text_util.h"

/* ---- StringConcat --------------------------------------------------------------------------- */

static void concat_case(const char *name, int ra, const int64_t *da, const char *const *a, int rb,
                        const int64_t *db, const char *const *b, int ry, const int64_t *dy,
                        const char *const *want)
{
    em_tensor in[2], out[1];
    ts_in(&in[0], ra, da, a);
    ts_in(&in[1], rb, db, b);
    em_storage *s = ts_out(&out[0], ry, dy);
    t_node tn;
    t_node_init(&tn, EM_OP_STRINGCONCAT, name);
    tn.n.n_in = 2;
    tn.n.n_out = 1;
    t_expect_ok(ts_run(t_kernel(EM_OP_STRINGCONCAT, EMBER_DTYPE_STRING), &tn.n, in, 2, out, 1,
                       &s, TS_ALL_CONST),
                name);
    ts_expect(name, &out[0], want, t_numel(dy, ry));
    em_storage_release(s);
}

static void test_concat(void **state)
{
    (void)state;
    const int64_t d2[1] = {2}, d3[1] = {3}, d1[1] = {1};
    concat_case("plain", 1, d2, (const char *[]){"abc", "def"}, 1, d2,
                (const char *[]){".com", ".net"}, 1, d2, (const char *[]){"abc.com", "def.net"});
    concat_case("bcast", 1, d3, (const char *[]){"cat", "dog", "snake"}, 1, d1,
                (const char *[]){"s"}, 1, d3, (const char *[]){"cats", "dogs", "snakes"});
    concat_case("empty_strings", 1, d2, (const char *[]){"abc", ""}, 1, d2,
                (const char *[]){"", "abc"}, 1, d2, (const char *[]){"abc", "abc"});
    concat_case("utf8", 1, d2, (const char *[]){"\xe7\x9a\x84", "\xe4\xb8\xad"}, 1, d2,
                (const char *[]){"\xe7\x9a\x84", "\xe4\xb8\xad"}, 1, d2,
                (const char *[]){"\xe7\x9a\x84\xe7\x9a\x84", "\xe4\xb8\xad\xe4\xb8\xad"});
    concat_case("scalar", 0, NULL, (const char *[]){"cat"}, 0, NULL, (const char *[]){"s"}, 0,
                NULL, (const char *[]){"cats"});
    concat_case("null_is_empty", 1, d1, (const char *[]){NULL}, 1, d1, (const char *[]){"x"}, 1,
                d1, (const char *[]){"x"});
    const int64_t d0[1] = {0};
    concat_case("empty_tensor", 1, d0, NULL, 1, d1, (const char *[]){"x"}, 1, d0, NULL);

    /* [2, 1] + [3] -> [2, 3], against a naive double loop. */
    const char *a[2] = {"p", "qq"}, *b[3] = {"1", "", "\xc3\xa9"};
    char buf[6][8];
    const char *want[6];
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
            snprintf(buf[i * 3 + j], sizeof buf[0], "%s%s", a[i], b[j]);
            want[i * 3 + j] = buf[i * 3 + j];
        }
    }
    concat_case("bcast_2d", 2, (const int64_t[]){2, 1}, a, 1, d3, b, 2, (const int64_t[]){2, 3},
                want);
}

static void test_concat_errors(void **state)
{
    (void)state;
    const int64_t d2[1] = {2}, d3[1] = {3};
    const char *s2[2] = {"a", "b"};
    float f2[2] = {1, 2};
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_STRINGCONCAT, "bad_concat");
    const em_kernel *k = t_kernel(EM_OP_STRINGCONCAT, EMBER_DTYPE_STRING);
    ts_in(&in[0], 1, d2, s2);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d2, f2);
    em_storage *s = ts_out(&out[0], 1, d2);
    t_expect_error(ts_run(k, &tn.n, in, 2, out, 1, &s, 0), EMBER_ERR_INVALID_MODEL, "bad_concat",
                   "float input");
    ts_in(&in[1], 1, d3, (const char *[]){"x", "y", "z"});
    t_expect_error(ts_run(k, &tn.n, in, 2, out, 1, &s, 0), EMBER_ERR_INVALID_MODEL, "bad_concat",
                   "no broadcast");
    em_storage_release(s);
}

/* ---- StringSplit ------------------------------------------------------------------------------ */

typedef struct split_case {
    const char *name;
    const char *delim; /* NULL: attribute absent */
    int64_t maxsplit;  /* < -1: attribute absent */
    int64_t n;
    const char *x[3];
    int64_t cols;
    const char *y[12];
    int64_t z[3];
} split_case;

static const split_case split_cases[] = {
    {"basic", ".", -2, 2, {"abc.com", "def.net"}, 2, {"abc", "com", "def", "net"}, {2, 2}},
    {"consecutive", "-", -2, 2, {"o-n-n--x-", "o-n----nx"}, 6,
     {"o", "n", "n", "", "x", "", "o", "n", "", "", "", "nx"}, {6, 6}},
    {"whitespace", NULL, -2, 3, {"hello world !", "  hello   world !", " hello world   ! "}, 3,
     {"hello", "world", "!", "hello", "world", "!", "hello", "world", "!"}, {3, 3, 3}},
    {"empty_delimiter", "", -2, 2, {"a\tb", "\xe3\x80\x80" "x\xc2\xa0y\n"}, 2,
     {"a", "b", "x", "y"}, {2, 2}},
    {"maxsplit1_ws", NULL, 1, 2, {"  a b  c  ", "one"}, 2, {"a", "b  c  ", "one", ""}, {2, 1}},
    {"maxsplit0", "-", 0, 2, {"a-b", ""}, 1, {"a-b", ""}, {1, 1}},
    {"maxsplit2", NULL, 2, 2, {"o n n x", "the quick brown fox"}, 3,
     {"o", "n", "n x", "the", "quick", "brown fox"}, {3, 3}},
    {"empty_strings", "-", -2, 2, {"", "-"}, 2, {"", "", "", ""}, {1, 2}},
    {"blank_ws", NULL, -2, 2, {"", "   "}, 0, {0}, {0, 0}},
    {"multibyte_delim", "\xe2\x80\x94", -2, 1, {"a\xe2\x80\x94\xe2\x80\x94" "b"}, 3,
     {"a", "", "b"}, {3}},
};

static void split_run(const split_case *c)
{
    const int64_t xd[1] = {c->n}, yd[2] = {c->n, c->cols};
    em_tensor in[1], out[2];
    int64_t z[3] = {-7, -7, -7};
    ts_in(&in[0], 1, xd, c->x);
    em_storage *st[2] = {ts_out(&out[0], 2, yd), NULL};
    t_tensor(&out[1], EMBER_DTYPE_I64, 1, xd, z);
    t_node tn;
    t_node_init(&tn, EM_OP_STRINGSPLIT, c->name);
    if (c->delim != NULL) {
        t_set_string(&tn, "delimiter", c->delim);
    }
    if (c->maxsplit >= -1) {
        t_set_int(&tn, "maxsplit", c->maxsplit);
    }
    t_expect_ok(ts_run(t_kernel(EM_OP_STRINGSPLIT, EMBER_DTYPE_STRING), &tn.n, in, 1, out, 2, st,
                       0),
                c->name);
    ts_expect(c->name, &out[0], c->y, c->n * c->cols);
    for (int64_t i = 0; i < c->n; i++) {
        if (z[i] != c->z[i]) {
            fail_msg("case %s: Z[%lld] is %lld, expected %lld", c->name, (long long)i,
                     (long long)z[i], (long long)c->z[i]);
        }
    }
    em_storage_release(st[0]);
}

static void test_split(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof split_cases / sizeof split_cases[0]; i++) {
        split_run(&split_cases[i]);
    }
    /* An empty input gives Y [0, 0] and Z [0]. */
    const int64_t d0[1] = {0}, y0[2] = {0, 0};
    em_tensor in[1], out[2];
    ts_in(&in[0], 1, d0, NULL);
    em_storage *st[2] = {ts_out(&out[0], 2, y0), NULL};
    t_tensor(&out[1], EMBER_DTYPE_I64, 1, d0, NULL);
    t_node tn;
    t_node_init(&tn, EM_OP_STRINGSPLIT, "empty");
    t_expect_ok(ts_run(t_kernel(EM_OP_STRINGSPLIT, EMBER_DTYPE_STRING), &tn.n, in, 1, out, 2, st,
                       0),
                "empty");
    em_storage_release(st[0]);
}

static void test_split_errors(void **state)
{
    (void)state;
    const int64_t d2[1] = {2}, bad[2] = {3, 2};
    const char *x[2] = {"a b", "c"};
    int64_t z[2];
    em_tensor in[1], out[2];
    ts_in(&in[0], 1, d2, x);
    em_storage *st[2] = {ts_out(&out[0], 2, bad), NULL};
    t_tensor(&out[1], EMBER_DTYPE_I64, 1, d2, z);
    t_node tn;
    t_node_init(&tn, EM_OP_STRINGSPLIT, "bad_split");
    t_expect_error(ts_run(t_kernel(EM_OP_STRINGSPLIT, EMBER_DTYPE_STRING), &tn.n, in, 1, out, 2,
                          st, 0),
                   EMBER_ERR_INVALID_MODEL, "bad_split", "Y dims");
    em_storage_release(st[0]);
}

/* ---- Equal and Where ------------------------------------------------------------------------- */

static void test_equal(void **state)
{
    (void)state;
    const int64_t d2[1] = {2}, d1[1] = {1}, d23[2] = {2, 3}, d21[2] = {2, 1}, d3[1] = {3};
    em_tensor in[2], out[1];
    uint8_t y[6];
    t_node tn;
    t_node_init(&tn, EM_OP_EQUAL, "eq");
    const em_kernel *k = t_kernel(EM_OP_EQUAL, EMBER_DTYPE_STRING);
    ts_in(&in[0], 1, d2, (const char *[]){"string1", "string2"});
    ts_in(&in[1], 1, d2, (const char *[]){"string1", "string3"});
    t_tensor(&out[0], EMBER_DTYPE_BOOL, 1, d2, y);
    t_expect_ok(ts_run(k, &tn.n, in, 2, out, 1, NULL, 0), "eq");
    ts_expect_bool("eq", &out[0], (const uint8_t[]){1, 0}, 2);
    ts_in(&in[1], 1, d1, (const char *[]){"string1"});
    t_expect_ok(ts_run(k, &tn.n, in, 2, out, 1, NULL, 0), "eq_bcast");
    ts_expect_bool("eq_bcast", &out[0], (const uint8_t[]){1, 0}, 2);
    /* [2,1] vs [3]: "" equals a NULL element; a prefix is not equal; UTF-8 bytewise. */
    ts_in(&in[0], 2, d21, (const char *[]){"", "\xc3\xa9"});
    ts_in(&in[1], 1, d3, (const char *[]){NULL, "\xc3\xa9", "\xc3"});
    t_tensor(&out[0], EMBER_DTYPE_BOOL, 2, d23, y);
    t_expect_ok(ts_run(k, &tn.n, in, 2, out, 1, NULL, 0), "eq_2d");
    ts_expect_bool("eq_2d", &out[0], (const uint8_t[]){1, 0, 0, 0, 1, 0}, 6);
    /* Numeric inputs are not this kernel's. */
    float f[2] = {1, 2};
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, d2, f);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d2, f);
    t_tensor(&out[0], EMBER_DTYPE_BOOL, 1, d2, y);
    t_expect_error(ts_run(k, &tn.n, in, 2, out, 1, NULL, 0), EMBER_ERR_UNSUPPORTED, "eq", "f32");
}

static void test_where(void **state)
{
    (void)state;
    const int64_t d21[2] = {2, 1}, d2[1] = {2}, d1[1] = {1}, d22[2] = {2, 2};
    uint8_t cond[2] = {1, 0};
    em_tensor in[3], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_WHERE, "where");
    const em_kernel *k = t_kernel(EM_OP_WHERE, EMBER_DTYPE_BOOL);
    t_tensor(&in[0], EMBER_DTYPE_BOOL, 2, d21, cond);
    ts_in(&in[1], 1, d2, (const char *[]){"x0", "x1"});
    ts_in(&in[2], 1, d1, (const char *[]){"y"});
    em_storage *s = ts_out(&out[0], 2, d22);
    t_expect_ok(ts_run(k, &tn.n, in, 3, out, 1, &s, 0), "where");
    ts_expect("where", &out[0], (const char *[]){"x0", "x1", "y", "y"}, 4);
    em_storage_release(s);
    /* f32 X and Y: declined, so the generic Where runs. */
    float f[2] = {1, 2};
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d2, f);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, d2, f);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, NULL);
    t_expect_error(ts_run(k, &tn.n, in, 3, out, 1, NULL, 0), EMBER_ERR_UNSUPPORTED, "where",
                   "f32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat),       cmocka_unit_test(test_concat_errors),
        cmocka_unit_test(test_split),        cmocka_unit_test(test_split_errors),
        cmocka_unit_test(test_equal),        cmocka_unit_test(test_where),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
