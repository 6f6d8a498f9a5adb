/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h): tensor creation (zeros, ones, full, empty,
 * the *_like and new_* families, arange, linspace, tensor, scalar_tensor, eye), torch's dtype
 * numbering (prim::dtype, dtype arguments) and dtype casts (aten::to in all its overloads,
 * type_as: the .float() / .long() ... methods serialize as aten::to).
 *
 * Sizes are int lists mixing known ints and dynamic scalars (torch.size(x, 0) of a symbolic
 * dim), so a tensor of a size known only at run time is Expand(scalar, shape): other input
 * shapes work. Dims the lowering can tell (known ints, or a dynamic scalar that is a dim of a
 * value) are written back onto the result so later code sees them.
 */
#include "ts_ops.h"
#include "ts_ops_elem.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

/* ---- dtypes ---- */

/* torch's ScalarType numbering (c10/core/ScalarType.h) of the dtypes ember has. */
static const struct {
    int st;
    ember_dtype dt;
} scalar_types[] = {
    {0, EMBER_DTYPE_U8},         {1, EMBER_DTYPE_I8},          {2, EMBER_DTYPE_I16},
    {3, EMBER_DTYPE_I32},        {4, EMBER_DTYPE_I64},         {5, EMBER_DTYPE_F16},
    {6, EMBER_DTYPE_F32},        {7, EMBER_DTYPE_F64},         {11, EMBER_DTYPE_BOOL},
    {15, EMBER_DTYPE_BF16},      {23, EMBER_DTYPE_F8E5M2},     {24, EMBER_DTYPE_F8E4M3FN},
    {25, EMBER_DTYPE_F8E5M2FNUZ}, {26, EMBER_DTYPE_F8E4M3FNUZ}, {27, EMBER_DTYPE_U16},
    {28, EMBER_DTYPE_U32},       {29, EMBER_DTYPE_U64},
};

int em_ts_scalar_type(ember_dtype dt)
{
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++) {
        if (scalar_types[i].dt == dt) {
            return scalar_types[i].st;
        }
    }
    return -1;
}

ember_dtype em_ts_dtype_of_scalar_type(int64_t st)
{
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++) {
        if (scalar_types[i].st == st) {
            return scalar_types[i].dt;
        }
    }
    return EMBER_DTYPE_UNDEFINED;
}

/* A dtype argument (a torch ScalarType int, or None for `dflt`). */
static ember_status *dtype_arg(ts_lower *L, const ts_call *c, size_t i, ember_dtype dflt,
                               ember_dtype *dt)
{
    int64_t st = -1;
    if (em_ts_arg_none(c, i)) {
        *dt = dflt;
        return NULL;
    }
    TS_TRY(em_ts_arg_int(L, c, i, &st));
    *dt = em_ts_dtype_of_scalar_type(st);
    if (*dt == EMBER_DTYPE_UNDEFINED) {
        static const char *const names[] = {[8] = "complex32", [9] = "complex64",
                                            [10] = "complex128", [12] = "qint8",
                                            [13] = "quint8", [14] = "qint32"};
        const char *name = st >= 0 && st < 15 && names[st] != NULL ? names[st] : "this dtype";
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: dtype %s (torch ScalarType %lld) "
                      "is not supported", c->op, name, (long long)st);
    }
    return NULL;
}

/* layout must be None or torch.strided (0): sparse tensors are not supported. Devices are
 * ignored: ember places tensors itself. */
static ember_status *check_layout(ts_lower *L, const ts_call *c, size_t i)
{
    if (em_ts_arg_none(c, i) || (c->a[i]->k == TA_INT && c->a[i]->u.i == 0)) {
        return NULL;
    }
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: only the strided layout is supported",
                  c->op);
}

