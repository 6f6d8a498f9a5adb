/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gemm f32 (ONNX Gemm-13): Y[M,N] = alpha * A' B' + beta * C, A' = transA ? A^T : A, B' likewise,
 * C optional and unidirectionally broadcastable to [M, N]. MatMul f32 (ONNX MatMul-13, numpy
 * matmul): a 1-D A is [1, K] and a 1-D B is [K, 1] with the added axis removed from Y; the
 * batch axes in front of the last two broadcast against each other.
 * FusedGemm (ops_nn.def): Gemm followed by its `activation` (runtime/ir/fusedgemm.h), applied
 * in double before the one rounding.
 * Dot products accumulate in double and are rounded once. Work is split over output rows
 * (batch x M for MatMul); each element is computed the same way whatever the split.
 */
#include "ref.h"

#include "ir/fusedgemm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Gemm --------------------------------------------------------------------------------- */

typedef struct em_gemm_attrs {
    int64_t m, n, k;
    bool trans_a, trans_b;
    double alpha, beta;
    bool use_c;         /* C given and beta != 0 */
    int64_t c_rs, c_cs; /* C's element strides along M and N; 0 along a broadcast axis */
    em_gemm_epilogue epi; /* FusedGemm's activation; none for Gemm */
} em_gemm_attrs;

static ember_status *gemm_trans(const em_kinfo *ki, const char *name, bool *v)
{
    int64_t t;
    ember_status *st = em_ref_attr_int(ki, name, 0, &t);
    if (st == NULL && t != 0 && t != 1) {
        st = em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' = %lld, expected 0 or 1",
                          name, (long long)t);
    }
    *v = t != 0;
    return st;
}

/* C's strides for broadcasting to [M, N] (numpy rules, C aligned to the right). */
static ember_status *gemm_bias(const em_kinfo *ki, em_gemm_attrs *a)
{
    const em_tensor *c = &ki->in[2];
    int64_t cm = c->rank == 2 ? c->dims[0] : 1;
    int64_t cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
    if (c->rank > 2 || (cm != 1 && cm != a->m) || (cn != 1 && cn != a->n)) {
        char buf[160];
        em_tensor_shape_str(c, buf, sizeof buf);
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 2 (C) %s does not broadcast to [%lld,%lld]", buf,
                            (long long)a->m, (long long)a->n);
    }
    a->c_cs = cn == 1 ? 0 : 1;
    a->c_rs = cm == 1 ? 0 : cn;
    return NULL;
}

static ember_status *gemm_shapes(const em_kinfo *ki, em_gemm_attrs *a)
{
    const em_tensor *ta = &ki->in[0], *tb = &ki->in[1];
    if (ta->rank != 2 || tb->rank != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "A and B must have rank 2, got %d and %d",
                            ta->rank, tb->rank);
    }
    a->m = a->trans_a ? ta->dims[1] : ta->dims[0];
    a->k = a->trans_a ? ta->dims[0] : ta->dims[1];
    int64_t kb = a->trans_b ? tb->dims[1] : tb->dims[0];
    a->n = a->trans_b ? tb->dims[0] : tb->dims[1];
    if (kb != a->k) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "inner dimensions differ: A' has K = %lld, B' has K = %lld",
                            (long long)a->k, (long long)kb);
    }
    int64_t y_dims[2] = {a->m, a->n};
    return em_ref_check_shape(ki, &ki->out[0], y_dims, 2, "output 0 (Y)");
}

