/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass driver (passes.h): context helpers, constant folding, dead-code elimination and
 * the final compaction (dead nodes and unreferenced values removed, indices renumbered).
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

em_passes_options em_passes_level(ember_graph_opt level)
{
    bool basic = level == EMBER_GRAPH_OPT_BASIC || level == EMBER_GRAPH_OPT_ALL;
    em_passes_options o = {basic || level == EMBER_GRAPH_OPT_FOLD, basic,
                           level == EMBER_GRAPH_OPT_ALL, 0, NULL};
    return o;
}

/* ---- context helpers ---- */

bool em_pass_private(const em_pctx *c, int v) { return em_pass_only_read(c, v, 1); }

int em_pass_reader(const em_pctx *c, int v, int after)
{
    for (int ni = after + 1; ni < c->g->n_nodes; ni++) {
        const em_node *n = &c->g->nodes[ni];
        for (int i = 0; !c->dead[ni] && i < n->n_in; i++) {
            if (n->in[i] == v) {
                return ni;
            }
        }
    }
    return -1;
}

void em_pass_kill(em_pctx *c, int ni)
{
    em_node *n = &c->g->nodes[ni];
    if (c->dead[ni]) {
        return;
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0) {
            c->nread[n->in[i]]--;
        }
    }
    em_node_clear(c->g->al, n);
    c->dead[ni] = true;
}

void em_pass_move(em_pctx *c, int from, int to)
{
    if (from == to) {
        return;
    }
    em_pass_kill(c, to);
    c->g->nodes[to] = c->g->nodes[from];
    memset(&c->g->nodes[from], 0, sizeof c->g->nodes[from]);
    c->dead[to] = false;
    c->dead[from] = true;
}

void em_pass_set_input(em_pctx *c, int ni, int i, int v)
{
    em_node *n = &c->g->nodes[ni];
    if (n->in[i] >= 0) {
        c->nread[n->in[i]]--;
    }
    n->in[i] = v;
    if (v >= 0) {
        c->nread[v]++;
    }
}

ember_status *em_pass_push_input(em_pctx *c, int ni, int v)
{
    em_node *n = &c->g->nodes[ni];
    int *in = em_realloc(c->g->al, n->in, sizeof *in * (size_t)(n->n_in + 1));
    if (in == NULL) {
        return em_status_oom();
    }
    n->in = in;
    n->in[n->n_in++] = -1;
    em_pass_set_input(c, ni, n->n_in - 1, v);
    return NULL;
}

ember_status *em_pass_sync(em_pctx *c)
{
    if (c->g->n_nodes > c->cap_nodes) {
        bool *d = em_realloc(c->g->al, c->dead, sizeof *d * (size_t)c->g->n_nodes);
        if (d == NULL) {
            return em_status_oom();
        }
        memset(d + c->cap_nodes, 0, sizeof *d * (size_t)(c->g->n_nodes - c->cap_nodes));
        c->dead = d;
        c->cap_nodes = c->g->n_nodes;
    }
    if (c->g->n_values > c->cap_values) {
        int *r = em_realloc(c->g->al, c->nread, sizeof *r * (size_t)c->g->n_values);
        if (r == NULL) {
            return em_status_oom();
        }
        memset(r + c->cap_values, 0, sizeof *r * (size_t)(c->g->n_values - c->cap_values));
        c->nread = r;
        c->cap_values = c->g->n_values;
    }
    return NULL;
}

void em_pass_unique_name(const em_graph *g, const char *base, const char *suffix, char *buf,
                         size_t cap)
{
    /* base is cut so that the suffix and ".k" always fit: a name cut at cap would read the same
     * for every k and the loop would not end */
    int keep = cap > 112 ? (int)(cap - 112) : 0;
    snprintf(buf, cap, "%.*s%s", keep, base, suffix);
    for (int k = 1; em_graph_find_value(g, buf) >= 0; k++) {
        snprintf(buf, cap, "%.*s%s.%d", keep, base, suffix, k);
    }
}