/* The dtype of a number or dynamic scalar as torch infers it for a new tensor. */
static ember_dtype number_dtype(const ts_av *a)
{
    if (a->k == TA_BOOL) {
        return EMBER_DTYPE_BOOL;
    }
    if (a->k == TA_INT) {
        return EMBER_DTYPE_I64;
    }
    if (a->k == TA_SCALAR) {
        ember_dtype d = a->u.t.g->values[a->u.t.v].dtype;
        return d == EMBER_DTYPE_F64 ? EMBER_DTYPE_F32 : d;
    }
    return EMBER_DTYPE_F32; /* floats: torch's default dtype */
}

static bool is_float_dtype(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

/* ---- dims the lowering can tell ---- */

bool em_ts_dim_of_scalar(ts_lower *L, const ts_av *s, em_dim *d)
{
    if (s->k != TA_SCALAR || s->u.t.g != L->g) {
        return false;
    }
    const em_graph *g = L->g;
    int p = g->values[s->u.t.v].producer;
    if (p < 0 || g->nodes[p].op != EM_OP_GATHER || g->nodes[p].n_in != 2) {
        return false;
    }
    const em_value *idx = &g->values[g->nodes[p].in[1]];
    int sp = g->values[g->nodes[p].in[0]].producer;
    if (idx->kind != EM_VAL_INITIALIZER || idx->dtype != EMBER_DTYPE_I64 || idx->rank != 0 ||
        idx->init.data == NULL || sp < 0 || g->nodes[sp].op != EM_OP_SHAPE ||
        g->nodes[sp].n_attrs != 0) {
        return false;
    }
    int64_t k = 0;
    memcpy(&k, idx->init.data, sizeof k);
    em_value *x = &L->g->values[g->nodes[sp].in[0]];
    if (k < 0 || k >= x->rank) {
        return false;
    }
    if (x->dims[k].v < 0 && x->dims[k].sym == 0) {
        /* An unknown dim read by size() gets a symbol of its own: code reshaping by sizes it
         * read ([b, g, c/g, h, w] then [b, -1, h, w]) then keeps its dims. Symbols only name
         * dims for load time (the planner binds the inputs' ones). */
        const char *name = em_ts_printf(L, "%s.dim%lld", x->name, (long long)k);
        x->dims[k].sym = name != NULL ? em_graph_symbol(L->g, name) : 0;
    }
    *d = x->dims[k];
    return d->v >= 0 || d->sym > 0;
}

void em_ts_refine_dims(ts_lower *L, int v, const ts_av *list)
{
    em_value *val = &L->g->values[v];
    if ((list->k != TA_LIST && list->k != TA_TUPLE) || val->rank != (int)list->u.seq.n) {
        return;
    }
    for (int d = 0; d < val->rank; d++) {
        const ts_av *it = list->u.seq.items[d];
        em_dim dim = {-1, 0};
        if (val->dims[d].v >= 0 || val->dims[d].sym > 0) {
            continue;
        }
        if (it->k == TA_INT && it->u.i >= 0) {
            val->dims[d] = (em_dim){it->u.i, 0};
        } else if (em_ts_dim_of_scalar(L, it, &dim)) {
            val->dims[d] = dim;
        }
    }
}

void em_ts_reshape_dims(ts_lower *L, int v, int x, const ts_av *list)
{
    em_ts_refine_dims(L, v, list);
    em_value *yv = &L->g->values[v];
    const em_value *xv = &L->g->values[x];
    int k = -1;
    if ((list->k != TA_LIST && list->k != TA_TUPLE) || yv->rank != (int)list->u.seq.n ||
        xv->rank < 0) {
        return;
    }
    for (int d = 0; d < yv->rank; d++) {
        const ts_av *it = list->u.seq.items[d];
        if (it->k == TA_INT && it->u.i == -1) {
            k = d;
        }
    }
    if (k < 0 || yv->dims[k].v >= 0 || yv->dims[k].sym > 0) {
        return;
    }
    /* -1 is numel(x) / the product of the other dims: known factors divide, symbols cancel. */
    int32_t syms[EMBER_MAX_RANK];
    int ns = 0;
    int64_t pin = 1, pout = 1;
    for (int d = 0; d < xv->rank; d++) {
        if (xv->dims[d].v >= 0) {
            pin *= xv->dims[d].v;
        } else if (xv->dims[d].sym > 0) {
            syms[ns++] = xv->dims[d].sym;
        } else {
            return;
        }
    }
    for (int d = 0; d < yv->rank; d++) {
        if (d == k) {
            continue;
        }
        if (yv->dims[d].v >= 0) {
            pout *= yv->dims[d].v;
            continue;
        }
        int j = 0;
        while (j < ns && (yv->dims[d].sym == 0 || syms[j] != yv->dims[d].sym)) {
            j++;
        }
        if (j == ns) {
            return;
        }
        syms[j] = syms[--ns];
    }
    if (ns == 0 && pout > 0 && pin % pout == 0) {
        yv->dims[k] = (em_dim){pin / pout, 0};
    } else if (ns == 1 && pin == pout) {
        yv->dims[k] = (em_dim){-1, syms[0]};
    }
}

void em_ts_copy_dims(ts_lower *L, int v, int from)
{
    em_value *val = &L->g->values[v];
    const em_value *f = &L->g->values[from];
    if (val->rank != f->rank) {
        return;
    }
    for (int d = 0; d < val->rank; d++) {
        if (val->dims[d].v < 0 && val->dims[d].sym == 0) {
            val->dims[d] = f->dims[d];
        }
    }
}

ember_status *em_ts_shape_of(ts_lower *L, const ts_call *c, int x, int64_t start, int64_t end,
                          int *out)
{
    int node = -1, rank = 0;
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_emit(L, c, EM_OP_SHAPE, &x, 1, out, 1, &node));
    if (start != 0) {
        TS_TRY(em_node_set_int(L->g, node, "start", start));
    }
    if (end < rank) {
        TS_TRY(em_node_set_int(L->g, node, "end", end));
    }
    return em_ts_infer(L, c, node);
}

