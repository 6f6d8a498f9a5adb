/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember.h section 11, the trainer: options, the training graph run as a session of an
 * internal model (autograd/trainer.h builds it), the optimizer after each step (optim.c),
 * parameter and gradient copies, and saving through the ONNX writer.
 */
#include "api/api_internal.h"

#include "api/loaders.h"

#include "autograd/trainer.h"
#include "core/alloc.h"
#include "core/file_write.h"
#include "core/status.h"
#include "loaders/onnx/onnx_write.h"
#include "passes/passes.h"
#include "plan/fold.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Most train / freeze patterns one options object holds. */
#define EM_MAX_TRAIN_PATTERNS 64

struct ember_trainer_options {
    ember_loss loss;
    ember_reduction reduction;
    double label_smoothing;
    int n_train, n_freeze;
    char *train[EM_MAX_TRAIN_PATTERNS];
    char *freeze[EM_MAX_TRAIN_PATTERNS];
    em_optim_cfg optim;
    int threads;
    bool bn_train, dropout_train;
    uint64_t seed;
};

struct ember_trainer {
    const ember_model *src;
    ember_model *tm;     /* the training graph, as a model of its own */
    ember_session *s;
    ember_loss loss;
    em_optim_cfg optim;
    int n_model_inputs, n_params;
    char **names;        /* owned, allocated with src->al */
    ember_tensor **value, **grad;
    float **m, **v;      /* optimizer state per parameter (v: Adam only) */
    ember_tensor *loss_t;
    int64_t n_classes;   /* CE / NLL: C when known, else -1 */
    int out_rank;
    int64_t steps;
    bool have_grad;
    /* BatchNormalization in train mode (autograd/train_modes.c): per node, the running mean
     * and variance (model state, saved with the weights) and the step's batch statistics */
    int n_bn;
    char **bn_stat;        /* 2 per node (mean, var); owned */
    double *bn_momentum;   /* PyTorch's momentum (the batch value's weight) */
    ember_tensor **stat;   /* 2 per node: the running statistics */
    ember_tensor **bn_out; /* 3 per node: batch mean, biased batch variance, Size(X) */
};

/* ---- options ---- */

ember_status *ember_trainer_options_create(ember_trainer_options **out)
{
    if (out == NULL) {
        return em_api_null_arg("trainer_options_create", "out");
    }
    *out = em_calloc(NULL, 1, sizeof **out);
    if (*out == NULL) {
        return em_status_oom();
    }
    (*out)->optim = em_optim_defaults(EM_OPTIM_SGD);
    return NULL;
}

void ember_trainer_options_destroy(ember_trainer_options *o)
{
    if (o == NULL) {
        return;
    }
    for (int i = 0; i < o->n_train; i++) {
        em_free(NULL, o->train[i]);
    }
    for (int i = 0; i < o->n_freeze; i++) {
        em_free(NULL, o->freeze[i]);
    }
    em_free(NULL, o);
}

ember_status *ember_trainer_options_set_loss(ember_trainer_options *o, ember_loss loss,
                                             ember_reduction reduction)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_loss", "opts");
    }
    if ((unsigned)loss > EMBER_LOSS_BCE_WITH_LOGITS || (unsigned)reduction > EMBER_REDUCTION_SUM) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_loss: unknown loss %d or reduction %d",
                             (int)loss, (int)reduction);
    }
    o->loss = loss;
    o->reduction = reduction;
    return NULL;
}

ember_status *ember_trainer_options_set_label_smoothing(ember_trainer_options *o, double eps)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_label_smoothing", "opts");
    }
    if (!(eps >= 0.0 && eps < 1.0)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_label_smoothing: %g is not in [0, 1)", eps);
    }
    o->label_smoothing = eps;
    return NULL;
}

static ember_status *add_pattern(const char *fn, ember_trainer_options *o, const char *pat,
                                 char **list, int *n)
{
    if (o == NULL || pat == NULL) {
        return em_api_null_arg(fn, o == NULL ? "opts" : "pattern");
    }
    if (pat[0] == '\0' || *n >= EM_MAX_TRAIN_PATTERNS) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: %s", fn,
                             pat[0] == '\0' ? "empty pattern" : "too many patterns (64)");
    }
    list[*n] = em_strdup(NULL, pat);
    if (list[*n] == NULL) {
        return em_status_oom();
    }
    (*n)++;
    return NULL;
}

ember_status *ember_trainer_options_add_train(ember_trainer_options *o, const char *pattern)
{
    return add_pattern("trainer_options_add_train", o, pattern, o != NULL ? o->train : NULL,
                       o != NULL ? &o->n_train : NULL);
}

ember_status *ember_trainer_options_add_freeze(ember_trainer_options *o, const char *pattern)
{
    return add_pattern("trainer_options_add_freeze", o, pattern, o != NULL ? o->freeze : NULL,
                       o != NULL ? &o->n_freeze : NULL);
}

