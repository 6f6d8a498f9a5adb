/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the elementwise ops (grad_internal.h). Notation: x = input 0, y = output
 * 0, g = dL/dy. Broadcast inputs get em_gx_sum_to. Derivatives at kinks follow the usual
 * choice: Relu, LeakyRelu, PRelu, Elu and Clip pass g where x > 0 (inside [min, max] for
 * Clip), Abs takes Sign(x) (0 at 0), Max / Min give g to the first input on ties.
 */
#include "autograd/grad_internal.h"

#include <math.h>

static ember_dtype dt_of(const em_gctx *c, int v)
{
    return em_gx_val(c, v)->dtype;
}

static int scalar_like(em_gctx *c, int v, double k)
{
    return em_gx_scalar(c, dt_of(c, v), k);
}

/* Gives g * f to input i when it needs a gradient (summing broadcast axes). */
static void give_scaled(em_gctx *c, const em_node *n, int i, int g, int f)
{
    int x = n->in[i];
    if (em_gx_needs(c, x)) {
        em_gx_give(c, x, em_gx_sum_to(c, f < 0 ? g : em_gx_mul(c, g, f), x));
    }
}

void em_gx_rule_add(em_gctx *c, const em_node *n, const int *gy)
{
    give_scaled(c, n, 0, gy[0], -1);
    give_scaled(c, n, 1, gy[0], -1);
}

void em_gx_rule_sub(em_gctx *c, const em_node *n, const int *gy)
{
    give_scaled(c, n, 0, gy[0], -1);
    if (em_gx_needs(c, n->in[1])) {
        em_gx_give(c, n->in[1], em_gx_neg(c, em_gx_sum_to(c, gy[0], n->in[1])));
    }
}

void em_gx_rule_mul(em_gctx *c, const em_node *n, const int *gy)
{
    give_scaled(c, n, 0, gy[0], n->in[1]);
    give_scaled(c, n, 1, gy[0], n->in[0]);
}

/* y = a / b: da = g / b, db = -g * y / b. */
void em_gx_rule_div(em_gctx *c, const em_node *n, const int *gy)
{
    int a = n->in[0], b = n->in[1], g = gy[0];
    if (em_gx_needs(c, a)) {
        em_gx_give(c, a, em_gx_sum_to(c, em_gx_div(c, g, b), a));
    }
    if (em_gx_needs(c, b)) {
        int t = em_gx_div(c, em_gx_mul(c, g, n->out[0]), b);
        em_gx_give(c, b, em_gx_neg(c, em_gx_sum_to(c, t, b)));
    }
}

void em_gx_rule_neg(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_neg(c, gy[0]));
}

/* y = a ^ b: da = g * b * a ^ (b - 1), db = g * y * log(a). An integer exponent is cast. */
void em_gx_rule_pow(em_gctx *c, const em_node *n, const int *gy)
{
    int a = n->in[0], b = n->in[1], g = gy[0];
    if (em_gx_needs(c, a)) {
        int bf = em_gx_cast(c, b, dt_of(c, a));
        int p = em_gx_op2(c, EM_OP_POW, a, em_gx_sub(c, bf, scalar_like(c, a, 1.0)));
        em_gx_give(c, a, em_gx_sum_to(c, em_gx_mul(c, em_gx_mul(c, g, bf), p), a));
    }
    if (em_gx_needs(c, b)) {
        int t = em_gx_mul(c, em_gx_mul(c, g, n->out[0]), em_gx_op1(c, EM_OP_LOG, a));
        em_gx_give(c, b, em_gx_sum_to(c, t, b));
    }
}

void em_gx_rule_exp(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_mul(c, gy[0], n->out[0]));
}

void em_gx_rule_log(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_div(c, gy[0], n->in[0]));
}

/* dx = g / (2 y). */
void em_gx_rule_sqrt(em_gctx *c, const em_node *n, const int *gy)
{
    int y = n->out[0];
    em_gx_give(c, n->in[0], em_gx_div(c, gy[0], em_gx_add(c, y, y)));
}

void em_gx_rule_abs(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_mul(c, gy[0], em_gx_op1(c, EM_OP_SIGN, n->in[0])));
}

