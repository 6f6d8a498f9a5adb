/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript/ts_pickle*.c on the data.pkl and constants.pkl of the archives torch
 * 1.13 and 2.x write (tests/data/torchscript/archive, tools/gen_ts_archive_fixtures.py):
 * every tensor's dtype, sizes, strides, offset, storage, qparams and element values against
 * what torch.jit.load reads back (manifest.txt + .npy); objects, class names, attribute names
 * in order (from Python's own unpickler), typed lists and dicts, devices; storages loaded once
 * per key and shared by views. Archives with one bad tensor each, and an allocation-failure
 * sweep. Pickles built in C and Python's own pickles: test_ts_pickle_ops.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "loaders/npy/npy.h"
#include "loaders/torchscript/archive/ts_pickle.h"
#include "loaders/torchscript/archive/ts_zip.h"
#include "core/tensor.h"
#include "ts_archive_test_util.h"

/* ---- loading an archive's pickles ----------------------------------------------------------- */

#define MAX_KEYS 64

/* The record callback: "<dir>/<key>" from the archive, each key asked for at most once. */
typedef struct rec_ctx {
    const em_ts_zip *z;
    const char *dir;
    int n_calls;
    char keys[MAX_KEYS][16];
} rec_ctx;

static ember_status *load_rec(void *ctx, const char *key, em_storage **out)
{
    rec_ctx *r = ctx;
    char name[128];
    for (int i = 0; i < r->n_calls && i < MAX_KEYS; i++) {
        if (strcmp(r->keys[i], key) == 0) {
            fail_msg("storage %s loaded twice", key);
        }
    }
    if (r->n_calls < MAX_KEYS) {
        snprintf(r->keys[r->n_calls], sizeof r->keys[0], "%s", key);
    }
    r->n_calls++;
    snprintf(name, sizeof name, "%s/%s", r->dir, key);
    return em_ts_zip_get(r->z, name, out);
}

typedef struct archive {
    em_ts_zip *z;
    em_ts_pickle *data, *consts;
    rec_ctx data_ctx, const_ctx;
} archive;

/* Runs record `name` of archive `file` as the loader will: messages say "<file>: <name>". */
static ember_status *load_pickle(const em_ts_zip *z, const char *file, const char *name,
                                 rec_ctx *rc, const ember_allocator *al, em_ts_pickle **out)
{
    em_storage *s = NULL;
    char what[256];
    snprintf(what, sizeof what, "%s: %s", file, name);
    ember_status *st = em_ts_zip_get(z, name, &s);
    if (st == NULL) {
        st = em_ts_pickle_load(em_storage_data(s), em_storage_size(s), what, load_rec, rc, al,
                               out);
    }
    em_storage_release(s);
    return st;
}

static void archive_open(archive *a, const char *file)
{
    memset(a, 0, sizeof *a);
    em_storage *img = NULL;
    OK(em_storage_new_mmap(test_allocator(), ts_data_path(file), &img));
    OK(em_ts_zip_open(img, file, test_allocator(), &a->z));
    em_storage_release(img);
    a->data_ctx = (rec_ctx){.z = a->z, .dir = "data"};
    a->const_ctx = (rec_ctx){.z = a->z, .dir = "constants"};
    OK(load_pickle(a->z, file, "data.pkl", &a->data_ctx, test_allocator(), &a->data));
    OK(load_pickle(a->z, file, "constants.pkl", &a->const_ctx, test_allocator(), &a->consts));
}

static void archive_close(archive *a)
{
    em_ts_pickle_free(a->data);
    em_ts_pickle_free(a->consts);
    em_ts_zip_close(a->z);
}

/* Follows "a.b.0.k" from the root through object states, dicts and list indices. */
static const em_tsv *at(const archive *a, const char *path)
{
    const em_tsv *v = em_ts_pickle_root(a->data);
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *part = strtok_r(buf, ".", &save); part != NULL; part = strtok_r(NULL, ".", &save)) {
        if (strcmp(part, "@constants") == 0) {
            v = em_ts_pickle_root(a->consts);
            continue;
        }
        if (v->kind == EM_TSV_OBJECT) {
            v = v->u.obj.state;
        }
        if (v->kind == EM_TSV_DICT) {
            v = em_tsv_dict_get(v, part);
        } else if (v->kind == EM_TSV_LIST || v->kind == EM_TSV_TUPLE) {
            size_t i = (size_t)atoi(part);
            v = i < v->u.seq.n ? v->u.seq.items[i] : NULL;
        } else {
            v = NULL;
        }
        if (v == NULL) {
            fail_msg("path %s: no %s", path, part);
        }
    }
    return v;
}

