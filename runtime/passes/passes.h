/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph passes, run once on a loaded model before any planning (api.c, model_finish):
 *
 *  0. (only when asked: em_passes_run_extra) QDQ chains around 2-D Convs -> QLinearConv with
 *     the weights kept int8 (passes_qdq.c);
 *  1. constant folding: a node whose inputs are all initializers (deterministic, tensors of
 *     known shape, not quantized) runs once through the reference kernels; its outputs become
 *     initializers (at most 1 MiB more than its inputs; 4x that for DequantizeLinear of
 *     8-bit weights); Shape of a value whose dims are all known becomes a constant;
 *  1b. no-op nodes (Identity, Pad with constant all-zero pads) are bypassed: their readers
 *     read the input (a graph output is kept);
 *  1c. Einsum of one or two inputs -> Transpose / Reshape / MatMul / ReduceSum (passes_einsum.c);
 *     Transpose / Reshape pairs that cancel or compose, and Expands whose readers broadcast
 *     anyway (passes_cancel.c); decomposed
 *     LayerNormalization / RMSNormalization (passes_norm.c); decomposed Gelu (Erf and tanh
 *     forms), HardSigmoid, HardSwish, SiLU (Swish), Mish (passes_act.c), MatMul + Softmax
 *     attention chains -> Attention (passes_attn.c), each matched only where its constants,
 *     axes and shapes are proved and its intermediates are private; ReduceMean over H, W of
 *     [N, C, H, W] -> GlobalAveragePool [+ Flatten] (passes_mean.c);
 *  2. Conv + BatchNormalization (inference form, constant statistics) folding: W and B
 *     rescaled into new initializers;
 *  3. Conv + Add of a per-channel constant folded into the bias;
 *  3b. with the layout pass: channel-last MLP blocks (ConvNeXt's Transpose -> LayerNorm ->
 *     MatMul -> Gelu -> MatMul -> Transpose [-> layer-scale Mul]) become a LayerNorm between
 *     Transposes and 1x1 convs (passes_chlast.c), which the layout pass then runs blocked;
 *  4. Conv + residual Add -> FusedConv with Z, then Conv / FusedConv + activation (Relu,
 *     Clip with constant bounds, LeakyRelu, HardSigmoid, HardSwish, Sigmoid, Tanh,
 *     x * Sigmoid(x) as SiLU, Gelu of either form) -> FusedConv (ops_nn.def,
 *     runtime/ir/fusedconv.h);
 *  4b. MatMul + Add of a constant bias -> Gemm with C (passes_gemm.c), through Reshapes to
 *     [rows, K] and back when A has rank > 2;
 *  4c. Gemm + activation (FusedConv's set) -> FusedGemm (passes_gemm.c,
 *     runtime/ir/fusedgemm.h), also through the Reshape of 4b;
 *  5. layout (passes_layout.c, when oneDNN is built in): chains of 2-D f32 FusedConvs run on
 *     channel-blocked values (16 channels with AVX-512, 8 with AVX2, 4 with NEON), with ReorderToBlocked /
 *     ReorderFromBlocked only where a plain-layout reader or a graph output needs the value;
 *     the few-channel first conv reads X plain and writes Y blocked, and channel Concats of
 *     whole blocks join the blocked values;
 *  5b. squeeze-and-excitation blocks on blocked values (pool, two 1x1 convs, the Mul) become
 *     one BlockedSE (passes_se.c);
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
#include "core/status.h"
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
    int block;   /* channel block for the layout pass: 16, 8, 4, or 0 for the CPU's choice */
    em_pass_eval_fn eval; /* runs a node for folding; NULL: no folding */
} em_passes_options;

/* Told, for each QDQ chain the int8 rewrite looked at (passes_qdq.c; for `ember inspect`), the
 * node and either the integer op it became (`why` NULL) or why it stays fp32 (`int8_op`
 * NULL). */
typedef void (*em_pass_note_fn)(void *ctx, const char *node, const char *int8_op,
                                const char *why);

/* The passes of a graph optimization level (ember_graph_opt); `eval` is left NULL. */
em_passes_options em_passes_level(ember_graph_opt level);
/* Runs the passes (opt NULL: EMBER_GRAPH_OPT_ALL); on error the graph may be partly rewritten
 * and must be dropped. */
ember_status *em_passes_run(em_graph *g, const em_passes_options *opt);
/* What em_passes_run leaves out. The QDQ -> integer rewrite is off by default: on this AVX2
 * machine (no VNNI) the int8 convs take 61 ms of CPU on resnet18's QDQ file against 35 ms for
 * the fp32 fallback (Winograd and oneDNN on the folded weights); turn it on by default where
 * int8 kernels win (VNNI / AMX), see docs/NOTES.md, issue #19. */
