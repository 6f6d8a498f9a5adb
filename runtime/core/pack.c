/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pack cache (pack.h): a fixed table of buckets hashed on (kind, source address), each a
 * list of packs. Pack bytes are big blocks (em_big_alloc), so a freed pack goes back to the
 * system rather than to malloc's heap.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/pack.h"

#include "core/alloc.h"
#include "core/status.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define N_BUCKETS 64

struct em_pack {
    em_pack *next;
    em_pack_cache *cache; /* NULL: private */
    const ember_allocator *al;
    const char *kind;
    const void *src;
    em_pack_eq_fn *eq;
    void *key;
    size_t key_len;
    size_t bytes;
    void *data;
    int refs; /* guarded by cache->mu */
    /* em_pack_set_unpack: gives source bytes [uoff, uoff + ulen) back; guarded by cache->mu */
    em_pack_unpack_fn *unpack;
    void *uctx;
    size_t uoff, ulen;
    bool kept; /* em_pack_cache_keep holds a reference */
};

struct em_pack_cache {
    const ember_allocator *al;
    pthread_mutex_t mu;
    em_pack *bucket[N_BUCKETS];
    size_t bytes, count;
};

ember_status *em_pack_cache_new(const ember_allocator *al, em_pack_cache **out)
{
    em_pack_cache *c = em_calloc(al, 1, sizeof *c);
    if (c == NULL) {
        *out = NULL;
        return em_status_oom();
    }
    c->al = al;
    pthread_mutex_init(&c->mu, NULL);
    *out = c;
    return NULL;
}

static void pack_free(em_pack *p)
{
    em_free(p->al, p->uctx);
    em_big_free(p->al, p->data, p->bytes);
    em_free(p->al, p->key);
    em_free(p->al, p);
}

void em_pack_cache_destroy(em_pack_cache *c)
{
    if (c == NULL) {
        return;
    }
    for (int b = 0; b < N_BUCKETS; b++) { /* none should be left: see pack.h */
        while (c->bucket[b] != NULL) {
            em_pack *p = c->bucket[b];
            c->bucket[b] = p->next;
            pack_free(p);
        }
    }
    pthread_mutex_destroy(&c->mu);
    em_free(c->al, c);
}

size_t em_pack_cache_bytes(em_pack_cache *c, size_t *count)
{
    size_t bytes = 0, n = 0;
    if (c != NULL) {
        pthread_mutex_lock(&c->mu);
        bytes = c->bytes;
        n = c->count;
        pthread_mutex_unlock(&c->mu);
    }
    if (count != NULL) {
        *count = n;
    }
    return bytes;
}

static size_t bucket_of(const em_pack_key *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k->src * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 58) % N_BUCKETS;
}

/* The pack equal to `k` of `bytes` bytes, or NULL. Caller holds c->mu. */
static em_pack *find(em_pack_cache *c, const em_pack_key *k, size_t bytes)
{
    for (em_pack *p = c->bucket[bucket_of(k)]; p != NULL; p = p->next) {
        if (p->src == k->src && strcmp(p->kind, k->kind) == 0 && p->eq == k->eq &&
            p->key_len == k->key_len && p->bytes == bytes &&
            (k->eq != NULL ? k->eq(p->key, k->key) : memcmp(p->key, k->key, k->key_len) == 0)) {
            return p;
        }
    }
    return NULL;
}

