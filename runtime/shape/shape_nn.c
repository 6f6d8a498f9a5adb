/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the nn family (ONNX semantics, newest opsets): ConvTranspose (output_shape,
 * or stride * (in - 1) + output_padding + dilated kernel - pads; SAME_* give in * stride),
 * Resize-19 (sizes, or floor(in * scale) computed in float as ONNX's own shape inference does;
 * axes; keep_aspect_ratio_policy), GridSample-20 ([N, C, grid's spatial dims]), RoiAlign-16,
 * MaxUnpool (its output_shape input or (in - 1) * stride + kernel - pads) and
 * NonMaxSuppression, whose output [num_selected, 3] depends on the data: when every input it
 * reads has a value the selection runs here (em_nms_select, shared with the reference kernel),
 * otherwise the first dim is unknown. Dims decided by unknown values are unknown, never errors.
 */
#include "shape/shape.h"

#include "ir/dyn.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

static bool present(const em_node *n, const em_shape *in, int i)
{
    return i < n->n_in && in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

static ember_status *rank_error(const em_node *n, int idx, int rank, const char *want)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): input %d has rank %d, %s",
                         n->name, em_op_name(n->op), idx, rank, want);
}

/* An ints attribute of exactly `count` values >= lo into v (dflt when absent); false when it
 * has another length or a value below lo. */
static bool ints_attr(const em_node *n, const char *name, int count, int64_t dflt, int64_t lo,
                      int64_t *v)
{
    const int64_t *a;
    int64_t c = em_node_attr_ints(n, name, &a);
    if (c >= 0 && c != count) {
        return false;
    }
    for (int i = 0; i < count; i++) {
        v[i] = c >= 0 ? a[i] : dflt;
        if (v[i] < lo) {
            return false;
        }
    }
    return true;
}

/* ---- ConvTranspose ------------------------------------------------------------------------- */

typedef struct convt_geom {
    int64_t k[EM_MAX_RANK], s[EM_MAX_RANK], d[EM_MAX_RANK], op[EM_MAX_RANK];
    int64_t pads[2 * EM_MAX_RANK];
    const int64_t *oshape; /* output_shape's spatial part, or NULL */
    const char *auto_pad;
} convt_geom;

static ember_status *convt_attrs(const em_node *n, const em_shape *w, int nsp, convt_geom *g)
{
    const int64_t *v;
    int64_t c = em_node_attr_ints(n, "kernel_shape", &v);
    if (c >= 0 && c != nsp) {
        return em_shape_bad(n, "'kernel_shape' has the wrong length");
    }
    for (int i = 0; i < nsp; i++) {
        g->k[i] = c >= 0 ? v[i] : w->dims[2 + i].v;
        if (c >= 0 && KNOWN(w->dims[2 + i]) && v[i] != w->dims[2 + i].v) {
            return em_shape_bad(n, "'kernel_shape' disagrees with the weight's shape");
        }
    }
    if (!ints_attr(n, "strides", nsp, 1, 1, g->s) || !ints_attr(n, "dilations", nsp, 1, 1, g->d) ||
        !ints_attr(n, "output_padding", nsp, 0, 0, g->op) ||
        !ints_attr(n, "pads", 2 * nsp, 0, INT64_MIN, g->pads)) {
        return em_shape_bad(n, "strides, dilations, output_padding or pads: wrong length or a "
                               "value out of range");
    }
    c = em_node_attr_ints(n, "output_shape", &v);
    if (c >= 0 && c != nsp && c != nsp + 2) {
        return em_shape_bad(n, "'output_shape' has the wrong length");
    }
    g->oshape = c >= 0 ? v + (c - nsp) : NULL;
    for (int i = 0; g->oshape != NULL && i < nsp; i++) {
        if (g->oshape[i] < 0) {
            return em_shape_bad(n, "'output_shape' has a negative entry");
        }
    }
    g->auto_pad = em_node_attr_string(n, "auto_pad", "NOTSET");
    return NULL;
}

