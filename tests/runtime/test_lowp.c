/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/lowp.c: the float8 / float6 / float4 / float8e8m0 formats and the sub-byte integers.
 * Every expected bit pattern is worked out by hand from the format's definition (sign,
 * exponent with its bias, mantissa; subnormals at exponent 0; the NaN / infinity codes each
 * format has) and ONNX Cast's tables for saturate; rounding ties go to the even mantissa. The
 * ONNX packing of sub-byte types (onnx.proto: LSB first) is checked byte by byte.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/lowp.h"

#define SAT EM_LOWP_SATURATE

typedef struct enc_case {
    double x;
    unsigned flags;
    uint8_t want;
} enc_case;

static void check_enc(ember_dtype dt, const enc_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t got = em_lowp_from_double(dt, c[i].x, c[i].flags);
        if (got != c[i].want) {
            fail_msg("%s from %.17g (flags %u): got 0x%02X, expected 0x%02X",
                     ember_dtype_name(dt), c[i].x, c[i].flags, got, c[i].want);
        }
    }
}

typedef struct dec_case {
    uint8_t code;
    double want; /* NAN: a NaN */
} dec_case;

static void check_dec(ember_dtype dt, const dec_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double got = em_lowp_to_double(dt, c[i].code);
        bool ok = isnan(c[i].want) ? isnan(got)
                                   : got == c[i].want && signbit(got) == signbit(c[i].want);
        if (!ok) {
            fail_msg("%s 0x%02X: got %.17g, expected %.17g", ember_dtype_name(dt), c[i].code, got,
                     c[i].want);
        }
    }
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_e4m3fn(void **state)
{
    (void)state;
    /* bias 7, 3 mantissa bits; S.1111.111 is the only NaN, no infinity; max 1.75 * 2^8 */
    static const dec_case dec[] = {
        {0x38, 1.0},      {0xB8, -1.0},    {0x7E, 448.0}, {0x08, 0x1p-6}, {0x01, 0x1p-9},
        {0x07, 7 * 0x1p-9}, {0x7F, NAN},   {0xFF, NAN},   {0x80, -0.0},   {0x78, 256.0},
    };
    check_dec(EMBER_DTYPE_F8E4M3FN, dec, N(dec));
    static const enc_case enc[] = {
        {1.0, SAT, 0x38},         {-1.0, SAT, 0xB8},     {448.0, SAT, 0x7E},
        {1.0625, SAT, 0x38},      /* tie 1 | 1.125: even mantissa 000 */
        {1.1875, SAT, 0x3A},      /* tie 1.125 | 1.25: even mantissa 010 */
        {1.07, SAT, 0x39},        {0x1p-10, SAT, 0x00}, /* tie 0 | 2^-9 */
        {0x1.8p-10, SAT, 0x01},   {464.0, 0, 0x7E},     /* tie 448 | 480: 448 */
        {465.0, SAT, 0x7E},       {465.0, 0, 0x7F},     {-465.0, 0, 0xFF},
        {-465.0, SAT, 0xFE},      {INFINITY, SAT, 0x7E}, {INFINITY, 0, 0x7F},
        {-INFINITY, SAT, 0xFE},   {-INFINITY, 0, 0xFF}, {NAN, SAT, 0x7F},
        {-0.0, SAT, 0x80},        {0.0, 0, 0x00},
    };
    check_enc(EMBER_DTYPE_F8E4M3FN, enc, N(enc));
}

static void test_e4m3fnuz(void **state)
{
    (void)state;
    /* bias 8; 0x80 is the only NaN; no -0; max 1.875 * 2^7 */
    static const dec_case dec[] = {
        {0x40, 1.0}, {0x7F, 240.0}, {0xFF, -240.0}, {0x08, 0x1p-7}, {0x01, 0x1p-10}, {0x80, NAN},
    };
    check_dec(EMBER_DTYPE_F8E4M3FNUZ, dec, N(dec));
    static const enc_case enc[] = {
        {1.0, SAT, 0x40},   {240.0, 0, 0x7F},     {247.0, 0, 0x7F},    {248.0, SAT, 0x7F},
        {248.0, 0, 0x80},   /* tie 240 | 256: 256 overflows */
        {-0.0, SAT, 0x00},  {-0x1p-12, SAT, 0x00}, {NAN, SAT, 0x80},   {INFINITY, 0, 0x80},
        {-INFINITY, SAT, 0xFF},
    };
    check_enc(EMBER_DTYPE_F8E4M3FNUZ, enc, N(enc));
}

