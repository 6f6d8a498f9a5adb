/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calls of builtins in the TorchScript lowering (ts_lower.h, ts_ops.h): Python builtins and
 * properties, then operators: known arguments fold at load time (ts_ops_scalar.c), the rest is
 * bound to the operator's schema and lowered by its table entry (ts_ops_*.c). Also the
 * operators on shapes and dynamic scalars (size, dim, NumToTensor, Int...).
 */
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

/* ---- argument access ---- */

static ember_status *arg_err(ts_lower *L, const ts_call *c, size_t i, const char *want)
{
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: argument %zu must be %s known at load "
                  "time, got %s", c->op, i, want, i < c->n ? em_ts_kind_name(c->a[i]->k) : "none");
}

bool em_ts_arg_none(const ts_call *c, size_t i) { return i >= c->n || c->a[i]->k == TA_NONE; }

ember_status *em_ts_arg_tensor(ts_lower *L, const ts_call *c, size_t i, int *v)
{
    if (i >= c->n) {
        return arg_err(L, c, i, "a tensor");
    }
    return em_ts_as_tensor(L, c, c->a[i], EMBER_DTYPE_UNDEFINED, v);
}

ember_status *em_ts_arg_int(ts_lower *L, const ts_call *c, size_t i, int64_t *v)
{
    if (i < c->n && (c->a[i]->k == TA_INT || c->a[i]->k == TA_BOOL)) {
        *v = c->a[i]->k == TA_INT ? c->a[i]->u.i : c->a[i]->u.b;
        return NULL;
    }
    return arg_err(L, c, i, "an int");
}

ember_status *em_ts_arg_float(ts_lower *L, const ts_call *c, size_t i, double *v)
{
    if (i < c->n && c->a[i]->k == TA_FLOAT) {
        *v = c->a[i]->u.f;
        return NULL;
    }
    if (i < c->n && c->a[i]->k == TA_INT) {
        *v = (double)c->a[i]->u.i;
        return NULL;
    }
    return arg_err(L, c, i, "a number");
}

ember_status *em_ts_arg_bool(ts_lower *L, const ts_call *c, size_t i, bool *v)
{
    if (i < c->n && (c->a[i]->k == TA_BOOL || c->a[i]->k == TA_INT)) {
        *v = c->a[i]->k == TA_BOOL ? c->a[i]->u.b : c->a[i]->u.i != 0;
        return NULL;
    }
    return arg_err(L, c, i, "a bool");
}

ember_status *em_ts_arg_ints(ts_lower *L, const ts_call *c, size_t i, int64_t *v, size_t cap,
                          size_t n_fill, size_t *n)
{
    if (i < c->n && c->a[i]->k == TA_INT && n_fill > 0 && n_fill <= cap) {
        for (size_t j = 0; j < n_fill; j++) {
            v[j] = c->a[i]->u.i;
        }
        *n = n_fill;
        return NULL;
    }
    if (i >= c->n || (c->a[i]->k != TA_LIST && c->a[i]->k != TA_TUPLE) ||
        c->a[i]->u.seq.n > cap) {
        return arg_err(L, c, i, "an int list");
    }
    const ts_av *l = c->a[i];
    for (size_t j = 0; j < l->u.seq.n; j++) {
        if (l->u.seq.items[j]->k != TA_INT) {
            return arg_err(L, c, i, "a list of ints");
        }
        v[j] = l->u.seq.items[j]->u.i;
    }
    *n = l->u.seq.n;
    if (*n == 1 && n_fill > 1 && n_fill <= cap) { /* int[2] given [k] */
        for (size_t j = 1; j < n_fill; j++) {
            v[j] = v[0];
        }
        *n = n_fill;
    }
    return NULL;
}

ember_status *em_ts_ret_tensor(ts_lower *L, int v, ts_av **out)
{
    *out = em_ts_tensor(L, v);
    return *out != NULL ? NULL : em_status_oom();
}

