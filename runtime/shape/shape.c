/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-op shape functions (ONNX semantics) and the graph-level pass. Spec references: the ONNX
 * operator docs for Conv/Pool output sizes (floor or ceil of (in + pads - dil*(k-1) - 1)/s + 1),
 * numpy broadcasting for elementwise ops and MatMul, Reshape's 0 and -1 rules.
 */
#include "shape/shape.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

#define KNOWN(d) ((d).v >= 0)

em_dim em_dim_known(int64_t v)
{
    em_dim d = {v, 0};
    return d;
}

em_dim em_dim_unknown(void)
{
    em_dim d = {-1, 0};
    return d;
}

static bool dim_same(em_dim a, em_dim b)
{
    if (KNOWN(a) && KNOWN(b)) {
        return a.v == b.v;
    }
    return a.sym != 0 && a.sym == b.sym;
}

ember_status *em_shape_bad(const em_node *n, const char *what)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s", n->name,
                         em_op_name(n->op), what);
}

static ember_status *need_rank(const em_node *n, const em_shape *s, int idx, int lo, int hi)
{
    if (s->rank < 0) {
        return NULL;
    }
    if (s->rank < lo || s->rank > hi) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d has rank %d, expected %d..%d", n->name,
                             em_op_name(n->op), idx, s->rank, lo, hi);
    }
    return NULL;
}

ember_status *em_shape_broadcast(const em_node *n, const em_shape *a, const em_shape *b,
                                 em_shape *out)
{
    if (a->rank < 0 || b->rank < 0) {
        out->rank = -1;
        return NULL;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    out->rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        em_dim da = ia >= 0 ? a->dims[ia] : em_dim_known(1);
        em_dim db = ib >= 0 ? b->dims[ib] : em_dim_known(1);
        if (KNOWN(da) && da.v == 1) {
            out->dims[i] = db;
        } else if (KNOWN(db) && db.v == 1) {
            out->dims[i] = da;
        } else if (KNOWN(da) && KNOWN(db)) {
            if (da.v != db.v) {
                return em_status_new(EMBER_ERR_INVALID_MODEL,
                                     "node '%s' (%s): shapes do not broadcast: dim %d is %lld "
                                     "vs %lld",
                                     n->name, em_op_name(n->op), i, (long long)da.v,
                                     (long long)db.v);
            }
            out->dims[i] = da;
        } else if (dim_same(da, db)) {
            out->dims[i] = da;
        } else if (KNOWN(da)) {
            out->dims[i] = da; /* the other must be 1 or equal: take the known size */
        } else if (KNOWN(db)) {
            out->dims[i] = db;
        } else {
            out->dims[i] = em_dim_unknown();
        }
    }
    return NULL;
}

ember_status *em_shape_ew(const em_node *n, const em_shape *in, em_shape *out)
{
    if (n->n_in == 1) {
        *out = in[0];
        out->value = NULL;
        return NULL;
    }
    if (in[0].dtype != in[1].dtype && in[0].dtype && in[1].dtype) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input dtypes differ: %s vs %s", n->name,
                             em_op_name(n->op), em_dtype_name(in[0].dtype),
                             em_dtype_name(in[1].dtype));
    }
    out->dtype = in[0].dtype;
    return em_shape_broadcast(n, &in[0], &in[1], out);
}

/* Spatial attributes shared by Conv and the pools. */
typedef struct spatial {
    int n;
    int64_t k[EM_MAX_RANK], s[EM_MAX_RANK], d[EM_MAX_RANK], pb[EM_MAX_RANK], pe[EM_MAX_RANK];
    const char *auto_pad;
    bool ceil;
} spatial;

