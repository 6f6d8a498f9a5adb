/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/autograd.c, rules of Conv, the pools, the normalizations, Dropout and the losses,
 * against central finite differences (test_autograd_util.h), f32 (the Conv, Softmax and
 * BatchNormalization kernels are f32): Conv 1-D / 2-D / 3-D with groups, depthwise, strides
 * with a remainder, asymmetric pads, dilations, auto_pad and a symbolic batch; MaxPool with
 * and without its Indices output; AveragePool with and without count_include_pad and with
 * ceil_mode; BatchNormalization in inference (all five inputs) and training;
 * InstanceNormalization, LayerNormalization, GlobalMaxPool; SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss with weights,
 * ignore_index and each reduction. Dropout in training is random, so it is checked by its
 * defining property (dx = g * mask / (1 - ratio)) instead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define IN1(a) {1, {a}, {a}, AG_ANY, false}
#define POS1(a) {1, {a}, {a}, AG_POS, false}
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}
#define IN3(a, b, c) {3, {a, b, c}, {a, b, c}, AG_ANY, false}
#define IN4(a, b, c, d) {4, {a, b, c, d}, {a, b, c, d}, AG_ANY, false}
#define IN5(a, b, c, d, e) {5, {a, b, c, d, e}, {a, b, c, d, e}, AG_ANY, false}

typedef struct conv_attrs {
    int64_t strides[3], pads[6], dilations[3], group;
    const char *auto_pad;
} conv_attrs;

static int conv(em_graph *g, const int *x, int n_in, int nsp, const conv_attrs *a)
{
    int y = ag_node(g, EM_OP_CONV, x, n_in);
    if (a->strides[0]) {
        ag_ints(g, y, "strides", a->strides, nsp);
    }
    if (a->dilations[0]) {
        ag_ints(g, y, "dilations", a->dilations, nsp);
    }
    if (a->auto_pad != NULL) {
        ag_string(g, y, "auto_pad", a->auto_pad);
    } else {
        ag_ints(g, y, "pads", a->pads, 2 * nsp);
    }
    if (a->group) {
        ag_int(g, y, "group", a->group);
    }
    return y;
}

static int b_conv_pads(em_graph *g, const int *x)
{
    const conv_attrs a = {{1, 1}, {1, 0, 1, 1}, {0}, 0, NULL};
    return conv(g, x, 3, 2, &a);
}

static int b_conv_stride(em_graph *g, const int *x)
{
    const conv_attrs a = {{2, 2}, {0, 1, 1, 0}, {2, 1}, 0, NULL};
    return conv(g, x, 2, 2, &a);
}

static int b_conv_group(em_graph *g, const int *x)
{
    const conv_attrs a = {{2, 1}, {1, 1, 1, 1}, {0}, 2, NULL};
    return conv(g, x, 3, 2, &a);
}

static int b_conv_depthwise(em_graph *g, const int *x)
{
    const conv_attrs a = {{1, 1}, {1, 1, 1, 1}, {1, 2}, 3, NULL};
    return conv(g, x, 2, 2, &a);
}

static int b_conv1d_same(em_graph *g, const int *x)
{
    const conv_attrs a = {{2}, {0}, {0}, 0, "SAME_UPPER"};
    return conv(g, x, 3, 1, &a);
}

static int b_conv3d(em_graph *g, const int *x)
{
    const conv_attrs a = {{1, 2, 1}, {0, 1, 0, 1, 0, 1}, {0}, 0, NULL};
    return conv(g, x, 2, 3, &a);
}

typedef struct pool_attrs {
    int64_t kernel[2], strides[2], pads[4], dilations[2];
    int ceil, include_pad;
} pool_attrs;

