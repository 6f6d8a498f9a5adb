/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript type annotations (ts_type.h). Text is tokenized and parsed as a code expression
 * (ts_lex.c, ts_parse_expr.c), then the expression is converted: so one grammar, one set of
 * messages, and the depth bound of the expression parser.
 */
#include "ts_type.h"

#include <ctype.h>
#include <string.h>

#include "core/status.h"
#include "ts_parse.h"

static const struct {
    const char *name;
    int n_items;
} kinds[] = {
#define EM_TS_X_(id, text, n) {text, n},
    EM_TS_TYPE_KINDS(EM_TS_X_)
#undef EM_TS_X_
};

const char *em_ts_type_kind_name(em_ts_type_kind kind)
{
    return (size_t)kind < EM_TS_TY_COUNT_ ? kinds[kind].name : NULL;
}

em_ts_type *em_ts_type_new(em_ts_ast_arena *a, em_ts_type_kind kind, size_t n_items)
{
    em_ts_type *t = em_ts_ast_alloc(a, sizeof *t);
    if (t != NULL && n_items > 0) {
        t->items = em_ts_ast_alloc(a, n_items * sizeof *t->items);
        if (t->items == NULL) {
            return NULL;
        }
    }
    if (t != NULL) {
        t->kind = kind;
        t->n_items = n_items;
    }
    return t;
}

bool em_ts_type_kind_from_name(const char *name, em_ts_type_kind *kind)
{
    if (strcmp(name, "None") == 0 || strcmp(name, "NoneType") == 0) {
        *kind = EM_TS_TY_NONE;
        return true;
    }
    if (strcmp(name, "Scalar") == 0) {
        *kind = EM_TS_TY_NUMBER;
        return true;
    }
    for (int k = 0; k < EM_TS_TY_COUNT_; k++) {
        if (kinds[k].name != NULL && strcmp(kinds[k].name, name) == 0) {
            *kind = (em_ts_type_kind)k;
            return true;
        }
    }
    return false;
}

int em_ts_type_kind_arity(em_ts_type_kind kind)
{
    return (size_t)kind < EM_TS_TY_COUNT_ ? kinds[kind].n_items : 0;
}

/* The kind a name spells, or EM_TS_TY_COUNT_. */
static em_ts_type_kind kind_of(const char *name)
{
    em_ts_type_kind k;
    return em_ts_type_kind_from_name(name, &k) ? k : EM_TS_TY_COUNT_;
}

static ember_status *convert(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out);

/* Name[items]: a generic, or Final[T]. */
static ember_status *generic(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out)
{
    const em_ts_expr *base = e->u.sub.base, *ix = e->u.sub.index;
    const char *name = base->kind == EM_TS_NAME ? base->u.name : "";
    em_ts_type_kind kind = kind_of(name);
    bool final = strcmp(name, "Final") == 0;
    if (!final && (kind == EM_TS_TY_COUNT_ || kinds[kind].n_items == 0)) {
        return em_ts_error_at(EMBER_ERR_INVALID_MODEL, base->pos,
                              "expected a generic type (List, Dict, Tuple, Optional, Union, "
                              "Future, RRef, Await, Final) before '['");
    }
    bool many = ix->kind == EM_TS_TUPLE && (ix->parens == 0 || ix->u.seq.n == 0);
    size_t n = many ? ix->u.seq.n : 1;
    int want = final ? 1 : kinds[kind].n_items;
    if ((want >= 0 && (size_t)want != n) || (kind == EM_TS_TY_UNION && n == 0) ||
        (n == 0 && ix->parens != 1)) {
        return em_ts_error_at(EMBER_ERR_INVALID_MODEL, ix->pos, "%s takes %s", name,
                              want == 1   ? "one type"
                              : want == 2 ? "two types"
                                          : "types");
    }
    if (final) {
        return convert(a, ix, out);
    }
    em_ts_type *t = em_ts_type_new(a, kind, n);
    if (t == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < n; i++) {
        ember_status *st = convert(a, many ? ix->u.seq.items[i] : ix, &t->items[i]);
        if (st != NULL) {
            return st;
        }
    }
    *out = t;
    return NULL;
}

