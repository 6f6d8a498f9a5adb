/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layout pass through the ops between convs (runtime/passes/passes_layout_ops.c), on three small
 * nets built here, with blocks of 16 and 8 and channel counts that leave partial blocks:
 *  - conv -> MaxPool (ceil_mode) -> conv -> AveragePool (pads, count_include_pad);
 *  - densenet's pattern: conv -> MaxPool -> BN -> Relu -> conv, Concat of the pool and that
 *    conv -> BN -> Relu -> conv -> AveragePool, then Add of a per-channel constant + Sigmoid,
 *    GlobalAveragePool and a standalone Sigmoid;
 *  - efficientnet's squeeze-excite: conv -> GlobalAveragePool -> conv (Relu) -> conv
 *    (Sigmoid) -> Mul(x, s) -> conv, and Mul by a plain [1, C, 1, 1] constant, then
 *    GlobalMaxPool (the squeeze-excite ends as one BlockedSE: test_passes_se.c).
 * Grouped convs whose groups are narrower than a block, blocked by merging a few of them.
 * And at batch 1 a densenet block and a squeezenet fire, whose Concats the planner does in
 * place, plain and blocked, against a batch-2 run where they copy.
 * After the pass only the input's ReorderToBlocked and the outputs' ReorderFromBlocked are
 * left (nothing reorders in the middle, no plain pool, BN, activation, Mul or Add), and the
 * outputs equal those of the graph without passes (both run by sessions).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include "passes/passes.h"
#include "plan/fold.h"
#include "plan/planner.h"

#include <math.h>
#include <string.h>

#define F32 EMBER_DTYPE_F32

/* An f32 initializer of random values in [lo, hi). */
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

/* A kxk conv from c_in to c_out channels, padding k / 2, with a bias. */
static int conv(em_graph *g, int x, int64_t c_in, int64_t c_out, int64_t k, uint64_t seed)
{
    const int64_t wd[4] = {c_out, c_in, k, k}, bd[1] = {c_out};
    const int64_t pads[4] = {k / 2, k / 2, k / 2, k / 2};
    int y = ag_op3(g, EM_OP_CONV, x, rand_init(g, 4, wd, seed, -0.3f, 0.3f),
                   rand_init(g, 1, bd, seed + 1, -0.5f, 0.5f));
    ag_ints(g, y, "pads", pads, 4);
    return y;
}

static int pool(em_graph *g, em_op op, int x, int64_t k, int64_t s, int64_t pad, int ceil)
{
    const int64_t ks[2] = {k, k}, st[2] = {s, s}, pads[4] = {pad, pad, pad, pad};
    int y = ag_op1(g, op, x);
    ag_ints(g, y, "kernel_shape", ks, 2);
    ag_ints(g, y, "strides", st, 2);
    ag_ints(g, y, "pads", pads, 4);
    ag_int(g, y, "ceil_mode", ceil);
    return y;
}

static int bn(em_graph *g, int x, int64_t c, uint64_t seed)
{
    const int64_t d[1] = {c};
    const int in[5] = {x, rand_init(g, 1, d, seed, 0.5f, 1.5f), rand_init(g, 1, d, seed + 1, -1, 1),
                       rand_init(g, 1, d, seed + 2, -1, 1), rand_init(g, 1, d, seed + 3, 0.3f, 2)};
    return ag_node(g, EM_OP_BATCHNORM, in, 5);
}

/* conv -> MaxPool -> conv -> AveragePool -> Clip (its constant bounds kept by BlockedAffine) */
static int net_pools(em_graph *g, int x)
{
    int c1 = ag_op1(g, EM_OP_RELU, conv(g, x, 16, 24, 3, 1));
    int p1 = pool(g, EM_OP_MAXPOOL, c1, 3, 2, 0, 1);
    int c2 = conv(g, p1, 24, 20, 1, 3);
    int y = pool(g, EM_OP_AVERAGEPOOL, c2, 2, 2, 1, 0);
    ag_int(g, y, "count_include_pad", 1);
    const int clip_in[3] = {y, rand_init(g, 0, NULL, 4, -0.2f, -0.1f),
                            rand_init(g, 0, NULL, 5, 0.1f, 0.2f)};
    return ag_node(g, EM_OP_CLIP, clip_in, 3);
}

