/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String arrays in .npy images (npy_str.h). Reading converts UCS-4 to UTF-8 in two passes
 * (sizes, then bytes) into one packed storage; bytes ('S') are taken as they are, UTF-8 or
 * not. Writing measures every element in code points first, so a tensor that is not valid
 * UTF-8 fails before anything is written.
 */
#include "npy_str.h"

#include "core/alloc.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <string.h>

bool em_npy_str_descr(const char *d, size_t n, char *kind, size_t *chars, char *order)
{
    *order = '=';
    if (n > 0 && strchr("<>|=", d[0]) != NULL) {
        *order = d[0];
        d++;
        n--;
    }
    if (n < 2 || (d[0] != 'U' && d[0] != 'S')) {
        return false;
    }
    size_t v = 0;
    for (size_t i = 1; i < n; i++) {
        if (d[i] < '0' || d[i] > '9' || v > (SIZE_MAX - 9) / 10) {
            return false;
        }
        v = v * 10 + (size_t)(d[i] - '0');
    }
    *kind = d[0];
    *chars = v;
    return true;
}

bool em_npy_str_itemsize(char kind, size_t chars, size_t *bytes)
{
    return em_size_mul(chars, kind == 'U' ? 4 : 1, bytes);
}

static uint32_t ucs4_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* UTF-8 length of element `item` (bytes or code units up to the first NUL); 0 length and
 * false for a code unit that is no scalar value. */
static bool item_len(const unsigned char *item, char kind, size_t chars, size_t *len)
{
    char buf[4];
    *len = 0;
    for (size_t c = 0; c < chars; c++) {
        uint32_t cp = kind == 'U' ? ucs4_at(item + 4 * c) : item[c];
        if (cp == 0) {
            break;
        }
        int k = kind == 'U' ? em_utf8_encode(cp, buf) : 1;
        if (k == 0) {
            return false;
        }
        *len += (size_t)k;
    }
    return true;
}

ember_status *em_npy_str_read(const unsigned char *data, int64_t numel, char kind, size_t chars,
                              const char *what, const ember_allocator *al, em_storage **out)
{
    size_t item = 0, total = (size_t)numel * sizeof(char *), len;
    *out = NULL;
    em_npy_str_itemsize(kind, chars, &item);
    for (int64_t i = 0; i < numel; i++) {
        if (!item_len(data + (size_t)i * item, kind, chars, &len)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "%s: element %lld holds a code unit that is no Unicode scalar "
                                 "value (a surrogate or above U+10FFFF)",
                                 what, (long long)i);
        }
        if (!em_size_add(total, len + 1, &total)) {
            return em_status_oom();
        }
    }
    ember_status *st = em_storage_new_owned(al, total, out);
    if (st != NULL) {
        return st;
    }
    char **ptrs = em_storage_data(*out);
    char *at = (char *)(ptrs + numel);
    for (int64_t i = 0; i < numel; i++) {
        const unsigned char *src = data + (size_t)i * item;
        ptrs[i] = at;
        for (size_t c = 0; c < chars; c++) {
            uint32_t cp = kind == 'U' ? ucs4_at(src + 4 * c) : src[c];
            if (cp == 0) {
                break;
            }
            if (kind == 'U') {
                at += em_utf8_encode(cp, at);
            } else {
                *at++ = (char)cp;
            }
        }
        *at++ = '\0';
    }
    return NULL;
}

ember_status *em_npy_str_chars(const em_tensor *t, size_t *chars)
{
    int64_t n = em_tensor_numel(t);
    *chars = 1;
    for (int64_t i = 0; i < n; i++) {
        const char *s = em_str_at(t, i), *end = s + strlen(s);
        size_t count = 0;
        for (const char *p = s; p < end; count++) {
            uint32_t cp;
            int k = em_utf8_decode(p, end, &cp);
            if (k == 0) {
                return em_status_new(EMBER_ERR_INVALID_ARG,
                                     "npy: string element %lld is not valid UTF-8 (byte %td); "
                                     "numpy's unicode dtype cannot hold it",
                                     (long long)i, p - s);
            }
            p += k;
        }
        *chars = count > *chars ? count : *chars;
    }
    return NULL;
}

void em_npy_str_fill(const em_tensor *t, size_t chars, unsigned char *dst)
{
    int64_t n = em_tensor_numel(t);
    memset(dst, 0, (size_t)n * 4 * chars);
    for (int64_t i = 0; i < n; i++) {
        const char *s = em_str_at(t, i), *end = s + strlen(s);
        unsigned char *o = dst + (size_t)i * 4 * chars;
        uint32_t cp;
        int k;
        for (const char *p = s; p < end && (k = em_utf8_decode(p, end, &cp)) > 0; p += k) {
            o[0] = (unsigned char)cp;
            o[1] = (unsigned char)(cp >> 8);
            o[2] = (unsigned char)(cp >> 16);
            o[3] = (unsigned char)(cp >> 24);
            o += 4;
        }
    }
}
