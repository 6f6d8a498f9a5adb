/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/npy/npy.c: write/read round trips for every dtype and ranks 0..4, header-dict
 * variants, every error with its code and message, numpy-written reference files
 * (tests/data/npy, from tools/gen_npy_fixtures.py) and the malformed corpus
 * (tests/data/npy_bad). All allocations go through test_allocator(), so leaks fail.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/test_alloc.h"
#include "loaders/npy/npy.h"
#include "core/status.h"
#include "core/tensor.h"

/* ---- helpers --------------------------------------------------------------------------- */

/* A .npy image with `dict` as its header text, padded the way numpy pads; test_free it. */
static unsigned char *make_npy(int major, const char *dict, const void *data, size_t n,
                               size_t *size)
{
    size_t pre = major == 1 ? 10 : 12, dict_len = strlen(dict);
    size_t hdr = dict_len + 1;
    hdr += (64 - (pre + hdr) % 64) % 64;
    unsigned char *b = test_malloc(pre + hdr + n + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t i = 0; i < pre - 8; i++) {
        b[8 + i] = (unsigned char)(hdr >> (8 * i));
    }
    memcpy(b + pre, dict, dict_len);
    memset(b + pre + dict_len, ' ', hdr - dict_len - 1);
    b[pre + hdr - 1] = '\n';
    if (n > 0) {
        memcpy(b + pre + hdr, data, n);
    }
    *size = pre + hdr + n;
    return b;
}

/* Reads `b` and expects failure with `code` and a message "t.npy: ...<needle>...". */
static void expect_error(const void *b, size_t size, ember_code code, const char *needle)
{
    em_tensor shape;
    em_storage *stg = (em_storage *)(uintptr_t)1;
    ember_status *st = em_npy_read(b, size, "t.npy", test_allocator(), &shape, &stg);
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strncmp(msg, "t.npy: ", 7) != 0 ||
        strstr(msg, needle) == NULL) {
        print_error("got %s '%s', expected %s with '%s'\n", ember_code_name(ember_status_code(st)),
                    msg, ember_code_name(code), needle);
        fail();
    }
    assert_null(stg);
    assert_int_equal(shape.rank, 0);
    ember_status_destroy(st);
}

/* Builds an image from `dict` + `data` and expects the error. */
static void expect_dict_error(const char *dict, const void *data, size_t n, ember_code code,
                              const char *needle)
{
    size_t size;
    unsigned char *b = make_npy(1, dict, data, n, &size);
    expect_error(b, size, code, needle);
    test_free(b);
}

static unsigned char *read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    unsigned char *b = test_malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

static const char *data_dir(void)
{
    const char *d = getenv("EMBER_TEST_DATA");
    return d != NULL && d[0] != '\0' ? d : NULL;
}

static const ember_dtype all_dtypes[] = {
    EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_F16, EMBER_DTYPE_I8,
    EMBER_DTYPE_I16, EMBER_DTYPE_I32, EMBER_DTYPE_I64, EMBER_DTYPE_U8,
    EMBER_DTYPE_U16, EMBER_DTYPE_U32, EMBER_DTYPE_U64, EMBER_DTYPE_BOOL,
};
#define N_DTYPES (sizeof all_dtypes / sizeof all_dtypes[0])

/* ---- round trips ------------------------------------------------------------------------ */

