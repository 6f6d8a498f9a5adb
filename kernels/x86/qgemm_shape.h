/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ISA-independent half of the int8 GEMM kernels (qgemm_driver.inc): what each op's
 * prepare accepts (QLinearConv: 2-D, any group, constant weights and parameters;
 * QLinearMatMul / MatMulInteger: per-tensor A / y parameters, per-tensor or per-column B
 * parameters, B shared by the batch or batched like A), and the conv's im2col gathers, in the
 * dot's byte form (activations as u8: s8 ones ^ 0x80, padding the zero point so shifted).
 */
#ifndef EMBER_KERNELS_X86_QGEMM_SHAPE_H
#define EMBER_KERNELS_X86_QGEMM_SHAPE_H

#include "kernels/vec/pool_shape.h" /* px_ints, px_auto_pad */
#include "quantization/qmath.h"

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum { QG_OUT_U8, QG_OUT_S8, QG_OUT_I32 };

#define QG_MAX_K_QLINEAR 33000 /* K * 255 * 255 < 2^31: the true sums fit int32 */

static inline ember_status *qg_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': int8 GEMM kernel: %s",
                         em_op_name(ki->node->op), ki->node->name, why);
}

static inline bool qg_q8(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_I8;
}

static inline bool qg_present(const em_kinfo *ki, int i)
{
    return i < ki->n_in && ki->in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

/* Input i (absent allowed when `optional`): dtype dt, one value, or (per_n) a 1-D tensor of
 * n values; its data is needed at prepare only when `constant`. */
static inline bool qg_param_ok(const em_kinfo *ki, int i, ember_dtype dt, bool optional, bool per_n,
                               int64_t n, bool constant)
{
    if (!qg_present(ki, i)) {
        return optional;
    }
    const em_tensor *t = &ki->in[i];
    if (t->dtype != dt || t->rank > 1 || (constant && t->data == NULL)) {
        return false;
    }
    int64_t cnt = em_tensor_numel(t);
    return cnt == 1 || (per_n && t->rank == 1 && cnt == n);
}

/* Value i of an 8-bit parameter (its only value when it has one). */
static inline int32_t qg_int(const em_tensor *t, int64_t i)
{
    int64_t k = em_tensor_numel(t) == 1 ? 0 : i;
    return t->dtype == EMBER_DTYPE_I8 ? ((const int8_t *)t->data)[k]
                                      : ((const uint8_t *)t->data)[k];
}

static inline float qg_f32(const em_tensor *t, int64_t i)
{
    return ((const float *)t->data)[em_tensor_numel(t) == 1 ? 0 : i];
}

/* 4 int32 sums -> 4 requantized int32 values in y's range, as the reference: (double)(acc +
 * bias) * mult, to nearest even, + y_zp, clamped to [lo, hi]. */
static inline __m128i qg_requant4(__m128i acc, __m256d bias, __m256d mult, __m256d zp, __m256d lo,
                                  __m256d hi)
{
    __m256d v = _mm256_mul_pd(_mm256_add_pd(_mm256_cvtepi32_pd(acc), bias), mult);
    v = _mm256_round_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(v, zp), lo), hi);
    return _mm256_cvtpd_epi32(v);
}

/* ---- QLinearConv ------------------------------------------------------------------------- */

typedef struct qgc_geom {
    int64_t n, c, m, ih, iw, oh, ow;
    int64_t kh, kw, sh, sw, dh, dw, pt, pl;
    int64_t group, cg, mg, k, p; /* channels / group, outputs / group, K = cg kh kw, P = oh ow */
    bool x_s8, w_s8, y_s8;
    int32_t xz_u; /* x's zero point as the u8 the dot sees */
    int32_t y_zp;
} qgc_geom;

