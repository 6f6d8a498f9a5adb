/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the nn family's foundation ops (ops_nn.def): Conv and the pools (ONNX
 * output sizes: floor, or ceil with ceil_mode, of (in + pads - dil*(k-1) - 1)/s + 1, and
 * auto_pad), Gemm and MatMul (numpy rules, batch dims broadcast) and BatchNormalization.
 * em_shape_pool serves every pool of the family.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <string.h>

#define KNOWN(d) ((d).v >= 0)

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
    int64_t x = in.v, s = sp->s[i], ek, padded, span, last;
    if (!em_i64_mul(sp->d[i], sp->k[i] - 1, &ek) || !em_i64_add(ek, 1, &ek) ||
        !em_i64_add(x, sp->pb[i], &padded) || !em_i64_add(padded, sp->pe[i], &padded)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): spatial axis %d: kernel, dilation or pads too "
                             "large (overflows int64)",
                             n->name, em_op_name(n->op), i);
    }
    if (strcmp(sp->auto_pad, "SAME_UPPER") == 0 || strcmp(sp->auto_pad, "SAME_LOWER") == 0) {
        *out = em_dim_known(x == 0 ? 0 : (x - 1) / s + 1);
        return NULL;
    }
    bool valid = strcmp(sp->auto_pad, "VALID") == 0;
    span = (valid ? x : padded) - ek;
    if (span < 0) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): spatial axis %d: window of %lld (kernel %lld, "
                             "dilation %lld) is larger than the padded input of %lld",
                             n->name, em_op_name(n->op), i, (long long)ek, (long long)sp->k[i],
                             (long long)sp->d[i], (long long)(valid ? x : padded));
    }
    if (valid || !sp->ceil) {
        *out = em_dim_known(span / s + 1);
        return NULL;
    }
    int64_t o = span / s + (span % s != 0) + 1;
    /* ONNX/PyTorch: with ceil_mode the last window must start inside the (left-padded) input.
     * (o - 1) * s <= span + s - 1 < padded + s, so an overflow here means it starts past it. */
    if (!em_i64_mul(o - 1, s, &last) || last >= x + sp->pb[i]) {
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