ember_status *em_ts_emit1(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                       int *node, ts_av **out)
{
    int v = -1;
    TS_TRY(em_ts_emit(L, c, op, in, n_in, &v, 1, node));
    return em_ts_ret_tensor(L, v, out);
}

ember_status *em_ts_rank(ts_lower *L, const ts_call *c, int v, int *rank)
{
    *rank = em_ts_val(L, v)->rank;
    if (*rank < 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s needs the rank of its input, which "
                      "is not known: give the model's input ranks (ember run --input, or "
                      "ember_model_options_set_input_rank)", c->op);
    }
    return NULL;
}

/* ---- shapes and dynamic scalars ---- */

/* A dynamic scalar from a 0-d value. */
static ember_status *ret_scalar(ts_lower *L, int v, ts_av **out)
{
    TS_TRY(em_ts_ret_tensor(L, v, out));
    (*out)->k = TA_SCALAR;
    return NULL;
}

ember_status *em_ts_dim_value(ts_lower *L, const ts_call *c, int x, int64_t d, int *out)
{
    int shape = -1, idx = -1, node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_SHAPE, &x, 1, &shape, 1, NULL));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)d, &idx));
    int in[2] = {shape, idx};
    TS_TRY(em_ts_emit(L, c, EM_OP_GATHER, in, 2, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", 0));
    return em_ts_infer(L, c, node);
}

/* Dim d of x: known, or a dynamic scalar. */
static ember_status *dim_of(ts_lower *L, const ts_call *c, int x, int64_t d, ts_av **out)
{
    const em_value *xv = em_ts_val(L, x);
    if (xv->dims[d].v >= 0) {
        *out = em_ts_int(L, xv->dims[d].v);
        return *out != NULL ? NULL : em_status_oom();
    }
    int g = -1;
    TS_TRY(em_ts_dim_value(L, c, x, d, &g));
    return ret_scalar(L, g, out);
}

static ember_status *lower_size(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    if (c->n >= 2 && c->a[1]->k != TA_NONE) {
        int64_t d = 0;
        TS_TRY(em_ts_arg_int(L, c, 1, &d));
        if (d < -rank || d >= rank) {
            return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "size(): dim %lld of a rank-%d "
                          "tensor", (long long)d, rank);
        }
        return dim_of(L, c, x, d < 0 ? d + rank : d, out);
    }
    *out = em_ts_seq(L, TA_LIST, (size_t)rank);
    if (*out == NULL) {
        return em_status_oom();
    }
    for (int d = 0; d < rank; d++) {
        TS_TRY(dim_of(L, c, x, d, &(*out)->u.seq.items[d]));
    }
    return NULL;
}

static ember_status *lower_dim(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    *out = em_ts_int(L, rank);
    return *out != NULL ? NULL : em_status_oom();
}

static ember_status *lower_numel(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    const em_value *xv = em_ts_val(L, x);
    int64_t n = 1;
    for (int d = 0; d < rank && n >= 0; d++) {
        n = xv->dims[d].v >= 0 ? n * xv->dims[d].v : -1;
    }
    if (n >= 0) {
        *out = em_ts_int(L, n);
        return *out != NULL ? NULL : em_status_oom();
    }
    int s = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_SIZE, &x, 1, &s, 1, NULL));
    return ret_scalar(L, s, out);
}

/* aten::len of a tensor: its first dim (`for row in x` is a loop over range(len(x))). */
static ember_status *lower_len(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    if (rank == 0) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "len() of a 0-d tensor");
    }
    return dim_of(L, c, x, 0, out);
}

/* prim::NumToTensor: a number as a 0-d tensor (known numbers stay known: int() of it folds). */
static ember_status *lower_num_to_tensor(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *a = c->a[0];
    if (a->k == TA_INT || a->k == TA_FLOAT || a->k == TA_BOOL) {
        *out = (ts_av *)a; /* kept as a number: torch ops take numbers where tensors go */
        return NULL;
    }
    int v = -1;
    TS_TRY(em_ts_as_tensor(L, c, a, EMBER_DTYPE_UNDEFINED, &v));
    return em_ts_ret_tensor(L, v, out);
}

