/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The graph the TorchScript loader makes of statically quantized models
 * (tests/data/torchscript/quant, tools/gen_ts_quant_fixtures.py) is the QDQ form the int8
 * rewrite (runtime/passes/passes_qdq.c) takes: with em_passes_extra.int8 every quantized conv
 * of the fixtures becomes a QLinearConv (per-channel weights as DequantizeLinear of an int8
 * constant on axis 0, the float bias as an int32 constant dequantized with x_scale * w_scale,
 * conv2d_relu's Relu folded into the output zero point) and no chain is left with a reason.
 * Also the DequantizeLinear -> Conv -> QuantizeLinear structure before the rewrite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_data.h"
#include "common/test_ok.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "ir/loader.h"
#include "loaders/torchscript/ts.h"
#include "passes/passes.h"

static int count_op(const em_graph *g, em_op op)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        n += g->nodes[i].op == op;
    }
    return n;
}

/* The convolutions' names, and how many of them the rewrite left to fp32. */
typedef struct conv_notes {
    const em_graph *g;
    int left;
} conv_notes;

/* The rewrite's note: int8_op set for a rewritten chain, why for one left to fp32. Only the
 * convolutions count here (the linear layers' chains are not in the int8 form yet). */
static void note(void *ctx, const char *node, const char *int8_op, const char *why)
{
    conv_notes *t = ctx;
    if (int8_op != NULL) {
        return;
    }
    print_message("left to fp32: %s: %s\n", node, why);
    for (int i = 0; i < t->g->n_nodes; i++) {
        if (t->g->nodes[i].op == EM_OP_CONV && strcmp(t->g->nodes[i].name, node) == 0) {
            t->left++;
            return;
        }
    }
}

/* Loads <file>, checks its QDQ convs, rewrites with int8 and counts QLinearConv. */
static void check(const char *file, int convs)
{
    const char *path = test_data_path("torchscript/quant/", file);
    em_storage *image = NULL;
    em_graph *g = NULL;
    OK(em_storage_new_mmap(test_allocator(), path, &image));
    OK(em_graph_new(test_allocator(), &g));
    em_input_spec in = {EMBER_DTYPE_F32, 4};
    em_load_args a = {0};
    a.image = image;
    a.path = path;
    a.inputs = &in;
    a.n_inputs = 1;
    OK(em_ts_load(&a, g));
    assert_int_equal(count_op(g, EM_OP_CONV), convs);
    /* each Conv reads DequantizeLinear outputs only: x, w (an int8 constant) and an int32 bias */
    for (int i = 0; i < g->n_nodes; i++) {
        const em_node *n = &g->nodes[i];
        if (n->op != EM_OP_CONV) {
            continue;
        }
        for (int k = 0; k < n->n_in; k++) {
            int p = g->values[n->in[k]].producer;
            assert_true(p >= 0);
            assert_int_equal(g->nodes[p].op, EM_OP_DEQUANTIZELINEAR);
            const em_value *q = &g->values[g->nodes[p].in[0]];
            if (k == 1) {
                assert_int_equal(q->kind, EM_VAL_INITIALIZER);
                assert_int_equal(q->dtype, EMBER_DTYPE_I8);
            } else if (k == 2) {
                assert_int_equal(q->kind, EM_VAL_INITIALIZER);
                assert_int_equal(q->dtype, EMBER_DTYPE_I32);
            }
        }
    }
    conv_notes t = {g, 0};
    em_passes_options opt = em_passes_level(EMBER_GRAPH_OPT_ALL);
    em_passes_extra x = {true, note, &t};
    OK(em_passes_run_extra(g, &opt, &x));
    print_message("%s: %d QLinearConv, %d convs left\n", file, count_op(g, EM_OP_QLINEARCONV),
                  t.left);
    assert_int_equal(count_op(g, EM_OP_QLINEARCONV), convs);
    assert_int_equal(count_op(g, EM_OP_CONV), 0);
    assert_int_equal(t.left, 0);
    em_graph_destroy(g);
    em_storage_release(image);
}

static void test_static(void **state)
{
    (void)state;
    static const char *const files[] = {
        "static_fbgemm.trace.t2.pt",  "static_fbgemm.script.t2.pt", "static_x86.script.t2.pt",
        "static_qnnpack.trace.t113.pt", "static_qnnpack.script.t113.pt",
        "static_qnnpack.script.t2.pt", "qat.trace.t113.pt",          "qat.script.t2.pt",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        check(files[i], 2);
    }
    check("fx.trace.t2.pt", 1);
    check("fx.script.t113.pt", 1);
    check("packed_conv.script.t113.pt", 1);
    check("packed_conv.v3.t2.pt", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
