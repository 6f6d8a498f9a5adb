/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of Reshape (its 0 / -1 rules and allowzero; the target from input 1's value
 * when known) and Flatten (axis), of the tensor family (ops_tensor.def).
 */
#include "shape/shape.h"

#include "core/status.h"

#define KNOWN(d) ((d).v >= 0)

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
        } else if (total != 0 && in[0].dims[i].v > INT64_MAX / total) {
            return em_shape_bad(n, "the input has more than INT64_MAX elements");
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
        } else if (part != 0 && out->dims[i].v > INT64_MAX / part) {
            return em_shape_bad(n, "'shape' asks for more than INT64_MAX elements");
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
