/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/tensor.c: dtype sizes and names for every ember_dtype; checked element and byte
 * counts (negative dims, int64 and size_t overflow); shape strings; reference-counted
 * storage of the three kinds (owned, borrowed, mmap of a temp file) with leak-checked and
 * failure-injected allocators; a missing file is EMBER_ERR_IO naming the path.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/test_alloc.h"
#include "core/tensor.h"

static void test_dtype_table(void **state)
{
    (void)state;
    /* Sizes from the types' definitions (IEEE binary16/32/64, bfloat16, fixed-width ints). */
    static const struct {
        ember_dtype dt;
        size_t size;
        const char *name;
    } rows[] = {
        {EMBER_DTYPE_F32, sizeof(float), "f32"},
        {EMBER_DTYPE_U8, sizeof(uint8_t), "u8"},
        {EMBER_DTYPE_I8, sizeof(int8_t), "i8"},
        {EMBER_DTYPE_U16, sizeof(uint16_t), "u16"},
        {EMBER_DTYPE_I16, sizeof(int16_t), "i16"},
        {EMBER_DTYPE_I32, sizeof(int32_t), "i32"},
        {EMBER_DTYPE_I64, sizeof(int64_t), "i64"},
        {EMBER_DTYPE_STRING, sizeof(const char *), "string"},
        {EMBER_DTYPE_BOOL, 1, "bool"},
        {EMBER_DTYPE_F16, 2, "f16"},
        {EMBER_DTYPE_F64, sizeof(double), "f64"},
        {EMBER_DTYPE_U32, sizeof(uint32_t), "u32"},
        {EMBER_DTYPE_U64, sizeof(uint64_t), "u64"},
        {EMBER_DTYPE_BF16, 2, "bf16"},
        /* the low-precision types: one byte per element, whatever their width (ember.h) */
        {EMBER_DTYPE_F8E4M3FN, 1, "f8e4m3fn"},
        {EMBER_DTYPE_F8E4M3FNUZ, 1, "f8e4m3fnuz"},
        {EMBER_DTYPE_F8E5M2, 1, "f8e5m2"},
        {EMBER_DTYPE_F8E5M2FNUZ, 1, "f8e5m2fnuz"},
        {EMBER_DTYPE_U4, 1, "u4"},
        {EMBER_DTYPE_I4, 1, "i4"},
        {EMBER_DTYPE_F4E2M1, 1, "f4e2m1"},
        {EMBER_DTYPE_F8E8M0, 1, "f8e8m0"},
        {EMBER_DTYPE_U2, 1, "u2"},
        {EMBER_DTYPE_I2, 1, "i2"},
        {EMBER_DTYPE_F6E2M3, 1, "f6e2m3"},
        {EMBER_DTYPE_F6E3M2, 1, "f6e3m2"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_int_equal(em_dtype_size(rows[i].dt), rows[i].size);
        assert_int_equal(ember_dtype_size(rows[i].dt), rows[i].size);
        assert_string_equal(em_dtype_name(rows[i].dt), rows[i].name);
        assert_string_equal(ember_dtype_name(rows[i].dt), rows[i].name);
        assert_true(em_dtype_valid(rows[i].dt));
    }
    /* UNDEFINED and the unassigned numbers (14/15 = complex, 29+) */
    static const int invalid[] = {EMBER_DTYPE_UNDEFINED, 14, 15, 29, 100, -1};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        ember_dtype dt = (ember_dtype)invalid[i];
        assert_int_equal(em_dtype_size(dt), 0);
        assert_string_equal(em_dtype_name(dt), "?");
        assert_false(em_dtype_valid(dt));
    }
}

