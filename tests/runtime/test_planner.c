/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/plan/planner.c on small graphs built here (the reference kernels cover every op):
 * concrete shapes; the arena INVARIANT that no two buffers whose lifetimes [first, last]
 * intersect overlap in [offset, offset + align_up(bytes + EM_TAIL_PAD, 64)), with 64-aligned
 * offsets; a data-flow check that no write lands on bytes another value still needs;
 * in-place Relu when its input dies there (and not when the input is used later); Reshape /
 * Flatten aliasing; graph outputs outside the arena; input binding errors naming the input;
 * Concats written in place by their inputs' producers (squeezenet's fire, densenet's chain)
 * and the cases that must copy; 200 random chain/diamond graphs with Concats; em_plan_matches;
 * em_plan_to_text; an OOM sweep.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/rng.h"
#include "common/test_alloc.h"
#include "plan/planner.h"
#include "core/status.h"

/* Zero weights, large enough for every Conv/Gemm built here (planning never reads them). */
static float zeros[64 * 64 * 9];

/* ---- graph building helpers ------------------------------------------------------------- */

static int add_init(em_graph *g, const char *name, int rank, const int64_t *dims)
{
    int idx;
    assert_null(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, rank, dims, zeros, &idx));
    return idx;
}

static int add_node1(em_graph *g, em_op op, const char *name, const int *in, int n_in,
                     const char *out_name)
{
    int ni;
    const char *const outs[] = {out_name};
    ember_status *st = em_graph_add_node(g, op, name, in, n_in, outs, 1, &ni);
    if (st != NULL) {
        fail_msg("add_node %s: %s", name, ember_status_message(st));
    }
    return g->nodes[ni].out[0];
}

/* Conv with a kxk kernel and `pad` on every side; returns the output value. */
static int add_conv(em_graph *g, const char *name, int x, int64_t c_in, int64_t c_out, int64_t k,
                    int64_t pad)
{
    char wname[64], oname[64];
    snprintf(wname, sizeof wname, "%s_w", name);
    snprintf(oname, sizeof oname, "%s_out", name);
    const int64_t wd[] = {c_out, c_in, k, k};
    const int in[] = {x, add_init(g, wname, 4, wd)};
    int out = add_node1(g, EM_OP_CONV, name, in, 2, oname);
    const int64_t pads[] = {pad, pad, pad, pad};
    assert_null(em_node_set_ints(g, g->values[out].producer, "pads", pads, 4));
    return out;
}

static int add_unary(em_graph *g, em_op op, const char *name, int x)
{
    char oname[64];
    snprintf(oname, sizeof oname, "%s_out", name);
    return add_node1(g, op, name, &x, 1, oname);
}

static int add_binary(em_graph *g, em_op op, const char *name, int a, int b)
{
    char oname[64];
    snprintf(oname, sizeof oname, "%s_out", name);
    const int in[] = {a, b};
    return add_node1(g, op, name, in, 2, oname);
}

static em_graph *new_graph(void)
{
    em_graph *g = NULL;
    assert_null(em_graph_new(test_allocator(), &g));
    return g;
}

/* x: f32 [N, c, h, w] with N symbolic. */
static int add_image_input(em_graph *g, const char *name, int64_t c, int64_t h, int64_t w)
{
    const int64_t d[] = {-1, c, h, w};
    const char *const names[] = {"N", NULL, NULL, NULL};
    int idx;
    assert_null(em_graph_add_input(g, name, EMBER_DTYPE_F32, 4, d, names, &idx));
    return idx;
}

static em_plan *plan_one(const em_graph *g, const int64_t *shape, int rank)
{
    const int64_t *const shapes[] = {shape};
    em_plan *p = NULL;
    ember_status *st = em_graph_verify(g);
    if (st == NULL) {
        st = em_plan_build(g, test_allocator(), 0, 1, NULL, shapes, &rank, NULL, 1, &p);
    }
    if (st != NULL) {
        char m[1024];
        snprintf(m, sizeof m, "%s", ember_status_message(st));
        ember_status_destroy(st);
        fail_msg("plan: %s", m);
    }
    return p;
}

/* ---- the checks ----------------------------------------------------------------------------- */

static size_t padded(size_t bytes)
{
    return em_align_up(bytes + EM_TAIL_PAD, EM_ALIGN);
}

static bool lives_meet(int f1, int l1, int f2, int l2)
{
    return !(l1 < f2 || l2 < f1);
}

