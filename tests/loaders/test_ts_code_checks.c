/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The checks of serialized TorchScript code that torch.jit.load makes (issue #17, item 2):
 * imports, declared return types, attribute declarations against data.pkl, names defined
 * twice, classes that do not exist, method and function calls. The fixtures under
 * tests/data/torchscript/archive/hostile_code are PyTorch 1.13's archive of a small module
 * with its code record (or data.pkl) rewritten (tools/gen_ts_archive_fixtures.py,
 * hostile_code_fixtures(), which also records what torch.jit.load does with each): each must
 * give INVALID_MODEL with one line naming the archive, the code record, the line and column,
 * followed by the source line and a caret. The untouched archive, and one with the
 * `import __torch__...` line (which torch.jit.load skips), must load and compute PyTorch's
 * output.
 * Also em_ts_check_module on text, and archives built here that would take exponential time
 * or deep recursion without the checks' bounds.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "core/alloc.h"
#include "loaders/torchscript/lang/ts_check.h"
#include "ts_archive_test_util.h"

#define REC "code/__torch__/ts_code_base.py:"

static const struct {
    const char *file;
    const char *where; /* "line:col: " after the record's name */
    const char *what;  /* the message after it */
    const char *src;   /* the source line shown under it (trimmed) */
} refused[] = {
    {"from_import.pt", "1:1", "'from ... import' in serialized code: torch.jit.load refuses it, "
     "and torch.jit.save never writes one", "from __torch__ import Sub"},
    {"import_os.pt", "1:1", "'import os': serialized code imports nothing but its own __torch__ "
     "modules", "import os"},
    {"return_int.pt", "31:12", "helper() returns int, but it is declared to return Tensor",
     "return k"},
    {"return_tuple.pt", "31:12", "helper() returns Tuple[Tensor, int], but it is declared to "
     "return Tensor", "return (x, k)"},
    {"return_none_path.pt", "28:3", "helper() is declared to return Tensor, but it does not "
     "return on every path", "def helper(self: __torch__.ts_code_base.CodeBase,"},
    {"return_unused_method.pt", "43:12", "unused() returns float, but it is declared to return "
     "Tensor", "return 1.5"},
    {"return_function.pt", "43:10", "twice() returns List[Tensor], but it is declared to return "
     "Tensor", "return [x]"},
    {"attr_int_holds_tensor.pt", "11:11", "attribute 'table' of class "
     "__torch__.ts_code_base.CodeBase is declared int, but data.pkl gives the root object a "
     "tensor", "table : int"},
    {"attr_tensor_holds_str.pt", "10:10", "attribute 'name' of class "
     "__torch__.ts_code_base.CodeBase is declared Tensor, but data.pkl gives the root object a "
     "str", "name : Tensor"},
    {"attr_listint_holds_float.pt", "9:11", "attribute 'sizes' of class "
     "__torch__.ts_code_base.CodeBase is declared List[int], but data.pkl gives the root object "
     "a float", "sizes : List[int]"},
    {"attr_int_holds_str.pt", "7:7", "attribute 'n' of class __torch__.ts_code_base.CodeBase is "
     "declared int, but data.pkl gives the root object a str", "n : int"},
    {"attr_not_pickled.pt", "11:3", "attribute 'ghost' of class __torch__.ts_code_base.CodeBase "
     "is declared, but data.pkl gives the root object no value for it", "ghost : int"},
    {"buffer_int.pt", "4:11", "buffer 'scale' of class 'CodeBase' is declared int: a parameter "
     "or buffer is a Tensor, Optional[Tensor] or NoneType", "scale : int"},
    {"class_twice.pt", "34:1", "class 'Sub' is defined twice in code/__torch__/ts_code_base.py "
     "(first at line 32)", "class Sub(Module):"},
    {"function_twice.pt", "44:1", "function 'twice' is defined twice in "
     "code/__torch__/ts_code_base.py (first at line 42)", "def twice(x: Tensor) -> Tensor:"},
    {"method_twice.pt", "32:3", "method 'helper' is defined twice in class 'CodeBase' (first at "
     "line 28)", "def helper(self: __torch__.ts_code_base.CodeBase,"},
    {"attr_twice.pt", "11:3", "attribute 'name' is defined twice in class 'CodeBase' (first at "
     "line 10)", "name : str"},
    {"attr_class_missing.pt", "12:9", "__torch__.ts_code_base.Nope: "
     "code/__torch__/ts_code_base.py defines no class or function 'Nope'",
     "sub : __torch__.ts_code_base.Nope"},
    {"param_class_missing.pt", "30:8", "unknown type name '__torch__.nowhere.Nope': no code/ "
     "record defines that class", "k: __torch__.nowhere.Nope) -> Tensor:"},
    {"attr_unknown_type.pt", "7:7", "unknown type name 'integer'", "n : integer"},
    {"call_no_method.pt", "18:17", "class __torch__.ts_code_base.CodeBase has no attribute or "
     "method 'helpr'", "_0 = (self).helpr(y, n, )"},
    {"call_extra_arg.pt", "18:10", "__torch__.ts_code_base.CodeBase.helper() takes 2 arguments, "
     "3 given", "_0 = (self).helper(y, n, n, )"},
    {"call_missing_arg.pt", "18:10", "__torch__.ts_code_base.CodeBase.helper(): argument 'k' is "
     "missing", "_0 = (self).helper(y, )"},
    {"call_arg_type.pt", "18:27", "__torch__.ts_code_base.CodeBase.helper(): argument 'k' is "
     "declared int, but str is given", "_0 = (self).helper(y, \"n\", )"},
    {"call_function_args.pt", "23:10", "__torch__.ts_code_base.twice(): argument 'x' is missing",
     "_2 = __torch__.ts_code_base.twice()"},
};

static ember_model_options *rank1(void)
{
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, 1));
    return mo;
}

