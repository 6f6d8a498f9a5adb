/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The helpers the tensor family's reference kernels share (tensor_common_ref.c); their entry
 * points are declared by ref.h from kernels_tensor.def. Included by ref.h.
 *
 * Most of these ops only move or index elements, so one kernel serves every dtype: it copies
 * elements of em_dtype_size bytes. Inputs whose values decide the output shape (Slice's
 * starts, Pad's pads, ...) may lack data in prepare (not constant at plan time); prepare then
 * checks what it can, and run re-reads them. Run cannot fail: where run-time values disagree
 * with the planned output shape (impossible when the planner keys plans on those values), the
 * output is zeroed; an out-of-range index gathers zeros and a scatter skips it. Prepare reports
 * both when the inputs are constant.
 */
#ifndef EMBER_KERNELS_REF_TENSOR_REF_H
#define EMBER_KERNELS_REF_TENSOR_REF_H

#include "core/lowp.h"
#include "plan/kernel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- shared helpers (tensor_common_ref.c) -------------------------------------------------- */

/* IEEE half and bfloat16 <-> float: runtime/core/lowp.h's (round to nearest even). */
#define em_tref_f16_to_f32 em_f16_to_f32
#define em_tref_f32_to_f16 em_f32_to_f16
#define em_tref_bf16_to_f32 em_bf16_to_f32
#define em_tref_f32_to_bf16 em_f32_to_bf16

/* Element i of a numeric tensor as double, and the store back (rounded / converted as C
 * does for floats; integers: truncated toward zero and wrapped, NaN -> 0; bool: != 0; the
 * low-precision types of runtime/core/lowp.h: decoded, and stored by Cast's rules, saturating). */
double em_tref_get(ember_dtype dt, const void *p, int64_t i);
void em_tref_set(ember_dtype dt, void *p, int64_t i, double v);

/* Element i of an int32 / int64 tensor (other dtypes: 0). */
int64_t em_tref_index(const em_tensor *t, int64_t i);

/* Reads a 0-D or 1-D int32/int64 tensor with data into v[0..*count), at most `max` entries.
 * False when the dtype, rank or count does not fit. */
bool em_tref_ints(const em_tensor *t, int64_t *v, int max, int *count);

/* Normalizes `axis` (negative counts from the end) into [0, rank) or fails naming the node. */
ember_status *em_tref_axis(const em_kinfo *ki, int64_t axis, int rank, int *out);

/* Row-major strides, in elements. */
void em_tref_strides(const int64_t *dims, int rank, int64_t *strides);

/* out (dense, shape dims[0..rank)) gets, at coordinate c, the element of `in` at element
 * offset base + sum c[d] * strides[d] (strides may be negative or 0). */
void em_tref_strided_copy(size_t esize, int rank, const int64_t *dims, const void *in, int64_t base,
                          const int64_t *strides, void *out);

/* Copies one element of `esize` bytes (fixed-size memcpy for the common sizes). */
static inline void em_tref_copy1(size_t esize, void *dst, const void *src)
{
    switch (esize) {
    case 1:
        memcpy(dst, src, 1);
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, esize);
        break;
    }
}

#endif /* EMBER_KERNELS_REF_TENSOR_REF_H */
