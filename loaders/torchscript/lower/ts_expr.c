/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Expressions of the TorchScript lowering's evaluator (ts_lower.h): names and the builtin
 * environment, literals, containers, attributes, subscripts, operators, the special forms of
 * serialized code (annotate, unchecked_cast, uninitialized, isinstance, getattr) and calls.
 */
#include "ts_flow.h"
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Names the serialized code may use without defining them (import_source.cpp's environment
 * plus Python builtins the printer emits). */
static const char *const builtin_names[] = {
    "torch", "ops", "math", "__torch__", "CONSTANTS", "int", "float", "bool", "str", "len",
    "range", "min", "max", "abs", "print", "list", "tuple", "dict", "round", "divmod",
    "enumerate", "zip", "fork", "wait", "Tensor", "annotate", "unchecked_cast",
    "uninitialized", "isinstance", "getattr", "hasattr", "NoneType", "List", "Dict", "Tuple",
    "Optional", "Final", "number", "Any", "Future", "Device", "warnings", "sorted",
};

static ember_status *call_builtin(ts_lower *L, const char *q, ts_av **args, size_t n,
                                  const char **kwn, ts_av **kwv, size_t nk, em_ts_pos pos,
                                  ts_av **out);

static ember_status *eval_name(ts_lower *L, const ts_env *env, const em_ts_expr *e, ts_av **out)
{
    const char *n = e->u.name;
    *out = em_ts_env_get(env, n);
    if (*out != NULL) {
        return NULL;
    }
    if (strcmp(n, "inf") == 0 || strcmp(n, "nan") == 0) {
        *out = em_ts_float(L, n[0] == 'i' ? INFINITY : NAN);
        return *out != NULL ? NULL : em_status_oom();
    }
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++) {
        if (strcmp(n, builtin_names[i]) == 0) {
            *out = em_ts_str(L, n, strlen(n));
            if (*out == NULL) {
                return em_status_oom();
            }
            (*out)->k = TA_NS;
            return NULL;
        }
    }
    return em_ts_err(L, EMBER_ERR_INVALID_MODEL, e->pos, "name '%s' is not defined", n);
}

/* base.name on a builtin namespace: a longer dotted name, or a serialized class / function
 * once the name reaches one (`__torch__.a.b.C`). */
static ember_status *ns_attr(ts_lower *L, const ts_av *base, const char *name, em_ts_pos pos,
                             ts_av **out)
{
    const char *q = em_ts_printf(L, "%s.%s", base->u.str.s, name);
    if (q == NULL) {
        return em_status_oom();
    }
    if (strcmp(q, "CONSTANTS") > 0 && strncmp(q, "CONSTANTS.c", 11) == 0) {
        char *end = NULL;
        long long i = strtoll(q + 11, &end, 10);
        if (*end != '\0' || L->constants == NULL || L->constants->kind != EM_TSV_TUPLE ||
            i < 0 || (size_t)i >= L->constants->u.seq.n) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "%s is not in constants.pkl", q);
        }
        return em_ts_from_tsv(L, L->constants->u.seq.items[i], q, out);
    }
    if (strncmp(q, "__torch__.", 10) == 0) {
        ember_status *st = em_ts_resolve(L, q, pos, out);
        if (st != NULL || *out != NULL) {
            return st;
        }
    }
    if (strcmp(q, "math.pi") == 0 || strcmp(q, "math.e") == 0 || strcmp(q, "math.inf") == 0 ||
        strcmp(q, "math.nan") == 0) {
        *out = em_ts_float(L, q[5] == 'p'   ? 3.14159265358979323846
                           : q[5] == 'e' ? 2.71828182845904523536
                           : q[7] == 'f' ? INFINITY : NAN);
        return *out != NULL ? NULL : em_status_oom();
    }
    *out = em_ts_str(L, q, strlen(q));
    if (*out == NULL) {
        return em_status_oom();
    }
    (*out)->k = TA_NS;
    return NULL;
}

