/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm, FusedGemm and MatMul through OpenBLAS's cblas_sgemm (row-major), one call per output
 * batch (MatMul batches that share one B are folded into M first, see gemm_shape.h). C is broadcast
 * into Y first and the call gets beta; without C, beta is 0 and Y is not read.
 *
 * Priority 5: above the reference (0), below our AVX2 (10) and AVX-512 (20) kernels. Measured
 * single-threaded on Zen 4 (OpenBLAS 0.3.21, OPENBLAS_NUM_THREADS=1), our kernels match or
 * beat it: 512^3 about 95-105 GFLOP/s for all three; M=64, N=1000, K=2048 about 87-90 vs 70;
 * M=1 (batch-1 FC) 23-26 vs 4-9 GFLOP/s. It therefore serves x86 CPUs with SSE4.2 but without
 * AVX2/FMA. The entries require SSE4.2 so that EMBER_ISA_MAX=scalar leaves only the reference
 * kernels.
 *
 * Threads (issue #5: --threads N bounds every compute thread). Linked, OpenBLAS starts its own
 * pool (all cores but one) when the process loads, whatever ember's thread count, and runs
 * each call on it. So libopenblas is not linked: it is dlopen'ed (RTLD_LOCAL) by the first
 * prepare of these kernels, which on AVX2 CPUs never happens (no OpenBLAS thread exists), and
 * the loader then asks it for one thread (openblas_set_num_threads(1)): the parallelism comes
 * from ember's pool, each pool item a single-threaded cblas_sgemm on a block of rows. That
 * call is the library's own setting; a program that also uses OpenBLAS shares the library
 * instance and the setting, which is why the pool split is needed and why the setting is made
 * only when ember's kernels are about to use it. Concurrent runs call cblas_sgemm from several
 * threads at once, which OpenBLAS supports since 0.3.7.
 */
#define _POSIX_C_SOURCE 200809L
#include "plan/kernel.h"

#include "core/alloc.h"
#include "core/dl_util.h"
#include "kernels/vec/gemm_shape.h"
#include "core/status.h"
#include "core/thread.h"

#include <cblas.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

extern const em_kernel_table em_openblas_table;

ember_status *em_gemm_f32_prepare__openblas(const em_kinfo *ki, void **state,
                                            size_t *scratch_bytes);
ember_status *em_matmul_f32_prepare__openblas(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes);
void em_gemm_f32__openblas(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx);

typedef void (*sgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
                         blasint, blasint, float, const float *, blasint, const float *, blasint,
                         float, float *, blasint);

/* Set once by api_load (pthread_once), read-only afterwards. */
static struct {
    sgemm_fn sgemm;
    char error[256]; /* why loading failed; empty on success */
} api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_load(void)
{
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so"};
    void *h = em_dlopen_first(names, sizeof names / sizeof names[0], api.error, sizeof api.error);
    if (h == NULL) {
        return;
    }
    void (*set_threads)(int) = NULL;
    /* POSIX: a function pointer may be converted from dlsym's void *. */
    *(void **)&set_threads = dlsym(h, "openblas_set_num_threads");
    *(void **)&api.sgemm = dlsym(h, "cblas_sgemm");
    if (set_threads == NULL || api.sgemm == NULL) {
        api.sgemm = NULL;
        snprintf(api.error, sizeof api.error, "%s lacks cblas_sgemm or openblas_set_num_threads",
                 names[0]);
        return;
    }
    set_threads(1);
    /* The library stays loaded for the life of the process. */
}

static ember_status *blas_state(const em_kinfo *ki, const em_gemm_shape *s, void **state,
                                size_t *scratch_bytes)
{
    pthread_once(&api_once, api_load);
    if (api.sgemm == NULL) {
        return em_gemm_decline(ki, api.error);
    }
    /* cblas takes int (blasint) sizes and leading dimensions. */
    if (s->m > INT_MAX || s->n > INT_MAX || s->k > INT_MAX || s->lda > INT_MAX ||
        s->ldb > INT_MAX) {
        return em_gemm_decline(ki, "dimension too large for cblas");
    }
    em_gemm_shape *g = em_malloc(ki->al, sizeof *g);
    if (g == NULL) {
        return em_status_oom();
    }
    *g = *s;
    *state = g;
    *scratch_bytes = 0;
    return NULL;
}

ember_status *em_gemm_f32_prepare__openblas(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    em_gemm_shape s;
    ember_status *st = em_gemm_shape_from_gemm(ki, &s);
    return st != NULL ? st : blas_state(ki, &s, state, scratch_bytes);
}

ember_status *em_matmul_f32_prepare__openblas(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    em_gemm_shape s;
    ember_status *st = em_gemm_shape_from_matmul(ki, &s);
    return st != NULL ? st : blas_state(ki, &s, state, scratch_bytes);
}

/* FusedGemm's activation over n values of y (em_gemm_act_apply, in double: this path serves
 * CPUs without AVX2, where the x86 kernels apply it to their tiles instead). */
static void blas_act(const em_gemm_shape *s, float *y, int64_t n)
{
    if (em_gemm_epilogue_none(&s->epi)) {
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        y[i] = (float)em_gemm_act_apply(&s->epi, y[i]);
    }
}

/* One pool item: a block of rows of one batch entry. */
typedef struct blas_task {
    const em_gemm_shape *s;
    const float *a, *b;
    float *y;
    float beta;
    int64_t rows, blocks; /* rows per block, blocks per batch */
} blas_task;

static void blas_rows(void *arg, int64_t begin, int64_t end)
{
    const blas_task *t = arg;
    const em_gemm_shape *s = t->s;
    for (int64_t it = begin; it < end; it++) {
        int64_t bi = it / t->blocks, r0 = (it % t->blocks) * t->rows;
        int64_t mr = s->m - r0 < t->rows ? s->m - r0 : t->rows;
        int64_t a_off, b_off;
        em_gemm_batch_offsets(s, bi, &a_off, &b_off);
        /* Rows r0.. of op(A): row r0 of A, or column r0 of A when it is transposed. */
        a_off += s->trans_a ? r0 : r0 * s->lda;
        api.sgemm(CblasRowMajor, s->trans_a ? CblasTrans : CblasNoTrans,
                  s->trans_b ? CblasTrans : CblasNoTrans, (blasint)mr, (blasint)s->n,
                  (blasint)s->k, s->alpha, t->a + a_off, (blasint)s->lda, t->b + b_off,
                  (blasint)s->ldb, t->beta, t->y + bi * s->m * s->n + r0 * s->n, (blasint)s->n);
        blas_act(s, t->y + bi * s->m * s->n + r0 * s->n, mr * s->n);
    }
}

void em_gemm_f32__openblas(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const em_gemm_shape *s = state;
    const float *a = in[0].data, *b = in[1].data;
    const float *c = s->has_c ? in[2].data : NULL;
    float *y = out[0].data;
    if (s->m == 0 || s->n == 0) {
        return;
    }
    if (s->k == 0 || s->has_c) { /* K == 0 would be an illegal lda for cblas: no call */
        em_gemm_init_tile(s, c, y, s->n, 0, s->m, 0, s->n);
        if (s->k == 0) {
            blas_act(s, y, s->m * s->n);
            return;
        }
    }
    /* Blocks of a fixed row count, whatever the thread count: OpenBLAS picks its kernels by
     * shape, so results then do not depend on the number of threads. */
    const int64_t rows = 64;
    blas_task t = {s, a, b, y, s->has_c ? 1.0f : 0.0f /* Y already holds beta * C */, rows,
                   (s->m + rows - 1) / rows};
    em_parallel_for(ctx->pool, s->batch * t.blocks, 1, blas_rows, &t);
}

/* clang-format off */
static const em_kernel openblas_kernels[] = {
    {"em_gemm_f32__openblas", EM_OP_GEMM, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 5,
     em_gemm_f32_prepare__openblas, NULL, em_gemm_f32__openblas},
    {"em_matmul_f32__openblas", EM_OP_MATMUL, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 5,
     em_matmul_f32_prepare__openblas, NULL, em_gemm_f32__openblas},
    {"em_fusedgemm_f32__openblas", EM_OP_FUSEDGEMM, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 5,
     em_gemm_f32_prepare__openblas, NULL, em_gemm_f32__openblas},
};
/* clang-format on */

const em_kernel_table em_openblas_table = {
    "openblas", openblas_kernels, sizeof openblas_kernels / sizeof openblas_kernels[0], NULL};
