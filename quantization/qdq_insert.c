/* SPDX-License-Identifier: Apache-2.0 */
/* The quantizer's graph rewrite: fp32 graph -> QDQ graph as ONNX Runtime writes it
 * (qdq_insert.h). */
#include "qdq_insert.h"

#include "core/alloc.h"
#include "core/status.h"
#include "passes/passes.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- scale and zero point ---- */

void em_qi_qrange(ember_dtype dt, bool symmetric, int *qmin, int *qmax)
{
    if (dt == EMBER_DTYPE_U8) {
        *qmin = 0;
        *qmax = 255;
    } else {
        *qmin = symmetric ? -127 : -128;
        *qmax = 127;
    }
}

void em_qi_scale_zp(float rmin, float rmax, int qmin, int qmax, bool symmetric, float *scale,
                    int *zp)
{
    rmin = rmin < 0.0f ? rmin : 0.0f;
    rmax = rmax > 0.0f ? rmax : 0.0f;
    if (symmetric) {
        float a = fabsf(rmin) > fabsf(rmax) ? fabsf(rmin) : fabsf(rmax);
        rmin = -a;
        rmax = a;
    }
    double s = ((double)rmax - (double)rmin) / ((double)qmax - (double)qmin);
    if (s < (double)FLT_MIN) {
        *scale = 1.0f;
        *zp = 0;
        return;
    }
    if (symmetric) {
        *zp = (int)nearbyint(((double)qmin + (double)qmax) / 2.0);
    } else {
        *zp = (int)nearbyint((double)qmin - (double)rmin / s);
    }
    *scale = (float)s;
}

/* ---- the plan ---- */

static bool is_f32_init(const em_graph *g, int v)
{
    return v >= 0 && g->values[v].kind == EM_VAL_INITIALIZER && g->values[v].dtype == EMBER_DTYPE_F32 &&
           g->values[v].vt == EM_VT_TENSOR;
}

static bool is_f32_act(const em_graph *g, int v)
{
    return v >= 0 && g->values[v].kind != EM_VAL_INITIALIZER && g->values[v].dtype == EMBER_DTYPE_F32 &&
           g->values[v].vt == EM_VT_TENSOR;
}

static bool excluded(const em_node *n, const em_qi_opts *o, bool *used)
{
    bool hit = false;
    for (int k = 0; k < o->n_exclude; k++) {
        if (strcmp(o->exclude[k], n->name) == 0 || strcmp(o->exclude[k], em_op_name(n->op)) == 0) {
            used[k] = true;
            hit = true;
        }
    }
    return hit;
}

typedef enum qkind {
    QK_NONE = 0,
    QK_CONV,
    QK_GEMM,
    QK_MATMUL,
    QK_ACT,
    QK_DIRECT,
    QK_ALL,
    QK_NORM
} qkind;

static qkind kind_of(em_op op)
{
    switch (op) {
    case EM_OP_CONV:
    case EM_OP_CONVTRANSPOSE: return QK_CONV;
    case EM_OP_BATCHNORM:
    case EM_OP_INSTANCENORM:
    case EM_OP_LAYERNORM: return QK_NORM;
    case EM_OP_GEMM: return QK_GEMM;
    case EM_OP_MATMUL: return QK_MATMUL;
    case EM_OP_RELU:
    case EM_OP_CLIP: return QK_ACT;
    case EM_OP_RESHAPE:
    case EM_OP_TRANSPOSE:
    case EM_OP_SQUEEZE:
    case EM_OP_UNSQUEEZE:
    case EM_OP_FLATTEN:
    case EM_OP_MAXPOOL:
    case EM_OP_AVERAGEPOOL:
    case EM_OP_SLICE:
    case EM_OP_RESIZE: return QK_DIRECT;
    case EM_OP_ADD:
    case EM_OP_MUL:
    case EM_OP_CONCAT:
    case EM_OP_GLOBALAVERAGEPOOL:
    case EM_OP_SIGMOID:
    case EM_OP_LEAKYRELU:
    case EM_OP_SOFTMAX: return QK_ALL;
    default: return QK_NONE;
    }
}

void em_qi_plan_free(const ember_allocator *al, em_qi_plan *p)
{
    em_free(al, p->act);
    em_free(al, p->share);
    em_free(al, p->need);
    em_free(al, p->w_axis);
    em_free(al, p->bias_of);
    em_free(al, p->w_tr);
    em_free(al, p->quant);
    em_free(al, p->removed);
    em_free(al, (void *)p->why);
    em_free(al, p->exclude_used);
    memset(p, 0, sizeof *p);
}

static void mark_act(const em_graph *g, em_qi_plan *p, int v)
{
    if (is_f32_act(g, v)) {
        p->act[v] = true;
    } else if (is_f32_init(g, v) && p->w_axis[v] == -1) {
        p->w_axis[v] = -2; /* a constant input of Add / Mul / Concat: a per-tensor weight */
    }
}

static void mark_weight(const em_graph *g, em_qi_plan *p, int v, int axis, bool per_channel)
{
    if (p->w_axis[v] != -1) {
        return; /* shared with a node seen first: its choice stands */
    }
    int rank = g->values[v].init.rank;
    p->w_axis[v] = per_channel && axis < rank && rank >= 2 ? axis : -2;
}

