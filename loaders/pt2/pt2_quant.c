/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PT2E quantized programs (torch.ao / torchao prepare_pt2e + convert_pt2e, then
 * torch.export): torch's decomposed quantization ops (torch/ao/quantization/fx/_decomposed.py,
 * the `quantized_decomposed` library) lowered to ONNX's QuantizeLinear / DequantizeLinear, the
 * QDQ form runtime/passes/passes_qdq.c turns into integer kernels (ember_model_options_set_int8).
 *
 *  - quantize_per_tensor(x, scale, zero_point, quant_min, quant_max, dtype) computes
 *    clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max): QuantizeLinear(x, scale,
 *    zero_point) (round half to even, saturation to the dtype), then a Clip to quant_min ..
 *    quant_max where those are narrower than the dtype (reduce_range's 0..127). torch
 *    multiplies by the reciprocal where ONNX divides: the two can differ by one step where
 *    x / scale falls on a rounding tie.
 *  - dequantize_per_tensor(x, scale, zero_point, ..., out_dtype) computes (x - zero_point) *
 *    scale: DequantizeLinear, exact as torch's; quant_min / quant_max are metadata there (torch
 *    does not use them); out_dtype f16 / bf16 casts the result.
 *  - quantize_per_channel / dequantize_per_channel(x, scales, zero_points, axis, ...): the same
 *    along `axis`, scales and zero points constant 1-D tensors (PT2E's frozen buffers) turned
 *    into f32 scales and zero points of the quantized dtype (torch keeps them as f32 / f64
 *    and int64); zero_points None is 0.
 *  - .tensor / .tensor2 overloads (scale and zero point as one-element tensors): read when
 *    they are constants; computed ones (dynamic quantization's choose_qparams) are refused.
 * Quantized dtypes: uint8 and int8 (ONNX's 8-bit QDQ). Errors say which argument is wrong;
 * pt2_nodes.c names the node.
 *
 * A conv's or linear's float bias next to a quantized input and weight is made the int32 bias
 * QLinearConv / QGemm take (em_pt2_quant_bias), as the TorchScript lowering does for torch's
 * quantized modules, and a quantized linear of a matrix becomes one Gemm (transB) instead of
 * MatMul(x, Transpose(w)) + bias, which is the form passes_qdq.c recognises.
 */
#include "pt2_internal.h"

#include "core/status.h"
#include "loaders/torchscript/lower/ts_ops.h"
#include "loaders/torchscript/lower/ts_ops_elem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { QA_INPUT, QA_SCALE, QA_ZP, QA_AXIS, QA_QMIN, QA_QMAX, QA_DTYPE, QA_OUT_DTYPE, QA_N };

typedef struct qd {
    ts_lower *L;
    const char *op; /* "quantize_per_tensor.default" */
    bool quantize, per_channel, tensor_qparams;
    int64_t axis; /* per channel: the axis, normalized */
    ts_av *a[QA_N];
} qd;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static ember_status *qerr(const qd *q, ember_code code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return em_status_new(code, "%s: %s", q->L->what, msg);
}

/* The call's arguments by schema position (positional first, keywords by name). */
static ember_status *bind_args(qd *q, const em_pt2_call *ca)
{
    static const char *const names[QA_N] = {"input",     "scale",     "zero_point", "axis",
                                            "quant_min", "quant_max", "dtype",      "out_dtype"};
    static const int tensor_order[] = {QA_INPUT, QA_SCALE, QA_ZP, QA_QMIN, QA_QMAX, QA_DTYPE};
    static const int channel_order[] = {QA_INPUT, QA_SCALE, QA_ZP, QA_AXIS,
                                        QA_QMIN,  QA_QMAX,  QA_DTYPE};
    const int *order = q->per_channel ? channel_order : tensor_order;
    size_t n_order = q->per_channel ? 7 : 6;
    if (ca->n_pos > n_order) {
        return qerr(q, EMBER_ERR_INVALID_MODEL, "takes %zu positional arguments", n_order);
    }
    for (size_t i = 0; i < ca->n_pos; i++) {
        q->a[order[i]] = ca->pos[i];
    }
    for (size_t i = 0; i < ca->n_kw; i++) {
        const char *k = ca->kw_names[i];
        int slot = -1;
        for (size_t j = 0; j < n_order; j++) {
            const char *pn = names[order[j]];
            /* per channel: "scales" / "zero_points" */
            if (strcmp(k, pn) == 0 ||
                (q->per_channel && strncmp(k, pn, strlen(pn)) == 0 && strcmp(k + strlen(pn), "s") == 0)) {
                slot = order[j];
            }
        }
        if (strcmp(k, "out_dtype") == 0 && !q->quantize) {
            slot = QA_OUT_DTYPE;
        }
        if (slot < 0) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "unknown argument '%s'", k);
        }
        q->a[slot] = ca->kw_vals[i];
    }
    for (size_t j = 0; j < n_order; j++) {
        if (q->a[order[j]] == NULL) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "argument '%s' is missing",
                        names[order[j]]);
        }
    }
    return NULL;
}

