/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resize (ONNX Resize-19; the loader maps Upsample and Resize-10 onto it): X [D0..Dr-1],
 * optional roi, scales (float, one per resized axis) or sizes (int64), the axes attribute
 * (default: every axis) -> Y. Every resized axis is interpolated separately; the output element
 * is the tensor product of the per-axis weights over the input, summed in double.
 *
 * Per axis and output index o, the source coordinate x comes from
 * coordinate_transformation_mode (half_pixel, half_pixel_symmetric, pytorch_half_pixel,
 * align_corners, asymmetric, tf_crop_and_resize, and tf_half_pixel_for_nn of Resize-11) with
 * the axis's scale and "resized length" scale * in (a float: the ONNX reference's, which the
 * conformance data follow for align_corners). With base = ceil(x) - 1 and r = x - base in
 * (0, 1] the taps are base + i with weights
 *   nearest: one tap, base or base + 1 by nearest_mode (r == 1 always takes base + 1);
 *   linear:  i = 0, 1: 1 - r, r;            cubic: i = -1..2: Keys(r, cubic_coeff_a);
 *   antialias (linear / cubic, scale s < 1): i in [b, 1 - b] for b = floor(-support / s) + 1,
 *            weights k(s * (i - r)) normalised to sum 1 (support 1 for the tent k, 2 for cubic).
 * exclude_outside zeroes the weights of taps outside [0, in) and renormalises; the others read
 * the nearest edge element (taps are clamped and merged, so an axis has at most `in` distinct
 * taps). tf_crop_and_resize gives extrapolation_value when x leaves [0, in - 1] on any axis.
 * Axes not in `axes` are copied. Per-axis tables (first tap, tap count, weights) are rebuilt in
 * scratch on every run from the inputs' values, so run never depends on data prepare saw.
 */
#include "ref.h"

#include "core/alloc.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { MODE_NEAREST, MODE_LINEAR, MODE_CUBIC };
enum { CT_HALF_PIXEL, CT_HALF_PIXEL_SYM, CT_PYTORCH, CT_ALIGN, CT_ASYM, CT_TF_NN, CT_TF_CROP };
enum { NR_PREFER_FLOOR, NR_PREFER_CEIL, NR_FLOOR, NR_CEIL };
enum { POL_STRETCH, POL_NOT_LARGER, POL_NOT_SMALLER };

typedef struct em_resize_attrs {
    int rank, n_axes, n_in;
    ember_dtype dt;
    int64_t in[EM_MAX_RANK], out[EM_MAX_RANK], strides[EM_MAX_RANK];
    int slot[EM_MAX_RANK]; /* position in scales / sizes / roi of a resized axis, else -1 */
    int mode, ctm, nearest, policy;
    double cubic_a, extrapolation;
    bool exclude_outside, antialias, use_sizes;
    int64_t taps[EM_MAX_RANK];   /* weights stored per output index of each axis */
    size_t tab_off[EM_MAX_RANK]; /* byte offset of each axis's table in scratch */
    int64_t numel;
} em_resize_attrs;

/* One output index of one axis: taps first .. first + count - 1 (count 0: extrapolate). */
typedef struct resize_entry {
    int64_t first, count;
} resize_entry;

/* The scale and resized length of each axis, from sizes or scales (run and prepare). */
typedef struct resize_axes {
    double scale[EM_MAX_RANK], length[EM_MAX_RANK], roi0[EM_MAX_RANK], roi1[EM_MAX_RANK];
} resize_axes;