/* `msg` is "<path>: <record>:<where>: <what>\n    <src>\n    <spaces>^": three lines. */
static void expect_caret(const char *msg, const char *path, const char *where, const char *what,
                         const char *src)
{
    char first[4096];
    int len = snprintf(first, sizeof first, "%s: " REC "%s: %s\n", path, where, what);
    assert_true(len > 0 && (size_t)len < sizeof first);
    if (strncmp(msg, first, strlen(first)) != 0) {
        fail_msg("got\n%s\nexpected the first line\n%s", msg, first);
    }
    const char *line2 = msg + strlen(first), *nl = strchr(line2, '\n');
    assert_non_null(nl);
    while (*line2 == ' ') {
        line2++;
    }
    if ((size_t)(nl - line2) != strlen(src) || strncmp(line2, src, strlen(src)) != 0) {
        fail_msg("%s: the source line is '%.*s', expected '%s'", path, (int)(nl - line2), line2,
                 src);
    }
    const char *caret = nl + 1;
    assert_null(strchr(caret, '\n'));
    assert_int_equal(caret[strspn(caret, " \t")], '^');
    assert_int_equal(caret[strspn(caret, " \t") + 1], '\0');
}

static void test_refused(void **state)
{
    (void)state;
    ember_model_options *mo = rank1();
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "hostile_code/%s", refused[i].file);
        const char *path = ts_data_path(rel);
        ember_model *m = (ember_model *)(uintptr_t)1;
        ember_status *st = ember_model_load_file(path, mo, &m);
        assert_null(m);
        if (ember_status_code(st) != EMBER_ERR_INVALID_MODEL) {
            fail_msg("%s: %s: %s", refused[i].file, ember_code_name(ember_status_code(st)),
                     ember_status_message(st));
        }
        expect_caret(ember_status_message(st), path, refused[i].where, refused[i].what,
                     refused[i].src);
        ember_status_destroy(st);
    }
    ember_model_options_destroy(mo);
}

/* The archive as torch.jit.save wrote it, and with an `import __torch__...` line, compute
 * PyTorch's output. */