/* The arena invariant on buffers, value-in-buffer containment, and the bounds. */
static void check_arena(const em_plan *p)
{
    size_t end_max = 0, sum_padded = 0;
    for (int i = 0; i < p->n_bufs; i++) {
        const em_plan_buf *a = &p->bufs[i];
        if (a->offset % 64 != 0) {
            fail_msg("buffer %d: offset %zu is not 64-aligned", i, a->offset);
        }
        assert_true(a->first <= a->last);
        size_t ea = a->offset + padded(a->bytes);
        end_max = ea > end_max ? ea : end_max;
        sum_padded += padded(a->bytes);
        for (int j = i + 1; j < p->n_bufs; j++) {
            const em_plan_buf *b = &p->bufs[j];
            if (!lives_meet(a->first, a->last, b->first, b->last)) {
                continue;
            }
            size_t eb = b->offset + padded(b->bytes);
            if (a->offset < eb && b->offset < ea) {
                fail_msg("buffers %d [%zu,%zu) life [%d,%d] and %d [%zu,%zu) life [%d,%d] "
                         "overlap",
                         i, a->offset, ea, a->first, a->last, j, b->offset, eb, b->first, b->last);
            }
        }
    }
    assert_true(p->arena_bytes == end_max);
    assert_true(p->arena_bytes <= sum_padded); /* first fit never does worse than stacking */
    for (int t = 0; t < p->n_nodes; t++) {
        size_t live = 0;
        for (int i = 0; i < p->n_bufs; i++) {
            if (p->bufs[i].first <= t && t <= p->bufs[i].last) {
                live += padded(p->bufs[i].bytes);
            }
        }
        assert_true(live <= p->arena_bytes);
    }
    size_t naive = 0;
    for (int v = 0; v < p->n_values; v++) {
        const em_plan_value *pv = &p->vals[v];
        if (pv->loc != EM_LOC_ARENA) {
            continue;
        }
        naive += pv->bytes;
        if (pv->buf < 0 || pv->buf >= p->n_bufs) {
            fail_msg("value '%s' has no buffer", p->g->values[v].name);
        }
        const em_plan_buf *b = &p->bufs[pv->buf];
        if (pv->sub + pv->bytes > b->bytes || pv->sub % 64 != 0 || pv->first < b->first ||
            pv->last > b->last) {
            fail_msg("value '%s' (%zu bytes, life [%d,%d]) does not fit its buffer %d (%zu "
                     "bytes, life [%d,%d])",
                     p->g->values[v].name, pv->bytes, pv->first, pv->last, pv->buf, b->bytes,
                     b->first, b->last);
        }
        size_t want;
        assert_true(em_tensor_nbytes_checked(&pv->t, &want));
        assert_true(pv->bytes == want);
    }
    assert_true(p->naive_bytes == naive);
}

/* Data flow: when node t writes value v into a buffer, every other value u already in that
 * buffer whose bytes meet v's must be dead after t; if u is read by t itself, t must be
 * elementwise (same-index in-place). Outputs of a view op that share their input's buffer and
 * of an in-place Concat write nothing. */
static void check_no_clobber(const em_plan *p)
{
    const em_graph *g = p->g;
    for (int v = 0; v < p->n_values; v++) {
        const em_plan_value *pv = &p->vals[v];
        if (pv->loc != EM_LOC_ARENA) {
            continue;
        }
        int t = pv->first;
        const em_node *n = &g->nodes[t];
        unsigned flags = em_op_info_of(n->op)->flags;
        if ((flags & EM_OPF_ALIAS) && n->in[0] >= 0 && p->vals[n->in[0]].loc == EM_LOC_ARENA &&
            p->vals[n->in[0]].buf == pv->buf) {
            continue; /* a view: no bytes written */
        }
        if (p->nodes[t].in_place) {
            continue; /* a Concat its producers wrote */
        }
        for (int u = 0; u < p->n_values; u++) {
            const em_plan_value *pu = &p->vals[u];
            if (u == v || pu->loc != EM_LOC_ARENA || pu->buf != pv->buf || pu->first >= t ||
                pu->sub >= pv->sub + pv->bytes || pv->sub >= pu->sub + pu->bytes) {
                continue;
            }
            bool read_here = false;
            for (int i = 0; i < n->n_in; i++) {
                read_here |= n->in[i] == u;
            }
            if (pu->last > t || (pu->last == t && read_here && !(flags & EM_OPF_EW))) {
                fail_msg("node %d '%s' (%s) writes '%s' over '%s' (life [%d,%d]) in buffer %d", t,
                         n->name, em_op_name(n->op), g->values[v].name, g->values[u].name,
                         pu->first, pu->last, pv->buf);
            }
        }
    }
}

static void check_locations(const em_plan *p)
{
    const em_graph *g = p->g;
    for (int v = 0; v < g->n_values; v++) {
        const em_value *gv = &g->values[v];
        const em_plan_value *pv = &p->vals[v];
        if (gv->kind == EM_VAL_INPUT) {
            assert_int_equal(pv->loc, EM_LOC_INPUT);
        } else if (gv->kind == EM_VAL_INITIALIZER) {
            assert_int_equal(pv->loc, EM_LOC_CONST);
        } else if (gv->is_output) {
            assert_int_equal(pv->loc, EM_LOC_OUTPUT);
            assert_int_equal(pv->buf, -1);
            assert_int_equal(g->outputs[pv->index], v);
        } else {
            assert_int_equal(pv->loc, EM_LOC_ARENA);
        }
    }
    for (int i = 0; i < g->n_inputs; i++) {
        assert_int_equal(p->vals[g->inputs[i]].index, i);
    }
}

/* An in-place Concat's inputs lie in its output's buffer back to back, in input order. */
static void check_concats(const em_plan *p)
{
    for (int ni = 0; ni < p->n_nodes; ni++) {
        const em_node *n = &p->g->nodes[ni];
        if (!p->nodes[ni].in_place) {
            continue;
        }
        assert_int_equal(n->op, EM_OP_CONCAT);
        const em_plan_value *y = &p->vals[n->out[0]];
        size_t at = y->sub;
        for (int i = 0; i < n->n_in; i++) {
            const em_plan_value *x = &p->vals[n->in[i]];
            if (x->buf != y->buf || x->sub != at) {
                fail_msg("Concat '%s': input %d at buffer %d + %zu, expected %d + %zu", n->name,
                         i, x->buf, x->sub, y->buf, at);
            }
            at += x->bytes;
        }
        assert_true(at == y->sub + y->bytes);
    }
}

