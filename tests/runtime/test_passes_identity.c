/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Identity in the graph passes (runtime/passes/passes.c): an Identity of an initializer (what
 * torch.onnx.export writes for shared weights) becomes an initializer sharing the bytes (no
 * copy at load, none per run); a graph output that Identity copies from a value only it reads
 * (TorchScript's return) is written by the producer itself; a Dropout in inference form reads as
 * its input at every level but NONE. The results are checked by a
 * session against values computed here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"

#include "passes/passes.h"
#include "plan/fold.h"

#define F32 EMBER_DTYPE_F32

static int node(em_graph *g, em_op o, const int *in, int n, const char *name)
{
    int ni;
    const char *outs[1] = {name};
    OK(em_graph_add_node(g, o, name, in, n, outs, 1, &ni));
    return g->nodes[ni].out[0];
}

static void test_identity_alias_and_forward(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t d[2] = {2, 3};
    const float w[6] = {1, -2, 3, -4, 5, -6};
    int x, wi;
    OK(em_graph_add_input(g, "x", F32, 2, d, NULL, &x));
    OK(em_graph_add_initializer_copy(g, "w", F32, 2, d, w, &wi));
    int w2 = node(g, EM_OP_IDENTITY, &wi, 1, "w2"); /* shared weight */
    const int add_in[2] = {x, w2};
    int a = node(g, EM_OP_ADD, add_in, 2, "a");
    int r = node(g, EM_OP_RELU, &a, 1, "r");
    int y = node(g, EM_OP_IDENTITY, &r, 1, "y"); /* the return copy */
    OK(em_graph_mark_output(g, y));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    const void *wdata = g->values[wi].init.data;
    em_passes_options o = em_passes_level(EMBER_GRAPH_OPT_BASIC);
    o.eval = em_plan_eval_const;
    OK(em_passes_run(g, &o));
    assert_int_equal(g->n_nodes, 2);
    assert_int_equal(g->nodes[0].op, EM_OP_ADD);
    assert_int_equal(g->nodes[1].op, EM_OP_RELU);
    const em_value *wv = &g->values[g->nodes[0].in[1]];
    assert_int_equal(wv->kind, EM_VAL_INITIALIZER);
    assert_ptr_equal(wv->init.data, wdata); /* the same bytes, not a copy */
    assert_string_equal(g->values[g->nodes[1].out[0]].name, "y");
    assert_true(g->values[g->nodes[1].out[0]].is_output);

    const float xv[6] = {0.5f, 1, -3.5f, 2, -4, 7};
    ember_session *s = NULL;
    ember_tensor *in = NULL, *out = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_tensor_wrap(F32, d, 2, (void *)xv, sizeof xv, &in));
    OK(ember_session_run(s, &in, 1, &out, 1));
    const float *yv = ember_tensor_data(out);
    for (int i = 0; i < 6; i++) {
        float want = xv[i] + w[i] > 0 ? xv[i] + w[i] : 0;
        assert_float_equal(yv[i], want, 0);
    }
    ember_tensor_destroy(out);
    ember_tensor_destroy(in);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

/* An Identity whose input is also read elsewhere or is a graph input stays. */
static void test_identity_kept(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t d[1] = {4};
    int x;
    OK(em_graph_add_input(g, "x", F32, 1, d, NULL, &x));
    int y0 = node(g, EM_OP_IDENTITY, &x, 1, "y0");
    int r = node(g, EM_OP_RELU, &x, 1, "r");
    int y1 = node(g, EM_OP_IDENTITY, &r, 1, "y1");
    const int in2[2] = {r, r};
    int y2 = node(g, EM_OP_ADD, in2, 2, "y2");
    OK(em_graph_mark_output(g, y0));
    OK(em_graph_mark_output(g, y1));
    OK(em_graph_mark_output(g, y2));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    em_passes_options o = em_passes_level(EMBER_GRAPH_OPT_ALL);
    o.eval = em_plan_eval_const;
    OK(em_passes_run(g, &o));
    assert_int_equal(g->n_nodes, 4);
    ember_model_destroy(m);
}

/* Dropout in inference form (no training_mode, or a false one; mask unread) reads as its input
 * at FOLD, BASIC and ALL; it stays at NONE (for a trainer), with training_mode true or an input
 * one, and when its mask is read. */
static int dropout_graph(ember_model *m, int mode, bool mask_out)
{
    em_graph *g = m->g;
    const int64_t d[1] = {4};
    const float ratio = 0.25f;
    const unsigned char no = 0, yes = 1;
    int x, r, t = -1;
    OK(em_graph_add_input(g, "x", F32, 1, d, NULL, &x));
    OK(em_graph_add_initializer_copy(g, "ratio", F32, 0, NULL, &ratio, &r));
    if (mode == 1 || mode == 2) {
        OK(em_graph_add_initializer_copy(g, "t", EMBER_DTYPE_BOOL, 0, NULL, mode == 1 ? &no : &yes,
                                         &t));
    } else if (mode == 3) {
        OK(em_graph_add_input(g, "t", EMBER_DTYPE_BOOL, 0, NULL, NULL, &t));
    }
    const int in[3] = {x, r, t};
    const char *outs[2] = {"d", "mask"};
    int ni;
    OK(em_graph_add_node(g, EM_OP_DROPOUT, "drop", in, t >= 0 ? 3 : 2, outs, mask_out ? 2 : 1,
                         &ni));
    int dv = g->nodes[ni].out[0];
    int y = node(g, EM_OP_RELU, &dv, 1, "y");
    OK(em_graph_mark_output(g, y));
    if (mask_out) {
        OK(em_graph_mark_output(g, g->nodes[ni].out[1]));
    }
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return y;
}

static int count_op(const em_graph *g, em_op op)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        n += g->nodes[i].op == op;
    }
    return n;
}

