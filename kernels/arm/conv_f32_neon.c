/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 Conv and FusedConv (2-D, plain NCHW), NEON: im2col and the packed SGEMM of
 * gemm_f32_neon.c. For each image and group, the input patches become a [C/g * kH * kW, OH * OW]
 * matrix (a 1x1 stride-1 unpadded conv reads X as that matrix directly), and
 * Y_g[M/g, OH * OW] = W_g[M/g, C/g * kH * kW] x cols runs through the driver with the bias as
 * its C (one value a row) and FusedConv's activation as its epilogue; with a residual Z the
 * activation instead follows the sum in one pass over the group's output, as the reference
 * orders it (conv + bias, + Z, activation). Threads: the driver's tiles, and the im2col rows.
 * The channel-blocked layout of 4 channels (`blocked` = 4, the layout pass's block on ARM: X,
 * Z and Y [N, ceil(C/4), H, W, 4], or X plain with `plain_input`) runs the same way on plain
 * copies in scratch: X's image unblocked to [C, H, W] (4x4 transposes), the product into a
 * plain [M, OH * OW], then that scattered into Y's blocks with Z and the activation (when Z
 * is given) and the lanes past M set to 0; the blocked depthwise convs have their own unit
 * (dwconv_blocked_f32_neon.c). The copies cost O((C + M) * pixels) beside the product's
 * O(M * C * taps * pixels).
 * Declined (the reference runs them): other ranks, other blocks, non-f32, and attributes that
 * do not match the shapes (the reference reports those).
 */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#include "kernels/vec/conv_act.inc"
#include "kernels/vec/gemm_shape.h"
#define DW_R 4 /* dw_window's header needs it; this unit uses only the window parsing */
#define DW_CHEAP_EPILOGUES 1
#include "kernels/vec/dwconv_shape.h"

typedef struct cv_state {
    dw_state win;   /* window and sizes (dw_window) */
    int64_t c, m, group, cg, mg, kdim, ohw;
    bool direct;    /* 1x1, stride 1, no padding: X is the column matrix */
    bool has_b, has_z;
    bool blocked;   /* Y and Z blocked by 4 */
    bool x_blocked; /* X too (not plain_input) */
    em_conv_epilogue epi;
    void *gemm;     /* em_sgemm_plan__neon's state */
    size_t gemm_floats, col_floats;
    size_t xp_floats, yp_floats; /* the plain copies of X's and Y's image (blocked only) */
} cv_state;

static ember_status *cv_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': NEON conv: %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

void em_conv_f32_release__neon(const ember_allocator *al, void *state)
{
    cv_state *s = state;
    if (s != NULL) {
        em_sgemm_release__neon(al, s->gemm);
        em_free(al, s);
    }
}

static bool cv_f32(const em_kinfo *ki, int i)
{
    return i >= ki->n_in || ki->in[i].dtype == EMBER_DTYPE_UNDEFINED ||
           ki->in[i].dtype == EMBER_DTYPE_F32;
}

