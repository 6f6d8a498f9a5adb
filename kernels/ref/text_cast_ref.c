/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cast-19 and CastLike-19 to and from strings (kernels_text.def), following onnx's reference
 * implementation (numpy's astype): to a string, a float prints its shortest decimal form that
 * reads back to the same value (found by increasing %.*e precision until it round-trips), laid
 * out as numpy's str() does: positional ("0.1", "100.0") when 1e-4 <= |x| < 10^k, k = 16 for
 * f64, 6 for f32 and bf16, 3 for f16, else scientific ("1e-05", "1.5e+16"); "nan", "inf",
 * "-inf"; integers in decimal; bool "True" / "False". From a string: surrounding whitespace is
 * ignored; floats take decimal and scientific notation and "nan", "inf", "infinity" in any case
 * with a sign (Python's float()); integer outputs take integer text exactly and decimal text
 * truncated toward zero (the spec's "100.5" -> 100), out of range being an error; bool takes
 * "true" / "false" in any case or a number (nonzero is true).
 *
 * printf and strtod run under a "C" locale of the kernel's own (uselocale, per thread), so a
 * host program's setlocale() never turns "0.5" into "0,5".
 */
#define _POSIX_C_SOURCE 200809L
#include "ref.h"

#include "core/alloc.h"
#include "core/strtensor.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cast_state {
    ember_dtype from, to;
    int64_t numel;
    locale_t loc;
} cast_state;

/* ---- parsing ---- */

static bool is_ws(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static bool word_at(const char *p, const char *w, const char **end)
{
    size_t n = strlen(w);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\0' || (p[i] | 0x20) != w[i]) {
            return false;
        }
    }
    *end = p + n;
    return true;
}

static const char *digits(const char *p, int *count)
{
    *count = 0;
    while (*p >= '0' && *p <= '9') {
        p++;
        (*count)++;
    }
    return p;
}

/* Where the number starting at p ends (sign, then inf / infinity / nan or decimal with an
 * optional exponent), or NULL when it is not one. *integral: digits only. */
static const char *scan_number(const char *p, bool *integral)
{
    const char *e;
    int a, b = 0, c;
    *integral = false;
    p += *p == '+' || *p == '-';
    if (word_at(p, "infinity", &e) || word_at(p, "inf", &e) || word_at(p, "nan", &e)) {
        return e;
    }
    p = digits(p, &a);
    *integral = a > 0;
    if (*p == '.') {
        p = digits(p + 1, &b);
        *integral = false;
    }
    if (a + b == 0) {
        return NULL;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        q += *q == '+' || *q == '-';
        q = digits(q, &c);
        if (c == 0) {
            return NULL;
        }
        p = q;
        *integral = false;
    }
    return p;
}

/* A parsed element: a double, and for integer text the exact value. */
typedef struct num {
    double d;
    bool integral, neg;
    uint64_t mag; /* |value| of integer text; `overflow` when it does not fit 64 bits */
    bool overflow;
} num;

static bool parse_num(const char *s, num *v)
{
    memset(v, 0, sizeof *v);
    while (is_ws(*s)) {
        s++;
    }
    const char *e = scan_number(s, &v->integral);
    if (e == NULL) {
        return false;
    }
    for (const char *t = e; *t != '\0'; t++) {
        if (!is_ws(*t)) {
            return false;
        }
    }
    char *end = NULL;
    v->d = strtod(s, &end);
    if (end != e) {
        return false;
    }
    if (v->integral) {
        v->neg = *s == '-';
        errno = 0;
        v->mag = strtoull(s + (*s == '+' || *s == '-'), NULL, 10);
        v->overflow = errno == ERANGE;
    }
    return true;
}

static bool int_range(ember_dtype dt, int64_t *lo, uint64_t *hi)
{
    switch (dt) {
    case EMBER_DTYPE_I8: *lo = INT8_MIN; *hi = INT8_MAX; return true;
    case EMBER_DTYPE_I16: *lo = INT16_MIN; *hi = INT16_MAX; return true;
    case EMBER_DTYPE_I32: *lo = INT32_MIN; *hi = INT32_MAX; return true;
    case EMBER_DTYPE_I64: *lo = INT64_MIN; *hi = INT64_MAX; return true;
    case EMBER_DTYPE_U8: *lo = 0; *hi = UINT8_MAX; return true;
    case EMBER_DTYPE_U16: *lo = 0; *hi = UINT16_MAX; return true;
    case EMBER_DTYPE_U32: *lo = 0; *hi = UINT32_MAX; return true;
    case EMBER_DTYPE_U64: *lo = 0; *hi = UINT64_MAX; return true;
    default: return false;
    }
}

static bool parse_bool(const char *s, uint8_t *out)
{
    const char *e;
    num v;
    while (is_ws(*s)) {
        s++;
    }
    bool t = word_at(s, "true", &e), f = !t && word_at(s, "false", &e);
    if (t || f) {
        while (is_ws(*e)) {
            e++;
        }
        if (*e == '\0') {
            *out = t;
            return true;
        }
    }
    bool ok = parse_num(s, &v);
    *out = ok && v.d != 0; /* NaN is true, as in numpy */
    return ok;
}

static void store_int(ember_dtype to, void *y, int64_t i, int64_t sv, uint64_t uv)
{
    switch (to) {
    case EMBER_DTYPE_I8: ((int8_t *)y)[i] = (int8_t)sv; break;
    case EMBER_DTYPE_I16: ((int16_t *)y)[i] = (int16_t)sv; break;
    case EMBER_DTYPE_I32: ((int32_t *)y)[i] = (int32_t)sv; break;
    case EMBER_DTYPE_I64: ((int64_t *)y)[i] = sv; break;
    case EMBER_DTYPE_U8: ((uint8_t *)y)[i] = (uint8_t)uv; break;
    case EMBER_DTYPE_U16: ((uint16_t *)y)[i] = (uint16_t)uv; break;
    case EMBER_DTYPE_U32: ((uint32_t *)y)[i] = (uint32_t)uv; break;
    default: ((uint64_t *)y)[i] = uv; break;
    }
}

/* An integer of the range [lo, hi] from parsed text: exact for integer text, truncated for
 * decimal text; false when it does not fit. */
static bool to_int(const num *v, int64_t lo, uint64_t hi, int64_t *sv, uint64_t *uv)
{
    *sv = 0;
    *uv = 0;
    if (v->integral) {
        if (v->overflow) {
            return false;
        }
        if (v->neg) {
            if (lo >= 0 || v->mag > (uint64_t)(-(lo + 1)) + 1) {
                return v->mag == 0;
            }
            *sv = v->mag == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)v->mag;
            return true;
        }
        *uv = v->mag;
        *sv = v->mag <= (uint64_t)INT64_MAX ? (int64_t)v->mag : 0;
        return v->mag <= hi;
    }
    double t = trunc(v->d);
    if (!isfinite(t) || t < (double)lo || t > (double)hi ||
        t >= (lo < 0 ? 9223372036854775808.0 : 18446744073709551616.0)) {
        return false;
    }
    *sv = lo < 0 ? (int64_t)t : 0;
    *uv = t >= 0 ? (uint64_t)t : 0;
    return true;
}

