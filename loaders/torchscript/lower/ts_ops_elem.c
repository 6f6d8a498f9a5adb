/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Elementwise operators of the TorchScript loader (ts_ops_elem.h): PyTorch's type promotion,
 * binary arithmetic (Tensor and Scalar overloads, alpha, division rounding modes, in-place
 * variants), comparisons, logical and bitwise ops, where, masked_fill and clamp; and the table
 * of every elementwise, activation and reduction operator (ts_ops_math.c, ts_ops_reduce.c).
 * Arguments arrive in schema order (ts_bind.c).
 */
#include "ts_ops_elem.h"

#include "core/status.h"
#include "core/tensor.h"

#include <string.h>

/* ---- dtypes and promotion ---- */

bool em_ts_dt_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16 || dt == EMBER_DTYPE_F32 ||
           dt == EMBER_DTYPE_F64;
}

static bool dt_unsigned(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_U16 || dt == EMBER_DTYPE_U32 ||
           dt == EMBER_DTYPE_U64;
}

ember_dtype em_ts_promote_types(ember_dtype a, ember_dtype b)
{
    if (a == EMBER_DTYPE_UNDEFINED || a == b || b == EMBER_DTYPE_BOOL) {
        return a == EMBER_DTYPE_UNDEFINED ? b : a;
    }
    if (b == EMBER_DTYPE_UNDEFINED || a == EMBER_DTYPE_BOOL) {
        return b == EMBER_DTYPE_UNDEFINED ? a : b;
    }
    size_t sa = em_dtype_size(a), sb = em_dtype_size(b);
    bool fa = em_ts_dt_float(a), fb = em_ts_dt_float(b);
    if (fa && fb) {
        if (sa == 2 && sb == 2) {
            return EMBER_DTYPE_F32; /* f16 with bf16 */
        }
        return sa >= sb ? a : b;
    }
    if (fa || fb) {
        return fa ? a : b;
    }
    if (dt_unsigned(a) == dt_unsigned(b)) {
        return sa >= sb ? a : b;
    }
    /* signed with unsigned: the signed type when wider, else the next wider signed type */
    ember_dtype s = dt_unsigned(a) ? b : a;
    size_t su = dt_unsigned(a) ? sa : sb;
    if (em_dtype_size(s) > su) {
        return s;
    }
    return su == 1 ? EMBER_DTYPE_I16 : su == 2 ? EMBER_DTYPE_I32 : EMBER_DTYPE_I64;
}

/* c10's combine_categories: the higher-priority participant wins unless the lower one is of a
 * higher category (floating over integral over bool). */
static ember_dtype combine(ember_dtype higher, ember_dtype lower)
{
    if (higher == EMBER_DTYPE_UNDEFINED || em_ts_dt_float(higher)) {
        return higher == EMBER_DTYPE_UNDEFINED ? lower : higher;
    }
    if (higher == EMBER_DTYPE_BOOL || em_ts_dt_float(lower)) {
        return em_ts_promote_types(higher, lower);
    }
    return higher;
}

/* A 0-d tensor of constants.pkl (traced code's CONSTANTS.cN): what the tracer recorded for a
 * Python number, which TorchScript runs as a wrapped number (`int_tensor + CONSTANTS.c0` of a
 * double constant stays f32 in PyTorch; a 0-d buffer there would give f64). */
static bool wrapped_const(const em_value *v)
{
    return v->rank == 0 && v->name != NULL && strncmp(v->name, "CONSTANTS.c", 11) == 0;
}

