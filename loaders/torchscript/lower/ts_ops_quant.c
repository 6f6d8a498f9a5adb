/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of torch's quantized tensors and ops (eager / FX post-training quantization and
 * QAT: QuantStub/DeQuantStub, torch.ao.nn.quantized modules, fbgemm/qnnpack packed weights;
 * dynamic quantization's linear).
 *
 * A quantized tensor is an integer graph value (uint8 for quint8, int8 for qint8) whose ts_av
 * carries its scale and zero point (ts_qinfo): pickled quantized weights get theirs from the
 * archive, activations from the scale and zero point of the op that made them. The packed
 * weights of quantized::conv2d / linear (torchbind objects the modules build in __setstate__
 * with conv2d_prepack / linear_prepack) are tuples here: (weight, bias, stride, padding,
 * dilation, groups) and (weight, bias).
 *
 * Quantized ops are lowered the way ONNX writes quantized models (QDQ): inputs through
 * DequantizeLinear, the float op, the result through QuantizeLinear with the op's output scale
 * and zero point. That is torch's arithmetic (integer products are exact in float up to
 * 2^24, requantization rounds half to even in both) up to the float rounding of the
 * accumulation and of the requantization multiplier: results may differ by one quantization
 * step where a value falls on a rounding tie. aten ops that torch runs on quantized tensors
 * (pooling, flatten, reshape, relu, ...) get dequantized inputs in ts_ops.c and requantize
 * with their input's parameters where torch keeps them. A conv's float bias becomes an int32
 * constant dequantized with x_scale * w_scale (int32_bias), so the chain is the one
 * runtime/passes/passes_qdq.c turns into QLinearConv.
 *
 * Dynamic quantization (quantize_dynamic): quantized::linear_dynamic takes a float input and
 * gives a float output; torch quantizes the input on each run (min / max, reduce_range) and
 * multiplies in int8. It is lowered as that quantization of the input (QuantizeLinear /
 * DequantizeLinear with scale and zero point computed in the graph) and the fp32 MatMul on the
 * dequantized constant weights, which fold to f32 at load: torch's values to float rounding,
 * on the fp32 kernels. ONNX's DynamicQuantizeLinear cannot say reduce_range (it always uses
 * 0..255), so it would not compute what fbgemm / x86 do.
 */
#include "ts_ops.h"
#include "ts_ops_elem.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

#define MAXK 3

/* torch ScalarType numbers of the quantized dtypes */
enum { ST_QINT8 = 12, ST_QUINT8 = 13, ST_QINT32 = 14 };

static ember_status *new_q(ts_lower *L, int scale, int zp, int axis, const ts_qinfo **out)
{
    ts_qinfo *q = em_ts_arena_alloc(&L->arena, sizeof *q);
    if (q == NULL) {
        return em_status_oom();
    }
    q->scale = scale;
    q->zero_point = zp;
    q->axis = axis;
    q->g = L->g;
    *out = q;
    return NULL;
}

/* The value of a qinfo member in the current graph (captured into subgraphs when needed). */
static ember_status *q_value(ts_lower *L, const ts_qinfo *q, int v, int *out)
{
    ts_av a = {.k = TA_TENSOR};
    a.u.t.v = v;
    a.u.t.g = q->g;
    return em_ts_use(L, &a, out);
}

/* DequantizeLinear of a quantized value (a float one is returned as it is). */
ember_status *em_ts_dequantize(ts_lower *L, const ts_call *c, const ts_av *a, int *out)
{
    int x = -1, in[3] = {-1, -1, -1}, node = -1;
    TS_TRY(em_ts_use(L, a, &x));
    if (a->k != TA_TENSOR || a->u.t.q == NULL) {
        *out = x;
        return NULL;
    }
    const ts_qinfo *q = a->u.t.q;
    in[0] = x;
    TS_TRY(q_value(L, q, q->scale, &in[1]));
    TS_TRY(q_value(L, q, q->zero_point, &in[2]));
    TS_TRY(em_ts_emit(L, c, EM_OP_DEQUANTIZELINEAR, in, 3, out, 1, &node));
    if (q->axis >= 0) {
        TS_TRY(em_node_set_int(L->g, node, "axis", q->axis));
    }
    return em_ts_infer(L, c, node);
}

