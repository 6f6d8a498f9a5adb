/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The training graph (design note in trainer.h): clone, choose the parameters, append the
 * loss, differentiate, set the outputs.
 */
#include "autograd/trainer.h"

#include "autograd/autograd.h"
#include "autograd/grad_internal.h"
#include "core/alloc.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

bool em_train_glob(const char *pat, const char *name)
{
    for (; *pat != '\0'; pat++, name++) {
        if (*pat == '*') {
            for (const char *s = name;; s++) {
                if (em_train_glob(pat + 1, s)) {
                    return true;
                }
                if (*s == '\0') {
                    return false;
                }
            }
        }
        if (*name == '\0' || (*pat != '?' && *pat != *name)) {
            return false;
        }
    }
    return *name == '\0';
}

/* ---- cloning ---- */

/* Copies v's dims into dst's value, mapping symbol ids by name. */
static void copy_dims(em_graph *dst, em_value *d, const em_graph *src, const em_value *s)
{
    d->vt = s->vt;
    d->dtype = s->dtype;
    d->rank = s->rank;
    for (int i = 0; i < s->rank && i < EM_MAX_RANK; i++) {
        d->dims[i].v = s->dims[i].v;
        d->dims[i].sym = s->dims[i].sym > 0 && s->dims[i].sym <= src->n_syms
                             ? em_graph_symbol(dst, src->sym_names[s->dims[i].sym - 1])
                             : 0;
    }
}

static ember_status *clone_graph(const em_graph *src, em_graph *g, int *map)
{
    for (int i = 0; i < src->n_values; i++) {
        map[i] = -1;
        if (src->values[i].q != NULL) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "trainer: value '%s' is quantized: quantized models cannot be "
                                 "trained (fine-tune the fp32 model)", src->values[i].name);
        }
    }
    for (int k = 0; k < src->n_inputs; k++) {
        const em_value *s = &src->values[src->inputs[k]];
        int64_t dims[EM_MAX_RANK];
        const char *names[EM_MAX_RANK];
        for (int d = 0; d < s->rank; d++) {
            dims[d] = s->dims[d].v;
            names[d] = s->dims[d].sym > 0 ? src->sym_names[s->dims[d].sym - 1] : NULL;
        }
        EM_RETURN_IF_ERROR(em_graph_add_input(g, s->name, s->dtype, s->rank < 0 ? 0 : s->rank,
                                              dims, names, &map[src->inputs[k]]));
        copy_dims(g, &g->values[map[src->inputs[k]]], src, s);
    }
    for (int i = 0; i < src->n_values; i++) {
        const em_value *s = &src->values[i];
        if (s->kind != EM_VAL_INITIALIZER) {
            continue;
        }
        EM_RETURN_IF_ERROR(em_graph_add_value(g, s->name, s->dtype, s->rank, NULL, &map[i]));
        em_value *d = &g->values[map[i]];
        copy_dims(g, d, src, s);
        d->kind = EM_VAL_INITIALIZER;
        d->init = s->init;
        d->storage = s->storage != NULL ? em_storage_retain(s->storage) : NULL;
    }
    em_gctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.node = -1;
    for (int ni = 0; ni < src->n_nodes && em_gx_ok(&c); ni++) {
        const em_node *n = &src->nodes[ni];
        const char *onames[GX_MAX_OUT];
        int ins[64];
        if (n->n_in > 64 || n->n_out > GX_MAX_OUT) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "trainer: node '%s' (%s) has too many "
                                 "inputs or outputs to clone", n->name, em_op_name(n->op));
        }
        for (int i = 0; i < n->n_in; i++) {
            ins[i] = n->in[i] >= 0 ? map[n->in[i]] : -1;
        }
        for (int o = 0; o < n->n_out; o++) {
            onames[o] = src->values[n->out[o]].name;
        }
        int nn = -1;
        EM_RETURN_IF_ERROR(em_graph_add_node(g, n->op, n->name, ins, n->n_in, onames, n->n_out,
                                             &nn));
        for (int a = 0; a < n->n_attrs; a++) {
            if (n->attrs[a].type == EM_ATTR_GRAPH) {
                return em_status_new(EMBER_ERR_UNSUPPORTED,
                                     "trainer: node '%s' (%s) has a subgraph: control flow "
                                     "cannot be trained yet", n->name, em_op_name(n->op));
            }
            em_gx_copy_attr(&c, nn, n, n->attrs[a].name);
        }
        for (int o = 0; o < n->n_out; o++) {
            map[n->out[o]] = g->nodes[nn].out[o];
            copy_dims(g, &g->values[map[n->out[o]]], src, &src->values[n->out[o]]);
        }
    }
    if (c.st != NULL) {
        return c.st;
    }
    for (int k = 0; k < src->n_outputs; k++) {
        EM_RETURN_IF_ERROR(em_graph_mark_output(g, map[src->outputs[k]]));
    }
    for (int k = 0; k < src->n_meta; k++) {
        EM_RETURN_IF_ERROR(em_graph_set_meta(g, src->meta_keys[k], src->meta_vals[k]));
    }
    return NULL;
}

