/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gradient rule of the random family's Dropout (grad_internal.h); the generators (RandomUniform,
 * Bernoulli, ...) have none.
 */
#include "autograd/grad_internal.h"

static ember_dtype dt_of(const em_gctx *c, int v)
{
    return em_gx_val(c, v)->dtype;
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