static void test_valid(void **state)
{
    (void)state;
    static const char *const files[] = {"hostile_code/ok_base.pt", "hostile_code/ok_import_torch.pt"};
    ember_tensor *x = NULL, *want = NULL;
    OK(ember_tensor_load(ts_data_path("hostile_code/ok_base.in.npy"), &x));
    OK(ember_tensor_load(ts_data_path("hostile_code/ok_base.out.npy"), &want));
    ember_model_options *mo = rank1();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        ember_model *m = NULL;
        ember_session *s = NULL;
        ember_tensor *y = NULL;
        OK(ember_model_load_file(ts_data_path(files[i]), mo, &m));
        OK(ember_session_create(m, NULL, &s));
        OK(ember_session_run(s, &x, 1, &y, 1));
        assert_int_equal(ember_tensor_elem_count(y), ember_tensor_elem_count(want));
        const float *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
        for (int64_t k = 0; k < ember_tensor_elem_count(want); k++) {
            if (!(fabsf(got[k] - ref[k]) <= 1e-6f * (1.0f + fabsf(ref[k])))) {
                fail_msg("%s: element %lld is %g, PyTorch gives %g", files[i], (long long)k,
                         (double)got[k], (double)ref[k]);
            }
        }
        ember_tensor_destroy(y);
        ember_session_destroy(s);
        ember_model_destroy(m);
    }
    ember_model_options_destroy(mo);
    ember_tensor_destroy(x);
    ember_tensor_destroy(want);
}

/* ---- em_ts_check_module on text ------------------------------------------------------------ */

/* The first line of the check's error for `text` ("" when it passes). */
static void check_text(const char *text, const char *want)
{
    em_ts_ast_arena *a = em_ts_ast_arena_new(test_allocator());
    em_ts_module *m = NULL;
    OK(em_ts_parse_file(a, text, strlen(text), "t.py", &m));
    ember_status *st = em_ts_check_module(a, m);
    const char *msg = st != NULL ? ember_status_message(st) : "";
    size_t n = strcspn(msg, "\n");
    if (strlen(want) != n || strncmp(msg, want, n) != 0 ||
        (st != NULL && ember_status_code(st) != EMBER_ERR_INVALID_MODEL)) {
        fail_msg("%s\ngave '%s', expected '%s'", text, msg, want);
    }
    ember_status_destroy(st);
    em_ts_ast_arena_free(a);
}

static void test_imports(void **state)
{
    (void)state;
    check_text("import __torch__\nimport  __torch__.a.b_c\ndef f() -> int:\n  return 1\n", "");
    check_text("import os\n", "t.py:1:1: 'import os': serialized code imports nothing but its "
               "own __torch__ modules");
    check_text("import __torch__.a as b\n", "t.py:1:1: 'import __torch__.a as b': serialized "
               "code imports nothing but its own __torch__ modules");
    check_text("import __torch__.a, os\n", "t.py:1:1: 'import __torch__.a, os': serialized code "
               "imports nothing but its own __torch__ modules");
    check_text("import __torch__x\n", "t.py:1:1: 'import __torch__x': serialized code imports "
               "nothing but its own __torch__ modules");
    check_text("def f() -> int:\n  return 1\nfrom __torch__ import f\n",
               "t.py:3:1: 'from ... import' in serialized code: torch.jit.load refuses it, and "
               "torch.jit.save never writes one");
}

static void test_names_and_types(void **state)
{
    (void)state;
    check_text("class A:\n  x : int\ndef A() -> int:\n  return 1\n",
               "t.py:3:1: function 'A' is defined twice in t.py (first at line 1)");
    check_text("class A(Module):\n  x : int\n  y : Final[int] = 1\n  x : float\n",
               "t.py:4:3: attribute 'x' is defined twice in class 'A' (first at line 2)");
    check_text("class A(Module):\n  x : Final[int] = 1\n  __annotations__[\"x\"] = Tensor\n",
               "t.py:3:3: attribute 'x' is defined twice in class 'A' (first at line 2)");
    /* a method and an attribute may share a name (torch keeps them apart) */
    check_text("class A(Module):\n  f : int\n  def f(self: __torch__.A) -> int:\n    return 1\n", "");
    check_text("class A(Module):\n  __parameters__ = [\"w\", \"b\", ]\n  w : Tensor\n"
               "  b : Optional[Tensor]\n  __buffers__ = [\"c\", \"d\", ]\n  c : NoneType\n"
               "  d : List[Tensor]\n",
               "t.py:7:7: buffer 'd' of class 'A' is declared List[Tensor]: a parameter or "
               "buffer is a Tensor, Optional[Tensor] or NoneType");
    check_text("class A(Module):\n  x : List[t]\n", "t.py:2:7: unknown type name 't'");
    check_text("def f(x: Tensor, y: Dict[str, foo]) -> int:\n  return 1\n",
               "t.py:1:21: unknown type name 'foo'");
    check_text("def f(x: Tensor) -> Lisst[int]:\n  return 1\n",
               "t.py:1:21: expected a generic type (List, Dict, Tuple, Optional, Union, Future, "
               "RRef, Await, Final) before '['");
}

