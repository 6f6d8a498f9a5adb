/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rules of the loss family (grad_internal.h). With per-position weight w (weight[t], 0
 * at ignore_index) and upstream e (g, or g / sum(w) for "mean"), d input = e w (softmax(x) -
 * onehot(t)) for SoftmaxCrossEntropyLoss and -e w onehot(t) for NegativeLogLikelihoodLoss,
 * along axis 1.
 */
#include "autograd/grad_internal.h"

static ember_dtype dt_of(const em_gctx *c, int v)
{
    return em_gx_val(c, v)->dtype;
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