static ember_status *resize_enums(const em_kinfo *ki, em_resize_attrs *a)
{
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    static const char *const ctms[] = {
        "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
        "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
    static const char *const nearests[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                           "ceil"};
    static const char *const policies[] = {"stretch", "not_larger", "not_smaller"};
    ember_status *st = NULL;
    int64_t excl, anti;
    float ca, ev;
    EMBER_TRY(em_nn_attr_enum(ki, "mode", modes, 3, MODE_NEAREST, &a->mode));
    EMBER_TRY(
        em_nn_attr_enum(ki, "coordinate_transformation_mode", ctms, 7, CT_HALF_PIXEL, &a->ctm));
    EMBER_TRY(em_nn_attr_enum(ki, "nearest_mode", nearests, 4, NR_PREFER_FLOOR, &a->nearest));
    EMBER_TRY(
        em_nn_attr_enum(ki, "keep_aspect_ratio_policy", policies, 3, POL_STRETCH, &a->policy));
    EMBER_TRY(em_ref_attr_int(ki, "exclude_outside", 0, &excl));
    EMBER_TRY(em_ref_attr_int(ki, "antialias", 0, &anti));
    EMBER_TRY(em_ref_attr_float(ki, "cubic_coeff_a", -0.75f, &ca));
    EMBER_TRY(em_ref_attr_float(ki, "extrapolation_value", 0.0f, &ev));
    if ((excl != 0 && excl != 1) || (anti != 0 && anti != 1)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "exclude_outside and antialias must be 0 or 1");
    }
    a->exclude_outside = excl != 0;
    a->antialias = anti != 0 && a->mode != MODE_NEAREST; /* no effect on nearest */
    a->cubic_a = ca;
    a->extrapolation = ev;
    return NULL;
fail:
    return st;
}

static ember_status *resize_axes_attr(const em_kinfo *ki, em_resize_attrs *a)
{
    const em_attr *at = ki->node != NULL ? em_node_attr(ki->node, "axes") : NULL;
    for (int d = 0; d < a->rank; d++) {
        a->slot[d] = at == NULL ? d : -1;
    }
    a->n_axes = a->rank;
    if (at == NULL) {
        return NULL;
    }
    if (at->type != EM_ATTR_INTS || at->n > a->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'axes' must list at most %d ints", a->rank);
    }
    for (int i = 0; i < at->n; i++) {
        int64_t v = at->ints[i];
        int d = (int)(v < 0 ? v + a->rank : v);
        if (v < -a->rank || v >= a->rank || a->slot[d] >= 0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "axes[%d] = %lld is out of range or repeated", i, (long long)v);
        }
        a->slot[d] = i;
    }
    a->n_axes = (int)at->n;
    return NULL;
}

/* Whether input i is given and not empty (Resize-11 passes empty roi / scales). */
static bool resize_given(const em_tensor *t, int i, int n_in)
{
    return i < n_in && t[i].dtype != EMBER_DTYPE_UNDEFINED && em_tensor_numel(&t[i]) > 0;
}

/* Checks scales / sizes / roi dtypes and lengths. */
static ember_status *resize_inputs(const em_kinfo *ki, em_resize_attrs *a)
{
    bool has_scales = resize_given(ki->in, 2, ki->n_in),
         has_sizes = resize_given(ki->in, 3, ki->n_in);
    if (has_scales == has_sizes) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "exactly one of scales and sizes must be given");
    }
    a->use_sizes = has_sizes;
    const em_tensor *v = &ki->in[has_sizes ? 3 : 2];
    if (v->dtype != (has_sizes ? EMBER_DTYPE_I64 : EMBER_DTYPE_F32) || v->rank != 1 ||
        v->dims[0] != a->n_axes) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s must be a 1-D %s tensor of %d values",
                            has_sizes ? "sizes" : "scales", has_sizes ? "int64" : "float",
                            a->n_axes);
    }
    if (a->ctm != CT_TF_CROP) {
        return NULL;
    }
    const em_tensor *roi = &ki->in[1];
    ember_status *bad_dtype = NULL;
    if (!resize_given(ki->in, 1, ki->n_in) || roi->rank != 1 || roi->dims[0] != 2 * a->n_axes ||
        (bad_dtype = em_nn_check_dtype(ki, roi, EM_NN_FLOATS, "roi")) != NULL) {
        ember_status_destroy(bad_dtype); /* the message below says it all */
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "tf_crop_and_resize needs a float roi of %d values", 2 * a->n_axes);
    }
    return NULL;
}