static int pool(em_graph *g, em_op op, int x, int nsp, const pool_attrs *a, int n_out)
{
    const char *outs[2] = {"pool", "pool_idx"};
    int ni;
    OK(em_graph_add_node(g, op, "pool", &x, 1, outs, n_out, &ni));
    OK(em_node_set_ints(g, ni, "kernel_shape", a->kernel, nsp));
    OK(em_node_set_ints(g, ni, "strides", a->strides, nsp));
    OK(em_node_set_ints(g, ni, "pads", a->pads, 2 * nsp));
    if (a->dilations[0]) {
        OK(em_node_set_ints(g, ni, "dilations", a->dilations, nsp));
    }
    OK(em_node_set_int(g, ni, "ceil_mode", a->ceil));
    if (op == EM_OP_AVERAGEPOOL) {
        OK(em_node_set_int(g, ni, "count_include_pad", a->include_pad));
    }
    return g->nodes[ni].out[0];
}

static const pool_attrs p_plain = {{2, 3}, {2, 2}, {0, 1, 1, 0}, {0}, 0, 0};
static const pool_attrs p_ceil = {{3, 2}, {2, 2}, {1, 0, 0, 1}, {1, 2}, 1, 0};
static const pool_attrs p_incl = {{2, 2}, {1, 2}, {1, 1, 0, 1}, {0}, 0, 1};

static int b_maxpool(em_graph *g, const int *x) { return pool(g, EM_OP_MAXPOOL, x[0], 2, &p_plain, 1); }
static int b_maxpool_idx(em_graph *g, const int *x) { return pool(g, EM_OP_MAXPOOL, x[0], 2, &p_ceil, 2); }
static int b_avgpool(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 2, &p_plain, 1); }
static int b_avgpool_ceil(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 2, &p_ceil, 1); }
static int b_avgpool_incl(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 2, &p_incl, 1); }
static int b_avgpool_1d(em_graph *g, const int *x) { return pool(g, EM_OP_AVERAGEPOOL, x[0], 1, &p_incl, 1); }
static int b_gap(em_graph *g, const int *x) { return ag_op1(g, EM_OP_GLOBALAVERAGEPOOL, x[0]); }

static int b_bn(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_BATCHNORM, x, 5);
    ag_float(g, y, "epsilon", 0.01f);
    return y;
}

static int b_bn_train(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_BATCHNORM, x, 5);
    ag_int(g, y, "training_mode", 1);
    return y;
}

static int b_instancenorm(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_INSTANCENORM, x, 3);
    ag_float(g, y, "epsilon", 0.01f);
    return y;
}

static int b_gmp(em_graph *g, const int *x) { return ag_op1(g, EM_OP_GLOBALMAXPOOL, x[0]); }

static int b_layernorm(em_graph *g, const int *x)
{
    int y = ag_node(g, EM_OP_LAYERNORM, x, 3);
    ag_int(g, y, "axis", 1);
    return y;
}

static int b_dropout_inference(em_graph *g, const int *x)
{
    const double r = 0.3;
    const int in[2] = {x[0], ag_const(g, F32, 0, NULL, &r)};
    return ag_op2(g, EM_OP_MUL, ag_node(g, EM_OP_DROPOUT, in, 2), x[0]);
}

/* A loss over x [N, C, d..] with int64 targets t (the ints given), optional weights. */
static int loss(em_graph *g, em_op op, int x, const int64_t *t, int rank, const int64_t *td,
                bool weights, const char *red, int64_t ignore, int n_out)
{
    const double w[4] = {0.5, 2.0, 1.0, 1.5};
    const char *outs[2] = {"loss", "log_prob"};
    int tv, ni;
    OK(em_graph_add_initializer_copy(g, "target", EMBER_DTYPE_I64, rank, td, t, &tv));
    const int in[3] = {x, tv, weights ? ag_const(g, ag_dt(g), 1, (int64_t[]){4}, w) : -1};
    OK(em_graph_add_node(g, op, "loss", in, weights ? 3 : 2, outs, n_out, &ni));
    OK(em_node_set_string(g, ni, "reduction", red));
    if (ignore != 99) {
        OK(em_node_set_int(g, ni, "ignore_index", ignore));
    }
    if (n_out == 2) { /* y = log_prob + loss, so that both outputs carry a gradient */
        const int64_t one = 1;
        int l = ag_op2(g, EM_OP_UNSQUEEZE, g->nodes[ni].out[0], ag_i64(g, &one, 1));
        return ag_op2(g, EM_OP_ADD, g->nodes[ni].out[1], l);
    }
    return g->nodes[ni].out[0];
}

