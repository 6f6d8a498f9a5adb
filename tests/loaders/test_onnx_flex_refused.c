/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FlexAttention models the ONNX loader refuses (loaders/onnx/onnx_flex.c), built in memory
 * (onnx_flex_build.h): wrong input counts, ranks, dims, types; unknown or mistyped attributes
 * and softmax_precision values; modifiers of the wrong signature, defining a name twice or
 * returning an undefined name; an unknown element type without softmax_precision; the domain
 * and its version. Each message names the node. Then a load with GQA and an inlined score_mod
 * holding an If, under allocation failure injection.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "onnx_flex_build.h"

static void expect_refused(tb *b, Onnx__GraphProto *g, int64_t preview, ember_code code,
                           const char *part)
{
    ember_model *m = NULL;
    ember_status *st = tb_load(b, g, preview, NULL, &m);
    assert_null(m);
    if (st == NULL || ember_status_code(st) != code ||
        strstr(ember_status_message(st), part) == NULL) {
        fail_msg("expected '%s' (code %d), got: %s", part, (int)code,
                 st != NULL ? ember_status_message(st) : "success");
    }
    ember_status_destroy(st);
}

/* A model whose FlexAttention node `fa` has inputs of `elem` with the given dims. */
static void refused_dims(tb *b, int elem, const char *q, const char *k, const char *v,
                         const char *part)
{
    expect_refused(b, flex_graph(b, elem, q, k, v, tb_flex(b, "Q,K,V", "Y")), 1,
                   EMBER_ERR_INVALID_MODEL, part);
}

/* A modifier of one Identity node with the given inputs and outputs. */
static Onnx__GraphProto *mod_graph(tb *b, void **ins, void **outs)
{
    return tb_graph(b, LIST(tb_node(b, "Identity", "x", "y")), ins, outs, NONE);
}

static void refused_node(tb *b, Onnx__NodeProto *fa, const char *part)
{
    expect_refused(b, flex_graph(b, 1, "1,2,3,4", "1,2,5,4", "1,2,5,3", fa), 1,
                   EMBER_ERR_INVALID_MODEL, part);
}

static void test_refused_inputs(void **state)
{
    (void)state;
    tb b = {.n = 0};
    refused_dims(&b, 1, "2,3,4", "1,2,5,4", "1,2,5,3",
                 "node 'fa' (FlexAttention): input Q has rank 3, FlexAttention takes rank-4");
    refused_dims(&b, 1, "1,2,3,4", "1,2,5,4,1", "1,2,5,3", "input K has rank 5");
    refused_dims(&b, 6, "1,2,3,4", "1,2,5,4", "1,2,5,3",
                 "input Q is i32; Q, K and V must be of a float type");
    refused_dims(&b, 1, "1,3,3,4", "1,2,5,4", "1,2,5,3",
                 "Q's 3 heads are not a multiple of K's and V's 2");
    refused_dims(&b, 1, "1,2,3,4", "1,2,5,6", "1,2,5,3", "Q's head size 4 differs from K's 6");
    refused_dims(&b, 1, "1,2,3,4", "1,2,5,4", "1,1,5,3", "K has 2 heads, V 1");
    refused_dims(&b, 1, "1,2,3,4", "1,2,5,4", "1,2,6,3", "K has 5 positions");
    refused_dims(&b, 1, "2,2,3,4", "1,2,5,4", "1,2,5,3", "batch sizes differ: Q 2, K 1, V 1");
    Onnx__GraphProto *g =
        tb_graph(&b, LIST(tb_flex(&b, "Q,K,V", "Y")),
                 tb_vis(&b, "Q:1:1,2,3,4 K:10:1,2,5,4 V:1:1,2,5,3"), tb_vis(&b, "Y:1"), NONE);
    expect_refused(&b, g, 1, EMBER_ERR_INVALID_MODEL, "Q, K and V must have one element type");
    refused_node(&b, tb_flex(&b, "Q,K", "Y"), "needs the three inputs Q, K and V");
    refused_node(&b, tb_flex(&b, "Q,K,V,Q", "Y"), "needs the three inputs Q, K and V");
    refused_node(&b, tb_flex(&b, "Q,K,V", "Y,Z"), "has 2 outputs, FlexAttention has one");
    /* the softmax precision is needed at load */
    expect_refused(&b, loop_graph(&b, false), 1, EMBER_ERR_UNSUPPORTED,
                   "the element type of Q, K and V is not known at load");
    tb_free(&b);
}