ember_status *em_pass_add_node_into(em_pctx *c, em_op op, const char *name, const int *in, int n_in,
                                    int to, int *out)
{
    em_graph *g = c->g;
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", name);
    const char *outs[1] = {tmp};
    EM_PASS_TRY(em_graph_add_node(g, op, name, in, n_in, outs, 1, out));
    g->nodes[*out].out[0] = to; /* the temporary output value is left unreferenced */
    return em_pass_sync(c);
}

ember_status *em_pass_place_new(em_pctx *c, int n_old, const int *after)
{
    em_graph *g = c->g;
    int n = g->n_nodes;
    em_node *nodes = em_malloc(g->al, sizeof *nodes * (size_t)n);
    bool *dead = em_malloc(g->al, sizeof *dead * (size_t)n);
    if (nodes == NULL || dead == NULL) {
        em_free(g->al, nodes);
        em_free(g->al, dead);
        return em_status_oom();
    }
    int k = 0;
    for (int i = -1; i < n_old; i++) {
        if (i >= 0) {
            nodes[k] = g->nodes[i];
            dead[k++] = c->dead[i];
        }
        for (int j = n_old; j < n; j++) {
            if (after[j - n_old] == i) {
                nodes[k] = g->nodes[j];
                dead[k++] = c->dead[j];
            }
        }
    }
    memcpy(g->nodes, nodes, sizeof *nodes * (size_t)n);
    memcpy(c->dead, dead, sizeof *dead * (size_t)n);
    em_free(g->al, nodes);
    em_free(g->al, dead);
    em_pass_refresh_producers(c); /* every node after the first placed one moved */
    return NULL;
}

void em_pass_refresh_producers(em_pctx *c)
{
    for (int ni = 0; ni < c->g->n_nodes; ni++) {
        for (int o = 0; !c->dead[ni] && o < c->g->nodes[ni].n_out; o++) {
            if (c->g->nodes[ni].out[o] >= 0) {
                c->g->values[c->g->nodes[ni].out[o]].producer = ni;
            }
        }
    }
}

const float *em_pass_const_f32(const em_graph *g, int v)
{
    if (v < 0 || g->values[v].kind != EM_VAL_INITIALIZER || g->values[v].dtype != EMBER_DTYPE_F32 ||
        g->values[v].q != NULL) {
        return NULL;
    }
    return g->values[v].init.data;
}

/* ---- constant folding ---- */

static bool foldable_value(const em_value *v, bool need_init)
{
    if (v->vt != EM_VT_TENSOR || v->q != NULL || v->dtype == EMBER_DTYPE_STRING ||
        v->dtype == EMBER_DTYPE_UNDEFINED || v->rank < 0) {
        return false;
    }
    if (need_init) {
        return v->kind == EM_VAL_INITIALIZER;
    }
    for (int d = 0; d < v->rank; d++) {
        if (v->dims[d].v < 0) {
            return false;
        }
    }
    return v->kind == EM_VAL_INTERMEDIATE;
}

/* Runs node ni through c->eval (the reference kernels) and turns its outputs into initializers.
 * *done tells whether it did. */
