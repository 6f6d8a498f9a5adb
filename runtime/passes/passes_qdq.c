/* SPDX-License-Identifier: Apache-2.0 */
/*
 * QDQ -> integer rewrite (issue #19, first increment): the chain a QDQ model (ONNX Runtime's
 * quantize_static, torch.onnx of a quantized model) writes around each convolution,
 *
 *     DequantizeLinear(xq, xs, xz) ─┐
 *     DequantizeLinear(wq, ws, wz) ─┼─ Conv ─[ Relu ]─ QuantizeLinear(ys, yz) ─► yq
 *     DequantizeLinear(bq, bs)     ─┘
 *
 * becomes one QLinearConv(xq, xs, xz, wq, ws, wz, ys, yz, bq) writing yq: ONNX's op, whose
 * integer result rounds (acc + bq) * xs * ws / ys once where the fp32 chain rounds the float
 * conv and then the quotient, so the two agree within one output step (the fp32 path is
 * itself an approximation of the same real conv). The x86 kernel (kernels/x86/qconv_u8_avx2.c)
 * packs the weights once at plan time.
 *
 * Proved before rewriting, else the chain is left to the fp32 fallback (the weight
 * DequantizeLinear then folds into an f32 constant) and the reason goes to the passes' note
 * callback (for `ember inspect`):
 *  - 2-D Conv (rank-4 x), any group (kernels/x86: the int16 kernel for group 1, the VNNI-layout
 *    core for grouped convs, qdwconv_avx2.c for depthwise ones; the reference otherwise);
 *  - x dequantized per tensor: xq u8 / s8, xs a one-element f32 constant, xz a one-element
 *    constant zero point;
 *  - w a constant u8 / s8 [M, C, kH, kW] dequantized per tensor or per output channel (axis 0)
 *    with f32 scales and a zero point (one or M values);
 *  - the bias absent, or an int32 constant [M] dequantized with zero point 0 (or none) and
 *    scale exactly float(xs * ws[m]) for every m, so that bq is QLinearConv's bias as it is;
 *  - the Conv's output (and the Relu's) read only by the next node and no graph output; the
 *    QuantizeLinear per tensor with a one-element f32 scale and an 8-bit zero point;
 *  - a Relu between Conv and QuantizeLinear only when yz is the low end of y's range, where
 *    the quantizer's saturation already is the Relu (ORT drops the Relu there itself).
 * Zero points must be present (ONNX Runtime always writes them). MatMul / Gemm chains, Add,
 * pooling and the other ops stay on the fp32 path with the vector QuantizeLinear /
 * DequantizeLinear kernels (later increments of #19).
 */
#include "passes.h"

#include "core/alloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool q8(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_I8;
}

static int64_t numel_of(const em_value *v)
{
    int64_t n = 1;
    for (int d = 0; d < v->rank; d++) {
        n *= v->dims[d].v;
    }
    return n;
}

/* v is an initializer of dtype dt with one element, or (m > 0) a 1-D one of m elements. */
static bool const_of(const em_graph *g, int v, ember_dtype dt, int64_t m)
{
    if (v < 0) {
        return false;
    }
    const em_value *x = &g->values[v];
    if (x->kind != EM_VAL_INITIALIZER || x->dtype != dt || x->q != NULL || x->rank > 1) {
        return false;
    }
    int64_t n = numel_of(x);
    return n == 1 || (m > 0 && x->rank == 1 && n == m);
}

static int64_t int_at(const em_value *v, int64_t i)
{
    int64_t k = numel_of(v) == 1 ? 0 : i;
    switch (v->dtype) {
    case EMBER_DTYPE_U8:
        return ((const uint8_t *)v->init.data)[k];
    case EMBER_DTYPE_I8:
        return ((const int8_t *)v->init.data)[k];
    default:
        return ((const int32_t *)v->init.data)[k];
    }
}

