/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/grad_rules_math.c: the math family's rules against central finite
 * differences (test_autograd_util.h): f64 where the kernels have it (eps 1e-6, rtol 1e-5), f32
 * otherwise (eps 1e-2, atol 2e-3, rtol 1e-2), on random inputs with odd shapes and numpy
 * broadcasting: the arithmetic (Pow with a tensor, constant or integer exponent), the unary
 * functions and activations, Clip (constant or input bounds), Where, Max / Min / Sum / Mean,
 * Cast and the ops whose gradient is zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F64 EMBER_DTYPE_F64
#define F32 EMBER_DTYPE_F32
/* An input of rank r: declared dims, run dims, kind. */
#define IN1(a) {1, {a}, {a}, AG_ANY, false}
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}
#define IN3(a, b, c) {3, {a, b, c}, {a, b, c}, AG_ANY, false}
#define POS2(a, b) {2, {a, b}, {a, b}, AG_POS, false}
#define UNIT2(a, b) {2, {a, b}, {a, b}, AG_UNIT, false}
#define SCALAR {0, {0}, {0}, AG_ANY, false}

static int b_add(em_graph *g, const int *x) { return ag_op2(g, EM_OP_ADD, x[0], x[1]); }
static int b_sub(em_graph *g, const int *x) { return ag_op2(g, EM_OP_SUB, x[0], x[1]); }
static int b_mul(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MUL, x[0], x[1]); }
static int b_div(em_graph *g, const int *x) { return ag_op2(g, EM_OP_DIV, x[0], x[1]); }
static int b_pow(em_graph *g, const int *x) { return ag_op2(g, EM_OP_POW, x[0], x[1]); }
static int b_max(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MAX, x[0], x[1]); }
static int b_min(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MIN, x[0], x[1]); }
static int b_prelu(em_graph *g, const int *x) { return ag_op2(g, EM_OP_PRELU, x[0], x[1]); }
static int b_sum3(em_graph *g, const int *x) { return ag_op3(g, EM_OP_SUM, x[0], x[1], x[2]); }
static int b_mean(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MEAN, x[0], x[1]); }

static int b_pow_const(em_graph *g, const int *x)
{
    const double e = 2.5;
    return ag_op2(g, EM_OP_POW, x[0], ag_const(g, ag_dt(g), 0, NULL, &e));
}

static int b_pow_int(em_graph *g, const int *x)
{
    const int64_t e = 3;
    return ag_op2(g, EM_OP_POW, x[0], ag_i64(g, &e, -1));
}

#define UNARY(fn, OP)                                                                       \
    static int fn(em_graph *g, const int *x) { return ag_op1(g, EM_OP_##OP, x[0]); }
UNARY(b_neg, NEG)
UNARY(b_exp, EXP)
UNARY(b_log, LOG)
UNARY(b_sqrt, SQRT)
UNARY(b_abs, ABS)
UNARY(b_recip, RECIPROCAL)
UNARY(b_erf, ERF)
UNARY(b_sin, SIN)
UNARY(b_cos, COS)
UNARY(b_relu, RELU)
UNARY(b_softplus, SOFTPLUS)
UNARY(b_sigmoid, SIGMOID)
UNARY(b_tanh, TANH)
UNARY(b_tan, TAN)
UNARY(b_atan, ATAN)
UNARY(b_sinh, SINH)
UNARY(b_cosh, COSH)
UNARY(b_asin, ASIN)
UNARY(b_acos, ACOS)
UNARY(b_asinh, ASINH)
UNARY(b_atanh, ATANH)
UNARY(b_selu, SELU)
UNARY(b_softsign, SOFTSIGN)

static int b_acosh(em_graph *g, const int *x)
{
    const double one = 1.0;
    return ag_op1(g, EM_OP_ACOSH, ag_op2(g, EM_OP_ADD, x[0], ag_const(g, ag_dt(g), 0, NULL, &one)));
}

static int b_celu(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_CELU, x[0]);
    ag_float(g, y, "alpha", 0.8f);
    return y;
}

static int b_hardsigmoid(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_HARDSIGMOID, x[0]);
    ag_float(g, y, "alpha", 0.3f);
    ag_float(g, y, "beta", 0.4f);
    return y;
}

