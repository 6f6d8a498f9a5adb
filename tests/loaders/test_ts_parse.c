/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript serialized-code parser (ts_lex.c, ts_parse*.c, ts_ast_print.c):
 *   - every code file of tests/data/torchscript/code (tools/gen_ts_code_fixtures.py: torch 1.13
 *     and 2.x, torchvision classifiers scripted and traced, detection, RNNs, transformer,
 *     quantized, hand-written control flow) parses, prints back byte for byte, and the print
 *     re-parses to the same print;
 *   - nodes of a few fixture files checked exactly (kinds, names, positions found by searching
 *     the text, so a regenerated fixture keeps the test valid);
 *   - snippets: every statement form, layouts the printer normalizes;
 *   - (expressions are in test_ts_expr.c, errors with their caret messages in
 *     test_ts_errors.c);
 *   - an allocation-failure sweep. Allocations use test_allocator(), so leaks fail the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/test_alloc.h"
#include "loaders/torchscript/lang/ts_ast.h"
#include "core/status.h"
#include "ts_test_util.h"

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
    assert_pos(fwd->params[0].pos, fl, 15);
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
    assert_pos(v->pos, ul, 13); /* the callee's first byte: the ( of (self) */
    assert_int_equal(v->u.call.n_args, 2);
    assert_pos(v->u.call.args[1]->pos, ul, 30);
    const em_ts_expr *fn = v->u.call.fn;
    assert_int_equal(fn->kind, EM_TS_ATTR);
    assert_string_equal(fn->u.attr.name, "loops");
    assert_pos(fn->u.attr.name_pos, ul, 20);
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
    assert_non_null(seq);
    const em_ts_member *zero = em_ts_class_attr(seq, "0");
    assert_non_null(zero);
    assert_true(zero->quoted);
    assert_pos(
        zero->pos,
        line_of(text, "  __annotations__[\"0\"] = __torch__.torch.nn.modules.activation.ReLU"), 3);
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
static const char stmts_src[] = "op_version_set = 7\n"
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
        EM_TS_S_ASSIGN,    EM_TS_S_ASSIGN,    EM_TS_S_ASSIGN,    EM_TS_S_ASSIGN,
        EM_TS_S_ASSIGN,    EM_TS_S_ASSIGN,    EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN,
        EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN, EM_TS_S_AUGASSIGN,
        EM_TS_S_IF,        EM_TS_S_IF,        EM_TS_S_FOR,       EM_TS_S_FOR,
        EM_TS_S_WHILE,     EM_TS_S_WITH,      EM_TS_S_ASSERT,    EM_TS_S_RAISE,
        EM_TS_S_DEF,       EM_TS_S_EXPR,      EM_TS_S_RETURN};
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
    static const char src[] = "# comment\n\n"
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
    static const char want[] = "class A(Module):\n"
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
        cmocka_unit_test(test_fixtures_round_trip), cmocka_unit_test(test_fixture_control_flow),
        cmocka_unit_test(test_fixture_sequential),  cmocka_unit_test(test_fixture_traced_conv),
        cmocka_unit_test(test_statements),          cmocka_unit_test(test_layout),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
