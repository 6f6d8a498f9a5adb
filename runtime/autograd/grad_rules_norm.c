/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the normalizations, Dropout and the losses (grad_internal.h).
 *
 * Normalization over axes A with batch statistics (BatchNormalization in training,
 * LayerNormalization): xhat = (x - mean) / sqrt(var + eps), y = xhat * scale + B, and with
 * dxhat = g * scale, dx = (dxhat - mean_A(dxhat) - xhat * mean_A(dxhat * xhat)) / sqrt(var +
 * eps). BatchNormalization in inference uses its mean / var inputs, all five get gradients.
 * The losses: with per-position weight w (weight[t], 0 at ignore_index) and upstream
 * e (g, or g / sum(w) for "mean"), d input = e w (softmax(x) - onehot(t)) for
 * SoftmaxCrossEntropyLoss and -e w onehot(t) for NegativeLogLikelihoodLoss, along axis 1.
 */
#include "autograd/grad_internal.h"

static ember_dtype dt_of(const em_gctx *c, int v)
{
    return em_gx_val(c, v)->dtype;
}

/* Axes 0, 2, 3, .. of rank r (every axis but the channel). */
static int not_channel(int r, int64_t *axes)
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
static int per_channel(em_gctx *c, int v, int r)
{
    int64_t axes[EM_MAX_RANK];
    for (int i = 0; i < r - 2; i++) {
        axes[i] = i + 1;
    }
    return em_gx_unsqueeze(c, v, axes, r - 2);
}

/* xhat and 1 / sqrt(var + eps) of x normalized over axes (keepdims). */
static void moments(em_gctx *c, int x, const int64_t *axes, int na, double eps, int *xhat,
                    int *inv)
{
    int mu = em_gx_reduce(c, EM_OP_REDUCEMEAN, x, axes, na, true);
    int xc = em_gx_sub(c, x, mu);
    int var = em_gx_reduce(c, EM_OP_REDUCEMEAN, em_gx_mul(c, xc, xc), axes, na, true);
    int e = em_gx_scalar(c, dt_of(c, x), eps);
    *inv = em_gx_op1(c, EM_OP_RECIPROCAL, em_gx_op1(c, EM_OP_SQRT, em_gx_add(c, var, e)));
    *xhat = em_gx_mul(c, xc, *inv);
}

static int norm_dx(em_gctx *c, int dxhat, int xhat, int inv, const int64_t *axes, int na)
{
    int m1 = em_gx_reduce(c, EM_OP_REDUCEMEAN, dxhat, axes, na, true);
    int m2 = em_gx_reduce(c, EM_OP_REDUCEMEAN, em_gx_mul(c, dxhat, xhat), axes, na, true);
    return em_gx_mul(c, inv, em_gx_sub(c, em_gx_sub(c, dxhat, m1), em_gx_mul(c, xhat, m2)));
}

