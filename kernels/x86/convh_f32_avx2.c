/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv f32 on nChw8c, AVX2, with the weights packed in half: the direct conv for weights
 * held in f16 / bf16 (`--precision fp16|bf16`, half models; passes_halfw.c). oneDNN 2.6's
 * AVX2 convs (conv_onednn.c, priority 25) take f32 weights only, so their reordered copy of a
 * half weight is f32, twice its bytes; this kernel (priority 26) takes a conv only when its W
 * is the planner's f32 copy of a half initializer (em_kinfo_half_of), so fp32 models never
 * reach it, and Winograd (28) keeps the 3x3 stride-1 convs it takes.
 *
 * Accepted: `blocked` = 8 (X, Z, Y [N, C/8, H, W, 8]), W [M, C, KH, KW] constant with C and M
 * multiples of 8, one group, any kernel size, strides, dilations and pads (or auto_pad), B
 * constant when given, every epilogue of fusedconv.h. Else declined (oneDNN then takes it).
 *
 * Load: W as [M/16][C/8][KH][KW][8][16] halves (16 output channels a panel, the last one
 * zero-padded when M/8 is odd), the values exact (W holds half values), so the products are
 * the f32 conv's on the same half weights. Run: items (image, output row, panel) on the pool;
 * each sweeps its row in tiles of up to 6 output pixels: 12 ymm accumulators (6 pixels x 16
 * channels), for each input channel block and tap the 6 pixels' input vectors (a zero vector
 * for taps in the padding), then per channel of the block 2 widened weight vectors (F16C's
 * vcvtph2ps, or bf16's 16-bit shift) and 6 broadcasts; then bias, Z and the activation.
 * Accumulation is f32 in (channel block, tap, channel) order: results differ from oneDNN's by
 * summation order only.
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/lowp.h"
#include "core/pack.h"
#include "core/status.h"
#include "core/thread.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "vmath_avx2.inc"

#include "kernels/vec/conv_act.inc"
#define DW_R 8 /* dwconv_shape.h's strip width and epilogue choice, unused here */
#define DW_CHEAP_EPILOGUES 0
#include "kernels/vec/dwconv_shape.h" /* dw_window: the conv's window attributes */

#define CB 8 /* the channel block: one AVX2 vector */
#define PW 16 /* output channels a weight panel */
#define TR 6  /* output pixels a tile */

typedef struct convh {
    int64_t n, c, m, ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl;
    int hk;           /* 1 f16, 2 bf16 */
    bool panel_major; /* items panel by panel (W re-read less) rather than row by row */
    em_conv_epilogue epi;
    bool has_z;
    em_pack *pack; /* W [M/16][C/8][KH][KW][8][16] halves */
    const uint16_t *w;
    float bias[]; /* [M rounded up to 16] (zeros without B) */
} convh;

static ember_status *convh_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': half-weight conv kernel: %s",
                         em_op_name(ki->node->op), ki->node->name, why);
}

typedef struct convh_pack_job {
    const float *w;
    const convh *s;
} convh_pack_job;

/* W [M, C, KH, KW] f32 (half values) -> the panels (em_pack_fill_fn). */
static ember_status *convh_fill(void *ctx, void *dst)
{
    const convh_pack_job *j = ctx;
    const convh *s = j->s;
    const ember_dtype half = s->hk == 1 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
    const int64_t taps = s->kh * s->kw, panels = (s->m + PW - 1) / PW;
    uint16_t *d = dst;
    for (int64_t p = 0; p < panels; p++) {
        for (int64_t cb = 0; cb < s->c / CB; cb++) {
            for (int64_t t = 0; t < taps; t++) {
                for (int64_t ci = 0; ci < CB; ci++) {
                    float row[PW];
                    for (int64_t o = 0; o < PW; o++) {
                        int64_t m = p * PW + o;
                        row[o] = m < s->m ? j->w[(m * s->c + cb * CB + ci) * taps + t] : 0.0f;
                    }
                    if (s->hk == 1) { /* F16C: the same bits as em_f32_to_f16 (test_x86_cast) */
                        for (int h = 0; h < PW; h += CB) {
                            _mm_storeu_si128((__m128i *)(void *)(d + h),
                                             _mm256_cvtps_ph(_mm256_loadu_ps(row + h),
                                                             _MM_FROUND_TO_NEAREST_INT));
                        }
                    } else {
                        em_f32_to_half_n(half, row, d, PW);
                    }
                    d += PW;
                }
            }
        }
    }
    return NULL;
}