static ember_status *read_spatial(const em_node *n, int nsp, const int64_t *kernel,
                                  spatial *sp)
{
    const int64_t *v;
    int64_t c;
    sp->n = nsp;
    for (int i = 0; i < nsp; i++) {
        sp->k[i] = kernel[i];
        sp->s[i] = 1;
        sp->d[i] = 1;
        sp->pb[i] = sp->pe[i] = 0;
    }
    if ((c = em_node_attr_ints(n, "strides", &v)) >= 0) {
        if (c != nsp) {
            return em_shape_bad(n, "'strides' has the wrong length");
        }
        memcpy(sp->s, v, sizeof(int64_t) * (size_t)nsp);
    }
    if ((c = em_node_attr_ints(n, "dilations", &v)) >= 0) {
        if (c != nsp) {
            return em_shape_bad(n, "'dilations' has the wrong length");
        }
        memcpy(sp->d, v, sizeof(int64_t) * (size_t)nsp);
    }
    if ((c = em_node_attr_ints(n, "pads", &v)) >= 0) {
        if (c != 2 * nsp) {
            return em_shape_bad(n, "'pads' has the wrong length");
        }
        memcpy(sp->pb, v, sizeof(int64_t) * (size_t)nsp);
        memcpy(sp->pe, v + nsp, sizeof(int64_t) * (size_t)nsp);
    }
    for (int i = 0; i < nsp; i++) {
        if (sp->k[i] < 1 || sp->s[i] < 1 || sp->d[i] < 1 || sp->pb[i] < 0 || sp->pe[i] < 0) {
            return em_shape_bad(n, "kernel, strides and dilations must be >= 1 and pads >= 0");
        }
    }
    sp->auto_pad = em_node_attr_string(n, "auto_pad", "NOTSET");
    sp->ceil = em_node_attr_int(n, "ceil_mode", 0) != 0;
    return NULL;
}

/* Output size of spatial axis i; an error when the (dilated) window does not fit the padded
 * input, as PyTorch and ONNX Runtime also refuse. */
static ember_status *spatial_out(const em_node *n, const spatial *sp, int i, em_dim in,
                                 em_dim *out)
{
    if (!KNOWN(in)) {
        *out = em_dim_unknown();
        return NULL;
    }
    int64_t x = in.v, ek = sp->d[i] * (sp->k[i] - 1) + 1;
    if (strcmp(sp->auto_pad, "SAME_UPPER") == 0 || strcmp(sp->auto_pad, "SAME_LOWER") == 0) {
        *out = em_dim_known((x + sp->s[i] - 1) / sp->s[i]);
        return NULL;
    }
    bool valid = strcmp(sp->auto_pad, "VALID") == 0;
    int64_t span = valid ? x - ek : x + sp->pb[i] + sp->pe[i] - ek;
    if (span < 0) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): spatial axis %d: window of %lld (kernel %lld, "
                             "dilation %lld) is larger than the padded input of %lld",
                             n->name, em_op_name(n->op), i, (long long)ek, (long long)sp->k[i],
                             (long long)sp->d[i],
                             (long long)(valid ? x : x + sp->pb[i] + sp->pe[i]));
    }
    if (valid) {
        *out = em_dim_known(span / sp->s[i] + 1);
        return NULL;
    }
    int64_t o = sp->ceil ? (span + sp->s[i] - 1) / sp->s[i] + 1 : span / sp->s[i] + 1;
    /* ONNX/PyTorch: with ceil_mode the last window must start inside the (left-padded) input. */
    if (sp->ceil && (o - 1) * sp->s[i] >= x + sp->pb[i]) {
        o--;
    }
    *out = em_dim_known(o);
    return NULL;
}

ember_status *em_shape_conv(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = need_rank(n, &in[0], 0, 3, EM_MAX_RANK)) || (st = need_rank(n, &in[1], 1, 3, EM_MAX_RANK))) {
        return st;
    }
    out->dtype = in[0].dtype;
    if (in[0].rank < 0 || in[1].rank < 0) {
        out->rank = -1;
        return NULL;
    }
    if (in[0].rank != in[1].rank) {
        return em_shape_bad(n, "X and W have different ranks");
    }
    int nsp = in[0].rank - 2;
    int64_t k[EM_MAX_RANK];
    const int64_t *ks;
    int64_t kc = em_node_attr_ints(n, "kernel_shape", &ks);
    for (int i = 0; i < nsp; i++) {
        k[i] = kc == nsp ? ks[i] : in[1].dims[2 + i].v;
        if (k[i] < 0) {
            out->rank = in[0].rank;
            out->dims[0] = in[0].dims[0];
            out->dims[1] = in[1].dims[0];
            for (int j = 0; j < nsp; j++) {
                out->dims[2 + j] = em_dim_unknown();
            }
            return NULL;
        }
    }
    if (kc >= 0 && kc != nsp) {
        return em_shape_bad(n, "'kernel_shape' has the wrong length");
    }
    int64_t group = em_node_attr_int(n, "group", 1);
    if (group < 1) {
        return em_shape_bad(n, "'group' must be >= 1");
    }
    if (KNOWN(in[0].dims[1]) && KNOWN(in[1].dims[1]) &&
        in[0].dims[1].v != in[1].dims[1].v * group) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (Conv): input has %lld channels, weight expects %lld x "
                             "group %lld",
                             n->name, (long long)in[0].dims[1].v, (long long)in[1].dims[1].v,
                             (long long)group);
    }
    spatial sp;
    if ((st = read_spatial(n, nsp, k, &sp)) != NULL) {
        return st;
    }
    out->rank = in[0].rank;
    out->dims[0] = in[0].dims[0];
    out->dims[1] = in[1].dims[0];
    for (int i = 0; i < nsp; i++) {
        if ((st = spatial_out(n, &sp, i, in[0].dims[2 + i], &out->dims[2 + i])) != NULL) {
            return st;
        }
    }
    return NULL;
}

