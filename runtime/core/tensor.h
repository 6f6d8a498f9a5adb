/* SPDX-License-Identifier: Apache-2.0 */
/*
 * em_tensor: the view kernels see. Always dense and C-ordered; `data` may be NULL while
 * planning (shape only). Quantization parameters are attached by pointer and follow
 * real = (q - zero_point) * scale, per tensor (axis = -1, n = 1) or per channel along `axis`.
 * em_storage: reference-counted bytes that back weights; owned (aligned heap), borrowed from
 * the caller, or a read-only memory map of a file.
 */
#ifndef EMBER_CORE_TENSOR_H
#define EMBER_CORE_TENSOR_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_MAX_RANK EMBER_MAX_RANK

typedef struct em_qparams {
    int axis;             /* -1 = per tensor */
    int64_t n;            /* number of (scale, zero_point) pairs: 1 or dims[axis] */
    const float *scale;   /* n entries */
    const int32_t *zero_point; /* n entries */
} em_qparams;

typedef struct em_tensor {
    ember_dtype dtype;
    int rank;
    int64_t dims[EM_MAX_RANK];
    void *data;
    const em_qparams *q; /* NULL when not quantized */
} em_tensor;

typedef enum em_storage_kind {
    EM_STORAGE_OWNED = 0, /* em_big_alloc'ed, freed with the storage */
    EM_STORAGE_BORROWED,  /* caller memory that outlives the storage */
    EM_STORAGE_MMAP       /* a read-only mapping, unmapped with the storage */
} em_storage_kind;

typedef struct em_storage em_storage;

/* dtype helpers (also behind ember_dtype_size/_name). */
size_t em_dtype_size(ember_dtype dt);
const char *em_dtype_name(ember_dtype dt);
bool em_dtype_valid(ember_dtype dt);

/* Number of elements; 1 for rank 0. */
int64_t em_tensor_numel(const em_tensor *t);
/* numel with overflow checks; false when a dim is negative or the product of the non-zero
 * dims overflows (an empty tensor too: kernels form strides from its other dims). */
bool em_shape_numel_checked(const int64_t *dims, int rank, int64_t *numel);
/* Byte size, checked; false on overflow or a negative dim. */
bool em_tensor_nbytes_checked(const em_tensor *t, size_t *nbytes);
size_t em_tensor_nbytes(const em_tensor *t);
void em_tensor_set_shape(em_tensor *t, ember_dtype dt, const int64_t *dims, int rank);
bool em_tensor_same_shape(const em_tensor *a, const em_tensor *b);
/* "f32[1,3,224,224]" into buf (always NUL-terminated). */
void em_tensor_shape_str(const em_tensor *t, char *buf, size_t cap);
void em_dims_str(const int64_t *dims, int rank, char *buf, size_t cap);

/* Storage: all functions are NULL-safe where they take a storage. Refcount is atomic. */
ember_status *em_storage_new_owned(const ember_allocator *al, size_t nbytes, em_storage **out);
ember_status *em_storage_new_borrowed(const ember_allocator *al, void *data, size_t nbytes,
                                      em_storage **out);
/* Maps `path` read-only. Fails with IO naming the file. */
ember_status *em_storage_new_mmap(const ember_allocator *al, const char *path,
                                  em_storage **out);
void *em_storage_data(const em_storage *s);
size_t em_storage_size(const em_storage *s);
em_storage_kind em_storage_kind_of(const em_storage *s);
/* Lets the OS drop the resident pages of bytes [off, off + len) of a mapped file (the whole
 * pages inside the range); a later read maps them in again from the file, so the bytes stay
 * valid. A no-op for other kinds. */
void em_storage_drop_pages(em_storage *s, size_t off, size_t len);
em_storage *em_storage_retain(em_storage *s);
void em_storage_release(em_storage *s);
/* Makes `s` hold a reference to `dep` (retained; once per dep) until `s` is freed: string
 * tensors keep the storages their element pointers point into (strtensor.h). Call only while
 * `s` has a single owner that is still building it. OUT_OF_MEMORY on failure. */
ember_status *em_storage_keep(em_storage *s, em_storage *dep);
/* The storages `s` keeps, for em_str_keep_bytes' flattening: count and item i. */
int em_storage_kept_count(const em_storage *s);
em_storage *em_storage_kept(const em_storage *s, int i);

#endif /* EMBER_CORE_TENSOR_H */