/* densenet: Concat -> BN -> Relu -> conv */
static int net_dense(em_graph *g, int x, int64_t grow)
{
    int c0 = conv(g, x, 16, 32, 3, 10);
    int p0 = pool(g, EM_OP_MAXPOOL, c0, 3, 2, 1, 0);
    int l1 = conv(g, ag_op1(g, EM_OP_RELU, bn(g, p0, 32, 20)), 32, grow, 3, 30);
    int cat = ag_op2(g, EM_OP_CONCAT, p0, l1);
    ag_int(g, cat, "axis", 1);
    int l2 = conv(g, ag_op1(g, EM_OP_RELU, bn(g, cat, 32 + grow, 40)), 32 + grow, 24, 1, 50);
    int p2 = pool(g, EM_OP_AVERAGEPOOL, l2, 2, 2, 0, 0);
    const int64_t kd[4] = {1, 24, 1, 1};
    int a = ag_op2(g, EM_OP_ADD, rand_init(g, 4, kd, 60, -1, 1), p2);
    int gap = ag_op1(g, EM_OP_GLOBALAVERAGEPOOL, ag_op1(g, EM_OP_SIGMOID, a));
    return ag_op1(g, EM_OP_SIGMOID, gap);
}

/* efficientnet's squeeze-excite block */
static int net_se(em_graph *g, int x)
{
    int c1 = ag_op1(g, EM_OP_RELU, conv(g, x, 16, 24, 3, 70));
    int gap = ag_op1(g, EM_OP_GLOBALAVERAGEPOOL, c1);
    int s1 = ag_op1(g, EM_OP_RELU, conv(g, gap, 24, 8, 1, 80));
    int s2 = ag_op1(g, EM_OP_SIGMOID, conv(g, s1, 8, 24, 1, 90));
    int m = ag_op2(g, EM_OP_MUL, c1, s2);
    int c2 = conv(g, m, 24, 40, 1, 100);
    const int64_t kd[3] = {40, 1, 1};
    int m2 = ag_op2(g, EM_OP_MUL, c2, rand_init(g, 3, kd, 110, 0.5f, 1.5f));
    return ag_op1(g, EM_OP_GLOBALMAXPOOL, m2);
}

static ember_model *build(int which)
{
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {2, 16, 13, 11};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    int y = which == 0 ? net_pools(g, x) : which == 1 ? net_dense(g, x, 16) : net_se(g, x);
    OK(em_graph_mark_output(g, y));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return m;
}

static void check(int which, int block)
{
    ember_model *plain = build(which), *opt = build(which);
    em_passes_options o = {true, true, true, block, em_plan_eval_const};
    OK(em_passes_run(opt->g, &o));
    const em_graph *g = opt->g;
    tp_debug_print(g);
    static const em_op gone[] = {EM_OP_MAXPOOL,       EM_OP_AVERAGEPOOL, EM_OP_GLOBALAVERAGEPOOL,
                                 EM_OP_GLOBALMAXPOOL, EM_OP_BATCHNORM,   EM_OP_RELU,
                                 EM_OP_SIGMOID,       EM_OP_MUL,         EM_OP_ADD,
                                 EM_OP_CONV,          EM_OP_CLIP};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        if (tp_count_op(g, gone[i]) != 0) {
            fail_msg("net %d block %d: %s left", which, block, em_op_name(gone[i]));
        }
    }
    assert_int_equal(tp_count_op(g, EM_OP_REORDERTOBLOCKED), 1);   /* the input */
    assert_int_equal(tp_count_op(g, EM_OP_REORDERFROMBLOCKED), 1); /* the output */
    assert_int_equal(g->nodes[g->n_nodes - 1].op, EM_OP_REORDERFROMBLOCKED);
    /* net 2's squeeze-excite is one BlockedSE (passes_se.c) */
    assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDPOOL), which == 1 ? 3 : which == 2 ? 1 : 2);
    assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDAFFINE), which == 0 ? 1 : which == 1 ? 4 : 1);
    assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDSE), which == 2 ? 1 : 0);
    for (int ni = 0; ni < g->n_nodes; ni++) {
        if (g->nodes[ni].op == EM_OP_CONCAT) {
            assert_int_equal(g->values[g->nodes[ni].out[0]].rank, 5);
        }
    }
    float x[2 * 16 * 13 * 11];
    test_rng r = {which * 100 + (uint64_t)block};
    test_rng_fill(&r, x, sizeof x / sizeof x[0], -1.0f, 1.0f);
    const int64_t xd[4] = {2, 16, 13, 11};
    ember_tensor *a, *b;
    tp_run(plain, 4, xd, x, &a, 1);
    tp_run(opt, 4, xd, x, &b, 1);
    const float *pa = ember_tensor_data(a), *pb = ember_tensor_data(b);
    assert_int_equal(ember_tensor_elem_count(a), ember_tensor_elem_count(b));
    for (int64_t k = 0; k < ember_tensor_elem_count(a); k++) {
        if (fabs((double)pa[k] - (double)pb[k]) > 1e-5 + 1e-4 * fabs((double)pa[k])) {
            fail_msg("net %d block %d: [%lld]: %g vs %g", which, block, (long long)k, (double)pb[k],
                     (double)pa[k]);
        }
    }
    ember_tensor_destroy(a);
    ember_tensor_destroy(b);
    ember_model_destroy(plain);
    ember_model_destroy(opt);
}

