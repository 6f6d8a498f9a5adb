/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Control flow that depends on tensor data, in the TorchScript lowering (internal to
 * ts_eval.c, ts_expr.c, ts_emit.c, ts_value.c, ts_flow.c and ts_flow_list.c; the design is
 * docs/torchscript.md).
 *
 * An `if` whose condition is a tensor or a dynamic scalar becomes an If node: each branch is
 * lowered into its own subgraph (L->g moves into it, the enclosing graphs stay on L->frames and
 * em_ts_use captures their values by name), and the variables the branches leave different become
 * the node's outputs. A `for` over range() of a dynamic scalar, or a `while` whose condition
 * depends on data, becomes a Loop node whose body is lowered once; the variables it changes are
 * carried (the body is lowered again, with their kinds and shapes widened, until they settle),
 * and lists it appends to become scan outputs, stacked after the loop (TA_STACK).
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_FLOW_H
#define EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_FLOW_H

#include "ts_lower.h"

/* ---- statements (ts_eval.c) ---- */
typedef enum ts_flow_kind {
    TS_FLOW_NORMAL,
    TS_FLOW_RETURN,
    TS_FLOW_BREAK,
    TS_FLOW_CONTINUE
} ts_flow_kind;

/* Runs block `b` in scope `env` (a `return` value is dropped: *fl tells it happened). */
ember_status *em_ts_exec_block(ts_lower *L, ts_env *env, const em_ts_block *b, ts_flow_kind *fl);
ember_status *em_ts_assign(ts_lower *L, ts_env *env, const em_ts_expr *target, ts_av *v);

/* ---- subgraphs (ts_emit.c) ---- */
/* Nodes go to `sub` until em_ts_sub_leave; the current graph is pushed on L->frames. */
ember_status *em_ts_sub_enter(ts_lower *L, em_graph *sub);
void em_ts_sub_leave(ts_lower *L);
/* Graph attribute `name` of node `node` of the current graph; it owns `*sub` on success (then
 * *sub is set to NULL). */
ember_status *em_ts_sub_attach(ts_lower *L, int node, const char *name, em_graph **sub);
/* Marks v an output of the current graph, through an Identity (an output is never an input or
 * another output). */
ember_status *em_ts_add_output(ts_lower *L, const ts_call *c, int v);
/* A fresh graph input of the current graph. */
ember_status *em_ts_add_input(ts_lower *L, const char *base, ember_dtype dt, int rank,
                           const int64_t *dims, const char *const *syms, int *out);

/* ---- values (ts_value.c) ---- */
ember_status *em_ts_env_copy(ts_lower *L, const ts_env *src, ts_env *dst);
/* Whether a and b are the same value as far as load time can tell: numbers, strings, None,
 * sequences of such, or the same tensor / object. */
bool em_ts_same_value(const ts_av *a, const ts_av *b);

/* The lists and dicts reachable from a scope, with their contents, to tell what a block
 * changed in them and to undo it. */
typedef struct ts_snap_rec {
    ts_av *c;           /* the list or dict */
    ts_ak k;            /* its kind then */
    size_t n, cap;
    ts_av **items;      /* its arrays then (lists: u.seq.items; dicts: u.dict.vals) */
    ts_av **keys;       /* dicts: u.dict.keys */
    ts_av **copy;       /* the items (or values) then */
    ts_av **key_copy;
} ts_snap_rec;

typedef struct ts_snap {
    ts_snap_rec *r;
    size_t n, cap;
} ts_snap;

ember_status *em_ts_snap_take(ts_lower *L, const ts_env *env, ts_snap *s);
/* Whether record i changed since; *grown: only items were appended (a list). */
bool em_ts_snap_changed(const ts_snap *s, size_t i, bool *grown);
void em_ts_snap_restore(const ts_snap *s);

/* ---- control flow (ts_flow.c) ---- */
/* An `if` statement whose condition `cond` depends on data. */
ember_status *em_ts_flow_if(ts_lower *L, ts_env *env, const em_ts_stmt *s, ts_av *cond);
/* `a if cond else b` whose condition depends on data. */
ember_status *em_ts_flow_ifexp(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av *cond,
                            ts_av **out);
/* `for target in range(args)` where an argument is a dynamic scalar. */
ember_status *em_ts_flow_for(ts_lower *L, ts_env *env, const em_ts_stmt *s, ts_av **args,
                          size_t n);
/* `while` whose condition, now `cond`, depends on data. */
ember_status *em_ts_flow_while(ts_lower *L, ts_env *env, const em_ts_stmt *s, ts_av *cond);

/* ---- lists of run-time length (ts_flow_list.c) ---- */
/* Builtin calls with a TA_STACK or TA_APPENDING argument: append inside the loop; stack, cat,
 * len and indexing after it; anything else is refused. *handled false when no argument is
 * one of these lists. */
ember_status *em_ts_flow_builtin(ts_lower *L, const char *q, ts_av **args, size_t n,
                              const char **kwn, ts_av **kwv, size_t nk, em_ts_pos pos,
                              bool *handled, ts_av **out);
/* A list a loop's body appends to: the items of one iteration (one lowering of the body)
 * become scan outputs. */
typedef struct ts_appended {
    ts_av *list;
    ts_av **items;
    size_t n;
} ts_appended;

/* Before a lowering of the body: the lists of ap become TA_APPENDING, empty. */
ember_status *em_ts_flow_mark_appends(ts_lower *L, const ts_appended *ap, size_t n);
/* After it (before em_ts_snap_restore): the items appended to the marked lists; lists of the
 * snapshot appended to but not marked yet join ap (then *changed); any other change of a list
 * or dict is refused. */
ember_status *em_ts_flow_appends(ts_lower *L, const ts_snap *snap, ts_appended *ap, size_t *n_ap,
                              em_ts_pos pos, bool *changed);
/* After a loop, `list` (u.seq: its items before the loop) becomes a TA_STACK of those items
 * followed by the loop's k scan outputs scan[0..k), interleaved (k items appended per
 * iteration). */
ember_status *em_ts_flow_stack_list(ts_lower *L, const ts_call *c, ts_av *list, const int *scan,
                                 size_t k);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_FLOW_H */