ember_status *em_conv_f32_prepare__neon(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    if (ki->n_in < 2 || ki->n_out != 1 || x->dtype != EMBER_DTYPE_F32 ||
        w->dtype != EMBER_DTYPE_F32 || y->dtype != EMBER_DTYPE_F32 || !cv_f32(ki, 2) ||
        !cv_f32(ki, 3)) {
        return cv_decline(ki, "only f32");
    }
    const int64_t blk = em_node_attr_int(ki->node, "blocked", 0);
    const bool plain_in = blk == 0 || em_node_attr_int(ki->node, "plain_input", 0) != 0;
    if (blk != 0 && blk != VF_LANES) {
        return cv_decline(ki, "a channel block other than 4");
    }
    if (x->rank != (plain_in ? 4 : 5) || w->rank != 4 || y->rank != (blk ? 5 : 4) ||
        (blk && (y->dims[4] != blk || (!plain_in && x->dims[4] != blk)))) {
        return cv_decline(ki, "only 2-D");
    }
    cv_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    ember_status *st = NULL;
    s->blocked = blk != 0;
    s->x_blocked = !plain_in;
    s->group = em_node_attr_int(ki->node, "group", 1);
    s->c = plain_in ? x->dims[1] : w->dims[1] * s->group;
    s->m = w->dims[0];
    s->has_b = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    s->has_z = ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    if (s->group < 1 || s->c % s->group != 0 || s->m % s->group != 0 ||
        w->dims[1] != s->c / s->group || y->dims[0] != x->dims[0] ||
        y->dims[1] != (s->blocked ? (s->m + blk - 1) / blk : s->m) ||
        (s->x_blocked && x->dims[1] != (s->c + blk - 1) / blk) ||
        (s->has_b && (ki->in[2].rank != 1 || ki->in[2].dims[0] != s->m)) ||
        (s->has_z && !em_tensor_same_shape(&ki->in[3], y))) {
        st = cv_decline(ki, "channels or shapes");
        goto fail;
    }
    if (!dw_window(ki, &s->win)) {
        st = cv_decline(ki, "window attributes or shapes");
        goto fail;
    }
    if (!em_conv_epilogue_parse(ki->node, &s->epi)) {
        st = cv_decline(ki, "activation");
        goto fail;
    }
    const dw_state *d = &s->win;
    s->cg = s->c / s->group;
    s->mg = s->m / s->group;
    s->kdim = s->cg * d->kh * d->kw;
    s->ohw = d->oh * d->ow;
    s->direct = d->kh == 1 && d->kw == 1 && d->sh == 1 && d->sw == 1 && d->pt == 0 &&
                d->pl == 0 && d->oh == d->ih && d->ow == d->iw;
    em_gemm_shape sh = {0};
    sh.m = s->mg, sh.n = s->ohw, sh.k = s->kdim;
    sh.alpha = 1.0f, sh.beta = 1.0f;
    sh.lda = s->kdim, sh.ldb = s->ohw;
    sh.has_c = s->has_b; /* the bias as C, one value a row */
    sh.c_rs = 1, sh.c_cs = 0;
    sh.batch = 1, sh.b_mats = 1;
    if (!s->has_z) {
        sh.epi.conv = s->epi;
    }
    size_t gemm_bytes = 0;
    EMBER_TRY(em_sgemm_plan__neon(ki, &sh, &s->gemm, &gemm_bytes));
    s->gemm_floats = em_align_up(gemm_bytes, EM_ALIGN) / sizeof(float);
    if (!s->direct && !em_size_mul((size_t)s->kdim, (size_t)s->ohw, &s->col_floats)) {
        st = cv_decline(ki, "too large");
        goto fail;
    }
    if ((s->x_blocked && !em_size_mul((size_t)s->c, (size_t)(d->ih * d->iw), &s->xp_floats)) ||
        (s->blocked && !em_size_mul((size_t)s->m, (size_t)s->ohw, &s->yp_floats)) ||
        !em_size_mul(s->gemm_floats + s->col_floats + s->xp_floats + s->yp_floats, sizeof(float),
                     scratch_bytes)) {
        st = cv_decline(ki, "too large");
        goto fail;
    }
    *state = s;
    return NULL;
fail:
    em_conv_f32_release__neon(ki->al, s);
    return st;
}

typedef struct cv_cols {
    const cv_state *s;
    const float *x; /* the group's first input channel */
    float *col;
} cv_cols;

/* Rows [begin, end) of the column matrix: row (ic, ky, kx) holds, for every output pixel, the
 * input value its tap reads (0 in the padding). */
static void cv_im2col(void *arg, int64_t begin, int64_t end)
{
    const cv_cols *a = arg;
    const dw_state *d = &a->s->win;
    const int64_t taps = d->kh * d->kw;
    for (int64_t r = begin; r < end; r++) {
        const int64_t ic = r / taps, ky = r % taps / d->kw, kx = r % d->kw;
        const float *xc = a->x + ic * d->ih * d->iw;
        float *dst = a->col + r * a->s->ohw;
        /* the output columns whose tap falls inside the row: ix = ox * sw - pl + kx * dw */
        const int64_t off = kx * d->dw - d->pl;
        int64_t lo = off >= 0 ? 0 : (-off + d->sw - 1) / d->sw;
        int64_t hi = d->iw - 1 - off < 0 ? 0 : (d->iw - 1 - off) / d->sw + 1;
        hi = hi > d->ow ? d->ow : hi;
        lo = lo > hi ? hi : lo;
        for (int64_t oy = 0; oy < d->oh; oy++, dst += d->ow) {
            const int64_t iy = oy * d->sh - d->pt + ky * d->dh;
            if (iy < 0 || iy >= d->ih) {
                memset(dst, 0, sizeof(float) * (size_t)d->ow);
                continue;
            }
            const float *xr = xc + iy * d->iw; /* column ox reads xr[ox * sw + off] */
            for (int64_t ox = 0; ox < lo; ox++) {
                dst[ox] = 0.0f;
            }
            if (d->sw == 1) {
                memcpy(dst + lo, xr + lo + off, sizeof(float) * (size_t)(hi - lo));
            } else {
                for (int64_t ox = lo; ox < hi; ox++) {
                    dst[ox] = xr[ox * d->sw + off];
                }
            }
            for (int64_t ox = hi; ox < d->ow; ox++) {
                dst[ox] = 0.0f;
            }
        }
    }
}

