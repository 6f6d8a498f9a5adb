/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reverse-mode autodiff driver (the design note is in autograd.h): which values need a
 * gradient, the rule table, the reverse walk with gradient accumulation, zeros for xs that y
 * does not depend on, and em_autograd_rebind (the forward cloned at another point, for the
 * ONNX Gradient op).
 */
#include "autograd/autograd.h"

#include "core/alloc.h"
#include "autograd/grad_internal.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

/* Each op's rule, from the `grad` column of the op lists (grad_internal.h). */
static const gx_rule rules[EM_OP_COUNT] = {
#define EM_GRAD(r) em_gx_rule_##r
#define EM_NOGRAD NULL
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad)             \
    [EM_OP_##id] = grad,
#include "ir/ops.def"
#undef EM_OP
#undef EM_NOGRAD
#undef EM_GRAD
};

gx_rule em_gx_rule_of(em_op op)
{
    return (unsigned)op < EM_OP_COUNT ? rules[op] : NULL;
}

/* c->prefix: `base`, or base.N, such that no value of g is named "<prefix>/...". */
static void make_prefix(em_gctx *c, const char *base)
{
    base = base != NULL && base[0] != '\0' ? base : "grad";
    for (unsigned k = 0;; k++) {
        if (k == 0) {
            snprintf(c->prefix, sizeof c->prefix, "%.80s", base);
        } else {
            snprintf(c->prefix, sizeof c->prefix, "%.80s.%u", base, k);
        }
        size_t len = strlen(c->prefix);
        bool clash = false;
        for (int i = 0; i < c->g->n_values && !clash; i++) {
            const char *nm = c->g->values[i].name;
            clash = strncmp(nm, c->prefix, len) == 0 && nm[len] == '/';
        }
        if (!clash) {
            return;
        }
    }
}

/* dep[v]: v depends on a `from` value (through float values only when float_only); reach[v]:
 * `y` depends on v. */
static void mark(const em_graph *g, const int *from, int n_from, int y, bool float_only,
                 unsigned char *dep, unsigned char *reach)
{
    for (int i = 0; i < n_from; i++) {
        dep[from[i]] = 1;
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        bool any = false;
        for (int i = 0; i < n->n_in && !any; i++) {
            any = n->in[i] >= 0 && dep[n->in[i]];
        }
        for (int o = 0; o < n->n_out && any; o++) {
            if (!float_only || em_gx_is_float(g->values[n->out[o]].dtype)) {
                dep[n->out[o]] = 1;
            }
        }
    }
    reach[y] = 1;
    for (int ni = g->n_nodes - 1; ni >= 0; ni--) {
        const em_node *n = &g->nodes[ni];
        bool any = false;
        for (int o = 0; o < n->n_out && !any; o++) {
            any = reach[n->out[o]] != 0;
        }
        for (int i = 0; i < n->n_in && any; i++) {
            if (n->in[i] >= 0) {
                reach[n->in[i]] = 1;
            }
        }
    }
}

/* The summed gradient of forward value v, or -1 when nothing contributed. */
static int total(em_gctx *c, int v)
{
    gx_acc *a = &c->acc[v];
    if (a->n == 0 || !em_gx_ok(c)) {
        return -1;
    }
    if (a->n > 1) {
        int s = em_gx_sum(c, a->v, a->n);
        a->n = 1;
        a->v[0] = s;
    }
    return a->v[0];
}

