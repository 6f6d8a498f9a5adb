/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Module and class level of the serialized TorchScript code (ts_ast.h): `op_version_set`,
 * imports, `class Name(Base):` bodies (the member forms PythonPrint writes), top-level defs,
 * and the entry point em_ts_parse_file.
 */
#include "ts_parse.h"

#include <string.h>

#include "core/status.h"

static const struct {
    const char *name;
    em_ts_class_base base;
} bases[] = {{"Module", EM_TS_BASE_MODULE},
             {"NamedTuple", EM_TS_BASE_NAMEDTUPLE},
             {"Interface", EM_TS_BASE_INTERFACE},
             {"ModuleInterface", EM_TS_BASE_MODULE_INTERFACE},
             {"Enum", EM_TS_BASE_ENUM}};

static bool tok_is(const em_ts_parser *p, const em_ts_tok *t, const char *name)
{
    return t->kind == EM_TS_T_NAME && t->len == strlen(name) &&
           memcmp(p->src->text + t->off, name, t->len) == 0;
}

static bool end_of_line(em_ts_parser *p)
{
    return em_ts_p_expect(p, EM_TS_T_NEWLINE, "after the declaration");
}

/* The strings of `__parameters__ = ["a", "b", ]` into *names. */
static bool name_list(em_ts_parser *p, const em_ts_member *m, const em_ts_tok *t,
                      const char ***names, size_t *n)
{
    const em_ts_expr *v = m->value;
    if (v->kind != EM_TS_LIST) {
        em_ts_p_fail(p, t, "%s must be a list of strings", m->name);
        return false;
    }
    *names = em_ts_ast_alloc(p->a, (v->u.seq.n + 1) * sizeof **names);
    if (*names == NULL) {
        em_ts_p_oom(p);
        return false;
    }
    for (size_t i = 0; i < v->u.seq.n; i++) {
        const em_ts_expr *s = v->u.seq.items[i];
        if (s->kind != EM_TS_STR || strlen(s->u.str.s) != s->u.str.n) {
            em_ts_tok at = *t;
            at.line = s->pos.line;
            at.col = s->pos.col;
            em_ts_p_fail(p, &at, "%s must be a list of strings", m->name);
            return false;
        }
        (*names)[i] = s->u.str.s;
    }
    *n = v->u.seq.n;
    return true;
}

/* `__annotations__["name"] = Type` (the current token is __annotations__, then '['). */
static bool quoted_attr(em_ts_parser *p, em_ts_member *m)
{
    p->i += 2;
    const em_ts_tok *k = em_ts_p_tok(p);
    em_ts_expr *key = em_ts_p_test(p);
    if (key == NULL) {
        return false;
    }
    if (key->kind != EM_TS_STR || strlen(key->u.str.s) != key->u.str.n) {
        em_ts_p_fail(p, k, "expected an attribute name string in __annotations__[...]");
        return false;
    }
    m->kind = EM_TS_M_ATTR;
    m->quoted = true;
    m->name = key->u.str.s;
    return em_ts_p_expect(p, EM_TS_T_RBRACKET, "after the attribute name") &&
           em_ts_p_expect(p, EM_TS_T_ASSIGN, "after __annotations__[...]") &&
           (m->type = em_ts_p_test(p)) != NULL && end_of_line(p);
}