static void check_plan(const em_plan *p)
{
    check_arena(p);
    check_no_clobber(p);
    check_locations(p);
    check_concats(p);
}

static void expect_shape(const em_plan *p, int v, int rank, const int64_t *dims)
{
    const em_tensor *t = &p->vals[v].t;
    if (t->rank != rank) {
        fail_msg("'%s': rank %d, expected %d", p->g->values[v].name, t->rank, rank);
    }
    for (int i = 0; i < rank; i++) {
        if (t->dims[i] != dims[i]) {
            fail_msg("'%s': dim %d is %lld, expected %lld", p->g->values[v].name, i,
                     (long long)t->dims[i], (long long)dims[i]);
        }
    }
    assert_int_equal(t->dtype, EMBER_DTYPE_F32);
}

#define EXPECT_SHAPE(p, v, ...)                                                                    \
    expect_shape((p), (v), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),              \
                 (int64_t[]){__VA_ARGS__})

static size_t buf_offset(const em_plan *p, int v)
{
    return p->bufs[p->vals[v].buf].offset;
}

/* ---- deterministic graphs ----------------------------------------------------------------------
 */

static void test_chain_in_place(void **state)
{
    (void)state;
    /* x[1,3,16,16] -> conv(8) -> relu -> conv(8) -> relu -> conv(8) -> relu = output */
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 3, 16, 16);
    int y1 = add_conv(g, "conv1", x, 3, 8, 3, 1);
    int r1 = add_unary(g, EM_OP_RELU, "relu1", y1);
    int y2 = add_conv(g, "conv2", r1, 8, 8, 3, 1);
    int r2 = add_unary(g, EM_OP_RELU, "relu2", y2);
    int y3 = add_conv(g, "conv3", r2, 8, 8, 3, 1);
    int out = add_unary(g, EM_OP_RELU, "relu3", y3);
    assert_null(em_graph_mark_output(g, out));
    const int64_t shape[] = {1, 3, 16, 16};
    em_plan *p = plan_one(g, shape, 4);
    check_plan(p);

    const size_t act = 1 * 8 * 16 * 16 * sizeof(float); /* 8192 */
    EXPECT_SHAPE(p, y1, 1, 8, 16, 16);
    EXPECT_SHAPE(p, r2, 1, 8, 16, 16);
    EXPECT_SHAPE(p, out, 1, 8, 16, 16);
    assert_int_equal(p->vals[y1].bytes, act);
    /* Each Relu reuses its Conv's buffer: the Conv output dies at the Relu. */
    assert_int_equal(p->vals[r1].buf, p->vals[y1].buf);
    assert_int_equal(buf_offset(p, r1), buf_offset(p, y1));
    assert_int_equal(p->vals[r2].buf, p->vals[y2].buf);
    assert_int_equal(p->vals[out].loc, EM_LOC_OUTPUT);
    assert_int_equal(p->vals[out].index, 0);
    /* Lifetimes: y1 [0,1], r1 [1,2], y2 [2,3], ... */
    assert_int_equal(p->vals[y1].first, 0);
    assert_int_equal(p->vals[y1].last, 1);
    assert_int_equal(p->vals[r1].first, 1);
    assert_int_equal(p->vals[r1].last, 2);
    /* Five intermediates of 8 KiB; at most two buffers are live at once (conv2 reads r1 and
     * writes y2), so two padded slots suffice (the reference Conv and Relu ask for no
     * scratch, which the first assertion states). */
    for (int i = 0; i < p->n_nodes; i++) {
        assert_int_equal(p->nodes[i].scratch_buf, -1);
    }
    assert_true(p->naive_bytes == 5 * act);
    assert_true(p->arena_bytes == 2 * padded(act));
    assert_true(p->arena_bytes <= p->naive_bytes);
    /* isa = 0: only portable kernels. */
    for (int i = 0; i < p->n_nodes; i++) {
        assert_int_equal(p->nodes[i].k->isa, 0);
        assert_ptr_equal(p->nodes[i].node, &g->nodes[i]);
    }
    em_plan_destroy(p);
    em_graph_destroy(g);
}

static void test_relu_of_live_value_not_in_place(void **state)
{
    (void)state;
    /* y = conv(x); r = relu(y); s = add(r, y): y is read after the Relu. */
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 2, 8, 8);
    int y = add_conv(g, "conv", x, 2, 4, 3, 1);
    int r = add_unary(g, EM_OP_RELU, "relu", y);
    int s = add_binary(g, EM_OP_ADD, "add", r, y);
    int t = add_unary(g, EM_OP_SIGMOID, "sig", s);
    assert_null(em_graph_mark_output(g, t));
    const int64_t shape[] = {2, 2, 8, 8};
    em_plan *p = plan_one(g, shape, 4);
    check_plan(p);
    EXPECT_SHAPE(p, s, 2, 4, 8, 8);
    assert_int_not_equal(p->vals[r].buf, p->vals[y].buf);
    assert_true(buf_offset(p, r) != buf_offset(p, y));
    /* The Add's input 0 (r) dies at the Add: in place there. */
    assert_int_equal(p->vals[s].buf, p->vals[r].buf);
    em_plan_destroy(p);

    /* Relu of a graph input: the caller's buffer is never written. */
    em_graph_destroy(g);
    g = new_graph();
    x = add_image_input(g, "x", 2, 8, 8);
    r = add_unary(g, EM_OP_RELU, "relu_in", x);
    s = add_unary(g, EM_OP_TANH, "tanh", r);
    assert_null(em_graph_mark_output(g, s));
    p = plan_one(g, shape, 4);
    check_plan(p);
    assert_int_equal(p->vals[x].loc, EM_LOC_INPUT);
    assert_int_equal(p->vals[r].loc, EM_LOC_ARENA);
    em_plan_destroy(p);
    em_graph_destroy(g);
}

