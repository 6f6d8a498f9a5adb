/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Printer of the syntax tree (ts_ast.h) in PythonPrint's style. Parentheses: an expression
 * gets as many pairs as the source had (e->parens), and one pair when its precedence is below
 * what its place needs (a tree built by hand). Precedence levels follow Python's, tightest
 * last; a negative literal counts as a unary minus (it needs parentheses as a `**` base).
 */
#include "ts_ast.h"

#include <string.h>

enum {
    P_TUPLE,
    P_IFEXP,
    P_OR,
    P_AND,
    P_NOT,
    P_CMP,
    P_BOR,
    P_BXOR,
    P_BAND,
    P_SHIFT,
    P_ARITH,
    P_TERM,
    P_UNARY,
    P_POW,
    P_PRIMARY
};

static void expr(em_strbuf *sb, const em_ts_expr *e, int min_prec);

static int binop_prec(em_ts_op op)
{
    switch (op) {
    case EM_TS_OP_OR:
        return P_OR;
    case EM_TS_OP_AND:
        return P_AND;
    case EM_TS_OP_BITOR:
        return P_BOR;
    case EM_TS_OP_BITXOR:
        return P_BXOR;
    case EM_TS_OP_BITAND:
        return P_BAND;
    case EM_TS_OP_LSHIFT:
    case EM_TS_OP_RSHIFT:
        return P_SHIFT;
    case EM_TS_OP_ADD:
    case EM_TS_OP_SUB:
        return P_ARITH;
    case EM_TS_OP_POW:
        return P_POW;
    default:
        return P_TERM;
    }
}

static int prec_of(const em_ts_expr *e)
{
    switch (e->kind) {
    case EM_TS_TUPLE:
        return e->u.seq.n > 0 ? P_TUPLE : P_PRIMARY;
    case EM_TS_IFEXP:
        return P_IFEXP;
    case EM_TS_BINARY:
        return binop_prec(e->u.bin.op);
    case EM_TS_COMPARE:
        return P_CMP;
    case EM_TS_UNARY:
        return e->u.unary.op == EM_TS_OP_NOT ? P_NOT : P_UNARY;
    case EM_TS_INT:
    case EM_TS_FLOAT:
        return e->u.num.text[0] == '-' ? P_UNARY : P_PRIMARY;
    default:
        return P_PRIMARY;
    }
}

/* PythonPrint's printQuotedString: double quotes, C escapes, \ooo for other bytes. */
static void quoted(em_strbuf *sb, const char *s, size_t n)
{
    char buf[512];
    size_t k = 0;
    buf[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = strchr("\\'\"\a\b\f\n\r\t\v", c);
        if (k + 6 > sizeof buf) {
            em_strbuf_printf(sb, "%.*s", (int)k, buf);
            k = 0;
        }
        if (c != 0 && esc != NULL) {
            buf[k++] = '\\';
            buf[k++] = "\\'\"abfnrtv"[esc - "\\'\"\a\b\f\n\r\t\v"];
        } else if (c >= 0x20 && c < 0x7f) {
            buf[k++] = (char)c;
        } else {
            buf[k++] = '\\';
            buf[k++] = (char)('0' + (c >> 6));
            buf[k++] = (char)('0' + ((c >> 3) & 7));
            buf[k++] = (char)('0' + (c & 7));
        }
    }
    buf[k++] = '"';
    em_strbuf_printf(sb, "%.*s", (int)k, buf);
}

static void items(em_strbuf *sb, em_ts_expr *const *xs, size_t n, int min_prec)
{
    for (size_t i = 0; i < n; i++) {
        em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
        expr(sb, xs[i], min_prec);
    }
}