ember_status *ember_trainer_options_set_optimizer(ember_trainer_options *o, ember_optimizer opt,
                                                  double lr)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_optimizer", "opts");
    }
    if ((unsigned)opt > EMBER_OPTIMIZER_ADAMW || !(lr > 0.0) || !isfinite(lr)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_optimizer: unknown optimizer %d or learning "
                             "rate %g (must be > 0)", (int)opt, lr);
    }
    em_lr_kind sched = o->optim.sched;
    int64_t period = o->optim.period;
    double factor = o->optim.factor;
    o->optim = em_optim_defaults((em_optim_kind)opt);
    o->optim.lr = lr;
    o->optim.sched = sched;
    o->optim.period = period;
    o->optim.factor = factor;
    return NULL;
}

ember_status *ember_trainer_options_set_sgd(ember_trainer_options *o, double momentum,
                                            double dampening, bool nesterov)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_sgd", "opts");
    }
    if (!(momentum >= 0.0 && momentum < 1e6) || !(dampening >= 0.0 && dampening <= 1.0) ||
        (nesterov && (momentum <= 0.0 || dampening != 0.0))) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_sgd: momentum %g, dampening %g%s: momentum must "
                             "be >= 0, dampening in [0, 1], and Nesterov needs momentum > 0 and "
                             "dampening 0", momentum, dampening, nesterov ? ", nesterov" : "");
    }
    o->optim.momentum = momentum;
    o->optim.dampening = dampening;
    o->optim.nesterov = nesterov;
    return NULL;
}

ember_status *ember_trainer_options_set_adam(ember_trainer_options *o, double beta1, double beta2,
                                             double eps)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_adam", "opts");
    }
    if (!(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0) || !(eps > 0.0) ||
        !isfinite(eps)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_adam: betas (%g, %g) must be in [0, 1) and eps "
                             "%g > 0", beta1, beta2, eps);
    }
    o->optim.beta1 = beta1;
    o->optim.beta2 = beta2;
    o->optim.eps = eps;
    return NULL;
}

ember_status *ember_trainer_options_set_weight_decay(ember_trainer_options *o, double wd)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_weight_decay", "opts");
    }
    if (!(wd >= 0.0) || !isfinite(wd)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_weight_decay: %g must be >= 0", wd);
    }
    o->optim.weight_decay = wd;
    return NULL;
}

ember_status *ember_trainer_options_set_lr_schedule(ember_trainer_options *o,
                                                    ember_lr_schedule schedule, int64_t period,
                                                    double factor)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_lr_schedule", "opts");
    }
    if ((unsigned)schedule > EMBER_LR_LINEAR_WARMUP ||
        (schedule != EMBER_LR_CONSTANT && period <= 0) || !isfinite(factor) || factor < 0.0) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_lr_schedule: schedule %d, period %lld, factor "
                             "%g: the schedule must be one of ember_lr_schedule, the period > 0 "
                             "and the factor >= 0", (int)schedule, (long long)period, factor);
    }
    o->optim.sched = (em_lr_kind)schedule;
    o->optim.period = period;
    o->optim.factor = factor;
    return NULL;
}

ember_status *ember_trainer_options_set_batchnorm(ember_trainer_options *o,
                                                  ember_batchnorm_mode mode)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_batchnorm", "opts");
    }
    if ((unsigned)mode > EMBER_BATCHNORM_TRAIN) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer_options_set_batchnorm: unknown mode %d", (int)mode);
    }
    o->bn_train = mode == EMBER_BATCHNORM_TRAIN;
    return NULL;
}

ember_status *ember_trainer_options_set_dropout(ember_trainer_options *o, bool train,
                                                uint64_t seed)
{
    if (o == NULL) {
        return em_api_null_arg("trainer_options_set_dropout", "opts");
    }
    o->dropout_train = train;
    o->seed = seed;
    return NULL;
}

void ember_trainer_options_set_threads(ember_trainer_options *o, int n_threads)
{
    if (o != NULL) {
        o->threads = n_threads;
    }
}

/* ---- the trainer ---- */

void ember_trainer_destroy(ember_trainer *t)
{
    if (t == NULL) {
        return;
    }
    const ember_allocator *al = t->src->al;
    ember_session_destroy(t->s);
    ember_model_destroy(t->tm);
    for (int i = 0; i < t->n_params; i++) {
        if (t->names != NULL) {
            em_free(al, t->names[i]);
        }
        ember_tensor_destroy(t->value != NULL ? t->value[i] : NULL);
        ember_tensor_destroy(t->grad != NULL ? t->grad[i] : NULL);
        em_free(al, t->m != NULL ? t->m[i] : NULL);
        em_free(al, t->v != NULL ? t->v[i] : NULL);
    }
    for (int i = 0; i < 2 * t->n_bn; i++) {
        em_free(al, t->bn_stat != NULL ? t->bn_stat[i] : NULL);
        ember_tensor_destroy(t->stat != NULL ? t->stat[i] : NULL);
    }
    for (int i = 0; t->bn_out != NULL && i < 3 * t->n_bn; i++) {
        ember_tensor_destroy(t->bn_out[i]);
    }
    em_free(al, t->bn_stat);
    em_free(al, t->bn_momentum);
    em_free(al, t->stat);
    em_free(al, t->bn_out);
    em_free(al, t->names);
    em_free(al, t->value);
    em_free(al, t->grad);
    em_free(al, t->m);
    em_free(al, t->v);
    ember_tensor_destroy(t->loss_t);
    em_free(al, t);
}