/* Element i of a cast from string s; false (the element is then 0 or NaN) when s does not
 * parse or does not fit the dtype. */
static bool store_parsed(ember_dtype to, void *y, int64_t i, const char *s)
{
    num v;
    int64_t lo, sv;
    uint64_t hi, uv;
    if (to == EMBER_DTYPE_BOOL) {
        return parse_bool(s, (uint8_t *)y + i);
    }
    bool ok = parse_num(s, &v);
    if (int_range(to, &lo, &hi)) {
        ok = ok && to_int(&v, lo, hi, &sv, &uv);
        store_int(to, y, i, ok ? sv : 0, ok ? uv : 0);
        return ok;
    }
    double d = ok ? v.d : NAN;
    switch (to) {
    case EMBER_DTYPE_F32: ((float *)y)[i] = (float)d; break;
    case EMBER_DTYPE_F64: ((double *)y)[i] = d; break;
    case EMBER_DTYPE_F16: ((uint16_t *)y)[i] = em_math_f16_from_double(d); break;
    case EMBER_DTYPE_BF16: ((uint16_t *)y)[i] = em_math_bf16_from_double(d); break;
    default: return false;
    }
    return ok;
}

/* ---- formatting ---- */

/* Whether text reads back as value v of dtype dt. */
static bool roundtrips(ember_dtype dt, const char *text, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32: return strtof(text, NULL) == (float)v;
    case EMBER_DTYPE_F16:
        return em_math_f16_from_double(strtod(text, NULL)) == em_math_f16_from_double(v);
    case EMBER_DTYPE_BF16:
        return em_math_bf16_from_double(strtod(text, NULL)) == em_math_bf16_from_double(v);
    default: return strtod(text, NULL) == v;
    }
}

