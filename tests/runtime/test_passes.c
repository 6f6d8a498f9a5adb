/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The graph passes (runtime/passes/passes.h) on a small conv net built here: Conv+BN+Relu,
 * Conv + per-channel constant Add + residual Add + Relu, Conv + x*Sigmoid(x), Conv + Clip with
 * constant bounds, a conv whose output is a graph output (kept), a dead node, a Concat of one
 * value and a Pad of zero pads (both dropped), a channel Concat of two conv outputs (blocked with
 * the layout pass), and a constant subexpression. The optimized graph must compute what the
 * original computes (both run by sessions), keep its inputs and outputs (names, dtypes), and hold
 * the expected ops; with the layout pass (blocks 16 and 8) and without.
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

static int conv(em_graph *g, int x, int w, int b, const char *name)
{
    const int in[3] = {x, w, b};
    int ni;
    const char *outs[1] = {name};
    const int64_t pads[4] = {1, 1, 1, 1};
    OK(em_graph_add_node(g, EM_OP_CONV, name, in, b >= 0 ? 3 : 2, outs, 1, &ni));
    OK(em_node_set_ints(g, ni, "pads", pads, 4));
    return g->nodes[ni].out[0];
}

static int op(em_graph *g, em_op o, const int *in, int n, const char *name)
{
    int ni;
    const char *outs[1] = {name};
    OK(em_graph_add_node(g, o, name, in, n, outs, 1, &ni));
    return g->nodes[ni].out[0];
}

static ember_model *build(void)
{
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {1, 16, 6, 5}, wd[4] = {16, 16, 3, 3}, cd[1] = {16}, kd[3] = {16, 1, 1};
    const int64_t sd[1] = {1};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    int c1 = conv(g, x, tp_init_f32(g, "w1", 4, wd, 1, -0.3f, 0.3f),
                  tp_init_f32(g, "b1", 1, cd, 2, -1, 1), "c1");
    const int bn_in[5] = {
        c1, tp_init_f32(g, "s", 1, cd, 3, 0.5f, 2), tp_init_f32(g, "beta", 1, cd, 4, -1, 1),
        tp_init_f32(g, "mean", 1, cd, 5, -1, 1), tp_init_f32(g, "var", 1, cd, 6, 0.2f, 2)};
    int bn = op(g, EM_OP_BATCHNORM, bn_in, 5, "bn");
    int r1 = op(g, EM_OP_SWISH, &bn, 1, "r1"); /* alpha 1: SiLU, as TorchScript's silu */
    int c2 = conv(g, r1, tp_init_f32(g, "w2", 4, wd, 7, -0.3f, 0.3f), -1, "c2");
    const int add_k[2] = {c2, tp_init_f32(g, "k", 3, kd, 8, -1, 1)};
    int a2 = op(g, EM_OP_ADD, add_k, 2, "a2");
    const int res_in[2] = {r1, a2};
    int res = op(g, EM_OP_ADD, res_in, 2, "res");
    int r2 = op(g, EM_OP_RELU, &res, 1, "r2");
    const int64_t zeros[8] = {0}, pd[1] = {8};
    int pads;
    OK(em_graph_add_initializer_copy(g, "pads0", EMBER_DTYPE_I64, 1, pd, zeros, &pads));
    int c1i;
    const char *c1o[1] = {"cat1"}; /* a Concat of one value (densenet's first layers): dropped */
    OK(em_graph_add_node(g, EM_OP_CONCAT, "cat1", &r2, 1, c1o, 1, &c1i));
    OK(em_node_set_int(g, c1i, "axis", 1));
    const int pad_in[2] = {g->nodes[c1i].out[0], pads};
    int p2 = op(g, EM_OP_PAD, pad_in, 2, "pad0"); /* a no-op: dropped */
    int c3 = conv(g, p2, tp_init_f32(g, "w3", 4, wd, 9, -0.3f, 0.3f), -1, "c3");
    int sg = op(g, EM_OP_SIGMOID, &c3, 1, "sg");
    const int mul_in[2] = {sg, c3};
    int silu = op(g, EM_OP_MUL, mul_in, 2, "silu");
    const int cat_in[2] = {silu, r2}; /* channel Concat of two blocked values */
    int ci;
    const char *cat_out[1] = {"cat"};
    OK(em_graph_add_node(g, EM_OP_CONCAT, "cat", cat_in, 2, cat_out, 1, &ci));
    OK(em_node_set_int(g, ci, "axis", -3));
    const int64_t wd2[4] = {16, 32, 3, 3};
    int c4 = conv(g, g->nodes[ci].out[0], tp_init_f32(g, "w4", 4, wd2, 10, -0.2f, 0.2f), -1, "c4");
    const int clip_in[3] = {c4, tp_init_f32(g, "lo", 0, sd, 11, -0.6f, -0.5f),
                            tp_init_f32(g, "hi", 0, sd, 12, 0.5f, 0.6f)};
    int y1 = op(g, EM_OP_CLIP, clip_in, 3, "y1");
    int c5 = conv(g, silu, tp_init_f32(g, "w5", 4, wd, 13, -0.3f, 0.3f), -1, "y2");
    int y3 = op(g, EM_OP_RELU, &c5, 1, "y3");
    op(g, EM_OP_NEG, &x, 1, "dead");
    int kc = tp_init_f32(g, "kc", 3, kd, 14, -1, 1);
    const int sq_in[2] = {kc, kc};
    int sq = op(g, EM_OP_MUL, sq_in, 2, "sq");
    const int y4_in[2] = {y1, sq};
    int y4 = op(g, EM_OP_ADD, y4_in, 2, "y4");
    OK(em_graph_mark_output(g, y1));
    OK(em_graph_mark_output(g, c5));
    OK(em_graph_mark_output(g, y3));
    OK(em_graph_mark_output(g, y4));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return m;
}

