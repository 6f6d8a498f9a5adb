/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AVX2 int8 kernels of the ops between a QDQ model's convolutions (issue #19), bitwise equal
 * to the reference kernels (kernels/ref/quant_ew_ref.c, nn_pool_ref.c):
 *  - QLinearAdd / QLinearMul (com.microsoft), u8 or s8, constant per-tensor parameters, A and B
 *    of one shape or one of them a single element: per 4 lanes of doubles,
 *    ((a - az) * as (+ or *) (b - bz) * bs) / cs, rounded to nearest even, + cz, clamped. Each
 *    product of an integer in [-255, 255] and a float scale is exact in double, so an FMA the
 *    compiler may fuse gives the reference's one rounding of the sum; the quotient rounds as
 *    the reference's division does. Scales are positive and finite (checked), so no NaN.
 *  - QLinearSigmoid / QLinearLeakyRelu: a 256-entry table built at prepare from the constant
 *    parameters with the reference's formula, then one byte lookup per element.
 *  - MaxPool of u8 / s8 (2-D NCHW, no Indices output): the max of the valid taps of each
 *    window in integers (the dtype's lowest value for a window wholly in the padding).
 * Anything else (broadcasting other than by a single element, parameters not constant, other
 * ranks) is declined to the reference.
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/status.h"
#include "kernels/vec/pool_shape.h"

#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define I8_BLOCK 16384 /* elements per parallel work item */

static ember_status *i8_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

static bool i8_q8(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_I8;
}

/* Constant per-tensor parameters (scale input si, zero point input zi, may be absent) of an
 * operand of dtype dt, into *s and *z; false unless prepare sees them. */
static bool i8_param(const em_kinfo *ki, int si, int zi, ember_dtype dt, double *s, double *z)
{
    if (si >= ki->n_in) {
        return false;
    }
    const em_tensor *st = &ki->in[si];
    if (st->dtype != EMBER_DTYPE_F32 || st->data == NULL ||
        em_tensor_numel(st) != 1) {
        return false;
    }
    float f = *(const float *)st->data;
    if (!(f > 0.0f) || isinf(f)) {
        return false;
    }
    *s = f;
    *z = 0.0;
    if (zi < ki->n_in && ki->in[zi].dtype != EMBER_DTYPE_UNDEFINED) {
        const em_tensor *zt = &ki->in[zi];
        if (zt->dtype != dt || zt->data == NULL || em_tensor_numel(zt) != 1) {
            return false;
        }
        *z = dt == EMBER_DTYPE_U8 ? *(const uint8_t *)zt->data : *(const int8_t *)zt->data;
    }
    return true;
}

/* ---- QLinearAdd / QLinearMul ------------------------------------------------------------- */

typedef struct i8_bin {
    bool s8, mul;
    int64_t n;
    bool a_one, b_one; /* a single element broadcast over the other */
    double as, az, bs, bz, cs, cz;
} i8_bin;

static ember_status *i8_bin_prepare(const em_kinfo *ki, bool mul, void **state,
                                    size_t *scratch_bytes)
{
    i8_bin b = {.mul = mul};
    *state = NULL;
    *scratch_bytes = 0;
    if (ki->n_in < 7 || ki->n_out != 1) {
        return i8_decline(ki, "arity");
    }
    const em_tensor *a = &ki->in[0], *bt = &ki->in[3], *y = &ki->out[0];
    ember_dtype dt = a->dtype;
    if (!i8_q8(dt) || bt->dtype != dt || y->dtype != dt) {
        return i8_decline(ki, "A, B and C must be one of uint8 / int8");
    }
    if (!i8_param(ki, 1, 2, dt, &b.as, &b.az) || !i8_param(ki, 4, 5, dt, &b.bs, &b.bz) ||
        !i8_param(ki, 6, 7, dt, &b.cs, &b.cz)) {
        return i8_decline(ki, "parameters not constant per-tensor positive scales");
    }
    b.s8 = dt == EMBER_DTYPE_I8;
    b.n = em_tensor_numel(y);
    b.a_one = em_tensor_numel(a) == 1 && b.n != 1;
    b.b_one = em_tensor_numel(bt) == 1 && !b.a_one;
    if ((!b.a_one && em_tensor_numel(a) != b.n) || (!b.b_one && em_tensor_numel(bt) != b.n) ||
        (!b.a_one && !em_tensor_same_shape(a, y)) || (!b.b_one && !em_tensor_same_shape(bt, y))) {
        return i8_decline(ki, "broadcasting other than by one element");
    }
    i8_bin *p = em_malloc(ki->al, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    *p = b;
    *state = p;
    return NULL;
}

ember_status *em_qlinearadd_i8_prepare__avx2(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    return i8_bin_prepare(ki, false, state, scratch_bytes);
}

ember_status *em_qlinearmul_i8_prepare__avx2(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    return i8_bin_prepare(ki, true, state, scratch_bytes);
}

/* 4 bytes at p widened to doubles. */
static inline __m256d i8_load4(const void *p, bool s8)
{
    int32_t w;
    memcpy(&w, p, 4);
    __m128i v = _mm_cvtsi32_si128(w);
    v = s8 ? _mm_cvtepi8_epi32(v) : _mm_cvtepu8_epi32(v);
    return _mm256_cvtepi32_pd(v);
}

/* One operand's real values: (x - z) * s; a broadcast operand repeats element 0. */
static inline __m256d i8_real(const uint8_t *x, int64_t i, bool one, bool s8, __m256d z,
                              __m256d s)
{
    __m256d v = one ? _mm256_set1_pd(s8 ? (double)(int8_t)x[0] : (double)x[0])
                    : i8_load4(x + i, s8);
    return _mm256_mul_pd(_mm256_sub_pd(v, z), s);
}

typedef struct i8_bin_args {
    const i8_bin *b;
    const uint8_t *a, *bb;
    uint8_t *y;
} i8_bin_args;

static double i8_bin_one(const i8_bin *b, double a, double c)
{
    double ra = (a - b->az) * b->as, rb = (c - b->bz) * b->bs;
    double v = rint((b->mul ? ra * rb : ra + rb) / b->cs) + b->cz;
    double lo = b->s8 ? -128.0 : 0.0, hi = b->s8 ? 127.0 : 255.0;
    return v < lo ? lo : v > hi ? hi : v;
}

static void i8_bin_task(void *arg, int64_t begin, int64_t end)
{
    const i8_bin_args *g = arg;
    const i8_bin *b = g->b;
    const int64_t i0 = begin * I8_BLOCK, i1 = end * I8_BLOCK < b->n ? end * I8_BLOCK : b->n;
    const __m256d az = _mm256_set1_pd(b->az), as = _mm256_set1_pd(b->as);
    const __m256d bz = _mm256_set1_pd(b->bz), bs = _mm256_set1_pd(b->bs);
    const __m256d cs = _mm256_set1_pd(b->cs), cz = _mm256_set1_pd(b->cz);
    const __m256d lo = _mm256_set1_pd(b->s8 ? -128.0 : 0.0), hi = _mm256_set1_pd(b->s8 ? 127 : 255);
    int64_t i = i0;
    for (; i + 4 <= i1; i += 4) {
        __m256d ra = i8_real(g->a, i, b->a_one, b->s8, az, as);
        __m256d rb = i8_real(g->bb, i, b->b_one, b->s8, bz, bs);
        __m256d v = b->mul ? _mm256_mul_pd(ra, rb) : _mm256_add_pd(ra, rb);
        v = _mm256_round_pd(_mm256_div_pd(v, cs), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(v, cz), lo), hi);
        __m128i q = _mm256_cvtpd_epi32(v); /* exact: integers in [-128, 255] */
        q = _mm_packs_epi32(q, q);
        q = b->s8 ? _mm_packs_epi16(q, q) : _mm_packus_epi16(q, q);
        int32_t w = _mm_cvtsi128_si32(q);
        memcpy(g->y + i, &w, 4);
    }
    for (; i < i1; i++) {
        double a = b->s8 ? (double)(int8_t)g->a[b->a_one ? 0 : i] : g->a[b->a_one ? 0 : i];
        double c = b->s8 ? (double)(int8_t)g->bb[b->b_one ? 0 : i] : g->bb[b->b_one ? 0 : i];
        double v = i8_bin_one(b, a, c);
        g->y[i] = b->s8 ? (uint8_t)(int8_t)v : (uint8_t)v;
    }
}

static void i8_bin_run(const void *state, const em_tensor *in, em_tensor *out,
                       const em_kctx *ctx)
{
    const i8_bin *b = state;
    i8_bin_args g = {b, in[0].data, in[3].data, out[0].data};
    if (b->n > 0) {
        em_parallel_for(ctx->pool, (b->n + I8_BLOCK - 1) / I8_BLOCK, 1, i8_bin_task, &g);
    }
}

void em_qlinearadd_i8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    i8_bin_run(state, in, out, ctx);
}

