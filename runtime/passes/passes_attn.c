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
 *
 * Also taken (issue #18, swin_t / maxvit_t):
 *  - Q, K, V of rank 5 or more with every dim known (maxvit's [B, G, H, S, D] after the
 *    Einsum pass): Reshapes merge the leading dims into one batch dim around a 4-D Attention
 *    (views, free at run time), a mask then of rank <= 3 or [1, H, S, T] (it broadcasts
 *    over the heads and queries alone).
 *  - K^T = Transpose(K * c) (maxvit): c goes into `scale` as well.
 *  - Two constant additive terms, (s + b) + m (swin's relative-position bias and shifted-window
 *    mask), as one mask constant b + m of their broadcast shape (at most the scores').
 *  - swin's window mask written through Reshapes, Reshape(Add(Reshape(x, [1, ..., 1, dims of
 *    x]), m), dims of x) with m constant: the Add is made on x itself, m without those leading
 *    1s (done first, on its own, so the chain above then matches).
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

typedef struct attn_match {
    int q, kt, v, mask, t; /* t: the Transpose writing K^T */
    int mask2;             /* a second constant term (mask is then constant too), or -1 */
    int k0;                /* K unscaled, the Transpose's input from now on (K^T = Transpose(K
                            * * c), maxvit's form), or -1 */
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

/* Every dim of v is known. */
static bool all_known(const em_value *v)
{
    for (int d = 0; d < v->rank; d++) {
        if (v->dims[d].v < 0) {
            return false;
        }
    }
    return v->rank >= 0;
}

/* Shapes: Q [..., S, D], K^T [..., D, T], V [..., T, Dv], y [..., S, Dv], rank 3 or 4 (or more
 * with every dim known), the leading dims equal; the Softmax's input sm_in of the scores'
 * shape (scalings and mask widen nothing), the mask mk (NULL: none) f32 and of a rank the
 * Attention broadcasts alike. */
static bool shapes_fit(const em_graph *g, const attn_match *m, int scores, int sm_in, int y,
                       const em_value *mk)
{
    const em_value *q = &g->values[m->q], *kt = &g->values[m->kt], *v = &g->values[m->v];
    const em_value *yv = &g->values[y];
    int r = q->rank;
    bool wide = r >= 5 && all_known(q) && all_known(kt) && all_known(v) && all_known(yv);
    if ((r != 3 && r != 4 && !wide) || kt->rank != r || v->rank != r || yv->rank != r ||
        q->dtype != EMBER_DTYPE_F32 || kt->dtype != EMBER_DTYPE_F32 ||
        v->dtype != EMBER_DTYPE_F32 || !same_dims(q, 0, kt, 0, r - 2) ||
        !same_dims(q, 0, v, 0, r - 2) || !same_dims(q, r - 1, kt, r - 2, 1) ||
        !same_dims(kt, r - 1, v, r - 2, 1) || !same_dims(yv, 0, q, 0, r - 1) ||
        !same_dims(yv, r - 1, v, r - 1, 1) ||
        !em_pass_same_shape(&g->values[scores], &g->values[sm_in])) {
        return false;
    }
    if (mk == NULL) {
        return true;
    }
    /* The Attention reads a mask's last dim as keys (a shorter one is padded, not broadcast),
     * so it must be the key count, where an Add would broadcast a 1 or a scalar. */
    if (mk->dtype != EMBER_DTYPE_F32 || mk->rank < 1 || mk->rank > r ||
        !same_dims(mk, mk->rank - 1, kt, r - 1, 1)) {
        return false;
    }
    /* 3-D: the scores' leading dim is the Attention's batch, not a mask dim (heads are 1);
     * rank >= 5: the merged leading dims are the batch, so the mask is [H, S, T] at most,
     * or [1, H, S, T] */
    return r == 4 || (r == 3 && (mk->rank <= 2 || mk->dims[0].v == 1)) ||
           (r >= 5 && (mk->rank <= 3 || (mk->rank == 4 && mk->dims[0].v == 1)));
}

/* The broadcast of constants a and b (f32) into *out's rank and dims; false when they do not
 * broadcast. */
static bool broadcast_dims(const em_value *a, const em_value *b, em_value *out)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    memset(out, 0, sizeof *out);
    out->dtype = EMBER_DTYPE_F32;
    out->rank = r;
    for (int d = 0; d < r; d++) {
        int da = d - (r - a->rank), db = d - (r - b->rank);
        int64_t x = da >= 0 ? a->dims[da].v : 1, y = db >= 0 ? b->dims[db].v : 1;
        if (x < 0 || y < 0 || (x != y && x != 1 && y != 1)) {
            return false;
        }
        out->dims[d].v = x == 1 ? y : x;
    }
    return true;
}