static void run(ember_model *m, const float *x, ember_tensor **outs)
{
    const int64_t xd[4] = {1, 16, 6, 5};
    tp_run(m, 4, xd, x, outs, 4);
}

static void check_case(bool layout, int block)
{
    ember_model *plain = build(), *opt = build();
    em_passes_options o = {true, true, layout, block, em_plan_eval_const};
    OK(em_passes_run(opt->g, &o));
    const em_graph *g = opt->g;
    tp_debug_print(g);
    assert_int_equal(tp_count_op(g, EM_OP_BATCHNORM), 0);
    assert_int_equal(tp_count_op(g, EM_OP_SIGMOID), 0);
    assert_int_equal(tp_count_op(g, EM_OP_SWISH), 0);
    assert_int_equal(tp_count_op(g, EM_OP_NEG), 0);
    assert_int_equal(tp_count_op(g, EM_OP_PAD), 0);
    assert_int_equal(tp_count_op(g, EM_OP_CONCAT), 1);
    if (layout) { /* the Concat joins the blocked values: nothing reorders its inputs */
        for (int ni = 0; ni < g->n_nodes; ni++) {
            if (g->nodes[ni].op == EM_OP_CONCAT) {
                assert_int_equal(g->values[g->nodes[ni].out[0]].rank, 5);
                assert_int_equal(em_node_attr_int(&g->nodes[ni], "axis", 0), 1);
            }
        }
    }
    assert_int_equal(tp_count_op(g, EM_OP_CLIP), 0);
    assert_int_equal(tp_count_op(g, EM_OP_MUL), 0); /* SiLU fused, the constant square folded */
    /* y2's conv is a graph output: no epilogue (still blocked when the layout pass runs) */
    assert_int_equal(tp_count_op(g, EM_OP_FUSEDCONV), layout ? 5 : 4);
    assert_int_equal(tp_count_op(g, EM_OP_CONV), layout ? 0 : 1);
    /* after y2, a graph output: not fused; it runs on y2's blocked twin with the layout pass */
    assert_int_equal(tp_count_op(g, EM_OP_RELU), layout ? 0 : 1);
    /* y4 adds a per-channel constant: on y1's blocked twin with the layout pass */
    assert_int_equal(tp_count_op(g, EM_OP_ADD), layout ? 0 : 1);
    assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDAFFINE), layout ? 2 : 0);
    assert_int_equal(tp_count_op(g, EM_OP_REORDERTOBLOCKED), layout ? 1 : 0);
    assert_int_equal(g->n_outputs, 4);
    const char *names[4] = {"y1", "y2", "y3", "y4"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(g->values[g->outputs[i]].name, names[i]);
        assert_int_equal(g->values[g->outputs[i]].dtype, F32);
        assert_int_equal(g->values[g->outputs[i]].rank, 4);
    }
    assert_string_equal(g->values[g->inputs[0]].name, "x");
    float x[480];
    for (int i = 0; i < 480; i++) {
        x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    }
    ember_tensor *a[4], *b[4];
    run(plain, x, a);
    run(opt, x, b);
    for (int i = 0; i < 4; i++) {
        const float *pa = ember_tensor_data(a[i]), *pb = ember_tensor_data(b[i]);
        assert_int_equal(ember_tensor_elem_count(a[i]), ember_tensor_elem_count(b[i]));
        for (int64_t k = 0; k < ember_tensor_elem_count(a[i]); k++) {
            if (fabs((double)pa[k] - (double)pb[k]) > 1e-4 + 1e-4 * fabs((double)pa[k])) {
                fail_msg("layout %d block %d: output %d [%lld]: %g vs %g", layout, block, i,
                         (long long)k, (double)pb[k], (double)pa[k]);
            }
        }
    }
    ag_free_outs(a, 4);
    ag_free_outs(b, 4);
    ember_model_destroy(plain);
    ember_model_destroy(opt);
}

