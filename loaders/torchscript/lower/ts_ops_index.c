/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h) that select parts of tensors: narrow, flip,
 * roll, split / split_with_sizes / unbind, index_select, gather, scatter / scatter_add,
 * take_along_dim, embedding, advanced indexing (aten::index: int64 index tensors on any dims,
 * bool masks; the serializer writes `x[idx]` / `x[:, idx]` / `x[mask]` as it) and its
 * assignment (index_put_), masked_select. A mask's selection has a size known only at run
 * time (NonZero / Compress).
 */
#include "ts_ops.h"
#include "ts_ops_elem.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

static ember_status *i64c(ts_lower *L, int64_t v, int *out)
{
    return em_ts_const_i64s(L, &v, 1, out);
}

/* Slice of x along `axis` from start to end (1-element int64 values) by step. */
static ember_status *slice_axis(ts_lower *L, const ts_call *c, int x, int64_t axis, int start,
                                int end, int64_t step, int *out)
{
    int in[5] = {x, start, end, -1, -1};
    TS_TRY(i64c(L, axis, &in[3]));
    TS_TRY(i64c(L, step, &in[4]));
    return em_ts_emit(L, c, EM_OP_SLICE, in, 5, out, 1, NULL);
}

static ember_status *binop(ts_lower *L, const ts_call *c, em_op op, int a, int b, int *out)
{
    int in[2] = {a, b};
    return em_ts_emit(L, c, op, in, 2, out, 1, NULL);
}

static ember_status *with_axis(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                               int64_t axis, int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, op, in, n_in, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", axis));
    return em_ts_infer(L, c, node);
}

static ember_status *ret_list(ts_lower *L, const int *v, int n, ts_av **out)
{
    *out = em_ts_seq(L, TA_LIST, (size_t)n);
    if (*out == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < n; i++) {
        TS_TRY(em_ts_ret_tensor(L, v[i], &(*out)->u.seq.items[i]));
    }
    return NULL;
}

/* Tensor x and its rank, and dim argument i normalized. */
static ember_status *x_dim(ts_lower *L, const ts_call *c, size_t i, int *x, int *rank,
                           int64_t *dim)
{
    TS_TRY(em_ts_arg_tensor(L, c, 0, x));
    TS_TRY(em_ts_rank(L, c, *x, rank));
    TS_TRY(em_ts_arg_int(L, c, i, dim));
    return em_ts_norm_dim(L, c, *dim, *rank, dim);
}

/* A number, dynamic scalar or one-element tensor as a [1] int64 value. */
static ember_status *one_i64(ts_lower *L, const ts_call *c, const ts_av *a, int *out)
{
    int v = -1;
    if (a->k == TA_INT) {
        return i64c(L, a->u.i, out);
    }
    TS_TRY(em_ts_as_tensor(L, c, a, EMBER_DTYPE_I64, &v));
    TS_TRY(em_ts_cast(L, c, v, EMBER_DTYPE_I64, &v));
    if (em_ts_val(L, v)->rank == 1) {
        *out = v;
        return NULL;
    }
    int shape = -1;
    TS_TRY(i64c(L, 1, &shape));
    return binop(L, c, EM_OP_RESHAPE, v, shape, out);
}

/* ---- slices ---- */

/* narrow(self, dim, start, length) and narrow.Tensor (start a 0-d tensor): a Slice; a known
 * negative start counts from the end. */
