/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv f32, 3x3 stride 1, on nChw8c, AVX2: Winograd F(4x4, 3x3) (Lavin and Gray's
 * matrices). oneDNN 2.6 has Winograd only for AVX-512 (conv_onednn.c); on AVX2 its direct
 * kernels run resnet's 3x3 convs at ~90% of the FMA peak, like ONNX Runtime's, so only fewer
 * multiplications make them faster: F(4x4, 3x3) does 36 products per 4x4 output tile and
 * channel pair where the direct conv does 144.
 *
 * Accepted: FusedConv `blocked` = 8 (X, Z, Y [N, C/8, H, W, 8]), W [M, C/G, 3, 3] constant (B
 * constant when given), any group count G whose groups are whole blocks of at least
 * WINO_MIN_GROUP input channels (C/G and M/G multiples of 8: regnet_x's and regnet_y_16gf /
 * 32gf's 112..232-channel groups; not resnext's 4..64 nor regnet_y_8gf's 56), strides and dilations 1,
 * any pads (or auto_pad), every epilogue of fusedconv.h, and an output plane of at least
 * WINO_MIN_PLANE pixels (below it the transformed weights, 4x the size of W, are read for too
 * few tiles to pay: see NOTES), or of WINO_HALF_MIN_PLANE when W holds half weights (U would
 * be 8x their bytes). Everything else is declined for oneDNN.
 *
 * Load: U = G g G^T per (m, c) in f32, eight output channels a vector, packed once per
 * model (core/pack.h) as
 * [36][M/8][C/G][8] (output block ob reads its group's C/G input channels). Run, with
 * T = N * ceil(OH/4) * ceil(OW/4) tiles, in the planned scratch:
 *  1. V[36][G][T][C/G] = B^T d B of each tile's 6x6 input patch (zeros outside X), 8
 *     channels a vector; items: (tile row, channel block), on the pool;
 *  2. O[36][G][T][M/G] = V[p][g] . U[p] for each of the 36 positions and each group (a
 *     group's rows are contiguous, so its GEMM streams them): a 6-tile x 16-channel register
 *     kernel (12 accumulators, the tile count a constant in each instance) over C/G; items:
 *     (position, group, 16-channel panel of the group), on the pool;
 *  3. Y = act(A^T O A + B + Z) per tile and output block, the 4x4 pixels clipped at the
 *     plane's edge; items: (tile row, output block), on the pool.
 * The arithmetic differs from the direct conv's by rounding only (~1e-6 relative on resnet's
 * layers; test_fusedconv checks it against a double-precision conv).
 */
#include "x86.h"

#include "core/alloc.h"
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

#define WB 8               /* the channel block: one AVX2 vector */
#define WINO_MIN_PLANE 196 /* 14 x 14 */
/* With weights held in half (em_kinfo_half_of), the plane below which the conv is left to
 * the kernels that pack W at 1x (oneDNN's f32, convh's half): U, in f32 (f16 U is too
 * inaccurate for F(4x4, 3x3): NOTES, h-half2), is 8x the half weights' bytes, and on these
 * planes (resnet50's layer3, 47 MB of its 56 MB of U) Winograd gains least. NOTES (h-half3). */
#define WINO_HALF_MIN_PLANE 784 /* 28 x 28 */
#ifndef WINO_MIN_GROUP
#define WINO_MIN_GROUP 96 /* input channels a group, grouped convs (see NOTES) */
#endif
#define MR 6               /* tiles per register block */

typedef struct wino {
    int64_t n, c, m, ih, iw, oh, ow, pt, pl;
    int64_t g, cg, mg; /* groups; input and output channels a group */
    int64_t th, tw, t; /* tiles down, across, in all */
    em_conv_epilogue epi;
    bool has_b, has_z;
    em_pack *pack; /* U [36][M/8][C/G][8] */
    const float *u;
    float bias[]; /* [M] (zeros without B) */
} wino;

static ember_status *wino_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': Winograd kernel: %s",
                         em_op_name(ki->node->op), ki->node->name, why);
}

/* The geometry; false when this kernel does not take the node. The window attributes are
 * read as the depthwise kernel reads them (dw_window: kernel, strides, dilations, pads,
 * auto_pad, checked against the shapes). */
