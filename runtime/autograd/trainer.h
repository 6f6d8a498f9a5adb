/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Training graphs and optimizers (issue #22; the public face is ember.h's section 11,
 * runtime/api/train.c).
 *
 * em_train_build turns a model's graph into one graph that computes a loss and its gradients:
 *  - the model's graph is cloned (the model stays immutable; its sessions keep running);
 *  - the trainable parameters are chosen among its f32 initializers of rank >= 1 (all, or
 *    those matching the train patterns, less those matching a freeze pattern;
 *    BatchNormalization's running mean and variance are statistics, never trained) and become
 *    graph inputs, bound to the trainer's buffers at each step, so no kernel prepacks them;
 *    frozen ones stay constants;
 *  - a loss node chain reads model output 0 and a new graph input `target`;
 *  - em_autograd appends the backward of the loss against the parameters;
 *  - the graph's outputs become: the loss (f32 scalar), then one gradient per parameter.
 * The planner then plans forward and backward together (one arena, each saved activation
 * freed after its last backward reader).
 *
 * Inputs of the training graph, in order: the model's inputs, `target`, the parameters.
 *
 * optim.c: PyTorch's update rules (torch.optim.SGD, Adam, AdamW, defaults and bias
 * correction included) and learning-rate schedules, applied in place in C after each step.
 */
#ifndef EMBER_AUTOGRAD_TRAINER_H
#define EMBER_AUTOGRAD_TRAINER_H

#include "ir/graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum em_loss_kind {
    EM_LOSS_CE = 0,    /* cross-entropy over axis 1, integer class targets */
    EM_LOSS_NLL,       /* negative log-likelihood of log-probabilities, integer targets */
    EM_LOSS_MSE,       /* float targets of the output's shape */
    EM_LOSS_L1,
    EM_LOSS_SMOOTH_L1, /* beta 1 (PyTorch's default) */
    EM_LOSS_BCE        /* binary cross-entropy with logits, float targets in [0, 1] */
} em_loss_kind;

typedef struct em_train_spec {
    em_loss_kind loss;
    bool sum;                 /* reduction "sum"; "mean" otherwise */
    double label_smoothing;   /* CE only, in [0, 1) */
    int n_train;              /* glob patterns (* and ?) of parameters to train; none: all */
    const char *const *train;
    int n_freeze;             /* patterns of parameters to keep constant */
    const char *const *freeze;
    bool bn_train;            /* BatchNormalization with batch statistics (train_modes.c) */
    bool dropout_train;       /* Dropout on, seeded from `seed` */
    uint64_t seed;
} em_train_spec;

typedef struct em_train_graph {
    em_graph *g;       /* the training graph (owned) */
    int n_model_inputs;
    int n_params;
    char **names;      /* parameter names (owned, allocated with g->al) */
    int64_t n_classes; /* CE / NLL: the output's dim 1 when known, else -1 */
    int out_rank;      /* rank of model output 0 (-1 unknown) */
    /* BatchNormalization nodes in train mode (train_modes.c): after the gradients, the training
     * graph outputs per node its batch mean [C], biased batch variance [C] and Size(X) (i64) */
    int n_bn;
    int *bn_node;          /* node indices in g */
    char **bn_stat;        /* 2 per node: the running mean's and running variance's names */
    double *bn_momentum;   /* PyTorch's momentum: the weight of the batch value */
    int n_dropout;         /* Dropout nodes put in train mode */
} em_train_graph;

/* Builds the training graph of `src` (not changed). Errors: INVALID_ARG for a pattern that
 * matches no parameter (naming it and listing the parameters), no parameter at all, a
 * parameter a train pattern names that the loss does not depend on, a model output that does
 * not suit the loss; UNSUPPORTED for graphs with subgraphs or quantized values, and autodiff's
 * errors (an op without a gradient rule, naming the node). */
ember_status *em_train_build(const em_graph *src, const em_train_spec *spec, em_train_graph *out);
void em_train_graph_free(em_train_graph *tg);

/* train_modes.c: sets BatchNormalization / Dropout train mode on g per s (before autograd),
 * then (after it) adds the BatchNormalization statistics outputs. */
ember_status *em_train_set_modes(em_graph *g, const em_train_spec *s, em_train_graph *tg);
ember_status *em_train_mode_outputs(em_graph *g, em_train_graph *tg);

/* A clone of `src` whose initializers named names[0..n) read data[i] (borrowed: same dtype
 * and shape as the initializer), for saving the trained model. */
ember_status *em_train_export(const em_graph *src, int n, char *const *names, void *const *data,
                              em_graph **out);

/* Whether `name` matches glob `pat` (`*` any run, `?` one character). */
bool em_train_glob(const char *pat, const char *name);

/* ---- optim.c ---- */

typedef enum em_optim_kind { EM_OPTIM_SGD = 0, EM_OPTIM_ADAM, EM_OPTIM_ADAMW } em_optim_kind;
typedef enum em_lr_kind {
    EM_LR_CONSTANT = 0,
    EM_LR_STEP,          /* lr * gamma^floor(t / period) (torch StepLR) */
    EM_LR_COSINE,        /* eta_min + (lr - eta_min) (1 + cos(pi t / period)) / 2 (CosineAnnealingLR) */
    EM_LR_LINEAR_WARMUP  /* lr * (f + (1 - f) min(t, period) / period), f = factor (LinearLR) */
} em_lr_kind;

typedef struct em_optim_cfg {
    em_optim_kind kind;
    double lr, momentum, dampening, weight_decay;
    bool nesterov;
    double beta1, beta2, eps;
    em_lr_kind sched;
    int64_t period;  /* step size, T_max or warm-up steps (> 0 unless constant) */
    double factor;   /* gamma, eta_min or the warm-up's start factor */
} em_optim_cfg;

/* The learning rate of step t (0-based: the first step uses t = 0). */
double em_optim_lr(const em_optim_cfg *c, int64_t t);
/* One update of n parameters p from gradient g, PyTorch's formulas: `m` (momentum buffer or
 * Adam's first moment) and `v` (Adam's second moment, NULL for SGD) hold the state, zeros
 * before the first step; t is the step number from 1 (SGD's first step copies g into m). */
void em_optim_update(const em_optim_cfg *c, double lr, int64_t t, float *p, const float *g,
                     float *m, float *v, int64_t n);
/* The configuration's defaults: SGD lr 0.01 (torch has no default lr for SGD), Adam lr 1e-3,
 * betas (0.9, 0.999), eps 1e-8, AdamW weight decay 0.01. */
em_optim_cfg em_optim_defaults(em_optim_kind kind);

#endif /* EMBER_AUTOGRAD_TRAINER_H */