ember_status *em_shape_convtranspose(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *w = &in[1];
    out->dtype = x->dtype;
    out->rank = -1;
    if (x->rank >= 0 && x->rank < 3) {
        return rank_error(n, 0, x->rank, "expected at least 3 (N, C, spatial...)");
    }
    if (w->rank >= 0 && x->rank >= 0 && w->rank != x->rank) {
        return rank_error(n, 1, w->rank, "expected the rank of X");
    }
    if (x->rank < 0 || w->rank < 0) {
        return NULL;
    }
    int nsp = x->rank - 2;
    int64_t group = em_node_attr_int(n, "group", 1);
    if (group < 1) {
        return em_shape_bad(n, "'group' must be >= 1");
    }
    if (KNOWN(x->dims[1]) && KNOWN(w->dims[0]) && x->dims[1].v != w->dims[0].v) {
        return em_shape_bad(n, "W's first dim must equal X's channels");
    }
    if (KNOWN(x->dims[1]) && x->dims[1].v % group != 0) {
        return em_shape_bad(n, "'group' does not divide X's channels");
    }
    convt_geom g;
    ember_status *st = convt_attrs(n, w, nsp, &g);
    if (st != NULL) {
        return st;
    }
    bool same = strncmp(g.auto_pad, "SAME_", 5) == 0, valid = strcmp(g.auto_pad, "VALID") == 0;
    out->rank = x->rank;
    out->dims[0] = x->dims[0];
    out->dims[1] = KNOWN(w->dims[1]) ? em_dim_known(w->dims[1].v * group) : em_dim_unknown();
    for (int i = 0; i < nsp; i++) {
        em_dim xi = x->dims[2 + i];
        if (g.oshape != NULL) {
            out->dims[2 + i] = em_dim_known(g.oshape[i]);
        } else if (!KNOWN(xi) || g.k[i] < 0) {
            out->dims[2 + i] = em_dim_unknown();
        } else if (same) {
            out->dims[2 + i] = em_dim_known(xi.v * g.s[i]);
        } else {
            /* s * (x - 1) + output_padding + (k - 1) * d + 1 - pads, checked */
            int64_t pads = 0, a, b, o;
            if ((!valid && !em_i64_add(g.pads[i], g.pads[nsp + i], &pads)) ||
                !em_i64_mul(g.s[i], xi.v - 1, &a) ||
                !em_i64_mul(g.k[i] - 1, g.d[i], &b) || !em_i64_add(a, b, &o) ||
                !em_i64_add(o, g.op[i], &o) || !em_i64_add(o, 1, &o) ||
                __builtin_sub_overflow(o, pads, &o)) {
                return em_shape_bad(n, "strides, kernel, dilations or pads too large (overflows "
                                       "int64)");
            }
            if (o < 0) {
                return em_shape_bad(n, "the pads exceed the output size");
            }
            out->dims[2 + i] = em_dim_known(o);
        }
    }
    return NULL;
}

/* ---- Resize -------------------------------------------------------------------------------- */

/* Whether scales (i = 2) or sizes (3) is given: present and not known to be empty (Resize-11
 * passes empty tensors for the unused one). */
static bool resize_given(const em_node *n, const em_shape *in, int i)
{
    if (!present(n, in, i)) {
        return false;
    }
    if (in[i].value != NULL) {
        return em_tensor_numel(in[i].value) > 0;
    }
    return !(in[i].rank == 1 && KNOWN(in[i].dims[0]) && in[i].dims[0].v == 0);
}

/* The axes attribute into ax[0..*na) (all axes when absent), checked. */
static ember_status *resize_axes(const em_node *n, int rank, int *ax, int *na)
{
    const int64_t *v;
    int64_t c = em_node_attr_ints(n, "axes", &v);
    if (c < 0) {
        for (int i = 0; i < rank; i++) {
            ax[i] = i;
        }
        *na = rank;
        return NULL;
    }
    if (c > rank) {
        return em_shape_bad(n, "'axes' lists more axes than X has");
    }
    unsigned seen = 0;
    for (int i = 0; i < c; i++) {
        if (v[i] < -rank || v[i] >= rank) {
            return em_shape_bad(n, "'axes' has an axis out of range");
        }
        ax[i] = (int)(v[i] < 0 ? v[i] + rank : v[i]);
        if (seen & (1u << ax[i])) {
            return em_shape_bad(n, "'axes' repeats an axis");
        }
        seen |= 1u << ax[i];
    }
    *na = (int)c;
    return NULL;
}

