/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The node builders of autodiff (grad_internal.h): sticky errors, gradient contributions,
 * nodes with their shapes inferred at once, attribute setters and the op wrappers. Constants
 * and shapes are in grad_shape.c.
 */
#include "autograd/grad_internal.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool em_gx_ok(const em_gctx *c)
{
    return c->st == NULL;
}

static const char *fwd_name(const em_gctx *c)
{
    return c->node >= 0 ? c->g->nodes[c->node].name : "";
}

void em_gx_fail(em_gctx *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (c->st != NULL) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->node >= 0) {
        const em_node *n = &c->g->nodes[c->node];
        c->st = em_status_new(EMBER_ERR_UNSUPPORTED, "autograd: node '%s' (%s): %s", n->name,
                              em_op_name(n->op), msg);
    } else {
        c->st = em_status_new(EMBER_ERR_UNSUPPORTED, "autograd: %s", msg);
    }
}

/* Keeps the first error; wraps a builder failure with the forward node it served. */
void em_gx_error(em_gctx *c, ember_status *st)
{
    if (st == NULL) {
        return;
    }
    if (c->st != NULL) {
        ember_status_destroy(st);
    } else if (c->node >= 0) {
        const em_node *n = &c->g->nodes[c->node];
        c->st = em_status_wrap(st, "autograd: node '%s' (%s)", n->name, em_op_name(n->op));
    } else {
        c->st = em_status_wrap(st, "autograd");
    }
}

bool em_gx_is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

const em_value *em_gx_val(const em_gctx *c, int v)
{
    return &c->g->values[v];
}

bool em_gx_needs(const em_gctx *c, int v)
{
    return v >= 0 && v < c->n_fwd_values && c->need[v];
}

void em_gx_give(em_gctx *c, int v, int grad)
{
    if (!em_gx_ok(c) || grad < 0 || !em_gx_needs(c, v)) {
        return;
    }
    gx_acc *a = &c->acc[v];
    if (a->n == a->cap) {
        int nc = a->cap ? a->cap * 2 : 4;
        int *p = em_realloc(c->g->al, a->v, sizeof(int) * (size_t)nc);
        if (p == NULL) {
            em_gx_error(c, em_status_oom());
            return;
        }
        a->v = p;
        a->cap = nc;
    }
    a->v[a->n++] = grad;
}

/* ---- nodes ---- */

int em_gx_begin(em_gctx *c, em_op op, const int *in, int n_in, int n_out, int *out)
{
    char names[GX_MAX_OUT][128], node_name[256];
    const char *ptrs[GX_MAX_OUT];
    int ni = -1;
    if (!em_gx_ok(c)) {
        return -1;
    }
    if (n_out > GX_MAX_OUT) {
        em_gx_fail(c, "a backward node would need %d outputs (at most %d)", n_out, GX_MAX_OUT);
        return -1;
    }
    for (int o = 0; o < n_out; o++) {
        snprintf(names[o], sizeof names[o], "%s/%u", c->prefix, c->serial++);
        ptrs[o] = names[o];
    }
    snprintf(node_name, sizeof node_name, "%s/%s", c->prefix,
             c->node >= 0 ? fwd_name(c) : "seed");
    em_gx_error(c, em_graph_add_node(c->g, op, node_name, in, n_in, ptrs, n_out, &ni));
    if (!em_gx_ok(c)) {
        return -1;
    }
    for (int o = 0; out != NULL && o < n_out; o++) {
        out[o] = c->g->nodes[ni].out[o];
    }
    return ni;
}

int em_gx_end(em_gctx *c, int node)
{
    if (!em_gx_ok(c) || node < 0) {
        return -1;
    }
    ember_status *st = em_graph_infer_node(c->g, node);
    if (st != NULL) {
        em_gx_error(c, em_status_wrap(st, "backward node %s", em_op_name(c->g->nodes[node].op)));
        return -1;
    }
    return c->g->nodes[node].out[0];
}

void em_gx_set_int(em_gctx *c, int node, const char *name, int64_t v)
{
    if (em_gx_ok(c) && node >= 0) {
        em_gx_error(c, em_node_set_int(c->g, node, name, v));
    }
}

