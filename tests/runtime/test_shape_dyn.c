/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_dyn.c: NonZero, Unique and Compress through em_shape_infer_node. Without the
 * deciding input's value the data-decided dims are unknown (never an error) and the others
 * exact (NonZero's rank row, Unique's inverse_indices length, Compress's other axes); with it
 * they are exact: NonZero over float zeros of both signs and NaN, 0-D inputs; Unique with and
 * without axis (negative too), NaN and -0 collapsed, empty inputs; Compress with and without
 * axis, short conditions. Errors name the node.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "ir/graph.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_util.h"

/* ---- NonZero ------------------------------------------------------------------------------ */

static void test_nonzero(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    em_tensor t;
    sn_init(&s, EM_OP_NONZERO, "nz", 1, 1);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 2, UNK);
    const float xf[6] = {0.0f, -0.0f, NAN, 1.0f, 0.0f, -2.0f};
    in[0] = with_value(SHP(EMBER_DTYPE_F32, 2, 3), &t, xf);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 2, 3);
    const uint16_t xh[4] = {0x8000, 0x0001, 0x0000, 0x7e00}; /* -0, tiny, 0, NaN (f16) */
    in[0] = with_value(SHP(EMBER_DTYPE_F16, 4), &t, xh);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 1, 2);
    const int64_t x0 = 5;
    in[0] = with_value(shp(EMBER_DTYPE_I64, 0, NULL), &t, &x0);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 1, 1);
    const uint8_t xb[3] = {0, 0, 0};
    in[0] = with_value(SHP(EMBER_DTYPE_BOOL, 1, 3), &t, xb);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 2, 0);
    in[0] = absent();
    in[0].dtype = EMBER_DTYPE_F32;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK, UNK);
}

/* ---- Unique ------------------------------------------------------------------------------- */

static void test_unique(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[4];
    em_tensor t;
    sn_init(&s, EM_OP_UNIQUE, "uq", 1, 4);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, UNK);
    EXPECT(out[1], EMBER_DTYPE_I64, UNK);
    EXPECT(out[2], EMBER_DTYPE_I64, 6);
    EXPECT(out[3], EMBER_DTYPE_I64, UNK);
    const float x[6] = {2, 1, 1, 3, 4, 3};
    in[0] = with_value(SHP(EMBER_DTYPE_F32, 6), &t, x);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 4);
    EXPECT(out[1], EMBER_DTYPE_I64, 4);
    EXPECT(out[2], EMBER_DTYPE_I64, 6);
    EXPECT(out[3], EMBER_DTYPE_I64, 4);
    const double xn[6] = {NAN, 0.0, -0.0, NAN, 1.0, 1.0}; /* NaN, 0, 1 */
    in[0] = with_value(SHP(EMBER_DTYPE_F64, 3, 2), &t, xn);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F64, 3);
    in[0] = with_value(SHP(EMBER_DTYPE_F64, 0, 2), &t, xn);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F64, 0);
    EXPECT(out[2], EMBER_DTYPE_I64, 0);

    /* test_unique_sorted_with_axis_3d: axis 1 of [2, 4, 2] has 3 distinct slices. */
    const float x3[16] = {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1};
    sn_init(&s, EM_OP_UNIQUE, "uq_axis", 1, 3);
    sn_int(&s, "axis", 1);
    in[0] = with_value(SHP(EMBER_DTYPE_F32, 2, 4, 2), &t, x3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 2);
    EXPECT(out[1], EMBER_DTYPE_I64, 3);
    EXPECT(out[2], EMBER_DTYPE_I64, 4);
    in[0].value = NULL;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, UNK, 2);
    EXPECT(out[2], EMBER_DTYPE_I64, 4);
    /* axis -1 of [[1, 0, 0], [1, 0, 0], [2, 3, 3]]: columns 1 and 2 are equal. */
    const int32_t xi[9] = {1, 0, 0, 1, 0, 0, 2, 3, 3};
    sn_init(&s, EM_OP_UNIQUE, "uq_neg", 1, 1);
    sn_int(&s, "axis", -1);
    in[0] = with_value(SHP(EMBER_DTYPE_I32, 3, 3), &t, xi);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 3, 2);

    sn_init(&s, EM_OP_UNIQUE, "uq_bad_axis", 1, 1);
    sn_int(&s, "axis", 2);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_UNIQUE, "uq_axis_str", 1, 1);
    sn_str(&s, "axis", "0");
    infer_err(&s, in);
}

/* ---- Compress ----------------------------------------------------------------------------- */

static void test_compress(void **state)
{
    (void)state;
    sn s;
    em_shape in[2], out[1];
    em_tensor t;
    const uint8_t c[5] = {0, 1, 1, 0, 1};
    sn_init(&s, EM_OP_COMPRESS, "cp", 2, 1);
    sn_int(&s, "axis", 0);
    in[0] = SHP(EMBER_DTYPE_F32, 3, 2);
    in[1] = SHP(EMBER_DTYPE_BOOL, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, UNK, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 3), &t, c);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 2), &t, c); /* shorter: one true */
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 1, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 4), &t, c); /* longer, but false past the end */
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 5), &t, c); /* a true past the end */
    infer_err(&s, in);

    sn_init(&s, EM_OP_COMPRESS, "cp_flat", 2, 1);
    in[0] = SHP(EMBER_DTYPE_I64, 3, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 5), &t, c);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 3);
    in[1].value = NULL;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK);
    in[0] = absent(); /* rank unknown: still 1-D, length unknown */
    in[0].dtype = EMBER_DTYPE_I64;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK);

    sn_init(&s, EM_OP_COMPRESS, "cp_neg", 2, 1);
    sn_int(&s, "axis", -1);
    in[0] = SHP(EMBER_DTYPE_U8, 3, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 2), &t, c);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_U8, 3, 1);
    sn_init(&s, EM_OP_COMPRESS, "cp_axis_range", 2, 1);
    sn_int(&s, "axis", -3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_COMPRESS, "cp_cond_f32", 2, 1);
    in[1] = SHP(EMBER_DTYPE_F32, 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_COMPRESS, "cp_cond_2d", 2, 1);
    in[1] = SHP(EMBER_DTYPE_BOOL, 2, 1);
    infer_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonzero),
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_compress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

