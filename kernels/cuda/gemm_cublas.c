/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul on the device through cuBLAS (ONNX semantics, row-major tensors).
 * cuBLAS is column-major, so Y[M,N] = op(A) op(B) is computed as Y^T = op(B)^T op(A)^T:
 * cublasSgemm(opB, opA, N, M, K, B, ldb, A, lda, Y, N) with the row strides as leading
 * dimensions. Gemm's C is first broadcast into Y as beta * C (bcast_fill.cu), then Sgemm
 * adds alpha * A * B with beta = 1; without C, beta = 0 and Y is not read. MatMul batches
 * that share one B are folded into M; other batches are one Sgemm call each (with numpy
 * broadcasting of the batch dims).
 *
 * The handle is created in prepare (which declines without a device) and bound to
 * cudaStreamPerThread. cuBLAS handles must not be used by two host threads at once, so run
 * holds a small spin lock while it enqueues (the GPU work itself is asynchronous). The math
 * mode is cuBLAS's default: full f32, no TF32 (unless NVIDIA_TF32_OVERRIDE says otherwise).
 *
 * cuBLAS is not linked: merely mapping libcublasLt (over 500 MB) costs every process about
 * 150 MB of RSS and 100+ ms at start, CPU-only runs included. The five entry points used here
 * are resolved with dlopen on the first prepare that has a device to run on (once per
 * process; read-only afterwards: this is kernel-registry state).
 */
#define _POSIX_C_SOURCE 200809L
#include "cuda_ops.h"

#include "core/alloc.h"
#include "core/dl_util.h"
#include "core/status.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>

/* The cuBLAS entry points, by their exported (_v2) names. */
typedef struct cublas_api {
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const float *, const float *, int, const float *, int, const float *,
                            float *, int);
    const char *(*status_string)(cublasStatus_t);
    char error[256]; /* why loading failed; empty on success */
} cublas_api;

static cublas_api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

#define STR2(x) #x
#define STR(x) STR2(x)

static void api_load(void)
{
    static const char *const names[] = {"libcublas.so." STR(CUBLAS_VER_MAJOR), "libcublas.so"};
    void *h = em_dlopen_first(names, sizeof names / sizeof names[0], api.error, sizeof api.error);
    if (h == NULL) {
        return;
    }
    /* POSIX: a function pointer may be converted from dlsym's void *. */
    *(void **)&api.create = dlsym(h, "cublasCreate_v2");
    *(void **)&api.destroy = dlsym(h, "cublasDestroy_v2");
    *(void **)&api.set_stream = dlsym(h, "cublasSetStream_v2");
    *(void **)&api.sgemm = dlsym(h, "cublasSgemm_v2");
    *(void **)&api.status_string = dlsym(h, "cublasGetStatusString");
    if (!api.create || !api.destroy || !api.set_stream || !api.sgemm || !api.status_string) {
        snprintf(api.error, sizeof api.error, "%s lacks a cuBLAS entry point", names[0]);
    }
    /* The library stays loaded for the life of the process: handles may outlive any session. */
}

typedef struct cublas_gemm {
    cublasHandle_t handle;
    atomic_flag busy; /* held while enqueueing: mutable even though run sees const state */
    int64_t m, n, k, lda, ldb;
    bool trans_a, trans_b, has_c;
    float alpha, beta;
    int64_t c_rs, c_cs;
    int64_t batch;
    int batch_rank;
    int64_t batch_dims[EM_MAX_RANK], a_bstride[EM_MAX_RANK], b_bstride[EM_MAX_RANK];
} cublas_gemm;

static ember_status *decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': cuBLAS: %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

static bool all_f32(const em_kinfo *ki, int n)
{
    for (int i = 0; i < n; i++) {
        if (ki->in[i].dtype != EMBER_DTYPE_F32) {
            return false;
        }
    }
    return ki->n_out == 1 && ki->out[0].dtype == EMBER_DTYPE_F32;
}

static ember_status *parse_gemm(const em_kinfo *ki, cublas_gemm *g)
{
    const em_tensor *a = &ki->in[0], *b = &ki->in[1], *y = &ki->out[0];
    bool has_c = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    if (!all_f32(ki, has_c ? 3 : 2) || a->rank != 2 || b->rank != 2 || y->rank != 2) {
        return decline(ki, "f32 rank-2 A, B and Y only");
    }
    g->trans_a = em_node_attr_int(ki->node, "transA", 0) != 0;
    g->trans_b = em_node_attr_int(ki->node, "transB", 0) != 0;
    g->alpha = em_node_attr_float(ki->node, "alpha", 1.0f);
    g->beta = em_node_attr_float(ki->node, "beta", 1.0f);
    g->m = a->dims[g->trans_a ? 1 : 0];
    g->k = a->dims[g->trans_a ? 0 : 1];
    g->n = b->dims[g->trans_b ? 0 : 1];
    if (b->dims[g->trans_b ? 1 : 0] != g->k || y->dims[0] != g->m || y->dims[1] != g->n) {
        return decline(ki, "inconsistent shapes");
    }
    g->lda = a->dims[1];
    g->ldb = b->dims[1];
    g->batch = 1;
    if (has_c && g->beta != 0.0f) {
        const em_tensor *c = &ki->in[2];
        int64_t cm = c->rank == 2 ? c->dims[0] : 1, cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
        if (c->rank > 2 || (cm != 1 && cm != g->m) || (cn != 1 && cn != g->n)) {
            return decline(ki, "C does not broadcast to [M,N]");
        }
        g->has_c = true;
        g->c_rs = cm == 1 ? 0 : cn;
        g->c_cs = cn == 1 ? 0 : 1;
    }
    return NULL;
}

