/* SPDX-License-Identifier: Apache-2.0 */
/* The planner: concrete shapes, kernel choice, lifetimes, buffers and offsets (planner.h). */
#include "plan/planner.h"

#include "core/alloc.h"
#include "shape/shape.h"
#include "core/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES 32

static ember_status *bind_inputs(em_plan *p, const int64_t *const *shapes, const int *ranks)
{
    const em_graph *g = p->g;
    int64_t sym_val[256];
    for (int i = 0; i < 256; i++) {
        sym_val[i] = -1;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const em_value *v = &g->values[g->inputs[i]];
        em_plan_value *pv = &p->vals[g->inputs[i]];
        if (ranks[i] < 0 || ranks[i] > EM_MAX_RANK || (v->rank >= 0 && ranks[i] != v->rank)) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "input %d '%s': rank %d, expected %d", i,
                                 v->name, ranks[i], v->rank);
        }
        for (int d = 0; d < ranks[i]; d++) {
            int64_t x = shapes[i][d];
            if (x < 0) {
                return em_status_new(EMBER_ERR_INVALID_ARG, "input %d '%s': dim %d is negative",
                                     i, v->name, d);
            }
            if (v->rank >= 0 && v->dims[d].v >= 0 && v->dims[d].v != x) {
                return em_status_new(EMBER_ERR_INVALID_ARG,
                                     "input %d '%s': dim %d is %lld, expected %lld", i, v->name,
                                     d, (long long)x, (long long)v->dims[d].v);
            }
            int s = v->rank >= 0 ? v->dims[d].sym : 0;
            em_sym_range r;
            if (!em_graph_symbol_allows(g, s, x, &r)) {
                char rt[48];
                return em_status_new(EMBER_ERR_INVALID_ARG,
                                     "input %d '%s': dim %d ('%s') is %lld, outside its range "
                                     "%s", i, v->name, d, g->sym_names[s - 1], (long long)x,
                                     em_sym_range_text(r, rt, sizeof rt));
            }
            if (s > 0 && s < 256) {
                if (sym_val[s] >= 0 && sym_val[s] != x) {
                    return em_status_new(EMBER_ERR_INVALID_ARG,
                                         "input %d '%s': dim %d ('%s') is %lld, but another "
                                         "input gives '%s' = %lld",
                                         i, v->name, d, g->sym_names[s - 1], (long long)x,
                                         g->sym_names[s - 1], (long long)sym_val[s]);
                }
                sym_val[s] = x;
            }
        }
        em_tensor_set_shape(&pv->t, v->dtype, shapes[i], ranks[i]);
        size_t nbytes;
        if (!em_tensor_nbytes_checked(&pv->t, &nbytes)) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "input %d '%s': its dims overflow the addressable size", i,
                                 v->name);
        }
        pv->loc = EM_LOC_INPUT;
        pv->index = i;
    }
    return NULL;
}

/* Per-node arrays, sized for the node with the most inputs / outputs. */
typedef struct plan_tmp {
    em_shape *sin, *sout;
    em_tensor *tin, *tout;
    const void **key_src; /* em_kpacks' key_src, one per input */
} plan_tmp;

static ember_status *infer_concrete(em_plan *p, int ni, const plan_tmp *tmp)
{
    const em_node *n = &p->g->nodes[ni];
    em_shape *in = tmp->sin, *out = tmp->sout;
    for (int i = 0; i < n->n_in; i++) {
        memset(&in[i], 0, sizeof in[i]);
        in[i].rank = -1;
        if (n->in[i] < 0) {
            continue;
        }
        const em_plan_value *pv = &p->vals[n->in[i]];
        in[i].dtype = pv->t.dtype;
        in[i].rank = pv->t.rank;
        for (int d = 0; d < pv->t.rank; d++) {
            in[i].dims[d].v = pv->t.dims[d];
        }
        in[i].value = pv->loc == EM_LOC_CONST ? &pv->t : NULL;
    }
    ember_status *st = em_shape_infer_node(n, in, out);
    if (st != NULL) {
        return st;
    }
    for (int o = 0; o < n->n_out; o++) {
        em_plan_value *pv = &p->vals[n->out[o]];
        if (out[o].rank < 0 || !em_dtype_valid(out[o].dtype)) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "node '%s' (%s): output %d's shape depends on data, which "
                                 "this version cannot plan",
                                 n->name, em_op_name(n->op), o);
        }
        int64_t dims[EM_MAX_RANK];
        for (int d = 0; d < out[o].rank; d++) {
            if (out[o].dims[d].v < 0) {
                return em_status_new(EMBER_ERR_UNSUPPORTED,
                                     "node '%s' (%s): output %d dim %d cannot be inferred",
                                     n->name, em_op_name(n->op), o, d);
            }
            dims[d] = out[o].dims[d].v;
        }
        em_tensor_set_shape(&pv->t, out[o].dtype, dims, out[o].rank);
        if (!em_tensor_nbytes_checked(&pv->t, &pv->bytes)) { /* the input shapes' doing */
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "node '%s' (%s): output %d would overflow the addressable size "
                                 "with these input shapes",
                                 n->name, em_op_name(n->op), o);
        }
    }
    return NULL;
}