static void roundtrip_one(ember_dtype dt, const int64_t *dims, int rank)
{
    em_tensor t, back;
    em_storage *stg = NULL;
    void *img = NULL;
    size_t img_size = 0, nbytes;
    em_tensor_set_shape(&t, dt, dims, rank);
    t.q = NULL;
    assert_true(em_tensor_nbytes_checked(&t, &nbytes));
    unsigned char *data = test_malloc(nbytes + 1);
    for (size_t i = 0; i < nbytes; i++) {
        data[i] = dt == EMBER_DTYPE_BOOL ? (unsigned char)(i % 2) : (unsigned char)(i * 37 + 11);
    }
    t.data = data;

    assert_null(em_npy_write(&t, &img, &img_size));
    const unsigned char *b = img;
    size_t data_off = 10 + ((size_t)b[8] | (size_t)b[9] << 8);
    assert_int_equal(b[6], 1);
    assert_int_equal(data_off % 64, 0);
    assert_int_equal(b[data_off - 1], '\n');
    assert_int_equal(img_size, data_off + nbytes);

    assert_null(em_npy_read(img, img_size, "rt", test_allocator(), &back, &stg));
    assert_int_equal(back.dtype, dt);
    assert_int_equal(back.rank, rank);
    assert_null(back.data);
    for (int i = 0; i < rank; i++) {
        assert_int_equal(back.dims[i], dims[i]);
    }
    assert_int_equal(em_storage_size(stg), nbytes);
    assert_int_equal((uintptr_t)em_storage_data(stg) % EM_ALIGN, 0);
    assert_memory_equal(em_storage_data(stg), data, nbytes);
    em_storage_release(stg);
    free(img);
    test_free(data);
}

static void test_roundtrip_dtypes_and_ranks(void **state)
{
    (void)state;
    static const int64_t shapes[][4] = {{0}, {3}, {2, 3}, {2, 1, 3}, {1, 2, 2, 3}};
    static const int64_t zero[] = {2, 0, 3};
    for (size_t d = 0; d < N_DTYPES; d++) {
        for (int rank = 0; rank <= 4; rank++) {
            roundtrip_one(all_dtypes[d], shapes[rank], rank);
        }
        roundtrip_one(all_dtypes[d], zero, 3);
    }
    static const int64_t max_rank[EMBER_MAX_RANK] = {1, 2, 1, 2, 1, 2, 1, 2};
    roundtrip_one(EMBER_DTYPE_F32, max_rank, EMBER_MAX_RANK);
}

