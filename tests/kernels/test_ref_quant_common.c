/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/quant_common_ref.c: the quant family's dtype stores (Cast rules,
 * saturation, NaN, f16/bf16 rounding), the quantized types (rounding half to even, saturation,
 * NaN to the zero point), em_q_int_input / em_q_attr_flag and the scale layout map em_qmap
 * (per tensor, per axis, blocked), against values written out here.
 *
 * The first part of this file holds the helpers of every test_ref_quant_*.c and
 * test_ref_signal_*.c file: typed buffers with the test's own f16/bf16 codec, element access
 * by dtype, the tests' own round-half-to-even, and a node runner. The other files include this
 * one with EM_QUANT_TEST_HELPERS_ONLY defined, which drops the tests and main.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_QUANT_COMMON_C
#define EMBER_TESTS_KERNELS_TEST_REF_QUANT_COMMON_C

#include "test_ref_math_util.h"

#include <float.h>
#include <stdio.h>

/* ---- f16 / bf16 (the math tests' codec, test_ref_math_util.h, plus rounding encoders) ---- */

/* Round half to even, written out (no rint). */
static inline double q_round_even(double v)
{
    double f = floor(v), d = v - f;
    if (d > 0.5) {
        return f + 1.0;
    }
    if (d < 0.5) {
        return f;
    }
    return fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

/* The nearest f16 (ties to even), finite v; beyond the range: infinity. */
static inline uint16_t q_f16_enc(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (a >= 65520.0) {
        return sign | 0x7c00;
    }
    if (a < ldexp(1.0, -14)) {
        return (uint16_t)(sign | (uint16_t)q_round_even(ldexp(a, 24))); /* subnormal */
    }
    int e;
    (void)frexp(a, &e); /* a = f 2^e, f in [0.5, 1) */
    double q = q_round_even(ldexp(a, 11 - e));
    if (q == 2048.0) {
        q = 1024.0;
        e++;
    }
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)(q - 1024.0));
}

/* The nearest bf16 (ties to even) of a float. */
static inline uint16_t q_bf16_round(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (isnan(f)) {
        return (uint16_t)((u >> 16) | 0x40);
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* ---- Typed buffers ------------------------------------------------------------------------ */

/* The integer range of a quantized dtype. */
static inline void q_range(ember_dtype dt, double *lo, double *hi)
{
    switch (dt) {
    case EMBER_DTYPE_U8:
        *lo = 0, *hi = 255;
        return;
    case EMBER_DTYPE_I8:
        *lo = -128, *hi = 127;
        return;
    case EMBER_DTYPE_U16:
        *lo = 0, *hi = 65535;
        return;
    case EMBER_DTYPE_I16:
        *lo = -32768, *hi = 32767;
        return;
    default:
        *lo = -2147483648.0, *hi = 2147483647.0;
        return;
    }
}

/* Random integers uniform in [lo, hi] stored as dt (exact in every dtype the tests use). */
static inline void *q_random_int(ember_dtype dt, int64_t n, uint64_t seed, int64_t lo, int64_t hi)
{
    void *p = tm_buf(dt, n);
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        tm_set(dt, p, i, (double)(lo + (int64_t)(test_rng_next(&r) % (uint64_t)(hi - lo + 1))));
    }
    return p;
}

/* Random multiples of 1/den in [lo, hi] stored as dt (rounded for f16/bf16). */
static inline void *q_random_frac(ember_dtype dt, int64_t n, uint64_t seed, int64_t lo, int64_t hi,
                                  double den)
{
    void *p = tm_buf(dt, n);
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        int64_t k = lo + (int64_t)(test_rng_next(&r) % (uint64_t)(hi - lo + 1));
        tm_set(dt, p, i, (double)k / den);
    }
    return p;
}

static inline double q_clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* A tensor over `data` with dims given inline. */
static inline void q_tensor(em_tensor *t, ember_dtype dt, int rank, const int64_t *dims,
                            const void *data)
{
    t_tensor(t, dt, rank, dims, (void *)data);
}

/* Compares n elements: exact when atol and rtol are 0. */
static inline void q_check(const char *case_name, const void *got, ember_dtype dt,
                           const double *ref, int64_t n, double atol, double rtol)
{
    for (int64_t i = 0; i < n; i++) {
        double g = tm_get(dt, got, i);
        bool ok = atol == 0.0 && rtol == 0.0 ? g == ref[i] || (isnan(g) && isnan(ref[i]))
                                             : t_close(g, ref[i], atol, rtol);
        if (!ok) {
            fail_msg("case %s (%s): index %lld: got %.17g, expected %.17g", case_name,
                     em_dtype_name(dt), (long long)i, g, ref[i]);
        }
    }
}

