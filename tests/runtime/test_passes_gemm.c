/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MatMul + bias Add -> Gemm (runtime/passes/passes_gemm.c): a transformer-like block on rank-3
 * activations (bias on the left of its Add, a [1, N] bias, a product that is a graph output), a
 * rank-2 product, and the cases that must stay as they are (a product read twice, a bias that
 * is not a constant row, a non-constant B, two symbolic leading dims). The optimized graph must
 * compute what the original computes, keep its outputs' names and shapes, and hold the
 * expected ops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include "passes/passes.h"
#include "plan/fold.h"

#include <math.h>

#define F32 EMBER_DTYPE_F32

static int op2(em_graph *g, em_op o, int a, int b, const char *name)
{
    int ni;
    const int in[2] = {a, b};
    const char *outs[1] = {name};
    OK(em_graph_add_node(g, o, name, in, b >= 0 ? 2 : 1, outs, 1, &ni));
    return g->nodes[ni].out[0];
}

/* x [d0, d1, 17] (d < 0: symbolic, "N" and "S") -> six outputs, see the file comment. */
static ember_model *build(int64_t d0, int64_t d1)
{
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[3] = {d0, d1, 17}, b1d[2] = {17, 20}, n1[1] = {20}, b2d[2] = {20, 9};
    const int64_t n2[2] = {1, 9}, col[3] = {1, 1, 20}, flat[2] = {-1, 17}, one[1] = {2};
    const char *syms[3] = {d0 < 0 ? "N" : NULL, d1 < 0 ? "S" : NULL, NULL};
    int x, shp;
    OK(em_graph_add_input(g, "x", F32, 3, xd, syms, &x));
    int b1 = tp_init_f32(g, "B1", 2, b1d, 1, -0.5f, 0.5f),
        bias1 = tp_init_f32(g, "bias1", 1, n1, 2, -0.5f, 0.5f);
    /* bias on the left, then Relu, then a [1, N] bias into a graph output */
    int a1 = op2(g, EM_OP_ADD, bias1, op2(g, EM_OP_MATMUL, x, b1, "mm1"), "a1");
    int r1 = op2(g, EM_OP_RELU, a1, -1, "r1");
    int y1 = op2(g, EM_OP_ADD,
                 op2(g, EM_OP_MATMUL, r1, tp_init_f32(g, "B2", 2, b2d, 3, -0.5f, 0.5f), "mm2"),
                 tp_init_f32(g, "bias2", 2, n2, 4, -0.5f, 0.5f), "y1");
    /* rank 2: straight into Gemm */
    OK(em_graph_add_initializer_copy(g, "flat", EMBER_DTYPE_I64, 1, one, flat, &shp));
    int x2 = op2(g, EM_OP_RESHAPE, x, shp, "x2");
    int y2 = op2(g, EM_OP_ADD, op2(g, EM_OP_MATMUL, x2, b1, "mm3"), bias1, "y2");
    /* a product read twice stays (its Add too) */
    int t3 = op2(g, EM_OP_MATMUL, x, b1, "mm4");
    int y3 = op2(g, EM_OP_ADD, t3, bias1, "y3");
    int y4 = op2(g, EM_OP_NEG, t3, -1, "y4");
    /* a bias of rank 3 [1, 1, N] is not a Gemm C; nor is a non-constant one */
    int y5 = op2(g, EM_OP_ADD, op2(g, EM_OP_MATMUL, x, b1, "mm5"),
                 tp_init_f32(g, "bias3", 3, col, 5, -0.5f, 0.5f), "y5");
    int y6 = op2(g, EM_OP_ADD, op2(g, EM_OP_MATMUL, x, b1, "mm6"), a1, "y6");
    const int outs[6] = {y1, y2, y3, y4, y5, y6};
    for (int i = 0; i < 6; i++) {
        OK(em_graph_mark_output(g, outs[i]));
    }
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return m;
}

static void check(int64_t d0, int64_t d1, int gemms)
{
    ember_model *plain = build(d0, d1), *opt = build(d0, d1);
    em_passes_options o = {true, true, false, 0, em_plan_eval_const};
    OK(em_passes_run(opt->g, &o));
    const em_graph *g = opt->g;
    tp_debug_print(g);
    assert_int_equal(tp_count_op(g, EM_OP_GEMM), gemms);
    assert_int_equal(tp_count_op(g, EM_OP_MATMUL), 6 - gemms);
    assert_int_equal(tp_count_op(g, EM_OP_ADD), 6 - gemms);
    assert_int_equal(tp_count_op(g, EM_OP_RESHAPE), 1 + 2 * (gemms - 1));
    const char *names[6] = {"y1", "y2", "y3", "y4", "y5", "y6"};
    const int ranks[6] = {3, 2, 3, 3, 3, 3};
    assert_int_equal(g->n_outputs, 6);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(g->values[g->outputs[i]].name, names[i]);
        assert_int_equal(g->values[g->outputs[i]].rank, ranks[i]);
    }
    const int64_t xd[3] = {2, 3, 17};
    float x[102];
    for (int i = 0; i < 102; i++) {
        x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    }
    ember_tensor *a[6], *b[6];
    tp_run(plain, 3, xd, x, a, 6);
    tp_run(opt, 3, xd, x, b, 6);
    for (int i = 0; i < 6; i++) {
        const float *pa = ember_tensor_data(a[i]), *pb = ember_tensor_data(b[i]);
        assert_int_equal(ember_tensor_elem_count(a[i]), ember_tensor_elem_count(b[i]));
        assert_int_equal(ember_tensor_rank(a[i]), ember_tensor_rank(b[i]));
        for (int64_t k = 0; k < ember_tensor_elem_count(a[i]); k++) {
            if (fabs((double)pa[k] - (double)pb[k]) > 1e-5 + 1e-5 * fabs((double)pa[k])) {
                fail_msg("output %d [%lld]: %g vs %g", i, (long long)k, (double)pb[k],
                         (double)pa[k]);
            }
        }
    }
    ag_free_outs(a, 6);
    ag_free_outs(b, 6);
    ember_model_destroy(plain);
    ember_model_destroy(opt);
}

/* Known dims: mm1, mm2 (rank 3, through Reshapes) and mm3 (rank 2) become Gemms. */
static void test_matmul_bias_known(void **state)
{
    (void)state;
    check(2, 3, 3);
}

/* One symbolic leading dim: the Reshape back takes -1 there. */
static void test_matmul_bias_one_unknown(void **state)
{
    (void)state;
    check(-1, 3, 3);
}

/* Two symbolic leading dims: no Reshape target, so only the rank-2 product is fused. */
static void test_matmul_bias_two_unknown(void **state)
{
    (void)state;
    check(-1, -1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_bias_known),
        cmocka_unit_test(test_matmul_bias_one_unknown),
        cmocka_unit_test(test_matmul_bias_two_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
