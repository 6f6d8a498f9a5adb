/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape_quant.c: the quant family's shape functions through em_shape_infer_node.
 * QuantizeLinear (output dtype from the zero point, output_dtype or uint8; per-tensor,
 * per-axis and blocked scales checked against x), DequantizeLinear (scale's dtype or
 * output_dtype), DynamicQuantizeLinear's three outputs, MatMulInteger / QLinearMatMul (numpy
 * batching, 1-D operands, symbolic dims) and ConvInteger / QLinearConv (Conv's sizes), and the
 * errors, each naming the node.
 *
 * The first part holds the helpers of test_shape_quant.c and test_shape_signal.c (which
 * includes this file with EM_SHAPE_QS_HELPERS_ONLY defined).
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_SHAPE_QUANT_C
#define EMBER_TESTS_RUNTIME_TEST_SHAPE_QUANT_C

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "graph.h"
#include "shape.h"
#include "status.h"

/* A hand-built node with room for attributes (em_node_attr_* read n.attrs). */
typedef struct qs_node {
    em_node n;
    int in[10], out[4];
    em_attr attrs[8];
    int64_t ints[8][8];
} qs_node;

static inline void qs_init(qs_node *s, em_op op, const char *name, int n_in, int n_out)
{
    memset(s, 0, sizeof *s);
    s->n.op = op;
    s->n.name = (char *)name;
    s->n.n_in = n_in;
    s->n.n_out = n_out;
    s->n.in = s->in;
    s->n.out = s->out;
    s->n.attrs = s->attrs;
    for (int i = 0; i < 10; i++) {
        s->in[i] = i;
    }
    for (int i = 0; i < 4; i++) {
        s->out[i] = 10 + i;
    }
}

static inline void qs_int(qs_node *s, const char *name, int64_t v)
{
    em_attr *a = &s->attrs[s->n.n_attrs++];
    a->name = (char *)name;
    a->type = EM_ATTR_INT;
    a->i = v;
}

static inline void qs_ints(qs_node *s, const char *name, const int64_t *v, int n)
{
    int slot = s->n.n_attrs++;
    em_attr *a = &s->attrs[slot];
    memcpy(s->ints[slot], v, sizeof(int64_t) * (size_t)n);
    a->name = (char *)name;
    a->type = EM_ATTR_INTS;
    a->ints = s->ints[slot];
    a->n = n;
}

/* A shape of known dims; a dim of -1 is unknown, below -1 the symbol -d - 1. */
static inline em_shape qs_shape(ember_dtype dt, int rank, const int64_t *dims)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.rank = rank;
    for (int i = 0; i < rank && i < EM_MAX_RANK; i++) {
        s.dims[i].v = dims[i] < 0 ? -1 : dims[i];
        s.dims[i].sym = dims[i] < -1 ? (int32_t)(-dims[i] - 1) : 0;
    }
    return s;
}

static inline em_shape qs_absent(void)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}

/* A one-element int constant (rank 0) of dtype dt over *t and *v. */
static inline em_shape qs_value(ember_dtype dt, em_tensor *t, int64_t *v)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = 0;
    if (dt == EMBER_DTYPE_I32) {
        int32_t x = (int32_t)*v;
        memcpy(v, &x, sizeof x);
    }
    t->data = v;
    em_shape s = qs_shape(dt, 0, NULL);
    s.value = t;
    return s;
}

static inline void qs_ok(const qs_node *s, const em_shape *in, em_shape *out)
{
    ember_status *st = em_shape_infer_node(&s->n, in, out);
    if (st != NULL) {
        fail_msg("node '%s': unexpected error: %s", s->n.name, ember_status_message(st));
    }
}

static inline void qs_err(const qs_node *s, const em_shape *in)
{
    em_shape out[4];
    ember_status *st = em_shape_infer_node(&s->n, in, out);
    if (st == NULL) {
        fail_msg("node '%s': expected an error", s->n.name);
    }
    bool ok = ember_status_code(st) == EMBER_ERR_INVALID_MODEL &&
              strstr(ember_status_message(st), s->n.name) != NULL;
    if (!ok) {
        print_error("node '%s': got %s\n", s->n.name, ember_status_message(st));
    }
    ember_status_destroy(st);
    assert_true(ok);
}

/* dtype, rank and dims (-1: expect unknown; below -1: that symbol). */
static inline void qs_expect(const em_shape *s, ember_dtype dt, int rank, const int64_t *dims)
{
    assert_int_equal(s->dtype, dt);
    assert_int_equal(s->rank, rank);
    for (int i = 0; i < rank; i++) {
        int64_t v = dims[i] < -1 ? -1 : dims[i];
        int32_t sym = dims[i] < -1 ? (int32_t)(-dims[i] - 1) : 0;
        if (s->dims[i].v != v || (dims[i] < -1 && s->dims[i].sym != sym)) {
            fail_msg("dim %d is %lld (sym %d), expected %lld", i, (long long)s->dims[i].v,
                     (int)s->dims[i].sym, (long long)dims[i]);
        }
    }
}