/* ---- manifest checks ------------------------------------------------------------------------ */

static ember_dtype dtype_of(const char *name)
{
    static const struct {
        const char *name;
        ember_dtype dt;
    } map[] = {{"float32", EMBER_DTYPE_F32}, {"float64", EMBER_DTYPE_F64},
               {"float16", EMBER_DTYPE_F16}, {"bfloat16", EMBER_DTYPE_BF16},
               {"int64", EMBER_DTYPE_I64},   {"int32", EMBER_DTYPE_I32},
               {"int16", EMBER_DTYPE_I16},   {"int8", EMBER_DTYPE_I8},
               {"uint8", EMBER_DTYPE_U8},    {"bool", EMBER_DTYPE_BOOL},
               {"quint8", EMBER_DTYPE_U8},   {"qint8", EMBER_DTYPE_I8},
               {"qint32", EMBER_DTYPE_I32}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(map[i].name, name) == 0) {
            return map[i].dt;
        }
    }
    fail_msg("dtype %s", name);
    return EMBER_DTYPE_UNDEFINED;
}

static int parse_dims(const char *s, int64_t *out)
{
    int n = 0;
    if (strcmp(s, "-") == 0) {
        return 0;
    }
    for (const char *p = s; *p != '\0';) {
        char *end;
        out[n++] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static em_storage *read_npy(const char *dir, const char *file, em_tensor *shape)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    em_storage *f = NULL, *out = NULL;
    OK(em_storage_new_mmap(test_allocator(), ts_data_path(rel), &f));
    OK(em_npy_read(em_storage_data(f), em_storage_size(f), file, test_allocator(), shape, &out));
    em_storage_release(f);
    return out;
}

/* One element of t's view at C-order position i, widened to its bytes, with the neg bit and
 * bfloat16 -> float32 applied so that it compares with torch's logical value. */
static void element(const em_tsv_tensor *t, int64_t i, unsigned char *out, size_t *n)
{
    int64_t off = t->offset;
    for (int d = t->rank - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    size_t es = em_dtype_size(t->dtype);
    assert_true(off >= 0 && off < t->storage_numel);
    const unsigned char *src = em_storage_data(t->storage);
    src += off * (int64_t)es;
    if (t->dtype == EMBER_DTYPE_BF16) {
        uint32_t bits = (uint32_t)(src[0] | src[1] << 8) << 16;
        memcpy(out, &bits, 4);
        *n = 4;
    } else {
        memcpy(out, src, es);
        *n = es;
    }
    if (t->neg) {
        assert_int_equal(t->dtype, EMBER_DTYPE_F32);
        float f;
        memcpy(&f, out, 4);
        f = -f;
        memcpy(out, &f, 4);
    }
}

/* The view's elements equal the .npy's, byte for byte. */
static void check_values(const char *dir, const em_tsv_tensor *t, const char *npy)
{
    em_tensor shape;
    em_storage *want = read_npy(dir, npy, &shape);
    int64_t numel = 1;
    assert_int_equal(shape.rank, t->rank);
    for (int d = 0; d < t->rank; d++) {
        assert_int_equal(shape.dims[d], t->sizes[d]);
        numel *= t->sizes[d];
    }
    size_t es = em_dtype_size(shape.dtype);
    assert_int_equal(em_storage_size(want), (size_t)numel * es);
    for (int64_t i = 0; i < numel; i++) {
        unsigned char got[8];
        size_t n;
        element(t, i, got, &n);
        assert_int_equal(n, es);
        if (memcmp(got, (const unsigned char *)em_storage_data(want) + i * (int64_t)es, es) != 0) {
            fail_msg("%s: element %lld differs", npy, (long long)i);
        }
    }
    em_storage_release(want);
}

/* T/Q/C line fields common to all tensors: dtype sizes strides offset storage_numel. */
static const em_tsv_tensor *check_tensor(const archive *a, char **f)
{
    const em_tsv *v = at(a, f[1]);
    assert_int_equal(v->kind, EM_TSV_TENSOR);
    const em_tsv_tensor *t = &v->u.t;
    int64_t sizes[EMBER_MAX_RANK], strides[EMBER_MAX_RANK];
    int rank = parse_dims(f[3], sizes);
    assert_int_equal(parse_dims(f[4], strides), rank);
    assert_int_equal(t->dtype, dtype_of(f[2]));
    assert_int_equal(t->rank, rank);
    for (int d = 0; d < rank; d++) {
        assert_int_equal(t->sizes[d], sizes[d]);
        assert_int_equal(t->strides[d], strides[d]);
    }
    assert_int_equal(t->offset, atoll(f[5]));
    assert_int_equal(t->storage_numel, atoll(f[6]));
    assert_int_equal(t->storage == NULL, t->storage_numel == 0);
    if (t->storage != NULL) {
        assert_int_equal(em_storage_size(t->storage),
                         (size_t)t->storage_numel * em_dtype_size(t->dtype));
    }
    assert_string_equal(t->location, "cpu");
    return t;
}

/* "A path class a,b,c": the object's attribute names, in order. */
static void check_attr_names(const archive *a, char **f)
{
    const em_tsv *v = strcmp(f[1], ".") == 0 ? em_ts_pickle_root(a->data) : at(a, f[1]);
    assert_int_equal(v->kind, EM_TSV_OBJECT);
    assert_string_equal(v->u.obj.cls, f[2]);
    const em_tsv *d = v->u.obj.state;
    size_t i = 0;
    char *save = NULL;
    for (char *k = strtok_r(f[3], ",", &save); k != NULL && strcmp(k, "-") != 0;
         k = strtok_r(NULL, ",", &save), i++) {
        assert_true(i < d->u.dict.n);
        assert_int_equal(d->u.dict.keys[i]->kind, EM_TSV_STR);
        assert_string_equal(d->u.dict.keys[i]->u.str.s, k);
    }
    assert_int_equal(i, d->u.dict.n);
}

static void check_line(const archive *a, const char *dir, char **f, int nf)
{
    if (f[0][0] == 'A') {
        assert_int_equal(nf, 4);
        check_attr_names(a, f);
        return;
    }
    if (f[0][0] == 'O') {
        const em_tsv *v = strcmp(f[1], ".") == 0 ? em_ts_pickle_root(a->data) : at(a, f[1]);
        assert_int_equal(v->kind, EM_TSV_OBJECT);
        assert_string_equal(v->u.obj.cls, f[2]);
        assert_int_equal(v->u.obj.state->kind, EM_TSV_DICT);
        return;
    }
    const em_tsv_tensor *t = check_tensor(a, f);
    if (f[0][0] == 'T') {
        assert_int_equal(nf, 10);
        assert_int_equal(t->qscheme, EM_TS_QSCHEME_NONE);
        assert_int_equal(t->requires_grad, atoi(f[7]));
        assert_int_equal(t->neg, atoi(f[8]));
        check_values(dir, t, f[9]);
    } else if (f[0][0] == 'Q') {
        assert_int_equal(nf, 10);
        assert_int_equal(t->qscheme, EM_TS_PER_TENSOR_AFFINE);
        assert_true(t->scale == strtod(f[7], NULL)); /* repr() round-trips exactly */
        assert_int_equal(t->zero_point, atoll(f[8]));
        check_values(dir, t, f[9]);
    } else {
        assert_int_equal(nf, 12);
        assert_int_equal(t->qscheme, strcmp(f[7], "per_channel_affine") == 0
                                         ? EM_TS_PER_CHANNEL_AFFINE
                                         : EM_TS_PER_CHANNEL_AFFINE_FLOAT_QPARAMS);
        assert_int_equal(t->axis, atoll(f[8]));
        check_values(dir, t, f[9]);
        check_values(dir, &t->scales->u.t, f[10]);
        check_values(dir, &t->zero_points->u.t, f[11]);
    }
}

static int check_manifest(const archive *a, const char *dir)
{
    char rel[256], line[1024];
    snprintf(rel, sizeof rel, "%s/manifest.txt", dir);
    FILE *fp = fopen(ts_data_path(rel), "r");
    assert_non_null(fp);
    int n_lines = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        char *f[16], *save = NULL;
        int nf = 0;
        if (line[0] == '#') {
            continue;
        }
        for (char *tok = strtok_r(line, " \n", &save); tok != NULL && nf < 16;
             tok = strtok_r(NULL, " \n", &save)) {
            f[nf++] = tok;
        }
        check_line(a, dir, f, nf);
        n_lines++;
    }
    fclose(fp);
    return n_lines;
}

/* ---- the torch archives ---------------------------------------------------------------------- */

/* What the manifest does not cover: attributes that are not tensors, and storage sharing. */
static void check_attributes(const archive *a, bool torch2)
{
    const em_tsv *root = em_ts_pickle_root(a->data);
    const em_tsv *st = root->u.obj.state;
    assert_int_equal(em_tsv_dict_get(st, "training")->kind, EM_TSV_BOOL);
    assert_true(em_tsv_dict_get(st, "training")->u.b);
    const em_tsv *sizes = at(a, "sizes");
    assert_int_equal(sizes->kind, EM_TSV_LIST);
    assert_string_equal(sizes->u.seq.type_tag, "List[int]");
    assert_int_equal(sizes->u.seq.n, 3);
    assert_int_equal(ts_item(sizes, 0, EM_TSV_INT)->u.i, 3);
    assert_int_equal(ts_item(sizes, 2, EM_TSV_INT)->u.i, 4);
    const em_tsv *ratios = at(a, "ratios");
    assert_string_equal(ratios->u.seq.type_tag, "List[float]");
    assert_true(ts_item(ratios, 1, EM_TSV_FLOAT)->u.f == 1.25);
    assert_string_equal(at(a, "flags")->u.seq.type_tag, "List[bool]");
    assert_false(ts_item(at(a, "flags"), 1, EM_TSV_BOOL)->u.b);
    assert_string_equal(at(a, "names")->u.seq.type_tag, "List[str]");
    assert_string_equal(ts_item(at(a, "names"), 1, EM_TSV_STR)->u.str.s, "b");
    assert_string_equal(at(a, "tensors")->u.seq.type_tag, "List[Tensor]");
    const em_tsv *table = at(a, "table");
    assert_string_equal(table->u.dict.type_tag, "Dict[str, int]");
    assert_int_equal(em_tsv_dict_get(table, "y")->u.i, -2);
    assert_string_equal(at(a, "tdict")->u.dict.type_tag, "Dict[str, Tensor]");
    assert_int_equal(at(a, "opt")->kind, EM_TSV_NONE);
    const em_tsv *tup = at(a, "tup");
    assert_int_equal(tup->kind, EM_TSV_TUPLE);
    assert_int_equal(ts_item(tup, 0, EM_TSV_INT)->u.i, 1);
    assert_string_equal(ts_item(tup, 1, EM_TSV_STR)->u.str.s, "z");
    assert_int_equal(at(a, "dev")->kind, EM_TSV_DEVICE);
    assert_string_equal(at(a, "dev")->u.str.s, "cpu");
    assert_true(at(a, "mid.leaf.scale")->u.f == 0.5);
    assert_int_equal(at(a, "tr")->u.obj.state->u.dict.n, 2); /* training, hook flag */

    /* One storage behind base and its views, loaded once; contiguity. */
    const em_tsv_tensor *base = &at(a, "base")->u.t, *view = &at(a, "view")->u.t;
    assert_ptr_equal(base->storage, view->storage);
    assert_ptr_equal(base->storage, at(a, "tcol")->u.t.storage);
    assert_ptr_equal(base->storage, at(a, "tensors.0")->u.t.storage);
    assert_string_equal(base->key, view->key);
    assert_true(em_tsv_tensor_contiguous(base));
    assert_false(em_tsv_tensor_contiguous(view));
    assert_true(em_tsv_tensor_contiguous(&at(a, "scalar")->u.t));
    assert_true(em_tsv_tensor_contiguous(&at(a, "empty")->u.t));
    assert_null(at(a, "empty")->u.t.storage);
    /* 27 storage records, one of them empty (never read). */
    assert_int_equal(a->data_ctx.n_calls, 26);
    assert_int_equal(a->const_ctx.n_calls, 1);
    const em_tsv *consts = em_ts_pickle_root(a->consts);
    assert_int_equal(consts->kind, EM_TSV_TUPLE);
    assert_int_equal(consts->u.seq.n, 1);
    assert_int_equal(at(a, "neg")->u.t.neg, torch2); /* 1.13 drops the bit when saving */
}

static void check_archive(const char *file, const char *dir, bool torch2)
{
    archive a;
    archive_open(&a, file);
    assert_int_equal(check_manifest(&a, dir), 37);
    check_attributes(&a, torch2);
    archive_close(&a);
}

static void test_normal_t1(void **state)
{
    (void)state;
    check_archive("normal_t1.pt", "normal_t1", false);
}

static void test_normal_t2(void **state)
{
    (void)state;
    if (!ts_file_exists("normal_t2.pt")) {
        skip(); /* written by the generator run with torch 2.x */
    }
    check_archive("normal_t2.pt", "normal_t2", true);
}


static const struct {
    const char *file;
    ember_code code;
    const char *needle;
} bad_tensors[] = {
    {"short_record.pt", EMBER_ERR_INVALID_MODEL,
     "storage 0: the record holds 80 bytes, the storage needs 96"},
    {"view_past_end.pt", EMBER_ERR_INVALID_MODEL, "storage 0 (24 elements) is negative or reaches"},
    {"view_offset_past_end.pt", EMBER_ERR_INVALID_MODEL, "reaches past it"},
    {"huge_sizes.pt", EMBER_ERR_INVALID_MODEL, "reaches past it"},
    {"huge_strides.pt", EMBER_ERR_INVALID_MODEL, "reaches past it"},
    {"negative_stride.pt", EMBER_ERR_INVALID_MODEL, "is negative"},
    {"rank9.pt", EMBER_ERR_INVALID_MODEL, "above rank 8"},
    {"complex.pt", EMBER_ERR_UNSUPPORTED, "torch.ComplexFloatStorage"},
    {"numel_overflow.pt", EMBER_ERR_INVALID_MODEL, "storage 0: 2305843009213693952 elements"},
};

static void test_hostile_tensors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_tensors / sizeof bad_tensors[0]; i++) {
        char file[128];
        snprintf(file, sizeof file, "hostile/%s", bad_tensors[i].file);
        em_storage *img = NULL;
        em_ts_zip *z = NULL;
        OK(em_storage_new_mmap(test_allocator(), ts_data_path(file), &img));
        OK(em_ts_zip_open(img, file, test_allocator(), &z));
        rec_ctx rc = {.z = z, .dir = "data"};
        em_ts_pickle *pk = NULL;
        ember_status *st = load_pickle(z, file, "data.pkl", &rc, test_allocator(), &pk);
        assert_null(pk);
        ts_expect(st, bad_tensors[i].code, bad_tensors[i].needle, file);
        em_ts_zip_close(z);
        em_storage_release(img);
    }
}


/* ---- allocation failures and the arena ------------------------------------------------------ */

static void test_alloc_failures(void **state)
{
    (void)state;
    em_storage *img = NULL;
    em_ts_zip *z = NULL;
    OK(em_storage_new_mmap(NULL, ts_data_path("normal_t1.pt"), &img));
    OK(em_ts_zip_open(img, "n.pt", NULL, &z));
    em_storage *pkl = NULL;
    OK(em_ts_zip_get(z, "data.pkl", &pkl));
    long fail_at = 1;
    for (;; fail_at++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = fail_at;
        rec_ctx rc = {.z = z, .dir = "data"};
        em_ts_pickle *pk = NULL;
        ember_status *st = em_ts_pickle_load(em_storage_data(pkl), em_storage_size(pkl),
                                             "data.pkl", load_rec, &rc, &ca.al, &pk);
        em_ts_pickle_free(pk);
        assert_int_equal(ca.live, 0);
        if (st == NULL) {
            break;
        }
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        ember_status_destroy(st);
    }
    assert_true(fail_at > 10);
    em_storage_release(pkl);
    em_ts_zip_close(z);
    em_storage_release(img);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_t1),       cmocka_unit_test(test_normal_t2),
        cmocka_unit_test(test_hostile_tensors), cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