ember_status *em_gemm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_gemm_attrs a = {0};
    float alpha, beta;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_F32, "input 0 (A)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], EMBER_DTYPE_F32, "input 1 (B)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    EMBER_TRY(gemm_trans(ki, "transA", &a.trans_a));
    EMBER_TRY(gemm_trans(ki, "transB", &a.trans_b));
    EMBER_TRY(em_ref_attr_float(ki, "alpha", 1.0f, &alpha));
    EMBER_TRY(em_ref_attr_float(ki, "beta", 1.0f, &beta));
    a.alpha = alpha;
    a.beta = beta;
    EMBER_TRY(gemm_shapes(ki, &a));
    if (!em_gemm_epilogue_parse(ki->node, &a.epi)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'activation' or 'activation_params' is not one FusedGemm takes");
    }
    if (em_ref_has_input(ki, 2)) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], EMBER_DTYPE_F32, "input 2 (C)"));
        EMBER_TRY(gemm_bias(ki, &a));
        /* beta == 0 drops C entirely (as ONNX Runtime does), so an inf or NaN in C cannot
         * turn into NaN through 0 * C. */
        a.use_c = beta != 0.0f;
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct gemm_job {
    const em_gemm_attrs *a;
    const float *pa, *pb, *pc;
    float *y;
} gemm_job;

static void gemm_task(void *arg, int64_t begin, int64_t end)
{
    const gemm_job *j = arg;
    const em_gemm_attrs *a = j->a;
    /* Element strides of A'(i, k) and B'(k, j) in the stored (possibly transposed) layout. */
    const int64_t a_is = a->trans_a ? 1 : a->k, a_ks = a->trans_a ? a->m : 1;
    const int64_t b_ks = a->trans_b ? 1 : a->n, b_js = a->trans_b ? a->k : 1;
    for (int64_t i = begin; i < end; i++) {
        for (int64_t jn = 0; jn < a->n; jn++) {
            double acc = 0.0;
            for (int64_t kk = 0; kk < a->k; kk++) {
                acc += (double)j->pa[i * a_is + kk * a_ks] * (double)j->pb[kk * b_ks + jn * b_js];
            }
            double v = a->alpha * acc;
            if (a->use_c) {
                v += a->beta * (double)j->pc[i * a->c_rs + jn * a->c_cs];
            }
            j->y[i * a->n + jn] = (float)em_gemm_act_apply(&a->epi, v);
        }
    }
}

void em_gemm_f32__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_gemm_attrs *a = state;
    gemm_job j = {a, in[0].data, in[1].data, a->use_c ? in[2].data : NULL, out[0].data};
    if (a->n == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->m, 1, gemm_task, &j);
}

/* ---- MatMul ------------------------------------------------------------------------------- */

typedef struct em_matmul_attrs {
    int64_t m, n, k;
    int batch_rank; /* broadcast batch axes of Y */
    int64_t batch[EM_MAX_RANK];
    int64_t a_bstride[EM_MAX_RANK]; /* elements per step of a batch axis; 0 when broadcast */
    int64_t b_bstride[EM_MAX_RANK];
    int64_t n_batch;
    bool f64; /* operands and result are double (else float) */
} em_matmul_attrs;

/* Batch axes of one operand (all but its last two; none for rank <= 2), right-aligned to the
 * `rank` broadcast axes, with natural strides; a size-1 axis gets stride 0. */
static void matmul_operand_batch(const em_tensor *t, int rank, int64_t plane, int64_t *dims,
                                 int64_t *strides)
{
    int own = t->rank > 2 ? t->rank - 2 : 0;
    int64_t s = plane;
    for (int d = rank - 1; d >= 0; d--) {
        int src = d - (rank - own);
        dims[d] = src >= 0 ? t->dims[src] : 1;
        strides[d] = dims[d] == 1 ? 0 : s;
        s *= dims[d];
    }
}

static ember_status *matmul_batch(const em_kinfo *ki, em_matmul_attrs *a, int64_t *y_dims)
{
    const em_tensor *ta = &ki->in[0], *tb = &ki->in[1];
    int64_t da[EM_MAX_RANK], db[EM_MAX_RANK];
    int ra = ta->rank > 2 ? ta->rank - 2 : 0, rb = tb->rank > 2 ? tb->rank - 2 : 0;
    a->batch_rank = ra > rb ? ra : rb;
    matmul_operand_batch(ta, a->batch_rank, a->m * a->k, da, a->a_bstride);
    matmul_operand_batch(tb, a->batch_rank, a->k * a->n, db, a->b_bstride);
    a->n_batch = 1;
    for (int d = 0; d < a->batch_rank; d++) {
        if (da[d] != db[d] && da[d] != 1 && db[d] != 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "batch axis %d: sizes %lld and %lld do not broadcast", d,
                                (long long)da[d], (long long)db[d]);
        }
        a->batch[d] = da[d] == 1 ? db[d] : da[d];
        y_dims[d] = a->batch[d];
        a->n_batch *= a->batch[d];
    }
    return NULL;
}

