/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the reduce family (ONNX semantics, newest opsets): Reduce*-18 with axes
 * as input 1 (empty or absent axes: all axes, or none with noop_with_empty_axes), ArgMax/ArgMin
 * (axis, keepdims), TopK (k as input 1), LayerNormalization's Mean/InvStdDev (X's shape with
 * the normalised axes set to 1), Det ([*, M, M] -> [*]), and the ops whose output has the
 * shape of input 0 (the softmaxes, CumSum, InstanceNormalization, MeanVarianceNormalization,
 * LRN), and
 * Einsum (numpy einsum labels; the equation parser in einsum.c is shared with the kernel).
 * When a value input's data is not known, dims it decides are unknown, never an error.
 */
#include "shape/shape.h"

#include "ir/einsum.h"

#include "core/status.h"

#include <stdint.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

/* Copies input 0's dtype and shape to out (never its value). */
static void same_as(const em_shape *in, em_shape *out)
{
    *out = *in;
    out->value = NULL;
}

static ember_status *bad_axis(const em_node *n, int64_t axis, int rank)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL,
                         "node '%s' (%s): axis %lld is out of range for "
                         "rank %d",
                         n->name, em_op_name(n->op), (long long)axis, rank);
}

/* Output of reducing axes `mask` with keepdims. */
static void reduce_out(const em_shape *x, unsigned mask, bool keepdims, em_shape *out)
{
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!(mask & (1u << d))) {
            out->dims[r++] = x->dims[d];
        } else if (keepdims) {
            out->dims[r++] = em_dim_known(1);
        }
    }
    out->rank = r;
}

ember_status *em_shape_reduce(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    bool keepdims = em_node_attr_int(n, "keepdims", 1) != 0;
    bool noop = em_node_attr_int(n, "noop_with_empty_axes", 0) != 0;
    bool has_axes = n->n_in > 1 && in[1].dtype != EMBER_DTYPE_UNDEFINED;
    out->dtype = x->dtype;
    out->rank = -1;
    if (has_axes && in[1].rank >= 0 && in[1].rank != 1) {
        return em_shape_bad(n, "input 1 (axes) must be 1-D");
    }
    if (has_axes && in[1].dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "input 1 (axes) must be int64");
    }
    /* Number of axes listed: -1 when not known. */
    int64_t count = 0;
    if (has_axes) {
        count = in[1].rank == 1 && KNOWN(in[1].dims[0]) ? in[1].dims[0].v : -1;
    }
    if (x->rank < 0) {
        return NULL;
    }
    if (count == 0) {
        if (noop) {
            same_as(x, out);
        } else {
            reduce_out(x, x->rank > 0 ? (1u << x->rank) - 1u : 0u, keepdims, out);
        }
        return NULL;
    }
    if (in[1].value == NULL) {
        /* keepdims keeps the rank; otherwise the rank drops by the (distinct) axis count. */
        out->rank =
            keepdims ? x->rank : (count >= 0 && count <= x->rank ? x->rank - (int)count : -1);
        for (int d = 0; d < out->rank; d++) {
            out->dims[d] = em_dim_unknown();
        }
        return NULL;
    }
    const em_tensor *av = in[1].value;
    if (av->dtype != EMBER_DTYPE_I64 || av->rank != 1) {
        return em_shape_bad(n, "input 1 (axes) must be a 1-D int64 tensor");
    }
    const int64_t *axes = av->data;
    unsigned mask = 0;
    for (int64_t i = 0; i < av->dims[0]; i++) {
        int64_t a = axes[i];
        if (a < -(int64_t)x->rank || a >= x->rank) {
            return bad_axis(n, a, x->rank);
        }
        unsigned bit = 1u << (a < 0 ? a + x->rank : a);
        if (mask & bit) {
            return em_shape_bad(n, "input 1 (axes) repeats an axis");
        }
        mask |= bit;
    }
    reduce_out(x, mask, keepdims, out);
    return NULL;
}

ember_status *em_shape_argreduce(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    out->dtype = EMBER_DTYPE_I64;
    out->rank = -1;
    if (x->rank < 0) {
        return NULL;
    }
    int64_t axis = em_node_attr_int(n, "axis", 0);
    if (axis < -(int64_t)x->rank || axis >= x->rank) {
        return bad_axis(n, axis, x->rank);
    }
    reduce_out(x, 1u << (axis < 0 ? axis + x->rank : axis), em_node_attr_int(n, "keepdims", 1) != 0,
               out);
    return NULL;
}

