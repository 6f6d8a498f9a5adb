/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One-input math ops on the elementwise engine (math_ew_ref.c): Cast and CastLike, Clip
 * (optional scalar min / max), Neg, Abs, Sign, Not, IsNaN, IsInf, the float functions (Exp,
 * Log, Sqrt, Reciprocal, Erf, Floor, Ceil, Round, trigonometric and hyperbolic), and the
 * activations (Relu, Sigmoid, Tanh, LeakyRelu, Elu, Selu, Celu, HardSigmoid, HardSwish,
 * Softplus, Softsign, ThresholdedRelu, Shrink, Mish), with the attributes and defaults of their
 * latest ONNX opsets (Cast-28 and CastLike-25 with saturate and round_mode, Clip-13,
 * IsInf-20, activations 6..22).
 *
 * Floats are evaluated in double and rounded once into the output dtype. Integers wrap
 * (Neg and Abs of the most negative value give it back). Round is half to even (rint in the
 * default rounding mode). NaN propagates through Clip, Relu, HardSigmoid and Sign.
 */
#include "ref.h"

#include "core/lowp.h"

#include <math.h>
#include <string.h>

/* clang-format off */
typedef const em_math_blk *const *xs_t;
/* clang-format on */

/* ---- float functions ---------------------------------------------------------------------- */

/* 1 / (1 + e^-x) without overflow in exp. */
static double sigmoid(double v)
{
    if (v >= 0.0) {
        return 1.0 / (1.0 + exp(-v));
    }
    double e = exp(v);
    return e / (1.0 + e);
}

/* log(1 + e^x) without overflow in exp. */
static double softplus(double v)
{
    return v > 0.0 ? v + log1p(exp(-v)) : log1p(exp(v));
}

/* Clamp to [lo, hi] that keeps NaN. */
static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

#define FLOAT_FN(name, expr)                                                                       \
    static void name##_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)                   \
    {                                                                                              \
        const em_math_attrs *at = &s->at;                                                          \
        (void)at;                                                                                  \
        for (int k = 0; k < n; k++) {                                                              \
            double v = x[0]->f[k];                                                                 \
            y->f[k] = (expr);                                                                      \
        }                                                                                          \
    }

/* clang-format off */
FLOAT_FN(exp, exp(v))
FLOAT_FN(log, log(v))
FLOAT_FN(sqrt, sqrt(v))
FLOAT_FN(reciprocal, 1.0 / v)
FLOAT_FN(erf, erf(v))
FLOAT_FN(floor, floor(v))
FLOAT_FN(ceil, ceil(v))
FLOAT_FN(round, rint(v))
FLOAT_FN(sin, sin(v))
FLOAT_FN(cos, cos(v))
FLOAT_FN(tan, tan(v))
FLOAT_FN(asin, asin(v))
FLOAT_FN(acos, acos(v))
FLOAT_FN(atan, atan(v))
FLOAT_FN(sinh, sinh(v))
FLOAT_FN(cosh, cosh(v))
FLOAT_FN(asinh, asinh(v))
FLOAT_FN(acosh, acosh(v))
FLOAT_FN(atanh, atanh(v))
FLOAT_FN(sigmoid, sigmoid(v))
FLOAT_FN(tanh, tanh(v))
/* alpha: LeakyRelu 0.01, Elu 1, Selu 1.6732632, Celu 1, HardSigmoid 0.2, ThresholdedRelu 1;
 * beta: HardSigmoid 0.5; gamma: Selu 1.0507010; Shrink: alpha = lambd, beta = bias. */
FLOAT_FN(leakyrelu, v < 0.0 ? at->alpha * v : v)
FLOAT_FN(elu, v < 0.0 ? at->alpha * (exp(v) - 1.0) : v)
FLOAT_FN(selu, v > 0.0 ? at->gamma * v : at->gamma * (at->alpha * exp(v) - at->alpha))
FLOAT_FN(celu, (v > 0.0 ? v : 0.0) + fmin(0.0, at->alpha * expm1(v / at->alpha)))
FLOAT_FN(hardsigmoid, clampd(at->alpha * v + at->beta, 0.0, 1.0))
FLOAT_FN(hardswish, v * clampd(v / 6.0 + 0.5, 0.0, 1.0))
FLOAT_FN(softplus, softplus(v))
FLOAT_FN(softsign, v / (1.0 + fabs(v)))
FLOAT_FN(mish, v * tanh(softplus(v)))
FLOAT_FN(thresholdedrelu, v > at->alpha ? v : 0.0)
FLOAT_FN(shrink, v < -at->alpha ? v + at->beta : v > at->alpha ? v - at->beta : 0.0)
FLOAT_FN(isnan, isnan(v) ? 1.0 : 0.0)
FLOAT_FN(isinf, isinf(v) && (v < 0 ? (at->mode & 1) : (at->mode & 2)) ? 1.0 : 0.0)
/* clang-format on */