ember_status *em_kernel_pick(const em_node *n, const em_tensor *tin, const em_tensor *tout,
                             const ember_allocator *al, uint64_t isa, int n_threads,
                             const em_kpacks *packs, const em_kernel **k, void **state,
                             size_t *scratch)
{
    ember_dtype dt = n->n_in > 0 ? tin[0].dtype : tout[0].dtype;
    const em_kernel *cand[MAX_CANDIDATES];
    size_t nc = em_registry_find(n->op, dt, EM_DEV_CPU, isa, cand, MAX_CANDIDATES);
    em_kinfo ki = {.node = n, .n_in = n->n_in, .n_out = n->n_out, .in = tin, .out = tout,
                   .al = al, .isa = isa, .n_threads = n_threads > 0 ? n_threads : 1,
                   .packs = packs};
    for (size_t c = 0; c < nc; c++) {
        void *st_ = NULL;
        size_t sb = 0;
        if (packs != NULL && packs->packed_in != NULL) {
            *packs->packed_in = 0; /* a declining candidate's marks do not count */
        }
        if (cand[c]->prepare != NULL) {
            ember_status *st = cand[c]->prepare(&ki, &st_, &sb);
            if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED && c + 1 < nc) {
                ember_status_destroy(st); /* declined: try the next candidate */
                continue;
            }
            if (st != NULL) {
                return st;
            }
        }
        *k = cand[c];
        *state = st_;
        *scratch = sb;
        return NULL;
    }
    return em_status_new(EMBER_ERR_UNSUPPORTED, "node '%s' (%s): no CPU kernel for dtype %s",
                         n->name, em_op_name(n->op), em_dtype_name(dt));
}

/* Whether node ni widens a half-precision initializer to f32 (weights stored in half). */
static bool widens_half_weight(const em_graph *g, int ni)
{
    const em_node *n = &g->nodes[ni];
    if (n->op != EM_OP_CAST || n->n_in != 1 || n->in[0] < 0 || n->n_out != 1 || n->out[0] < 0 ||
        g->values[n->out[0]].dtype != EMBER_DTYPE_F32) {
        return false;
    }
    const em_value *x = &g->values[n->in[0]];
    return x->kind == EM_VAL_INITIALIZER &&
           (x->dtype == EMBER_DTYPE_F16 || x->dtype == EMBER_DTYPE_BF16);
}

/* Picks the best kernel for node ni whose prepare accepts it. Packings of its inputs that
 * are initializers of the graph go to `shared` (when given), the others to the plan's own
 * cache. */
static ember_status *choose_kernel(em_plan *p, int ni, uint64_t isa, int n_threads,
                                   em_pack_cache *shared, size_t *scratch, const plan_tmp *tmp,
                                   uint64_t *packed_in)
{
    const em_node *n = &p->g->nodes[ni];
    em_plan_node *pn = &p->nodes[ni];
    em_tensor *tin = tmp->tin, *tout = tmp->tout;
    em_kpacks packs = {shared, p->packs, 0, packed_in, 0, 0, tmp->key_src};
    *packed_in = 0;
    for (int i = 0; i < n->n_in; i++) {
        memset(&tin[i], 0, sizeof tin[i]);
        tmp->key_src[i] = NULL;
        if (n->in[i] >= 0) {
            tin[i] = p->vals[n->in[i]].t;
            if (p->vals[n->in[i]].loc != EM_LOC_CONST) {
                tin[i].data = NULL;
            } else if (shared != NULL && i < 64 &&
                       p->g->values[n->in[i]].kind == EM_VAL_INITIALIZER) {
                packs.shared_in |= (uint64_t)1 << i;
            } else if (i < 64 && p->g->values[n->in[i]].producer >= 0 &&
                       widens_half_weight(p->g, p->g->values[n->in[i]].producer)) {
                const em_node *c = &p->g->nodes[p->g->values[n->in[i]].producer];
                bool f16 = p->g->values[c->in[0]].dtype == EMBER_DTYPE_F16;
                *(f16 ? &packs.f16_in : &packs.bf16_in) |= (uint64_t)1 << i;
                if (shared != NULL) { /* packs shared by the model's plans: em_kpacks */
                    tmp->key_src[i] = &p->g->values[c->in[0]];
                }
            }
        }
    }
    for (int o = 0; o < n->n_out; o++) {
        tout[o] = p->vals[n->out[o]].t;
        tout[o].data = NULL;
    }
    return em_kernel_pick(n, tin, tout, p->al, isa, n_threads, &packs, &pn->k, &pn->state,
                          scratch);
}

