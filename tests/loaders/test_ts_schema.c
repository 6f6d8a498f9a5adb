/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript operator schemas (ts_schema.c) and type annotations (ts_type.c):
 *   - every schema torch 1.13 and torch 2.x register (str() of _jit_get_all_schemas, dumped by
 *     tools/gen_ts_code_fixtures.py into tests/data/torchscript/schemas_*.txt) and the
 *     native_functions.yaml spellings that differ from them parse and print back identically;
 *   - fields of chosen schemas checked exactly (names, types, list sizes, aliases, kwarg-only,
 *     defaults of every kind);
 *   - type annotation strings and annotation expressions; errors with their caret messages;
 *   - allocation-failure sweeps. Allocations use test_allocator(), so leaks fail the test.
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
#include "loaders/torchscript/lang/ts_schema.h"
#include "core/status.h"

/* ---- helpers --------------------------------------------------------------------------- */

static em_ts_schema *schema_ok(em_ts_ast_arena *a, const char *s)
{
    em_ts_schema *sc = NULL;
    ember_status *st = em_ts_schema_parse(a, s, strlen(s), "<schema>", &sc);
    if (st != NULL) {
        print_error("%s\n", ember_status_message(st));
        ember_status_destroy(st);
        fail();
    }
    return sc;
}

static const em_ts_schema_arg *arg(const em_ts_schema *sc, const char *name)
{
    int i = em_ts_schema_find_arg(sc, name);
    assert_true(i >= 0);
    return &sc->args[i];
}

/* The type in annotation form ("Optional[List[int]]"). */
static void type_is(const em_ts_type *t, const char *want)
{
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_ts_type_print(&sb, t);
    if (strcmp(sb.data, want) != 0) {
        print_error("type %s, expected %s\n", sb.data, want);
        fail();
    }
    em_strbuf_free(&sb);
}

static void alias_is(const em_ts_alias *al, const char *before, const char *after, bool write)
{
    assert_non_null(al);
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    for (size_t i = 0; i < al->n_before; i++) {
        em_strbuf_printf(&sb, "%s%s", i > 0 ? "|" : "", al->before[i]);
    }
    em_strbuf_printf(&sb, " ->");
    for (size_t i = 0; i < al->n_after; i++) {
        em_strbuf_printf(&sb, "%s%s", i > 0 ? "|" : " ", al->after[i]);
    }
    char want[64];
    snprintf(want, sizeof want, "%s -> %s", before, after);
    assert_string_equal(sb.data, want);
    assert_int_equal(al->write, write);
    em_strbuf_free(&sb);
}

/* Parsing `s` as a schema (or a type) gives INVALID_MODEL with exactly `want`. */
static void expect_parse_error(bool schema, const char *s, const char *want)
{
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_schema *sc = (em_ts_schema *)(uintptr_t)1;
    em_ts_type *t = (em_ts_type *)(uintptr_t)1;
    ember_status *st = schema ? em_ts_schema_parse(a, s, strlen(s), "s", &sc)
                              : em_ts_type_parse(a, s, strlen(s), "ty", &t);
    if (ember_status_code(st) != EMBER_ERR_INVALID_MODEL ||
        strcmp(ember_status_message(st), want) != 0) {
        print_error("%s\n--- gave ---\n%s\n--- expected ---\n%s\n", s, ember_status_message(st),
                    want);
        fail();
    }
    assert_null(schema ? (void *)sc : (void *)t);
    ember_status_destroy(st);
    em_ts_ast_arena_free(a);
}

/* ---- every schema torch knows ---------------------------------------------------------------- */

