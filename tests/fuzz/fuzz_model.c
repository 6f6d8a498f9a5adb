/* SPDX-License-Identifier: Apache-2.0 */
/* The run half of the whole-model fuzz targets: see fuzz_model.h. */
#include "fuzz_model.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* EMBER_FUZZ_VERBOSE=1 prints how far each input got (load, session, run) and why it
 * stopped: to see what a corpus reaches, e.g. ./fuzz_ts_model -runs=0 DIR. */
static void say(const char *stage, const ember_status *st)
{
    static int verbose = -1;
    if (verbose < 0) {
        verbose = getenv("EMBER_FUZZ_VERBOSE") != NULL;
    }
    if (verbose) {
        fprintf(stderr, "fuzz: %s: %s\n", stage, ember_status_message(st));
    }
}

void fuzz_check(int ok)
{
    if (!ok) {
        abort();
    }
}

/* ---- a bounded allocator ---------------------------------------------------------------
 * Each block carries a header (its size, and for aligned blocks the malloc'ed base) so that
 * free knows what it gives back. */

typedef struct bounded {
    atomic_size_t live;  /* bytes handed out and not freed */
    atomic_long blocks;  /* blocks handed out and not freed */
} bounded;

typedef struct hdr {
    size_t size;
    void *base;
    size_t pad[6]; /* 64 bytes: keeps malloc's alignment for the caller's block */
} hdr;

static int take(bounded *b, size_t n)
{
    if (n > FUZZ_ALLOC_ONE) {
        return 0;
    }
    size_t now = atomic_fetch_add(&b->live, n) + n;
    if (now > FUZZ_ALLOC_LIVE) {
        atomic_fetch_sub(&b->live, n);
        return 0;
    }
    atomic_fetch_add(&b->blocks, 1);
    return 1;
}

static void give(bounded *b, size_t n)
{
    atomic_fetch_sub(&b->live, n);
    atomic_fetch_sub(&b->blocks, 1);
}

static void *b_alloc(void *ctx, size_t n)
{
    if (!take(ctx, n)) {
        return NULL;
    }
    hdr *h = malloc(sizeof *h + n);
    if (h == NULL) {
        give(ctx, n);
        return NULL;
    }
    h->size = n;
    h->base = h;
    return h + 1;
}

static void b_free(void *ctx, void *p)
{
    if (p != NULL) {
        hdr *h = (hdr *)p - 1;
        give(ctx, h->size);
        free(h->base);
    }
}

static void *b_realloc(void *ctx, void *p, size_t n)
{
    if (p == NULL) {
        return b_alloc(ctx, n);
    }
    hdr *h = (hdr *)p - 1;
    void *q = b_alloc(ctx, n);
    if (q != NULL) {
        memcpy(q, p, h->size < n ? h->size : n);
        b_free(ctx, p);
    }
    return q;
}

static void *b_aligned_alloc(void *ctx, size_t align, size_t n)
{
    if (align < sizeof(hdr) || (align & (align - 1)) != 0 || n > FUZZ_ALLOC_ONE ||
        !take(ctx, n)) {
        return NULL;
    }
    unsigned char *base = malloc(n + align + sizeof(hdr));
    if (base == NULL) {
        give(ctx, n);
        return NULL;
    }
    uintptr_t a = ((uintptr_t)(base + sizeof(hdr)) + align - 1) & ~(uintptr_t)(align - 1);
    hdr *h = (hdr *)a - 1;
    h->size = n;
    h->base = base;
    return (void *)a;
}

/* ---- inputs ----------------------------------------------------------------------------- */

/* Fills t with small values of its dtype: floats in [-0.75, 0.75], integers 0..2 (valid as
 * indices into most axes), alternating booleans; other dtypes stay zero. */
static void fill(ember_tensor *t)
{
    int64_t n = ember_tensor_elem_count(t);
    void *d = ember_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        switch (ember_tensor_dtype(t)) {
        case EMBER_DTYPE_F32: ((float *)d)[i] = (float)(i % 7 - 3) * 0.25f; break;
        case EMBER_DTYPE_F64: ((double *)d)[i] = (double)(i % 5 - 2) * 0.375; break;
        case EMBER_DTYPE_I64: ((int64_t *)d)[i] = i % 3; break;
        case EMBER_DTYPE_I32: ((int32_t *)d)[i] = (int32_t)(i % 3); break;
        case EMBER_DTYPE_I8:
        case EMBER_DTYPE_U8: ((uint8_t *)d)[i] = (uint8_t)(i % 3); break;
        case EMBER_DTYPE_BOOL: ((uint8_t *)d)[i] = (uint8_t)(i & 1); break;
        case EMBER_DTYPE_F16: ((uint16_t *)d)[i] = (i & 1) ? 0x3c00 : 0xb800; break;
        case EMBER_DTYPE_BF16: ((uint16_t *)d)[i] = (i & 1) ? 0x3f80 : 0xbf00; break;
        default: return;
        }
    }
}

/* Makes input i of m, its free dims from `hint` (may be NULL) or 2, a free first dim 1 on
 * the second pass; NULL (and *skip set) when the declared shape is too large to run here. */
