/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h): attention, onto ember's ONNX Attention op.
 *
 * scaled_dot_product_attention (and 1.13's private _scaled_dot_product_attention) map onto
 * one Attention node: torch and ONNX agree on the bool mask (True: the key takes part), the
 * additive float mask, the causal mask (key t allowed for query i iff t <= i, top-left aligned)
 * and the default scale 1/sqrt(E). torch takes any leading batch dims; ONNX wants
 * [B, heads, L, E], so 2-D and 3-D inputs get unit dims in front and lose them after.
 * The fast paths nn.MultiheadAttention and nn.TransformerEncoderLayer take in eval mode when
 * batch_first (_native_multi_head_attention, _transformer_encoder_layer_fwd) are built from
 * MatMul / Add / LayerNormalization and one Attention node on [B, L, heads*E] (ONNX's 3-D
 * form with q_num_heads); their masks are bool with True meaning "masked out" (or additive
 * floats), of type 0 [L, S], 1 (key padding) [B, S] or 2 [B, heads, L, S]. baddbmm is
 * MatMul plus the scaled bias.
 */
#include "ts_ops.h"

#include "core/status.h"

#include <string.h>

/* Unsqueeze or Squeeze (op) of x at constant axes. */
static ember_status *axes_op(ts_lower *L, const ts_call *c, em_op op, int x, const int64_t *axes,
                             int n, int *out)
{
    int in[2] = {x, -1};
    TS_TRY(em_ts_const_i64s(L, axes, n, &in[1]));
    return em_ts_emit(L, c, op, in, 2, out, 1, NULL);
}

static ember_status *binop(ts_lower *L, const ts_call *c, em_op op, int a, int b, int *out)
{
    int in[2] = {a, b};
    return em_ts_emit(L, c, op, in, 2, out, 1, NULL);
}

/* x @ w^T (+ b): torch's linear (the weight's Transpose folds at plan time). */
static ember_status *linear(ts_lower *L, const ts_call *c, int x, int w, int b, int *out)
{
    int wt = -1, node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &w, 1, &wt, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", (int64_t[]){1, 0}, 2));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(binop(L, c, EM_OP_MATMUL, x, wt, out));
    return b >= 0 ? binop(L, c, EM_OP_ADD, *out, b, out) : NULL;
}

/* An Attention node. heads > 0: 3-D [B, L, heads*E] inputs, else 4-D. scale <= 0: the
 * default. probs (may be NULL) gets the softmax probabilities [B, heads, L, S]. */
typedef struct attn_args {
    int q, k, v, mask;
    bool causal;
    double scale;
    int64_t heads;
} attn_args;

static ember_status *attention(ts_lower *L, const ts_call *c, const attn_args *a, int *y,
                               int *probs)
{
    int in[4] = {a->q, a->k, a->v, a->mask}, out[4] = {-1, -1, -1, -1}, node = -1;
    int n_out = probs != NULL ? 4 : 1;
    TS_TRY(em_ts_emit(L, c, EM_OP_ATTENTION, in, a->mask >= 0 ? 4 : 3, out, n_out, &node));
    if (a->causal) {
        TS_TRY(em_node_set_int(L->g, node, "is_causal", 1));
    }
    if (a->scale > 0) {
        TS_TRY(em_node_set_float(L->g, node, "scale", (float)a->scale));
    }
    if (a->heads > 0) {
        TS_TRY(em_node_set_int(L->g, node, "q_num_heads", a->heads));
        TS_TRY(em_node_set_int(L->g, node, "kv_num_heads", a->heads));
    }
    if (probs != NULL) {
        TS_TRY(em_node_set_int(L->g, node, "qk_matmul_output_mode", 3));
    }
    TS_TRY(em_ts_infer(L, c, node));
    *y = out[0];
    if (probs != NULL) {
        *probs = out[3];
    }
    return NULL;
}

static ember_status *ret_pair(ts_lower *L, int a, int b, ts_av **out)
{
    *out = em_ts_seq(L, TA_TUPLE, 2);
    if (*out == NULL) {
        return em_status_oom();
    }
    TS_TRY(em_ts_ret_tensor(L, a, &(*out)->u.seq.items[0]));
    if (b < 0) {
        (*out)->u.seq.items[1] = em_ts_none(L);
        return (*out)->u.seq.items[1] != NULL ? NULL : em_status_oom();
    }
    return em_ts_ret_tensor(L, b, &(*out)->u.seq.items[1]);
}

/* ---- scaled_dot_product_attention ---- */

/* The SDPA of q, k, v of one rank 2..4 (and a mask broadcasting against [.., L, S]), with the
 * arguments at the given positions (i_scale 0: none); probs (may be NULL) gets the
 * probabilities [.., L, S]. */
static ember_status *sdpa(ts_lower *L, const ts_call *c, size_t i_mask, size_t i_dropout,
                          size_t i_causal, size_t i_scale, int *y, int *probs)
{
    attn_args a = {-1, -1, -1, -1, false, 0, 0};
    int rank = 0, rk = 0, rv = 0;
    double dropout = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &a.q));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &a.k));
    TS_TRY(em_ts_arg_tensor(L, c, 2, &a.v));
    TS_TRY(em_ts_rank(L, c, a.q, &rank));
    TS_TRY(em_ts_rank(L, c, a.k, &rk));
    TS_TRY(em_ts_rank(L, c, a.v, &rv));
    if (!em_ts_arg_none(c, i_dropout)) {
        TS_TRY(em_ts_arg_float(L, c, i_dropout, &dropout));
    }
    if (c->n > i_causal) {
        TS_TRY(em_ts_arg_bool(L, c, i_causal, &a.causal));
    }
    if (i_scale > 0 && !em_ts_arg_none(c, i_scale)) {
        TS_TRY(em_ts_arg_float(L, c, i_scale, &a.scale));
        if (!(a.scale > 0)) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: scale %g (ember takes a "
                          "positive scale)", c->op, a.scale);
        }
    }
    if (dropout != 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s with dropout_p %g: ember runs "
                      "inference; pass dropout_p=0 in eval mode", c->op, dropout);
    }
    if (rank < 2 || rank > 4 || rk != rank || rv != rank) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s on inputs of ranks %d, %d, %d "
                      "(ember takes one rank, 2 to 4)", c->op, rank, rk, rv);
    }
    /* Unit dims in front up to [B, heads, L, E]: axes {0, 1} for rank 2, {1} for rank 3. */
    const int64_t ax2[2] = {0, 1}, ax3 = 1, *axes = rank == 2 ? ax2 : &ax3;
    int n_ax = 4 - rank;
    if (n_ax > 0) {
        TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, a.q, axes, n_ax, &a.q));
        TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, a.k, axes, n_ax, &a.k));
        TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, a.v, axes, n_ax, &a.v));
    }
    if (!em_ts_arg_none(c, i_mask)) {
        int mr = 0;
        TS_TRY(em_ts_arg_tensor(L, c, i_mask, &a.mask));
        TS_TRY(em_ts_rank(L, c, a.mask, &mr));
        /* ONNX masks the keys past the mask's last dim where torch would broadcast a 1. */
        if (mr > 0 && em_ts_val(L, a.mask)->dims[mr - 1].v == 1 && em_ts_val(L, a.k)->dims[2].v != 1) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: an attn_mask broadcast over "
                          "the keys (last dim 1) is not supported", c->op);
        }
        if (mr == 3 && rank == 3) { /* [B, L, S] against q's [B, L, E] */
            TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, a.mask, &ax3, 1, &a.mask));
        }
    }
    TS_TRY(attention(L, c, &a, y, probs));
    if (n_ax > 0) {
        TS_TRY(axes_op(L, c, EM_OP_SQUEEZE, *y, axes, n_ax, y));
        if (probs != NULL) {
            TS_TRY(axes_op(L, c, EM_OP_SQUEEZE, *probs, axes, n_ax, probs));
        }
    }
    return NULL;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0., is_causal=False,
 *                              *, scale=None, enable_gqa=False) */