/* ---- ops on every domain ------------------------------------------------------------------ */

/* Integer negation and absolute value in unsigned arithmetic (wraps, never overflows). */
static void neg_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            y->f[k] = -x[0]->f[k];
        } else {
            y->u[k] = 0u - x[0]->u[k];
        }
    }
}

static void abs_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            y->f[k] = fabs(x[0]->f[k]);
        } else if (s->in_dom[0] == EM_MATH_I && x[0]->i[k] < 0) {
            y->u[k] = 0u - x[0]->u[k];
        } else {
            y->u[k] = x[0]->u[k];
        }
    }
}

static void sign_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            double v = x[0]->f[k];
            y->f[k] = v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : v; /* keeps 0, -0 and NaN */
        } else if (s->in_dom[0] == EM_MATH_I) {
            y->i[k] = x[0]->i[k] > 0 ? 1 : x[0]->i[k] < 0 ? -1 : 0;
        } else {
            y->u[k] = x[0]->u[k] != 0 ? 1 : 0;
        }
    }
}

/* NaN propagates; -0 stays -0. */
static void relu_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            y->f[k] = x[0]->f[k] < 0.0 ? 0.0 : x[0]->f[k];
        } else {
            y->i[k] = x[0]->i[k] < 0 ? 0 : x[0]->i[k];
        }
    }
}

static void not_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    for (int k = 0; k < n; k++) {
        y->u[k] = x[0]->u[k] == 0 ? 1 : 0;
    }
}

/* Cast and CastLike: the value passes unchanged in its domain; the store converts. */
static void copy_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    memcpy(y, x[0], sizeof(double) * (size_t)n);
}

/* max(x, min) then min(., max), as numpy.clip: NaN stays, min > max gives max. */
static void clip_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    const em_math_blk *lo = s->n_in > 1 ? x[1] : NULL, *hi = s->n_in > 2 ? x[2] : NULL;
    for (int k = 0; k < n; k++) {
        switch (s->in_dom[0]) {
        case EM_MATH_F: {
            double v = x[0]->f[k];
            v = lo != NULL && v < lo->f[k] ? lo->f[k] : v;
            y->f[k] = hi != NULL && v > hi->f[k] ? hi->f[k] : v;
            break;
        }
        case EM_MATH_I: {
            int64_t v = x[0]->i[k];
            v = lo != NULL && v < lo->i[k] ? lo->i[k] : v;
            y->i[k] = hi != NULL && v > hi->i[k] ? hi->i[k] : v;
            break;
        }
        default: {
            uint64_t v = x[0]->u[k];
            v = lo != NULL && v < lo->u[k] ? lo->u[k] : v;
            y->u[k] = hi != NULL && v > hi->u[k] ? hi->u[k] : v;
            break;
        }
        }
    }
}

/* ---- attribute parsers -------------------------------------------------------------------- */

static ember_status *float_attr(const em_kinfo *ki, const char *name, float dflt, double *v)
{
    float f;
    ember_status *st = em_ref_attr_float(ki, name, dflt, &f);
    *v = f;
    return st;
}

