/* SPDX-License-Identifier: Apache-2.0 */
/*
 * QuantizeLinear-28, DequantizeLinear-28 and DynamicQuantizeLinear-11.
 *
 * QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point) for integer outputs,
 * y = cast(x / scale + zero_point) for the float formats (float8 honours `saturate`). The
 * quotient is computed in the dtype `precision` names (opset 23: x and scale are rounded to it
 * first), else in the dtype numpy gives x / scale in ONNX's reference: float64 when x or the
 * scale is int32, float16 (bfloat16) when both are, float32 otherwise. (The spec says "the
 * scale's type"; it agrees but for a float32 x with a 16-bit scale, where the reference and
 * ember use float32.) A 16-bit quotient is the float32 one rounded, as numpy computes it. The
 * output dtype is the zero point's, else output_dtype, else uint8.
 * DequantizeLinear: y = (x - zero_point) * scale, the product rounded to float32 (exact for
 * 8- and 16-bit x; ONNX's reference and ONNX Runtime compute in float32) and then converted to
 * the output dtype (output_dtype of opset 23, else the scale's; a float8e8m0 scale needs
 * output_dtype).
 * Scales and zero points are per tensor, per axis or blocked (em_qmap, quant_common_ref.c).
 * DynamicQuantizeLinear follows the spec's float32 arithmetic exactly: the range [min(0, min x),
 * max(0, max x)] (NaN ignored) maps to [0, 255]; an all-zero range gives scale 1 and zero point
 * 0, as ONNX's reference defines it; NaN elements quantize to the zero point.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>

static bool float_dtype_ok(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16;
}

/* A scale's dtype: f32 f16 bf16 f8e8m0, and int32 for QuantizeLinear (opset 23). */
static bool scale_dtype_ok(const em_kinfo *ki, ember_dtype dt)
{
    return float_dtype_ok(dt) || dt == EMBER_DTYPE_F8E8M0 ||
           (dt == EMBER_DTYPE_I32 && ki->node->op == EM_OP_QUANTIZELINEAR);
}

/* Checks the scale (input 1) and output 0 (dtype out_dt, x's shape). */
static ember_status *check_common(const em_kinfo *ki, ember_dtype out_dt)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *s = &ki->in[1];
    EMBER_TRY(em_ref_check_tensor(ki, s, EMBER_DTYPE_UNDEFINED, "input 1 (scale)"));
    if (!scale_dtype_ok(ki, s->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "scale dtype %s is not supported",
                            em_dtype_name(s->dtype));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], out_dt, "output 0 (y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (y)"));
    return NULL;
fail:
    return st;
}

/* The zero point (input 2) or NULL, after checking it is a tensor. */
static ember_status *zero_point(const em_kinfo *ki, const em_tensor **zp)
{
    *zp = NULL;
    if (!em_ref_has_input(ki, 2)) {
        return NULL;
    }
    *zp = &ki->in[2];
    return em_ref_check_tensor(ki, *zp, EMBER_DTYPE_UNDEFINED, "input 2 (zero point)");
}

/* ---- QuantizeLinear ---------------------------------------------------------------------- */

typedef struct em_quantize_attrs {
    ember_dtype x_dt, s_dt;
    ember_dtype div_dt; /* the dtype x / scale is computed in */
    const em_qtype *yt, *zt; /* zt NULL without a zero point */
    em_qmap map;
    bool saturate;
} em_quantize_attrs;

/* The division's dtype: `precision` when given (a float dtype), else numpy's promotion of x and
 * the scale (see the file's header). */
static ember_status *division_dtype(const em_kinfo *ki, ember_dtype x, ember_dtype s,
                                    ember_dtype *d)
{
    ember_status *st = NULL;
    int64_t p;
    EMBER_TRY(em_ref_attr_int(ki, "precision", 0, &p));
    if (p != 0) {
        if (p != EMBER_DTYPE_F32 && p != EMBER_DTYPE_F16 && p != EMBER_DTYPE_BF16 &&
            p != EMBER_DTYPE_F64) {
            return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                                "precision %lld is not supported (float, float16, bfloat16, "
                                "double)",
                                (long long)p);
        }
        *d = (ember_dtype)p;
    } else if (x == EMBER_DTYPE_I32 || s == EMBER_DTYPE_I32) {
        *d = EMBER_DTYPE_F64;
    } else if (x == s && (x == EMBER_DTYPE_F16 || x == EMBER_DTYPE_BF16)) {
        *d = x;
    } else {
        *d = EMBER_DTYPE_F32;
    }
    return NULL;