static int new_buf(em_plan *p, size_t bytes, int first, int last)
{
    em_plan_buf *b = &p->bufs[p->n_bufs];
    b->bytes = bytes;
    b->first = first;
    b->last = last;
    return p->n_bufs++;
}

/* ---- Concat in place (planner.h, step 2) ---- */

/* Byte offset of each input of Concat node ni in its output, when the node can be done in
 * place (off[i] for input i); false otherwise. */
static bool concat_offsets(const em_plan *p, int ni, size_t *off)
{
    const em_node *n = &p->g->nodes[ni];
    if (n->op != EM_OP_CONCAT || n->n_out != 1 || n->n_in < 1 || p->nodes[ni].folded) {
        return false;
    }
    const em_plan_value *y = &p->vals[n->out[0]];
    if (y->loc != EM_LOC_ARENA || y->bytes == 0 || y->t.dtype == EMBER_DTYPE_STRING) {
        return false;
    }
    int64_t axis = em_node_attr_int(n, "axis", 0);
    if (axis < 0) {
        axis += y->t.rank;
    }
    if (axis < 0 || axis >= y->t.rank) {
        return false;
    }
    for (int d = 0; d < axis; d++) {
        if (y->t.dims[d] != 1) {
            return false; /* the inputs interleave in the output */
        }
    }
    size_t at = 0;
    for (int i = 0; i < n->n_in; i++) {
        int v = n->in[i];
        if (v < 0 || p->vals[v].loc != EM_LOC_ARENA || p->vals[v].bytes == 0 ||
            at % EM_ALIGN != 0) {
            return false;
        }
        int prod = p->g->values[v].producer;
        if (prod < 0 || (em_op_info_of(p->g->nodes[prod].op)->flags & EM_OPF_ALIAS)) {
            return false; /* a view of another value: it cannot move */
        }
        for (int j = 0; j < i; j++) {
            if (n->in[j] == v) {
                return false;
            }
        }
        off[i] = at;
        at += p->vals[v].bytes;
    }
    return at == y->bytes;
}

/* The value v lies in, at byte *off: follows parent links to the value owning the buffer. */
static int concat_root(const int *parent, const size_t *poff, int v, size_t *off)
{
    *off = 0;
    while (parent[v] >= 0) {
        *off += poff[v];
        v = parent[v];
    }
    return v;
}

/* Decides which Concats run in place, last first; parent[v] / poff[v] place value v inside
 * another (-1: not placed). */
static void plan_concats(em_plan *p, int *parent, size_t *poff, size_t *off)
{
    for (int ni = p->n_nodes - 1; ni >= 0; ni--) {
        const em_node *n = &p->g->nodes[ni];
        if (!concat_offsets(p, ni, off)) {
            continue;
        }
        int y = n->out[0], placed = 0;
        for (int i = 0; i < n->n_in; i++) {
            placed += parent[n->in[i]] >= 0;
        }
        if (placed == 0) { /* the inputs go into the output */
            for (int i = 0; i < n->n_in; i++) {
                parent[n->in[i]] = y;
                poff[n->in[i]] = off[i];
            }
            p->nodes[ni].in_place = true;
            continue;
        }
        if (placed < n->n_in) {
            continue;
        }
        /* Every input already lies in a later Concat's output: the output is a view of them
         * when they lie there in this order, back to back. */
        size_t base, at;
        int root = concat_root(parent, poff, n->in[0], &base);
        bool ok = root != y;
        for (int i = 1; ok && i < n->n_in; i++) {
            ok = concat_root(parent, poff, n->in[i], &at) == root && at == base + off[i];
        }
        if (!ok) {
            continue;
        }
        if (parent[y] < 0) {
            parent[y] = root;
            poff[y] = base;
            p->nodes[ni].in_place = true;
        } else if (concat_root(parent, poff, y, &at) == root && at == base) {
            p->nodes[ni].in_place = true;
        }
    }
}

/* Lifetimes, then buffers: aliasing views and in-place elementwise ops share buffers, inputs
 * of in-place Concats go into the Concat's buffer. */
