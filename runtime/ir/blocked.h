/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The blocked twins of the ops that sit between channel-blocked convolutions (ops_nn.def;
 * made by the layout pass, passes_layout.c), shared by their shape functions (shape_nn_blocked.c)
 * and kernels (kernels/ref/nn_blocked_ref.c, kernels/vec/blocked_driver.inc).
 *
 * Layout: X [N, Cb, H, W, b] holds C channels, Cb = ceil(C / b), channel c at block c / b,
 * lane c % b; lanes past C (the last block's padding) are zero, and these ops write them zero.
 *
 *  BlockedPool   X -> Y, both blocked; attribute `pool` names the pooling ("MaxPool",
 *                "AveragePool", "GlobalMaxPool", "GlobalAveragePool"; 2-D) whose attributes
 *                the node carries (kernel_shape, strides, pads, dilations, auto_pad,
 *                ceil_mode, count_include_pad), `channels` = C. Semantics as the plain op.
 *  BlockedAffine X, S?, T? -> Y = act(X * S + T) per channel, blocked like X; `channels` = C,
 *                `activation` and `activation_params` as FusedConv's (fusedconv.h). S and T
 *                (absent: 1 and 0) are per-channel operands (em_chan_operand).
 *  BlockedLayerNorm X, Scale, B? -> Y blocked like X: LayerNormalization over the C channels
 *                of each pixel (mean and variance of x[n, :, h, w]), Y = (x - mean) /
 *                sqrt(var + epsilon) * Scale[c] + B[c]; Scale and B plain [C]; `channels` = C,
 *                `epsilon` (default 1e-5). ConvNeXt's permute -> LayerNorm(C) -> permute.
 *  BlockedSE     X, W1, W2, B1?, B2? -> Y = X * gate(W2 act(W1 m + B1) + B2) per (batch,
 *                channel), m the channel means of X over H, W (a squeeze-and-excitation block:
 *                GlobalAveragePool, two 1x1 convs, the Mul; passes_se.c); W1 [R, C, 1, 1], W2
 *                [C, R, 1, 1], B1 [R], B2 [C] plain; `channels` = C; `activation`,
 *                `activation_params` (after W1) and `gate`, `gate_params` (after W2) name
 *                FusedConv's activations (fusedconv.h). Y blocked like X.
 */
#ifndef EMBER_IR_BLOCKED_H
#define EMBER_IR_BLOCKED_H

#include "ir/graph.h"
#include "ir/op.h"

#include <stdbool.h>
#include <stdint.h>

/* The op named by a BlockedPool's `pool` attribute (EM_OP_MAXPOOL, EM_OP_AVERAGEPOOL,
 * EM_OP_GLOBALMAXPOOL, EM_OP_GLOBALAVERAGEPOOL), or EM_OP_COUNT when it is none of them. */
em_op em_blocked_pool_op(const em_node *n);

/*
 * A per-channel operand of BlockedAffine for X [N, Cb, H, W, b] holding C channels: plain
 * [C], [C, 1, 1] or [M, C, 1, 1], or blocked [M, Cb, 1, 1, b], with M = 1 or N. Channel
 * c of batch n is at data[n * batch_stride + c] in both layouts (c < C; a blocked operand
 * also has the lanes up to Cb * b). Dims < 0 are unknown and accepted (shape functions).
 */
typedef struct em_chan_operand {
    bool blocked;
    int64_t batch_stride; /* 0 when M = 1 */
} em_chan_operand;

/* Classifies the operand of dims[0..rank); false when it is not one of the forms above. */
bool em_chan_operand_parse(int rank, const int64_t *dims, int64_t n, int64_t c, int64_t b,
                           em_chan_operand *out);

#endif /* EMBER_IR_BLOCKED_H */
