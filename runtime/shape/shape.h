/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape inference, one function per op, used twice: on the graph with symbolic dims (at load
 * time, for inspect and declared outputs) and by the planner with every dim known. A dim is
 * known (v >= 0), symbolic (sym > 0) or unknown; rules keep symbols where the op passes a dim
 * through (batch, broadcasting against 1) and give unknown where they cannot tell.
 */
#ifndef EMBER_SHAPE_SHAPE_H
#define EMBER_SHAPE_SHAPE_H

#include "ir/graph.h"

typedef struct em_shape {
    em_vtype vt;      /* tensor unless the op makes or takes sequences / optionals */
    ember_dtype dtype;
    int rank; /* -1 = unknown */
    em_dim dims[EM_MAX_RANK];
    const em_tensor *value; /* the constant's data when the input is an initializer */
} em_shape;

/* A shape function: infers out[0..n_out) from in[0..n_in) (absent inputs: dtype UNDEFINED,
 * rank -1). Outputs arrive zeroed with rank -1. Errors are INVALID_MODEL and name the node,
 * the input and what is wrong. */
typedef ember_status *(*em_shape_fn)(const em_node *n, const em_shape *in, em_shape *out);

/* The shape functions named in ops.def. */
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad) \
    ember_status *shape(const em_node *n, const em_shape *in, em_shape *out);
#include "ir/ops.def"
#undef EM_OP

/* The shape function of op (the shape_fn column of the op lists), or NULL. */
em_shape_fn em_shape_fn_of(em_op op);

/* Infers the outputs of `n` through its op's shape function. */
ember_status *em_shape_infer_node(const em_node *n, const em_shape *in, em_shape *out);

/* Helpers for shape functions (shape.c). */
em_dim em_dim_known(int64_t v);
em_dim em_dim_unknown(void);
/* Checked int64 arithmetic for rules that combine dims with attributes (kernel, stride, pads):
 * false when the result does not fit, which the rule reports as a bad node rather than
 * wrapping (attributes and declared dims can be anything up to INT64_MAX). */
static inline bool em_i64_add(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}
static inline bool em_i64_mul(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}
/* "node 'x' (Op): <what>" as INVALID_MODEL. */
ember_status *em_shape_bad(const em_node *n, const char *what);
/* numpy broadcasting of a and b into out (dims kept symbolic where they can be). */
ember_status *em_shape_broadcast(const em_node *n, const em_shape *a, const em_shape *b,
                                 em_shape *out);

#endif /* EMBER_SHAPE_SHAPE_H */
