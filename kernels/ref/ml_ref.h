/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry points of the ml family's reference kernels (kernels_ml.def): ops of domain
 * ai.onnx.ml. Included by ref.h. Element values go through em_tref_get / em_tref_set (the
 * tensor family's dtype helpers); kernel states are one allocation each (freed by em_free).
 */
#ifndef EMBER_KERNELS_REF_ML_REF_H
#define EMBER_KERNELS_REF_ML_REF_H

#include "plan/kernel.h"

#define EM_ML_REF_DECL(fn)                                                                         \
    ember_status *em_##fn##_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes); \
    void em_##fn##__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* ml_ref.c: ArrayFeatureExtractor-1 (any fixed-size dtype; indices counted from the end when
 * negative; an index out of range gives 0 at run time and an error when the indices are
 * constant), Binarizer-1 (float, double, int32, int64: 1 where x > threshold, else 0),
 * LabelEncoder-4 (keys int64/int32/int16 or float/double, from keys_* lists or keys_tensor;
 * values likewise plus their default; a repeated key maps to its last value; NaN keys match
 * NaN inputs). */
EM_ML_REF_DECL(arrayfeatureextractor)
EM_ML_REF_DECL(binarizer)
EM_ML_REF_DECL(labelencoder)

/* ml_tree_ref.c: TreeEnsemble-5 (float, double, float16): node modes LEQ LT GTE GT EQ NEQ
 * MEMBER, missing values to the true branch where asked, aggregate AVERAGE SUM MIN MAX,
 * post_transform NONE SOFTMAX LOGISTIC SOFTMAX_ZERO PROBIT. Trees are checked in prepare:
 * indices in range, no cycles, one membership set per MEMBER node. */
EM_ML_REF_DECL(treeensemble)

#undef EM_ML_REF_DECL

#endif /* EMBER_KERNELS_REF_ML_REF_H */
