/* SPDX-License-Identifier: Apache-2.0 */
/*
 * QLinearConv (ONNX semantics, quant_conv_ref.c) on AVX2, bitwise equal to the reference:
 * 2-D, group 1, u8 or s8 x / y, u8 or s8 w with a per-tensor or per-output-channel zero point,
 * optional int32 bias, any kernel size, strides, dilations, pads or auto_pad. The graph pass
 * runtime/passes/passes_qdq.c rewrites DequantizeLinear -> Conv -> QuantizeLinear chains to it.
 *
 * The convolution is a GEMM Y[M, P] = A[M, K] x B[K, P] per image (M output channels, K =
 * C * kH * kW, P = oH * oW output pixels), in NCHW as the op is: each row of Y is one output
 * channel's plane, written as bytes straight into y.
 *
 * Exactness (the AVX2 path, no VNNI): both operands are widened to int16 with their zero
 * points subtracted (x - x_zp and w - w_zp both lie in [-255, 255]), so vpmaddwd's products
 * (|p| <= 65025) and pair sums are exact in int32; the per-pixel sums stay below 2^31 because
 * prepare declines K > 33000 (K * 65025 < 2^31). No zero-point compensation terms are
 * needed, and padding is the int16 value 0, i.e. x_zp, as the spec's "x - x_zp, then
 * convolve" reads. vpmaddubsw (u8 x s8) saturates its int16 pair sums (up to 2 * 255 * 128 =
 * 65280 > 32767), so it runs only where proven exact (below). The VNNI kernels
 * (vpdpbusd, exact int32 sums of 4 u8 x s8 products) are qgemm_*.c (qgemm_driver.inc), above
 * this one where CPUID has VNNI; their exact AVX2 emulation (two vpmaddwd per 4 products, plus
 * the byte splits) costs more than this kernel's one vpmaddwd per 2 (docs/NOTES.md), so this
 * stays the AVX2 choice for group-1 convs and the emulated one takes the grouped ones.
 *
 * Layout. A (weights, constant) is packed once in prepare as int32 words holding the int16
 * pair (w[m][2j], w[m][2j+1]) - w_zp[m], in blocks of QC_MR rows: A[mb][j][r] (K is padded to
 * an even count, M to a multiple of QC_MR, with zeros). B (the im2col of one image) is packed
 * per run into scratch as int32 pair words too: B[j][p] = (x[2j at p], x[2j+1 at p]) - x_zp,
 * one row of P words per K pair, B[j][p] (P rounded up to 16 with zeros, plus 16 words of
 * slack for the packing's whole-vector stores), so the packing writes in order and a 5x16
 * micro-kernel reads one 64-byte line per pair of K of its 16 columns, and broadcasts one
 * word of A per row: 10 vpmaddwd + 10 vpaddd per K pair (10 accumulators, two B vectors, A's
 * broadcast and a product: 14 of the 16 ymm registers, no spills). (A panel-major B,
 * [p / 16][j][p % 16], read contiguously, was slower: its packing scatters 64-byte stores
 * over a buffer larger than L2.)
 * Requantization, as the reference: (double)(acc + bias[m]) * mult[m] (mult from
 * em_q_multiplier, in double as the reference), vroundpd to nearest even, + y_zp, clamped
 * to y's range, packed to bytes.
 * Work: the packing is split over K pairs, the GEMM over (16-column block, 48-row group)
 * tiles; each image of the batch in turn.
 *
 * The vpmaddubsw path (u8 x times s8 w - w_zp, pair sums saturated to int16; one vpmaddubsw
 * + one vpmaddwd by ones per 4 products, and half the bytes packed) runs a call only where
 * it is exact: prepare finds xlim, the largest u8 activation for which no weight pair's sum
 * can leave int16 (qc_prepare_ubs; 255 for 7-bit weights, at least 128 for any s8 weights),
 * and each call takes the max of x (as the u8 the dot sees) and its zero point; above xlim
 * the call runs the int16 path. B is then words of 4 u8 per K quad, [kq][pp + 16], A words
 * of 4 s8, and the zero point enters as bias - x_zp * sum_k (w - w_zp), from prepare.
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/status.h"
#include "qgemm_shape.h" /* qgc_parse */

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define QC_MR 5 /* the micro-kernel's rows: qc_tile names its 10 accumulators */
#define QC_NR 16
#define QC_MGROUP 8    /* QC_MR blocks per GEMM task */
#define QC_MAX_OW 4096 /* the im2col row buffers live on the stack */

