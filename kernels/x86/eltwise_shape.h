/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The checks shared by the elementwise f32 kernels of every ISA (plain C, no intrinsics):
 * Relu takes any f32 tensor; Add and Mul take the same-shape fast path only and decline
 * broadcasting with EMBER_ERR_UNSUPPORTED, so the planner falls back to the reference.
 * The kernels keep no state; run reads the element count from the output tensor.
 */
#ifndef EMBER_KERNELS_X86_ELTWISE_SHAPE_H
#define EMBER_KERNELS_X86_ELTWISE_SHAPE_H

#include "plan/kernel.h"
#include "core/status.h"

#include <stdint.h>

/* Elements per parallel work item: big enough to amortise the claim, small enough to split
 * a 1 M-element tensor into many items. A multiple of 16 so only the last item has a tail. */
#define EM_EW_BLOCK 16384

static inline ember_status *em_eltwise_check(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    int want_in = ki->node->op == EM_OP_RELU ? 1 : 2;
    const char *why = NULL;
    if (ki->n_in != want_in || ki->n_out != 1) {
        why = "arity";
    } else if (ki->out[0].dtype != EMBER_DTYPE_F32 || ki->in[0].dtype != EMBER_DTYPE_F32 ||
               (want_in == 2 && ki->in[1].dtype != EMBER_DTYPE_F32)) {
        why = "only f32";
    } else if (!em_tensor_same_shape(&ki->in[0], &ki->out[0]) ||
               (want_in == 2 && !em_tensor_same_shape(&ki->in[1], &ki->out[0]))) {
        why = "broadcasting is left to the reference kernel";
    }
    if (why != NULL) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': %s", em_op_name(ki->node->op),
                             ki->node->name, why);
    }
    return NULL;
}

#endif /* EMBER_KERNELS_X86_ELTWISE_SHAPE_H */
