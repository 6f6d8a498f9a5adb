/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Einsum -> Transpose / Reshape / MatMul / ReduceSum (passes.h, step 1c): an f32 Einsum of
 * one or two inputs whose dims are all known becomes the ops that have fast kernels, so
 * attention written as einsum (maxvit's "B G H I D, B G H J D -> B G H I J") runs as batched
 * GEMMs instead of the reference kernel's label loop.
 *
 * Labels (runtime/ir/einsum.h) fall into groups by where they occur:
 *   batch      in both inputs and the output          -> MatMul's leading dims
 *   contracted in both inputs, not the output         -> MatMul's K
 *   free       in one input and the output            -> its M (first operand) or N (second)
 *   summed     in one input only, not the output      -> a ReduceSum of that input first
 * Each operand is transposed to [batch, M, K] / [batch, K, N] (no Transpose when its axes of
 * size > 1 already come in that order: a Reshape is a view) and reshaped to [batch..., m, k] /
 * [batch..., k, n]; the product [batch..., m, n] is reshaped to the labels and transposed to
 * the output's order when that order differs. The two operands may swap roles (the product
 * is then computed as [batch, N, M]) and K may follow either operand's order: the pass takes
 * the arrangement whose Transposes move the fewest elements. Without contracted labels the
 * product is a broadcasting Mul of [batch..., m, 1] and [batch..., 1, n]. A "..." dim of size 1 in one
 * input that the other broadcasts (numpy rules) is dropped from the first by its Reshape.
 * One input: summed labels by ReduceSum, the rest by a Transpose and / or a Reshape.
 *
 * Left to the reference kernel: a label repeated within one input (a diagonal), three or more
 * inputs, unknown dims, another dtype, and letters of one label with different sizes (an
 * invalid model the kernel reports).
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/status.h"
#include "ir/einsum.h"

#include <stdio.h>
#include <string.h>

/* One operand: its value, its axes' labels (-1: a size-1 axis to drop) and dims. */
typedef struct ein_opnd {
    int v, rank;
    int lab[EM_MAX_RANK];
    int64_t dims[EM_MAX_RANK];
} ein_opnd;

/* The node being lowered and the new nodes made so far (placed after it). */
typedef struct ein_job {
    em_pctx *c;
    int e, n_old;
    int **after;
    char base[400];
} ein_job;

/* Label groups, each in its chosen order. */
typedef struct ein_groups {
    int nb, nm, nk, nn;
    int b[EM_MAX_RANK], m[EM_MAX_RANK], k[EM_MAX_RANK], n[EM_MAX_RANK];
} ein_groups;

static int64_t numel(const int64_t *d, int r)
{
    int64_t n = 1;
    for (int i = 0; i < r; i++) {
        n *= d[i];
    }
    return n;
}

static int axis_of(const ein_opnd *o, int l)
{
    for (int a = 0; a < o->rank; a++) {
        if (o->lab[a] == l) {
            return a;
        }
    }
    return -1;
}

/* The perm putting labels order[0..n) first (every one present in o) and o's dropped axes
 * after them: perm[0..rank); true when it moves data (its axes of size > 1 are out of order). */
static bool perm_for(const ein_opnd *o, const int *order, int n, int64_t *perm)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        perm[k++] = axis_of(o, order[i]);
    }
    for (int a = 0; a < o->rank; a++) {
        if (o->lab[a] < 0) {
            perm[k++] = a;
        }
    }
    int64_t last = -1;
    for (int a = 0; a < o->rank; a++) {
        if (o->dims[perm[a]] != 1) {
            if (perm[a] < last) {
                return true;
            }
            last = perm[a];
        }
    }
    return false;
}

/* Adds node `op` reading in[0..n_in) and writing `to`, or a new f32 value of dims[0..rank)
 * when to < 0; the written value in *out. */