/* The training graph as a model of its own (takes tg->g), its passes at FOLD level. */
static ember_status *train_model(const ember_model *src, em_train_graph *tg, ember_model **out)
{
    ember_model *m = em_calloc(src->al, 1, sizeof *m);
    if (m == NULL) {
        return em_status_oom();
    }
    m->alloc = src->alloc;
    m->al = src->al != NULL ? &m->alloc : NULL;
    m->log = src->log;
    m->log_ctx = src->log_ctx;
    m->log_level = src->log_level;
    m->format = src->format;
    m->graph_opt = EMBER_GRAPH_OPT_FOLD;
    m->g = tg->g;
    tg->g = NULL;
    *out = m;
    EM_RETURN_IF_ERROR(em_pack_cache_new(m->al, &m->packs));
    em_passes_options po = em_passes_level(EMBER_GRAPH_OPT_FOLD);
    po.eval = em_plan_eval_const;
    return em_passes_run(m->g, &po);
}

/* The parameters' buffers: values copied from the model, gradients, optimizer state. */
static ember_status *make_params(ember_trainer *t)
{
    const ember_allocator *al = t->src->al;
    size_t n = (size_t)t->n_params;
    t->value = em_calloc(al, n, sizeof *t->value);
    t->grad = em_calloc(al, n, sizeof *t->grad);
    t->m = em_calloc(al, n, sizeof *t->m);
    t->v = em_calloc(al, n, sizeof *t->v);
    if (t->value == NULL || t->grad == NULL || t->m == NULL || t->v == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < t->n_params; i++) {
        const em_value *x = &t->src->g->values[em_graph_find_value(t->src->g, t->names[i])];
        EM_RETURN_IF_ERROR(em_tensor_new_owned(al, EMBER_DTYPE_F32, x->init.dims, x->init.rank,
                                               &t->value[i]));
        EM_RETURN_IF_ERROR(em_tensor_new_owned(al, EMBER_DTYPE_F32, x->init.dims, x->init.rank,
                                               &t->grad[i]));
        memcpy(t->value[i]->t.data, x->init.data, t->value[i]->nbytes);
        size_t ne = (size_t)em_tensor_numel(&x->init) + 1;
        t->m[i] = em_calloc(al, ne, sizeof(float));
        t->v[i] = t->optim.kind != EM_OPTIM_SGD ? em_calloc(al, ne, sizeof(float)) : NULL;
        if (t->m[i] == NULL || (t->optim.kind != EM_OPTIM_SGD && t->v[i] == NULL)) {
            return em_status_oom();
        }
    }
    return em_tensor_new_owned(al, EMBER_DTYPE_F32, NULL, 0, &t->loss_t);
}

/* The running statistics of train-mode BatchNormalization (copied from the model) and the
 * buffers of the batch statistics each step returns. */
static ember_status *make_stats(ember_trainer *t)
{
    const ember_allocator *al = t->src->al;
    size_t n = (size_t)t->n_bn;
    t->stat = em_calloc(al, 2 * n + 1, sizeof *t->stat);
    t->bn_out = em_calloc(al, 3 * n + 1, sizeof *t->bn_out);
    if (t->stat == NULL || t->bn_out == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < 2 * t->n_bn; i++) {
        const em_value *x = &t->src->g->values[em_graph_find_value(t->src->g, t->bn_stat[i])];
        EM_RETURN_IF_ERROR(em_tensor_new_owned(al, EMBER_DTYPE_F32, x->init.dims, x->init.rank,
                                               &t->stat[i]));
        memcpy(t->stat[i]->t.data, x->init.data, t->stat[i]->nbytes);
        if (i % 2 == 0) {
            EM_RETURN_IF_ERROR(em_tensor_new_owned(al, EMBER_DTYPE_F32, x->init.dims,
                                                   x->init.rank, &t->bn_out[3 * (i / 2)]));
            EM_RETURN_IF_ERROR(em_tensor_new_owned(al, EMBER_DTYPE_F32, x->init.dims,
                                                   x->init.rank, &t->bn_out[3 * (i / 2) + 1]));
            EM_RETURN_IF_ERROR(em_tensor_new_owned(al, EMBER_DTYPE_I64, NULL, 0,
                                                   &t->bn_out[3 * (i / 2) + 2]));
        }
    }
    return NULL;
}

/* Checks the batch statistics of the last run: n = N x spatial > 1 per channel (PyTorch
 * refuses the same: the unbiased variance divides by n - 1). */
static ember_status *check_bn_batch(const ember_trainer *t)
{
    for (int k = 0; k < t->n_bn; k++) {
        int64_t ch = em_tensor_numel(&t->bn_out[3 * k]->t);
        int64_t size = *(const int64_t *)t->bn_out[3 * k + 2]->t.data;
        if (ch <= 0 || size / ch <= 1) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "trainer: BatchNormalization of '%s' in train mode needs more "
                                 "than one value per channel (got %lld); use a larger batch or "
                                 "frozen BatchNormalization", t->bn_stat[2 * k],
                                 (long long)(ch > 0 ? size / ch : 0));
        }
    }
    return NULL;
}

