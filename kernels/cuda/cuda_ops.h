/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA kernel directory's interface, valid C and C++ (the .cu files are C++): the device
 * query, the launch wrappers of the hand-written kernels, device-memory helpers for the
 * runtime and tests, the table and the prototypes of its entries (from kernels.def).
 * No CUDA header is included here: streams travel as `void *` (a cudaStream_t) and errors as
 * int (a cudaError_t, 0 = success), so C units that include this need no toolkit headers.
 *
 * Device kernels run asynchronously on cudaStreamPerThread (the calling host thread's default
 * stream; it synchronises with the legacy default stream, which plain cudaMemcpy uses), so
 * concurrent runs from different host threads do not serialise on one stream. em_kctx has no
 * stream field yet: whoever copies results back must synchronise that stream (or use
 * em_cuda_sync / a blocking cudaMemcpy on the same thread).
 */
#ifndef EMBER_KERNELS_CUDA_CUDA_OPS_H
#define EMBER_KERNELS_CUDA_CUDA_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 when there is no device, no driver (libcuda missing) or
 * any other error. Never crashes or aborts. Threads: any. */
int em_cuda_device_count(void);

/* Launch wrappers (relu_add.cu, bcast_fill.cu): enqueue on `stream` and return the launch
 * status. Pointers are device pointers; n may be 0. y may equal x / a (in place). */
int em_cuda_relu_f32(const float *x, float *y, int64_t n, void *stream);
int em_cuda_add_f32(const float *a, const float *b, float *y, int64_t n, void *stream);
/* y[i, j] = beta * c[i * c_rs + j * c_cs] for an m x n row-major y; c == NULL writes zeros.
 * A stride of 0 broadcasts that axis. */
int em_cuda_bcast_fill_f32(const float *c, int64_t c_rs, int64_t c_cs, float beta, float *y,
                           int64_t m, int64_t n, void *stream);

/* Device memory for the runtime and the tests (cuda_device.c). 0 on success. */
int em_cuda_malloc(void **p, size_t bytes);
void em_cuda_free(void *p);
int em_cuda_memcpy_h2d(void *dst, const void *src, size_t bytes);
int em_cuda_memcpy_d2h(void *dst, const void *src, size_t bytes);
/* Waits for the calling thread's stream (cudaStreamPerThread). */
int em_cuda_sync(void);

#ifdef __cplusplus
}
#endif

/* The table and its entries need the kernel interface: C only. */
#ifndef __cplusplus
#include "plan/kernel.h"

extern const em_kernel_table em_cuda_table;

/* The release of stateless kernels (their prepare leaves *state NULL). */
void em_cuda_release_none(const ember_allocator *al, void *state);

#define EM_CUDA_KERNEL(name, op, dt, prio, prepare, release, run)                                  \
    ember_status *prepare(const em_kinfo *ki, void **state, size_t *scratch_bytes);                \
    void release(const ember_allocator *al, void *state);                                          \
    void run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
#include "kernels.def"
#undef EM_CUDA_KERNEL
#endif

#endif /* EMBER_KERNELS_CUDA_CUDA_OPS_H */
