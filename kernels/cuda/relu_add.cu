/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Relu and Add on the device: grid-stride loops over 64-bit indices, 256 threads per
 * block, at most 4096 blocks (enough to fill any current GPU; the loop covers the rest).
 * Relu is `x < 0 ? 0 : x`, as the reference (NaN and -0 pass through).
 */
#include "cuda_ops.h"

#include <cuda_runtime.h>

/* File-local: static, not an anonymous namespace, which nvcc turns into global symbols. */
static constexpr int kThreads = 256;
static constexpr int64_t kMaxBlocks = 4096;

static unsigned blocks_for(int64_t n)
{
    int64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

static __global__ void relu_f32(const float *__restrict__ x, float *y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i];
        y[i] = v < 0.0f ? 0.0f : v;
    }
}

static __global__ void add_f32(const float *a, const float *b, float *y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        y[i] = a[i] + b[i];
    }
}

extern "C" int em_cuda_relu_f32(const float *x, float *y, int64_t n, void *stream)
{
    if (n <= 0) {
        return 0;
    }
    relu_f32<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(x, y, n);
    return (int)cudaGetLastError();
}

extern "C" int em_cuda_add_f32(const float *a, const float *b, float *y, int64_t n, void *stream)
{
    if (n <= 0) {
        return 0;
    }
    add_f32<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(a, b, y, n);
    return (int)cudaGetLastError();
}
