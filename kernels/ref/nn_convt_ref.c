/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ConvTranspose (ONNX ConvTranspose-11, the form of opset 22), any number of spatial axes:
 * X [N, C, D1..Dk], W [C, M/group, K1..Kk], optional B [M] -> Y [N, M, O1..Ok].
 *
 * Input position i scatters into output position o = i * stride - pad_begin + t * dilation
 * for tap t. Computed as a gather so that each output element is one sum in double, rounded
 * once, in a fixed order whatever the thread split: for every tap t, the input position is
 * i = (o + pad_begin - t * dilation) / stride when that divides exactly and lies in [0, in).
 *
 * Pads and the output size follow the spec: with output_shape (or auto_pad SAME_*, whose
 * output is in * stride) the total padding stride * (in - 1) + output_padding + dilated kernel
 * - out is split in half, the odd unit at the end for SAME_UPPER and at the beginning
 * otherwise (halves rounded toward minus infinity, as ONNX's reference, so a negative total
 * grows the output at the end); otherwise the explicit pads decide the output size.
 */
#include "ref.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Attribute values above this are rejected: window arithmetic stays far from overflow. */
#define CONVT_ATTR_MAX ((int64_t)1 << 31)

typedef struct em_convt_attrs {
    int n_sp;
    ember_dtype dt;
    int64_t in[EM_MAX_RANK], out[EM_MAX_RANK], k[EM_MAX_RANK];
    int64_t s[EM_MAX_RANK], d[EM_MAX_RANK], pb[EM_MAX_RANK];
    int64_t batch, c_in, c_out, c_in_g, c_out_g;
    int64_t in_plane, k_plane, out_plane;
    bool has_bias;
} em_convt_attrs;

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

static ember_status *convt_tensors(const em_kinfo *ki)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], x->dtype, "input 1 (W)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    if (em_ref_has_input(ki, 2)) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], x->dtype, "input 2 (B)"));
    }
    return em_ref_check_nc_spatial(ki, x, &ki->in[1]);
fail:
    return st;
}

/* Channels: W is [C, M/group, ...], B is [M]. */
static ember_status *convt_channels(const em_kinfo *ki, em_convt_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1];
    int64_t group;
    EMBER_TRY(em_ref_attr_int(ki, "group", 1, &group));
    a->batch = x->dims[0];
    a->c_in = x->dims[1];
    if (group < 1 || group > CONVT_ATTR_MAX || a->c_in % group != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "group %lld does not divide the %lld input channels", (long long)group,
                            (long long)a->c_in);
    }
    if (w->dims[0] != a->c_in) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "weight has %lld input channels, X has %lld", (long long)w->dims[0],
                            (long long)a->c_in);
    }
    a->c_in_g = a->c_in / group;
    a->c_out_g = w->dims[1];
    if (!em_shape_numel_checked((int64_t[]){a->c_out_g, group}, 2, &a->c_out)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "too many output channels");
    }
    if (em_ref_has_input(ki, 2)) {
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], &a->c_out, 1, "input 2 (B)"));
    }
    return NULL;
fail:
    return st;
}

/* Reads n ints in [lo, CONVT_ATTR_MAX] (dflt when absent). */
static ember_status *convt_ints(const em_kinfo *ki, const char *name, int n, int64_t dflt,
                                int64_t lo, int64_t *v, bool *present)
{
    ember_status *st = em_ref_attr_ints(ki, name, n, dflt, v, present);
    for (int i = 0; st == NULL && i < n; i++) {
        if (v[i] < lo || v[i] > CONVT_ATTR_MAX) {
            st =
                em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                             "attribute '%s'[%d] = %lld is out of range", name, i, (long long)v[i]);
        }
    }
    return st;
}

/* output_shape: n_sp spatial sizes, or the full output shape (n_sp + 2). */
static ember_status *convt_output_shape(const em_kinfo *ki, int n_sp, int64_t *os, bool *present)
{
    const em_attr *at = ki->node != NULL ? em_node_attr(ki->node, "output_shape") : NULL;
    *present = at != NULL;
    if (at == NULL) {
        return NULL;
    }
    if (at->type != EM_ATTR_INTS || (at->n != n_sp && at->n != n_sp + 2)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'output_shape' must hold %d (or %d) ints", n_sp, n_sp + 2);
    }
    for (int i = 0; i < n_sp; i++) {
        os[i] = at->ints[at->n - n_sp + i];
        if (os[i] < 0 || os[i] > ((int64_t)1 << 60)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output_shape[%d] = %lld is out of range", i, (long long)os[i]);
        }
    }
    return NULL;
}