static int round_trip_file(const char *name)
{
    char path[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(path, sizeof path, "%s/torchscript/%s", root != NULL ? root : "tests/data", name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t len = strlen(line);
        assert_true(len > 0 && line[len - 1] == '\n');
        line[--len] = '\0';
        em_ts_schema *sc = NULL;
        ember_status *st = em_ts_schema_parse(a, line, len, name, &sc);
        if (st != NULL) {
            print_error("%s\n", ember_status_message(st));
            fail();
        }
        em_strbuf sb;
        em_strbuf_init(&sb, test_allocator());
        em_ts_schema_print(&sb, sc);
        if (strcmp(sb.data, line) != 0) {
            print_error("%s\nprints as\n%s\n", line, sb.data);
            fail();
        }
        em_strbuf_free(&sb);
        n++;
        if (n % 512 == 0) { /* keep the arena small */
            em_ts_ast_arena_free(a);
            a = em_ts_ast_arena_new(test_allocator());
        }
    }
    fclose(f);
    em_ts_ast_arena_free(a);
    print_message("%s: %d schemas\n", name, n);
    return n;
}

static void test_all_schemas(void **state)
{
    (void)state;
    assert_true(round_trip_file("schemas_torch1.txt") >= 4000);
    assert_true(round_trip_file("schemas_torch2.txt") >= 500);
    assert_true(round_trip_file("schemas_yaml.txt") >= 200);
}

/* ---- fields ------------------------------------------------------------------------------ */

static void test_conv_add_max(void **state)
{
    (void)state;
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_schema *sc = schema_ok(a, "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
                                    "int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
                                    "int groups=1) -> Tensor");
    assert_string_equal(sc->ns, "aten");
    assert_string_equal(sc->name, "conv2d");
    assert_string_equal(sc->overload, "");
    assert_false(sc->name_only || sc->is_vararg || sc->is_varret);
    assert_int_equal(sc->n_args, 7);
    assert_string_equal(sc->args[0].name, "input");
    type_is(sc->args[0].type, "Tensor");
    assert_null(sc->args[0].def);
    const em_ts_schema_arg *bias = arg(sc, "bias");
    type_is(bias->type, "Optional[Tensor]");
    assert_int_equal(bias->def->kind, EM_TS_DEF_NONE);
    const em_ts_schema_arg *stride = arg(sc, "stride");
    type_is(stride->type, "List[int]");
    assert_int_equal(stride->list_size, 2);
    assert_int_equal(stride->def->kind, EM_TS_DEF_INT_LIST);
    assert_int_equal(stride->def->n, 2);
    assert_int_equal(stride->def->ints[0], 1);
    assert_int_equal(stride->def->ints[1], 1);
    assert_string_equal(stride->def->text, "1");
    assert_int_equal(arg(sc, "padding")->def->ints[1], 0);
    assert_int_equal(arg(sc, "groups")->def->kind, EM_TS_DEF_INT);
    assert_int_equal(arg(sc, "groups")->def->i, 1);
    assert_int_equal(em_ts_schema_find_arg(sc, "nothing"), -1);
    assert_int_equal(sc->n_rets, 1);
    assert_string_equal(sc->rets[0].name, "");
    type_is(sc->rets[0].type, "Tensor");

    sc = schema_ok(a, "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    assert_string_equal(sc->overload, "Tensor");
    assert_false(arg(sc, "other")->kwarg_only);
    const em_ts_schema_arg *alpha = arg(sc, "alpha");
    assert_true(alpha->kwarg_only);
    assert_int_equal(alpha->type->kind, EM_TS_TY_NUMBER);
    assert_int_equal(alpha->def->kind, EM_TS_DEF_INT);
    assert_int_equal(alpha->def->i, 1);

    sc = schema_ok(a, "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> "
                      "(Tensor values, Tensor indices)");
    assert_int_equal(arg(sc, "keepdim")->def->kind, EM_TS_DEF_BOOL);
    assert_false(arg(sc, "keepdim")->def->b);
    assert_int_equal(sc->n_rets, 2);
    assert_string_equal(sc->rets[0].name, "values");
    assert_string_equal(sc->rets[1].name, "indices");

    sc = schema_ok(a, "aten::size.int(Tensor self, int dim) -> int");
    assert_int_equal(sc->rets[0].type->kind, EM_TS_TY_INT);
    sc = schema_ok(a, "prim::NumToTensor.Scalar(Scalar a) -> Tensor");
    assert_string_equal(sc->ns, "prim");
    assert_string_equal(sc->name, "NumToTensor");
    assert_string_equal(sc->overload, "Scalar");
    sc = schema_ok(a, "aten::relu");
    assert_true(sc->name_only);
    assert_string_equal(sc->name, "relu");
    em_ts_ast_arena_free(a);
}

static void test_aliases(void **state)
{
    (void)state;
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_schema *sc = schema_ok(a, "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, "
                                    "Scalar alpha=1) -> Tensor(a!)");
    alias_is(arg(sc, "self")->alias, "a", "a", true);
    assert_true(arg(sc, "self")->is_write);
    assert_null(arg(sc, "other")->alias);
    assert_false(arg(sc, "other")->is_write);
    alias_is(sc->rets[0].alias, "a", "a", true);

    sc = schema_ok(a, "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) "
                      "-> Tensor(a)[]");
    alias_is(arg(sc, "self")->alias, "a", "*", false);
    assert_int_equal(arg(sc, "split_size")->type->kind, EM_TS_TY_SYMINT);
    type_is(sc->rets[0].type, "List[Tensor]");
    assert_null(sc->rets[0].alias);
    alias_is(sc->rets[0].elem_alias, "a", "a", false);

    sc = schema_ok(a, "aten::_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()");
    assert_true(arg(sc, "self")->is_write);
    alias_is(arg(sc, "self")->elem_alias, "a", "a", true);
    assert_null(arg(sc, "self")->alias);
    assert_int_equal(sc->n_rets, 0);

    sc = schema_ok(a, "aten::values.bool(Dict(bool, t) self) -> t[](*)");
    type_is(arg(sc, "self")->type, "Dict[bool, t]");
    type_is(sc->rets[0].type, "List[t]");
    alias_is(sc->rets[0].alias, "*", "*", false);

    sc = schema_ok(a, "foo::bar(Tensor! x, Tensor(a|b! -> b) y, Tensor! z) -> Tensor(a|b)");
    alias_is(arg(sc, "x")->alias, "$0", "$0", true);
    alias_is(arg(sc, "z")->alias, "$1", "$1", true);
    alias_is(arg(sc, "y")->alias, "a|b", "b", true);
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_ts_schema_print(&sb, sc);
    assert_string_equal(sb.data,
                        "foo::bar(Tensor! x, Tensor(a|b! -> b) y, Tensor! z) -> Tensor(a|b)");
    em_strbuf_free(&sb);
    em_ts_ast_arena_free(a);
}

static void test_defaults_and_types(void **state)
{
    (void)state;
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_schema *sc = schema_ok(a, "aten::strip(str self, str chars=\" \\n\\t\\f\\v\") -> str");
    const em_ts_default *d = arg(sc, "chars")->def;
    assert_int_equal(d->kind, EM_TS_DEF_STR);
    assert_int_equal(d->n, 5);
    assert_string_equal(d->s, " \n\t\f\v");
    assert_string_equal(d->text, "\" \\n\\t\\f\\v\"");

    sc = schema_ok(a, "aten::fft_ihfft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2,-1], "
                      "str? norm=None) -> Tensor");
    type_is(arg(sc, "s")->type, "Optional[List[SymInt]]");
    assert_int_equal(arg(sc, "s")->list_size, 1);
    d = arg(sc, "dim")->def;
    assert_int_equal(d->kind, EM_TS_DEF_INT_LIST);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->ints[0], -2);
    assert_int_equal(d->ints[1], -1);

    sc = schema_ok(a, "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? "
                      "weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool "
                      "cudnn_enable=True, float[] w=[1, 2.5], bool[3] m=[True, False, True], "
                      "float p=2, Scalar q=-1.5, float r=-inf, int n=-9223372036854775808) -> "
                      "Tensor");
    d = arg(sc, "eps")->def;
    assert_int_equal(d->kind, EM_TS_DEF_FLOAT);
    assert_true(d->f == 1.0000000000000001e-05);
    assert_true(arg(sc, "cudnn_enable")->def->b);
    d = arg(sc, "w")->def;
    assert_int_equal(d->kind, EM_TS_DEF_FLOAT_LIST);
    assert_true(d->floats[0] == 1.0 && d->floats[1] == 2.5);
    d = arg(sc, "m")->def;
    assert_int_equal(d->kind, EM_TS_DEF_BOOL_LIST);
    assert_true(d->bools[0] && !d->bools[1] && d->bools[2]);
    assert_int_equal(arg(sc, "p")->def->kind, EM_TS_DEF_FLOAT); /* float types read 2 as 2.0 */
    assert_true(arg(sc, "p")->def->f == 2.0);
    assert_true(arg(sc, "q")->def->f == -1.5);
    assert_true(arg(sc, "r")->def->f < -1e308);
    assert_true(arg(sc, "n")->def->i == INT64_MIN);

    sc = schema_ok(a, "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor");
    assert_string_equal(sc->ns, "");
    d = arg(sc, "reduction")->def;
    assert_int_equal(d->kind, EM_TS_DEF_IDENT);
    assert_string_equal(d->s, "Mean");
    sc = schema_ok(a, "randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? "
                      "dtype=long, Layout? layout=None, Device? device=None, bool? "
                      "pin_memory=None, MemoryFormat memory_format=contiguous_format) -> Tensor");
    assert_string_equal(arg(sc, "dtype")->def->s, "long");
    type_is(arg(sc, "dtype")->type, "Optional[ScalarType]");
    type_is(arg(sc, "layout")->type, "Optional[Layout]");
    type_is(arg(sc, "device")->type, "Optional[Device]");
    assert_string_equal(arg(sc, "memory_format")->def->s, "contiguous_format");

    sc = schema_ok(a, "quantized::conv2d.new(Tensor qx, "
                      "__torch__.torch.classes.quantized.Conv2dPackedParamsBase packed_weight, "
                      "float output_scale, int output_zero_point) -> Tensor");
    const em_ts_type *t = arg(sc, "packed_weight")->type;
    assert_int_equal(t->kind, EM_TS_TY_CLASS);
    assert_string_equal(t->name, "__torch__.torch.classes.quantized.Conv2dPackedParamsBase");
    sc = schema_ok(a, "aten::wait(Future(t) self) -> t");
    type_is(arg(sc, "self")->type, "Future[t]");
    assert_int_equal(sc->rets[0].type->kind, EM_TS_TY_VAR);
    sc = schema_ok(a, "aten::items.str(Dict(str, t) self) -> ((str, t)[])");
    type_is(sc->rets[0].type, "List[Tuple[str, t]]");
    sc = schema_ok(a, "prim::Print(...) -> ()");
    assert_true(sc->is_vararg);
    assert_int_equal(sc->n_args, 0);
    sc = schema_ok(a, "static_runtime::VarTupleUnpack(...) -> ...");
    assert_true(sc->is_vararg && sc->is_varret);
    sc = schema_ok(a, "aten::random_.from(Tensor(a!) self, int from, int? to, *, Generator? "
                      "generator=None) -> Tensor(a!)");
    assert_string_equal(sc->args[1].name, "from");
    em_ts_ast_arena_free(a);
}

static void test_schema_errors(void **state)
{
    (void)state;
    expect_parse_error(true, "aten::foo(Foo x) -> Tensor",
                       "s:1:11: unknown type 'Foo'\n"
                       "    aten::foo(Foo x) -> Tensor\n"
                       "              ^");
    expect_parse_error(true, "aten::foo(Tensor x)",
                       "s:1:20: expected '->' after the arguments, found end of line\n"
                       "    aten::foo(Tensor x)\n"
                       "                       ^");
    expect_parse_error(true, "aten::foo(Tensor x",
                       "s:1:10: '(' was never closed\n"
                       "    aten::foo(Tensor x\n"
                       "             ^");
    expect_parse_error(true, "aten::foo(..., Tensor x) -> ()",
                       "s:1:16: '...' must be the last argument\n"
                       "    aten::foo(..., Tensor x) -> ()\n"
                       "                   ^");
    expect_parse_error(true, "aten::foo(int[0] x) -> ()",
                       "s:1:15: expected a list size, found number '0'\n"
                       "    aten::foo(int[0] x) -> ()\n"
                       "                  ^");
    /* a default expands to list-size values: sizes are bounded (a fuzz finding) */
    expect_parse_error(true, "aten::foo(int[1025] x=1) -> ()",
                       "s:1:15: expected a list size, found number '1025'\n"
                       "    aten::foo(int[1025] x=1) -> ()\n"
                       "                  ^");
    expect_parse_error(true, "aten::foo(Dict(str) x) -> ()",
                       "s:1:15: Dict takes 2 types\n"
                       "    aten::foo(Dict(str) x) -> ()\n"
                       "                  ^");
    expect_parse_error(true, "aten::foo(int[] x=[1, 2.5]) -> ()",
                       "s:1:19: a list default of int must hold integers\n"
                       "    aten::foo(int[] x=[1, 2.5]) -> ()\n"
                       "                      ^");
    expect_parse_error(true, "aten::foo(int x=) -> ()",
                       "s:1:17: expected a default value, found ')'\n"
                       "    aten::foo(int x=) -> ()\n"
                       "                    ^");
    expect_parse_error(true, "aten::foo(Tensor(a x)) -> ()",
                       "s:1:20: expected ')' to close the alias annotation, found name 'x'\n"
                       "    aten::foo(Tensor(a x)) -> ()\n"
                       "                       ^");
    expect_parse_error(true, "aten::foo(List x) -> ()",
                       "s:1:11: unknown type 'List' in a schema\n"
                       "    aten::foo(List x) -> ()\n"
                       "              ^");
    expect_parse_error(true, "aten::foo() -> (Tensor, ...) extra",
                       "s:1:30: expected end of line after the schema, found name 'extra'\n"
                       "    aten::foo() -> (Tensor, ...) extra\n"
                       "                                 ^");
    expect_parse_error(true, "",
                       "s:1:1: expected an operator name, found end of file\n    \n    ^");
    /* A NUL in a string default (found by fuzz_ts_schema: it cut the printed default). */
    em_ts_ast_arena *na = em_ts_ast_arena_new(test_allocator());
    em_ts_schema *nsc = NULL;
    static const char nul[] = "a::b(str s=\"\x7f\0L\") -> ()";
    ember_status *nst = em_ts_schema_parse(na, nul, sizeof nul - 1, "s", &nsc);
    assert_string_equal(ember_status_message(nst),
                        "s:1:14: invalid character (byte 0x00) in string\n"
                        "    a::b(str s=\"??L\") -> ()\n"
                        "                 ^");
    ember_status_destroy(nst);
    em_ts_ast_arena_free(na);
    /* Deep types stop at EM_TS_MAX_DEPTH. */
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_strbuf_printf(&sb, "a::b(Tensor");
    for (int i = 0; i < 300; i++) {
        em_strbuf_printf(&sb, "?");
    }
    em_strbuf_printf(&sb, " x) -> ()");
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_schema *sc = NULL;
    ember_status *st = em_ts_schema_parse(a, sb.data, sb.len, "s", &sc);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_true(strncmp(ember_status_message(st), "s:1:211: too deeply nested", 26) == 0);
    ember_status_destroy(st);
    em_strbuf_free(&sb);
    em_ts_ast_arena_free(a);
}

/* ---- type annotations --------------------------------------------------------------------- */

static void test_type_strings(void **state)
{
    (void)state;
    static const char *const same[] = {"Dict[str, Tensor]",
                                       "List[Optional[Tensor]]",
                                       "Tuple[int, List[float]]",
                                       "__torch__.foo.Bar",
                                       "NoneType",
                                       "number",
                                       "Any",
                                       "Device",
                                       "t",
                                       "Tuple[()]",
                                       "Optional[Tuple[int, int]]",
                                       "Union[int, str, NoneType]",
                                       "Future[Tensor]",
                                       "Dict[int, List[__torch__.a.___torch_mangle_3.B]]",
                                       "Storage",
                                       "Await[int]",
                                       "RRef[t1]",
                                       "complex",
                                       "Generator",
                                       "Stream",
                                       "QScheme",
                                       "Capsule",
                                       "AnyClassType",
                                       "SymInt"};
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        em_ts_type *t = NULL;
        ember_status *st = em_ts_type_parse(a, same[i], strlen(same[i]), "ty", &t);
        if (st != NULL) {
            print_error("%s\n", ember_status_message(st));
            fail();
        }
        type_is(t, same[i]);
    }
    static const char *const spelled[][2] = {{"  List[int] ", "List[int]"},
                                             {"None", "NoneType"},
                                             {"Final[int]", "int"},
                                             {"Tuple[int,]", "Tuple[int]"},
                                             {"Optional[\n  int]", "Optional[int]"}};
    for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++) {
        em_ts_type *t = NULL;
        assert_null(em_ts_type_parse(a, spelled[i][0], strlen(spelled[i][0]), "ty", &t));
        type_is(t, spelled[i][1]);
    }
    em_ts_type *t = NULL;
    const char *s = "Dict[str, Tuple[int, __torch__.m.C]]";
    assert_null(em_ts_type_parse(a, s, strlen(s), "ty", &t));
    assert_int_equal(t->kind, EM_TS_TY_DICT);
    assert_int_equal(t->n_items, 2);
    assert_int_equal(em_ts_type_elem(t)->kind, EM_TS_TY_STR);
    const em_ts_type *v = t->items[1];
    assert_int_equal(v->kind, EM_TS_TY_TUPLE);
    assert_int_equal(v->n_items, 2);
    assert_string_equal(v->items[1]->name, "__torch__.m.C");
    em_ts_type *u = NULL;
    assert_null(em_ts_type_parse(a, s, strlen(s), "ty", &u));
    assert_true(em_ts_type_equal(t, u));
    assert_null(em_ts_type_parse(a, "Dict[str, Tuple[int, __torch__.m.D]]", 36, "ty", &u));
    assert_false(em_ts_type_equal(t, u));
    em_ts_type_kind k;
    assert_true(em_ts_type_kind_from_name("Scalar", &k) && k == EM_TS_TY_NUMBER);
    assert_false(em_ts_type_kind_from_name("Foo", &k));
    assert_string_equal(em_ts_type_kind_name(EM_TS_TY_OPTIONAL), "Optional");
    assert_null(em_ts_type_kind_name(EM_TS_TY_CLASS));
    em_ts_ast_arena_free(a);
}

