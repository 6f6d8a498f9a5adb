/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The math family on the low-precision dtypes and the ops of opsets 22-28:
 *  - Cast / CastLike to and from float8, float4, float8e8m0, int4, int2, with `saturate` and
 *    `round_mode`: every expected bit pattern worked out by hand from the format (see
 *    tests/runtime/test_lowp.c for the conversions themselves);
 *  - BitCast-26: the bytes kept, widths checked;
 *  - BitShift-28 on signed types (arithmetic right shift, out-of-range shifts);
 *  - Mod-28 with fmod = 0 on floats (numpy.mod: the divisor's sign, its special cases);
 *  - Mish-22;
 *  - Dropout-22 on float8 data: inference copies the bytes; training keeps data * 2 (ratio 0.5),
 *    rounded into e4m3fn (1 -> 2 is 0x38 -> 0x40), or drops it to 0.
 */
#include "test_ref_math_util.h"

#include <float.h>

/* Runs `tn` on one input (or two when in1 is not NULL) of n elements; returns the status. */
static ember_status *run1(const t_node *tn, ember_dtype xdt, const void *x, int64_t n,
                          ember_dtype ydt, void *y)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], xdt, 1, &n, (void *)x);
    t_tensor(&out[0], ydt, 1, &n, y);
    return tm_prepare(tn, in, 1, out);
}

static void expect_bytes(const char *what, const uint8_t *got, const uint8_t *want, int n)
{
    for (int i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("%s: element %d is 0x%02X, expected 0x%02X", what, i, got[i], want[i]);
        }
    }
}

static void cast_f32_to(const char *what, ember_dtype to, int saturate, const char *round_mode,
                        const float *x, const uint8_t *want, int n)
{
    uint8_t y[16];
    t_node tn;
    t_node_init(&tn, EM_OP_CAST, what);
    t_set_int(&tn, "to", to);
    if (saturate >= 0) {
        t_set_int(&tn, "saturate", saturate);
    }
    if (round_mode != NULL) {
        t_set_string(&tn, "round_mode", round_mode);
    }
    t_expect_ok(run1(&tn, EMBER_DTYPE_F32, x, n, to, y), what);
    expect_bytes(what, y, want, n);
}

static void test_cast_to_float8(void **state)
{
    (void)state;
    /* e4m3fn: 1 = 0x38, 448 (max) = 0x7E; ties to the even mantissa; 465 is past the tie with
     * 480; NaN = S.1111.111; 2^-10 is the tie between 0 and the smallest subnormal 2^-9 */
    const float x[10] = {1.0f, 448.0f, 1.0625f, 1.1875f, 465.0f, -465.0f,
                         INFINITY, NAN, -0.0f, 0x1p-10f};
    const uint8_t sat[10] = {0x38, 0x7E, 0x38, 0x3A, 0x7E, 0xFE, 0x7E, 0x7F, 0x80, 0x00};
    const uint8_t nosat[10] = {0x38, 0x7E, 0x38, 0x3A, 0x7F, 0xFF, 0x7F, 0x7F, 0x80, 0x00};
    cast_f32_to("e4m3fn_sat", EMBER_DTYPE_F8E4M3FN, -1, NULL, x, sat, 10);
    cast_f32_to("e4m3fn_nosat", EMBER_DTYPE_F8E4M3FN, 0, NULL, x, nosat, 10);
    /* e5m2: 61440 ties 57344 | 65536 and overflows: infinity 0x7C without saturate */
    const float x5[4] = {1.0f, 61440.0f, -INFINITY, NAN};
    const uint8_t s5[4] = {0x3C, 0x7B, 0xFB, 0x7E}, n5[4] = {0x3C, 0x7C, 0xFC, 0x7E};
    cast_f32_to("e5m2_sat", EMBER_DTYPE_F8E5M2, 1, NULL, x5, s5, 4);
    cast_f32_to("e5m2_nosat", EMBER_DTYPE_F8E5M2, 0, NULL, x5, n5, 4);
    /* the fnuz types: one NaN 0x80, no -0 */
    const float xz[4] = {1.0f, 248.0f, -0.0f, NAN};
    const uint8_t sz[4] = {0x40, 0x7F, 0x00, 0x80}, nz[4] = {0x40, 0x80, 0x00, 0x80};
    cast_f32_to("e4m3fnuz_sat", EMBER_DTYPE_F8E4M3FNUZ, 1, NULL, xz, sz, 4);
    cast_f32_to("e4m3fnuz_nosat", EMBER_DTYPE_F8E4M3FNUZ, 0, NULL, xz, nz, 4);
    /* float4e2m1: 0 0.5 1 1.5 2 3 4 6, always saturating */
    const float x4[4] = {0.25f, 0.75f, 5.0f, 100.0f};
    const uint8_t w4[4] = {0x0, 0x2, 0x6, 0x7};
    cast_f32_to("f4e2m1", EMBER_DTYPE_F4E2M1, 0, NULL, x4, w4, 4);
    /* float8e8m0 2^(e - 127): 1.5 and 3 have the guard bit set, 1.25 not */
    const float x8[3] = {1.5f, 1.25f, 3.0f};
    const uint8_t up[3] = {0x80, 0x80, 0x81}, down[3] = {0x7F, 0x7F, 0x80};
    const uint8_t near[3] = {0x80, 0x7F, 0x81};
    cast_f32_to("e8m0_up", EMBER_DTYPE_F8E8M0, -1, NULL, x8, up, 3);
    cast_f32_to("e8m0_down", EMBER_DTYPE_F8E8M0, 1, "down", x8, down, 3);
    cast_f32_to("e8m0_nearest", EMBER_DTYPE_F8E8M0, 1, "nearest", x8, near, 3);
}

