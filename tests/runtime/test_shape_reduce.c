/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_reduce.c: the reduce family's shape functions through em_shape_infer_node.
 * Reduce*-18 with constant axes (one, negative, several, keepdims 0/1), absent and empty axes
 * (all axes, or noop), axes whose values are unknown (rank kept or dropped by the axes count,
 * dims unknown, never an error), symbolic dims passed through; ArgMax/ArgMin; TopK with K known
 * and unknown; CumSum; LayerNormalization's three outputs; InstanceNormalization, MVN, LRN,
 * Det, Softmax, LogSoftmax and Hardmax; Einsum (explicit, implicit, "..." broadcasting, symbolic dims);
 * and the errors, each naming the node.
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

/* A 1-D int64 constant shape over `data` (kept in *t). */
static em_shape i64_value(em_tensor *t, const int64_t *data, int64_t n)
{
    return with_value(shp(EMBER_DTYPE_I64, 1, &n), t, data);
}

static void test_reduce_known_axes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n_axes;
        int64_t axes[3];
        int keepdims;
        int rank;
        int64_t out[4];
    } cases[] = {
        {"keep1", 1, {1}, 1, 3, {3, 1, 5}},      {"drop1", 1, {1}, 0, 2, {3, 5}},
        {"neg", 1, {-1}, 0, 2, {3, 4}},          {"two", 2, {2, 0}, 1, 3, {1, 4, 1}},
        {"all_listed", 3, {0, 1, 2}, 0, 0, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn s;
        em_tensor av;
        sn_init(&s, EM_OP_REDUCEMEAN, cases[i].name, 2, 1);
        sn_int(&s, "keepdims", cases[i].keepdims);
        em_shape in[2] = {shp(EMBER_DTYPE_F32, 3, DIMS(3, 4, 5)),
                          i64_value(&av, cases[i].axes, cases[i].n_axes)};
        em_shape out[1];
        infer_ok(&s, in, out);
        expect(&out[0], EMBER_DTYPE_F32, cases[i].rank, cases[i].out);
    }
}

static void test_reduce_absent_empty_unknown(void **state)
{
    (void)state;
    sn s;
    em_tensor av;
    em_shape out[1];
    em_shape x = shp(EMBER_DTYPE_I32, 3, DIMS(3, 4, 5));
    /* Absent axes: all axes (keepdims default 1). */
    sn_init(&s, EM_OP_REDUCESUM, "absent", 1, 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 1, 1, 1);
    /* Empty axes, keepdims 0: a scalar; with noop_with_empty_axes: the input's shape. */
    sn_init(&s, EM_OP_REDUCESUM, "empty", 2, 1);
    sn_int(&s, "keepdims", 0);
    em_shape in[2] = {x, i64_value(&av, NULL, 0)};
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, 0);
    sn_int(&s, "noop_with_empty_axes", 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 3, 4, 5);
    assert_null(out[0].value);
    /* Absent axes with noop: the input's shape too. */
    sn_init(&s, EM_OP_REDUCEMAX, "absent_noop", 1, 1);
    sn_int(&s, "noop_with_empty_axes", 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 3, 4, 5);
    /* Values unknown: keepdims keeps the rank, otherwise it drops by the axes count. */
    in[1] = shp(EMBER_DTYPE_I64, 1, DIMS(2));
    sn_init(&s, EM_OP_REDUCEL2, "unknown_keep", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, -1, -1, -1);
    sn_int(&s, "keepdims", 0);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, -1);
    in[1] = shp(EMBER_DTYPE_I64, 1, DIMS(-1));
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, -1);
    /* Unknown input rank. */
    in[0] = absent();
    in[0].dtype = EMBER_DTYPE_F32;
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, -1);
}

static void test_reduce_symbolic(void **state)
{
    (void)state;
    sn s;
    em_tensor av;
    static const int64_t ax[1] = {-1};
    em_shape x = shp(EMBER_DTYPE_F32, 3, DIMS(-1, 4, 5));
    x.dims[0].sym = 1;
    em_shape in[2] = {x, i64_value(&av, ax, 1)}, out[1];
    sn_init(&s, EM_OP_REDUCELOGSUMEXP, "sym", 2, 1);
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, 3);
    assert_int_equal(out[0].dims[0].sym, 1);
    assert_int_equal(out[0].dims[2].v, 1);
}