static void test_views_alias(void **state)
{
    (void)state;
    /* y = conv(x) [1,8,4,4]; f = flatten(y) [1,128]; rs = reshape(y, [1,-1]) [1,128];
     * a = add(f, rs); out = gemm(a, W[128,10]). */
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 3, 6, 6);
    int y = add_conv(g, "conv", x, 3, 8, 3, 0);
    int f = add_unary(g, EM_OP_FLATTEN, "flatten", y);
    const int64_t target[] = {1, -1}, td[] = {2};
    int tgt;
    assert_null(em_graph_add_initializer_copy(g, "target", EMBER_DTYPE_I64, 1, td, target, &tgt));
    int rs = add_binary(g, EM_OP_RESHAPE, "reshape", y, tgt);
    int id = add_unary(g, EM_OP_IDENTITY, "ident", rs);
    int a = add_binary(g, EM_OP_ADD, "add", f, id);
    const int64_t wd[] = {128, 10};
    const int gin[] = {a, add_init(g, "fc_w", 2, wd)};
    int out = add_node1(g, EM_OP_GEMM, "fc", gin, 2, "logits");
    assert_null(em_graph_mark_output(g, out));
    const int64_t shape[] = {1, 3, 6, 6};
    em_plan *p = plan_one(g, shape, 4);
    check_plan(p);
    EXPECT_SHAPE(p, y, 1, 8, 4, 4);
    EXPECT_SHAPE(p, f, 1, 128);
    EXPECT_SHAPE(p, rs, 1, 128);
    EXPECT_SHAPE(p, out, 1, 10);
    /* All three views share the conv output's buffer (and offset). */
    assert_int_equal(p->vals[f].buf, p->vals[y].buf);
    assert_int_equal(p->vals[rs].buf, p->vals[y].buf);
    assert_int_equal(p->vals[id].buf, p->vals[y].buf);
    assert_int_equal(buf_offset(p, f), buf_offset(p, y));
    /* Nodes: conv 0, flatten 1, reshape 2, identity 3, add 4, gemm 5. Every view of the
     * buffer dies at the Add (node 4), so the Add runs in place over its input 0 (f), and
     * the buffer then lives until the Gemm reads the sum. */
    assert_int_equal(p->vals[a].buf, p->vals[y].buf);
    assert_int_equal(p->bufs[p->vals[y].buf].first, 0);
    assert_int_equal(p->bufs[p->vals[y].buf].last, 5);
    /* One buffer for five intermediates of 512 bytes (no node asks for scratch). */
    for (int i = 0; i < p->n_nodes; i++) {
        assert_int_equal(p->nodes[i].scratch_buf, -1);
    }
    assert_true(p->naive_bytes == 5 * 512);
    assert_true(p->arena_bytes == padded(512));
    em_plan_destroy(p);
    em_graph_destroy(g);
}

static void test_outputs_not_in_arena(void **state)
{
    (void)state;
    /* y is output 1 and also read by the Relu; r is output 0. */
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 1, 5, 5);
    int y = add_conv(g, "conv", x, 1, 2, 1, 0);
    int r = add_unary(g, EM_OP_RELU, "relu", y);
    int f = add_unary(g, EM_OP_FLATTEN, "flat", r);
    assert_null(em_graph_mark_output(g, f));
    assert_null(em_graph_mark_output(g, y));
    const int64_t shape[] = {3, 1, 5, 5};
    em_plan *p = plan_one(g, shape, 4);
    check_plan(p);
    assert_int_equal(p->vals[f].loc, EM_LOC_OUTPUT);
    assert_int_equal(p->vals[f].index, 0);
    assert_int_equal(p->vals[y].loc, EM_LOC_OUTPUT);
    assert_int_equal(p->vals[y].index, 1);
    assert_int_equal(p->vals[r].loc, EM_LOC_ARENA); /* cannot run in place over an output */
    EXPECT_SHAPE(p, f, 3, 2 * 5 * 5);
    /* Only r is in the arena (buffers of values; kernels may add scratch). */
    for (int v = 0; v < p->n_values; v++) {
        if (p->vals[v].loc == EM_LOC_ARENA) {
            assert_int_equal(v, r);
        }
    }
    assert_true(p->naive_bytes == 3 * 2 * 5 * 5 * sizeof(float));
    em_plan_destroy(p);
    em_graph_destroy(g);
}

/* ---- input binding
 * -------------------------------------------------------------------------------- */

