/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/ir/graph.c: building a graph (inputs with symbolic dims, copied and storage-backed
 * initializers, nodes, outputs, attributes), attribute getters with defaults and wrong types,
 * the verifier's errors (each checked for naming the node and the problem), the text printer,
 * the parameter count, and a failure-injection sweep: failing allocation i = 1..N while
 * building must give EMBER_ERR_OUT_OF_MEMORY and em_graph_destroy must free everything.
 * Every test allocates through test_allocator() (or the counting allocator), so leaks fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/test_alloc.h"
#include "ir/graph.h"
#include "core/status.h"

/* Asserts that `st` has `code` and that its message contains every string in `needles`
 * (NULL-terminated), then destroys it. */
static void expect_error(ember_status *st, ember_code code, const char *const *needles)
{
    if (st == NULL) {
        fail_msg("expected %s, got success", ember_code_name(code));
    }
    /* Copied and destroyed first, so that a failing check does not also leak the status. */
    char msg[1024];
    ember_code got = ember_status_code(st);
    snprintf(msg, sizeof msg, "%s", ember_status_message(st));
    ember_status_destroy(st);
    if (got != code) {
        fail_msg("expected %s, got %s: %s", ember_code_name(code), ember_code_name(got), msg);
    }
    for (int i = 0; needles[i] != NULL; i++) {
        if (strstr(msg, needles[i]) == NULL) {
            fail_msg("message \"%s\" does not contain \"%s\"", msg, needles[i]);
        }
    }
}

#define EXPECT_ERROR(st, code, ...)                                                                \
    do {                                                                                           \
        const char *const needles_[] = {__VA_ARGS__, NULL};                                        \
        expect_error((st), (code), needles_);                                                      \
    } while (0)

/* Sizes of the small model below, used by tests to derive expected values. */
enum { C_IN = 8, C_OUT = 16, HW = 28, N_CLASSES = 10 };

typedef struct small_ids {
    int x, w, b, w2, b2; /* inputs and initializers */
    int y, r, pooled, flat, logits, prob;
    int conv, relu, gap, flatten, fc, softmax; /* node indices */
} small_ids;

/* x[N,8,28,28] -> Conv(pads 1) -> Relu -> GlobalAveragePool -> Flatten -> Gemm(transB) ->
 * Softmax -> prob[N,10]. Stops at the first error (which the caller checks). */