static ember_status *ein_add(ein_job *j, em_op op, const char *suffix, const int *in, int n_in,
                             int rank, const int64_t *dims, int to, int *out)
{
    em_pctx *c = j->c;
    em_graph *g = c->g;
    char name[520];
    int ni;
    em_pass_unique_name(g, j->base, suffix, name, sizeof name);
    if (to < 0) {
        em_dim d[EM_MAX_RANK];
        for (int i = 0; i < rank; i++) {
            d[i].v = dims[i];
            d[i].sym = 0;
        }
        EM_PASS_TRY(em_graph_add_value(g, name, EMBER_DTYPE_F32, rank, d, &to));
    }
    EM_PASS_TRY(em_pass_add_node_into(c, op, name, in, n_in, to, &ni));
    for (int i = 0; i < n_in; i++) {
        c->nread[in[i]]++;
    }
    int *na = em_realloc(g->al, *j->after, sizeof *na * (size_t)(g->n_nodes - j->n_old));
    if (na == NULL) {
        return em_status_oom();
    }
    *j->after = na;
    na[ni - j->n_old] = j->e; /* after the Einsum, in the order made */
    *out = to;
    return NULL;
}

/* An int64 [n] constant named after the node. */
static ember_status *ein_ints(ein_job *j, const char *suffix, const int64_t *v, int64_t n, int *out)
{
    char name[520];
    em_pass_unique_name(j->c->g, j->base, suffix, name, sizeof name);
    EM_PASS_TRY(em_graph_add_initializer_copy(j->c->g, name, EMBER_DTYPE_I64, 1, &n, v, out));
    return em_pass_sync(j->c);
}

static ember_status *ein_reshape(ein_job *j, int v, const int64_t *dims, int rank, int to,
                                 int *out)
{
    int in[2] = {v, -1};
    EM_PASS_TRY(ein_ints(j, "/shape", dims, rank, &in[1]));
    return ein_add(j, EM_OP_RESHAPE, "/reshape", in, 2, rank, dims, to, out);
}

static ember_status *ein_transpose(ein_job *j, int v, const int64_t *dims, int rank,
                                   const int64_t *perm, int to, int *out)
{
    int64_t pd[EM_MAX_RANK];
    for (int a = 0; a < rank; a++) {
        pd[a] = dims[perm[a]];
    }
    EM_PASS_TRY(ein_add(j, EM_OP_TRANSPOSE, "/transpose", &v, 1, rank, pd, to, out));
    return em_node_set_ints(j->c->g, j->c->g->n_nodes - 1, "perm", perm, rank);
}

/* Operand o laid out as labels order[0..n) (Transpose when needed), then reshaped to
 * shape[0..sr) (when its dims differ), into `to` (or a new value when to < 0; a Reshape is
 * added when nothing else would write `to`). */
static ember_status *ein_arrange(ein_job *j, const ein_opnd *o, const int *order, int n,
                                 const int64_t *shape, int sr, int to, int *out)
{
    int64_t perm[EM_MAX_RANK], d[EM_MAX_RANK];
    int v = o->v, r = o->rank;
    bool moves = perm_for(o, order, n, perm);
    memcpy(d, o->dims, sizeof *d * (size_t)r);
    bool reshape = sr != r;
    for (int a = 0; a < r; a++) {
        d[a] = moves ? o->dims[perm[a]] : o->dims[a];
        reshape = reshape || d[a] != shape[a];
    }
    if (moves) {
        EM_PASS_TRY(ein_transpose(j, v, o->dims, r, perm, reshape ? -1 : to, &v));
    }
    if (reshape || (to >= 0 && !moves)) {
        EM_PASS_TRY(ein_reshape(j, v, shape, sr, to, &v));
    }
    *out = v;
    return NULL;
}

/* Input o summed over its axes whose label is in `sum` (keepdims; those axes then dropped). */
static ember_status *ein_sum(ein_job *j, ein_opnd *o, const bool *sum)
{
    int64_t axes[EM_MAX_RANK], n = 0;
    for (int a = 0; a < o->rank; a++) {
        if (o->lab[a] >= 0 && sum[o->lab[a]]) {
            if (o->dims[a] != 1) {
                axes[n++] = a;
            }
            o->lab[a] = -1;
        }
    }
    if (n == 0) {
        return NULL;
    }
    int in[2] = {o->v, -1};
    EM_PASS_TRY(ein_ints(j, "/axes", axes, n, &in[1]));
    for (int i = 0; i < n; i++) {
        o->dims[axes[i]] = 1;
    }
    EM_PASS_TRY(ein_add(j, EM_OP_REDUCESUM, "/sum", in, 2, o->rank, o->dims, -1, &o->v));
    return em_node_set_int(j->c->g, j->c->g->n_nodes - 1, "keepdims", 1);
}

