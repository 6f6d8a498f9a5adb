/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the structure-aware mutators: see fuzz_mut.h. */
#include "fuzz_mut.h"

#include <stdlib.h>
#include <string.h>

void fz_seed(fz_rng *r, unsigned seed)
{
    r->s = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0xbf58476d1ce4e5b9ull);
    fz_next(r);
}

uint64_t fz_next(fz_rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

size_t fz_below(fz_rng *r, size_t n)
{
    return n == 0 ? 0 : (size_t)(fz_next(r) % n);
}

bool fz_one_in(fz_rng *r, size_t n)
{
    return fz_below(r, n) == 0;
}

int64_t fz_interesting(fz_rng *r, int64_t old)
{
    static const int64_t vals[] = {0,   1,   -1,  2,          3,          4,         7,
                                   8,   16,  64,  255,        256,        1024,      65535,
                                   -2,  127, 128, 2147483647, -2147483648LL, 4294967296LL,
                                   INT64_MAX, INT64_MIN, (int64_t)1 << 40};
    switch (fz_below(r, 4)) {
    case 0: /* wraps around at the ends, as an unsigned field would */
        return (int64_t)((uint64_t)old + 1 + fz_below(r, 4));
    case 1:
        return (int64_t)((uint64_t)old - 1 - fz_below(r, 4));
    case 2:
        return (int64_t)(fz_next(r) >> fz_below(r, 64));
    default:
        return vals[fz_below(r, sizeof vals / sizeof vals[0])];
    }
}

const char *fz_pick(fz_rng *r, const char *const *list, size_t n)
{
    return list[fz_below(r, n)];
}

void fz_put(fz_buf *b, const void *src, size_t n)
{
    if (b->failed || n == 0) {
        return;
    }
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) {
            cap *= 2;
        }
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

void fz_put_byte(fz_buf *b, uint8_t v)
{
    fz_put(b, &v, 1);
}

void fz_put_le(fz_buf *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        fz_put_byte(b, (uint8_t)(v >> (8 * i)));
    }
}

void fz_put_varint(fz_buf *b, uint64_t v)
{
    while (v >= 0x80) {
        fz_put_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    fz_put_byte(b, (uint8_t)v);
}

void fz_buf_free(fz_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

bool fz_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 10 && *p < end; i++) {
        uint8_t c = *(*p)++;
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        if ((c & 0x80) == 0) {
            *v = x;
            return true;
        }
    }
    return false;
}

bool fz_mutate_bytes(const uint8_t *src, size_t n, size_t grow, uint8_t **out, size_t *out_n)
{
    uint8_t *p = malloc(n + grow + 1);
    if (p == NULL) {
        return false;
    }
    if (n > 0) {
        memcpy(p, src, n);
    } else { /* libFuzzer mutates something, not nothing */
        p[0] = 'a';
        n = 1;
    }
    *out_n = LLVMFuzzerMutate(p, n, n + grow);
    *out = p;
    return true;
}

size_t fz_emit(fz_buf *b, uint8_t *data, size_t max_size)
{
    size_t n = 0;
    if (!b->failed && b->n > 0 && b->n <= max_size) {
        memcpy(data, b->p, b->n);
        n = b->n;
    }
    fz_buf_free(b);
    return n;
}
