/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the nn family (grad_internal.h): Conv and the pools (any number of
 * spatial axes), BatchNormalization, Gemm and MatMul.
 *
 * Conv, X [N, C, S..], W [M, C/G, K..], Y [N, M, O..], stride s, dilation d, pads pb / pe:
 *  - dX = ConvTranspose(g, W) with the same strides, dilations, pads and group; its output
 *    size s (O - 1) + d (K - 1) + 1 - pb - pe' + op must be S, so the end pad pe' and output
 *    padding op are solved for from S and O (known dims needed when s > 1; with s = 1 it is pe).
 *  - dW: the correlation of X with g, a Conv with the roles of batch and channels swapped:
 *    X^T [C, N, S..] convolved with g^T [M, N, O..] as the kernel, stride d and dilation s,
 *    gives [C, M, K'..] with K' >= K (the part of the padded input the forward never reached
 *    makes it longer); it is sliced to K and transposed to [M, C, K..]. With groups the
 *    channels of each group go into the batch: X -> [C/G, G N, S..], g -> [M, N, O..] in group
 *    order, and the Conv runs with group G.
 *  - dB = g summed over N and the spatial axes.
 * AveragePool: g is divided by each window's count (k taps, or with count_include_pad 0 the
 * taps inside the input: LpPool with p = 1 over ones) and spread over the window by a
 * ConvTranspose with a ones kernel, the planes of [N, C] treated as a batch of one channel.
 * MaxPool scatter-adds g at its Indices output (added to the forward node when missing);
 * GlobalMaxPool splits g between the elements equal to the maximum (em_gx_give_to_extrema).
 * BatchNormalization: the normalization of grad_rules_reduce.c over every axis but the channel,
 * with batch statistics in training; in inference its mean / var inputs, all five of its inputs
 * get gradients. MatMul and Gemm: one product per input gradient, batch dims summed back.
 */
#include "autograd/grad_internal.h"

#include <string.h>

typedef struct geom {
    int nsp;
    int64_t k[EM_MAX_RANK], s[EM_MAX_RANK], d[EM_MAX_RANK], pb[EM_MAX_RANK], pe[EM_MAX_RANK];
} geom;

/* An optional ints attribute of n spatial entries (default dflt). */
static bool read_ints(em_gctx *c, const em_node *n, const char *name, int cnt, int64_t dflt,
                      int64_t *out)
{
    const int64_t *v;
    int64_t got = em_node_attr_ints(n, name, &v);
    for (int i = 0; i < cnt; i++) {
        out[i] = got >= 0 && i < got ? v[i] : dflt;
    }
    if (got >= 0 && got != cnt) {
        em_gx_fail(c, "'%s' has %lld entries, expected %d", name, (long long)got, cnt);
        return false;
    }
    return true;
}

/* Window geometry of n over input x, explicit pads (auto_pad resolved from x's dims). */
static bool read_geom(em_gctx *c, const em_node *n, int x, const int64_t *k, geom *gm)
{
    int64_t pads[2 * EM_MAX_RANK];
    int r = em_gx_val(c, x)->rank;
    if (r < 3) {
        em_gx_fail(c, "input rank %d: expected [N, C, spatial...]", r);
        return false;
    }
    gm->nsp = r - 2;
    memcpy(gm->k, k, sizeof(int64_t) * (size_t)gm->nsp);
    if (!read_ints(c, n, "strides", gm->nsp, 1, gm->s) ||
        !read_ints(c, n, "dilations", gm->nsp, 1, gm->d) ||
        !read_ints(c, n, "pads", 2 * gm->nsp, 0, pads)) {
        return false;
    }
    const char *ap = em_node_attr_string(n, "auto_pad", "NOTSET");
    bool same = strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0;
    for (int i = 0; i < gm->nsp; i++) {
        gm->pb[i] = pads[i];
        gm->pe[i] = pads[gm->nsp + i];
        if (strcmp(ap, "VALID") == 0) {
            gm->pb[i] = gm->pe[i] = 0;
        } else if (same) {
            int64_t in = em_gx_val(c, x)->dims[2 + i].v;
            if (in < 0) {
                em_gx_fail(c, "auto_pad %s needs the spatial dims of the input known", ap);
                return false;
            }
            int64_t o = (in + gm->s[i] - 1) / gm->s[i], dk = (gm->k[i] - 1) * gm->d[i] + 1;
            int64_t tot = (o - 1) * gm->s[i] + dk - in;
            tot = tot > 0 ? tot : 0;
            gm->pb[i] = ap[5] == 'U' ? tot / 2 : tot - tot / 2;
            gm->pe[i] = tot - gm->pb[i];
        }
    }
    return true;
}

