/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pickle machine (ts_pickle.h): one pass over the opcodes with a value stack, a stack
 * of marks (stack heights, as CPython's metastack) and a memo; no recursion anywhere, so
 * nesting costs no C stack. What GLOBALs do when called lives in ts_pickle_globals.c, the
 * text opcodes of protocol 0 in ts_pickle_text.c. After STOP, one iterative walk from the
 * root (ts_pickle_walk.c) refuses cycles (a list appended into itself through the memo) and
 * nesting deeper than EM_TS_PICKLE_MAX_DEPTH, so consumers may recurse that deep and no
 * deeper.
 * Memo indices must be dense (a put at most one past the last), as every pickler writes
 * them; this bounds the memo by the input size. Opcode semantics: Lib/pickle.py
 * (_Unpickler) and torch/csrc/jit/serialization/unpickler.cpp.
 */
#include "ts_pickle.h"

#include "ts_pickle_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

struct em_ts_pickle {
    em_ts_arena ar;
    const em_tsv *root;
    int proto;
};

/* ---- opcode names ---------------------------------------------------------------------- */

static const struct {
    unsigned char op;
    const char *name;
} op_names[] = {
    {'(', "MARK"},          {'.', "STOP"},          {'0', "POP"},
    {'1', "POP_MARK"},      {'2', "DUP"},           {'F', "FLOAT"},
    {'I', "INT"},           {'J', "BININT"},        {'K', "BININT1"},
    {'L', "LONG"},          {'M', "BININT2"},       {'N', "NONE"},
    {'P', "PERSID"},        {'Q', "BINPERSID"},     {'R', "REDUCE"},
    {'S', "STRING"},        {'T', "BINSTRING"},     {'U', "SHORT_BINSTRING"},
    {'V', "UNICODE"},       {'X', "BINUNICODE"},    {'a', "APPEND"},
    {'b', "BUILD"},         {'c', "GLOBAL"},        {'d', "DICT"},
    {'}', "EMPTY_DICT"},    {'e', "APPENDS"},       {'g', "GET"},
    {'h', "BINGET"},        {'i', "INST"},          {'j', "LONG_BINGET"},
    {'l', "LIST"},          {']', "EMPTY_LIST"},    {'o', "OBJ"},
    {'p', "PUT"},           {'q', "BINPUT"},        {'r', "LONG_BINPUT"},
    {'s', "SETITEM"},       {'t', "TUPLE"},         {')', "EMPTY_TUPLE"},
    {'u', "SETITEMS"},      {'G', "BINFLOAT"},      {'B', "BINBYTES"},
    {'C', "SHORT_BINBYTES"}, {0x80, "PROTO"},       {0x81, "NEWOBJ"},
    {0x82, "EXT1"},         {0x83, "EXT2"},         {0x84, "EXT4"},
    {0x85, "TUPLE1"},       {0x86, "TUPLE2"},       {0x87, "TUPLE3"},
    {0x88, "NEWTRUE"},      {0x89, "NEWFALSE"},     {0x8a, "LONG1"},
    {0x8b, "LONG4"},        {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"},
    {0x8e, "BINBYTES8"},    {0x8f, "EMPTY_SET"},    {0x90, "ADDITEMS"},
    {0x91, "FROZENSET"},    {0x92, "NEWOBJ_EX"},    {0x93, "STACK_GLOBAL"},
    {0x94, "MEMOIZE"},      {0x95, "FRAME"},        {0x96, "BYTEARRAY8"},
    {0x97, "NEXT_BUFFER"},  {0x98, "READONLY_BUFFER"},
};

static const char *op_name(unsigned char op)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++) {
        if (op_names[i].op == op) {
            return op_names[i].name;
        }
    }
    return NULL;
}