/* Softmax, LogSoftmax and Hardmax (opset 13): input 0's shape, one axis. */
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

ember_status *em_shape_cumsum(const em_node *n, const em_shape *in, em_shape *out)
{
    if (in[1].rank > 1 || (in[1].rank == 1 && KNOWN(in[1].dims[0]) && in[1].dims[0].v != 1)) {
        return em_shape_bad(n, "input 1 (axis) must hold a single value");
    }
    if (in[1].dtype != EMBER_DTYPE_I32 && in[1].dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "input 1 (axis) must be int32 or int64");
    }
    same_as(&in[0], out);
    return NULL;
}

ember_status *em_shape_topk(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    if (in[1].dtype != EMBER_DTYPE_I64 || in[1].rank > 1) {
        return em_shape_bad(n, "input 1 (K) must be a 1-D int64 tensor of one element");
    }
    same_as(x, &out[0]);
    out[1].dtype = EMBER_DTYPE_I64;
    out[1].rank = -1;
    if (x->rank < 0) {
        return NULL;
    }
    int64_t axis = em_node_attr_int(n, "axis", -1);
    if (axis < -(int64_t)x->rank || axis >= x->rank) {
        return bad_axis(n, axis, x->rank);
    }
    int ax = (int)(axis < 0 ? axis + x->rank : axis);
    em_dim kd = em_dim_unknown();
    const em_tensor *kv = in[1].value;
    if (kv != NULL) {
        if (kv->rank == 1 && kv->dims[0] != 1) {
            return em_shape_bad(n, "input 1 (K) must hold a single value");
        }
        int64_t k = *(const int64_t *)kv->data;
        if (k < 0 || (KNOWN(x->dims[ax]) && k > x->dims[ax].v)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (TopK): k = %lld is outside [0, %lld]", n->name,
                                 (long long)k, (long long)x->dims[ax].v);
        }
        kd = em_dim_known(k);
    }
    out[0].dims[ax] = kd;
    out[1] = out[0];
    out[1].dtype = EMBER_DTYPE_I64;
    return NULL;
}

ember_status *em_shape_layernorm(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    same_as(x, &out[0]);
    int64_t stash = em_node_attr_int(n, "stash_type", 1);
    ember_dtype mdt = stash == 1 ? EMBER_DTYPE_F32 : x->dtype;
    for (int o = 1; o < n->n_out; o++) {
        out[o].dtype = mdt;
        out[o].rank = -1;
    }
    if (x->rank < 0) {
        return NULL;
    }
    int64_t axis = em_node_attr_int(n, "axis", -1);
    if (axis < -(int64_t)x->rank || axis >= x->rank) {
        return bad_axis(n, axis, x->rank);
    }
    int ax = (int)(axis < 0 ? axis + x->rank : axis);
    for (int i = 1; i < n->n_in && i < 3; i++) {
        if (in[i].rank > x->rank - ax) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (LayerNormalization): input %d has rank %d, more "
                                 "than the %d normalised axes",
                                 n->name, i, in[i].rank, x->rank - ax);
        }
    }
    for (int o = 1; o < n->n_out; o++) {
        out[o].rank = x->rank;
        for (int d = 0; d < x->rank; d++) {
            out[o].dims[d] = d < ax ? x->dims[d] : em_dim_known(1);
        }
    }
    return NULL;
}

ember_status *em_shape_instancenorm(const em_node *n, const em_shape *in, em_shape *out)
{
    if (in[0].rank >= 0 && in[0].rank < 3) {
        return em_shape_bad(n, "input 0 must have rank >= 3 (N, C, spatial...)");
    }
    for (int i = 1; i < 3; i++) {
        if (in[i].rank >= 0 && in[i].rank != 1) {
            return em_shape_bad(n, "scale and B must be 1-D");
        }
        if (in[0].rank >= 3 && in[i].rank == 1 && KNOWN(in[0].dims[1]) && KNOWN(in[i].dims[0]) &&
            in[0].dims[1].v != in[i].dims[0].v) {
            return em_shape_bad(n, "scale and B must have one entry per channel");
        }
    }
    same_as(&in[0], out);
    return NULL;
}

