/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attention-23/24/25: scaled dot-product attention, one query row at a time.
 *
 * Q, K, V are read in place as [B, H, S, D] whatever their layout (3-D inputs [B, S, H * D] are
 * addressed through strides, no transpose). With P past keys, key t < P comes from past_key and
 * key t >= P from K (so present_key = concat(past_key, K) is never needed to compute Y; it is
 * written when asked for). Query head h reads KV head h / (Hq / Hkv) (GQA, np.repeat order).
 *
 * Numerics follow onnx/reference/ops/op_attention.py: s = sqrt(scale) (default scale
 * 1 / sqrt(Dk)) rounded to Q's dtype T1; Q * s and K * s are rounded to T1, their dot products
 * accumulate in double and round to T1; softcap c > 0 gives c * tanh(x / c) (each step rounded);
 * the bias (attn_mask: bool -> 0 / -inf, numbers added as T1; keys past the mask's last dim
 * -inf; is_causal: key t allowed iff t <= i + offset; left / right window on t - (i + offset);
 * nonpad_kv_seqlen: t < nonpad[b]) is added and rounded to T1; softmax runs in
 * softmax_precision (default T1), its probabilities rounded to T1 before the product with V.
 * offset = P with a past, nonpad[b] - Sq with nonpad_kv_seqlen, 0 otherwise. A row whose bias is
 * -inf for every key (fully masked) gives zero probabilities and a zero output row.
 * qk_matmul_output holds, per mode: 0 the raw Q K^T (before softcap, as the spec says), 1 after
 * softcap, 2 after adding the bias, 3 the probabilities.
 *
 * Threads: rows (b, h, i) are split into `slots` ranges fixed in prepare, each with its own
 * scratch (Dk + 3 T doubles).
 */
#include "ref.h"

#include "core/alloc.h"

#include <math.h>
#include <string.h>

/* Element strides of [b, h, s] of a [B, H, S, D] view (d has stride 1). */
typedef struct attn_lay {
    int64_t b, h, s;
} attn_lay;

typedef struct em_attn_attrs {
    ember_dtype qt, vt, mt, sp; /* Q / K / past_key / Y, V / past_value, mask, softmax */
    int n_out;
    int64_t batch, hq, hkv, sq, skv, past, total, dk, dv;
    attn_lay ql, kl, vl, yl;
    bool has_mask, mask_bool, has_nonpad, causal;
    int64_t mstride[3]; /* mask strides over b, h, i; 0 where it broadcasts */
    int64_t mlen;       /* the mask's last dim: keys at or past it are masked */
    int64_t left, right;
    double s, softcap;
    int mode;
    int64_t slots;
} em_attn_attrs;

static attn_lay lay_of(int rank, int64_t h, int64_t s, int64_t d)
{
    return rank == 4 ? (attn_lay){h * s * d, s * d, d} : (attn_lay){s * h * d, d, h * d};
}

/* ---- prepare ------------------------------------------------------------------------------- */

