/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the linear-algebra, shape and indexing ops and the reductions
 * (grad_internal.h). Views (Reshape, Flatten, Squeeze, Unsqueeze) reshape g back; Transpose
 * applies the inverse permutation; Concat splits g, Split concatenates (zeros for outputs
 * without a gradient); Slice, Gather and the other ops that only move elements scatter g
 * through an index map (em_gx_index_map), so negative, clamped and strided indices, padding
 * modes and repeats need no special case.
 */
#include "autograd/grad_internal.h"

#include <string.h>

static int rank_of(em_gctx *c, int v)
{
    int r = v >= 0 ? em_gx_val(c, v)->rank : -1;
    if (v >= 0 && r < 0) {
        em_gx_fail(c, "the rank of '%s' is not known", em_gx_val(c, v)->name);
    }
    return r;
}

/* v with its last two axes swapped. */
static int swap_last(em_gctx *c, int v)
{
    int64_t perm[EM_MAX_RANK];
    int r = rank_of(c, v);
    if (r < 2) {
        em_gx_fail(c, "an operand of rank %d where a matrix is expected", r);
        return -1;
    }
    for (int i = 0; i < r; i++) {
        perm[i] = i;
    }
    perm[r - 2] = r - 1;
    perm[r - 1] = r - 2;
    return em_gx_transpose(c, v, perm, r);
}

/* A 1-D operand of MatMul as a matrix: [K] -> [1, K] (a) or [K, 1] (b). */
static int as_matrix(em_gctx *c, int v, int64_t axis)
{
    return rank_of(c, v) == 1 ? em_gx_unsqueeze(c, v, &axis, 1) : v;
}

/* Y = A B with numpy broadcasting over batch dims; 1-D operands are promoted as numpy does. */
void em_gx_rule_matmul(em_gctx *c, const em_node *n, const int *gy)
{
    int a = n->in[0], b = n->in[1], g = gy[0];
    int ra = rank_of(c, a), rb = rank_of(c, b), rg = rank_of(c, g);
    if (!em_gx_ok(c)) {
        return;
    }
    int a2 = as_matrix(c, a, 0), b2 = as_matrix(c, b, 1), g2 = g;
    if (rb == 1) {
        int64_t ax = rg;
        g2 = em_gx_unsqueeze(c, g2, &ax, 1);
        rg++;
    }
    if (ra == 1) {
        int64_t ax = rg - 1;
        g2 = em_gx_unsqueeze(c, g2, &ax, 1);
    }
    if (em_gx_needs(c, a)) {
        int d = em_gx_op2(c, EM_OP_MATMUL, g2, swap_last(c, b2));
        em_gx_give(c, a, em_gx_reshape_like(c, em_gx_sum_to(c, d, a2), a));
    }
    if (em_gx_needs(c, b)) {
        int d = em_gx_op2(c, EM_OP_MATMUL, swap_last(c, a2), g2);
        em_gx_give(c, b, em_gx_reshape_like(c, em_gx_sum_to(c, d, b2), b));
    }
}

static int gemm(em_gctx *c, int p, int q, int tp, int tq, float alpha)
{
    const int in[2] = {p, q};
    if (p < 0 || q < 0) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_GEMM, in, 2, 1, NULL);
    em_gx_set_int(c, ni, "transA", tp);
    em_gx_set_int(c, ni, "transB", tq);
    if (alpha != 1.0f) {
        em_gx_set_float(c, ni, "alpha", alpha);
    }
    return em_gx_end(c, ni);
}

/* Y = alpha op(A) op(B) + beta C. Each input gradient is one Gemm with the transposes
 * arranged so that no Transpose node is needed. */
