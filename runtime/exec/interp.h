/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interpreter: runs a graph node by node on run-time values, for what the planner cannot
 * plan ahead of the data:
 *  - control flow (If, Loop, Scan, SequenceMap), whose subgraphs it runs recursively;
 *  - sequence and optional values (ops_ctrl.def), which it implements itself;
 *  - ops whose output shapes depend on input data (EM_OPF_DYNAMIC: NonZero, Unique, ...).
 * Each node's output shapes come from its shape function with every input's value visible, so
 * data-dependent shapes are exact; the node's kernel is then chosen and prepared as the planner
 * would (em_kernel_pick), run once, and released. Values hold reference-counted storages, so
 * views (Reshape, Identity, ...), sequence items and subgraph inputs share bytes instead of
 * copying them; a value is released after its last reader.
 *
 * Cost: a kernel's prepare runs on every execution of its node. Graphs without the ops above
 * take the planner's path (planner.h), which prepares once per input signature.
 */
#ifndef EMBER_EXEC_INTERP_H
#define EMBER_EXEC_INTERP_H

#include "core/value.h"
#include "ir/graph.h"
#include "core/thread.h"

typedef struct em_interp {
    const ember_allocator *al;
    uint64_t isa;         /* features kernels may use */
    em_threadpool *pool;  /* may be NULL */
} em_interp;

/* Runs `g` on inputs[0..g->n_inputs) (shared, not consumed) and fills outputs[0..n_outputs),
 * which the caller clears with em_rv_clear. Errors name the node and what is wrong. */
ember_status *em_interp_run(const em_interp *it, const em_graph *g, const em_rv *inputs,
                            em_rv *outputs);

/* True when `g` holds a node only the interpreter runs, or a sequence / optional input or
 * output. */
bool em_graph_needs_interp(const em_graph *g);

#endif /* EMBER_EXEC_INTERP_H */
