/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/tensor_common_ref.c: f16 and bf16 conversions (known bit patterns, ties to even,
 * subnormals, overflow to inf, NaN, and an exhaustive f16 -> f32 -> f16 round trip), typed
 * element access (integer wraparound, NaN and out-of-range stores without UB), integer list
 * and axis helpers, and the strided copy with negative and zero strides.
 */
#include "test_ref_util.h"

#include <float.h>

static void test_f16(void **state)
{
    (void)state;
    static const struct {
        float f;
        uint16_t h;
    } exact[] = {{1.0f, 0x3C00},
                 {-2.0f, 0xC000},
                 {65504.0f, 0x7BFF},
                 {0.0f, 0x0000},
                 {-0.0f, 0x8000},
                 {0x1p-24f, 0x0001},
                 {0x1p-14f, 0x0400},
                 {0x3p-25f, 0x0002},
                 {0x1p-25f, 0x0000},
                 {65520.0f, 0x7C00},
                 {1e10f, 0x7C00},
                 {-INFINITY, 0xFC00},
                 {0.1f, 0x2E66},
                 {1.0f / 3.0f, 0x3555},
                 {1.0f + 0x1p-11f, 0x3C00},
                 {1.0f + 0x3p-11f, 0x3C02},
                 {0x1.ffcp-15f, 0x0400}};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        uint16_t h = em_tref_f32_to_f16(exact[i].f);
        if (h != exact[i].h) {
            fail_msg("f32 %a -> f16 0x%04x, expected 0x%04x", (double)exact[i].f, h, exact[i].h);
        }
    }
    assert_true(isnan(em_tref_f16_to_f32(em_tref_f32_to_f16(NAN))));
    assert_true(em_tref_f16_to_f32(0x7C00) == INFINITY);
    assert_true(em_tref_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(em_tref_f16_to_f32(0x3555) == 0x1.554p-2f);
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = em_tref_f16_to_f32((uint16_t)h);
        if (isnan(f)) {
            assert_true((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0);
            continue;
        }
        if (em_tref_f32_to_f16(f) != h) {
            fail_msg("f16 0x%04x does not round-trip", (unsigned)h);
        }
    }
}

static void test_bf16(void **state)
{
    (void)state;
    assert_int_equal(em_tref_f32_to_bf16(1.0f), 0x3F80);
    assert_int_equal(em_tref_f32_to_bf16(1.0f + 0x1p-8f), 0x3F80);   /* tie to even */
    assert_int_equal(em_tref_f32_to_bf16(1.0f + 0x3p-8f), 0x3F82);   /* tie to even, up */
    assert_int_equal(em_tref_f32_to_bf16(1.0f + 0x1.8p-8f), 0x3F81); /* above the tie */
    assert_int_equal(em_tref_f32_to_bf16(-3.0f), 0xC040);
    assert_int_equal(em_tref_f32_to_bf16(FLT_MAX), 0x7F80); /* rounds to inf */
    assert_true(isnan(em_tref_bf16_to_f32(em_tref_f32_to_bf16(NAN))));
    assert_true(em_tref_bf16_to_f32(0x4049) == 3.140625f);
}

static void test_get_set(void **state)
{
    (void)state;
    unsigned char buf[16];
    em_tref_set(EMBER_DTYPE_U8, buf, 0, 257);
    assert_int_equal(buf[0], 1);
    em_tref_set(EMBER_DTYPE_I8, buf, 0, -129);
    assert_int_equal((int8_t)buf[0], 127);
    em_tref_set(EMBER_DTYPE_I32, buf, 0, 2.9);
    assert_true(em_tref_get(EMBER_DTYPE_I32, buf, 0) == 2);
    em_tref_set(EMBER_DTYPE_I32, buf, 0, -2.9);
    assert_true(em_tref_get(EMBER_DTYPE_I32, buf, 0) == -2);
    em_tref_set(EMBER_DTYPE_I64, buf, 0, NAN);
    assert_true(em_tref_get(EMBER_DTYPE_I64, buf, 0) == 0);
    em_tref_set(EMBER_DTYPE_I64, buf, 0, 1e300); /* saturates, no UB */
    assert_true(*(int64_t *)buf == INT64_MAX);
    em_tref_set(EMBER_DTYPE_U64, buf, 0, 1e300);
    assert_true(*(uint64_t *)buf == UINT64_MAX);
    em_tref_set(EMBER_DTYPE_BOOL, buf, 0, -0.5);
    assert_int_equal(buf[0], 1);
    em_tref_set(EMBER_DTYPE_F16, buf, 1, 1.5);
    assert_true(em_tref_get(EMBER_DTYPE_F16, buf, 1) == 1.5);
    em_tref_set(EMBER_DTYPE_BF16, buf, 1, -2);
    assert_true(em_tref_get(EMBER_DTYPE_BF16, buf, 1) == -2);
    em_tref_set(EMBER_DTYPE_U16, buf, 0, 65535);
    assert_true(em_tref_get(EMBER_DTYPE_U16, buf, 0) == 65535);
    em_tref_set(EMBER_DTYPE_U32, buf, 0, 4294967295.0);
    assert_true(em_tref_get(EMBER_DTYPE_U32, buf, 0) == 4294967295.0);
    em_tref_set(EMBER_DTYPE_F64, buf, 0, 0.1);
    assert_true(em_tref_get(EMBER_DTYPE_F64, buf, 0) == 0.1);
}

