/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/text_cast_ref.c: Cast and CastLike to and from strings. Expected texts are
 * numpy's str() of each value (onnx's reference casts with astype), written out by hand: the
 * conformance floats, the positional / scientific thresholds of f64, f32 and f16 (1e16, 1e6,
 * 1e3, and 1e-4 below), -0, NaN, infinities, denormals, bf16, every integer width at its
 * limits, bool. Parsing: "NaN" / "INF" / "+INF" / "-INF" / "Infinity", surrounding spaces,
 * scientific notation, integers exact at the int64 limits, decimal text truncated for integer
 * outputs, range errors per width, bool words and numbers; bad text fails in prepare when it
 * sees the data (naming the element) and gives NaN / 0 otherwise. Rows decline (UNSUPPORTED)
 * when no string is involved.
 */
#include "test_ref_text_util.h"

static ember_status *cast_run(em_op op, const char *name, ember_dtype from, const void *x,
                              ember_dtype to, void *y, int64_t n, em_storage **ys, unsigned mask)
{
    const int64_t d[1] = {n};
    em_tensor in[2], out[1];
    t_tensor(&in[0], from, 1, d, (void *)x);
    t_tensor(&in[1], to, 0, NULL, NULL); /* CastLike's target: only its dtype matters */
    if (to == EMBER_DTYPE_STRING) {
        *ys = ts_out(&out[0], 1, d);
    } else {
        t_tensor(&out[0], to, 1, d, y);
    }
    t_node tn;
    t_node_init(&tn, op, name);
    if (op == EM_OP_CAST) {
        t_set_int(&tn, "to", to);
    }
    const em_kernel *k = t_kernel(op, from == EMBER_DTYPE_STRING ? EMBER_DTYPE_STRING : from);
    return ts_run(k, &tn.n, in, op == EM_OP_CAST ? 1 : 2, out, 1,
                  to == EMBER_DTYPE_STRING ? ys : NULL, mask);
}

static void to_string(ember_dtype dt, const void *x, const char *const *want, int64_t n,
                      const char *name)
{
    for (int like = 0; like < 2; like++) {
        em_storage *s = NULL;
        em_op op = like ? EM_OP_CASTLIKE : EM_OP_CAST;
        const int64_t d[1] = {n};
        em_tensor out;
        t_expect_ok(cast_run(op, name, dt, x, EMBER_DTYPE_STRING, NULL, n, &s, 0), name);
        t_tensor(&out, EMBER_DTYPE_STRING, 1, d, em_storage_data(s));
        ts_expect(name, &out, want, n);
        em_storage_release(s);
    }
}

static void test_to_string(void **state)
{
    (void)state;
    const float f[] = {0.9767611026763916f, 0.03918779268860817f, 1e-5f, 100.0f, 1e6f,
                       123456.0f, -0.0f, NAN, -INFINITY, 1.4e-45f, 3.4028235e38f, 1e-4f,
                       0.00012f, 16777216.0f, 999999.0f, 0.5f};
    to_string(EMBER_DTYPE_F32, f,
              (const char *const[]){"0.9767611", "0.039187793", "1e-05", "100.0", "1e+06",
                                    "123456.0", "-0.0", "nan", "-inf", "1e-45", "3.4028235e+38",
                                    "1e-04", "0.00012", "1.6777216e+07", "999999.0", "0.5"},
              16, "f32");
    const double d[] = {1e15, 1e16, 0.1, 123456789.0, 1.5e-45, 1e-100, 1e-4, -2.5, INFINITY};
    to_string(EMBER_DTYPE_F64, d,
              (const char *const[]){"1000000000000000.0", "1e+16", "0.1", "123456789.0",
                                    "1.5e-45", "1e-100", "0.0001", "-2.5", "inf"},
              9, "f64");
    const uint16_t h[] = {0x3c00, 0x63d0, 0x63ce, 0x7bff, 0x2e66, 0x0001, 0xfe00};
    to_string(EMBER_DTYPE_F16, h,
              (const char *const[]){"1.0", "1e+03", "999.0", "6.55e+04", "0.1", "6e-08", "nan"},
              7, "f16");
    const uint16_t b[] = {0x3f80, 0x3dcd, 0xc2c8};
    to_string(EMBER_DTYPE_BF16, b, (const char *const[]){"1.0", "0.1", "-100.0"}, 3, "bf16");
    const int8_t i8[] = {-128, 127, 0};
    to_string(EMBER_DTYPE_I8, i8, (const char *const[]){"-128", "127", "0"}, 3, "i8");
    const int16_t i16[] = {-32768, 32767};
    to_string(EMBER_DTYPE_I16, i16, (const char *const[]){"-32768", "32767"}, 2, "i16");
    const int32_t i32[] = {INT32_MIN, 42};
    to_string(EMBER_DTYPE_I32, i32, (const char *const[]){"-2147483648", "42"}, 2, "i32");
    const int64_t i64[] = {INT64_MIN, INT64_MAX};
    to_string(EMBER_DTYPE_I64, i64,
              (const char *const[]){"-9223372036854775808", "9223372036854775807"}, 2, "i64");
    const uint8_t u8[] = {255, 0};
    to_string(EMBER_DTYPE_U8, u8, (const char *const[]){"255", "0"}, 2, "u8");
    const uint16_t u16[] = {65535};
    to_string(EMBER_DTYPE_U16, u16, (const char *const[]){"65535"}, 1, "u16");
    const uint32_t u32[] = {4294967295u};
    to_string(EMBER_DTYPE_U32, u32, (const char *const[]){"4294967295"}, 1, "u32");
    const uint64_t u64[] = {UINT64_MAX};
    to_string(EMBER_DTYPE_U64, u64, (const char *const[]){"18446744073709551615"}, 1, "u64");
    const uint8_t bo[] = {1, 0};
    to_string(EMBER_DTYPE_BOOL, bo, (const char *const[]){"True", "False"}, 2, "bool");
    to_string(EMBER_DTYPE_F32, NULL, NULL, 0, "empty");
}

