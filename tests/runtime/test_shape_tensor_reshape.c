/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_tensor_reshape.c: Reshape's 0 / -1 / allowzero rules (target constant or
 * not, symbolic dims copied by 0) and Flatten's axes, and the errors (each naming the node).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_fx.h"

/* Infers Reshape(x, shape) with `shape` as a constant. */
static ember_status *reshape_infer(int64_t allowzero, em_shape x, const int64_t *shape, int n,
                                   em_shape *out)
{
    fx f = fx_new(EM_OP_RESHAPE, 2, "reshape");
    if (allowzero >= 0) {
        fx_int(&f, "allowzero", allowzero);
    }
    em_tensor t;
    memset(&t, 0, sizeof t);
    const int64_t d[] = {n};
    em_tensor_set_shape(&t, EMBER_DTYPE_I64, d, 1);
    t.data = (void *)shape;
    em_shape in[2] = {x, shp(EMBER_DTYPE_I64, 1, d)};
    in[1].value = &t;
    em_shape o[2];
    ember_status *st = em_shape_infer_node(fx_node(&f), in, o);
    *out = o[0];
    if (st != NULL && strstr(ember_status_message(st), "'reshape'") == NULL) {
        fail_msg("message \"%s\" does not name the node", ember_status_message(st));
    }
    fx_free(&f);
    return st;
}

static void reshape_err(int64_t allowzero, em_shape x, const int64_t *shape, int n,
                        const char *what)
{
    em_shape o;
    ember_status *st = reshape_infer(allowzero, x, shape, n, &o);
    if (st == NULL) {
        fail_msg("reshape: expected an error (%s)", what);
    }
    char m[1024];
    ember_code code = ember_status_code(st);
    snprintf(m, sizeof m, "%s", ember_status_message(st));
    ember_status_destroy(st);
    assert_int_equal(code, EMBER_ERR_INVALID_MODEL);
    if (strstr(m, what) == NULL) {
        fail_msg("message \"%s\" lacks \"%s\"", m, what);
    }
}

static void test_reshape(void **state)
{
    (void)state;
    em_shape o;
    em_shape x = SHP(2, 3, 4);
    const int64_t s1[] = {0, -1};
    assert_null(reshape_infer(-1, x, s1, 2, &o));
    EXPECT_DIMS(o, 2, 12);
    const int64_t s2[] = {-1};
    assert_null(reshape_infer(-1, x, s2, 1, &o));
    EXPECT_DIMS(o, 24);
    const int64_t s3[] = {4, 0, 2}; /* 0 copies dim 1 (3) */
    assert_null(reshape_infer(0, x, s3, 3, &o));
    EXPECT_DIMS(o, 4, 3, 2);
    const int64_t s4[] = {-1, 2, 2};
    assert_null(reshape_infer(-1, x, s4, 3, &o));
    EXPECT_DIMS(o, 6, 2, 2);
    const int64_t s5[] = {1, 24, 1, 1};
    assert_null(reshape_infer(-1, x, s5, 4, &o));
    EXPECT_DIMS(o, 1, 24, 1, 1);
    /* allowzero: 0 is a real zero. [0,3] -> [0,5] holds 0 elements on both sides. */
    em_shape z = SHP(0, 3);
    const int64_t s6[] = {0, 5};
    assert_null(reshape_infer(1, z, s6, 2, &o));
    EXPECT_DIMS(o, 0, 5);
    const int64_t s7[] = {0, 24};
    reshape_err(1, x, s7, 2, "24"); /* allowzero: [0, 24] holds 0 elements, not 24 */
    reshape_err(0, x, s7, 2, "48"); /* without: 0 copies the 2, and [2, 24] holds 48 */
    /* Symbolic batch copied by 0. */
    em_shape xs = sym_dim(SHP(0, 8, 4), 0, 9);
    const int64_t s8[] = {0, 32};
    assert_null(reshape_infer(-1, xs, s8, 2, &o));
    assert_true(o.rank == 2 && o.dims[0].sym == 9 && o.dims[1].v == 32);
    /* Errors. */
    const int64_t two_neg[] = {-1, -1};
    reshape_err(-1, x, two_neg, 2, "-1");
    const int64_t mismatch[] = {5, 5};
    reshape_err(-1, x, mismatch, 2, "24");
    const int64_t indiv[] = {5, -1};
    reshape_err(-1, x, indiv, 2, "divisible");
    const int64_t neg[] = {-2, 12};
    reshape_err(-1, x, neg, 2, "negative");
    const int64_t past[] = {2, 3, 4, 0};
    reshape_err(-1, x, past, 4, "rank");
    /* A shape that is not constant: rank from its length, dims unknown. */
    fx f = fx_new(EM_OP_RESHAPE, 2, "reshape_dyn");
    em_shape in[2] = {x, shp(EMBER_DTYPE_I64, 1, (const int64_t[]){3})};
    o = infer_ok(&f, in);
    assert_int_equal(o.rank, 3);
    for (int i = 0; i < 3; i++) {
        assert_true(o.dims[i].v == -1);
    }
    fx_free(&f);
}

static void test_flatten(void **state)
{
    (void)state;
    static const struct {
        int64_t axis, d0, d1;
    } cases[] = {
        {0, 1, 120}, {1, 2, 60},  {2, 6, 20},  {3, 24, 5},   {4, 120, 1},
        {-1, 24, 5}, {-2, 6, 20}, {-3, 2, 60}, {-4, 1, 120},
    };
    em_shape x = SHP(2, 3, 4, 5);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx f = fx_new(EM_OP_FLATTEN, 1, "flatten");
        fx_int(&f, "axis", cases[i].axis);
        em_shape o = infer_ok(&f, &x);
        EXPECT_DIMS(o, cases[i].d0, cases[i].d1);
        fx_free(&f);
    }
    fx f = fx_new(EM_OP_FLATTEN, 1, "flatten_default");
    em_shape o = infer_ok(&f, &x); /* axis 1 by default */
    EXPECT_DIMS(o, 2, 60);
    em_shape xs = sym_dim(SHP(0, 8, 7, 7), 0, 6);
    o = infer_ok(&f, &xs);
    assert_true(o.rank == 2 && o.dims[0].sym == 6 && o.dims[0].v == -1);
    assert_true(o.dims[1].v == 8 * 7 * 7);
    fx_free(&f);
    static const int64_t bad_axes[] = {5, -5, 100};
    for (size_t i = 0; i < sizeof bad_axes / sizeof bad_axes[0]; i++) {
        f = fx_new(EM_OP_FLATTEN, 1, "flatten_bad");
        fx_int(&f, "axis", bad_axes[i]);
        infer_err(&f, &x, "axis");
        fx_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_flatten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