static void test_e5m2(void **state)
{
    (void)state;
    /* bias 15, 2 mantissa bits, IEEE specials; max 1.75 * 2^15 */
    static const dec_case dec[] = {
        {0x3C, 1.0},      {0x7B, 57344.0}, {0x01, 0x1p-16}, {0x7C, INFINITY},
        {0xFC, -INFINITY}, {0x7D, NAN},     {0x7E, NAN},     {0xFF, NAN},
    };
    check_dec(EMBER_DTYPE_F8E5M2, dec, N(dec));
    static const enc_case enc[] = {
        {1.0, SAT, 0x3C},       {57344.0, 0, 0x7B}, {61439.0, 0, 0x7B},
        {61440.0, 0, 0x7C},     /* tie 57344 | 65536: 65536 overflows to infinity */
        {61440.0, SAT, 0x7B},   {INFINITY, 0, 0x7C}, {INFINITY, SAT, 0x7B},
        {-INFINITY, 0, 0xFC},   {NAN, 0, 0x7E},      {-NAN, 0, 0xFE},
        {0x1p-17, SAT, 0x00},   {0x1.8p-17, SAT, 0x01},
    };
    check_enc(EMBER_DTYPE_F8E5M2, enc, N(enc));
}

static void test_e5m2fnuz(void **state)
{
    (void)state;
    static const dec_case dec[] = {{0x40, 1.0}, {0x7F, 57344.0}, {0x01, 0x1p-17}, {0x80, NAN}};
    check_dec(EMBER_DTYPE_F8E5M2FNUZ, dec, N(dec));
    static const enc_case enc[] = {
        {1.0, SAT, 0x40},     {-0.0, 0, 0x00},    {NAN, SAT, 0x80},
        {65536.0, SAT, 0x7F}, {65536.0, 0, 0x80}, {-65536.0, SAT, 0xFF},
    };
    check_enc(EMBER_DTYPE_F8E5M2FNUZ, enc, N(enc));
}

static void test_f4_f6(void **state)
{
    (void)state;
    /* float4e2m1: bias 1, one mantissa bit: 0 0.5 1 1.5 2 3 4 6; no NaN, no infinity */
    static const double f4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (uint8_t c = 0; c < 8; c++) {
        assert_true(em_lowp_to_double(EMBER_DTYPE_F4E2M1, c) == f4[c]);
        assert_true(em_lowp_to_double(EMBER_DTYPE_F4E2M1, (uint8_t)(c | 8)) == -f4[c]);
    }
    static const enc_case e4[] = {
        {0.25, 0, 0x0},   /* tie 0 | 0.5 */
        {0.75, 0, 0x2},   /* tie 0.5 | 1 */
        {2.5, 0, 0x4},    /* tie 2 | 3 */
        {5.0, 0, 0x6},    /* tie 4 | 6 */
        {100.0, 0, 0x7},  /* always saturates */
        {-100.0, 0, 0xF}, {INFINITY, 0, 0x7}, {-0.0, 0, 0x8},
        {NAN, 0, 0x8},    /* as ml_dtypes (ONNX's reference): a zero with the other sign */
        {-NAN, 0, 0x0},
    };
    check_enc(EMBER_DTYPE_F4E2M1, e4, N(e4));
    /* float6e2m3: bias 1, max 1.875 * 4; float6e3m2: bias 3, max 1.75 * 16 */
    static const dec_case d6a[] = {{0x08, 1.0}, {0x1F, 7.5}, {0x01, 0.125}, {0x3F, -7.5}};
    check_dec(EMBER_DTYPE_F6E2M3, d6a, N(d6a));
    static const dec_case d6b[] = {{0x0C, 1.0}, {0x1F, 28.0}, {0x01, 0.0625}, {0x2C, -1.0}};
    check_dec(EMBER_DTYPE_F6E3M2, d6b, N(d6b));
    static const enc_case e6a[] = {{1.0, 0, 0x08}, {100.0, 0, 0x1F}, {-7.5, 0, 0x3F}};
    check_enc(EMBER_DTYPE_F6E2M3, e6a, N(e6a));
    static const enc_case e6b[] = {{1.0, 0, 0x0C}, {29.0, 0, 0x1F}, {-1.0, 0, 0x2C}};
    check_enc(EMBER_DTYPE_F6E3M2, e6b, N(e6b));
}

static void test_e8m0(void **state)
{
    (void)state;
    static const dec_case dec[] = {
        {0x7F, 1.0}, {0x00, 0x1p-127}, {0xFE, 0x1p127}, {0x80, 2.0}, {0xFF, NAN},
    };
    check_dec(EMBER_DTYPE_F8E8M0, dec, N(dec));
    const unsigned up = SAT, down = SAT | EM_LOWP_ROUND_DOWN, near = SAT | EM_LOWP_ROUND_NEAREST;
    const enc_case enc[] = {
        {1.0, up, 0x7F},    {1.0, near, 0x7F},  {1.0, down, 0x7F},
        {1.5, up, 0x80},    {1.5, down, 0x7F},  {1.5, near, 0x80}, /* guard bit set */
        {1.25, up, 0x80},   {1.25, near, 0x7F}, /* guard bit clear */
        {3.0, near, 0x81},  {-4.0, up, 0x81},   /* the sign is ignored */
        {0x1.8p127, up, 0xFE}, {0x1.8p127, 0, 0xFF}, {INFINITY, up, 0xFF}, {0.0, up, 0x00},
    };
    check_enc(EMBER_DTYPE_F8E8M0, enc, N(enc));
}