static void test_numel_checked(void **state)
{
    (void)state;
    int64_t n = -7;
    assert_true(em_shape_numel_checked(NULL, 0, &n));
    assert_int_equal(n, 1); /* a scalar has one element */
    const int64_t d1[] = {2, 3, 4, 5};
    assert_true(em_shape_numel_checked(d1, 4, &n));
    assert_int_equal(n, 120);
    const int64_t d0[] = {7, 0, 9};
    assert_true(em_shape_numel_checked(d0, 3, &n));
    assert_int_equal(n, 0);
    /* An empty tensor whose other dims multiply past INT64_MAX is refused: kernels form
     * strides from those dims (issue #17: fuzz_onnx_model found a binary kernel's overflow). */
    const int64_t big0[] = {0, INT64_MAX, INT64_MAX};
    assert_false(em_shape_numel_checked(big0, 3, &n));
    const int64_t max0[] = {0, INT64_MAX, 1};
    assert_true(em_shape_numel_checked(max0, 3, &n));
    assert_int_equal(n, 0);
    const int64_t max1[] = {INT64_MAX, 1};
    assert_true(em_shape_numel_checked(max1, 2, &n));
    assert_true(n == INT64_MAX);
    /* 2^31 * 2^31 * 2 = 2^63: one past INT64_MAX. */
    const int64_t over[] = {INT64_C(1) << 31, INT64_C(1) << 31, 2};
    assert_false(em_shape_numel_checked(over, 3, &n));
    const int64_t just[] = {INT64_C(1) << 31, INT64_C(1) << 31, 1, (INT64_C(1) << 0)};
    assert_true(em_shape_numel_checked(just, 4, &n));
    assert_true(n == INT64_C(1) << 62);
    const int64_t half[] = {INT64_MAX / 2 + 1, 2};
    assert_false(em_shape_numel_checked(half, 2, &n));
    const int64_t neg[] = {2, -1, 3};
    assert_false(em_shape_numel_checked(neg, 3, &n));
    const int64_t negmin[] = {INT64_MIN};
    assert_false(em_shape_numel_checked(negmin, 1, &n));
    const int64_t neg0[] = {0, -3};
    assert_false(em_shape_numel_checked(neg0, 2, &n));
    /* Ranks outside [0, EM_MAX_RANK]. */
    int64_t nine[EM_MAX_RANK + 1];
    for (int i = 0; i <= EM_MAX_RANK; i++) {
        nine[i] = 1;
    }
    assert_true(em_shape_numel_checked(nine, EM_MAX_RANK, &n));
    assert_int_equal(n, 1);
    assert_false(em_shape_numel_checked(nine, EM_MAX_RANK + 1, &n));
    assert_false(em_shape_numel_checked(nine, -1, &n));
}

static void test_nbytes_checked(void **state)
{
    (void)state;
    em_tensor t;
    size_t nb = 0;
    memset(&t, 0, sizeof t);
    const int64_t d[] = {3, 5, 7};
    em_tensor_set_shape(&t, EMBER_DTYPE_F32, d, 3);
    assert_true(em_tensor_nbytes_checked(&t, &nb));
    assert_int_equal(nb, 3 * 5 * 7 * 4);
    assert_int_equal(em_tensor_nbytes(&t), 3 * 5 * 7 * 4);
    assert_int_equal(em_tensor_numel(&t), 105);

    /* numel fits int64 but numel * 4 does not fit size_t (64-bit) or int64 (32-bit). */
    const int64_t huge[] = {INT64_C(1) << 62};
    em_tensor_set_shape(&t, EMBER_DTYPE_F32, huge, 1);
    assert_false(em_tensor_nbytes_checked(&t, &nb));
    em_tensor_set_shape(&t, EMBER_DTYPE_U8, huge, 1);
    assert_int_equal(em_tensor_nbytes_checked(&t, &nb), sizeof(size_t) >= 8);
    /* 2^61 f64 elements = 2^64 bytes: one past SIZE_MAX on 64-bit. */
    const int64_t e61[] = {INT64_C(1) << 61};
    em_tensor_set_shape(&t, EMBER_DTYPE_F64, e61, 1);
    assert_false(em_tensor_nbytes_checked(&t, &nb));
    const int64_t e60[] = {INT64_C(1) << 60};
    em_tensor_set_shape(&t, EMBER_DTYPE_F64, e60, 1);
    if (sizeof(size_t) >= 8) {
        assert_true(em_tensor_nbytes_checked(&t, &nb));
        assert_true(nb == (size_t)1 << 63);
    }
    const int64_t neg[] = {4, -2};
    em_tensor_set_shape(&t, EMBER_DTYPE_F32, neg, 2);
    assert_false(em_tensor_nbytes_checked(&t, &nb));
    const int64_t over[] = {INT64_MAX, 2};
    em_tensor_set_shape(&t, EMBER_DTYPE_I8, over, 2);
    assert_false(em_tensor_nbytes_checked(&t, &nb));
    /* Scalars are one element. */
    em_tensor_set_shape(&t, EMBER_DTYPE_I64, NULL, 0);
    assert_true(em_tensor_nbytes_checked(&t, &nb));
    assert_int_equal(nb, 8);
}

