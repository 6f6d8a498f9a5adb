/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/math_ew_ref.c, the math family's engine, through Cast and CastLike (its loads,
 * stores and conversion rules) and through Sum/Where (its broadcasting plan):
 *  - Cast between every pair of the 13 dtypes against values computed here;
 *  - exact ONNX Cast edge cases: float -> int truncation, saturation and NaN -> 0 (ember's
 *    choice where the spec says undefined), integer narrowing keeps the low bits, large
 *    integers to f32 rounded once, f64 -> f32 overflow, anything -> bool;
 *  - f16 and bf16 exhaustively: every bit pattern survives f32 -> f16/bf16 -> f32, and every
 *    midpoint between neighbours rounds to the even one (from f64, so it is exact);
 *  - CastLike takes the target's dtype and never reads the target's data;
 *  - 16 inputs with 16 broadcast patterns, rank 8, zero-sized outputs, and a large tensor
 *    split into parallel chunks;
 *  - prepare errors (missing 'to', types ember lacks, wrong arity) name the node.
 */
#include "test_ref_math_util.h"

#include <float.h>
#include <limits.h>

/* ---- Cast between every pair -------------------------------------------------------------- */

typedef struct cctx {
    ember_dtype to;
} cctx;

static double cast_oracle(const double *x, int n_in, const void *ctx)
{
    (void)n_in;
    const cctx *c = ctx;
    if (c->to == EMBER_DTYPE_BOOL) {
        return x[0] != 0.0;
    }
    return tm_is_float(c->to) ? x[0] : trunc(x[0]);
}

static void test_cast_pairs(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (int s = 0; s < TM_N_DTYPES; s++) {
        for (int d = 0; d < TM_N_DTYPES; d++) {
            ember_dtype from = tm_all_dtypes[s], to = tm_all_dtypes[d];
            t_node tn;
            t_node_init(&tn, EM_OP_CAST, "cast");
            t_set_int(&tn, "to", to);
            cctx ctx = {to};
            /* values every integer dtype holds; no negatives where one side is unsigned */
            bool nonneg = tm_is_unsigned(from) || tm_is_unsigned(to);
            tm_range r = {nonneg ? 0 : -100, 100};
            if (from == EMBER_DTYPE_BOOL) {
                r = (tm_range){0, 2};
            }
            tm_case c1 = {"3d", 1, {from}, {3}, {{3, 5, 7}}};
            tm_case c2 = {"scalar", 1, {from}, {0}, {{0}}};
            tm_opts opt = {&r, 0.0, 0.0, false};
            tm_check(&tn, &c1, to, cast_oracle, &ctx, &opt, false, pool);
            tm_check(&tn, &c2, to, cast_oracle, &ctx, &opt, false, NULL);
        }
    }
    tm_case big = {"large", 1, {EMBER_DTYPE_F32}, {2}, {{300, 257}}};
    tm_range r = {-100, 100};
    tm_opts opt = {&r, 0.0, 0.0, false};
    t_node tn;
    t_node_init(&tn, EM_OP_CAST, "cast_large");
    t_set_int(&tn, "to", EMBER_DTYPE_F16);
    cctx ctx = {EMBER_DTYPE_F16};
    tm_check(&tn, &big, EMBER_DTYPE_F16, cast_oracle, &ctx, &opt, false, pool);
    em_threadpool_destroy(pool);
}

/* ---- exact edge cases --------------------------------------------------------------------- */

static void cast1(ember_dtype from, const void *x, ember_dtype to, void *y, int64_t n)
{
    t_node tn;
    t_node_init(&tn, EM_OP_CAST, "cast_edge");
    t_set_int(&tn, "to", to);
    em_tensor in[1], out[1];
    t_tensor(&in[0], from, 1, &n, (void *)x);
    t_tensor(&out[0], to, 1, &n, y);
    t_expect_ok(tm_prepare(&tn, in, 1, out), "cast_edge");
}

