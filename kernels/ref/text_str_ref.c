/* SPDX-License-Identifier: Apache-2.0 */
/*
 * StringConcat-20, StringSplit-20, and string forms of Equal-19 and Where-16 (kernels_text.def).
 * The three broadcasting ops share one plan: per input, element strides over the output's
 * dims with 0 along broadcast axes, walked with an odometer. Where and Equal never allocate:
 * Where copies pointers, which the interpreter keeps valid (kernels_text.def).
 */
#include "ref.h"

#include "core/strtensor.h"
#include "ir/text.h"

#include <stdio.h>
#include <string.h>

typedef struct bcast {
    int rank;
    int n_in;
    int64_t dims[EM_MAX_RANK];
    int64_t strides[3][EM_MAX_RANK]; /* elements */
    int64_t numel;
} bcast;

/* numpy broadcasting of inputs first..first + n_in - 1 into output 0, whose shape and dtype
 * (out_dt) are checked. */
static ember_status *bcast_plan(const em_kinfo *ki, int first, int n_in, ember_dtype out_dt,
                                bcast *b)
{
    ember_status *st = NULL;
    memset(b, 0, sizeof *b);
    b->n_in = n_in;
    for (int i = 0; i < n_in; i++) {
        const em_tensor *t = &ki->in[first + i];
        b->rank = t->rank > b->rank ? t->rank : b->rank;
    }
    for (int d = 0; d < b->rank; d++) {
        b->dims[d] = 1;
    }
    for (int i = 0; i < n_in; i++) {
        const em_tensor *t = &ki->in[first + i];
        for (int d = 0; d < t->rank; d++) {
            int64_t v = t->dims[d], *y = &b->dims[b->rank - t->rank + d];
            if (v != *y && v != 1 && *y != 1) {
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                    "input %d does not broadcast with the others (dim %d: %lld "
                                    "vs %lld)",
                                    first + i, d, (long long)v, (long long)*y);
            }
            *y = v != 1 ? v : *y;
        }
    }
    for (int i = 0; i < n_in; i++) {
        const em_tensor *t = &ki->in[first + i];
        int64_t s = 1;
        for (int d = b->rank - 1; d >= 0; d--) {
            int td = d - (b->rank - t->rank);
            int64_t v = td >= 0 ? t->dims[td] : 1;
            b->strides[i][d] = v == 1 ? 0 : s;
            s *= v;
        }
    }
    b->numel = em_ref_prod(b->dims, b->rank);
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], out_dt, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], b->dims, b->rank, "output 0"));
    return NULL;
fail:
    return st;
}

static void bcast_offsets(const bcast *b, const int64_t *c, int64_t *off)
{
    for (int i = 0; i < b->n_in; i++) {
        off[i] = 0;
        for (int d = 0; d < b->rank; d++) {
            off[i] += c[d] * b->strides[i][d];
        }
    }
}

/* Inputs [first, first + n) must be string tensors; else "not mine" (decline) or an error. */
static ember_status *strings_in(const em_kinfo *ki, int first, int n, bool decline)
{
    for (int i = first; i < first + n; i++) {
        char what[32];
        snprintf(what, sizeof what, "input %d", i);
        if (i >= ki->n_in || ki->in[i].dtype != EMBER_DTYPE_STRING) {
            return em_ref_error(ki, decline ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL,
                                "input %d is not a string tensor", i);
        }
        ember_status *st = em_ref_check_tensor(ki, &ki->in[i], EMBER_DTYPE_STRING, what);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

/* The prepare of the three broadcasting kernels: n_in inputs, strings from input `first` on
 * (input `first` declines when it is not one: Equal's and Where's generic kernels take it),
 * output 0 of out_dt. */
static ember_status *bcast_prepare(const em_kinfo *ki, int n_in, int first, ember_dtype out_dt,
                                   void **state, size_t *scratch)
{
    ember_status *st = NULL;
    bcast b;
    *scratch = 0;
    EMBER_TRY(em_ref_check_arity(ki, n_in, n_in, 1));
    EMBER_TRY(strings_in(ki, first, 1, first > 0 || out_dt == EMBER_DTYPE_BOOL));
    EMBER_TRY(strings_in(ki, first + 1, n_in - first - 1, false));
    if (first > 0) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_BOOL, "input 0 (condition)"));
    }
    EMBER_TRY(bcast_plan(ki, 0, n_in, out_dt, &b));
    return em_ref_state_new(ki, &b, sizeof b, state);
