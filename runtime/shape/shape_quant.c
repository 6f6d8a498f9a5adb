/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the quant family (ONNX semantics, newest opsets). QuantizeLinear-21 and
 * DequantizeLinear-21 keep x's shape; their scale is per tensor (one element, rank <= 1), per
 * axis (1-D of x.dims[axis]) or blocked (x's rank, dims equal but along axis, where it is
 * ceil(x.dims[axis] / block_size)); the zero point has the scale's shape. The output dtype of
 * QuantizeLinear is the zero point's, else output_dtype, else uint8; DequantizeLinear's is
 * output_dtype (opset 23), else the scale's. DynamicQuantizeLinear gives (y: uint8 of x's
 * shape, y_scale: f32 scalar, y_zero_point: uint8 scalar). MatMulInteger and QLinearMatMul
 * follow MatMul's numpy rules, ConvInteger and QLinearConv Conv's, on (A, B) = inputs (0, 1)
 * and (0, 3) respectively; the integer ops give int32, the QLinear ops y_zero_point's dtype.
 * Checks need known dims; unknown dims are never an error.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdbool.h>
#include <stdint.h>

#define KNOWN(d) ((d).v >= 0)

static bool present(const em_node *n, const em_shape *in, int i)
{
    return i < n->n_in && n->in[i] >= 0 && in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

/* Element count of s, or -1 when its rank or a dim is unknown. */
static int64_t known_numel(const em_shape *s)
{
    if (s->rank < 0) {
        return -1;
    }
    int64_t c = 1;
    for (int d = 0; d < s->rank; d++) {
        if (!KNOWN(s->dims[d])) {
            return -1;
        }
        c *= s->dims[d].v;
    }
    return c;
}

static bool same_dims(const em_shape *a, const em_shape *b)
{
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

/* The scale / zero-point layout rules of QuantizeLinear-21 and DequantizeLinear-21. */
static ember_status *check_qparams(const em_node *n, const em_shape *in)
{
    const em_shape *x = &in[0], *s = &in[1];
    int64_t block = em_node_attr_int(n, "block_size", 0);
    int64_t axis = em_node_attr_int(n, "axis", 1);
    if (block < 0) {
        return em_shape_bad(n, "attribute 'block_size' is negative");
    }
    if (present(n, in, 2) && s->rank >= 0 && in[2].rank >= 0) {
        int64_t cs = known_numel(s), cz = known_numel(&in[2]);
        bool both_single = cs == 1 && cz == 1 && s->rank <= 1 && in[2].rank <= 1;
        if (!both_single && !same_dims(s, &in[2])) {
            return em_shape_bad(n, "the zero point's shape differs from the scale's");
        }
    }
    if (s->rank < 0 || x->rank < 0 || (s->rank <= 1 && known_numel(s) == 1)) {
        return NULL; /* per tensor, or not known yet */
    }
    if (axis < -(int64_t)x->rank || axis >= x->rank) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): axis %lld is out of range for rank %d", n->name,
                             em_op_name(n->op), (long long)axis, x->rank);
    }
    int ax = (int)(axis < 0 ? axis + x->rank : axis);
    em_dim xd = x->dims[ax];
    if (block == 0) {
        if (s->rank != 1) {
            return em_shape_bad(n, "a per-axis scale must be 1-D");
        }
        if (KNOWN(xd) && KNOWN(s->dims[0]) && s->dims[0].v != xd.v) {
            return em_shape_bad(n, "the per-axis scale's length differs from x.dims[axis]");
        }
        return NULL;
    }
    if (s->rank != x->rank) {
        return em_shape_bad(n, "a blocked scale must have x's rank");
    }
    for (int d = 0; d < x->rank; d++) {
        em_dim want = x->dims[d];
        if (d == ax && KNOWN(xd)) {
            want = em_dim_known((xd.v + block - 1) / block);
        } else if (d == ax) {
            continue;
        }
        if (KNOWN(want) && KNOWN(s->dims[d]) && want.v != s->dims[d].v) {
            return em_shape_bad(n, "the blocked scale's shape does not match x and block_size");
        }
    }
    return NULL;
}

