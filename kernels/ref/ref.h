/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Portable reference kernels: the CPU fallback for every op in ops.def and the oracle that
 * optimized kernels are tested against. Semantics follow the ONNX operator spec. They favour
 * clarity over speed, accumulate sums and dot products in double, and are built with
 * -ffp-contract=off so results do not depend on FMA fusion.
 *
 * Every kernel is one line in kernels.def; table.c expands it into em_ref_table. Each
 * `prepare` validates the node (dtypes, ranks, attributes, and the output shapes the planner
 * inferred) and returns INVALID_MODEL (malformed node) or UNSUPPORTED (valid but not handled
 * here) with a message naming the node and op. It parses attributes into a small per-op state
 * allocated with em_malloc(ki->al, ...) and freed with em_free (`release` is NULL but where a
 * state holds more: the text family's compiled regex and C locale). Scratch is rare
 * (StringSplit's pieces). `run` makes no allocation, but for the strings that text kernels make
 * in their output's arena (runtime/core/strtensor.h), and may use ctx->pool.
 */
#ifndef EMBER_KERNELS_REF_REF_H
#define EMBER_KERNELS_REF_REF_H

#include "plan/kernel.h"
#include "core/status.h"

/* The op families, each with its own kernels_<family>.def and header. */
#include "attn_ref.h"
#include "blocked_ref.h"
#include "dyn_ref.h"
#include "loss_ref.h"
#include "math_ref.h"
#include "ml_ref.h"
#include "image_ref.h"
#include "nn_ref.h"
#include "quant_ref.h"
#include "random_ref.h"
#include "reduce_ref.h"
#include "rnn_ref.h"
#include "signal_ref.h"
#include "tensor_ref.h"
#include "text_ref.h"
#include "train_ref.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every reference kernel (device CPU, isa 0, priority 0). */
extern const em_kernel_table em_ref_table;

/* ---- Kernel entry points (see kernels.def for the op and dtype of each) ------------------ */

/* conv_ref.c: Conv f32, N-D spatial (NCHW, NCW, NCDHW, ...), groups, optional bias. */
ember_status *em_conv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_conv_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
/* conv_ref.c: FusedConv f32 (Conv + bias + residual Z + activation, runtime/ir/fusedconv.h), plain
 * or channel-blocked (attribute `blocked`, 2-D). layout_ref.c: ReorderToBlocked /
 * ReorderFromBlocked f32, and the block / unblock loops ([N, C, plane] <-> [N, C/b, plane, b],
 * zero lanes past C). */
ember_status *em_fusedconv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_fusedconv_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx);
ember_status *em_toblocked_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
ember_status *em_fromblocked_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_toblocked_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx);
void em_fromblocked_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx);
void em_ref_block(const float *src, float *dst, int64_t n, int64_t c, int64_t plane, int64_t b);
void em_ref_unblock(const float *src, float *dst, int64_t n, int64_t c, int64_t plane, int64_t b);

/* gemm_ref.c: Gemm f32 (alpha, beta, transA, transB, broadcast C) and MatMul f32 (numpy). */
ember_status *em_gemm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_gemm_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
ember_status *em_matmul_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_matmul__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* eltwise_ref.c: unary activations (f32) and broadcasting binary arithmetic. out[0] may be
 * in[0] exactly (in-place). */
ember_status *em_unary_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_relu_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
void em_sigmoid_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx);
void em_tanh_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
ember_status *em_binary_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
#define EM_REF_BINARY_DECL(op, sig)                                                                \
    void em_##op##_##sig##__ref(const void *state, const em_tensor *in, em_tensor *out,            \
                                const em_kctx *ctx);
#define EM_REF_BINARY_DECL_ALL(op)                                                                 \
    EM_REF_BINARY_DECL(op, f32)                                                                    \
    EM_REF_BINARY_DECL(op, f64)                                                                    \
    EM_REF_BINARY_DECL(op, i32)                                                                    \
    EM_REF_BINARY_DECL(op, i64)
EM_REF_BINARY_DECL_ALL(add)
EM_REF_BINARY_DECL_ALL(sub)
EM_REF_BINARY_DECL_ALL(mul)
EM_REF_BINARY_DECL_ALL(div)
#undef EM_REF_BINARY_DECL_ALL
#undef EM_REF_BINARY_DECL

/* pool_ref.c: MaxPool (optional Indices output, storage_order; f16 bf16 f32 f64 i8 u8), AveragePool
 * and LpPool (nn_ref.h; f16 bf16 f32 f64), N-D spatial, sharing one run; GlobalAveragePool and the
 * GlobalMaxPool / GlobalLpPool of nn_ref.h (f16 bf16 f32 f64), sharing another. */
ember_status *em_maxpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
ember_status *em_avgpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_pool__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
ember_status *em_globalavgpool_prepare__ref(const em_kinfo *ki, void **state,
                                            size_t *scratch_bytes);
void em_globalpool__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* widen_ref.c: f16 / bf16 nodes run by an f32 kernel on widened copies in scratch (Conv,
 * MatMul). */
ember_status *em_conv_widen_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
ember_status *em_matmul_widen_prepare__ref(const em_kinfo *ki, void **state,
                                           size_t *scratch_bytes);
void em_widen_release__ref(const ember_allocator *al, void *state);
void em_widen__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* softmax_ref.c: Softmax f32 along one axis (opset 13). */
ember_status *em_softmax_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_softmax_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx);