void em_gx_set_float(em_gctx *c, int node, const char *name, float v)
{
    if (em_gx_ok(c) && node >= 0) {
        em_gx_error(c, em_node_set_float(c->g, node, name, v));
    }
}

void em_gx_set_ints(em_gctx *c, int node, const char *name, const int64_t *v, int n)
{
    if (em_gx_ok(c) && node >= 0) {
        em_gx_error(c, em_node_set_ints(c->g, node, name, v, n));
    }
}

void em_gx_set_string(em_gctx *c, int node, const char *name, const char *v)
{
    if (em_gx_ok(c) && node >= 0) {
        em_gx_error(c, em_node_set_string(c->g, node, name, v));
    }
}

/* Copies a strings or tensor attribute (the setters cover the other kinds). */
static ember_status *copy_attr_data(em_graph *g, int node, const em_attr *a)
{
    em_attr *d = NULL;
    ember_status *st = em_node_add_attr(g, node, a->name, a->type, &d);
    if (st != NULL) {
        return st;
    }
    if (a->type == EM_ATTR_TENSOR) {
        d->t = a->t;
        d->storage = a->storage != NULL ? em_storage_retain(a->storage) : NULL;
        return NULL;
    }
    d->strings = em_calloc(g->al, (size_t)a->n + 1, sizeof(char *));
    if (d->strings == NULL) {
        return em_status_oom();
    }
    for (int64_t i = 0; i < a->n; i++) {
        d->strings[i] = em_strdup(g->al, a->strings[i]);
        d->n = i + 1;
        if (d->strings[i] == NULL) {
            return em_status_oom();
        }
    }
    return NULL;
}

void em_gx_copy_attr(em_gctx *c, int node, const em_node *n, const char *name)
{
    const em_attr *a = em_node_attr(n, name);
    if (a == NULL || !em_gx_ok(c) || node < 0) {
        return;
    }
    switch (a->type) {
    case EM_ATTR_INT: em_gx_set_int(c, node, name, a->i); break;
    case EM_ATTR_FLOAT: em_gx_set_float(c, node, name, a->f); break;
    case EM_ATTR_STRING: em_gx_set_string(c, node, name, a->s != NULL ? a->s : ""); break;
    case EM_ATTR_INTS: em_gx_set_ints(c, node, name, a->ints, (int)a->n); break;
    case EM_ATTR_FLOATS: em_gx_error(c, em_node_set_floats(c->g, node, name, a->floats, a->n)); break;
    case EM_ATTR_STRINGS:
    case EM_ATTR_TENSOR: em_gx_error(c, copy_attr_data(c->g, node, a)); break;
    default: em_gx_fail(c, "attribute '%s' cannot be copied to a new node", name); break;
    }
}

/* Node op over in[0..n) (each must be a value), one output. */
static int opn(em_gctx *c, em_op op, const int *in, int n)
{
    for (int i = 0; i < n; i++) {
        if (in[i] < 0) {
            return -1;
        }
    }
    return em_gx_end(c, em_gx_begin(c, op, in, n, 1, NULL));
}

int em_gx_op1(em_gctx *c, em_op op, int a)
{
    return opn(c, op, &a, 1);
}

int em_gx_op2(em_gctx *c, em_op op, int a, int b)
{
    const int in[2] = {a, b};
    return opn(c, op, in, 2);
}

int em_gx_op3(em_gctx *c, em_op op, int a, int b, int cc)
{
    const int in[3] = {a, b, cc};
    return opn(c, op, in, 3);
}

int em_gx_add(em_gctx *c, int a, int b) { return em_gx_op2(c, EM_OP_ADD, a, b); }
int em_gx_sub(em_gctx *c, int a, int b) { return em_gx_op2(c, EM_OP_SUB, a, b); }
/* Whether v is a rank-0 float constant equal to 1 (the default seed, mostly). */
static bool is_one(const em_gctx *c, int v)
{
    const em_value *x = v >= 0 ? em_gx_val(c, v) : NULL;
    if (x == NULL || x->kind != EM_VAL_INITIALIZER || x->rank != 0 || x->init.data == NULL) {
        return false;
    }
    return (x->dtype == EMBER_DTYPE_F32 && *(const float *)x->init.data == 1.0f) ||
           (x->dtype == EMBER_DTYPE_F64 && *(const double *)x->init.data == 1.0);
}

