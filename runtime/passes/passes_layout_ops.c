/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layout pass, part 2 (passes_layout.h): after the convolutions write blocked twins, the
 * nodes are walked in graph order and each op whose data input has a blocked twin becomes a
 * blocked op writing a twin of its output (whose plain value a ReorderFromBlocked after it
 * makes, dead unless read), so what follows it sees a blocked value too:
 *
 *  - Concat along channels of values that are whole blocks each: it joins the twins;
 *  - MaxPool (without Indices), AveragePool, GlobalMaxPool, GlobalAveragePool, 2-D:
 *    BlockedPool with the same attributes and `pool` naming the op;
 *  - BatchNormalization (inference, constant f32 statistics): BlockedAffine with the folded
 *    per-channel scale s = gamma / sqrt(var + eps) and shift beta - mean * s (new [C]
 *    initializers), taking the activation after it when it is its only reader;
 *  - Mul / Add of the data by a per-channel value ([1 or N, C, 1, 1] or [C, 1, 1]; its twin
 *    when it has one, the SE scale out of a blocked conv): BlockedAffine with S or T (and
 *    the activation after it, likewise);
 *  - an activation FusedConv takes (Relu, LeakyRelu, HardSigmoid, HardSwish, Sigmoid, Tanh,
 *    Swish of alpha 1): BlockedAffine without S and T;
 *  - Gelu: itself, on the twin (elementwise, and Gelu(0) = 0 keeps the padding);
 *  - Transpose(0,2,3,1) -> LayerNormalization over the last axis -> Transpose(0,3,1,2), each
 *    value private, Scale and B constant [C] (ConvNeXt's LayerNorm2d, and its blocks after
 *    passes_chlast.c): one BlockedLayerNorm in the last Transpose's slot.
 *
 * The blocked ops write the lanes past C as zero, as the conv and the reorders do, so
 * activations with act(0) != 0 keep the padding harmless.
 */
#include "passes/passes_layout.h"

#include "core/alloc.h"
#include "ir/blocked.h"
#include "ir/fusedconv.h"
#include "core/status.h"

#include <string.h>

/* Value v is 4-D f32 with known channels and has a blocked twin. */
static bool has_twin(const em_graph *g, const em_layout *l, int v)
{
    return v >= 0 && l->blk[v] >= 0 && g->values[v].rank == 4 &&
           g->values[v].dtype == EMBER_DTYPE_F32 && g->values[v].dims[1].v >= 1;
}

/* ---- Concat ---- */

/* Concat ni joins 4-D f32 values along channels, each a whole number of blocks with a blocked
 * twin already: it can join the twins instead (blocked [N, C/b, H, W, b] along axis 1). */
static bool concat_blockable(const em_pctx *c, const em_layout *l, int ni)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    if (n->n_out != 1 || n->n_in < 1) {
        return false;
    }
    const em_value *y = &g->values[n->out[0]];
    int64_t axis = em_node_attr_int(n, "axis", 0);
    if (y->dtype != EMBER_DTYPE_F32 || y->rank != 4 || y->dims[1].v < 1 ||
        (axis != 1 && axis != -3)) {
        return false;
    }
    for (int i = 0; i < n->n_in; i++) {
        if (!has_twin(g, l, n->in[i]) || g->values[n->in[i]].dims[1].v % l->b != 0) {
            return false;
        }
    }
    return true;
}

/* Concat ni reads the blocked twins and writes one. */
static ember_status *block_concat(em_pctx *c, em_layout *l, int ni)
{
    em_graph *g = c->g;
    for (int i = 0; i < g->nodes[ni].n_in; i++) {
        em_pass_set_input(c, ni, i, l->blk[g->nodes[ni].in[i]]);
    }
    for (int a = 0; a < g->nodes[ni].n_attrs; a++) { /* axis 1 or -3 -> 1 of the 5-D twins */
        em_attr *at = &g->nodes[ni].attrs[a];
        if (at->type == EM_ATTR_INT && strcmp(at->name, "axis") == 0) {
            at->i = 1;
        }
    }
    return em_layout_twin_output(c, l, ni, g->values[g->nodes[ni].out[0]].dims[1].v);
}

