/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decomposed LayerNorm / RMSNorm -> one op (runtime/passes/passes_norm.c), on hand-built graphs
 * of x [2, 3, 8]: torch.onnx's form, the operands swapped (eps, gamma, beta on the left,
 * Mul(d, d), Mul by Reciprocal, positive axes, a [1, 1, 8] gamma), two normalised axes, no
 * affine, a non-constant gamma (left as a Mul); RMSNorm as LLaMA writes it, by Div and by
 * Reciprocal. The cases that must not fuse, or fuse only as far as proved: exponent 4, a mean
 * over another axis, a negative eps, a variance that is a graph output, a centred value with
 * another reader (RMSNorm of it, the centring kept), a gamma broadcast along an outer axis,
 * 2 / sqrt instead of 1 / sqrt. Each optimised graph computes what the original does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    LN_TORCH,
    LN_SWAPPED,
    LN_2AXES,
    LN_PLAIN,
    LN_GAMMA_INPUT,
    LN_POW4,
    LN_MEAN_AXIS1,
    LN_CENTRE_AXIS1,
    LN_EPS_NEGATIVE,
    LN_VAR_OUTPUT,
    LN_D_READER,
    LN_GAMMA_OUTER,
};

static const int64_t xd[3] = {2, 3, 8};

static int mean(em_graph *g, int v, const int64_t *axes, int n, const char *name)
{
    char an[64];
    snprintf(an, sizeof an, "%s/axes", name);
    return tp_op2(g, EM_OP_REDUCEMEAN, v, tp_ints(g, an, axes, n), name);
}

static void build_ln(em_graph *g, int x, int variant)
{
    static const int64_t last[1] = {-1}, last_pos[1] = {2}, two[2] = {-1, -2}, ax1[1] = {1};
    const int64_t n8[1] = {8}, n118[3] = {1, 1, 8}, n38[2] = {3, 8}, n31[2] = {3, 1};
    bool two_axes = variant == LN_2AXES, swapped = variant == LN_SWAPPED;
    const int64_t *ax = two_axes ? two : swapped ? last_pos : last;
    int nax = two_axes ? 2 : 1;
    int m = mean(g, x, variant == LN_CENTRE_AXIS1 ? ax1 : ax, nax, "m");
    int d = tp_op2(g, EM_OP_SUB, x, m, "d");
    int p = swapped ? tp_op2(g, EM_OP_MUL, d, d, "p")
                    : tp_op2(g, EM_OP_POW, d, tp_scalar(g, "two", variant == LN_POW4 ? 4.0f : 2.0f),
                             "p");
    int v = mean(g, p, variant == LN_MEAN_AXIS1 ? ax1 : ax, nax, "v");
    int eps = tp_scalar(g, "eps", variant == LN_EPS_NEGATIVE ? -1e-5f : 1e-5f);
    int ve = swapped ? tp_op2(g, EM_OP_ADD, eps, v, "ve") : tp_op2(g, EM_OP_ADD, v, eps, "ve");
    int s = tp_op2(g, EM_OP_SQRT, ve, -1, "s");
    int n = swapped ? tp_op2(g, EM_OP_MUL, tp_op2(g, EM_OP_RECIPROCAL, s, -1, "r"), d, "n")
                    : tp_op2(g, EM_OP_DIV, d, s, "n");
    int y = n;
    if (variant == LN_GAMMA_INPUT) {
        y = tp_op2(g, EM_OP_MUL, n, tp_op2(g, EM_OP_ABS, x, -1, "absx"), "gn");
        y = tp_op2(g, EM_OP_ADD, y, tp_init_f32(g, "beta", 1, n8, 2, -0.5f, 0.5f), "y");
    } else if (variant == LN_GAMMA_OUTER) {
        y = tp_op2(g, EM_OP_MUL, n, tp_init_f32(g, "gamma", 2, n31, 1, 0.5f, 1.5f), "y");
    } else if (variant != LN_PLAIN) {
        int gamma = swapped    ? tp_init_f32(g, "gamma", 3, n118, 1, 0.5f, 1.5f)
                    : two_axes ? tp_init_f32(g, "gamma", 2, n38, 1, 0.5f, 1.5f)
                               : tp_init_f32(g, "gamma", 1, n8, 1, 0.5f, 1.5f);
        y = swapped ? tp_op2(g, EM_OP_MUL, gamma, n, "gn") : tp_op2(g, EM_OP_MUL, n, gamma, "gn");
        if (!two_axes) {
            int beta = tp_init_f32(g, "beta", 1, n8, 2, -0.5f, 0.5f);
            y = swapped ? tp_op2(g, EM_OP_ADD, beta, y, "y") : tp_op2(g, EM_OP_ADD, y, beta, "y");
        }
    }
    OK(em_graph_mark_output(g, y));
    if (variant == LN_VAR_OUTPUT) {
        OK(em_graph_mark_output(g, v));
    }
    if (variant == LN_D_READER) {
        OK(em_graph_mark_output(g, tp_op2(g, EM_OP_ABS, d, -1, "absd")));
    }
}

static void check_ln(int variant, int ln, int rms, int mul, int rmean)
{
    const tp_count want[] = {{EM_OP_LAYERNORM, ln},
                             {EM_OP_RMSNORMALIZATION, rms},
                             {EM_OP_MUL, mul},
                             {EM_OP_REDUCEMEAN, rmean},
                             {EM_OP_SQRT, ln + rms > 0 ? 0 : 1}};
    tp_check_fused(build_ln, variant, 3, xd, want, 5, 1e-5, 1e-5);
}

