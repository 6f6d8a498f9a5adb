/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Expression parser of the serialized TorchScript code: recursive descent over Python's
 * precedence levels (https://docs.python.org/3/reference/expressions.html#operator-precedence),
 * lowest first: `a if c else b`, or, and, not, comparisons (chained, is/in), |, ^, &, shifts,
 * + -, * / // % @, unary - + ~, ** (right-assoc, binds tighter than a unary on its left),
 * then primaries (calls, subscripts, attributes) on atoms.
 *
 * Depth: every recursive level and every link of a left-associative chain or trailer chain
 * passes em_ts_p_enter, so the recursion and the height of the tree stay under
 * EM_TS_MAX_DEPTH.
 */
#include "ts_parse.h"

#include <math.h>
#include <string.h>

static em_ts_expr *factor(em_ts_parser *p);

/* ---- atoms --------------------------------------------------------------------------------- */

static em_ts_expr *number(em_ts_parser *p, const em_ts_tok *t, const em_ts_tok *minus)
{
    em_ts_expr *e = em_ts_p_node(p, t->kind == EM_TS_T_INT ? EM_TS_INT : EM_TS_FLOAT,
                                 minus != NULL ? minus : t);
    if (e == NULL) {
        return NULL;
    }
    const char *s = p->src->text + t->off;
    size_t n = t->len, sign = minus != NULL;
    char *text = em_ts_ast_alloc(p->a, n + 2);
    if (text == NULL) {
        return em_ts_p_oom(p);
    }
    text[0] = '-';
    memcpy(text + sign, s, n);
    e->u.num.text = text;
    if (t->kind == EM_TS_T_INT) {
        uint64_t u;
        uint64_t limit = (uint64_t)INT64_MAX + sign;
        if (!em_ts_parse_uint(s, n, &u) || u > limit) {
            return em_ts_p_fail(p, t, "integer literal out of the int64 range");
        }
        e->u.num.i = sign ? (int64_t)(0 - u) : (int64_t)u;
        e->u.num.f = (double)e->u.num.i;
    } else if (t->kind == EM_TS_T_NAME) { /* inf, nan */
        e->u.num.f = s[0] == 'i' ? INFINITY : NAN;
        e->u.num.f = sign ? -e->u.num.f : e->u.num.f;
    } else {
        double d;
        if (!em_ts_parse_double(s, n, &d)) {
            return em_ts_p_fail(p, t, "invalid float literal");
        }
        e->u.num.f = sign ? -d : d;
    }
    return e;
}

static bool is_inf_nan(const em_ts_parser *p, const em_ts_tok *t)
{
    const char *s = p->src->text + t->off;
    return t->kind == EM_TS_T_NAME && t->len == 3 &&
           (memcmp(s, "inf", 3) == 0 || memcmp(s, "nan", 3) == 0);
}

/* Adjacent string literals, joined and decoded. */
static em_ts_expr *strings(em_ts_parser *p)
{
    const em_ts_tok *first = em_ts_p_tok(p);
    size_t total = 0, k = p->i;
    for (; k < p->n_toks && p->toks[k].kind == EM_TS_T_STR; k++) {
        total += p->toks[k].len;
    }
    em_ts_expr *e = em_ts_p_node(p, EM_TS_STR, first);
    char *out = em_ts_ast_alloc(p->a, total + 1);
    if (e == NULL || out == NULL) {
        return em_ts_p_oom(p);
    }
    size_t len = 0;
    for (; p->i < k; p->i++) {
        const em_ts_tok *t = &p->toks[p->i];
        const char *s = p->src->text + t->off;
        size_t q = (t->len >= 6 && s[1] == s[0] && s[2] == s[0]) ? 3 : 1, bad = 0;
        size_t got = em_ts_unescape(s + q, t->len - 2 * q, out + len, &bad);
        if (got == (size_t)-1) {
            em_ts_tok at = *t;
            at.col += (int32_t)(q + bad); /* escapes do not span lines, except \<newline> */
            return em_ts_p_fail(p, &at, "invalid escape sequence in string literal");
        }
        len += got;
    }
    out[len] = '\0';
    e->u.str.s = out;
    e->u.str.n = len;
    return e;
}

/* Items of a parenthesized or bracketed sequence up to `close`; the opener was consumed. */
static bool seq_items(em_ts_parser *p, em_ts_expr *e, em_ts_tok_kind close, em_ts_expr *first)
{
    em_ts_vec v = {0};
    if (first != NULL && !em_ts_vec_push_ptr(p, &v, first)) {
        return false;
    }
    while (em_ts_p_tok(p)->kind != close) {
        if (first != NULL || v.n > 0) {
            if (!em_ts_p_expect(p, EM_TS_T_COMMA, "between items")) {
                return false;
            }
            if (em_ts_p_tok(p)->kind == close) {
                e->trailing_comma = true;
                break;
            }
        }
        em_ts_expr *x = em_ts_p_test(p);
        if (x == NULL || !em_ts_vec_push_ptr(p, &v, x)) {
            return false;
        }
        if (em_ts_p_tok(p)->kind == EM_TS_T_FOR) {
            em_ts_p_fail(p, em_ts_p_tok(p),
                         "comprehensions are not supported in serialized TorchScript");
            return false;
        }
    }
    e->u.seq.items = v.data;
    e->u.seq.n = v.n;
    return em_ts_p_expect(p, close, "to close the sequence");
}

static em_ts_expr *paren(em_ts_parser *p, const em_ts_tok *open)
{
    if (em_ts_p_accept(p, EM_TS_T_RPAREN)) {
        em_ts_expr *e = em_ts_p_node(p, EM_TS_TUPLE, open);
        if (e != NULL) {
            e->parens = 1;
        }
        return e;
    }
    em_ts_expr *x = em_ts_p_test(p);
    if (x == NULL) {
        return NULL;
    }
    if (em_ts_p_tok(p)->kind == EM_TS_T_FOR) {
        return em_ts_p_fail(p, em_ts_p_tok(p),
                            "generator expressions are not supported in serialized TorchScript");
    }
    if (em_ts_p_tok(p)->kind != EM_TS_T_COMMA) {
        if (!em_ts_p_expect(p, EM_TS_T_RPAREN, "to close '('")) {
            return NULL;
        }
        x->parens = x->parens < UINT8_MAX ? x->parens + 1 : UINT8_MAX;
        x->pos = em_ts_p_pos(p, open);
        return x;
    }
    em_ts_expr *e = em_ts_p_node(p, EM_TS_TUPLE, open);
    if (e == NULL || !seq_items(p, e, EM_TS_T_RPAREN, x)) {
        return NULL;
    }
    e->parens = 1;
    return e;
}

static em_ts_expr *dict(em_ts_parser *p, const em_ts_tok *open)
{
    em_ts_expr *e = em_ts_p_node(p, EM_TS_DICT, open);
    em_ts_vec keys = {0}, values = {0};
    if (e == NULL) {
        return NULL;
    }
    while (em_ts_p_tok(p)->kind != EM_TS_T_RBRACE) {
        if (keys.n > 0) {
            if (!em_ts_p_expect(p, EM_TS_T_COMMA, "between dict items")) {
                return NULL;
            }
            if (em_ts_p_tok(p)->kind == EM_TS_T_RBRACE) {
                e->trailing_comma = true;
                break;
            }
        }
        em_ts_expr *k = em_ts_p_test(p);
        if (k == NULL) {
            return NULL;
        }
        const em_ts_tok *t = em_ts_p_tok(p);
        if (t->kind == EM_TS_T_FOR) {
            return em_ts_p_fail(p, t, "comprehensions are not supported in serialized TorchScript");
        }
        if (t->kind != EM_TS_T_COLON && keys.n == 0) {
            return em_ts_p_fail(p, t, "sets are not supported in serialized TorchScript");
        }
        if (t->kind != EM_TS_T_COLON) {
            return em_ts_p_fail(p, t, "expected ':' after a dict key, found %s",
                                em_ts_p_describe(p, t));
        }
        p->i++;
        em_ts_expr *v = em_ts_p_test(p);
        if (v == NULL || !em_ts_vec_push_ptr(p, &keys, k) || !em_ts_vec_push_ptr(p, &values, v)) {
            return NULL;
        }
        if (em_ts_p_tok(p)->kind == EM_TS_T_FOR) {
            return em_ts_p_fail(p, em_ts_p_tok(p),
                                "comprehensions are not supported in serialized TorchScript");
        }
    }
    p->i++;
    e->u.dict.keys = keys.data;
    e->u.dict.values = values.data;
    e->u.dict.n = keys.n;
    return e;
}

static em_ts_expr *atom(em_ts_parser *p)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_expr *e;
    switch (t->kind) {
    case EM_TS_T_LPAREN:
        p->i++;
        return paren(p, t);
    case EM_TS_T_LBRACE:
        p->i++;
        return dict(p, t);
    case EM_TS_T_LBRACKET:
        p->i++;
        e = em_ts_p_node(p, EM_TS_LIST, t);
        return e != NULL && seq_items(p, e, EM_TS_T_RBRACKET, NULL) ? e : NULL;
    case EM_TS_T_STR:
        return strings(p);
    case EM_TS_T_INT:
    case EM_TS_T_FLOAT:
        p->i++;
        return number(p, t, NULL);
    case EM_TS_T_NAME:
        p->i++;
        if (is_inf_nan(p, t)) {
            return number(p, t, NULL);
        }
        e = em_ts_p_node(p, EM_TS_NAME, t);
        if (e != NULL && (e->u.name = em_ts_p_text(p, t)) == NULL) {
            return NULL;
        }
        return e;
    case EM_TS_T_TRUE:
    case EM_TS_T_FALSE:
        p->i++;
        e = em_ts_p_node(p, EM_TS_BOOL, t);
        if (e != NULL) {
            e->u.b = t->kind == EM_TS_T_TRUE;
        }
        return e;
    case EM_TS_T_NONE:
        p->i++;
        return em_ts_p_node(p, EM_TS_NONE, t);
    case EM_TS_T_ELLIPSIS:
        p->i++;
        return em_ts_p_node(p, EM_TS_ELLIPSIS, t);
    case EM_TS_T_LAMBDA:
    case EM_TS_T_YIELD:
    case EM_TS_T_AWAIT:
    case EM_TS_T_STAR:
    case EM_TS_T_POW:
        return em_ts_p_fail(p, t, "%s is not supported in serialized TorchScript",
                            em_ts_tok_desc(t->kind));
    default:
        return em_ts_p_fail(p, t, "expected an expression, found %s", em_ts_p_describe(p, t));
    }
}

