/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The syntax tree's services (ts_ast.h): the node arena, caret error messages, operator
 * spellings, dotted names and lookups in a parsed module.
 *
 * Arena: a list of chunks, each at least 64 KiB (a bigger request gets a chunk of its own);
 * allocations are 16-byte aligned and zeroed. Chunks are freed together.
 */
#include "ts_ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "ts_parse.h"

#define CHUNK_BYTES ((size_t)64 * 1024)
#define ARENA_ALIGN ((size_t)16)

typedef struct chunk {
    struct chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} chunk;

struct em_ts_ast_arena {
    const ember_allocator *al;
    chunk *head;
    size_t used;
};

em_ts_ast_arena *em_ts_ast_arena_new(const ember_allocator *al)
{
    em_ts_ast_arena *a = em_calloc(al, 1, sizeof *a);
    if (a != NULL) {
        a->al = al;
    }
    return a;
}

void em_ts_ast_arena_free(em_ts_ast_arena *a)
{
    if (a == NULL) {
        return;
    }
    for (chunk *c = a->head, *next; c != NULL; c = next) {
        next = c->next;
        em_free(a->al, c);
    }
    em_free(a->al, a);
}

void *em_ts_ast_alloc(em_ts_ast_arena *a, size_t n)
{
    size_t need = em_align_up(n == 0 ? 1 : n, ARENA_ALIGN);
    if (need < n) {
        return NULL;
    }
    chunk *c = a->head;
    if (c == NULL || c->size - c->used < need) {
        size_t size = need > CHUNK_BYTES ? need : CHUNK_BYTES, bytes;
        if (!em_size_add(size, sizeof(chunk), &bytes)) {
            return NULL;
        }
        c = em_malloc(a->al, bytes);
        if (c == NULL) {
            return NULL;
        }
        c->size = size;
        c->used = 0;
        if (a->head != NULL && need > CHUNK_BYTES) {
            /* A big block: keep the current chunk on top for the small ones. */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = c->data + c->used;
    c->used += need;
    a->used += need;
    memset(p, 0, need);
    return p;
}

char *em_ts_ast_strndup(em_ts_ast_arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX) {
        return NULL;
    }
    char *d = em_ts_ast_alloc(a, n + 1);
    if (d != NULL && n > 0) {
        memcpy(d, s, n);
    }
    return d;
}

size_t em_ts_ast_arena_used(const em_ts_ast_arena *a)
{
    return a->used;
}

const ember_allocator *em_ts_ast_arena_allocator(const em_ts_ast_arena *a)
{
    return a->al;
}

/* ---- caret messages ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s[0..n) (2-4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || len > n || s[0] > 0xf4) {
        return 0;
    }
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80) {
            return 0;
        }
    }
    return len;
}

/* Appends bytes [b, e) of a source line: valid UTF-8 as is, other odd bytes as '?'. When
 * `caret` is set, writes the caret line's indent for those bytes instead. */
static void put_line(em_strbuf *sb, const unsigned char *b, const unsigned char *e, bool caret)
{
    char buf[256];
    size_t k = 0;
    while (b < e) {
        size_t len = *b >= 0x80 ? utf8_len(b, (size_t)(e - b)) : 1;
        if (k + 5 > sizeof buf) {
            em_strbuf_printf(sb, "%.*s", (int)k, buf);
            k = 0;
        }
        if (caret) {
            buf[k++] = *b == '\t' ? '\t' : ' ';
        } else if (len > 1) {
            memcpy(buf + k, b, len);
            k += len;
        } else {
            buf[k++] = (*b == '\t' || (*b >= 0x20 && *b < 0x7f)) ? (char)*b : '?';
        }
        b += len > 0 ? len : 1;
    }
    em_strbuf_printf(sb, "%.*s", (int)k, buf);
}

void em_ts_caret(em_strbuf *sb, const char *file, const char *text, size_t n, int32_t line,
                 int32_t col, const char *msg)
{
    em_strbuf_printf(sb, "%s:%d:%d: %s", file != NULL ? file : "<code>", (int)line, (int)col, msg);
    if (text == NULL || line < 1 || col < 1) {
        return;
    }
    const unsigned char *t = (const unsigned char *)text, *ls = t, *end = t + n;
    for (int32_t l = 1; l < line; l++) {
        ls = memchr(ls, '\n', (size_t)(end - ls));
        if (ls == NULL) {
            return;
        }
        ls++;
    }
    const unsigned char *le = memchr(ls, '\n', (size_t)(end - ls));
    le = le != NULL ? le : end;
    if (le > ls && le[-1] == '\r') {
        le--;
    }
    const unsigned char *at = (size_t)(col - 1) <= (size_t)(le - ls) ? ls + col - 1 : le;
    const unsigned char *b = ls, *e = le;
    if (e - b > 160) {
        b = at - ls > 80 ? at - 80 : ls;
        e = le - b > 160 ? b + 160 : le;
        if (at > e) {
            at = e;
        }
    }
    em_strbuf_printf(sb, "\n    %s", b > ls ? "..." : "");
    put_line(sb, b, e, false);
    em_strbuf_printf(sb, "%s\n    %s", e < le ? "..." : "", b > ls ? "   " : "");
    put_line(sb, b, at, true);
    em_strbuf_printf(sb, "^");
}

ember_status *em_ts_error_at(ember_code code, em_ts_pos pos, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    const em_ts_source *s = pos.src;
    em_ts_caret(&sb, s != NULL ? s->file : NULL, s != NULL ? s->text : NULL, s != NULL ? s->n : 0,
                pos.line, pos.col, msg);
    ember_status *st = sb.failed || sb.data == NULL ? em_status_new(code, "%s", msg)
                                                    : em_status_new(code, "%s", sb.data);
    em_strbuf_free(&sb);
    return st;
}

/* ---- operators and names ------------------------------------------------------------------- */

const char *em_ts_op_text(em_ts_op op)
{
    static const char *const text[] = {
        [EM_TS_OP_ADD] = "+",     [EM_TS_OP_SUB] = "-",         [EM_TS_OP_MUL] = "*",
        [EM_TS_OP_DIV] = "/",     [EM_TS_OP_FLOORDIV] = "//",   [EM_TS_OP_MOD] = "%",
        [EM_TS_OP_POW] = "**",    [EM_TS_OP_MATMUL] = "@",      [EM_TS_OP_LSHIFT] = "<<",
        [EM_TS_OP_RSHIFT] = ">>", [EM_TS_OP_BITAND] = "&",      [EM_TS_OP_BITOR] = "|",
        [EM_TS_OP_BITXOR] = "^",  [EM_TS_OP_AND] = "and",       [EM_TS_OP_OR] = "or",
        [EM_TS_OP_NEG] = "-",     [EM_TS_OP_POS] = "+",         [EM_TS_OP_INVERT] = "~",
        [EM_TS_OP_NOT] = "not",   [EM_TS_OP_LT] = "<",          [EM_TS_OP_LE] = "<=",
        [EM_TS_OP_GT] = ">",      [EM_TS_OP_GE] = ">=",         [EM_TS_OP_EQ] = "==",
        [EM_TS_OP_NE] = "!=",     [EM_TS_OP_IS] = "is",         [EM_TS_OP_IS_NOT] = "is not",
        [EM_TS_OP_IN] = "in",     [EM_TS_OP_NOT_IN] = "not in",
    };
    return (size_t)op < sizeof text / sizeof text[0] && text[op] != NULL ? text[op] : "?";
}

/* Length of the dotted name `e` spells, 0 when it spells none. */
static size_t dotted_len(const em_ts_expr *e)
{
    size_t n = 0;
    for (; e->kind == EM_TS_ATTR; e = e->u.attr.base) {
        n += strlen(e->u.attr.name) + 1;
    }
    return e->kind == EM_TS_NAME ? n + strlen(e->u.name) : 0;
}

const char *em_ts_expr_dotted(em_ts_ast_arena *a, const em_ts_expr *e)
{
    size_t n = e != NULL ? dotted_len(e) : 0;
    char *s = n > 0 ? em_ts_ast_alloc(a, n + 1) : NULL;
    if (s == NULL) {
        return NULL;
    }
    for (size_t end = n; e->kind == EM_TS_ATTR; e = e->u.attr.base) {
        size_t k = strlen(e->u.attr.name);
        memcpy(s + end - k, e->u.attr.name, k);
        end -= k + 1;
        s[end] = '.';
    }
    memcpy(s, e->u.name, strlen(e->u.name));
    return s;
}

bool em_ts_expr_is_dotted(const em_ts_expr *e, const char *name)
{
    size_t n = strlen(name);
    if (e == NULL || dotted_len(e) != n) {
        return false;
    }
    for (size_t end = n; e->kind == EM_TS_ATTR; e = e->u.attr.base) {
        size_t k = strlen(e->u.attr.name);
        if (memcmp(name + end - k, e->u.attr.name, k) != 0 ||
            (end > k && name[end - k - 1] != '.')) {
            return false;
        }
        end -= k + 1;
    }
    return memcmp(name, e->u.name, strlen(e->u.name)) == 0;
}

/* ---- lookups ------------------------------------------------------------------------------- */

const em_ts_class *em_ts_module_class(const em_ts_module *m, const char *name)
{
    for (size_t i = 0; i < m->n_decls; i++) {
        if (m->decls[i].kind == EM_TS_D_CLASS && strcmp(m->decls[i].u.cls->name, name) == 0) {
            return m->decls[i].u.cls;
        }
    }
    return NULL;
}

const em_ts_func *em_ts_module_func(const em_ts_module *m, const char *name)
{
    for (size_t i = 0; i < m->n_decls; i++) {
        if (m->decls[i].kind == EM_TS_D_FUNC && strcmp(m->decls[i].u.func->name, name) == 0) {
            return m->decls[i].u.func;
        }
    }
    return NULL;
}

const em_ts_func *em_ts_class_method(const em_ts_class *c, const char *name)
{
    for (size_t i = 0; i < c->n_members; i++) {
        if (c->members[i].kind == EM_TS_M_METHOD && strcmp(c->members[i].name, name) == 0) {
            return c->members[i].method;
        }
    }
    return NULL;
}

const em_ts_member *em_ts_class_attr(const em_ts_class *c, const char *name)
{
    for (size_t i = 0; i < c->n_members; i++) {
        const em_ts_member *m = &c->members[i];
        if ((m->kind == EM_TS_M_ATTR || m->kind == EM_TS_M_CONST) && strcmp(m->name, name) == 0) {
            return m;
        }
    }
    return NULL;
}