ember_status *em_tsp_error(const tsp *p, ember_code code, const char *fmt, ...)
{
    char msg[256], opbuf[16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *name = op_name(p->op);
    if (name == NULL) {
        snprintf(opbuf, sizeof opbuf, "opcode 0x%02x", p->op);
        name = opbuf;
    }
    return em_status_new(code, "%s: byte %zu: %s: %s", p->what, p->op_at, name, msg);
}

/* ---- values ------------------------------------------------------------------------------ */

em_tsv *em_tsp_new(tsp *p, em_tsv_kind kind)
{
    tsv_node *n = em_ts_arena_alloc(p->ar, sizeof *n);
    if (n == NULL) {
        return NULL;
    }
    n->v.kind = kind;
    return &n->v;
}

em_tsv *em_tsp_new_str(tsp *p, em_tsv_kind kind, const char *s, size_t n)
{
    em_tsv *v = em_tsp_new(p, kind);
    char *d = v != NULL ? em_ts_arena_strndup(p->ar, s, n) : NULL;
    if (d == NULL) {
        return NULL;
    }
    v->u.str.s = d;
    v->u.str.n = n;
    return v;
}

static ember_status *oom(void) { return em_status_oom(); }

/* Grows *items (length n, capacity tsv_cap(n)) to hold n + k. */
static ember_status *grow(tsp *p, em_tsv ***items, size_t n, size_t k)
{
    if (n + k <= tsv_cap(n)) {
        return NULL;
    }
    if (k > SIZE_MAX / sizeof(em_tsv *) / 4 - n) {
        return oom();
    }
    em_tsv **d = em_ts_arena_alloc(p->ar, sizeof *d * tsv_cap(n + k));
    if (d == NULL) {
        return oom();
    }
    if (n > 0) {
        memcpy(d, *items, sizeof *d * n);
    }
    *items = d;
    return NULL;
}

static ember_status *list_extend(tsp *p, em_tsv *list, em_tsv *const *items, size_t k)
{
    ember_status *st = grow(p, &list->u.seq.items, list->u.seq.n, k);
    if (st == NULL && k > 0) {
        memcpy(list->u.seq.items + list->u.seq.n, items, sizeof *items * k);
        list->u.seq.n += k;
    }
    return st;
}

/* Appends key/value pairs kv[0], kv[1], kv[2], ... (2k items). Keys are not deduplicated:
 * em_tsv_dict_get finds the last, as a Python dict would keep it. */
static ember_status *dict_extend(tsp *p, em_tsv *d, em_tsv *const *kv, size_t k)
{
    size_t n = d->u.dict.n;
    ember_status *st = grow(p, &d->u.dict.keys, n, k);
    if (st == NULL) {
        st = grow(p, &d->u.dict.values, n, k);
    }
    for (size_t i = 0; st == NULL && i < k; i++) {
        d->u.dict.keys[n + i] = kv[2 * i];
        d->u.dict.values[n + i] = kv[2 * i + 1];
    }
    if (st == NULL) {
        d->u.dict.n = n + k;
    }
    return st;
}

/* A new TUPLE or LIST holding a copy of items[0..k). */
static em_tsv *new_seq(tsp *p, em_tsv_kind kind, em_tsv *const *items, size_t k)
{
    em_tsv *v = em_tsp_new(p, kind);
    if (v != NULL && list_extend(p, v, items, k) != NULL) {
        return NULL;
    }
    return v;
}

/* ---- stack and marks ------------------------------------------------------------------- */

/* The heap array `arr` of *cap elements (stack, marks, memo) doubled, *cap updated; NULL
 * when out of memory (then `arr` and *cap are unchanged). */
static void *grow_heap(tsp *p, void *arr, size_t *cap, size_t elem)
{
    size_t n = *cap > 0 ? 2 * *cap : 64, bytes;
    void *d = em_size_mul(n, elem, &bytes) ? em_realloc(p->al, arr, bytes) : NULL;
    if (d != NULL) {
        *cap = n;
    }
    return d;
}

static size_t floor_of(const tsp *p) { return p->n_marks > 0 ? p->marks[p->n_marks - 1] : 0; }

static ember_status *push(tsp *p, em_tsv *v)
{
    if (v == NULL) {
        return oom();
    }
    if (p->sp == p->stack_cap) {
        em_tsv **grown = grow_heap(p, p->stack, &p->stack_cap, sizeof *grown);
        if (grown == NULL) {
            return oom();
        }
        p->stack = grown;
    }
    p->stack[p->sp++] = v;
    return NULL;
}

/* Pops k values into out[0..k) (in stack order); refuses to reach below the top mark. */
static ember_status *pop_n(tsp *p, size_t k, em_tsv **out)
{
    if (p->sp - floor_of(p) < k) {
        bool at_mark = p->n_marks > 0 && p->sp == floor_of(p);
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "%s",
                            at_mark ? "nothing above the MARK" : "stack empty");
    }
    p->sp -= k;
    memcpy(out, p->stack + p->sp, sizeof *out * k);
    return NULL;
}