/* PyTorch's running-statistics update (train_modes.c gives the formula and the momentum
 * convention), in double. */
static void update_bn_stats(ember_trainer *t)
{
    for (int k = 0; k < t->n_bn; k++) {
        double m = t->bn_momentum[k];
        const float *mean = t->bn_out[3 * k]->t.data, *var = t->bn_out[3 * k + 1]->t.data;
        int64_t ch = em_tensor_numel(&t->bn_out[3 * k]->t);
        double n = (double)(*(const int64_t *)t->bn_out[3 * k + 2]->t.data / ch);
        float *rm = t->stat[2 * k]->t.data, *rv = t->stat[2 * k + 1]->t.data;
        for (int64_t c = 0; c < ch; c++) {
            rm[c] = (float)((1.0 - m) * rm[c] + m * mean[c]);
            rv[c] = (float)((1.0 - m) * rv[c] + m * var[c] * n / (n - 1.0));
        }
    }
}

ember_status *ember_trainer_create(const ember_model *model, const ember_trainer_options *opts,
                                   ember_trainer **out)
{
    ember_status *st = NULL;
    ember_trainer *t = NULL;
    ember_session_options *so = NULL;
    em_train_graph tg = {0};
    if (out == NULL) {
        return em_api_null_arg("trainer_create", "out");
    }
    *out = NULL;
    if (model == NULL) {
        return em_api_null_arg("trainer_create", "model");
    }
    EM_RETURN_IF_ERROR(em_model_restore_half(model)); /* it reads the weights themselves */
    ember_trainer_options dflt = {0};
    if (opts == NULL) {
        dflt.optim = em_optim_defaults(EM_OPTIM_SGD);
        opts = &dflt;
    }
    t = em_calloc(model->al, 1, sizeof *t);
    if (t == NULL) {
        return em_status_oom();
    }
    t->src = model;
    t->loss = opts->loss;
    t->optim = opts->optim;
    static const em_loss_kind kinds[] = {EM_LOSS_CE, EM_LOSS_NLL, EM_LOSS_MSE, EM_LOSS_L1,
                                         EM_LOSS_SMOOTH_L1, EM_LOSS_BCE};
    em_train_spec spec = {kinds[opts->loss], opts->reduction == EMBER_REDUCTION_SUM,
                          opts->label_smoothing, opts->n_train,
                          (const char *const *)opts->train, opts->n_freeze,
                          (const char *const *)opts->freeze, opts->bn_train,
                          opts->dropout_train, opts->seed};
    st = em_train_build(model->g, &spec, &tg);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED &&
        (model->graph_opt == EMBER_GRAPH_OPT_BASIC || model->graph_opt == EMBER_GRAPH_OPT_ALL)) {
        st = em_status_wrap(st, "trainer (load the model with EMBER_GRAPH_OPT_NONE: fused ops have "
                                "no gradient rule)");
    }
    if (st != NULL) {
        goto fail;
    }
    t->n_model_inputs = tg.n_model_inputs;
    t->n_params = tg.n_params;
    t->names = tg.names;
    tg.names = NULL;
    t->n_classes = tg.n_classes;
    t->out_rank = tg.out_rank;
    if (opts->bn_train && tg.n_bn == 0) {
        em_model_log(model, EMBER_LOG_WARN, "trainer: BatchNormalization train mode asked for, "
                     "but the model has no BatchNormalization node (folded into the "
                     "convolutions by the export?)");
    }
    if (opts->dropout_train && tg.n_dropout == 0) {
        em_model_log(model, EMBER_LOG_WARN, "trainer: Dropout train mode asked for, but the "
                     "model has no Dropout node (eval-mode exports and TorchScript drop them)");
    }
    t->n_bn = tg.n_bn;
    t->bn_stat = tg.bn_stat;
    t->bn_momentum = tg.bn_momentum;
    tg.bn_stat = NULL;
    tg.bn_momentum = NULL;
    em_free(model->al, tg.bn_node);
    tg.bn_node = NULL;
    EMBER_TRY(train_model(model, &tg, &t->tm));
    EMBER_TRY(make_params(t));
    EMBER_TRY(make_stats(t));
    EMBER_TRY(ember_session_options_create(&so));
    ember_session_options_set_threads(so, opts->threads);
    EMBER_TRY(ember_session_create(t->tm, so, &t->s));
    ember_session_options_destroy(so);
    *out = t;
    return NULL;
fail:
    ember_session_options_destroy(so);
    em_train_graph_free(&tg);
    ember_trainer_destroy(t);
    return st;
}

/* Target checks that the planner cannot make: dtype, rank, class range. */
static ember_status *check_target(const ember_trainer *t, const ember_tensor *target)
{
    bool classes = t->loss == EMBER_LOSS_CROSS_ENTROPY || t->loss == EMBER_LOSS_NLL;
    ember_dtype want = classes ? EMBER_DTYPE_I64 : EMBER_DTYPE_F32;
    int rank = classes ? t->out_rank - 1 : t->out_rank;
    if (target->kind != EMBER_VALUE_TENSOR || target->t.dtype != want || target->t.rank != rank) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "trainer: target is %s of rank %d; the loss needs %s of rank %d (%s)",
                             em_dtype_name(target->t.dtype), target->t.rank, em_dtype_name(want),
                             rank, classes ? "class indices: the output's shape less axis 1"
                                           : "the output's shape");
    }
    if (!classes) {
        return NULL;
    }
    const int64_t *c = target->t.data;
    int64_t n = em_tensor_numel(&target->t);
    for (int64_t i = 0; i < n; i++) {
        if (c[i] < 0 || (t->n_classes > 0 && c[i] >= t->n_classes)) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "trainer: target[%lld] = %lld is not a class index in [0, %lld)",
                                 (long long)i, (long long)c[i], (long long)t->n_classes);
        }
    }
    return NULL;
}

