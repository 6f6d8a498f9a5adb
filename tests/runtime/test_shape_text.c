/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_text.c through em_shape_infer_node. StringNormalizer: the input's shape
 * without stopwords, an unknown length with stopwords and no value, the exact count with one
 * (at least 1, [1, C] kept 2-D; case-insensitive matching); StringSplit: one more dim, unknown
 * or the most pieces of any element, Z of the input's shape; StringConcat broadcasting;
 * RegexFullMatch; TfIdfVectorizer's [max(ngram_indexes) + 1] or [N, ...]. Errors name the node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ir/graph.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_util.h"

static void sn_strs(sn *s, const char *name, char **v, int n)
{
    em_attr *a = sn_attr(s, name, EM_ATTR_STRINGS);
    a->strings = v;
    a->n = n;
}

static void test_normalizer(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    em_tensor t;
    sn_init(&s, EM_OP_STRINGNORMALIZER, "norm", 1, 1);
    in[0] = SHP(EMBER_DTYPE_STRING, -2);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, -2); /* no stopwords: the same shape, symbol kept */
    char *stops[1] = {"monday"};
    sn_strs(&s, "stopwords", stops, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, UNK);
    const char *x[4] = {"monday", "Monday", "tuesday", NULL};
    in[0] = with_value(SHP(EMBER_DTYPE_STRING, 4), &t, x);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 2); /* case-insensitive by default */
    sn_int(&s, "is_case_sensitive", 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 3);
    const char *all[2] = {"monday", "monday"};
    in[0] = with_value(SHP(EMBER_DTYPE_STRING, 1, 2), &t, all);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 1, 1); /* everything dropped: [1, 1] */
    in[0] = SHP(EMBER_DTYPE_STRING, 2, 3);
    infer_err(&s, in);
    in[0] = SHP(EMBER_DTYPE_STRING, 1, 2, 3);
    infer_err(&s, in);
    in[0] = SHP(EMBER_DTYPE_F32, 3);
    infer_err(&s, in);
}

static void test_split(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[2];
    em_tensor t;
    sn_init(&s, EM_OP_STRINGSPLIT, "split", 1, 2);
    in[0] = SHP(EMBER_DTYPE_STRING, 2, -3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 2, -3, UNK);
    EXPECT(out[1], EMBER_DTYPE_I64, 2, -3);
    const char *x[3] = {"a b c", "  ", "d"};
    in[0] = with_value(SHP(EMBER_DTYPE_STRING, 3), &t, x);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 3, 3);
    sn_int(&s, "maxsplit", 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 3, 2);
    sn_str(&s, "delimiter", " ");
    infer_ok(&s, in, out); /* "  ".split(" ", 1) gives 2 pieces too */
    EXPECT(out[0], EMBER_DTYPE_STRING, 3, 2);
    in[0] = with_value(SHP(EMBER_DTYPE_STRING, 0), &t, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 0, 0);
    in[0] = SHP(EMBER_DTYPE_STRING, 1, 1, 1, 1, 1, 1, 1, 1);
    infer_err(&s, in);
    in[0] = SHP(EMBER_DTYPE_I64, 3);
    infer_err(&s, in);
}

static void test_concat_regex(void **state)
{
    (void)state;
    sn s;
    em_shape in[2], out[1];
    sn_init(&s, EM_OP_STRINGCONCAT, "cat", 2, 1);
    in[0] = SHP(EMBER_DTYPE_STRING, 2, 1);
    in[1] = SHP(EMBER_DTYPE_STRING, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_STRING, 2, 3);
    in[1] = SHP(EMBER_DTYPE_F32, 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_REGEXFULLMATCH, "rx", 1, 1);
    in[0] = SHP(EMBER_DTYPE_STRING, 2, -4);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_BOOL, 2, -4);
    in[0] = SHP(EMBER_DTYPE_I32, 2);
    infer_err(&s, in);
}

static void test_tfidf(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    sn_init(&s, EM_OP_TFIDFVECTORIZER, "tfidf", 1, 1);
    in[0] = SHP(EMBER_DTYPE_I32, 12);
    infer_err(&s, in); /* no ngram_indexes */
    sn_ints(&s, "ngram_indexes", DIMS(0, 4, 2), 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 5);
    in[0] = SHP(EMBER_DTYPE_STRING, -2, 6);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, -2, 5);
    in[0] = SHP(EMBER_DTYPE_I64, 2, 2, 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_TFIDFVECTORIZER, "tfidf_neg", 1, 1);
    sn_ints(&s, "ngram_indexes", DIMS(0, -1), 2);
    in[0] = SHP(EMBER_DTYPE_I64, 2);
    infer_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalizer),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_concat_regex),
        cmocka_unit_test(test_tfidf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
