/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aten operators on tensors lowered onto ember's op set (ts_ops.h): convolution, batch and
 * layer norm, pooling, linear layers, and the reshaping family (elementwise math, activations
 * and reductions are in ts_ops_elem.c). Arguments arrive in schema order (the comments give
 * each schema).
 */
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

#define MAXK 8

static ember_status *set_ints(ts_lower *L, int node, const char *name, const int64_t *v, size_t n)
{
    return em_node_set_ints(L->g, node, name, v, (int64_t)n);
}

/* ---- convolution ---- */

/* Names the spatial dims of a window op's output y (conv, pools) that shape inference leaves
 * unknown because x's are symbolic: floor((x + c) / s) + 1 with c = 2 * pad - dil * (k - 1) - 1
 * is x itself for s = 1, c = -1, and otherwise a symbol named by (x, c, s) (ceil mode: also by
 * pad), so two windows computing the same size from the same dim share a symbol. That lets a
 * residual Add of two branches be seen as shape-preserving at load (resnet's downsample
 * branch), and fusion passes act on it. `pad` NULL: SAME_UPPER padding (ceil(x / s)). */
static void window_dims(ts_lower *L, int x, int y, size_t k, const int64_t *ks,
                        const int64_t *st, const int64_t *pad, const int64_t *dil, bool ceil_mode)
{
    const em_value *xv = em_ts_val(L, x);
    em_value *yv = &L->g->values[y];
    if (xv->rank != (int)k + 2 || yv->rank != xv->rank) {
        return;
    }
    for (size_t d = 0; d < k; d++) {
        em_dim xd = xv->dims[2 + d], *yd = &yv->dims[2 + d];
        if (yd->v >= 0 || yd->sym > 0 || xd.sym <= 0 || xd.sym > L->g->n_syms || ks[d] < 0) {
            continue;
        }
        const char *xs = L->g->sym_names[xd.sym - 1];
        int64_t c = pad != NULL ? 2 * pad[d] - dil[d] * (ks[d] - 1) - 1 : 0;
        if (st[d] == 1 && (pad == NULL || (c == -1 && !ceil_mode))) {
            yd->sym = xd.sym;
            continue;
        }
        const char *name = pad == NULL ? em_ts_printf(L, "ceil(%s/%lld)", xs, (long long)st[d])
                           : ceil_mode ? em_ts_printf(L, "ceilwin(%s,%lld,%lld,%lld)", xs,
                                                   (long long)c, (long long)st[d],
                                                   (long long)pad[d])
                                       : em_ts_printf(L, "(%s%+lld)/%lld+1", xs, (long long)c,
                                                   (long long)st[d]);
        if (name != NULL) {
            yd->sym = em_graph_symbol(L->g, name); /* 0 (no symbol) when out of memory */
        }
    }
}

/* Conv / ConvTranspose from (input, weight, bias?, stride, padding, dilation, transposed,
 * output_padding, groups): shared by _convolution and convNd. */
static ember_status *conv(ts_lower *L, const ts_call *c, size_t i_stride, size_t i_pad,
                          size_t i_dil, bool transposed, size_t i_outpad, size_t i_groups,
                          ts_av **out)
{
    int in[3] = {-1, -1, -1}, node = -1, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &in[1]));
    TS_TRY(em_ts_rank(L, c, in[1], &rank));
    size_t k = rank >= 3 ? (size_t)rank - 2 : 1, ns = 0, np = 0, nd = 0, no = 0;
    int64_t stride[MAXK], pad[MAXK], dil[MAXK], outpad[MAXK] = {0}, groups = 1;
    if (!em_ts_arg_none(c, 2)) {
        TS_TRY(em_ts_arg_tensor(L, c, 2, &in[2]));
    }
    bool same = i_pad < c->n && c->a[i_pad]->k == TA_STR;
    TS_TRY(em_ts_arg_ints(L, c, i_stride, stride, MAXK, k, &ns));
    if (!same) {
        TS_TRY(em_ts_arg_ints(L, c, i_pad, pad, MAXK, k, &np));
    }
    TS_TRY(em_ts_arg_ints(L, c, i_dil, dil, MAXK, k, &nd));
    if (transposed) {
        TS_TRY(em_ts_arg_ints(L, c, i_outpad, outpad, MAXK, k, &no));
    }
    TS_TRY(em_ts_arg_int(L, c, i_groups, &groups));
    if (ns != k || (!same && np != k) || nd != k) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: stride/padding/dilation must "
                      "have %zu values", c->op, k);
    }
    TS_TRY(em_ts_emit1(L, c, transposed ? EM_OP_CONVTRANSPOSE : EM_OP_CONV, in,
                    in[2] >= 0 ? 3 : 2, &node, out));
    int64_t pads[2 * MAXK];
    for (size_t d = 0; d < k; d++) {
        pads[d] = pads[d + k] = same ? 0 : pad[d];
    }
    TS_TRY(set_ints(L, node, "strides", stride, k));
    TS_TRY(set_ints(L, node, "dilations", dil, k));
    TS_TRY(em_node_set_int(L->g, node, "group", groups));
    if (same) {
        const char *p = c->a[i_pad]->u.str.s;
        if (strcmp(p, "same") == 0) {
            TS_TRY(em_node_set_string(L->g, node, "auto_pad", "SAME_UPPER"));
        } else if (strcmp(p, "valid") != 0) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: padding '%s'", c->op, p);
        }
    } else {
        TS_TRY(set_ints(L, node, "pads", pads, 2 * k));
    }
    if (transposed) {
        TS_TRY(set_ints(L, node, "output_padding", outpad, k));
    }
    TS_TRY(em_ts_infer(L, c, node));
    if (!transposed && (!same || strcmp(c->a[i_pad]->u.str.s, "same") == 0)) {
        int64_t ks[MAXK];
        const em_value *w = em_ts_val(L, in[1]);
        for (size_t d = 0; d < k; d++) {
            ks[d] = w->rank == (int)k + 2 ? w->dims[2 + d].v : -1;
        }
        if (w->rank == (int)k + 2) {
            window_dims(L, in[0], (*out)->u.t.v, k, ks, stride, same ? NULL : pad, dil, false);
        }
    }
    return NULL;
}

