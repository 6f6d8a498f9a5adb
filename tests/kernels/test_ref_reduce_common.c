/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_common_ref.c: the reduce family's dtype loads and stores (saturating
 * float-to-integer stores, modular integer narrowing), axis normalisation, scalar inputs and
 * the reduction walk, against values written out here.
 *
 * The first part of this file holds the helpers of every test_ref_reduce_*.c file: typed
 * buffers filled from doubles, element access by dtype, and a runner that, unlike t_run, lets
 * prepare see the data of inputs the test marks constant (axes, K, a CumSum axis). The other
 * files include this one with EM_REDUCE_TEST_HELPERS_ONLY defined, which drops the tests and
 * main (the family owns no test header, only test_ref_reduce_*.c files).
 */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_REDUCE_COMMON_C
#define EMBER_TESTS_KERNELS_TEST_REF_REDUCE_COMMON_C

#include "test_ref_util.h"

#include <stdio.h>

/* A zeroed buffer of n elements of dt (at least one byte). */
static inline void *r_buf(ember_dtype dt, int64_t n)
{
    return test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt) > 0 ? em_dtype_size(dt) : 1);
}

static inline double r_get(const void *p, ember_dtype dt, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    case EMBER_DTYPE_I8:
        return ((const int8_t *)p)[i];
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_BOOL:
        return ((const uint8_t *)p)[i];
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    case EMBER_DTYPE_I64:
        return (double)((const int64_t *)p)[i];
    case EMBER_DTYPE_U64:
        return (double)((const uint64_t *)p)[i];
    default:
        fail_msg("r_get: dtype %d", (int)dt);
        return 0.0;
    }
}

/* Stores v (already representable) into element i. */
static inline void r_set(void *p, ember_dtype dt, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        return;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        return;
    case EMBER_DTYPE_I8:
        ((int8_t *)p)[i] = (int8_t)v;
        return;
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_BOOL:
        ((uint8_t *)p)[i] = (uint8_t)v;
        return;
    case EMBER_DTYPE_I32:
        ((int32_t *)p)[i] = (int32_t)v;
        return;
    case EMBER_DTYPE_I64:
        ((int64_t *)p)[i] = (int64_t)v;
        return;
    case EMBER_DTYPE_U64:
        ((uint64_t *)p)[i] = (uint64_t)v;
        return;
    default:
        fail_msg("r_set: dtype %d", (int)dt);
    }
}

static inline bool r_is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64;
}

/* Random data of dt: floats uniform in [lo, hi), integers uniform in [lo, hi] (bool: 0/1). */
static inline void *r_random(ember_dtype dt, int64_t n, uint64_t seed, double lo, double hi)
{
    void *p = r_buf(dt, n);
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        double u = (double)(test_rng_next(&r) >> 11) * (1.0 / 9007199254740992.0);
        double v = lo + (hi - lo) * u;
        if (!r_is_float(dt)) {
            v = floor(lo + (hi - lo + 1.0) * u);
            v = v > hi ? hi : v;
        }
        r_set(p, dt, i, v);
    }
    return p;
}

/* Compares n elements of dt against ref: exact for integers, |d| <= atol + rtol |ref| else. */
static inline void r_check(const char *case_name, const void *got, ember_dtype dt,
                           const double *ref, int64_t n, double atol, double rtol)
{
    for (int64_t i = 0; i < n; i++) {
        double g = r_get(got, dt, i);
        bool ok = r_is_float(dt) ? t_close(g, ref[i], atol, rtol) : g == ref[i];
        if (!ok) {
            fail_msg("case %s (%s): index %lld: got %.17g, expected %.17g", case_name,
                     em_dtype_name(dt), (long long)i, g, ref[i]);
        }
    }
}

#endif /* EMBER_TESTS_KERNELS_TEST_REF_REDUCE_COMMON_C */

#ifndef EM_REDUCE_TEST_HELPERS_ONLY

