/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the tensor family's shape and indexing ops (grad_internal.h). Identity
 * passes g on; views (Reshape, Flatten, Squeeze, Unsqueeze) reshape g back; Transpose
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

void em_gx_rule_identity(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], gy[0]);
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

void em_gx_rule_gatherelements(em_gctx *c, const em_node *n, const int *gy)
{
    em_gx_give(c, n->in[0], em_gx_scatter_axis(c, n, n->in[0], n->in[1], gy[0]));
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