/* ---- primaries ----------------------------------------------------------------------------- */

static bool call_args(em_ts_parser *p, em_ts_expr *e)
{
    em_ts_vec args = {0}, kwargs = {0};
    while (em_ts_p_tok(p)->kind != EM_TS_T_RPAREN) {
        if (args.n + kwargs.n > 0) {
            if (!em_ts_p_expect(p, EM_TS_T_COMMA, "between arguments")) {
                return false;
            }
            if (em_ts_p_tok(p)->kind == EM_TS_T_RPAREN) {
                e->trailing_comma = true;
                break;
            }
        }
        const em_ts_tok *t = em_ts_p_tok(p);
        if (t->kind == EM_TS_T_STAR || t->kind == EM_TS_T_POW) {
            em_ts_p_fail(p, t, "%s arguments are not supported in serialized TorchScript",
                         em_ts_tok_desc(t->kind));
            return false;
        }
        if (t->kind == EM_TS_T_NAME && em_ts_p_peek(p, 1)->kind == EM_TS_T_ASSIGN) {
            p->i += 2;
            em_ts_kwarg *kw = em_ts_vec_push(p, &kwargs, sizeof *kw);
            if (kw == NULL || (kw->name = em_ts_p_text(p, t)) == NULL ||
                (kw->value = em_ts_p_test(p)) == NULL) {
                return false;
            }
            kw->pos = em_ts_p_pos(p, t);
            continue;
        }
        if (kwargs.n > 0) {
            em_ts_p_fail(p, t, "positional argument follows keyword argument");
            return false;
        }
        em_ts_expr *x = em_ts_p_test(p);
        if (x == NULL || !em_ts_vec_push_ptr(p, &args, x)) {
            return false;
        }
        if (em_ts_p_tok(p)->kind == EM_TS_T_FOR) {
            em_ts_p_fail(p, em_ts_p_tok(p),
                         "generator expressions are not supported in serialized TorchScript");
            return false;
        }
    }
    p->i++;
    e->u.call.args = args.data;
    e->u.call.n_args = args.n;
    e->u.call.kwargs = kwargs.data;
    e->u.call.n_kwargs = kwargs.n;
    return true;
}

