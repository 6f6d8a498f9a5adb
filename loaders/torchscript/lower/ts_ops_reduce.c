/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reductions and scans of the TorchScript loader (ts_ops_elem.h) onto ONNX's Reduce* (axes as
 * input 1; none: every axis), ArgMax/ArgMin and CumSum, with PyTorch's dtypes: sum, prod and
 * cumsum of integers and bools give int64 (or the dtype argument, which casts the input
 * first); all/any give bool (uint8 for uint8 input); argmax and max.dim's indices int64; std,
 * var, norms and logsumexp compute integers in f32. Arguments arrive in schema order; where
 * overloads order them differently, the bound overload name decides.
 */
#include "ts_ops_elem.h"

#include "core/status.h"

#include <math.h>
#include <string.h>

/* The dims of argument i: None, absent or [] reduce every axis (*n = 0). */
static ember_status *dims_arg(ts_lower *L, const ts_call *c, size_t i, int64_t *dims, size_t *n)
{
    *n = 0;
    if (em_ts_arg_none(c, i)) {
        return NULL;
    }
    if (c->a[i]->k == TA_INT) {
        dims[0] = c->a[i]->u.i;
        *n = 1;
        return NULL;
    }
    return em_ts_arg_ints(L, c, i, dims, EMBER_MAX_RANK, 0, n);
}

/* A bool argument, `def` when absent or None. */
static ember_status *flag_arg(ts_lower *L, const ts_call *c, size_t i, bool def, bool *v)
{
    *v = def;
    return em_ts_arg_none(c, i) ? NULL : em_ts_arg_bool(L, c, i, v);
}

/* Reduce op over dims (none: all) with keepdims. */
static ember_status *reduce(ts_lower *L, const ts_call *c, em_op op, int x, const int64_t *dims,
                            size_t n, bool keep, int *r)
{
    int in[2] = {x, -1};
    if (n > 0) {
        TS_TRY(em_ts_const_i64s(L, dims, (int64_t)n, &in[1]));
    }
    return em_ts_node_int(L, c, op, in, n > 0 ? 2 : 1, "keepdims", keep, r);
}

/* Argument 0 in dtype dt when given, else integers and bools as int64 (sum, prod, cumsum) or
 * f32 (`to_float`: std, norms, logsumexp). */
static ember_status *input_as(ts_lower *L, const ts_call *c, ember_dtype dt, bool to_float, int *x)
{
    TS_TRY(em_ts_arg_tensor(L, c, 0, x));
    if (dt == EMBER_DTYPE_UNDEFINED && !em_ts_dt_float(em_ts_val(L, *x)->dtype)) {
        dt = to_float ? EMBER_DTYPE_F32 : EMBER_DTYPE_I64;
    }
    return em_ts_cast(L, c, *x, dt, x);
}

/* sum / mean / prod: (self, *, dtype=None) or (self, dim, keepdim=False, *, dtype=None). */
static ember_status *sum_like(ts_lower *L, const ts_call *c, em_op op, ts_av **out)
{
    int64_t dims[EMBER_MAX_RANK];
    size_t nd = 0;
    bool keep = false;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    int x = -1, r = -1;
    bool with_dim = c->n >= 4;
    if (with_dim) {
        TS_TRY(dims_arg(L, c, 1, dims, &nd));
        TS_TRY(flag_arg(L, c, 2, false, &keep));
    }
    TS_TRY(em_ts_arg_dtype(L, c, with_dim ? 3 : 1, &dt));
    if (op == EM_OP_REDUCEMEAN) {
        TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
        TS_TRY(em_ts_cast(L, c, x, dt, &x));
    } else {
        TS_TRY(input_as(L, c, dt, false, &x));
    }
    TS_TRY(reduce(L, c, op, x, dims, nd, keep, &r));
    return em_ts_ret_tensor(L, r, out);
}

ember_status *em_ts_lower_sum(ts_lower *L, const ts_call *c, ts_av **out)
{
    if (c->n >= 1 && c->a[0]->k != TA_TENSOR) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s of a %s", c->op,
                      em_ts_kind_name(c->a[0]->k));
    }
    return sum_like(L, c, EM_OP_REDUCESUM, out);
}

ember_status *em_ts_lower_mean(ts_lower *L, const ts_call *c, ts_av **out)
{
    return sum_like(L, c, EM_OP_REDUCEMEAN, out);
}

ember_status *em_ts_lower_prod(ts_lower *L, const ts_call *c, ts_av **out)
{
    return sum_like(L, c, EM_OP_REDUCEPROD, out);
}

