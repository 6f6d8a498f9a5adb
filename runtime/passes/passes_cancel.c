/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Transpose and Reshape pairs (passes.h). y = Transpose(Transpose(x, p1), p2) is
 * Transpose(x, q) with q[i] = p1[p2[i]]: when q is the identity and y is no graph output, y's
 * readers read x and the second Transpose goes (the first too once nothing reads it);
 * otherwise, when only the second reads the first, the second becomes Transpose(x, q).
 * y = Reshape(Reshape(x, s1), s2) is x itself when y's shape is x's (dims known and equal, or
 * the same symbol) and y is no graph output; otherwise, when only the second reads the first
 * and s2 is a constant without 0 (a 0 copies a dim of the first's output, unless allowzero),
 * the second reshapes x directly. Perms are read from the attributes (absent: reversed).
 * A Slice whose output has its input's shape (every dim known) with steps of 1 (constant, or
 * none) copies x whole: its readers read x (torch's x[:, :H, :W] after a window pad of 0,
 * once fixed input shapes make H and W known).
 * An Expand of x whose every reader is an f32 Add, Sub, Mul or Div (which broadcast) reading it
 * once, beside an operand that has the reader's output shape (every dim known) into which x
 * broadcasts, is dropped when it is no graph output: its readers read x and their output
 * shapes do not change (F.normalize's x / norm.expand_as(x)). The other operand keeps the
 * output's shape so the x86 binary kernels still take the pair.
 */
#include "passes/passes.h"

#include "core/status.h"

#include <string.h>

/* The perm of Transpose node n over rank r into p; false when malformed. */
static bool perm_of(const em_node *n, int r, int64_t *p)
{
    const int64_t *a = NULL;
    int64_t k = em_node_attr_ints(n, "perm", &a);
    bool seen[EM_MAX_RANK] = {false};
    if (r < 1 || r > EM_MAX_RANK || (k >= 0 && k != r)) {
        return false;
    }
    for (int i = 0; i < r; i++) {
        p[i] = k >= 0 ? a[i] : r - 1 - i;
        if (p[i] < 0 || p[i] >= r || seen[p[i]]) {
            return false;
        }
        seen[p[i]] = true;
    }
    return true;
}

static ember_status *transpose_pair(em_pctx *c, int t2)
{
    em_graph *g = c->g;
    int v = g->nodes[t2].in[0], t1 = em_pass_prod(c, v, EM_OP_TRANSPOSE);
    int x = t1 >= 0 ? g->nodes[t1].in[0] : -1, y = g->nodes[t2].out[0];
    int r = x >= 0 ? g->values[x].rank : -1;
    int64_t p1[EM_MAX_RANK], p2[EM_MAX_RANK], q[EM_MAX_RANK];
    if (t1 < 0 || !perm_of(&g->nodes[t1], r, p1) || !perm_of(&g->nodes[t2], r, p2)) {
        return NULL;
    }
    bool identity = true;
    for (int i = 0; i < r; i++) {
        q[i] = p1[p2[i]];
        identity = identity && q[i] == i;
    }
    if (identity && !g->values[y].is_output && g->values[x].dtype == g->values[y].dtype) {
        em_pass_redirect(c, y, x, t2);
        em_pass_kill(c, t2);
    } else if (em_pass_only_read(c, v, 1)) {
        const em_attr *pa = em_node_attr(&g->nodes[t2], "perm");
        if (pa != NULL) { /* perm_of saw r ints: overwritten in place (set_ints would append) */
            memcpy(pa->ints, q, sizeof *q * (size_t)r);
        } else {
            EM_PASS_TRY(em_node_set_ints(g, t2, "perm", q, r));
        }
        em_pass_set_input(c, t2, 0, x);
        em_pass_kill(c, t1);
    }
    return NULL;
}

/* Reshape target s (input 1 of node n) is a constant that does not copy input dims. */
static bool target_free(const em_graph *g, const em_node *n)
{
    const em_value *s = &g->values[n->in[1]];
    if (s->kind != EM_VAL_INITIALIZER || s->dtype != EMBER_DTYPE_I64 || s->init.data == NULL) {
        return false;
    }
    const int64_t *d = s->init.data;
    for (int64_t i = 0; i < em_tensor_numel(&s->init); i++) {
        if (d[i] == 0 && em_node_attr_int(n, "allowzero", 0) == 0) {
            return false;
        }
    }
    return true;
}

static void reshape_pair(em_pctx *c, int r2)
{
    em_graph *g = c->g;
    int v = g->nodes[r2].in[0], r1 = em_pass_prod(c, v, EM_OP_RESHAPE);
    int x = r1 >= 0 ? g->nodes[r1].in[0] : -1, y = g->nodes[r2].out[0];
    if (r1 < 0 || g->nodes[r2].n_in != 2 || g->nodes[r2].in[1] < 0) {
        return;
    }
    if (!g->values[y].is_output && em_pass_same_shape(&g->values[x], &g->values[y])) {
        em_pass_redirect(c, y, x, r2);
        em_pass_kill(c, r2);
    } else if (em_pass_only_read(c, v, 1) && target_free(g, &g->nodes[r2])) {
        em_pass_set_input(c, r2, 0, x);
        em_pass_kill(c, r1);
    }
}

/* Steps input `v` of a Slice (-1: none) is a constant of ones. */
static bool steps_one(const em_graph *g, int v)
{
    if (v < 0) {
        return true;
    }
    const em_value *s = &g->values[v];
    if (s->kind != EM_VAL_INITIALIZER || s->init.data == NULL ||
        (s->dtype != EMBER_DTYPE_I64 && s->dtype != EMBER_DTYPE_I32)) {
        return false;
    }
    for (int64_t i = 0; i < em_tensor_numel(&s->init); i++) {
        int64_t k = s->dtype == EMBER_DTYPE_I64 ? ((const int64_t *)s->init.data)[i]
                                                : ((const int32_t *)s->init.data)[i];
        if (k != 1) {
            return false;
        }
    }
    return true;
}

/* Value v's dims are all known. */
static bool dims_known(const em_value *v)
{
    bool known = v->rank >= 0;
    for (int d = 0; known && d < v->rank; d++) {
        known = v->dims[d].v >= 0;
    }
    return known;
}

static void whole_slice(em_pctx *c, int j)
{
    em_graph *g = c->g;
    const em_node *n = &g->nodes[j];
    if (n->n_in < 3 || n->n_out != 1 || n->in[0] < 0) {
        return;
    }
    int x = n->in[0], y = n->out[0];
    const em_value *xv = &g->values[x], *yv = &g->values[y];
    if (dims_known(xv) && !yv->is_output && em_pass_same_shape(xv, yv) &&
        steps_one(g, n->n_in > 4 ? n->in[4] : -1)) {
        em_pass_redirect(c, y, x, j);
        em_pass_kill(c, j);
    }
}

/* Node r (an Add, Sub, Mul or Div reading y once) computes the same with x in y's place:
 * its other operand has r's output shape, known, and x broadcasts into it. */
static bool broadcasts_anyway(const em_graph *g, const em_node *r, int x, int y)
{
    if ((r->op != EM_OP_ADD && r->op != EM_OP_SUB && r->op != EM_OP_MUL && r->op != EM_OP_DIV) ||
        r->n_in != 2 || r->n_out != 1 || (r->in[0] == y) == (r->in[1] == y)) {
        return false;
    }
    const em_value *o = &g->values[em_pass_other(r, y)], *out = &g->values[r->out[0]];
    const em_value *xv = &g->values[x];
    if (out->dtype != EMBER_DTYPE_F32 || !dims_known(o) || !dims_known(xv) ||
        !em_pass_same_shape(o, out) || xv->rank > out->rank) {
        return false;
    }
    for (int d = 0; d < xv->rank; d++) {
        int64_t k = xv->dims[d].v, n = out->dims[out->rank - xv->rank + d].v;
        if (k != 1 && k != n) {
            return false;
        }
    }
    return true;
}

static void expand_read_broadcast(em_pctx *c, int j)
{
    em_graph *g = c->g;
    const em_node *n = &g->nodes[j];
    int x = n->in[0], y = n->out[0], reads = 0;
    if (n->n_out != 1 || x < 0 || g->values[y].is_output || g->values[x].dtype != EMBER_DTYPE_F32) {
        return;
    }
    for (int r = j + 1; r < g->n_nodes; r++) {
        const em_node *rn = &g->nodes[r];
        bool reads_y = false;
        for (int i = 0; !c->dead[r] && i < rn->n_in; i++) {
            reads_y = reads_y || rn->in[i] == y;
        }
        if (reads_y && !broadcasts_anyway(g, rn, x, y)) {
            return;
        }
        reads += reads_y;
    }
    if (reads > 0 && reads == c->nread[y]) {
        em_pass_redirect(c, y, x, j);
        em_pass_kill(c, j);
    }
}

ember_status *em_pass_cancel_pairs(em_pctx *c)
{
    em_pass_refresh_producers(c);
    for (int j = 0; j < c->g->n_nodes; j++) {
        if (c->dead[j]) {
            continue;
        }
        if (c->g->nodes[j].op == EM_OP_TRANSPOSE) {
            EM_PASS_TRY(transpose_pair(c, j));
        } else if (c->g->nodes[j].op == EM_OP_RESHAPE) {
            reshape_pair(c, j);
        } else if (c->g->nodes[j].op == EM_OP_SLICE) {
            whole_slice(c, j);
        } else if (c->g->nodes[j].op == EM_OP_EXPAND) {
            expand_read_broadcast(c, j);
        }
    }
    return NULL;
}
