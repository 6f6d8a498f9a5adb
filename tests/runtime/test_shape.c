/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape.c: em_shape_ew (numpy broadcasting, symbols kept against 1, dtypes that
 * must agree) and the graph-level pass: em_graph_infer_shapes keeps a symbolic batch dim through
 * Conv -> Flatten -> Gemm -> Softmax and names the node whose shape is wrong. The other shape
 * functions are tested beside their family (test_shape_<family>*.c).
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

/* ---- elementwise ------------------------------------------------------------------------- */

static void test_elementwise_broadcast(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_ADD, EM_OP_SUB, EM_OP_MUL, EM_OP_DIV};
    for (int i = 0; i < 4; i++) {
        fx f = fx_new(ops[i], 2, "ew");
        em_shape in[2] = {SHP(2, 3, 4), SHP(4)};
        em_shape o = infer_ok(&f, in);
        EXPECT_DIMS(o, 2, 3, 4);
        in[0] = SHP(2, 1, 4);
        in[1] = SHP(3, 1);
        o = infer_ok(&f, in);
        EXPECT_DIMS(o, 2, 3, 4);
        in[0] = SHP(1);
        in[1] = SHP(5, 1, 6);
        o = infer_ok(&f, in);
        EXPECT_DIMS(o, 5, 1, 6);
        in[0] = SHP(5);
        in[1] = shp(EMBER_DTYPE_F32, 0, NULL); /* scalar */
        o = infer_ok(&f, in);
        EXPECT_DIMS(o, 5);
        in[0] = SHP(0, 3);
        in[1] = SHP(1, 3);
        o = infer_ok(&f, in);
        EXPECT_DIMS(o, 0, 3);
        /* 3 vs 4 does not broadcast. */
        in[0] = SHP(2, 3);
        in[1] = SHP(2, 4);
        infer_err(&f, in, "broadcast");
        in[0] = SHP(3, 5);
        in[1] = SHP(4, 5);
        infer_err(&f, in, "3");
        /* Symbolic dims: against 1 and against themselves. */
        in[0] = sym_dim(SHP(0, 3), 0, 1);
        in[1] = SHP(1, 3);
        o = infer_ok(&f, in);
        assert_true(o.dims[0].sym == 1 && o.dims[0].v == -1 && o.dims[1].v == 3);
        in[1] = sym_dim(SHP(0, 3), 0, 1);
        o = infer_ok(&f, in);
        assert_true(o.dims[0].sym == 1);
        in[1] = SHP(3);
        o = infer_ok(&f, in);
        assert_true(o.dims[0].sym == 1 && o.rank == 2);
        /* dtypes must agree. */
        in[0] = SHP(2, 3);
        in[1] = shp(EMBER_DTYPE_I64, 2, (const int64_t[]){2, 3});
        infer_err(&f, in, "dtype");
        fx_free(&f);
    }
    /* Unary ops keep the shape and the symbols. */
    static const em_op unary[] = {EM_OP_RELU, EM_OP_SIGMOID, EM_OP_TANH, EM_OP_IDENTITY};
    for (int i = 0; i < 4; i++) {
        fx f = fx_new(unary[i], 1, "unary");
        em_shape in[1] = {sym_dim(SHP(0, 7, 2), 0, 4)};
        em_shape o = infer_ok(&f, in);
        EXPECT_DIMS(o, -1, 7, 2);
        assert_true(o.dims[0].sym == 4);
        assert_int_equal(o.dtype, EMBER_DTYPE_F32);
        fx_free(&f);
    }
}

/* ---- the graph-level pass ---------------------------------------------------------------- */

