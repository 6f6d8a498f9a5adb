/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_quant.c: the quant family's shape functions through em_shape_infer_node.
 * QuantizeLinear (output dtype from the zero point, output_dtype or uint8; per-tensor,
 * per-axis and blocked scales checked against x), DequantizeLinear (scale's dtype or
 * output_dtype), DynamicQuantizeLinear's three outputs, MatMulInteger / QLinearMatMul (numpy
 * batching, 1-D operands, symbolic dims) and ConvInteger / QLinearConv (Conv's sizes), and the
 * errors, each naming the node.
 */
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


#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
#define I16 EMBER_DTYPE_I16
#define I32 EMBER_DTYPE_I32

static void test_quantize(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape x = shp(F32, 3, DIMS(2, -2, 6));
    /* No zero point: uint8, or output_dtype. */
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_default", 2, 1);
    em_shape in[3] = {x, shp(F32, 0, NULL), absent()};
    infer_ok(&s, in, out);
    EXPECT(out[0], U8, 2, -2, 6);
    sn_int(&s, "output_dtype", I16);
    infer_ok(&s, in, out);
    EXPECT(out[0], I16, 2, -2, 6);
    /* The zero point decides; output_dtype must agree. */
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_zp", 3, 1);
    in[2] = shp(I8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], I8, 2, -2, 6);
    sn_int(&s, "output_dtype", I8);
    infer_ok(&s, in, out);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_zp_mismatch", 3, 1);
    sn_int(&s, "output_dtype", U8);
    infer_err(&s, in);
    /* Per axis (default axis 1: the symbolic dim, any length), axis -1, blocked. */
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_axis", 3, 1);
    in[1] = shp(F32, 1, DIMS(7));
    in[2] = shp(I8, 1, DIMS(7));
    infer_ok(&s, in, out);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_axis_len", 3, 1);
    sn_int(&s, "axis", -1);
    infer_err(&s, in);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_axis_last", 3, 1);
    sn_int(&s, "axis", -1);
    in[1] = shp(F32, 1, DIMS(6));
    in[2] = shp(I8, 1, DIMS(6));
    infer_ok(&s, in, out);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_axis_range", 3, 1);
    sn_int(&s, "axis", 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_blocked", 3, 1);
    sn_int(&s, "axis", 2);
    sn_int(&s, "block_size", 4);
    in[1] = shp(F32, 3, DIMS(2, -2, 2));
    in[2] = shp(I8, 3, DIMS(2, -2, 2));
    infer_ok(&s, in, out);
    EXPECT(out[0], I8, 2, -2, 6);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_blocked_bad", 3, 1);
    sn_int(&s, "axis", 2);
    sn_int(&s, "block_size", 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_blocked_rank", 3, 1);
    sn_int(&s, "axis", 2);
    sn_int(&s, "block_size", 4);
    in[1] = shp(F32, 1, DIMS(2));
    in[2] = shp(I8, 1, DIMS(2));
    infer_err(&s, in);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_block_neg", 3, 1);
    sn_int(&s, "block_size", -2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_per_axis_2d", 3, 1);
    in[1] = shp(F32, 2, DIMS(2, 6));
    in[2] = shp(I8, 2, DIMS(2, 6));
    infer_err(&s, in);
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_zp_shape", 3, 1);
    sn_int(&s, "axis", 0);
    in[1] = shp(F32, 1, DIMS(2));
    in[2] = shp(I8, 1, DIMS(3));
    infer_err(&s, in);
    /* Unknown x rank: dtype only. */
    sn_init(&s, EM_OP_QUANTIZELINEAR, "q_unknown", 2, 1);
    em_shape un[2] = {absent(), shp(F32, 1, DIMS(4))};
    un[0].dtype = F32;
    infer_ok(&s, un, out);
    assert_int_equal(out[0].dtype, U8);
    assert_int_equal(out[0].rank, -1);
}

static void test_dequantize_dynamic(void **state)
{
    (void)state;
    sn s;
    em_shape out[3];
    em_shape in[3] = {shp(I16, 2, DIMS(3, 5)), shp(F16, 1, DIMS(5)), shp(I16, 1, DIMS(5))};
    sn_init(&s, EM_OP_DEQUANTIZELINEAR, "dq", 3, 1);
    sn_int(&s, "axis", 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F16, 3, 5);
    sn_int(&s, "output_dtype", F32);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 3, 5);
    sn_init(&s, EM_OP_DEQUANTIZELINEAR, "dq_zp_dtype", 3, 1);
    in[2] = shp(U8, 1, DIMS(5));
    infer_err(&s, in);
    sn_init(&s, EM_OP_DEQUANTIZELINEAR, "dq_axis_len", 3, 1);
    sn_int(&s, "axis", 0);
    in[2] = shp(I16, 1, DIMS(5));
    infer_err(&s, in);
    sn_init(&s, EM_OP_DYNAMICQUANTIZELINEAR, "dyn", 1, 3);
    em_shape x = shp(F32, 3, DIMS(-3, 4, 2));
    infer_ok(&s, &x, out);
    EXPECT(out[0], U8, -3, 4, 2);
    assert_int_equal(out[1].dtype, F32);
    assert_int_equal(out[1].rank, 0);
    assert_int_equal(out[2].dtype, U8);
    assert_int_equal(out[2].rank, 0);
}

static void test_matmul(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[9];
    for (int i = 0; i < 9; i++) {
        in[i] = absent();
    }
    sn_init(&s, EM_OP_MATMULINTEGER, "mi", 2, 1);
    in[0] = shp(U8, 3, DIMS(-2, 3, 4));
    in[1] = shp(I8, 2, DIMS(4, 5));
    infer_ok(&s, in, out);
    EXPECT(out[0], I32, -2, 3, 5);
    sn_init(&s, EM_OP_MATMULINTEGER, "mi_1d", 4, 1);
    in[0] = shp(U8, 1, DIMS(4));
    in[1] = shp(U8, 3, DIMS(2, 4, 6));
    in[2] = shp(U8, 0, NULL);
    in[3] = shp(U8, 1, DIMS(6));
    infer_ok(&s, in, out);
    EXPECT(out[0], I32, 2, 6);
    sn_init(&s, EM_OP_MATMULINTEGER, "mi_zp_dtype", 4, 1);
    in[2] = shp(I8, 0, NULL);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MATMULINTEGER, "mi_k", 2, 1);
    in[0] = shp(U8, 2, DIMS(3, 5));
    infer_err(&s, in);
    /* QLinearMatMul: a, b are inputs 0 and 3; y is y_zero_point's dtype. */
    sn_init(&s, EM_OP_QLINEARMATMUL, "qlmm", 8, 1);
    in[0] = shp(U8, 3, DIMS(2, 3, 4));
    in[1] = shp(F32, 0, NULL);
    in[2] = shp(U8, 0, NULL);
    in[3] = shp(I8, 3, DIMS(1, 4, 7));
    in[4] = shp(F32, 1, DIMS(7));
    in[5] = shp(I8, 1, DIMS(7));
    in[6] = shp(F32, 0, NULL);
    in[7] = shp(I8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], I8, 2, 3, 7);
    sn_init(&s, EM_OP_QLINEARMATMUL, "qlmm_zp_dtype", 8, 1);
    in[5] = shp(U8, 1, DIMS(7));
    infer_err(&s, in);
    sn_init(&s, EM_OP_QLINEARMATMUL, "qlmm_batch", 8, 1);
    in[5] = shp(I8, 1, DIMS(7));
    in[3] = shp(I8, 3, DIMS(3, 4, 7));
    infer_err(&s, in);
}