typedef struct qc_state {
    int64_t n, c, m, ih, iw, oh, ow;
    int64_t kh, kw, sh, sw, dh, dw, pt, pl;
    int64_t k, kp2, p, pp, mp; /* K, K pairs, P, P rounded to QC_NR, M rounded to QC_MR */
    bool x_s8, y_s8;
    int32_t x_zp, y_zp;
    int32_t *a;   /* [mp / QC_MR][kp2][QC_MR] */
    double *bias; /* [mp] */
    double *mult; /* [mp] */
    /* the vpmaddubsw path: NULL a8 when some w - w_zp leaves s8 */
    qgc_geom g;     /* for qgc_gather (the im2col as the u8 x ^ 0x80 for s8) */
    int64_t kq;     /* K quads */
    bool plain_1x1; /* 1x1, stride 1, no padding: the im2col is x */
    int32_t xlim;   /* the largest u8 activation for which every pair sum fits int16 */
    int32_t *a8;    /* [mp / QC_MR][kq][QC_MR] words of 4 s8 w - w_zp */
    double *bias8;  /* [mp] bias - xz_u * sum_k (w - w_zp) */
} qc_state;

void em_qlinearconv_u8_release__avx2(const ember_allocator *al, void *state)
{
    qc_state *s = state;
    if (s != NULL) {
        em_aligned_free(al, s->a);
        em_aligned_free(al, s->a8);
        em_free(al, s->bias8);
        em_free(al, s->bias);
        em_free(al, s->mult);
        em_free(al, s);
    }
}

/* The vpmaddubsw form of the weights (u8 x times s8 w - w_zp, pair sums saturated to int16):
 * exact for a call whose activations (and padding value) are all <= xlim, the largest u8 for
 * which every pair (k, k + 1) of every row keeps its sum in int16: with P the sum of the
 * pair's positive weights and N of its negative ones' magnitudes, xlim * P <= 32767 and
 * xlim * N <= 32768. Symmetric 7-bit weights (|w| <= 64) give xlim = 255; any s8 weights give
 * xlim >= 127. Leaves a8 NULL (int16 path only) when some w - w_zp leaves s8. */
static ember_status *qc_prepare_ubs(const em_kinfo *ki, qc_state *p)
{
    const em_tensor *w = &ki->in[3];
    const bool wz = qg_present(ki, 5);
    const int64_t k = p->k, m = p->m;
    p->kq = (k + 3) / 4;
    p->xlim = 255;
    for (int64_t r = 0; r < m; r++) {
        int32_t wzr = wz ? (int32_t)qg_int(&ki->in[5], r) : 0;
        for (int64_t i = 0; i < k; i++) {
            int32_t v = (int32_t)qg_int(w, r * k + i) - wzr;
            if (v < -128 || v > 127) {
                return NULL;
            }
        }
        for (int64_t i = 0; i < k; i += 2) {
            int32_t a = (int32_t)qg_int(w, r * k + i) - wzr;
            int32_t b = i + 1 < k ? (int32_t)qg_int(w, r * k + i + 1) - wzr : 0;
            int32_t pos = (a > 0 ? a : 0) + (b > 0 ? b : 0),
                    neg = (a < 0 ? -a : 0) + (b < 0 ? -b : 0);
            if (pos > 0 && 32767 / pos < p->xlim) {
                p->xlim = 32767 / pos;
            }
            if (neg > 0 && 32768 / neg < p->xlim) {
                p->xlim = 32768 / neg;
            }
        }
    }
    p->a8 = em_aligned_alloc(ki->al, sizeof(int32_t) * (size_t)(p->mp * p->kq));
    p->bias8 = em_malloc(ki->al, sizeof(double) * (size_t)p->mp);
    if (p->a8 == NULL || p->bias8 == NULL) {
        return em_status_oom();
    }
    for (int64_t r = 0; r < p->mp; r++) {
        int32_t wzr = r < m && wz ? (int32_t)qg_int(&ki->in[5], r) : 0;
        int64_t sum = 0;
        for (int64_t j = 0; j < p->kq; j++) {
            uint32_t word = 0;
            for (int64_t b = 0; b < 4; b++) {
                int32_t v =
                    r < m && 4 * j + b < k ? (int32_t)qg_int(w, r * k + 4 * j + b) - wzr : 0;
                sum += v;
                word |= (uint32_t)(uint8_t)(int8_t)v << (8 * b);
            }
            p->a8[(r / QC_MR * p->kq + j) * QC_MR + r % QC_MR] = (int32_t)word;
        }
        p->bias8[r] = p->bias[r] - (double)p->g.xz_u * (double)sum;
    }
    return NULL;
}