static ember_status *forward_backward(const char *fn, ember_trainer *t,
                                      ember_tensor *const *inputs, size_t n_inputs,
                                      const ember_tensor *target, double *loss)
{
    if (t == NULL || target == NULL || (inputs == NULL && n_inputs > 0)) {
        return em_api_null_arg(fn, t == NULL ? "trainer" : target == NULL ? "target" : "inputs");
    }
    if (n_inputs != (size_t)t->n_model_inputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: %zu inputs given, the model has %d", fn,
                             n_inputs, t->n_model_inputs);
    }
    for (size_t i = 0; i < n_inputs; i++) {
        if (inputs[i] == NULL) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "%s: input %zu is NULL", fn, i);
        }
    }
    EM_RETURN_IF_ERROR(check_target(t, target));
    size_t n_in = n_inputs + 1 + (size_t)t->n_params;
    size_t n_out = 1 + (size_t)t->n_params + 3 * (size_t)t->n_bn;
    ember_tensor **in = em_malloc(t->src->al, sizeof *in * (n_in + n_out));
    if (in == NULL) {
        return em_status_oom();
    }
    ember_tensor **out = in + n_in;
    memcpy(in, inputs, sizeof *in * n_inputs);
    in[n_inputs] = (ember_tensor *)target; /* read only: the session does not write inputs */
    out[0] = t->loss_t;
    for (int i = 0; i < t->n_params; i++) {
        in[n_inputs + 1 + (size_t)i] = t->value[i];
        out[1 + i] = t->grad[i];
    }
    for (int i = 0; i < 3 * t->n_bn; i++) {
        out[1 + t->n_params + i] = t->bn_out[i];
    }
    ember_status *st = ember_session_run(t->s, in, n_in, out, n_out);
    em_free(t->src->al, in);
    if (st != NULL) {
        return em_status_wrap(st, "%s", fn);
    }
    t->have_grad = true;
    EM_RETURN_IF_ERROR(check_bn_batch(t));
    double l = *(const float *)t->loss_t->t.data;
    if (loss != NULL) {
        *loss = l;
    }
    if (!isfinite(l)) {
        return em_status_new(EMBER_ERR_STATE, "%s: step %lld: the loss is %s; the parameters were "
                             "not updated", fn, (long long)t->steps + 1, isnan(l) ? "NaN" : "infinite");
    }
    return NULL;
}

ember_status *ember_trainer_compute(ember_trainer *t, ember_tensor *const *inputs,
                                    size_t n_inputs, const ember_tensor *target, double *loss)
{
    return forward_backward("trainer_compute", t, inputs, n_inputs, target, loss);
}

ember_status *ember_trainer_step(ember_trainer *t, ember_tensor *const *inputs, size_t n_inputs,
                                 const ember_tensor *target, double *loss)
{
    EM_RETURN_IF_ERROR(forward_backward("trainer_step", t, inputs, n_inputs, target, loss));
    double lr = em_optim_lr(&t->optim, t->steps);
    t->steps++;
    for (int i = 0; i < t->n_params; i++) {
        em_optim_update(&t->optim, lr, t->steps, t->value[i]->t.data, t->grad[i]->t.data, t->m[i],
                        t->v[i], em_tensor_numel(&t->value[i]->t));
    }
    update_bn_stats(t);
    return NULL;
}

int64_t ember_trainer_step_count(const ember_trainer *t)
{
    return t != NULL ? t->steps : 0;
}

size_t ember_trainer_param_count(const ember_trainer *t)
{
    return t != NULL ? (size_t)t->n_params : 0;
}

const char *ember_trainer_param_name(const ember_trainer *t, size_t i)
{
    return t != NULL && i < (size_t)t->n_params ? t->names[i] : NULL;
}

