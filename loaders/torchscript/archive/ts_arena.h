/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bump arena for the TorchScript loader's parsed values: blocks from the caller's
 * allocator, 16-byte aligned allocations, everything freed at once. It can also hold
 * storage references (em_ts_arena_hold), released when the arena is freed, so values that
 * point at storages live exactly as long as their arena.
 * Threads: one arena belongs to one thread at a time.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_ARENA_H
#define EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_ARENA_H

#include "ember.h"
#include "core/tensor.h"

#include <stddef.h>

typedef struct em_ts_arena_chunk em_ts_arena_chunk;
typedef struct em_ts_held em_ts_held;

typedef struct em_ts_arena {
    const ember_allocator *al;
    em_ts_arena_chunk *blocks; /* newest first; allocations come from the newest */
    em_ts_held *held;    /* storage references to release */
} em_ts_arena;

void em_ts_arena_init(em_ts_arena *a, const ember_allocator *al);
/* `n` bytes, 16-aligned, zeroed; NULL when out of memory (or n overflows). */
void *em_ts_arena_alloc(em_ts_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n) (which may contain NULs); NULL when out of memory. */
char *em_ts_arena_strndup(em_ts_arena *a, const char *s, size_t n);
/* Takes a reference to `s` (retained) until em_ts_arena_free. OUT_OF_MEMORY on failure. */
ember_status *em_ts_arena_hold(em_ts_arena *a, em_storage *s);
/* Frees every block and releases every held storage; `a` may be initialised again. */
void em_ts_arena_free(em_ts_arena *a);

#endif /* EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_ARENA_H */
