/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/math_unary_ref.c: every one-input math op (Neg, Abs, Sign, Relu, Not, IsNaN,
 * IsInf, Exp ... Atanh, the activations with default and explicit attributes, Clip with and
 * without its optional bounds) on every dtype it accepts, against formulas written out here in
 * double (from the ONNX operator docs), on odd shapes, a scalar, a zero-sized tensor and one
 * large enough for several parallel chunks; serially, threaded and in place. Special values
 * (NaN, ±inf, -0, halfway cases of Round, the most negative integers) are checked exactly.
 * Malformed nodes fail with the status the kernel contract asks for, naming the node.
 */
#include "test_ref_math_util.h"

#include <float.h>
#include <limits.h>

typedef struct uctx {
    em_op op;
    double alpha, beta, gamma;
    int mode; /* IsInf: bit 0 negative, bit 1 positive */
} uctx;

/* Round half to even without rint. */
static double round_even(double v)
{
    double r = floor(v), d = v - r;
    if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0.0)) {
        r += 1.0;
    }
    return r;
}

static double fmaxd(double a, double b)
{
    return a > b ? a : b;
}

static double fmind(double a, double b)
{
    return a < b ? a : b;
}

static double unary_oracle(const double *x, int n_in, const void *ctx)
{
    const uctx *u = ctx;
    double v = x[0], a = u->alpha;
    switch (u->op) {
    case EM_OP_NEG:
        return -v;
    case EM_OP_ABS:
        return fabs(v);
    case EM_OP_SIGN:
        return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
    case EM_OP_RELU:
        return fmaxd(v, 0.0);
    case EM_OP_NOT:
        return v == 0.0 ? 1.0 : 0.0;
    case EM_OP_ISNAN:
        return isnan(v) ? 1.0 : 0.0;
    case EM_OP_ISINF:
        return isinf(v) && ((v > 0 && (u->mode & 2)) || (v < 0 && (u->mode & 1)));
    case EM_OP_EXP:
        return exp(v);
    case EM_OP_LOG:
        return log(v);
    case EM_OP_SQRT:
        return sqrt(v);
    case EM_OP_RECIPROCAL:
        return 1.0 / v;
    case EM_OP_ERF:
        return erf(v);
    case EM_OP_FLOOR:
        return floor(v);
    case EM_OP_CEIL:
        return ceil(v);
    case EM_OP_ROUND:
        return round_even(v);
    case EM_OP_SIN:
        return sin(v);
    case EM_OP_COS:
        return cos(v);
    case EM_OP_TAN:
        return tan(v);
    case EM_OP_ASIN:
        return asin(v);
    case EM_OP_ACOS:
        return acos(v);
    case EM_OP_ATAN:
        return atan(v);
    case EM_OP_SINH:
        return sinh(v);
    case EM_OP_COSH:
        return cosh(v);
    case EM_OP_ASINH:
        return log(v + sqrt(v * v + 1.0));
    case EM_OP_ACOSH:
        return log(v + sqrt(v * v - 1.0));
    case EM_OP_ATANH:
        return 0.5 * log((1.0 + v) / (1.0 - v));
    case EM_OP_SIGMOID:
        return 1.0 / (1.0 + exp(-v));
    case EM_OP_TANH:
        return tanh(v);
    case EM_OP_LEAKYRELU:
        return v >= 0 ? v : a * v;
    case EM_OP_ELU:
        return v >= 0 ? v : a * (exp(v) - 1.0);
    case EM_OP_SELU:
        return v > 0 ? u->gamma * v : u->gamma * (a * exp(v) - a);
    case EM_OP_CELU:
        return fmaxd(0.0, v) + fmind(0.0, a * (exp(v / a) - 1.0));
    case EM_OP_HARDSIGMOID:
        return fmaxd(0.0, fmind(1.0, a * v + u->beta));
    case EM_OP_HARDSWISH:
        return v * fmaxd(0.0, fmind(1.0, v / 6.0 + 0.5));
    case EM_OP_SOFTPLUS:
        return log(exp(v) + 1.0);
    case EM_OP_SOFTSIGN:
        return v / (1.0 + fabs(v));
    case EM_OP_THRESHOLDEDRELU:
        return v > a ? v : 0.0;
    case EM_OP_SHRINK:
        return v < -a ? v + u->beta : v > a ? v - u->beta : 0.0;
    case EM_OP_CLIP: {
        double lo = n_in > 1 && !isnan(x[1]) ? x[1] : -INFINITY;
        double hi = n_in > 2 && !isnan(x[2]) ? x[2] : INFINITY;
        return fmind(fmaxd(v, lo), hi);
    }
    default:
        fail_msg("no oracle for %s", em_op_name(u->op));
        return 0.0;
    }
}