static void slice(em_strbuf *sb, const em_ts_expr *e)
{
    if (e->kind != EM_TS_SLICE) {
        expr(sb, e, P_IFEXP);
        return;
    }
    if (e->u.slice.lo != NULL) {
        expr(sb, e->u.slice.lo, P_IFEXP);
    }
    em_strbuf_printf(sb, ":");
    if (e->u.slice.hi != NULL) {
        expr(sb, e->u.slice.hi, P_IFEXP);
    }
    if (e->u.slice.has_step_colon || e->u.slice.step != NULL) {
        em_strbuf_printf(sb, ":");
    }
    if (e->u.slice.step != NULL) {
        expr(sb, e->u.slice.step, P_IFEXP);
    }
}

static void subscript(em_strbuf *sb, const em_ts_expr *e)
{
    const em_ts_expr *ix = e->u.sub.index;
    expr(sb, e->u.sub.base, P_PRIMARY);
    em_strbuf_printf(sb, "[");
    if (ix->kind == EM_TS_TUPLE && ix->parens == 0 && ix->u.seq.n > 0) {
        for (size_t i = 0; i < ix->u.seq.n; i++) {
            em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
            slice(sb, ix->u.seq.items[i]);
        }
        em_strbuf_printf(sb, "%s", ix->trailing_comma || ix->u.seq.n == 1 ? "," : "");
    } else {
        slice(sb, ix);
    }
    em_strbuf_printf(sb, "]");
}

static void call(em_strbuf *sb, const em_ts_expr *e)
{
    const em_ts_expr *fn = e->u.call.fn;
    expr(sb, fn, P_PRIMARY);
    em_strbuf_printf(sb, "(");
    items(sb, e->u.call.args, e->u.call.n_args, P_IFEXP);
    for (size_t i = 0; i < e->u.call.n_kwargs; i++) {
        em_strbuf_printf(sb, "%s%s=", i + e->u.call.n_args > 0 ? ", " : "",
                         e->u.call.kwargs[i].name);
        expr(sb, e->u.call.kwargs[i].value, P_IFEXP);
    }
    bool any = e->u.call.n_args + e->u.call.n_kwargs > 0;
    em_strbuf_printf(sb, "%s)", e->trailing_comma && any ? ", " : "");
}

static void binary(em_strbuf *sb, const em_ts_expr *e)
{
    int p = binop_prec(e->u.bin.op);
    bool pow = e->u.bin.op == EM_TS_OP_POW;
    expr(sb, e->u.bin.lhs, pow ? P_PRIMARY : p);
    em_strbuf_printf(sb, " %s ", em_ts_op_text(e->u.bin.op));
    expr(sb, e->u.bin.rhs, pow ? P_UNARY : p + 1);
}

