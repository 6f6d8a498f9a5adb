/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedGemm's epilogue (ops_nn.def), shared by the pass that makes the op (passes_gemm.c) and
 * the kernels that run it: Y = act(alpha * A' B' + beta * C). The `activation` attribute names
 * one of FusedConv's functions (fusedconv.h, with `activation_params` as there; Gelu and
 * GeluTanh among them). A Gemm node reads as no epilogue.
 */
#ifndef EMBER_IR_FUSEDGEMM_H
#define EMBER_IR_FUSEDGEMM_H

#include "ir/fusedconv.h"
#include "ir/graph.h"

#include <stdbool.h>

typedef struct em_gemm_epilogue {
    em_conv_epilogue conv; /* FusedConv's activation */
} em_gemm_epilogue;

/* Reads a FusedGemm node's `activation` and `activation_params`; false when they are not one
 * of the above. Any other node reads as no epilogue. */
bool em_gemm_epilogue_parse(const em_node *n, em_gemm_epilogue *e);
/* The epilogue applies no function. */
bool em_gemm_epilogue_none(const em_gemm_epilogue *e);
/* act(v), in double (the reference). */
double em_gemm_act_apply(const em_gemm_epilogue *e, double v);

#endif /* EMBER_IR_FUSEDGEMM_H */
