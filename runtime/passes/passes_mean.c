/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spatial means as pooling (passes.h): ReduceMean of an f32 [N, C, H, W] value over axes
 * {2, 3} (constant, in any order and sign) is GlobalAveragePool, followed by Flatten(axis 1)
 * when keepdims is 0 ([N, C, 1, 1] -> [N, C], the ReduceMean's output value). MNASNet and
 * ShuffleNetV2 end in x.mean([2, 3]) (both ONNX forms and the TorchScript trace): the
 * reference ReduceMean walks coordinates element by element on plain layout, after the
 * layout pass has reordered the last conv's output back from channel blocks;
 * GlobalAveragePool has x86 kernels and a channel-blocked form, so the blocked chain reaches
 * the pool and only [N, C, 1, 1] is reordered. Runs after the LayerNorm / RMSNorm matching
 * (passes_norm.c), which reads ReduceMeans of its own.
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdio.h>

/* ReduceMean node j becomes GlobalAveragePool (+ Flatten, made after the graph's nodes). */
static ember_status *mean_to_pool(em_pctx *c, int j)
{
    em_graph *g = c->g;
    const em_node *n = &g->nodes[j];
    int x = n->in[0], y = n->out[0];
    const em_value *xv = &g->values[x];
    if (xv->rank != 4 || xv->dtype != EMBER_DTYPE_F32 || em_pass_trailing_axes(g, j) != 2) {
        return NULL;
    }
    bool keep = em_node_attr_int(n, "keepdims", 1) != 0;
    EM_PASS_TRY(em_pass_replace(c, j, EM_OP_GLOBALAVERAGEPOOL, &x, 1, NULL, 0));
    if (keep) {
        return NULL;
    }
    char base[512], name[520];
    snprintf(base, sizeof base, "%s", g->nodes[j].name[0] ? g->nodes[j].name : g->values[y].name);
    em_dim d[4] = {g->values[x].dims[0], g->values[x].dims[1], {1, 0}, {1, 0}};
    int m, f;
    em_pass_unique_name(g, base, "/pooled", name, sizeof name);
    EM_PASS_TRY(em_graph_add_value(g, name, EMBER_DTYPE_F32, 4, d, &m));
    EM_PASS_TRY(em_pass_sync(c));
    g->nodes[j].out[0] = m;
    g->values[m].producer = j;
    em_pass_unique_name(g, base, "/flatten", name, sizeof name);
    EM_PASS_TRY(em_pass_add_node_into(c, EM_OP_FLATTEN, name, &m, 1, y, &f));
    c->nread[m]++;
    g->values[y].producer = f;
    return em_node_set_int(g, f, "axis", 1);
}

ember_status *em_pass_mean_pool(em_pctx *c)
{
    em_graph *g = c->g;
    const int n_old = g->n_nodes;
    int *after = NULL;
    ember_status *st = NULL;
    for (int j = 0, n_new = n_old; j < n_old && st == NULL; j++) {
        if (c->dead[j] || g->nodes[j].op != EM_OP_REDUCEMEAN) {
            continue;
        }
        st = mean_to_pool(c, j);
        if (st == NULL && g->n_nodes > n_new) { /* the nodes made (the Flatten) follow j */
            int *na = em_realloc(g->al, after, sizeof *na * (size_t)(g->n_nodes - n_old));
            if (na == NULL) {
                st = em_status_oom();
                break;
            }
            after = na;
            for (; n_new < g->n_nodes; n_new++) {
                after[n_new - n_old] = j;
            }
        }
    }
    if (st == NULL && g->n_nodes > n_old) {
        st = em_pass_place_new(c, n_old, after);
    }
    em_free(g->al, after);
    return st;
}