/* The writer formats the dict as np.save does. */
static void test_write_header_text(void **state)
{
    (void)state;
    static const struct {
        ember_dtype dt;
        int rank;
        int64_t dims[3];
        const char *dict;
    } cases[] = {
        {EMBER_DTYPE_F32, 2, {2, 3}, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"},
        {EMBER_DTYPE_I64, 1, {5}, "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }"},
        {EMBER_DTYPE_F64, 0, {0}, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"},
        {EMBER_DTYPE_BOOL, 1, {0}, "{'descr': '|b1', 'fortran_order': False, 'shape': (0,), }"},
        {EMBER_DTYPE_U8,
         3,
         {1, 10, 100},
         "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 10, 100), }"},
    };
    static unsigned char zeros[1000];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        em_tensor t;
        void *img = NULL;
        size_t n = 0;
        em_tensor_set_shape(&t, cases[i].dt, cases[i].dims, cases[i].rank);
        t.data = zeros;
        t.q = NULL;
        assert_null(em_npy_write(&t, &img, &n));
        size_t len = strlen(cases[i].dict);
        assert_memory_equal((const char *)img + 10, cases[i].dict, len);
        const char *pad = (const char *)img + 10 + len;
        size_t data_off =
            10 + ((size_t)((unsigned char *)img)[8] | (size_t)((unsigned char *)img)[9] << 8);
        for (const char *p = pad; p < (const char *)img + data_off - 1; p++) {
            assert_int_equal(*p, ' ');
        }
        free(img);
    }
}

static void test_versions_2_and_3(void **state)
{
    (void)state;
    const float v[3] = {1.5f, -2.0f, 3.25f};
    for (int major = 2; major <= 3; major++) {
        size_t size;
        unsigned char *b = make_npy(
            major, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", v, sizeof v, &size);
        em_tensor t;
        em_storage *stg = NULL;
        assert_null(em_npy_read(b, size, "v", test_allocator(), &t, &stg));
        assert_int_equal(t.dtype, EMBER_DTYPE_F32);
        assert_int_equal(t.rank, 1);
        assert_int_equal(t.dims[0], 3);
        assert_memory_equal(em_storage_data(stg), v, sizeof v);
        em_storage_release(stg);
        test_free(b);
    }
}

/* Header spellings numpy accepts (or older numpy wrote), all meaning i16 [2, 3]. */
static void test_header_variants(void **state)
{
    (void)state;
    static const char *dicts[] = {
        "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3)}",
        "{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2, 3)}",
        "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i2'}",
        "{'fortran_order':False,'shape':(2,3,),'descr':'<i2',}",
        "  {  'descr'  :  '<i2'  ,\t'fortran_order' : False ,\n 'shape' : ( 2 , 3 , ) , }  ",
        "{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 3L), }",
        "{'descr': '=i2', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': 'i2', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '|i2', 'fortran_order': False, 'shape': (2, 3), }",
    };
    const int16_t v[6] = {1, -2, 3, -4, 5, 32767};
    for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
        size_t size;
        unsigned char *b = make_npy(1, dicts[i], v, sizeof v, &size);
        em_tensor t;
        em_storage *stg = NULL;
        ember_status *st = em_npy_read(b, size, "var", test_allocator(), &t, &stg);
        if (st != NULL) {
            print_error("dict %zu: %s\n", i, ember_status_message(st));
            fail();
        }
        assert_int_equal(t.dtype, EMBER_DTYPE_I16);
        assert_int_equal(t.rank, 2);
        assert_int_equal(t.dims[0], 2);
        assert_int_equal(t.dims[1], 3);
        assert_memory_equal(em_storage_data(stg), v, sizeof v);
        em_storage_release(stg);
        test_free(b);
    }
}

/* Every byte-order spelling of the 1-byte dtypes, and trailing bytes after the data. */
static void test_one_byte_orders_and_trailing_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *descr;
        ember_dtype dt;
    } cases[] = {
        {"|i1", EMBER_DTYPE_I8}, {"<i1", EMBER_DTYPE_I8},   {"|u1", EMBER_DTYPE_U8},
        {"<u1", EMBER_DTYPE_U8}, {"|b1", EMBER_DTYPE_BOOL}, {"=b1", EMBER_DTYPE_BOOL},
        {">u1", EMBER_DTYPE_U8},
    };
    const unsigned char v[4 + 5] = {1, 0, 1, 1, 'j', 'u', 'n', 'k', '!'};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (4,), }",
                 cases[i].descr);
        size_t size;
        unsigned char *b = make_npy(1, dict, v, sizeof v, &size);
        em_tensor t;
        em_storage *stg = NULL;
        assert_null(em_npy_read(b, size, NULL, test_allocator(), &t, &stg));
        assert_int_equal(t.dtype, cases[i].dt);
        assert_int_equal(em_storage_size(stg), 4);
        assert_memory_equal(em_storage_data(stg), v, 4);
        em_storage_release(stg);
        test_free(b);
    }
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_err_magic_and_preamble(void **state)
{
    (void)state;
    static const float v[2] = {1, 2};
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    size_t size;
    unsigned char *b = make_npy(1, dict, v, sizeof v, &size);

    b[3] = 'X';
    expect_error(b, size, EMBER_ERR_INVALID_MODEL, "bad magic");
    expect_error("PK\x03\x04", 4, EMBER_ERR_INVALID_MODEL, "bad magic");
    b[3] = 'M';
    expect_error(b, 0, EMBER_ERR_INVALID_MODEL, "truncated header");
    expect_error(b, 5, EMBER_ERR_INVALID_MODEL, "truncated header");
    expect_error(b, 9, EMBER_ERR_INVALID_MODEL, "truncated header");
    expect_error(b, 40, EMBER_ERR_INVALID_MODEL, "header length");
    b[8] = 0xff;
    b[9] = 0xff;
    expect_error(b, size, EMBER_ERR_INVALID_MODEL, "header length 65535 runs past the end");
    b[6] = 4;
    expect_error(b, size, EMBER_ERR_UNSUPPORTED, "version 4.0");
    b[6] = 1;
    b[7] = 1;
    expect_error(b, size, EMBER_ERR_UNSUPPORTED, "version 1.1");
    test_free(b);

    b = make_npy(2, dict, v, sizeof v, &size);
    expect_error(b, 11, EMBER_ERR_INVALID_MODEL, "truncated header");
    b[11] = 0x80; /* header length 2^31 + ... */
    expect_error(b, size, EMBER_ERR_INVALID_MODEL, "runs past the end");
    test_free(b);
}

