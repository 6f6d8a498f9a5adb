/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Operator schema parser (ts_schema.h), on the tokens of ts_lex.c. Follows torch's
 * function_schema_parser.cpp / schema_type_parser.cpp: identifiers include Python keywords
 * (`int from`), aliases follow a base type or a list's `[]`, and a default is read by the
 * argument's type. Types nest through em_ts_p_enter, so depth is bounded.
 */
#include "ts_schema.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "ts_parse.h"

static bool is_ident(em_ts_tok_kind k)
{
    return k == EM_TS_T_NAME || (k >= EM_TS_T_AND && k <= EM_TS_T_YIELD);
}

/* An identifier (keywords allowed) copied into the arena; NULL after recording an error. */
static const char *ident(em_ts_parser *p, const char *what)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    if (!is_ident(t->kind)) {
        return em_ts_p_fail(p, t, "expected %s, found %s", what, em_ts_p_describe(p, t));
    }
    p->i++;
    return em_ts_p_text(p, t);
}

static bool tok_is(const em_ts_parser *p, const em_ts_tok *t, const char *s)
{
    return is_ident(t->kind) && t->len == strlen(s) &&
           memcmp(p->src->text + t->off, s, t->len) == 0;
}

/* ---- aliases ------------------------------------------------------------------------------- */

static bool alias_set(em_ts_parser *p, const char ***names, size_t *n)
{
    em_ts_vec v = {0};
    do {
        const char *s = em_ts_p_accept(p, EM_TS_T_STAR) ? "*" : ident(p, "an alias set name");
        if (s == NULL || !em_ts_vec_push_ptr(p, &v, (void *)s)) {
            return false;
        }
    } while (em_ts_p_accept(p, EM_TS_T_PIPE));
    *names = v.data;
    *n = v.n;
    return true;
}

/* [ '(' set ['!'] ['->' set] ')' | '!' ]: *out stays NULL when there is none. */
static bool alias(em_ts_parser *p, em_ts_alias **out, int *fresh)
{
    *out = NULL;
    bool paren = em_ts_p_tok(p)->kind == EM_TS_T_LPAREN;
    if (!paren && em_ts_p_tok(p)->kind != EM_TS_T_BANG) {
        return true;
    }
    em_ts_alias *al = em_ts_ast_alloc(p->a, sizeof *al);
    if (al == NULL) {
        em_ts_p_oom(p);
        return false;
    }
    p->i++;
    if (!paren) { /* Tensor! : a fresh set, written */
        char name[24];
        snprintf(name, sizeof name, "$%d", (*fresh)++);
        const char **set = em_ts_ast_alloc(p->a, sizeof *set);
        if (set == NULL || (set[0] = em_ts_ast_strndup(p->a, name, strlen(name))) == NULL) {
            em_ts_p_oom(p);
            return false;
        }
        *al = (em_ts_alias){set, 1, set, 1, true};
        *out = al;
        return true;
    }
    if (!alias_set(p, &al->before, &al->n_before)) {
        return false;
    }
    al->write = em_ts_p_accept(p, EM_TS_T_BANG);
    if (em_ts_p_accept(p, EM_TS_T_ARROW)) {
        if (!alias_set(p, &al->after, &al->n_after)) {
            return false;
        }
    } else {
        al->after = al->before;
        al->n_after = al->n_before;
    }
    *out = al;
    return em_ts_p_expect(p, EM_TS_T_RPAREN, "to close the alias annotation");
}

/* ---- types --------------------------------------------------------------------------------- */

typedef struct arg_state {
    em_ts_alias *alias, *elem_alias;
    int fresh;
} arg_state;

static em_ts_type *type(em_ts_parser *p, arg_state *as);