/* Static mode, one node: ORT's QDQ op quantizers (its operators/ folder). */
static void plan_static(const em_graph *g, const em_qi_opts *o, em_qi_plan *p, const int *nread,
                        int i)
{
    const em_node *n = &g->nodes[i];
    int x = n->in[0], y = n->out[0];
    switch (kind_of(n->op)) {
    case QK_CONV:
    case QK_GEMM: {
        if (!is_f32_act(g, x) || !is_f32_init(g, n->in[1])) {
            p->why[i] = "its weight is not a constant f32 tensor";
            return;
        }
        int axis = 0;
        if (n->op == EM_OP_CONVTRANSPOSE) { /* weight [C_in, C_out / group, k...]: ORT's axis 1 */
            if (em_node_attr_int(n, "group", 1) != 1) {
                p->why[i] = "a ConvTranspose with group > 1 (per-channel weight scales on axis 1 "
                            "would not match its bias)";
                return;
            }
            axis = 1;
        }
        if (n->op == EM_OP_GEMM) {
            if (em_node_attr_int(n, "transA", 0) != 0) {
                p->why[i] = "transA is set";
                return;
            }
            axis = em_node_attr_int(n, "transB", 0) != 0 ? 0 : 1;
        }
        mark_act(g, p, x);
        mark_act(g, p, y);
        mark_weight(g, p, n->in[1], axis, o->per_channel);
        int b = n->n_in > 2 ? n->in[2] : -1;
        if (is_f32_init(g, b) && g->values[b].init.rank == 1 &&
            em_node_attr_float(n, "beta", 1.0f) == 1.0f) {
            p->bias_of[b] = p->bias_of[b] == -1 ? i : -3; /* shared biases stay fp32 */
        }
        p->quant[i] = true;
        return;
    }
    case QK_MATMUL:
        for (int k = 0; k < 2; k++) {
            if (is_f32_init(g, n->in[k])) {
                mark_weight(g, p, n->in[k], 1, o->per_channel && k == 1);
            } else {
                mark_act(g, p, n->in[k]);
            }
        }
        mark_act(g, p, y);
        p->quant[i] = true;
        return;
    case QK_ACT:
        if (!p->act[x]) {
            p->why[i] = "its input is not quantized";
            return;
        }
        if (!o->act_symmetric && g->values[x].producer >= 0 && nread[x] == 1 &&
            !g->values[x].is_output && !g->values[y].is_output) {
            /* ORT's try_replacing_upstream_output: the producer writes y, whose Q/DQ (with
             * y's calibrated range) clips as the activation did. */
            p->act[x] = false;
            p->removed[i] = true;
        }
        mark_act(g, p, y);
        p->quant[i] = true;
        return;
    case QK_DIRECT:
        if (n->op == EM_OP_RESIZE && o->opset > 0 && o->opset < 11) {
            p->why[i] = "a Resize in a model before opset 11 (ORT's QDQResize leaves it)";
            return;
        }
        if (!p->act[x]) {
            p->why[i] = "its input is not quantized";
            return;
        }
        mark_act(g, p, y);
        if (p->act[y]) {
            p->share[y] = p->share[x] >= 0 ? p->share[x] : x;
        }
        p->quant[i] = true;
        return;
    case QK_ALL:
        for (int k = 0; k < n->n_in; k++) {
            mark_act(g, p, n->in[k]);
        }
        for (int k = 0; k < n->n_out; k++) {
            mark_act(g, p, n->out[k]);
        }
        p->quant[i] = true;
        return;
    case QK_NORM: { /* ORT's QDQNormalization: input, scale (a weight: per tensor when 1-D),
                       * bias (int32), every output */
        int sc = n->in[1], b = n->n_in > 2 ? n->in[2] : -1;
        if (!is_f32_act(g, x)) {
            p->why[i] = "its input is not an f32 tensor";
            return;
        }
        int px = g->values[x].producer;
        if (n->op == EM_OP_BATCHNORM && px >= 0 && nread[x] == 1 && !g->values[x].is_output &&
            (g->nodes[px].op == EM_OP_CONV || g->nodes[px].op == EM_OP_CONVTRANSPOSE)) {
            /* ORT's flow runs quant_pre_process first, which folds this BN into the conv; a
             * Q/DQ pair between them would cost ~3 dB (cnn_v13: 45.0 -> 41.6 dB) */
            p->why[i] = "it follows a Conv that ORT's quant_pre_process folds it into (ember "
                        "does not fold it before quantizing yet)";
            return;
        }
        if (n->op == EM_OP_LAYERNORM && is_f32_init(g, sc) && g->values[sc].init.rank != 1) {
            p->why[i] = "a LayerNormalization whose scale is not 1-D";
            return;
        }
        mark_act(g, p, x);
        if (is_f32_init(g, sc)) {
            mark_weight(g, p, sc, 1, o->per_channel);
        } else {
            mark_act(g, p, sc);
        }
        if (is_f32_init(g, b) && is_f32_init(g, sc) && g->values[b].init.rank == 1) {
            p->bias_of[b] = p->bias_of[b] == -1 ? i : -3;
        }
        for (int k = 0; k < n->n_out; k++) {
            mark_act(g, p, n->out[k]);
        }
        p->quant[i] = true;
        return;
    }
    case QK_NONE: return;
    }
}

