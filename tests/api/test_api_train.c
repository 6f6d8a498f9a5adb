/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trainer (ember.h section 11) against PyTorch 1.13 (fixtures in tests/data/train, made by
 * tools/gen_train_fixtures.py): an MLP (Linear-ReLU-Linear) and a CNN (Conv-BatchNorm frozen-
 * ReLU-MaxPool-Flatten-Linear), each from its .onnx export and its traced .pt. Checked:
 *  - the trainable parameters are exactly PyTorch's named_parameters (BatchNorm's running
 *    statistics are not), and every gradient is within rtol 1e-3 (atol 1e-5 of the largest) of
 *    PyTorch's, with the loss within 1e-5 relative, for cross-entropy (mean, sum, label
 *    smoothing 0.1), NLL, MSE, L1, smooth L1 and BCE with logits;
 *  - the losses of 5 steps of SGD with momentum and weight decay, SGD with Nesterov, Adam and
 *    AdamW, and the loss after the fifth, within 1e-4 relative of PyTorch's; the model saved
 *    after them, loaded again, gives that last loss;
 *  - train / freeze patterns, learning-rate schedules applied to the update (p - lr_t g), the
 *    schedule formulas themselves;
 *  - what a user gets wrong: targets of the wrong dtype, rank, shape or class range, patterns
 *    that match nothing, a parameter that does not reach the loss, a NaN loss (STATE naming the
 *    step, parameters unchanged), a .pt save of an ONNX model or an unwritable save path
 *    (nothing left behind), a model loaded with fused ops.
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "autograd/trainer.h"
#include "common/test_data.h"
#include "common/test_ok.h"
#include "common/test_train.h"


/* The model `file` of fixture `dir`, at graph optimization `level`, input 0 fixed to x's shape
 * (TorchScript needs it). */
static ember_model *load_model_at(const char *dir, const char *file, ember_graph_opt level)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    ember_tensor *x = test_train_npy(dir, "x.npy");
    ember_model_options *o = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&o));
    OK(ember_model_options_set_graph_optimization(o, level));
    OK(ember_model_options_set_input_shape_at(o, 0, ember_tensor_dims(x), ember_tensor_rank(x)));
    OK(ember_model_load_file(test_data_path("train/", rel), o, &m));
    ember_model_options_destroy(o);
    ember_tensor_destroy(x);
    return m;
}

static ember_model *load_model(const char *dir, const char *file)
{
    return load_model_at(dir, file, EMBER_GRAPH_OPT_NONE);
}

static bool skip_format(const char *file)
{
    return strstr(file, ".pt") != NULL ? !test_have_loader("torchscript") : !test_have_loader("onnx");
}

static double npy_scalar(const char *dir, const char *file, int i)
{
    ember_tensor *t = test_train_npy(dir, file);
    double v = ((const double *)ember_tensor_data(t))[i];
    ember_tensor_destroy(t);
    return v;
}

static void expect_close(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want) + 1e-12)) {
        fail_msg("%s: %.9g, PyTorch %.9g (relative tolerance %g)", what, got, want, rel);
    }
}

typedef struct loss_case {
    const char *name;
    ember_loss loss;
    ember_reduction red;
    double smoothing;
    bool float_target;
} loss_case;

static const loss_case CASES[] = {
    {"ce", EMBER_LOSS_CROSS_ENTROPY, EMBER_REDUCTION_MEAN, 0.0, false},
    {"ce_sum", EMBER_LOSS_CROSS_ENTROPY, EMBER_REDUCTION_SUM, 0.0, false},
    {"ce_ls", EMBER_LOSS_CROSS_ENTROPY, EMBER_REDUCTION_MEAN, 0.1, false},
    {"nll", EMBER_LOSS_NLL, EMBER_REDUCTION_MEAN, 0.0, false},
    {"mse", EMBER_LOSS_MSE, EMBER_REDUCTION_MEAN, 0.0, true},
    {"l1", EMBER_LOSS_L1, EMBER_REDUCTION_MEAN, 0.0, true},
    {"smoothl1", EMBER_LOSS_SMOOTH_L1, EMBER_REDUCTION_MEAN, 0.0, true},
    {"bce", EMBER_LOSS_BCE_WITH_LOGITS, EMBER_REDUCTION_MEAN, 0.0, true},
};

static ember_trainer_options *case_options(const loss_case *c)
{
    ember_trainer_options *o = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_loss(o, c->loss, c->red));
    if (c->smoothing > 0.0) {
        OK(ember_trainer_options_set_label_smoothing(o, c->smoothing));
    }
    ember_trainer_options_set_threads(o, 1);
    return o;
}

