/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript serialized-code parser: malformed and unsupported code gives
 * INVALID_MODEL with the exact "file:line:col: message", source line and caret; em_ts_caret's
 * layout (tabs, UTF-8, odd bytes, long lines); depth bounds; truncations of a real file at
 * every byte never crash nor leak. Allocations use test_allocator(), so leaks fail the test.
 */
#define _POSIX_C_SOURCE 200809L
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

/* Parses text[0..n) and returns the error message (test_free it); fails on success. */
static char *parse_error(const char *text, size_t n)
{
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = (em_ts_module *)(uintptr_t)1;
    ember_status *st = em_ts_parse_file(a, text, n, "t.py", &m);
    if (ember_status_code(st) != EMBER_ERR_INVALID_MODEL) {
        print_error("%.*s\ngave %s: %s\n", (int)n, text, ember_code_name(ember_status_code(st)),
                    ember_status_message(st));
        fail();
    }
    assert_null(m);
    const char *msg = ember_status_message(st);
    char *copy = test_malloc(strlen(msg) + 1);
    strcpy(copy, msg);
    ember_status_destroy(st);
    em_ts_ast_arena_free(a);
    return copy;
}

static void expect_error(const char *text, size_t n, const char *want)
{
    char *msg = parse_error(text, n);
    if (strcmp(msg, want) != 0) {
        print_error("%s\n--- gave ---\n%s\n--- expected ---\n%s\n", text, msg, want);
        fail();
    }
    test_free(msg);
}
#define EXPECT_ERROR(text, msg) expect_error(text, sizeof(text) - 1, msg)

/* The first line of the message equals `first`. */
static void expect_first_line(const char *text, size_t n, const char *first)
{
    char *msg = parse_error(text, n);
    char *nl = strchr(msg, '\n');
    if (nl != NULL) {
        *nl = '\0';
    }
    if (strcmp(msg, first) != 0) {
        print_error("gave '%s', expected '%s'\n", msg, first);
        fail();
    }
    test_free(msg);
}

/* ---- layout and indentation ---------------------------------------------------------------- */

static void test_indentation(void **state)
{
    (void)state;
    EXPECT_ERROR("class A(Module):\n  def f(self):\n    return 1\n   x = 2\n",
                 "t.py:4:4: unindent does not match any outer indentation level\n"
                 "       x = 2\n"
                 "       ^");
    EXPECT_ERROR("  def f():\n    pass\n", "t.py:1:3: unexpected indent\n"
                                           "      def f():\n"
                                           "      ^");
    EXPECT_ERROR("def f():\n  x = 1\n    y = 2\n", "t.py:3:5: unexpected indent\n"
                                                   "        y = 2\n"
                                                   "        ^");
    EXPECT_ERROR("def f():\nreturn 1\n", "t.py:2:1: expected an indented block\n"
                                         "    return 1\n"
                                         "    ^");
    EXPECT_ERROR("class A(Module):\n  x : int\n    y : int\n", "t.py:3:5: unexpected indent\n"
                                                               "        y : int\n"
                                                               "        ^");
    EXPECT_ERROR("def f():\n  if x:\n    pass\n  else:\n  pass\n",
                 "t.py:5:3: expected an indented block\n"
                 "      pass\n"
                 "      ^");
    EXPECT_ERROR("def f():\n  else:\n    pass\n", "t.py:2:3: 'else' without a matching 'if'\n"
                                                  "      else:\n"
                                                  "      ^");
    EXPECT_ERROR("def f():\n  x = 1 \\ 2\n",
                 "t.py:2:9: unexpected character after line continuation\n"
                 "      x = 1 \\ 2\n"
                 "            ^");
}

/* ---- strings, brackets, characters ---------------------------------------------------------- */

