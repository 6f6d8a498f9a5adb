/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decomposed activations -> one op (passes.h), in the forms exporters write:
 *
 *  - Gelu (approximate "none"): f = Erf(Div(x, sqrt 2) | Mul(x, 1/sqrt 2)), then
 *    0.5 * x * (1 + f) as Mul(Mul(x, Add(f, 1)), 0.5) (torch.onnx), Mul(Mul(x, 0.5), Add(f, 1))
 *    or Mul(x, Mul(Add(f, 1), 0.5)), operands of Mul and Add in either order;
 *  - Gelu (approximate "tanh"): f = Tanh(Mul(sqrt(2/pi), Add(x, Mul(0.044715, x^3)))) with
 *    x^3 as Pow(x, 3), Mul(x, Mul(x, x)) or Mul(Mul(x, x), x), then the same tail (GPT-2);
 *  - HardSigmoid(alpha 1/6, beta 1/2): Clip(Add(x, 3), 0, 6) then Div 6 or Mul 1/6;
 *  - HardSwish: Mul(x, HardSigmoid(x) of alpha 1/6 and beta 1/2) (torch.onnx below opset 14),
 *    or x * Clip(x + 3, 0, 6) / 6 with the multiplication by x before the division;
 *  - Swish (SiLU, alpha 1): Mul(x, Sigmoid(x));
 *  - Mish: Mul(x, Tanh(Softplus(x))).
 *
 * Constants are compared within 1e-6 relative (passes.h, em_pass_scalar_is): f32 roundings
 * of the decimal constants pass, other values do not. Every value inside a pattern is read
 * only by the pattern and is no graph output (x itself may have other readers), x is f32 and
 * the result has x's shape. The new node takes the slot of the pattern's last node.
 */
#include "passes/passes.h"

#include "core/status.h"

#include <math.h>

typedef struct act_match {
    int x, last;
    em_op op;
    bool tanh_approx; /* Gelu's approximate = "tanh" */
    int kill[10], n_kill;
} act_match;

static void take(act_match *m, int ni)
{
    m->kill[m->n_kill++] = ni;
}

/* The one reader of value v, when v is private to it and it has op `op`; -1 otherwise. */
static int sole_reader(const em_pctx *c, int v, em_op op)
{
    int p = c->g->values[v].producer;
    int r = em_pass_only_read(c, v, 1) ? em_pass_reader(c, v, p) : -1;
    return r >= 0 && c->g->nodes[r].op == op && c->g->nodes[r].n_out == 1 ? r : -1;
}

/* Node r multiplies by 1/6: Div(v, 6) or Mul(v, 1/6); v in *v. */
static bool by_sixth(const em_graph *g, int r, int *v)
{
    const em_node *n = &g->nodes[r];
    *v = n->op == EM_OP_DIV ? em_pass_by_const(g, n, EM_OP_DIV, 6.0, false)
                            : em_pass_by_const(g, n, EM_OP_MUL, 1.0 / 6.0, true);
    return *v >= 0;
}

/* ---- Gelu ---- */

/* 0.5 * x * (1 + f) after value f: sets m->last; false when the tail is not there. */
static bool half_x_tail(const em_pctx *c, int f, act_match *m)
{
    const em_graph *g = c->g;
    int a1 = sole_reader(c, f, EM_OP_ADD);
    if (a1 < 0 || em_pass_by_const(g, &g->nodes[a1], EM_OP_ADD, 1.0, true) != f) {
        return false;
    }
    int b1 = g->nodes[a1].out[0], m1 = sole_reader(c, b1, EM_OP_MUL);
    int o = m1 >= 0 ? em_pass_other(&g->nodes[m1], b1) : -1;
    if (o < 0 || o == b1) {
        return false;
    }
    take(m, a1);
    int h = em_pass_prod(c, o, EM_OP_MUL);
    if (h >= 0 && em_pass_only_read(c, o, 1) &&
        em_pass_by_const(g, &g->nodes[h], EM_OP_MUL, 0.5, true) == m->x) {
        take(m, h); /* Mul(Mul(x, 0.5), 1 + f) */
        m->last = m1;
        return true;
    }
    bool half = em_pass_scalar_is(g, o, 0.5); /* Mul(1 + f, 0.5), then by x */
    if (o != m->x && !half) {
        return false;
    }
    int y1 = g->nodes[m1].out[0], m2 = sole_reader(c, y1, EM_OP_MUL);
    if (m2 < 0) {
        return false;
    }
    const em_node *n2 = &g->nodes[m2];
    bool ok = half ? em_pass_other(n2, y1) == m->x && n2->in[0] != n2->in[1]
                   : em_pass_by_const(g, n2, EM_OP_MUL, 0.5, true) == y1;
    take(m, m1);
    m->last = m2;
    return ok;
}

