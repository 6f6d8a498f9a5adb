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
#include <stdio.h>

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

/* ---- com.microsoft quantized ops (ONNX Runtime's contrib ops) ------------------------------ */

/* The per-tensor parameters of an 8-bit operand: scale input si (f32, one element), zero point
 * input zi (absent, or one element of the operand's dtype). `what` names the operand. */
static ember_status *check_tensor_params(const em_node *n, const em_shape *in, int oi, int si,
                                         int zi, const char *what)
{
    if (oi >= 0 && present(n, in, oi) && in[oi].dtype != EMBER_DTYPE_U8 &&
        in[oi].dtype != EMBER_DTYPE_I8) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s is %s, not uint8 / int8",
                             n->name, em_op_name(n->op), what, em_dtype_name(in[oi].dtype));
    }
    if (!present(n, in, si)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s's scale is missing",
                             n->name, em_op_name(n->op), what);
    }
    if (in[si].dtype != EMBER_DTYPE_F32 || in[si].rank > 1 ||
        (known_numel(&in[si]) != 1 && known_numel(&in[si]) != -1)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): %s's scale (input %d) must be one float32 value",
                             n->name, em_op_name(n->op), what, si);
    }
    if (zi >= 0 && present(n, in, zi) &&
        (in[zi].rank > 1 || (known_numel(&in[zi]) != 1 && known_numel(&in[zi]) != -1))) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): %s's zero point (input %d) must be one value",
                             n->name, em_op_name(n->op), what, zi);
    }
    return zi >= 0 && oi >= 0 && present(n, in, oi) ? check_zp_dtype(n, in, zi, oi) : NULL;
}

/* QLinearAdd / QLinearMul: (A, A_scale, A_zp, B, B_scale, B_zp, C_scale[, C_zp]) -> C, numpy
 * broadcasting of A and B, C of A's dtype. */
ember_status *em_shape_qlinearbinary(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = check_tensor_params(n, in, 0, 1, 2, "A")) != NULL ||
        (st = check_tensor_params(n, in, 3, 4, 5, "B")) != NULL ||
        (st = check_tensor_params(n, in, -1, 6, -1, "C")) != NULL) {
        return st;
    }
    if (in[0].dtype != in[3].dtype) {
        return em_shape_bad(n, "A and B differ in dtype");
    }
    if (present(n, in, 7) && in[7].dtype != in[0].dtype) {
        return em_shape_bad(n, "C's zero point differs in dtype from A");
    }
    if ((st = em_shape_broadcast(n, &in[0], &in[3], out)) != NULL) {
        return st;
    }
    out->dtype = in[0].dtype;
    return NULL;
}

/* QLinearSigmoid / QLinearLeakyRelu: (X, X_scale, X_zp, Y_scale[, Y_zp]) -> Y of X's shape. */
ember_status *em_shape_qlinearunary(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = check_tensor_params(n, in, 0, 1, 2, "X")) != NULL ||
        (st = check_tensor_params(n, in, -1, 3, -1, "Y")) != NULL) {
        return st;
    }
    if (present(n, in, 4) && in[4].dtype != in[0].dtype) {
        return em_shape_bad(n, "Y's zero point differs in dtype from X");
    }
    same_shape(&in[0], in[0].dtype, out);
    return NULL;
}

/* QLinearConcat: (Y_scale, Y_zp, then (X, X_scale, X_zp) per input) -> Y, joined along `axis`. */
ember_status *em_shape_qlinearconcat(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((n->n_in - 2) % 3 != 0) {
        return em_shape_bad(n, "inputs must be Y_scale, Y_zero_point and triples (X, scale, "
                               "zero point)");
    }
    if (em_node_attr(n, "axis") == NULL) {
        return em_shape_bad(n, "attribute 'axis' is missing");
    }
    if ((st = check_tensor_params(n, in, -1, 0, -1, "Y")) != NULL) {
        return st;
    }
    const em_shape *x0 = &in[2];
    *out = *x0;
    out->value = NULL;
    if (present(n, in, 1) && in[1].dtype != x0->dtype) {
        return em_shape_bad(n, "Y's zero point differs in dtype from the inputs");
    }
    if (x0->rank < 0) {
        return NULL;
    }
    int64_t axis = em_node_attr_int(n, "axis", 0);
    if (axis < -(int64_t)x0->rank || axis >= x0->rank) {
        return em_shape_bad(n, "attribute 'axis' is out of range for the inputs' rank");
    }
    int ax = (int)(axis < 0 ? axis + x0->rank : axis);
    for (int k = 2; k < n->n_in; k += 3) {
        char what[32];
        snprintf(what, sizeof what, "input %d", k);
        if ((st = check_tensor_params(n, in, k, k + 1, k + 2, what)) != NULL) {
            return st;
        }
        const em_shape *x = &in[k];
        if (x->dtype != x0->dtype) {
            return em_shape_bad(n, "the inputs differ in dtype");
        }
        if (x->rank < 0) {
            out->dims[ax] = em_dim_unknown();
            continue;
        }
        if (x->rank != x0->rank) {
            return em_shape_bad(n, "the inputs differ in rank");
        }
        for (int d = 0; d < x->rank; d++) {
            if (d != ax && KNOWN(x->dims[d]) && KNOWN(x0->dims[d]) &&
                x->dims[d].v != x0->dims[d].v) {
                return em_shape_bad(n, "the inputs differ in a dim other than axis");
            }
        }
        if (k > 2) {
            out->dims[ax] = KNOWN(out->dims[ax]) && KNOWN(x->dims[ax])
                                ? em_dim_known(out->dims[ax].v + x->dims[ax].v)
                                : em_dim_unknown();
        }
    }
    return NULL;
}