/* Sets the window attributes of the ConvTranspose mapping gradient g [.., O..] back onto x
 * [.., S..]: end pads and output padding solved so that the output is S. */
static void convt_attrs(em_gctx *c, int node, const geom *gm, int x, int g)
{
    int64_t pads[2 * EM_MAX_RANK], op[EM_MAX_RANK];
    bool any_op = false;
    for (int i = 0; i < gm->nsp; i++) {
        pads[i] = gm->pb[i];
        pads[gm->nsp + i] = gm->pe[i];
        op[i] = 0;
        if (gm->s[i] == 1) {
            continue;
        }
        int64_t in = em_gx_val(c, x)->dims[2 + i].v, o = em_gx_val(c, g)->dims[2 + i].v;
        if (in < 0 || o < 0) {
            em_gx_fail(c, "with stride %lld the gradient needs spatial dims known at build time",
                    (long long)gm->s[i]);
            return;
        }
        int64_t t = gm->s[i] * (o - 1) + (gm->k[i] - 1) * gm->d[i] + 1 - gm->pb[i] - in;
        pads[gm->nsp + i] = t >= 0 ? t : 0;
        op[i] = t >= 0 ? 0 : -t;
        any_op = any_op || op[i] != 0;
    }
    em_gx_set_ints(c, node, "strides", gm->s, gm->nsp);
    em_gx_set_ints(c, node, "dilations", gm->d, gm->nsp);
    em_gx_set_ints(c, node, "pads", pads, 2 * gm->nsp);
    if (any_op) {
        em_gx_set_ints(c, node, "output_padding", op, gm->nsp);
    }
}

static int convt(em_gctx *c, int g, int w, const geom *gm, int x, int64_t group)
{
    const int in[2] = {g, w};
    if (g < 0 || w < 0) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_CONVTRANSPOSE, in, 2, 1, NULL);
    convt_attrs(c, ni, gm, x, g);
    if (group != 1) {
        em_gx_set_int(c, ni, "group", group);
    }
    return em_gx_end(c, ni);
}

/* Kernel sizes: W's spatial dims, else kernel_shape. */
static bool kernel_of(em_gctx *c, const em_node *n, int w, int nsp, int64_t *k)
{
    const int64_t *ks;
    int64_t cnt = em_node_attr_ints(n, "kernel_shape", &ks);
    for (int i = 0; i < nsp; i++) {
        k[i] = w >= 0 && em_gx_val(c, w)->rank == nsp + 2 ? em_gx_val(c, w)->dims[2 + i].v : -1;
        k[i] = k[i] < 0 && cnt == nsp ? ks[i] : k[i];
        if (k[i] < 1) {
            em_gx_fail(c, "the kernel size is not known at build time");
            return false;
        }
    }
    return true;
}

static int64_t perm_swap01(int64_t *perm, int r)
{
    for (int i = 0; i < r; i++) {
        perm[i] = i;
    }
    perm[0] = 1;
    perm[1] = 0;
    return r;
}

/* X [N, G Cg, S..] -> [Cg, G N, S..]; g [N, G Mg, O..] -> [G Mg, N, O..] (group order). */
static void group_operands(em_gctx *c, int x, int g, int64_t group, int nsp, int *xo, int *go)
{
    gx_dim d[EM_MAX_RANK];
    int64_t perm[EM_MAX_RANK];
    d[0] = em_gx_d(x, 0);
    d[1] = em_gx_k(group);
    d[2] = em_gx_k(-1);
    for (int i = 0; i < nsp; i++) {
        d[3 + i] = em_gx_d(x, 2 + i);
        perm[3 + i] = 3 + i;
    }
    perm[0] = 2, perm[1] = 1, perm[2] = 0;
    int t = em_gx_transpose(c, em_gx_reshape(c, x, em_gx_dims(c, d, nsp + 3)), perm, nsp + 3);
    d[0] = em_gx_d(t, 0);
    d[1] = em_gx_k(-1);
    for (int i = 0; i < nsp && t >= 0; i++) {
        d[2 + i] = em_gx_d(t, 3 + i);
    }
    *xo = t < 0 ? -1 : em_gx_reshape(c, t, em_gx_dims(c, d, nsp + 2));
    d[0] = em_gx_d(g, 0);
    d[1] = em_gx_k(group);
    d[2] = em_gx_k(-1);
    for (int i = 0; i < nsp; i++) {
        d[3 + i] = em_gx_d(g, 2 + i);
    }
    perm[0] = 1, perm[1] = 2, perm[2] = 0;
    t = em_gx_transpose(c, em_gx_reshape(c, g, em_gx_dims(c, d, nsp + 3)), perm, nsp + 3);
    d[0] = em_gx_k(-1);
    d[1] = em_gx_d(t, 2);
    for (int i = 0; i < nsp && t >= 0; i++) {
        d[2 + i] = em_gx_d(t, 3 + i);
    }
    *go = t < 0 ? -1 : em_gx_reshape(c, t, em_gx_dims(c, d, nsp + 2));
}

