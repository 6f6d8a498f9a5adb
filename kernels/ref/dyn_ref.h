/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The helper the dyn family's reference kernels share (ops whose output shapes depend on input
 * data); their entry points are declared by ref.h from kernels_dyn.def. Included by ref.h.
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

/* dyn_select_ref.c: reads the optional int attribute 'axis' (negative counts from the end) and
 * views input 0 as [outer, len, inner] around it; without one, axis = -1 and [1, numel, 1]. */
ember_status *em_dyn_axis_view(const em_kinfo *ki, int *axis, int64_t *outer, int64_t *len,
                               int64_t *inner);

/* The element rules (em_dyn_nonzero, em_dyn_unique_sort) are in runtime/ir/dyn.h. */

#endif /* EMBER_KERNELS_REF_DYN_REF_H */
