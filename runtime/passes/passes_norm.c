/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decomposed normalisations -> one op (passes.h). Exporters without LayerNormalization
 * (torch.onnx below opset 17) write it as
 *
 *   m = ReduceMean(x, last k axes, keepdims)   d = Sub(x, m)   p = Pow(d, 2) | Mul(d, d)
 *   v = ReduceMean(p, the same axes)   s = Sqrt(Add(v, eps))
 *   n = Div(d, s) | Mul(d, Reciprocal(s)) | Mul(d, Div(1, s))
 *   [g = Mul(n, gamma)]  [y = Add(g, beta)]
 *
 * which becomes LayerNormalization(x, gamma or 1, beta) with axis -k and epsilon eps; without
 * the centring (d = x, no first ReduceMean) it is RMSNorm (T5, LLaMA) and becomes
 * RMSNormalization(x, gamma or 1). Each match is proved, not assumed: the ReduceMeans reduce
 * exactly the last k axes of x with keepdims, the exponent is 2, eps is a non-negative
 * one-element constant, gamma and beta are f32 constants holding one value or exactly the
 * normalised dims (leading 1s allowed), every intermediate value is read only inside the
 * pattern (d by its square and the division) and is no graph output, the values are f32, and
 * y has x's shape. Anything else is left as it is.
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdio.h>

typedef struct norm_match {
    int x, k, last; /* input, normalised trailing axes, the pattern's last node */
    bool centred;   /* LayerNorm (x - mean) rather than RMSNorm */
    double eps;
    int gamma, beta; /* constants, -1 when absent */
    int kill[10], n_kill;
} norm_match;

static void take(norm_match *m, int ni)
{
    m->kill[m->n_kill++] = ni;
}

/* Value s of node j's division: Div(d, s) gives s with *d; Mul(d, r) with r = Reciprocal(s)
 * or Div(1, s), r private, gives s too. -1 when j divides by nothing of the sort. */
static int divisor(const em_pctx *c, int j, int *d, norm_match *m)
{
    const em_node *n = &c->g->nodes[j];
    if (n->n_in != 2 || n->n_out != 1) {
        return -1;
    }
    if (n->op == EM_OP_DIV) {
        *d = n->in[0];
        return n->in[1];
    }
    for (int side = 0; n->op == EM_OP_MUL && side < 2; side++) {
        int r = n->in[side], p = em_pass_prod(c, r, EM_OP_RECIPROCAL);
        int q = em_pass_prod(c, r, EM_OP_DIV);
        if (!em_pass_only_read(c, r, 1) || (p < 0 && q < 0)) {
            continue;
        }
        if (q >= 0 && !em_pass_scalar_is(c->g, c->g->nodes[q].in[0], 1.0)) {
            continue;
        }
        *d = n->in[1 - side];
        take(m, p >= 0 ? p : q);
        return c->g->nodes[p >= 0 ? p : q].in[p >= 0 ? 0 : 1];
    }
    return -1;
}

/* The square of d: Pow(d, 2) or Mul(d, d) producing p; its node, or -1. */
static int square_of(const em_pctx *c, int p, int *d)
{
    int ni = em_pass_prod(c, p, EM_OP_POW);
    if (ni >= 0 && em_pass_scalar_is(c->g, c->g->nodes[ni].in[1], 2.0)) {
        *d = c->g->nodes[ni].in[0];
        return ni;
    }
    ni = em_pass_prod(c, p, EM_OP_MUL);
    if (ni >= 0 && c->g->nodes[ni].in[0] == c->g->nodes[ni].in[1]) {
        *d = c->g->nodes[ni].in[0];
        return ni;
    }
    return -1;
}

/* The core d / sqrt(mean(d^2) + eps) ending at node j (see the file comment). */
static bool match_core(const em_pctx *c, int j, norm_match *m)
{
    const em_graph *g = c->g;
    int d = -1, dd = -1;
    int s = divisor(c, j, &d, m);
    int sq = em_pass_prod(c, s, EM_OP_SQRT);
    if (sq < 0 || !em_pass_only_read(c, s, 1)) {
        return false;
    }
    int ve = g->nodes[sq].in[0], add = em_pass_prod(c, ve, EM_OP_ADD);
    if (add < 0 || !em_pass_only_read(c, ve, 1)) {
        return false;
    }
    const em_node *an = &g->nodes[add];
    if (an->n_in != 2) {
        return false;
    }
    int side = em_pass_scalar(g, an->in[1], &m->eps) ? 0 : 1;
    if (!em_pass_scalar(g, an->in[1 - side], &m->eps) || !(m->eps >= 0.0) || !isfinite(m->eps)) {
        return false;
    }
    int v = an->in[side], rm = em_pass_prod(c, v, EM_OP_REDUCEMEAN);
    m->k = rm >= 0 ? em_pass_trailing_mean(g, rm) : 0;
    if (m->k == 0 || !em_pass_only_read(c, v, 1)) {
        return false;
    }
    int p = g->nodes[rm].in[0], sqn = square_of(c, p, &dd);
    if (sqn < 0 || dd != d || !em_pass_only_read(c, p, 1)) {
        return false;
    }
    int reads = g->nodes[sqn].op == EM_OP_MUL ? 3 : 2; /* d: the square and the division */
    take(m, sq);
    take(m, add);
    take(m, rm);
    take(m, sqn);
    /* LayerNorm: d = Sub(x, mean(x)) over the same axes, d read only here */
    int sub = em_pass_prod(c, d, EM_OP_SUB), rm1 = -1;
    if (sub >= 0) {
        rm1 = em_pass_prod(c, g->nodes[sub].in[1], EM_OP_REDUCEMEAN);
    }
    m->centred = rm1 >= 0 && g->nodes[rm1].in[0] == g->nodes[sub].in[0] &&
                 em_pass_trailing_mean(g, rm1) == m->k &&
                 em_pass_only_read(c, g->nodes[sub].in[1], 1) && em_pass_only_read(c, d, reads);
    m->x = m->centred ? g->nodes[sub].in[0] : d;
    if (m->centred) {
        take(m, sub);
        take(m, rm1);
    }
    return true;
}

