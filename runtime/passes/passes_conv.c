/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Convolution fusions (passes.h, steps 2-4): Conv + BatchNormalization, Conv + per-channel
 * constant Add, Conv + residual Add, Conv + activation. Each looks at the node that reads a
 * conv's output; the conv's output must be private (one reader, not a graph output).
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "ir/fusedconv.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

/* Node ni is a live f32 Conv (or, when `fused`, a plain-layout FusedConv) whose output is
 * private and whose epilogue is still empty (no activation, and no Z when `no_z`). */
static bool conv_head(const em_pctx *c, int ni, bool fused, bool no_z)
{
    if (ni < 0 || c->dead[ni]) {
        return false;
    }
    const em_node *n = &c->g->nodes[ni];
    if (n->op != EM_OP_CONV && !(fused && n->op == EM_OP_FUSEDCONV)) {
        return false;
    }
    if (n->op == EM_OP_FUSEDCONV &&
        (em_node_attr(n, "activation") != NULL || em_node_attr_int(n, "blocked", 0) != 0 ||
         (no_z && n->n_in > 3 && n->in[3] >= 0))) {
        return false;
    }
    return c->g->values[n->out[0]].dtype == EMBER_DTYPE_F32 && em_pass_private(c, n->out[0]);
}

/* The conv producing input i of node ni (see conv_head), or -1. */
static int conv_of(const em_pctx *c, int ni, int i, bool fused, bool no_z)
{
    const em_node *n = &c->g->nodes[ni];
    if (i >= n->n_in || n->in[i] < 0) {
        return -1;
    }
    int p = c->g->values[n->in[i]].producer;
    return conv_head(c, p, fused, no_z) ? p : -1;
}

static int64_t numel_of(const em_value *v)
{
    int64_t n = 1;
    for (int d = 0; d < v->rank; d++) {
        n *= v->dims[d].v < 0 ? 0 : v->dims[d].v;
    }
    return v->rank < 0 ? 0 : n;
}

/* Output channels M of conv ni with constant W (and B when given), or -1. */
static int64_t conv_channels(const em_pctx *c, int ni)
{
    const em_node *n = &c->g->nodes[ni];
    const em_value *w = &c->g->values[n->in[1]];
    if (em_pass_const_f32(c->g, n->in[1]) == NULL || w->rank < 3) {
        return -1;
    }
    if (n->n_in > 2 && n->in[2] >= 0 && em_pass_const_f32(c->g, n->in[2]) == NULL) {
        return -1;
    }
    return w->dims[0].v;
}

/* Gives conv ni new constant weights (scaled per output channel by s, when not NULL) and
 * bias: B' = B * s + shift. The old initializers stay for their other readers. */
static ember_status *rewrite_wb(em_pctx *c, int ni, const double *s, const double *shift)
{
    em_graph *g = c->g;
    em_node *n = &g->nodes[ni];
    const em_value *wv = &g->values[n->in[1]];
    int64_t m = wv->dims[0].v, per = numel_of(wv) / (m > 0 ? m : 1), dims[EM_MAX_RANK];
    const float *w = em_pass_const_f32(g, n->in[1]);
    const float *b = n->n_in > 2 && n->in[2] >= 0 ? em_pass_const_f32(g, n->in[2]) : NULL;
    int rank = wv->rank;
    char wname[256], bname[256];
    for (int d = 0; d < rank; d++) {
        dims[d] = wv->dims[d].v;
    }
    float *nw = s != NULL ? em_malloc(g->al, sizeof *nw * (size_t)(m * per + 1)) : NULL;
    float *nb = em_malloc(g->al, sizeof *nb * (size_t)(m + 1));
    ember_status *st = NULL;
    if (nb == NULL || (s != NULL && nw == NULL)) {
        st = em_status_oom();
        goto fail;
    }
    for (int64_t k = 0; k < m; k++) {
        double sk = s != NULL ? s[k] : 1.0;
        for (int64_t i = 0; s != NULL && i < per; i++) {
            nw[k * per + i] = (float)((double)w[k * per + i] * sk);
        }
        nb[k] = (float)((b != NULL ? (double)b[k] : 0.0) * sk + shift[k]);
    }
    em_pass_unique_name(g, n->name[0] ? n->name : wv->name, "/W_fold", wname, sizeof wname);
    em_pass_unique_name(g, n->name[0] ? n->name : wv->name, "/B_fold", bname, sizeof bname);
    int wi = n->in[1], bi;
    if (s != NULL) {
        EMBER_TRY(em_graph_add_initializer_copy(g, wname, EMBER_DTYPE_F32, rank, dims, nw, &wi));
    }
    EMBER_TRY(em_graph_add_initializer_copy(g, bname, EMBER_DTYPE_F32, 1, &m, nb, &bi));
    EMBER_TRY(em_pass_sync(c));
    em_pass_set_input(c, ni, 1, wi);
    if (g->nodes[ni].n_in > 2) {
        em_pass_set_input(c, ni, 2, bi);
    } else {
        EMBER_TRY(em_pass_push_input(c, ni, bi));
    }
fail:
    em_free(g->al, nw);
    em_free(g->al, nb);
    return st;
}

