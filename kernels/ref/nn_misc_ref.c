/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Col2Im-18 and CenterCropPad-18.
 *
 * Col2Im (PyTorch's fold): input [N, C * prod(block_shape), L] -> Y [N, C, image_shape...]. Column
 * c * K + t (t a block offset, row-major over block_shape) of block position l (row-major over
 * the L_d = (image_d + pads - dilated block_d) / stride_d + 1 positions per axis) adds into pixel
 * l_d * stride_d - pad_begin_d + t_d * dilation_d. Computed as a gather, each pixel one sum in
 * double. block_shape must be known in prepare (a value input: the planner makes it constant).
 *
 * CenterCropPad: each axis is cropped to, or zero-padded to, Y's size around the centre: the
 * input starts at floor((in - out) / 2) when cropping and sits at floor((out - in) / 2) when
 * padding (ONNX's reference). Y's shape carries the `shape` input, so run never reads it. Any
 * dtype.
 */
#include "ref.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Col2Im -------------------------------------------------------------------------------- */

typedef struct em_col2im_attrs {
    int n_sp;
    ember_dtype dt;
    int64_t n, c, k_plane, l_total, img_plane;
    int64_t img[EM_MAX_RANK], blk[EM_MAX_RANK], blocks[EM_MAX_RANK];
    int64_t s[EM_MAX_RANK], d[EM_MAX_RANK], pb[EM_MAX_RANK];
} em_col2im_attrs;

/* strides, dilations, pads and the block counts per axis. */
static ember_status *col2im_geometry(const em_kinfo *ki, em_col2im_attrs *a)
{
    ember_status *st = NULL;
    int64_t pads[2 * EM_MAX_RANK];
    const int64_t big = (int64_t)1 << 31;
    EMBER_TRY(em_ref_attr_ints(ki, "strides", a->n_sp, 1, a->s, NULL));
    EMBER_TRY(em_ref_attr_ints(ki, "dilations", a->n_sp, 1, a->d, NULL));
    EMBER_TRY(em_ref_attr_ints(ki, "pads", 2 * a->n_sp, 0, pads, NULL));
    int64_t l_total = 1;
    for (int i = 0; i < a->n_sp; i++) {
        a->pb[i] = pads[i];
        if (a->s[i] < 1 || a->d[i] < 1 || pads[i] < 0 || pads[a->n_sp + i] < 0 || a->s[i] > big ||
            a->d[i] > big || pads[i] > big || pads[a->n_sp + i] > big || a->blk[i] < 1 ||
            a->blk[i] > big || a->img[i] > big) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "strides, dilations, pads or block_shape out of range on axis %d",
                                i);
        }
        int64_t span = a->img[i] + pads[i] + pads[a->n_sp + i] - (a->blk[i] - 1) * a->d[i] - 1;
        a->blocks[i] = span < 0 ? 0 : span / a->s[i] + 1;
        l_total *= a->blocks[i];
    }
    if (l_total != a->l_total) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "the input has %lld block positions, the shapes give %lld",
                            (long long)a->l_total, (long long)l_total);
    }
    return NULL;
fail:
    return st;
}

ember_status *em_col2im_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_col2im_attrs a;
    const em_tensor *x = &ki->in[0], *img = &ki->in[1], *blk = &ki->in[2], *y = &ki->out[0];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (input)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS | EM_NN_INTS, "input 0 (input)"));
    EMBER_TRY(em_ref_check_tensor(ki, img, EMBER_DTYPE_I64, "input 1 (image_shape)"));
    EMBER_TRY(em_ref_check_tensor(ki, blk, EMBER_DTYPE_I64, "input 2 (block_shape)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (Y)"));
    if (x->rank != 3 || img->rank != 1 || blk->rank != 1 || img->dims[0] != blk->dims[0] ||
        img->dims[0] < 1 || y->rank != img->dims[0] + 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input must be [N, C * K, L], image_shape and block_shape one int64 "
                            "per axis of Y [N, C, ...]");
    }
    if (blk->data == NULL) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "block_shape must be known when planning");
    }
    a.n_sp = y->rank - 2;
    a.dt = x->dtype;
    memcpy(a.blk, blk->data, sizeof(int64_t) * (size_t)a.n_sp);
    memcpy(a.img, y->dims + 2, sizeof(int64_t) * (size_t)a.n_sp);
    for (int i = 0; img->data != NULL && i < a.n_sp; i++) {
        if (((const int64_t *)img->data)[i] != a.img[i]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "Y's shape differs from image_shape");
        }
    }
    a.n = x->dims[0];
    a.c = y->dims[1];
    a.l_total = x->dims[2];
    a.img_plane = em_ref_prod(a.img, a.n_sp);
    if (!em_shape_numel_checked(a.blk, a.n_sp, &a.k_plane) || y->dims[0] != a.n ||
        a.c * a.k_plane != x->dims[1]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input channels must be Y's channels times prod(block_shape)");
    }
    EMBER_TRY(col2im_geometry(ki, &a));
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct col2im_job {
    const em_col2im_attrs *a;
    const void *x;
    void *y;
} col2im_job;