/* The form torch.onnx writes (opset < 17): one LayerNormalization, nothing else. */
static void test_layernorm_torch_form(void **state)
{
    (void)state;
    check_ln(LN_TORCH, 1, 0, 0, 0);
    const tp_count none[] = {{EM_OP_ADD, 0}, {EM_OP_SUB, 0}, {EM_OP_DIV, 0}, {EM_OP_POW, 0}};
    tp_check_fused(build_ln, LN_TORCH, 3, xd, none, 4, 1e-5, 1e-5);
}

static void test_layernorm_forms(void **state)
{
    (void)state;
    check_ln(LN_SWAPPED, 1, 0, 0, 0);
    check_ln(LN_2AXES, 1, 0, 0, 0);
    check_ln(LN_PLAIN, 1, 0, 0, 0);
    check_ln(LN_GAMMA_INPUT, 1, 0, 1, 0); /* the non-constant gamma stays a Mul (and beta) */
}

static void test_layernorm_not_fused(void **state)
{
    (void)state;
    check_ln(LN_POW4, 0, 0, 1, 2);
    check_ln(LN_MEAN_AXIS1, 0, 0, 1, 2);
    check_ln(LN_EPS_NEGATIVE, 0, 0, 1, 2);
    check_ln(LN_VAR_OUTPUT, 0, 0, 1, 2);
}

/* What is proved fuses, the rest stays: a centring over another axis, or a centred value read
 * elsewhere, leaves d / sqrt(mean(d^2) + eps) * gamma = RMSNorm(d, gamma) with the centring
 * and beta's Add kept; a gamma
 * along an outer axis stays a Mul after a plain LayerNorm. */
static void test_layernorm_partly(void **state)
{
    (void)state;
    check_ln(LN_CENTRE_AXIS1, 0, 1, 0, 1); /* RMSNorm(d, gamma), then the Add of beta */
    check_ln(LN_D_READER, 0, 1, 0, 1);
    check_ln(LN_GAMMA_OUTER, 1, 0, 1, 0);
}

enum { RMS_LLAMA, RMS_DIV, RMS_RECIP, RMS_TWO_OVER, RMS_AXIS0 };

static void build_rms(em_graph *g, int x, int variant)
{
    static const int64_t last[1] = {-1}, first[1] = {0};
    const int64_t n8[1] = {8}, n1[1] = {1};
    int p = variant == RMS_DIV ? tp_op2(g, EM_OP_MUL, x, x, "p")
                               : tp_op2(g, EM_OP_POW, x, tp_scalar(g, "two", 2.0f), "p");
    int v = mean(g, p, variant == RMS_AXIS0 ? first : last, 1, "v");
    int s =
        tp_op2(g, EM_OP_SQRT, tp_op2(g, EM_OP_ADD, v, tp_scalar(g, "eps", 1e-6f), "ve"), -1, "s");
    int y;
    if (variant == RMS_DIV) {
        y = tp_op2(g, EM_OP_DIV, x, s, "y");
    } else if (variant == RMS_RECIP) {
        int n = tp_op2(g, EM_OP_MUL, tp_op2(g, EM_OP_RECIPROCAL, s, -1, "r"), x, "n");
        y = tp_op2(g, EM_OP_MUL, n, tp_init_f32(g, "w", 1, n1, 3, 0.5f, 1.5f), "y");
    } else {
        float k = variant == RMS_TWO_OVER ? 2.0f : 1.0f;
        int n = tp_op2(g, EM_OP_MUL, x, tp_op2(g, EM_OP_DIV, tp_scalar(g, "one", k), s, "r"), "n");
        y = tp_op2(g, EM_OP_MUL, tp_init_f32(g, "w", 1, n8, 3, 0.5f, 1.5f), n, "y");
    }
    OK(em_graph_mark_output(g, y));
}

static void test_rmsnorm(void **state)
{
    (void)state;
    const tp_count fused[] = {{EM_OP_RMSNORMALIZATION, 1},
                              {EM_OP_MUL, 0},
                              {EM_OP_DIV, 0},
                              {EM_OP_REDUCEMEAN, 0},
                              {EM_OP_SQRT, 0}};
    tp_check_fused(build_rms, RMS_LLAMA, 3, xd, fused, 5, 1e-5, 1e-5);
    tp_check_fused(build_rms, RMS_DIV, 3, xd, fused, 5, 1e-5, 1e-5);
    tp_check_fused(build_rms, RMS_RECIP, 3, xd, fused, 5, 1e-5, 1e-5);
    const tp_count kept[] = {{EM_OP_RMSNORMALIZATION, 0}, {EM_OP_REDUCEMEAN, 1}, {EM_OP_SQRT, 1}};
    tp_check_fused(build_rms, RMS_TWO_OVER, 3, xd, kept, 3, 1e-5, 1e-5);
    tp_check_fused(build_rms, RMS_AXIS0, 3, xd, kept, 3, 1e-5, 1e-5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layernorm_torch_form),
        cmocka_unit_test(test_layernorm_forms),
        cmocka_unit_test(test_layernorm_not_fused),
        cmocka_unit_test(test_layernorm_partly),
        cmocka_unit_test(test_rmsnorm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
