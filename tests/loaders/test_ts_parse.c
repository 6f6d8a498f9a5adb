/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript serialized-code parser (ts_lex.c, ts_parse*.c, ts_ast_print.c):
 *   - every code file of tests/data/torchscript/code (tools/gen_ts_code_fixtures.py: torch 1.13
 *     and 2.x, torchvision classifiers scripted and traced, detection, RNNs, transformer,
 *     quantized, hand-written control flow) parses, prints back byte for byte, and the print
 *     re-parses to the same print;
 *   - nodes of a few fixture files checked exactly (kinds, names, positions found by searching
 *     the text, so a regenerated fixture keeps the test valid);
 *   - snippets: every statement form, precedence and associativity of every operator as
 *     S-expressions, literals and their decoded values;
 *   - (the error corpus with its exact caret messages is in test_ts_errors.c);
 *   - an allocation-failure sweep. Allocations use test_allocator(), so leaks fail the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "alloc.h"
#include "common/test_alloc.h"
#include "loaders/torchscript/ts_ast.h"
#include "status.h"

/* ---- helpers --------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    char *b = test_malloc((size_t)len + 1);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    b[len] = '\0';
    *n = (size_t)len;
    return b;
}

static em_ts_module *parse_ok(em_ts_ast_arena *a, const char *text, const char *file)
{
    em_ts_module *m = NULL;
    ember_status *st = em_ts_parse_file(a, text, strlen(text), file, &m);
    if (st != NULL) {
        print_error("%s\n", ember_status_message(st));
        ember_status_destroy(st);
        fail();
    }
    return m;
}

static char *print_module(const em_ts_module *m)
{
    em_strbuf sb;
    em_strbuf_init(&sb, test_allocator());
    em_ts_ast_print(&sb, m);
    assert_false(sb.failed);
    char *s = test_malloc(sb.len + 1);
    memcpy(s, sb.data != NULL ? sb.data : "", sb.len);
    s[sb.len] = '\0';
    em_strbuf_free(&sb);
    return s;
}

/* An S-expression of the tree: names and spellings, (op a b), (call f a k=v), ([] b i)... */
static void sx(em_strbuf *sb, const em_ts_expr *e)
{
    if (e == NULL) {
        em_strbuf_printf(sb, "_");
        return;
    }
    switch (e->kind) {
    case EM_TS_NAME: em_strbuf_printf(sb, "%s", e->u.name); break;
    case EM_TS_INT:
    case EM_TS_FLOAT: em_strbuf_printf(sb, "%s", e->u.num.text); break;
    case EM_TS_STR: em_strbuf_printf(sb, "'%s'", e->u.str.s); break;
    case EM_TS_BOOL: em_strbuf_printf(sb, "%s", e->u.b ? "True" : "False"); break;
    case EM_TS_NONE: em_strbuf_printf(sb, "None"); break;
    case EM_TS_ELLIPSIS: em_strbuf_printf(sb, "..."); break;
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
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; p++) {
        line += *p == '\n';
    }
    return line;
}

static void assert_pos(em_ts_pos pos, int line, int col)
{
    if (pos.line != line || pos.col != col) {
        print_error("position %d:%d, expected %d:%d\n", (int)pos.line, (int)pos.col, line, col);
        fail();
    }
}

static const char *data_dir(void)
{
    const char *root = getenv("EMBER_TEST_DATA");
    return root != NULL ? root : "tests/data";
}

/* ---- fixtures: parse, print identical, fixed point -------------------------------------- */

typedef struct walk_stats {
    int files;
    size_t bytes;
} walk_stats;

static void round_trip_file(const char *path, walk_stats *ws)
{
    size_t n;
    char *text = read_file(path, &n);
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = NULL;
    ember_status *st = em_ts_parse_file(a, text, n, path, &m);
    if (st != NULL) {
        print_error("%s\n", ember_status_message(st));
        fail();
    }
    char *out = print_module(m);
    if (strlen(out) != n || memcmp(out, text, n) != 0) {
        print_error("%s: printed text differs from the file\n", path);
        fail();
    }
    em_ts_module *m2 = parse_ok(a, out, "reprinted");
    char *out2 = print_module(m2);
    assert_string_equal(out, out2);
    test_free(out2);
    test_free(out);
    em_ts_ast_arena_free(a);
    test_free(text);
    ws->files++;
    ws->bytes += n;
}

