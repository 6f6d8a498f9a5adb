/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The QDQ -> integer rewrite of the ops between convolutions (runtime/passes/passes_qdq.c,
 * em_pass_qdq_ops): graphs x -> QuantizeLinear -> DequantizeLinear -> OP -> QuantizeLinear ->
 * DequantizeLinear -> y, optimised with the int8 extra and not, compared on the same input
 * within one output step (the integer op rounds once where the fp32 chain rounds the float op
 * and then the quotient; the ops that move to the 8-bit side are exact). Positives: Add and
 * Mul of two inputs of different scales and zero points (u8 and s8), Add + Relu with the
 * output zero point at the range's low end, Add + Clip whose bounds lie outside the output's
 * range (the saturation clamps), Sigmoid, LeakyRelu, Concat, AveragePool,
 * GlobalAveragePool, MaxPool / Flatten / Transpose / Resize (nearest, by scales and by sizes)
 * with the same parameters on both sides,
 * Gemm with per-column s8 weights and an int32 bias (quantized output and the f32 output of a
 * last layer), MatMul. Negatives, each left to fp32 with its reason told: MaxPool between
 * different parameters, Add + Relu with the zero point inside the range, a Clip narrower than
 * the output's range, Add of a u8 and an s8 input, Gemm with alpha 2, a negative scale, Resize
 * linear, Resize nearest with tf_crop_and_resize.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    O_ADD,
    O_ADD_S8,
    O_ADD_RELU,
    O_MUL,
    O_SIGMOID,
    O_LEAKY,
    O_CONCAT,
    O_AVGPOOL,
    O_GAP,
    O_MAXPOOL,
    O_FLATTEN,
    O_TRANSPOSE,
    O_GEMM,
    O_GEMM_F32,
    O_MATMUL,
    O_ADD_CLIP,     /* Clip(-7, 7) around a QuantizeLinear range of [-6, 6.75] */
    O_RESIZE,       /* nearest, scales (1, 1, 2, 1.5) */
    O_RESIZE_SIZES, /* nearest, sizes, asymmetric / floor */
    N_POSITIVE,
    N_MAXPOOL_PARAMS = N_POSITIVE,
    N_ADD_RELU_MID,
    N_ADD_MIXED,
    N_GEMM_ALPHA,
    N_NEG_SCALE,
    N_ADD_CLIP_NARROW, /* Clip(-1, 1) inside that range */
    N_RESIZE_LINEAR,
    N_RESIZE_CROP, /* nearest, but tf_crop_and_resize */
    N_VARIANTS
};

static const int64_t xd4[4] = {2, 3, 6, 5};
static const int64_t xd2[2] = {3, 10};

static bool is_matrix(int v)
{
    return v == O_GEMM || v == O_GEMM_F32 || v == O_MATMUL || v == N_GEMM_ALPHA;
}

/* x quantized with (s, z) of dtype dt and dequantized again. */
static int qdq(em_graph *g, int x, const char *name, float s, ember_dtype dt, int z)
{
    char sn[64], zn[64], qn[64];
    snprintf(sn, sizeof sn, "%s_s", name);
    snprintf(zn, sizeof zn, "%s_z", name);
    snprintf(qn, sizeof qn, "%s_q", name);
    uint8_t zb = (uint8_t)(dt == EMBER_DTYPE_I8 ? (uint8_t)(int8_t)z : (uint8_t)z);
    int sv = tp_scalar(g, sn, s), zv = tp_init(g, zn, dt, 0, NULL, &zb);
    int q = tp_op3(g, EM_OP_QUANTIZELINEAR, x, sv, zv, qn);
    return tp_op3(g, EM_OP_DEQUANTIZELINEAR, q, sv, zv, name);
}

/* The Gemm / MatMul: x [3, 10] times per-column s8 weights [10, 4] (Gemm: transB, [4, 10])
 * with an int32 bias of scale xs * ws[n]. */