static ember_status *param_copy(const char *fn, const ember_trainer *t, const char *name,
                                bool grad, ember_tensor **out)
{
    if (out == NULL) {
        return em_api_null_arg(fn, "out");
    }
    *out = NULL;
    if (t == NULL || name == NULL) {
        return em_api_null_arg(fn, t == NULL ? "trainer" : "name");
    }
    for (int i = 0; i < t->n_params; i++) {
        if (strcmp(t->names[i], name) != 0) {
            continue;
        }
        if (grad && !t->have_grad) {
            return em_status_new(EMBER_ERR_STATE, "%s: no gradient of '%s' before a step", fn,
                                 name);
        }
        const ember_tensor *s = grad ? t->grad[i] : t->value[i];
        EM_RETURN_IF_ERROR(em_tensor_new_owned(NULL, EMBER_DTYPE_F32, s->t.dims, s->t.rank, out));
        memcpy((*out)->t.data, s->t.data, s->nbytes);
        return NULL;
    }
    for (int i = 0; !grad && i < 2 * t->n_bn; i++) {
        if (strcmp(t->bn_stat[i], name) == 0) {
            const ember_tensor *s = t->stat[i];
            EM_RETURN_IF_ERROR(em_tensor_new_owned(NULL, EMBER_DTYPE_F32, s->t.dims, s->t.rank,
                                                   out));
            memcpy((*out)->t.data, s->t.data, s->nbytes);
            return NULL;
        }
    }
    return em_status_new(EMBER_ERR_INVALID_ARG, "%s: '%s' is not a trainable parameter%s", fn,
                         name, grad ? "" : " or a running statistic");
}

ember_status *ember_trainer_param_value(const ember_trainer *t, const char *name,
                                        ember_tensor **out)
{
    return param_copy("trainer_param_value", t, name, false, out);
}

ember_status *ember_trainer_param_grad(const ember_trainer *t, const char *name,
                                       ember_tensor **out)
{
    return param_copy("trainer_param_grad", t, name, true, out);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The TorchScript archive the model was loaded from, its trained tensors rewritten
 * (loaders/torchscript/ts_save.c): parameters, running statistics, and num_batches_tracked
 * advanced by the steps taken (PyTorch counts every train-mode forward of a BatchNorm). */
static ember_status *save_pt(const ember_trainer *t, const char *path)
{
    const em_loader *ld = em_loader_named(t->src->format);
    if (ld == NULL || ld->save_weights == NULL || t->src->bytes == NULL) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "trainer_save: %s: a .pt archive is written only for a model loaded "
                             "from a TorchScript archive (this one is %s); save it as .onnx",
                             path, t->src->format != NULL ? t->src->format : "unknown");
    }
    size_t n = (size_t)t->n_params + 3 * (size_t)t->n_bn;
    em_weight_patch *w = em_calloc(t->src->al, n + 1, sizeof *w);
    char **nbt = em_calloc(t->src->al, (size_t)t->n_bn + 1, sizeof *nbt);
    ember_status *st = NULL;
    if (w == NULL || nbt == NULL) {
        st = em_status_oom();
        goto done;
    }
    size_t k = 0;
    for (int i = 0; i < t->n_params; i++, k++) {
        w[k] = (em_weight_patch){t->names[i], t->value[i]->t.data,
                                 em_tensor_numel(&t->value[i]->t), 0, false};
    }
    for (int i = 0; i < 2 * t->n_bn; i++, k++) {
        w[k] = (em_weight_patch){t->bn_stat[i], t->stat[i]->t.data,
                                 em_tensor_numel(&t->stat[i]->t), 0, false};
    }
    static const char suffix[] = ".running_mean";
    for (int i = 0; i < t->n_bn && t->steps > 0; i++) {
        const char *rm = t->bn_stat[2 * i];
        size_t len = strlen(rm), sl = sizeof suffix - 1;
        if (len < sl || strcmp(rm + len - sl, suffix) != 0) {
            continue;
        }
        nbt[i] = em_malloc(t->src->al, len + 32);
        if (nbt[i] == NULL) {
            st = em_status_oom();
            goto done;
        }
        snprintf(nbt[i], len + 32, "%.*s.num_batches_tracked", (int)(len - sl), rm);
        w[k++] = (em_weight_patch){nbt[i], NULL, 1, t->steps, true};
    }
    st = ld->save_weights(t->src->bytes, "the model's TorchScript archive", w, k, path,
                          t->src->al);
done:
    for (int i = 0; nbt != NULL && i < t->n_bn; i++) {
        em_free(t->src->al, nbt[i]);
    }
    em_free(t->src->al, nbt);
    em_free(t->src->al, w);
    return st != NULL ? em_status_wrap(st, "trainer_save") : NULL;
}

ember_status *ember_trainer_save(const ember_trainer *t, const char *path)
{
    if (t == NULL || path == NULL) {
        return em_api_null_arg("trainer_save", t == NULL ? "trainer" : "path");
    }
    if (ends_with(path, ".pt") || ends_with(path, ".pth")) {
        return save_pt(t, path);
    }
    size_t n = (size_t)t->n_params + 2 * (size_t)t->n_bn;
    void **data = em_malloc(t->src->al, sizeof *data * (n + 1));
    char **names = em_malloc(t->src->al, sizeof *names * (n + 1));
    if (data == NULL || names == NULL) {
        em_free(t->src->al, data);
        em_free(t->src->al, names);
        return em_status_oom();
    }
    for (int i = 0; i < t->n_params; i++) {
        data[i] = t->value[i]->t.data;
        names[i] = t->names[i];
    }
    for (int i = 0; i < 2 * t->n_bn; i++) {
        data[t->n_params + i] = t->stat[i]->t.data;
        names[t->n_params + i] = t->bn_stat[i];
    }
    em_graph *g = NULL;
    ember_status *st = em_train_export(t->src->g, (int)n, names, data, &g);
    if (st == NULL) {
        em_onnx_write_opts o = {0};
        for (size_t i = 0; i < t->src->n_opsets; i++) {
            const char *d = t->src->opset_domains[i];
            if (d[0] == '\0' || strcmp(d, "ai.onnx") == 0) {
                o.source_opset = t->src->opset_versions[i];
            }
        }
        st = em_onnx_write_file(g, path, &o);
    }
    em_graph_destroy(g);
    em_free(t->src->al, data);
    em_free(t->src->al, names);
    return st != NULL ? em_status_wrap(st, "trainer_save") : NULL;
}