/* _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
 *              groups, benchmark, deterministic, cudnn_enabled[, allow_tf32]) */
static ember_status *lower_convolution(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool transposed = false;
    TS_TRY(em_ts_arg_bool(L, c, 6, &transposed));
    return conv(L, c, 3, 4, 5, transposed, 7, 8, out);
}

/* convNd(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) */
static ember_status *lower_convnd(ts_lower *L, const ts_call *c, ts_av **out)
{
    return conv(L, c, 3, 4, 5, false, 0, 6, out);
}

/* conv_transposeNd(input, weight, bias, stride, padding, output_padding, groups, dilation) */
static ember_status *lower_conv_transpose(ts_lower *L, const ts_call *c, ts_av **out)
{
    return conv(L, c, 3, 4, 7, true, 5, 6, out);
}

/* ---- normalization ---- */

/* A constant filled with `v`, shaped like dim `d` of value x (known). */
static ember_status *fill_like_dim(ts_lower *L, const ts_call *c, int x, int d, float v, int *out)
{
    int64_t n = em_ts_val(L, x)->dims[d].v;
    if (n < 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: channel count unknown", c->op);
    }
    float *buf = em_ts_arena_alloc(&L->arena, (size_t)(n > 0 ? n : 1) * sizeof(float));
    if (buf == NULL) {
        return em_status_oom();
    }
    for (int64_t i = 0; i < n; i++) {
        buf[i] = v;
    }
    return em_ts_const(L, EMBER_DTYPE_F32, 1, &n, buf, out);
}

/* batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps,
 *            cudnn_enabled) */
static ember_status *lower_batch_norm(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool training = false;
    double eps = 1e-5, momentum = 0.1;
    int in[5] = {-1, -1, -1, -1, -1}, node = -1;
    TS_TRY(em_ts_arg_bool(L, c, 5, &training));
    TS_TRY(em_ts_arg_float(L, c, 7, &eps));
    if (!em_ts_arg_none(c, 6)) {
        TS_TRY(em_ts_arg_float(L, c, 6, &momentum));
    }
    if (training || em_ts_arg_none(c, 3) || em_ts_arg_none(c, 4)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "batch_norm in training mode (batch "
                      "statistics): save the model after model.eval()");
    }
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_tensor(L, c, 3, &in[3]));
    TS_TRY(em_ts_arg_tensor(L, c, 4, &in[4]));
    if (em_ts_arg_none(c, 1)) {
        TS_TRY(fill_like_dim(L, c, in[3], 0, 1.0f, &in[1]));
    } else {
        TS_TRY(em_ts_arg_tensor(L, c, 1, &in[1]));
    }
    if (em_ts_arg_none(c, 2)) {
        TS_TRY(fill_like_dim(L, c, in[3], 0, 0.0f, &in[2]));
    } else {
        TS_TRY(em_ts_arg_tensor(L, c, 2, &in[2]));
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_BATCHNORM, in, 5, &node, out));
    TS_TRY(em_node_set_float(L->g, node, "epsilon", (float)eps));
    /* ONNX's momentum weighs the old running value, PyTorch's the batch value (a trainer in
     * train mode reads it, autograd/train_modes.c) */
    TS_TRY(em_node_set_float(L->g, node, "momentum", (float)(1.0 - momentum)));
    return em_ts_infer(L, c, node);
}

/* layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable) */
static ember_status *lower_layer_norm(ts_lower *L, const ts_call *c, ts_av **out)
{
    int64_t shape[MAXK];
    size_t ns = 0;
    double eps = 1e-5;
    int in[3] = {-1, -1, -1}, node = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_ints(L, c, 1, shape, MAXK, 0, &ns));
    TS_TRY(em_ts_arg_float(L, c, 4, &eps));
    if (em_ts_arg_none(c, 2)) {
        int64_t n = 1;
        for (size_t i = 0; i < ns; i++) {
            n *= shape[i];
        }
        float *ones = em_ts_arena_alloc(&L->arena, (size_t)n * sizeof(float));
        if (ones == NULL) {
            return em_status_oom();
        }
        for (int64_t i = 0; i < n; i++) {
            ones[i] = 1.0f;
        }
        TS_TRY(em_ts_const(L, EMBER_DTYPE_F32, (int)ns, shape, ones, &in[1]));
    } else {
        TS_TRY(em_ts_arg_tensor(L, c, 2, &in[1]));
    }
    if (!em_ts_arg_none(c, 3)) {
        TS_TRY(em_ts_arg_tensor(L, c, 3, &in[2]));
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_LAYERNORM, in, in[2] >= 0 ? 3 : 2, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "axis", -(int64_t)ns));
    TS_TRY(em_node_set_float(L->g, node, "epsilon", (float)eps));
    return em_ts_infer(L, c, node);
}

/* ---- pooling ---- */

/* max_poolNd(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) */
static ember_status *lower_max_pool(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, node = -1, rank = 0;
    int64_t ks[MAXK], st[MAXK], pd[MAXK], dl[MAXK], pads[2 * MAXK];
    size_t nk = 0, ns = 0, np = 0, nd = 0;
    bool ceil_mode = false;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    size_t k = (size_t)(rank - 2);
    TS_TRY(em_ts_arg_ints(L, c, 1, ks, MAXK, k, &nk));
    TS_TRY(em_ts_arg_ints(L, c, 2, st, MAXK, k, &ns));
    TS_TRY(em_ts_arg_ints(L, c, 3, pd, MAXK, k, &np));
    TS_TRY(em_ts_arg_ints(L, c, 4, dl, MAXK, k, &nd));
    TS_TRY(em_ts_arg_bool(L, c, 5, &ceil_mode));
    if (ns == 0) { /* stride defaults to the kernel size */
        memcpy(st, ks, sizeof st);
        ns = nk;
    }
    if (nk != k || ns != k || np != k || nd != k) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: kernel/stride/padding/dilation "
                      "must have %zu values", c->op, k);
    }
    for (size_t d = 0; d < k; d++) {
        pads[d] = pads[d + k] = pd[d];
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_MAXPOOL, &x, 1, &node, out));
    TS_TRY(set_ints(L, node, "kernel_shape", ks, k));
    TS_TRY(set_ints(L, node, "strides", st, k));
    TS_TRY(set_ints(L, node, "pads", pads, 2 * k));
    TS_TRY(set_ints(L, node, "dilations", dl, k));
    TS_TRY(em_node_set_int(L->g, node, "ceil_mode", ceil_mode));
    TS_TRY(em_ts_infer(L, c, node));
    window_dims(L, x, (*out)->u.t.v, k, ks, st, pd, dl, ceil_mode);
    return NULL;
}

/* avg_poolNd(input, kernel_size, stride=[], padding=0, ceil_mode=False,
 *            count_include_pad=True, divisor_override=None) */
static ember_status *lower_avg_pool(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, node = -1, rank = 0;
    int64_t ks[MAXK], st[MAXK], pd[MAXK], pads[2 * MAXK];
    size_t nk = 0, ns = 0, np = 0;
    bool ceil_mode = false, include = true;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    size_t k = (size_t)(rank - 2);
    TS_TRY(em_ts_arg_ints(L, c, 1, ks, MAXK, k, &nk));
    TS_TRY(em_ts_arg_ints(L, c, 2, st, MAXK, k, &ns));
    TS_TRY(em_ts_arg_ints(L, c, 3, pd, MAXK, k, &np));
    TS_TRY(em_ts_arg_bool(L, c, 4, &ceil_mode));
    TS_TRY(em_ts_arg_bool(L, c, 5, &include));
    if (!em_ts_arg_none(c, 6)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: divisor_override", c->op);
    }
    if (ns == 0) {
        memcpy(st, ks, sizeof st);
        ns = nk;
    }
    if (nk != k || ns != k || np != k) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: kernel/stride/padding must have "
                      "%zu values", c->op, k);
    }
    for (size_t d = 0; d < k; d++) {
        pads[d] = pads[d + k] = pd[d];
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_AVERAGEPOOL, &x, 1, &node, out));
    TS_TRY(set_ints(L, node, "kernel_shape", ks, k));
    TS_TRY(set_ints(L, node, "strides", st, k));
    TS_TRY(set_ints(L, node, "pads", pads, 2 * k));
    TS_TRY(em_node_set_int(L->g, node, "ceil_mode", ceil_mode));
    TS_TRY(em_node_set_int(L->g, node, "count_include_pad", include));
    TS_TRY(em_ts_infer(L, c, node));
    int64_t dl[MAXK];
    for (size_t d = 0; d < k; d++) {
        dl[d] = 1;
    }
    window_dims(L, x, (*out)->u.t.v, k, ks, st, pd, dl, ceil_mode);
    return NULL;
}

