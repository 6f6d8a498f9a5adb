/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Binding operator calls to their schemas (ts_ops.h). Serialized code prints calls without
 * overload names and drops trailing arguments equal to their defaults, so a call is matched
 * against each overload of its operator in ts_schemas.inc (PyTorch 1.13 and 2.x schemas):
 * the first overload whose arguments accept the given values (positional, then keywords,
 * then defaults for the rest) wins, and the call's arguments come out in schema order.
 */
#include "ts_ops.h"

#include "alloc.h"
#include "status.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const schemas[] = {
#include "ts_schemas.inc"
};

#define MAX_ARGS 32

typedef struct sarg {
    const char *type, *name, *def; /* def NULL: required */
    size_t type_n, name_n, def_n;
    bool kw_only;
} sarg;

/* Splits "ns::name.overload(args) -> ret" into arguments (pointers into the schema text). */
static bool parse_args(const char *s, sarg *a, size_t *n)
{
    const char *p = strchr(s, '(');
    if (p == NULL) {
        return false;
    }
    p++;
    *n = 0;
    bool kw = false;
    while (*p != '\0' && *p != ')') {
        while (*p == ' ' || *p == ',') {
            p++;
        }
        if (*p == ')') {
            break;
        }
        const char *start = p;
        int depth = 0;
        while (*p != '\0' && (depth > 0 || (*p != ',' && *p != ')'))) {
            depth += (*p == '(' || *p == '[') - (*p == ')' || *p == ']');
            if (*p == '"') {
                p++;
                while (*p != '\0' && *p != '"') {
                    p++;
                }
            }
            if (*p != '\0') {
                p++;
            }
        }
        const char *end = p;
        if (end - start == 1 && *start == '*') {
            kw = true;
            continue;
        }
        if (*n == MAX_ARGS) {
            return false;
        }
        /* "<type> <name>[=<default>]": the type may contain spaces inside brackets only. */
        const char *eq = NULL, *sp = NULL;
        int d2 = 0;
        for (const char *q = start; q < end; q++) {
            d2 += (*q == '(' || *q == '[') - (*q == ')' || *q == ']');
            if (d2 == 0 && *q == ' ' && sp == NULL) {
                sp = q;
            }
            if (d2 == 0 && *q == '=' && eq == NULL && sp != NULL) {
                eq = q;
            }
        }
        if (sp == NULL) {
            return false;
        }
        sarg *x = &a[(*n)++];
        x->type = start;
        x->type_n = (size_t)(sp - start);
        x->name = sp + 1;
        x->name_n = (size_t)((eq != NULL ? eq : end) - (sp + 1));
        x->def = eq != NULL ? eq + 1 : NULL;
        x->def_n = eq != NULL ? (size_t)(end - (eq + 1)) : 0;
        x->kw_only = kw;
    }
    return true;
}

static bool type_starts(const sarg *a, const char *t)
{
    return a->type_n >= strlen(t) && memcmp(a->type, t, strlen(t)) == 0;
}

static bool is_number(const ts_av *v)
{
    return v->k == TA_INT || v->k == TA_FLOAT || v->k == TA_BOOL || v->k == TA_SCALAR;
}

/* Whether value v is accepted by schema type a. `loose`: a number is accepted as a Tensor too
 * (traced code passes prim::NumToTensor results, which the lowering keeps as numbers, to tensor
 * operators: torch.floor_divide(int(size), CONSTANTS.c0)); tried after no overload binds. */