static void test_reduce_errors(void **state)
{
    (void)state;
    static const int64_t range[1] = {3}, nrange[1] = {-4}, rep[2] = {1, -2};
    em_tensor av;
    em_shape x = shp(EMBER_DTYPE_F32, 3, DIMS(3, 4, 5));
    static const struct {
        const char *name;
        const int64_t *axes;
        int n;
    } bads[] = {{"r_range", range, 1}, {"r_nrange", nrange, 1}, {"r_repeat", rep, 2}};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        sn s;
        sn_init(&s, EM_OP_REDUCESUM, bads[i].name, 2, 1);
        em_shape in[2] = {x, i64_value(&av, bads[i].axes, bads[i].n)};
        infer_err(&s, in);
    }
    sn s;
    sn_init(&s, EM_OP_REDUCESUM, "r_axes_rank2", 2, 1);
    em_shape in[2] = {x, shp(EMBER_DTYPE_I64, 2, DIMS(1, 1))};
    infer_err(&s, in);
    sn_init(&s, EM_OP_REDUCESUM, "r_axes_i32", 2, 1);
    in[1] = shp(EMBER_DTYPE_I32, 1, DIMS(1));
    infer_err(&s, in);
}

static void test_argreduce(void **state)
{
    (void)state;
    sn s;
    em_shape x = shp(EMBER_DTYPE_F32, 3, DIMS(3, 4, 5)), out[1];
    sn_init(&s, EM_OP_ARGMAX, "argmax", 1, 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 1, 4, 5);
    sn_int(&s, "axis", -1);
    sn_int(&s, "keepdims", 0);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 3, 4);
    sn_init(&s, EM_OP_ARGMIN, "argmin_range", 1, 1);
    sn_int(&s, "axis", 3);
    infer_err(&s, &x);
}

static void test_topk(void **state)
{
    (void)state;
    sn s;
    em_tensor kv;
    static const int64_t k2[1] = {2}, k9[1] = {9}, kneg[1] = {-1};
    em_shape x = shp(EMBER_DTYPE_F32, 2, DIMS(3, 4)), out[2];
    em_shape in[2] = {x, i64_value(&kv, k2, 1)};
    sn_init(&s, EM_OP_TOPK, "topk", 2, 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 3, 2);
    EXPECT(out[1], EMBER_DTYPE_I64, 3, 2);
    sn_int(&s, "axis", 0);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 4);
    in[1] = shp(EMBER_DTYPE_I64, 1, DIMS(1)); /* K not constant */
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, -1, 4);
    EXPECT(out[1], EMBER_DTYPE_I64, -1, 4);
    in[1] = i64_value(&kv, k9, 1);
    sn_init(&s, EM_OP_TOPK, "topk_too_big", 2, 2);
    infer_err(&s, in);
    in[1] = i64_value(&kv, kneg, 1);
    sn_init(&s, EM_OP_TOPK, "topk_negative", 2, 2);
    infer_err(&s, in);
    in[1] = shp(EMBER_DTYPE_I32, 1, DIMS(1));
    sn_init(&s, EM_OP_TOPK, "topk_k_i32", 2, 2);
    infer_err(&s, in);
    in[1] = i64_value(&kv, k2, 1);
    sn_init(&s, EM_OP_TOPK, "topk_axis", 2, 2);
    sn_int(&s, "axis", 2);
    infer_err(&s, in);
}

static void test_same_shape_ops(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape x = shp(EMBER_DTYPE_F32, 4, DIMS(2, 3, 4, 5));
    em_shape in[3] = {x, shp(EMBER_DTYPE_I32, 0, NULL), shp(EMBER_DTYPE_F32, 1, DIMS(3))};
    sn_init(&s, EM_OP_CUMSUM, "cumsum", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4, 5);
    in[1] = shp(EMBER_DTYPE_I64, 1, DIMS(2));
    sn_init(&s, EM_OP_CUMSUM, "cumsum_two_axes", 2, 1);
    infer_err(&s, in);
    in[1] = shp(EMBER_DTYPE_F32, 0, NULL);
    sn_init(&s, EM_OP_CUMSUM, "cumsum_f32_axis", 2, 1);
    infer_err(&s, in);

    in[1] = in[2];
    sn_init(&s, EM_OP_INSTANCENORM, "instnorm", 3, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4, 5);
    in[2] = shp(EMBER_DTYPE_F32, 1, DIMS(4));
    sn_init(&s, EM_OP_INSTANCENORM, "instnorm_channels", 3, 1);
    infer_err(&s, in);
    em_shape small[3] = {shp(EMBER_DTYPE_F32, 2, DIMS(2, 3)), in[1], in[1]};
    sn_init(&s, EM_OP_INSTANCENORM, "instnorm_rank2", 3, 1);
    infer_err(&s, small);

    sn_init(&s, EM_OP_MVN, "mvn", 1, 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4, 5);
    sn_init(&s, EM_OP_MVN, "mvn_rank2_default", 1, 1);
    infer_err(&s, small);
    sn_init(&s, EM_OP_MVN, "mvn_axes_range", 1, 1);
    sn_ints(&s, "axes", DIMS(0, 4), 2);
    infer_err(&s, &x);

    sn_init(&s, EM_OP_LRN, "lrn", 1, 1);
    sn_int(&s, "size", 3);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4, 5);
    sn_init(&s, EM_OP_LRN, "lrn_no_size", 1, 1);
    infer_err(&s, &x);

    sn_init(&s, EM_OP_LOGSOFTMAX, "logsoftmax", 1, 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4, 5);
    sn_init(&s, EM_OP_HARDMAX, "hardmax_axis", 1, 1);
    sn_int(&s, "axis", 4);
    infer_err(&s, &x);
}