/* ---- the op table ------------------------------------------------------------------------- */

enum { K_FLT = 1, K_SINT = 2, K_UINT = 4, K_BOOL = 8, K_NUM = 7 };

typedef struct uop {
    em_op op;
    int kinds;
    double lo, hi; /* input range */
    bool bool_out; /* output bool (IsNaN, IsInf) */
    double rtol;   /* extra, for oracles written in another form (asinh, ...) */
} uop;

/* clang-format off */
static const uop uops[] = {
    {EM_OP_NEG, K_FLT | K_SINT, -20, 20, false, 0},
    {EM_OP_ABS, K_NUM, -20, 20, false, 0},
    {EM_OP_SIGN, K_NUM, -3, 3, false, 0},
    {EM_OP_RELU, K_FLT | K_SINT, -20, 20, false, 0},
    {EM_OP_NOT, K_BOOL, 0, 2, false, 0},
    {EM_OP_ISNAN, K_FLT, -4, 4, true, 0},
    {EM_OP_ISINF, K_FLT, -4, 4, true, 0},
    {EM_OP_EXP, K_FLT, -6, 6, false, 0},
    {EM_OP_LOG, K_FLT, 0.01, 50, false, 0},
    {EM_OP_SQRT, K_FLT, 0, 50, false, 0},
    {EM_OP_RECIPROCAL, K_FLT, 0.1, 8, false, 0},
    {EM_OP_ERF, K_FLT, -3, 3, false, 0},
    {EM_OP_FLOOR, K_FLT, -9, 9, false, 0},
    {EM_OP_CEIL, K_FLT, -9, 9, false, 0},
    {EM_OP_ROUND, K_FLT, -9, 9, false, 0},
    {EM_OP_SIN, K_FLT, -6, 6, false, 0},
    {EM_OP_COS, K_FLT, -6, 6, false, 0},
    {EM_OP_TAN, K_FLT, -1.5, 1.5, false, 0},
    {EM_OP_ASIN, K_FLT, -0.99, 0.99, false, 0},
    {EM_OP_ACOS, K_FLT, -0.99, 0.99, false, 0},
    {EM_OP_ATAN, K_FLT, -9, 9, false, 0},
    {EM_OP_SINH, K_FLT, -5, 5, false, 0},
    {EM_OP_COSH, K_FLT, -5, 5, false, 0},
    {EM_OP_ASINH, K_FLT, -9, 9, false, 1e-13},
    {EM_OP_ACOSH, K_FLT, 1.01, 9, false, 1e-13},
    {EM_OP_ATANH, K_FLT, -0.99, 0.99, false, 1e-13},
    {EM_OP_SIGMOID, K_FLT, -9, 9, false, 1e-15},
    {EM_OP_TANH, K_FLT, -5, 5, false, 0},
    {EM_OP_LEAKYRELU, K_FLT, -5, 5, false, 0},
    {EM_OP_ELU, K_FLT, -5, 5, false, 1e-14},
    {EM_OP_SELU, K_FLT, -5, 5, false, 1e-14},
    {EM_OP_CELU, K_FLT, -5, 5, false, 1e-14},
    {EM_OP_HARDSIGMOID, K_FLT, -5, 5, false, 1e-15},
    {EM_OP_HARDSWISH, K_FLT, -5, 5, false, 1e-15},
    {EM_OP_SOFTPLUS, K_FLT, -5, 5, false, 1e-14},
    {EM_OP_SOFTSIGN, K_FLT, -5, 5, false, 0},
    {EM_OP_THRESHOLDEDRELU, K_FLT, -3, 3, false, 0},
    {EM_OP_SHRINK, K_FLT, -3, 3, false, 0},
};
/* clang-format on */

