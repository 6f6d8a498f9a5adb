/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph passes, run once on a loaded model before any planning (api.c, model_finish):
 *
 *  1. constant folding: a node whose inputs are all initializers (deterministic, tensors of
 *     known shape, not quantized) runs once through the reference kernels; its outputs become
 *     initializers (at most 1 MiB more than its inputs);
 *  1b. no-op nodes (Identity, Pad with constant all-zero pads) are bypassed: their readers
 *     read the input (a graph output is kept);
 *  2. Conv + BatchNormalization (inference form, constant statistics) folding: W and B
 *     rescaled into new initializers;
 *  3. Conv + Add of a per-channel constant folded into the bias;
 *  4. Conv + residual Add -> FusedConv with Z, then Conv / FusedConv + activation (Relu,
 *     Clip with constant bounds, LeakyRelu, HardSigmoid, HardSwish, Sigmoid, Tanh, and
 *     x * Sigmoid(x) as SiLU) -> FusedConv (ops_nn.def, runtime/ir/fusedconv.h);
 *  4b. MatMul + Add of a constant bias -> Gemm with C (passes_gemm.c), through Reshapes to
 *     [rows, K] and back when A has rank > 2;
 *  5. layout (passes_layout.c, when oneDNN is built in): chains of 2-D f32 FusedConvs run on
 *     channel-blocked values (16 channels with AVX-512, 8 with AVX2), with ReorderToBlocked /
 *     ReorderFromBlocked only where a plain-layout reader or a graph output needs the value;
 *     the few-channel first conv reads X plain and writes Y blocked, and channel Concats of
 *     whole blocks join the blocked values;
 *  6. dead-code elimination, then unreferenced values are dropped and the graph is
 *     renumbered, verified and its shapes inferred again.
 *
 * Fusions only swallow a value that is not a graph output and has no other reader, and only
 * f32 nodes; graph inputs, outputs, their names and dtypes are kept. The fused node takes the
 * place of the last node of its pattern, so topological order holds. Graphs with subgraphs
 * (control flow, which may read outer values by name) are left as they are. Gradient graphs
 * are built by the loader before the passes run, from the original ops; a forward value the
 * backward nodes read has other readers, so it is never fused away.
 *
 * The level comes from ember_model_options_set_graph_optimization (ember.h): NONE runs none
 * of them, BASIC all but the layout pass, ALL (the default) every pass.
 */
#ifndef EMBER_PASSES_PASSES_H
#define EMBER_PASSES_PASSES_H

#include "ir/fusedconv.h"
#include "ir/graph.h"

#include <stdbool.h>

/* Evaluates node `n` once on the constant inputs `in` into `out` (shapes and dtypes set, data
 * NULL): allocates each output's bytes as sto[o] (one reference, data at its start) and sets
 * *ran. A node it cannot evaluate (no kernel accepts it) is no error: *ran stays false. The
 * passes do not see kernels: the caller gives this (plan/fold.h, em_plan_eval_const). */
typedef ember_status *(*em_pass_eval_fn)(const em_node *n, const em_tensor *in, em_tensor *out,
                                         const ember_allocator *al, em_storage **sto, bool *ran);

typedef struct em_passes_options {
    bool fold;   /* constant folding (needs `eval`) */
    bool fuse;   /* Conv + BN / bias / residual / activation */
    bool layout; /* channel-blocked conv chains */
    int block;   /* channel block for the layout pass: 16, 8, or 0 for the CPU's choice */
    em_pass_eval_fn eval; /* runs a node for folding; NULL: no folding */
} em_passes_options;

/* The passes of a graph optimization level (ember_graph_opt); `eval` is left NULL. */
em_passes_options em_passes_level(ember_graph_opt level);
/* Runs the passes (opt NULL: EMBER_GRAPH_OPT_ALL); on error the graph may be partly rewritten
 * and must be dropped. */
ember_status *em_passes_run(em_graph *g, const em_passes_options *opt);

/* ---- internal, shared by passes*.c ---- */

/* Evaluates `expr` and returns its status from the calling function when it fails. */
#define EM_PASS_TRY(expr)               \
    do {                                \
        ember_status *st_ = (expr);     \
        if (st_ != NULL) {              \
            return st_;                 \
        }                               \
    } while (0)

typedef struct em_pctx {
    em_graph *g;
    bool *dead;   /* per node */
    int *nread;   /* per value: how many node inputs read it (dead nodes excluded) */
    int cap_nodes, cap_values;
    em_pass_eval_fn eval;
} em_pctx;

/* Value v has one reader and is not a graph output: a fusion may swallow it. */
bool em_pass_private(const em_pctx *c, int v);
/* The node reading v (the first live one), or -1. */
int em_pass_reader(const em_pctx *c, int v, int after);
/* Marks node ni dead and forgets its reads. */
void em_pass_kill(em_pctx *c, int ni);
/* Moves node `from` into the (dead) slot `to`, leaving `from` dead. */
void em_pass_move(em_pctx *c, int from, int to);
/* Replaces input slot i of node ni by value v (-1: absent), keeping read counts. */
void em_pass_set_input(em_pctx *c, int ni, int i, int v);
/* Appends input v to node ni (FusedConv's B or Z). */
ember_status *em_pass_push_input(em_pctx *c, int ni, int v);
/* Makes room after the graph grew (values or nodes added). */
ember_status *em_pass_sync(em_pctx *c);
/* Adds node `name` of op reading in[0..n_in) whose one output is the existing value `to` (a
 * temporary output value is made and left unreferenced); read counts are the caller's. */
ember_status *em_pass_add_node_into(em_pctx *c, em_op op, const char *name, const int *in, int n_in,
                                    int to, int *out);
/* Puts the nodes added since `n_old` right after the nodes named in `after` (after[j - n_old]
 * for node j; -1: first), keeping the order among them. Producers are stale afterwards. */
ember_status *em_pass_place_new(em_pctx *c, int n_old, const int *after);
/* Sets every live node's outputs' producer (node moves and fusions leave them stale). */
void em_pass_refresh_producers(em_pctx *c);
/* A fresh name "<base><suffix>[.k]" not used by any value, in buf. */
void em_pass_unique_name(const em_graph *g, const char *base, const char *suffix, char *buf,
                         size_t cap);
/* An f32 initializer value's data, or NULL when v is not one. */
const float *em_pass_const_f32(const em_graph *g, int v);

/* The activation node j applies (a FusedConv epilogue), its parameters from its attributes
 * and constant Clip bounds; false for another op (passes_conv.c). */
bool em_pass_activation_of(const em_pctx *c, int j, em_conv_epilogue *e);
/* Values a and b have the same dtype and dims (known and equal, or the same symbol). */
bool em_pass_same_shape(const em_value *a, const em_value *b);
/* Inference BatchNormalization bn of m channels, whose four parameters are constant f32 of m
 * values: ss[0, m) = gamma / sqrt(var + eps), ss[m, 2m) = beta - mean * that scale. */
void em_pass_bn_scale_shift(const em_graph *g, const em_node *bn, int64_t m, double *ss);
/* Sets node ni's `activation` and `activation_params` attributes (FusedConv's) to e. */
ember_status *em_pass_set_activation(em_pctx *c, int ni, const em_conv_epilogue *e);

ember_status *em_pass_fuse_conv(em_pctx *c);
ember_status *em_pass_fuse_matmul(em_pctx *c);
ember_status *em_pass_layout(em_pctx *c, int block);

#endif /* EMBER_PASSES_PASSES_H */
