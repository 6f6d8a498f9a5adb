/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unique-11, any dtype. X is viewed as n slices (along `axis`, or its n elements without one);
 * em_dyn_unique_sort orders them stably, so each run of equal slices starts with the first
 * occurrence. Groups are numbered in sorted order; sorted = 0 renumbers them by first
 * occurrence. Outputs: Y (the distinct slices), indices (first occurrence of each), inverse
 * (the group of every slice), counts. The number of groups U comes from the planned shape.
 *
 * Scratch (6 n int64): perm, tmp (then the sorted group of every slice), group (in sorted
 * position), first, count, pos (output position of each sorted group).
 */
#include "ref.h"

#include "core/alloc.h"

#include <string.h>

typedef struct unique_state {
    int64_t outer, n, inner; /* X as [outer, n, inner] (without an axis: [1, numel, 1]) */
    int64_t u;               /* planned number of distinct slices */
    ember_dtype dtype;
    int n_out;
    size_t esize;
    bool sorted;
} unique_state;

/* The expected shapes of the outputs for `u` groups. */
static ember_status *unique_check_outputs(const em_kinfo *ki, int axis, int64_t u, int64_t n)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    static const char *const what[4] = {"output 0 (Y)", "output 1 (indices)",
                                        "output 2 (inverse_indices)", "output 3 (counts)"};
    int64_t dims[EM_MAX_RANK];
    int rank = 1;
    dims[0] = u;
    if (axis >= 0) {
        memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
        dims[axis] = u;
        rank = x->rank;
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, what[0]));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, rank, what[0]));
    for (int o = 1; o < ki->n_out; o++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[o], EMBER_DTYPE_I64, what[o]));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[o], o == 2 ? &n : &u, 1, what[o]));
    }
    return NULL;
fail:
    return st;
}

static ember_status *unique_sorted(const em_kinfo *ki, bool *sorted)
{
    int64_t srt;
    ember_status *st = em_ref_attr_int(ki, "sorted", 1, &srt);
    if (st == NULL && srt != 0 && srt != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'sorted' is %lld, expected 0 or 1", (long long)srt);
    }
    *sorted = srt != 0;
    return st;
}

ember_status *em_unique_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    unique_state s = {1, 0, 1, 0, x->dtype, ki->n_out, 0, true};
    int axis;
    size_t bytes;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 4));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(unique_sorted(ki, &s.sorted));
    EMBER_TRY(em_dyn_axis_view(ki, &axis, &s.outer, &s.n, &s.inner));
    s.esize = em_dtype_size(x->dtype);
    s.u = y->rank == (axis >= 0 ? x->rank : 1) ? y->dims[axis >= 0 ? axis : 0] : -1;
    if (x->data != NULL && s.n > 0) {
        /* A constant X: the count must be the planned one (the shape function's). */
        int64_t *perm = em_malloc(ki->al, sizeof(int64_t) * 2 * (size_t)s.n);
        if (perm == NULL) {
            return em_status_oom();
        }
        s.u = em_dyn_unique_sort(x->dtype, x->data, s.outer, s.n, s.inner, perm, perm + s.n, NULL);
        em_free(ki->al, perm);
    } else if (x->data != NULL) {
        s.u = 0;
    }
    EMBER_TRY(unique_check_outputs(ki, axis, s.u, s.n));
    if (!em_size_mul((size_t)s.n, 6 * sizeof(int64_t), &bytes)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 (X) is too large");
    }
    *scratch_bytes = bytes;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

/* Groups the slices: gof[i] = sorted group of slice i, first/count per sorted group, and
 * pos[g] = the output position of sorted group g. Returns the number of groups. */
static int64_t unique_groups(const unique_state *s, const void *x, int64_t *sc)
{
    int64_t n = s->n;
    int64_t *perm = sc, *gof = sc + n, *group = sc + 2 * n, *first = sc + 3 * n;
    int64_t *count = sc + 4 * n, *pos = sc + 5 * n;
    int64_t u = em_dyn_unique_sort(s->dtype, x, s->outer, n, s->inner, perm, gof, group);
    for (int64_t k = 0; k < n; k++) {
        int64_t g = group[k];
        if (k == 0 || group[k - 1] != g) {
            first[g] = perm[k]; /* the sort is stable: the run starts at the first occurrence */
            count[g] = 0;
        }
        count[g]++;
        gof[perm[k]] = g;
    }
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t g = gof[i];
        if (s->sorted) {
            pos[g] = g;
        } else if (first[g] == i) {
            pos[g] = next++;
        }
    }
    return u;
}

void em_unique__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const unique_state *s = state;
    for (int o = 0; o < s->n_out; o++) {
        size_t bytes = em_tensor_nbytes(&out[o]);
        if (bytes > 0) {
            memset(out[o].data, 0, bytes); /* what a disagreeing run-time U leaves unset */
        }
    }
    if (s->n == 0) {
        return;
    }
    const int64_t n = s->n, *sc = ctx->scratch;
    const int64_t u = unique_groups(s, in[0].data, ctx->scratch);
    const int64_t *gof = sc + n, *first = sc + 3 * n, *count = sc + 4 * n, *pos = sc + 5 * n;
    const unsigned char *x = in[0].data;
    unsigned char *y = out[0].data;
    size_t slice = s->esize * (size_t)s->inner;
    for (int64_t g = 0; g < u; g++) {
        int64_t p = pos[g];
        if (p >= s->u) {
            continue;
        }
        for (int64_t o = 0; o < s->outer && slice > 0; o++) {
            memcpy(y + (size_t)(o * s->u + p) * slice, x + (size_t)(o * n + first[g]) * slice,
                   slice);
        }
        if (s->n_out > 1) {
            ((int64_t *)out[1].data)[p] = first[g];
        }
        if (s->n_out > 3) {
            ((int64_t *)out[3].data)[p] = count[g];
        }
    }
    for (int64_t i = 0; s->n_out > 2 && i < n; i++) {
        ((int64_t *)out[2].data)[i] = pos[gof[i]] < s->u ? pos[gof[i]] : 0;
    }
}
