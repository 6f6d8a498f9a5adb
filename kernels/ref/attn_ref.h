/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The helpers the attn family's reference kernels share (attn_common_ref.c); their entry points
 * are declared by ref.h from kernels_attn.def. Included by ref.h. The kernels take any dtype
 * (UNDEFINED) and decline in prepare the ones they do not handle: f16, bf16, f32 and f64 data,
 * computed in double. Where the ONNX reference implementation rounds an intermediate to the
 * tensors' dtype (Attention's scaled Q and K, its scores and probabilities), the kernels round
 * there too, so that f16 / bf16 results follow the reference to the last bit in most elements.
 */
#ifndef EMBER_KERNELS_REF_ATTN_REF_H
#define EMBER_KERNELS_REF_ATTN_REF_H

#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- Helpers shared by the attn family's kernels (attn_common_ref.c) ---------------------- */

/* The floating dtypes of the family, as a mask for em_nn_check_dtype. */
#define EM_ATTN_FLOATS                                                                             \
    ((1u << EMBER_DTYPE_F16) | (1u << EMBER_DTYPE_BF16) | (1u << EMBER_DTYPE_F32) |                \
     (1u << EMBER_DTYPE_F64))

/* em_ref_check_tensor plus a float dtype (EM_ATTN_FLOATS): UNSUPPORTED naming `what`
 * otherwise. */
ember_status *em_attn_check_float(const em_kinfo *ki, const em_tensor *t, const char *what);
/* Splits [0, n) into `slots` near-equal ranges: the range of slot s. */
void em_attn_slot_range(int64_t n, int64_t slots, int64_t s, int64_t *begin, int64_t *end);
/* The number of per-thread scratch slots for n independent items (1..n_threads, >= 1). */
int64_t em_attn_slots(const em_kinfo *ki, int64_t n);

#endif