static void test_cast_float_to_int(void **state)
{
    (void)state;
    const float f[9] = {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, -1.7f, 1.7f, -0.0f, 2147483520.0f};
    int32_t i32[9];
    cast1(EMBER_DTYPE_F32, f, EMBER_DTYPE_I32, i32, 9);
    const int32_t want32[9] = {0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, -1, 1, 0, 2147483520};
    assert_memory_equal(i32, want32, sizeof want32);
    const float g[5] = {-5.0f, 300.0f, 255.9f, NAN, -0.9f};
    uint8_t u8[5];
    cast1(EMBER_DTYPE_F32, g, EMBER_DTYPE_U8, u8, 5);
    const uint8_t want8[5] = {0, 255, 255, 0, 0};
    assert_memory_equal(u8, want8, sizeof want8);
    int8_t i8[5];
    cast1(EMBER_DTYPE_F32, g, EMBER_DTYPE_I8, i8, 5);
    const int8_t wanti8[5] = {-5, 127, 127, 0, 0};
    assert_memory_equal(i8, wanti8, sizeof wanti8);
    const double d[4] = {9.3e18, -9.3e18, 4611686018427387904.0, -9223372036854775808.0};
    int64_t i64[4];
    cast1(EMBER_DTYPE_F64, d, EMBER_DTYPE_I64, i64, 4);
    assert_true(i64[0] == INT64_MAX && i64[1] == INT64_MIN && i64[2] == ((int64_t)1 << 62) &&
                i64[3] == INT64_MIN);
    const double e[3] = {1.9e19, -1.0, 18446744073709549568.0};
    uint64_t u64[3];
    cast1(EMBER_DTYPE_F64, e, EMBER_DTYPE_U64, u64, 3);
    assert_true(u64[0] == UINT64_MAX && u64[1] == 0 && u64[2] == 18446744073709549568ull);
    /* f16 -> i16 and bf16 -> u16 through the same rule */
    const uint16_t h[3] = {0x7c00, 0xfc00, 0xc0c0}; /* +inf, -inf, -2.375 */
    int16_t i16[3];
    cast1(EMBER_DTYPE_F16, h, EMBER_DTYPE_I16, i16, 3);
    assert_true(i16[0] == INT16_MAX && i16[1] == INT16_MIN && i16[2] == -2);
}

static void test_cast_int_conversions(void **state)
{
    (void)state;
    const int32_t a[3] = {300, -1, -129};
    uint8_t u8[3];
    int8_t i8[3];
    cast1(EMBER_DTYPE_I32, a, EMBER_DTYPE_U8, u8, 3);
    assert_true(u8[0] == 44 && u8[1] == 255 && u8[2] == 127);
    cast1(EMBER_DTYPE_I32, a, EMBER_DTYPE_I8, i8, 3);
    assert_true(i8[0] == 44 && i8[1] == -1 && i8[2] == 127);
    const uint64_t b[2] = {UINT64_MAX, 70000};
    int64_t i64[2];
    int16_t i16[2];
    cast1(EMBER_DTYPE_U64, b, EMBER_DTYPE_I64, i64, 2);
    assert_true(i64[0] == -1 && i64[1] == 70000);
    cast1(EMBER_DTYPE_U64, b, EMBER_DTYPE_I16, i16, 2);
    assert_true(i16[0] == -1 && i16[1] == 4464);
    /* to f32 in one rounding: 2^24 + 1 ties to 2^24, 2^24 + 3 to 2^24 + 4 */
    const int64_t c[3] = {16777217, 16777219, ((int64_t)1 << 53) + 1};
    float f[3];
    cast1(EMBER_DTYPE_I64, c, EMBER_DTYPE_F32, f, 3);
    assert_true(f[0] == 16777216.0f && f[1] == 16777220.0f && f[2] == 9007199254740992.0f);
    const uint64_t m[1] = {UINT64_MAX};
    cast1(EMBER_DTYPE_U64, m, EMBER_DTYPE_F32, f, 1);
    assert_true(f[0] == 18446744073709551616.0f);
    const uint8_t bools[3] = {0, 1, 7}; /* a nonzero byte is true */
    int32_t i32[3];
    cast1(EMBER_DTYPE_BOOL, bools, EMBER_DTYPE_I32, i32, 3);
    assert_true(i32[0] == 0 && i32[1] == 1 && i32[2] == 1);
}