/* Dynamic and weight-only modes, one node. */
static void plan_weights(const em_graph *g, const em_qi_opts *o, em_qi_plan *p, int i)
{
    const em_node *n = &g->nodes[i];
    qkind k = kind_of(n->op);
    if (k != QK_CONV && k != QK_GEMM && k != QK_MATMUL) {
        return;
    }
    int w = n->in[1];
    if (!is_f32_init(g, w) || !is_f32_act(g, n->in[0])) {
        p->why[i] = "its weight is not a constant f32 tensor";
        return;
    }
    if (o->mode == EM_QI_DYNAMIC) {
        if (k == QK_CONV || g->values[w].init.rank != 2) {
            p->why[i] = k == QK_CONV ? "dynamic mode quantizes MatMul and Gemm"
                                     : "its weight is not 2-D";
            return;
        }
        if (k == QK_GEMM) {
            int c = n->n_in > 2 ? n->in[2] : -1;
            if (em_node_attr_int(n, "transA", 0) != 0 || em_node_attr_float(n, "alpha", 1.0f) != 1.0f ||
                (c >= 0 && (!is_f32_init(g, c) || g->values[c].init.rank != 1 ||
                            em_node_attr_float(n, "beta", 1.0f) != 1.0f))) {
                p->why[i] = "a Gemm with transA, alpha != 1 or a C that is not a 1-D constant "
                            "with beta 1";
                return;
            }
            if (p->w_axis[w] == -1) {
                p->w_tr[w] = em_node_attr_int(n, "transB", 0) != 0;
            } else if (p->w_tr[w] != (em_node_attr_int(n, "transB", 0) != 0)) {
                p->why[i] = "its weight is shared with a node that reads it the other way round";
                return;
            }
        } else if (p->w_tr[w]) {
            p->why[i] = "its weight is shared with a node that reads it the other way round";
            return;
        }
    }
    int axis = n->op == EM_OP_CONVTRANSPOSE                           ? 1
               : k == QK_CONV                                        ? 0
               : k == QK_GEMM && em_node_attr_int(n, "transB", 0) != 0 ? 0
                                                                     : 1;
    mark_weight(g, p, w, axis, o->per_channel);
    p->quant[i] = true;
}