static ember_status *lower_narrow(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, s = -1, e = -1, len = -1, y = -1;
    int64_t dim = 0;
    TS_TRY(x_dim(L, c, 1, &x, &rank, &dim));
    const ts_av *st = c->a[2], *ln = c->a[3];
    if (st->k == TA_INT && ln->k == TA_INT) {
        int64_t a = st->u.i, b = a + ln->u.i;
        TS_TRY(i64c(L, a, &s));
        TS_TRY(i64c(L, a < 0 && b == 0 ? INT64_MAX : b, &e));
    } else {
        TS_TRY(one_i64(L, c, st, &s));
        TS_TRY(one_i64(L, c, ln, &len));
        TS_TRY(binop(L, c, EM_OP_ADD, s, len, &e));
    }
    TS_TRY(slice_axis(L, c, x, dim, s, e, 1, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* flip(self, dims): a Slice with step -1 on each dim. */
static ember_status *lower_flip(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, in[5] = {-1, -1, -1, -1, -1};
    int64_t dims[EMBER_MAX_RANK], starts[EMBER_MAX_RANK], ends[EMBER_MAX_RANK];
    int64_t steps[EMBER_MAX_RANK];
    size_t n = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_arg_ints(L, c, 1, dims, EMBER_MAX_RANK, 0, &n));
    if (n == 0) {
        return em_ts_ret_tensor(L, x, out);
    }
    for (size_t i = 0; i < n; i++) {
        TS_TRY(em_ts_norm_dim(L, c, dims[i], rank, &dims[i]));
        starts[i] = -1;
        ends[i] = INT64_MIN;
        steps[i] = -1;
    }
    in[0] = x;
    TS_TRY(em_ts_const_i64s(L, starts, (int64_t)n, &in[1]));
    TS_TRY(em_ts_const_i64s(L, ends, (int64_t)n, &in[2]));
    TS_TRY(em_ts_const_i64s(L, dims, (int64_t)n, &in[3]));
    TS_TRY(em_ts_const_i64s(L, steps, (int64_t)n, &in[4]));
    return em_ts_emit1(L, c, EM_OP_SLICE, in, 5, NULL, out);
}

/* x rolled by `shift` along dim: Concat(x[n-s:], x[:n-s]) with s = shift mod n, computed at
 * run time when the dim's size is not known. */
static ember_status *roll1(ts_lower *L, const ts_call *c, int x, int64_t dim, int64_t shift,
                           int *out)
{
    int split = -1, zero = -1, big = -1, parts[2] = {-1, -1};
    int64_t n = em_ts_val(L, x)->dims[dim].v;
    if (n >= 0) {
        int64_t s = n > 0 ? ((shift % n) + n) % n : 0;
        if (s == 0) {
            *out = x;
            return NULL;
        }
        TS_TRY(i64c(L, n - s, &split));
    } else {
        int size = -1, sh = -1, m = -1, node = -1;
        TS_TRY(em_ts_shape_of(L, c, x, dim, dim + 1, &size));
        TS_TRY(i64c(L, shift, &sh));
        TS_TRY(em_ts_emit(L, c, EM_OP_MOD, (int[]){sh, size}, 2, &m, 1, &node));
        TS_TRY(em_node_set_int(L->g, node, "fmod", 0)); /* Python's %: sign of the divisor */
        TS_TRY(em_ts_infer(L, c, node));
        TS_TRY(binop(L, c, EM_OP_SUB, size, m, &split));
    }
    TS_TRY(i64c(L, 0, &zero));
    TS_TRY(i64c(L, INT64_MAX, &big));
    TS_TRY(slice_axis(L, c, x, dim, split, big, 1, &parts[0]));
    TS_TRY(slice_axis(L, c, x, dim, zero, split, 1, &parts[1]));
    return with_axis(L, c, EM_OP_CONCAT, parts, 2, dim, out);
}

/* roll(self, shifts, dims=[]): per dim; with no dims, of the flattened tensor. */
static ember_status *lower_roll(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, y = -1;
    int64_t shifts[EMBER_MAX_RANK], dims[EMBER_MAX_RANK];
    size_t ns = 0, nd = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_arg_ints(L, c, 1, shifts, EMBER_MAX_RANK, 0, &ns));
    TS_TRY(em_ts_arg_ints(L, c, 2, dims, EMBER_MAX_RANK, 0, &nd));
    if (nd == 0 && ns == 1) {
        int flat = -1, shape = -1, r = -1;
        TS_TRY(i64c(L, -1, &flat));
        TS_TRY(binop(L, c, EM_OP_RESHAPE, x, flat, &y));
        TS_TRY(roll1(L, c, y, 0, shifts[0], &r));
        TS_TRY(em_ts_shape_of(L, c, x, 0, rank, &shape));
        TS_TRY(binop(L, c, EM_OP_RESHAPE, r, shape, &y));
        em_ts_copy_dims(L, y, x);
        return em_ts_ret_tensor(L, y, out);
    }
    if (nd != ns) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: shifts and dims differ in length",
                      c->op);
    }
    y = x;
    for (size_t i = 0; i < nd; i++) {
        TS_TRY(em_ts_norm_dim(L, c, dims[i], rank, &dims[i]));
        TS_TRY(roll1(L, c, y, dims[i], shifts[i], &y));
    }
    return em_ts_ret_tensor(L, y, out);
}

/* ---- splitting ---- */