static void body(em_strbuf *sb, const em_ts_expr *e)
{
    switch (e->kind) {
    case EM_TS_NAME:
        em_strbuf_printf(sb, "%s", e->u.name);
        break;
    case EM_TS_INT:
    case EM_TS_FLOAT:
        em_strbuf_printf(sb, "%s", e->u.num.text);
        break;
    case EM_TS_STR:
        quoted(sb, e->u.str.s, e->u.str.n);
        break;
    case EM_TS_BOOL:
        em_strbuf_printf(sb, "%s", e->u.b ? "True" : "False");
        break;
    case EM_TS_NONE:
        em_strbuf_printf(sb, "None");
        break;
    case EM_TS_ELLIPSIS:
        em_strbuf_printf(sb, "...");
        break;
    case EM_TS_TUPLE:
        items(sb, e->u.seq.items, e->u.seq.n, P_IFEXP);
        em_strbuf_printf(sb, "%s",
                         e->u.seq.n == 1 || (e->trailing_comma && e->u.seq.n > 0) ? "," : "");
        break;
    case EM_TS_LIST:
        em_strbuf_printf(sb, "[");
        items(sb, e->u.seq.items, e->u.seq.n, P_IFEXP);
        em_strbuf_printf(sb, "%s]", e->trailing_comma && e->u.seq.n > 0 ? ", " : "");
        break;
    case EM_TS_DICT:
        em_strbuf_printf(sb, "{");
        for (size_t i = 0; i < e->u.dict.n; i++) {
            em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
            expr(sb, e->u.dict.keys[i], P_IFEXP);
            em_strbuf_printf(sb, ": ");
            expr(sb, e->u.dict.values[i], P_IFEXP);
        }
        em_strbuf_printf(sb, "%s}", e->trailing_comma && e->u.dict.n > 0 ? ", " : "");
        break;
    case EM_TS_ATTR: {
        const em_ts_expr *b = e->u.attr.base;
        bool int_base = b->kind == EM_TS_INT && b->parens == 0; /* `1 .x`, not `1.x` */
        if (int_base) {
            em_strbuf_printf(sb, "(");
        }
        expr(sb, b, P_PRIMARY);
        em_strbuf_printf(sb, "%s.%s", int_base ? ")" : "", e->u.attr.name);
        break;
    }
    case EM_TS_CALL:
        call(sb, e);
        break;
    case EM_TS_SUBSCRIPT:
        subscript(sb, e);
        break;
    case EM_TS_SLICE:
        slice(sb, e);
        break;
    case EM_TS_UNARY:
        em_strbuf_printf(sb, "%s", em_ts_op_text(e->u.unary.op));
        em_strbuf_printf(sb, "%s", e->u.unary.op == EM_TS_OP_NOT ? " " : "");
        expr(sb, e->u.unary.operand, e->u.unary.op == EM_TS_OP_NOT ? P_NOT : P_UNARY);
        break;
    case EM_TS_BINARY:
        binary(sb, e);
        break;
    case EM_TS_COMPARE:
        expr(sb, e->u.cmp.operands[0], P_CMP + 1);
        for (size_t i = 0; i < e->u.cmp.n_ops; i++) {
            em_strbuf_printf(sb, " %s ", em_ts_op_text(e->u.cmp.ops[i]));
            expr(sb, e->u.cmp.operands[i + 1], P_CMP + 1);
        }
        break;
    case EM_TS_IFEXP:
        expr(sb, e->u.ifexp.then, P_OR);
        em_strbuf_printf(sb, " if ");
        expr(sb, e->u.ifexp.cond, P_OR);
        em_strbuf_printf(sb, " else ");
        expr(sb, e->u.ifexp.other, P_IFEXP);
        break;
    }
}

static void expr(em_strbuf *sb, const em_ts_expr *e, int min_prec)
{
    int parens = e->parens;
    if (parens == 0 && (prec_of(e) < min_prec || (e->kind == EM_TS_TUPLE && e->u.seq.n == 0))) {
        parens = 1;
    }
    for (int i = 0; i < parens; i++) {
        em_strbuf_printf(sb, "(");
    }
    body(sb, e);
    for (int i = 0; i < parens; i++) {
        em_strbuf_printf(sb, ")");
    }
}

void em_ts_ast_print_expr(em_strbuf *sb, const em_ts_expr *e)
{
    expr(sb, e, P_TUPLE);
}

/* ---- statements ---------------------------------------------------------------------------- */

static void func(em_strbuf *sb, const em_ts_func *f, int level);

static void indent(em_strbuf *sb, int level)
{
    em_strbuf_printf(sb, "%*s", 2 * level, "");
}

static void block(em_strbuf *sb, const em_ts_block *b, int level)
{
    for (size_t i = 0; i < b->n; i++) {
        em_ts_ast_print_stmt(sb, b->stmts[i], level);
    }
    if (b->n == 0) {
        indent(sb, level);
        em_strbuf_printf(sb, "pass\n");
    }
}

static void if_stmt(em_strbuf *sb, const em_ts_stmt *s, int level)
{
    em_strbuf_printf(sb, "%s ", s->u.if_.is_elif ? "elif" : "if");
    expr(sb, s->u.if_.cond, P_IFEXP);
    em_strbuf_printf(sb, ":\n");
    block(sb, &s->u.if_.then, level + 1);
    const em_ts_block *o = &s->u.if_.other;
    if (o->n == 1 && o->stmts[0]->kind == EM_TS_S_IF && o->stmts[0]->u.if_.is_elif) {
        indent(sb, level);
        if_stmt(sb, o->stmts[0], level);
    } else if (o->n > 0) {
        indent(sb, level);
        em_strbuf_printf(sb, "else:\n");
        block(sb, o, level + 1);
    }
}

