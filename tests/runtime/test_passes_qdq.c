/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The QDQ -> QLinearConv rewrite (runtime/passes/passes_qdq.c) and the folding of weight
 * DequantizeLinear (passes.c): graphs x -> QuantizeLinear -> DequantizeLinear -> Conv (weights
 * and bias through DequantizeLinear) [-> Relu] -> QuantizeLinear -> DequantizeLinear -> y,
 * optimised and not, compared on the same input within one output step (the integer op rounds
 * once where the fp32 chain rounds the float conv first). Positives: per-channel s8 weights
 * with u8 activations and a bias, per-tensor u8 weights with a non-zero zero point and s8
 * activations without bias, a Relu the saturation already does (y zero point at the low end),
 * strides and pads. Negatives, each left to fp32 with its weight DequantizeLinear folded and
 * the reason told to the note callback: a Relu with a zero point inside the range, a bias
 * whose scale is not x_scale * w_scale, the Conv's output also a graph output, a grouped conv.
 * A big weight (over 1 MiB as f32) still folds. The rewrite runs only when asked
 * (em_passes_extra.int8); by default the chain stays f32 with its weights folded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    V_PER_CHANNEL, /* s8 per-channel w, u8 x / y, bias */
    V_PER_TENSOR,  /* u8 per-tensor w with zero point 7, s8 x / y, no bias, stride 2 */
    V_RELU_FOLDED, /* Relu, y zero point 0 (u8) */
    V_BIG,         /* 256 x 160 x 3 x 3 weights (1.5 MB as f32) */
    V_GROUPED,     /* group 2 */
    V_DEPTHWISE,   /* group 4 = channels, 8 outputs (2 per channel) */
    N_POSITIVE,
    V_RELU_KEPT = N_POSITIVE, /* Relu, y zero point 100 */
    V_BIAS_SCALE,             /* bias scale 1.5 x_scale * w_scale */
    V_SHARED_OUT,             /* the Conv's output is a graph output too */
    V_BIG_KEPT,               /* V_BIG with V_RELU_KEPT's Relu: its big weight folds to f32 */
    N_VARIANTS
};

static const int64_t xd[4] = {1, 4, 9, 11};
static const int64_t xd_big[4] = {1, 160, 6, 5};

static void build(em_graph *g, int x, int variant)
{
    const bool s8_act = variant == V_PER_TENSOR;
    const ember_dtype at = s8_act ? EMBER_DTYPE_I8 : EMBER_DTYPE_U8;
    const bool big = variant == V_BIG || variant == V_BIG_KEPT;
    const int64_t c = big ? 160 : 4, m = big ? 256 : variant == V_DEPTHWISE ? 8 : 6;
    const int64_t group = variant == V_GROUPED ? 2 : variant == V_DEPTHWISE ? 4 : 1;
    const int64_t wd[4] = {m, c / group, 3, 3};
    const float xs = 8.0f / 255.0f;
    const bool relu_kept = variant == V_RELU_KEPT || variant == V_BIG_KEPT;
    uint8_t xz = s8_act ? 0 : 128, yz = relu_kept ? 100 : s8_act ? 0 : 128;
    if (variant == V_RELU_FOLDED) {
        yz = 0;
    }
    float ys = big ? 0.5f : 0.05f;
    int64_t nw = wd[0] * wd[1] * 9;
    uint8_t *w = test_malloc((size_t)nw);
    float ws[256], bs[256];
    int32_t b[256];
    uint8_t wz[256];
    uint64_t r = 99;
    for (int64_t i = 0; i < nw; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (uint8_t)(r >> 56);
    }
    for (int64_t i = 0; i < m; i++) {
        ws[i] = 0.002f * (float)(1 + i % 5);
        bs[i] = variant == V_BIAS_SCALE ? 1.5f * xs * ws[i] : xs * ws[i];
        b[i] = (int32_t)(i * 977 % 4001) - 2000;
        wz[i] = variant == V_PER_TENSOR ? 7 : 0;
    }
    int xq = tp_op3(g, EM_OP_QUANTIZELINEAR, x, tp_scalar(g, "xs", xs),
                    tp_init(g, "xz", at, 0, NULL, &xz), "xq");
    int xdq = tp_op3(g, EM_OP_DEQUANTIZELINEAR, xq, g->nodes[g->n_nodes - 1].in[1],
                     g->nodes[g->n_nodes - 1].in[2], "xdq");
    bool per_t = variant == V_PER_TENSOR;
    int wq = tp_init(g, "wq", per_t ? EMBER_DTYPE_U8 : EMBER_DTYPE_I8, 4, wd, w);
    int wsv = per_t ? tp_scalar(g, "ws", ws[0]) : tp_init(g, "ws", EMBER_DTYPE_F32, 1, &m, ws);
    int wzv = per_t ? tp_init(g, "wz", EMBER_DTYPE_U8, 0, NULL, wz)
                    : tp_init(g, "wz", EMBER_DTYPE_I8, 1, &m, wz);
    int wdq = tp_op3(g, EM_OP_DEQUANTIZELINEAR, wq, wsv, wzv, "wdq");
    if (!per_t) {
        OK(em_node_set_int(g, g->n_nodes - 1, "axis", 0));
    }
    int conv_in[3] = {xdq, wdq, -1};
    int n_conv_in = 2;
    if (variant != V_PER_TENSOR) {
        int bq = tp_init(g, "bq", EMBER_DTYPE_I32, 1, &m, b);
        const int in[2] = {bq, tp_init(g, "bs", EMBER_DTYPE_F32, 1, &m, bs)};
        conv_in[2] = tp_op(g, EM_OP_DEQUANTIZELINEAR, in, 2, "bdq");
        OK(em_node_set_int(g, g->n_nodes - 1, "axis", 0));
        n_conv_in = 3;
    }
    int y = tp_op(g, EM_OP_CONV, conv_in, n_conv_in, "conv");
    int ci = g->n_nodes - 1;
    const int64_t pads[4] = {1, 0, 1, 2}, strides[2] = {per_t ? 2 : 1, 1};
    OK(em_node_set_ints(g, ci, "pads", pads, 4));
    OK(em_node_set_ints(g, ci, "strides", strides, 2));
    OK(em_node_set_int(g, ci, "group", group));
    if (variant == V_RELU_FOLDED || relu_kept) {
        y = tp_op(g, EM_OP_RELU, &y, 1, "relu");
    }
    if (variant == V_SHARED_OUT) {
        OK(em_graph_mark_output(g, y));
    }
    int ysv = tp_scalar(g, "ys", ys), yzv = tp_init(g, "yz", at, 0, NULL, &yz);
    int yq = tp_op3(g, EM_OP_QUANTIZELINEAR, y, ysv, yzv, "yq");
    OK(em_graph_mark_output(g, tp_op3(g, EM_OP_DEQUANTIZELINEAR, yq, ysv, yzv, "y")));
    test_free(w);
}