ember_status *em_ts_promote(ts_lower *L, const ts_call *c, const ts_av *const *args, size_t n,
                         ember_dtype *dt)
{
    ember_dtype dim = EMBER_DTYPE_UNDEFINED, zero = EMBER_DTYPE_UNDEFINED;
    ember_dtype wrapped = EMBER_DTYPE_UNDEFINED;
    for (size_t i = 0; i < n; i++) {
        const ts_av *a = args[i];
        if (a == NULL || a->k == TA_NONE) {
            continue;
        }
        if (a->k == TA_TENSOR || a->k == TA_SCALAR) {
            const em_value *v = &a->u.t.g->values[a->u.t.v];
            ember_dtype t = v->dtype;
            if (t == EMBER_DTYPE_UNDEFINED) {
                return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: the dtype of operand %zu "
                              "is not known", c->op, i);
            }
            if (a->k == TA_SCALAR || wrapped_const(v)) {
                wrapped = em_ts_promote_types(wrapped, em_ts_dt_float(t) ? EMBER_DTYPE_F32 : t);
            } else if (v->rank == 0) {
                zero = em_ts_promote_types(zero, t);
            } else {
                dim = em_ts_promote_types(dim, t);
            }
        } else if (a->k == TA_BOOL || a->k == TA_INT || a->k == TA_FLOAT) {
            wrapped = em_ts_promote_types(wrapped, a->k == TA_BOOL  ? EMBER_DTYPE_BOOL
                                                : a->k == TA_INT ? EMBER_DTYPE_I64
                                                                 : EMBER_DTYPE_F32);
        } else {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: operand %zu is a %s, not a "
                          "tensor or a number", c->op, i, em_ts_kind_name(a->k));
        }
    }
    *dt = combine(dim, combine(zero, wrapped));
    return NULL;
}

bool em_ts_any_tensor(const ts_av *const *args, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (args[i] != NULL && args[i]->k == TA_TENSOR) {
            return true;
        }
    }
    return false;
}

/* Python's dtype of a number or dynamic scalar: int64, double or bool. */
static ember_dtype py_dtype(const ts_av *a)
{
    if (a->k == TA_SCALAR) {
        return a->u.t.g->values[a->u.t.v].dtype;
    }
    return a->k == TA_FLOAT  ? EMBER_DTYPE_F64
           : a->k == TA_BOOL ? EMBER_DTYPE_BOOL
                             : EMBER_DTYPE_I64;
}

/* ---- emitting ---- */

ember_status *em_ts_node(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in, int *out)
{
    return em_ts_emit(L, c, op, in, n_in, out, 1, NULL);
}

ember_status *em_ts_node_int(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                          const char *attr, int64_t v, int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, op, in, n_in, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, attr, v));
    return em_ts_infer(L, c, node);
}

ember_status *em_ts_node2(ts_lower *L, const ts_call *c, em_op op, int a, int b, int *out)
{
    int in[2] = {a, b};
    return em_ts_node(L, c, op, in, 2, out);
}

ember_status *em_ts_cast(ts_lower *L, const ts_call *c, int v, ember_dtype dt, int *out)
{
    if (dt == EMBER_DTYPE_UNDEFINED || em_ts_val(L, v)->dtype == dt) {
        *out = v;
        return NULL;
    }
    return em_ts_node_int(L, c, EM_OP_CAST, &v, 1, "to", dt, out);
}

ember_status *em_ts_value_as(ts_lower *L, const ts_call *c, const ts_av *a, ember_dtype dt, int *out)
{
    if (a->k == TA_BOOL || a->k == TA_INT || a->k == TA_FLOAT) {
        return em_ts_as_tensor(L, c, a, dt, out); /* a constant made in dt */
    }
    int v = -1;
    TS_TRY(em_ts_as_tensor(L, c, a, EMBER_DTYPE_UNDEFINED, &v));
    return em_ts_cast(L, c, v, dt, out);
}

ember_status *em_ts_arg_dtype(ts_lower *L, const ts_call *c, size_t i, ember_dtype *dt)
{
    /* torch's ScalarType numbering: uint8, int8, int16, int32, int64, half, float, double,
     * complex32/64/128, bool, qint8, quint8, qint32, bfloat16 */
    static const ember_dtype map[] = {
        EMBER_DTYPE_U8, EMBER_DTYPE_I8, EMBER_DTYPE_I16, EMBER_DTYPE_I32, EMBER_DTYPE_I64,
        EMBER_DTYPE_F16, EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_UNDEFINED,
        EMBER_DTYPE_UNDEFINED, EMBER_DTYPE_UNDEFINED, EMBER_DTYPE_BOOL, EMBER_DTYPE_UNDEFINED,
        EMBER_DTYPE_UNDEFINED, EMBER_DTYPE_UNDEFINED, EMBER_DTYPE_BF16};
    int64_t st = -1;
    *dt = EMBER_DTYPE_UNDEFINED;
    if (em_ts_arg_none(c, i)) {
        return NULL;
    }
    TS_TRY(em_ts_arg_int(L, c, i, &st));
    if (st < 0 || st >= (int64_t)(sizeof map / sizeof map[0]) ||
        map[st] == EMBER_DTYPE_UNDEFINED) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: dtype %lld (a torch ScalarType) is "
                      "not supported", c->op, (long long)st);
    }
    *dt = map[st];
    return NULL;
}

