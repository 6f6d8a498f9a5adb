/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MatMul + bias Add -> Gemm (passes.h, step 4b): Add(MatMul(A, B), bias) with B a constant
 * f32 [K, N] and bias a constant f32 [N] or [1, N] becomes Gemm(A, B, bias), whose kernels
 * start each output tile from the bias instead of making a second pass over Y. A of rank > 2
 * ([..., M, K], the shape of a transformer's activations) is flattened to [rows, K] by a
 * Reshape and the product reshaped back to the Add's shape; Reshapes are views, so this costs
 * nothing at run time. The Add's output keeps its name, dtype and shape.
 *
 * Gemm + activation -> FusedGemm (step 4c): an f32 Gemm whose private output is read by one
 * activation FusedGemm takes (runtime/ir/fusedgemm.h: FusedConv's set, Gelu of either
 * approximation), directly or through the private flatten Reshape above, becomes FusedGemm
 * with that `activation`, so the kernels apply it to each output tile while it is in L1
 * instead of a second pass over Y. Through a Reshape, the activation (elementwise) moves in
 * front of it: FusedGemm writes the product and the Reshape now writes the activation's
 * output value.
 */
#include "passes/passes.h"

#include "ir/fusedgemm.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

/* The rank-r dims of value v as a Reshape target: -1 for the one unknown dim; false when
 * more than one dim is unknown. */
static bool reshape_target(const em_value *v, int64_t *dims)
{
    int unknown = 0;
    for (int d = 0; d < v->rank; d++) {
        dims[d] = v->dims[d].v;
        unknown += dims[d] < 0;
    }
    return v->rank > 0 && unknown <= 1;
}

/* Bias value b fits Gemm's C for a product with N columns: f32 constant [N] or [1, N]. */
static bool bias_fits(const em_graph *g, int b, int64_t n)
{
    const em_value *v = &g->values[b];
    if (em_pass_const_f32(g, b) == NULL) {
        return false;
    }
    return (v->rank == 1 && v->dims[0].v == n) ||
           (v->rank == 2 && v->dims[0].v == 1 && v->dims[1].v == n);
}

/* The MatMul (by index) whose private output is input `side` of Add node j, with B constant
 * f32 [K, N], A of rank >= 2, and the other input a bias fitting N; -1 otherwise. */
static int matmul_of(const em_pctx *c, int j, int side)
{
    const em_graph *g = c->g;
    const em_node *add = &g->nodes[j];
    int x = add->in[side], p = g->values[x].producer;
    if (!em_pass_private(c, x) || p < 0 || c->dead[p] || g->nodes[p].op != EM_OP_MATMUL) {
        return -1;
    }
    const em_node *mm = &g->nodes[p];
    const em_value *a = &g->values[mm->in[0]], *b = &g->values[mm->in[1]];
    /* A [..., M, K] x B [K, N] + a bias [N] or [1, N] keeps the product's shape. */
    if (em_pass_const_f32(g, mm->in[1]) == NULL || b->rank != 2 || a->rank < 2 ||
        a->dtype != EMBER_DTYPE_F32 || a->dims[a->rank - 1].v != b->dims[0].v) {
        return -1;
    }
    return bias_fits(g, add->in[1 - side], b->dims[1].v) ? p : -1;
}

/* Turns Add node j (reading MatMul p's output on `side`) into Gemm; a rank > 2 A gets the
 * Reshapes around it, the second one recorded in `after` to follow node j. */
static ember_status *to_gemm(em_pctx *c, int j, int side, int p, int n_old, int **after)
{
    em_graph *g = c->g;
    int a = g->nodes[p].in[0], b = g->nodes[p].in[1], bias = g->nodes[j].in[1 - side];
    int y = g->nodes[j].out[0];
    const em_value *av = &g->values[a];
    int64_t k = g->values[b].dims[0].v, n = g->values[b].dims[1].v, ydims[EM_MAX_RANK];
    char base[512];
    snprintf(base, sizeof base, "%s", g->nodes[p].name[0] ? g->nodes[p].name : g->values[y].name);
    if (av->rank > 2 && !reshape_target(&g->values[y], ydims)) {
        return NULL; /* more than one unknown leading dim: left as it is */
    }
    int a2 = a, y2 = y;
    if (av->rank > 2) {
        em_dim d[2] = {{-1, 0}, {k, 0}};
        int64_t rows = 1, flat[2] = {-1, k};
        for (int i = 0; i < av->rank - 1; i++) {
            rows = rows >= 0 && av->dims[i].v >= 0 ? rows * av->dims[i].v : -1;
        }
        d[0].v = rows;
        char name[520];
        em_pass_unique_name(g, base, "/rows", name, sizeof name);
        EM_PASS_TRY(em_graph_add_value(g, name, EMBER_DTYPE_F32, 2, d, &a2));
        em_pass_unique_name(g, base, "/product", name, sizeof name);
        d[1].v = n;
        EM_PASS_TRY(em_graph_add_value(g, name, EMBER_DTYPE_F32, 2, d, &y2));
        int r1, r2;
        EM_PASS_TRY(em_pass_reshape_node(c, base, "/flatten", a, a2, 2, flat, &r1));
        EM_PASS_TRY(em_pass_reshape_node(c, base, "/unflatten", y2, y, g->values[y].rank, ydims, &r2));
        int *na = em_realloc(g->al, *after, sizeof *na * (size_t)(g->n_nodes - n_old));
        if (na == NULL) {
            return em_status_oom();
        }
        *after = na;
        na[r1 - n_old] = j - 1; /* right before the Gemm (j > p >= 0) */
        na[r2 - n_old] = j;
        g->values[y].producer = r2;
    }
    /* Node j becomes Gemm(A2, B, bias) -> y2; the MatMul goes. */
    em_pass_set_input(c, j, 0, a2);
    em_pass_set_input(c, j, 1, b);
    EM_PASS_TRY(em_pass_push_input(c, j, bias));
    em_node *add = &g->nodes[j];
    add->op = EM_OP_GEMM;
    add->out[0] = y2;
    g->values[y2].producer = j;
    char name[520];
    em_pass_unique_name(g, base, "/gemm", name, sizeof name);
    char *copy = em_strdup(g->al, name);
    if (copy == NULL) {
        return em_status_oom();
    }
    em_free(g->al, add->name);
    add->name = copy;
    em_pass_kill(c, p);
    return NULL;
}

ember_status *em_pass_fuse_matmul(em_pctx *c)
{
    em_graph *g = c->g;
    const int n_old = g->n_nodes;
    int *after = NULL;
    ember_status *st = NULL;
    em_pass_refresh_producers(c);
    for (int j = 0; j < n_old && st == NULL; j++) {
        em_node *n = &g->nodes[j];
        if (c->dead[j] || n->op != EM_OP_ADD || n->n_in != 2 || n->n_attrs != 0) {
            continue;
        }
        for (int side = 0; side < 2; side++) {
            int p = matmul_of(c, j, side);
            if (p >= 0) {
                st = to_gemm(c, j, side, p, n_old, &after);
                break;
            }
        }
    }
    if (st == NULL && g->n_nodes > n_old) {
        st = em_pass_place_new(c, n_old, after);
    }
    em_free(g->al, after);
    return st;
}

/* The live f32 Gemm producing value v, read only by its one reader; -1 otherwise. */
static int private_gemm(const em_pctx *c, int v)
{
    int p = em_pass_private_prod(c, v, EM_OP_GEMM);
    return p >= 0 && c->g->values[v].dtype == EMBER_DTYPE_F32 ? p : -1;
}

/* Activation node j after a Gemm, or after the Reshape of a Gemm's output: FusedGemm. */
static ember_status *fuse_gemm_act(em_pctx *c, int j)
{
    em_graph *g = c->g;
    const em_node *act = &g->nodes[j];
    em_conv_epilogue e;
    if (act->n_in < 1 || act->in[0] < 0 || act->n_out != 1 || !em_pass_activation_of(c, j, &e) ||
        !em_pass_same_shape(&g->values[act->in[0]], &g->values[act->out[0]])) {
        return NULL;
    }
    int x = act->in[0], z = act->out[0], p = private_gemm(c, x), r = -1;
    if (p < 0) { /* Gemm -> Reshape -> activation */
        r = em_pass_private_prod(c, x, EM_OP_RESHAPE);
        p = r >= 0 && g->nodes[r].n_in >= 1 ? private_gemm(c, g->nodes[r].in[0]) : -1;
    }
    if (p < 0) {
        return NULL;
    }
    g->nodes[p].op = EM_OP_FUSEDGEMM;
    EM_PASS_TRY(em_pass_set_activation(c, p, &e));
    if (r >= 0) {
        g->nodes[r].out[0] = z;
        g->values[z].producer = r;
        em_pass_kill(c, j);
        return NULL;
    }
    g->nodes[p].out[0] = z;
    em_pass_move(c, p, j); /* the fused node takes the activation's slot */
    return NULL;
}

ember_status *em_pass_fuse_gemm_act(em_pctx *c)
{
    em_pass_refresh_producers(c);
    for (int j = 0; j < c->g->n_nodes; j++) {
        if (!c->dead[j]) {
            EM_PASS_TRY(fuse_gemm_act(c, j));
        }
    }
    return NULL;
}