void em_qlinearmul_i8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    i8_bin_run(state, in, out, ctx);
}

/* ---- QLinearSigmoid / QLinearLeakyRelu: a table per byte --------------------------------- */

typedef struct i8_lut {
    int64_t n;
    uint8_t t[256]; /* indexed by the byte's bits */
} i8_lut;

ember_status *em_qlinear_lut_prepare__avx2(const em_kinfo *ki, void **state,
                                           size_t *scratch_bytes)
{
    double xs, xz, ys, yz;
    *state = NULL;
    *scratch_bytes = 0;
    if (ki->n_in < 4 || ki->n_out != 1) {
        return i8_decline(ki, "arity");
    }
    ember_dtype dt = ki->in[0].dtype;
    if (!i8_q8(dt) || ki->out[0].dtype != dt || !i8_param(ki, 1, 2, dt, &xs, &xz) ||
        !i8_param(ki, 3, 4, dt, &ys, &yz) || !em_tensor_same_shape(&ki->in[0], &ki->out[0])) {
        return i8_decline(ki, "u8 / s8 with constant per-tensor parameters only");
    }
    const em_attr *al = em_node_attr(ki->node, "alpha");
    const double alpha = al != NULL && al->type == EM_ATTR_FLOAT ? al->f : 0.01f;
    if (al != NULL && al->type != EM_ATTR_FLOAT) {
        return i8_decline(ki, "alpha is not a float");
    }
    i8_lut *p = em_malloc(ki->al, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    const bool s8 = dt == EMBER_DTYPE_I8, sig = ki->node->op == EM_OP_QLINEARSIGMOID;
    const double lo = s8 ? -128.0 : 0.0, hi = s8 ? 127.0 : 255.0;
    for (int k = 0; k < 256; k++) {
        double x = s8 ? (double)(int8_t)k : (double)k;
        double v = (x - xz) * xs; /* the reference's formula (quant_ew_ref.c) */
        v = sig ? 1.0 / (1.0 + exp(-v)) : v < 0.0 ? v * alpha : v;
        double q = rint(v / ys) + yz;
        q = q < lo ? lo : q > hi ? hi : q;
        p->t[k] = s8 ? (uint8_t)(int8_t)q : (uint8_t)q;
    }
    p->n = em_tensor_numel(&ki->out[0]);
    *state = p;
    return NULL;
}

typedef struct i8_lut_args {
    const i8_lut *l;
    const uint8_t *x;
    uint8_t *y;
} i8_lut_args;

static void i8_lut_task(void *arg, int64_t begin, int64_t end)
{
    const i8_lut_args *g = arg;
    const int64_t i1 = end * I8_BLOCK < g->l->n ? end * I8_BLOCK : g->l->n;
    for (int64_t i = begin * I8_BLOCK; i < i1; i++) {
        g->y[i] = g->l->t[g->x[i]];
    }
}

void em_qlinear_lut__avx2(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const i8_lut *l = state;
    i8_lut_args g = {l, in[0].data, out[0].data};
    if (l->n > 0) {
        em_parallel_for(ctx->pool, (l->n + I8_BLOCK - 1) / I8_BLOCK, 1, i8_lut_task, &g);
    }
}

/* ---- MaxPool of u8 / s8 -------------------------------------------------------------------- */

typedef struct i8_pool {
    px_state w; /* the window geometry of pool_shape.h (its tables unused) */
    bool s8;
    int64_t *taps; /* [2 * (oh + ow)]: first and end valid tap of each output row, column */
} i8_pool;

/* The first valid tap and the end tap of a window starting at `start` (em_ref_taps). */
static inline void i8_taps(int64_t start, int64_t k, int64_t dil, int64_t in, int64_t *lo,
                           int64_t *hi)
{
    int64_t l = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int64_t h = start >= in ? 0 : (in - 1 - start) / dil + 1;
    *lo = l;
    *hi = h > k ? k : h;
}

ember_status *em_maxpool_i8_prepare__avx2(const em_kinfo *ki, void **state,
                                          size_t *scratch_bytes)
{
    i8_pool p = {0};
    *state = NULL;
    *scratch_bytes = 0;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    if (ki->n_in != 1 || ki->n_out != 1 || !i8_q8(x->dtype) || y->dtype != x->dtype ||
        x->rank != 4 || y->rank != 4 || y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1]) {
        return i8_decline(ki, "2-D u8 / s8 MaxPool without Indices only");
    }
    if (em_node_attr_int(ki->node, "storage_order", 0) != 0) {
        return i8_decline(ki, "storage_order");
    }
    p.w.kind = PX_MAX;
    p.w.n_planes = x->dims[0] * x->dims[1];
    p.w.ih = x->dims[2], p.w.iw = x->dims[3], p.w.oh = y->dims[2], p.w.ow = y->dims[3];
    if (!px_parse_window(ki, &p.w)) {
        return i8_decline(ki, "window attributes");
    }
    p.s8 = x->dtype == EMBER_DTYPE_I8;
    i8_pool *s = em_malloc(ki->al, sizeof *s);
    int64_t *t = em_malloc(ki->al, sizeof(int64_t) * (size_t)(2 * (p.w.oh + p.w.ow) + 1));
    if (s == NULL || t == NULL) {
        em_free(ki->al, s);
        em_free(ki->al, t);
        return em_status_oom();
    }
    for (int64_t o = 0; o < p.w.oh; o++) {
        i8_taps(o * p.w.sh - p.w.pt, p.w.kh, p.w.dh, p.w.ih, &t[2 * o], &t[2 * o + 1]);
    }
    for (int64_t o = 0; o < p.w.ow; o++) {
        int64_t *c = t + 2 * p.w.oh + 2 * o;
        i8_taps(o * p.w.sw - p.w.pl, p.w.kw, p.w.dw, p.w.iw, &c[0], &c[1]);
    }
    p.taps = t;
    *s = p;
    *state = s;
    return NULL;
}