/* Many names: the checks hash them (a quadratic scan would take minutes here). */
static void test_many_names(void **state)
{
    (void)state;
    const int n = 50000;
    em_strbuf sb;
    em_strbuf_init(&sb, test_allocator());
    em_strbuf_printf(&sb, "class A(Module):\n  __parameters__ = [");
    for (int i = 0; i < n; i++) {
        em_strbuf_printf(&sb, "\"p%d\", ", i);
    }
    em_strbuf_printf(&sb, "]\n");
    for (int i = 0; i < n; i++) {
        em_strbuf_printf(&sb, "  p%d : Tensor\n", i);
    }
    em_strbuf_printf(&sb, "  p17 : Tensor\n");
    assert_false(sb.failed);
    char want[128];
    snprintf(want, sizeof want, "t.py:%d:3: attribute 'p17' is defined twice in class 'A' "
             "(first at line 20)", n + 3);
    check_text(sb.data, want);
    em_strbuf_free(&sb);
}

/* ---- archives built here ------------------------------------------------------------------- */

typedef struct zip_rec {
    const char *name;
    const void *data;
    size_t n;
} zip_rec;

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

/* A zip of stored records "archive/<name>"; test_free it. */
static unsigned char *make_zip(const zip_rec *r, size_t n, size_t *size)
{
    size_t cap = 1024;
    for (size_t i = 0; i < n; i++) {
        cap += 2 * (strlen(r[i].name) + 8) + r[i].n + 128;
    }
    unsigned char *z = test_malloc(cap), *p = z;
    size_t *offs = test_malloc(n * sizeof *offs);
#define B(v, k)                                                                                  \
    do {                                                                                         \
        for (int b_ = 0; b_ < (k); b_++) {                                                       \
            *p++ = (unsigned char)(((uint64_t)(v) >> (8 * b_)) & 0xff);                          \
        }                                                                                        \
    } while (0)
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(r[i].name) + 8;
        uint32_t crc = crc32_of(r[i].data, r[i].n);
        offs[i] = (size_t)(p - z);
        B(0x04034b50u, 4); B(20, 2); B(0, 2); B(0, 2); B(0, 2); B(0x21, 2); B(crc, 4);
        B(r[i].n, 4); B(r[i].n, 4); B(len, 2); B(0, 2);
        memcpy(p, "archive/", 8);
        memcpy(p + 8, r[i].name, len - 8);
        p += len;
        memcpy(p, r[i].data, r[i].n);
        p += r[i].n;
    }
    size_t cd = (size_t)(p - z);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(r[i].name) + 8;
        uint32_t crc = crc32_of(r[i].data, r[i].n);
        B(0x02014b50u, 4); B(20, 2); B(20, 2); B(0, 2); B(0, 2); B(0, 2); B(0x21, 2);
        B(crc, 4); B(r[i].n, 4); B(r[i].n, 4); B(len, 2); B(0, 2); B(0, 2); B(0, 2); B(0, 2);
        B(0, 4); B(offs[i], 4);
        memcpy(p, "archive/", 8);
        memcpy(p + 8, r[i].name, len - 8);
        p += len;
    }
    size_t cd_size = (size_t)(p - z) - cd;
    B(0x06054b50u, 4); B(0, 2); B(0, 2); B(n, 2); B(n, 2); B(cd_size, 4); B(cd, 4); B(0, 2);
#undef B
    test_free(offs);
    *size = (size_t)(p - z);
    assert_true(*size <= cap);
    return z;
}

/* Loads an archive of code/__torch__.py = `code` and data.pkl = `pkl` (pkl_n bytes); returns
 * the status (the model, when it loads, is destroyed). */
