/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tokenizer of the serialized TorchScript code (ts_lex.h). One pass over the bytes, never
 * past n. Indentation: at the start of each line outside brackets the width (tabs to the next
 * multiple of 8) is compared with a stack: wider pushes and emits INDENT, narrower pops to an
 * equal width emitting one DEDENT per level (no equal width: an error). Bracket depth and
 * indentation depth are bounded by EM_TS_MAX_DEPTH.
 */
#define _POSIX_C_SOURCE 200809L
#include "ts_lex.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "ts_parse.h"

typedef struct lexer {
    const em_ts_source *src;
    const char *t;
    size_t n, i;
    int32_t line;
    size_t line_start;
    const ember_allocator *al;
    em_ts_tok *toks;
    size_t n_toks, cap;
    int32_t indents[EM_TS_MAX_DEPTH + 1];
    int n_indents;
    em_ts_tok brackets[EM_TS_MAX_DEPTH];
    int n_brackets;
} lexer;

typedef struct spelling {
    const char *text;
    em_ts_tok_kind kind;
} spelling;

#define EM_TS_X_(id, text) {text, EM_TS_T_##id},
static const spelling keywords[] = {EM_TS_KEYWORDS(EM_TS_X_)};
static const spelling puncts[] = {EM_TS_PUNCTS(EM_TS_X_)};
#undef EM_TS_X_

const char *em_ts_tok_desc(em_ts_tok_kind kind)
{
    switch (kind) {
    case EM_TS_T_EOF:
        return "end of file";
    case EM_TS_T_NEWLINE:
        return "end of line";
    case EM_TS_T_INDENT:
        return "indent";
    case EM_TS_T_DEDENT:
        return "dedent";
    case EM_TS_T_NAME:
        return "name";
    case EM_TS_T_INT:
        return "integer";
    case EM_TS_T_FLOAT:
        return "number";
    case EM_TS_T_STR:
        return "string";
#define EM_TS_X_(id, text)                                                                         \
    case EM_TS_T_##id:                                                                             \
        return "'" text "'";
        EM_TS_KEYWORDS(EM_TS_X_)
        EM_TS_PUNCTS(EM_TS_X_)
#undef EM_TS_X_
    default:
        return "token";
    }
}

static int32_t col_of(const lexer *L, size_t off)
{
    return (int32_t)(off - L->line_start + 1);
}

static ember_status *err_at(const lexer *L, int32_t line, int32_t col, const char *msg)
{
    em_ts_pos pos = {L->src, line, col};
    return em_ts_error_at(EMBER_ERR_INVALID_MODEL, pos, "%s", msg);
}

static ember_status *push(lexer *L, em_ts_tok_kind kind, int32_t line, int32_t col, size_t off,
                          size_t len)
{
    if (L->n_toks == L->cap) {
        size_t cap = L->cap == 0 ? 256 : L->cap * 2, bytes;
        if (!em_size_mul(cap, sizeof *L->toks, &bytes)) {
            return em_status_oom();
        }
        em_ts_tok *t = em_realloc(L->al, L->toks, bytes);
        if (t == NULL) {
            return em_status_oom();
        }
        L->toks = t;
        L->cap = cap;
    }
    L->toks[L->n_toks++] = (em_ts_tok){kind, line, col, off, len};
    return NULL;
}

