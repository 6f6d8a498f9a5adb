/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors: storage and lifetimes (strtensor.h).
 *
 * Design. A string tensor's data is an array of `const char *` (8 bytes per element) in an
 * ordinary em_storage, so views (Reshape, Identity, sequence items) share it and every
 * element-moving kernel (Gather, Concat, Transpose, Slice, Expand, ...) copies pointers like
 * any other 8-byte dtype. The bytes live in one of two places:
 *  - a packed storage (em_str_pack): pointers followed by the bytes, pointing into itself
 *    (initializers, .pb/.npy files, tensors made through the API);
 *  - other storages that this one keeps (em_storage_keep): the chunks of a kernel's string
 *    arena, and whatever the inputs' pointers point into. After every node with a string
 *    output, the interpreter makes each string output keep the bytes of every string input
 *    (em_str_keep_bytes), so a copy never outlives what it points at, whatever the kernel
 *    copied. Keeping is flattened: a storage that keeps others has no bytes of its own, so
 *    its kept list is kept instead of it and chains stay one level deep.
 * The cost is memory held a little longer than needed (a Gather of one string keeps its
 * source's bytes), in exchange for no per-kernel string logic and no deep copies inside a
 * run. Handles given to or taken from the API are deep copies (packed), so a caller never
 * depends on a run's internals. A NULL element reads as "" everywhere (zeroed storage is a
 * tensor of empty strings).
 *
 * Kernels that make strings allocate them from an arena placed behind the output's pointer
 * array (em_str_out_new); em_str_out_finish turns its chunks into kept storages.
 */
#include "core/strtensor.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- packed storages ---- */