static ember_status *int_arg(const qd *q, int slot, const char *name, int64_t *v)
{
    const ts_av *a = q->a[slot];
    if (a->k != TA_INT) {
        return qerr(q, EMBER_ERR_INVALID_MODEL, "argument '%s' is not an int", name);
    }
    *v = a->u.i;
    return NULL;
}

/* A quantized dtype argument (uint8 / int8) and its range. */
static ember_status *qdtype(const qd *q, int slot, ember_dtype *dt, int64_t *lo, int64_t *hi)
{
    int64_t st = 0;
    EM_RETURN_IF_ERROR(int_arg(q, slot, "dtype", &st));
    *dt = em_ts_dtype_of_scalar_type(st);
    if (*dt != EMBER_DTYPE_U8 && *dt != EMBER_DTYPE_I8) {
        return qerr(q, EMBER_ERR_UNSUPPORTED, "quantized dtype %s is not supported (uint8 and "
                    "int8 are)", ember_dtype_name(*dt));
    }
    *lo = *dt == EMBER_DTYPE_U8 ? 0 : -128;
    *hi = *dt == EMBER_DTYPE_U8 ? 255 : 127;
    return NULL;
}

/* The elements of a constant tensor argument as doubles (count n, at most cap). */
static ember_status *const_numbers(const qd *q, const ts_av *a, const char *name, double *v,
                                   int64_t cap, int64_t *n)
{
    const em_value *val = a->k == TA_TENSOR ? &a->u.t.g->values[a->u.t.v] : NULL;
    if (val == NULL || val->kind != EM_VAL_INITIALIZER || (val->init.data == NULL &&
                                                            em_tensor_numel(&val->init) > 0) ||
        val->init.rank > 1) {
        return qerr(q, EMBER_ERR_UNSUPPORTED, "argument '%s' is not a constant tensor of rank "
                    "0 or 1 (quantization parameters computed at run time are not supported)",
                    name);
    }
    int64_t count = em_tensor_numel(&val->init);
    if (count > cap) {
        return qerr(q, EMBER_ERR_UNSUPPORTED, "argument '%s' has more than %lld elements", name,
                    (long long)cap);
    }
    size_t esz = em_dtype_size(val->init.dtype);
    for (int64_t i = 0; i < count; i++) {
        if (!em_ts_number_at(val->init.dtype, (const char *)val->init.data + (size_t)i * esz,
                             &v[i])) {
            return qerr(q, EMBER_ERR_UNSUPPORTED, "argument '%s' is not a tensor of numbers",
                        name);
        }
    }
    *n = count;
    return NULL;
}