/* The operands of Einsum node e, label sizes in size[] (-1: unused); false when the node is
 * not one the pass lowers. A "..." axis of size 1 that the other input broadcasts is
 * dropped (lab -1). */
static bool ein_read(const em_pctx *c, int e, em_ein_labels *p, ein_opnd *o, int64_t *size)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[e];
    const char *eq = em_node_attr_string(n, "equation", NULL);
    int ranks[2];
    if (eq == NULL || n->n_in < 1 || n->n_in > 2 || n->n_out != 1 ||
        g->values[n->out[0]].dtype != EMBER_DTYPE_F32) {
        return false;
    }
    for (int i = 0; i < n->n_in; i++) {
        const em_value *v = &g->values[n->in[i]];
        if (n->in[i] < 0 || v->vt != EM_VT_TENSOR || v->dtype != EMBER_DTYPE_F32 || v->q != NULL ||
            v->rank < 0) {
            return false;
        }
        ranks[i] = v->rank;
    }
    if (em_einsum_parse(eq, n->n_in, ranks, p) != NULL) {
        return false;
    }
    for (int l = 0; l < EM_EIN_MAX_LABELS; l++) {
        size[l] = -1;
    }
    for (int i = 0; i < n->n_in; i++) {
        const em_value *v = &g->values[n->in[i]];
        uint64_t seen[2] = {0, 0};
        o[i].v = n->in[i];
        o[i].rank = v->rank;
        for (int a = 0; a < v->rank; a++) {
            int l = p->lab[i][a];
            int64_t d = v->dims[a].v;
            if (d < 0 || (seen[l / 64] >> (l % 64) & 1)) {
                return false; /* unknown dim, or a diagonal */
            }
            seen[l / 64] |= (uint64_t)1 << (l % 64);
            o[i].lab[a] = l;
            o[i].dims[a] = d;
            if (size[l] < 0 || (l >= EM_EIN_LETTERS && size[l] == 1)) {
                size[l] = d;
            } else if (d != size[l] && !(l >= EM_EIN_LETTERS && d == 1)) {
                return false;
            }
        }
    }
    for (int i = 0; i < n->n_in; i++) {
        for (int a = 0; a < o[i].rank; a++) {
            if (o[i].dims[a] != size[o[i].lab[a]]) {
                o[i].lab[a] = -1; /* a broadcast size-1 "..." dim */
            }
        }
    }
    return true;
}

static bool has(const ein_opnd *o, int l)
{
    return axis_of(o, l) >= 0;
}

/* One input: summed labels reduced, the rest transposed / reshaped into y. */
static ember_status *ein_one(ein_job *j, const em_ein_labels *p, ein_opnd *o, int y,
                             const int64_t *size)
{
    bool sum[EM_EIN_MAX_LABELS] = {false}, in_out[EM_EIN_MAX_LABELS] = {false};
    int64_t shape[EM_MAX_RANK];
    for (int i = 0; i < p->n_out; i++) {
        in_out[p->out[i]] = true;
        shape[i] = size[p->out[i]];
    }
    for (int a = 0; a < o->rank; a++) {
        sum[o->lab[a]] = !in_out[o->lab[a]]; /* one input: no axis is dropped */
    }
    EM_PASS_TRY(ein_sum(j, o, sum));
    int v;
    return ein_arrange(j, o, p->out, p->n_out, shape, p->n_out, y, &v);
}

/* The groups for x as the first operand and w as the second, K in x's order (k_of_x) or
 * w's; M, N and batch labels in the output's order. */
static void ein_group(const em_ein_labels *p, const ein_opnd *x, const ein_opnd *w, bool k_of_x,
                      ein_groups *gr)
{
    memset(gr, 0, sizeof *gr);
    for (int i = 0; i < p->n_out; i++) {
        int l = p->out[i];
        if (has(x, l) && has(w, l)) {
            gr->b[gr->nb++] = l;
        } else if (has(x, l)) {
            gr->m[gr->nm++] = l;
        } else if (has(w, l)) {
            gr->n[gr->nn++] = l;
        }
    }
    const ein_opnd *ko = k_of_x ? x : w, *other = k_of_x ? w : x;
    for (int a = 0; a < ko->rank; a++) {
        int l = ko->lab[a];
        bool out = false;
        for (int i = 0; i < p->n_out; i++) {
            out = out || p->out[i] == l;
        }
        if (l >= 0 && !out && has(other, l)) {
            gr->k[gr->nk++] = l;
        }
    }
}