ember_status *em_qlinearconv_u8_prepare__avx2(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    qgc_geom g;
    ember_status *st = qgc_parse(ki, &g);
    if (st != NULL) {
        return st;
    }
    if (g.group != 1) {
        return qg_decline(ki, "only group 1 (the GEMM-core kernel takes groups)");
    }
    const em_tensor *w = &ki->in[3];
    const int64_t m = g.m;
    const bool wz = qg_present(ki, 5);
    qc_state s = {0};
    s.n = g.n, s.c = g.c, s.m = m, s.ih = g.ih, s.iw = g.iw, s.oh = g.oh, s.ow = g.ow;
    s.kh = g.kh, s.kw = g.kw, s.sh = g.sh, s.sw = g.sw, s.dh = g.dh, s.dw = g.dw;
    s.pt = g.pt, s.pl = g.pl, s.k = g.k;
    s.kp2 = (s.k + 1) / 2;
    s.p = s.oh * s.ow;
    s.pp = (s.p + QC_NR - 1) / QC_NR * QC_NR;
    s.mp = (m + QC_MR - 1) / QC_MR * QC_MR;
    s.x_s8 = g.x_s8;
    s.y_s8 = g.y_s8;
    s.x_zp = g.xz_u - (g.x_s8 ? 128 : 0);
    s.y_zp = g.y_zp;

    qc_state *p = em_malloc(ki->al, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    *p = s;
    p->a = em_aligned_alloc(ki->al, sizeof(int32_t) * (size_t)(s.mp * s.kp2));
    p->bias = em_malloc(ki->al, sizeof(double) * (size_t)s.mp);
    p->mult = em_malloc(ki->al, sizeof(double) * (size_t)s.mp);
    if (p->a == NULL || p->bias == NULL || p->mult == NULL) {
        em_qlinearconv_u8_release__avx2(ki->al, p);
        return em_status_oom();
    }
    for (int64_t r = 0; r < s.mp; r++) {
        int64_t mb = r / QC_MR, rr = r % QC_MR;
        int32_t wzr = r < m && wz ? (int32_t)qg_int(&ki->in[5], r) : 0;
        for (int64_t j = 0; j < s.kp2; j++) {
            int32_t lo = 0, hi = 0;
            if (r < m) {
                lo = (int32_t)qg_int(w, r * s.k + 2 * j) - wzr;
                hi = 2 * j + 1 < s.k ? (int32_t)qg_int(w, r * s.k + 2 * j + 1) - wzr : 0;
            }
            p->a[(mb * s.kp2 + j) * QC_MR + rr] =
                (int32_t)(((uint32_t)(uint16_t)(int16_t)hi << 16) | (uint16_t)(int16_t)lo);
        }
        p->bias[r] = r < m ? qgc_bias(ki, r) : 0.0;
        p->mult[r] = r < m ? qgc_mult(ki, r) : 0.0;
    }
    p->g = g;
    p->plain_1x1 = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 &&
                   g.oh == g.ih && g.ow == g.iw;
    st = qc_prepare_ubs(ki, p);
    if (st != NULL) {
        em_qlinearconv_u8_release__avx2(ki->al, p);
        return st;
    }
    *scratch_bytes = sizeof(int32_t) * (size_t)(s.kp2 * (s.pp + QC_NR));
    if (p->a8 != NULL && sizeof(int32_t) * (size_t)(p->kq * (s.pp + QC_NR)) > *scratch_bytes) {
        *scratch_bytes = sizeof(int32_t) * (size_t)(p->kq * (s.pp + QC_NR));
    }
    *state = p;
    return NULL;
}

/* ---- im2col into int16 pairs ------------------------------------------------------------- */

typedef struct qc_job qc_job;
struct qc_job {
    const qc_state *s;
    const uint8_t *x; /* this image */
    uint8_t *y;       /* this image */
    int32_t *b;       /* [kp2][pp + QC_NR] int16 pairs, or [kq][pp + QC_NR] words of 4 u8 */
    void (*tile)(const qc_job *j, int64_t m0, int64_t p0); /* qc_tile or qc_tile8 */
};

/* Where im2col row k reads: channel c, tap (ky, kx); c < 0 for the zero rows k >= K. */
typedef struct qc_tap {
    int64_t c, ky, kx;
} qc_tap;

static qc_tap qc_tap_of(const qc_state *s, int64_t k)
{
    qc_tap t = {-1, 0, 0};
    if (k < s->k) {
        t.c = k / (s->kh * s->kw);
        t.ky = k % (s->kh * s->kw) / s->kw;
        t.kx = k % s->kw;
    }
    return t;
}

/* Row oy of the im2col row of tap t, minus x_zp, as int16 (0 outside the input). */
static void qc_gather(const qc_state *s, const uint8_t *x, qc_tap tap, int64_t oy, int16_t *r)
{
    const int64_t ow = s->ow, iy = oy * s->sh - s->pt + tap.ky * s->dh;
    if (tap.c < 0 || iy < 0 || iy >= s->ih) {
        memset(r, 0, sizeof(int16_t) * (size_t)ow);
        return;
    }
    const uint8_t *row = x + (tap.c * s->ih + iy) * s->iw;
    const int64_t ix0 = tap.kx * s->dw - s->pl, sw = s->sw;
    /* ox in [lo, hi) reads inside the row */
    int64_t lo = ix0 >= 0 ? 0 : (-ix0 + sw - 1) / sw;
    int64_t hi = s->iw - ix0 <= 0 ? 0 : (s->iw - ix0 + sw - 1) / sw;
    hi = hi > ow ? ow : hi;
    lo = lo > hi ? hi : lo;
    for (int64_t ox = 0; ox < lo; ox++) {
        r[ox] = 0;
    }
    const int16_t zp = (int16_t)s->x_zp;
    int64_t ox = lo;
    const __m256i vz = _mm256_set1_epi16(zp);
    if (sw == 1) {
        for (; ox + 16 <= hi; ox += 16) {
            __m128i b = _mm_loadu_si128((const __m128i *)(row + ix0 + ox));
            __m256i v = s->x_s8 ? _mm256_cvtepi8_epi16(b) : _mm256_cvtepu8_epi16(b);
            _mm256_storeu_si256((__m256i *)(r + ox), _mm256_sub_epi16(v, vz));
        }
        for (; ox + 8 <= hi; ox += 8) {
            __m128i b = _mm_loadl_epi64((const __m128i *)(row + ix0 + ox));
            __m128i v = s->x_s8 ? _mm_cvtepi8_epi16(b) : _mm_cvtepu8_epi16(b);
            _mm_storeu_si128((__m128i *)(r + ox), _mm_sub_epi16(v, _mm256_castsi256_si128(vz)));
        }
    } else if (sw == 2) { /* the even bytes of 32 (all inside the row) */
        const __m128i lo8 = _mm_set1_epi16(0x00ff);
        for (; ox + 16 <= hi && ix0 + 2 * (ox + 16) <= s->iw; ox += 16) {
            const uint8_t *q = row + ix0 + 2 * ox;
            __m128i b0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)q), lo8);
            __m128i b1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(q + 16)), lo8);
            __m128i b = _mm_packus_epi16(b0, b1);
            __m256i v = s->x_s8 ? _mm256_cvtepi8_epi16(b) : _mm256_cvtepu8_epi16(b);
            _mm256_storeu_si256((__m256i *)(r + ox), _mm256_sub_epi16(v, vz));
        }
        for (; ox + 8 <= hi && ix0 + 2 * (ox + 8) <= s->iw; ox += 8) {
            __m128i b0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(row + ix0 + 2 * ox)), lo8);
            __m128i b = _mm_packus_epi16(b0, b0);
            __m128i v = s->x_s8 ? _mm_cvtepi8_epi16(b) : _mm_cvtepu8_epi16(b);
            _mm_storeu_si128((__m128i *)(r + ox), _mm_sub_epi16(v, _mm256_castsi256_si128(vz)));
        }
    }
    for (; ox < hi; ox++) {
        uint8_t v = row[ix0 + ox * sw];
        r[ox] = (int16_t)((s->x_s8 ? (int16_t)(int8_t)v : (int16_t)v) - zp);
    }
    for (ox = hi; ox < ow; ox++) {
        r[ox] = 0;
    }
}

