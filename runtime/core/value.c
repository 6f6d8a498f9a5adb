/* SPDX-License-Identifier: Apache-2.0 */
/* Run-time values (value.h): tensors, sequences and empty optionals. */
#include "core/value.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

void em_rv_clear(const ember_allocator *al, em_rv *v)
{
    if (v == NULL) {
        return;
    }
    em_storage_release(v->s);
    for (int i = 0; i < v->n; i++) {
        em_rv_clear(al, &v->items[i]);
    }
    em_free(al, v->items);
    memset(v, 0, sizeof *v);
}

ember_status *em_rv_share(const ember_allocator *al, const em_rv *src, em_rv *dst)
{
    *dst = *src;
    dst->items = NULL;
    dst->n = 0;
    if (src->s != NULL) {
        em_storage_retain(src->s);
    }
    if (src->kind != EM_RV_SEQUENCE || src->n == 0) {
        return NULL;
    }
    dst->items = em_calloc(al, (size_t)src->n, sizeof *dst->items);
    if (dst->items == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < src->n; i++) {
        dst->n = i + 1;
        ember_status *st = em_rv_share(al, &src->items[i], &dst->items[i]);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

ember_status *em_rv_new_tensor(const ember_allocator *al, ember_dtype dt, const int64_t *dims,
                               int rank, em_rv *out)
{
    memset(out, 0, sizeof *out);
    out->kind = EM_RV_TENSOR;
    em_tensor_set_shape(&out->t, dt, dims, rank);
    size_t nbytes;
    if (!em_tensor_nbytes_checked(&out->t, &nbytes)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "a tensor of %d dims is too large", rank);
    }
    ember_status *st = em_storage_new_owned(al, nbytes, &out->s);
    if (st != NULL) {
        return st;
    }
    out->t.data = em_storage_data(out->s);
    if (nbytes > 0) {
        memset(out->t.data, 0, nbytes);
    }
    return NULL;
}
