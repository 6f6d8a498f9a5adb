/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the attn family (ONNX semantics, newest opsets).
 *
 * Attention-25: Q, K, V are all 4-D [B, H, S, D] or all 3-D [B, S, H * D] (then q_num_heads
 * and kv_num_heads say H). Y is [B, Hq, Sq, Dv] (4-D) or [B, Sq, Hq * Dv] (3-D); present_key /
 * present_value are [B, Hkv, P + Skv, Dk / Dv] with P the past sequence length (0 without
 * past); qk_matmul_output is [B, Hq, Sq, P + Skv]. Hq must be a multiple of Hkv (GQA).
 * LinearAttention-27: output [B, T, Hq * Dv], present_state [B, Hkv, Dk, Dv].
 * CausalConvWithState-27: output as input, present_state [B, C, k - 1].
 * The others keep their first input's shape (RMSNormalization's output has the scale's dtype).
 * Dims that cannot be told stay unknown; dims that contradict each other are errors naming the
 * node.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

#if defined(__GNUC__)
#define ATTN_PRINTF __attribute__((format(printf, 2, 3)))
#else
#define ATTN_PRINTF
#endif

/* INVALID_MODEL "node 'x' (Op): <message>". */
static ember_status *bad(const em_node *n, const char *fmt, ...) ATTN_PRINTF;

static ember_status *bad(const em_node *n, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s", n->name, em_op_name(n->op),
                         msg);
}

