/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Operator lowering of the TorchScript loader (internal): the table of aten/prim operators
 * ember maps onto its op set, and the helpers their lowering functions share. A lowering gets
 * the call bound to the operator's schema (ts_call: arguments in schema order, defaults
 * filled, see ts_bind.c) and returns the abstract result.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_OPS_H
#define EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_OPS_H

#include "ts_lower.h"

typedef ember_status *(*ts_lower_fn)(ts_lower *L, const ts_call *c, ts_av **out);

typedef struct ts_op_entry {
    const char *name; /* "aten::conv2d" */
    ts_lower_fn fn;
} ts_op_entry;

/* A table of lowerings: one per ts_ops_*.c file, listed in em_ts_op_find (ts_ops.c). */
typedef struct ts_op_table {
    const ts_op_entry *ops;
    size_t n;
} ts_op_table;

extern const ts_op_table em_ts_nn_table;     /* ts_ops_nn.c: conv, norms, pools, linear, shapes */
extern const ts_op_table em_ts_elem_table;   /* ts_ops_elem.c: elementwise math, comparisons, dtype
                                             promotion, reductions */
extern const ts_op_table em_ts_tensor_table; /* ts_ops_tensor.c: tensor creation, dtype casts */
extern const ts_op_table em_ts_rnn_table;    /* ts_ops_rnn.c: RNN/LSTM/GRU layers and cells */
extern const ts_op_table em_ts_attn_table;   /* ts_ops_attn.c: attention */
extern const ts_op_table em_ts_quant_table;  /* ts_ops_quant.c: quantized tensors and ops */
extern const ts_op_table em_ts_index_table;  /* ts_ops_index.c: indexing, split, gather/scatter */
extern const ts_op_table em_ts_layout_table; /* ts_ops_layout.c: expand, repeat, stack, pad,
                                             upsample, pixel/channel shuffle, tril */

/* Quantized values (ts_ops_quant.c): a as a float value (DequantizeLinear when quantized), and
 * float x quantized with the per-tensor parameters of quantized `like`. */
ember_status *em_ts_dequantize(ts_lower *L, const ts_call *c, const ts_av *a, int *out);
/* Float x quantized and dequantized as PyTorch's dynamic quantized Linear quantizes its input
 * per call (one range over all of x, to 0..qmax; ts_ops_quant.c). */
ember_status *em_ts_dynamic_fake_quant(ts_lower *L, const ts_call *c, int x, int qmax, int *out);
/* A float bias b[nb] next to input scale xs and weight scales ws (nws: 1 or nb) as the int32
 * bias of QLinearConv / QGemm (arena arrays): bs[m] = float(xs * ws[m]), bq[m] =
 * round_half_even(b[m] / bs[m]); *bq NULL where a scale is not positive or a quotient leaves
 * int32 (ts_ops_quant.c). */
ember_status *em_ts_int32_bias_data(ts_lower *L, float xs, const float *ws, int64_t nws,
                                   const float *b, int64_t nb, int32_t **bq, float **bs);
ember_status *em_ts_requantize_like(ts_lower *L, const ts_call *c, int x, const ts_av *like,
                                 ts_av **out);

/* The lowering of operator `name`, or NULL. */
ts_lower_fn em_ts_op_find(const char *name);

/* Builtins on known values (ts_ops_scalar.c); *handled false when `op` is not one of them or an
 * argument is not known. */
ember_status *em_ts_scalar_call(ts_lower *L, const char *op, ts_av **args, size_t n, em_ts_pos pos,
                             bool *handled, ts_av **out);

/* Binds a call of operator `op` ("aten::add") against its schemas (ts_bind.c). */
ember_status *em_ts_bind(ts_lower *L, const char *op, ts_av **args, size_t n_args,
                      const char **kw_names, ts_av **kw_vals, size_t n_kw, em_ts_pos pos,
                      ts_call *out);

