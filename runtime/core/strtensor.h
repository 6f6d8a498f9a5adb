/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors (EMBER_DTYPE_STRING): how their bytes live and die. Design notes are at the
 * top of strtensor.c. In short: elements are `const char *` (NUL-terminated UTF-8, NULL reads
 * as ""), stored like any 8-byte element, so every kernel that moves elements by
 * em_dtype_size bytes moves strings. The bytes they point to live in reference-counted
 * storages that the tensor's own storage keeps alive (em_storage_keep).
 *
 * Only the interpreter runs graphs with strings (em_graph_needs_interp); the planner's arena
 * never holds them.
 */
#ifndef EMBER_CORE_STRTENSOR_H
#define EMBER_CORE_STRTENSOR_H

#include "ember.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Element i of a string tensor; "" for a NULL element. */
static inline const char *em_str_at(const em_tensor *t, int64_t i)
{
    const char *s = ((const char *const *)t->data)[i];
    return s != NULL ? s : "";
}

/* A packed string storage: one owned storage holding n pointers followed by copies of src[i]
 * (NULL reads as ""), the pointers pointing into the storage itself. `lens` may be NULL (then
 * strlen), else gives the byte lengths (the strings need no NUL then). */
ember_status *em_str_pack(const ember_allocator *al, const char *const *src, const size_t *lens,
                          int64_t n, em_storage **out);

/* Makes string storage `dst` keep alive the bytes string storage `src`'s elements point into:
 * src itself, or (when src keeps storages: then it has no string bytes of its own) what src
 * keeps. Chains therefore never grow deeper than one level. */
ember_status *em_str_keep_bytes(em_storage *dst, em_storage *src);

/* ---- string outputs of kernels ---------------------------------------------------------- */
/*
 * A kernel that makes new strings writes them into the node's output through an arena that
 * the interpreter places behind the output's pointer array (in the same storage, past
 * align_up(numel * 8, 64) bytes). The kernel finds it from the output tensor alone, so the
 * kernel interface stays as it is. After the run, em_str_out_finish hands the arena's chunks
 * to the output storage (em_storage_keep) and reports what the kernel recorded with
 * em_str_fail. Allocate from one thread only.
 */

/* A string output for tensor `t` (dtype STRING, dims set): zeroed pointers ("" elements)
 * and an empty arena; sets t->data. */
ember_status *em_str_out_new(const ember_allocator *al, em_tensor *t, em_storage **out);
/* len + 1 bytes for one element of output `out` (byte len is set to NUL); NULL when out of
 * memory, which em_str_out_finish then reports. */
char *em_str_alloc(const em_tensor *out, size_t len);
/* A copy of s[0..len) in output `out`'s arena; "" (static) when out of memory (recorded). */
const char *em_str_dup(const em_tensor *out, const char *s, size_t len);
/* Records an error about the data (the first one wins); the node then fails with it. */
void em_str_fail(const em_tensor *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Moves the arena's chunks into `s` and returns the recorded error (naming node `who`) or
 * OUT_OF_MEMORY. Call once after the kernel ran (or did not). */
ember_status *em_str_out_finish(em_storage *s, const em_tensor *t, const char *who);

/* ---- UTF-8 ------------------------------------------------------------------------------ */

/* Decodes one code point of [s, end): returns its byte length (1-4) and sets *cp, or 0 for an
 * invalid, overlong, surrogate or truncated sequence. */
int em_utf8_decode(const char *s, const char *end, uint32_t *cp);
/* Encodes cp (<= 0x10FFFF, not a surrogate) into out[0..4); returns the length, 0 if invalid. */
int em_utf8_encode(uint32_t cp, char *out);
/* True when s[0..n) is valid UTF-8; else *bad (may be NULL) is the offset of the first bad
 * byte. */
bool em_utf8_valid(const char *s, size_t n, size_t *bad);

#endif /* EMBER_CORE_STRTENSOR_H */
