/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry points of the dyn family's reference kernels (kernels_dyn.def): ops whose output
 * shapes depend on input data. Included by ref.h.
 *
 * The planner computes the output shapes from the same data the kernel later reads (shape
 * functions in runtime/shape/shape_dyn.c, with the plan keyed on those values), so a kernel fills
 * outputs it never resizes. Should run-time data disagree with the planned shape anyway, the
 * kernel writes what fits and zeroes the rest. Any dtype: elements are compared by value
 * (em_dyn_nonzero, em_dyn_unique_sort) and copied as bytes.
 */
#ifndef EMBER_KERNELS_REF_DYN_REF_H
#define EMBER_KERNELS_REF_DYN_REF_H

#include "ir/dyn.h"
#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

#define EM_DYN_REF_DECL(fn)                                                                        \
    ember_status *em_##fn##_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes); \
    void em_##fn##__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* dyn_select_ref.c: NonZero-13 (0-D input: one coordinate row, as numpy) and Compress-11
 * (optional axis; without it the input is flattened; slices past the condition's end are
 * dropped). */
EM_DYN_REF_DECL(nonzero)
EM_DYN_REF_DECL(compress)

/* dyn_unique_ref.c: Unique-11, outputs Y, indices, inverse_indices, counts (the last three
 * optional), sorted 0/1, optional axis (negative counts from the end). Needs 6 * n int64 of
 * scratch (n = slices along the axis, or elements). */
EM_DYN_REF_DECL(unique)

#undef EM_DYN_REF_DECL

/* dyn_select_ref.c: reads the optional int attribute 'axis' (negative counts from the end) and
 * views input 0 as [outer, len, inner] around it; without one, axis = -1 and [1, numel, 1]. */
ember_status *em_dyn_axis_view(const em_kinfo *ki, int *axis, int64_t *outer, int64_t *len,
                               int64_t *inner);

/* The element rules (em_dyn_nonzero, em_dyn_unique_sort) are in runtime/ir/dyn.h. */

#endif /* EMBER_KERNELS_REF_DYN_REF_H */
