/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript archives, layer 3: the serialized code (the code/ .py records) as a syntax tree.
 *
 * What is parsed. torch.jit.save writes each class and free function as Python text through
 * PythonPrint (torch/csrc/jit/serialization/python_print.cpp); torch.jit.load compiles it back
 * with its own Python-subset parser. This parser reads that subset:
 *   module level  `op_version_set = N`, `import`/`from` lines (kept as raw text; ts_check.h
 *                 refuses all but `import __torch__...`), classes, defs;
 *   class bodies  `__parameters__ = [...]`, `__buffers__ = [...]` and other `name = value`
 *                 lines (Enum members, hook lists, `__annotations__ = []`), attribute
 *                 declarations `name : Type`, `__annotations__["0"] = Type`, constants
 *                 `name : Final[T] = literal`, methods, `pass`;
 *   statements    assignment (chained, tuple targets `a, b, = t`, `self.x = v`, `x[i] = v`,
 *                 annotated `x: T = v`), augmented assignment, expression, if/elif/else, for,
 *                 while, break, continue, return, pass, raise, assert, with (`as`), del, nested
 *                 def (closures of fork), `;`-separated simple statements;
 *   expressions   Python's grammar and precedence without comprehensions, lambda, starred,
 *                 sets and f-strings: names, int (decimal/0x/0o/0b) and float literals, `inf`
 *                 and `nan` (float literals here), strings (either quote, triple quotes,
 *                 escapes \\ \' \" \a \b \f \n \r \t \v \ooo \xhh \uXXXX \UXXXXXXXX, adjacent
 *                 literals joined), True/False/None/..., tuples, lists, dicts, attributes,
 *                 calls with keyword arguments, subscripts with slices, unary, binary (** // %
 *                 @ << >> & | ^ ...), chained comparisons, is/is not/in/not in, and/or/not,
 *                 `a if c else b`. Types are ordinary expressions (`Optional[Tensor]`,
 *                 `__torch__.a.B`, `Tuple[()]`); ts_type.h turns them into em_ts_type.
 * A unary minus applied directly to a number literal is folded into the literal (so
 * -9223372036854775808 is an int64), unless `**` or a trailer follows the literal.
 *
 * Layout. Indentation makes blocks (any consistent width; tabs advance to the next multiple
 * of 8); newlines inside brackets and after a backslash continue the line; comments and
 * blank lines are skipped; \r\n is accepted. The tree keeps what the printer needs to write
 * PythonPrint's own text back (em_ts_ast_print): parentheses written around an expression,
 * trailing commas, literal spellings, one-parameter-per-line defs.
 *
 * Positions. Every node has an em_ts_pos: its source (file name + the whole text), 1-based
 * line and 1-based column in bytes. em_ts_error_at() turns a position into a status whose
 * message is "file:line:col: message" followed by the source line and a caret.
 *
 * Errors. Malformed text gives EMBER_ERR_INVALID_MODEL with that caret message; constructs
 * outside the subset (lambda, comprehensions, `*args`...) give EMBER_ERR_INVALID_MODEL too
 * ("... not supported in serialized TorchScript"). Nesting of brackets, expressions and
 * blocks is bounded by EM_TS_MAX_DEPTH (an error, never a stack overflow: the deepest input
 * takes under 128 KiB of stack in a debug build); the tree's height is bounded likewise, so
 * consumers may recurse over it. Work and memory are linear in the text; nothing reads past
 * the `n` bytes given; NUL bytes are refused (as CPython does), so every string of the tree
 * is also a C string except decoded STR literals (which carry their length).
 *
 * Memory. All nodes, strings and arrays live in an em_ts_ast_arena: one arena can hold the
 * modules of many files and is freed at once. The parser copies the text (em_ts_source), so
 * the caller's buffer may be released after parsing. Nodes are immutable after parsing.
 * Threads: reentrant, no global state; an arena is used by one thread at a time.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LANG_TS_AST_H