/* Erf(x / sqrt 2) at node e. */
static bool match_gelu_erf(const em_pctx *c, int e, act_match *m)
{
    const em_graph *g = c->g;
    int a = g->nodes[e].in[0];
    int dv = em_pass_prod(c, a, EM_OP_DIV), mu = em_pass_prod(c, a, EM_OP_MUL);
    if (!em_pass_only_read(c, a, 1) || (dv < 0 && mu < 0)) {
        return false;
    }
    m->x = dv >= 0 ? em_pass_by_const(g, &g->nodes[dv], EM_OP_DIV, sqrt(2.0), false)
                   : em_pass_by_const(g, &g->nodes[mu], EM_OP_MUL, sqrt(0.5), true);
    if (m->x < 0) {
        return false;
    }
    take(m, dv >= 0 ? dv : mu);
    take(m, e);
    m->op = EM_OP_GELU;
    return half_x_tail(c, g->nodes[e].out[0], m);
}

/* x^3 in value v: Pow(x, 3), Mul(x, Mul(x, x)) or Mul(Mul(x, x), x); x in *x. */
static bool cube_of(const em_pctx *c, int v, act_match *m, int *x)
{
    const em_graph *g = c->g;
    int p = em_pass_prod(c, v, EM_OP_POW);
    if (p >= 0 && em_pass_scalar_is(g, g->nodes[p].in[1], 3.0)) {
        take(m, p);
        *x = g->nodes[p].in[0];
        return true;
    }
    p = em_pass_prod(c, v, EM_OP_MUL);
    for (int side = 0; p >= 0 && side < 2; side++) {
        int sq = g->nodes[p].in[side], q = em_pass_prod(c, sq, EM_OP_MUL);
        int xo = g->nodes[p].in[1 - side];
        if (q >= 0 && em_pass_only_read(c, sq, 1) && g->nodes[q].in[0] == xo &&
            g->nodes[q].in[1] == xo) {
            take(m, p);
            take(m, q);
            *x = xo;
            return true;
        }
    }
    return false;
}

/* Tanh(sqrt(2/pi) * (x + 0.044715 x^3)) at node e. */
static bool match_gelu_tanh(const em_pctx *c, int e, act_match *m)
{
    const em_graph *g = c->g;
    int u = g->nodes[e].in[0], mk = em_pass_prod(c, u, EM_OP_MUL);
    int w = mk >= 0 && em_pass_only_read(c, u, 1)
                ? em_pass_by_const(g, &g->nodes[mk], EM_OP_MUL,
                                   0.79788456080286535588 /* sqrt(2 / pi) */, true)
                : -1;
    int ad = em_pass_prod(c, w, EM_OP_ADD);
    if (ad < 0 || !em_pass_only_read(c, w, 1)) {
        return false;
    }
    for (int side = 0; side < 2; side++) {
        int t = g->nodes[ad].in[side], x3 = -1, xc = -1, mt = em_pass_prod(c, t, EM_OP_MUL);
        m->x = g->nodes[ad].in[1 - side];
        m->n_kill = 0;
        if (mt >= 0 && em_pass_only_read(c, t, 1)) {
            x3 = em_pass_by_const(g, &g->nodes[mt], EM_OP_MUL, 0.044715, true);
        }
        if (x3 >= 0 && em_pass_only_read(c, x3, 1) && cube_of(c, x3, m, &xc) && xc == m->x) {
            take(m, mt);
            take(m, ad);
            take(m, mk);
            take(m, e);
            m->op = EM_OP_GELU;
            m->tanh_approx = true;
            return half_x_tail(c, g->nodes[e].out[0], m);
        }
    }
    return false;
}

/* ---- HardSigmoid, HardSwish, SiLU, Mish ---- */

/* Clip(Add(x, 3), 0, 6) at node cl (or Clip(Relu(Add(x, 3)), 0 or none, 6), torch's relu6),
 * then / 6 (HardSigmoid), or * x then / 6 (HardSwish). */
static bool match_hard_clip(const em_pctx *c, int cl, act_match *m)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[cl];
    int a = n->in[0], relu = em_pass_prod(c, a, EM_OP_RELU);
    bool lo_ok = n->n_in > 1 && em_pass_scalar_is(g, n->in[1], 0.0);
    if (relu >= 0 && em_pass_only_read(c, a, 1)) {
        lo_ok = lo_ok || n->n_in < 2 || n->in[1] < 0;
        take(m, relu);
        a = g->nodes[relu].in[0];
    }
    if (n->n_in != 3 || !lo_ok || !em_pass_scalar_is(g, n->in[2], 6.0) ||
        !em_pass_only_read(c, a, 1)) {
        return false;
    }
    int ad = em_pass_prod(c, a, EM_OP_ADD), q = n->out[0], v = -1;
    m->x = ad >= 0 ? em_pass_by_const(g, &g->nodes[ad], EM_OP_ADD, 3.0, true) : -1;
    int r = em_pass_only_read(c, q, 1) ? em_pass_reader(c, q, cl) : -1;
    if (m->x < 0 || r < 0) {
        return false;
    }
    take(m, ad);
    take(m, cl);
    if (by_sixth(g, r, &v) && v == q) {
        m->op = EM_OP_HARDSIGMOID;
        m->last = r;
        return true;
    }
    const em_node *rn = &g->nodes[r];
    if (rn->op != EM_OP_MUL || em_pass_other(rn, q) != m->x || rn->in[0] == rn->in[1]) {
        return false;
    }
    int rv = rn->out[0], r2 = em_pass_only_read(c, rv, 1) ? em_pass_reader(c, rv, r) : -1;
    if (r2 < 0 || !by_sixth(g, r2, &v) || v != rv) {
        return false;
    }
    take(m, r);
    m->op = EM_OP_HARDSWISH;
    m->last = r2;
    return true;
}

