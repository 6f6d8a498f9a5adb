/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broadcasting math ops of two or more inputs on the elementwise engine (math_ew_ref.c): Add,
 * Sub, Mul, Div (the dtypes math_eltwise_ref.c leaves out), Pow (base and exponent of different
 * dtypes, Pow-15), Mod (fmod attribute), BitShift, Equal, Less, LessOrEqual, Greater,
 * GreaterOrEqual, And, Or, Xor, Where, the variadic Max, Min, Sum and Mean, and PRelu (slope
 * broadcast to X).
 *
 * Numerics: floats in double, rounded once into the output dtype (Sum and Mean accumulate in
 * double). Integers wrap (two's complement, computed in unsigned). Integer Div truncates toward
 * zero and Mod of integers follows the sign of the divisor (fmod = 0, Python's %) or of the
 * dividend (fmod = 1, C's %); a zero divisor gives 0 for both (ONNX leaves it undefined; this
 * never traps), and INT_MIN / -1 wraps. Max and Min propagate NaN (numpy.maximum). Pow of an
 * integer base: an integer exponent gives the exact wrapped power (negative exponents: 1 and -1
 * keep their powers, anything else gives 0), a float exponent gives pow() in double converted
 * by the Cast rule (truncated toward zero). BitShift of unsigned values by the width or more: 0.
 * Mod-28: floats with fmod = 0 are numpy.mod (fmod, moved by the divisor when the signs differ,
 * a zero taking the divisor's sign). BitShift-28: signed values shift right arithmetically; a
 * shift < 0 or >= the width gives the sign fill (-1 for a right shift of a negative value, else 0).
 */
#include "ref.h"

#include <math.h>
#include <string.h>

typedef const em_math_blk *const *xs_t;

/* ---- arithmetic --------------------------------------------------------------------------- */

static int64_t idiv(int64_t a, int64_t b)
{
    if (b == 0) {
        return 0;
    }
    if (b == -1) {
        return (int64_t)(0u - (uint64_t)a); /* INT64_MIN / -1 wraps */
    }
    return a / b;
}

/* Remainder with the sign of the dividend (C) or, when `floor`, of the divisor (Python). */
static int64_t imod(int64_t a, int64_t b, bool floor_mod)
{
    if (b == 0 || b == -1) {
        return 0;
    }
    int64_t r = a % b;
    if (floor_mod && r != 0 && ((r < 0) != (b < 0))) {
        r += b;
    }
    return r;
}

typedef enum arith { AR_ADD, AR_SUB, AR_MUL, AR_DIV } arith;

static void arith_run(arith op, const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    const em_math_blk *a = x[0], *b = x[1];
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            double p = a->f[k], q = b->f[k];
            y->f[k] = op == AR_ADD ? p + q : op == AR_SUB ? p - q : op == AR_MUL ? p * q : p / q;
            continue;
        }
        uint64_t p = a->u[k], q = b->u[k]; /* the same bits for both integer domains */
        if (op == AR_DIV) {
            y->u[k] =
                s->in_dom[0] == EM_MATH_I ? (uint64_t)idiv(a->i[k], b->i[k]) : (q == 0 ? 0 : p / q);
        } else {
            y->u[k] = op == AR_ADD ? p + q : op == AR_SUB ? p - q : p * q;
        }
    }
}

#define ARITH_FN(name, op)                                                                         \
    static void name##_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)                   \
    {                                                                                              \
        arith_run(op, s, x, y, n);                                                                 \
    }
ARITH_FN(add, AR_ADD)
ARITH_FN(sub, AR_SUB)
ARITH_FN(mul, AR_MUL)
ARITH_FN(div, AR_DIV)

/* numpy.mod of doubles (npy_divmod): the remainder with the divisor's sign. */
static double pymod(double a, double b)
{
    double m = fmod(a, b);
    if (b == 0.0) {
        return m; /* NaN */
    }
    if (m == 0.0) {
        return copysign(0.0, b);
    }
    return (b < 0.0) != (m < 0.0) ? m + b : m;
}

/* at.mode: 1 = fmod (sign of the dividend), 0 = sign of the divisor. */
static void mod_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            y->f[k] = s->at.mode ? fmod(x[0]->f[k], x[1]->f[k]) : pymod(x[0]->f[k], x[1]->f[k]);
        } else if (s->in_dom[0] == EM_MATH_I) {
            y->i[k] = imod(x[0]->i[k], x[1]->i[k], s->at.mode == 0);
        } else {
            y->u[k] = x[1]->u[k] == 0 ? 0 : x[0]->u[k] % x[1]->u[k];
        }
    }
}