static void test_tokens(void **state)
{
    (void)state;
    EXPECT_ERROR("def f():\n  return \"abc\n", "t.py:2:10: unterminated string literal\n"
                                               "      return \"abc\n"
                                               "             ^");
    EXPECT_ERROR("def f():\n  return '''abc\n\n", "t.py:2:10: unterminated string literal\n"
                                                  "      return '''abc\n"
                                                  "             ^");
    EXPECT_ERROR("def f():\n  return \"a\\q\"\n",
                 "t.py:2:12: invalid escape sequence in string literal\n"
                 "      return \"a\\q\"\n"
                 "               ^");
    EXPECT_ERROR("def f(x:\n  return [1, 2\n", "t.py:2:10: '[' was never closed\n"
                                               "      return [1, 2\n"
                                               "             ^");
    EXPECT_ERROR("def f():\n  return (1]\n",
                 "t.py:2:12: closing ']' does not match '(' at line 2, column 10\n"
                 "      return (1]\n"
                 "               ^");
    EXPECT_ERROR("def f():\n  return 1)\n", "t.py:2:11: unmatched ')'\n"
                                            "      return 1)\n"
                                            "              ^");
    EXPECT_ERROR("def f():\n  return $x\n", "t.py:2:10: invalid character '$'\n"
                                            "      return $x\n"
                                            "             ^");
    EXPECT_ERROR("def f():\n  return a ? b\n",
                 "t.py:2:12: expected end of line after the statement, found '?'\n"
                 "      return a ? b\n"
                 "               ^");
    EXPECT_ERROR("def f():\n  return `x`\n", "t.py:2:10: invalid character '`'\n"
                                             "      return `x`\n"
                                             "             ^");
    /* UTF-8 is shown as is and takes one column; other odd bytes show as '?'. */
    EXPECT_ERROR("def f():\n  \xc3\xa9 = \x01\n", "t.py:2:3: invalid character (byte 0xc3)\n"
                                                  "      \xc3\xa9 = ?\n"
                                                  "      ^");
    EXPECT_ERROR("def f():\n  x = \"\xc3\xa9\" + \x01\n",
                 "t.py:2:14: invalid character (byte 0x01)\n"
                 "      x = \"\xc3\xa9\" + ?\n"
                 "                ^");
    static const char nul[] = "def f():\n  return \0\n";
    expect_error(nul, sizeof nul - 1,
                 "t.py:2:10: invalid character (byte 0x00)\n"
                 "      return ?\n"
                 "             ^");
    static const char nul_str[] = "def f():\n  return \"a\0\"\n";
    expect_error(nul_str, sizeof nul_str - 1,
                 "t.py:2:12: invalid character (byte 0x00) in string\n"
                 "      return \"a?\"\n"
                 "               ^");
    EXPECT_ERROR("def f():\n  return 9223372036854775808\n",
                 "t.py:2:10: integer literal out of the int64 range\n"
                 "      return 9223372036854775808\n"
                 "             ^");
    EXPECT_ERROR("def f():\n  return 1e+\n",
                 "t.py:2:10: invalid float literal: exponent without digits\n"
                 "      return 1e+\n"
                 "             ^");
    EXPECT_ERROR("def f():\n  return 12abc\n", "t.py:2:12: invalid character in number literal\n"
                                               "      return 12abc\n"
                                               "               ^");
    EXPECT_ERROR("def f():\n  return 0x\n", "t.py:2:10: invalid integer literal\n"
                                            "      return 0x\n"
                                            "             ^");
    EXPECT_ERROR("def f():\n  return 2j\n",
                 "t.py:2:10: complex literals are not supported in serialized TorchScript\n"
                 "      return 2j\n"
                 "             ^");
}

/* ---- syntax ------------------------------------------------------------------------------- */