/* [lo] ':' [hi] [':' [step]] or a plain test. */
static em_ts_expr *subscript(em_ts_parser *p)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_expr *lo = NULL;
    if (t->kind != EM_TS_T_COLON) {
        lo = em_ts_p_test(p);
        if (lo == NULL || em_ts_p_tok(p)->kind != EM_TS_T_COLON) {
            return lo;
        }
    }
    em_ts_expr *e = em_ts_p_node(p, EM_TS_SLICE, t);
    if (e == NULL) {
        return NULL;
    }
    e->u.slice.lo = lo;
    p->i++; /* ':' */
    em_ts_tok_kind k = em_ts_p_tok(p)->kind;
    if (k != EM_TS_T_COLON && k != EM_TS_T_COMMA && k != EM_TS_T_RBRACKET &&
        (e->u.slice.hi = em_ts_p_test(p)) == NULL) {
        return NULL;
    }
    if (em_ts_p_accept(p, EM_TS_T_COLON)) {
        e->u.slice.has_step_colon = true;
        k = em_ts_p_tok(p)->kind;
        if (k != EM_TS_T_COMMA && k != EM_TS_T_RBRACKET &&
            (e->u.slice.step = em_ts_p_test(p)) == NULL) {
            return NULL;
        }
    }
    return e;
}

