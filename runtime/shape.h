/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape inference, one function per op, used twice: on the graph with symbolic dims (at load
 * time, for inspect and declared outputs) and by the planner with every dim known. A dim is
 * known (v >= 0), symbolic (sym > 0) or unknown; rules keep symbols where the op passes a dim
 * through (batch, broadcasting against 1) and give unknown where they cannot tell.
 */
#ifndef EMBER_RUNTIME_SHAPE_H
#define EMBER_RUNTIME_SHAPE_H

#include "graph.h"

typedef struct em_shape {
    ember_dtype dtype;
    int rank; /* -1 = unknown */
    em_dim dims[EM_MAX_RANK];
    const em_tensor *value; /* the constant's data when the input is an initializer */
} em_shape;

/* Infers the outputs of `n` from `in` (n->n_in entries; absent inputs have dtype UNDEFINED).
 * Errors are INVALID_MODEL and name the node, the input and what is wrong. */
ember_status *em_shape_infer_node(const em_node *n, const em_shape *in, em_shape *out);

#endif /* EMBER_RUNTIME_SHAPE_H */