/* ---- argument access for lowering functions (ts_ops.c) ---- */
ember_status *em_ts_arg_tensor(ts_lower *L, const ts_call *c, size_t i, int *v);
ember_status *em_ts_arg_int(ts_lower *L, const ts_call *c, size_t i, int64_t *v);
ember_status *em_ts_arg_float(ts_lower *L, const ts_call *c, size_t i, double *v);
ember_status *em_ts_arg_bool(ts_lower *L, const ts_call *c, size_t i, bool *v);
/* A known int list (an int alone repeats `n_fill` times when n_fill > 0); at most cap items. */
ember_status *em_ts_arg_ints(ts_lower *L, const ts_call *c, size_t i, int64_t *v, size_t cap,
                          size_t n_fill, size_t *n);
bool em_ts_arg_none(const ts_call *c, size_t i);
/* An in-place op's result v becomes the value of tensor `self` and, when self is a slice
 * (ts_view) of a tensor of this graph, of each tensor it is a slice of, with the slice's
 * region replaced (ts_ops_nn.c). */
ember_status *em_ts_set_inplace(ts_lower *L, const ts_call *c, ts_av *self, int v);
/* Emits a one-output node and returns it as a tensor. */
ember_status *em_ts_emit1(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                       int *node, ts_av **out);
ember_status *em_ts_ret_tensor(ts_lower *L, int v, ts_av **out);
/* Dim d of x as a 0-d int64 value of the current graph (Shape -> Gather). */
ember_status *em_ts_dim_value(ts_lower *L, const ts_call *c, int x, int64_t d, int *out);
/* Rank of value v in the current graph; -1 when unknown (then an error names the op). */
ember_status *em_ts_rank(ts_lower *L, const ts_call *c, int v, int *rank);

/* adaptive_avg_pool1d/2d of x (rank 3 or 4) to output sizes os[] where the input's spatial
 * sizes are not known at load time or not multiples of os (ts_ops_pool.c). */
ember_status *em_ts_adaptive_avg_pool_dynamic(ts_lower *L, const ts_call *c, int x, int rank,
                                           const int64_t *os, ts_av **out);
/* ---- dtypes and shapes (ts_ops_tensor.c) ---- */
/* torch's ScalarType number of dtype dt (torch.float32 is 6), -1 when torch has none. */
int em_ts_scalar_type(ember_dtype dt);
/* The dtype of torch ScalarType st; EMBER_DTYPE_UNDEFINED when ember has none. */
ember_dtype em_ts_dtype_of_scalar_type(int64_t st);
/* Dim d of a rank-`rank` tensor counted from 0 (negative ones from the end), or an error. */
ember_status *em_ts_norm_dim(ts_lower *L, const ts_call *c, int64_t d, int rank, int64_t *out);
/* Dims [start, end) of x's shape as a 1-D int64 value (end is clamped to the rank). */
ember_status *em_ts_shape_of(ts_lower *L, const ts_call *c, int x, int64_t start, int64_t end,
                          int *out);
/* The dim a dynamic scalar stands for when it is Gather(Shape(x), k): a dim of x (an unknown
 * one is given a symbol of its own first, so values sized by it share it). */
bool em_ts_dim_of_scalar(ts_lower *L, const ts_av *s, em_dim *d);
/* Writes the dims a size list tells (known ints, dims of values) onto value v where its dims
 * are unknown (shape inference cannot see through a computed shape). */
void em_ts_refine_dims(ts_lower *L, int v, const ts_av *list);
/* em_ts_refine_dims for Reshape(x, list) into v, and its -1 dim from x's dims where known
 * factors divide and symbols cancel ([b, g, c, h, w] -> [b, -1, h, w] keeps g * c). */
void em_ts_reshape_dims(ts_lower *L, int v, int x, const ts_av *list);
/* Copies the dims of value `from` (same rank) onto value v where v's are unknown. */
void em_ts_copy_dims(ts_lower *L, int v, int from);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_OPS_H */