/* dW: see the file header. */
static int conv_dw(em_gctx *c, int x, int g, const geom *gm, int64_t group)
{
    int64_t perm[EM_MAX_RANK], zeros[EM_MAX_RANK], axes[EM_MAX_RANK];
    int64_t pads[2 * EM_MAX_RANK];
    int r = perm_swap01(perm, gm->nsp + 2), xo, go;
    if (group == 1) {
        xo = em_gx_transpose(c, x, perm, r);
        go = em_gx_transpose(c, g, perm, r);
    } else if (gm->nsp + 3 > EM_MAX_RANK) {
        em_gx_fail(c, "the weight gradient with groups needs rank %d (at most %d)", gm->nsp + 3,
                EM_MAX_RANK);
        return -1;
    } else {
        group_operands(c, x, g, group, gm->nsp, &xo, &go);
    }
    if (xo < 0 || go < 0) {
        return -1;
    }
    const int in[2] = {xo, go};
    int ni = em_gx_begin(c, EM_OP_CONV, in, 2, 1, NULL);
    for (int i = 0; i < gm->nsp; i++) {
        pads[i] = gm->pb[i];
        pads[gm->nsp + i] = gm->pe[i];
        zeros[i] = 0;
        axes[i] = 2 + i;
    }
    em_gx_set_ints(c, ni, "strides", gm->d, gm->nsp);
    em_gx_set_ints(c, ni, "dilations", gm->s, gm->nsp);
    em_gx_set_ints(c, ni, "pads", pads, 2 * gm->nsp);
    if (group != 1) {
        em_gx_set_int(c, ni, "group", group);
    }
    int full = em_gx_end(c, ni);
    bool exact = full >= 0;
    for (int i = 0; i < gm->nsp && exact; i++) {
        exact = em_gx_val(c, full)->dims[2 + i].v == gm->k[i];
    }
    if (!exact && full >= 0) {
        const int sl[4] = {full, em_gx_ints(c, zeros, gm->nsp), em_gx_ints(c, gm->k, gm->nsp),
                           em_gx_ints(c, axes, gm->nsp)};
        full = em_gx_ok(c) ? em_gx_end(c, em_gx_begin(c, EM_OP_SLICE, sl, 4, 1, NULL)) : -1;
    }
    return em_gx_transpose(c, full, perm, r);
}

void em_gx_rule_conv(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], w = n->in[1], b = n->n_in > 2 ? n->in[2] : -1, g = gy[0];
    int64_t k[EM_MAX_RANK], axes[EM_MAX_RANK];
    int64_t group = em_node_attr_int(n, "group", 1);
    geom gm;
    int r = em_gx_val(c, x)->rank;
    if (r < 3 || !kernel_of(c, n, w, r - 2, k) || !read_geom(c, n, x, k, &gm)) {
        em_gx_fail(c, "the input rank or kernel is not known");
        return;
    }
    if (em_gx_needs(c, x)) {
        int dx = convt(c, g, w, &gm, x, group);
        em_gx_like(c, dx, x);
        em_gx_give(c, x, dx);
    }
    if (em_gx_needs(c, w)) {
        int dw = conv_dw(c, x, g, &gm, group);
        em_gx_like(c, dw, w);
        em_gx_give(c, w, dw);
    }
    if (em_gx_needs(c, b)) {
        axes[0] = 0;
        for (int i = 0; i < gm.nsp; i++) {
            axes[1 + i] = 2 + i;
        }
        em_gx_give(c, b, em_gx_reduce(c, EM_OP_REDUCESUM, g, axes, gm.nsp + 1, false));
    }
}

