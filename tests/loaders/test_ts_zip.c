/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript/archive/ts_zip.c: the archives torch 1.13 and 2.x write
 * (tests/data/torchscript/archive, from tools/gen_ts_archive_fixtures.py): root, version,
 * records, stored records as aligned views that keep the image alive, deflated records
 * inflated; odd but valid zips (ZIP64, folder entries, deflated pickles); the hostile
 * corpus with the code and message each gives; and an allocation-failure sweep. All
 * allocations go through the cmocka-checked allocators, so leaks fail.
 */
#define _POSIX_C_SOURCE 200809L
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
#include "loaders/torchscript/archive/ts_zip.h"
#include "core/tensor.h"
#include "ts_archive_test_util.h"

static em_storage *map_file(const char *file, const ember_allocator *al)
{
    em_storage *s = NULL;
    OK(em_storage_new_mmap(al, ts_data_path(file), &s));
    return s;
}

static em_ts_zip *open_file(const char *file)
{
    em_storage *img = map_file(file, test_allocator());
    em_ts_zip *z = NULL;
    OK(em_ts_zip_open(img, file, test_allocator(), &z));
    em_storage_release(img); /* the archive holds its own reference */
    return z;
}

static em_storage *get(const em_ts_zip *z, const char *name)
{
    em_storage *s = NULL;
    OK(em_ts_zip_get(z, name, &s));
    assert_non_null(s);
    return s;
}

/* ---- the archives torch writes ------------------------------------------------------------ */

static void check_normal(const char *file, const char *root, bool torch2)
{
    em_ts_zip *z = open_file(file);
    assert_string_equal(em_ts_zip_root(z), root);
    assert_int_equal(em_ts_zip_version(z), 10); /* gelu(approximate=) needs format 10 */
    /* 27 storages, data.pkl, 2 code files and their debug pickles, constants/0,
     * constants.pkl, .data/version; torch 2.x adds byteorder and .data/serialization_id. */
    assert_int_equal(em_ts_zip_count(z), torch2 ? 37 : 35);
    assert_true(em_ts_zip_has(z, "data.pkl"));
    assert_true(em_ts_zip_has(z, "data/26"));
    assert_false(em_ts_zip_has(z, "data/27"));
    assert_true(em_ts_zip_has(z, "constants/0"));
    assert_false(em_ts_zip_has(z, "version")); /* format >= 6: .data/version only */
    assert_int_equal(em_ts_zip_has(z, "byteorder"), torch2);
    assert_false(em_ts_zip_has(z, root)); /* names are below the root */

    /* Every name is listed once and found; stored records are 64-byte aligned views. */
    size_t n_code = 0;
    for (size_t i = 0; i < em_ts_zip_count(z); i++) {
        const char *name = em_ts_zip_name(z, i);
        assert_true(em_ts_zip_has(z, name));
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(name, em_ts_zip_name(z, j));
        }
        em_storage *s = get(z, name);
        if (strncmp(name, "code/", 5) == 0) {
            n_code++;
            assert_int_equal(em_storage_kind_of(s), EM_STORAGE_OWNED); /* deflated */
        } else if (em_storage_size(s) > 0) {
            assert_int_equal(em_storage_kind_of(s), EM_STORAGE_BORROWED);
            assert_int_equal((uintptr_t)em_storage_data(s) % 64, 0);
        }
        em_storage_release(s);
    }
    assert_int_equal(n_code, 4);
    assert_null(em_ts_zip_name(z, em_ts_zip_count(z)));

    em_storage *v = get(z, ".data/version");
    assert_int_equal(em_storage_size(v), 3);
    assert_memory_equal(em_storage_data(v), "10\n", 3);
    em_storage_release(v);

    /* The inflated source of the root class, and the pickle framing of data.pkl. */
    em_storage *code = get(z, "code/__torch__.py");
    const char *src = em_storage_data(code);
    size_t n = em_storage_size(code);
    assert_true(n > 200);
    assert_memory_equal(src, "class Top(Module):\n", 19);
    assert_int_equal(src[n - 1], '\n');
    em_storage *pkl = get(z, "data.pkl");
    const unsigned char *p = em_storage_data(pkl);
    assert_int_equal(p[0], 0x80);
    assert_int_equal(p[1], 2);
    assert_int_equal(p[em_storage_size(pkl) - 1], '.');

    /* Views outlive the archive and the caller's image reference. */
    em_ts_zip_close(z);
    assert_memory_equal(em_storage_data(pkl), "\x80\x02", 2);
    assert_memory_equal(src, "class Top", 9);
    em_storage_release(code);
    em_storage_release(pkl);
}

