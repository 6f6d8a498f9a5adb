/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/quant_linear_ref.c on the types of QuantizeLinear / DequantizeLinear 23-28:
 * float8 (saturate), float4, float6, int4, int2 outputs and inputs, a float8e8m0 scale,
 * QuantizeLinear's `precision`, and the errors of each. Expected bytes are worked out by hand:
 * integers by round-half-to-even of x / scale, plus the zero point, clamped to the type's range
 * (int4 [-8, 7], uint2 [0, 3]); float formats by rounding x / scale + zero point to the format
 * (see tests/runtime/test_lowp.c).
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

/* QuantizeLinear of f32 x[n] by a scalar f32 scale; zp of dtype zdt (NULL: none). */
static ember_status *quantize(const t_node *tn, const float *x, int64_t n, float scale,
                              ember_dtype zdt, const void *zp, ember_dtype ydt, void *y)
{
    em_tensor in[3], out[1];
    q_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    q_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &scale);
    q_tensor(&in[2], zdt, 0, NULL, zp);
    q_tensor(&out[0], ydt, 1, &n, y);
    return q_run(EM_OP_QUANTIZELINEAR, tn, in, zp != NULL ? 3 : 2, out, 1, 0);
}

static void expect_bytes(const char *what, const uint8_t *got, const uint8_t *want, int n)
{
    for (int i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("%s: element %d is 0x%02X, expected 0x%02X", what, i, got[i], want[i]);
        }
    }
}

static void test_quantize_float8(void **state)
{
    (void)state;
    /* x / 2 = 0.5 (e4m3fn 0 0110 000), 1, 448 (the max), 465 (past the 448 | 480 tie), NaN */
    const float x[5] = {1.0f, 2.0f, 896.0f, 930.0f, NAN};
    const uint8_t zp = 0x00, sat[5] = {0x30, 0x38, 0x7E, 0x7E, 0x7F};
    const uint8_t nosat[5] = {0x30, 0x38, 0x7E, 0x7F, 0x7F};
    uint8_t y[5];
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_e4m3fn");
    t_expect_ok(quantize(&tn, x, 5, 2.0f, EMBER_DTYPE_F8E4M3FN, &zp, EMBER_DTYPE_F8E4M3FN, y),
                "q_e4m3fn");
    expect_bytes("q_e4m3fn", y, sat, 5);
    t_set_int(&tn, "saturate", 0);
    t_expect_ok(quantize(&tn, x, 5, 2.0f, EMBER_DTYPE_F8E4M3FN, &zp, EMBER_DTYPE_F8E4M3FN, y),
                "q_e4m3fn_nosat");
    expect_bytes("q_e4m3fn_nosat", y, nosat, 5);
    /* float4e2m1 (0 0.5 1 1.5 2 3 4 6) and float6e3m2 (1 = 0 011 00, max 28) by output_dtype */
    const float x4[3] = {0.5f, 5.0f, 100.0f};
    const uint8_t w4[3] = {0x1, 0x6, 0x7}, w6[3] = {0x08, 0x15, 0x1F};
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_f4");
    t_set_int(&tn, "output_dtype", EMBER_DTYPE_F4E2M1);
    t_expect_ok(quantize(&tn, x4, 3, 1.0f, EMBER_DTYPE_UNDEFINED, NULL, EMBER_DTYPE_F4E2M1, y),
                "q_f4");
    expect_bytes("q_f4", y, w4, 3);
    /* f6e3m2: 0.5 = 0 010 00; 5 = 1.25 * 4 = 0 101 01; 100 saturates to 0x1F */
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_f6");
    t_set_int(&tn, "output_dtype", EMBER_DTYPE_F6E3M2);
    t_expect_ok(quantize(&tn, x4, 3, 1.0f, EMBER_DTYPE_UNDEFINED, NULL, EMBER_DTYPE_F6E3M2, y),
                "q_f6");
    expect_bytes("q_f6", y, w6, 3);
}

static void test_quantize_int4_int2(void **state)
{
    (void)state;
    /* x / 2 = -10, 1.5, 3.95, 50 -> rint -10, 2, 4, 50 -> + 1 -> clamp [-8, 7] */
    const float x[4] = {-20.0f, 3.0f, 7.9f, 100.0f};
    const uint8_t zp = 0x1, w[4] = {0x8, 0x3, 0x5, 0x7};
    uint8_t y[4];
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_i4");
    t_expect_ok(quantize(&tn, x, 4, 2.0f, EMBER_DTYPE_I4, &zp, EMBER_DTYPE_I4, y), "q_i4");
    expect_bytes("q_i4", y, w, 4);
    /* uint2 by output_dtype: rint 0, 2, 2, 9 -> clamp [0, 3] */
    const float x2[4] = {0.4f, 1.5f, 2.5f, 9.0f};
    const uint8_t w2[4] = {0, 2, 2, 3};
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_u2");
    t_set_int(&tn, "output_dtype", EMBER_DTYPE_U2);
    t_expect_ok(quantize(&tn, x2, 4, 1.0f, EMBER_DTYPE_UNDEFINED, NULL, EMBER_DTYPE_U2, y), "q_u2");
    expect_bytes("q_u2", y, w2, 4);
}

