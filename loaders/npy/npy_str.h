/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String arrays in .npy images (internal to npy.c): numpy's unicode dtype '<U<n>' (n UCS-4
 * code units per element, little-endian, NUL-padded) and bytes dtype '|S<n>' (n bytes,
 * NUL-padded), read into packed string storages (runtime/core/strtensor.h) and written from string
 * tensors as '<U'. An element ends at its first NUL, as a C string must.
 */
#ifndef EMBER_LOADERS_NPY_NPY_STR_H
#define EMBER_LOADERS_NPY_NPY_STR_H

#include "ember.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when descr[0..n) is a string dtype ("<U5", "|S3", "U1", ">U2", ...): then *kind is 'U'
 * or 'S', *chars the declared length and *order the byte-order character ('=' if none). */
bool em_npy_str_descr(const char *descr, size_t n, char *kind, size_t *chars, char *order);
/* Item size in bytes of a string dtype; false on overflow. */
bool em_npy_str_itemsize(char kind, size_t chars, size_t *bytes);
/* Reads numel elements from `data` (numel * itemsize bytes, already checked to be present)
 * into a packed string storage allocated with `al`. INVALID_MODEL (naming `what` and the
 * element) for a code unit that is no Unicode scalar value. */
ember_status *em_npy_str_read(const unsigned char *data, int64_t numel, char kind, size_t chars,
                              const char *what, const ember_allocator *al, em_storage **out);
/* The '<U' length for string tensor t: its longest element in code points, at least 1.
 * INVALID_ARG naming the element when one is not valid UTF-8. */
ember_status *em_npy_str_chars(const em_tensor *t, size_t *chars);
/* Writes t's elements as '<U<chars>' data (numel * 4 * chars bytes) to dst. */
void em_npy_str_fill(const em_tensor *t, size_t chars, unsigned char *dst);

#endif /* EMBER_LOADERS_NPY_NPY_STR_H */