/* Gradient of `name` against grad_<case>__<name>.npy: rtol 1e-3, atol 1e-5 of the largest. */
static void check_grad(const ember_trainer *t, const char *dir, const char *cname,
                       const char *name)
{
    char file[256];
    snprintf(file, sizeof file, "grad_%s__%s.npy", cname, name);
    ember_tensor *want = test_train_npy(dir, file), *got = NULL;
    OK(ember_trainer_param_grad(t, name, &got));
    int64_t n = ember_tensor_elem_count(want);
    assert_int_equal(ember_tensor_elem_count(got), n);
    assert_int_equal(ember_tensor_rank(got), ember_tensor_rank(want));
    const float *g = ember_tensor_data(got), *w = ember_tensor_data(want);
    double mx = 0.0;
    for (int64_t i = 0; i < n; i++) { /* a branch, not fmax: aarch64 gcc 12's vectorizer
                                         * crashes on that reduction */
        double v = fabs(w[i]);
        if (v > mx) {
            mx = v;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (!(fabs(g[i] - w[i]) <= 1e-3 * fabs(w[i]) + 1e-5 * mx)) {
            fail_msg("%s %s: d/d%s[%lld] = %.9g, PyTorch %.9g", dir, cname, name, (long long)i,
                     g[i], w[i]);
        }
    }
    ember_tensor_destroy(want);
    ember_tensor_destroy(got);
}

static void grads_of(const char *dir, const char *file, const char *const *params, int n_params,
                     const char *const *cases, int n_cases)
{
    if (skip_format(file)) {
        return;
    }
    ember_model *m = load_model(dir, file);
    ember_tensor *x = test_train_npy(dir, "x.npy"), *t = test_train_npy(dir, "t.npy");
    ember_tensor *tf = test_train_npy(dir, "tf.npy");
    for (int k = 0; k < n_cases; k++) {
        const loss_case *c = NULL;
        for (size_t j = 0; j < sizeof CASES / sizeof CASES[0]; j++) {
            c = strcmp(CASES[j].name, cases[k]) == 0 ? &CASES[j] : c;
        }
        assert_non_null(c);
        ember_trainer_options *o = case_options(c);
        ember_trainer *tr = NULL;
        OK(ember_trainer_create(m, o, &tr));
        assert_int_equal(ember_trainer_param_count(tr), n_params);
        for (int i = 0; i < n_params; i++) { /* the same set, in the model's value order */
            bool found = false;
            for (int j = 0; j < n_params; j++) {
                found = found || strcmp(ember_trainer_param_name(tr, (size_t)j), params[i]) == 0;
            }
            if (!found) {
                fail_msg("%s/%s: parameter %s is not trainable", dir, file, params[i]);
            }
        }
        double loss = 0.0;
        OK(ember_trainer_compute(tr, &x, 1, c->float_target ? tf : t, &loss));
        char file_loss[64];
        snprintf(file_loss, sizeof file_loss, "loss_%s.npy", c->name);
        expect_close(loss, npy_scalar(dir, file_loss, 0), 1e-5, c->name);
        for (int i = 0; i < n_params; i++) {
            check_grad(tr, dir, c->name, params[i]);
        }
        assert_int_equal(ember_trainer_step_count(tr), 0);
        ember_trainer_destroy(tr);
        ember_trainer_options_destroy(o);
    }
    ember_tensor_destroy(x);
    ember_tensor_destroy(t);
    ember_tensor_destroy(tf);
    ember_model_destroy(m);
}

static const char *const MLP_PARAMS[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
static const char *const CNN_PARAMS[] = {"conv.weight", "conv.bias", "bn.weight",
                                         "bn.bias",     "fc.weight", "fc.bias"};

static void test_grads_mlp(void **state)
{
    (void)state;
    const char *const cases[] = {"ce", "ce_sum", "ce_ls", "nll", "mse", "l1", "smoothl1", "bce"};
    grads_of("mlp", "model.onnx", MLP_PARAMS, 4, cases, 8);
    grads_of("mlp", "model.pt", MLP_PARAMS, 4, cases, 8);
}

static void test_grads_cnn(void **state)
{
    (void)state;
    const char *const cases[] = {"ce", "mse"};
    grads_of("cnn", "model.onnx", CNN_PARAMS, 6, cases, 2);
    grads_of("cnn", "model.pt", CNN_PARAMS, 6, cases, 2);
}

/* The optimizers of gen_train_fixtures.py's OPTIMS. */
static ember_trainer_options *optim_options(const char *name)
{
    ember_trainer_options *o = NULL;
    OK(ember_trainer_options_create(&o));
    ember_trainer_options_set_threads(o, 1);
    if (strcmp(name, "sgd") == 0) {
        OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_SGD, 0.1));
        OK(ember_trainer_options_set_sgd(o, 0.9, 0.0, false));
        OK(ember_trainer_options_set_weight_decay(o, 1e-3));
    } else if (strcmp(name, "nesterov") == 0) {
        OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_SGD, 0.05));
        OK(ember_trainer_options_set_sgd(o, 0.9, 0.0, true));
    } else if (strcmp(name, "adam") == 0) {
        OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_ADAM, 0.01));
    } else {
        OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_ADAMW, 0.01));
        OK(ember_trainer_options_set_weight_decay(o, 0.1));
    }
    return o;
}