static void test_quantize_scale_precision(void **state)
{
    (void)state;
    /* a float8e8m0 scale: 0x80 = 2^1; 3 / 2 = 1.5 rounds to 2 (even), 10 / 2 = 5 */
    const float x[2] = {3.0f, 10.0f};
    const uint8_t s = 0x80;
    uint8_t y[2];
    int64_t n = 2;
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_e8m0_scale");
    q_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    q_tensor(&in[1], EMBER_DTYPE_F8E8M0, 0, NULL, &s);
    q_tensor(&out[0], EMBER_DTYPE_U8, 1, &n, y);
    t_expect_ok(q_run(EM_OP_QUANTIZELINEAR, &tn, in, 2, out, 1, 0), "q_e8m0_scale");
    assert_true(y[0] == 2 && y[1] == 5);
    /* precision = float16: 2049 becomes 2048 (the f16 tie 2048 | 2050 goes even) first */
    const float big = 2049.0f;
    int16_t q = 0;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_precision");
    t_set_int(&tn, "output_dtype", EMBER_DTYPE_I16);
    t_expect_ok(quantize(&tn, &big, 1, 1.0f, EMBER_DTYPE_UNDEFINED, NULL, EMBER_DTYPE_I16, &q),
                "q_no_precision");
    assert_int_equal(q, 2049);
    t_set_int(&tn, "precision", EMBER_DTYPE_F16);
    t_expect_ok(quantize(&tn, &big, 1, 1.0f, EMBER_DTYPE_UNDEFINED, NULL, EMBER_DTYPE_I16, &q),
                "q_precision");
    assert_int_equal(q, 2048);
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "q_precision_i64");
    t_set_int(&tn, "precision", EMBER_DTYPE_I64);
    t_expect_error(quantize(&tn, &big, 1, 1.0f, EMBER_DTYPE_UNDEFINED, NULL, EMBER_DTYPE_U8, y),
                   EMBER_ERR_UNSUPPORTED, "q_precision_i64", "precision int64");
}

/* DequantizeLinear of x[n] (dtype xdt) by a scalar scale (dtype sdt), zp of xdt or NULL. */
static ember_status *dequantize(const t_node *tn, ember_dtype xdt, const void *x, int64_t n,
                                ember_dtype sdt, const void *s, const void *zp, float *y)
{
    em_tensor in[3], out[1];
    q_tensor(&in[0], xdt, 1, &n, x);
    q_tensor(&in[1], sdt, 0, NULL, s);
    q_tensor(&in[2], xdt, 0, NULL, zp);
    q_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, y);
    return q_run(EM_OP_DEQUANTIZELINEAR, tn, in, zp != NULL ? 3 : 2, out, 1, 0);
}

static void test_dequantize(void **state)
{
    (void)state;
    float y[3];
    const float half = 0.5f, two = 2.0f, quarter = 0.25f;
    t_node tn;
    /* int4 -8, -1, 7 minus the zero point 1, times 0.5 */
    const uint8_t x4[3] = {0x8, 0xF, 0x7}, z4 = 0x1;
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "dq_i4");
    t_expect_ok(dequantize(&tn, EMBER_DTYPE_I4, x4, 3, EMBER_DTYPE_F32, &half, &z4, y), "dq_i4");
    assert_true(y[0] == -4.5f && y[1] == -1.0f && y[2] == 3.0f);
    /* e4m3fn 1, 448, NaN times 2 */
    const uint8_t x8[3] = {0x38, 0x7E, 0x7F};
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "dq_e4m3fn");
    t_expect_ok(dequantize(&tn, EMBER_DTYPE_F8E4M3FN, x8, 3, EMBER_DTYPE_F32, &two, NULL, y),
                "dq_e4m3fn");
    assert_true(y[0] == 2.0f && y[1] == 896.0f && isnan(y[2]));
    /* uint2 3, 1 minus 1, times 0.25 */
    const uint8_t x2[2] = {3, 1}, z2 = 1;
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "dq_u2");
    t_expect_ok(dequantize(&tn, EMBER_DTYPE_U2, x2, 2, EMBER_DTYPE_F32, &quarter, &z2, y),
                "dq_u2");
    assert_true(y[0] == 0.5f && y[1] == 0.0f);
    /* a float8e8m0 scale 0x7E = 2^-1 needs output_dtype */
    const int8_t xi[2] = {4, -6};
    const uint8_t s = 0x7E;
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "dq_e8m0");
    t_set_int(&tn, "output_dtype", EMBER_DTYPE_F32);
    t_expect_ok(dequantize(&tn, EMBER_DTYPE_I8, xi, 2, EMBER_DTYPE_F8E8M0, &s, NULL, y),
                "dq_e8m0");
    assert_true(y[0] == 2.0f && y[1] == -3.0f);
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "dq_e8m0_no_output_dtype");
    t_expect_error(dequantize(&tn, EMBER_DTYPE_I8, xi, 2, EMBER_DTYPE_F8E8M0, &s, NULL, y),
                   EMBER_ERR_INVALID_MODEL, "dq_e8m0_no_output_dtype", "e8m0 scale alone");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_float8),
        cmocka_unit_test(test_quantize_int4_int2),
        cmocka_unit_test(test_quantize_scale_precision),
        cmocka_unit_test(test_dequantize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
