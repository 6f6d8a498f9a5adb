/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The squeeze-and-excitation fusion (runtime/passes/passes_se.c) on small nets built here:
 * conv -> GlobalAveragePool -> 1x1 conv (act) -> 1x1 conv (gate) -> Mul(x, s) -> conv, run
 * through every pass (blocks of 8 and 16) and compared with the graph without passes.
 * Positives: Relu / Sigmoid with biases (efficientnet's form), SiLU as x * Sigmoid(x) and a
 * squeezed width under 8 (the second conv stays plain: efficientnet_b0's first blocks), Relu
 * / HardSigmoid without biases and Mul(s, x) (mobilenet_v3's), batch 2 with channels that
 * leave a partial block. Negatives, left as BlockedPool / FusedConv / BlockedAffine: the gate
 * also a graph output, the pooled value read by another node, a Relu after the Mul (taken by
 * the affine), GlobalMaxPool instead of the mean, a 3x3 padded first conv, and a Mul of the
 * gate with another value than the pooled one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include "passes/passes.h"
#include "plan/fold.h"

#include <math.h>
#include <string.h>

#define F32 EMBER_DTYPE_F32

static int rand_init(em_graph *g, int rank, const int64_t *dims, uint64_t seed, float lo, float hi)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= dims[i];
    }
    float *v = test_malloc(sizeof(float) * (size_t)n);
    test_rng r = {seed};
    test_rng_fill(&r, v, (size_t)n, lo, hi);
    char name[32];
    int idx;
    snprintf(name, sizeof name, "w%d", g->n_values);
    OK(em_graph_add_initializer_copy(g, name, F32, rank, dims, v, &idx));
    test_free(v);
    return idx;
}

/* A kxk conv (padding k / 2) from c_in to c_out channels, with a bias unless !bias. */
static int conv(em_graph *g, int x, int64_t c_in, int64_t c_out, int64_t k, bool bias,
                uint64_t seed)
{
    const int64_t wd[4] = {c_out, c_in, k, k}, bd[1] = {c_out};
    const int64_t pads[4] = {k / 2, k / 2, k / 2, k / 2};
    int w = rand_init(g, 4, wd, seed, -0.4f, 0.4f);
    int y = bias ? ag_op3(g, EM_OP_CONV, x, w, rand_init(g, 1, bd, seed + 1, -0.5f, 0.5f))
                 : ag_op2(g, EM_OP_CONV, x, w);
    ag_ints(g, y, "pads", pads, 4);
    return y;
}

typedef struct se_net {
    int64_t n, c, r;
    int act;      /* 0 Relu, 1 SiLU (x * Sigmoid(x)) */
    int gate;     /* 0 Sigmoid, 1 HardSigmoid */
    bool bias;    /* on the SE convs */
    bool swap;    /* Mul(s, x) */
    int negative; /* 0: none; 1 gate is an output, 2 pooled read twice, 3 Relu after the Mul,
                   * 4 GlobalMaxPool, 5 3x3 first conv, 6 Mul of s with another value */
} se_net;

static ember_model *build(const se_net *t)
{
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {t->n, 16, 9, 7};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    int c1 = ag_op1(g, EM_OP_RELU, conv(g, x, 16, t->c, 3, true, 10));
    int gap = ag_op1(g, t->negative == 4 ? EM_OP_GLOBALMAXPOOL : EM_OP_GLOBALAVERAGEPOOL, c1);
    int h = conv(g, gap, t->c, t->r, t->negative == 5 ? 3 : 1, t->bias, 20);
    h = t->act == 0 ? ag_op1(g, EM_OP_RELU, h) : ag_op2(g, EM_OP_MUL, h, ag_op1(g, EM_OP_SIGMOID, h));
    int s = conv(g, h, t->r, t->c, 1, t->bias, 30);
    s = ag_op1(g, t->gate == 0 ? EM_OP_SIGMOID : EM_OP_HARDSIGMOID, s);
    int other = t->negative == 6 ? ag_op1(g, EM_OP_RELU, conv(g, x, 16, t->c, 1, true, 35)) : c1;
    int y = t->swap ? ag_op2(g, EM_OP_MUL, s, other) : ag_op2(g, EM_OP_MUL, other, s);
    if (t->negative == 3) {
        y = ag_op1(g, EM_OP_RELU, y);
    }
    int out = conv(g, y, t->c, 8, 1, true, 40);
    OK(em_graph_mark_output(g, out));
    if (t->negative == 1) {
        OK(em_graph_mark_output(g, s));
    }
    if (t->negative == 2) {
        OK(em_graph_mark_output(g, ag_op1(g, EM_OP_SIGMOID, gap)));
    }
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return m;
}

static void check(const se_net *t, int block, int case_no)
{
    ember_model *plain = build(t), *opt = build(t);
    em_passes_options o = {true, true, true, block, em_plan_eval_const};
    OK(em_passes_run(opt->g, &o));
    const em_graph *g = opt->g;
    tp_debug_print(g);
    int n_se = tp_count_op(g, EM_OP_BLOCKEDSE);
    if (n_se != (t->negative == 0 ? 1 : 0)) {
        fail_msg("case %d block %d: %d BlockedSE", case_no, block, n_se);
    }
    if (t->negative == 0) { /* nothing of the block is left */
        assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDPOOL), 0);
        assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDAFFINE), 0);
        assert_int_equal(tp_count_op(g, EM_OP_FUSEDCONV), 2);
        assert_int_equal(tp_count_op(g, EM_OP_REORDERFROMBLOCKED), 1); /* the output */
    }
    int64_t xd[4] = {t->n, 16, 9, 7};
    int64_t nx = t->n * 16 * 9 * 7;
    float *x = test_malloc(sizeof(float) * (size_t)nx);
    test_rng r = {(uint64_t)(case_no * 10 + block)};
    test_rng_fill(&r, x, (size_t)nx, -1.0f, 1.0f);
    int n_out = t->negative == 1 || t->negative == 2 ? 2 : 1;
    ember_tensor *a[2], *b[2];
    tp_run(plain, 4, xd, x, a, n_out);
    tp_run(opt, 4, xd, x, b, n_out);
    for (int i = 0; i < n_out; i++) {
        const float *pa = ember_tensor_data(a[i]), *pb = ember_tensor_data(b[i]);
        assert_int_equal(ember_tensor_elem_count(a[i]), ember_tensor_elem_count(b[i]));
        for (int64_t k = 0; k < ember_tensor_elem_count(a[i]); k++) {
            if (fabs((double)pa[k] - (double)pb[k]) > 1e-5 + 1e-4 * fabs((double)pa[k])) {
                fail_msg("case %d block %d output %d [%lld]: %g vs %g", case_no, block, i,
                         (long long)k, (double)pb[k], (double)pa[k]);
            }
        }
        ember_tensor_destroy(a[i]);
        ember_tensor_destroy(b[i]);
    }
    test_free(x);
    ember_model_destroy(plain);
    ember_model_destroy(opt);
}