/* An error unless the call has at least n arguments (schemas guarantee it; calls of operators
 * without one do not). */
static ember_status *need(ts_lower *L, const ts_call *c, size_t n)
{
    return c->n >= n ? NULL : em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: expected %zu "
                                     "arguments, got %zu", c->op, n, c->n);
}

/* "aten::add_", "aten::__iand__": ops that write their result into self. */
static bool inplace(const ts_call *c)
{
    const char *bare = strstr(c->op, "::");
    bare = bare != NULL ? bare + 2 : c->op;
    size_t n = strlen(bare);
    if (strncmp(bare, "__i", 3) == 0 && n > 5) {
        return true;
    }
    return n > 2 && bare[n - 1] == '_' && bare[n - 2] != '_';
}

ember_status *em_ts_elem_ret(ts_lower *L, const ts_call *c, int v, ts_av **out)
{
    if (!inplace(c) || c->n == 0 || c->a[0]->k != TA_TENSOR) {
        return em_ts_ret_tensor(L, v, out);
    }
    ts_av *self = c->a[0];
    int s = -1;
    TS_TRY(em_ts_use(L, self, &s));
    TS_TRY(em_ts_cast(L, c, v, em_ts_val(L, s)->dtype, &v));
    if (self->u.t.g != L->g) {
        /* self lives in an enclosing block: the new value stays local to this one */
        return em_ts_ret_tensor(L, v, out);
    }
    /* Every name bound to self's abstract value (and the module attribute it may be) now sees
     * the result, as every alias of the tensor would in PyTorch; so does the tensor self is a
     * slice of. */
    *out = self;
    return em_ts_set_inplace(L, c, self, v);
}

ember_status *em_ts_trunc(ts_lower *L, const ts_call *c, int x, int *out)
{
    int s = -1, a = -1, f = -1;
    TS_TRY(em_ts_node(L, c, EM_OP_SIGN, &x, 1, &s));
    TS_TRY(em_ts_node(L, c, EM_OP_ABS, &x, 1, &a));
    TS_TRY(em_ts_node(L, c, EM_OP_FLOOR, &a, 1, &f));
    return em_ts_node2(L, c, EM_OP_MUL, s, f, out);
}

/* ---- binary operators ---- */

typedef enum bk {
    BK_ADD, BK_SUB, BK_MUL, BK_DIV, BK_FLOORDIV, BK_REM, BK_FMOD, BK_POW, BK_MAX, BK_MIN,
    BK_EQ, BK_NE, BK_LT, BK_LE, BK_GT, BK_GE,
    BK_LAND, BK_LOR, BK_LXOR, BK_BAND, BK_BOR, BK_BXOR
} bk;

typedef enum rmode { RM_NONE, RM_TRUNC, RM_FLOOR } rmode;

static bool is_one(const ts_av *a)
{
    return (a->k == TA_INT && a->u.i == 1) || (a->k == TA_FLOAT && a->u.f == 1.0) ||
           (a->k == TA_BOOL && a->u.b);
}

/* div(..., rounding_mode=None | "trunc" | "floor") */
static ember_status *rounding_mode(ts_lower *L, const ts_call *c, rmode *m)
{
    *m = RM_NONE;
    if (c->n < 3 || c->a[2]->k != TA_STR) {
        return NULL;
    }
    const char *s = c->a[2]->u.str.s;
    if (strcmp(s, "trunc") == 0 || strcmp(s, "floor") == 0) {
        *m = s[0] == 't' ? RM_TRUNC : RM_FLOOR;
        return NULL;
    }
    return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: rounding_mode '%s' (expected None, "
                  "'trunc' or 'floor')", c->op, s);
}