/* ---- optimizer state (ember_trainer_save_state / load_state) ----
 * File, little-endian: "EMBEROPT", u32 version (1), u32 optimizer (em_optim_kind), i64 steps,
 * u32 parameter count, then per parameter: u32 name length, the name, u32 rank, i64 dims,
 * u32 buffer count (1: SGD's momentum; 2: Adam's moments), each buffer's f32 elements. */

static const char em_state_magic[8] = {'E', 'M', 'B', 'E', 'R', 'O', 'P', 'T'};
#define EM_STATE_VERSION 1u
#define EM_STATE_MAX_NAME 4096u

static const char *optim_name(uint32_t kind)
{
    static const char *const names[] = {"SGD", "Adam", "AdamW"};
    return kind < 3 ? names[kind] : "an unknown optimizer";
}

static void put_u32(em_afile *a, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    em_afile_write(a, b, 4);
}

static void put_i64(em_afile *a, int64_t v)
{
    put_u32(a, (uint32_t)((uint64_t)v & 0xffffffffu));
    put_u32(a, (uint32_t)((uint64_t)v >> 32));
}

/* f32 buffers are written as they are in memory: little-endian hosts only (checked). */
static bool host_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

ember_status *ember_trainer_save_state(const ember_trainer *t, const char *path)
{
    if (t == NULL || path == NULL) {
        return em_api_null_arg("trainer_save_state", t == NULL ? "trainer" : "path");
    }
    if (!host_little_endian()) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "trainer_save_state: big-endian host");
    }
    em_afile a;
    EM_RETURN_IF_ERROR(em_afile_open(path, &a));
    em_afile_write(&a, em_state_magic, sizeof em_state_magic);
    put_u32(&a, EM_STATE_VERSION);
    put_u32(&a, (uint32_t)t->optim.kind);
    put_i64(&a, t->steps);
    put_u32(&a, (uint32_t)t->n_params);
    uint32_t n_buf = t->optim.kind == EM_OPTIM_SGD ? 1u : 2u;
    for (int i = 0; i < t->n_params; i++) {
        const em_tensor *p = &t->value[i]->t;
        put_u32(&a, (uint32_t)strlen(t->names[i]));
        em_afile_write(&a, t->names[i], strlen(t->names[i]));
        put_u32(&a, (uint32_t)p->rank);
        for (int d = 0; d < p->rank; d++) {
            put_i64(&a, p->dims[d]);
        }
        put_u32(&a, n_buf);
        size_t bytes = (size_t)em_tensor_numel(p) * sizeof(float);
        em_afile_write(&a, t->m[i], bytes);
        if (n_buf == 2) {
            em_afile_write(&a, t->v[i], bytes);
        }
    }
    ember_status *st = em_afile_commit(&a);
    return st != NULL ? em_status_wrap(st, "trainer_save_state") : NULL;
}

typedef struct state_reader {
    FILE *f;
    const char *path;
} state_reader;

static ember_status *state_bad(const state_reader *r, const char *what)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: %s", r->path, what);
}

static ember_status *get_bytes(const state_reader *r, void *dst, size_t n, const char *what)
{
    if (n > 0 && fread(dst, 1, n, r->f) != n) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: truncated (%s)",
                             r->path, what);
    }
    return NULL;
}

static ember_status *get_u32(const state_reader *r, uint32_t *v, const char *what)
{
    unsigned char b[4];
    EM_RETURN_IF_ERROR(get_bytes(r, b, 4, what));
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return NULL;
}

static ember_status *get_i64(const state_reader *r, int64_t *v, const char *what)
{
    uint32_t lo, hi;
    EM_RETURN_IF_ERROR(get_u32(r, &lo, what));
    EM_RETURN_IF_ERROR(get_u32(r, &hi, what));
    *v = (int64_t)((uint64_t)hi << 32 | lo);
    return NULL;
}