static ember_status *check_spec(const em_graph *g, const em_autograd_spec *s)
{
    if (s->y < 0 || s->y >= g->n_values || s->n_xs < 0 || (s->n_xs > 0 && s->xs == NULL)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "autograd: bad y or xs");
    }
    const em_value *y = &g->values[s->y];
    if (!em_gx_is_float(y->dtype)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "autograd: y '%s' is %s, not a floating-point tensor", y->name,
                             em_dtype_name(y->dtype));
    }
    if (s->dy >= g->n_values || (s->dy >= 0 && g->values[s->dy].dtype != y->dtype)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "autograd: the seed must be a %s value",
                             em_dtype_name(y->dtype));
    }
    for (int i = 0; i < s->n_xs; i++) {
        int x = s->xs[i];
        if (x < 0 || x >= g->n_values) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "autograd: xs[%d] is out of range", i);
        }
        if (!em_gx_is_float(g->values[x].dtype)) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "autograd: '%s' is %s: only floating-point tensors have "
                                 "gradients",
                                 g->values[x].name, em_dtype_name(g->values[x].dtype));
        }
    }
    return NULL;
}

/* Runs the rule of forward node ni when an input needs a gradient and an output has one. */
static void visit(em_gctx *c, int ni, int *gy)
{
    const em_node n = c->g->nodes[ni]; /* a copy: g->nodes moves as nodes are added */
    int needed = -1;
    for (int i = 0; i < n.n_in && needed < 0; i++) {
        needed = em_gx_needs(c, n.in[i]) ? i : -1;
    }
    if (needed < 0) {
        return;
    }
    bool any = false;
    c->node = ni;
    for (int o = 0; o < n.n_out; o++) {
        gy[o] = total(c, n.out[o]);
        any = any || gy[o] >= 0;
    }
    gx_rule rule = em_gx_rule_of(n.op);
    if (!any || !em_gx_ok(c)) {
        return;
    }
    if (rule == NULL) {
        em_gx_fail(c, "no gradient rule for %s (input %d '%s' needs a gradient)", em_op_name(n.op),
                needed, c->g->values[n.in[needed]].name);
        return;
    }
    rule(c, &n, gy);
}

static void free_ctx(em_gctx *c)
{
    for (int i = 0; c->acc != NULL && i < c->n_fwd_values; i++) {
        em_free(c->g->al, c->acc[i].v);
    }
    em_free(c->g->al, c->acc);
    em_free(c->g->al, c->need);
}

static ember_status *init_ctx(em_gctx *c, em_graph *g, const char *name)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->node = -1;
    c->n_fwd_values = g->n_values;
    c->need = em_calloc(g->al, (size_t)g->n_values + 1, 1);
    c->acc = em_calloc(g->al, (size_t)g->n_values + 1, sizeof *c->acc);
    if (c->need == NULL || c->acc == NULL) {
        free_ctx(c);
        return em_status_oom();
    }
    make_prefix(c, name);
    return NULL;
}

/* The seed, contributed to y. */
static void seed(em_gctx *c, const em_autograd_spec *s)
{
    int dy = s->dy;
    if (dy < 0) {
        dy = em_gx_val(c, s->y)->rank == 0 ? em_gx_scalar(c, em_gx_val(c, s->y)->dtype, 1.0)
                                        : em_gx_fill_like(c, s->y, 1.0);
    }
    em_gx_give(c, s->y, dy);
}

ember_status *em_autograd(em_graph *g, const em_autograd_spec *spec, int *dxs)
{
    em_gctx c;
    ember_status *st = NULL;
    unsigned char *dep = NULL;
    int *gy = NULL;
    EMBER_TRY(em_graph_infer_shapes(g));
    EMBER_TRY(check_spec(g, spec));
    EMBER_TRY(init_ctx(&c, g, spec->name));
    dep = em_calloc(g->al, (size_t)g->n_values + 1, 1);
    int max_out = 1;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        max_out = g->nodes[ni].n_out > max_out ? g->nodes[ni].n_out : max_out;
    }
    gy = em_malloc(g->al, sizeof(int) * (size_t)max_out);
    if (dep == NULL || gy == NULL) {
        c.st = em_status_oom();
    } else {
        mark(g, spec->xs, spec->n_xs, spec->y, true, dep, c.need);
        for (int i = 0; i < g->n_values; i++) {
            c.need[i] = c.need[i] && dep[i];
        }
        seed(&c, spec);
    }
    for (int ni = g->n_nodes - 1; ni >= 0 && em_gx_ok(&c); ni--) {
        visit(&c, ni, gy);
    }
    c.node = -1;
    for (int i = 0; i < spec->n_xs && em_gx_ok(&c); i++) {
        int d = total(&c, spec->xs[i]);
        dxs[i] = d >= 0 ? d : em_gx_zeros_like(&c, spec->xs[i]);
    }
    st = c.st;
    free_ctx(&c);
