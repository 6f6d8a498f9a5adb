/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise f32 Conv and FusedConv (2-D, plain NCHW: group == C == M, W [C, 1, kH, kW]),
 * NEON. The im2col convolution would turn each channel into a 1-row GEMM over a 9-row
 * column matrix; here each output row is summed in place instead: Y's row starts at 0, each
 * tap (ky, kx) whose input row exists adds w * X's row over the output columns whose input
 * column exists (4 columns a vector: contiguous loads at stride 1, the even lanes of a
 * de-interleaving load at stride 2, scalar at other strides and at the ends), then the row
 * gets bias, Z and the activation in one pass, as the reference orders them (conv + bias,
 * + Z, activation). The row stays in L1 across its taps. Threads: planes (image, channel).
 * Any kernel size, stride, dilation and padding; declined: the channel-blocked layout,
 * channel multipliers, other ranks, non-f32.
 */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#include "kernels/vec/conv_act.inc"
#define DW_R 4 /* dw_window's header needs it; this unit uses only the window parsing */
#define DW_CHEAP_EPILOGUES 1
#include "kernels/vec/dwconv_shape.h"

typedef struct dn_state {
    dw_state win;
    bool has_b, has_z;
    em_conv_epilogue epi;
} dn_state;

void em_dwconv_f32_release__neon(const ember_allocator *al, void *state)
{
    em_free(al, state);
}

ember_status *em_dwconv_f32_prepare__neon(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    const bool has_b = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    const bool has_z = ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    if (ki->n_in < 2 || ki->n_out != 1 || x->dtype != EMBER_DTYPE_F32 ||
        w->dtype != EMBER_DTYPE_F32 || y->dtype != EMBER_DTYPE_F32 ||
        (has_b && ki->in[2].dtype != EMBER_DTYPE_F32) ||
        (has_z && ki->in[3].dtype != EMBER_DTYPE_F32)) {
        return dw_decline(ki, "only f32");
    }
    if (em_node_attr_int(ki->node, "blocked", 0) != 0 ||
        em_node_attr_int(ki->node, "plain_input", 0) != 0 || x->rank != 4 || w->rank != 4 ||
        y->rank != 4) {
        return dw_decline(ki, "only 2-D NCHW");
    }
    const int64_t c = x->dims[1];
    if (em_node_attr_int(ki->node, "group", 1) != c || w->dims[0] != c || w->dims[1] != 1 ||
        y->dims[1] != c || y->dims[0] != x->dims[0] ||
        (has_b && (ki->in[2].rank != 1 || ki->in[2].dims[0] != c)) ||
        (has_z && !em_tensor_same_shape(&ki->in[3], y))) {
        return dw_decline(ki, "not depthwise with one output channel per group");
    }
    dn_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->has_b = has_b;
    s->has_z = has_z;
    if (!dw_window(ki, &s->win) || !em_conv_epilogue_parse(ki->node, &s->epi)) {
        em_free(ki->al, s);
        return dw_decline(ki, "window attributes, shapes or activation");
    }
    s->win.c = c;
    *state = s;
    return NULL;
}

typedef struct dn_args {
    const dn_state *s;
    const float *x, *w, *b, *z;
    float *y;
} dn_args;

/* y[lo:hi] += wt * xr[ox * sw + off], xr the input row of iw floats; [lo, hi) keeps every
 * index inside it. */
static void dn_tap(float *y, const float *xr, int64_t off, float wt, int64_t lo, int64_t hi,
                   int64_t sw, int64_t iw)
{
    const vf wv = vf_set1(wt);
    int64_t ox = lo;
    if (sw == 1) {
        for (; ox + 4 <= hi; ox += 4) {
            vf_store(y + ox, vf_fmadd(wv, vf_load(xr + ox + off), vf_load(y + ox)));
        }
    } else if (sw == 2) {
        /* the load reads xr[2 ox + off .. 2 ox + off + 7]: keep it inside the row */
        for (; ox + 4 <= hi && 2 * ox + off + 8 <= iw; ox += 4) {
            vf_store(y + ox, vf_fmadd(wv, vf_load_even(xr + 2 * ox + off), vf_load(y + ox)));
        }
    }
    for (; ox < hi; ox++) {
        y[ox] = fmaf(wt, xr[ox * sw + off], y[ox]);
    }
}

static void dn_task(void *arg, int64_t begin, int64_t end)
{
    const dn_args *a = arg;
    const dn_state *s = a->s;
    const dw_state *d = &s->win;
    const int64_t taps = d->kh * d->kw;
    for (int64_t p = begin; p < end; p++) { /* plane p = image * C + channel */
        const int64_t ch = p % d->c;
        const float *xp = a->x + p * d->ih * d->iw, *wc = a->w + ch * taps;
        float *yp = a->y + p * d->oh * d->ow;
        const float bias = a->b != NULL ? a->b[ch] : 0.0f;
        for (int64_t oy = 0; oy < d->oh; oy++) {
            float *yr = yp + oy * d->ow;
            memset(yr, 0, sizeof(float) * (size_t)d->ow);
            for (int64_t ky = 0; ky < d->kh; ky++) {
                const int64_t iy = oy * d->sh - d->pt + ky * d->dh;
                if (iy < 0 || iy >= d->ih) {
                    continue;
                }
                for (int64_t kx = 0; kx < d->kw; kx++) {
                    /* output columns whose input column ox * sw + off is inside the row */
                    const int64_t off = kx * d->dw - d->pl;
                    int64_t lo = off >= 0 ? 0 : (-off + d->sw - 1) / d->sw;
                    int64_t hi = d->iw - 1 - off < 0 ? 0 : (d->iw - 1 - off) / d->sw + 1;
                    hi = hi > d->ow ? d->ow : hi;
                    if (lo >= hi) {
                        continue;
                    }
                    dn_tap(yr, xp + iy * d->iw, off, wc[ky * d->kw + kx], lo, hi, d->sw, d->iw);
                }
            }
            /* conv + bias, + Z, activation */
            const float *zr = a->z != NULL ? a->z + p * d->oh * d->ow + oy * d->ow : NULL;
            const vf bv = vf_set1(bias);
            int64_t ox = 0;
            for (; ox + VF_LANES <= d->ow; ox += VF_LANES) {
                vf v = vf_add(vf_load(yr + ox), bv);
                if (zr != NULL) {
                    v = vf_add(v, vf_load(zr + ox));
                }
                vf_store(yr + ox, vf_conv_act(&s->epi, v));
            }
            for (; ox < d->ow; ox++) {
                float v = yr[ox] + bias;
                if (zr != NULL) {
                    v += zr[ox];
                }
                float t[VF_LANES] = {v};
                vf_store(t, vf_conv_act(&s->epi, vf_load(t)));
                yr[ox] = t[0];
            }
        }
    }
}

void em_dwconv_f32__neon(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx)
{
    const dn_state *s = state;
    dn_args a = {s,
                 in[0].data,
                 in[1].data,
                 s->has_b ? in[2].data : NULL,
                 s->has_z ? in[3].data : NULL,
                 out[0].data};
    const int64_t planes = s->win.n * s->win.c;
    em_parallel_for(planes > 1 ? ctx->pool : NULL, planes, 1, dn_task, &a);
}