ember_status *em_pack_get(em_pack_cache *c, const ember_allocator *al, const em_pack_key *k,
                          size_t bytes, em_pack_fill_fn *fill, void *ctx, em_pack **out)
{
    *out = NULL;
    if (c != NULL) {
        al = c->al;
        pthread_mutex_lock(&c->mu);
        em_pack *p = find(c, k, bytes);
        if (p != NULL) {
            p->refs++;
        }
        pthread_mutex_unlock(&c->mu);
        if (p != NULL) {
            *out = p;
            return NULL;
        }
    }
    em_pack *p = em_calloc(al, 1, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    p->al = al;
    p->kind = k->kind;
    p->src = k->src;
    p->eq = k->eq;
    p->key_len = k->key_len;
    p->bytes = bytes;
    p->refs = 1;
    p->key = em_malloc(al, k->key_len);
    p->data = em_big_alloc(al, bytes, false);
    ember_status *st = p->key == NULL || p->data == NULL ? em_status_oom() : NULL;
    if (st == NULL) {
        memcpy(p->key, k->key, k->key_len);
        st = fill(ctx, p->data);
    }
    if (st != NULL) {
        pack_free(p);
        return st;
    }
    if (c != NULL) {
        pthread_mutex_lock(&c->mu);
        em_pack *won = find(c, k, bytes); /* another thread packed the same meanwhile */
        if (won != NULL) {
            won->refs++;
        } else {
            size_t b = bucket_of(k);
            p->cache = c;
            p->next = c->bucket[b];
            c->bucket[b] = p;
            c->bytes += bytes;
            c->count++;
        }
        pthread_mutex_unlock(&c->mu);
        if (won != NULL) {
            pack_free(p);
            p = won;
        }
    }
    *out = p;
    return NULL;
}

void em_pack_cache_forget(em_pack_cache *c, const void *src)
{
    if (c == NULL) {
        return;
    }
    pthread_mutex_lock(&c->mu);
    em_pack **link = &c->bucket[bucket_of(&(em_pack_key){"", src, NULL, 0, NULL})];
    while (*link != NULL) {
        em_pack *p = *link;
        if (p->src != src) {
            link = &p->next;
            continue;
        }
        *link = p->next;
        p->src = p; /* an address no live constant has: never found again */
        em_pack **to = &c->bucket[bucket_of(&(em_pack_key){"", p->src, NULL, 0, NULL})];
        p->next = *to;
        *to = p;
    }
    pthread_mutex_unlock(&c->mu);
}

const void *em_pack_data(const em_pack *p)
{
    return p != NULL ? p->data : NULL;
}

void em_pack_release(em_pack *p)
{
    if (p == NULL) {
        return;
    }
    em_pack_cache *c = p->cache;
    if (c == NULL) {
        pack_free(p);
        return;
    }
    pthread_mutex_lock(&c->mu);
    bool last = --p->refs == 0;
    if (last) {
        em_pack **link = &c->bucket[bucket_of(&(em_pack_key){p->kind, p->src, NULL, 0, NULL})];
        while (*link != p) {
            link = &(*link)->next;
        }
        *link = p->next;
        c->bytes -= p->bytes;
        c->count--;
    }
    pthread_mutex_unlock(&c->mu);
    if (last) {
        pack_free(p);
    }
}

ember_status *em_pack_set_unpack(em_pack *p, em_pack_unpack_fn *fn, const void *ctx,
                                 size_t ctx_len, size_t off, size_t len)
{
    if (p == NULL) {
        return NULL;
    }
    void *copy = em_malloc(p->al, ctx_len > 0 ? ctx_len : 1);
    if (copy == NULL) {
        return em_status_oom();
    }
    memcpy(copy, ctx, ctx_len);
    em_pack_cache *c = p->cache;
    if (c != NULL) {
        pthread_mutex_lock(&c->mu);
    }
    bool set = p->unpack == NULL;
    if (set) {
        p->unpack = fn;
        p->uctx = copy;
        p->uoff = off;
        p->ulen = len;
    }
    if (c != NULL) {
        pthread_mutex_unlock(&c->mu);
    }
    if (!set) {
        em_free(p->al, copy);
    }
    return NULL;
}

/* The packs of src that give back the most bytes from `at` on: the one (kept ones first when
 * `kept_only`) whose range holds `at` and reaches furthest, or NULL. Caller holds c->mu. */
static em_pack *cover_from(em_pack_cache *c, const void *src, size_t at, bool kept_only)
{
    em_pack *best = NULL;
    for (em_pack *p = c->bucket[bucket_of(&(em_pack_key){"", src, NULL, 0, NULL})]; p != NULL;
         p = p->next) {
        if (p->src == src && p->unpack != NULL && (p->kept || !kept_only) && p->uoff <= at &&
            at < p->uoff + p->ulen &&
            (best == NULL || p->uoff + p->ulen > best->uoff + best->ulen)) {
            best = p;
        }
    }
    return best;
}

bool em_pack_cache_keep(em_pack_cache *c, const void *src, size_t bytes)
{
    if (c == NULL) {
        return false;
    }
    pthread_mutex_lock(&c->mu);
    size_t at = 0;
    for (em_pack *p; at < bytes && (p = cover_from(c, src, at, false)) != NULL;) {
        at = p->uoff + p->ulen;
    }
    bool covered = at >= bytes;
    for (size_t k = 0; covered && k < bytes;) { /* keep the same cover */
        em_pack *p = cover_from(c, src, k, false);
        if (!p->kept) {
            p->kept = true;
            p->refs++;
        }
        k = p->uoff + p->ulen;
    }
    pthread_mutex_unlock(&c->mu);
    return covered;
}

bool em_pack_cache_unpack(em_pack_cache *c, const void *src, size_t bytes, void *dst)
{
    if (c == NULL) {
        return false;
    }
    pthread_mutex_lock(&c->mu);
    size_t at = 0;
    for (em_pack *p; at < bytes && (p = cover_from(c, src, at, true)) != NULL;) {
        p->unpack(p->uctx, p->data, dst); /* kept: alive; its writes are within the source */
        at = p->uoff + p->ulen;
    }
    pthread_mutex_unlock(&c->mu);
    return at >= bytes;
}