static void test_cast_float_edges(void **state)
{
    (void)state;
    /* FLT_MAX < 3.4028235e38 < the midpoint to 2^128 (3.4028235677973366e38) < 3.4028236e38 */
    const double d[6] = {1e39, -1e39, 3.4028235e38, 3.4028236e38, 1e-50, NAN};
    float f[6];
    cast1(EMBER_DTYPE_F64, d, EMBER_DTYPE_F32, f, 6);
    assert_true(f[0] == INFINITY && f[1] == -INFINITY && f[2] == FLT_MAX);
    assert_true(f[3] == INFINITY && f[4] == 0.0f && isnan(f[5]));
    const float b[4] = {NAN, -0.0f, 0.1f, 1e-45f};
    uint8_t y[4];
    cast1(EMBER_DTYPE_F32, b, EMBER_DTYPE_BOOL, y, 4);
    assert_true(y[0] == 1 && y[1] == 0 && y[2] == 1 && y[3] == 1);
    /* f32 -> f16: largest finite, overflow at the midpoint, subnormal ties, mantissa ties */
    const float h[10] = {65504.0f,          65519.99f,  65520.0f, 1e-8f,
                         0x1p-25f,          0x1.8p-24f, -0.0f,    1.0f + 0x1p-11f,
                         1.0f + 0x1.8p-10f, -100000.0f};
    const uint16_t want[10] = {0x7bff, 0x7bff, 0x7c00, 0x0000, 0x0000,
                               0x0002, 0x8000, 0x3c00, 0x3c02, 0xfc00};
    uint16_t got[10];
    cast1(EMBER_DTYPE_F32, h, EMBER_DTYPE_F16, got, 10);
    assert_memory_equal(got, want, sizeof want);
    const float nan1[1] = {NAN};
    cast1(EMBER_DTYPE_F32, nan1, EMBER_DTYPE_F16, got, 1);
    assert_true((got[0] & 0x7c00) == 0x7c00 && (got[0] & 0x3ff) != 0);
    cast1(EMBER_DTYPE_F32, nan1, EMBER_DTYPE_BF16, got, 1);
    assert_true((got[0] & 0x7f80) == 0x7f80 && (got[0] & 0x7f) != 0);
    /* f32 -> bf16: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 to 1 + 2^-6; FLT_MAX rounds to inf */
    const float g[3] = {1.0f + 0x1p-8f, 1.0f + 0x1.8p-7f, FLT_MAX};
    cast1(EMBER_DTYPE_F32, g, EMBER_DTYPE_BF16, got, 3);
    assert_true(got[0] == 0x3f80 && got[1] == 0x3f82 && got[2] == 0x7f80);
}

/* Every half / bfloat16 pattern round-trips through f32, and midpoints round to even. */
static void exhaustive(ember_dtype dt, double (*dec)(uint16_t))
{
    const int64_t n = 65536;
    float *f = t_f32(n);
    uint16_t *h = test_calloc((size_t)n, sizeof *h);
    float *back = t_f32(n);
    for (int64_t i = 0; i < n; i++) {
        f[i] = (float)dec((uint16_t)i);
    }
    cast1(EMBER_DTYPE_F32, f, dt, h, n);
    cast1(dt, h, EMBER_DTYPE_F32, back, n);
    for (int64_t i = 0; i < n; i++) {
        if (isnan(f[i])) {
            assert_true(isnan(back[i]));
            continue;
        }
        if (h[i] != (uint16_t)i || back[i] != f[i]) {
            fail_msg("%s pattern 0x%04llx: encoded 0x%04x, decoded %g", em_dtype_name(dt),
                     (long long)i, h[i], (double)back[i]);
        }
    }
    /* midpoints between neighbours (both signs, subnormals included), from f64 */
    const uint16_t top = dt == EMBER_DTYPE_F16 ? 0x7bff : 0x7f7f;
    int64_t m = 0;
    double *mid = t_f64(2 * (int64_t)top);
    uint16_t *want = test_calloc(2 * (size_t)top, sizeof *want);
    for (uint32_t k = 0; k < top; k++) {
        for (int sgn = 0; sgn < 2; sgn++) {
            uint16_t lo = (uint16_t)(k | (sgn ? 0x8000u : 0u));
            mid[m] = (dec(lo) + dec((uint16_t)(lo + 1))) / 2.0;
            want[m++] = (k & 1u) ? (uint16_t)(lo + 1) : lo;
        }
    }
    uint16_t *got = test_calloc((size_t)m, sizeof *got);
    cast1(EMBER_DTYPE_F64, mid, dt, got, m);
    for (int64_t i = 0; i < m; i++) {
        if (got[i] != want[i]) {
            fail_msg("%s midpoint %.17g: got 0x%04x, expected 0x%04x", em_dtype_name(dt), mid[i],
                     got[i], want[i]);
        }
    }
    test_free(got);
    test_free(want);
    test_free(mid);
    test_free(back);
    test_free(h);
    test_free(f);
}