static ember_status *build_small(em_graph *g, small_ids *id)
{
    ember_status *st = NULL;
    static float wdata[C_OUT * C_IN * 3 * 3], bdata[C_OUT], w2data[N_CLASSES * C_OUT],
        b2data[N_CLASSES];
    for (size_t i = 0; i < sizeof wdata / sizeof wdata[0]; i++) {
        wdata[i] = (float)i * 0.25f;
    }
    const int64_t xd[] = {-1, C_IN, HW, HW};
    const char *const xn[] = {"N", NULL, NULL, NULL};
    const int64_t wd[] = {C_OUT, C_IN, 3, 3}, bd[] = {C_OUT}, w2d[] = {N_CLASSES, C_OUT},
                  b2d[] = {N_CLASSES};
    const int64_t pads[] = {1, 1, 1, 1}, strides[] = {1, 1};
    EMBER_TRY(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 4, xd, xn, &id->x));
    EMBER_TRY(em_graph_add_initializer_copy(g, "w", EMBER_DTYPE_F32, 4, wd, wdata, &id->w));
    EMBER_TRY(em_graph_add_initializer_copy(g, "b", EMBER_DTYPE_F32, 1, bd, bdata, &id->b));
    EMBER_TRY(em_graph_add_initializer_copy(g, "w2", EMBER_DTYPE_F32, 2, w2d, w2data, &id->w2));
    EMBER_TRY(em_graph_add_initializer_copy(g, "b2", EMBER_DTYPE_F32, 1, b2d, b2data, &id->b2));

    const int conv_in[] = {id->x, id->w, id->b};
    const char *const y[] = {"y"};
    EMBER_TRY(em_graph_add_node(g, EM_OP_CONV, "conv1", conv_in, 3, y, 1, &id->conv));
    EMBER_TRY(em_node_set_ints(g, id->conv, "pads", pads, 4));
    EMBER_TRY(em_node_set_ints(g, id->conv, "strides", strides, 2));
    EMBER_TRY(em_node_set_int(g, id->conv, "group", 1));
    EMBER_TRY(em_node_set_string(g, id->conv, "auto_pad", "NOTSET"));
    id->y = g->nodes[id->conv].out[0];

    const char *const r[] = {"r"};
    EMBER_TRY(em_graph_add_node(g, EM_OP_RELU, "relu1", &id->y, 1, r, 1, &id->relu));
    id->r = g->nodes[id->relu].out[0];
    const float scales[] = {0.5f, 2.0f};
    EMBER_TRY(em_node_set_floats(g, id->relu, "scales", scales, 2));

    const char *const p[] = {"pooled"};
    EMBER_TRY(em_graph_add_node(g, EM_OP_GLOBALAVERAGEPOOL, "gap", &id->r, 1, p, 1, &id->gap));
    id->pooled = g->nodes[id->gap].out[0];
    const char *const f[] = {"flat"};
    EMBER_TRY(em_graph_add_node(g, EM_OP_FLATTEN, "flatten", &id->pooled, 1, f, 1, &id->flatten));
    EMBER_TRY(em_node_set_int(g, id->flatten, "axis", 1));
    id->flat = g->nodes[id->flatten].out[0];

    const int fc_in[] = {id->flat, id->w2, id->b2};
    const char *const l[] = {"logits"};
    EMBER_TRY(em_graph_add_node(g, EM_OP_GEMM, "fc", fc_in, 3, l, 1, &id->fc));
    EMBER_TRY(em_node_set_int(g, id->fc, "transB", 1));
    EMBER_TRY(em_node_set_float(g, id->fc, "alpha", 0.5f));
    id->logits = g->nodes[id->fc].out[0];
    const char *const pr[] = {"prob"};
    EMBER_TRY(em_graph_add_node(g, EM_OP_SOFTMAX, "softmax", &id->logits, 1, pr, 1, &id->softmax));
    EMBER_TRY(em_node_set_int(g, id->softmax, "axis", -1));
    id->prob = g->nodes[id->softmax].out[0];
    EMBER_TRY(em_graph_mark_output(g, id->prob));
    return NULL;
fail:
    return st;
}

static em_graph *new_small(small_ids *id)
{
    em_graph *g = NULL;
    assert_null(em_graph_new(test_allocator(), &g));
    ember_status *st = build_small(g, id);
    if (st != NULL) {
        char m[1024];
        snprintf(m, sizeof m, "%s", ember_status_message(st));
        ember_status_destroy(st);
        fail_msg("build_small: %s", m);
    }
    return g;
}

static void test_build_structure(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    assert_int_equal(g->n_inputs, 1);
    assert_int_equal(g->inputs[0], id.x);
    assert_int_equal(g->n_outputs, 1);
    assert_int_equal(g->outputs[0], id.prob);
    assert_int_equal(g->n_nodes, 6);
    /* 5 inputs/initializers and one output per node */
    assert_int_equal(g->n_values, 5 + 6);

    const em_value *x = &g->values[id.x];
    assert_string_equal(x->name, "x");
    assert_int_equal(x->kind, EM_VAL_INPUT);
    assert_int_equal(x->dtype, EMBER_DTYPE_F32);
    assert_int_equal(x->rank, 4);
    assert_int_equal(x->producer, -1);
    assert_true(x->dims[0].v == -1 && x->dims[0].sym > 0);
    assert_int_equal(g->n_syms, 1);
    assert_string_equal(g->sym_names[x->dims[0].sym - 1], "N");
    assert_true(x->dims[1].v == C_IN && x->dims[1].sym == 0);
    assert_true(x->dims[3].v == HW);

    const em_value *w = &g->values[id.w];
    assert_int_equal(w->kind, EM_VAL_INITIALIZER);
    assert_int_equal(w->init.rank, 4);
    assert_int_equal(w->init.dims[0], C_OUT);
    assert_non_null(w->storage);
    const float *wd = w->init.data;
    for (int i = 0; i < C_OUT * C_IN * 9; i++) {
        assert_true(wd[i] == (float)i * 0.25f); /* the bytes were copied */
    }

    const em_node *conv = &g->nodes[id.conv];
    assert_int_equal(conv->op, EM_OP_CONV);
    assert_string_equal(conv->name, "conv1");
    assert_int_equal(conv->n_in, 3);
    assert_int_equal(conv->in[0], id.x);
    assert_int_equal(conv->in[1], id.w);
    assert_int_equal(conv->in[2], id.b);
    assert_int_equal(conv->n_out, 1);
    const em_value *y = &g->values[id.y];
    assert_string_equal(y->name, "y");
    assert_int_equal(y->kind, EM_VAL_INTERMEDIATE);
    assert_int_equal(y->producer, id.conv);
    assert_int_equal(y->rank, -1); /* unknown until inference */
    assert_true(g->values[id.prob].is_output);
    assert_false(y->is_output);

    assert_int_equal(em_graph_find_value(g, "logits"), id.logits);
    assert_int_equal(em_graph_find_value(g, "x"), id.x);
    assert_int_equal(em_graph_find_value(g, "nope"), -1);
    assert_null(em_graph_verify(g));
    em_graph_destroy(g);
}