static em_ts_expr *subscript_list(em_ts_parser *p, const em_ts_tok *open)
{
    em_ts_expr *first = subscript(p);
    if (first == NULL || em_ts_p_tok(p)->kind != EM_TS_T_COMMA) {
        return first != NULL && em_ts_p_expect(p, EM_TS_T_RBRACKET, "to close '['") ? first : NULL;
    }
    em_ts_expr *e = em_ts_p_node(p, EM_TS_TUPLE, em_ts_p_tok(p));
    em_ts_vec v = {0};
    if (e == NULL || !em_ts_vec_push_ptr(p, &v, first)) {
        return NULL;
    }
    e->pos = first->pos;
    while (em_ts_p_accept(p, EM_TS_T_COMMA)) {
        if (em_ts_p_tok(p)->kind == EM_TS_T_RBRACKET) {
            e->trailing_comma = true;
            break;
        }
        em_ts_expr *x = subscript(p);
        if (x == NULL || !em_ts_vec_push_ptr(p, &v, x)) {
            return NULL;
        }
    }
    (void)open;
    e->u.seq.items = v.data;
    e->u.seq.n = v.n;
    return em_ts_p_expect(p, EM_TS_T_RBRACKET, "to close '['") ? e : NULL;
}

static em_ts_expr *primary(em_ts_parser *p)
{
    em_ts_expr *e = atom(p);
    int chain = 0;
    while (e != NULL) {
        const em_ts_tok *t = em_ts_p_tok(p);
        if (t->kind != EM_TS_T_LPAREN && t->kind != EM_TS_T_LBRACKET && t->kind != EM_TS_T_DOT) {
            break;
        }
        if (!em_ts_p_enter(p, t)) {
            e = NULL;
            break;
        }
        chain++;
        p->i++;
        em_ts_expr *base = e;
        if (t->kind == EM_TS_T_DOT) {
            const em_ts_tok *name = em_ts_p_tok(p);
            if (name->kind != EM_TS_T_NAME) {
                e = em_ts_p_fail(p, name, "expected an attribute name after '.', found %s",
                                 em_ts_p_describe(p, name));
                break;
            }
            p->i++;
            e = em_ts_p_node(p, EM_TS_ATTR, t);
            if (e == NULL || (e->u.attr.name = em_ts_p_text(p, name)) == NULL) {
                e = NULL;
                break;
            }
            e->u.attr.base = base;
            e->u.attr.name_pos = em_ts_p_pos(p, name);
        } else if (t->kind == EM_TS_T_LPAREN) {
            e = em_ts_p_node(p, EM_TS_CALL, t);
            if (e == NULL || !call_args(p, e)) {
                e = NULL;
                break;
            }
            e->u.call.fn = base;
        } else {
            em_ts_expr *index = subscript_list(p, t);
            e = index != NULL ? em_ts_p_node(p, EM_TS_SUBSCRIPT, t) : NULL;
            if (e == NULL) {
                break;
            }
            e->u.sub.base = base;
            e->u.sub.index = index;
        }
        e->pos = base->pos;
    }
    em_ts_p_leave(p, chain);
    return e;
}