/* Runs op's reference kernel as the planner and executor would (t_run_const for up to 12
 * inputs: the QLinear ops have 8 and 9); const_mask says which inputs prepare sees. */
static inline ember_status *q_run_pool(em_op op, const t_node *tn, em_tensor *in, int n_in,
                                       em_tensor *out, int n_out, unsigned const_mask,
                                       em_threadpool *pool)
{
    t_node *node = (t_node *)tn;
    em_tensor pin[12], pout[4];
    const em_kernel *k = t_kernel(op, EMBER_DTYPE_UNDEFINED);
    assert_true(n_in <= 12 && n_out <= 4);
    node->n.n_in = n_in;
    node->n.n_out = n_out;
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        pin[i].data = (const_mask >> i & 1u) ? in[i].data : NULL;
    }
    for (int i = 0; i < n_out; i++) {
        pout[i] = out[i];
        pout[i].data = NULL;
    }
    em_kinfo ki = {&node->n, n_in, n_out, pin, pout, test_allocator(), 0,
                   em_threadpool_size(pool), NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch_bytes);
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    assert_int_equal(scratch_bytes, 0);
    em_kctx ctx = {pool, NULL};
    k->run(state, in, out, &ctx);
    em_free(test_allocator(), state);
    return NULL;
}

static inline ember_status *q_run(em_op op, const t_node *tn, em_tensor *in, int n_in,
                                  em_tensor *out, int n_out, unsigned const_mask)
{
    return q_run_pool(op, tn, in, n_in, out, n_out, const_mask, NULL);
}

#define Q_DIMS(...) ((const int64_t[]){__VA_ARGS__})

#ifndef EM_QUANT_TEST_HELPERS_ONLY

/* ---- Tests of quant_common_ref.c ---------------------------------------------------------- */

static void test_getf_setf(void **state)
{
    (void)state;
    uint16_t h = 0x3c00; /* f16 1.0 */
    assert_true(em_tref_get(EMBER_DTYPE_F16, &h, 0) == 1.0);
    h = 0x3f80; /* bf16 1.0 */
    assert_true(em_tref_get(EMBER_DTYPE_BF16, &h, 0) == 1.0);
    int16_t s16 = -300;
    assert_true(em_tref_get(EMBER_DTYPE_I16, &s16, 0) == -300.0);
    /* Cast rules: truncation toward zero, saturation, NaN -> 0. */
    int8_t i8;
    em_q_setf(EMBER_DTYPE_I8, &i8, 0, -3.9);
    assert_int_equal(i8, -3);
    em_q_setf(EMBER_DTYPE_I8, &i8, 0, 1e9);
    assert_int_equal(i8, 127);
    em_q_setf(EMBER_DTYPE_I8, &i8, 0, NAN);
    assert_int_equal(i8, 0);
    uint16_t u16;
    em_q_setf(EMBER_DTYPE_U16, &u16, 0, -5.0);
    assert_int_equal(u16, 0);
    /* f16 rounds once, to nearest even: 1 + 2^-11 is a tie between 1 and 1 + 2^-10. */
    em_q_setf(EMBER_DTYPE_F16, &h, 0, 1.0 + ldexp(1.0, -11));
    assert_int_equal(h, 0x3c00);
    em_q_setf(EMBER_DTYPE_F16, &h, 0, 1.0 + 3.0 * ldexp(1.0, -11));
    assert_int_equal(h, 0x3c02);
    em_q_setf(EMBER_DTYPE_F16, &h, 0, 1e6);
    assert_int_equal(h, 0x7c00);
    em_q_setf(EMBER_DTYPE_BF16, &h, 0, -2.0);
    assert_int_equal(h, 0xc000);
    float f;
    em_q_setf(EMBER_DTYPE_F32, &f, 0, 1e300);
    assert_true(isinf(f) && f > 0);
    em_q_setf(EMBER_DTYPE_F32, &f, 0, -(double)FLT_MAX * (1.0 + 1e-9));
    assert_true(f == -FLT_MAX);
    double d;
    em_q_setf(EMBER_DTYPE_F64, &d, 0, 0.1);
    assert_true(d == 0.1);
}