static void test_cast_from_float8(void **state)
{
    (void)state;
    const uint8_t x[5] = {0x38, 0x7E, 0x01, 0xFF, 0x80};
    float y[5];
    t_node tn;
    t_node_init(&tn, EM_OP_CAST, "e4m3fn_to_f32");
    t_set_int(&tn, "to", EMBER_DTYPE_F32);
    t_expect_ok(run1(&tn, EMBER_DTYPE_F8E4M3FN, x, 5, EMBER_DTYPE_F32, y), "e4m3fn_to_f32");
    assert_true(y[0] == 1.0f && y[1] == 448.0f && y[2] == 0x1p-9f && isnan(y[3]));
    assert_true(y[4] == 0.0f && signbit(y[4]));
    /* float8 to float8: 448 = 1.75 * 2^8 is e5m2 0 10111 11; 2^-9 is normal there */
    uint8_t z[2];
    t_node_init(&tn, EM_OP_CAST, "e4m3fn_to_e5m2");
    t_set_int(&tn, "to", EMBER_DTYPE_F8E5M2);
    t_expect_ok(run1(&tn, EMBER_DTYPE_F8E4M3FN, x + 1, 2, EMBER_DTYPE_F8E5M2, z),
                "e4m3fn_to_e5m2");
    const uint8_t want[2] = {0x5F, 0x18};
    expect_bytes("e4m3fn_to_e5m2", z, want, 2);
    /* CastLike takes saturate too: 248 overflows e4m3fnuz to its NaN */
    const float xl[2] = {248.0f, 240.0f};
    uint8_t like = 0, yl[2];
    int64_t n = 2, one = 1;
    em_tensor in[2], out[1];
    t_node_init(&tn, EM_OP_CASTLIKE, "castlike_nosat");
    t_set_int(&tn, "saturate", 0);
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, (void *)xl);
    t_tensor(&in[1], EMBER_DTYPE_F8E4M3FNUZ, 1, &one, &like);
    t_tensor(&out[0], EMBER_DTYPE_F8E4M3FNUZ, 1, &n, yl);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "castlike_nosat");
    const uint8_t wl[2] = {0x80, 0x7F};
    expect_bytes("castlike_nosat", yl, wl, 2);
}

static void test_cast_int4_int2(void **state)
{
    (void)state;
    /* float -> int4 truncates and keeps the low 4 bits (ONNX's reference); NaN, inf -> 0 */
    const float x[7] = {-9.0f, -8.6f, 7.9f, 8.0f, 20.0f, NAN, INFINITY};
    const uint8_t w[7] = {0x7, 0x8, 0x7, 0x8, 0x4, 0x0, 0x0};
    cast_f32_to("f32_to_i4", EMBER_DTYPE_I4, -1, NULL, x, w, 7);
    /* int8 -> uint2: the low 2 bits */
    const int8_t xi[3] = {5, -1, 3};
    uint8_t y[3];
    t_node tn;
    t_node_init(&tn, EM_OP_CAST, "i8_to_u2");
    t_set_int(&tn, "to", EMBER_DTYPE_U2);
    t_expect_ok(run1(&tn, EMBER_DTYPE_I8, xi, 3, EMBER_DTYPE_U2, y), "i8_to_u2");
    const uint8_t wu[3] = {1, 3, 3};
    expect_bytes("i8_to_u2", y, wu, 3);
    /* int4 -> f32 and int32 sign-extend; uint4 does not */
    const uint8_t c4[3] = {0x8, 0xF, 0x7};
    float f[3];
    int32_t i[3];
    t_node_init(&tn, EM_OP_CAST, "i4_to_f32");
    t_set_int(&tn, "to", EMBER_DTYPE_F32);
    t_expect_ok(run1(&tn, EMBER_DTYPE_I4, c4, 3, EMBER_DTYPE_F32, f), "i4_to_f32");
    assert_true(f[0] == -8.0f && f[1] == -1.0f && f[2] == 7.0f);
    t_expect_ok(run1(&tn, EMBER_DTYPE_U4, c4, 3, EMBER_DTYPE_F32, f), "u4_to_f32");
    assert_true(f[0] == 8.0f && f[1] == 15.0f && f[2] == 7.0f);
    t_node_init(&tn, EM_OP_CAST, "i2_to_i32");
    t_set_int(&tn, "to", EMBER_DTYPE_I32);
    const uint8_t c2[3] = {0x2, 0x3, 0x1};
    t_expect_ok(run1(&tn, EMBER_DTYPE_I2, c2, 3, EMBER_DTYPE_I32, i), "i2_to_i32");
    assert_true(i[0] == -2 && i[1] == -1 && i[2] == 1);
}