static ember_status *fold_node(em_pctx *c, int ni, bool *done)
{
    em_graph *g = c->g;
    em_node *n = &g->nodes[ni];
    em_tensor tin[EM_MAX_RANK * 8], tout[8];
    size_t in_bytes = 0, out_bytes = 0;
    *done = false;
    if ((em_op_info_of(n->op)->flags & (EM_OPF_NONDET | EM_OPF_INTERP)) ||
        n->n_in > (int)(sizeof tin / sizeof tin[0]) || n->n_out > 8) {
        return NULL;
    }
    for (int i = 0; i < n->n_in; i++) {
        memset(&tin[i], 0, sizeof tin[i]);
        if (n->in[i] < 0) {
            continue;
        }
        const em_value *v = &g->values[n->in[i]];
        if (!foldable_value(v, true)) {
            return NULL;
        }
        tin[i] = v->init;
        in_bytes += em_tensor_nbytes(&tin[i]);
    }
    for (int o = 0; o < n->n_out; o++) {
        const em_value *v = &g->values[n->out[o]];
        int64_t dims[EM_MAX_RANK];
        if (!foldable_value(v, false)) {
            return NULL;
        }
        for (int d = 0; d < v->rank; d++) {
            dims[d] = v->dims[d].v;
        }
        memset(&tout[o], 0, sizeof tout[o]);
        em_tensor_set_shape(&tout[o], v->dtype, dims, v->rank);
        size_t b;
        if (!em_tensor_nbytes_checked(&tout[o], &b)) {
            return NULL;
        }
        out_bytes += b;
    }
    /* A DequantizeLinear of constant 8-bit weights grows 4x by nature: folding it lets the
     * fp32 fallback of a QDQ model run its Convs / Gemms on packed constant weights. */
    size_t grow = n->op == EM_OP_DEQUANTIZELINEAR ? 4 * in_bytes : in_bytes;
    if (out_bytes > grow + ((size_t)1 << 20)) {
        return NULL;
    }
    if (n->op == EM_OP_IDENTITY) { /* an alias of the initializer: its bytes are shared */
        em_value *v = &g->values[n->out[0]];
        v->kind = EM_VAL_INITIALIZER;
        v->init = tin[0];
        v->storage = em_storage_retain(g->values[n->in[0]].storage);
        v->producer = -1;
        em_pass_kill(c, ni);
        *done = true;
        return NULL;
    }
    em_storage *sto[8] = {NULL};
    bool ran = false;
    ember_status *st = c->eval(n, tin, tout, g->al, sto, &ran);
    if (st == NULL && ran) {
        for (int o = 0; o < n->n_out; o++) {
            em_value *v = &g->values[n->out[o]];
            v->kind = EM_VAL_INITIALIZER;
            v->init = tout[o];
            v->storage = sto[o];
            v->producer = -1;
            sto[o] = NULL;
        }
        em_pass_kill(c, ni);
        *done = true;
    }
    for (int o = 0; o < 8; o++) {
        em_storage_release(sto[o]);
    }
    return st;
}

/* A graph output copied by Identity from a value only it reads (TorchScript's return): the
 * producer writes the output itself. */
static void forward_identities(em_pctx *c)
{
    em_graph *g = c->g;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (c->dead[ni] || n->op != EM_OP_IDENTITY || n->in[0] < 0 ||
            !em_pass_private(c, n->in[0])) {
            continue;
        }
        int v = n->in[0], out = n->out[0], p = g->values[v].producer;
        if (p < 0 || p >= ni || c->dead[p] || !g->values[out].is_output) {
            continue;
        }
        for (int o = 0; o < g->nodes[p].n_out; o++) {
            if (g->nodes[p].out[o] == v) {
                g->nodes[p].out[o] = out;
            }
        }
        em_pass_kill(c, ni);
        g->values[out].producer = p;
    }
}

/* Shape of a value whose dims are all known (the planner refuses inputs that differ from
 * known declared dims, so they are the dims it will run with): its readers read a constant of
 * those dims (start / end applied) instead, so what torch.onnx computes from it (Gather, Add,
 * Div, the Slice bounds of MultiheadAttention) folds too. A graph output keeps its node. */