static bool wino_geom(const em_kinfo *ki, wino *s)
{
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    dw_state d;
    memset(&d, 0, sizeof d);
    if (x->rank != 5 || w->rank != 4 || y->rank != 5 || !dw_window(ki, &d) || d.kh != 3 ||
        d.kw != 3 || d.sh != 1 || d.sw != 1 || d.dh != 1 || d.dw != 1) {
        return false;
    }
    s->g = em_node_attr_int(ki->node, "group", 1);
    s->n = x->dims[0], s->cg = w->dims[1], s->m = w->dims[0];
    if (s->g < 1 || s->m % s->g != 0) {
        return false;
    }
    s->c = s->cg * s->g, s->mg = s->m / s->g;
    s->ih = d.ih, s->iw = d.iw, s->oh = d.oh, s->ow = d.ow, s->pt = d.pt, s->pl = d.pl;
    return s->cg % WB == 0 && s->mg % WB == 0 && x->dims[4] == WB && y->dims[4] == WB &&
           x->dims[1] == s->c / WB && y->dims[1] == s->m / WB && y->dims[0] == s->n;
}

/* G g G^T for 8 kernels at once (lane l: output channel ob * 8 + l), g[9] their taps. */
static void wino_weight8(const vf *g, vf *u)
{
    static const float G[6][3] = {{1.0f / 4, 0, 0},
                                  {-1.0f / 6, -1.0f / 6, -1.0f / 6},
                                  {-1.0f / 6, 1.0f / 6, -1.0f / 6},
                                  {1.0f / 24, 1.0f / 12, 1.0f / 6},
                                  {1.0f / 24, -1.0f / 12, 1.0f / 6},
                                  {0, 0, 1}};
    vf t[6][3];
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 3; j++) {
            t[i][j] = vf_fmadd(vf_set1(G[i][0]), g[j],
                               vf_fmadd(vf_set1(G[i][1]), g[3 + j], vf_mul(vf_set1(G[i][2]), g[6 + j])));
        }
    }
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
            u[i * 6 + j] =
                vf_fmadd(t[i][0], vf_set1(G[j][0]),
                         vf_fmadd(t[i][1], vf_set1(G[j][1]), vf_mul(t[i][2], vf_set1(G[j][2]))));
        }
    }
}

typedef struct wino_pack_job {
    const float *w;
    int64_t m, c;
} wino_pack_job;

/* U [36][M/8][C/G][8] from W [M, C/G, 3, 3] (em_pack_fill_fn; j->c is C/G): eight output
 * channels a vector, so each store is one whole row piece of U (storing kernel by kernel into the 36 planes,
 * in double, made resnet50's load ~1.5x slower than oneDNN's direct weights alone). */
static ember_status *wino_fill(void *ctx, void *dst)
{
    const wino_pack_job *j = ctx;
    float *u = dst;
    const int64_t mb_n = j->m / WB, row = j->c * 9;
    for (int64_t ob = 0; ob < mb_n; ob++) {
        for (int64_t i = 0; i < j->c; i++) {
            float tap[9][WB];
            vf g[9], r[36];
            for (int l = 0; l < WB; l++) {
                for (int k = 0; k < 9; k++) {
                    tap[k][l] = j->w[(ob * WB + l) * row + i * 9 + k];
                }
            }
            for (int k = 0; k < 9; k++) {
                g[k] = vf_load(tap[k]);
            }
            wino_weight8(g, r);
            for (int p = 0; p < 36; p++) {
                vf_store(u + ((p * mb_n + ob) * j->c + i) * WB, r[p]);
            }
        }
    }
    return NULL;
}

void em_fusedconv_f32_wino_release__avx2(const ember_allocator *al, void *state)
{
    wino *s = state;
    if (s != NULL) {
        em_pack_release(s->pack);
        em_free(al, s);
    }
}

