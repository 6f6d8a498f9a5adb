/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pattern matching shared by the pattern fusions (passes.h): producers of a given op, private
 * values (read only by the pattern), one-element constants compared within f32 rounding, the
 * trailing axes of a ReduceMean, and the replacement of a pattern by one node in the slot of
 * its last node (so topological order holds: every input of the pattern comes before it).
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int em_pass_prod(const em_pctx *c, int v, em_op op)
{
    if (v < 0) {
        return -1;
    }
    int p = c->g->values[v].producer;
    return p >= 0 && !c->dead[p] && c->g->nodes[p].op == op ? p : -1;
}

int em_pass_private_prod(const em_pctx *c, int v, em_op op)
{
    return em_pass_private(c, v) ? em_pass_prod(c, v, op) : -1;
}

bool em_pass_only_read(const em_pctx *c, int v, int n)
{
    return v >= 0 && c->nread[v] == n && !c->g->values[v].is_output &&
           c->g->values[v].kind == EM_VAL_INTERMEDIATE;
}

bool em_pass_scalar(const em_graph *g, int v, double *out)
{
    if (v < 0 || g->values[v].kind != EM_VAL_INITIALIZER || g->values[v].q != NULL) {
        return false;
    }
    const em_tensor *t = &g->values[v].init;
    if (t->data == NULL || em_tensor_numel(t) != 1) {
        return false;
    }
    switch (t->dtype) {
    case EMBER_DTYPE_F32:
        *out = *(const float *)t->data;
        return true;
    case EMBER_DTYPE_F64:
        *out = *(const double *)t->data;
        return true;
    case EMBER_DTYPE_I32:
        *out = *(const int32_t *)t->data;
        return true;
    case EMBER_DTYPE_I64:
        *out = (double)*(const int64_t *)t->data;
        return true;
    default:
        return false;
    }
}

bool em_pass_scalar_is(const em_graph *g, int v, double want)
{
    double f;
    return em_pass_scalar(g, v, &f) && fabs(f - want) <= 1e-6 * fabs(want);
}

int em_pass_other(const em_node *n, int a)
{
    if (n->n_in != 2) {
        return -1;
    }
    return n->in[0] == a ? n->in[1] : n->in[1] == a ? n->in[0] : -1;
}

int em_pass_by_const(const em_graph *g, const em_node *n, em_op op, double want, bool either)
{
    if (n->op != op || n->n_in != 2 || n->n_out != 1) {
        return -1;
    }
    if (em_pass_scalar_is(g, n->in[1], want)) {
        return n->in[0];
    }
    return either && em_pass_scalar_is(g, n->in[0], want) ? n->in[1] : -1;
}

int em_pass_trailing_mean(const em_graph *g, int ni)
{
    return em_node_attr_int(&g->nodes[ni], "keepdims", 1) == 1 ? em_pass_trailing_axes(g, ni)
                                                                 : 0;
}

int em_pass_trailing_axes(const em_graph *g, int ni)
{
    const em_node *n = &g->nodes[ni];
    if (n->op != EM_OP_REDUCEMEAN || n->n_in < 2 || n->in[1] < 0 || n->n_out != 1) {
        return 0;
    }
    const em_value *x = &g->values[n->in[0]], *ax = &g->values[n->in[1]];
    if (x->rank < 1 || ax->kind != EM_VAL_INITIALIZER || ax->dtype != EMBER_DTYPE_I64 ||
        ax->init.data == NULL) {
        return 0;
    }
    int64_t k = em_tensor_numel(&ax->init);
    const int64_t *a = ax->init.data;
    bool seen[EM_MAX_RANK] = {false};
    if (k < 1 || k > x->rank) {
        return 0;
    }
    for (int64_t i = 0; i < k; i++) {
        int64_t d = a[i] < 0 ? a[i] + x->rank : a[i];
        if (d < x->rank - k || d >= x->rank || seen[d]) {
            return 0;
        }
        seen[d] = true;
    }
    return (int)k;
}

void em_pass_redirect(em_pctx *c, int from, int to, int after)
{
    for (int r = after + 1; r < c->g->n_nodes; r++) {
        for (int i = 0; !c->dead[r] && i < c->g->nodes[r].n_in; i++) {
            if (c->g->nodes[r].in[i] == from) {
                em_pass_set_input(c, r, i, to);
            }
        }
    }
}

ember_status *em_pass_replace(em_pctx *c, int last, em_op op, const int *in, int n_in,
                              const int *kill, int n_kill)
{
    em_graph *g = c->g;
    char *name = em_strdup(g->al, g->nodes[last].name);
    if (name == NULL) {
        return em_status_oom();
    }
    int y = g->nodes[last].out[0], ni;
    ember_status *st = em_pass_add_node_into(c, op, name, in, n_in, y, &ni);
    em_free(g->al, name);
    if (st != NULL) {
        return st;
    }
    for (int i = 0; i < n_in; i++) {
        if (in[i] >= 0) {
            c->nread[in[i]]++;
        }
    }
    em_pass_move(c, ni, last); /* kills `last`, the new node takes its slot */
    g->values[y].producer = last;
    for (int i = 0; i < n_kill; i++) {
        em_pass_kill(c, kill[i]);
    }
    return NULL;
}

bool em_pass_perm_is(const em_node *n, const int64_t *want, int rank)
{
    const em_attr *a = em_node_attr(n, "perm");
    return n->op == EM_OP_TRANSPOSE && n->n_in == 1 && n->n_out == 1 && a != NULL &&
           a->type == EM_ATTR_INTS && a->n == rank &&
           memcmp(a->ints, want, (size_t)rank * sizeof(int64_t)) == 0;
}

/* Adds a Reshape node of value `from` to `dims` (an int64 initializer "<name>/shape") whose
 * output is the value `to`. */
ember_status *em_pass_reshape_node(em_pctx *c, const char *base, const char *suffix, int from,
                                   int to, int rank, const int64_t *dims, int *out)
{
    em_graph *g = c->g;
    char name[512], shape[520];
    int64_t r = rank;
    int in[2] = {from, -1};
    em_pass_unique_name(g, base, suffix, name, sizeof name);
    snprintf(shape, sizeof shape, "%s/shape", name);
    EM_PASS_TRY(em_graph_add_initializer_copy(g, shape, EMBER_DTYPE_I64, 1, &r, dims, &in[1]));
    EM_PASS_TRY(em_pass_add_node_into(c, EM_OP_RESHAPE, name, in, 2, to, out));
    c->nread[in[0]]++;
    c->nread[in[1]]++;
    return NULL;
}