static const int64_t t3[3] = {2, 0, 3}, t22[4] = {1, 3, -1, 0};

static int b_sce_mean(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t3, 1, (int64_t[]){3}, false, "mean", 99, 1);
}

static int b_sce_weighted(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t22, 2, (int64_t[]){2, 2}, true, "mean", -1, 1);
}

static int b_sce_none_logprob(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t22, 2, (int64_t[]){2, 2}, false, "none", -1, 2);
}

static int b_sce_sum(em_graph *g, const int *x)
{
    return loss(g, EM_OP_SCELOSS, x[0], t3, 1, (int64_t[]){3}, true, "sum", 0, 1);
}

static int b_nll_mean(em_graph *g, const int *x)
{
    return loss(g, EM_OP_NLLLOSS, x[0], t22, 2, (int64_t[]){2, 2}, true, "mean", -1, 1);
}

static int b_nll_none(em_graph *g, const int *x)
{
    return loss(g, EM_OP_NLLLOSS, x[0], t3, 1, (int64_t[]){3}, false, "none", 99, 1);
}

static const ag_case cases[] = {
    {"conv pads bias", F32, 3, {IN4(2, 3, 5, 4), IN4(4, 3, 3, 2), IN1(4)}, b_conv_pads, 0, 0, 0},
    {"conv stride dilation", F32, 2, {IN4(1, 2, 7, 6), IN4(3, 2, 2, 3)}, b_conv_stride, 0, 0, 0},
    {"conv group", F32, 3, {IN4(2, 4, 4, 4), IN4(6, 2, 3, 3), IN1(6)}, b_conv_group, 0, 0, 0},
    {"conv depthwise", F32, 2, {IN4(1, 3, 5, 5), IN4(3, 1, 3, 3)}, b_conv_depthwise, 0, 0, 0},
    {"conv1d same", F32, 3, {IN3(2, 3, 7), IN3(2, 3, 3), IN1(2)}, b_conv1d_same, 0, 0, 0},
    {"conv3d", F32, 2, {IN5(1, 2, 3, 4, 3), IN5(2, 2, 2, 2, 2)}, b_conv3d, 0, 0, 0},
    {"conv symbolic batch", F32, 3,
     {{4, {-1, 3, 5, 4}, {2, 3, 5, 4}, AG_ANY, false}, IN4(4, 3, 3, 2), IN1(4)}, b_conv_pads, 0,
     0, 0},
    {"maxpool", F32, 1, {IN4(2, 2, 5, 6)}, b_maxpool, 0, 0, 0},
    {"maxpool indices ceil dilation", F32, 1, {IN4(1, 2, 6, 7)}, b_maxpool_idx, 0, 0, 0},
    {"averagepool", F32, 1, {IN4(2, 2, 5, 6)}, b_avgpool, 0, 0, 0},
    {"averagepool ceil dilation", F32, 1, {IN4(1, 2, 6, 7)}, b_avgpool_ceil, 0, 0, 0},
    {"averagepool count_include_pad", F32, 1, {IN4(1, 2, 4, 5)}, b_avgpool_incl, 0, 0, 0},
    {"averagepool 1-d", F32, 1, {IN3(2, 2, 5)}, b_avgpool_1d, 0, 0, 0},
    {"globalaveragepool", F32, 1, {IN4(2, 3, 2, 3)}, b_gap, 0, 0, 0},
    {"batchnorm inference", F32, 5,
     {IN4(2, 3, 2, 2), IN1(3), IN1(3), IN1(3), POS1(3)}, b_bn, 0, 0, 0},
    {"batchnorm training", F32, 5,
     {IN4(3, 2, 2, 2), IN1(2), IN1(2), {1, {2}, {2}, AG_ANY, true}, {1, {2}, {2}, AG_POS, true}},
     b_bn_train, 0, 0, 0},
    {"batchnorm rank 2", F32, 5, {IN2(4, 3), IN1(3), IN1(3), IN1(3), POS1(3)}, b_bn, 0, 0, 0},
    {"instancenorm", F64, 3, {IN4(2, 3, 2, 2), IN1(3), IN1(3)}, b_instancenorm, 0, 0, 0},
    {"globalmaxpool", F64, 1, {IN4(2, 3, 2, 3)}, b_gmp, 0, 0, 0},
    {"layernorm", F64, 3, {IN3(2, 3, 4), IN2(3, 4), IN1(4)}, b_layernorm, 0, 0, 0},
    {"dropout inference", F32, 1, {IN2(3, 4)}, b_dropout_inference, 0, 0, 0},
    {"sce mean", F32, 1, {IN2(3, 4)}, b_sce_mean, 0, 0, 0},
    {"sce weighted ignore", F32, 1, {IN3(2, 4, 2)}, b_sce_weighted, 0, 0, 0},
    {"sce none log_prob", F32, 1, {IN3(2, 4, 2)}, b_sce_none_logprob, 0, 0, 0},
    {"sce sum", F32, 1, {IN2(3, 4)}, b_sce_sum, 0, 0, 0},
    {"nll mean weighted", F64, 1, {IN3(2, 4, 2)}, b_nll_mean, 0, 0, 0},
    {"nll none", F64, 1, {IN2(3, 4)}, b_nll_none, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 3000);
}

