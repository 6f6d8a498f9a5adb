/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the layout pass (passes.h step 5): passes_layout.c blocks the convolutions and
 * places the reorders, passes_layout_ops.c turns the ops between blocked values into their
 * blocked twins (Concat, BlockedPool, BlockedAffine; runtime/ir/blocked.h).
 */
#ifndef EMBER_PASSES_PASSES_LAYOUT_H
#define EMBER_PASSES_PASSES_LAYOUT_H

#include "passes/passes.h"

#include <stdint.h>

typedef struct em_layout {
    int64_t b;  /* the channel block */
    int n_old;  /* nodes before the pass: nodes added since go where `after` says */
    int *blk;   /* per value: its blocked twin, or -1 */
    int *after; /* per new node: the node (old index) it goes after; -1: first */
} em_layout;

/* Node ni now writes the blocked twin of its output 0 (of `channels` channels), which a
 * ReorderFromBlocked placed right after it turns back into the plain value (dead code unless a
 * plain reader or a graph output needs it). */
ember_status *em_layout_twin_output(em_pctx *c, em_layout *l, int ni, int64_t channels);

/* Walks the nodes in order and turns each op that reads a blocked value, and has a blocked
 * twin, into that twin: channel Concats of whole blocks, 2-D pools, BatchNormalization,
 * activations, and Mul / Add by a per-channel value (passes_layout_ops.c). */
ember_status *em_layout_ops(em_pctx *c, em_layout *l);

#endif /* EMBER_PASSES_PASSES_LAYOUT_H */