/* x split along dim into pieces of the sizes in `list` (ints or dynamic scalars): a Split
 * of up to 8 outputs, Slices beyond. */
static ember_status *split_into(ts_lower *L, const ts_call *c, int x, int64_t dim,
                                const ts_av *list, ts_av **out)
{
    int n = (int)list->u.seq.n, node = -1, sizes = -1;
    int *v = em_ts_arena_alloc(&L->arena, (size_t)(n > 0 ? n : 1) * sizeof(int));
    if (v == NULL) {
        return em_status_oom();
    }
    if (n <= 1) {
        v[0] = x;
        return ret_list(L, v, n, out);
    }
    if (n <= 8) {
        TS_TRY(em_ts_int_list_tensor(L, c, list, &sizes));
        TS_TRY(em_ts_emit(L, c, EM_OP_SPLIT, (int[]){x, sizes}, 2, v, n, &node));
        TS_TRY(em_node_set_int(L->g, node, "axis", dim));
        TS_TRY(em_ts_infer(L, c, node));
        return ret_list(L, v, n, out);
    }
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        const ts_av *it = list->u.seq.items[i];
        int s = -1, e = -1;
        if (it->k != TA_INT) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s into more than 8 pieces needs "
                          "sizes known at load time", c->op);
        }
        TS_TRY(i64c(L, at, &s));
        TS_TRY(i64c(L, at + it->u.i, &e));
        TS_TRY(slice_axis(L, c, x, dim, s, e, 1, &v[i]));
        at += it->u.i;
    }
    return ret_list(L, v, n, out);
}

/* split.Tensor(self, split_size, dim=0): equal pieces (the last smaller) of a known dim;
 * split(self, split_sizes, dim) / split.sizes / split_with_sizes: the sizes given. */
static ember_status *lower_split(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0;
    int64_t dim = 0;
    TS_TRY(x_dim(L, c, 2, &x, &rank, &dim));
    const ts_av *sz = c->a[1];
    if (sz->k == TA_LIST || sz->k == TA_TUPLE) {
        return split_into(L, c, x, dim, sz, out);
    }
    int64_t size = em_ts_val(L, x)->dims[dim].v, piece = 0;
    if (sz->k != TA_INT || size < 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s into pieces of one size needs the "
                      "size of dim %lld and the piece size known at load time", c->op,
                      (long long)dim);
    }
    piece = sz->u.i;
    if (piece <= 0) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: split size %lld", c->op,
                      (long long)piece);
    }
    ts_av *list = em_ts_seq(L, TA_LIST, 0);
    if (list == NULL) {
        return em_status_oom();
    }
    for (int64_t done = 0; done < size || done == 0; done += piece) {
        ts_av *it = em_ts_int(L, size - done < piece ? size - done : piece);
        if (it == NULL) {
            return em_status_oom();
        }
        TS_TRY(em_ts_list_append(L, list, it));
        if (size == 0) {
            break;
        }
    }
    return split_into(L, c, x, dim, list, out);
}

/* unbind(self, dim=0): one Gather per index of a known dim. */
static ember_status *lower_unbind(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0;
    int64_t dim = 0;
    TS_TRY(x_dim(L, c, 1, &x, &rank, &dim));
    int64_t n = em_ts_val(L, x)->dims[dim].v;
    if (n < 0 || n > 4096) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s needs the size of dim %lld known "
                      "at load time", c->op, (long long)dim);
    }
    int *v = em_ts_arena_alloc(&L->arena, (size_t)(n > 0 ? n : 1) * sizeof(int));
    if (v == NULL) {
        return em_status_oom();
    }
    for (int64_t i = 0; i < n; i++) {
        int idx = -1;
        TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)i, &idx));
        TS_TRY(with_axis(L, c, EM_OP_GATHER, (int[]){x, idx}, 2, dim, &v[i]));
    }
    return ret_list(L, v, (int)n, out);
}

/* ---- gathers and scatters ---- */

