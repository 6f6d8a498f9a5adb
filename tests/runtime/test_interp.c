/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interpreter (interp.h) on hand-built graphs: Loop (trip count, condition, loop-carried
 * values, scan outputs, values captured from the enclosing graph), If, Scan (axes and
 * directions), the sequence ops, and its errors. Expected values are computed here in plain C.
 * Every allocation goes through the test allocator, so a leak fails the test.
 */
#include "core/alloc.h"
#include "ir/graph.h"
#include "exec/interp.h"

#include "common/test_alloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"


static em_graph *new_graph(void)
{
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    return g;
}

static int node1(em_graph *g, em_op op, const char *name, const int *in, int n_in,
                 const char *out)
{
    int node;
    OK(em_graph_add_node(g, op, name, in, n_in, &out, 1, &node));
    return g->nodes[node].out[0];
}

static void attach(em_graph *g, int node, const char *name, em_graph *sub)
{
    em_attr *a = NULL;
    OK(em_node_add_attr(g, node, name, EM_ATTR_GRAPH, &a));
    a->g = sub;
}

static em_interp interp(void) { return (em_interp){test_allocator(), 0, NULL}; }

static void tensor_in(em_rv *v, ember_dtype dt, const int64_t *dims, int rank, const void *data)
{
    OK(em_rv_new_tensor(test_allocator(), dt, dims, rank, v));
    memcpy(v->t.data, data, em_tensor_nbytes(&v->t));
}

static void expect_f32(const em_rv *v, const int64_t *dims, int rank, const float *want)
{
    assert_int_equal(v->kind, EM_RV_TENSOR);
    assert_int_equal(v->t.dtype, EMBER_DTYPE_F32);
    assert_int_equal(v->t.rank, rank);
    for (int d = 0; d < rank; d++) {
        assert_int_equal(v->t.dims[d], dims[d]);
    }
    const float *got = v->t.data;
    for (int64_t i = 0; i < em_tensor_numel(&v->t); i++) {
        if (got[i] != want[i]) {
            fail_msg("element %lld is %g, expected %g", (long long)i, got[i], want[i]);
        }
    }
}

/* Loop(M, cond, acc) with body: acc' = acc + x (x read from the outer graph), cond' = i < stop,
 * scan output acc'. */
static em_graph *loop_model(bool with_cond, int *loop_node)
{
    em_graph *g = new_graph(), *b = new_graph();
    int64_t d3[1] = {3};
    int m, c, acc0, x, node;
    OK(em_graph_add_input(g, "M", EMBER_DTYPE_I64, 0, NULL, NULL, &m));
    OK(em_graph_add_input(g, "cond", EMBER_DTYPE_BOOL, 0, NULL, NULL, &c));
    OK(em_graph_add_input(g, "acc0", EMBER_DTYPE_F32, 1, d3, NULL, &acc0));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 1, d3, NULL, &x));
    int bi, bc, bacc, bx, stop;
    int64_t two = 2;
    OK(em_graph_add_input(b, "i", EMBER_DTYPE_I64, 0, NULL, NULL, &bi));
    OK(em_graph_add_input(b, "c_in", EMBER_DTYPE_BOOL, 0, NULL, NULL, &bc));
    OK(em_graph_add_input(b, "acc", EMBER_DTYPE_F32, 1, d3, NULL, &bacc));
    OK(em_graph_add_input(b, "x", EMBER_DTYPE_F32, 1, d3, NULL, &bx)); /* captured */
    OK(em_graph_add_initializer_copy(b, "stop", EMBER_DTYPE_I64, 0, NULL, &two, &stop));
    int lin[2] = {bi, stop}, ain[2] = {bacc, bx};
    int c_out = node1(b, EM_OP_LESS, "less", lin, 2, "c_out");
    int acc_out = node1(b, EM_OP_ADD, "add", ain, 2, "acc_out");
    int scan_out = node1(b, EM_OP_IDENTITY, "copy", &acc_out, 1, "scan_out");
    OK(em_graph_mark_output(b, c_out));
    OK(em_graph_mark_output(b, acc_out));
    OK(em_graph_mark_output(b, scan_out));
    int in[3] = {m, with_cond ? c : -1, acc0};
    const char *outs[2] = {"acc_final", "accs"};
    OK(em_graph_add_node(g, EM_OP_LOOP, "loop", in, 3, outs, 2, &node));
    attach(g, node, "body", b);
    OK(em_graph_mark_output(g, g->nodes[node].out[0]));
    OK(em_graph_mark_output(g, g->nodes[node].out[1]));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    *loop_node = node;
    return g;
}