/* aten::Int / Float / Bool / ScalarImplicit of a tensor: a dynamic scalar. */
/* The one element of a constant tensor (a module buffer: float(self.scale)) as a double;
 * false when a is not such a constant. */
static bool const_element(const ts_av *a, double *v)
{
    if (a->k != TA_TENSOR || a->u.t.q != NULL) {
        return false;
    }
    const em_value *x = &a->u.t.g->values[a->u.t.v];
    int64_t n = 1;
    for (int d = 0; d < x->rank; d++) {
        n *= x->dims[d].v;
    }
    if (x->kind != EM_VAL_INITIALIZER || x->init.data == NULL || x->rank < 0 || n != 1) {
        return false;
    }
    return em_ts_number_at(x->dtype, x->init.data, v);
}

static ember_status *lower_to_scalar(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *a = c->a[0];
    double k = 0;
    if (const_element(a, &k)) { /* folds as the number it holds */
        ts_av num = {.k = TA_FLOAT};
        num.u.f = k;
        ts_call kc = *c;
        ts_av *args[1] = {&num};
        kc.a = args;
        return lower_to_scalar(L, &kc, out);
    }
    bool want_int = strcmp(c->op, "aten::Int") == 0 || strcmp(c->op, "aten::IntImplicit") == 0;
    bool want_bool = strcmp(c->op, "aten::Bool") == 0;
    if (a->k == TA_INT || a->k == TA_FLOAT || a->k == TA_BOOL) {
        double v = a->k == TA_INT ? (double)a->u.i : a->k == TA_BOOL ? a->u.b : a->u.f;
        *out = want_int ? em_ts_int(L, (int64_t)v) : want_bool ? em_ts_bool(L, v != 0)
               : a->k == TA_INT && strcmp(c->op, "aten::ScalarImplicit") == 0 ? em_ts_int(L, a->u.i)
                                                                            : em_ts_float(L, v);
        return *out != NULL ? NULL : em_status_oom();
    }
    int v = -1;
    ember_dtype dt = want_int ? EMBER_DTYPE_I64 : want_bool ? EMBER_DTYPE_BOOL : EMBER_DTYPE_F64;
    if (strcmp(c->op, "aten::ScalarImplicit") == 0) {
        dt = EMBER_DTYPE_UNDEFINED;
    }
    TS_TRY(em_ts_as_tensor(L, c, a, dt, &v));
    if (em_ts_val(L, v)->rank > 0) { /* one element: reshape to 0-d */
        int shape = -1, r = -1;
        TS_TRY(em_ts_const(L, EMBER_DTYPE_I64, 1, (int64_t[]){0}, NULL, &shape));
        int in[2] = {v, shape};
        TS_TRY(em_ts_emit(L, c, EM_OP_RESHAPE, in, 2, &r, 1, NULL));
        v = r;
    }
    return ret_scalar(L, v, out);
}

static const ts_op_entry shape_ops[] = {
    {"aten::size", lower_size},
    {"aten::dim", lower_dim},
    {"aten::numel", lower_numel},
    {"aten::len", lower_len},
    {"prim::NumToTensor", lower_num_to_tensor},
    {"aten::Int", lower_to_scalar},
    {"aten::IntImplicit", lower_to_scalar},
    {"aten::Float", lower_to_scalar},
    {"aten::FloatImplicit", lower_to_scalar},
    {"aten::ScalarImplicit", lower_to_scalar},
    {"aten::Bool", lower_to_scalar},
};

static const ts_op_table shape_table = {shape_ops, sizeof shape_ops / sizeof shape_ops[0]};