void em_maxpool_i8_release__avx2(const ember_allocator *al, void *state)
{
    i8_pool *p = state;
    if (p != NULL) {
        em_free(al, p->taps);
        em_free(al, p);
    }
}

typedef struct i8_pool_args {
    const i8_pool *p;
    const uint8_t *x;
    uint8_t *y;
} i8_pool_args;

static void i8_pool_task(void *arg, int64_t begin, int64_t end)
{
    const i8_pool_args *g = arg;
    const px_state *w = &g->p->w;
    const bool s8 = g->p->s8;
    const int flip = s8 ? 0x80 : 0; /* s8 compared as u8 with the sign bit flipped */
    for (int64_t pl = begin; pl < end; pl++) {
        const uint8_t *x = g->x + pl * w->ih * w->iw;
        uint8_t *y = g->y + pl * w->oh * w->ow;
        const int64_t *tw_ = g->p->taps + 2 * w->oh;
        for (int64_t oh = 0; oh < w->oh; oh++) {
            const int64_t h0 = oh * w->sh - w->pt, hl = g->p->taps[2 * oh],
                          hh = g->p->taps[2 * oh + 1];
            for (int64_t ow = 0; ow < w->ow; ow++) {
                const int64_t w0 = ow * w->sw - w->pl, wl = tw_[2 * ow], wh = tw_[2 * ow + 1];
                int m = 0; /* the lowest value (0, or -128 flipped) for an empty window */
                for (int64_t th = hl; th < hh; th++) {
                    const uint8_t *row = x + (h0 + th * w->dh) * w->iw + w0;
                    for (int64_t tw = wl; tw < wh; tw++) {
                        int v = row[tw * w->dw] ^ flip;
                        m = v > m ? v : m;
                    }
                }
                y[oh * w->ow + ow] = (uint8_t)(m ^ flip);
            }
        }
    }
}