static void test_syntax(void **state)
{
    (void)state;
    EXPECT_ERROR("x = 1\n", "t.py:1:1: expected 'class' or 'def' at the top level, found name 'x'\n"
                            "    x = 1\n"
                            "    ^");
    EXPECT_ERROR("def f():\n  return a +\n",
                 "t.py:2:13: expected an expression, found end of line\n"
                 "      return a +\n"
                 "                ^");
    EXPECT_ERROR("def f():\n  1 = x\n", "t.py:2:3: cannot assign to this expression\n"
                                        "      1 = x\n"
                                        "      ^");
    EXPECT_ERROR("def f():\n  a, f() = x\n", "t.py:2:6: cannot assign to this expression\n"
                                             "      a, f() = x\n"
                                             "         ^");
    EXPECT_ERROR("def f():\n  f(a=1, b)\n",
                 "t.py:2:10: positional argument follows keyword argument\n"
                 "      f(a=1, b)\n"
                 "             ^");
    EXPECT_ERROR("def f():\n  x: int = y = 2\n",
                 "t.py:2:14: an annotated assignment has one target\n"
                 "      x: int = y = 2\n"
                 "                 ^");
    EXPECT_ERROR("def f():\n  x +=\n", "t.py:2:7: expected an expression, found end of line\n"
                                       "      x +=\n"
                                       "          ^");
    EXPECT_ERROR("def f(x y):\n  pass\n",
                 "t.py:1:9: expected ',' between parameters, found name 'y'\n"
                 "    def f(x y):\n"
                 "            ^");
    EXPECT_ERROR("def (x):\n  pass\n", "t.py:1:5: expected a function name after 'def', found '('\n"
                                       "    def (x):\n"
                                       "        ^");
    EXPECT_ERROR("class A(Module)\n  pass\n",
                 "t.py:1:16: expected ':' after the class name, found end of line\n"
                 "    class A(Module)\n"
                 "                   ^");
    EXPECT_ERROR("class A(Module):\n  x = = 1\n", "t.py:2:7: expected an expression, found '='\n"
                                                  "      x = = 1\n"
                                                  "          ^");
    EXPECT_ERROR("class A(Module):\n  __parameters__ = [\"a\", 1]\n",
                 "t.py:2:26: __parameters__ must be a list of strings\n"
                 "      __parameters__ = [\"a\", 1]\n"
                 "                             ^");
    EXPECT_ERROR("class A(Module):\n  return 1\n",
                 "t.py:2:3: expected an attribute, a constant or a method in class 'A', found "
                 "'return'\n"
                 "      return 1\n"
                 "      ^");
    EXPECT_ERROR("op_version_set = 1\nop_version_set = 2\n",
                 "t.py:2:1: op_version_set is given twice\n"
                 "    op_version_set = 2\n"
                 "    ^");
    EXPECT_ERROR("op_version_set = x\n", "t.py:1:18: op_version_set must be an integer\n"
                                         "    op_version_set = x\n"
                                         "                     ^");
}