static void test_param_count(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    int64_t want = C_OUT * C_IN * 3 * 3 + C_OUT + N_CLASSES * C_OUT + N_CLASSES;
    assert_int_equal(em_graph_param_count(g), want);
    em_graph_destroy(g);

    assert_null(em_graph_new(test_allocator(), &g));
    assert_int_equal(em_graph_param_count(g), 0);
    const int64_t d[] = {3};
    assert_null(em_graph_add_input(g, "in", EMBER_DTYPE_F32, 1, d, NULL, NULL));
    assert_int_equal(em_graph_param_count(g), 0); /* inputs are not parameters */
    const int64_t s[] = {0};
    assert_null(em_graph_add_initializer_copy(g, "empty", EMBER_DTYPE_F32, 1, s, NULL, NULL));
    assert_null(em_graph_add_initializer_copy(g, "scalar", EMBER_DTYPE_I64, 0, NULL,
                                              (const int64_t[]){7}, NULL));
    assert_int_equal(em_graph_param_count(g), 1);
    em_graph_destroy(g);
}

static void test_attr_getters(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    const em_node *conv = &g->nodes[id.conv];
    const int64_t *v = NULL;
    assert_int_equal(em_node_attr_ints(conv, "pads", &v), 4);
    assert_non_null(v);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(v[i], 1);
    }
    assert_int_equal(em_node_attr_ints(conv, "strides", &v), 2);
    assert_int_equal(em_node_attr_int(conv, "group", 99), 1);
    assert_string_equal(em_node_attr_string(conv, "auto_pad", "dflt"), "NOTSET");
    /* Absent: the defaults. */
    assert_int_equal(em_node_attr_int(conv, "missing", 99), 99);
    assert_true(em_node_attr_float(conv, "missing", 1.5f) == 1.5f);
    assert_string_equal(em_node_attr_string(conv, "missing", "dflt"), "dflt");
    assert_null(em_node_attr_string(conv, "missing", NULL));
    v = (const int64_t *)conv;
    assert_int_equal(em_node_attr_ints(conv, "missing", &v), -1);
    assert_null(v);
    assert_null(em_node_attr(conv, "missing"));
    /* Wrong type: the default, never a reinterpretation. */
    assert_int_equal(em_node_attr_int(conv, "pads", -7), -7);
    assert_int_equal(em_node_attr_int(conv, "auto_pad", -7), -7);
    assert_true(em_node_attr_float(conv, "group", 2.5f) == 2.5f);
    assert_string_equal(em_node_attr_string(conv, "group", "d"), "d");
    v = (const int64_t *)conv;
    assert_int_equal(em_node_attr_ints(conv, "group", &v), -1);
    assert_null(v);
    /* Generic access. */
    const em_attr *a = em_node_attr(conv, "auto_pad");
    assert_non_null(a);
    assert_int_equal(a->type, EM_ATTR_STRING);
    assert_string_equal(a->name, "auto_pad");

    const em_node *fc = &g->nodes[id.fc];
    assert_true(em_node_attr_float(fc, "alpha", 1.0f) == 0.5f);
    assert_int_equal(em_node_attr_int(fc, "transB", 0), 1);
    assert_int_equal(em_node_attr_int(fc, "alpha", 3), 3);
    const em_node *relu = &g->nodes[id.relu];
    a = em_node_attr(relu, "scales");
    assert_non_null(a);
    assert_int_equal(a->type, EM_ATTR_FLOATS);
    assert_int_equal(a->n, 2);
    assert_true(a->floats[0] == 0.5f && a->floats[1] == 2.0f);
    assert_int_equal(em_node_attr_int(&g->nodes[id.softmax], "axis", 0), -1);

    /* Empty lists and the generic adder. */
    assert_null(em_node_set_ints(g, id.relu, "empty", NULL, 0));
    v = NULL;
    assert_int_equal(em_node_attr_ints(&g->nodes[id.relu], "empty", &v), 0);
    em_attr *blank = NULL;
    assert_null(em_node_add_attr(g, id.relu, "later", EM_ATTR_INT, &blank));
    blank->i = 42;
    assert_int_equal(em_node_attr_int(&g->nodes[id.relu], "later", 0), 42);
    em_graph_destroy(g);
}

