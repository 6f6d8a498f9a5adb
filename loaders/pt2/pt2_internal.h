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

/* A parameter or buffer placeholder: its FQN, the value the lowering binds to its name (an
 * in-place op on it rebinds the value) and its initializer. */
typedef struct em_pt2_state {
    const char *fqn;
    ts_av *av;
    int init;
    bool mutated; /* named by a buffer_mutation / parameter_mutation output */
} em_pt2_state;

typedef struct em_pt2 {
    ts_lower L;           /* the lowering's state: arena, root graph, zip, what */
    em_ts_map names;      /* program name -> ts_av */
    em_pt2_state *state;  /* n_state of them (arena) */
    size_t n_state;
} em_pt2;

/* A node's arguments as the lowering's values: positional ones in order, keyword ones by
 * name. */
typedef struct em_pt2_call {
    ts_av **pos;
    size_t n_pos;
    const char **kw_names;
    ts_av **kw_vals;
    size_t n_kw;
} em_pt2_call;

/* torch.export's ScalarType (torch/_export/serde/schema.py: FLOAT = 7) as ember's dtype;
 * EMBER_DTYPE_UNDEFINED for one ember has none of. */
ember_dtype em_pt2_dtype(int64_t st);
/* Binds `name` to value v; a name bound twice is INVALID_MODEL naming `where`. */
ember_status *em_pt2_bind(em_pt2 *p, const char *name, ts_av *v, const char *where);
/* Lowers the nodes of graph (graph_module.graph's "nodes" array) in order. */
ember_status *em_pt2_lower_nodes(em_pt2 *p, const em_pt2_json *nodes);

/* pt2_quant.c: torch.ops.quantized_decomposed.<op> (op: "quantize_per_tensor.default") as
 * QuantizeLinear / DequantizeLinear; errors start with L->what (the caller names the node). */
ember_status *em_pt2_lower_quant(ts_lower *L, const char *op, const em_pt2_call *ca, ts_av **out);
/* A conv's or linear's float constant bias (ca->pos[2]) next to a dequantized input and a
 * dequantized constant weight, replaced by DequantizeLinear(int32 bias, x_scale * w_scale[m])
 * (QLinearConv's / QGemm's bias); left as it is otherwise. */
ember_status *em_pt2_quant_bias(ts_lower *L, em_pt2_call *ca);
/* aten linear of a dequantized matrix and weight as one Gemm (transB = 1), the form
 * passes_qdq.c makes QGemm of; *out NULL (nothing emitted) otherwise. */
ember_status *em_pt2_quant_linear(ts_lower *L, const em_pt2_call *ca, ts_av **out);

#endif /* EMBER_LOADERS_PT2_PT2_INTERNAL_H */