static inline bool qgc_window(const em_kinfo *ki, qgc_geom *s)
{
    const em_node *n = ki->node;
    int64_t k[2], st[2], dl[2], pads[4];
    const char *ap = em_node_attr_string(n, "auto_pad", "NOTSET");
    if (!px_ints(n, "kernel_shape", 2, 0, k) || !px_ints(n, "strides", 2, 1, st) ||
        !px_ints(n, "dilations", 2, 1, dl) || !px_ints(n, "pads", 4, 0, pads)) {
        return false;
    }
    if (strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0 && strcmp(ap, "SAME_UPPER") != 0 &&
        strcmp(ap, "SAME_LOWER") != 0) {
        return false;
    }
    const em_tensor *w = &ki->in[3];
    for (int i = 0; i < 2; i++) {
        if ((k[i] != 0 && k[i] != w->dims[2 + i]) || st[i] < 1 || dl[i] < 1 || pads[i] < 0 ||
            pads[i + 2] < 0 || (strcmp(ap, "NOTSET") != 0 && (pads[i] || pads[i + 2]))) {
            return false;
        }
    }
    s->kh = w->dims[2], s->kw = w->dims[3];
    px_auto_pad(ap, s->ih, s->kh, st[0], dl[0], &pads[0], &pads[2]);
    px_auto_pad(ap, s->iw, s->kw, st[1], dl[1], &pads[1], &pads[3]);
    s->sh = st[0], s->sw = st[1], s->dh = dl[0], s->dw = dl[1], s->pt = pads[0], s->pl = pads[1];
    /* the output plane the shape rule gave must be the one this geometry makes */
    int64_t oh = (s->ih + pads[0] + pads[2] - (s->kh - 1) * s->dh - 1) / s->sh + 1;
    int64_t ow = (s->iw + pads[1] + pads[3] - (s->kw - 1) * s->dw - 1) / s->sw + 1;
    return oh == s->oh && ow == s->ow && s->pt <= 4096 && s->pl <= 4096;
}

/* QLinearConv(x, xs, xz, w, ws, wz, ys, yz[, B]) the GEMM kernels run. */
static inline ember_status *qgc_parse(const em_kinfo *ki, qgc_geom *g)
{
    memset(g, 0, sizeof *g);
    if (ki->n_in < 8 || ki->n_in > 9 || ki->n_out != 1) {
        return qg_decline(ki, "arity");
    }
    const em_tensor *x = &ki->in[0], *w = &ki->in[3], *y = &ki->out[0];
    if (!qg_q8(x->dtype) || !qg_q8(w->dtype) || !qg_q8(y->dtype) || x->rank != 4 || w->rank != 4 ||
        y->rank != 4) {
        return qg_decline(ki, "only 2-D u8 / s8 x, w and y");
    }
    int64_t group = em_node_attr_int(ki->node, "group", 1), m = w->dims[0];
    if (group < 1 || x->dims[1] % group != 0 || m % group != 0 ||
        w->dims[1] != x->dims[1] / group || y->dims[1] != m || y->dims[0] != x->dims[0]) {
        return qg_decline(ki, "group / channel counts");
    }
    if (w->data == NULL || !qg_param_ok(ki, 1, EMBER_DTYPE_F32, false, false, m, true) ||
        !qg_param_ok(ki, 4, EMBER_DTYPE_F32, false, true, m, true) ||
        !qg_param_ok(ki, 6, EMBER_DTYPE_F32, false, false, m, true) ||
        !qg_param_ok(ki, 2, x->dtype, true, false, m, true) ||
        !qg_param_ok(ki, 5, w->dtype, true, true, m, true) ||
        !qg_param_ok(ki, 7, y->dtype, true, false, m, true) ||
        (qg_present(ki, 8) && !qg_param_ok(ki, 8, EMBER_DTYPE_I32, false, true, m, true)) ||
        (qg_present(ki, 8) && (ki->in[8].rank != 1 || ki->in[8].dims[0] != m))) {
        return qg_decline(ki, "weights, bias, scales and zero points must be constants (f32 "
                              "scales)");
    }
    g->n = x->dims[0], g->c = x->dims[1], g->m = m, g->ih = x->dims[2], g->iw = x->dims[3];
    g->oh = y->dims[2], g->ow = y->dims[3];
    if (!qgc_window(ki, g)) {
        return qg_decline(ki, "window attributes");
    }
    g->group = group, g->cg = g->c / group, g->mg = m / group;
    g->k = g->cg * g->kh * g->kw;
    g->p = g->oh * g->ow;
    if (g->k > QG_MAX_K_QLINEAR || g->ow > 4096 || g->k == 0 || g->m == 0 || g->p == 0 ||
        g->n == 0) {
        return qg_decline(ki, "K above 33000 (int32 sums), an output row above 4096, or empty");
    }
    g->x_s8 = x->dtype == EMBER_DTYPE_I8;
    g->w_s8 = w->dtype == EMBER_DTYPE_I8;
    g->y_s8 = y->dtype == EMBER_DTYPE_I8;
    g->xz_u = (qg_present(ki, 2) ? qg_int(&ki->in[2], 0) : 0) + (g->x_s8 ? 128 : 0);
    g->y_zp = qg_present(ki, 7) ? qg_int(&ki->in[7], 0) : 0;
    return NULL;
}