static ember_status *top(tsp *p, em_tsv **out)
{
    if (p->sp == floor_of(p)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "stack empty");
    }
    *out = p->stack[p->sp - 1];
    return NULL;
}

/* Pops back to the top mark: the values above it are *items[0..*k) (valid until the next
 * push). */
static ember_status *pop_mark(tsp *p, em_tsv ***items, size_t *k)
{
    if (p->n_marks == 0) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "no MARK before it");
    }
    size_t m = p->marks[--p->n_marks];
    *items = p->stack != NULL ? p->stack + m : NULL; /* no push yet: nothing above it */
    *k = p->sp - m;
    p->sp = m;
    return NULL;
}

static ember_status *op_mark(tsp *p)
{
    if (p->n_marks == p->marks_cap) {
        size_t *grown = grow_heap(p, p->marks, &p->marks_cap, sizeof *grown);
        if (grown == NULL) {
            return oom();
        }
        p->marks = grown;
    }
    p->marks[p->n_marks++] = p->sp;
    return NULL;
}

/* ---- reading operands ------------------------------------------------------------------- */

static ember_status *need(tsp *p, size_t k)
{
    if (p->n - p->pos < k) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "truncated operand (%zu bytes left)",
                            p->n - p->pos);
    }
    return NULL;
}

static ember_status *rd_le(tsp *p, size_t k, uint64_t *v)
{
    ember_status *st = need(p, k);
    if (st == NULL) {
        *v = 0;
        for (size_t i = 0; i < k; i++) {
            *v |= (uint64_t)p->b[p->pos + i] << (8 * i);
        }
        p->pos += k;
    }
    return st;
}

/* ---- memo ------------------------------------------------------------------------------ */

static ember_status *memo_put(tsp *p, uint64_t idx)
{
    em_tsv *v = NULL;
    ember_status *st = top(p, &v);
    if (st != NULL) {
        return st;
    }
    if (idx > p->n_memo || idx >= EM_TS_PICKLE_MAX_MEMO) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "memo index %llu out of order (next free index %zu)",
                            (unsigned long long)idx, p->n_memo);
    }
    if (idx == p->n_memo) {
        if (p->n_memo == p->memo_cap) {
            em_tsv **grown = grow_heap(p, p->memo, &p->memo_cap, sizeof *grown);
            if (grown == NULL) {
                return oom();
            }
            p->memo = grown;
        }
        p->n_memo++;
    }
    p->memo[idx] = v;
    return NULL;
}

static ember_status *memo_get(tsp *p, uint64_t idx)
{
    if (idx >= p->n_memo) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "memo index %llu never put",
                            (unsigned long long)idx);
    }
    return push(p, p->memo[idx]);
}

static ember_status *op_memo(tsp *p)
{
    ember_status *st = NULL;
    uint64_t idx = 0;
    size_t text_idx = 0;
    switch (p->op) {
    case 'q': case 'h': EMBER_TRY(rd_le(p, 1, &idx)); break;
    case 'r': case 'j': EMBER_TRY(rd_le(p, 4, &idx)); break;
    case 'p': case 'g': EMBER_TRY(em_tsp_text_index(p, &text_idx)); idx = text_idx; break;
    default: idx = p->n_memo; break; /* MEMOIZE */
    }
    if (p->op == 'h' || p->op == 'j' || p->op == 'g') {
        return memo_get(p, idx);
    }
    return memo_put(p, idx);
fail:
    return st;
}

