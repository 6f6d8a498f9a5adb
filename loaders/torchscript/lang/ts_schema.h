/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PyTorch operator schemas ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
 * -> Tensor") as data: the grammar of torch/csrc/jit/frontend/function_schema_parser.cpp and
 * schema_type_parser.cpp, which is what str(FunctionSchema) and native_functions.yaml write.
 *
 *   schema   := name [ '(' args ')' '->' returns ]     (a name alone: name_only)
 *   name     := [ns '::'] op ['.' overload]
 *   args     := [arg (',' arg)*]; arg := '*' (the rest are keyword-only) | '...' | argument
 *   argument := type ['[' N ']' [alias] ['?']] name ['=' default]
 *   returns  := '...' | '(' [ret (',' ret)*] ')' | ret;  ret := type [...] [name]
 *   type     := '(' type,* ')' | Future(type) | RRef(type) | Await(type) | Dict(type, type)
 *               | Tensor | base | __torch__.torch.classes.ns.Name, then [alias], then any of
 *               '[]' [alias] (list) and '?' (optional)
 *   alias    := '(' set ['!'] ['->' set] ')' | '!';  set := (name | '*') ('|' ...)*
 * Types use ts_type.h's structure ("Scalar" is NUMBER, "int[2]" is LIST(INT) with
 * list_size 2). Defaults follow the argument's type as torch does: a scalar default of a
 * fixed-size list is repeated N times ("int[2] stride=1" -> [1, 1]), lists hold ints, floats
 * or bools, and the identifiers torch knows (contiguous_format, long, float, strided, Mean)
 * and any other name are kept as IDENT.
 * Schemas live in an em_ts_ast_arena. Threads: reentrant.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LANG_TS_SCHEMA_H
#define EMBER_LOADERS_TORCHSCRIPT_LANG_TS_SCHEMA_H

#include "ts_type.h"

/* An alias annotation: Tensor(a), Tensor(a!), Tensor(a -> *), Tensor(a|b), Tensor(*), Tensor!. */
typedef struct em_ts_alias {
    const char **before; /* set names ("a", "*"); a bare '!' gives the fresh name "$<k>" */
    size_t n_before;
    const char **after; /* equals `before` without '->' */
    size_t n_after;
    bool write; /* '!' */
} em_ts_alias;

typedef enum em_ts_default_kind {
    EM_TS_DEF_NONE,       /* `=None` */
    EM_TS_DEF_INT,        /* .i */
    EM_TS_DEF_FLOAT,      /* .f */
    EM_TS_DEF_BOOL,       /* .b */
    EM_TS_DEF_STR,        /* .s (decoded, NUL-terminated), .n bytes */
    EM_TS_DEF_INT_LIST,   /* .ints[.n] */
    EM_TS_DEF_FLOAT_LIST, /* .floats[.n] */
    EM_TS_DEF_BOOL_LIST,  /* .bools[.n] */
    EM_TS_DEF_IDENT       /* .s: contiguous_format, long, Mean, ... (as written) */
} em_ts_default_kind;

typedef struct em_ts_default {
    em_ts_default_kind kind;
    int64_t i;
    double f;
    bool b;
    const char *s;
    size_t n;
    int64_t *ints;
    double *floats;
    bool *bools;
    const char *text; /* the default as written ("1", "[-2, -1]", "\"nearest\"") */
} em_ts_default;

typedef struct em_ts_schema_arg {
    const char *name; /* "" for an unnamed return */
    em_ts_type *type;
    int64_t list_size;        /* N of `int[N]`, 0 otherwise */
    em_ts_alias *alias;       /* of the argument (a list's own, after `[]`); NULL when none */
    em_ts_alias *elem_alias;  /* of a list's elements: Tensor(a!)[] ; NULL when none */
    bool kwarg_only;          /* after `*` */
    bool is_write;            /* some alias of the argument has '!' (mutated in place) */
    const em_ts_default *def; /* NULL when none */
} em_ts_schema_arg;

typedef struct em_ts_schema {
    const char *ns;       /* "aten"; "" when the name has no namespace */
    const char *name;     /* "add" */
    const char *overload; /* "Tensor"; "" when none */
    em_ts_schema_arg *args;
    size_t n_args;
    em_ts_schema_arg *rets;
    size_t n_rets;
    bool is_vararg, is_varret; /* `...` in the arguments / returns */
    bool name_only;            /* the text was a name without an argument list */
} em_ts_schema;

/*
 * Parses the schema s[0..n). `what` names it in messages. INVALID_MODEL with a caret message
 * (and the whole schema as the source line) when malformed; OUT_OF_MEMORY. *out lives in `a`.
 */
ember_status *em_ts_schema_parse(em_ts_ast_arena *a, const char *s, size_t n, const char *what,
                                 em_ts_schema **out);

/* Appends the schema as str(FunctionSchema) writes it (defaults as written). */
void em_ts_schema_print(em_strbuf *sb, const em_ts_schema *sc);

/* Index of the argument named `name`, or -1. */
int em_ts_schema_find_arg(const em_ts_schema *sc, const char *name);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LANG_TS_SCHEMA_H */
