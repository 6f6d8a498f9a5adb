/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Portable reference kernels: the CPU fallback for every op in ops.def and the oracle that
 * optimized kernels are tested against. Semantics follow the ONNX operator spec. They favour
 * clarity over speed, accumulate sums and dot products in double, and are built with
 * -ffp-contract=off so results do not depend on FMA fusion.
 *
 * Every kernel is one line in its family's kernels_<family>.def (kernels.def includes them all),
 * which also says what each kernel handles; table.c expands the list into em_ref_table and this
 * header into the declarations of the functions the rows name. Each
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

/* The helpers shared within a family: <family>_ref.h (a family without any has none). */
#include "attn_ref.h"
#include "dyn_ref.h"
#include "math_ref.h"
#include "image_ref.h"
#include "nn_ref.h"
#include "quant_ref.h"
#include "random_ref.h"
#include "reduce_ref.h"
#include "rnn_ref.h"
#include "tensor_ref.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every reference kernel (device CPU, isa 0, priority 0). */
extern const em_kernel_table em_ref_table;

/* ---- Kernel entry points, declared from kernels.def -------------------------------------- */

/* Every prepare, release and run that a row of kernels.def names, declared with kernel.h's
 * function types, so that the list is the one place a kernel is written down (and a definition
 * of another type fails to compile); a function that serves several rows is declared once per
 * row. A NULL prepare or release declares nothing: EM_REF_DECLARE pastes the argument as
 * written onto EM_REF_NULL_, which is a macro only for NULL (expanding to a comma and
 * EM_REF_SKIP, so that EM_REF_PICK selects EM_REF_SKIP); for a function's name the paste is a
 * plain identifier and EM_REF_PICK selects EM_REF_DECL. */
#define EM_REF_PICK(a, b, ...) b
#define EM_REF_PICK_(...) EM_REF_PICK(__VA_ARGS__)
#define EM_REF_NULL_NULL ~, EM_REF_SKIP
#define EM_REF_DECL(type, f) type f;
#define EM_REF_SKIP(type, f)
#define EM_REF_DECLARE(probe, type, f) EM_REF_PICK_(probe, EM_REF_DECL, ~)(type, f)
#define EM_KERNEL(name, op, dt, prepare, release, run)                                             \
    EM_REF_DECLARE(EM_REF_NULL_##prepare, em_kprepare_proto, prepare)                             \
    EM_REF_DECLARE(EM_REF_NULL_##release, em_krelease_proto, release)                             \
    em_krun_proto run;
#include "kernels.def"
#undef EM_KERNEL
#undef EM_REF_DECLARE
#undef EM_REF_SKIP
#undef EM_REF_DECL
#undef EM_REF_NULL_NULL
#undef EM_REF_PICK_
#undef EM_REF_PICK

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
