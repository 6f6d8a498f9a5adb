/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layout pass (passes.h, step 5). Every 2-D f32 convolution with constant weights and at
 * least 8 input channels becomes a FusedConv with `blocked` = b: it reads X (and Z) and
 * writes Y channel-blocked, [N, ceil(C/b), H, W, b]. Its output value keeps its name, shape
 * and readers but is now made by a ReorderFromBlocked placed right after the conv; blocked
 * readers read the blocked twin directly, so that reorder is dead code (and dropped) unless a
 * plain-layout reader or a graph output needs the value. Then, in graph order, the ops between
 * blocked values become blocked twins the same way (passes_layout_ops.c: channel Concats,
 * pools, BatchNormalization + activation, activations, per-channel Mul / Add), so chains such
 * as conv -> MaxPool -> conv or Concat -> BN -> Relu -> conv stay blocked. A blocked conv
 * reading a plain value gets a ReorderToBlocked, one per value, right after the value's
 * producer.
 */
#include "passes/passes_layout.h"

#include "core/alloc.h"
#include "core/cpu.h"
#include "ir/fusedconv.h"
#include "shape/shape.h"
#include "core/status.h"

#include <string.h>

enum { NOT_BLOCKED = 0, BLOCKED, BLOCKED_OUT }; /* BLOCKED_OUT: X stays plain */

/* Whether and how node ni, a conv, can be blocked. */
static int blockable(const em_pctx *c, int ni, int64_t b)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    if (c->dead[ni] || (n->op != EM_OP_CONV && n->op != EM_OP_FUSEDCONV) ||
        em_node_attr_int(n, "blocked", 0) != 0) {
        return NOT_BLOCKED;
    }
    const em_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]];
    const em_value *y = &g->values[n->out[0]];
    if (x->dtype != EMBER_DTYPE_F32 || x->rank != 4 || y->dtype != EMBER_DTYPE_F32 ||
        y->rank != 4 || em_pass_const_f32(g, n->in[1]) == NULL || w->rank != 4) {
        return NOT_BLOCKED;
    }
    if (n->n_in > 3 && n->in[3] >= 0 && g->values[n->in[3]].rank != 4) {
        return NOT_BLOCKED;
    }
    int64_t group = em_node_attr_int(n, "group", 1), cg = w->dims[1].v;
    int64_t mg = group > 0 ? w->dims[0].v / group : 0;
    if (group < 1 || w->dims[0].v < 1) {
        return NOT_BLOCKED;
    }
    if (cg * group < 8) { /* the first conv of an image net (3 channels) reads X plain */
        int xp = x->producer;
        bool after_conv =
            xp >= 0 && (g->nodes[xp].op == EM_OP_CONV || g->nodes[xp].op == EM_OP_FUSEDCONV);
        return group == 1 && w->dims[0].v >= 8 && !after_conv ? BLOCKED_OUT : NOT_BLOCKED;
    }
    /* oneDNN's direct blocked kernels want whole blocks of input channels (1x1 and Winograd
     * aside); without them it falls back to its reference loops (the built-in model's 8 -> 16
     * 3x3 stride-2 conv took 1.6 ms instead of ~10 us). Fewer channels than a block read X
     * plain, like a first conv; more stay plain. */
    bool one_by_one = w->dims[2].v == 1 && w->dims[3].v == 1;
    if (group == 1 && cg % b != 0 && !one_by_one) {
        return cg < b ? BLOCKED_OUT : NOT_BLOCKED;
    }
    /* Grouped: depthwise, or groups of whole blocks, or a few groups merged into whole blocks
     * (ir/fusedconv.h: oneDNN's gemm path for resnext50's 4-channel groups, plain, took twice
     * the time of the merged blocked conv). */
    return group == 1 || (cg == 1 && mg == 1) || em_conv_group_merge(group, cg, mg, b) > 0
               ? BLOCKED
               : NOT_BLOCKED;
}

/* Adds value "<name>/blocked" of the blocked form of plain value v; its index. */
static ember_status *blocked_value(em_graph *g, int v, int64_t b, int *out)
{
    char name[512];
    em_dim d[5];
    const em_value *pv = &g->values[v];
    for (int i = 0; i < 4; i++) {
        d[i] = pv->dims[i];
    }
    d[1] = pv->dims[1].v >= 0 ? em_dim_known((pv->dims[1].v + b - 1) / b) : em_dim_unknown();
    d[4] = em_dim_known(b);
    em_pass_unique_name(g, pv->name, "/blocked", name, sizeof name);
    return em_graph_add_value(g, name, EMBER_DTYPE_F32, 5, d, out);
}

/* Adds a reorder node from value `from` (its output value is then set to `to`). */
static ember_status *reorder_node(em_pctx *c, em_op op, int from, int to, int64_t attr, int *out)
{
    em_graph *g = c->g;
    char name[512];
    em_pass_unique_name(g, g->values[to].name,
                        op == EM_OP_REORDERTOBLOCKED ? "/to_blocked" : "/from_blocked", name,
                        sizeof name);
    EM_PASS_TRY(em_pass_add_node_into(c, op, name, &from, 1, to, out));
    return em_node_set_int(g, *out, op == EM_OP_REORDERTOBLOCKED ? "block" : "channels", attr);
}