ember_status *em_fusedconv_f32_wino_prepare__avx2(const em_kinfo *ki, void **state,
                                                  size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    const em_tensor *w = &ki->in[1];
    bool has_b = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    bool has_z = ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    if (em_node_attr_int(ki->node, "blocked", 0) != WB ||
        em_node_attr_int(ki->node, "plain_input", 0) != 0 || ki->n_out != 1 ||
        ki->in[0].dtype != EMBER_DTYPE_F32 || w->dtype != EMBER_DTYPE_F32 ||
        ki->out[0].dtype != EMBER_DTYPE_F32 || w->data == NULL ||
        (has_b && (ki->in[2].dtype != EMBER_DTYPE_F32 || ki->in[2].data == NULL ||
                   ki->in[2].rank != 1 || ki->in[2].dims[0] != w->dims[0])) ||
        (has_z && (ki->in[3].dtype != EMBER_DTYPE_F32 ||
                   !em_tensor_same_shape(&ki->in[3], &ki->out[0])))) {
        return wino_decline(ki, "needs f32 blocked by 8 with constant W and B");
    }
    wino g;
    memset(&g, 0, sizeof g);
    if (w->rank != 4 || !wino_geom(ki, &g)) {
        return wino_decline(ki, "only 3x3 stride-1 convs of groups of whole channel blocks");
    }
    if (g.oh * g.ow < WINO_MIN_PLANE) {
        return wino_decline(ki, "output plane too small");
    }
    if (em_kinfo_half_of(ki, 1) != EMBER_DTYPE_UNDEFINED && g.oh * g.ow < WINO_HALF_MIN_PLANE) {
        return wino_decline(ki, "half weights on an output plane under 28 x 28");
    }
    /* Grouped: the GEMMs (C/G deep) must be long enough to pay for the transforms (measured
     * on regnet's layers, NOTES: 112-168-wide groups win; 56-wide ones lost on 14 x 14, and
     * regnet_y_8gf as a whole did not gain with them on 28 x 28 and 56 x 56). */
    if (g.g > 1 && g.cg < WINO_MIN_GROUP) {
        return wino_decline(ki, "groups too narrow");
    }
    if (!em_conv_epilogue_parse(ki->node, &g.epi)) {
        return wino_decline(ki, "activation");
    }
    wino *s = em_calloc(ki->al, 1, sizeof *s + sizeof(float) * (size_t)g.m);
    if (s == NULL) {
        return em_status_oom();
    }
    *s = g;
    s->has_b = has_b;
    s->has_z = has_z;
    s->th = (s->oh + 3) / 4, s->tw = (s->ow + 3) / 4, s->t = s->n * s->th * s->tw;
    if (has_b) {
        memcpy(s->bias, ki->in[2].data, sizeof(float) * (size_t)s->m);
    }
    int64_t key[2] = {s->m, s->cg};
    em_pack_key k = {"x86 winograd F(4,3) U", NULL, key, sizeof key, NULL};
    em_pack_cache *cache = em_kinfo_pack_at(ki, 1, &k.src);
    wino_pack_job job = {w->data, s->m, s->cg};
    ember_status *st = em_pack_get(cache, ki->al, &k,
                                   sizeof(float) * (size_t)(36 * s->m * s->cg), wino_fill, &job,
                                   &s->pack);
    if (st != NULL) {
        em_fusedconv_f32_wino_release__avx2(ki->al, s);
        return st;
    }
    s->u = em_pack_data(s->pack);
    em_kinfo_mark_packed(ki, 1); /* run reads U, never W */
    *scratch_bytes = sizeof(float) * (size_t)(36 * s->t * (s->c + s->m));
    *state = s;
    return NULL;
}

typedef struct wino_run {
    const wino *s;
    const float *x, *z;
    float *y, *v, *o;
} wino_run;

/* The 1-D transform B^T d of six vectors (rows of a 6x6 patch), in place. */
static inline void bt6(vf *d)
{
    const vf four = vf_set1(4.0f), five = vf_set1(5.0f), two = vf_set1(2.0f);
    vf t0 = vf_fmadd(four, d[0], vf_sub(d[4], vf_mul(five, d[2])));
    vf t1 = vf_sub(vf_add(d[3], d[4]), vf_mul(four, vf_add(d[1], d[2])));
    vf t2 = vf_add(vf_mul(four, vf_sub(d[1], d[2])), vf_sub(d[4], d[3]));
    vf t3 = vf_add(vf_mul(two, vf_sub(d[3], d[1])), vf_sub(d[4], d[2]));
    vf t4 = vf_add(vf_mul(two, vf_sub(d[1], d[3])), vf_sub(d[4], d[2]));
    vf t5 = vf_fmadd(four, d[1], vf_sub(d[5], vf_mul(five, d[3])));
    d[0] = t0, d[1] = t1, d[2] = t2, d[3] = t3, d[4] = t4, d[5] = t5;
}

/* The 1-D transform A^T o of six vectors into four. */
static inline void at6(const vf *o, vf *r)
{
    const vf two = vf_set1(2.0f), four = vf_set1(4.0f), eight = vf_set1(8.0f);
    vf s12 = vf_add(o[1], o[2]), d12 = vf_sub(o[1], o[2]);
    vf s34 = vf_add(o[3], o[4]), d34 = vf_sub(o[3], o[4]);
    r[0] = vf_add(vf_add(o[0], s12), s34);
    r[1] = vf_fmadd(two, d34, d12);
    r[2] = vf_fmadd(four, s34, s12);
    r[3] = vf_add(vf_fmadd(eight, d34, d12), o[5]);
}