static void expect_bind_error(const em_graph *g, const int64_t *const *shapes, const int *ranks,
                              int n, const char *const *needles)
{
    em_plan *p = (em_plan *)g;
    ember_status *st = em_plan_build(g, test_allocator(), 0, 1, NULL, shapes, ranks, NULL, n, &p);
    if (st == NULL) {
        fail_msg("expected INVALID_ARG (%s)", needles[0]);
    }
    char m[1024];
    ember_code code = ember_status_code(st);
    snprintf(m, sizeof m, "%s", ember_status_message(st));
    ember_status_destroy(st);
    assert_null(p);
    assert_int_equal(code, EMBER_ERR_INVALID_ARG);
    for (int i = 0; needles[i] != NULL; i++) {
        if (strstr(m, needles[i]) == NULL) {
            fail_msg("message \"%s\" lacks \"%s\"", m, needles[i]);
        }
    }
}

#define EXPECT_BIND_ERROR(g, shapes, ranks, n, ...)                                                \
    do {                                                                                           \
        const char *const nd_[] = {__VA_ARGS__, NULL};                                             \
        expect_bind_error((g), (shapes), (ranks), (n), nd_);                                       \
    } while (0)

static void test_binding_errors(void **state)
{
    (void)state;
    /* a [N, 4] + b [N, 4], N shared. */
    em_graph *g = new_graph();
    const int64_t d[] = {-1, 4};
    const char *const names[] = {"N", NULL};
    int a, b;
    assert_null(em_graph_add_input(g, "in_a", EMBER_DTYPE_F32, 2, d, names, &a));
    assert_null(em_graph_add_input(g, "in_b", EMBER_DTYPE_F32, 2, d, names, &b));
    int s = add_binary(g, EM_OP_ADD, "add", a, b);
    assert_null(em_graph_mark_output(g, s));
    assert_null(em_graph_verify(g));

    const int64_t ok[] = {3, 4}, ok2[] = {3, 4}, r3[] = {3, 4, 1}, wrong[] = {3, 5},
                  other_n[] = {2, 4}, neg[] = {-1, 4};
    const int64_t *const good[] = {ok, ok2};
    const int ranks[] = {2, 2};
    em_plan *p = NULL;
    assert_null(em_plan_build(g, test_allocator(), 0, 1, NULL, good, ranks, NULL, 2, &p));
    EXPECT_SHAPE(p, s, 3, 4);
    check_plan(p);
    em_plan_destroy(p);

    const int64_t *const bad_rank[] = {ok, r3};
    const int ranks3[] = {2, 3};
    EXPECT_BIND_ERROR(g, bad_rank, ranks3, 2, "'in_b'", "rank 3");
    const int64_t *const bad_dim[] = {wrong, ok};
    EXPECT_BIND_ERROR(g, bad_dim, ranks, 2, "'in_a'", "5", "4");
    const int64_t *const bad_sym[] = {ok, other_n};
    EXPECT_BIND_ERROR(g, bad_sym, ranks, 2, "'in_b'", "'N'");
    const int64_t *const negative[] = {neg, ok};
    EXPECT_BIND_ERROR(g, negative, ranks, 2, "'in_a'", "negative");
    EXPECT_BIND_ERROR(g, good, ranks, 1, "2 inputs", "1");
    em_graph_destroy(g);
}

/* ---- em_plan_matches, text, kernel choice
 * ------------------------------------------------------------ */

static void test_matches_and_text(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 2, 6, 6);
    int y = add_conv(g, "conv", x, 2, 3, 3, 1);
    int r = add_unary(g, EM_OP_RELU, "relu", y);
    int gp = add_unary(g, EM_OP_GLOBALAVERAGEPOOL, "gap", r);
    int f = add_unary(g, EM_OP_FLATTEN, "flat", gp);
    int sm = add_unary(g, EM_OP_SOFTMAX, "softmax", f);
    assert_null(em_graph_mark_output(g, sm));
    const int64_t shape[] = {2, 2, 6, 6};
    em_plan *p = plan_one(g, shape, 4);
    check_plan(p);
    EXPECT_SHAPE(p, gp, 2, 3, 1, 1);
    EXPECT_SHAPE(p, sm, 2, 3);

    const int64_t same[] = {2, 2, 6, 6}, batch3[] = {3, 2, 6, 6}, r3[] = {2, 2, 6};
    const int64_t *const s_same[] = {same}, *const s_b3[] = {batch3}, *const s_r3[] = {r3};
    const int rank4 = 4, rank3 = 3;
    assert_true(em_plan_matches(p, s_same, &rank4, NULL, 1));
    assert_false(em_plan_matches(p, s_b3, &rank4, NULL, 1));
    assert_false(em_plan_matches(p, s_r3, &rank3, NULL, 1));
    assert_false(em_plan_matches(p, s_same, &rank4, NULL, 0));
    const int64_t *const two[] = {same, same};
    const int ranks2[] = {4, 4};
    assert_false(em_plan_matches(p, two, ranks2, NULL, 2));

    char *text = NULL;
    assert_null(em_plan_to_text(p, &text));
    assert_non_null(strstr(text, "arena"));
    assert_non_null(strstr(text, "em_conv_f32__ref"));
    assert_non_null(strstr(text, "em_softmax_f32__ref"));
    assert_non_null(strstr(text, "conv_out"));
    assert_non_null(strstr(text, "Conv"));
    char num[32];
    snprintf(num, sizeof num, "%zu", p->arena_bytes);
    assert_non_null(strstr(text, num));
    ember_string_free(text);
    em_plan_destroy(p);

    /* With every feature of this CPU, each kernel's ISA is a subset of them. */
    const int64_t *const shapes[] = {shape};
    uint64_t isa = em_cpu_features();
    assert_null(em_plan_build(g, test_allocator(), isa, 1, NULL, shapes, &rank4, NULL, 1, &p));
    for (int i = 0; i < p->n_nodes; i++) {
        assert_true((p->nodes[i].k->isa & ~isa) == 0);
        assert_int_equal(p->nodes[i].k->op, g->nodes[i].op);
    }
    check_plan(p);
    em_plan_destroy(p);
    em_graph_destroy(g);
}

