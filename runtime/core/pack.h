/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Packed constants shared between plans: a kernel that repacks a constant weight in prepare
 * (oneDNN's blocked layouts, GEMM panels, RNN transposes) asks a pack cache for the packed
 * form under a key: the source's address plus every parameter its packing depends on (never
 * the input shape, unless the packing does). The first asker packs; later ones with an equal
 * key share that copy, counted by references, until the last releases it. So a session's
 * plans for many input shapes hold one copy of each packing, not one per plan.
 *
 * Which cache: a model has one for its initializers, shared by all its sessions and plans
 * (its weights live as long as the model, so their addresses cannot be reused while an entry
 * names them); a plan has its own for constants it computed itself (keyed inputs, folded
 * values), whose addresses die with the plan. With no cache (NULL: the interpreter, constant
 * folding at load, unit tests) a pack is private to its kernel state.
 *
 * Threads: get and release may be called from any thread at once (a mutex guards the table;
 * packing runs outside it: two threads asking for the same new key may both pack, and the
 * second copy is dropped). A pack's bytes are read-only once returned.
 */
#ifndef EMBER_CORE_PACK_H
#define EMBER_CORE_PACK_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct em_pack_cache em_pack_cache;
typedef struct em_pack em_pack;

/* Writes the packed form (`bytes` bytes, EM_ALIGN-aligned) at dst; an error aborts the get. */
typedef ember_status *em_pack_fill_fn(void *ctx, void *dst);
/* Key equality when plain bytes do not compare (structs with padding); NULL: memcmp. */
typedef bool em_pack_eq_fn(const void *a, const void *b);

/* The key of a packing. `kind` names the layout ("x86 gemm B"); `src` is the constant's
 * address; `key` (key_len bytes, copied) holds every parameter of the layout, so that two
 * packs of equal kind, source and key hold the same bytes (whichever kernel made them). */
typedef struct em_pack_key {
    const char *kind;
    const void *src;
    const void *key;
    size_t key_len;
    em_pack_eq_fn *eq;
} em_pack_key;

ember_status *em_pack_cache_new(const ember_allocator *al, em_pack_cache **out);
/* Frees the cache; every pack taken from it must have been released (the packs
 * em_pack_cache_keep kept are freed here). Ignores NULL. */
void em_pack_cache_destroy(em_pack_cache *c);
/* Bytes (and count) of the packs the cache holds now. 0 for NULL. */
size_t em_pack_cache_bytes(em_pack_cache *c, size_t *count);

/* The pack for `k` from `c` (or a private one when c is NULL): found, or made with `bytes`
 * bytes filled by fill(ctx, dst). Release it with em_pack_release. */
ember_status *em_pack_get(em_pack_cache *c, const ember_allocator *al, const em_pack_key *k,
                          size_t bytes, em_pack_fill_fn *fill, void *ctx, em_pack **out);
/* The source at `src` is about to be freed while packs made from it live on (the planner's
 * widened half weights): those packs stay valid for their holders but are never found again,
 * so a constant later allocated at the same address cannot match them. Ignores NULL. */
void em_pack_cache_forget(em_pack_cache *c, const void *src);
const void *em_pack_data(const em_pack *p);

/* Giving a source back (weights held in half whose bytes the model drops once packed: the
 * planner's em_plan_half_packed, session.c). A pack that holds its source's values exactly
 * may say how to write bytes [off, off + len) of the source back from its data: fn(ctx, data,
 * dst) writes them at dst + off, dst being the source's start. ctx (ctx_len bytes) is copied.
 * Set once; later calls (a found pack) are ignored. Any thread. */
typedef void em_pack_unpack_fn(const void *ctx, const void *data, void *dst);
ember_status *em_pack_set_unpack(em_pack *p, em_pack_unpack_fn *fn, const void *ctx,
                                 size_t ctx_len, size_t off, size_t len);
/* Whether packs of `src` in c that can give their bytes back cover all `bytes` bytes of it;
 * if so they are kept (one reference each, never released: they live until the cache is
 * destroyed) and em_pack_cache_unpack can write the source from them. Ignores NULL. */
bool em_pack_cache_keep(em_pack_cache *c, const void *src, size_t bytes);
/* Writes the `bytes` bytes of source `src` at dst from the packs em_pack_cache_keep kept;
 * false when they do not cover it. */
bool em_pack_cache_unpack(em_pack_cache *c, const void *src, size_t bytes, void *dst);
/* Drops one reference; the last frees the pack. Ignores NULL. Any thread. */
void em_pack_release(em_pack *p);

#endif /* EMBER_CORE_PACK_H */