/* adaptive_avg_poolNd(input, output_size): GlobalAveragePool for size 1; an output size equal
 * to a known input size is the identity; an AveragePool when the input size is a known
 * multiple of the output size; otherwise averaging matrices built at run time (ts_ops_pool.c). */
static ember_status *lower_adaptive_avg_pool(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, node = -1, rank = 0;
    int64_t os[MAXK];
    size_t no = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    size_t k = (size_t)(rank - 2);
    TS_TRY(em_ts_arg_ints(L, c, 1, os, MAXK, k, &no));
    if (no != k) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: output_size must have %zu values",
                      c->op, k);
    }
    bool global = true, same = true, multiple = true;
    int64_t ks[MAXK];
    const em_value *xv = em_ts_val(L, x);
    for (size_t d = 0; d < k; d++) {
        int64_t in = xv->dims[2 + d].v;
        global = global && os[d] == 1;
        same = same && in == os[d];
        multiple = multiple && in > 0 && os[d] > 0 && in % os[d] == 0;
        ks[d] = multiple ? in / os[d] : 0;
    }
    if (global) {
        return em_ts_emit1(L, c, EM_OP_GLOBALAVERAGEPOOL, &x, 1, NULL, out);
    }
    if (same) {
        return em_ts_ret_tensor(L, x, out);
    }
    if (!multiple) {
        return em_ts_adaptive_avg_pool_dynamic(L, c, x, rank, os, out);
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_AVERAGEPOOL, &x, 1, &node, out));
    TS_TRY(set_ints(L, node, "kernel_shape", ks, k));
    TS_TRY(set_ints(L, node, "strides", ks, k));
    return em_ts_infer(L, c, node);
}

/* ---- linear algebra ---- */

static ember_status *transpose2(ts_lower *L, const ts_call *c, int w, int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &w, 1, out, 1, &node));
    TS_TRY(set_ints(L, node, "perm", (int64_t[]){1, 0}, 2));
    return em_ts_infer(L, c, node);
}

/* linear(input, weight, bias=None): MatMul by the transposed weight (folded at plan time),
 * then the bias. */
static ember_status *lower_linear(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, w = -1, wt = -1, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &w));
    TS_TRY(transpose2(L, c, w, &wt));
    int in[2] = {x, wt};
    TS_TRY(em_ts_emit(L, c, EM_OP_MATMUL, in, 2, &y, 1, NULL));
    if (!em_ts_arg_none(c, 2)) {
        int b = -1, r = -1;
        TS_TRY(em_ts_arg_tensor(L, c, 2, &b));
        int in2[2] = {y, b};
        TS_TRY(em_ts_emit(L, c, EM_OP_ADD, in2, 2, &r, 1, NULL));
        y = r;
    }
    return em_ts_ret_tensor(L, y, out);
}

/* addmm(self, mat1, mat2, *, beta=1, alpha=1) = beta * self + alpha * mat1 @ mat2: Gemm. */
static ember_status *lower_addmm(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[3] = {-1, -1, -1}, node = -1;
    double beta = 1, alpha = 1;
    TS_TRY(em_ts_arg_tensor(L, c, 1, &in[0]));
    TS_TRY(em_ts_arg_tensor(L, c, 2, &in[1]));
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[2]));
    TS_TRY(em_ts_arg_float(L, c, 3, &beta));
    TS_TRY(em_ts_arg_float(L, c, 4, &alpha));
    TS_TRY(em_ts_emit1(L, c, EM_OP_GEMM, in, 3, &node, out));
    TS_TRY(em_node_set_float(L->g, node, "alpha", (float)alpha));
    TS_TRY(em_node_set_float(L->g, node, "beta", (float)beta));
    return em_ts_infer(L, c, node);
}

static ember_status *lower_matmul(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1};
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &in[1]));
    return em_ts_emit1(L, c, EM_OP_MATMUL, in, 2, NULL, out);
}

/* einsum(equation, tensors, path=None): Einsum (the passes lower the products of one or two
 * tensors to Transpose / Reshape / MatMul, passes_einsum.c). */