ember_status *em_matmul_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_matmul_attrs a = {0};
    int64_t y_dims[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    const em_tensor *ta = &ki->in[0], *tb = &ki->in[1];
    /* f32, or f64 (the same loop in double; f16/bf16 widen to f32 in nn_widen_ref.c). */
    ember_dtype dt = ta->dtype == EMBER_DTYPE_F64 ? EMBER_DTYPE_F64 : EMBER_DTYPE_F32;
    a.f64 = dt == EMBER_DTYPE_F64;
    EMBER_TRY(em_ref_check_tensor(ki, ta, dt, "input 0 (A)"));
    EMBER_TRY(em_ref_check_tensor(ki, tb, dt, "input 1 (B)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], dt, "output 0 (Y)"));
    if (ta->rank < 1 || tb->rank < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "inputs must have rank >= 1, got %d and %d", ta->rank, tb->rank);
    }
    a.m = ta->rank == 1 ? 1 : ta->dims[ta->rank - 2];
    a.k = ta->dims[ta->rank - 1];
    int64_t kb = tb->rank == 1 ? tb->dims[0] : tb->dims[tb->rank - 2];
    a.n = tb->rank == 1 ? 1 : tb->dims[tb->rank - 1];
    if (kb != a.k) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "inner dimensions differ: A has K = %lld, B has K = %lld",
                            (long long)a.k, (long long)kb);
    }
    EMBER_TRY(matmul_batch(ki, &a, y_dims));
    int y_rank = a.batch_rank;
    if (ta->rank > 1) {
        y_dims[y_rank++] = a.m;
    }
    if (tb->rank > 1) {
        y_dims[y_rank++] = a.n;
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, y_rank, "output 0 (Y)"));
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct matmul_job {
    const em_matmul_attrs *a;
    const void *pa, *pb;
    void *y;
} matmul_job;

/* Items are output rows: item = batch_index * M + i. */
static void matmul_task(void *arg, int64_t begin, int64_t end)
{
    const matmul_job *j = arg;
    const em_matmul_attrs *a = j->a;
    for (int64_t item = begin; item < end; item++) {
        int64_t bi = item / a->m, i = item % a->m;
        int64_t ao = 0, bo = 0;
        for (int d = a->batch_rank - 1; d >= 0; d--) {
            int64_t c = bi % a->batch[d];
            bi /= a->batch[d];
            ao += c * a->a_bstride[d];
            bo += c * a->b_bstride[d];
        }
        int64_t a0 = ao + i * a->k, y0 = item * a->n;
        if (a->f64) {
            const double *pa = (const double *)j->pa + a0, *pb = (const double *)j->pb + bo;
            double *y = (double *)j->y + y0;
            for (int64_t jn = 0; jn < a->n; jn++) {
                double acc = 0.0;
                for (int64_t kk = 0; kk < a->k; kk++) {
                    acc += pa[kk] * pb[kk * a->n + jn];
                }
                y[jn] = acc;
            }
            continue;
        }
        const float *pa = (const float *)j->pa + a0, *pb = (const float *)j->pb + bo;
        float *y = (float *)j->y + y0;
        for (int64_t jn = 0; jn < a->n; jn++) {
            double acc = 0.0;
            for (int64_t kk = 0; kk < a->k; kk++) {
                acc += (double)pa[kk] * (double)pb[kk * a->n + jn];
            }
            y[jn] = (float)acc;
        }
    }
}

void em_matmul__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_matmul_attrs *a = state;
    matmul_job j = {a, in[0].data, in[1].data, out[0].data};
    if (a->n == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_batch * a->m, 1, matmul_task, &j);
}