ember_status *em_qi_plan_make(const em_graph *g, const em_qi_opts *o, em_qi_plan *p)
{
    const ember_allocator *al = g->al;
    memset(p, 0, sizeof *p);
    size_t nv = (size_t)g->n_values + 1, nn = (size_t)g->n_nodes + 1;
    p->n_values = g->n_values;
    p->n_nodes = g->n_nodes;
    p->act = em_calloc(al, nv, sizeof *p->act);
    p->share = em_malloc(al, nv * sizeof *p->share);
    p->need = em_calloc(al, nv, sizeof *p->need);
    p->w_axis = em_malloc(al, nv * sizeof *p->w_axis);
    p->bias_of = em_malloc(al, nv * sizeof *p->bias_of);
    p->w_tr = em_calloc(al, nv, sizeof *p->w_tr);
    p->quant = em_calloc(al, nn, sizeof *p->quant);
    p->removed = em_calloc(al, nn, sizeof *p->removed);
    p->why = em_calloc(al, nn, sizeof *p->why);
    p->exclude_used = em_calloc(al, (size_t)o->n_exclude + 1, sizeof *p->exclude_used);
    int *nread = em_calloc(al, nv, sizeof *nread);
    if (!p->act || !p->share || !p->need || !p->w_axis || !p->bias_of || !p->w_tr || !p->quant || !p->removed ||
        !p->why || !p->exclude_used || !nread) {
        em_free(al, nread);
        em_qi_plan_free(al, p);
        return em_status_oom();
    }
    for (int v = 0; v < g->n_values; v++) {
        p->share[v] = -1;
        p->w_axis[v] = -1;
        p->bias_of[v] = -1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        for (int k = 0; k < g->nodes[i].n_in; k++) {
            if (g->nodes[i].in[k] >= 0) {
                nread[g->nodes[i].in[k]]++;
            }
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const em_node *n = &g->nodes[i];
        if (excluded(n, o, p->exclude_used)) {
            p->why[i] = "excluded";
            continue;
        }
        if (o->mode == EM_QI_STATIC) {
            plan_static(g, o, p, nread, i);
        } else {
            plan_weights(g, o, p, i);
        }
    }
    for (int v = 0; v < g->n_values; v++) {
        p->need[v] = p->act[v] && p->share[v] < 0;
        if (p->bias_of[v] == -3) {
            p->bias_of[v] = -1;
        }
    }
    em_free(al, nread);
    return NULL;
}

/* ---- the rewrite ---- */

typedef struct qi_ctx {
    em_graph *g;
    const em_qi_opts *o;
    const em_qi_plan *p;
    int *after;   /* per new node (index - n_nodes0): the node it follows (-1: first) */
    int cap_after;
    int n_nodes0;
    int *repl;    /* per planned value: what its readers read instead (-1: itself) */
    int *s_val, *z_val; /* per planned value: its scale / zero point initializers */
    float *s_act;       /* per planned value: an activation's scale */
    int *wq, *ws, *wz;  /* per planned value: a weight's int8, scale and zero point values */
    int *dq_q, *dq_s, *dq_z; /* dynamic: per activation, its DynamicQuantizeLinear outputs */
    float **w_scales;   /* per planned value: a quantized weight's scales */
    int64_t *w_n;       /* their count */
} qi_ctx;

static ember_status *add_init(qi_ctx *c, const char *base, const char *suffix, ember_dtype dt,
                              int rank, const int64_t *dims, const void *data, int *out)
{
    char name[512];
    em_pass_unique_name(c->g, base, suffix, name, sizeof name);
    return em_graph_add_initializer_copy(c->g, name, dt, rank, dims, data, out);
}

/* Records where node ni (just added) goes: after node `after` (-1: first). */
static ember_status *place(qi_ctx *c, int ni, int after)
{
    int j = ni - c->n_nodes0;
    if (j >= c->cap_after) {
        int cap = c->cap_after * 2 + 64;
        int *a = em_realloc(c->g->al, c->after, sizeof *a * (size_t)cap);
        if (a == NULL) {
            return em_status_oom();
        }
        c->after = a;
        c->cap_after = cap;
    }
    c->after[j] = after;
    return NULL;
}

/* Adds node op(in) -> one new output "<base><suffix>", placed after node `after`. */
static ember_status *add_node(qi_ctx *c, em_op op, const char *base, const char *suffix,
                              const int *in, int n_in, int after, int *out_value, int *out_node)
{
    char name[512], oname[512];
    em_pass_unique_name(c->g, base, suffix, oname, sizeof oname);
    snprintf(name, sizeof name, "%.400s%s", base, op == EM_OP_QUANTIZELINEAR ? "_QuantizeLinear"
                                                  : op == EM_OP_DEQUANTIZELINEAR ? "_DequantizeLinear"
                                                                                   : suffix);
    int ni = -1;
    const char *on = oname;
    ember_status *st = em_graph_add_node(c->g, op, name, in, n_in, &on, 1, &ni);
    if (st != NULL) {
        return st;
    }
    EM_RETURN_IF_ERROR(place(c, ni, after));
    *out_value = c->g->nodes[ni].out[0];
    if (out_node != NULL) {
        *out_node = ni;
    }
    return NULL;
}

/* The scale / zero point initializers of activation v (its provider's when shared). */
static ember_status *act_params(qi_ctx *c, int v, const em_qi_range *ranges)
{
    int r = c->p->share[v] >= 0 ? c->p->share[v] : v;
    if (c->s_val[r] < 0) {
        int qmin, qmax, zp;
        float s;
        em_qi_qrange(c->o->act_dt, c->o->act_symmetric, &qmin, &qmax);
        em_qi_scale_zp(ranges[r].lo, ranges[r].hi, qmin, qmax, c->o->act_symmetric, &s, &zp);
        uint8_t z = c->o->act_dt == EMBER_DTYPE_U8 ? (uint8_t)zp : (uint8_t)(int8_t)zp;
        const char *name = c->g->values[r].name;
        EM_RETURN_IF_ERROR(add_init(c, name, "_scale", EMBER_DTYPE_F32, 0, NULL, &s, &c->s_val[r]));
        EM_RETURN_IF_ERROR(
            add_init(c, name, "_zero_point", c->o->act_dt, 0, NULL, &z, &c->z_val[r]));
        c->s_act[r] = s;
    }
    c->s_val[v] = c->s_val[r];
    c->z_val[v] = c->z_val[r];
    c->s_act[v] = c->s_act[r];
    return NULL;
}

static ember_status *add_act_qdq(qi_ctx *c, int v, const em_qi_range *ranges)
{
    EM_RETURN_IF_ERROR(act_params(c, v, ranges));
    em_graph *g = c->g;
    int after = g->values[v].producer;
    const char *base = g->values[v].name;
    char nb[512];
    snprintf(nb, sizeof nb, "%s", base);
    int in[3] = {v, c->s_val[v], c->z_val[v]}, q, dq;
    EM_RETURN_IF_ERROR(
        add_node(c, EM_OP_QUANTIZELINEAR, nb, "_QuantizeLinear_Output", in, 3, after, &q, NULL));
    int in2[3] = {q, c->s_val[v], c->z_val[v]};
    EM_RETURN_IF_ERROR(add_node(c, EM_OP_DEQUANTIZELINEAR, nb, "_DequantizeLinear_Output", in2, 3,
                                after, &dq, NULL));
    if (g->values[v].is_output && g->values[v].kind == EM_VAL_INTERMEDIATE) {
        /* ORT keeps the output's name on the DequantizeLinear output. */
        char *tmp = g->values[v].name;
        g->values[v].name = g->values[dq].name;
        g->values[dq].name = tmp;
        char pre[512];
        em_pass_unique_name(g, tmp, "_QuantizeLinear_Input", pre, sizeof pre);
        char *nn = em_strdup(g->al, pre);
        if (nn == NULL) {
            return em_status_oom();
        }
        em_free(g->al, g->values[v].name);
        g->values[v].name = nn;
        for (int k = 0; k < g->n_outputs; k++) {
            if (g->outputs[k] == v) {
                g->outputs[k] = dq;
            }
        }
        g->values[v].is_output = false;
        g->values[dq].is_output = true;
    }
    c->repl[v] = dq;
    return NULL;
}

/* Symmetric int8 weight v on `axis` (-2: per tensor): int8 initializer, scale, zero point and a
 * DequantizeLinear that its readers read. */
/* The shape of weight w as [outer][ch][inner] on `axis` (< 0: per tensor, ch 1). */
static void weight_shape(const em_value *w, int axis, int64_t *count, int64_t *outer, int64_t *ch,
                         int64_t *inner)
{
    *count = 1;
    *ch = 1;
    *inner = 1;
    for (int d = 0; d < w->init.rank; d++) {
        *count *= w->init.dims[d];
        if (axis >= 0 && d == axis) {
            *ch = w->init.dims[d];
        } else if (axis >= 0 && d > axis) {
            *inner *= w->init.dims[d];
        }
    }
    if (axis < 0) {
        *inner = *count;
    }
    *outer = *ch * *inner > 0 ? *count / (*ch * *inner) : 0;
}

/* Symmetric int8 quantization of x ([outer][ch][inner]) into q with one scale per channel
 * (s[ch]); `lo` is scratch of 2 * ch floats. No index division in the loops (resnet50's 25M
 * weights). */
static void weight_quant(const float *x, int64_t outer, int64_t ch, int64_t inner, float *lo,
                         float *s, int8_t *q)
{
    float *hi = lo + ch;
    for (int64_t cix = 0; cix < ch; cix++) {
        lo[cix] = outer * inner > 0 ? INFINITY : 0.0f;
        hi[cix] = outer * inner > 0 ? -INFINITY : 0.0f;
    }
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t cix = 0; cix < ch; cix++) {
            const float *xr = x + (o * ch + cix) * inner;
            float l = lo[cix], h = hi[cix];
            for (int64_t i = 0; i < inner; i++) {
                l = xr[i] < l ? xr[i] : l;
                h = xr[i] > h ? xr[i] : h;
            }
            lo[cix] = l;
            hi[cix] = h;
        }
    }
    for (int64_t cix = 0; cix < ch; cix++) {
        int zp;
        em_qi_scale_zp(lo[cix], hi[cix], -127, 127, true, &s[cix], &zp);
    }
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t cix = 0; cix < ch; cix++) {
            const float *xr = x + (o * ch + cix) * inner;
            int8_t *qr = q + (o * ch + cix) * inner;
            float sc = s[cix];
            for (int64_t i = 0; i < inner; i++) {
                /* nearbyintf (to nearest, ties to even) without the libm call baseline x86-64
                 * makes: adding and taking away 1.5 * 2^23 rounds |r| < 2^22 exactly so, and
                 * larger |r| are clamped below either way */
                float r = xr[i] / sc;
                r = r < -4194304.0f ? -4194304.0f : r > 4194304.0f ? 4194304.0f : r;
                r = (r + 12582912.0f) - 12582912.0f;
                qr[i] = (int8_t)(r < -128.0f ? -128.0f : r > 127.0f ? 127.0f : r);
            }
        }
    }
}

