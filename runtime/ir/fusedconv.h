/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv's epilogue (ops_nn.def), shared by the graph passes that make the op and the
 * kernels that run it: Y = act(Conv(X, W, B) + Z). The `activation` attribute names the
 * function, `activation_params` gives its parameters (ONNX defaults when absent):
 *   Relu; LeakyRelu [alpha = 0.01]; Clip [min = -inf, max = +inf]; HardSigmoid [alpha = 0.2,
 *   beta = 0.5]; HardSwish; Sigmoid; Tanh; SiLU (x * sigmoid(x)); Gelu (x * Phi(x), ONNX Gelu
 *   with approximate = "none"); GeluTanh (approximate = "tanh": x / 2 * (1 + tanh(sqrt(2 / pi)
 *   (x + 0.044715 x^3)))); "" or absent: none.
 */
#ifndef EMBER_IR_FUSEDCONV_H
#define EMBER_IR_FUSEDCONV_H

#include "ir/graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum em_conv_act {
    EM_ACT_NONE = 0,
    EM_ACT_RELU,
    EM_ACT_LEAKYRELU,
    EM_ACT_CLIP,
    EM_ACT_HARDSIGMOID,
    EM_ACT_HARDSWISH,
    EM_ACT_SIGMOID,
    EM_ACT_TANH,
    EM_ACT_SILU,
    EM_ACT_GELU,
    EM_ACT_GELU_TANH
} em_conv_act;

typedef struct em_conv_epilogue {
    em_conv_act act;
    float p[2]; /* the parameters, defaults filled in */
} em_conv_epilogue;

/* Reads a FusedConv node's `activation` and `activation_params`; false when the name is not
 * one of the above or the parameter count does not fit it. A Conv node reads as no epilogue. */
bool em_conv_epilogue_parse(const em_node *n, em_conv_epilogue *e);
/* The same from the attributes `act` and `params` (BlockedSE's `gate`, `gate_params`). */
bool em_conv_epilogue_parse_attrs(const em_node *n, const char *act, const char *params,
                                  em_conv_epilogue *e);
/* How many parameters activation act takes (0 to 2). */
int em_conv_act_n_params(em_conv_act act);
/* The name of an activation ("Relu", ...); "" for none. */
const char *em_conv_act_name(em_conv_act act);
/* act(v), in double (the reference). */
double em_conv_act_apply(const em_conv_epilogue *e, double v);

/* Grouped convolutions whose groups are not whole channel blocks of b (resnext50_32x4d's 4
 * channels a group on 8-channel blocks) can run blocked as a convolution of j times fewer,
 * j times wider groups with block-diagonal weights (zero between the j merged groups): the
 * smallest j that makes both group widths (cg in, mg out) whole blocks of b and divides the
 * group count. 1 when they are whole blocks already; 0 when no j up to EM_CONV_MERGE_MAX
 * fits (the merged conv does j times the arithmetic). The layout pass blocks such convs and
 * the oneDNN kernel merges them (kernels/x86/conv_onednn.c). */
#define EM_CONV_MERGE_MAX 4
int64_t em_conv_group_merge(int64_t group, int64_t cg, int64_t mg, int64_t b);

#endif /* EMBER_IR_FUSEDCONV_H */