static ember_status *fold_shape(em_pctx *c, int ni)
{
    em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    const em_value *x = &g->values[n->in[0]];
    int y = n->out[0];
    int64_t r = x->rank, dims[EM_MAX_RANK];
    if (r < 0 || g->values[y].is_output || x->vt != EM_VT_TENSOR) {
        return NULL;
    }
    int64_t s = em_node_attr_int(n, "start", 0), e = em_node_attr_int(n, "end", r);
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    int64_t cnt = e > s ? e - s : 0;
    for (int64_t d = 0; d < cnt; d++) {
        dims[d] = x->dims[s + d].v;
        if (dims[d] < 0) {
            return NULL;
        }
    }
    /* y itself becomes the constant (as fold_node's outputs do): no new name to make unique
     * and no readers to redirect, both scans of the whole graph */
    em_storage *sto = NULL;
    EM_PASS_TRY(em_storage_new_owned(g->al, sizeof *dims * (size_t)(cnt > 0 ? cnt : 1), &sto));
    memcpy(em_storage_data(sto), dims, sizeof *dims * (size_t)cnt);
    em_value *v = &g->values[y];
    em_tensor t = {0};
    em_tensor_set_shape(&t, EMBER_DTYPE_I64, &cnt, 1);
    t.data = em_storage_data(sto);
    v->kind = EM_VAL_INITIALIZER;
    v->init = t;
    v->storage = sto;
    v->producer = -1;
    v->dtype = EMBER_DTYPE_I64;
    v->rank = 1;
    v->dims[0] = (em_dim){cnt, 0};
    em_pass_kill(c, ni);
    return NULL;
}

static ember_status *fold_constants(em_pctx *c)
{
    for (int ni = 0; ni < c->g->n_nodes; ni++) {
        bool done;
        if (!c->dead[ni]) {
            /* Inputs folded just before (a Reshape's computed target, a Pad's computed pads)
             * may tell dims that load-time inference could not, so the Shapes read from them
             * fold in turn. Best effort: an error here is the planner's to report. */
            ember_status_destroy(em_graph_infer_node(c->g, ni));
        }
        if (!c->dead[ni] && c->g->nodes[ni].op == EM_OP_SHAPE) {
            EM_PASS_TRY(fold_shape(c, ni));
        }
        if (!c->dead[ni]) {
            ember_status *st = fold_node(c, ni, &done);
            if (st != NULL) {
                return st;
            }
        }
    }
    return NULL;
}

/* ---- no-op nodes ---- */

/* Node ni copies its input 0 to its output unchanged: Identity, or Pad with constant all-zero
 * pads (torch.onnx writes one before each of densenet's AveragePools). */
/* Whether Dropout node n is in its inference form, the identity: training_mode absent or a
 * false initializer, and the mask output unread. */
static bool dropout_is_identity(const em_pctx *c, const em_node *n)
{
    const em_graph *g = c->g;
    if (n->n_out > 1 && n->out[1] >= 0 &&
        (c->nread[n->out[1]] > 0 || g->values[n->out[1]].is_output)) {
        return false;
    }
    if (n->n_in < 3 || n->in[2] < 0) {
        return true;
    }
    const em_value *t = &g->values[n->in[2]];
    return t->kind == EM_VAL_INITIALIZER && t->dtype == EMBER_DTYPE_BOOL &&
           t->init.data != NULL && em_tensor_numel(&t->init) == 1 &&
           *(const unsigned char *)t->init.data == 0;
}

static bool is_noop(const em_graph *g, const em_node *n)
{
    if (n->op == EM_OP_IDENTITY || n->op == EM_OP_CONCAT) { /* Concat of one value: a copy */
        return n->n_in == 1 && n->n_out == 1;
    }
    if (n->op != EM_OP_PAD || n->n_out != 1 || n->n_in < 2 || n->in[1] < 0) {
        return false;
    }
    const em_value *p = &g->values[n->in[1]];
    if (p->kind != EM_VAL_INITIALIZER || p->dtype != EMBER_DTYPE_I64 || p->init.data == NULL) {
        return false;
    }
    const int64_t *pads = p->init.data;
    for (int64_t i = 0; i < em_tensor_numel(&p->init); i++) {
        if (pads[i] != 0) {
            return false;
        }
    }
    return true;
}

/* Dropout nodes in inference form read as their input (at every level but NONE, where they
 * stay for a trainer to put in train mode; the TorchScript loader writes them). */