/* K pairs begin .. end of the im2col as int16 pair words, one row of pp + QC_NR words a pair,
 * [kp2][pp + QC_NR], written in order 8 columns at a time even past the end of an output row
 * (the next row overwrites them; the slack takes the last row's). */
static void qc_pack_task(void *arg, int64_t begin, int64_t end)
{
    const qc_job *j = arg;
    const qc_state *s = j->s;
    int16_t r0[QC_MAX_OW + 8], r1[QC_MAX_OW + 8];
    memset(r0 + s->ow, 0, sizeof r0 - sizeof(int16_t) * (size_t)s->ow);
    memset(r1 + s->ow, 0, sizeof r1 - sizeof(int16_t) * (size_t)s->ow);
    const int64_t row = s->pp + QC_NR;
    for (int64_t kk = begin; kk < end; kk++) {
        int32_t *dst = j->b + kk * row;
        const qc_tap t0 = qc_tap_of(s, 2 * kk), t1 = qc_tap_of(s, 2 * kk + 1);
        for (int64_t oy = 0; oy < s->oh; oy++, dst += s->ow) {
            qc_gather(s, j->x, t0, oy, r0);
            qc_gather(s, j->x, t1, oy, r1);
            for (int64_t ox = 0; ox < s->ow; ox += 8) {
                __m128i a = _mm_loadu_si128((const __m128i *)(r0 + ox));
                __m128i b = _mm_loadu_si128((const __m128i *)(r1 + ox));
                _mm_storeu_si128((__m128i *)(dst + ox), _mm_unpacklo_epi16(a, b));
                _mm_storeu_si128((__m128i *)(dst + ox + 4), _mm_unpackhi_epi16(a, b));
            }
        }
        memset(dst, 0, sizeof(int32_t) * (size_t)(s->pp - s->p));
    }
}