/* QuantizeLinear of float x with the parameters q; the result is a quantized ts_av. */
static ember_status *quantize_as(ts_lower *L, const ts_call *c, int x, const ts_qinfo *q,
                                 ts_av **out)
{
    int in[3] = {x, -1, -1}, y = -1, node = -1;
    TS_TRY(q_value(L, q, q->scale, &in[1]));
    TS_TRY(q_value(L, q, q->zero_point, &in[2]));
    TS_TRY(em_ts_emit(L, c, EM_OP_QUANTIZELINEAR, in, 3, &y, 1, &node));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(em_ts_ret_tensor(L, y, out));
    (*out)->u.t.q = q;
    return NULL;
}

/* QuantizeLinear of float x to (scale, zero point) of dtype dt (U8 or I8). */
static ember_status *quantize(ts_lower *L, const ts_call *c, int x, double scale, int64_t zp,
                              ember_dtype dt, ts_av **out)
{
    int s = -1, z = -1;
    const ts_qinfo *q = NULL;
    int64_t lo = dt == EMBER_DTYPE_I8 ? -128 : 0, hi = dt == EMBER_DTYPE_I8 ? 127 : 255;
    if (!(scale > 0) || !isfinite(scale) || zp < lo || zp > hi) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: node '%s': scale %g / zero "
                         "point %lld out of range for %s", c->op, c->node ? c->node : "?", scale,
                         (long long)zp, ember_dtype_name(dt));
    }
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, scale, &s));
    TS_TRY(em_ts_const_scalar(L, dt, (double)zp, &z));
    TS_TRY(new_q(L, s, z, -1, &q));
    return quantize_as(L, c, x, q, out);
}

/* x requantized with the per-tensor parameters of `like` (ops torch runs on quantized values
 * keep their input's scale and zero point). */
ember_status *em_ts_requantize_like(ts_lower *L, const ts_call *c, int x, const ts_av *like,
                                 ts_av **out)
{
    return quantize_as(L, c, x, like->u.t.q, out);
}

static ember_status *qdtype(ts_lower *L, const ts_call *c, int64_t st, ember_dtype *dt)
{
    if (st == ST_QUINT8 || st == ST_QINT8) {
        *dt = st == ST_QUINT8 ? EMBER_DTYPE_U8 : EMBER_DTYPE_I8;
        return NULL;
    }
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: quantized dtype %lld (quint8 and qint8 "
                  "are supported)", c->op, (long long)st);
}

/* The number a one-element constant tensor argument holds (FX-quantized models keep their
 * scales and zero points as buffers); false when it is not one. */
static bool const_number(const ts_av *a, double *v)
{
    if (a->k != TA_TENSOR || a->u.t.q != NULL) {
        return false;
    }
    const em_value *val = &a->u.t.g->values[a->u.t.v];
    if (val->kind != EM_VAL_INITIALIZER || val->init.data == NULL) {
        return false;
    }
    for (int d = 0; d < val->init.rank; d++) {
        if (val->init.dims[d] != 1) {
            return false;
        }
    }
    return em_ts_number_at(val->init.dtype, val->init.data, v);
}

/* Argument i as a number: a float / int, or a one-element constant tensor. */
static ember_status *arg_number(ts_lower *L, const ts_call *c, size_t i, bool integer, double *v)
{
    if (i < c->n && const_number(c->a[i], v)) {
        return NULL;
    }
    if (integer) {
        int64_t n = 0;
        TS_TRY(em_ts_arg_int(L, c, i, &n));
        *v = (double)n;
        return NULL;
    }
    return em_ts_arg_float(L, c, i, v);
}

/* quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype), and its
 * tensor_qparams form (scale and zero point as one-element constant tensors) */
static ember_status *lower_quantize_per_tensor(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1;
    double scale = 0, zp = 0;
    int64_t st = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(arg_number(L, c, 1, false, &scale));
    TS_TRY(arg_number(L, c, 2, true, &zp));
    TS_TRY(em_ts_arg_int(L, c, 3, &st));
    TS_TRY(qdtype(L, c, st, &dt));
    if (zp != floor(zp) || !(fabs(zp) < 1e9)) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: zero point %g is not an "
                         "integer in range", c->op, zp);
    }
    TS_TRY(em_ts_cast(L, c, x, EMBER_DTYPE_F32, &x));
    return quantize(L, c, x, scale, (int64_t)zp, dt, out);
}

/* dequantize(Tensor self) */
static ember_status *lower_dequantize(ts_lower *L, const ts_call *c, ts_av **out)
{
    int y = -1;
    TS_TRY(em_ts_dequantize(L, c, c->a[0], &y));
    return em_ts_ret_tensor(L, y, out);
}

/* conv2d_prepack(Tensor W, Tensor? B, int[] stride, int[] padding, int[] dilation, int groups)
 * and linear_prepack(Tensor W, Tensor? B=None): the arguments as a tuple. */
static ember_status *lower_prepack(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool conv = strstr(c->op, "conv") != NULL;
    size_t n = conv ? 6 : 2;
    if (c->n < n || c->a[0]->k != TA_TENSOR || c->a[0]->u.t.q == NULL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: a quantized weight is expected",
                      c->op);
    }
    *out = em_ts_seq(L, TA_TUPLE, n);
    if (*out == NULL) {
        return em_status_oom();
    }
    memcpy((*out)->u.seq.items, c->a, n * sizeof(ts_av *));
    return NULL;
}

/* The packed weights argument: a tuple from lower_prepack of n items. */
static ember_status *packed_arg(ts_lower *L, const ts_call *c, size_t n, ts_av ***items)
{
    const ts_av *p = c->a[1];
    if (p->k != TA_TUPLE || p->u.seq.n != n || p->u.seq.items[0]->k != TA_TENSOR) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: packed weights that ember did not "
                      "build from %s_prepack", c->op, n == 6 ? "conv2d" : "linear");
    }
    *items = p->u.seq.items;
    return NULL;
}

/* The output scale (argument i) and zero point (i + 1), and the output dtype: the input's. */
static ember_status *out_qparams(ts_lower *L, const ts_call *c, size_t i, double *scale,
                                 int64_t *zp, ember_dtype *dt)
{
    double z = 0;
    TS_TRY(arg_number(L, c, i, false, scale));
    TS_TRY(arg_number(L, c, i + 1, true, &z));
    if (z != floor(z) || !(fabs(z) < 1e9)) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: output zero point %g is not "
                         "an integer in range", c->op, z);
    }
    *zp = (int64_t)z;
    const ts_av *x = c->a[0];
    if (x->k == TA_LIST || x->k == TA_TUPLE) {
        x = x->u.seq.n > 0 ? x->u.seq.items[0] : x;
    }
    if (x->k != TA_TENSOR || x->u.t.q == NULL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: a quantized input is expected",
                      c->op);
    }
    *dt = x->u.t.g->values[x->u.t.v].dtype;
    return NULL;
}

static ember_status *maybe_relu(ts_lower *L, const ts_call *c, int *y)
{
    size_t n = strlen(c->op);
    if (n > 5 && strcmp(c->op + n - 5, "_relu") == 0) {
        return em_ts_node(L, c, EM_OP_RELU, y, 1, y);
    }
    return NULL;
}

/* The f32 data of value v of graph g when it is a constant of n elements (n < 0: any), else
 * NULL; *count gets its element count. */