/* amax / amin(self, dim=[], keepdim=False) */
ember_status *em_ts_lower_amax(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t dims[EMBER_MAX_RANK];
    size_t nd = 0;
    bool keep = false;
    int x = -1, r = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(dims_arg(L, c, 1, dims, &nd));
    TS_TRY(flag_arg(L, c, 2, false, &keep));
    bool mx = strstr(c->op, "amax") != NULL;
    TS_TRY(reduce(L, c, mx ? EM_OP_REDUCEMAX : EM_OP_REDUCEMIN, x, dims, nd, keep, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* ArgMax / ArgMin of x along axis (bools compared as uint8). */
static ember_status *arg_reduce(ts_lower *L, const ts_call *c, bool mx, int x, int64_t axis,
                                bool keep, int *r)
{
    int node = -1;
    if (em_ts_val(L, x)->dtype == EMBER_DTYPE_BOOL) {
        TS_TRY(em_ts_cast(L, c, x, EMBER_DTYPE_U8, &x));
    }
    TS_TRY(em_ts_emit(L, c, mx ? EM_OP_ARGMAX : EM_OP_ARGMIN, &x, 1, r, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", axis));
    TS_TRY(em_node_set_int(L->g, node, "keepdims", keep));
    return em_ts_infer(L, c, node);
}

/* max / min(self): over everything; max.dim(self, dim, keepdim=False): (values, indices);
 * max.other(self, other): elementwise, as maximum. */
ember_status *em_ts_lower_max(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool mx = strcmp(c->op, "aten::max") == 0;
    if (c->n == 2 && c->a[1]->k == TA_TENSOR) {
        return mx ? em_ts_lower_maximum(L, c, out) : em_ts_lower_minimum(L, c, out);
    }
    int x = -1, v = -1, idx = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    em_op op = mx ? EM_OP_REDUCEMAX : EM_OP_REDUCEMIN;
    if (c->n < 2) {
        TS_TRY(reduce(L, c, op, x, NULL, 0, false, &v));
        return em_ts_ret_tensor(L, v, out);
    }
    int64_t dim = 0;
    bool keep = false;
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    TS_TRY(flag_arg(L, c, 2, false, &keep));
    TS_TRY(reduce(L, c, op, x, &dim, 1, keep, &v));
    TS_TRY(arg_reduce(L, c, mx, x, dim, keep, &idx));
    *out = em_ts_seq(L, TA_TUPLE, 2);
    if (*out == NULL) {
        return em_status_oom();
    }
    TS_TRY(em_ts_ret_tensor(L, v, &(*out)->u.seq.items[0]));
    return em_ts_ret_tensor(L, idx, &(*out)->u.seq.items[1]);
}

/* argmax / argmin(self, dim=None, keepdim=False): dim None looks at the flattened tensor (and
 * keepdim then gives ones of self's rank). */
ember_status *em_ts_lower_argmax(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool mx = strcmp(c->op, "aten::argmax") == 0;
    int x = -1, r = -1, rank = 0;
    bool keep = false;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(flag_arg(L, c, 2, false, &keep));
    if (!em_ts_arg_none(c, 1)) {
        int64_t dim = 0;
        TS_TRY(em_ts_arg_int(L, c, 1, &dim));
        TS_TRY(arg_reduce(L, c, mx, x, dim, keep, &r));
        return em_ts_ret_tensor(L, r, out);
    }
    TS_TRY(em_ts_rank(L, c, x, &rank));
    int64_t shape[EMBER_MAX_RANK];
    int s = -1, flat = -1;
    shape[0] = -1;
    TS_TRY(em_ts_const_i64s(L, shape, 1, &s));
    TS_TRY(em_ts_node2(L, c, EM_OP_RESHAPE, x, s, &flat));
    TS_TRY(arg_reduce(L, c, mx, flat, 0, false, &r));
    if (keep) {
        for (int d = 0; d < rank; d++) {
            shape[d] = 1;
        }
        TS_TRY(em_ts_const_i64s(L, shape, rank, &s));
        TS_TRY(em_ts_node2(L, c, EM_OP_RESHAPE, r, s, &r));
    }
    return em_ts_ret_tensor(L, r, out);
}

/* The number of elements a reduction of x to r (same rank with keepdims or not) covers, in
 * dtype dt: a constant when the reduced dims are known, else Size(x) / Size(r). */
static ember_status *reduced_count(ts_lower *L, const ts_call *c, int x, int r,
                                   const int64_t *dims, size_t nd, ember_dtype dt, int *out)
{
    const em_value *xv = em_ts_val(L, x);
    int64_t n = 1;
    for (int d = 0; d < xv->rank && n >= 0; d++) {
        bool reduced = nd == 0;
        for (size_t i = 0; i < nd; i++) {
            reduced = reduced || dims[i] == d || dims[i] + xv->rank == d;
        }
        if (reduced) {
            n = xv->dims[d].v >= 0 ? n * xv->dims[d].v : -1;
        }
    }
    if (xv->rank >= 0 && n >= 0) {
        return em_ts_const_scalar(L, dt, (double)n, out);
    }
    int sx = -1, sr = -1, q = -1;
    TS_TRY(em_ts_node(L, c, EM_OP_SIZE, &x, 1, &sx));
    TS_TRY(em_ts_node(L, c, EM_OP_SIZE, &r, 1, &sr));
    TS_TRY(em_ts_node2(L, c, EM_OP_DIV, sx, sr, &q));
    return em_ts_cast(L, c, q, dt, out);
}

/* std / var: (self, unbiased=True), .dim(self, dim, unbiased=True, keepdim=False) and
 * .correction(self, dim=None, *, correction=None, keepdim=False): the sum of squared
 * deviations over (N - correction). */
ember_status *em_ts_lower_std(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t dims[EMBER_MAX_RANK];
    size_t nd = 0;
    bool keep = false, unbiased = true;
    double corr = 1;
    if (strncmp(c->overload, "correction", 10) == 0) {
        TS_TRY(dims_arg(L, c, 1, dims, &nd));
        if (!em_ts_arg_none(c, 2)) {
            TS_TRY(em_ts_arg_float(L, c, 2, &corr));
        }
        TS_TRY(flag_arg(L, c, 3, false, &keep));
    } else if (c->n >= 4) {
        TS_TRY(dims_arg(L, c, 1, dims, &nd));
        TS_TRY(flag_arg(L, c, 2, true, &unbiased));
        TS_TRY(flag_arg(L, c, 3, false, &keep));
        corr = unbiased;
    } else {
        TS_TRY(flag_arg(L, c, 1, true, &unbiased));
        corr = unbiased;
    }
    int x = -1, m = -1, d = -1, sq = -1, s = -1, n = -1, k = -1, r = -1;
    TS_TRY(input_as(L, c, EMBER_DTYPE_UNDEFINED, true, &x));
    ember_dtype dt = em_ts_val(L, x)->dtype;
    TS_TRY(reduce(L, c, EM_OP_REDUCEMEAN, x, dims, nd, true, &m));
    TS_TRY(em_ts_node2(L, c, EM_OP_SUB, x, m, &d));
    TS_TRY(em_ts_node2(L, c, EM_OP_MUL, d, d, &sq));
    TS_TRY(reduce(L, c, EM_OP_REDUCESUM, sq, dims, nd, keep, &s));
    TS_TRY(reduced_count(L, c, x, s, dims, nd, dt, &n));
    TS_TRY(em_ts_const_scalar(L, dt, corr, &k));
    TS_TRY(em_ts_node2(L, c, EM_OP_SUB, n, k, &n));
    TS_TRY(em_ts_node2(L, c, EM_OP_DIV, s, n, &r));
    if (strstr(c->op, "std") != NULL) {
        TS_TRY(em_ts_node(L, c, EM_OP_SQRT, &r, 1, &r));
    }
    return em_ts_ret_tensor(L, r, out);
}

/* The p-norm of x over dims: L2, L1, max / min of |x| (p = +-inf), the count of nonzeros
 * (p = 0), else (sum |x|^p)^(1/p). */
static ember_status *p_norm(ts_lower *L, const ts_call *c, int x, double p, const int64_t *dims,
                            size_t nd, bool keep, int *r)
{
    ember_dtype dt = em_ts_val(L, x)->dtype;
    int a = -1, t = -1, k = -1;
    if (p == 2.0 || p == 1.0) {
        return reduce(L, c, p == 2.0 ? EM_OP_REDUCEL2 : EM_OP_REDUCEL1, x, dims, nd, keep, r);
    }
    if (p == 0.0) {
        int z = -1, e = -1;
        TS_TRY(em_ts_const_scalar(L, dt, 0.0, &z));
        TS_TRY(em_ts_node2(L, c, EM_OP_EQUAL, x, z, &e));
        TS_TRY(em_ts_node(L, c, EM_OP_NOT, &e, 1, &t));
        TS_TRY(em_ts_cast(L, c, t, dt, &t));
        return reduce(L, c, EM_OP_REDUCESUM, t, dims, nd, keep, r);
    }
    TS_TRY(em_ts_node(L, c, EM_OP_ABS, &x, 1, &a));
    if (isinf(p)) {
        return reduce(L, c, p > 0 ? EM_OP_REDUCEMAX : EM_OP_REDUCEMIN, a, dims, nd, keep, r);
    }
    TS_TRY(em_ts_const_scalar(L, dt, p, &k));
    TS_TRY(em_ts_node2(L, c, EM_OP_POW, a, k, &t));
    TS_TRY(reduce(L, c, EM_OP_REDUCESUM, t, dims, nd, keep, &t));
    TS_TRY(em_ts_const_scalar(L, dt, 1.0 / p, &k));
    return em_ts_node2(L, c, EM_OP_POW, t, k, r);
}

/* norm.Scalar(self, p=2), norm.ScalarOpt_dim(self, p, dim, keepdim=False[, *, dtype]),
 * norm.ScalarOpt_dtype(self, p, *, dtype), frobenius_norm(self[, dim, keepdim=False]),
 * linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None). */
ember_status *em_ts_lower_norm(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t dims[EMBER_MAX_RANK];
    size_t nd = 0, i_dim = 2, i_dtype = 4;
    bool keep = false;
    double p = 2;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    if (strcmp(c->op, "aten::frobenius_norm") == 0) {
        i_dim = 1;
        i_dtype = 0;
    } else if (!em_ts_arg_none(c, 1)) {
        TS_TRY(em_ts_arg_float(L, c, 1, &p));
    }
    if (strcmp(c->overload, "ScalarOpt_dtype") == 0) {
        i_dim = 0;
        i_dtype = 2;
    }
    if (i_dim > 0 && c->n > i_dim) {
        TS_TRY(dims_arg(L, c, i_dim, dims, &nd));
        TS_TRY(flag_arg(L, c, i_dim + 1, false, &keep));
    }
    if (i_dtype > 0 && c->n > i_dtype) {
        TS_TRY(em_ts_arg_dtype(L, c, i_dtype, &dt));
    }
    int x = -1, r = -1;
    TS_TRY(input_as(L, c, dt, true, &x));
    TS_TRY(p_norm(L, c, x, p, dims, nd, keep, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* all / any: (self), .dim(self, dim, keepdim=False), .dims(self, dim=None, keepdim=False):
 * ReduceMin / ReduceMax of the input as bools (an empty reduction gives True / False). */
ember_status *em_ts_lower_all(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t dims[EMBER_MAX_RANK];
    size_t nd = 0;
    bool keep = false;
    int x = -1, b = -1, r = -1;
    if (c->n >= 1 && c->a[0]->k != TA_TENSOR) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s of a %s", c->op,
                      em_ts_kind_name(c->a[0]->k));
    }
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    if (c->n > 1) {
        TS_TRY(dims_arg(L, c, 1, dims, &nd));
        TS_TRY(flag_arg(L, c, 2, false, &keep));
    }
    ember_dtype in_dt = em_ts_val(L, x)->dtype;
    TS_TRY(em_ts_cast(L, c, x, EMBER_DTYPE_BOOL, &b));
    bool all = strcmp(c->op, "aten::all") == 0;
    TS_TRY(reduce(L, c, all ? EM_OP_REDUCEMIN : EM_OP_REDUCEMAX, b, dims, nd, keep, &r));
    if (in_dt == EMBER_DTYPE_U8) {
        TS_TRY(em_ts_cast(L, c, r, EMBER_DTYPE_U8, &r));
    }
    return em_ts_ret_tensor(L, r, out);
}

/* logsumexp(self, dim, keepdim=False) */
ember_status *em_ts_lower_logsumexp(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t dims[EMBER_MAX_RANK];
    size_t nd = 0;
    bool keep = false;
    int x = -1, r = -1;
    TS_TRY(dims_arg(L, c, 1, dims, &nd));
    TS_TRY(flag_arg(L, c, 2, false, &keep));
    TS_TRY(input_as(L, c, EMBER_DTYPE_UNDEFINED, true, &x));
    TS_TRY(reduce(L, c, EM_OP_REDUCELOGSUMEXP, x, dims, nd, keep, &r));
    return em_ts_ret_tensor(L, r, out);
}

/* cumsum(self, dim, *, dtype=None) */
ember_status *em_ts_lower_cumsum(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t dim = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    int in[2] = {-1, -1}, r = -1;
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    TS_TRY(em_ts_arg_dtype(L, c, 2, &dt));
    TS_TRY(input_as(L, c, dt, false, &in[0]));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)dim, &in[1]));
    TS_TRY(em_ts_node(L, c, EM_OP_CUMSUM, in, 2, &r));
    return em_ts_elem_ret(L, c, r, out);
}
