/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Statement, function, class and module parser of the serialized TorchScript code (ts_ast.h),
 * plus the parser state helpers of ts_parse.h. Recursive descent over the token array of
 * ts_lex.c; expressions are in ts_parse_expr.c. Blocks, like expressions, pass
 * em_ts_p_enter, so nesting is bounded by EM_TS_MAX_DEPTH.
 */
#include "ts_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"

/* ---- parser state (ts_parse.h) ------------------------------------------------------------- */

void *em_ts_vec_push(em_ts_parser *p, em_ts_vec *v, size_t elem)
{
    if (v->n == v->cap) {
        size_t cap = v->cap == 0 ? 4 : v->cap * 2, bytes;
        void *d = em_size_mul(cap, elem, &bytes) ? em_ts_ast_alloc(p->a, bytes) : NULL;
        if (d == NULL) {
            return em_ts_p_oom(p);
        }
        if (v->n > 0) {
            memcpy(d, v->data, v->n * elem);
        }
        v->data = d;
        v->cap = cap;
    }
    return (char *)v->data + elem * v->n++;
}

bool em_ts_vec_push_ptr(em_ts_parser *p, em_ts_vec *v, void *x)
{
    void **slot = em_ts_vec_push(p, v, sizeof *slot);
    if (slot != NULL) {
        *slot = x;
    }
    return slot != NULL;
}

const em_ts_tok *em_ts_p_tok(const em_ts_parser *p)
{
    return em_ts_p_peek(p, 0);
}

const em_ts_tok *em_ts_p_peek(const em_ts_parser *p, size_t k)
{
    return p->i + k < p->n_toks ? &p->toks[p->i + k] : &p->toks[p->n_toks - 1];
}

em_ts_pos em_ts_p_pos(const em_ts_parser *p, const em_ts_tok *t)
{
    return (em_ts_pos){p->src, t->line, t->col};
}

bool em_ts_p_accept(em_ts_parser *p, em_ts_tok_kind kind)
{
    if (em_ts_p_tok(p)->kind != kind) {
        return false;
    }
    p->i++;
    return true;
}

bool em_ts_p_expect(em_ts_parser *p, em_ts_tok_kind kind, const char *context)
{
    if (em_ts_p_accept(p, kind)) {
        return true;
    }
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_p_fail(p, t, "expected %s %s, found %s", em_ts_tok_desc(kind), context,
                 em_ts_p_describe(p, t));
    return false;
}