/* Every element of the f32 constant v is positive and finite (a usable scale). */
static bool scales_ok(const em_graph *g, int v)
{
    const em_value *x = &g->values[v];
    for (int64_t i = 0; i < numel_of(x); i++) {
        float f = ((const float *)x->init.data)[i];
        if (!(f > 0.0f) || isinf(f)) {
            return false;
        }
    }
    return true;
}

/* A DequantizeLinear or QuantizeLinear node without the blocked / opset-23 extras. */
static bool plain_qdq(const em_node *n)
{
    return em_node_attr_int(n, "block_size", 0) == 0 && em_node_attr(n, "output_dtype") == NULL &&
           em_node_attr(n, "precision") == NULL && n->n_in == 3 && n->n_out == 1;
}

/* Node dq dequantizes per tensor a u8 / s8 value with a constant f32 scale and zero point. */
static const char *per_tensor_dq(const em_pctx *c, int dq)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[dq];
    if (!plain_qdq(n)) {
        return "x's DequantizeLinear is blocked, has output_dtype or no zero point";
    }
    ember_dtype dt = g->values[n->in[0]].dtype;
    if (!q8(dt)) {
        return "x is not uint8 / int8";
    }
    if (!const_of(g, n->in[1], EMBER_DTYPE_F32, 0) || !const_of(g, n->in[2], dt, 0)) {
        return "x's scale / zero point are not one-element constants (f32 scale)";
    }
    if (!scales_ok(g, n->in[1])) {
        return "x's scale is not positive and finite";
    }
    return NULL;
}

/* The weight's DequantizeLinear: constant u8 / s8 [M, ...], per tensor or per axis 0. */
static const char *weight_dq(const em_pctx *c, int dw, int64_t m)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[dw];
    if (!plain_qdq(n)) {
        return "w's DequantizeLinear is blocked, has output_dtype or no zero point";
    }
    const em_value *w = &g->values[n->in[0]];
    if (w->kind != EM_VAL_INITIALIZER || !q8(w->dtype) || w->q != NULL || w->rank != 4) {
        return "w is not a constant uint8 / int8 [M, C, kH, kW]";
    }
    int64_t axis = em_node_attr_int(n, "axis", 1);
    bool per_axis = numel_of(&g->values[n->in[1]]) != 1;
    if (per_axis && axis != 0 && axis != -4) {
        return "w is quantized along an axis other than the output channels";
    }
    if (!const_of(g, n->in[1], EMBER_DTYPE_F32, m) || !const_of(g, n->in[2], w->dtype, m)) {
        return "w's scale / zero point are not constants of one or M values (f32 scale)";
    }
    if (!scales_ok(g, n->in[1])) {
        return "w's scale is not positive and finite";
    }
    return NULL;
}

/* The bias: absent, or DequantizeLinear(bq int32 [M], bs, 0) with bs[m] == float(xs * ws[m]). */
static const char *bias_dq(const em_pctx *c, const em_node *conv, int dx, int dw, int64_t m,
                           int *bq)
{
    const em_graph *g = c->g;
    *bq = -1;
    if (conv->n_in < 3 || conv->in[2] < 0) {
        return NULL;
    }
    int db = em_pass_prod(c, conv->in[2], EM_OP_DEQUANTIZELINEAR);
    if (db < 0) {
        return "the bias is not dequantized from int32";
    }
    const em_node *n = &g->nodes[db];
    if (em_node_attr_int(n, "block_size", 0) != 0 || em_node_attr(n, "output_dtype") != NULL ||
        n->n_out != 1) {
        return "the bias's DequantizeLinear is blocked or has output_dtype";
    }
    const em_value *b = &g->values[n->in[0]];
    if (b->kind != EM_VAL_INITIALIZER || b->dtype != EMBER_DTYPE_I32 || b->rank != 1 ||
        b->dims[0].v != m || !const_of(g, n->in[1], EMBER_DTYPE_F32, m)) {
        return "the bias is not a constant int32 [M] with f32 scales";
    }
    if (n->n_in == 3 && n->in[2] >= 0) {
        const em_value *z = &g->values[n->in[2]];
        if (!const_of(g, n->in[2], EMBER_DTYPE_I32, m)) {
            return "the bias's zero point is not a constant int32";
        }
        for (int64_t i = 0; i < numel_of(z); i++) {
            if (int_at(z, i) != 0) {
                return "the bias's zero point is not 0";
            }
        }
    }
    const float xs = *(const float *)g->values[g->nodes[dx].in[1]].init.data;
    const em_value *ws = &g->values[g->nodes[dw].in[1]], *bs = &g->values[n->in[1]];
    for (int64_t i = 0; i < m; i++) {
        float w = ((const float *)ws->init.data)[numel_of(ws) == 1 ? 0 : i];
        float s = ((const float *)bs->init.data)[numel_of(bs) == 1 ? 0 : i];
        if (s != xs * w) {
            return "the bias's scale is not x_scale * w_scale";
        }
    }
    *bq = n->in[0];
    return NULL;
}