ember_status *em_train_export(const em_graph *src, int n, char *const *names, void *const *data,
                              em_graph **out)
{
    ember_status *st = NULL;
    em_graph *g = NULL;
    int *map = NULL;
    *out = NULL;
    EMBER_TRY(em_graph_new(src->al, &g));
    map = em_malloc(g->al, sizeof(int) * ((size_t)src->n_values + 1));
    if (map == NULL) {
        st = em_status_oom();
        goto fail;
    }
    EMBER_TRY(clone_graph(src, g, map));
    for (int k = 0; k < n; k++) {
        int v = em_graph_find_value(g, names[k]);
        if (v < 0 || g->values[v].kind != EM_VAL_INITIALIZER) {
            st = em_status_new(EMBER_ERR_INTERNAL, "trainer: no initializer '%s'", names[k]);
            goto fail;
        }
        em_value *x = &g->values[v];
        em_storage *s = NULL;
        EMBER_TRY(em_storage_new_borrowed(g->al, data[k], em_tensor_nbytes(&x->init), &s));
        em_storage_release(x->storage);
        x->storage = s;
        x->init.data = data[k];
    }
    *out = g;
    g = NULL;
fail:
    em_free(src->al, map);
    em_graph_destroy(g);
    return st;
}

/* ---- parameters ---- */

/* stat[v]: v is read as BatchNormalization's running mean or variance (never trained). */
static void mark_stats(const em_graph *g, unsigned char *stat)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (n->op == EM_OP_BATCHNORM) {
            for (int i = 3; i < 5 && i < n->n_in; i++) {
                if (n->in[i] >= 0) {
                    stat[n->in[i]] = 1;
                }
            }
        }
    }
}

/* reach[v]: the loss `y` depends on v through floating-point values. */
static void mark_reach(const em_graph *g, int y, unsigned char *reach)
{
    reach[y] = 1;
    for (int ni = g->n_nodes - 1; ni >= 0; ni--) {
        const em_node *n = &g->nodes[ni];
        bool any = false;
        for (int o = 0; o < n->n_out && !any; o++) {
            any = reach[n->out[o]] != 0 && em_gx_is_float(g->values[n->out[o]].dtype);
        }
        for (int i = 0; i < n->n_in && any; i++) {
            if (n->in[i] >= 0) {
                reach[n->in[i]] = 1;
            }
        }
    }
}

static bool any_match(const char *const *pats, int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        if (em_train_glob(pats[i], name)) {
            return true;
        }
    }
    return false;
}

/* "a, b, c" (the first few candidates), for error messages. */
static void list_candidates(const em_graph *g, const unsigned char *cand, char *buf, size_t cap)
{
    size_t len = 0;
    int shown = 0;
    buf[0] = '\0';
    for (int i = 0; i < g->n_values && len + 1 < cap; i++) {
        if (!cand[i]) {
            continue;
        }
        if (shown == 8) {
            snprintf(buf + len, cap - len, ", ...");
            return;
        }
        int w = snprintf(buf + len, cap - len, "%s%s", shown > 0 ? ", " : "", g->values[i].name);
        len += w > 0 ? (size_t)w : 0;
        shown++;
    }
    if (shown == 0) {
        snprintf(buf, cap, "none");
    }
}

/* Chooses the parameters (sets sel[v]) among the f32 initializers of rank >= 1 of g that are
 * not BatchNormalization statistics. */
