/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built-in default model: a small MNIST-sized CNN with deterministic weights, so that
 * `ember run` works on a fresh machine with no model file.
 *
 *   input f32[N,1,28,28]
 *   conv1 3x3 pad 1 (1->8) -> BatchNormalization -> Relu -> MaxPool 2x2   [N,8,14,14]
 *   conv2 3x3 pad 1 (8->8) -> Relu -> Add(pool1)                          [N,8,14,14]
 *   conv3 3x3 pad 1 stride 2 (8->16) -> Relu -> Flatten                   [N,784]
 *   fc1 Gemm (784->64) -> Relu -> fc2 Gemm (64->10) -> Softmax             probs f32[N,10]
 *
 * Weight tensor k (in the order created below) is filled from splitmix64 seeded with 1000 + k:
 * u = (z >> 40) * 2^-24 in [0, 1), value = (float)(lo + (hi - lo) * u) computed in double.
 * Convolution and Gemm weights and biases use PyTorch's default bound 1/sqrt(fan_in).
 * tools/gen_default_model_ref.py rebuilds the same model in PyTorch for the reference output.
 */
#include "api/api_internal.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdio.h>

typedef struct builder {
    em_graph *g;
    int n_weights;
} builder;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static ember_status *weight(builder *b, const char *name, const int64_t *dims, int rank,
                            double lo, double hi, int *out)
{
    em_storage *s = NULL;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= dims[i];
    }
    ember_status *st = em_storage_new_owned(b->g->al, (size_t)n * sizeof(float), &s);
    if (st != NULL) {
        return st;
    }
    float *w = em_storage_data(s);
    uint64_t seed = 1000 + (uint64_t)b->n_weights++;
    for (int64_t i = 0; i < n; i++) {
        double u = (double)(splitmix64(&seed) >> 40) * (1.0 / 16777216.0);
        w[i] = (float)(lo + (hi - lo) * u);
    }
    st = em_graph_add_initializer(b->g, name, EMBER_DTYPE_F32, rank, dims, s, 0, out);
    em_storage_release(s);
    return st;
}

/* Conv with weight and bias, 3x3, pad 1. */
static ember_status *conv(builder *b, const char *name, int x, int64_t cin, int64_t cout,
                          int64_t stride, int *y)
{
    ember_status *st;
    char wn[64], bn[64];
    int w, bias, node;
    int64_t wd[4] = {cout, cin, 3, 3}, bd[1] = {cout};
    double bound = 1.0 / sqrt((double)(cin * 9));
    snprintf(wn, sizeof wn, "%s.weight", name);
    snprintf(bn, sizeof bn, "%s.bias", name);
    if ((st = weight(b, wn, wd, 4, -bound, bound, &w)) || (st = weight(b, bn, bd, 1, -bound, bound, &bias))) {
        return st;
    }
    int in[3] = {x, w, bias};
    const char *out_name = name;
    if ((st = em_graph_add_node(b->g, EM_OP_CONV, name, in, 3, &out_name, 1, &node))) {
        return st;
    }
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {stride, stride}, ks[2] = {3, 3};
    if ((st = em_node_set_ints(b->g, node, "kernel_shape", ks, 2)) ||
        (st = em_node_set_ints(b->g, node, "pads", pads, 4)) ||
        (st = em_node_set_ints(b->g, node, "strides", strides, 2))) {
        return st;
    }
    *y = b->g->nodes[node].out[0];
    return NULL;
}

static ember_status *unary(builder *b, em_op op, const char *name, int x, int *y)
{
    int node;
    ember_status *st = em_graph_add_node(b->g, op, name, &x, 1, &name, 1, &node);
    if (st == NULL) {
        *y = b->g->nodes[node].out[0];
    }
    return st;
}

