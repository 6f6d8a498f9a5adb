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
#ifndef EMBER_RUNTIME_INTERP_H
#define EMBER_RUNTIME_INTERP_H

#include "graph.h"
#include "thread.h"

typedef enum em_rv_kind {
    EM_RV_ABSENT = 0, /* not computed (or an absent optional input) */
    EM_RV_TENSOR,
    EM_RV_SEQUENCE,
    EM_RV_NONE        /* an optional without a value */
} em_rv_kind;

typedef struct em_rv {
    em_rv_kind kind;
    em_tensor t;          /* TENSOR: dtype and shape; t.data points into `s` */
    em_storage *s;        /* TENSOR: the bytes (one reference held) */
    ember_dtype elem;     /* SEQUENCE, NONE: the element dtype */
    int n;                /* SEQUENCE: item count */
    struct em_rv *items;  /* SEQUENCE: n tensors */
} em_rv;

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

void em_rv_clear(const ember_allocator *al, em_rv *v);
/* dst = another reference to src's bytes (sequences: a new item array sharing the bytes). */
ember_status *em_rv_share(const ember_allocator *al, const em_rv *src, em_rv *dst);
/* A tensor value with fresh, zeroed bytes. */
ember_status *em_rv_new_tensor(const ember_allocator *al, ember_dtype dt, const int64_t *dims,
                               int rank, em_rv *out);

#endif /* EMBER_RUNTIME_INTERP_H */
