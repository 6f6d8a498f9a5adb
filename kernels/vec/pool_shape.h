/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MaxPool, AveragePool (2-D, f32, NCHW) and GlobalAveragePool / GlobalMaxPool (f32, any
 * rank >= 3) for the x86 units: attribute parsing and the per-column tables (plain C, no
 * intrinsics; the computation is in pool_driver.inc). Semantics as kernels/ref/nn_pool_ref.c:
 * a MaxPool window wholly in the padding yields -FLT_MAX, an AveragePool one 0; AveragePool
 * divides by the taps inside the input, or with count_include_pad inside [-pad_begin, in +
 * pad_end) (the count is the product of the per-axis counts). Declined (UNSUPPORTED, the
 * reference runs): other dtypes and ranks, MaxPool's Indices output, anything malformed.
 *
 * The window is separable: for each output row, a vertical pass combines the valid input
 * rows into a row buffer `tmp` laid out as [pad_left | input row | pad to tmpw] (pad value
 * -inf for max, 0 for sums), then a horizontal pass reads tmp[ox * sw + kx * dw].
 */
#ifndef EMBER_KERNELS_VEC_POOL_SHAPE_H
#define EMBER_KERNELS_VEC_POOL_SHAPE_H

#include "core/alloc.h"
#include "plan/kernel.h"
#include "core/status.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef enum px_kind { PX_MAX, PX_AVG, PX_GMAX, PX_GAVG } px_kind;

typedef struct px_state {
    px_kind kind;
    int64_t n_planes, ih, iw, oh, ow; /* global pools: ih * iw = plane size, oh = ow = 1 */
    int64_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr; /* pads: top, left, bottom, right */
    int64_t tmpw;  /* floats per row buffer (a multiple of 16) */
    int slots;     /* parallel slots, each with its own row buffer in scratch */
    float *inv_w;  /* [ow] AveragePool: 1 / horizontal tap count (0 when none) */
    float *inv_h;  /* [oh] 1 / vertical tap count */
    bool *empty_w; /* [ow] MaxPool: no valid horizontal tap */
    bool any_empty_w;
} px_state;

static inline ember_status *px_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

/* ints attribute `name` of exactly n values into v (default dflt when absent); false if bad. */
static inline bool px_ints(const em_node *n, const char *name, int cnt, int64_t dflt, int64_t *v)
{
    const int64_t *p;
    int64_t got = em_node_attr_ints(n, name, &p);
    for (int i = 0; i < cnt; i++) {
        v[i] = dflt;
    }
    if (got < 0) {
        return em_node_attr(n, name) == NULL;
    }
    if (got != cnt) {
        return false;
    }
    memcpy(v, p, sizeof(int64_t) * (size_t)cnt);
    return true;
}

/* Valid taps of a window starting at `start` (as em_ref_taps). */
static inline int64_t px_taps(int64_t start, int64_t k, int64_t dil, int64_t in)
{
    int64_t l = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int64_t h = start >= in ? 0 : (in - 1 - start) / dil + 1;
    h = h > k ? k : h;
    return h > l ? h - l : 0;
}

/* Pads of one axis from auto_pad (as the reference's window_axis). */
static inline void px_auto_pad(const char *ap, int64_t in, int64_t k, int64_t s, int64_t d,
                               int64_t *pb, int64_t *pe)
{
    if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
        int64_t out = (in + s - 1) / s, extent = (k - 1) * d + 1;
        int64_t total = (out > 0 ? (out - 1) * s : 0) + extent - in;
        total = total > 0 ? total : 0;
        *pb = strcmp(ap, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
        *pe = total - *pb;
    } else if (strcmp(ap, "VALID") == 0) {
        *pb = *pe = 0;
    }
}

static inline bool px_parse_window(const em_kinfo *ki, px_state *s)
{
    const em_node *n = ki->node;
    int64_t k[2], st[2], dl[2], pads[4];
    const char *ap = em_node_attr_string(n, "auto_pad", "NOTSET");
    if (!px_ints(n, "kernel_shape", 2, 0, k) || em_node_attr(n, "kernel_shape") == NULL ||
        !px_ints(n, "strides", 2, 1, st) || !px_ints(n, "dilations", 2, 1, dl) ||
        !px_ints(n, "pads", 4, 0, pads)) {
        return false;
    }
    if (strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0 && strcmp(ap, "SAME_UPPER") != 0 &&
        strcmp(ap, "SAME_LOWER") != 0) {
        return false;
    }
    for (int i = 0; i < 2; i++) {
        if (k[i] < 1 || st[i] < 1 || dl[i] < 1 || pads[i] < 0 || pads[i + 2] < 0 ||
            (strcmp(ap, "NOTSET") != 0 && (pads[i] != 0 || pads[i + 2] != 0))) {
            return false;
        }
    }
    px_auto_pad(ap, s->ih, k[0], st[0], dl[0], &pads[0], &pads[2]);
    px_auto_pad(ap, s->iw, k[1], st[1], dl[1], &pads[1], &pads[3]);
    s->kh = k[0], s->kw = k[1], s->sh = st[0], s->sw = st[1], s->dh = dl[0], s->dw = dl[1];
    s->pt = pads[0], s->pl = pads[1], s->pb = pads[2], s->pr = pads[3];
    /* The output size comes from the shape function; the windows must stay addressable. */
    int64_t need_w = (s->ow - 1) * s->sw + (s->kw - 1) * s->dw + 1;
    int64_t row = s->pl + s->iw > need_w ? s->pl + s->iw : need_w;
    if (s->pl > 1024 || s->pt > 1024 || s->kh > 64 || row > ((int64_t)1 << 28)) {
        return false;
    }
    s->tmpw = (row + 2 * 16 * s->sw + 64 + 15) / 16 * 16;
    return true;
}