/* numpy's str() of a finite or special float value v (exact in double) of dtype dt. */
static int format_float(ember_dtype dt, double v, char *out, size_t cap)
{
    if (isnan(v)) {
        return snprintf(out, cap, "nan");
    }
    if (isinf(v)) {
        return snprintf(out, cap, v < 0 ? "-inf" : "inf");
    }
    const char *sign = signbit(v) ? "-" : "";
    double a = fabs(v);
    if (a == 0) {
        return snprintf(out, cap, "%s0.0", sign);
    }
    char e[40], dig[24];
    int p = 1;
    for (; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, a);
        if (roundtrips(dt, e, a)) {
            break;
        }
    }
    snprintf(e, sizeof e, "%.*e", p - 1, a);
    int nd = 0;
    const char *q = e;
    for (; *q != 'e'; q++) {
        if (*q >= '0' && *q <= '9') {
            dig[nd++] = *q;
        }
    }
    int exp10 = atoi(q + 1);
    while (nd > 1 && dig[nd - 1] == '0') {
        nd--;
    }
    dig[nd] = '\0';
    double max_pos = dt == EMBER_DTYPE_F64 ? 1e16 : dt == EMBER_DTYPE_F16 ? 1e3 : 1e6;
    if (a < 1e-4 || a >= max_pos) {
        return snprintf(out, cap, "%s%c%s%se%c%02d", sign, dig[0], nd > 1 ? "." : "", dig + 1,
                        exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    }
    char body[64];
    int n = 0;
    if (exp10 < 0) { /* 0.000ddd: at most three zeros here */
        body[n++] = '0';
        body[n++] = '.';
        for (int k = 0; k < -exp10 - 1; k++) {
            body[n++] = '0';
        }
        snprintf(body + n, sizeof body - (size_t)n, "%s", dig);
    } else { /* at most 16 integer digits here */
        for (int k = 0; k <= exp10; k++) {
            body[n++] = k < nd ? dig[k] : '0';
        }
        body[n++] = '.';
        snprintf(body + n, sizeof body - (size_t)n, "%s", nd > exp10 + 1 ? dig + exp10 + 1 : "0");
    }
    return snprintf(out, cap, "%s%s", sign, body);
}

/* Element i of x as text into buf. */
static void format_elem(ember_dtype dt, const void *x, int64_t i, char *buf, size_t cap)
{
    switch (dt) {
    case EMBER_DTYPE_F32: format_float(dt, ((const float *)x)[i], buf, cap); return;
    case EMBER_DTYPE_F64: format_float(dt, ((const double *)x)[i], buf, cap); return;
    case EMBER_DTYPE_F16:
        format_float(dt, em_math_f16_to_double(((const uint16_t *)x)[i]), buf, cap);
        return;
    case EMBER_DTYPE_BF16:
        format_float(dt, em_math_bf16_to_double(((const uint16_t *)x)[i]), buf, cap);
        return;
    case EMBER_DTYPE_BOOL: snprintf(buf, cap, ((const uint8_t *)x)[i] ? "True" : "False"); return;
    case EMBER_DTYPE_I8: snprintf(buf, cap, "%d", ((const int8_t *)x)[i]); return;
    case EMBER_DTYPE_I16: snprintf(buf, cap, "%d", ((const int16_t *)x)[i]); return;
    case EMBER_DTYPE_I32: snprintf(buf, cap, "%ld", (long)((const int32_t *)x)[i]); return;
    case EMBER_DTYPE_I64: snprintf(buf, cap, "%lld", (long long)((const int64_t *)x)[i]); return;
    case EMBER_DTYPE_U8: snprintf(buf, cap, "%u", ((const uint8_t *)x)[i]); return;
    case EMBER_DTYPE_U16: snprintf(buf, cap, "%u", ((const uint16_t *)x)[i]); return;
    case EMBER_DTYPE_U32: snprintf(buf, cap, "%lu", (unsigned long)((const uint32_t *)x)[i]); return;
    default: snprintf(buf, cap, "%llu", (unsigned long long)((const uint64_t *)x)[i]); return;
    }
}

