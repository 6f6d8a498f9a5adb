/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise FusedConv (f32, 2-D, channel-blocked) for the x86 units: what prepare accepts, the
 * state, and the weights packed once (plain C, no intrinsics; the computation is in
 * dwconv_driver.inc, each ISA unit gets its own static copy of this header).
 *
 * Accepted: FusedConv with `blocked` = VF_LANES (16 on AVX-512, 8 on AVX2), X, Z and Y
 * [N, ceil(C/b), H, W, b], W [C, 1, kH, kW] constant, group == C == M (one input and one output
 * channel per group), any kernel size, strides, dilations, pads or auto_pad, optional constant
 * B [C], optional Z, every epilogue activation of runtime/ir/fusedconv.h. Everything else (plain
 * layout, plain_input, channel multiplier != 1, W or B computed at run time, another block) is
 * declined with EMBER_ERR_UNSUPPORTED so the planner tries the next kernel (oneDNN).
 *
 * Packed: W as [C/b][kH][kW][b] and B as [C/b][b], lanes past C zero. The lanes past C of Y are
 * written as zeros (as oneDNN and the reorder keep them), whatever the activation of zero is.
 */
#ifndef EMBER_KERNELS_VEC_DWCONV_SHAPE_H
#define EMBER_KERNELS_VEC_DWCONV_SHAPE_H

#include "core/alloc.h"
#include "ir/fusedconv.h"
#include "plan/kernel.h"
#include "pool_shape.h" /* px_ints, px_auto_pad: the window attributes as the pools read them */
#include "core/status.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct dw_state {
    int64_t n, cb, c;       /* batch, channel blocks, real channels */
    int64_t ih, iw, oh, ow; /* input and output planes */
    int64_t kh, kw, sh, sw, dh, dw, pt, pl;
    int64_t ox_lo, ox_hi; /* output columns whose taps all fall inside the input row */
    int r;                /* output pixels per strip (DW_R or DW_R - 1) */
    em_conv_epilogue epi;
    bool has_z;
    bool masked;             /* C % b != 0: the last block's lanes past C are zeroed */
    float *w;                /* [cb][kh][kw][b] */
    float *bias;             /* [cb][b] (zeros without B) */
    float lane_on[VF_LANES]; /* 1 for the lanes of the last block below C, else 0 */
} dw_state;

static inline ember_status *dw_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': depthwise kernel: %s",
                         em_op_name(ki->node->op), ki->node->name, why);
}

static inline void dw_free(const ember_allocator *al, void *state)
{
    dw_state *s = state;
    if (s != NULL) {
        em_aligned_free(al, s->w);
        em_aligned_free(al, s->bias);
        em_free(al, s);
    }
}

/* Sigmoid, Tanh, SiLU and Gelu: the activations whose exp dominates the epilogue. */
static inline bool dw_exp_epilogue(em_conv_act act)
{
    return act == EM_ACT_SIGMOID || act == EM_ACT_TANH || act == EM_ACT_SILU ||
           act == EM_ACT_GELU || act == EM_ACT_GELU_TANH;
}

/* Layout, dtypes and channel counts of the node; NULL when this kernel can take it. */
static inline ember_status *dw_check_kind(const em_kinfo *ki)
{
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    bool has_b = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    bool has_z = ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    if (em_node_attr_int(ki->node, "blocked", 0) != VF_LANES ||
        em_node_attr_int(ki->node, "plain_input", 0) != 0) {
        return dw_decline(ki, "needs X and Y blocked by the vector width");
    }
    if (ki->n_in < 2 || ki->n_out != 1 || x->dtype != EMBER_DTYPE_F32 ||
        w->dtype != EMBER_DTYPE_F32 || y->dtype != EMBER_DTYPE_F32 ||
        (has_b && ki->in[2].dtype != EMBER_DTYPE_F32) ||
        (has_z && ki->in[3].dtype != EMBER_DTYPE_F32)) {
        return dw_decline(ki, "only f32");
    }
    if (x->rank != 5 || w->rank != 4 || y->rank != 5 || x->dims[4] != VF_LANES ||
        y->dims[4] != VF_LANES || (has_z && !em_tensor_same_shape(&ki->in[3], y))) {
        return dw_decline(ki, "only 2-D blocked shapes");
    }
    int64_t m = w->dims[0], cb = (m + VF_LANES - 1) / VF_LANES;
    if (em_node_attr_int(ki->node, "group", 1) != m || w->dims[1] != 1 || x->dims[1] != cb ||
        y->dims[1] != cb || y->dims[0] != x->dims[0] ||
        (has_b && (ki->in[2].rank != 1 || ki->in[2].dims[0] != m))) {
        return dw_decline(ki, "not depthwise with one output channel per group");
    }
    if (w->data == NULL || (has_b && ki->in[2].data == NULL)) {
        return dw_decline(ki, "W and B must be constant");
    }
    return NULL;
}