#define EMBER_LOADERS_TORCHSCRIPT_LANG_TS_AST_H

#include "core/alloc.h"
#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting of brackets, blocks and expressions (and height of the tree). */
#define EM_TS_MAX_DEPTH 200

/* ---- arena ---------------------------------------------------------------------------------- */

typedef struct em_ts_ast_arena em_ts_ast_arena;

/* A new empty arena on `al` (NULL: libc); NULL when out of memory. */
em_ts_ast_arena *em_ts_ast_arena_new(const ember_allocator *al);
/* Frees every node of every module parsed into it; NULL is a no-op. */
void em_ts_ast_arena_free(em_ts_ast_arena *a);
/* `n` zeroed bytes aligned for any node; NULL when out of memory. */
void *em_ts_ast_alloc(em_ts_ast_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n); NULL when out of memory. */
char *em_ts_ast_strndup(em_ts_ast_arena *a, const char *s, size_t n);
/* Bytes handed out so far (for tests and limits). */
size_t em_ts_ast_arena_used(const em_ts_ast_arena *a);

/* ---- positions and error messages ---------------------------------------------------------- */

typedef struct em_ts_source {
    const char *file; /* name shown in messages ("code/__torch__/a.py") */
    const char *text; /* the whole text, NUL-terminated (a text with NULs does not parse) */
    size_t n;
} em_ts_source;

typedef struct em_ts_pos {
    const em_ts_source *src; /* NULL for nodes not from text */
    int32_t line, col;       /* 1-based; col counts bytes */
} em_ts_pos;

/*
 * Appends "file:line:col: msg\n    <source line>\n    <spaces>^" to `sb`. The source line is
 * the one `line` names in text[0..n) (control bytes and bytes that are not valid UTF-8 shown
 * as '?', lines over 160 bytes cut around the column with "..."); the caret's indent keeps
 * tabs so that it lines up, and a UTF-8 character takes one column. Without text (text NULL
 * or line out of range) only the first line is written. The lowering uses it for its own
 * errors (an unsupported op at a node's position) through em_ts_error_at.
 */
void em_ts_caret(em_strbuf *sb, const char *file, const char *text, size_t n, int32_t line,
                 int32_t col, const char *msg);