static void batchnorm_training(em_gctx *c, const em_node *n, int g, const int64_t *axes, int na)
{
    int x = n->in[0], scale = n->in[1], r = em_gx_val(c, x)->rank, xhat, inv;
    moments(c, x, axes, na, em_node_attr_float(n, "epsilon", 1e-5f), &xhat, &inv);
    if (em_gx_needs(c, x)) {
        int dxhat = em_gx_mul(c, g, per_channel(c, scale, r));
        em_gx_give(c, x, norm_dx(c, dxhat, xhat, inv, axes, na));
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
        em_gx_give(c, x, em_gx_mul(c, g, per_channel(c, em_gx_mul(c, scale, inv), r)));
    }
    int gsum = em_gx_reduce(c, EM_OP_REDUCESUM, g, axes, na, false);
    em_gx_give(c, b, gsum);
    if (em_gx_needs(c, mean)) {
        em_gx_give(c, mean, em_gx_neg(c, em_gx_mul(c, gsum, em_gx_mul(c, scale, inv))));
    }
    if (!em_gx_needs(c, scale) && !em_gx_needs(c, var)) {
        return;
    }
    int xc = em_gx_sub(c, x, per_channel(c, mean, r));
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
    int na = not_channel(r, axes);
    if (training) {
        batchnorm_training(c, n, gy[0], axes, na);
    } else {
        batchnorm_inference(c, n, gy[0], axes, na);
    }
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
    moments(c, x, sp, r - 2, em_node_attr_float(n, "epsilon", 1e-5f), &xhat, &inv);
    if (em_gx_needs(c, x)) {
        int dxhat = em_gx_mul(c, g, per_channel(c, scale, r));
        em_gx_give(c, x, norm_dx(c, dxhat, xhat, inv, sp, r - 2));
    }
    int na = not_channel(r, axes);
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
    moments(c, x, axes, na, em_node_attr_float(n, "epsilon", 1e-5f), &xhat, &inv);
    if (em_gx_needs(c, x)) {
        em_gx_give(c, x, norm_dx(c, em_gx_mul(c, g, scale), xhat, inv, axes, na));
    }
    if (em_gx_needs(c, scale)) {
        em_gx_give(c, scale, em_gx_sum_to(c, em_gx_mul(c, g, xhat), scale));
    }
    if (em_gx_needs(c, b)) {
        em_gx_give(c, b, em_gx_sum_to(c, g, b));
    }
}

/* Dropout: identity when not training; else g * mask / (1 - ratio), the mask output added to
 * the forward node when it lacks it. training_mode may be a run-time value. */
void em_gx_rule_dropout(em_gctx *c, const em_node *n, const int *gy)
{
    int x = n->in[0], ratio = n->n_in > 1 ? n->in[1] : -1, tm = n->n_in > 2 ? n->in[2] : -1;
    const em_value *tv = tm >= 0 ? em_gx_val(c, tm) : NULL; /* read before building */
    bool constant = tv != NULL && tv->kind == EM_VAL_INITIALIZER && tv->init.data != NULL;
    if (gy[0] < 0) {
        return;
    }
    if (tv == NULL || (constant && *(const unsigned char *)tv->init.data == 0)) {
        em_gx_give(c, x, gy[0]);
        return;
    }
    ember_dtype dt = dt_of(c, x);
    int mask = em_gx_forward_output(c, 1, EMBER_DTYPE_BOOL);
    int one = em_gx_scalar(c, dt, 1.0);
    int r = ratio >= 0 ? em_gx_cast(c, ratio, dt) : em_gx_scalar(c, dt, 0.5);
    int scale = em_gx_div(c, one, em_gx_sub(c, one, r));
    if (!constant) {
        scale = em_gx_where(c, em_gx_cast(c, tm, EMBER_DTYPE_BOOL), scale, one);
    }
    em_gx_give(c, x, em_gx_mul(c, em_gx_mul(c, gy[0], em_gx_cast(c, mask, dt)), scale));
}

/* Per-position loss weights and safe targets (see the file header). *w is -1 when all are
 * 1; *t_safe has ignore_index replaced by 0, so that it indexes weights and OneHot. */
static void loss_weights(em_gctx *c, const em_node *n, ember_dtype dt, int *w, int *t_safe)
{
    int t = n->in[1], weight = n->n_in > 2 ? n->in[2] : -1, ign = -1;
    *t_safe = t;
    *w = -1;
    if (em_node_attr(n, "ignore_index") != NULL) {
        ember_dtype tdt = dt_of(c, t);
        int ii = em_gx_cast(c, em_gx_scalar(c, EMBER_DTYPE_I64,
                                      (double)em_node_attr_int(n, "ignore_index", 0)), tdt);
        ign = em_gx_op2(c, EM_OP_EQUAL, t, ii);
        *t_safe = em_gx_where(c, ign, em_gx_cast(c, em_gx_scalar(c, EMBER_DTYPE_I64, 0.0), tdt), t);
    }
    if (weight >= 0) {
        const int in[2] = {weight, *t_safe};
        if (em_gx_needs(c, weight)) {
            em_gx_fail(c, "the gradient with respect to the class weights is not implemented");
        }
        *w = em_gx_end(c, em_gx_begin(c, EM_OP_GATHER, in, 2, 1, NULL));
        if (ign >= 0) {
            *w = em_gx_where(c, ign, em_gx_scalar(c, dt, 0.0), *w);
        }
    } else if (ign >= 0) {
        *w = em_gx_cast(c, em_gx_op1(c, EM_OP_NOT, ign), dt);
    }
}