/* Defaults per op (ONNX): alpha, beta, gamma. */
static ember_status *parse_act(const em_kinfo *ki, em_math_state *s)
{
    ember_status *st = NULL;
    em_math_attrs *at = &s->at;
    switch (ki->node->op) {
    case EM_OP_LEAKYRELU:
        EMBER_TRY(float_attr(ki, "alpha", 0.01f, &at->alpha));
        break;
    case EM_OP_ELU:
    case EM_OP_THRESHOLDEDRELU:
        EMBER_TRY(float_attr(ki, "alpha", 1.0f, &at->alpha));
        break;
    case EM_OP_CELU:
        EMBER_TRY(float_attr(ki, "alpha", 1.0f, &at->alpha));
        if (at->alpha == 0.0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'alpha' must not be 0");
        }
        break;
    case EM_OP_SELU:
        EMBER_TRY(float_attr(ki, "alpha", 1.67326319217681884765625f, &at->alpha));
        EMBER_TRY(float_attr(ki, "gamma", 1.05070102214813232421875f, &at->gamma));
        break;
    case EM_OP_HARDSIGMOID:
        EMBER_TRY(float_attr(ki, "alpha", 0.2f, &at->alpha));
        EMBER_TRY(float_attr(ki, "beta", 0.5f, &at->beta));
        break;
    case EM_OP_SHRINK:
        EMBER_TRY(float_attr(ki, "lambd", 0.5f, &at->alpha));
        EMBER_TRY(float_attr(ki, "bias", 0.0f, &at->beta));
        break;
    default:
        break;
    }
    return NULL;
fail:
    return st;
}

static ember_status *parse_isinf(const em_kinfo *ki, em_math_state *s)
{
    ember_status *st = NULL;
    int64_t neg, pos;
    EMBER_TRY(em_ref_attr_int(ki, "detect_negative", 1, &neg));
    EMBER_TRY(em_ref_attr_int(ki, "detect_positive", 1, &pos));
    s->at.mode = (neg != 0 ? 1 : 0) | (pos != 0 ? 2 : 0);
    return NULL;
fail:
    return st;
}

/* Cast and CastLike's 'saturate' (opset 19+, default 1: float8 targets clamp instead of
 * overflowing) and 'round_mode' (opset 24+, default "up": float8e8m0 targets) into s->at.mode
 * as em_lowp flags. */
static ember_status *parse_lowp(const em_kinfo *ki, em_math_state *s)
{
    ember_status *st = NULL;
    int64_t sat;
    EMBER_TRY(em_ref_attr_int(ki, "saturate", 1, &sat));
    const char *rm = em_node_attr_string(ki->node, "round_mode", "up");
    s->at.mode = sat != 0 ? EM_LOWP_SATURATE : 0;
    if (strcmp(rm, "nearest") == 0) {
        s->at.mode |= EM_LOWP_ROUND_NEAREST;
    } else if (strcmp(rm, "down") == 0) {
        s->at.mode |= EM_LOWP_ROUND_DOWN;
    } else if (strcmp(rm, "up") != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "round_mode '%s' is not one of up, down, nearest", rm);
    }
    return NULL;
fail:
    return st;
}

/* Cast: 'to' is required and names an ONNX TensorProto type (= ember_dtype). Types ember has
 * no dtype for (string, complex) are UNSUPPORTED. */
static ember_status *parse_cast(const em_kinfo *ki, em_math_state *s)
{
    ember_status *st = NULL;
    int64_t to;
    const em_attr *a = em_node_attr(ki->node, "to");
    if (a == NULL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'to' is missing");
    }
    EMBER_TRY(em_ref_attr_int(ki, "to", 0, &to));
    if (to <= 0 || to > 64 || !em_dtype_valid((ember_dtype)to)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "cast to type %lld is not supported",
                            (long long)to);
    }
    s->y_dt = (ember_dtype)to;
    s->y_dom = s->in_dom[0];
    return parse_lowp(ki, s);
fail:
    return st;
}

static ember_status *parse_castlike(const em_kinfo *ki, em_math_state *s)
{
    s->y_dom = s->in_dom[0];
    return parse_lowp(ki, s);
}

/* ---- the table ---------------------------------------------------------------------------- */

#define FLT EM_MATH_FLOATS
#define SIGNED (EM_MATH_FLOATS | EM_MATH_SINTS)
/* Cast's dtypes: every numeric one and bool, and the low-precision ones (runtime/core/lowp.h). */
#define CASTABLE                                                                                   \
    (EM_MATH_ALL | EM_MATH_BIT(F8E4M3FN) | EM_MATH_BIT(F8E4M3FNUZ) | EM_MATH_BIT(F8E5M2) |         \
     EM_MATH_BIT(F8E5M2FNUZ) | EM_MATH_BIT(U4) | EM_MATH_BIT(I4) | EM_MATH_BIT(F4E2M1) |          \
     EM_MATH_BIT(F8E8M0) | EM_MATH_BIT(U2) | EM_MATH_BIT(I2) | EM_MATH_BIT(F6E2M3) |              \
     EM_MATH_BIT(F6E3M2))