/* Step 1 for one (tile row, channel block) item. */
static void wino_in_task(void *arg, int64_t begin, int64_t end)
{
    const wino_run *r = arg;
    const wino *s = r->s;
    const int64_t cb_n = s->c / WB;
    for (int64_t it = begin; it < end; it++) {
        int64_t cb = it % cb_n, row = it / cb_n, n = row / s->th, ty = row % s->th;
        const float *xp = r->x + (n * cb_n + cb) * s->ih * s->iw * WB;
        /* V[p][g][t][c % cg] of this block's channels: positions pstride apart */
        const int64_t gi = cb * WB / s->cg, pstride = s->g * s->t * s->cg;
        float *vp = r->v + gi * s->t * s->cg + (cb * WB - gi * s->cg);
        int64_t y0 = ty * 4 - s->pt;
        for (int64_t tx = 0; tx < s->tw; tx++) {
            int64_t x0 = tx * 4 - s->pl, t = row * s->tw + tx;
            vf d[6][6];
            bool inside = y0 >= 0 && y0 + 6 <= s->ih && x0 >= 0 && x0 + 6 <= s->iw;
            for (int i = 0; i < 6; i++) {
                for (int j = 0; j < 6; j++) {
                    int64_t yy = y0 + i, xx = x0 + j;
                    d[i][j] = inside || (yy >= 0 && yy < s->ih && xx >= 0 && xx < s->iw)
                                  ? vf_load(xp + (yy * s->iw + xx) * WB)
                                  : vf_set1(0.0f);
                }
            }
            for (int i = 0; i < 6; i++) { /* rows: B^T along each row of the patch */
                bt6(d[i]);
            }
            for (int j = 0; j < 6; j++) { /* columns */
                vf col[6] = {d[0][j], d[1][j], d[2][j], d[3][j], d[4][j], d[5][j]};
                bt6(col);
                for (int i = 0; i < 6; i++) {
                    vf_store(vp + (i * 6 + j) * pstride + t * s->cg, col[i]);
                }
            }
        }
    }
}

/* O[p][g][t0 .. t0 + rows)[m0 .. m0 + 8 * nb) = V[p][g][t][:] . U[p][:][m], nb 1 or 2 blocks
 * of one group (v: row t0 of the group's V, rows C/G apart; o: M/G apart). Inlined with a
 * constant rows and nb in each call of wino_rows, so every loop over rows unrolls and the
 * accumulators stay in registers (the partial blocks of 14 x 14 planes' 16 tiles, 6 + 6 + 4,
 * ran spilled in a generic loop). */
static inline __attribute__((always_inline)) void wino_block(const wino *s, const float *v,
                                                             const float *u0, const float *u1,
                                                             float *o, const int rows,
                                                             const int nb)
{
    vf acc[MR][2];
    for (int i = 0; i < MR; i++) {
        acc[i][0] = acc[i][1] = vf_set1(0.0f);
    }
    const int64_t cg = s->cg, mg = s->mg;
    for (int64_t k = 0; k < cg; k++) {
        vf b0 = vf_load(u0 + k * WB), b1 = nb == 2 ? vf_load(u1 + k * WB) : b0;
        for (int i = 0; i < rows; i++) {
            vf a = vf_set1(v[i * cg + k]);
            acc[i][0] = vf_fmadd(a, b0, acc[i][0]);
            if (nb == 2) {
                acc[i][1] = vf_fmadd(a, b1, acc[i][1]);
            }
        }
    }
    for (int i = 0; i < rows; i++) {
        vf_store(o + i * mg, acc[i][0]);
        if (nb == 2) {
            vf_store(o + i * mg + WB, acc[i][1]);
        }
    }
}

/* wino_block with rows (1..MR) and nb (1, 2) as constants. */
static void wino_rows(const wino *s, const float *v, const float *u0, const float *u1, float *o,
                      int rows, int nb)
{
#define WINO_ROWS(R)                                                                              \
    case R:                                                                                       \
        if (nb == 2) {                                                                            \
            wino_block(s, v, u0, u1, o, R, 2);                                                    \
        } else {                                                                                  \
            wino_block(s, v, u0, u1, o, R, 1);                                                    \
        }                                                                                         \
        break;
    switch (rows) {
        WINO_ROWS(1)
        WINO_ROWS(2)
        WINO_ROWS(3)
        WINO_ROWS(4)
        WINO_ROWS(5)
        default: wino_block(s, v, u0, u1, o, MR, nb == 2 ? 2 : 1); break;
    }
#undef WINO_ROWS
}