static void test_bitcast(void **state)
{
    (void)state;
    const float x[2] = {1.0f, -2.0f};
    uint32_t y[2];
    t_node tn;
    t_node_init(&tn, EM_OP_BITCAST, "f32_to_i32");
    t_set_int(&tn, "to", EMBER_DTYPE_I32);
    t_expect_ok(run1(&tn, EMBER_DTYPE_F32, x, 2, EMBER_DTYPE_I32, y), "f32_to_i32");
    assert_true(y[0] == 0x3F800000u && y[1] == 0xC0000000u); /* IEEE binary32 of 1 and -2 */
    const uint8_t c4[2] = {0xF, 0x8};
    uint8_t u4[2];
    t_node_init(&tn, EM_OP_BITCAST, "i4_to_u4");
    t_set_int(&tn, "to", EMBER_DTYPE_U4);
    t_expect_ok(run1(&tn, EMBER_DTYPE_I4, c4, 2, EMBER_DTYPE_U4, u4), "i4_to_u4");
    expect_bytes("i4_to_u4", u4, c4, 2);
    t_node_init(&tn, EM_OP_BITCAST, "f32_to_i16");
    t_set_int(&tn, "to", EMBER_DTYPE_I16);
    t_expect_error(run1(&tn, EMBER_DTYPE_F32, x, 2, EMBER_DTYPE_I16, y), EMBER_ERR_INVALID_MODEL,
                   "f32_to_i16", "width 32 vs 16");
    t_node_init(&tn, EM_OP_BITCAST, "i4_to_i8");
    t_set_int(&tn, "to", EMBER_DTYPE_I8);
    t_expect_error(run1(&tn, EMBER_DTYPE_I4, c4, 2, EMBER_DTYPE_I8, u4), EMBER_ERR_INVALID_MODEL,
                   "i4_to_i8", "width 4 vs 8");
    t_node_init(&tn, EM_OP_BITCAST, "no_to");
    t_expect_error(run1(&tn, EMBER_DTYPE_F32, x, 2, EMBER_DTYPE_I32, y), EMBER_ERR_INVALID_MODEL,
                   "no_to", "no to");
}

/* BitShift of two int tensors of n elements of dtype dt. */
static void shift(const char *dir, ember_dtype dt, const void *x, const void *s, void *y, int64_t n)
{
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_BITSHIFT, dir);
    t_set_string(&tn, "direction", dir);
    t_tensor(&in[0], dt, 1, &n, (void *)x);
    t_tensor(&in[1], dt, 1, &n, (void *)s);
    t_tensor(&out[0], dt, 1, &n, y);
    t_expect_ok(tm_prepare(&tn, in, 2, out), dir);
}

static void test_bitshift_signed(void **state)
{
    (void)state;
    /* arithmetic right shift; a shift < 0 or >= 8 gives the sign fill: -1 for negative x */
    const int8_t x[5] = {-128, -1, 64, -5, 5}, s[5] = {1, 10, 1, -1, 8};
    int8_t y[5];
    shift("RIGHT", EMBER_DTYPE_I8, x, s, y, 5);
    assert_true(y[0] == -64 && y[1] == -1 && y[2] == 32 && y[3] == -1 && y[4] == 0);
    /* left: bits past the sign bit are dropped; out-of-range shifts give 0 */
    const int8_t xl[4] = {64, 1, -1, 3}, sl[4] = {1, 8, 7, -2};
    shift("LEFT", EMBER_DTYPE_I8, xl, sl, y, 4);
    assert_true(y[0] == -128 && y[1] == 0 && y[2] == -128 && y[3] == 0);
    const int32_t x32[2] = {-7, 7}, s32[2] = {1, 31};
    int32_t y32[2];
    shift("RIGHT", EMBER_DTYPE_I32, x32, s32, y32, 2);
    assert_true(y32[0] == -4 && y32[1] == 0); /* -7 >> 1 rounds toward -infinity */
    const int64_t x64[1] = {1}, s64[1] = {63};
    int64_t y64[1];
    shift("LEFT", EMBER_DTYPE_I64, x64, s64, y64, 1);
    assert_true(y64[0] == INT64_MIN);
}

