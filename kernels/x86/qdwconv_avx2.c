/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise QLinearConv (group = C = M, one output channel per input channel) on AVX2,
 * bitwise equal to the reference: any 2-D kernel size, strides, dilations, pads or auto_pad,
 * u8 / s8 x, w and y, w's zero point and scale per tensor or per channel, optional bias, up
 * to 64 taps. The GEMM core (qgemm_driver.inc) declines these: it would waste most of its rows
 * and K groups on them (K = kh kw per channel; 1.6 against 5 GMAC/s here).
 *
 * Per channel (a task each, on the pool): the padded input plane is built once as int16
 * x - x_zp (0 in the padding, so padding is x_zp as the spec reads), split into `sw` column
 * phases (phase q holds padded columns q, q + sw, ...) so that output columns ox, ox + 1, ...
 * of any tap read consecutive int16 whatever the stride. Taps go in pairs: two rows of 16
 * outputs' inputs are interleaved (vpunpck{l,h}wd) and vpmaddwd'ed with the pair's weights
 * (w - w_zp, int16), exact in int32 as in qconv_u8_avx2.c (|products| <= 255 * 255; the
 * sums stay below 2^31 for kh kw <= 33000). Requantization as the reference: (double)(acc +
 * bias) * mult, to nearest even, + y_zp, clamped, packed to bytes.
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/status.h"
#include "qgemm_shape.h"

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct qdw_state {
    qgc_geom g;
    int64_t taps, pairs; /* kh kw, and its pairs (rounded up) */
    int64_t hp, wq;      /* padded plane rows, and the int16 columns of one phase */
    int64_t slots;       /* scratch slices */
    size_t slot_bytes;
    int32_t *w;          /* [C][pairs]: int16 pairs (w[2i], w[2i + 1]) - w_zp */
    double *bias, *mult; /* [C] */
} qdw_state;

void em_qlinearconv_dw_release__avx2(const ember_allocator *al, void *state)
{
    qdw_state *s = state;
    if (s != NULL) {
        em_free(al, s->w);
        em_free(al, s->bias);
        em_free(al, s->mult);
        em_free(al, s);
    }
}

