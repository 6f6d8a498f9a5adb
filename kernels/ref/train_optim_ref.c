/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Adagrad-1, Adam-1 and Momentum-1 of ai.onnx.preview.training. Inputs R, T, then the groups
 * X..., G..., [V...], [H...] of n tensors each; outputs X_new..., then the new states in input
 * order. Per element, in double (g = norm_coefficient * x + G):
 *   Adagrad:  h' = h + g^2;  x' = x - r / (1 + t * decay_factor) * g / (sqrt(h') + epsilon)
 *   Adam:     v' = alpha v + (1 - alpha) g;  h' = beta h + (1 - beta) g^2;
 *             r' = t > 0 ? r sqrt(1 - beta^t) / (1 - alpha^t) : r;
 *             x' = (1 - norm_coefficient_post) (x - r' v' / (sqrt(h') + epsilon))
 *   Momentum: v' = alpha v + (t > 0 ? beta : 1) g;  standard x' = x - r v',
 *             nesterov x' = x - r (g + alpha v')
 * as the operator docs and their reference implementations (onnx/backend/test/case/node/
 * adagrad.py, adam.py, momentum.py) define them.
 */
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct optim_state {
    em_op op;
    int groups;  /* input groups: 3 (Adagrad, Momentum) or 4 (Adam) */
    int tensors; /* optimized tensors */
    bool nesterov;
    double alpha, beta, epsilon, decay, norm, norm_post;
} optim_state;

/* Reads a float attribute; `required` ones must be present. */
static ember_status *optim_attr(const em_kinfo *ki, const char *name, bool required, float dflt,
                                double *v)
{
    float f;
    if (required && em_node_attr(ki->node, name) == NULL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' is required", name);
    }
    ember_status *st = em_ref_attr_float(ki, name, dflt, &f);
    if (st == NULL && !isfinite(f)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' is not finite", name);
    }
    *v = f;
    return st;
}

static ember_status *optim_attrs(const em_kinfo *ki, optim_state *s)
{
    ember_status *st = NULL;
    const char *mode;
    if (s->op == EM_OP_ADAGRAD) {
        EMBER_TRY(optim_attr(ki, "decay_factor", false, 0.0f, &s->decay));
        EMBER_TRY(optim_attr(ki, "epsilon", false, 1e-6f, &s->epsilon));
        EMBER_TRY(optim_attr(ki, "norm_coefficient", false, 0.0f, &s->norm));
    } else if (s->op == EM_OP_ADAM) {
        EMBER_TRY(optim_attr(ki, "alpha", false, 0.9f, &s->alpha));
        EMBER_TRY(optim_attr(ki, "beta", false, 0.999f, &s->beta));
        EMBER_TRY(optim_attr(ki, "epsilon", false, 1e-6f, &s->epsilon));
        EMBER_TRY(optim_attr(ki, "norm_coefficient", false, 0.0f, &s->norm));
        EMBER_TRY(optim_attr(ki, "norm_coefficient_post", false, 0.0f, &s->norm_post));
    } else {
        EMBER_TRY(optim_attr(ki, "alpha", true, 0.0f, &s->alpha));
        EMBER_TRY(optim_attr(ki, "beta", true, 0.0f, &s->beta));
        EMBER_TRY(optim_attr(ki, "norm_coefficient", true, 0.0f, &s->norm));
        if (em_node_attr(ki->node, "mode") == NULL) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'mode' is required");
        }
        EMBER_TRY(em_ref_attr_string(ki, "mode", "standard", &mode));
        if (strcmp(mode, "standard") != 0 && strcmp(mode, "nesterov") != 0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "mode '%s' is neither 'standard' nor 'nesterov'", mode);
        }
        s->nesterov = strcmp(mode, "nesterov") == 0;
    }
    return NULL;
fail:
    return st;
}

/* R and T: one value each. */
static ember_status *optim_scalars(const em_kinfo *ki)
{
    ember_status *st = NULL;
    const em_tensor *r = &ki->in[0], *t = &ki->in[1];
    EMBER_TRY(em_ref_check_tensor(ki, r, EMBER_DTYPE_UNDEFINED, "input 0 (R)"));
    EMBER_TRY(em_ref_check_tensor(ki, t, EMBER_DTYPE_I64, "input 1 (T)"));
    if ((r->dtype != EMBER_DTYPE_F32 && r->dtype != EMBER_DTYPE_F64) || em_tensor_numel(r) != 1 ||
        r->rank > 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 (R) must be one float or double");
    }
    if (em_tensor_numel(t) != 1 || t->rank > 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 1 (T) must be one int64");
    }
    return NULL;
fail:
    return st;
}