static void simple(em_strbuf *sb, const em_ts_stmt *s)
{
    switch (s->kind) {
    case EM_TS_S_EXPR:
        expr(sb, s->u.expr, P_TUPLE);
        break;
    case EM_TS_S_ASSIGN:
        for (size_t i = 0; i < s->u.assign.n_targets; i++) {
            expr(sb, s->u.assign.targets[i], P_TUPLE);
            if (i == 0 && s->u.assign.type != NULL) {
                em_strbuf_printf(sb, "%s: ", s->u.assign.spaced_colon ? " " : "");
                expr(sb, s->u.assign.type, P_IFEXP);
            }
            em_strbuf_printf(sb, "%s", s->u.assign.value != NULL ? " = " : "");
        }
        if (s->u.assign.value != NULL) {
            expr(sb, s->u.assign.value, P_TUPLE);
        }
        break;
    case EM_TS_S_AUGASSIGN:
        expr(sb, s->u.aug.target, P_TUPLE);
        em_strbuf_printf(sb, " %s= ", em_ts_op_text(s->u.aug.op));
        expr(sb, s->u.aug.value, P_TUPLE);
        break;
    case EM_TS_S_BREAK:
        em_strbuf_printf(sb, "break");
        break;
    case EM_TS_S_CONTINUE:
        em_strbuf_printf(sb, "continue");
        break;
    case EM_TS_S_PASS:
        em_strbuf_printf(sb, "pass");
        break;
    case EM_TS_S_RETURN:
    case EM_TS_S_RAISE:
        em_strbuf_printf(sb, "%s", s->kind == EM_TS_S_RETURN ? "return" : "raise");
        if (s->u.expr != NULL) {
            em_strbuf_printf(sb, " ");
            expr(sb, s->u.expr, P_TUPLE);
        }
        break;
    case EM_TS_S_ASSERT:
        em_strbuf_printf(sb, "assert ");
        expr(sb, s->u.assert_.test, P_IFEXP);
        if (s->u.assert_.msg != NULL) {
            em_strbuf_printf(sb, ", ");
            expr(sb, s->u.assert_.msg, P_IFEXP);
        }
        break;
    case EM_TS_S_DEL:
        em_strbuf_printf(sb, "del ");
        for (size_t i = 0; i < s->u.del.n; i++) {
            em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
            expr(sb, s->u.del.targets[i], P_BOR);
        }
        break;
    default:
        break;
    }
    em_strbuf_printf(sb, "\n");
}

void em_ts_ast_print_stmt(em_strbuf *sb, const em_ts_stmt *s, int level)
{
    if (s->kind == EM_TS_S_DEF) {
        func(sb, s->u.def, level);
        return;
    }
    indent(sb, level);
    switch (s->kind) {
    case EM_TS_S_IF:
        if_stmt(sb, s, level);
        break;
    case EM_TS_S_FOR:
        em_strbuf_printf(sb, "for ");
        expr(sb, s->u.for_.target, P_TUPLE);
        em_strbuf_printf(sb, " in ");
        expr(sb, s->u.for_.iter, P_TUPLE);
        em_strbuf_printf(sb, ":\n");
        block(sb, &s->u.for_.body, level + 1);
        break;
    case EM_TS_S_WHILE:
        em_strbuf_printf(sb, "while ");
        expr(sb, s->u.while_.cond, P_IFEXP);
        em_strbuf_printf(sb, ":\n");
        block(sb, &s->u.while_.body, level + 1);
        break;
    case EM_TS_S_WITH:
        em_strbuf_printf(sb, "with ");
        for (size_t i = 0; i < s->u.with.n; i++) {
            em_strbuf_printf(sb, "%s", i > 0 ? ", " : "");
            expr(sb, s->u.with.items[i].ctx, P_IFEXP);
            if (s->u.with.items[i].target != NULL) {
                em_strbuf_printf(sb, " as ");
                expr(sb, s->u.with.items[i].target, P_BOR);
            }
        }
        em_strbuf_printf(sb, ":\n");
        block(sb, &s->u.with.body, level + 1);
        break;
    default:
        simple(sb, s);
        break;
    }
}

