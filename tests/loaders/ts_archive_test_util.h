/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the TorchScript archive tests (test_ts_zip.c, test_ts_pickle.c,
 * test_ts_pickle_ops.c): fixture paths under tests/data/torchscript/archive, status checks
 * and list items. Include after <cmocka.h>.
 */
#ifndef EMBER_TESTS_LOADERS_TS_TEST_UTIL_H
#define EMBER_TESTS_LOADERS_TS_TEST_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember.h"
#include "loaders/torchscript/archive/ts_pickle.h"

/* tests/data/torchscript/archive/<file> (EMBER_TEST_DATA is set by ctest); a static buffer. */
static inline const char *ts_data_path(const char *file)
{
    static char buf[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/torchscript/archive/%s", root != NULL ? root : "tests/data",
             file);
    return buf;
}

static inline bool ts_file_exists(const char *file)
{
    FILE *f = fopen(ts_data_path(file), "rb");
    if (f != NULL) {
        fclose(f);
    }
    return f != NULL;
}

/* Fails unless `st` has `code` and a message containing `needle` and (when not NULL)
 * `name`; destroys `st`. */
static inline void ts_expect(ember_status *st, ember_code code, const char *needle,
                             const char *name)
{
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strstr(msg, needle) == NULL ||
        (name != NULL && strstr(msg, name) == NULL)) {
        print_error("%s: got %s '%s', expected %s with '%s'\n", name != NULL ? name : "",
                    ember_code_name(ember_status_code(st)), msg, ember_code_name(code), needle);
        fail();
    }
    ember_status_destroy(st);
}

/* Item i of a tuple or list, checked to be of `kind`. */
static inline const em_tsv *ts_item(const em_tsv *seq, size_t i, em_tsv_kind kind)
{
    assert_true(seq->kind == EM_TSV_TUPLE || seq->kind == EM_TSV_LIST);
    assert_true(i < seq->u.seq.n);
    assert_int_equal(seq->u.seq.items[i]->kind, kind);
    return seq->u.seq.items[i];
}

#endif /* EMBER_TESTS_LOADERS_TS_TEST_UTIL_H */
