/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for loaders/torchscript/archive/ts_zip.c, and the pickle layer behind it: the
 * input is a whole archive. Any input must come back as a status or an open archive
 * without out-of-bounds access, leak or undefined behaviour. An open archive must keep the
 * header's promises: every listed name is found, unique under the root, and its record
 * reads (or is refused cleanly) with the bytes inside the image for stored records (the
 * first and last bytes are read, so ASan checks the bounds). Then data.pkl is unpickled
 * with its storages from data/, as the loader will do.
 * Seeds: tests/fuzz/corpus/fuzz_ts_zip (tools/gen_ts_archive_fixtures.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaders/torchscript/archive/ts_pickle.h"
#include "loaders/torchscript/archive/ts_zip.h"
#include "core/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

static ember_status *record(void *ctx, const char *key, em_storage **out)
{
    char name[256];
    snprintf(name, sizeof name, "data/%s", key);
    return em_ts_zip_get(ctx, name, out);
}

static void read_all(const em_ts_zip *z, const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < em_ts_zip_count(z); i++) {
        const char *name = em_ts_zip_name(z, i);
        check(name != NULL && em_ts_zip_has(z, name) && strstr(name, "..") == NULL);
        em_storage *s = NULL;
        ember_status *st = em_ts_zip_get(z, name, &s);
        check(ember_status_message(st) != NULL);
        if (st != NULL) {
            check(s == NULL);
            ember_status_destroy(st);
            continue;
        }
        const volatile unsigned char *b = em_storage_data(s);
        size_t n = em_storage_size(s);
        if (em_storage_kind_of(s) == EM_STORAGE_BORROWED && n > 0) {
            check((const uint8_t *)b >= data && (const uint8_t *)b + n <= data + size);
        }
        if (n > 0) {
            (void)b[0];
            (void)b[n - 1];
        }
        em_storage_release(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    em_storage *img = NULL;
    em_ts_zip *z = NULL;
    check(em_storage_new_borrowed(NULL, (void *)(uintptr_t)data, size, &img) == NULL);
    ember_status *st = em_ts_zip_open(img, "fuzz.pt", NULL, &z);
    em_storage_release(img);
    check(ember_status_message(st) != NULL);
    if (st != NULL) {
        check(z == NULL);
        ember_status_destroy(st);
        return 0;
    }
    check(em_ts_zip_root(z) != NULL && em_ts_zip_version(z) >= 1 &&
          em_ts_zip_version(z) <= EM_TS_MAX_FILE_VERSION);
    read_all(z, data, size);
    em_storage *pkl = NULL;
    st = em_ts_zip_has(z, "data.pkl") ? em_ts_zip_get(z, "data.pkl", &pkl) : NULL;
    ember_status_destroy(st);
    if (pkl != NULL) {
        em_ts_pickle *pk = NULL;
        st = em_ts_pickle_load(em_storage_data(pkl), em_storage_size(pkl), "fuzz.pt: data.pkl",
                               record, z, NULL, &pk);
        ember_status_destroy(st);
        em_ts_pickle_free(pk);
        em_storage_release(pkl);
    }
    em_ts_zip_close(z);
    return 0;
}