/* Label order of the product [b, m, n] and its dims. */
static int ein_prod_labels(const ein_groups *gr, const int64_t *size, ein_opnd *pr)
{
    int r = 0;
    const int *grp[3] = {gr->b, gr->m, gr->n};
    const int cnt[3] = {gr->nb, gr->nm, gr->nn};
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < cnt[s]; i++) {
            pr->lab[r] = grp[s][i];
            pr->dims[r++] = size[grp[s][i]];
        }
    }
    pr->rank = r;
    return r;
}

static void cat(int *dst, int *n, const int *src, int k)
{
    memcpy(dst + *n, src, sizeof *src * (size_t)k);
    *n += k;
}

/* Elements the Transposes of this arrangement move. */
static int64_t ein_cost(const em_ein_labels *p, const ein_opnd *x, const ein_opnd *w,
                        const ein_groups *gr, const int64_t *size)
{
    int ox[EM_MAX_RANK], ow[EM_MAX_RANK], nx = 0, nw = 0;
    int64_t perm[EM_MAX_RANK], cost = 0;
    cat(ox, &nx, gr->b, gr->nb);
    cat(ox, &nx, gr->m, gr->nm);
    cat(ox, &nx, gr->k, gr->nk);
    cat(ow, &nw, gr->b, gr->nb);
    cat(ow, &nw, gr->k, gr->nk);
    cat(ow, &nw, gr->n, gr->nn);
    cost += perm_for(x, ox, nx, perm) ? numel(x->dims, x->rank) : 0;
    cost += perm_for(w, ow, nw, perm) ? numel(w->dims, w->rank) : 0;
    ein_opnd pr;
    ein_prod_labels(gr, size, &pr);
    return cost + (perm_for(&pr, p->out, p->n_out, perm) ? numel(pr.dims, pr.rank) : 0);
}

static int64_t group_size(const int *lab, int n, const int64_t *size)
{
    int64_t s = 1;
    for (int i = 0; i < n; i++) {
        s *= size[lab[i]];
    }
    return s;
}