static void drop_dropouts(em_pctx *c)
{
    em_graph *g = c->g;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (c->dead[ni] || n->op != EM_OP_DROPOUT || n->n_in < 1 || n->in[0] < 0 ||
            g->values[n->out[0]].is_output || !dropout_is_identity(c, n) ||
            g->values[n->in[0]].dtype != g->values[n->out[0]].dtype) {
            continue;
        }
        em_pass_redirect(c, n->out[0], n->in[0], ni);
        em_pass_kill(c, ni);
    }
}

/* Readers of a no-op's output read its input instead (outputs of the graph are kept). */
static void drop_noops(em_pctx *c)
{
    em_graph *g = c->g;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (c->dead[ni] || !is_noop(g, n) || n->in[0] < 0 || g->values[n->out[0]].is_output ||
            g->values[n->in[0]].dtype != g->values[n->out[0]].dtype) {
            continue;
        }
        em_pass_redirect(c, n->out[0], n->in[0], ni);
        em_pass_kill(c, ni);
    }
}

/* ---- dead code and compaction ---- */

static void eliminate_dead(em_pctx *c)
{
    for (int ni = c->g->n_nodes - 1; ni >= 0; ni--) {
        const em_node *n = &c->g->nodes[ni];
        bool used = false;
        for (int o = 0; !c->dead[ni] && o < n->n_out && !used; o++) {
            int v = n->out[o];
            used = v >= 0 && (c->nread[v] > 0 || c->g->values[v].is_output);
        }
        if (!c->dead[ni] && !used) {
            em_pass_kill(c, ni);
        }
    }
}

/* Drops dead nodes and unreferenced values, renumbers, sets producers. */
static ember_status *compact(em_pctx *c)
{
    em_graph *g = c->g;
    int *map = em_malloc(g->al, sizeof *map * (size_t)(g->n_values > 0 ? g->n_values : 1));
    if (map == NULL) {
        return em_status_oom();
    }
    int nn = 0;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        if (!c->dead[ni]) {
            g->nodes[nn++] = g->nodes[ni];
        }
    }
    g->n_nodes = nn;
    for (int v = 0; v < g->n_values; v++) {
        map[v] = g->values[v].is_output || g->values[v].kind == EM_VAL_INPUT || c->nread[v] > 0;
    }
    for (int ni = 0; ni < nn; ni++) {
        for (int o = 0; o < g->nodes[ni].n_out; o++) {
            if (g->nodes[ni].out[o] >= 0) {
                map[g->nodes[ni].out[o]] = 1;
            }
        }
    }
    int nv = 0;
    for (int v = 0; v < g->n_values; v++) {
        if (map[v]) {
            g->values[nv] = g->values[v];
            map[v] = nv++;
        } else {
            em_value_clear(g->al, &g->values[v]);
            map[v] = -1;
        }
    }
    g->n_values = nv;
    for (int v = 0; v < nv; v++) {
        g->values[v].producer = -1;
    }
    for (int ni = 0; ni < nn; ni++) {
        em_node *n = &g->nodes[ni];
        for (int i = 0; i < n->n_in; i++) {
            n->in[i] = n->in[i] >= 0 ? map[n->in[i]] : -1;
        }
        for (int o = 0; o < n->n_out; o++) {
            n->out[o] = n->out[o] >= 0 ? map[n->out[o]] : -1;
            if (n->out[o] >= 0) {
                g->values[n->out[o]].producer = ni;
            }
        }
    }
    for (int i = 0; i < g->n_inputs; i++) {
        g->inputs[i] = map[g->inputs[i]];
    }
    for (int i = 0; i < g->n_outputs; i++) {
        g->outputs[i] = map[g->outputs[i]];
    }
    em_free(g->al, map);
    return NULL;
}

static bool has_subgraphs(const em_graph *g)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        for (int a = 0; a < g->nodes[ni].n_attrs; a++) {
            if (g->nodes[ni].attrs[a].type == EM_ATTR_GRAPH) {
                return true;
            }
        }
    }
    return false;
}

ember_status *em_passes_run(em_graph *g, const em_passes_options *opt)
{
    return em_passes_run_extra(g, opt, NULL);
}

