/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the random family (ONNX semantics, newest opsets): RandomUniform and
 * RandomNormal (shape and dtype from attributes, dtype f16 f32 f64 bf16, default f32), their
 * *Like forms and Bernoulli (the input's shape; dtype from the attribute, else the input's),
 * Multinomial ([batch, class] -> [batch, sample_size], int32 or int64) and Dropout-22 (output
 * like data, mask bool of the same shape; ratio and training_mode hold one value each; data and
 * ratio may also be float8).
 */
#include "shape/shape.h"

#include "core/lowp.h"
#include "core/status.h"

#include <stdint.h>

#define KNOWN(d) ((d).v >= 0)

static bool is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 ||
           dt == EMBER_DTYPE_BF16;
}

/* Bernoulli's output dtypes: the floats, the integers and bool. */
static bool is_numeric_or_bool(ember_dtype dt)
{
    return em_dtype_valid(dt) && dt != EMBER_DTYPE_UNDEFINED;
}

static ember_status *bad_dtype(const em_node *n, const char *what, int64_t dt)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s %lld is not allowed", n->name,
                         em_op_name(n->op), what, (long long)dt);
}

/* The output dtype from attribute 'dtype' (`dflt` when absent). */
static ember_status *attr_dtype(const em_node *n, ember_dtype dflt, bool (*ok)(ember_dtype),
                                ember_dtype *out)
{
    const em_attr *a = em_node_attr(n, "dtype");
    if (a == NULL) {
        *out = dflt;
        return NULL;
    }
    if (a->type != EM_ATTR_INT) {
        return em_shape_bad(n, "attribute 'dtype' must be an int");
    }
    if (a->i <= 0 || a->i > 255 || !ok((ember_dtype)a->i)) {
        return bad_dtype(n, "attribute dtype", a->i);
    }
    *out = (ember_dtype)a->i;
    return NULL;
}

ember_status *em_shape_random(const em_node *n, const em_shape *in, em_shape *out)
{
    (void)in;
    ember_status *st = attr_dtype(n, EMBER_DTYPE_F32, is_float, &out->dtype);
    if (st != NULL) {
        return st;
    }
    const em_attr *a = em_node_attr(n, "shape");
    if (a == NULL || a->type != EM_ATTR_INTS) {
        return em_shape_bad(n, "attribute 'shape' (ints) is required");
    }
    if (a->n > EM_MAX_RANK) {
        return em_shape_bad(n, "attribute 'shape' has more dims than ember supports");
    }
    out->rank = (int)a->n;
    for (int d = 0; d < out->rank; d++) {
        if (a->ints[d] < 0) {
            return em_shape_bad(n, "attribute 'shape' has a negative dim");
        }
        out->dims[d] = em_dim_known(a->ints[d]);
    }
    return NULL;
}

ember_status *em_shape_random_like(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    bool bernoulli = n->op == EM_OP_BERNOULLI;
    if (bernoulli && !is_float(in[0].dtype)) {
        return bad_dtype(n, "input dtype", in[0].dtype);
    }
    if (bernoulli) {
        st = attr_dtype(n, in[0].dtype, is_numeric_or_bool, &out->dtype);
    } else {
        st = attr_dtype(n, in[0].dtype, is_float, &out->dtype);
    }
    if (st != NULL) {
        return st;
    }
    if (!bernoulli && !is_float(out->dtype)) {
        return em_shape_bad(n, "the input is not a float tensor: attribute 'dtype' is required");
    }
    out->rank = in[0].rank;
    for (int d = 0; d < in[0].rank; d++) {
        out->dims[d] = in[0].dims[d];
    }
    return NULL;
}

ember_status *em_shape_multinomial(const em_node *n, const em_shape *in, em_shape *out)
{
    if (!is_float(in[0].dtype)) {
        return bad_dtype(n, "input dtype", in[0].dtype);
    }
    if (in[0].rank >= 0 && in[0].rank != 2) {
        return em_shape_bad(n, "input 0 must be 2-D [batch_size, class_size]");
    }
    int64_t samples = em_node_attr_int(n, "sample_size", 1);
    if (samples < 1) {
        return em_shape_bad(n, "attribute 'sample_size' must be at least 1");
    }
    const em_attr *a = em_node_attr(n, "dtype");
    int64_t dt = a != NULL && a->type == EM_ATTR_INT ? a->i : EMBER_DTYPE_I32;
    if (dt != EMBER_DTYPE_I32 && dt != EMBER_DTYPE_I64) {
        return bad_dtype(n, "attribute dtype", dt);
    }
    out->dtype = (ember_dtype)dt;
    out->rank = 2;
    out->dims[0] = in[0].rank == 2 ? in[0].dims[0] : em_dim_unknown();
    out->dims[1] = em_dim_known(samples);
    return NULL;
}

/* True when optional input i of shape s may hold one value (rank 0, or 1-D of one element). */
static bool one_value(const em_shape *s)
{
    if (s->dtype == EMBER_DTYPE_UNDEFINED || s->rank < 0 || s->rank == 0) {
        return true;
    }
    return s->rank == 1 && (!KNOWN(s->dims[0]) || s->dims[0].v == 1);
}

/* Dropout-22's float types: those above and the four float8. */
static bool is_float_or_f8(ember_dtype dt)
{
    return is_float(dt) || em_lowp_is_float8(dt);
}

ember_status *em_shape_dropout(const em_node *n, const em_shape *in, em_shape *out)
{
    if (!is_float_or_f8(in[0].dtype)) {
        return bad_dtype(n, "data dtype", in[0].dtype);
    }
    if (n->n_in > 1 && in[1].dtype != EMBER_DTYPE_UNDEFINED &&
        (!is_float_or_f8(in[1].dtype) || !one_value(&in[1]))) {
        return em_shape_bad(n, "input 1 (ratio) must be one float value");
    }
    if (n->n_in > 2 && in[2].dtype != EMBER_DTYPE_UNDEFINED &&
        (in[2].dtype != EMBER_DTYPE_BOOL || !one_value(&in[2]))) {
        return em_shape_bad(n, "input 2 (training_mode) must be one bool value");
    }
    out[0] = in[0];
    out[0].value = NULL;
    if (n->n_out > 1) {
        out[1] = out[0];
        out[1].dtype = EMBER_DTYPE_BOOL;
    }
    return NULL;
}