static void run_loop(bool with_cond, int64_t trip, int iterations)
{
    int node;
    em_graph *g = loop_model(with_cond, &node);
    em_rv in[4] = {{0}}, out[2] = {{0}};
    int64_t d3[1] = {3};
    float acc0[3] = {1, 2, 3}, x[3] = {10, 20, 30};
    uint8_t yes = 1;
    tensor_in(&in[0], EMBER_DTYPE_I64, NULL, 0, &trip);
    tensor_in(&in[1], EMBER_DTYPE_BOOL, NULL, 0, &yes);
    tensor_in(&in[2], EMBER_DTYPE_F32, d3, 1, acc0);
    tensor_in(&in[3], EMBER_DTYPE_F32, d3, 1, x);
    em_interp it = interp();
    OK(em_interp_run(&it, g, in, out));
    float want_final[3], want_scan[3 * 8] = {0};
    for (int k = 0; k < 3; k++) {
        want_final[k] = acc0[k] + (float)iterations * x[k];
        for (int t = 0; t < iterations; t++) {
            want_scan[t * 3 + k] = acc0[k] + (float)(t + 1) * x[k];
        }
    }
    int64_t sd[2] = {iterations, 3};
    expect_f32(&out[0], d3, 1, want_final);
    expect_f32(&out[1], sd, 2, want_scan);
    for (int i = 0; i < 4; i++) {
        em_rv_clear(test_allocator(), &in[i]);
    }
    em_rv_clear(test_allocator(), &out[0]);
    em_rv_clear(test_allocator(), &out[1]);
    em_graph_destroy(g);
}

static void test_loop_trip_count(void **state)
{
    (void)state;
    run_loop(false, 5, 5); /* without a condition input the body's condition is ignored */
    run_loop(false, 0, 0); /* no iteration: the scan output is empty, [0, 3] */
}

static void test_loop_condition(void **state)
{
    (void)state;
    run_loop(true, 100, 3); /* i < 2 holds for i = 0, 1: the loop ends after i = 2 */
    run_loop(true, 1, 1);
}

static void test_loop_without_bound_is_refused(void **state)
{
    (void)state;
    int node;
    em_graph *g = loop_model(false, &node);
    g->nodes[node].in[0] = -1; /* neither M nor cond */
    em_rv in[4] = {{0}}, out[2] = {{0}};
    int64_t d3[1] = {3}, trip = 1;
    float v[3] = {0};
    uint8_t yes = 1;
    tensor_in(&in[0], EMBER_DTYPE_I64, NULL, 0, &trip);
    tensor_in(&in[1], EMBER_DTYPE_BOOL, NULL, 0, &yes);
    tensor_in(&in[2], EMBER_DTYPE_F32, d3, 1, v);
    tensor_in(&in[3], EMBER_DTYPE_F32, d3, 1, v);
    em_interp it = interp();
    ember_status *st = em_interp_run(&it, g, in, out);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(st), "'loop'"));
    assert_non_null(strstr(ember_status_message(st), "never end"));
    ember_status_destroy(st);
    assert_int_equal(out[0].kind, EM_RV_ABSENT);
    for (int i = 0; i < 4; i++) {
        em_rv_clear(test_allocator(), &in[i]);
    }
    em_graph_destroy(g);
}

/* If(c): then x + x, else x - y; both branches read x (and y) from the outer graph. */
static void test_if_branches(void **state)
{
    (void)state;
    em_graph *g = new_graph(), *t = new_graph(), *e = new_graph();
    int64_t d2[1] = {2};
    int c, x, y, tx, ex, ey, node;
    OK(em_graph_add_input(g, "c", EMBER_DTYPE_BOOL, 0, NULL, NULL, &c));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 1, d2, NULL, &x));
    OK(em_graph_add_input(g, "y", EMBER_DTYPE_F32, 1, d2, NULL, &y));
    OK(em_graph_add_input(t, "x", EMBER_DTYPE_F32, 1, d2, NULL, &tx));
    OK(em_graph_add_input(e, "x", EMBER_DTYPE_F32, 1, d2, NULL, &ex));
    OK(em_graph_add_input(e, "y", EMBER_DTYPE_F32, 1, d2, NULL, &ey));
    int tin[2] = {tx, tx}, ein[2] = {ex, ey};
    OK(em_graph_mark_output(t, node1(t, EM_OP_ADD, "twice", tin, 2, "r")));
    OK(em_graph_mark_output(e, node1(e, EM_OP_SUB, "diff", ein, 2, "r")));
    const char *out_name = "r";
    OK(em_graph_add_node(g, EM_OP_IF, "if", &c, 1, &out_name, 1, &node));
    attach(g, node, "then_branch", t);
    attach(g, node, "else_branch", e);
    OK(em_graph_mark_output(g, g->nodes[node].out[0]));
    OK(em_graph_infer_shapes(g));
    assert_int_equal(g->values[g->nodes[node].out[0]].dtype, EMBER_DTYPE_F32);
    float xv[2] = {1.5f, -2}, yv[2] = {0.25f, 4};
    for (uint8_t cv = 0; cv < 2; cv++) {
        em_rv in[3] = {{0}}, out[1] = {{0}};
        tensor_in(&in[0], EMBER_DTYPE_BOOL, NULL, 0, &cv);
        tensor_in(&in[1], EMBER_DTYPE_F32, d2, 1, xv);
        tensor_in(&in[2], EMBER_DTYPE_F32, d2, 1, yv);
        em_interp it = interp();
        OK(em_interp_run(&it, g, in, out));
        float want[2];
        for (int k = 0; k < 2; k++) {
            want[k] = cv ? xv[k] + xv[k] : xv[k] - yv[k];
        }
        expect_f32(&out[0], d2, 1, want);
        for (int i = 0; i < 3; i++) {
            em_rv_clear(test_allocator(), &in[i]);
        }
        em_rv_clear(test_allocator(), &out[0]);
    }
    em_graph_destroy(g);
}