static ember_status *eval_attr(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out)
{
    ts_av *base = NULL;
    TS_TRY(em_ts_eval(L, env, e->u.attr.base, &base));
    const char *name = e->u.attr.name;
    switch (base->k) {
    case TA_OBJECT:
        return em_ts_obj_get(L, base, name, e->pos, out);
    case TA_NS:
        return ns_attr(L, base, name, e->pos, out);
    case TA_CLASS:
        if (strcmp(name, "__new__") == 0) {
            *out = em_ts_str(L, "__new__", 7);
            if (*out == NULL) {
                return em_status_oom();
            }
            (*out)->k = TA_NS;
            return NULL;
        }
        break;
    default: {
        /* Properties of values: x.shape, x.dtype, x.device, x.is_cuda, ... */
        ts_av *arg = base;
        const char *q = em_ts_printf(L, "prop.%s", name);
        if (q == NULL) {
            return em_status_oom();
        }
        return call_builtin(L, q, &arg, 1, NULL, NULL, 0, e->pos, out);
    }
    }
    return em_ts_err(L, EMBER_ERR_INVALID_MODEL, e->pos, "a %s has no attribute '%s'",
                  em_ts_kind_name(base->k), name);
}

/* ---- `is` on Optional values and tensors ---- */

static bool is_graph(const ts_av *a) { return a->k == TA_TENSOR || a->k == TA_SCALAR; }

/* `a is b` / `a is not b` (negate) when load time knows: `x is None` of an Optional argument
 * (None or not at load time), tensors (the same graph value: nn.MultiheadAttention asks
 * `query is key`) and modules. */
static ember_status *fold_is(ts_lower *L, bool negate, const ts_av *a, const ts_av *b,
                             bool *handled, ts_av **out)
{
    bool same = false;
    *handled = true;
    if (a->k == TA_NONE || b->k == TA_NONE) {
        same = a->k == b->k;
    } else if (is_graph(a) && is_graph(b)) {
        same = a->u.t.g == b->u.t.g && a->u.t.v == b->u.t.v;
    } else if (a->k == TA_OBJECT && b->k == TA_OBJECT) {
        same = a->u.obj == b->u.obj;
    } else {
        *handled = false;
        return NULL;
    }
    *out = em_ts_bool(L, same != negate);
    return *out != NULL ? NULL : em_status_oom();
}

/* `is` in call form, and _unwrap_optional of a value that is there. */
static ember_status *fold_optional(ts_lower *L, const char *q, ts_av **args, size_t n,
                                   em_ts_pos pos, bool *handled, ts_av **out)
{
    bool is = strcmp(q, "torch.__is__") == 0, isnot = strcmp(q, "torch.__isnot__") == 0;
    *handled = false;
    if ((is || isnot) && n == 2) {
        return fold_is(L, isnot, args[0], args[1], handled, out);
    }
    if ((strcmp(q, "torch._unwrap_optional") == 0 ||
         strcmp(q, "ops.prim.unchecked_unwrap_optional") == 0) && n == 1) {
        if (args[0]->k == TA_NONE) {
            return em_ts_err(L, EMBER_ERR_INVALID_ARG, pos, "the model unwraps an Optional that "
                          "is None");
        }
        *handled = true;
        *out = args[0];
    }
    return NULL;
}

/* torch.__range_length(lo, hi, step) and torch.__derive_index(i, start, step): how TorchScript
 * writes `for i in range(lo, hi, step)`, a loop over range(length) deriving its counter. */