static bool member(em_ts_parser *p, em_ts_class *c, em_ts_vec *members)
{
    const em_ts_tok *t = em_ts_p_tok(p), *next = em_ts_p_peek(p, 1);
    em_ts_member *m = em_ts_vec_push(p, members, sizeof *m);
    if (m == NULL) {
        return false;
    }
    m->pos = em_ts_p_pos(p, t);
    if (t->kind == EM_TS_T_DEF) {
        m->kind = EM_TS_M_METHOD;
        m->method = em_ts_p_funcdef(p);
        m->name = m->method != NULL ? m->method->name : NULL;
        return m->method != NULL;
    }
    if (t->kind == EM_TS_T_PASS) {
        p->i++;
        m->kind = EM_TS_M_PASS;
        return end_of_line(p);
    }
    if (tok_is(p, t, "__annotations__") && next->kind == EM_TS_T_LBRACKET) {
        return quoted_attr(p, m);
    }
    if (t->kind != EM_TS_T_NAME || (next->kind != EM_TS_T_COLON && next->kind != EM_TS_T_ASSIGN)) {
        em_ts_p_fail(p, t,
                     t->kind == EM_TS_T_INDENT
                         ? "unexpected indent"
                         : "expected an attribute, a constant or a method in class '%s', found %s",
                     c->name, em_ts_p_describe(p, t));
        return false;
    }
    p->i += 2;
    if ((m->name = em_ts_p_text(p, t)) == NULL) {
        return false;
    }
    if (next->kind == EM_TS_T_COLON) {
        m->kind = EM_TS_M_ATTR;
        if ((m->type = em_ts_p_test(p)) == NULL) {
            return false;
        }
        if (em_ts_p_accept(p, EM_TS_T_ASSIGN)) {
            m->kind = EM_TS_M_CONST;
            if ((m->value = em_ts_p_test(p)) == NULL) {
                return false;
            }
        }
        return end_of_line(p);
    }
    m->kind = EM_TS_M_VALUE;
    if ((m->value = em_ts_p_testlist(p)) == NULL) {
        return false;
    }
    if (strcmp(m->name, "__parameters__") == 0 &&
        !name_list(p, m, t, &c->parameters, &c->n_parameters)) {
        return false;
    }
    if (strcmp(m->name, "__buffers__") == 0 && !name_list(p, m, t, &c->buffers, &c->n_buffers)) {
        return false;
    }
    return end_of_line(p);
}

static bool class_body(em_ts_parser *p, em_ts_class *c)
{
    const em_ts_tok *colon = em_ts_p_tok(p);
    em_ts_vec members = {0};
    if (!em_ts_p_expect(p, EM_TS_T_COLON, "after the class name") || !em_ts_p_enter(p, colon)) {
        return false;
    }
    bool ok;
    if (!em_ts_p_accept(p, EM_TS_T_NEWLINE)) {
        ok = member(p, c, &members);
    } else if (!em_ts_p_accept(p, EM_TS_T_INDENT)) {
        em_ts_p_fail(p, em_ts_p_tok(p), "expected an indented block");
        ok = false;
    } else {
        do {
            ok = member(p, c, &members);
        } while (ok && !em_ts_p_accept(p, EM_TS_T_DEDENT));
    }
    em_ts_p_leave(p, 1);
    c->members = members.data;
    c->n_members = members.n;
    return ok;
}

/* class NAME [ '(' [BASE] ')' ] ':' body */
static em_ts_class *classdef(em_ts_parser *p)
{
    const em_ts_tok *t = em_ts_p_tok(p), *name = em_ts_p_peek(p, 1);
    em_ts_class *c = em_ts_ast_alloc(p->a, sizeof *c);
    if (c == NULL) {
        return em_ts_p_oom(p);
    }
    c->pos = em_ts_p_pos(p, t);
    p->i++;
    if (name->kind != EM_TS_T_NAME) {
        return em_ts_p_fail(p, name, "expected a class name after 'class', found %s",
                            em_ts_p_describe(p, name));
    }
    p->i++;
    if ((c->name = em_ts_p_text(p, name)) == NULL) {
        return NULL;
    }
    if (em_ts_p_accept(p, EM_TS_T_LPAREN) && !em_ts_p_accept(p, EM_TS_T_RPAREN)) {
        const em_ts_tok *b = em_ts_p_tok(p);
        size_t k = 0;
        while (k < sizeof bases / sizeof bases[0] && !tok_is(p, b, bases[k].name)) {
            k++;
        }
        if (k == sizeof bases / sizeof bases[0]) {
            return em_ts_p_fail(p, b,
                                "class base %s is not supported (Module, NamedTuple, Interface, "
                                "ModuleInterface or Enum)",
                                em_ts_p_describe(p, b));
        }
        c->base = bases[k].base;
        p->i++;
        if (!em_ts_p_expect(p, EM_TS_T_RPAREN, "after the class base")) {
            return NULL;
        }
    }
    return class_body(p, c) ? c : NULL;
}

