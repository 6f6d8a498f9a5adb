/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/autograd.c, elementwise and linear-algebra rules, against central finite
 * differences (test_autograd_util.h): f64 where the kernels have it (eps 1e-6, rtol 1e-5),
 * f32 otherwise (eps 1e-2, atol 2e-3, rtol 1e-2), on random inputs with odd shapes, numpy
 * broadcasting and symbolic dims. Also: gradients summed over several consumers, the default
 * seed (ones), zeros for an x that y does not depend on, and the errors for an op without a
 * rule and for a bad spec.
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
#define IN4(a, b, c, d) {4, {a, b, c, d}, {a, b, c, d}, AG_ANY, false}
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
static int b_matmul(em_graph *g, const int *x) { return ag_op2(g, EM_OP_MATMUL, x[0], x[1]); }

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
UNARY(b_identity, IDENTITY)
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

/* Several consumers of one value: y = x * x + Exp(x) - x / (1 + x^2). */
static int b_fanout(em_graph *g, const int *x)
{
    const double one = 1.0;
    int x2 = ag_op2(g, EM_OP_MUL, x[0], x[0]);
    int d = ag_op2(g, EM_OP_ADD, ag_const(g, ag_dt(g), 0, NULL, &one), x2);
    int t = ag_op2(g, EM_OP_ADD, x2, ag_op1(g, EM_OP_EXP, x[0]));
    return ag_op2(g, EM_OP_SUB, t, ag_op2(g, EM_OP_DIV, x[0], d));
}

static int b_softmax(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_SOFTMAX, x[0]);
    ag_int(g, y, "axis", 1);
    return y;
}

static int b_logsoftmax(em_graph *g, const int *x) { return ag_op1(g, EM_OP_LOGSOFTMAX, x[0]); }

#define GEMM(fn, ta, tb, alpha, beta)                                                       \
    static int fn(em_graph *g, const int *x)                                               \
    {                                                                                      \
        int y = ag_op3(g, EM_OP_GEMM, x[0], x[1], x[2]);                                   \
        ag_int(g, y, "transA", ta);                                                        \
        ag_int(g, y, "transB", tb);                                                        \
        ag_float(g, y, "alpha", alpha);                                                    \
        ag_float(g, y, "beta", beta);                                                      \
        return y;                                                                          \
    }
GEMM(b_gemm00, 0, 0, 1.0f, 1.0f)
GEMM(b_gemm01, 0, 1, 0.5f, 2.0f)
GEMM(b_gemm10, 1, 0, -1.5f, 0.25f)
GEMM(b_gemm11, 1, 1, 2.0f, -1.0f)

static int b_gemm_noc(em_graph *g, const int *x) { return ag_op2(g, EM_OP_GEMM, x[0], x[1]); }

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
    {"identity", F64, 1, {IN2(2, 3)}, b_identity, 0, 0, 0},
    {"zero-gradient ops", F64, 1, {IN2(2, 3)}, b_zero, 0, 0, 0},
    {"fan-out", F64, 1, {IN2(3, 3)}, b_fanout, 0, 0, 0},
    {"softmax", F32, 1, {IN3(2, 3, 4)}, b_softmax, 0, 0, 0},
    {"logsoftmax", F64, 1, {IN3(2, 3, 4)}, b_logsoftmax, 0, 0, 0},
    {"matmul", F32, 2, {IN2(2, 3), IN2(3, 4)}, b_matmul, 0, 0, 0},
    {"matmul batched broadcast", F32, 2, {IN4(2, 1, 3, 4), IN3(3, 4, 5)}, b_matmul, 0, 0, 0},
    {"matmul vector-matrix", F32, 2, {IN1(3), IN3(2, 3, 4)}, b_matmul, 0, 0, 0},
    {"matmul matrix-vector", F32, 2, {IN3(2, 2, 3), IN1(3)}, b_matmul, 0, 0, 0},
    {"matmul vector-vector", F32, 2, {IN1(5), IN1(5)}, b_matmul, 0, 0, 0},
    {"gemm", F32, 3, {IN2(2, 3), IN2(3, 4), IN1(4)}, b_gemm00, 0, 0, 0},
    {"gemm transB", F32, 3, {IN2(2, 3), IN2(4, 3), IN2(2, 1)}, b_gemm01, 0, 0, 0},
    {"gemm transA", F32, 3, {IN2(3, 2), IN2(3, 4), SCALAR}, b_gemm10, 0, 0, 0},
    {"gemm transA transB", F32, 3, {IN2(3, 2), IN2(4, 3), IN2(2, 4)}, b_gemm11, 0, 0, 0},
    {"gemm without C", F32, 2, {IN2(3, 2), IN2(2, 5)}, b_gemm_noc, 0, 0, 0},
    /* Symbolic dims: the broadcast axes are not known while building (split, then summed). */
    {"add symbolic broadcast", F64, 2,
     {{2, {-1, 3}, {4, 3}, AG_ANY, false}, {2, {-1, 3}, {1, 3}, AG_ANY, false}}, b_add, 0, 0, 0},
    {"mul symbolic both ways", F64, 2,
     {{3, {-1, -1, 2}, {1, 3, 2}, AG_ANY, false}, {2, {-1, 2}, {3, 2}, AG_ANY, false}}, b_mul, 0,
     0, 0},
    {"matmul symbolic batch", F32, 2,
     {{3, {-1, 2, 3}, {3, 2, 3}, AG_ANY, false}, {3, {-1, 3, 2}, {1, 3, 2}, AG_ANY, false}},
     b_matmul, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 1000);
}