/* ---- creation ---- */

/* A tensor of dtype dt, shape `shape` (a 1-D int64 value), filled with number `fill`. */
static ember_status *filled(ts_lower *L, const ts_call *c, int shape, ember_dtype dt,
                            const ts_av *fill, int *out)
{
    int in[2] = {-1, shape};
    TS_TRY(em_ts_as_tensor(L, c, fill, dt, &in[0]));
    return em_ts_emit(L, c, EM_OP_EXPAND, in, 2, out, 1, NULL);
}

/* Creation from a size list: zeros / ones / empty / full(size, [fill,] dtype, layout, device,
 * pin_memory) and new_*(self, size, [fill,] dtype, ...) (i_size: the size's position). */
static ember_status *from_size(ts_lower *L, const ts_call *c, size_t i_size, const ts_av *fill,
                               ember_dtype dflt, ts_av **out)
{
    size_t i_dtype = i_size + (fill == NULL ? 2 : 1);
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    int shape = -1, y = -1;
    if (fill == NULL) {
        fill = c->a[i_size + 1];
    }
    TS_TRY(dtype_arg(L, c, i_dtype, dflt != EMBER_DTYPE_UNDEFINED ? dflt : number_dtype(fill),
                     &dt));
    TS_TRY(check_layout(L, c, i_dtype + 1));
    TS_TRY(em_ts_int_list_tensor(L, c, c->a[i_size], &shape));
    TS_TRY(filled(L, c, shape, dt, fill, &y));
    em_ts_refine_dims(L, y, c->a[i_size]);
    return em_ts_ret_tensor(L, y, out);
}

/* The fill of creation op c by its name: 1 for ones, 0 for zeros and empty (ember's empty
 * tensors are zeros), NULL for full (the fill is an argument). */
static const ts_av *fill_of(const ts_call *c, ts_av *v)
{
    *v = (ts_av){.k = TA_INT, .u.i = strstr(c->op, "ones") != NULL};
    return strstr(c->op, "full") != NULL ? NULL : v;
}

/* zeros / ones / empty(size, *, dtype=None, ...): float32 by default; full(size, fill_value,
 * *, dtype=None, ...): the dtype follows the fill value. */
