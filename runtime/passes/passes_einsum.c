/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Einsum -> Transpose / Reshape / MatMul / Mul / ReduceSum (passes.h, step 1c): an f32
 * Einsum of one or two inputs becomes ops that have fast kernels, so attention written as
 * einsum (maxvit's "B G H I D, B G H J D -> B G H I J") runs as batched GEMMs instead of the
 * reference kernel's label loop.
 *
 * Labels (runtime/ir/einsum.h) fall into groups by where they occur:
 *   batch      in both inputs and the output          -> MatMul's leading dims
 *   contracted in both inputs, not the output         -> MatMul's K
 *   free       in one input and the output            -> its M (first operand) or N (second)
 *   summed     in one input only, not the output      -> a ReduceSum of that input first
 * Each operand is transposed to [batch, M, K] / [batch, K, N] (no Transpose when its axes of
 * size other than 1 already come in that order: a Reshape is a view) and reshaped to
 * [batch..., m, k] / [batch..., k, n]; the product [batch..., m, n] is reshaped to the labels
 * and transposed to the output's order when that order differs. The operands may swap roles
 * (the product is then computed as [batch, N, M]) and K may follow either operand's order:
 * the pass takes the arrangement whose Transposes move the fewest elements. Without contracted
 * labels the product is a broadcasting Mul of [batch..., m, 1] and [batch..., 1, n]. A "..."
 * dim of size 1 in one input that the other broadcasts (numpy rules) is dropped from the first
 * by its Reshape. One input: summed labels by ReduceSum, the rest by Transpose / Reshape.
 *
 * Dims may be symbolic (TorchScript models are lowered before their input shapes are known).
 * A letter's dims must be equal (ONNX requires it): one known size stands for the label's
 * unknown ones (in a model where they differ, the MatMul fails at planning or broadcasts a 1);
 * a "..." dim must be known to equal the other's or to broadcast. Each Reshape target must be
 * expressible without run-time shape arithmetic: an unknown dim is copied (0) from the same
 * axis of the Reshape's input or is its target's only unknown (-1). The pass first plans the
 * rewrite without touching the graph (a dry run) and changes nothing when one is not.
 *
 * Left to the reference kernel: a label repeated within one input (a diagonal), three or more
 * inputs, another dtype, a label whose known dims differ (an invalid model, reported by the
 * kernel), "..." dims not known to broadcast, and the Reshapes above that need shape arithmetic.
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
    em_dim dims[EM_MAX_RANK];
} ein_opnd;

/* The node being lowered and the new nodes made so far (placed after it); a dry run only
 * checks that every Reshape target is expressible (ok). */
typedef struct ein_job {
    em_pctx *c;
    int e, n_old;
    int **after;
    bool dry, ok;
    char base[400];
} ein_job;

/* Label groups, each in its chosen order. */
typedef struct ein_groups {
    int nb, nm, nk, nn;
    int b[EM_MAX_RANK], m[EM_MAX_RANK], k[EM_MAX_RANK], n[EM_MAX_RANK];
} ein_groups;

static const em_dim unknown_dim = {-1, 0};

/* Known and equal, or the same symbol. */
static bool dim_eq(em_dim a, em_dim b)
{
    return a.v >= 0 ? a.v == b.v : a.sym > 0 && a.sym == b.sym && b.v < 0;
}

static bool dim_is_one(em_dim a)
{
    return a.v == 1;
}

/* Elements of dims d[0..r) for the cost model (an unknown dim counts as 64). */
static int64_t numel(const em_dim *d, int r)
{
    int64_t n = 1;
    for (int i = 0; i < r; i++) {
        n *= d[i].v >= 0 ? d[i].v : 64;
    }
    return n;
}

/* The product of the labels lab[0..n): known when all are, the dim itself for one label,
 * else unknown. */
static em_dim group_dim(const int *lab, int n, const em_dim *size)
{
    if (n == 1) {
        return size[lab[0]];
    }
    em_dim p = {1, 0};
    for (int i = 0; i < n; i++) {
        if (size[lab[i]].v < 0) {
            return unknown_dim;
        }
        p.v *= size[lab[i]].v;
    }
    return p;
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

static bool has(const ein_opnd *o, int l)
{
    return axis_of(o, l) >= 0;
}

/* The perm putting labels order[0..n) first (every one present in o) and o's dropped axes
 * after them: perm[0..rank); true when it moves data (its axes not known to be 1 are out of
 * order). */
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
        if (!dim_is_one(o->dims[perm[a]])) {
            if (perm[a] < last) {
                return true;
            }
            last = perm[a];
        }
    }
    return false;
}