static void test_unsupported(void **state)
{
    (void)state;
    EXPECT_ERROR("def f():\n  return lambda x: x\n",
                 "t.py:2:10: 'lambda' is not supported in serialized TorchScript\n"
                 "      return lambda x: x\n"
                 "             ^");
    EXPECT_ERROR("def f():\n  return [x for x in y]\n",
                 "t.py:2:13: comprehensions are not supported in serialized TorchScript\n"
                 "      return [x for x in y]\n"
                 "                ^");
    EXPECT_ERROR("def f():\n  return {k: v for k in y}\n",
                 "t.py:2:16: comprehensions are not supported in serialized TorchScript\n"
                 "      return {k: v for k in y}\n"
                 "                   ^");
    EXPECT_ERROR("def f():\n  return {1, 2}\n",
                 "t.py:2:12: sets are not supported in serialized TorchScript\n"
                 "      return {1, 2}\n"
                 "               ^");
    EXPECT_ERROR("def f():\n  return sum(x for x in y)\n",
                 "t.py:2:16: generator expressions are not supported in serialized TorchScript\n"
                 "      return sum(x for x in y)\n"
                 "                   ^");
    EXPECT_ERROR("def f(*args):\n  pass\n",
                 "t.py:1:7: '*' parameters are not supported in serialized TorchScript\n"
                 "    def f(*args):\n"
                 "          ^");
    EXPECT_ERROR("def f():\n  g(**kw)\n",
                 "t.py:2:5: '**' arguments are not supported in serialized TorchScript\n"
                 "      g(**kw)\n"
                 "        ^");
    EXPECT_ERROR("def f():\n  try:\n    pass\n",
                 "t.py:2:3: 'try' is not supported in serialized TorchScript\n"
                 "      try:\n"
                 "      ^");
    EXPECT_ERROR("def f():\n  global x\n",
                 "t.py:2:3: 'global' is not supported in a serialized TorchScript function\n"
                 "      global x\n"
                 "      ^");
    EXPECT_ERROR("def f():\n  for x in y:\n    pass\n  else:\n    pass\n",
                 "t.py:4:3: 'else' after a loop is not supported in serialized TorchScript\n"
                 "      else:\n"
                 "      ^");
    EXPECT_ERROR("def f():\n  raise E from e\n",
                 "t.py:2:11: 'raise ... from' is not supported in serialized TorchScript\n"
                 "      raise E from e\n"
                 "              ^");
    EXPECT_ERROR("class A(Foo):\n  pass\n",
                 "t.py:1:9: class base name 'Foo' is not supported (Module, NamedTuple, "
                 "Interface, ModuleInterface or Enum)\n"
                 "    class A(Foo):\n"
                 "            ^");
}

/* ---- truncated input ----------------------------------------------------------------------- */

static void test_truncated(void **state)
{
    (void)state;
    EXPECT_ERROR("def f(x", "t.py:1:6: '(' was never closed\n"
                            "    def f(x\n"
                            "         ^");
    EXPECT_ERROR("class A(Module):", "t.py:1:17: expected an indented block\n"
                                     "    class A(Module):\n"
                                     "                    ^");
    EXPECT_ERROR("class A(Module):\n", "t.py:2:1: expected an indented block\n"
                                       "    \n"
                                       "    ^");
    EXPECT_ERROR("def f():\n  return \\",
                 "t.py:2:10: unexpected end of file after line continuation\n"
                 "      return \\\n"
                 "             ^");
    /* An empty file and a file of comments are empty modules. */
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = NULL;
    assert_null(em_ts_parse_file(a, "", 0, "e.py", &m));
    assert_int_equal(m->n_decls, 0);
    assert_null(em_ts_parse_file(a, "# x\n\n  # y\n", 11, "e.py", &m));
    assert_int_equal(m->n_decls, 0);
    em_ts_ast_arena_free(a);
}

/* Every prefix of a real file parses or fails cleanly; never reads past the prefix (the copy
 * has no slack, so ASan would see it). */
static void test_every_prefix(void **state)
{
    (void)state;
    static const char src[] = "class Counter:\n"
                              "  count : int\n"
                              "  names : List[str]\n"
                              "  def bump(self: __torch__.Counter,\n"
                              "    by: int=1) -> int:\n"
                              "    count = self.count\n"
                              "    self.count = torch.add(count, by)\n"
                              "    x = \"a\\'b\\n\" if count > -1.5e-3 else (t)[0:2, ...]\n"
                              "    return self.count\n";
    int ok = 0;
    for (size_t n = 0; n <= sizeof src - 1; n++) {
        char *copy = test_malloc(n > 0 ? n : 1);
        memcpy(copy, src, n);
        em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
        em_ts_module *m = NULL;
        ember_status *st = em_ts_parse_file(a, copy, n, "p.py", &m);
        if (st == NULL) {
            ok++;
        } else {
            assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
            assert_true(strncmp(ember_status_message(st), "p.py:", 5) == 0);
        }
        ember_status_destroy(st);
        em_ts_ast_arena_free(a);
        test_free(copy);
    }
    assert_true(ok > 5);
}