static ember_status *divide(ts_lower *L, const ts_call *c, rmode m, ember_dtype dt, int x, int y,
                            int *r)
{
    int q = -1;
    if (m == RM_NONE || (m == RM_TRUNC && !em_ts_dt_float(dt))) {
        return em_ts_node2(L, c, EM_OP_DIV, x, y, r); /* integer Div truncates */
    }
    if (em_ts_dt_float(dt)) {
        TS_TRY(em_ts_node2(L, c, EM_OP_DIV, x, y, &q));
        return m == RM_TRUNC ? em_ts_trunc(L, c, q, r) : em_ts_node(L, c, EM_OP_FLOOR, &q, 1, r);
    }
    /* integer floor division: x - (x mod y) with the divisor's sign divides exactly */
    int in[2] = {x, y}, md = -1, d = -1;
    TS_TRY(em_ts_node_int(L, c, EM_OP_MOD, in, 2, "fmod", 0, &md));
    TS_TRY(em_ts_node2(L, c, EM_OP_SUB, x, md, &d));
    return em_ts_node2(L, c, EM_OP_DIV, d, y, r);
}

static ember_status *emit_binary(ts_lower *L, const ts_call *c, bk k, rmode m, ember_dtype dt,
                                 int x, int y, int *r)
{
    static const em_op cmp[] = {EM_OP_EQUAL, EM_OP_EQUAL, EM_OP_LESS, EM_OP_LESSOREQUAL,
                                EM_OP_GREATER, EM_OP_GREATEROREQUAL};
    bool b = dt == EMBER_DTYPE_BOOL;
    int in[2] = {x, y}, e = -1;
    switch (k) {
    case BK_ADD:
        return em_ts_node2(L, c, b ? EM_OP_OR : EM_OP_ADD, x, y, r);
    case BK_SUB:
        return em_ts_node2(L, c, EM_OP_SUB, x, y, r);
    case BK_MUL:
        return em_ts_node2(L, c, b ? EM_OP_AND : EM_OP_MUL, x, y, r);
    case BK_DIV:
    case BK_FLOORDIV:
        return divide(L, c, k == BK_FLOORDIV ? RM_FLOOR : m, dt, x, y, r);
    case BK_REM:
    case BK_FMOD:
        return em_ts_node_int(L, c, EM_OP_MOD, in, 2, "fmod", k == BK_FMOD, r);
    case BK_POW:
        return em_ts_node2(L, c, EM_OP_POW, x, y, r);
    case BK_MAX:
        return em_ts_node2(L, c, b ? EM_OP_OR : EM_OP_MAX, x, y, r);
    case BK_MIN:
        return em_ts_node2(L, c, b ? EM_OP_AND : EM_OP_MIN, x, y, r);
    case BK_EQ: case BK_NE: case BK_LT: case BK_LE: case BK_GT: case BK_GE:
        if (k != BK_NE) {
            return em_ts_node2(L, c, cmp[k - BK_EQ], x, y, r);
        }
        TS_TRY(em_ts_node2(L, c, EM_OP_EQUAL, x, y, &e));
        return em_ts_node(L, c, EM_OP_NOT, &e, 1, r);
    case BK_LAND:
    case BK_LOR:
    case BK_LXOR:
        return em_ts_node2(L, c, k == BK_LAND ? EM_OP_AND : k == BK_LOR ? EM_OP_OR : EM_OP_XOR, x, y,
                        r);
    case BK_BAND:
    case BK_BOR:
    case BK_BXOR:
        if (em_ts_dt_float(dt)) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s of %s tensors (bitwise ops "
                          "take integers and bools)", c->op, ember_dtype_name(dt));
        }
        if (b) {
            return em_ts_node2(L, c, k == BK_BAND ? EM_OP_AND : k == BK_BOR ? EM_OP_OR : EM_OP_XOR,
                            x, y, r);
        }
        return em_ts_node2(L, c, k == BK_BAND ? EM_OP_BITWISEAND : k == BK_BOR ? EM_OP_BITWISEOR
                                                                          : EM_OP_BITWISEXOR,
                        x, y, r);
    }
    return em_ts_err(L, EMBER_ERR_INTERNAL, c->pos, "%s: unknown binary kind", c->op);
}

/* The dtype both operands are computed in: the promoted one, float for true division of
 * integers, bool for logical ops, uint8 for ordering bools (Less and friends take numbers). */