/* Constant v fits the normalised dims of x (k trailing axes): one value, or exactly those dims
 * after leading 1s; f32. */
static bool param_fits(const em_graph *g, int v, const em_value *x, int k)
{
    const em_value *p = &g->values[v];
    if (em_pass_const_f32(g, v) == NULL) {
        return false;
    }
    int64_t n = em_tensor_numel(&p->init);
    if (n == 1) {
        return true;
    }
    for (int d = 0; d < p->rank; d++) {
        int xd = x->rank - p->rank + d;
        int64_t want = xd >= x->rank - k ? x->dims[xd].v : 1;
        if (xd < 0 ? p->dims[d].v != 1 : p->dims[d].v != want || want < 0) {
            return false;
        }
    }
    return p->rank >= k;
}

/* The reader of node `from`'s private output when it is `op` with a fitting constant on the
 * other side (Mul: either side; Add: either side); the constant in *k. */
static int affine_step(const em_pctx *c, int from, em_op op, const norm_match *m, int *k)
{
    int y = c->g->nodes[from].out[0];
    int r = em_pass_only_read(c, y, 1) ? em_pass_reader(c, y, from) : -1;
    if (r < 0 || c->g->nodes[r].op != op) {
        return -1;
    }
    int o = em_pass_other(&c->g->nodes[r], y);
    if (o < 0 || o == y || !param_fits(c->g, o, &c->g->values[m->x], m->k)) {
        return -1;
    }
    *k = o;
    return r;
}

/* Constant v as a LayerNorm parameter: itself when its rank is at most k, else a copy with
 * the leading 1s dropped (rank k, or [1] for one value). */
static ember_status *param_value(em_pctx *c, int v, int k, const char *base, int *out)
{
    em_graph *g = c->g;
    const em_value *p = &g->values[v];
    if (p->rank <= k) {
        *out = v;
        return NULL;
    }
    int64_t n = em_tensor_numel(&p->init), dims[EM_MAX_RANK];
    int rank = n == 1 ? 1 : k;
    for (int d = 0; d < rank; d++) {
        dims[d] = n == 1 ? 1 : p->dims[p->rank - k + d].v;
    }
    char name[520];
    em_pass_unique_name(g, base, "/param", name, sizeof name);
    EM_PASS_TRY(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, rank, dims,
                                              em_pass_const_f32(g, v), out));
    return em_pass_sync(c);
}

/* Matches the pattern whose division is node j and rewrites it; *done when it did. */
static ember_status *fuse_norm_at(em_pctx *c, int j, bool *done)
{
    em_graph *g = c->g;
    norm_match m = {-1, 0, j, false, 0.0, -1, -1, {0}, 0};
    *done = false;
    if (!match_core(c, j, &m)) {
        return NULL;
    }
    int r = affine_step(c, j, EM_OP_MUL, &m, &m.gamma);
    if (r >= 0) {
        take(&m, j);
        m.last = r;
        int b = m.centred ? affine_step(c, r, EM_OP_ADD, &m, &m.beta) : -1;
        if (b >= 0) {
            take(&m, r);
            m.last = b;
        }
    }
    const em_value *x = &g->values[m.x], *y = &g->values[g->nodes[m.last].out[0]];
    if (x->dtype != EMBER_DTYPE_F32 || !em_pass_same_shape(x, y)) {
        return NULL;
    }
    char base[512];
    snprintf(base, sizeof base, "%s", g->nodes[m.last].name[0] ? g->nodes[m.last].name : y->name);
    int in[3] = {m.x, -1, -1};
    if (m.gamma >= 0) {
        EM_PASS_TRY(param_value(c, m.gamma, m.k, base, &in[1]));
    } else {
        int64_t one = 1;
        const float v1 = 1.0f;
        char name[520];
        em_pass_unique_name(g, base, "/scale", name, sizeof name);
        EM_PASS_TRY(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, 1, &one, &v1, &in[1]));
        EM_PASS_TRY(em_pass_sync(c));
    }
    if (m.beta >= 0) {
        EM_PASS_TRY(param_value(c, m.beta, m.k, base, &in[2]));
    }
    em_op op = m.centred ? EM_OP_LAYERNORM : EM_OP_RMSNORMALIZATION;
    EM_PASS_TRY(em_pass_replace(c, m.last, op, in, m.beta >= 0 ? 3 : 2, m.kill, m.n_kill));
    EM_PASS_TRY(em_node_set_int(g, m.last, "axis", -m.k));
    EM_PASS_TRY(em_node_set_float(g, m.last, "epsilon", (float)m.eps));
    *done = true;
    return NULL;
}

ember_status *em_pass_fuse_norm(em_pctx *c)
{
    em_pass_refresh_producers(c);
    for (int j = 0; j < c->g->n_nodes; j++) {
        em_op op = c->g->nodes[j].op;
        bool done;
        if (!c->dead[j] && (op == EM_OP_DIV || op == EM_OP_MUL)) {
            EM_PASS_TRY(fuse_norm_at(c, j, &done));
        }
    }
    return NULL;
}