ember_status *em_shape_pool(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = need_rank(n, &in[0], 0, 3, EM_MAX_RANK)) != NULL) {
        return st;
    }
    out->dtype = in[0].dtype;
    out->rank = in[0].rank;
    if (in[0].rank < 0) {
        return NULL;
    }
    int nsp = in[0].rank - 2;
    out->dims[0] = in[0].dims[0];
    out->dims[1] = in[0].dims[1];
    if (n->op == EM_OP_GLOBALAVERAGEPOOL || n->op == EM_OP_GLOBALMAXPOOL ||
        n->op == EM_OP_GLOBALLPPOOL) {
        for (int i = 0; i < nsp; i++) {
            out->dims[2 + i] = em_dim_known(1);
        }
        return NULL;
    }
    const int64_t *ks;
    if (em_node_attr_ints(n, "kernel_shape", &ks) != nsp) {
        return em_shape_bad(n, "'kernel_shape' is missing or has the wrong length");
    }
    spatial sp;
    if ((st = read_spatial(n, nsp, ks, &sp)) != NULL) {
        return st;
    }
    for (int i = 0; i < nsp; i++) {
        if ((st = spatial_out(n, &sp, i, in[0].dims[2 + i], &out->dims[2 + i])) != NULL) {
            return st;
        }
    }
    if (n->n_out > 1) {
        out[1] = out[0];
        out[1].dtype = EMBER_DTYPE_I64;
    }
    return NULL;
}

ember_status *em_shape_gemm(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = need_rank(n, &in[0], 0, 2, 2)) || (st = need_rank(n, &in[1], 1, 2, 2))) {
        return st;
    }
    out->dtype = in[0].dtype;
    out->rank = 2;
    bool ta = em_node_attr_int(n, "transA", 0) != 0, tb = em_node_attr_int(n, "transB", 0) != 0;
    em_dim m = in[0].rank == 2 ? in[0].dims[ta ? 1 : 0] : em_dim_unknown();
    em_dim ka = in[0].rank == 2 ? in[0].dims[ta ? 0 : 1] : em_dim_unknown();
    em_dim kb = in[1].rank == 2 ? in[1].dims[tb ? 1 : 0] : em_dim_unknown();
    em_dim nn = in[1].rank == 2 ? in[1].dims[tb ? 0 : 1] : em_dim_unknown();
    if (KNOWN(ka) && KNOWN(kb) && ka.v != kb.v) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (Gemm): inner dims differ: A has K=%lld, B has K=%lld",
                             n->name, (long long)ka.v, (long long)kb.v);
    }
    out->dims[0] = m;
    out->dims[1] = nn;
    if (n->n_in > 2 && in[2].dtype != EMBER_DTYPE_UNDEFINED && in[2].rank >= 0) {
        /* C must broadcast to [M, N] (unidirectionally): each of its dims is 1 or equal. */
        if (in[2].rank > 2) {
            return em_shape_bad(n, "C has rank above 2");
        }
        for (int i = 0; i < in[2].rank; i++) {
            em_dim c = in[2].dims[i], y = out->dims[2 - in[2].rank + i];
            if (KNOWN(c) && c.v != 1 && KNOWN(y) && c.v != y.v) {
                return em_status_new(EMBER_ERR_INVALID_MODEL,
                                     "node '%s' (Gemm): C dim %d is %lld, does not broadcast to "
                                     "%lld",
                                     n->name, i, (long long)c.v, (long long)y.v);
            }
        }
    }
    return NULL;
}