/* Q, K, V: ranks, heads, head sizes, sequence lengths; fills the dims and layouts. */
static ember_status *attn_dims(const em_kinfo *ki, em_attn_attrs *a, int *rank)
{
    ember_status *st = NULL;
    const em_tensor *q = &ki->in[0], *k = &ki->in[1], *v = &ki->in[2];
    int64_t qh, kvh;
    EMBER_TRY(em_ref_attr_int(ki, "q_num_heads", 0, &qh));
    EMBER_TRY(em_ref_attr_int(ki, "kv_num_heads", 0, &kvh));
    int r = q->rank;
    if ((r != 3 && r != 4) || k->rank != r || v->rank != r) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "Q, K and V must all be 3-D or all 4-D (ranks %d, %d, %d)", q->rank,
                            k->rank, v->rank);
    }
    if (r == 3 && (qh < 1 || kvh < 1 || q->dims[2] % qh != 0 || k->dims[2] % kvh != 0 ||
                   v->dims[2] % kvh != 0)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "3-D inputs need q_num_heads and kv_num_heads dividing the hidden "
                            "sizes (%lld, %lld, %lld)",
                            (long long)q->dims[2], (long long)k->dims[2], (long long)v->dims[2]);
    }
    a->batch = q->dims[0];
    a->hq = r == 4 ? q->dims[1] : qh;
    a->hkv = r == 4 ? k->dims[1] : kvh;
    a->sq = q->dims[r - 2];
    a->skv = k->dims[r - 2];
    a->dk = r == 4 ? q->dims[3] : q->dims[2] / qh;
    a->dv = r == 4 ? v->dims[3] : v->dims[2] / kvh;
    int64_t kdk = r == 4 ? k->dims[3] : k->dims[2] / kvh;
    bool heads_ok = r == 3 || ((qh == 0 || qh == a->hq) && (kvh == 0 || kvh == a->hkv));
    if (k->dims[0] != a->batch || v->dims[0] != a->batch || kdk != a->dk ||
        v->dims[r - 2] != a->skv || (r == 4 && v->dims[1] != a->hkv) || !heads_ok) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "Q, K and V disagree on batch, heads, head size or sequence length");
    }
    if (a->hkv < 1 || a->hq % a->hkv != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "%lld query heads are not a multiple of %lld key/value heads",
                            (long long)a->hq, (long long)a->hkv);
    }
    a->ql = lay_of(r, a->hq, a->sq, a->dk);
    a->kl = lay_of(r, a->hkv, a->skv, a->dk);
    a->vl = lay_of(r, a->hkv, a->skv, a->dv);
    a->yl = lay_of(r, a->hq, a->sq, a->dv);
    *rank = r;
    return NULL;
fail:
    return st;
}

static ember_status *attn_past(const em_kinfo *ki, em_attn_attrs *a)
{
    ember_status *st = NULL;
    bool pk = em_ref_has_input(ki, 4), pv = em_ref_has_input(ki, 5);
    a->has_nonpad = em_ref_has_input(ki, 6);
    if (pk != pv || (pk && a->has_nonpad)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "past_key and past_value go together, and not with nonpad_kv_seqlen");
    }
    if (a->has_nonpad) {
        const em_tensor *np = &ki->in[6];
        EMBER_TRY(em_ref_check_tensor(ki, np, EMBER_DTYPE_I64, "input 6 (nonpad_kv_seqlen)"));
        if (np->rank != 1 || np->dims[0] != a->batch) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "nonpad_kv_seqlen must be [batch] = [%lld]", (long long)a->batch);
        }
    }
    if (pk) {
        const em_tensor *k = &ki->in[4], *v = &ki->in[5];
        EMBER_TRY(em_ref_check_tensor(ki, k, a->qt, "input 4 (past_key)"));
        EMBER_TRY(em_ref_check_tensor(ki, v, a->vt, "input 5 (past_value)"));
        int64_t kd[4] = {a->batch, a->hkv, k->rank == 4 ? k->dims[2] : 0, a->dk};
        int64_t vd[4] = {a->batch, a->hkv, kd[2], a->dv};
        if (k->rank != 4 || v->rank != 4 || memcmp(k->dims, kd, sizeof kd) != 0 ||
            memcmp(v->dims, vd, sizeof vd) != 0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "past_key / past_value must be [B, Hkv, P, Dk] / [B, Hkv, P, Dv]");
        }
        a->past = kd[2];
    }
    a->total = a->past + a->skv;
    int64_t pres[3][4] = {{a->batch, a->hkv, a->total, a->dk},
                          {a->batch, a->hkv, a->total, a->dv},
                          {a->batch, a->hq, a->sq, a->total}};
    static const char *const names[3] = {"output 1 (present_key)", "output 2 (present_value)",
                                         "output 3 (qk_matmul_output)"};
    for (int o = 1; o < ki->n_out; o++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[o], o == 2 ? a->vt : a->qt, names[o - 1]));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[o], pres[o - 1], 4, names[o - 1]));
    }
    return NULL;
fail:
    return st;
}