static int kind_of(ember_dtype dt)
{
    return dt == EMBER_DTYPE_BOOL ? K_BOOL
           : tm_is_float(dt)      ? K_FLT
           : tm_is_unsigned(dt)   ? K_UINT
                                  : K_SINT;
}

typedef struct ushape {
    const char *name;
    int rank;
    int64_t dims[4];
} ushape;

static const ushape ushapes[] = {
    {"2d", 2, {7, 17}},
    {"scalar", 0, {0}},
    {"zero", 2, {0, 5}},
    {"4d", 4, {2, 3, 1, 5}},
};

/* Attributes set on the node, and the values the oracle expects (defaults otherwise). */
typedef struct uattrs {
    const char *names[2];
    float vals[2];
} uattrs;

static void set_attrs(t_node *tn, uctx *u, const uattrs *at)
{
    for (int i = 0; i < 2 && at != NULL && at->names[i] != NULL; i++) {
        t_set_float(tn, at->names[i], at->vals[i]);
        if (strcmp(at->names[i], "alpha") == 0 || strcmp(at->names[i], "lambd") == 0) {
            u->alpha = at->vals[i];
        } else if (strcmp(at->names[i], "gamma") == 0) {
            u->gamma = at->vals[i];
        } else {
            u->beta = at->vals[i];
        }
    }
}

static void defaults(uctx *u)
{
    u->mode = 3;
    u->beta = 0.0;
    u->gamma = 0.0;
    switch (u->op) {
    case EM_OP_LEAKYRELU:
        u->alpha = (float)0.01f;
        break;
    case EM_OP_SELU:
        u->alpha = 1.67326319217681884765625f;
        u->gamma = 1.05070102214813232421875f;
        break;
    case EM_OP_HARDSIGMOID:
        u->alpha = (float)0.2f;
        u->beta = 0.5;
        break;
    case EM_OP_SHRINK:
        u->alpha = 0.5;
        break;
    default:
        u->alpha = 1.0;
        break;
    }
}

static void run_uop(const uop *o, const uattrs *at, em_threadpool *pool)
{
    for (int t = 0; t < TM_N_DTYPES; t++) {
        ember_dtype dt = tm_all_dtypes[t];
        if (!(kind_of(dt) & o->kinds)) {
            continue;
        }
        for (size_t s = 0; s < sizeof ushapes / sizeof ushapes[0]; s++) {
            t_node tn;
            t_node_init(&tn, o->op, "unary");
            uctx u = {o->op, 0, 0, 0, 3};
            defaults(&u);
            set_attrs(&tn, &u, at);
            tm_case c = {ushapes[s].name, 1, {dt}, {ushapes[s].rank}, {{0}}};
            memcpy(c.dims[0], ushapes[s].dims, sizeof c.dims[0]);
            tm_range r = {o->lo, o->hi};
            tm_opts opt = {&r, 0.0, o->rtol, false};
            ember_dtype ydt = o->bool_out ? EMBER_DTYPE_BOOL : dt;
            tm_check(&tn, &c, ydt, unary_oracle, &u, &opt, true, pool);
        }
    }
}

static void test_unary_ops(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof uops / sizeof uops[0]; i++) {
        run_uop(&uops[i], NULL, pool);
    }
    em_threadpool_destroy(pool);
}