/* '(' type (',' type)* ')' into t's items, for tuples and Future/RRef/Await/Dict. */
static em_ts_type *type_list(em_ts_parser *p, em_ts_type_kind kind, int arity, arg_state *as)
{
    const em_ts_tok *open = em_ts_p_tok(p);
    em_ts_vec v = {0};
    if (!em_ts_p_expect(p, EM_TS_T_LPAREN, "after the type name")) {
        return NULL;
    }
    while (em_ts_p_tok(p)->kind != EM_TS_T_RPAREN) {
        if (v.n > 0 && !em_ts_p_expect(p, EM_TS_T_COMMA, "between types")) {
            return NULL;
        }
        arg_state inner = {.fresh = as->fresh};
        em_ts_type *t = type(p, &inner);
        as->fresh = inner.fresh;
        if (t == NULL || !em_ts_vec_push_ptr(p, &v, t)) {
            return NULL;
        }
    }
    p->i++;
    if (arity >= 0 && v.n != (size_t)arity) {
        return em_ts_p_fail(p, open, "%s takes %d type%s", em_ts_type_kind_name(kind), arity,
                            arity == 1 ? "" : "s");
    }
    em_ts_type *t = em_ts_type_new(p->a, kind, 0);
    if (t == NULL) {
        return em_ts_p_oom(p);
    }
    t->items = v.data;
    t->n_items = v.n;
    return t;
}

/* __torch__.torch.classes.<ns>.<Name> */
static em_ts_type *custom_class(em_ts_parser *p)
{
    const em_ts_tok *first = em_ts_p_tok(p), *last = first;
    while (em_ts_p_peek(p, 1)->kind == EM_TS_T_DOT && is_ident(em_ts_p_peek(p, 2)->kind)) {
        p->i += 2;
        last = em_ts_p_tok(p);
    }
    p->i++;
    em_ts_type *t = em_ts_type_new(p->a, EM_TS_TY_CLASS, 0);
    if (t == NULL || (t->name = em_ts_ast_strndup(p->a, p->src->text + first->off,
                                                  last->off + last->len - first->off)) == NULL) {
        return em_ts_p_oom(p);
    }
    return t;
}

static em_ts_type *base_type(em_ts_parser *p, arg_state *as)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_type_kind kind;
    if (t->kind == EM_TS_T_LPAREN) {
        return type_list(p, EM_TS_TY_TUPLE, -1, as);
    }
    if (tok_is(p, t, "__torch__")) {
        return custom_class(p);
    }
    const char *name = ident(p, "a type");
    if (name == NULL) {
        return NULL;
    }
    if (!em_ts_type_kind_from_name(name, &kind)) {
        if (!islower((unsigned char)name[0])) {
            return em_ts_p_fail(p, t, "unknown type '%s'", name);
        }
        em_ts_type *v = em_ts_type_new(p->a, EM_TS_TY_VAR, 0);
        if (v == NULL) {
            return em_ts_p_oom(p);
        }
        v->name = name;
        return alias(p, &as->alias, &as->fresh) ? v : NULL;
    }
    int arity = em_ts_type_kind_arity(kind);
    if (arity != 0) {
        if (kind == EM_TS_TY_LIST || kind == EM_TS_TY_OPTIONAL) { /* spelled T[] and T? here */
            return em_ts_p_fail(p, t, "unknown type '%s' in a schema", name);
        }
        em_ts_type *g = type_list(p, kind, arity, as);
        return g != NULL && alias(p, &as->alias, &as->fresh) ? g : NULL;
    }
    em_ts_type *b = em_ts_type_new(p->a, kind, 0);
    if (b == NULL) {
        return em_ts_p_oom(p);
    }
    return alias(p, &as->alias, &as->fresh) ? b : NULL;
}

/* A list or optional around `elem`. */
static em_ts_type *wrap(em_ts_parser *p, em_ts_type_kind kind, em_ts_type *elem)
{
    em_ts_type *t = em_ts_type_new(p->a, kind, 1);
    if (t == NULL) {
        return em_ts_p_oom(p);
    }
    t->items[0] = elem;
    return t;
}