static bool is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}
static bool is_name_char(int c)
{
    return is_name_start(c) || is_digit(c);
}
static bool is_hex(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int peek(const lexer *L, size_t k)
{
    return L->i + k < L->n ? (unsigned char)L->t[L->i + k] : -1;
}

/* Counts the indentation of the line at L->i; leaves L->i on its first other byte. */
static int32_t measure_indent(lexer *L)
{
    int32_t w = 0;
    for (;; L->i++) {
        int c = peek(L, 0);
        if (c == ' ') {
            w++;
        } else if (c == '\t') {
            w = (w / 8 + 1) * 8;
        } else if (c == '\f') {
            w = 0;
        } else {
            return w;
        }
        if (w > (1 << 24)) { /* absurd widths: keep the arithmetic bounded */
            w = 1 << 24;
        }
    }
}

static ember_status *line_start(lexer *L, bool *skipped)
{
    size_t start = L->i;
    int32_t w = measure_indent(L);
    int c = peek(L, 0);
    *skipped = false;
    if (c == -1 || c == '\n' || c == '#' ||
        (c == '\r' && (peek(L, 1) == '\n' || peek(L, 1) == -1))) {
        while (peek(L, 0) != -1 && peek(L, 0) != '\n') { /* blank or comment-only line */
            L->i++;
        }
        *skipped = true;
        return NULL;
    }
    int32_t col = (int32_t)(L->i - start + 1);
    if (w > L->indents[L->n_indents - 1]) {
        if (L->n_indents > EM_TS_MAX_DEPTH) {
            return err_at(L, L->line, col, "too deeply nested blocks");
        }
        L->indents[L->n_indents++] = w;
        return push(L, EM_TS_T_INDENT, L->line, col, L->i, 0);
    }
    while (w < L->indents[L->n_indents - 1]) {
        L->n_indents--;
        if (w > L->indents[L->n_indents - 1]) {
            return err_at(L, L->line, col, "unindent does not match any outer indentation level");
        }
        ember_status *st = push(L, EM_TS_T_DEDENT, L->line, col, L->i, 0);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

static ember_status *lex_number(lexer *L)
{
    size_t s = L->i;
    int32_t col = col_of(L, s);
    bool is_float = false;
    if (peek(L, 0) == '0' && peek(L, 1) != -1 && strchr("xXoObB", peek(L, 1)) != NULL) {
        int base = (peek(L, 1) | 0x20) == 'x' ? 16 : (peek(L, 1) | 0x20) == 'o' ? 8 : 2;
        L->i += 2;
        size_t digits = 0;
        for (int c; (c = peek(L, 0)) != -1; L->i++) {
            bool ok = c == '_' || (base == 16 ? is_hex(c) : c >= '0' && c < '0' + base);
            if (!ok) {
                break;
            }
            digits += c != '_';
        }
        if (digits == 0) {
            return err_at(L, L->line, col, "invalid integer literal");
        }
    } else {
        while (is_digit(peek(L, 0)) || peek(L, 0) == '_') {
            L->i++;
        }
        if (peek(L, 0) == '.') {
            is_float = true;
            L->i++;
            while (is_digit(peek(L, 0)) || peek(L, 0) == '_') {
                L->i++;
            }
        }
        if (peek(L, 0) == 'e' || peek(L, 0) == 'E') {
            size_t k = (peek(L, 1) == '+' || peek(L, 1) == '-') ? 2 : 1;
            if (!is_digit(peek(L, k))) {
                return err_at(L, L->line, col, "invalid float literal: exponent without digits");
            }
            is_float = true;
            L->i += k;
            while (is_digit(peek(L, 0))) {
                L->i++;
            }
        }
    }
    if (peek(L, 0) == 'j' || peek(L, 0) == 'J') {
        return err_at(L, L->line, col,
                      "complex literals are not supported in serialized TorchScript");
    }
    if (is_name_char(peek(L, 0))) {
        return err_at(L, L->line, col_of(L, L->i), "invalid character in number literal");
    }
    return push(L, is_float ? EM_TS_T_FLOAT : EM_TS_T_INT, L->line, col, s, L->i - s);
}

static ember_status *lex_string(lexer *L)
{
    size_t s = L->i;
    int32_t line = L->line, col = col_of(L, s);
    int q = peek(L, 0);
    bool triple = peek(L, 1) == q && peek(L, 2) == q;
    L->i += triple ? 3 : 1;
    for (;;) {
        int c = peek(L, 0);
        if (c == -1 || (c == '\n' && !triple)) {
            return err_at(L, line, col, "unterminated string literal");
        }
        if (c == 0) { /* as CPython: no NUL bytes in source, so text is C-string safe */
            return err_at(L, L->line, col_of(L, L->i), "invalid character (byte 0x00) in string");
        }
        if (c == '\\') {
            if (peek(L, 1) == -1) {
                return err_at(L, line, col, "unterminated string literal");
            }
            if (peek(L, 1) == '\n') {
                L->line++;
                L->line_start = L->i + 2;
            }
            L->i += 2;
            continue;
        }
        if (c == '\n') {
            L->line++;
            L->line_start = L->i + 1;
        }
        if (c == q && (!triple || (peek(L, 1) == q && peek(L, 2) == q))) {
            L->i += triple ? 3 : 1;
            break;
        }
        L->i++;
    }
    return push(L, EM_TS_T_STR, line, col, s, L->i - s);
}

static ember_status *lex_name(lexer *L)
{
    size_t s = L->i;
    while (is_name_char(peek(L, 0))) {
        L->i++;
    }
    size_t len = L->i - s;
    em_ts_tok_kind kind = EM_TS_T_NAME;
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++) {
        if (strlen(keywords[k].text) == len && memcmp(keywords[k].text, L->t + s, len) == 0) {
            kind = keywords[k].kind;
            break;
        }
    }
    return push(L, kind, L->line, col_of(L, s), s, len);
}

static ember_status *bracket(lexer *L, em_ts_tok_kind kind, int32_t col)
{
    char msg[96];
    if (kind == EM_TS_T_LPAREN || kind == EM_TS_T_LBRACKET || kind == EM_TS_T_LBRACE) {
        if (L->n_brackets == EM_TS_MAX_DEPTH) {
            return err_at(L, L->line, col, "too deeply nested brackets");
        }
        L->brackets[L->n_brackets++] = (em_ts_tok){kind, L->line, col, L->i, 1};
        return NULL;
    }
    if (kind != EM_TS_T_RPAREN && kind != EM_TS_T_RBRACKET && kind != EM_TS_T_RBRACE) {
        return NULL;
    }
    em_ts_tok_kind want = kind == EM_TS_T_RPAREN     ? EM_TS_T_LPAREN
                          : kind == EM_TS_T_RBRACKET ? EM_TS_T_LBRACKET
                                                     : EM_TS_T_LBRACE;
    if (L->n_brackets == 0) {
        snprintf(msg, sizeof msg, "unmatched %s", em_ts_tok_desc(kind));
        return err_at(L, L->line, col, msg);
    }
    const em_ts_tok *open = &L->brackets[L->n_brackets - 1];
    if (open->kind != want) {
        snprintf(msg, sizeof msg, "closing %s does not match %s at line %d, column %d",
                 em_ts_tok_desc(kind), em_ts_tok_desc(open->kind), (int)open->line, (int)open->col);
        return err_at(L, L->line, col, msg);
    }
    L->n_brackets--;
    return NULL;
}

static ember_status *lex_punct(lexer *L)
{
    int32_t col = col_of(L, L->i);
    for (size_t k = 0; k < sizeof puncts / sizeof puncts[0]; k++) {
        size_t len = strlen(puncts[k].text);
        if (L->n - L->i >= len && memcmp(puncts[k].text, L->t + L->i, len) == 0) {
            ember_status *st = bracket(L, puncts[k].kind, col);
            if (st == NULL) {
                st = push(L, puncts[k].kind, L->line, col, L->i, len);
            }
            L->i += len;
            return st;
        }
    }
    char msg[64];
    int c = peek(L, 0);
    if (c >= 0x21 && c < 0x7f) {
        snprintf(msg, sizeof msg, "invalid character '%c'", c);
    } else {
        snprintf(msg, sizeof msg, "invalid character (byte 0x%02x)", (unsigned)c);
    }
    return err_at(L, L->line, col, msg);
}

static bool last_is(const lexer *L, em_ts_tok_kind kind)
{
    return L->n_toks > 0 && L->toks[L->n_toks - 1].kind == kind;
}

/* A newline outside brackets ends the logical line. */
static ember_status *newline(lexer *L)
{
    ember_status *st = NULL;
    if (L->n_brackets == 0 && L->n_toks > 0 && !last_is(L, EM_TS_T_NEWLINE) &&
        !last_is(L, EM_TS_T_INDENT) && !last_is(L, EM_TS_T_DEDENT)) {
        st = push(L, EM_TS_T_NEWLINE, L->line, col_of(L, L->i), L->i, 0);
    }
    L->i++;
    L->line++;
    L->line_start = L->i;
    return st;
}

static ember_status *lex_one(lexer *L, bool *at_line_start)
{
    if (*at_line_start && L->n_brackets == 0) {
        bool skipped;
        ember_status *st = line_start(L, &skipped);
        if (st != NULL || skipped) {
            if (st == NULL && peek(L, 0) == '\n') {
                L->i++;
                L->line++;
                L->line_start = L->i;
            }
            return st;
        }
        *at_line_start = false;
    }
    int c = peek(L, 0);
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        L->i++;
        return NULL;
    }
    if (c == '#') {
        while (peek(L, 0) != -1 && peek(L, 0) != '\n') {
            L->i++;
        }
        return NULL;
    }
    if (c == '\n') {
        *at_line_start = L->n_brackets == 0;
        return newline(L);
    }
    if (c == '\\') {
        size_t k = peek(L, 1) == '\r' ? 2 : 1;
        if (peek(L, k) != '\n') {
            return err_at(L, L->line, col_of(L, L->i),
                          peek(L, k) == -1 ? "unexpected end of file after line continuation"
                                           : "unexpected character after line continuation");
        }
        L->i += k + 1;
        L->line++;
        L->line_start = L->i;
        return NULL;
    }
    if (is_name_start(c)) {
        return lex_name(L);
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(L, 1)))) {
        return lex_number(L);
    }
    if (c == '"' || c == '\'') {
        return lex_string(L);
    }
    return lex_punct(L);
}