/* HardSwish of 3 x, so that all three pieces (x < -3, inside, x > 3) are reached. */
static int b_hardswish(em_graph *g, const int *x)
{
    const double three = 3.0;
    return ag_op1(g, EM_OP_HARDSWISH,
                  ag_op2(g, EM_OP_MUL, x[0], ag_const(g, ag_dt(g), 0, NULL, &three)));
}

static int b_thresholded(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_THRESHOLDEDRELU, x[0]);
    ag_float(g, y, "alpha", 0.5f);
    return y;
}

static int b_leaky(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_LEAKYRELU, x[0]);
    ag_float(g, y, "alpha", 0.2f);
    return y;
}

static int b_elu(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_ELU, x[0]);
    ag_float(g, y, "alpha", 0.7f);
    return y;
}

static int b_clip_const(em_graph *g, const int *x)
{
    const double lo = -0.5, hi = 0.8;
    return ag_op3(g, EM_OP_CLIP, x[0], ag_const(g, ag_dt(g), 0, NULL, &lo),
                  ag_const(g, ag_dt(g), 0, NULL, &hi));
}

/* Clip with min and max as inputs: x [3, 4], min = -x1, max = x2 (x1, x2 positive). */
static int b_clip_inputs(em_graph *g, const int *x)
{
    return ag_op3(g, EM_OP_CLIP, x[0], ag_op1(g, EM_OP_NEG, x[1]), x[2]);
}

static int b_where(em_graph *g, const int *x)
{
    char name[16] = "cond";
    const int64_t d[3] = {1, 3, 1};
    const unsigned char cond[3] = {1, 0, 1};
    int c;
    OK(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_BOOL, 3, d, cond, &c));
    return ag_op3(g, EM_OP_WHERE, c, x[0], x[1]);
}

/* y = Cast(Cast(x, f64)^2, f32). */
static int b_cast(em_graph *g, const int *x)
{
    int a = ag_op1(g, EM_OP_CAST, x[0]);
    ag_int(g, a, "to", EMBER_DTYPE_F64);
    int y = ag_op1(g, EM_OP_CAST, ag_op2(g, EM_OP_MUL, a, a));
    ag_int(g, y, "to", EMBER_DTYPE_F32);
    return y;
}

/* Piecewise constant ops give nothing: y = x + Floor(x) + Round(x) * Sign(x). */
static int b_zero(em_graph *g, const int *x)
{
    int t = ag_op2(g, EM_OP_MUL, ag_op1(g, EM_OP_ROUND, x[0]), ag_op1(g, EM_OP_SIGN, x[0]));
    return ag_op2(g, EM_OP_ADD, ag_op2(g, EM_OP_ADD, x[0], ag_op1(g, EM_OP_FLOOR, x[0])), t);
}