/* index_select(self, dim, index): Gather with a 1-D index. */
static ember_status *lower_index_select(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, idx = -1, y = -1;
    int64_t dim = 0;
    TS_TRY(x_dim(L, c, 1, &x, &rank, &dim));
    TS_TRY(em_ts_arg_tensor(L, c, 2, &idx));
    if (em_ts_val(L, idx)->rank == 0) {
        TS_TRY(one_i64(L, c, c->a[2], &idx));
    }
    TS_TRY(with_axis(L, c, EM_OP_GATHER, (int[]){x, idx}, 2, dim, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* gather(self, dim, index, *, sparse_grad=False): GatherElements. */
static ember_status *lower_gather(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, idx = -1, y = -1;
    int64_t dim = 0;
    TS_TRY(x_dim(L, c, 1, &x, &rank, &dim));
    TS_TRY(em_ts_arg_tensor(L, c, 2, &idx));
    TS_TRY(with_axis(L, c, EM_OP_GATHERELEMENTS, (int[]){x, idx}, 2, dim, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* embedding(weight, indices, padding_idx=-1, scale_grad_by_freq, sparse): rows of the weight
 * (padding_idx only matters to training). */
static ember_status *lower_embedding(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1}, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &in[1]));
    TS_TRY(with_axis(L, c, EM_OP_GATHER, in, 2, 0, &y));
    return em_ts_ret_tensor(L, y, out);
}

static bool same_dims(ts_lower *L, int a, int b)
{
    const em_value *va = em_ts_val(L, a), *vb = em_ts_val(L, b);
    if (va->rank != vb->rank || va->rank < 0) {
        return false;
    }
    for (int d = 0; d < va->rank; d++) {
        bool known = va->dims[d].v >= 0 && va->dims[d].v == vb->dims[d].v;
        bool sym = va->dims[d].sym > 0 && va->dims[d].sym == vb->dims[d].sym;
        if (!known && !sym) {
            return false;
        }
    }
    return true;
}

/* scatter.src / .value / .reduce / .value_reduce(self, dim, index, src|value[, reduce]) and
 * scatter_add(self, dim, index, src): ScatterElements; src is cut to the index's shape (torch
 * reads only that corner), a value is expanded to it. */
static ember_status *lower_scatter(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, idx = -1, upd = -1, node = -1, ishape = -1;
    int64_t dim = 0;
    TS_TRY(x_dim(L, c, 1, &x, &rank, &dim));
    TS_TRY(em_ts_arg_tensor(L, c, 2, &idx));
    const char *reduction = strcmp(c->op, "aten::scatter_add") == 0 ? "add" : "none";
    if (c->n > 4 && c->a[4]->k == TA_STR) {
        const char *r = c->a[4]->u.str.s;
        reduction = strcmp(r, "add") == 0 ? "add" : strcmp(r, "multiply") == 0 ? "mul" : NULL;
        if (reduction == NULL) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: reduce '%s'", c->op, r);
        }
    }
    if (c->a[3]->k == TA_TENSOR) {
        TS_TRY(em_ts_arg_tensor(L, c, 3, &upd));
        if (!same_dims(L, upd, idx)) {
            int zeros = -1, axes = -1;
            int64_t z[EMBER_MAX_RANK] = {0}, ax[EMBER_MAX_RANK];
            for (int d = 0; d < rank; d++) {
                ax[d] = d;
            }
            TS_TRY(em_ts_const_i64s(L, z, rank, &zeros));
            TS_TRY(em_ts_const_i64s(L, ax, rank, &axes));
            TS_TRY(em_ts_shape_of(L, c, idx, 0, rank, &ishape));
            TS_TRY(em_ts_emit(L, c, EM_OP_SLICE, (int[]){upd, zeros, ishape, axes}, 4, &upd, 1,
                           NULL));
        }
        TS_TRY(em_ts_cast(L, c, upd, em_ts_val(L, x)->dtype, &upd));
    } else {
        int v = -1;
        TS_TRY(em_ts_as_tensor(L, c, c->a[3], em_ts_val(L, x)->dtype, &v));
        TS_TRY(em_ts_shape_of(L, c, idx, 0, rank, &ishape));
        TS_TRY(binop(L, c, EM_OP_EXPAND, v, ishape, &upd));
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_SCATTERELEMENTS, (int[]){x, idx, upd}, 3, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "axis", dim));
    TS_TRY(em_node_set_string(L->g, node, "reduction", reduction));
    return em_ts_infer(L, c, node);
}

/* x's shape with dim `dim` made 1 (Shape * mask + one-hot), for broadcasting all other dims. */
static ember_status *shape_dim1(ts_lower *L, const ts_call *c, int x, int64_t dim, int rank,
                                int *out)
{
    int64_t mask[EMBER_MAX_RANK], hot[EMBER_MAX_RANK];
    int s = -1, m = -1, h = -1, p = -1;
    for (int d = 0; d < rank; d++) {
        mask[d] = d != dim;
        hot[d] = d == dim;
    }
    TS_TRY(em_ts_shape_of(L, c, x, 0, rank, &s));
    TS_TRY(em_ts_const_i64s(L, mask, rank, &m));
    TS_TRY(em_ts_const_i64s(L, hot, rank, &h));
    TS_TRY(binop(L, c, EM_OP_MUL, s, m, &p));
    return binop(L, c, EM_OP_ADD, p, h, out);
}

/* take_along_dim(self, indices, dim=None): GatherElements on the flattened tensors, or along
 * dim after broadcasting the other dims of self and indices against each other. */
static ember_status *lower_take_along_dim(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, idx = -1, rank = 0, y = -1;
    int64_t dim = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &idx));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    if (em_ts_arg_none(c, 2)) {
        int flat = -1;
        TS_TRY(i64c(L, -1, &flat));
        TS_TRY(binop(L, c, EM_OP_RESHAPE, x, flat, &x));
        TS_TRY(binop(L, c, EM_OP_RESHAPE, idx, flat, &idx));
    } else {
        TS_TRY(em_ts_arg_int(L, c, 2, &dim));
        TS_TRY(em_ts_norm_dim(L, c, dim, rank, &dim));
        if (em_ts_val(L, idx)->rank != rank) {
            return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: self and indices differ in "
                          "rank", c->op);
        }
        int sx = -1, si = -1;
        TS_TRY(shape_dim1(L, c, x, dim, rank, &sx));
        TS_TRY(shape_dim1(L, c, idx, dim, rank, &si));
        TS_TRY(binop(L, c, EM_OP_EXPAND, x, si, &x));
        TS_TRY(binop(L, c, EM_OP_EXPAND, idx, sx, &idx));
    }
    TS_TRY(with_axis(L, c, EM_OP_GATHERELEMENTS, (int[]){x, idx}, 2, dim, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* ---- advanced indexing ---- */

/* The index tensors of an indices list (None skips a dim; a bool or uint8 mask of rank r
 * stands for r index tensors, the rows of its NonZero): idx[j] indexes dim pos[j]. */
typedef struct adv_index {
    int idx[EMBER_MAX_RANK];
    int64_t pos[EMBER_MAX_RANK];
    int m;
    bool has_mask;
    int mask; /* the (bool) mask when it is the only index */
} adv_index;

static ember_status *adv_indices(ts_lower *L, const ts_call *c, const ts_av *l, int rank,
                                 adv_index *a)
{
    int d = 0;
    memset(a, 0, sizeof *a);
    if (l->k != TA_LIST && l->k != TA_TUPLE) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: indices must be a list", c->op);
    }
    for (size_t i = 0; i < l->u.seq.n; i++) {
        const ts_av *it = l->u.seq.items[i];
        int v = -1, r = 0;
        if (it->k == TA_NONE) {
            d++;
            continue;
        }
        TS_TRY(em_ts_as_tensor(L, c, it, EMBER_DTYPE_UNDEFINED, &v));
        TS_TRY(em_ts_rank(L, c, v, &r));
        ember_dtype dt = em_ts_val(L, v)->dtype;
        bool mask = dt == EMBER_DTYPE_BOOL || dt == EMBER_DTYPE_U8;
        if (d + (mask ? r : 1) > rank || a->m + (mask ? r : 1) > EMBER_MAX_RANK) {
            return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: too many indices for a rank-%d "
                          "tensor", c->op, rank);
        }
        if (!mask) {
            a->pos[a->m] = d++;
            TS_TRY(em_ts_cast(L, c, v, dt == EMBER_DTYPE_I32 ? dt : EMBER_DTYPE_I64,
                           &a->idx[a->m++]));
            continue;
        }
        int nz = -1;
        TS_TRY(em_ts_cast(L, c, v, EMBER_DTYPE_BOOL, &v));
        a->has_mask = true;
        a->mask = v;
        TS_TRY(em_ts_emit(L, c, EM_OP_NONZERO, &v, 1, &nz, 1, NULL));
        for (int k = 0; k < r; k++) {
            int row = -1;
            TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, k, &row));
            a->pos[a->m] = d++;
            TS_TRY(with_axis(L, c, EM_OP_GATHER, (int[]){nz, row}, 2, 0, &a->idx[a->m++]));
        }
    }
    return NULL;
}