/* The block position (row-major) whose tap t covers pixel p, or -1. */
static int64_t col2im_block(const em_col2im_attrs *a, const int64_t *p, const int64_t *t)
{
    int64_t l = 0;
    for (int d = 0; d < a->n_sp; d++) {
        int64_t num = p[d] + a->pb[d] - t[d] * a->d[d];
        if (num < 0 || num % a->s[d] != 0 || num / a->s[d] >= a->blocks[d]) {
            return -1;
        }
        l = l * a->blocks[d] + num / a->s[d];
    }
    return l;
}

static void col2im_task(void *arg, int64_t begin, int64_t end)
{
    const col2im_job *j = arg;
    const em_col2im_attrs *a = j->a;
    for (int64_t nc = begin; nc < end; nc++) {
        int64_t p[EM_MAX_RANK] = {0}, t[EM_MAX_RANK];
        const int64_t x0 = nc * a->k_plane * a->l_total; /* (n * C + c) * K rows of L */
        for (int64_t i = 0; i < a->img_plane; i++) {
            double acc = 0.0;
            memset(t, 0, sizeof t);
            for (int64_t ti = 0; ti < a->k_plane; ti++) {
                int64_t l = col2im_block(a, p, t);
                if (l >= 0) {
                    acc += em_nn_get(a->dt, j->x, x0 + ti * a->l_total + l);
                }
                em_ref_coord_next(t, a->blk, a->n_sp);
            }
            em_nn_set(a->dt, j->y, nc * a->img_plane + i, acc);
            em_ref_coord_next(p, a->img, a->n_sp);
        }
    }
}

void em_col2im__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_col2im_attrs *a = state;
    col2im_job j = {a, in[0].data, out[0].data};
    if (a->img_plane > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n * a->c, 1, col2im_task, &j);
    }
}

/* ---- CenterCropPad ------------------------------------------------------------------------- */

typedef struct em_ccp_attrs {
    int rank;
    size_t esize;
    int64_t numel;
    int64_t in[EM_MAX_RANK], out[EM_MAX_RANK], off[EM_MAX_RANK], stride[EM_MAX_RANK];
} em_ccp_attrs;

ember_status *em_centercroppad_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_ccp_attrs a;
    const em_tensor *x = &ki->in[0], *sh = &ki->in[1], *y = &ki->out[0];
    const em_attr *axes = ki->node != NULL ? em_node_attr(ki->node, "axes") : NULL;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (input_data)"));
    EMBER_TRY(em_ref_check_tensor(ki, sh, EMBER_DTYPE_UNDEFINED, "input 1 (shape)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (output_data)"));
    int64_t n_axes = axes != NULL ? axes->n : x->rank;
    if ((sh->dtype != EMBER_DTYPE_I64 && sh->dtype != EMBER_DTYPE_I32) || sh->rank != 1 ||
        sh->dims[0] != n_axes || y->rank != x->rank ||
        (axes != NULL && axes->type != EM_ATTR_INTS)) {
        return em_ref_error(
            ki, EMBER_ERR_INVALID_MODEL,
            "shape must be a 1-D int tensor with one entry per axis, and the output "
            "of X's rank");
    }
    unsigned listed = axes == NULL ? ~0u : 0u;
    for (int64_t i = 0; axes != NULL && i < axes->n; i++) {
        int64_t v = axes->ints[i];
        if (v < -x->rank || v >= x->rank) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axes[%lld] = %lld is out of range",
                                (long long)i, (long long)v);
        }
        listed |= 1u << (v < 0 ? v + x->rank : v);
    }
    a.rank = x->rank;
    a.esize = em_dtype_size(x->dtype);
    a.numel = em_tensor_numel(y);
    for (int d = a.rank - 1; d >= 0; d--) {
        a.in[d] = x->dims[d];
        a.out[d] = y->dims[d];
        a.stride[d] = d == a.rank - 1 ? 1 : a.stride[d + 1] * a.in[d + 1];
        a.off[d] = a.in[d] >= a.out[d] ? (a.in[d] - a.out[d]) / 2 : -((a.out[d] - a.in[d]) / 2);
        if (!(listed & (1u << d)) && a.in[d] != a.out[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output dim %d differs from the input's on an axis not listed", d);
        }
    }
    for (int64_t i = 0; sh->data != NULL && i < n_axes; i++) {
        int64_t v = em_tref_index(sh, i), ax = axes != NULL ? axes->ints[i] : i;
        if (v != a.out[ax < 0 ? ax + a.rank : ax]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "the output's shape differs from shape");
        }
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_centercroppad__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const em_ccp_attrs *a = state;
    const char *x = in[0].data;
    char *y = out[0].data;
    int64_t o[EM_MAX_RANK] = {0};
    (void)ctx;
    for (int64_t i = 0; i < a->numel; i++) {
        int64_t src = 0;
        for (int d = 0; d < a->rank && src >= 0; d++) {
            int64_t c = o[d] + a->off[d];
            src = c >= 0 && c < a->in[d] ? src + c * a->stride[d] : -1;
        }
        if (src >= 0) {
            em_tref_copy1(a->esize, y + (size_t)i * a->esize, x + (size_t)src * a->esize);
        } else {
            memset(y + (size_t)i * a->esize, 0, a->esize);
        }
        em_ref_coord_next(o, a->out, a->rank);
    }
}
