/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to loaders/pt2: the state of one load, shared by pt2_load.c (archive, weights,
 * signature) and pt2_nodes.c (the graph's nodes, through the TorchScript loader's aten
 * lowering). Names of the program (placeholders, node outputs, symbolic ints) map to the
 * lowering's abstract values (ts_av) in `names`.
 */
#ifndef EMBER_LOADERS_PT2_PT2_INTERNAL_H
#define EMBER_LOADERS_PT2_PT2_INTERNAL_H

#include "pt2_json.h"
#include "loaders/torchscript/lang/ts_check.h"
#include "loaders/torchscript/lower/ts_lower.h"

typedef struct em_pt2 {
    ts_lower L;           /* the lowering's state: arena, root graph, zip, what */
    em_ts_map names;      /* program name -> ts_av */
} em_pt2;

/* torch.export's ScalarType (torch/_export/serde/schema.py: FLOAT = 7) as ember's dtype;
 * EMBER_DTYPE_UNDEFINED for one ember has none of. */
ember_dtype em_pt2_dtype(int64_t st);
/* Binds `name` to value v; a name bound twice is INVALID_MODEL naming `where`. */
ember_status *em_pt2_bind(em_pt2 *p, const char *name, ts_av *v, const char *where);
/* Lowers the nodes of graph (graph_module.graph's "nodes" array) in order. */
ember_status *em_pt2_lower_nodes(em_pt2 *p, const em_pt2_json *nodes);

#endif /* EMBER_LOADERS_PT2_PT2_INTERNAL_H */