fail:
    em_free(g->al, dep);
    em_free(g->al, gy);
    return st;
}

/* ---- the forward at another point ---- */

static void clone_node(em_gctx *c, int ni, int *map)
{
    const em_node n = c->g->nodes[ni];
    int in[16], out[64];
    if (n.n_out > 64) {
        em_gx_fail(c, "too many outputs to clone");
        return;
    }
    int *ins = n.n_in <= 16 ? in : em_malloc(c->g->al, sizeof(int) * (size_t)n.n_in);
    if (ins == NULL) {
        c->st = c->st != NULL ? c->st : em_status_oom();
        return;
    }
    for (int i = 0; i < n.n_in; i++) {
        ins[i] = n.in[i] >= 0 && map[n.in[i]] >= 0 ? map[n.in[i]] : n.in[i];
    }
    int nn = em_gx_begin(c, n.op, ins, n.n_in, n.n_out, out);
    for (int a = 0; a < n.n_attrs && em_gx_ok(c); a++) {
        if (n.attrs[a].type == EM_ATTR_GRAPH) {
            em_gx_fail(c, "a node with a subgraph cannot be evaluated at another point");
        }
        em_gx_copy_attr(c, nn, &n, n.attrs[a].name);
    }
    em_gx_end(c, nn);
    for (int o = 0; o < n.n_out && em_gx_ok(c); o++) {
        map[n.out[o]] = out[o];
    }
    if (ins != in) {
        em_free(c->g->al, ins);
    }
}

ember_status *em_autograd_rebind(em_graph *g, int n, const int *from, const int *to, int y,
                                 const char *name, int *y_new)
{
    em_gctx c;
    ember_status *st = NULL;
    unsigned char *dep = NULL, *reach = NULL;
    int *map = NULL;
    *y_new = y;
    EMBER_TRY(init_ctx(&c, g, name));
    int nv = g->n_values, nn = g->n_nodes;
    dep = em_calloc(g->al, (size_t)nv + 1, 1);
    reach = em_calloc(g->al, (size_t)nv + 1, 1);
    map = em_malloc(g->al, sizeof(int) * ((size_t)nv + 1));
    if (dep == NULL || reach == NULL || map == NULL) {
        c.st = em_status_oom();
    } else {
        memset(map, 0xff, sizeof(int) * ((size_t)nv + 1));
        for (int i = 0; i < n; i++) {
            map[from[i]] = to[i];
        }
        mark(g, from, n, y, false, dep, reach);
    }
    for (int ni = 0; ni < nn && em_gx_ok(&c); ni++) {
        const em_node *nd = &g->nodes[ni];
        bool in_dep = false, out_reach = false;
        for (int i = 0; i < nd->n_in; i++) {
            in_dep = in_dep || (nd->in[i] >= 0 && dep[nd->in[i]]);
        }
        for (int o = 0; o < nd->n_out; o++) {
            out_reach = out_reach || reach[nd->out[o]];
        }
        if (in_dep && out_reach) {
            c.node = ni;
            clone_node(&c, ni, map);
        }
    }
    if (em_gx_ok(&c) && map[y] >= 0) {
        *y_new = map[y];
    }
    st = c.st;
    free_ctx(&c);
fail:
    em_free(g->al, dep);
    em_free(g->al, reach);
    em_free(g->al, map);
    return st;
}
