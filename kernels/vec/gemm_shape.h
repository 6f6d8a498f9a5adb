/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gemm and MatMul (ONNX semantics) reduced to one description: `batch` products
 * Y_b[M,N] = alpha * op(A_b)[M,K] * op(B_b)[K,N] (+ beta * C broadcast to [M,N], Gemm only),
 * all row-major. Shared by the AVX2 / AVX-512 drivers and the OpenBLAS adapter; plain C, no
 * intrinsics, every function static so each ISA unit gets its own copy.
 *
 * Gemm: A, B rank 2 (transA / transB), C optional of rank 0, 1 ([1] or [N]) or 2
 * ([1|M, 1|N]); FusedGemm the same plus its activation (epi, runtime/ir/fusedgemm.h). MatMul: numpy
 * rules; a rank-1 A is [1,K] and a rank-1 B is [K,1] with the added dim dropped from the output;
 * batch dims broadcast. When B is one matrix shared by every batch and A is not broadcast, the
 * batch is folded into M (one big GEMM). beta == 0 drops C entirely (the BLAS convention), so Inf /
 * NaN in C do not reach Y. Everything these parsers do not handle is declined with
 * EMBER_ERR_UNSUPPORTED so that the planner falls back to the reference kernel, which reports
 * invalid nodes.
 */
#ifndef EMBER_KERNELS_VEC_GEMM_SHAPE_H
#define EMBER_KERNELS_VEC_GEMM_SHAPE_H

#include "plan/kernel.h"
#include "core/status.h"
#include "ir/fusedgemm.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct em_gemm_shape {
    int64_t m, n, k;
    bool trans_a, trans_b;
    float alpha, beta;
    int64_t lda, ldb;   /* row stride (elements) of A and B as stored */
    bool has_c;         /* beta * C is added (C present and beta != 0) */
    int64_t c_rs, c_cs; /* element strides of C viewed as [M,N]; 0 on a broadcast dim */
    int64_t batch;      /* number of output matrices, each M*N, contiguous */
    int batch_rank;
    int64_t batch_dims[EM_MAX_RANK];
    int64_t a_bstride[EM_MAX_RANK]; /* elements; 0 on a broadcast dim */
    int64_t b_bstride[EM_MAX_RANK];
    int64_t b_mats; /* matrices stored in B (K*N elements each) */
    em_gemm_epilogue epi; /* FusedGemm's activation; none for Gemm and MatMul */
} em_gemm_shape;

static inline ember_status *em_gemm_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

static inline bool em_gemm_is_f32(const em_tensor *t)
{
    return t->dtype == EMBER_DTYPE_F32;
}

static inline ember_status *em_gemm_shape_from_gemm(const em_kinfo *ki, em_gemm_shape *s)
{
    const em_tensor *a = &ki->in[0], *b = &ki->in[1], *y = &ki->out[0];
    const em_tensor *c =
        ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED ? &ki->in[2] : NULL;
    *s = (em_gemm_shape){0};
    if (ki->n_out != 1 || !em_gemm_is_f32(a) || !em_gemm_is_f32(b) || !em_gemm_is_f32(y) ||
        (c != NULL && !em_gemm_is_f32(c))) {
        return em_gemm_decline(ki, "only f32");
    }
    if (a->rank != 2 || b->rank != 2 || y->rank != 2) {
        return em_gemm_decline(ki, "A, B and Y must have rank 2");
    }
    if (!em_gemm_epilogue_parse(ki->node, &s->epi)) {
        return em_gemm_decline(ki, "unknown activation");
    }
    s->trans_a = em_node_attr_int(ki->node, "transA", 0) != 0;
    s->trans_b = em_node_attr_int(ki->node, "transB", 0) != 0;
    s->alpha = em_node_attr_float(ki->node, "alpha", 1.0f);
    s->beta = em_node_attr_float(ki->node, "beta", 1.0f);
    s->m = s->trans_a ? a->dims[1] : a->dims[0];
    s->k = s->trans_a ? a->dims[0] : a->dims[1];
    s->n = s->trans_b ? b->dims[0] : b->dims[1];
    int64_t kb = s->trans_b ? b->dims[1] : b->dims[0];
    if (kb != s->k || y->dims[0] != s->m || y->dims[1] != s->n) {
        return em_gemm_decline(ki, "inconsistent shapes");
    }
    s->lda = a->dims[1];
    s->ldb = b->dims[1];
    s->batch = 1;
    s->b_mats = 1;
    if (c != NULL && s->beta != 0.0f) {
        int64_t cm = 1, cn = 1;
        if (c->rank == 1) {
            cn = c->dims[0];
        } else if (c->rank == 2) {
            cm = c->dims[0];
            cn = c->dims[1];
        } else if (c->rank != 0) {
            return em_gemm_decline(ki, "C rank > 2");
        }
        if ((cm != 1 && cm != s->m) || (cn != 1 && cn != s->n)) {
            return em_gemm_decline(ki, "C does not broadcast to [M,N]");
        }
        s->has_c = true;
        s->c_rs = cm == 1 ? 0 : cn;
        s->c_cs = cn == 1 ? 0 : 1;
    }
    return NULL;
}