static void test_refused_attributes(void **state)
{
    (void)state;
    tb b = {.n = 0};
    static const struct {
        const char *name;
        bool is_int;
        const char *part;
    } attrs[] = {
        {"temperature", false, "unknown attribute 'temperature'"},
        {"scale", true, "attribute 'scale' must be a float"},
        {"softmax_precision", false, "attribute 'softmax_precision' must be an int"},
        {"softmax_precision", true, "softmax_precision 7 is not 1 (float)"},
        {"score_mod", false, "attribute 'score_mod' must be a graph"},
    };
    Onnx__NodeProto *fa;
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        fa = tb_flex(&b, "Q,K,V", "Y");
        if (attrs[i].is_int) {
            tb_attr_i(&b, fa, attrs[i].name, 7);
        } else {
            tb_attr_f(&b, fa, attrs[i].name, 1.0f);
        }
        refused_node(&b, fa, attrs[i].part);
    }
    struct {
        const char *attr;
        Onnx__GraphProto *g;
        const char *part;
    } mods[] = {
        {"score_mod", mod_graph(&b, tb_vis(&b, "x:1 z:1"), tb_vis(&b, "y:1")),
         "score_mod has 2 inputs and 1 outputs; it must map one tensor (the scores) to one"},
        {"prob_mod", mod_graph(&b, tb_vis(&b, "x:1"), NONE), "prob_mod has 1 inputs and 0 outputs"},
        {"score_mod", mod_graph(&b, tb_vis(&b, "x:10"), tb_vis(&b, "y:1")),
         "the input of score_mod is "},
        {"prob_mod", mod_graph(&b, tb_vis(&b, "x:1"), tb_vis(&b, "y:11")),
         "the output of prob_mod is "},
        {"score_mod", mod_graph(&b, tb_vis(&b, "x:1:2,3,4"), tb_vis(&b, "y:1")),
         "the input of score_mod has rank 3"},
        {"prob_mod", mod_graph(&b, tb_vis(&b, "x:1"), tb_vis(&b, "y:1:1")),
         "the output of prob_mod has rank 1"},
        {"score_mod", mod_graph(&b, tb_vis(&b, "x:1"), tb_vis(&b, ":1")),
         "the output of score_mod has no name"},
        {"score_mod", mod_graph(&b, tb_vis(&b, "x:1"), tb_vis(&b, "nope:1")),
         "the output 'nope' of score_mod is not defined"},
        {"score_mod",
         tb_graph(&b, LIST(tb_node(&b, "Identity", "x", "y"), tb_node(&b, "Neg", "x", "y")),
                  tb_vis(&b, "x:1"), tb_vis(&b, "y:1"), NONE),
         "score_mod defines 'y' twice"},
    };
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
        fa = tb_flex(&b, "Q,K,V", "Y");
        tb_attr_g(&b, fa, mods[i].attr, mods[i].g);
        refused_node(&b, fa, mods[i].part);
    }
    tb_free(&b);
}

static void test_refused_domains(void **state)
{
    (void)state;
    tb b = {.n = 0};
    Onnx__GraphProto *g =
        flex_graph(&b, 1, "1,2,3,4", "1,2,5,4", "1,2,5,3", tb_flex(&b, "Q,K,V", "Y"));
    expect_refused(&b, g, 2, EMBER_ERR_UNSUPPORTED,
                   "opset 2 of domain 'ai.onnx.preview' is not supported (1 is)");
    Onnx__NodeProto *fa = tb_flex(&b, "Q,K,V", "Y");
    fa->domain = NULL;
    expect_refused(&b, flex_graph(&b, 1, "1,2,3,4", "1,2,5,4", "1,2,5,3", fa), 1,
                   EMBER_ERR_UNSUPPORTED, "unsupported operator: node 'fa' (FlexAttention)");
    /* ops of the modifiers are checked with the model's */
    fa = tb_flex(&b, "Q,K,V", "Y");
    tb_attr_g(&b, fa, "score_mod",
              tb_graph(&b, LIST(tb_node(&b, "NoSuchOp", "x", "y")), tb_vis(&b, "x:1"),
                       tb_vis(&b, "y:1"), NONE));
    expect_refused(&b, flex_graph(&b, 1, "1,2,3,4", "1,2,5,4", "1,2,5,3", fa), 1,
                   EMBER_ERR_UNSUPPORTED, "unsupported operator: node #0 (NoSuchOp)");
    tb_free(&b);
}

/* Fails allocation i = 1, 2, ... of a load with GQA and an inlined score_mod holding an If:
 * each gives a clean status and frees all. */
static void test_alloc_failures(void **state)
{
    (void)state;
    tb b = {.n = 0};
    Onnx__GraphProto *then_g =
        tb_graph(&b, LIST(tb_node(&b, "Add", "x,c", "t")), NONE, tb_vis(&b, "t"), NONE);
    Onnx__GraphProto *else_g = tb_graph(&b, NONE, NONE, tb_vis(&b, "x"), NONE);
    Onnx__NodeProto *iff = tb_node(&b, "If", "flag", "out");
    tb_attr_g(&b, iff, "then_branch", then_g);
    tb_attr_g(&b, iff, "else_branch", else_g);
    Onnx__NodeProto *fa = tb_flex(&b, "Q,K,V", "Y");
    tb_attr_g(&b, fa, "score_mod",
              tb_graph(&b, LIST(iff), tb_vis(&b, "x:1"), tb_vis(&b, "out:1"),
                       LIST(tb_scalar(&b, "c", 1, 0.5))));
    Onnx__GraphProto *g =
        tb_graph(&b, LIST(fa), tb_vis(&b, "Q:1:1,4,3,4 K:1:1,2,5,4 V:1:1,2,5,3 flag:9:"),
                 tb_vis(&b, "Y:1"), NONE);
    for (long i = 1;; i++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = i;
        ember_model *m = NULL;
        ember_status *st = tb_load(&b, g, 1, &ca.al, &m);
        if (st == NULL) {
            ember_model_destroy(m);
            assert_int_equal(atomic_load(&ca.live), 0);
            assert_true(i > 20);
            break;
        }
        assert_null(m);
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        ember_status_destroy(st);
        if (atomic_load(&ca.live) != 0) {
            fail_msg("allocation %ld failed, %ld allocations leaked", i,
                     (long)atomic_load(&ca.live));
        }
    }
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_inputs),
        cmocka_unit_test(test_refused_attributes),
        cmocka_unit_test(test_refused_domains),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