static void test_set_shape_and_same_shape(void **state)
{
    (void)state;
    em_tensor a, b;
    memset(&a, 0x5a, sizeof a);
    memset(&b, 0, sizeof b);
    const int64_t d[] = {1, 2, 3};
    em_tensor_set_shape(&a, EMBER_DTYPE_I32, d, 3);
    assert_int_equal(a.dtype, EMBER_DTYPE_I32);
    assert_int_equal(a.rank, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a.dims[i], d[i]);
    }
    for (int i = 3; i < EM_MAX_RANK; i++) {
        assert_int_equal(a.dims[i], 0); /* unused dims are cleared */
    }
    em_tensor_set_shape(&b, EMBER_DTYPE_F32, d, 3);
    assert_true(em_tensor_same_shape(&a, &b)); /* shape only, dtype aside */
    const int64_t e[] = {1, 2, 4};
    em_tensor_set_shape(&b, EMBER_DTYPE_I32, e, 3);
    assert_false(em_tensor_same_shape(&a, &b));
    em_tensor_set_shape(&b, EMBER_DTYPE_I32, d, 2);
    assert_false(em_tensor_same_shape(&a, &b));
}

static void test_shape_str(void **state)
{
    (void)state;
    em_tensor t;
    char buf[128];
    memset(&t, 0, sizeof t);
    const int64_t d[] = {1, 3, 224, 224};
    em_tensor_set_shape(&t, EMBER_DTYPE_F32, d, 4);
    em_tensor_shape_str(&t, buf, sizeof buf);
    assert_string_equal(buf, "f32[1,3,224,224]");
    const int64_t d1[] = {5};
    em_tensor_set_shape(&t, EMBER_DTYPE_I64, d1, 1);
    em_tensor_shape_str(&t, buf, sizeof buf);
    assert_string_equal(buf, "i64[5]");
    em_tensor_set_shape(&t, EMBER_DTYPE_BF16, NULL, 0);
    em_tensor_shape_str(&t, buf, sizeof buf);
    assert_string_equal(buf, "bf16[]");
    const int64_t d2[] = {INT64_MAX, 0};
    em_tensor_set_shape(&t, EMBER_DTYPE_BOOL, d2, 2);
    em_tensor_shape_str(&t, buf, sizeof buf);
    assert_string_equal(buf, "bool[9223372036854775807,0]");
    em_dims_str(d, 4, buf, sizeof buf);
    assert_string_equal(buf, "[1,3,224,224]");

    /* Every short buffer holds a NUL-terminated prefix of the full text, and nothing past
     * `cap` is touched. */
    const int64_t d3[] = {12, 345, 6789};
    em_tensor_set_shape(&t, EMBER_DTYPE_F16, d3, 3);
    const char *full = "f16[12,345,6789]";
    for (size_t cap = 1; cap <= strlen(full) + 2; cap++) {
        char small[64];
        memset(small, 'Z', sizeof small);
        em_tensor_shape_str(&t, small, cap);
        size_t len = strlen(small);
        assert_true(len < cap);
        assert_true(strncmp(small, full, len) == 0);
        if (cap > strlen(full)) {
            assert_string_equal(small, full);
        }
        for (size_t k = cap; k < sizeof small; k++) {
            assert_int_equal(small[k], 'Z');
        }
    }
}