/* Adds node `op` reading in[0..n_in) and writing `to`, or a new f32 value of dims[0..rank)
 * when to < 0; the written value in *out. A dry run adds nothing. */
static ember_status *ein_add(ein_job *j, em_op op, const char *suffix, const int *in, int n_in,
                             int rank, const em_dim *dims, int to, int *out)
{
    em_pctx *c = j->c;
    em_graph *g = c->g;
    char name[520];
    int ni;
    *out = to;
    if (j->dry) {
        return NULL;
    }
    em_pass_unique_name(g, j->base, suffix, name, sizeof name);
    if (to < 0) {
        EM_PASS_TRY(em_graph_add_value(g, name, EMBER_DTYPE_F32, rank, dims, &to));
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

/* An int64 [n] constant named after the node (none in a dry run). */
static ember_status *ein_ints(ein_job *j, const char *suffix, const int64_t *v, int64_t n, int *out)
{
    char name[520];
    *out = -1;
    if (j->dry) {
        return NULL;
    }
    em_pass_unique_name(j->c->g, j->base, suffix, name, sizeof name);
    EM_PASS_TRY(em_graph_add_initializer_copy(j->c->g, name, EMBER_DTYPE_I64, 1, &n, v, out));
    return em_pass_sync(j->c);
}

/* Reshape of v (dims src[0..sr)) to dims[0..rank): known dims as they are, an unknown one
 * copied (0) from the same axis of src or, when it is the only other unknown, -1; j->ok false
 * when neither fits. */
static ember_status *ein_reshape(ein_job *j, int v, const em_dim *src, int sr, const em_dim *dims,
                                 int rank, int to, int *out)
{
    int64_t t[EM_MAX_RANK];
    int n_unknown = 0;
    for (int a = 0; a < rank; a++) {
        bool copy = dims[a].v < 0 && a < sr && dim_eq(src[a], dims[a]);
        t[a] = dims[a].v >= 0 ? dims[a].v : copy ? 0 : -1;
        n_unknown += t[a] == -1;
    }
    if (n_unknown > 1) {
        j->ok = false;
        return NULL;
    }
    int in[2] = {v, -1};
    EM_PASS_TRY(ein_ints(j, "/shape", t, rank, &in[1]));
    return ein_add(j, EM_OP_RESHAPE, "/reshape", in, 2, rank, dims, to, out);
}

static ember_status *ein_transpose(ein_job *j, int v, const em_dim *dims, int rank,
                                   const int64_t *perm, int to, int *out)
{
    em_dim pd[EM_MAX_RANK];
    for (int a = 0; a < rank; a++) {
        pd[a] = dims[perm[a]];
    }
    EM_PASS_TRY(ein_add(j, EM_OP_TRANSPOSE, "/transpose", &v, 1, rank, pd, to, out));
    return j->dry ? NULL : em_node_set_ints(j->c->g, j->c->g->n_nodes - 1, "perm", perm, rank);
}

/* Operand o laid out as labels order[0..n) (Transpose when needed), then reshaped to
 * shape[0..sr) (when its dims differ), into `to` (or a new value when to < 0; a Reshape is
 * added when nothing else would write `to`). */
static ember_status *ein_arrange(ein_job *j, const ein_opnd *o, const int *order, int n,
                                 const em_dim *shape, int sr, int to, int *out)
{
    int64_t perm[EM_MAX_RANK];
    em_dim d[EM_MAX_RANK];
    int v = o->v, r = o->rank;
    bool moves = perm_for(o, order, n, perm);
    bool reshape = sr != r;
    for (int a = 0; a < r; a++) {
        d[a] = moves ? o->dims[perm[a]] : o->dims[a];
        reshape = reshape || !dim_eq(d[a], shape[a]);
    }
    if (moves) {
        EM_PASS_TRY(ein_transpose(j, v, o->dims, r, perm, reshape ? -1 : to, &v));
    }
    if (reshape || (to >= 0 && !moves)) {
        EM_PASS_TRY(ein_reshape(j, v, d, r, shape, sr, to, &v));
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
            if (!dim_is_one(o->dims[a])) {
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
        o->dims[axes[i]].v = 1;
        o->dims[axes[i]].sym = 0;
    }
    EM_PASS_TRY(ein_add(j, EM_OP_REDUCESUM, "/sum", in, 2, o->rank, o->dims, -1, &o->v));
    return j->dry ? NULL : em_node_set_int(j->c->g, j->c->g->n_nodes - 1, "keepdims", 1);
}

/* The operands of Einsum node e, label dims in size[] (v -1 and sym -1: unused); false when
 * the node is not one the pass lowers. A "..." axis of size 1 that the other input
 * broadcasts is dropped (lab -1). */
static bool ein_read(const em_pctx *c, int e, em_ein_labels *p, ein_opnd *o, em_dim *size)
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
        const em_value *v = n->in[i] >= 0 ? &g->values[n->in[i]] : NULL;
        if (v == NULL || v->vt != EM_VT_TENSOR || v->dtype != EMBER_DTYPE_F32 || v->q != NULL ||
            v->rank < 0) {
            return false;
        }
        ranks[i] = v->rank;
    }
    if (em_einsum_parse(eq, n->n_in, ranks, p) != NULL) {
        return false;
    }
    bool used[EM_EIN_MAX_LABELS] = {false};
    for (int i = 0; i < n->n_in; i++) {
        const em_value *v = &g->values[n->in[i]];
        bool seen[EM_EIN_MAX_LABELS] = {false};
        o[i].v = n->in[i];
        o[i].rank = v->rank;
        for (int a = 0; a < v->rank; a++) {
            int l = p->lab[i][a];
            em_dim d = v->dims[a];
            if (seen[l]) {
                return false; /* a diagonal */
            }
            seen[l] = true;
            o[i].lab[a] = l;
            o[i].dims[a] = d;
            bool ell = l >= EM_EIN_LETTERS;
            if (!used[l] || (ell && dim_is_one(size[l])) || (!ell && size[l].v < 0 && d.v >= 0)) {
                size[l] = d;
            } else if (!dim_eq(d, size[l]) && !(ell && dim_is_one(d)) &&
                       (ell || (d.v >= 0 && size[l].v >= 0))) {
                return false; /* different sizes, or "..." dims not known to broadcast */
            }
            used[l] = true;
        }
    }
    for (int i = 0; i < n->n_in; i++) {
        for (int a = 0; a < o[i].rank; a++) {
            if (dim_is_one(o[i].dims[a]) && !dim_is_one(size[o[i].lab[a]])) {
                o[i].lab[a] = -1; /* a broadcast size-1 "..." dim */
            }
        }
    }
    return true;
}

/* One input: summed labels reduced, the rest transposed / reshaped into y. */
static ember_status *ein_one(ein_job *j, const em_ein_labels *p, ein_opnd *o, int y,
                             const em_dim *size)
{
    bool sum[EM_EIN_MAX_LABELS] = {false}, in_out[EM_EIN_MAX_LABELS] = {false};
    em_dim shape[EM_MAX_RANK];
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

/* The product's labels [b, m, n] and their dims, in pr. */
static void ein_prod_labels(const ein_groups *gr, const em_dim *size, ein_opnd *pr)
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
}

static void cat(int *dst, int *n, const int *src, int k)
{
    memcpy(dst + *n, src, sizeof *src * (size_t)k);
    *n += k;
}

/* The label orders of the operands: ox = [b, m, k], ow = [b, k, n]. */
static void ein_orders(const ein_groups *gr, int *ox, int *nx, int *ow, int *nw)
{
    *nx = *nw = 0;
    cat(ox, nx, gr->b, gr->nb);
    cat(ox, nx, gr->m, gr->nm);
    cat(ox, nx, gr->k, gr->nk);
    cat(ow, nw, gr->b, gr->nb);
    cat(ow, nw, gr->k, gr->nk);
    cat(ow, nw, gr->n, gr->nn);
}

/* Elements the Transposes of this arrangement move. */
static int64_t ein_cost(const em_ein_labels *p, const ein_opnd *x, const ein_opnd *w,
                        const ein_groups *gr, const em_dim *size)
{
    int ox[EM_MAX_RANK], ow[EM_MAX_RANK], nx, nw;
    int64_t perm[EM_MAX_RANK], cost = 0;
    ein_orders(gr, ox, &nx, ow, &nw);
    cost += perm_for(x, ox, nx, perm) ? numel(x->dims, x->rank) : 0;
    cost += perm_for(w, ow, nw, perm) ? numel(w->dims, w->rank) : 0;
    ein_opnd pr;
    ein_prod_labels(gr, size, &pr);
    return cost + (perm_for(&pr, p->out, p->n_out, perm) ? numel(pr.dims, pr.rank) : 0);
}

/* Two inputs: the cheapest arrangement's Transposes, Reshapes and MatMul (or Mul) into y. */
static ember_status *ein_two(ein_job *j, const em_ein_labels *p, ein_opnd *o, int y,
                             const em_dim *size)
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
    int ox[EM_MAX_RANK], ow[EM_MAX_RANK], nx, nw, r = best.nb + 2;
    em_dim sx[EM_MAX_RANK], sw[EM_MAX_RANK], sp[EM_MAX_RANK], ys[EM_MAX_RANK];
    em_dim m = group_dim(best.m, best.nm, size), k = group_dim(best.k, best.nk, size);
    em_dim n = group_dim(best.n, best.nn, size);
    ein_orders(&best, ox, &nx, ow, &nw);
    for (int i = 0; i < best.nb; i++) {
        sx[i] = sw[i] = sp[i] = size[best.b[i]];
    }
    sx[r - 2] = sp[r - 2] = m;
    sx[r - 1] = sw[r - 2] = k;
    sw[r - 1] = sp[r - 1] = n;
    int in[2];
    EM_PASS_TRY(ein_arrange(j, x, ox, nx, sx, r, -1, &in[0]));
    EM_PASS_TRY(ein_arrange(j, w, ow, nw, sw, r, -1, &in[1]));
    ein_opnd pr;
    ein_prod_labels(&best, size, &pr);
    int64_t perm[EM_MAX_RANK];
    bool moves = perm_for(&pr, p->out, p->n_out, perm), direct = !moves && r == p->n_out;
    for (int i = 0; i < p->n_out; i++) {
        ys[i] = size[p->out[i]];
        direct = direct && dim_eq(sp[i], ys[i]);
    }
    em_op op = best.nk > 0 ? EM_OP_MATMUL : EM_OP_MUL; /* no K: [b, m, 1] * [b, 1, n] */
    EM_PASS_TRY(ein_add(j, op, best.nk > 0 ? "/matmul" : "/mul", in, 2, r, sp, direct ? y : -1,
                        &pr.v));
    /* [b..., m, n] -> y: a Reshape when the labels are in the output's order, else a Reshape
     * to the labels [b..., M..., N...] and a Transpose */
    if (direct) {
        return NULL;
    }
    if (!moves) {
        return ein_reshape(j, pr.v, sp, r, ys, p->n_out, y, &pr.v);
    }
    bool same = pr.rank == r;
    for (int i = 0; same && i < r; i++) {
        same = dim_eq(sp[i], pr.dims[i]);
    }
    if (!same) {
        EM_PASS_TRY(ein_reshape(j, pr.v, sp, r, pr.dims, pr.rank, -1, &pr.v));
    }
    return ein_transpose(j, pr.v, pr.dims, pr.rank, perm, y, &pr.v);
}