/* dx = -g y^2. */
void em_gx_rule_reciprocal(em_gctx *c, const em_node *n, const int *gy)
{
    int y = n->out[0];
    em_gx_give(c, n->in[0], em_gx_neg(c, em_gx_mul(c, gy[0], em_gx_mul(c, y, y))));
}

/* dx = g * 2 / sqrt(pi) * exp(-x^2). */
void em_gx_rule_erf(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    int e = em_gx_op1(c, EM_OP_EXP, em_gx_neg(c, em_gx_mul(c, x, x)));
    int k = scalar_like(c, x, 2.0 / sqrt(3.14159265358979323846));
    em_gx_give(c, x, em_gx_mul(c, gy[0], em_gx_mul(c, e, k)));
}

void em_gx_rule_sin(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_mul(c, gy[0], em_gx_op1(c, EM_OP_COS, n->in[0])));
}

void em_gx_rule_cos(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_neg(c, em_gx_mul(c, gy[0], em_gx_op1(c, EM_OP_SIN, n->in[0]))));
}

/* The constant k in x's dtype. */
static int unit(em_gctx *c, int x, double k)
{
    return em_gx_scalar(c, dt_of(c, x), k);
}

/* 1 - x^2 (sign +1) or x^2 - 1 (sign -1), or 1 + x^2 (sign 0). */
static int one_x2(em_gctx *c, int x, int sign)
{
    int x2 = em_gx_mul(c, x, x);
    return sign > 0 ? em_gx_sub(c, unit(c, x, 1.0), x2)
                    : (sign < 0 ? em_gx_sub(c, x2, unit(c, x, 1.0)) : em_gx_add(c, x2, unit(c, x, 1.0)));
}

/* Tan, Atan, Sinh, Cosh, Asin, Acos, Asinh, Acosh, Atanh: g times the derivative. */
void em_gx_rule_trig(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], y = n->out[0], g = gy[0], d = -1;
    switch (n->op) {
    case EM_OP_TAN: d = em_gx_mul(c, g, one_x2(c, y, 0)); break;
    case EM_OP_ATAN: d = em_gx_div(c, g, one_x2(c, x, 0)); break;
    case EM_OP_SINH: d = em_gx_mul(c, g, em_gx_op1(c, EM_OP_COSH, x)); break;
    case EM_OP_COSH: d = em_gx_mul(c, g, em_gx_op1(c, EM_OP_SINH, x)); break;
    case EM_OP_ASIN: d = em_gx_div(c, g, em_gx_op1(c, EM_OP_SQRT, one_x2(c, x, 1))); break;
    case EM_OP_ACOS: d = em_gx_neg(c, em_gx_div(c, g, em_gx_op1(c, EM_OP_SQRT, one_x2(c, x, 1)))); break;
    case EM_OP_ASINH: d = em_gx_div(c, g, em_gx_op1(c, EM_OP_SQRT, one_x2(c, x, 0))); break;
    case EM_OP_ACOSH: d = em_gx_div(c, g, em_gx_op1(c, EM_OP_SQRT, one_x2(c, x, -1))); break;
    case EM_OP_ATANH: d = em_gx_div(c, g, one_x2(c, x, 1)); break;
    default: em_gx_fail(c, "not a trigonometric op"); break;
    }
    em_gx_give(c, x, d);
}

/* x > 0 as a bool tensor. */
static int positive(em_gctx *c, int x)
{
    return em_gx_op2(c, EM_OP_GREATER, x, scalar_like(c, x, 0.0));
}

void em_gx_rule_relu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    em_gx_give(c, x, em_gx_where(c, positive(c, x), gy[0], scalar_like(c, x, 0.0)));
}

void em_gx_rule_leakyrelu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    double alpha = em_node_attr_float(n, "alpha", 0.01f);
    int f = em_gx_where(c, positive(c, x), scalar_like(c, x, 1.0), scalar_like(c, x, alpha));
    em_gx_give(c, x, em_gx_mul(c, gy[0], f));
}