static void steps_of(const char *dir, const char *file)
{
    static const char *const optims[] = {"sgd", "nesterov", "adam", "adamw"};
    if (skip_format(file)) {
        return;
    }
    ember_model *m = load_model(dir, file);
    ember_tensor *x = test_train_npy(dir, "x.npy"), *t = test_train_npy(dir, "t.npy");
    for (int k = 0; k < 4; k++) {
        char ref[64], what[128], path[256];
        snprintf(ref, sizeof ref, "steps_%s.npy", optims[k]);
        ember_trainer_options *o = optim_options(optims[k]);
        ember_trainer *tr = NULL;
        OK(ember_trainer_create(m, o, &tr));
        double loss = 0.0;
        for (int s = 0; s < 5; s++) {
            OK(ember_trainer_step(tr, &x, 1, t, &loss));
            snprintf(what, sizeof what, "%s/%s %s step %d", dir, file, optims[k], s + 1);
            expect_close(loss, npy_scalar(dir, ref, s), 1e-4, what);
        }
        assert_int_equal(ember_trainer_step_count(tr), 5);
        OK(ember_trainer_compute(tr, &x, 1, t, &loss));
        snprintf(what, sizeof what, "%s/%s %s after 5 steps", dir, file, optims[k]);
        expect_close(loss, npy_scalar(dir, ref, 5), 1e-4, what);
        assert_int_equal(ember_trainer_step_count(tr), 5);
        /* saved and loaded again: the same loss (the file is ONNX: only with its loader) */
        if (test_have_loader("onnx")) {
            snprintf(path, sizeof path, "/tmp/ember_train_%ld_%s.onnx", (long)getpid(),
                     optims[k]);
            OK(ember_trainer_save(tr, path));
            ember_model *saved = NULL;
            ember_trainer *tr2 = NULL;
            OK(ember_model_load_file(path, NULL, &saved));
            remove(path);
            ember_model *saved_none = NULL;
            ember_model_options *mo = NULL;
            OK(ember_model_options_create(&mo));
            OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
            OK(ember_trainer_save(tr, path));
            OK(ember_model_load_file(path, mo, &saved_none));
            remove(path);
            OK(ember_trainer_create(saved_none, o, &tr2));
            double loss2 = 0.0;
            OK(ember_trainer_compute(tr2, &x, 1, t, &loss2));
            expect_close(loss2, npy_scalar(dir, ref, 5), 1e-4, "saved model");
            ember_trainer_destroy(tr2);
            ember_model_destroy(saved_none);
            ember_model_options_destroy(mo);
            ember_model_destroy(saved);
        }
        ember_trainer_destroy(tr);
        ember_trainer_options_destroy(o);
    }
    ember_tensor_destroy(x);
    ember_tensor_destroy(t);
    ember_model_destroy(m);
}

static void test_steps(void **state)
{
    (void)state;
    steps_of("mlp", "model.onnx");
    steps_of("mlp", "model.pt");
    steps_of("cnn", "model.onnx");
    steps_of("cnn", "model.pt");
}