/* The panels -> W [M, C, KH, KW] f32 (em_pack_unpack_fn: the model drops the half weight once
 * packed, and a later plan that needs W widens it from here). */
typedef struct convh_unpack_ctx {
    int64_t m, c, taps;
    int hk;
} convh_unpack_ctx;

static void convh_unpack(const void *ctx, const void *data, void *dst)
{
    const convh_unpack_ctx *u = ctx;
    const ember_dtype half = u->hk == 1 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
    const uint16_t *d = data;
    float *w = dst;
    for (int64_t p = 0; p < (u->m + PW - 1) / PW; p++) {
        for (int64_t cb = 0; cb < u->c / CB; cb++) {
            for (int64_t t = 0; t < u->taps; t++) {
                for (int64_t ci = 0; ci < CB; ci++, d += PW) {
                    float row[PW];
                    em_half_to_f32_n(half, d, row, PW);
                    for (int64_t o = 0; o < PW && p * PW + o < u->m; o++) {
                        w[((p * PW + o) * u->c + cb * CB + ci) * u->taps + t] = row[o];
                    }
                }
            }
        }
    }
}

void em_fusedconv_f32_half_release__avx2(const ember_allocator *al, void *state)
{
    convh *s = state;
    if (s != NULL) {
        em_pack_release(s->pack);
        em_free(al, s);
    }
}

/* The node's geometry into g; false when this kernel does not take it. */
static bool convh_geom(const em_kinfo *ki, convh *g)
{
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    dw_state d;
    memset(&d, 0, sizeof d);
    if (x->rank != 5 || w->rank != 4 || y->rank != 5 || !dw_window(ki, &d) ||
        em_node_attr_int(ki->node, "group", 1) != 1) {
        return false;
    }
    g->n = x->dims[0], g->c = w->dims[1], g->m = w->dims[0];
    g->ih = d.ih, g->iw = d.iw, g->oh = d.oh, g->ow = d.ow, g->kh = d.kh, g->kw = d.kw;
    g->sh = d.sh, g->sw = d.sw, g->dh = d.dh, g->dw = d.dw, g->pt = d.pt, g->pl = d.pl;
    return g->c % CB == 0 && g->m % CB == 0 && x->dims[4] == CB && y->dims[4] == CB &&
           x->dims[1] == g->c / CB && y->dims[1] == g->m / CB && y->dims[0] == g->n;
}