/* The QuantizeLinear after node `conv` (a Conv or another float op; through an optional Relu
 * or Clip of constant bounds the saturation already does): its node in *q, the Relu's / Clip's
 * (or -1) in *relu. */
static const char *output_q(const em_pctx *c, int conv, int *q, int *relu)
{
    const em_graph *g = c->g;
    int y = g->nodes[conv].out[0];
    *relu = -1;
    if (!em_pass_private(c, y)) {
        return "the output has other readers than one QuantizeLinear";
    }
    int r = em_pass_reader(c, y, conv);
    double mn = 0.0, mx = INFINITY; /* the Relu's or Clip's bounds */
    if (r >= 0 && (g->nodes[r].op == EM_OP_RELU || g->nodes[r].op == EM_OP_CLIP)) {
        const em_node *cl = &g->nodes[r];
        if (cl->op == EM_OP_CLIP) {
            mn = -INFINITY;
            if ((cl->n_in > 1 && cl->in[1] >= 0 && !em_pass_scalar(g, cl->in[1], &mn)) ||
                (cl->n_in > 2 && cl->in[2] >= 0 && !em_pass_scalar(g, cl->in[2], &mx))) {
                return "a Clip with bounds that are not constants";
            }
        }
        *relu = r;
        y = g->nodes[r].out[0];
        if (!em_pass_private(c, y)) {
            return "the Relu's output has other readers than one QuantizeLinear";
        }
        r = em_pass_reader(c, y, r);
    }
    if (r < 0 || g->nodes[r].op != EM_OP_QUANTIZELINEAR) {
        return "the output is not quantized";
    }
    const em_node *n = &g->nodes[r];
    if (!plain_qdq(n) || !const_of(g, n->in[1], EMBER_DTYPE_F32, 0) || n->in[2] < 0 ||
        !q8(g->values[n->in[2]].dtype) || !const_of(g, n->in[2], g->values[n->in[2]].dtype, 0)) {
        return "the QuantizeLinear is not per tensor with an f32 scale and an 8-bit zero point";
    }
    if (!scales_ok(g, n->in[1])) {
        return "the QuantizeLinear's scale is not positive and finite";
    }
    if (*relu >= 0) {
        /* Exact when the bounds lie outside what the QuantizeLinear can represent, (lo - z) *
         * scale .. (hi - z) * scale: the saturation then clamps as the Relu / Clip would. */
        const em_value *z = &g->values[n->in[2]];
        const bool u8 = z->dtype == EMBER_DTYPE_U8;
        const double ys = *(const float *)g->values[n->in[1]].init.data;
        const double lo = ((u8 ? 0.0 : -128.0) - (double)int_at(z, 0)) * ys;
        const double hi = ((u8 ? 255.0 : 127.0) - (double)int_at(z, 0)) * ys;
        if (g->nodes[*relu].op == EM_OP_RELU && mn > lo) {
            return "a Relu before a QuantizeLinear whose zero point is above the range's low end "
                   "(needs a clamp epilogue)";
        }
        if (mn > lo || mx < hi) {
            return "a Clip narrower than the QuantizeLinear's range (needs a clamp epilogue)";
        }
    }
    *q = r;
    return NULL;
}