static em_ts_type *type(em_ts_parser *p, arg_state *as)
{
    if (!em_ts_p_enter(p, em_ts_p_tok(p))) {
        return NULL;
    }
    int entered = 1;
    em_ts_type *t = base_type(p, as);
    while (t != NULL) {
        const em_ts_tok *k = em_ts_p_tok(p);
        bool list = k->kind == EM_TS_T_LBRACKET && em_ts_p_peek(p, 1)->kind == EM_TS_T_RBRACKET;
        if (!list && k->kind != EM_TS_T_QUESTION) {
            break;
        }
        if (!em_ts_p_enter(p, k)) {
            t = NULL;
            break;
        }
        entered++;
        if (!list) {
            p->i++;
            t = wrap(p, EM_TS_TY_OPTIONAL, t);
            continue;
        }
        p->i += 2;
        em_ts_alias *container;
        if ((t = wrap(p, EM_TS_TY_LIST, t)) == NULL || !alias(p, &container, &as->fresh)) {
            t = NULL;
            break;
        }
        if (as->alias != NULL) {
            as->elem_alias = as->alias;
        }
        as->alias = container;
    }
    em_ts_p_leave(p, entered);
    return t;
}

/* ---- default values ------------------------------------------------------------------------ */

/* The element kind of a list type (through one Optional), or COUNT_ when not a list. */
static em_ts_type_kind list_elem(const em_ts_type *t)
{
    if (t->kind == EM_TS_TY_OPTIONAL) {
        t = t->items[0];
    }
    return t->kind == EM_TS_TY_LIST ? t->items[0]->kind : EM_TS_TY_COUNT_;
}

static bool float_kind(em_ts_type_kind k)
{
    return k == EM_TS_TY_FLOAT || k == EM_TS_TY_SYMFLOAT;
}

/* One scalar: None, True/False, a string, [-]number, [-]inf/nan or an identifier. */
static bool scalar(em_ts_parser *p, em_ts_default *d, bool as_float)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    bool neg = t->kind == EM_TS_T_MINUS;
    const em_ts_tok *v = neg ? em_ts_p_peek(p, 1) : t;
    const char *text = p->src->text + v->off;
    bool inf_nan = v->kind == EM_TS_T_NAME && v->len == 3 &&
                   (memcmp(text, "inf", 3) == 0 || memcmp(text, "nan", 3) == 0);
    p->i += neg ? 2 : 1;
    if (!neg && (v->kind == EM_TS_T_NONE || v->kind == EM_TS_T_TRUE || v->kind == EM_TS_T_FALSE)) {
        d->kind = v->kind == EM_TS_T_NONE ? EM_TS_DEF_NONE : EM_TS_DEF_BOOL;
        d->b = v->kind == EM_TS_T_TRUE;
        return true;
    }
    if (!neg && v->kind == EM_TS_T_STR) {
        char *out = em_ts_ast_alloc(p->a, v->len + 1);
        size_t q = (v->len >= 6 && text[1] == text[0] && text[2] == text[0]) ? 3 : 1, bad = 0;
        size_t n = out != NULL ? em_ts_unescape(text + q, v->len - 2 * q, out, &bad) : 0;
        if (out == NULL) {
            em_ts_p_oom(p);
            return false;
        }
        if (n == (size_t)-1) {
            em_ts_p_fail(p, v, "invalid escape sequence in string literal");
            return false;
        }
        out[n] = '\0';
        *d = (em_ts_default){.kind = EM_TS_DEF_STR, .s = out, .n = n};
        return true;
    }
    if (inf_nan || v->kind == EM_TS_T_FLOAT || (v->kind == EM_TS_T_INT && as_float)) {
        double f = text[0] == 'i' ? INFINITY : NAN;
        if (!inf_nan && !em_ts_parse_double(text, v->len, &f)) {
            em_ts_p_fail(p, v, "invalid number");
            return false;
        }
        d->kind = EM_TS_DEF_FLOAT;
        d->f = neg ? -f : f;
        return true;
    }
    if (v->kind == EM_TS_T_INT) {
        uint64_t u;
        if (!em_ts_parse_uint(text, v->len, &u) || u > (uint64_t)INT64_MAX + neg) {
            em_ts_p_fail(p, v, "integer default out of the int64 range");
            return false;
        }
        d->kind = EM_TS_DEF_INT;
        d->i = neg ? (int64_t)(0 - u) : (int64_t)u;
        return true;
    }
    if (!neg && v->kind == EM_TS_T_NAME) {
        d->kind = EM_TS_DEF_IDENT;
        d->s = em_ts_p_text(p, v);
        d->n = v->len;
        return d->s != NULL;
    }
    em_ts_p_fail(p, v, "expected a default value, found %s", em_ts_p_describe(p, v));
    return false;
}