static void walk(const char *dir, walk_stats *ws, int depth)
{
    assert_true(depth < 32);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        size_t len = strlen(e->d_name);
        if (S_ISDIR(sb.st_mode)) {
            walk(path, ws, depth + 1);
        } else if (len > 3 && strcmp(e->d_name + len - 3, ".py") == 0) {
            round_trip_file(path, ws);
        }
    }
    closedir(d);
}

static void test_fixtures_round_trip(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/torchscript/code", data_dir());
    walk_stats ws = {0};
    walk(dir, &ws, 0);
    print_message("torchscript code fixtures: %d files, %zu bytes\n", ws.files, ws.bytes);
    assert_true(ws.files >= 1200); /* torch 1.13 and 2.x code folders of 18 models each */
}

/* ---- nodes of fixture files -------------------------------------------------------------- */

static char *fixture(const char *rel, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/torchscript/code/%s", data_dir(), rel);
    return read_file(path, n);
}

static void test_fixture_control_flow(void **state)
{
    (void)state;
    size_t n;
    char *text = fixture("control_flow/__torch__.py", &n);
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = parse_ok(a, text, "__torch__.py");
    assert_false(m->has_version);

    const em_ts_class *c = em_ts_module_class(m, "ControlFlow");
    assert_non_null(c);
    assert_int_equal(c->base, EM_TS_BASE_MODULE);
    assert_pos(c->pos, line_of(text, "class ControlFlow(Module):"), 1);
    assert_int_equal(c->n_parameters, 0);
    assert_int_equal(c->n_buffers, 1);
    assert_string_equal(c->buffers[0], "running");
    const em_ts_member *sizes = em_ts_class_attr(c, "sizes");
    assert_non_null(sizes);
    assert_int_equal(sizes->kind, EM_TS_M_CONST);
    assert_pos(sizes->pos, line_of(text, "  sizes : Final"), 3);
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_ts_ast_print_expr(&sb, sizes->type);
    em_strbuf_printf(&sb, " = ");
    em_ts_ast_print_expr(&sb, sizes->value);
    assert_string_equal(sb.data, "Final[Tuple[int, int, int]] = (1, 2, 3)");
    em_strbuf_free(&sb);
    const em_ts_member *lin = em_ts_class_attr(c, "scaler");
    assert_int_equal(lin->kind, EM_TS_M_ATTR);
    assert_pos(lin->pos, line_of(text, "  scaler : __torch__.Scaler"), 3);
    assert_true(em_ts_expr_is_dotted(lin->type, "__torch__.Scaler"));
    assert_false(em_ts_expr_is_dotted(lin->type, "__torch__.Scale"));
    assert_false(em_ts_expr_is_dotted(lin->type, "__torch__"));
    assert_string_equal(em_ts_expr_dotted(a, lin->type), "__torch__.Scaler");

    /* def forward(self: __torch__.ControlFlow,\n    x: Tensor,\n    n: int=2) -> Tensor: */
    const em_ts_func *fwd = em_ts_class_method(c, "forward");
    int fl = line_of(text, "  def forward(self: __torch__.ControlFlow,");
    assert_pos(fwd->pos, fl, 3);
    assert_true(fwd->params_multiline);
    assert_int_equal(fwd->n_params, 3);
    assert_string_equal(fwd->params[0].name, "self");
    assert_pos(fwd->params[0].pos, fl, 14);
    assert_true(em_ts_expr_is_dotted(fwd->params[0].type, "__torch__.ControlFlow"));
    assert_pos(fwd->params[2].pos, fl + 2, 5);
    assert_int_equal(fwd->params[2].def->kind, EM_TS_INT);
    assert_int_equal(fwd->params[2].def->u.num.i, 2);
    assert_true(em_ts_expr_is_dotted(fwd->ret, "Tensor"));

    /* y, k, = (self).loops(x4, n, ) */
    int ul = line_of(text, "    y, k, = (self).loops(x4, n, )");
    const em_ts_stmt *unpack = NULL;
    for (size_t i = 0; i < fwd->body.n; i++) {
        if (fwd->body.stmts[i]->pos.line == ul) {
            unpack = fwd->body.stmts[i];
        }
    }
    assert_non_null(unpack);
    assert_int_equal(unpack->kind, EM_TS_S_ASSIGN);
    assert_pos(unpack->pos, ul, 5);
    const em_ts_expr *tgt = unpack->u.assign.targets[0], *v = unpack->u.assign.value;
    assert_int_equal(tgt->kind, EM_TS_TUPLE);
    assert_int_equal(tgt->parens, 0);
    assert_true(tgt->trailing_comma);
    assert_int_equal(tgt->u.seq.n, 2);
    assert_pos(tgt->u.seq.items[1]->pos, ul, 8);
    assert_int_equal(v->kind, EM_TS_CALL);
    assert_true(v->trailing_comma);
    assert_pos(v->pos, ul, 16);
    assert_int_equal(v->u.call.n_args, 2);
    assert_pos(v->u.call.args[1]->pos, ul, 35);
    const em_ts_expr *fn = v->u.call.fn;
    assert_int_equal(fn->kind, EM_TS_ATTR);
    assert_string_equal(fn->u.attr.name, "loops");
    assert_pos(fn->u.attr.name_pos, ul, 23);
    assert_int_equal(fn->u.attr.base->parens, 1);
    assert_string_equal(fn->u.attr.base->u.name, "self");

    /* The interface, the Enum, the NamedTuple, the closure of fork. */
    const em_ts_class *iface = em_ts_module_class(m, "Scaler");
    assert_int_equal(iface->base, EM_TS_BASE_MODULE_INTERFACE);
    const em_ts_func *ifwd = em_ts_class_method(iface, "forward");
    assert_false(ifwd->params_multiline);
    assert_null(ifwd->params[0].type);
    assert_int_equal(ifwd->body.stmts[0]->kind, EM_TS_S_PASS);
    const em_ts_class *color = em_ts_module_class(m, "Color");
    assert_int_equal(color->base, EM_TS_BASE_ENUM);
    assert_int_equal(color->n_members, 2);
    assert_int_equal(color->members[1].kind, EM_TS_M_VALUE);
    assert_string_equal(color->members[1].name, "GREEN");
    assert_int_equal(color->members[1].value->u.num.i, 2);
    assert_int_equal(em_ts_module_class(m, "Point")->base, EM_TS_BASE_NAMEDTUPLE);
    assert_int_equal(em_ts_module_class(m, "Counter")->base, EM_TS_BASE_NONE);
    const em_ts_func *forked = em_ts_module_func(m, "forked");
    const em_ts_stmt *def = forked->body.stmts[0];
    assert_int_equal(def->kind, EM_TS_S_DEF);
    assert_string_equal(def->u.def->name, "__forked_function");
    assert_int_equal(def->u.def->n_params, 0);
    assert_null(def->u.def->ret);
    assert_pos(def->pos, line_of(text, "  def __forked_function():"), 3);

    /* helper's string default decodes PythonPrint's escapes. */
    const em_ts_func *helper = em_ts_module_func(m, "helper");
    assert_int_equal(helper->n_params, 7);
    const em_ts_expr *name = helper->params[3].def;
    assert_int_equal(name->kind, EM_TS_STR);
    assert_int_equal(name->u.str.n, 6);
    assert_memory_equal(name->u.str.s, "a'b\"c\n", 6);
    assert_null(em_ts_module_func(m, "nothing"));
    assert_null(em_ts_class_method(c, "nothing"));
    em_ts_ast_arena_free(a);
    test_free(text);
}