/* at.mode: 1 = LEFT. The store keeps the low bits of a left shift. */
static void bitshift_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    const int64_t width = (int64_t)em_dtype_size(s->in_dt[0]) * 8;
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_U) {
            uint64_t v = x[0]->u[k], sh = x[1]->u[k];
            y->u[k] = sh >= 64 ? 0 : s->at.mode ? v << sh : v >> sh;
            continue;
        }
        int64_t v = x[0]->i[k], sh = x[1]->i[k];
        if (sh < 0 || sh >= width) {
            y->i[k] = !s->at.mode && v < 0 ? -1 : 0;
        } else if (s->at.mode) {
            y->u[k] = (uint64_t)v << sh;
        } else {
            y->i[k] = v < 0 ? ~(~v >> sh) : v >> sh; /* arithmetic, without C's impl.-defined >> */
        }
    }
}

/* b^e mod 2^64 by squaring. */
static uint64_t ipow(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    while (e != 0) {
        if (e & 1u) {
            r *= b;
        }
        b *= b;
        e >>= 1;
    }
    return r;
}

/* A value of domain `dom` as double. */
static double as_f(em_math_dom dom, const em_math_blk *b, int k)
{
    return dom == EM_MATH_F ? b->f[k] : dom == EM_MATH_I ? (double)b->i[k] : (double)b->u[k];
}

/* y_dom is F (float base or float exponent) or I (integer base and exponent). */
static void pow_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    em_math_dom bd = s->in_dom[0], ed = s->in_dom[1];
    for (int k = 0; k < n; k++) {
        if (s->y_dom == EM_MATH_F) {
            y->f[k] = pow(as_f(bd, x[0], k), as_f(ed, x[1], k));
            continue;
        }
        int64_t b = x[0]->i[k];
        if (ed == EM_MATH_I && x[1]->i[k] < 0) {
            bool odd = (x[1]->u[k] & 1u) != 0;
            y->i[k] = b == 1 ? 1 : b == -1 ? (odd ? -1 : 1) : 0;
        } else {
            y->u[k] = ipow((uint64_t)b, x[1]->u[k]);
        }
    }
}

/* ---- comparisons and logic ---------------------------------------------------------------- */

typedef enum cmp { CMP_EQ, CMP_LT, CMP_LE, CMP_GT, CMP_GE } cmp;

/* -1, 0, 1 for a < b, a == b, a > b; 2 when unordered (NaN): every comparison is false. */
static int order(em_math_dom dom, const em_math_blk *a, const em_math_blk *b, int k)
{
    switch (dom) {
    case EM_MATH_F:
        return a->f[k] < b->f[k] ? -1 : a->f[k] > b->f[k] ? 1 : a->f[k] == b->f[k] ? 0 : 2;
    case EM_MATH_I:
        return a->i[k] < b->i[k] ? -1 : a->i[k] > b->i[k] ? 1 : 0;
    default:
        return a->u[k] < b->u[k] ? -1 : a->u[k] > b->u[k] ? 1 : 0;
    }
}

static void cmp_run(cmp c, const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        int o = order(s->in_dom[0], x[0], x[1], k);
        bool r = c == CMP_EQ   ? o == 0
                 : c == CMP_LT ? o == -1
                 : c == CMP_LE ? (o == -1 || o == 0)
                 : c == CMP_GT ? o == 1
                               : (o == 1 || o == 0);
        y->u[k] = r ? 1 : 0;
    }
}