static void test_patterns(void **state)
{
    (void)state;
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *t = test_train_npy("mlp", "t.npy");
    for (int k = 0; k < 2; k++) { /* train fc2.* / freeze fc1.* */
        ember_trainer_options *o = NULL;
        ember_trainer *tr = NULL;
        OK(ember_trainer_options_create(&o));
        OK(k == 0 ? ember_trainer_options_add_train(o, "fc2.*")
                  : ember_trainer_options_add_freeze(o, "fc1.*"));
        OK(ember_trainer_create(m, o, &tr));
        assert_int_equal(ember_trainer_param_count(tr), 2);
        const char *p0 = ember_trainer_param_name(tr, 0), *p1 = ember_trainer_param_name(tr, 1);
        assert_true((strcmp(p0, "fc2.weight") == 0 && strcmp(p1, "fc2.bias") == 0) ||
                    (strcmp(p1, "fc2.weight") == 0 && strcmp(p0, "fc2.bias") == 0));
        assert_null(ember_trainer_param_name(tr, 2));
        double loss = 0.0;
        OK(ember_trainer_compute(tr, &x, 1, t, &loss));
        expect_close(loss, npy_scalar("mlp", "loss_ce.npy", 0), 1e-5, "pattern loss");
        check_grad(tr, "mlp", "ce", "fc2.weight");
        check_grad(tr, "mlp", "ce", "fc2.bias");
        ember_tensor *v = NULL;
        EXPECT_ERR(ember_trainer_param_value(tr, "fc1.weight", &v), EMBER_ERR_INVALID_ARG,
                   "fc1.weight", "not a trainable parameter");
        assert_null(v);
        ember_trainer_destroy(tr);
        ember_trainer_options_destroy(o);
    }
    const char *bad[] = {"conv*", "fc1.weigh"};
    for (int k = 0; k < 2; k++) {
        ember_trainer_options *o = NULL;
        ember_trainer *tr = (ember_trainer *)&k;
        OK(ember_trainer_options_create(&o));
        OK(k == 0 ? ember_trainer_options_add_train(o, bad[k])
                  : ember_trainer_options_add_freeze(o, bad[k]));
        EXPECT_ERR(ember_trainer_create(m, o, &tr), EMBER_ERR_INVALID_ARG, bad[k],
                   "matches no parameter", "fc1.weight");
        assert_null(tr);
        ember_trainer_options_destroy(o);
    }
    { /* everything frozen */
        ember_trainer_options *o = NULL;
        ember_trainer *tr = NULL;
        OK(ember_trainer_options_create(&o));
        OK(ember_trainer_options_add_freeze(o, "*"));
        EXPECT_ERR(ember_trainer_create(m, o, &tr), EMBER_ERR_INVALID_ARG,
                   "no trainable parameter");
        ember_trainer_options_destroy(o);
    }
    ember_tensor_destroy(x);
    ember_tensor_destroy(t);
    ember_model_destroy(m);
    /* a parameter the loss (on output 0) does not depend on */
    ember_model_options *mo = NULL;
    ember_model *two = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    OK(ember_model_load_file(test_data_path("train/", "two_heads.onnx"), mo, &two));
    ember_trainer_options *o = NULL;
    ember_trainer *tr = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_create(two, o, &tr)); /* all: head b is left out */
    assert_int_equal(ember_trainer_param_count(tr), 2);
    assert_non_null(strstr(ember_trainer_param_name(tr, 0), "a."));
    assert_non_null(strstr(ember_trainer_param_name(tr, 1), "a."));
    ember_trainer_destroy(tr);
    tr = NULL;
    OK(ember_trainer_options_add_train(o, "b.weight"));
    EXPECT_ERR(ember_trainer_create(two, o, &tr), EMBER_ERR_INVALID_ARG, "b.weight",
               "does not reach the loss");
    ember_trainer_options_destroy(o);
    ember_model_destroy(two);
    ember_model_options_destroy(mo);
}

static void test_schedule_formulas(void **state)
{
    (void)state;
    em_optim_cfg c = em_optim_defaults(EM_OPTIM_SGD);
    c.lr = 0.8;
    assert_true(fabs(em_optim_lr(&c, 7) - 0.8) < 1e-15);
    c.sched = EM_LR_STEP, c.period = 2, c.factor = 0.5;
    const double step[] = {0.8, 0.8, 0.4, 0.4, 0.2};
    for (int t = 0; t < 5; t++) {
        assert_true(fabs(em_optim_lr(&c, t) - step[t]) < 1e-15);
    }
    c.sched = EM_LR_COSINE, c.period = 4, c.factor = 0.1; /* eta_min 0.1 */
    assert_true(fabs(em_optim_lr(&c, 0) - 0.8) < 1e-15);
    assert_true(fabs(em_optim_lr(&c, 2) - 0.45) < 1e-12);
    assert_true(fabs(em_optim_lr(&c, 4) - 0.1) < 1e-12);
    c.sched = EM_LR_LINEAR_WARMUP, c.period = 4, c.factor = 0.25;
    const double warm[] = {0.2, 0.35, 0.5, 0.65, 0.8, 0.8};
    for (int t = 0; t < 6; t++) {
        assert_true(fabs(em_optim_lr(&c, t) - warm[t]) < 1e-12);
    }
}