ember_status *em_fusedconv_f32_half_prepare__avx2(const em_kinfo *ki, void **state,
                                                  size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    const em_tensor *w = &ki->in[1];
    const ember_dtype half = em_kinfo_half_of(ki, 1);
    bool has_b = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    bool has_z = ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    if (half == EMBER_DTYPE_UNDEFINED || w->data == NULL) {
        return convh_decline(ki, "W is not a weight held in half");
    }
    if (em_node_attr_int(ki->node, "blocked", 0) != CB ||
        em_node_attr_int(ki->node, "plain_input", 0) != 0 || ki->n_out != 1 ||
        ki->in[0].dtype != EMBER_DTYPE_F32 || w->dtype != EMBER_DTYPE_F32 ||
        ki->out[0].dtype != EMBER_DTYPE_F32 ||
        (has_b && (ki->in[2].dtype != EMBER_DTYPE_F32 || ki->in[2].data == NULL ||
                   ki->in[2].rank != 1 || ki->in[2].dims[0] != w->dims[0])) ||
        (has_z && (ki->in[3].dtype != EMBER_DTYPE_F32 ||
                   !em_tensor_same_shape(&ki->in[3], &ki->out[0])))) {
        return convh_decline(ki, "needs f32 blocked by 8 with constant B");
    }
    convh g;
    memset(&g, 0, sizeof g);
    if (!convh_geom(ki, &g)) {
        return convh_decline(ki, "only ungrouped convs of whole channel blocks");
    }
    if (!em_conv_epilogue_parse(ki->node, &g.epi)) {
        return convh_decline(ki, "activation");
    }
    const int64_t mpad = (g.m + PW - 1) / PW * PW;
    size_t bytes;
    if (!em_size_mul((size_t)(mpad * g.c), (size_t)(g.kh * g.kw) * sizeof(uint16_t), &bytes)) {
        return convh_decline(ki, "weights too large");
    }
    convh *s = em_calloc(ki->al, 1, sizeof *s + sizeof(float) * (size_t)mpad);
    if (s == NULL) {
        return em_status_oom();
    }
    *s = g;
    s->hk = half == EMBER_DTYPE_F16 ? 1 : 2;
    /* Item order: row by row streams all of W once per output row, panel by panel all of an
     * image's X once per panel; take the one that reads fewer bytes (resnet's 7 x 7 layer4:
     * panels; its 56 x 56 layer1: rows). */
    s->panel_major = (double)s->oh * (double)bytes >
                     (double)(mpad / PW) * (double)(s->c * s->ih * s->iw) * sizeof(float);
    s->has_z = has_z;
    if (has_b) {
        memcpy(s->bias, ki->in[2].data, sizeof(float) * (size_t)s->m);
    }
    int64_t key[5] = {s->m, s->c, s->kh, s->kw, s->hk};
    em_pack_key k = {"x86 half conv W", NULL, key, sizeof key, NULL};
    em_pack_cache *cache = em_kinfo_pack_at(ki, 1, &k.src);
    convh_pack_job job = {w->data, s};
    const convh_unpack_ctx u = {s->m, s->c, s->kh * s->kw, s->hk};
    ember_status *st = em_pack_get(cache, ki->al, &k, bytes, convh_fill, &job, &s->pack);
    if (st == NULL) {
        st = em_pack_set_unpack(s->pack, convh_unpack, &u, sizeof u, 0,
                                sizeof(float) * (size_t)(s->m * s->c * s->kh * s->kw));
    }
    if (st != NULL) {
        em_fusedconv_f32_half_release__avx2(ki->al, s);
        return st;
    }
    s->w = em_pack_data(s->pack);
    em_kinfo_mark_packed(ki, 1); /* run reads the half panels, never W */
    *state = s;
    return NULL;
}

typedef struct convh_run {
    const convh *s;
    const float *x, *z;
    float *y;
} convh_run;