ts_lower_fn em_ts_op_find(const char *name)
{
    const ts_op_table *const tables[] = {&shape_table, &em_ts_nn_table, &em_ts_elem_table,
                                         &em_ts_tensor_table, &em_ts_index_table, &em_ts_layout_table,
                                         &em_ts_rnn_table, &em_ts_attn_table, &em_ts_quant_table};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (size_t i = 0; i < tables[t]->n; i++) {
            if (strcmp(tables[t]->ops[i].name, name) == 0) {
                return tables[t]->ops[i].fn;
            }
        }
    }
    return NULL;
}

/* ---- Python builtins and properties ---- */

static ember_status *python_builtin(ts_lower *L, const char *q, ts_av **args, size_t n,
                                    em_ts_pos pos, bool *handled, ts_av **out)
{
    *handled = true;
    if (strcmp(q, "print") == 0 || strcmp(q, "warnings.warn") == 0 ||
        strcmp(q, "torch.warn") == 0 || strcmp(q, "ops.aten.warn") == 0) {
        *out = em_ts_none(L);
        return *out != NULL ? NULL : em_status_oom();
    }
    if (strcmp(q, "torch.device") == 0 && n == 1 && args[0]->k == TA_STR) {
        *out = em_ts_str(L, args[0]->u.str.s, args[0]->u.str.n);
        if (*out != NULL) {
            (*out)->k = TA_DEVICE;
        }
        return *out != NULL ? NULL : em_status_oom();
    }
    if ((strcmp(q, "list") == 0 || strcmp(q, "torch.list") == 0 || strcmp(q, "tuple") == 0) &&
        n == 1 && (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE)) {
        *out = em_ts_seq(L, q[0] == 't' && q[1] == 'u' ? TA_TUPLE : TA_LIST, args[0]->u.seq.n);
        if (*out == NULL) {
            return em_status_oom();
        }
        memcpy((*out)->u.seq.items, args[0]->u.seq.items, args[0]->u.seq.n * sizeof(ts_av *));
        return NULL;
    }
    if (strcmp(q, "torch.append") == 0 && n == 2 && args[0]->k == TA_LIST) {
        TS_TRY(em_ts_list_append(L, args[0], args[1]));
        *out = args[0];
        return NULL;
    }
    if (strcmp(q, "torch.__getitem__") == 0 && n == 2 && args[0]->k == TA_DICT) {
        for (size_t i = 0; i < args[0]->u.dict.n; i++) {
            ts_av *k = args[0]->u.dict.keys[i];
            if (k->k == TA_STR && args[1]->k == TA_STR && strcmp(k->u.str.s, args[1]->u.str.s) == 0) {
                *out = args[0]->u.dict.vals[i];
                return NULL;
            }
            if (k->k == TA_INT && args[1]->k == TA_INT && k->u.i == args[1]->u.i) {
                *out = args[0]->u.dict.vals[i];
                return NULL;
            }
        }
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, pos, "key not in dict");
    }
    if (strcmp(q, "__new__") == 0 && n == 1 && args[0]->k == TA_CLASS) {
        ts_obj *o = em_ts_arena_alloc(&L->arena, sizeof *o);
        *out = em_ts_new(L, TA_OBJECT);
        if (o == NULL || *out == NULL) {
            return em_status_oom();
        }
        o->qual = args[0]->u.cls.qual;
        o->cls = args[0]->u.cls.cls;
        o->path = L->path;
        (*out)->u.obj = o;
        return NULL;
    }
    if (strncmp(q, "prop.", 5) == 0 && n == 1) {
        const char *p = q + 5;
        const ts_av *a = args[0];
        if (a->k == TA_TENSOR && (strcmp(p, "is_cuda") == 0 || strcmp(p, "is_nested") == 0 ||
                                  strcmp(p, "requires_grad") == 0 ||
                                  strcmp(p, "is_sparse") == 0)) {
            *out = em_ts_bool(L, false);
            return *out != NULL ? NULL : em_status_oom();
        }
        if (a->k == TA_TENSOR && strcmp(p, "is_quantized") == 0) {
            *out = em_ts_bool(L, a->u.t.q != NULL);
            return *out != NULL ? NULL : em_status_oom();
        }
        if (a->k == TA_TENSOR && strcmp(p, "device") == 0) {
            *out = em_ts_str(L, "cpu", 3);
            if (*out != NULL) {
                (*out)->k = TA_DEVICE;
            }
            return *out != NULL ? NULL : em_status_oom();
        }
        if (a->k == TA_TENSOR && strcmp(p, "dtype") == 0) {
            int st = em_ts_scalar_type(a->u.t.g->values[a->u.t.v].dtype);
            if (st >= 0) {
                *out = em_ts_int(L, st);
                return *out != NULL ? NULL : em_status_oom();
            }
        }
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "property '%s' of a %s", p,
                      em_ts_kind_name(a->k));
    }
    *handled = false;
    return NULL;
}