#define CMP_FN(name, c)                                                                            \
    static void name##_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)                   \
    {                                                                                              \
        cmp_run(c, s, x, y, n);                                                                    \
    }
CMP_FN(equal, CMP_EQ)
CMP_FN(less, CMP_LT)
CMP_FN(lessorequal, CMP_LE)
CMP_FN(greater, CMP_GT)
CMP_FN(greaterorequal, CMP_GE)

#define LOGIC_FN(name, expr)                                                                       \
    static void name##_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)                   \
    {                                                                                              \
        (void)s;                                                                                   \
        for (int k = 0; k < n; k++) {                                                              \
            bool a = x[0]->u[k] != 0, b = x[1]->u[k] != 0;                                         \
            y->u[k] = (expr) ? 1 : 0;                                                              \
        }                                                                                          \
    }
LOGIC_FN(and, a &&b)
LOGIC_FN(or, a || b)
LOGIC_FN(xor, a != b)

/* Values are copied bit for bit in their domain (all members of the union are 64 bits). */
static void where_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    for (int k = 0; k < n; k++) {
        y->u[k] = x[0]->u[k] != 0 ? x[1]->u[k] : x[2]->u[k];
    }
}

/* ---- variadic ----------------------------------------------------------------------------- */

static void minmax_run(bool is_max, const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    em_math_dom dom = s->in_dom[0];
    for (int k = 0; k < n; k++) {
        y->u[k] = x[0]->u[k];
        for (int i = 1; i < s->n_in; i++) {
            int o = order(dom, x[i], y, k); /* x[i] against the running result */
            if (o == 2) {
                y->f[k] = isnan(y->f[k]) ? y->f[k] : x[i]->f[k]; /* NaN wins */
            } else if (is_max ? o > 0 : o < 0) {
                y->u[k] = x[i]->u[k];
            }
        }
    }
}

static void max_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    minmax_run(true, s, x, y, n);
}

static void min_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    minmax_run(false, s, x, y, n);
}

/* Sum (at.mode 0) and Mean (1) of float inputs, accumulated in double. */
static void sum_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        double acc = 0.0;
        for (int i = 0; i < s->n_in; i++) {
            acc += x[i]->f[k];
        }
        y->f[k] = s->at.mode ? acc / s->n_in : acc;
    }
}

/* x < 0 ? slope * x : x; unsigned values are never negative. */
static void prelu_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    for (int k = 0; k < n; k++) {
        if (s->in_dom[0] == EM_MATH_F) {
            double v = x[0]->f[k];
            y->f[k] = v < 0.0 ? x[1]->f[k] * v : v;
        } else if (s->in_dom[0] == EM_MATH_I) {
            y->u[k] = x[0]->i[k] < 0 ? x[1]->u[k] * x[0]->u[k] : x[0]->u[k];
        } else {
            y->u[k] = x[0]->u[k];
        }
    }
}

/* ---- attribute parsers -------------------------------------------------------------------- */

static ember_status *parse_mod(const em_kinfo *ki, em_math_state *s)
{
    ember_status *st = em_ref_attr_int(ki, "fmod", 0, &s->at.mode);
    if (st != NULL) {
        return st;
    }
    if (s->at.mode != 0 && s->at.mode != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'fmod' must be 0 or 1");
    }
    return NULL;
}

static ember_status *parse_bitshift(const em_kinfo *ki, em_math_state *s)
{
    const char *dir;
    ember_status *st = em_ref_attr_string(ki, "direction", "", &dir);
    if (st != NULL) {
        return st;
    }
    if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'direction' must be \"LEFT\" or \"RIGHT\", not \"%s\"", dir);
    }
    s->at.mode = strcmp(dir, "LEFT") == 0;
    return NULL;
}

static ember_status *parse_pow(const em_kinfo *ki, em_math_state *s)
{
    (void)ki;
    s->y_dom = s->in_dom[0] == EM_MATH_F || s->in_dom[1] == EM_MATH_F ? EM_MATH_F : EM_MATH_I;
    return NULL;
}