static const float *const_f32(const em_graph *g, int v, int64_t *count)
{
    if (g == NULL || v < 0) {
        return NULL;
    }
    const em_value *val = &g->values[v];
    if (val->kind != EM_VAL_INITIALIZER || val->init.data == NULL ||
        val->init.dtype != EMBER_DTYPE_F32 || val->init.rank > 1) {
        return NULL;
    }
    *count = val->init.rank == 0 ? 1 : val->init.dims[0];
    return val->init.data;
}

ember_status *em_ts_int32_bias_data(ts_lower *L, float xs, const float *ws, int64_t nws,
                                   const float *b, int64_t nb, int32_t **bq, float **bs)
{
    *bq = em_ts_arena_alloc(&L->arena, sizeof **bq * (size_t)nb);
    *bs = em_ts_arena_alloc(&L->arena, sizeof **bs * (size_t)nb);
    if (*bq == NULL || *bs == NULL) {
        return em_status_oom();
    }
    for (int64_t m = 0; m < nb; m++) {
        (*bs)[m] = xs * ws[nws == 1 ? 0 : m];
        double q = nearbyint((double)b[m] / (*bs)[m]);
        if (!((*bs)[m] > 0) || !(fabs(q) <= 2147483647.0)) {
            *bq = NULL;
            return NULL;
        }
        (*bq)[m] = (int32_t)q;
    }
    return NULL;
}

/* A conv's float bias as ONNX writes it (and qnnpack computes it): bq[m] =
 * round_half_even(b[m] / bs[m]) in int32 with bs[m] = float(xs * ws[m]), dequantized with scale
 * bs, which is the form passes_qdq.c turns into QLinearConv's bias. fbgemm / x86 add the
 * float bias / bs unrounded before requantizing; the two differ by at most half an accumulator
 * unit, far below an output step. Left as a float bias (*out stays -1) where the input or
 * weight scales are not constants or a quotient leaves int32. */