/* ---- pools ---- */

static bool pool_blockable(const em_pctx *c, const em_layout *l, int ni)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    bool pool = n->op == EM_OP_MAXPOOL || n->op == EM_OP_AVERAGEPOOL ||
                n->op == EM_OP_GLOBALMAXPOOL || n->op == EM_OP_GLOBALAVERAGEPOOL;
    return pool && n->n_in == 1 && n->n_out == 1 && has_twin(g, l, n->in[0]) &&
           g->values[n->out[0]].rank == 4 && g->values[n->out[0]].dtype == EMBER_DTYPE_F32;
}

static ember_status *block_pool(em_pctx *c, em_layout *l, int ni)
{
    em_graph *g = c->g;
    int x = g->nodes[ni].in[0];
    int64_t ch = g->values[x].dims[1].v;
    EM_PASS_TRY(em_node_set_string(g, ni, "pool", em_op_name(g->nodes[ni].op)));
    EM_PASS_TRY(em_node_set_int(g, ni, "channels", ch));
    g->nodes[ni].op = EM_OP_BLOCKEDPOOL;
    em_pass_set_input(c, ni, 0, l->blk[x]);
    return em_layout_twin_output(c, l, ni, ch);
}

/* ---- BlockedAffine ---- */

/* Node ni's inputs become in[0..n) (-1: absent). */
static ember_status *set_inputs(em_pctx *c, int ni, const int *in, int n)
{
    em_node *nd = &c->g->nodes[ni];
    for (int i = 0; i < nd->n_in; i++) {
        em_pass_set_input(c, ni, i, i < n ? in[i] : -1);
    }
    if (nd->n_in > n) {
        nd->n_in = n;
    }
    for (int i = c->g->nodes[ni].n_in; i < n; i++) {
        EM_PASS_TRY(em_pass_push_input(c, ni, in[i]));
    }
    return NULL;
}

/* Node ni becomes BlockedAffine(twin of x, s, t) (-1: absent) and, when its output's only
 * reader is an activation, takes that activation and its output. */
static ember_status *to_affine(em_pctx *c, em_layout *l, int ni, int x, int s, int t)
{
    em_graph *g = c->g;
    int64_t ch = g->values[x].dims[1].v;
    const int in[3] = {l->blk[x], s, t};
    em_conv_epilogue e;
    bool standalone = em_pass_activation_of(c, ni, &e); /* read before the inputs change */
    EM_PASS_TRY(set_inputs(c, ni, in, t >= 0 ? 3 : s >= 0 ? 2 : 1));
    if (standalone) {
        EM_PASS_TRY(em_pass_set_activation(c, ni, &e));
    } else {
        int y = g->nodes[ni].out[0], r = em_pass_private(c, y) ? em_pass_reader(c, y, ni) : -1;
        if (r >= 0 && g->nodes[r].in[0] == y && em_pass_activation_of(c, r, &e)) {
            EM_PASS_TRY(em_pass_set_activation(c, ni, &e));
            g->nodes[ni].out[0] = g->nodes[r].out[0];
            g->values[g->nodes[ni].out[0]].producer = ni;
            em_pass_kill(c, r);
        }
    }
    EM_PASS_TRY(em_node_set_int(g, ni, "channels", ch));
    g->nodes[ni].op = EM_OP_BLOCKEDAFFINE;
    return em_layout_twin_output(c, l, ni, ch);
}

/* BatchNormalization ni (inference, constant f32 statistics of its C channels, blocked X). */
static bool bn_blockable(const em_pctx *c, const em_layout *l, int ni)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    if (n->op != EM_OP_BATCHNORM || n->n_in != 5 || n->n_out != 1 ||
        em_node_attr_int(n, "training_mode", 0) != 0 || !has_twin(g, l, n->in[0])) {
        return false;
    }
    for (int i = 1; i < 5; i++) {
        const em_value *p = &g->values[n->in[i]];
        if (em_pass_const_f32(g, n->in[i]) == NULL || p->rank != 1 ||
            p->dims[0].v != g->values[n->in[0]].dims[1].v) {
            return false;
        }
    }
    return true;
}