ember_status *em_shape_matmul(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = in[0].dtype;
    if (in[0].rank < 0 || in[1].rank < 0) {
        out->rank = -1;
        return NULL;
    }
    if (in[0].rank < 1 || in[1].rank < 1) {
        return em_shape_bad(n, "inputs must have rank >= 1");
    }
    em_shape a = in[0], b = in[1];
    bool va = a.rank == 1, vb = b.rank == 1;
    if (va) { /* [K] -> [1,K] */
        a.dims[1] = a.dims[0];
        a.dims[0] = em_dim_known(1);
        a.rank = 2;
    }
    if (vb) { /* [K] -> [K,1] */
        b.dims[1] = em_dim_known(1);
        b.rank = 2;
    }
    em_dim ka = a.dims[a.rank - 1], kb = b.dims[b.rank - 2];
    if (KNOWN(ka) && KNOWN(kb) && ka.v != kb.v) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (MatMul): inner dims differ: %lld vs %lld", n->name,
                             (long long)ka.v, (long long)kb.v);
    }
    em_shape ba = a, bb = b, bo;
    ba.rank -= 2;
    bb.rank -= 2;
    ember_status *st = em_shape_broadcast(n, &ba, &bb, &bo);
    if (st != NULL) {
        return st;
    }
    int r = bo.rank;
    if (r + 2 > EM_MAX_RANK) {
        return em_shape_bad(n, "result rank too large");
    }
    memcpy(out->dims, bo.dims, sizeof(em_dim) * (size_t)r);
    if (!va) {
        out->dims[r++] = a.dims[a.rank - 2];
    }
    if (!vb) {
        out->dims[r++] = b.dims[b.rank - 1];
    }
    out->rank = r;
    return NULL;
}

ember_status *em_shape_reshape(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = in[0].dtype;
    const em_tensor *sv = in[1].value;
    if (sv == NULL) {
        out->rank = in[1].rank == 1 && KNOWN(in[1].dims[0]) ? (int)in[1].dims[0].v : -1;
        for (int i = 0; i < out->rank && i < EM_MAX_RANK; i++) {
            out->dims[i] = em_dim_unknown();
        }
        return out->rank > EM_MAX_RANK ? em_shape_bad(n, "target rank too large") : NULL;
    }
    if (sv->dtype != EMBER_DTYPE_I64 || sv->rank != 1) {
        return em_shape_bad(n, "'shape' must be a 1-D int64 tensor");
    }
    int64_t r = sv->dims[0];
    if (r > EM_MAX_RANK) {
        return em_shape_bad(n, "target rank too large");
    }
    const int64_t *s = sv->data;
    bool allowzero = em_node_attr_int(n, "allowzero", 0) != 0;
    int neg = -1;
    out->rank = (int)r;
    for (int i = 0; i < r; i++) {
        if (s[i] == -1) {
            if (neg >= 0) {
                return em_shape_bad(n, "'shape' has more than one -1");
            }
            neg = i;
            out->dims[i] = em_dim_unknown();
        } else if (s[i] == 0 && !allowzero) {
            if (in[0].rank >= 0 && i >= in[0].rank) {
                return em_shape_bad(n, "'shape' copies a dim (0) past the input's rank");
            }
            out->dims[i] = in[0].rank >= 0 ? in[0].dims[i] : em_dim_unknown();
        } else if (s[i] < -1) {
            return em_shape_bad(n, "'shape' has a negative entry");
        } else {
            out->dims[i] = em_dim_known(s[i]);
        }
    }
    if (in[0].rank < 0) {
        return NULL;
    }
    /* Total known size of the input, and of the output without the -1 dim. */
    int64_t total = 1, part = 1;
    bool tk = true, pk = true;
    for (int i = 0; i < in[0].rank; i++) {
        if (!KNOWN(in[0].dims[i])) {
            tk = false;
        } else {
            total *= in[0].dims[i].v;
        }
    }
    for (int i = 0; i < r; i++) {
        if (i == neg) {
            continue;
        }
        if (!KNOWN(out->dims[i])) {
            pk = false;
        } else {
            part *= out->dims[i].v;
        }
    }
    if (neg >= 0 && tk && pk) {
        if (part == 0 || total % part != 0) {
            return em_shape_bad(n, "input size is not divisible by the known part of 'shape'");
        }
        out->dims[neg] = em_dim_known(total / part);
    } else if (neg < 0 && tk && pk && total != part) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (Reshape): cannot reshape %lld elements into %lld",
                             n->name, (long long)total, (long long)part);
    }
    return NULL;
}