ember_status *em_qi_weight_sqnr(const em_graph *g, const em_qi_plan *p, int v, double *db)
{
    *db = NAN;
    if (v < 0 || v >= p->n_values || p->w_axis[v] == -1 || g->values[v].init.data == NULL ||
        g->values[v].init.dtype != EMBER_DTYPE_F32) {
        return NULL;
    }
    const ember_allocator *al = g->al;
    const em_value *w = &g->values[v];
    int64_t count, outer, ch, inner;
    weight_shape(w, p->w_axis[v], &count, &outer, &ch, &inner);
    int8_t *q = em_malloc(al, (size_t)count + 1);
    float *s = em_malloc(al, sizeof *s * (size_t)ch * 3 + 1);
    if (q == NULL || s == NULL) {
        em_free(al, q);
        em_free(al, s);
        return em_status_oom();
    }
    const float *x = (const float *)w->init.data;
    weight_quant(x, outer, ch, inner, s + ch, s, q);
    double sig = 0, noise = 0;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t cix = 0; cix < ch; cix++) {
            int64_t b = (o * ch + cix) * inner;
            for (int64_t i = 0; i < inner; i++) {
                double d = (double)x[b + i] - (double)q[b + i] * s[cix];
                sig += (double)x[b + i] * x[b + i];
                noise += d * d;
            }
        }
    }
    *db = noise > 0.0 ? 10.0 * log10(sig / noise) : INFINITY;
    em_free(al, q);
    em_free(al, s);
    return NULL;
}

