/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the reductions (grad_internal.h). Every rule expands y-shaped values back
 * to x's shape (unreduce: Unsqueeze over the axes when keepdims is 0, then Expand), then:
 *   ReduceSum        dx = g                       ReduceMean  dx = g / (numel x / numel y)
 *   ReduceSumSquare  dx = 2 x g                   ReduceL1    dx = Sign(x) g
 *   ReduceL2         dx = x g / y                 ReduceLogSumExp  dx = exp(x - y) g
 *   ReduceLogSum     dx = g / exp(y)
 *   ReduceMax / ReduceMin / GlobalMaxPool: g split evenly between the elements equal to y.
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
static void give_to_extrema(em_gctx *c, const em_node *n, int y_full, int g, em_op count_op,
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
    give_to_extrema(c, n, unreduce(c, n, n->out[0]), unreduce(c, n, gy[0]), n->op, NULL, 0);
}

void em_gx_rule_globalmaxpool(em_gctx *c, const em_node *n, const int *gy)
{
    int64_t axes[EM_MAX_RANK];
    int r = em_gx_val(c, n->in[0])->rank;
    if (r < 3) {
        em_gx_fail(c, "the input rank is not known");
        return;
    }
    for (int i = 2; i < r; i++) {
        axes[i - 2] = i;
    }
    give_to_extrema(c, n, n->out[0], gy[0], EM_OP_GLOBALMAXPOOL, axes, r - 2);
}