/* ---- GEMM and requantization --------------------------------------------------------------- */

static inline void qc_tile_store(const qc_job *j, int64_t m0, int64_t p0, __m256i c[QC_MR][2],
                                 const double *bias_m);

/* Rows m0 .. m0 + QC_MR (those < M) of columns p0 .. p0 + QC_NR (those < P). */
static void qc_tile(const qc_job *j, int64_t m0, int64_t p0)
{
    const qc_state *s = j->s;
    const int32_t *a = s->a + m0 * s->kp2; /* block m0 / QC_MR */
    const int32_t *b = j->b + p0;          /* [kp2][pp + QC_NR] */
    const int64_t row = s->pp + QC_NR;
    /* named accumulators (an array indexed in the epilogue's loop would live on the stack) */
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00;
    for (int64_t kk = 0; kk < s->kp2; kk++, a += QC_MR, b += row) {
        __m256i b0 = _mm256_loadu_si256((const __m256i *)b);
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + 8));
        __m256i av = _mm256_set1_epi32(a[0]);
        c00 = _mm256_add_epi32(c00, _mm256_madd_epi16(av, b0));
        c01 = _mm256_add_epi32(c01, _mm256_madd_epi16(av, b1));
        av = _mm256_set1_epi32(a[1]);
        c10 = _mm256_add_epi32(c10, _mm256_madd_epi16(av, b0));
        c11 = _mm256_add_epi32(c11, _mm256_madd_epi16(av, b1));
        av = _mm256_set1_epi32(a[2]);
        c20 = _mm256_add_epi32(c20, _mm256_madd_epi16(av, b0));
        c21 = _mm256_add_epi32(c21, _mm256_madd_epi16(av, b1));
        av = _mm256_set1_epi32(a[3]);
        c30 = _mm256_add_epi32(c30, _mm256_madd_epi16(av, b0));
        c31 = _mm256_add_epi32(c31, _mm256_madd_epi16(av, b1));
        av = _mm256_set1_epi32(a[4]);
        c40 = _mm256_add_epi32(c40, _mm256_madd_epi16(av, b0));
        c41 = _mm256_add_epi32(c41, _mm256_madd_epi16(av, b1));
    }
    __m256i c[QC_MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}};
    qc_tile_store(j, m0, p0, c, s->bias);
}