static void test_pools(void **state)
{
    (void)state;
    check(0, 16);
    check(0, 8);
}

static void test_dense(void **state)
{
    (void)state;
    check(1, 16);
    check(1, 8);
}

static void test_se(void **state)
{
    (void)state;
    check(2, 16);
    check(2, 8);
}

/* A Concat of a part that is not whole blocks stays plain; BN in training mode, MaxPool with
 * Indices and a Mul of two full-size values are not blocked either. */
static void test_not_blocked(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {1, 16, 8, 8};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    int c1 = conv(g, x, 16, 16, 3, 1), c2 = conv(g, x, 16, 12, 3, 2);
    int cat = ag_op2(g, EM_OP_CONCAT, c1, c2);
    ag_int(g, cat, "axis", 1);
    int t = bn(g, c1, 16, 3);
    ag_int(g, t, "training_mode", 1);
    int mp;
    const char *outs[2] = {"mp", "idx"};
    const int64_t ks[2] = {2, 2};
    int ni;
    OK(em_graph_add_node(g, EM_OP_MAXPOOL, "mp", &c1, 1, outs, 2, &ni));
    OK(em_node_set_ints(g, ni, "kernel_shape", ks, 2));
    mp = g->nodes[ni].out[0];
    int sq = ag_op2(g, EM_OP_MUL, c1, c1);
    OK(em_graph_mark_output(g, cat));
    OK(em_graph_mark_output(g, t));
    OK(em_graph_mark_output(g, mp));
    OK(em_graph_mark_output(g, g->nodes[ni].out[1]));
    OK(em_graph_mark_output(g, sq));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    em_passes_options o = {true, true, true, 16, em_plan_eval_const};
    OK(em_passes_run(g, &o));
    assert_int_equal(tp_count_op(g, EM_OP_FUSEDCONV), 2);
    assert_int_equal(tp_count_op(g, EM_OP_BATCHNORM), 1);
    assert_int_equal(tp_count_op(g, EM_OP_MAXPOOL), 1);
    assert_int_equal(tp_count_op(g, EM_OP_MUL), 1);
    assert_int_equal(tp_count_op(g, EM_OP_BLOCKEDPOOL) + tp_count_op(g, EM_OP_BLOCKEDAFFINE), 0);
    for (int k = 0; k < g->n_nodes; k++) {
        if (g->nodes[k].op == EM_OP_CONCAT) {
            assert_int_equal(g->values[g->nodes[k].out[0]].rank, 4);
        }
    }
    ember_model_destroy(m);
}

