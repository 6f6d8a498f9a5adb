/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MatMulInteger-10 and QLinearMatMul-21: numpy matmul of quantized u8/i8 operands (a 1-D A is
 * [1, K], a 1-D B is [K, 1], batch dims broadcast), accumulated exactly in int64:
 *     acc[m, n] = sum_k (A[m, k] - a_zp) * (B[k, n] - b_zp).
 * MatMulInteger stores acc as int32 (wrapping, as int32 arithmetic would). QLinearMatMul stores
 * saturate(round_half_even(acc * (a_scale * b_scale / y_scale)) + y_zp), the multiplier in
 * float32 and the product in double, as ONNX's reference computes it.
 *
 * Every scale and zero point is a "parameter" of rows (A's, y's) or columns (B's): one value
 * (per tensor), a 1-D tensor of M rows / N columns, or (MatMulInteger's N-D form) a tensor of
 * the operand's rank shaped [batch..., M, 1] for A and [batch..., 1, N] for B whose batch dims
 * are 1 or the operand's. Its value for output batch coordinate c and row/column r sits at
 * sum_d c[d] * bstride[d] + r * rstride.
 */
#include "ref.h"

#include <stdint.h>
#include <string.h>

typedef struct qmm_param {
    bool present;
    ember_dtype dt;
    int64_t bstride[EM_MAX_RANK];
    int64_t rstride;
} qmm_param;

typedef struct em_qmm_attrs {
    bool qlinear;
    int nb;                                                 /* output batch rank */
    int64_t bdims[EM_MAX_RANK];                             /* output batch dims */
    int64_t a_bstride[EM_MAX_RANK], b_bstride[EM_MAX_RANK]; /* elements; 0 = broadcast */
    int64_t batch, m, k, n;
    const em_qtype *at, *bt, *yt;
    qmm_param azp, bzp, as, bs, ys, yzp;
} em_qmm_attrs;

/* A [.., M, K] (or [K]) times B [.., K, N] (or [K]): geometry and the output shape. */
static ember_status *qmm_geometry(const em_kinfo *ki, const em_tensor *a, const em_tensor *b,
                                  em_qmm_attrs *q, int64_t *y_dims, int *y_rank)
{
    if (a->rank < 1 || b->rank < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "A and B must have rank >= 1");
    }
    int ra = a->rank < 2 ? 0 : a->rank - 2, rb = b->rank < 2 ? 0 : b->rank - 2;
    q->m = a->rank < 2 ? 1 : a->dims[a->rank - 2];
    q->k = a->dims[a->rank - 1];
    q->n = b->rank < 2 ? 1 : b->dims[b->rank - 1];
    int64_t kb = b->rank < 2 ? b->dims[0] : b->dims[b->rank - 2];
    if (kb != q->k) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "inner dims differ: A has K=%lld, B %lld",
                            (long long)q->k, (long long)kb);
    }
    q->nb = ra > rb ? ra : rb;
    int64_t sa = q->m * q->k, sb = q->k * q->n;
    for (int d = q->nb - 1; d >= 0; d--) {
        int da = d - (q->nb - ra), db = d - (q->nb - rb);
        int64_t xa = da >= 0 ? a->dims[da] : 1, xb = db >= 0 ? b->dims[db] : 1;
        if (xa != xb && xa != 1 && xb != 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "batch dims do not broadcast: %lld vs %lld", (long long)xa,
                                (long long)xb);
        }
        q->bdims[d] = xa == 1 ? xb : xa;
        q->a_bstride[d] = xa == 1 ? 0 : sa;
        q->b_bstride[d] = xb == 1 ? 0 : sb;
        sa *= xa;
        sb *= xb;
    }
    q->batch = em_ref_prod(q->bdims, q->nb);
    memcpy(y_dims, q->bdims, sizeof(int64_t) * (size_t)q->nb);
    *y_rank = q->nb;
    if (a->rank >= 2) {
        y_dims[(*y_rank)++] = q->m;
    }
    if (b->rank >= 2) {
        y_dims[(*y_rank)++] = q->n;
    }
    return NULL;
}