static ember_status *select_params(const em_graph *g, const em_train_spec *s, int y,
                                   unsigned char *sel)
{
    ember_status *st = NULL;
    size_t nv = (size_t)g->n_values + 1;
    unsigned char *stat = em_calloc(g->al, nv, 1), *reach = em_calloc(g->al, nv, 1);
    unsigned char *cand = em_calloc(g->al, nv, 1);
    char list[512];
    if (stat == NULL || reach == NULL || cand == NULL) {
        st = em_status_oom();
        goto done;
    }
    mark_stats(g, stat);
    mark_reach(g, y, reach);
    for (int i = 0; i < g->n_values; i++) {
        const em_value *v = &g->values[i];
        cand[i] = v->kind == EM_VAL_INITIALIZER && v->dtype == EMBER_DTYPE_F32 && v->rank >= 1 &&
                  !stat[i];
    }
    list_candidates(g, cand, list, sizeof list);
    for (int k = 0; k < s->n_train + s->n_freeze && st == NULL; k++) {
        const char *pat = k < s->n_train ? s->train[k] : s->freeze[k - s->n_train];
        bool hit = false;
        for (int i = 0; i < g->n_values && !hit; i++) {
            hit = cand[i] && em_train_glob(pat, g->values[i].name);
        }
        if (!hit) {
            st = em_status_new(EMBER_ERR_INVALID_ARG,
                               "trainer: %s pattern '%s' matches no parameter (parameters: %s)",
                               k < s->n_train ? "train" : "freeze", pat, list);
        }
    }
    int n_sel = 0;
    for (int i = 0; i < g->n_values && st == NULL; i++) {
        bool want = cand[i] && (s->n_train == 0 || any_match(s->train, s->n_train,
                                                             g->values[i].name)) &&
                    !any_match(s->freeze, s->n_freeze, g->values[i].name);
        if (want && !reach[i]) {
            if (s->n_train > 0) { /* named on purpose: say it cannot train */
                st = em_status_new(EMBER_ERR_INVALID_ARG,
                                   "trainer: parameter '%s' does not reach the loss (model output "
                                   "'%s' does not depend on it)", g->values[i].name,
                                   g->values[g->outputs[0]].name);
            }
            want = false;
        }
        sel[i] = want;
        n_sel += want;
    }
    if (st == NULL && n_sel == 0) {
        st = em_status_new(EMBER_ERR_INVALID_ARG, "trainer: no trainable parameter (f32 "
                           "initializers of rank >= 1 that the loss depends on: %s)", list);
    }
done:
    em_free(g->al, stat);
    em_free(g->al, reach);
    em_free(g->al, cand);
    return st;
}

/* Turns initializer v into a graph input (its bytes are bound at each step). */
static ember_status *make_input(em_graph *g, int v)
{
    int *p = em_realloc(g->al, g->inputs, sizeof(int) * ((size_t)g->n_inputs + 1));
    if (p == NULL) {
        return em_status_oom();
    }
    g->inputs = p;
    em_value *x = &g->values[v];
    em_storage_release(x->storage);
    x->storage = NULL;
    memset(&x->init, 0, sizeof x->init);
    x->kind = EM_VAL_INPUT;
    g->inputs[g->n_inputs++] = v;
    return NULL;
}

/* ---- the loss ---- */

static int reduce_all(em_gctx *c, int a, int rank, bool sum)
{
    int64_t axes[EM_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        axes[d] = d;
    }
    if (rank == 0) {
        return a;
    }
    return em_gx_reduce(c, sum ? EM_OP_REDUCESUM : EM_OP_REDUCEMEAN, a, axes, rank, false);
}

static int loss_node(em_gctx *c, em_op op, int y, int t, bool sum)
{
    const int in[2] = {y, t};
    int ni = em_gx_begin(c, op, in, 2, 1, NULL);
    em_gx_set_string(c, ni, "reduction", sum ? "sum" : "mean");
    return em_gx_end(c, ni);
}