static void test_type_errors(void **state)
{
    (void)state;
    expect_parse_error(false, "Dict[str]",
                       "ty:1:6: Dict takes two types\n    Dict[str]\n         ^");
    expect_parse_error(false, "Foo", "ty:1:1: unknown type 'Foo'\n    Foo\n    ^");
    expect_parse_error(false, "List", "ty:1:1: List needs item types: List[...]\n    List\n    ^");
    expect_parse_error(false, "List[int", "ty:1:5: '[' was never closed\n    List[int\n        ^");
    expect_parse_error(false, "", "ty:1:1: empty type\n    \n    ^");
    expect_parse_error(false, "int int",
                       "ty:1:5: expected end of line after the type, found name 'int'\n"
                       "    int int\n"
                       "        ^");
    expect_parse_error(false, "Tensor[int]",
                       "ty:1:1: expected a generic type (List, Dict, Tuple, Optional, Union, "
                       "Future, RRef, Await, Final) before '['\n"
                       "    Tensor[int]\n"
                       "    ^");
    expect_parse_error(false, "List[1]", "ty:1:6: expected a type\n    List[1]\n         ^");
    expect_parse_error(false, "Tuple[]",
                       "ty:1:7: expected an expression, found ']'\n    Tuple[]\n          ^");
    expect_parse_error(false, "Union[()]", "ty:1:7: Union takes types\n    Union[()]\n          ^");
    expect_parse_error(false, "f(x).y", "ty:1:1: expected a type\n    f(x).y\n    ^");
}

