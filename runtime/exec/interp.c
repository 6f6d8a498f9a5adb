/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter (interp.h): graphs, kernel nodes and control flow. */
#include "exec/interp_ops.h"

#include "core/alloc.h"
#include "plan/kernel.h"
#include "plan/planner.h"
#include "shape/shape.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <limits.h>
#include <string.h>

bool em_rv_scalar_i64(const em_rv *v, int64_t *out)
{
    if (v->kind != EM_RV_TENSOR || em_tensor_numel(&v->t) != 1) {
        return false;
    }
    switch (v->t.dtype) {
    case EMBER_DTYPE_I64: *out = *(const int64_t *)v->t.data; return true;
    case EMBER_DTYPE_I32: *out = *(const int32_t *)v->t.data; return true;
    case EMBER_DTYPE_BOOL:
    case EMBER_DTYPE_U8: *out = *(const uint8_t *)v->t.data; return true;
    default: return false;
    }
}

/* ---- graphs ---- */

typedef struct frame {
    const em_interp *it;
    const em_graph *g;
    em_rv *env;
} frame;

static const char *kind_name(em_rv_kind k)
{
    switch (k) {
    case EM_RV_TENSOR: return "tensor";
    case EM_RV_SEQUENCE: return "sequence";
    case EM_RV_NONE: return "empty optional";
    default: return "missing value";
    }
}

static bool graph_needs_interp(const em_graph *g, int depth)
{
    for (int i = 0; i < g->n_inputs; i++) {
        if (g->values[g->inputs[i]].vt != EM_VT_TENSOR) {
            return true;
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        if (g->values[g->outputs[i]].vt != EM_VT_TENSOR) {
            return true;
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (em_op_info_of(n->op)->flags & (EM_OPF_INTERP | EM_OPF_DYNAMIC)) {
            return true;
        }
        for (int a = 0; a < n->n_attrs && depth < 64; a++) {
            if (n->attrs[a].type == EM_ATTR_GRAPH && n->attrs[a].g != NULL &&
                graph_needs_interp(n->attrs[a].g, depth + 1)) {
                return true;
            }
        }
    }
    return false;
}

bool em_graph_needs_interp(const em_graph *g)
{
    return graph_needs_interp(g, 0) || em_graph_has_strings(g);
}

/* Runs subgraph `sub` of node `n`: its first n_decl inputs from decl, the rest (values it reads
 * from the enclosing graph) bound by name from the frame. */
static ember_status *run_sub(const frame *f, const em_node *n, const em_graph *sub,
                             const em_rv *decl, int n_decl, em_rv *outs)
{
    const ember_allocator *al = f->it->al;
    if (sub->n_inputs < n_decl) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): the subgraph declares %d inputs, %d are needed",
                             n->name, em_op_name(n->op), sub->n_inputs, n_decl);
    }
    em_rv *ins = em_calloc(al, (size_t)sub->n_inputs + 1, sizeof *ins);
    if (ins == NULL) {
        return em_status_oom();
    }
    ember_status *st = NULL;
    for (int i = 0; i < sub->n_inputs && st == NULL; i++) {
        if (i < n_decl) {
            ins[i] = decl[i]; /* borrowed: not cleared below */
            continue;
        }
        const char *name = sub->values[sub->inputs[i]].name;
        int v = em_graph_find_value(f->g, name);
        if (v < 0 || f->env[v].kind == EM_RV_ABSENT) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL,
                               "node '%s' (%s): the subgraph reads '%s', which the enclosing "
                               "graph does not have at this point",
                               n->name, em_op_name(n->op), name);
        } else {
            st = em_rv_share(al, &f->env[v], &ins[i]);
        }
    }
    if (st == NULL) {
        st = em_interp_run(f->it, sub, ins, outs);
    }
    for (int i = n_decl; i < sub->n_inputs; i++) {
        em_rv_clear(al, &ins[i]);
    }
    em_free(al, ins);
    return st;
}

static const em_graph *graph_attr(const em_node *n, const char *name)
{
    const em_attr *a = em_node_attr(n, name);
    return a != NULL && a->type == EM_ATTR_GRAPH ? a->g : NULL;
}

/* ---- kernel nodes ---- */

typedef struct node_io {
    em_shape *sin, *sout;
    em_tensor *tin, *tout;
    em_storage **st;
} node_io;