static int matrix_op(em_graph *g, int xdq, int variant, float xs)
{
    const bool gemm = variant != O_MATMUL;
    const int64_t n = 4, k = 10, wd[2] = {gemm ? n : k, gemm ? k : n};
    int8_t w[40], wz[4] = {0, 0, 0, 0};
    float ws[4], bs[4];
    int32_t b[4];
    for (int i = 0; i < 40; i++) {
        w[i] = (int8_t)((i * 37) % 255 - 127);
    }
    for (int i = 0; i < 4; i++) {
        ws[i] = 0.004f * (float)(1 + i);
        bs[i] = xs * ws[i];
        b[i] = 300 * i - 500;
    }
    int wq = tp_init(g, "wq", EMBER_DTYPE_I8, 2, wd, w);
    int wdq = tp_op3(g, EM_OP_DEQUANTIZELINEAR, wq, tp_init(g, "ws", EMBER_DTYPE_F32, 1, &n, ws),
                     tp_init(g, "wz", EMBER_DTYPE_I8, 1, &n, wz), "wdq");
    OK(em_node_set_int(g, g->n_nodes - 1, "axis", gemm ? 0 : 1));
    if (!gemm) {
        return tp_op2(g, EM_OP_MATMUL, xdq, wdq, "op");
    }
    const int bin[2] = {tp_init(g, "bq", EMBER_DTYPE_I32, 1, &n, b),
                        tp_init(g, "bs", EMBER_DTYPE_F32, 1, &n, bs)};
    int bdq = tp_op(g, EM_OP_DEQUANTIZELINEAR, bin, 2, "bdq");
    OK(em_node_set_int(g, g->n_nodes - 1, "axis", 0));
    int y = tp_op3(g, EM_OP_GEMM, xdq, wdq, bdq, "op");
    OK(em_node_set_int(g, g->n_nodes - 1, "transB", 1));
    if (variant == N_GEMM_ALPHA) {
        OK(em_node_set_float(g, g->n_nodes - 1, "alpha", 2.0f));
    }
    return y;
}

static void build(em_graph *g, int x, int v)
{
    const ember_dtype u8 = EMBER_DTYPE_U8, s8 = EMBER_DTYPE_I8;
    const bool sgn = v == O_ADD_S8;
    const ember_dtype t = sgn ? s8 : u8;
    const int z0 = sgn ? -3 : 128;
    const float s0 = v == N_NEG_SCALE ? -8.0f / 255.0f : 8.0f / 255.0f;
    int a = qdq(g, x, "a", s0, t, z0), y;
    float ys = 0.05f;
    int yz = sgn ? 0 : 120;
    ember_dtype yt = t;
    switch (v) {
    case O_ADD:
    case O_ADD_S8:
    case O_ADD_RELU:
    case O_MUL:
    case N_ADD_RELU_MID:
    case N_ADD_MIXED:
    case N_NEG_SCALE:
    case O_ADD_CLIP:
    case N_ADD_CLIP_NARROW: {
        int x2 = tp_op2(g, EM_OP_MUL, x, tp_scalar(g, "k", -0.7f), "x2");
        int b = qdq(g, x2, "b", 0.019f, v == N_ADD_MIXED ? s8 : t, sgn ? 11 : 90);
        y = tp_op2(g, v == O_MUL ? EM_OP_MUL : EM_OP_ADD, a, b, "op");
        if (v == O_MUL) {
            ys = 0.2f;
        }
        if (v == O_ADD_RELU || v == N_ADD_RELU_MID) {
            y = tp_op(g, EM_OP_RELU, &y, 1, "relu");
            yz = v == O_ADD_RELU ? 0 : 128;
        }
        if (v == O_ADD_CLIP || v == N_ADD_CLIP_NARROW) {
            const float bound = v == O_ADD_CLIP ? 7.0f : 1.0f;
            const int in[3] = {y, tp_scalar(g, "lo", -bound), tp_scalar(g, "hi", bound)};
            y = tp_op(g, EM_OP_CLIP, in, 3, "clip");
        }
        break;
    }
    case O_SIGMOID:
        y = tp_op(g, EM_OP_SIGMOID, &a, 1, "op");
        ys = 1.0f / 256.0f;
        yz = 0;
        break;
    case O_LEAKY:
        y = tp_op(g, EM_OP_LEAKYRELU, &a, 1, "op");
        OK(em_node_set_float(g, g->n_nodes - 1, "alpha", 0.2f));
        break;
    case O_CONCAT: {
        int b = qdq(g, x, "b", 0.03f, t, 77);
        y = tp_op2(g, EM_OP_CONCAT, a, b, "op");
        OK(em_node_set_int(g, g->n_nodes - 1, "axis", 1));
        break;
    }
    case O_AVGPOOL: {
        y = tp_op(g, EM_OP_AVERAGEPOOL, &a, 1, "op");
        const int64_t k[2] = {3, 3}, p[4] = {1, 1, 1, 1}, s[2] = {2, 1};
        OK(em_node_set_ints(g, g->n_nodes - 1, "kernel_shape", k, 2));
        OK(em_node_set_ints(g, g->n_nodes - 1, "pads", p, 4));
        OK(em_node_set_ints(g, g->n_nodes - 1, "strides", s, 2));
        ys = 0.02f;
        break;
    }
    case O_GAP:
        y = tp_op(g, EM_OP_GLOBALAVERAGEPOOL, &a, 1, "op");
        ys = 0.01f;
        break;
    case O_MAXPOOL:
    case N_MAXPOOL_PARAMS: {
        y = tp_op(g, EM_OP_MAXPOOL, &a, 1, "op");
        const int64_t k[2] = {2, 2}, p[4] = {0, 1, 1, 0};
        OK(em_node_set_ints(g, g->n_nodes - 1, "kernel_shape", k, 2));
        OK(em_node_set_ints(g, g->n_nodes - 1, "pads", p, 4));
        ys = v == O_MAXPOOL ? s0 : 0.04f;
        yz = v == O_MAXPOOL ? z0 : 100;
        break;
    }
    case O_FLATTEN:
        y = tp_op(g, EM_OP_FLATTEN, &a, 1, "op");
        ys = s0;
        yz = z0;
        break;
    case O_TRANSPOSE: {
        y = tp_op(g, EM_OP_TRANSPOSE, &a, 1, "op");
        const int64_t perm[4] = {0, 2, 3, 1};
        OK(em_node_set_ints(g, g->n_nodes - 1, "perm", perm, 4));
        ys = s0;
        yz = z0;
        break;
    }
    case O_RESIZE:
    case O_RESIZE_SIZES:
    case N_RESIZE_LINEAR:
    case N_RESIZE_CROP: {
        static const float sc[4] = {1.0f, 1.0f, 2.0f, 1.5f};
        static const int64_t sz[4] = {2, 3, 9, 11};
        static const float roi[8] = {0, 0, 0.1f, 0.2f, 1, 1, 0.9f, 0.7f};
        const int64_t four = 4, eight = 8;
        int scales = -1, sizes = -1, r = -1;
        if (v == O_RESIZE_SIZES) {
            sizes = tp_ints(g, "sizes", sz, 4);
        } else {
            scales = tp_init(g, "scales", EMBER_DTYPE_F32, 1, &four, sc);
        }
        if (v == N_RESIZE_CROP) {
            r = tp_init(g, "roi", EMBER_DTYPE_F32, 1, &eight, roi);
        }
        const int in[4] = {a, r, scales, sizes};
        y = tp_op(g, EM_OP_RESIZE, in, sizes >= 0 ? 4 : 3, "op");
        if (v == N_RESIZE_LINEAR) {
            OK(em_node_set_string(g, g->n_nodes - 1, "mode", "linear"));
        }
        if (v == N_RESIZE_CROP) {
            OK(em_node_set_string(g, g->n_nodes - 1, "coordinate_transformation_mode",
                                  "tf_crop_and_resize"));
        }
        if (v == O_RESIZE_SIZES) {
            OK(em_node_set_string(g, g->n_nodes - 1, "coordinate_transformation_mode",
                                  "asymmetric"));
            OK(em_node_set_string(g, g->n_nodes - 1, "nearest_mode", "floor"));
        }
        ys = s0;
        yz = z0;
        break;
    }
    default: /* the matrix ops */
        y = matrix_op(g, a, v, s0);
        ys = 0.1f;
        if (v == O_GEMM_F32) {
            OK(em_graph_mark_output(g, y));
            return;
        }
        break;
    }
    OK(em_graph_mark_output(g, qdq(g, y, "y", ys, yt, yz)));
}

