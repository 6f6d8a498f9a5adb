/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unary math, activations and the softmax family of the TorchScript loader (ts_ops_elem.h),
 * with PyTorch's dtype rules: math that only makes sense on floats (sqrt, exp, sigmoid...)
 * computes integer and bool inputs in the default dtype f32; neg/abs/sign keep the dtype;
 * floor/ceil/round/trunc of integers are the identity. In-place variants go through
 * em_ts_elem_ret. Composite ops (rsqrt, log1p, log2, logsigmoid, trunc, softplus with beta and
 * threshold, glu, prelu's channel axis) are spelled with ONNX ops.
 */
#include "ts_ops_elem.h"

#include "core/status.h"

#include <math.h>
#include <string.h>

/* ---- unary math ---- */

typedef enum ukind {
    U_KEEP,    /* same dtype for every input */
    U_FLOAT,   /* integers and bools computed in f32 (double for Python numbers) */
    U_ROUNDING /* integers and bools unchanged */
} ukind;

typedef enum uhow { H_PLAIN, H_RSQRT, H_LOG1P, H_LOG2, H_LOGSIG, H_TRUNC, H_SQUARE } uhow;

typedef struct urow {
    const char *name;
    em_op op;
    ukind kind;
    uhow how;
} urow;

static const urow unary_rows[] = {
    {"neg", EM_OP_NEG, U_KEEP, H_PLAIN},
    {"abs", EM_OP_ABS, U_KEEP, H_PLAIN},
    {"sign", EM_OP_SIGN, U_KEEP, H_PLAIN},
    {"square", EM_OP_MUL, U_KEEP, H_SQUARE},
    {"sqrt", EM_OP_SQRT, U_FLOAT, H_PLAIN},
    {"rsqrt", EM_OP_SQRT, U_FLOAT, H_RSQRT},
    {"exp", EM_OP_EXP, U_FLOAT, H_PLAIN},
    {"log", EM_OP_LOG, U_FLOAT, H_PLAIN},
    {"log1p", EM_OP_LOG, U_FLOAT, H_LOG1P},
    {"log2", EM_OP_LOG, U_FLOAT, H_LOG2},
    {"erf", EM_OP_ERF, U_FLOAT, H_PLAIN},
    {"sin", EM_OP_SIN, U_FLOAT, H_PLAIN},
    {"cos", EM_OP_COS, U_FLOAT, H_PLAIN},
    {"tanh", EM_OP_TANH, U_FLOAT, H_PLAIN},
    {"sigmoid", EM_OP_SIGMOID, U_FLOAT, H_PLAIN},
    {"reciprocal", EM_OP_RECIPROCAL, U_FLOAT, H_PLAIN},
    {"selu", EM_OP_SELU, U_FLOAT, H_PLAIN},
    {"mish", EM_OP_MISH, U_FLOAT, H_PLAIN},
    {"hardswish", EM_OP_HARDSWISH, U_FLOAT, H_PLAIN},
    {"log_sigmoid", EM_OP_SOFTPLUS, U_FLOAT, H_LOGSIG},
    {"floor", EM_OP_FLOOR, U_ROUNDING, H_PLAIN},
    {"ceil", EM_OP_CEIL, U_ROUNDING, H_PLAIN},
    {"round", EM_OP_ROUND, U_ROUNDING, H_PLAIN},
    {"trunc", EM_OP_FLOOR, U_ROUNDING, H_TRUNC},
};

/* The row of "aten::<name>" or "aten::<name>_". */
static const urow *unary_row(const char *op)
{
    const char *bare = strstr(op, "::");
    bare = bare != NULL ? bare + 2 : op;
    size_t n = strlen(bare);
    if (n > 1 && bare[n - 1] == '_') {
        n--;
    }
    for (size_t i = 0; i < sizeof unary_rows / sizeof unary_rows[0]; i++) {
        if (strlen(unary_rows[i].name) == n && strncmp(unary_rows[i].name, bare, n) == 0) {
            return &unary_rows[i];
        }
    }
    return NULL;
}

/* x op c for a constant c in x's dtype. */
static ember_status *with_const(ts_lower *L, const ts_call *c, em_op op, int x, double v, int *out)
{
    int k = -1;
    TS_TRY(em_ts_const_scalar(L, em_ts_val(L, x)->dtype, v, &k));
    return em_ts_node2(L, c, op, x, k, out);
}

static ember_status *unary_emit(ts_lower *L, const ts_call *c, const urow *u, int x, int *r)
{
    int t = -1;
    switch (u->how) {
    case H_PLAIN:
        return em_ts_node(L, c, u->op, &x, 1, r);
    case H_SQUARE:
        return em_ts_node2(L, c, EM_OP_MUL, x, x, r);
    case H_RSQRT:
        TS_TRY(em_ts_node(L, c, EM_OP_SQRT, &x, 1, &t));
        return em_ts_node(L, c, EM_OP_RECIPROCAL, &t, 1, r);
    case H_LOG1P:
        TS_TRY(with_const(L, c, EM_OP_ADD, x, 1.0, &t));
        return em_ts_node(L, c, EM_OP_LOG, &t, 1, r);
    case H_LOG2:
        TS_TRY(em_ts_node(L, c, EM_OP_LOG, &x, 1, &t));
        return with_const(L, c, EM_OP_DIV, t, log(2.0), r);
    case H_LOGSIG: { /* log(sigmoid(x)) = -softplus(-x) */
        int n = -1;
        TS_TRY(em_ts_node(L, c, EM_OP_NEG, &x, 1, &n));
        TS_TRY(em_ts_node(L, c, EM_OP_SOFTPLUS, &n, 1, &t));
        return em_ts_node(L, c, EM_OP_NEG, &t, 1, r);
    }
    case H_TRUNC:
        return em_ts_trunc(L, c, x, r);
    }
    return em_ts_err(L, EMBER_ERR_INTERNAL, c->pos, "%s: unknown unary form", c->op);
}

/* The result of a unary op on a tensor (in place too) or a dynamic scalar (Python's math:
 * floor and ceil of a float give an int). */
static ember_status *unary_ret(ts_lower *L, const ts_call *c, const urow *u, int r, ts_av **out)
{
    if (c->a[0]->k == TA_TENSOR) {
        return em_ts_elem_ret(L, c, r, out);
    }
    if (u != NULL && (u->op == EM_OP_FLOOR || u->op == EM_OP_CEIL) && u->how == H_PLAIN) {
        TS_TRY(em_ts_cast(L, c, r, EMBER_DTYPE_I64, &r));
    }
    TS_TRY(em_ts_ret_tensor(L, r, out));
    (*out)->k = TA_SCALAR;
    return NULL;
}

ember_status *em_ts_lower_unary(ts_lower *L, const ts_call *c, ts_av **out)
{
    const urow *u = unary_row(c->op);
    if (u == NULL || c->n < 1) {
        return em_ts_err(L, EMBER_ERR_INTERNAL, c->pos, "%s: not a unary op", c->op);
    }
    const ts_av *a = c->a[0];
    bool tensor = a->k == TA_TENSOR;
    int x = -1, r = -1;
    TS_TRY(em_ts_as_tensor(L, c, a, a->k == TA_FLOAT ? EMBER_DTYPE_F64 : EMBER_DTYPE_UNDEFINED,
                        &x));
    ember_dtype dt = em_ts_val(L, x)->dtype;
    bool fl = em_ts_dt_float(dt);
    if ((u->kind == U_ROUNDING && !fl) || (u->op == EM_OP_SIGN && dt == EMBER_DTYPE_BOOL)) {
        return unary_ret(L, c, NULL, x, out); /* the identity */
    }
    if (u->kind == U_FLOAT && !fl) {
        TS_TRY(em_ts_cast(L, c, x, tensor ? EMBER_DTYPE_F32 : EMBER_DTYPE_F64, &x));
    }
    TS_TRY(unary_emit(L, c, u, x, &r));
    return unary_ret(L, c, u, r, out);
}

/* round(self) / round.decimals(self, *, decimals): half to even as torch, scaled by 10^d. */
ember_status *em_ts_lower_round(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t d = 0;
    if (c->n > 1 && c->a[1]->k == TA_INT) {
        d = c->a[1]->u.i;
    }
    if (d == 0 || c->n < 1 || c->a[0]->k != TA_TENSOR) {
        return em_ts_lower_unary(L, c, out);
    }
    int x = -1, t = -1, r = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    if (!em_ts_dt_float(em_ts_val(L, x)->dtype)) {
        return em_ts_elem_ret(L, c, x, out);
    }
    double p = pow(10.0, (double)(d > 0 ? d : -d));
    /* torch: nearbyint(x * 10^d) / 10^d, or for d < 0 nearbyint(x / 10^-d) * 10^-d */
    TS_TRY(with_const(L, c, d > 0 ? EM_OP_MUL : EM_OP_DIV, x, p, &t));
    TS_TRY(em_ts_node(L, c, EM_OP_ROUND, &t, 1, &t));
    TS_TRY(with_const(L, c, d > 0 ? EM_OP_DIV : EM_OP_MUL, t, p, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* ---- activations ---- */

/* Argument 0 as a tensor, integers and bools cast to f32 (activations compute on floats). */
static ember_status *float_arg(ts_lower *L, const ts_call *c, int *x)
{
    TS_TRY(em_ts_arg_tensor(L, c, 0, x));
    return em_ts_dt_float(em_ts_val(L, *x)->dtype) ? NULL : em_ts_cast(L, c, *x, EMBER_DTYPE_F32, x);
}

/* A number argument, or `def` when absent or None. */
static ember_status *num_arg(ts_lower *L, const ts_call *c, size_t i, double def, double *v)
{
    *v = def;
    return em_ts_arg_none(c, i) ? NULL : em_ts_arg_float(L, c, i, v);
}

/* One-output op with one or two float attributes (a2 NULL: one). */
static ember_status *act(ts_lower *L, const ts_call *c, em_op op, int x, const char *a1, double v1,
                         const char *a2, double v2, int *r)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, op, &x, 1, r, 1, &node));
    if (a1 != NULL) {
        TS_TRY(em_node_set_float(L->g, node, a1, (float)v1));
    }
    if (a2 != NULL) {
        TS_TRY(em_node_set_float(L->g, node, a2, (float)v2));
    }
    return em_ts_infer(L, c, node);
}

/* x clamped to [lo, hi] in x's own dtype (hardtanh and relu6 keep integer dtypes). */
static ember_status *clip_to(ts_lower *L, const ts_call *c, int x, double lo, double hi,
                             bool has_hi, int *r)
{
    int in[3] = {x, -1, -1};
    ember_dtype dt = em_ts_val(L, x)->dtype;
    TS_TRY(em_ts_const_scalar(L, dt, lo, &in[1]));
    if (has_hi) {
        TS_TRY(em_ts_const_scalar(L, dt, hi, &in[2]));
    }
    return em_ts_node(L, c, EM_OP_CLIP, in, 3, r);
}

/* relu(self): Relu of floats; integers clip at 0 (ember's Relu takes floats). */
ember_status *em_ts_lower_relu(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, r = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    if (em_ts_dt_float(em_ts_val(L, x)->dtype)) {
        TS_TRY(em_ts_node(L, c, EM_OP_RELU, &x, 1, &r));
    } else {
        TS_TRY(clip_to(L, c, x, 0.0, 0.0, false, &r));
    }
    return em_ts_elem_ret(L, c, r, out);
}

/* relu6(self) = hardtanh(self, 0, 6) */
ember_status *em_ts_lower_relu6(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, r = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(clip_to(L, c, x, 0.0, 6.0, true, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* hardtanh(self, min_val=-1, max_val=1) */
ember_status *em_ts_lower_hardtanh(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, r = -1;
    double lo = -1, hi = 1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(num_arg(L, c, 1, -1.0, &lo));
    TS_TRY(num_arg(L, c, 2, 1.0, &hi));
    TS_TRY(clip_to(L, c, x, lo, hi, true, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* op(float(self)) with attribute alpha (and beta when given). */
static ember_status *float_act(ts_lower *L, const ts_call *c, em_op op, double alpha,
                               const char *beta_name, double beta, ts_av **out)
{
    int x = -1, r = -1;
    TS_TRY(float_arg(L, c, &x));
    TS_TRY(act(L, c, op, x, "alpha", alpha, beta_name, beta, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* leaky_relu(self, negative_slope=0.01) and celu(self, alpha=1): LeakyRelu / Celu's alpha. */
ember_status *em_ts_lower_alpha_act(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool leaky = strstr(c->op, "leaky_relu") != NULL;
    double alpha = leaky ? 0.01 : 1.0;
    TS_TRY(num_arg(L, c, 1, alpha, &alpha));
    return float_act(L, c, leaky ? EM_OP_LEAKYRELU : EM_OP_CELU, alpha, NULL, 0, out);
}

/* elu(self, alpha=1, scale=1, input_scale=1): x > 0 ? scale * x
 * : scale * alpha * (exp(x * input_scale) - 1). */
ember_status *em_ts_lower_elu(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, r = -1;
    double alpha = 1, scale = 1, in_scale = 1;
    TS_TRY(float_arg(L, c, &x));
    TS_TRY(num_arg(L, c, 1, 1.0, &alpha));
    TS_TRY(num_arg(L, c, 2, 1.0, &scale));
    TS_TRY(num_arg(L, c, 3, 1.0, &in_scale));
    if (in_scale == 1.0) {
        TS_TRY(act(L, c, EM_OP_ELU, x, "alpha", alpha, NULL, 0, &r));
        if (scale != 1.0) {
            TS_TRY(with_const(L, c, EM_OP_MUL, r, scale, &r));
        }
        return em_ts_elem_ret(L, c, r, out);
    }
    int xs = -1, e = -1, pos = -1, zero = -1, gt = -1;
    TS_TRY(with_const(L, c, EM_OP_MUL, x, in_scale, &xs));
    TS_TRY(act(L, c, EM_OP_ELU, xs, "alpha", alpha, NULL, 0, &e));
    TS_TRY(with_const(L, c, EM_OP_MUL, e, scale, &e));
    TS_TRY(with_const(L, c, EM_OP_MUL, x, scale, &pos));
    TS_TRY(em_ts_const_scalar(L, em_ts_val(L, x)->dtype, 0.0, &zero));
    TS_TRY(em_ts_node2(L, c, EM_OP_GREATER, x, zero, &gt));
    int in[3] = {gt, pos, e};
    TS_TRY(em_ts_node(L, c, EM_OP_WHERE, in, 3, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* gelu(self, *, approximate="none" | "tanh") */
ember_status *em_ts_lower_gelu(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, r = -1, node = -1;
    TS_TRY(float_arg(L, c, &x));
    TS_TRY(em_ts_emit(L, c, EM_OP_GELU, &x, 1, &r, 1, &node));
    if (c->n > 1 && c->a[1]->k == TA_STR) {
        const char *m = c->a[1]->u.str.s;
        if (strcmp(m, "none") != 0 && strcmp(m, "tanh") != 0) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "gelu: approximate '%s'", m);
        }
        TS_TRY(em_node_set_string(L->g, node, "approximate", m));
    }
    TS_TRY(em_ts_infer(L, c, node));
    return em_ts_elem_ret(L, c, r, out);
}

/* silu(self) = x * sigmoid(x): Swish with alpha 1. */
ember_status *em_ts_lower_silu(ts_lower *L, const ts_call *c, ts_av **out)
{
    return float_act(L, c, EM_OP_SWISH, 1.0, NULL, 0, out);
}

/* hardsigmoid(self) = relu6(x + 3) / 6 */
ember_status *em_ts_lower_hardsigmoid(ts_lower *L, const ts_call *c, ts_av **out)
{
    return float_act(L, c, EM_OP_HARDSIGMOID, 1.0 / 6.0, "beta", 0.5, out);
}

/* softplus(self, beta=1, threshold=20) = x * beta > threshold ? x : log1p(exp(beta x)) / beta */
ember_status *em_ts_lower_softplus(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, xb = -1, sp = -1, th = -1, gt = -1, r = -1;
    double beta = 1, thr = 20;
    TS_TRY(float_arg(L, c, &x));
    TS_TRY(num_arg(L, c, 1, 1.0, &beta));
    TS_TRY(num_arg(L, c, 2, 20.0, &thr));
    xb = x;
    if (beta != 1.0) {
        TS_TRY(with_const(L, c, EM_OP_MUL, x, beta, &xb));
    }
    TS_TRY(em_ts_node(L, c, EM_OP_SOFTPLUS, &xb, 1, &sp));
    if (beta != 1.0) {
        TS_TRY(with_const(L, c, EM_OP_DIV, sp, beta, &sp));
    }
    TS_TRY(em_ts_const_scalar(L, em_ts_val(L, x)->dtype, thr, &th));
    TS_TRY(em_ts_node2(L, c, EM_OP_GREATER, xb, th, &gt));
    int in[3] = {gt, x, sp};
    TS_TRY(em_ts_node(L, c, EM_OP_WHERE, in, 3, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* threshold(self, threshold, value) = x > threshold ? x : value, in x's dtype */
ember_status *em_ts_lower_threshold(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, th = -1, v = -1, gt = -1, r = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    ember_dtype dt = em_ts_val(L, x)->dtype;
    if (c->n < 3) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: expected threshold and value",
                      c->op);
    }
    TS_TRY(em_ts_value_as(L, c, c->a[1], dt, &th));
    TS_TRY(em_ts_value_as(L, c, c->a[2], dt, &v));
    TS_TRY(em_ts_node2(L, c, EM_OP_GREATER, x, th, &gt));
    int in[3] = {gt, x, v};
    TS_TRY(em_ts_node(L, c, EM_OP_WHERE, in, 3, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* prelu(self, weight): one slope, or one per channel (dim 1), which PRelu's right-aligned
 * broadcasting needs reshaped to [C, 1, ...]. */
ember_status *em_ts_lower_prelu(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, w = -1, rank = 0, r = -1;
    TS_TRY(float_arg(L, c, &x));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &w));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    bool per_channel = em_ts_val(L, w)->rank == 1 && em_ts_val(L, w)->dims[0].v != 1;
    TS_TRY(em_ts_cast(L, c, w, em_ts_val(L, x)->dtype, &w));
    if (per_channel && rank > 2) {
        int64_t shape[EMBER_MAX_RANK];
        shape[0] = -1;
        for (int d = 1; d < rank - 1; d++) {
            shape[d] = 1;
        }
        int s = -1;
        TS_TRY(em_ts_const_i64s(L, shape, rank - 1, &s));
        TS_TRY(em_ts_node2(L, c, EM_OP_RESHAPE, w, s, &w));
    }
    TS_TRY(em_ts_node2(L, c, EM_OP_PRELU, x, w, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* glu(self, dim=-1): the first half of dim times the sigmoid of the second. */
ember_status *em_ts_lower_glu(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, halves[2] = {-1, -1}, node = -1, s = -1, r = -1;
    int64_t dim = -1;
    TS_TRY(float_arg(L, c, &x));
    if (!em_ts_arg_none(c, 1)) {
        TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_SPLIT, &x, 1, halves, 2, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", dim));
    TS_TRY(em_node_set_int(L->g, node, "num_outputs", 2));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(em_ts_node(L, c, EM_OP_SIGMOID, &halves[1], 1, &s));
    TS_TRY(em_ts_node2(L, c, EM_OP_MUL, halves[0], s, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* softmax / log_softmax(self, dim, dtype=None) and _softmax / _log_softmax(self, dim,
 * half_to_float): the input cast to dtype first, as torch does. */
ember_status *em_ts_lower_softmax(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, r = -1;
    int64_t dim = -1;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    if (c->n > 2 && c->a[2]->k == TA_BOOL) {
        dt = c->a[2]->u.b && em_ts_val(L, x)->dtype == EMBER_DTYPE_F16 ? EMBER_DTYPE_F32
                                                                    : EMBER_DTYPE_UNDEFINED;
    } else {
        TS_TRY(em_ts_arg_dtype(L, c, 2, &dt));
    }
    TS_TRY(em_ts_cast(L, c, x, dt, &x));
    bool lg = strstr(c->op, "log_softmax") != NULL;
    TS_TRY(em_ts_node_int(L, c, lg ? EM_OP_LOGSOFTMAX : EM_OP_SOFTMAX, &x, 1, "axis", dim, &r));
    return em_ts_ret_tensor(L, r, out);
}