static void test_activation_attrs(void **state)
{
    (void)state;
    static const struct {
        em_op op;
        uattrs at;
    } cases[] = {
        {EM_OP_LEAKYRELU, {{"alpha", NULL}, {0.2f, 0}}},
        {EM_OP_ELU, {{"alpha", NULL}, {2.5f, 0}}},
        {EM_OP_SELU, {{"alpha", "gamma"}, {2.0f, 3.0f}}},
        {EM_OP_CELU, {{"alpha", NULL}, {2.0f, 0}}},
        {EM_OP_CELU, {{"alpha", NULL}, {-0.5f, 0}}},
        {EM_OP_HARDSIGMOID, {{"alpha", "beta"}, {0.3f, 0.4f}}},
        {EM_OP_THRESHOLDEDRELU, {{"alpha", NULL}, {0.5f, 0}}},
        {EM_OP_SHRINK, {{"lambd", "bias"}, {1.5f, 0.5f}}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t j = 0; j < sizeof uops / sizeof uops[0]; j++) {
            if (uops[j].op == cases[i].op) {
                run_uop(&uops[j], &cases[i].at, NULL);
            }
        }
    }
}

/* One large tensor: parallel chunks start mid-block. */
static void test_unary_large(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    static const em_op ops[] = {EM_OP_EXP, EM_OP_NEG, EM_OP_HARDSWISH};
    static const ember_dtype dts[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F16, EMBER_DTYPE_I32};
    for (int i = 0; i < 3; i++) {
        for (int t = 0; t < 3; t++) {
            if (ops[i] != EM_OP_NEG && dts[t] == EMBER_DTYPE_I32) {
                continue;
            }
            t_node tn;
            t_node_init(&tn, ops[i], "large");
            uctx u = {ops[i], 0, 0, 0, 3};
            tm_case c = {"large", 1, {dts[t]}, {2}, {{300, 257}}};
            tm_range r = {-4, 4};
            tm_opts opt = {&r, 0.0, 0.0, false};
            tm_check(&tn, &c, dts[t], unary_oracle, &u, &opt, true, pool);
        }
    }
    em_threadpool_destroy(pool);
}

/* ---- Clip --------------------------------------------------------------------------------- */

static void test_clip(void **state)
{
    (void)state;
    /* bounds: 0 none, 1 min only, 2 max only, 3 both, 4 both as [1]-shaped, 5 min > max */
    for (int t = 0; t < TM_N_DTYPES - 1; t++) {
        ember_dtype dt = tm_all_dtypes[t];
        for (int b = 0; b < 6; b++) {
            t_node tn;
            t_node_init(&tn, EM_OP_CLIP, "clip");
            uctx u = {EM_OP_CLIP, 0, 0, 0, 0};
            bool has_min = b == 1 || b >= 3, has_max = b >= 2;
            int r1 = b == 4 ? 1 : 0;
            tm_case c = {"clip",
                         b == 1   ? 2
                         : b == 0 ? 1
                                  : 3,
                         {dt, has_min ? dt : EMBER_DTYPE_UNDEFINED, has_max ? dt : 0},
                         {2, r1, r1},
                         {{5, 9}, {1}, {1}}};
            bool uns = tm_is_unsigned(dt);
            tm_range r[3] = {{uns ? 0 : -9, 9}, {uns ? 2 : -3, uns ? 4 : -1}, {3, 6}};
            if (b == 5) {
                r[1] = (tm_range){5, 6};
                r[2] = (tm_range){3, 4};
            }
            tm_opts opt = {r, 0.0, 0.0, true};
            tm_check(&tn, &c, dt, unary_oracle, &u, &opt, true, NULL);
        }
    }
}

/* ---- special values ----------------------------------------------------------------------- */

static void run_f32(em_op op, t_node *tn, const float *x, float *y, int64_t n)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, (void *)x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, y);
    tn->n.op = op;
    t_expect_ok(tm_prepare(tn, in, 1, out), em_op_name(op));
}

static void run_bool_out(em_op op, t_node *tn, const float *x, uint8_t *y, int64_t n)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, (void *)x);
    t_tensor(&out[0], EMBER_DTYPE_BOOL, 1, &n, y);
    tn->n.op = op;
    t_expect_ok(tm_prepare(tn, in, 1, out), em_op_name(op));
}