static ember_status *convert(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out)
{
    em_ts_type *t = NULL;
    if (e->kind == EM_TS_SUBSCRIPT) {
        return generic(a, e, out);
    }
    if (e->kind == EM_TS_NONE) {
        t = em_ts_type_new(a, EM_TS_TY_NONE, 0);
    } else if (e->kind == EM_TS_ATTR) {
        const em_ts_expr *b = e;
        while (b->kind == EM_TS_ATTR) {
            b = b->u.attr.base;
        }
        if (b->kind != EM_TS_NAME) {
            return em_ts_error_at(EMBER_ERR_INVALID_MODEL, b->pos, "expected a type");
        }
        const char *name = em_ts_expr_dotted(a, e);
        if (name == NULL) {
            return em_status_oom();
        }
        if ((t = em_ts_type_new(a, EM_TS_TY_CLASS, 0)) != NULL) {
            t->name = name;
        }
    } else if (e->kind == EM_TS_NAME) {
        em_ts_type_kind kind = kind_of(e->u.name);
        if (kind == EM_TS_TY_COUNT_ && !islower((unsigned char)e->u.name[0])) {
            return em_ts_error_at(EMBER_ERR_INVALID_MODEL, e->pos, "unknown type '%s'", e->u.name);
        }
        if (kind != EM_TS_TY_COUNT_ && kinds[kind].n_items != 0) {
            return em_ts_error_at(EMBER_ERR_INVALID_MODEL, e->pos, "%s needs item types: %s[...]",
                                  e->u.name, e->u.name);
        }
        if ((t = em_ts_type_new(a, kind == EM_TS_TY_COUNT_ ? EM_TS_TY_VAR : kind, 0)) != NULL &&
            kind == EM_TS_TY_COUNT_) {
            t->name = e->u.name;
        }
    } else {
        return em_ts_error_at(EMBER_ERR_INVALID_MODEL, e->pos, "expected a type");
    }
    if (t == NULL) {
        return em_status_oom();
    }
    *out = t;
    return NULL;
}

ember_status *em_ts_type_from_expr(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out)
{
    *out = NULL;
    return convert(a, e, out);
}

ember_status *em_ts_type_parse(em_ts_ast_arena *a, const char *s, size_t n, const char *what,
                               em_ts_type **out)
{
    em_ts_parser p;
    *out = NULL;
    ember_status *st = em_ts_p_begin(&p, a, s, n, what != NULL ? what : "<type>", true);
    if (st != NULL) {
        return st;
    }
    const em_ts_tok *first = em_ts_p_tok(&p);
    em_ts_expr *e =
        first->kind == EM_TS_T_EOF ? em_ts_p_fail(&p, first, "empty type") : em_ts_p_test(&p);
    bool ok = e != NULL && em_ts_p_expect(&p, EM_TS_T_NEWLINE, "after the type") &&
              em_ts_p_expect(&p, EM_TS_T_EOF, "after the type");
    if ((st = em_ts_p_end(&p, ok)) != NULL) {
        return st;
    }
    return convert(a, e, out);
}

void em_ts_type_print(em_strbuf *sb, const em_ts_type *t)
{
    if (t == NULL) {
        em_strbuf_printf(sb, "?");
        return;
    }
    if (t->kind == EM_TS_TY_CLASS || t->kind == EM_TS_TY_VAR) {
        em_strbuf_printf(sb, "%s", t->name);
        return;
    }
    em_strbuf_printf(sb, "%s", kinds[t->kind].name);
    if (kinds[t->kind].n_items == 0) {
        return;
    }
    em_strbuf_printf(sb, "[%s", t->n_items == 0 ? "()" : "");
    for (size_t i = 0; i < t->n_items; i++) {
        em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
        em_ts_type_print(sb, t->items[i]);
    }
    em_strbuf_printf(sb, "]");
}

bool em_ts_type_equal(const em_ts_type *x, const em_ts_type *y)
{
    if (x->kind != y->kind || x->n_items != y->n_items ||
        ((x->name != NULL || y->name != NULL) &&
         (x->name == NULL || y->name == NULL || strcmp(x->name, y->name) != 0))) {
        return false;
    }
    for (size_t i = 0; i < x->n_items; i++) {
        if (!em_ts_type_equal(x->items[i], y->items[i])) {
            return false;
        }
    }
    return true;
}