/* The index tensors broadcast against each other and stacked on a last axis: [B..., m]
 * (*nb: rank of B). Adding index * 0 of every other index broadcasts without knowing shapes. */
static ember_status *stack_indices(ts_lower *L, const ts_call *c, const adv_index *a, int *out,
                                   int *nb)
{
    int zero = -1, sum = -1, parts[EMBER_MAX_RANK];
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, 0, &zero));
    *nb = 0;
    for (int j = 0; j < a->m; j++) {
        int t = -1, v = -1;
        TS_TRY(em_ts_cast(L, c, a->idx[j], EMBER_DTYPE_I64, &v));
        TS_TRY(binop(L, c, EM_OP_MUL, v, zero, &t));
        if (j == 0) {
            sum = t;
        } else {
            TS_TRY(binop(L, c, EM_OP_ADD, sum, t, &sum));
        }
        *nb = em_ts_val(L, v)->rank > *nb ? em_ts_val(L, v)->rank : *nb;
    }
    for (int j = 0; j < a->m; j++) {
        int v = -1, b = -1;
        TS_TRY(em_ts_cast(L, c, a->idx[j], EMBER_DTYPE_I64, &v));
        TS_TRY(binop(L, c, EM_OP_ADD, v, sum, &b));
        int in[2] = {b, -1};
        int64_t last = -1;
        TS_TRY(em_ts_const_i64s(L, &last, 1, &in[1]));
        TS_TRY(em_ts_emit(L, c, EM_OP_UNSQUEEZE, in, 2, &parts[j], 1, NULL));
    }
    if (a->m == 1) {
        *out = parts[0];
        return NULL;
    }
    return with_axis(L, c, EM_OP_CONCAT, parts, a->m, -1, out);
}

