/* SPDX-License-Identifier: Apache-2.0 */
/* Rules of the ops whose output shapes depend on data (NonZero and Unique: shape_dyn.c;
 * NonMaxSuppression: shape_nn.c), shared by the shape functions, which count from the data,
 * and the reference kernels, which fill from it. */
#ifndef EMBER_IR_DYN_H
#define EMBER_IR_DYN_H

#include "ember.h"

#include <stdbool.h>
#include <stdint.h>

/* True when element i of `data` (of dtype dt) is nonzero (floats: != 0, so NaN counts). */
bool em_dyn_nonzero(ember_dtype dt, const void *data, int64_t i);
/* Sorts perm[0..n) stably by the value of slice perm[k] of `data` (n slices of outer * inner
 * elements, element (o, j) of slice i at (o * n + i) * inner + j), numpy's order (-0 == +0, NaN
 * after all numbers and equal to NaN), lexicographic within a slice. When group != NULL,
 * group[k] = the rank of slice perm[k] among the distinct slices. tmp: n entries of scratch.
 * Returns the number of distinct slices. */
int64_t em_dyn_unique_sort(ember_dtype dt, const void *data, int64_t outer, int64_t n,
                           int64_t inner, int64_t *perm, int64_t *tmp, int64_t *group);

/* NonMaxSuppression's selection, shared with its shape function (defined in runtime/shape/shape_nn.c,
 * documented there): bcn = {batches, classes, boxes}, work holds 2 * boxes entries, at most `cap`
 * rows [batch, class, box] go to sel; returns the number of boxes selected. */
int64_t em_nms_select(const float *boxes, const float *scores, const int64_t *bcn, int64_t max_out,
                      float iou_th, const float *score_th, int center, int64_t *work, int64_t *sel,
                      int64_t cap);

#endif /* EMBER_IR_DYN_H */