static void test_conv(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[9];
    for (int i = 0; i < 9; i++) {
        in[i] = absent();
    }
    sn_init(&s, EM_OP_CONVINTEGER, "ci", 3, 1);
    sn_ints(&s, "pads", DIMS(1, 0, 1, 2), 4);
    sn_ints(&s, "strides", DIMS(2, 1), 2);
    in[0] = shp(U8, 4, DIMS(-2, 2, 7, 6));
    in[1] = shp(I8, 4, DIMS(5, 2, 3, 3));
    in[2] = shp(U8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], I32, -2, 5, 4, 6);
    sn_init(&s, EM_OP_CONVINTEGER, "ci_zp_dtype", 3, 1);
    in[2] = shp(I8, 0, NULL);
    infer_err(&s, in);
    sn_init(&s, EM_OP_CONVINTEGER, "ci_channels", 2, 1);
    in[1] = shp(I8, 4, DIMS(5, 3, 3, 3));
    infer_err(&s, in);
    /* QLinearConv: x input 0, w input 3, y from input 7, bias int32. */
    sn_init(&s, EM_OP_QLINEARCONV, "qlc", 9, 1);
    sn_int(&s, "group", 2);
    in[0] = shp(I8, 4, DIMS(1, 4, 5, 5));
    in[1] = shp(F32, 0, NULL);
    in[2] = shp(I8, 0, NULL);
    in[3] = shp(U8, 4, DIMS(6, 2, 2, 2));
    in[4] = shp(F32, 1, DIMS(6));
    in[5] = shp(U8, 1, DIMS(6));
    in[6] = shp(F32, 0, NULL);
    in[7] = shp(U8, 0, NULL);
    in[8] = shp(I32, 1, DIMS(6));
    infer_ok(&s, in, out);
    EXPECT(out[0], U8, 1, 6, 4, 4);
    sn_init(&s, EM_OP_QLINEARCONV, "qlc_bias_dtype", 9, 1);
    in[8] = shp(F32, 1, DIMS(6));
    infer_err(&s, in);
}