static ember_status *resize_sizes(const em_node *n, const em_shape *x, const em_tensor *sv,
                                  const int *ax, int na, em_shape *out)
{
    if (sv->dtype != EMBER_DTYPE_I64 || sv->rank != 1 || sv->dims[0] != na) {
        return em_shape_bad(n, "input 3 (sizes) must be int64 with one entry per resized axis");
    }
    const int64_t *sz = sv->data;
    const char *policy = em_node_attr_string(n, "keep_aspect_ratio_policy", "stretch");
    bool larger = strcmp(policy, "not_smaller") == 0;
    if (!larger && strcmp(policy, "not_larger") != 0 && strcmp(policy, "stretch") != 0) {
        return em_shape_bad(n, "unknown keep_aspect_ratio_policy");
    }
    double scale = larger ? 0.0 : INFINITY;
    bool all_known = true;
    for (int i = 0; i < na; i++) {
        if (sz[i] < 0) {
            return em_shape_bad(n, "input 3 (sizes) has a negative entry");
        }
        out->dims[ax[i]] = em_dim_known(sz[i]);
        em_dim xd = x->dims[ax[i]];
        all_known = all_known && KNOWN(xd) && xd.v > 0;
        if (all_known) {
            double s = (double)sz[i] / (double)xd.v;
            scale = larger ? fmax(scale, s) : fmin(scale, s);
        }
    }
    if (strcmp(policy, "stretch") == 0) {
        return NULL;
    }
    /* The common scale of every resized axis, rounded half up (ONNX's reference). */
    for (int i = 0; i < na; i++) {
        em_dim xd = x->dims[ax[i]];
        out->dims[ax[i]] =
            all_known ? em_dim_known((int64_t)(scale * (double)xd.v + 0.5)) : em_dim_unknown();
    }
    return NULL;
}

static ember_status *resize_scales(const em_node *n, const em_shape *x, const em_tensor *sv,
                                   const int *ax, int na, em_shape *out)
{
    if (sv->dtype != EMBER_DTYPE_F32 || sv->rank != 1 || sv->dims[0] != na) {
        return em_shape_bad(n, "input 2 (scales) must be float with one entry per resized axis");
    }
    const float *sc = sv->data;
    for (int i = 0; i < na; i++) {
        if (!(sc[i] > 0.0f) || isinf(sc[i])) {
            return em_shape_bad(n, "input 2 (scales) must be positive and finite");
        }
        em_dim xd = x->dims[ax[i]];
        if (sc[i] == 1.0f) {
            out->dims[ax[i]] = xd; /* a symbol passes through */
        } else if (KNOWN(xd)) {
            float o = (float)xd.v * sc[i];
            if (!(o < 9.0e18f)) {
                return em_shape_bad(n, "the output is too large");
            }
            out->dims[ax[i]] = em_dim_known((int64_t)floorf(o));
        }
    }
    return NULL;
}

ember_status *em_shape_resize(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    int ax[EM_MAX_RANK], na;
    out->dtype = x->dtype;
    out->rank = -1;
    bool has_scales = resize_given(n, in, 2), has_sizes = resize_given(n, in, 3);
    if (has_scales && has_sizes && in[2].value != NULL && in[3].value != NULL) {
        return em_shape_bad(n, "exactly one of scales and sizes may be given");
    }
    if (!has_scales && !has_sizes) {
        return em_shape_bad(n, "one of scales and sizes is required");
    }
    if (x->rank < 0) {
        return NULL;
    }
    ember_status *st = resize_axes(n, x->rank, ax, &na);
    if (st != NULL) {
        return st;
    }
    *out = *x;
    out->value = NULL;
    for (int i = 0; i < na; i++) {
        out->dims[ax[i]] = em_dim_unknown();
    }
    if (has_sizes && in[3].value != NULL) {
        return resize_sizes(n, x, in[3].value, ax, na, out);
    }
    if (has_scales && !has_sizes && in[2].value != NULL) {
        return resize_scales(n, x, in[2].value, ax, na, out);
    }
    return NULL;
}

/* ---- NonMaxSuppression --------------------------------------------------------------------- */

/* Whether candidate a ranks above b: higher score, then lower index (ONNX's reference). */
static bool nms_before(const float *sc, int64_t a, int64_t b)
{
    return sc[a] > sc[b] || (sc[a] == sc[b] && a < b);
}

static void nms_sift(const float *sc, int64_t *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, top = i;
        if (l < n && nms_before(sc, h[l], h[top])) {
            top = l;
        }
        if (r < n && nms_before(sc, h[r], h[top])) {
            top = r;
        }
        if (top == i) {
            return;
        }
        int64_t t = h[i];
        h[i] = h[top];
        h[top] = t;
        i = top;
    }
}

