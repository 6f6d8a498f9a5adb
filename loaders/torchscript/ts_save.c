/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Saving a TorchScript archive with new weights (ts.h, em_ts_save_weights): the archive is
 * copied byte for byte, and only the payloads of the `data/<key>` storage records that hold the
 * rewritten tensors change, with their CRC-32 (central directory entry at +16, the local header
 * at +14 when it carries one, and the data descriptor after the payload, with or without its
 * signature, which torch's writer always adds: flag bit 3). Storage records are stored (torch
 * never deflates them), so sizes and offsets stay as they were and the zip needs no rebuild;
 * the 64-byte alignment torch gives payloads is kept. Tensors are found by walking data.pkl's
 * module objects: the path of attribute names from the root is the name the loader gives the
 * initializer (ts_value.c) and PyTorch's state_dict key.
 */
#include "ts.h"

#include "archive/ts_pickle.h"
#include "archive/ts_zip.h"
#include "core/alloc.h"
#include "core/crc32.h"
#include "core/file_write.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

#define SAVE_MAX_DEPTH 64
#define SAVE_MAX_DIRTY 4096

typedef struct save_ctx {
    const em_ts_zip *zip;
    const char *what;
    unsigned char *buf; /* the copy of the archive */
    const em_weight_patch *w;
    size_t n;
    unsigned char *done; /* done[i]: w[i] written */
    const char *dirty[SAVE_MAX_DIRTY]; /* storage keys rewritten (in the pickle's arena) */
    size_t n_dirty;
    ember_status *st;
} save_ctx;

static ember_status *load_record(void *ctx, const char *key, em_storage **out)
{
    const save_ctx *c = ctx;
    char name[256];
    if (snprintf(name, sizeof name, "data/%s", key) >= (int)sizeof name ||
        !em_ts_zip_has(c->zip, name)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor storage '%.40s' has no record",
                             c->what, key);
    }
    return em_ts_zip_get(c->zip, name, out);
}

static void write_elem(unsigned char *p, const em_weight_patch *w, int64_t e)
{
    if (w->f32 != NULL) {
        memcpy(p, &w->f32[e], sizeof(float));
        return;
    }
    int64_t v;
    memcpy(&v, p, sizeof v);
    v = (int64_t)((uint64_t)v + (uint64_t)w->add_i64);
    memcpy(p, &v, sizeof v);
}

/* Writes w into tensor t's storage record inside c->buf. */
static ember_status *patch_tensor(save_ctx *c, const em_tsv_tensor *t, const em_weight_patch *w,
                                  const char *path)
{
    ember_dtype want = w->f32 != NULL ? EMBER_DTYPE_F32 : EMBER_DTYPE_I64;
    int64_t numel = 1;
    for (int d = 0; d < t->rank; d++) {
        numel *= t->sizes[d];
    }
    if (t->dtype != want || t->qscheme != EM_TS_QSCHEME_NONE || t->neg ||
        (w->f32 != NULL && numel != w->numel) || (w->f32 == NULL && numel != 1)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: tensor '%s' is %s of %lld elements; "
                             "the new value is %s of %lld", c->what, path,
                             ember_dtype_name(t->dtype), (long long)numel, ember_dtype_name(want),
                             (long long)(w->f32 != NULL ? w->numel : 1));
    }
    if (numel == 0) {
        return NULL;
    }
    char rec[256];
    em_ts_zip_loc loc;
    snprintf(rec, sizeof rec, "data/%s", t->key);
    if (!em_ts_zip_locate(c->zip, rec, &loc)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: no record %s", c->what, rec);
    }
    if (loc.method != 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: record %s is compressed: storages are "
                             "rewritten in place only when stored (as torch writes them)",
                             c->what, rec);
    }
    size_t es = em_dtype_size(t->dtype);
    int64_t idx[EMBER_MAX_RANK] = {0};
    for (int64_t e = 0; e < numel; e++) {
        int64_t so = t->offset;
        for (int d = 0; d < t->rank; d++) {
            so += idx[d] * t->strides[d];
        }
        /* the pickle layer checked every view against its storage's size */
        write_elem(c->buf + loc.payload + (size_t)so * es, w, e);
        for (int d = t->rank - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d]) {
                break;
            }
            idx[d] = 0;
        }
    }
    for (size_t i = 0; i < c->n_dirty; i++) {
        if (strcmp(c->dirty[i], t->key) == 0) {
            return NULL;
        }
    }
    if (c->n_dirty == SAVE_MAX_DIRTY) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: more than %d storages to rewrite",
                             c->what, SAVE_MAX_DIRTY);
    }
    c->dirty[c->n_dirty++] = t->key;
    return NULL;
}