/* ---- operators ----------------------------------------------------------------------------- */

static em_ts_expr *unary(em_ts_parser *p, em_ts_op op, const em_ts_tok *t, em_ts_expr *x)
{
    em_ts_expr *e = x != NULL ? em_ts_p_node(p, EM_TS_UNARY, t) : NULL;
    if (e != NULL) {
        e->u.unary.op = op;
        e->u.unary.operand = x;
    }
    return e;
}

static em_ts_expr *binary(em_ts_parser *p, em_ts_op op, em_ts_expr *lhs, em_ts_expr *rhs)
{
    em_ts_expr *e = rhs != NULL ? em_ts_p_node(p, EM_TS_BINARY, em_ts_p_tok(p)) : NULL;
    if (e != NULL) {
        e->pos = lhs->pos;
        e->u.bin.op = op;
        e->u.bin.lhs = lhs;
        e->u.bin.rhs = rhs;
    }
    return e;
}

static em_ts_expr *power(em_ts_parser *p)
{
    em_ts_expr *base = primary(p);
    const em_ts_tok *t = em_ts_p_tok(p);
    if (base == NULL || t->kind != EM_TS_T_POW) {
        return base;
    }
    if (!em_ts_p_enter(p, t)) { /* a ** b ** c nests to the right */
        return NULL;
    }
    p->i++;
    em_ts_expr *e = binary(p, EM_TS_OP_POW, base, factor(p));
    em_ts_p_leave(p, 1);
    return e;
}

static em_ts_expr *factor(em_ts_parser *p)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_op op;
    switch (t->kind) {
    case EM_TS_T_MINUS:
        op = EM_TS_OP_NEG;
        break;
    case EM_TS_T_PLUS:
        op = EM_TS_OP_POS;
        break;
    case EM_TS_T_TILDE:
        op = EM_TS_OP_INVERT;
        break;
    default:
        return power(p);
    }
    const em_ts_tok *lit = em_ts_p_peek(p, 1);
    em_ts_tok_kind after = em_ts_p_peek(p, 2)->kind;
    if (op == EM_TS_OP_NEG &&
        (lit->kind == EM_TS_T_INT || lit->kind == EM_TS_T_FLOAT || is_inf_nan(p, lit)) &&
        after != EM_TS_T_POW && after != EM_TS_T_LPAREN && after != EM_TS_T_LBRACKET &&
        after != EM_TS_T_DOT) {
        p->i += 2;
        return number(p, lit, t);
    }
    if (!em_ts_p_enter(p, t)) {
        return NULL;
    }
    p->i++;
    em_ts_expr *e = unary(p, op, t, factor(p));
    em_ts_p_leave(p, 1);
    return e;
}

/* Binding strength of the binary levels (Python's order); 0: not a binary operator. */
enum {
    PREC_OR = 1,
    PREC_AND,
    PREC_NOT,
    PREC_CMP,
    PREC_BOR,
    PREC_BXOR,
    PREC_BAND,
    PREC_SHIFT,
    PREC_ARITH,
    PREC_TERM
};

