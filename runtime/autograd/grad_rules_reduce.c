/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the reduce family (grad_internal.h). The reductions expand y-shaped values
 * back to x's shape (unreduce: Unsqueeze over the axes when keepdims is 0, then Expand), then:
 *   ReduceSum        dx = g                       ReduceMean  dx = g / (numel x / numel y)
 *   ReduceSumSquare  dx = 2 x g                   ReduceL1    dx = Sign(x) g
 *   ReduceL2         dx = x g / y                 ReduceLogSumExp  dx = exp(x - y) g
 *   ReduceLogSum     dx = g / exp(y)
 *   ReduceMax / ReduceMin (and the nn family's GlobalMaxPool, through em_gx_give_to_extrema):
 *   g split evenly between the elements equal to y.
 * Softmax: dx = y (g - sum(g y)); LogSoftmax: dx = g - exp(y) sum(g); TopK scatters g back to
 * its indices; CumSum's gradient is the reverse cumulative sum of g.
 * Normalization over axes A with batch statistics (LayerNormalization, InstanceNormalization,
 * and BatchNormalization in training, whose rule in grad_rules_nn.c uses the helpers here):
 * xhat = (x - mean) / sqrt(var + eps), y = xhat * scale + B, and with dxhat = g * scale,
 * dx = (dxhat - mean_A(dxhat) - xhat * mean_A(dxhat * xhat)) / sqrt(var + eps).
 */
#include "autograd/grad_internal.h"

/* v (y's shape) expanded back over the reduced axes, with x's shape. */
static int unreduce(em_gctx *c, const em_node *n, int v)
{
    int x = n->in[0], axes = n->n_in > 1 ? n->in[1] : -1;
    bool keep = em_node_attr_int(n, "keepdims", 1) != 0;
    bool noop = em_node_attr_int(n, "noop_with_empty_axes", 0) != 0;
    const em_value *av = axes >= 0 ? em_gx_val(c, axes) : NULL;
    bool empty = av == NULL || (av->rank == 1 && av->dims[0].v == 0);
    if (v < 0 || (empty && noop)) {
        return v;
    }
    if (!keep && !empty) {
        v = em_gx_op2(c, EM_OP_UNSQUEEZE, v, axes);
    }
    int r = em_gx_expand(c, v, em_gx_shape_of(c, x));
    em_gx_like(c, r, x);
    return r;
}

void em_gx_rule_reducesum(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], unreduce(c, n, gy[0]));
}

void em_gx_rule_reducemean(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], y = n->out[0];
    ember_dtype dt = em_gx_val(c, x)->dtype;
    int cnt = em_gx_div(c, em_gx_op1(c, EM_OP_SIZE, x), em_gx_op1(c, EM_OP_SIZE, y));
    em_gx_give(c, x, em_gx_div(c, unreduce(c, n, gy[0]), em_gx_cast(c, cnt, dt)));
}

void em_gx_rule_reducesumsquare(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    em_gx_give(c, x, em_gx_mul(c, em_gx_add(c, x, x), unreduce(c, n, gy[0])));
}

void em_gx_rule_reducel1(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    em_gx_give(c, x, em_gx_mul(c, em_gx_op1(c, EM_OP_SIGN, x), unreduce(c, n, gy[0])));
}

void em_gx_rule_reducel2(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    em_gx_give(c, x, em_gx_mul(c, x, unreduce(c, n, em_gx_div(c, gy[0], n->out[0]))));
}

void em_gx_rule_reducelogsumexp(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    int p = em_gx_op1(c, EM_OP_EXP, em_gx_sub(c, x, unreduce(c, n, n->out[0])));
    em_gx_give(c, x, em_gx_mul(c, p, unreduce(c, n, gy[0])));
}

void em_gx_rule_reducelogsum(em_gctx *c, const em_node *n, const int *gy)
{
    int g = em_gx_div(c, gy[0], em_gx_op1(c, EM_OP_EXP, n->out[0]));
    em_gx_give(c, n->in[0], unreduce(c, n, g));
}

/* mask = (x == y expanded); dx = mask * g / (the count of maxima where y was taken). The
 * count is a ReduceSum of the mask with the forward's axes and attributes. */