static void same_shape(const em_shape *x, ember_dtype dt, em_shape *out)
{
    *out = *x;
    out->value = NULL;
    out->dtype = dt;
}

ember_status *em_shape_quantizelinear(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t odt = em_node_attr_int(n, "output_dtype", 0);
    ember_dtype dt = odt != 0 ? (ember_dtype)odt : EMBER_DTYPE_U8;
    if (present(n, in, 2)) {
        if (odt != 0 && odt != (int64_t)in[2].dtype) {
            return em_shape_bad(n, "attribute 'output_dtype' differs from the zero point's dtype");
        }
        dt = in[2].dtype;
    }
    ember_status *st = check_qparams(n, in);
    if (st != NULL) {
        return st;
    }
    same_shape(&in[0], dt, out);
    return NULL;
}

ember_status *em_shape_dequantizelinear(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t odt = em_node_attr_int(n, "output_dtype", 0);
    if (present(n, in, 2) && in[2].dtype != in[0].dtype) {
        return em_shape_bad(n, "the zero point's dtype differs from x's");
    }
    ember_status *st = check_qparams(n, in);
    if (st != NULL) {
        return st;
    }
    same_shape(&in[0], odt != 0 ? (ember_dtype)odt : in[1].dtype, out);
    return NULL;
}

ember_status *em_shape_dynamicquantizelinear(const em_node *n, const em_shape *in, em_shape *out)
{
    (void)n;
    same_shape(&in[0], EMBER_DTYPE_U8, &out[0]);
    out[1].dtype = EMBER_DTYPE_F32;
    out[1].rank = 0;
    out[2].dtype = EMBER_DTYPE_U8;
    out[2].rank = 0;
    return NULL;
}

/* Zero point `zi` (when given) must have the dtype of its operand `oi`. */
static ember_status *check_zp_dtype(const em_node *n, const em_shape *in, int zi, int oi)
{
    if (present(n, in, zi) && in[zi].dtype != in[oi].dtype) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d (zero point) is %s, input %d is %s", n->name,
                             em_op_name(n->op), zi, em_dtype_name(in[zi].dtype), oi,
                             em_dtype_name(in[oi].dtype));
    }
    return NULL;
}

/* MatMulInteger and ConvInteger: (A, B, a_zero_point, b_zero_point) -> int32. */
static ember_status *integer_shape(const em_node *n, const em_shape *in, em_shape *out, bool conv)
{
    ember_status *st = NULL;
    if ((st = check_zp_dtype(n, in, 2, 0)) != NULL || (st = check_zp_dtype(n, in, 3, 1)) != NULL ||
        (st = conv ? em_shape_conv(n, in, out) : em_shape_matmul(n, in, out)) != NULL) {
        return st;
    }
    out->dtype = EMBER_DTYPE_I32;
    return NULL;
}

ember_status *em_shape_matmulinteger(const em_node *n, const em_shape *in, em_shape *out)
{
    return integer_shape(n, in, out, false);
}

ember_status *em_shape_convinteger(const em_node *n, const em_shape *in, em_shape *out)
{
    return integer_shape(n, in, out, true);
}

/* QLinearMatMul and QLinearConv: (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp[, B]). */
static ember_status *qlinear_shape(const em_node *n, const em_shape *in, em_shape *out, bool conv)
{
    ember_status *st = NULL;
    if ((st = check_zp_dtype(n, in, 2, 0)) != NULL || (st = check_zp_dtype(n, in, 5, 3)) != NULL) {
        return st;
    }
    em_shape ab[2] = {in[0], in[3]};
    st = conv ? em_shape_conv(n, ab, out) : em_shape_matmul(n, ab, out);
    if (st != NULL) {
        return st;
    }
    out->dtype = in[7].dtype;
    return NULL;
}

ember_status *em_shape_qlinearmatmul(const em_node *n, const em_shape *in, em_shape *out)
{
    return qlinear_shape(n, in, out, false);
}

ember_status *em_shape_qlinearconv(const em_node *n, const em_shape *in, em_shape *out)
{
    if (present(n, in, 8) && in[8].dtype != EMBER_DTYPE_I32) {
        return em_shape_bad(n, "input 8 (B) must be int32");
    }
    return qlinear_shape(n, in, out, true);
}