static ember_status *add_weight(qi_ctx *c, int v)
{
    em_graph *g = c->g;
    const ember_allocator *al = g->al;
    const em_value *w = &g->values[v];
    int axis = c->p->w_axis[v], rank = w->init.rank;
    int64_t count, outer, ch, inner;
    weight_shape(w, axis, &count, &outer, &ch, &inner);
    const float *x = (const float *)w->init.data;
    int8_t *q = em_malloc(al, (size_t)count + 1);
    float *s = em_malloc(al, sizeof *s * (size_t)ch);
    int8_t *z = em_calloc(al, (size_t)ch, 1);
    float *lo = em_malloc(al, sizeof *lo * (size_t)ch * 2);
    if (q == NULL || s == NULL || z == NULL || lo == NULL) {
        em_free(al, q);
        em_free(al, s);
        em_free(al, z);
        em_free(al, lo);
        return em_status_oom();
    }
    weight_quant(x, outer, ch, inner, lo, s, q);
    em_free(al, lo);
    char base[512];
    snprintf(base, sizeof base, "%s", w->name);
    int64_t dims[EM_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        dims[d] = w->init.dims[d];
    }
    if (c->o->mode == EM_QI_DYNAMIC && c->p->w_tr[v]) { /* [N, K] -> [K, N] for MatMulInteger */
        int8_t *t = em_malloc(al, (size_t)count + 1);
        if (t == NULL) {
            em_free(al, q);
            em_free(al, s);
            em_free(al, z);
            return em_status_oom();
        }
        for (int64_t r = 0; r < dims[0]; r++) {
            for (int64_t k = 0; k < dims[1]; k++) {
                t[k * dims[0] + r] = q[r * dims[1] + k];
            }
        }
        em_free(al, q);
        q = t;
        int64_t d0 = dims[0];
        dims[0] = dims[1];
        dims[1] = d0;
    }
    int qv = -1, sv = -1, zv = -1, dq = -1, dn = -1;
    ember_status *st = add_init(c, base, "_quantized", EMBER_DTYPE_I8, rank, dims, q, &qv);
    if (st == NULL) {
        st = add_init(c, base, "_scale", EMBER_DTYPE_F32, axis < 0 ? 0 : 1, &ch, s, &sv);
    }
    if (st == NULL) {
        st = add_init(c, base, "_zero_point", EMBER_DTYPE_I8, axis < 0 ? 0 : 1, &ch, z, &zv);
    }
    int in[3] = {qv, sv, zv};
    bool dynamic = c->o->mode == EM_QI_DYNAMIC;
    if (st == NULL && !dynamic) {
        st = add_node(c, EM_OP_DEQUANTIZELINEAR, base, "_DequantizeLinear_Output", in, 3, -1, &dq,
                      &dn);
    }
    if (st == NULL && !dynamic && axis >= 0) {
        st = em_node_set_int(g, dn, "axis", axis);
    }
    c->wq[v] = qv;
    c->ws[v] = sv;
    c->wz[v] = zv;
    em_free(al, q);
    em_free(al, z);
    if (st != NULL) {
        em_free(al, s);
        return st;
    }
    c->w_scales[v] = s;
    c->w_n[v] = ch;
    c->repl[v] = dynamic ? -1 : dq;
    return NULL;
}

/* Dynamic mode, MatMul node ni (A activation, B a quantized constant), as ORT's
 * quantize_dynamic writes it: DynamicQuantizeLinear(A) -> MatMulInteger(Aq, Bq, Azp, Bzp) ->
 * Cast(float) -> Mul(., A_scale * B_scale) -> the MatMul's output. The MatMul is dropped;
 * the new nodes take its place. */
static ember_status *add_dynamic_matmul(qi_ctx *c, int ni)
{
    em_graph *g = c->g;
    int a = g->nodes[ni].in[0], b = g->nodes[ni].in[1], y = g->nodes[ni].out[0];
    char base[512], nname[512];
    snprintf(base, sizeof base, "%s", g->values[a].name);
    if (c->dq_q[a] < 0) {
        char n0[512], n1[512], n2[512];
        em_pass_unique_name(g, base, "_quantized", n0, sizeof n0);
        em_pass_unique_name(g, base, "_scale", n1, sizeof n1);
        em_pass_unique_name(g, base, "_zero_point", n2, sizeof n2);
        const char *outs[3] = {n0, n1, n2};
        snprintf(nname, sizeof nname, "%.400s_QuantizeLinear", base);
        int dn = -1;
        EM_RETURN_IF_ERROR(
            em_graph_add_node(g, EM_OP_DYNAMICQUANTIZELINEAR, nname, &a, 1, outs, 3, &dn));
        EM_RETURN_IF_ERROR(place(c, dn, g->values[a].producer));
        c->dq_q[a] = g->nodes[dn].out[0];
        c->dq_s[a] = g->nodes[dn].out[1];
        c->dq_z[a] = g->nodes[dn].out[2];
    }
    snprintf(base, sizeof base, "%s", g->nodes[ni].name[0] ? g->nodes[ni].name : g->values[y].name);
    int in[4] = {c->dq_q[a], c->wq[b], c->dq_z[a], c->wz[b]}, mi, ci, si, mo, mn;
    EM_RETURN_IF_ERROR(
        add_node(c, EM_OP_MATMULINTEGER, base, "_output_quantized", in, 4, ni, &mi, NULL));
    int cn = -1;
    EM_RETURN_IF_ERROR(
        add_node(c, EM_OP_CAST, base, "_output_quantized_cast_output", &mi, 1, ni, &ci, &cn));
    EM_RETURN_IF_ERROR(em_node_set_int(g, cn, "to", EMBER_DTYPE_F32));
    int sc[2] = {c->dq_s[a], c->ws[b]};
    EM_RETURN_IF_ERROR(add_node(c, EM_OP_MUL, base, "_scales_mul:0", sc, 2, ni, &si, NULL));
    int mul[2] = {ci, si};
    EM_RETURN_IF_ERROR(add_node(c, EM_OP_MUL, base, "_output_scale_mul", mul, 2, ni, &mo, &mn));
    int bias = g->nodes[ni].op == EM_OP_GEMM && g->nodes[ni].n_in > 2 ? g->nodes[ni].in[2] : -1;
    if (bias >= 0) { /* Gemm's C (beta 1): added after the scaling */
        int add[2] = {mo, bias};
        EM_RETURN_IF_ERROR(add_node(c, EM_OP_ADD, base, "_bias_add", add, 2, ni, &mo, &mn));
    }
    /* the last node writes the MatMul's output value; its own new value stays unused */
    g->nodes[mn].out[0] = y;
    g->values[mo].producer = -1;
    return NULL;
}

