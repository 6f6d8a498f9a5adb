/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The helpers the nn family's reference kernels share (nn_common_ref.c, nn_layout_ref.c). Their
 * entry points are declared by ref.h from kernels_nn.def. Included by ref.h. Past the
 * foundation set, each kernel takes any dtype and switches on it inside; prepare declines
 * (UNSUPPORTED) the dtypes it does not handle. Values are computed in double and stored once:
 * floats rounded to nearest, integers truncated toward zero and saturated.
 */
#ifndef EMBER_KERNELS_REF_NN_REF_H
#define EMBER_KERNELS_REF_NN_REF_H

#include "ir/dyn.h"
#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- Helpers shared by the nn family's kernels (nn_common_ref.c) ------------------------- */

#define EM_NN_BIT(dt) (1u << EMBER_DTYPE_##dt)
#define EM_NN_FLOATS (EM_NN_BIT(F16) | EM_NN_BIT(BF16) | EM_NN_BIT(F32) | EM_NN_BIT(F64))
#define EM_NN_INTS (EM_NN_BIT(I8) | EM_NN_BIT(U8) | EM_NN_BIT(I32) | EM_NN_BIT(I64))

/* UNSUPPORTED naming `what` when t's dtype is not in `mask` (bits EM_NN_BIT). */
ember_status *em_nn_check_dtype(const em_kinfo *ki, const em_tensor *t, uint32_t mask,
                                const char *what);
/* Element i of p (dtype dt) as double. */
double em_nn_get(ember_dtype dt, const void *p, int64_t i);
/* Stores v into element i: floats rounded to nearest; integers (i8 u8 i32 i64) truncated toward
 * zero and saturated at the dtype's range (NaN gives 0); other dtypes are not stored. */
void em_nn_set(ember_dtype dt, void *p, int64_t i, double v);
/* The lowest finite value of a dtype (a max over nothing). */
double em_nn_lowest(ember_dtype dt);
/* A string attribute that must be one of names[0..n): its index into *out (dflt when absent);
 * INVALID_MODEL listing the accepted names otherwise. */
ember_status *em_nn_attr_enum(const em_kinfo *ki, const char *name, const char *const *names, int n,
                              int dflt, int *out);
/* Keys' cubic convolution weights of the taps at floor - 1, floor, floor + 1, floor + 2 for a
 * point `t` in [0, 1] past floor, with coefficient a (-0.75: PyTorch, -0.5: TensorFlow). */
void em_nn_cubic_coeffs(double t, double a, double c[4]);

/* nn_layout_ref.c: the block / unblock loops of the channel-blocked layout ([N, C, plane] <->
 * [N, C/b, plane, b], zero lanes past C), shared with FusedConv's blocked form. */
void em_ref_block(const float *src, float *dst, int64_t n, int64_t c, int64_t plane, int64_t b);
void em_ref_unblock(const float *src, float *dst, int64_t n, int64_t c, int64_t plane, int64_t b);

/* NonMaxSuppression's selection (em_nms_select) is in runtime/ir/dyn.h. */

#endif /* EMBER_KERNELS_REF_NN_REF_H */