/* A grouped kxk conv (stride s) from c_in to c_out channels in `group` groups, with a bias. */
static int gconv(em_graph *g, int x, int64_t c_in, int64_t c_out, int64_t group, int64_t s,
                 uint64_t seed)
{
    const int64_t wd[4] = {c_out, c_in / group, 3, 3}, bd[1] = {c_out};
    const int64_t pads[4] = {1, 1, 1, 1}, st[2] = {s, s};
    int y = ag_op3(g, EM_OP_CONV, x, rand_init(g, 4, wd, seed, -0.3f, 0.3f),
                   rand_init(g, 1, bd, seed + 1, -0.5f, 0.5f));
    ag_ints(g, y, "pads", pads, 4);
    ag_ints(g, y, "strides", st, 2);
    ag_int(g, y, "group", group);
    return y;
}

/* Groups narrower than a block (resnext50_32x4d's 4 channels) are blocked when a few merged
 * groups make whole blocks (ir/fusedconv.h): 4 -> 4 channels a group, 8 -> 12 with stride 2;
 * 3 channels a group would need 8 (or 16) merged and stays plain. Outputs equal the
 * unoptimised graph's at blocks 8 and 16 (oneDNN runs the merged convs when it is built in). */
static ember_model *build_grouped(bool passes, int block)
{
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {1, 16, 13, 11};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    int c1 = ag_op1(g, EM_OP_RELU, conv(g, x, 16, 32, 3, 400));
    int c2 = ag_op1(g, EM_OP_RELU, gconv(g, c1, 32, 32, 8, 1, 410));
    int c3 = ag_op1(g, EM_OP_RELU, gconv(g, c2, 32, 48, 4, 2, 420));
    int c4 = gconv(g, c3, 48, 48, 16, 1, 430);
    OK(em_graph_mark_output(g, conv(g, c4, 48, 16, 1, 440)));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    if (passes) {
        em_passes_options o = {true, true, true, block, em_plan_eval_const};
        OK(em_passes_run(g, &o));
    }
    return m;
}

static void test_grouped(void **state)
{
    (void)state;
    float x[16 * 13 * 11];
    test_rng r = {777};
    test_rng_fill(&r, x, sizeof x / sizeof x[0], -1.0f, 1.0f);
    const int64_t xd[4] = {1, 16, 13, 11};
    ember_model *plain = build_grouped(false, 0);
    ember_tensor *want;
    tp_run(plain, 4, xd, x, &want, 1);
    for (int block = 8; block <= 16; block += 8) {
        ember_model *opt = build_grouped(true, block);
        const em_graph *g = opt->g;
        tp_debug_print(g);
        int n_blocked = 0, n_plain = 0;
        for (int ni = 0; ni < g->n_nodes; ni++) {
            if (g->nodes[ni].op == EM_OP_FUSEDCONV || g->nodes[ni].op == EM_OP_CONV) {
                bool b = em_node_attr_int(&g->nodes[ni], "blocked", 0) == block;
                n_blocked += b;
                n_plain += !b;
                /* the plain one is the 3-channel-group conv */
                assert_true(b || em_node_attr_int(&g->nodes[ni], "group", 1) == 16);
            }
        }
        assert_int_equal(n_blocked, 4);
        assert_int_equal(n_plain, 1);
        /* around the plain conv only */
        assert_int_equal(tp_count_op(g, EM_OP_REORDERFROMBLOCKED), 2);
        assert_int_equal(tp_count_op(g, EM_OP_REORDERTOBLOCKED), 2);
        ember_tensor *got;
        tp_run(opt, 4, xd, x, &got, 1);
        const float *pa = ember_tensor_data(want), *pb = ember_tensor_data(got);
        assert_int_equal(ember_tensor_elem_count(want), ember_tensor_elem_count(got));
        for (int64_t k = 0; k < ember_tensor_elem_count(want); k++) {
            if (fabs((double)pa[k] - (double)pb[k]) > 1e-5 + 1e-4 * fabs((double)pa[k])) {
                fail_msg("block %d: [%lld]: %g vs %g", block, (long long)k, (double)pb[k],
                         (double)pa[k]);
            }
        }
        ember_tensor_destroy(got);
        ember_model_destroy(opt);
    }
    ember_tensor_destroy(want);
    ember_model_destroy(plain);
}