static void test_fixture_sequential(void **state)
{
    (void)state;
    size_t n;
    char *text = fixture("control_flow/__torch__/torch/nn/modules/container.py", &n);
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = parse_ok(a, text, "container.py");
    const em_ts_class *seq = em_ts_module_class(m, "Sequential");
    const em_ts_member *zero = em_ts_class_attr(seq, "0");
    assert_non_null(zero);
    assert_true(zero->quoted);
    assert_pos(zero->pos, line_of(text, "  __annotations__[\"0\"] = __torch__.torch.nn.modules.activation.ReLU"), 3);
    assert_true(em_ts_expr_is_dotted(zero->type, "__torch__.torch.nn.modules.activation.ReLU"));
    /* _0 = getattr(self, "0") */
    const em_ts_stmt *s = em_ts_class_method(seq, "forward")->body.stmts[0];
    assert_int_equal(s->kind, EM_TS_S_ASSIGN);
    const em_ts_expr *call = s->u.assign.value;
    assert_true(em_ts_expr_is_dotted(call->u.call.fn, "getattr"));
    assert_int_equal(call->u.call.args[1]->kind, EM_TS_STR);
    assert_string_equal(call->u.call.args[1]->u.str.s, "0");
    em_ts_ast_arena_free(a);
    test_free(text);
}