void em_maxpool_i8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx)
{
    const i8_pool *p = state;
    i8_pool_args g = {p, in[0].data, out[0].data};
    if (p->w.oh * p->w.ow > 0) {
        em_parallel_for(ctx->pool, p->w.n_planes, 1, i8_pool_task, &g);
    }
}

void em_int8_release__avx2(const ember_allocator *al, void *state)
{
    em_free(al, state);
}

/* ---- QGemm (com.microsoft) with constant B ----------------------------------------------- */

/* acc[m, n] = sum_k A[m, k] (B[k, n] - bz[n]) - az * colsum[n], exact in int32 for K < 33025;
 * then the reference's double arithmetic (quant_gemm_ref.c) for the bias, scales and output.
 * B is packed at prepare as int16 rows [N][K] of (B - bz). */
typedef struct i8_gemm {
    bool a_s8, y_q, y_s8;
    int64_t m, k, n, c_sm, c_sn; /* c_sm < 0: no C */
    double alpha, as, az, ys, yz;
    int16_t *bp;     /* [n][k] */
    int64_t *colsum; /* [n] */
    double *bs;      /* [n] */
} i8_gemm;

static void i8_gemm_free(const ember_allocator *al, i8_gemm *g)
{
    if (g != NULL) {
        em_free(al, g->bp);
        em_free(al, g->colsum);
        em_free(al, g->bs);
        em_free(al, g);
    }
}

