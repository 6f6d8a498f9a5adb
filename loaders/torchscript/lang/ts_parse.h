/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals shared by the statement parser (ts_parse.c), the expression parser
 * (ts_parse_expr.c) and the type and schema parsers: the parser state over a token array,
 * growable arrays in the arena, locale-independent number conversion. The public entry points
 * are in ts_ast.h.
 *
 * Error convention: a parse function returns NULL (or false) after recording the first error
 * in p->st; callers return at once. Recursion goes through em_ts_p_enter/leave, which bound
 * it by EM_TS_MAX_DEPTH.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LANG_TS_PARSE_H
#define EMBER_LOADERS_TORCHSCRIPT_LANG_TS_PARSE_H

#include "ts_ast.h"
#include "ts_lex.h"

typedef struct em_ts_parser {
    em_ts_ast_arena *a;
    const em_ts_source *src;
    const em_ts_tok *toks;
    size_t n_toks, i;
    int depth;
    ember_status *st; /* the first error */
} em_ts_parser;

/* The allocator the arena was created with (ts_ast.c). */
const ember_allocator *em_ts_ast_arena_allocator(const em_ts_ast_arena *a);

/*
 * Copies text[0..n) into `a` as a source named `what` (one-line texts, `one_line`, lose their
 * leading blanks, which would be an indent), tokenizes it and sets *p up over the tokens.
 * On failure *p needs no em_ts_p_end.
 */
ember_status *em_ts_p_begin(em_ts_parser *p, em_ts_ast_arena *a, const char *text, size_t n,
                            const char *what, bool one_line);
/* Frees the tokens; returns the first error, or an INTERNAL one when `ok` is false without
 * an error recorded (a parser bug), or NULL. */
ember_status *em_ts_p_end(em_ts_parser *p, bool ok);

/* A growable array in the arena (outgrown buffers stay in the arena: linear overall). */
typedef struct em_ts_vec {
    void *data;
    size_t n, cap;
} em_ts_vec;

/* A zeroed new slot of `elem` bytes at the end of `v`; NULL after recording OOM. */
void *em_ts_vec_push(em_ts_parser *p, em_ts_vec *v, size_t elem);
/* Appends pointer `x`; false after recording OOM. */
bool em_ts_vec_push_ptr(em_ts_parser *p, em_ts_vec *v, void *x);

/* Current token and the one k after it (EOF past the end). */
const em_ts_tok *em_ts_p_tok(const em_ts_parser *p);
const em_ts_tok *em_ts_p_peek(const em_ts_parser *p, size_t k);
em_ts_pos em_ts_p_pos(const em_ts_parser *p, const em_ts_tok *t);
/* Consumes the current token if it has `kind`. */
bool em_ts_p_accept(em_ts_parser *p, em_ts_tok_kind kind);
/* Consumes a token of `kind` or records "expected <kind> <context>, found <token>". */
bool em_ts_p_expect(em_ts_parser *p, em_ts_tok_kind kind, const char *context);
/* Records an error at token t (first error wins); returns NULL. */
void *em_ts_p_fail(em_ts_parser *p, const em_ts_tok *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Records OOM; returns NULL. */
void *em_ts_p_oom(em_ts_parser *p);
/* "name 'foo'", "'('", "end of line", ... (a static or arena string). */
const char *em_ts_p_describe(em_ts_parser *p, const em_ts_tok *t);
/* Recursion bound: false (error recorded at t) when EM_TS_MAX_DEPTH is passed. */
bool em_ts_p_enter(em_ts_parser *p, const em_ts_tok *t);
void em_ts_p_leave(em_ts_parser *p, int levels);
/* The token's text copied into the arena. */
const char *em_ts_p_text(em_ts_parser *p, const em_ts_tok *t);
/* A new expression node of `kind` at t's position. */
em_ts_expr *em_ts_p_node(em_ts_parser *p, em_ts_expr_kind kind, const em_ts_tok *t);

/* `def NAME(params) [-> type]: block` at the current `def` token (ts_parse.c). */
em_ts_func *em_ts_p_funcdef(em_ts_parser *p);

/* Expressions (ts_parse_expr.c). */
em_ts_expr *em_ts_p_test(em_ts_parser *p);
/* test (',' test)* [','] -> one expression or an unparenthesized TUPLE. */
em_ts_expr *em_ts_p_testlist(em_ts_parser *p);
/* Targets of `for` and `del`: bitwise-or level expressions, comma-separated. */
em_ts_expr *em_ts_p_targetlist(em_ts_parser *p);
/* One such target (`with x as <target>`). */
em_ts_expr *em_ts_p_target(em_ts_parser *p);

/*
 * Number spellings: Python's integer forms (decimal, 0x, 0o, 0b, underscores) into a
 * magnitude (false on overflow past UINT64_MAX or a bad digit), and decimal floats without a
 * locale (false when malformed). `s` needs no terminator.
 */
bool em_ts_parse_uint(const char *s, size_t n, uint64_t *out);
bool em_ts_parse_double(const char *s, size_t n, double *out);
/*
 * Decodes the body of a quoted string (escapes of ts_ast.h) into out (room for n bytes).
 * Returns the decoded length, or (size_t)-1 with *bad the offset of a malformed escape.
 */
size_t em_ts_unescape(const char *s, size_t n, char *out, size_t *bad);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LANG_TS_PARSE_H */