/* int32 bias b of node ni: scale x_scale * w_scale (float), zero point 0. */
static ember_status *add_bias(qi_ctx *c, int b, int ni)
{
    em_graph *g = c->g;
    const ember_allocator *al = g->al;
    const em_node *n = &g->nodes[ni];
    int x = n->in[0], w = n->in[1];
    if (c->s_val[x] < 0 || c->w_scales[w] == NULL) {
        return NULL;
    }
    int64_t len = g->values[b].init.dims[0], nsc = c->w_n[w];
    if (nsc != 1 && nsc != len) {
        return NULL;
    }
    const float *bd = (const float *)g->values[b].init.data;
    int32_t *q = em_malloc(al, sizeof *q * (size_t)(len + 1));
    float *s = em_malloc(al, sizeof *s * (size_t)(nsc + 1));
    int32_t *z = em_calloc(al, (size_t)nsc + 1, sizeof *z);
    if (q == NULL || s == NULL || z == NULL) {
        em_free(al, q);
        em_free(al, s);
        em_free(al, z);
        return em_status_oom();
    }
    for (int64_t k = 0; k < nsc; k++) {
        s[k] = c->s_act[x] * c->w_scales[w][k];
    }
    for (int64_t k = 0; k < len; k++) {
        double r = nearbyint((double)bd[k] / (double)s[nsc == 1 ? 0 : k]);
        q[k] = r < (double)INT32_MIN ? INT32_MIN : r > (double)INT32_MAX ? INT32_MAX : (int32_t)r;
    }
    char base[512];
    snprintf(base, sizeof base, "%s", g->values[b].name);
    int qv = -1, sv = -1, zv = -1, dq = -1, dn = -1;
    ember_status *st = add_init(c, base, "_quantized", EMBER_DTYPE_I32, 1, &len, q, &qv);
    if (st == NULL) {
        st = add_init(c, base, "_quantized_scale", EMBER_DTYPE_F32, nsc == 1 ? 0 : 1, &nsc, s, &sv);
    }
    if (st == NULL) {
        st = add_init(c, base, "_quantized_zero_point", EMBER_DTYPE_I32, nsc == 1 ? 0 : 1, &nsc, z,
                      &zv);
    }
    int in[3] = {qv, sv, zv};
    if (st == NULL) {
        st = add_node(c, EM_OP_DEQUANTIZELINEAR, base, "_DequantizeLinear_Output", in, 3, -1, &dq,
                      &dn);
    }
    if (st == NULL && nsc != 1) {
        st = em_node_set_int(g, dn, "axis", 0);
    }
    em_free(al, q);
    em_free(al, s);
    em_free(al, z);
    if (st == NULL) {
        c->repl[b] = dq;
    }
    return st;
}

/* Nodes in their new order: new nodes placed first (after -1) or right after the node they
 * follow; removed nodes dropped. Producers set again. */
static ember_status *reorder(qi_ctx *c)
{
    em_graph *g = c->g;
    const ember_allocator *al = g->al;
    int n = g->n_nodes, n0 = c->n_nodes0;
    em_node *nodes = em_malloc(al, sizeof *nodes * (size_t)(n + 1));
    if (nodes == NULL) {
        return em_status_oom();
    }
    int k = 0;
    for (int j = n0; j < n; j++) {
        if (c->after[j - n0] < 0) {
            nodes[k++] = g->nodes[j];
        }
    }
    /* new nodes after node i, in creation order: bucket them by i */
    int *head = em_malloc(al, sizeof *head * (size_t)(n0 + 1));
    int *next = em_malloc(al, sizeof *next * (size_t)(n - n0 + 1));
    int *tail = em_malloc(al, sizeof *tail * (size_t)(n0 + 1));
    if (head == NULL || next == NULL || tail == NULL) {
        em_free(al, nodes);
        em_free(al, head);
        em_free(al, next);
        em_free(al, tail);
        return em_status_oom();
    }
    for (int i = 0; i < n0; i++) {
        head[i] = tail[i] = -1;
    }
    for (int j = n0; j < n; j++) {
        int a = c->after[j - n0];
        next[j - n0] = -1;
        if (a >= 0) {
            if (tail[a] < 0) {
                head[a] = j;
            } else {
                next[tail[a] - n0] = j;
            }
            tail[a] = j;
        }
    }
    for (int i = 0; i < n0; i++) {
        if (c->p->removed[i] || (c->o->mode == EM_QI_DYNAMIC && c->p->quant[i])) {
            em_node_clear(al, &g->nodes[i]);
        } else {
            nodes[k++] = g->nodes[i];
        }
        for (int j = head[i]; j >= 0; j = next[j - n0]) {
            nodes[k++] = g->nodes[j];
        }
    }
    em_free(al, head);
    em_free(al, next);
    em_free(al, tail);
    memcpy(g->nodes, nodes, sizeof *nodes * (size_t)k);
    em_free(al, nodes);
    g->n_nodes = k;
    for (int v = 0; v < g->n_values; v++) {
        g->values[v].producer = -1;
    }
    for (int i = 0; i < k; i++) {
        for (int o = 0; o < g->nodes[i].n_out; o++) {
            if (g->nodes[i].out[o] >= 0) {
                g->values[g->nodes[i].out[o]].producer = i;
            }
        }
    }
    return NULL;
}

