/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv's epilogue (ops_nn.def), shared by the graph passes that make the op and the
 * kernels that run it: Y = act(Conv(X, W, B) + Z). The `activation` attribute names the
 * function, `activation_params` gives its parameters (ONNX defaults when absent):
 *   Relu; LeakyRelu [alpha = 0.01]; Clip [min = -inf, max = +inf]; HardSigmoid [alpha = 0.2,
 *   beta = 0.5]; HardSwish; Sigmoid; Tanh; SiLU (x * sigmoid(x)); "" or absent: none.
 */
#ifndef EMBER_IR_FUSEDCONV_H
#define EMBER_IR_FUSEDCONV_H

#include "ir/graph.h"

#include <stdbool.h>

typedef enum em_conv_act {
    EM_ACT_NONE = 0,
    EM_ACT_RELU,
    EM_ACT_LEAKYRELU,
    EM_ACT_CLIP,
    EM_ACT_HARDSIGMOID,
    EM_ACT_HARDSWISH,
    EM_ACT_SIGMOID,
    EM_ACT_TANH,
    EM_ACT_SILU
} em_conv_act;

typedef struct em_conv_epilogue {
    em_conv_act act;
    float p[2]; /* the parameters, defaults filled in */
} em_conv_epilogue;

/* Reads a FusedConv node's `activation` and `activation_params`; false when the name is not
 * one of the above or the parameter count does not fit it. A Conv node reads as no epilogue. */
bool em_conv_epilogue_parse(const em_node *n, em_conv_epilogue *e);
/* The name of an activation ("Relu", ...); "" for none. */
const char *em_conv_act_name(em_conv_act act);
/* act(v), in double (the reference). */
double em_conv_act_apply(const em_conv_epilogue *e, double v);

#endif /* EMBER_IR_FUSEDCONV_H */
