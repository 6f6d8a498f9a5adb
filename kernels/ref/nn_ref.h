/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry points of the nn family's reference kernels (kernels_nn.def) and the helpers they share
 * (nn_common_ref.c). Included by ref.h. Each kernel takes any dtype and switches on it inside;
 * prepare declines (UNSUPPORTED) the dtypes it does not handle. Values are computed in double
 * and stored once: floats rounded to nearest, integers truncated toward zero and saturated.
 */
#ifndef EMBER_KERNELS_REF_NN_REF_H
#define EMBER_KERNELS_REF_NN_REF_H

#include "ir/dyn.h"
#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

#define EM_NN_REF_DECL(prep, run)                                                                  \
    ember_status *prep(const em_kinfo *ki, void **state, size_t *scratch_bytes);                   \
    void run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* nn_convt_ref.c: ConvTranspose (opset 11/22): N-D, group, strides, dilations, pads, auto_pad,
 * output_padding, output_shape, kernel_shape, optional B; f16 bf16 f32 f64. */
EM_NN_REF_DECL(em_convtranspose_prepare__ref, em_convtranspose__ref)

/* nn_convt_ref.c: DeformConv-22, 2-D (group, offset_group, optional B and mask); f16 bf16 f32
 * f64. */
EM_NN_REF_DECL(em_deformconv_prepare__ref, em_deformconv__ref)

/* nn_misc_ref.c: Col2Im-18 (N-D; block_shape known when planning; floats and i8 u8 i32 i64) and
 * CenterCropPad-18 (axes; any dtype). */
EM_NN_REF_DECL(em_col2im_prepare__ref, em_col2im__ref)
EM_NN_REF_DECL(em_centercroppad_prepare__ref, em_centercroppad__ref)

/* nn_resize_ref.c: Resize-19: scales or sizes, axes, roi (tf_crop_and_resize), modes nearest /
 * linear / cubic on any axes, every coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
 * exclude_outside, antialias, keep_aspect_ratio_policy, extrapolation_value; f16 bf16 f32 f64 i8 u8
 * i32 i64. */
EM_NN_REF_DECL(em_resize_prepare__ref, em_resize__ref)

/* nn_detect_ref.c: NonMaxSuppression-11 (f32 boxes and scores, center_point_box) and
 * RoiAlign-16 (avg / max, half_pixel / output_half_pixel; f16 bf16 f32 f64). */
EM_NN_REF_DECL(em_nms_prepare__ref, em_nms__ref)
EM_NN_REF_DECL(em_roialign_prepare__ref, em_roialign__ref)

/* nn_grid_ref.c: GridSample-20 (N-D; linear / nearest / cubic, also bilinear / bicubic of
 * opset 16; padding zeros / border / reflection; align_corners; f16 bf16 f32 f64). */
EM_NN_REF_DECL(em_gridsample_prepare__ref, em_gridsample__ref)
/* nn_grid_ref.c: AffineGrid-20 (2-D and 3-D, align_corners; f16 bf16 f32 f64). */
EM_NN_REF_DECL(em_affinegrid_prepare__ref, em_affinegrid__ref)

/* nn_pool_ref.c: LpPool-18 (p, dilations, ceil_mode; runs em_pool__ref of ref.h), GlobalMaxPool and
 * GlobalLpPool (run em_globalpool__ref); f16 bf16 f32 f64. */
ember_status *em_lppool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
ember_status *em_globalmaxpool_prepare__ref(const em_kinfo *ki, void **state,
                                            size_t *scratch_bytes);
ember_status *em_globallppool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);

/* nn_unpool_ref.c: MaxUnpool (optional output_shape input), any numeric dtype. */
EM_NN_REF_DECL(em_maxunpool_prepare__ref, em_maxunpool__ref)

#undef EM_NN_REF_DECL

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

/* NonMaxSuppression's selection (em_nms_select) is in runtime/ir/dyn.h. */

#endif /* EMBER_KERNELS_REF_NN_REF_H */