/* attn_mask: right-aligned to [B, Hq, Sq, T]; its last dim may be shorter than T. */
static ember_status *attn_mask(const em_kinfo *ki, em_attn_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *m = &ki->in[3];
    a->has_mask = em_ref_has_input(ki, 3);
    if (!a->has_mask) {
        return NULL;
    }
    EMBER_TRY(em_ref_check_tensor(ki, m, EMBER_DTYPE_UNDEFINED, "input 3 (attn_mask)"));
    EMBER_TRY(em_nn_check_dtype(ki, m,
                                EM_ATTN_FLOATS | EM_NN_INTS | EM_NN_BIT(BOOL) | EM_NN_BIT(I16) |
                                    EM_NN_BIT(U16) | EM_NN_BIT(U32) | EM_NN_BIT(U64),
                                "input 3 (attn_mask)"));
    const int64_t target[3] = {a->batch, a->hq, a->sq};
    if (m->rank < 1 || m->rank > 4 || m->dims[m->rank - 1] > a->total) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attn_mask must have rank 1..4 and at most %lld keys",
                            (long long)a->total);
    }
    a->mt = m->dtype;
    a->mask_bool = m->dtype == EMBER_DTYPE_BOOL;
    a->mlen = m->dims[m->rank - 1];
    int64_t stride = a->mlen;
    for (int ax = 2; ax >= 0; ax--) {
        int md = ax - (4 - m->rank); /* the mask's axis aligned with target axis ax */
        int64_t dim = md >= 0 ? m->dims[md] : 1;
        if (dim != 1 && dim != target[ax]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "attn_mask dim %d (%lld) does not broadcast to %lld", md,
                                (long long)dim, (long long)target[ax]);
        }
        a->mstride[ax] = dim == 1 ? 0 : stride;
        stride *= dim;
    }
    return NULL;
fail:
    return st;
}

static ember_status *attn_attrs(const em_kinfo *ki, em_attn_attrs *a)
{
    ember_status *st = NULL;
    int64_t causal, mode, sp;
    float scale, softcap;
    EMBER_TRY(em_ref_attr_int(ki, "is_causal", 0, &causal));
    EMBER_TRY(em_ref_attr_int(ki, "qk_matmul_output_mode", 0, &mode));
    EMBER_TRY(em_ref_attr_int(ki, "softmax_precision", 0, &sp));
    EMBER_TRY(em_ref_attr_int(ki, "left_window_size", -1, &a->left));
    EMBER_TRY(em_ref_attr_int(ki, "right_window_size", -1, &a->right));
    EMBER_TRY(em_ref_attr_float(ki, "scale", 0.0f, &scale));
    EMBER_TRY(em_ref_attr_float(ki, "softcap", 0.0f, &softcap));
    bool has_scale = ki->node != NULL && em_node_attr(ki->node, "scale") != NULL;
    if (mode < 0 || mode > 3 || a->left < -1 || a->right < -1 || (has_scale && !(scale >= 0.0f)) ||
        !(softcap >= 0.0f)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "qk_matmul_output_mode must be 0..3, window sizes >= -1, scale and "
                            "softcap >= 0");
    }
    if (sp != 0 && sp != EMBER_DTYPE_F32 && sp != EMBER_DTYPE_F16 && sp != EMBER_DTYPE_F64 &&
        sp != EMBER_DTYPE_BF16) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "softmax_precision %lld is not 1, 10, 11 or 16", (long long)sp);
    }
    a->causal = causal != 0;
    a->mode = (int)mode;
    a->sp = sp != 0 ? (ember_dtype)sp : a->qt;
    a->softcap = softcap;
    double sc = has_scale ? (double)scale : 1.0 / sqrt((double)a->dk);
    a->s = em_math_round(a->qt, sqrt(sc));
    return NULL;
fail:
    return st;
}

ember_status *em_attention_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_attn_attrs a;
    int rank = 0;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 7, 4));
    EMBER_TRY(em_attn_check_float(ki, &ki->in[0], "input 0 (Q)"));
    a.qt = ki->in[0].dtype;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], a.qt, "input 1 (K)"));
    EMBER_TRY(em_attn_check_float(ki, &ki->in[2], "input 2 (V)"));
    a.vt = ki->in[2].dtype;
    EMBER_TRY(attn_dims(ki, &a, &rank));
    EMBER_TRY(attn_past(ki, &a));
    EMBER_TRY(attn_mask(ki, &a));
    EMBER_TRY(attn_attrs(ki, &a));
    const int64_t yd[4] = {a.batch, rank == 4 ? a.hq : a.sq, rank == 4 ? a.sq : a.hq * a.dv, a.dv};
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], a.qt, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], yd, rank, "output 0 (Y)"));
    a.n_out = ki->n_out;
    a.slots = em_attn_slots(ki, a.batch * a.hq * a.sq);
    size_t per = (size_t)(a.dk + 3 * a.total), bytes;
    if (!em_size_mul(per, sizeof(double), &bytes) || !em_size_mul(bytes, (size_t)a.slots, &bytes)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "scratch size overflows");
    }
    *scratch_bytes = bytes;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* ---- run ----------------------------------------------------------------------------------- */