static void test_normal_t1(void **state)
{
    (void)state;
    check_normal("normal_t1.pt", "normal_t1", false);
}

static void test_normal_t2(void **state)
{
    (void)state;
    if (!ts_file_exists("normal_t2.pt")) {
        skip(); /* written by the generator run with torch 2.x */
    }
    check_normal("normal_t2.pt", "normal_t2", true);
}

static void test_plain_version(void **state)
{
    (void)state;
    const char *files[] = {"plain_t1.pt", "plain_t2.pt"};
    for (int i = 0; i < 2; i++) {
        if (!ts_file_exists(files[i])) {
            continue;
        }
        em_ts_zip *z = open_file(files[i]);
        assert_int_equal(em_ts_zip_version(z), 3); /* format < 6: the record "version" */
        assert_true(em_ts_zip_has(z, "version"));
        assert_false(em_ts_zip_has(z, ".data/version"));
        em_ts_zip_close(z);
    }
}

static void test_odd_but_valid(void **state)
{
    (void)state;
    em_ts_zip *z = open_file("hostile/ok_zip64.pt");
    assert_string_equal(em_ts_zip_root(z), "archive");
    assert_int_equal(em_ts_zip_version(z), 3);
    em_ts_zip_close(z);

    z = open_file("hostile/ok_zip64_extra.pt"); /* ZIP64 extra fields in every header */
    assert_int_equal(em_ts_zip_version(z), 4);
    em_storage *pkl = get(z, "data.pkl");
    assert_memory_equal(em_storage_data(pkl), "\x80\x02" "c__torch__\nM\n", 15);
    em_storage_release(pkl);
    em_ts_zip_close(z);

    z = open_file("hostile/ok_folders.pt");
    assert_int_equal(em_ts_zip_count(z), 2); /* folder entries are not records */
    assert_string_equal(em_ts_zip_name(z, 0), "data.pkl");
    assert_string_equal(em_ts_zip_name(z, 1), "version");
    assert_false(em_ts_zip_has(z, "code/"));
    em_ts_zip_close(z);

    z = open_file("hostile/ok_deflated.pt");
    assert_int_equal(em_ts_zip_version(z), 7);
    em_storage *s = get(z, "data.pkl");
    assert_int_equal(em_storage_kind_of(s), EM_STORAGE_OWNED);
    assert_memory_equal(em_storage_data(s), "\x80\x02" "c__torch__\nM\n", 15);
    em_storage_release(s);
    em_ts_zip_close(z);
}

/* ---- hostile archives ---------------------------------------------------------------------- */

typedef struct bad_case {
    const char *file;
    const char *record; /* NULL: the open fails; else the open succeeds and this get fails */
    ember_code code;
    const char *needle;
} bad_case;