/* Conv ni's output is now node j's output 0; node j is removed. */
static void take_output(em_pctx *c, int ni, int j)
{
    c->g->nodes[ni].out[0] = c->g->nodes[j].out[0];
    c->g->values[c->g->nodes[ni].out[0]].producer = ni;
    em_pass_kill(c, j);
}

void em_pass_bn_scale_shift(const em_graph *g, const em_node *bn, int64_t m, double *ss)
{
    const float *gamma = em_pass_const_f32(g, bn->in[1]), *beta = em_pass_const_f32(g, bn->in[2]);
    const float *mean = em_pass_const_f32(g, bn->in[3]), *var = em_pass_const_f32(g, bn->in[4]);
    double eps = em_node_attr_float(bn, "epsilon", 1e-5f);
    for (int64_t k = 0; k < m; k++) {
        ss[k] = (double)gamma[k] / sqrt((double)var[k] + eps);
        ss[m + k] = (double)beta[k] - (double)mean[k] * ss[k];
    }
}

/* BatchNormalization j (inference, one output, constant f32 parameters) after a Conv. */
static ember_status *fold_bn(em_pctx *c, int j, bool *done)
{
    const em_node *bn = &c->g->nodes[j];
    int ni = conv_of(c, j, 0, false, true);
    int64_t m = ni >= 0 ? conv_channels(c, ni) : -1;
    *done = false;
    if (m < 0 || bn->n_out != 1 || em_node_attr_int(bn, "training_mode", 0) != 0) {
        return NULL;
    }
    const float *p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = em_pass_const_f32(c->g, bn->in[1 + i]);
        if (p[i] == NULL || numel_of(&c->g->values[bn->in[1 + i]]) != m) {
            return NULL;
        }
    }
    double *s = em_malloc(c->g->al, sizeof *s * (size_t)(2 * m + 1));
    if (s == NULL) {
        return em_status_oom();
    }
    em_pass_bn_scale_shift(c->g, bn, m, s);
    ember_status *st = rewrite_wb(c, ni, s, s + m);
    em_free(c->g->al, s);
    if (st == NULL) {
        take_output(c, ni, j);
        *done = true;
    }
    return st;
}

bool em_pass_same_shape(const em_value *a, const em_value *b)
{
    if (a->rank < 0 || a->rank != b->rank || a->dtype != b->dtype) {
        return false;
    }
    for (int d = 0; d < a->rank; d++) { /* known and equal, or one symbol */
        em_dim x = a->dims[d], y = b->dims[d];
        if (!(x.v >= 0 ? x.v == y.v : x.sym > 0 && x.sym == y.sym)) {
            return false;
        }
    }
    return true;
}

/* Add j of a Conv output and a constant holding one value per channel (or one value). */
static ember_status *fold_bias(em_pctx *c, int j, bool *done)
{
    const em_node *add = &c->g->nodes[j];
    *done = false;
    for (int side = 0; side < 2; side++) {
        int ni = conv_of(c, j, side, false, true);
        int64_t m = ni >= 0 ? conv_channels(c, ni) : -1;
        int cv = add->in[1 - side];
        const float *k = em_pass_const_f32(c->g, cv);
        if (m < 0 || k == NULL) {
            continue;
        }
        const em_value *kv = &c->g->values[cv];
        const em_value *y = &c->g->values[add->in[side]];
        int64_t n = numel_of(kv);
        bool ok = kv->rank <= y->rank && (n == 1 || n == m);
        for (int d = 0; ok && d < kv->rank; d++) {
            int yd = y->rank - kv->rank + d; /* the output axis this dim broadcasts against */
            ok = kv->dims[d].v == 1 || (yd == 1 && kv->dims[d].v == m);
        }
        if (!ok || !em_pass_same_shape(&c->g->values[add->out[0]], y)) {
            continue;
        }
        double *shift = em_malloc(c->g->al, sizeof *shift * (size_t)(m + 1));
        if (shift == NULL) {
            return em_status_oom();
        }
        for (int64_t i = 0; i < m; i++) {
            shift[i] = (double)k[n == 1 ? 0 : i];
        }
        ember_status *st = rewrite_wb(c, ni, NULL, shift);
        em_free(c->g->al, shift);
        if (st == NULL) {
            take_output(c, ni, j);
            *done = true;
        }
        return st;
    }
    return NULL;
}