static ember_status *int32_bias(ts_lower *L, const ts_call *c, const ts_av *x, const ts_av *w,
                                const ts_av *b, int *out)
{
    *out = -1;
    const ts_qinfo *xq = x->u.t.q, *wq = w->u.t.q;
    int64_t nxs = 0, nws = 0, nb = 0;
    if (b->k != TA_TENSOR || b->u.t.q != NULL || xq == NULL || xq->axis >= 0 || wq == NULL ||
        (wq->axis != 0 && wq->axis != -1)) {
        return NULL;
    }
    const float *xs = const_f32(xq->g, xq->scale, &nxs), *ws = const_f32(wq->g, wq->scale, &nws);
    const float *bf = const_f32(b->u.t.g, b->u.t.v, &nb);
    if (xs == NULL || ws == NULL || bf == NULL || nxs != 1 || nb < 1 || (nws != 1 && nws != nb) ||
        b->u.t.g->values[b->u.t.v].rank != 1) {
        return NULL;
    }
    int32_t *bq = NULL;
    float *bs = NULL;
    TS_TRY(em_ts_int32_bias_data(L, xs[0], ws, nws, bf, nb, &bq, &bs));
    if (bq == NULL) {
        return NULL;
    }
    int in[2] = {-1, -1}, node = -1;
    TS_TRY(em_ts_const(L, EMBER_DTYPE_I32, 1, &nb, bq, &in[0]));
    TS_TRY(em_ts_const(L, EMBER_DTYPE_F32, 1, &nb, bs, &in[1]));
    TS_TRY(em_ts_emit(L, c, EM_OP_DEQUANTIZELINEAR, in, 2, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", 0));
    return em_ts_infer(L, c, node);
}

/* conv2d(Tensor qx, packed, float output_scale, int output_zero_point), conv2d_relu */
static ember_status *lower_qconv(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av **p = NULL;
    int in[3] = {-1, -1, -1}, y = -1, node = -1;
    int64_t st[MAXK], pd[MAXK], dl[MAXK], pads[2 * MAXK], groups = 1, zp = 0;
    size_t ns = 0, np = 0, nd = 0;
    double scale = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(packed_arg(L, c, 6, &p));
    TS_TRY(out_qparams(L, c, 2, &scale, &zp, &dt));
    ts_call pc = *c; /* the packed tuple's items read as arguments */
    pc.a = p;
    pc.n = 6;
    TS_TRY(em_ts_arg_ints(L, &pc, 2, st, MAXK, 2, &ns));
    TS_TRY(em_ts_arg_ints(L, &pc, 3, pd, MAXK, 2, &np));
    TS_TRY(em_ts_arg_ints(L, &pc, 4, dl, MAXK, 2, &nd));
    TS_TRY(em_ts_arg_int(L, &pc, 5, &groups));
    if (ns != 2 || np != 2 || nd != 2) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: 2-d stride/padding/dilation "
                      "expected", c->op);
    }
    TS_TRY(em_ts_dequantize(L, c, c->a[0], &in[0]));
    TS_TRY(em_ts_dequantize(L, c, p[0], &in[1]));
    if (p[1]->k != TA_NONE) {
        TS_TRY(int32_bias(L, c, c->a[0], p[0], p[1], &in[2]));
        if (in[2] < 0) {
            TS_TRY(em_ts_dequantize(L, c, p[1], &in[2]));
        }
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_CONV, in, in[2] >= 0 ? 3 : 2, &y, 1, &node));
    for (int d = 0; d < 2; d++) {
        pads[d] = pads[d + 2] = pd[d];
    }
    TS_TRY(em_node_set_ints(L->g, node, "strides", st, 2));
    TS_TRY(em_node_set_ints(L->g, node, "pads", pads, 4));
    TS_TRY(em_node_set_ints(L->g, node, "dilations", dl, 2));
    TS_TRY(em_node_set_int(L->g, node, "group", groups));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(maybe_relu(L, c, &y));
    return quantize(L, c, y, scale, zp, dt, out);
}

/* x (float) times the packed linear weights p (DequantizeLinear of the int8 constant, per tensor
 * or per output channel) plus the float bias: MatMul(x, Transpose(w)) + b. */
static ember_status *linear_float(ts_lower *L, const ts_call *c, ts_av **p, int x, int *y)
{
    int w = -1, wt = -1, b = -1, node = -1;
    int64_t perm[2] = {1, 0};
    TS_TRY(em_ts_dequantize(L, c, p[0], &w));
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &w, 1, &wt, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", perm, 2));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(em_ts_node2(L, c, EM_OP_MATMUL, x, wt, y));
    if (p[1]->k != TA_NONE) {
        TS_TRY(em_ts_dequantize(L, c, p[1], &b));
        TS_TRY(em_ts_node2(L, c, EM_OP_ADD, *y, b, y));
    }
    return maybe_relu(L, c, y);
}

/* linear(Tensor X, packed, float Y_scale_i, int Y_zero_point_i), linear_relu */
static ember_status *lower_qlinear(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av **p = NULL;
    int x = -1, y = -1;
    int64_t zp = 0;
    double scale = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(packed_arg(L, c, 2, &p));
    TS_TRY(out_qparams(L, c, 2, &scale, &zp, &dt));
    TS_TRY(em_ts_dequantize(L, c, c->a[0], &x));
    TS_TRY(linear_float(L, c, p, x, &y));
    return quantize(L, c, y, scale, zp, dt, out);
}

/* x (float) quantized and dequantized again the way PyTorch's dynamic linear quantizes its input
 * on each run (fbgemm / x86: quant_utils::ChooseQuantizationParams over [min(x, 0), max(x, 0)]
 * to 0..qmax; qmax 127 with reduce_range, else 255): scale = (max - min) / qmax (0.1 where that
 * is 0 or its reciprocal overflows), zero point = clamp(round_half_even(-min / scale), 0, qmax),
 * x' = DequantizeLinear(QuantizeLinear(x, scale, zp)). The LSTM / GRU kernels do the same to
 * h at every step (quantization/qmath.h em_q_dynamic_fake_quant_f32), in the same float steps. */