static void test_graph_symbolic_propagation(void **state)
{
    (void)state;
    em_graph *g = NULL;
    assert_null(em_graph_new(test_allocator(), &g));
    const int64_t xd[] = {-1, 1, 28, 28};
    const char *const xn[] = {"batch", NULL, NULL, NULL};
    int x, w, w2, shp_i;
    assert_null(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 4, xd, xn, &x));
    static float wdat[4 * 1 * 3 * 3], w2dat[10 * 4 * 26 * 26];
    const int64_t wd[] = {4, 1, 3, 3}, w2d[] = {10, 4 * 26 * 26};
    assert_null(em_graph_add_initializer_copy(g, "w", EMBER_DTYPE_F32, 4, wd, wdat, &w));
    assert_null(em_graph_add_initializer_copy(g, "w2", EMBER_DTYPE_F32, 2, w2d, w2dat, &w2));
    const int64_t target[] = {0, -1}, td[] = {2};
    assert_null(em_graph_add_initializer_copy(g, "target", EMBER_DTYPE_I64, 1, td, target, &shp_i));
    int conv, rs, flat, fc, sm;
    const int cin[] = {x, w};
    const char *const o1[] = {"c"}, *const o2[] = {"rs"}, *const o3[] = {"f"},
                      *const o4[] = {"logits"}, *const o5[] = {"prob"};
    assert_null(em_graph_add_node(g, EM_OP_CONV, "conv", cin, 2, o1, 1, &conv));
    const int rin[] = {g->nodes[conv].out[0], shp_i};
    assert_null(em_graph_add_node(g, EM_OP_RESHAPE, "reshape", rin, 2, o2, 1, &rs));
    int c_out = g->nodes[conv].out[0];
    assert_null(em_graph_add_node(g, EM_OP_FLATTEN, "flatten", &c_out, 1, o3, 1, &flat));
    const int gin[] = {g->nodes[flat].out[0], w2};
    assert_null(em_graph_add_node(g, EM_OP_GEMM, "fc", gin, 2, o4, 1, &fc));
    assert_null(em_node_set_int(g, fc, "transB", 1));
    int lg = g->nodes[fc].out[0];
    assert_null(em_graph_add_node(g, EM_OP_SOFTMAX, "softmax", &lg, 1, o5, 1, &sm));
    assert_null(em_graph_mark_output(g, g->nodes[sm].out[0]));
    assert_null(em_graph_verify(g));
    assert_null(em_graph_infer_shapes(g));

    int32_t batch = g->values[x].dims[0].sym;
    assert_true(batch > 0);
    static const struct {
        const char *name;
        int rank;
        int64_t dims[4]; /* dim 0 is the batch symbol */
    } want[] = {
        {"c", 4, {-1, 4, 26, 26}},   {"rs", 2, {-1, -2}}, /* [batch, -1]: -2 = not checked (may stay
                                                             unknown) */
        {"f", 2, {-1, 4 * 26 * 26}}, {"logits", 2, {-1, 10}}, {"prob", 2, {-1, 10}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int vi = em_graph_find_value(g, want[i].name);
        assert_true(vi >= 0);
        const em_value *v = &g->values[vi];
        assert_int_equal(v->dtype, EMBER_DTYPE_F32);
        if (v->rank != want[i].rank) {
            fail_msg("%s: rank %d, expected %d", want[i].name, v->rank, want[i].rank);
        }
        if (v->dims[0].sym != batch || v->dims[0].v != -1) {
            fail_msg("%s: dim 0 is (v=%lld, sym=%d), expected the batch symbol %d", want[i].name,
                     (long long)v->dims[0].v, v->dims[0].sym, batch);
        }
        for (int d = 1; d < want[i].rank; d++) {
            assert_true(want[i].dims[d] == -2 || v->dims[d].v == want[i].dims[d]);
        }
    }
    em_graph_destroy(g);
}

static void test_graph_infer_error_names_node(void **state)
{
    (void)state;
    em_graph *g = NULL;
    assert_null(em_graph_new(test_allocator(), &g));
    const int64_t ad[] = {2, 3}, bd[] = {2, 4};
    int a, b, n;
    assert_null(em_graph_add_input(g, "a", EMBER_DTYPE_F32, 2, ad, NULL, &a));
    assert_null(em_graph_add_input(g, "b", EMBER_DTYPE_F32, 2, bd, NULL, &b));
    const int in[] = {a, b};
    const char *const o[] = {"sum"};
    assert_null(em_graph_add_node(g, EM_OP_ADD, "bad_add", in, 2, o, 1, &n));
    ember_status *st = em_graph_infer_shapes(g);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(st), "bad_add"));
    ember_status_destroy(st);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elementwise_broadcast),
        cmocka_unit_test(test_graph_symbolic_propagation),
        cmocka_unit_test(test_graph_infer_error_names_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