static ember_status *load_archive(const char *code, const void *pkl, size_t pkl_n)
{
    static const char consts[] = "\x80\x02)q\x00.";
    const zip_rec recs[] = {{"data.pkl", pkl, pkl_n},
                            {"code/__torch__.py", code, strlen(code)},
                            {"constants.pkl", consts, sizeof consts - 1},
                            {"version", "3\n", 2}};
    size_t size = 0;
    unsigned char *z = make_zip(recs, 4, &size);
    ember_model_options *mo = rank1();
    ember_model *m = NULL;
    ember_status *st = ember_model_load_memory(z, size, 0, mo, &m);
    ember_model_options_destroy(mo);
    ember_model_destroy(m);
    test_free(z);
    return st;
}

/* data.pkl of a __torch__.M holding `attrs` (pickle bytes of key/value pairs). */
static unsigned char *module_pkl(const unsigned char *attrs, size_t n, size_t *size)
{
    static const char head[] = "\x80\x02" "c__torch__\nM\n" ")\x81}(";
    static const char tail[] = "ub.";
    *size = sizeof head - 1 + n + sizeof tail - 1;
    unsigned char *p = test_malloc(*size);
    memcpy(p, head, sizeof head - 1);
    memcpy(p + sizeof head - 1, attrs, n);
    memcpy(p + sizeof head - 1 + n, tail, sizeof tail - 1);
    return p;
}

static const char M_HEAD[] = "class M(Module):\n  __parameters__ = []\n  __buffers__ = []\n"
                             "  training : bool\n";
static const unsigned char TRAINING[] = "X\x08\x00\x00\x00training\x88";

/* M with `deep : List[List[...[elem]...]]` (40 levels). */
static void deep_code(em_strbuf *code, const char *elem)
{
    em_strbuf_init(code, test_allocator());
    em_strbuf_printf(code, "%s  deep : ", M_HEAD);
    for (int i = 0; i < 40; i++) {
        em_strbuf_printf(code, "List[");
    }
    em_strbuf_printf(code, "%s", elem);
    for (int i = 0; i < 40; i++) {
        em_strbuf_printf(code, "]");
    }
    em_strbuf_printf(code, "\n  def forward(self: __torch__.M, x: Tensor) -> Tensor:\n"
                           "    return x\n");
    assert_false(code->failed);
}

/* A value shared by 2 lists at each of 40 levels: 2^40 paths, each list checked once. */
static void test_shared_values(void **state)
{
    (void)state;
    /* "deep": ](K1 K2 e q0, then ]( h(i-1) h(i-1) e q(i) */
    unsigned char attrs[1024], *p = attrs;
    memcpy(p, TRAINING, sizeof TRAINING - 1);
    p += sizeof TRAINING - 1;
    static const char key[] = "X\x04\x00\x00\x00" "deep";
    memcpy(p, key, sizeof key - 1);
    p += sizeof key - 1;
    static const char level0[] = "](K\x01K\x02" "eq\x00" "0"; /* ... POP: memo 0 keeps it */
    memcpy(p, level0, sizeof level0 - 1);
    p += sizeof level0 - 1;
    for (int i = 1; i < 40; i++) {
        unsigned char lv[] = {']', '(', 'h', (unsigned char)(i - 1), 'h', (unsigned char)(i - 1),
                              'e', 'q', (unsigned char)i, '0'};
        size_t k = i < 39 ? sizeof lv : sizeof lv - 1; /* the last stays: deep's value */
        memcpy(p, lv, k);
        p += k;
    }
    size_t n = 0;
    unsigned char *pkl = module_pkl(attrs, (size_t)(p - attrs), &n);
    em_strbuf code;
    deep_code(&code, "int");
    OK(load_archive(code.data, pkl, n));
    em_strbuf_free(&code);
    deep_code(&code, "float"); /* the ints at the bottom contradict it */
    ts_expect(load_archive(code.data, pkl, n), EMBER_ERR_INVALID_MODEL,
              "code/__torch__.py:5:10: attribute 'deep' of class __torch__.M is declared "
              "List[List[", "data.pkl gives the root object a list holding an int\n");
    em_strbuf_free(&code);
    test_free(pkl);
}