/* Parameter input `i` of operand `op` (rows when `rows`, else columns; `r` of them). */
static ember_status *qmm_param_parse(const em_kinfo *ki, const em_qmm_attrs *q, int i,
                                     const em_tensor *op, bool rows, bool allow_nd, qmm_param *p)
{
    const em_tensor *t = &ki->in[i];
    const int64_t r = rows ? q->m : q->n;
    memset(p, 0, sizeof *p);
    if (!em_ref_has_input(ki, i)) {
        return NULL;
    }
    ember_status *st = em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, "a scale or zero point");
    if (st != NULL) {
        return st;
    }
    p->present = true;
    p->dt = t->dtype;
    int64_t numel = em_ref_prod(t->dims, t->rank);
    if (numel == 1) {
        return NULL;
    }
    if (t->rank == 1 && t->dims[0] == r) {
        p->rstride = 1;
        return NULL;
    }
    /* [batch..., M, 1] for rows, [batch..., 1, N] for columns, batch dims 1 or op's. */
    bool ok = allow_nd && op->rank >= 2 && t->rank == op->rank;
    int last = t->rank - 1;
    ok = ok && (rows ? t->dims[last] == 1 && (t->dims[last - 1] == r || t->dims[last - 1] == 1)
                     : t->dims[last - 1] == 1 && (t->dims[last] == r || t->dims[last] == 1));
    int64_t stride = 1;
    for (int d = last; ok && d >= 0; d--) {
        ok = d >= last - 1 || t->dims[d] == 1 || t->dims[d] == op->dims[d];
        int64_t s = t->dims[d] == 1 ? 0 : stride;
        if (d == (rows ? last - 1 : last)) {
            p->rstride = s;
        } else if (d < last - 1) {
            p->bstride[q->nb - (t->rank - 2) + d] = s;
        }
        stride *= t->dims[d];
    }
    if (!ok) {
        char buf[96];
        em_dims_str(t->dims, t->rank, buf, sizeof buf);
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input %d has shape %s: expected one value or one per %s (%lld)", i,
                            buf, rows ? "row" : "column", (long long)r);
    }
    return NULL;
}

static int64_t qmm_param_index(const qmm_param *p, const int64_t *c, int nb, int64_t r)
{
    int64_t idx = r * p->rstride;
    for (int d = 0; d < nb; d++) {
        idx += c[d] * p->bstride[d];
    }
    return idx;
}

/* A zero point must have its operand's dtype; a scale must be f32, f16 or bf16. */
static ember_status *qmm_param_dtype(const em_kinfo *ki, const qmm_param *p, int i,
                                     ember_dtype want)
{
    bool scale = want == EMBER_DTYPE_UNDEFINED;
    if (!p->present || em_q_param_dtype_ok(p->dt, want)) {
        return NULL;
    }
    return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d has dtype %s, expected %s", i,
                        em_dtype_name(p->dt),
                        scale ? "float, float16 or bfloat16" : em_dtype_name(want));
}

ember_status *em_matmulinteger_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qmm_attrs q = {0};
    int64_t y_dims[EM_MAX_RANK + 2];
    int y_rank;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 4, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (A)", &q.at));
    EMBER_TRY(em_q_operand_8bit(ki, 1, "input 1 (B)", &q.bt));
    EMBER_TRY(qmm_geometry(ki, &ki->in[0], &ki->in[1], &q, y_dims, &y_rank));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_I32, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, y_rank, "output 0 (Y)"));
    EMBER_TRY(qmm_param_parse(ki, &q, 2, &ki->in[0], true, true, &q.azp));
    EMBER_TRY(qmm_param_parse(ki, &q, 3, &ki->in[1], false, true, &q.bzp));
    EMBER_TRY(qmm_param_dtype(ki, &q.azp, 2, q.at->dt));
    EMBER_TRY(qmm_param_dtype(ki, &q.bzp, 3, q.bt->dt));
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

/* Every scale must be given. */
static ember_status *need(const em_kinfo *ki, const qmm_param *p, int i)
{
    if (p->present) {
        return NULL;
    }
    return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d (a scale) is missing", i);
}