static ember_dtype compute_dtype(bk k, rmode m, ember_dtype dt, bool scalars)
{
    if ((k == BK_DIV && m == RM_NONE && !em_ts_dt_float(dt)) || (k == BK_POW && scalars)) {
        return scalars ? EMBER_DTYPE_F64 : EMBER_DTYPE_F32;
    }
    if (k == BK_LAND || k == BK_LOR || k == BK_LXOR) {
        return EMBER_DTYPE_BOOL;
    }
    if (k >= BK_LT && k <= BK_GE && dt == EMBER_DTYPE_BOOL) {
        return EMBER_DTYPE_U8;
    }
    return dt;
}

/* self op other (rsub: other - alpha * self). Tensors promote with torch.result_type; numbers
 * and dynamic scalars alone compute as Python does and give a dynamic scalar. */
static ember_status *binary(ts_lower *L, const ts_call *c, bk k, ts_av **out)
{
    TS_TRY(need(L, c, 2));
    bool swap = strcmp(c->op, "aten::rsub") == 0;
    const ts_av *ab[2] = {c->a[swap ? 1 : 0], c->a[swap ? 0 : 1]};
    bool scalars = !em_ts_any_tensor(ab, 2);
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    rmode m = RM_NONE;
    if (scalars) {
        ember_dtype pa = py_dtype(ab[0]), pb = py_dtype(ab[1]);
        bool bools = pa == EMBER_DTYPE_BOOL && pb == EMBER_DTYPE_BOOL && k >= BK_LAND;
        dt = pa == EMBER_DTYPE_F64 || pb == EMBER_DTYPE_F64 ? EMBER_DTYPE_F64
             : bools                                      ? EMBER_DTYPE_BOOL
                                                          : EMBER_DTYPE_I64;
    } else {
        TS_TRY(em_ts_promote(L, c, ab, 2, &dt));
    }
    if (k == BK_DIV) {
        TS_TRY(rounding_mode(L, c, &m));
    }
    ember_dtype cdt = compute_dtype(k, m, dt, scalars);
    int x = -1, y = -1, r = -1;
    TS_TRY(em_ts_value_as(L, c, ab[0], cdt, &x));
    TS_TRY(em_ts_value_as(L, c, ab[1], cdt, &y));
    if ((k == BK_ADD || k == BK_SUB) && c->n > 2 && !is_one(c->a[2])) {
        int alpha = -1;
        TS_TRY(em_ts_value_as(L, c, c->a[2], cdt, &alpha));
        TS_TRY(em_ts_node2(L, c, EM_OP_MUL, y, alpha, &y));
    }
    TS_TRY(emit_binary(L, c, k, m, cdt, x, y, &r));
    if (scalars) {
        TS_TRY(em_ts_ret_tensor(L, r, out));
        (*out)->k = TA_SCALAR;
        return NULL;
    }
    return em_ts_elem_ret(L, c, r, out);
}

#define BINARY(name, kind)                                                \
    static ember_status *name(ts_lower *L, const ts_call *c, ts_av **out) \
    {                                                                     \
        return binary(L, c, kind, out);                                   \
    }
BINARY(lower_add, BK_ADD)
BINARY(lower_sub, BK_SUB)
BINARY(lower_mul, BK_MUL)
BINARY(lower_div, BK_DIV)
BINARY(lower_floordiv, BK_FLOORDIV)
BINARY(lower_remainder, BK_REM)
BINARY(lower_fmod, BK_FMOD)
BINARY(lower_pow, BK_POW)
BINARY(lower_eq, BK_EQ)
BINARY(lower_ne, BK_NE)
BINARY(lower_lt, BK_LT)
BINARY(lower_le, BK_LE)
BINARY(lower_gt, BK_GT)
BINARY(lower_ge, BK_GE)
BINARY(lower_logical_and, BK_LAND)
BINARY(lower_logical_or, BK_LOR)
BINARY(lower_logical_xor, BK_LXOR)
BINARY(lower_bitwise_and, BK_BAND)
BINARY(lower_bitwise_or, BK_BOR)
BINARY(lower_bitwise_xor, BK_BXOR)

