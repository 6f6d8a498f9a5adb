/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensor handles (ember.h). A handle's pointer array is its ordinary data; the bytes
 * belong to `keep`, a packed storage (strtensor.h) the handle holds a reference to. Handles
 * always own copies: strings made by a run are copied out of the run's storages, so a handle
 * never depends on a run, a model or another handle.
 */
#include "api/api_internal.h"

#include "core/alloc.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <string.h>

ember_status *em_api_tensor_set_strings(ember_tensor *t, const em_tensor *src)
{
    int64_t n = em_tensor_numel(src);
    em_storage *s = NULL;
    ember_status *st = em_str_pack(t->al, (const char *const *)src->data, NULL, n, &s);
    if (st != NULL) {
        return st;
    }
    if (n > 0) {
        memcpy(t->t.data, em_storage_data(s), sizeof(char *) * (size_t)n);
    }
    em_storage_release(t->keep);
    t->keep = s;
    return NULL;
}

ember_status *ember_tensor_create_strings(const int64_t *dims, int rank,
                                          const char *const *strings, ember_tensor **out)
{
    if (out == NULL) {
        return em_api_null_arg("tensor_create_strings", "out");
    }
    *out = NULL;
    ember_tensor *t = NULL;
    size_t nbytes;
    ember_status *st = em_api_check_shape("tensor_create_strings", EMBER_DTYPE_STRING, dims,
                                          rank, &nbytes);
    if (st != NULL) {
        return st;
    }
    if (strings == NULL && nbytes > 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "tensor_create_strings: NULL strings for "
                             "%zu elements", nbytes / sizeof(char *));
    }
    st = em_tensor_new_owned(NULL, EMBER_DTYPE_STRING, dims, rank, &t);
    if (st != NULL) {
        return st;
    }
    em_tensor src = t->t;
    src.data = (void *)strings;
    st = em_api_tensor_set_strings(t, &src);
    if (st != NULL) {
        ember_tensor_destroy(t);
        return st;
    }
    *out = t;
    return NULL;
}

const char *ember_tensor_string(const ember_tensor *t, int64_t i)
{
    if (t == NULL || t->kind != EMBER_VALUE_TENSOR || t->t.dtype != EMBER_DTYPE_STRING ||
        i < 0 || i >= em_tensor_numel(&t->t)) {
        return NULL;
    }
    return em_str_at(&t->t, i);
}