/* y = x0 * 3 with the default seed: dy/dx0 = 3 everywhere; x1 is not used: zeros. */
static void test_default_seed_and_unused(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    const int64_t d[2] = {2, 3};
    const double three = 3.0;
    int x0, x1, dxs[2];
    OK(em_graph_add_input(m->g, "x0", F32, 2, d, NULL, &x0));
    OK(em_graph_add_input(m->g, "x1", F32, 2, d, NULL, &x1));
    int y = ag_op2(m->g, EM_OP_MUL, x0, ag_const(m->g, F32, 0, NULL, &three));
    const int xs[2] = {x0, x1};
    em_autograd_spec spec = {y, -1, 2, xs, "d"};
    OK(em_autograd(m->g, &spec, dxs));
    OK(em_graph_mark_output(m->g, dxs[0]));
    OK(em_graph_mark_output(m->g, dxs[1]));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
    ember_tensor *in[2], *out[2] = {NULL, NULL};
    OK(ember_tensor_wrap(F32, d, 2, a, sizeof a, &in[0]));
    OK(ember_tensor_wrap(F32, d, 2, b, sizeof b, &in[1]));
    OK(ember_session_run(s, in, 2, out, 2));
    for (int i = 0; i < 6; i++) {
        assert_float_equal(((const float *)ember_tensor_data(out[0]))[i], 3.0f, 0.0f);
        assert_float_equal(((const float *)ember_tensor_data(out[1]))[i], 0.0f, 0.0f);
    }
    ag_free_outs(out, 2);
    ember_tensor_destroy(in[0]);
    ember_tensor_destroy(in[1]);
    ember_session_destroy(s);
    /* New names carry the prefix; a second call picks another one. */
    assert_non_null(strstr(m->g->values[dxs[1]].name, "d/"));
    int again[2];
    OK(em_autograd(m->g, &spec, again));
    assert_non_null(strstr(m->g->values[again[1]].name, "d.1/"));
    ember_model_destroy(m);
}

static void expect_error(ember_status *st, ember_code code, const char *part1, const char *part2)
{
    assert_non_null(st);
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strstr(msg, part1) == NULL ||
        (part2 != NULL && strstr(msg, part2) == NULL)) {
        fail_msg("unexpected error: %s", msg);
    }
    ember_status_destroy(st);
}

/* An op without a rule on the path is an error naming the node and the op; off the path (a
 * constant branch) it costs nothing. */
static void test_no_rule(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    const int64_t d[2] = {2, 3}, axes[1] = {1};
    const double k[3] = {1, 2, 3};
    int x, dx;
    OK(em_graph_add_input(m->g, "x", F32, 2, d, NULL, &x));
    int off = ag_op2(m->g, EM_OP_REDUCEPROD, ag_const(m->g, F32, 2, (int64_t[]){1, 3}, k),
                     ag_i64(m->g, axes, 1));
    int y = ag_op2(m->g, EM_OP_MUL, x, off);
    em_autograd_spec spec = {y, -1, 1, &x, NULL};
    OK(em_autograd(m->g, &spec, &dx));
    int r = ag_op2(m->g, EM_OP_REDUCEPROD, y, ag_i64(m->g, axes, 1));
    char want[64];
    snprintf(want, sizeof want, "node '%s' (ReduceProd)", m->g->nodes[ag_prod(m->g, r)].name);
    spec.y = ag_op2(m->g, EM_OP_MUL, r, r);
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_UNSUPPORTED, want,
                 "no gradient rule for ReduceProd");
    ember_model_destroy(m);
}

/* A spec naming integer values or out-of-range indices is refused. */
static void test_bad_spec(void **state)
{
    (void)state;
    ember_model *m = ag_model();
    const int64_t d[1] = {3};
    int x, n, dx;
    OK(em_graph_add_input(m->g, "x", F32, 1, d, NULL, &x));
    OK(em_graph_add_input(m->g, "n", EMBER_DTYPE_I64, 1, d, NULL, &n));
    int y = ag_op1(m->g, EM_OP_SHAPE, x);
    em_autograd_spec spec = {y, -1, 1, &x, NULL};
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_INVALID_ARG, "not a floating-point",
                 NULL);
    spec.y = x;
    spec.xs = &n;
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_INVALID_ARG, "'n' is i64", NULL);
    spec.y = m->g->n_values;
    expect_error(em_autograd(m->g, &spec, &dx), EMBER_ERR_INVALID_ARG, "bad y", NULL);
    /* dy/dy is the seed. */
    spec.y = x;
    spec.xs = &x;
    OK(em_autograd(m->g, &spec, &dx));
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_default_seed_and_unused),
        cmocka_unit_test(test_no_rule),
        cmocka_unit_test(test_bad_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
