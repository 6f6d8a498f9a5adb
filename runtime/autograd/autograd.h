/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reverse-mode automatic differentiation over the graph IR (DESIGN.md, "Backward mode").
 *
 * em_autograd appends to a graph the nodes that compute dy/dx for a list of values xs. The
 * backward nodes are ordinary canonical ops (Mul, MatMul, ConvTranspose, ReduceSum,
 * ScatterElements, ...), so the planner plans forward and backward together and the normal
 * kernels run them; nothing at run time knows about autodiff.
 *
 * How it works (runtime/autograd/autograd.c):
 *  - Which values get a gradient: a value needs one when it depends on some x (forward pass
 *    over the nodes, through floating-point values only) and y depends on it (backward pass).
 *    Nodes with no such input are skipped, so constant branches cost nothing.
 *  - Nodes are visited in reverse order. A node's output gradients are the sum of the
 *    contributions its consumers made (one Sum node, chained per 16 inputs, when there are
 *    several); its op's rule then emits the input gradients and contributes them to the inputs
 *    that need one. Contributions are summed once, when the producer is visited (or at the end
 *    for the xs), and the sum replaces them.
 *  - Rules (runtime/autograd/grad_rules_*.c) are functions named by the `grad` column of the op
 *    lists, which autograd.c expands into a table keyed on the op id. They build nodes through the
 *    builders of grad_internal.h, which run each new node's shape function at once, so later rules
 *    see dtypes and (symbolic) dims. Errors are sticky in the context: a builder called after a
 *    failure does nothing and returns -1, and the first message wins. An op on the differentiated
 *    path without a rule, or a case a rule does not cover, is an UNSUPPORTED error naming the node
 *    and the op.
 *  - Broadcasting is undone by em_gx_sum_to: leading axes the input lacks and axes where the input
 *    has dim 1 and the gradient does not are summed (ReduceSum, keepdims), then the result is
 *    reshaped to the input's shape. Where a dim is not known at build time (symbolic, so it may
 *    or may not be 1), the axis is split by a Reshape into (x_dim, g_dim / x_dim) and the
 *    second part summed: a sum over size 1 when the dims agree, the whole axis when x's is 1.
 *    Shapes that are not known while building are computed by Shape / Gather / Concat nodes,
 *    which the planner folds (they depend on shapes only), so they cost nothing at run time.
 *  - Gradients of ops that select elements (Slice, Gather, MaxPool) scatter-add into zeros:
 *    an index map Range(numel) reshaped to x's shape goes through the forward op (or MaxPool's
 *    Indices output, which the rule adds to the forward node when it lacks it), and
 *    ScatterElements(reduction = add) writes the gradient at those flat positions.
 *  - The seed dy defaults to ones of y's shape; an x that y does not depend on gets zeros.
 *
 * Which ops have a rule: the `grad` column of the op lists (runtime/ir/ops*.def), one entry per
 * op: EM_GRAD(rule) names em_gx_rule_<rule>, EM_NOGRAD an op that is not differentiated (an error
 * names the node and op when a gradient must flow through it; ops whose outputs are integers or
 * booleans never need one). Cases the rules cover: Pow with a tensor, constant or integer
 * exponent; Max / Min of one or two inputs; Dropout in inference, and in training through its
 * mask (training_mode constant or not); Floor, Ceil, Round and Sign (a zero gradient); MatMul
 * batched, broadcast and 1-D; Gemm with transA, transB, alpha, beta and a broadcast C; Pad in
 * every mode; ReduceMax / ReduceMin (ties share the gradient); Conv of any rank, groups, strides,
 * pads, dilations and auto_pad; BatchNormalization in inference and training. Limits: Conv / pool
 * strides > 1 and auto_pad SAME need the spatial dims known at build time (the backward's output
 * padding depends on them); AveragePool with ceil_mode and count_include_pad together is refused;
 * MaxPool with storage_order 1 is refused; Concat of more than 64 inputs; the class weights of
 * the losses, the running statistics of BatchNormalization in training and LayerNormalization's
 * Mean / InvStdDev outputs get no gradient (an error if one is needed).
 */
#ifndef EMBER_AUTOGRAD_AUTOGRAD_H
#define EMBER_AUTOGRAD_AUTOGRAD_H

#include "ir/graph.h"

typedef struct em_autograd_spec {
    int y;             /* the value differentiated (floating point, any shape) */
    int dy;            /* the seed: a value of y's shape, or -1 for ones */
    int n_xs;
    const int *xs;     /* values differentiated against: inputs, initializers or intermediates */
    const char *name;  /* base of the names of new nodes and values ("grad" when NULL); a
                        * suffix makes them unique in the graph */
} em_autograd_spec;

/*
 * Appends the backward nodes of `spec` to `g` and sets dxs[i] to the value holding
 * d(sum(y * dy)) / d xs[i] (same dtype and shape as xs[i]; any value of the graph: a new
 * node's output, a constant, or dy itself). Shapes of `g` are inferred first. The forward may
 * change: a MaxPool or Dropout on the path gets its Indices / mask output when it lacks it.
 * Errors: UNSUPPORTED naming the node and op without a rule (or the case a rule refuses),
 * INVALID_ARG for a bad spec (non-float y or x, out-of-range index). On error `g` may hold
 * some unused backward nodes.
 */
ember_status *em_autograd(em_graph *g, const em_autograd_spec *spec, int *dxs);

/*
 * Clones the nodes of `g` that lie on a path from one of from[0..n) to `y`, with from[i]
 * replaced by to[i], appended at the end of `g`; *y_new is the clone of y (or y itself when
 * y does not depend on any from[i]). For the ONNX Gradient op, whose inputs give the point at
 * which the gradient is taken. Nodes with subgraphs on that path are refused (UNSUPPORTED).
 */
ember_status *em_autograd_rebind(em_graph *g, int n, const int *from, const int *to, int y,
                                 const char *name, int *y_new);

#endif /* EMBER_AUTOGRAD_AUTOGRAD_H */
