/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one place that calls libc's allocator (and maps memory for big blocks, alloc.h). A NULL
 * allocator, or a NULL member of one, means libc. Aligned allocations round the size up to
 * EM_ALIGN, as C11 aligned_alloc requires.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "core/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define EM_BIG_MMAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EM_BIG_MMAP 0
#endif
#endif
#ifndef EM_BIG_MMAP
#define EM_BIG_MMAP 1
#endif

void *em_malloc(const ember_allocator *al, size_t n)
{
    if (n == 0) {
        n = 1;
    }
    if (al != NULL && al->alloc != NULL) {
        return al->alloc(al->ctx, n);
    }
    return malloc(n);
}

void *em_calloc(const ember_allocator *al, size_t count, size_t size)
{
    size_t n;
    if (!em_size_mul(count, size, &n)) {
        return NULL;
    }
    void *p = em_malloc(al, n);
    if (p != NULL) {
        memset(p, 0, n == 0 ? 1 : n);
    }
    return p;
}

void *em_realloc(const ember_allocator *al, void *p, size_t n)
{
    if (n == 0) {
        n = 1;
    }
    if (al != NULL && al->realloc != NULL) {
        return al->realloc(al->ctx, p, n);
    }
    if (al != NULL && al->alloc != NULL) {
        /* A user allocator without realloc cannot tell us the old size: refuse. */
        return NULL;
    }
    return realloc(p, n);
}

void em_free(const ember_allocator *al, void *p)
{
    if (p == NULL) {
        return;
    }
    if (al != NULL && al->free != NULL) {
        al->free(al->ctx, p);
        return;
    }
    free(p);
}

void *em_aligned_alloc(const ember_allocator *al, size_t n)
{
    n = em_align_up(n == 0 ? 1 : n, EM_ALIGN);
    if (n == 0) { /* wrapped around */
        return NULL;
    }
    if (al != NULL && al->aligned_alloc != NULL) {
        return al->aligned_alloc(al->ctx, EM_ALIGN, n);
    }
    void *p = NULL;
    if (posix_memalign(&p, EM_ALIGN, n) != 0) {
        return NULL;
    }
    return p;
}

void em_aligned_free(const ember_allocator *al, void *p)
{
    if (p == NULL) {
        return;
    }
    if (al != NULL && al->aligned_free != NULL) {
        al->aligned_free(al->ctx, p);
        return;
    }
    free(p);
}

/* Whether em_big_alloc maps a block of n bytes itself. */
static bool big_mapped(const ember_allocator *al, size_t n)
{
    return EM_BIG_MMAP && n >= EM_BIG_MIN && (al == NULL || al->aligned_alloc == NULL);
}

void *em_big_alloc(const ember_allocator *al, size_t n, bool zero)
{
    if (big_mapped(al, n)) {
        void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    void *p = em_aligned_alloc(al, n);
    if (p != NULL && zero) {
        memset(p, 0, em_align_up(n == 0 ? 1 : n, EM_ALIGN));
    }
    return p;
}

void em_big_free(const ember_allocator *al, void *p, size_t n)
{
    if (p == NULL) {
        return;
    }
    if (big_mapped(al, n)) {
        munmap(p, n);
        return;
    }
    em_aligned_free(al, p);
}

void em_heap_trim(void)
{
#ifdef __GLIBC__
    (void)malloc_trim(0);
#endif
}

char *em_strdup(const ember_allocator *al, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = em_malloc(al, n);
    if (d != NULL) {
        memcpy(d, s, n);
    }
    return d;
}

bool em_size_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) {
        return false;
    }
    *out = a * b;
    return true;
}

bool em_size_add(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) {
        return false;
    }
    *out = a + b;
    return true;
}

void em_strbuf_init(em_strbuf *sb, const ember_allocator *al)
{
    memset(sb, 0, sizeof *sb);
    sb->al = al;
}

void em_strbuf_printf(em_strbuf *sb, const char *fmt, ...)
{
    if (sb->failed) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        va_end(ap2);
        return;
    }
    size_t need = sb->len + (size_t)n + 1;
    if (need > sb->cap) {
        size_t cap = sb->cap ? sb->cap * 2 : 256;
        while (cap < need) {
            cap *= 2;
        }
        char *d = realloc(sb->data, cap); /* libc: the text is handed to ember_string_free */
        if (d == NULL) {
            sb->failed = true;
            va_end(ap2);
            return;
        }
        sb->data = d;
        sb->cap = cap;
    }
    vsnprintf(sb->data + sb->len, sb->cap - sb->len, fmt, ap2);
    va_end(ap2);
    sb->len += (size_t)n;
}

char *em_strbuf_take(em_strbuf *sb)
{
    char *d = NULL;
    if (!sb->failed) {
        d = sb->data != NULL ? sb->data : calloc(1, 1);
        sb->data = NULL;
    }
    em_strbuf_free(sb);
    return d;
}

void em_strbuf_free(em_strbuf *sb)
{
    free(sb->data);
    em_strbuf_init(sb, sb->al);
}

void ember_string_free(char *s) { free(s); }
