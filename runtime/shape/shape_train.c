/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape function of the train family (ai.onnx.preview.training-1 optimizers). Inputs: R (a
 * float or double scalar), T (an int64 scalar), then `groups` runs of n tensors (Adagrad X G H,
 * Adam X G V H, Momentum X G V); outputs: `groups - 1` runs of n tensors (X_new and each state,
 * G has no output). Every tensor of position i has X_i's dtype and shape; outputs copy it.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdint.h>

#define KNOWN(d) ((d).v >= 0)

static bool is_real(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64;
}

static bool is_scalar(const em_shape *s)
{
    if (s->rank < 0 || s->rank == 0) {
        return true;
    }
    return s->rank == 1 && (!KNOWN(s->dims[0]) || s->dims[0].v == 1);
}

static bool same_shape(const em_shape *a, const em_shape *b)
{
    if (a->rank < 0 || b->rank < 0) {
        return true;
    }
    if (a->rank != b->rank) {
        return false;
    }
    for (int d = 0; d < a->rank; d++) {
        if (KNOWN(a->dims[d]) && KNOWN(b->dims[d]) && a->dims[d].v != b->dims[d].v) {
            return false;
        }
    }
    return true;
}

ember_status *em_shape_optimizer(const em_node *n, const em_shape *in, em_shape *out)
{
    int groups = n->op == EM_OP_ADAM ? 4 : 3;
    int tensors = (n->n_in - 2) / groups;
    if (n->n_in < 2 + groups || (n->n_in - 2) % groups != 0) {
        return em_shape_bad(n, "the inputs must be R, T and whole groups of tensors");
    }
    if (n->n_out != (groups - 1) * tensors) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): %d outputs, expected %d for %d optimized tensor(s)",
                             n->name, em_op_name(n->op), n->n_out, (groups - 1) * tensors, tensors);
    }
    if (!is_real(in[0].dtype) || !is_scalar(&in[0])) {
        return em_shape_bad(n, "input 0 (R) must be a float or double scalar");
    }
    if (in[1].dtype != EMBER_DTYPE_I64 || !is_scalar(&in[1])) {
        return em_shape_bad(n, "input 1 (T) must be an int64 scalar");
    }
    for (int i = 0; i < tensors; i++) {
        const em_shape *x = &in[2 + i];
        for (int g = 0; g < groups; g++) {
            const em_shape *s = &in[2 + g * tensors + i];
            if (!is_real(s->dtype) || s->dtype != x->dtype || !same_shape(s, x)) {
                return em_status_new(EMBER_ERR_INVALID_MODEL,
                                     "node '%s' (%s): input %d must be float or double with the "
                                     "dtype and shape of input %d (X)",
                                     n->name, em_op_name(n->op), 2 + g * tensors + i, 2 + i);
            }
        }
        for (int g = 0; g < groups - 1; g++) {
            /* Output group 0 is X_new, group g >= 1 the state of input group g + 1: X's shape
             * (its symbols), or the state's when X's rank is unknown. */
            const em_shape *src = &in[2 + (g == 0 ? 0 : g + 1) * tensors + i];
            src = x->rank >= 0 ? x : src;
            out[g * tensors + i] = *src;
            out[g * tensors + i].value = NULL;
        }
    }
    return NULL;
}