ember_status *em_ts_dynamic_fake_quant(ts_lower *L, const ts_call *c, int x, int qmax, int *out)
{
    int mn = -1, mx = -1, zero = -1, q = -1, tiny = -1, dflt = -1, sc = -1, small = -1;
    int zp = -1, lo = -1, hi = -1, in[3] = {-1, -1, -1};
    TS_TRY(em_ts_node_int(L, c, EM_OP_REDUCEMIN, &x, 1, "keepdims", 0, &mn));
    TS_TRY(em_ts_node_int(L, c, EM_OP_REDUCEMAX, &x, 1, "keepdims", 0, &mx));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, 0.0, &zero));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, (double)qmax, &q));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, 0.1, &dflt));
    /* 1 / s overflows a float below 2^-128 (the reciprocal of FLT_MAX rounds to it) */
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, 0x1p-128, &tiny));
    TS_TRY(em_ts_node2(L, c, EM_OP_MIN, mn, zero, &mn));
    TS_TRY(em_ts_node2(L, c, EM_OP_MAX, mx, zero, &mx));
    TS_TRY(em_ts_node2(L, c, EM_OP_SUB, mx, mn, &sc));
    TS_TRY(em_ts_node2(L, c, EM_OP_DIV, sc, q, &sc));
    TS_TRY(em_ts_node2(L, c, EM_OP_LESS, sc, tiny, &small));
    int w[3] = {small, dflt, sc};
    TS_TRY(em_ts_node(L, c, EM_OP_WHERE, w, 3, &sc));
    TS_TRY(em_ts_node2(L, c, EM_OP_DIV, mn, sc, &zp));
    TS_TRY(em_ts_node(L, c, EM_OP_NEG, &zp, 1, &zp));
    TS_TRY(em_ts_node(L, c, EM_OP_ROUND, &zp, 1, &zp));
    lo = zero;
    hi = q;
    int cl[3] = {zp, lo, hi};
    TS_TRY(em_ts_node(L, c, EM_OP_CLIP, cl, 3, &zp));
    TS_TRY(em_ts_cast(L, c, zp, EMBER_DTYPE_U8, &zp));
    in[0] = x;
    in[1] = sc;
    in[2] = zp;
    TS_TRY(em_ts_node(L, c, EM_OP_QUANTIZELINEAR, in, 3, &in[0]));
    return em_ts_node(L, c, EM_OP_DEQUANTIZELINEAR, in, 3, out);
}

/* linear_dynamic(Tensor X, packed, bool reduce_range=False), linear_relu_dynamic: float in,
 * float out; the input quantized per run (em_ts_dynamic_fake_quant), the int8 weights dequantized
 * (a constant: folded at load, so the MatMul runs on fp32 kernels). */