/* Appends the loss of output y against target t; returns the loss value or -1 (c->st set). */
static int build_loss(em_gctx *c, const em_train_spec *s, int y, int t, int rank)
{
    const double one = 1.0;
    switch (s->loss) {
    case EM_LOSS_CE:
        if (s->label_smoothing > 0.0) {
            int lp = em_gx_begin(c, EM_OP_LOGSOFTMAX, &y, 1, 1, NULL);
            em_gx_set_int(c, lp, "axis", 1);
            lp = em_gx_end(c, lp);
            int nll = loss_node(c, EM_OP_NLLLOSS, lp, t, s->sum);
            const int64_t ax1 = 1;
            int per = em_gx_neg(c, em_gx_reduce(c, EM_OP_REDUCEMEAN, lp, &ax1, 1, false));
            int smooth = reduce_all(c, per, rank - 1, s->sum);
            double eps = s->label_smoothing;
            return em_gx_add(c, em_gx_mul(c, nll, em_gx_scalar(c, EMBER_DTYPE_F32, 1.0 - eps)),
                             em_gx_mul(c, smooth, em_gx_scalar(c, EMBER_DTYPE_F32, eps)));
        }
        return loss_node(c, EM_OP_SCELOSS, y, t, s->sum);
    case EM_LOSS_NLL: return loss_node(c, EM_OP_NLLLOSS, y, t, s->sum);
    case EM_LOSS_MSE: {
        int d = em_gx_sub(c, y, t);
        return reduce_all(c, em_gx_mul(c, d, d), rank, s->sum);
    }
    case EM_LOSS_L1: return reduce_all(c, em_gx_op1(c, EM_OP_ABS, em_gx_sub(c, y, t)), rank, s->sum);
    case EM_LOSS_SMOOTH_L1: { /* m = min(|d|, 1): 0.5 m^2 + |d| - m */
        int d = em_gx_op1(c, EM_OP_ABS, em_gx_sub(c, y, t));
        int m = em_gx_op2(c, EM_OP_MIN, d, em_gx_scalar(c, EMBER_DTYPE_F32, one));
        int e = em_gx_add(c, em_gx_mul(c, em_gx_mul(c, m, m), em_gx_scalar(c, EMBER_DTYPE_F32, 0.5)),
                          em_gx_sub(c, d, m));
        return reduce_all(c, e, rank, s->sum);
    }
    case EM_LOSS_BCE: { /* relu(y) - y t + softplus(-|y|) */
        int sp = em_gx_op1(c, EM_OP_SOFTPLUS, em_gx_neg(c, em_gx_op1(c, EM_OP_ABS, y)));
        int e = em_gx_add(c, em_gx_sub(c, em_gx_op1(c, EM_OP_RELU, y), em_gx_mul(c, y, t)), sp);
        return reduce_all(c, e, rank, s->sum);
    }
    }
    em_gx_fail(c, "unknown loss %d", (int)s->loss);
    return -1;
}

/* Adds the `target` input suited to the loss and model output y. */
static ember_status *add_target(em_graph *g, const em_train_spec *s, int y, int *t)
{
    const em_value yv = g->values[y];
    bool classes = s->loss == EM_LOSS_CE || s->loss == EM_LOSS_NLL;
    if (yv.dtype != EMBER_DTYPE_F32 || yv.vt != EM_VT_TENSOR || yv.rank < 0 ||
        (classes && yv.rank < 2)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer: model output '%s' must be an f32 tensor of known rank%s "
                             "for this loss", yv.name, classes ? " >= 2 (N, C, ...)" : "");
    }
    char name[64] = "target";
    for (int k = 1; em_graph_find_value(g, name) >= 0; k++) {
        snprintf(name, sizeof name, "target.%d", k);
    }
    int64_t dims[EM_MAX_RANK];
    const char *names[EM_MAX_RANK];
    int r = 0;
    for (int d = 0; d < yv.rank; d++) {
        if (classes && d == 1) {
            continue;
        }
        dims[r] = yv.dims[d].v;
        names[r] = yv.dims[d].sym > 0 ? g->sym_names[yv.dims[d].sym - 1] : NULL;
        r++;
    }
    return em_graph_add_input(g, name, classes ? EMBER_DTYPE_I64 : EMBER_DTYPE_F32, r, dims, names,
                              t);
}

void em_train_graph_free(em_train_graph *tg)
{
    if (tg->g == NULL) {
        return;
    }
    for (int i = 0; tg->names != NULL && i < tg->n_params; i++) {
        em_free(tg->g->al, tg->names[i]);
    }
    for (int i = 0; tg->bn_stat != NULL && i < 2 * tg->n_bn; i++) {
        em_free(tg->g->al, tg->bn_stat[i]);
    }
    em_free(tg->g->al, tg->names);
    em_free(tg->g->al, tg->bn_stat);
    em_free(tg->g->al, tg->bn_node);
    em_free(tg->g->al, tg->bn_momentum);
    em_graph_destroy(tg->g);
    memset(tg, 0, sizeof *tg);
}