/* The Conv attributes QLinearConv shares. */
static ember_status *copy_conv_attrs(em_pctx *c, int from, int to)
{
    static const char *const names[] = {"auto_pad",     "dilations", "group",
                                        "kernel_shape", "pads",      "strides"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const em_attr *a = em_node_attr(&c->g->nodes[from], names[i]);
        if (a == NULL) {
            continue;
        }
        switch (a->type) {
        case EM_ATTR_INT:
            EM_PASS_TRY(em_node_set_int(c->g, to, names[i], a->i));
            break;
        case EM_ATTR_INTS:
            EM_PASS_TRY(em_node_set_ints(c->g, to, names[i], a->ints, a->n));
            break;
        case EM_ATTR_STRING:
            EM_PASS_TRY(em_node_set_string(c->g, to, names[i], a->s));
            break;
        default:
            break;
        }
    }
    return NULL;
}

/* Conv node ni as a QDQ chain: NULL and the QLinearConv's inputs, or why not. */
static const char *match_conv(em_pctx *c, int ni, int *in, int *n_in, int *q, int *relu)
{
    const em_graph *g = c->g;
    const em_node *conv = &g->nodes[ni];
    int dx = em_pass_prod(c, conv->in[0], EM_OP_DEQUANTIZELINEAR);
    int dw = em_pass_prod(c, conv->in[1], EM_OP_DEQUANTIZELINEAR);
    const char *why;
    if (dx < 0 || dw < 0) {
        return dx < 0 ? "x is not dequantized" : "w is not dequantized";
    }
    const em_value *xv = &g->values[conv->in[0]], *wq = &g->values[g->nodes[dw].in[0]];
    if (xv->rank != 4 || conv->n_out != 1) {
        return "only 2-D convolutions have int8 kernels";
    }
    if ((why = per_tensor_dq(c, dx)) != NULL || (why = weight_dq(c, dw, wq->dims[0].v)) != NULL) {
        return why;
    }
    int bq;
    if ((why = bias_dq(c, conv, dx, dw, wq->dims[0].v, &bq)) != NULL ||
        (why = output_q(c, ni, q, relu)) != NULL) {
        return why;
    }
    const em_node *x = &g->nodes[dx], *w = &g->nodes[dw], *qn = &g->nodes[*q];
    const int v[9] = {x->in[0], x->in[1],  x->in[2],  w->in[0], w->in[1],
                      w->in[2], qn->in[1], qn->in[2], bq};
    memcpy(in, v, sizeof v);
    *n_in = bq >= 0 ? 9 : 8;
    return NULL;
}

ember_status *em_pass_qdq_conv(em_pctx *c)
{
    for (int ni = 0; ni < c->g->n_nodes; ni++) {
        if (c->dead[ni] || c->g->nodes[ni].op != EM_OP_CONV) {
            continue;
        }
        int in[9], n_in, q, relu;
        const em_node *conv = &c->g->nodes[ni];
        bool qdq = em_pass_prod(c, conv->in[0], EM_OP_DEQUANTIZELINEAR) >= 0 ||
                   em_pass_prod(c, conv->in[1], EM_OP_DEQUANTIZELINEAR) >= 0;
        const char *why = match_conv(c, ni, in, &n_in, &q, &relu);
        if (why != NULL) {
            if (qdq && c->note != NULL) {
                c->note(c->note_ctx, conv->name, NULL, why);
            }
            continue;
        }
        if (c->note != NULL) {
            c->note(c->note_ctx, conv->name, "QLinearConv", NULL);
        }
        /* the Conv dies after its attributes are copied (killing frees them) */
        EM_PASS_TRY(em_pass_replace(c, q, EM_OP_QLINEARCONV, in, n_in, &relu, relu >= 0));
        EM_PASS_TRY(copy_conv_attrs(c, ni, q));
        em_pass_kill(c, ni);
    }
    return NULL;
}