fail:
    return st;
}

/* v rounded to dtype d (f32 f16 bf16; f64: v). */
static double round_to(ember_dtype d, double v)
{
    if (d == EMBER_DTYPE_F64) {
        return v;
    }
    float f;
    em_q_setf(EMBER_DTYPE_F32, &f, 0, v);
    if (d != EMBER_DTYPE_F32) {
        uint16_t h;
        em_q_setf(d, &h, 0, f);
        return em_tref_get(d, &h, 0);
    }
    return f;
}

/* x / s in dtype d: both rounded to d, the quotient computed in float32 (double for f64) and
 * rounded to d. */
static double quotient(ember_dtype d, double x, double s)
{
    if (d == EMBER_DTYPE_F64) {
        return x / s;
    }
    return round_to(d, (double)((float)round_to(d, x) / (float)round_to(d, s)));
}

/* The output type: the zero point's, else output_dtype, else uint8; both given must agree. */
static ember_status *quantize_out_type(const em_kinfo *ki, const em_tensor *zp, const em_qtype **yt)
{
    ember_status *st = NULL;
    int64_t odt;
    EMBER_TRY(em_ref_attr_int(ki, "output_dtype", 0, &odt));
    if (zp != NULL && odt != 0 && odt != (int64_t)zp->dtype) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output_dtype %lld differs from the zero point's dtype %s",
                            (long long)odt, em_dtype_name(zp->dtype));
    }
    int64_t dt = zp != NULL ? (int64_t)zp->dtype : odt != 0 ? odt : EMBER_DTYPE_U8;
    *yt = dt > 0 && dt < 64 ? em_q_type((ember_dtype)dt) : NULL;
    if (*yt == NULL || !(*yt)->quantize_ok) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "quantized dtype %lld is not supported (8-, 16-, 4- and 2-bit "
                            "integers, float8, float4, float6)",
                            (long long)dt);
    }
    return NULL;
fail:
    return st;
}