/* shape_ref.c: Reshape, Flatten, Identity for any dtype: a byte copy, skipped when the
 * planner aliased the output to the input. */
ember_status *em_copy_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_copy__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* batchnorm_ref.c: BatchNormalization-15 f32, inference and training_mode (batch statistics,
 * optional running_mean / running_var outputs). */
ember_status *em_batchnorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_batchnorm_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx);

/* ---- Helpers shared by the reference kernels (common_ref.c) ------------------------------ */

/* A status "node '<name>' (<Op>): <message>" with `code`. */
ember_status *em_ref_error(const em_kinfo *ki, ember_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Checks n_in in [min_in, max_in] and n_out in [1, max_out] (more outputs: UNSUPPORTED). */
ember_status *em_ref_check_arity(const em_kinfo *ki, int min_in, int max_in, int max_out);
/* True when optional input i is given (present and not of dtype UNDEFINED). */
bool em_ref_has_input(const em_kinfo *ki, int i);
/* Checks t's dtype (UNDEFINED: any valid dtype), its rank (0..EM_MAX_RANK) and that its dims
 * are >= 0 with a product that fits int64_t. `what` names the tensor ("input 1 (W)"). */
ember_status *em_ref_check_tensor(const em_kinfo *ki, const em_tensor *t, ember_dtype dt,
                                  const char *what);
/* Checks that X is [N, C, spatial...] (rank >= 3) and, when `w` is not NULL, that the weight
 * W has X's rank (convolutions, pools, unpooling). */
ember_status *em_ref_check_nc_spatial(const em_kinfo *ki, const em_tensor *x,
                                      const em_tensor *w);
/* Checks that `t` (an output) has exactly the shape dims[0..rank). */
ember_status *em_ref_check_shape(const em_kinfo *ki, const em_tensor *t, const int64_t *dims,
                                 int rank, const char *what);
/* Typed attribute readers: `dflt` when absent, INVALID_MODEL when of another type. */
ember_status *em_ref_attr_int(const em_kinfo *ki, const char *name, int64_t dflt, int64_t *v);
ember_status *em_ref_attr_float(const em_kinfo *ki, const char *name, float dflt, float *v);
ember_status *em_ref_attr_string(const em_kinfo *ki, const char *name, const char *dflt,
                                 const char **v);
/* Reads exactly n ints; fills `dflt` when absent (then *present = false; present may be
 * NULL). INVALID_MODEL on a count other than n. */
ember_status *em_ref_attr_ints(const em_kinfo *ki, const char *name, int n, int64_t dflt,
                               int64_t *v, bool *present);
/* Allocates the kernel state as a copy of `src` (em_malloc on ki->al) into *state. */
ember_status *em_ref_state_new(const em_kinfo *ki, const void *src, size_t size, void **state);

/*
 * Sliding-window geometry of Conv and the pooling ops over `n_sp` spatial axes. Input
 * coordinate of tap t of output position o on axis d:
 *     o * stride[d] - pad_begin[d] + t * dilation[d],   t in [0, kernel[d])
 * pad_end is kept for count_include_pad; the kernels only need pad_begin.
 */
typedef struct em_ref_window {
    int n_sp;
    int64_t in[EM_MAX_RANK];
    int64_t out[EM_MAX_RANK];
    int64_t kernel[EM_MAX_RANK];
    int64_t stride[EM_MAX_RANK];
    int64_t dilation[EM_MAX_RANK];
    int64_t pad_begin[EM_MAX_RANK];
    int64_t pad_end[EM_MAX_RANK];
} em_ref_window;

/*
 * Parses kernel_shape, strides, dilations, pads and auto_pad, and computes the output size of
 * each spatial axis (ONNX Conv-11 / MaxPool-12 / AveragePool-19). `kernel` is the kernel
 * taken from the weights (Conv: kernel_shape is then optional and must agree) or NULL
 * (pooling: kernel_shape is required). `ceil_mode` rounds the output size up with explicit
 * pads, dropping a last window that would start in the end padding; with auto_pad the spec's
 * output sizes do not depend on it.
 */
ember_status *em_ref_window_parse(const em_kinfo *ki, int n_sp, const int64_t *in_sp,
                                  const int64_t *kernel, bool ceil_mode, em_ref_window *w);

/* The taps t in [*lo, *hi) of a window starting at input coordinate `start` (possibly
 * negative) with `k` taps spaced `dil` apart that fall inside [0, in). Empty: *lo == *hi. */
static inline void em_ref_taps(int64_t start, int64_t k, int64_t dil, int64_t in, int64_t *lo,
                               int64_t *hi)
{
    int64_t l = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int64_t h = start >= in ? 0 : (in - 1 - start) / dil + 1;
    if (h > k) {
        h = k;
    }
    if (l > h) {
        l = h;
    }
    *lo = l;
    *hi = h;
}

/* Advances a row-major coordinate (an odometer) over dims[0..rank). */
static inline void em_ref_coord_next(int64_t *c, const int64_t *dims, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++c[d] < dims[d]) {
            return;
        }
        c[d] = 0;
    }
}

/* Product of dims[0..rank) of a tensor em_ref_check_tensor accepted (no overflow). */
static inline int64_t em_ref_prod(const int64_t *dims, int rank)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        n *= dims[d];
    }
    return n;
}

#endif /* EMBER_KERNELS_REF_REF_H */