ember_status *em_ts_lower_maximum(ts_lower *L, const ts_call *c, ts_av **out)
{
    return binary(L, c, BK_MAX, out);
}

ember_status *em_ts_lower_minimum(ts_lower *L, const ts_call *c, ts_av **out)
{
    return binary(L, c, BK_MIN, out);
}

/* logical_not(self) / __not__(bool) / bitwise_not(self): Not of bools, BitwiseNot of ints. */
static ember_status *lower_not(ts_lower *L, const ts_call *c, ts_av **out)
{
    TS_TRY(need(L, c, 1));
    const ts_av *a = c->a[0];
    bool logical = strstr(c->op, "bitwise") == NULL;
    ember_dtype dt = EMBER_DTYPE_BOOL;
    if (!logical) {
        TS_TRY(em_ts_promote(L, c, &a, 1, &dt));
        if (em_ts_dt_float(dt)) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s of a %s tensor (bitwise ops "
                          "take integers and bools)", c->op, ember_dtype_name(dt));
        }
        if (a->k != TA_TENSOR && dt != EMBER_DTYPE_BOOL) {
            dt = EMBER_DTYPE_I64; /* ~ of a Python int */
        }
    }
    int x = -1, r = -1;
    TS_TRY(em_ts_value_as(L, c, a, dt, &x));
    TS_TRY(em_ts_node(L, c, dt == EMBER_DTYPE_BOOL ? EM_OP_NOT : EM_OP_BITWISENOT, &x, 1, &r));
    if (a->k != TA_TENSOR) {
        TS_TRY(em_ts_ret_tensor(L, r, out));
        (*out)->k = TA_SCALAR;
        return NULL;
    }
    return em_ts_elem_ret(L, c, r, out);
}

/* ---- selection ---- */

/* where(condition, self, other) with Tensor or Scalar self/other: those two promote; a
 * non-bool condition (uint8, deprecated) is cast. */
