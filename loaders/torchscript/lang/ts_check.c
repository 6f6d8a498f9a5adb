/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checks of one parsed code record (ts_check.h): imports, names defined twice, member and
 * signature types. And the arena hash map the checks share.
 */
#include "ts_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"

/* ---- the map ------------------------------------------------------------------------------ */

static uint64_t map_hash(const em_ts_map *m, const void *k1, const void *k2)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    if (m->strings) {
        for (const unsigned char *s = k1; *s != '\0'; s++) {
            h = (h ^ *s) * 1099511628211u;
        }
        return h;
    }
    uintptr_t p[2] = {(uintptr_t)k1, (uintptr_t)k2};
    for (int i = 0; i < 2; i++) {
        h = (h ^ p[i]) * 1099511628211u;
        h ^= h >> 29;
    }
    return h;
}

static bool map_same(const em_ts_map *m, const em_ts_map_entry *e, const void *k1,
                     const void *k2)
{
    if (m->strings) {
        return strcmp(e->k1, k1) == 0;
    }
    return e->k1 == k1 && e->k2 == k2;
}

/* The slot of (k1, k2): its entry, or the empty slot where it would go. */
static em_ts_map_entry *map_slot(const em_ts_map *m, const void *k1, const void *k2)
{
    size_t i = (size_t)map_hash(m, k1, k2) & (m->cap - 1);
    while (m->e[i].k1 != NULL && !map_same(m, &m->e[i], k1, k2)) {
        i = (i + 1) & (m->cap - 1);
    }
    return &m->e[i];
}

const void *em_ts_map_get(const em_ts_map *m, const void *k1, const void *k2)
{
    if (m->cap == 0) {
        return NULL;
    }
    const em_ts_map_entry *e = map_slot(m, k1, k2);
    return e->k1 != NULL ? e->val : NULL;
}

ember_status *em_ts_map_put(em_ts_map *m, const void *k1, const void *k2, const void *val,
                            const void **prev)
{
    if (prev != NULL) {
        *prev = NULL;
    }
    if (2 * (m->n + 1) > m->cap) { /* at most half full */
        size_t cap = m->cap == 0 ? 16 : 2 * m->cap;
        em_ts_map_entry *e = cap <= SIZE_MAX / sizeof *e ? em_ts_ast_alloc(m->a, cap * sizeof *e)
                                                         : NULL;
        if (e == NULL) {
            return em_status_oom();
        }
        em_ts_map old = *m;
        m->e = e;
        m->cap = cap;
        for (size_t i = 0; i < old.cap; i++) {
            if (old.e[i].k1 != NULL) {
                *map_slot(m, old.e[i].k1, old.e[i].k2) = old.e[i];
            }
        }
    }
    em_ts_map_entry *e = map_slot(m, k1, k2);
    if (e->k1 != NULL) {
        if (prev != NULL) {
            *prev = e->val;
        }
        return NULL;
    }
    *e = (em_ts_map_entry){k1, k2, val};
    m->n++;
    return NULL;
}

/* ---- types -------------------------------------------------------------------------------- */

/* The first type variable in t (a lowercase name that is no type), or NULL. */
static const em_ts_type *type_var(const em_ts_type *t)
{
    if (t->kind == EM_TS_TY_VAR) {
        return t;
    }
    for (size_t i = 0; i < t->n_items; i++) {
        const em_ts_type *v = type_var(t->items[i]);
        if (v != NULL) {
            return v;
        }
    }
    return NULL;
}

ember_status *em_ts_check_type(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out)
{
    ember_status *st = em_ts_type_from_expr(a, e, out);
    if (st != NULL) {
        return st;
    }
    const em_ts_type *v = type_var(*out);
    if (v != NULL) {
        *out = NULL;
        return em_ts_error_at(EMBER_ERR_INVALID_MODEL, e->pos, "unknown type name '%s'",
                              v->name);
    }
    return NULL;
}

static ember_status *check_signature(em_ts_ast_arena *a, const em_ts_func *f)
{
    em_ts_type *t = NULL;
    for (size_t i = 0; i < f->n_params; i++) {
        if (f->params[i].type != NULL) {
            ember_status *st = em_ts_check_type(a, f->params[i].type, &t);
            if (st != NULL) {
                return st;
            }
        }
    }
    return f->ret != NULL ? em_ts_check_type(a, f->ret, &t) : NULL;
}

/* ---- imports ------------------------------------------------------------------------------ */

static bool is_ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* `import __torch__` or `import __torch__.a.b` (spaces between the words only). */
static bool torch_import(const char *s)
{
    if (strncmp(s, "import", 6) != 0 || (s[6] != ' ' && s[6] != '\t')) {
        return false;
    }
    s += 6;
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    if (strncmp(s, "__torch__", 9) != 0) {
        return false;
    }
    s += 9;
    while (*s == '.' && is_ident_char(s[1])) {
        s++;
        while (is_ident_char(*s)) {
            s++;
        }
    }
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    return *s == '\0';
}