static void test_storage_owned(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 63, 64, 65, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        em_storage *s = NULL;
        assert_null(em_storage_new_owned(test_allocator(), sizes[i], &s));
        assert_non_null(s);
        assert_int_equal(em_storage_kind_of(s), EM_STORAGE_OWNED);
        assert_int_equal(em_storage_size(s), sizes[i]);
        unsigned char *p = em_storage_data(s);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % EM_ALIGN, 0);
        for (size_t k = 0; k < sizes[i]; k++) {
            assert_int_equal(p[k], 0); /* owned storage starts zeroed */
        }
        memset(p, 0x7f, sizes[i]);
        em_storage_release(s);
    }
}

static void test_storage_borrowed(void **state)
{
    (void)state;
    unsigned char bytes[100];
    for (int i = 0; i < 100; i++) {
        bytes[i] = (unsigned char)(i * 3);
    }
    em_storage *s = NULL;
    assert_null(em_storage_new_borrowed(test_allocator(), bytes, sizeof bytes, &s));
    assert_int_equal(em_storage_kind_of(s), EM_STORAGE_BORROWED);
    assert_ptr_equal(em_storage_data(s), bytes);
    assert_int_equal(em_storage_size(s), sizeof bytes);
    em_storage_release(s); /* must not free or touch the caller's bytes */
    for (int i = 0; i < 100; i++) {
        assert_int_equal(bytes[i], (unsigned char)(i * 3));
    }
}

static void test_storage_refcount(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    em_storage *s = NULL;
    assert_null(em_storage_new_owned(&ca.al, 256, &s));
    assert_int_equal(ca.live, 2); /* the bytes and the storage object */
    assert_ptr_equal(em_storage_retain(s), s);
    assert_ptr_equal(em_storage_retain(s), s);
    assert_ptr_equal(em_storage_retain(s), s);
    for (int i = 0; i < 3; i++) {
        em_storage_release(s);
        assert_int_equal(ca.live, 2);
        assert_int_equal(em_storage_size(s), 256); /* still valid */
    }
    em_storage_release(s);
    assert_int_equal(ca.live, 0);
    assert_int_equal(ca.n_free, 2);
    /* NULL-safe. */
    assert_null(em_storage_retain(NULL));
    em_storage_release(NULL);
}

static void test_storage_oom(void **state)
{
    (void)state;
    for (long fail = 1; fail <= 2; fail++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = fail;
        em_storage *s = (em_storage *)&ca; /* must be reset to NULL on failure */
        ember_status *st = em_storage_new_owned(&ca.al, 100, &s);
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        ember_status_destroy(st);
        assert_null(s);
        assert_int_equal(ca.live, 0);

        unsigned char b[4];
        counting_alloc_init(&ca);
        ca.fail_at = 1;
        s = (em_storage *)&ca;
        st = em_storage_new_borrowed(&ca.al, b, sizeof b, &s);
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        assert_null(s);
        assert_int_equal(ca.live, 0);
    }
}

static void write_temp(char *path, size_t cap, const void *data, size_t n)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/ember_test_tensor_XXXXXX", dir != NULL && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    if (n > 0) {
        assert_int_equal(write(fd, data, n), (ssize_t)n);
    }
    assert_int_equal(close(fd), 0);
}

static void test_storage_mmap(void **state)
{
    (void)state;
    unsigned char bytes[10000];
    for (size_t i = 0; i < sizeof bytes; i++) {
        bytes[i] = (unsigned char)((i * 131u) ^ (i >> 8));
    }
    char path[512];
    write_temp(path, sizeof path, bytes, sizeof bytes);
    em_storage *s = NULL;
    ember_status *st = em_storage_new_mmap(test_allocator(), path, &s);
    assert_null(st);
    assert_int_equal(em_storage_kind_of(s), EM_STORAGE_MMAP);
    assert_int_equal(em_storage_size(s), sizeof bytes);
    assert_memory_equal(em_storage_data(s), bytes, sizeof bytes);
    /* The mapping stays valid after the file is removed, while a reference is held. */
    assert_int_equal(unlink(path), 0);
    em_storage *t = em_storage_retain(s);
    em_storage_release(s);
    assert_memory_equal(em_storage_data(t), bytes, sizeof bytes);
    em_storage_release(t);

    /* An empty file maps to an empty storage. */
    write_temp(path, sizeof path, NULL, 0);
    assert_null(em_storage_new_mmap(test_allocator(), path, &s));
    assert_int_equal(em_storage_size(s), 0);
    em_storage_release(s);
    unlink(path);
}

