/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Squeeze-and-excitation as one blocked op (passes.h, step 5b, after the layout pass). The
 * layout pass leaves an SE block as four blocked nodes:
 *
 *   p = BlockedPool(x, pool = GlobalAveragePool)
 *   h = FusedConv(p, W1, B1?) {blocked, 1x1, activation a}      R channels
 *   s = FusedConv(h, W2, B2?) {blocked, 1x1, activation g}      C channels
 *   y = BlockedAffine(x, s)   {no T, no activation}
 *
 * (the second conv plain, behind a ReorderFromBlocked, when R < 8: efficientnet_b0's first
 * blocks) (torch's SqueezeExcitation, efficientnet / mobilenet_v3 / regnet_y; g is Sigmoid, or
 * HardSigmoid in mobilenet_v3, a is Relu or SiLU). That chain becomes y = BlockedSE(x, W1, W2,
 * B1, B2) {activation a, gate g} in the affine's place (runtime/ir/blocked.h). Each pool and
 * conv costs a node dispatch (and at 2 threads a pool wake-up) for a few microseconds of
 * work; the fused op pools, runs the two tiny matrix-vector products and scales in one node.
 *
 * Matched only when proved: p, h and s are read by the next node of the chain alone and are
 * no graph outputs, the pool reads the affine's x, the convs are ungrouped 1x1 stride-1
 * unpadded convs on the same block as x with constant f32 weights [R, C, 1, 1] and [C, R, 1,
 * 1], no residual and activations FusedConv takes, and the affine scales by s alone. Anything
 * else (an SE whose scale is read elsewhere, a Mul followed by an activation folded into the
 * affine, a shift) is left as it is.
 */
#include "passes/passes.h"

#include "ir/blocked.h"
#include "ir/fusedconv.h"

#include <string.h>

/* Every value of INTS attribute `name` of n is `want` (or it is absent). */
static bool ints_all(const em_node *n, const char *name, int64_t want)
{
    const int64_t *v;
    int64_t cnt = em_node_attr_ints(n, name, &v);
    for (int64_t i = 0; i < cnt; i++) {
        if (v[i] != want) {
            return false;
        }
    }
    return true;
}

/* FusedConv f is a 1x1 conv on block b (0: plain) from `cin` channels with constant f32
 * weights, no residual and an activation it can name in *e; its output channels, else -1. */
static int64_t fc_1x1(const em_pctx *c, int f, int64_t b, int64_t cin, em_conv_epilogue *e)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[f];
    if (em_node_attr_int(n, "blocked", 0) != b || em_node_attr_int(n, "plain_input", 0) != 0 ||
        em_node_attr_int(n, "group", 1) != 1 || (n->n_in > 3 && n->in[3] >= 0) ||
        !ints_all(n, "strides", 1) || !ints_all(n, "pads", 0) ||
        strcmp(em_node_attr_string(n, "auto_pad", "NOTSET"), "NOTSET") != 0 ||
        !em_conv_epilogue_parse(n, e) || em_pass_const_f32(g, n->in[1]) == NULL) {
        return -1;
    }
    const em_value *w = &g->values[n->in[1]];
    if (w->rank != 4 || w->dims[1].v != cin || w->dims[2].v != 1 || w->dims[3].v != 1 ||
        w->dims[0].v < 1) {
        return -1;
    }
    if (n->n_in > 2 && n->in[2] >= 0) {
        const em_value *bias = &g->values[n->in[2]];
        if (em_pass_const_f32(g, n->in[2]) == NULL || bias->rank != 1 ||
            bias->dims[0].v != w->dims[0].v) {
            return -1;
        }
    }
    return w->dims[0].v;
}

/* BlockedAffine a closes an SE block: the chain's nodes in k[0..4) (pool, conv 1, conv 2, and
 * the ReorderFromBlocked between the convs or -1). The second conv is plain when the squeezed
 * width R is under 8 channels (the layout pass leaves such convs plain): it then reads conv 1's
 * output through a ReorderFromBlocked and the affine's S is plain [N, C, 1, 1]. */