static void test_special_values(void **state)
{
    (void)state;
    const float x[8] = {NAN, INFINITY, -INFINITY, -0.0f, 2.5f, -2.5f, 0.5f, -1.5f};
    float y[8];
    uint8_t b[8];
    t_node tn;
    t_node_init(&tn, EM_OP_ROUND, "special");
    run_f32(EM_OP_ROUND, &tn, x, y, 8);
    assert_true(isnan(y[0]) && y[1] == INFINITY && y[2] == -INFINITY);
    assert_true(y[3] == 0.0f && signbit(y[3]));
    assert_true(y[4] == 2.0f && y[5] == -2.0f && y[6] == 0.0f && y[7] == -2.0f);
    run_f32(EM_OP_SIGN, &tn, x, y, 8);
    assert_true(isnan(y[0]) && y[1] == 1.0f && y[2] == -1.0f && y[3] == 0.0f && y[5] == -1.0f);
    run_f32(EM_OP_RELU, &tn, x, y, 8);
    assert_true(isnan(y[0]) && y[1] == INFINITY && y[2] == 0.0f && signbit(y[3]));
    run_f32(EM_OP_SOFTPLUS, &tn, x, y, 8);
    assert_true(isnan(y[0]) && y[1] == INFINITY && y[2] == 0.0f);
    run_f32(EM_OP_SIGMOID, &tn, x, y, 8);
    assert_true(y[1] == 1.0f && y[2] == 0.0f);
    run_f32(EM_OP_HARDSIGMOID, &tn, x, y, 8);
    assert_true(isnan(y[0]) && y[1] == 1.0f && y[2] == 0.0f);
    run_f32(EM_OP_EXP, &tn, x, y, 8);
    assert_true(y[1] == INFINITY && y[2] == 0.0f);
    run_f32(EM_OP_LOG, &tn, x, y, 8);
    assert_true(y[3] == -INFINITY && isnan(y[5]));
    run_f32(EM_OP_RECIPROCAL, &tn, x, y, 8);
    assert_true(y[3] == -INFINITY && y[1] == 0.0f);
    run_bool_out(EM_OP_ISNAN, &tn, x, b, 8);
    const uint8_t want_nan[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(b, want_nan, 8);
    run_bool_out(EM_OP_ISINF, &tn, x, b, 8);
    const uint8_t want_inf[8] = {0, 1, 1, 0, 0, 0, 0, 0};
    assert_memory_equal(b, want_inf, 8);
    t_set_int(&tn, "detect_negative", 0);
    run_bool_out(EM_OP_ISINF, &tn, x, b, 8);
    assert_true(b[1] == 1 && b[2] == 0);
    tn.n.n_attrs = 0;
    t_set_int(&tn, "detect_positive", 0);
    run_bool_out(EM_OP_ISINF, &tn, x, b, 8);
    assert_true(b[1] == 0 && b[2] == 1);
}

/* Integer Neg and Abs wrap at the most negative value; Relu and Sign of integers. */
static void test_integer_edges(void **state)
{
    (void)state;
    int64_t n = 4;
    const int64_t x64[4] = {INT64_MIN, INT64_MAX, -5, 0};
    const int8_t x8[4] = {INT8_MIN, INT8_MAX, -5, 0};
    int64_t y64[4];
    int8_t y8[4];
    em_tensor in[1], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_NEG, "int_edges");
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, &n, (void *)x64);
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, &n, y64);
    t_expect_ok(tm_prepare(&tn, in, 1, out), "neg i64");
    assert_true(y64[0] == INT64_MIN && y64[1] == -INT64_MAX && y64[2] == 5 && y64[3] == 0);
    tn.n.op = EM_OP_ABS;
    t_expect_ok(tm_prepare(&tn, in, 1, out), "abs i64");
    assert_true(y64[0] == INT64_MIN && y64[1] == INT64_MAX && y64[2] == 5);
    tn.n.op = EM_OP_RELU;
    t_expect_ok(tm_prepare(&tn, in, 1, out), "relu i64");
    assert_true(y64[0] == 0 && y64[1] == INT64_MAX && y64[2] == 0);
    tn.n.op = EM_OP_SIGN;
    t_expect_ok(tm_prepare(&tn, in, 1, out), "sign i64");
    assert_true(y64[0] == -1 && y64[1] == 1 && y64[2] == -1 && y64[3] == 0);
    t_tensor(&in[0], EMBER_DTYPE_I8, 1, &n, (void *)x8);
    t_tensor(&out[0], EMBER_DTYPE_I8, 1, &n, y8);
    tn.n.op = EM_OP_NEG;
    t_expect_ok(tm_prepare(&tn, in, 1, out), "neg i8");
    assert_true(y8[0] == INT8_MIN && y8[1] == -INT8_MAX && y8[2] == 5);
    tn.n.op = EM_OP_ABS;
    t_expect_ok(tm_prepare(&tn, in, 1, out), "abs i8");
    assert_true(y8[0] == INT8_MIN && y8[2] == 5);
}

