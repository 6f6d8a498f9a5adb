/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry points of the train family's reference kernels (kernels_train.def): the optimizers of
 * domain ai.onnx.preview.training (opset 1). Included by ref.h.
 */
#ifndef EMBER_KERNELS_REF_TRAIN_REF_H
#define EMBER_KERNELS_REF_TRAIN_REF_H

#include "plan/kernel.h"

/* train_optim_ref.c: Adagrad (decay_factor, epsilon, norm_coefficient), Adam (alpha, beta,
 * epsilon, norm_coefficient, norm_coefficient_post) and Momentum (alpha, beta, mode standard or
 * nesterov, norm_coefficient; all required). R f32/f64, T int64, tensors f32/f64 (each group
 * of one dtype), any number of optimized tensors; computed in double, rounded once. */
ember_status *em_optimizer_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_optimizer__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

#endif /* EMBER_KERNELS_REF_TRAIN_REF_H */
