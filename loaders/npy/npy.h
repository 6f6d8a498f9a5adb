/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NumPy .npy images: reader and writer (internal; ember_tensor_load_npy / _save_npy wrap it).
 *
 * Format (numpy/lib/format.py, NEP 1): the magic "\x93NUMPY", a major and a minor version
 * byte, a little-endian header length (u16 in 1.0, u32 in 2.0 and 3.0), then the header: a
 * Python dict literal {'descr': <dtype str>, 'fortran_order': <bool>, 'shape': <int tuple>}
 * padded with spaces and ended by '\n'; the raw array bytes follow it. 3.0 only differs in
 * allowing UTF-8 in the header, which matters for structured dtypes (not supported here).
 *
 * Supported: C order, native (little-endian) byte order, the dtypes
 * <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 ('=' is native; 1-byte types take any byte
 * order character), and strings: <U<n> and |S<n> read into string tensors, which are written
 * as <U<n> (npy_str.h). bfloat16 has no numpy descr and is neither read nor written.
 * Threads: both functions are reentrant and keep no state.
 */
#ifndef EMBER_LOADERS_NPY_NPY_H
#define EMBER_LOADERS_NPY_NPY_H

#include "ember.h"
#include "core/tensor.h"

#include <stddef.h>

/*
 * Parses a .npy image of `size` bytes at `data` (borrowed; bytes after the array data are
 * ignored). On success fills `*shape` (dtype, rank, dims; data = NULL, q = NULL) and sets
 * `*out` to a new owned em_storage (allocated with `al`, EM_ALIGN-aligned, a copy) holding
 * exactly the tensor's bytes; release it with em_storage_release().
 * `what` names the source in messages ("<what>: ..."); NULL means "npy".
 * Returns INVALID_ARG (NULL argument), INVALID_MODEL (bad magic, truncated or malformed
 * header, Fortran order, non-native byte order, rank above EMBER_MAX_RANK, negative or
 * overflowing dims, truncated data), UNSUPPORTED (format version, dtype) or OUT_OF_MEMORY.
 * On failure `*out` is NULL and `*shape` is zeroed. Never reads outside [data, data + size)
 * and allocates nothing before the claimed data size has been checked against `size`.
 */
ember_status *em_npy_read(const void *data, size_t size, const char *what,
                          const ember_allocator *al, em_tensor *shape, em_storage **out);

/*
 * Serialises `t` (dtype, rank, dims and data; data may be NULL only when it has no bytes)
 * as a version 1.0 .npy image, laid out exactly as numpy's np.save writes it (header padded
 * with spaces so the data starts at a multiple of 64 bytes, ending in '\n'). `*out` is a new
 * buffer from libc malloc, freed by the caller with free(); `*out_size` its size.
 * Returns INVALID_ARG (NULL argument, bad rank or dims, no data), UNSUPPORTED (bf16 or
 * another dtype without a numpy descr) or OUT_OF_MEMORY. On failure `*out` is NULL.
 */
ember_status *em_npy_write(const em_tensor *t, void **out, size_t *out_size);

#endif /* EMBER_LOADERS_NPY_NPY_H */