/* Per-tensor scale / zero point: numbers (.default) or one-element constant tensors. */
static ember_status *scalar_qparam(const qd *q, int slot, const char *name, double *v)
{
    const ts_av *a = q->a[slot];
    if (!q->tensor_qparams) {
        if (a->k == TA_INT || a->k == TA_FLOAT) {
            *v = a->k == TA_INT ? (double)a->u.i : a->u.f;
            return NULL;
        }
        return qerr(q, EMBER_ERR_INVALID_MODEL, "argument '%s' is not a number", name);
    }
    int64_t n = 0;
    EM_RETURN_IF_ERROR(const_numbers(q, a, name, v, 1, &n));
    return n == 1 ? NULL
                  : qerr(q, EMBER_ERR_INVALID_MODEL, "argument '%s' has no element", name);
}

/* quant_min / quant_max: ints (.tensor2: one-element constant tensors) within the dtype. */
static ember_status *qrange(const qd *q, ember_dtype dt, int64_t lo, int64_t hi, int64_t *qmin,
                            int64_t *qmax)
{
    double d[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        const ts_av *a = q->a[QA_QMIN + i];
        const char *name = i == 0 ? "quant_min" : "quant_max";
        if (a->k == TA_INT) {
            d[i] = (double)a->u.i;
        } else {
            int64_t n = 0;
            EM_RETURN_IF_ERROR(const_numbers(q, a, name, &d[i], 1, &n));
        }
    }
    if (!(d[0] >= (double)lo && d[1] <= (double)hi && d[0] <= d[1]) || d[0] != floor(d[0]) ||
        d[1] != floor(d[1])) {
        return qerr(q, EMBER_ERR_INVALID_MODEL, "quant_min .. quant_max (%g .. %g) is not a "
                    "range within %s's %lld .. %lld", d[0], d[1], ember_dtype_name(dt),
                    (long long)lo, (long long)hi);
    }
    *qmin = (int64_t)d[0];
    *qmax = (int64_t)d[1];
    return NULL;
}

/* Scales (f32) and zero points (dtype dt) as constants: one each per tensor, or n along the
 * axis. */
static ember_status *qparams(const qd *q, ember_dtype dt, int64_t lo, int64_t hi, int64_t n_ch,
                             int *s, int *z)
{
    ts_lower *L = q->L;
    int64_t n = 1, nz = 0;
    double *sv = em_ts_arena_alloc(&L->arena, sizeof(double) * (size_t)(n_ch > 0 ? n_ch : 1));
    double *zv = em_ts_arena_alloc(&L->arena, sizeof(double) * (size_t)(n_ch > 0 ? n_ch : 1));
    float *sf = em_ts_arena_alloc(&L->arena, sizeof(float) * (size_t)(n_ch > 0 ? n_ch : 1));
    uint8_t *zb = em_ts_arena_alloc(&L->arena, (size_t)(n_ch > 0 ? n_ch : 1));
    if (sv == NULL || zv == NULL || sf == NULL || zb == NULL) {
        return em_status_oom();
    }
    if (q->per_channel) {
        for (int i = 0; i < 2; i++) {
            const ts_av *a = q->a[i == 0 ? QA_SCALE : QA_ZP];
            if (a->k == TA_TENSOR && em_tensor_numel(&a->u.t.g->values[a->u.t.v].init) != n_ch &&
                a->u.t.g->values[a->u.t.v].kind == EM_VAL_INITIALIZER) {
                return qerr(q, EMBER_ERR_INVALID_MODEL, "%s has %lld elements; the input has %lld "
                            "along axis %lld", i == 0 ? "scales" : "zero_points",
                            (long long)em_tensor_numel(&a->u.t.g->values[a->u.t.v].init),
                            (long long)n_ch, (long long)q->axis);
            }
        }
        EM_RETURN_IF_ERROR(const_numbers(q, q->a[QA_SCALE], "scales", sv, n_ch, &n));
        if (q->a[QA_ZP]->k != TA_NONE) {
            EM_RETURN_IF_ERROR(const_numbers(q, q->a[QA_ZP], "zero_points", zv, n_ch, &nz));
        } else {
            memset(zv, 0, sizeof(double) * (size_t)n_ch);
            nz = n_ch;
        }
        if (n != n_ch || nz != n_ch) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "scales and zero_points must have one "
                        "element per channel of the axis (%lld)", (long long)n_ch);
        }
    } else {
        EM_RETURN_IF_ERROR(scalar_qparam(q, QA_SCALE, "scale", &sv[0]));
        EM_RETURN_IF_ERROR(scalar_qparam(q, QA_ZP, "zero_point", &zv[0]));
    }
    for (int64_t i = 0; i < n; i++) {
        sf[i] = (float)sv[i];
        if (!(sf[i] > 0) || !isfinite(sf[i])) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "scale #%lld (%g) is not positive and finite "
                        "as a float", (long long)i, sv[i]);
        }
        if (zv[i] != floor(zv[i]) || zv[i] < (double)lo || zv[i] > (double)hi) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "zero point #%lld (%g) is not an integer in "
                        "%s's range", (long long)i, zv[i], ember_dtype_name(dt));
        }
        zb[i] = (uint8_t)(int64_t)zv[i]; /* the byte of a u8 or an i8 value */
    }
    int rank = q->per_channel ? 1 : 0;
    EM_RETURN_IF_ERROR(em_ts_const(L, EMBER_DTYPE_F32, rank, &n, sf, s));
    return em_ts_const(L, dt, rank, &n, zb, z);
}

