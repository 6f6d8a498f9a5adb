/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conv + Gelu -> FusedConv with activation Gelu / GeluTanh (runtime/passes/passes_conv.c's
 * activation step, then the layout pass blocking the fused conv), on hand-built graphs of
 * x [1, 16, 9, 7]: a 3x3 conv + Gelu (erf), + Gelu (tanh), a 1x1 conv + BatchNormalization +
 * residual Add + Gelu, a depthwise conv + Gelu (ConvNeXt's channel-last blocks, whose 1x1
 * convs take their Gelu the same way, are test_passes_chlast.c's). And what must stay: a conv
 * output also read elsewhere, a conv output that is a graph output, a Gelu after a conv that
 * already took a Relu, a Gelu of an unknown `approximate`. Each optimised graph computes what the
 * original does, plain and blocked (8 and 16), with weights large enough that the conv
 * outputs reach Gelu's tails (|v| up to ~100).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include "ir/fusedconv.h"
#include "passes/passes.h"
#include "plan/fold.h"

#include <string.h>

static const int64_t xd[4] = {1, 16, 9, 7};

enum {
    V_GELU,
    V_GELU_TANH,
    V_BN_RESIDUAL,
    V_DEPTHWISE,
    /* negatives */
    V_READ_TWICE,
    V_CONV_OUTPUT,
    V_AFTER_RELU,
    V_BAD_MODE,
};

static int conv(em_graph *g, int x, int64_t m, int64_t cin, int64_t k, int64_t group, int seed)
{
    const int64_t wd[4] = {m, cin / group, k, k}, bd[1] = {m},
                  pads[4] = {k / 2, k / 2, k / 2, k / 2};
    char wn[32], bn[32], yn[32];
    snprintf(wn, sizeof wn, "w%d", seed);
    snprintf(bn, sizeof bn, "b%d", seed);
    snprintf(yn, sizeof yn, "conv%d", seed);
    const int in[3] = {x, tp_init_f32(g, wn, 4, wd, (uint64_t)seed, -2.0f, 2.0f),
                       tp_init_f32(g, bn, 1, bd, (uint64_t)seed + 100, -20.0f, 20.0f)};
    int y = tp_op(g, EM_OP_CONV, in, 3, yn);
    int ni = g->values[y].producer;
    OK(em_node_set_ints(g, ni, "pads", pads, 4));
    OK(em_node_set_int(g, ni, "group", group));
    return y;
}

static int gelu(em_graph *g, int x, const char *mode, const char *name)
{
    int y = tp_op2(g, EM_OP_GELU, x, -1, name);
    if (mode != NULL) {
        OK(em_node_set_string(g, g->values[y].producer, "approximate", mode));
    }
    return y;
}

static void build(em_graph *g, int x, int v)
{
    const int64_t cd[1] = {16};
    int y, extra = -1;
    switch (v) {
    case V_GELU:
    case V_READ_TWICE:
    case V_CONV_OUTPUT:
        y = gelu(g, conv(g, x, 16, 16, 3, 1, 1), NULL, "y");
        if (v == V_READ_TWICE) { /* the conv's output also read by a Neg */
            extra = tp_op2(g, EM_OP_NEG, g->nodes[g->values[y].producer].in[0], -1, "neg");
        } else if (v == V_CONV_OUTPUT) {
            extra = g->nodes[g->values[y].producer].in[0];
        }
        break;
    case V_GELU_TANH:
        y = gelu(g, conv(g, x, 24, 16, 3, 1, 2), "tanh", "y");
        break;
    case V_BN_RESIDUAL: {
        int c = conv(g, x, 16, 16, 1, 1, 3);
        const int bn_in[5] = {
            c, tp_init_f32(g, "s", 1, cd, 4, 0.5f, 2), tp_init_f32(g, "beta", 1, cd, 5, -1, 1),
            tp_init_f32(g, "mean", 1, cd, 6, -1, 1), tp_init_f32(g, "var", 1, cd, 7, 0.2f, 2)};
        int bn = tp_op(g, EM_OP_BATCHNORM, bn_in, 5, "bn");
        y = gelu(g, tp_op2(g, EM_OP_ADD, bn, x, "res"), NULL, "y");
        break;
    }
    case V_DEPTHWISE:
        y = gelu(g, conv(g, x, 16, 16, 3, 16, 8), NULL, "y");
        break;
    case V_AFTER_RELU:
        y = gelu(g, tp_op2(g, EM_OP_RELU, conv(g, x, 16, 16, 3, 1, 9), -1, "r"), NULL, "y");
        break;
    default: /* V_BAD_MODE */
        y = gelu(g, conv(g, x, 16, 16, 3, 1, 10), "cubic", "y");
        break;
    }
    OK(em_graph_mark_output(g, y));
    if (extra >= 0) {
        OK(em_graph_mark_output(g, extra));
    }
}

/* The activation of the one FusedConv of build(v)'s graph after the passes of o. */
static void expect_activation(int v, const em_passes_options *o, const char *want)
{
    ember_model *m = tp_build(build, v, 4, xd, NULL);
    OK(em_passes_run(m->g, o));
    int seen = 0;
    for (int ni = 0; ni < m->g->n_nodes; ni++) {
        const em_node *n = &m->g->nodes[ni];
        if (n->op == EM_OP_FUSEDCONV) {
            assert_string_equal(em_node_attr_string(n, "activation", ""), want);
            em_conv_epilogue e;
            assert_true(em_conv_epilogue_parse(n, &e));
            seen++;
        }
    }
    assert_int_equal(seen, 1);
    ember_model_destroy(m);
}

static void test_positives(void **state)
{
    (void)state;
    static const struct {
        int v;
        const char *act;
    } cases[] = {{V_GELU, "Gelu"},
                 {V_GELU_TANH, "GeluTanh"},
                 {V_BN_RESIDUAL, "Gelu"},
                 {V_DEPTHWISE, "Gelu"}};
    const tp_count want[] = {{EM_OP_GELU, 0},
                             {EM_OP_CONV, 0},
                             {EM_OP_FUSEDCONV, 1},
                             {EM_OP_BATCHNORM, 0},
                             {EM_OP_ADD, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int block = 0; block <= 16; block += 8) {
            em_passes_options o = {true, true, block > 0, block, em_plan_eval_const};
            tp_check_passes(build, cases[i].v, 4, xd, want, (int)(sizeof want / sizeof want[0]),
                            1e-3, 1e-4, &o);
            expect_activation(cases[i].v, &o, cases[i].act);
        }
    }
}

static void test_negatives(void **state)
{
    (void)state;
    static const int vs[] = {V_READ_TWICE, V_CONV_OUTPUT, V_AFTER_RELU, V_BAD_MODE};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        em_passes_options o = {true, true, false, 0, em_plan_eval_const};
        if (vs[i] == V_BAD_MODE) { /* the Gelu cannot run: only the pass's choice is checked */
            ember_model *m = tp_build(build, vs[i], 4, xd, NULL);
            OK(em_passes_run(m->g, &o));
            assert_int_equal(tp_count_op(m->g, EM_OP_GELU), 1);
            ember_model_destroy(m);
            continue;
        }
        /* the Gelu stays (with the layout pass, V_AFTER_RELU's on the conv's blocked output:
         * passes_layout_ops.c's blocked Gelu); the Relu of V_AFTER_RELU still fuses */
        const tp_count want[] = {{EM_OP_GELU, 1}};
        for (int block = 0; block <= 16; block += 8) {
            o.layout = block > 0;
            o.block = block;
            tp_check_passes(build, vs[i], 4, xd, want, 1, 1e-3, 1e-4, &o);
            if (vs[i] == V_AFTER_RELU) {
                expect_activation(vs[i], &o, "Relu");
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positives),
        cmocka_unit_test(test_negatives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
