/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The quantizer's graph rewrite (issue #20): an fp32 graph (loaded at EMBER_GRAPH_OPT_FOLD, so
 * every node is a standard ONNX op) becomes the QDQ graph ONNX Runtime's QDQ quantizer writes
 * (onnxruntime/python/tools/quantization/qdq_quantizer.py and its operators/), which
 * ember's int8 rewrite (runtime/passes/passes_qdq.c) and ORT both run.
 *
 * Two steps, so that calibration knows what to observe before anything changes:
 *  1. em_qi_plan: which nodes are quantized, which activation tensors get a
 *     QuantizeLinear -> DequantizeLinear pair, which of them share another tensor's parameters
 *     (Reshape / Transpose / pools, as ORT's quantize_output_same_as_input), which need a
 *     calibrated range (em_qi_plan.need), which Relu / Clip are removed (ORT's
 *     QDQRemovableActivation: with asymmetric activations the producer writes the activation's
 *     output directly), which weights are quantized and on which axis, which biases become
 *     int32, and which nodes stay fp32 and why.
 *  2. em_qi_apply: the rewrite, given the ranges of the tensors `need` names: activations
 *     get Q/DQ pairs (graph outputs keep their name on the DequantizeLinear output), weights
 *     become int8 initializers + DequantizeLinear (per channel on axis 0 for Conv, on axis 1
 *     (0 when transB) for Gemm and axis 1 for MatMul's 2-D B; symmetric, range [-127, 127]),
 *     biases int32 with scale x_scale * w_scale and zero point 0.
 * Scale and zero point follow ORT's compute_scale_zp (em_qi_scale_zp).
 *
 * Dynamic mode: MatMul whose B is a constant 2-D weight gets its int8 weight (per tensor, or
 * per column) and its activation input a DynamicQuantizeLinear + MatMulInteger + Cast + Mul as
 * ORT's quantize_dynamic writes them; Gemm (which ORT leaves in fp32) the same when transA = 0,
 * alpha = 1 and its C, if any, is a 1-D constant with beta = 1 (B stored [K, N], C added
 * after); weight-only mode: int8 weights + DequantizeLinear
 * for Conv / Gemm / MatMul, compute in fp32. Neither needs calibration.
 */
#ifndef EMBER_QUANTIZATION_QDQ_INSERT_H
#define EMBER_QUANTIZATION_QDQ_INSERT_H

#include "ember.h"
#include "ir/graph.h"

#include <stdbool.h>

typedef enum em_qi_mode { EM_QI_STATIC = 0, EM_QI_DYNAMIC, EM_QI_WEIGHT_ONLY } em_qi_mode;

typedef struct em_qi_opts {
    em_qi_mode mode;
    bool per_channel;
    ember_dtype act_dt;  /* EMBER_DTYPE_U8 or EMBER_DTYPE_I8 */
    bool act_symmetric;  /* activations symmetric (weights are always symmetric int8) */
    int opset;           /* the model's ai.onnx opset (0: unknown); Resize stays fp32 below 11 */
    int n_exclude;       /* node names or op types left in fp32 */
    const char *const *exclude;
} em_qi_opts;

/* What em_qi_plan decided, per value (v) and per node (n) of the graph it was made for. */
typedef struct em_qi_plan {
    int n_values, n_nodes;
    bool *act;        /* v: gets a Q/DQ pair */
    int *share;       /* v: takes the parameters of this value (-1: its own range) */
    bool *need;       /* v: needs a calibrated range (act and share < 0) */
    int *w_axis;      /* v: a weight to quantize: -1 none, -2 per tensor, >= 0 its channel axis */
    int *bias_of;     /* v: an int32 bias of this node (-1 none) */
    bool *w_tr;       /* v: dynamic mode, a Gemm's transB weight: stored transposed ([K, N]) */
    bool *quant;      /* n: quantized */
    bool *removed;    /* n: a Relu / Clip folded into its producer's Q/DQ */
    const char **why; /* n: why an op of the quantizable list stays fp32 (NULL: not listed) */
    bool *exclude_used; /* per opts->exclude entry: whether it matched a node */
} em_qi_plan;

/* A calibrated range. */
typedef struct em_qi_range {
    float lo, hi;
} em_qi_range;

ember_status *em_qi_plan_make(const em_graph *g, const em_qi_opts *o, em_qi_plan *p);
void em_qi_plan_free(const ember_allocator *al, em_qi_plan *p);

/* Rewrites g as the plan says. `ranges` has one entry per value of the planned graph (read
 * where plan->need). Values and nodes are added; removed nodes are dropped; shapes inferred
 * again. */
ember_status *em_qi_apply(em_graph *g, const em_qi_opts *o, const em_qi_plan *p,
                          const em_qi_range *ranges);

/* The SQNR in dB of weight v's own int8 round trip as em_qi_apply quantizes it (plan->w_axis:
 * per channel or per tensor, symmetric [-127, 127]): sum x^2 / sum (x - dq(q(x)))^2 over its
 * elements, INFINITY when exact; NAN when v is not a quantized fp32 weight. */
ember_status *em_qi_weight_sqnr(const em_graph *g, const em_qi_plan *p, int v, double *db);

/* ORT's compute_scale_zp: [rmin, rmax] widened to include 0 (symmetric: to +-max |r|), scale
 * (rmax - rmin) / (qmax - qmin) in double stored as float (1 and zero point 0 when below
 * FLT_MIN), zero point round-half-even(qmin - rmin / scale) (symmetric: (qmin + qmax) / 2). */
void em_qi_scale_zp(float rmin, float rmax, int qmin, int qmax, bool symmetric, float *scale,
                    int *zp);
/* The quantized range of dt as ORT takes it: u8 [0, 255]; i8 [-128, 127], symmetric
 * [-127, 127]. */
void em_qi_qrange(ember_dtype dt, bool symmetric, int *qmin, int *qmax);

#endif /* EMBER_QUANTIZATION_QDQ_INSERT_H */