static int binop(const em_ts_parser *p, em_ts_op *op)
{
    switch (em_ts_p_tok(p)->kind) {
    case EM_TS_T_OR:
        *op = EM_TS_OP_OR;
        return PREC_OR;
    case EM_TS_T_AND:
        *op = EM_TS_OP_AND;
        return PREC_AND;
    case EM_TS_T_PIPE:
        *op = EM_TS_OP_BITOR;
        return PREC_BOR;
    case EM_TS_T_CARET:
        *op = EM_TS_OP_BITXOR;
        return PREC_BXOR;
    case EM_TS_T_AMP:
        *op = EM_TS_OP_BITAND;
        return PREC_BAND;
    case EM_TS_T_LSHIFT:
        *op = EM_TS_OP_LSHIFT;
        return PREC_SHIFT;
    case EM_TS_T_RSHIFT:
        *op = EM_TS_OP_RSHIFT;
        return PREC_SHIFT;
    case EM_TS_T_PLUS:
        *op = EM_TS_OP_ADD;
        return PREC_ARITH;
    case EM_TS_T_MINUS:
        *op = EM_TS_OP_SUB;
        return PREC_ARITH;
    case EM_TS_T_STAR:
        *op = EM_TS_OP_MUL;
        return PREC_TERM;
    case EM_TS_T_SLASH:
        *op = EM_TS_OP_DIV;
        return PREC_TERM;
    case EM_TS_T_FLOORDIV:
        *op = EM_TS_OP_FLOORDIV;
        return PREC_TERM;
    case EM_TS_T_PERCENT:
        *op = EM_TS_OP_MOD;
        return PREC_TERM;
    case EM_TS_T_AT:
        *op = EM_TS_OP_MATMUL;
        return PREC_TERM;
    case EM_TS_T_LT:
    case EM_TS_T_LE:
    case EM_TS_T_GT:
    case EM_TS_T_GE:
    case EM_TS_T_EQ:
    case EM_TS_T_NE:
    case EM_TS_T_IN:
    case EM_TS_T_IS:
        return PREC_CMP;
    case EM_TS_T_NOT:
        return em_ts_p_peek(p, 1)->kind == EM_TS_T_IN ? PREC_CMP : 0;
    default:
        return 0;
    }
}

/* Consumes a comparison operator (the current token is one: binop() said PREC_CMP). */
static em_ts_op compare_op(em_ts_parser *p)
{
    em_ts_op op;
    switch (em_ts_p_tok(p)->kind) {
    case EM_TS_T_LT:
        op = EM_TS_OP_LT;
        break;
    case EM_TS_T_LE:
        op = EM_TS_OP_LE;
        break;
    case EM_TS_T_GT:
        op = EM_TS_OP_GT;
        break;
    case EM_TS_T_GE:
        op = EM_TS_OP_GE;
        break;
    case EM_TS_T_EQ:
        op = EM_TS_OP_EQ;
        break;
    case EM_TS_T_NE:
        op = EM_TS_OP_NE;
        break;
    case EM_TS_T_IN:
        op = EM_TS_OP_IN;
        break;
    case EM_TS_T_IS:
        op = em_ts_p_peek(p, 1)->kind == EM_TS_T_NOT ? EM_TS_OP_IS_NOT : EM_TS_OP_IS;
        p->i += op == EM_TS_OP_IS_NOT;
        break;
    default:
        op = EM_TS_OP_NOT_IN;
        p->i++;
        break; /* not in */
    }
    p->i++;
    return op;
}

static em_ts_expr *climb(em_ts_parser *p, int min_prec);

/* a < b <= c: one node; `first` is parsed, the current token a comparison operator. */
static em_ts_expr *comparison(em_ts_parser *p, em_ts_expr *first)
{
    em_ts_expr *e = em_ts_p_node(p, EM_TS_COMPARE, em_ts_p_tok(p));
    em_ts_vec operands = {0}, ops = {0};
    em_ts_op dummy;
    if (e == NULL || !em_ts_vec_push_ptr(p, &operands, first)) {
        return NULL;
    }
    e->pos = first->pos;
    do {
        em_ts_op *slot = em_ts_vec_push(p, &ops, sizeof *slot);
        if (slot == NULL) {
            return NULL;
        }
        *slot = compare_op(p);
        em_ts_expr *x = climb(p, PREC_CMP + 1);
        if (x == NULL || !em_ts_vec_push_ptr(p, &operands, x)) {
            return NULL;
        }
    } while (binop(p, &dummy) == PREC_CMP);
    e->u.cmp.operands = operands.data;
    e->u.cmp.ops = ops.data;
    e->u.cmp.n_ops = ops.n;
    return e;
}