ember_status *em_shape_flatten(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = in[0].dtype;
    out->rank = 2;
    if (in[0].rank < 0) {
        out->dims[0] = out->dims[1] = em_dim_unknown();
        return NULL;
    }
    int64_t axis = em_node_attr_int(n, "axis", 1);
    if (axis < 0) {
        axis += in[0].rank;
    }
    if (axis < 0 || axis > in[0].rank) {
        return em_shape_bad(n, "'axis' out of range");
    }
    em_dim parts[2];
    for (int p = 0; p < 2; p++) {
        int lo = p == 0 ? 0 : (int)axis, hi = p == 0 ? (int)axis : in[0].rank;
        int64_t prod = 1;
        bool known = true;
        for (int i = lo; i < hi; i++) {
            if (KNOWN(in[0].dims[i])) {
                prod *= in[0].dims[i].v;
            } else {
                known = false;
            }
        }
        parts[p] = known ? em_dim_known(prod) : em_dim_unknown();
        if (!known && hi - lo == 1) {
            parts[p] = in[0].dims[lo]; /* a single symbolic dim passes through */
        }
    }
    out->dims[0] = parts[0];
    out->dims[1] = parts[1];
    return NULL;
}

ember_status *em_shape_softmax(const em_node *n, const em_shape *in, em_shape *out)
{
    *out = in[0];
    out->value = NULL;
    if (in[0].rank >= 0) {
        int64_t axis = em_node_attr_int(n, "axis", -1);
        if (axis < -in[0].rank || axis >= (in[0].rank > 0 ? in[0].rank : 1)) {
            return em_shape_bad(n, "'axis' out of range");
        }
    }
    return NULL;
}

ember_status *em_shape_batchnorm(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = need_rank(n, &in[0], 0, 2, EM_MAX_RANK);
    if (st != NULL) {
        return st;
    }
    for (int i = 1; i < 5; i++) {
        if ((st = need_rank(n, &in[i], i, 1, 1)) != NULL) {
            return st;
        }
        if (in[0].rank >= 2 && in[i].rank == 1 && KNOWN(in[0].dims[1]) &&
            KNOWN(in[i].dims[0]) && in[i].dims[0].v != in[0].dims[1].v) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (BatchNormalization): input %d has %lld entries, "
                                 "X has %lld channels",
                                 n->name, i, (long long)in[i].dims[0].v,
                                 (long long)in[0].dims[1].v);
        }
    }
    out[0] = in[0];
    out[0].value = NULL;
    /* Training mode's running_mean and running_var: like input_mean and input_var, [C]. */
    for (int o = 1; o < n->n_out; o++) {
        out[o] = in[2 + o];
        out[o].value = NULL;
        if (in[0].rank >= 2 && out[o].rank < 0) {
            out[o].rank = 1;
            out[o].dims[0] = in[0].dims[1];
        }
    }
    return NULL;
}

static const em_shape_fn shape_fns[EM_OP_COUNT] = {
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad)             \
    [EM_OP_##id] = shape,
#include "ir/ops.def"
#undef EM_OP
};

ember_status *em_shape_infer_node(const em_node *n, const em_shape *in, em_shape *out)
{
    for (int i = 0; i < n->n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].rank = -1;
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0 && in[i].dtype == EMBER_DTYPE_UNDEFINED && i == 0) {
            return em_shape_bad(n, "input 0 has no known dtype");
        }
    }
    if ((unsigned)n->op >= EM_OP_COUNT) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "node '%s': unknown op", n->name);
    }
    return shape_fns[n->op](n, in, out);
}

static void value_to_shape(const em_value *v, em_shape *s)
{
    memset(s, 0, sizeof *s);
    s->vt = v->vt;
    s->dtype = v->dtype;
    s->rank = v->rank;
    memcpy(s->dims, v->dims, sizeof s->dims);
    s->value = v->kind == EM_VAL_INITIALIZER ? &v->init : NULL;
}

/* Gives body inputs of subgraph `sub` of node `n` of `g` that have no declared dtype the dtype
 * of what will be bound to them: an outer value captured by name (dtype and shape: it is the
 * same tensor), or for Loop the iteration count, the condition and the loop-carried values,
 * for Scan the states and scan inputs (dtype only: shapes may change between iterations).
 * The outer values before `n` are inferred already, which they were not while loading. */
