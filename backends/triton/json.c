/* SPDX-License-Identifier: Apache-2.0 */
/* A small recursive-descent JSON reader (json.h). Depth is bounded so hostile input cannot
 * exhaust the stack. */
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_TJ_MAX_DEPTH 64

typedef struct {
    const char *s;
    size_t n, i;
    char *err;
    size_t err_size;
    bool failed;
} tj_reader;

static void fail(tj_reader *r, const char *what)
{
    if (!r->failed) {
        snprintf(r->err, r->err_size, "JSON: %s at byte %zu", what, r->i);
        r->failed = true;
    }
}

static void skip_ws(tj_reader *r)
{
    while (r->i < r->n &&
           (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r')) {
        r->i++;
    }
}

static bool literal(tj_reader *r, const char *word)
{
    size_t k = strlen(word);
    if (r->n - r->i < k || memcmp(r->s + r->i, word, k) != 0) {
        fail(r, "unexpected token");
        return false;
    }
    r->i += k;
    return true;
}

static int hex4(tj_reader *r)
{
    if (r->n - r->i < 4) {
        return -1;
    }
    int v = 0;
    for (int k = 0; k < 4; k++) {
        char c = r->s[r->i + (size_t)k];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= c - '0';
        } else if (c >= 'a' && c <= 'f') {
            v |= c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            v |= c - 'A' + 10;
        } else {
            return -1;
        }
    }
    r->i += 4;
    return v;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* At the opening quote; returns a malloc'ed, unescaped copy. An escape never yields more
 * bytes than it takes (\uXXXX: 6 bytes in, at most 3 out; a pair: 12 in, 4 out). */
static char *read_string(tj_reader *r)
{
    r->i++; /* the quote */
    size_t start = r->i;
    while (r->i < r->n && r->s[r->i] != '"') {
        r->i += (r->s[r->i] == '\\') ? 2 : 1;
    }
    if (r->i >= r->n) {
        fail(r, "unterminated string");
        return NULL;
    }
    size_t end = r->i;
    char *out = malloc(end - start + 1);
    if (!out) {
        fail(r, "out of memory");
        return NULL;
    }
    size_t o = 0;
    r->i = start;
    while (r->i < end) {
        char c = r->s[r->i++];
        if ((unsigned char)c < 0x20) {
            free(out);
            fail(r, "control character in a string");
            return NULL;
        }
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        char e = r->s[r->i++];
        switch (e) {
        case '"':
            out[o++] = '"';
            break;
        case '\\':
            out[o++] = '\\';
            break;
        case '/':
            out[o++] = '/';
            break;
        case 'b':
            out[o++] = '\b';
            break;
        case 'f':
            out[o++] = '\f';
            break;
        case 'n':
            out[o++] = '\n';
            break;
        case 'r':
            out[o++] = '\r';
            break;
        case 't':
            out[o++] = '\t';
            break;
        case 'u': {
            int hi = hex4(r);
            uint32_t cp = (uint32_t)hi;
            if (hi >= 0xD800 && hi < 0xDC00 && end - r->i >= 6 && r->s[r->i] == '\\' &&
                r->s[r->i + 1] == 'u') {
                r->i += 2;
                int lo = hex4(r);
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    hi = -1;
                } else {
                    cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                }
            }
            if (hi < 0 || r->i > end) {
                free(out);
                fail(r, "bad \\u escape");
                return NULL;
            }
            o += put_utf8(out + o, cp);
            break;
        }
        default:
            free(out);
            fail(r, "bad escape");
            return NULL;
        }
    }
    out[o] = '\0';
    r->i = end + 1;
    return out;
}

static bool read_value(tj_reader *r, em_tj *v, int depth);

static bool grow(tj_reader *r, em_tj *v, size_t *cap, bool keys)
{
    if (v->count < *cap) {
        return true;
    }
    size_t nc = *cap ? *cap * 2 : 4;
    em_tj *items = realloc(v->items, nc * sizeof *items);
    if (!items) {
        fail(r, "out of memory");
        return false;
    }
    v->items = items;
    if (keys) {
        char **k = realloc(v->keys, nc * sizeof *k);
        if (!k) {
            fail(r, "out of memory");
            return false;
        }
        v->keys = k;
    }
    *cap = nc;
    return true;
}