static inline ember_status *em_gemm_shape_from_matmul(const em_kinfo *ki, em_gemm_shape *s)
{
    const em_tensor *a = &ki->in[0], *b = &ki->in[1], *y = &ki->out[0];
    *s = (em_gemm_shape){0};
    if (ki->n_in != 2 || ki->n_out != 1 || !em_gemm_is_f32(a) || !em_gemm_is_f32(b) ||
        !em_gemm_is_f32(y)) {
        return em_gemm_decline(ki, "only f32");
    }
    if (a->rank < 1 || b->rank < 1) {
        return em_gemm_decline(ki, "scalar operand");
    }
    s->alpha = 1.0f;
    s->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    s->k = a->dims[a->rank - 1];
    int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
    s->n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    if (kb != s->k) {
        return em_gemm_decline(ki, "inner dimensions differ");
    }
    s->lda = s->k;
    s->ldb = s->n;
    int ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
    int r = ra > rb ? ra : rb;
    int64_t sa = s->m * s->k, sb = s->k * s->n, a_mats = 1;
    s->batch_rank = r;
    s->batch = 1;
    s->b_mats = 1;
    for (int d = r - 1; d >= 0; d--) {
        int ia = d - (r - ra), ib = d - (r - rb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            return em_gemm_decline(ki, "batch dims do not broadcast");
        }
        s->batch_dims[d] = da == 1 ? db : da;
        s->a_bstride[d] = da == 1 ? 0 : sa;
        s->b_bstride[d] = db == 1 ? 0 : sb;
        sa *= da;
        sb *= db;
        a_mats *= da;
        s->b_mats *= db;
        s->batch *= s->batch_dims[d];
    }
    /* The output: batch dims, then M (unless A is rank 1), then N (unless B is rank 1). */
    int ry = r + (a->rank > 1) + (b->rank > 1);
    if (y->rank != ry) {
        return em_gemm_decline(ki, "output rank");
    }
    for (int d = 0; d < r; d++) {
        if (y->dims[d] != s->batch_dims[d]) {
            return em_gemm_decline(ki, "output batch dims");
        }
    }
    if ((a->rank > 1 && y->dims[r] != s->m) || (b->rank > 1 && y->dims[ry - 1] != s->n)) {
        return em_gemm_decline(ki, "output matrix dims");
    }
    if (s->b_mats == 1 && a_mats == s->batch && a->rank >= 2) {
        s->m *= s->batch; /* A's batches are contiguous rows: one [batch*M, K] x [K, N] */
        s->batch = 1;
        s->batch_rank = 0;
    }
    return NULL;
}

/* Element offsets of the A and B matrices of output batch `bi`. */
static inline void em_gemm_batch_offsets(const em_gemm_shape *s, int64_t bi, int64_t *a_off,
                                         int64_t *b_off)
{
    int64_t ao = 0, bo = 0;
    for (int d = s->batch_rank - 1; d >= 0; d--) {
        int64_t i = bi % s->batch_dims[d];
        bi /= s->batch_dims[d];
        ao += i * s->a_bstride[d];
        bo += i * s->b_bstride[d];
    }
    *a_off = ao;
    *b_off = bo;
}

/* Y[i0:i0+mb, j0:j0+nb] (row stride ldy) = beta * C (broadcast), or 0 without C. */
static inline void em_gemm_init_tile(const em_gemm_shape *s, const float *c, float *y, int64_t ldy,
                                     int64_t i0, int64_t mb, int64_t j0, int64_t nb)
{
    for (int64_t i = 0; i < mb; i++) {
        float *yr = y + (i0 + i) * ldy + j0;
        if (!s->has_c) {
            for (int64_t j = 0; j < nb; j++) {
                yr[j] = 0.0f;
            }
            continue;
        }
        const float *cr = c + (i0 + i) * s->c_rs + j0 * s->c_cs;
        for (int64_t j = 0; j < nb; j++) {
            yr[j] = s->beta * cr[j * s->c_cs];
        }
    }
}

/* y[i0:i0+mb, j0:j0+nb] += beta * C (has_c): the epilogue of a finished micro-tile, while it
 * is still in L1. */
static inline void em_gemm_add_c(const em_gemm_shape *s, const float *c, float *y, int64_t ldy,
                                 int64_t i0, int64_t mb, int64_t j0, int64_t nb)
{
    const float beta = s->beta; /* locals: y may alias *s as far as the compiler knows */
    const int64_t cs = s->c_cs;
    for (int64_t i = 0; i < mb; i++) {
        float *yr = y + (i0 + i) * ldy + j0;
        const float *cr = c + (i0 + i) * s->c_rs + j0 * cs;
        if (cs == 1) {
            for (int64_t j = 0; j < nb; j++) {
                yr[j] += beta * cr[j];
            }
            continue;
        }
        for (int64_t j = 0; j < nb; j++) {
            yr[j] += beta * cr[j * cs];
        }
    }
}

#endif /* EMBER_KERNELS_VEC_GEMM_SHAPE_H */
