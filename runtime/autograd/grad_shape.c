/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constants and shapes for the autodiff builders (grad_internal.h): constants of a dtype,
 * shape vectors that are constants when dims are known and Shape / Gather / Concat chains
 * (folded by the planner) when not, and the two broadcasting helpers: em_gx_sum_to (undo a
 * broadcast, see autograd.h) and em_gx_scatter_flat (scatter a gradient into zeros at flat
 * positions).
 */
#include "autograd/grad_internal.h"

#include "core/status.h"

#include <stdio.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

static int add_const(em_gctx *c, ember_dtype dt, int rank, const int64_t *dims, const void *data)
{
    char name[128];
    int idx = -1;
    if (!em_gx_ok(c)) {
        return -1;
    }
    snprintf(name, sizeof name, "%s/%u", c->prefix, c->serial++);
    em_gx_error(c, em_graph_add_initializer_copy(c->g, name, dt, rank, dims, data, &idx));
    return em_gx_ok(c) ? idx : -1;
}

int em_gx_floats(em_gctx *c, ember_dtype dt, const double *v, int n)
{
    float f[16];
    int64_t len = n < 0 ? 1 : n;
    int rank = n < 0 ? 0 : 1;
    EMBER_ASSERT(len <= 16);
    if (dt == EMBER_DTYPE_F64) {
        return add_const(c, dt, rank, &len, v);
    }
    if (dt == EMBER_DTYPE_I64) {
        int64_t i[16];
        for (int64_t k = 0; k < len; k++) {
            i[k] = (int64_t)v[k];
        }
        return add_const(c, dt, rank, &len, i);
    }
    for (int64_t k = 0; k < len; k++) {
        f[k] = (float)v[k];
    }
    int s = add_const(c, EMBER_DTYPE_F32, rank, &len, f);
    return dt == EMBER_DTYPE_F32 ? s : em_gx_cast(c, s, dt);
}

int em_gx_scalar(em_gctx *c, ember_dtype dt, double v)
{
    return em_gx_floats(c, dt, &v, -1);
}

int em_gx_ints(em_gctx *c, const int64_t *v, int n)
{
    int64_t len = n < 0 ? 1 : n;
    return add_const(c, EMBER_DTYPE_I64, n < 0 ? 0 : 1, &len, v);
}

int em_gx_shape_of(em_gctx *c, int x)
{
    int64_t d[EM_MAX_RANK];
    if (x < 0 || !em_gx_ok(c)) {
        return -1;
    }
    const em_value *v = em_gx_val(c, x);
    if (v->rank < 0) {
        em_gx_fail(c, "the rank of '%s' is not known", v->name);
        return -1;
    }
    for (int i = 0; i < v->rank; i++) {
        if (v->dims[i].v < 0) {
            return em_gx_op1(c, EM_OP_SHAPE, x);
        }
        d[i] = v->dims[i].v;
    }
    return em_gx_ints(c, d, v->rank);
}

gx_dim em_gx_k(int64_t k)
{
    gx_dim d = {k, -1, 0, -1, 0};
    return d;
}

gx_dim em_gx_d(int v, int d)
{
    gx_dim r = {0, v, d, -1, 0};
    return r;
}

/* The value of entry e when known at build time. */
static bool dim_known(const em_gctx *c, gx_dim e, int64_t *out)
{
    if (e.v < 0) {
        *out = e.k;
        return true;
    }
    em_dim a = em_gx_val(c, e.v)->dims[e.d];
    if (!KNOWN(a)) {
        return false;
    }
    if (e.v2 < 0) {
        *out = a.v;
        return true;
    }
    em_dim b = em_gx_val(c, e.v2)->dims[e.d2];
    if (!KNOWN(b) || b.v == 0) {
        return false;
    }
    *out = a.v / b.v;
    return true;
}

/* Dim d of value v as a 1-D [1] int64 value. */
static int dim_piece(em_gctx *c, int v, int d)
{
    int64_t k;
    if (dim_known(c, em_gx_d(v, d), &k)) {
        return em_gx_ints(c, &k, 1);
    }
    int64_t idx = d;
    int ni = em_gx_begin(c, EM_OP_GATHER, (int[]){em_gx_op1(c, EM_OP_SHAPE, v), em_gx_ints(c, &idx, 1)},
                      2, 1, NULL);
    return em_gx_end(c, ni);
}

