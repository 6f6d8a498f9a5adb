/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The executor (executor.h): a run context holds one run's arena and per-node tensors, made
 * once per plan and reused; em_exec_run walks the plan's nodes in order and calls each chosen
 * kernel's run on the arena's addresses. A run allocates nothing, searches nothing and reports
 * no error: the planner has checked everything.
 */
#include "exec/executor.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

void em_runctx_destroy(const ember_allocator *al, em_runctx *c)
{
    if (c == NULL) {
        return;
    }
    em_big_free(al, c->arena, c->arena_bytes);
    em_free(al, c->vdata);
    em_free(al, c->tin);
    em_free(al, c->tout);
    em_free(al, c->ev);
    em_free(al, c);
}

size_t em_runctx_bytes(const em_plan *p)
{
    return sizeof(em_runctx) + p->arena_bytes + ((size_t)p->n_values + 1) * sizeof(void *) +
           ((size_t)p->n_tensors_in + (size_t)p->n_tensors_out + 2) * sizeof(em_tensor) +
           (2 * (size_t)p->n_nodes + 1) * sizeof(int64_t);
}

ember_status *em_runctx_new(const ember_allocator *al, const em_plan *p, em_runctx **out)
{
    em_runctx *c = em_calloc(al, 1, sizeof *c);
    if (c == NULL) {
        return em_status_oom();
    }
    c->arena_bytes = p->arena_bytes;
    c->arena = em_big_alloc(al, p->arena_bytes, false);
    c->vdata = em_calloc(al, (size_t)p->n_values + 1, sizeof *c->vdata);
    c->tin = em_calloc(al, (size_t)p->n_tensors_in + 1, sizeof *c->tin);
    c->tout = em_calloc(al, (size_t)p->n_tensors_out + 1, sizeof *c->tout);
    c->ev = em_calloc(al, 2 * (size_t)p->n_nodes + 1, sizeof *c->ev);
    if (c->arena == NULL || c->vdata == NULL || c->tin == NULL || c->tout == NULL ||
        c->ev == NULL) {
        em_runctx_destroy(al, c);
        return em_status_oom();
    }
    for (int i = 0; i < p->n_values; i++) {
        const em_plan_value *pv = &p->vals[i];
        if (pv->loc == EM_LOC_CONST) {
            c->vdata[i] = pv->t.data;
        } else if (pv->loc == EM_LOC_ARENA) {
            c->vdata[i] = (char *)c->arena + p->bufs[pv->buf].offset + pv->sub;
        }
    }
    for (int ni = 0; ni < p->n_nodes; ni++) {
        const em_plan_node *pn = &p->nodes[ni];
        for (int k = 0; k < pn->node->n_in; k++) {
            int v = pn->node->in[k];
            if (v >= 0) {
                c->tin[pn->in_base + k] = p->vals[v].t;
            }
        }
        for (int k = 0; k < pn->node->n_out; k++) {
            c->tout[pn->out_base + k] = p->vals[pn->node->out[k]].t;
        }
    }
    *out = c;
    return NULL;
}

void em_exec_run(const em_plan *p, em_runctx *c, em_threadpool *pool, bool profile, int64_t t0)
{
    em_kctx kc = {pool, NULL};
    for (int ni = 0; ni < p->n_nodes; ni++) {
        const em_plan_node *pn = &p->nodes[ni];
        const em_node *n = pn->node;
        if (pn->folded || pn->in_place) {
            continue; /* computed while planning, or a Concat its producers wrote */
        }
        em_tensor *tin = c->tin + pn->in_base, *tout = c->tout + pn->out_base;
        for (int k = 0; k < n->n_in; k++) {
            tin[k].data = n->in[k] >= 0 ? c->vdata[n->in[k]] : NULL;
        }
        for (int k = 0; k < n->n_out; k++) {
            tout[k].data = c->vdata[n->out[k]];
        }
        kc.scratch = pn->scratch_buf >= 0
                         ? (char *)c->arena + p->bufs[pn->scratch_buf].offset
                         : NULL;
        if (profile) {
            int64_t t = em_now_ns();
            pn->k->run(pn->state, tin, tout, &kc);
            c->ev[2 * ni] = t - t0;
            c->ev[2 * ni + 1] = em_now_ns() - t;
        } else {
            pn->k->run(pn->state, tin, tout, &kc);
        }
    }
}