#define QD(...) ((const int64_t[]){__VA_ARGS__})
#define QN(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define QS_EXPECT(s, dt, ...) qs_expect(&(s), dt, QN(__VA_ARGS__), QD(__VA_ARGS__))

#ifndef EM_SHAPE_QS_HELPERS_ONLY

#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
#define I16 EMBER_DTYPE_I16
#define I32 EMBER_DTYPE_I32

static void test_quantize(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_shape x = qs_shape(F32, 3, QD(2, -2, 6));
    /* No zero point: uint8, or output_dtype. */
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_default", 2, 1);
    em_shape in[3] = {x, qs_shape(F32, 0, NULL), qs_absent()};
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], U8, 2, -2, 6);
    qs_int(&s, "output_dtype", I16);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I16, 2, -2, 6);
    /* The zero point decides; output_dtype must agree. */
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_zp", 3, 1);
    in[2] = qs_shape(I8, 0, NULL);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I8, 2, -2, 6);
    qs_int(&s, "output_dtype", I8);
    qs_ok(&s, in, out);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_zp_mismatch", 3, 1);
    qs_int(&s, "output_dtype", U8);
    qs_err(&s, in);
    /* Per axis (default axis 1: the symbolic dim, any length), axis -1, blocked. */
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_axis", 3, 1);
    in[1] = qs_shape(F32, 1, QD(7));
    in[2] = qs_shape(I8, 1, QD(7));
    qs_ok(&s, in, out);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_axis_len", 3, 1);
    qs_int(&s, "axis", -1);
    qs_err(&s, in);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_axis_last", 3, 1);
    qs_int(&s, "axis", -1);
    in[1] = qs_shape(F32, 1, QD(6));
    in[2] = qs_shape(I8, 1, QD(6));
    qs_ok(&s, in, out);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_axis_range", 3, 1);
    qs_int(&s, "axis", 3);
    qs_err(&s, in);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_blocked", 3, 1);
    qs_int(&s, "axis", 2);
    qs_int(&s, "block_size", 4);
    in[1] = qs_shape(F32, 3, QD(2, -2, 2));
    in[2] = qs_shape(I8, 3, QD(2, -2, 2));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I8, 2, -2, 6);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_blocked_bad", 3, 1);
    qs_int(&s, "axis", 2);
    qs_int(&s, "block_size", 2);
    qs_err(&s, in);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_blocked_rank", 3, 1);
    qs_int(&s, "axis", 2);
    qs_int(&s, "block_size", 4);
    in[1] = qs_shape(F32, 1, QD(2));
    in[2] = qs_shape(I8, 1, QD(2));
    qs_err(&s, in);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_block_neg", 3, 1);
    qs_int(&s, "block_size", -2);
    qs_err(&s, in);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_per_axis_2d", 3, 1);
    in[1] = qs_shape(F32, 2, QD(2, 6));
    in[2] = qs_shape(I8, 2, QD(2, 6));
    qs_err(&s, in);
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_zp_shape", 3, 1);
    qs_int(&s, "axis", 0);
    in[1] = qs_shape(F32, 1, QD(2));
    in[2] = qs_shape(I8, 1, QD(3));
    qs_err(&s, in);
    /* Unknown x rank: dtype only. */
    qs_init(&s, EM_OP_QUANTIZELINEAR, "q_unknown", 2, 1);
    em_shape un[2] = {qs_absent(), qs_shape(F32, 1, QD(4))};
    un[0].dtype = F32;
    qs_ok(&s, un, out);
    assert_int_equal(out[0].dtype, U8);
    assert_int_equal(out[0].rank, -1);
}

static void test_dequantize_dynamic(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[3];
    em_shape in[3] = {qs_shape(I16, 2, QD(3, 5)), qs_shape(F16, 1, QD(5)), qs_shape(I16, 1, QD(5))};
    qs_init(&s, EM_OP_DEQUANTIZELINEAR, "dq", 3, 1);
    qs_int(&s, "axis", 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F16, 3, 5);
    qs_int(&s, "output_dtype", F32);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 3, 5);
    qs_init(&s, EM_OP_DEQUANTIZELINEAR, "dq_zp_dtype", 3, 1);
    in[2] = qs_shape(U8, 1, QD(5));
    qs_err(&s, in);
    qs_init(&s, EM_OP_DEQUANTIZELINEAR, "dq_axis_len", 3, 1);
    qs_int(&s, "axis", 0);
    in[2] = qs_shape(I16, 1, QD(5));
    qs_err(&s, in);
    qs_init(&s, EM_OP_DYNAMICQUANTIZELINEAR, "dyn", 1, 3);
    em_shape x = qs_shape(F32, 3, QD(-3, 4, 2));
    qs_ok(&s, &x, out);
    QS_EXPECT(out[0], U8, -3, 4, 2);
    assert_int_equal(out[1].dtype, F32);
    assert_int_equal(out[1].rank, 0);
    assert_int_equal(out[2].dtype, U8);
    assert_int_equal(out[2].rank, 0);
}