/* ---- the ops between the convolutions (issue #19, second increment) ----------------------- */

/* Input v of a node is DequantizeLinear(xq, xs, xz) per tensor: the DequantizeLinear in *dq. */
static const char *dq_input(const em_pctx *c, int v, int *dq)
{
    *dq = v >= 0 ? em_pass_prod(c, v, EM_OP_DEQUANTIZELINEAR) : -1;
    if (*dq < 0) {
        return "an input is not dequantized";
    }
    return per_tensor_dq(c, *dq);
}

/* The quantized dtype node dq dequantizes, and the one node q quantizes to. */
static ember_dtype dq_type(const em_graph *g, int dq)
{
    return g->values[g->nodes[dq].in[0]].dtype;
}

static ember_dtype q_type(const em_graph *g, int q)
{
    return g->values[g->nodes[q].in[2]].dtype;
}

/* The DequantizeLinear dq and the QuantizeLinear q use the same scale and zero point. */
static bool same_params(const em_graph *g, int dq, int q)
{
    const em_node *a = &g->nodes[dq], *b = &g->nodes[q];
    const em_value *za = &g->values[a->in[2]], *zb = &g->values[b->in[2]];
    float sa = *(const float *)g->values[a->in[1]].init.data;
    float sb = *(const float *)g->values[b->in[1]].init.data;
    return za->dtype == zb->dtype && sa == sb && int_at(za, 0) == int_at(zb, 0);
}

/* Copies every int / ints / float / string attribute of node `from` to node `to`. */
static ember_status *copy_attrs(em_pctx *c, int from, int to)
{
    for (int i = 0; i < c->g->nodes[from].n_attrs; i++) {
        const em_attr *a = &c->g->nodes[from].attrs[i];
        switch (a->type) {
        case EM_ATTR_INT:
            EM_PASS_TRY(em_node_set_int(c->g, to, a->name, a->i));
            break;
        case EM_ATTR_FLOAT:
            EM_PASS_TRY(em_node_set_float(c->g, to, a->name, a->f));
            break;
        case EM_ATTR_INTS:
            EM_PASS_TRY(em_node_set_ints(c->g, to, a->name, a->ints, a->n));
            break;
        case EM_ATTR_STRING:
            EM_PASS_TRY(em_node_set_string(c->g, to, a->name, a->s));
            break;
        default:
            break;
        }
    }
    return NULL;
}

/* What a float op becomes: the integer op, its inputs, the QuantizeLinear it ends at (-1: the
 * op's own output, QGemm's float32 form) and the Relu it swallows (-1: none). */
typedef struct qdq_match {
    em_op op;
    int in[2 + 3 * 8];
    int n_in;
    int q, relu;
    bool attrs; /* copy the float op's attributes */
} qdq_match;

static void push_dq(const em_graph *g, qdq_match *m, int dq)
{
    for (int k = 0; k < 3; k++) {
        m->in[m->n_in++] = g->nodes[dq].in[k];
    }
}

static void push_q(const em_graph *g, qdq_match *m)
{
    m->in[m->n_in++] = g->nodes[m->q].in[1];
    m->in[m->n_in++] = g->nodes[m->q].in[2];
}

/* Add / Mul of two per-tensor dequantized inputs -> QLinearAdd / QLinearMul; Sigmoid,
 * LeakyRelu, AveragePool, GlobalAveragePool of one -> their QLinear form. Inputs and output of
 * one dtype (the contrib ops' T). */