/* e * w per position, shaped [N, 1, d..] (or a scalar) to broadcast over the classes. */
static int loss_coef(em_gctx *c, const em_node *n, int g, int w, ember_dtype dt)
{
    const char *red = em_node_attr_string(n, "reduction", "mean");
    int e = g;
    if (red[0] == 'm') {
        int64_t all[EM_MAX_RANK];
        int r = w >= 0 ? em_gx_val(c, w)->rank : 0;
        for (int i = 0; i < r; i++) {
            all[i] = i;
        }
        int den = w >= 0 ? em_gx_reduce(c, EM_OP_REDUCESUM, w, all, r, false)
                         : em_gx_cast(c, em_gx_op1(c, EM_OP_SIZE, n->in[1]), dt);
        e = em_gx_div(c, g, den);
    }
    int coef = w >= 0 ? em_gx_mul(c, e, w) : e;
    int64_t one = 1;
    return coef >= 0 && em_gx_val(c, coef)->rank > 0 ? em_gx_unsqueeze(c, coef, &one, 1) : coef;
}

/* OneHot(t, C) along axis 1, dtype dt. */
static int onehot(em_gctx *c, int x, int t, ember_dtype dt)
{
    const double off_on[2] = {0.0, 1.0};
    gx_dim depth = em_gx_d(x, 1);
    const int in[3] = {t, em_gx_dims(c, &depth, 1), em_gx_floats(c, dt, off_on, 2)};
    int ni = em_gx_begin(c, EM_OP_ONEHOT, in, 3, 1, NULL);
    em_gx_set_int(c, ni, "axis", 1);
    return em_gx_end(c, ni);
}

static void loss_rule(em_gctx *c, const em_node *n, const int *gy, bool sce)
{
    int x = n->in[0], t_safe, w;
    ember_dtype dt = dt_of(c, x);
    if (!em_gx_needs(c, x)) {
        return;
    }
    if (em_gx_val(c, x)->rank < 2) {
        em_gx_fail(c, "the input rank is not known (or below 2)");
        return;
    }
    loss_weights(c, n, dt, &w, &t_safe);
    int p = -1;
    if (sce) {
        int ni = em_gx_begin(c, EM_OP_SOFTMAX, &x, 1, 1, NULL);
        em_gx_set_int(c, ni, "axis", 1);
        p = em_gx_end(c, ni);
    }
    if (gy[0] >= 0) {
        int oh = onehot(c, x, t_safe, dt);
        int coef = loss_coef(c, n, gy[0], w, dt);
        em_gx_give(c, x, sce ? em_gx_mul(c, em_gx_sub(c, p, oh), coef) : em_gx_neg(c, em_gx_mul(c, oh, coef)));
    }
    if (sce && n->n_out > 1 && gy[1] >= 0) { /* log_prob = LogSoftmax(x, axis 1) */
        int64_t one = 1;
        int s = em_gx_reduce(c, EM_OP_REDUCESUM, gy[1], &one, 1, true);
        em_gx_give(c, x, em_gx_sub(c, gy[1], em_gx_mul(c, p, s)));
    }
}

void em_gx_rule_sceloss(em_gctx *c, const em_node *n, const int *gy)
{
    loss_rule(c, n, gy, true);
}

void em_gx_rule_nllloss(em_gctx *c, const em_node *n, const int *gy)
{
    loss_rule(c, n, gy, false);
}