static void test_dropout_inference_form(void **state)
{
    (void)state;
    static const ember_graph_opt levels[] = {EMBER_GRAPH_OPT_NONE, EMBER_GRAPH_OPT_FOLD,
                                             EMBER_GRAPH_OPT_BASIC, EMBER_GRAPH_OPT_ALL};
    /* mode 0: no training_mode; 1: false; 2: true; 3: a graph input */
    for (int mode = 0; mode < 4; mode++) {
        for (int mask = 0; mask < 2; mask++) {
            for (int l = 0; l < 4; l++) {
                ember_model *m = ag_model();
                dropout_graph(m, mode, mask != 0);
                em_passes_options o = em_passes_level(levels[l]);
                o.eval = em_plan_eval_const;
                OK(em_passes_run(m->g, &o));
                bool gone = levels[l] != EMBER_GRAPH_OPT_NONE && mode < 2 && !mask;
                if (count_op(m->g, EM_OP_DROPOUT) != (gone ? 0 : 1)) {
                    fail_msg("training_mode %d, mask %s, level %d: Dropout %s", mode,
                             mask ? "read" : "unread", (int)levels[l], gone ? "kept" : "dropped");
                }
                if (mode < 2) { /* the identity either way: a session gives relu(x) */
                    const int64_t d[1] = {4};
                    const float xv[4] = {-1, 2, -3, 4};
                    ember_session *s = NULL;
                    ember_tensor *in = NULL, *out[2] = {NULL, NULL};
                    OK(ember_session_create(m, NULL, &s));
                    OK(ember_tensor_wrap(F32, d, 1, (void *)xv, sizeof xv, &in));
                    OK(ember_session_run(s, &in, 1, out, mask ? 2 : 1));
                    const float *yv = ember_tensor_data(out[0]);
                    for (int i = 0; i < 4; i++) {
                        assert_float_equal(yv[i], xv[i] > 0 ? xv[i] : 0, 0);
                    }
                    ember_tensor_destroy(out[0]);
                    ember_tensor_destroy(out[1]);
                    ember_tensor_destroy(in);
                    ember_session_destroy(s);
                }
                ember_model_destroy(m);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_alias_and_forward),
        cmocka_unit_test(test_identity_kept),
        cmocka_unit_test(test_dropout_inference_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