static ember_status *finish(lexer *L)
{
    ember_status *st = NULL;
    int32_t col = col_of(L, L->i);
    if (L->n_brackets > 0) {
        const em_ts_tok *open = &L->brackets[L->n_brackets - 1];
        char msg[64];
        snprintf(msg, sizeof msg, "%s was never closed", em_ts_tok_desc(open->kind));
        return err_at(L, open->line, open->col, msg);
    }
    if (L->n_toks > 0 && !last_is(L, EM_TS_T_NEWLINE) && !last_is(L, EM_TS_T_DEDENT) &&
        !last_is(L, EM_TS_T_INDENT)) {
        st = push(L, EM_TS_T_NEWLINE, L->line, col, L->i, 0);
    }
    for (; st == NULL && L->n_indents > 1; L->n_indents--) {
        st = push(L, EM_TS_T_DEDENT, L->line, col, L->i, 0);
    }
    if (st == NULL) {
        st = push(L, EM_TS_T_EOF, L->line, col, L->i, 0);
    }
    return st;
}

ember_status *em_ts_lex(const em_ts_source *src, const ember_allocator *al, em_ts_tok **toks,
                        size_t *n_toks)
{
    lexer L = {.src = src, .t = src->text, .n = src->n, .line = 1, .al = al, .n_indents = 1};
    ember_status *st = NULL;
    bool at_line_start = true;
    *toks = NULL;
    *n_toks = 0;
    while (st == NULL && L.i < L.n) {
        st = lex_one(&L, &at_line_start);
    }
    if (st == NULL) {
        st = finish(&L);
    }
    if (st != NULL) {
        em_free(al, L.toks);
        return st;
    }
    *toks = L.toks;
    *n_toks = L.n_toks;
    return NULL;
}