/* Stores `n` scalars (as parsed) as a list of element kind `elem`. */
static bool to_list(em_ts_parser *p, em_ts_default *d, const em_ts_default *xs, size_t n,
                    em_ts_type_kind elem, const em_ts_tok *at)
{
    bool fl = float_kind(elem), bo = elem == EM_TS_TY_BOOL || elem == EM_TS_TY_SYMBOOL;
    d->kind = fl ? EM_TS_DEF_FLOAT_LIST : bo ? EM_TS_DEF_BOOL_LIST : EM_TS_DEF_INT_LIST;
    d->n = n;
    void *mem = em_ts_ast_alloc(p->a, (n + 1) * sizeof(double));
    if (mem == NULL) {
        em_ts_p_oom(p);
        return false;
    }
    d->ints = fl || bo ? NULL : mem;
    d->floats = fl ? mem : NULL;
    d->bools = bo ? mem : NULL;
    for (size_t i = 0; i < n; i++) {
        em_ts_default_kind k = xs[i].kind;
        bool ok = fl   ? (k == EM_TS_DEF_FLOAT || k == EM_TS_DEF_INT)
                  : bo ? k == EM_TS_DEF_BOOL
                       : k == EM_TS_DEF_INT;
        if (!ok) {
            em_ts_p_fail(p, at, "a list default of %s must hold %s", em_ts_type_kind_name(elem),
                         fl   ? "numbers"
                         : bo ? "booleans"
                              : "integers");
            return false;
        }
        if (fl) {
            d->floats[i] = k == EM_TS_DEF_INT ? (double)xs[i].i : xs[i].f;
        } else if (bo) {
            d->bools[i] = xs[i].b;
        } else {
            d->ints[i] = xs[i].i;
        }
    }
    return true;
}

static bool list_value(em_ts_parser *p, em_ts_default *d, em_ts_type_kind elem)
{
    const em_ts_tok *open = em_ts_p_tok(p);
    em_ts_vec v = {0};
    p->i++;
    while (em_ts_p_tok(p)->kind != EM_TS_T_RBRACKET) {
        if (v.n > 0 && !em_ts_p_expect(p, EM_TS_T_COMMA, "between list items")) {
            return false;
        }
        em_ts_default *x = em_ts_vec_push(p, &v, sizeof *x);
        if (x == NULL || !scalar(p, x, float_kind(elem))) {
            return false;
        }
    }
    p->i++;
    return to_list(p, d, v.data, v.n, elem, open);
}

static const em_ts_default *default_value(em_ts_parser *p, const em_ts_schema_arg *arg)
{
    const em_ts_tok *first = em_ts_p_tok(p);
    em_ts_default *d = em_ts_ast_alloc(p->a, sizeof *d);
    if (d == NULL) {
        return em_ts_p_oom(p);
    }
    em_ts_type_kind elem = list_elem(arg->type);
    const em_ts_type *core = arg->type->kind == EM_TS_TY_OPTIONAL ? arg->type->items[0] : arg->type;
    bool ok;
    if (elem != EM_TS_TY_COUNT_ && first->kind == EM_TS_T_LBRACKET) {
        ok = list_value(p, d, elem);
    } else {
        ok = scalar(p, d, float_kind(core->kind) || float_kind(elem));
        if (ok && elem != EM_TS_TY_COUNT_ && arg->list_size > 0 && d->kind != EM_TS_DEF_NONE &&
            d->kind != EM_TS_DEF_IDENT) {
            em_ts_default one = *d,
                          *xs = em_ts_ast_alloc(p->a, (size_t)arg->list_size * sizeof *xs);
            if (xs == NULL) {
                return em_ts_p_oom(p);
            }
            for (int64_t i = 0; i < arg->list_size; i++) {
                xs[i] = one;
            }
            ok = to_list(p, d, xs, (size_t)arg->list_size, elem, first);
        }
    }
    if (!ok) {
        return NULL;
    }
    const em_ts_tok *last = &p->toks[p->i - 1];
    d->text =
        em_ts_ast_strndup(p->a, p->src->text + first->off, last->off + last->len - first->off);
    return d->text != NULL ? d : em_ts_p_oom(p);
}