void em_gx_rule_maxpool(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    if (em_node_attr_int(n, "storage_order", 0) != 0 || g < 0) {
        if (g >= 0) {
            em_gx_fail(c, "the gradient needs storage_order 0");
        }
        return;
    }
    int idx = em_gx_forward_output(c, 1, EMBER_DTYPE_I64);
    /* A window wholly in the padding has index -1 and no input to send its gradient to. */
    int64_t zero = 0;
    int pad = em_gx_op2(c, EM_OP_LESS, idx, em_gx_ints(c, &zero, -1));
    g = em_gx_where(c, pad, em_gx_scalar(c, em_gx_val(c, g)->dtype, 0.0), g);
    em_gx_give(c, x, em_gx_scatter_flat(c, x, idx, g, "add"));
}

/* The per-window divisor of AveragePool, broadcastable to [N C, 1, O..]. */
static int avg_divisor(em_gctx *c, const em_node *n, int x, const geom *gm)
{
    ember_dtype dt = em_gx_val(c, x)->dtype;
    int64_t taps = 1;
    for (int i = 0; i < gm->nsp; i++) {
        taps *= gm->k[i];
    }
    bool ceil = em_node_attr_int(n, "ceil_mode", 0) != 0;
    if (em_node_attr_int(n, "count_include_pad", 0) != 0) {
        if (ceil) {
            em_gx_fail(c, "the gradient with both ceil_mode and count_include_pad is not "
                       "implemented");
            return -1;
        }
        return em_gx_scalar(c, dt, (double)taps);
    }
    gx_dim d[EM_MAX_RANK];
    int64_t pads[2 * EM_MAX_RANK];
    d[0] = d[1] = em_gx_k(1);
    for (int i = 0; i < gm->nsp; i++) {
        d[2 + i] = em_gx_d(x, 2 + i);
        pads[i] = gm->pb[i];
        pads[gm->nsp + i] = gm->pe[i];
    }
    int ones = em_gx_expand(c, em_gx_scalar(c, dt, 1.0), em_gx_dims(c, d, gm->nsp + 2));
    if (ones < 0) {
        return -1;
    }
    int ni = em_gx_begin(c, EM_OP_LPPOOL, &ones, 1, 1, NULL);
    em_gx_set_int(c, ni, "p", 1);
    em_gx_set_ints(c, ni, "kernel_shape", gm->k, gm->nsp);
    em_gx_set_ints(c, ni, "strides", gm->s, gm->nsp);
    em_gx_set_ints(c, ni, "dilations", gm->d, gm->nsp);
    em_gx_set_ints(c, ni, "pads", pads, 2 * gm->nsp);
    em_gx_set_int(c, ni, "ceil_mode", ceil);
    return em_gx_end(c, ni);
}

void em_gx_rule_averagepool(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    int64_t k[EM_MAX_RANK];
    gx_dim d[EM_MAX_RANK];
    geom gm;
    int r = em_gx_val(c, x)->rank;
    if (r < 3 || !kernel_of(c, n, -1, r - 2, k) || !read_geom(c, n, x, k, &gm)) {
        em_gx_fail(c, "the input rank or kernel_shape is not known");
        return;
    }
    /* [N, C, O..] -> [N C, 1, O..]: Reshape's 0 copies the dim at the same index. */
    d[0] = em_gx_k(-1);
    d[1] = em_gx_k(1);
    for (int i = 0; i < gm.nsp; i++) {
        d[2 + i] = em_gx_k(0);
    }
    int gp = em_gx_div(c, em_gx_reshape(c, g, em_gx_dims(c, d, r)), avg_divisor(c, n, x, &gm));
    d[0] = d[1] = em_gx_k(1);
    for (int i = 0; i < gm.nsp; i++) {
        d[2 + i] = em_gx_k(gm.k[i]);
    }
    int w = em_gx_expand(c, em_gx_scalar(c, em_gx_val(c, x)->dtype, 1.0), em_gx_dims(c, d, r));
    em_gx_give(c, x, em_gx_reshape_like(c, convt(c, gp, w, &gm, x, 1), x));
}