/* Mul(x, f(x)) where node f (one input x, output read only by that Mul) is the given op. */
static bool times_input(const em_pctx *c, int f, act_match *m)
{
    const em_node *n = &c->g->nodes[f];
    int r = n->n_in == 1 ? sole_reader(c, n->out[0], EM_OP_MUL) : -1;
    if (r < 0 || em_pass_other(&c->g->nodes[r], n->out[0]) != n->in[0] ||
        c->g->nodes[r].in[0] == c->g->nodes[r].in[1]) {
        return false;
    }
    m->x = n->in[0];
    m->last = r;
    take(m, f);
    return true;
}

/* Mul(x, HardSigmoid(x)) with alpha 1/6, beta 1/2 at node h. */
static bool match_hardswish(const em_pctx *c, int h, act_match *m)
{
    const em_node *n = &c->g->nodes[h];
    double a = em_node_attr_float(n, "alpha", 0.2f), b = em_node_attr_float(n, "beta", 0.5f);
    m->op = EM_OP_HARDSWISH;
    return fabs(a - 1.0 / 6.0) <= 1e-6 / 6.0 && b == 0.5 && times_input(c, h, m);
}

static bool match_silu(const em_pctx *c, int s, act_match *m)
{
    m->op = EM_OP_SWISH;
    return times_input(c, s, m);
}

/* Mul(x, Tanh(Softplus(x))) at the Softplus sp. */
static bool match_mish(const em_pctx *c, int sp, act_match *m)
{
    const em_graph *g = c->g;
    int t = sole_reader(c, g->nodes[sp].out[0], EM_OP_TANH);
    int tv = t >= 0 ? g->nodes[t].out[0] : -1, r = t >= 0 ? sole_reader(c, tv, EM_OP_MUL) : -1;
    m->x = g->nodes[sp].in[0];
    if (r < 0 || em_pass_other(&g->nodes[r], tv) != m->x ||
        g->nodes[r].in[0] == g->nodes[r].in[1]) {
        return false;
    }
    take(m, sp);
    take(m, t);
    m->op = EM_OP_MISH;
    m->last = r;
    return true;
}

/* ---- the driver ---- */

static ember_status *emit(em_pctx *c, const act_match *m)
{
    em_graph *g = c->g;
    const int in[1] = {m->x};
    EM_PASS_TRY(em_pass_replace(c, m->last, m->op, in, 1, m->kill, m->n_kill));
    if (m->op == EM_OP_GELU && m->tanh_approx) {
        EM_PASS_TRY(em_node_set_string(g, m->last, "approximate", "tanh"));
    } else if (m->op == EM_OP_HARDSIGMOID) {
        EM_PASS_TRY(em_node_set_float(g, m->last, "alpha", (float)(1.0 / 6.0)));
        EM_PASS_TRY(em_node_set_float(g, m->last, "beta", 0.5f));
    }
    return NULL;
}

typedef bool (*act_rule)(const em_pctx *c, int j, act_match *m);

ember_status *em_pass_fuse_act(em_pctx *c)
{
    static const struct {
        em_op anchor;
        act_rule match;
    } rules[] = {{EM_OP_CLIP, match_hard_clip}, {EM_OP_HARDSIGMOID, match_hardswish},
                 {EM_OP_ERF, match_gelu_erf},   {EM_OP_TANH, match_gelu_tanh},
                 {EM_OP_SOFTPLUS, match_mish},  {EM_OP_SIGMOID, match_silu}};
    em_pass_refresh_producers(c);
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        for (int j = 0; j < c->g->n_nodes; j++) {
            act_match m = {-1, -1, EM_OP_COUNT, false, {0}, 0};
            if (c->dead[j] || c->g->nodes[j].op != rules[r].anchor || c->g->nodes[j].n_in < 1 ||
                !rules[r].match(c, j, &m)) {
                continue;
            }
            const em_value *x = &c->g->values[m.x];
            const em_value *y = &c->g->values[c->g->nodes[m.last].out[0]];
            if (x->dtype == EMBER_DTYPE_F32 && em_pass_same_shape(x, y)) {
                EM_PASS_TRY(emit(c, &m));
            }
        }
    }
    return NULL;
}