static ember_status *range_ops(ts_lower *L, const char *q, ts_av **args, size_t n,
                               em_ts_pos pos, bool *handled, ts_av **out)
{
    bool len = strcmp(q, "torch.__range_length") == 0;
    *handled = (len || strcmp(q, "torch.__derive_index") == 0) && n == 3;
    if (!*handled) {
        return NULL;
    }
    if (!len) { /* start + i * step */
        ts_av *m = NULL, *a[2] = {args[0], args[2]};
        TS_TRY(call_builtin(L, "torch.mul", a, 2, NULL, NULL, 0, pos, &m));
        ts_av *b[2] = {args[1], m};
        return call_builtin(L, "torch.add", b, 2, NULL, NULL, 0, pos, out);
    }
    if (args[2]->k != TA_INT || args[2]->u.i == 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "range() with a step that is not a known "
                      "nonzero int");
    }
    /* max(0, ceil((hi - lo) / step)), with lo and hi swapped for a negative step */
    int64_t step = args[2]->u.i, m = step > 0 ? step : -step;
    const ts_av *hi = step > 0 ? args[1] : args[0], *lo = step > 0 ? args[0] : args[1];
    if (hi->k == TA_INT && lo->k == TA_INT) {
        int64_t d = hi->u.i - lo->u.i;
        *out = em_ts_int(L, d > 0 ? (d + m - 1) / m : 0);
        return *out != NULL ? NULL : em_status_oom();
    }
    ts_call c = {.op = "aten::__range_length", .pos = pos, .node = "range"};
    int in[2] = {-1, -1}, d = -1;
    TS_TRY(em_ts_as_tensor(L, &c, hi, EMBER_DTYPE_I64, &in[0]));
    TS_TRY(em_ts_as_tensor(L, &c, lo, EMBER_DTYPE_I64, &in[1]));
    TS_TRY(em_ts_emit(L, &c, EM_OP_SUB, in, 2, &d, 1, NULL));
    if (m > 1) {
        in[0] = d;
        TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)(m - 1), &in[1]));
        TS_TRY(em_ts_emit(L, &c, EM_OP_ADD, in, 2, &d, 1, NULL));
        in[0] = d;
        TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)m, &in[1]));
        TS_TRY(em_ts_emit(L, &c, EM_OP_DIV, in, 2, &d, 1, NULL));
    }
    in[0] = d;
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, 0, &in[1]));
    TS_TRY(em_ts_emit(L, &c, EM_OP_MAX, in, 2, &d, 1, NULL));
    TS_TRY(em_ts_ret_tensor(L, d, out));
    (*out)->k = TA_SCALAR;
    return NULL;
}

/* A builtin call: lists of run-time length first. */
static ember_status *call_builtin(ts_lower *L, const char *q, ts_av **args, size_t n,
                                  const char **kwn, ts_av **kwv, size_t nk, em_ts_pos pos,
                                  ts_av **out)
{
    bool handled = false;
    TS_TRY(em_ts_flow_builtin(L, q, args, n, kwn, kwv, nk, pos, &handled, out));
    return handled ? NULL : em_ts_builtin_call(L, q, args, n, kwn, kwv, nk, pos, out);
}

/* A call of builtin `q` written in the code: the folds above first. (Kept apart from
 * call_builtin, whose callers pass constant names gcc would compare with these.) */
static ember_status *call_named(ts_lower *L, const char *q, ts_av **args, size_t n,
                                const char **kwn, ts_av **kwv, size_t nk, em_ts_pos pos,
                                ts_av **out)
{
    bool handled = false;
    TS_TRY(fold_optional(L, q, args, n, pos, &handled, out));
    if (!handled && nk == 0) {
        TS_TRY(range_ops(L, q, args, n, pos, &handled, out));
    }
    return handled ? NULL : call_builtin(L, q, args, n, kwn, kwv, nk, pos, out);
}

static int64_t norm_index(int64_t i, size_t n) { return i < 0 ? i + (int64_t)n : i; }