static void test_plan_oom_sweep(void **state)
{
    (void)state;
    /* The graph on libc; only the plan on the counting allocator. */
    em_graph *g = NULL;
    assert_null(em_graph_new(NULL, &g));
    const int64_t d[] = {-1, 2, 5, 5};
    int x;
    assert_null(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 4, d, NULL, &x));
    int y = add_conv(g, "conv", x, 2, 4, 3, 1);
    int r = add_unary(g, EM_OP_RELU, "relu", y);
    int s = add_binary(g, EM_OP_ADD, "add", r, y);
    int f = add_unary(g, EM_OP_FLATTEN, "flat", s);
    assert_null(em_graph_mark_output(g, f));
    const int64_t shape[] = {1, 2, 5, 5};
    const int64_t *const shapes[] = {shape};
    const int rank = 4;

    counting_alloc ca;
    counting_alloc_init(&ca);
    em_plan *p = NULL;
    assert_null(em_plan_build(g, &ca.al, 0, 1, NULL, shapes, &rank, NULL, 1, &p));
    long n = ca.n_alloc;
    em_plan_destroy(p);
    assert_int_equal(ca.live, 0);
    for (long i = 1; i <= n; i++) {
        counting_alloc_init(&ca);
        ca.fail_at = i;
        p = (em_plan *)&ca;
        ember_status *st = em_plan_build(g, &ca.al, 0, 1, NULL, shapes, &rank, NULL, 1, &p);
        if (ember_status_code(st) != EMBER_ERR_OUT_OF_MEMORY) {
            fail_msg("failing allocation %ld of %ld: %s", i, n, ember_status_message(st));
        }
        ember_status_destroy(st);
        assert_null(p);
        if (ca.live != 0) {
            fail_msg("failing allocation %ld of %ld: %ld leaked", i, n, (long)ca.live);
        }
    }
    em_graph_destroy(g);
}

/* Concat of the values in[0..n) along channels. */
static int add_concat(em_graph *g, const char *name, const int *in, int n)
{
    char oname[64];
    snprintf(oname, sizeof oname, "%s_out", name);
    int out = add_node1(g, EM_OP_CONCAT, name, in, n, oname);
    assert_null(em_node_set_int(g, g->values[out].producer, "axis", 1));
    return out;
}

static bool in_place(const em_plan *p, int v)
{
    return p->nodes[p->g->values[v].producer].in_place;
}

/* squeezenet's fire: two convs of one input joined by a Concat, which their producers write
 * into at batch 1 (and not at batch 2, where the inputs interleave in the output). */
static void test_concat_in_place(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 16, 8, 8);
    int a = add_conv(g, "e3", x, 16, 16, 3, 1);
    int b = add_conv(g, "e1", x, 16, 8, 1, 0);
    const int ab[] = {a, b};
    int cat = add_concat(g, "cat", ab, 2);
    int y = add_conv(g, "next", cat, 24, 8, 1, 0);
    assert_null(em_graph_mark_output(g, y));
    const int64_t s1[] = {1, 16, 8, 8}, s2[] = {2, 16, 8, 8};
    em_plan *p = plan_one(g, s1, 4);
    check_plan(p);
    assert_true(in_place(p, cat));
    assert_int_equal(p->vals[a].buf, p->vals[cat].buf);
    assert_int_equal(p->vals[b].buf, p->vals[cat].buf);
    assert_int_equal(p->vals[a].sub, 0);
    assert_int_equal(p->vals[b].sub, 16 * 64 * 4);
    char *text = NULL;
    assert_null(em_plan_to_text(p, &text));
    assert_non_null(strstr(text, "(in place)"));
    ember_string_free(text);
    em_plan_destroy(p);
    p = plan_one(g, s2, 4);
    check_plan(p);
    assert_false(in_place(p, cat));
    assert_int_not_equal(p->vals[a].buf, p->vals[cat].buf);
    em_plan_destroy(p);
    em_graph_destroy(g);
}

/* densenet's block: each Concat takes the previous one's inputs plus a new feature. Every
 * feature is written once into the last Concat's buffer; the earlier Concats are its
 * prefixes. */
static void test_concat_chain(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 8, 6, 6);
    int f[4], k[3];
    f[0] = add_conv(g, "c0", x, 8, 16, 1, 0);
    int in = f[0];
    for (int i = 1; i < 4; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "f%d", i);
        f[i] = add_conv(g, nm, add_unary(g, EM_OP_RELU, nm + 1, in), 16 * i, 16, 3, 1);
        snprintf(nm, sizeof nm, "k%d", i);
        k[i - 1] = add_concat(g, nm, f, i + 1);
        in = k[i - 1];
    }
    int y = add_conv(g, "tr", in, 64, 8, 1, 0);
    assert_null(em_graph_mark_output(g, y));
    const int64_t s1[] = {1, 8, 6, 6};
    em_plan *p = plan_one(g, s1, 4);
    check_plan(p);
    size_t feat = 16 * 36 * 4;
    for (int i = 0; i < 3; i++) {
        assert_true(in_place(p, k[i]));
        assert_int_equal(p->vals[k[i]].buf, p->vals[k[2]].buf);
        assert_int_equal(p->vals[k[i]].sub, 0);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(p->vals[f[i]].buf, p->vals[k[2]].buf);
        assert_true(p->vals[f[i]].sub == (size_t)i * feat);
    }
    /* The block's buffer lives from c0 to the last reader of k3. */
    const em_plan_buf *bb = &p->bufs[p->vals[k[2]].buf];
    assert_int_equal(bb->first, g->values[f[0]].producer);
    assert_int_equal(bb->last, g->values[y].producer);
    em_plan_destroy(p);
    em_graph_destroy(g);
}