typedef struct attn_job {
    const em_attn_attrs *a;
    const em_tensor *in;
    em_tensor *out;
    double *scratch;
} attn_job;

/* The additive bias of key t for query row (b, h, i): 0, a mask value, or -inf. */
static double attn_bias(const attn_job *j, int64_t b, int64_t h, int64_t i, int64_t t, int64_t off)
{
    const em_attn_attrs *a = j->a;
    double v = 0.0;
    if (a->has_mask) {
        if (t >= a->mlen) {
            return -INFINITY;
        }
        int64_t idx = b * a->mstride[0] + h * a->mstride[1] + i * a->mstride[2] + t;
        double m = em_nn_get(a->mt, j->in[3].data, idx);
        if (a->mask_bool && m == 0.0) {
            return -INFINITY;
        }
        v = a->mask_bool ? 0.0 : em_math_round(a->qt, m);
    }
    int64_t diff = i + off - t; /* how far key t lies before the query's absolute position */
    if ((a->causal && diff < 0) || (a->left >= 0 && diff > a->left) ||
        (a->right >= 0 && -diff > a->right) ||
        (a->has_nonpad && t >= ((const int64_t *)j->in[6].data)[b])) {
        return -INFINITY;
    }
    return v;
}

/* Element d of key (or value when `val`) t of KV head kh in batch b, past first. */
static double attn_kv(const attn_job *j, bool val, int64_t b, int64_t kh, int64_t t, int64_t d)
{
    const em_attn_attrs *a = j->a;
    ember_dtype dt = val ? a->vt : a->qt;
    int64_t dd = val ? a->dv : a->dk;
    if (t < a->past) {
        return em_nn_get(dt, j->in[val ? 5 : 4].data, ((b * a->hkv + kh) * a->past + t) * dd + d);
    }
    const attn_lay *l = val ? &a->vl : &a->kl;
    return em_nn_get(dt, j->in[val ? 2 : 1].data, b * l->b + kh * l->h + (t - a->past) * l->s + d);
}

/* Softmax of x[0..n) + bias in place (in a->sp, rounded to T1); zeros when fully masked. */
static void attn_softmax(const em_attn_attrs *a, double *x, const double *bias, int64_t n)
{
    bool masked = true;
    double mx = -INFINITY, sum = 0.0;
    for (int64_t t = 0; t < n; t++) {
        masked = masked && bias[t] == -INFINITY;
        x[t] = em_math_round(a->sp, x[t]);
        mx = x[t] > mx || isnan(x[t]) ? x[t] : mx;
    }
    double base = mx == -INFINITY ? 0.0 : mx;
    for (int64_t t = 0; t < n; t++) {
        x[t] = em_math_round(a->sp, exp(em_math_round(a->sp, x[t] - base)));
        /* numpy sums f16 / f32 / f64 in at least float; ml_dtypes' bfloat16 adds in order,
         * rounding each partial sum */
        sum = a->sp == EMBER_DTYPE_BF16 ? em_math_round(a->sp, sum + x[t]) : sum + x[t];
    }
    sum = em_math_round(a->sp, sum == 0.0 ? 1.0 : sum);
    for (int64_t t = 0; t < n; t++) {
        x[t] = masked ? 0.0 : em_math_round(a->qt, em_math_round(a->sp, x[t] / sum));
    }
}