static ember_status *lower_from_size(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av v;
    const ts_av *fill = fill_of(c, &v);
    return from_size(L, c, 0, fill, fill != NULL ? EMBER_DTYPE_F32 : EMBER_DTYPE_UNDEFINED, out);
}

/* The dtype of tensor argument 0 (the new_* and *_like families default to it). */
static ember_status *self_dtype(ts_lower *L, const ts_call *c, int *x, ember_dtype *dt)
{
    TS_TRY(em_ts_arg_tensor(L, c, 0, x));
    *dt = em_ts_val(L, *x)->dtype;
    return NULL;
}

/* new_zeros / new_ones / new_empty(self, size, *, dtype, ...) and new_full(self, size,
 * fill_value, *, dtype, ...): self's dtype by default. */
static ember_status *lower_new(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1;
    ts_av v;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(self_dtype(L, c, &x, &dt));
    return from_size(L, c, 1, fill_of(c, &v), dt, out);
}

/* zeros_like / ones_like / empty_like(self, *, dtype, layout, device, pin_memory,
 * memory_format) and full_like(self, fill_value, *, dtype, ...): Expand to Shape(self). */
static ember_status *lower_like(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av v;
    const ts_av *fill = fill_of(c, &v);
    int x = -1, shape = -1, y = -1;
    size_t i_dtype = fill == NULL ? 2 : 1;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(self_dtype(L, c, &x, &dt));
    if (fill == NULL) {
        fill = c->a[1];
    }
    TS_TRY(dtype_arg(L, c, i_dtype, dt, &dt));
    TS_TRY(check_layout(L, c, i_dtype + 1));
    TS_TRY(em_ts_shape_of(L, c, x, 0, EMBER_MAX_RANK, &shape));
    TS_TRY(filled(L, c, shape, dt, fill, &y));
    em_ts_copy_dims(L, y, x);
    return em_ts_ret_tensor(L, y, out);
}

/* Random tensors: ember's outputs are deterministic. */
static ember_status *lower_random(ts_lower *L, const ts_call *c, ts_av **out)
{
    (void)out;
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: random tensors are not supported",
                  c->op);
}

static double number_value(const ts_av *a)
{
    return a->k == TA_BOOL ? a->u.b : a->k == TA_INT ? (double)a->u.i : a->u.f;
}

static bool is_known_number(const ts_av *a)
{
    return a->k == TA_INT || a->k == TA_FLOAT || a->k == TA_BOOL;
}

/* arange(end), arange.start(start, end), arange.start_step(start, end, step=1), each with
 * dtype, layout, device, pin_memory: Range, in int64 or (torch computes floats in double)
 * float64 then cast. */
static ember_status *lower_arange(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av zero = {.k = TA_INT, .u.i = 0}, one = {.k = TA_INT, .u.i = 1};
    const ts_av *args[3] = {&zero, NULL, &one};
    size_t n = strcmp(c->overload, "start_step") == 0 ? 3 : strcmp(c->overload, "start") == 0
                                                              ? 2 : 1;
    if (n == 1) {
        args[1] = c->a[0];
    } else {
        args[0] = c->a[0];
        args[1] = c->a[1];
        if (n == 3) {
            args[2] = c->a[2];
        }
    }
    bool fl = false;
    for (int i = 0; i < 3; i++) {
        fl = fl || is_float_dtype(number_dtype(args[i]));
    }
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(dtype_arg(L, c, n, fl ? EMBER_DTYPE_F32 : EMBER_DTYPE_I64, &dt));
    TS_TRY(check_layout(L, c, n + 1));
    ember_dtype work = is_float_dtype(dt) ? EMBER_DTYPE_F64 : EMBER_DTYPE_I64;
    int in[3] = {-1, -1, -1}, r = -1, y = -1;
    for (int i = 0; i < 3; i++) {
        TS_TRY(em_ts_as_tensor(L, c, args[i], work, &in[i]));
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_RANGE, in, 3, &r, 1, NULL));
    TS_TRY(em_ts_cast(L, c, r, dt, &y));
    /* arange(n) of a dim n has that dim. */
    em_dim d = {-1, 0};
    if (is_known_number(args[0]) && number_value(args[0]) == 0 && is_known_number(args[2]) &&
        number_value(args[2]) == 1 && em_ts_dim_of_scalar(L, args[1], &d) &&
        L->g->values[y].dims[0].v < 0) {
        L->g->values[y].dims[0] = d;
    }
    return em_ts_ret_tensor(L, y, out);
}

