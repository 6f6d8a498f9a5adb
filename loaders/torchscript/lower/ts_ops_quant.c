/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of torch's quantized tensors and ops (eager-mode post-training quantization:
 * QuantStub/DeQuantStub, torch.ao.nn.quantized modules, fbgemm/qnnpack packed weights).
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
 * with their input's parameters where torch keeps them.
 */
#include "ts_ops.h"
#include "ts_ops_elem.h"

#include "core/alloc.h"
#include "core/status.h"

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
    if (!(scale > 0) || zp < lo || zp > hi) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: scale %g / zero point %lld out "
                      "of range for %s", c->op, scale, (long long)zp, ember_dtype_name(dt));
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

/* quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) */
static ember_status *lower_quantize_per_tensor(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1;
    double scale = 0;
    int64_t zp = 0, st = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_float(L, c, 1, &scale));
    TS_TRY(em_ts_arg_int(L, c, 2, &zp));
    TS_TRY(em_ts_arg_int(L, c, 3, &st));
    TS_TRY(qdtype(L, c, st, &dt));
    TS_TRY(em_ts_cast(L, c, x, EMBER_DTYPE_F32, &x));
    return quantize(L, c, x, scale, zp, dt, out);
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
    TS_TRY(em_ts_arg_float(L, c, i, scale));
    TS_TRY(em_ts_arg_int(L, c, i + 1, zp));
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
        TS_TRY(em_ts_dequantize(L, c, p[1], &in[2]));
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

/* linear(Tensor X, packed, float Y_scale_i, int Y_zero_point_i), linear_relu */
static ember_status *lower_qlinear(ts_lower *L, const ts_call *c, ts_av **out)
{
    ts_av **p = NULL;
    int x = -1, w = -1, wt = -1, b = -1, y = -1;
    int64_t zp = 0, perm[2] = {1, 0};
    double scale = 0;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    TS_TRY(packed_arg(L, c, 2, &p));
    TS_TRY(out_qparams(L, c, 2, &scale, &zp, &dt));
    TS_TRY(em_ts_dequantize(L, c, c->a[0], &x));
    TS_TRY(em_ts_dequantize(L, c, p[0], &w));
    int node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &w, 1, &wt, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", perm, 2));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(em_ts_node2(L, c, EM_OP_MATMUL, x, wt, &y));
    if (p[1]->k != TA_NONE) {
        TS_TRY(em_ts_dequantize(L, c, p[1], &b));
        TS_TRY(em_ts_node2(L, c, EM_OP_ADD, y, b, &y));
    }
    TS_TRY(maybe_relu(L, c, &y));
    return quantize(L, c, y, scale, zp, dt, out);
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
    {"quantized::add", lower_qbinary},
    {"quantized::add_relu", lower_qbinary},
    {"quantized::mul", lower_qbinary},
    {"quantized::mul_relu", lower_qbinary},
    {"quantized::cat", lower_qcat},
};

const ts_op_table em_ts_quant_table = {quant_ops, sizeof quant_ops / sizeof quant_ops[0]};