/* y = x > 0 ? x : slope * x. */
void em_gx_rule_prelu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], slope = n->in[1], g = gy[0];
    int pos = positive(c, x);
    if (em_gx_needs(c, x)) {
        em_gx_give(c, x, em_gx_where(c, pos, g, em_gx_mul(c, g, slope)));
    }
    if (em_gx_needs(c, slope)) {
        int t = em_gx_where(c, pos, scalar_like(c, x, 0.0), em_gx_mul(c, g, x));
        em_gx_give(c, slope, em_gx_sum_to(c, t, slope));
    }
}

/* y = x > 0 ? x : alpha (exp(x) - 1), so dy/dx = y + alpha for x <= 0. */
void em_gx_rule_elu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    int alpha = scalar_like(c, x, em_node_attr_float(n, "alpha", 1.0f));
    int neg = em_gx_mul(c, g, em_gx_add(c, n->out[0], alpha));
    em_gx_give(c, x, em_gx_where(c, positive(c, x), g, neg));
}

/* Selu: y = gamma (x > 0 ? x : alpha (exp(x) - 1)), dy/dx = gamma or y + gamma alpha. */
void em_gx_rule_selu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    double alpha = em_node_attr_float(n, "alpha", 1.67326319217681884765625f);
    double gamma = em_node_attr_float(n, "gamma", 1.05070102214813232421875f);
    int neg = em_gx_mul(c, g, em_gx_add(c, n->out[0], unit(c, x, alpha * gamma)));
    em_gx_give(c, x, em_gx_where(c, positive(c, x), em_gx_mul(c, g, unit(c, x, gamma)), neg));
}

/* Celu: y = max(0, x) + min(0, alpha (exp(x / alpha) - 1)), dy/dx = 1 or y / alpha + 1. */
void em_gx_rule_celu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    double alpha = em_node_attr_float(n, "alpha", 1.0f);
    int d = em_gx_add(c, em_gx_div(c, n->out[0], unit(c, x, alpha)), unit(c, x, 1.0));
    em_gx_give(c, x, em_gx_where(c, positive(c, x), g, em_gx_mul(c, g, d)));
}

/* HardSigmoid: y = clip(alpha x + beta, 0, 1): alpha g where 0 < y < 1. HardSwish is
 * x HardSigmoid(x) with alpha 1/6, beta 1/2: g (2 x + 3) / 6 inside, g above, 0 below. */
void em_gx_rule_hard(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    bool swish = n->op == EM_OP_HARDSWISH;
    double alpha = swish ? 1.0 / 6.0 : em_node_attr_float(n, "alpha", 0.2f);
    double beta = swish ? 0.5 : em_node_attr_float(n, "beta", 0.5f);
    int s = em_gx_add(c, em_gx_mul(c, x, unit(c, x, alpha)), unit(c, x, beta));
    int below = em_gx_op2(c, EM_OP_LESSOREQUAL, s, unit(c, x, 0.0));
    int above = em_gx_op2(c, EM_OP_GREATEROREQUAL, s, unit(c, x, 1.0));
    int inside = swish ? em_gx_add(c, s, em_gx_mul(c, x, unit(c, x, alpha))) : unit(c, x, alpha);
    int d = em_gx_where(c, above, unit(c, x, swish ? 1.0 : 0.0), inside);
    em_gx_give(c, x, em_gx_mul(c, g, em_gx_where(c, below, unit(c, x, 0.0), d)));
}

/* Softsign: y = x / (1 + |x|), dy/dx = 1 / (1 + |x|)^2. */
void em_gx_rule_softsign(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    int d = em_gx_add(c, unit(c, x, 1.0), em_gx_op1(c, EM_OP_ABS, x));
    em_gx_give(c, x, em_gx_div(c, gy[0], em_gx_mul(c, d, d)));
}

/* ThresholdedRelu: y = x > alpha ? x : 0. */
void em_gx_rule_thresholdedrelu(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    int above = em_gx_op2(c, EM_OP_GREATER, x, unit(c, x, em_node_attr_float(n, "alpha", 1.0f)));
    em_gx_give(c, x, em_gx_where(c, above, gy[0], unit(c, x, 0.0)));
}

void em_gx_rule_softplus(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_mul(c, gy[0], em_gx_op1(c, EM_OP_SIGMOID, n->in[0])));
}

