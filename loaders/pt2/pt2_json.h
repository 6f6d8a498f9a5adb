/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small JSON reader for torch.export archives (RFC 8259): the whole text into a tree of
 * values allocated from an arena, objects keeping their keys in file order. Nesting deeper
 * than EM_PT2_JSON_MAX_DEPTH and texts over EM_PT2_JSON_MAX_BYTES are refused, so a hostile
 * file cannot exhaust the stack, and memory stays linear in the text's size. Numbers keep
 * their double value and, when they are integers that fit, their int64 value. Strings are
 * unescaped to UTF-8 (\uXXXX with surrogate pairs); a NUL from \u0000 is refused.
 * Threads: reentrant; a tree is read-only once parsed.
 */
#ifndef EMBER_LOADERS_PT2_PT2_JSON_H
#define EMBER_LOADERS_PT2_PT2_JSON_H

#include "ember.h"
#include "loaders/torchscript/archive/ts_arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_PT2_JSON_MAX_DEPTH 256 /* arrays and objects nested in one another */
#define EM_PT2_JSON_MAX_BYTES ((size_t)1 << 30)

typedef enum em_pt2_jkind {
    EM_PT2_JNULL = 0,
    EM_PT2_JBOOL,
    EM_PT2_JNUM,
    EM_PT2_JSTR,
    EM_PT2_JARR,
    EM_PT2_JOBJ
} em_pt2_jkind;

typedef struct em_pt2_json em_pt2_json;
struct em_pt2_json {
    em_pt2_jkind k;
    bool b;
    bool is_int;          /* JNUM: an integer that fits int64 (then `i` holds it) */
    int64_t i;
    double f;
    const char *s;        /* JSTR: NUL-terminated */
    size_t n;             /* JARR / JOBJ: item count; JSTR: length */
    em_pt2_json **items;  /* JARR / JOBJ: values */
    const char **keys;    /* JOBJ: keys, in file order */
};

/* Parses text[0..n) into a tree allocated from `arena`. INVALID_MODEL "<what>: JSON: <why> at
 * byte <offset>" for text that is not JSON, too deep or too large; OUT_OF_MEMORY. */
ember_status *em_pt2_json_parse(em_ts_arena *arena, const char *text, size_t n, const char *what,
                                const em_pt2_json **out);
/* Member `key` of object o; NULL when o is not an object or has no such member. */
const em_pt2_json *em_pt2_json_get(const em_pt2_json *o, const char *key);
/* The kind's name ("object", "array", ...), for messages. */
const char *em_pt2_json_kind_name(em_pt2_jkind k);

#endif /* EMBER_LOADERS_PT2_PT2_JSON_H */