static void test_passes_plain(void **state)
{
    (void)state;
    check_case(false, 0);
}

static void test_passes_blocked(void **state)
{
    (void)state;
    check_case(true, 16);
    check_case(true, 8);
}

/* A conv whose output is read twice keeps both readers; nothing is fused across it. */
static void test_shared_value_not_fused(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {1, 4, 5, 5}, wd[4] = {4, 4, 3, 3};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    int c = conv(g, x, tp_init_f32(g, "w", 4, wd, 1, -1, 1), -1, "c");
    int r = op(g, EM_OP_RELU, &c, 1, "r");
    const int in[2] = {r, c};
    int y = op(g, EM_OP_ADD, in, 2, "y");
    OK(em_graph_mark_output(g, y));
    OK(em_graph_infer_shapes(g));
    em_passes_options o = {true, true, false, 0, em_plan_eval_const};
    OK(em_passes_run(g, &o));
    assert_int_equal(tp_count_op(g, EM_OP_CONV), 1);
    assert_int_equal(tp_count_op(g, EM_OP_RELU), 1);
    assert_int_equal(tp_count_op(g, EM_OP_FUSEDCONV), 0);
    ember_model_destroy(m);
}

/* Input channels that are not whole blocks (block 16): a 3x3 conv of fewer channels than a
 * block reads X plain (oneDNN's direct blocked kernels would fall back to reference loops),
 * one of more channels stays plain, a 1x1 conv is blocked all the same; the results agree. */