/* Annotations in code convert with positions in the file. */
static void test_type_from_expr(void **state)
{
    (void)state;
    static const char src[] = "def f(x: Optional[List[int]], y: Final[int],\n"
                              "      z: List[1]) -> Tuple[()]:\n"
                              "  pass\n";
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = NULL;
    assert_null(em_ts_parse_file(a, src, sizeof src - 1, "t.py", &m));
    const em_ts_func *f = m->decls[0].u.func;
    em_ts_type *t = NULL;
    assert_null(em_ts_type_from_expr(a, f->params[0].type, &t));
    type_is(t, "Optional[List[int]]");
    assert_null(em_ts_type_from_expr(a, f->params[1].type, &t));
    type_is(t, "int");
    assert_null(em_ts_type_from_expr(a, f->ret, &t));
    type_is(t, "Tuple[()]");
    assert_int_equal(t->n_items, 0);
    ember_status *st = em_ts_type_from_expr(a, f->params[2].type, &t);
    assert_null(t);
    assert_string_equal(ember_status_message(st),
                        "t.py:2:15: expected a type\n          z: List[1]) -> Tuple[()]:\n"
                        "                  ^");
    ember_status_destroy(st);
    em_ts_ast_arena_free(a);
}

/* ---- allocation failures ------------------------------------------------------------------- */