ember_status *em_train_build(const em_graph *src, const em_train_spec *spec, em_train_graph *out)
{
    ember_status *st = NULL;
    int *map = NULL, *xs = NULL, *dxs = NULL;
    unsigned char *sel = NULL;
    memset(out, 0, sizeof *out);
    if (src->n_outputs < 1) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "trainer: the model has no output");
    }
    if (spec->loss == EM_LOSS_CE && (spec->label_smoothing < 0.0 || spec->label_smoothing >= 1.0)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "trainer: label smoothing %g is not in [0, 1)",
                             spec->label_smoothing);
    }
    EMBER_TRY(em_graph_new(src->al, &out->g));
    em_graph *g = out->g;
    map = em_malloc(g->al, sizeof(int) * ((size_t)src->n_values + 1));
    if (map == NULL) {
        st = em_status_oom();
        goto fail;
    }
    EMBER_TRY(clone_graph(src, g, map));
    EMBER_TRY(em_train_set_modes(g, spec, out));
    EMBER_TRY(em_graph_infer_shapes(g));
    int y = g->outputs[0];
    sel = em_calloc(g->al, (size_t)g->n_values + 1, 1);
    if (sel == NULL) {
        st = em_status_oom();
        goto fail;
    }
    EMBER_TRY(select_params(g, spec, y, sel));
    out->n_model_inputs = g->n_inputs;
    out->out_rank = g->values[y].rank;
    bool classes = spec->loss == EM_LOSS_CE || spec->loss == EM_LOSS_NLL;
    out->n_classes = classes && g->values[y].rank >= 2 ? g->values[y].dims[1].v : -1;
    int t = -1;
    EMBER_TRY(add_target(g, spec, y, &t));
    int n = 0;
    for (int i = 0; i < g->n_values; i++) {
        n += sel[i];
    }
    xs = em_malloc(g->al, sizeof(int) * (size_t)n);
    dxs = em_malloc(g->al, sizeof(int) * (size_t)n);
    out->names = em_calloc(g->al, (size_t)n, sizeof(char *));
    if (xs == NULL || dxs == NULL || out->names == NULL) {
        st = em_status_oom();
        goto fail;
    }
    for (int i = 0, k = 0; i < g->n_values; i++) {
        if (sel[i]) {
            xs[k] = i;
            out->names[k] = em_strdup(g->al, g->values[i].name);
            out->n_params = ++k;
            if (out->names[k - 1] == NULL) {
                st = em_status_oom();
                goto fail;
            }
            EMBER_TRY(make_input(g, i));
        }
    }
    em_gctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.node = -1;
    snprintf(c.prefix, sizeof c.prefix, "%s", "ember.loss");
    int loss = build_loss(&c, spec, y, t, g->values[y].rank);
    if (c.st != NULL) {
        st = c.st;
        goto fail;
    }
    em_autograd_spec as = {loss, -1, n, xs, "ember.grad"};
    EMBER_TRY(em_autograd(g, &as, dxs));
    for (int k = 0; k < g->n_outputs; k++) {
        g->values[g->outputs[k]].is_output = false;
    }
    g->n_outputs = 0;
    c.node = -1;
    snprintf(c.prefix, sizeof c.prefix, "%s", "ember.out");
    int outs[1] = {loss};
    for (int k = -1; k < n && c.st == NULL; k++) {
        int v = k < 0 ? outs[0] : dxs[k];
        /* an output of its own: a gradient may be a constant, an input or another's value */
        int w = em_gx_op1(&c, EM_OP_IDENTITY, v);
        if (w >= 0) {
            em_gx_error(&c, em_graph_mark_output(g, w));
        }
    }
    if (c.st != NULL) {
        st = c.st;
        goto fail;
    }
    EMBER_TRY(em_train_mode_outputs(g, out));
    EMBER_TRY(em_graph_verify(g));
fail:
    em_free(src->al, map);
    em_free(src->al, sel);
    em_free(src->al, xs);
    em_free(src->al, dxs);
    if (st != NULL) {
        em_train_graph_free(out);
    }
    return st;
}
