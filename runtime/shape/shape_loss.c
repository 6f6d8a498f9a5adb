/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the loss family: NegativeLogLikelihoodLoss-22 and
 * SoftmaxCrossEntropyLoss-13. Input [N, C, d1..dk] (k >= 0), target [N, d1..dk] of int32 or
 * int64, optional weight [C]. The loss is [N, d1..dk] with reduction "none", else a scalar
 * (rank 0); SoftmaxCrossEntropyLoss's optional log_prob has the input's shape. Dims that are
 * known on both sides must agree; the loss takes the target's dim where the input's is not
 * known.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdint.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

static ember_status *bad(const em_node *n, const char *what, int a, int b)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s (%d vs %d)", n->name,
                         em_op_name(n->op), what, a, b);
}

/* Dim `a` unless it is unknown and `b` is known (then `b`). */
static em_dim pick(em_dim a, em_dim b)
{
    return KNOWN(a) || !KNOWN(b) ? a : b;
}

/* Checks reduction, the target's dtype and rank, the weight, and that known dims agree. */
static ember_status *check_inputs(const em_node *n, const em_shape *in, bool *reduce)
{
    const em_shape *x = &in[0], *t = &in[1];
    const char *red = em_node_attr_string(n, "reduction", "mean");
    if (strcmp(red, "none") != 0 && strcmp(red, "sum") != 0 && strcmp(red, "mean") != 0) {
        return em_shape_bad(n, "attribute 'reduction' must be \"none\", \"sum\" or \"mean\"");
    }
    *reduce = strcmp(red, "none") != 0;
    if (x->rank >= 0 && x->rank < 2) {
        return bad(n, "input 0 must have rank >= 2", x->rank, 2);
    }
    if (t->dtype != EMBER_DTYPE_I32 && t->dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "input 1 (target) must be int32 or int64");
    }
    if (x->rank >= 0 && t->rank >= 0) {
        if (t->rank != x->rank - 1) {
            return bad(n, "input 1 (target) must have the rank of input 0 minus 1", t->rank,
                       x->rank - 1);
        }
        for (int d = 0; d < t->rank; d++) {
            em_dim xd = x->dims[d == 0 ? 0 : d + 1], td = t->dims[d];
            if (KNOWN(xd) && KNOWN(td) && xd.v != td.v) {
                return bad(n, "input 1 (target) does not match input 0's N, d1..dk", (int)td.v,
                           (int)xd.v);
            }
        }
    }
    if (n->n_in > 2 && in[2].dtype != EMBER_DTYPE_UNDEFINED) {
        const em_shape *w = &in[2];
        if (x->dtype != EMBER_DTYPE_UNDEFINED && w->dtype != x->dtype) {
            return em_shape_bad(n, "input 2 (weight) must have input 0's dtype");
        }
        if (w->rank >= 0 && w->rank != 1) {
            return bad(n, "input 2 (weight) must be 1-D", w->rank, 1);
        }
        if (w->rank == 1 && x->rank >= 2 && KNOWN(w->dims[0]) && KNOWN(x->dims[1]) &&
            w->dims[0].v != x->dims[1].v) {
            return bad(n, "input 2 (weight) must have C elements", (int)w->dims[0].v,
                       (int)x->dims[1].v);
        }
    }
    return NULL;
}

/* The loss: a scalar, or [N, d1..dk] from the input and the target. */
static void loss_shape(const em_shape *in, bool reduce, em_shape *out)
{
    const em_shape *x = &in[0], *t = &in[1];
    out->dtype = x->dtype;
    if (reduce) {
        out->rank = 0;
        return;
    }
    if (x->rank < 0 && t->rank < 0) {
        out->rank = -1;
        return;
    }
    out->rank = x->rank >= 0 ? x->rank - 1 : t->rank;
    for (int d = 0; d < out->rank; d++) {
        em_dim xd = x->rank >= 0 ? x->dims[d == 0 ? 0 : d + 1] : em_dim_unknown();
        em_dim td = t->rank >= 0 ? t->dims[d] : em_dim_unknown();
        out->dims[d] = pick(xd, td);
    }
}

ember_status *em_shape_nllloss(const em_node *n, const em_shape *in, em_shape *out)
{
    bool reduce = false;
    ember_status *st = check_inputs(n, in, &reduce);
    if (st == NULL) {
        loss_shape(in, reduce, &out[0]);
    }
    return st;
}

ember_status *em_shape_sceloss(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = em_shape_nllloss(n, in, out);
    if (st == NULL && n->n_out > 1) {
        out[1] = in[0];
        out[1].value = NULL;
    }
    return st;
}