/* Makes node ni a FusedConv (from a Conv). */
static void to_fused(em_pctx *c, int ni)
{
    c->g->nodes[ni].op = EM_OP_FUSEDCONV;
}

/* Add j of a Conv output y and another value z of y's shape: FusedConv(Z = z) at j. */
static ember_status *fuse_residual(em_pctx *c, int j, bool *done)
{
    const em_node *add = &c->g->nodes[j];
    *done = false;
    for (int side = 0; side < 2; side++) {
        int ni = conv_of(c, j, side, true, true);
        int z = add->in[1 - side];
        const em_value *y = &c->g->values[add->in[side]];
        if (ni < 0 || z == add->in[side] || !em_pass_same_shape(y, &c->g->values[z]) ||
            !em_pass_same_shape(y, &c->g->values[add->out[0]])) {
            continue;
        }
        to_fused(c, ni);
        ember_status *st = NULL;
        while (st == NULL && c->g->nodes[ni].n_in < 3) {
            st = em_pass_push_input(c, ni, -1);
        }
        if (st == NULL) {
            st = em_pass_push_input(c, ni, z);
        }
        if (st == NULL) {
            c->g->nodes[ni].out[0] = add->out[0];
            em_pass_move(c, ni, j);
            *done = true;
        }
        return st;
    }
    return NULL;
}

/* A scalar f32 constant input i of node n (absent: dflt); false when it is neither. */
static bool scalar_input(const em_pctx *c, const em_node *n, int i, float dflt, float *v)
{
    if (i >= n->n_in || n->in[i] < 0) {
        *v = dflt;
        return true;
    }
    const float *p = em_pass_const_f32(c->g, n->in[i]);
    if (p == NULL || numel_of(&c->g->values[n->in[i]]) != 1) {
        return false;
    }
    *v = p[0];
    return true;
}

/* The epilogue activation node j applies, or false when it is not one FusedConv takes. */
bool em_pass_activation_of(const em_pctx *c, int j, em_conv_epilogue *e)
{
    const em_node *n = &c->g->nodes[j];
    e->p[0] = e->p[1] = 0.0f;
    if (n->n_out != 1 || n->n_in < 1) {
        return false;
    }
    switch (n->op) {
    case EM_OP_RELU:
        e->act = EM_ACT_RELU;
        return true;
    case EM_OP_TANH:
        e->act = EM_ACT_TANH;
        return true;
    case EM_OP_SIGMOID:
        e->act = EM_ACT_SIGMOID;
        return true;
    case EM_OP_HARDSWISH:
        e->act = EM_ACT_HARDSWISH;
        return true;
    case EM_OP_SWISH: /* x * sigmoid(alpha * x): SiLU for alpha 1 (TorchScript's silu) */
        e->act = EM_ACT_SILU;
        return em_node_attr_float(n, "alpha", 1.0f) == 1.0f;
    case EM_OP_LEAKYRELU:
        e->act = EM_ACT_LEAKYRELU;
        e->p[0] = em_node_attr_float(n, "alpha", 0.01f);
        return true;
    case EM_OP_HARDSIGMOID:
        e->act = EM_ACT_HARDSIGMOID;
        e->p[0] = em_node_attr_float(n, "alpha", 0.2f);
        e->p[1] = em_node_attr_float(n, "beta", 0.5f);
        return true;
    case EM_OP_CLIP:
        e->act = EM_ACT_CLIP;
        return scalar_input(c, n, 1, -INFINITY, &e->p[0]) &&
               scalar_input(c, n, 2, INFINITY, &e->p[1]);
    case EM_OP_GELU: {
        const char *mode = em_node_attr_string(n, "approximate", "none");
        e->act = strcmp(mode, "tanh") == 0 ? EM_ACT_GELU_TANH : EM_ACT_GELU;
        return n->n_in == 1 && (e->act == EM_ACT_GELU_TANH || strcmp(mode, "none") == 0);
    }
    default:
        return false;
    }
}

