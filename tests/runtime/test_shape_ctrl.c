/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape inference over graphs with subgraphs (runtime/shape/shape.c, shape_ctrl.c): subgraph inputs
 * that arrive without a dtype (an outer value captured by name, which the loader adds before
 * the outer graph is inferred; a Loop's loop-carried value with no declared type) take the
 * dtype of what is bound to them, so the body's nodes and the node's outputs are typed at load
 * time. Graphs are built here with the IR builders; allocations are leak-checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "ir/graph.h"

static int value(const em_graph *g, const char *name)
{
    int v = em_graph_find_value(g, name);
    assert_true(v >= 0);
    return v;
}

static int node(em_graph *g, const char *op, const char *name, const int *in, int n_in,
                const char *const *outs, int n_out)
{
    em_op id;
    int nd;
    assert_true(em_op_from_name(op, &id));
    OK(em_graph_add_node(g, id, name, in, n_in, outs, n_out, &nd));
    return nd;
}

static void attach(em_graph *g, int nd, const char *name, em_graph *sub)
{
    em_attr *a = NULL;
    OK(em_node_add_attr(g, nd, name, EM_ATTR_GRAPH, &a));
    a->g = sub;
}

/* Loop(n, cond, x) whose body has an untyped carried input `prev` and captures the outer `nx`
 * (untyped when the body was built): prev + nx -> carried out, prev -> scan output. */
static void test_loop_body_inputs(void **state)
{
    (void)state;
    em_graph *g = NULL, *body = NULL;
    const int64_t two = 2;
    OK(em_graph_new(test_allocator(), &g));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 1, &two, NULL, NULL));
    OK(em_graph_add_input(g, "n", EMBER_DTYPE_I64, 0, NULL, NULL, NULL));
    OK(em_graph_add_input(g, "c", EMBER_DTYPE_BOOL, 0, NULL, NULL, NULL));
    int x = value(g, "x");
    const char *nx_name[1] = {"nx"};
    node(g, "Neg", "neg", &x, 1, nx_name, 1);

    OK(em_graph_new(test_allocator(), &body));
    OK(em_graph_add_input(body, "i", EMBER_DTYPE_I64, 0, NULL, NULL, NULL));
    OK(em_graph_add_input(body, "cond", EMBER_DTYPE_BOOL, 0, NULL, NULL, NULL));
    OK(em_graph_add_input(body, "prev", EMBER_DTYPE_UNDEFINED, -1, NULL, NULL, NULL));
    OK(em_graph_add_input(body, "nx", EMBER_DTYPE_UNDEFINED, -1, NULL, NULL, NULL)); /* captured */
    int cond = value(body, "cond"), add_in[2] = {value(body, "prev"), value(body, "nx")};
    const char *o1[1] = {"cond_out"}, *o2[1] = {"cur"}, *o3[1] = {"scan_out"};
    node(body, "Identity", "keep", &cond, 1, o1, 1);
    node(body, "Add", "add", add_in, 2, o2, 1);
    node(body, "Identity", "scan", &add_in[0], 1, o3, 1);
    OK(em_graph_mark_output(body, value(body, "cond_out")));
    OK(em_graph_mark_output(body, value(body, "cur")));
    OK(em_graph_mark_output(body, value(body, "scan_out")));

    int loop_in[3] = {value(g, "n"), value(g, "c"), x};
    const char *louts[2] = {"final", "stacked"};
    int loop = node(g, "Loop", "loop", loop_in, 3, louts, 2);
    attach(g, loop, "body", body);
    OK(em_graph_mark_output(g, value(g, "final")));
    OK(em_graph_mark_output(g, value(g, "stacked")));

    OK(em_graph_infer_shapes(g));
    const em_value *nx = &body->values[value(body, "nx")];
    assert_int_equal(nx->dtype, EMBER_DTYPE_F32); /* captured: dtype and shape */
    assert_int_equal(nx->rank, 1);
    assert_int_equal(nx->dims[0].v, 2);
    const em_value *prev = &body->values[value(body, "prev")];
    assert_int_equal(prev->dtype, EMBER_DTYPE_F32); /* carried: dtype only */
    assert_int_equal(prev->rank, -1);
    assert_int_equal(body->values[value(body, "cur")].dtype, EMBER_DTYPE_F32);
    assert_int_equal(g->values[value(g, "final")].dtype, EMBER_DTYPE_F32);
    assert_int_equal(g->values[value(g, "stacked")].dtype, EMBER_DTYPE_F32);
    em_graph_destroy(g);
}

/* If whose branches read an outer intermediate: the If's output gets its dtype and shape. */
static void test_if_captures(void **state)
{
    (void)state;
    em_graph *g = NULL, *br[2] = {NULL, NULL};
    const int64_t three = 3;
    OK(em_graph_new(test_allocator(), &g));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F16, 1, &three, NULL, NULL));
    OK(em_graph_add_input(g, "c", EMBER_DTYPE_BOOL, 0, NULL, NULL, NULL));
    int x = value(g, "x");
    const char *ax_name[1] = {"ax"};
    node(g, "Abs", "abs", &x, 1, ax_name, 1);
    for (int b = 0; b < 2; b++) {
        OK(em_graph_new(test_allocator(), &br[b]));
        OK(em_graph_add_input(br[b], "ax", EMBER_DTYPE_UNDEFINED, -1, NULL, NULL, NULL));
        int ax = value(br[b], "ax");
        const char *o[1] = {b == 0 ? "t" : "e"};
        node(br[b], b == 0 ? "Identity" : "Neg", "op", &ax, 1, o, 1);
        OK(em_graph_mark_output(br[b], value(br[b], o[0])));
    }
    int c = value(g, "c");
    const char *y_name[1] = {"y"};
    int nd = node(g, "If", "if", &c, 1, y_name, 1);
    attach(g, nd, "then_branch", br[0]);
    attach(g, nd, "else_branch", br[1]);
    OK(em_graph_mark_output(g, value(g, "y")));
    OK(em_graph_infer_shapes(g));
    const em_value *y = &g->values[value(g, "y")];
    assert_int_equal(y->dtype, EMBER_DTYPE_F16);
    assert_int_equal(y->rank, 1);
    assert_int_equal(y->dims[0].v, 3);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_body_inputs),
        cmocka_unit_test(test_if_captures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