ember_status *em_layout_twin_output(em_pctx *c, em_layout *l, int ni, int64_t channels)
{
    em_graph *g = c->g;
    int y = g->nodes[ni].out[0], yb, r;
    EM_PASS_TRY(blocked_value(g, y, l->b, &yb));
    EM_PASS_TRY(reorder_node(c, EM_OP_REORDERFROMBLOCKED, yb, y, channels, &r));
    l->after[r - l->n_old] = ni;
    g->nodes[ni].out[0] = yb;
    g->values[yb].producer = ni;
    l->blk[y] = yb;
    return NULL;
}

static ember_status *block_convs(em_pctx *c, em_layout *l)
{
    em_graph *g = c->g;
    const int n_old = l->n_old;
    const int64_t b = l->b;
    int *is_blk = em_calloc(g->al, (size_t)n_old + 1, sizeof *is_blk);
    if (is_blk == NULL) {
        return em_status_oom();
    }
    ember_status *st = NULL;
    for (int ni = 0; ni < n_old; ni++) {
        is_blk[ni] = blockable(c, ni, b);
    }
    /* Outputs: each blocked conv writes a blocked twin; the plain value comes from a reorder. */
    for (int ni = 0; ni < n_old && st == NULL; ni++) {
        if (!is_blk[ni]) {
            continue;
        }
        EMBER_TRY(em_layout_twin_output(c, l, ni, g->values[g->nodes[ni].in[1]].dims[0].v));
        g->nodes[ni].op = EM_OP_FUSEDCONV;
        EMBER_TRY(em_node_set_int(g, ni, "blocked", b));
        if (is_blk[ni] == BLOCKED_OUT) {
            EMBER_TRY(em_node_set_int(g, ni, "plain_input", 1));
        }
    }
    /* The ops between blocked values (Concat, pools, BN, activations, SE scale) follow. */
    if (st == NULL) {
        st = em_layout_ops(c, l);
    }
    /* Inputs X and Z: the blocked twin, made by a ReorderToBlocked when the value has none. */
    for (int ni = 0; ni < n_old && st == NULL; ni++) {
        for (int slot = is_blk[ni] == BLOCKED_OUT ? 3 : 0; is_blk[ni] && slot < 4; slot += 3) {
            if (slot >= g->nodes[ni].n_in || g->nodes[ni].in[slot] < 0) {
                continue;
            }
            int v = g->nodes[ni].in[slot];
            if (l->blk[v] < 0) {
                int vb, r;
                EMBER_TRY(blocked_value(g, v, b, &vb));
                EMBER_TRY(reorder_node(c, EM_OP_REORDERTOBLOCKED, v, vb, b, &r));
                l->after[r - n_old] = g->values[v].producer;
                l->blk[v] = vb;
            }
            em_pass_set_input(c, ni, slot, l->blk[v]);
        }
    }
fail:
    em_free(g->al, is_blk);
    return st;
}

ember_status *em_pass_layout(em_pctx *c, int block)
{
    em_graph *g = c->g;
    int64_t b = block;
    if (b <= 0) {
        uint64_t isa = em_cpu_features();
        /* one vector: AVX-512 16, AVX2 8, NEON 4 (kernels/arm runs the blocked depthwise
         * convs, pools and affine ops on kernels/vec's templates, the rest through im2col) */
        b = (isa & EM_ISA_AVX512F) ? 16 : (isa & EM_ISA_AVX2) ? 8 : (isa & EM_ISA_NEON) ? 4 : 0;
    }
    if (b <= 0) {
        return NULL;
    }
    int n_old = g->n_nodes, nv_old = g->n_values;
    /* New nodes: a ReorderFromBlocked per converted node, a ReorderToBlocked per value. New
     * values: per converted node its twin, the reorder's temporary and two initializers (BN's
     * scale and shift); per ReorderToBlocked a twin and a temporary. */
    size_t n_blk = (size_t)nv_old * 3 + (size_t)n_old * 4 + 1;
    em_layout l = {b, n_old, em_malloc(g->al, sizeof(int) * n_blk),
                   em_malloc(g->al, sizeof(int) * ((size_t)n_old + (size_t)nv_old + 1))};
    ember_status *st = NULL;
    if (l.blk == NULL || l.after == NULL) {
        st = em_status_oom();
        goto done;
    }
    for (size_t v = 0; v < n_blk; v++) {
        l.blk[v] = -1;
    }
    em_pass_refresh_producers(c); /* stale after the fusions */
    st = block_convs(c, &l);
    if (st == NULL) {
        st = em_pass_place_new(c, n_old, l.after);
    }
    if (st == NULL) { /* read counts from scratch: reorders were added outside the helpers */
        memset(c->nread, 0, sizeof *c->nread * (size_t)g->n_values);
        for (int ni = 0; ni < g->n_nodes; ni++) {
            for (int i = 0; !c->dead[ni] && i < g->nodes[ni].n_in; i++) {
                if (g->nodes[ni].in[i] >= 0) {
                    c->nread[g->nodes[ni].in[i]]++;
                }
            }
        }
    }
done:
    em_free(g->al, l.blk);
    em_free(g->al, l.after);
    return st;
}