void em_qgemm_i8_release__avx2(const ember_allocator *al, void *state)
{
    i8_gemm_free(al, state);
}

/* B's per-tensor or per-column constant scale / zero point of element n, or false. */
static bool i8_gemm_bparams(const em_kinfo *ki, const em_tensor *bt, i8_gemm *g)
{
    const em_tensor *s = &ki->in[4], *z = &ki->in[5];
    int64_t ns = em_tensor_numel(s);
    bool has_z = ki->n_in > 5 && z->dtype != EMBER_DTYPE_UNDEFINED;
    if (s->dtype != EMBER_DTYPE_F32 || s->data == NULL || s->rank > 1 || (ns != 1 && ns != g->n) ||
        (has_z && (z->dtype != bt->dtype || z->data == NULL || em_tensor_numel(z) != ns))) {
        return false;
    }
    const uint8_t *b = bt->data;
    const bool tb = em_node_attr_int(ki->node, "transB", 0) != 0, bs8 = bt->dtype == EMBER_DTYPE_I8;
    for (int64_t n = 0; n < g->n; n++) {
        int64_t pc = ns == 1 ? 0 : n;
        float f = ((const float *)s->data)[pc];
        if (!(f > 0.0f) || isinf(f)) {
            return false;
        }
        g->bs[n] = f;
        int32_t bz = !has_z ? 0 : bs8 ? ((const int8_t *)z->data)[pc] : ((const uint8_t *)z->data)[pc];
        int64_t sum = 0;
        for (int64_t k = 0; k < g->k; k++) {
            int64_t i = tb ? n * g->k + k : k * g->n + n;
            int32_t v = (bs8 ? (int32_t)(int8_t)b[i] : (int32_t)b[i]) - bz;
            g->bp[n * g->k + k] = (int16_t)v;
            sum += v;
        }
        g->colsum[n] = sum;
    }
    return true;
}