/* The data of a known tensor of n elements: ints (also bools) or doubles. */
typedef struct known_data {
    int64_t *i;
    double *f;
    bool any_float, all_bool;
    int64_t n;
} known_data;

/* A constant of dtype dt from known data (made in int64 / float64 / bool, then cast). */
static ember_status *known_const(ts_lower *L, const ts_call *c, const known_data *k, int rank,
                                 const int64_t *dims, ember_dtype dt, int *out)
{
    int v = -1;
    if (k->any_float) {
        TS_TRY(em_ts_const(L, EMBER_DTYPE_F64, rank, dims, k->f, &v));
    } else if (dt == EMBER_DTYPE_BOOL) {
        unsigned char *b = em_ts_arena_alloc(&L->arena, (size_t)(k->n > 0 ? k->n : 1));
        if (b == NULL) {
            return em_status_oom();
        }
        for (int64_t j = 0; j < k->n; j++) {
            b[j] = k->i[j] != 0;
        }
        TS_TRY(em_ts_const(L, EMBER_DTYPE_BOOL, rank, dims, b, &v));
    } else {
        TS_TRY(em_ts_const(L, EMBER_DTYPE_I64, rank, dims, k->i, &v));
    }
    return em_ts_cast(L, c, v, dt, out);
}

/* linspace(start, end, steps, *, dtype=None, ...) of known numbers: computed at load time the
 * way torch's CPU kernel does (step in the dtype, or double for integers; the second half
 * counted back from the end). */