static void test_qtype_quantize(void **state)
{
    (void)state;
    static const struct {
        ember_dtype dt;
        double v, zp, want;
    } cases[] = {
        {EMBER_DTYPE_U8, 2.5, 0, 2},
        {EMBER_DTYPE_U8, 3.5, 0, 4},
        {EMBER_DTYPE_U8, 0.5, 10, 10},
        {EMBER_DTYPE_U8, 1.5, 10, 12},
        {EMBER_DTYPE_U8, -2.5, 128, 126},
        {EMBER_DTYPE_U8, 1e9, 0, 255},
        {EMBER_DTYPE_U8, -0.6, 0, 0},
        {EMBER_DTYPE_U8, NAN, 7, 7},
        {EMBER_DTYPE_I8, -128.5, 0, -128},
        {EMBER_DTYPE_I8, 127.5, 0, 127},
        {EMBER_DTYPE_I8, -1.5, -3, -5},
        {EMBER_DTYPE_I8, INFINITY, 0, 127},
        {EMBER_DTYPE_U16, 65534.5, 0, 65534},
        {EMBER_DTYPE_U16, 70000.0, 0, 65535},
        {EMBER_DTYPE_I16, -40000.0, 0, -32768},
        {EMBER_DTYPE_I16, -0.5, 0, 0},
        {EMBER_DTYPE_I16, 12.49, 100, 112},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const em_qtype *t = em_q_type(cases[c].dt);
        assert_non_null(t);
        assert_true(t->quantize_ok);
        _Alignas(8) uint8_t buf[16] = {0}; /* element 1 of any dtype */
        em_q_quantize(t, buf, 1, cases[c].v, cases[c].zp, true);
        if (em_q_real(t, buf, 1) != cases[c].want || tm_get(cases[c].dt, buf, 1) != cases[c].want) {
            fail_msg("case %zu: got %g, expected %g", c, em_q_real(t, buf, 1), cases[c].want);
        }
    }
    assert_false(em_q_type(EMBER_DTYPE_I32)->quantize_ok);
    assert_null(em_q_type(EMBER_DTYPE_F32));
    assert_null(em_q_type(EMBER_DTYPE_I64));
    /* Requantization: rint(acc * mult) + zp, saturated. */
    uint8_t y = 0;
    em_q_requantize(em_q_type(EMBER_DTYPE_U8), &y, 0, 5, 0.5, 100);
    assert_int_equal(y, 102);
    em_q_requantize(em_q_type(EMBER_DTYPE_U8), &y, 0, -1000, 0.5, 100);
    assert_int_equal(y, 0);
    assert_int_equal(em_q_wrap32(((int64_t)1 << 32) + 5), 5);
    assert_int_equal(em_q_wrap32(((int64_t)1 << 31)), INT32_MIN);
    assert_int_equal(em_q_wrap32(-7), -7);
    /* The float32 multiplier: (a * b) / y rounded in float. */
    assert_true(em_q_multiplier(0.1, 0.2, 0.3) == (double)((0.1f * 0.2f) / 0.3f));
}