/* ---- scalars and strings ----------------------------------------------------------------- */

static ember_status *push_int(tsp *p, int64_t i)
{
    em_tsv *v = em_tsp_new(p, EM_TSV_INT);
    if (v != NULL) {
        v->u.i = i;
    }
    return push(p, v);
}

/* LONG1 / LONG4: n little-endian two's complement bytes; only values that fit int64. */
static ember_status *op_long(tsp *p)
{
    ember_status *st = NULL;
    uint64_t n = 0;
    EMBER_TRY(rd_le(p, p->op == 0x8a ? 1 : 4, &n));
    EMBER_TRY(need(p, n));
    const unsigned char *d = p->b + p->pos;
    uint64_t u = 0;
    for (uint64_t i = 0; i < n && i < 8; i++) {
        u |= (uint64_t)d[i] << (8 * i);
    }
    bool neg = n > 0 && (d[n - 1] & 0x80) != 0;
    if (n > 0 && n < 8 && neg) {
        u |= ~(uint64_t)0 << (8 * n);
    }
    for (uint64_t i = 8; i < n; i++) {
        if (d[i] != (neg ? 0xff : 0x00)) {
            return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "integer beyond 64 bits");
        }
    }
    if (n > 8 && ((u >> 63) != 0) != neg) {
        return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "integer beyond 64 bits");
    }
    p->pos += n;
    return push_int(p, (int64_t)u);
fail:
    return st;
}

static ember_status *op_int(tsp *p)
{
    ember_status *st = NULL;
    uint64_t u = 0;
    switch (p->op) {
    case 'K': EMBER_TRY(rd_le(p, 1, &u)); return push_int(p, (int64_t)u);
    case 'M': EMBER_TRY(rd_le(p, 2, &u)); return push_int(p, (int64_t)u);
    case 'J': EMBER_TRY(rd_le(p, 4, &u)); return push_int(p, (int64_t)(int32_t)(uint32_t)u);
    default: return op_long(p);
    }
fail:
    return st;
}

static ember_status *op_binfloat(tsp *p)
{
    ember_status *st = need(p, 8);
    if (st != NULL) {
        return st;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) {
        u = u << 8 | p->b[p->pos + (size_t)i]; /* big-endian */
    }
    p->pos += 8;
    em_tsv *v = em_tsp_new(p, EM_TSV_FLOAT);
    if (v != NULL) {
        memcpy(&v->u.f, &u, sizeof u);
    }
    return push(p, v);
}

/* Length-prefixed strings and bytes: BINUNICODE[8], SHORT_BINUNICODE, [SHORT_]BINBYTES[8],
 * [SHORT_]BINSTRING (Python 3 reads those as ASCII-decoded str). */
static ember_status *op_binstr(tsp *p)
{
    ember_status *st = NULL;
    size_t lenw = 4;
    em_tsv_kind kind = EM_TSV_STR;
    switch (p->op) {
    case 0x8c: case 'U': lenw = 1; break;
    case 'C': lenw = 1; kind = EM_TSV_BYTES; break;
    case 'B': kind = EM_TSV_BYTES; break;
    case 0x8e: lenw = 8; kind = EM_TSV_BYTES; break;
    case 0x8d: lenw = 8; break;
    default: break;
    }
    uint64_t n = 0;
    EMBER_TRY(rd_le(p, lenw, &n));
    EMBER_TRY(need(p, n));
    const unsigned char *s = p->b + p->pos;
    if (p->op == 'T' || p->op == 'U') {
        for (uint64_t i = 0; i < n; i++) {
            if (s[i] >= 0x80) {
                return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "byte string is not ASCII");
            }
        }
    } else if (kind == EM_TSV_STR && !em_tsp_utf8_valid(s, n)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "string is not UTF-8");
    }
    p->pos += n;
    return push(p, em_tsp_new_str(p, kind, (const char *)s, n));
fail:
    return st;
}