int em_gx_mul(em_gctx *c, int a, int b)
{
    if (b >= 0 && is_one(c, a) && em_gx_val(c, b)->dtype == em_gx_val(c, a)->dtype) {
        return b;
    }
    if (a >= 0 && is_one(c, b) && em_gx_val(c, a)->dtype == em_gx_val(c, b)->dtype) {
        return a;
    }
    return em_gx_op2(c, EM_OP_MUL, a, b);
}
int em_gx_div(em_gctx *c, int a, int b) { return em_gx_op2(c, EM_OP_DIV, a, b); }
int em_gx_neg(em_gctx *c, int a) { return em_gx_op1(c, EM_OP_NEG, a); }
int em_gx_where(em_gctx *c, int cond, int a, int b) { return em_gx_op3(c, EM_OP_WHERE, cond, a, b); }

int em_gx_cast(em_gctx *c, int a, ember_dtype to)
{
    if (a < 0 || !em_gx_ok(c)) {
        return -1;
    }
    if (em_gx_val(c, a)->dtype == to) {
        return a;
    }
    int ni = em_gx_begin(c, EM_OP_CAST, &a, 1, 1, NULL);
    em_gx_set_int(c, ni, "to", (int64_t)to);
    return em_gx_end(c, ni);
}

int em_gx_transpose(em_gctx *c, int a, const int64_t *perm, int n)
{
    if (a < 0) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_TRANSPOSE, &a, 1, 1, NULL);
    em_gx_set_ints(c, ni, "perm", perm, n);
    return em_gx_end(c, ni);
}

int em_gx_reduce(em_gctx *c, em_op op, int a, const int64_t *axes, int n, bool keepdims)
{
    if (n == 0 || a < 0) {
        return a;
    }
    int ax = em_gx_ints(c, axes, n);
    const int in[2] = {a, ax};
    if (ax < 0) {
        return -1;
    }
    int ni = em_gx_begin(c, op, in, 2, 1, NULL);
    em_gx_set_int(c, ni, "keepdims", keepdims ? 1 : 0);
    return em_gx_end(c, ni);
}

int em_gx_unsqueeze(em_gctx *c, int a, const int64_t *axes, int n)
{
    return n == 0 ? a : em_gx_op2(c, EM_OP_UNSQUEEZE, a, em_gx_ints(c, axes, n));
}

int em_gx_reshape(em_gctx *c, int a, int shape)
{
    return em_gx_op2(c, EM_OP_RESHAPE, a, shape);
}

int em_gx_expand(em_gctx *c, int a, int shape)
{
    return em_gx_op2(c, EM_OP_EXPAND, a, shape);
}

int em_gx_sum(em_gctx *c, const int *vals, int n)
{
    int part[16], cur = -1;
    if (n == 1) {
        return vals[0];
    }
    for (int i = 0; i < n;) {
        int k = 0;
        if (cur >= 0) {
            part[k++] = cur;
        }
        while (k < 16 && i < n) {
            part[k++] = vals[i++];
        }
        cur = opn(c, EM_OP_SUM, part, k);
    }
    return cur;
}

int em_gx_forward_output(em_gctx *c, int o, ember_dtype dt)
{
    char name[128];
    int vi = -1;
    if (!em_gx_ok(c)) {
        return -1;
    }
    em_node *fn = &c->g->nodes[c->node];
    if (fn->n_out > o) {
        return fn->out[o];
    }
    EMBER_ASSERT(fn->n_out == o);
    int *outs = em_realloc(c->g->al, fn->out, sizeof(int) * (size_t)(o + 1));
    if (outs == NULL) {
        c->st = em_status_oom();
        return -1;
    }
    fn->out = outs;
    snprintf(name, sizeof name, "%s/%u", c->prefix, c->serial++);
    const em_value *y = em_gx_val(c, outs[0]);
    em_value yc = *y;
    ember_status *st = em_graph_add_value(c->g, name, dt, yc.rank, yc.dims, &vi);
    if (st != NULL) {
        c->st = st;
        return -1;
    }
    fn = &c->g->nodes[c->node];
    fn->out[o] = vi;
    fn->n_out = o + 1;
    c->g->values[vi].producer = c->node;
    return vi;
}
