/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript/ts_pickle*.c on pickles that are not torch archives: Python's own
 * pickler (protocols 0, 2, 4, from tools/gen_ts_archive_fixtures.py), opcodes one by one,
 * tensors, storages and quantized tensors built here with fake storage records, the hostile
 * corpus (the .pkl files of tests/data/torchscript/archive/hostile) with the code and
 * message each gives, the bump arena, and argument checks. All allocations go through
 * test_allocator().
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
#include "loaders/torchscript/archive/ts_arena.h"
#include "loaders/torchscript/archive/ts_pickle.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ts_archive_test_util.h"

/* ---- Python's own pickles ------------------------------------------------------------------ */

static const em_tsv *load_file(const char *file, em_ts_pickle **pk, em_storage **img)
{
    OK(em_storage_new_mmap(test_allocator(), ts_data_path(file), img));
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
        assert_int_equal(ts_item(v, i, EM_TSV_INT)->u.i, ints[i]);
    }
    v = em_tsv_dict_get(root, "floats");
    assert_true(ts_item(v, 0, EM_TSV_FLOAT)->u.f == 0.5);
    assert_true(ts_item(v, 1, EM_TSV_FLOAT)->u.f == -1e300);
    assert_true(isinf(ts_item(v, 2, EM_TSV_FLOAT)->u.f));
    v = em_tsv_dict_get(root, "text");
    assert_int_equal(ts_item(v, 0, EM_TSV_STR)->u.str.n, 0);
    assert_string_equal(ts_item(v, 1, EM_TSV_STR)->u.str.s, "plain");
    assert_string_equal(ts_item(v, 2, EM_TSV_STR)->u.str.s,
                        "\xc3\xbcn\xc3\xaf\x63\xc3\xb6\x64\xc3\xa9 \xe2\x82\xac");
    assert_int_equal(ts_item(v, 3, EM_TSV_STR)->u.str.n, 300);
    /* ([1, [2, [3, []]]], {"k": (None, True, False)}) */
    v = em_tsv_dict_get(root, "nested");
    assert_int_equal(v->kind, EM_TSV_TUPLE);
    const em_tsv *l = ts_item(v, 0, EM_TSV_LIST);
    for (int depth = 1; depth <= 3; depth++) {
        assert_int_equal(ts_item(l, 0, EM_TSV_INT)->u.i, depth);
        l = ts_item(l, 1, EM_TSV_LIST);
    }
    assert_int_equal(l->u.seq.n, 0);
    const em_tsv *k = em_tsv_dict_get(ts_item(v, 1, EM_TSV_DICT), "k");
    assert_int_equal(ts_item(k, 0, EM_TSV_NONE)->kind, EM_TSV_NONE);
    assert_true(ts_item(k, 1, EM_TSV_BOOL)->u.b);
    assert_false(ts_item(k, 2, EM_TSV_BOOL)->u.b);
    v = em_tsv_dict_get(root, "shared");
    assert_ptr_equal(ts_item(v, 0, EM_TSV_LIST), ts_item(v, 1, EM_TSV_LIST)); /* one list, memo */
    assert_int_equal(ts_item(ts_item(v, 0, EM_TSV_LIST), 1, EM_TSV_INT)->u.i, 8);
    if (proto >= 4) {
        v = em_tsv_dict_get(root, "bytes");
        assert_int_equal(v->kind, EM_TSV_BYTES);
        assert_int_equal(v->u.str.n, 4);
        assert_memory_equal(v->u.str.s, "\x00\xff" "ab", 4);
        v = em_tsv_dict_get(root, "set");
        assert_string_equal(v->u.seq.type_tag, "set");
        assert_int_equal(ts_item(v, 0, EM_TSV_INT)->u.i, 5);
        v = em_tsv_dict_get(root, "frozen");
        assert_string_equal(v->u.seq.type_tag, "frozenset");
        assert_int_equal(ts_item(v, 0, EM_TSV_INT)->u.i, 6);
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
    /* Messages name the pickle, except the record callback's own, which pass through. */
    ts_expect(run(p, &calls, &pk), code, needle, code == EMBER_ERR_IO ? NULL : "t.pkl");
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
    const em_tsv_tensor *a = &ts_item(root, 0, EM_TSV_TENSOR)->u.t;
    const em_tsv_tensor *b = &ts_item(root, 1, EM_TSV_TENSOR)->u.t;
    const em_tsv_tensor *c = &ts_item(root, 2, EM_TSV_TENSOR)->u.t;
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
    assert_int_equal(ts_item(root, 3, EM_TSV_TENSOR)->u.t.sizes[0], 0);
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

/* Quantizer parameters: per-tensor (scale, zero point) when n == 0, else per-channel along
 * `axis` with n scales (record "q", f64) and zero points (record "z", i64). */
typedef struct qspec {
    const char *scheme;
    double scale;
    int64_t zero_point, axis, n;
    bool int_scale; /* the per-tensor scale pickled as an int (malformed) */
} qspec;

/* _rebuild_qtensor(storage, offset, sizes, strides, qparams, requires_grad, hooks) of a 2x2
 * view of storage "1" of type `stype`. */
static void pqtensor(pbuf *p, const char *stype, const qspec *q)
{
    pglobal(p, "torch._utils", "_rebuild_qtensor");
    LIT(p, "(");
    ppid(p, stype, "1", 4);
    pint(p, 0);
    pints(p, 2, (const int64_t[]){2, 2});
    pints(p, 2, (const int64_t[]){2, 1});
    LIT(p, "(");
    pglobal(p, "torch", q->scheme);
    if (q->n == 0 && q->int_scale) {
        pint(p, (int64_t)q->scale);
        pint(p, q->zero_point);
    } else if (q->n == 0) {
        pfloat(p, q->scale);
        pint(p, q->zero_point);
    } else {
        ptensor(p, "DoubleStorage", "q", 2, 0, q->n, "");
        ptensor(p, "LongStorage", "z", 2, 0, q->n, "");
        pint(p, q->axis);
    }
    LIT(p, "t\x89");
    pglobal(p, "collections", "OrderedDict");
    LIT(p, ")RtR");
}

static void test_qtensors(void **state)
{
    (void)state;
    int calls = 0;
    em_ts_pickle *pk = NULL;
    pbuf p = {.n = 0};
    LIT(&p, "\x80\x02");
    pqtensor(&p, "QInt8Storage", &(qspec){"per_tensor_affine", 0.125, -3, 0, 0, false});
    pqtensor(&p, "QInt8Storage", &(qspec){"per_channel_affine", 0, 0, 1, 2, false});
    LIT(&p, "\x86.");
    const em_tsv *root = run_ok(&p, &calls, &pk);
    const em_tsv_tensor *t = &ts_item(root, 0, EM_TSV_TENSOR)->u.t;
    assert_int_equal(t->dtype, EMBER_DTYPE_I8);
    assert_int_equal(t->qscheme, EM_TS_PER_TENSOR_AFFINE);
    assert_true(t->scale == 0.125);
    assert_int_equal(t->zero_point, -3);
    t = &ts_item(root, 1, EM_TSV_TENSOR)->u.t;
    assert_int_equal(t->qscheme, EM_TS_PER_CHANNEL_AFFINE);
    assert_int_equal(t->axis, 1);
    assert_int_equal(t->scales->u.t.dtype, EMBER_DTYPE_F64);
    assert_ptr_equal(em_storage_data(t->scales->u.t.storage), rec_f64);
    assert_int_equal(t->zero_points->u.t.dtype, EMBER_DTYPE_I64);
    assert_int_equal(calls, 3);
    em_ts_pickle_free(pk);
    /* A per-tensor scale out of range (0, negative, NaN) is carried as it is: its range is
     * checked where the tensor is used (ts_value.c's qparams_init, as for per-channel scales),
     * whose message names the module attribute (test_api_ts_quant's bad/ fixtures). */
    static const double odd[] = {0.0, -0.5, NAN};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        pbuf o = {.n = 0};
        LIT(&o, "\x80\x02");
        pqtensor(&o, "QInt8Storage", &(qspec){"per_tensor_affine", odd[i], 200, 0, 0, false});
        LIT(&o, ".");
        calls = 0;
        root = run_ok(&o, &calls, &pk);
        assert_int_equal(root->kind, EM_TSV_TENSOR);
        assert_true(root->u.t.scale == odd[i] || (isnan(odd[i]) && isnan(root->u.t.scale)));
        assert_int_equal(root->u.t.zero_point, 200);
        em_ts_pickle_free(pk);
    }

    static const struct {
        const char *stype;
        qspec q;
        ember_code code;
        const char *needle;
    } bad[] = {
        {"QInt8Storage", {"per_tensor_affine", 1.0, 0, 0, 0, true}, EMBER_ERR_INVALID_MODEL,
         "per-tensor scale not a float"},
        {"QInt8Storage", {"per_tensor_symmetric", 1.0, 0, 0, 0, false}, EMBER_ERR_UNSUPPORTED,
         "torch.per_tensor_symmetric"},
        {"QInt8Storage", {"per_channel_affine", 0, 0, 2, 2, false}, EMBER_ERR_INVALID_MODEL,
         "axis outside rank 2"},
        {"QInt8Storage", {"per_channel_affine", 0, 0, 0, 1, false}, EMBER_ERR_INVALID_MODEL,
         "scales are not a 1-D tensor of 2 elements"},
        {"ByteStorage", {"per_tensor_affine", 0.125, 0, 0, 0, false}, EMBER_ERR_INVALID_MODEL,
         "plain storage for a quantized"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pbuf q = {.n = 0};
        LIT(&q, "\x80\x02");
        pqtensor(&q, bad[i].stype, &bad[i].q);
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
        OK(em_storage_new_mmap(test_allocator(), ts_data_path(file), &img));
        em_ts_pickle *pk = (em_ts_pickle *)(uintptr_t)1;
        ember_status *st = em_ts_pickle_load(em_storage_data(img), em_storage_size(img), file,
                                             NULL, NULL, test_allocator(), &pk);
        assert_null(pk);
        ts_expect(st, bad_pickles[i].code, bad_pickles[i].needle, file);
        em_storage_release(img);
    }
    /* 256 nested lists are allowed. */
    em_ts_pickle *pk = NULL;
    em_storage *img = NULL;
    const em_tsv *v = load_file("hostile/deep_ok.pkl", &pk, &img);
    for (int depth = 1; depth < 256; depth++) {
        v = ts_item(v, 0, EM_TSV_LIST);
    }
    assert_int_equal(v->u.seq.n, 0);
    em_ts_pickle_free(pk);
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
    ts_expect(em_ts_pickle_load(NULL, 3, "x", NULL, NULL, NULL, &pk), EMBER_ERR_INVALID_ARG,
              "NULL", NULL);
    ts_expect(em_ts_pickle_load("", 0, "empty.pkl", NULL, NULL, test_allocator(), &pk),
              EMBER_ERR_INVALID_MODEL, "empty.pkl: byte 0: STOP: truncated", NULL);
    assert_null(em_ts_pickle_root(NULL));
    em_ts_pickle_free(NULL);
    assert_null(em_tsv_dict_get(NULL, "a"));
    assert_string_equal(em_tsv_kind_name(EM_TSV_OBJECT), "object");
    assert_string_equal(em_tsv_kind_name((em_tsv_kind)99), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_pickles), cmocka_unit_test(test_opcodes),
        cmocka_unit_test(test_tensor_records), cmocka_unit_test(test_tensor_errors),
        cmocka_unit_test(test_qtensors),       cmocka_unit_test(test_hostile_pickles),
        cmocka_unit_test(test_arena),          cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