/* ---- literal helpers (ts_parse.h) ---------------------------------------------------------- */

bool em_ts_parse_uint(const char *s, size_t n, uint64_t *out)
{
    unsigned base = 10;
    size_t i = 0, digits = 0;
    uint64_t v = 0;
    if (n >= 2 && s[0] == '0' && strchr("xXoObB", s[1]) != NULL) {
        base = (s[1] | 0x20) == 'x' ? 16 : (s[1] | 0x20) == 'o' ? 8 : 2;
        i = 2;
    }
    for (; i < n; i++) {
        int c = (unsigned char)s[i];
        unsigned d = is_digit(c) ? (unsigned)(c - '0')
                     : is_hex(c) ? (unsigned)((c | 0x20) - 'a' + 10)
                                 : 99;
        if (c == '_') {
            continue;
        }
        if (d >= base || v > (UINT64_MAX - d) / base) {
            return false;
        }
        v = v * base + d;
        digits++;
    }
    *out = v;
    return digits > 0;
}

bool em_ts_parse_double(const char *s, size_t n, double *out)
{
    char buf[128];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_') {
            continue;
        }
        if (k + 1 >= sizeof buf || !(is_digit(s[i]) || strchr(".eE+-", s[i]) != NULL)) {
            return false;
        }
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    if (k == 0) {
        return false;
    }
    /* strtod reads the decimal point of the current locale: run it under "C". */
    locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = c_loc != (locale_t)0 ? uselocale(c_loc) : (locale_t)0;
    char *end = NULL;
    errno = 0;
    double d = strtod(buf, &end);
    if (c_loc != (locale_t)0) {
        uselocale(old);
        freelocale(c_loc);
    }
    if (end != buf + k) {
        return false;
    }
    *out = d; /* ERANGE: strtod's inf or 0, as Python gives for 1e999 and 1e-999 */
    return true;
}