/* Plain SGD under a step schedule: each step's update is exactly lr_t times the gradient. */
static void test_schedule_applied(void **state)
{
    (void)state;
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *t = test_train_npy("mlp", "t.npy");
    ember_trainer_options *o = NULL;
    ember_trainer *tr = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_SGD, 0.5));
    OK(ember_trainer_options_set_lr_schedule(o, EMBER_LR_STEP, 1, 0.1));
    OK(ember_trainer_create(m, o, &tr));
    const double lrs[] = {0.5, 0.05, 0.005};
    for (int s = 0; s < 3; s++) {
        ember_tensor *before = NULL, *after = NULL, *g = NULL;
        OK(ember_trainer_param_value(tr, "fc2.bias", &before));
        OK(ember_trainer_step(tr, &x, 1, t, NULL));
        OK(ember_trainer_param_value(tr, "fc2.bias", &after));
        OK(ember_trainer_param_grad(tr, "fc2.bias", &g));
        const float *b = ember_tensor_data(before), *a = ember_tensor_data(after);
        const float *gg = ember_tensor_data(g);
        for (int i = 0; i < 4; i++) {
            float want = (float)((double)b[i] - lrs[s] * (double)gg[i]);
            assert_true(fabsf(a[i] - want) <= 1e-7f * (1.0f + fabsf(want)));
        }
        assert_true(gg[0] != 0.0f);
        ember_tensor_destroy(before);
        ember_tensor_destroy(after);
        ember_tensor_destroy(g);
    }
    ember_trainer_destroy(tr);
    ember_trainer_options_destroy(o);
    ember_tensor_destroy(x);
    ember_tensor_destroy(t);
    ember_model_destroy(m);
}

static ember_tensor *tensor_of(ember_dtype dt, const int64_t *dims, int rank, const void *data)
{
    ember_tensor *t = NULL;
    OK(ember_tensor_create(dt, dims, rank, &t));
    memcpy(ember_tensor_data(t), data, ember_tensor_nbytes(t));
    return t;
}

static void test_bad_targets(void **state)
{
    (void)state;
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *tf = test_train_npy("mlp", "tf.npy");
    ember_trainer *tr = NULL, *mse = NULL;
    ember_trainer_options *o = NULL;
    OK(ember_trainer_create(m, NULL, &tr)); /* cross-entropy */
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_loss(o, EMBER_LOSS_MSE, EMBER_REDUCTION_MEAN));
    OK(ember_trainer_create(m, o, &mse));
    const int64_t d6[1] = {6}, d5[1] = {5}, d66[2] = {6, 1}, d63[2] = {6, 3};
    const int64_t cls_hi[6] = {0, 1, 2, 3, 4, 0}, cls_neg[6] = {0, -1, 0, 0, 0, 0};
    const int64_t ok5[5] = {0, 1, 2, 3, 0};
    const float f18[18] = {0};
    ember_tensor *bad[5] = {
        tensor_of(EMBER_DTYPE_I64, d6, 1, cls_hi), tensor_of(EMBER_DTYPE_I64, d6, 1, cls_neg),
        tf, /* float targets for cross-entropy */
        tensor_of(EMBER_DTYPE_I64, d66, 2, cls_hi), tensor_of(EMBER_DTYPE_I64, d5, 1, ok5)};
    const char *needle[5] = {"target[4] = 4", "target[1] = -1", "target is f32", "rank 2",
                             "target"};
    ember_tensor *p0 = NULL, *p1 = NULL;
    OK(ember_trainer_param_value(tr, "fc1.weight", &p0));
    for (int k = 0; k < 5; k++) {
        EXPECT_ERR(ember_trainer_step(tr, &x, 1, bad[k], NULL), EMBER_ERR_INVALID_ARG, needle[k]);
    }
    assert_int_equal(ember_trainer_step_count(tr), 0);
    OK(ember_trainer_param_value(tr, "fc1.weight", &p1));
    assert_memory_equal(ember_tensor_data(p0), ember_tensor_data(p1), ember_tensor_nbytes(p0));
    ember_tensor *g = NULL;
    EXPECT_ERR(ember_trainer_param_grad(tr, "fc1.weight", &g), EMBER_ERR_STATE, "before a step");
    /* MSE: int targets, the wrong shape */
    ember_tensor *f63 = tensor_of(EMBER_DTYPE_F32, d63, 2, f18);
    EXPECT_ERR(ember_trainer_step(mse, &x, 1, bad[0], NULL), EMBER_ERR_INVALID_ARG,
               "target is i64");
    EXPECT_ERR(ember_trainer_step(mse, &x, 1, f63, NULL), EMBER_ERR_INVALID_ARG, "target");
    /* the wrong number of inputs, NULL ones */
    ember_tensor *none[2] = {NULL, NULL};
    EXPECT_ERR(ember_trainer_step(tr, none, 2, tf, NULL), EMBER_ERR_INVALID_ARG, "2 inputs");
    EXPECT_ERR(ember_trainer_step(tr, none, 1, tf, NULL), EMBER_ERR_INVALID_ARG, "input 0");
    EXPECT_ERR(ember_trainer_step(tr, &x, 1, NULL, NULL), EMBER_ERR_INVALID_ARG, "target");
    for (int k = 0; k < 5; k++) {
        if (bad[k] != tf) {
            ember_tensor_destroy(bad[k]);
        }
    }
    ember_tensor_destroy(f63);
    ember_tensor_destroy(p0);
    ember_tensor_destroy(p1);
    ember_trainer_destroy(tr);
    ember_trainer_destroy(mse);
    ember_trainer_options_destroy(o);
    ember_tensor_destroy(x);
    ember_tensor_destroy(tf);
    ember_model_destroy(m);
}