static ember_status *lower_sdpa(ts_lower *L, const ts_call *c, ts_av **out)
{
    int y = -1;
    TS_TRY(sdpa(L, c, 3, 4, 5, 6, &y, NULL));
    return em_ts_ret_tensor(L, y, out);
}

/* 1.13's _scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.,
 * need_attn_weights=False, is_causal=False) -> (out, weights or None) */
static ember_status *lower_sdpa_113(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool need = false;
    int y = -1, probs = -1;
    if (c->n > 5) {
        TS_TRY(em_ts_arg_bool(L, c, 5, &need));
    }
    TS_TRY(sdpa(L, c, 3, 4, 6, 0, &y, need ? &probs : NULL));
    return ret_pair(L, y, probs, out);
}

/* ---- the fast paths ---- */

/* A fast-path mask (arg i, type arg i_type) as an Attention mask: bool True (masked out)
 * negated, key padding [B, S] -> [B, 1, 1, S]; -1 when None. */
static ember_status *fast_mask(ts_lower *L, const ts_call *c, size_t i, size_t i_type, int *mask)
{
    int64_t type = 0;
    *mask = -1;
    if (em_ts_arg_none(c, i)) {
        return NULL;
    }
    TS_TRY(em_ts_arg_tensor(L, c, i, mask));
    if (!em_ts_arg_none(c, i_type)) {
        TS_TRY(em_ts_arg_int(L, c, i_type, &type));
    }
    if (em_ts_val(L, *mask)->dtype == EMBER_DTYPE_BOOL) {
        TS_TRY(em_ts_emit(L, c, EM_OP_NOT, mask, 1, mask, 1, NULL));
    }
    if (type == 1) {
        TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, *mask, (int64_t[]){1, 2}, 2, mask));
    }
    return NULL;
}