static ember_status *assign_buffers(em_plan *p, const size_t *scratch)
{
    const em_graph *g = p->g;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (p->nodes[ni].folded) {
            continue; /* never runs: reads nothing at run time */
        }
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] >= 0 && p->vals[n->in[i]].last < ni) {
                p->vals[n->in[i]].last = ni;
            }
        }
    }
    /* Per value: parent, root_buf, root_last (ints, -1: none); poff, and off per Concat input
     * (off needs at most one entry per value). */
    size_t nv = (size_t)g->n_values + 1;
    int *ints = em_malloc(p->al, sizeof(int) * 3 * nv);
    size_t *sizes = em_calloc(p->al, 2 * nv, sizeof(size_t));
    if (ints == NULL || sizes == NULL) {
        em_free(p->al, ints);
        em_free(p->al, sizes);
        return em_status_oom();
    }
    int *parent = ints, *root_buf = ints + nv, *root_last = ints + 2 * nv;
    size_t *poff = sizes, *off = sizes + nv;
    for (size_t i = 0; i < 3 * nv; i++) {
        ints[i] = -1;
    }
    plan_concats(p, parent, poff, off);
    /* A Concat buffer lives until the last reader of any value in it. */
    for (int v = 0; v < g->n_values; v++) {
        if (parent[v] >= 0) {
            size_t at;
            int r = concat_root(parent, poff, v, &at);
            int l = p->vals[v].last > p->vals[r].last ? p->vals[v].last : p->vals[r].last;
            root_last[r] = l > root_last[r] ? l : root_last[r];
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        unsigned flags = em_op_info_of(n->op)->flags;
        for (int o = 0; o < n->n_out; o++) {
            int v = n->out[o];
            em_plan_value *pv = &p->vals[v];
            if (pv->loc != EM_LOC_ARENA) {
                continue;
            }
            pv->sub = 0;
            if (parent[v] >= 0 || root_last[v] >= 0) { /* in a Concat's buffer */
                int r = concat_root(parent, poff, v, &pv->sub);
                if (root_buf[r] < 0) { /* its first value: producers run in node order */
                    root_buf[r] = new_buf(p, p->vals[r].bytes, ni, root_last[r]);
                }
                pv->buf = root_buf[r];
                continue;
            }
            const em_plan_value *src = n->n_in > 0 && n->in[0] >= 0 ? &p->vals[n->in[0]] : NULL;
            bool share = false;
            if (o == 0 && src != NULL && src->loc == EM_LOC_ARENA && src->bytes == pv->bytes) {
                if (flags & EM_OPF_ALIAS) {
                    share = true;
                } else if ((flags & EM_OPF_EW) && p->bufs[src->buf].last <= ni) {
                    share = true;
                }
            }
            if (share) {
                pv->buf = src->buf;
                pv->sub = src->sub;
                em_plan_buf *b = &p->bufs[pv->buf];
                if (pv->last > b->last) {
                    b->last = pv->last;
                }
            } else {
                pv->buf = new_buf(p, pv->bytes, ni, pv->last);
            }
        }
        p->nodes[ni].scratch_buf = scratch[ni] > 0 ? new_buf(p, scratch[ni], ni, ni) : -1;
    }
    em_free(p->al, ints);
    em_free(p->al, sizes);
    return NULL;
}


typedef struct {
    const em_plan_buf *bufs;
    int idx;
} buf_ref;

static int cmp_by_size(const void *a, const void *b)
{
    const buf_ref *x = a, *y = b;
    size_t sx = x->bufs[x->idx].bytes, sy = y->bufs[y->idx].bytes;
    if (sx != sy) {
        return sx > sy ? -1 : 1;
    }
    return x->idx - y->idx;
}

static ember_status *place_buffers(em_plan *p)
{
    int nb = p->n_bufs;
    buf_ref *order = em_malloc(p->al, sizeof *order * (size_t)(nb > 0 ? nb : 1));
    int *placed = em_malloc(p->al, sizeof *placed * (size_t)(nb > 0 ? nb : 1));
    if (order == NULL || placed == NULL) {
        em_free(p->al, order);
        em_free(p->al, placed);
        return em_status_oom();
    }
    for (int i = 0; i < nb; i++) {
        order[i].bufs = p->bufs;
        order[i].idx = i;
    }
    qsort(order, (size_t)nb, sizeof *order, cmp_by_size);
    int n_placed = 0;
    size_t arena = 0;
    for (int k = 0; k < nb; k++) {
        em_plan_buf *b = &p->bufs[order[k].idx];
        size_t need = em_align_up(b->bytes + EM_TAIL_PAD, EM_ALIGN);
        size_t off = 0;
        /* First fit: move past every live-overlapping buffer that collides, until none does.
         * Buffers are few (hundreds), so the quadratic scan is cheap. */
        bool moved = true;
        while (moved) {
            moved = false;
            for (int j = 0; j < n_placed; j++) {
                const em_plan_buf *o = &p->bufs[placed[j]];
                if (o->last < b->first || b->last < o->first) {
                    continue;
                }
                size_t oend = o->offset + em_align_up(o->bytes + EM_TAIL_PAD, EM_ALIGN);
                if (off < oend && o->offset < off + need) {
                    off = oend;
                    moved = true;
                }
            }
        }
        b->offset = off;
        placed[n_placed++] = order[k].idx;
        if (off + need > arena) {
            arena = off + need;
        }
    }
    p->arena_bytes = arena;
    em_free(p->al, order);
    em_free(p->al, placed);
    return NULL;
}