/* A box as [min0, max0, min1, max1] (axis 0 = y for corner boxes, x for center boxes: the IoU
 * does not depend on which is which). Float arithmetic, as ONNX Runtime and the reference. */
static void nms_box(const float *b, int center, float *o)
{
    if (center) {
        o[0] = b[0] - b[2] / 2.0f;
        o[1] = b[0] + b[2] / 2.0f;
        o[2] = b[1] - b[3] / 2.0f;
        o[3] = b[1] + b[3] / 2.0f;
    } else {
        o[0] = fminf(b[0], b[2]);
        o[1] = fmaxf(b[0], b[2]);
        o[2] = fminf(b[1], b[3]);
        o[3] = fmaxf(b[1], b[3]);
    }
}

static bool nms_suppress(const float *b1, const float *b2, int center, float iou_th)
{
    float p[4], q[4];
    nms_box(b1, center, p);
    nms_box(b2, center, q);
    float lo0 = fmaxf(p[0], q[0]), hi0 = fminf(p[1], q[1]);
    float lo1 = fmaxf(p[2], q[2]), hi1 = fminf(p[3], q[3]);
    if (hi0 <= lo0 || hi1 <= lo1) {
        return false;
    }
    float inter = (hi0 - lo0) * (hi1 - lo1);
    float a1 = (p[1] - p[0]) * (p[3] - p[2]), a2 = (q[1] - q[0]) * (q[3] - q[2]);
    float uni = a1 + a2 - inter;
    if (inter <= 0.0f || a1 <= 0.0f || a2 <= 0.0f || uni <= 0.0f) {
        return false;
    }
    return inter / uni > iou_th;
}

/*
 * NonMaxSuppression's selection (ONNX NonMaxSuppression-11): per batch and class, the boxes
 * whose score exceeds score_th (all when NULL) are taken best first (score, then index) and kept
 * unless their IoU with a box already kept for that class exceeds iou_th, up to max_out per
 * class. bcn = {batches, classes, boxes}; work holds 2 * boxes entries. Writes the first `cap`
 * selected [batch, class, box] rows into sel (may be NULL) and returns the number selected.
 * Declared again in kernels/ref/nn_ref.h: the reference kernel runs the same selection.
 */
int64_t em_nms_select(const float *boxes, const float *scores, const int64_t *bcn, int64_t max_out,
                      float iou_th, const float *score_th, int center, int64_t *work, int64_t *sel,
                      int64_t cap)
{
    const int64_t nb = bcn[0], ncls = bcn[1], nbox = bcn[2];
    int64_t total = 0;
    for (int64_t b = 0; b < nb; b++) {
        const float *bx = boxes + b * nbox * 4;
        for (int64_t c = 0; c < ncls; c++) {
            const float *sc = scores + (b * ncls + c) * nbox;
            int64_t *heap = work, *kept = work + nbox, nh = 0, nk = 0;
            for (int64_t i = 0; i < nbox; i++) {
                if (score_th == NULL || sc[i] > *score_th) {
                    heap[nh++] = i;
                }
            }
            for (int64_t i = nh / 2 - 1; i >= 0; i--) {
                nms_sift(sc, heap, nh, i);
            }
            while (nh > 0 && nk < max_out) {
                int64_t top = heap[0];
                heap[0] = heap[--nh];
                nms_sift(sc, heap, nh, 0);
                bool keep = true;
                for (int64_t j = 0; keep && j < nk; j++) {
                    keep = !nms_suppress(bx + top * 4, bx + kept[j] * 4, center, iou_th);
                }
                if (!keep) {
                    continue;
                }
                kept[nk++] = top;
                if (sel != NULL && total < cap) {
                    sel[total * 3] = b;
                    sel[total * 3 + 1] = c;
                    sel[total * 3 + 2] = top;
                }
                total++;
            }
        }
    }
    return total;
}

/* The single value of a scalar input (0-D or [1]) of dtype dt into v (int64_t or float). */
static bool nms_scalar(const em_tensor *t, ember_dtype dt, void *v)
{
    if (t->dtype != dt || t->rank > 1 || em_tensor_numel(t) != 1) {
        return false;
    }
    memcpy(v, t->data, em_dtype_size(dt));
    return true;
}