typedef struct em_passes_extra {
    bool int8;            /* run passes_qdq.c's rewrite */
    em_pass_note_fn note; /* may be NULL: told what the rewrite left to fp32, and why */
    void *note_ctx;
} em_passes_extra;
/* Only steps 2 and 3 (Conv + BatchNormalization / per-channel Add folded into the conv's W and
 * B), then step 6: what ORT's quant_pre_process does before quantizing, for the quantizer's
 * fp32 graph (runtime/api/quantize.c). */
ember_status *em_passes_fold_conv(em_graph *g);
/* em_passes_run with the extras (x NULL: none). */
ember_status *em_passes_run_extra(em_graph *g, const em_passes_options *opt,
                                  const em_passes_extra *x);

/* Half-precision graphs run as fp32 (passes_half.c): half initializers widened once, Casts at
 * half graph inputs and outputs, half intermediates made f32 except where the model's own
 * Casts round to half. Runs at load before em_passes_run, at every level; a graph without
 * half weights is left as it is. Shapes must be inferred again afterwards. */
ember_status *em_pass_half_to_f32(em_graph *g);

/* Weights held in half (passes_half.c, issue #21): every f32 initializer of at least 1024
 * elements that is read only as a weight the x86 kernels pack (Gemm / FusedGemm / MatMul B,
 * Conv / FusedConv W but for depthwise ones) is stored as `half` (f16 or bf16, rounded to
 * nearest even) and read through a new Cast to f32 right before its first reader; the
 * planner widens it while planning and frees the widened copy once its readers have packed
 * it (planner.h). With `exact_only`, only initializers whose every value the half format
 * holds exactly (a half model's own weights) are stored so: the outputs do not change.
 * *n_done counts the initializers stored in half. Runs after em_passes_run. */
ember_status *em_pass_weights_to_half(em_graph *g, ember_dtype half, bool exact_only,
                                      size_t *n_done);
/* The dtype of the graph's first f16 / bf16 initializer, EMBER_DTYPE_UNDEFINED if none. */
ember_dtype em_pass_half_weights_dtype(const em_graph *g);

/* ---- internal, shared by passes*.c ---- */

/* Evaluates `expr` and returns its status from the calling function when it fails. */
#define EM_PASS_TRY(expr) EM_RETURN_IF_ERROR(expr)