/* Requantizes the tile's sums (acc + bias[m]) * mult[m] into y. */
static inline void qc_tile_store(const qc_job *j, int64_t m0, int64_t p0, __m256i c[QC_MR][2],
                                 const double *bias_m)
{
    const qc_state *s = j->s;
    const __m256d zp = _mm256_set1_pd(s->y_zp);
    const __m256d lo = _mm256_set1_pd(s->y_s8 ? -128.0 : 0.0);
    const __m256d hi = _mm256_set1_pd(s->y_s8 ? 127.0 : 255.0);
    const int64_t ncol = s->p - p0 < QC_NR ? s->p - p0 : QC_NR;
    for (int r = 0; r < QC_MR && m0 + r < s->m; r++) {
        __m256d bias = _mm256_set1_pd(bias_m[m0 + r]), mult = _mm256_set1_pd(s->mult[m0 + r]);
        __m128i q0 = qg_requant4(_mm256_castsi256_si128(c[r][0]), bias, mult, zp, lo, hi);
        __m128i q1 = qg_requant4(_mm256_extracti128_si256(c[r][0], 1), bias, mult, zp, lo, hi);
        __m128i q2 = qg_requant4(_mm256_castsi256_si128(c[r][1]), bias, mult, zp, lo, hi);
        __m128i q3 = qg_requant4(_mm256_extracti128_si256(c[r][1], 1), bias, mult, zp, lo, hi);
        __m128i w0 = _mm_packs_epi32(q0, q1), w1 = _mm_packs_epi32(q2, q3);
        __m128i bytes = s->y_s8 ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1);
        uint8_t *dst = j->y + (m0 + r) * s->p + p0;
        if (ncol == QC_NR) {
            _mm_storeu_si128((__m128i *)dst, bytes);
        } else {
            uint8_t tmp[QC_NR];
            _mm_storeu_si128((__m128i *)tmp, bytes);
            memcpy(dst, tmp, (size_t)ncol);
        }
    }
}

static void qc_gemm_task(void *arg, int64_t begin, int64_t end)
{
    const qc_job *j = arg;
    const qc_state *s = j->s;
    const int64_t n_cb = s->pp / QC_NR;
    for (int64_t t = begin; t < end; t++) {
        int64_t cb = t % n_cb, mg = t / n_cb;
        int64_t m_end = (mg + 1) * QC_MR * QC_MGROUP;
        m_end = m_end < s->mp ? m_end : s->mp;
        for (int64_t m0 = mg * QC_MR * QC_MGROUP; m0 < m_end; m0 += QC_MR) {
            j->tile(j, m0, cb * QC_NR);
        }
    }
}

/* ---- the vpmaddubsw path: im2col as u8 quads, one vpmaddubsw + vpmaddwd per 4 products --- */