static const bad_case bad_cases[] = {
    {"not_a_zip.pt", NULL, EMBER_ERR_INVALID_MODEL, "not a valid zip archive"},
    {"torch_save.pt", NULL, EMBER_ERR_INVALID_MODEL, "legacy torch.save() pickle"},
    {"preview.pt", NULL, EMBER_ERR_UNSUPPORTED, "preview release"},
    {"truncated.pt", NULL, EMBER_ERR_INVALID_MODEL, "not a valid zip archive"},
    {"empty.pt", NULL, EMBER_ERR_INVALID_MODEL, "empty archive"},
    {"dotdot.pt", NULL, EMBER_ERR_INVALID_MODEL, "hostile record name: archive/code/../../evil.py"},
    {"absolute.pt", NULL, EMBER_ERR_INVALID_MODEL, "hostile record name: /etc/evil"},
    {"no_root.pt", NULL, EMBER_ERR_INVALID_MODEL, "record outside a root folder: data.pkl"},
    {"outside_root.pt", NULL, EMBER_ERR_INVALID_MODEL, "outside the root folder: other/data.pkl"},
    {"backslash.pt", NULL, EMBER_ERR_INVALID_MODEL, "hostile record name: archive/code\\evil.py"},
    /* libzip refuses duplicates itself (ZIP_CHECKCONS); ts_zip.c checks again. */
    {"duplicate.pt", NULL, EMBER_ERR_INVALID_MODEL, "File already exists"},
    {"overlap.pt", NULL, EMBER_ERR_INVALID_MODEL, "overlapping records: archive/code/b.py"},
    {"past_end.pt", NULL, EMBER_ERR_INVALID_MODEL, "not a valid zip archive"},
    {"local_mismatch.pt", NULL, EMBER_ERR_INVALID_MODEL, "not a valid zip archive"},
    {"encrypted.pt", NULL, EMBER_ERR_UNSUPPORTED, "encrypted record archive/extra/secret"},
    {"bzip2.pt", NULL, EMBER_ERR_UNSUPPORTED, "archive/code/m.py: compression method 12"},
    {"no_version.pt", NULL, EMBER_ERR_INVALID_MODEL, "no version record"},
    {"bad_version.pt", NULL, EMBER_ERR_INVALID_MODEL, "record version is not a decimal number"},
    {"version_0.pt", NULL, EMBER_ERR_INVALID_MODEL, "file format version 0"},
    {"version_11.pt", NULL, EMBER_ERR_UNSUPPORTED, "file format version above 10"},
    {"bomb_claim.pt", "code/bomb.py", EMBER_ERR_INVALID_MODEL,
     "archive/code/bomb.py claims to inflate 1024 bytes to 3221225472"},
    {"bomb_excess.pt", "code/bomb.py", EMBER_ERR_INVALID_MODEL,
     "inflates to more than its directory entry says: archive/code/bomb.py"},
    {"bad_crc.pt", "code/m.py", EMBER_ERR_INVALID_MODEL,
     "record 'archive/code/m.py': CRC-32 mismatch (stored 0x000004d2, computed 0x31b9a503)"},
    {"ok_zip64.pt", "data/0", EMBER_ERR_INVALID_MODEL, "no record archive/data/0"},
    /* hostile_archives_crc(): one bit flipped in a stored record, its CRC-32 left stale. */
    {"crc_version.pt", NULL, EMBER_ERR_INVALID_MODEL,
     "record 'plain_t1/version': CRC-32 mismatch (stored 0x55679ed1, computed 0x4c7caf90)"},
    {"crc_weight.pt", "data/0", EMBER_ERR_INVALID_MODEL,
     "record 'plain_t1/data/0': CRC-32 mismatch (stored 0xbb7489b5, computed 0x56cc0a95)"},
    {"crc_pickle.pt", "data.pkl", EMBER_ERR_INVALID_MODEL,
     "record 'plain_t1/data.pkl': CRC-32 mismatch (stored 0x7735d691, computed 0xeb6eed70)"},
    {"crc_code.pt", "code/__torch__.py", EMBER_ERR_INVALID_MODEL,
     "record 'plain_t1/code/__torch__.py': CRC-32 mismatch"},
    {"no_version_record.pt", NULL, EMBER_ERR_INVALID_MODEL,
     "no version record (.data/version or version)"},
};

static void test_hostile(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char file[128];
        snprintf(file, sizeof file, "hostile/%s", c->file);
        em_storage *img = map_file(file, test_allocator());
        em_ts_zip *z = (em_ts_zip *)(uintptr_t)1;
        ember_status *st = em_ts_zip_open(img, file, test_allocator(), &z);
        em_storage_release(img);
        if (c->record == NULL) {
            assert_null(z);
            ts_expect(st, c->code, c->needle, file);
            continue;
        }
        OK(st);
        em_storage *s = (em_storage *)(uintptr_t)1;
        ts_expect(em_ts_zip_get(z, c->record, &s), c->code, c->needle, file);
        assert_null(s);
        em_ts_zip_close(z);
    }
}

/* EM_TS_ZIP_TRUST_CRC hands out a stored record unchecked (the flipped bit is there); a
 * deflated one is checked by libzip whatever the flags. Every stored record of the normal
 * archives passes the check (check_normal reads them all). */