static void test_err_malformed_dict(void **state)
{
    (void)state;
    static const struct {
        const char *dict;
        const char *needle;
    } cases[] = {
        {"", "malformed .npy header: expected '{'"},
        {"[1, 2]", "expected '{'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", "quoted key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,) 'x': 1}", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False}", "no 'shape' key"},
        {"{'fortran_order': False, 'shape': (2,)}", "no 'descr' key"},
        {"{'descr': '<f4', 'shape': (2,)}", "no 'fortran_order' key"},
        {"{'descr': '<f4', 'descr': '<f4'}", "key 'descr' appears twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "unexpected key 'x'"},
        {"{'descr': '<f4", "unterminated string"},
        {"{'descr': '<f\\x34'}", "escape"},
        {"{descr: '<f4'}", "quoted key"},
        {"{'descr' '<f4'}", "expected ':'"},
        {"{'descr': 4}", "expected a string for 'descr'"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "True or False"},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}", "True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "expected an integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}", "expected an integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}", "expected ',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk", "text after the dict"},
    };
    static const float v[2] = {1, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_dict_error(cases[i].dict, v, sizeof v, EMBER_ERR_INVALID_MODEL, cases[i].needle);
    }
    /* A NUL inside the header is not whitespace. */
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}x";
    size_t size;
    unsigned char *b = make_npy(1, dict, v, sizeof v, &size);
    b[10 + strlen(dict) - 1] = '\0';
    expect_error(b, size, EMBER_ERR_INVALID_MODEL, "text after the dict");
    test_free(b);
}

static void test_err_fortran_and_byte_order(void **state)
{
    (void)state;
    static const float v[4] = {1, 2, 3, 4};
    expect_dict_error("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", v, sizeof v,
                      EMBER_ERR_INVALID_MODEL,
                      "Fortran-order arrays are not supported; save with np.ascontiguousarray");
    expect_dict_error("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", v, sizeof v,
                      EMBER_ERR_INVALID_MODEL, "big-endian data ('>f4') is not supported");
    expect_dict_error("{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }", v, sizeof v,
                      EMBER_ERR_INVALID_MODEL, "big-endian");
}

static void test_err_dtype(void **state)
{
    (void)state;
    static const char *descrs[] = {"<c8", "<f16", "|O", "<M8", "|V2", "", "<b2", "<i3", "f"};
    static const float v[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++) {
        char dict[128], needle[64];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }",
                 descrs[i]);
        snprintf(needle, sizeof needle, "unsupported dtype '%s'", descrs[i]);
        expect_dict_error(dict, v, sizeof v, EMBER_ERR_UNSUPPORTED, needle);
    }
    expect_dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", v,
                      sizeof v, EMBER_ERR_UNSUPPORTED, "structured");
    /* A long descr with a control character is quoted shortened (32 bytes) and sanitised. */
    char dict[160], needle[64];
    snprintf(dict, sizeof dict, "{'descr': '\x01%050d', 'fortran_order': False, 'shape': (1,)}", 0);
    snprintf(needle, sizeof needle, "unsupported dtype '?%031d...'", 0);
    expect_dict_error(dict, v, sizeof v, EMBER_ERR_UNSUPPORTED, needle);
}