/* Visits the attributes of module object `obj` at `prefix` ("" for the root). */
static void walk(save_ctx *c, const em_tsv *obj, const char *prefix, int depth)
{
    const em_tsv *st = obj->u.obj.state;
    if (st == NULL || st->kind != EM_TSV_DICT || depth > SAVE_MAX_DEPTH) {
        return;
    }
    for (size_t i = 0; i < st->u.dict.n && c->st == NULL; i++) {
        const em_tsv *k = st->u.dict.keys[i], *v = st->u.dict.values[i];
        char path[1024];
        if (k->kind != EM_TSV_STR ||
            snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] != '\0' ? "." : "",
                     k->u.str.s) >= (int)sizeof path) {
            continue;
        }
        if (v->kind == EM_TSV_OBJECT) {
            walk(c, v, path, depth + 1);
            continue;
        }
        if (v->kind != EM_TSV_TENSOR) {
            continue;
        }
        for (size_t j = 0; j < c->n && c->st == NULL; j++) {
            if (!c->done[j] && strcmp(c->w[j].name, path) == 0) {
                c->st = patch_tensor(c, &v->u.t, &c->w[j], path);
                c->done[j] = 1;
            }
        }
    }
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

/* New CRC-32 of each rewritten record, in every place the archive keeps it. */
static ember_status *fix_crcs(save_ctx *c, size_t size)
{
    for (size_t i = 0; i < c->n_dirty; i++) {
        char rec[256];
        em_ts_zip_loc loc;
        snprintf(rec, sizeof rec, "data/%s", c->dirty[i]);
        if (!em_ts_zip_locate(c->zip, rec, &loc)) {
            return em_status_new(EMBER_ERR_INTERNAL, "%s: record %s vanished", c->what, rec);
        }
        uint32_t crc = em_crc32(0, c->buf + loc.payload, (size_t)loc.size);
        wr32(c->buf + loc.central + 16, crc);
        if (rd32(c->buf + loc.local + 14) != 0) {
            wr32(c->buf + loc.local + 14, crc);
        }
        if ((loc.flags & 8u) != 0) {
            uint64_t at = loc.payload + loc.comp;
            if (at + 8 <= size && rd32(c->buf + at) == 0x08074b50u) {
                at += 4;
            }
            if (at + 4 > size) {
                return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: record %s: its data "
                                     "descriptor runs past the end of the file", c->what, rec);
            }
            wr32(c->buf + at, crc);
        }
    }
    return NULL;
}

ember_status *em_ts_save_weights(em_storage *image, const char *what, const em_weight_patch *w,
                                 size_t n, const char *path, const ember_allocator *al)
{
    ember_status *st = NULL;
    em_ts_zip *z = NULL;
    em_storage *pk = NULL;
    em_ts_pickle *p = NULL;
    save_ctx c = {0};
    size_t size = em_storage_size(image);
    what = what != NULL ? what : "<memory>";
    EMBER_TRY(em_ts_zip_open(image, what, al, &z));
    c.zip = z;
    c.what = what;
    c.w = w;
    c.n = n;
    c.buf = em_malloc(al, size + 1);
    c.done = em_calloc(al, n + 1, 1);
    if (c.buf == NULL || c.done == NULL) {
        st = em_status_oom();
        goto fail;
    }
    memcpy(c.buf, em_storage_data(image), size);
    EMBER_TRY(em_ts_zip_get(z, "data.pkl", &pk));
    EMBER_TRY(em_ts_pickle_load(em_storage_data(pk), em_storage_size(pk), what, load_record, &c,
                                al, &p));
    const em_tsv *root = em_ts_pickle_root(p);
    if (root == NULL || root->kind != EM_TSV_OBJECT) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: data.pkl does not hold a module", what);
        goto fail;
    }
    walk(&c, root, "", 0);
    EMBER_TRY(c.st);
    for (size_t i = 0; i < n; i++) {
        if (!c.done[i] && !w[i].optional) {
            st = em_status_new(EMBER_ERR_INVALID_ARG, "%s: no tensor '%s' among the module's "
                               "attributes", what, w[i].name);
            goto fail;
        }
    }
    EMBER_TRY(fix_crcs(&c, size));
    st = em_write_file_atomic(path, c.buf, size);
fail:
    em_ts_pickle_free(p);
    em_storage_release(pk);
    em_ts_zip_close(z);
    em_free(al, c.buf);
    em_free(al, c.done);
    return st;
}
