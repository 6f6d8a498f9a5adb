/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pad-21 in constant mode for f32: each output row (the last axis) is a block copy of its
 * input row between two runs of the constant, or all constant when an outer coordinate falls
 * in the padding; negative pads crop. The reference (kernels/ref/tensor_slice_ref.c) maps
 * every element through the mode instead, ~30x slower on swin_t's window padding. Pads,
 * constant_value and axes are read at run time: TorchScript computes them from the input's
 * size (swin_t pads to a multiple of its window, by zero for 224 x 224), so they are not
 * constant at planning. Edge, reflect and wrap are declined (the reference runs them).
 * Plain C: nothing here needs AVX2, the row copies are memcpy's.
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

typedef struct pad_state {
    int n_in; /* the node's input count: run's `in` has that many entries */
} pad_state;

ember_status *em_pad_f32_prepare__avx2(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    const char *mode = em_node_attr_string(ki->node, "mode", "constant");
    const em_tensor *x = &ki->in[0];
    if (strcmp(mode, "constant") != 0 || ki->n_in < 2 || ki->n_out != 1 ||
        x->dtype != EMBER_DTYPE_F32 || ki->out[0].dtype != EMBER_DTYPE_F32 ||
        ki->out[0].rank != x->rank || x->rank < 1 || ki->in[1].dtype != EMBER_DTYPE_I64 ||
        (ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED &&
         ki->in[2].dtype != EMBER_DTYPE_F32) ||
        (ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED &&
         ki->in[3].dtype != EMBER_DTYPE_I64 && ki->in[3].dtype != EMBER_DTYPE_I32)) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: Pad: constant mode of f32 only",
                             ki->node->name);
    }
    pad_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->n_in = ki->n_in;
    *state = s;
    return NULL;
}

void em_pad_f32_release__avx2(const ember_allocator *al, void *state)
{
    em_free(al, state);
}

/* Begin / end pads per axis from the pads (and axes) inputs; false when they do not fit x
 * and y (the reference's prepare refuses such nodes; a run then writes zeros, as it does). */
static bool pad_amounts(const em_tensor *in, int n_in, const em_tensor *y, int64_t *pb,
                        int64_t *pe)
{
    const em_tensor *x = &in[0];
    int r = x->rank;
    int64_t n = em_tensor_numel(&in[1]), axes[EM_MAX_RANK], na = r;
    bool have_axes = n_in > 3 && in[3].dtype != EMBER_DTYPE_UNDEFINED && in[3].data != NULL;
    if (have_axes) {
        na = em_tensor_numel(&in[3]);
        for (int64_t i = 0; i < na && na <= r; i++) {
            axes[i] = in[3].dtype == EMBER_DTYPE_I64 ? ((const int64_t *)in[3].data)[i]
                                                     : ((const int32_t *)in[3].data)[i];
            axes[i] = axes[i] < 0 ? axes[i] + r : axes[i];
        }
    } else {
        for (int i = 0; i < r; i++) {
            axes[i] = i;
        }
    }
    if (na > r || n != 2 * na) {
        return false;
    }
    for (int d = 0; d < r; d++) {
        pb[d] = pe[d] = 0;
    }
    const int64_t *p = in[1].data;
    for (int64_t i = 0; i < na; i++) {
        if (axes[i] < 0 || axes[i] >= r) {
            return false;
        }
        pb[axes[i]] = p[i];
        pe[axes[i]] = p[na + i];
    }
    for (int d = 0; d < r; d++) {
        if (x->dims[d] + pb[d] + pe[d] != y->dims[d]) {
            return false;
        }
    }
    return true;
}

static void fill(float *p, int64_t n, float v)
{
    for (int64_t i = 0; i < n; i++) {
        p[i] = v;
    }
}

void em_pad_f32__avx2(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const pad_state *st = state;
    const em_tensor *x = &in[0];
    int r = x->rank;
    int64_t pb[EM_MAX_RANK], pe[EM_MAX_RANK], c[EM_MAX_RANK] = {0};
    (void)ctx;
    float *y = out[0].data;
    int64_t ny = em_tensor_numel(&out[0]);
    if (!pad_amounts(in, st->n_in, &out[0], pb, pe)) {
        memset(y, 0, sizeof *y * (size_t)ny);
        return;
    }
    const em_tensor *k = st->n_in > 2 ? &in[2] : NULL;
    float cv = k != NULL && k->dtype == EMBER_DTYPE_F32 && em_tensor_numel(k) == 1
                   ? *(const float *)k->data
                   : 0.0f;
    int64_t w = out[0].dims[r - 1], xw = x->dims[r - 1], b = pb[r - 1];
    /* the copied span of each row: output columns [lo, hi) from input column lo - b */
    int64_t lo = b > 0 ? b : 0, hi = b + xw < w ? b + xw : w;
    hi = hi > lo ? hi : lo;
    int64_t rows = w > 0 ? ny / w : 0, xs[EM_MAX_RANK];
    xs[r - 1] = 1;
    for (int d = r - 2; d >= 0; d--) {
        xs[d] = xs[d + 1] * x->dims[d + 1];
    }
    const float *xd = x->data;
    for (int64_t row = 0; row < rows; row++, y += w) {
        int64_t off = 0;
        bool pad = false;
        for (int d = 0; d < r - 1 && !pad; d++) {
            int64_t s = c[d] - pb[d];
            pad = s < 0 || s >= x->dims[d];
            off += s * xs[d];
        }
        if (pad || hi == lo) {
            fill(y, w, cv);
        } else {
            fill(y, lo, cv);
            memcpy(y + lo, xd + off + (lo - b), sizeof *y * (size_t)(hi - lo));
            fill(y + hi, w - hi, cv);
        }
        for (int d = r - 2; d >= 0; d--) { /* next row's coordinates */
            if (++c[d] < out[0].dims[d]) {
                break;
            }
            c[d] = 0;
        }
    }
}