/* Per-axis scales and resized lengths from the values of scales / sizes and roi. */
static void resize_scales(const em_resize_attrs *a, const em_tensor *in, int n_in, resize_axes *r)
{
    const em_tensor *v = &in[a->use_sizes ? 3 : 2];
    bool ok = v->data != NULL && v->rank == 1 && v->dims[0] == a->n_axes;
    double common = a->policy == POL_NOT_SMALLER ? 0.0 : INFINITY;
    for (int d = 0; d < a->rank; d++) {
        int s = a->slot[d];
        double in_d = (double)a->in[d];
        r->scale[d] = 1.0;
        r->roi0[d] = 0.0;
        r->roi1[d] = 1.0;
        if (s < 0) {
            continue;
        }
        if (!a->use_sizes) {
            r->scale[d] = ok ? ((const float *)v->data)[s] : (double)a->out[d] / in_d;
        } else {
            r->scale[d] = (double)(ok ? ((const int64_t *)v->data)[s] : a->out[d]) / in_d;
            common = a->policy == POL_NOT_SMALLER ? fmax(common, r->scale[d])
                                                  : fmin(common, r->scale[d]);
        }
        if (a->ctm == CT_TF_CROP && in[1].data != NULL && resize_given(in, 1, n_in)) {
            r->roi0[d] = em_nn_get(in[1].dtype, in[1].data, s);
            r->roi1[d] = em_nn_get(in[1].dtype, in[1].data, a->n_axes + s);
        }
    }
    for (int d = 0; d < a->rank; d++) {
        if (a->slot[d] >= 0 && a->use_sizes && a->policy != POL_STRETCH) {
            r->scale[d] = common;
        }
        r->length[d] = a->use_sizes && a->policy == POL_STRETCH ? (double)a->out[d]
                                                                : r->scale[d] * (double)a->in[d];
    }
}

/* The output size of axis d the inputs' values give (ONNX shape inference: float math). */
static int64_t resize_out_dim(const em_resize_attrs *a, const em_tensor *in, const resize_axes *r,
                              int d)
{
    if (a->slot[d] < 0) {
        return a->in[d];
    }
    if (!a->use_sizes) {
        float s = ((const float *)in[2].data)[a->slot[d]];
        return s > 0.0f && (float)a->in[d] * s < 9.0e18f ? (int64_t)floorf((float)a->in[d] * s)
                                                         : -1;
    }
    if (a->policy == POL_STRETCH) {
        return ((const int64_t *)in[3].data)[a->slot[d]];
    }
    return (int64_t)(r->scale[d] * (double)a->in[d] + 0.5);
}

/* Weights per output index of axis d: the tap count of its filter (antialias: 2 * ceil(support
 * / scale), every input element when the scale is not known yet), at most `in`. */
static int64_t resize_taps(const em_resize_attrs *a, const resize_axes *r, bool known, int d)
{
    int64_t n = a->in[d];
    if (a->slot[d] < 0 || a->mode == MODE_NEAREST) {
        n = 1;
    } else if (!a->antialias || (known && r->scale[d] >= 1.0)) {
        n = a->mode == MODE_LINEAR ? 2 : 4;
    } else if (known) {
        double w = ceil((a->mode == MODE_LINEAR ? 1.0 : 2.0) / r->scale[d]);
        n = w < (double)a->in[d] ? 2 * (int64_t)w : a->in[d];
    }
    return n < a->in[d] ? n : a->in[d];
}