static ember_status *op_const(tsp *p)
{
    em_tsv *v = NULL;
    switch (p->op) {
    case 'N': v = em_tsp_new(p, EM_TSV_NONE); break;
    case 0x88: case 0x89:
        v = em_tsp_new(p, EM_TSV_BOOL);
        if (v != NULL) {
            v->u.b = p->op == 0x88;
        }
        break;
    case ')': v = em_tsp_new(p, EM_TSV_TUPLE); break;
    case ']': v = em_tsp_new(p, EM_TSV_LIST); break;
    case '}': v = em_tsp_new(p, EM_TSV_DICT); break;
    default: /* EMPTY_SET */
        v = em_tsp_new(p, EM_TSV_LIST);
        if (v != NULL) {
            v->u.seq.type_tag = "set";
        }
        break;
    }
    return push(p, v);
}

/* ---- containers -------------------------------------------------------------------------- */

static ember_status *op_tuple(tsp *p)
{
    ember_status *st = NULL;
    em_tsv **items = NULL, *few[3];
    size_t k = 0;
    if (p->op == 't' || p->op == 'l' || p->op == 0x91) {
        EMBER_TRY(pop_mark(p, &items, &k));
    } else {
        k = (size_t)(p->op - 0x84); /* TUPLE1..3 */
        EMBER_TRY(pop_n(p, k, few));
        items = few;
    }
    em_tsv *v = new_seq(p, p->op == 't' || (p->op >= 0x85 && p->op <= 0x87) ? EM_TSV_TUPLE
                                                                            : EM_TSV_LIST,
                        items, k);
    if (v != NULL && p->op == 0x91) {
        v->u.seq.type_tag = "frozenset";
    }
    return push(p, v);
fail:
    return st;
}

/* The container right below the values an opcode consumed, checked to be of `kind`. */
static ember_status *target(tsp *p, em_tsv_kind kind, em_tsv **out)
{
    ember_status *st = top(p, out);
    if (st == NULL && (*out)->kind != kind) {
        st = em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "applied to a %s, not a %s",
                          em_tsv_kind_name((*out)->kind), em_tsv_kind_name(kind));
    }
    return st;
}

static ember_status *op_append(tsp *p)
{
    ember_status *st = NULL;
    em_tsv **items = NULL, *one = NULL, *list = NULL;
    size_t k = 1;
    if (p->op == 'a') {
        EMBER_TRY(pop_n(p, 1, &one));
        items = &one;
    } else {
        EMBER_TRY(pop_mark(p, &items, &k));
    }
    EMBER_TRY(target(p, EM_TSV_LIST, &list));
    if (p->op == 0x90 && (list->u.seq.type_tag == NULL ||
                          strcmp(list->u.seq.type_tag, "set") != 0)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "applied to a list, not a set");
    }
    return list_extend(p, list, items, k);
fail:
    return st;
}

static ember_status *op_setitem(tsp *p)
{
    ember_status *st = NULL;
    em_tsv **items = NULL, *pair[2] = {NULL, NULL}, *d = NULL;
    size_t k = 2;
    if (p->op == 's') {
        EMBER_TRY(pop_n(p, 2, pair));
        items = pair;
    } else {
        EMBER_TRY(pop_mark(p, &items, &k));
        if (k % 2 != 0) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "odd number of items (%zu)", k);
        }
    }
    if (p->op == 'd') {
        em_tsv *nd = em_tsp_new(p, EM_TSV_DICT);
        if (nd == NULL) {
            return oom();
        }
        EMBER_TRY(dict_extend(p, nd, items, k / 2));
        return push(p, nd);
    }
    EMBER_TRY(target(p, EM_TSV_DICT, &d));
    return dict_extend(p, d, items, k / 2);
fail:
    return st;
}

/* ---- globals and calls ------------------------------------------------------------------- */

static bool global_part_ok(const char *s, size_t n)
{
    if (n == 0) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] <= ' ' || s[i] >= 0x7f) {
            return false;
        }
    }
    return true;
}

