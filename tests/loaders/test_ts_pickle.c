/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript/ts_pickle*.c on the data.pkl and constants.pkl of the archives torch
 * 1.13 and 2.x write (tests/data/torchscript/archive, tools/gen_ts_archive_fixtures.py):
 * every tensor's dtype, sizes, strides, offset, storage, qparams and element values against
 * what torch.jit.load reads back (manifest.txt + .npy); objects, class names, attributes,
 * typed lists and dicts, devices; storages loaded once per key and shared by views. Then
 * Python's own pickles (protocols 0, 2, 4), opcodes one by one, the hostile corpus and an
 * allocation-failure sweep. All allocations go through cmocka-checked allocators.
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
#include "loaders/npy.h"
#include "loaders/torchscript/ts_arena.h"
#include "loaders/torchscript/ts_pickle.h"
#include "loaders/torchscript/ts_zip.h"
#include "status.h"
#include "tensor.h"

static const char *data_path(const char *file)
{
    static char buf[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/torchscript/archive/%s", root != NULL ? root : "tests/data",
             file);
    return buf;
}

static bool file_exists(const char *file)
{
    FILE *f = fopen(data_path(file), "rb");
    if (f != NULL) {
        fclose(f);
    }
    return f != NULL;
}

static void expect_status(ember_status *st, ember_code code, const char *needle, const char *ctx)
{
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strstr(msg, needle) == NULL) {
        print_error("%s: got %s '%s', expected %s with '%s'\n", ctx,
                    ember_code_name(ember_status_code(st)), msg, ember_code_name(code), needle);
        fail();
    }
    ember_status_destroy(st);
}

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

static ember_status *load_pickle(const em_ts_zip *z, const char *name, rec_ctx *rc,
                                 const ember_allocator *al, em_ts_pickle **out)
{
    em_storage *s = NULL;
    ember_status *st = em_ts_zip_get(z, name, &s);
    if (st == NULL) {
        st = em_ts_pickle_load(em_storage_data(s), em_storage_size(s), name, load_rec, rc, al,
                               out);
    }
    em_storage_release(s);
    return st;
}