static void test_alloc_failures(void **state)
{
    (void)state;
    static const char sch[] = "aten::conv2d(Tensor(a!)[] input, Tensor? bias=None, int[2] "
                              "stride=1, str s=\"x\", *, float[] f=[1, 2]) -> (Tensor a, int b)";
    static const char ty[] = "Dict[str, Tuple[int, __torch__.m.C]]";
    for (int which = 0; which < 2; which++) {
        for (long k = 1;; k++) {
            counting_alloc ca;
            counting_alloc_init(&ca);
            ca.fail_at = k;
            em_ts_ast_arena *a = em_ts_ast_arena_new(&ca.al);
            ember_status *st = NULL;
            if (a != NULL) {
                em_ts_schema *sc;
                em_ts_type *t;
                st = which == 0 ? em_ts_schema_parse(a, sch, sizeof sch - 1, "s", &sc)
                                : em_ts_type_parse(a, ty, sizeof ty - 1, "t", &t);
            }
            em_ts_ast_arena_free(a);
            assert_int_equal(atomic_load(&ca.live), 0);
            if (a != NULL && st == NULL) {
                break;
            }
            if (st != NULL) {
                assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
                ember_status_destroy(st);
            }
            assert_true(k < 50);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_schemas),    cmocka_unit_test(test_conv_add_max),
        cmocka_unit_test(test_aliases),        cmocka_unit_test(test_defaults_and_types),
        cmocka_unit_test(test_schema_errors),  cmocka_unit_test(test_type_strings),
        cmocka_unit_test(test_type_errors),    cmocka_unit_test(test_type_from_expr),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
