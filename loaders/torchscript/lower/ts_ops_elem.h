/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Elementwise math, comparisons and reductions of the TorchScript loader (internal): PyTorch's
 * dtype rules shared by ts_ops_elem.c (promotion, binary and ternary ops, the op table),
 * ts_ops_math.c (unary math, activations, softmax) and ts_ops_reduce.c (reductions).
 *
 * Promotion is torch.result_type: the category (bool < integral < floating) decides first,
 * then the participants rank dimensioned tensors > zero-dim tensors > wrapped numbers (Python
 * numbers, dynamic scalars, and the 0-d CONSTANTS.cN tensors a trace records for Python
 * numbers, which TorchScript's interpreter treats as wrapped too); a wrapped float counts as the
 * default dtype f32. Calls whose arguments are all numbers or dynamic scalars follow Python's
 * arithmetic instead (int64 / double results, a dynamic scalar).
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_OPS_ELEM_H
#define EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_OPS_ELEM_H

#include "ts_ops.h"

bool em_ts_dt_float(ember_dtype dt);
/* c10::promoteTypes of two dtypes (UNDEFINED: the other). */
ember_dtype em_ts_promote_types(ember_dtype a, ember_dtype b);
/* torch.result_type of args[0..n) (tensors, dynamic scalars, numbers; None and NULL skipped). */
ember_status *em_ts_promote(ts_lower *L, const ts_call *c, const ts_av *const *args, size_t n,
                         ember_dtype *dt);
/* Value v as dtype dt: a Cast node only when the dtype differs. */
ember_status *em_ts_cast(ts_lower *L, const ts_call *c, int v, ember_dtype dt, int *out);
/* A tensor, dynamic scalar or number as a value of dtype dt (UNDEFINED: as it is). */
ember_status *em_ts_value_as(ts_lower *L, const ts_call *c, const ts_av *a, ember_dtype dt,
                          int *out);
/* The dtype of a ScalarType argument (torch's numbering); UNDEFINED for None. */
ember_status *em_ts_arg_dtype(ts_lower *L, const ts_call *c, size_t i, ember_dtype *dt);
/* Whether any argument is a tensor (otherwise the call is Python arithmetic on scalars). */
bool em_ts_any_tensor(const ts_av *const *args, size_t n);
/* The result of a call: a tensor, or for an in-place op (name ending in one '_') the value cast
 * to self's dtype, which self's abstract value then refers to (later uses see the update). */
ember_status *em_ts_elem_ret(ts_lower *L, const ts_call *c, int v, ts_av **out);
/* A one-output node on in[0..n_in) with one optional attribute set before inference. */
ember_status *em_ts_node(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in, int *out);
ember_status *em_ts_node_int(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                          const char *attr, int64_t v, int *out);
/* Binary op on two values of one dtype. */
ember_status *em_ts_node2(ts_lower *L, const ts_call *c, em_op op, int a, int b, int *out);
/* trunc of a float value: Sign(x) * Floor(Abs(x)) (ONNX has no Trunc). */
ember_status *em_ts_trunc(ts_lower *L, const ts_call *c, int x, int *out);

/* ts_ops_math.c: unary math and activations (entries of em_ts_elem_table). */
ember_status *em_ts_lower_unary(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_relu(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_relu6(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_hardtanh(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_alpha_act(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_elu(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_gelu(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_silu(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_hardsigmoid(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_softplus(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_threshold(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_prelu(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_glu(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_softmax(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_round(ts_lower *L, const ts_call *c, ts_av **out);

/* ts_ops_reduce.c: reductions and scans. */
ember_status *em_ts_lower_sum(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_mean(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_prod(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_amax(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_max(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_argmax(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_std(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_norm(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_all(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_logsumexp(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_cumsum(ts_lower *L, const ts_call *c, ts_av **out);

/* ts_ops_elem.c: binary max/min (max.other), which em_ts_lower_max hands over to. */
ember_status *em_ts_lower_maximum(ts_lower *L, const ts_call *c, ts_av **out);
ember_status *em_ts_lower_minimum(ts_lower *L, const ts_call *c, ts_av **out);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_OPS_ELEM_H */