static ember_status *eval_subscript(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out)
{
    ts_av *base = NULL, *idx = NULL;
    TS_TRY(em_ts_eval(L, env, e->u.sub.base, &base));
    const em_ts_expr *ie = e->u.sub.index;
    if ((base->k == TA_LIST || base->k == TA_TUPLE) && ie->kind == EM_TS_SLICE) {
        /* A slice of a known sequence. */
        int64_t n = (int64_t)base->u.seq.n, lo = 0, hi = n, step = 1;
        const em_ts_expr *parts[3] = {ie->u.slice.lo, ie->u.slice.hi, ie->u.slice.step};
        int64_t *dst[3] = {&lo, &hi, &step};
        for (int i = 0; i < 3; i++) {
            ts_av *p = NULL;
            if (parts[i] == NULL) {
                continue;
            }
            TS_TRY(em_ts_eval(L, env, parts[i], &p));
            if (p->k == TA_NONE) {
                continue;
            }
            if (p->k != TA_INT) {
                return em_ts_err(L, EMBER_ERR_UNSUPPORTED, parts[i]->pos, "slice bound of a list "
                              "must be a known int");
            }
            *dst[i] = p->u.i;
        }
        if (step != 1) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, ie->pos, "list slices with a step");
        }
        lo = norm_index(lo, (size_t)n);
        hi = norm_index(hi, (size_t)n);
        lo = lo < 0 ? 0 : lo > n ? n : lo;
        hi = hi < lo ? lo : hi > n ? n : hi;
        *out = em_ts_seq(L, base->k, (size_t)(hi - lo));
        if (*out == NULL) {
            return em_status_oom();
        }
        for (int64_t i = lo; i < hi; i++) {
            (*out)->u.seq.items[i - lo] = base->u.seq.items[i];
        }
        return NULL;
    }
    TS_TRY(em_ts_eval(L, env, ie, &idx));
    if ((base->k == TA_LIST || base->k == TA_TUPLE) && idx->k == TA_INT) {
        int64_t i = norm_index(idx->u.i, base->u.seq.n);
        if (i < 0 || i >= (int64_t)base->u.seq.n) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, e->pos, "index %lld out of range for a "
                          "%s of %zu items", (long long)idx->u.i, em_ts_kind_name(base->k),
                          base->u.seq.n);
        }
        *out = base->u.seq.items[i];
        return NULL;
    }
    ts_av *args[2] = {base, idx};
    return call_builtin(L, "torch.__getitem__", args, 2, NULL, NULL, 0, e->pos, out);
}

static const char *op_builtin(em_ts_op op)
{
    switch (op) {
    case EM_TS_OP_ADD: return "torch.add";
    case EM_TS_OP_SUB: return "torch.sub";
    case EM_TS_OP_MUL: return "torch.mul";
    case EM_TS_OP_DIV: return "torch.div";
    case EM_TS_OP_FLOORDIV: return "torch.floordiv";
    case EM_TS_OP_MOD: return "torch.remainder";
    case EM_TS_OP_POW: return "torch.pow";
    case EM_TS_OP_MATMUL: return "torch.matmul";
    case EM_TS_OP_LSHIFT: return "torch.__lshift__";
    case EM_TS_OP_RSHIFT: return "torch.__rshift__";
    case EM_TS_OP_BITAND: return "torch.__and__";
    case EM_TS_OP_BITOR: return "torch.__or__";
    case EM_TS_OP_BITXOR: return "torch.__xor__";
    case EM_TS_OP_NEG: return "torch.neg";
    case EM_TS_OP_INVERT: return "torch.bitwise_not";
    case EM_TS_OP_NOT: return "torch.__not__";
    case EM_TS_OP_LT: return "torch.lt";
    case EM_TS_OP_LE: return "torch.le";
    case EM_TS_OP_GT: return "torch.gt";
    case EM_TS_OP_GE: return "torch.ge";
    case EM_TS_OP_EQ: return "torch.eq";
    case EM_TS_OP_NE: return "torch.ne";
    case EM_TS_OP_IS: return "torch.__is__";
    case EM_TS_OP_IS_NOT: return "torch.__isnot__";
    case EM_TS_OP_IN: return "torch.__contains__";
    default: return NULL;
    }
}