static ember_status *resize_layout(const em_kinfo *ki, em_resize_attrs *a, size_t *scratch)
{
    resize_axes r;
    const em_tensor *v = &ki->in[a->use_sizes ? 3 : 2];
    bool known = v->data != NULL;
    resize_scales(a, ki->in, ki->n_in, &r);
    size_t off = 0;
    for (int d = 0; d < a->rank; d++) {
        if ((v->data != NULL || a->slot[d] < 0) && resize_out_dim(a, ki->in, &r, d) != a->out[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output dim %d is %lld, the scales or sizes give %lld", d,
                                (long long)a->out[d], (long long)resize_out_dim(a, ki->in, &r, d));
        }
        if (v->data != NULL && a->slot[d] >= 0 && !(r.scale[d] > 0.0 && isfinite(r.scale[d]))) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the scale of axis %d is not positive",
                                d);
        }
        a->taps[d] = resize_taps(a, &r, known, d);
        a->tab_off[d] = off;
        size_t n = (size_t)a->out[d], bytes;
        if (!em_size_mul(n, sizeof(resize_entry) + sizeof(double) * (size_t)a->taps[d], &bytes) ||
            !em_size_add(off, bytes, &off)) {
            return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "the resize tables are too large");
        }
    }
    *scratch = off;
    return NULL;
}