static void test_from_string_float(void **state)
{
    (void)state;
    const char *x[] = {"0.47892547", "NaN", "INF", "+INF", "-INF", " 2.5 ", "1e-5", "1E8",
                       "Infinity", "-0", ".5", "7."};
    const float want[] = {0.47892547f, NAN, INFINITY, INFINITY, -INFINITY, 2.5f, 1e-5f, 1e8f,
                          INFINITY, -0.0f, 0.5f, 7.0f};
    float y[12];
    for (int like = 0; like < 2; like++) {
        t_expect_ok(cast_run(like ? EM_OP_CASTLIKE : EM_OP_CAST, "s2f", EMBER_DTYPE_STRING, x,
                             EMBER_DTYPE_F32, y, 12, NULL, TS_ALL_CONST),
                    "s2f");
        for (int i = 0; i < 12; i++) {
            bool ok = isnan(want[i]) ? isnan(y[i])
                                     : memcmp(&y[i], &want[i], sizeof y[i]) == 0;
            if (!ok) {
                fail_msg("element %d ('%s') is %.9g, expected %.9g", i, x[i], y[i], want[i]);
            }
        }
    }
    double yd[1];
    t_expect_ok(cast_run(EM_OP_CAST, "s2d", EMBER_DTYPE_STRING, (const char *[]){"0.1"},
                         EMBER_DTYPE_F64, yd, 1, NULL, TS_ALL_CONST),
                "s2d");
    assert_true(yd[0] == 0.1);
    uint16_t yh[3];
    t_expect_ok(cast_run(EM_OP_CAST, "s2h", EMBER_DTYPE_STRING,
                         (const char *[]){"65504", "1e5", "-1"}, EMBER_DTYPE_F16, yh, 3, NULL,
                         TS_ALL_CONST),
                "s2h");
    assert_int_equal(yh[0], 0x7bff);
    assert_int_equal(yh[1], 0x7c00);
    assert_int_equal(yh[2], 0xbc00);
    t_expect_ok(cast_run(EM_OP_CAST, "s2bf", EMBER_DTYPE_STRING, (const char *[]){"1.0"},
                         EMBER_DTYPE_BF16, yh, 1, NULL, TS_ALL_CONST),
                "s2bf");
    assert_int_equal(yh[0], 0x3f80);
}