/* Marks need[v] for every value whose contents decide some output shape (planner.h). */
static void mark_needed(const em_graph *g, unsigned char *need)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        unsigned vin = em_op_info_of(n->op)->value_inputs;
        for (int i = 0; i < n->n_in && i < 32; i++) {
            if ((vin >> i & 1u) && n->in[i] >= 0) {
                need[n->in[i]] = 1;
            }
        }
    }
    for (int ni = g->n_nodes - 1; ni >= 0; ni--) {
        const em_node *n = &g->nodes[ni];
        bool out_needed = false;
        for (int o = 0; o < n->n_out; o++) {
            out_needed = out_needed || need[n->out[o]];
        }
        if (!out_needed || (em_op_info_of(n->op)->flags & EM_OPF_SHAPE_ONLY)) {
            continue;
        }
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] >= 0) {
                need[n->in[i]] = 1;
            }
        }
    }
}

/* Plan-owned bytes (keyed inputs, folded values). */
static ember_status *own_bytes(em_plan *p, size_t nbytes, void **data)
{
    em_storage *s = NULL;
    em_storage **o = em_realloc(p->al, p->owned, sizeof *o * (size_t)(p->n_owned + 1));
    if (o == NULL) {
        return em_status_oom();
    }
    p->owned = o;
    ember_status *st = em_storage_new_owned(p->al, nbytes, &s);
    if (st != NULL) {
        return st;
    }
    p->owned[p->n_owned++] = s;
    *data = em_storage_data(s);
    return NULL;
}

/* Keyed inputs become plan constants holding a copy of the caller's value. */
static ember_status *bind_keyed(em_plan *p, const unsigned char *need, const void *const *data)
{
    const em_graph *g = p->g;
    for (int i = 0; i < g->n_inputs; i++) {
        int v = g->inputs[i];
        em_plan_value *pv = &p->vals[v];
        if (!need[v]) {
            continue;
        }
        if (data == NULL || data[i] == NULL) {
            return em_status_new(EMBER_ERR_STATE,
                                 "input %d '%s' decides output shapes by its value: planning "
                                 "needs the value (run the model instead of preparing it)",
                                 i, g->values[v].name);
        }
        if (!em_tensor_nbytes_checked(&pv->t, &pv->bytes)) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "input %d '%s' is too large", i,
                                 g->values[v].name);
        }
        void *copy = NULL;
        ember_status *st = own_bytes(p, pv->bytes, &copy);
        if (st != NULL) {
            return st;
        }
        memcpy(copy, data[i], pv->bytes);
        pv->t.data = copy;
        pv->loc = EM_LOC_CONST;
    }
    return NULL;
}

/* Widened half weights (planner.h): wide_owned[v] is the p->owned index of value v's widened
 * copy (-1: none), wide_left[v] its readers not planned yet; wide_keep[v] is set when one of
 * them did not pack it. After node ni's kernel is chosen, a copy whose readers have all
 * packed it is freed. */
typedef struct wide_track {
    int *owned;
    int *left;
    unsigned char *keep;
    em_plan_half_fn *half; /* em_plan_build_ex's */
    void *half_ctx;
} wide_track;

static void wide_after_prepare(em_plan *p, int ni, uint64_t packed_in, wide_track *w)
{
    const em_node *n = &p->g->nodes[ni];
    for (int i = 0; i < n->n_in; i++) {
        int v = n->in[i];
        if (v < 0 || w->owned[v] < 0) {
            continue;
        }
        if (i >= 64 || !(packed_in >> i & 1)) {
            w->keep[v] = 1;
        }
        if (--w->left[v] == 0 && !w->keep[v]) {
            if (p->shared != NULL) { /* packed under the initializer's key: kernel.h */
                int h = p->g->nodes[p->g->values[v].producer].in[0];
                p->half_packed[p->n_half_packed++] = h;
                if (w->half != NULL && w->half(w->half_ctx, h)) {
                    p->vals[h].t.data = NULL;
                }
            }
            em_pack_cache_forget(p->packs, p->vals[v].t.data);
            em_storage_release(p->owned[w->owned[v]]);
            p->owned[w->owned[v]] = NULL;
            p->vals[v].t.data = NULL; /* every reader runs from its pack */
            w->owned[v] = -1;
        }
    }
}