/* One parameter record into fresh buffers m[k] / v[k] of parameter k of `t` (found by name). */
static ember_status *read_param(const state_reader *r, const ember_trainer *t, uint32_t n_buf,
                                float **m, float **v, bool *seen)
{
    uint32_t len, rank, nb;
    char name[EM_STATE_MAX_NAME + 1];
    EM_RETURN_IF_ERROR(get_u32(r, &len, "a parameter's name length"));
    if (len == 0 || len > EM_STATE_MAX_NAME) {
        return state_bad(r, "a parameter name of a bad length");
    }
    EM_RETURN_IF_ERROR(get_bytes(r, name, len, "a parameter's name"));
    name[len] = '\0';
    int k = -1;
    for (int i = 0; i < t->n_params && k < 0; i++) {
        k = strcmp(t->names[i], name) == 0 ? i : -1;
    }
    if (k < 0) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: parameter '%s' "
                             "is not one this trainer trains", r->path, name);
    }
    if (seen[k]) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: parameter '%s' "
                             "appears twice", r->path, name);
    }
    seen[k] = true;
    const em_tensor *p = &t->value[k]->t;
    EM_RETURN_IF_ERROR(get_u32(r, &rank, "a parameter's rank"));
    bool same = rank == (uint32_t)p->rank;
    for (uint32_t d = 0; d < rank && d < 8; d++) {
        int64_t dim;
        EM_RETURN_IF_ERROR(get_i64(r, &dim, "a parameter's dims"));
        same = same && dim == p->dims[d];
    }
    if (!same) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: parameter '%s' "
                             "has another shape than the model's", r->path, name);
    }
    EM_RETURN_IF_ERROR(get_u32(r, &nb, "a parameter's buffer count"));
    if (nb != n_buf) {
        return state_bad(r, "a buffer count that does not match the optimizer");
    }
    size_t ne = (size_t)em_tensor_numel(p);
    m[k] = em_calloc(t->src->al, ne + 1, sizeof(float));
    v[k] = n_buf == 2 ? em_calloc(t->src->al, ne + 1, sizeof(float)) : NULL;
    if (m[k] == NULL || (n_buf == 2 && v[k] == NULL)) {
        return em_status_oom();
    }
    EM_RETURN_IF_ERROR(get_bytes(r, m[k], ne * sizeof(float), "a state buffer"));
    return n_buf == 2 ? get_bytes(r, v[k], ne * sizeof(float), "a state buffer") : NULL;
}

/* The records of every parameter into m / v (zeroed arrays of n_params; filled on success). */
static ember_status *read_state(const state_reader *r, const ember_trainer *t, int64_t *steps,
                                float **m, float **v)
{
    char magic[8];
    uint32_t version, kind, n;
    EM_RETURN_IF_ERROR(get_bytes(r, magic, sizeof magic, "the header"));
    if (memcmp(magic, em_state_magic, sizeof magic) != 0) {
        return state_bad(r, "not an optimizer state written by ember_trainer_save_state");
    }
    EM_RETURN_IF_ERROR(get_u32(r, &version, "the version"));
    if (version != EM_STATE_VERSION) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: version %u "
                             "(this library reads %u)", r->path, version, EM_STATE_VERSION);
    }
    EM_RETURN_IF_ERROR(get_u32(r, &kind, "the optimizer"));
    if (kind != (uint32_t)t->optim.kind) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "trainer_load_state: %s holds %s state; "
                             "this trainer's optimizer is %s", r->path, optim_name(kind),
                             optim_name((uint32_t)t->optim.kind));
    }
    EM_RETURN_IF_ERROR(get_i64(r, steps, "the step count"));
    EM_RETURN_IF_ERROR(get_u32(r, &n, "the parameter count"));
    if (*steps < 0 || n != (uint32_t)t->n_params) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer_load_state: %s: %s (%lld steps, "
                             "%u parameters; this trainer trains %d)", r->path,
                             *steps < 0 ? "a negative step count" : "another parameter count",
                             (long long)*steps, n, t->n_params);
    }
    bool *seen = em_calloc(t->src->al, (size_t)t->n_params + 1, sizeof *seen);
    if (seen == NULL) {
        return em_status_oom();
    }
    ember_status *st = NULL;
    uint32_t n_buf = t->optim.kind == EM_OPTIM_SGD ? 1u : 2u;
    for (uint32_t i = 0; i < n && st == NULL; i++) {
        st = read_param(r, t, n_buf, m, v, seen);
    }
    if (st == NULL && fgetc(r->f) != EOF) {
        st = state_bad(r, "bytes after the last parameter");
    }
    em_free(t->src->al, seen);
    return st;
}

ember_status *ember_trainer_load_state(ember_trainer *t, const char *path)
{
    if (t == NULL || path == NULL) {
        return em_api_null_arg("trainer_load_state", t == NULL ? "trainer" : "path");
    }
    if (!host_little_endian()) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "trainer_load_state: big-endian host");
    }
    state_reader r = {fopen(path, "rb"), path};
    if (r.f == NULL) {
        return em_status_new(EMBER_ERR_IO, "trainer_load_state: cannot open %s", path);
    }
    const ember_allocator *al = t->src->al;
    size_t n = (size_t)t->n_params;
    float **m = em_calloc(al, n + 1, sizeof *m), **v = em_calloc(al, n + 1, sizeof *v);
    int64_t steps = 0;
    ember_status *st = m == NULL || v == NULL ? em_status_oom() : read_state(&r, t, &steps, m, v);
    fclose(r.f);
    for (size_t i = 0; i < n && m != NULL && v != NULL; i++) {
        if (st == NULL) { /* keep the new buffers, free the old */
            float *om = t->m[i], *ov = t->v[i];
            t->m[i] = m[i];
            t->v[i] = v[i];
            m[i] = om;
            v[i] = ov;
        }
        em_free(al, m[i]);
        em_free(al, v[i]);
    }
    em_free(al, m);
    em_free(al, v);
    if (st == NULL) {
        t->steps = steps;
    }
    return st;
}