/* Runs the selection on the known values: *count, or unknown when a value is missing. */
static ember_status *nms_count(const em_node *n, const em_shape *in, em_dim *count)
{
    int64_t max_out = 0;
    float iou = 0.0f, sth = 0.0f;
    const em_tensor *bt = in[0].value, *st = in[1].value;
    for (int i = 0; i < 5; i++) {
        if ((i < 2 || present(n, in, i)) && in[i].value == NULL) {
            return NULL; /* not known yet: *count stays unknown */
        }
    }
    if (bt->dtype != EMBER_DTYPE_F32 || st->dtype != EMBER_DTYPE_F32) {
        return em_shape_bad(n, "boxes and scores must be float");
    }
    if (!nms_scalar(in[2].value, EMBER_DTYPE_I64, &max_out) ||
        (present(n, in, 3) && !nms_scalar(in[3].value, EMBER_DTYPE_F32, &iou)) ||
        (present(n, in, 4) && !nms_scalar(in[4].value, EMBER_DTYPE_F32, &sth))) {
        return em_shape_bad(n, "max_output_boxes_per_class (int64), iou_threshold and "
                               "score_threshold (float) must hold one value each");
    }
    int64_t bcn[3] = {bt->dims[0], st->dims[1], bt->dims[1]};
    if (max_out <= 0 || bcn[0] == 0 || bcn[1] == 0 || bcn[2] == 0) {
        *count = em_dim_known(0);
        return NULL;
    }
    int64_t *work = em_malloc(NULL, sizeof(int64_t) * 2 * (size_t)bcn[2]);
    if (work == NULL) {
        return em_status_oom();
    }
    *count = em_dim_known(
        em_nms_select(bt->data, st->data, bcn, max_out, iou, present(n, in, 4) ? &sth : NULL,
                      (int)em_node_attr_int(n, "center_point_box", 0), work, NULL, 0));
    em_free(NULL, work);
    return NULL;
}

ember_status *em_shape_nms(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *b = &in[0], *s = &in[1];
    out->dtype = EMBER_DTYPE_I64;
    out->rank = 2;
    out->dims[0] = em_dim_unknown();
    out->dims[1] = em_dim_known(3);
    if ((b->rank >= 0 && b->rank != 3) || (s->rank >= 0 && s->rank != 3)) {
        return em_shape_bad(n, "boxes and scores must have rank 3");
    }
    if (b->rank == 3 && KNOWN(b->dims[2]) && b->dims[2].v != 4) {
        return em_shape_bad(n, "boxes must be [batches, boxes, 4]");
    }
    if (b->rank == 3 && s->rank == 3 &&
        ((KNOWN(b->dims[0]) && KNOWN(s->dims[0]) && b->dims[0].v != s->dims[0].v) ||
         (KNOWN(b->dims[1]) && KNOWN(s->dims[2]) && b->dims[1].v != s->dims[2].v))) {
        return em_shape_bad(n, "scores must be [batches, classes, boxes] matching boxes");
    }
    int64_t cpb = em_node_attr_int(n, "center_point_box", 0);
    if (cpb != 0 && cpb != 1) {
        return em_shape_bad(n, "'center_point_box' must be 0 or 1");
    }
    if (!present(n, in, 2)) {
        out->dims[0] = em_dim_known(0); /* max_output_boxes_per_class defaults to 0 */
        return NULL;
    }
    if (b->rank != 3 || s->rank != 3) {
        return NULL;
    }
    return nms_count(n, in, &out->dims[0]);
}

/* ---- GridSample, RoiAlign, MaxUnpool --------------------------------------------------------- */

ember_status *em_shape_gridsample(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *g = &in[1];
    out->dtype = x->dtype;
    out->rank = -1;
    if (x->rank >= 0 && x->rank < 3) {
        return rank_error(n, 0, x->rank, "expected at least 3 (N, C, spatial...)");
    }
    if (x->rank >= 0 && g->rank >= 0 && g->rank != x->rank) {
        return rank_error(n, 1, g->rank, "expected the rank of X");
    }
    if (x->rank < 0 || g->rank < 0) {
        return NULL;
    }
    int nsp = x->rank - 2;
    if (KNOWN(g->dims[nsp + 1]) && g->dims[nsp + 1].v != nsp) {
        return em_shape_bad(n, "the grid's last dim must equal the number of spatial axes");
    }
    if (KNOWN(x->dims[0]) && KNOWN(g->dims[0]) && x->dims[0].v != g->dims[0].v) {
        return em_shape_bad(n, "X and the grid have different batch sizes");
    }
    out->rank = x->rank;
    out->dims[0] = KNOWN(x->dims[0]) ? x->dims[0] : g->dims[0];
    out->dims[1] = x->dims[1];
    for (int i = 0; i < nsp; i++) {
        out->dims[2 + i] = g->dims[1 + i];
    }
    return NULL;
}

