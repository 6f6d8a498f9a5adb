/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the loss family's reference kernels (kernels_loss.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_LOSS_REF_H
#define EMBER_KERNELS_REF_LOSS_REF_H

#include "plan/kernel.h"

/* loss_nll_ref.c: NegativeLogLikelihoodLoss-22 and SoftmaxCrossEntropyLoss-13 (one prepare and
 * one run for both), input f32 f64 f16 bf16 of shape [N, C, d1..dk], target int32/int64,
 * optional weight [C]; reduction none/sum/mean, ignore_index; SCE's optional log_prob. */
ember_status *em_loss_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_loss__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

#endif /* EMBER_KERNELS_REF_LOSS_REF_H */