static ember_status *lower_where(ts_lower *L, const ts_call *c, ts_av **out)
{
    if (c->n < 3) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s(condition) (the indices of nonzero "
                      "elements) is not supported", c->op);
    }
    const ts_av *ab[2] = {c->a[1], c->a[2]};
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(em_ts_promote(L, c, ab, 2, &dt));
    int in[3] = {-1, -1, -1}, r = -1;
    TS_TRY(em_ts_value_as(L, c, c->a[0], EMBER_DTYPE_BOOL, &in[0]));
    TS_TRY(em_ts_value_as(L, c, c->a[1], dt, &in[1]));
    TS_TRY(em_ts_value_as(L, c, c->a[2], dt, &in[2]));
    TS_TRY(em_ts_node(L, c, EM_OP_WHERE, in, 3, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* masked_fill(self, mask, value): value (a number or 0-d tensor) in self's dtype. */
static ember_status *lower_masked_fill(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, in[3] = {-1, -1, -1}, r = -1;
    TS_TRY(need(L, c, 3));
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_value_as(L, c, c->a[1], EMBER_DTYPE_BOOL, &in[0]));
    TS_TRY(em_ts_value_as(L, c, c->a[2], em_ts_val(L, x)->dtype, &in[1]));
    in[2] = x;
    TS_TRY(em_ts_node(L, c, EM_OP_WHERE, in, 3, &r));
    return em_ts_elem_ret(L, c, r, out);
}

/* A clamp bound Clip takes: a number, dynamic scalar or 0-d tensor. */
static bool scalar_bound(const ts_av *a)
{
    return a == NULL || a->k != TA_TENSOR || a->u.t.g->values[a->u.t.v].rank == 0;
}

/* self clamped to [lo, hi] (either may be None) in the promoted dtype of the three: Clip for
 * scalar bounds, Max then Min for tensor bounds (min above max gives max in both, as torch). */
static ember_status *clamp(ts_lower *L, const ts_call *c, const ts_av *lo, const ts_av *hi,
                           ts_av **out)
{
    TS_TRY(need(L, c, 1));
    lo = lo != NULL && lo->k == TA_NONE ? NULL : lo;
    hi = hi != NULL && hi->k == TA_NONE ? NULL : hi;
    const ts_av *args[3] = {c->a[0], lo, hi};
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(em_ts_promote(L, c, args, 3, &dt));
    int in[3] = {-1, -1, -1}, r = -1;
    TS_TRY(em_ts_value_as(L, c, c->a[0], dt, &in[0]));
    for (int i = 1; i <= 2; i++) {
        if (args[i] != NULL) {
            TS_TRY(em_ts_value_as(L, c, args[i], dt, &in[i]));
        }
    }
    if (scalar_bound(lo) && scalar_bound(hi)) {
        TS_TRY(em_ts_node(L, c, EM_OP_CLIP, in, 3, &r));
        return em_ts_elem_ret(L, c, r, out);
    }
    r = in[0];
    if (in[1] >= 0) {
        TS_TRY(em_ts_node2(L, c, EM_OP_MAX, r, in[1], &r));
    }
    if (in[2] >= 0) {
        TS_TRY(em_ts_node2(L, c, EM_OP_MIN, r, in[2], &r));
    }
    return em_ts_elem_ret(L, c, r, out);
}

/* clamp / clip(self, min=None, max=None), Scalar or Tensor bounds */
static ember_status *lower_clamp(ts_lower *L, const ts_call *c, ts_av **out)
{
    return clamp(L, c, c->n > 1 ? c->a[1] : NULL, c->n > 2 ? c->a[2] : NULL, out);
}

static ember_status *lower_clamp_min(ts_lower *L, const ts_call *c, ts_av **out)
{
    return clamp(L, c, c->n > 1 ? c->a[1] : NULL, NULL, out);
}

static ember_status *lower_clamp_max(ts_lower *L, const ts_call *c, ts_av **out)
{
    return clamp(L, c, NULL, c->n > 1 ? c->a[1] : NULL, out);
}

/* ---- tensor queries (torch.functional.norm's checks) ---- */

/* prim::layout(a) -> 0 (torch.strided), prim::device(a) -> cpu, prim::type(device) -> its
 * type ("cpu"): ember's tensors are dense and on the host. */
static ember_status *lower_query(ts_lower *L, const ts_call *c, ts_av **out)
{
    if (strcmp(c->op, "prim::layout") == 0) {
        *out = em_ts_int(L, 0);
    } else if (strcmp(c->op, "prim::device") == 0) {
        *out = em_ts_str(L, "cpu", 3);
        if (*out != NULL) {
            (*out)->k = TA_DEVICE;
        }
    } else if (c->n == 1 && (c->a[0]->k == TA_DEVICE || c->a[0]->k == TA_STR)) {
        const char *d = c->a[0]->u.str.s, *colon = strchr(d, ':');
        *out = em_ts_str(L, d, colon != NULL ? (size_t)(colon - d) : strlen(d));
    } else {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s of a %s", c->op,
                      c->n > 0 ? em_ts_kind_name(c->a[0]->k) : "nothing");
    }
    return *out != NULL ? NULL : em_status_oom();
}

/* ---- the table ---- */

/* An op and its in-place variant. */
#define OP2(name, fn) {"aten::" name, fn}, {"aten::" name "_", fn}