void em_gx_give_to_extrema(em_gctx *c, const em_node *n, int y_full, int g, em_op count_op,
                           const int64_t *axes, int na)
{
    int x = n->in[0];
    ember_dtype dt = em_gx_val(c, x)->dtype;
    int mask = em_gx_op2(c, EM_OP_EQUAL, x, y_full);
    int m = em_gx_cast(c, mask, dt), cnt = -1;
    if (count_op == EM_OP_GLOBALMAXPOOL) {
        cnt = em_gx_reduce(c, EM_OP_REDUCESUM, m, axes, na, true);
    } else if (m >= 0) {
        int in[2] = {m, n->n_in > 1 ? n->in[1] : -1};
        int ni = em_gx_begin(c, EM_OP_REDUCESUM, in, n->n_in > 1 ? 2 : 1, 1, NULL);
        em_gx_copy_attr(c, ni, n, "keepdims");
        em_gx_copy_attr(c, ni, n, "noop_with_empty_axes");
        cnt = unreduce(c, n, em_gx_end(c, ni));
    }
    int share = em_gx_div(c, g, cnt);
    em_gx_give(c, x, em_gx_where(c, mask, share, em_gx_scalar(c, dt, 0.0)));
}

void em_gx_rule_reducemaxmin(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give_to_extrema(c, n, unreduce(c, n, n->out[0]), unreduce(c, n, gy[0]), n->op, NULL, 0);
}

/* Softmax along one axis (opset 13): dx = y (g - sum(g y)). */
void em_gx_rule_softmax(em_gctx *c, const em_node *n, const int *gy)
{
    int y = n->out[0], g = gy[0];
    int64_t axis = em_node_attr_int(n, "axis", -1);
    int s = em_gx_reduce(c, EM_OP_REDUCESUM, em_gx_mul(c, g, y), &axis, 1, true);
    em_gx_give(c, n->in[0], em_gx_mul(c, y, em_gx_sub(c, g, s)));
}

/* dx = g - exp(y) sum(g). */
void em_gx_rule_logsoftmax(em_gctx *c, const em_node *n, const int *gy)
{
    int y = n->out[0], g = gy[0];
    int64_t axis = em_node_attr_int(n, "axis", -1);
    int s = em_gx_reduce(c, EM_OP_REDUCESUM, g, &axis, 1, true);
    em_gx_give(c, n->in[0], em_gx_sub(c, g, em_gx_mul(c, em_gx_op1(c, EM_OP_EXP, y), s)));
}

/* TopK: the values' gradient goes back to where the indices point. */
void em_gx_rule_topk(em_gctx *c, const em_node *n, const int *gy)
{
    if (gy[0] >= 0) {
        em_gx_give(c, n->in[0], em_gx_scatter_axis(c, n, n->in[0], n->out[1], gy[0]));
    }
}

/* CumSum: the reverse cumulative sum of g (exclusive stays exclusive). */
void em_gx_rule_cumsum(em_gctx *c, const em_node *n, const int *gy)
{
    const int in[2] = {gy[0], n->in[1]};
    int ni = em_gx_begin(c, EM_OP_CUMSUM, in, 2, 1, NULL);
    em_gx_copy_attr(c, ni, n, "exclusive");
    em_gx_set_int(c, ni, "reverse", em_node_attr_int(n, "reverse", 0) == 0);
    em_gx_give(c, n->in[0], em_gx_end(c, ni));
}

static ember_dtype dt_of(const em_gctx *c, int v)
{
    return em_gx_val(c, v)->dtype;
}

/* Axes 0, 2, 3, .. of rank r (every axis but the channel). */
int em_gx_not_channel(int r, int64_t *axes)
{
    int k = 0;
    for (int i = 0; i < r; i++) {
        if (i != 1) {
            axes[k++] = i;
        }
    }
    return k;
}

/* A per-channel [C] value shaped [C, 1, ..] to broadcast against [N, C, spatial..] of rank r. */
int em_gx_per_channel(em_gctx *c, int v, int r)
{
    int64_t axes[EM_MAX_RANK];
    for (int i = 0; i < r - 2; i++) {
        axes[i] = i + 1;
    }
    return em_gx_unsqueeze(c, v, axes, r - 2);
}