/* ---- functions, classes, modules ----------------------------------------------------------- */

static void func(em_strbuf *sb, const em_ts_func *f, int level)
{
    indent(sb, level);
    em_strbuf_printf(sb, "def %s(", f->name);
    for (size_t i = 0; i < f->n_params; i++) {
        const em_ts_param *p = &f->params[i];
        em_strbuf_printf(sb, "%s%s", i == 0 ? "" : f->params_multiline ? ",\n    " : ", ", p->name);
        if (p->type != NULL) {
            em_strbuf_printf(sb, ": ");
            expr(sb, p->type, P_IFEXP);
        }
        if (p->def != NULL) {
            em_strbuf_printf(sb, "=");
            expr(sb, p->def, P_IFEXP);
        }
    }
    em_strbuf_printf(sb, ")");
    if (f->ret != NULL) {
        em_strbuf_printf(sb, " -> ");
        expr(sb, f->ret, P_IFEXP);
    }
    em_strbuf_printf(sb, ":\n");
    block(sb, &f->body, level + 1);
}

static const char *base_name(em_ts_class_base b)
{
    switch (b) {
    case EM_TS_BASE_MODULE:
        return "(Module)";
    case EM_TS_BASE_NAMEDTUPLE:
        return "(NamedTuple)";
    case EM_TS_BASE_INTERFACE:
        return "(Interface)";
    case EM_TS_BASE_MODULE_INTERFACE:
        return "(ModuleInterface)";
    case EM_TS_BASE_ENUM:
        return "(Enum)";
    default:
        return "";
    }
}

static void member(em_strbuf *sb, const em_ts_member *m)
{
    if (m->kind == EM_TS_M_METHOD) {
        func(sb, m->method, 1);
        return;
    }
    indent(sb, 1);
    if (m->kind == EM_TS_M_PASS) {
        em_strbuf_printf(sb, "pass\n");
        return;
    }
    if (m->quoted) {
        em_strbuf_printf(sb, "__annotations__[");
        quoted(sb, m->name, strlen(m->name));
        em_strbuf_printf(sb, "] = ");
    } else {
        em_strbuf_printf(sb, "%s %s ", m->name, m->kind == EM_TS_M_VALUE ? "=" : ":");
    }
    expr(sb, m->kind == EM_TS_M_VALUE ? m->value : m->type,
         m->kind == EM_TS_M_VALUE ? P_TUPLE : P_IFEXP);
    if (m->kind == EM_TS_M_CONST) {
        em_strbuf_printf(sb, " = ");
        expr(sb, m->value, P_IFEXP);
    }
    em_strbuf_printf(sb, "\n");
}

void em_ts_ast_print(em_strbuf *sb, const em_ts_module *m)
{
    if (m->has_version) {
        em_strbuf_printf(sb, "op_version_set = %lld\n", (long long)m->op_version_set);
    }
    for (size_t i = 0; i < m->n_decls; i++) {
        const em_ts_decl *d = &m->decls[i];
        if (d->kind == EM_TS_D_IMPORT) {
            em_strbuf_printf(sb, "%s\n", d->u.import_text);
        } else if (d->kind == EM_TS_D_FUNC) {
            func(sb, d->u.func, 0);
        } else {
            em_strbuf_printf(sb, "class %s%s:\n", d->u.cls->name, base_name(d->u.cls->base));
            for (size_t k = 0; k < d->u.cls->n_members; k++) {
                member(sb, &d->u.cls->members[k]);
            }
            if (d->u.cls->n_members == 0) {
                em_strbuf_printf(sb, "  pass\n");
            }
        }
    }
}