/* ---- depth bounds -------------------------------------------------------------------------- */

static char *repeat(const char *head, const char *unit, int count, const char *mid,
                    const char *tail_unit, const char *tail)
{
    size_t n = strlen(head) + (strlen(unit) + strlen(tail_unit)) * (size_t)count + strlen(mid) +
               strlen(tail) + 1;
    char *s = test_malloc(n);
    strcpy(s, head);
    for (int i = 0; i < count; i++) {
        strcat(s, unit);
    }
    strcat(s, mid);
    for (int i = 0; i < count; i++) {
        strcat(s, tail_unit);
    }
    strcat(s, tail);
    return s;
}

static void test_depth(void **state)
{
    (void)state;
    static const struct {
        const char *head, *unit, *mid, *tail_unit, *tail, *first_line;
        int count;
    } cases[] = {
        {"def f():\n  return ", "(", "x", ")", "\n", "t.py:2:210: too deeply nested brackets", 250},
        {"def f():\n  return ", "[", "x", "]", "\n", "t.py:2:210: too deeply nested brackets", 250},
        {"def f():\n  return ", "-", "x", "", "\n",
         "t.py:2:208: too deeply nested (more than 200 levels)", 300},
        {"def f():\n  return ", "not ", "x", "", "\n",
         "t.py:2:802: too deeply nested (more than 200 levels)", 300},
        {"def f():\n  return x", " + x", "", "", "\n",
         "t.py:2:804: too deeply nested (more than 200 levels)", 300},
        {"def f():\n  return x", ".a", "", "", "\n",
         "t.py:2:407: too deeply nested (more than 200 levels)", 300},
        {"def f():\n  return x", "[0]", "", "", "\n",
         "t.py:2:603: too deeply nested (more than 200 levels)", 300},
        {"def f():\n  return x", " ** x", "", "", "\n",
         "t.py:2:1002: too deeply nested (more than 200 levels)", 300},
        {"def f():\n  return ", "a if b else ", "c", "", "\n",
         "t.py:2:2398: too deeply nested (more than 200 levels)", 300},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = repeat(cases[i].head, cases[i].unit, cases[i].count, cases[i].mid,
                         cases[i].tail_unit, cases[i].tail);
        expect_first_line(s, strlen(s), cases[i].first_line);
        test_free(s);
    }
    /* 150 nested blocks: within the lexer's indentation bound, past the parser's depth. */
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_strbuf_printf(&sb, "def f():\n");
    for (int i = 1; i <= 150; i++) {
        em_strbuf_printf(&sb, "%*sif x:\n", i, "");
    }
    em_strbuf_printf(&sb, "%*spass\n", 151, "");
    expect_first_line(sb.data, sb.len, "t.py:101:104: too deeply nested (more than 200 levels)");
    em_strbuf_free(&sb);
    /* 250 nested blocks: the lexer's bound. */
    em_strbuf_init(&sb, NULL);
    em_strbuf_printf(&sb, "def f():\n");
    for (int i = 1; i <= 250; i++) {
        em_strbuf_printf(&sb, "%*sif x:\n", i, "");
    }
    em_strbuf_printf(&sb, "%*spass\n", 251, "");
    expect_first_line(sb.data, sb.len, "t.py:202:202: too deeply nested blocks");
    em_strbuf_free(&sb);
    /* Wide is fine: 10000 items, 2000 chained statements, 100 nested parens. */
    em_strbuf_init(&sb, NULL);
    em_strbuf_printf(&sb, "def f():\n  x = [");
    for (int i = 0; i < 10000; i++) {
        em_strbuf_printf(&sb, "%d, ", i);
    }
    em_strbuf_printf(&sb, "]\n");
    for (int i = 0; i < 2000; i++) {
        em_strbuf_printf(&sb, "  x%d = torch.add(x, %d)\n", i, i);
    }
    em_strbuf_printf(&sb, "  return %*s1%*s\n", 0, "", 0, "");
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = NULL;
    assert_null(em_ts_parse_file(a, sb.data, sb.len, "w.py", &m));
    assert_int_equal(m->decls[0].u.func->body.n, 2002);
    assert_int_equal(m->decls[0].u.func->body.stmts[0]->u.assign.value->u.seq.n, 10000);
    em_ts_ast_arena_free(a);
    em_strbuf_free(&sb);
    char *deep = repeat("def f():\n  return ", "(", 100, "x", ")", "\n");
    a = em_ts_ast_arena_new(test_allocator());
    assert_null(em_ts_parse_file(a, deep, strlen(deep), "d.py", &m));
    assert_int_equal(m->decls[0].u.func->body.stmts[0]->u.expr->parens, 100);
    em_ts_ast_arena_free(a);
    test_free(deep);
}