static bool accepts(const sarg *a, const ts_av *v, bool loose)
{
    bool opt = a->type_n > 0 && a->type[a->type_n - 1] == '?';
    if (opt && v->k == TA_NONE) {
        return true;
    }
    bool list = memchr(a->type, '[', a->type_n) != NULL;
    if (type_starts(a, "Tensor")) {
        if (list) {
            if (v->k != TA_LIST && v->k != TA_TUPLE) {
                return false;
            }
            bool item_opt = memchr(a->type, '?', a->type_n) != NULL; /* Tensor?[] */
            for (size_t i = 0; i < v->u.seq.n; i++) {
                ts_ak k = v->u.seq.items[i]->k;
                if (k != TA_TENSOR && k != TA_SCALAR && !(k == TA_NONE && item_opt)) {
                    return false;
                }
            }
            return true;
        }
        return v->k == TA_TENSOR || (loose && is_number(v));
    }
    if (type_starts(a, "int") || type_starts(a, "SymInt")) {
        if (list) {
            if (v->k == TA_INT || v->k == TA_SCALAR) {
                /* int[N] accepts one int */
                return a->type_n > 0 && memchr(a->type, ']', a->type_n) != NULL &&
                       a->type[strcspn(a->type, "[") + 1] != ']';
            }
            if (v->k == TA_TENSOR) {
                return false;
            }
            if (v->k != TA_LIST && v->k != TA_TUPLE) {
                return false;
            }
            for (size_t i = 0; i < v->u.seq.n; i++) {
                ts_ak k = v->u.seq.items[i]->k;
                if (k != TA_INT && k != TA_SCALAR) {
                    return false;
                }
            }
            return true;
        }
        return v->k == TA_INT || v->k == TA_BOOL ||
               (v->k == TA_SCALAR && v->u.t.g->values[v->u.t.v].dtype != EMBER_DTYPE_F64);
    }
    if (type_starts(a, "float")) {
        if (list) {
            return v->k == TA_LIST || v->k == TA_TUPLE;
        }
        return is_number(v);
    }
    if (type_starts(a, "Scalar") || type_starts(a, "number")) {
        return is_number(v);
    }
    if (type_starts(a, "bool")) {
        if (list) {
            return v->k == TA_LIST || v->k == TA_TUPLE;
        }
        return v->k == TA_BOOL || v->k == TA_SCALAR;
    }
    if (type_starts(a, "str")) {
        return v->k == TA_STR;
    }
    if (type_starts(a, "ScalarType") || type_starts(a, "Layout") ||
        type_starts(a, "MemoryFormat")) {
        return v->k == TA_INT;
    }
    if (type_starts(a, "Device")) {
        return v->k == TA_DEVICE || v->k == TA_STR;
    }
    if (type_starts(a, "Dimname")) {
        return false;
    }
    return true; /* t, t[], Any, Generator?, ... */
}

/* A schema default value as an abstract value. */
static ts_av *parse_default(ts_lower *L, const char *s, size_t n)
{
    if (n == 4 && memcmp(s, "None", 4) == 0) {
        return ts_none(L);
    }
    if (n == 4 && memcmp(s, "True", 4) == 0) {
        return ts_bool(L, true);
    }
    if (n == 5 && memcmp(s, "False", 5) == 0) {
        return ts_bool(L, false);
    }
    if (n >= 2 && s[0] == '"') {
        return ts_str(L, s + 1, n - 2);
    }
    if (n >= 2 && s[0] == '[') {
        ts_av *l = ts_seq(L, TA_LIST, 0);
        const char *p = s + 1, *end = s + n - 1;
        while (l != NULL && p < end) {
            while (p < end && (*p == ' ' || *p == ',')) {
                p++;
            }
            const char *q = p;
            while (q < end && *q != ',') {
                q++;
            }
            if (q > p) {
                ts_av *item = parse_default(L, p, (size_t)(q - p));
                if (item == NULL || ts_list_append(L, l, item) != NULL) {
                    return NULL;
                }
            }
            p = q;
        }
        return l;
    }
    char buf[64];
    if (n < sizeof buf && n > 0 && (isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '.')) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        char *e = NULL;
        long long i = strtoll(buf, &e, 10);
        if (*e == '\0') {
            return ts_int(L, i);
        }
        return ts_float(L, strtod(buf, NULL));
    }
    if (n == 3 && memcmp(s, "inf", 3) == 0) {
        return ts_float(L, 1.0 / 0.0);
    }
    /* Enum-like names (contiguous_format, Mean, long): kept as strings. */
    return ts_str(L, s, n);
}