static void archive_open(archive *a, const char *file)
{
    memset(a, 0, sizeof *a);
    em_storage *img = NULL;
    OK(em_storage_new_mmap(test_allocator(), data_path(file), &img));
    OK(em_ts_zip_open(img, file, test_allocator(), &a->z));
    em_storage_release(img);
    a->data_ctx = (rec_ctx){.z = a->z, .dir = "data"};
    a->const_ctx = (rec_ctx){.z = a->z, .dir = "constants"};
    OK(load_pickle(a->z, "data.pkl", &a->data_ctx, test_allocator(), &a->data));
    OK(load_pickle(a->z, "constants.pkl", &a->const_ctx, test_allocator(), &a->consts));
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
    OK(em_storage_new_mmap(test_allocator(), data_path(rel), &f));
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
    const unsigned char *src = (const unsigned char *)em_storage_data(t->storage) + off * (int64_t)es;
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

static void check_line(const archive *a, const char *dir, char **f, int nf)
{
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
    FILE *fp = fopen(data_path(rel), "r");
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

static const em_tsv *item(const em_tsv *seq, size_t i, em_tsv_kind kind)
{
    assert_true(i < seq->u.seq.n);
    assert_int_equal(seq->u.seq.items[i]->kind, kind);
    return seq->u.seq.items[i];
}

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
    assert_int_equal(item(sizes, 0, EM_TSV_INT)->u.i, 3);
    assert_int_equal(item(sizes, 2, EM_TSV_INT)->u.i, 4);
    const em_tsv *ratios = at(a, "ratios");
    assert_string_equal(ratios->u.seq.type_tag, "List[float]");
    assert_true(item(ratios, 1, EM_TSV_FLOAT)->u.f == 1.25);
    assert_string_equal(at(a, "flags")->u.seq.type_tag, "List[bool]");
    assert_false(item(at(a, "flags"), 1, EM_TSV_BOOL)->u.b);
    assert_string_equal(at(a, "names")->u.seq.type_tag, "List[str]");
    assert_string_equal(item(at(a, "names"), 1, EM_TSV_STR)->u.str.s, "b");
    assert_string_equal(at(a, "tensors")->u.seq.type_tag, "List[Tensor]");
    const em_tsv *table = at(a, "table");
    assert_string_equal(table->u.dict.type_tag, "Dict[str, int]");
    assert_int_equal(em_tsv_dict_get(table, "y")->u.i, -2);
    assert_string_equal(at(a, "tdict")->u.dict.type_tag, "Dict[str, Tensor]");
    assert_int_equal(at(a, "opt")->kind, EM_TSV_NONE);
    const em_tsv *tup = at(a, "tup");
    assert_int_equal(tup->kind, EM_TSV_TUPLE);
    assert_int_equal(item(tup, 0, EM_TSV_INT)->u.i, 1);
    assert_string_equal(item(tup, 1, EM_TSV_STR)->u.str.s, "z");
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
    assert_int_equal(check_manifest(&a, dir), 32);
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
    if (!file_exists("normal_t2.pt")) {
        skip(); /* written by the generator run with torch 2.x */
    }
    check_archive("normal_t2.pt", "normal_t2", true);
}

/* ---- Python's own pickles ------------------------------------------------------------------ */

static const em_tsv *load_file(const char *file, em_ts_pickle **pk, em_storage **img)
{
    OK(em_storage_new_mmap(test_allocator(), data_path(file), img));
    OK(em_ts_pickle_load(em_storage_data(*img), em_storage_size(*img), file, NULL, NULL,
                         test_allocator(), pk));
    return em_ts_pickle_root(*pk);
}

static void check_py(const em_tsv *root, int proto)
{
    static const int64_t ints[] = {0,         1,          -1,         255,       256,
                                   65535,     65536,      INT32_MIN,  INT32_MAX, 2147483648LL,
                                   INT64_MIN, INT64_MAX};
    assert_int_equal(root->kind, EM_TSV_DICT);
    const em_tsv *v = em_tsv_dict_get(root, "ints");
    assert_int_equal(v->u.seq.n, 12);
    for (size_t i = 0; i < 12; i++) {
        assert_int_equal(item(v, i, EM_TSV_INT)->u.i, ints[i]);
    }
    v = em_tsv_dict_get(root, "floats");
    assert_true(item(v, 0, EM_TSV_FLOAT)->u.f == 0.5);
    assert_true(item(v, 1, EM_TSV_FLOAT)->u.f == -1e300);
    assert_true(isinf(item(v, 2, EM_TSV_FLOAT)->u.f));
    v = em_tsv_dict_get(root, "text");
    assert_int_equal(item(v, 0, EM_TSV_STR)->u.str.n, 0);
    assert_string_equal(item(v, 1, EM_TSV_STR)->u.str.s, "plain");
    assert_string_equal(item(v, 2, EM_TSV_STR)->u.str.s,
                        "\xc3\xbcn\xc3\xaf\x63\xc3\xb6\x64\xc3\xa9 \xe2\x82\xac");
    assert_int_equal(item(v, 3, EM_TSV_STR)->u.str.n, 300);
    /* ([1, [2, [3, []]]], {"k": (None, True, False)}) */
    v = em_tsv_dict_get(root, "nested");
    assert_int_equal(v->kind, EM_TSV_TUPLE);
    const em_tsv *l = item(v, 0, EM_TSV_LIST);
    for (int depth = 1; depth <= 3; depth++) {
        assert_int_equal(item(l, 0, EM_TSV_INT)->u.i, depth);
        l = item(l, 1, EM_TSV_LIST);
    }
    assert_int_equal(l->u.seq.n, 0);
    const em_tsv *k = em_tsv_dict_get(item(v, 1, EM_TSV_DICT), "k");
    assert_int_equal(item(k, 0, EM_TSV_NONE)->kind, EM_TSV_NONE);
    assert_true(item(k, 1, EM_TSV_BOOL)->u.b);
    assert_false(item(k, 2, EM_TSV_BOOL)->u.b);
    v = em_tsv_dict_get(root, "shared");
    assert_ptr_equal(item(v, 0, EM_TSV_LIST), item(v, 1, EM_TSV_LIST)); /* one list, memo */
    assert_int_equal(item(item(v, 0, EM_TSV_LIST), 1, EM_TSV_INT)->u.i, 8);
    if (proto >= 4) {
        v = em_tsv_dict_get(root, "bytes");
        assert_int_equal(v->kind, EM_TSV_BYTES);
        assert_int_equal(v->u.str.n, 4);
        assert_memory_equal(v->u.str.s, "\x00\xff" "ab", 4);
        v = em_tsv_dict_get(root, "set");
        assert_string_equal(v->u.seq.type_tag, "set");
        assert_int_equal(item(v, 0, EM_TSV_INT)->u.i, 5);
        v = em_tsv_dict_get(root, "frozen");
        assert_string_equal(v->u.seq.type_tag, "frozenset");
        assert_int_equal(item(v, 0, EM_TSV_INT)->u.i, 6);
    } else {
        assert_null(em_tsv_dict_get(root, "bytes"));
    }
}

static void test_python_pickles(void **state)
{
    (void)state;
    const char *files[] = {"py_p0.pkl", "py_p2.pkl", "py_p4.pkl"};
    const int protos[] = {0, 2, 4};
    for (int i = 0; i < 3; i++) {
        em_ts_pickle *pk = NULL;
        em_storage *img = NULL;
        check_py(load_file(files[i], &pk, &img), protos[i]);
        em_ts_pickle_free(pk);
        em_storage_release(img);
    }
}

/* ---- pickles built here ------------------------------------------------------------------- */

typedef struct pbuf {
    unsigned char b[2048];
    size_t n;
} pbuf;

static void raw(pbuf *p, const void *d, size_t n)
{
    assert_true(p->n + n <= sizeof p->b);
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

#define LIT(p, s) raw((p), (s), sizeof(s) - 1)

static void pstr(pbuf *p, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    unsigned char h[5] = {'X', (unsigned char)n, (unsigned char)(n >> 8), 0, 0};
    raw(p, h, 5);
    raw(p, s, n);
}

static void pglobal(pbuf *p, const char *mod, const char *name)
{
    LIT(p, "c");
    raw(p, mod, strlen(mod));
    LIT(p, "\n");
    raw(p, name, strlen(name));
    LIT(p, "\n");
}

static void pint(pbuf *p, int64_t v)
{
    unsigned char b[10] = {0x8a, 8};
    for (int i = 0; i < 8; i++) {
        b[2 + i] = (unsigned char)((uint64_t)v >> (8 * i));
    }
    raw(p, b, 10);
}

static void pfloat(pbuf *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    unsigned char b[9] = {'G'};
    for (int i = 0; i < 8; i++) {
        b[1 + i] = (unsigned char)(u >> (56 - 8 * i));
    }
    raw(p, b, 9);
}

static void pints(pbuf *p, int n, const int64_t *v)
{
    LIT(p, "(");
    for (int i = 0; i < n; i++) {
        pint(p, v[i]);
    }
    LIT(p, "t");
}

static void ppid(pbuf *p, const char *stype, const char *key, int64_t numel)
{
    LIT(p, "(");
    pstr(p, "storage");
    pglobal(p, "torch", stype);
    pstr(p, key);
    pstr(p, "cpu");
    pint(p, numel);
    LIT(p, "tQ");
}

/* _rebuild_tensor_v2 of a 1-D view [off, off + n) of storage `key`, plus `tail` (the 7th
 * field, already encoded without NUL bytes, or "") before the closing TUPLE. */
static void ptensor(pbuf *p, const char *stype, const char *key, int64_t numel, int64_t off,
                    int64_t n, const char *tail)
{
    pglobal(p, "torch._utils", "_rebuild_tensor_v2");
    LIT(p, "(");
    ppid(p, stype, key, numel);
    pint(p, off);
    pints(p, 1, &n);
    pints(p, 1, (const int64_t[]){1});
    LIT(p, "\x89");
    pglobal(p, "collections", "OrderedDict");
    LIT(p, ")R");
    raw(p, tail, strlen(tail));
    LIT(p, "tR");
}

/* Fake storage records: "0" (8 floats), "1" (4 bytes), "q" (per-channel scales, 2 doubles),
 * "z" (2 int64 zero points), "boom" (fails). */
static float rec_f32[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static double rec_f64[2] = {0.5, 0.25};
static int64_t rec_i64[2] = {1, -1};
static unsigned char rec_u8[4] = {1, 2, 3, 4};

static ember_status *fake_rec(void *ctx, const char *key, em_storage **out)
{
    int *calls = ctx;
    (*calls)++;
    void *d = strcmp(key, "0") == 0   ? (void *)rec_f32
              : strcmp(key, "q") == 0 ? (void *)rec_f64
              : strcmp(key, "z") == 0 ? (void *)rec_i64
                                      : (void *)rec_u8;
    size_t n = d == rec_f32 ? sizeof rec_f32 : d == rec_u8 ? sizeof rec_u8 : 16;
    if (strcmp(key, "boom") == 0) {
        return em_status_new(EMBER_ERR_IO, "boom: disk on fire");
    }
    return em_storage_new_borrowed(test_allocator(), d, n, out);
}

static ember_status *run(const pbuf *p, int *calls, em_ts_pickle **pk)
{
    *pk = NULL;
    return em_ts_pickle_load(p->b, p->n, "t.pkl", fake_rec, calls, test_allocator(), pk);
}

static const em_tsv *run_ok(const pbuf *p, int *calls, em_ts_pickle **pk)
{
    OK(run(p, calls, pk));
    return em_ts_pickle_root(*pk);
}

static void run_bad(const pbuf *p, ember_code code, const char *needle)
{
    int calls = 0;
    em_ts_pickle *pk = (em_ts_pickle *)(uintptr_t)1;
    expect_status(run(p, &calls, &pk), code, needle, "t.pkl");
    assert_null(pk);
}

/* A compact rendering: None True 1 2.5 text b<len> (a,b) [a,b] {k:v} <cls state> ... */
static void render(const em_tsv *v, char *buf, size_t cap)
{
    size_t n = strlen(buf);
    char *o = buf + n;
    cap -= n;
    switch (v->kind) {
    case EM_TSV_NONE: snprintf(o, cap, "None"); break;
    case EM_TSV_BOOL: snprintf(o, cap, "%s", v->u.b ? "True" : "False"); break;
    case EM_TSV_INT: snprintf(o, cap, "%lld", (long long)v->u.i); break;
    case EM_TSV_FLOAT: snprintf(o, cap, "%g", v->u.f); break;
    case EM_TSV_STR: snprintf(o, cap, "%s", v->u.str.s); break;
    case EM_TSV_BYTES: snprintf(o, cap, "b%zu", v->u.str.n); break;
    case EM_TSV_DEVICE: snprintf(o, cap, "device(%s)", v->u.str.s); break;
    case EM_TSV_GLOBAL: snprintf(o, cap, "global(%s)", v->u.str.s); break;
    case EM_TSV_TENSOR: snprintf(o, cap, "tensor"); break;
    case EM_TSV_OBJECT:
        snprintf(o, cap, "<%s ", v->u.obj.cls);
        render(v->u.obj.state, buf, cap + n);
        strncat(buf, ">", cap + n - strlen(buf) - 1);
        break;
    case EM_TSV_DICT:
        snprintf(o, cap, "{");
        for (size_t i = 0; i < v->u.dict.n; i++) {
            strncat(buf, i > 0 ? "," : "", cap + n - strlen(buf) - 1);
            render(v->u.dict.keys[i], buf, cap + n);
            strncat(buf, ":", cap + n - strlen(buf) - 1);
            render(v->u.dict.values[i], buf, cap + n);
        }
        strncat(buf, "}", cap + n - strlen(buf) - 1);
        break;
    default:
        snprintf(o, cap, "%s", v->kind == EM_TSV_TUPLE ? "(" : "[");
        for (size_t i = 0; i < v->u.seq.n; i++) {
            strncat(buf, i > 0 ? "," : "", cap + n - strlen(buf) - 1);
            render(v->u.seq.items[i], buf, cap + n);
        }
        strncat(buf, v->kind == EM_TSV_TUPLE ? ")" : "]", cap + n - strlen(buf) - 1);
        break;
    }
}

static void test_opcodes(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t n;
        const char *expect; /* a small rendering of the root, see render() */
    } cases[] = {
#define C(b, e) {b, sizeof(b) - 1, e}
        C("\x80\x02K\x07" "2\x86.", "(7,7)"),
        C("\x80\x02K\x01K\x02" "0.", "1"),
        C("\x80\x02K\x01(0.", "1"),                      /* POP of a bare MARK */
        C("\x80\x02K\x01(K\x02K\x03" "1.", "1"),         /* POP_MARK */
        C("\x80\x02(K\x01K\x02l.", "[1,2]"),
        C("\x80\x02(X\x01\x00\x00\x00" "aK\x01" "d.", "{a:1}"),
        C("\x80\x02}X\x01\x00\x00\x00" "aK\x01sX\x01\x00\x00\x00" "aK\x02s.", "{a:1,a:2}"),
        C("\x80\x02T\x03\x00\x00\x00" "abcU\x02hi\x86.", "(abc,hi)"),
        C("\x80\x02S'a\\n\\x41\\'b'\n.", "a\nA'b"),
        C("\x80\x02S\"q\"\n.", "q"),
        C("V\\u00e9\\U0001F600x\n.", "\xc3\xa9\xf0\x9f\x98\x80x"),
        C("\x80\x02\x8e\x02\x00\x00\x00\x00\x00\x00\x00\x01\x02.", "b2"),
        C("\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00\x8d\x01\x00\x00\x00\x00\x00\x00\x00z\x94.",
          "z"),
        C("\x80\x02\x8a\x01\xff.", "-1"),
        C("\x80\x02\x8a\x00.", "0"),
        C("\x80\x02\x8b\x09\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff.", "-1"),
        C("\x80\x02\x8a\x02\x00\x80.", "-32768"),
        C("I-42\n.", "-42"),
        C("I01\n.", "True"),
        C("L-5L\n.", "-5"),
        C("F-2.5\n.", "-2.5"),
        C("I1\np0\n0g0\n.", "1"),
        C("\x80\x02X\x0b\x00\x00\x00" "collectionsX\x0b\x00\x00\x00OrderedDict\x93)R.", "{}"),
        C("\x80\x02" "c__torch__\nC\n)}\x92.", "<__torch__.C None>"),
        C("\x80\x02" "c__torch__\nC\n)\x81}(X\x01\x00\x00\x00xK\x01ub.", "<__torch__.C {x:1}>"),
        C("\x80\x02" "ctorch\ndevice\nX\x04\x00\x00\x00" "cudaK\x01\x86R.", "device(cuda:1)"),
        C("\x80\x02" "ctorch.jit._pickle\nrestore_type_tag\nK\x01\x85X\x0a\x00\x00\x00"
          "Tuple[int]\x86R.", "(1)"),
        C("\x80\x02" "ctorch.jit._pickle\nbuild_intlist\n](K\x01K\x02" "e\x85R.", "[1,2]"),
        C("\x80\x02" "ctorch\nfoo\n.", "global(torch.foo)"),
        C("\x80\x02\x8f(K\x01\x90.", "[1]"),
        C("\x80\x02(K\x01\x91.", "[1]"),
        C("\x80\x02K\x01K\x02K\x03\x87)\x85\x86.", "((1,2,3),(()))"),
        C("\x80\x02N\x88\x89\x87.", "(None,True,False)"),
        C("\x80\x02" "C\x01xB\x01\x00\x00\x00y\x86.", "(b1,b1)"),
#undef C
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pbuf p = {.n = 0};
        raw(&p, cases[i].bytes, cases[i].n);
        int calls = 0;
        em_ts_pickle *pk = NULL;
        ember_status *st = run(&p, &calls, &pk);
        if (st != NULL) {
            fail_msg("case %zu: %s", i, ember_status_message(st));
        }
        char buf[256] = "";
        render(em_ts_pickle_root(pk), buf, sizeof buf);
        if (strcmp(buf, cases[i].expect) != 0) {
            fail_msg("case %zu: got '%s', expected '%s'", i, buf, cases[i].expect);
        }
        em_ts_pickle_free(pk);
    }
}

/* ---- tensors built here -------------------------------------------------------------------- */

static void test_tensor_records(void **state)
{
    (void)state;
    int calls = 0;
    em_ts_pickle *pk = NULL;
    pbuf p = {.n = 0};
    /* Two tensors of storage "0" through two persistent ids (not the memo), the second with
     * torch 2.x's neg bit; a bool tensor of storage "1"; an empty metadata dict; None. */
    LIT(&p, "\x80\x02(");
    ptensor(&p, "FloatStorage", "0", 8, 2, 3, "");
    ptensor(&p, "FloatStorage", "0", 8, 5, 3, "}(\x8c\x03neg\x88u");
    ptensor(&p, "BoolStorage", "1", 4, 0, 4, "}");
    ptensor(&p, "FloatStorage", "0", 8, 8, 0, "N"); /* empty, offset at the end */
    LIT(&p, "t.");
    const em_tsv *root = run_ok(&p, &calls, &pk);
    assert_int_equal(calls, 2); /* once per key */
    const em_tsv_tensor *a = &item(root, 0, EM_TSV_TENSOR)->u.t;
    const em_tsv_tensor *b = &item(root, 1, EM_TSV_TENSOR)->u.t;
    const em_tsv_tensor *c = &item(root, 2, EM_TSV_TENSOR)->u.t;
    assert_ptr_equal(a->storage, b->storage);
    assert_ptr_equal(em_storage_data(a->storage), rec_f32);
    assert_int_equal(a->dtype, EMBER_DTYPE_F32);
    assert_int_equal(a->offset, 2);
    assert_int_equal(a->sizes[0], 3);
    assert_false(a->neg);
    assert_true(b->neg);
    assert_int_equal(b->offset, 5);
    assert_string_equal(b->key, "0");
    assert_int_equal(c->dtype, EMBER_DTYPE_BOOL);
    assert_int_equal(c->storage_numel, 4);
    assert_int_equal(item(root, 3, EM_TSV_TENSOR)->u.t.sizes[0], 0);
    em_ts_pickle_free(pk);
}

static void test_tensor_errors(void **state)
{
    (void)state;
    static const struct {
        const char *stype, *key;
        int64_t numel, off, n;
        const char *tail;
        ember_code code;
        const char *needle;
    } cases[] = {
        {"FloatStorage", "0", 8, 6, 3, "", EMBER_ERR_INVALID_MODEL, "reaches past it"},
        {"FloatStorage", "0", 8, 9, 0, "", EMBER_ERR_INVALID_MODEL, "reaches past it"},
        {"FloatStorage", "0", 8, -1, 1, "", EMBER_ERR_INVALID_MODEL, "negative"},
        {"FloatStorage", "0", 7, 0, 1, "", EMBER_ERR_INVALID_MODEL,
         "storage 0: the record holds 32 bytes, the storage needs 28"},
        {"FloatStorage", "boom", 8, 0, 1, "", EMBER_ERR_IO, "boom: disk on fire"},
        {"ComplexDoubleStorage", "0", 2, 0, 1, "", EMBER_ERR_UNSUPPORTED,
         "storage type torch.ComplexDoubleStorage is not read by ember"},
        {"QUInt4x2Storage", "0", 2, 0, 1, "", EMBER_ERR_UNSUPPORTED, "torch.QUInt4x2Storage"},
        {"Float", "0", 8, 0, 1, "", EMBER_ERR_INVALID_MODEL, "torch.<T>Storage"},
        {"QInt8Storage", "1", 4, 0, 1, "", EMBER_ERR_INVALID_MODEL,
         "quantized storage for a plain tensor"},
        {"FloatStorage", "0", 8, 0, 1, "}(\x8c\x04" "conj\x88u", EMBER_ERR_UNSUPPORTED,
         "tensor flag 'conj'"},
        {"FloatStorage", "0", 8, 0, 1, "K\x01", EMBER_ERR_INVALID_MODEL,
         "tensor metadata is a int"},
        {"FloatStorage", "0", 8, 0, 1, "NN", EMBER_ERR_INVALID_MODEL,
         "_rebuild_tensor_v2 takes 6 arguments, given tuple 8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pbuf p = {.n = 0};
        LIT(&p, "\x80\x02");
        ptensor(&p, cases[i].stype, cases[i].key, cases[i].numel, cases[i].off, cases[i].n,
                cases[i].tail);
        LIT(&p, ".");
        run_bad(&p, cases[i].code, cases[i].needle);
    }
    /* One key read as two types. */
    pbuf p = {.n = 0};
    LIT(&p, "\x80\x02");
    ptensor(&p, "FloatStorage", "0", 8, 0, 1, "");
    ptensor(&p, "IntStorage", "0", 8, 0, 1, "");
    LIT(&p, "\x86.");
    run_bad(&p, EMBER_ERR_INVALID_MODEL, "storage 0 read twice with different types");
}

/* _rebuild_qtensor(storage, offset, sizes, strides, qparams, requires_grad, hooks) of a 2x2
 * view of QInt8Storage "1", with `qp` the encoded qparams tuple. */
static void pqtensor(pbuf *p, const char *stype, void (*qp)(pbuf *))
{
    pglobal(p, "torch._utils", "_rebuild_qtensor");
    LIT(p, "(");
    ppid(p, stype, "1", 4);
    pint(p, 0);
    pints(p, 2, (const int64_t[]){2, 2});
    pints(p, 2, (const int64_t[]){2, 1});
    qp(p);
    LIT(p, "\x89");
    pglobal(p, "collections", "OrderedDict");
    LIT(p, ")RtR");
}

static void qp_tensor(pbuf *p)
{
    LIT(p, "(");
    pglobal(p, "torch", "per_tensor_affine");
    pfloat(p, 0.125);
    pint(p, -3);
    LIT(p, "t");
}

static void qp_bad_scale(pbuf *p)
{
    LIT(p, "(");
    pglobal(p, "torch", "per_tensor_affine");
    pfloat(p, 0.0);
    pint(p, 0);
    LIT(p, "t");
}

static void qp_symmetric(pbuf *p)
{
    LIT(p, "(");
    pglobal(p, "torch", "per_tensor_symmetric");
    pfloat(p, 1.0);
    pint(p, 0);
    LIT(p, "t");
}

static void qp_channel_axis(pbuf *p, int64_t axis, int64_t n)
{
    LIT(p, "(");
    pglobal(p, "torch", "per_channel_affine");
    ptensor(p, "DoubleStorage", "q", 2, 0, n, "");
    ptensor(p, "LongStorage", "z", 2, 0, n, "");
    pint(p, axis);
    LIT(p, "t");
}

static void qp_channel(pbuf *p) { qp_channel_axis(p, 1, 2); }
static void qp_channel_bad_axis(pbuf *p) { qp_channel_axis(p, 2, 2); }
static void qp_channel_bad_len(pbuf *p) { qp_channel_axis(p, 0, 1); }

static void test_qtensors(void **state)
{
    (void)state;
    int calls = 0;
    em_ts_pickle *pk = NULL;
    pbuf p = {.n = 0};
    LIT(&p, "\x80\x02");
    pqtensor(&p, "QInt8Storage", qp_tensor);
    pqtensor(&p, "QInt8Storage", qp_channel);
    LIT(&p, "\x86.");
    const em_tsv *root = run_ok(&p, &calls, &pk);
    const em_tsv_tensor *t = &item(root, 0, EM_TSV_TENSOR)->u.t;
    assert_int_equal(t->dtype, EMBER_DTYPE_I8);
    assert_int_equal(t->qscheme, EM_TS_PER_TENSOR_AFFINE);
    assert_true(t->scale == 0.125);
    assert_int_equal(t->zero_point, -3);
    t = &item(root, 1, EM_TSV_TENSOR)->u.t;
    assert_int_equal(t->qscheme, EM_TS_PER_CHANNEL_AFFINE);
    assert_int_equal(t->axis, 1);
    assert_int_equal(t->scales->u.t.dtype, EMBER_DTYPE_F64);
    assert_ptr_equal(em_storage_data(t->scales->u.t.storage), rec_f64);
    assert_int_equal(t->zero_points->u.t.dtype, EMBER_DTYPE_I64);
    assert_int_equal(calls, 3);
    em_ts_pickle_free(pk);

    static const struct {
        const char *stype;
        void (*qp)(pbuf *);
        ember_code code;
        const char *needle;
    } bad[] = {
        {"QInt8Storage", qp_bad_scale, EMBER_ERR_INVALID_MODEL, "per-tensor scale"},
        {"QInt8Storage", qp_symmetric, EMBER_ERR_UNSUPPORTED, "torch.per_tensor_symmetric"},
        {"QInt8Storage", qp_channel_bad_axis, EMBER_ERR_INVALID_MODEL, "axis outside rank 2"},
        {"QInt8Storage", qp_channel_bad_len, EMBER_ERR_INVALID_MODEL,
         "scales are not a 1-D tensor of 2 elements"},
        {"ByteStorage", qp_tensor, EMBER_ERR_INVALID_MODEL, "plain storage for a quantized"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pbuf q = {.n = 0};
        LIT(&q, "\x80\x02");
        pqtensor(&q, bad[i].stype, bad[i].qp);
        LIT(&q, ".");
        run_bad(&q, bad[i].code, bad[i].needle);
    }
}

/* ---- hostile corpus ------------------------------------------------------------------------ */

static const struct {
    const char *file;
    ember_code code;
    const char *needle;
} bad_pickles[] = {
    {"append_empty_stack.pkl", EMBER_ERR_INVALID_MODEL, "byte 4: APPEND: stack empty"},
    {"append_to_int.pkl", EMBER_ERR_INVALID_MODEL, "APPEND: applied to a int, not a list"},
    {"setitems_no_mark.pkl", EMBER_ERR_INVALID_MODEL, "byte 7: SETITEMS: no MARK before it"},
    {"tuple_no_mark.pkl", EMBER_ERR_INVALID_MODEL, "TUPLE: no MARK before it"},
    {"pop_mark_empty.pkl", EMBER_ERR_INVALID_MODEL, "POP_MARK: no MARK before it"},
    {"unknown_opcode.pkl", EMBER_ERR_INVALID_MODEL, "byte 2: opcode 0xff: unknown opcode"},
    {"inst_opcode.pkl", EMBER_ERR_UNSUPPORTED, "INST: opcode not read by ember"},
    {"memo_never_put.pkl", EMBER_ERR_INVALID_MODEL, "BINGET: memo index 5 never put"},
    {"memo_out_of_order.pkl", EMBER_ERR_INVALID_MODEL, "memo index 5 out of order"},
    {"deep_lists.pkl", EMBER_ERR_INVALID_MODEL, "nested deeper than 256 containers"},
    {"cycle.pkl", EMBER_ERR_INVALID_MODEL, "a container holds itself"},
    {"truncated.pkl", EMBER_ERR_INVALID_MODEL, "the pickle ends before STOP"},
    {"truncated_operand.pkl", EMBER_ERR_INVALID_MODEL, "BINUNICODE: truncated operand"},
    {"build_on_int.pkl", EMBER_ERR_INVALID_MODEL, "BUILD of a int, not an object"},
    {"build_twice.pkl", EMBER_ERR_INVALID_MODEL, "object __torch__.M built twice"},
    {"os_system.pkl", EMBER_ERR_UNSUPPORTED, "REDUCE: global os.system is not read by ember"},
    {"newobj_foreign.pkl", EMBER_ERR_UNSUPPORTED, "class os.Foo is not read by ember"},
    {"stop_two_values.pkl", EMBER_ERR_INVALID_MODEL, "STOP: 2 values and 0 marks"},
    {"long_too_big.pkl", EMBER_ERR_UNSUPPORTED, "LONG1: integer beyond 64 bits"},
    {"bad_utf8.pkl", EMBER_ERR_INVALID_MODEL, "string is not UTF-8"},
    {"proto_late.pkl", EMBER_ERR_INVALID_MODEL, "PROTO: not the first opcode"},
    {"complex_global.pkl", EMBER_ERR_UNSUPPORTED, "complex numbers"},
    {"persid_no_loader.pkl", EMBER_ERR_INVALID_MODEL, "a tensor (storage 0) where none"},
    {"persid_bad_key.pkl", EMBER_ERR_INVALID_MODEL, "persistent id is not"},
    {"rebuild_few_args.pkl", EMBER_ERR_INVALID_MODEL, "takes 6 arguments, given tuple 0"},
};

static void test_hostile_pickles(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_pickles / sizeof bad_pickles[0]; i++) {
        char file[128];
        snprintf(file, sizeof file, "hostile/%s", bad_pickles[i].file);
        em_storage *img = NULL;
        OK(em_storage_new_mmap(test_allocator(), data_path(file), &img));
        em_ts_pickle *pk = (em_ts_pickle *)(uintptr_t)1;
        ember_status *st = em_ts_pickle_load(em_storage_data(img), em_storage_size(img), file,
                                             NULL, NULL, test_allocator(), &pk);
        assert_null(pk);
        char ctx[160];
        snprintf(ctx, sizeof ctx, "%s: %s", file, bad_pickles[i].needle);
        assert_non_null(strstr(ember_status_message(st), file));
        expect_status(st, bad_pickles[i].code, bad_pickles[i].needle, ctx);
        em_storage_release(img);
    }
    /* 256 nested lists are allowed. */
    em_ts_pickle *pk = NULL;
    em_storage *img = NULL;
    const em_tsv *v = load_file("hostile/deep_ok.pkl", &pk, &img);
    for (int depth = 1; depth < 256; depth++) {
        v = item(v, 0, EM_TSV_LIST);
    }
    assert_int_equal(v->u.seq.n, 0);
    em_ts_pickle_free(pk);
    em_storage_release(img);
}

/* Archives whose data.pkl holds one bad tensor (its record in data/0). */
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
        OK(em_storage_new_mmap(test_allocator(), data_path(file), &img));
        OK(em_ts_zip_open(img, file, test_allocator(), &z));
        rec_ctx rc = {.z = z, .dir = "data"};
        em_ts_pickle *pk = NULL;
        ember_status *st = load_pickle(z, "data.pkl", &rc, test_allocator(), &pk);
        assert_null(pk);
        expect_status(st, bad_tensors[i].code, bad_tensors[i].needle, file);
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
    OK(em_storage_new_mmap(NULL, data_path("normal_t1.pt"), &img));
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

static void test_arena(void **state)
{
    (void)state;
    em_ts_arena a;
    em_ts_arena_init(&a, test_allocator());
    unsigned char *first = em_ts_arena_alloc(&a, 3);
    assert_non_null(first);
    assert_int_equal((uintptr_t)first % 16, 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(first[i], 0);
    }
    unsigned char *big = em_ts_arena_alloc(&a, 100000); /* a block of its own */
    unsigned char *next = em_ts_arena_alloc(&a, 8);      /* still from the first block */
    assert_non_null(big);
    assert_ptr_equal(next, first + 16);
    memset(big, 0xab, 100000);
    for (int i = 0; i < 2000; i++) {
        assert_non_null(em_ts_arena_alloc(&a, 24));
    }
    char *s = em_ts_arena_strndup(&a, "ab\0cd", 5);
    assert_memory_equal(s, "ab\0cd", 6);
    assert_null(em_ts_arena_alloc(&a, SIZE_MAX - 8));
    em_storage *st = NULL;
    OK(em_storage_new_owned(test_allocator(), 64, &st));
    OK(em_ts_arena_hold(&a, st));
    OK(em_ts_arena_hold(&a, st));
    em_storage_release(st); /* the arena's references keep it */
    assert_int_equal(((unsigned char *)em_storage_data(st))[0] * 0, 0);
    em_ts_arena_free(&a);   /* releases both: test_allocator() reports a leak otherwise */
    assert_null(a.blocks);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    em_ts_pickle *pk = NULL;
    expect_status(em_ts_pickle_load(NULL, 3, "x", NULL, NULL, NULL, &pk), EMBER_ERR_INVALID_ARG,
                  "NULL", "");
    expect_status(em_ts_pickle_load("", 0, "empty.pkl", NULL, NULL, test_allocator(), &pk),
                  EMBER_ERR_INVALID_MODEL, "empty.pkl: byte 0: STOP: truncated", "");
    assert_null(em_ts_pickle_root(NULL));
    em_ts_pickle_free(NULL);
    assert_null(em_tsv_dict_get(NULL, "a"));
    assert_string_equal(em_tsv_kind_name(EM_TSV_OBJECT), "object");
    assert_string_equal(em_tsv_kind_name((em_tsv_kind)99), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_t1),       cmocka_unit_test(test_normal_t2),
        cmocka_unit_test(test_python_pickles),  cmocka_unit_test(test_opcodes),
        cmocka_unit_test(test_tensor_records),  cmocka_unit_test(test_tensor_errors),
        cmocka_unit_test(test_qtensors),        cmocka_unit_test(test_hostile_pickles),
        cmocka_unit_test(test_hostile_tensors), cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_arena),           cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