static ember_status *push_global(tsp *p, const char *mod, size_t mn, const char *name, size_t nn)
{
    if (!global_part_ok(mod, mn) || !global_part_ok(name, nn)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed global name");
    }
    em_tsv *v = em_tsp_new(p, EM_TSV_GLOBAL);
    char *s = v != NULL ? em_ts_arena_alloc(p->ar, mn + nn + 2) : NULL;
    if (s == NULL) {
        return oom();
    }
    memcpy(s, mod, mn);
    s[mn] = '.';
    memcpy(s + mn + 1, name, nn);
    v->u.str.s = s;
    v->u.str.n = mn + 1 + nn;
    return push(p, v);
}

static ember_status *op_global(tsp *p)
{
    ember_status *st = NULL;
    const char *mod, *name;
    size_t mn, nn;
    if (p->op == 'c') {
        EMBER_TRY(em_tsp_line(p, &mod, &mn));
        EMBER_TRY(em_tsp_line(p, &name, &nn));
        return push_global(p, mod, mn, name, nn);
    }
    em_tsv *v[2] = {NULL, NULL};
    EMBER_TRY(pop_n(p, 2, v));
    if (v[0]->kind != EM_TSV_STR || v[1]->kind != EM_TSV_STR) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "module and name must be strings");
    }
    return push_global(p, v[0]->u.str.s, v[0]->u.str.n, v[1]->u.str.s, v[1]->u.str.n);
fail:
    return st;
}

static ember_status *op_call(tsp *p)
{
    ember_status *st = NULL;
    em_tsv *v[3] = {NULL, NULL, NULL}, *out = NULL;
    switch (p->op) {
    case 'R':
        EMBER_TRY(pop_n(p, 2, v));
        EMBER_TRY(em_tsp_reduce(p, v[0], v[1], &out));
        break;
    case 0x81:
        EMBER_TRY(pop_n(p, 2, v));
        EMBER_TRY(em_tsp_newobj(p, v[0], v[1], &out));
        break;
    case 0x92:
        EMBER_TRY(pop_n(p, 3, v));
        if (v[2]->kind != EM_TSV_DICT || v[2]->u.dict.n != 0) {
            return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "keyword arguments");
        }
        EMBER_TRY(em_tsp_newobj(p, v[0], v[1], &out));
        break;
    case 'b':
        EMBER_TRY(pop_n(p, 1, v));
        EMBER_TRY(top(p, &v[1]));
        return em_tsp_build(p, v[1], v[0]);
    default: /* BINPERSID */
        EMBER_TRY(pop_n(p, 1, v));
        EMBER_TRY(em_tsp_persid(p, v[0], &out));
        break;
    }
    return push(p, out);
fail:
    return st;
}

/* ---- stack opcodes ----------------------------------------------------------------------- */

static ember_status *op_stack(tsp *p)
{
    ember_status *st = NULL;
    em_tsv *v = NULL, **items = NULL;
    size_t k = 0;
    uint64_t u;
    switch (p->op) {
    case '(': return op_mark(p);
    case '1': return pop_mark(p, &items, &k);
    case '2': EMBER_TRY(top(p, &v)); return push(p, v);
    case '0':
        /* CPython: POP with nothing above the mark pops the mark. */
        if (p->n_marks > 0 && p->sp == floor_of(p)) {
            return pop_mark(p, &items, &k);
        }
        return pop_n(p, 1, &v);
    case 0x95: /* FRAME: a length we need not trust; just skip it */
        return rd_le(p, 8, &u);
    default: /* PROTO */
        EMBER_TRY(rd_le(p, 1, &u));
        if (p->op_at != 0 || u > 5) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "%s",
                                p->op_at != 0 ? "not the first opcode" : "protocol above 5");
        }
        p->proto = (int)u;
        return NULL;
    }
fail:
    return st;
}

static ember_status *op_text(tsp *p)
{
    ember_status *st = NULL;
    em_tsv *v = NULL;
    if (p->op == 'S' || p->op == 'V') {
        EMBER_TRY(em_tsp_text_string(p, &v));
    } else {
        EMBER_TRY(em_tsp_text_number(p, &v));
    }
    return push(p, v);
fail:
    return st;
}

