/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX Runtime's com.microsoft QGemm (version 1): (A, a_scale, a_zp, B, b_scale, b_zp[, C,
 * y_scale, y_zp]) with attributes alpha (float32, default 1), transA, transB:
 *     acc[m, n] = sum_k (A'[m, k] - a_zp) * (B'[k, n] - b_zp[n])     (exact, int64)
 *     real[m, n] = alpha * a_scale * b_scale[n] * (acc[m, n] + C[m, n])
 * C int32 broadcast to [M, N] (rank 0, [N], [1, N], [M, 1] or [M, N]; the quantizer writes it
 * with scale alpha * a_scale * b_scale and zero point 0, so it adds to the accumulator as it
 * is). Y is real as float32 without y_scale, else real quantized with y_scale / y_zp (round
 * half to even, saturating), in double. A and B uint8 / int8 [M, K] / [K, N] (transposed with
 * transA / transB); a's parameters per tensor, b's per tensor or per column (N).
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct em_qgemm_attrs {
    const em_qtype *at, *bt, *yt; /* yt NULL: float32 output */
    int64_t m, k, n;
    bool ta, tb;
    double alpha;
    bool a_zp, b_zp, y_zp;
    bool b_cols;            /* b's scale / zero point per column */
    int64_t c_sm, c_sn;     /* C's strides along M and N (0: broadcast); c_sm < 0: no C */
} em_qgemm_attrs;

ember_status *em_qgemm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qgemm_attrs q = {.c_sm = -1};
    int64_t ta, tb;
    float alpha;
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 6, 9, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (A)", &q.at));
    EMBER_TRY(em_q_operand_8bit(ki, 3, "input 3 (B)", &q.bt));
    EMBER_TRY(em_ref_attr_int(ki, "transA", 0, &ta));
    EMBER_TRY(em_ref_attr_int(ki, "transB", 0, &tb));
    EMBER_TRY(em_ref_attr_float(ki, "alpha", 1.0f, &alpha));
    const em_tensor *a = &ki->in[0], *b = &ki->in[3];
    if (a->rank != 2 || b->rank != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "A and B must be 2-D");
    }
    q.ta = ta != 0;
    q.tb = tb != 0;
    q.alpha = alpha;
    q.m = a->dims[q.ta ? 1 : 0];
    q.k = a->dims[q.ta ? 0 : 1];
    q.n = b->dims[q.tb ? 0 : 1];
    if (b->dims[q.tb ? 1 : 0] != q.k) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "inner dims differ: A has K=%lld, B %lld",
                            (long long)q.k, (long long)b->dims[q.tb ? 1 : 0]);
    }
    EMBER_TRY(em_q_tensor_params(ki, 1, 2, q.at->dt, "a", &q.a_zp));
    /* b: per tensor or per column */
    const em_tensor *bs = &ki->in[4];
    EMBER_TRY(em_ref_check_tensor(ki, bs, EMBER_DTYPE_F32, "input 4 (b_scale)"));
    int64_t nbs = em_ref_prod(bs->dims, bs->rank);
    q.b_cols = nbs != 1;
    if (bs->rank > 1 || (nbs != 1 && nbs != q.n)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "b_scale has %lld values, expected 1 or N = %lld", (long long)nbs,
                            (long long)q.n);
    }
    for (int64_t i = 0; bs->data != NULL && i < nbs; i++) {
        float v = ((const float *)bs->data)[i];
        if (!(v > 0.0f) || isinf(v)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "b_scale[%lld] is %g: a scale must be positive and finite",
                                (long long)i, (double)v);
        }
    }
    q.b_zp = em_ref_has_input(ki, 5);
    if (q.b_zp) {
        const em_tensor *bz = &ki->in[5];
        EMBER_TRY(em_ref_check_tensor(ki, bz, q.bt->dt, "input 5 (b_zero_point)"));
        if (bz->rank > 1 || em_ref_prod(bz->dims, bz->rank) != nbs) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "b_zero_point has %lld values, b_scale %lld",
                                (long long)em_ref_prod(bz->dims, bz->rank), (long long)nbs);
        }
    }
    if (em_ref_has_input(ki, 6)) {
        const em_tensor *c = &ki->in[6];
        EMBER_TRY(em_ref_check_tensor(ki, c, EMBER_DTYPE_I32, "input 6 (C)"));
        int64_t cm = c->rank == 2 ? c->dims[0] : 1, cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
        if (c->rank > 2 || (cm != 1 && cm != q.m) || (cn != 1 && cn != q.n)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "C does not broadcast to [M, N]");
        }
        q.c_sn = cn == 1 ? 0 : 1;
        q.c_sm = cm == 1 ? 0 : cn;
    }
    const int64_t y_dims[2] = {q.m, q.n};
    if (em_ref_has_input(ki, 7)) {
        q.yt = em_q_type(ki->out[0].dtype);
        if (ki->out[0].dtype != EMBER_DTYPE_U8 && ki->out[0].dtype != EMBER_DTYPE_I8) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "Y must be uint8 / int8");
        }
        EMBER_TRY(em_q_tensor_params(ki, 7, 8, q.yt->dt, "y", &q.y_zp));
    } else {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, 2, "output 0 (Y)"));
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

typedef struct qgemm_job {
    const em_qgemm_attrs *q;
    const em_tensor *in;
    em_tensor *out;
} qgemm_job;

static void qgemm_rows(void *arg, int64_t begin, int64_t end)
{
    const qgemm_job *j = arg;
    const em_qgemm_attrs *q = j->q;
    const em_tensor *in = j->in;
    const void *a = in[0].data, *b = in[3].data;
    const double as = em_q_param_at(in, 1, true, 0, 1.0), az = em_q_param_at(in, 2, q->a_zp, 0, 0);
    const double ys = q->yt != NULL ? em_q_param_at(in, 7, true, 0, 1.0) : 1.0;
    const double yz = q->yt != NULL ? em_q_param_at(in, 8, q->y_zp, 0, 0.0) : 0.0;
    for (int64_t m = begin; m < end; m++) {
        for (int64_t n = 0; n < q->n; n++) {
            const int64_t pc = q->b_cols ? n : 0;
            const int64_t bz = (int64_t)em_q_param_at(in, 5, q->b_zp, pc, 0.0);
            int64_t acc = 0;
            for (int64_t k = 0; k < q->k; k++) {
                int64_t ai = q->ta ? k * q->m + m : m * q->k + k;
                int64_t bi = q->tb ? n * q->k + k : k * q->n + n;
                acc += (em_q_int(q->at, a, ai) - (int64_t)az) * (em_q_int(q->bt, b, bi) - bz);
            }
            if (q->c_sm >= 0) {
                acc += ((const int32_t *)in[6].data)[m * q->c_sm + n * q->c_sn];
            }
            double real = q->alpha * as * em_q_param_at(in, 4, true, pc, 1.0) * (double)acc;
            if (q->yt == NULL) {
                ((float *)j->out[0].data)[m * q->n + n] = (float)real;
            } else {
                em_q_quantize(q->yt, j->out[0].data, m * q->n + n, real / ys, yz, true);
            }
        }
    }
}

void em_qgemm__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_qgemm_attrs *q = state;
    qgemm_job j = {q, in, out};
    if (q->m * q->n > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, q->m, 1, qgemm_rows, &j);
    }
}