static const em_passes_options fused = {true, true, false, 0, em_plan_eval_const};
static const em_passes_extra int8 = {.int8 = true};

static float out_step(int v)
{
    switch (v) {
    case O_MUL:
        return 0.2f;
    case O_SIGMOID:
        return 1.0f / 256.0f;
    case O_AVGPOOL:
        return 0.02f;
    case O_GAP:
        return 0.01f;
    case O_MAXPOOL:
    case O_FLATTEN:
    case O_TRANSPOSE:
    case O_RESIZE:
    case O_RESIZE_SIZES:
        return 0.0f; /* exact */
    case O_GEMM:
    case O_MATMUL:
        return 0.1f;
    case O_GEMM_F32:
        return 1e-4f;
    default:
        return 0.05f;
    }
}

static void test_qdq_ops_rewritten(void **state)
{
    (void)state;
    static const em_op int8_op[N_POSITIVE] = {
        [O_ADD] = EM_OP_QLINEARADD,
        [O_ADD_S8] = EM_OP_QLINEARADD,
        [O_ADD_RELU] = EM_OP_QLINEARADD,
        [O_MUL] = EM_OP_QLINEARMUL,
        [O_SIGMOID] = EM_OP_QLINEARSIGMOID,
        [O_LEAKY] = EM_OP_QLINEARLEAKYRELU,
        [O_CONCAT] = EM_OP_QLINEARCONCAT,
        [O_AVGPOOL] = EM_OP_QLINEARAVERAGEPOOL,
        [O_GAP] = EM_OP_QLINEARGLOBALAVERAGEPOOL,
        [O_MAXPOOL] = EM_OP_MAXPOOL,
        [O_FLATTEN] = EM_OP_FLATTEN,
        [O_TRANSPOSE] = EM_OP_TRANSPOSE,
        [O_GEMM] = EM_OP_QGEMM,
        [O_GEMM_F32] = EM_OP_QGEMM,
        [O_MATMUL] = EM_OP_QLINEARMATMUL,
        [O_ADD_CLIP] = EM_OP_QLINEARADD,
        [O_RESIZE] = EM_OP_RESIZE,
        [O_RESIZE_SIZES] = EM_OP_RESIZE,
    };
    for (int v = 0; v < N_POSITIVE; v++) {
        /* the chain's QuantizeLinear became the integer op: one QuantizeLinear per quantized
         * input is left (x's), one DequantizeLinear (y's) unless the output is f32 */
        const int n_in = v == O_ADD || v == O_ADD_S8 || v == O_ADD_RELU || v == O_MUL ||
                                 v == O_CONCAT || v == O_ADD_CLIP
                             ? 2
                             : 1;
        const tp_count want[] = {{int8_op[v], 1},
                                 {EM_OP_QUANTIZELINEAR, n_in},
                                 {EM_OP_DEQUANTIZELINEAR, v == O_GEMM_F32 ? 0 : 1},
                                 {EM_OP_RELU, 0},
                                 {EM_OP_GEMM, 0},
                                 {EM_OP_ADD, 0},
                                 {EM_OP_CLIP, 0}};
        const bool m = is_matrix(v);
        tp_check_passes_extra(build, v, m ? 2 : 4, m ? xd2 : xd4, NULL, want, 7,
                              1.001 * out_step(v) + 1e-6, v == O_GEMM_F32 ? 1e-5 : 0.0, &fused,
                              &int8);
    }
}