static ember_status *parse_matmul(const em_kinfo *ki, cublas_gemm *g)
{
    const em_tensor *a = &ki->in[0], *b = &ki->in[1], *y = &ki->out[0];
    if (ki->n_in != 2 || !all_f32(ki, 2) || a->rank < 1 || b->rank < 1) {
        return decline(ki, "f32 operands of rank >= 1 only");
    }
    g->alpha = 1.0f;
    g->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    g->k = a->dims[a->rank - 1];
    g->n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    if ((b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2]) != g->k) {
        return decline(ki, "inner dimensions differ");
    }
    g->lda = g->k;
    g->ldb = g->n;
    int ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
    int r = ra > rb ? ra : rb;
    int64_t sa = g->m * g->k, sb = g->k * g->n, a_mats = 1, b_mats = 1;
    g->batch_rank = r;
    g->batch = 1;
    for (int d = r - 1; d >= 0; d--) {
        int64_t da = d - (r - ra) >= 0 ? a->dims[d - (r - ra)] : 1;
        int64_t db = d - (r - rb) >= 0 ? b->dims[d - (r - rb)] : 1;
        if (da != db && da != 1 && db != 1) {
            return decline(ki, "batch dims do not broadcast");
        }
        g->batch_dims[d] = da == 1 ? db : da;
        g->a_bstride[d] = da == 1 ? 0 : sa;
        g->b_bstride[d] = db == 1 ? 0 : sb;
        sa *= da, sb *= db, a_mats *= da, b_mats *= db;
        g->batch *= g->batch_dims[d];
    }
    if (em_tensor_numel(y) != g->batch * g->m * g->n) {
        return decline(ki, "output size");
    }
    if (b_mats == 1 && a_mats == g->batch && a->rank >= 2) {
        g->m *= g->batch; /* A's batches are contiguous rows */
        g->batch = 1;
        g->batch_rank = 0;
    }
    return NULL;
}

void em_gemm_f32_release__cublas(const ember_allocator *al, void *state)
{
    cublas_gemm *g = state;
    if (g != NULL) {
        if (g->handle != NULL) {
            (void)api.destroy(g->handle);
        }
        em_free(al, g);
    }
}

static ember_status *prepare(const em_kinfo *ki, bool matmul, void **state, size_t *scratch_bytes)
{
    if (em_cuda_device_count() <= 0) {
        return decline(ki, "no CUDA device");
    }
    pthread_once(&api_once, api_load);
    if (api.error[0] != '\0') {
        return decline(ki, api.error);
    }
    cublas_gemm *g = em_calloc(ki->al, 1, sizeof *g);
    if (g == NULL) {
        return em_status_oom();
    }
    atomic_flag_clear(&g->busy);
    ember_status *st = matmul ? parse_matmul(ki, g) : parse_gemm(ki, g);
    if (st == NULL && (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || g->lda > INT_MAX ||
                       g->ldb > INT_MAX)) {
        st = decline(ki, "dimension too large for cuBLAS");
    }
    if (st == NULL) {
        cublasStatus_t cs = api.create(&g->handle);
        if (cs == CUBLAS_STATUS_SUCCESS) {
            cs = api.set_stream(g->handle, cudaStreamPerThread);
        }
        if (cs != CUBLAS_STATUS_SUCCESS) {
            st = em_status_new(EMBER_ERR_DEVICE, "%s '%s': cuBLAS: %s", em_op_name(ki->node->op),
                               ki->node->name, api.status_string(cs));
        }
    }
    if (st != NULL) {
        em_gemm_f32_release__cublas(ki->al, g);
        return st;
    }
    *state = g;
    *scratch_bytes = 0;
    return NULL;
}

ember_status *em_gemm_f32_prepare__cublas(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return prepare(ki, false, state, scratch_bytes);
}

ember_status *em_matmul_f32_prepare__cublas(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return prepare(ki, true, state, scratch_bytes);
}

void em_gemm_f32__cublas(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)ctx;
    const cublas_gemm *g = state;
    const float *a = in[0].data, *b = in[1].data;
    float *y = out[0].data;
    void *stream = (void *)cudaStreamPerThread;
    if (g->m == 0 || g->n == 0) {
        return;
    }
    if (g->has_c || g->k == 0) { /* K == 0: no Sgemm call (its lda would be illegal) */
        (void)em_cuda_bcast_fill_f32(g->has_c ? in[2].data : NULL, g->c_rs, g->c_cs, g->beta, y,
                                     g->m * g->batch, g->n, stream);
        if (g->k == 0) {
            return;
        }
    }
    float beta = g->has_c ? 1.0f : 0.0f;
    cublasOperation_t op_a = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t op_b = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    atomic_flag *busy = (atomic_flag *)&g->busy;
    while (atomic_flag_test_and_set_explicit(busy, memory_order_acquire)) {
    }
    for (int64_t bi = 0; bi < g->batch; bi++) {
        int64_t ao = 0, bo = 0, rest = bi;
        for (int d = g->batch_rank - 1; d >= 0; d--) {
            int64_t i = rest % g->batch_dims[d];
            rest /= g->batch_dims[d];
            ao += i * g->a_bstride[d];
            bo += i * g->b_bstride[d];
        }
        (void)api.sgemm(g->handle, op_b, op_a, (int)g->n, (int)g->m, (int)g->k, &g->alpha, b + bo,
                          (int)g->ldb, a + ao, (int)g->lda, &beta, y + bi * g->m * g->n, (int)g->n);
    }
    atomic_flag_clear_explicit(busy, memory_order_release);
}