/* "torch.add" -> "aten::add"; "ops.prim.X" -> "prim::X"; else NULL. */
static const char *op_name(ts_lower *L, const char *q)
{
    if (strncmp(q, "torch.", 6) == 0 && strchr(q + 6, '.') == NULL) {
        return em_ts_printf(L, "aten::%s", q + 6);
    }
    if (strncmp(q, "ops.", 4) == 0) {
        const char *dot = strchr(q + 4, '.');
        if (dot != NULL && strchr(dot + 1, '.') == NULL) {
            return em_ts_printf(L, "%.*s::%s", (int)(dot - (q + 4)), q + 4, dot + 1);
        }
    }
    return NULL;
}

/* Folded at load time: ops.prim / aten queries on tensors whose answer ember knows. */
static ember_status *fold_query(ts_lower *L, const char *op, bool *handled, ts_av **out)
{
    static const char *const falses[] = {"aten::is_grad_enabled", "aten::is_autocast_enabled",
                                         "aten::is_autocast_cpu_enabled", "prim::is_cuda",
                                         "prim::is_nested", "prim::requires_grad",
                                         "aten::is_scripting"};
    *handled = false;
    for (size_t i = 0; i < sizeof falses / sizeof falses[0]; i++) {
        if (strcmp(op, falses[i]) == 0) {
            *handled = true;
            *out = em_ts_bool(L, false);
            return *out != NULL ? NULL : em_status_oom();
        }
    }
    return NULL;
}

/* == / != of two lists the scalar folding could not decide (sizes of an input checked against
 * sizes computed from another): the pairs compared one by one, joined with `and` (==) or `or`
 * (!=) into a run-time bool. Shape checks that only raise then fall away as data checks. */
static ember_status *list_compare(ts_lower *L, bool eq, ts_av **args, em_ts_pos pos,
                                  ts_av **out)
{
    const ts_av *a = args[0], *b = args[1];
    *out = NULL;
    for (size_t i = 0; i < a->u.seq.n; i++) {
        ts_av *pair[2] = {a->u.seq.items[i], b->u.seq.items[i]}, *r = NULL;
        TS_TRY(em_ts_builtin_call(L, eq ? "torch.eq" : "torch.ne", pair, 2, NULL, NULL, 0, pos, &r));
        if (*out == NULL) {
            *out = r;
            continue;
        }
        ts_av *both[2] = {*out, r};
        TS_TRY(em_ts_builtin_call(L, eq ? "torch.__and__" : "torch.__or__", both, 2, NULL, NULL, 0,
                               pos, out));
    }
    return NULL;
}

static bool in_table(const ts_op_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->ops[i].name, name) == 0) {
            return true;
        }
    }
    return false;
}

/* An aten op on quantized tensors (torch runs pooling, flatten, relu, ... on them): it gets
 * their float values, and its result is quantized again with the first one's parameters where
 * torch keeps them (ops that move, select or take the max of values; averages, as torch's
 * quantized kernels do). Calls without quantized tensors go straight to `fn`. */