/* import / from lines: kept as written, to the end of the line. */
static const char *import_line(em_ts_parser *p)
{
    const em_ts_tok *first = em_ts_p_tok(p), *last = first;
    while (em_ts_p_tok(p)->kind != EM_TS_T_NEWLINE && em_ts_p_tok(p)->kind != EM_TS_T_EOF) {
        last = em_ts_p_tok(p);
        p->i++;
    }
    p->i++;
    const char *s =
        em_ts_ast_strndup(p->a, p->src->text + first->off, last->off + last->len - first->off);
    return s != NULL ? s : em_ts_p_oom(p);
}

static bool version_line(em_ts_parser *p, em_ts_module *m)
{
    const em_ts_tok *t = em_ts_p_tok(p), *v = em_ts_p_peek(p, 2);
    uint64_t u;
    if (m->has_version) {
        em_ts_p_fail(p, t, "op_version_set is given twice");
        return false;
    }
    p->i += 2;
    if (v->kind != EM_TS_T_INT || !em_ts_parse_uint(p->src->text + v->off, v->len, &u) ||
        u > INT64_MAX) {
        em_ts_p_fail(p, v, "op_version_set must be an integer");
        return false;
    }
    p->i++;
    m->has_version = true;
    m->op_version_set = (int64_t)u;
    return end_of_line(p);
}

static bool module(em_ts_parser *p, em_ts_module *m)
{
    em_ts_vec decls = {0};
    for (;;) {
        const em_ts_tok *t = em_ts_p_tok(p);
        if (t->kind == EM_TS_T_EOF) {
            break;
        }
        if (tok_is(p, t, "op_version_set") && em_ts_p_peek(p, 1)->kind == EM_TS_T_ASSIGN) {
            if (!version_line(p, m)) {
                return false;
            }
            continue;
        }
        em_ts_decl *d = em_ts_vec_push(p, &decls, sizeof *d);
        if (d == NULL) {
            return false;
        }
        d->pos = em_ts_p_pos(p, t);
        if (t->kind == EM_TS_T_CLASS) {
            d->kind = EM_TS_D_CLASS;
            d->u.cls = classdef(p);
        } else if (t->kind == EM_TS_T_DEF) {
            d->kind = EM_TS_D_FUNC;
            d->u.func = em_ts_p_funcdef(p);
        } else if (t->kind == EM_TS_T_IMPORT || t->kind == EM_TS_T_FROM) {
            d->kind = EM_TS_D_IMPORT;
            d->u.import_text = import_line(p);
        } else {
            em_ts_p_fail(p, t,
                         t->kind == EM_TS_T_INDENT
                             ? "unexpected indent"
                             : "expected 'class' or 'def' at the top level, found %s",
                         em_ts_p_describe(p, t));
        }
        if (p->st != NULL) {
            return false;
        }
    }
    m->decls = decls.data;
    m->n_decls = decls.n;
    return true;
}

ember_status *em_ts_parse_file(em_ts_ast_arena *a, const char *text, size_t n, const char *file,
                               em_ts_module **out)
{
    em_ts_parser p;
    *out = NULL;
    em_ts_module *m = em_ts_ast_alloc(a, sizeof *m);
    if (m == NULL) {
        return em_status_oom();
    }
    ember_status *st = em_ts_p_begin(&p, a, text, n, file != NULL ? file : "<code>", false);
    if (st != NULL) {
        return st;
    }
    m->src = p.src;
    if ((st = em_ts_p_end(&p, module(&p, m))) != NULL) {
        return st;
    }
    *out = m;
    return NULL;
}
