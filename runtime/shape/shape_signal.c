/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the signal family (ONNX semantics, newest opsets):
 *  - HannWindow / HammingWindow / BlackmanWindow-17: [size] of dtype output_datatype (default
 *    float); size is a value input.
 *  - DFT-20: input [batch, signal dims..., 1 | 2], dft_length (input 1) and axis (input 2,
 *    default -2, never the last axis) as value inputs. The output has the input's shape with the
 *    last dim 2 and dims[axis] = dft_length (default: the input's dims[axis]), or
 *    floor(dft_length / 2) + 1 when onesided. onesided with inverse is the IRFFT (the DFT-20
 *    doc of onnx 1.23): a complex input, a real output [..., 1] with dims[axis] = dft_length,
 *    default 2 (dims[axis] - 1). onesided with a forward complex input is invalid.
 *  - STFT-17: signal [batch, length, 1 | 2] -> [batch, frames, bins, 2] with frame_length =
 *    input 3, else the window's length, else the signal length; frames = (length -
 *    frame_length) / frame_step + 1; bins = frame_length / 2 + 1 when onesided (default 1).
 *  - MelWeightMatrix-17: [floor(dft_length / 2) + 1, num_mel_bins] of output_datatype.
 * When a value input's data is not known, the dims it decides are unknown, never an error.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdbool.h>
#include <stdint.h>

#define KNOWN(d) ((d).v >= 0)

static bool present(const em_node *n, const em_shape *in, int i)
{
    return i < n->n_in && n->in[i] >= 0 && in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

static bool is_int_index(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I32 || dt == EMBER_DTYPE_I64;
}

/* A one-element int32/int64 input (rank 0, or 1-D of one element). Sets *known and *v when its
 * value is known. */
static ember_status *scalar_int(const em_node *n, const em_shape *in, int i, const char *what,
                                bool *known, int64_t *v)
{
    const em_shape *s = &in[i];
    *known = false;
    if (!is_int_index(s->dtype)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d (%s) must be "
                             "int32 or int64",
                             n->name, em_op_name(n->op), i, what);
    }
    if (s->rank > 1 || (s->rank == 1 && KNOWN(s->dims[0]) && s->dims[0].v != 1)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d (%s) must hold a single value", n->name,
                             em_op_name(n->op), i, what);
    }
    const em_tensor *t = s->value;
    if (t == NULL || t->data == NULL || t->rank > 1 || (t->rank == 1 && t->dims[0] != 1)) {
        return NULL;
    }
    *v = t->dtype == EMBER_DTYPE_I64 ? *(const int64_t *)t->data : *(const int32_t *)t->data;
    *known = true;
    return NULL;
}

/* The numeric dtype named by attribute `name` (default float). */
static ember_status *attr_dtype(const em_node *n, const char *name, ember_dtype *dt)
{
    int64_t v = em_node_attr_int(n, name, EMBER_DTYPE_F32);
    ember_dtype d = (ember_dtype)v;
    if (v <= 0 || v > 64 || !em_dtype_valid(d) || d == EMBER_DTYPE_BOOL) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): attribute '%s' = %lld is not a numeric dtype",
                             n->name, em_op_name(n->op), name, (long long)v);
    }
    *dt = d;
    return NULL;
}

ember_status *em_shape_window(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = NULL;
    bool known;
    int64_t size = 0;
    if ((st = attr_dtype(n, "output_datatype", &out->dtype)) != NULL ||
        (st = scalar_int(n, in, 0, "size", &known, &size)) != NULL) {
        return st;
    }
    if (known && size < 0) {
        return em_shape_bad(n, "input 0 (size) is negative");
    }
    out->rank = 1;
    out->dims[0] = known ? em_dim_known(size) : em_dim_unknown();
    return NULL;
}

ember_status *em_shape_dft(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = NULL;
    const em_shape *x = &in[0];
    bool inverse = em_node_attr_int(n, "inverse", 0) != 0;
    bool onesided = em_node_attr_int(n, "onesided", 0) != 0;
    bool len_known = false, axis_known = true;
    int64_t len = 0, axis = -2;
    const bool irfft = inverse && onesided; /* complex one-sided input, real output */
    out->dtype = x->dtype;
    if (present(n, in, 1) && (st = scalar_int(n, in, 1, "dft_length", &len_known, &len)) != NULL) {
        return st;
    }
    if (present(n, in, 2) && (st = scalar_int(n, in, 2, "axis", &axis_known, &axis)) != NULL) {
        return st;
    }
    if (len_known && len < 1) {
        return em_shape_bad(n, "input 1 (dft_length) must be positive");
    }
    if (x->rank < 0) {
        return NULL;
    }
    if (x->rank < 2) {
        return em_shape_bad(n, "input 0 must have rank >= 2 ([batch, ..., 1 or 2])");
    }
    em_dim last = x->dims[x->rank - 1];
    if (KNOWN(last) && last.v != 1 && last.v != 2) {
        return em_shape_bad(n, "the last dim of input 0 must be 1 (real) or 2 (complex)");
    }
    if (onesided && KNOWN(last) && last.v == (irfft ? 1 : 2)) {
        return em_shape_bad(n, irfft ? "onesided with inverse needs a complex input"
                                     : "onesided needs a real input");
    }
    *out = *x;
    out->value = NULL;
    out->dims[x->rank - 1] = em_dim_known(irfft ? 1 : 2);
    if (!axis_known) {
        for (int d = 0; d < x->rank - 1; d++) {
            out->dims[d] = em_dim_unknown();
        }
        return NULL;
    }
    if (axis < -(int64_t)x->rank || axis >= x->rank || axis == -1 || axis == x->rank - 1) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (DFT): axis %lld is out of range [-%d, -2] or [0, %d]",
                             n->name, (long long)axis, x->rank, x->rank - 2);
    }
    int ax = (int)(axis < 0 ? axis + x->rank : axis);
    em_dim d = len_known ? em_dim_known(len) : present(n, in, 1) ? em_dim_unknown() : x->dims[ax];
    if (irfft && !present(n, in, 1)) {
        d = KNOWN(d) ? em_dim_known(2 * (d.v - 1)) : em_dim_unknown(); /* numpy's default */
    } else if (onesided && !irfft) {
        d = KNOWN(d) ? em_dim_known(d.v / 2 + 1) : em_dim_unknown();
    }
    out->dims[ax] = d;
    return NULL;
}