static void test_matmul(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_shape in[9];
    for (int i = 0; i < 9; i++) {
        in[i] = qs_absent();
    }
    qs_init(&s, EM_OP_MATMULINTEGER, "mi", 2, 1);
    in[0] = qs_shape(U8, 3, QD(-2, 3, 4));
    in[1] = qs_shape(I8, 2, QD(4, 5));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I32, -2, 3, 5);
    qs_init(&s, EM_OP_MATMULINTEGER, "mi_1d", 4, 1);
    in[0] = qs_shape(U8, 1, QD(4));
    in[1] = qs_shape(U8, 3, QD(2, 4, 6));
    in[2] = qs_shape(U8, 0, NULL);
    in[3] = qs_shape(U8, 1, QD(6));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I32, 2, 6);
    qs_init(&s, EM_OP_MATMULINTEGER, "mi_zp_dtype", 4, 1);
    in[2] = qs_shape(I8, 0, NULL);
    qs_err(&s, in);
    qs_init(&s, EM_OP_MATMULINTEGER, "mi_k", 2, 1);
    in[0] = qs_shape(U8, 2, QD(3, 5));
    qs_err(&s, in);
    /* QLinearMatMul: a, b are inputs 0 and 3; y is y_zero_point's dtype. */
    qs_init(&s, EM_OP_QLINEARMATMUL, "qlmm", 8, 1);
    in[0] = qs_shape(U8, 3, QD(2, 3, 4));
    in[1] = qs_shape(F32, 0, NULL);
    in[2] = qs_shape(U8, 0, NULL);
    in[3] = qs_shape(I8, 3, QD(1, 4, 7));
    in[4] = qs_shape(F32, 1, QD(7));
    in[5] = qs_shape(I8, 1, QD(7));
    in[6] = qs_shape(F32, 0, NULL);
    in[7] = qs_shape(I8, 0, NULL);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I8, 2, 3, 7);
    qs_init(&s, EM_OP_QLINEARMATMUL, "qlmm_zp_dtype", 8, 1);
    in[5] = qs_shape(U8, 1, QD(7));
    qs_err(&s, in);
    qs_init(&s, EM_OP_QLINEARMATMUL, "qlmm_batch", 8, 1);
    in[5] = qs_shape(I8, 1, QD(7));
    in[3] = qs_shape(I8, 3, QD(3, 4, 7));
    qs_err(&s, in);
}

static void test_conv(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_shape in[9];
    for (int i = 0; i < 9; i++) {
        in[i] = qs_absent();
    }
    qs_init(&s, EM_OP_CONVINTEGER, "ci", 3, 1);
    qs_ints(&s, "pads", QD(1, 0, 1, 2), 4);
    qs_ints(&s, "strides", QD(2, 1), 2);
    in[0] = qs_shape(U8, 4, QD(-2, 2, 7, 6));
    in[1] = qs_shape(I8, 4, QD(5, 2, 3, 3));
    in[2] = qs_shape(U8, 0, NULL);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], I32, -2, 5, 4, 6);
    qs_init(&s, EM_OP_CONVINTEGER, "ci_zp_dtype", 3, 1);
    in[2] = qs_shape(I8, 0, NULL);
    qs_err(&s, in);
    qs_init(&s, EM_OP_CONVINTEGER, "ci_channels", 2, 1);
    in[1] = qs_shape(I8, 4, QD(5, 3, 3, 3));
    qs_err(&s, in);
    /* QLinearConv: x input 0, w input 3, y from input 7, bias int32. */
    qs_init(&s, EM_OP_QLINEARCONV, "qlc", 9, 1);
    qs_int(&s, "group", 2);
    in[0] = qs_shape(I8, 4, QD(1, 4, 5, 5));
    in[1] = qs_shape(F32, 0, NULL);
    in[2] = qs_shape(I8, 0, NULL);
    in[3] = qs_shape(U8, 4, QD(6, 2, 2, 2));
    in[4] = qs_shape(F32, 1, QD(6));
    in[5] = qs_shape(U8, 1, QD(6));
    in[6] = qs_shape(F32, 0, NULL);
    in[7] = qs_shape(U8, 0, NULL);
    in[8] = qs_shape(I32, 1, QD(6));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], U8, 1, 6, 4, 4);
    qs_init(&s, EM_OP_QLINEARCONV, "qlc_bias_dtype", 9, 1);
    in[8] = qs_shape(F32, 1, QD(6));
    qs_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize),
        cmocka_unit_test(test_dequantize_dynamic),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_conv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* EM_SHAPE_QS_HELPERS_ONLY */
#endif /* EMBER_TESTS_RUNTIME_TEST_SHAPE_QUANT_C */
