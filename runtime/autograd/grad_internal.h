/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by autograd.c, grad_build.c, grad_shape.c and the rule files grad_rules_*.c: the
 * differentiation context, the node builders rules emit through, and the rule table.
 *
 * Builders return the index of the (first) new value, or -1. Errors are sticky: after the
 * first failure (recorded in c->st) every builder returns -1 without touching the graph, and
 * any builder given a -1 input returns -1 too, so rules chain calls without checking each one
 * (em_gx_begin alone reads -1 as an absent optional input: that is safe because a -1 from a
 * failed builder comes with c->st set, and em_gx_begin then does nothing). Each new node's shape
 * function runs at once, so a rule can read the dtype and dims of any value it built. Pointers
 * from em_gx_val move when values are added: copy what is needed before building.
 */
#ifndef EMBER_AUTOGRAD_GRAD_INTERNAL_H
#define EMBER_AUTOGRAD_GRAD_INTERNAL_H

#include "autograd/autograd.h"

#include <stdbool.h>
#include <stdint.h>

enum { GX_MAX_OUT = 64 }; /* outputs of one backward node; entries of one shape vector */

typedef struct gx_acc {
    int n, cap;
    int *v;          /* gradient contributions (value indices) */
} gx_acc;

typedef struct em_gctx {
    em_graph *g;
    ember_status *st;    /* the first error; builders do nothing once it is set */
    char prefix[96];     /* unique prefix of new value names */
    unsigned serial;
    int node;            /* forward node whose rule runs (names and messages); -1 none */
    int n_fwd_values;    /* values that existed before autodiff */
    unsigned char *need; /* per forward value: needs a gradient */
    gx_acc *acc;         /* per forward value */
} em_gctx;

/* One rule: emits the input gradients of node `n` (a copy of the forward node, valid while
 * the rule runs) from gy[o], the gradient of output o (-1: none), through em_gx_give. */
typedef void (*gx_rule)(em_gctx *c, const em_node *n, const int *gy);

/* ---- grad_build.c: errors, needs, values ---- */