static ember_status *check_import(const em_ts_decl *d)
{
    const char *s = d->u.import_text;
    if (strncmp(s, "from", 4) == 0) {
        return em_ts_error_at(EMBER_ERR_INVALID_MODEL, d->pos, "'from ... import' in serialized "
                              "code: torch.jit.load refuses it, and torch.jit.save never "
                              "writes one");
    }
    if (!torch_import(s)) {
        return em_ts_error_at(EMBER_ERR_INVALID_MODEL, d->pos, "'%.60s': serialized code imports "
                              "nothing but its own __torch__ modules", s);
    }
    return NULL;
}

/* ---- names defined twice ------------------------------------------------------------------ */

/* Puts name -> val in `names`; *line gets the line of the earlier definition (pos_of(prev))
 * or 0 when the name is new. */
static ember_status *define(em_ts_map *names, const char *name, const void *val, int *line,
                            em_ts_pos (*pos_of)(const void *))
{
    const void *prev = NULL;
    ember_status *st = em_ts_map_put(names, name, NULL, val, &prev);
    *line = prev != NULL ? (int)pos_of(prev).line : 0;
    return st;
}

static em_ts_pos member_pos(const void *m) { return ((const em_ts_member *)m)->pos; }
static em_ts_pos decl_pos(const void *d) { return ((const em_ts_decl *)d)->pos; }

static ember_status *twice(em_ts_pos pos, const char *what, const char *name, const char *where,
                           int line)
{
    return em_ts_error_at(EMBER_ERR_INVALID_MODEL, pos, "%s '%s' is defined twice in %s (first "
                          "at line %d)", what, name, where, line);
}

static bool tensor_like(const em_ts_type *t)
{
    if (t->kind == EM_TS_TY_OPTIONAL) {
        t = em_ts_type_elem(t);
    }
    return t->kind == EM_TS_TY_TENSOR || t->kind == EM_TS_TY_NONE;
}

/* Names in __parameters__ / __buffers__ that are declared (in `attrs`, by their member's
 * member) must be tensors or None. */
static ember_status *check_tensor_names(em_ts_ast_arena *a, const em_ts_class *c,
                                        const em_ts_map *attrs, const char **names, size_t n,
                                        const char *what)
{
    for (size_t i = 0; i < n; i++) {
        const em_ts_member *m = em_ts_map_get(attrs, names[i], NULL);
        em_ts_type *t = NULL;
        if (m == NULL || m->kind != EM_TS_M_ATTR) {
            continue;
        }
        ember_status *st = em_ts_check_type(a, m->type, &t);
        if (st == NULL && !tensor_like(t)) {
            em_strbuf sb;
            em_strbuf_init(&sb, NULL);
            em_ts_type_print(&sb, t);
            st = em_ts_error_at(EMBER_ERR_INVALID_MODEL, m->type->pos, "%s '%s' of class '%s' is "
                                "declared %s: a parameter or buffer is a Tensor, "
                                "Optional[Tensor] or NoneType", what, names[i], c->name,
                                sb.data != NULL ? sb.data : "?");
            em_strbuf_free(&sb);
        }
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

static ember_status *check_class(em_ts_ast_arena *a, const em_ts_class *c)
{
    em_ts_map methods = {.a = a, .strings = true}, attrs = {.a = a, .strings = true};
    char where[300];
    snprintf(where, sizeof where, "class '%.200s'", c->name);
    for (size_t i = 0; i < c->n_members; i++) {
        const em_ts_member *m = &c->members[i];
        em_ts_type *t = NULL;
        ember_status *st = NULL;
        int line = 0;
        if (m->kind == EM_TS_M_METHOD) {
            st = define(&methods, m->name, m, &line, member_pos);
            st = st != NULL ? st
                 : line > 0 ? twice(m->pos, "method", m->name, where, line)
                            : check_signature(a, m->method);
        } else if (m->kind == EM_TS_M_ATTR || m->kind == EM_TS_M_CONST) {
            st = define(&attrs, m->name, m, &line, member_pos);
            st = st != NULL ? st
                 : line > 0 ? twice(m->pos, "attribute", m->name, where, line)
                            : em_ts_check_type(a, m->type, &t);
        }
        if (st != NULL) {
            return st;
        }
    }
    ember_status *st = check_tensor_names(a, c, &attrs, c->parameters, c->n_parameters,
                                          "parameter");
    return st != NULL ? st : check_tensor_names(a, c, &attrs, c->buffers, c->n_buffers, "buffer");
}

ember_status *em_ts_check_module(em_ts_ast_arena *a, const em_ts_module *m)
{
    em_ts_map names = {.a = a, .strings = true};
    const char *file = m->src != NULL ? m->src->file : "the record";
    for (size_t i = 0; i < m->n_decls; i++) {
        const em_ts_decl *d = &m->decls[i];
        ember_status *st = NULL;
        int line = 0;
        if (d->kind == EM_TS_D_IMPORT) {
            st = check_import(d);
        } else {
            bool cls = d->kind == EM_TS_D_CLASS;
            const char *name = cls ? d->u.cls->name : d->u.func->name;
            st = define(&names, name, d, &line, decl_pos);
            st = st != NULL ? st
                 : line > 0 ? twice(d->pos, cls ? "class" : "function", name, file, line)
                 : cls      ? check_class(a, d->u.cls)
                            : check_signature(a, d->u.func);
        }
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}