static ember_status *kernel_outputs(const frame *f, const em_node *n, node_io *io)
{
    ember_status *st = em_shape_infer_node(n, io->sin, io->sout);
    if (st != NULL) {
        return st;
    }
    for (int o = 0; o < n->n_out; o++) {
        const em_shape *s = &io->sout[o];
        int64_t dims[EM_MAX_RANK];
        if (s->rank < 0 || !em_dtype_valid(s->dtype)) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "node '%s' (%s): output %d's shape could not be inferred",
                                 n->name, em_op_name(n->op), o);
        }
        for (int d = 0; d < s->rank; d++) {
            if (s->dims[d].v < 0) {
                return em_status_new(EMBER_ERR_UNSUPPORTED,
                                     "node '%s' (%s): output %d dim %d could not be inferred",
                                     n->name, em_op_name(n->op), o, d);
            }
            dims[d] = s->dims[d].v;
        }
        em_tensor_set_shape(&io->tout[o], s->dtype, dims, s->rank);
        size_t nbytes;
        if (!em_tensor_nbytes_checked(&io->tout[o], &nbytes)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): output %d is too large",
                                 n->name, em_op_name(n->op), o);
        }
        st = s->dtype == EMBER_DTYPE_STRING ? em_str_out_new(f->it->al, &io->tout[o], &io->st[o])
                                            : em_storage_new_owned(f->it->al, nbytes, &io->st[o]);
        if (st != NULL) {
            return st;
        }
    }
    return em_interp_str_check(n, io->tin, io->tout);
}

static ember_status *run_kernel_node(const frame *f, const em_node *n, node_io *io)
{
    const ember_allocator *al = f->it->al;
    for (int i = 0; i < n->n_in; i++) {
        const em_rv *v = n->in[i] >= 0 ? &f->env[n->in[i]] : NULL;
        memset(&io->tin[i], 0, sizeof io->tin[i]);
        memset(&io->sin[i], 0, sizeof io->sin[i]);
        io->sin[i].rank = -1;
        if (v == NULL || v->kind == EM_RV_NONE) {
            continue; /* absent optional input */
        }
        if (v->kind != EM_RV_TENSOR) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): input %d is a %s, the op needs a tensor",
                                 n->name, em_op_name(n->op), i, kind_name(v->kind));
        }
        io->tin[i] = v->t;
        io->sin[i].dtype = v->t.dtype;
        io->sin[i].rank = v->t.rank;
        for (int d = 0; d < v->t.rank; d++) {
            io->sin[i].dims[d] = em_dim_known(v->t.dims[d]);
        }
        io->sin[i].value = &io->tin[i];
    }
    ember_status *st = kernel_outputs(f, n, io);
    if (st != NULL) {
        return st;
    }
    const em_rv *src = n->n_in > 0 && n->in[0] >= 0 ? &f->env[n->in[0]] : NULL;
    bool alias = (em_op_info_of(n->op)->flags & EM_OPF_ALIAS) && n->n_out == 1 && src != NULL &&
                 src->kind == EM_RV_TENSOR &&
                 em_tensor_nbytes(&src->t) == em_tensor_nbytes(&io->tout[0]);
    if (alias) { /* a view: share the input's bytes */
        em_storage_release(io->st[0]);
        io->st[0] = em_storage_retain(src->s);
        io->tout[0].data = src->t.data;
        return NULL;
    }
    const em_kernel *k = NULL;
    void *state = NULL;
    size_t scratch = 0;
    for (int o = 0; o < n->n_out; o++) {
        io->tout[o].data = NULL; /* prepare sees no output bytes, as in planning */
    }
    st = em_kernel_pick(n, io->tin, io->tout, al, f->it->isa, em_threadpool_size(f->it->pool),
                        NULL, &k, &state, &scratch);
    if (st != NULL) {
        return st;
    }
    for (int o = 0; o < n->n_out; o++) {
        io->tout[o].data = em_storage_data(io->st[o]);
    }
    void *scr = scratch > 0 ? em_aligned_alloc(al, scratch) : NULL;
    if (scratch > 0 && scr == NULL) {
        st = em_status_oom();
    } else {
        em_kctx kc = {f->it->pool, scr};
        k->run(state, io->tin, io->tout, &kc);
        st = em_interp_str_finish(n, f->env, io->st, io->tout);
    }
    em_aligned_free(al, scr);
    if (state != NULL) {
        if (k->release != NULL) {
            k->release(al, state);
        } else {
            em_free(al, state);
        }
    }
    return st;
}