static ember_status *lower_qd(qd *q, const em_pt2_call *ca, ts_av **out)
{
    ts_lower *L = q->L;
    ts_call call = {.op = q->op, .node = L->path};
    EM_RETURN_IF_ERROR(bind_args(q, ca));
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    int64_t lo = 0, hi = 0, qmin = 0, qmax = 0, axis = -1, n_ch = 0;
    int x = -1, rank = 0, node = -1, in[3] = {-1, -1, -1}, y = -1;
    EM_RETURN_IF_ERROR(qdtype(q, QA_DTYPE, &dt, &lo, &hi));
    EM_RETURN_IF_ERROR(qrange(q, dt, lo, hi, &qmin, &qmax));
    if (q->a[QA_INPUT]->k != TA_TENSOR) {
        return qerr(q, EMBER_ERR_INVALID_MODEL, "argument 'input' is not a tensor");
    }
    EM_RETURN_IF_ERROR(em_ts_use(L, q->a[QA_INPUT], &x));
    EM_RETURN_IF_ERROR(em_ts_rank(L, &call, x, &rank));
    ember_dtype xdt = em_ts_val(L, x)->dtype;
    if (q->per_channel) {
        EM_RETURN_IF_ERROR(int_arg(q, QA_AXIS, "axis", &axis));
        if (axis < -rank || axis >= rank) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "axis %lld is out of the input's rank %d",
                        (long long)axis, rank);
        }
        axis = axis < 0 ? axis + rank : axis;
        q->axis = axis;
        n_ch = em_ts_val(L, x)->dims[axis].v;
        if (n_ch < 1 || n_ch > ((int64_t)1 << 24)) {
            return qerr(q, EMBER_ERR_UNSUPPORTED, "the input's dim %lld (the axis) is not "
                        "known at load, or is 0", (long long)axis);
        }
    }
    if (q->quantize) {
        if (xdt == EMBER_DTYPE_F16 || xdt == EMBER_DTYPE_BF16) { /* torch computes in f32 */
            EM_RETURN_IF_ERROR(em_ts_cast(L, &call, x, EMBER_DTYPE_F32, &x));
        } else if (xdt != EMBER_DTYPE_F32) {
            return qerr(q, EMBER_ERR_INVALID_MODEL, "the input is %s, not a float tensor",
                        ember_dtype_name(xdt));
        }
    } else if (xdt != dt) {
        return qerr(q, EMBER_ERR_INVALID_MODEL, "the input is %s, but dtype says %s",
                    ember_dtype_name(xdt), ember_dtype_name(dt));
    }
    in[0] = x;
    EM_RETURN_IF_ERROR(qparams(q, dt, lo, hi, n_ch, &in[1], &in[2]));
    EM_RETURN_IF_ERROR(em_ts_emit(L, &call, q->quantize ? EM_OP_QUANTIZELINEAR
                                                        : EM_OP_DEQUANTIZELINEAR,
                                  in, 3, &y, 1, &node));
    if (q->per_channel) {
        EM_RETURN_IF_ERROR(em_node_set_int(L->g, node, "axis", axis));
    }
    EM_RETURN_IF_ERROR(em_ts_infer(L, &call, node));
    if (q->quantize && (qmin != lo || qmax != hi)) { /* reduce_range: 0..127 */
        int cl[3] = {y, -1, -1};
        EM_RETURN_IF_ERROR(em_ts_const_scalar(L, dt, (double)qmin, &cl[1]));
        EM_RETURN_IF_ERROR(em_ts_const_scalar(L, dt, (double)qmax, &cl[2]));
        EM_RETURN_IF_ERROR(em_ts_node(L, &call, EM_OP_CLIP, cl, 3, &y));
    }
    if (!q->quantize && q->a[QA_OUT_DTYPE] != NULL && q->a[QA_OUT_DTYPE]->k != TA_NONE) {
        int64_t st = 0;
        EM_RETURN_IF_ERROR(int_arg(q, QA_OUT_DTYPE, "out_dtype", &st));
        ember_dtype od = em_ts_dtype_of_scalar_type(st);
        if (od != EMBER_DTYPE_F32 && od != EMBER_DTYPE_F16 && od != EMBER_DTYPE_BF16) {
            return qerr(q, EMBER_ERR_UNSUPPORTED, "out_dtype %s is not supported (float, half "
                        "and bfloat16 are)", ember_dtype_name(od));
        }
        if (od != EMBER_DTYPE_F32) {
            EM_RETURN_IF_ERROR(em_ts_cast(L, &call, y, od, &y));
        }
    }
    return em_ts_ret_tensor(L, y, out);
}