static void test_load_store(void **state)
{
    (void)state;
    int8_t i8[2];
    uint8_t u8[2];
    int32_t i32[3];
    int64_t i64[3];
    /* Saturating, truncating float stores; NaN gives 0. */
    em_rd_store_f(i8, EMBER_DTYPE_I8, 0, 300.7);
    em_rd_store_f(i8, EMBER_DTYPE_I8, 1, -2.9);
    assert_int_equal(i8[0], 127);
    assert_int_equal(i8[1], -2);
    em_rd_store_f(u8, EMBER_DTYPE_U8, 0, -5.0);
    em_rd_store_f(u8, EMBER_DTYPE_U8, 1, NAN);
    assert_int_equal(u8[0], 0);
    assert_int_equal(u8[1], 0);
    em_rd_store_f(i32, EMBER_DTYPE_I32, 0, -INFINITY);
    em_rd_store_f(i32, EMBER_DTYPE_I32, 1, 1e300);
    em_rd_store_f(i32, EMBER_DTYPE_I32, 2, 12345.99);
    assert_int_equal(i32[0], INT32_MIN);
    assert_int_equal(i32[1], INT32_MAX);
    assert_int_equal(i32[2], 12345);
    em_rd_store_f(i64, EMBER_DTYPE_I64, 0, INFINITY);
    em_rd_store_f(i64, EMBER_DTYPE_I64, 1, -INFINITY);
    em_rd_store_f(i64, EMBER_DTYPE_I64, 2, -7.5);
    assert_true(i64[0] == INT64_MAX);
    assert_true(i64[1] == INT64_MIN);
    assert_true(i64[2] == -7);
    /* Modular integer narrowing. */
    em_rd_store_i(i8, EMBER_DTYPE_I8, 0, 200);
    em_rd_store_i(i8, EMBER_DTYPE_I8, 1, -129);
    assert_int_equal(i8[0], -56);
    assert_int_equal(i8[1], 127);
    em_rd_store_i(i32, EMBER_DTYPE_I32, 0, (int64_t)INT32_MAX + 1);
    em_rd_store_i(i32, EMBER_DTYPE_I32, 1, -1);
    assert_int_equal(i32[0], INT32_MIN);
    assert_int_equal(i32[1], -1);
    em_rd_store_i(u8, EMBER_DTYPE_U8, 0, 257);
    assert_int_equal(u8[0], 1);
    /* Loads. */
    static const uint8_t b[2] = {0, 7};
    assert_int_equal(em_rd_load_i(b, EMBER_DTYPE_BOOL, 1), 1);
    assert_true(em_rd_load_f(i32, EMBER_DTYPE_I32, 0) == (double)INT32_MIN);
}

static void test_axis_scalar_walk(void **state)
{
    (void)state;
    int a = -1;
    assert_true(em_rd_axis(-1, 3, &a) && a == 2);
    assert_true(em_rd_axis(0, 3, &a) && a == 0);
    assert_false(em_rd_axis(3, 3, &a));
    assert_false(em_rd_axis(-4, 3, &a));
    assert_false(em_rd_axis(0, 0, &a));
    int32_t v32 = -2;
    int64_t v64[2] = {5, 6}, v;
    static const int64_t one = 1, two = 2;
    em_tensor t;
    t_tensor(&t, EMBER_DTYPE_I32, 0, NULL, &v32);
    assert_true(em_rd_scalar_int(&t, &v) && v == -2);
    t_tensor(&t, EMBER_DTYPE_I64, 1, &one, v64);
    assert_true(em_rd_scalar_int(&t, &v) && v == 5);
    t_tensor(&t, EMBER_DTYPE_I64, 1, &two, v64);
    assert_false(em_rd_scalar_int(&t, &v));
    t_tensor(&t, EMBER_DTYPE_F32, 0, NULL, v64);
    assert_false(em_rd_scalar_int(&t, &v));
    t_tensor(&t, EMBER_DTYPE_I64, 0, NULL, NULL);
    assert_false(em_rd_scalar_int(&t, &v));
    /* Reducing axes 0 and 2 of [2, 3, 4]: group g = kept index 1, strides 12, 4, 1. */
    static const int64_t dims[3] = {2, 3, 4};
    em_rd_walk w;
    em_rd_walk_init(&w, dims, 3, 0x5u);
    assert_true(w.n_groups == 3 && w.n_red == 8);
    for (int64_t g = 0; g < 3; g++) {
        int64_t base = em_rd_walk_base(&w, g);
        assert_true(base == g * 4);
        for (int64_t r = 0; r < 8; r++) {
            assert_true(em_rd_walk_offset(&w, base, r) == (r / 4) * 12 + g * 4 + r % 4);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_store),
        cmocka_unit_test(test_axis_scalar_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* EM_REDUCE_TEST_HELPERS_ONLY */