ember_status *em_qlinearmatmul_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qmm_attrs q = {0};
    int64_t y_dims[EM_MAX_RANK + 2];
    int y_rank;
    const em_tensor *y = &ki->out[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 8, 8, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (a)", &q.at));
    EMBER_TRY(em_q_operand_8bit(ki, 3, "input 3 (b)", &q.bt));
    EMBER_TRY(qmm_geometry(ki, &ki->in[0], &ki->in[3], &q, y_dims, &y_rank));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_UNDEFINED, "output 0 (y)"));
    q.yt = em_q_type(y->dtype);
    if (y->dtype != EMBER_DTYPE_U8 && y->dtype != EMBER_DTYPE_I8) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "output dtype %s is not supported",
                            em_dtype_name(y->dtype));
    }
    EMBER_TRY(em_ref_check_shape(ki, y, y_dims, y_rank, "output 0 (y)"));
    const em_tensor *a = &ki->in[0], *b = &ki->in[3];
    EMBER_TRY(qmm_param_parse(ki, &q, 1, a, true, false, &q.as));
    EMBER_TRY(qmm_param_parse(ki, &q, 2, a, true, false, &q.azp));
    EMBER_TRY(qmm_param_parse(ki, &q, 4, b, false, false, &q.bs));
    EMBER_TRY(qmm_param_parse(ki, &q, 5, b, false, false, &q.bzp));
    EMBER_TRY(qmm_param_parse(ki, &q, 6, a, true, false, &q.ys));
    EMBER_TRY(qmm_param_parse(ki, &q, 7, a, true, false, &q.yzp));
    EMBER_TRY(need(ki, &q.as, 1));
    EMBER_TRY(need(ki, &q.bs, 4));
    EMBER_TRY(need(ki, &q.ys, 6));
    EMBER_TRY(qmm_param_dtype(ki, &q.as, 1, EMBER_DTYPE_UNDEFINED));
    EMBER_TRY(qmm_param_dtype(ki, &q.bs, 4, EMBER_DTYPE_UNDEFINED));
    EMBER_TRY(qmm_param_dtype(ki, &q.ys, 6, EMBER_DTYPE_UNDEFINED));
    EMBER_TRY(qmm_param_dtype(ki, &q.azp, 2, q.at->dt));
    EMBER_TRY(qmm_param_dtype(ki, &q.bzp, 5, q.bt->dt));
    EMBER_TRY(qmm_param_dtype(ki, &q.yzp, 7, q.yt->dt));
    q.qlinear = true;
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

typedef struct qmm_job {
    const em_qmm_attrs *q;
    const em_tensor *in;
    em_tensor *out;
    int ia, ib; /* input indices of A and B */
} qmm_job;

/* The value of parameter p (input i) at batch coordinate c, row/column r; `dflt` if absent. */
static double pv(const qmm_job *j, const qmm_param *p, int i, const int64_t *c, int64_t r,
                 double dflt)
{
    if (!p->present) {
        return dflt;
    }
    return em_tref_get(p->dt, j->in[i].data, qmm_param_index(p, c, j->q->nb, r));
}

/* Rows [begin, end) of the flattened (batch, m) range. */
static void qmm_rows(void *arg, int64_t begin, int64_t end)
{
    const qmm_job *j = arg;
    const em_qmm_attrs *q = j->q;
    const void *a = j->in[j->ia].data, *b = j->in[j->ib].data;
    const int ibz = q->qlinear ? 5 : 3; /* A's zero point is input 2 in both ops */
    int64_t c[EM_MAX_RANK];
    for (int64_t row = begin; row < end; row++) {
        int64_t bi = row / q->m, m = row % q->m, rem = bi, a_off = 0, b_off = 0;
        for (int d = q->nb - 1; d >= 0; d--) {
            c[d] = rem % q->bdims[d];
            rem /= q->bdims[d];
            a_off += c[d] * q->a_bstride[d];
            b_off += c[d] * q->b_bstride[d];
        }
        const int64_t azp = (int64_t)pv(j, &q->azp, 2, c, m, 0.0);
        for (int64_t n = 0; n < q->n; n++) {
            const int64_t bzp = (int64_t)pv(j, &q->bzp, ibz, c, n, 0.0);
            int64_t acc = 0;
            for (int64_t k = 0; k < q->k; k++) {
                acc += (em_q_int(q->at, a, a_off + m * q->k + k) - azp) *
                       (em_q_int(q->bt, b, b_off + k * q->n + n) - bzp);
            }
            int64_t yi = row * q->n + n;
            if (!q->qlinear) {
                ((int32_t *)j->out[0].data)[yi] = em_q_wrap32(acc);
                continue;
            }
            double mult = em_q_multiplier(pv(j, &q->as, 1, c, m, 1.0), pv(j, &q->bs, 4, c, n, 1.0),
                                          pv(j, &q->ys, 6, c, m, 1.0));
            em_q_requantize(q->yt, j->out[0].data, yi, acc, mult, pv(j, &q->yzp, 7, c, m, 0.0));
        }
    }
}

static void qmm_run(const em_qmm_attrs *q, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    qmm_job j = {q, in, out, 0, q->qlinear ? 3 : 1};
    if (q->batch * q->m * q->n == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, q->batch * q->m, 1, qmm_rows, &j);
}

void em_matmulinteger__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    qmm_run(state, in, out, ctx);
}

void em_qlinearmatmul__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    qmm_run(state, in, out, ctx);
}