/* Concats that must copy: a value twice, a graph input, a graph output among the inputs, an
 * input whose size leaves the next one unaligned, a view, a Concat that is a graph output,
 * and one whose inputs a later Concat already placed apart. */
static void test_concat_copies(void **state)
{
    (void)state;
    em_graph *g = new_graph();
    int x = add_image_input(g, "x", 16, 3, 3); /* 16 channels: 576 bytes */
    int a = add_conv(g, "a", x, 16, 16, 1, 0);
    int b = add_conv(g, "b", x, 16, 16, 1, 0);
    int o = add_conv(g, "o", x, 16, 16, 1, 0);
    int t = add_conv(g, "t", x, 16, 3, 1, 0); /* [1, 3, 3, 3]: 108 bytes */
    int u = add_conv(g, "u", x, 16, 16, 1, 0);
    int r = add_unary(g, EM_OP_IDENTITY, "view", u);
    const int twice[] = {a, a}, with_input[] = {x, b}, with_output[] = {o, b};
    const int unaligned[] = {t, b}, with_view[] = {r, b}, out_cat[] = {b, a};
    int c1 = add_concat(g, "twice", twice, 2);
    int c2 = add_concat(g, "with_input", with_input, 2);
    int c3 = add_concat(g, "with_output", with_output, 2);
    int c4 = add_concat(g, "unaligned", unaligned, 2);
    int c5 = add_concat(g, "with_view", with_view, 2);
    int c6 = add_concat(g, "out_cat", out_cat, 2);
    /* "first" joins a and b; the later "apart" puts a and another conv's output together
     * first (Concats are planned last first), so "first" finds a placed and b not. */
    int d = add_conv(g, "d", x, 16, 16, 1, 0);
    const int ab[] = {a, b}, ad[] = {a, d};
    int first = add_concat(g, "first", ab, 2);
    int apart = add_concat(g, "apart", ad, 2);
    const int all[] = {c1, c2, c3, c4, c5, first, apart};
    int s = add_concat(g, "sink", all, 7);
    assert_null(em_graph_mark_output(g, s));
    assert_null(em_graph_mark_output(g, o));
    assert_null(em_graph_mark_output(g, c6));
    const int64_t s1[] = {1, 16, 3, 3};
    em_plan *p = plan_one(g, s1, 4);
    check_plan(p);
    assert_false(in_place(p, c1));
    assert_false(in_place(p, c2));
    assert_false(in_place(p, c3));
    assert_false(in_place(p, c4));
    assert_false(in_place(p, c5));
    assert_false(in_place(p, c6));
    assert_false(in_place(p, first));
    assert_true(in_place(p, apart));
    assert_false(in_place(p, s)); /* a graph output */
    em_plan_destroy(p);
    em_graph_destroy(g);
}

/* ---- random graphs
 * -------------------------------------------------------------------------------- */

typedef struct rval {
    int v;
    int64_t c, h, w;
} rval;

enum { MAX_RVALS = 64 };

static int pick(test_rng *rng, int n)
{
    /* Half the time the newest value (chains), otherwise any (diamonds, long lifetimes). */
    if (test_rng_next(rng) % 2 == 0) {
        return n - 1;
    }
    return (int)(test_rng_next(rng) % (uint64_t)n);
}

/* Builds one random graph of Relu/Sigmoid/Add/Conv/Identity/Reshape/Concat nodes; returns the
 * batch. Spatial sizes of 4 x 4 (half the time) give Concats with aligned inputs. */