static int64_t floor_half(int64_t v)
{
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

static ember_status *convt_geometry(const em_kinfo *ki, em_convt_attrs *a)
{
    static const char *const pad_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    ember_status *st = NULL;
    const em_tensor *w = &ki->in[1];
    int n = a->n_sp, ap;
    int64_t ks[EM_MAX_RANK], op[EM_MAX_RANK], pads[2 * EM_MAX_RANK], os[EM_MAX_RANK];
    bool has_ks, has_os;
    EMBER_TRY(convt_ints(ki, "kernel_shape", n, 1, 1, ks, &has_ks));
    EMBER_TRY(convt_ints(ki, "strides", n, 1, 1, a->s, NULL));
    EMBER_TRY(convt_ints(ki, "dilations", n, 1, 1, a->d, NULL));
    EMBER_TRY(convt_ints(ki, "output_padding", n, 0, 0, op, NULL));
    EMBER_TRY(convt_ints(ki, "pads", 2 * n, 0, 0, pads, NULL));
    EMBER_TRY(convt_output_shape(ki, n, os, &has_os));
    EMBER_TRY(em_nn_attr_enum(ki, "auto_pad", pad_names, 4, PAD_NOTSET, &ap));
    for (int i = 0; i < n; i++) {
        a->in[i] = ki->in[0].dims[2 + i];
        a->k[i] = w->dims[2 + i];
        if (has_ks && ks[i] != a->k[i]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "kernel_shape[%d] = %lld but the weights have %lld", i,
                                (long long)ks[i], (long long)a->k[i]);
        }
        if (a->k[i] < 1 || a->k[i] > CONVT_ATTR_MAX || a->in[i] > ((int64_t)1 << 31)) {
            return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "spatial axis %d is too large", i);
        }
        int64_t full = a->s[i] * (a->in[i] - 1) + op[i] + (a->k[i] - 1) * a->d[i] + 1;
        if (has_os || ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER) {
            a->out[i] = has_os ? os[i] : a->in[i] * a->s[i];
            int64_t total = full - a->out[i];
            a->pb[i] = ap == PAD_SAME_UPPER ? floor_half(total) : total - floor_half(total);
        } else {
            a->pb[i] = ap == PAD_VALID ? 0 : pads[i];
            a->out[i] = full - (ap == PAD_VALID ? 0 : pads[i] + pads[n + i]);
        }
    }
    return NULL;
fail:
    return st;
}

ember_status *em_convtranspose_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_convt_attrs a;
    int64_t y_dims[EM_MAX_RANK];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(convt_tensors(ki));
    const em_tensor *x = &ki->in[0];
    a.n_sp = x->rank - 2;
    a.dt = x->dtype;
    EMBER_TRY(convt_channels(ki, &a));
    EMBER_TRY(convt_geometry(ki, &a));
    y_dims[0] = a.batch;
    y_dims[1] = a.c_out;
    for (int d = 0; d < a.n_sp; d++) {
        if (a.out[d] < 0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output size %lld on spatial axis %d is negative",
                                (long long)a.out[d], d);
        }
        y_dims[2 + d] = a.out[d];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x->rank, "output 0 (Y)"));
    a.in_plane = em_ref_prod(a.in, a.n_sp);
    a.k_plane = em_ref_prod(a.k, a.n_sp);
    a.out_plane = em_ref_prod(a.out, a.n_sp);
    a.has_bias = em_ref_has_input(ki, 2);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct convt_job {
    const em_convt_attrs *a;
    const void *x, *w, *b;
    void *y;
} convt_job;

/* The input offset (within a plane) that tap t of output position o reads, or -1. */
static int64_t convt_source(const em_convt_attrs *a, const int64_t *o, const int64_t *t)
{
    int64_t off = 0;
    for (int d = 0; d < a->n_sp; d++) {
        int64_t num = o[d] + a->pb[d] - t[d] * a->d[d];
        if (num < 0 || num % a->s[d] != 0 || num / a->s[d] >= a->in[d]) {
            return -1;
        }
        off = off * a->in[d] + num / a->s[d];
    }
    return off;
}

/* One output plane: batch n, output channel m of group g. */
static void convt_plane(const convt_job *j, int64_t n, int64_t m)
{
    const em_convt_attrs *a = j->a;
    const ember_dtype dt = a->dt;
    const int64_t g = m / a->c_out_g, mg = m % a->c_out_g;
    const int64_t x0 = (n * a->c_in + g * a->c_in_g) * a->in_plane;
    const int64_t y0 = (n * a->c_out + m) * a->out_plane;
    const double bias = j->b != NULL ? em_nn_get(dt, j->b, m) : 0.0;
    int64_t o[EM_MAX_RANK] = {0}, t[EM_MAX_RANK];

    for (int64_t i = 0; i < a->out_plane; i++) {
        double acc = 0.0;
        memset(t, 0, sizeof t);
        for (int64_t ti = 0; ti < a->k_plane; ti++) {
            int64_t src = convt_source(a, o, t);
            for (int64_t ic = 0; src >= 0 && ic < a->c_in_g; ic++) {
                int64_t c = g * a->c_in_g + ic;
                acc += em_nn_get(dt, j->x, x0 + ic * a->in_plane + src) *
                       em_nn_get(dt, j->w, (c * a->c_out_g + mg) * a->k_plane + ti);
            }
            em_ref_coord_next(t, a->k, a->n_sp);
        }
        em_nn_set(dt, j->y, y0 + i, bias + acc);
        em_ref_coord_next(o, a->out, a->n_sp);
    }
}