/* xhat and 1 / sqrt(var + eps) of x normalized over axes (keepdims). */
void em_gx_norm_moments(em_gctx *c, int x, const int64_t *axes, int na, double eps, int *xhat,
                        int *inv)
{
    int mu = em_gx_reduce(c, EM_OP_REDUCEMEAN, x, axes, na, true);
    int xc = em_gx_sub(c, x, mu);
    int var = em_gx_reduce(c, EM_OP_REDUCEMEAN, em_gx_mul(c, xc, xc), axes, na, true);
    int e = em_gx_scalar(c, dt_of(c, x), eps);
    *inv = em_gx_op1(c, EM_OP_RECIPROCAL, em_gx_op1(c, EM_OP_SQRT, em_gx_add(c, var, e)));
    *xhat = em_gx_mul(c, xc, *inv);
}

int em_gx_norm_dx(em_gctx *c, int dxhat, int xhat, int inv, const int64_t *axes, int na)
{
    int m1 = em_gx_reduce(c, EM_OP_REDUCEMEAN, dxhat, axes, na, true);
    int m2 = em_gx_reduce(c, EM_OP_REDUCEMEAN, em_gx_mul(c, dxhat, xhat), axes, na, true);
    return em_gx_mul(c, inv, em_gx_sub(c, em_gx_sub(c, dxhat, m1), em_gx_mul(c, xhat, m2)));
}

/* InstanceNormalization: normalized over the spatial axes, per (n, c). */
void em_gx_rule_instancenorm(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], scale = n->in[1], b = n->in[2], g = gy[0], xhat, inv;
    int64_t sp[EM_MAX_RANK], axes[EM_MAX_RANK];
    int r = em_gx_val(c, x)->rank;
    if (r < 3) {
        em_gx_fail(c, "the input rank is not known");
        return;
    }
    for (int i = 2; i < r; i++) {
        sp[i - 2] = i;
    }
    em_gx_norm_moments(c, x, sp, r - 2, em_node_attr_float(n, "epsilon", 1e-5f), &xhat, &inv);
    if (em_gx_needs(c, x)) {
        int dxhat = em_gx_mul(c, g, em_gx_per_channel(c, scale, r));
        em_gx_give(c, x, em_gx_norm_dx(c, dxhat, xhat, inv, sp, r - 2));
    }
    int na = em_gx_not_channel(r, axes);
    if (em_gx_needs(c, scale)) {
        em_gx_give(c, scale, em_gx_reduce(c, EM_OP_REDUCESUM, em_gx_mul(c, g, xhat), axes, na, false));
    }
    if (em_gx_needs(c, b)) {
        em_gx_give(c, b, em_gx_reduce(c, EM_OP_REDUCESUM, g, axes, na, false));
    }
}

/* LayerNormalization: normalized over axes [axis, rank). */
void em_gx_rule_layernorm(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], scale = n->in[1], b = n->n_in > 2 ? n->in[2] : -1, g = gy[0], xhat, inv;
    int64_t axes[EM_MAX_RANK];
    int r = em_gx_val(c, x)->rank;
    int64_t axis = em_node_attr_int(n, "axis", -1);
    axis = axis < 0 ? axis + r : axis;
    if (r < 1 || axis < 0 || axis >= r) {
        em_gx_fail(c, "the input rank is not known or the axis is out of range");
        return;
    }
    if ((n->n_out > 1 && gy[1] >= 0) || (n->n_out > 2 && gy[2] >= 0)) {
        em_gx_fail(c, "gradients through the Mean / InvStdDev outputs are not implemented");
        return;
    }
    int na = 0;
    for (int64_t i = axis; i < r; i++) {
        axes[na++] = i;
    }
    em_gx_norm_moments(c, x, axes, na, em_node_attr_float(n, "epsilon", 1e-5f), &xhat, &inv);
    if (em_gx_needs(c, x)) {
        em_gx_give(c, x, em_gx_norm_dx(c, em_gx_mul(c, g, scale), xhat, inv, axes, na));
    }
    if (em_gx_needs(c, scale)) {
        em_gx_give(c, scale, em_gx_sum_to(c, em_gx_mul(c, g, xhat), scale));
    }
    if (em_gx_needs(c, b)) {
        em_gx_give(c, b, em_gx_sum_to(c, g, b));
    }
}
