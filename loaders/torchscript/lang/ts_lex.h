/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tokenizer of the serialized-code parser (internal to ts_lex.c, ts_parse*.c).
 *
 * Python's rules, cut to what ts_ast.h describes: NAME (ASCII identifiers; keywords get their
 * own kinds), INT, FLOAT, STR (the raw literal with its quotes: ts_parse.c decodes it), the
 * operators and brackets below, NEWLINE at the end of each logical line, INDENT/DEDENT from
 * the indentation stack, and EOF. Inside brackets newlines are ignored; a backslash before a
 * newline joins lines; comments and blank lines make no tokens. '!' and '?' are tokens for
 * the schema parser (ts_schema.c); code never has them, and the code parser refuses them.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LANG_TS_LEX_H
#define EMBER_LOADERS_TORCHSCRIPT_LANG_TS_LEX_H

#include "ts_ast.h"

/* clang-format off */
/* Keywords: kind suffix and spelling. */
#define EM_TS_KEYWORDS(X)                                                                      \
    X(AND, "and") X(AS, "as") X(ASSERT, "assert") X(ASYNC, "async") X(AWAIT, "await")          \
    X(BREAK, "break") X(CLASS, "class") X(CONTINUE, "continue") X(DEF, "def") X(DEL, "del")    \
    X(ELIF, "elif") X(ELSE, "else") X(EXCEPT, "except") X(FALSE, "False")                      \
    X(FINALLY, "finally") X(FOR, "for") X(FROM, "from") X(GLOBAL, "global") X(IF, "if")        \
    X(IMPORT, "import") X(IN, "in") X(IS, "is") X(LAMBDA, "lambda") X(NONE, "None")            \
    X(NONLOCAL, "nonlocal") X(NOT, "not") X(OR, "or") X(PASS, "pass") X(RAISE, "raise")        \
    X(RETURN, "return") X(TRUE, "True") X(TRY, "try") X(WHILE, "while") X(WITH, "with")        \
    X(YIELD, "yield")

/* Operators and delimiters, longest spellings first (the lexer takes the first match). */
#define EM_TS_PUNCTS(X)                                                                        \
    X(POW_EQ, "**=") X(FLOORDIV_EQ, "//=") X(RSHIFT_EQ, ">>=") X(LSHIFT_EQ, "<<=")             \
    X(ELLIPSIS, "...") X(ARROW, "->") X(POW, "**") X(FLOORDIV, "//") X(LSHIFT, "<<")           \
    X(RSHIFT, ">>") X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=") X(PLUS_EQ, "+=")           \
    X(MINUS_EQ, "-=") X(STAR_EQ, "*=") X(SLASH_EQ, "/=") X(PERCENT_EQ, "%=") X(AMP_EQ, "&=")   \
    X(PIPE_EQ, "|=") X(CARET_EQ, "^=") X(AT_EQ, "@=") X(LPAREN, "(") X(RPAREN, ")")            \
    X(LBRACKET, "[") X(RBRACKET, "]") X(LBRACE, "{") X(RBRACE, "}") X(COMMA, ",")              \
    X(COLON, ":") X(DOT, ".") X(SEMI, ";") X(AT, "@") X(ASSIGN, "=") X(PLUS, "+")              \
    X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") X(AMP, "&") X(PIPE, "|")          \
    X(CARET, "^") X(TILDE, "~") X(LT, "<") X(GT, ">") X(BANG, "!") X(QUESTION, "?")
/* clang-format on */

typedef enum em_ts_tok_kind {
    EM_TS_T_EOF,
    EM_TS_T_NEWLINE,
    EM_TS_T_INDENT,
    EM_TS_T_DEDENT,
    EM_TS_T_NAME,
    EM_TS_T_INT,
    EM_TS_T_FLOAT,
    EM_TS_T_STR,
#define EM_TS_X_(id, text) EM_TS_T_##id,
    EM_TS_KEYWORDS(EM_TS_X_) EM_TS_PUNCTS(EM_TS_X_)
#undef EM_TS_X_
        EM_TS_T_COUNT_
} em_ts_tok_kind;

typedef struct em_ts_tok {
    em_ts_tok_kind kind;
    int32_t line, col; /* of the first byte */
    size_t off, len;   /* bytes of the token in the text (0 long for NEWLINE/INDENT/DEDENT/EOF) */
} em_ts_tok;

/*
 * Tokenizes src->text[0..src->n). On success *toks (allocated on `al`, em_free it) holds
 * *n_toks tokens ending with EOF. Errors are INVALID_MODEL with the caret message (stray
 * character, unterminated string, unclosed or mismatched bracket, inconsistent dedent, too
 * deep nesting) or OUT_OF_MEMORY.
 */
ember_status *em_ts_lex(const em_ts_source *src, const ember_allocator *al, em_ts_tok **toks,
                        size_t *n_toks);

/* "'('" , "name", "number", "string", "end of line", "end of file", ... for messages. */
const char *em_ts_tok_desc(em_ts_tok_kind kind);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LANG_TS_LEX_H */