static const char *match_elementwise(em_pctx *c, int ni, qdq_match *m)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    const bool binary = n->op == EM_OP_ADD || n->op == EM_OP_MUL;
    int dq[2];
    const char *why;
    for (int i = 0; i < (binary ? 2 : 1); i++) {
        if ((why = dq_input(c, n->in[i], &dq[i])) != NULL) {
            return why;
        }
    }
    if (n->op == EM_OP_AVERAGEPOOL) {
        const int64_t *d;
        int64_t nd = em_node_attr_ints(n, "dilations", &d);
        for (int64_t i = 0; i < nd; i++) {
            if (d[i] != 1) {
                return "QLinearAveragePool has no dilations";
            }
        }
    }
    if ((why = output_q(c, ni, &m->q, &m->relu)) != NULL) {
        return why;
    }
    ember_dtype t = q_type(g, m->q);
    if (dq_type(g, dq[0]) != t || (binary && dq_type(g, dq[1]) != t)) {
        return "the inputs' and the output's 8-bit dtypes differ";
    }
    static const struct {
        em_op from, to;
    } ops[] = {{EM_OP_ADD, EM_OP_QLINEARADD},
               {EM_OP_MUL, EM_OP_QLINEARMUL},
               {EM_OP_SIGMOID, EM_OP_QLINEARSIGMOID},
               {EM_OP_LEAKYRELU, EM_OP_QLINEARLEAKYRELU},
               {EM_OP_AVERAGEPOOL, EM_OP_QLINEARAVERAGEPOOL},
               {EM_OP_GLOBALAVERAGEPOOL, EM_OP_QLINEARGLOBALAVERAGEPOOL}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (ops[i].from == n->op) {
            m->op = ops[i].to;
        }
    }
    m->attrs = true;
    push_dq(g, m, dq[0]);
    if (binary) {
        push_dq(g, m, dq[1]);
    }
    push_q(g, m);
    return NULL;
}

/* Concat of per-tensor dequantized inputs -> QLinearConcat(ys, yz, (x, xs, xz)...). */
static const char *match_concat(em_pctx *c, int ni, qdq_match *m)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    int dq[8];
    const char *why;
    if (n->n_in > 8) {
        return "a Concat of more than 8 inputs";
    }
    for (int i = 0; i < n->n_in; i++) {
        if ((why = dq_input(c, n->in[i], &dq[i])) != NULL) {
            return why;
        }
    }
    if ((why = output_q(c, ni, &m->q, &m->relu)) != NULL) {
        return why;
    }
    for (int i = 0; i < n->n_in; i++) {
        if (dq_type(g, dq[i]) != q_type(g, m->q)) {
            return "the inputs' and the output's 8-bit dtypes differ";
        }
    }
    m->op = EM_OP_QLINEARCONCAT;
    m->attrs = true;
    push_q(g, m);
    for (int i = 0; i < n->n_in; i++) {
        push_dq(g, m, dq[i]);
    }
    return NULL;
}

/* MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze, Resize (nearest) between a
 * DequantizeLinear and a QuantizeLinear of the same scale and zero point: the op moves to the 8-bit
 * side (max commutes with the monotone dequantization; the others only move bytes), Q(DQ(x)) being
 * x. */
static const char *match_move(em_pctx *c, int ni, qdq_match *m)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    int dq;
    const char *why;
    if (n->n_out != 1) {
        return "MaxPool's Indices output is read";
    }
    if ((why = dq_input(c, n->in[0], &dq)) != NULL ||
        (why = output_q(c, ni, &m->q, &m->relu)) != NULL) {
        return why;
    }
    if (!same_params(g, dq, m->q)) {
        return "the QuantizeLinear's scale / zero point differ from the DequantizeLinear's";
    }
    m->op = n->op;
    m->attrs = true;
    m->in[m->n_in++] = g->nodes[dq].in[0];
    for (int i = 1; i < n->n_in; i++) {
        m->in[m->n_in++] = n->in[i];
    }
    return NULL;
}

/* Resize picks input elements (a move) only in mode "nearest" (the default) and outside
 * tf_crop_and_resize, whose extrapolation_value is a float the 8-bit side cannot hold. */