static ember_status *apply_op(ts_lower *L, em_ts_op op, ts_av *a, ts_av *b, em_ts_pos pos,
                              ts_av **out)
{
    if (op == EM_TS_OP_POS) {
        *out = a;
        return NULL;
    }
    if (op == EM_TS_OP_NOT_IN) {
        ts_av *in = NULL;
        TS_TRY(apply_op(L, EM_TS_OP_IN, a, b, pos, &in));
        return apply_op(L, EM_TS_OP_NOT, in, NULL, pos, out);
    }
    if (op == EM_TS_OP_IS || op == EM_TS_OP_IS_NOT) {
        bool handled = false;
        TS_TRY(fold_is(L, op == EM_TS_OP_IS_NOT, a, b, &handled, out));
        if (handled) {
            return NULL;
        }
    }
    const char *q = op_builtin(op);
    if (q == NULL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "operator '%s'", em_ts_op_text(op));
    }
    ts_av *args[2] = {a, b};
    if (op == EM_TS_OP_IN) { /* `a in b` is b.__contains__(a) */
        args[0] = b;
        args[1] = a;
    }
    return call_builtin(L, q, args, b != NULL ? 2 : 1, NULL, NULL, 0, pos, out);
}

static ember_status *eval_bool_op(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out)
{
    ts_av *a = NULL;
    TS_TRY(em_ts_eval(L, env, e->u.bin.lhs, &a));
    bool is_and = e->u.bin.op == EM_TS_OP_AND;
    if (a->k == TA_BOOL) {
        if (a->u.b != is_and) { /* False and ... / True or ... */
            *out = a;
            return NULL;
        }
        return em_ts_eval(L, env, e->u.bin.rhs, out);
    }
    ts_av *b = NULL;
    TS_TRY(em_ts_eval(L, env, e->u.bin.rhs, &b));
    ts_av *args[2] = {a, b};
    return call_builtin(L, is_and ? "torch.__and__" : "torch.__or__", args, 2, NULL, NULL, 0,
                        e->pos, out);
}

static ember_status *eval_compare(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out)
{
    ts_av *left = NULL, *acc = NULL;
    TS_TRY(em_ts_eval(L, env, e->u.cmp.operands[0], &left));
    for (size_t i = 0; i < e->u.cmp.n_ops; i++) {
        ts_av *right = NULL, *r = NULL;
        TS_TRY(em_ts_eval(L, env, e->u.cmp.operands[i + 1], &right));
        TS_TRY(apply_op(L, e->u.cmp.ops[i], left, right, e->pos, &r));
        if (acc == NULL) {
            acc = r;
        } else {
            ts_av *args[2] = {acc, r};
            TS_TRY(call_builtin(L, "torch.__and__", args, 2, NULL, NULL, 0, e->pos, &acc));
        }
        if (acc->k == TA_BOOL && !acc->u.b) {
            break;
        }
        left = right;
    }
    *out = acc;
    return NULL;
}