/* The depthwise convs qdwconv_avx2.c takes (one channel a group, at most 64 taps). */
#define QDW_MAX_TAPS 64
static inline bool qgc_depthwise(const qgc_geom *g)
{
    return g->cg == 1 && g->mg == 1 && g->kh * g->kw <= QDW_MAX_TAPS;
}

/* w's zero point of output channel m as the s8 the dot sees. */
static inline int32_t qgc_wz_s(const em_kinfo *ki, const qgc_geom *g, int64_t m)
{
    return (qg_present(ki, 5) ? qg_int(&ki->in[5], m) : 0) - (g->w_s8 ? 0 : 128);
}

static inline double qgc_bias(const em_kinfo *ki, int64_t m)
{
    return qg_present(ki, 8) ? ((const int32_t *)ki->in[8].data)[m] : 0.0;
}

static inline double qgc_mult(const em_kinfo *ki, int64_t m)
{
    return em_q_multiplier(qg_f32(&ki->in[1], 0), qg_f32(&ki->in[4], m), qg_f32(&ki->in[6], 0));
}

/* Where im2col row k of group gr reads: channel c, tap (ky, kx); c < 0 for the rows k >= K. */
typedef struct qgc_tap {
    int64_t c, ky, kx;
} qgc_tap;

static inline qgc_tap qgc_tap_of(const qgc_geom *g, int64_t gr, int64_t k)
{
    qgc_tap t = {-1, 0, 0};
    if (k < g->k) {
        t.c = gr * g->cg + k / (g->kh * g->kw);
        t.ky = k % (g->kh * g->kw) / g->kw;
        t.kx = k % g->kw;
    }
    return t;
}

/* Row oy of the im2col row of tap t as the dot's u8: x (^ 0x80 for s8), xz_u outside the
 * input, 0 for the padding rows k >= K. */
