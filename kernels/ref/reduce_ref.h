/* SPDX-License-Identifier: Apache-2.0 */
/* The helpers the reduce family's reference kernels share (reduce_common_ref.c); their entry
 * points are declared by ref.h from kernels_reduce.def. Included by ref.h. */
#ifndef EMBER_KERNELS_REF_REDUCE_REF_H
#define EMBER_KERNELS_REF_REDUCE_REF_H

#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- Helpers shared by the reduce family's kernels (reduce_common_ref.c) ----------------- */

/* True for f32, f64, f16 and bf16, the floating dtypes this family computes in double. */
bool em_rd_is_float(ember_dtype dt);
/* True for the integer dtypes the family handles (i8 u8 i32 i64). */
bool em_rd_is_int(ember_dtype dt);
/* Element i of `p` (of dtype dt) as double / as int64 (bool: 0 or 1). */
double em_rd_load_f(const void *p, ember_dtype dt, int64_t i);
/* reduce_norm_ref.c: mean and (biased) variance of x[base + i * stride], i < n, in double,
 * two passes; NaN for n = 0. LayerNormalization, InstanceNormalization and
 * GroupNormalization use it. */
void em_rd_moments(const void *x, ember_dtype dt, int64_t base, int64_t n, int64_t stride,
                   double *mean, double *var);
int64_t em_rd_load_i(const void *p, ember_dtype dt, int64_t i);
/* Stores v into element i. Integers: a double is truncated toward zero and saturated at the
 * dtype's range (NaN gives 0), so no conversion is undefined; an int64 wraps to the width. */
void em_rd_store_f(void *p, ember_dtype dt, int64_t i, double v);
void em_rd_store_i(void *p, ember_dtype dt, int64_t i, int64_t v);
/* Normalises axis `a` of a rank-`rank` tensor into [0, rank); false when out of range. */
bool em_rd_axis(int64_t a, int rank, int *out);
/* Reads the single integer of a 0-D or 1-element 1-D i32/i64 tensor; false otherwise. */
bool em_rd_scalar_int(const em_tensor *t, int64_t *v);

/* A walk over the reduction of the axes in `mask` (bit d = axis d) of a C-ordered tensor:
 * group g (0 <= g < n_groups, row-major over the kept axes) has its first element at
 * em_rd_walk_base(w, g), and element r (0 <= r < n_red) of its sub-box at
 * em_rd_walk_offset(w, base, r). */
typedef struct em_rd_walk {
    int n_kept, n_red_axes;
    int64_t kept_dim[EM_MAX_RANK], kept_stride[EM_MAX_RANK];
    int64_t red_dim[EM_MAX_RANK], red_stride[EM_MAX_RANK];
    int64_t n_groups, n_red;
} em_rd_walk;
void em_rd_walk_init(em_rd_walk *w, const int64_t *dims, int rank, unsigned mask);
int64_t em_rd_walk_base(const em_rd_walk *w, int64_t g);
int64_t em_rd_walk_offset(const em_rd_walk *w, int64_t base, int64_t r);

#endif