/* The traced convolutions: input = torch._convolution(x, weight, None, [2, 2], [3, 3], [1, 1],
 * False, [0, 0], 1, False, False, True, True) in every mangled Conv2d file. */
static void check_traced_conv(const char *path)
{
    size_t n;
    char *text = read_file(path, &n);
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = parse_ok(a, text, path);
    const em_ts_class *conv = em_ts_module_class(m, "Conv2d");
    assert_non_null(conv);
    assert_int_equal(conv->n_parameters, 1);
    assert_string_equal(conv->parameters[0], "weight");
    const em_ts_func *fwd = em_ts_class_method(conv, "forward");
    int line = line_of(text, "    input = torch._convolution(");
    const em_ts_stmt *s = NULL;
    for (size_t i = 0; i < fwd->body.n; i++) {
        s = fwd->body.stmts[i]->pos.line == line ? fwd->body.stmts[i] : s;
    }
    assert_non_null(s);
    assert_pos(s->pos, line, 5);
    const em_ts_expr *c = s->u.assign.value;
    assert_int_equal(c->kind, EM_TS_CALL);
    assert_pos(c->pos, line, 13);
    assert_string_equal(em_ts_expr_dotted(a, c->u.call.fn), "torch._convolution");
    assert_int_equal(c->u.call.n_args, 13);
    assert_int_equal(c->u.call.n_kwargs, 0);
    assert_int_equal(c->u.call.args[2]->kind, EM_TS_NONE);
    for (int k = 3; k <= 5; k++) {
        const em_ts_expr *l = c->u.call.args[k];
        assert_int_equal(l->kind, EM_TS_LIST);
        assert_int_equal(l->u.seq.n, 2);
        assert_int_equal(l->u.seq.items[0]->kind, EM_TS_INT);
    }
    assert_int_equal(c->u.call.args[6]->kind, EM_TS_BOOL);
    assert_false(c->u.call.args[6]->u.b);
    assert_int_equal(c->u.call.args[8]->u.num.i, 1);
    assert_true(c->u.call.args[12]->u.b);
    em_ts_ast_arena_free(a);
    test_free(text);
}

static void test_fixture_traced_conv(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/torchscript/code/resnet18_traced/__torch__/torch/nn/modules/conv",
             data_dir());
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] != '.') {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            check_traced_conv(path);
            files++;
        }
    }
    closedir(d);
    assert_true(files >= 2);
}

/* ---- statements ---------------------------------------------------------------------------- */

/* Every statement form, printed back as written. */
static const char stmts_src[] =
    "op_version_set = 7\n"
    "import torch\n"
    "from typing import List\n"
    "class A(Module):\n"
    "  __parameters__ = [\"w\", ]\n"
    "  __buffers__ = []\n"
    "  w : Tensor\n"
    "  __annotations__ = []\n"
    "  __annotations__[\"0\"] = __torch__.B\n"
    "  k : Final[int] = 3\n"
    "  def f(self, x: Tensor, n: int=2) -> Tensor:\n"
    "    return x\n"
    "class E:\n"
    "  pass\n"
    "def g(x: Tensor,\n"
    "    n: int=-2) -> Tuple[Tensor, int]:\n"
    "  a = b = x\n"
    "  c: int = 3\n"
    "  d : List[int] = []\n"
    "  e: int\n"
    "  self.w, t[0], = x, y\n"
    "  [p, q] = r\n"
    "  x += 1\n"
    "  x //= 2\n"
    "  x **= 2\n"
    "  x @= y\n"
    "  x >>= 1\n"
    "  x |= 1\n"
    "  if a:\n"
    "    pass\n"
    "  elif b:\n"
    "    break\n"
    "  elif c:\n"
    "    continue\n"
    "  else:\n"
    "    return\n"
    "  if a:\n"
    "    x = 1\n"
    "  else:\n"
    "    if b:\n"
    "      x = 2\n"
    "  for i, (j, k) in enumerate(z):\n"
    "    del x[0], y\n"
    "  for i in range(3):\n"
    "    pass\n"
    "  while not done:\n"
    "    raise ValueError(\"x\")\n"
    "  with a as b, c:\n"
    "    assert x, \"msg\"\n"
    "  assert y\n"
    "  raise\n"
    "  def inner(y, z=None):\n"
    "    return y\n"
    "  f(x)\n"
    "  return x, n\n";