static void test_nan_loss(void **state)
{
    (void)state;
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *t = test_train_npy("mlp", "t.npy");
    ember_tensor *xn = test_train_npy("mlp", "x.npy");
    ((float *)ember_tensor_data(xn))[3] = NAN;
    ember_trainer *tr = NULL;
    OK(ember_trainer_create(m, NULL, &tr));
    OK(ember_trainer_step(tr, &x, 1, t, NULL));
    ember_tensor *p0 = NULL, *p1 = NULL;
    OK(ember_trainer_param_value(tr, "fc2.weight", &p0));
    double loss = 0.0;
    EXPECT_ERR(ember_trainer_step(tr, &xn, 1, t, &loss), EMBER_ERR_STATE, "step 2",
               "loss is NaN", "not updated");
    assert_true(isnan(loss));
    assert_int_equal(ember_trainer_step_count(tr), 1);
    OK(ember_trainer_param_value(tr, "fc2.weight", &p1));
    assert_memory_equal(ember_tensor_data(p0), ember_tensor_data(p1), ember_tensor_nbytes(p0));
    ember_tensor_destroy(p0);
    ember_tensor_destroy(p1);
    ember_trainer_destroy(tr);
    ember_tensor_destroy(x);
    ember_tensor_destroy(xn);
    ember_tensor_destroy(t);
    ember_model_destroy(m);
}

static void test_save_errors(void **state)
{
    (void)state;
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_trainer *tr = NULL;
    OK(ember_trainer_create(m, NULL, &tr));
    EXPECT_ERR(ember_trainer_save(tr, "/tmp/ember_train_save.pt"), EMBER_ERR_UNSUPPORTED, ".pt",
               "only for a model loaded from a TorchScript archive", ".onnx");
    assert_int_equal(access("/tmp/ember_train_save.pt", F_OK), -1);
    EXPECT_ERR(ember_trainer_save(tr, "/nonexistent-dir-ember/out.onnx"), EMBER_ERR_IO,
               "/nonexistent-dir-ember/out.onnx");
    EXPECT_ERR(ember_trainer_save(tr, NULL), EMBER_ERR_INVALID_ARG, "path");
    EXPECT_ERR(ember_trainer_save(NULL, "x.onnx"), EMBER_ERR_INVALID_ARG, "trainer");
    ember_trainer_destroy(tr);
    ember_model_destroy(m);
}

/* Trains `o`'s optimizer on mlp for k steps from `m`; returns the trainer. */
static ember_trainer *trained(ember_model *m, const ember_trainer_options *o, ember_tensor *x,
                              ember_tensor *t, int k)
{
    ember_trainer *tr = NULL;
    OK(ember_trainer_create(m, o, &tr));
    for (int s = 0; s < k; s++) {
        OK(ember_trainer_step(tr, &x, 1, t, NULL));
    }
    return tr;
}

static void expect_same_params(const ember_trainer *a, const ember_trainer *b, const char *what)
{
    assert_int_equal(ember_trainer_param_count(a), ember_trainer_param_count(b));
    for (size_t i = 0; i < ember_trainer_param_count(a); i++) {
        const char *name = ember_trainer_param_name(a, i);
        ember_tensor *pa = NULL, *pb = NULL;
        OK(ember_trainer_param_value(a, name, &pa));
        OK(ember_trainer_param_value(b, name, &pb));
        if (memcmp(ember_tensor_data(pa), ember_tensor_data(pb), ember_tensor_nbytes(pa)) != 0) {
            fail_msg("%s: parameter %s differs from the uninterrupted run", what, name);
        }
        ember_tensor_destroy(pa);
        ember_tensor_destroy(pb);
    }
}

/* 5 steps in one go equal 2 steps, the model and the optimizer state saved, a new trainer on
 * the saved model given the state, and 3 more steps: bit for bit, for each optimizer, with a
 * learning-rate schedule that depends on the step count. */