/* Softmax (opset 13): input 0's shape for every axis in [-rank, rank), an error outside. */
static void test_softmax(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape x = shp(EMBER_DTYPE_F32, 3, DIMS(2, 3, 4));
    static const int64_t ok_axes[] = {-3, -2, -1, 0, 1, 2};
    for (size_t i = 0; i < sizeof ok_axes / sizeof ok_axes[0]; i++) {
        sn_init(&s, EM_OP_SOFTMAX, "softmax", 1, 1);
        sn_int(&s, "axis", ok_axes[i]);
        infer_ok(&s, &x, out);
        EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4);
    }
    static const int64_t bad_axes[] = {3, -4, 10};
    for (size_t i = 0; i < sizeof bad_axes / sizeof bad_axes[0]; i++) {
        sn_init(&s, EM_OP_SOFTMAX, "softmax_bad", 1, 1);
        sn_int(&s, "axis", bad_axes[i]);
        infer_err(&s, &x);
    }
    sn_init(&s, EM_OP_SOFTMAX, "softmax_default", 1, 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4);
}

static void test_layernorm(void **state)
{
    (void)state;
    sn s;
    em_shape out[3];
    em_shape in[3] = {shp(EMBER_DTYPE_F64, 3, DIMS(2, 3, 4)), shp(EMBER_DTYPE_F64, 2, DIMS(3, 4)),
                      shp(EMBER_DTYPE_F64, 1, DIMS(4))};
    sn_init(&s, EM_OP_LAYERNORM, "layernorm", 3, 3);
    sn_int(&s, "axis", 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F64, 2, 3, 4);
    EXPECT(out[1], EMBER_DTYPE_F32, 2, 1, 1);
    EXPECT(out[2], EMBER_DTYPE_F32, 2, 1, 1);
    em_shape in1[2] = {in[0], in[2]};
    sn_init(&s, EM_OP_LAYERNORM, "layernorm_default", 2, 2);
    infer_ok(&s, in1, out);
    EXPECT(out[1], EMBER_DTYPE_F32, 2, 3, 1);
    sn_init(&s, EM_OP_LAYERNORM, "layernorm_scale_rank", 2, 1);
    infer_err(&s, in); /* Scale of rank 2 over one normalised axis */
    sn_init(&s, EM_OP_LAYERNORM, "layernorm_axis", 2, 1);
    sn_int(&s, "axis", -4);
    infer_err(&s, in);
}

static void test_det(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape x = shp(EMBER_DTYPE_F32, 3, DIMS(5, 3, 3));
    sn_init(&s, EM_OP_DET, "det", 1, 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 5);
    x = shp(EMBER_DTYPE_F32, 2, DIMS(3, 3));
    infer_ok(&s, &x, out);
    assert_int_equal(out[0].rank, 0);
    x = shp(EMBER_DTYPE_F32, 2, DIMS(3, 4));
    sn_init(&s, EM_OP_DET, "det_not_square", 1, 1);
    infer_err(&s, &x);
    x = shp(EMBER_DTYPE_F32, 1, DIMS(3));
    sn_init(&s, EM_OP_DET, "det_rank1", 1, 1);
    infer_err(&s, &x);
}