static void test_inputs_symbols_initializers(void **state)
{
    (void)state;
    em_graph *g = NULL;
    assert_null(em_graph_new(test_allocator(), &g));
    const int64_t ad[] = {-1, -1, 5, 7};
    const char *const an[] = {"batch", "", "ignored", NULL};
    int a, b;
    assert_null(em_graph_add_input(g, "a", EMBER_DTYPE_F32, 4, ad, an, &a));
    const int64_t bd[] = {-1, 3};
    const char *const bn[] = {"batch", "seq"};
    assert_null(em_graph_add_input(g, "b", EMBER_DTYPE_I64, 2, bd, bn, &b));
    const em_value *va = &g->values[a], *vb = &g->values[b];
    assert_true(va->dims[0].v == -1 && va->dims[0].sym > 0);
    assert_true(va->dims[1].v == -1 && va->dims[1].sym == 0); /* "" is no name: unknown */
    assert_true(va->dims[2].v == 5 && va->dims[2].sym == 0);  /* a known dim keeps its size */
    assert_true(va->dims[3].v == 7);
    assert_int_equal(vb->dims[0].sym, va->dims[0].sym); /* one symbol per name */
    assert_true(vb->dims[1].v == 3 && vb->dims[1].sym == 0);
    assert_int_equal(g->n_syms, 1);
    int32_t s_batch = em_graph_symbol(g, "batch");
    assert_int_equal(s_batch, va->dims[0].sym);
    int32_t s_new = em_graph_symbol(g, "other");
    assert_true(s_new > 0 && s_new != s_batch);
    assert_int_equal(em_graph_symbol(g, "other"), s_new);
    assert_int_equal(g->n_syms, 2);

    /* Symbol ranges: open by default, narrowed by intersection, an empty one refused and the
     * range kept; a new name makes a new symbol. */
    em_sym_range r;
    char rt[48];
    assert_true(em_graph_symbol_allows(g, s_batch, 0, &r));
    assert_true(em_graph_symbol_allows(g, s_batch, INT64_MAX, NULL));
    assert_string_equal(em_sym_range_text(r, rt, sizeof rt), "[0, inf]");
    assert_null(em_graph_set_symbol_range(g, "batch", 1, 64));
    assert_true(em_graph_symbol_allows(g, s_batch, 1, NULL));
    assert_true(em_graph_symbol_allows(g, s_batch, 64, NULL));
    assert_false(em_graph_symbol_allows(g, s_batch, 0, NULL));
    assert_false(em_graph_symbol_allows(g, s_batch, 65, &r));
    assert_string_equal(em_sym_range_text(r, rt, sizeof rt), "[1, 64]");
    assert_null(em_graph_set_symbol_range(g, "batch", 8, INT64_MAX));
    assert_false(em_graph_symbol_allows(g, s_batch, 7, &r));
    assert_string_equal(em_sym_range_text(r, rt, sizeof rt), "[8, 64]");
    EXPECT_ERROR(em_graph_set_symbol_range(g, "batch", 65, 100), EMBER_ERR_INVALID_ARG,
                 "symbolic dim 'batch': range [65, 100] does not meet the one it had");
    EXPECT_ERROR(em_graph_set_symbol_range(g, "batch", 5, 4), EMBER_ERR_INVALID_ARG,
                 "range [5, 4] is empty or negative");
    assert_true(em_graph_symbol_allows(g, s_batch, 8, NULL) &&
                em_graph_symbol_allows(g, s_batch, 64, NULL));
    assert_true(em_graph_symbol_allows(g, 0, 12345, NULL)); /* no symbol: anything */
    assert_null(em_graph_set_symbol_range(g, "fresh", 2, 3));
    assert_int_equal(g->n_syms, 3);
    assert_false(em_graph_symbol_allows(g, em_graph_symbol(g, "fresh"), 1, NULL));
    assert_int_equal(g->n_syms, 3);

    /* Rank above the maximum is refused and adds nothing. */
    int64_t big[EM_MAX_RANK + 1] = {0};
    int nv = g->n_values;
    EXPECT_ERROR(em_graph_add_input(g, "toobig", EMBER_DTYPE_F32, EM_MAX_RANK + 1, big, NULL, NULL),
                 EMBER_ERR_UNSUPPORTED, "toobig");
    assert_int_equal(g->n_values, nv);
    assert_int_equal(g->n_inputs, 2);

    /* An initializer inside a shared storage, at an offset. */
    em_storage *s = NULL;
    assert_null(em_storage_new_owned(test_allocator(), 64, &s));
    float *fs = em_storage_data(s);
    for (int i = 0; i < 16; i++) {
        fs[i] = (float)i;
    }
    const int64_t d4[] = {4}, d16[] = {16};
    int sl;
    assert_null(em_graph_add_initializer(g, "slice", EMBER_DTYPE_F32, 1, d4, s, 16, &sl));
    EXPECT_ERROR(em_graph_add_initializer(g, "slice2", EMBER_DTYPE_F32, 1, d16, s, 16, NULL),
                 EMBER_ERR_INVALID_MODEL, "slice2");
    EXPECT_ERROR(em_graph_add_initializer(g, "slice3", EMBER_DTYPE_F32, 1, d4, s, SIZE_MAX, NULL),
                 EMBER_ERR_INVALID_MODEL, "slice3");
    EXPECT_ERROR(em_graph_add_initializer(g, "nodtype", EMBER_DTYPE_UNDEFINED, 1, d4, s, 0, NULL),
                 EMBER_ERR_INVALID_MODEL, "nodtype");
    const int64_t negd[] = {-4};
    EXPECT_ERROR(em_graph_add_initializer_copy(g, "negdim", EMBER_DTYPE_F32, 1, negd, fs, NULL),
                 EMBER_ERR_INVALID_MODEL, "negdim");
    em_storage_release(s); /* the graph holds its own reference */
    const float *sd = g->values[sl].init.data;
    for (int i = 0; i < 4; i++) {
        assert_true(sd[i] == (float)(4 + i)); /* bytes 16.. = floats 4..7 */
    }
    assert_int_equal(em_graph_param_count(g), 4);

    /* Output indices are checked. */
    EXPECT_ERROR(em_graph_mark_output(g, -1), EMBER_ERR_INVALID_MODEL, "-1");
    EXPECT_ERROR(em_graph_mark_output(g, g->n_values), EMBER_ERR_INVALID_MODEL, "out of range");
    em_graph_destroy(g);
    em_graph_destroy(NULL);
}

