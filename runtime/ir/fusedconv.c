/* SPDX-License-Identifier: Apache-2.0 */
/* FusedConv's epilogue: names, parameters and the reference function (fusedconv.h). */
#include "ir/fusedconv.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    int n_params;
    float dflt[2];
} acts[] = {
    [EM_ACT_NONE] = {"", 0, {0, 0}},
    [EM_ACT_RELU] = {"Relu", 0, {0, 0}},
    [EM_ACT_LEAKYRELU] = {"LeakyRelu", 1, {0.01f, 0}},
    [EM_ACT_CLIP] = {"Clip", 2, {-INFINITY, INFINITY}},
    [EM_ACT_HARDSIGMOID] = {"HardSigmoid", 2, {0.2f, 0.5f}},
    [EM_ACT_HARDSWISH] = {"HardSwish", 0, {0, 0}},
    [EM_ACT_SIGMOID] = {"Sigmoid", 0, {0, 0}},
    [EM_ACT_TANH] = {"Tanh", 0, {0, 0}},
    [EM_ACT_SILU] = {"SiLU", 0, {0, 0}},
    [EM_ACT_GELU] = {"Gelu", 0, {0, 0}},
    [EM_ACT_GELU_TANH] = {"GeluTanh", 0, {0, 0}},
};

bool em_conv_epilogue_parse(const em_node *n, em_conv_epilogue *e)
{
    return em_conv_epilogue_parse_attrs(n, "activation", "activation_params", e);
}

int em_conv_act_n_params(em_conv_act act)
{
    return (unsigned)act < sizeof acts / sizeof acts[0] ? acts[act].n_params : 0;
}

bool em_conv_epilogue_parse_attrs(const em_node *n, const char *act, const char *params,
                                  em_conv_epilogue *e)
{
    const char *name = em_node_attr_string(n, act, "");
    e->act = EM_ACT_NONE;
    e->p[0] = e->p[1] = 0.0f;
    for (int i = 0; i < (int)(sizeof acts / sizeof acts[0]); i++) {
        if (strcmp(name, acts[i].name) != 0) {
            continue;
        }
        const em_attr *a = em_node_attr(n, params);
        if (a != NULL && (a->type != EM_ATTR_FLOATS || a->n > acts[i].n_params)) {
            return false;
        }
        e->act = (em_conv_act)i;
        for (int k = 0; k < 2; k++) {
            e->p[k] = a != NULL && k < a->n ? a->floats[k] : acts[i].dflt[k];
        }
        return true;
    }
    return false;
}

const char *em_conv_act_name(em_conv_act act)
{
    return (unsigned)act < sizeof acts / sizeof acts[0] ? acts[act].name : "?";
}

double em_conv_act_apply(const em_conv_epilogue *e, double v)
{
    switch (e->act) {
    case EM_ACT_RELU:
        return v > 0.0 ? v : 0.0;
    case EM_ACT_LEAKYRELU:
        return v < 0.0 ? (double)e->p[0] * v : v;
    case EM_ACT_CLIP:
        return v < (double)e->p[0] ? (double)e->p[0] : (v > (double)e->p[1] ? (double)e->p[1] : v);
    case EM_ACT_HARDSIGMOID:
        return fmax(0.0, fmin(1.0, (double)e->p[0] * v + (double)e->p[1]));
    case EM_ACT_HARDSWISH:
        return v * fmax(0.0, fmin(1.0, v / 6.0 + 0.5));
    case EM_ACT_SIGMOID:
        return 1.0 / (1.0 + exp(-v));
    case EM_ACT_TANH:
        return tanh(v);
    case EM_ACT_SILU:
        return v / (1.0 + exp(-v));
    case EM_ACT_GELU: /* erfc keeps the tail's relative precision where 1 + erf cancels */
        return 0.5 * v * erfc(-v * 0.70710678118654752440);
    case EM_ACT_GELU_TANH:
        return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case EM_ACT_NONE:
        break;
    }
    return v;
}

int64_t em_conv_group_merge(int64_t group, int64_t cg, int64_t mg, int64_t b)
{
    if (group < 1 || cg < 1 || mg < 1 || b < 1) {
        return 0;
    }
    for (int64_t j = 1; j <= EM_CONV_MERGE_MAX && j <= group; j++) {
        if (group % j == 0 && j * cg % b == 0 && j * mg % b == 0) {
            return j;
        }
    }
    return 0;
}