int em_gx_dims(em_gctx *c, const gx_dim *dims, int n)
{
    int64_t k[GX_MAX_OUT];
    int piece[GX_MAX_OUT];
    bool all = true;
    if (!em_gx_ok(c)) {
        return -1;
    }
    EMBER_ASSERT(n >= 1 && n <= GX_MAX_OUT);
    for (int i = 0; i < n; i++) {
        all = all && dim_known(c, dims[i], &k[i]);
    }
    if (all) {
        return em_gx_ints(c, k, n);
    }
    for (int i = 0; i < n; i++) {
        if (dim_known(c, dims[i], &k[i])) {
            piece[i] = em_gx_ints(c, &k[i], 1);
        } else {
            piece[i] = dim_piece(c, dims[i].v, dims[i].d);
            if (dims[i].v2 >= 0) {
                piece[i] = em_gx_div(c, piece[i], dim_piece(c, dims[i].v2, dims[i].d2));
            }
        }
    }
    if (n == 1) {
        return piece[0];
    }
    int ni = -1;
    for (int i = 0; i < n; i++) {
        if (piece[i] < 0) {
            return -1;
        }
    }
    ni = em_gx_begin(c, EM_OP_CONCAT, piece, n, 1, NULL);
    em_gx_set_int(c, ni, "axis", 0);
    return em_gx_end(c, ni);
}

void em_gx_like(em_gctx *c, int v, int x)
{
    if (!em_gx_ok(c) || v < 0 || x < 0 || v == x) {
        return;
    }
    em_value *dst = &c->g->values[v];
    const em_value *src = em_gx_val(c, x);
    if (src->rank >= 0 && (dst->rank < 0 || dst->rank == src->rank)) {
        dst->rank = src->rank;
        memcpy(dst->dims, src->dims, sizeof dst->dims);
    }
}

int em_gx_fill_like(em_gctx *c, int x, double v)
{
    if (x < 0 || !em_gx_ok(c)) {
        return -1;
    }
    ember_dtype dt = em_gx_val(c, x)->dtype;
    int r = em_gx_expand(c, em_gx_scalar(c, dt, v), em_gx_shape_of(c, x));
    em_gx_like(c, r, x);
    return r;
}

int em_gx_zeros_like(em_gctx *c, int x)
{
    return em_gx_fill_like(c, x, 0.0);
}

static bool dim_same(em_dim a, em_dim b)
{
    if (KNOWN(a) && KNOWN(b)) {
        return a.v == b.v;
    }
    return a.sym != 0 && a.sym == b.sym;
}

static bool same_shape(const em_value *a, const em_value *b)
{
    if (a->rank < 0 || a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (!dim_same(a->dims[i], b->dims[i])) {
            return false;
        }
    }
    return true;
}

int em_gx_reshape_like(em_gctx *c, int g, int x)
{
    if (g < 0 || !em_gx_ok(c)) {
        return -1;
    }
    if (same_shape(em_gx_val(c, g), em_gx_val(c, x))) {
        return g;
    }
    int r = em_gx_reshape(c, g, em_gx_shape_of(c, x));
    em_gx_like(c, r, x);
    return r;
}

/* Axes of g to sum for x: `axes` (x's dim is 1 there, or x lacks the axis) and `split` (x's
 * dim not known, so it is 1 or g's). Returns false when the ranks do not fit. */
static bool broadcast_axes(const em_value *gv, const em_value *xv, int64_t *axes, int *na,
                           int *split, int *ns)
{
    int lead = gv->rank - xv->rank;
    *na = *ns = 0;
    if (lead < 0) {
        return false;
    }
    for (int j = 0; j < gv->rank; j++) {
        if (j < lead) {
            axes[(*na)++] = j;
            continue;
        }
        em_dim xd = xv->dims[j - lead], gd = gv->dims[j];
        bool g_one = KNOWN(gd) && gd.v == 1;
        if (KNOWN(xd) && xd.v == 1) {
            if (!g_one) {
                axes[(*na)++] = j;
            }
        } else if (!KNOWN(xd) && !dim_same(xd, gd) && !g_one) {
            split[(*ns)++] = j;
        }
    }
    return true;
}

