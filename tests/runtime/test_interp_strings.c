/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors in the interpreter (interp.c, interp_seq.c, interp_str.c): a graph of
 * Gather, Concat (with a string initializer), StringConcat, Equal and Where whose outputs are
 * read after the inputs are released and the graph is destroyed (so every output must keep
 * the bytes it points into: ASan catches a dangling one); axis slices and joins of string
 * values (sequences, Scan, Loop use them); which graphs need the interpreter; clear errors for
 * an op that cannot take strings and for text that is not a number. Expected strings are
 * written out by hand.
 */
#include "core/alloc.h"
#include "ir/graph.h"
#include "exec/interp_ops.h"
#include "core/strtensor.h"

#include "common/test_alloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"

static int node1(em_graph *g, em_op op, const char *name, const int *in, int n_in,
                 const char *out)
{
    int node;
    OK(em_graph_add_node(g, op, name, in, n_in, &out, 1, &node));
    return g->nodes[node].out[0];
}

/* A string tensor value holding copies of v[0..n) as a 1-D tensor. */
static void strings_in(em_rv *rv, const char *const *v, int64_t n)
{
    memset(rv, 0, sizeof *rv);
    rv->kind = EM_RV_TENSOR;
    OK(em_str_pack(test_allocator(), v, NULL, n, &rv->s));
    em_tensor_set_shape(&rv->t, EMBER_DTYPE_STRING, &n, 1);
    rv->t.data = em_storage_data(rv->s);
}

static void expect_strings(const em_rv *v, const char *const *want, int64_t n)
{
    assert_int_equal(v->kind, EM_RV_TENSOR);
    assert_int_equal(v->t.dtype, EMBER_DTYPE_STRING);
    assert_int_equal(em_tensor_numel(&v->t), n);
    for (int64_t i = 0; i < n; i++) {
        if (strcmp(em_str_at(&v->t, i), want[i]) != 0) {
            fail_msg("element %lld is \"%s\", expected \"%s\"", (long long)i,
                     em_str_at(&v->t, i), want[i]);
        }
    }
}

static em_graph *text_graph(void)
{
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    int64_t d3[1] = {3}, d1[1] = {1}, d2[1] = {2}, idx[2] = {2, 0};
    const char *bang[1] = {"!"};
    int x, s, i;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_STRING, 1, d3, NULL, &x));
    OK(em_graph_add_initializer_copy(g, "s", EMBER_DTYPE_STRING, 1, d1, bang, &s));
    OK(em_graph_add_initializer_copy(g, "i", EMBER_DTYPE_I64, 1, d2, idx, &i));
    int gi[2] = {x, i};
    int gat = node1(g, EM_OP_GATHER, "gather", gi, 2, "g");
    int ci[2] = {gat, s}, cn;
    const char *cname = "c";
    OK(em_graph_add_node(g, EM_OP_CONCAT, "concat", ci, 2, &cname, 1, &cn));
    OK(em_node_set_int(g, cn, "axis", 0));
    int c = g->nodes[cn].out[0];
    int ti[2] = {c, s}, ei[2] = {c, x};
    int t = node1(g, EM_OP_STRINGCONCAT, "strcat", ti, 2, "t");
    int e = node1(g, EM_OP_EQUAL, "equal", ei, 2, "e");
    int wi[3] = {e, c, t};
    int w = node1(g, EM_OP_WHERE, "where", wi, 3, "w");
    OK(em_graph_mark_output(g, c));
    OK(em_graph_mark_output(g, t));
    OK(em_graph_mark_output(g, e));
    OK(em_graph_mark_output(g, w));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return g;
}