/* ---- arguments and schemas ----------------------------------------------------------------- */

static bool has_write(const em_ts_alias *al)
{
    return al != NULL && al->write;
}

static bool argument(em_ts_parser *p, em_ts_schema_arg *arg, bool is_return, int *fresh)
{
    arg_state as = {.fresh = *fresh};
    if ((arg->type = type(p, &as)) == NULL) {
        return false;
    }
    if (em_ts_p_tok(p)->kind == EM_TS_T_LBRACKET) { /* int[2]: only here, at argument level */
        const em_ts_tok *n = em_ts_p_peek(p, 1);
        uint64_t u;
        p->i += 2;
        if (n->kind != EM_TS_T_INT || !em_ts_parse_uint(p->src->text + n->off, n->len, &u) ||
            u == 0 || u > 1024) { /* a default expands to that many values: bounded */
            em_ts_p_fail(p, n, "expected a list size, found %s", em_ts_p_describe(p, n));
            return false;
        }
        em_ts_alias *container;
        if (!em_ts_p_expect(p, EM_TS_T_RBRACKET, "after the list size") ||
            (arg->type = wrap(p, EM_TS_TY_LIST, arg->type)) == NULL ||
            !alias(p, &container, &as.fresh)) {
            return false;
        }
        if (as.alias != NULL) {
            as.elem_alias = as.alias;
        }
        as.alias = container;
        arg->list_size = (int64_t)u;
        if (em_ts_p_accept(p, EM_TS_T_QUESTION) &&
            (arg->type = wrap(p, EM_TS_TY_OPTIONAL, arg->type)) == NULL) {
            return false;
        }
    }
    *fresh = as.fresh;
    arg->alias = as.alias;
    arg->elem_alias = as.elem_alias;
    arg->is_write = has_write(as.alias) || has_write(as.elem_alias);
    if (is_return) {
        arg->name = is_ident(em_ts_p_tok(p)->kind) ? ident(p, "a name") : "";
        return arg->name != NULL;
    }
    if ((arg->name = ident(p, "an argument name")) == NULL) {
        return false;
    }
    return !em_ts_p_accept(p, EM_TS_T_ASSIGN) || (arg->def = default_value(p, arg)) != NULL;
}

static bool arguments(em_ts_parser *p, em_ts_schema *sc, int *fresh)
{
    em_ts_vec v = {0};
    bool kwarg_only = false;
    p->i++; /* '(' */
    while (em_ts_p_tok(p)->kind != EM_TS_T_RPAREN) {
        const em_ts_tok *t = em_ts_p_tok(p);
        if ((v.n > 0 || kwarg_only || sc->is_vararg) &&
            !em_ts_p_expect(p, EM_TS_T_COMMA, "between arguments")) {
            return false;
        }
        t = em_ts_p_tok(p);
        if (sc->is_vararg) {
            em_ts_p_fail(p, t, "'...' must be the last argument");
            return false;
        }
        if (em_ts_p_accept(p, EM_TS_T_STAR)) {
            kwarg_only = true;
            continue;
        }
        if (em_ts_p_accept(p, EM_TS_T_ELLIPSIS)) {
            sc->is_vararg = true;
            continue;
        }
        em_ts_schema_arg *arg = em_ts_vec_push(p, &v, sizeof *arg);
        if (arg == NULL || !argument(p, arg, false, fresh)) {
            return false;
        }
        arg->kwarg_only = kwarg_only;
    }
    p->i++;
    sc->args = v.data;
    sc->n_args = v.n;
    return true;
}