/* Words of 16 columns from four rows of bytes (x ^ flip) into dst[0 .. 16). */
static inline void qc_quads16(int32_t *dst, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                              const uint8_t *r3, __m128i flip)
{
    __m128i v0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r0), flip);
    __m128i v1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r1), flip);
    __m128i v2 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r2), flip);
    __m128i v3 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r3), flip);
    __m128i a = _mm_unpacklo_epi8(v0, v1), b = _mm_unpacklo_epi8(v2, v3);
    __m128i c = _mm_unpackhi_epi8(v0, v1), d = _mm_unpackhi_epi8(v2, v3);
    _mm_storeu_si128((__m128i *)dst, _mm_unpacklo_epi16(a, b));
    _mm_storeu_si128((__m128i *)(dst + 4), _mm_unpackhi_epi16(a, b));
    _mm_storeu_si128((__m128i *)(dst + 8), _mm_unpacklo_epi16(c, d));
    _mm_storeu_si128((__m128i *)(dst + 12), _mm_unpackhi_epi16(c, d));
}

/* Quad kk of a 1x1 stride-1 conv without padding, whose im2col is x itself (one plane of P
 * bytes a channel): no gather. The tail, and the last quad when C is not a multiple of 4
 * (its missing channels meet zero weights), go through zero-padded copies. */
static void qc_pack8_1x1(const qc_job *j, int64_t kk, int32_t *dst)
{
    const qc_state *s = j->s;
    const uint8_t *r[4];
    bool all = true;
    for (int i = 0; i < 4; i++) {
        r[i] = 4 * kk + i < s->c ? j->x + (4 * kk + i) * s->p : NULL;
        all = all && r[i] != NULL;
    }
    const __m128i flip = _mm_set1_epi8(s->x_s8 ? (char)0x80 : 0);
    int64_t p = 0;
    if (all) {
        for (; p + 16 <= s->p; p += 16) {
            qc_quads16(dst + p, r[0] + p, r[1] + p, r[2] + p, r[3] + p, flip);
        }
    }
    uint8_t t[4][QC_NR];
    for (; p < s->p; p += 16) {
        const int64_t n = s->p - p < 16 ? s->p - p : 16;
        for (int i = 0; i < 4; i++) {
            memset(t[i], s->x_s8 ? 0x80 : 0, QC_NR);
            if (r[i] != NULL) {
                memcpy(t[i], r[i] + p, (size_t)n);
            }
        }
        qc_quads16(dst + p, t[0], t[1], t[2], t[3], flip);
    }
}

/* K quads begin .. end of the im2col as words of 4 u8 (x ^ 0x80 for s8, xz_u as padding), one
 * row of pp + QC_NR words a quad, [kq][pp + QC_NR]: the packing writes each row in order (a
 * panel-major layout scatters its stores over the whole buffer, which costs more than the
 * strided reads the GEMM then makes: one full 64-byte line a quad and panel either way), 16
 * columns at a time even past the end of an output row (the next row overwrites them; the
 * slack of QC_NR words takes the last row's). */
static void qc_pack8_task(void *arg, int64_t begin, int64_t end)
{
    const qc_job *j = arg;
    const qc_state *s = j->s;
    uint8_t r[4][QC_MAX_OW + QC_NR];
    memset(r, 0, sizeof r); /* the bytes past ow are stored, then overwritten */
    const int64_t row = s->pp + QC_NR;
    const __m128i none = _mm_setzero_si128();
    for (int64_t kk = begin; kk < end; kk++) {
        int32_t *dst = j->b + kk * row;
        if (s->plain_1x1) {
            qc_pack8_1x1(j, kk, dst);
            memset(dst + s->p, 0, sizeof(int32_t) * (size_t)(s->pp - s->p));
            continue;
        }
        qgc_tap t[4];
        for (int i = 0; i < 4; i++) {
            t[i] = qgc_tap_of(&s->g, 0, 4 * kk + i);
        }
        for (int64_t oy = 0; oy < s->oh; oy++, dst += s->ow) {
            for (int i = 0; i < 4; i++) {
                qgc_gather(&s->g, j->x, t[i], oy, r[i]);
            }
            for (int64_t ox = 0; ox < s->ow; ox += 16) {
                qc_quads16(dst + ox, r[0] + ox, r[1] + ox, r[2] + ox, r[3] + ox, none);
            }
        }
        memset(dst, 0, sizeof(int32_t) * (size_t)(s->pp - s->p));
    }
}