static ember_status *parse_mean(const em_kinfo *ki, em_math_state *s)
{
    s->at.mode = ki->node->op == EM_OP_MEAN;
    return NULL;
}

/* ---- the table ---------------------------------------------------------------------------- */

#define NUM EM_MATH_NUMERIC
#define SAME EM_MATH_IN_SAME
#define OSAME EM_MATH_OUT_SAME
#define OBOOL EM_MATH_OUT_BOOL
#define MULTI EM_MATH_BC_MULTI

/* clang-format off */
static const em_math_opdef binary_defs[] = {
    {EM_OP_ADD,   NUM, 0, SAME, OSAME, MULTI, add_fn, NULL},
    {EM_OP_SUB,   NUM, 0, SAME, OSAME, MULTI, sub_fn, NULL},
    {EM_OP_MUL,   NUM, 0, SAME, OSAME, MULTI, mul_fn, NULL},
    {EM_OP_DIV,   NUM, 0, SAME, OSAME, MULTI, div_fn, NULL},
    {EM_OP_POW,   EM_MATH_FLOATS | EM_MATH_BIT(I32) | EM_MATH_BIT(I64), NUM, EM_MATH_IN_FREE, OSAME,
     MULTI, pow_fn, parse_pow},
    {EM_OP_MOD,   NUM, 0, SAME, OSAME, MULTI, mod_fn, parse_mod},
    {EM_OP_BITSHIFT, EM_MATH_UINTS | EM_MATH_SINTS, 0, SAME, OSAME, MULTI, bitshift_fn,
     parse_bitshift},
    {EM_OP_EQUAL, EM_MATH_ALL, 0, SAME, OBOOL, MULTI, equal_fn, NULL},
    {EM_OP_LESS,  NUM, 0, SAME, OBOOL, MULTI, less_fn, NULL},
    {EM_OP_LESSOREQUAL, NUM, 0, SAME, OBOOL, MULTI, lessorequal_fn, NULL},
    {EM_OP_GREATER, NUM, 0, SAME, OBOOL, MULTI, greater_fn, NULL},
    {EM_OP_GREATEROREQUAL, NUM, 0, SAME, OBOOL, MULTI, greaterorequal_fn, NULL},
    {EM_OP_AND,   EM_MATH_BIT(BOOL), 0, SAME, OSAME, MULTI, and_fn, NULL},
    {EM_OP_OR,    EM_MATH_BIT(BOOL), 0, SAME, OSAME, MULTI, or_fn, NULL},
    {EM_OP_XOR,   EM_MATH_BIT(BOOL), 0, SAME, OSAME, MULTI, xor_fn, NULL},
    {EM_OP_WHERE, EM_MATH_ALL, 0, EM_MATH_IN_WHERE, EM_MATH_OUT_IN1, MULTI, where_fn, NULL},
    {EM_OP_MAX,   NUM, 0, SAME, OSAME, MULTI, max_fn, NULL},
    {EM_OP_MIN,   NUM, 0, SAME, OSAME, MULTI, min_fn, NULL},
    {EM_OP_SUM,   EM_MATH_FLOATS, 0, SAME, OSAME, MULTI, sum_fn, parse_mean},
    {EM_OP_MEAN,  EM_MATH_FLOATS, 0, SAME, OSAME, MULTI, sum_fn, parse_mean},
    {EM_OP_PRELU, EM_MATH_FLOATS | EM_MATH_BIT(I32) | EM_MATH_BIT(I64) | EM_MATH_BIT(U32) |
     EM_MATH_BIT(U64), 0, SAME, OSAME, EM_MATH_BC_UNI, prelu_fn, NULL},
};
/* clang-format on */

const em_math_opdef *em_math_binary_def(em_op op)
{
    for (size_t i = 0; i < sizeof binary_defs / sizeof binary_defs[0]; i++) {
        if (binary_defs[i].op == op) {
            return &binary_defs[i];
        }
    }
    return NULL;
}