static void test_einsum(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[2] = {shp(EMBER_DTYPE_F32, 2, DIMS(2, 3)), shp(EMBER_DTYPE_F32, 2, DIMS(3, 4))};
    sn_init(&s, EM_OP_EINSUM, "matmul", 2, 1);
    sn_str(&s, "equation", "ij,jk->ik");
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 4);
    sn_init(&s, EM_OP_EINSUM, "implicit", 2, 1);
    sn_str(&s, "equation", "ij,jk");
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 4);
    sn_init(&s, EM_OP_EINSUM, "transpose", 1, 1);
    sn_str(&s, "equation", "ji");
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 3, 2);
    sn_init(&s, EM_OP_EINSUM, "trace", 1, 1);
    sn_str(&s, "equation", "ii");
    em_shape sq = shp(EMBER_DTYPE_F32, 2, DIMS(4, 4));
    infer_ok(&s, &sq, out);
    assert_int_equal(out[0].rank, 0);
    /* "..." broadcasting: [2, 1, 3, 4] and [5, 4, 2] -> [2, 5, 3, 2]; symbolic batch kept. */
    em_shape bc[2] = {shp(EMBER_DTYPE_F64, 4, DIMS(-1, 1, 3, 4)),
                      shp(EMBER_DTYPE_F64, 3, DIMS(5, 4, 2))};
    bc[0].dims[0].sym = 2;
    sn_init(&s, EM_OP_EINSUM, "ellipsis", 2, 1);
    sn_str(&s, "equation", "...ij,...jk");
    infer_ok(&s, bc, out);
    EXPECT(out[0], EMBER_DTYPE_F64, -1, 5, 3, 2);
    assert_int_equal(out[0].dims[0].sym, 2);
    /* Unknown rank: unknown output. */
    em_shape unk[2] = {absent(), in[1]};
    unk[0].dtype = EMBER_DTYPE_F32;
    sn_init(&s, EM_OP_EINSUM, "unknown_rank", 2, 1);
    sn_str(&s, "equation", "ij,jk->ik");
    infer_ok(&s, unk, out);
    assert_int_equal(out[0].rank, -1);
    static const struct {
        const char *name, *eq;
    } bads[] = {
        {"ein_terms", "ij->i"},    {"ein_rank", "ijk,jk->ik"}, {"ein_size", "ij,kj->ik"},
        {"ein_char", "i#,jk->ik"}, {"ein_out", "ij,jk->iq"},   {"ein_missing", NULL},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        sn_init(&s, EM_OP_EINSUM, bads[i].name, 2, 1);
        if (bads[i].eq != NULL) {
            sn_str(&s, "equation", bads[i].eq);
        }
        infer_err(&s, in);
    }
}

/* Through em_graph_infer_shapes: an initializer reaches the shape function as in[1].value and
 * a symbolic batch dim survives; TopK with a graph-input K gets an unknown dim instead. */
static void test_graph_value_inputs(void **state)
{
    (void)state;
    em_graph *g = NULL;
    int x, axes, k, node;
    static const int64_t xd[3] = {-1, 4, 5}, ad = 1, axes_v[1] = {-2};
    const char *const names[3] = {"N", NULL, NULL};
    assert_null(em_graph_new(test_allocator(), &g));
    assert_null(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 3, xd, names, &x));
    assert_null(em_graph_add_initializer_copy(g, "axes", EMBER_DTYPE_I64, 1, &ad, axes_v, &axes));
    assert_null(em_graph_add_input(g, "k", EMBER_DTYPE_I64, 1, &ad, NULL, &k));
    const int rin[2] = {x, axes}, tin[2] = {x, k};
    const char *const rout[1] = {"mean"}, *const tout[2] = {"values", "indices"};
    assert_null(em_graph_add_node(g, EM_OP_REDUCEMEAN, "mean", rin, 2, rout, 1, &node));
    assert_null(em_graph_add_node(g, EM_OP_TOPK, "topk", tin, 2, tout, 2, &node));
    assert_null(em_graph_infer_shapes(g));
    const em_value *m = &g->values[em_graph_find_value(g, "mean")];
    assert_int_equal(m->rank, 3);
    assert_true(m->dims[0].sym > 0);
    assert_true(m->dims[1].v == 1 && m->dims[2].v == 5);
    const em_value *v = &g->values[em_graph_find_value(g, "indices")];
    assert_int_equal(v->dtype, EMBER_DTYPE_I64);
    assert_int_equal(v->rank, 3);
    assert_true(v->dims[0].sym > 0 && v->dims[1].v == 4 && v->dims[2].v < 0);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_known_axes),
        cmocka_unit_test(test_reduce_absent_empty_unknown),
        cmocka_unit_test(test_reduce_symbolic),
        cmocka_unit_test(test_reduce_errors),
        cmocka_unit_test(test_argreduce),
        cmocka_unit_test(test_topk),
        cmocka_unit_test(test_same_shape_ops),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_det),
        cmocka_unit_test(test_einsum),
        cmocka_unit_test(test_graph_value_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