/* ---- kernels ---- */

static bool castable(ember_dtype dt)
{
    int64_t lo;
    uint64_t hi;
    return int_range(dt, &lo, &hi) || dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 ||
           dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16 || dt == EMBER_DTYPE_BOOL ||
           dt == EMBER_DTYPE_STRING;
}

static ember_status *prepare_common(const em_kinfo *ki, bool to_string, cast_state *s)
{
    ember_status *st = NULL;
    bool like = ki->node->op == EM_OP_CASTLIKE;
    EMBER_TRY(em_ref_check_arity(ki, like ? 2 : 1, like ? 2 : 1, 1));
    s->from = ki->in[0].dtype;
    s->to = ki->out[0].dtype;
    if ((to_string && s->to != EMBER_DTYPE_STRING) ||
        (!to_string && s->from != EMBER_DTYPE_STRING)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "no string involved: not this kernel's");
    }
    if (!castable(s->from) || !castable(s->to) || (like && ki->in[1].dtype != s->to)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "cast from %s to %s is not supported",
                            em_dtype_name(s->from), em_dtype_name(s->to));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], s->from, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], s->to, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], ki->in[0].dims, ki->in[0].rank, "output 0"));
    s->numel = em_ref_prod(ki->in[0].dims, ki->in[0].rank);
    return NULL;
fail:
    return st;
}

static ember_status *state_out(const em_kinfo *ki, cast_state *s, void **state)
{
    s->loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (s->loc == (locale_t)0) {
        return em_status_oom();
    }
    ember_status *st = em_ref_state_new(ki, s, sizeof *s, state);
    if (st != NULL) {
        freelocale(s->loc);
    }
    return st;
}

void em_cast_string_release__ref(const ember_allocator *al, void *state)
{
    cast_state *s = state;
    if (s != NULL) {
        freelocale(s->loc);
        em_free(al, s);
    }
}

ember_status *em_cast_to_string_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    cast_state s = {0};
    *scratch = 0;
    ember_status *st = prepare_common(ki, true, &s);
    return st != NULL ? st : state_out(ki, &s, state);
}

void em_cast_to_string__ref(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    const cast_state *s = state;
    const char **y = out[0].data;
    char buf[64];
    (void)ctx;
    locale_t old = uselocale(s->loc);
    for (int64_t i = 0; i < s->numel; i++) {
        format_elem(s->from, in[0].data, i, buf, sizeof buf);
        y[i] = em_str_dup(&out[0], buf, strlen(buf));
    }
    uselocale(old);
}

ember_status *em_cast_from_string_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    cast_state s = {0};
    *scratch = 0;
    ember_status *st = prepare_common(ki, false, &s);
    if (st != NULL) {
        return st;
    }
    const em_tensor *x = &ki->in[0];
    if (x->data != NULL && s.to != EMBER_DTYPE_STRING) { /* the interpreter: check the text */
        uint64_t sink[1];
        locale_t loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        locale_t old = loc != (locale_t)0 ? uselocale(loc) : (locale_t)0;
        for (int64_t i = 0; i < s.numel && st == NULL; i++) {
            if (!store_parsed(s.to, sink, 0, em_str_at(x, i))) {
                st = em_ref_error(ki, EMBER_ERR_INVALID_ARG,
                                  "element %lld (\"%.40s\") is not a %s value", (long long)i,
                                  em_str_at(x, i), em_dtype_name(s.to));
            }
        }
        if (loc != (locale_t)0) {
            uselocale(old);
            freelocale(loc);
        }
        if (st != NULL) {
            return st;
        }
    }
    return state_out(ki, &s, state);
}

void em_cast_from_string__ref(const void *state, const em_tensor *in, em_tensor *out,
                              const em_kctx *ctx)
{
    const cast_state *s = state;
    (void)ctx;
    if (s->to == EMBER_DTYPE_STRING) {
        memcpy(out[0].data, in[0].data, (size_t)s->numel * sizeof(char *));
        return;
    }
    locale_t old = uselocale(s->loc);
    for (int64_t i = 0; i < s->numel; i++) {
        store_parsed(s->to, out[0].data, i, em_str_at(&in[0], i));
    }
    uselocale(old);
}