/* Whether abstract value `v` is an instance of type expression `t` (known at load time). */
static ember_status *is_instance(ts_lower *L, const ts_av *v, const em_ts_expr *t, bool *yes)
{
    if (t->kind == EM_TS_TUPLE) { /* isinstance(x, (A, B)) */
        for (size_t i = 0; i < t->u.seq.n; i++) {
            TS_TRY(is_instance(L, v, t->u.seq.items[i], yes));
            if (*yes) {
                return NULL;
            }
        }
        return NULL;
    }
    const em_ts_expr *head = t->kind == EM_TS_SUBSCRIPT ? t->u.sub.base : t;
    const char *n = head->kind == EM_TS_NAME ? head->u.name : "";
    if (strcmp(n, "Tensor") == 0) {
        *yes = v->k == TA_TENSOR;
    } else if (strcmp(n, "int") == 0) {
        *yes = v->k == TA_INT || (v->k == TA_SCALAR &&
                                  v->u.t.g->values[v->u.t.v].dtype == EMBER_DTYPE_I64);
    } else if (strcmp(n, "float") == 0) {
        *yes = v->k == TA_FLOAT || (v->k == TA_SCALAR &&
                                    v->u.t.g->values[v->u.t.v].dtype == EMBER_DTYPE_F64);
    } else if (strcmp(n, "bool") == 0) {
        *yes = v->k == TA_BOOL;
    } else if (strcmp(n, "str") == 0) {
        *yes = v->k == TA_STR;
    } else if (strcmp(n, "NoneType") == 0) {
        *yes = v->k == TA_NONE;
    } else if (strcmp(n, "List") == 0) {
        *yes = v->k == TA_LIST;
    } else if (strcmp(n, "Tuple") == 0) {
        *yes = v->k == TA_TUPLE;
    } else if (strcmp(n, "Dict") == 0) {
        *yes = v->k == TA_DICT;
    } else if (strcmp(n, "Optional") == 0 && t->kind == EM_TS_SUBSCRIPT) {
        *yes = v->k == TA_NONE;
        if (!*yes) {
            TS_TRY(is_instance(L, v, t->u.sub.index, yes));
        }
    } else {
        const char *q = em_ts_expr_dotted(L->ast, head);
        *yes = q != NULL && v->k == TA_OBJECT && strcmp(v->u.obj->qual, q) == 0;
    }
    return NULL;
}

/* Evaluates positional and keyword arguments. */
static ember_status *eval_args(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av ***args,
                               const char ***kwn, ts_av ***kwv)
{
    size_t n = e->u.call.n_args, nk = e->u.call.n_kwargs;
    *args = em_ts_arena_alloc(&L->arena, (n + 1) * sizeof(ts_av *));
    *kwn = em_ts_arena_alloc(&L->arena, (nk + 1) * sizeof(char *));
    *kwv = em_ts_arena_alloc(&L->arena, (nk + 1) * sizeof(ts_av *));
    if (*args == NULL || *kwn == NULL || *kwv == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < n; i++) {
        TS_TRY(em_ts_eval(L, env, e->u.call.args[i], &(*args)[i]));
    }
    for (size_t i = 0; i < nk; i++) {
        (*kwn)[i] = e->u.call.kwargs[i].name;
        TS_TRY(em_ts_eval(L, env, e->u.call.kwargs[i].value, &(*kwv)[i]));
    }
    return NULL;
}

/* annotate(number / int / float / bool, t) of a 0-d tensor: traced code's implicit conversion
 * (NumToTensor(size) used as a Scalar) makes it a dynamic scalar (I64, F64 or BOOL). */