/* Lowers Einsum node e when it can (see the top of the file). */
static ember_status *ein_lower(em_pctx *c, int e, int n_old, int **after)
{
    em_ein_labels p;
    ein_opnd o[2], dry[2];
    em_dim size[EM_EIN_MAX_LABELS];
    if (!ein_read(c, e, &p, o, size)) {
        return NULL;
    }
    em_graph *g = c->g;
    int y = g->nodes[e].out[0], n_in = g->nodes[e].n_in;
    const em_value *yv = &g->values[y];
    if (yv->rank != p.n_out) {
        return NULL; /* the inferred shape disagrees: leave it to the kernel */
    }
    for (int i = 0; i < p.n_out; i++) {
        em_dim d = yv->dims[i], l = size[p.out[i]];
        if (d.v >= 0 && l.v >= 0 && d.v != l.v) {
            return NULL;
        }
    }
    ein_job j = {c, e, n_old, after, true, true, {0}};
    memcpy(dry, o, sizeof dry);
    EM_PASS_TRY(n_in == 1 ? ein_one(&j, &p, &dry[0], y, size) : ein_two(&j, &p, dry, y, size));
    if (!j.ok) {
        return NULL;
    }
    j.dry = false;
    snprintf(j.base, sizeof j.base, "%s", g->nodes[e].name[0] ? g->nodes[e].name : yv->name);
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
    }
    em_free(g->al, after);
    return st;
}