static ember_status *lower_einsum(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *eq = c->a[0], *l = c->a[1];
    int in[8], node = -1;
    if (eq->k != TA_STR || (l->k != TA_LIST && l->k != TA_TUPLE) || l->u.seq.n < 1 ||
        l->u.seq.n > 8) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "einsum: an equation string and 1 to 8 "
                      "tensors are supported");
    }
    char *text = em_ts_arena_alloc(&L->arena, eq->u.str.n + 1);
    if (text == NULL) {
        return em_status_oom();
    }
    memcpy(text, eq->u.str.s, eq->u.str.n);
    text[eq->u.str.n] = '\0';
    for (size_t i = 0; i < l->u.seq.n; i++) {
        TS_TRY(em_ts_as_tensor(L, c, l->u.seq.items[i], EMBER_DTYPE_UNDEFINED, &in[i]));
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_EINSUM, in, (int)l->u.seq.n, &node, out));
    TS_TRY(em_node_set_string(L->g, node, "equation", text));
    return em_ts_infer(L, c, node);
}

/* t(self): 2-D transpose (0-D and 1-D unchanged). */
static ember_status *lower_t(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    if (rank < 2) {
        return em_ts_ret_tensor(L, x, out);
    }
    TS_TRY(transpose2(L, c, x, &y));
    return em_ts_ret_tensor(L, y, out);
}

/* ---- identity ---- */

static ember_status *lower_identity(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    return em_ts_ret_tensor(L, x, out);
}

/* ---- shape family ---- */

/* view / reshape(self, size) */
static ember_status *lower_reshape(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1};
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_int_list_tensor(L, c, c->a[1], &in[1]));
    TS_TRY(em_ts_emit1(L, c, EM_OP_RESHAPE, in, 2, NULL, out));
    em_ts_reshape_dims(L, (*out)->u.t.v, in[0], c->a[1]);
    return NULL;
}

/* flatten(self, start_dim=0, end_dim=-1) */
static ember_status *lower_flatten(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1;
    int64_t s = 0, e = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_int(L, c, 1, &s));
    TS_TRY(em_ts_arg_int(L, c, 2, &e));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    if (rank == 0) {
        int shape = -1;
        int64_t one = 1;
        TS_TRY(em_ts_const_i64s(L, &one, 1, &shape));
        int in[2] = {x, shape};
        return em_ts_emit1(L, c, EM_OP_RESHAPE, in, 2, NULL, out);
    }
    s = s < 0 ? s + rank : s;
    e = e < 0 ? e + rank : e;
    if (s < 0 || e >= rank || s > e) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "flatten: dims %lld..%lld of a rank-%d "
                      "tensor", (long long)s, (long long)e, rank);
    }
    if (s == e) {
        return em_ts_ret_tensor(L, x, out);
    }
    if (e == rank - 1 && s == 1) {
        TS_TRY(em_ts_emit1(L, c, EM_OP_FLATTEN, &x, 1, &node, out));
        TS_TRY(em_node_set_int(L->g, node, "axis", 1));
        return em_ts_infer(L, c, node);
    }
    /* Reshape to [0]*s + [-1] + [0]*(rank-1-e) (0 copies the dim). */
    int64_t shape[EMBER_MAX_RANK];
    int n = 0;
    for (int64_t d = 0; d < s; d++) {
        shape[n++] = 0;
    }
    shape[n++] = -1;
    for (int64_t d = e + 1; d < rank; d++) {
        shape[n++] = 0;
    }
    int sv = -1;
    TS_TRY(em_ts_const_i64s(L, shape, n, &sv));
    int in[2] = {x, sv};
    return em_ts_emit1(L, c, EM_OP_RESHAPE, in, 2, NULL, out);
}

/* cat(tensors, dim=0) */
static ember_status *lower_cat(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *l = c->a[0];
    int64_t dim = 0;
    int node = -1;
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    if (l->k != TA_LIST && l->k != TA_TUPLE) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "cat of a %s", em_ts_kind_name(l->k));
    }
    int *in = em_ts_arena_alloc(&L->arena, (l->u.seq.n + 1) * sizeof(int));
    if (in == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < l->u.seq.n; i++) {
        TS_TRY(em_ts_as_tensor(L, c, l->u.seq.items[i], EMBER_DTYPE_UNDEFINED, &in[i]));
    }
    if (l->u.seq.n == 1) {
        return em_ts_ret_tensor(L, in[0], out);
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_CONCAT, in, (int)l->u.seq.n, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "axis", dim));
    return em_ts_infer(L, c, node);
}