/* ---- errors ------------------------------------------------------------------------------- */

static ember_status *try1(t_node *tn, ember_dtype xdt, ember_dtype ydt, int64_t ylen)
{
    static uint64_t xb[8], yb[8];
    int64_t n = 3;
    em_tensor in[1], out[1];
    t_tensor(&in[0], xdt, 1, &n, xb);
    t_tensor(&out[0], ydt, 1, &ylen, yb);
    return tm_prepare(tn, in, 1, out);
}

static void test_errors(void **state)
{
    (void)state;
    t_node tn;
    t_node_init(&tn, EM_OP_EXP, "bad_exp");
    t_expect_error(try1(&tn, EMBER_DTYPE_I32, EMBER_DTYPE_I32, 3), EMBER_ERR_UNSUPPORTED, "bad_exp",
                   "exp of i32");
    t_expect_error(try1(&tn, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 4), EMBER_ERR_INVALID_MODEL,
                   "bad_exp", "output shape");
    t_expect_error(try1(&tn, EMBER_DTYPE_F32, EMBER_DTYPE_F64, 3), EMBER_ERR_INVALID_MODEL,
                   "bad_exp", "output dtype");
    t_node_init(&tn, EM_OP_NOT, "bad_not");
    t_expect_error(try1(&tn, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 3), EMBER_ERR_UNSUPPORTED, "bad_not",
                   "not of f32");
    t_node_init(&tn, EM_OP_ISNAN, "bad_isnan");
    t_expect_error(try1(&tn, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 3), EMBER_ERR_INVALID_MODEL,
                   "bad_isnan", "isnan to f32");
    t_node_init(&tn, EM_OP_CELU, "bad_celu");
    t_set_float(&tn, "alpha", 0.0f);
    t_expect_error(try1(&tn, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 3), EMBER_ERR_INVALID_MODEL,
                   "bad_celu", "celu alpha 0");
    t_node_init(&tn, EM_OP_LEAKYRELU, "bad_alpha");
    t_set_int(&tn, "alpha", 1);
    t_expect_error(try1(&tn, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 3), EMBER_ERR_INVALID_MODEL,
                   "bad_alpha", "alpha of type int");

    /* Clip: a bound with two elements, or of another dtype. */
    static float xb[3], yb[3], lo[2];
    static double lod[1];
    int64_t n = 3, two = 2;
    em_tensor in[3], out[1];
    t_node_init(&tn, EM_OP_CLIP, "bad_clip");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, xb);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &two, lo);
    t_absent(&in[2]);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, yb);
    t_expect_error(tm_prepare(&tn, in, 3, out), EMBER_ERR_INVALID_MODEL, "bad_clip", "min [2]");
    t_tensor(&in[1], EMBER_DTYPE_F64, 0, NULL, lod);
    t_expect_error(tm_prepare(&tn, in, 3, out), EMBER_ERR_INVALID_MODEL, "bad_clip", "min f64");
    t_absent(&in[0]);
    t_expect_error(tm_prepare(&tn, in, 3, out), EMBER_ERR_INVALID_MODEL, "bad_clip", "no X");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_ops),      cmocka_unit_test(test_activation_attrs),
        cmocka_unit_test(test_unary_large),    cmocka_unit_test(test_clip),
        cmocka_unit_test(test_special_values), cmocka_unit_test(test_integer_edges),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