static void test_resume(void **state)
{
    (void)state;
    static const char *const optims[] = {"sgd", "nesterov", "adam", "adamw"};
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *t = test_train_npy("mlp", "t.npy");
    char model_path[256], state_path[256];
    snprintf(model_path, sizeof model_path, "/tmp/ember_resume_%ld.onnx", (long)getpid());
    snprintf(state_path, sizeof state_path, "/tmp/ember_resume_%ld.state", (long)getpid());
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    for (int k = 0; k < 4; k++) {
        ember_trainer_options *o = optim_options(optims[k]);
        OK(ember_trainer_options_set_lr_schedule(o, EMBER_LR_COSINE, 4, 0.001));
        ember_trainer *whole = trained(m, o, x, t, 5);
        ember_trainer *first = trained(m, o, x, t, 2);
        OK(ember_trainer_save(first, model_path));
        OK(ember_trainer_save_state(first, state_path));
        ember_model *saved = NULL;
        OK(ember_model_load_file(model_path, mo, &saved));
        ember_trainer *rest = NULL;
        OK(ember_trainer_create(saved, o, &rest));
        OK(ember_trainer_load_state(rest, state_path));
        assert_int_equal(ember_trainer_step_count(rest), 2);
        for (int s = 0; s < 3; s++) {
            OK(ember_trainer_step(rest, &x, 1, t, NULL));
        }
        assert_int_equal(ember_trainer_step_count(rest), 5);
        expect_same_params(whole, rest, optims[k]);
        /* without the state the run differs (the check above has teeth) */
        ember_trainer *fresh = trained(saved, o, x, t, 3);
        ember_tensor *pa = NULL, *pb = NULL;
        const char *name = ember_trainer_param_name(whole, 0);
        OK(ember_trainer_param_value(whole, name, &pa));
        OK(ember_trainer_param_value(fresh, name, &pb));
        assert_true(memcmp(ember_tensor_data(pa), ember_tensor_data(pb),
                           ember_tensor_nbytes(pa)) != 0);
        ember_tensor_destroy(pa);
        ember_tensor_destroy(pb);
        ember_trainer_destroy(fresh);
        ember_trainer_destroy(rest);
        ember_model_destroy(saved);
        ember_trainer_destroy(first);
        ember_trainer_destroy(whole);
        ember_trainer_options_destroy(o);
    }
    remove(model_path);
    remove(state_path);
    ember_model_options_destroy(mo);
    ember_tensor_destroy(x);
    ember_tensor_destroy(t);
    ember_model_destroy(m);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_resume_errors(void **state)
{
    (void)state;
    if (skip_format(".onnx")) {
        skip();
    }
    ember_model *m = load_model("mlp", "model.onnx");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *t = test_train_npy("mlp", "t.npy");
    char path[256], bad[256];
    snprintf(path, sizeof path, "/tmp/ember_state_%ld.state", (long)getpid());
    snprintf(bad, sizeof bad, "/tmp/ember_state_%ld.bad", (long)getpid());
    ember_trainer_options *sgd = optim_options("sgd"), *adam = optim_options("adam");
    ember_trainer *a = trained(m, adam, x, t, 1), *s = trained(m, sgd, x, t, 1);
    OK(ember_trainer_save_state(a, path));
    EXPECT_ERR(ember_trainer_load_state(s, path), EMBER_ERR_INVALID_ARG, path, "Adam state",
               "optimizer is SGD");
    /* the file's bytes, cut and spoiled */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 64 && n < sizeof buf);
    ember_trainer *b = trained(m, adam, x, t, 3);
    ember_tensor *before = NULL, *after = NULL;
    OK(ember_trainer_param_value(b, ember_trainer_param_name(b, 0), &before));
    write_bytes(bad, buf, n - 5);
    EXPECT_ERR(ember_trainer_load_state(b, bad), EMBER_ERR_INVALID_MODEL, bad, "truncated");
    write_bytes(bad, "not a state at all", 18);
    EXPECT_ERR(ember_trainer_load_state(b, bad), EMBER_ERR_INVALID_MODEL, bad,
               "not an optimizer state");
    unsigned char spoiled[1 << 16];
    memcpy(spoiled, buf, n);
    spoiled[8] = 9; /* the version */
    write_bytes(bad, spoiled, n);
    EXPECT_ERR(ember_trainer_load_state(b, bad), EMBER_ERR_INVALID_MODEL, "version 9");
    memcpy(spoiled, buf, n);
    spoiled[n] = 0; /* a byte too many */
    write_bytes(bad, spoiled, n + 1);
    EXPECT_ERR(ember_trainer_load_state(b, bad), EMBER_ERR_INVALID_MODEL, "after the last");
    memcpy(spoiled, buf, n);
    spoiled[36] ^= 0x40; /* inside the first parameter's name */
    write_bytes(bad, spoiled, n);
    EXPECT_ERR(ember_trainer_load_state(b, bad), EMBER_ERR_INVALID_MODEL,
               "is not one this trainer trains");
    for (size_t cut = 0; cut < n; cut += 7) { /* every prefix fails cleanly */
        write_bytes(bad, buf, cut);
        ember_status *st = ember_trainer_load_state(b, bad);
        assert_non_null(st);
        assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
        ember_status_destroy(st);
    }
    /* failed loads left b as it was */
    assert_int_equal(ember_trainer_step_count(b), 3);
    OK(ember_trainer_param_value(b, ember_trainer_param_name(b, 0), &after));
    assert_memory_equal(ember_tensor_data(before), ember_tensor_data(after),
                        ember_tensor_nbytes(before));
    /* a trainer of fewer parameters */
    ember_trainer_options *frozen = optim_options("adam");
    OK(ember_trainer_options_add_freeze(frozen, ember_trainer_param_name(a, 0)));
    ember_trainer *fz = NULL;
    OK(ember_trainer_create(m, frozen, &fz));
    EXPECT_ERR(ember_trainer_load_state(fz, path), EMBER_ERR_INVALID_MODEL, "parameter count");
    EXPECT_ERR(ember_trainer_load_state(b, "/nonexistent-dir-ember/x.state"), EMBER_ERR_IO,
               "/nonexistent-dir-ember/x.state");
    EXPECT_ERR(ember_trainer_save_state(b, "/nonexistent-dir-ember/x.state"), EMBER_ERR_IO,
               "/nonexistent-dir-ember/x.state");
    EXPECT_ERR(ember_trainer_load_state(NULL, path), EMBER_ERR_INVALID_ARG, "trainer");
    EXPECT_ERR(ember_trainer_load_state(b, NULL), EMBER_ERR_INVALID_ARG, "path");
    EXPECT_ERR(ember_trainer_save_state(NULL, path), EMBER_ERR_INVALID_ARG, "trainer");
    EXPECT_ERR(ember_trainer_save_state(b, NULL), EMBER_ERR_INVALID_ARG, "path");
    remove(path);
    remove(bad);
    ember_tensor_destroy(before);
    ember_tensor_destroy(after);
    ember_trainer_destroy(fz);
    ember_trainer_options_destroy(frozen);
    ember_trainer_destroy(b);
    ember_trainer_destroy(a);
    ember_trainer_destroy(s);
    ember_trainer_options_destroy(sgd);
    ember_trainer_options_destroy(adam);
    ember_tensor_destroy(x);
    ember_tensor_destroy(t);
    ember_model_destroy(m);
}