#define NUM EM_MATH_NUMERIC
/* An op of one input on the dtypes `dt`, output dtype SAME (as input 0) or BOOL. */
#define ROW(op, dt, out, fn, parse)                                                                \
    {                                                                                              \
        EM_OP_##op, dt, 0, EM_MATH_IN_SAME, EM_MATH_OUT_##out, EM_MATH_BC_MULTI, fn, parse         \
    }

/* clang-format off */
static const em_math_opdef unary_defs[] = {
    {EM_OP_CAST, CASTABLE, 0, EM_MATH_IN_SAME, EM_MATH_OUT_ATTR, EM_MATH_BC_MULTI, copy_fn,
     parse_cast},
    {EM_OP_CASTLIKE, CASTABLE, CASTABLE, EM_MATH_IN_FREE, EM_MATH_OUT_IN1, EM_MATH_BC_FIRST,
     copy_fn, parse_castlike},
    {EM_OP_CLIP,      NUM, 0, EM_MATH_IN_SAME, EM_MATH_OUT_SAME, EM_MATH_BC_SCALARS, clip_fn, NULL},
    ROW(NEG, SIGNED, SAME, neg_fn, NULL),
    ROW(ABS, NUM, SAME, abs_fn, NULL),
    ROW(SIGN, NUM, SAME, sign_fn, NULL),
    ROW(RELU, SIGNED, SAME, relu_fn, NULL),
    ROW(NOT, EM_MATH_BIT(BOOL), SAME, not_fn, NULL),
    ROW(ISNAN, FLT, BOOL, isnan_fn, NULL),
    ROW(ISINF, FLT, BOOL, isinf_fn, parse_isinf),
    ROW(EXP, FLT, SAME, exp_fn, NULL),
    ROW(LOG, FLT, SAME, log_fn, NULL),
    ROW(SQRT, FLT, SAME, sqrt_fn, NULL),
    ROW(RECIPROCAL, FLT, SAME, reciprocal_fn, NULL),
    ROW(ERF, FLT, SAME, erf_fn, NULL),
    ROW(FLOOR, FLT, SAME, floor_fn, NULL),
    ROW(CEIL, FLT, SAME, ceil_fn, NULL),
    ROW(ROUND, FLT, SAME, round_fn, NULL),
    ROW(SIN, FLT, SAME, sin_fn, NULL),
    ROW(COS, FLT, SAME, cos_fn, NULL),
    ROW(TAN, FLT, SAME, tan_fn, NULL),
    ROW(ASIN, FLT, SAME, asin_fn, NULL),
    ROW(ACOS, FLT, SAME, acos_fn, NULL),
    ROW(ATAN, FLT, SAME, atan_fn, NULL),
    ROW(SINH, FLT, SAME, sinh_fn, NULL),
    ROW(COSH, FLT, SAME, cosh_fn, NULL),
    ROW(ASINH, FLT, SAME, asinh_fn, NULL),
    ROW(ACOSH, FLT, SAME, acosh_fn, NULL),
    ROW(ATANH, FLT, SAME, atanh_fn, NULL),
    ROW(SIGMOID, FLT, SAME, sigmoid_fn, NULL),
    ROW(TANH, FLT, SAME, tanh_fn, NULL),
    ROW(LEAKYRELU, FLT, SAME, leakyrelu_fn, parse_act),
    ROW(ELU, FLT, SAME, elu_fn, parse_act),
    ROW(SELU, FLT, SAME, selu_fn, parse_act),
    ROW(CELU, FLT, SAME, celu_fn, parse_act),
    ROW(HARDSIGMOID, FLT, SAME, hardsigmoid_fn, parse_act),
    ROW(HARDSWISH, FLT, SAME, hardswish_fn, NULL),
    ROW(SOFTPLUS, FLT, SAME, softplus_fn, NULL),
    ROW(SOFTSIGN, FLT, SAME, softsign_fn, NULL),
    ROW(THRESHOLDEDRELU, FLT, SAME, thresholdedrelu_fn, parse_act),
    ROW(SHRINK, FLT, SAME, shrink_fn, parse_act),
    ROW(MISH, FLT, SAME, mish_fn, NULL),
};
/* clang-format on */

const em_math_opdef *em_math_unary_def(em_op op)
{
    for (size_t i = 0; i < sizeof unary_defs / sizeof unary_defs[0]; i++) {
        if (unary_defs[i].op == op) {
            return &unary_defs[i];
        }
    }
    return NULL;
}