static void convt_task(void *arg, int64_t begin, int64_t end)
{
    const convt_job *j = arg;
    for (int64_t nm = begin; nm < end; nm++) {
        convt_plane(j, nm / j->a->c_out, nm % j->a->c_out);
    }
}

void em_convtranspose__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const em_convt_attrs *a = state;
    convt_job j = {a, in[0].data, in[1].data, a->has_bias ? in[2].data : NULL, out[0].data};
    if (a->out_plane > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->c_out, 1, convt_task, &j);
    }
}

/* ---- DeformConv ---------------------------------------------------------------------------- */
/*
 * DeformConv-19, 2-D: X [N, C, H, W], W [oC, C/group, kH, kW], offset [N, offset_group * kH * kW
 * * 2, oH, oW], optional B [oC] and mask [N, offset_group * kH * kW, oH, oW] -> Y [N, oC, oH, oW].
 * Tap (kh, kw) of output (i, j) samples input channel ic at
 *   (i * stride_h - pad_h + kh * dilation_h + dh, j * stride_w - pad_w + kw * dilation_w + dw)
 * where (dh, dw) are the offsets of ic's offset group (channels (tap * 2, tap * 2 + 1)),
 * bilinearly with zeros outside the input (GridSample's linear / zeros / align_corners rule,
 * as ONNX's reference), times the tap's mask. Sums in double. f16 f32 f64.
 */

typedef struct em_deform_attrs {
    ember_dtype dt;
    int64_t n, c, oc, cg, ocg, og, cog;
    int64_t h, w, oh, ow, kh, kw, s[2], d[2], p[2];
    bool has_bias, has_mask;
} em_deform_attrs;

static ember_status *deform_attrs(const em_kinfo *ki, em_deform_attrs *a)
{
    ember_status *st = NULL;
    int64_t ks[2], pads[4], group;
    bool has_ks;
    EMBER_TRY(convt_ints(ki, "kernel_shape", 2, 1, 1, ks, &has_ks));
    EMBER_TRY(convt_ints(ki, "strides", 2, 1, 1, a->s, NULL));
    EMBER_TRY(convt_ints(ki, "dilations", 2, 1, 1, a->d, NULL));
    EMBER_TRY(convt_ints(ki, "pads", 4, 0, 0, pads, NULL));
    EMBER_TRY(em_ref_attr_int(ki, "group", 1, &group));
    EMBER_TRY(em_ref_attr_int(ki, "offset_group", 1, &a->og));
    if (has_ks && (ks[0] != a->kh || ks[1] != a->kw)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "kernel_shape disagrees with W's shape");
    }
    if (group < 1 || a->og < 1 || a->c % group != 0 || a->oc % group != 0 || a->c % a->og != 0 ||
        a->c / group != ki->in[1].dims[1]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "group %lld and offset_group %lld must divide the channels (C %lld, "
                            "oC %lld, W's second dim %lld)",
                            (long long)group, (long long)a->og, (long long)a->c, (long long)a->oc,
                            (long long)ki->in[1].dims[1]);
    }
    a->cg = a->c / group;
    a->ocg = a->oc / group;
    a->cog = a->c / a->og;
    for (int i = 0; i < 2; i++) {
        a->p[i] = pads[i];
        int64_t in = i == 0 ? a->h : a->w, k = i == 0 ? a->kh : a->kw;
        int64_t span = in + pads[i] + pads[2 + i] - (k - 1) * a->d[i] - 1;
        if (span < 0 || span / a->s[i] + 1 != (i == 0 ? a->oh : a->ow) || in > CONVT_ATTR_MAX ||
            k > CONVT_ATTR_MAX) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "offset's spatial dims disagree with the convolution's output");
        }
    }
    return NULL;
fail:
    return st;
}