/* Operator-precedence climbing over the binary levels at or above `min_prec`. */
static em_ts_expr *climb(em_ts_parser *p, int min_prec)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_expr *e;
    if (t->kind == EM_TS_T_NOT && min_prec <= PREC_NOT) {
        if (!em_ts_p_enter(p, t)) {
            return NULL;
        }
        p->i++;
        e = unary(p, EM_TS_OP_NOT, t, climb(p, PREC_NOT));
        em_ts_p_leave(p, 1);
    } else {
        e = factor(p);
    }
    int chain = 0;
    em_ts_op op;
    for (int prec; e != NULL && (prec = binop(p, &op)) >= min_prec && prec > 0;) {
        if (!em_ts_p_enter(p, em_ts_p_tok(p))) {
            e = NULL;
            break;
        }
        chain++;
        if (prec == PREC_CMP) {
            e = comparison(p, e);
            continue;
        }
        p->i++;
        e = binary(p, op, e, climb(p, prec + 1));
    }
    em_ts_p_leave(p, chain);
    return e;
}

em_ts_expr *em_ts_p_test(em_ts_parser *p)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    if (!em_ts_p_enter(p, t)) {
        return NULL;
    }
    em_ts_expr *e = climb(p, PREC_OR);
    if (e != NULL && em_ts_p_accept(p, EM_TS_T_IF)) {
        em_ts_expr *x = em_ts_p_node(p, EM_TS_IFEXP, t);
        em_ts_expr *cond = x != NULL ? climb(p, PREC_OR) : NULL;
        em_ts_expr *other =
            cond != NULL && em_ts_p_expect(p, EM_TS_T_ELSE, "in a conditional expression")
                ? em_ts_p_test(p)
                : NULL;
        if (other != NULL) {
            x->pos = e->pos;
            x->u.ifexp.then = e;
            x->u.ifexp.cond = cond;
            x->u.ifexp.other = other;
        }
        e = other != NULL ? x : NULL;
    }
    em_ts_p_leave(p, 1);
    return e;
}

/* Whether a token can begin an expression (else a comma before it is a trailing one). */
static bool starts_expr(em_ts_tok_kind k)
{
    switch (k) {
    case EM_TS_T_NAME:
    case EM_TS_T_INT:
    case EM_TS_T_FLOAT:
    case EM_TS_T_STR:
    case EM_TS_T_LPAREN:
    case EM_TS_T_LBRACKET:
    case EM_TS_T_LBRACE:
    case EM_TS_T_MINUS:
    case EM_TS_T_PLUS:
    case EM_TS_T_TILDE:
    case EM_TS_T_NOT:
    case EM_TS_T_TRUE:
    case EM_TS_T_FALSE:
    case EM_TS_T_NONE:
    case EM_TS_T_ELLIPSIS:
    case EM_TS_T_LAMBDA:
    case EM_TS_T_AWAIT:
    case EM_TS_T_YIELD:
    case EM_TS_T_STAR:
        return true;
    default:
        return false;
    }
}

/* item (',' item)* [','] with `item` one of the two element parsers. */
static em_ts_expr *list_of(em_ts_parser *p, bool targets)
{
    const em_ts_tok *t = em_ts_p_tok(p);
    em_ts_expr *first = targets ? climb(p, PREC_BOR) : em_ts_p_test(p);
    if (first == NULL || em_ts_p_tok(p)->kind != EM_TS_T_COMMA) {
        return first;
    }
    em_ts_expr *e = em_ts_p_node(p, EM_TS_TUPLE, t);
    em_ts_vec v = {0};
    if (e == NULL || !em_ts_vec_push_ptr(p, &v, first)) {
        return NULL;
    }
    e->pos = first->pos;
    while (em_ts_p_accept(p, EM_TS_T_COMMA)) {
        if (!starts_expr(em_ts_p_tok(p)->kind)) {
            e->trailing_comma = true;
            break;
        }
        em_ts_expr *x = targets ? climb(p, PREC_BOR) : em_ts_p_test(p);
        if (x == NULL || !em_ts_vec_push_ptr(p, &v, x)) {
            return NULL;
        }
    }
    e->u.seq.items = v.data;
    e->u.seq.n = v.n;
    return e;
}

em_ts_expr *em_ts_p_testlist(em_ts_parser *p)
{
    return list_of(p, false);
}
em_ts_expr *em_ts_p_targetlist(em_ts_parser *p)
{
    return list_of(p, true);
}
em_ts_expr *em_ts_p_target(em_ts_parser *p)
{
    return climb(p, PREC_BOR);
}