/* Executes node ni now if its inputs are known (planner.h); its outputs become constants. */
static ember_status *maybe_fold(em_plan *p, int ni, const unsigned char *need, size_t scratch,
                                const plan_tmp *tmp)
{
    const em_node *n = &p->g->nodes[ni];
    em_plan_node *pn = &p->nodes[ni];
    unsigned flags = em_op_info_of(n->op)->flags;
    bool shape_only = (flags & EM_OPF_SHAPE_ONLY) != 0, needed = false;
    size_t out_bytes = 0;
    em_tensor *tin = tmp->tin, *tout = tmp->tout;
    if (flags & EM_OPF_NONDET) {
        return NULL;
    }
    for (int i = 0; i < n->n_in; i++) {
        memset(&tin[i], 0, sizeof tin[i]);
        if (n->in[i] < 0) {
            continue;
        }
        if (p->vals[n->in[i]].loc != EM_LOC_CONST && !shape_only) {
            return NULL;
        }
        tin[i] = p->vals[n->in[i]].t;
        if (p->vals[n->in[i]].loc != EM_LOC_CONST) {
            tin[i].data = NULL; /* a shape-only kernel reads dims, never data */
        }
    }
    for (int o = 0; o < n->n_out; o++) {
        needed = needed || need[n->out[o]];
        out_bytes += p->vals[n->out[o]].bytes;
    }
    if (!needed && !shape_only && out_bytes > EM_FOLD_MAX_BYTES && !widens_half_weight(p->g, ni)) {
        return NULL;
    }
    for (int o = 0; o < n->n_out; o++) {
        em_plan_value *pv = &p->vals[n->out[o]];
        tout[o] = pv->t;
        ember_status *st = own_bytes(p, pv->bytes, &tout[o].data);
        if (st != NULL) {
            return st;
        }
    }
    void *scr = NULL;
    if (scratch > 0 && (scr = em_aligned_alloc(p->al, scratch)) == NULL) {
        return em_status_oom();
    }
    em_kctx kc = {NULL, scr};
    if (widens_half_weight(p->g, ni) && tin[0].data == NULL) {
        /* the model dropped the half bytes once packed (planner.h): widened from the packs */
        const void *key = &p->g->values[n->in[0]];
        if (!em_pack_cache_unpack(p->shared, key, out_bytes, tout[0].data)) {
            em_aligned_free(p->al, scr);
            return em_status_new(EMBER_ERR_INTERNAL,
                                 "node '%s': weight '%s' was dropped and no pack gives it back",
                                 n->name, p->g->values[n->in[0]].name);
        }
    } else {
        pn->k->run(pn->state, tin, tout, &kc);
    }
    em_aligned_free(p->al, scr);
    for (int o = 0; o < n->n_out; o++) {
        em_plan_value *pv = &p->vals[n->out[o]];
        pv->t.data = tout[o].data;
        pv->loc = EM_LOC_CONST;
    }
    pn->folded = true;
    return NULL;
}

static ember_status *plan_values(em_plan *p, const int64_t *const *shapes, const int *ranks)
{
    const em_graph *g = p->g;
    for (int i = 0; i < g->n_values; i++) {
        const em_value *v = &g->values[i];
        em_plan_value *pv = &p->vals[i];
        pv->buf = -1;
        pv->first = v->producer;
        pv->last = v->producer;
        if (v->kind == EM_VAL_INITIALIZER) {
            pv->t = v->init;
            pv->loc = EM_LOC_CONST;
            pv->bytes = em_tensor_nbytes(&v->init);
            pv->first = pv->last = -1;
        } else if (v->kind == EM_VAL_INTERMEDIATE) {
            pv->loc = EM_LOC_ARENA;
        }
    }
    ember_status *st = bind_inputs(p, shapes, ranks);
    if (st != NULL) {
        return st;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        em_plan_value *pv = &p->vals[g->outputs[i]];
        if (pv->loc == EM_LOC_ARENA) {
            pv->loc = EM_LOC_OUTPUT;
            pv->index = i;
        }
    }
    return NULL;
}

ember_status *em_plan_build(const em_graph *g, const ember_allocator *al, uint64_t isa,
                            int n_threads, em_pack_cache *shared, const int64_t *const *shapes,
                            const int *ranks, const void *const *data, int n_inputs,
                            em_plan **out)
{
    return em_plan_build_ex(g, al, isa, n_threads, shared, shapes, ranks, data, n_inputs, NULL,
                            NULL, out);
}