static void test_ints_axis(void **state)
{
    (void)state;
    int64_t v[4], c;
    int n;
    int32_t i32[3] = {-1, 2, 7};
    static const int64_t three = 3, five = 5;
    em_tensor t;
    t_tensor(&t, EMBER_DTYPE_I32, 1, &three, i32);
    assert_true(em_tref_ints(&t, v, 4, &n));
    assert_int_equal(n, 3);
    assert_true(v[0] == -1 && v[1] == 2 && v[2] == 7);
    c = 9;
    t_tensor(&t, EMBER_DTYPE_I64, 0, NULL, &c);
    assert_true(em_tref_ints(&t, v, 4, &n) && n == 1 && v[0] == 9);
    t_tensor(&t, EMBER_DTYPE_I64, 1, &five, &c);
    assert_false(em_tref_ints(&t, v, 4, &n)); /* too many */
    t_tensor(&t, EMBER_DTYPE_F32, 1, &three, i32);
    assert_false(em_tref_ints(&t, v, 4, &n));
    t_tensor(&t, EMBER_DTYPE_I64, 1, &three, NULL);
    assert_false(em_tref_ints(&t, v, 4, &n));

    em_node node = {.op = EM_OP_CONCAT, .name = (char *)"ax"};
    em_kinfo ki = {&node, 0, 0, NULL, NULL, test_allocator(), 0, 1, NULL};
    int a;
    assert_null(em_tref_axis(&ki, -1, 3, &a));
    assert_int_equal(a, 2);
    assert_null(em_tref_axis(&ki, 0, 3, &a));
    assert_int_equal(a, 0);
    t_expect_error(em_tref_axis(&ki, 3, 3, &a), EMBER_ERR_INVALID_MODEL, "ax", "axis3");
    t_expect_error(em_tref_axis(&ki, -4, 3, &a), EMBER_ERR_INVALID_MODEL, "ax", "axis-4");
}

/* Axes whose source strides continue each other merge into one run (a slice of whole planes
 * is one memcpy): every such pattern against a naive odometer, and ones that must not merge. */
static void test_strided_copy_merged(void **state)
{
    (void)state;
    float x[240], y[240];
    for (int i = 0; i < 240; i++) {
        x[i] = (float)i;
    }
    static const struct {
        int rank;
        int64_t base, dims[4], strides[4];
    } cs[] = {
        {4, 20, {1, 3, 4, 5}, {200, 20, 5, 1}},   /* channels 1..3 of [1,10,4,5]: one run */
        {3, 3, {2, 3, 4}, {60, 20, 5}},           /* every 5th: rows merge, stride 5 */
        {3, 0, {2, 3, 4}, {0, 4, 1}},             /* broadcast outer, inner two merge */
        {3, 0, {2, 3, 4}, {0, 0, 0}},             /* all broadcast: one element */
        {3, 239, {2, 3, 4}, {-12, -4, -1}},       /* reversed, merges to one run of -1 */
        {3, 5, {3, 2, 4}, {4, 40, 1}},            /* transposed: no merge */
        {4, 7, {2, 1, 3, 4}, {100, 1000, 20, 1}}, /* a size-1 axis with an odd stride */
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        int64_t n = 1;
        for (int d = 0; d < cs[c].rank; d++) {
            n *= cs[c].dims[d];
        }
        for (int i = 0; i < 240; i++) {
            y[i] = -1.0f;
        }
        em_tref_strided_copy(sizeof(float), cs[c].rank, cs[c].dims, x, cs[c].base, cs[c].strides, y);
        for (int64_t i = 0; i < n; i++) {
            int64_t off = cs[c].base, r = i;
            for (int d = cs[c].rank - 1; d >= 0; d--) {
                off += r % cs[c].dims[d] * cs[c].strides[d];
                r /= cs[c].dims[d];
            }
            if (y[i] != x[off]) {
                fail_msg("case %zu element %lld: %g, want x[%lld]", c, (long long)i, y[i],
                         (long long)off);
            }
        }
        assert_true(y[n] == -1.0f); /* nothing past the end */
    }
}

static void test_strided_copy(void **state)
{
    (void)state;
    int16_t x[12], y[12];
    for (int i = 0; i < 12; i++) {
        x[i] = (int16_t)(100 + i);
    }
    /* Reverse rows of a 3x4 and broadcast-free transpose: y[j][i] = x[2 - i][j]. */
    static const int64_t dims[2] = {4, 3}, strides[2] = {1, -4};
    em_tref_strided_copy(2, 2, dims, x, 8, strides, y);
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 3; i++) {
            assert_int_equal(y[j * 3 + i], x[(2 - i) * 4 + j]);
        }
    }
    /* Zero stride repeats; rank 0 copies one element; zero-sized copies nothing. */
    static const int64_t rep[2] = {2, 3}, zs[2] = {0, 1};
    em_tref_strided_copy(2, 2, rep, x, 5, zs, y);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(y[i], x[5 + i % 3]);
    }
    y[0] = 0;
    em_tref_strided_copy(2, 0, NULL, x, 7, NULL, y);
    assert_int_equal(y[0], x[7]);
    static const int64_t empty[2] = {3, 0};
    y[0] = -1;
    em_tref_strided_copy(2, 2, empty, x, 0, zs, y);
    assert_int_equal(y[0], -1);
    int64_t st[3];
    static const int64_t d3[3] = {2, 3, 4};
    em_tref_strides(d3, 3, st);
    assert_true(st[0] == 12 && st[1] == 4 && st[2] == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16),          cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_get_set),      cmocka_unit_test(test_ints_axis),
        cmocka_unit_test(test_strided_copy),
        cmocka_unit_test(test_strided_copy_merged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
