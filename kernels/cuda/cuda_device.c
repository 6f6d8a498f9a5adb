/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA device query, device-memory helpers, the elementwise (Relu, Add) entries and
 * em_cuda_table. Host code only: the device kernels live in the .cu files.
 *
 * em_cuda_device_count never fails loudly: on a machine with the toolkit but no GPU or no
 * driver (libcuda.so missing), cudaGetDeviceCount returns an error (no device / insufficient
 * driver), which we clear and report as 0 devices. prepare declines (UNSUPPORTED) without a
 * device, so the planner keeps the node on the CPU.
 * run cannot report errors (kernel.h): launch failures are cleared by the launch wrapper and
 * surface at the next synchronisation.
 */
#include "cuda_ops.h"

#include "core/status.h"

#include <cuda_runtime_api.h>

int em_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the error so later calls start clean */
        return 0;
    }
    return n;
}

int em_cuda_malloc(void **p, size_t bytes)
{
    *p = NULL;
    return (int)cudaMalloc(p, bytes == 0 ? 1 : bytes);
}

void em_cuda_free(void *p)
{
    if (p != NULL) {
        (void)cudaFree(p);
    }
}

int em_cuda_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) {
        return 0;
    }
    int e = (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cudaStreamPerThread);
    return e != 0 ? e : (int)cudaStreamSynchronize(cudaStreamPerThread);
}

int em_cuda_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) {
        return 0;
    }
    int e = (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread);
    return e != 0 ? e : (int)cudaStreamSynchronize(cudaStreamPerThread);
}

int em_cuda_sync(void)
{
    return (int)cudaStreamSynchronize(cudaStreamPerThread);
}

void em_cuda_release_none(const ember_allocator *al, void *state)
{
    (void)al;
    (void)state;
}

/* Relu: any f32 tensor; Add: same shapes only (broadcasting stays on the CPU reference). */
ember_status *em_eltwise_f32_prepare__cuda(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    int want_in = ki->node->op == EM_OP_RELU ? 1 : 2;
    const char *why = NULL;
    if (em_cuda_device_count() <= 0) {
        why = "no CUDA device";
    } else if (ki->n_in != want_in || ki->n_out != 1) {
        why = "arity";
    } else if (ki->out[0].dtype != EMBER_DTYPE_F32 || ki->in[0].dtype != EMBER_DTYPE_F32 ||
               (want_in == 2 && ki->in[1].dtype != EMBER_DTYPE_F32)) {
        why = "only f32";
    } else if (!em_tensor_same_shape(&ki->in[0], &ki->out[0]) ||
               (want_in == 2 && !em_tensor_same_shape(&ki->in[1], &ki->out[0]))) {
        why = "broadcasting is not supported on CUDA";
    }
    if (why != NULL) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': cuda: %s", em_op_name(ki->node->op),
                             ki->node->name, why);
    }
    return NULL;
}

void em_relu_f32__cuda(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)state;
    (void)ctx;
    (void)em_cuda_relu_f32(in[0].data, out[0].data, em_tensor_numel(&out[0]),
                           (void *)cudaStreamPerThread);
}

void em_add_f32__cuda(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)state;
    (void)ctx;
    (void)em_cuda_add_f32(in[0].data, in[1].data, out[0].data, em_tensor_numel(&out[0]),
                          (void *)cudaStreamPerThread);
}

/* clang-format off */
static const em_kernel cuda_kernels[] = {
#define EM_CUDA_KERNEL(name, op, dt, prio, prepare, release, run) \
    {#name, EM_OP_##op, EMBER_DTYPE_##dt, EM_DEV_CUDA, 0, (prio), prepare, release, run},
#include "kernels.def"
#undef EM_CUDA_KERNEL
};
/* clang-format on */

const em_kernel_table em_cuda_table = {"cuda", cuda_kernels,
                                       sizeof cuda_kernels / sizeof cuda_kernels[0], NULL};