static inline __attribute__((always_inline)) __m256 convh_load_w(const uint16_t *p, const int hk)
{
    __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
    return hk == 1 ? _mm256_cvtph_ps(h)
                   : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/* The 6 pixels' accumulators and input pointers are named variables, not arrays: with
 * arrays GCC 12 kept the sums in registers but also stored them to the stack on every step
 * (2.3x the time). */
#define CH_R6(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define CH_DECL(i)                                                                                 \
    __m256 c##i##a = _mm256_setzero_ps(), c##i##b = c##i##a;                                      \
    const float *xp##i = zero;
#define CH_PTR(i)                                                                                  \
    if (rows > i) {                                                                                \
        const int64_t ix = (ox0 + i) * s->sw - s->pl + kx * s->dw;                                 \
        xp##i = ix >= 0 && ix < s->iw ? xrow + ix * CB : zero;                                     \
    }
#define CH_FMA(i)                                                                                  \
    if (rows > i) {                                                                                \
        const __m256 a = _mm256_broadcast_ss(xp##i + ci);                                          \
        c##i##a = _mm256_fmadd_ps(a, b0, c##i##a);                                                 \
        c##i##b = _mm256_fmadd_ps(a, b1, c##i##b);                                                 \
    }
#define CH_SAVE(i) acc[i][0] = c##i##a, acc[i][1] = c##i##b;

/* One tile: `rows` (a constant in each inlined copy) output pixels from column ox0 of output
 * row oy of image `img`, output channels [p * 16, p * 16 + 16) (the second block stored only
 * when it exists). */
static inline __attribute__((always_inline)) void convh_tile(const convh_run *r, int64_t img,
                                                             int64_t oy, int64_t ox0, int64_t p,
                                                             const int rows, const int hk)
{
    static const float zero[CB] __attribute__((aligned(32))) = {0};
    const convh *s = r->s;
    const int64_t cbn = s->c / CB, plane = s->ih * s->iw * CB, taps = s->kh * s->kw;
    const float *xi = r->x + img * cbn * plane;
    const uint16_t *wp = s->w + p * cbn * taps * CB * PW;
    CH_R6(CH_DECL)
    for (int64_t cb = 0; cb < cbn; cb++) {
        const float *xc = xi + cb * plane;
        for (int64_t ky = 0; ky < s->kh; ky++) {
            const int64_t iy = oy * s->sh - s->pt + ky * s->dh;
            if (iy < 0 || iy >= s->ih) {
                wp += s->kw * CB * PW; /* a padding row adds nothing */
                continue;
            }
            const float *xrow = xc + iy * s->iw * CB;
            for (int64_t kx = 0; kx < s->kw; kx++, wp += CB * PW) {
                CH_R6(CH_PTR)
                /* not unrolled: unrolled 8 times, GCC 12 hoisted the weight loads and spilled
                 * accumulators (vfmadd with a stack operand) */
#pragma GCC unroll 1
                for (int ci = 0; ci < CB; ci++) {
                    const __m256 b0 = convh_load_w(wp + ci * PW, hk);
                    const __m256 b1 = convh_load_w(wp + ci * PW + CB, hk);
                    CH_R6(CH_FMA)
                }
            }
        }
    }
    __m256 acc[TR][2];
    CH_R6(CH_SAVE)
    const int64_t mbn = s->m / CB, oplane = s->oh * s->ow * CB;
    for (int h = 0; h < 2 && p * 2 + h < mbn; h++) {
        const int64_t mb = p * 2 + h, at = (img * mbn + mb) * oplane + (oy * s->ow + ox0) * CB;
        const __m256 bias = _mm256_loadu_ps(s->bias + mb * CB);
        for (int i = 0; i < rows; i++) {
            __m256 v = _mm256_add_ps(acc[i][h], bias);
            if (r->z != NULL) {
                v = _mm256_add_ps(v, _mm256_loadu_ps(r->z + at + i * CB));
            }
            _mm256_storeu_ps(r->y + at + i * CB, vf_conv_act(&s->epi, v));
        }
    }
}
#undef CH_SAVE
#undef CH_FMA
#undef CH_PTR
#undef CH_DECL
#undef CH_R6

/* convh_tile with rows (1..TR) and the half format as constants. */
static void convh_tile_any(const convh_run *r, int64_t img, int64_t oy, int64_t ox0, int64_t p,
                           int rows)
{
#define CONVH_ROWS(R)                                                                             \
    case R:                                                                                       \
        if (r->s->hk == 1) {                                                                      \
            convh_tile(r, img, oy, ox0, p, R, 1);                                                 \
        } else {                                                                                  \
            convh_tile(r, img, oy, ox0, p, R, 2);                                                 \
        }                                                                                         \
        break;
    switch (rows) {
        CONVH_ROWS(1)
        CONVH_ROWS(2)
        CONVH_ROWS(3)
        CONVH_ROWS(4)
        CONVH_ROWS(5)
        default: CONVH_ROWS(TR)
    }
#undef CONVH_ROWS
}

/* Items (image, output row, panel). */
static void convh_task(void *arg, int64_t begin, int64_t end)
{
    const convh_run *r = arg;
    const convh *s = r->s;
    const int64_t panels = (s->m + PW - 1) / PW;
    for (int64_t it = begin; it < end; it++) {
        const int64_t rows_n = s->n * s->oh;
        int64_t p = s->panel_major ? it / rows_n : it % panels;
        int64_t row = s->panel_major ? it % rows_n : it / panels, img = row / s->oh;
        int64_t oy = row % s->oh;
        for (int64_t ox = 0; ox < s->ow; ox += TR) {
            int rows = s->ow - ox < TR ? (int)(s->ow - ox) : TR;
            convh_tile_any(r, img, oy, ox, p, rows);
        }
    }
}

void em_fusedconv_f32_half__avx2(const void *state, const em_tensor *in, em_tensor *out,
                                 const em_kctx *ctx)
{
    const convh *s = state;
    convh_run r = {s, in[0].data, s->has_z ? in[3].data : NULL, out[0].data};
    int64_t items = s->n * s->oh * ((s->m + PW - 1) / PW);
    em_parallel_for(ctx->pool, items, 1, convh_task, &r);
}