static ember_status *apply(qi_ctx *c, const em_qi_range *ranges)
{
    em_graph *g = c->g;
    const em_qi_plan *p = c->p;
    int nv = p->n_values;
    /* removed activations: the producer writes the activation's output */
    for (int i = 0; i < p->n_nodes; i++) {
        if (p->removed[i]) {
            int x = g->nodes[i].in[0], y = g->nodes[i].out[0], pr = g->values[x].producer;
            for (int o = 0; o < g->nodes[pr].n_out; o++) {
                if (g->nodes[pr].out[o] == x) {
                    g->nodes[pr].out[o] = y;
                }
            }
            g->values[y].producer = pr;
            g->values[x].producer = -1;
        }
    }
    for (int v = 0; v < nv; v++) {
        if (p->act[v]) {
            EM_RETURN_IF_ERROR(add_act_qdq(c, v, ranges));
        }
    }
    for (int v = 0; v < nv; v++) {
        if (p->w_axis[v] != -1) {
            EM_RETURN_IF_ERROR(add_weight(c, v));
        }
    }
    for (int v = 0; v < nv; v++) {
        if (p->bias_of[v] >= 0) {
            EM_RETURN_IF_ERROR(add_bias(c, v, p->bias_of[v]));
        }
    }
    for (int i = 0; c->o->mode == EM_QI_DYNAMIC && i < p->n_nodes; i++) {
        if (p->quant[i]) {
            EM_RETURN_IF_ERROR(add_dynamic_matmul(c, i));
        }
    }
    for (int i = 0; i < c->n_nodes0; i++) {
        em_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_in; k++) {
            if (n->in[k] >= 0 && n->in[k] < nv && c->repl[n->in[k]] >= 0) {
                n->in[k] = c->repl[n->in[k]];
            }
        }
    }
    EM_RETURN_IF_ERROR(reorder(c));
    return em_graph_infer_shapes(g);
}

ember_status *em_qi_apply(em_graph *g, const em_qi_opts *o, const em_qi_plan *p,
                          const em_qi_range *ranges)
{
    const ember_allocator *al = g->al;
    if (p->n_values != g->n_values || p->n_nodes != g->n_nodes) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize: the plan was made for another graph");
    }
    size_t nv = (size_t)p->n_values + 1;
    qi_ctx c = {0};
    c.g = g;
    c.o = o;
    c.p = p;
    c.n_nodes0 = g->n_nodes;
    c.repl = em_malloc(al, sizeof *c.repl * nv);
    c.s_val = em_malloc(al, sizeof *c.s_val * nv);
    c.z_val = em_malloc(al, sizeof *c.z_val * nv);
    c.s_act = em_calloc(al, nv, sizeof *c.s_act);
    c.w_scales = em_calloc(al, nv, sizeof *c.w_scales);
    c.w_n = em_calloc(al, nv, sizeof *c.w_n);
    int *idx = em_malloc(al, sizeof *idx * nv * 6);
    ember_status *st = NULL;
    if (!c.repl || !c.s_val || !c.z_val || !c.s_act || !c.w_scales || !c.w_n || !idx) {
        st = em_status_oom();
    } else {
        c.wq = idx;
        c.ws = idx + nv;
        c.wz = idx + 2 * nv;
        c.dq_q = idx + 3 * nv;
        c.dq_s = idx + 4 * nv;
        c.dq_z = idx + 5 * nv;
        for (size_t k = 0; k < nv * 6; k++) {
            idx[k] = -1;
        }
        for (int v = 0; v < p->n_values; v++) {
            c.repl[v] = c.s_val[v] = c.z_val[v] = -1;
        }
        st = apply(&c, ranges);
    }
    if (c.w_scales != NULL) {
        for (int v = 0; v < p->n_values; v++) {
            em_free(al, c.w_scales[v]);
        }
    }
    em_free(al, c.after);
    em_free(al, c.repl);
    em_free(al, c.s_val);
    em_free(al, c.z_val);
    em_free(al, c.s_act);
    em_free(al, c.w_scales);
    em_free(al, c.w_n);
    em_free(al, idx);
    return st;
}
