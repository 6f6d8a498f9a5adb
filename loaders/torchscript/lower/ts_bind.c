/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Binding operator calls to their schemas (ts_ops.h). Serialized code prints calls without
 * overload names and drops trailing arguments equal to their defaults, so a call is matched
 * against each overload of its operator in ts_schemas.inc (PyTorch 1.13 and 2.x schemas):
 * the first overload whose arguments accept the given values (positional, then keywords,
 * then defaults for the rest) wins, and the call's arguments come out in schema order.
 */
#include "ts_ops.h"
#include "loaders/torchscript/lang/ts_schema.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdlib.h>
#include <string.h>

static const char *const schemas[] = {
#include "loaders/torchscript/lang/ts_schemas.inc"
};

#define N_SCHEMAS (sizeof schemas / sizeof schemas[0])

/* Built-in schema i parsed (ts_schema.c), once per lowering; NULL when it does not parse (it
 * then binds nothing). */
static ember_status *schema_at(ts_lower *L, size_t i, const em_ts_schema **out)
{
    *out = NULL;
    if (L->schemas == NULL) {
        L->schemas = em_ts_arena_alloc(&L->arena, N_SCHEMAS * sizeof *L->schemas);
        if (L->schemas == NULL) {
            return em_status_oom();
        }
        memset(L->schemas, 0, N_SCHEMAS * sizeof *L->schemas);
    }
    if (L->schemas[i] == NULL) {
        em_ts_schema *sc = NULL;
        ember_status *st = em_ts_schema_parse(L->ast, schemas[i], strlen(schemas[i]),
                                              "ts_schemas.inc", &sc);
        if (st != NULL) {
            bool oom = ember_status_code(st) == EMBER_ERR_OUT_OF_MEMORY;
            ember_status_destroy(st);
            return oom ? em_status_oom() : NULL;
        }
        L->schemas[i] = sc;
    }
    *out = L->schemas[i];
    return NULL;
}

static bool is_number(const ts_av *v)
{
    return v->k == TA_INT || v->k == TA_FLOAT || v->k == TA_BOOL || v->k == TA_SCALAR;
}

static bool is_seq(const ts_av *v) { return v->k == TA_LIST || v->k == TA_TUPLE; }

/* Whether value v is accepted by schema argument a. `loose`: a number is accepted as a Tensor
 * too (traced code passes prim::NumToTensor results, which the lowering keeps as numbers, to
 * tensor operators: torch.floor_divide(int(size), CONSTANTS.c0)); tried after no overload
 * binds. */
static bool accepts(const em_ts_schema_arg *a, const ts_av *v, bool loose)
{
    const em_ts_type *t = a->type;
    if (t->kind == EM_TS_TY_OPTIONAL) {
        if (v->k == TA_NONE) {
            return true;
        }
        t = em_ts_type_elem(t);
    }
    bool list = t->kind == EM_TS_TY_LIST;
    const em_ts_type *e = list ? em_ts_type_elem(t) : t;
    bool item_opt = e->kind == EM_TS_TY_OPTIONAL; /* Tensor?[] */
    if (item_opt) {
        e = em_ts_type_elem(e);
    }
    switch (e->kind) {
    case EM_TS_TY_TENSOR:
        if (!list) {
            return v->k == TA_TENSOR || (loose && is_number(v));
        }
        if (!is_seq(v)) {
            return false;
        }
        for (size_t i = 0; i < v->u.seq.n; i++) {
            ts_ak k = v->u.seq.items[i]->k;
            if (k != TA_TENSOR && k != TA_SCALAR && !(k == TA_NONE && item_opt)) {
                return false;
            }
        }
        return true;
    case EM_TS_TY_INT:
    case EM_TS_TY_SYMINT:
        if (!list) {
            return v->k == TA_INT || v->k == TA_BOOL ||
                   (v->k == TA_SCALAR && v->u.t.g->values[v->u.t.v].dtype != EMBER_DTYPE_F64);
        }
        if (v->k == TA_INT || v->k == TA_SCALAR) {
            return a->list_size > 0; /* int[N] accepts one int */
        }
        if (!is_seq(v)) {
            return false;
        }
        for (size_t i = 0; i < v->u.seq.n; i++) {
            ts_ak k = v->u.seq.items[i]->k;
            if (k != TA_INT && k != TA_SCALAR) {
                return false;
            }
        }
        return true;
    case EM_TS_TY_FLOAT:
    case EM_TS_TY_BOOL:
        if (list) {
            return is_seq(v);
        }
        return e->kind == EM_TS_TY_FLOAT ? is_number(v) : v->k == TA_BOOL || v->k == TA_SCALAR;
    case EM_TS_TY_NUMBER:
        return !list && is_number(v);
    case EM_TS_TY_STR:
        return !list && v->k == TA_STR;
    case EM_TS_TY_SCALAR_TYPE:
    case EM_TS_TY_LAYOUT:
    case EM_TS_TY_MEMORY_FORMAT:
        return !list && v->k == TA_INT;
    case EM_TS_TY_DEVICE:
        return !list && (v->k == TA_DEVICE || v->k == TA_STR);
    case EM_TS_TY_DIMNAME:
        return false;
    default:
        return true; /* t, t[], Any, Generator?, ... */
    }
}