static void test_mod_fmod0_float(void **state)
{
    (void)state;
    /* numpy.mod: fmod, plus the divisor when the signs differ; a zero takes the divisor's
     * sign; x mod 0, inf mod y: NaN; x mod +-inf: x, or the divisor when the signs differ */
    const double a[10] = {-4, 7, 5, -0.0, 0.0, 3, 2, INFINITY, -3, NAN};
    const double b[10] = {3, -3, 0, 2, -2, INFINITY, -INFINITY, 2, 3, 1};
    const double w[10] = {2, -2, NAN, 0.0, -0.0, 3, -INFINITY, NAN, 0.0, NAN};
    const ember_dtype dts[2] = {EMBER_DTYPE_F64, EMBER_DTYPE_F32};
    for (int k = 0; k < 2; k++) {
        void *x0 = tm_buf(dts[k], 10), *x1 = tm_buf(dts[k], 10), *y = tm_buf(dts[k], 10);
        for (int i = 0; i < 10; i++) {
            tm_set(dts[k], x0, i, a[i]);
            tm_set(dts[k], x1, i, b[i]);
        }
        int64_t n = 10;
        em_tensor in[2], out[1];
        t_node tn;
        t_node_init(&tn, EM_OP_MOD, "mod_fmod0");
        t_tensor(&in[0], dts[k], 1, &n, x0);
        t_tensor(&in[1], dts[k], 1, &n, x1);
        t_tensor(&out[0], dts[k], 1, &n, y);
        t_expect_ok(tm_prepare(&tn, in, 2, out), "mod_fmod0");
        for (int i = 0; i < 10; i++) {
            double g = tm_get(dts[k], y, i);
            bool ok = isnan(w[i]) ? isnan(g) : g == w[i] && signbit(g) == signbit(w[i]);
            if (!ok) {
                fail_msg("mod %s: %g mod %g is %g, expected %g", em_dtype_name(dts[k]), a[i],
                         b[i], g, w[i]);
            }
        }
        test_free(x0);
        test_free(x1);
        test_free(y);
    }
}

static void test_mish(void **state)
{
    (void)state;
    /* x tanh(ln(1 + e^x)), from Python's math module */
    const double x[4] = {0.0, 1.0, -1.0, 3.0};
    const double w[4] = {0.0, 0.8650983882673103, -0.30340146137410895, 2.9865350049679575};
    double y[4];
    t_node tn;
    t_node_init(&tn, EM_OP_MISH, "mish");
    t_expect_ok(run1(&tn, EMBER_DTYPE_F64, x, 4, EMBER_DTYPE_F64, y), "mish");
    for (int i = 0; i < 4; i++) {
        assert_true(t_close(y[i], w[i], 0.0, 1e-15));
    }
}

static void test_dropout_float8(void **state)
{
    (void)state;
    uint8_t x[64], y[64], mask[64];
    memset(x, 0x38, sizeof x); /* e4m3fn 1.0 */
    const float ratio = 0.5f;
    const uint8_t train = 1;
    int64_t n = 64;
    em_tensor in[3], out[2];
    t_node tn;
    t_node_init(&tn, EM_OP_DROPOUT, "dropout_f8");
    t_set_int(&tn, "seed", 7);
    t_tensor(&in[0], EMBER_DTYPE_F8E4M3FN, 1, &n, x);
    t_tensor(&out[0], EMBER_DTYPE_F8E4M3FN, 1, &n, y);
    t_tensor(&out[1], EMBER_DTYPE_BOOL, 1, &n, mask);
    const em_kernel *k = t_kernel(EM_OP_DROPOUT, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 1, out, 2, NULL), "dropout_f8_infer");
    assert_memory_equal(y, x, sizeof x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, (void *)&ratio);
    t_tensor(&in[2], EMBER_DTYPE_BOOL, 0, NULL, (void *)&train);
    t_expect_ok(t_run_const(k, &tn.n, in, 3, out, 2, NULL, 0x6), "dropout_f8_train");
    int kept = 0;
    for (int i = 0; i < 64; i++) {
        assert_true(mask[i] ? y[i] == 0x40 : y[i] == 0x00);
        kept += mask[i];
    }
    assert_true(kept > 0 && kept < 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_to_float8),  cmocka_unit_test(test_cast_from_float8),
        cmocka_unit_test(test_cast_int4_int2),  cmocka_unit_test(test_bitcast),
        cmocka_unit_test(test_bitshift_signed), cmocka_unit_test(test_mod_fmod0_float),
        cmocka_unit_test(test_mish),            cmocka_unit_test(test_dropout_float8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