/* Step 2 for one (position, group, 16-channel panel of the group) item. */
static void wino_gemm_task(void *arg, int64_t begin, int64_t end)
{
    const wino_run *r = arg;
    const wino *s = r->s;
    const int64_t mb_n = s->m / WB, gb_n = s->mg / WB, panels = (gb_n + 1) / 2;
    for (int64_t it = begin; it < end; it++) {
        int64_t p = it / (s->g * panels), gi = it / panels % s->g, pb = it % panels * 2;
        int64_t mb = gi * gb_n + pb; /* the panel's first output block */
        int nb = pb + 1 < gb_n ? 2 : 1;
        const float *u0 = s->u + (p * mb_n + mb) * s->cg * WB;
        const float *u1 = u0 + s->cg * WB;
        const float *v = r->v + (p * s->g + gi) * s->t * s->cg;
        float *o = r->o + (p * s->g + gi) * s->t * s->mg + pb * WB;
        for (int64_t t = 0; t < s->t; t += MR) {
            int rows = s->t - t < MR ? (int)(s->t - t) : MR;
            wino_rows(s, v + t * s->cg, u0, u1, o + t * s->mg, rows, nb);
        }
    }
}

/* Step 3 for one (tile row, output block) item. */
static void wino_out_task(void *arg, int64_t begin, int64_t end)
{
    const wino_run *r = arg;
    const wino *s = r->s;
    const int64_t mb_n = s->m / WB, plane = s->oh * s->ow;
    for (int64_t it = begin; it < end; it++) {
        int64_t mb = it % mb_n, row = it / mb_n, n = row / s->th, ty = row % s->th;
        const vf bias = vf_load(s->bias + mb * WB);
        /* O[p][g][t][m % mg] of this output block: positions pstride apart */
        const int64_t gi = mb * WB / s->mg, pstride = s->g * s->t * s->mg;
        const float *op = r->o + gi * s->t * s->mg + (mb * WB - gi * s->mg);
        float *yp = r->y + (n * mb_n + mb) * plane * WB;
        const float *zp = r->z != NULL ? r->z + (n * mb_n + mb) * plane * WB : NULL;
        for (int64_t tx = 0; tx < s->tw; tx++) {
            int64_t t = row * s->tw + tx;
            vf m[6][4], q[4][4];
            for (int i = 0; i < 6; i++) { /* A^T along the rows of O's 6x6 */
                vf o[6];
                for (int j = 0; j < 6; j++) {
                    o[j] = vf_load(op + (i * 6 + j) * pstride + t * s->mg);
                }
                at6(o, m[i]);
            }
            for (int j = 0; j < 4; j++) {
                vf col[6] = {m[0][j], m[1][j], m[2][j], m[3][j], m[4][j], m[5][j]}, res[4];
                at6(col, res);
                for (int i = 0; i < 4; i++) {
                    q[i][j] = res[i];
                }
            }
            for (int i = 0; i < 4 && ty * 4 + i < s->oh; i++) {
                for (int j = 0; j < 4 && tx * 4 + j < s->ow; j++) {
                    int64_t at = ((ty * 4 + i) * s->ow + tx * 4 + j) * WB;
                    vf val = vf_add(q[i][j], bias);
                    if (zp != NULL) {
                        val = vf_add(val, vf_load(zp + at));
                    }
                    vf_store(yp + at, vf_conv_act(&s->epi, val));
                }
            }
        }
    }
}

void em_fusedconv_f32_wino__avx2(const void *state, const em_tensor *in, em_tensor *out,
                                 const em_kctx *ctx)
{
    const wino *s = state;
    float *v = (float *)ctx->scratch;
    wino_run r = {s, in[0].data, s->has_z ? in[3].data : NULL, out[0].data, v,
                  v + 36 * s->t * s->c};
    em_threadpool *pool = ctx->pool;
    int64_t rows = s->n * s->th, mb_n = s->m / WB;
    em_parallel_for(pool, rows * (s->c / WB), 1, wino_in_task, &r);
    em_parallel_for(pool, 36 * s->g * ((s->mg / WB + 1) / 2), 1, wino_gemm_task, &r);
    em_parallel_for(pool, rows * mb_n, 1, wino_out_task, &r);
}
