/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RegexFullMatch-20 on POSIX <regex.h>. The pattern is RE2 syntax; it is rewritten
 * into a POSIX extended regex, wrapped as ^(...)$ so that a match is a full match, and compiled
 * once in prepare. Rewrites: \d \D \w \W \s \S become bracket expressions (ASCII, as RE2's);
 * escapes inside brackets ([\w.\-]) become POSIX bracket members, ordered so that ']' comes
 * first, '-' last and '^' never first; '.' becomes [^\n] (RE2's dot skips newlines); (?: and
 * (?P<name> become plain groups; a leading (?i) sets REG_ICASE; lazy quantifiers (*? +? ??
 * {n,m}?) drop the '?' (greed cannot change whether a full match exists); \b \B stay (glibc
 * supports them); \A and \z become ^ and $. Anything else RE2-only (\p{..}, \Q..\E, flags
 * mid-pattern, backreferences) is UNSUPPORTED, naming the pattern.
 *
 * Matching runs under a C.UTF-8 locale of its own (uselocale, per thread; "C" when the system
 * has no C.UTF-8), so '.' and brackets see code points and the process's locale does not matter.
 */
#define _POSIX_C_SOURCE 200809L
#include "ref.h"

#include "core/alloc.h"
#include "core/strtensor.h"

#include <locale.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

typedef struct rx_state {
    regex_t re;
    locale_t loc;
    int64_t numel;
} rx_state;

/* The POSIX regex being built; `err` is set by the first problem. */
typedef struct rx_out {
    char *buf;
    size_t len, cap;
    const char *err;
    bool malformed; /* err is a syntax error (INVALID_MODEL), not a missing feature */
} rx_out;

static void put(rx_out *o, const char *s, size_t n)
{
    if (o->err != NULL || o->len >= o->cap || n >= o->cap - o->len) {
        o->err = o->err != NULL ? o->err : "the pattern is too long";
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void puts_(rx_out *o, const char *s) { put(o, s, strlen(s)); }

/* A literal code point outside brackets, escaped when it is special in POSIX EREs. */
static void put_literal(rx_out *o, uint32_t cp)
{
    char b[4];
    int k = em_utf8_encode(cp, b);
    if (k == 1 && strchr(".[]()*+?{}|^$\\", b[0]) != NULL) {
        put(o, "\\", 1);
    }
    if (k == 0) {
        o->err = "an escape names no valid code point";
        return;
    }
    put(o, b, (size_t)k);
}

/* The code point of escape \c at *pp (just past the backslash) that stands for one character:
 * \n \t \r \f \v \a, \xHH, \x{H..}, or an escaped punctuation mark. Returns false for others. */
static bool escape_char(const char **pp, const char *end, uint32_t *cp)
{
    const char *p = *pp;
    char c = *p++;
    static const char ctrl[] = "n\nt\tr\rf\fv\va\a";
    const char *x = strchr("ntrfva", c);
    if (c != '\0' && x != NULL) {
        *cp = (unsigned char)ctrl[2 * (x - "ntrfva") + 1];
    } else if (c == 'x') {
        bool brace = p < end && *p == '{';
        uint32_t v = 0;
        int digits = 0;
        p += brace;
        while (p < end && digits < (brace ? 6 : 2) && strchr("0123456789abcdefABCDEF", *p)) {
            v = v * 16 + (uint32_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
            p++;
            digits++;
        }
        if (digits == 0 || (brace && (p >= end || *p++ != '}'))) {
            return false;
        }
        *cp = v;
    } else if (c != '\0' && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9')) {
        *cp = (unsigned char)c;
    } else {
        return false;
    }
    *pp = p;
    return true;
}

static const char *class_members(char c)
{
    switch (c) {
    case 'd': return "0-9";
    case 'w': return "A-Za-z0-9_";
    case 's': return "\t\n\f\r ";
    default: return NULL;
    }
}

/* A bracket expression starting at *pp (just past '['), rebuilt for POSIX. */
static void translate_bracket(const char **pp, const char *end, rx_out *o)
{
    const char *p = *pp;
    char body[512];
    size_t n = 0;
    bool neg = false, has_close = false, has_dash = false, has_caret = false, first = true;
    if (p < end && *p == '^') {
        neg = true;
        p++;
    }
    for (; p < end && (first || *p != ']'); first = false) {
        uint32_t cp = 0;
        const char *mem = NULL;
        char b[4];
        int k = 0;
        bool escaped = *p == '\\';
        if (*p == '[' && p + 1 < end && p[1] == ':') { /* [:alpha:] stays */
            const char *q = strstr(p + 2, ":]");
            if (q == NULL || n + (size_t)(q + 2 - p) >= sizeof body) {
                o->err = "a [: class is not closed";
                o->malformed = true;
                return;
            }
            memcpy(body + n, p, (size_t)(q + 2 - p));
            n += (size_t)(q + 2 - p);
            p = q + 2;
            continue;
        }
        if (*p == '\\' && p + 1 < end && (mem = class_members(p[1])) != NULL) {
            p += 2;
        } else if (*p == '\\') {
            p++;
            if (p >= end || !escape_char(&p, end, &cp)) {
                o->err = "an escape in brackets that POSIX cannot express";
                return;
            }
        } else {
            k = em_utf8_decode(p, end, &cp);
            if (k == 0) {
                o->err = "the pattern is not valid UTF-8";
                o->malformed = true;
                return;
            }
            p += k;
        }
        if (mem == NULL && (cp == ']' || cp == '-' || cp == '^')) {
            /* a '-' between two members is a range: keep it in place */
            if (cp == '-' && !escaped && n > 0 && p < end && *p != ']') {
                mem = "-";
            } else {
                has_close |= cp == ']';
                has_dash |= cp == '-';
                has_caret |= cp == '^';
                continue;
            }
        }
        if (mem == NULL) {
            k = em_utf8_encode(cp, b);
            if (k == 0) {
                o->err = "an escape names no valid code point";
                return;
            }
        }
        size_t len = mem != NULL ? strlen(mem) : (size_t)k;
        if (n + len >= sizeof body) {
            o->err = "a bracket expression is too long";
            return;
        }
        memcpy(body + n, mem != NULL ? mem : b, len);
        n += len;
    }
    if (p >= end) {
        o->err = "a '[' is not closed";
        o->malformed = true;
        return;
    }
    *pp = p + 1;
    if (n == 0 && !has_close && !has_dash && has_caret && !neg) {
        puts_(o, "\\^");
        return;
    }
    bool before = has_close || n > 0; /* '^' must not come first */
    puts_(o, neg ? "[^" : "[");
    if (has_close) {
        puts_(o, "]");
    }
    put(o, body, n);
    if (has_caret && before) {
        puts_(o, "^");
    }
    if (has_dash) {
        puts_(o, "-");
    }
    if (has_caret && !before) {
        puts_(o, "^");
    }
    puts_(o, "]");
}

/* One backslash escape outside brackets, *pp just past the backslash. */
static void translate_escape(const char **pp, const char *end, rx_out *o)
{
    char c = **pp;
    const char *mem = class_members((char)(c | 0x20));
    uint32_t cp;
    if (mem != NULL) {
        puts_(o, c >= 'a' ? "[" : "[^");
        puts_(o, mem);
        puts_(o, "]");
        (*pp)++;
    } else if (c == 'b' || c == 'B') {
        puts_(o, c == 'b' ? "\\b" : "\\B");
        (*pp)++;
    } else if (c == 'A' || c == 'z') {
        puts_(o, c == 'A' ? "^" : "$");
        (*pp)++;
    } else if (escape_char(pp, end, &cp)) {
        put_literal(o, cp);
    } else {
        o->err = "an escape that POSIX regexes cannot express (\\p, \\Q, backreferences, ...)";
    }
}

/* RE2 -> POSIX ERE: "^(" + translation + ")$". */
static const char *translate(const char *pat, char *buf, size_t cap, int *cflags,
                             bool *malformed)
{
    rx_out o = {buf, 0, cap, NULL, false};
    const char *p = pat, *end = pat + strlen(pat);
    buf[0] = '\0';
    if (strncmp(p, "(?i)", 4) == 0) {
        *cflags |= REG_ICASE;
        p += 4;
    }
    puts_(&o, "^(");
    while (p < end && o.err == NULL) {
        char c = *p;
        if (c == '\\') {
            p++;
            translate_escape(&p, end, &o);
        } else if (c == '[') {
            p++;
            translate_bracket(&p, end, &o);
        } else if (c == '.') {
            puts_(&o, "[^\n]");
            p++;
        } else if (c == '(' && p + 1 < end && p[1] == '?') {
            if (strncmp(p, "(?:", 3) == 0) {
                p += 3;
            } else if (strncmp(p, "(?P<", 4) == 0 || strncmp(p, "(?<", 3) == 0) {
                const char *q = strchr(p, '>');
                p = q != NULL ? q + 1 : end;
            } else {
                o.err = "inline flags other than a leading (?i)";
            }
            puts_(&o, "(");
        } else if (c == '?' && p > pat && strchr("*+?}", p[-1]) != NULL && p - 1 > pat &&
                   p[-2] != '\\') {
            p++; /* lazy quantifier */
        } else {
            put(&o, p, 1);
            p++;
        }
    }
    puts_(&o, ")$");
    *malformed = o.malformed;
    return o.err;
}

ember_status *em_regexfullmatch_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    ember_status *st = NULL;
    const char *pattern = NULL;
    char ere[4096];
    int cflags = REG_EXTENDED | REG_NOSUB;
    *state = NULL;
    *scratch = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_STRING, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_BOOL, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], ki->in[0].dims, ki->in[0].rank, "output 0"));
    EMBER_TRY(em_ref_attr_string(ki, "pattern", NULL, &pattern));
    if (pattern == NULL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'pattern' is missing");
    }
    bool malformed = false;
    const char *why = translate(pattern, ere, sizeof ere, &cflags, &malformed);
    if (why != NULL) {
        return em_ref_error(ki, malformed ? EMBER_ERR_INVALID_MODEL : EMBER_ERR_UNSUPPORTED,
                            "pattern '%.200s': %s", pattern, why);
    }
    rx_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->numel = em_ref_prod(ki->in[0].dims, ki->in[0].rank);
    s->loc = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
    if (s->loc == (locale_t)0) {
        s->loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    }
    if (s->loc == (locale_t)0) {
        em_free(ki->al, s);
        return em_status_oom();
    }
    locale_t old = uselocale(s->loc);
    int rc = regcomp(&s->re, ere, cflags);
    uselocale(old);
    if (rc != 0) {
        char msg[160];
        regerror(rc, &s->re, msg, sizeof msg);
        freelocale(s->loc);
        em_free(ki->al, s);
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "pattern '%.200s' does not compile: %s",
                            pattern, msg);
    }
    *state = s;
    return NULL;
fail:
    return st;
}

void em_regexfullmatch_release__ref(const ember_allocator *al, void *state)
{
    rx_state *s = state;
    if (s == NULL) {
        return;
    }
    regfree(&s->re);
    freelocale(s->loc);
    em_free(al, s);
}

void em_regexfullmatch__ref(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    const rx_state *s = state;
    uint8_t *y = out[0].data;
    (void)ctx;
    locale_t old = uselocale(s->loc);
    for (int64_t i = 0; i < s->numel; i++) {
        y[i] = regexec(&s->re, em_str_at(&in[0], i), 0, NULL, 0) == 0;
    }
    uselocale(old);
}
