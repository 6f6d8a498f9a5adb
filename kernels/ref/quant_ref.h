/* SPDX-License-Identifier: Apache-2.0 */
/* The helpers the quant family's reference kernels share (quant_common_ref.c); their entry
 * points are declared by ref.h from kernels_quant.def. Included by ref.h.
 *
 * Every kernel is registered with dtype UNDEFINED and checks the dtypes it handles in prepare.
 * Quantized storage types are described by one table (quant_common_ref.c, em_q_type): uint8,
 * int8, uint16, int16, uint4, int4, uint2, int2 (integers: round half to even, saturate), the
 * float8 / float4 / float6 formats (Cast's round to nearest even, honouring `saturate` for
 * float8) and int32 as a DequantizeLinear input. The kernels touch quantized elements only
 * through em_q_type / em_q_quantize / em_q_real; the sub-byte types take one byte per element
 * (ember.h), so they are indexed like uint8. */
#ifndef EMBER_KERNELS_REF_QUANT_REF_H
#define EMBER_KERNELS_REF_QUANT_REF_H

#include "plan/kernel.h"
#include "quantization/qmath.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- Helpers shared by the quant and signal families (quant_common_ref.c) ---------------- */
/* Loads go through the tensor family's em_tref_get (element i of any numeric dtype as double;
 * exact for f16, bf16 and integers up to 2^53), one-element int32/int64 values through the
 * reduce family's em_rd_scalar_int. */

/* True for f32 f64 f16 bf16. */
bool em_q_is_float(ember_dtype dt);
/* Stores v into element i with ONNX Cast's rules: floats round to nearest even once (f16 and
 * bf16 straight from double); integers truncate toward zero, saturate, NaN gives 0. */
void em_q_setf(ember_dtype dt, void *p, int64_t i, double v);
/* Int attribute `name` that must be 0 or 1 (default dflt) as a bool; INVALID_MODEL otherwise. */
ember_status *em_q_attr_flag(const em_kinfo *ki, const char *name, int64_t dflt, bool *v);
/* Input i must be one int32/int64 value (rank 0 or 1); absent is an error only when
 * `required`. *known tells whether prepare sees its data, then in *v. `what` names it. */
ember_status *em_q_int_input(const em_kinfo *ki, int i, const char *what, bool required,
                             bool *known, int64_t *v);

/* The stored value of element i as a real number (integers exactly). */
double em_q_real(const em_qtype *t, const void *p, int64_t i);
/* The stored value of element i of an integer quantized type. */
int64_t em_q_int(const em_qtype *t, const void *p, int64_t i);
/* Input i (named `what`) must be a uint8 or int8 tensor (UNSUPPORTED otherwise); its type in *t. */
ember_status *em_q_operand_8bit(const em_kinfo *ki, int i, const char *what, const em_qtype **t);
/* A QLinear / integer op parameter's dtype: a zero point has its operand's dtype `want`; a scale
 * (want UNDEFINED) is f32, f16 or bf16. */
bool em_q_param_dtype_ok(ember_dtype dt, ember_dtype want);
/* Stores saturate(round_half_even(v) + zp) into element i; NaN stores the zero point.
 * Float formats store v + zp rounded to nearest even by Cast's rules, with `saturate` (the
 * attribute of the float8 types); integer types always saturate. */
void em_q_quantize(const em_qtype *t, void *p, int64_t i, double v, double zp, bool saturate);

/* Builds the map of QuantizeLinear/DequantizeLinear from x, the scale (input 1), the optional
 * zero point (input 2: NULL when absent), the axis and block_size attributes; INVALID_MODEL
 * names the node when the shapes do not fit. */
ember_status *em_qmap_parse(const em_kinfo *ki, const em_tensor *x, const em_tensor *scale,
                            const em_tensor *zp, int64_t axis, int64_t block, em_qmap *m);

/* The QLinear ops' result: saturate(round_half_even(acc * mult) + zp) into element i. */
void em_q_requantize(const em_qtype *t, void *p, int64_t i, int64_t acc, double mult, double zp);

/* Most inputs QLinearConcat joins: (1024 inputs of its op row - 2) / 3. */
#define EM_QCONCAT_MAX 340

/* The per-tensor parameters of an 8-bit operand of the com.microsoft QLinear ops: scale input
 * si (one float32 value; when prepare sees it, positive and finite, else INVALID_MODEL naming
 * the node and input), zero point input zi (zi < 0 or absent: none, *has_zp false; else one
 * value of dtype dt). `what` names the operand ("A"). */
ember_status *em_q_tensor_params(const em_kinfo *ki, int si, int zi, ember_dtype dt,
                                 const char *what, bool *has_zp);
/* Element k of parameter input i as a double, `dflt` when not present. */
double em_q_param_at(const em_tensor *in, int i, bool present, int64_t k, double dflt);

#endif /* EMBER_KERNELS_REF_QUANT_REF_H */