static ember_status *transpose(ts_lower *L, const ts_call *c, int x, const int64_t *perm,
                               int rank, int *out)
{
    int node = -1;
    bool identity = true;
    for (int d = 0; d < rank; d++) {
        identity = identity && perm[d] == d;
    }
    if (identity) {
        *out = x;
        return NULL;
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &x, 1, out, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", perm, rank));
    return em_ts_infer(L, c, node);
}

/* index.Tensor(self, indices): one index tensor is a Gather on its dim; several (or a mask of
 * rank > 1) are a GatherND over the indexed dims brought to the front, the result's index
 * dims then put where torch puts them (at the first indexed dim when those are adjacent). */
static ember_status *lower_index(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, y = -1;
    adv_index a;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(adv_indices(L, c, c->a[1], rank, &a));
    if (a.m == 0) {
        return em_ts_ret_tensor(L, x, out);
    }
    if (a.m == 1) {
        TS_TRY(with_axis(L, c, EM_OP_GATHER, (int[]){x, a.idx[0]}, 2, a.pos[0], &y));
        return em_ts_ret_tensor(L, y, out);
    }
    int64_t perm[EMBER_MAX_RANK];
    bool used[EMBER_MAX_RANK] = {false}, adjacent = true;
    int np = 0, ind = -1, nb = 0, g = -1;
    for (int j = 0; j < a.m; j++) {
        perm[np++] = a.pos[j];
        used[a.pos[j]] = true;
        adjacent = adjacent && a.pos[j] == a.pos[0] + j;
    }
    for (int d = 0; d < rank; d++) {
        if (!used[d]) {
            perm[np++] = d;
        }
    }
    TS_TRY(transpose(L, c, x, perm, rank, &x));
    TS_TRY(stack_indices(L, c, &a, &ind, &nb));
    TS_TRY(binop(L, c, EM_OP_GATHERND, x, ind, &g));
    int rg = nb + rank - a.m;
    int64_t p0 = adjacent ? a.pos[0] : 0, back[EMBER_MAX_RANK];
    for (int d = 0; d < rg; d++) { /* rest dims before p0, then B, then the others */
        back[d] = d < p0 ? nb + d : d < p0 + nb ? d - p0 : d;
    }
    TS_TRY(transpose(L, c, g, back, rg, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* The result y; of an in-place op (name ending in '_') self rebound to y, so every name bound
 * to self sees it (views of self made before do not: ember has no aliasing). */
static ember_status *ret_maybe_inplace(ts_lower *L, const ts_call *c, int y, ts_av **out)
{
    if (c->op[strlen(c->op) - 1] == '_' && c->a[0]->k == TA_TENSOR && c->a[0]->u.t.g == L->g) {
        *out = c->a[0];
        return em_ts_set_inplace(L, c, c->a[0], y);
    }
    return em_ts_ret_tensor(L, y, out);
}

/* fill_(self, value), zero_(self), copy_(self, src): value (a number or a tensor) cast to
 * self's dtype and broadcast to its shape; written into self (and what self is a slice of:
 * swin's shifted-window mask fills slices of a zeros tensor). */
static ember_status *lower_fill(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, v = -1, shape = -1, y = -1, rank = 0;
    ts_av *zero = em_ts_int(L, 0);
    if (zero == NULL) {
        return em_status_oom();
    }
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    ember_dtype dt = em_ts_val(L, x)->dtype;
    TS_TRY(em_ts_as_tensor(L, c, c->n > 1 ? c->a[1] : zero, dt, &v));
    TS_TRY(em_ts_cast(L, c, v, dt, &v));
    TS_TRY(em_ts_shape_of(L, c, x, 0, rank, &shape));
    TS_TRY(binop(L, c, EM_OP_EXPAND, v, shape, &y));
    em_ts_copy_dims(L, y, x);
    return ret_maybe_inplace(L, c, y, out);
}

/* index_fill / index_fill_(self, dim, index, value): Where over a mask of dim's length made by
 * scattering trues at the index, broadcast over the other dims; `x[idx] = v` as traced by
 * torch 2.x. */
static ember_status *lower_index_fill(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, idx = -1, len = -1, f = -1, t = -1, m = -1, v = -1, y = -1, node = -1;
    int64_t dim = 0, axes[EMBER_MAX_RANK];
    TS_TRY(x_dim(L, c, 1, &x, &rank, &dim));
    TS_TRY(one_i64(L, c, c->a[2], &idx));
    if (em_ts_val(L, idx)->rank != 1) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: the index must be 1-D", c->op);
    }
    TS_TRY(em_ts_shape_of(L, c, x, dim, dim + 1, &len));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_BOOL, 0, &f));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_BOOL, 1, &t));
    TS_TRY(binop(L, c, EM_OP_EXPAND, f, len, &f));
    TS_TRY(em_ts_shape_of(L, c, idx, 0, 1, &len));
    TS_TRY(binop(L, c, EM_OP_EXPAND, t, len, &t));
    TS_TRY(with_axis(L, c, EM_OP_SCATTERELEMENTS, (int[]){f, idx, t}, 3, 0, &m));
    for (int64_t d = dim + 1; d < rank; d++) {
        axes[d - dim - 1] = d - dim;
    }
    if (dim + 1 < rank) {
        int ax = -1;
        TS_TRY(em_ts_const_i64s(L, axes, rank - dim - 1, &ax));
        TS_TRY(binop(L, c, EM_OP_UNSQUEEZE, m, ax, &m));
    }
    TS_TRY(em_ts_as_tensor(L, c, c->a[3], em_ts_val(L, x)->dtype, &v));
    TS_TRY(em_ts_cast(L, c, v, em_ts_val(L, x)->dtype, &v));
    TS_TRY(em_ts_emit(L, c, EM_OP_WHERE, (int[]){m, v, x}, 3, &y, 1, &node));
    TS_TRY(em_ts_infer(L, c, node));
    return ret_maybe_inplace(L, c, y, out);
}

