/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Protocol 0 opcodes of the pickle machine: their operands are '\n'-terminated text lines
 * (Lib/pickle.py load_int, load_long, load_float, load_string, load_unicode, load_get,
 * load_put), plus the UTF-8 check the binary string opcodes use. PyTorch never writes
 * these; Python's pickle.dumps(protocol=0) does. Integers beyond 64 bits are UNSUPPORTED.
 * FLOAT goes through strtod, which follows LC_NUMERIC: an application that changed the C
 * locale may see such a pickle refused, never misread (the whole line must be consumed).
 */
#include "ts_pickle_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

ember_status *em_tsp_line(tsp *p, const char **s, size_t *n)
{
    const unsigned char *nl = memchr(p->b + p->pos, '\n', p->n - p->pos);
    if (nl == NULL) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "operand line without '\\n'");
    }
    *s = (const char *)p->b + p->pos;
    *n = (size_t)(nl - (p->b + p->pos));
    p->pos += *n + 1;
    return NULL;
}

/* Decimal [+-]digits, all of s[0..n), into *v; false when malformed. *big: beyond int64. */
static bool parse_dec(const char *s, size_t n, int64_t *v, bool *big)
{
    size_t i = 0;
    bool neg = false;
    uint64_t u = 0, lim;
    *big = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
        neg = s[i++] == '-';
    }
    if (i == n) {
        return false;
    }
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        unsigned d = (unsigned)(s[i] - '0');
        if (u > (lim - d) / 10) {
            *big = true;
        } else {
            u = u * 10 + d;
        }
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

static ember_status *text_float(tsp *p, const char *s, size_t n, em_tsv **out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed float");
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end = NULL;
    double d = strtod(buf, &end);
    if (end != buf + n || strchr(buf, ' ') != NULL) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed float");
    }
    em_tsv *v = em_tsp_new(p, EM_TSV_FLOAT);
    if (v == NULL) {
        return em_status_oom();
    }
    v->u.f = d;
    *out = v;
    return NULL;
}

ember_status *em_tsp_text_number(tsp *p, em_tsv **out)
{
    const char *s = NULL;
    size_t n = 0;
    ember_status *st = em_tsp_line(p, &s, &n);
    if (st != NULL) {
        return st;
    }
    if (p->op == 'F') {
        return text_float(p, s, n, out);
    }
    em_tsv *v = NULL;
    if (p->op == 'I' && n == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1')) {
        v = em_tsp_new(p, EM_TSV_BOOL);
        if (v != NULL) {
            v->u.b = s[1] == '1';
        }
    } else {
        if (p->op == 'L' && n > 0 && s[n - 1] == 'L') {
            n--;
        }
        int64_t i = 0;
        bool big = false;
        if (!parse_dec(s, n, &i, &big)) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed integer");
        }
        if (big) {
            return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "integer beyond 64 bits");
        }
        v = em_tsp_new(p, EM_TSV_INT);
        if (v != NULL) {
            v->u.i = i;
        }
    }
    if (v == NULL) {
        return em_status_oom();
    }
    *out = v;
    return NULL;
}

ember_status *em_tsp_text_index(tsp *p, size_t *out)
{
    const char *s = NULL;
    size_t n = 0;
    int64_t i = 0;
    bool big = false;
    ember_status *st = em_tsp_line(p, &s, &n);
    if (st != NULL) {
        return st;
    }
    if (!parse_dec(s, n, &i, &big) || big || i < 0) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed memo index");
    }
    *out = (size_t)i;
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Reads k hex digits at s[*i..]; -1 when malformed. */
static long hex_at(const char *s, size_t n, size_t *i, int k)
{
    long v = 0;
    for (int j = 0; j < k; j++, (*i)++) {
        int h = *i < n ? hexval(s[*i]) : -1;
        if (h < 0) {
            return -1;
        }
        v = v * 16 + h;
    }
    return v;
}

/* Writes code point c as UTF-8 at d; returns the byte count, 0 for a surrogate or > 10FFFF. */
static size_t put_utf8(unsigned char *d, long c)
{
    if (c < 0x80) {
        d[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        d[0] = (unsigned char)(0xc0 | c >> 6);
        d[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff) {
        return 0;
    }
    if (c < 0x10000) {
        d[0] = (unsigned char)(0xe0 | c >> 12);
        d[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        d[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    d[0] = (unsigned char)(0xf0 | c >> 18);
    d[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    d[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    d[3] = (unsigned char)(0x80 | (c & 0x3f));
    return 4;
}

/* One escape of a STRING literal at s[*i] (after the backslash) into d; returns the byte
 * count written, or 0 when it is not one ember reads. */
static size_t str_escape(const char *s, size_t n, size_t *i, unsigned char *d)
{
    static const char from[] = "\\'\"ntr", to[] = "\\'\"\n\t\r";
    if (*i >= n) {
        return 0;
    }
    const char *e = memchr(from, s[*i], sizeof from - 1);
    if (e != NULL) {
        (*i)++;
        d[0] = (unsigned char)to[e - from];
        return 1;
    }
    if (s[*i] == 'x') {
        (*i)++;
        long v = hex_at(s, n, i, 2);
        d[0] = (unsigned char)v;
        return v >= 0 && v < 0x80 ? 1 : 0;
    }
    return 0;
}

/* UNICODE's raw-unicode-escape: \uXXXX and \UXXXXXXXX, any other byte as is (Latin-1). */
static size_t uni_escape(const char *s, size_t n, size_t *i, unsigned char *d)
{
    if (*i + 1 < n && s[*i] == '\\' && (s[*i + 1] == 'u' || s[*i + 1] == 'U')) {
        int k = s[*i + 1] == 'u' ? 4 : 8;
        *i += 2;
        long c = hex_at(s, n, i, k);
        return c < 0 ? 0 : put_utf8(d, c);
    }
    return put_utf8(d, (unsigned char)s[(*i)++]);
}

ember_status *em_tsp_text_string(tsp *p, em_tsv **out)
{
    const char *s = NULL;
    size_t n = 0;
    ember_status *st = em_tsp_line(p, &s, &n);
    if (st != NULL) {
        return st;
    }
    if (p->op == 'S') {
        if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0]) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "string not quoted");
        }
        s++;
        n -= 2;
    }
    /* At most 4 UTF-8 bytes per input byte (Latin-1 above 0x7f takes 2, \U takes 4 of 10). */
    unsigned char *d = em_ts_arena_alloc(p->ar, n > SIZE_MAX / 4 ? SIZE_MAX : 4 * n + 1);
    if (d == NULL) {
        return em_status_oom();
    }
    size_t len = 0;
    for (size_t i = 0; i < n;) {
        size_t k;
        if (p->op == 'V') {
            k = uni_escape(s, n, &i, d + len);
        } else if (s[i] == '\\') {
            i++;
            k = str_escape(s, n, &i, d + len);
        } else {
            k = (unsigned char)s[i] < 0x80;
            d[len] = (unsigned char)s[i++];
        }
        if (k == 0) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed string literal");
        }
        len += k;
    }
    em_tsv *v = em_tsp_new(p, EM_TSV_STR);
    if (v == NULL) {
        return em_status_oom();
    }
    v->u.str.s = (const char *)d;
    v->u.str.n = len;
    *out = v;
    return NULL;
}

bool em_tsp_utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (k == 0 || n - i < k) {
            return false;
        }
        uint32_t cp = k == 1 ? c : c & (0x7fu >> k);
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xc0) != 0x80) {
                return false;
            }
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[k] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
            return false;
        }
        i += k;
    }
    return true;
}