void em_gx_rule_gemm(em_gctx *c, const em_node *n, const int *gy)
{
    int a = n->in[0], b = n->in[1], cc = n->n_in > 2 ? n->in[2] : -1, g = gy[0];
    int ta = em_node_attr_int(n, "transA", 0) != 0, tb = em_node_attr_int(n, "transB", 0) != 0;
    float alpha = em_node_attr_float(n, "alpha", 1.0f), beta = em_node_attr_float(n, "beta", 1.0f);
    if (em_gx_needs(c, a)) {
        em_gx_give(c, a, ta ? gemm(c, b, g, tb, 1, alpha) : gemm(c, g, b, 0, !tb, alpha));
    }
    if (em_gx_needs(c, b)) {
        em_gx_give(c, b, tb ? gemm(c, g, a, 1, ta, alpha) : gemm(c, a, g, !ta, 0, alpha));
    }
    if (em_gx_needs(c, cc)) {
        int t = beta == 1.0f ? g : em_gx_mul(c, g, em_gx_scalar(c, em_gx_val(c, g)->dtype, beta));
        em_gx_give(c, cc, em_gx_sum_to(c, t, cc));
    }
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

/* Reshape, Flatten, Squeeze, Unsqueeze. */
void em_gx_rule_reshape(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_reshape_like(c, gy[0], n->in[0]));
}

void em_gx_rule_transpose(em_gctx *c, const em_node *n, const int *gy)
{
    int64_t inv[EM_MAX_RANK];
    const int64_t *perm;
    int r = rank_of(c, n->in[0]);
    int64_t np = em_node_attr_ints(n, "perm", &perm);
    if (!em_gx_ok(c)) {
        return;
    }
    bool seen[EM_MAX_RANK] = {false};
    for (int i = 0; i < r; i++) {
        int64_t p = np >= 0 ? perm[i] : r - 1 - i;
        if ((np >= 0 && np != r) || p < 0 || p >= r || seen[p]) {
            em_gx_fail(c, "'perm' is not a permutation of the %d axes", r);
            return;
        }
        seen[p] = true;
        inv[p] = i;
    }
    em_gx_give(c, n->in[0], em_gx_transpose(c, gy[0], inv, r));
}

void em_gx_rule_expand(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_sum_to(c, gy[0], n->in[0]));
}

/* Axis attribute normalized against rank r (fails when out of range). */
static int axis_of(em_gctx *c, const em_node *n, int64_t dflt, int r)
{
    int64_t a = em_node_attr_int(n, "axis", dflt);
    a = a < 0 ? a + r : a;
    if (r >= 0 && (a < 0 || a >= r)) {
        em_gx_fail(c, "axis %lld is out of range for rank %d", (long long)a, r);
        return -1;
    }
    return (int)a;
}

/* Concat: Split g by the inputs' sizes along the axis. */
void em_gx_rule_concat(em_gctx *c, const em_node *n, const int *gy)
{
    gx_dim sizes[64];
    int outs[64];
    int r = rank_of(c, gy[0]), axis = axis_of(c, n, 0, r);
    if (!em_gx_ok(c)) {
        return;
    }
    if (n->n_in == 1) {
        em_gx_give(c, n->in[0], gy[0]);
        return;
    }
    if (n->n_in > 64) {
        em_gx_fail(c, "the gradient of a Concat of %d inputs (more than 64) is not implemented",
                n->n_in);
        return;
    }
    for (int i = 0; i < n->n_in; i++) {
        sizes[i] = em_gx_d(n->in[i], axis);
    }
    const int in[2] = {gy[0], em_gx_dims(c, sizes, n->n_in)};
    int ni = em_gx_begin(c, EM_OP_SPLIT, in, 2, n->n_in, outs);
    em_gx_set_int(c, ni, "axis", axis);
    em_gx_end(c, ni);
    for (int i = 0; i < n->n_in && em_gx_ok(c); i++) {
        em_gx_like(c, outs[i], n->in[i]);
        em_gx_give(c, n->in[i], outs[i]);
    }
}

/* Split: Concat the output gradients, zeros for outputs without one. */
void em_gx_rule_split(em_gctx *c, const em_node *n, const int *gy)
{
    int parts[64];
    int r = rank_of(c, n->in[0]), axis = axis_of(c, n, 0, r);
    for (int o = 0; o < n->n_out && em_gx_ok(c); o++) {
        parts[o] = gy[o] >= 0 ? gy[o] : em_gx_zeros_like(c, n->out[o]);
    }
    if (!em_gx_ok(c)) {
        return;
    }
    int ni = em_gx_begin(c, EM_OP_CONCAT, parts, n->n_out, 1, NULL);
    em_gx_set_int(c, ni, "axis", axis);
    int d = em_gx_end(c, ni);
    em_gx_like(c, d, n->in[0]);
    em_gx_give(c, n->in[0], d);
}