static inline void qgc_gather(const qgc_geom *g, const uint8_t *x, qgc_tap tap, int64_t oy,
                              uint8_t *r)
{
    const int64_t ow = g->ow, iy = oy * g->sh - g->pt + tap.ky * g->dh;
    if (tap.c < 0) {
        memset(r, 0, (size_t)ow);
        return;
    }
    if (iy < 0 || iy >= g->ih) {
        memset(r, g->xz_u, (size_t)ow);
        return;
    }
    const uint8_t *row = x + (tap.c * g->ih + iy) * g->iw;
    const int64_t ix0 = tap.kx * g->dw - g->pl, sw = g->sw;
    /* ox in [lo, hi) reads inside the row */
    int64_t lo = ix0 >= 0 ? 0 : (-ix0 + sw - 1) / sw;
    int64_t hi = g->iw - ix0 <= 0 ? 0 : (g->iw - ix0 + sw - 1) / sw;
    hi = hi > ow ? ow : hi;
    lo = lo > hi ? hi : lo;
    memset(r, g->xz_u, (size_t)lo);
    const __m128i flip = _mm_set1_epi8(g->x_s8 ? (char)0x80 : 0);
    int64_t ox = lo;
    if (sw == 1) {
        for (; ox + 16 <= hi; ox += 16) {
            __m128i b = _mm_loadu_si128((const __m128i *)(row + ix0 + ox));
            _mm_storeu_si128((__m128i *)(r + ox), _mm_xor_si128(b, flip));
        }
        for (; ox + 8 <= hi; ox += 8) {
            __m128i b = _mm_loadl_epi64((const __m128i *)(row + ix0 + ox));
            _mm_storel_epi64((__m128i *)(r + ox), _mm_xor_si128(b, flip));
        }
    } else if (sw == 2) { /* the even bytes of 32 (all inside the row) */
        const __m128i lo8 = _mm_set1_epi16(0x00ff);
        for (; ox + 16 <= hi && ix0 + 2 * (ox + 16) <= g->iw; ox += 16) {
            const uint8_t *q = row + ix0 + 2 * ox;
            __m128i b0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)q), lo8);
            __m128i b1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(q + 16)), lo8);
            _mm_storeu_si128((__m128i *)(r + ox), _mm_xor_si128(_mm_packus_epi16(b0, b1), flip));
        }
        for (; ox + 8 <= hi && ix0 + 2 * (ox + 8) <= g->iw; ox += 8) {
            __m128i b0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(row + ix0 + 2 * ox)), lo8);
            _mm_storel_epi64((__m128i *)(r + ox), _mm_xor_si128(_mm_packus_epi16(b0, b0), flip));
        }
    }
    const uint8_t f = g->x_s8 ? 0x80 : 0;
    for (; ox < hi; ox++) {
        r[ox] = (uint8_t)(row[ix0 + ox * sw] ^ f);
    }
    memset(r + hi, g->xz_u, (size_t)(ow - hi));
}

/* Words v of columns p .. p + 3 into their panels of nr columns (one store unless they
 * straddle two). */
static inline void qgc_store4(int32_t *dst, int64_t panel, int64_t nr, int64_t p, __m128i v)
{
    if (p % nr <= nr - 4) {
        _mm_storeu_si128((__m128i *)(dst + (p / nr) * panel + p % nr), v);
        return;
    }
    int32_t w[4];
    _mm_storeu_si128((__m128i *)w, v);
    for (int i = 0; i < 4; i++, p++) {
        dst[(p / nr) * panel + p % nr] = w[i];
    }
}

/* ---- QLinearMatMul / MatMulInteger ------------------------------------------------------- */

typedef struct qgm_geom {
    bool qlinear;
    int ia, ib;             /* inputs A and B */
    int i_az, i_bz;         /* their zero points' inputs */
    int64_t batch, b_batch; /* output (= A's) batch count; B's: 1 (shared) or batch */
    int64_t m, k, n;
    bool a_s8, b_s8, y_s8;
    bool has_az, has_bz, has_yz; /* the optional zero points given */
} qgm_geom;

static inline int64_t qgm_batch(const em_tensor *t)
{
    int64_t b = 1;
    for (int d = 0; d + 2 < t->rank; d++) {
        b *= t->dims[d];
    }
    return b;
}