int em_gx_sum_to(em_gctx *c, int g, int x)
{
    int64_t axes[EM_MAX_RANK], sum_axes[EM_MAX_RANK];
    int split[EM_MAX_RANK], na, ns;
    gx_dim dims[EM_MAX_RANK * 2];
    if (g < 0 || x < 0 || !em_gx_ok(c)) {
        return -1;
    }
    em_value gv = *em_gx_val(c, g), xv = *em_gx_val(c, x);
    if (gv.rank < 0 || xv.rank < 0) {
        em_gx_fail(c, "the rank of '%s' is not known", gv.rank < 0 ? gv.name : xv.name);
        return -1;
    }
    if (!broadcast_axes(&gv, &xv, axes, &na, split, &ns)) {
        em_gx_fail(c, "gradient '%s' has lower rank than '%s'", gv.name, xv.name);
        return -1;
    }
    if (na == 0 && ns == 0) {
        return g;
    }
    int r = em_gx_reduce(c, EM_OP_REDUCESUM, g, axes, na, true);
    if (ns > 0) {
        int lead = gv.rank - xv.rank, nd = 0, k = 0;
        for (int j = 0, s = 0; j < gv.rank; j++) {
            if (s < ns && split[s] == j) {
                dims[nd++] = em_gx_d(x, j - lead);
                sum_axes[k++] = nd;
                dims[nd++] = (gx_dim){0, r, j, x, j - lead};
                s++;
            } else {
                dims[nd++] = em_gx_d(r, j);
            }
        }
        if (nd > EM_MAX_RANK) {
            em_gx_fail(c, "undoing a broadcast over %d unknown dims needs rank %d (at most %d)", ns,
                    nd, EM_MAX_RANK);
            return -1;
        }
        r = em_gx_reduce(c, EM_OP_REDUCESUM, em_gx_reshape(c, r, em_gx_dims(c, dims, nd)), sum_axes, k,
                      false);
    }
    if (gv.rank != xv.rank) {
        r = em_gx_reshape(c, r, em_gx_shape_of(c, x));
    }
    em_gx_like(c, r, x);
    return r;
}

int em_gx_index_map(em_gctx *c, int x)
{
    int64_t zero = 0, one = 1;
    int range = em_gx_op3(c, EM_OP_RANGE, em_gx_ints(c, &zero, -1), em_gx_op1(c, EM_OP_SIZE, x),
                       em_gx_ints(c, &one, -1));
    int r = em_gx_reshape(c, range, em_gx_shape_of(c, x));
    em_gx_like(c, r, x);
    return r;
}

int em_gx_scatter_flat(em_gctx *c, int x, int idx, int g, const char *reduction)
{
    int64_t flat = -1, zero = 0;
    if (x < 0 || idx < 0 || g < 0 || !em_gx_ok(c)) {
        return -1;
    }
    ember_dtype dt = em_gx_val(c, x)->dtype;
    int numel = em_gx_unsqueeze(c, em_gx_op1(c, EM_OP_SIZE, x), &zero, 1);
    int zeros = em_gx_expand(c, em_gx_scalar(c, dt, 0.0), numel);
    int in[3] = {zeros, em_gx_reshape(c, idx, em_gx_ints(c, &flat, 1)),
                 em_gx_reshape(c, g, em_gx_ints(c, &flat, 1))};
    if (!em_gx_ok(c)) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_SCATTERELEMENTS, in, 3, 1, NULL);
    em_gx_set_int(c, ni, "axis", 0);
    em_gx_set_string(c, ni, "reduction", reduction);
    int r = em_gx_reshape(c, em_gx_end(c, ni), em_gx_shape_of(c, x));
    em_gx_like(c, r, x);
    return r;
}

int em_gx_scatter_axis(em_gctx *c, const em_node *n, int x, int idx, int g)
{
    const int in[3] = {em_gx_zeros_like(c, x), idx, g};
    if (!em_gx_ok(c)) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_SCATTERELEMENTS, in, 3, 1, NULL);
    em_gx_copy_attr(c, ni, n, "axis");
    em_gx_set_string(c, ni, "reduction", "add");
    int r = em_gx_end(c, ni);
    em_gx_like(c, r, x);
    return r;
}