static void test_from_string_int(void **state)
{
    (void)state;
    const char *x[] = {"100.5", "-100.5", "-7", "9223372036854775807", "-9223372036854775808",
                       "1e3", " +42 ", "0"};
    const int64_t want[] = {100, -100, -7, INT64_MAX, INT64_MIN, 1000, 42, 0};
    int64_t y[8];
    t_expect_ok(cast_run(EM_OP_CAST, "s2i64", EMBER_DTYPE_STRING, x, EMBER_DTYPE_I64, y, 8, NULL,
                         TS_ALL_CONST),
                "s2i64");
    for (int i = 0; i < 8; i++) {
        assert_true(y[i] == want[i]);
    }
    int8_t y8[2];
    t_expect_ok(cast_run(EM_OP_CAST, "s2i8", EMBER_DTYPE_STRING, (const char *[]){"127", "-128"},
                         EMBER_DTYPE_I8, y8, 2, NULL, TS_ALL_CONST),
                "s2i8");
    assert_int_equal(y8[0], 127);
    assert_int_equal(y8[1], -128);
    uint64_t yu[2];
    t_expect_ok(cast_run(EM_OP_CAST, "s2u64", EMBER_DTYPE_STRING,
                         (const char *[]){"18446744073709551615", "-0"}, EMBER_DTYPE_U64, yu, 2,
                         NULL, TS_ALL_CONST),
                "s2u64");
    assert_true(yu[0] == UINT64_MAX && yu[1] == 0);
    /* Out of range for the width, or not an integer at all. */
    static const struct {
        ember_dtype dt;
        const char *text;
    } bad[] = {{EMBER_DTYPE_I64, "9223372036854775808"}, {EMBER_DTYPE_I8, "300"},
               {EMBER_DTYPE_I8, "-129"},                 {EMBER_DTYPE_U8, "-1"},
               {EMBER_DTYPE_I32, "nan"},                 {EMBER_DTYPE_I16, "inf"},
               {EMBER_DTYPE_U16, "1e10"},                {EMBER_DTYPE_I32, "12abc"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t sink[1];
        t_expect_error(cast_run(EM_OP_CAST, "s2int_bad", EMBER_DTYPE_STRING, &bad[i].text,
                                bad[i].dt, sink, 1, NULL, TS_ALL_CONST),
                       EMBER_ERR_INVALID_ARG, "s2int_bad", bad[i].text);
    }
}

static void test_from_string_bool_and_copy(void **state)
{
    (void)state;
    const char *x[] = {"True", "false", " FALSE ", "0", "2.5", "nan"};
    uint8_t y[6];
    t_expect_ok(cast_run(EM_OP_CAST, "s2b", EMBER_DTYPE_STRING, x, EMBER_DTYPE_BOOL, y, 6, NULL,
                         TS_ALL_CONST),
                "s2b");
    ts_expect_bool("s2b", &(em_tensor){.data = y}, (const uint8_t[]){1, 0, 0, 0, 1, 1}, 6);
    t_expect_error(cast_run(EM_OP_CAST, "s2b_bad", EMBER_DTYPE_STRING, (const char *[]){"yes"},
                            EMBER_DTYPE_BOOL, y, 1, NULL, TS_ALL_CONST),
                   EMBER_ERR_INVALID_ARG, "s2b_bad", "yes");
    /* String to string copies. */
    em_storage *s = NULL;
    const char *sx[2] = {"a", "\xc3\xa9"};
    t_expect_ok(cast_run(EM_OP_CAST, "s2s", EMBER_DTYPE_STRING, sx, EMBER_DTYPE_STRING, NULL, 2,
                         &s, 0),
                "s2s");
    em_tensor out;
    t_tensor(&out, EMBER_DTYPE_STRING, 1, (const int64_t[]){2}, em_storage_data(s));
    ts_expect("s2s", &out, sx, 2);
    em_storage_release(s);
}

static void test_bad_text(void **state)
{
    (void)state;
    const char *x[] = {"0.5", "abc", "", "1.2.3", "0x10", "1e", "nan(1)", "- 1"};
    float y[8];
    for (int i = 1; i < 8; i++) { /* prepare sees the data: an error naming the element */
        t_expect_error(cast_run(EM_OP_CAST, "s2f_bad", EMBER_DTYPE_STRING, &x[i],
                                EMBER_DTYPE_F32, y, 1, NULL, TS_ALL_CONST),
                       EMBER_ERR_INVALID_ARG, "s2f_bad", x[i]);
    }
    /* Without the data in prepare, run cannot fail: NaN. */
    t_expect_ok(cast_run(EM_OP_CAST, "s2f_late", EMBER_DTYPE_STRING, x, EMBER_DTYPE_F32, y, 8,
                         NULL, 0),
                "late");
    assert_true(y[0] == 0.5f);
    for (int i = 1; i < 8; i++) {
        assert_true(isnan(y[i]));
    }
}

static void test_declines(void **state)
{
    (void)state;
    const float x[1] = {1};
    float y[1];
    t_expect_error(cast_run(EM_OP_CAST, "f2f", EMBER_DTYPE_F32, x, EMBER_DTYPE_F32, y, 1, NULL, 0),
                   EMBER_ERR_UNSUPPORTED, "f2f", "no string");
    t_expect_error(cast_run(EM_OP_CASTLIKE, "f2f_like", EMBER_DTYPE_F32, x, EMBER_DTYPE_F64, y,
                            1, NULL, 0),
                   EMBER_ERR_UNSUPPORTED, "f2f_like", "no string");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_string),
        cmocka_unit_test(test_from_string_float),
        cmocka_unit_test(test_from_string_int),
        cmocka_unit_test(test_from_string_bool_and_copy),
        cmocka_unit_test(test_bad_text),
        cmocka_unit_test(test_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
