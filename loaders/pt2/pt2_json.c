/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON reader of pt2_json.h: recursive descent over the text, depth-bounded. Arrays and
 * objects are collected in a growing scratch array of the arena (doubling, the old copy left
 * to the arena), so a document of n bytes allocates O(n).
 */
#include "pt2_json.h"

#include "core/status.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct jp {
    em_ts_arena *arena;
    const char *t;
    size_t n, at;
    const char *what;
} jp;

static ember_status *jerr(const jp *p, const char *why)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: JSON: %s at byte %zu", p->what, why,
                         p->at);
}

static void skip_ws(jp *p)
{
    while (p->at < p->n && (p->t[p->at] == ' ' || p->t[p->at] == '\t' || p->t[p->at] == '\n' ||
                            p->t[p->at] == '\r')) {
        p->at++;
    }
}

static int hexval(char c)
{
    if (!isxdigit((unsigned char)c)) {
        return -1;
    }
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static bool hex4(jp *p, unsigned *u)
{
    if (p->n - p->at < 4) {
        return false;
    }
    *u = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p->t[p->at + (size_t)k]);
        if (h < 0) {
            return false;
        }
        *u = *u * 16u + (unsigned)h;
    }
    p->at += 4;
    return true;
}

static size_t put_utf8(char *o, unsigned c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* One escape after the backslash at p->at - 1 into o; returns bytes written, 0 when bad. */
static size_t escape(jp *p, char *o)
{
    if (p->at >= p->n) {
        return 0;
    }
    char c = p->t[p->at++];
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = strchr(from, c);
    if (c != '\0' && k != NULL) {
        o[0] = to[k - from];
        return 1;
    }
    unsigned u = 0, lo = 0;
    if (c != 'u' || !hex4(p, &u) || u == 0 || (u >= 0xDC00 && u < 0xE000)) {
        return 0;
    }
    if (u >= 0xD800 && u < 0xDC00) {
        if (p->n - p->at < 2 || p->t[p->at] != '\\' || p->t[p->at + 1] != 'u') {
            return 0;
        }
        p->at += 2;
        if (!hex4(p, &lo) || lo < 0xDC00 || lo >= 0xE000) {
            return 0;
        }
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    }
    return put_utf8(o, u);
}

static ember_status *parse_string(jp *p, const char **s, size_t *len)
{
    size_t start = ++p->at, end = start; /* past the opening quote */
    while (end < p->n && p->t[end] != '"') {
        end += p->t[end] == '\\' ? 2 : 1;
    }
    if (end >= p->n) {
        p->at = p->n;
        return jerr(p, "unterminated string");
    }
    /* Unescaping never grows the text (\uXXXX is 6 bytes for at most 4; a pair 12 for 4). */
    char *o = em_ts_arena_alloc(p->arena, end - start + 1);
    if (o == NULL) {
        return em_status_oom();
    }
    size_t w = 0;
    while (p->at < end) {
        unsigned char c = (unsigned char)p->t[p->at];
        if (c < 0x20) {
            return jerr(p, "control character in a string");
        }
        p->at++;
        if (c != '\\') {
            o[w++] = (char)c;
            continue;
        }
        size_t k = escape(p, o + w);
        if (k == 0 || p->at > end) {
            return jerr(p, "bad escape in a string");
        }
        w += k;
    }
    p->at = end + 1;
    o[w] = '\0';
    *s = o;
    *len = w;
    return NULL;
}

static ember_status *parse_number(jp *p, em_pt2_json *v)
{
    size_t s = p->at;
    if (p->at < p->n && p->t[p->at] == '-') {
        p->at++;
    }
    size_t digits = p->at;
    while (p->at < p->n && p->t[p->at] >= '0' && p->t[p->at] <= '9') {
        p->at++;
    }
    if (p->at == digits || (p->t[digits] == '0' && p->at - digits > 1)) {
        return jerr(p, "bad number");
    }
    bool integer = true;
    if (p->at < p->n && p->t[p->at] == '.') {
        integer = false;
        size_t f = ++p->at;
        while (p->at < p->n && p->t[p->at] >= '0' && p->t[p->at] <= '9') {
            p->at++;
        }
        if (p->at == f) {
            return jerr(p, "bad number");
        }
    }
    if (p->at < p->n && (p->t[p->at] == 'e' || p->t[p->at] == 'E')) {
        integer = false;
        p->at++;
        if (p->at < p->n && (p->t[p->at] == '+' || p->t[p->at] == '-')) {
            p->at++;
        }
        size_t e = p->at;
        while (p->at < p->n && p->t[p->at] >= '0' && p->t[p->at] <= '9') {
            p->at++;
        }
        if (p->at == e) {
            return jerr(p, "bad number");
        }
    }
    char buf[64];
    size_t len = p->at - s;
    if (len >= sizeof buf) {
        return jerr(p, "number too long");
    }
    memcpy(buf, p->t + s, len);
    buf[len] = '\0';
    v->k = EM_PT2_JNUM;
    v->f = strtod(buf, NULL);
    if (integer) {
        errno = 0;
        v->i = strtoll(buf, NULL, 10);
        v->is_int = errno != ERANGE;
    }
    return NULL;
}

static ember_status *parse_value(jp *p, int depth, em_pt2_json **out);

/* The items (and keys, for objects) of an array or object starting at p->at ('[' or '{'). */
static ember_status *parse_container(jp *p, int depth, em_pt2_json *v)
{
    bool obj = p->t[p->at] == '{';
    char close = obj ? '}' : ']';
    v->k = obj ? EM_PT2_JOBJ : EM_PT2_JARR;
    p->at++;
    size_t cap = 0;
    skip_ws(p);
    if (p->at < p->n && p->t[p->at] == close) {
        p->at++;
        return NULL;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap == 0 ? 8 : cap * 2;
            em_pt2_json **items = em_ts_arena_alloc(p->arena, cap * sizeof *items);
            const char **keys = obj ? em_ts_arena_alloc(p->arena, cap * sizeof *keys) : NULL;
            if (items == NULL || (obj && keys == NULL)) {
                return em_status_oom();
            }
            if (v->n > 0) {
                memcpy(items, v->items, v->n * sizeof *items);
                if (obj) {
                    memcpy(keys, v->keys, v->n * sizeof *keys);
                }
            }
            v->items = items;
            v->keys = keys;
        }
        skip_ws(p);
        if (obj) {
            size_t len = 0;
            if (p->at >= p->n || p->t[p->at] != '"') {
                return jerr(p, "expected a key");
            }
            EM_RETURN_IF_ERROR(parse_string(p, &v->keys[v->n], &len));
            skip_ws(p);
            if (p->at >= p->n || p->t[p->at] != ':') {
                return jerr(p, "expected ':'");
            }
            p->at++;
        }
        EM_RETURN_IF_ERROR(parse_value(p, depth + 1, &v->items[v->n]));
        v->n++;
        skip_ws(p);
        if (p->at < p->n && p->t[p->at] == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->n && p->t[p->at] == close) {
            p->at++;
            return NULL;
        }
        return jerr(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static ember_status *parse_value(jp *p, int depth, em_pt2_json **out)
{
    if (depth >= EM_PT2_JSON_MAX_DEPTH) { /* depth 0 is the outermost value */
        return jerr(p, "nested too deeply");
    }
    skip_ws(p);
    if (p->at >= p->n) {
        return jerr(p, "unexpected end");
    }
    em_pt2_json *v = em_ts_arena_alloc(p->arena, sizeof *v);
    if (v == NULL) {
        return em_status_oom();
    }
    *out = v;
    char c = p->t[p->at];
    static const char *const words[] = {"null", "true", "false"};
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(words[k]);
        if (c == words[k][0]) {
            if (p->n - p->at < len || memcmp(p->t + p->at, words[k], len) != 0) {
                return jerr(p, "bad literal");
            }
            p->at += len;
            v->k = k == 0 ? EM_PT2_JNULL : EM_PT2_JBOOL;
            v->b = k == 1;
            return NULL;
        }
    }
    if (c == '"') {
        v->k = EM_PT2_JSTR;
        return parse_string(p, &v->s, &v->n);
    }
    if (c == '[' || c == '{') {
        return parse_container(p, depth, v);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        return parse_number(p, v);
    }
    return jerr(p, "unexpected character");
}

ember_status *em_pt2_json_parse(em_ts_arena *arena, const char *text, size_t n, const char *what,
                                const em_pt2_json **out)
{
    jp p = {arena, text, n, 0, what};
    *out = NULL;
    if (n > EM_PT2_JSON_MAX_BYTES) {
        return jerr(&p, "text too large");
    }
    em_pt2_json *v = NULL;
    EM_RETURN_IF_ERROR(parse_value(&p, 0, &v));
    skip_ws(&p);
    if (p.at != p.n) {
        return jerr(&p, "trailing characters");
    }
    *out = v;
    return NULL;
}

const em_pt2_json *em_pt2_json_get(const em_pt2_json *o, const char *key)
{
    for (size_t i = 0; o != NULL && o->k == EM_PT2_JOBJ && i < o->n; i++) {
        if (strcmp(o->keys[i], key) == 0) {
            return o->items[i];
        }
    }
    return NULL;
}

const char *em_pt2_json_kind_name(em_pt2_jkind k)
{
    static const char *const names[] = {"null", "bool", "number", "string", "array", "object"};
    return (unsigned)k < 6 ? names[k] : "?";
}
