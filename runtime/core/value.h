/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run-time values: a tensor, a sequence of tensors, or an optional without a value. The
 * interpreter (exec/interp.h) runs on them; loaders read them from files (ONNX SequenceProto /
 * OptionalProto) and the API converts them to handles. Tensors hold one reference to their
 * bytes, so values share storage instead of copying it.
 */
#ifndef EMBER_CORE_VALUE_H
#define EMBER_CORE_VALUE_H

#include "core/tensor.h"

typedef enum em_rv_kind {
    EM_RV_ABSENT = 0, /* not computed (or an absent optional input) */
    EM_RV_TENSOR,
    EM_RV_SEQUENCE,
    EM_RV_NONE        /* an optional without a value */
} em_rv_kind;

typedef struct em_rv {
    em_rv_kind kind;
    em_tensor t;          /* TENSOR: dtype and shape; t.data points into `s` */
    em_storage *s;        /* TENSOR: the bytes (one reference held) */
    ember_dtype elem;     /* SEQUENCE, NONE: the element dtype */
    int n;                /* SEQUENCE: item count */
    struct em_rv *items;  /* SEQUENCE: n tensors */
} em_rv;

void em_rv_clear(const ember_allocator *al, em_rv *v);
/* dst = another reference to src's bytes (sequences: a new item array sharing the bytes). */
ember_status *em_rv_share(const ember_allocator *al, const em_rv *src, em_rv *dst);
/* A tensor value with fresh, zeroed bytes. */
ember_status *em_rv_new_tensor(const ember_allocator *al, ember_dtype dt, const int64_t *dims,
                               int rank, em_rv *out);

#endif /* EMBER_CORE_VALUE_H */