/* dx = g y (1 - y). */
void em_gx_rule_sigmoid(em_gctx *c, const em_node *n, const int *gy)
{
    int y = n->out[0];
    int t = em_gx_mul(c, y, em_gx_sub(c, scalar_like(c, y, 1.0), y));
    em_gx_give(c, n->in[0], em_gx_mul(c, gy[0], t));
}

/* dx = g (1 - y^2). */
void em_gx_rule_tanh(em_gctx *c, const em_node *n, const int *gy)
{
    int y = n->out[0];
    int t = em_gx_sub(c, scalar_like(c, y, 1.0), em_gx_mul(c, y, y));
    em_gx_give(c, n->in[0], em_gx_mul(c, gy[0], t));
}

/* Optional input i of n, or -1. */
static int opt_in(const em_node *n, int i)
{
    return n->n_in > i ? n->in[i] : -1;
}

/* y = min(max(x, lo), hi): x gets g inside [lo, hi], lo below it and hi above it. */
void em_gx_rule_clip(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], lo = opt_in(n, 1), hi = opt_in(n, 2), g = gy[0];
    int zero = scalar_like(c, x, 0.0);
    int below = lo >= 0 ? em_gx_op2(c, EM_OP_LESS, x, lo) : -1;
    int above = hi >= 0 ? em_gx_op2(c, EM_OP_GREATER, x, hi) : -1;
    if (em_gx_needs(c, x)) {
        int t = g;
        t = below >= 0 ? em_gx_where(c, below, zero, t) : t;
        t = above >= 0 ? em_gx_where(c, above, zero, t) : t;
        em_gx_give(c, x, t);
    }
    if (em_gx_needs(c, lo)) {
        int t = em_gx_where(c, below, g, zero);
        t = above >= 0 ? em_gx_where(c, above, zero, t) : t;
        em_gx_give(c, lo, em_gx_sum_to(c, t, lo));
    }
    if (em_gx_needs(c, hi)) {
        em_gx_give(c, hi, em_gx_sum_to(c, em_gx_where(c, above, g, zero), hi));
    }
}

/* Gives Where(cond, g, 0) to a and Where(cond, 0, g) to b. */
static void give_split(em_gctx *c, int cond, int g, int a, int b)
{
    int zero = scalar_like(c, g, 0.0);
    if (em_gx_needs(c, a)) {
        em_gx_give(c, a, em_gx_sum_to(c, em_gx_where(c, cond, g, zero), a));
    }
    if (em_gx_needs(c, b)) {
        em_gx_give(c, b, em_gx_sum_to(c, em_gx_where(c, cond, zero, g), b));
    }
}

void em_gx_rule_where(em_gctx *c, const em_node *n, const int *gy)
{
    give_split(c, n->in[0], gy[0], n->in[1], n->in[2]);
}

void em_gx_rule_maxmin(em_gctx *c, const em_node *n, const int *gy)
{
    if (n->n_in == 1) {
        em_gx_give(c, n->in[0], gy[0]);
        return;
    }
    if (n->n_in > 2) {
        em_gx_fail(c, "the gradient of %s is implemented for one or two inputs, not %d",
                em_op_name(n->op), n->n_in);
        return;
    }
    em_op cmp = n->op == EM_OP_MAX ? EM_OP_GREATEROREQUAL : EM_OP_LESSOREQUAL;
    give_split(c, em_gx_op2(c, cmp, n->in[0], n->in[1]), gy[0], n->in[0], n->in[1]);
}

void em_gx_rule_sum(em_gctx *c, const em_node *n, const int *gy)
{
    for (int i = 0; i < n->n_in; i++) {
        give_scaled(c, n, i, gy[0], -1);
    }
}

void em_gx_rule_mean(em_gctx *c, const em_node *n, const int *gy)
{
    int g = em_gx_div(c, gy[0], scalar_like(c, gy[0], (double)n->n_in));
    for (int i = 0; i < n->n_in; i++) {
        give_scaled(c, n, i, g, -1);
    }
}

void em_gx_rule_cast(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_cast(c, gy[0], dt_of(c, n->in[0])));
}

/* Floor, Ceil, Round, Sign: piecewise constant, the gradient is zero (nothing is given). */
void em_gx_rule_zero(em_gctx *c, const em_node *n, const int *gy)
{
    (void)c;
    (void)n;
    (void)gy;
}