/* Records UNSUPPORTED "autograd: node 'x' (Op): <msg>" unless an error is already set. */
void em_gx_fail(em_gctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
bool em_gx_ok(const em_gctx *c);
/* Records st (a builder's failure), wrapped with the forward node; keeps the first error. */
void em_gx_error(em_gctx *c, ember_status *st);
/* Whether forward value v (may be -1) needs a gradient. */
bool em_gx_needs(const em_gctx *c, int v);
/* Adds grad as a contribution to the gradient of forward value v when v needs one. */
void em_gx_give(em_gctx *c, int v, int grad);
const em_value *em_gx_val(const em_gctx *c, int v);
bool em_gx_is_float(ember_dtype dt);

/* ---- grad_build.c: nodes ---- */

/* Adds node `op` with n_out fresh outputs (out[] receives them when not NULL); returns the
 * node index, or -1. Attributes go on with gx_set_*, then em_gx_end infers its shapes. */
int em_gx_begin(em_gctx *c, em_op op, const int *in, int n_in, int n_out, int *out);
/* Infers node's shapes; returns its output 0 (or -1). */
int em_gx_end(em_gctx *c, int node);
void em_gx_set_int(em_gctx *c, int node, const char *name, int64_t v);
void em_gx_set_float(em_gctx *c, int node, const char *name, float v);
void em_gx_set_ints(em_gctx *c, int node, const char *name, const int64_t *v, int n);
void em_gx_set_string(em_gctx *c, int node, const char *name, const char *v);
/* Copies attribute `name` of forward node n onto node (when n has it). */
void em_gx_copy_attr(em_gctx *c, int node, const em_node *n, const char *name);
/* Output o of the forward node being differentiated, added (dtype dt, output 0's shape)
 * when the node lacks it: MaxPool's Indices, Dropout's mask. The rule's copy of the node
 * then lists stale outputs: read them before calling this. */
int em_gx_forward_output(em_gctx *c, int o, ember_dtype dt);

int em_gx_op1(em_gctx *c, em_op op, int a);
int em_gx_op2(em_gctx *c, em_op op, int a, int b);
int em_gx_op3(em_gctx *c, em_op op, int a, int b, int cc);
int em_gx_add(em_gctx *c, int a, int b);
int em_gx_sub(em_gctx *c, int a, int b);
int em_gx_mul(em_gctx *c, int a, int b);
int em_gx_div(em_gctx *c, int a, int b);
int em_gx_neg(em_gctx *c, int a);
/* Where(cond, a, b). */
int em_gx_where(em_gctx *c, int cond, int a, int b);
int em_gx_cast(em_gctx *c, int a, ember_dtype to);
int em_gx_transpose(em_gctx *c, int a, const int64_t *perm, int n);
/* ReduceSum / ReduceMean over axes[0..n) (n = 0: nothing is done). */
int em_gx_reduce(em_gctx *c, em_op op, int a, const int64_t *axes, int n, bool keepdims);
int em_gx_unsqueeze(em_gctx *c, int a, const int64_t *axes, int n);
int em_gx_reshape(em_gctx *c, int a, int shape);
int em_gx_expand(em_gctx *c, int a, int shape);
/* Sum of vals[0..n) (n >= 1), 16 inputs per Sum node. */
int em_gx_sum(em_gctx *c, const int *vals, int n);

/* ---- grad_shape.c: constants and shapes ---- */

/* A rank-0 constant of dtype dt (float dtypes, or I64; Cast from f32 for f16 / bf16). */
int em_gx_scalar(em_gctx *c, ember_dtype dt, double v);
/* A 1-D constant of v[0..n) (n <= 16; n = -1: rank 0) in dtype dt, as em_gx_scalar. */
int em_gx_floats(em_gctx *c, ember_dtype dt, const double *v, int n);
/* A 1-D int64 constant (n = -1: a rank-0 one holding v[0]). */
int em_gx_ints(em_gctx *c, const int64_t *v, int n);
/* Shape of value x as a 1-D int64 value: a constant when every dim is known. */
int em_gx_shape_of(em_gctx *c, int x);

/* One entry of a shape vector: k (when v < 0), dim d of value v, or that divided by dim d2
 * of value v2 (when v2 >= 0). */
typedef struct gx_dim {
    int64_t k;
    int v, d;
    int v2, d2;
} gx_dim;
gx_dim em_gx_k(int64_t k);
gx_dim em_gx_d(int v, int d);
/* The 1-D int64 vector of dims[0..n): a constant when every entry is known. */
int em_gx_dims(em_gctx *c, const gx_dim *dims, int n);

/* Zeros (or ones) of x's dtype and shape. */
int em_gx_zeros_like(em_gctx *c, int x);
int em_gx_fill_like(em_gctx *c, int x, double v);
/* g reshaped to x's shape (g itself when it has it). */
int em_gx_reshape_like(em_gctx *c, int g, int x);
/* g summed over the axes x was broadcast along, with x's shape (undoes broadcasting). */
int em_gx_sum_to(em_gctx *c, int g, int x);
/* Copies x's rank and dims onto value v (a value the rule knows has x's shape). */
void em_gx_like(em_gctx *c, int v, int x);
/* Scatter-adds g at the flat positions idx (int64, g's shape) into zeros of x's shape. */
int em_gx_scatter_flat(em_gctx *c, int x, int idx, int g, const char *reduction);
/* Range(numel(x)) reshaped to x's shape: flat positions, int64. */
int em_gx_index_map(em_gctx *c, int x);
/* ScatterElements(zeros of x's shape, idx, g) along n's `axis`, adding repeats (the gradient
 * of GatherElements, and of TopK through its indices). */
int em_gx_scatter_axis(em_gctx *c, const em_node *n, int x, int idx, int g);

/* ---- grad_rules_reduce.c: shared with the nn family's rules ---- */

/* mask = (x == y_full); gives x the share g / count of maxima (count: a ReduceSum of the mask
 * with n's axes and attributes, or over axes[0..na) for count_op GlobalMaxPool). ReduceMax /
 * ReduceMin and GlobalMaxPool. */
void em_gx_give_to_extrema(em_gctx *c, const em_node *n, int y_full, int g, em_op count_op,
                           const int64_t *axes, int na);
/* Normalization (BatchNormalization, InstanceNormalization, LayerNormalization): the axes but
 * the channel (0, 2, 3, ..) of rank r into axes, returning their count; a per-channel [C] value
 * shaped to broadcast against [N, C, spatial..] of rank r; xhat and 1 / sqrt(var + eps) of x
 * normalized over axes (keepdims); and dx from dxhat = g * scale. */
int em_gx_not_channel(int r, int64_t *axes);
int em_gx_per_channel(em_gctx *c, int v, int r);
void em_gx_norm_moments(em_gctx *c, int x, const int64_t *axes, int na, double eps, int *xhat,
                        int *inv);
int em_gx_norm_dx(em_gctx *c, int dxhat, int xhat, int inv, const int64_t *axes, int na);

/* ---- rules ---- */
/* The `grad` column of the op lists (runtime/ir/ops*.def) names each op's rule: EM_GRAD(r) is
 * em_gx_rule_r (in grad_rules_<family>.c; one rule may serve several ops, as trig does Tan,
 * Atan, Sinh, ...), EM_NOGRAD marks an op autodiff does not differentiate. The prototypes
 * come from the same expansion (a rule of several ops is declared once per op). */
#define EM_GRAD(r) void em_gx_rule_##r(em_gctx *c, const em_node *n, const int *gy);
#define EM_NOGRAD
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad) grad
#include "ir/ops.def"
#undef EM_OP
#undef EM_NOGRAD
#undef EM_GRAD

/* The rule of op, or NULL (EM_NOGRAD). */
gx_rule em_gx_rule_of(em_op op);

#endif /* EMBER_AUTOGRAD_GRAD_INTERNAL_H */