static ember_status *run_kernel(const frame *f, const em_node *n)
{
    const ember_allocator *al = f->it->al;
    int ni = n->n_in > 0 ? n->n_in : 1, no = n->n_out > 0 ? n->n_out : 1;
    node_io io;
    io.sin = em_calloc(al, (size_t)ni, sizeof *io.sin);
    io.sout = em_calloc(al, (size_t)no, sizeof *io.sout);
    io.tin = em_calloc(al, (size_t)ni, sizeof *io.tin);
    io.tout = em_calloc(al, (size_t)no, sizeof *io.tout);
    io.st = em_calloc(al, (size_t)no, sizeof *io.st);
    ember_status *st = NULL;
    if (io.sin == NULL || io.sout == NULL || io.tin == NULL || io.tout == NULL || io.st == NULL) {
        st = em_status_oom();
    } else {
        st = run_kernel_node(f, n, &io);
    }
    for (int o = 0; io.st != NULL && o < n->n_out; o++) {
        if (st == NULL) {
            em_rv *v = &f->env[n->out[o]];
            em_rv_clear(al, v);
            v->kind = EM_RV_TENSOR;
            v->t = io.tout[o];
            v->s = io.st[o];
        } else {
            em_storage_release(io.st[o]);
        }
    }
    em_free(al, io.sin);
    em_free(al, io.sout);
    em_free(al, io.tin);
    em_free(al, io.tout);
    em_free(al, io.st);
    return st;
}

/* ---- control flow ---- */

/* Input i of n, or NULL when the node has no such input or it is absent (""). */
static const em_rv *input_rv(const frame *f, const em_node *n, int i)
{
    return i < n->n_in && n->in[i] >= 0 ? &f->env[n->in[i]] : NULL;
}

static ember_status *missing(const em_node *n, int i)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): input %d is missing",
                         n->name, em_op_name(n->op), i);
}

static ember_status *run_if(const frame *f, const em_node *n)
{
    int64_t c;
    const em_rv *cond = input_rv(f, n, 0);
    if (cond == NULL || !em_rv_scalar_i64(cond, &c)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "node '%s' (If): the condition must be a one-element bool tensor",
                             n->name);
    }
    const em_graph *b = graph_attr(n, c ? "then_branch" : "else_branch");
    if (b == NULL || b->n_outputs != n->n_out) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (If): bad branch graph", n->name);
    }
    em_rv *outs = em_calloc(f->it->al, (size_t)n->n_out, sizeof *outs);
    if (outs == NULL) {
        return em_status_oom();
    }
    ember_status *st = run_sub(f, n, b, NULL, 0, outs);
    for (int o = 0; o < n->n_out; o++) {
        if (st == NULL) {
            em_rv_clear(f->it->al, &f->env[n->out[o]]);
            f->env[n->out[o]] = outs[o];
        } else {
            em_rv_clear(f->it->al, &outs[o]);
        }
    }
    em_free(f->it->al, outs);
    return st;
}

/* Per-output lists of the slices a Loop or Scan body produced. */
typedef struct slices {
    em_rv *v;
    int n, cap;
} slices;

static ember_status *slices_push(const ember_allocator *al, slices *s, em_rv *v)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        em_rv *nv = em_realloc(al, s->v, sizeof *nv * (size_t)cap);
        if (nv == NULL) {
            return em_status_oom();
        }
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = *v;
    memset(v, 0, sizeof *v);
    return NULL;
}

static void slices_free(const ember_allocator *al, slices *s, int n)
{
    for (int k = 0; s != NULL && k < n; k++) {
        for (int i = 0; i < s[k].n; i++) {
            em_rv_clear(al, &s[k].v[i]);
        }
        em_free(al, s[k].v);
    }
    em_free(al, s);
}

/* Stacks the slices of scan output k along `axis` (reversed when `reverse`); an empty list gives
 * a tensor of 0 along the axis, shaped like the body's declared output where it is known. */
static ember_status *stack_slices(const frame *f, const em_node *n, slices *s, int axis,
                                  bool reverse, const em_value *decl, em_rv *out)
{
    if (s->n == 0) {
        int64_t dims[EM_MAX_RANK] = {0};
        int rank = 1;
        if (decl->rank >= 0 && decl->rank < EM_MAX_RANK) {
            rank = decl->rank + 1;
            for (int d = 0; d < decl->rank; d++) {
                dims[d + 1] = decl->dims[d].v > 0 ? decl->dims[d].v : 0;
            }
        }
        return em_rv_new_tensor(f->it->al, decl->dtype, dims, rank, out);
    }
    if (reverse) {
        for (int i = 0, j = s->n - 1; i < j; i++, j--) {
            em_rv t = s->v[i];
            s->v[i] = s->v[j];
            s->v[j] = t;
        }
    }
    return em_rv_concat(f->it->al, s->v, s->n, axis, true, n->name, out);
}