/* Every tensor of a group has X_i's dtype (f32 or f64) and shape; so have the outputs. */
static ember_status *optim_tensors(const em_kinfo *ki, const optim_state *s)
{
    ember_status *st = NULL;
    char what[48];
    for (int i = 0; i < s->tensors; i++) {
        const em_tensor *x = &ki->in[2 + i];
        if (x->dtype != EMBER_DTYPE_F32 && x->dtype != EMBER_DTYPE_F64) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input %d (X) has dtype %s, expected f32 or f64", 2 + i,
                                em_dtype_name(x->dtype));
        }
        for (int g = 0; g < s->groups; g++) {
            int k = 2 + g * s->tensors + i;
            snprintf(what, sizeof what, "input %d", k);
            EMBER_TRY(em_ref_check_tensor(ki, &ki->in[k], x->dtype, what));
            EMBER_TRY(em_ref_check_shape(ki, &ki->in[k], x->dims, x->rank, what));
        }
        for (int g = 0; g < s->groups - 1; g++) {
            int k = g * s->tensors + i;
            snprintf(what, sizeof what, "output %d", k);
            EMBER_TRY(em_ref_check_tensor(ki, &ki->out[k], x->dtype, what));
            EMBER_TRY(em_ref_check_shape(ki, &ki->out[k], x->dims, x->rank, what));
        }
    }
    return NULL;
fail:
    return st;
}

ember_status *em_optimizer_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    optim_state s;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    s.op = ki->node->op;
    s.groups = s.op == EM_OP_ADAM ? 4 : 3;
    s.tensors = (ki->n_in - 2) / s.groups;
    if (ki->n_in < 2 + s.groups || (ki->n_in - 2) % s.groups != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "%d inputs: expected R, T and %d groups of as many tensors", ki->n_in,
                            s.groups);
    }
    if (ki->n_out != (s.groups - 1) * s.tensors) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%d outputs, expected %d", ki->n_out,
                            (s.groups - 1) * s.tensors);
    }
    EMBER_TRY(optim_scalars(ki));
    EMBER_TRY(optim_tensors(ki, &s));
    EMBER_TRY(optim_attrs(ki, &s));
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

/* One tensor: elements of in[x], in[g], in[v] (or -1), in[h] (or -1) into the outputs. */
typedef struct optim_item {
    const em_tensor *x, *g, *v, *h;
    em_tensor *x_out, *v_out, *h_out;
} optim_item;

static void optim_one(const optim_state *s, double r, int64_t t, const optim_item *it)
{
    ember_dtype dt = it->x->dtype;
    int64_t n = em_tensor_numel(it->x);
    double r_adagrad = r / (1.0 + (double)t * s->decay);
    double r_adam =
        t > 0 ? r * sqrt(1.0 - pow(s->beta, (double)t)) / (1.0 - pow(s->alpha, (double)t)) : r;
    double beta_adj = t > 0 ? s->beta : 1.0;
    for (int64_t i = 0; i < n; i++) {
        double x = em_tref_get(dt, it->x->data, i);
        double g = s->norm * x + em_tref_get(dt, it->g->data, i);
        if (s->op == EM_OP_ADAGRAD) {
            double h = em_tref_get(dt, it->h->data, i) + g * g;
            em_tref_set(dt, it->h_out->data, i, h);
            em_tref_set(dt, it->x_out->data, i, x - r_adagrad * g / (sqrt(h) + s->epsilon));
        } else if (s->op == EM_OP_ADAM) {
            double v = s->alpha * em_tref_get(dt, it->v->data, i) + (1.0 - s->alpha) * g;
            double h = s->beta * em_tref_get(dt, it->h->data, i) + (1.0 - s->beta) * g * g;
            em_tref_set(dt, it->v_out->data, i, v);
            em_tref_set(dt, it->h_out->data, i, h);
            em_tref_set(dt, it->x_out->data, i,
                        (1.0 - s->norm_post) * (x - r_adam * v / (sqrt(h) + s->epsilon)));
        } else {
            double v = s->alpha * em_tref_get(dt, it->v->data, i) + beta_adj * g;
            em_tref_set(dt, it->v_out->data, i, v);
            em_tref_set(dt, it->x_out->data, i,
                        s->nesterov ? x - r * (g + s->alpha * v) : x - r * v);
        }
    }
}

void em_optimizer__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const optim_state *s = state;
    const int n = s->tensors;
    double r = em_tref_get(in[0].dtype, in[0].data, 0);
    int64_t t = *(const int64_t *)in[1].data;
    (void)ctx;
    for (int i = 0; i < n; i++) {
        optim_item it = {&in[2 + i], &in[2 + n + i], NULL, NULL, &out[i], NULL, NULL};
        if (s->op == EM_OP_ADAGRAD) {
            it.h = &in[2 + 2 * n + i];
            it.h_out = &out[n + i];
        } else if (s->op == EM_OP_ADAM) {
            it.v = &in[2 + 2 * n + i];
            it.h = &in[2 + 3 * n + i];
            it.v_out = &out[n + i];
            it.h_out = &out[2 * n + i];
        } else {
            it.v = &in[2 + 2 * n + i];
            it.v_out = &out[n + i];
        }
        optim_one(s, r, t, &it);
    }
}