ember_status *em_pt2_lower_quant(ts_lower *L, const char *op, const em_pt2_call *ca, ts_av **out)
{
    static const struct {
        const char *name;
        bool quantize, per_channel, tensor_qparams;
    } ops[] = {
        {"quantize_per_tensor.default", true, false, false},
        {"quantize_per_tensor.tensor", true, false, true},
        {"quantize_per_tensor.tensor2", true, false, true},
        {"dequantize_per_tensor.default", false, false, false},
        {"dequantize_per_tensor.tensor", false, false, true},
        {"dequantize_per_tensor.tensor2", false, false, true},
        {"quantize_per_channel.default", true, true, true},
        {"dequantize_per_channel.default", false, true, true},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(op, ops[i].name) == 0) {
            qd q = {.L = L, .op = op, .quantize = ops[i].quantize,
                    .per_channel = ops[i].per_channel, .tensor_qparams = ops[i].tensor_qparams};
            return lower_qd(&q, ca, out);
        }
    }
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: quantized_decomposed op '%s' is not "
                         "supported (ember lowers quantize / dequantize per tensor and per "
                         "channel with constant parameters: static PT2E quantization)", L->what,
                         op);
}

/* ---- the bias and the linear next to quantized operands ---- */

/* The DequantizeLinear node making tensor a in the current graph, or NULL. */
static const em_node *dq_of(const ts_lower *L, const ts_av *a)
{
    if (a == NULL || a->k != TA_TENSOR || a->u.t.g != L->g || a->u.t.q != NULL) {
        return NULL;
    }
    int p = L->g->values[a->u.t.v].producer;
    return p >= 0 && L->g->nodes[p].op == EM_OP_DEQUANTIZELINEAR ? &L->g->nodes[p] : NULL;
}

/* The f32 constant of value v (rank 0 or 1) and its element count, or NULL. */
static const float *const_f32(const em_graph *g, int v, int64_t *n)
{
    const em_value *val = v >= 0 ? &g->values[v] : NULL;
    if (val == NULL || val->kind != EM_VAL_INITIALIZER || val->init.data == NULL ||
        val->dtype != EMBER_DTYPE_F32 || val->init.rank > 1) {
        return NULL;
    }
    *n = em_tensor_numel(&val->init);
    return val->init.data;
}