static void test_ints(void **state)
{
    (void)state;
    assert_int_equal(em_lowp_int(EMBER_DTYPE_I4, 0x7), 7);
    assert_int_equal(em_lowp_int(EMBER_DTYPE_I4, 0x8), -8);
    assert_int_equal(em_lowp_int(EMBER_DTYPE_I4, 0xF), -1);
    assert_int_equal(em_lowp_int(EMBER_DTYPE_U4, 0xF), 15);
    assert_int_equal(em_lowp_int(EMBER_DTYPE_I2, 0x2), -2);
    assert_int_equal(em_lowp_int(EMBER_DTYPE_I2, 0x3), -1);
    assert_int_equal(em_lowp_int(EMBER_DTYPE_U2, 0x3), 3);
    assert_int_equal(em_lowp_wrap(EMBER_DTYPE_I4, (uint64_t)-9), 0x7);  /* ...10111 */
    assert_int_equal(em_lowp_wrap(EMBER_DTYPE_U4, 17), 0x1);
    assert_int_equal(em_lowp_wrap(EMBER_DTYPE_I2, (uint64_t)-3), 0x1);  /* ...101 */
    int64_t lo, hi;
    em_lowp_int_range(EMBER_DTYPE_I4, &lo, &hi);
    assert_true(lo == -8 && hi == 7);
    em_lowp_int_range(EMBER_DTYPE_U2, &lo, &hi);
    assert_true(lo == 0 && hi == 3);
    assert_int_equal(em_dtype_bits(EMBER_DTYPE_I4), 4);
    assert_int_equal(em_dtype_bits(EMBER_DTYPE_U2), 2);
    assert_int_equal(em_dtype_bits(EMBER_DTYPE_F6E2M3), 6);
    assert_int_equal(em_dtype_bits(EMBER_DTYPE_F8E5M2), 8);
    assert_int_equal(em_dtype_bits(EMBER_DTYPE_BOOL), 8);
    assert_int_equal(em_dtype_bits(EMBER_DTYPE_F32), 32);
    assert_true(em_lowp_is_float(EMBER_DTYPE_F8E8M0) && !em_lowp_is_float(EMBER_DTYPE_F16));
    assert_true(em_lowp_is_int(EMBER_DTYPE_I2) && !em_lowp_is_int(EMBER_DTYPE_I8));
}

static void pack_roundtrip(ember_dtype dt, const uint8_t *elems, size_t n, const uint8_t *bytes,
                           size_t nbytes)
{
    uint8_t packed[8], back[16];
    assert_int_equal(em_lowp_packed_size(dt, n), nbytes);
    memset(packed, 0xAA, sizeof packed);
    em_lowp_pack(dt, elems, packed, n);
    assert_memory_equal(packed, bytes, nbytes);
    em_lowp_unpack(dt, bytes, back, n);
    assert_memory_equal(back, elems, n);
}

static void test_packing(void **state)
{
    (void)state;
    /* 4-bit: the first element in the low nibble */
    static const uint8_t e4[3] = {0x1, 0x2, 0xF}, b4[2] = {0x21, 0x0F};
    pack_roundtrip(EMBER_DTYPE_I4, e4, 3, b4, 2);
    /* 2-bit: x0 | x1 << 2 | x2 << 4 | x3 << 6 */
    static const uint8_t e2[5] = {1, 2, 3, 0, 1}, b2[2] = {0x39, 0x01};
    pack_roundtrip(EMBER_DTYPE_U2, e2, 5, b2, 2);
    /* 6-bit: an LSB-first bit stream, ceil(6 n / 8) bytes */
    static const uint8_t e6[5] = {0x3F, 0x01, 0x02, 0x03, 0x3F}, b6[4] = {0x7F, 0x20, 0x0C, 0x3F};
    pack_roundtrip(EMBER_DTYPE_F6E3M2, e6, 5, b6, 4);
    /* 8-bit types are not packed */
    assert_int_equal(em_lowp_packed_size(EMBER_DTYPE_F8E4M3FN, 3), 3);
    assert_int_equal(em_lowp_packed_size(EMBER_DTYPE_U4, 0), 0);
    assert_int_equal(em_lowp_packed_size(EMBER_DTYPE_I2, 8), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e4m3fn), cmocka_unit_test(test_e4m3fnuz),
        cmocka_unit_test(test_e5m2),   cmocka_unit_test(test_e5m2fnuz),
        cmocka_unit_test(test_f4_f6),  cmocka_unit_test(test_e8m0),
        cmocka_unit_test(test_ints),   cmocka_unit_test(test_packing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