/* transpose(self, dim0, dim1) */
static ember_status *lower_transpose(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1;
    int64_t d0 = 0, d1 = 0, perm[EMBER_MAX_RANK];
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_int(L, c, 1, &d0));
    TS_TRY(em_ts_arg_int(L, c, 2, &d1));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    d0 = d0 < 0 ? d0 + rank : d0;
    d1 = d1 < 0 ? d1 + rank : d1;
    if (d0 < 0 || d1 < 0 || d0 >= rank || d1 >= rank) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "transpose: dims out of range");
    }
    for (int d = 0; d < rank; d++) {
        perm[d] = d;
    }
    perm[d0] = d1;
    perm[d1] = d0;
    TS_TRY(em_ts_emit1(L, c, EM_OP_TRANSPOSE, &x, 1, &node, out));
    TS_TRY(set_ints(L, node, "perm", perm, (size_t)rank));
    return em_ts_infer(L, c, node);
}

/* permute(self, dims) */
static ember_status *lower_permute(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1;
    int64_t perm[EMBER_MAX_RANK];
    size_t n = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_arg_ints(L, c, 1, perm, EMBER_MAX_RANK, 0, &n));
    for (size_t d = 0; d < n; d++) {
        perm[d] = perm[d] < 0 ? perm[d] + rank : perm[d];
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_TRANSPOSE, &x, 1, &node, out));
    TS_TRY(set_ints(L, node, "perm", perm, n));
    return em_ts_infer(L, c, node);
}

/* unsqueeze(self, dim) / squeeze(self, dim?) */
static ember_status *lower_unsqueeze(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1};
    int64_t dim = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    TS_TRY(em_ts_const_i64s(L, &dim, 1, &in[1]));
    return em_ts_emit1(L, c, EM_OP_UNSQUEEZE, in, 2, NULL, out);
}

static ember_status *lower_squeeze(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1};
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    if (c->n >= 2 && !em_ts_arg_none(c, 1)) {
        TS_TRY(em_ts_int_list_tensor(L, c, c->a[1], &in[1]));
    }
    return em_ts_emit1(L, c, EM_OP_SQUEEZE, in, in[1] >= 0 ? 2 : 1, NULL, out);
}

/* select(self, dim, index): Gather with a 0-d index. */
static ember_status *lower_select(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1}, node = -1;
    int64_t dim = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    TS_TRY(em_ts_as_tensor(L, c, c->a[2], EMBER_DTYPE_I64, &in[1]));
    TS_TRY(em_ts_emit1(L, c, EM_OP_GATHER, in, 2, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "axis", dim));
    return em_ts_infer(L, c, node);
}

/* slice(self, dim=0, start=None, end=None, step=1) */
/* Slice of x along dim from lo to hi (ints or dynamic scalars), step `step`. */
static ember_status *slice_node(ts_lower *L, const ts_call *c, int x, int64_t dim, const ts_av *lo,
                                const ts_av *hi, int64_t step, int *out)
{
    int in[5] = {x, -1, -1, -1, -1};
    ts_av *l1 = em_ts_seq(L, TA_LIST, 1), *h1 = em_ts_seq(L, TA_LIST, 1);
    if (l1 == NULL || h1 == NULL) {
        return em_status_oom();
    }
    l1->u.seq.items[0] = (ts_av *)lo;
    h1->u.seq.items[0] = (ts_av *)hi;
    TS_TRY(em_ts_int_list_tensor(L, c, l1, &in[1]));
    TS_TRY(em_ts_int_list_tensor(L, c, h1, &in[2]));
    TS_TRY(em_ts_const_i64s(L, &dim, 1, &in[3]));
    TS_TRY(em_ts_const_i64s(L, &step, 1, &in[4]));
    return em_ts_emit(L, c, EM_OP_SLICE, in, 5, out, 1, NULL);
}

/* slice(self, dim=0, start=None, end=None, step=1); a step-1 slice of a tensor of this graph
 * records what it is a view of (ts_view), for in-place ops on it. */
static ember_status *lower_slice(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, y = -1;
    int64_t dim = 0, step = 1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    if (!em_ts_arg_none(c, 4)) {
        TS_TRY(em_ts_arg_int(L, c, 4, &step));
    }
    ts_av *lo = c->n > 2 ? c->a[2] : NULL, *hi = c->n > 3 ? c->a[3] : NULL;
    if (lo == NULL || lo->k == TA_NONE) {
        lo = em_ts_int(L, 0);
    }
    if (hi == NULL || hi->k == TA_NONE) {
        hi = em_ts_int(L, INT64_MAX);
    }
    if (lo == NULL || hi == NULL) {
        return em_status_oom();
    }
    TS_TRY(slice_node(L, c, x, dim, lo, hi, step, &y));
    TS_TRY(em_ts_ret_tensor(L, y, out));
    int rank = em_ts_val(L, x)->rank;
    dim = dim < 0 && rank >= 0 ? dim + rank : dim;
    if (step == 1 && dim >= 0 && c->a[0]->k == TA_TENSOR && c->a[0]->u.t.g == L->g) {
        ts_view *w = em_ts_arena_alloc(&L->arena, sizeof *w);
        if (w == NULL) {
            return em_status_oom();
        }
        *w = (ts_view){c->a[0], dim, lo, hi};
        (*out)->u.t.view = w;
    }
    return NULL;
}

