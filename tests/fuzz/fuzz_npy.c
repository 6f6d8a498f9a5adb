/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for loaders/npy/npy.c. Any input must come back as a status or a tensor,
 * without out-of-bounds access, leak or undefined behaviour. An input that parses must also
 * survive a round trip: writing it and reading the image back gives the same dtype, shape
 * and bytes (for string arrays, the same strings), and writing that again gives the same
 * image.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loaders/npy/npy.h"
#include "core/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    em_tensor t, back;
    em_storage *stg = NULL, *stg2 = NULL;
    void *img = NULL, *img2 = NULL;
    size_t img_size = 0, img2_size = 0;

    ember_status *st = em_npy_read(data, size, "fuzz", NULL, &t, &stg);
    check(ember_status_message(st) != NULL);
    if (st != NULL) {
        check(stg == NULL);
        ember_status_destroy(st);
        return 0;
    }
    t.data = em_storage_data(stg);
    st = em_npy_write(&t, &img, &img_size);
    if (st != NULL && t.dtype == EMBER_DTYPE_STRING) {
        /* Bytes ('|S') need not be UTF-8, which the '<U' writer requires: a clean refusal. */
        ember_status_destroy(st);
        em_storage_release(stg);
        return 0;
    }
    check(st == NULL);
    st = em_npy_read(img, img_size, "fuzz-rt", NULL, &back, &stg2);
    check(st == NULL);
    check(back.dtype == t.dtype && back.rank == t.rank);
    check(memcmp(back.dims, t.dims, sizeof t.dims) == 0);
    back.data = em_storage_data(stg2);
    if (t.dtype == EMBER_DTYPE_STRING) {
        /* Elements are pointers into each storage's own bytes: compare the strings. */
        const char *const *a = t.data, *const *b = back.data;
        for (int64_t i = 0; i < em_tensor_numel(&t); i++) {
            check(strcmp(a[i] != NULL ? a[i] : "", b[i] != NULL ? b[i] : "") == 0);
        }
    } else {
        check(em_storage_size(stg2) == em_storage_size(stg));
        check(memcmp(em_storage_data(stg2), em_storage_data(stg), em_storage_size(stg)) == 0);
    }
    st = em_npy_write(&back, &img2, &img2_size);
    check(st == NULL && img2_size == img_size && memcmp(img, img2, img_size) == 0);

    free(img2);
    free(img);
    em_storage_release(stg2);
    em_storage_release(stg);
    return 0;
}