ember_status *em_pass_set_epilogue(em_pctx *c, int ni, const char *act, const char *params,
                                   const em_conv_epilogue *e)
{
    ember_status *st = em_node_set_string(c->g, ni, act, em_conv_act_name(e->act));
    int np = em_conv_act_n_params(e->act);
    if (st == NULL && np > 0) {
        st = em_node_set_floats(c->g, ni, params, e->p, np);
    }
    return st;
}

ember_status *em_pass_set_activation(em_pctx *c, int ni, const em_conv_epilogue *e)
{
    return em_pass_set_epilogue(c, ni, "activation", "activation_params", e);
}

static ember_status *set_epilogue(em_pctx *c, int ni, const em_conv_epilogue *e)
{
    to_fused(c, ni);
    return em_pass_set_activation(c, ni, e);
}

/* x * Sigmoid(x) with x a conv output read by exactly these two nodes: the Mul's index. */
static int silu_mul(const em_pctx *c, int sig)
{
    const em_node *s = &c->g->nodes[sig];
    int x = s->in[0], sv = s->out[0];
    if (c->nread[x] != 2 || c->g->values[x].is_output || !em_pass_private(c, sv)) {
        return -1;
    }
    int k = em_pass_reader(c, sv, sig);
    if (k < 0 || c->g->nodes[k].op != EM_OP_MUL) {
        return -1;
    }
    const em_node *mul = &c->g->nodes[k];
    bool pair = (mul->in[0] == x && mul->in[1] == sv) || (mul->in[0] == sv && mul->in[1] == x);
    return pair && em_pass_same_shape(&c->g->values[x], &c->g->values[mul->out[0]]) ? k : -1;
}

/* Activation node j after a conv (or SiLU's Sigmoid + Mul): FusedConv at the last node. */
static ember_status *fuse_activation(em_pctx *c, int j, bool *done)
{
    const em_node *a = &c->g->nodes[j];
    em_conv_epilogue e;
    *done = false;
    if (a->n_in < 1 || a->in[0] < 0 || !em_pass_activation_of(c, j, &e)) {
        return NULL;
    }
    int last = j, ni = -1;
    if (a->op == EM_OP_SIGMOID) {
        int p = c->g->values[a->in[0]].producer;
        int k = p >= 0 ? silu_mul(c, j) : -1;
        const em_node *pn = p >= 0 ? &c->g->nodes[p] : NULL;
        if (k >= 0 && !c->dead[p] && (pn->op == EM_OP_CONV || pn->op == EM_OP_FUSEDCONV) &&
            em_node_attr(pn, "activation") == NULL && em_node_attr_int(pn, "blocked", 0) == 0 &&
            c->g->values[a->in[0]].dtype == EMBER_DTYPE_F32) {
            e.act = EM_ACT_SILU;
            ni = p;
            last = k;
        }
    }
    if (ni < 0) {
        ni = conv_of(c, j, 0, true, false);
    }
    if (ni < 0) {
        return NULL;
    }
    EM_PASS_TRY(set_epilogue(c, ni, &e));
    c->g->nodes[ni].out[0] = c->g->nodes[last].out[0];
    if (last != j) {
        em_pass_kill(c, j);
    }
    em_pass_move(c, ni, last);
    *done = true;
    return NULL;
}

ember_status *em_pass_fold_conv(em_pctx *c)
{
    for (int s = 0; s < 2; s++) {
        for (int j = 0; j < c->g->n_nodes; j++) {
            bool done;
            if (!c->dead[j] && c->g->nodes[j].op == (s == 0 ? EM_OP_BATCHNORM : EM_OP_ADD)) {
                EM_PASS_TRY((s == 0 ? fold_bn : fold_bias)(c, j, &done));
            }
        }
    }
    return NULL;
}

ember_status *em_pass_fuse_conv(em_pctx *c)
{
    typedef ember_status *(*rule)(em_pctx *, int, bool *);
    static const struct {
        em_op op;
        rule fn;
    } steps[] = {{EM_OP_BATCHNORM, fold_bn}, {EM_OP_ADD, fold_bias}, {EM_OP_ADD, fuse_residual}};
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        for (int j = 0; j < c->g->n_nodes; j++) {
            bool done;
            if (!c->dead[j] && c->g->nodes[j].op == steps[s].op) {
                EM_PASS_TRY(steps[s].fn(c, j, &done));
            }
        }
    }
    for (int j = 0; j < c->g->n_nodes; j++) {
        bool done;
        if (!c->dead[j]) {
            EM_PASS_TRY(fuse_activation(c, j, &done));
        }
    }
    return NULL;
}