static ember_status *gemm(builder *b, const char *name, int x, int64_t in, int64_t out, int *y)
{
    ember_status *st;
    char wn[64], bn[64];
    int w, bias, node;
    int64_t wd[2] = {out, in}, bd[1] = {out};
    double bound = 1.0 / sqrt((double)in);
    snprintf(wn, sizeof wn, "%s.weight", name);
    snprintf(bn, sizeof bn, "%s.bias", name);
    if ((st = weight(b, wn, wd, 2, -bound, bound, &w)) || (st = weight(b, bn, bd, 1, -bound, bound, &bias))) {
        return st;
    }
    int ins[3] = {x, w, bias};
    if ((st = em_graph_add_node(b->g, EM_OP_GEMM, name, ins, 3, &name, 1, &node)) ||
        (st = em_node_set_int(b->g, node, "transB", 1))) {
        return st;
    }
    *y = b->g->nodes[node].out[0];
    return NULL;
}

static ember_status *batchnorm(builder *b, const char *name, int x, int64_t c, int *y)
{
    ember_status *st;
    int p[4], node;
    int64_t d[1] = {c};
    static const char *const suffix[4] = {"weight", "bias", "running_mean", "running_var"};
    static const double lo[4] = {0.9, -0.1, -0.1, 0.5}, hi[4] = {1.1, 0.1, 0.1, 1.5};
    for (int i = 0; i < 4; i++) {
        char wn[64];
        snprintf(wn, sizeof wn, "%s.%s", name, suffix[i]);
        if ((st = weight(b, wn, d, 1, lo[i], hi[i], &p[i])) != NULL) {
            return st;
        }
    }
    int ins[5] = {x, p[0], p[1], p[2], p[3]};
    if ((st = em_graph_add_node(b->g, EM_OP_BATCHNORM, name, ins, 5, &name, 1, &node)) ||
        (st = em_node_set_float(b->g, node, "epsilon", 1e-5f))) {
        return st;
    }
    *y = b->g->nodes[node].out[0];
    return NULL;
}

ember_status *em_builtin_default(em_graph *g)
{
    ember_status *st = NULL;
    builder b = {g, 0};
    int x, t, pool1, node;
    int64_t in_dims[4] = {-1, 1, 28, 28};
    const char *in_names[4] = {"N", NULL, NULL, NULL};
    EMBER_TRY(em_graph_add_input(g, "input", EMBER_DTYPE_F32, 4, in_dims, in_names, &x));
    EMBER_TRY(conv(&b, "conv1", x, 1, 8, 1, &t));
    EMBER_TRY(batchnorm(&b, "bn1", t, 8, &t));
    EMBER_TRY(unary(&b, EM_OP_RELU, "relu1", t, &t));
    const char *pool_name = "pool1";
    EMBER_TRY(em_graph_add_node(g, EM_OP_MAXPOOL, pool_name, &t, 1, &pool_name, 1, &node));
    int64_t k2[2] = {2, 2};
    EMBER_TRY(em_node_set_ints(g, node, "kernel_shape", k2, 2));
    EMBER_TRY(em_node_set_ints(g, node, "strides", k2, 2));
    pool1 = g->nodes[node].out[0];
    EMBER_TRY(conv(&b, "conv2", pool1, 8, 8, 1, &t));
    EMBER_TRY(unary(&b, EM_OP_RELU, "relu2", t, &t));
    int add_in[2] = {t, pool1};
    const char *add_name = "residual";
    EMBER_TRY(em_graph_add_node(g, EM_OP_ADD, add_name, add_in, 2, &add_name, 1, &node));
    t = g->nodes[node].out[0];
    EMBER_TRY(conv(&b, "conv3", t, 8, 16, 2, &t));
    EMBER_TRY(unary(&b, EM_OP_RELU, "relu3", t, &t));
    EMBER_TRY(unary(&b, EM_OP_FLATTEN, "flatten", t, &t));
    EMBER_TRY(gemm(&b, "fc1", t, 16 * 7 * 7, 64, &t));
    EMBER_TRY(unary(&b, EM_OP_RELU, "relu4", t, &t));
    EMBER_TRY(gemm(&b, "fc2", t, 64, 10, &t));
    const char *sm_name = "probs";
    EMBER_TRY(em_graph_add_node(g, EM_OP_SOFTMAX, sm_name, &t, 1, &sm_name, 1, &node));
    EMBER_TRY(em_node_set_int(g, node, "axis", 1));
    EMBER_TRY(em_graph_mark_output(g, g->nodes[node].out[0]));
    return NULL;
fail:
    return st;
}