static ember_status *scalar_annotation(ts_lower *L, const em_ts_expr *type, ts_av **v)
{
    if ((*v)->k != TA_TENSOR || type->kind != EM_TS_NAME ||
        (*v)->u.t.g->values[(*v)->u.t.v].rank != 0) {
        return NULL;
    }
    const char *t = type->u.name;
    ember_dtype have = (*v)->u.t.g->values[(*v)->u.t.v].dtype, want;
    if (strcmp(t, "int") == 0) {
        want = EMBER_DTYPE_I64;
    } else if (strcmp(t, "float") == 0) {
        want = EMBER_DTYPE_F64;
    } else if (strcmp(t, "bool") == 0) {
        want = EMBER_DTYPE_BOOL;
    } else if (strcmp(t, "number") == 0) {
        want = have == EMBER_DTYPE_BOOL || have == EMBER_DTYPE_I64 ? have
               : have == EMBER_DTYPE_F32 || have == EMBER_DTYPE_F64 || have == EMBER_DTYPE_F16 ||
                         have == EMBER_DTYPE_BF16 ? EMBER_DTYPE_F64 : EMBER_DTYPE_I64;
    } else {
        return NULL;
    }
    const em_value *val = &(*v)->u.t.g->values[(*v)->u.t.v];
    double x = 0;
    if (val->kind == EM_VAL_INITIALIZER && val->init.data != NULL &&
        em_ts_number_at(val->init.dtype, val->init.data, &x)) {
        /* a constant (a module's scale / zero point buffer): the number itself, known at load */
        if (want == EMBER_DTYPE_I64 && !(x == floor(x) && fabs(x) < 0x1p62)) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, type->pos, "annotate(int, ...) of the "
                             "constant %g", x);
        }
        *v = want == EMBER_DTYPE_F64 ? em_ts_float(L, x)
             : want == EMBER_DTYPE_BOOL ? em_ts_bool(L, x != 0) : em_ts_int(L, (int64_t)x);
        return *v != NULL ? NULL : em_status_oom();
    }
    ts_av *s = em_ts_new(L, TA_SCALAR);
    if (s == NULL) {
        return em_status_oom();
    }
    s->u.t = (*v)->u.t;
    int w = -1;
    TS_TRY(em_ts_as_tensor(L, NULL, s, want, &w));
    s->u.t.v = w;
    s->u.t.g = L->g;
    *v = s;
    return NULL;
}

static ember_status *eval_call(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out)
{
    const em_ts_expr *fe = e->u.call.fn;
    size_t n = e->u.call.n_args;
    /* Special forms whose first argument is a type, not a value. */
    if (fe->kind == EM_TS_NAME && em_ts_env_get(env, fe->u.name) == NULL) {
        const char *fn = fe->u.name;
        if ((strcmp(fn, "annotate") == 0 || strcmp(fn, "unchecked_cast") == 0) && n == 2) {
            TS_TRY(em_ts_eval(L, env, e->u.call.args[1], out));
            return scalar_annotation(L, e->u.call.args[0], out);
        }
        if (strcmp(fn, "uninitialized") == 0) {
            *out = em_ts_new(L, TA_UNINIT);
            return *out != NULL ? NULL : em_status_oom();
        }
        if (strcmp(fn, "isinstance") == 0 && n == 2) {
            ts_av *v = NULL;
            bool yes = false;
            TS_TRY(em_ts_eval(L, env, e->u.call.args[0], &v));
            TS_TRY(is_instance(L, v, e->u.call.args[1], &yes));
            *out = em_ts_bool(L, yes);
            return *out != NULL ? NULL : em_status_oom();
        }
    }
    ts_av *fn = NULL, **args = NULL, **kwv = NULL;
    const char **kwn = NULL;
    TS_TRY(em_ts_eval(L, env, fe, &fn));
    TS_TRY(eval_args(L, env, e, &args, &kwn, &kwv));
    size_t nk = e->u.call.n_kwargs;
    switch (fn->k) {
    case TA_FUNC:
        return em_ts_call_func(L, fn, args, n, kwn, kwv, nk, e->pos, out);
    case TA_NS:
        if (strcmp(fn->u.str.s, "getattr") == 0 && n >= 2 && args[0]->k == TA_OBJECT &&
            args[1]->k == TA_STR) {
            return em_ts_obj_get(L, args[0], args[1]->u.str.s, e->pos, out);
        }
        return call_named(L, fn->u.str.s, args, n, kwn, kwv, nk, e->pos, out);
    case TA_CLASS: {
        /* NamedTuple construction gives a tuple; other classes need __init__ (unsupported). */
        if (fn->u.cls.cls != NULL && fn->u.cls.cls->base == EM_TS_BASE_NAMEDTUPLE) {
            *out = em_ts_seq(L, TA_TUPLE, n);
            if (*out == NULL) {
                return em_status_oom();
            }
            for (size_t i = 0; i < n; i++) {
                (*out)->u.seq.items[i] = args[i];
            }
            return NULL;
        }
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, e->pos, "constructing objects of class %s",
                      fn->u.cls.qual);
    }
    default:
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, e->pos, "a %s is not callable",
                      em_ts_kind_name(fn->k));
    }
}

