/* SPDX-License-Identifier: Apache-2.0 */
/* FusedGemm's epilogue: FusedConv's activations (fusedgemm.h). */
#include "ir/fusedgemm.h"

bool em_gemm_epilogue_parse(const em_node *n, em_gemm_epilogue *e)
{
    e->conv.act = EM_ACT_NONE;
    e->conv.p[0] = e->conv.p[1] = 0.0f;
    return n->op != EM_OP_FUSEDGEMM || em_conv_epilogue_parse(n, &e->conv);
}

bool em_gemm_epilogue_none(const em_gemm_epilogue *e) { return e->conv.act == EM_ACT_NONE; }

double em_gemm_act_apply(const em_gemm_epilogue *e, double v)
{
    return em_conv_act_apply(&e->conv, v);
}
