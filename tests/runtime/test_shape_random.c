/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_random.c: RandomUniform/RandomNormal (shape and dtype attributes, default
 * f32), their *Like forms and Bernoulli (the input's shape; dtype from the attribute or the
 * input, symbolic dims kept), Multinomial ([batch, sample_size], int32 default or int64) and
 * Dropout (output like data, bool mask); the errors, each naming the node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_shape_util.h"

static void test_random(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    const int64_t dims[3] = {2, 0, 5};
    sn_init(&s, EM_OP_RANDOMUNIFORM, "ru", 0, 1);
    sn_ints(&s, "shape", dims, 3);
    infer_ok(&s, NULL, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 0, 5);
    sn_init(&s, EM_OP_RANDOMNORMAL, "rn", 0, 1);
    sn_ints(&s, "shape", dims, 1);
    sn_int(&s, "dtype", EMBER_DTYPE_F16);
    infer_ok(&s, NULL, out);
    EXPECT(out[0], EMBER_DTYPE_F16, 2);
    sn_init(&s, EM_OP_RANDOMNORMAL, "rn_scalar", 0, 1);
    sn_ints(&s, "shape", dims, 0);
    sn_int(&s, "dtype", EMBER_DTYPE_BF16);
    infer_ok(&s, NULL, out);
    assert_int_equal(out[0].rank, 0);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_BF16);

    sn_init(&s, EM_OP_RANDOMUNIFORM, "ru_int", 0, 1);
    sn_ints(&s, "shape", dims, 3);
    sn_int(&s, "dtype", EMBER_DTYPE_I32);
    infer_err(&s, NULL);
    sn_init(&s, EM_OP_RANDOMUNIFORM, "ru_no_shape", 0, 1);
    infer_err(&s, NULL);
    const int64_t neg[1] = {-2};
    sn_init(&s, EM_OP_RANDOMUNIFORM, "ru_neg", 0, 1);
    sn_ints(&s, "shape", neg, 1);
    infer_err(&s, NULL);
}

static void test_like_bernoulli(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    sn_init(&s, EM_OP_RANDOMUNIFORMLIKE, "rul", 1, 1);
    in[0] = SHP(EMBER_DTYPE_F64, 3, 4);
    in[0].dims[0].v = -1;
    in[0].dims[0].sym = 2; /* a symbolic batch passes through */
    infer_ok(&s, in, out);
    assert_int_equal(out[0].dims[0].sym, 2);
    EXPECT(out[0], EMBER_DTYPE_F64, UNK, 4);
    sn_init(&s, EM_OP_RANDOMNORMALLIKE, "rnl", 1, 1);
    sn_int(&s, "dtype", EMBER_DTYPE_F32);
    in[0] = SHP(EMBER_DTYPE_I64, 7);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 7);
    sn_init(&s, EM_OP_RANDOMNORMALLIKE, "rnl_int", 1, 1);
    infer_err(&s, in); /* an int input needs 'dtype' */

    sn_init(&s, EM_OP_BERNOULLI, "bern", 1, 1);
    in[0] = SHP(EMBER_DTYPE_F32, 10);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 10);
    sn_int(&s, "dtype", EMBER_DTYPE_BOOL);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_BOOL, 10);
    sn_init(&s, EM_OP_BERNOULLI, "bern_int", 1, 1);
    in[0] = SHP(EMBER_DTYPE_I32, 10);
    infer_err(&s, in);
    sn_init(&s, EM_OP_BERNOULLI, "bern_bad_dtype", 1, 1);
    sn_int(&s, "dtype", 99);
    in[0] = SHP(EMBER_DTYPE_F64, 10);
    infer_err(&s, in);
}

static void test_multinomial(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    sn_init(&s, EM_OP_MULTINOMIAL, "mn", 1, 1);
    in[0] = SHP(EMBER_DTYPE_F32, 3, 10);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 3, 1);
    sn_int(&s, "sample_size", 7);
    sn_int(&s, "dtype", EMBER_DTYPE_I64);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 3, 7);
    in[0] = absent();
    in[0].dtype = EMBER_DTYPE_F16;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK, 7);

    in[0] = SHP(EMBER_DTYPE_F32, 3, 10);
    sn_init(&s, EM_OP_MULTINOMIAL, "mn_f32_out", 1, 1);
    sn_int(&s, "dtype", EMBER_DTYPE_F32);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MULTINOMIAL, "mn_zero", 1, 1);
    sn_int(&s, "sample_size", 0);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MULTINOMIAL, "mn_rank1", 1, 1);
    in[0] = SHP(EMBER_DTYPE_F32, 10);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MULTINOMIAL, "mn_int", 1, 1);
    in[0] = SHP(EMBER_DTYPE_I32, 3, 10);
    infer_err(&s, in);
}

static void test_dropout(void **state)
{
    (void)state;
    sn s;
    em_shape in[3], out[2];
    sn_init(&s, EM_OP_DROPOUT, "do", 3, 2);
    in[0] = SHP(EMBER_DTYPE_F16, 3, 4, 5);
    in[1] = shp(EMBER_DTYPE_F32, 0, NULL);
    in[2] = shp(EMBER_DTYPE_BOOL, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F16, 3, 4, 5);
    EXPECT(out[1], EMBER_DTYPE_BOOL, 3, 4, 5);
    sn_init(&s, EM_OP_DROPOUT, "do_one", 2, 1);
    in[1] = absent();
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F16, 3, 4, 5);

    struct {
        const char *name;
        ember_dtype x, r, t;
        int r_rank;
    } bads[] = {
        {"do_data_int", EMBER_DTYPE_I32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, 0},
        {"do_ratio_int", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_BOOL, 0},
        {"do_ratio_two", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, 1},
        {"do_training_f32", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 0},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        sn_init(&s, EM_OP_DROPOUT, bads[i].name, 3, 2);
        in[0] = SHP(bads[i].x, 4);
        in[1] = bads[i].r_rank ? SHP(bads[i].r, 2) : shp(bads[i].r, 0, NULL);
        in[2] = shp(bads[i].t, 0, NULL);
        infer_err(&s, in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_like_bernoulli),
        cmocka_unit_test(test_multinomial),
        cmocka_unit_test(test_dropout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