static void attn_row(const attn_job *j, int64_t b, int64_t h, int64_t i, double *w)
{
    const em_attn_attrs *a = j->a;
    const int64_t n = a->total, kh = h / (a->hq / a->hkv);
    double *qs = w, *raw = qs + a->dk, *x = raw + n, *bias = x + n;
    const int64_t q0 = b * a->ql.b + h * a->ql.h + i * a->ql.s;
    const int64_t off = a->has_nonpad ? ((const int64_t *)j->in[6].data)[b] - a->sq : a->past;
    for (int64_t d = 0; d < a->dk; d++) {
        qs[d] = em_math_round(a->qt, em_nn_get(a->qt, j->in[0].data, q0 + d) * a->s);
    }
    for (int64_t t = 0; t < n; t++) {
        double acc = 0.0;
        for (int64_t d = 0; d < a->dk; d++) {
            acc += qs[d] * em_math_round(a->qt, attn_kv(j, false, b, kh, t, d) * a->s);
        }
        raw[t] = x[t] = em_math_round(a->qt, acc);
        if (a->softcap > 0.0) {
            double c = em_math_round(a->qt, tanh(em_math_round(a->qt, x[t] / a->softcap)));
            x[t] = em_math_round(a->qt, c * a->softcap);
        }
        bias[t] = attn_bias(j, b, h, i, t, off);
    }
    const int64_t row = (b * a->hq + h) * a->sq + i;
    void *qk = a->n_out > 3 ? j->out[3].data : NULL;
    for (int64_t t = 0; qk != NULL && a->mode < 2 && t < n; t++) {
        em_nn_set(a->qt, qk, row * n + t, a->mode == 0 ? raw[t] : x[t]);
    }
    for (int64_t t = 0; t < n; t++) {
        x[t] = em_math_round(a->qt, x[t] + bias[t]);
    }
    for (int64_t t = 0; qk != NULL && a->mode == 2 && t < n; t++) {
        em_nn_set(a->qt, qk, row * n + t, x[t]);
    }
    attn_softmax(a, x, bias, n);
    for (int64_t t = 0; qk != NULL && a->mode == 3 && t < n; t++) {
        em_nn_set(a->qt, qk, row * n + t, x[t]);
    }
    const int64_t y0 = b * a->yl.b + h * a->yl.h + i * a->yl.s;
    for (int64_t d = 0; d < a->dv; d++) {
        double acc = 0.0;
        for (int64_t t = 0; t < n; t++) {
            acc += x[t] * attn_kv(j, true, b, kh, t, d);
        }
        em_nn_set(a->qt, j->out[0].data, y0 + d, acc);
    }
}

static void attn_task(void *arg, int64_t begin, int64_t end)
{
    const attn_job *j = arg;
    const em_attn_attrs *a = j->a;
    const int64_t rows = a->batch * a->hq * a->sq;
    for (int64_t s = begin; s < end; s++) {
        int64_t r0, r1;
        em_attn_slot_range(rows, a->slots, s, &r0, &r1);
        double *w = j->scratch + s * (a->dk + 3 * a->total);
        for (int64_t r = r0; r < r1; r++) {
            attn_row(j, r / (a->hq * a->sq), r / a->sq % a->hq, r % a->sq, w);
        }
    }
}

/* present_key / present_value: concat(past, K or V) along the sequence, as [B, Hkv, T, D]. */
static void attn_present(const attn_job *j, bool val)
{
    const em_attn_attrs *a = j->a;
    const int64_t dd = val ? a->dv : a->dk;
    void *y = j->out[val ? 2 : 1].data;
    int64_t o = 0;
    for (int64_t b = 0; b < a->batch; b++) {
        for (int64_t kh = 0; kh < a->hkv; kh++) {
            for (int64_t t = 0; t < a->total; t++) {
                for (int64_t d = 0; d < dd; d++) {
                    em_nn_set(val ? a->vt : a->qt, y, o++, attn_kv(j, val, b, kh, t, d));
                }
            }
        }
    }
}

void em_attention__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_attn_attrs *a = state;
    attn_job j = {a, in, out, ctx != NULL ? ctx->scratch : NULL};
    for (int o = 1; o < a->n_out && o < 3; o++) {
        attn_present(&j, o == 2);
    }
    if (a->batch * a->hq * a->sq > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->slots, 1, attn_task, &j);
    }
}