/* QLinearAveragePool (AveragePool's window attributes) and QLinearGlobalAveragePool:
 * (X, X_scale, X_zp, Y_scale[, Y_zp]) -> Y of X's dtype, NCHW (channels_last 0) only. */
ember_status *em_shape_qlinearpool(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = check_tensor_params(n, in, 0, 1, 2, "X")) != NULL ||
        (st = check_tensor_params(n, in, -1, 3, -1, "Y")) != NULL) {
        return st;
    }
    if (em_node_attr_int(n, "channels_last", 0) != 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "node '%s' (%s): channels_last = 1 is not supported (NCHW only)",
                             n->name, em_op_name(n->op));
    }
    if (n->op == EM_OP_QLINEARAVERAGEPOOL) {
        return em_shape_pool(n, in, out);
    }
    if (in[0].rank >= 0 && in[0].rank < 3) {
        return em_shape_bad(n, "X must have rank 3 or more (N, C, spatial...)");
    }
    same_shape(&in[0], in[0].dtype, out);
    for (int d = 2; d < in[0].rank; d++) {
        out->dims[d] = em_dim_known(1);
    }
    return NULL;
}

/* QGemm: (A, a_scale, a_zp, B, b_scale, b_zp[, C int32, y_scale, y_zp]) -> Y [M, N]: Gemm's
 * shapes; Y float32 without y_scale, else y_zp's dtype (uint8 when absent). b's scale and
 * zero point are one value or N (per column). */
ember_status *em_shape_qgemm(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    if ((st = check_tensor_params(n, in, 0, 1, 2, "A")) != NULL) {
        return st;
    }
    if (in[3].dtype != EMBER_DTYPE_U8 && in[3].dtype != EMBER_DTYPE_I8) {
        return em_shape_bad(n, "B is not uint8 / int8");
    }
    if ((st = check_zp_dtype(n, in, 5, 3)) != NULL) {
        return st;
    }
    if (present(n, in, 6) && in[6].dtype != EMBER_DTYPE_I32) {
        return em_shape_bad(n, "C must be int32");
    }
    em_shape g[3] = {in[0], in[3], {0}};
    g[2].dtype = EMBER_DTYPE_UNDEFINED;
    g[2].rank = -1;
    if (present(n, in, 6)) {
        g[2] = in[6];
    }
    if ((st = em_shape_gemm(n, g, out)) != NULL) {
        return st;
    }
    em_dim nn = out->dims[1];
    for (int i = 4; i <= 5; i++) {
        if (!present(n, in, i) || in[i].rank < 0) {
            continue;
        }
        int64_t c = known_numel(&in[i]);
        if (in[i].rank > 1 || (c != 1 && c != -1 && KNOWN(nn) && c != nn.v)) {
            return em_shape_bad(n, i == 4 ? "b_scale must be one value or one per column (N)"
                                          : "b_zero_point must be one value or one per column (N)");
        }
    }
    if (present(n, in, 7)) {
        if ((st = check_tensor_params(n, in, -1, 7, -1, "y")) != NULL) {
            return st;
        }
        out->dtype = present(n, in, 8) ? in[8].dtype : EMBER_DTYPE_U8;
        if (out->dtype != EMBER_DTYPE_U8 && out->dtype != EMBER_DTYPE_I8) {
            return em_shape_bad(n, "y_zero_point is not uint8 / int8");
        }
    } else {
        out->dtype = EMBER_DTYPE_F32;
    }
    return NULL;
}