ember_status *em_qgemm_i8_prepare__avx2(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    if (ki->n_in < 6 || ki->n_out != 1) {
        return i8_decline(ki, "arity");
    }
    const em_tensor *a = &ki->in[0], *bt = &ki->in[3], *y = &ki->out[0];
    if (!i8_q8(a->dtype) || !i8_q8(bt->dtype) || a->rank != 2 || bt->rank != 2 ||
        bt->data == NULL || em_node_attr_int(ki->node, "transA", 0) != 0) {
        return i8_decline(ki, "u8 / s8 A [M, K] (no transA) and constant B only");
    }
    const bool tb = em_node_attr_int(ki->node, "transB", 0) != 0;
    const em_attr *al = em_node_attr(ki->node, "alpha");
    i8_gemm g = {.m = a->dims[0], .k = a->dims[1], .n = bt->dims[tb ? 0 : 1], .c_sm = -1};
    g.alpha = al != NULL && al->type == EM_ATTR_FLOAT ? al->f : 1.0f;
    g.a_s8 = a->dtype == EMBER_DTYPE_I8;
    if (bt->dims[tb ? 1 : 0] != g.k || g.k >= 33025 || (al != NULL && al->type != EM_ATTR_FLOAT) ||
        y->rank != 2 || y->dims[0] != g.m || y->dims[1] != g.n ||
        !i8_param(ki, 1, 2, a->dtype, &g.as, &g.az)) {
        return i8_decline(ki, "shapes, K >= 33025 or A's parameters not constant");
    }
    if (ki->n_in > 6 && ki->in[6].dtype != EMBER_DTYPE_UNDEFINED) {
        const em_tensor *c = &ki->in[6];
        int64_t cm = c->rank == 2 ? c->dims[0] : 1, cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
        if (c->dtype != EMBER_DTYPE_I32 || c->rank > 2 || (cm != 1 && cm != g.m) ||
            (cn != 1 && cn != g.n)) {
            return i8_decline(ki, "C is not an int32 broadcasting to [M, N]");
        }
        g.c_sn = cn == 1 ? 0 : 1;
        g.c_sm = cm == 1 ? 0 : cn;
    }
    g.y_q = ki->n_in > 7 && ki->in[7].dtype != EMBER_DTYPE_UNDEFINED;
    if (g.y_q ? !i8_q8(y->dtype) || !i8_param(ki, 7, 8, y->dtype, &g.ys, &g.yz)
              : y->dtype != EMBER_DTYPE_F32) {
        return i8_decline(ki, "y's parameters not constant");
    }
    g.y_s8 = y->dtype == EMBER_DTYPE_I8;
    i8_gemm *p = em_malloc(ki->al, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    *p = g;
    p->bp = em_malloc(ki->al, sizeof(int16_t) * (size_t)(g.n * g.k + 1));
    p->colsum = em_malloc(ki->al, sizeof(int64_t) * (size_t)(g.n + 1));
    p->bs = em_malloc(ki->al, sizeof(double) * (size_t)(g.n + 1));
    if (p->bp == NULL || p->colsum == NULL || p->bs == NULL) {
        i8_gemm_free(ki->al, p);
        return em_status_oom();
    }
    if (!i8_gemm_bparams(ki, bt, p)) {
        i8_gemm_free(ki->al, p);
        return i8_decline(ki, "B's parameters not constant (1 or N values, positive scales)");
    }
    *state = p;
    return NULL;
}

typedef struct i8_gemm_args {
    const i8_gemm *g;
    const uint8_t *a;
    const int32_t *c;
    void *y;
} i8_gemm_args;

static int32_t i8_dot(const uint8_t *a, bool s8, const int16_t *b, int64_t k)
{
    int32_t acc = 0;
    if (s8) {
        const int8_t *as = (const int8_t *)a;
        for (int64_t i = 0; i < k; i++) {
            acc += (int32_t)as[i] * (int32_t)b[i];
        }
    } else {
        for (int64_t i = 0; i < k; i++) {
            acc += (int32_t)a[i] * (int32_t)b[i];
        }
    }
    return acc;
}

static void i8_gemm_rows(void *arg, int64_t begin, int64_t end)
{
    const i8_gemm_args *x = arg;
    const i8_gemm *g = x->g;
    const double lo = g->y_s8 ? -128.0 : 0.0, hi = g->y_s8 ? 127.0 : 255.0;
    for (int64_t m = begin; m < end; m++) {
        for (int64_t n = 0; n < g->n; n++) {
            int64_t acc = (int64_t)i8_dot(x->a + m * g->k, g->a_s8, g->bp + n * g->k, g->k) -
                          (int64_t)g->az * g->colsum[n];
            if (g->c_sm >= 0) {
                acc += x->c[m * g->c_sm + n * g->c_sn];
            }
            double real = g->alpha * g->as * g->bs[n] * (double)acc;
            if (!g->y_q) {
                ((float *)x->y)[m * g->n + n] = (float)real;
                continue;
            }
            double q = rint(real / g->ys) + g->yz;
            q = q < lo ? lo : q > hi ? hi : q;
            ((uint8_t *)x->y)[m * g->n + n] = g->y_s8 ? (uint8_t)(int8_t)q : (uint8_t)q;
        }
    }
}

void em_qgemm_i8__avx2(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const i8_gemm *g = state;
    i8_gemm_args x = {g, in[0].data, g->c_sm >= 0 ? in[6].data : NULL, out[0].data};
    if (g->m * g->n > 0) {
        em_parallel_for(ctx->pool, g->m, 1, i8_gemm_rows, &x);
    }
}