static inline void px_free(const ember_allocator *al, void *state)
{
    px_state *s = state;
    if (s != NULL) {
        em_free(al, s->inv_w);
        em_free(al, s->inv_h);
        em_free(al, s->empty_w);
        em_free(al, s);
    }
}

/* The tables: horizontal / vertical tap counts per output column / row. */
static inline bool px_tables(const em_kinfo *ki, px_state *s, bool include_pad)
{
    const int64_t pb_h = s->pt, pe_h = s->pb, pb_w = s->pl, pe_w = s->pr;
    s->inv_w = em_calloc(ki->al, (size_t)s->ow + 1, sizeof(float));
    s->inv_h = em_calloc(ki->al, (size_t)s->oh + 1, sizeof(float));
    s->empty_w = em_calloc(ki->al, (size_t)s->ow + 1, sizeof(bool));
    if (s->inv_w == NULL || s->inv_h == NULL || s->empty_w == NULL) {
        return false;
    }
    for (int64_t o = 0; o < s->ow; o++) {
        int64_t start = o * s->sw - pb_w, c = px_taps(start, s->kw, s->dw, s->iw);
        s->empty_w[o] = c == 0;
        s->any_empty_w = s->any_empty_w || c == 0;
        if (include_pad) {
            c = px_taps(start + pb_w, s->kw, s->dw, s->iw + pb_w + pe_w);
        }
        s->inv_w[o] = c > 0 ? 1.0f / (float)c : 0.0f;
    }
    for (int64_t o = 0; o < s->oh; o++) {
        int64_t start = o * s->sh - pb_h, c = px_taps(start, s->kh, s->dh, s->ih);
        if (include_pad) {
            c = px_taps(start + pb_h, s->kh, s->dh, s->ih + pb_h + pe_h);
        }
        s->inv_h[o] = c > 0 ? 1.0f / (float)c : 0.0f;
    }
    return true;
}

static inline ember_status *px_prepare(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    const em_op op = ki->node->op;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    *state = NULL;
    *scratch_bytes = 0;
    bool global = op == EM_OP_GLOBALAVERAGEPOOL || op == EM_OP_GLOBALMAXPOOL;
    if (ki->n_in != 1 || ki->n_out != 1 || x->dtype != EMBER_DTYPE_F32 ||
        y->dtype != EMBER_DTYPE_F32 || x->rank != y->rank || x->rank < 3 ||
        (!global && x->rank != 4) || x->dims[0] != y->dims[0] || x->dims[1] != y->dims[1]) {
        return px_decline(ki, "only f32 NCHW (2-D windows) without Indices");
    }
    px_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->n_planes = x->dims[0] * x->dims[1];
    s->slots = ki->n_threads > 1 ? ki->n_threads : 1;
    bool ok = true;
    if (global) {
        s->kind = op == EM_OP_GLOBALMAXPOOL ? PX_GMAX : PX_GAVG;
        s->ih = 1;
        s->iw = 1;
        for (int d = 2; d < x->rank; d++) {
            s->iw *= x->dims[d];
            ok = ok && y->dims[d] == 1;
        }
        s->oh = s->ow = 1;
    } else {
        s->kind = op == EM_OP_MAXPOOL ? PX_MAX : PX_AVG;
        s->ih = x->dims[2], s->iw = x->dims[3], s->oh = y->dims[2], s->ow = y->dims[3];
        int64_t cip = em_node_attr_int(ki->node, "count_include_pad", 0);
        int64_t ceil_mode = em_node_attr_int(ki->node, "ceil_mode", 0);
        ok = s->oh > 0 && s->ow > 0 && (cip == 0 || cip == 1) &&
             (ceil_mode == 0 || ceil_mode == 1) && px_parse_window(ki, s);
        if (ok && !px_tables(ki, s, s->kind == PX_AVG && cip == 1)) {
            px_free(ki->al, s);
            return em_status_oom();
        }
    }
    if (!ok) {
        px_free(ki->al, s);
        return px_decline(ki, "attributes or shapes the fast kernel does not take");
    }
    size_t per = global ? 0 : (size_t)s->tmpw, total;
    if (!em_size_mul(per, (size_t)s->slots * sizeof(float), &total)) {
        px_free(ki->al, s);
        return px_decline(ki, "row buffers too large");
    }
    *scratch_bytes = total;
    *state = s;
    return NULL;
}

#endif /* EMBER_KERNELS_VEC_POOL_SHAPE_H */