typedef struct em_pctx {
    em_graph *g;
    bool *dead;   /* per node */
    int *nread;   /* per value: how many node inputs read it (dead nodes excluded) */
    int cap_nodes, cap_values;
    em_pass_eval_fn eval;
    em_pass_note_fn note; /* may be NULL */
    void *note_ctx;
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
/* Adds a Reshape node "<base><suffix>" of value `from` to `dims` (an int64 initializer
 * "<name>/shape") whose output is the existing value `to`; read counts are kept, the node is
 * placed by the caller (em_pass_place_new). */
ember_status *em_pass_reshape_node(em_pctx *c, const char *base, const char *suffix, int from,
                                   int to, int rank, const int64_t *dims, int *out);
/* Puts the nodes added since `n_old` right after the nodes named in `after` (after[j - n_old]
 * for node j; -1: first), keeping the order among them; the producers are set again. */
ember_status *em_pass_place_new(em_pctx *c, int n_old, const int *after);
/* Sets every live node's outputs' producer (node moves and fusions leave them stale). */
void em_pass_refresh_producers(em_pctx *c);
/* A fresh name "<base><suffix>[.k]" not used by any value, in buf (base cut to cap - 112
 * characters, so suffixes up to 100 characters fit; cap >= 128). */
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
/* The same with the attribute names act and params (BlockedSE's `gate`, `gate_params`). */
ember_status *em_pass_set_epilogue(em_pctx *c, int ni, const char *act, const char *params,
                                   const em_conv_epilogue *e);

/* ---- pattern matching (passes_match.c), shared by the pattern fusions ---- */

/* The live node producing value v when its op is `op`, or -1. */
int em_pass_prod(const em_pctx *c, int v, em_op op);
/* em_pass_prod when v is private (em_pass_private), else -1. */
int em_pass_private_prod(const em_pctx *c, int v, em_op op);
/* Value v is an intermediate, no graph output, read by exactly n node inputs: a fusion whose
 * pattern holds all n reads may swallow it. */
bool em_pass_only_read(const em_pctx *c, int v, int n);
/* Value v is a constant (f32, f64, f16, i32 or i64 initializer) of one element, any rank:
 * its value in *out. */
bool em_pass_scalar(const em_graph *g, int v, double *out);
/* Value v is a one-element constant equal to `want` within 1e-6 relative (f32 rounding of a
 * decimal constant passes, a different constant does not). */
bool em_pass_scalar_is(const em_graph *g, int v, double want);
/* For a two-input node: the input that is not `a` (the second when both are a), or -1 when
 * neither is a. */
int em_pass_other(const em_node *n, int a);
/* For a Mul / Add / Div / Sub node: its input that is a one-element constant equal to `want`
 * on a side the op allows (`either`: both sides, else the right), the other input returned;
 * -1 when it has no such input. */
int em_pass_by_const(const em_graph *g, const em_node *n, em_op op, double want, bool either);
/* Node ni is a ReduceMean with keepdims over exactly the last k axes of its rank-r input
 * (axes constant, in any order and sign): k, else 0. */
int em_pass_trailing_mean(const em_graph *g, int ni);
/* The same with either keepdims. */
int em_pass_trailing_axes(const em_graph *g, int ni);
/* Node n is a Transpose (one input, one output) whose `perm` is want[0..rank). */
bool em_pass_perm_is(const em_node *n, const int64_t *want, int rank);
/* Every live reader of value `from` after node `after` reads `to` instead. */
void em_pass_redirect(em_pctx *c, int from, int to, int after);
/* Node `last` becomes a new node of op `op` reading in[0..n_in) and writing last's output 0
 * (name kept); the nodes kill[0..n_kill) of the pattern die. The inputs must come before
 * `last` (they are the pattern's inputs). Its index stays `last`. */
ember_status *em_pass_replace(em_pctx *c, int last, em_op op, const int *in, int n_in,
                              const int *kill, int n_kill);

/* Pattern fusions, run before the conv and MatMul fusions: decomposed LayerNormalization and
 * RMSNormalization (passes_norm.c); Erf and tanh GELU, HardSigmoid, HardSwish, SiLU, Mish
 * (passes_act.c); Transpose and Reshape pairs, whole Slices, Expands read by broadcasting
 * Add / Sub / Mul / Div (passes_cancel.c). */
ember_status *em_pass_fuse_norm(em_pctx *c);
ember_status *em_pass_fuse_act(em_pctx *c);
ember_status *em_pass_cancel_pairs(em_pctx *c);
/* Einsum of one or two inputs with known dims -> Transpose / Reshape / MatMul / ReduceSum
 * (passes_einsum.c). */
ember_status *em_pass_lower_einsum(em_pctx *c);
/* MatMul + Softmax attention chains -> Attention (passes_attn.c). */
ember_status *em_pass_fuse_attention(em_pctx *c);
/* ReduceMean over the spatial axes of [N, C, H, W] -> GlobalAveragePool [+ Flatten]
 * (passes_mean.c); after em_pass_fuse_norm. */
ember_status *em_pass_mean_pool(em_pctx *c);
/* Channel-last MLP blocks (ConvNeXt) -> LayerNorm between Transposes + 1x1 convs, run only
 * with the layout pass (passes_chlast.c). */
ember_status *em_pass_channel_last(em_pctx *c, int block);
ember_status *em_pass_fuse_conv(em_pctx *c);
/* Steps 2 and 3 only (em_passes_fold_conv). */
ember_status *em_pass_fold_conv(em_pctx *c);
ember_status *em_pass_fuse_matmul(em_pctx *c);
ember_status *em_pass_fuse_gemm_act(em_pctx *c);
ember_status *em_pass_layout(em_pctx *c, int block);
/* After the layout pass (and dead code): squeeze-and-excitation blocks -> BlockedSE
 * (passes_se.c). */
ember_status *em_pass_fuse_se(em_pctx *c);
/* Before constant folding: DequantizeLinear -> Conv [-> Relu] -> QuantizeLinear chains ->
 * QLinearConv (passes_qdq.c). */
ember_status *em_pass_qdq_conv(em_pctx *c);
/* After em_pass_qdq_conv: the chains around the ops between convolutions -> QLinearAdd,
 * QLinearMul, QLinearConcat, QLinearSigmoid, QLinearLeakyRelu, QLinear(Global)AveragePool,
 * QGemm, QLinearMatMul, and MaxPool / Flatten / Reshape / Transpose / Squeeze / Unsqueeze on
 * the 8-bit values (passes_qdq.c). */
ember_status *em_pass_qdq_ops(em_pctx *c);

#endif /* EMBER_PASSES_PASSES_H */