/* The projections of a fused [3E, E] in_proj weight and [3E] bias. */
typedef struct mha_weights {
    int w[3], b[3]; /* q, k, v */
    int wo, bo;
    int64_t embed, heads;
} mha_weights;

static ember_status *split3(ts_lower *L, const ts_call *c, int x, int64_t e, int *out)
{
    int in[2] = {x, -1}, node = -1;
    TS_TRY(em_ts_const_i64s(L, (int64_t[]){e, e, e}, 3, &in[1]));
    TS_TRY(em_ts_emit(L, c, EM_OP_SPLIT, in, 2, out, 3, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", 0));
    return em_ts_infer(L, c, node);
}

/* Reads embed_dim, num_heads and the weights from args i_embed.. (embed, heads, qkv_w,
 * qkv_b, proj_w, proj_b: the order both fast-path ops use). */
static ember_status *mha_args(ts_lower *L, const ts_call *c, size_t i, mha_weights *m)
{
    int qkv_w = -1, qkv_b = -1;
    TS_TRY(em_ts_arg_int(L, c, i, &m->embed));
    TS_TRY(em_ts_arg_int(L, c, i + 1, &m->heads));
    if (m->embed < 1 || m->heads < 1 || m->embed % m->heads != 0) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: embed_dim %lld and num_heads "
                      "%lld", c->op, (long long)m->embed, (long long)m->heads);
    }
    TS_TRY(em_ts_arg_tensor(L, c, i + 2, &qkv_w));
    TS_TRY(em_ts_arg_tensor(L, c, i + 3, &qkv_b));
    TS_TRY(em_ts_arg_tensor(L, c, i + 4, &m->wo));
    TS_TRY(em_ts_arg_tensor(L, c, i + 5, &m->bo));
    TS_TRY(split3(L, c, qkv_w, m->embed, m->w));
    return split3(L, c, qkv_b, m->embed, m->b);
}

/* Multi-head attention of query [B, L, E] over key / value [B, S, E]; probs (may be NULL) gets
 * the probabilities [B, heads, L, S]. */
static ember_status *mha(ts_lower *L, const ts_call *c, const mha_weights *m, int q, int k, int v,
                         int mask, int *y, int *probs)
{
    attn_args a = {-1, -1, -1, mask, false, 0, m->heads};
    int o = -1;
    TS_TRY(linear(L, c, q, m->w[0], m->b[0], &a.q));
    TS_TRY(linear(L, c, k, m->w[1], m->b[1], &a.k));
    TS_TRY(linear(L, c, v, m->w[2], m->b[2], &a.v));
    TS_TRY(attention(L, c, &a, &o, probs));
    return linear(L, c, o, m->wo, m->bo, y);
}

static ember_status *rank3_arg(ts_lower *L, const ts_call *c, size_t i, int *v)
{
    int r = 0;
    TS_TRY(em_ts_arg_tensor(L, c, i, v));
    TS_TRY(em_ts_rank(L, c, *v, &r));
    if (r != 3) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: input %zu has rank %d, expected 3 "
                      "(batched)", c->op, i, r);
    }
    return NULL;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
 *     proj_weight, proj_bias, mask=None, need_weights=True, average_attn_weights=True,
 *     mask_type=None) -> (out, weights or None) */