static ember_status *lower_linear_dynamic(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av **p = NULL;
    int x = -1, y = -1;
    bool reduce = false;
    TS_TRY(packed_arg(L, c, 2, &p));
    if (c->n > 2 && !em_ts_arg_none(c, 2)) {
        TS_TRY(em_ts_arg_bool(L, c, 2, &reduce));
    }
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_cast(L, c, x, EMBER_DTYPE_F32, &x));
    TS_TRY(em_ts_dynamic_fake_quant(L, c, x, reduce ? 127 : 255, &x));
    ts_call lc = *c; /* maybe_relu reads the name: "linear_relu_dynamic" -> "..._relu" */
    lc.op = strstr(c->op, "relu") != NULL ? "quantized::linear_relu" : "quantized::linear";
    TS_TRY(linear_float(L, &lc, p, x, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* hardswish(Tensor qx, float output_scale, int output_zero_point) */
static ember_status *lower_qhardswish(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, y = -1;
    int64_t zp = 0;
    double scale = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(out_qparams(L, c, 1, &scale, &zp, &dt));
    TS_TRY(em_ts_dequantize(L, c, c->a[0], &x));
    TS_TRY(em_ts_node(L, c, EM_OP_HARDSWISH, &x, 1, &y));
    return quantize(L, c, y, scale, zp, dt, out);
}

/* prim::is_quantized(Tensor a) -> bool, known at load */
static ember_status *lower_is_quantized(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *a = c->a[0];
    *out = em_ts_bool(L, a->k == TA_TENSOR && a->u.t.q != NULL);
    return *out != NULL ? NULL : em_status_oom();
}

/* add / mul (Tensor qa, Tensor qb, float scale, int zero_point), add_relu, mul_relu */
static ember_status *lower_qbinary(ts_lower *L, const ts_call *c, ts_av **out)
{
    int a = -1, b = -1, y = -1;
    int64_t zp = 0;
    double scale = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(out_qparams(L, c, 2, &scale, &zp, &dt));
    TS_TRY(em_ts_dequantize(L, c, c->a[0], &a));
    TS_TRY(em_ts_dequantize(L, c, c->a[1], &b));
    bool mul = strstr(c->op, "::mul") != NULL;
    TS_TRY(em_ts_node2(L, c, mul ? EM_OP_MUL : EM_OP_ADD, a, b, &y));
    TS_TRY(maybe_relu(L, c, &y));
    return quantize(L, c, y, scale, zp, dt, out);
}

/* cat(Tensor[] qx, int dim, float? scale, int? zero_point) */
static ember_status *lower_qcat(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *l = c->a[0];
    int64_t dim = 0, zp = 0;
    double scale = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    if ((l->k != TA_LIST && l->k != TA_TUPLE) || l->u.seq.n == 0 || l->u.seq.n > 64 ||
        em_ts_arg_none(c, 2) || em_ts_arg_none(c, 3)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: 1 to 64 quantized tensors and an "
                      "output scale and zero point are expected", c->op);
    }
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    TS_TRY(out_qparams(L, c, 2, &scale, &zp, &dt));
    int in[64], y = -1, rank = 0;
    for (size_t i = 0; i < l->u.seq.n; i++) {
        TS_TRY(em_ts_dequantize(L, c, l->u.seq.items[i], &in[i]));
    }
    TS_TRY(em_ts_rank(L, c, in[0], &rank));
    TS_TRY(em_ts_node_int(L, c, EM_OP_CONCAT, in, (int)l->u.seq.n, "axis",
                       dim < 0 ? dim + rank : dim, &y));
    return quantize(L, c, y, scale, zp, dt, out);
}

static const ts_op_entry quant_ops[] = {
    {"aten::quantize_per_tensor", lower_quantize_per_tensor},
    {"aten::dequantize", lower_dequantize},
    {"quantized::conv2d_prepack", lower_prepack},
    {"quantized::linear_prepack", lower_prepack},
    {"quantized::conv2d", lower_qconv},
    {"quantized::conv2d_relu", lower_qconv},
    {"quantized::linear", lower_qlinear},
    {"quantized::linear_relu", lower_qlinear},
    {"quantized::linear_dynamic", lower_linear_dynamic},
    {"quantized::linear_relu_dynamic", lower_linear_dynamic},
    {"quantized::hardswish", lower_qhardswish},
    {"prim::is_quantized", lower_is_quantized},
    {"quantized::add", lower_qbinary},
    {"quantized::add_relu", lower_qbinary},
    {"quantized::mul", lower_qbinary},
    {"quantized::mul_relu", lower_qbinary},
    {"quantized::cat", lower_qcat},
};

const ts_op_table em_ts_quant_table = {quant_ops, sizeof quant_ops / sizeof quant_ops[0]};