static void test_trust_crc(void **state)
{
    (void)state;
    em_ts_zip *z = open_file("hostile/crc_weight.pt");
    em_storage *s = NULL;
    ts_expect(em_ts_zip_read(z, "data/0", 0, &s), EMBER_ERR_INVALID_MODEL, "CRC-32 mismatch",
              "hostile/crc_weight.pt");
    assert_null(s);
    OK(em_ts_zip_read(z, "data/0", EM_TS_ZIP_TRUST_CRC, &s));
    const float want[2] = {2.0f, -3.0f}; /* [2, 3] with the sign bit of 3 flipped */
    assert_int_equal(em_storage_size(s), sizeof want);
    assert_memory_equal(em_storage_data(s), want, sizeof want);
    em_storage_release(s);
    s = get(z, "data.pkl");
    em_storage_release(s);
    em_ts_zip_close(z);
    z = open_file("hostile/bad_crc.pt");
    s = NULL;
    ts_expect(em_ts_zip_read(z, "code/m.py", EM_TS_ZIP_TRUST_CRC, &s), EMBER_ERR_INVALID_MODEL,
              "record 'archive/code/m.py': CRC-32 mismatch", "hostile/bad_crc.pt");
    assert_null(s);
    em_ts_zip_close(z);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    em_ts_zip *z = NULL;
    ts_expect(em_ts_zip_open(NULL, "x", NULL, &z), EMBER_ERR_INVALID_ARG, "NULL", NULL);
    z = open_file("plain_t1.pt");
    ts_expect(em_ts_zip_get(z, NULL, NULL), EMBER_ERR_INVALID_ARG, "NULL", NULL);
    ts_expect(em_ts_zip_read(NULL, "data.pkl", 0, NULL), EMBER_ERR_INVALID_ARG, "NULL", NULL);
    em_storage *s = NULL;
    ts_expect(em_ts_zip_get(z, "", &s), EMBER_ERR_INVALID_MODEL, "no record plain_t1/",
                  "plain_t1.pt");
    ts_expect(em_ts_zip_get(z, "../plain_t1/version", &s), EMBER_ERR_INVALID_MODEL,
                  "no record", "plain_t1.pt");
    em_ts_zip_close(z);
    em_ts_zip_close(NULL);
}

/* An in-memory image (a borrowed storage over a stack buffer) works like a mapped file. */
static void test_memory_image(void **state)
{
    (void)state;
    em_storage *file = map_file("plain_t1.pt", NULL);
    size_t n = em_storage_size(file);
    unsigned char *copy = test_malloc(n);
    memcpy(copy, em_storage_data(file), n);
    em_storage_release(file);
    em_storage *img = NULL;
    OK(em_storage_new_borrowed(test_allocator(), copy, n, &img));
    em_ts_zip *z = NULL;
    OK(em_ts_zip_open(img, "mem", test_allocator(), &z));
    em_storage *k = get(z, "data/0"); /* the buffer Plain.k = [2, 3] */
    float want[2] = {2.0f, 3.0f};
    assert_int_equal(em_storage_size(k), sizeof want);
    assert_memory_equal(em_storage_data(k), want, sizeof want);
    const unsigned char *kp = em_storage_data(k);
    assert_true(kp >= copy && kp + sizeof want <= copy + n); /* a view, not a copy */
    em_ts_zip_close(z);
    em_storage_release(img);
    em_storage_release(k); /* the last reference to the image */
    test_free(copy);
}

/* Every allocation of open + get fails in turn: a clean OOM status and nothing leaked. */
static void test_alloc_failures(void **state)
{
    (void)state;
    em_storage *img = map_file("normal_t1.pt", NULL);
    long total = 0;
    for (long fail_at = 1;; fail_at++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = fail_at;
        em_ts_zip *z = NULL;
        em_storage *s = NULL, *c = NULL;
        ember_status *st = em_ts_zip_open(img, "n.pt", &ca.al, &z);
        if (st == NULL) {
            st = em_ts_zip_get(z, "data/3", &s);
        }
        if (st == NULL) {
            st = em_ts_zip_get(z, "code/__torch__.py", &c);
        }
        em_storage_release(s);
        em_storage_release(c);
        em_ts_zip_close(z);
        assert_int_equal(ca.live, 0);
        if (st == NULL) {
            total = fail_at;
            break;
        }
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        ember_status_destroy(st);
    }
    assert_true(total > 5);
    em_storage_release(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_t1),      cmocka_unit_test(test_normal_t2),
        cmocka_unit_test(test_plain_version),  cmocka_unit_test(test_odd_but_valid),
        cmocka_unit_test(test_hostile),        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_memory_image),   cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_trust_crc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