ember_status *em_pt2_quant_bias(ts_lower *L, em_pt2_call *ca)
{
    const em_node *dx = ca->n_pos >= 3 ? dq_of(L, ca->pos[0]) : NULL;
    const em_node *dw = ca->n_pos >= 3 ? dq_of(L, ca->pos[1]) : NULL;
    const ts_av *b = ca->n_pos >= 3 ? ca->pos[2] : NULL;
    if (dx == NULL || dw == NULL || b->k != TA_TENSOR || b->u.t.g != L->g || dx->n_in < 2 ||
        dw->n_in < 2) {
        return NULL;
    }
    const em_value *w = &L->g->values[dw->in[0]];
    int64_t nxs = 0, nws = 0, nb = 0;
    const float *xs = const_f32(L->g, dx->in[1], &nxs), *ws = const_f32(L->g, dw->in[1], &nws);
    const float *bf = const_f32(L->g, b->u.t.v, &nb);
    if (xs == NULL || ws == NULL || bf == NULL || nxs != 1 || nb < 1 || w->rank < 2 ||
        w->kind != EM_VAL_INITIALIZER || w->dims[0].v != nb || (nws != 1 && nws != nb) ||
        (nws > 1 && em_node_attr_int(dw, "axis", 1) != 0) ||
        L->g->values[b->u.t.v].rank != 1) {
        return NULL;
    }
    int32_t *bq = NULL;
    float *bs = NULL;
    EM_RETURN_IF_ERROR(em_ts_int32_bias_data(L, xs[0], ws, nws, bf, nb, &bq, &bs));
    if (bq == NULL) {
        return NULL; /* left as a float bias: the conv stays fp32 */
    }
    ts_call call = {.op = "int32 bias", .node = L->path};
    int in[2] = {-1, -1}, y = -1, node = -1;
    EM_RETURN_IF_ERROR(em_ts_const(L, EMBER_DTYPE_I32, 1, &nb, bq, &in[0]));
    EM_RETURN_IF_ERROR(em_ts_const(L, EMBER_DTYPE_F32, 1, &nb, bs, &in[1]));
    EM_RETURN_IF_ERROR(em_ts_emit(L, &call, EM_OP_DEQUANTIZELINEAR, in, 2, &y, 1, &node));
    EM_RETURN_IF_ERROR(em_node_set_int(L->g, node, "axis", 0));
    EM_RETURN_IF_ERROR(em_ts_infer(L, &call, node));
    ca->pos[2] = em_ts_tensor(L, y);
    return ca->pos[2] == NULL ? em_status_oom() : NULL;
}

ember_status *em_pt2_quant_linear(ts_lower *L, const em_pt2_call *ca, ts_av **out)
{
    *out = NULL;
    if (ca->n_pos < 2 || ca->n_kw > 0 || dq_of(L, ca->pos[0]) == NULL ||
        dq_of(L, ca->pos[1]) == NULL) {
        return NULL;
    }
    int in[3] = {-1, -1, -1}, y = -1, node = -1;
    in[0] = ca->pos[0]->u.t.v;
    in[1] = ca->pos[1]->u.t.v;
    if (L->g->values[in[0]].rank != 2 || L->g->values[in[1]].rank != 2) {
        return NULL; /* MatMul(x, Transpose(w)) + b through the aten lowering */
    }
    if (ca->n_pos > 2 && ca->pos[2]->k != TA_NONE) {
        if (ca->pos[2]->k != TA_TENSOR) {
            return NULL;
        }
        EM_RETURN_IF_ERROR(em_ts_use(L, ca->pos[2], &in[2]));
    }
    ts_call call = {.op = "aten::linear", .node = L->path};
    EM_RETURN_IF_ERROR(em_ts_emit(L, &call, EM_OP_GEMM, in, in[2] >= 0 ? 3 : 2, &y, 1, &node));
    EM_RETURN_IF_ERROR(em_node_set_int(L->g, node, "transB", 1));
    EM_RETURN_IF_ERROR(em_ts_infer(L, &call, node));
    return em_ts_ret_tensor(L, y, out);
}
