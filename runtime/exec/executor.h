/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The executor: runs a plan (plan/planner.h) on a run context. A run context is what one
 * concurrent run owns: the arena, each value's address in it (or in a constant or a caller's
 * buffer) and the per-node tensor arrays kernels see. Sessions (api/session.c) keep a free
 * list of them per plan, so concurrent runs never share an arena and a steady-state run
 * allocates nothing.
 */
#ifndef EMBER_EXEC_EXECUTOR_H
#define EMBER_EXEC_EXECUTOR_H

#include "core/thread.h"
#include "plan/planner.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct em_runctx {
    struct em_runctx *next;
    void *arena;
    size_t arena_bytes;
    void **vdata;   /* per value */
    em_tensor *tin; /* per node input, plan->n_tensors_in */
    em_tensor *tout;
    int64_t *ev;    /* profiling: per node (start, dur) */
} em_runctx;

/* A run context for `p`: its arena, and value addresses for constants and arena values
 * (outputs bound by the caller are filled in per run, in vdata). em_runctx_bytes is what one
 * holds (arena and tables). */
size_t em_runctx_bytes(const em_plan *p);
ember_status *em_runctx_new(const ember_allocator *al, const em_plan *p, em_runctx **out);
void em_runctx_destroy(const ember_allocator *al, em_runctx *c);

/* Runs every node of `p` that is not folded or in place, in order, on `c` (vdata complete).
 * With `profile`, each node's start (ns since t0) and duration go to c->ev[2 * node]. */
void em_exec_run(const em_plan *p, em_runctx *c, em_threadpool *pool, bool profile, int64_t t0);

#endif /* EMBER_EXEC_EXECUTOR_H */