ember_status *em_quantizelinear_prepare__ref(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_quantize_attrs a = {0};
    const em_tensor *x = &ki->in[0], *zp;
    int64_t axis, block;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (x)"));
    if (!float_dtype_ok(x->dtype) && x->dtype != EMBER_DTYPE_I32) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "x dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(zero_point(ki, &zp));
    EMBER_TRY(quantize_out_type(ki, zp, &a.yt));
    a.zt = zp != NULL ? a.yt : NULL;
    EMBER_TRY(check_common(ki, a.yt->dt));
    EMBER_TRY(em_ref_attr_int(ki, "axis", 1, &axis));
    EMBER_TRY(em_ref_attr_int(ki, "block_size", 0, &block));
    EMBER_TRY(em_q_attr_flag(ki, "saturate", 1, &a.saturate));
    EMBER_TRY(em_qmap_parse(ki, x, &ki->in[1], zp, axis, block, &a.map));
    a.x_dt = x->dtype;
    a.s_dt = ki->in[1].dtype;
    EMBER_TRY(division_dtype(ki, a.x_dt, a.s_dt, &a.div_dt));
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_quantizelinear__ref(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    const em_quantize_attrs *a = state;
    const int64_t n = em_ref_prod(in[0].dims, in[0].rank);
    (void)ctx;
    for (int64_t e = 0; e < n; e++) {
        int64_t k = em_qmap_index(&a->map, e);
        double s = em_tref_get(a->s_dt, in[1].data, k);
        double x = em_tref_get(a->x_dt, in[0].data, e);
        double zp = a->zt != NULL ? em_q_real(a->zt, in[2].data, k) : 0.0;
        em_q_quantize(a->yt, out[0].data, e, quotient(a->div_dt, x, s), zp, a->saturate);
    }
}

/* ---- DequantizeLinear -------------------------------------------------------------------- */

typedef struct em_dequantize_attrs {
    const em_qtype *xt;
    ember_dtype s_dt, y_dt;
    bool has_zp;
    em_qmap map;
} em_dequantize_attrs;

ember_status *em_dequantizelinear_prepare__ref(const em_kinfo *ki, void **state,
                                               size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_dequantize_attrs a = {0};
    const em_tensor *x = &ki->in[0], *zp;
    int64_t axis, block, odt;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (x)"));
    a.xt = em_q_type(x->dtype);
    if (a.xt == NULL) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "x dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(zero_point(ki, &zp));
    if (zp != NULL && zp->dtype != x->dtype) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "zero point dtype %s differs from x's %s",
                            em_dtype_name(zp->dtype), em_dtype_name(x->dtype));
    }
    EMBER_TRY(em_ref_attr_int(ki, "output_dtype", 0, &odt));
    a.s_dt = ki->in[1].dtype;
    a.y_dt = odt != 0 ? (ember_dtype)odt : a.s_dt;
    if (odt != 0 && !float_dtype_ok(a.y_dt)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "output_dtype %lld is not supported",
                            (long long)odt);
    }
    if (odt == 0 && a.s_dt == EMBER_DTYPE_F8E8M0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "a float8e8m0 scale needs output_dtype (float, float16, bfloat16)");
    }
    EMBER_TRY(check_common(ki, a.y_dt));
    EMBER_TRY(em_ref_attr_int(ki, "axis", 1, &axis));
    EMBER_TRY(em_ref_attr_int(ki, "block_size", 0, &block));
    EMBER_TRY(em_qmap_parse(ki, x, &ki->in[1], zp, axis, block, &a.map));
    a.has_zp = zp != NULL;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_dequantizelinear__ref(const void *state, const em_tensor *in, em_tensor *out,
                              const em_kctx *ctx)
{
    const em_dequantize_attrs *a = state;
    const int64_t n = em_ref_prod(in[0].dims, in[0].rank);
    float p;
    (void)ctx;
    for (int64_t e = 0; e < n; e++) {
        int64_t k = em_qmap_index(&a->map, e);
        double zp = a->has_zp ? em_q_real(a->xt, in[2].data, k) : 0.0;
        double v = (em_q_real(a->xt, in[0].data, e) - zp) * em_tref_get(a->s_dt, in[1].data, k);
        em_q_setf(EMBER_DTYPE_F32, &p, 0, v);
        em_q_setf(a->y_dt, out[0].data, e, p);
    }
}

/* ---- DynamicQuantizeLinear --------------------------------------------------------------- */

ember_status *em_dynquant_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 3));
    if (ki->n_out != 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%d outputs, expected 3", ki->n_out);
    }
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (x)"));
    if (x->dtype != EMBER_DTYPE_F32) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "x dtype %s is not supported (float)",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_U8, "output 0 (y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (y)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], EMBER_DTYPE_F32, "output 1 (y_scale)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], NULL, 0, "output 1 (y_scale)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[2], EMBER_DTYPE_U8, "output 2 (y_zero_point)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[2], NULL, 0, "output 2 (y_zero_point)"));
    return NULL;
fail:
    return st;
}

void em_dynquant__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const float *x = in[0].data;
    const int64_t n = em_ref_prod(in[0].dims, in[0].rank);
    const em_qtype *u8 = em_q_type(EMBER_DTYPE_U8);
    float lo = 0.0f, hi = 0.0f;
    (void)state;
    (void)ctx;
    for (int64_t e = 0; e < n; e++) {
        lo = x[e] < lo ? x[e] : lo;
        hi = x[e] > hi ? x[e] : hi;
    }
    const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    float zp = 0.0f - lo / scale;
    zp = zp < 0.0f ? 0.0f : zp > 255.0f ? 255.0f : zp;
    zp = (float)rint(zp);
    for (int64_t e = 0; e < n; e++) {
        em_q_quantize(u8, out[0].data, e, (double)(x[e] / scale), zp, true);
    }
    *(float *)out[1].data = scale;
    *(uint8_t *)out[2].data = (uint8_t)zp;
}
