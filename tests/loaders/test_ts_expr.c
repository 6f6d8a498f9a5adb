/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript serialized-code parser, expressions: precedence and associativity of
 * every operator written as S-expressions (and read back from their print), literal values
 * (ints at the int64 edges, float spellings, every string escape), and the parentheses the
 * printer adds to trees built by hand. Allocations use test_allocator(), so leaks fail.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/test_alloc.h"
#include "loaders/torchscript/lang/ts_ast.h"
#include "core/status.h"
#include "ts_test_util.h"

/* ---- helpers --------------------------------------------------------------------------- */

static void sx(em_strbuf *sb, const em_ts_expr *e)
{
    if (e == NULL) {
        em_strbuf_printf(sb, "_");
        return;
    }
    switch (e->kind) {
    case EM_TS_NAME:
        em_strbuf_printf(sb, "%s", e->u.name);
        break;
    case EM_TS_INT:
    case EM_TS_FLOAT:
        em_strbuf_printf(sb, "%s", e->u.num.text);
        break;
    case EM_TS_STR:
        em_strbuf_printf(sb, "'%s'", e->u.str.s);
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
    case EM_TS_LIST:
        em_strbuf_printf(sb, "(%s", e->kind == EM_TS_TUPLE ? "tuple" : "list");
        for (size_t i = 0; i < e->u.seq.n; i++) {
            em_strbuf_printf(sb, " ");
            sx(sb, e->u.seq.items[i]);
        }
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_DICT:
        em_strbuf_printf(sb, "(dict");
        for (size_t i = 0; i < e->u.dict.n; i++) {
            em_strbuf_printf(sb, " ");
            sx(sb, e->u.dict.keys[i]);
            em_strbuf_printf(sb, ":");
            sx(sb, e->u.dict.values[i]);
        }
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_ATTR:
        em_strbuf_printf(sb, "(. ");
        sx(sb, e->u.attr.base);
        em_strbuf_printf(sb, " %s)", e->u.attr.name);
        break;
    case EM_TS_CALL:
        em_strbuf_printf(sb, "(call ");
        sx(sb, e->u.call.fn);
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            em_strbuf_printf(sb, " ");
            sx(sb, e->u.call.args[i]);
        }
        for (size_t i = 0; i < e->u.call.n_kwargs; i++) {
            em_strbuf_printf(sb, " %s=", e->u.call.kwargs[i].name);
            sx(sb, e->u.call.kwargs[i].value);
        }
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_SUBSCRIPT:
        em_strbuf_printf(sb, "([] ");
        sx(sb, e->u.sub.base);
        em_strbuf_printf(sb, " ");
        sx(sb, e->u.sub.index);
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_SLICE:
        em_strbuf_printf(sb, "(: ");
        sx(sb, e->u.slice.lo);
        em_strbuf_printf(sb, " ");
        sx(sb, e->u.slice.hi);
        em_strbuf_printf(sb, " ");
        sx(sb, e->u.slice.step);
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_UNARY:
        em_strbuf_printf(sb, "(%s ", em_ts_op_text(e->u.unary.op));
        sx(sb, e->u.unary.operand);
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_BINARY:
        em_strbuf_printf(sb, "(%s ", em_ts_op_text(e->u.bin.op));
        sx(sb, e->u.bin.lhs);
        em_strbuf_printf(sb, " ");
        sx(sb, e->u.bin.rhs);
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_COMPARE:
        em_strbuf_printf(sb, "(cmp ");
        sx(sb, e->u.cmp.operands[0]);
        for (size_t i = 0; i < e->u.cmp.n_ops; i++) {
            em_strbuf_printf(sb, " %s ", em_ts_op_text(e->u.cmp.ops[i]));
            sx(sb, e->u.cmp.operands[i + 1]);
        }
        em_strbuf_printf(sb, ")");
        break;
    case EM_TS_IFEXP:
        em_strbuf_printf(sb, "(if ");
        sx(sb, e->u.ifexp.cond);
        em_strbuf_printf(sb, " ");
        sx(sb, e->u.ifexp.then);
        em_strbuf_printf(sb, " ");
        sx(sb, e->u.ifexp.other);
        em_strbuf_printf(sb, ")");
        break;
    }
}

/* The expression of `return <src>` inside a function. */
static const em_ts_expr *ret_expr(em_ts_ast_arena *a, const char *src)
{
    char text[1024];
    snprintf(text, sizeof text, "def f():\n  return %s\n", src);
    em_ts_module *m = parse_ok(a, text, "e.py");
    assert_int_equal(m->n_decls, 1);
    const em_ts_stmt *s = m->decls[0].u.func->body.stmts[0];
    assert_int_equal(s->kind, EM_TS_S_RETURN);
    return s->u.expr;
}

