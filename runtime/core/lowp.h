/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The low-precision dtypes of ember.h (float8 x5, float4, float6 x2, int4/uint4, int2/uint2):
 * element byte <-> value conversions, and the packing of the sub-byte types in ONNX data.
 * In memory every one of them takes one byte per element (the bit pattern in the low bits,
 * the high bits 0); ONNX's TensorProto packs 4-bit pairs, 2-bit quads and 6-bit quads
 * (onnx.proto: LSB first). Conversions to the float formats follow ONNX Cast-25 and its
 * reference implementation (numpy + ml_dtypes): round to nearest even, and per `saturate`
 * either clamp to the largest finite value or overflow to the format's infinity / NaN.
 */
#ifndef EMBER_CORE_LOWP_H
#define EMBER_CORE_LOWP_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Conversion flags of em_lowp_from_double (ONNX Cast's `saturate` and `round_mode`). */
enum {
    EM_LOWP_SATURATE = 1u << 0,      /* out of range -> the largest finite value (float8) */
    EM_LOWP_ROUND_NEAREST = 1u << 1, /* float8e8m0 only; default "up" */
    EM_LOWP_ROUND_DOWN = 1u << 2     /* float8e8m0 only */
};

/* The float formats: f8e4m3fn f8e4m3fnuz f8e5m2 f8e5m2fnuz f4e2m1 f8e8m0 f6e2m3 f6e3m2. */
bool em_lowp_is_float(ember_dtype dt);
/* The four float8 types of opset 19 (e4m3fn e4m3fnuz e5m2 e5m2fnuz; not e8m0). */
bool em_lowp_is_float8(ember_dtype dt);
/* The sub-byte integers: u4 i4 u2 i2. */
bool em_lowp_is_int(ember_dtype dt);
bool em_lowp_is_signed(ember_dtype dt);
/* Bits per element in ONNX's packed form: 4, 2 or 6 for the sub-byte types, else 0. */
int em_lowp_packed_bits(ember_dtype dt);
/* The bit width of dt's elements as ONNX counts it (BitCast): the packed width of the sub-byte
 * types, else 8 * em_dtype_size (bool: 8); 0 for an unknown dtype. */
int em_dtype_bits(ember_dtype dt);

/* The value of an element of a float format with bit pattern `bits` (exact in double; NaN for
 * NaN codes): the 8-bit-or-less formats above, and also f16 and bf16 (16-bit patterns). */
double em_lowp_to_double(ember_dtype dt, uint32_t bits);
/* The element byte nearest to x in a float format, with `flags` (EM_LOWP_*). */
uint8_t em_lowp_from_double(ember_dtype dt, double x, unsigned flags);
/* The value of an element byte of u4 i4 u2 i2 (i4 / i2 sign-extended). */
int64_t em_lowp_int(ember_dtype dt, uint8_t b);
/* The low bits of v (two's complement) as an element byte of u4 i4 u2 i2. */
uint8_t em_lowp_wrap(ember_dtype dt, uint64_t v);
/* The range of u4 i4 u2 i2 ([0, 15], [-8, 7], [0, 3], [-2, 1]). */
void em_lowp_int_range(ember_dtype dt, int64_t *lo, int64_t *hi);

/* IEEE half and bfloat16 <-> float, the scalar reference of the Cast kernels (x86: F16C's
 * vcvtph2ps / vcvtps2ph and the bf16 bit operations give the same bits for every input):
 * widening is exact (half subnormals included); narrowing rounds to nearest even, overflows to
 * +-inf, underflows through half subnormals to +-0. NaN stays NaN of the same sign, made quiet
 * (the top mantissa bit set) with the top bits of its payload kept, as F16C does. */
float em_f16_to_f32(uint16_t h);
uint16_t em_f32_to_f16(float f);
float em_bf16_to_f32(uint16_t h); /* the bits shifted (a NaN made quiet) */
uint16_t em_f32_to_bf16(float f);
/* n elements of f16 / bf16 (`half` says which) widened into f32, and the reverse. */
void em_half_to_f32_n(ember_dtype half, const uint16_t *src, float *dst, size_t n);
void em_f32_to_half_n(ember_dtype half, const float *src, uint16_t *dst, size_t n);

/* Bytes of n elements of a sub-byte dtype in ONNX's packed form: ceil(n * bits / 8); n for
 * any other dtype. */
size_t em_lowp_packed_size(ember_dtype dt, size_t n);
/* ONNX packed bytes -> one byte per element (n elements; `src` holds em_lowp_packed_size).
 * dt must be a sub-byte dtype (em_lowp_packed_bits != 0). */
void em_lowp_unpack(ember_dtype dt, const uint8_t *src, uint8_t *dst, size_t n);
/* One byte per element -> ONNX packed bytes (em_lowp_packed_size of them, padding bits 0).
 * dt must be a sub-byte dtype. */
void em_lowp_pack(ember_dtype dt, const uint8_t *src, uint8_t *dst, size_t n);

#endif /* EMBER_CORE_LOWP_H */