static const char *match_resize(em_pctx *c, int ni, qdq_match *m)
{
    const em_node *n = &c->g->nodes[ni];
    if (strcmp(em_node_attr_string(n, "mode", "nearest"), "nearest") != 0) {
        return "a Resize other than mode nearest computes new values";
    }
    if (strcmp(em_node_attr_string(n, "coordinate_transformation_mode", "half_pixel"),
               "tf_crop_and_resize") == 0) {
        return "a tf_crop_and_resize Resize writes its float extrapolation_value";
    }
    return match_move(c, ni, m);
}

/* The bias of a Gemm: absent, or DequantizeLinear(bq int32 [N], bs, 0) with bs[n] equal to
 * float(as * bs[n]) (bias_dq's rule with N for M). */
static const char *match_gemm_b(em_pctx *c, const em_node *n, int dw, int64_t *nn)
{
    const em_graph *g = c->g;
    const em_node *w = &g->nodes[dw];
    const em_value *b = &g->values[w->in[0]];
    if (!plain_qdq(w) || b->kind != EM_VAL_INITIALIZER || !q8(b->dtype) || b->q != NULL ||
        b->rank != 2) {
        return "B is not a constant uint8 / int8 matrix dequantized per tensor or per column";
    }
    const bool tb = em_node_attr_int(n, "transB", 0) != 0;
    *nn = b->dims[tb ? 0 : 1].v;
    const int64_t axis = em_node_attr_int(w, "axis", 1), col = tb ? 0 : 1;
    const bool per_axis = numel_of(&g->values[w->in[1]]) != 1;
    if (per_axis && axis != col && axis != col - 2) {
        return "B is quantized along its inner (K) axis";
    }
    if (!const_of(g, w->in[1], EMBER_DTYPE_F32, *nn) || !const_of(g, w->in[2], b->dtype, *nn) ||
        !scales_ok(g, w->in[1])) {
        return "B's scale / zero point are not constants of one or N values (positive f32 "
               "scales)";
    }
    return NULL;
}

/* Gemm (alpha = beta = 1) of a per-tensor dequantized A and a constant dequantized B, bias as
 * for Conv -> com.microsoft QGemm, quantized by the QuantizeLinear after it or (no
 * QuantizeLinear: the Gemm's output is f32) QGemm's f32 form; MatMul without bias ->
 * QLinearMatMul. */
static const char *match_gemm(em_pctx *c, int ni, qdq_match *m)
{
    const em_graph *g = c->g;
    const em_node *n = &g->nodes[ni];
    const bool gemm = n->op == EM_OP_GEMM;
    int dx, dw = em_pass_prod(c, n->in[1], EM_OP_DEQUANTIZELINEAR);
    int64_t nn;
    const char *why;
    if ((why = dq_input(c, n->in[0], &dx)) != NULL) {
        return why;
    }
    if (dw < 0) {
        return "B is not dequantized";
    }
    if (g->values[n->in[0]].rank != 2 || g->values[n->in[1]].rank != 2) {
        return "A or B is not a matrix";
    }
    if (gemm && (em_node_attr_float(n, "alpha", 1.0f) != 1.0f ||
                 em_node_attr_float(n, "beta", 1.0f) != 1.0f)) {
        return "Gemm's alpha or beta is not 1";
    }
    if ((why = match_gemm_b(c, n, dw, &nn)) != NULL) {
        return why;
    }
    int bq = -1;
    if (gemm && (why = bias_dq(c, n, dx, dw, nn, &bq)) != NULL) {
        return why;
    }
    m->q = -1;
    m->relu = -1;
    int y = n->out[0], r = em_pass_private(c, y) ? em_pass_reader(c, y, ni) : -1;
    bool to_q = r >= 0 && (g->nodes[r].op == EM_OP_QUANTIZELINEAR || g->nodes[r].op == EM_OP_RELU);
    if ((to_q || !gemm) && (why = output_q(c, ni, &m->q, &m->relu)) != NULL) {
        return why;
    }
    m->op = gemm ? EM_OP_QGEMM : EM_OP_QLINEARMATMUL;
    push_dq(g, m, dx);
    push_dq(g, m, dw);
    if (gemm) {
        m->in[m->n_in++] = bq;
    }
    if (m->q >= 0) {
        push_q(g, m);
    }
    return NULL;
}