/* ---- the loop ---------------------------------------------------------------------------- */

typedef ember_status *(*op_fn)(tsp *p);

static op_fn op_handler(unsigned char op)
{
    switch (op) {
    case '(': case '0': case '1': case '2': case 0x80: case 0x95: return op_stack;
    case 'N': case 0x88: case 0x89: case ')': case ']': case '}': case 0x8f: return op_const;
    case 'K': case 'M': case 'J': case 0x8a: case 0x8b: return op_int;
    case 'G': return op_binfloat;
    case 'X': case 0x8c: case 0x8d: case 'B': case 'C': case 0x8e: case 'T': case 'U':
        return op_binstr;
    case 'I': case 'L': case 'F': case 'S': case 'V': return op_text;
    case 'q': case 'r': case 'p': case 'h': case 'j': case 'g': case 0x94: return op_memo;
    case 't': case 'l': case 0x85: case 0x86: case 0x87: case 0x91: return op_tuple;
    case 'a': case 'e': case 0x90: return op_append;
    case 's': case 'u': case 'd': return op_setitem;
    case 'c': case 0x93: return op_global;
    case 'R': case 0x81: case 0x92: case 'b': case 'Q': return op_call;
    default: return NULL;
    }
}

static ember_status *run(tsp *p, em_tsv **root)
{
    while (p->pos < p->n) {
        p->op_at = p->pos;
        p->op = p->b[p->pos++];
        if (p->op == '.') {
            if (p->n_marks != 0 || p->sp != 1) {
                return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                                    "%zu values and %zu marks on the stack, not one value",
                                    p->sp, p->n_marks);
            }
            *root = p->stack[0];
            return NULL;
        }
        op_fn fn = op_handler(p->op);
        if (fn == NULL) {
            return em_tsp_error(p, op_name(p->op) != NULL ? EMBER_ERR_UNSUPPORTED
                                                          : EMBER_ERR_INVALID_MODEL,
                                "%s", op_name(p->op) != NULL ? "opcode not read by ember"
                                                             : "unknown opcode");
        }
        ember_status *st = fn(p);
        if (st != NULL) {
            return st;
        }
    }
    p->op_at = p->pos;
    p->op = '.';
    return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "truncated: the pickle ends before STOP");
}

/* ---- API --------------------------------------------------------------------------------- */

ember_status *em_ts_pickle_load(const void *data, size_t size, const char *what,
                                em_ts_record_fn records, void *ctx, const ember_allocator *al,
                                em_ts_pickle **out)
{
    ember_status *st = NULL;
    em_ts_pickle *pk = NULL;
    tsp p = {0};
    if (out == NULL || (data == NULL && size > 0)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "ts_pickle_load: NULL argument");
    }
    *out = NULL;
    pk = em_calloc(al, 1, sizeof *pk);
    if (pk == NULL) {
        return oom();
    }
    em_ts_arena_init(&pk->ar, al);
    p = (tsp){.b = data, .n = size, .what = what != NULL ? what : "pickle", .al = al,
              .ar = &pk->ar, .records = records, .ctx = ctx, .proto = -1};
    em_tsv *root = NULL;
    EMBER_TRY(run(&p, &root));
    EMBER_TRY(em_tsp_walk(&p, root));
    pk->root = root;
    pk->proto = p.proto;
    *out = pk;
    pk = NULL;
fail:
    em_free(al, p.stack);
    em_free(al, p.marks);
    em_free(al, p.memo);
    em_tsp_slots_free(&p);
    em_ts_pickle_free(pk);
    return st;
}

const em_tsv *em_ts_pickle_root(const em_ts_pickle *p) { return p != NULL ? p->root : NULL; }

int em_ts_pickle_protocol(const em_ts_pickle *p) { return p != NULL ? p->proto : -1; }

void em_ts_pickle_free(em_ts_pickle *p)
{
    if (p == NULL) {
        return;
    }
    const ember_allocator *al = p->ar.al;
    em_ts_arena_free(&p->ar);
    em_free(al, p);
}