/* y = act(y + z) over n floats (the residual form's epilogue). */
static void cv_add_act(const em_conv_epilogue *e, float *y, const float *z, int64_t n)
{
    int64_t i = 0;
    for (; i + VF_LANES <= n; i += VF_LANES) {
        vf_store(y + i, vf_conv_act(e, vf_add(vf_load(y + i), vf_load(z + i))));
    }
    if (i < n) {
        float b[VF_LANES] = {0}, c[VF_LANES] = {0};
        memcpy(b, y + i, sizeof(float) * (size_t)(n - i));
        memcpy(c, z + i, sizeof(float) * (size_t)(n - i));
        vf_store(b, vf_conv_act(e, vf_add(vf_load(b), vf_load(c))));
        memcpy(y + i, b, sizeof(float) * (size_t)(n - i));
    }
}

/* r[0..3] (4 rows of 4) transposed in place: r[j][i] = old r[i][j]. */
static inline void cv_tr4(float32x4_t *r)
{
    const float32x4_t t0 = vtrn1q_f32(r[0], r[1]), t1 = vtrn2q_f32(r[0], r[1]);
    const float32x4_t t2 = vtrn1q_f32(r[2], r[3]), t3 = vtrn2q_f32(r[2], r[3]);
    r[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    r[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    r[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    r[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

typedef struct cv_reblock {
    const cv_state *s;
    const float *src, *z; /* z: Y's blocked residual image, or NULL */
    float *dst;
    int64_t ch, plane;    /* channels and pixels of the image */
} cv_reblock;

/* Channel blocks [begin, end) of a blocked image [ceil(ch/4), plane, 4] into plain rows
 * [ch, plane]. */
static void cv_unblock(void *arg, int64_t begin, int64_t end)
{
    const cv_reblock *a = arg;
    const int64_t pl = a->plane;
    for (int64_t cb = begin; cb < end; cb++) {
        const float *xb = a->src + cb * pl * VF_LANES;
        float *dst = a->dst + cb * VF_LANES * pl;
        const int64_t lanes = a->ch - cb * VF_LANES < VF_LANES ? a->ch - cb * VF_LANES : VF_LANES;
        int64_t p = 0;
        for (; p + VF_LANES <= pl; p += VF_LANES) {
            float32x4_t r[4] = {vld1q_f32(xb + p * 4), vld1q_f32(xb + p * 4 + 4),
                                vld1q_f32(xb + p * 4 + 8), vld1q_f32(xb + p * 4 + 12)};
            cv_tr4(r);
            for (int64_t i = 0; i < lanes; i++) {
                vst1q_f32(dst + i * pl + p, r[i]);
            }
        }
        for (; p < pl; p++) {
            for (int64_t i = 0; i < lanes; i++) {
                dst[i * pl + p] = xb[p * 4 + i];
            }
        }
    }
}

/* One pixel of Y's block at y: v, or act(v + z[0..3]) when z is given; lanes off `keep` 0. */
static inline void cv_put(const cv_state *s, vf v, const float *z, float *y, uint32x4_t keep)
{
    if (z != NULL) {
        v = vf_conv_act(&s->epi, vf_add(v, vld1q_f32(z)));
    }
    vst1q_f32(y, vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), keep)));
}

/* Output blocks [begin, end): plain rows [m, plane] into Y's blocked image, act(y + z) when
 * Z is given (else the product already had its epilogue), the lanes past m set to 0. */
static void cv_reblock_out(void *arg, int64_t begin, int64_t end)
{
    const cv_reblock *a = arg;
    const int64_t pl = a->plane;
    for (int64_t mb = begin; mb < end; mb++) {
        const float *src = a->src + mb * VF_LANES * pl;
        float *yb = a->dst + mb * pl * VF_LANES;
        const float *zb = a->z != NULL ? a->z + mb * pl * VF_LANES : NULL;
        const int64_t lanes = a->ch - mb * VF_LANES < VF_LANES ? a->ch - mb * VF_LANES : VF_LANES;
        static const uint32_t lane_ids[4] = {0, 1, 2, 3};
        const uint32x4_t keep = vcltq_u32(vld1q_u32(lane_ids), vdupq_n_u32((uint32_t)lanes));
        const float *row[4];
        for (int64_t i = 0; i < VF_LANES; i++) {
            row[i] = src + (i < lanes ? i : 0) * pl; /* a row past m: any row, masked below */
        }
        int64_t p = 0;
        for (; p + VF_LANES <= pl; p += VF_LANES) {
            float32x4_t r[4] = {vld1q_f32(row[0] + p), vld1q_f32(row[1] + p),
                                vld1q_f32(row[2] + p), vld1q_f32(row[3] + p)};
            cv_tr4(r);
            for (int j = 0; j < 4; j++) {
                cv_put(a->s, r[j], zb != NULL ? zb + (p + j) * 4 : NULL, yb + (p + j) * 4, keep);
            }
        }
        for (; p < pl; p++) {
            float t[4];
            for (int i = 0; i < 4; i++) {
                t[i] = row[i][p];
            }
            cv_put(a->s, vld1q_f32(t), zb != NULL ? zb + p * 4 : NULL, yb + p * 4, keep);
        }
    }
}

void em_conv_f32__neon(const void *state, const em_tensor *in, em_tensor *out,
                       const em_kctx *ctx)
{
    const cv_state *s = state;
    const dw_state *d = &s->win;
    const float *x = in[0].data, *w = in[1].data;
    const float *bias = s->has_b ? in[2].data : NULL, *z = s->has_z ? in[3].data : NULL;
    float *y = out[0].data, *col = (float *)ctx->scratch + s->gemm_floats;
    float *xp = col + s->col_floats, *yp = xp + s->xp_floats;
    const int64_t plane = d->ih * d->iw, cbk = (s->c + VF_LANES - 1) / VF_LANES;
    const int64_t mbk = (s->m + VF_LANES - 1) / VF_LANES;
    const int64_t in_img = s->x_blocked ? cbk * VF_LANES * plane : s->c * plane;
    const int64_t out_img = s->blocked ? mbk * VF_LANES * s->ohw : s->m * s->ohw;
    for (int64_t n = 0; n < d->n; n++) {
        const float *xn = x + n * in_img;
        if (s->x_blocked) {
            cv_reblock a = {s, xn, NULL, xp, s->c, plane};
            em_parallel_for(cbk > 1 ? ctx->pool : NULL, cbk, 1, cv_unblock, &a);
            xn = xp;
        }
        float *yn = s->blocked ? yp : y + n * out_img;
        for (int64_t g = 0; g < s->group; g++) {
            const float *xg = xn + g * s->cg * plane;
            const float *b = xg;
            if (!s->direct) {
                cv_cols a = {s, xg, col};
                em_parallel_for(s->kdim > 1 ? ctx->pool : NULL, s->kdim, 1, cv_im2col, &a);
                b = col;
            }
            float *yg = yn + g * s->mg * s->ohw;
            em_sgemm_run__neon(s->gemm, w + g * s->mg * s->kdim, b,
                               bias != NULL ? bias + g * s->mg : NULL, yg, ctx->scratch,
                               ctx->pool);
            if (z != NULL && !s->blocked) {
                cv_add_act(&s->epi, yg, z + n * out_img + g * s->mg * s->ohw, s->mg * s->ohw);
            }
        }
        if (s->blocked) {
            cv_reblock a = {s, yp, z != NULL ? z + n * out_img : NULL, y + n * out_img, s->m,
                            s->ohw};
            em_parallel_for(mbk > 1 ? ctx->pool : NULL, mbk, 1, cv_reblock_out, &a);
        }
    }
}