ember_status *em_shape_roialign(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *r = &in[1], *bi = &in[2];
    out->dtype = x->dtype;
    out->rank = 4;
    if (x->rank >= 0 && x->rank != 4) {
        return rank_error(n, 0, x->rank, "expected 4 (N, C, H, W)");
    }
    if ((r->rank >= 0 && r->rank != 2) || (bi->rank >= 0 && bi->rank != 1)) {
        return em_shape_bad(n, "rois must be [num_rois, 4] and batch_indices [num_rois]");
    }
    if (r->rank == 2 && KNOWN(r->dims[1]) && r->dims[1].v != 4) {
        return em_shape_bad(n, "rois must be [num_rois, 4]");
    }
    em_dim nr = r->rank == 2 ? r->dims[0] : em_dim_unknown();
    em_dim nb = bi->rank == 1 ? bi->dims[0] : em_dim_unknown();
    if (KNOWN(nr) && KNOWN(nb) && nr.v != nb.v) {
        return em_shape_bad(n, "rois and batch_indices have different lengths");
    }
    int64_t oh = em_node_attr_int(n, "output_height", 1),
            ow = em_node_attr_int(n, "output_width", 1);
    if (oh < 1 || ow < 1) {
        return em_shape_bad(n, "output_height and output_width must be >= 1");
    }
    out->dims[0] = KNOWN(nr) || (!KNOWN(nb) && nr.sym != 0) ? nr : nb;
    out->dims[1] = x->rank == 4 ? x->dims[1] : em_dim_unknown();
    out->dims[2] = em_dim_known(oh);
    out->dims[3] = em_dim_known(ow);
    return NULL;
}

static ember_status *maxunpool_default(const em_node *n, const em_shape *x, em_shape *out)
{
    int nsp = x->rank - 2;
    int64_t k[EM_MAX_RANK], s[EM_MAX_RANK], p[2 * EM_MAX_RANK];
    if (!ints_attr(n, "kernel_shape", nsp, 0, 1, k) || em_node_attr(n, "kernel_shape") == NULL) {
        return em_shape_bad(n, "'kernel_shape' is missing, has the wrong length or a value < 1");
    }
    if (!ints_attr(n, "strides", nsp, 1, 1, s) || !ints_attr(n, "pads", 2 * nsp, 0, 0, p)) {
        return em_shape_bad(n, "strides or pads: wrong length or a value out of range");
    }
    for (int i = 0; i < nsp; i++) {
        em_dim d = x->dims[2 + i];
        out->dims[2 + i] = em_dim_unknown();
        if (KNOWN(d)) {
            int64_t o;
            if (!em_i64_mul(d.v - 1, s[i], &o) || !em_i64_add(o, k[i], &o) ||
                __builtin_sub_overflow(o, p[i], &o) || __builtin_sub_overflow(o, p[nsp + i], &o)) {
                return em_shape_bad(n, "strides, kernel or pads too large (overflows int64)");
            }
            if (o < 0) {
                return em_shape_bad(n, "the pads exceed the output size");
            }
            out->dims[2 + i] = em_dim_known(o);
        }
    }
    return NULL;
}