static bool returns(em_ts_parser *p, em_ts_schema *sc, int *fresh)
{
    em_ts_vec v = {0};
    if (em_ts_p_accept(p, EM_TS_T_ELLIPSIS)) {
        sc->is_varret = true;
        return true;
    }
    bool list = em_ts_p_accept(p, EM_TS_T_LPAREN);
    while (!list || em_ts_p_tok(p)->kind != EM_TS_T_RPAREN) {
        if (v.n > 0 || sc->is_varret) {
            if (!list || !em_ts_p_expect(p, EM_TS_T_COMMA, "between returns")) {
                break;
            }
            if (sc->is_varret) {
                em_ts_p_fail(p, em_ts_p_tok(p), "'...' must be the last return");
                return false;
            }
        }
        if (list && em_ts_p_accept(p, EM_TS_T_ELLIPSIS)) {
            sc->is_varret = true;
            continue;
        }
        em_ts_schema_arg *r = em_ts_vec_push(p, &v, sizeof *r);
        if (r == NULL || !argument(p, r, true, fresh)) {
            return false;
        }
    }
    sc->rets = v.data;
    sc->n_rets = v.n;
    return p->st == NULL && (!list || em_ts_p_expect(p, EM_TS_T_RPAREN, "after the returns"));
}

static bool schema(em_ts_parser *p, em_ts_schema *sc)
{
    int fresh = 0;
    const char *first = ident(p, "an operator name");
    if (first == NULL) {
        return false;
    }
    sc->ns = "";
    sc->name = first;
    sc->overload = "";
    if (em_ts_p_tok(p)->kind == EM_TS_T_COLON && em_ts_p_peek(p, 1)->kind == EM_TS_T_COLON) {
        p->i += 2;
        sc->ns = first;
        if ((sc->name = ident(p, "an operator name after '::'")) == NULL) {
            return false;
        }
    }
    if (em_ts_p_accept(p, EM_TS_T_DOT) && (sc->overload = ident(p, "an overload name")) == NULL) {
        return false;
    }
    if (em_ts_p_tok(p)->kind != EM_TS_T_LPAREN) {
        sc->name_only = true;
    } else if (!arguments(p, sc, &fresh) ||
               !em_ts_p_expect(p, EM_TS_T_ARROW, "after the arguments") ||
               !returns(p, sc, &fresh)) {
        return false;
    }
    return em_ts_p_expect(p, EM_TS_T_NEWLINE, "after the schema") &&
           em_ts_p_expect(p, EM_TS_T_EOF, "after the schema");
}

ember_status *em_ts_schema_parse(em_ts_ast_arena *a, const char *s, size_t n, const char *what,
                                 em_ts_schema **out)
{
    em_ts_parser p;
    *out = NULL;
    em_ts_schema *sc = em_ts_ast_alloc(a, sizeof *sc);
    if (sc == NULL) {
        return em_status_oom();
    }
    ember_status *st = em_ts_p_begin(&p, a, s, n, what != NULL ? what : "<schema>", true);
    if (st != NULL) {
        return st;
    }
    if ((st = em_ts_p_end(&p, schema(&p, sc))) != NULL) {
        return st;
    }
    *out = sc;
    return NULL;
}

