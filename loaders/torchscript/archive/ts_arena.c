/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bump arena (ts_arena.h). Blocks double from 4 KiB up to 1 MiB; a request larger than a
 * quarter of the block size gets a block of its own, so big arrays waste nothing.
 */
#include "ts_arena.h"

#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

enum { ARENA_ALIGN = 16, FIRST_BLOCK = 4096, MAX_BLOCK = 1 << 20 };

struct em_ts_arena_chunk {
    em_ts_arena_chunk *next;
    size_t used, cap;
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

struct em_ts_held {
    em_ts_held *next;
    em_storage *s;
};

void em_ts_arena_init(em_ts_arena *a, const ember_allocator *al)
{
    a->al = al;
    a->blocks = NULL;
    a->held = NULL;
}

static em_ts_arena_chunk *new_block(em_ts_arena *a, size_t cap)
{
    size_t bytes;
    if (!em_size_add(sizeof(em_ts_arena_chunk), cap, &bytes)) {
        return NULL;
    }
    em_ts_arena_chunk *b = em_malloc(a->al, bytes);
    if (b != NULL) {
        b->used = 0;
        b->cap = cap;
    }
    return b;
}

void *em_ts_arena_alloc(em_ts_arena *a, size_t n)
{
    if (n > SIZE_MAX - ARENA_ALIGN) {
        return NULL;
    }
    n = em_align_up(n == 0 ? 1 : n, ARENA_ALIGN);
    em_ts_arena_chunk *b = a->blocks;
    if (b == NULL || b->cap - b->used < n) {
        size_t cap = b == NULL ? FIRST_BLOCK : (b->cap < MAX_BLOCK ? 2 * b->cap : MAX_BLOCK);
        em_ts_arena_chunk *nb = new_block(a, n > cap / 4 ? n : cap);
        if (nb == NULL) {
            return NULL;
        }
        if (n > cap / 4 && b != NULL) {
            /* A big block of its own goes behind the current one, which stays in use. */
            nb->next = b->next;
            b->next = nb;
            nb->used = n;
            memset(nb->data, 0, n);
            return nb->data;
        }
        nb->next = b;
        a->blocks = b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *em_ts_arena_strndup(em_ts_arena *a, const char *s, size_t n)
{
    char *d = n < SIZE_MAX ? em_ts_arena_alloc(a, n + 1) : NULL;
    if (d != NULL && n > 0) {
        memcpy(d, s, n);
    }
    return d;
}

ember_status *em_ts_arena_hold(em_ts_arena *a, em_storage *s)
{
    em_ts_held *h = em_ts_arena_alloc(a, sizeof *h);
    if (h == NULL) {
        return em_status_oom();
    }
    h->s = em_storage_retain(s);
    h->next = a->held;
    a->held = h;
    return NULL;
}

void em_ts_arena_free(em_ts_arena *a)
{
    for (em_ts_held *h = a->held; h != NULL; h = h->next) {
        em_storage_release(h->s);
    }
    a->held = NULL;
    for (em_ts_arena_chunk *b = a->blocks; b != NULL;) {
        em_ts_arena_chunk *next = b->next;
        em_free(a->al, b);
        b = next;
    }
    a->blocks = NULL;
}