static const em_passes_options fused = {true, true, false, 0, em_plan_eval_const};
static const em_passes_extra int8 = {.int8 = true};

static void test_qdq_conv_rewritten(void **state)
{
    (void)state;
    for (int v = 0; v < N_POSITIVE; v++) {
        /* the DequantizeLinear of x (read by the Conv alone), w and the bias are gone */
        const tp_count want[] = {{EM_OP_QLINEARCONV, 1},
                                 {EM_OP_CONV, 0},
                                 {EM_OP_RELU, 0},
                                 {EM_OP_DEQUANTIZELINEAR, 1},
                                 {EM_OP_QUANTIZELINEAR, 1}};
        float ys = v == V_BIG ? 0.5f : 0.05f;
        tp_check_passes_extra(build, v, 4, v == V_BIG ? xd_big : xd, NULL, want, 5, 1.001 * ys, 0.0,
                              &fused, &int8);
    }
}

static void test_qdq_conv_left_to_fp32(void **state)
{
    (void)state;
    for (int v = N_POSITIVE; v < N_VARIANTS; v++) {
        /* the weight's (and bias's) DequantizeLinear folded: Conv reads f32 constants */
        const tp_count want[] = {{EM_OP_QLINEARCONV, 0}, {EM_OP_DEQUANTIZELINEAR, 2}};
        float ys = v == V_BIG_KEPT ? 0.5f : 0.05f;
        tp_check_passes_extra(build, v, 4, v == V_BIG_KEPT ? xd_big : xd, NULL, want, 2, 1.001 * ys,
                              0.0, &fused, &int8);
    }
}

/* Without the int8 extra (em_passes_run's default) the chain stays f32, its weights folded. */
static void test_qdq_conv_off_by_default(void **state)
{
    (void)state;
    const tp_count want[] = {{EM_OP_QLINEARCONV, 0}, {EM_OP_DEQUANTIZELINEAR, 2}};
    tp_check_fused(build, V_PER_CHANNEL, 4, xd, want, 2, 1.001 * 0.05, 0.0);
}

typedef struct notes {
    int n;
    char why[4][160]; /* the reason, or "int8: OP" for a rewritten chain */
} notes;

static void note(void *ctx, const char *node, const char *int8_op, const char *why)
{
    notes *t = ctx;
    assert_string_equal(node, "conv");
    assert_true((int8_op == NULL) != (why == NULL));
    if (t->n < 4) {
        snprintf(t->why[t->n], sizeof t->why[0], "%s%s", int8_op != NULL ? "int8: " : "",
                 int8_op != NULL ? int8_op : why);
    }
    t->n++;
}

static void test_qdq_conv_reasons(void **state)
{
    (void)state;
    static const struct {
        int variant;
        const char *why;
    } cases[] = {
        {V_RELU_KEPT, "Relu before a QuantizeLinear whose zero point"},
        {V_BIAS_SCALE, "bias's scale is not x_scale * w_scale"},
        {V_SHARED_OUT, "other readers"},
        {V_PER_CHANNEL, "int8: QLinearConv"},
        {V_GROUPED, "int8: QLinearConv"},
        {V_DEPTHWISE, "int8: QLinearConv"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ember_model *m = tp_build(build, cases[i].variant, 4, xd, NULL);
        em_passes_options o = {true, true, false, 0, em_plan_eval_const};
        notes t = {0};
        const em_passes_extra x = {.int8 = true, .note = note, .note_ctx = &t};
        OK(em_passes_run_extra(m->g, &o, &x));
        assert_int_equal(t.n, 1);
        if (strstr(t.why[0], cases[i].why) == NULL) {
            fail_msg("variant %d: reason '%s', expected '%s'", cases[i].variant, t.why[0],
                     cases[i].why);
        }
        ember_model_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qdq_conv_rewritten),
        cmocka_unit_test(test_qdq_conv_left_to_fp32),
        cmocka_unit_test(test_qdq_conv_off_by_default),
        cmocka_unit_test(test_qdq_conv_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