ember_status *em_plan_build_ex(const em_graph *g, const ember_allocator *al, uint64_t isa,
                               int n_threads, em_pack_cache *shared, const int64_t *const *shapes,
                               const int *ranks, const void *const *data, int n_inputs,
                               em_plan_half_fn *half, void *half_ctx, em_plan **out)
{
    ember_status *st = NULL;
    em_plan *p = NULL;
    size_t *scratch = NULL;
    unsigned char *need = NULL;
    plan_tmp tmp = {0};
    wide_track wide = {0};
    wide.half = half;
    wide.half_ctx = half_ctx;
    uint64_t packed_in = 0;
    int max_in = 1, max_out = 1;
    *out = NULL;
    if (n_inputs != g->n_inputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "model has %d inputs, %d were given",
                             g->n_inputs, n_inputs);
    }
    p = em_calloc(al, 1, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    p->al = al;
    p->g = g;
    p->shared = shared;
    p->n_inputs = n_inputs;
    p->n_values = g->n_values;
    p->n_nodes = g->n_nodes;
    p->sig_len = (size_t)n_inputs;
    for (int i = 0; i < n_inputs; i++) {
        p->sig_len += ranks[i] > 0 ? (size_t)ranks[i] : 0;
    }
    p->sig = em_malloc(al, sizeof(int64_t) * (p->sig_len ? p->sig_len : 1));
    p->vals = em_calloc(al, (size_t)g->n_values + 1, sizeof *p->vals);
    p->nodes = em_calloc(al, (size_t)g->n_nodes + 1, sizeof *p->nodes);
    p->bufs = em_calloc(al, 2 * (size_t)g->n_values + (size_t)g->n_nodes + 1, sizeof *p->bufs);
    scratch = em_calloc(al, (size_t)g->n_nodes + 1, sizeof *scratch);
    need = em_calloc(al, (size_t)g->n_values + 1, 1);
    for (int ni = 0; ni < g->n_nodes; ni++) {
        max_in = g->nodes[ni].n_in > max_in ? g->nodes[ni].n_in : max_in;
        max_out = g->nodes[ni].n_out > max_out ? g->nodes[ni].n_out : max_out;
    }
    tmp.sin = em_malloc(al, sizeof *tmp.sin * (size_t)max_in);
    tmp.sout = em_malloc(al, sizeof *tmp.sout * (size_t)max_out);
    tmp.tin = em_malloc(al, sizeof *tmp.tin * (size_t)max_in);
    tmp.tout = em_malloc(al, sizeof *tmp.tout * (size_t)max_out);
    tmp.key_src = em_calloc(al, (size_t)max_in, sizeof *tmp.key_src);
    p->half_packed = em_malloc(al, sizeof *p->half_packed * ((size_t)g->n_values + 1));
    wide.owned = em_malloc(al, sizeof *wide.owned * ((size_t)g->n_values + 1));
    wide.left = em_calloc(al, (size_t)g->n_values + 1, sizeof *wide.left);
    wide.keep = em_calloc(al, (size_t)g->n_values + 1, 1);
    if (p->sig == NULL || p->vals == NULL || p->nodes == NULL || p->bufs == NULL ||
        scratch == NULL || need == NULL || tmp.sin == NULL || tmp.sout == NULL || tmp.tin == NULL ||
        tmp.tout == NULL || tmp.key_src == NULL || p->half_packed == NULL || wide.owned == NULL || wide.left == NULL || wide.keep == NULL) {
        st = em_status_oom();
        goto fail;
    }
    EMBER_TRY(em_pack_cache_new(al, &p->packs));
    for (int i = 0, k = 0; i < n_inputs; i++) {
        p->sig[k++] = ranks[i];
        for (int d = 0; d < ranks[i] && ranks[i] <= EM_MAX_RANK; d++) {
            p->sig[k++] = shapes[i][d];
        }
    }
    EMBER_TRY(plan_values(p, shapes, ranks));
    mark_needed(g, need);
    EMBER_TRY(bind_keyed(p, need, data));
    for (int v = 0; v < g->n_values; v++) {
        wide.owned[v] = -1;
    }
    for (int ni = 0; ni < g->n_nodes; ni++) { /* readers of widened half weights */
        const em_node *n = &g->nodes[ni];
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] >= 0 && g->values[n->in[i]].producer >= 0 &&
                widens_half_weight(g, g->values[n->in[i]].producer)) {
                wide.left[n->in[i]]++;
            }
        }
    }
    for (int i = 0; i < g->n_outputs; i++) { /* an output is read by the caller: kept */
        wide.keep[g->outputs[i]] = 1;
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        p->nodes[ni].node = n;
        p->nodes[ni].scratch_buf = -1;
        p->nodes[ni].in_base = p->n_tensors_in;
        p->nodes[ni].out_base = p->n_tensors_out;
        p->n_tensors_in += n->n_in;
        p->n_tensors_out += n->n_out;
        EMBER_TRY(infer_concrete(p, ni, &tmp));
        EMBER_TRY(choose_kernel(p, ni, isa, n_threads, shared, &scratch[ni], &tmp, &packed_in));
        EMBER_TRY(maybe_fold(p, ni, need, scratch[ni], &tmp));
        if (p->nodes[ni].folded) {
            scratch[ni] = 0;
        }
        wide_after_prepare(p, ni, packed_in, &wide);
        if (p->nodes[ni].folded && widens_half_weight(g, ni) && wide.left[n->out[0]] > 0) {
            wide.owned[n->out[0]] = p->n_owned - 1; /* its one output, just allocated */
        }
    }
    for (int i = 0; i < g->n_values; i++) {
        if (p->vals[i].loc == EM_LOC_ARENA) {
            p->naive_bytes += p->vals[i].bytes;
        }
    }
    EMBER_TRY(assign_buffers(p, scratch));
    EMBER_TRY(place_buffers(p));
    *out = p;
    p = NULL;
