/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NonZero-13 and Compress-11, any dtype. NonZero: Y [rank, nnz] int64, column k the coordinate
 * of the k-th nonzero element in row-major order (a 0-D input reads as 1-D of one element).
 * Compress: the slices along `axis` (elements of the flattened input without an axis) whose
 * condition entry is true, in order; entries past either end are ignored. The count (nnz, or
 * the number of true entries) comes from the planned output shape (dyn_ref.h).
 */
#include "ref.h"

#include <string.h>

/* ---- The optional axis of Compress and Unique ------------------------------------------- */

ember_status *em_dyn_axis_view(const em_kinfo *ki, int *axis, int64_t *outer, int64_t *len,
                               int64_t *inner)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    const em_attr *aa = ki->node != NULL ? em_node_attr(ki->node, "axis") : NULL;
    *axis = -1;
    *outer = 1;
    *len = em_tensor_numel(x);
    *inner = 1;
    if (aa == NULL) {
        return NULL;
    }
    if (aa->type != EM_ATTR_INT) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'axis' is not an int");
    }
    EMBER_TRY(em_tref_axis(ki, aa->i, x->rank, axis));
    *outer = em_ref_prod(x->dims, *axis);
    *len = x->dims[*axis];
    *inner = em_ref_prod(x->dims + *axis + 1, x->rank - *axis - 1);
    return NULL;
fail:
    return st;
}

/* ---- NonZero ------------------------------------------------------------------------------ */

ember_status *em_nonzero_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_I64, "output 0 (Y)"));
    int64_t dims[2] = {x->rank > 0 ? x->rank : 1, y->rank == 2 ? y->dims[1] : 0};
    EMBER_TRY(em_ref_check_shape(ki, y, dims, 2, "output 0 (Y)"));
    if (x->data != NULL) {
        int64_t count = 0, numel = em_tensor_numel(x);
        for (int64_t i = 0; i < numel; i++) {
            count += em_dyn_nonzero(x->dtype, x->data, i);
        }
        dims[1] = count;
        EMBER_TRY(em_ref_check_shape(ki, y, dims, 2, "output 0 (Y)"));
    }
    return NULL;
fail:
    return st;
}

void em_nonzero__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_tensor *x = &in[0];
    int64_t *y = out[0].data;
    int64_t rows = out[0].dims[0], cap = out[0].dims[1], numel = em_tensor_numel(x), k = 0;
    int64_t coord[EM_MAX_RANK] = {0};
    (void)state;
    (void)ctx;
    for (int64_t i = 0; i < numel && k < cap; i++) {
        if (em_dyn_nonzero(x->dtype, x->data, i)) {
            for (int64_t d = 0; d < rows; d++) {
                y[d * cap + k] = x->rank > 0 ? coord[d] : 0;
            }
            k++;
        }
        em_ref_coord_next(coord, x->dims, x->rank);
    }
    for (int64_t d = 0; d < rows && k < cap; d++) {
        memset(y + d * cap + k, 0, sizeof(int64_t) * (size_t)(cap - k));
    }
}

/* ---- Compress ----------------------------------------------------------------------------- */

typedef struct compress_state {
    int64_t outer, len, inner; /* input as [outer, len, inner], `len` along the axis */
    int64_t count;             /* slices kept: the output's dim along the axis */
    size_t esize;
} compress_state;

/* The output shape for `count` kept slices. */
static void compress_out_dims(const em_tensor *x, int axis, int64_t count, int64_t *dims, int *rank)
{
    if (axis < 0) {
        dims[0] = count;
        *rank = 1;
        return;
    }
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    dims[axis] = count;
    *rank = x->rank;
}

/* With the condition known in prepare: the number of kept slices, checked against the data. */
static ember_status *compress_count(const em_kinfo *ki, const compress_state *s, int64_t *count)
{
    const em_tensor *c = &ki->in[1];
    const uint8_t *cv = c->data;
    *count = 0;
    for (int64_t i = 0; i < c->dims[0]; i++) {
        if (cv[i] && i >= s->len) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "condition[%lld] is true but the input has %lld slices",
                                (long long)i, (long long)s->len);
        }
        *count += cv[i] != 0;
    }
    return NULL;
}

ember_status *em_compress_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *c = &ki->in[1], *y = &ki->out[0];
    compress_state s = {1, 0, 1, 0, 0};
    int axis = -1, rank;
    int64_t dims[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (input)"));
    EMBER_TRY(em_ref_check_tensor(ki, c, EMBER_DTYPE_BOOL, "input 1 (condition)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0"));
    if (c->rank != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "condition has rank %d, expected 1",
                            c->rank);
    }
    EMBER_TRY(em_dyn_axis_view(ki, &axis, &s.outer, &s.len, &s.inner));
    s.esize = em_dtype_size(x->dtype);
    s.count = y->rank == (axis < 0 ? 1 : x->rank) ? y->dims[axis < 0 ? 0 : axis] : 0;
    compress_out_dims(x, axis, s.count, dims, &rank);
    EMBER_TRY(em_ref_check_shape(ki, y, dims, rank, "output 0"));
    if (c->data != NULL) {
        EMBER_TRY(compress_count(ki, &s, &s.count));
        compress_out_dims(x, axis, s.count, dims, &rank);
        EMBER_TRY(em_ref_check_shape(ki, y, dims, rank, "output 0"));
    }
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_compress__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const compress_state *s = state;
    const uint8_t *cv = in[1].data;
    const unsigned char *x = in[0].data;
    unsigned char *y = out[0].data;
    int64_t n_cond = in[1].dims[0] < s->len ? in[1].dims[0] : s->len;
    size_t slice = s->esize * (size_t)s->inner;
    (void)ctx;
    if (slice == 0 || s->count == 0) {
        return; /* the output is empty */
    }
    for (int64_t o = 0; o < s->outer; o++) {
        int64_t k = 0;
        unsigned char *yo = y + (size_t)(o * s->count) * slice;
        for (int64_t i = 0; i < n_cond && k < s->count; i++) {
            if (cv[i]) {
                memcpy(yo + (size_t)k * slice, x + (size_t)(o * s->len + i) * slice, slice);
                k++;
            }
        }
        if (k < s->count) {
            memset(yo + (size_t)k * slice, 0, (size_t)(s->count - k) * slice);
        }
    }
}