/* Kernel window and output size; false when the attributes do not match the shapes. */
static inline bool dw_window(const em_kinfo *ki, dw_state *s)
{
    const em_node *n = ki->node;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    int64_t k[2], st[2], dl[2], pads[4];
    const char *ap = em_node_attr_string(n, "auto_pad", "NOTSET");
    if (!px_ints(n, "kernel_shape", 2, 0, k) || !px_ints(n, "strides", 2, 1, st) ||
        !px_ints(n, "dilations", 2, 1, dl) || !px_ints(n, "pads", 4, 0, pads) ||
        (k[0] != 0 && k[0] != w->dims[2]) || (k[1] != 0 && k[1] != w->dims[3])) {
        return false;
    }
    s->n = x->dims[0], s->cb = x->dims[1], s->c = w->dims[0];
    s->ih = x->dims[2], s->iw = x->dims[3], s->oh = y->dims[2], s->ow = y->dims[3];
    s->kh = w->dims[2], s->kw = w->dims[3];
    s->sh = st[0], s->sw = st[1], s->dh = dl[0], s->dw = dl[1];
    if (strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0 && strcmp(ap, "SAME_UPPER") != 0 &&
        strcmp(ap, "SAME_LOWER") != 0) {
        return false;
    }
    px_auto_pad(ap, s->ih, s->kh, s->sh, s->dh, &pads[0], &pads[2]);
    px_auto_pad(ap, s->iw, s->kw, s->sw, s->dw, &pads[1], &pads[3]);
    s->pt = pads[0], s->pl = pads[1];
    const int64_t in[2] = {s->ih, s->iw}, out[2] = {s->oh, s->ow}, kk[2] = {s->kh, s->kw};
    for (int d = 0; d < 2; d++) {
        int64_t ext = (kk[d] - 1) * dl[d] + 1, span = in[d] + pads[d] + pads[d + 2] - ext;
        if (st[d] < 1 || dl[d] < 1 || pads[d] < 0 || pads[d + 2] < 0 || kk[d] < 1 || span < 0 ||
            span / st[d] + 1 != out[d]) {
            return false;
        }
    }
    /* ox in [ox_lo, ox_hi): ox * sw - pl >= 0 and ox * sw - pl + (kw - 1) * dw < iw. */
    s->ox_lo = (s->pl + s->sw - 1) / s->sw;
    int64_t last = s->iw - 1 - (s->kw - 1) * s->dw + s->pl;
    s->ox_hi = last < 0 ? 0 : last / s->sw + 1;
    s->ox_hi = s->ox_hi > s->ow ? s->ow : s->ox_hi;
    s->ox_lo = s->ox_lo > s->ox_hi ? s->ox_hi : s->ox_lo;
    return true;
}

/* The strip width: DW_R or DW_R - 1, whichever leaves fewer unused pixels in the last strip
 * of a row (DW_R on ties). */
static inline int dw_strip_width(int64_t ow)
{
    const int64_t a = (ow + DW_R - 1) / DW_R * DW_R, b = (ow + DW_R - 2) / (DW_R - 1) * (DW_R - 1);
    return b < a ? DW_R - 1 : DW_R;
}

/* W [C, 1, kh, kw] -> [C/b][kh][kw][b] and B [C] -> [C/b][b], lanes past C zero. */
static inline bool dw_pack(const em_kinfo *ki, dw_state *s)
{
    const int64_t taps = s->kh * s->kw, b = VF_LANES;
    size_t wn, bn;
    if (!em_size_mul((size_t)(s->cb * taps), b * sizeof(float), &wn) ||
        !em_size_mul((size_t)s->cb, b * sizeof(float), &bn)) {
        return false;
    }
    s->w = em_aligned_alloc(ki->al, wn);
    s->bias = em_aligned_alloc(ki->al, bn);
    if (s->w == NULL || s->bias == NULL) {
        return false;
    }
    memset(s->w, 0, wn);
    memset(s->bias, 0, bn);
    const float *w = ki->in[1].data;
    const bool has_b = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    const float *bias = has_b ? ki->in[2].data : NULL;
    for (int64_t ch = 0; ch < s->c; ch++) {
        float *to = s->w + ch / b * taps * b + ch % b;
        for (int64_t t = 0; t < taps; t++) {
            to[t * b] = w[ch * taps + t];
        }
        s->bias[ch] = bias != NULL ? bias[ch] : 0.0f;
    }
    s->masked = s->c % b != 0;
    for (int64_t l = 0; l < b; l++) {
        s->lane_on[l] = !s->masked || l < s->c % b ? 1.0f : 0.0f;
    }
    return true;
}

static inline ember_status *dw_prepare(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    ember_status *st = dw_check_kind(ki);
    if (st != NULL) {
        return st;
    }
    dw_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    if (!em_conv_epilogue_parse(ki->node, &s->epi)) {
        dw_free(ki->al, s);
        return dw_decline(ki, "activation");
    }
    if (!DW_CHEAP_EPILOGUES && !dw_exp_epilogue(s->epi.act)) {
        dw_free(ki->al, s);
        return dw_decline(ki, "oneDNN is faster without an exp-based activation on this ISA");
    }
    if (!dw_window(ki, s) || em_tensor_numel(&ki->out[0]) == 0 ||
        em_tensor_numel(&ki->in[0]) == 0) {
        dw_free(ki->al, s);
        return dw_decline(ki, "window attributes or shapes");
    }
    s->has_z = ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    s->r = dw_strip_width(s->ow);
    if (!dw_pack(ki, s)) {
        dw_free(ki->al, s);
        return em_status_oom();
    }
    *state = s;
    return NULL;
}

#endif /* EMBER_KERNELS_VEC_DWCONV_SHAPE_H */
