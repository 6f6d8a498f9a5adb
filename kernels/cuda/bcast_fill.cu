/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Y = beta * C broadcast to [M, N] (row-major), or zeros: the first step of Gemm on cuBLAS,
 * which then accumulates alpha * A * B onto Y with beta = 1.
 */
#include "cuda_ops.h"

#include <cuda_runtime.h>

/* File-local: static, not an anonymous namespace, which nvcc turns into global symbols. */
static constexpr int kThreads = 256;
static constexpr int64_t kMaxBlocks = 4096;

static __global__ void bcast_fill_f32(const float *c, int64_t c_rs, int64_t c_cs, float beta,
                                      float *y, int64_t m, int64_t n)
{
    int64_t total = m * n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i / n, col = i % n;
        y[i] = c != nullptr ? beta * c[r * c_rs + col * c_cs] : 0.0f;
    }
}

extern "C" int em_cuda_bcast_fill_f32(const float *c, int64_t c_rs, int64_t c_cs, float beta,
                                      float *y, int64_t m, int64_t n, void *stream)
{
    int64_t total = m * n;
    if (total <= 0) {
        return 0;
    }
    int64_t b = (total + kThreads - 1) / kThreads;
    unsigned blocks = (unsigned)(b > kMaxBlocks ? kMaxBlocks : b);
    bcast_fill_f32<<<blocks, kThreads, 0, (cudaStream_t)stream>>>(c, c_rs, c_cs, beta, y, m, n);
    return (int)cudaGetLastError();
}