/* clang-format off */
static const se_net positives[] = {
    /* n  c   r   act gate bias  swap  neg */
    {1, 24, 8,  0,  0,   true,  false, 0},
    {1, 32, 4,  1,  0,   true,  false, 0},
    {1, 40, 10, 0,  1,   false, true,  0},
    {2, 20, 12, 1,  0,   true,  true,  0},
};
static const se_net negatives[] = {
    {1, 24, 8,  0,  0,   true,  false, 1},
    {1, 24, 8,  0,  0,   true,  false, 2},
    {1, 24, 8,  0,  0,   true,  false, 3},
    {1, 24, 8,  0,  0,   true,  false, 4},
    {1, 24, 8,  0,  0,   true,  false, 5},
    {1, 24, 8,  0,  0,   true,  false, 6},
};
/* clang-format on */

static void test_positives(void **state)
{
    (void)state;
    for (int i = 0; i < (int)(sizeof positives / sizeof positives[0]); i++) {
        check(&positives[i], 8, i);
        check(&positives[i], 16, i);
    }
}

static void test_negatives(void **state)
{
    (void)state;
    for (int i = 0; i < (int)(sizeof negatives / sizeof negatives[0]); i++) {
        check(&negatives[i], 8, 100 + i);
        check(&negatives[i], 16, 100 + i);
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