static bool se_chain(const em_pctx *c, int a, int k[4], em_conv_epilogue e[2])
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[a];
    em_conv_epilogue ae;
    if (n->n_in < 2 || (n->n_in > 2 && n->in[2] >= 0) || !em_conv_epilogue_parse(n, &ae) ||
        ae.act != EM_ACT_NONE || n->in[0] < 0 || g->values[n->in[0]].rank != 5) {
        return false;
    }
    const em_value *x = &g->values[n->in[0]];
    int64_t ch = em_node_attr_int(n, "channels", -1), b = x->dims[4].v;
    k[2] = em_pass_private_prod(c, n->in[1], EM_OP_FUSEDCONV);
    bool plain2 = k[2] >= 0 && em_node_attr_int(&g->nodes[k[2]], "blocked", 0) == 0;
    int h = k[2] >= 0 ? g->nodes[k[2]].in[0] : -1;
    k[3] = plain2 ? em_pass_private_prod(c, h, EM_OP_REORDERFROMBLOCKED) : -1;
    h = k[3] >= 0 ? g->nodes[k[3]].in[0] : (plain2 ? -1 : h);
    k[1] = h >= 0 ? em_pass_private_prod(c, h, EM_OP_FUSEDCONV) : -1;
    k[0] = k[1] >= 0 ? em_pass_private_prod(c, g->nodes[k[1]].in[0], EM_OP_BLOCKEDPOOL) : -1;
    if (k[0] < 0 || ch < 1 || b < 1 || x->dtype != EMBER_DTYPE_F32) {
        return false;
    }
    const em_node *p = &g->nodes[k[0]];
    if (p->in[0] != n->in[0] || em_blocked_pool_op(p) != EM_OP_GLOBALAVERAGEPOOL ||
        em_node_attr_int(p, "channels", -1) != ch) {
        return false;
    }
    int64_t r = fc_1x1(c, k[1], b, ch, &e[0]);
    return r >= 1 && fc_1x1(c, k[2], plain2 ? 0 : b, r, &e[1]) == ch;
}

static ember_status *fuse_se(em_pctx *c, int a, const int k[4], const em_conv_epilogue e[2])
{
    em_graph *g = c->g;
    const em_node *f1 = &g->nodes[k[1]], *f2 = &g->nodes[k[2]];
    int in[5] = {g->nodes[a].in[0], f1->in[1], f2->in[1], f1->n_in > 2 ? f1->in[2] : -1,
                 f2->n_in > 2 ? f2->in[2] : -1};
    int n_in = in[4] >= 0 ? 5 : in[3] >= 0 ? 4 : 3;
    for (int i = 0; i < n_in; i++) {
        if (i < g->nodes[a].n_in) {
            em_pass_set_input(c, a, i, in[i]);
        } else {
            EM_PASS_TRY(em_pass_push_input(c, a, in[i]));
        }
    }
    for (int i = n_in; i < g->nodes[a].n_in; i++) {
        em_pass_set_input(c, a, i, -1);
    }
    g->nodes[a].n_in = n_in;
    EM_PASS_TRY(em_pass_set_activation(c, a, &e[0]));
    EM_PASS_TRY(em_pass_set_epilogue(c, a, "gate", "gate_params", &e[1]));
    g->nodes[a].op = EM_OP_BLOCKEDSE;
    for (int i = 3; i >= 0; i--) { /* their outputs are read by the chain alone */
        if (k[i] >= 0) {
            em_pass_kill(c, k[i]);
        }
    }
    return NULL;
}

ember_status *em_pass_fuse_se(em_pctx *c)
{
    em_pass_refresh_producers(c); /* stale after the layout pass placed its nodes */
    for (int a = 0; a < c->g->n_nodes; a++) {
        int k[4];
        em_conv_epilogue e[2];
        if (!c->dead[a] && c->g->nodes[a].op == EM_OP_BLOCKEDAFFINE && se_chain(c, a, k, e)) {
            EM_PASS_TRY(fuse_se(c, a, k, e));
        }
    }
    return NULL;
}
