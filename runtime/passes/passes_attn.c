/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MatMul + Softmax attention chains -> Attention-23 (passes.h), the op of the fast kernel
 * (kernels/x86/attn_*): exporters write scaled dot-product attention as
 *
 *   s = MatMul(Q', K^T')   [s = Div(s, c) | Mul(s, c)]   [s = Add(s, mask)]
 *   y = MatMul(Softmax(s, last axis), V)
 *
 * with Q' = Q, Div(Q, c) or Mul(Q, c) (torch.onnx's MultiheadAttention scales Q), K^T' = K^T
 * or Mul(K^T, c) (torch 2's scaled_dot_product_attention scales both), and K^T a Transpose
 * whose perm ends by swapping the last two axes of what K would be. That Transpose is given
 * the perm that makes K itself (or dropped when that perm is the identity), and the chain
 * becomes Attention(Q, K, V[, mask]) with scale = the product of the scalings (1 when none):
 * Q, K, V 4-D [B, H, S, D] as they are, or 3-D [N, S, D] (torch's [B * heads, S, D]) as one
 * head of a 3-D Attention (q_num_heads = kv_num_heads = 1). Proved first: f32, Q, K and V of
 * one rank with equal leading dims (no MatMul broadcasting), Q's D = K's, K's length = V's,
 * the scalings one-element constants, the Softmax along the last axis, the mask f32 and
 * broadcasting onto the scores without widening them (rank <= 2, or a leading 1, for 3-D),
 * every intermediate private. Anything else is left as it is.
 */
#include "passes/passes.h"

#include "core/status.h"

#include <string.h>

typedef struct attn_match {
    int q, kt, v, mask, t; /* t: the Transpose writing K^T */
    double scale;
    int kill[8], n_kill;
} attn_match;

static void take(attn_match *m, int ni)
{
    m->kill[m->n_kill++] = ni;
}

/* Value v, private, scaled by node Div(u, c) or Mul(u, c) / Mul(c, u): u, with *scale
 * multiplied by 1 / c or c; else v itself. */
static int unscale(const em_pctx *c, int v, attn_match *m)
{
    const em_graph *g = c->g;
    int p = g->values[v].producer;
    if (p < 0 || c->dead[p] || !em_pass_only_read(c, v, 1) || g->nodes[p].n_in != 2) {
        return v;
    }
    const em_node *n = &g->nodes[p];
    double k;
    if (n->op == EM_OP_DIV && em_pass_scalar(g, n->in[1], &k) && k != 0.0) {
        m->scale /= k;
        take(m, p);
        return n->in[0];
    }
    for (int side = 0; n->op == EM_OP_MUL && side < 2; side++) {
        if (em_pass_scalar(g, n->in[side], &k)) {
            m->scale *= k;
            take(m, p);
            return n->in[1 - side];
        }
    }
    return v;
}

/* The score MatMul behind value s (private): MatMul, possibly scaled; -1 otherwise. */
static int score_of(const em_pctx *c, int s, attn_match *m)
{
    int n0 = m->n_kill;
    double sc = m->scale;
    int u = unscale(c, s, m), mm = em_pass_prod(c, u, EM_OP_MATMUL);
    if (mm < 0 || !em_pass_only_read(c, u, 1)) {
        m->n_kill = n0;
        m->scale = sc;
        return -1;
    }
    return mm;
}

/* Dims d[0..n) of a and b are known and equal, or one symbol. */
static bool same_dims(const em_value *a, int ia, const em_value *b, int ib, int n)
{
    for (int i = 0; i < n; i++) {
        em_dim x = a->dims[ia + i], y = b->dims[ib + i];
        if (!(x.v >= 0 ? x.v == y.v : x.sym > 0 && x.sym == y.sym)) {
            return false;
        }
    }
    return true;
}

/* K^T (value kt) is written by a private Transpose whose perm, last two entries swapped, gives
 * K of Q's shape pattern: the Transpose in m->t and K's would-be dims checked by the caller. */
static bool transpose_of_k(const em_pctx *c, int kt, attn_match *m, int64_t *pk)
{
    const em_graph *g = c->g;
    int t = em_pass_prod(c, kt, EM_OP_TRANSPOSE);
    const int64_t *p = NULL;
    int r = g->values[kt].rank;
    if (t < 0 || !em_pass_only_read(c, kt, 1) || em_node_attr_ints(&g->nodes[t], "perm", &p) != r) {
        return false;
    }
    memcpy(pk, p, sizeof *pk * (size_t)r);
    pk[r - 2] = p[r - 1];
    pk[r - 1] = p[r - 2];
    m->t = t;
    return true;
}

/* Shapes: Q [..., S, D], K^T [..., D, T], V [..., T, Dv], y [..., S, Dv], rank 3 or 4, the
 * leading dims equal; the Softmax's input sm_in of the scores' shape (scalings and mask
 * widen nothing), the mask (if any) f32 and of a rank the Attention broadcasts alike. */
static bool shapes_fit(const em_graph *g, const attn_match *m, int scores, int sm_in, int y)
{
    const em_value *q = &g->values[m->q], *kt = &g->values[m->kt], *v = &g->values[m->v];
    const em_value *yv = &g->values[y];
    int r = q->rank;
    if ((r != 3 && r != 4) || kt->rank != r || v->rank != r || yv->rank != r ||
        q->dtype != EMBER_DTYPE_F32 || kt->dtype != EMBER_DTYPE_F32 ||
        v->dtype != EMBER_DTYPE_F32 || !same_dims(q, 0, kt, 0, r - 2) ||
        !same_dims(q, 0, v, 0, r - 2) || !same_dims(q, r - 1, kt, r - 2, 1) ||
        !same_dims(kt, r - 1, v, r - 2, 1) || !same_dims(yv, 0, q, 0, r - 1) ||
        !same_dims(yv, r - 1, v, r - 1, 1) ||
        !em_pass_same_shape(&g->values[scores], &g->values[sm_in])) {
        return false;
    }
    if (m->mask < 0) {
        return true;
    }
    const em_value *mk = &g->values[m->mask];
    /* The Attention reads a mask's last dim as keys (a shorter one is padded, not broadcast),
     * so it must be the key count, where an Add would broadcast a 1 or a scalar. */
    if (mk->dtype != EMBER_DTYPE_F32 || mk->rank < 1 || mk->rank > r ||
        !same_dims(mk, mk->rank - 1, kt, r - 1, 1)) {
        return false;
    }
    /* 3-D: the scores' leading dim is the Attention's batch, not a mask dim (heads are 1) */
    return r == 4 || mk->rank <= 2 || mk->dims[0].v == 1;
}

/* The chain whose output MatMul (P V) is node j. */
static bool match_attn(const em_pctx *c, int j, attn_match *m, int64_t *pk)
{
    const em_graph *g = c->g;
    const em_node *out = &g->nodes[j];
    int sm = em_pass_prod(c, out->in[0], EM_OP_SOFTMAX);
    if (sm < 0 || !em_pass_only_read(c, out->in[0], 1) || out->n_in != 2) {
        return false;
    }
    int s = g->nodes[sm].in[0], r = g->values[s].rank;
    int64_t axis = em_node_attr_int(&g->nodes[sm], "axis", -1);
    if (r < 3 || (axis != -1 && axis != r - 1) || !em_pass_only_read(c, s, 1)) {
        return false;
    }
    take(m, sm);
    int mm = score_of(c, s, m), add = em_pass_prod(c, s, EM_OP_ADD);
    for (int side = 0; mm < 0 && add >= 0 && side < 2; side++) {
        mm = score_of(c, g->nodes[add].in[side], m);
        m->mask = mm >= 0 ? g->nodes[add].in[1 - side] : -1;
    }
    if (mm < 0) {
        return false;
    }
    if (m->mask >= 0) {
        take(m, add);
    }
    take(m, mm);
    m->q = unscale(c, g->nodes[mm].in[0], m);
    m->kt = unscale(c, g->nodes[mm].in[1], m);
    m->v = out->in[1];
    return m->q != m->kt && transpose_of_k(c, m->kt, m, pk) &&
           shapes_fit(g, m, g->nodes[mm].out[0], s, out->out[0]);
}

/* The Transpose m->t now writes K (perm pk), or goes when pk is the identity; K's value. */
static int make_k(em_pctx *c, const attn_match *m, const int64_t *pk)
{
    em_graph *g = c->g;
    em_value *kv = &g->values[m->kt];
    int r = kv->rank;
    bool identity = true;
    for (int i = 0; i < r; i++) {
        identity = identity && pk[i] == i;
    }
    if (identity) {
        return g->nodes[m->t].in[0];
    }
    memcpy(em_node_attr(&g->nodes[m->t], "perm")->ints, pk, sizeof *pk * (size_t)r);
    em_dim d = kv->dims[r - 1];
    kv->dims[r - 1] = kv->dims[r - 2];
    kv->dims[r - 2] = d;
    return m->kt;
}

ember_status *em_pass_fuse_attention(em_pctx *c)
{
    em_graph *g = c->g;
    em_pass_refresh_producers(c);
    for (int j = 0; j < g->n_nodes; j++) {
        attn_match m = {-1, -1, -1, -1, -1, 1.0, {0}, 0};
        int64_t pk[EM_MAX_RANK];
        if (c->dead[j] || g->nodes[j].op != EM_OP_MATMUL || !match_attn(c, j, &m, pk)) {
            continue;
        }
        int r = g->values[m.q].rank, t = m.t;
        int in[4] = {m.q, make_k(c, &m, pk), m.v, m.mask};
        EM_PASS_TRY(
            em_pass_replace(c, j, EM_OP_ATTENTION, in, m.mask >= 0 ? 4 : 3, m.kill, m.n_kill));
        if (in[1] != m.kt) {
            em_pass_kill(c, t); /* K^T's Transpose, now read by nothing */
        }
        EM_PASS_TRY(em_node_set_float(g, j, "scale", (float)m.scale));
        if (r == 3) {
            EM_PASS_TRY(em_node_set_int(g, j, "q_num_heads", 1));
            EM_PASS_TRY(em_node_set_int(g, j, "kv_num_heads", 1));
        }
    }
    return NULL;
}
