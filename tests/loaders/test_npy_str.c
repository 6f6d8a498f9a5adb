/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/npy/npy_str.c through em_npy_read / em_npy_write: the string fixtures numpy wrote
 * (tools/gen_string_fixtures.py: '<U' 1-D with two- and three-byte UTF-8 and an empty
 * element, 2-D with a four-byte code point, 0-D, empty, and '|S' bytes that are not UTF-8)
 * read into the strings written out here, and written back byte for byte as np.save does; the
 * refused files (big-endian unicode, a lone surrogate, truncated data) with their messages;
 * '<U0'; writing text that is not UTF-8.
 */
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
#include "core/status.h"
#include "core/strtensor.h"
#include "core/tensor.h"

/* Maps tests/data/<dir>/<file>. */
static em_storage *map_fixture(const char *dir, const char *file)
{
    char path[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s/%s", root != NULL ? root : "tests/data", dir, file);
    em_storage *s = NULL;
    OK(em_storage_new_mmap(NULL, path, &s));
    return s;
}

typedef struct str_file {
    const char *file;
    int rank;
    int64_t dims[2];
    const char *want[4];
    bool rewrites; /* '<U': em_npy_write gives numpy's bytes back */
} str_file;

static const str_file files[] = {
    {"str_u_3.npy", 1, {3}, {"\xc3\xa9", "\xe4\xb8\xadx", ""}, true},
    {"str_u_2x2.npy", 2, {2, 2}, {"a", "bb", "\xf0\x9f\x98\x80", "cccc"}, true},
    {"str_u_scalar.npy", 0, {0}, {"only"}, true},
    {"str_u_empty.npy", 1, {0}, {NULL}, true},
    {"str_s_3.npy", 1, {3}, {"ab", "\xff", ""}, false},
};

static void test_fixtures(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        const str_file *c = &files[f];
        em_storage *img = map_fixture("npy", c->file), *s = NULL;
        em_tensor t;
        OK(em_npy_read(em_storage_data(img), em_storage_size(img), c->file, test_allocator(), &t,
                       &s));
        assert_int_equal(t.dtype, EMBER_DTYPE_STRING);
        assert_int_equal(t.rank, c->rank);
        for (int d = 0; d < c->rank; d++) {
            assert_int_equal(t.dims[d], c->dims[d]);
        }
        t.data = em_storage_data(s);
        for (int64_t i = 0; i < em_tensor_numel(&t); i++) {
            if (strcmp(em_str_at(&t, i), c->want[i]) != 0) {
                fail_msg("%s: element %lld is \"%s\"", c->file, (long long)i, em_str_at(&t, i));
            }
        }
        if (c->rewrites) {
            void *out = NULL;
            size_t n = 0;
            OK(em_npy_write(&t, &out, &n));
            assert_int_equal(n, em_storage_size(img));
            assert_memory_equal(out, em_storage_data(img), n);
            free(out);
        }
        em_storage_release(s);
        em_storage_release(img);
    }
}

static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *file, *needle;
    } bad[] = {{"str_big_endian.npy", "big-endian data ('>U1')"},
               {"str_surrogate.npy", "element 0 holds a code unit that is no Unicode scalar"},
               {"str_truncated.npy", "truncated data: has 19 bytes of data, expected 24 ('<U2')"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        em_storage *img = map_fixture("npy_bad", bad[i].file), *s = NULL;
        em_tensor t;
        ember_status *st = em_npy_read(em_storage_data(img), em_storage_size(img), bad[i].file,
                                       test_allocator(), &t, &s);
        assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
        if (strstr(ember_status_message(st), bad[i].needle) == NULL) {
            fail_msg("%s: %s", bad[i].file, ember_status_message(st));
        }
        assert_null(s);
        ember_status_destroy(st);
        em_storage_release(img);
    }
}

/* A version 1.0 image of header `dict` and no data into img; returns its size. */
static size_t header_only(const char *dict, char *img)
{
    size_t hl = strlen(dict);
    memcpy(img, "\x93NUMPY\x01\x00", 8);
    img[8] = (char)hl;
    img[9] = 0;
    memcpy(img + 10, dict, hl);
    return 10 + hl;
}

static void test_write_edges(void **state)
{
    (void)state;
    /* '<U0' (numpy allows it): every element is "", but a huge count is refused. */
    char img[128];
    size_t n_img = header_only("{'descr': '<U0', 'fortran_order': False, 'shape': (2,), }\n", img);
    em_tensor t;
    em_storage *s = NULL;
    OK(em_npy_read(img, n_img, "u0.npy", test_allocator(), &t, &s));
    t.data = em_storage_data(s);
    assert_int_equal(em_tensor_numel(&t), 2);
    assert_string_equal(em_str_at(&t, 1), "");
    em_storage_release(s);
    n_img = header_only("{'descr': '<U0', 'fortran_order': False, 'shape': (9999999,), }\n", img);
    ember_status *bad_st = em_npy_read(img, n_img, "u0.npy", test_allocator(), &t, &s);
    assert_int_equal(ember_status_code(bad_st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(bad_st), "zero-length dtype"));
    ember_status_destroy(bad_st);
    /* Text that is not UTF-8 cannot become '<U'. */
    const char *bad[2] = {"ok", "\xc3("};
    int64_t n = 2;
    em_tensor_set_shape(&t, EMBER_DTYPE_STRING, &n, 1);
    t.data = (void *)bad;
    void *out = (void *)1;
    size_t size = 9;
    ember_status *st = em_npy_write(&t, &out, &size);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "element 1 is not valid UTF-8"));
    assert_null(out);
    ember_status_destroy(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_write_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