/* base with view w's region replaced by v: Concat(base[:lo], v, base[hi:]) along w's dim,
 * the parts that are known to be empty left out. */
static ember_status *view_merge(ts_lower *L, const ts_call *c, int base, int v, const ts_view *w,
                                int *out)
{
    int parts[3], n = 0, node = -1;
    const ts_av *lo = w->lo, *hi = w->hi;
    ts_av *zero = em_ts_int(L, 0), *end = em_ts_int(L, INT64_MAX);
    if (zero == NULL || end == NULL) {
        return em_status_oom();
    }
    if (!(lo->k == TA_INT && lo->u.i == 0)) {
        TS_TRY(slice_node(L, c, base, w->dim, zero, lo, 1, &parts[n++]));
    }
    parts[n++] = v;
    if (!(hi->k == TA_INT && hi->u.i == INT64_MAX)) {
        TS_TRY(slice_node(L, c, base, w->dim, hi, end, 1, &parts[n++]));
    }
    if (n == 1) {
        *out = v;
        return NULL;
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_CONCAT, parts, n, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", w->dim));
    return em_ts_infer(L, c, node);
}

/* A view known to be empty (bounds of one sign, hi <= lo): writing it changes nothing. */
static bool view_empty(const ts_view *w)
{
    return w->lo->k == TA_INT && w->hi->k == TA_INT && (w->lo->u.i < 0) == (w->hi->u.i < 0) &&
           w->hi->u.i <= w->lo->u.i;
}

ember_status *em_ts_set_inplace(ts_lower *L, const ts_call *c, ts_av *self, int v)
{
    enum { MAX_DEPTH = 16 };
    ts_av *chain[MAX_DEPTH];
    int n = 0, cur[MAX_DEPTH];
    /* self, the tensor it is a view of, ..., a tensor that is no view: all of this graph */
    for (ts_av *a = self; a != NULL && n < MAX_DEPTH; a = a->u.t.view ? a->u.t.view->base : NULL) {
        if (a->k != TA_TENSOR || a->u.t.g != L->g || (n > 0 && view_empty(chain[n - 1]->u.t.view))) {
            n = 0; /* written as a tensor of its own, as before views were known */
            break;
        }
        chain[n++] = a;
        if (a->u.t.view == NULL) {
            break;
        }
    }
    if (n < 2 || chain[n - 1]->u.t.view != NULL) {
        self->u.t.v = v;
        return NULL;
    }
    /* the current contents of each view from the root down (the root's value is current even
     * when a view's own value went stale), then the written region merged back up */
    cur[n - 1] = chain[n - 1]->u.t.v;
    for (int k = n - 2; k >= 1; k--) {
        TS_TRY(slice_node(L, c, cur[k + 1], chain[k]->u.t.view->dim, chain[k]->u.t.view->lo,
                          chain[k]->u.t.view->hi, 1, &cur[k]));
    }
    self->u.t.v = v;
    for (int k = 0; k < n - 1; k++) {
        TS_TRY(view_merge(L, c, cur[k + 1], chain[k]->u.t.v, chain[k]->u.t.view, &v));
        chain[k + 1]->u.t.v = v;
    }
    return NULL;
}

/* chunk(self, chunks, dim=0): equal pieces, the last smaller. */
static ember_status *lower_chunk(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1;
    int64_t chunks = 1, dim = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_arg_int(L, c, 1, &chunks));
    TS_TRY(em_ts_arg_int(L, c, 2, &dim));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    dim = dim < 0 ? dim + rank : dim;
    if (dim < 0 || dim >= rank || chunks < 1 || chunks > 64) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "chunk of %lld pieces along dim %lld of "
                      "a rank-%d tensor (1 to 64 pieces of an existing dim)", (long long)chunks,
                      (long long)dim, rank);
    }
    /* A size known at load gives torch's piece sizes (ceil(size / chunks), fewer pieces when
     * they run out); an unknown one splits into `chunks` pieces at run time (Split's
     * num_outputs rounds the same way, and refuses sizes torch would cut into fewer pieces). */
    int64_t size = em_ts_val(L, x)->dims[dim].v, piece = 0, split[64];
    int n = 0, in[2] = {x, -1}, outs[64];
    if (size >= 0) {
        piece = size > 0 ? (size + chunks - 1) / chunks : 1;
        for (int64_t done = 0; done < size; done += piece) {
            split[n++] = size - done < piece ? size - done : piece;
        }
        TS_TRY(em_ts_const_i64s(L, split, n, &in[1]));
    } else {
        n = (int)chunks;
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_SPLIT, in, size >= 0 ? 2 : 1, outs, n, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", dim));
    if (size < 0) {
        TS_TRY(em_node_set_int(L->g, node, "num_outputs", chunks));
    }
    TS_TRY(em_ts_infer(L, c, node));
    *out = em_ts_seq(L, TA_LIST, (size_t)n);
    if (*out == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < n; i++) {
        TS_TRY(em_ts_ret_tensor(L, outs[i], &(*out)->u.seq.items[i]));
    }
    return NULL;
}