ember_status *em_deformconv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_deform_attrs a;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *off = &ki->in[2];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 5, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, w, x->dtype, "input 1 (W)"));
    EMBER_TRY(em_ref_check_tensor(ki, off, x->dtype, "input 2 (offset)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    if (x->rank != 4 || w->rank != 4 || off->rank != 4) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "X, W and offset must have rank 4: only 2-D DeformConv is supported");
    }
    a.dt = x->dtype;
    a.n = x->dims[0];
    a.c = x->dims[1];
    a.h = x->dims[2];
    a.w = x->dims[3];
    a.oc = w->dims[0];
    a.kh = w->dims[2];
    a.kw = w->dims[3];
    a.oh = off->dims[2];
    a.ow = off->dims[3];
    EMBER_TRY(deform_attrs(ki, &a));
    int64_t od[4] = {a.n, a.og * a.kh * a.kw * 2, a.oh, a.ow}, md[4] = {a.n, od[1] / 2, a.oh, a.ow};
    int64_t yd[4] = {a.n, a.oc, a.oh, a.ow};
    EMBER_TRY(em_ref_check_shape(ki, off, od, 4, "input 2 (offset)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], yd, 4, "output 0 (Y)"));
    a.has_bias = em_ref_has_input(ki, 3);
    a.has_mask = em_ref_has_input(ki, 4);
    if (a.has_bias) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[3], x->dtype, "input 3 (B)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[3], &a.oc, 1, "input 3 (B)"));
    }
    if (a.has_mask) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[4], x->dtype, "input 4 (mask)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[4], md, 4, "input 4 (mask)"));
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct deform_job {
    const em_deform_attrs *a;
    const void *x, *w, *off, *b, *mask;
    void *y;
} deform_job;

/* Bilinear sample of plane x0 at (hh, ww); taps outside the input read 0. */
static double deform_sample(const em_deform_attrs *a, const void *x, int64_t x0, double hh,
                            double ww)
{
    if (!(hh > -1.0 && hh < (double)a->h && ww > -1.0 && ww < (double)a->w)) {
        return 0.0;
    }
    double h0 = floor(hh), w0 = floor(ww), th = hh - h0, tw = ww - w0, acc = 0.0;
    for (int dy = 0; dy < 2; dy++) {
        for (int dx = 0; dx < 2; dx++) {
            int64_t yy = (int64_t)h0 + dy, xx = (int64_t)w0 + dx;
            if (yy >= 0 && yy < a->h && xx >= 0 && xx < a->w) {
                acc += (dy ? th : 1.0 - th) * (dx ? tw : 1.0 - tw) *
                       em_nn_get(a->dt, x, x0 + yy * a->w + xx);
            }
        }
    }
    return acc;
}

static void deform_plane(const deform_job *j, int64_t n, int64_t m)
{
    const em_deform_attrs *a = j->a;
    const int64_t g = m / a->ocg, taps = a->kh * a->kw, plane = a->oh * a->ow;
    for (int64_t i = 0; i < a->oh; i++) {
        for (int64_t jj = 0; jj < a->ow; jj++) {
            double acc = j->b != NULL ? em_nn_get(a->dt, j->b, m) : 0.0;
            for (int64_t icg = 0; icg < a->cg; icg++) {
                int64_t ic = g * a->cg + icg, og = ic / a->cog;
                for (int64_t t = 0; t < taps; t++) {
                    int64_t oc0 = (n * a->og + og) * taps + t, pos = i * a->ow + jj;
                    double dh = em_nn_get(a->dt, j->off, (oc0 * 2) * plane + pos);
                    double dw = em_nn_get(a->dt, j->off, (oc0 * 2 + 1) * plane + pos);
                    double mk =
                        j->mask != NULL ? em_nn_get(a->dt, j->mask, oc0 * plane + pos) : 1.0;
                    double hh = (double)(i * a->s[0] - a->p[0] + (t / a->kw) * a->d[0]) + dh;
                    double ww = (double)(jj * a->s[1] - a->p[1] + (t % a->kw) * a->d[1]) + dw;
                    double v = deform_sample(a, j->x, (n * a->c + ic) * a->h * a->w, hh, ww);
                    acc += em_nn_get(a->dt, j->w, (m * a->cg + icg) * taps + t) * mk * v;
                }
            }
            em_nn_set(a->dt, j->y, (n * a->oc + m) * plane + i * a->ow + jj, acc);
        }
    }
}

static void deform_task(void *arg, int64_t begin, int64_t end)
{
    const deform_job *j = arg;
    for (int64_t nm = begin; nm < end; nm++) {
        deform_plane(j, nm / j->a->oc, nm % j->a->oc);
    }
}

void em_deformconv__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_deform_attrs *a = state;
    deform_job j = {a,
                    in[0].data,
                    in[1].data,
                    in[2].data,
                    a->has_bias ? in[3].data : NULL,
                    a->has_mask ? in[4].data : NULL,
                    out[0].data};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n * a->oc, 1, deform_task, &j);
}