static ember_status *block_bn(em_pctx *c, em_layout *l, int ni)
{
    em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    int64_t ch = g->values[n->in[0]].dims[1].v;
    double *ss = em_malloc(g->al, sizeof *ss * (size_t)(2 * ch));
    float *st = em_malloc(g->al, sizeof *st * (size_t)(2 * ch));
    if (ss == NULL || st == NULL) {
        em_free(g->al, ss);
        em_free(g->al, st);
        return em_status_oom();
    }
    em_pass_bn_scale_shift(g, n, ch, ss);
    for (int64_t k = 0; k < 2 * ch; k++) {
        st[k] = (float)ss[k];
    }
    em_free(g->al, ss);
    char name[2][512];
    const char *base = n->name[0] ? n->name : g->values[n->out[0]].name;
    em_pass_unique_name(g, base, "/scale", name[0], sizeof name[0]);
    em_pass_unique_name(g, base, "/shift", name[1], sizeof name[1]);
    int iv[2];
    ember_status *err = NULL;
    for (int i = 0; i < 2 && err == NULL; i++) {
        err =
            em_graph_add_initializer_copy(g, name[i], EMBER_DTYPE_F32, 1, &ch, st + i * ch, &iv[i]);
    }
    em_free(g->al, st);
    EM_PASS_TRY(err);
    EM_PASS_TRY(em_pass_sync(c));
    return to_affine(c, l, ni, g->nodes[ni].in[0], iv[0], iv[1]);
}

/* Mul / Add ni of blocked data (input `side`) and a per-channel value: that value (or its
 * twin) for BlockedAffine's S / T, or -1. */
static int chan_operand(const em_pctx *c, const em_layout *l, int ni, int side)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    int x = n->in[side], p = n->in[1 - side];
    if (!has_twin(g, l, x) || p < 0 || p == x || !em_pass_same_shape(&g->values[x], &g->values[n->out[0]])) {
        return -1;
    }
    const em_value *xv = &g->values[x], *pv = &g->values[p];
    const em_dim *d = pv->dims;
    bool ok = pv->dtype == EMBER_DTYPE_F32;
    if (pv->rank == 4) { /* [1 or N, C, 1, 1] */
        ok = ok && (d[0].v == 1 || (d[0].v >= 0 ? d[0].v == xv->dims[0].v
                                                : d[0].sym > 0 && d[0].sym == xv->dims[0].sym));
        d++;
    } else {
        ok = ok && pv->rank == 3; /* [C, 1, 1] */
    }
    ok = ok && d[0].v == xv->dims[1].v && d[1].v == 1 && d[2].v == 1;
    return !ok ? -1 : pv->rank == 4 && l->blk[p] >= 0 ? l->blk[p] : p;
}

/* ---- BlockedLayerNorm ---- */

/* Value v is a constant f32 [ch]. */
static bool vec_const(const em_graph *g, int v, int64_t ch)
{
    return v >= 0 && em_pass_const_f32(g, v) != NULL && g->values[v].rank == 1 &&
           g->values[v].dims[0].v == ch;
}

/* Transpose t1 of a blocked value, the LayerNorm ln after it and the Transpose back (its
 * index, or -1 when the three are not a LayerNorm over channels). */