/* At batch 1, a densenet block (each Concat takes the previous one's inputs plus a new
 * feature) and a squeezenet fire (Concat of two convs of one input) are done in place: the
 * producers write into the Concat's buffer (planner.h), both in the plain layout and on the
 * blocked twins. Both batch-1 runs must equal each half of a batch-2 run of the same input
 * twice, where the Concats copy. */
static int net_dense_block(em_graph *g, int x)
{
    int f[4];
    f[0] = ag_op1(g, EM_OP_RELU, conv(g, x, 16, 16, 3, 200));
    int in = f[0];
    for (int i = 1; i < 4; i++) {
        int64_t c = 16 * i;
        f[i] = conv(g, ag_op1(g, EM_OP_RELU, bn(g, in, c, 210 + 10 * (uint64_t)i)), c, 16,
                    i == 3 ? 1 : 3, 250 + 10 * (uint64_t)i);
        in = ag_node(g, EM_OP_CONCAT, f, i + 1);
        ag_int(g, in, "axis", 1);
    }
    int sq = ag_op1(g, EM_OP_RELU, conv(g, in, 64, 16, 1, 300));
    const int e[2] = {ag_op1(g, EM_OP_RELU, conv(g, sq, 16, 16, 1, 310)),
                      ag_op1(g, EM_OP_RELU, conv(g, sq, 16, 16, 3, 320))};
    int fire = ag_node(g, EM_OP_CONCAT, e, 2);
    ag_int(g, fire, "axis", 1);
    return ag_op1(g, EM_OP_GLOBALAVERAGEPOOL, fire);
}

static ember_model *build_dense_block(int64_t batch, bool passes, int block, int *n_in_place)
{
    ember_model *m = ag_model();
    em_graph *g = m->g;
    const int64_t xd[4] = {batch, 16, 8, 8};
    int x;
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &x));
    OK(em_graph_mark_output(g, net_dense_block(g, x)));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    if (passes) {
        em_passes_options o = {true, true, true, block, em_plan_eval_const};
        OK(em_passes_run(g, &o));
    }
    em_plan *p = NULL;
    const int64_t *const shapes[] = {xd};
    const int rank = 4;
    OK(em_plan_build(g, test_allocator(), 0, 1, NULL, shapes, &rank, NULL, 1, &p));
    *n_in_place = 0;
    for (int ni = 0; ni < p->n_nodes; ni++) {
        *n_in_place += p->nodes[ni].in_place;
    }
    em_plan_destroy(p);
    return m;
}

static void test_concat_in_place(void **state)
{
    (void)state;
    enum { N = 16 * 8 * 8 };
    float x[2 * N];
    test_rng r = {4242};
    test_rng_fill(&r, x, N, -1.0f, 1.0f);
    memcpy(x + N, x, sizeof(float) * N);
    int k;
    ember_model *ref = build_dense_block(2, false, 0, &k);
    assert_int_equal(k, 0); /* at batch 2 the inputs interleave in the output */
    const int64_t d2[4] = {2, 16, 8, 8}, d1[4] = {1, 16, 8, 8};
    ember_tensor *want;
    tp_run(ref, 4, d2, x, &want, 1);
    const float *pw = ember_tensor_data(want);
    for (int variant = 0; variant < 3; variant++) {
        int block = variant == 2 ? 8 : 16;
        ember_model *m = build_dense_block(1, variant > 0, block, &k);
        assert_int_equal(k, 4); /* three in the block, the fire's */
        ember_tensor *got;
        tp_run(m, 4, d1, x, &got, 1);
        const float *pg = ember_tensor_data(got);
        assert_int_equal(ember_tensor_elem_count(got), 32);
        for (int i = 0; i < 32; i++) {
            for (int h = 0; h < 2; h++) {
                double a = pw[h * 32 + i], b = pg[i];
                if (fabs(a - b) > 1e-5 + 1e-4 * fabs(a)) {
                    fail_msg("variant %d: [%d]: %g vs %g (batch 2, half %d)", variant, i, b, a, h);
                }
            }
        }
        ember_tensor_destroy(got);
        ember_model_destroy(m);
    }
    ember_tensor_destroy(want);
    ember_model_destroy(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_se),
        cmocka_unit_test(test_not_blocked),
        cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_concat_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