static void test_partial_block_convs(void **state)
{
    (void)state;
    ember_model *m[2];
    for (int k = 0; k < 2; k++) {
        m[k] = ag_model();
        em_graph *g = m[k]->g;
        const int64_t xd[4] = {1, 8, 9, 7}, x2d[4] = {1, 24, 9, 7};
        const int64_t w1d[4] = {16, 8, 3, 3}, w2d[4] = {16, 24, 3, 3}, w3d[4] = {16, 24, 1, 1};
        const int64_t w4d[4] = {16, 16, 3, 3};
        const int64_t s2[2] = {2, 2};
        int x, x2, ni;
        OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
        OK(em_graph_add_input(g, "x2", F32, 4, x2d, NULL, &x2));
        int c1 = conv(g, x, tp_init_f32(g, "w1", 4, w1d, 1, -0.3f, 0.3f), -1, "c1");
        ni = g->values[c1].producer;
        OK(em_node_set_ints(g, ni, "strides", s2, 2));
        int y1 = op(g, EM_OP_RELU, &c1, 1, "y1");
        int c2 = conv(g, x2, tp_init_f32(g, "w2", 4, w2d, 2, -0.3f, 0.3f), -1, "c2");
        int y2 = op(g, EM_OP_RELU, &c2, 1, "y2");
        int c3i;
        const int c3in[2] = {x2, tp_init_f32(g, "w3", 4, w3d, 3, -0.3f, 0.3f)};
        const char *c3o[1] = {"c3"};
        OK(em_graph_add_node(g, EM_OP_CONV, "c3", c3in, 2, c3o, 1, &c3i));
        int c3 = g->nodes[c3i].out[0];
        int y3 = conv(g, c3, tp_init_f32(g, "w4", 4, w4d, 4, -0.3f, 0.3f), -1, "y3");
        OK(em_graph_mark_output(g, y1));
        OK(em_graph_mark_output(g, y2));
        OK(em_graph_mark_output(g, y3));
        OK(em_graph_infer_shapes(g));
    }
    em_passes_options o = {true, true, true, 16, em_plan_eval_const};
    OK(em_passes_run(m[1]->g, &o));
    const em_graph *g = m[1]->g;
    int seen = 0;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (n->op != EM_OP_FUSEDCONV && n->op != EM_OP_CONV) {
            continue;
        }
        int64_t cin = g->values[n->in[1]].dims[1].v, kh = g->values[n->in[1]].dims[2].v;
        int64_t blocked = em_node_attr_int(n, "blocked", 0);
        int64_t plain_in = em_node_attr_int(n, "plain_input", 0);
        if (cin == 8) { /* c1 */
            assert_int_equal(blocked, 16);
            assert_int_equal(plain_in, 1);
            seen |= 1;
        } else if (cin == 24 && kh == 3) { /* c2 */
            assert_int_equal(blocked, 0);
            seen |= 2;
        } else if (cin == 24) { /* c3, 1x1 */
            assert_int_equal(blocked, 16);
            assert_int_equal(plain_in, 0);
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    float x[504], x2[1512];
    for (int i = 0; i < 1512; i++) {
        x2[i] = (float)((i * 29) % 97) / 48.0f - 1.0f;
        if (i < 504) {
            x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
        }
    }
    ember_tensor *out[2][3];
    const int64_t xd[4] = {1, 8, 9, 7}, x2d[4] = {1, 24, 9, 7};
    for (int k = 0; k < 2; k++) {
        ember_session *s = NULL;
        ember_tensor *in[2] = {NULL, NULL};
        OK(ember_session_create(m[k], NULL, &s));
        OK(ember_tensor_wrap(F32, xd, 4, x, sizeof x, &in[0]));
        OK(ember_tensor_wrap(F32, x2d, 4, x2, sizeof x2, &in[1]));
        for (int i = 0; i < 3; i++) {
            out[k][i] = NULL;
        }
        OK(ember_session_run(s, in, 2, out[k], 3));
        ember_tensor_destroy(in[0]);
        ember_tensor_destroy(in[1]);
        ember_session_destroy(s);
    }
    for (int i = 0; i < 3; i++) {
        const float *pa = ember_tensor_data(out[0][i]), *pb = ember_tensor_data(out[1][i]);
        assert_int_equal(ember_tensor_elem_count(out[0][i]), ember_tensor_elem_count(out[1][i]));
        for (int64_t k = 0; k < ember_tensor_elem_count(out[0][i]); k++) {
            if (fabs((double)pa[k] - (double)pb[k]) > 1e-4 + 1e-4 * fabs((double)pa[k])) {
                fail_msg("output %d [%lld]: %g vs %g", i, (long long)k, (double)pb[k],
                         (double)pa[k]);
            }
        }
    }
    ag_free_outs(out[0], 3);
    ag_free_outs(out[1], 3);
    ember_model_destroy(m[0]);
    ember_model_destroy(m[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passes_plain),
        cmocka_unit_test(test_passes_blocked),
        cmocka_unit_test(test_shared_value_not_fused),
        cmocka_unit_test(test_partial_block_convs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