/* ---- em_ts_caret --------------------------------------------------------------------------- */

static void caret_is(const char *text, int32_t line, int32_t col, const char *want)
{
    em_strbuf sb;
    em_strbuf_init(&sb, test_allocator());
    em_ts_caret(&sb, "f.py", text, text != NULL ? strlen(text) : 0, line, col, "msg");
    if (strcmp(sb.data, want) != 0) {
        print_error("got\n%s\nexpected\n%s\n", sb.data, want);
        fail();
    }
    em_strbuf_free(&sb);
}

static void test_caret(void **state)
{
    (void)state;
    caret_is("a\n\tx = $\n", 2, 6, "f.py:2:6: msg\n    \tx = $\n    \t    ^");
    caret_is("\xc3\xa9 = $", 1, 6, "f.py:1:6: msg\n    \xc3\xa9 = $\n        ^");
    caret_is("\xff\xfe = $", 1, 6, "f.py:1:6: msg\n    ?? = $\n         ^");
    caret_is("x\r\ny\r\n", 1, 2, "f.py:1:2: msg\n    x\n     ^");
    caret_is("abc", 1, 4, "f.py:1:4: msg\n    abc\n       ^");
    caret_is("abc", 3, 1, "f.py:3:1: msg");
    caret_is(NULL, 1, 1, "f.py:1:1: msg");
    /* A long line is cut to 160 bytes around the column. */
    char line[401];
    for (int i = 0; i < 400; i++) {
        line[i] = (char)('a' + i % 26);
    }
    line[400] = '\0';
    em_strbuf want;
    em_strbuf_init(&want, NULL);
    em_strbuf_printf(&want, "f.py:1:201: msg\n    ...%.160s...\n       %*s^", line + 120, 80, "");
    caret_is(line, 1, 201, want.data);
    em_strbuf_free(&want);
    em_strbuf_init(&want, NULL);
    em_strbuf_printf(&want, "f.py:1:3: msg\n    %.160s...\n      ^", line);
    caret_is(line, 1, 3, want.data);
    em_strbuf_free(&want);
    em_strbuf_init(&want, NULL);
    em_strbuf_printf(&want, "f.py:1:400: msg\n    ...%s\n       %*s^", line + 319, 80, "");
    caret_is(line, 1, 400, want.data);
    em_strbuf_free(&want);

    em_ts_source src = {"s.py", "x = 1\n", 6};
    ember_status *st = em_ts_error_at(EMBER_ERR_UNSUPPORTED, (em_ts_pos){&src, 1, 5},
                                      "op '%s' is not supported", "torch.foo");
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_string_equal(ember_status_message(st),
                        "s.py:1:5: op 'torch.foo' is not supported\n    x = 1\n        ^");
    ember_status_destroy(st);
    st = em_ts_error_at(EMBER_ERR_INVALID_MODEL, (em_ts_pos){NULL, 0, 0}, "no place");
    assert_string_equal(ember_status_message(st), "<code>:0:0: no place");
    ember_status_destroy(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indentation), cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_syntax),      cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_truncated),   cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_depth),       cmocka_unit_test(test_caret),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