static void seed_subgraph_inputs(const em_graph *g, const em_node *n, em_graph *sub)
{
    for (int i = 0; i < sub->n_inputs; i++) {
        em_value *v = &sub->values[sub->inputs[i]];
        if (v->dtype != EMBER_DTYPE_UNDEFINED) {
            continue;
        }
        int outer = em_graph_find_value(g, v->name), src = -1;
        if (outer >= 0 && g->values[outer].dtype != EMBER_DTYPE_UNDEFINED) {
            const em_value *o = &g->values[outer];
            v->dtype = o->dtype;
            v->vt = o->vt;
            if (v->rank < 0) {
                v->rank = o->rank;
                for (int d = 0; d < o->rank; d++) {
                    v->dims[d] = o->dims[d].v >= 0 ? em_dim_known(o->dims[d].v) : em_dim_unknown();
                }
            }
            continue;
        }
        if (n->op == EM_OP_LOOP) {
            v->dtype = i == 0 ? EMBER_DTYPE_I64 : i == 1 ? EMBER_DTYPE_BOOL : EMBER_DTYPE_UNDEFINED;
            src = i >= 2 && i < n->n_in ? n->in[i] : -1;
        } else if (n->op == EM_OP_SCAN && !em_node_attr_int(n, "ember_scan8", 0)) {
            src = i < n->n_in ? n->in[i] : -1;
        }
        if (src >= 0) {
            v->dtype = g->values[src].dtype;
            v->vt = g->values[src].vt;
        }
    }
}

/* Shapes of one node of `g`: in and out hold at least n_in and n_out entries. */
static ember_status *infer_node_shapes(em_graph *g, em_node *n, em_shape *in, em_shape *out)
{
    for (int a = 0; a < n->n_attrs; a++) { /* subgraphs first: If/Loop/Scan read their outputs */
        if (n->attrs[a].type == EM_ATTR_GRAPH && n->attrs[a].g != NULL) {
            seed_subgraph_inputs(g, n, n->attrs[a].g);
            /* Best effort: a body input may have no declared type (the enclosing node's inputs
             * give it at run time), and the interpreter infers every shape again while it
             * runs, where errors name the node. */
            ember_status_destroy(em_graph_infer_shapes(n->attrs[a].g));
        }
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0) {
            memset(&in[i], 0, sizeof in[i]);
            in[i].rank = -1;
        } else {
            value_to_shape(&g->values[n->in[i]], &in[i]);
        }
    }
    ember_status *st = em_shape_infer_node(n, in, out);
    if (st != NULL) {
        return st;
    }
    for (int o = 0; o < n->n_out; o++) {
        em_value *v = &g->values[n->out[o]];
        /* A dim the shape function cannot tell keeps what the value knew already: loaders
         * name dims that inference cannot (TorchScript: a conv's output size as a symbol of its
         * input's), and inferring again after graph passes must not forget them. */
        bool keep = v->rank == out[o].rank && v->dtype == out[o].dtype && v->rank > 0;
        for (int d = 0; keep && d < v->rank; d++) {
            em_dim nd = out[o].dims[d];
            if (nd.v < 0 && nd.sym == 0) {
                out[o].dims[d] = v->dims[d];
            }
        }
        v->vt = out[o].vt;
        v->dtype = out[o].dtype;
        v->rank = out[o].rank;
        memcpy(v->dims, out[o].dims, sizeof v->dims);
    }
    return NULL;
}

ember_status *em_graph_infer_node(em_graph *g, int node)
{
    em_shape in_small[16], out_small[8];
    em_node *n = &g->nodes[node];
    em_shape *in = in_small, *out = out_small;
    if (n->n_in > 16) {
        in = em_malloc(g->al, sizeof *in * (size_t)n->n_in);
    }
    if (n->n_out > 8) {
        out = em_malloc(g->al, sizeof *out * (size_t)n->n_out);
    }
    ember_status *st = in == NULL || out == NULL ? em_status_oom()
                                                 : infer_node_shapes(g, n, in, out);
    if (in != in_small) {
        em_free(g->al, in);
    }
    if (out != out_small) {
        em_free(g->al, out);
    }
    return st;
}

ember_status *em_graph_infer_shapes(em_graph *g)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        ember_status *st = em_graph_infer_node(g, ni);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}