static void test_statements(void **state)
{
    (void)state;
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = parse_ok(a, stmts_src, "s.py");
    char *out = print_module(m);
    assert_string_equal(out, stmts_src);
    test_free(out);
    assert_true(m->has_version);
    assert_int_equal(m->op_version_set, 7);
    assert_int_equal(m->n_decls, 5);
    assert_int_equal(m->decls[0].kind, EM_TS_D_IMPORT);
    assert_string_equal(m->decls[1].u.import_text, "from typing import List");
    const em_ts_class *c = m->decls[2].u.cls;
    assert_int_equal(c->n_members, 7);
    assert_int_equal(c->n_parameters, 1);
    assert_string_equal(c->parameters[0], "w");
    assert_int_equal(c->members[3].kind, EM_TS_M_VALUE);
    assert_string_equal(c->members[3].name, "__annotations__");
    assert_int_equal(m->decls[3].u.cls->members[0].kind, EM_TS_M_PASS);

    static const em_ts_stmt_kind kinds[] = {
        EM_TS_S_ASSIGN, EM_TS_S_ASSIGN, EM_TS_S_ASSIGN, EM_TS_S_ASSIGN, EM_TS_S_ASSIGN,
        EM_TS_S_ASSIGN, EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN,
        EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN, EM_TS_S_IF, EM_TS_S_IF,
        EM_TS_S_FOR, EM_TS_S_FOR, EM_TS_S_WHILE, EM_TS_S_WITH, EM_TS_S_ASSERT, EM_TS_S_RAISE,
        EM_TS_S_DEF, EM_TS_S_EXPR, EM_TS_S_RETURN};
    const em_ts_func *g = m->decls[4].u.func;
    assert_int_equal(g->n_params, 2);
    assert_int_equal(g->params[1].def->u.num.i, -2);
    assert_int_equal(g->body.n, sizeof kinds / sizeof kinds[0]);
    for (size_t i = 0; i < g->body.n; i++) {
        assert_int_equal(g->body.stmts[i]->kind, kinds[i]);
        assert_int_equal(g->body.stmts[i]->pos.col, 3);
    }
    const em_ts_stmt *const *b = (const em_ts_stmt *const *)g->body.stmts;
    assert_int_equal(b[0]->u.assign.n_targets, 2);
    assert_false(b[1]->u.assign.spaced_colon);
    assert_true(b[2]->u.assign.spaced_colon);
    assert_null(b[3]->u.assign.value);
    assert_int_equal(b[7]->u.aug.op, EM_TS_OP_FLOORDIV);
    assert_int_equal(b[9]->u.aug.op, EM_TS_OP_MATMUL);
    /* if/elif/elif/else nests: the elifs are IFs alone in the else block, marked is_elif. */
    const em_ts_stmt *s = b[12];
    for (int k = 0; k < 2; k++) {
        assert_int_equal(s->u.if_.other.n, 1);
        s = s->u.if_.other.stmts[0];
        assert_true(s->u.if_.is_elif);
    }
    assert_int_equal(s->u.if_.other.stmts[0]->kind, EM_TS_S_RETURN);
    assert_null(s->u.if_.other.stmts[0]->u.expr);
    assert_false(b[13]->u.if_.other.stmts[0]->u.if_.is_elif);
    const em_ts_stmt *del = b[14]->u.for_.body.stmts[0];
    assert_int_equal(del->kind, EM_TS_S_DEL);
    assert_int_equal(del->u.del.n, 2);
    assert_int_equal(b[14]->u.for_.target->kind, EM_TS_TUPLE);
    assert_int_equal(b[17]->u.with.n, 2);
    assert_non_null(b[17]->u.with.items[0].target);
    assert_null(b[17]->u.with.items[1].target);
    assert_null(b[18]->u.assert_.msg);
    assert_null(b[19]->u.expr);
    assert_int_equal(b[22]->u.expr->kind, EM_TS_TUPLE);
    em_ts_ast_arena_free(a);
}