static void test_graph_lifetimes(void **state)
{
    (void)state;
    em_graph *g = text_graph();
    assert_true(em_graph_needs_interp(g));
    em_rv in[1], out[4] = {{0}};
    strings_in(&in[0], (const char *const[]){"ccc", "bb", "!"}, 3);
    em_interp it = {test_allocator(), 0, NULL};
    OK(em_interp_run(&it, g, in, out));
    em_rv_clear(test_allocator(), &in[0]);
    em_graph_destroy(g); /* the initializer "!" goes too: the outputs keep its bytes */
    expect_strings(&out[0], (const char *const[]){"!", "ccc", "!"}, 3);
    expect_strings(&out[1], (const char *const[]){"!!", "ccc!", "!!"}, 3);
    const uint8_t *e = out[2].t.data;
    assert_int_equal(e[0], 0);
    assert_int_equal(e[1], 0);
    assert_int_equal(e[2], 1);
    expect_strings(&out[3], (const char *const[]){"!!", "ccc!", "!"}, 3);
    for (int k = 0; k < 4; k++) {
        em_rv_clear(test_allocator(), &out[k]);
    }
}

static void test_slice_and_concat(void **state)
{
    (void)state;
    const ember_allocator *al = test_allocator();
    em_rv a, b, part, items[2], joined;
    strings_in(&a, (const char *const[]){"x0", "x1", "x2"}, 3);
    strings_in(&b, (const char *const[]){"y0", "y1", "y2"}, 3);
    OK(em_rv_slice_axis(al, &a, 0, 1, 2, true, &part));
    items[0] = a;
    items[1] = b;
    OK(em_rv_concat(al, items, 2, 0, true, "stack", &joined));
    em_rv_clear(al, &a);
    em_rv_clear(al, &b);
    expect_strings(&part, (const char *const[]){"x1", "x2"}, 2);
    assert_int_equal(joined.t.rank, 2);
    expect_strings(&joined, (const char *const[]){"x0", "x1", "x2", "y0", "y1", "y2"}, 6);
    em_rv_clear(al, &part);
    em_rv_clear(al, &joined);
}

static void expect_run_error(em_graph *g, em_rv *in, ember_code code, const char *what)
{
    em_rv out[1] = {{0}};
    em_interp it = {test_allocator(), 0, NULL};
    ember_status *st = em_interp_run(&it, g, in, out);
    assert_non_null(st);
    if (ember_status_code(st) != code || strstr(ember_status_message(st), what) == NULL) {
        fail_msg("got %s: %s", ember_code_name(ember_status_code(st)), ember_status_message(st));
    }
    ember_status_destroy(st);
}

static void test_errors(void **state)
{
    (void)state;
    int64_t d2[1] = {2};
    em_rv in[1];
    strings_in(&in[0], (const char *const[]){"1.5", "abc"}, 2);
    em_graph *g = NULL;
    int x;
    OK(em_graph_new(test_allocator(), &g));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_STRING, 1, d2, NULL, &x));
    OK(em_graph_mark_output(g, node1(g, EM_OP_RELU, "relu_on_text", &x, 1, "y")));
    expect_run_error(g, in, EMBER_ERR_UNSUPPORTED, "relu_on_text");
    em_graph_destroy(g);

    OK(em_graph_new(test_allocator(), &g));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_STRING, 1, d2, NULL, &x));
    int y = node1(g, EM_OP_CAST, "parse", &x, 1, "y");
    OK(em_node_set_int(g, g->n_nodes - 1, "to", EMBER_DTYPE_F32));
    OK(em_graph_mark_output(g, y));
    expect_run_error(g, in, EMBER_ERR_INVALID_ARG, "element 1 (\"abc\")");
    em_graph_destroy(g);
    em_rv_clear(test_allocator(), &in[0]);

    /* A float graph casting to strings needs the interpreter; a float-only one does not. */
    OK(em_graph_new(test_allocator(), &g));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 1, d2, NULL, &x));
    int r = node1(g, EM_OP_RELU, "relu", &x, 1, "r");
    OK(em_graph_mark_output(g, r));
    assert_false(em_graph_needs_interp(g));
    y = node1(g, EM_OP_CAST, "fmt", &r, 1, "s");
    OK(em_node_set_int(g, g->n_nodes - 1, "to", EMBER_DTYPE_STRING));
    OK(em_graph_mark_output(g, y));
    assert_true(em_graph_needs_interp(g));
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_lifetimes),
        cmocka_unit_test(test_slice_and_concat),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
