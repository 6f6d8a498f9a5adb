/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gelu-20, Swish-24 and SwiGLU-28 on the elementwise engine (math_ew_ref.c), float dtypes.
 *
 * Gelu: 0.5 * x * (1 + erf(x / sqrt(2))), or with approximate = "tanh"
 * 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), in double (in forms without
 * cancellation for negative x), rounded once.
 * Swish: x * sigmoid(alpha * x) (alpha defaults to 1). SwiGLU: Swish(A) * B (alpha as Swish's;
 * A and B have one shape, SwiGLU never broadcasts). As in the ONNX reference implementation,
 * alpha * x, the sigmoid and Swish(A) are rounded to the data's dtype before the next step, so
 * f16 and bf16 results match it; f32 and f64 are barely affected.
 */
#include "ref.h"

#include <math.h>
#include <string.h>

typedef const em_math_blk *const *xs_t;

double em_math_round(ember_dtype dt, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return (float)v;
    case EMBER_DTYPE_F16:
        return em_math_f16_to_double(em_math_f16_from_double(v));
    case EMBER_DTYPE_BF16:
        return em_math_bf16_to_double(em_math_bf16_from_double(v));
    default:
        return v;
    }
}

/* v rounded to the output dtype's precision. */
static double rnd(const em_math_state *s, double v)
{
    return em_math_round(s->y_dt, v);
}

/* 1 / (1 + e^-z) without overflow in exp. */
static double sigmoid(double z)
{
    return z >= 0.0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
}

/* Swish(v) with the reference's roundings. */
static double swish(const em_math_state *s, double v)
{
    double z = rnd(s, s->at.alpha * v);
    return rnd(s, v * rnd(s, sigmoid(z)));
}

static void gelu_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    const double k = 0.79788456080286535588; /* sqrt(2 / pi) */
    for (int i = 0; i < n; i++) {
        double v = x[0]->f[i];
        /* 0.5 (1 + tanh(z)) = sigmoid(2 z) and 1 + erf(u) = erfc(-u): no cancellation for
         * negative x */
        y->f[i] = s->at.mode ? v * sigmoid(2.0 * k * (v + 0.044715 * v * v * v))
                             : 0.5 * v * erfc(-v * 0.70710678118654752440);
    }
}

static void swish_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int i = 0; i < n; i++) {
        y->f[i] = swish(s, x[0]->f[i]);
    }
}

static void swiglu_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int i = 0; i < n; i++) {
        y->f[i] = swish(s, x[0]->f[i]) * x[1]->f[i];
    }
}

static ember_status *parse_gelu(const em_kinfo *ki, em_math_state *s)
{
    static const char *const names[] = {"none", "tanh"};
    int mode = 0;
    ember_status *st = em_nn_attr_enum(ki, "approximate", names, 2, 0, &mode);
    s->at.mode = mode;
    return st;
}

static ember_status *parse_alpha(const em_kinfo *ki, em_math_state *s)
{
    float alpha;
    ember_status *st = em_ref_attr_float(ki, "alpha", 1.0f, &alpha);
    s->at.alpha = alpha;
    return st;
}

#define ROW(op, fn, parse)                                                                         \
    {                                                                                              \
        EM_OP_##op, EM_MATH_FLOATS, 0, EM_MATH_IN_SAME, EM_MATH_OUT_SAME, EM_MATH_BC_MULTI, fn,    \
            parse                                                                                  \
    }

static const em_math_opdef act_defs[] = {
    ROW(GELU, gelu_fn, parse_gelu),
    ROW(SWISH, swish_fn, parse_alpha),
    ROW(SWIGLU, swiglu_fn, parse_alpha),
};

const em_math_opdef *em_math_act_def(em_op op)
{
    for (size_t i = 0; i < sizeof act_defs / sizeof act_defs[0]; i++) {
        if (act_defs[i].op == op) {
            return &act_defs[i];
        }
    }
    return NULL;
}
