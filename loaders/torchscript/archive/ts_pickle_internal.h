/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pickle machine's state, shared by ts_pickle.c (opcodes, stack, memo),
 * ts_pickle_globals.c (what GLOBAL names do when called: tensors, storages, typed lists,
 * devices, objects), ts_pickle_text.c (protocol 0 operands) and ts_pickle_walk.c (the
 * depth/cycle walk after STOP).
 *
 * Every em_tsv lives inside a tsv_node of the arena, whose extra fields are private: flags
 * (a value made by BINPERSID is a whole storage, and remembers whether its type was
 * quantized) and the walk's state. Containers grow in place with power-of-two capacities
 * derived from their length (tsv_cap), so a list shared through the memo stays one object.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_PICKLE_INTERNAL_H
#define EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_PICKLE_INTERNAL_H

#include "ts_arena.h"
#include "ts_pickle.h"

#include <stdarg.h>

enum {
    TSV_STORAGE = 1,  /* made by BINPERSID: the whole storage as a 1-D tensor */
    TSV_QSTORAGE = 2, /* ... of a quantized storage type (QInt8Storage, ...) */
    TSV_BUILT = 4     /* an object whose state BUILD has set */
};

typedef struct tsv_node {
    uint32_t flags;
    uint32_t walk;  /* 0 not seen, 1 on the walk's path, 2 done */
    uint32_t depth; /* containers nested below and including this value, once done */
    em_tsv v;
} tsv_node;

/* A storage loaded through the callback, by key (open addressing, power-of-two size). */
typedef struct tsp_slot {
    const char *key;
    em_tsv *storage;
} tsp_slot;

typedef struct tsp {
    const unsigned char *b;
    size_t n, pos;
    size_t op_at;       /* offset of the opcode being run */
    int proto;          /* the PROTO opcode's protocol; -1 until one is run */
    unsigned char op;
    const char *what;
    const ember_allocator *al;
    em_ts_arena *ar;
    em_ts_record_fn records;
    void *ctx;
    em_tsv **stack;
    size_t sp, stack_cap;
    size_t *marks;
    size_t n_marks, marks_cap;
    em_tsv **memo;
    size_t n_memo, memo_cap;
    tsp_slot *slots;
    size_t n_slots, slots_cap;
} tsp;

static inline tsv_node *tsv_node_of(const em_tsv *v)
{
    return (tsv_node *)(void *)((char *)(uintptr_t)v - offsetof(tsv_node, v));
}

/* Capacity of a container of length n: 0, or the next power of two (>= 4). */
static inline size_t tsv_cap(size_t n)
{
    size_t c = 4;
    while (c < n) {
        c *= 2;
    }
    return n == 0 ? 0 : c;
}

/* "<what>: byte <op_at>: <OPNAME>: <message>" with `code`. */
ember_status *em_tsp_error(const tsp *p, ember_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A new value of `kind` (zeroed) in the arena; NULL when out of memory. */
em_tsv *em_tsp_new(tsp *p, em_tsv_kind kind);
/* A new STR (or another string-like kind) copying s[0..n). */
em_tsv *em_tsp_new_str(tsp *p, em_tsv_kind kind, const char *s, size_t n);

/* GLOBAL semantics, ts_pickle_globals.c. Each returns NULL and sets *out, or a status. */
ember_status *em_tsp_reduce(tsp *p, const em_tsv *callable, const em_tsv *args, em_tsv **out);
ember_status *em_tsp_newobj(tsp *p, const em_tsv *cls, const em_tsv *args, em_tsv **out);
ember_status *em_tsp_build(tsp *p, em_tsv *obj, em_tsv *state);
ember_status *em_tsp_persid(tsp *p, const em_tsv *pid, em_tsv **out);
void em_tsp_slots_free(tsp *p);

/* After STOP, ts_pickle_walk.c: refuses cycles and nesting deeper than the bound. */
ember_status *em_tsp_walk(const tsp *p, em_tsv *root);

/* Protocol 0 text opcodes, ts_pickle_text.c: the line at p->pos (without its '\n'). */
ember_status *em_tsp_line(tsp *p, const char **s, size_t *n);
/* INT ("I00"/"I01" are False/True), LONG ("123L"), FLOAT: a new value from the line. */
ember_status *em_tsp_text_number(tsp *p, em_tsv **out);
/* STRING (a quoted Python 2 str literal) and UNICODE (raw-unicode-escape): a new STR. */
ember_status *em_tsp_text_string(tsp *p, em_tsv **out);
/* The decimal index of GET / PUT. */
ember_status *em_tsp_text_index(tsp *p, size_t *out);
/* Whether s[0..n) is valid UTF-8 (no overlongs, no surrogates). */
bool em_tsp_utf8_valid(const unsigned char *s, size_t n);

#endif /* EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_PICKLE_INTERNAL_H */