ember_status *em_resize_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_resize_attrs a;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 4, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS | EM_NN_INTS, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (Y)"));
    if (x->rank < 1 || y->rank != x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "X has rank %d and Y rank %d", x->rank,
                            y->rank);
    }
    a.rank = x->rank;
    a.n_in = ki->n_in;
    a.dt = x->dtype;
    a.numel = em_tensor_numel(y);
    memcpy(a.in, x->dims, sizeof a.in);
    memcpy(a.out, y->dims, sizeof a.out);
    for (int d = a.rank - 1; d >= 0; d--) {
        a.strides[d] = d == a.rank - 1 ? 1 : a.strides[d + 1] * a.in[d + 1];
        if (a.in[d] == 0 && a.numel > 0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "resizing an empty axis %d", d);
        }
    }
    EMBER_TRY(resize_enums(ki, &a));
    EMBER_TRY(resize_axes_attr(ki, &a));
    EMBER_TRY(resize_inputs(ki, &a));
    if (a.numel > 0) {
        EMBER_TRY(resize_layout(ki, &a, scratch_bytes));
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* ---- run ------------------------------------------------------------------------------------- */

/* Source coordinate of output index o on axis d; false when tf_crop_and_resize extrapolates. */
static bool resize_coord(const em_resize_attrs *a, const resize_axes *r, int d, int64_t o,
                         double *x)
{
    double s = r->scale[d], len = r->length[d], in = (double)a->in[d], xo = (double)o;
    switch (a->ctm) {
    case CT_HALF_PIXEL_SYM: {
        double adj = (double)a->out[d] / len, offset = in / 2.0 * (1.0 - adj);
        *x = offset + (xo + 0.5) / s - 0.5;
        return true;
    }
    case CT_PYTORCH:
        *x = len > 1.0 ? (xo + 0.5) / s - 0.5 : 0.0;
        return true;
    case CT_ALIGN:
        *x = len == 1.0 ? 0.0 : xo * (in - 1.0) / (len - 1.0);
        return true;
    case CT_ASYM:
        *x = xo / s;
        return true;
    case CT_TF_NN:
        *x = (xo + 0.5) / s;
        return true;
    case CT_TF_CROP: {
        double span = r->roi1[d] - r->roi0[d];
        *x = (len == 1.0 ? span * (in - 1.0) / 2.0 : xo * span * (in - 1.0) / (len - 1.0)) +
             r->roi0[d] * (in - 1.0);
        return *x >= 0.0 && *x <= in - 1.0;
    }
    default:
        *x = (xo + 0.5) / s - 0.5;
        return true;
    }
}

/* Antialiasing kernel at distance t: the tent (linear) or Keys' cubic. */
static double resize_kernel(const em_resize_attrs *a, double t)
{
    t = fabs(t);
    if (a->mode == MODE_LINEAR) {
        return t < 1.0 ? 1.0 - t : 0.0;
    }
    double A = a->cubic_a;
    if (t <= 1.0) {
        return ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
    }
    return t < 2.0 ? ((A * t - 5.0 * A) * t + 8.0 * A) * t - 4.0 * A : 0.0;
}

/* The filter of one output index: taps base + start .. base + start + n - 1. Plain filters
 * keep their weights in c; antialiasing ones evaluate the kernel per tap (n may exceed `in`). */
typedef struct resize_filt {
    double c[4], scale, r, norm, keep;
    int64_t base, start, n;
    bool aa, exclude;
} resize_filt;

static void filt_init(const em_resize_attrs *a, double scale, double r, resize_filt *f)
{
    f->scale = scale;
    f->r = r;
    f->norm = 1.0;
    f->keep = 1.0;
    f->aa = a->antialias && scale < 1.0;
    if (!f->aa) {
        f->start = a->mode == MODE_LINEAR ? 0 : -1;
        f->n = a->mode == MODE_LINEAR ? 2 : 4;
        if (a->mode == MODE_LINEAR) {
            f->c[0] = 1.0 - r;
            f->c[1] = r;
        } else {
            em_nn_cubic_coeffs(r, a->cubic_a, f->c);
        }
        return;
    }
    double support = a->mode == MODE_LINEAR ? 1.0 : 2.0, sum = 0.0;
    f->start = (int64_t)floor(-support / scale) + 1;
    f->n = 2 - 2 * f->start;
    for (int64_t i = 0; i < f->n; i++) {
        sum += resize_kernel(a, scale * ((double)(f->start + i) - r));
    }
    f->norm = sum;
}

/* Weight of tap i (exclude_outside applied through f->keep). */
static double filt_w(const em_resize_attrs *a, const resize_filt *f, int64_t i, int64_t in)
{
    int64_t idx = f->base + f->start + i;
    if (f->exclude && (idx < 0 || idx >= in)) {
        return 0.0;
    }
    double w =
        f->aa ? resize_kernel(a, f->scale * ((double)(f->start + i) - f->r)) / f->norm : f->c[i];
    return w / f->keep;
}

/* Clamps the taps into [0, in) merging their weights, trims zero weights at both ends. */
static void resize_merge(const em_resize_attrs *a, const resize_filt *f, int64_t in,
                         resize_entry *e, double *out)
{
    int64_t first = f->base + f->start, last = first + f->n - 1;
    int64_t lo = first < 0 ? 0 : (first >= in ? in - 1 : first);
    int64_t hi = last < 0 ? 0 : (last >= in ? in - 1 : last);
    for (int64_t i = 0; i <= hi - lo; i++) {
        out[i] = 0.0;
    }
    for (int64_t i = 0; i < f->n; i++) {
        int64_t idx = first + i;
        idx = idx < 0 ? 0 : (idx >= in ? in - 1 : idx);
        out[idx - lo] += filt_w(a, f, i, in);
    }
    int64_t b = 0, c = hi - lo + 1;
    while (c > 1 && out[b] == 0.0) {
        b++;
        c--;
    }
    while (c > 1 && out[b + c - 1] == 0.0) {
        c--;
    }
    memmove(out, out + b, sizeof(double) * (size_t)c);
    e->first = lo + b;
    e->count = c;
}

static int64_t resize_nearest(const em_resize_attrs *a, int64_t base, double r)
{
    bool up = r >= 1.0;
    if (!up) {
        switch (a->nearest) {
        case NR_PREFER_FLOOR:
            up = r > 0.5;
            break;
        case NR_PREFER_CEIL:
            up = r >= 0.5;
            break;
        case NR_CEIL:
            up = true;
            break;
        default:
            break;
        }
    }
    return up ? base + 1 : base;
}

/* The filter of output index o of resized axis d; false when it extrapolates. */
static bool resize_filter(const em_resize_attrs *a, const resize_axes *r, int d, int64_t o,
                          resize_filt *f)
{
    double x;
    memset(f, 0, sizeof *f);
    f->n = 1;
    f->c[0] = 1.0;
    f->keep = 1.0;
    if (a->slot[d] < 0) {
        f->base = o;
        return true;
    }
    if (!resize_coord(a, r, d, o, &x)) {
        return false;
    }
    double base_f = fmin(fmax(ceil(x) - 1.0, -4.0e18), 4.0e18), rr = x - base_f;
    f->base = (int64_t)base_f;
    if (a->mode == MODE_NEAREST) {
        f->base = resize_nearest(a, f->base, rr);
        return true;
    }
    filt_init(a, r->scale[d], rr, f);
    if (a->exclude_outside) {
        double keep = 0.0;
        f->exclude = true;
        for (int64_t i = 0; i < f->n; i++) {
            keep += filt_w(a, f, i, a->in[d]);
        }
        f->keep = keep != 0.0 ? keep : 1.0;
    }
    return true;
}

/* The table of axis d: one entry and a->taps[d] weights per output index. */
static void resize_table(const em_resize_attrs *a, const resize_axes *r, int d, void *scratch)
{
    resize_entry *e = (resize_entry *)((char *)scratch + a->tab_off[d]);
    double *w = (double *)(e + a->out[d]);
    for (int64_t o = 0; o < a->out[d]; o++, w += a->taps[d]) {
        resize_filt f;
        if (resize_filter(a, r, d, o, &f)) {
            resize_merge(a, &f, a->in[d], &e[o], w);
        } else {
            e[o].first = e[o].count = 0;
        }
    }
}

typedef struct resize_job {
    const em_resize_attrs *a;
    const void *x;
    void *y;
    const resize_entry *e[EM_MAX_RANK];
    const double *w[EM_MAX_RANK];
} resize_job;

/* Output element with per-axis entries ent[d] and weights wt[d]. */
static double resize_point(const resize_job *j, const resize_entry *const *ent,
                           const double *const *wt)
{
    const em_resize_attrs *a = j->a;
    const int last = a->rank - 1;
    int64_t t[EM_MAX_RANK] = {0};
    double acc = 0.0;
    for (int d = 0; d <= last; d++) {
        if (ent[d]->count == 0) {
            return a->extrapolation;
        }
    }
    for (;;) {
        int64_t off = 0;
        double w = 1.0;
        for (int d = 0; d < last; d++) {
            off += (ent[d]->first + t[d]) * a->strides[d];
            w *= wt[d][t[d]];
        }
        off += ent[last]->first;
        for (int64_t i = 0; i < ent[last]->count; i++) {
            acc += w * wt[last][i] * em_nn_get(a->dt, j->x, off + i);
        }
        int d = last - 1;
        while (d >= 0 && ++t[d] == ent[d]->count) {
            t[d] = 0;
            d--;
        }
        if (d < 0) {
            return acc;
        }
    }
}

static void resize_task(void *arg, int64_t begin, int64_t end)
{
    const resize_job *j = arg;
    const em_resize_attrs *a = j->a;
    int64_t o[EM_MAX_RANK];
    const resize_entry *ent[EM_MAX_RANK];
    const double *wt[EM_MAX_RANK];
    int64_t rem = begin;
    for (int d = a->rank - 1; d >= 0; d--) {
        o[d] = rem % a->out[d];
        rem /= a->out[d];
    }
    for (int64_t i = begin; i < end; i++) {
        for (int d = 0; d < a->rank; d++) {
            ent[d] = &j->e[d][o[d]];
            wt[d] = j->w[d] + o[d] * a->taps[d];
        }
        em_nn_set(a->dt, j->y, i, resize_point(j, ent, wt));
        em_ref_coord_next(o, a->out, a->rank);
    }
}

void em_resize__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_resize_attrs *a = state;
    resize_axes r;
    if (a->numel == 0) {
        return;
    }
    resize_scales(a, in, a->n_in, &r);
    resize_job j = {a, in[0].data, out[0].data, {0}, {0}};
    for (int d = 0; d < a->rank; d++) {
        resize_table(a, &r, d, ctx->scratch);
        j.e[d] = (const resize_entry *)((const char *)ctx->scratch + a->tab_off[d]);
        j.w[d] = (const double *)(j.e[d] + a->out[d]);
    }
    em_parallel_for(ctx->pool, a->numel, 64, resize_task, &j);
}