/* A new status `code` with em_ts_caret's message for `pos` and the printf-style message. */
ember_status *em_ts_error_at(ember_code code, em_ts_pos pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- expressions -------------------------------------------------------------------------- */

typedef enum em_ts_expr_kind {
    EM_TS_NAME,  /* u.name */
    EM_TS_INT,   /* u.num.i, spelling u.num.text */
    EM_TS_FLOAT, /* u.num.f, spelling u.num.text ("1.0000000000000001e-05", "inf", "-nan") */
    EM_TS_STR,   /* u.str: decoded bytes */
    EM_TS_BOOL,  /* u.b */
    EM_TS_NONE,
    EM_TS_ELLIPSIS,  /* ... */
    EM_TS_TUPLE,     /* u.seq; unparenthesized when parens == 0 (`a, b = t`, `x[i, j]`) */
    EM_TS_LIST,      /* u.seq */
    EM_TS_DICT,      /* u.dict */
    EM_TS_ATTR,      /* u.attr: base.name */
    EM_TS_CALL,      /* u.call */
    EM_TS_SUBSCRIPT, /* u.sub: base[index]; x[a, b] has a TUPLE index */
    EM_TS_SLICE,     /* u.slice: lo:hi:step, each may be NULL; only as a subscript index or item */
    EM_TS_UNARY,     /* u.unary: NEG POS INVERT NOT */
    EM_TS_BINARY,    /* u.bin: arithmetic and bitwise ops, AND, OR (short-circuit) */
    EM_TS_COMPARE,   /* u.cmp: a < b <= c is one node with 3 operands and 2 ops */
    EM_TS_IFEXP      /* u.ifexp: then if cond else other */
} em_ts_expr_kind;

/* clang-format off */
typedef enum em_ts_op {
    EM_TS_OP_ADD, EM_TS_OP_SUB, EM_TS_OP_MUL, EM_TS_OP_DIV, EM_TS_OP_FLOORDIV, EM_TS_OP_MOD,
    EM_TS_OP_POW, EM_TS_OP_MATMUL, EM_TS_OP_LSHIFT, EM_TS_OP_RSHIFT, EM_TS_OP_BITAND,
    EM_TS_OP_BITOR, EM_TS_OP_BITXOR, EM_TS_OP_AND, EM_TS_OP_OR,
    EM_TS_OP_NEG, EM_TS_OP_POS, EM_TS_OP_INVERT, EM_TS_OP_NOT,
    EM_TS_OP_LT, EM_TS_OP_LE, EM_TS_OP_GT, EM_TS_OP_GE, EM_TS_OP_EQ, EM_TS_OP_NE,
    EM_TS_OP_IS, EM_TS_OP_IS_NOT, EM_TS_OP_IN, EM_TS_OP_NOT_IN
} em_ts_op;
/* clang-format on */

/* The operator's spelling: "+", "//", "not", "is not", ... */
const char *em_ts_op_text(em_ts_op op);

typedef struct em_ts_expr em_ts_expr;

typedef struct em_ts_kwarg {
    em_ts_pos pos;
    const char *name;
    em_ts_expr *value;
} em_ts_kwarg;

struct em_ts_expr {
    em_ts_expr_kind kind;
    em_ts_pos pos;  /* first byte of the expression (a binary's left operand, a call's callee) */
    uint8_t parens; /* pairs of parentheses written around it in the source */
    bool trailing_comma; /* TUPLE/LIST/DICT/CALL: a comma after the last item (`a, b,` `f(x, )`) */
    union {
        const char *name;
        struct {
            int64_t i;
            double f;
            const char *text;
        } num;
        struct {
            const char *s;
            size_t n;
        } str; /* NUL-terminated too */
        bool b;
        struct {
            em_ts_expr **items;
            size_t n;
        } seq;
        struct {
            em_ts_expr **keys, **values;
            size_t n;
        } dict;
        struct {
            em_ts_expr *base;
            const char *name;
            em_ts_pos name_pos;
        } attr;
        struct {
            em_ts_expr *fn;
            em_ts_expr **args;
            size_t n_args;
            em_ts_kwarg *kwargs; /* after the positional ones, as Python requires */
            size_t n_kwargs;
        } call;
        struct {
            em_ts_expr *base, *index;
        } sub;
        struct {
            em_ts_expr *lo, *hi, *step;
            bool has_step_colon;
        } slice;
        struct {
            em_ts_op op;
            em_ts_expr *operand;
        } unary;
        struct {
            em_ts_op op;
            em_ts_expr *lhs, *rhs;
        } bin;
        struct {
            em_ts_expr **operands;
            em_ts_op *ops;
            size_t n_ops;
        } cmp; /* n_ops + 1 operands */
        struct {
            em_ts_expr *then, *cond, *other;
        } ifexp;
    } u;
};

/*
 * The dotted name an expression spells ("torch.add", "ops.prim.NumToTensor",
 * "__torch__.a.b.C") when it is a NAME or a chain of ATTRs on one (parentheses allowed);
 * NULL otherwise or when out of memory. Allocated in `a`.
 */
const char *em_ts_expr_dotted(em_ts_ast_arena *a, const em_ts_expr *e);
/* Whether `e` is the name `name` or a dotted chain that spells it. */
bool em_ts_expr_is_dotted(const em_ts_expr *e, const char *name);

/* ---- statements --------------------------------------------------------------------------- */

typedef enum em_ts_stmt_kind {
    EM_TS_S_EXPR,      /* u.expr */
    EM_TS_S_ASSIGN,    /* u.assign */
    EM_TS_S_AUGASSIGN, /* u.aug */
    EM_TS_S_IF,        /* u.if_ */
    EM_TS_S_FOR,       /* u.for_ */
    EM_TS_S_WHILE,     /* u.while_ */
    EM_TS_S_BREAK,
    EM_TS_S_CONTINUE,
    EM_TS_S_RETURN, /* u.expr (NULL: bare return) */
    EM_TS_S_PASS,
    EM_TS_S_RAISE,  /* u.expr (NULL: bare raise) */
    EM_TS_S_ASSERT, /* u.assert_ */
    EM_TS_S_WITH,   /* u.with */
    EM_TS_S_DEL,    /* u.del */
    EM_TS_S_DEF     /* u.def: a nested function (fork closures) */
} em_ts_stmt_kind;

typedef struct em_ts_stmt em_ts_stmt;
typedef struct em_ts_func em_ts_func;

typedef struct em_ts_block {
    em_ts_stmt **stmts; /* at least one statement in parsed code */
    size_t n;
} em_ts_block;

typedef struct em_ts_with_item {
    em_ts_expr *ctx;
    em_ts_expr *target; /* `as` target or NULL */
} em_ts_with_item;

struct em_ts_stmt {
    em_ts_stmt_kind kind;
    em_ts_pos pos; /* the statement's first token */
    union {
        em_ts_expr *expr;
        struct {
            em_ts_expr **targets; /* a = b = v: 2 targets, left to right */
            size_t n_targets;     /* 1 with an annotation */
            em_ts_expr *type;     /* `x : T = v` annotation or NULL */
            em_ts_expr *value;    /* NULL only for an annotation alone (`x: T`) */
            bool spaced_colon;    /* layout: `x : T` rather than `x: T` (both are printed) */
        } assign;
        struct {
            em_ts_op op;
            em_ts_expr *target, *value;
        } aug;
        struct {
            em_ts_expr *cond;
            em_ts_block then, other; /* other.n == 0: no else */
            bool is_elif;            /* printed as `elif` of the enclosing if */
        } if_;
        struct {
            em_ts_expr *target, *iter;
            em_ts_block body;
        } for_;
        struct {
            em_ts_expr *cond;
            em_ts_block body;
        } while_;
        struct {
            em_ts_expr *test, *msg;
        } assert_;
        struct {
            em_ts_with_item *items;
            size_t n;
            em_ts_block body;
        } with;
        struct {
            em_ts_expr **targets;
            size_t n;
        } del;
        em_ts_func *def;
    } u;
};

/* ---- functions, classes, modules ---------------------------------------------------------- */

typedef struct em_ts_param {
    em_ts_pos pos;
    const char *name;
    em_ts_expr *type; /* annotation or NULL (often for `self`) */
    em_ts_expr *def;  /* default value or NULL */
} em_ts_param;

struct em_ts_func {
    em_ts_pos pos; /* the `def` keyword */
    const char *name;
    em_ts_param *params;
    size_t n_params;
    em_ts_expr *ret; /* `-> T` or NULL */
    em_ts_block body;
    bool params_multiline; /* parameters after the first on their own lines (PythonPrint) */
};

typedef enum em_ts_class_base {
    EM_TS_BASE_NONE,   /* class C: (TorchScript class) */
    EM_TS_BASE_MODULE, /* class C(Module): */
    EM_TS_BASE_NAMEDTUPLE,
    EM_TS_BASE_INTERFACE,
    EM_TS_BASE_MODULE_INTERFACE,
    EM_TS_BASE_ENUM
} em_ts_class_base;

typedef enum em_ts_member_kind {
    EM_TS_M_ATTR,   /* `name : Type` or `__annotations__["name"] = Type` (quoted) */
    EM_TS_M_CONST,  /* `name : Type = value`, Type usually Final[T] */
    EM_TS_M_VALUE,  /* `name = value`: __parameters__, __buffers__, Enum members, ... */
    EM_TS_M_METHOD, /* def */
    EM_TS_M_PASS
} em_ts_member_kind;

typedef struct em_ts_member {
    em_ts_member_kind kind;
    em_ts_pos pos;
    const char *name;   /* NULL for PASS; the method's name for METHOD */
    em_ts_expr *type;   /* ATTR, CONST: the annotation as written (Final[int]) */
    em_ts_expr *value;  /* CONST, VALUE */
    em_ts_func *method; /* METHOD */
    bool quoted;        /* ATTR written as __annotations__["name"] = Type */
} em_ts_member;

typedef struct em_ts_class {
    em_ts_pos pos; /* the `class` keyword */
    const char *name;
    em_ts_class_base base;
    em_ts_member *members; /* in source order */
    size_t n_members;
    /* Views of `members`, for convenience: */
    const char **parameters; /* the strings of `__parameters__ = [...]` */
    size_t n_parameters;
    const char **buffers; /* the strings of `__buffers__ = [...]` */
    size_t n_buffers;
} em_ts_class;

typedef enum em_ts_decl_kind {
    EM_TS_D_CLASS, /* u.cls */
    EM_TS_D_FUNC,  /* u.func */
    EM_TS_D_IMPORT /* u.import_text: the line as written, without the newline */
} em_ts_decl_kind;

typedef struct em_ts_decl {
    em_ts_decl_kind kind;
    em_ts_pos pos;
    union {
        em_ts_class *cls;
        em_ts_func *func;
        const char *import_text;
    } u;
} em_ts_decl;

typedef struct em_ts_module {
    const em_ts_source *src;
    bool has_version; /* `op_version_set = N` was given */
    int64_t op_version_set;
    em_ts_decl *decls; /* classes, functions and imports in source order */
    size_t n_decls;
} em_ts_module;

/*
 * Parses text[0..n) (borrowed; copied into `a`), naming it `file` in messages and positions.
 * On success `*out` is a module living in `a`. On failure `*out` is NULL and the status is
 * INVALID_MODEL with the caret message, or OUT_OF_MEMORY; what was allocated stays in `a`
 * until it is freed.
 */
ember_status *em_ts_parse_file(em_ts_ast_arena *a, const char *text, size_t n, const char *file,
                               em_ts_module **out);

/* The class / function named `name` in `m` (unqualified, as written after class/def); NULL. */
const em_ts_class *em_ts_module_class(const em_ts_module *m, const char *name);
const em_ts_func *em_ts_module_func(const em_ts_module *m, const char *name);
/* The method `name` of `c`; NULL when absent. */
const em_ts_func *em_ts_class_method(const em_ts_class *c, const char *name);
/* The member ATTR or CONST `name` of `c`; NULL when absent. */
const em_ts_member *em_ts_class_attr(const em_ts_class *c, const char *name);

/*
 * Appends the module as PythonPrint writes code: 2-space indents, `name : Type` attributes,
 * `def f(self: T,\n    x: Tensor) -> Tensor:` when params_multiline, strings in double quotes
 * with PythonPrint's escapes (\\ \' \" \a \b \f \n \r \t \v, \ooo for other bytes outside
 * 0x20..0x7e), parentheses where the source had them or precedence needs them, and each
 * statement on its own line. Printing a module parsed from PythonPrint's output gives the same
 * text back; printing the parse of any printed text gives that text (a fixed point).
 */
void em_ts_ast_print(em_strbuf *sb, const em_ts_module *m);
/* One expression / statement (at indent level `level`, two spaces each). */
void em_ts_ast_print_expr(em_strbuf *sb, const em_ts_expr *e);
void em_ts_ast_print_stmt(em_strbuf *sb, const em_ts_stmt *s, int level);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LANG_TS_AST_H */