/* Slice: the same slice of the index map gives the flat positions of y's elements in x. */
void em_gx_rule_slice(em_gctx *c, const em_node *n, const int *gy)
{
    int in[5], x = n->in[0];
    memcpy(in, n->in, sizeof(int) * (size_t)n->n_in);
    in[0] = em_gx_index_map(c, x);
    if (!em_gx_ok(c)) {
        return;
    }
    int pos = em_gx_end(c, em_gx_begin(c, EM_OP_SLICE, in, n->n_in, 1, NULL));
    em_gx_give(c, x, em_gx_scatter_flat(c, x, pos, gy[0], "none"));
}

/* Gather: gather the index map the same way; repeated indices add up. */
void em_gx_rule_gather(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0];
    const int in[2] = {em_gx_index_map(c, x), n->in[1]};
    if (!em_gx_ok(c)) {
        return;
    }
    int ni = em_gx_begin(c, EM_OP_GATHER, in, 2, 1, NULL);
    em_gx_copy_attr(c, ni, n, "axis");
    em_gx_give(c, x, em_gx_scatter_flat(c, x, em_gx_end(c, ni), gy[0], "add"));
}

/* ScatterElements(zeros like x, indices, g) along `axis` (default dflt), adding repeats. */
static int scatter_axis(em_gctx *c, const em_node *n, int x, int idx, int g)
{
    const int in[3] = {em_gx_zeros_like(c, x), idx, g};
    if (!em_gx_ok(c)) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_SCATTERELEMENTS, in, 3, 1, NULL);
    em_gx_copy_attr(c, ni, n, "axis");
    em_gx_set_string(c, ni, "reduction", "add");
    int r = em_gx_end(c, ni);
    em_gx_like(c, r, x);
    return r;
}

void em_gx_rule_gatherelements(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], scatter_axis(c, n, n->in[0], n->in[1], gy[0]));
}

/* TopK: the values' gradient goes back to where the indices point. */
void em_gx_rule_topk(em_gctx *c, const em_node *n, const int *gy)
{
    if (gy[0] >= 0) {
        em_gx_give(c, n->in[0], scatter_axis(c, n, n->in[0], n->out[1], gy[0]));
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

/* Ops that only move, repeat or drop elements of input 0 (GatherND, Tile, Pad, DepthToSpace,
 * SpaceToDepth, ReverseSequence, Trilu, CenterCropPad): the same op over the index map plus
 * one tells where each output element comes from (0: a filled-in element, no source), and g
 * is scatter-added there. Pad's constant value is dropped so that padding fills 0. */
void em_gx_rule_move(em_gctx *c, const em_node *n, const int *gy)
{
    int in[8], x = n->in[0];
    int64_t one = 1;
    if (n->n_in > 8) {
        em_gx_fail(c, "too many inputs");
        return;
    }
    memcpy(in, n->in, sizeof(int) * (size_t)n->n_in);
    in[0] = em_gx_add(c, em_gx_index_map(c, x), em_gx_ints(c, &one, -1));
    if (n->op == EM_OP_PAD && n->n_in > 2) {
        in[2] = -1;
    }
    if (!em_gx_ok(c)) {
        return;
    }
    int ni = em_gx_begin(c, n->op, in, n->n_in, 1, NULL);
    for (int a = 0; a < n->n_attrs; a++) {
        em_gx_copy_attr(c, ni, n, n->attrs[a].name);
    }
    int pos = em_gx_sub(c, em_gx_end(c, ni), em_gx_ints(c, &one, -1));
    int64_t zero = 0;
    int none = em_gx_op2(c, EM_OP_LESS, pos, em_gx_ints(c, &zero, -1));
    int g = em_gx_where(c, none, em_gx_scalar(c, em_gx_val(c, gy[0])->dtype, 0.0), gy[0]);
    em_gx_give(c, x, em_gx_scatter_flat(c, x, pos, g, "add"));
}