static ember_status *run_loop(const frame *f, const em_node *n)
{
    const ember_allocator *al = f->it->al;
    const em_graph *b = graph_attr(n, "body");
    int nc = n->n_in - 2, ns = n->n_out - nc;
    int64_t max_trip = INT64_MAX, cond = 1;
    const em_rv *m_in = input_rv(f, n, 0), *c_in = input_rv(f, n, 1);
    bool has_m = m_in != NULL && m_in->kind == EM_RV_TENSOR;
    bool has_c = c_in != NULL && c_in->kind == EM_RV_TENSOR;
    if (b == NULL || nc < 0 || ns < 0 || b->n_outputs != 1 + nc + ns) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (Loop): bad body graph", n->name);
    }
    if ((has_m && !em_rv_scalar_i64(m_in, &max_trip)) ||
        (has_c && !em_rv_scalar_i64(c_in, &cond))) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "node '%s' (Loop): M and cond must be one-element tensors", n->name);
    }
    if (!has_m && !has_c) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (Loop): neither a trip count nor a condition: the loop "
                             "would never end", n->name);
    }
    em_rv *state = em_calloc(al, (size_t)nc + 2, sizeof *state);
    em_rv *outs = em_calloc(al, (size_t)b->n_outputs, sizeof *outs);
    slices *sc = em_calloc(al, (size_t)ns + 1, sizeof *sc);
    ember_status *st = state == NULL || outs == NULL || sc == NULL ? em_status_oom() : NULL;
    for (int i = 0; i < nc && st == NULL; i++) {
        const em_rv *v = input_rv(f, n, 2 + i);
        st = v != NULL ? em_rv_share(al, v, &state[2 + i]) : missing(n, 2 + i);
    }
    if (st == NULL) {
        st = em_rv_new_tensor(al, EMBER_DTYPE_I64, NULL, 0, &state[0]);
    }
    if (st == NULL) {
        st = em_rv_new_tensor(al, EMBER_DTYPE_BOOL, NULL, 0, &state[1]);
    }
    for (int64_t i = 0; st == NULL && i < max_trip && cond; i++) {
        *(int64_t *)state[0].t.data = i;
        *(uint8_t *)state[1].t.data = 1;
        st = run_sub(f, n, b, state, 2 + nc, outs);
        if (st == NULL && !em_rv_scalar_i64(&outs[0], &cond)) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL,
                               "node '%s' (Loop): the body's condition output is not a "
                               "one-element tensor", n->name);
        }
        for (int k = 0; k < nc && st == NULL; k++) {
            em_rv_clear(al, &state[2 + k]);
            state[2 + k] = outs[1 + k];
            memset(&outs[1 + k], 0, sizeof outs[1 + k]);
        }
        for (int k = 0; k < ns && st == NULL; k++) {
            if (outs[1 + nc + k].kind != EM_RV_TENSOR) {
                st = em_status_new(EMBER_ERR_INVALID_MODEL,
                                   "node '%s' (Loop): scan output %d is a %s, not a tensor",
                                   n->name, k, kind_name(outs[1 + nc + k].kind));
            } else {
                st = slices_push(al, &sc[k], &outs[1 + nc + k]);
            }
        }
        for (int k = 0; k < b->n_outputs; k++) {
            em_rv_clear(al, &outs[k]);
        }
        cond = !has_c || cond; /* without a condition input, only M ends the loop */
    }
    for (int k = 0; k < nc && st == NULL; k++) {
        em_rv_clear(al, &f->env[n->out[k]]);
        f->env[n->out[k]] = state[2 + k];
        memset(&state[2 + k], 0, sizeof state[2 + k]);
    }
    for (int k = 0; k < ns && st == NULL; k++) {
        const em_value *decl = &b->values[b->outputs[1 + nc + k]];
        em_rv_clear(al, &f->env[n->out[nc + k]]);
        st = stack_slices(f, n, &sc[k], 0, false, decl, &f->env[n->out[nc + k]]);
    }
    for (int i = 0; state != NULL && i < nc + 2; i++) {
        em_rv_clear(al, &state[i]);
    }
    em_free(al, state);
    em_free(al, outs);
    slices_free(al, sc, ns);
    return st;
}

