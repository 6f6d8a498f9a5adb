/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Heap allocation. Only alloc.c calls libc's allocator; everything else goes through these
 * wrappers, which route to the user's ember_allocator when one is given (NULL = libc).
 * EM_ALIGN (64: one cache line, one AVX-512 vector) is the alignment of every arena base,
 * arena offset, packed weight and owned tensor. Aligned sizes are rounded up to EM_ALIGN.
 */
#ifndef EMBER_CORE_ALLOC_H
#define EMBER_CORE_ALLOC_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_ALIGN 64
_Static_assert((EM_ALIGN & (EM_ALIGN - 1)) == 0, "EM_ALIGN must be a power of two");
/* Arena tensors have this much slack after them: kernels may read it, never write it. */
#define EM_TAIL_PAD 64

void *em_malloc(const ember_allocator *al, size_t n);
void *em_calloc(const ember_allocator *al, size_t count, size_t size);
void *em_realloc(const ember_allocator *al, void *p, size_t n);
void em_free(const ember_allocator *al, void *p);
/* Aligned to EM_ALIGN; the size is rounded up to a multiple of EM_ALIGN. */
void *em_aligned_alloc(const ember_allocator *al, size_t n);
void em_aligned_free(const ember_allocator *al, void *p);
/*
 * Big blocks (arenas, packed weights, weight storages, tensors): EM_ALIGN-aligned, and from
 * libc, blocks of EM_BIG_MIN bytes or more are mapped with mmap and unmapped when freed, so
 * that they never sit in malloc's heap. glibc maps big blocks itself, but after freeing one
 * it raises its mmap threshold to that block's size (up to 32 MiB), after which blocks of
 * that size land in the heap, between small long-lived allocations, and stay resident once
 * freed: the heap fragments. `zero`: the block must read as zeros (mapped pages already do).
 * em_big_free needs the size given to em_big_alloc. With a user allocator, or under
 * AddressSanitizer (whose leak and bounds checks do not see mmap), both are em_aligned_*.
 */
#define EM_BIG_MIN ((size_t)256 << 10)
void *em_big_alloc(const ember_allocator *al, size_t n, bool zero);
void em_big_free(const ember_allocator *al, void *p, size_t n);
/*
 * Gives malloc's free pages back to the system, after a model, a session or its plans were
 * freed. Their small blocks (graph, plans, oneDNN's primitives and generated code) sit in
 * the heap between blocks that live on, so the heap cannot shrink from its top, and threads
 * that ran sessions each have a heap of their own: measured here, destroying resnet18 after
 * 200 shapes left 15 MiB of freed memory resident, 6 MiB after this. glibc's malloc_trim:
 * process-wide, but it only releases free pages (~2 ms for that heap); a no-op elsewhere.
 */
void em_heap_trim(void);
char *em_strdup(const ember_allocator *al, const char *s);

/* Checked size arithmetic: false on overflow (then *out is left unspecified). */
bool em_size_mul(size_t a, size_t b, size_t *out);
bool em_size_add(size_t a, size_t b, size_t *out);
static inline size_t em_align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/* A growable byte buffer for building text (graph printer, plan text, messages). */
typedef struct em_strbuf {
    const ember_allocator *al;
    char *data;
    size_t len, cap;
    bool failed; /* an allocation failed: the contents are truncated */
} em_strbuf;

void em_strbuf_init(em_strbuf *sb, const ember_allocator *al);
void em_strbuf_printf(em_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hands the text to the caller (NUL-terminated, allocated with libc malloc so that
 * ember_string_free() can release it); NULL when an allocation failed. Resets `sb`. */
char *em_strbuf_take(em_strbuf *sb);
void em_strbuf_free(em_strbuf *sb);

#endif /* EMBER_CORE_ALLOC_H */