void em_gx_rule_globalaveragepool(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], g = gy[0];
    ember_dtype dt = em_gx_val(c, x)->dtype;
    int cnt = em_gx_div(c, em_gx_op1(c, EM_OP_SIZE, x), em_gx_op1(c, EM_OP_SIZE, g));
    int e = em_gx_expand(c, g, em_gx_shape_of(c, x));
    em_gx_like(c, e, x);
    em_gx_give(c, x, em_gx_div(c, e, em_gx_cast(c, cnt, dt)));
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
    em_gx_give_to_extrema(c, n, n->out[0], gy[0], EM_OP_GLOBALMAXPOOL, axes, r - 2);
}

static ember_dtype dt_of(const em_gctx *c, int v)
{
    return em_gx_val(c, v)->dtype;
}

static void batchnorm_training(em_gctx *c, const em_node *n, int g, const int64_t *axes, int na)
{
    int x = n->in[0], scale = n->in[1], r = em_gx_val(c, x)->rank, xhat, inv;
    em_gx_norm_moments(c, x, axes, na, em_node_attr_float(n, "epsilon", 1e-5f), &xhat, &inv);
    if (em_gx_needs(c, x)) {
        int dxhat = em_gx_mul(c, g, em_gx_per_channel(c, scale, r));
        em_gx_give(c, x, em_gx_norm_dx(c, dxhat, xhat, inv, axes, na));
    }
    if (em_gx_needs(c, scale)) {
        em_gx_give(c, scale, em_gx_reduce(c, EM_OP_REDUCESUM, em_gx_mul(c, g, xhat), axes, na, false));
    }
    if (em_gx_needs(c, n->in[2])) {
        em_gx_give(c, n->in[2], em_gx_reduce(c, EM_OP_REDUCESUM, g, axes, na, false));
    }
}

/* y = (x - mean) * scale * inv + B, inv = 1 / sqrt(var + eps), per channel. */
static void batchnorm_inference(em_gctx *c, const em_node *n, int g, const int64_t *axes, int na)
{
    int x = n->in[0], scale = n->in[1], b = n->in[2], mean = n->in[3], var = n->in[4];
    int r = em_gx_val(c, x)->rank;
    int e = em_gx_scalar(c, dt_of(c, x), em_node_attr_float(n, "epsilon", 1e-5f));
    int inv = em_gx_op1(c, EM_OP_RECIPROCAL, em_gx_op1(c, EM_OP_SQRT, em_gx_add(c, var, e)));
    if (em_gx_needs(c, x)) {
        em_gx_give(c, x, em_gx_mul(c, g, em_gx_per_channel(c, em_gx_mul(c, scale, inv), r)));
    }
    int gsum = em_gx_reduce(c, EM_OP_REDUCESUM, g, axes, na, false);
    em_gx_give(c, b, gsum);
    if (em_gx_needs(c, mean)) {
        em_gx_give(c, mean, em_gx_neg(c, em_gx_mul(c, gsum, em_gx_mul(c, scale, inv))));
    }
    if (!em_gx_needs(c, scale) && !em_gx_needs(c, var)) {
        return;
    }
    int xc = em_gx_sub(c, x, em_gx_per_channel(c, mean, r));
    int gxc = em_gx_reduce(c, EM_OP_REDUCESUM, em_gx_mul(c, g, xc), axes, na, false);
    if (em_gx_needs(c, scale)) {
        em_gx_give(c, scale, em_gx_mul(c, gxc, inv));
    }
    if (em_gx_needs(c, var)) {
        int inv3 = em_gx_mul(c, inv, em_gx_mul(c, inv, inv));
        int k = em_gx_scalar(c, dt_of(c, x), -0.5);
        em_gx_give(c, var, em_gx_mul(c, em_gx_mul(c, gxc, scale), em_gx_mul(c, k, inv3)));
    }
}

void em_gx_rule_batchnorm(em_gctx *c, const em_node *n, const int *gy)
{
    int64_t axes[EM_MAX_RANK];
    int r = em_gx_val(c, n->in[0])->rank;
    bool training = em_node_attr_int(n, "training_mode", 0) != 0;
    if (r < 2) {
        em_gx_fail(c, "the input rank is not known");
        return;
    }
    if ((n->n_out > 1 && gy[1] >= 0) || (n->n_out > 2 && gy[2] >= 0)) {
        em_gx_fail(c, "gradients through the running mean / variance are not implemented");
        return;
    }
    if (gy[0] < 0) {
        return;
    }
    int na = em_gx_not_channel(r, axes);
    if (training) {
        batchnorm_training(c, n, gy[0], axes, na);
    } else {
        batchnorm_inference(c, n, gy[0], axes, na);
    }
}

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