/* Scan (opset 9 and later) over states st[0..n_state) and scan inputs xs[0..m); results into
 * res[0..n_state + n_scan). */
typedef struct scan_args {
    int n_state, m, n_scan;
    const int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
    int64_t n_in_axes, n_in_dirs, n_out_axes, n_out_dirs;
} scan_args;

static int64_t attr_at(const int64_t *v, int64_t n, int i)
{
    return v != NULL && i < n ? v[i] : 0;
}

static ember_status *scan_core(const frame *f, const em_node *n, const em_graph *b,
                               const scan_args *a, const em_rv *st0, const em_rv *xs, em_rv *res)
{
    const ember_allocator *al = f->it->al;
    int nb = a->n_state + a->m;
    int64_t len = -1;
    for (int j = 0; j < a->m; j++) {
        int64_t ax = attr_at(a->in_axes, a->n_in_axes, j);
        if (xs[j].kind != EM_RV_TENSOR) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "node '%s' (Scan): scan input %d is "
                                 "not a tensor", n->name, j);
        }
        ax = ax < 0 ? ax + xs[j].t.rank : ax;
        if (ax < 0 || ax >= xs[j].t.rank || (len >= 0 && xs[j].t.dims[ax] != len)) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "node '%s' (Scan): scan input %d: bad axis or a length that "
                                 "differs from the other scan inputs", n->name, j);
        }
        len = xs[j].t.dims[ax];
    }
    em_rv *bin = em_calloc(al, (size_t)nb + 1, sizeof *bin);
    em_rv *outs = em_calloc(al, (size_t)b->n_outputs + 1, sizeof *outs);
    slices *sc = em_calloc(al, (size_t)a->n_scan + 1, sizeof *sc);
    ember_status *st = bin == NULL || outs == NULL || sc == NULL ? em_status_oom() : NULL;
    for (int i = 0; i < a->n_state && st == NULL; i++) {
        st = em_rv_share(al, &st0[i], &bin[i]);
    }
    for (int64_t t = 0; t < len && st == NULL; t++) {
        for (int j = 0; j < a->m && st == NULL; j++) {
            int64_t ax = attr_at(a->in_axes, a->n_in_axes, j);
            ax = ax < 0 ? ax + xs[j].t.rank : ax;
            int64_t at = attr_at(a->in_dirs, a->n_in_dirs, j) ? len - 1 - t : t;
            em_rv_clear(al, &bin[a->n_state + j]);
            st = em_rv_slice_axis(al, &xs[j], (int)ax, at, 1, false, &bin[a->n_state + j]);
        }
        if (st == NULL) {
            st = run_sub(f, n, b, bin, nb, outs);
        }
        for (int i = 0; i < a->n_state && st == NULL; i++) {
            em_rv_clear(al, &bin[i]);
            bin[i] = outs[i];
            memset(&outs[i], 0, sizeof outs[i]);
        }
        for (int k = 0; k < a->n_scan && st == NULL; k++) {
            st = slices_push(al, &sc[k], &outs[a->n_state + k]);
        }
        for (int k = 0; k < b->n_outputs; k++) {
            em_rv_clear(al, &outs[k]);
        }
    }
    for (int i = 0; i < a->n_state && st == NULL; i++) {
        res[i] = bin[i];
        memset(&bin[i], 0, sizeof bin[i]);
    }
    for (int k = 0; k < a->n_scan && st == NULL; k++) {
        const em_value *decl = &b->values[b->outputs[a->n_state + k]];
        int r = sc[k].n > 0 ? sc[k].v[0].t.rank : (decl->rank > 0 ? decl->rank : 0);
        int64_t ax = attr_at(a->out_axes, a->n_out_axes, k);
        ax = ax < 0 ? ax + r + 1 : ax;
        if (ax < 0 || ax > r) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (Scan): scan_output_axes[%d] "
                               "is out of range", n->name, k);
            break;
        }
        st = stack_slices(f, n, &sc[k], (int)ax, attr_at(a->out_dirs, a->n_out_dirs, k) != 0,
                          decl, &res[a->n_state + k]);
    }
    for (int i = 0; bin != NULL && i < nb; i++) {
        em_rv_clear(al, &bin[i]);
    }
    em_free(al, bin);
    em_free(al, outs);
    slices_free(al, sc, a->n_scan);
    return st;
}