/* A schema default as an abstract value (names torch knows, contiguous_format, long, Mean,
 * stay strings). */
static ts_av *default_value(ts_lower *L, const em_ts_default *d)
{
    ts_av *l = NULL;
    switch (d->kind) {
    case EM_TS_DEF_NONE:
        return em_ts_none(L);
    case EM_TS_DEF_INT:
        return em_ts_int(L, d->i);
    case EM_TS_DEF_FLOAT:
        return em_ts_float(L, d->f);
    case EM_TS_DEF_BOOL:
        return em_ts_bool(L, d->b);
    case EM_TS_DEF_STR:
    case EM_TS_DEF_IDENT:
        return em_ts_str(L, d->s, d->kind == EM_TS_DEF_STR ? d->n : strlen(d->s));
    case EM_TS_DEF_INT_LIST:
    case EM_TS_DEF_FLOAT_LIST:
    case EM_TS_DEF_BOOL_LIST:
        l = em_ts_seq(L, TA_LIST, d->n);
        for (size_t i = 0; l != NULL && i < d->n; i++) {
            ts_av *item = d->kind == EM_TS_DEF_INT_LIST     ? em_ts_int(L, d->ints[i])
                          : d->kind == EM_TS_DEF_FLOAT_LIST ? em_ts_float(L, d->floats[i])
                                                            : em_ts_bool(L, d->bools[i]);
            if (item == NULL) {
                return NULL;
            }
            l->u.seq.items[i] = item;
        }
        return l;
    }
    return NULL;
}

/* Tries one schema; true and *c filled when the call binds. */
static ember_status *try_bind(ts_lower *L, const em_ts_schema *sc, ts_av **args, size_t n_args,
                              const char **kw_names, ts_av **kw_vals, size_t n_kw, bool loose,
                              ts_call *c, bool *ok)
{
    size_t n = sc->n_args, n_pos = 0;
    *ok = false;
    while (n_pos < n && !sc->args[n_pos].kwarg_only) {
        n_pos++;
    }
    if (n_args > n_pos || sc->is_vararg) {
        return NULL;
    }
    ts_av **bound = em_ts_arena_alloc(&L->arena, (n + 1) * sizeof(ts_av *));
    if (bound == NULL) {
        return em_status_oom();
    }
    memset(bound, 0, (n + 1) * sizeof(ts_av *));
    for (size_t i = 0; i < n_args; i++) {
        if (!accepts(&sc->args[i], args[i], loose)) {
            return NULL;
        }
        bound[i] = args[i];
    }
    for (size_t k = 0; k < n_kw; k++) {
        int i = em_ts_schema_find_arg(sc, kw_names[k]);
        if (i < 0 || bound[i] != NULL || !accepts(&sc->args[i], kw_vals[k], loose)) {
            return NULL;
        }
        bound[i] = kw_vals[k];
    }
    for (size_t i = 0; i < n; i++) {
        if (bound[i] != NULL) {
            continue;
        }
        if (sc->args[i].def == NULL) {
            return NULL;
        }
        if ((bound[i] = default_value(L, sc->args[i].def)) == NULL) {
            return em_status_oom();
        }
    }
    c->a = bound;
    c->n = n;
    c->overload = sc->overload;
    *ok = true;
    return NULL;
}

ember_status *em_ts_bind(ts_lower *L, const char *op, ts_av **args, size_t n_args,
                      const char **kw_names, ts_av **kw_vals, size_t n_kw, em_ts_pos pos,
                      ts_call *out)
{
    size_t len = strlen(op), tried = 0;
    memset(out, 0, sizeof *out);
    out->op = op;
    out->pos = pos;
    for (int loose = 0; loose < 2; loose++) {
        for (size_t i = 0; i < N_SCHEMAS; i++) {
            const char *s = schemas[i];
            const em_ts_schema *sc = NULL;
            if (strncmp(s, op, len) != 0 || (s[len] != '.' && s[len] != '(')) {
                continue;
            }
            tried += !loose;
            TS_TRY(schema_at(L, i, &sc));
            bool ok = false;
            if (sc != NULL) {
                TS_TRY(try_bind(L, sc, args, n_args, kw_names, kw_vals, n_kw, loose, out, &ok));
            }
            if (ok) {
                return NULL;
            }
        }
    }
    if (tried == 0) {
        /* No schema known: positional arguments as given. */
        if (n_kw > 0) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s: keyword arguments to an operator "
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
        em_strbuf_printf(&sb, "%s%s", i ? ", " : "", em_ts_kind_name(args[i]->k));
    }
    for (size_t k = 0; k < n_kw; k++) {
        em_strbuf_printf(&sb, "%s%s=%s", n_args + k ? ", " : "", kw_names[k],
                         em_ts_kind_name(kw_vals[k]->k));
    }
    char *given = em_strbuf_take(&sb);
    ember_status *st = em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s(%s): no overload of %s takes "
                              "these arguments", op, given != NULL ? given : "", op);
    free(given);
    return st;
}