ember_status *em_shape_mvn(const em_node *n, const em_shape *in, em_shape *out)
{
    const int64_t *axes;
    int64_t c = em_node_attr_ints(n, "axes", &axes);
    for (int64_t i = 0; in[0].rank >= 0 && i < c; i++) {
        if (axes[i] < -(int64_t)in[0].rank || axes[i] >= in[0].rank) {
            return bad_axis(n, axes[i], in[0].rank);
        }
    }
    if (c < 0 && in[0].rank >= 0 && in[0].rank < 4) {
        return em_shape_bad(n, "the default axes [0, 2, 3] need rank >= 4");
    }
    same_as(&in[0], out);
    return NULL;
}

ember_status *em_shape_lrn(const em_node *n, const em_shape *in, em_shape *out)
{
    if (in[0].rank >= 0 && in[0].rank < 2) {
        return em_shape_bad(n, "input 0 must have rank >= 2 (N, C, ...)");
    }
    if (em_node_attr_int(n, "size", 0) < 1) {
        return em_shape_bad(n, "attribute 'size' is missing or below 1");
    }
    same_as(&in[0], out);
    return NULL;
}

ember_status *em_shape_det(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    out->dtype = x->dtype;
    out->rank = -1;
    if (x->rank < 0) {
        return NULL;
    }
    if (x->rank < 2) {
        return em_shape_bad(n, "input 0 must have rank >= 2 ([*, M, M])");
    }
    em_dim a = x->dims[x->rank - 2], b = x->dims[x->rank - 1];
    if (KNOWN(a) && KNOWN(b) && a.v != b.v) {
        return em_shape_bad(n, "the matrices are not square");
    }
    out->rank = x->rank - 2;
    memcpy(out->dims, x->dims, sizeof(em_dim) * (size_t)out->rank);
    return NULL;
}

/* ---- Einsum ------------------------------------------------------------------------------ */

/* Output dim of label l: a known size (letters: all known sizes agree; "..." dims: known
 * sizes other than 1 agree, 1 broadcasts), else a symbol all unknown dims share, else
 * unknown; a "..." label seen only as 1 is 1. */
static ember_status *ein_dim(const em_node *n, const em_shape *in, const em_ein_labels *p, int l,
                             em_dim *out)
{
    bool ell = l >= EM_EIN_LETTERS, have_other = false, mixed = false;
    em_dim known = em_dim_unknown(), other = em_dim_unknown();
    for (int i = 0; i < n->n_in; i++) {
        for (int a = 0; a < in[i].rank; a++) {
            em_dim d = in[i].dims[a];
            if (p->lab[i][a] != l || (ell && KNOWN(d) && d.v == 1)) {
                continue;
            }
            if (KNOWN(d)) {
                if (KNOWN(known) && known.v != d.v) {
                    return em_shape_bad(n, "inputs disagree on the size of a label");
                }
                known = d;
            } else if (!have_other) {
                other = d;
                have_other = true;
            } else if (other.sym == 0 || other.sym != d.sym) {
                mixed = true;
            }
        }
    }
    if (KNOWN(known)) {
        *out = known;
    } else if (have_other) {
        *out = mixed ? em_dim_unknown() : other;
    } else {
        *out = em_dim_known(1);
    }
    return NULL;
}

ember_status *em_shape_einsum(const em_node *n, const em_shape *in, em_shape *out)
{
    int ranks[EM_EIN_MAX_IN];
    em_ein_labels p;
    out->dtype = in[0].dtype;
    out->rank = -1;
    const char *eq = em_node_attr_string(n, "equation", NULL);
    if (eq == NULL) {
        return em_shape_bad(n, "attribute 'equation' is missing");
    }
    for (int i = 0; i < n->n_in; i++) {
        if (in[i].dtype != in[0].dtype && in[i].dtype != EMBER_DTYPE_UNDEFINED) {
            return em_shape_bad(n, "inputs have different dtypes");
        }
        if (in[i].rank < 0) {
            return NULL;
        }
        ranks[i] = in[i].rank;
    }
    const char *why = em_einsum_parse(eq, n->n_in, ranks, &p);
    if (why != NULL) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (Einsum): equation '%s': %s",
                             n->name, eq, why);
    }
    /* Every label's sizes must agree, summed ones included. */
    for (int l = 0; l < EM_EIN_MAX_LABELS; l++) {
        em_dim d;
        ember_status *st = ein_dim(n, in, &p, l, &d);
        if (st != NULL) {
            return st;
        }
    }
    out->rank = p.n_out;
    for (int o = 0; o < p.n_out; o++) {
        ember_status *st = ein_dim(n, in, &p, p.out[o], &out->dims[o]);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}