static void test_qmap(void **state)
{
    (void)state;
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "qmap");
    em_kinfo ki = {&tn.n, 0, 0, NULL, NULL, test_allocator(), 0, 1, NULL};
    em_tensor x, s, z;
    em_qmap m;
    /* x [2, 5, 3]: per axis 1 -> coordinate along axis 1. */
    q_tensor(&x, EMBER_DTYPE_F32, 3, Q_DIMS(2, 5, 3), NULL);
    q_tensor(&s, EMBER_DTYPE_F32, 1, Q_DIMS(5), NULL);
    t_expect_ok(em_qmap_parse(&ki, &x, &s, NULL, 1, 0, &m), "axis");
    for (int64_t e = 0; e < 30; e++) {
        assert_int_equal(em_qmap_index(&m, e), (e / 3) % 5);
    }
    /* Blocked along axis 1 with block 2: scale [2, 3, 3]. */
    q_tensor(&s, EMBER_DTYPE_F32, 3, Q_DIMS(2, 3, 3), NULL);
    q_tensor(&z, EMBER_DTYPE_U8, 3, Q_DIMS(2, 3, 3), NULL);
    t_expect_ok(em_qmap_parse(&ki, &x, &s, &z, -2, 2, &m), "blocked");
    for (int64_t e = 0; e < 30; e++) {
        int64_t i0 = e / 15, i1 = (e / 3) % 5, i2 = e % 3;
        assert_int_equal(em_qmap_index(&m, e), (i0 * 3 + i1 / 2) * 3 + i2);
    }
    /* Per tensor: a scalar, or [1], whatever the axis. */
    q_tensor(&s, EMBER_DTYPE_F32, 1, Q_DIMS(1), NULL);
    t_expect_ok(em_qmap_parse(&ki, &x, &s, NULL, 9, 0, &m), "tensor");
    assert_int_equal(em_qmap_index(&m, 29), 0);
    /* Errors. */
    q_tensor(&s, EMBER_DTYPE_F32, 1, Q_DIMS(4), NULL);
    t_expect_error(em_qmap_parse(&ki, &x, &s, NULL, 1, 0, &m), EMBER_ERR_INVALID_MODEL, "qmap",
                   "axis length");
    q_tensor(&s, EMBER_DTYPE_F32, 1, Q_DIMS(5), NULL);
    t_expect_error(em_qmap_parse(&ki, &x, &s, NULL, 3, 0, &m), EMBER_ERR_INVALID_MODEL, "qmap",
                   "axis range");
    q_tensor(&z, EMBER_DTYPE_U8, 1, Q_DIMS(3), NULL);
    t_expect_error(em_qmap_parse(&ki, &x, &s, &z, 1, 0, &m), EMBER_ERR_INVALID_MODEL, "qmap",
                   "zp shape");
    q_tensor(&s, EMBER_DTYPE_F32, 3, Q_DIMS(2, 2, 3), NULL);
    t_expect_error(em_qmap_parse(&ki, &x, &s, NULL, 1, 2, &m), EMBER_ERR_INVALID_MODEL, "qmap",
                   "blocked dims");
    q_tensor(&s, EMBER_DTYPE_F32, 2, Q_DIMS(3, 3), NULL);
    t_expect_error(em_qmap_parse(&ki, &x, &s, NULL, 1, 2, &m), EMBER_ERR_INVALID_MODEL, "qmap",
                   "blocked rank");
    t_expect_error(em_qmap_parse(&ki, &x, &s, NULL, 1, -1, &m), EMBER_ERR_INVALID_MODEL, "qmap",
                   "negative block");
}

static void test_int_input_and_flag(void **state)
{
    (void)state;
    t_node tn;
    t_node_init(&tn, EM_OP_DFT, "inputs");
    t_set_int(&tn, "on", 1);
    t_set_int(&tn, "bad", 2);
    t_set_float(&tn, "f", 1.0f);
    int32_t v32 = -4;
    int64_t v64 = 9, two[2] = {1, 2}, v = 0;
    em_tensor in[4];
    q_tensor(&in[0], EMBER_DTYPE_I32, 0, NULL, &v32);
    q_tensor(&in[1], EMBER_DTYPE_I64, 1, Q_DIMS(1), &v64);
    q_tensor(&in[2], EMBER_DTYPE_I64, 1, Q_DIMS(2), two);
    t_absent(&in[3]);
    em_kinfo ki = {&tn.n, 4, 0, in, NULL, test_allocator(), 0, 1, NULL};
    bool known, flag;
    t_expect_ok(em_q_int_input(&ki, 0, "a", true, &known, &v), "i32");
    assert_true(known && v == -4);
    t_expect_ok(em_q_int_input(&ki, 1, "b", true, &known, &v), "i64");
    assert_true(known && v == 9);
    t_expect_error(em_q_int_input(&ki, 2, "c", true, &known, &v), EMBER_ERR_INVALID_MODEL, "inputs",
                   "two values");
    t_expect_ok(em_q_int_input(&ki, 3, "d", false, &known, &v), "absent optional");
    assert_false(known);
    t_expect_error(em_q_int_input(&ki, 3, "d", true, &known, &v), EMBER_ERR_INVALID_MODEL, "inputs",
                   "absent required");
    in[0].data = NULL;
    t_expect_ok(em_q_int_input(&ki, 0, "a", true, &known, &v), "no data");
    assert_false(known);
    t_expect_ok(em_q_attr_flag(&ki, "on", 0, &flag), "flag");
    assert_true(flag);
    t_expect_ok(em_q_attr_flag(&ki, "absent", 1, &flag), "flag default");
    assert_true(flag);
    t_expect_error(em_q_attr_flag(&ki, "bad", 0, &flag), EMBER_ERR_INVALID_MODEL, "inputs", "2");
    t_expect_error(em_q_attr_flag(&ki, "f", 0, &flag), EMBER_ERR_INVALID_MODEL, "inputs", "float");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_getf_setf),
        cmocka_unit_test(test_qtype_quantize),
        cmocka_unit_test(test_qmap),
        cmocka_unit_test(test_int_input_and_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* EM_QUANT_TEST_HELPERS_ONLY */
#endif /* EMBER_TESTS_KERNELS_TEST_REF_QUANT_COMMON_C */