/* index_put_ / index_put(self, indices, values, accumulate=False): a mask with a one-element
 * value is a Where; otherwise a ScatterND over index tensors on the leading dims (a mask's
 * NonZero rows included). The in-place form rebinds self to the result. */
static ember_status *lower_index_put(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, val = -1, y = -1, node = -1;
    bool acc = false;
    adv_index a;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_arg_bool(L, c, 3, &acc));
    TS_TRY(em_ts_as_tensor(L, c, c->a[2], em_ts_val(L, x)->dtype, &val));
    TS_TRY(em_ts_cast(L, c, val, em_ts_val(L, x)->dtype, &val));
    TS_TRY(adv_indices(L, c, c->a[1], rank, &a));
    const em_value *vv = em_ts_val(L, val);
    bool one = vv->rank == 0 || (vv->rank == 1 && vv->dims[0].v == 1);
    bool leading = a.m > 0;
    for (int j = 0; j < a.m; j++) {
        leading = leading && a.pos[j] == j;
    }
    if (a.has_mask && a.m == em_ts_val(L, a.mask)->rank && a.pos[0] == 0 && one && !acc) {
        TS_TRY(em_ts_emit(L, c, EM_OP_WHERE, (int[]){a.mask, val, x}, 3, &y, 1, NULL));
    } else if (leading) {
        int ind = -1, nb = 0, parts[2] = {-1, -1}, shape = -1, upd = -1;
        TS_TRY(stack_indices(L, c, &a, &ind, &nb));
        TS_TRY(em_ts_shape_of(L, c, ind, 0, nb, &parts[0]));
        TS_TRY(em_ts_shape_of(L, c, x, a.m, rank, &parts[1]));
        TS_TRY(with_axis(L, c, EM_OP_CONCAT, parts, 2, 0, &shape));
        TS_TRY(binop(L, c, EM_OP_EXPAND, val, shape, &upd));
        TS_TRY(em_ts_emit(L, c, EM_OP_SCATTERND, (int[]){x, ind, upd}, 3, &y, 1, &node));
        TS_TRY(em_node_set_string(L->g, node, "reduction", acc ? "add" : "none"));
        TS_TRY(em_ts_infer(L, c, node));
    } else {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: only index tensors on the leading "
                      "dims or a full mask are supported", c->op);
    }
    return ret_maybe_inplace(L, c, y, out);
}