typedef struct notes {
    int n, n_int8;
    char why[160];
} notes;

static void note(void *ctx, const char *node, const char *int8_op, const char *why)
{
    notes *t = ctx;
    if (strcmp(node, "op") != 0) {
        return; /* the x -> y QDQ pairs themselves are no chains */
    }
    t->n++;
    if (int8_op != NULL) {
        t->n_int8++;
    } else {
        snprintf(t->why, sizeof t->why, "%s", why);
    }
}

static void test_qdq_ops_left_to_fp32(void **state)
{
    (void)state;
    static const char *const reasons[N_VARIANTS] = {
        [N_MAXPOOL_PARAMS] = "scale / zero point differ",
        [N_ADD_RELU_MID] = "Relu before a QuantizeLinear whose zero point",
        [N_ADD_MIXED] = "dtypes differ",
        [N_GEMM_ALPHA] = "alpha or beta is not 1",
        [N_NEG_SCALE] = "scale is not positive and finite",
        [N_ADD_CLIP_NARROW] = "Clip narrower than the QuantizeLinear's range",
        [N_RESIZE_LINEAR] = "other than mode nearest",
        [N_RESIZE_CROP] = "tf_crop_and_resize",
    };
    for (int v = N_POSITIVE; v < N_VARIANTS; v++) {
        const bool m = is_matrix(v);
        const tp_count want[] = {
            {EM_OP_QLINEARADD, 0},
            {EM_OP_QGEMM, 0},
            {EM_OP_QUANTIZELINEAR, v == N_MAXPOOL_PARAMS || v == N_GEMM_ALPHA ||
                                           v == N_RESIZE_LINEAR || v == N_RESIZE_CROP
                                       ? 2
                                       : 3}};
        tp_check_passes_extra(build, v, m ? 2 : 4, m ? xd2 : xd4, NULL, want, 3, 1e-6, 1e-6, &fused,
                              &int8);
        ember_model *mo = tp_build(build, v, m ? 2 : 4, m ? xd2 : xd4, NULL);
        notes t = {0};
        const em_passes_extra x = {.int8 = true, .note = note, .note_ctx = &t};
        OK(em_passes_run_extra(mo->g, &fused, &x));
        assert_int_equal(t.n, 1);
        assert_int_equal(t.n_int8, 0);
        if (strstr(t.why, reasons[v]) == NULL) {
            fail_msg("variant %d: reason '%s', expected '%s'", v, t.why, reasons[v]);
        }
        ember_model_destroy(mo);
    }
}

/* Without the int8 extra nothing is rewritten. */
static void test_qdq_ops_off_by_default(void **state)
{
    (void)state;
    const tp_count want[] = {{EM_OP_QLINEARADD, 0}, {EM_OP_ADD, 1}};
    tp_check_fused(build, O_ADD, 4, xd4, want, 2, 1e-6, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qdq_ops_rewritten),
        cmocka_unit_test(test_qdq_ops_left_to_fp32),
        cmocka_unit_test(test_qdq_ops_off_by_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