void *em_ts_p_fail(em_ts_parser *p, const em_ts_tok *t, const char *fmt, ...)
{
    if (p->st != NULL) {
        return NULL;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->st = em_ts_error_at(EMBER_ERR_INVALID_MODEL, em_ts_p_pos(p, t), "%s", msg);
    return NULL;
}

void *em_ts_p_oom(em_ts_parser *p)
{
    if (p->st == NULL) {
        p->st = em_status_oom();
    }
    return NULL;
}

const char *em_ts_p_describe(em_ts_parser *p, const em_ts_tok *t)
{
    if (t->kind != EM_TS_T_NAME && t->kind != EM_TS_T_INT && t->kind != EM_TS_T_FLOAT) {
        return em_ts_tok_desc(t->kind);
    }
    char buf[64];
    int len = t->len > 40 ? 40 : (int)t->len;
    snprintf(buf, sizeof buf, "%s '%.*s%s'", t->kind == EM_TS_T_NAME ? "name" : "number", len,
             p->src->text + t->off, t->len > 40 ? "..." : "");
    const char *s = em_ts_ast_strndup(p->a, buf, strlen(buf));
    return s != NULL ? s : em_ts_tok_desc(t->kind);
}

bool em_ts_p_enter(em_ts_parser *p, const em_ts_tok *t)
{
    if (p->depth >= EM_TS_MAX_DEPTH) {
        em_ts_p_fail(p, t, "too deeply nested (more than %d levels)", EM_TS_MAX_DEPTH);
        return false;
    }
    p->depth++;
    return true;
}

void em_ts_p_leave(em_ts_parser *p, int levels)
{
    p->depth -= levels;
}

const char *em_ts_p_text(em_ts_parser *p, const em_ts_tok *t)
{
    const char *s = em_ts_ast_strndup(p->a, p->src->text + t->off, t->len);
    return s != NULL ? s : em_ts_p_oom(p);
}

em_ts_expr *em_ts_p_node(em_ts_parser *p, em_ts_expr_kind kind, const em_ts_tok *t)
{
    em_ts_expr *e = em_ts_ast_alloc(p->a, sizeof *e);
    if (e == NULL) {
        return em_ts_p_oom(p);
    }
    e->kind = kind;
    e->pos = em_ts_p_pos(p, t);
    return e;
}

ember_status *em_ts_p_begin(em_ts_parser *p, em_ts_ast_arena *a, const char *text, size_t n,
                            const char *what, bool one_line)
{
    while (one_line && n > 0 && (*text == ' ' || *text == '\t')) {
        text++;
        n--;
    }
    *p = (em_ts_parser){.a = a};
    em_ts_source *src = em_ts_ast_alloc(a, sizeof *src);
    char *copy = em_ts_ast_strndup(a, text, n);
    const char *name = em_ts_ast_strndup(a, what, strlen(what));
    if (src == NULL || copy == NULL || name == NULL) {
        return em_status_oom();
    }
    *src = (em_ts_source){name, copy, n};
    p->src = src;
    em_ts_tok *toks = NULL;
    ember_status *st = em_ts_lex(src, em_ts_ast_arena_allocator(a), &toks, &p->n_toks);
    p->toks = toks;
    return st;
}

ember_status *em_ts_p_end(em_ts_parser *p, bool ok)
{
    em_free(em_ts_ast_arena_allocator(p->a), (void *)p->toks);
    p->toks = NULL;
    if (!ok && p->st == NULL) {
        p->st = em_status_new(EMBER_ERR_INTERNAL, "%s: the parser stopped without an error",
                              p->src->file);
    }
    return p->st;
}

/* ---- statements ---------------------------------------------------------------------------- */

static bool block(em_ts_parser *p, em_ts_block *out);

static em_ts_stmt *stmt_node(em_ts_parser *p, em_ts_stmt_kind kind, const em_ts_tok *t)
{
    em_ts_stmt *s = em_ts_ast_alloc(p->a, sizeof *s);
    if (s == NULL) {
        return em_ts_p_oom(p);
    }
    s->kind = kind;
    s->pos = em_ts_p_pos(p, t);
    return s;
}

/* Whether `e` may be assigned to (names, attributes, subscripts, tuples/lists of them). */
static bool assignable(em_ts_parser *p, const em_ts_expr *e, const em_ts_tok *t, bool seq_ok)
{
    if (e->kind == EM_TS_NAME || e->kind == EM_TS_ATTR || e->kind == EM_TS_SUBSCRIPT) {
        return true;
    }
    if (seq_ok && (e->kind == EM_TS_TUPLE || e->kind == EM_TS_LIST) && e->u.seq.n > 0) {
        for (size_t i = 0; i < e->u.seq.n; i++) {
            if (!assignable(p, e->u.seq.items[i], t, true)) {
                return false;
            }
        }
        return true;
    }
    em_ts_tok at = *t;
    at.line = e->pos.line;
    at.col = e->pos.col;
    em_ts_p_fail(p, &at, "cannot assign to this expression");
    return false;
}

static bool aug_op(em_ts_tok_kind k, em_ts_op *op)
{
    static const struct {
        em_ts_tok_kind tok;
        em_ts_op op;
    } map[] = {{EM_TS_T_PLUS_EQ, EM_TS_OP_ADD},          {EM_TS_T_MINUS_EQ, EM_TS_OP_SUB},
               {EM_TS_T_STAR_EQ, EM_TS_OP_MUL},          {EM_TS_T_SLASH_EQ, EM_TS_OP_DIV},
               {EM_TS_T_FLOORDIV_EQ, EM_TS_OP_FLOORDIV}, {EM_TS_T_PERCENT_EQ, EM_TS_OP_MOD},
               {EM_TS_T_POW_EQ, EM_TS_OP_POW},           {EM_TS_T_AT_EQ, EM_TS_OP_MATMUL},
               {EM_TS_T_LSHIFT_EQ, EM_TS_OP_LSHIFT},     {EM_TS_T_RSHIFT_EQ, EM_TS_OP_RSHIFT},
               {EM_TS_T_AMP_EQ, EM_TS_OP_BITAND},        {EM_TS_T_PIPE_EQ, EM_TS_OP_BITOR},
               {EM_TS_T_CARET_EQ, EM_TS_OP_BITXOR}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (map[i].tok == k) {
            *op = map[i].op;
            return true;
        }
    }
    return false;
}

/* Expression statement, assignment (chained, annotated) or augmented assignment. */
static em_ts_stmt *expr_stmt(em_ts_parser *p, const em_ts_tok *t)
{
    em_ts_expr *first = em_ts_p_testlist(p);
    if (first == NULL) {
        return NULL;
    }
    const em_ts_tok *op_tok = em_ts_p_tok(p);
    em_ts_op op;
    if (aug_op(op_tok->kind, &op)) {
        p->i++;
        em_ts_stmt *s = assignable(p, first, t, false) ? stmt_node(p, EM_TS_S_AUGASSIGN, t) : NULL;
        if (s == NULL || (s->u.aug.value = em_ts_p_testlist(p)) == NULL) {
            return NULL;
        }
        s->u.aug.op = op;
        s->u.aug.target = first;
        return s;
    }
    if (op_tok->kind != EM_TS_T_ASSIGN && op_tok->kind != EM_TS_T_COLON) {
        em_ts_stmt *s = stmt_node(p, EM_TS_S_EXPR, t);
        if (s != NULL) {
            s->u.expr = first;
        }
        return s;
    }
    em_ts_stmt *s = stmt_node(p, EM_TS_S_ASSIGN, t);
    em_ts_vec targets = {0};
    if (s == NULL || !assignable(p, first, t, op_tok->kind == EM_TS_T_ASSIGN)) {
        return NULL;
    }
    if (em_ts_p_accept(p, EM_TS_T_COLON)) {
        s->u.assign.spaced_colon = op_tok->off > 0 && p->src->text[op_tok->off - 1] == ' ';
        if ((s->u.assign.type = em_ts_p_test(p)) == NULL) {
            return NULL;
        }
        if (!em_ts_p_accept(p, EM_TS_T_ASSIGN)) {
            s->u.assign.targets = em_ts_ast_alloc(p->a, sizeof(em_ts_expr *));
            if (s->u.assign.targets == NULL) {
                return em_ts_p_oom(p);
            }
            s->u.assign.targets[0] = first;
            s->u.assign.n_targets = 1;
            return s;
        }
        p->i--;
    }
    em_ts_expr *value = first;
    while (em_ts_p_accept(p, EM_TS_T_ASSIGN)) {
        if (!assignable(p, value, t, true) || !em_ts_vec_push_ptr(p, &targets, value) ||
            (value = em_ts_p_testlist(p)) == NULL) {
            return NULL;
        }
        if (s->u.assign.type != NULL && em_ts_p_tok(p)->kind == EM_TS_T_ASSIGN) {
            return em_ts_p_fail(p, em_ts_p_tok(p), "an annotated assignment has one target");
        }
    }
    s->u.assign.targets = targets.data;
    s->u.assign.n_targets = targets.n;
    s->u.assign.value = value;
    return s;
}

static em_ts_stmt *keyword_stmt(em_ts_parser *p, const em_ts_tok *t)
{
    em_ts_stmt *s;
    em_ts_tok_kind next;
    switch (t->kind) {
    case EM_TS_T_PASS:
        p->i++;
        return stmt_node(p, EM_TS_S_PASS, t);
    case EM_TS_T_BREAK:
        p->i++;
        return stmt_node(p, EM_TS_S_BREAK, t);
    case EM_TS_T_CONTINUE:
        p->i++;
        return stmt_node(p, EM_TS_S_CONTINUE, t);
    case EM_TS_T_RETURN:
    case EM_TS_T_RAISE:
        p->i++;
        s = stmt_node(p, t->kind == EM_TS_T_RETURN ? EM_TS_S_RETURN : EM_TS_S_RAISE, t);
        next = em_ts_p_tok(p)->kind;
        if (s != NULL && next != EM_TS_T_NEWLINE && next != EM_TS_T_SEMI &&
            (s->u.expr = em_ts_p_testlist(p)) == NULL) {
            return NULL;
        }
        if (t->kind == EM_TS_T_RAISE && em_ts_p_tok(p)->kind == EM_TS_T_FROM) {
            return em_ts_p_fail(p, em_ts_p_tok(p),
                                "'raise ... from' is not supported in serialized TorchScript");
        }
        return s;
    case EM_TS_T_ASSERT:
        p->i++;
        s = stmt_node(p, EM_TS_S_ASSERT, t);
        if (s == NULL || (s->u.assert_.test = em_ts_p_test(p)) == NULL) {
            return NULL;
        }
        if (em_ts_p_accept(p, EM_TS_T_COMMA) && (s->u.assert_.msg = em_ts_p_test(p)) == NULL) {
            return NULL;
        }
        return s;
    case EM_TS_T_DEL: {
        p->i++;
        s = stmt_node(p, EM_TS_S_DEL, t);
        em_ts_expr *e = s != NULL ? em_ts_p_targetlist(p) : NULL;
        if (e == NULL || !assignable(p, e, t, true)) {
            return NULL;
        }
        bool many = e->kind == EM_TS_TUPLE && e->parens == 0;
        s->u.del.targets = many ? e->u.seq.items : em_ts_ast_alloc(p->a, sizeof(em_ts_expr *));
        if (s->u.del.targets == NULL) {
            return em_ts_p_oom(p);
        }
        s->u.del.n = many ? e->u.seq.n : 1;
        if (!many) {
            s->u.del.targets[0] = e;
        }
        return s;
    }
    default:
        return expr_stmt(p, t);
    }
}

/* Simple statements separated by ';' up to the end of the line. */
static bool simple_stmts(em_ts_parser *p, em_ts_vec *out)
{
    for (;;) {
        const em_ts_tok *t = em_ts_p_tok(p);
        switch (t->kind) {
        case EM_TS_T_GLOBAL:
        case EM_TS_T_NONLOCAL:
        case EM_TS_T_IMPORT:
        case EM_TS_T_FROM:
        case EM_TS_T_CLASS:
        case EM_TS_T_TRY:
        case EM_TS_T_ASYNC:
        case EM_TS_T_YIELD:
            em_ts_p_fail(p, t, "%s is not supported in a serialized TorchScript function",
                         em_ts_tok_desc(t->kind));
            return false;
        case EM_TS_T_INDENT:
            em_ts_p_fail(p, t, "unexpected indent");
            return false;
        default:
            break;
        }
        em_ts_stmt *s = keyword_stmt(p, t);
        if (s == NULL || !em_ts_vec_push_ptr(p, out, s)) {
            return false;
        }
        if (!em_ts_p_accept(p, EM_TS_T_SEMI) || em_ts_p_tok(p)->kind == EM_TS_T_NEWLINE) {
            return em_ts_p_expect(p, EM_TS_T_NEWLINE, "after the statement");
        }
    }
}

static em_ts_stmt *if_stmt(em_ts_parser *p, const em_ts_tok *t, bool is_elif)
{
    em_ts_stmt *s = stmt_node(p, EM_TS_S_IF, t);
    if (s == NULL || !em_ts_p_enter(p, t)) {
        return NULL;
    }
    p->i++;
    s->u.if_.is_elif = is_elif;
    bool ok = (s->u.if_.cond = em_ts_p_test(p)) != NULL && block(p, &s->u.if_.then);
    const em_ts_tok *e = em_ts_p_tok(p);
    if (ok && e->kind == EM_TS_T_ELIF) {
        em_ts_stmt *inner = if_stmt(p, e, true);
        s->u.if_.other.stmts = em_ts_ast_alloc(p->a, sizeof(em_ts_stmt *));
        ok = inner != NULL && s->u.if_.other.stmts != NULL;
        if (ok) {
            s->u.if_.other.stmts[0] = inner;
            s->u.if_.other.n = 1;
        } else if (inner != NULL) {
            em_ts_p_oom(p);
        }
    } else if (ok && em_ts_p_accept(p, EM_TS_T_ELSE)) {
        ok = block(p, &s->u.if_.other);
    }
    em_ts_p_leave(p, 1);
    return ok ? s : NULL;
}

static em_ts_stmt *loop_stmt(em_ts_parser *p, const em_ts_tok *t)
{
    em_ts_stmt *s = stmt_node(p, t->kind == EM_TS_T_FOR ? EM_TS_S_FOR : EM_TS_S_WHILE, t);
    if (s == NULL) {
        return NULL;
    }
    p->i++;
    bool ok;
    if (t->kind == EM_TS_T_FOR) {
        ok = (s->u.for_.target = em_ts_p_targetlist(p)) != NULL &&
             assignable(p, s->u.for_.target, t, true) &&
             em_ts_p_expect(p, EM_TS_T_IN, "after the targets of 'for'") &&
             (s->u.for_.iter = em_ts_p_testlist(p)) != NULL && block(p, &s->u.for_.body);
    } else {
        ok = (s->u.while_.cond = em_ts_p_test(p)) != NULL && block(p, &s->u.while_.body);
    }
    if (ok && em_ts_p_tok(p)->kind == EM_TS_T_ELSE) {
        return em_ts_p_fail(p, em_ts_p_tok(p),
                            "'else' after a loop is not supported in serialized TorchScript");
    }
    return ok ? s : NULL;
}

static em_ts_stmt *with_stmt(em_ts_parser *p, const em_ts_tok *t)
{
    em_ts_stmt *s = stmt_node(p, EM_TS_S_WITH, t);
    em_ts_vec items = {0};
    if (s == NULL) {
        return NULL;
    }
    p->i++;
    do {
        em_ts_with_item *it = em_ts_vec_push(p, &items, sizeof *it);
        if (it == NULL || (it->ctx = em_ts_p_test(p)) == NULL) {
            return NULL;
        }
        if (em_ts_p_accept(p, EM_TS_T_AS) &&
            ((it->target = em_ts_p_target(p)) == NULL || !assignable(p, it->target, t, true))) {
            return NULL;
        }
    } while (em_ts_p_accept(p, EM_TS_T_COMMA));
    s->u.with.items = items.data;
    s->u.with.n = items.n;
    return block(p, &s->u.with.body) ? s : NULL;
}

/* One statement line or compound statement, appended to `out`. */
static bool statement(em_ts_parser *p, em_ts_vec *out)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_stmt *s;
    switch (t->kind) {
    case EM_TS_T_IF:
        s = if_stmt(p, t, false);
        break;
    case EM_TS_T_FOR:
    case EM_TS_T_WHILE:
        s = loop_stmt(p, t);
        break;
    case EM_TS_T_WITH:
        s = with_stmt(p, t);
        break;
    case EM_TS_T_DEF:
        s = stmt_node(p, EM_TS_S_DEF, t);
        if (s != NULL && (s->u.def = em_ts_p_funcdef(p)) == NULL) {
            s = NULL;
        }
        break;
    case EM_TS_T_ELSE:
    case EM_TS_T_ELIF:
        em_ts_p_fail(p, t, "%s without a matching 'if'", em_ts_tok_desc(t->kind));
        return false;
    case EM_TS_T_TRY:
    case EM_TS_T_EXCEPT:
    case EM_TS_T_FINALLY:
        em_ts_p_fail(p, t, "%s is not supported in serialized TorchScript",
                     em_ts_tok_desc(t->kind));
        return false;
    default:
        return simple_stmts(p, out);
    }
    return s != NULL && em_ts_vec_push_ptr(p, out, s);
}