static ember_tensor *make_input(const ember_model *m, size_t i, const fuzz_rank *hint,
                                int pass, int *skip)
{
    ember_dtype dt = ember_model_input_dtype(m, i);
    ember_tensor *t = NULL;
    ember_status *st = NULL;
    switch (ember_model_input_type(m, i)) {
    case EMBER_TYPE_SEQUENCE:
        st = ember_sequence_create(dt, NULL, 0, &t);
        break;
    case EMBER_TYPE_OPTIONAL:
    case EMBER_TYPE_OPTIONAL_SEQUENCE:
        st = ember_optional_none_create(dt, &t);
        break;
    case EMBER_TYPE_TENSOR: {
        int64_t dims[EMBER_MAX_RANK];
        int rank = ember_model_input_shape(m, i, dims, EMBER_MAX_RANK);
        if (rank < 0) {
            rank = 2; /* unknown rank: a matrix */
            dims[0] = dims[1] = -1;
        }
        fuzz_check(rank <= EMBER_MAX_RANK);
        int64_t elems = 1;
        for (int d = 0; d < rank; d++) {
            if (dims[d] < 0) {
                dims[d] = hint != NULL && hint->rank == rank && hint->dims[d] > 0 ? hint->dims[d] : 2;
                dims[d] = d == 0 && pass == 1 ? 1 : dims[d];
            }
            if (dims[d] > FUZZ_MAX_ELEMS || (elems *= dims[d]) > FUZZ_MAX_ELEMS) {
                *skip = 1;
                return NULL;
            }
        }
        st = ember_tensor_create(dt, dims, rank, &t);
        if (st == NULL) {
            fill(t);
        }
        break;
    }
    }
    if (st != NULL) { /* a dtype no tensor can have (UNDEFINED): not runnable */
        fuzz_check(t == NULL);
        ember_status_destroy(st);
        *skip = 1;
    }
    return t;
}

static void run_once(const ember_model *m, ember_session *s, const fuzz_rank *ranks,
                     int n_ranks, int pass)
{
    size_t n_in = ember_model_input_count(m), n_out = ember_model_output_count(m);
    ember_tensor **in = calloc(n_in + 1, sizeof *in), **out = calloc(n_out + 1, sizeof *out);
    fuzz_check(in != NULL && out != NULL);
    int skip = 0;
    for (size_t i = 0; i < n_in && !skip; i++) {
        in[i] = make_input(m, i, (int)i < n_ranks ? &ranks[i] : NULL, pass, &skip);
    }
    if (skip) {
        say("run skipped (input too large or not creatable)", NULL);
    } else {
        ember_status *st = ember_session_run(s, in, n_in, out, n_out);
        say("run", st);
        fuzz_check(ember_status_message(st) != NULL);
        for (size_t o = 0; o < n_out; o++) {
            fuzz_check((st == NULL) == (out[o] != NULL));
            if (out[o] != NULL && ember_tensor_kind(out[o]) == EMBER_VALUE_TENSOR &&
                ember_tensor_dtype(out[o]) != EMBER_DTYPE_STRING) {
                /* ASan checks that the bytes the tensor claims are there. */
                const volatile unsigned char *b = ember_tensor_data(out[o]);
                size_t nb = ember_tensor_nbytes(out[o]);
                if (nb > 0) {
                    (void)b[0];
                    (void)b[nb - 1];
                }
            }
        }
        ember_status_destroy(st);
    }
    for (size_t i = 0; i < n_in; i++) {
        ember_tensor_destroy(in[i]);
    }
    for (size_t o = 0; o < n_out; o++) {
        ember_tensor_destroy(out[o]);
    }
    free(in);
    free(out);
}

void fuzz_model_run(const uint8_t *data, size_t size, const fuzz_rank *ranks, int n_ranks)
{
    static bounded b; /* live counts return to zero after each input */
    ember_allocator al = {&b, b_alloc, b_realloc, b_free, b_aligned_alloc, b_free};
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    fuzz_check(ember_model_options_create(&mo) == NULL);
    ember_model_options_set_allocator(mo, &al);
    for (int i = 0; i < n_ranks; i++) {
        ember_status_destroy(ember_model_options_set_input_rank(mo, (size_t)i, ranks[i].dtype,
                                                                ranks[i].rank));
    }
    ember_status *st = ember_model_load_memory(data, size, EMBER_LOAD_BORROW, mo, &m);
    ember_model_options_destroy(mo);
    say("load", st);
    fuzz_check(ember_status_message(st) != NULL && (st == NULL) == (m != NULL));
    ember_status_destroy(st);
    if (m == NULL) {
        fuzz_check(atomic_load(&b.blocks) == 0);
        return;
    }
    char *text = NULL;
    st = ember_model_graph_text(m, &text);
    fuzz_check((st == NULL) == (text != NULL));
    ember_status_destroy(st);
    ember_string_free(text);

    ember_session_options *so = NULL;
    ember_session *s = NULL;
    fuzz_check(ember_session_options_create(&so) == NULL);
    ember_session_options_set_threads(so, 1);
    ember_session_options_set_plan_cache(so, 2);
    st = ember_session_create(m, so, &s);
    ember_session_options_destroy(so);
    say("session", st);
    fuzz_check(ember_status_message(st) != NULL && (st == NULL) == (s != NULL));
    ember_status_destroy(st);
    if (s != NULL) {
        run_once(m, s, ranks, n_ranks, 0);
        run_once(m, s, ranks, n_ranks, 1);
        ember_session_destroy(s);
    }
    ember_model_destroy(m);
    fuzz_check(atomic_load(&b.blocks) == 0 && atomic_load(&b.live) == 0);
}
