/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MaxUnpool (ONNX MaxUnpool-11/22): X [N, C, D1..Dk] and I (int64, X's shape: MaxPool's Indices)
 * -> Y, zero but where X's elements land. I holds flat offsets into the inferred shape
 * [N, C, (in - 1) * stride + kernel - pad_begin - pad_end ...] (kernel_shape, strides, pads).
 * Y's shape is the output_shape input when given, else the inferred shape; the inferred block
 * sits at Y's origin (ONNX's reference: Y[:inferred] = unpooled), so an element lands at the
 * same coordinates in Y. Any dtype (elements are copied as bytes); an index outside the inferred
 * shape, or landing outside a smaller Y, is skipped (prepare rejects the first when I is
 * constant); later writes win on repeats.
 */
#include "ref.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct em_maxunpool_attrs {
    size_t esize;
    int rank;
    int64_t n_x, n_inf, n_y;
    int64_t inf[EM_MAX_RANK], out[EM_MAX_RANK];
} em_maxunpool_attrs;

/* The default output shape from kernel_shape, strides and pads. */
static ember_status *unpool_default(const em_kinfo *ki, const em_tensor *x, int64_t *yd)
{
    ember_status *st = NULL;
    int n = x->rank - 2;
    int64_t k[EM_MAX_RANK], s[EM_MAX_RANK], p[2 * EM_MAX_RANK];
    bool has_k;
    EMBER_TRY(em_ref_attr_ints(ki, "kernel_shape", n, 1, k, &has_k));
    EMBER_TRY(em_ref_attr_ints(ki, "strides", n, 1, s, NULL));
    EMBER_TRY(em_ref_attr_ints(ki, "pads", 2 * n, 0, p, NULL));
    if (!has_k) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'kernel_shape' is missing");
    }
    yd[0] = x->dims[0];
    yd[1] = x->dims[1];
    for (int d = 0; d < n; d++) {
        const int64_t big = (int64_t)1 << 31;
        if (k[d] < 1 || s[d] < 1 || p[d] < 0 || p[n + d] < 0 || k[d] > big || s[d] > big ||
            p[d] > big || p[n + d] > big || x->dims[2 + d] > big) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "kernel_shape, strides or pads out of range on spatial axis %d", d);
        }
        yd[2 + d] = (x->dims[2 + d] - 1) * s[d] + k[d] - p[d] - p[n + d];
    }
    return NULL;
fail:
    return st;
}

ember_status *em_maxunpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_maxunpool_attrs a;
    int64_t yd[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0], *ix = &ki->in[1], *y = &ki->out[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, ix, EMBER_DTYPE_I64, "input 1 (I)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_nc_spatial(ki, x, NULL));
    EMBER_TRY(em_ref_check_shape(ki, ix, x->dims, x->rank, "input 1 (I)"));
    EMBER_TRY(unpool_default(ki, x, yd)); /* validates the attributes in every case */
    memcpy(a.inf, yd, sizeof a.inf);
    if (em_ref_has_input(ki, 2)) {
        const em_tensor *os = &ki->in[2];
        int64_t r = x->rank;
        EMBER_TRY(em_ref_check_tensor(ki, os, EMBER_DTYPE_I64, "input 2 (output_shape)"));
        EMBER_TRY(em_ref_check_shape(ki, os, &r, 1, "input 2 (output_shape)"));
        memcpy(yd, y->dims, sizeof yd);
        if (os->data != NULL) {
            memcpy(yd, os->data, sizeof(int64_t) * (size_t)r);
        }
    }
    EMBER_TRY(em_ref_check_shape(ki, y, yd, x->rank, "output 0 (Y)"));
    a.esize = em_dtype_size(x->dtype);
    a.rank = x->rank;
    a.n_x = em_tensor_numel(x);
    a.n_y = em_tensor_numel(y);
    memcpy(a.out, y->dims, sizeof a.out);
    if (!em_shape_numel_checked(a.inf, a.rank, &a.n_inf)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the unpooled shape is invalid");
    }
    for (int64_t i = 0; ix->data != NULL && i < a.n_x; i++) {
        int64_t v = ((const int64_t *)ix->data)[i];
        if (v < 0 || v >= a.n_inf) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "I[%lld] = %lld is outside the unpooled %lld elements",
                                (long long)i, (long long)v, (long long)a.n_inf);
        }
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_maxunpool__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_maxunpool_attrs *a = state;
    const int64_t *ix = in[1].data;
    const char *x = in[0].data;
    char *y = out[0].data;
    (void)ctx;
    if (a->n_y > 0) {
        memset(y, 0, (size_t)a->n_y * a->esize);
    }
    for (int64_t i = 0; i < a->n_x; i++) {
        int64_t v = ix[i], off = 0, stride = 1;
        if (v < 0 || v >= a->n_inf) {
            continue;
        }
        for (int d = a->rank - 1; d >= 0 && off >= 0; d--) { /* inferred -> Y coordinates */
            int64_t c = v % a->inf[d];
            v /= a->inf[d];
            off = c < a->out[d] ? off + c * stride : -1;
            stride *= a->out[d];
        }
        if (off >= 0) {
            em_tref_copy1(a->esize, y + (size_t)off * a->esize, x + (size_t)i * a->esize);
        }
    }
}