static void test_err_shape(void **state)
{
    (void)state;
    static const float v[4] = {1, 2, 3, 4};
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }",
                      v, sizeof v, EMBER_ERR_INVALID_MODEL, "rank above EMBER_MAX_RANK");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2), }", v, sizeof v,
                      EMBER_ERR_INVALID_MODEL, "negative dimension -2");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (99999999999999999999,), }",
                      v, sizeof v, EMBER_ERR_INVALID_MODEL, "overflows int64");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (4294967296, 4294967296), }",
                      v, sizeof v, EMBER_ERR_INVALID_MODEL, "overflows");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, "
                      "'shape': (2305843009213693952, 1), }",
                      v, sizeof v, EMBER_ERR_INVALID_MODEL, "overflows the byte size");
    /* numpy would accept this (its product is 0), but ember multiplies dims left to right
     * everywhere (em_shape_numel_checked), so a prefix that overflows is refused. */
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (4294967296, 4294967296, 0), }",
                      NULL, 0, EMBER_ERR_INVALID_MODEL, "overflows");
}

static void test_err_truncated_data(void **state)
{
    (void)state;
    static const float v[2] = {1, 2};
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", v, sizeof v,
                      EMBER_ERR_INVALID_MODEL, "has 8 bytes of data, expected 48");
    /* A huge claim is refused before anything is allocated (the test allocator would fail). */
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000), }", v,
                      sizeof v, EMBER_ERR_INVALID_MODEL, "expected 4000000000000");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", NULL, 0,
                      EMBER_ERR_INVALID_MODEL, "has 0 bytes of data, expected 4");
}

static void test_err_arguments(void **state)
{
    (void)state;
    em_tensor t;
    em_storage *stg = NULL;
    ember_status *st = em_npy_read(NULL, 10, "a", NULL, &t, &stg);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = em_npy_read("x", 1, "a", NULL, NULL, &stg);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = em_npy_read("x", 1, NULL, NULL, &t, NULL);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_true(strncmp(ember_status_message(st), "npy: ", 5) == 0);
    ember_status_destroy(st);
}

static void test_write_errors(void **state)
{
    (void)state;
    static const int64_t dims[EMBER_MAX_RANK + 1] = {2, 2, 1, 1, 1, 1, 1, 1, 1};
    static uint16_t buf[4];
    em_tensor t;
    void *img = (void *)1;
    size_t n = 99;

    em_tensor_set_shape(&t, EMBER_DTYPE_BF16, dims, 2);
    t.data = buf;
    ember_status *st = em_npy_write(&t, &img, &n);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "bf16"));
    assert_null(img);
    assert_int_equal(n, 0);
    ember_status_destroy(st);

    t.dtype = EMBER_DTYPE_U16;
    t.data = NULL;
    st = em_npy_write(&t, &img, &n);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);

    t.data = buf;
    t.dims[1] = -2;
    st = em_npy_write(&t, &img, &n);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);

    t.rank = EMBER_MAX_RANK + 1;
    st = em_npy_write(&t, &img, &n);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);

    st = em_npy_write(NULL, &img, &n);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);

    /* No data is fine when there are no bytes. */
    t.rank = 2;
    t.dims[1] = 0;
    t.data = NULL;
    assert_null(em_npy_write(&t, &img, &n));
    free(img);
}

/* Failing allocation i = 1, 2, ... gives OUT_OF_MEMORY and leaks nothing. */
static void test_oom_sweep(void **state)
{
    (void)state;
    static const double v[3] = {1, 2, 3};
    size_t size;
    unsigned char *b = make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", v,
                                sizeof v, &size);
    for (long k = 1;; k++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = k;
        em_tensor t;
        em_storage *stg = NULL;
        ember_status *st = em_npy_read(b, size, "oom", &ca.al, &t, &stg);
        if (st == NULL) {
            assert_true(k > 1);
            em_storage_release(stg);
            assert_int_equal(atomic_load(&ca.live), 0);
            break;
        }
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        assert_null(stg);
        assert_int_equal(atomic_load(&ca.live), 0);
        ember_status_destroy(st);
        assert_true(k < 10);
    }
    test_free(b);
}