/* ---- the verifier ---------------------------------------------------------------------- */

static void test_add_node_arity(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    int nn = g->n_nodes, nv = g->n_values;
    const char *const o[] = {"o"};
    const char *const o2[] = {"o", "o2"};
    EXPECT_ERROR(em_graph_add_node(g, EM_OP_CONV, "lonely", &id.x, 1, o, 1, NULL),
                 EMBER_ERR_INVALID_MODEL, "'lonely'", "Conv", "1 inputs", "2..3");
    const int two[] = {id.x, id.x};
    EXPECT_ERROR(em_graph_add_node(g, EM_OP_RELU, "relu2", two, 2, o, 1, NULL),
                 EMBER_ERR_INVALID_MODEL, "'relu2'", "Relu", "2 inputs");
    EXPECT_ERROR(em_graph_add_node(g, EM_OP_RELU, "relu0", &id.x, 1, o, 0, NULL),
                 EMBER_ERR_INVALID_MODEL, "'relu0'", "0 outputs");
    EXPECT_ERROR(em_graph_add_node(g, EM_OP_RELU, "relu_2out", &id.x, 1, o2, 2, NULL),
                 EMBER_ERR_INVALID_MODEL, "'relu_2out'", "2 outputs");
    const int bad[] = {nv + 5};
    EXPECT_ERROR(em_graph_add_node(g, EM_OP_RELU, "dangling", bad, 1, o, 1, NULL),
                 EMBER_ERR_INVALID_MODEL, "'dangling'", "input 0", "out of range");
    const int bad2[] = {-2};
    EXPECT_ERROR(em_graph_add_node(g, EM_OP_RELU, "neg", bad2, 1, o, 1, NULL),
                 EMBER_ERR_INVALID_MODEL, "'neg'", "out of range");
    EXPECT_ERROR(em_graph_add_node(g, (em_op)EM_OP_COUNT, "unknown", &id.x, 1, o, 1, NULL),
                 EMBER_ERR_INTERNAL, "'unknown'");
    /* Refused nodes leave the graph as it was. */
    assert_int_equal(g->n_nodes, nn);
    assert_int_equal(g->n_values, nv);
    assert_null(em_graph_verify(g));
    em_graph_destroy(g);
}