/* Dropout in training: with the default seed, dx = mask / (1 - ratio) where the mask (added
 * to the node by autodiff) holds the kept elements: dx = y / x elementwise. training_mode is
 * a constant true, or a run-time input (given true, then false: then dx = 1). */
static void dropout_case(bool runtime_flag)
{
    ember_model *m = ag_model();
    const int64_t d[2] = {4, 8};
    const double ratio = 0.25;
    const unsigned char yes = 1;
    int x, t, dx;
    OK(em_graph_add_input(m->g, "x", F32, 2, d, NULL, &x));
    if (runtime_flag) {
        OK(em_graph_add_input(m->g, "t", EMBER_DTYPE_BOOL, 0, NULL, NULL, &t));
    } else {
        OK(em_graph_add_initializer_copy(m->g, "t", EMBER_DTYPE_BOOL, 0, NULL, &yes, &t));
    }
    const int in[3] = {x, ag_const(m->g, F32, 0, NULL, &ratio), t};
    int y = ag_node(m->g, EM_OP_DROPOUT, in, 3);
    em_autograd_spec spec = {y, -1, 1, &x, NULL};
    OK(em_autograd(m->g, &spec, &dx));
    assert_int_equal(m->g->nodes[ag_prod(m->g, y)].n_out, 2);
    OK(em_graph_mark_output(m->g, y));
    OK(em_graph_mark_output(m->g, dx));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    float xv[32];
    unsigned char flag = 1;
    for (int i = 0; i < 32; i++) {
        xv[i] = 0.5f + (float)i;
    }
    ember_tensor *tin[2], *out[2] = {NULL, NULL};
    OK(ember_tensor_wrap(F32, d, 2, xv, sizeof xv, &tin[0]));
    OK(ember_tensor_wrap(EMBER_DTYPE_BOOL, NULL, 0, &flag, 1, &tin[1]));
    for (int pass = 0; pass < (runtime_flag ? 2 : 1); pass++) {
        flag = pass == 0;
        OK(ember_session_run(s, tin, runtime_flag ? 2 : 1, out, 2));
        const float *yv = ember_tensor_data(out[0]), *dv = ember_tensor_data(out[1]);
        int kept = 0;
        for (int i = 0; i < 32; i++) {
            assert_true(fabsf(dv[i] - yv[i] / xv[i]) <= 1e-6f);
            assert_true(dv[i] == 0.0f || fabsf(dv[i] - (flag ? 1.0f / 0.75f : 1.0f)) <= 1e-6f);
            kept += dv[i] != 0.0f;
        }
        assert_true(kept > 0 && (kept < 32) == (flag != 0));
        ag_free_outs(out, 2);
    }
    ember_tensor_destroy(tin[0]);
    ember_tensor_destroy(tin[1]);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_dropout_training(void **state)
{
    (void)state;
    dropout_case(false);
    dropout_case(true);
}

/* A small CNN with a loss, built on allocator al: X -> Conv -> BatchNorm -> Relu -> MaxPool ->
 * Flatten -> Gemm -> SoftmaxCrossEntropyLoss. xs[4]: X, the conv weight, the BN scale and
 * the Gemm weight. */
static em_graph *small_cnn(const ember_allocator *al, int *y, int *xs)
{
    em_graph *g = NULL;
    static const float zeros[3 * 3 * 3 * 3 * 4];
    const int64_t xd[4] = {2, 3, 6, 6}, wd[4] = {4, 3, 3, 3}, cd[1] = {4}, gd[2] = {36, 5};
    const int64_t labels[2] = {1, 4}, ld[1] = {2};
    const int64_t pads[4] = {1, 1, 1, 1}, k[2] = {2, 2};
    int bn_in[5], t;
    OK(em_graph_new(al, &g));
    OK(em_graph_add_input(g, "x", F32, 4, xd, NULL, &xs[0]));
    OK(em_graph_add_initializer_copy(g, "w", F32, 4, wd, zeros, &xs[1]));
    int c = ag_op2(g, EM_OP_CONV, xs[0], xs[1]);
    ag_ints(g, c, "pads", pads, 4);
    bn_in[0] = c;
    for (int i = 1; i < 5; i++) {
        char name[8] = {'b', 'n', (char)('0' + i), 0};
        OK(em_graph_add_initializer_copy(g, name, F32, 1, cd, zeros, &bn_in[i]));
    }
    xs[2] = bn_in[1];
    int r = ag_op1(g, EM_OP_RELU, ag_node(g, EM_OP_BATCHNORM, bn_in, 5));
    int p = ag_op1(g, EM_OP_MAXPOOL, r);
    ag_ints(g, p, "kernel_shape", k, 2);
    ag_ints(g, p, "strides", k, 2);
    OK(em_graph_add_initializer_copy(g, "wg", F32, 2, gd, zeros, &xs[3]));
    int logits = ag_op2(g, EM_OP_GEMM, ag_op1(g, EM_OP_FLATTEN, p), xs[3]);
    OK(em_graph_add_initializer_copy(g, "labels", EMBER_DTYPE_I64, 1, ld, labels, &t));
    *y = ag_op2(g, EM_OP_SCELOSS, logits, t);
    return g;
}

/* Failing each allocation em_autograd makes, in turn, gives OUT_OF_MEMORY and leaks nothing
 * (the graph, with whatever was added, is destroyed cleanly). */
static void test_oom_sweep(void **state)
{
    (void)state;
    counting_alloc ca;
    int y, xs[4], dxs[4];
    counting_alloc_init(&ca);
    em_graph *g = small_cnn(&ca.al, &y, xs);
    long base = ca.n_alloc;
    em_autograd_spec spec = {y, -1, 4, xs, NULL};
    OK(em_autograd(g, &spec, dxs));
    long n = ca.n_alloc - base;
    em_graph_destroy(g);
    assert_int_equal(ca.live, 0);
    for (long i = 1; i <= n; i++) {
        counting_alloc_init(&ca);
        g = small_cnn(&ca.al, &y, xs);
        ca.fail_at = ca.n_alloc + i;
        spec.y = y;
        ember_status *st = em_autograd(g, &spec, dxs);
        if (ember_status_code(st) != EMBER_ERR_OUT_OF_MEMORY) {
            fail_msg("failing allocation %ld of %ld: %s", i, n,
                     st != NULL ? ember_status_message(st) : "no error");
        }
        ember_status_destroy(st);
        em_graph_destroy(g);
        if (ca.live != 0) {
            fail_msg("failing allocation %ld of %ld: %ld leaked", i, n, (long)ca.live);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_dropout_training),
        cmocka_unit_test(test_oom_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