/* ---- files ----------------------------------------------------------------------------- */

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? INFINITY
                        : ldexpf((float)(m + 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Element i of a reference file; see tools/gen_npy_fixtures.py. */
static void check_element(ember_dtype dt, const void *data, int64_t i)
{
    static const int64_t sscale[9] = {0, 1, 100, 0, 100000, 0, 0, 0, 1000000000000LL};
    static const uint64_t uscale[9] = {0, 1, 100, 0, 10000000, 0, 0, 0, 100000000000000000ULL};
    const double f = (double)i * 0.5 - 1.25;
    const int64_t s = (3 * i - 7) * sscale[em_dtype_size(dt)];
    const uint64_t u = 3 * (uint64_t)i * uscale[em_dtype_size(dt)] + 1;
    switch (dt) {
    case EMBER_DTYPE_F16:
        assert_true(half_to_float(((const uint16_t *)data)[i]) == (float)f);
        break;
    case EMBER_DTYPE_F32:
        assert_true(((const float *)data)[i] == (float)f);
        break;
    case EMBER_DTYPE_F64:
        assert_true(((const double *)data)[i] == f);
        break;
    case EMBER_DTYPE_I8:
        assert_int_equal(((const int8_t *)data)[i], s);
        break;
    case EMBER_DTYPE_I16:
        assert_int_equal(((const int16_t *)data)[i], s);
        break;
    case EMBER_DTYPE_I32:
        assert_int_equal(((const int32_t *)data)[i], s);
        break;
    case EMBER_DTYPE_I64:
        assert_true(((const int64_t *)data)[i] == s);
        break;
    case EMBER_DTYPE_U8:
        assert_int_equal(((const uint8_t *)data)[i], u);
        break;
    case EMBER_DTYPE_U16:
        assert_int_equal(((const uint16_t *)data)[i], u);
        break;
    case EMBER_DTYPE_U32:
        assert_int_equal(((const uint32_t *)data)[i], u);
        break;
    case EMBER_DTYPE_U64:
        assert_true(((const uint64_t *)data)[i] == u);
        break;
    case EMBER_DTYPE_BOOL:
        assert_int_equal(((const uint8_t *)data)[i], i % 3 == 0);
        break;
    default:
        fail();
    }
}

static void test_numpy_reference_files(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        ember_dtype dt;
        int rank;
        int64_t dims[4];
        int version;
    } files[] = {
        {"f32_2x3.npy", EMBER_DTYPE_F32, 2, {2, 3}, 1},
        {"f64_scalar.npy", EMBER_DTYPE_F64, 0, {0}, 1},
        {"f16_5.npy", EMBER_DTYPE_F16, 1, {5}, 1},
        {"i8_4.npy", EMBER_DTYPE_I8, 1, {4}, 1},
        {"i16_2x2.npy", EMBER_DTYPE_I16, 2, {2, 2}, 1},
        {"i32_3x1x2.npy", EMBER_DTYPE_I32, 3, {3, 1, 2}, 1},
        {"i64_2x3.npy", EMBER_DTYPE_I64, 2, {2, 3}, 1},
        {"u8_7.npy", EMBER_DTYPE_U8, 1, {7}, 1},
        {"u16_3.npy", EMBER_DTYPE_U16, 1, {3}, 1},
        {"u32_2x2.npy", EMBER_DTYPE_U32, 2, {2, 2}, 1},
        {"u64_3.npy", EMBER_DTYPE_U64, 1, {3}, 1},
        {"bool_2x3.npy", EMBER_DTYPE_BOOL, 2, {2, 3}, 1},
        {"f32_0x3.npy", EMBER_DTYPE_F32, 2, {0, 3}, 1},
        {"f32_1x2x2x3.npy", EMBER_DTYPE_F32, 4, {1, 2, 2, 3}, 1},
        {"f32_2x2_v2.npy", EMBER_DTYPE_F32, 2, {2, 2}, 2},
        {"i32_3_v3.npy", EMBER_DTYPE_I32, 1, {3}, 3},
    };
    const char *dir = data_dir();
    if (dir == NULL) {
        skip();
    }
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        size_t size;
        snprintf(path, sizeof path, "%s/npy/%s", dir, files[f].file);
        unsigned char *b = read_whole_file(path, &size);
        assert_int_equal(b[6], files[f].version);
        em_tensor t;
        em_storage *stg = NULL;
        ember_status *st = em_npy_read(b, size, files[f].file, test_allocator(), &t, &stg);
        if (st != NULL) {
            print_error("%s\n", ember_status_message(st));
            fail();
        }
        assert_int_equal(t.dtype, files[f].dt);
        assert_int_equal(t.rank, files[f].rank);
        for (int i = 0; i < t.rank; i++) {
            assert_int_equal(t.dims[i], files[f].dims[i]);
        }
        int64_t n = em_tensor_numel(&t);
        assert_int_equal(em_storage_size(stg), (size_t)n * em_dtype_size(t.dtype));
        for (int64_t i = 0; i < n; i++) {
            check_element(t.dtype, em_storage_data(stg), i);
        }
        if (files[f].version == 1) { /* the writer reproduces np.save byte for byte */
            void *img = NULL;
            size_t img_size = 0;
            t.data = em_storage_data(stg);
            assert_null(em_npy_write(&t, &img, &img_size));
            assert_int_equal(img_size, size);
            assert_memory_equal(img, b, size);
            free(img);
        }
        em_storage_release(stg);
        test_free(b);
    }
}