static void test_verify_arity_corrupted(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    g->nodes[id.conv].n_in = 1;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'conv1'", "Conv", "1 inputs",
                 "2..3");
    g->nodes[id.conv].n_in = 4; /* never read past the arity check */
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'conv1'", "4 inputs");
    g->nodes[id.conv].n_in = 3;
    g->nodes[id.relu].n_out = 0;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'relu1'", "Relu", "0 outputs");
    g->nodes[id.relu].n_out = 1;
    assert_null(em_graph_verify(g));
    em_graph_destroy(g);
}

static void test_verify_use_before_produce(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    /* conv1 (the first node) reads 'prob', which the last node produces. */
    g->nodes[id.conv].in[0] = id.prob;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'conv1'", "Conv", "'prob'",
                 "used before it is produced");
    g->nodes[id.conv].in[0] = id.x;
    assert_null(em_graph_verify(g));

    /* A value that no node produces, consumed by a new node. */
    const em_dim d[] = {{4, 0}};
    int orphan;
    assert_null(em_graph_add_value(g, "orphan", EMBER_DTYPE_F32, 1, d, &orphan));
    const char *const o[] = {"o"};
    assert_null(em_graph_add_node(g, EM_OP_RELU, "reads_orphan", &orphan, 1, o, 1, NULL));
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'reads_orphan'", "'orphan'",
                 "used before it is produced");
    em_graph_destroy(g);
}

static void test_verify_input_out_of_range_corrupted(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    g->nodes[id.fc].in[1] = g->n_values + 3;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'fc'", "Gemm", "input 1",
                 "out of range");
    g->nodes[id.fc].in[1] = -5;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'fc'", "input 1");
    em_graph_destroy(g);
}

static void test_verify_produced_twice(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    /* relu1 claims to write the graph input 'x', which is defined before any node runs. */
    int saved = g->nodes[id.relu].out[0];
    g->nodes[id.relu].out[0] = id.x;
    g->values[id.x].producer = id.relu;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'relu1'", "Relu", "'x'",
                 "produced twice");
    g->values[id.x].producer = -1;
    g->nodes[id.relu].out[0] = saved;

    /* ... and the initializer 'w'. */
    g->nodes[id.relu].out[0] = id.w;
    g->values[id.w].producer = id.relu;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'relu1'", "'w'", "produced twice");
    g->values[id.w].producer = -1;
    g->nodes[id.relu].out[0] = saved;

    /* Two nodes writing one value: the second one is named. */
    g->nodes[id.gap].out[0] = id.r;
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'gap'", "GlobalAveragePool");
    g->nodes[id.gap].out[0] = id.pooled;
    assert_null(em_graph_verify(g));
    em_graph_destroy(g);
}