static ember_status *scan_args_read(const em_node *n, int n_state, scan_args *a)
{
    memset(a, 0, sizeof *a);
    a->n_state = n_state;
    a->m = (int)em_node_attr_int(n, "num_scan_inputs", 0);
    a->n_scan = n->n_out - n_state;
    a->n_in_axes = em_node_attr_ints(n, "scan_input_axes", &a->in_axes);
    a->n_in_dirs = em_node_attr_ints(n, "scan_input_directions", &a->in_dirs);
    if (a->n_in_dirs < 0) { /* opset 8 */
        a->n_in_dirs = em_node_attr_ints(n, "directions", &a->in_dirs);
    }
    a->n_out_axes = em_node_attr_ints(n, "scan_output_axes", &a->out_axes);
    a->n_out_dirs = em_node_attr_ints(n, "scan_output_directions", &a->out_dirs);
    if (a->n_state < 0) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (Scan): num_scan_inputs %d is more than its inputs",
                             n->name, a->m);
    }
    if (a->m < 1 || a->n_scan < 0) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (Scan): num_scan_inputs and the outputs do not match",
                             n->name);
    }
    return NULL;
}

/* Opset 8: input 0 is sequence_lens (ignored when absent; only full lengths are supported),
 * every other input has a leading batch axis, and the body runs per batch entry. */
static ember_status *run_scan8(const frame *f, const em_node *n, const em_graph *b)
{
    const ember_allocator *al = f->it->al;
    scan_args a;
    int n_state = n->n_in - 1 - (int)em_node_attr_int(n, "num_scan_inputs", 0);
    ember_status *st = scan_args_read(n, n_state, &a);
    if (st != NULL) {
        return st;
    }
    if (n->in[0] >= 0 && f->env[n->in[0]].kind == EM_RV_TENSOR) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "node '%s' (Scan, opset 8): sequence_lens is not supported",
                             n->name);
    }
    int nin = n->n_in - 1;
    const em_rv *x0 = n->in[1] >= 0 ? &f->env[n->in[1]] : NULL; /* n_in >= 2: scan_args_read */
    if (x0 == NULL || x0->kind != EM_RV_TENSOR || x0->t.rank < 1) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "node '%s' (Scan): inputs need a batch axis",
                             n->name);
    }
    int64_t batch = x0->t.dims[0];
    for (int i = 0; i < nin; i++) {
        const em_rv *x = n->in[1 + i] >= 0 ? &f->env[n->in[1 + i]] : NULL;
        if (x == NULL || x->kind != EM_RV_TENSOR || x->t.rank < 1 || x->t.dims[0] != batch) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "node '%s' (Scan): input %d has no batch axis of %lld", n->name,
                                 1 + i, (long long)batch);
        }
    }
    em_rv *in_b = em_calloc(al, (size_t)nin + 1, sizeof *in_b);
    slices *per = em_calloc(al, (size_t)n->n_out + 1, sizeof *per);
    em_rv *res = em_calloc(al, (size_t)n->n_out + 1, sizeof *res);
    st = in_b == NULL || per == NULL || res == NULL ? em_status_oom() : NULL;
    for (int64_t bi = 0; bi < batch && st == NULL; bi++) {
        for (int i = 0; i < nin && st == NULL; i++) {
            em_rv_clear(al, &in_b[i]);
            st = em_rv_slice_axis(al, &f->env[n->in[1 + i]], 0, bi, 1, false, &in_b[i]);
        }
        if (st == NULL) {
            st = scan_core(f, n, b, &a, in_b, in_b + n_state, res);
        }
        for (int o = 0; o < n->n_out && st == NULL; o++) {
            st = slices_push(al, &per[o], &res[o]);
        }
    }
    for (int o = 0; o < n->n_out && st == NULL; o++) {
        em_rv_clear(al, &f->env[n->out[o]]);
        st = em_rv_concat(al, per[o].v, per[o].n, 0, true, n->name, &f->env[n->out[o]]);
    }
    for (int i = 0; in_b != NULL && i < nin; i++) {
        em_rv_clear(al, &in_b[i]);
    }
    for (int o = 0; res != NULL && o < n->n_out; o++) {
        em_rv_clear(al, &res[o]);
    }
    em_free(al, in_b);
    em_free(al, res);
    slices_free(al, per, n->n_out);
    return st;
}