ember_status *em_shape_stft(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = NULL;
    const em_shape *x = &in[0];
    bool onesided = em_node_attr_int(n, "onesided", 1) != 0;
    bool step_known, flen_known = false;
    int64_t step = 0, flen = 0;
    out->dtype = x->dtype;
    if ((st = scalar_int(n, in, 1, "frame_step", &step_known, &step)) != NULL) {
        return st;
    }
    if (present(n, in, 3) &&
        (st = scalar_int(n, in, 3, "frame_length", &flen_known, &flen)) != NULL) {
        return st;
    }
    if (step_known && step < 1) {
        return em_shape_bad(n, "input 1 (frame_step) must be positive");
    }
    if (x->rank >= 0 && x->rank != 3) {
        return em_shape_bad(n, "input 0 (signal) must have rank 3 ([batch, length, 1 or 2])");
    }
    if (present(n, in, 2) && in[2].rank >= 0 && in[2].rank != 1) {
        return em_shape_bad(n, "input 2 (window) must be 1-D");
    }
    em_dim fd = flen_known ? em_dim_known(flen) : em_dim_unknown();
    if (!present(n, in, 3) && present(n, in, 2) && in[2].rank == 1) {
        fd = in[2].dims[0];
    } else if (!present(n, in, 3) && !present(n, in, 2) && x->rank == 3) {
        fd = x->dims[1];
    }
    if (present(n, in, 2) && in[2].rank == 1 && KNOWN(fd) && KNOWN(in[2].dims[0]) &&
        in[2].dims[0].v != fd.v) {
        return em_shape_bad(n, "the window's length differs from frame_length");
    }
    if (KNOWN(fd) && fd.v < 1) {
        return em_shape_bad(n, "frame_length must be positive");
    }
    if (x->rank < 0) {
        return NULL;
    }
    em_dim len = x->dims[1], comp = x->dims[2];
    if (KNOWN(comp) && comp.v != 1 && comp.v != 2) {
        return em_shape_bad(n, "the last dim of the signal must be 1 (real) or 2 (complex)");
    }
    if (onesided && KNOWN(comp) && comp.v == 2) {
        return em_shape_bad(n, "onesided needs a real signal");
    }
    if (KNOWN(len) && KNOWN(fd) && fd.v > len.v) {
        return em_shape_bad(n, "frame_length is longer than the signal");
    }
    out->rank = 4;
    out->dims[0] = x->dims[0];
    out->dims[1] = KNOWN(len) && KNOWN(fd) && step_known ? em_dim_known((len.v - fd.v) / step + 1)
                                                         : em_dim_unknown();
    out->dims[2] = !KNOWN(fd) ? em_dim_unknown() : em_dim_known(onesided ? fd.v / 2 + 1 : fd.v);
    out->dims[3] = em_dim_known(2);
    return NULL;
}

ember_status *em_shape_melweightmatrix(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = NULL;
    bool bins_known, len_known, sr_known;
    int64_t bins = 0, len = 0, sr = 0;
    if ((st = attr_dtype(n, "output_datatype", &out->dtype)) != NULL ||
        (st = scalar_int(n, in, 0, "num_mel_bins", &bins_known, &bins)) != NULL ||
        (st = scalar_int(n, in, 1, "dft_length", &len_known, &len)) != NULL ||
        (st = scalar_int(n, in, 2, "sample_rate", &sr_known, &sr)) != NULL) {
        return st;
    }
    if ((bins_known && bins < 0) || (len_known && len < 1) || (sr_known && sr < 1)) {
        return em_shape_bad(n, "num_mel_bins must be >= 0, dft_length and sample_rate > 0");
    }
    out->rank = 2;
    out->dims[0] = len_known ? em_dim_known(len / 2 + 1) : em_dim_unknown();
    out->dims[1] = bins_known ? em_dim_known(bins) : em_dim_unknown();
    return NULL;
}
