/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Gemm and MatMul through OpenBLAS's cblas_sgemm (row-major), one call per output batch
 * (MatMul batches that share one B are folded into M first, see gemm_shape.h). C is
 * broadcast into Y first and the call gets beta; without C, beta is 0 and Y is not read.
 *
 * Priority 5: above the reference (0), below our AVX2 (10) and AVX-512 (20) kernels. Measured
 * single-threaded on Zen 4 (OpenBLAS 0.3.21, OPENBLAS_NUM_THREADS=1), our kernels match or
 * beat it: 512^3 about 95-105 GFLOP/s for all three; M=64, N=1000, K=2048 about 87-90 vs 70;
 * M=1 (batch-1 FC) 23-26 vs 4-9 GFLOP/s. And OpenBLAS runs on its own thread pool, not
 * ember's: ctx->pool is ignored and the thread count comes from OPENBLAS_NUM_THREADS
 * (default: all cores), so next to a session pool it oversubscribes the CPU. It therefore
 * serves x86 CPUs with SSE4.2 but without AVX2/FMA. We set nothing global (no
 * openblas_set_num_threads). Concurrent runs call cblas_sgemm from several threads at once,
 * which threaded OpenBLAS builds (Debian's pthread variant) support since 0.3.7; this is not
 * exercised by the tests.
 * The entries require SSE4.2 so that EMBER_ISA_MAX=scalar leaves only the reference kernels.
 */
#include "kernel.h"

#include "alloc.h"
#include "gemm_shape.h"
#include "status.h"

#include <cblas.h>
#include <limits.h>

extern const em_kernel_table em_openblas_table;

ember_status *em_gemm_f32_prepare__openblas(const em_kinfo *ki, void **state,
                                            size_t *scratch_bytes);
ember_status *em_matmul_f32_prepare__openblas(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes);
void em_gemm_f32__openblas(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx);

static ember_status *blas_state(const em_kinfo *ki, const em_gemm_shape *s, void **state,
                                size_t *scratch_bytes)
{
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

void em_gemm_f32__openblas(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    (void)ctx;
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
            return;
        }
    }
    float beta = s->has_c ? 1.0f : 0.0f; /* Y already holds beta * C */
    for (int64_t bi = 0; bi < s->batch; bi++) {
        int64_t a_off, b_off;
        em_gemm_batch_offsets(s, bi, &a_off, &b_off);
        cblas_sgemm(CblasRowMajor, s->trans_a ? CblasTrans : CblasNoTrans,
                    s->trans_b ? CblasTrans : CblasNoTrans, (int)s->m, (int)s->n, (int)s->k,
                    s->alpha, a + a_off, (int)s->lda, b + b_off, (int)s->ldb, beta,
                    y + bi * s->m * s->n, (int)s->n);
    }
}

/* clang-format off */
static const em_kernel openblas_kernels[] = {
    {"em_gemm_f32__openblas", EM_OP_GEMM, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 5,
     em_gemm_f32_prepare__openblas, NULL, em_gemm_f32__openblas},
    {"em_matmul_f32__openblas", EM_OP_MATMUL, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 5,
     em_matmul_f32_prepare__openblas, NULL, em_gemm_f32__openblas},
};
/* clang-format on */

const em_kernel_table em_openblas_table = {"openblas", openblas_kernels,
                                           sizeof openblas_kernels / sizeof openblas_kernels[0]};
