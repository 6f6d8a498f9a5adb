/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the structure-aware mutators of the whole-model fuzz targets
 * (LLVMFuzzerCustomMutator in fuzz_onnx_model.c and fuzz_ts_model.c): a seeded random
 * source, a growable byte buffer, varints, and "interesting" integers. The mutators parse
 * an input, change one part of its structure, and write it back; when the input does not
 * parse, or now and then anyway, they fall back to libFuzzer's byte mutations.
 */
#ifndef EMBER_FUZZ_MUT_H
#define EMBER_FUZZ_MUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

typedef struct fz_rng {
    uint64_t s;
} fz_rng;

void fz_seed(fz_rng *r, unsigned seed);
uint64_t fz_next(fz_rng *r);
/* Uniform in [0, n) (0 when n is 0). */
size_t fz_below(fz_rng *r, size_t n);
/* True with probability 1/n. */
bool fz_one_in(fz_rng *r, size_t n);
/* A value a fuzzer should try for an integer field holding `old`: a boundary (0, 1, -1,
 * INT32/INT64 limits, powers of two), old +- a little, or random bits. */
int64_t fz_interesting(fz_rng *r, int64_t old);
/* A string from `list` (n entries). */
const char *fz_pick(fz_rng *r, const char *const *list, size_t n);

/* A growable byte buffer; `failed` is set (and the contents stop growing) on OOM. */
typedef struct fz_buf {
    uint8_t *p;
    size_t n, cap;
    bool failed;
} fz_buf;

void fz_put(fz_buf *b, const void *src, size_t n);
void fz_put_byte(fz_buf *b, uint8_t v);
void fz_put_le(fz_buf *b, uint64_t v, int bytes);
void fz_put_varint(fz_buf *b, uint64_t v);
void fz_buf_free(fz_buf *b);

/* Reads a protobuf varint at *p (< end); false when it runs past end or past 10 bytes. */
bool fz_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

/* Runs libFuzzer's byte mutation on a heap copy of src[0..n) that may grow to n + grow
 * bytes; the result is returned in *out (malloc'ed) and its size in *out_n. */
bool fz_mutate_bytes(const uint8_t *src, size_t n, size_t grow, uint8_t **out, size_t *out_n);

/* Copies `b` into data (capacity max_size) and returns its size, or 0 when it does not fit
 * or building it failed (the caller then falls back to LLVMFuzzerMutate). Frees `b`. */
size_t fz_emit(fz_buf *b, uint8_t *data, size_t max_size);

#endif /* EMBER_FUZZ_MUT_H */