static const ts_op_entry elem_ops[] = {
    OP2("add", lower_add),
    OP2("sub", lower_sub),
    {"aten::rsub", lower_sub},
    OP2("mul", lower_mul),
    OP2("div", lower_div),
    OP2("true_divide", lower_div),
    OP2("floor_divide", lower_floordiv),
    {"aten::floordiv", lower_floordiv},
    OP2("remainder", lower_remainder),
    OP2("fmod", lower_fmod),
    OP2("pow", lower_pow),
    {"aten::maximum", em_ts_lower_maximum},
    {"aten::minimum", em_ts_lower_minimum},
    OP2("eq", lower_eq),
    OP2("ne", lower_ne),
    OP2("lt", lower_lt),
    OP2("le", lower_le),
    OP2("gt", lower_gt),
    OP2("ge", lower_ge),
    OP2("logical_and", lower_logical_and),
    OP2("logical_or", lower_logical_or),
    OP2("logical_xor", lower_logical_xor),
    OP2("logical_not", lower_not),
    {"aten::__not__", lower_not},
    OP2("bitwise_and", lower_bitwise_and),
    OP2("bitwise_or", lower_bitwise_or),
    OP2("bitwise_xor", lower_bitwise_xor),
    OP2("bitwise_not", lower_not),
    {"aten::__and__", lower_bitwise_and},
    {"aten::__or__", lower_bitwise_or},
    {"aten::__xor__", lower_bitwise_xor},
    {"aten::__iand__", lower_bitwise_and},
    {"aten::__ior__", lower_bitwise_or},
    {"aten::__ixor__", lower_bitwise_xor},
    {"aten::where", lower_where},
    OP2("masked_fill", lower_masked_fill),
    OP2("clamp", lower_clamp),
    OP2("clip", lower_clamp),
    OP2("clamp_min", lower_clamp_min),
    OP2("clamp_max", lower_clamp_max),
    {"prim::layout", lower_query},
    {"prim::device", lower_query},
    {"prim::type", lower_query},
    /* ts_ops_math.c */
    OP2("neg", em_ts_lower_unary),
    OP2("abs", em_ts_lower_unary),
    OP2("sqrt", em_ts_lower_unary),
    OP2("rsqrt", em_ts_lower_unary),
    OP2("exp", em_ts_lower_unary),
    OP2("log", em_ts_lower_unary),
    OP2("log1p", em_ts_lower_unary),
    OP2("log2", em_ts_lower_unary),
    OP2("erf", em_ts_lower_unary),
    OP2("sin", em_ts_lower_unary),
    OP2("cos", em_ts_lower_unary),
    OP2("tanh", em_ts_lower_unary),
    OP2("sigmoid", em_ts_lower_unary),
    OP2("reciprocal", em_ts_lower_unary),
    OP2("sign", em_ts_lower_unary),
    OP2("floor", em_ts_lower_unary),
    OP2("ceil", em_ts_lower_unary),
    OP2("trunc", em_ts_lower_unary),
    OP2("round", em_ts_lower_round),
    OP2("square", em_ts_lower_unary),
    OP2("selu", em_ts_lower_unary),
    OP2("mish", em_ts_lower_unary),
    OP2("hardswish", em_ts_lower_unary),
    {"aten::log_sigmoid", em_ts_lower_unary},
    OP2("relu", em_ts_lower_relu),
    OP2("relu6", em_ts_lower_relu6),
    OP2("hardtanh", em_ts_lower_hardtanh),
    OP2("leaky_relu", em_ts_lower_alpha_act),
    OP2("elu", em_ts_lower_elu),
    OP2("celu", em_ts_lower_alpha_act),
    OP2("gelu", em_ts_lower_gelu),
    OP2("silu", em_ts_lower_silu),
    OP2("hardsigmoid", em_ts_lower_hardsigmoid),
    {"aten::softplus", em_ts_lower_softplus},
    OP2("threshold", em_ts_lower_threshold),
    {"aten::prelu", em_ts_lower_prelu},
    {"aten::glu", em_ts_lower_glu},
    {"aten::softmax", em_ts_lower_softmax},
    {"aten::log_softmax", em_ts_lower_softmax},
    {"aten::_softmax", em_ts_lower_softmax},
    {"aten::_log_softmax", em_ts_lower_softmax},
    /* ts_ops_reduce.c */
    {"aten::sum", em_ts_lower_sum},
    {"aten::mean", em_ts_lower_mean},
    {"aten::prod", em_ts_lower_prod},
    {"aten::amax", em_ts_lower_amax},
    {"aten::amin", em_ts_lower_amax},
    {"aten::max", em_ts_lower_max},
    {"aten::min", em_ts_lower_max},
    {"aten::argmax", em_ts_lower_argmax},
    {"aten::argmin", em_ts_lower_argmax},
    {"aten::std", em_ts_lower_std},
    {"aten::var", em_ts_lower_std},
    {"aten::norm", em_ts_lower_norm},
    {"aten::linalg_vector_norm", em_ts_lower_norm},
    {"aten::frobenius_norm", em_ts_lower_norm},
    {"aten::all", em_ts_lower_all},
    {"aten::any", em_ts_lower_all},
    {"aten::logsumexp", em_ts_lower_logsumexp},
    OP2("cumsum", em_ts_lower_cumsum),
};

const ts_op_table em_ts_elem_table = {elem_ops, sizeof elem_ops / sizeof elem_ops[0]};