/* Every malformed file is rejected with a status naming it: no crash, no leak. */
static void test_malformed_corpus(void **state)
{
    (void)state;
    const char *dir = data_dir();
    if (dir == NULL) {
        skip();
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/npy_bad", dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    int n_files = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (e->d_name[0] == '.') {
            continue;
        }
        size_t size;
        snprintf(path, sizeof path, "%s/npy_bad/%s", dir, e->d_name);
        unsigned char *b = read_whole_file(path, &size);
        em_tensor t;
        em_storage *stg = NULL;
        ember_status *st = em_npy_read(b, size, e->d_name, test_allocator(), &t, &stg);
        ember_code code = ember_status_code(st);
        if (code != EMBER_ERR_INVALID_MODEL && code != EMBER_ERR_UNSUPPORTED) {
            print_error("%s: got %s '%s'\n", e->d_name, ember_code_name(code),
                        ember_status_message(st));
            fail();
        }
        assert_true(strncmp(ember_status_message(st), e->d_name, strlen(e->d_name)) == 0);
        assert_null(stg);
        ember_status_destroy(st);
        test_free(b);
        n_files++;
    }
    closedir(d);
    assert_true(n_files >= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_dtypes_and_ranks),
        cmocka_unit_test(test_write_header_text),
        cmocka_unit_test(test_versions_2_and_3),
        cmocka_unit_test(test_header_variants),
        cmocka_unit_test(test_one_byte_orders_and_trailing_bytes),
        cmocka_unit_test(test_err_magic_and_preamble),
        cmocka_unit_test(test_err_malformed_dict),
        cmocka_unit_test(test_err_fortran_and_byte_order),
        cmocka_unit_test(test_err_dtype),
        cmocka_unit_test(test_err_shape),
        cmocka_unit_test(test_err_truncated_data),
        cmocka_unit_test(test_err_arguments),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_oom_sweep),
        cmocka_unit_test(test_numpy_reference_files),
        cmocka_unit_test(test_malformed_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