/* Node ni's chain: NULL and *m, or why not; *ours false for an op no chain starts at. */
static const char *match_op(em_pctx *c, int ni, qdq_match *m, bool *ours)
{
    *ours = true;
    memset(m, 0, sizeof *m);
    switch (c->g->nodes[ni].op) {
    case EM_OP_ADD:
    case EM_OP_MUL:
    case EM_OP_SIGMOID:
    case EM_OP_LEAKYRELU:
    case EM_OP_AVERAGEPOOL:
    case EM_OP_GLOBALAVERAGEPOOL:
        return match_elementwise(c, ni, m);
    case EM_OP_CONCAT:
        return match_concat(c, ni, m);
    case EM_OP_MAXPOOL:
    case EM_OP_FLATTEN:
    case EM_OP_RESHAPE:
    case EM_OP_TRANSPOSE:
    case EM_OP_SQUEEZE:
    case EM_OP_UNSQUEEZE:
        return match_move(c, ni, m);
    case EM_OP_RESIZE:
        return match_resize(c, ni, m);
    case EM_OP_GEMM:
    case EM_OP_MATMUL:
        return match_gemm(c, ni, m);
    default:
        *ours = false;
        return NULL;
    }
}

/* The Gemm attributes QGemm shares, read before the Gemm dies. */
typedef struct gemm_attrs {
    int64_t ta, tb;
} gemm_attrs;

static ember_status *rewrite(em_pctx *c, int ni, const qdq_match *m)
{
    const em_node *n = &c->g->nodes[ni];
    const gemm_attrs ga = {em_node_attr_int(n, "transA", 0), em_node_attr_int(n, "transB", 0)};
    const bool gemm = n->op == EM_OP_GEMM;
    if (m->q < 0) { /* QGemm's f32 form takes the Gemm's own slot and output */
        EM_PASS_TRY(em_pass_replace(c, ni, m->op, m->in, m->n_in, NULL, 0));
    } else {
        EM_PASS_TRY(em_pass_replace(c, m->q, m->op, m->in, m->n_in, &m->relu, m->relu >= 0));
        if (m->attrs) {
            EM_PASS_TRY(copy_attrs(c, ni, m->q));
        }
        em_pass_kill(c, ni);
    }
    const int at = m->q < 0 ? ni : m->q;
    if (gemm) {
        EM_PASS_TRY(em_node_set_int(c->g, at, "transA", ga.ta));
        EM_PASS_TRY(em_node_set_int(c->g, at, "transB", ga.tb));
    }
    return NULL;
}

/* Some input of node ni is dequantized: a chain the rewrite should tell about. */
static bool reads_dq(const em_pctx *c, int ni)
{
    const em_node *n = &c->g->nodes[ni];
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0 && em_pass_prod(c, n->in[i], EM_OP_DEQUANTIZELINEAR) >= 0) {
            return true;
        }
    }
    return false;
}

ember_status *em_pass_qdq_ops(em_pctx *c)
{
    for (int ni = 0; ni < c->g->n_nodes; ni++) {
        if (c->dead[ni] || !reads_dq(c, ni)) {
            continue;
        }
        qdq_match m;
        bool ours;
        const char *why = match_op(c, ni, &m, &ours);
        if (!ours) {
            continue;
        }
        char name[256];
        snprintf(name, sizeof name, "%s", c->g->nodes[ni].name);
        if (why != NULL) {
            if (c->note != NULL) {
                c->note(c->note_ctx, name, NULL, why);
            }
            continue;
        }
        char op[64]; /* an op moved to the 8-bit side keeps its name */
        snprintf(op, sizeof op, "%s%s", em_op_name(m.op),
                 m.op == c->g->nodes[ni].op ? " (int8)" : "");
        EM_PASS_TRY(rewrite(c, ni, &m));
        if (c->note != NULL) {
            c->note(c->note_ctx, name, op, NULL);
        }
    }
    return NULL;
}
