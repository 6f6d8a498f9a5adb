/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quantization arithmetic shared by the quantized kernels of every ISA, the loaders' QDQ
 * lowering and (later) the quantizer: the quantized storage types and their ranges, where the
 * scale and zero point of an element live (per tensor, per axis, blocked), the QLinear ops'
 * requantization multiplier, and int32 wrap-around. Pure functions of their arguments: no
 * allocation, no status. real = (q - zero_point) * scale.
 */
#ifndef EMBER_QUANTIZATION_QMATH_H
#define EMBER_QUANTIZATION_QMATH_H

#include "ember.h"

#include <stdbool.h>
#include <stdint.h>

/* A quantized storage type. */
typedef struct em_qtype {
    ember_dtype dt;
    bool quantize_ok; /* may be QuantizeLinear's output (int32 is a DequantizeLinear input only) */
    double lo, hi;    /* the integer range the quantized values saturate to */
    bool fp;          /* a float format (float8 / float4 / float6): lo and hi unused */
} em_qtype;

/* The description of dt, or NULL when dt is no quantized storage type. */
const em_qtype *em_q_type(ember_dtype dt);

/*
 * Where the scale (and zero point) of element e of x lives, for per-tensor, per-axis and
 * blocked quantization alike: with e = (o * dim + a) * inner + r (a the coordinate along the
 * axis), the parameter index is o * s_outer + (a / block) * s_axis + r * s_inner.
 */
typedef struct em_qmap {
    int64_t inner, dim, block;
    int64_t s_outer, s_axis, s_inner;
} em_qmap;

static inline int64_t em_qmap_index(const em_qmap *m, int64_t e)
{
    int64_t r = e % m->inner, t = e / m->inner;
    return (t / m->dim) * m->s_outer + ((t % m->dim) / m->block) * m->s_axis + r * m->s_inner;
}

/* Requantization multiplier of the QLinear ops, in float32 as ONNX's reference and ONNX
 * Runtime compute it: (a_scale * b_scale) / y_scale. */
static inline double em_q_multiplier(double a_scale, double b_scale, double y_scale)
{
    float m = (float)a_scale * (float)b_scale;
    m = m / (float)y_scale;
    return m;
}

/* The low 32 bits of v as a two's complement int32 (the integer ops' int32 accumulators wrap;
 * no implementation-defined conversion). */
static inline int32_t em_q_wrap32(int64_t v)
{
    uint32_t w = (uint32_t)(uint64_t)v;
    return w <= INT32_MAX ? (int32_t)w : (int32_t)(w - 2147483648u) + INT32_MIN;
}

/*
 * x (rows x cols, row stride ldx) quantized and dequantized into y (row stride ldy) the way
 * PyTorch's dynamic quantized Linear quantizes its input on each call (fbgemm / x86:
 * quant_utils::ChooseQuantizationParams over [min(x, 0), max(x, 0)] to 0..qmax, qmax 127 with
 * reduce_range, else 255), in float32 step by step as the TorchScript loader's graph form of
 * the same (ts_ops_quant.c, dynamic_fake_quant) computes it: scale = (max - min) / qmax (0.1
 * where that is below 2^-128, whose reciprocal overflows), zero point = clamp(rint(-(min /
 * scale)), 0, qmax), q = clamp(rint(x / scale) + zero point, 0, 255), y = (q - zero point) *
 * scale. NaN in x gives NaN bounds and then the zero point 0 (defined, not torch's). x and y
 * may be the same array.
 */
static inline void em_q_dynamic_fake_quant_f32(const float *x, int64_t rows, int64_t cols,
                                               int64_t ldx, float *y, int64_t ldy, int qmax)
{
    float mn = 0.0f, mx = 0.0f;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t k = 0; k < cols; k++) {
            float v = x[r * ldx + k];
            mn = v < mn || v != v ? v : mn;
            mx = v > mx || v != v ? v : mx;
        }
    }
    float q = (float)qmax, sc = (mx - mn) / q;
    sc = sc < 0x1p-128f ? 0.1f : sc;
    float zp = __builtin_rintf(-(mn / sc));
    zp = zp != zp ? 0.0f : zp < 0.0f ? 0.0f : zp > q ? q : zp;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t k = 0; k < cols; k++) {
            float v = x[r * ldx + k] / sc;
            float t = v != v ? zp : __builtin_rintf(v) + zp;
            t = t < 0.0f ? 0.0f : t > 255.0f ? 255.0f : t;
            y[r * ldy + k] = (t - zp) * sc;
        }
    }
}

#endif /* EMBER_QUANTIZATION_QMATH_H */