static ember_status *lower_native_mha(ts_lower *L, const ts_call *c, ts_av **out)
{
    mha_weights m;
    int q = -1, k = -1, v = -1, mask = -1, y = -1, probs = -1;
    bool need = true, avg = true;
    TS_TRY(rank3_arg(L, c, 0, &q));
    TS_TRY(rank3_arg(L, c, 1, &k));
    TS_TRY(rank3_arg(L, c, 2, &v));
    TS_TRY(mha_args(L, c, 3, &m));
    TS_TRY(fast_mask(L, c, 9, 12, &mask));
    TS_TRY(em_ts_arg_bool(L, c, 10, &need));
    TS_TRY(em_ts_arg_bool(L, c, 11, &avg));
    TS_TRY(mha(L, c, &m, q, k, v, mask, &y, need ? &probs : NULL));
    if (need && avg) { /* mean over the heads */
        int in[2] = {probs, -1}, node = -1;
        TS_TRY(em_ts_const_i64s(L, (int64_t[]){1}, 1, &in[1]));
        TS_TRY(em_ts_emit(L, c, EM_OP_REDUCEMEAN, in, 2, &probs, 1, &node));
        TS_TRY(em_node_set_int(L->g, node, "keepdims", 0));
        TS_TRY(em_ts_infer(L, c, node));
    }
    return ret_pair(L, y, need ? probs : -1, out);
}

static ember_status *layer_norm(ts_lower *L, const ts_call *c, int x, int w, int b, double eps,
                                int *out)
{
    int in[3] = {x, w, b}, node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_LAYERNORM, in, 3, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", -1));
    TS_TRY(em_node_set_float(L->g, node, "epsilon", (float)eps));
    return em_ts_infer(L, c, node);
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
 *     proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
 *     norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None,
 *     mask_type=None): post-norm x = LN1(x + SA(x)), x = LN2(x + FF(x)); pre-norm
 *     x = x + SA(LN1(x)), x = x + FF(LN2(x)); FF(x) = W2 act(W1 x + b1) + b2. */
static ember_status *lower_encoder_layer(ts_lower *L, const ts_call *c, ts_av **out)
{
    mha_weights m;
    bool gelu = false, pre = false;
    double eps = 1e-5;
    int x = -1, mask = -1, p[8], t = -1, sa = -1, ff = -1;
    TS_TRY(rank3_arg(L, c, 0, &x));
    TS_TRY(mha_args(L, c, 1, &m));
    TS_TRY(em_ts_arg_bool(L, c, 7, &gelu));
    TS_TRY(em_ts_arg_bool(L, c, 8, &pre));
    TS_TRY(em_ts_arg_float(L, c, 9, &eps));
    for (size_t i = 0; i < 8; i++) {
        TS_TRY(em_ts_arg_tensor(L, c, 10 + i, &p[i]));
    }
    TS_TRY(fast_mask(L, c, 18, 19, &mask));
    /* self attention */
    if (pre) {
        TS_TRY(layer_norm(L, c, x, p[0], p[1], eps, &t));
    } else {
        t = x;
    }
    TS_TRY(mha(L, c, &m, t, t, t, mask, &sa, NULL));
    TS_TRY(binop(L, c, EM_OP_ADD, x, sa, &x));
    if (!pre) {
        TS_TRY(layer_norm(L, c, x, p[0], p[1], eps, &x));
    }
    /* feed forward */
    if (pre) {
        TS_TRY(layer_norm(L, c, x, p[2], p[3], eps, &t));
    } else {
        t = x;
    }
    TS_TRY(linear(L, c, t, p[4], p[5], &ff));
    TS_TRY(em_ts_emit(L, c, gelu ? EM_OP_GELU : EM_OP_RELU, &ff, 1, &ff, 1, NULL));
    TS_TRY(linear(L, c, ff, p[6], p[7], &ff));
    TS_TRY(binop(L, c, EM_OP_ADD, x, ff, &x));
    if (!pre) {
        TS_TRY(layer_norm(L, c, x, p[2], p[3], eps, &x));
    }
    return em_ts_ret_tensor(L, x, out);
}

/* ---- baddbmm ---- */

/* Whether argument i is the known number v. */
static bool is_number(const ts_call *c, size_t i, double v)
{
    const ts_av *a = c->a[i];
    return (a->k == TA_INT && (double)a->u.i == v) || (a->k == TA_FLOAT && a->u.f == v);
}