/* Resident kB of the mapping holding `addr`, from /proc/self/smaps; -1 if not found. */
static long mapping_rss_kb(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) {
        return -1;
    }
    char line[512];
    bool in = false;
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ':') != NULL &&
            line[0] != 'R') {
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        } else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb;
}

/* em_storage_drop_pages gives back the whole pages inside a range of a mapped file; the bytes
 * read the same afterwards (they come back from the file), and other kinds are left alone. */
static void test_storage_drop_pages(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    unsigned char *bytes = test_malloc(N);
    for (size_t i = 0; i < N; i++) {
        bytes[i] = (unsigned char)((i * 131u) ^ (i >> 9));
    }
    char path[512];
    write_temp(path, sizeof path, bytes, N);
    em_storage *s = NULL;
    assert_null(em_storage_new_mmap(test_allocator(), path, &s));
    assert_memory_equal(em_storage_data(s), bytes, N); /* every page resident */
    long before = mapping_rss_kb(em_storage_data(s));
    assert_true(before >= N / 1024);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    em_storage_drop_pages(s, page / 2, N / 2); /* the pages wholly inside [page/2, N/2 + page/2) */
    long after = mapping_rss_kb(em_storage_data(s));
    assert_true(after >= 0 && after <= before - (long)((N / 2 - page) / 1024));
    em_storage_drop_pages(s, N, 100);     /* past the end: nothing */
    em_storage_drop_pages(s, N - 10, 100); /* clipped to the end, no whole page: nothing */
    assert_int_equal(mapping_rss_kb(em_storage_data(s)), after);
    assert_memory_equal(em_storage_data(s), bytes, N);
    em_storage_release(s);
    unlink(path);

    assert_null(em_storage_new_owned(test_allocator(), N, &s));
    memcpy(em_storage_data(s), bytes, N);
    em_storage_drop_pages(s, 0, N);
    assert_memory_equal(em_storage_data(s), bytes, N);
    em_storage_release(s);
    test_free(bytes);
}

static void test_storage_mmap_errors(void **state)
{
    (void)state;
    const char *missing = "/nonexistent-ember-dir/weights_missing.bin";
    em_storage *s = (em_storage *)&s;
    ember_status *st = em_storage_new_mmap(test_allocator(), missing, &s);
    assert_int_equal(ember_status_code(st), EMBER_ERR_IO);
    assert_non_null(strstr(ember_status_message(st), missing));
    assert_null(s);
    ember_status_destroy(st);

    /* A directory opens but is not a regular file. */
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ember_test_dir_XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    s = (em_storage *)&s;
    st = em_storage_new_mmap(test_allocator(), dir, &s);
    assert_int_equal(ember_status_code(st), EMBER_ERR_IO);
    assert_non_null(strstr(ember_status_message(st), dir));
    assert_null(s);
    ember_status_destroy(st);
    assert_int_equal(rmdir(dir), 0);

    /* OOM while creating the storage object unmaps again (no leak, no live allocation). */
    unsigned char b[256] = {1, 2, 3};
    char path[512];
    write_temp(path, sizeof path, b, sizeof b);
    counting_alloc ca;
    counting_alloc_init(&ca);
    ca.fail_at = 1;
    st = em_storage_new_mmap(&ca.al, path, &s);
    assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
    assert_null(s);
    assert_int_equal(ca.live, 0);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_table),         cmocka_unit_test(test_numel_checked),
        cmocka_unit_test(test_nbytes_checked),      cmocka_unit_test(test_set_shape_and_same_shape),
        cmocka_unit_test(test_shape_str),           cmocka_unit_test(test_storage_owned),
        cmocka_unit_test(test_storage_borrowed),    cmocka_unit_test(test_storage_refcount),
        cmocka_unit_test(test_storage_oom),         cmocka_unit_test(test_storage_mmap),
        cmocka_unit_test(test_storage_mmap_errors), cmocka_unit_test(test_storage_drop_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