static ember_status *lower_linspace(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t steps = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    if (!is_known_number(c->a[0]) || !is_known_number(c->a[1])) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: start and end must be known at "
                      "load time", c->op);
    }
    TS_TRY(em_ts_arg_int(L, c, 2, &steps));
    TS_TRY(dtype_arg(L, c, 3, EMBER_DTYPE_F32, &dt));
    TS_TRY(check_layout(L, c, 4));
    if (steps < 0 || steps > (1 << 20)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: %lld steps", c->op,
                      (long long)steps);
    }
    known_data k = {.any_float = true, .n = steps};
    k.f = em_ts_arena_alloc(&L->arena, (size_t)(steps > 0 ? steps : 1) * sizeof(double));
    if (k.f == NULL) {
        return em_status_oom();
    }
    double s = number_value(c->a[0]), e = number_value(c->a[1]);
    int64_t half = steps / 2;
    if (dt == EMBER_DTYPE_F32) {
        float sf = (float)s, ef = (float)e, st = steps > 1 ? (ef - sf) / (float)(steps - 1) : 0;
        for (int64_t i = 0; i < steps; i++) {
            k.f[i] = steps == 1 ? sf : i < half ? sf + st * (float)i
                                                : ef - st * (float)(steps - i - 1);
        }
    } else {
        if (!is_float_dtype(dt)) { /* integers: start and end converted first */
            s = trunc(s);
            e = trunc(e);
        }
        double st = steps > 1 ? (e - s) / (double)(steps - 1) : 0;
        for (int64_t i = 0; i < steps; i++) {
            k.f[i] = steps == 1 ? s : i < half ? s + st * (double)i
                                               : e - st * (double)(steps - i - 1);
            k.f[i] = is_float_dtype(dt) ? k.f[i] : trunc(k.f[i]);
        }
    }
    int y = -1;
    TS_TRY(known_const(L, c, &k, 1, &steps, dt, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* The shape of nested lists of known numbers (rectangular), or false. */
static bool nested_shape(const ts_av *a, int depth, int64_t *dims, int *rank)
{
    if (a->k != TA_LIST && a->k != TA_TUPLE) {
        if (!is_known_number(a)) {
            return false;
        }
        if (*rank < 0) {
            *rank = depth;
        }
        return *rank == depth;
    }
    if (depth >= EMBER_MAX_RANK) {
        return false;
    }
    if (*rank >= 0 && depth < *rank && dims[depth] != (int64_t)a->u.seq.n) {
        return false;
    }
    dims[depth] = (int64_t)a->u.seq.n;
    if (a->u.seq.n == 0) {
        if (*rank < 0) {
            *rank = depth + 1;
        }
        return *rank == depth + 1;
    }
    for (size_t i = 0; i < a->u.seq.n; i++) {
        if (!nested_shape(a->u.seq.items[i], depth + 1, dims, rank)) {
            return false;
        }
    }
    return true;
}

static void flatten_known(const ts_av *a, known_data *k)
{
    if (a->k == TA_LIST || a->k == TA_TUPLE) {
        for (size_t i = 0; i < a->u.seq.n; i++) {
            flatten_known(a->u.seq.items[i], k);
        }
        return;
    }
    k->i[k->n] = a->k == TA_FLOAT ? (int64_t)a->u.f : a->k == TA_BOOL ? a->u.b : a->u.i;
    k->f[k->n] = number_value(a);
    k->any_float = k->any_float || a->k == TA_FLOAT;
    k->all_bool = k->all_bool && a->k == TA_BOOL;
    k->n++;
}

/* A 1-D list with dynamic scalars: each item as a [1] tensor of dtype dt, concatenated. */
static ember_status *dynamic_list(ts_lower *L, const ts_call *c, const ts_av *l, ember_dtype dt,
                                  int *out)
{
    int *parts = em_ts_arena_alloc(&L->arena, (l->u.seq.n + 1) * sizeof(int));
    int axes = -1, node = -1;
    int64_t zero = 0;
    if (parts == NULL) {
        return em_status_oom();
    }
    TS_TRY(em_ts_const_i64s(L, &zero, 1, &axes));
    for (size_t i = 0; i < l->u.seq.n; i++) {
        int in[2] = {-1, axes};
        if (!is_known_number(l->u.seq.items[i]) && l->u.seq.items[i]->k != TA_SCALAR) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: item %zu of the data is %s",
                          c->op, i, em_ts_kind_name(l->u.seq.items[i]->k));
        }
        TS_TRY(em_ts_as_tensor(L, c, l->u.seq.items[i], dt, &in[0]));
        TS_TRY(em_ts_emit(L, c, EM_OP_UNSQUEEZE, in, 2, &parts[i], 1, NULL));
    }
    if (l->u.seq.n == 1) {
        *out = parts[0];
        return NULL;
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_CONCAT, parts, (int)l->u.seq.n, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", 0));
    return em_ts_infer(L, c, node);
}

/* tensor(data, *, dtype=None, device=None, requires_grad=False) of a number or (nested) list
 * of numbers; a flat list may hold dynamic scalars. as_tensor(data, dtype, device) too. */
static ember_status *lower_tensor(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *data = c->a[0];
    int64_t dims[EMBER_MAX_RANK];
    int rank = -1, y = -1;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    if (data->k == TA_TENSOR) { /* as_tensor / tensor of a tensor: a cast */
        int x = -1;
        TS_TRY(self_dtype(L, c, &x, &dt));
        TS_TRY(dtype_arg(L, c, 1, dt, &dt));
        TS_TRY(em_ts_cast(L, c, x, dt, &y));
        return em_ts_ret_tensor(L, y, out);
    }
    if (!nested_shape(data, 0, dims, &rank)) {
        if ((data->k == TA_LIST || data->k == TA_TUPLE) || data->k == TA_SCALAR) {
            bool fl = false, all_bool = data->k == TA_LIST || data->k == TA_TUPLE;
            size_t n = data->k == TA_SCALAR ? 1 : data->u.seq.n;
            for (size_t i = 0; i < n; i++) {
                const ts_av *it = data->k == TA_SCALAR ? data : data->u.seq.items[i];
                fl = fl || is_float_dtype(number_dtype(it));
                all_bool = all_bool && number_dtype(it) == EMBER_DTYPE_BOOL;
            }
            TS_TRY(dtype_arg(L, c, 1, fl ? EMBER_DTYPE_F32 : all_bool ? EMBER_DTYPE_BOOL
                                                                       : EMBER_DTYPE_I64, &dt));
            if (data->k == TA_SCALAR) {
                TS_TRY(em_ts_as_tensor(L, c, data, dt, &y));
            } else {
                TS_TRY(dynamic_list(L, c, data, dt, &y));
            }
            return em_ts_ret_tensor(L, y, out);
        }
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: data must be numbers or "
                      "rectangular lists of them, got %s", c->op, em_ts_kind_name(data->k));
    }
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        n *= dims[d];
    }
    known_data k = {.all_bool = true};
    k.i = em_ts_arena_alloc(&L->arena, (size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    k.f = em_ts_arena_alloc(&L->arena, (size_t)(n > 0 ? n : 1) * sizeof(double));
    if (k.i == NULL || k.f == NULL) {
        return em_status_oom();
    }
    flatten_known(data, &k);
    ember_dtype dflt = k.any_float                 ? EMBER_DTYPE_F32
                       : k.all_bool && k.n > 0 ? EMBER_DTYPE_BOOL
                       : k.n == 0              ? EMBER_DTYPE_F32
                                               : EMBER_DTYPE_I64;
    TS_TRY(dtype_arg(L, c, 1, dflt, &dt));
    if (is_float_dtype(dt)) {
        k.any_float = true;
    }
    TS_TRY(known_const(L, c, &k, rank, dims, dt, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* scalar_tensor(s, *, dtype=None, ...): a 0-d tensor, float32 by default. */
static ember_status *lower_scalar_tensor(ts_lower *L, const ts_call *c, ts_av **out)
{
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    int y = -1;
    TS_TRY(dtype_arg(L, c, 1, EMBER_DTYPE_F32, &dt));
    TS_TRY(check_layout(L, c, 2));
    TS_TRY(em_ts_as_tensor(L, c, c->a[0], dt, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* eye(n, [m,] *, dtype=None, ...): EyeLike of a zero [n, m] tensor. */
static ember_status *lower_eye(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool has_m = strcmp(c->overload, "m") == 0;
    size_t i_dtype = has_m ? 2 : 1;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    ts_av zero = {.k = TA_INT, .u.i = 0};
    int shape = -1, z = -1, y = -1;
    TS_TRY(dtype_arg(L, c, i_dtype, EMBER_DTYPE_F32, &dt));
    TS_TRY(check_layout(L, c, i_dtype + 1));
    ts_av *size = em_ts_seq(L, TA_LIST, 2);
    if (size == NULL) {
        return em_status_oom();
    }
    size->u.seq.items[0] = c->a[0];
    size->u.seq.items[1] = has_m ? c->a[1] : c->a[0];
    TS_TRY(em_ts_int_list_tensor(L, c, size, &shape));
    TS_TRY(filled(L, c, shape, dt, &zero, &z));
    em_ts_refine_dims(L, z, size);
    TS_TRY(em_ts_emit(L, c, EM_OP_EYELIKE, &z, 1, &y, 1, NULL));
    em_ts_copy_dims(L, y, z);
    return em_ts_ret_tensor(L, y, out);
}

/* prim::dtype(a): torch's ScalarType number, known at load time. */
static ember_status *lower_prim_dtype(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    int st = em_ts_scalar_type(em_ts_val(L, x)->dtype);
    if (st < 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: a tensor of dtype %s has no torch "
                      "dtype", c->op, ember_dtype_name(em_ts_val(L, x)->dtype));
    }
    *out = em_ts_int(L, st);
    return *out != NULL ? NULL : em_status_oom();
}

/* prim::device(a): every tensor is on "cpu" as the code sees it. */
static ember_status *lower_prim_device(ts_lower *L, const ts_call *c, ts_av **out)
{
    (void)c;
    *out = em_ts_str(L, "cpu", 3);
    if (*out != NULL) {
        (*out)->k = TA_DEVICE;
    }
    return *out != NULL ? NULL : em_status_oom();
}

/* is_floating_point(self) */
static ember_status *lower_is_floating_point(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    *out = em_ts_bool(L, is_float_dtype(em_ts_val(L, x)->dtype));
    return *out != NULL ? NULL : em_status_oom();
}

/* ---- casts ---- */

/* to(self, ...): the overloads put the dtype at different places (see ts_schemas.inc):
 * dtype(self, dtype, ...), device(self, device, dtype, ...), other(self, other, ...),
 * dtype_layout(self, *, dtype=None, layout, device, ...), prim_Device(self, device?, dtype?),
 * prim_dtype(self, dtype?), prim_other(self). */
static ember_status *lower_to(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, y = -1;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(self_dtype(L, c, &x, &dt));
    const char *o = c->overload;
    if (strcmp(o, "other") == 0) {
        int other = -1;
        TS_TRY(em_ts_arg_tensor(L, c, 1, &other));
        dt = em_ts_val(L, other)->dtype;
    } else if (strcmp(o, "device") == 0 || strcmp(o, "prim_Device") == 0) {
        TS_TRY(dtype_arg(L, c, 2, dt, &dt));
    } else if (strcmp(o, "dtype") == 0 || strcmp(o, "prim_dtype") == 0) {
        TS_TRY(dtype_arg(L, c, 1, dt, &dt));
    } else if (strcmp(o, "dtype_layout") == 0) {
        TS_TRY(dtype_arg(L, c, 1, dt, &dt));
        TS_TRY(check_layout(L, c, 2));
    } else if (strcmp(o, "prim_other") != 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s.%s is not supported", c->op, o);
    }
    TS_TRY(em_ts_cast(L, c, x, dt, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* type_as(self, other) */
static ember_status *lower_type_as(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, other = -1, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &other));
    TS_TRY(em_ts_cast(L, c, x, em_ts_val(L, other)->dtype, &y));
    return em_ts_ret_tensor(L, y, out);
}

static const ts_op_entry tensor_ops[] = {
    {"aten::zeros", lower_from_size},
    {"aten::ones", lower_from_size},
    {"aten::full", lower_from_size},
    {"aten::empty", lower_from_size},
    {"aten::new_zeros", lower_new},
    {"aten::new_ones", lower_new},
    {"aten::new_full", lower_new},
    {"aten::new_empty", lower_new},
    {"aten::zeros_like", lower_like},
    {"aten::ones_like", lower_like},
    {"aten::full_like", lower_like},
    {"aten::empty_like", lower_like},
    {"aten::rand", lower_random},
    {"aten::randn", lower_random},
    {"aten::rand_like", lower_random},
    {"aten::randn_like", lower_random},
    {"aten::randint", lower_random},
    {"aten::randint_like", lower_random},
    {"aten::randperm", lower_random},
    {"aten::normal", lower_random},
    {"aten::arange", lower_arange},
    {"aten::linspace", lower_linspace},
    {"aten::tensor", lower_tensor},
    {"aten::as_tensor", lower_tensor},
    {"aten::scalar_tensor", lower_scalar_tensor},
    {"aten::eye", lower_eye},
    {"prim::dtype", lower_prim_dtype},
    {"prim::device", lower_prim_device},
    {"aten::is_floating_point", lower_is_floating_point},
    {"aten::to", lower_to},
    {"aten::type_as", lower_type_as},
};

const ts_op_table em_ts_tensor_table = {tensor_ops, sizeof tensor_ops / sizeof tensor_ops[0]};