/* c += the 4-product sums of the u8 words b and the s8 words a (exact under xlim). */
#define QC_DOT8(c, b, a, ones)                                                                     \
    c = _mm256_add_epi32(c, _mm256_madd_epi16(_mm256_maddubs_epi16(b, a), ones))

static void qc_tile8(const qc_job *j, int64_t m0, int64_t p0)
{
    const qc_state *s = j->s;
    const int32_t *a = s->a8 + m0 * s->kq;
    const int32_t *b = j->b + p0; /* [kq][pp + QC_NR] */
    const int64_t row = s->pp + QC_NR;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00;
    for (int64_t kk = 0; kk < s->kq; kk++, a += QC_MR, b += row) {
        __m256i b0 = _mm256_loadu_si256((const __m256i *)b);
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + 8));
        __m256i av = _mm256_set1_epi32(a[0]);
        QC_DOT8(c00, b0, av, ones);
        QC_DOT8(c01, b1, av, ones);
        av = _mm256_set1_epi32(a[1]);
        QC_DOT8(c10, b0, av, ones);
        QC_DOT8(c11, b1, av, ones);
        av = _mm256_set1_epi32(a[2]);
        QC_DOT8(c20, b0, av, ones);
        QC_DOT8(c21, b1, av, ones);
        av = _mm256_set1_epi32(a[3]);
        QC_DOT8(c30, b0, av, ones);
        QC_DOT8(c31, b1, av, ones);
        av = _mm256_set1_epi32(a[4]);
        QC_DOT8(c40, b0, av, ones);
        QC_DOT8(c41, b1, av, ones);
    }
    __m256i c[QC_MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}};
    qc_tile_store(j, m0, p0, c, s->bias8);
}

/* The largest byte of x ^ flip (x's values as the u8 the dot sees). */
static int32_t qc_max_u8(const uint8_t *x, int64_t n, uint8_t flip)
{
    __m256i mx = _mm256_setzero_si256();
    const __m256i f = _mm256_set1_epi8((char)flip);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        mx = _mm256_max_epu8(mx, _mm256_xor_si256(v, f));
    }
    uint8_t lanes[32];
    _mm256_storeu_si256((__m256i *)lanes, mx);
    int32_t best = 0;
    for (int l = 0; l < 32; l++) {
        best = lanes[l] > best ? lanes[l] : best;
    }
    for (; i < n; i++) {
        int32_t v = x[i] ^ flip;
        best = v > best ? v : best;
    }
    return best;
}

bool em_qlinearconv_u8_ubs__avx2(const void *state, const em_tensor *x)
{
    const qc_state *s = state;
    if (s->a8 == NULL || s->g.xz_u > s->xlim) {
        return false;
    }
    const int64_t n = s->n * s->c * s->ih * s->iw;
    return qc_max_u8(x->data, n, s->x_s8 ? 0x80 : 0) <= s->xlim;
}

void em_qlinearconv_u8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const qc_state *s = state;
    const int64_t n_cb = s->pp / QC_NR;
    const int64_t n_mg = (s->mp + QC_MR * QC_MGROUP - 1) / (QC_MR * QC_MGROUP);
    const bool ubs = s->p > 0 && em_qlinearconv_u8_ubs__avx2(s, &in[0]);
    for (int64_t n = 0; n < s->n && s->p > 0; n++) {
        qc_job j = {s, (const uint8_t *)in[0].data + n * s->c * s->ih * s->iw,
                    (uint8_t *)out[0].data + n * s->m * s->p, ctx->scratch,
                    ubs ? qc_tile8 : qc_tile};
        if (ubs) {
            em_parallel_for(ctx->pool, s->kq, 1, qc_pack8_task, &j);
        } else {
            em_parallel_for(ctx->pool, s->kp2, 1, qc_pack_task, &j);
        }
        em_parallel_for(ctx->pool, n_cb * n_mg, 1, qc_gemm_task, &j);
    }
}