/* Value v is an f32 initializer of known dims. */
static bool const_term(const em_graph *g, int v)
{
    return v >= 0 && em_pass_const_f32(g, v) != NULL && all_known(&g->values[v]);
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
    int mm = score_of(c, s, m), add = em_pass_prod(c, s, EM_OP_ADD), add2 = -1;
    for (int side = 0; mm < 0 && add >= 0 && side < 2; side++) {
        mm = score_of(c, g->nodes[add].in[side], m);
        m->mask = mm >= 0 ? g->nodes[add].in[1 - side] : -1;
    }
    /* (s + b) + m, b and m constants: one mask b + m */
    for (int side = 0; mm < 0 && add >= 0 && side < 2; side++) {
        int in = g->nodes[add].in[side], m2 = g->nodes[add].in[1 - side];
        add2 = em_pass_prod(c, in, EM_OP_ADD);
        if (add2 < 0 || !em_pass_only_read(c, in, 1) || !const_term(g, m2)) {
            add2 = -1;
            continue;
        }
        for (int s2 = 0; mm < 0 && s2 < 2; s2++) {
            mm = score_of(c, g->nodes[add2].in[s2], m);
            m->mask = g->nodes[add2].in[1 - s2];
            m->mask2 = m2;
        }
        if (mm < 0 || !const_term(g, m->mask)) {
            mm = -1;
            add2 = -1;
            m->mask = m->mask2 = -1;
        }
    }
    if (mm < 0) {
        return false;
    }
    if (m->mask >= 0) {
        take(m, add);
    }
    if (add2 >= 0) {
        take(m, add2);
    }
    take(m, mm);
    m->q = unscale(c, g->nodes[mm].in[0], m);
    m->kt = unscale(c, g->nodes[mm].in[1], m);
    m->v = out->in[1];
    em_value both;
    const em_value *mk = m->mask < 0 ? NULL : &g->values[m->mask];
    if (m->mask2 >= 0 && !broadcast_dims(mk, &g->values[m->mask2], &both)) {
        return false;
    }
    if (m->q == m->kt || !transpose_of_k(c, m->kt, m, pk) ||
        !shapes_fit(g, m, g->nodes[mm].out[0], s, out->out[0], m->mask2 >= 0 ? &both : mk)) {
        return false;
    }
    int k = g->nodes[m->t].in[0], k0 = unscale(c, k, m);
    m->k0 = k0 != k ? k0 : -1;
    return true;
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

/* The constant b + m (f32, broadcast) as a new initializer named after `name`; its value. */
static ember_status *sum_const(em_pctx *c, int b, int m, const char *name, int *out)
{
    em_graph *g = c->g;
    em_value o;
    const em_value *vb = &g->values[b], *vm = &g->values[m];
    if (!broadcast_dims(vb, vm, &o)) {
        return em_status_new(EMBER_ERR_INTERNAL, "attention: masks that do not broadcast");
    }
    int64_t dims[EM_MAX_RANK], n = 1, sb[EM_MAX_RANK], sm[EM_MAX_RANK], tb = 1, tm = 1;
    for (int d = o.rank - 1; d >= 0; d--) { /* strides, 0 along a broadcast dim */
        int db = d - (o.rank - vb->rank), dm = d - (o.rank - vm->rank);
        int64_t xb = db >= 0 ? vb->dims[db].v : 1, xm = dm >= 0 ? vm->dims[dm].v : 1;
        dims[d] = o.dims[d].v;
        sb[d] = xb == 1 ? 0 : tb;
        sm[d] = xm == 1 ? 0 : tm;
        tb *= xb;
        tm *= xm;
        n *= dims[d];
    }
    float *sum = em_malloc(g->al, sizeof *sum * (size_t)(n > 0 ? n : 1));
    if (sum == NULL) {
        return em_status_oom();
    }
    const float *pb = em_pass_const_f32(g, b), *pm = em_pass_const_f32(g, m);
    for (int64_t i = 0; i < n; i++) {
        int64_t rest = i, ib = 0, im = 0;
        for (int d = o.rank - 1; d >= 0; d--) {
            int64_t k = rest % dims[d];
            rest /= dims[d];
            ib += k * sb[d];
            im += k * sm[d];
        }
        sum[i] = pb[ib] + pm[im];
    }
    char nm[520];
    em_pass_unique_name(g, name, "/mask", nm, sizeof nm);
    ember_status *st = em_graph_add_initializer_copy(g, nm, EMBER_DTYPE_F32, o.rank, dims, sum, out);
    em_free(g->al, sum);
    return st != NULL ? st : em_pass_sync(c);
}

/* swin's window mask: Softmax input s = Reshape(Add(Reshape(x, [1.., dims of x]), m), dims of
 * x), m a constant and every value private, becomes s = Add(x, m') with m' m without the
 * leading 1s. */
static ember_status *squeeze_window_mask(em_pctx *c, int sm)
{
    em_graph *g = c->g;
    int s = g->nodes[sm].in[0], r2 = em_pass_prod(c, s, EM_OP_RESHAPE);
    if (r2 < 0 || !em_pass_only_read(c, s, 1)) {
        return NULL;
    }
    int a = g->nodes[r2].in[0], add = em_pass_prod(c, a, EM_OP_ADD);
    if (add < 0 || !em_pass_only_read(c, a, 1) || g->nodes[add].n_in != 2) {
        return NULL;
    }
    for (int side = 0; side < 2; side++) {
        int u = g->nodes[add].in[side], mk = g->nodes[add].in[1 - side];
        int r1 = em_pass_prod(c, u, EM_OP_RESHAPE);
        if (r1 < 0 || !em_pass_only_read(c, u, 1) || !const_term(g, mk)) {
            continue;
        }
        int x = g->nodes[r1].in[0];
        const em_value *xv = &g->values[x], *uv = &g->values[u], *mv = &g->values[mk];
        int k = uv->rank - xv->rank;
        bool fits = k >= 1 && all_known(xv) && xv->dtype == EMBER_DTYPE_F32 &&
                    em_pass_same_shape(xv, &g->values[s]) && em_pass_same_shape(uv, &g->values[a]) &&
                    mv->rank <= uv->rank;
        for (int d = 0; fits && d < uv->rank; d++) {
            fits = uv->dims[d].v == (d < k ? 1 : xv->dims[d - k].v);
        }
        int drop = mv->rank > xv->rank ? mv->rank - xv->rank : 0;
        for (int d = 0; fits && d < drop; d++) {
            fits = mv->dims[d].v == 1;
        }
        if (!fits) {
            continue;
        }
        int64_t dims[EM_MAX_RANK];
        for (int d = drop; d < mv->rank; d++) {
            dims[d - drop] = mv->dims[d].v;
        }
        char nm[520];
        int m2 = -1;
        em_pass_unique_name(g, g->values[mk].name, "/squeezed", nm, sizeof nm);
        EM_PASS_TRY(em_graph_add_initializer_copy(g, nm, EMBER_DTYPE_F32, mv->rank - drop, dims,
                                                  em_pass_const_f32(g, mk), &m2));
        EM_PASS_TRY(em_pass_sync(c));
        em_pass_set_input(c, add, side, x);
        em_pass_set_input(c, add, 1 - side, m2);
        g->nodes[add].out[0] = s;
        g->values[s].producer = add;
        em_pass_kill(c, r1);
        em_pass_kill(c, r2);
        return NULL;
    }
    return NULL;
}

/* Sizes the placement list of the nodes added since n_old (em_pass_place_new) for the graph's
 * node count now; new entries are -1 (first: where a dead slot may go). */
static ember_status *place_room(em_pctx *c, int n_old, int **after, int *cap)
{
    em_graph *g = c->g;
    if (g->n_nodes - n_old > *cap) {
        int n = g->n_nodes - n_old + 8;
        int *na = em_realloc(g->al, *after, sizeof *na * (size_t)n);
        if (na == NULL) {
            return em_status_oom();
        }
        for (int i = *cap; i < n; i++) {
            na[i] = -1;
        }
        *after = na;
        *cap = n;
    }
    return NULL;
}

/* Attention node j of rank-r (>= 5) Q, K, V: reads them through Reshapes to [L, H, S, D] (L
 * the product of the leading dims) and writes a 4-D value that a Reshape turns into its
 * output y. */
static ember_status *merge_leading(em_pctx *c, int j, int n_old, int **after, int *cap)
{
    em_graph *g = c->g;
    int y = g->nodes[j].out[0];
    char base[512];
    snprintf(base, sizeof base, "%s", g->nodes[j].name[0] ? g->nodes[j].name : g->values[y].name);
    for (int i = 0; i < 4; i++) { /* Q, K, V, then the output */
        int v = i < 3 ? g->nodes[j].in[i] : y, r = g->values[v].rank;
        int64_t dims[4] = {1, 0, 0, 0};
        em_dim d4[4];
        for (int d = 0; d < r; d++) {
            int64_t e = g->values[v].dims[d].v;
            if (d < r - 3) {
                dims[0] *= e;
            } else {
                dims[d - (r - 4)] = e;
            }
        }
        for (int d = 0; d < 4; d++) {
            d4[d].v = dims[d];
            d4[d].sym = 0;
        }
        static const char *const sfx[4] = {"/q4", "/k4", "/v4", "/y4"};
        char nm[520];
        int v4 = -1, rn = -1;
        em_pass_unique_name(g, base, sfx[i], nm, sizeof nm);
        EM_PASS_TRY(em_graph_add_value(g, nm, g->values[v].dtype, 4, d4, &v4));
        EM_PASS_TRY(em_pass_sync(c));
        if (i < 3) { /* the Reshape reads v, the Attention v4 */
            EM_PASS_TRY(em_pass_reshape_node(c, base, "/merge", v, v4, 4, dims, &rn));
            em_pass_set_input(c, j, i, v4);
            EM_PASS_TRY(place_room(c, n_old, after, cap));
            (*after)[rn - n_old] = j - 1; /* right before the Attention (j > 0: Q's producer) */
        } else {
            int64_t yd[EM_MAX_RANK];
            for (int d = 0; d < r; d++) {
                yd[d] = g->values[y].dims[d].v;
            }
            g->nodes[j].out[0] = v4;
            g->values[v4].producer = j;
            EM_PASS_TRY(em_pass_reshape_node(c, base, "/split", v4, y, r, yd, &rn));
            g->values[y].producer = rn;
            EM_PASS_TRY(place_room(c, n_old, after, cap));
            (*after)[rn - n_old] = j;
        }
    }
    return NULL;
}

ember_status *em_pass_fuse_attention(em_pctx *c)
{
    em_graph *g = c->g;
    const int n_old = g->n_nodes;
    int *after = NULL, cap = 0;
    ember_status *st = NULL;
    em_pass_refresh_producers(c);
    for (int j = 0; j < n_old && st == NULL; j++) {
        if (!c->dead[j] && g->nodes[j].op == EM_OP_SOFTMAX) {
            st = squeeze_window_mask(c, j);
        }
    }
    for (int j = 0; j < n_old && st == NULL; j++) {
        attn_match m = {-1, -1, -1, -1, -1, -1, -1, 1.0, {0}, 0};
        int64_t pk[EM_MAX_RANK];
        if (c->dead[j] || g->nodes[j].op != EM_OP_MATMUL || !match_attn(c, j, &m, pk)) {
            continue;
        }
        int r = g->values[m.q].rank, t = m.t, mask = m.mask;
        if (m.k0 >= 0) {
            em_pass_set_input(c, t, 0, m.k0); /* its scaling went into `scale` */
        }
        if (m.mask2 >= 0) {
            st = sum_const(c, m.mask, m.mask2, g->nodes[j].name, &mask);
        }
        int in[4] = {m.q, st == NULL ? make_k(c, &m, pk) : -1, m.v, mask};
        if (st == NULL) {
            st = em_pass_replace(c, j, EM_OP_ATTENTION, in, mask >= 0 ? 4 : 3, m.kill, m.n_kill);
        }
        if (st == NULL && in[1] != m.kt) {
            em_pass_kill(c, t); /* K^T's Transpose, now read by nothing */
        }
        if (st == NULL) {
            st = em_node_set_float(g, j, "scale", (float)m.scale);
        }
        if (st == NULL && r == 3) {
            st = em_node_set_int(g, j, "q_num_heads", 1);
        }
        if (st == NULL && r == 3) {
            st = em_node_set_int(g, j, "kv_num_heads", 1);
        }
        if (st == NULL && r >= 5) {
            st = merge_leading(c, j, n_old, &after, &cap);
        }
    }
    if (st == NULL && g->n_nodes > n_old) { /* em_pass_replace's dead slots among them */
        st = place_room(c, n_old, &after, &cap);
    }
    if (st == NULL && g->n_nodes > n_old) {
        st = em_pass_place_new(c, n_old, after);
    }
    em_free(g->al, after);
    return st;
}