static const ag_case cases[] = {
    {"add broadcast", F64, 2, {IN3(2, 3, 1), IN2(3, 4)}, b_add, 0, 0, 0},
    {"add scalar", F64, 2, {IN2(2, 3), SCALAR}, b_add, 0, 0, 0},
    {"sub broadcast", F64, 2, {IN1(3), IN2(2, 1)}, b_sub, 0, 0, 0},
    {"mul broadcast", F64, 2, {IN3(2, 1, 3), IN2(4, 1)}, b_mul, 0, 0, 0},
    {"div broadcast", F64, 2, {IN2(2, 3), {1, {3}, {3}, AG_POS, false}}, b_div, 0, 0, 0},
    {"pow tensor exponent", F64, 2, {POS2(2, 3), IN1(3)}, b_pow, 0, 0, 0},
    {"pow constant exponent", F64, 1, {POS2(3, 2)}, b_pow_const, 0, 0, 0},
    {"pow int exponent", F64, 1, {IN2(2, 2)}, b_pow_int, 0, 0, 0},
    {"neg", F64, 1, {IN2(2, 3)}, b_neg, 0, 0, 0},
    {"exp", F64, 1, {IN2(2, 3)}, b_exp, 0, 0, 0},
    {"log", F64, 1, {POS2(3, 2)}, b_log, 0, 0, 0},
    {"sqrt", F64, 1, {POS2(3, 2)}, b_sqrt, 0, 0, 0},
    {"abs", F64, 1, {IN2(3, 2)}, b_abs, 0, 0, 0},
    {"reciprocal", F64, 1, {POS2(3, 2)}, b_recip, 0, 0, 0},
    {"erf", F64, 1, {IN2(3, 2)}, b_erf, 0, 0, 0},
    {"sin", F64, 1, {IN2(3, 2)}, b_sin, 0, 0, 0},
    {"cos", F64, 1, {IN2(3, 2)}, b_cos, 0, 0, 0},
    {"tan", F64, 1, {UNIT2(3, 2)}, b_tan, 0, 0, 0},
    {"atan", F64, 1, {IN2(3, 2)}, b_atan, 0, 0, 0},
    {"sinh", F64, 1, {IN2(3, 2)}, b_sinh, 0, 0, 0},
    {"cosh", F64, 1, {IN2(3, 2)}, b_cosh, 0, 0, 0},
    {"asin", F64, 1, {UNIT2(3, 2)}, b_asin, 0, 0, 0},
    {"acos", F64, 1, {UNIT2(3, 2)}, b_acos, 0, 0, 0},
    {"asinh", F64, 1, {IN2(3, 2)}, b_asinh, 0, 0, 0},
    {"acosh", F64, 1, {POS2(3, 2)}, b_acosh, 0, 0, 0},
    {"atanh", F64, 1, {UNIT2(3, 2)}, b_atanh, 0, 0, 0},
    {"selu", F64, 1, {IN2(3, 3)}, b_selu, 0, 0, 0},
    {"celu", F64, 1, {IN2(3, 3)}, b_celu, 0, 0, 0},
    {"hardsigmoid", F64, 1, {IN2(3, 4)}, b_hardsigmoid, 0, 0, 0},
    {"hardswish", F64, 1, {IN2(3, 4)}, b_hardswish, 0, 0, 0},
    {"softsign", F64, 1, {IN2(3, 3)}, b_softsign, 0, 0, 0},
    {"thresholdedrelu", F64, 1, {IN2(3, 3)}, b_thresholded, 0, 0, 0},
    {"relu", F64, 1, {IN3(2, 3, 2)}, b_relu, 0, 0, 0},
    {"relu f32", F32, 1, {IN3(2, 3, 5)}, b_relu, 0, 0, 0},
    {"leakyrelu", F64, 1, {IN2(3, 3)}, b_leaky, 0, 0, 0},
    {"prelu", F64, 2, {IN3(2, 3, 4), IN2(3, 1)}, b_prelu, 0, 0, 0},
    {"elu", F64, 1, {IN2(3, 3)}, b_elu, 0, 0, 0},
    {"softplus", F64, 1, {IN2(3, 3)}, b_softplus, 0, 0, 0},
    {"sigmoid", F64, 1, {IN2(3, 3)}, b_sigmoid, 0, 0, 0},
    {"sigmoid f32", F32, 1, {IN2(3, 3)}, b_sigmoid, 0, 0, 0},
    {"tanh", F64, 1, {IN2(3, 3)}, b_tanh, 0, 0, 0},
    {"clip constants", F64, 1, {IN2(3, 4)}, b_clip_const, 0, 0, 0},
    {"clip inputs", F64, 3, {IN2(3, 4), {0, {0}, {0}, AG_POS, false},
                             {0, {0}, {0}, AG_POS, false}}, b_clip_inputs, 0, 0, 0},
    {"where", F64, 2, {IN3(2, 3, 4), IN1(4)}, b_where, 0, 0, 0},
    {"max", F64, 2, {IN2(2, 3), IN1(3)}, b_max, 0, 0, 0},
    {"min", F64, 2, {IN2(2, 3), IN2(2, 1)}, b_min, 0, 0, 0},
    {"sum", F64, 3, {IN2(2, 3), IN1(3), IN2(2, 1)}, b_sum3, 0, 0, 0},
    {"mean", F64, 2, {IN2(2, 3), IN1(3)}, b_mean, 0, 0, 0},
    {"cast", F32, 1, {IN2(2, 3)}, b_cast, 0, 0, 0},
    {"zero-gradient ops", F64, 1, {IN2(2, 3)}, b_zero, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