static int chan_norm_of(const em_pctx *c, const em_layout *l, int t1, int *ln)
{
    static const int64_t to_last[4] = {0, 2, 3, 1}, to_first[4] = {0, 3, 1, 2};
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[t1];
    if (!em_pass_perm_is(n, to_last, 4) || !has_twin(g, l, n->in[0])) {
        return -1;
    }
    int64_t ch = g->values[n->in[0]].dims[1].v;
    int a = em_pass_private(c, n->out[0]) ? em_pass_reader(c, n->out[0], t1) : -1;
    const em_node *an = a >= 0 ? &g->nodes[a] : NULL;
    int64_t axis = an != NULL ? em_node_attr_int(an, "axis", -1) : 0;
    if (an == NULL || an->op != EM_OP_LAYERNORM || an->n_out != 1 || an->n_in < 2 ||
        an->in[0] != n->out[0] || (axis != -1 && axis != 3) || !vec_const(g, an->in[1], ch) ||
        (an->n_in > 2 && an->in[2] >= 0 && !vec_const(g, an->in[2], ch))) {
        return -1;
    }
    int t2 = em_pass_private(c, an->out[0]) ? em_pass_reader(c, an->out[0], a) : -1;
    if (t2 < 0 || !em_pass_perm_is(&g->nodes[t2], to_first, 4) ||
        g->values[g->nodes[t2].out[0]].dtype != EMBER_DTYPE_F32) {
        return -1;
    }
    *ln = a;
    return t2;
}

static ember_status *block_chan_norm(em_pctx *c, em_layout *l, int t1, int ln, int t2)
{
    em_graph *g = c->g;
    int x = g->nodes[t1].in[0];
    int64_t ch = g->values[x].dims[1].v;
    const em_node *an = &g->nodes[ln];
    float eps = em_node_attr_float(an, "epsilon", 1e-5f);
    int in[3] = {l->blk[x], an->in[1], an->n_in > 2 ? an->in[2] : -1};
    int tmp = g->n_nodes; /* em_pass_replace's new node, left dead in this slot */
    const int kill[2] = {t1, ln};
    EM_PASS_TRY(em_pass_replace(c, t2, EM_OP_BLOCKEDLAYERNORM, in, in[2] >= 0 ? 3 : 2, kill, 2));
    l->after[tmp - l->n_old] = t2;
    EM_PASS_TRY(em_node_set_int(g, t2, "channels", ch));
    EM_PASS_TRY(em_node_set_float(g, t2, "epsilon", eps));
    return em_layout_twin_output(c, l, t2, ch);
}

ember_status *em_layout_ops(em_pctx *c, em_layout *l)
{
    em_graph *g = c->g;
    for (int ni = 0; ni < l->n_old; ni++) {
        if (c->dead[ni]) {
            continue;
        }
        const em_node *n = &g->nodes[ni];
        em_conv_epilogue e;
        int ln, t2;
        if (n->op == EM_OP_CONCAT && concat_blockable(c, l, ni)) {
            EM_PASS_TRY(block_concat(c, l, ni));
        } else if (pool_blockable(c, l, ni)) {
            EM_PASS_TRY(block_pool(c, l, ni));
        } else if (bn_blockable(c, l, ni)) {
            EM_PASS_TRY(block_bn(c, l, ni));
        } else if ((n->op == EM_OP_MUL || n->op == EM_OP_ADD) && n->n_in == 2) {
            for (int side = 0; side < 2; side++) {
                int p = chan_operand(c, l, ni, side);
                if (p >= 0) {
                    bool mul = g->nodes[ni].op == EM_OP_MUL;
                    EM_PASS_TRY(
                        to_affine(c, l, ni, g->nodes[ni].in[side], mul ? p : -1, mul ? -1 : p));
                    break;
                }
            }
        } else if ((t2 = chan_norm_of(c, l, ni, &ln)) >= 0) {
            EM_PASS_TRY(block_chan_norm(c, l, ni, ln, t2));
        } else if (n->op == EM_OP_GELU && n->n_in == 1 && has_twin(g, l, n->in[0]) &&
                   em_pass_same_shape(&g->values[n->in[0]], &g->values[n->out[0]])) {
            em_pass_set_input(c, ni, 0, l->blk[n->in[0]]);
            EM_PASS_TRY(em_layout_twin_output(c, l, ni, g->values[n->out[0]].dims[1].v));
        } else if (em_pass_activation_of(c, ni, &e) && has_twin(g, l, n->in[0]) &&
                   em_pass_same_shape(&g->values[n->in[0]], &g->values[n->out[0]])) {
            EM_PASS_TRY(to_affine(c, l, ni, n->in[0], -1, -1));
        }
    }
    return NULL;
}
