/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text rules (text.h): case mapping from generated tables (text_case.inc: runs of code points
 * sharing one offset, plus the few code points that map to several), whitespace, and
 * StringSplit's splitting. The Final_Sigma context follows Python's handle_capital_sigma, with
 * "cased" taken as "has a case mapping" and "case-ignorable" as the combining diacritics
 * U+0300-U+036F and the usual word-internal punctuation: close enough for text in the scripts
 * that have a final sigma, and table-free.
 */
#include "ir/text.h"

#include "core/strtensor.h"

#include <string.h>

typedef struct text_case_run {
    uint32_t lo, hi;
    uint32_t step; /* 1, or 2 for alternating upper/lower pairs */
    int32_t delta;
} text_case_run;

typedef struct text_case_special {
    uint32_t cp;
    const char *to; /* UTF-8 */
} text_case_special;

#include "ir/text_case.inc"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define SIGMA_CAPITAL 0x03a3u
#define SIGMA_SMALL 0x03c3u
#define SIGMA_FINAL 0x03c2u

static const text_case_special *find_special(const text_case_special *t, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid].cp == cp) {
            return &t[mid];
        }
        if (t[mid].cp < cp) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

/* The 1:1 mapping of cp in runs, or cp itself. */
static uint32_t map_runs(const text_case_run *r, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first run with lo > cp */
        size_t mid = (lo + hi) / 2;
        if (r[mid].lo <= cp) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return cp;
    }
    const text_case_run *x = &r[lo - 1];
    if (cp > x->hi || (cp - x->lo) % x->step != 0) {
        return cp;
    }
    return (uint32_t)((int64_t)cp + x->delta);
}

static bool is_cased(uint32_t cp)
{
    return map_runs(case_upper_runs, N_OF(case_upper_runs), cp) != cp ||
           map_runs(case_lower_runs, N_OF(case_lower_runs), cp) != cp ||
           find_special(case_upper_special, N_OF(case_upper_special), cp) != NULL ||
           find_special(case_lower_special, N_OF(case_lower_special), cp) != NULL;
}

static bool is_case_ignorable(uint32_t cp)
{
    return (cp >= 0x0300 && cp <= 0x036f) || cp == 0x27 || cp == 0x2e || cp == 0x3a ||
           cp == 0xad || cp == 0xb7 || cp == 0x2018 || cp == 0x2019 || cp == 0x2024 ||
           cp == 0x2027;
}

/* Whether the capital sigma ending at `next` (the rest of the text is [next, end)) is final:
 * `cased_before` tells whether a cased letter precedes it (case-ignorables skipped). */
static bool sigma_is_final(bool cased_before, const char *next, const char *end)
{
    if (!cased_before) {
        return false;
    }
    while (next < end) {
        uint32_t cp;
        int k = em_utf8_decode(next, end, &cp);
        if (k == 0) {
            return true; /* a bad byte is not cased (the caller fails on it anyway) */
        }
        if (!is_case_ignorable(cp)) {
            return !is_cased(cp);
        }
        next += k;
    }
    return true;
}

static size_t put_bytes(char *out, size_t at, const char *b, size_t k)
{
    if (out != NULL) {
        memcpy(out + at, b, k);
    }
    return at + k;
}

size_t em_text_case_map(const char *s, size_t n, bool upper, char *out, size_t *bad)
{
    const text_case_run *runs = upper ? case_upper_runs : case_lower_runs;
    size_t n_runs = upper ? N_OF(case_upper_runs) : N_OF(case_lower_runs);
    const text_case_special *sp = upper ? case_upper_special : case_lower_special;
    size_t n_sp = upper ? N_OF(case_upper_special) : N_OF(case_lower_special);
    const char *p = s, *end = s + n;
    size_t len = 0;
    bool cased_before = false;
    if (!em_utf8_valid(s, n, bad)) {
        return EM_TEXT_BAD;
    }
    while (p < end) {
        uint32_t cp;
        int k = em_utf8_decode(p, end, &cp); /* > 0: checked above */
        const text_case_special *x = find_special(sp, n_sp, cp);
        if (x != NULL) {
            len = put_bytes(out, len, x->to, strlen(x->to));
        } else {
            uint32_t m = map_runs(runs, n_runs, cp);
            if (!upper && cp == SIGMA_CAPITAL) {
                m = sigma_is_final(cased_before, p + k, end) ? SIGMA_FINAL : SIGMA_SMALL;
            }
            char buf[4];
            len = put_bytes(out, len, buf, (size_t)em_utf8_encode(m, buf));
        }
        if (!is_case_ignorable(cp)) {
            cased_before = is_cased(cp);
        }
        p += k;
    }
    return len;
}