/* The com.microsoft ops: shapes, and a clear error naming the node for bad parameters. */
static void test_contrib(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[11];
    for (int i = 0; i < 11; i++) {
        in[i] = absent();
    }
    /* QLinearAdd: numpy broadcasting, A's dtype */
    sn_init(&s, EM_OP_QLINEARADD, "qadd", 8, 1);
    in[0] = shp(U8, 4, DIMS(2, 3, 5, 7));
    in[1] = shp(F32, 0, NULL);
    in[2] = shp(U8, 0, NULL);
    in[3] = shp(U8, 3, DIMS(3, 1, 7));
    in[4] = shp(F32, 1, DIMS(1));
    in[5] = shp(U8, 0, NULL);
    in[6] = shp(F32, 0, NULL);
    in[7] = shp(U8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], U8, 2, 3, 5, 7);
    sn_init(&s, EM_OP_QLINEARADD, "qadd_zp_dtype", 8, 1); /* a zero point of another dtype */
    in[5] = shp(I8, 0, NULL);
    infer_err(&s, in);
    sn_init(&s, EM_OP_QLINEARADD, "qadd_scale_len", 8, 1); /* a per-tensor op's scale of 3 */
    in[5] = shp(U8, 0, NULL);
    in[4] = shp(F32, 1, DIMS(3));
    infer_err(&s, in);
    sn_init(&s, EM_OP_QLINEARADD, "qadd_scale_dtype", 8, 1);
    in[4] = shp(I32, 0, NULL);
    infer_err(&s, in);
    /* QLinearConcat along axis -1 */
    sn_init(&s, EM_OP_QLINEARCONCAT, "qcat", 8, 1);
    sn_int(&s, "axis", -1);
    in[0] = shp(F32, 0, NULL);
    in[1] = shp(I8, 0, NULL);
    in[2] = shp(I8, 2, DIMS(3, 4));
    in[3] = shp(F32, 0, NULL);
    in[4] = shp(I8, 0, NULL);
    in[5] = shp(I8, 2, DIMS(3, 2));
    in[6] = shp(F32, 0, NULL);
    in[7] = shp(I8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], I8, 3, 6);
    sn_init(&s, EM_OP_QLINEARCONCAT, "qcat_arity", 7, 1);
    sn_int(&s, "axis", 0);
    infer_err(&s, in);
    /* QLinearGlobalAveragePool / QLinearAveragePool */
    sn_init(&s, EM_OP_QLINEARGLOBALAVERAGEPOOL, "qgap", 5, 1);
    in[0] = shp(U8, 4, DIMS(2, 8, 7, 7));
    in[1] = shp(F32, 0, NULL);
    in[2] = shp(U8, 0, NULL);
    in[3] = shp(F32, 0, NULL);
    in[4] = shp(U8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], U8, 2, 8, 1, 1);
    sn_init(&s, EM_OP_QLINEARGLOBALAVERAGEPOOL, "qgap_nhwc", 5, 1);
    sn_int(&s, "channels_last", 1);
    ember_status *st = em_shape_infer_node(&s.n, in, out);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "qgap_nhwc"));
    ember_status_destroy(st);
    sn_init(&s, EM_OP_QLINEARAVERAGEPOOL, "qap", 5, 1);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    sn_ints(&s, "strides", DIMS(2, 2), 2);
    sn_ints(&s, "pads", DIMS(1, 1, 1, 1), 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], U8, 2, 8, 4, 4);
    /* QGemm: f32 without y_scale, y's dtype with it; b per column of N */
    sn_init(&s, EM_OP_QGEMM, "qgemm", 7, 1);
    sn_int(&s, "transB", 1);
    in[0] = shp(U8, 2, DIMS(3, 10));
    in[1] = shp(F32, 0, NULL);
    in[2] = shp(U8, 0, NULL);
    in[3] = shp(I8, 2, DIMS(4, 10));
    in[4] = shp(F32, 1, DIMS(4));
    in[5] = shp(I8, 1, DIMS(4));
    in[6] = shp(I32, 1, DIMS(4));
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 3, 4);
    sn_init(&s, EM_OP_QGEMM, "qgemm_q", 9, 1);
    sn_int(&s, "transB", 1);
    in[7] = shp(F32, 0, NULL);
    in[8] = shp(I8, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], I8, 3, 4);
    sn_init(&s, EM_OP_QGEMM, "qgemm_cols", 9, 1); /* 5 per-column scales for N = 4 */
    sn_int(&s, "transB", 1);
    in[4] = shp(F32, 1, DIMS(5));
    infer_err(&s, in);
    sn_init(&s, EM_OP_QGEMM, "qgemm_bias", 9, 1);
    sn_int(&s, "transB", 1);
    in[4] = shp(F32, 1, DIMS(4));
    in[6] = shp(F32, 1, DIMS(4));
    infer_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize),
        cmocka_unit_test(test_dequantize_dynamic),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_contrib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