static void test_f16_exhaustive(void **state)
{
    (void)state;
    exhaustive(EMBER_DTYPE_F16, tm_f16_dec);
}

static void test_bf16_exhaustive(void **state)
{
    (void)state;
    exhaustive(EMBER_DTYPE_BF16, tm_bf16_dec);
}

/* ---- CastLike ----------------------------------------------------------------------------- */

static void test_castlike(void **state)
{
    (void)state;
    static const ember_dtype pairs[][2] = {
        {EMBER_DTYPE_F32, EMBER_DTYPE_F16},  {EMBER_DTYPE_F16, EMBER_DTYPE_F32},
        {EMBER_DTYPE_F32, EMBER_DTYPE_BF16}, {EMBER_DTYPE_F64, EMBER_DTYPE_I32},
        {EMBER_DTYPE_I64, EMBER_DTYPE_F64},  {EMBER_DTYPE_U8, EMBER_DTYPE_BOOL},
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        t_node tn;
        t_node_init(&tn, EM_OP_CASTLIKE, "castlike");
        cctx ctx = {pairs[p][1]};
        /* the target has another shape, zero elements even: only its dtype counts */
        tm_case c = {"castlike", 2, {pairs[p][0], pairs[p][1]}, {2, 1}, {{4, 9}, {0}}};
        tm_range r[2] = {{0, 100}, {0, 1}};
        tm_opts opt = {r, 0.0, 0.0, true};
        tm_check(&tn, &c, pairs[p][1], cast_oracle, &ctx, &opt, false, NULL);
    }
}

/* ---- broadcasting plan -------------------------------------------------------------------- */

/* Sum of 16 inputs: input i is present along the axes of the bits of i (shape [2,3,4,5]
 * with the others 1), so every merge pattern appears. */
static void test_sixteen_inputs(void **state)
{
    (void)state;
    static const int64_t full[4] = {2, 3, 4, 5};
    void *bufs[16];
    em_tensor in[16], out[1];
    int64_t dims[16][4];
    float y[120];
    for (int i = 0; i < 16; i++) {
        for (int d = 0; d < 4; d++) {
            dims[i][d] = (i >> d) & 1 ? full[d] : 1;
        }
        int64_t n = t_numel(dims[i], 4);
        bufs[i] = t_random_f32(n, (uint64_t)i + 5, -2.0f, 2.0f);
        t_tensor(&in[i], EMBER_DTYPE_F32, 4, dims[i], bufs[i]);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, full, y);
    t_node tn;
    t_node_init(&tn, EM_OP_SUM, "sum16");
    t_expect_ok(tm_run_many(tm_kernel(EM_OP_SUM, EMBER_DTYPE_F32), &tn.n, in, 16, out), "sum16");
    int64_t yc[4] = {0};
    for (int64_t e = 0; e < 120; e++) {
        double ref = 0;
        for (int i = 0; i < 16; i++) {
            ref += ((const float *)bufs[i])[tm_bindex(dims[i], 4, yc, 4)];
        }
        if (!t_close(y[e], ref, 1e-6, 1e-6)) {
            fail_msg("sum16 index %lld: got %g, expected %g", (long long)e, (double)y[e], ref);
        }
        em_ref_coord_next(yc, full, 4);
    }
    for (int i = 0; i < 16; i++) {
        test_free(bufs[i]);
    }
}