fail:
    return st;
}

/* ---- StringConcat ---- */

ember_status *em_stringconcat_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    return bcast_prepare(ki, 2, 0, EMBER_DTYPE_STRING, state, scratch);
}

void em_stringconcat__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const bcast *b = state;
    const char **y = out[0].data;
    int64_t c[EM_MAX_RANK] = {0}, off[3];
    (void)ctx;
    for (int64_t i = 0; i < b->numel; i++) {
        bcast_offsets(b, c, off);
        const char *x0 = em_str_at(&in[0], off[0]), *x1 = em_str_at(&in[1], off[1]);
        size_t l0 = strlen(x0), l1 = strlen(x1);
        char *s = em_str_alloc(&out[0], l0 + l1);
        if (s != NULL) {
            memcpy(s, x0, l0);
            memcpy(s + l0, x1, l1);
        }
        y[i] = s != NULL ? s : "";
        em_ref_coord_next(c, b->dims, b->rank);
    }
}

/* ---- Equal and Where on strings ---- */

ember_status *em_equal_string_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    return bcast_prepare(ki, 2, 0, EMBER_DTYPE_BOOL, state, scratch);
}

void em_equal_string__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const bcast *b = state;
    uint8_t *y = out[0].data;
    int64_t c[EM_MAX_RANK] = {0}, off[3];
    (void)ctx;
    for (int64_t i = 0; i < b->numel; i++) {
        bcast_offsets(b, c, off);
        y[i] = strcmp(em_str_at(&in[0], off[0]), em_str_at(&in[1], off[1])) == 0;
        em_ref_coord_next(c, b->dims, b->rank);
    }
}

ember_status *em_where_string_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    return bcast_prepare(ki, 3, 1, EMBER_DTYPE_STRING, state, scratch);
}

void em_where_string__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const bcast *b = state;
    const uint8_t *cond = in[0].data;
    const char **y = out[0].data;
    int64_t c[EM_MAX_RANK] = {0}, off[3];
    (void)ctx;
    for (int64_t i = 0; i < b->numel; i++) {
        bcast_offsets(b, c, off);
        y[i] = cond[off[0]] ? em_str_at(&in[1], off[1]) : em_str_at(&in[2], off[2]);
        em_ref_coord_next(c, b->dims, b->rank);
    }
}

/* ---- StringSplit ---- */

typedef struct split_state {
    const char *sep; /* NULL: whitespace (the node's attribute string) */
    int64_t maxsplit; /* < 0: no limit */
    int64_t numel, cols;
} split_state;

ember_status *em_stringsplit_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    ember_status *st = NULL;
    split_state s = {0};
    *scratch = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 2));
    EMBER_TRY(strings_in(ki, 0, 1, false));
    if (ki->n_out != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "needs 2 outputs (Y and Z)");
    }
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    EMBER_TRY(em_ref_attr_string(ki, "delimiter", NULL, &s.sep));
    EMBER_TRY(em_ref_attr_int(ki, "maxsplit", -1, &s.maxsplit));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_STRING, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], EMBER_DTYPE_I64, "output 1 (Z)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], x->dims, x->rank, "output 1 (Z)"));
    if (y->rank != x->rank + 1 || memcmp(y->dims, x->dims, sizeof(int64_t) * (size_t)x->rank)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output 0 (Y) must have input 0's dims and one more");
    }
    s.numel = em_ref_prod(x->dims, x->rank);
    s.cols = y->dims[x->rank];
    *scratch = (size_t)(s.cols > 0 ? s.cols : 1) * sizeof(em_text_piece);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_stringsplit__ref(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx)
{
    const split_state *s = state;
    const char **y = out[0].data;
    int64_t *z = out[1].data;
    em_text_piece *pieces = ctx->scratch;
    for (int64_t i = 0; i < s->numel; i++) {
        int64_t k = em_text_split(em_str_at(&in[0], i), s->sep, s->maxsplit, pieces, s->cols);
        z[i] = k;
        for (int64_t j = 0; j < s->cols; j++) {
            y[i * s->cols + j] = j < k ? em_str_dup(&out[0], pieces[j].s, pieces[j].len) : "";
        }
    }
}