ember_status *em_str_pack(const ember_allocator *al, const char *const *src, const size_t *lens,
                          int64_t n, em_storage **out)
{
    size_t head, total, bytes = 0;
    *out = NULL;
    if (n < 0 || !em_size_mul((size_t)n, sizeof(char *), &head)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "string tensor of %lld elements is too large",
                             (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        const char *s = src[i] != NULL ? src[i] : "";
        size_t len = lens != NULL && src[i] != NULL ? lens[i] : strlen(s);
        if (!em_size_add(bytes, len + 1, &bytes)) {
            return em_status_oom();
        }
    }
    if (!em_size_add(head, bytes, &total)) {
        return em_status_oom();
    }
    ember_status *st = em_storage_new_owned(al, total, out);
    if (st != NULL) {
        return st;
    }
    char **ptrs = em_storage_data(*out);
    char *at = (char *)ptrs + head;
    for (int64_t i = 0; i < n; i++) {
        const char *s = src[i] != NULL ? src[i] : "";
        size_t len = lens != NULL && src[i] != NULL ? lens[i] : strlen(s);
        memcpy(at, s, len);
        at[len] = '\0';
        ptrs[i] = at;
        at += len + 1;
    }
    return NULL;
}

ember_status *em_str_keep_bytes(em_storage *dst, em_storage *src)
{
    int n = em_storage_kept_count(src);
    if (src == NULL || dst == src) {
        return NULL;
    }
    if (n == 0) {
        return em_storage_keep(dst, src);
    }
    for (int i = 0; i < n; i++) {
        ember_status *st = em_storage_keep(dst, em_storage_kept(src, i));
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

/* ---- kernel string arenas ---- */

#define ARENA_MAGIC 0x656d73747261726eull /* "emstrarn" */
#define ARENA_CHUNK 16384

typedef struct str_arena {
    uint64_t magic;
    const ember_allocator *al;
    em_storage **chunks;
    int n, cap;
    char *cur;   /* free bytes of the last chunk */
    size_t left;
    bool oom;
    char err[320]; /* the first error recorded, "" when none */
} str_arena;

static size_t arena_offset(const em_tensor *t)
{
    return em_align_up((size_t)em_tensor_numel(t) * sizeof(char *), EM_ALIGN);
}

static str_arena *arena_of(const em_tensor *t)
{
    str_arena *a = (str_arena *)((char *)t->data + arena_offset(t));
    EMBER_ASSERT(t->dtype == EMBER_DTYPE_STRING && a->magic == ARENA_MAGIC);
    return a;
}

ember_status *em_str_out_new(const ember_allocator *al, em_tensor *t, em_storage **out)
{
    size_t nbytes, total;
    *out = NULL;
    if (!em_tensor_nbytes_checked(t, &nbytes) || !em_size_add(arena_offset(t), sizeof(str_arena),
                                                              &total)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "a string tensor of %d dims is too large",
                             t->rank);
    }
    ember_status *st = em_storage_new_owned(al, total, out);
    if (st != NULL) {
        return st;
    }
    t->data = em_storage_data(*out);
    str_arena *a = (str_arena *)((char *)t->data + arena_offset(t));
    memset(a, 0, sizeof *a);
    a->magic = ARENA_MAGIC;
    a->al = al;
    return NULL;
}

static bool arena_grow(str_arena *a, size_t need)
{
    if (a->n == a->cap) {
        int cap = a->cap > 0 ? 2 * a->cap : 8;
        em_storage **c = em_realloc(a->al, a->chunks, sizeof *c * (size_t)cap);
        if (c == NULL) {
            return false;
        }
        a->chunks = c;
        a->cap = cap;
    }
    size_t size = (size_t)ARENA_CHUNK << (a->n < 6 ? a->n : 6);
    size = need > size ? need : size;
    em_storage *s = NULL;
    ember_status *st = em_storage_new_owned(a->al, size, &s);
    if (st != NULL) {
        ember_status_destroy(st);
        return false;
    }
    a->chunks[a->n++] = s;
    a->cur = em_storage_data(s);
    a->left = size;
    return true;
}

char *em_str_alloc(const em_tensor *out, size_t len)
{
    str_arena *a = arena_of(out);
    if (a->oom || len >= SIZE_MAX / 2) {
        a->oom = true;
        return NULL;
    }
    if (a->left < len + 1 && !arena_grow(a, len + 1)) {
        a->oom = true;
        return NULL;
    }
    char *p = a->cur;
    p[len] = '\0';
    a->cur += len + 1;
    a->left -= len + 1;
    return p;
}

const char *em_str_dup(const em_tensor *out, const char *s, size_t len)
{
    char *p = em_str_alloc(out, len);
    if (p == NULL) {
        return "";
    }
    if (len > 0) {
        memcpy(p, s, len);
    }
    return p;
}

void em_str_fail(const em_tensor *out, const char *fmt, ...)
{
    str_arena *a = arena_of(out);
    if (a->err[0] != '\0') {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err, sizeof a->err, fmt, ap);
    va_end(ap);
    if (a->err[0] == '\0') {
        snprintf(a->err, sizeof a->err, "bad string data");
    }
}

ember_status *em_str_out_finish(em_storage *s, const em_tensor *t, const char *who)
{
    str_arena *a = arena_of(t);
    ember_status *st = NULL;
    for (int i = 0; i < a->n; i++) {
        if (st == NULL) {
            st = em_storage_keep(s, a->chunks[i]);
        }
        em_storage_release(a->chunks[i]);
    }
    em_free(a->al, a->chunks);
    if (st == NULL && a->oom) {
        st = em_status_oom();
    }
    if (st == NULL && a->err[0] != '\0') {
        st = em_status_new(EMBER_ERR_INVALID_ARG, "%s: %s", who, a->err);
    }
    a->chunks = NULL;
    a->n = a->cap = 0;
    a->cur = NULL;
    a->left = 0;
    a->oom = false;
    a->err[0] = '\0';
    return st;
}

/* ---- UTF-8 ---- */

int em_utf8_decode(const char *s, const char *end, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    ptrdiff_t avail = end - s;
    if (avail < 1) {
        return 0;
    }
    uint32_t c = p[0];
    int len;
    uint32_t min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2;
        min = 0x80;
        c &= 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        min = 0x800;
        c &= 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        min = 0x10000;
        c &= 0x07;
    } else {
        return 0;
    }
    if (avail < len) {
        return 0;
    }
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            return 0;
        }
        c = (c << 6) | (p[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
        return 0;
    }
    *cp = c;
    return len;
}

int em_utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
        return 0;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    if (cp <= 0x10ffff) {
        o[0] = (unsigned char)(0xf0 | (cp >> 18));
        o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[3] = (unsigned char)(0x80 | (cp & 0x3f));
        return 4;
    }
    return 0;
}

bool em_utf8_valid(const char *s, size_t n, size_t *bad)
{
    const char *p = s, *end = s + n;
    while (p < end) {
        uint32_t cp;
        int k = em_utf8_decode(p, end, &cp);
        if (k == 0) {
            if (bad != NULL) {
                *bad = (size_t)(p - s);
            }
            return false;
        }
        p += k;
    }
    return true;
}