static ember_status *quantized_operands(ts_lower *L, ts_call *c, ts_lower_fn fn, ts_av **out)
{
    static const char *const keep[] = {
        "aten::max_pool2d", "aten::max_pool1d", "aten::avg_pool2d", "aten::adaptive_avg_pool2d",
        "aten::flatten", "aten::reshape", "aten::view", "aten::relu", "aten::relu_",
        "aten::contiguous", "aten::dropout", "aten::squeeze", "aten::unsqueeze",
        "aten::permute", "aten::transpose", "aten::upsample_nearest2d", "aten::hardtanh",
        "aten::hardtanh_", "aten::clamp", "aten::mean", "aten::__getitem__", "aten::select",
        "aten::slice"};
    const ts_av *like = NULL;
    for (size_t i = 0; i < c->n; i++) {
        ts_av *a = c->a[i];
        if (a->k == TA_TENSOR && a->u.t.q != NULL) {
            int v = -1;
            TS_TRY(em_ts_dequantize(L, c, a, &v));
            like = like != NULL ? like : a;
            TS_TRY(em_ts_ret_tensor(L, v, &c->a[i]));
        }
    }
    TS_TRY(fn(L, c, out));
    if (like == NULL || like->u.t.q->axis >= 0 || *out == NULL || (*out)->k != TA_TENSOR) {
        return NULL;
    }
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) {
        if (strcmp(c->op, keep[k]) == 0) {
            int x = -1;
            TS_TRY(em_ts_use(L, *out, &x));
            return em_ts_requantize_like(L, c, x, like, out);
        }
    }
    return NULL;
}

ember_status *em_ts_builtin_call(ts_lower *L, const char *qual, ts_av **args, size_t n_args,
                              const char **kw_names, ts_av **kw_vals, size_t n_kw,
                              em_ts_pos pos, ts_av **out)
{
    bool handled = false;
    *out = NULL;
    TS_TRY(python_builtin(L, qual, args, n_args, pos, &handled, out));
    if (handled) {
        return NULL;
    }
    const char *op = op_name(L, qual);
    const char *scalar_name = op != NULL ? op : qual;
    if (n_kw == 0) {
        TS_TRY(em_ts_scalar_call(L, scalar_name, args, n_args, pos, &handled, out));
        if (handled) {
            return NULL;
        }
        if (op != NULL && (strcmp(op, "aten::eq") == 0 || strcmp(op, "aten::ne") == 0) &&
            n_args == 2 && (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE) &&
            (args[1]->k == TA_LIST || args[1]->k == TA_TUPLE) &&
            args[0]->u.seq.n == args[1]->u.seq.n && args[0]->u.seq.n > 0) {
            return list_compare(L, op[6] == 'e', args, pos, out);
        }
    }
    if (op == NULL) {
        if (strcmp(qual, "int") == 0 || strcmp(qual, "float") == 0 || strcmp(qual, "bool") == 0) {
            op = qual[0] == 'i' ? "aten::Int" : qual[0] == 'f' ? "aten::Float" : "aten::Bool";
        } else if (strcmp(qual, "len") == 0) {
            op = "aten::len";
        } else {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "call of '%s' is not supported", qual);
        }
    }
    TS_TRY(fold_query(L, op, &handled, out));
    if (handled) {
        return NULL;
    }
    ts_lower_fn fn = em_ts_op_find(op);
    if (fn == NULL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "operator %s is not supported by ember's "
                      "TorchScript loader", op);
    }
    ts_call c = {0};
    TS_TRY(em_ts_bind(L, op, args, n_args, kw_names, kw_vals, n_kw, pos, &c));
    const char *bare = strstr(op, "::") + 2;
    c.node = L->path[0] != '\0' ? em_ts_printf(L, "%s/%s", L->path, bare) : bare;
    if (c.node == NULL) {
        return em_status_oom();
    }
    if (strncmp(op, "aten::", 6) == 0 && !in_table(&em_ts_quant_table, op)) {
        return quantized_operands(L, &c, fn, out);
    }
    return fn(L, &c, out);
}