static inline ember_status *qgm_parse(const em_kinfo *ki, qgm_geom *g)
{
    memset(g, 0, sizeof *g);
    g->qlinear = ki->node->op == EM_OP_QLINEARMATMUL;
    g->ia = 0, g->ib = g->qlinear ? 3 : 1, g->i_az = 2, g->i_bz = g->qlinear ? 5 : 3;
    if ((g->qlinear && ki->n_in != 8) || (!g->qlinear && (ki->n_in < 2 || ki->n_in > 4)) ||
        ki->n_out != 1) {
        return qg_decline(ki, "arity");
    }
    const em_tensor *a = &ki->in[g->ia], *b = &ki->in[g->ib], *y = &ki->out[0];
    if (!qg_q8(a->dtype) || !qg_q8(b->dtype) || a->rank < 1 || b->rank < 1 ||
        (g->qlinear ? !qg_q8(y->dtype) : y->dtype != EMBER_DTYPE_I32)) {
        return qg_decline(ki, "only u8 / s8 operands");
    }
    g->m = a->rank < 2 ? 1 : a->dims[a->rank - 2];
    g->k = a->dims[a->rank - 1];
    g->n = b->rank < 2 ? 1 : b->dims[b->rank - 1];
    int64_t kb = b->rank < 2 ? b->dims[0] : b->dims[b->rank - 2];
    g->batch = qgm_batch(a);
    g->b_batch = qgm_batch(b);
    bool same = a->rank == b->rank;
    for (int d = 0; same && d + 2 < a->rank; d++) {
        same = a->dims[d] == b->dims[d];
    }
    if (kb != g->k || (g->b_batch != 1 && !same) || em_tensor_numel(y) != g->batch * g->m * g->n) {
        return qg_decline(ki, "only B shared by the batch or batched as A");
    }
    if (g->batch * g->m * g->k * g->n == 0) {
        return qg_decline(ki, "empty");
    }
    g->a_s8 = a->dtype == EMBER_DTYPE_I8;
    g->b_s8 = b->dtype == EMBER_DTYPE_I8;
    g->y_s8 = y->dtype == EMBER_DTYPE_I8;
    g->has_az = qg_present(ki, g->i_az);
    g->has_bz = qg_present(ki, g->i_bz);
    g->has_yz = g->qlinear && qg_present(ki, 7);
    bool ok = qg_param_ok(ki, g->i_az, a->dtype, true, false, g->m, false) &&
              qg_param_ok(ki, g->i_bz, b->dtype, true, b->rank >= 2, g->n, false);
    if (g->qlinear) {
        ok = ok && qg_param_ok(ki, 1, EMBER_DTYPE_F32, false, false, g->m, false) &&
             qg_param_ok(ki, 4, EMBER_DTYPE_F32, false, b->rank >= 2, g->n, false) &&
             qg_param_ok(ki, 6, EMBER_DTYPE_F32, false, false, g->m, false) &&
             qg_param_ok(ki, 7, y->dtype, true, false, g->m, false);
        ok = ok && g->k <= QG_MAX_K_QLINEAR;
    }
    if (!ok) {
        return qg_decline(ki, "parameters other than per tensor (A, y) or per column (B), f32 "
                              "scales, K <= 33000");
    }
    return NULL;
}

static inline int32_t qgm_az_u(const em_tensor *in, const qgm_geom *g)
{
    return (g->has_az ? qg_int(&in[g->i_az], 0) : 0) + (g->a_s8 ? 128 : 0);
}

static inline int32_t qgm_bz_s(const em_tensor *in, const qgm_geom *g, int64_t n)
{
    return (g->has_bz ? qg_int(&in[g->i_bz], n) : 0) - (g->b_s8 ? 0 : 128);
}

static inline double qgm_mult(const em_tensor *in, const qgm_geom *g, int64_t n)
{
    (void)g;
    return em_q_multiplier(qg_f32(&in[1], 0), qg_f32(&in[4], n), qg_f32(&in[6], 0));
}

static inline double qgm_yz(const em_tensor *in, const qgm_geom *g)
{
    return g->has_yz ? qg_int(&in[7], 0) : 0.0;
}

#endif /* EMBER_KERNELS_X86_QGEMM_SHAPE_H */