ember_status *em_qlinearconv_dw_prepare__avx2(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    qgc_geom g;
    ember_status *st = qgc_parse(ki, &g);
    if (st != NULL) {
        return st;
    }
    if (!qgc_depthwise(&g)) { /* QDW_MAX_TAPS: the tap rows of one output row are on the stack */
        return qg_decline(ki, "not depthwise (one input and one output channel per group) or "
                              "more than 64 taps");
    }
    qdw_state *p = em_calloc(ki->al, 1, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    p->g = g;
    p->taps = g.kh * g.kw;
    p->pairs = (p->taps + 1) / 2;
    p->hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
    /* a phase's columns: every output column rounded to 16, shifted by the largest tap */
    int64_t wq = (g.ow + 15) / 16 * 16 + ((g.kw - 1) * g.dw) / g.sw + 1;
    p->wq = (wq + 15) / 16 * 16;
    p->w = em_malloc(ki->al, sizeof(int32_t) * (size_t)(g.c * p->pairs));
    p->bias = em_malloc(ki->al, sizeof(double) * (size_t)g.c);
    p->mult = em_malloc(ki->al, sizeof(double) * (size_t)g.c);
    if (p->w == NULL || p->bias == NULL || p->mult == NULL) {
        em_qlinearconv_dw_release__avx2(ki->al, p);
        return em_status_oom();
    }
    for (int64_t c = 0; c < g.c; c++) {
        const int32_t wz = qgc_wz_s(ki, &g, c) + (g.w_s8 ? 0 : 128); /* w's own zero point */
        for (int64_t i = 0; i < p->pairs; i++) {
            int32_t lo = qg_int(&ki->in[3], c * p->taps + 2 * i) - wz;
            int32_t hi = 2 * i + 1 < p->taps ? qg_int(&ki->in[3], c * p->taps + 2 * i + 1) - wz : 0;
            p->w[c * p->pairs + i] =
                (int32_t)(((uint32_t)(uint16_t)(int16_t)hi << 16) | (uint16_t)(int16_t)lo);
        }
        p->bias[c] = qgc_bias(ki, c);
        p->mult[c] = qgc_mult(ki, c);
    }
    p->slot_bytes = (sizeof(int16_t) * (size_t)(p->hp * g.sw * p->wq) + 63) / 64 * 64;
    p->slots = ki->n_threads < g.c ? ki->n_threads : g.c;
    p->slots = p->slots < 1 ? 1 : p->slots;
    *scratch_bytes = p->slot_bytes * (size_t)p->slots;
    *state = p;
    return NULL;
}

/* Channel c's padded plane, x - x_zp as int16, in sw column phases: plane[(py * sw + q) * wq
 * + j] is padded column j * sw + q of padded row py. */
static void qdw_plane(const qdw_state *s, const uint8_t *x, int16_t *plane)
{
    const qgc_geom *g = &s->g;
    const int32_t xz = g->xz_u - (g->x_s8 ? 128 : 0);
    memset(plane, 0, sizeof(int16_t) * (size_t)(s->hp * g->sw * s->wq));
    const __m256i vz = _mm256_set1_epi16((int16_t)xz);
    for (int64_t py = 0; py < s->hp; py++) {
        const int64_t iy = py - g->pt;
        if (iy < 0 || iy >= g->ih) {
            continue;
        }
        const uint8_t *row = x + iy * g->iw;
        int64_t ix = 0;
        if (g->sw == 1) { /* one phase: the row widened in place */
            int16_t *dst = plane + py * s->wq + g->pl;
            const int64_t n = g->iw < s->wq - g->pl ? g->iw : s->wq - g->pl;
            for (; ix + 16 <= n; ix += 16) {
                __m128i b = _mm_loadu_si128((const __m128i *)(row + ix));
                __m256i v = g->x_s8 ? _mm256_cvtepi8_epi16(b) : _mm256_cvtepu8_epi16(b);
                _mm256_storeu_si256((__m256i *)(dst + ix), _mm256_sub_epi16(v, vz));
            }
        }
        /* the rest, and other strides: padded column px = ix + pl is phase q, index j */
        int64_t q = (ix + g->pl) % g->sw, j = (ix + g->pl) / g->sw;
        for (; ix < g->iw && j < s->wq; ix++) {
            const int32_t v = g->x_s8 ? (int32_t)(int8_t)row[ix] : (int32_t)row[ix];
            plane[(py * g->sw + q) * s->wq + j] = (int16_t)(v - xz);
            if (++q == g->sw) {
                q = 0;
                j++;
            }
        }
    }
}

/* The int16 row of tap t for output row oy, starting at output column 0. */
static inline const int16_t *qdw_tap_row(const qdw_state *s, const int16_t *plane, int64_t t,
                                         int64_t oy)
{
    const qgc_geom *g = &s->g;
    const int64_t ky = t / g->kw, kx = t % g->kw, off = kx * g->dw;
    const int64_t py = oy * g->sh + ky * g->dh;
    return plane + (py * g->sw + off % g->sw) * s->wq + off / g->sw;
}

static void qdw_channel(const qdw_state *s, const uint8_t *x, uint8_t *y, int64_t c, int16_t *plane)
{
    const qgc_geom *g = &s->g;
    qdw_plane(s, x, plane);
    const int32_t *w = s->w + c * s->pairs;
    const __m256d bias = _mm256_set1_pd(s->bias[c]), mult = _mm256_set1_pd(s->mult[c]);
    const __m256d zp = _mm256_set1_pd(g->y_zp);
    const __m256d lo = _mm256_set1_pd(g->y_s8 ? -128.0 : 0.0);
    const __m256d hi = _mm256_set1_pd(g->y_s8 ? 127.0 : 255.0);
    const int16_t *rows[QDW_MAX_TAPS + 1];
    for (int64_t oy = 0; oy < g->oh; oy++) {
        for (int64_t t = 0; t < s->taps; t++) {
            rows[t] = qdw_tap_row(s, plane, t, oy);
        }
        rows[s->taps] = rows[s->taps - 1]; /* an odd tap's partner (its weight is 0) */
        for (int64_t ox = 0; ox < g->ow; ox += 16) {
            __m256i a0 = _mm256_setzero_si256(), a1 = a0; /* outputs {0-3, 8-11}, {4-7, 12-15} */
            for (int64_t i = 0; i < s->pairs; i++) {
                const __m256i wv = _mm256_set1_epi32(w[i]);
                __m256i v0 = _mm256_loadu_si256((const __m256i *)(rows[2 * i] + ox));
                __m256i v1 = _mm256_loadu_si256((const __m256i *)(rows[2 * i + 1] + ox));
                a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(v0, v1), wv));
                a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(v0, v1), wv));
            }
            /* back to output order: 0-7 and 8-15 */
            const __m256i r0 = _mm256_permute2x128_si256(a0, a1, 0x20);
            const __m256i r1 = _mm256_permute2x128_si256(a0, a1, 0x31);
            __m128i q0 = qg_requant4(_mm256_castsi256_si128(r0), bias, mult, zp, lo, hi);
            __m128i q1 = qg_requant4(_mm256_extracti128_si256(r0, 1), bias, mult, zp, lo, hi);
            __m128i q2 = qg_requant4(_mm256_castsi256_si128(r1), bias, mult, zp, lo, hi);
            __m128i q3 = qg_requant4(_mm256_extracti128_si256(r1, 1), bias, mult, zp, lo, hi);
            __m128i w0 = _mm_packs_epi32(q0, q1), w1 = _mm_packs_epi32(q2, q3);
            __m128i bytes = g->y_s8 ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1);
            uint8_t *dst = y + oy * g->ow + ox;
            if (g->ow - ox >= 16) {
                _mm_storeu_si128((__m128i *)dst, bytes);
            } else {
                uint8_t tmp[16];
                _mm_storeu_si128((__m128i *)tmp, bytes);
                memcpy(dst, tmp, (size_t)(g->ow - ox));
            }
        }
    }
}

typedef struct qdw_job {
    const qdw_state *s;
    const uint8_t *x;
    uint8_t *y;
    uint8_t *scratch;
} qdw_job;

/* Slot t runs channels t, t + slots, ... in its own scratch slice. */
static void qdw_task(void *arg, int64_t begin, int64_t end)
{
    const qdw_job *j = arg;
    const qdw_state *s = j->s;
    const qgc_geom *g = &s->g;
    for (int64_t t = begin; t < end; t++) {
        int16_t *plane = (int16_t *)(j->scratch + (size_t)t * s->slot_bytes);
        for (int64_t c = t; c < g->c; c += s->slots) {
            qdw_channel(s, j->x + c * g->ih * g->iw, j->y + c * g->p, c, plane);
        }
    }
}

void em_qlinearconv_dw__avx2(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const qdw_state *s = state;
    const qgc_geom *g = &s->g;
    for (int64_t n = 0; n < g->n; n++) {
        qdw_job j = {s, (const uint8_t *)in[0].data + n * g->c * g->ih * g->iw,
                     (uint8_t *)out[0].data + n * g->m * g->p, ctx->scratch};
        em_parallel_for(s->slots > 1 ? ctx->pool : NULL, s->slots, 1, qdw_task, &j);
    }
}