static void test_verify_output_never_produced(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    const em_dim d[] = {{2, 0}};
    int ghost;
    assert_null(em_graph_add_value(g, "ghost", EMBER_DTYPE_F32, 1, d, &ghost));
    assert_null(em_graph_mark_output(g, ghost));
    /* Graph output 1 is 'ghost': the message names the output, by position and by name. */
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "never produced", "1", "ghost");
    em_graph_destroy(g);
}

static void test_verify_required_input_missing(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    const int in[] = {id.x, -1, id.b};
    const char *const o[] = {"c_out"};
    assert_null(em_graph_add_node(g, EM_OP_CONV, "conv_missing_w", in, 3, o, 1, NULL));
    EXPECT_ERROR(em_graph_verify(g), EMBER_ERR_INVALID_MODEL, "'conv_missing_w'", "Conv",
                 "required input 1", "missing");
    em_graph_destroy(g);

    /* An absent optional input is fine, and prints as "_". */
    g = new_small(&id);
    const int opt[] = {id.x, id.w, -1};
    const char *const o2[] = {"nobias"};
    assert_null(em_graph_add_node(g, EM_OP_CONV, "conv_nobias", opt, 3, o2, 1, NULL));
    const int gin[] = {id.flat, id.w2, -1};
    const char *const o3[] = {"noc"};
    assert_null(em_graph_add_node(g, EM_OP_GEMM, "gemm_noc", gin, 3, o3, 1, NULL));
    assert_null(em_graph_verify(g));
    char *text = NULL;
    assert_null(em_graph_to_text(g, &text));
    assert_non_null(strstr(text, "Conv(%x, %w, _)"));
    assert_non_null(strstr(text, "Gemm(%flat, %w2, _)"));
    ember_string_free(text);
    em_graph_destroy(g);
}

/* ---- the printer ------------------------------------------------------------------------ */

/* The line of `text` containing `key`, copied into buf ("" when absent). */
static const char *line_with(const char *text, const char *key, char *buf, size_t cap)
{
    const char *k = strstr(text, key);
    buf[0] = '\0';
    if (k == NULL) {
        return buf;
    }
    const char *b = k;
    while (b > text && b[-1] != '\n') {
        b--;
    }
    const char *e = strchr(k, '\n');
    size_t n = e != NULL ? (size_t)(e - b) : strlen(b);
    if (n >= cap) {
        n = cap - 1;
    }
    memcpy(buf, b, n);
    buf[n] = '\0';
    return buf;
}

static void assert_line_has(const char *line, const char *what)
{
    if (strstr(line, what) == NULL) {
        fail_msg("line \"%s\" lacks \"%s\"", line, what);
    }
}