ember_status *em_ts_eval(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out)
{
    *out = NULL;
    switch (e->kind) {
    case EM_TS_NAME:
        return eval_name(L, env, e, out);
    case EM_TS_INT:
        *out = em_ts_int(L, e->u.num.i);
        break;
    case EM_TS_FLOAT:
        *out = em_ts_float(L, e->u.num.f);
        break;
    case EM_TS_STR:
        *out = em_ts_str(L, e->u.str.s, e->u.str.n);
        break;
    case EM_TS_BOOL:
        *out = em_ts_bool(L, e->u.b);
        break;
    case EM_TS_NONE:
        *out = em_ts_none(L);
        break;
    case EM_TS_TUPLE:
    case EM_TS_LIST:
        *out = em_ts_seq(L, e->kind == EM_TS_TUPLE ? TA_TUPLE : TA_LIST, e->u.seq.n);
        if (*out == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < e->u.seq.n; i++) {
            TS_TRY(em_ts_eval(L, env, e->u.seq.items[i], &(*out)->u.seq.items[i]));
        }
        return NULL;
    case EM_TS_DICT: {
        ts_av *d = em_ts_new(L, TA_DICT);
        if (d == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < e->u.dict.n; i++) {
            ts_av *args[3] = {d, NULL, NULL}, *r = NULL;
            TS_TRY(em_ts_eval(L, env, e->u.dict.keys[i], &args[1]));
            TS_TRY(em_ts_eval(L, env, e->u.dict.values[i], &args[2]));
            TS_TRY(em_ts_builtin_call(L, "torch._set_item", args, 3, NULL, NULL, 0, e->pos, &r));
        }
        *out = d;
        return NULL;
    }
    case EM_TS_ATTR:
        return eval_attr(L, env, e, out);
    case EM_TS_CALL:
        return eval_call(L, env, e, out);
    case EM_TS_SUBSCRIPT:
        return eval_subscript(L, env, e, out);
    case EM_TS_UNARY: {
        ts_av *a = NULL;
        TS_TRY(em_ts_eval(L, env, e->u.unary.operand, &a));
        return apply_op(L, e->u.unary.op, a, NULL, e->pos, out);
    }
    case EM_TS_BINARY: {
        if (e->u.bin.op == EM_TS_OP_AND || e->u.bin.op == EM_TS_OP_OR) {
            return eval_bool_op(L, env, e, out);
        }
        ts_av *a = NULL, *b = NULL;
        TS_TRY(em_ts_eval(L, env, e->u.bin.lhs, &a));
        TS_TRY(em_ts_eval(L, env, e->u.bin.rhs, &b));
        return apply_op(L, e->u.bin.op, a, b, e->pos, out);
    }
    case EM_TS_COMPARE:
        return eval_compare(L, env, e, out);
    case EM_TS_IFEXP: {
        ts_av *c = NULL;
        TS_TRY(em_ts_eval(L, env, e->u.ifexp.cond, &c));
        if (is_graph(c)) { /* an If node */
            return em_ts_flow_ifexp(L, env, e, c, out);
        }
        if (c->k != TA_BOOL && c->k != TA_INT && c->k != TA_NONE) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, e->pos, "a %s has no truth value",
                          em_ts_kind_name(c->k));
        }
        bool v = c->k == TA_BOOL ? c->u.b : c->k == TA_INT && c->u.i != 0;
        return em_ts_eval(L, env, v ? e->u.ifexp.then : e->u.ifexp.other, out);
    }
    case EM_TS_ELLIPSIS:
    case EM_TS_SLICE:
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, e->pos, "this expression is not supported here");
    }
    return *out != NULL ? NULL : em_status_oom();
}