static ember_status *run_scan(const frame *f, const em_node *n)
{
    const ember_allocator *al = f->it->al;
    const em_graph *b = graph_attr(n, "body");
    if (b == NULL) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (Scan): no body", n->name);
    }
    if (em_node_attr_int(n, "ember_scan8", 0)) {
        return run_scan8(f, n, b);
    }
    scan_args a;
    int n_state = n->n_in - (int)em_node_attr_int(n, "num_scan_inputs", 0);
    ember_status *st = scan_args_read(n, n_state, &a);
    if (st != NULL) {
        return st;
    }
    em_rv *in = em_calloc(al, (size_t)n->n_in + 1, sizeof *in);
    em_rv *res = em_calloc(al, (size_t)n->n_out + 1, sizeof *res);
    st = in == NULL || res == NULL ? em_status_oom() : NULL;
    for (int i = 0; i < n->n_in && st == NULL; i++) {
        if (n->in[i] < 0) {
            st = missing(n, i);
            break;
        }
        in[i] = f->env[n->in[i]]; /* borrowed */
    }
    if (st == NULL) {
        st = scan_core(f, n, b, &a, in, in + n_state, res);
    }
    for (int o = 0; o < n->n_out && st == NULL; o++) {
        em_rv_clear(al, &f->env[n->out[o]]);
        f->env[n->out[o]] = res[o];
        memset(&res[o], 0, sizeof res[o]);
    }
    for (int o = 0; res != NULL && o < n->n_out; o++) {
        em_rv_clear(al, &res[o]);
    }
    em_free(al, in);
    em_free(al, res);
    return st;
}

static ember_status *run_seqmap(const frame *f, const em_node *n)
{
    const ember_allocator *al = f->it->al;
    const em_graph *b = graph_attr(n, "body");
    const em_rv *s0 = input_rv(f, n, 0);
    if (b == NULL || b->n_outputs != n->n_out) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (SequenceMap): bad body",
                             n->name);
    }
    for (int j = 0; j < n->n_in; j++) {
        if (input_rv(f, n, j) == NULL) {
            return missing(n, j);
        }
    }
    if (s0->kind != EM_RV_SEQUENCE) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "node '%s' (SequenceMap): input 0 is a %s, not a sequence", n->name,
                             kind_name(s0->kind));
    }
    em_rv *bin = em_calloc(al, (size_t)n->n_in, sizeof *bin);
    em_rv *outs = em_calloc(al, (size_t)n->n_out, sizeof *outs);
    slices *res = em_calloc(al, (size_t)n->n_out, sizeof *res);
    ember_status *st = bin == NULL || outs == NULL || res == NULL ? em_status_oom() : NULL;
    for (int i = 0; i < s0->n && st == NULL; i++) {
        for (int j = 0; j < n->n_in && st == NULL; j++) {
            const em_rv *v = &f->env[n->in[j]];
            if (v->kind == EM_RV_SEQUENCE && v->n != s0->n) {
                st = em_status_new(EMBER_ERR_INVALID_ARG, "node '%s' (SequenceMap): input %d "
                                   "has %d items, input 0 has %d", n->name, j, v->n, s0->n);
            } else {
                bin[j] = v->kind == EM_RV_SEQUENCE ? v->items[i] : *v; /* borrowed */
            }
        }
        if (st == NULL) {
            st = run_sub(f, n, b, bin, n->n_in, outs);
        }
        for (int o = 0; o < n->n_out && st == NULL; o++) {
            st = slices_push(al, &res[o], &outs[o]);
        }
        for (int o = 0; o < n->n_out; o++) {
            em_rv_clear(al, &outs[o]);
        }
    }
    for (int o = 0; o < n->n_out && st == NULL; o++) {
        em_rv *v = &f->env[n->out[o]];
        em_rv_clear(al, v);
        v->kind = EM_RV_SEQUENCE;
        v->elem = b->values[b->outputs[o]].dtype;
        v->items = res[o].v;
        v->n = res[o].n;
        res[o].v = NULL;
        res[o].n = 0;
    }
    em_free(al, bin);
    em_free(al, outs);
    slices_free(al, res, n->n_out);
    return st;
}