static bool read_container(tj_reader *r, em_tj *v, int depth, bool object)
{
    char close = object ? '}' : ']';
    v->kind = object ? EM_TJ_OBJECT : EM_TJ_ARRAY;
    r->i++;
    skip_ws(r);
    if (r->i < r->n && r->s[r->i] == close) {
        r->i++;
        return true;
    }
    size_t cap = 0;
    for (;;) {
        if (!grow(r, v, &cap, object)) {
            return false;
        }
        char *key = NULL;
        if (object) {
            skip_ws(r);
            if (r->i >= r->n || r->s[r->i] != '"') {
                fail(r, "expected a member name");
                return false;
            }
            key = read_string(r);
            if (!key) {
                return false;
            }
            skip_ws(r);
            if (r->i >= r->n || r->s[r->i] != ':') {
                free(key);
                fail(r, "expected ':'");
                return false;
            }
            r->i++;
            v->keys[v->count] = key;
        }
        memset(&v->items[v->count], 0, sizeof v->items[0]);
        v->count++; /* counted before reading so that a failure frees what was read */
        if (!read_value(r, &v->items[v->count - 1], depth + 1)) {
            return false;
        }
        skip_ws(r);
        if (r->i < r->n && r->s[r->i] == ',') {
            r->i++;
            continue;
        }
        if (r->i < r->n && r->s[r->i] == close) {
            r->i++;
            return true;
        }
        fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
}

static bool read_value(tj_reader *r, em_tj *v, int depth)
{
    if (depth > EM_TJ_MAX_DEPTH) {
        fail(r, "nested too deep");
        return false;
    }
    skip_ws(r);
    if (r->i >= r->n) {
        fail(r, "unexpected end");
        return false;
    }
    char c = r->s[r->i];
    switch (c) {
    case '{':
        return read_container(r, v, depth, true);
    case '[':
        return read_container(r, v, depth, false);
    case '"':
        v->kind = EM_TJ_STRING;
        v->string = read_string(r);
        return v->string != NULL;
    case 't':
        v->kind = EM_TJ_BOOL;
        v->boolean = true;
        return literal(r, "true");
    case 'f':
        v->kind = EM_TJ_BOOL;
        v->boolean = false;
        return literal(r, "false");
    case 'n':
        v->kind = EM_TJ_NULL;
        return literal(r, "null");
    default:
        break;
    }
    /* A number: strtod on a bounded copy (the text need not be NUL-terminated). */
    size_t j = r->i;
    while (j < r->n && j - r->i < 63 && strchr("+-0123456789.eE", r->s[j]) && r->s[j]) {
        j++;
    }
    char buf[64];
    memcpy(buf, r->s + r->i, j - r->i);
    buf[j - r->i] = '\0';
    char *endp = NULL;
    v->kind = EM_TJ_NUMBER;
    v->number = strtod(buf, &endp);
    if (j == r->i || endp != buf + (j - r->i)) {
        fail(r, "bad number");
        return false;
    }
    r->i = j;
    return true;
}

static void free_members(em_tj *v)
{
    free(v->string);
    for (size_t k = 0; k < v->count; k++) {
        free_members(&v->items[k]);
        if (v->keys) {
            free(v->keys[k]);
        }
    }
    free(v->items);
    free(v->keys);
}

void em_tj_free(em_tj *v)
{
    if (v) {
        free_members(v);
        free(v);
    }
}

em_tj *em_tj_parse(const char *text, size_t len, char *err, size_t err_size)
{
    tj_reader r = {text, len, 0, err, err_size, false};
    em_tj *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, err_size, "JSON: out of memory");
        return NULL;
    }
    if (read_value(&r, v, 0)) {
        skip_ws(&r);
        if (r.i != r.n) {
            fail(&r, "trailing characters");
        }
    }
    if (r.failed) {
        em_tj_free(v);
        return NULL;
    }
    return v;
}

const em_tj *em_tj_get(const em_tj *v, const char *key)
{
    if (!v || v->kind != EM_TJ_OBJECT) {
        return NULL;
    }
    for (size_t k = 0; k < v->count; k++) {
        if (strcmp(v->keys[k], key) == 0) {
            return &v->items[k];
        }
    }
    return NULL;
}