static bool present(const em_node *n, const em_shape *in, int i)
{
    return i < n->n_in && n->in[i] >= 0 && in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

static void same_as(const em_shape *in, em_shape *out)
{
    *out = *in;
    out->value = NULL;
}

/* a / k when a is known and divisible (else unknown; k > 0). */
static em_dim dim_div(em_dim a, int64_t k)
{
    return KNOWN(a) && a.v % k == 0 ? em_dim_known(a.v / k) : em_dim_unknown();
}

static em_dim dim_mul(em_dim a, int64_t k)
{
    return KNOWN(a) && (k == 0 || a.v <= INT64_MAX / k) ? em_dim_known(a.v * k) : em_dim_unknown();
}

/* False when both dims are known and differ. */
static bool dims_agree(em_dim a, em_dim b)
{
    return !KNOWN(a) || !KNOWN(b) || a.v == b.v;
}

/* A positive int attribute, or 0 when absent; -1 when present and not positive. */
static int64_t heads_attr(const em_node *n, const char *name)
{
    int64_t v = em_node_attr_int(n, name, 0);
    return em_node_attr(n, name) == NULL ? 0 : v > 0 ? v : -1;
}

/* ---- Attention ----------------------------------------------------------------------------- */

/* One of Q, K, V seen as [B, H, S, D] (3-D inputs split by `heads`). */
typedef struct attn_view {
    em_dim b, h, s, d;
} attn_view;

static ember_status *attn_view_of(const em_node *n, const em_shape *x, int idx, int64_t heads,
                                  attn_view *v)
{
    static const char *const names[] = {"Q", "K", "V"};
    if (x->rank == 4) {
        *v = (attn_view){x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
        if (heads > 0 && !dims_agree(x->dims[1], em_dim_known(heads))) {
            return bad(n, "input %d (%s) has %lld heads, the attribute says %lld", idx, names[idx],
                       (long long)x->dims[1].v, (long long)heads);
        }
        return NULL;
    }
    if (KNOWN(x->dims[2]) && x->dims[2].v % heads != 0) {
        return bad(n, "input %d (%s): hidden size %lld is not a multiple of %lld heads", idx,
                   names[idx], (long long)x->dims[2].v, (long long)heads);
    }
    *v = (attn_view){x->dims[0], em_dim_known(heads), x->dims[1], dim_div(x->dims[2], heads)};
    return NULL;
}

static ember_status *attn_check_past(const em_node *n, const em_shape *in, const attn_view *k,
                                     const attn_view *v, em_dim *past)
{
    bool pk = present(n, in, 4), pv = present(n, in, 5);
    *past = em_dim_known(0);
    if (pk != pv) {
        return bad(n, "past_key and past_value must be given together");
    }
    if (present(n, in, 6) && pk) {
        return bad(n, "nonpad_kv_seqlen cannot be combined with past_key / past_value");
    }
    if (present(n, in, 6) && (in[6].dtype != EMBER_DTYPE_I64 || in[6].rank > 1)) {
        return bad(n, "nonpad_kv_seqlen must be a 1-D int64 tensor");
    }
    if (!pk) {
        return NULL;
    }
    const em_shape *a = &in[4], *b = &in[5];
    if ((a->rank >= 0 && a->rank != 4) || (b->rank >= 0 && b->rank != 4)) {
        return bad(n, "past_key and past_value must be 4-D [B, Hkv, P, D]");
    }
    if (a->rank < 0 || b->rank < 0) {
        *past = em_dim_unknown();
        return NULL;
    }
    if (!dims_agree(a->dims[0], k->b) || !dims_agree(a->dims[1], k->h) ||
        !dims_agree(a->dims[3], k->d) || !dims_agree(b->dims[0], v->b) ||
        !dims_agree(b->dims[1], v->h) || !dims_agree(b->dims[3], v->d) ||
        !dims_agree(a->dims[2], b->dims[2])) {
        return bad(n, "past_key / past_value do not match K / V (batch, heads, head size) or "
                      "each other (past length)");
    }
    *past = a->dims[2];
    return NULL;
}

static ember_status *attn_check(const em_node *n, const attn_view *q, const attn_view *k,
                                const attn_view *v)
{
    if (!dims_agree(q->b, k->b) || !dims_agree(q->b, v->b)) {
        return bad(n, "Q, K and V have different batch sizes");
    }
    if (!dims_agree(q->d, k->d)) {
        return bad(n, "Q's head size %lld differs from K's %lld", (long long)q->d.v,
                   (long long)k->d.v);
    }
    if (!dims_agree(k->h, v->h) || !dims_agree(k->s, v->s)) {
        return bad(n, "K and V differ in heads or sequence length");
    }
    if (KNOWN(q->h) && KNOWN(k->h) && (k->h.v == 0 || q->h.v % k->h.v != 0)) {
        return bad(n, "q_num_heads %lld is not a multiple of kv_num_heads %lld", (long long)q->h.v,
                   (long long)k->h.v);
    }
    return NULL;
}

ember_status *em_shape_attention(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *q = &in[0], *k = &in[1], *v = &in[2];
    ember_status *st;
    out[0].dtype = q->dtype;
    for (int o = 1; o < n->n_out; o++) {
        out[o].dtype = o == 2 ? v->dtype : q->dtype;
    }
    int r = q->rank >= 0 ? q->rank : k->rank >= 0 ? k->rank : v->rank;
    if ((q->rank >= 0 && q->rank != r) || (k->rank >= 0 && k->rank != r) ||
        (v->rank >= 0 && v->rank != r) || (r >= 0 && r != 3 && r != 4)) {
        return bad(n, "Q, K and V must all be 3-D or all 4-D (ranks %d, %d, %d)", q->rank, k->rank,
                   v->rank);
    }
    int64_t qh = heads_attr(n, "q_num_heads"), kvh = heads_attr(n, "kv_num_heads");
    if (qh < 0 || kvh < 0 || (r == 3 && (qh == 0 || kvh == 0))) {
        return bad(n, "3-D inputs need q_num_heads and kv_num_heads, both positive");
    }
    if (present(n, in, 3) && in[3].rank > 4) {
        return bad(n, "attn_mask has rank %d, at most 4", in[3].rank);
    }
    if (q->rank < 0 || k->rank < 0 || v->rank < 0) {
        return NULL;
    }
    attn_view qv, kv, vv;
    em_dim past;
    if ((st = attn_view_of(n, q, 0, qh, &qv)) != NULL ||
        (st = attn_view_of(n, k, 1, kvh, &kv)) != NULL ||
        (st = attn_view_of(n, v, 2, kvh, &vv)) != NULL ||
        (st = attn_check(n, &qv, &kv, &vv)) != NULL ||
        (st = attn_check_past(n, in, &kv, &vv, &past)) != NULL) {
        return st;
    }
    em_dim total = past.v == 0                  ? kv.s
                   : KNOWN(past) && KNOWN(kv.s) ? em_dim_known(past.v + kv.s.v)
                                                : em_dim_unknown();
    out[0].rank = r;
    if (r == 4) {
        out[0].dims[0] = qv.b;
        out[0].dims[1] = qv.h;
        out[0].dims[2] = qv.s;
        out[0].dims[3] = vv.d;
    } else {
        out[0].dims[0] = qv.b;
        out[0].dims[1] = qv.s;
        out[0].dims[2] = KNOWN(vv.d) ? dim_mul(vv.d, qh) : em_dim_unknown();
    }
    const em_dim pres[2][4] = {{kv.b, kv.h, total, kv.d}, {vv.b, vv.h, total, vv.d}};
    for (int o = 1; o < n->n_out && o < 3; o++) {
        out[o].rank = 4;
        memcpy(out[o].dims, pres[o - 1], sizeof pres[0]);
    }
    if (n->n_out > 3) {
        out[3].rank = 4;
        out[3].dims[0] = qv.b;
        out[3].dims[1] = qv.h;
        out[3].dims[2] = qv.s;
        out[3].dims[3] = total;
    }
    return NULL;
}

/* ---- the normalisations and RotaryEmbedding ------------------------------------------------- */

ember_status *em_shape_rmsnorm(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    same_as(x, out);
    out->dtype = in[1].dtype;
    int64_t axis = em_node_attr_int(n, "axis", -1);
    if (x->rank >= 0 && (axis < -x->rank || axis >= x->rank)) {
        return bad(n, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
    }
    if (x->rank >= 0 && in[1].rank > x->rank) {
        return bad(n, "scale has rank %d, above X's %d", in[1].rank, x->rank);
    }
    return NULL;
}

ember_status *em_shape_groupnorm(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    same_as(x, out);
    int64_t groups = em_node_attr_int(n, "num_groups", 0);
    if (em_node_attr(n, "num_groups") == NULL || groups < 1) {
        return bad(n, "attribute num_groups is required and must be positive");
    }
    if (x->rank >= 0 && x->rank < 2) {
        return bad(n, "X has rank %d, expected [N, C, ...]", x->rank);
    }
    if (x->rank < 0 || !KNOWN(x->dims[1])) {
        return NULL;
    }
    int64_t c = x->dims[1].v;
    if (c % groups != 0) {
        return bad(n, "num_groups %lld does not divide the %lld channels", (long long)groups,
                   (long long)c);
    }
    for (int i = 1; i < 3; i++) {
        if (in[i].rank >= 0 && (in[i].rank != 1 || !dims_agree(in[i].dims[0], em_dim_known(c)))) {
            return bad(n, "input %d (%s) must be [C] = [%lld]", i, i == 1 ? "scale" : "bias",
                       (long long)c);
        }
    }
    return NULL;
}

ember_status *em_shape_rotary(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    same_as(x, out);
    int64_t heads = heads_attr(n, "num_heads");
    if (x->rank >= 0 && x->rank != 3 && x->rank != 4) {
        return bad(n, "input has rank %d, expected 3 or 4", x->rank);
    }
    if (heads < 0 || (x->rank == 3 && heads == 0)) {
        return bad(n, "a 3-D input needs a positive num_heads");
    }
    if (x->rank == 3 && KNOWN(x->dims[2]) && x->dims[2].v % heads != 0) {
        return bad(n, "hidden size %lld is not a multiple of num_heads %lld",
                   (long long)x->dims[2].v, (long long)heads);
    }
    if (present(n, in, 3) &&
        (in[3].dtype != EMBER_DTYPE_I64 || (in[3].rank >= 0 && in[3].rank != 2))) {
        return bad(n, "position_ids must be a 2-D int64 tensor");
    }
    return NULL;
}

/* ---- TensorScatter, SwiGLU ---------------------------------------------------------------- */

ember_status *em_shape_tensorscatter(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *c = &in[0], *u = &in[1];
    same_as(c, out);
    if (c->dtype != u->dtype && u->dtype != EMBER_DTYPE_UNDEFINED) {
        return bad(n, "update's dtype differs from past_cache's");
    }
    if (c->rank < 0 || u->rank < 0) {
        return NULL;
    }
    int64_t axis = em_node_attr_int(n, "axis", -2);
    int64_t ax = axis < 0 ? axis + c->rank : axis;
    if (u->rank != c->rank || ax < 1 || ax >= c->rank) {
        return bad(n,
                   "axis %lld must name a non-batch axis of past_cache and update, which need "
                   "one rank (%d, %d)",
                   (long long)axis, c->rank, u->rank);
    }
    for (int d = 0; d < c->rank; d++) {
        bool ok = d == ax ? !(KNOWN(u->dims[d]) && KNOWN(c->dims[d]) && u->dims[d].v > c->dims[d].v)
                          : dims_agree(u->dims[d], c->dims[d]);
        if (!ok) {
            return bad(n, "update's dim %d does not fit past_cache", d);
        }
    }
    if (present(n, in, 2) && (in[2].dtype != EMBER_DTYPE_I64 || in[2].rank > 1)) {
        return bad(n, "write_indices must be a 1-D int64 tensor");
    }
    return NULL;
}

ember_status *em_shape_swiglu(const em_node *n, const em_shape *in, em_shape *out)
{
    same_as(&in[0], out);
    if (in[1].dtype != in[0].dtype) {
        return bad(n, "A and B have different dtypes");
    }
    if (in[0].rank >= 0 && in[1].rank >= 0) {
        bool same = in[0].rank == in[1].rank;
        for (int d = 0; same && d < in[0].rank; d++) {
            same = dims_agree(in[0].dims[d], in[1].dims[d]);
            if (!KNOWN(out->dims[d])) {
                out->dims[d] = in[1].dims[d];
            }
        }
        if (!same) {
            return bad(n, "A and B must have the same shape (SwiGLU does not broadcast)");
        }
    }
    return NULL;
}

/* ---- LinearAttention, CausalConvWithState -------------------------------------------------- */

ember_status *em_shape_linearattention(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *q = &in[0], *k = &in[1], *v = &in[2];
    int64_t qh = heads_attr(n, "q_num_heads"), kvh = heads_attr(n, "kv_num_heads");
    bool past = present(n, in, 3);
    out[0].dtype = q->dtype;
    if (n->n_out > 1) {
        out[1].dtype = past ? in[3].dtype : q->dtype;
    }
    if (qh <= 0 || kvh <= 0 || qh % kvh != 0) {
        return bad(n, "q_num_heads and kv_num_heads are required, positive, and q_num_heads a "
                      "multiple of kv_num_heads");
    }
    for (int i = 0; i < 3; i++) {
        if (in[i].rank >= 0 && in[i].rank != 3) {
            return bad(n, "input %d has rank %d, expected 3 (B, T, H * D)", i, in[i].rank);
        }
    }
    if (q->rank < 0 || k->rank < 0 || v->rank < 0) {
        return NULL;
    }
    int64_t hs[3] = {qh, kvh, kvh};
    for (int i = 0; i < 3; i++) {
        if (KNOWN(in[i].dims[2]) && in[i].dims[2].v % hs[i] != 0) {
            return bad(n, "input %d: last dim %lld is not a multiple of %lld heads", i,
                       (long long)in[i].dims[2].v, (long long)hs[i]);
        }
    }
    em_dim dk = dim_div(q->dims[2], qh), dv = dim_div(v->dims[2], kvh);
    if (!dims_agree(dk, dim_div(k->dims[2], kvh)) || !dims_agree(q->dims[0], k->dims[0]) ||
        !dims_agree(q->dims[1], k->dims[1]) || !dims_agree(k->dims[0], v->dims[0]) ||
        !dims_agree(k->dims[1], v->dims[1])) {
        return bad(n, "query, key and value disagree on batch, sequence or key head size");
    }
    out[0].rank = 3;
    out[0].dims[0] = q->dims[0];
    out[0].dims[1] = q->dims[1];
    out[0].dims[2] = KNOWN(dv) ? em_dim_known(dv.v * qh) : em_dim_unknown();
    if (n->n_out > 1) {
        out[1].rank = 4;
        out[1].dims[0] = q->dims[0];
        out[1].dims[1] = em_dim_known(kvh);
        out[1].dims[2] = dk;
        out[1].dims[3] = dv;
    }
    return NULL;
}

ember_status *em_shape_causalconv(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *w = &in[1];
    same_as(x, &out[0]);
    if (n->n_out > 1) {
        out[1].dtype = x->dtype;
    }
    if ((x->rank >= 0 && x->rank != 3) || (w->rank >= 0 && w->rank != 3)) {
        return bad(n, "input and weight must be 3-D: [B, C, L] and [C, 1, k]");
    }
    if (x->rank < 0 || w->rank < 0) {
        return NULL;
    }
    if (!dims_agree(x->dims[1], w->dims[0]) || !dims_agree(w->dims[1], em_dim_known(1)) ||
        (KNOWN(w->dims[2]) && w->dims[2].v < 1)) {
        return bad(n, "weight must be [C, 1, k] with C the input's channels and k >= 1");
    }
    if (n->n_out > 1) {
        out[1].rank = 3;
        out[1].dims[0] = x->dims[0];
        out[1].dims[1] = x->dims[1];
        out[1].dims[2] = KNOWN(w->dims[2]) ? em_dim_known(w->dims[2].v - 1) : em_dim_unknown();
    }
    return NULL;
}
