/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the ml family (ops_ml.def, domain ai.onnx.ml):
 *  ArrayFeatureExtractor  X [..., F], indices int64 (any shape, n elements) -> [..., n];
 *                         a 1-D X gives [1, n] (as onnxruntime and onnx's reference do);
 *  LabelEncoder           X's shape; the dtype of the values (values_int64s int64,
 *                         values_floats float, values_strings string, values_tensor its own);
 *  TreeEnsemble           X [N, F] float / double / half -> [N, n_targets] of X's dtype.
 * Binarizer is elementwise (em_shape_ew).
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdint.h>

#define KNOWN(d) ((d).v >= 0)

ember_status *em_shape_arrayfeatureextractor(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *idx = &in[1];
    if (idx->dtype != EMBER_DTYPE_I64 && idx->dtype != EMBER_DTYPE_UNDEFINED) {
        return em_shape_bad(n, "input 1 (Y, the indices) must be int64");
    }
    out->dtype = x->dtype;
    if (x->rank == 0) {
        return em_shape_bad(n, "input 0 (X) must have at least one dim");
    }
    if (x->rank < 0) {
        return NULL;
    }
    em_dim count = em_dim_known(1);
    for (int d = 0; idx->rank >= 0 && d < idx->rank; d++) {
        count = KNOWN(count) && KNOWN(idx->dims[d]) ? em_dim_known(count.v * idx->dims[d].v)
                                                    : em_dim_unknown();
    }
    if (idx->rank < 0) {
        count = em_dim_unknown();
    }
    out->rank = x->rank == 1 ? 2 : x->rank;
    for (int d = 0; d < x->rank - 1; d++) {
        out->dims[d] = x->dims[d];
    }
    if (x->rank == 1) {
        out->dims[0] = em_dim_known(1);
    }
    out->dims[out->rank - 1] = count;
    return NULL;
}

ember_status *em_shape_labelencoder(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_attr *vt = em_node_attr(n, "values_tensor");
    *out = in[0];
    out->value = NULL;
    if (vt != NULL && vt->type == EM_ATTR_TENSOR) {
        out->dtype = vt->t.dtype;
    } else if (em_node_attr(n, "values_int64s") != NULL) {
        out->dtype = EMBER_DTYPE_I64;
    } else if (em_node_attr(n, "values_floats") != NULL) {
        out->dtype = EMBER_DTYPE_F32;
    } else if (em_node_attr(n, "values_strings") != NULL) {
        out->dtype = (ember_dtype)8; /* ONNX's STRING */
    } else {
        return em_shape_bad(n, "no values_* attribute");
    }
    return NULL;
}

ember_status *em_shape_treeensemble(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    int64_t targets = em_node_attr_int(n, "n_targets", -1);
    if (x->dtype != EMBER_DTYPE_F32 && x->dtype != EMBER_DTYPE_F64 &&
        x->dtype != EMBER_DTYPE_F16 && x->dtype != EMBER_DTYPE_UNDEFINED) {
        return em_shape_bad(n, "input 0 (X) must be float, double or float16");
    }
    if (x->rank >= 0 && x->rank != 2) {
        return em_shape_bad(n, "input 0 (X) must be 2-D [N, features]");
    }
    if (targets < 1) {
        return em_shape_bad(n, "attribute 'n_targets' must be given and positive");
    }
    out->dtype = x->dtype;
    out->rank = 2;
    out->dims[0] = x->rank == 2 ? x->dims[0] : em_dim_unknown();
    out->dims[1] = em_dim_known(targets);
    return NULL;
}