/* `src` as an S-expression equals `want`; its print re-parses to the same S-expression. */
static void check_sx(const char *src, const char *want)
{
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    const em_ts_expr *e = ret_expr(a, src);
    em_strbuf sb, pr;
    em_strbuf_init(&sb, NULL);
    em_strbuf_init(&pr, NULL);
    sx(&sb, e);
    if (strcmp(sb.data, want) != 0) {
        print_error("%s\n  got  %s\n  want %s\n", src, sb.data, want);
        fail();
    }
    em_ts_ast_print_expr(&pr, e);
    const em_ts_expr *back = ret_expr(a, pr.data);
    em_strbuf_free(&sb);
    em_strbuf_init(&sb, NULL);
    sx(&sb, back);
    if (strcmp(sb.data, want) != 0) {
        print_error("%s printed as %s reads back as %s\n", src, pr.data, sb.data);
        fail();
    }
    em_strbuf_free(&sb);
    em_strbuf_free(&pr);
    em_ts_ast_arena_free(a);
}

/* 1-based line of the first occurrence of `needle` in `text`. */
static void test_precedence(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"a + b * c", "(+ a (* b c))"},
        {"a * b + c", "(+ (* a b) c)"},
        {"a - b - c", "(- (- a b) c)"},
        {"a - (b - c)", "(- a (- b c))"},
        {"a ** b ** c", "(** a (** b c))"},
        {"(a ** b) ** c", "(** (** a b) c)"},
        {"-a ** b", "(- (** a b))"},
        {"-2 ** 2", "(- (** 2 2))"},
        {"(-2) ** 2", "(** -2 2)"},
        {"2 ** -1", "(** 2 -1)"},
        {"-x.y", "(- (. x y))"},
        {"-5 .real", "(- (. 5 real))"},
        {"- -5", "(- -5)"},
        {"a - -5", "(- a -5)"},
        {"a // b % c @ d / e * f", "(* (/ (@ (% (// a b) c) d) e) f)"},
        {"a << b >> c + d", "(>> (<< a b) (+ c d))"},
        {"a | b ^ c & d", "(| a (^ b (& c d)))"},
        {"a & b | c ^ d", "(| (& a b) (^ c d))"},
        {"~a & -b", "(& (~ a) (- b))"},
        {"+a", "(+ a)"},
        {"a < b <= c == d != e > f >= g", "(cmp a < b <= c == d != e > f >= g)"},
        {"a is b is not c in d not in e", "(cmp a is b is not c in d not in e)"},
        {"a | b < c + d", "(cmp (| a b) < (+ c d))"},
        {"not a == b", "(not (cmp a == b))"},
        {"not not a", "(not (not a))"},
        {"a and b or c and not d", "(or (and a b) (and c (not d)))"},
        {"a or b or c", "(or (or a b) c)"},
        {"a and (b or c)", "(and a (or b c))"},
        {"a if b else c if d else e", "(if b a (if d c e))"},
        {"(a if b else c) if d else e", "(if d (if b a c) e)"},
        {"a or b if c and d else e", "(if (and c d) (or a b) e)"},
        {"f(a, b=1, c=x)", "(call f a b=1 c=x)"},
        {"f(a if b else c, (d, e), g=(h, i))", "(call f (if b a c) (tuple d e) g=(tuple h i))"},
        {"f()", "(call f)"},
        {"(self).forward(x, )", "(call (. self forward) x)"},
        {"torch.add(x, y, alpha=2)", "(call (. torch add) x y alpha=2)"},
        {"ops.prim.NumToTensor(torch.size(x, 0))",
         "(call (. (. ops prim) NumToTensor) (call (. torch size) x 0))"},
        {"x[1:3]", "([] x (: 1 3 _))"},
        {"x[:, 0]", "([] x (tuple (: _ _ _) 0))"},
        {"x[..., None]", "([] x (tuple ... None))"},
        {"x[::2]", "([] x (: _ _ 2))"},
        {"x[1:]", "([] x (: 1 _ _))"},
        {"x[1:-1:2, :3]", "([] x (tuple (: 1 -1 2) (: _ 3 _)))"},
        {"x[a,]", "([] x (tuple a))"},
        {"x[(a, b)]", "([] x (tuple a b))"},
        {"(t)[0]", "([] t 0)"},
        {"x[a][b].c(d)[e]", "([] (call (. ([] ([] x a) b) c) d) e)"},
        {"[1, 2.5, 'a', None, True, False, ...]", "(list 1 2.5 'a' None True False ...)"},
        {"[]", "(list)"},
        {"{'a': 1, 2: b, }", "(dict 'a':1 2:b)"},
        {"{}", "(dict)"},
        {"(a,)", "(tuple a)"},
        {"()", "(tuple)"},
        {"(a, b, )", "(tuple a b)"},
        {"a, b", "(tuple a b)"},
        {"inf", "inf"},
        {"-inf", "-inf"},
        {"-nan", "-nan"},
        {"1.0000000000000001e-05", "1.0000000000000001e-05"},
        {"-1000000000.", "-1000000000."},
        {"1.", "1."},
        {".5", ".5"},
        {"0x1F + 0o17 + 0b101", "(+ (+ 0x1F 0o17) 0b101)"},
        {"1_000", "1_000"},
        {"'a' \"b\" 'c'", "'abc'"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"CONSTANTS.c0", "(. CONSTANTS c0)"},
        {"annotate(List[int], [])", "(call annotate ([] List int) (list))"},
        {"annotate(Dict[str, Tensor], {})", "(call annotate ([] Dict (tuple str Tensor)) (dict))"},
        {"Tuple[()]", "([] Tuple (tuple))"},
        {"isinstance(x, Tensor)", "(call isinstance x Tensor)"},
        {"__torch__.a.B.__new__(__torch__.a.B)",
         "(call (. (. (. __torch__ a) B) __new__) (. (. __torch__ a) B))"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_sx(cases[i][0], cases[i][1]);
    }
}