fail:
    em_free(al, scratch);
    em_free(al, need);
    em_free(al, wide.owned);
    em_free(al, wide.left);
    em_free(al, wide.keep);
    em_free(al, tmp.sin);
    em_free(al, tmp.sout);
    em_free(al, tmp.tin);
    em_free(al, tmp.tout);
    em_free(al, tmp.key_src);
    em_plan_destroy(p);
    return st;
}

void em_plan_destroy(em_plan *p)
{
    if (p == NULL) {
        return;
    }
    for (int i = 0; p->nodes != NULL && i < p->n_nodes; i++) {
        em_plan_node *pn = &p->nodes[i];
        if (pn->state != NULL) {
            if (pn->k->release != NULL) {
                pn->k->release(p->al, pn->state);
            } else {
                em_free(p->al, pn->state);
            }
        }
    }
    em_pack_cache_destroy(p->packs); /* after the states, which released their packs */
    for (int i = 0; i < p->n_owned; i++) {
        em_storage_release(p->owned[i]);
    }
    em_free(p->al, p->owned);
    em_free(p->al, p->half_packed);
    em_free(p->al, p->sig);
    em_free(p->al, p->vals);
    em_free(p->al, p->nodes);
    em_free(p->al, p->bufs);
    em_free(p->al, p);
}

bool em_plan_matches(const em_plan *p, const int64_t *const *shapes, const int *ranks,
                     const void *const *data, int n_inputs)
{
    if (n_inputs != p->n_inputs) {
        return false;
    }
    size_t k = 0;
    for (int i = 0; i < n_inputs; i++) {
        if (k >= p->sig_len || p->sig[k++] != ranks[i]) {
            return false;
        }
        for (int d = 0; d < ranks[i]; d++) {
            if (k >= p->sig_len || p->sig[k++] != shapes[i][d]) {
                return false;
            }
        }
    }
    if (k != p->sig_len) {
        return false;
    }
    for (int i = 0; i < n_inputs; i++) { /* keyed inputs: the values must match too */
        const em_plan_value *pv = &p->vals[p->g->inputs[i]];
        if (pv->loc == EM_LOC_CONST &&
            (data == NULL || data[i] == NULL || memcmp(data[i], pv->t.data, pv->bytes) != 0)) {
            return false;
        }
    }
    return true;
}

ember_status *em_plan_to_text(const em_plan *p, char **text)
{
    em_strbuf sb;
    char shp[160];
    em_strbuf_init(&sb, p->al);
    em_strbuf_printf(&sb, "memory plan: arena %zu bytes, intermediates %zu bytes (naive sum), "
                          "%d buffers, reuse %.2fx\n",
                     p->arena_bytes, p->naive_bytes, p->n_bufs,
                     p->arena_bytes ? (double)p->naive_bytes / (double)p->arena_bytes : 0.0);
    em_strbuf_printf(&sb, "%-5s %-24s %-22s %-28s %10s %10s %s\n", "node", "op", "kernel",
                     "value", "bytes", "offset", "life");
    for (int ni = 0; ni < p->n_nodes; ni++) {
        const em_plan_node *pn = &p->nodes[ni];
        for (int o = 0; o < pn->node->n_out; o++) {
            int vi = pn->node->out[o];
            const em_plan_value *pv = &p->vals[vi];
            em_tensor_shape_str(&pv->t, shp, sizeof shp);
            char where[32];
            if (pv->loc == EM_LOC_ARENA) {
                snprintf(where, sizeof where, "%zu", p->bufs[pv->buf].offset + pv->sub);
            } else if (pv->loc == EM_LOC_CONST) {
                snprintf(where, sizeof where, "folded");
            } else {
                snprintf(where, sizeof where, "output%d", pv->index);
            }
            em_strbuf_printf(&sb, "%-5d %-24s %-22s %-28s %10zu %10s [%d,%d] %s\n", ni,
                             o == 0 ? em_op_name(pn->node->op) : "",
                             o != 0 ? "" : pn->in_place ? "(in place)" : pn->k->name,
                             p->g->values[vi].name, pv->bytes, where, pv->first, pv->last, shp);
        }
        if (pn->scratch_buf >= 0) {
            const em_plan_buf *b = &p->bufs[pn->scratch_buf];
            em_strbuf_printf(&sb, "%-5d %-24s %-22s %-28s %10zu %10zu [%d,%d]\n", ni, "", "",
                             "(scratch)", b->bytes, b->offset, ni, ni);
        }
    }
    *text = em_strbuf_take(&sb);
    return *text == NULL ? em_status_oom() : NULL;
}
