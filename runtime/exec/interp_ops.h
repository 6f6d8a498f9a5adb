/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interpreter (interp.c, interp_seq.c): value helpers and the sequence ops. */
#ifndef EMBER_EXEC_INTERP_OPS_H
#define EMBER_EXEC_INTERP_OPS_H

#include "exec/interp.h"

/* The elements [start, start + len) of `src` along `axis`, as a new tensor; keep_axis = false
 * drops the axis (len must be 1). */
ember_status *em_rv_slice_axis(const ember_allocator *al, const em_rv *src, int axis,
                               int64_t start, int64_t len, bool keep_axis, em_rv *out);
/* items[0..n) joined along `axis`; new_axis inserts the axis first (stacking). Items must agree
 * in dtype and in every other dim: errors name `who`. */
ember_status *em_rv_concat(const ember_allocator *al, const em_rv *items, int n, int axis,
                           bool new_axis, const char *who, em_rv *out);
/* The single element of an integer or bool tensor. */
bool em_rv_scalar_i64(const em_rv *v, int64_t *out);

/* Runs sequence / optional op `n` (not control flow) on in[0..n_in) (absent inputs have kind
 * EM_RV_ABSENT) into out[0]. */
ember_status *em_interp_seq_op(const em_interp *it, const em_node *n, const em_rv *in,
                               em_rv *out);

/* interp_str.c: string tensors. True when `g` (or a subgraph) holds a string value, a cast to
 * string or a text op: it then runs through the interpreter. */
bool em_graph_has_strings(const em_graph *g);
/* UNSUPPORTED, naming the node, when a string input or output meets an op that cannot take
 * strings. */
ember_status *em_interp_str_check(const em_node *n, const em_tensor *tin, const em_tensor *tout);
/* After kernel node `n` ran: each string output (storage st[o], from em_str_out_new) takes its
 * arena's chunks and keeps the bytes of every string input; returns the error its kernel
 * recorded, if any. */
ember_status *em_interp_str_finish(const em_node *n, const em_rv *env, em_storage **st,
                                   const em_tensor *tout);

#endif /* EMBER_EXEC_INTERP_OPS_H */