ember_status *em_shape_maxunpool(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    out->dtype = x->dtype;
    out->rank = x->rank;
    if (x->rank >= 0 && x->rank < 3) {
        return rank_error(n, 0, x->rank, "expected at least 3 (N, C, spatial...)");
    }
    if (in[1].rank >= 0 && x->rank >= 0 && in[1].rank != x->rank) {
        return rank_error(n, 1, in[1].rank, "expected the rank of X");
    }
    if (x->rank < 0) {
        return NULL;
    }
    out->dims[0] = x->dims[0];
    out->dims[1] = x->dims[1];
    if (!present(n, in, 2)) {
        return maxunpool_default(n, x, out);
    }
    const em_tensor *ov = in[2].value;
    for (int i = 2; i < x->rank; i++) {
        out->dims[i] = em_dim_unknown();
    }
    if (ov == NULL) {
        return NULL;
    }
    if (ov->dtype != EMBER_DTYPE_I64 || ov->rank != 1 || ov->dims[0] != x->rank) {
        return em_shape_bad(n, "input 2 (output_shape) must be int64 with one entry per axis");
    }
    const int64_t *os = ov->data;
    for (int i = 0; i < x->rank; i++) {
        if (os[i] < 0 || (i < 2 && KNOWN(x->dims[i]) && os[i] != x->dims[i].v)) {
            return em_shape_bad(n, "input 2 (output_shape) must keep N and C and be >= 0");
        }
        out->dims[i] = em_dim_known(os[i]);
    }
    return NULL;
}

/* ---- Col2Im, CenterCropPad, AffineGrid, DeformConv (onnx 1.13+ ops) ------------------------ */

/* A 1-D int64 value of n entries, or NULL (unknown, or of another shape: *bad set). */
static const int64_t *i64_values(const em_shape *s, int64_t n, bool *bad)
{
    const em_tensor *t = s->value;
    if (t == NULL) {
        return NULL;
    }
    *bad = t->dtype != EMBER_DTYPE_I64 || t->rank != 1 || (n >= 0 && t->dims[0] != n);
    return *bad ? NULL : t->data;
}

ember_status *em_shape_col2im(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    bool bad = false;
    out->dtype = x->dtype;
    out->rank = -1;
    if (x->rank >= 0 && x->rank != 3) {
        return rank_error(n, 0, x->rank, "expected 3 (N, C * prod(block_shape), L)");
    }
    int64_t nsp = in[1].rank == 1 && KNOWN(in[1].dims[0]) ? in[1].dims[0].v : -1;
    if (nsp < 0 || nsp > EM_MAX_RANK - 2) {
        return nsp < 0 ? NULL : em_shape_bad(n, "too many spatial axes");
    }
    out->rank = (int)nsp + 2;
    out->dims[0] = x->rank == 3 ? x->dims[0] : em_dim_unknown();
    out->dims[1] = em_dim_unknown();
    const int64_t *img = i64_values(&in[1], nsp, &bad), *blk = i64_values(&in[2], nsp, &bad);
    if (bad) {
        return em_shape_bad(n, "image_shape and block_shape must be int64 of one length");
    }
    for (int i = 0; i < nsp; i++) {
        out->dims[2 + i] = img != NULL ? em_dim_known(img[i]) : em_dim_unknown();
    }
    if (blk != NULL && x->rank == 3 && KNOWN(x->dims[1])) {
        int64_t k = 1;
        for (int i = 0; i < nsp; i++) {
            k = blk[i] > 0 && k <= INT64_MAX / blk[i] ? k * blk[i] : -1;
        }
        if (k <= 0 || x->dims[1].v % k != 0) {
            return em_shape_bad(n, "input channels are not a multiple of prod(block_shape)");
        }
        out->dims[1] = em_dim_known(x->dims[1].v / k);
    }
    return NULL;
}

ember_status *em_shape_centercroppad(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    int ax[EM_MAX_RANK], na;
    bool bad = false;
    *out = *x;
    out->value = NULL;
    if (x->rank < 0) {
        return NULL;
    }
    ember_status *st = resize_axes(n, x->rank, ax, &na);
    if (st != NULL) {
        return st;
    }
    const int64_t *sh = i64_values(&in[1], na, &bad);
    if (bad) {
        return em_shape_bad(n, "input 1 (shape) must be int64 with one entry per axis");
    }
    for (int i = 0; i < na; i++) {
        if (sh != NULL && sh[i] < 0) {
            return em_shape_bad(n, "input 1 (shape) has a negative entry");
        }
        out->dims[ax[i]] = sh != NULL ? em_dim_known(sh[i]) : em_dim_unknown();
    }
    return NULL;
}