/* Scan: running sum over axis 1 of x [2, 4], backwards; states [2]; scan output on axis 1. */
static void test_scan_axes_and_directions(void **state)
{
    (void)state;
    em_graph *g = new_graph(), *b = new_graph();
    int64_t d2[1] = {2}, dx[2] = {2, 4};
    int s0, x, bs, bx, node;
    OK(em_graph_add_input(g, "s0", EMBER_DTYPE_F32, 1, d2, NULL, &s0));
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, dx, NULL, &x));
    OK(em_graph_add_input(b, "s", EMBER_DTYPE_F32, 1, d2, NULL, &bs));
    OK(em_graph_add_input(b, "xt", EMBER_DTYPE_F32, 1, d2, NULL, &bx));
    int ain[2] = {bs, bx};
    int s_out = node1(b, EM_OP_ADD, "add", ain, 2, "s_out");
    OK(em_graph_mark_output(b, s_out));
    OK(em_graph_mark_output(b, node1(b, EM_OP_IDENTITY, "copy", &s_out, 1, "y")));
    int in[2] = {s0, x};
    const char *outs[2] = {"s_final", "ys"};
    OK(em_graph_add_node(g, EM_OP_SCAN, "scan", in, 2, outs, 2, &node));
    attach(g, node, "body", b);
    int64_t one = 1;
    OK(em_node_set_int(g, node, "num_scan_inputs", 1));
    OK(em_node_set_ints(g, node, "scan_input_axes", &one, 1));
    OK(em_node_set_ints(g, node, "scan_input_directions", &one, 1));
    OK(em_node_set_ints(g, node, "scan_output_axes", &one, 1));
    OK(em_graph_mark_output(g, g->nodes[node].out[0]));
    OK(em_graph_mark_output(g, g->nodes[node].out[1]));
    OK(em_graph_infer_shapes(g));
    float sv[2] = {100, 200}, xv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    em_rv rin[2] = {{0}}, out[2] = {{0}};
    tensor_in(&rin[0], EMBER_DTYPE_F32, d2, 1, sv);
    tensor_in(&rin[1], EMBER_DTYPE_F32, dx, 2, xv);
    em_interp it = interp();
    OK(em_interp_run(&it, g, rin, out));
    float want_s[2], want_y[8];
    for (int r = 0; r < 2; r++) {
        float acc = sv[r];
        for (int t = 0; t < 4; t++) { /* step t reads column 3 - t, writes column t */
            acc += xv[r * 4 + 3 - t];
            want_y[r * 4 + t] = acc;
        }
        want_s[r] = acc;
    }
    expect_f32(&out[0], d2, 1, want_s);
    expect_f32(&out[1], dx, 2, want_y);
    for (int i = 0; i < 2; i++) {
        em_rv_clear(test_allocator(), &rin[i]);
        em_rv_clear(test_allocator(), &out[i]);
    }
    em_graph_destroy(g);
}