/* baddbmm(self, batch1, batch2, *, beta=1, alpha=1) = beta * self + alpha * (batch1 @ batch2);
 * beta 0 ignores self (torch's rule: NaN in self do not propagate). */
static ember_status *lower_baddbmm(ts_lower *L, const ts_call *c, ts_av **out)
{
    int b1 = -1, b2 = -1, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 1, &b1));
    TS_TRY(em_ts_arg_tensor(L, c, 2, &b2));
    if (c->n < 5) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: %zu arguments", c->op, c->n);
    }
    TS_TRY(binop(L, c, EM_OP_MATMUL, b1, b2, &y));
    ember_dtype dt = em_ts_val(L, y)->dtype;
    if (!is_number(c, 4, 1)) {
        int al = -1;
        TS_TRY(em_ts_as_tensor(L, c, c->a[4], dt, &al));
        TS_TRY(binop(L, c, EM_OP_MUL, y, al, &y));
    }
    if (!is_number(c, 3, 0)) {
        int s = -1;
        TS_TRY(em_ts_arg_tensor(L, c, 0, &s));
        if (!is_number(c, 3, 1)) {
            int be = -1;
            TS_TRY(em_ts_as_tensor(L, c, c->a[3], dt, &be));
            TS_TRY(binop(L, c, EM_OP_MUL, s, be, &s));
        }
        TS_TRY(binop(L, c, EM_OP_ADD, s, y, &y));
    }
    return em_ts_ret_tensor(L, y, out);
}

/* ---- unflatten ---- */

/* unflatten(self, dim, sizes): a Reshape to x's dims before `dim` (0: copied), `sizes`, then
 * x's dims after `dim` (taken from its Shape when not known). Not attention as such, but
 * 2.x's MultiheadAttention is what calls it (the fused in-projection split into q, k, v). */
static ember_status *lower_unflatten(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, parts[3] = {-1, -1, -1}, np = 0, shape = -1;
    int64_t dim = 0, lead[EMBER_MAX_RANK] = {0}, tail[EMBER_MAX_RANK];
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    if (c->n < 3 || c->a[1]->k != TA_INT) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: dim must be an int known at load "
                      "time (named dims are not supported)", c->op);
    }
    dim = c->a[1]->u.i < 0 ? c->a[1]->u.i + rank : c->a[1]->u.i;
    if (dim < 0 || dim >= rank) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: dim %lld of a rank-%d tensor",
                      c->op, (long long)c->a[1]->u.i, rank);
    }
    if (dim > 0) {
        TS_TRY(em_ts_const_i64s(L, lead, dim, &parts[np++]));
    }
    TS_TRY(em_ts_int_list_tensor(L, c, c->a[2], &parts[np++]));
    bool known = true;
    for (int64_t d = dim + 1; d < rank; d++) {
        tail[d - dim - 1] = em_ts_val(L, x)->dims[d].v;
        known = known && tail[d - dim - 1] >= 0;
    }
    if (dim + 1 < rank && known) {
        TS_TRY(em_ts_const_i64s(L, tail, rank - dim - 1, &parts[np++]));
    } else if (dim + 1 < rank) {
        int node = -1;
        TS_TRY(em_ts_emit(L, c, EM_OP_SHAPE, &x, 1, &parts[np], 1, &node));
        TS_TRY(em_node_set_int(L->g, node, "start", dim + 1));
        TS_TRY(em_ts_infer(L, c, node));
        np++;
    }
    if (np == 1) {
        shape = parts[0];
    } else {
        int node = -1;
        TS_TRY(em_ts_emit(L, c, EM_OP_CONCAT, parts, np, &shape, 1, &node));
        TS_TRY(em_node_set_int(L->g, node, "axis", 0));
        TS_TRY(em_ts_infer(L, c, node));
    }
    int in[2] = {x, shape};
    return em_ts_emit1(L, c, EM_OP_RESHAPE, in, 2, NULL, out);
}

static const ts_op_entry attn_ops[] = {
    {"aten::scaled_dot_product_attention", lower_sdpa},
    {"aten::_scaled_dot_product_attention", lower_sdpa_113},
    {"aten::_native_multi_head_attention", lower_native_mha},
    {"aten::_transformer_encoder_layer_fwd", lower_encoder_layer},
    {"aten::baddbmm", lower_baddbmm},
    {"aten::unflatten", lower_unflatten},
};

const ts_op_table em_ts_attn_table = {attn_ops, sizeof attn_ops / sizeof attn_ops[0]};