static ember_status *run_builtin(const frame *f, const em_node *n)
{
    switch (n->op) {
    case EM_OP_IF: return run_if(f, n);
    case EM_OP_LOOP: return run_loop(f, n);
    case EM_OP_SCAN: return run_scan(f, n);
    case EM_OP_SEQUENCEMAP: return run_seqmap(f, n);
    default: break;
    }
    const ember_allocator *al = f->it->al;
    em_rv *in = em_calloc(al, (size_t)n->n_in + 1, sizeof *in);
    if (in == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0) {
            in[i] = f->env[n->in[i]]; /* borrowed */
        }
    }
    em_rv out = {0};
    ember_status *st = em_interp_seq_op(f->it, n, in, &out);
    em_free(al, in);
    if (st == NULL) {
        em_rv_clear(al, &f->env[n->out[0]]);
        f->env[n->out[0]] = out;
    }
    return st;
}

static ember_status *run_node(const frame *f, int ni)
{
    const em_node *n = &f->g->nodes[ni];
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0 && f->env[n->in[i]].kind == EM_RV_ABSENT) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): input %d '%s' has no value", n->name,
                                 em_op_name(n->op), i, f->g->values[n->in[i]].name);
        }
    }
    if (em_op_info_of(n->op)->flags & EM_OPF_INTERP) {
        return run_builtin(f, n);
    }
    if (n->op == EM_OP_IDENTITY && n->in[0] >= 0 && f->env[n->in[0]].kind != EM_RV_TENSOR) {
        em_rv_clear(f->it->al, &f->env[n->out[0]]);
        return em_rv_share(f->it->al, &f->env[n->in[0]], &f->env[n->out[0]]);
    }
    return run_kernel(f, n);
}

/* last[v]: the last node reading value v (subgraph captures included); n_nodes for outputs. */
static void last_uses(const em_graph *g, int *last)
{
    for (int v = 0; v < g->n_values; v++) {
        last[v] = -1;
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] >= 0) {
                last[n->in[i]] = ni;
            }
        }
        for (int a = 0; a < n->n_attrs; a++) {
            const em_graph *sub = n->attrs[a].type == EM_ATTR_GRAPH ? n->attrs[a].g : NULL;
            for (int i = 0; sub != NULL && i < sub->n_inputs; i++) {
                int v = em_graph_find_value(g, sub->values[sub->inputs[i]].name);
                if (v >= 0) {
                    last[v] = ni;
                }
            }
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        last[g->outputs[i]] = g->n_nodes;
    }
}

ember_status *em_interp_run(const em_interp *it, const em_graph *g, const em_rv *inputs,
                            em_rv *outputs)
{
    const ember_allocator *al = it->al;
    frame f = {it, g, NULL};
    int *last = em_malloc(al, sizeof *last * ((size_t)g->n_values + 1));
    f.env = em_calloc(al, (size_t)g->n_values + 1, sizeof *f.env);
    ember_status *st = last == NULL || f.env == NULL ? em_status_oom() : NULL;
    if (st == NULL) {
        last_uses(g, last);
    }
    for (int i = 0; i < g->n_inputs && st == NULL; i++) {
        st = em_rv_share(al, &inputs[i], &f.env[g->inputs[i]]);
    }
    for (int v = 0; v < g->n_values && st == NULL; v++) {
        const em_value *val = &g->values[v];
        if (val->kind == EM_VAL_INITIALIZER) {
            f.env[v].kind = EM_RV_TENSOR;
            f.env[v].t = val->init;
            f.env[v].s = val->storage != NULL ? em_storage_retain(val->storage) : NULL;
        }
    }
    for (int ni = 0; ni < g->n_nodes && st == NULL; ni++) {
        st = run_node(&f, ni);
        const em_node *n = &g->nodes[ni];
        for (int i = 0; i < n->n_in && st == NULL; i++) {
            if (n->in[i] >= 0 && last[n->in[i]] == ni) {
                em_rv_clear(al, &f.env[n->in[i]]);
            }
        }
    }
    for (int i = 0; i < g->n_outputs && st == NULL; i++) {
        const em_rv *v = &f.env[g->outputs[i]];
        if (v->kind == EM_RV_ABSENT) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "graph output '%s' was not computed",
                               g->values[g->outputs[i]].name);
        } else {
            st = em_rv_share(al, v, &outputs[i]);
        }
    }
    if (st != NULL) {
        for (int i = 0; i < g->n_outputs; i++) {
            em_rv_clear(al, &outputs[i]);
        }
    }
    for (int v = 0; f.env != NULL && v < g->n_values; v++) {
        em_rv_clear(al, &f.env[v]);
    }
    em_free(al, f.env);
    em_free(al, last);
    return st;
}