/* masked_fill / masked_fill_(self, mask, value): Where (value a number or a one-element
 * tensor); `x[mask] = v` as traced by torch 2.x. */
static ember_status *lower_masked_fill(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, m = -1, v = -1, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &m));
    TS_TRY(em_ts_cast(L, c, m, EMBER_DTYPE_BOOL, &m));
    TS_TRY(em_ts_as_tensor(L, c, c->a[2], em_ts_val(L, x)->dtype, &v));
    TS_TRY(em_ts_cast(L, c, v, em_ts_val(L, x)->dtype, &v));
    TS_TRY(em_ts_emit(L, c, EM_OP_WHERE, (int[]){m, v, x}, 3, &y, 1, NULL));
    return ret_maybe_inplace(L, c, y, out);
}

/* masked_select(self, mask): Compress of both broadcast to each other and flattened (a 1-D
 * result whose length is known at run time). */
static ember_status *lower_masked_select(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, m = -1, sx = -1, sm = -1, rx = 0, rm = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &m));
    TS_TRY(em_ts_rank(L, c, x, &rx));
    TS_TRY(em_ts_rank(L, c, m, &rm));
    TS_TRY(em_ts_cast(L, c, m, EMBER_DTYPE_BOOL, &m));
    TS_TRY(em_ts_shape_of(L, c, x, 0, rx, &sx));
    TS_TRY(em_ts_shape_of(L, c, m, 0, rm, &sm));
    TS_TRY(binop(L, c, EM_OP_EXPAND, x, sm, &x));
    TS_TRY(binop(L, c, EM_OP_EXPAND, m, sx, &m));
    TS_TRY(i64c(L, -1, &sx));
    TS_TRY(binop(L, c, EM_OP_RESHAPE, x, sx, &x));
    TS_TRY(binop(L, c, EM_OP_RESHAPE, m, sx, &m));
    return em_ts_emit1(L, c, EM_OP_COMPRESS, (int[]){x, m}, 2, NULL, out);
}

static const ts_op_entry index_ops[] = {
    {"aten::narrow", lower_narrow},
    {"aten::flip", lower_flip},
    {"aten::roll", lower_roll},
    {"aten::split", lower_split},
    {"aten::split_with_sizes", lower_split},
    {"aten::unbind", lower_unbind},
    {"aten::index_select", lower_index_select},
    {"aten::gather", lower_gather},
    {"aten::scatter", lower_scatter},
    {"aten::scatter_add", lower_scatter},
    {"aten::take_along_dim", lower_take_along_dim},
    {"aten::embedding", lower_embedding},
    {"aten::index", lower_index},
    {"aten::index_put_", lower_index_put},
    {"aten::index_put", lower_index_put},
    {"aten::masked_select", lower_masked_select},
    {"aten::masked_fill", lower_masked_fill},
    {"aten::index_fill", lower_index_fill},
    {"aten::index_fill_", lower_index_fill},
    {"aten::masked_fill_", lower_masked_fill},
    {"aten::fill_", lower_fill},
    {"aten::zero_", lower_fill},
    {"aten::copy_", lower_fill},
};

const ts_op_table em_ts_index_table = {index_ops, sizeof index_ops / sizeof index_ops[0]};
