/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Channel-last MLP blocks back to channel-first (passes.h, step 3b; run with the layout pass,
 * before the conv fusions). ConvNeXt's block (torchvision) is
 *
 *   x [N, C, H, W] -> Transpose(0,2,3,1) -> LayerNormalization(axis -1) -> MatMul(W1) + b1 ->
 *   Gelu -> MatMul(W2) + b2 -> Transpose(0,3,1,2) [-> Mul(layer_scale [C, 1, 1])] -> + x
 *
 * Every op between the LayerNorm and the last Transpose works on the last (channel) axis
 * alone, so the same computation in NCHW is a 1x1 convolution per MatMul. The pass rewrites
 *
 *   Transpose(0,2,3,1) -> LayerNormalization -> Transpose(0,3,1,2) -> Conv1x1(W1^T, b1) ->
 *   Gelu -> Conv1x1(W2^T * s, b2 * s)
 *
 * where s is the layer scale (folded into the last conv when it follows a MatMul), so that the
 * conv fusions give the residual Add to the last conv (FusedConv's Z) and the layout pass runs
 * the whole block on channel-blocked values: the Transpose / LayerNorm / Transpose triple
 * becomes one BlockedLayerNorm (passes_layout_ops.c, as ConvNeXt's own LayerNorm2d does), the
 * convs run blocked, and no Transpose or reorder is left between the depthwise convs.
 *
 * Matched: x f32 rank 4 with known channels; LayerNormalization over the last axis alone with
 * one output, constant f32 Scale [C] and B (absent or [C]); then a chain, each value read
 * only by the next op and no graph output, of MatMul(v, W) with W a constant f32 [c, c'],
 * Add of a constant f32 bias [c'] (any rank with leading 1s, either side) right after a MatMul,
 * Mul by a constant f32 [c'] right after a MatMul (or its bias), and Gelu; at least one
 * MatMul; ending in Transpose(0,3,1,2). Anything else (another op in the chain, a second
 * reader, a runtime weight, a bias before any MatMul, a different perm) leaves the graph as it
 * is. The new nodes take the slots of the chain's old ones, in order, so topological order
 * holds; the last one writes the chain's output value (the Transpose's, or the folded Mul's).
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/status.h"
#include "shape/shape.h"

#include <stdio.h>
#include <string.h>

#define CL_MAX 8 /* chain steps (MatMul or Gelu) */

typedef struct cl_step {
    bool gelu;
    char approx[8]; /* Gelu's `approximate` */
    int node;       /* Gelu: its node; MatMul: the MatMul */
    int w;          /* MatMul: W [cin, cout] */
    int bias;       /* -1: none */
    int scale[2];   /* per-channel Muls folded in: their constant values, -1: none */
    int64_t cin, cout;
} cl_step;

typedef struct cl_chain {
    int t1, ln, t2, mul; /* mul: the layer-scale Mul after t2, or -1 */
    int n;
    cl_step s[CL_MAX];
    int slots[4 * CL_MAX + 4]; /* the chain's nodes after the LayerNorm, in order */
    int n_slots;
    int out; /* the chain's output value */
} cl_chain;

/* Value v is a constant f32 holding c values along its last axis, every other dim 1 (up to
 * max_rank dims). */
static bool chan_const(const em_graph *g, int v, int64_t c, int max_rank)
{
    if (v < 0 || em_pass_const_f32(g, v) == NULL) {
        return false;
    }
    const em_value *p = &g->values[v];
    if (p->rank < 1 || p->rank > max_rank || p->dims[p->rank - 1].v != c) {
        return false;
    }
    for (int d = 0; d < p->rank - 1; d++) {
        if (p->dims[d].v != 1) {
            return false;
        }
    }
    return true;
}

/* The live reader of private value v, or -1. */
static int only_reader(const em_pctx *c, int v)
{
    return em_pass_private(c, v) ? em_pass_reader(c, v, -1) : -1;
}

/* LayerNormalization ln over the last axis of a rank-4 value with C channels. */
static bool ln_ok(const em_pctx *c, int ln, int x, int64_t ch)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ln];
    if (n->op != EM_OP_LAYERNORM || n->n_out != 1 || n->n_in < 2 || n->in[0] != x) {
        return false;
    }
    int64_t axis = em_node_attr_int(n, "axis", -1);
    if (axis != -1 && axis != 3) {
        return false;
    }
    return chan_const(g, n->in[1], ch, 1) &&
           (n->n_in < 3 || n->in[2] < 0 || chan_const(g, n->in[2], ch, 1));
}

/* Matches the chain starting at Transpose t1 into ch; false when any condition fails. */
static bool match(const em_pctx *c, int t1, cl_chain *ch)
{
    static const int64_t to_last[4] = {0, 2, 3, 1}, to_first[4] = {0, 3, 1, 2};
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[t1];
    if (c->dead[t1] || !em_pass_perm_is(n, to_last, 4)) {
        return false;
    }
    const em_value *x = &g->values[n->in[0]];
    int64_t cur = x->rank == 4 ? x->dims[1].v : -1;
    if (x->dtype != EMBER_DTYPE_F32 || cur < 1) {
        return false;
    }
    memset(ch, 0, sizeof *ch);
    ch->t1 = t1;
    ch->mul = -1;
    ch->ln = only_reader(c, n->out[0]);
    if (ch->ln < 0 || !ln_ok(c, ch->ln, n->out[0], cur)) {
        return false;
    }
    int v = g->nodes[ch->ln].out[0];
    for (;;) {
        int r = only_reader(c, v);
        if (r < 0) {
            return false;
        }
        const em_node *rn = &g->nodes[r];
        cl_step *last = ch->n > 0 ? &ch->s[ch->n - 1] : NULL;
        bool after_mm = last != NULL && !last->gelu; /* an Add / Mul applies to that MatMul */
        if (rn->n_out != 1 || ch->n_slots >= (int)(sizeof ch->slots / sizeof ch->slots[0])) {
            return false;
        }
        if (em_pass_perm_is(rn, to_first, 4) && ch->n > 0) {
            ch->t2 = r;
            break;
        }
        if (rn->op == EM_OP_MATMUL && rn->n_in == 2 && rn->in[0] == v && ch->n < CL_MAX) {
            const em_value *w = &g->values[rn->in[1]];
            if (em_pass_const_f32(g, rn->in[1]) == NULL || w->rank != 2 || w->dims[0].v != cur ||
                w->dims[1].v < 1 || rn->in[1] == v) {
                return false;
            }
            cl_step s = {false, "", r, rn->in[1], -1, {-1, -1}, cur, w->dims[1].v};
            ch->s[ch->n++] = s;
            cur = s.cout;
        } else if (rn->op == EM_OP_ADD && rn->n_in == 2 && after_mm && last->bias < 0 &&
                   last->scale[0] < 0) {
            int b = em_pass_other(rn, v);
            if (b == v || !chan_const(g, b, cur, 4)) {
                return false;
            }
            last->bias = b;
        } else if (rn->op == EM_OP_MUL && rn->n_in == 2 && after_mm && last->scale[1] < 0) {
            int s = em_pass_other(rn, v);
            if (s == v || !chan_const(g, s, cur, 4)) {
                return false;
            }
            last->scale[last->scale[0] < 0 ? 0 : 1] = s;
        } else if (rn->op == EM_OP_GELU && rn->n_in == 1 && rn->in[0] == v && ch->n < CL_MAX) {
            const char *mode = em_node_attr_string(rn, "approximate", "none");
            cl_step s = {true, "", r, -1, -1, {-1, -1}, cur, cur};
            if (strcmp(mode, "none") != 0 && strcmp(mode, "tanh") != 0) {
                return false;
            }
            snprintf(s.approx, sizeof s.approx, "%s", mode);
            ch->s[ch->n++] = s;
        } else {
            return false;
        }
        if (g->values[rn->out[0]].dtype != EMBER_DTYPE_F32) {
            return false;
        }
        ch->slots[ch->n_slots++] = r;
        v = rn->out[0];
    }
    bool any_mm = false;
    for (int i = 0; i < ch->n; i++) {
        any_mm = any_mm || !ch->s[i].gelu;
    }
    if (!any_mm) {
        return false;
    }
    ch->slots[ch->n_slots++] = ch->t2;
    ch->out = g->nodes[ch->t2].out[0];
    /* The layer scale: a Mul of the NCHW output by a constant [C, 1, 1] or [1, C, 1, 1],
     * folded into the last MatMul's weights and bias. */
    cl_step *last = &ch->s[ch->n - 1];
    int m = only_reader(c, ch->out);
    if (m >= 0 && !last->gelu && last->scale[1] < 0 && g->nodes[m].op == EM_OP_MUL &&
        g->nodes[m].n_in == 2 && g->nodes[m].n_out == 1) {
        int s = em_pass_other(&g->nodes[m], ch->out);
        const em_value *sv = s >= 0 ? &g->values[s] : NULL;
        bool ok = sv != NULL && s != ch->out && em_pass_const_f32(g, s) != NULL &&
                  (sv->rank == 3 || (sv->rank == 4 && sv->dims[0].v == 1)) &&
                  sv->dims[sv->rank - 3].v == cur && sv->dims[sv->rank - 2].v == 1 &&
                  sv->dims[sv->rank - 1].v == 1 &&
                  em_pass_same_shape(&g->values[ch->out], &g->values[g->nodes[m].out[0]]);
        if (ok) {
            ch->mul = m;
            last->scale[last->scale[0] < 0 ? 0 : 1] = s;
            ch->slots[ch->n_slots++] = m;
            ch->out = g->nodes[m].out[0];
        }
    }
    return true;
}

/* Adds value "<base><suffix>" f32 [N, ch, H, W] with N, H, W of x. */
static ember_status *nchw_value(em_pctx *c, int x, const char *base, const char *suffix,
                                int64_t ch, int *out)
{
    em_graph *g = c->g;
    char name[512];
    em_dim d[4];
    memcpy(d, g->values[x].dims, sizeof d);
    d[1] = em_dim_known(ch);
    em_pass_unique_name(g, base, suffix, name, sizeof name);
    EM_PASS_TRY(em_graph_add_value(g, name, EMBER_DTYPE_F32, 4, d, out));
    return em_pass_sync(c);
}

/* A new node of op reading in[0..n_in) and writing value `to`, put into slot `slot` (whose old
 * node dies). */
static ember_status *put(em_pctx *c, int slot, em_op op, const char *name, const int *in,
                         int n_in, int to)
{
    int ni;
    EM_PASS_TRY(em_pass_add_node_into(c, op, name, in, n_in, to, &ni));
    for (int i = 0; i < n_in; i++) {
        if (in[i] >= 0) {
            c->nread[in[i]]++;
        }
    }
    em_pass_move(c, ni, slot);
    c->g->values[to].producer = slot;
    return NULL;
}

/* The conv weight [cout, cin, 1, 1] = W^T times the folded scales, and its bias, as new
 * initializers. */
static ember_status *conv_params(em_pctx *c, const cl_step *s, const char *base, int *w_out,
                                 int *b_out)
{
    em_graph *g = c->g;
    const float *w = em_pass_const_f32(g, s->w);
    const float *bias = s->bias >= 0 ? em_pass_const_f32(g, s->bias) : NULL;
    const float *sc[2] = {s->scale[0] >= 0 ? em_pass_const_f32(g, s->scale[0]) : NULL,
                          s->scale[1] >= 0 ? em_pass_const_f32(g, s->scale[1]) : NULL};
    int64_t ci = s->cin, co = s->cout;
    float *wt = em_malloc(g->al, sizeof *wt * (size_t)(ci * co + co));
    if (wt == NULL) {
        return em_status_oom();
    }
    float *bt = wt + ci * co;
    for (int64_t o = 0; o < co; o++) {
        float m = 1.0f;
        for (int k = 0; k < 2; k++) {
            m *= sc[k] != NULL ? sc[k][o] : 1.0f;
        }
        for (int64_t i = 0; i < ci; i++) {
            wt[o * ci + i] = w[i * co + o] * m;
        }
        bt[o] = (bias != NULL ? bias[o] : 0.0f) * m;
    }
    char name[512];
    int64_t wd[4] = {co, ci, 1, 1};
    ember_status *st = NULL;
    em_pass_unique_name(g, base, "/conv_w", name, sizeof name);
    st = em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, 4, wd, wt, w_out);
    if (st == NULL) {
        em_pass_unique_name(g, base, "/conv_b", name, sizeof name);
        st = em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, 1, &co, bt, b_out);
    }
    em_free(g->al, wt);
    EM_PASS_TRY(st);
    return em_pass_sync(c);
}

static ember_status *rewrite(em_pctx *c, const cl_chain *ch)
{
    em_graph *g = c->g;
    const int x = g->nodes[ch->t1].in[0];
    const int64_t c0 = g->values[x].dims[1].v;
    char base[512];
    snprintf(base, sizeof base, "%s", g->nodes[ch->ln].name[0] ? g->nodes[ch->ln].name
                                                                   : g->values[x].name);
    /* Names and values first: put() moves nodes, so read the old ones' facts now. */
    int vals[CL_MAX + 1], w[CL_MAX], b[CL_MAX];
    EM_PASS_TRY(nchw_value(c, x, base, "/nchw", c0, &vals[0]));
    for (int i = 0; i < ch->n; i++) {
        const cl_step *s = &ch->s[i];
        if (i == ch->n - 1) {
            vals[i + 1] = ch->out;
        } else {
            EM_PASS_TRY(nchw_value(c, x, g->values[g->nodes[s->node].out[0]].name, "/nchw",
                                   s->cout, &vals[i + 1]));
        }
        if (!s->gelu) {
            EM_PASS_TRY(conv_params(c, s, g->nodes[s->node].name, &w[i], &b[i]));
        }
    }
    /* Slot 0: the LayerNorm's output back to NCHW; then one node per step. */
    static const int64_t to_first[4] = {0, 3, 1, 2};
    char name[600];
    int ln_out = g->nodes[ch->ln].out[0];
    snprintf(name, sizeof name, "%s/to_nchw", base);
    EM_PASS_TRY(put(c, ch->slots[0], EM_OP_TRANSPOSE, name, &ln_out, 1, vals[0]));
    EM_PASS_TRY(em_node_set_ints(g, ch->slots[0], "perm", to_first, 4));
    for (int i = 0; i < ch->n; i++) {
        const cl_step *s = &ch->s[i];
        int slot = ch->slots[i + 1];
        snprintf(name, sizeof name, "%s/%s.%d", base, s->gelu ? "gelu" : "conv1x1", i);
        if (s->gelu) { /* the old nodes may be gone: only facts read before are used */
            EM_PASS_TRY(put(c, slot, EM_OP_GELU, name, &vals[i], 1, vals[i + 1]));
            EM_PASS_TRY(em_node_set_string(g, slot, "approximate", s->approx));
        } else {
            const int in[3] = {vals[i], w[i], b[i]};
            EM_PASS_TRY(put(c, slot, EM_OP_CONV, name, in, 3, vals[i + 1]));
        }
    }
    for (int k = ch->n + 1; k < ch->n_slots; k++) {
        em_pass_kill(c, ch->slots[k]);
    }
    return NULL;
}

ember_status *em_pass_channel_last(em_pctx *c, int block)
{
    if (block <= 0 && (em_cpu_features() & EM_ISA_AVX2) == 0) {
        return NULL; /* no layout pass to run the convs blocked: MatMuls stay */
    }
    em_graph *g = c->g;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        cl_chain ch;
        if (match(c, ni, &ch)) {
            EM_PASS_TRY(rewrite(c, &ch));
        }
    }
    return NULL;
}