int em_ts_schema_find_arg(const em_ts_schema *sc, const char *name)
{
    for (size_t i = 0; i < sc->n_args; i++) {
        if (strcmp(sc->args[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* ---- printing ------------------------------------------------------------------------------ */

static void print_set(em_strbuf *sb, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        em_strbuf_printf(sb, "%s%s", i > 0 ? "|" : "", names[i]);
    }
}

static void print_alias(em_strbuf *sb, const em_ts_alias *al)
{
    if (al == NULL) {
        return;
    }
    if (al->n_before == 1 && al->before[0][0] == '$') {
        em_strbuf_printf(sb, "!");
        return;
    }
    em_strbuf_printf(sb, "(");
    print_set(sb, al->before, al->n_before);
    em_strbuf_printf(sb, "%s", al->write ? "!" : "");
    if (al->after != al->before) {
        em_strbuf_printf(sb, " -> ");
        print_set(sb, al->after, al->n_after);
    }
    em_strbuf_printf(sb, ")");
}

/* Schema spelling of `t`; base_alias follows the innermost type, list_alias the first `[]`
 * (which is `[N]` when n > 0). */
static void print_type(em_strbuf *sb, const em_ts_type *t, const em_ts_alias *base_alias,
                       const em_ts_alias *list_alias, int64_t n)
{
    const char *name = em_ts_type_kind_name(t->kind);
    switch (t->kind) {
    case EM_TS_TY_OPTIONAL:
        print_type(sb, t->items[0], base_alias, list_alias, n);
        em_strbuf_printf(sb, "?");
        return;
    case EM_TS_TY_LIST:
        print_type(sb, t->items[0], base_alias, NULL, 0);
        if (n > 0) {
            em_strbuf_printf(sb, "[%lld]", (long long)n);
        } else {
            em_strbuf_printf(sb, "[]");
        }
        print_alias(sb, list_alias);
        return;
    case EM_TS_TY_CLASS:
    case EM_TS_TY_VAR:
        em_strbuf_printf(sb, "%s", t->name);
        break;
    case EM_TS_TY_NUMBER:
        em_strbuf_printf(sb, "Scalar");
        break;
    default:
        if (em_ts_type_kind_arity(t->kind) == 0) {
            em_strbuf_printf(sb, "%s", name);
            break;
        }
        em_strbuf_printf(sb, "%s(", t->kind == EM_TS_TY_TUPLE ? "" : name);
        for (size_t i = 0; i < t->n_items; i++) {
            em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
            print_type(sb, t->items[i], NULL, NULL, 0);
        }
        em_strbuf_printf(sb, ")");
        break;
    }
    print_alias(sb, base_alias);
}

static void print_arg(em_strbuf *sb, const em_ts_schema_arg *arg)
{
    const em_ts_type *core = arg->type->kind == EM_TS_TY_OPTIONAL ? arg->type->items[0] : arg->type;
    if (core->kind == EM_TS_TY_LIST) {
        print_type(sb, arg->type, arg->elem_alias, arg->alias, arg->list_size);
    } else {
        print_type(sb, arg->type, arg->alias, NULL, 0);
    }
    em_strbuf_printf(sb, "%s%s", arg->name[0] != '\0' ? " " : "", arg->name);
    if (arg->def != NULL) {
        em_strbuf_printf(sb, "=%s", arg->def->text);
    }
}

void em_ts_schema_print(em_strbuf *sb, const em_ts_schema *sc)
{
    em_strbuf_printf(sb, "%s%s%s%s%s", sc->ns, sc->ns[0] != '\0' ? "::" : "", sc->name,
                     sc->overload[0] != '\0' ? "." : "", sc->overload);
    if (sc->name_only) {
        return;
    }
    em_strbuf_printf(sb, "(");
    bool kw = false;
    for (size_t i = 0; i < sc->n_args; i++) {
        em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
        if (sc->args[i].kwarg_only && !kw) {
            em_strbuf_printf(sb, "*, ");
            kw = true;
        }
        print_arg(sb, &sc->args[i]);
    }
    em_strbuf_printf(sb, "%s) -> ", sc->is_vararg ? (sc->n_args > 0 ? ", ..." : "...") : "");
    const em_ts_type *first = sc->n_rets > 0 ? sc->rets[0].type : NULL;
    while (first != NULL && (first->kind == EM_TS_TY_LIST || first->kind == EM_TS_TY_OPTIONAL)) {
        first = first->items[0];
    }
    /* One return is bare, unless its spelling starts with '(' (a tuple type). */
    bool paren = !(sc->n_rets == 1 && !sc->is_varret && first->kind != EM_TS_TY_TUPLE) &&
                 !(sc->n_rets == 0 && sc->is_varret);
    em_strbuf_printf(sb, "%s", paren ? "(" : "");
    for (size_t i = 0; i < sc->n_rets; i++) {
        em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
        print_arg(sb, &sc->rets[i]);
    }
    if (sc->is_varret) {
        em_strbuf_printf(sb, "%s...", sc->n_rets > 0 ? ", " : "");
    }
    em_strbuf_printf(sb, "%s", paren ? ")" : "");
}