static ember_status *run_passes(em_graph *g, const em_passes_options *opt,
                                const em_passes_extra *x, bool fold_conv);

ember_status *em_passes_run_extra(em_graph *g, const em_passes_options *opt,
                                  const em_passes_extra *x)
{
    return run_passes(g, opt, x, false);
}

ember_status *em_passes_fold_conv(em_graph *g)
{
    const em_passes_options none = {false, false, false, 0, NULL};
    return run_passes(g, &none, NULL, true);
}

static ember_status *run_passes(em_graph *g, const em_passes_options *opt,
                                const em_passes_extra *x, bool fold_conv)
{
    const em_passes_extra none = {false, NULL, NULL};
    x = x != NULL ? x : &none;
    em_passes_options dflt = em_passes_level(EMBER_GRAPH_OPT_ALL);
    opt = opt != NULL ? opt : &dflt;
    if ((!opt->fold && !opt->fuse && !opt->layout && !fold_conv) || g->n_nodes == 0 ||
        has_subgraphs(g)) {
        return NULL;
    }
    em_pctx c = {g, NULL, NULL, 0, 0, opt->eval, x->note, x->note_ctx};
    ember_status *st = em_pass_sync(&c);
    for (int ni = 0; st == NULL && ni < g->n_nodes; ni++) {
        for (int i = 0; i < g->nodes[ni].n_in; i++) {
            if (g->nodes[ni].in[i] >= 0) {
                c.nread[g->nodes[ni].in[i]]++;
            }
        }
    }
    if (st == NULL) {
        eliminate_dead(&c);
        drop_dropouts(&c);
    }
    if (st == NULL && opt->fuse && x->int8) { /* before folding makes the weights f32 */
        st = em_pass_qdq_conv(&c);
        st = st == NULL ? em_pass_qdq_ops(&c) : st;
    }
    if (st == NULL && opt->fold && opt->eval != NULL) {
        st = fold_constants(&c);
        forward_identities(&c);
    }
    if (st == NULL && opt->fuse) {
        drop_noops(&c);
        st = em_pass_lower_einsum(&c); /* first: its Transposes may cancel, its MatMuls fuse */
    }
    if (st == NULL && opt->fuse) {
        st = em_pass_cancel_pairs(&c);
    }
    if (st == NULL && opt->fuse) { /* before the conv fusions: they take the fused activations */
        st = em_pass_fuse_norm(&c);
    }
    if (st == NULL && opt->fuse) {
        st = em_pass_fuse_act(&c);
    }
    if (st == NULL && opt->fuse) {
        st = em_pass_fuse_attention(&c);
    }
    if (st == NULL && opt->fuse) { /* after the norms: they read ReduceMeans of their own */
        st = em_pass_mean_pool(&c);
    }
    if (st == NULL && opt->fuse && opt->layout) { /* its convs are for the layout pass */
        st = em_pass_channel_last(&c, opt->block);
    }
    if (st == NULL && opt->fuse) {
        st = em_pass_fuse_conv(&c);
    } else if (st == NULL && fold_conv) {
        st = em_pass_fold_conv(&c);
    }
    if (st == NULL && opt->fuse) {
        st = em_pass_fuse_matmul(&c);
    }
    if (st == NULL && opt->fuse) {
        st = em_pass_fuse_gemm_act(&c);
    }
    if (st == NULL && opt->fuse && opt->layout) {
        st = em_pass_layout(&c, opt->block);
    }
    if (st == NULL && opt->fuse && opt->layout) { /* the layout's unread reorders gone first */
        eliminate_dead(&c);
        st = em_pass_fuse_se(&c);
    }
    if (st == NULL) {
        eliminate_dead(&c);
        st = compact(&c);
    }
    em_free(g->al, c.dead);
    em_free(g->al, c.nread);
    if (st == NULL) {
        st = em_graph_verify(g);
    }
    if (st == NULL) {
        st = em_graph_infer_shapes(g);
    }
    return st;
}