/* SplitToSequence(x, [1, 2]) -> insert x[0:1]*... -> erase, at, length, concat. */
static void test_sequence_ops(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int64_t dx[2] = {3, 2}, d1[1] = {2}, neg1 = -1, zero = 0;
    int64_t split[2] = {1, 2};
    int x, sp, pos_last, pos0;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, dx, NULL, &x));
    OK(em_graph_add_initializer_copy(g, "split", EMBER_DTYPE_I64, 1, d1, split, &sp));
    OK(em_graph_add_initializer_copy(g, "neg1", EMBER_DTYPE_I64, 0, NULL, &neg1, &pos_last));
    OK(em_graph_add_initializer_copy(g, "zero", EMBER_DTYPE_I64, 0, NULL, &zero, &pos0));
    int sin[2] = {x, sp};
    int seq = node1(g, EM_OP_SPLITTOSEQUENCE, "split", sin, 2, "parts");  /* [x0], [x1, x2] */
    int iin[3] = {seq, x, pos0};
    int seq2 = node1(g, EM_OP_SEQUENCEINSERT, "insert", iin, 3, "parts2"); /* x, [x0], [x1,x2] */
    int ein[2] = {seq2, pos_last};
    int seq3 = node1(g, EM_OP_SEQUENCEERASE, "erase", ein, 2, "parts3"); /* x, [x0] */
    int len = node1(g, EM_OP_SEQUENCELENGTH, "len", &seq3, 1, "n");
    int ain[2] = {seq2, pos_last};
    int last = node1(g, EM_OP_SEQUENCEAT, "at", ain, 2, "last");
    int cat = node1(g, EM_OP_CONCATFROMSEQUENCE, "concat", &seq3, 1, "cat"); /* axis 0 */
    OK(em_graph_mark_output(g, len));
    OK(em_graph_mark_output(g, last));
    OK(em_graph_mark_output(g, cat));
    OK(em_graph_mark_output(g, seq3));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    assert_int_equal(g->values[seq3].vt, EM_VT_SEQUENCE);
    assert_int_equal(g->values[len].vt, EM_VT_TENSOR);
    float xv[6] = {1, 2, 3, 4, 5, 6};
    em_rv in = {0}, out[4] = {{0}};
    tensor_in(&in, EMBER_DTYPE_F32, dx, 2, xv);
    em_interp it = interp();
    OK(em_interp_run(&it, g, &in, out));
    assert_int_equal(out[0].t.dtype, EMBER_DTYPE_I64);
    assert_int_equal(*(int64_t *)out[0].t.data, 2);
    int64_t dlast[2] = {2, 2}, dcat[2] = {4, 2};
    expect_f32(&out[1], dlast, 2, xv + 2);
    float want_cat[8] = {1, 2, 3, 4, 5, 6, 1, 2};
    expect_f32(&out[2], dcat, 2, want_cat);
    assert_int_equal(out[3].kind, EM_RV_SEQUENCE);
    assert_int_equal(out[3].n, 2);
    em_rv_clear(test_allocator(), &in);
    for (int i = 0; i < 4; i++) {
        em_rv_clear(test_allocator(), &out[i]);
    }
    em_graph_destroy(g);
}

static void test_sequence_position_out_of_range(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int64_t dx[1] = {2}, five = 5;
    int x, pos;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 1, dx, NULL, &x));
    OK(em_graph_add_initializer_copy(g, "five", EMBER_DTYPE_I64, 0, NULL, &five, &pos));
    int seq = node1(g, EM_OP_SEQUENCECONSTRUCT, "make", &x, 1, "s");
    int ain[2] = {seq, pos};
    OK(em_graph_mark_output(g, node1(g, EM_OP_SEQUENCEAT, "pick", ain, 2, "y")));
    OK(em_graph_infer_shapes(g));
    float xv[2] = {1, 2};
    em_rv in = {0}, out = {0};
    tensor_in(&in, EMBER_DTYPE_F32, dx, 1, xv);
    em_interp it = interp();
    ember_status *st = em_interp_run(&it, g, &in, &out);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "'pick' (SequenceAt)"));
    assert_non_null(strstr(ember_status_message(st), "out of range"));
    ember_status_destroy(st);
    em_rv_clear(test_allocator(), &in);
    em_graph_destroy(g);
}

/* A sequence fed to a kernel op is refused by name, not misread as a tensor. */
static void test_sequence_into_kernel_is_refused(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int64_t dx[1] = {2};
    int x;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 1, dx, NULL, &x));
    int seq = node1(g, EM_OP_SEQUENCECONSTRUCT, "make", &x, 1, "s");
    OK(em_graph_mark_output(g, node1(g, EM_OP_RELU, "relu", &seq, 1, "y")));
    float xv[2] = {1, 2};
    em_rv in = {0}, out = {0};
    tensor_in(&in, EMBER_DTYPE_F32, dx, 1, xv);
    em_interp it = interp();
    ember_status *st = em_interp_run(&it, g, &in, &out);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(st), "'relu' (Relu): input 0 is a sequence"));
    ember_status_destroy(st);
    em_rv_clear(test_allocator(), &in);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_trip_count),
        cmocka_unit_test(test_loop_condition),
        cmocka_unit_test(test_loop_without_bound_is_refused),
        cmocka_unit_test(test_if_branches),
        cmocka_unit_test(test_scan_axes_and_directions),
        cmocka_unit_test(test_sequence_ops),
        cmocka_unit_test(test_sequence_position_out_of_range),
        cmocka_unit_test(test_sequence_into_kernel_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