/* Two inputs: the cheapest arrangement's Transposes, Reshapes and MatMul into y. */
static ember_status *ein_two(ein_job *j, const em_ein_labels *p, ein_opnd *o, int y,
                             const int64_t *size)
{
    bool sum[2][EM_EIN_MAX_LABELS] = {{false}}, in_out[EM_EIN_MAX_LABELS] = {false};
    for (int i = 0; i < p->n_out; i++) {
        in_out[p->out[i]] = true;
    }
    for (int i = 0; i < 2; i++) {
        for (int a = 0; a < o[i].rank; a++) {
            int l = o[i].lab[a];
            if (l >= 0 && !in_out[l] && !has(&o[1 - i], l)) {
                sum[i][l] = true;
            }
        }
    }
    EM_PASS_TRY(ein_sum(j, &o[0], sum[0]));
    EM_PASS_TRY(ein_sum(j, &o[1], sum[1]));
    ein_groups best, gr;
    int64_t best_cost = -1;
    int bx = 0;
    for (int cand = 0; cand < 4; cand++) {
        int xi = cand >> 1;
        ein_group(p, &o[xi], &o[1 - xi], (cand & 1) == 0, &gr);
        int64_t cost = ein_cost(p, &o[xi], &o[1 - xi], &gr, size);
        if (best_cost < 0 || cost < best_cost) {
            best = gr;
            best_cost = cost;
            bx = xi;
        }
    }
    const ein_opnd *x = &o[bx], *w = &o[1 - bx];
    int ox[EM_MAX_RANK], ow[EM_MAX_RANK], nx = 0, nw = 0, r = best.nb + 2;
    int64_t sx[EM_MAX_RANK], sw[EM_MAX_RANK], sp[EM_MAX_RANK];
    int64_t m = group_size(best.m, best.nm, size), k = group_size(best.k, best.nk, size);
    int64_t n = group_size(best.n, best.nn, size);
    cat(ox, &nx, best.b, best.nb);
    cat(ox, &nx, best.m, best.nm);
    cat(ox, &nx, best.k, best.nk);
    cat(ow, &nw, best.b, best.nb);
    cat(ow, &nw, best.k, best.nk);
    cat(ow, &nw, best.n, best.nn);
    for (int i = 0; i < best.nb; i++) {
        sx[i] = sw[i] = sp[i] = size[best.b[i]];
    }
    sx[r - 2] = m;
    sx[r - 1] = sw[r - 2] = k;
    sw[r - 1] = n;
    sp[r - 2] = m;
    sp[r - 1] = n;
    int in[2];
    EM_PASS_TRY(ein_arrange(j, x, ox, nx, sx, r, -1, &in[0]));
    EM_PASS_TRY(ein_arrange(j, w, ow, nw, sw, r, -1, &in[1]));
    ein_opnd pr;
    ein_prod_labels(&best, size, &pr);
    int64_t perm[EM_MAX_RANK], ys[EM_MAX_RANK];
    for (int i = 0; i < p->n_out; i++) {
        ys[i] = size[p->out[i]];
    }
    /* [b..., m, n] -> y: a Reshape when the labels are in the output's order, else a Reshape
     * to the labels [b..., M..., N...] and a Transpose */
    bool moves = perm_for(&pr, p->out, p->n_out, perm);
    bool direct = !moves && r == p->n_out && memcmp(sp, ys, sizeof *ys * (size_t)r) == 0;
    em_op op = best.nk > 0 ? EM_OP_MATMUL : EM_OP_MUL; /* no K: [b, m, 1] * [b, 1, n] */
    EM_PASS_TRY(ein_add(j, op, best.nk > 0 ? "/matmul" : "/mul", in, 2, r, sp, direct ? y : -1,
                        &pr.v));
    if (direct) {
        return NULL;
    }
    if (!moves) {
        return ein_reshape(j, pr.v, ys, p->n_out, y, &pr.v);
    }
    if (pr.rank != r || memcmp(sp, pr.dims, sizeof *sp * (size_t)r) != 0) {
        EM_PASS_TRY(ein_reshape(j, pr.v, pr.dims, pr.rank, -1, &pr.v));
    }
    return ein_transpose(j, pr.v, pr.dims, pr.rank, perm, y, &pr.v);
}

/* Lowers Einsum node e when it can (see the top of the file). */
static ember_status *ein_lower(em_pctx *c, int e, int n_old, int **after)
{
    em_ein_labels p;
    ein_opnd o[2];
    int64_t size[EM_EIN_MAX_LABELS];
    if (!ein_read(c, e, &p, o, size)) {
        return NULL;
    }
    em_graph *g = c->g;
    int y = g->nodes[e].out[0];
    const em_value *yv = &g->values[y];
    if (yv->rank != p.n_out) {
        return NULL; /* the inferred shape disagrees: leave it to the kernel */
    }
    for (int i = 0; i < p.n_out; i++) {
        if (yv->dims[i].v != size[p.out[i]]) {
            return NULL;
        }
    }
    ein_job j = {c, e, n_old, after, {0}};
    snprintf(j.base, sizeof j.base, "%s", g->nodes[e].name[0] ? g->nodes[e].name : yv->name);
    int n_in = g->nodes[e].n_in;
    em_pass_kill(c, e);
    return n_in == 1 ? ein_one(&j, &p, &o[0], y, size) : ein_two(&j, &p, o, y, size);
}

ember_status *em_pass_lower_einsum(em_pctx *c)
{
    em_graph *g = c->g;
    const int n_old = g->n_nodes;
    int *after = NULL;
    ember_status *st = NULL;
    for (int e = 0; e < n_old && st == NULL; e++) {
        if (!c->dead[e] && g->nodes[e].op == EM_OP_EINSUM) {
            st = ein_lower(c, e, n_old, &after);
        }
    }
    if (st == NULL && g->n_nodes > n_old) {
        st = em_pass_place_new(c, n_old, after);
        em_pass_refresh_producers(c);
    }
    em_free(g->al, after);
    return st;
}
