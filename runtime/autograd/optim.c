/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Optimizers and learning-rate schedules (trainer.h), PyTorch 1.13's single-tensor formulas:
 *  SGD:   d = g + wd p; m = d on the first step, else momentum m + (1 - dampening) d;
 *         d = d + momentum m (Nesterov) or m; p -= lr d.
 *  Adam:  g += wd p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
 *         p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
 *  AdamW: p *= 1 - lr wd, then Adam without weight decay in the gradient.
 * State is kept in f32 as torch keeps it; each element's arithmetic is done in double.
 */
#include "autograd/trainer.h"

#include <math.h>

em_optim_cfg em_optim_defaults(em_optim_kind kind)
{
    em_optim_cfg c = {0};
    c.kind = kind;
    c.lr = kind == EM_OPTIM_SGD ? 0.01 : 1e-3;
    c.beta1 = 0.9;
    c.beta2 = 0.999;
    c.eps = 1e-8;
    c.weight_decay = kind == EM_OPTIM_ADAMW ? 0.01 : 0.0;
    c.sched = EM_LR_CONSTANT;
    c.factor = 1.0;
    return c;
}

double em_optim_lr(const em_optim_cfg *c, int64_t t)
{
    const double pi = 3.14159265358979323846;
    if (c->period <= 0 || t < 0) {
        return c->lr;
    }
    switch (c->sched) {
    case EM_LR_STEP: return c->lr * pow(c->factor, (double)(t / c->period));
    case EM_LR_COSINE:
        return c->factor + (c->lr - c->factor) * (1.0 + cos(pi * (double)t / (double)c->period)) /
                               2.0;
    case EM_LR_LINEAR_WARMUP: {
        double f = c->factor + (1.0 - c->factor) * (double)(t < c->period ? t : c->period) /
                                   (double)c->period;
        return c->lr * f;
    }
    case EM_LR_CONSTANT:
    default: return c->lr;
    }
}

static void sgd(const em_optim_cfg *c, double lr, int64_t t, float *p, const float *g, float *m,
                int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double d = (double)g[i] + c->weight_decay * (double)p[i];
        if (c->momentum != 0.0) {
            double b = t <= 1 ? d : c->momentum * (double)m[i] + (1.0 - c->dampening) * d;
            m[i] = (float)b;
            d = c->nesterov ? d + c->momentum * (double)m[i] : (double)m[i];
        }
        p[i] = (float)((double)p[i] - lr * d);
    }
}

static void adam(const em_optim_cfg *c, double lr, int64_t t, float *p, const float *g, float *m,
                 float *v, int64_t n)
{
    bool decoupled = c->kind == EM_OPTIM_ADAMW;
    double bc1 = 1.0 - pow(c->beta1, (double)t), bc2 = sqrt(1.0 - pow(c->beta2, (double)t));
    double step = lr / bc1;
    for (int64_t i = 0; i < n; i++) {
        double pi = p[i], gi = g[i];
        if (decoupled) {
            pi *= 1.0 - lr * c->weight_decay;
        } else {
            gi += c->weight_decay * pi;
        }
        m[i] = (float)(c->beta1 * (double)m[i] + (1.0 - c->beta1) * gi);
        v[i] = (float)(c->beta2 * (double)v[i] + (1.0 - c->beta2) * gi * gi);
        double denom = sqrt((double)v[i]) / bc2 + c->eps;
        p[i] = (float)(pi - step * (double)m[i] / denom);
    }
}

void em_optim_update(const em_optim_cfg *c, double lr, int64_t t, float *p, const float *g,
                     float *m, float *v, int64_t n)
{
    if (c->kind == EM_OPTIM_SGD) {
        sgd(c, lr, t, p, g, m, n);
    } else {
        adam(c, lr, t, p, g, m, v, n);
    }
}