/* Tries one schema; true and *c filled when the call binds. */
static ember_status *try_bind(ts_lower *L, const char *schema, ts_av **args, size_t n_args,
                              const char **kw_names, ts_av **kw_vals, size_t n_kw, bool loose,
                              ts_call *c, bool *ok)
{
    sarg a[MAX_ARGS];
    size_t n = 0;
    *ok = false;
    if (!parse_args(schema, a, &n)) {
        return NULL;
    }
    size_t n_pos = 0;
    while (n_pos < n && !a[n_pos].kw_only) {
        n_pos++;
    }
    if (n_args > n_pos) {
        return NULL;
    }
    ts_av *bound[MAX_ARGS] = {0};
    for (size_t i = 0; i < n_args; i++) {
        if (!accepts(&a[i], args[i], loose)) {
            return NULL;
        }
        bound[i] = args[i];
    }
    for (size_t k = 0; k < n_kw; k++) {
        size_t i = 0;
        while (i < n && !(a[i].name_n == strlen(kw_names[k]) &&
                          memcmp(a[i].name, kw_names[k], a[i].name_n) == 0)) {
            i++;
        }
        if (i == n || bound[i] != NULL || !accepts(&a[i], kw_vals[k], loose)) {
            return NULL;
        }
        bound[i] = kw_vals[k];
    }
    for (size_t i = 0; i < n; i++) {
        if (bound[i] != NULL) {
            continue;
        }
        if (a[i].def == NULL) {
            return NULL;
        }
        bound[i] = parse_default(L, a[i].def, a[i].def_n);
        if (bound[i] == NULL) {
            return em_status_oom();
        }
    }
    c->a = em_ts_arena_alloc(&L->arena, (n + 1) * sizeof(ts_av *));
    if (c->a == NULL) {
        return em_status_oom();
    }
    memcpy(c->a, bound, n * sizeof(ts_av *));
    c->n = n;
    const char *dot = strchr(schema, '.'), *paren = strchr(schema, '(');
    c->overload = dot != NULL && dot < paren
                      ? em_ts_arena_strndup(&L->arena, dot + 1, (size_t)(paren - dot - 1)) : "";
    *ok = c->overload != NULL;
    return *ok ? NULL : em_status_oom();
}

ember_status *ts_bind(ts_lower *L, const char *op, ts_av **args, size_t n_args,
                      const char **kw_names, ts_av **kw_vals, size_t n_kw, em_ts_pos pos,
                      ts_call *out)
{
    size_t len = strlen(op), tried = 0;
    memset(out, 0, sizeof *out);
    out->op = op;
    out->pos = pos;
    for (int loose = 0; loose < 2; loose++) {
        for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
            const char *s = schemas[i];
            if (strncmp(s, op, len) != 0 || (s[len] != '.' && s[len] != '(')) {
                continue;
            }
            tried += !loose;
            bool ok = false;
            TS_TRY(try_bind(L, s, args, n_args, kw_names, kw_vals, n_kw, loose, out, &ok));
            if (ok) {
                return NULL;
            }
        }
    }
    if (tried == 0) {
        /* No schema known: positional arguments as given. */
        if (n_kw > 0) {
            return ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s: keyword arguments to an operator "
                          "without a known schema", op);
        }
        out->a = args;
        out->n = n_args;
        out->overload = "";
        return NULL;
    }
    em_strbuf sb;
    em_strbuf_init(&sb, L->al);
    for (size_t i = 0; i < n_args; i++) {
        em_strbuf_printf(&sb, "%s%s", i ? ", " : "", ts_kind_name(args[i]->k));
    }
    for (size_t k = 0; k < n_kw; k++) {
        em_strbuf_printf(&sb, "%s%s=%s", n_args + k ? ", " : "", kw_names[k],
                         ts_kind_name(kw_vals[k]->k));
    }
    char *given = em_strbuf_take(&sb);
    ember_status *st = ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s(%s): no overload of %s takes "
                              "these arguments", op, given != NULL ? given : "", op);
    free(given);
    return st;
}