ember_status *em_shape_affinegrid(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *th = &in[0];
    bool bad = false;
    out->dtype = th->dtype;
    out->rank = -1;
    if (th->rank >= 0 && th->rank != 3) {
        return rank_error(n, 0, th->rank, "expected 3 ([N, 2, 3] or [N, 3, 4])");
    }
    int64_t len = in[1].rank == 1 && KNOWN(in[1].dims[0]) ? in[1].dims[0].v : -1;
    if (len >= 0 && len != 4 && len != 5) {
        return em_shape_bad(n, "input 1 (size) must hold 4 or 5 values");
    }
    if (len < 0) {
        return NULL;
    }
    int nsp = (int)len - 2;
    if (th->rank == 3 && ((KNOWN(th->dims[1]) && th->dims[1].v != nsp) ||
                          (KNOWN(th->dims[2]) && th->dims[2].v != nsp + 1))) {
        return em_shape_bad(n, "theta must be [N, 2, 3] for 2-D and [N, 3, 4] for 3-D sizes");
    }
    const int64_t *sz = i64_values(&in[1], len, &bad);
    if (bad) {
        return em_shape_bad(n, "input 1 (size) must be int64");
    }
    out->rank = nsp + 2;
    out->dims[0] =
        sz != NULL ? em_dim_known(sz[0]) : (th->rank == 3 ? th->dims[0] : em_dim_unknown());
    for (int i = 0; i < nsp; i++) {
        out->dims[1 + i] = sz != NULL ? em_dim_known(sz[2 + i]) : em_dim_unknown();
    }
    out->dims[nsp + 1] = em_dim_known(nsp);
    for (int i = 0; sz != NULL && i < (int)len; i++) {
        if (sz[i] < 0 ||
            (i == 0 && th->rank == 3 && KNOWN(th->dims[0]) && sz[0] != th->dims[0].v)) {
            return em_shape_bad(n, "input 1 (size) must be >= 0 with theta's batch");
        }
    }
    return NULL;
}

ember_status *em_shape_deformconv(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *w = &in[1], *off = &in[2];
    out->dtype = x->dtype;
    out->rank = -1;
    if ((x->rank >= 0 && x->rank != 4) || (w->rank >= 0 && w->rank != 4) ||
        (off->rank >= 0 && off->rank != 4)) {
        return em_shape_bad(n, "X, W and offset must have rank 4 (2-D DeformConv)");
    }
    if (x->rank < 0) {
        return NULL;
    }
    int64_t group = em_node_attr_int(n, "group", 1);
    if (group < 1) {
        return em_shape_bad(n, "'group' must be >= 1");
    }
    if (w->rank == 4 && KNOWN(x->dims[1]) && KNOWN(w->dims[1]) &&
        x->dims[1].v != w->dims[1].v * group) {
        return em_shape_bad(n, "X's channels must equal W's second dim times group");
    }
    int64_t k[2] = {-1, -1}, st[2], d[2], p[4];
    if (!ints_attr(n, "strides", 2, 1, 1, st) || !ints_attr(n, "dilations", 2, 1, 1, d) ||
        !ints_attr(n, "pads", 4, 0, 0, p)) {
        return em_shape_bad(n, "strides, dilations or pads: wrong length or a value out of range");
    }
    if (em_node_attr(n, "kernel_shape") != NULL && !ints_attr(n, "kernel_shape", 2, 1, 1, k)) {
        return em_shape_bad(n, "'kernel_shape' must hold 2 values >= 1");
    }
    out->rank = 4;
    out->dims[0] = x->dims[0];
    out->dims[1] = w->rank == 4 ? w->dims[0] : em_dim_unknown();
    for (int i = 0; i < 2; i++) {
        int64_t ki = k[i] > 0 ? k[i] : (w->rank == 4 ? w->dims[2 + i].v : -1);
        em_dim o = off->rank == 4 ? off->dims[2 + i] : em_dim_unknown(), c = em_dim_unknown();
        if (ki > 0 && KNOWN(x->dims[2 + i])) {
            int64_t span, ek;
            if (!em_i64_add(x->dims[2 + i].v, p[i], &span) || !em_i64_add(span, p[2 + i], &span) ||
                !em_i64_mul(ki - 1, d[i], &ek)) {
                return em_shape_bad(n, "kernel, dilations or pads too large (overflows int64)");
            }
            span = span - ek - 1;
            if (span < 0) {
                return em_shape_bad(n, "the kernel is larger than the padded input");
            }
            c = em_dim_known(span / st[i] + 1);
        }
        if (KNOWN(o) && KNOWN(c) && o.v != c.v) {
            return em_shape_bad(n, "offset's spatial dims disagree with the convolution's output");
        }
        out->dims[2 + i] = KNOWN(c) ? c : o;
    }
    return NULL;
}
