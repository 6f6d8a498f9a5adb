/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include "test_alloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Aligned blocks on test_malloc: over-allocate, keep the raw pointer just before the block. */
static void *t_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return test_malloc(n);
}
static void *t_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return test_realloc(p, n);
}
static void t_free(void *ctx, void *p)
{
    (void)ctx;
    test_free(p);
}
static void *t_aligned(void *ctx, size_t align, size_t n)
{
    (void)ctx;
    char *raw = test_malloc(n + align + sizeof(void *));
    if (raw == NULL) {
        return NULL;
    }
    uintptr_t a = ((uintptr_t)raw + sizeof(void *) + align - 1) & ~(uintptr_t)(align - 1);
    ((void **)a)[-1] = raw;
    return (void *)a;
}
static void t_aligned_free(void *ctx, void *p)
{
    (void)ctx;
    if (p != NULL) {
        test_free(((void **)p)[-1]);
    }
}

static const ember_allocator test_alloc_v = {NULL, t_alloc, t_realloc, t_free, t_aligned,
                                             t_aligned_free};

const ember_allocator *test_allocator(void) { return &test_alloc_v; }

static int c_should_fail(counting_alloc *ca)
{
    long k = atomic_fetch_add(&ca->n_alloc, 1) + 1;
    return ca->fail_at != 0 && k == ca->fail_at;
}
static void *c_alloc(void *ctx, size_t n)
{
    counting_alloc *ca = ctx;
    if (c_should_fail(ca)) {
        return NULL;
    }
    void *p = malloc(n);
    if (p != NULL) {
        atomic_fetch_add(&ca->live, 1);
    }
    return p;
}
static void *c_realloc(void *ctx, void *p, size_t n)
{
    counting_alloc *ca = ctx;
    if (c_should_fail(ca)) {
        return NULL;
    }
    void *q = realloc(p, n);
    if (q != NULL && p == NULL) {
        atomic_fetch_add(&ca->live, 1);
    }
    return q;
}
static void c_free(void *ctx, void *p)
{
    counting_alloc *ca = ctx;
    if (p != NULL) {
        atomic_fetch_add(&ca->n_free, 1);
        atomic_fetch_sub(&ca->live, 1);
        free(p);
    }
}
static void *c_aligned(void *ctx, size_t align, size_t n)
{
    counting_alloc *ca = ctx;
    if (c_should_fail(ca)) {
        return NULL;
    }
    void *p = NULL;
    if (posix_memalign(&p, align, n) != 0) {
        return NULL;
    }
    atomic_fetch_add(&ca->live, 1);
    return p;
}

void counting_alloc_init(counting_alloc *ca)
{
    memset(ca, 0, sizeof *ca);
    ca->al.ctx = ca;
    ca->al.alloc = c_alloc;
    ca->al.realloc = c_realloc;
    ca->al.free = c_free;
    ca->al.aligned_alloc = c_aligned;
    ca->al.aligned_free = c_free;
}
