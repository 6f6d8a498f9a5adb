/* SPDX-License-Identifier: Apache-2.0 */
/* FusedGemm's epilogue: names, parameters and the reference function (fusedgemm.h). */
#include "ir/fusedgemm.h"

#include <math.h>
#include <string.h>

bool em_gemm_epilogue_parse(const em_node *n, em_gemm_epilogue *e)
{
    e->conv.act = EM_ACT_NONE;
    e->conv.p[0] = e->conv.p[1] = 0.0f;
    e->gelu = EM_GELU_NONE;
    if (n->op != EM_OP_FUSEDGEMM) {
        return true;
    }
    const char *name = em_node_attr_string(n, "activation", "");
    bool erf = strcmp(name, "Gelu") == 0, tanh_form = strcmp(name, "GeluTanh") == 0;
    if (erf || tanh_form) {
        e->gelu = erf ? EM_GELU_ERF : EM_GELU_TANH;
        const em_attr *a = em_node_attr(n, "activation_params");
        return a == NULL || (a->type == EM_ATTR_FLOATS && a->n == 0);
    }
    return em_conv_epilogue_parse(n, &e->conv);
}

bool em_gemm_epilogue_none(const em_gemm_epilogue *e)
{
    return e->gelu == EM_GELU_NONE && e->conv.act == EM_ACT_NONE;
}

const char *em_gemm_act_name(const em_gemm_epilogue *e)
{
    switch (e->gelu) {
    case EM_GELU_ERF:
        return "Gelu";
    case EM_GELU_TANH:
        return "GeluTanh";
    case EM_GELU_NONE:
        break;
    }
    return em_conv_act_name(e->conv.act);
}

double em_gemm_act_apply(const em_gemm_epilogue *e, double v)
{
    switch (e->gelu) {
    case EM_GELU_ERF: /* erfc keeps the tail's relative precision where 1 + erf cancels */
        return 0.5 * v * erfc(-v * 0.70710678118654752440);
    case EM_GELU_TANH:
        return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case EM_GELU_NONE:
        break;
    }
    return em_conv_act_apply(&e->conv, v);
}