/* 100000 objects sharing one attribute dict of a class with 300 attributes: checked once. */
static void test_shared_state(void **state)
{
    (void)state;
    const int n_attr = 300, n_obj = 100000;
    em_strbuf code;
    em_strbuf_init(&code, test_allocator());
    em_strbuf_printf(&code, "%s  items : List[__torch__.N]\n"
                            "  def forward(self: __torch__.M, x: Tensor) -> Tensor:\n"
                            "    return x\nclass N(Module):\n  __parameters__ = []\n"
                            "  __buffers__ = []\n", M_HEAD);
    for (int i = 0; i < n_attr; i++) {
        em_strbuf_printf(&code, "  a%d : int\n", i);
    }
    assert_false(code.failed);
    size_t cap = 64 + (size_t)n_attr * 16 + (size_t)n_obj * 8;
    unsigned char *attrs = test_malloc(cap), *p = attrs;
    memcpy(p, TRAINING, sizeof TRAINING - 1);
    p += sizeof TRAINING - 1;
    static const char items[] = "X\x05\x00\x00\x00" "items" "](";
    /* the first object: GLOBAL N memoized as 0, its dict memoized as 1 */
    static const char first[] = "c__torch__\nN\nq\x00)\x81}q\x01(";
    memcpy(p, items, sizeof items - 1);
    p += sizeof items - 1;
    memcpy(p, first, sizeof first - 1);
    p += sizeof first - 1;
    for (int i = 0; i < n_attr; i++) {
        char key[16];
        int k = snprintf(key, sizeof key, "a%d", i);
        *p++ = 'X';
        *p++ = (unsigned char)k;
        memcpy(p, "\x00\x00\x00", 3);
        p += 3;
        memcpy(p, key, (size_t)k);
        p += k;
        memcpy(p, "K\x07", 2);
        p += 2;
    }
    memcpy(p, "ub", 2);
    p += 2;
    for (int i = 1; i < n_obj; i++) {
        memcpy(p, "h\x00)\x81h\x01" "b", 7);
        p += 7;
    }
    *p++ = 'e';
    assert_true((size_t)(p - attrs) <= cap);
    size_t n = 0;
    unsigned char *pkl = module_pkl(attrs, (size_t)(p - attrs), &n);
    OK(load_archive(code.data, pkl, n));
    test_free(pkl);
    test_free(attrs);
    em_strbuf_free(&code);
}

/* A chain of 300000 locals in a method forward() does not call (so the lowering, which looks
 * names up linearly, never runs it): the inference stops at its depth bound instead of
 * overflowing the stack. A chain of 10 in forward() is followed to the int it returns where a
 * Tensor is declared. */
static void test_long_chains(void **state)
{
    (void)state;
    size_t n = 0;
    unsigned char *pkl = module_pkl(TRAINING, sizeof TRAINING - 1, &n);
    for (int len = 300000; len > 0; len = len == 300000 ? 10 : 0) {
        em_strbuf code;
        em_strbuf_init(&code, test_allocator());
        em_strbuf_printf(&code, "%s  def forward(self: __torch__.M, x: Tensor) -> Tensor:\n",
                         M_HEAD);
        if (len > 10) {
            em_strbuf_printf(&code, "    return x\n  def chain(self: __torch__.M, x: Tensor) -> "
                                    "Tensor:\n");
        }
        em_strbuf_printf(&code, "    _0 = %s\n", len == 10 ? "1" : "x");
        for (int i = 1; i < len; i++) {
            em_strbuf_printf(&code, "    _%d = _%d\n", i, i - 1);
        }
        em_strbuf_printf(&code, "    return _%d\n", len - 1);
        assert_false(code.failed);
        ember_status *st = load_archive(code.data, pkl, n);
        if (len == 10) {
            ts_expect(st, EMBER_ERR_INVALID_MODEL, "forward() returns int, but it is declared "
                      "to return Tensor", "code/__torch__.py:16:12");
        } else {
            OK(st);
        }
        em_strbuf_free(&code);
    }
    test_free(pkl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_imports),        cmocka_unit_test(test_names_and_types),
        cmocka_unit_test(test_many_names),     cmocka_unit_test(test_shared_values),
        cmocka_unit_test(test_shared_state),   cmocka_unit_test(test_long_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