/* A stream of the lowercased code points of a string, for comparisons: final sigma reads as
 * sigma, a byte that is not valid UTF-8 as 0x110000 + byte, the end as UINT32_MAX. */
typedef struct fold_iter {
    const char *p, *end;
    uint32_t buf[4];
    int n, i;
} fold_iter;

static uint32_t fold_next(fold_iter *it)
{
    if (it->i < it->n) {
        return it->buf[it->i++];
    }
    if (it->p >= it->end) {
        return UINT32_MAX;
    }
    uint32_t cp;
    int k = em_utf8_decode(it->p, it->end, &cp);
    if (k == 0) {
        return 0x110000u + (unsigned char)*it->p++;
    }
    it->p += k;
    const text_case_special *x = find_special(case_lower_special, N_OF(case_lower_special), cp);
    if (x == NULL) {
        cp = map_runs(case_lower_runs, N_OF(case_lower_runs), cp);
        return cp == SIGMA_FINAL ? SIGMA_SMALL : cp;
    }
    const char *q = x->to, *qe = x->to + strlen(x->to);
    it->n = it->i = 0;
    while (q < qe && it->n < 4) {
        uint32_t c;
        int kk = em_utf8_decode(q, qe, &c);
        if (kk == 0) {
            break;
        }
        it->buf[it->n++] = c;
        q += kk;
    }
    return it->n > 0 ? it->buf[it->i++] : cp;
}

bool em_text_equal_fold(const char *a, const char *b)
{
    fold_iter x = {a, a + strlen(a), {0}, 0, 0}, y = {b, b + strlen(b), {0}, 0, 0};
    for (;;) {
        uint32_t ca = fold_next(&x), cb = fold_next(&y);
        if (ca != cb) {
            return false;
        }
        if (ca == UINT32_MAX) {
            return true;
        }
    }
}

bool em_text_in_list(const char *s, char *const *list, int64_t n, bool case_sensitive)
{
    for (int64_t i = 0; i < n; i++) {
        const char *w = list[i] != NULL ? list[i] : "";
        if (case_sensitive ? strcmp(s, w) == 0 : em_text_equal_fold(s, w)) {
            return true;
        }
    }
    return false;
}

bool em_text_is_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 ||
           cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* Byte length of the whitespace code point at p, 0 when p is not whitespace. */
static int space_at(const char *p, const char *end)
{
    uint32_t cp;
    int k = em_utf8_decode(p, end, &cp);
    return k > 0 && em_text_is_space(cp) ? k : 0;
}

static const char *skip_space(const char *p, const char *end)
{
    int k;
    while (p < end && (k = space_at(p, end)) > 0) {
        p += k;
    }
    return p;
}

static int64_t add_piece(em_text_piece *pieces, int64_t cap, int64_t count, const char *b,
                         const char *e)
{
    if (pieces != NULL && count < cap) {
        pieces[count].s = b;
        pieces[count].len = (size_t)(e - b);
    }
    return count + 1;
}

int64_t em_text_split(const char *s, const char *sep, int64_t maxsplit, em_text_piece *pieces,
                      int64_t cap)
{
    const char *p = s, *end = s + strlen(s);
    int64_t count = 0;
    if (sep == NULL || sep[0] == '\0') {
        p = skip_space(p, end);
        while (p < end) {
            if (maxsplit >= 0 && count == maxsplit) {
                return add_piece(pieces, cap, count, p, end);
            }
            const char *b = p;
            while (p < end && space_at(p, end) == 0) {
                p++;
            }
            count = add_piece(pieces, cap, count, b, p);
            p = skip_space(p, end);
        }
        return count;
    }
    size_t sl = strlen(sep);
    for (;;) {
        const char *q = maxsplit >= 0 && count == maxsplit ? NULL : strstr(p, sep);
        if (q == NULL) {
            return add_piece(pieces, cap, count, p, end);
        }
        count = add_piece(pieces, cap, count, p, q);
        p = q + sl;
    }
}