static void test_bad_models_and_options(void **state)
{
    (void)state;
    ember_trainer_options *o = NULL;
    OK(ember_trainer_options_create(&o));
    EXPECT_ERR(ember_trainer_options_set_label_smoothing(o, 1.0), EMBER_ERR_INVALID_ARG, "[0, 1)");
    EXPECT_ERR(ember_trainer_options_set_sgd(o, 0.0, 0.0, true), EMBER_ERR_INVALID_ARG,
               "Nesterov");
    EXPECT_ERR(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_ADAM, 0.0),
               EMBER_ERR_INVALID_ARG, "learning rate");
    EXPECT_ERR(ember_trainer_options_set_adam(o, 1.0, 0.999, 1e-8), EMBER_ERR_INVALID_ARG,
               "betas");
    EXPECT_ERR(ember_trainer_options_set_lr_schedule(o, EMBER_LR_COSINE, 0, 0.0),
               EMBER_ERR_INVALID_ARG, "period");
    EXPECT_ERR(ember_trainer_options_add_train(o, ""), EMBER_ERR_INVALID_ARG, "empty");
    EXPECT_ERR(ember_trainer_options_set_loss(o, (ember_loss)17, EMBER_REDUCTION_MEAN),
               EMBER_ERR_INVALID_ARG, "unknown loss");
    ember_trainer_options_destroy(o);
    if (skip_format(".onnx")) {
        return;
    }
    /* fused ops (graph optimization all): no gradient rule, and the message says what to do */
    ember_model *m = load_model_at("cnn", "model.onnx", EMBER_GRAPH_OPT_ALL);
    ember_trainer *tr = NULL;
    EXPECT_ERR(ember_trainer_create(m, NULL, &tr), EMBER_ERR_UNSUPPORTED, "no gradient rule",
               "EMBER_GRAPH_OPT_NONE");
    assert_null(tr);
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grads_mlp),
        cmocka_unit_test(test_grads_cnn),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_schedule_formulas),
        cmocka_unit_test(test_schedule_applied),
        cmocka_unit_test(test_bad_targets),
        cmocka_unit_test(test_nan_loss),
        cmocka_unit_test(test_save_errors),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_resume_errors),
        cmocka_unit_test(test_bad_models_and_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