/* ':' then an indented block or simple statements on the same line. */
static bool block(em_ts_parser *p, em_ts_block *out)
{
    const em_ts_tok *colon = em_ts_p_tok(p);
    em_ts_vec v = {0};
    if (!em_ts_p_expect(p, EM_TS_T_COLON, "to start the block") || !em_ts_p_enter(p, colon)) {
        return false;
    }
    bool ok;
    if (!em_ts_p_accept(p, EM_TS_T_NEWLINE)) {
        ok = simple_stmts(p, &v);
    } else if (em_ts_p_tok(p)->kind != EM_TS_T_INDENT) {
        em_ts_p_fail(p, em_ts_p_tok(p), "expected an indented block");
        ok = false;
    } else {
        p->i++;
        do {
            ok = statement(p, &v);
        } while (ok && !em_ts_p_accept(p, EM_TS_T_DEDENT));
    }
    em_ts_p_leave(p, 1);
    out->stmts = v.data;
    out->n = v.n;
    return ok;
}

/* ---- functions ----------------------------------------------------------------------------- */

static bool params(em_ts_parser *p, em_ts_func *f)
{
    em_ts_vec v = {0};
    while (em_ts_p_tok(p)->kind != EM_TS_T_RPAREN) {
        if (v.n > 0 && (!em_ts_p_expect(p, EM_TS_T_COMMA, "between parameters") ||
                        em_ts_p_tok(p)->kind == EM_TS_T_RPAREN)) {
            break;
        }
        const em_ts_tok *t = em_ts_p_tok(p);
        if (t->kind != EM_TS_T_NAME) {
            em_ts_p_fail(p, t,
                         t->kind == EM_TS_T_STAR || t->kind == EM_TS_T_POW ||
                                 t->kind == EM_TS_T_SLASH
                             ? "%s parameters are not supported in serialized TorchScript"
                             : "expected a parameter name, found %s",
                         t->kind == EM_TS_T_NAME ? "" : em_ts_p_describe(p, t));
            return false;
        }
        p->i++;
        em_ts_param *prm = em_ts_vec_push(p, &v, sizeof *prm);
        if (prm == NULL || (prm->name = em_ts_p_text(p, t)) == NULL) {
            return false;
        }
        prm->pos = em_ts_p_pos(p, t);
        if (em_ts_p_accept(p, EM_TS_T_COLON) && (prm->type = em_ts_p_test(p)) == NULL) {
            return false;
        }
        if (em_ts_p_accept(p, EM_TS_T_ASSIGN) && (prm->def = em_ts_p_test(p)) == NULL) {
            return false;
        }
    }
    f->params = v.data;
    f->n_params = v.n;
    f->params_multiline = v.n > 1 && f->params[1].pos.line != f->params[0].pos.line;
    return p->st == NULL && em_ts_p_expect(p, EM_TS_T_RPAREN, "after the parameters");
}

em_ts_func *em_ts_p_funcdef(em_ts_parser *p)
{
    const em_ts_tok *t = em_ts_p_tok(p), *name = em_ts_p_peek(p, 1);
    em_ts_func *f = em_ts_ast_alloc(p->a, sizeof *f);
    if (f == NULL) {
        return em_ts_p_oom(p);
    }
    f->pos = em_ts_p_pos(p, t);
    p->i++;
    if (name->kind != EM_TS_T_NAME) {
        return em_ts_p_fail(p, name, "expected a function name after 'def', found %s",
                            em_ts_p_describe(p, name));
    }
    p->i++;
    if ((f->name = em_ts_p_text(p, name)) == NULL ||
        !em_ts_p_expect(p, EM_TS_T_LPAREN, "after the function name") || !params(p, f)) {
        return NULL;
    }
    if (em_ts_p_accept(p, EM_TS_T_ARROW) && (f->ret = em_ts_p_test(p)) == NULL) {
        return NULL;
    }
    return block(p, &f->body) ? f : NULL;
}