/* Layout the printer normalizes: semicolons, comments, blank lines, odd indents, tabs,
 * continuation lines, \r\n, single-line blocks, elif chains. The print is a fixed point. */
static void test_layout(void **state)
{
    (void)state;
    static const char src[] =
        "# comment\n\n"
        "class A(Module):  # trailing\n"
        "    x : int\n"
        "\n"
        "    def f(self):\n"
        "\t\treturn (1 +\n"
        "       2)\n"
        "def g(): return 1; pass\r\n"
        "def h(a,\n"
        "      b):\n"
        "   x = \\\n"
        "     a\n"
        "   if x: y = 1\n"
        "   else: y = 2\n"
        "   return [a,\n"
        "   # inside\n"
        "   b]\n";
    static const char want[] =
        "class A(Module):\n"
        "  x : int\n"
        "  def f(self):\n"
        "    return (1 + 2)\n"
        "def g():\n"
        "  return 1\n"
        "  pass\n"
        "def h(a,\n"
        "    b):\n"
        "  x = a\n"
        "  if x:\n"
        "    y = 1\n"
        "  else:\n"
        "    y = 2\n"
        "  return [a, b]\n";
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = parse_ok(a, src, "l.py");
    char *out = print_module(m);
    assert_string_equal(out, want);
    em_ts_module *m2 = parse_ok(a, out, "l2.py");
    char *out2 = print_module(m2);
    assert_string_equal(out2, want);
    /* Positions count bytes from 1, tabs included. */
    const em_ts_func *f = em_ts_class_method(m->decls[0].u.cls, "f");
    assert_pos(f->pos, 6, 5);
    assert_pos(f->body.stmts[0]->pos, 7, 3);
    assert_pos(f->body.stmts[0]->u.expr->u.bin.rhs->pos, 8, 8);
    assert_pos(m->decls[2].u.func->body.stmts[0]->u.assign.value->pos, 13, 6);
    test_free(out2);
    test_free(out);
    em_ts_ast_arena_free(a);
}

/* ---- expressions --------------------------------------------------------------------------- */

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
                 {&attr, "(1).real"},   {&pw, "(-2) ** -2"},  {&negnot, "-(not a + b)"},
                 {&tup, "a, b"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        em_strbuf sb;
        em_strbuf_init(&sb, NULL);
        em_ts_ast_print_expr(&sb, cases[i].e);
        assert_string_equal(sb.data, cases[i].want);
        em_strbuf_free(&sb);
    }
}

/* ---- allocation failures ------------------------------------------------------------------- */

static void test_alloc_failures(void **state)
{
    (void)state;
    size_t n;
    char *text = fixture("control_flow/__torch__.py", &n);
    for (long k = 1;; k++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = k;
        em_ts_ast_arena *a = em_ts_ast_arena_new(&ca.al);
        em_ts_module *m = NULL;
        ember_status *st = a != NULL ? em_ts_parse_file(a, text, n, "oom.py", &m) : NULL;
        em_ts_ast_arena_free(a);
        assert_int_equal(atomic_load(&ca.live), 0);
        if (a != NULL && st == NULL) {
            assert_true(k > 3);
            break;
        }
        if (a != NULL) {
            assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
            assert_null(m);
            ember_status_destroy(st);
        }
        assert_true(k < 200);
    }
    test_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_round_trip),
        cmocka_unit_test(test_fixture_control_flow),
        cmocka_unit_test(test_fixture_sequential),
        cmocka_unit_test(test_fixture_traced_conv),
        cmocka_unit_test(test_statements),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_literal_values),
        cmocka_unit_test(test_print_parens),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