static int hex_val(int c)
{
    return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Writes code point u as UTF-8; false for surrogates and values past U+10FFFF. */
static bool put_utf8(uint32_t u, char *out, size_t *k)
{
    if (u < 0x80) {
        out[(*k)++] = (char)u;
    } else if (u < 0x800) {
        out[(*k)++] = (char)(0xc0 | (u >> 6));
        out[(*k)++] = (char)(0x80 | (u & 0x3f));
    } else if (u < 0x10000) {
        if (u >= 0xd800 && u < 0xe000) {
            return false;
        }
        out[(*k)++] = (char)(0xe0 | (u >> 12));
        out[(*k)++] = (char)(0x80 | ((u >> 6) & 0x3f));
        out[(*k)++] = (char)(0x80 | (u & 0x3f));
    } else if (u < 0x110000) {
        out[(*k)++] = (char)(0xf0 | (u >> 18));
        out[(*k)++] = (char)(0x80 | ((u >> 12) & 0x3f));
        out[(*k)++] = (char)(0x80 | ((u >> 6) & 0x3f));
        out[(*k)++] = (char)(0x80 | (u & 0x3f));
    } else {
        return false;
    }
    return true;
}

/* One escape at s[i] == '\\'; advances *i past it. False when malformed. The output is never
 * longer than the escape's spelling (\uXXXX: 6 bytes for at most 3; \UXXXXXXXX: 10 for 4). */
static bool unescape_one(const char *s, size_t n, size_t *i, char *out, size_t *k)
{
    static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    int c = *i + 1 < n ? (unsigned char)s[*i + 1] : -1;
    *i += 2;
    for (size_t j = 0; c != -1 && simple[j] != '\0'; j += 2) {
        if (simple[j] == c) {
            out[(*k)++] = simple[j + 1];
            return true;
        }
    }
    if (c == '\n') { /* line continuation inside the literal */
        return true;
    }
    if (c >= '0' && c <= '7') {
        unsigned v = (unsigned)(c - '0');
        for (int d = 0; d < 2 && *i < n && s[*i] >= '0' && s[*i] <= '7'; d++, (*i)++) {
            v = v * 8 + (unsigned)(s[*i] - '0');
        }
        if (v > 0xff) {
            return false;
        }
        out[(*k)++] = (char)v;
        return true;
    }
    size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (digits == 0 || n - *i < digits) {
        return false;
    }
    uint32_t v = 0;
    for (size_t d = 0; d < digits; d++, (*i)++) {
        if (!is_hex((unsigned char)s[*i])) {
            return false;
        }
        v = v * 16 + (uint32_t)hex_val((unsigned char)s[*i]);
    }
    if (c == 'x') {
        out[(*k)++] = (char)v;
        return true;
    }
    return put_utf8(v, out, k);
}

size_t em_ts_unescape(const char *s, size_t n, char *out, size_t *bad)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            out[k++] = s[i++];
            continue;
        }
        size_t at = i;
        if (!unescape_one(s, n, &i, out, &k)) {
            *bad = at;
            return (size_t)-1;
        }
    }
    return k;
}