static int64_t random_graph(em_graph *g, test_rng *rng, rval *vals, int *n_vals)
{
    int n = 0;
    vals[0].c = 1 + (int64_t)(test_rng_next(rng) % 4);
    vals[0].h = 3 + (int64_t)(test_rng_next(rng) % 8);
    vals[0].w = 3 + (int64_t)(test_rng_next(rng) % 8);
    if (test_rng_next(rng) % 2) {
        vals[0].h = vals[0].w = 4;
    }
    vals[0].v = add_image_input(g, "x", vals[0].c, vals[0].h, vals[0].w);
    n = 1;
    int n_nodes = 3 + (int)(test_rng_next(rng) % 14);
    for (int k = 0; k < n_nodes && n < MAX_RVALS; k++) {
        char name[32];
        snprintf(name, sizeof name, "n%d", k);
        rval src = vals[pick(rng, n)];
        rval out = src;
        unsigned r = (unsigned)(test_rng_next(rng) % 13);
        if (r < 3) {
            out.v = add_unary(g, r == 0 ? EM_OP_SIGMOID : EM_OP_RELU, name, src.v);
        } else if (r < 7) {
            /* A partner of the same shape (possibly src itself). */
            int cand[MAX_RVALS], nc = 0;
            for (int i = 0; i < n; i++) {
                if (vals[i].c == src.c && vals[i].h == src.h && vals[i].w == src.w) {
                    cand[nc++] = i;
                }
            }
            rval other = vals[cand[test_rng_next(rng) % (uint64_t)nc]];
            bool swap = test_rng_next(rng) % 2;
            out.v = add_binary(g, r == 3 ? EM_OP_MUL : EM_OP_ADD, name, swap ? other.v : src.v,
                               swap ? src.v : other.v);
        } else if (r < 10) {
            int64_t k3 = (src.h >= 3 && src.w >= 3 && test_rng_next(rng) % 2) ? 3 : 1;
            int64_t pad = k3 == 3 ? (int64_t)(test_rng_next(rng) % 2) : 0;
            out.c = 1 + (int64_t)(test_rng_next(rng) % 6);
            out.h = src.h + 2 * pad - k3 + 1;
            out.w = src.w + 2 * pad - k3 + 1;
            out.v = add_conv(g, name, src.v, src.c, out.c, k3, pad);
        } else if (r == 10) {
            out.v = add_unary(g, EM_OP_IDENTITY, name, src.v);
        } else if (r == 12) {
            /* A Concat with a partner of the same spatial size (possibly src itself). */
            int cand[MAX_RVALS], nc = 0;
            for (int i = 0; i < n; i++) {
                if (vals[i].h == src.h && vals[i].w == src.w) {
                    cand[nc++] = i;
                }
            }
            rval other = vals[cand[test_rng_next(rng) % (uint64_t)nc]];
            const int in[] = {src.v, other.v};
            out.v = add_concat(g, name, in, 2);
            out.c = src.c + other.c;
        } else {
            /* Reshape to [0, c, h, w]: a view with the same shape. */
            char tname[40];
            snprintf(tname, sizeof tname, "%s_shape", name);
            const int64_t target[] = {0, src.c, src.h, src.w}, td[] = {4};
            int t;
            assert_null(
                em_graph_add_initializer_copy(g, tname, EMBER_DTYPE_I64, 1, td, target, &t));
            out.v = add_binary(g, EM_OP_RESHAPE, name, src.v, t);
        }
        vals[n++] = out;
    }
    assert_null(em_graph_mark_output(g, vals[n - 1].v));
    if (n > 2 && test_rng_next(rng) % 3 == 0) {
        int extra = 1 + (int)(test_rng_next(rng) % (uint64_t)(n - 2));
        assert_null(em_graph_mark_output(g, vals[extra].v));
    }
    *n_vals = n;
    return 1 + (int64_t)(test_rng_next(rng) % 3);
}

static void test_random_graphs(void **state)
{
    (void)state;
    int shared_inplace = 0, shared_alias = 0, concat_in_place = 0;
    for (int iter = 0; iter < 200; iter++) {
        test_rng rng = {0xe3be5eedull + (uint64_t)iter * 7919u};
        rval vals[MAX_RVALS];
        int nv = 0;
        em_graph *g = new_graph();
        int64_t batch = random_graph(g, &rng, vals, &nv);
        const int64_t shape[] = {batch, vals[0].c, vals[0].h, vals[0].w};
        em_plan *p = plan_one(g, shape, 4);
        check_plan(p);
        for (int i = 0; i < nv; i++) {
            const int64_t want[] = {batch, vals[i].c, vals[i].h, vals[i].w};
            expect_shape(p, vals[i].v, 4, want);
        }
        for (int ni = 0; ni < g->n_nodes; ni++) {
            const em_node *n = &g->nodes[ni];
            const em_plan_value *o = &p->vals[n->out[0]], *i0 = &p->vals[n->in[0]];
            concat_in_place += p->nodes[ni].in_place;
            if (o->loc == EM_LOC_ARENA && i0->loc == EM_LOC_ARENA && o->buf == i0->buf) {
                if (em_op_info_of(n->op)->flags & EM_OPF_ALIAS) {
                    shared_alias++;
                } else {
                    shared_inplace++;
                }
            }
        }
        em_plan_destroy(p);
        if (batch != 1) { /* batch 1 too, where channel Concats can be done in place */
            const int64_t one[] = {1, vals[0].c, vals[0].h, vals[0].w};
            p = plan_one(g, one, 4);
            check_plan(p);
            for (int ni = 0; ni < g->n_nodes; ni++) {
                concat_in_place += p->nodes[ni].in_place;
            }
            em_plan_destroy(p);
        }
        em_graph_destroy(g);
    }
    /* The sweep exercised both kinds of sharing and in-place Concats. */
    print_message("random graphs: %d in-place shares, %d views, %d in-place Concats\n",
                  shared_inplace, shared_alias, concat_in_place);
    assert_true(shared_inplace > 10);
    assert_true(shared_alias > 5);
    assert_true(concat_in_place > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_in_place),
        cmocka_unit_test(test_relu_of_live_value_not_in_place),
        cmocka_unit_test(test_views_alias),
        cmocka_unit_test(test_outputs_not_in_arena),
        cmocka_unit_test(test_concat_in_place),
        cmocka_unit_test(test_concat_chain),
        cmocka_unit_test(test_concat_copies),
        cmocka_unit_test(test_binding_errors),
        cmocka_unit_test(test_matches_and_text),
        cmocka_unit_test(test_plan_oom_sweep),
        cmocka_unit_test(test_random_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