/* dropout(input, p, train) and friends: the identity in eval mode. aten::dropout with
 * 0 < p < 1 on a float tensor becomes a Dropout node in its inference form (ratio p, no
 * training_mode: the identity), which the graph passes drop at every level but NONE and which a
 * trainer can put in train mode (ember_trainer_options_set_dropout); feature / alpha dropout
 * (whole channels, SELU's statistics) have no ONNX form and stay the identity, as does the
 * in-place dropout_. */
static ember_status *lower_dropout(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool train = false;
    double p = 0.0;
    if (c->n >= 3) {
        TS_TRY(em_ts_arg_bool(L, c, 2, &train));
    }
    if (train) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s in training mode", c->op);
    }
    bool plain = strcmp(c->op, "aten::dropout") == 0; /* dropout_ (in place) stays the identity */
    if (plain && c->n >= 2) {
        TS_TRY(em_ts_arg_float(L, c, 1, &p));
    }
    const ts_av *x = c->n >= 1 ? c->a[0] : NULL;
    if (!plain || !(p > 0.0 && p < 1.0) || x == NULL || x->k != TA_TENSOR || x->u.t.q != NULL) {
        return lower_identity(L, c, out);
    }
    int in[2] = {-1, -1};
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    ember_dtype dt = em_ts_val(L, in[0])->dtype;
    if (dt != EMBER_DTYPE_F32 && dt != EMBER_DTYPE_F16 && dt != EMBER_DTYPE_BF16 &&
        dt != EMBER_DTYPE_F64) {
        return em_ts_ret_tensor(L, in[0], out);
    }
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, p, &in[1]));
    return em_ts_emit1(L, c, EM_OP_DROPOUT, in, 2, NULL, out);
}

static const ts_op_entry nn_ops[] = {
    {"aten::_convolution", lower_convolution},
    {"aten::conv1d", lower_convnd},
    {"aten::conv2d", lower_convnd},
    {"aten::conv3d", lower_convnd},
    {"aten::conv_transpose1d", lower_conv_transpose},
    {"aten::conv_transpose2d", lower_conv_transpose},
    {"aten::conv_transpose3d", lower_conv_transpose},
    {"aten::batch_norm", lower_batch_norm},
    {"aten::layer_norm", lower_layer_norm},
    {"aten::max_pool1d", lower_max_pool},
    {"aten::max_pool2d", lower_max_pool},
    {"aten::max_pool3d", lower_max_pool},
    {"aten::avg_pool1d", lower_avg_pool},
    {"aten::avg_pool2d", lower_avg_pool},
    {"aten::avg_pool3d", lower_avg_pool},
    {"aten::adaptive_avg_pool1d", lower_adaptive_avg_pool},
    {"aten::adaptive_avg_pool2d", lower_adaptive_avg_pool},
    {"aten::adaptive_avg_pool3d", lower_adaptive_avg_pool},
    {"aten::linear", lower_linear},
    {"aten::addmm", lower_addmm},
    {"aten::matmul", lower_matmul},
    {"aten::mm", lower_matmul},
    {"aten::bmm", lower_matmul},
    {"aten::einsum", lower_einsum},
    {"aten::t", lower_t},
    {"aten::view", lower_reshape},
    {"aten::reshape", lower_reshape},
    {"aten::flatten", lower_flatten},
    {"aten::cat", lower_cat},
    {"aten::concat", lower_cat},
    {"aten::transpose", lower_transpose},
    {"aten::swapaxes", lower_transpose},
    {"aten::swapdims", lower_transpose},
    {"aten::permute", lower_permute},
    {"aten::unsqueeze", lower_unsqueeze},
    {"aten::squeeze", lower_squeeze},
    {"aten::select", lower_select},
    {"aten::slice", lower_slice},
    {"aten::chunk", lower_chunk},
    {"aten::unsafe_chunk", lower_chunk},
    {"aten::contiguous", lower_identity},
    {"aten::detach", lower_identity},
    {"aten::clone", lower_identity},
    {"aten::dropout", lower_dropout},
    {"aten::dropout_", lower_dropout},
    {"aten::feature_dropout", lower_dropout},
    {"aten::alpha_dropout", lower_dropout},
};
const ts_op_table em_ts_nn_table = {nn_ops, sizeof nn_ops / sizeof nn_ops[0]};
