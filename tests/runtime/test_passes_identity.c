/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Identity in the graph passes (runtime/passes/passes.c): an Identity of an initializer (what
 * torch.onnx.export writes for shared weights) becomes an initializer sharing the bytes (no
 * copy at load, none per run); a graph output that Identity copies from a value only it reads
 * (TorchScript's return) is written by the producer itself. The results are checked by a
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_alias_and_forward),
        cmocka_unit_test(test_identity_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
