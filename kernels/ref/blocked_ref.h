/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference kernels of the blocked twins (runtime/ir/blocked.h; nn_blocked_ref.c; rows in
 * kernels_nn.def): BlockedPool and BlockedAffine, f32. Included by ref.h.
 */
#ifndef EMBER_KERNELS_REF_BLOCKED_REF_H
#define EMBER_KERNELS_REF_BLOCKED_REF_H

#include "plan/kernel.h"

ember_status *em_blockedpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_blockedpool_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx);
ember_status *em_blockedaffine_prepare__ref(const em_kinfo *ki, void **state,
                                            size_t *scratch_bytes);
void em_blockedaffine_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                               const em_kctx *ctx);

#endif /* EMBER_KERNELS_REF_BLOCKED_REF_H */