static void test_to_text(void **state)
{
    (void)state;
    small_ids id;
    em_graph *g = new_small(&id);
    assert_null(em_graph_infer_shapes(g));
    char *text = NULL;
    assert_null(em_graph_to_text(g, &text));
    assert_non_null(text);
    char line[512];

    /* Header: the inputs with symbolic dims by name. */
    line_with(text, "graph(", line, sizeof line);
    assert_line_has(line, "%x: f32[N,8,28,28]");
    /* Constants. */
    line_with(text, "const %w:", line, sizeof line);
    assert_line_has(line, "f32[16,8,3,3]");
    line_with(text, "const %b:", line, sizeof line);
    assert_line_has(line, "f32[16]");
    line_with(text, "const %w2:", line, sizeof line);
    assert_line_has(line, "f32[10,16]");
    /* One line per node: outputs with inferred shapes, op, inputs, attributes, name.
     * Conv pads 1, 3x3, stride 1 keeps 28x28; the pool makes 1x1; Flatten(axis 1) gives
     * [N, 16*1*1]; Gemm with transB gives [N, 10]. */
    line_with(text, "= Conv(", line, sizeof line);
    assert_line_has(line, "%y: f32[N,16,28,28]");
    assert_line_has(line, "Conv(%x, %w, %b)");
    assert_line_has(line, "pads=[1,1,1,1]");
    assert_line_has(line, "strides=[1,1]");
    assert_line_has(line, "group=1");
    assert_line_has(line, "auto_pad=\"NOTSET\"");
    assert_line_has(line, "conv1");
    line_with(text, "= Relu(", line, sizeof line);
    assert_line_has(line, "%r: f32[N,16,28,28]");
    assert_line_has(line, "Relu(%y)");
    assert_line_has(line, "scales=[0.5,2]");
    assert_line_has(line, "relu1");
    line_with(text, "= GlobalAveragePool(", line, sizeof line);
    assert_line_has(line, "%pooled: f32[N,16,1,1]");
    line_with(text, "= Flatten(", line, sizeof line);
    assert_line_has(line, "%flat: f32[N,16]");
    assert_line_has(line, "axis=1");
    line_with(text, "= Gemm(", line, sizeof line);
    assert_line_has(line, "%logits: f32[N,10]");
    assert_line_has(line, "Gemm(%flat, %w2, %b2)");
    assert_line_has(line, "transB=1");
    assert_line_has(line, "alpha=0.5");
    assert_line_has(line, "fc");
    line_with(text, "= Softmax(", line, sizeof line);
    assert_line_has(line, "%prob: f32[N,10]");
    assert_line_has(line, "axis=-1");
    line_with(text, "return", line, sizeof line);
    assert_line_has(line, "%prob");
    /* Exactly one " = " line per node. */
    int n_eq = 0;
    for (const char *p = text; (p = strstr(p, " = ")) != NULL; p += 3) {
        n_eq++;
    }
    assert_int_equal(n_eq, g->n_nodes);
    ember_string_free(text);
    em_graph_destroy(g);
}

/* ---- failure injection ---------------------------------------------------------------------- */

static ember_status *build_all(const ember_allocator *al, em_graph **out)
{
    ember_status *st = NULL;
    small_ids id;
    *out = NULL;
    EMBER_TRY(em_graph_new(al, out));
    EMBER_TRY(build_small(*out, &id));
    EMBER_TRY(em_graph_verify(*out));
    return NULL;
fail:
    return st;
}

static void test_oom_sweep(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    em_graph *g = NULL;
    assert_null(build_all(&ca.al, &g));
    long n_allocs = ca.n_alloc;
    assert_true(n_allocs > 20);
    em_graph_destroy(g);
    assert_int_equal(ca.live, 0);

    for (long i = 1; i <= n_allocs; i++) {
        counting_alloc_init(&ca);
        ca.fail_at = i;
        ember_status *st = build_all(&ca.al, &g);
        if (ember_status_code(st) != EMBER_ERR_OUT_OF_MEMORY) {
            fail_msg("failing allocation %ld of %ld: got %s (%s)", i, n_allocs,
                     ember_code_name(ember_status_code(st)), ember_status_message(st));
        }
        ember_status_destroy(st);
        em_graph_destroy(g);
        if (ca.live != 0) {
            fail_msg("failing allocation %ld of %ld: %ld allocations leaked", i, n_allocs,
                     (long)ca.live);
        }
    }
    /* One past the last allocation: success again. */
    counting_alloc_init(&ca);
    ca.fail_at = n_allocs + 1;
    assert_null(build_all(&ca.al, &g));
    em_graph_destroy(g);
    assert_int_equal(ca.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_structure),
        cmocka_unit_test(test_param_count),
        cmocka_unit_test(test_attr_getters),
        cmocka_unit_test(test_inputs_symbols_initializers),
        cmocka_unit_test(test_add_node_arity),
        cmocka_unit_test(test_verify_arity_corrupted),
        cmocka_unit_test(test_verify_use_before_produce),
        cmocka_unit_test(test_verify_input_out_of_range_corrupted),
        cmocka_unit_test(test_verify_produced_twice),
        cmocka_unit_test(test_verify_output_never_produced),
        cmocka_unit_test(test_verify_required_input_missing),
        cmocka_unit_test(test_to_text),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
