/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the math family (ops_math.def). Elementwise ops with one input, or two
 * of one dtype, use em_shape_ew (shape.c); the ones here differ in the output dtype (Cast's
 * 'to', CastLike's target, bool for comparisons, IsNaN, IsInf), in how many inputs broadcast
 * (Where, the variadic Max/Min/Sum/Mean), in their dtype rules (Pow's exponent may have its
 * own dtype) or in taking the output shape from input 0 alone (Clip's scalar bounds, PRelu's
 * slope, which must broadcast to X); BitCast takes 'to' of input 0's bit width. None depends on
 * input values.
 */
#include "shape/shape.h"

#include "core/lowp.h"
#include "core/status.h"

#include <string.h>

#define KNOWN(d) ((d).v >= 0)

/* "input dtypes differ" when inputs a and b both have known, different dtypes. */
static ember_status *same_dtype(const em_node *n, const em_shape *in, int a, int b)
{
    if (in[a].dtype && in[b].dtype && in[a].dtype != in[b].dtype) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): inputs %d and %d have different dtypes: %s vs %s",
                             n->name, em_op_name(n->op), a, b, em_dtype_name(in[a].dtype),
                             em_dtype_name(in[b].dtype));
    }
    return NULL;
}

/* numpy broadcasting of in[first..n_in) into out (dtype left to the caller). */
static ember_status *broadcast_all(const em_node *n, const em_shape *in, int first, em_shape *out)
{
    em_shape acc = in[first];
    for (int i = first + 1; i < n->n_in; i++) {
        em_shape next;
        memset(&next, 0, sizeof next);
        ember_status *st = em_shape_broadcast(n, &acc, &in[i], &next);
        if (st != NULL) {
            return st;
        }
        acc = next;
    }
    out->rank = acc.rank;
    memcpy(out->dims, acc.dims, sizeof out->dims);
    out->value = NULL;
    return NULL;
}

/* Output = input 0's shape and dtype. */
static void copy_input0(const em_shape *in, em_shape *out)
{
    *out = in[0];
    out->value = NULL;
}

/* Equal, Less, LessOrEqual, Greater, GreaterOrEqual: broadcast, bool. */
ember_status *em_shape_math_compare(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = same_dtype(n, in, 0, 1);
    if (st != NULL) {
        return st;
    }
    out->dtype = EMBER_DTYPE_BOOL;
    return broadcast_all(n, in, 0, out);
}

/* IsNaN, IsInf: input 0's shape, bool. */
ember_status *em_shape_math_isx(const em_node *n, const em_shape *in, em_shape *out)
{
    (void)n;
    copy_input0(in, out);
    out->dtype = EMBER_DTYPE_BOOL;
    return NULL;
}

/* Max, Min, Sum, Mean: every input of one dtype, all broadcast together. */
ember_status *em_shape_math_variadic(const em_node *n, const em_shape *in, em_shape *out)
{
    for (int i = 1; i < n->n_in; i++) {
        ember_status *st = same_dtype(n, in, 0, i);
        if (st != NULL) {
            return st;
        }
    }
    out->dtype = in[0].dtype;
    return broadcast_all(n, in, 0, out);
}

/* Pow: base and exponent broadcast; the output has the base's dtype. */
ember_status *em_shape_math_pow(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = in[0].dtype;
    return broadcast_all(n, in, 0, out);
}

/* Where(condition, X, Y): bool condition, X and Y of one dtype, all three broadcast. */
ember_status *em_shape_math_where(const em_node *n, const em_shape *in, em_shape *out)
{
    if (in[0].dtype && in[0].dtype != EMBER_DTYPE_BOOL) {
        return em_shape_bad(n, "the condition (input 0) must be bool");
    }
    ember_status *st = same_dtype(n, in, 1, 2);
    if (st != NULL) {
        return st;
    }
    out->dtype = in[1].dtype;
    return broadcast_all(n, in, 0, out);
}

/* Clip: input 0's shape; min and max (optional) are one-element tensors of its dtype. */
ember_status *em_shape_math_clip(const em_node *n, const em_shape *in, em_shape *out)
{
    for (int i = 1; i < n->n_in; i++) {
        if (n->in[i] < 0 || in[i].dtype == EMBER_DTYPE_UNDEFINED) {
            continue;
        }
        ember_status *st = same_dtype(n, in, 0, i);
        if (st != NULL) {
            return st;
        }
        for (int d = 0; d < in[i].rank; d++) {
            if (KNOWN(in[i].dims[d]) && in[i].dims[d].v != 1) {
                return em_shape_bad(n, "min and max must hold one element");
            }
        }
    }
    copy_input0(in, out);
    return NULL;
}

/* PRelu: the slope broadcasts to X (unidirectionally); the output has X's shape. */
ember_status *em_shape_math_prelu(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = same_dtype(n, in, 0, 1);
    if (st != NULL) {
        return st;
    }
    if (in[0].rank >= 0 && in[1].rank > in[0].rank) {
        return em_shape_bad(n, "the slope has a higher rank than X");
    }
    if (in[0].rank >= 0 && in[1].rank >= 0) {
        for (int d = 0; d < in[1].rank; d++) {
            em_dim s = in[1].dims[d], x = in[0].dims[d + in[0].rank - in[1].rank];
            if (KNOWN(s) && s.v != 1 && KNOWN(x) && s.v != x.v) {
                return em_shape_bad(n, "the slope does not broadcast to X");
            }
        }
    }
    copy_input0(in, out);
    return NULL;
}

/* Cast: input 0's shape, the dtype of attribute 'to' (required). */
ember_status *em_shape_math_cast(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_attr *a = em_node_attr(n, "to");
    if (a == NULL || a->type != EM_ATTR_INT) {
        return em_shape_bad(n, "attribute 'to' is missing or not an int");
    }
    if (a->i <= 0 || a->i > 64 || !em_dtype_valid((ember_dtype)a->i)) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "node '%s' (%s): no dtype for type %lld",
                             n->name, em_op_name(n->op), (long long)a->i);
    }
    copy_input0(in, out);
    out->dtype = (ember_dtype)a->i;
    return NULL;
}

/* CastLike(input, target_type): input 0's shape, input 1's dtype. */
ember_status *em_shape_math_castlike(const em_node *n, const em_shape *in, em_shape *out)
{
    (void)n;
    copy_input0(in, out);
    out->dtype = in[1].dtype;
    return NULL;
}

/* BitCast(input): input 0's shape, the dtype 'to' of the same bit width. */
ember_status *em_shape_math_bitcast(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = em_shape_math_cast(n, in, out); /* the same 'to' rules */
    ember_dtype from = in[0].dtype, to = out->dtype;
    if (st == NULL && (from == EMBER_DTYPE_STRING || to == EMBER_DTYPE_STRING)) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "node '%s' (BitCast): strings have no bit "
                             "pattern to reinterpret", n->name);
    }
    if (st == NULL && from != EMBER_DTYPE_UNDEFINED && em_dtype_bits(from) != em_dtype_bits(to)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (BitCast): %s has %d bits, %s %d; the widths must match",
                             n->name, em_dtype_name(from), em_dtype_bits(from), em_dtype_name(to),
                             em_dtype_bits(to));
    }
    return st;
}
