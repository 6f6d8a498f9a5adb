/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checks of one parsed code record (ts_ast.h) that torch.jit.load makes before it compiles a
 * class, or that hold for everything torch.jit.save writes, needing no other record. The
 * checks that need the archive (types naming classes, returns, calls, attributes against
 * data.pkl) are the lowering's (lower/ts_typecheck.c).
 *
 *   imports     `from M import N` is refused (torch.jit.load: "Unexpected token in code
 *               import"); `import M` is accepted only for M = __torch__ or __torch__.<...>.
 *               torch.jit.load skips every top-level `import M` line (its importer keeps that
 *               for "older versions of serialization", which wrote import lines to order the
 *               files' classes); code only ever names its own __torch__ classes, so another
 *               module (`import os`) marks a forged record and ember refuses it. Imports inside
 *               a class or function do not parse (ts_parse*.c), as in torch.jit.load.
 *   names       a class or function defined twice in the record, or a class and a function of
 *               one name (torch.jit.load keeps the last silently; PyTorch's writer mangles
 *               names, so a second definition is a forgery); a method defined twice in a class
 *               (torch.jit.load: "Can't redefine method"); an attribute or constant declared
 *               twice ("an attribute field of the same name already exists").
 *   types       every attribute, constant and signature type is a type (em_ts_type_from_expr;
 *               a lowercase name that is no builtin type is refused, not a type variable:
 *               torch.jit.load's "Unknown type name"); each name in __parameters__ or
 *               __buffers__ declared as an attribute has type Tensor, Optional[Tensor] or
 *               NoneType ("Expecting parameter or buffer to have either None, Tensor or
 *               Optional[Tensor] type").
 * Errors are INVALID_MODEL with the caret message of em_ts_error_at (file, line, column, the
 * source line, a caret) at the offending declaration. Work is linear in the module's size
 * (names are hashed).
 * Threads: reentrant; `a` is used by one thread at a time.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LANG_TS_CHECK_H
#define EMBER_LOADERS_TORCHSCRIPT_LANG_TS_CHECK_H

#include "ts_ast.h"
#include "ts_type.h"

/* Runs the checks above on `m` (allocating scratch in `a`); NULL when they pass. */
ember_status *em_ts_check_module(em_ts_ast_arena *a, const em_ts_module *m);

/* The declared type of a member, parameter or return annotation: NULL status and *out set,
 * or INVALID_MODEL at the expression (a type variable is refused here: code has none). */
ember_status *em_ts_check_type(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out);

/*
 * A hash map of keys (k1, k2) -> val in an arena, for the checks' visited sets and name
 * tables: string keys (k1 a NUL-terminated string, k2 NULL) or pointer pairs. Outgrown tables
 * stay in the arena (linear overall).
 */
typedef struct em_ts_map_entry {
    const void *k1, *k2, *val;
} em_ts_map_entry;

typedef struct em_ts_map {
    em_ts_ast_arena *a;
    bool strings; /* k1 is a string compared by content */
    em_ts_map_entry *e;
    size_t n, cap; /* cap: 0 or a power of two */
} em_ts_map;

/* Adds (k1, k2) -> val unless the key is there; *prev (may be NULL) gets the value already
 * there, or NULL when the key was added. OUT_OF_MEMORY or NULL. */
ember_status *em_ts_map_put(em_ts_map *m, const void *k1, const void *k2, const void *val,
                            const void **prev);
/* The value of (k1, k2); NULL when absent. */
const void *em_ts_map_get(const em_ts_map *m, const void *k1, const void *k2);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LANG_TS_CHECK_H */