/* Rank 8 with size-1 axes in between, and a zero-sized output. */
static void test_rank8_and_empty(void **state)
{
    (void)state;
    const int64_t ad[8] = {2, 1, 3, 1, 1, 2, 1, 3}, bd[6] = {3, 3, 1, 2, 2, 1};
    const int64_t yd[8] = {2, 1, 3, 3, 1, 2, 2, 3};
    int64_t na = t_numel(ad, 8), nb = t_numel(bd, 6), ny = t_numel(yd, 8);
    float *a = t_random_f32(na, 1, -1, 1), *b = t_random_f32(nb, 2, -1, 1), *y = t_f32(ny);
    uint8_t c[1] = {1};
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_BOOL, 0, NULL, c);
    t_tensor(&in[1], EMBER_DTYPE_F32, 8, ad, a);
    t_tensor(&in[2], EMBER_DTYPE_F32, 6, bd, b);
    t_tensor(&out[0], EMBER_DTYPE_F32, 8, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_WHERE, "rank8");
    t_expect_ok(tm_prepare(&tn, in, 3, out), "rank8");
    int64_t yc[8] = {0};
    for (int64_t e = 0; e < ny; e++) {
        assert_true(y[e] == a[tm_bindex(ad, 8, yc, 8)]);
        em_ref_coord_next(yc, yd, 8);
    }
    c[0] = 0;
    t_expect_ok(tm_prepare(&tn, in, 3, out), "rank8_false");
    memset(yc, 0, sizeof yc);
    for (int64_t e = 0; e < ny; e++) {
        assert_true(y[e] == b[tm_bindex(bd, 6, yc, 8)]);
        em_ref_coord_next(yc, yd, 8);
    }
    /* zero-sized: nothing is read or written */
    const int64_t z[2] = {0, 3};
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, z, NULL);
    t_tensor(&in[2], EMBER_DTYPE_F32, 0, NULL, b);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, z, NULL);
    t_expect_ok(tm_prepare(&tn, in, 3, out), "empty");
    test_free(a);
    test_free(b);
    test_free(y);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    static float x[4], y[4];
    int64_t n = 4;
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, y);
    t_node tn;
    t_node_init(&tn, EM_OP_CAST, "cast_no_to");
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_INVALID_MODEL, "cast_no_to", "no to");
    t_node_init(&tn, EM_OP_CAST, "cast_string");
    t_set_int(&tn, "to", 8); /* string: the text family's Cast rows take it; here the f32 output
                              * does not match */
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_INVALID_MODEL, "cast_string", "string");
    t_node_init(&tn, EM_OP_CAST, "cast_complex");
    t_set_int(&tn, "to", 14); /* complex64 */
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_UNSUPPORTED, "cast_complex", "complex");
    t_node_init(&tn, EM_OP_CAST, "cast_round_mode");
    t_set_int(&tn, "to", EMBER_DTYPE_F32);
    t_set_string(&tn, "round_mode", "sideways");
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_INVALID_MODEL, "cast_round_mode",
                   "bad round_mode");
    t_node_init(&tn, EM_OP_CAST, "cast_wrong_out");
    t_set_int(&tn, "to", EMBER_DTYPE_I32);
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_INVALID_MODEL, "cast_wrong_out",
                   "output f32, to i32");
    t_node_init(&tn, EM_OP_CAST, "cast_two_inputs");
    t_set_int(&tn, "to", EMBER_DTYPE_F32);
    in[1] = in[0];
    t_expect_error(tm_prepare(&tn, in, 2, out), EMBER_ERR_INVALID_MODEL, "cast_two_inputs",
                   "arity");
    t_node_init(&tn, EM_OP_CASTLIKE, "castlike_one_input");
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_INVALID_MODEL, "castlike_one_input",
                   "arity");
    /* a node of an op outside the family */
    t_node_init(&tn, EM_OP_CONV, "not_math");
    t_expect_error(t_run(tm_kernel(EM_OP_CAST, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
                   EMBER_ERR_UNSUPPORTED, "not_math", "conv node");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_pairs),
        cmocka_unit_test(test_cast_float_to_int),
        cmocka_unit_test(test_cast_int_conversions),
        cmocka_unit_test(test_cast_float_edges),
        cmocka_unit_test(test_f16_exhaustive),
        cmocka_unit_test(test_bf16_exhaustive),
        cmocka_unit_test(test_castlike),
        cmocka_unit_test(test_sixteen_inputs),
        cmocka_unit_test(test_rank8_and_empty),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