static void test_literal_values(void **state)
{
    (void)state;
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    const em_ts_expr *e = ret_expr(a, "9.9999999999999998e-13");
    assert_int_equal(e->kind, EM_TS_FLOAT);
    assert_true(e->u.num.f == 9.9999999999999998e-13);
    e = ret_expr(a, "-9223372036854775808");
    assert_int_equal(e->kind, EM_TS_INT);
    assert_true(e->u.num.i == INT64_MIN);
    assert_pos(e->pos, 2, 10);
    e = ret_expr(a, "9223372036854775807");
    assert_true(e->u.num.i == INT64_MAX);
    e = ret_expr(a, "0xff");
    assert_int_equal(e->u.num.i, 255);
    e = ret_expr(a, "-inf");
    assert_true(isinf(e->u.num.f) && e->u.num.f < 0);
    e = ret_expr(a, "nan");
    assert_true(isnan(e->u.num.f));
    e = ret_expr(a, "2e10");
    assert_true(e->kind == EM_TS_FLOAT && e->u.num.f == 2e10);
    e = ret_expr(a, "\"\\x41\\101\\u00e9\\n\\t\\\\\\\"\\'\\000\" '''x\ny'''");
    static const char want[] = "AA\xc3\xa9\n\t\\\"'\0x\ny";
    assert_int_equal(e->u.str.n, sizeof want - 1);
    assert_memory_equal(e->u.str.s, want, sizeof want - 1);
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_ts_ast_print_expr(&sb, e);
    assert_string_equal(sb.data, "\"AA\\303\\251\\n\\t\\\\\\\"\\'\\000x\\ny\"");
    em_strbuf_free(&sb);
    e = ret_expr(a, "True");
    assert_true(e->kind == EM_TS_BOOL && e->u.b);
    em_ts_ast_arena_free(a);
}

/* Trees built by hand (no parentheses recorded) print with the parentheses they need. */
static void test_print_parens(void **state)
{
    (void)state;
    em_ts_expr na = {.kind = EM_TS_NAME, .u.name = "a"}, nb = {.kind = EM_TS_NAME, .u.name = "b"};
    em_ts_expr nc = {.kind = EM_TS_NAME, .u.name = "c"};
    em_ts_expr add = {.kind = EM_TS_BINARY, .u.bin = {EM_TS_OP_ADD, &na, &nb}};
    em_ts_expr mul = {.kind = EM_TS_BINARY, .u.bin = {EM_TS_OP_MUL, &add, &nc}};
    em_ts_expr sub = {.kind = EM_TS_BINARY, .u.bin = {EM_TS_OP_SUB, &nc, &add}};
    em_ts_expr *items[] = {&na, &nb};
    em_ts_expr tup = {.kind = EM_TS_TUPLE, .u.seq = {items, 2}};
    em_ts_expr empty = {.kind = EM_TS_TUPLE};
    em_ts_expr *args[] = {&tup, &empty};
    em_ts_expr call = {.kind = EM_TS_CALL, .u.call = {.fn = &add, .args = args, .n_args = 2}};
    em_ts_expr one = {.kind = EM_TS_INT, .u.num = {.i = 1, .text = "1"}};
    em_ts_expr attr = {.kind = EM_TS_ATTR, .u.attr = {.base = &one, .name = "real"}};
    em_ts_expr neg = {.kind = EM_TS_INT, .u.num = {.i = -2, .text = "-2"}};
    em_ts_expr pw = {.kind = EM_TS_BINARY, .u.bin = {EM_TS_OP_POW, &neg, &neg}};
    em_ts_expr nota = {.kind = EM_TS_UNARY, .u.unary = {EM_TS_OP_NOT, &add}};
    em_ts_expr negnot = {.kind = EM_TS_UNARY, .u.unary = {EM_TS_OP_NEG, &nota}};
    const struct {
        const em_ts_expr *e;
        const char *want;
    } cases[] = {{&mul, "(a + b) * c"}, {&sub, "c - (a + b)"}, {&call, "(a + b)((a, b), ())"},
                 {&attr, "(1).real"},   {&pw, "(-2) ** -2"},   {&negnot, "-(not a + b)"},
                 {&tup, "a, b"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        em_strbuf sb;
        em_strbuf_init(&sb, NULL);
        em_ts_ast_print_expr(&sb, cases[i].e);
        assert_string_equal(sb.data, cases[i].want);
        em_strbuf_free(&sb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_literal_values),
        cmocka_unit_test(test_print_parens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
