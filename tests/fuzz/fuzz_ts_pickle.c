/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for loaders/torchscript/ts_pickle*.c. Input: a byte n, then n
 * little-endian u32 record sizes (the storage record "k", k < n, holds that many bytes;
 * any other key gets 64), then the pickle. Any input must give a status or a value DAG
 * without out-of-bounds access, leak or undefined behaviour, and the DAG must keep the
 * header's promises: no cycle, nesting at most EM_TS_PICKLE_MAX_DEPTH, every tensor view
 * inside its storage (its first and last elements are read, so ASan checks the bounds).
 * Seeds: tests/fuzz/corpus/fuzz_ts_pickle (tools/gen_ts_archive_fixtures.py).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loaders/torchscript/archive/ts_pickle.h"
#include "core/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

typedef struct sizes {
    size_t n;
    uint32_t bytes[255];
    unsigned char zeros[1 << 16];
} sizes;

static ember_status *record(void *ctx, const char *key, em_storage **out)
{
    sizes *s = ctx;
    char *end = NULL;
    unsigned long k = strtoul(key, &end, 10);
    size_t n = *end == '\0' && end != key && k < s->n ? s->bytes[k] : 64;
    if (n > sizeof s->zeros) {
        n = sizeof s->zeros;
    }
    return em_storage_new_borrowed(NULL, s->zeros, n, out);
}

static void check_tensor(const em_tsv_tensor *t)
{
    check(t->rank >= 0 && t->rank <= EMBER_MAX_RANK && t->offset >= 0);
    int64_t last = t->offset, numel = 1;
    for (int i = 0; i < t->rank; i++) {
        check(t->sizes[i] >= 0 && t->strides[i] >= 0);
        numel *= t->sizes[i] > 0 ? 1 : 0;
        last += t->sizes[i] > 0 ? (t->sizes[i] - 1) * t->strides[i] : 0;
    }
    if (numel == 0) {
        check(t->offset <= t->storage_numel);
        return;
    }
    size_t es = em_dtype_size(t->dtype);
    check(t->storage != NULL && last < t->storage_numel);
    check(em_storage_size(t->storage) == (size_t)t->storage_numel * es);
    const volatile unsigned char *b = em_storage_data(t->storage);
    (void)b[t->offset * (int64_t)es];
    (void)b[last * (int64_t)es + (int64_t)es - 1];
}

/* Depth-bounded walk; `budget` caps the visits (a DAG can share a child many times). */
static void walk(const em_tsv *v, int depth, long *budget)
{
    check(v != NULL && depth <= EM_TS_PICKLE_MAX_DEPTH + 1);
    if (--*budget < 0) {
        return;
    }
    switch (v->kind) {
    case EM_TSV_TUPLE: case EM_TSV_LIST:
        for (size_t i = 0; i < v->u.seq.n; i++) {
            walk(v->u.seq.items[i], depth + 1, budget);
        }
        break;
    case EM_TSV_DICT:
        for (size_t i = 0; i < v->u.dict.n; i++) {
            walk(v->u.dict.keys[i], depth + 1, budget);
            walk(v->u.dict.values[i], depth + 1, budget);
        }
        break;
    case EM_TSV_OBJECT:
        check(strncmp(v->u.obj.cls, "__torch__.", 10) == 0);
        walk(v->u.obj.state, depth + 1, budget);
        break;
    case EM_TSV_TENSOR:
        check_tensor(&v->u.t);
        if (v->u.t.scales != NULL) {
            walk(v->u.t.scales, depth + 1, budget);
            walk(v->u.t.zero_points, depth + 1, budget);
        }
        break;
    case EM_TSV_STR: case EM_TSV_BYTES: case EM_TSV_DEVICE: case EM_TSV_GLOBAL:
        check(v->u.str.s[v->u.str.n] == '\0');
        break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sizes s; /* 64 KiB of zeros, read only */
    if (size < 1 || size < 1 + 4 * (size_t)data[0]) {
        return 0;
    }
    s.n = data[0];
    for (size_t i = 0; i < s.n; i++) {
        const uint8_t *p = data + 1 + 4 * i;
        s.bytes[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24;
    }
    size_t skip = 1 + 4 * s.n;
    em_ts_pickle *pk = NULL;
    ember_status *st =
        em_ts_pickle_load(data + skip, size - skip, "fuzz.pkl", record, &s, NULL, &pk);
    check(ember_status_message(st) != NULL);
    if (st != NULL) {
        check(pk == NULL);
        ember_status_destroy(st);
        return 0;
    }
    long budget = 1 << 20;
    walk(em_ts_pickle_root(pk), 0, &budget);
    em_ts_pickle_free(pk);
    return 0;
}
