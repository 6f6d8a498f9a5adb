/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry points of the attn family's reference kernels (kernels_attn.def) and the helpers they
 * share (attn_common_ref.c). Included by ref.h. The kernels take any dtype (UNDEFINED) and
 * decline in prepare the ones they do not handle: f16, bf16, f32 and f64 data, computed in
 * double. Where the ONNX reference implementation rounds an intermediate to the tensors' dtype
 * (Attention's scaled Q and K, its scores and probabilities), the kernels round there too, so
 * that f16 / bf16 results follow the reference to the last bit in most elements.
 */
#ifndef EMBER_KERNELS_REF_ATTN_REF_H
#define EMBER_KERNELS_REF_ATTN_REF_H

#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

#define EM_ATTN_REF_DECL(prep, run)                                                                \
    ember_status *prep(const em_kinfo *ki, void **state, size_t *scratch_bytes);                   \
    void run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* attn_sdpa_ref.c: Attention-23/24/25: 3-D and 4-D Q/K/V, GQA, is_causal (bottom-right),
 * attn_mask (bool or additive, broadcast, a short last dim padded with -inf), past / present
 * key and value, nonpad_kv_seqlen, left / right window, scale, softcap, softmax_precision and
 * qk_matmul_output (modes 0-3). Fully masked rows give zeros. Needs scratch (per thread). */
EM_ATTN_REF_DECL(em_attention_prepare__ref, em_attention__ref)

/* attn_norm_ref.c: RMSNormalization-23 (axis, epsilon, scale broadcast to X) and
 * GroupNormalization-21 (per-channel scale and bias; the loader rewrites opset 18's per-group
 * ones). Statistics in double. */
EM_ATTN_REF_DECL(em_rmsnorm_prepare__ref, em_rmsnorm__ref)
EM_ATTN_REF_DECL(em_groupnorm_prepare__ref, em_groupnorm__ref)

/* attn_rope_ref.c: RotaryEmbedding-23 (3-D / 4-D, interleaved, rotary_embedding_dim, with or
 * without position_ids) and TensorScatter-24 (linear / circular, any dtype, in place). */
EM_ATTN_REF_DECL(em_rotary_prepare__ref, em_rotary__ref)
EM_ATTN_REF_DECL(em_tensorscatter_prepare__ref, em_tensorscatter__ref)

/* attn_linear_ref.c: LinearAttention-27 (linear / gated / delta / gated_delta, GQA, per-key or
 * per-head decay, per-head or shared beta) and CausalConvWithState-27 (depthwise causal conv
 * with carry state, optional bias, silu / swish). Need scratch. */
EM_ATTN_REF_DECL(em_linearattention_prepare__ref, em_linearattention__ref)
EM_ATTN_REF_DECL(em_causalconv_prepare__ref, em_causalconv__ref)

#undef EM_ATTN_REF_DECL

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
