/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trainer's train-mode semantics (ember.h section 11; autograd/train_modes.c):
 *  - BatchNormalization in train mode against PyTorch 1.13 (tests/data/train/cnn, made by
 *    tools/gen_train_fixtures.py) from the CNN's .onnx and traced .pt: the first step's
 *    gradients (through the batch statistics), the losses of 5 SGD-with-momentum steps, the
 *    running mean and variance after them (PyTorch's momentum, unbiased variance), and the
 *    eval-mode output of the saved model (the statistics are saved with the weights); and on
 *    bn1d.onnx (ONNX momentum 0.7) the update against the formula computed here, the loss
 *    against the train-mode forward, and the refusal of one value per channel;
 *  - Dropout in train mode (tests/data/train/dropout.onnx, y = Dropout(x * w, 0.25), loss L1
 *    sum against -10 so that d loss / d y = 1): every gradient of w is 0 or x / (1 - p), the
 *    dropped rate is near p, the loss is the forward through the same mask, masks change from
 *    step to step, repeat with the seed and change with it; off, the gradient is x;
 *  - saving a TorchScript archive (.pt): the CNN's model.pt after 5 steps (BatchNorm in train
 *    mode, then frozen) saved as .pt and loaded again runs to PyTorch's output after the same
 *    steps; the MLP's after Adam steps holds exactly the trained values; the file keeps its
 *    size (records rewritten in place); an unwritable path leaves nothing. (tests/cli checks
 *    that torch.jit.load opens the saved archive, when a Python with torch is found.)
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

#include "common/test_data.h"
#include "common/test_model.h"
#include "common/test_ok.h"
#include "common/test_train.h"


static bool skip_format(const char *file)
{
    return strstr(file, ".pt") != NULL ? !test_have_loader("torchscript") : !test_have_loader("onnx");
}


/* `path` at graph optimization NONE, input 0 fixed to `like`'s shape. */
static ember_model *load_path(const char *path, const ember_tensor *like)
{
    ember_model_options *o = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&o));
    OK(ember_model_options_set_graph_optimization(o, EMBER_GRAPH_OPT_NONE));
    OK(ember_model_options_set_input_shape_at(o, 0, ember_tensor_dims(like),
                                              ember_tensor_rank(like)));
    OK(ember_model_load_file(path, o, &m));
    ember_model_options_destroy(o);
    return m;
}

static ember_model *load_fixture(const char *dir, const char *file, const ember_tensor *like)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s%s%s", dir, dir[0] != '\0' ? "/" : "", file);
    return load_path(test_data_path("train/", rel), like);
}

static double npy_at(const char *dir, const char *file, int i)
{
    ember_tensor *t = test_train_npy(dir, file);
    double v = ((const double *)ember_tensor_data(t))[i];
    ember_tensor_destroy(t);
    return v;
}

/* |got - want| <= atol + rtol |want| elementwise, atol = aref * max |want| + 1e-7. */
static void expect_allclose(ember_tensor *got, ember_tensor *want, double rtol,
                            double aref, const char *what)
{
    size_t n = (size_t)ember_tensor_elem_count(want);
    assert_int_equal((size_t)ember_tensor_elem_count(got), n);
    const float *g = ember_tensor_data(got), *w = ember_tensor_data(want);
    double mx = 0.0;
    for (size_t i = 0; i < n; i++) {
        mx = fabs(w[i]) > mx ? fabs(w[i]) : mx;
    }
    for (size_t i = 0; i < n; i++) {
        double tol = aref * mx + 1e-7 + rtol * fabs(w[i]);
        if (!(fabs((double)g[i] - w[i]) <= tol)) {
            fail_msg("%s[%zu]: %.9g, PyTorch %.9g (tolerance %g)", what, i, (double)g[i],
                     (double)w[i], tol);
        }
    }
}

static void expect_close(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want) + 1e-12)) {
        fail_msg("%s: %.9g, PyTorch %.9g (relative tolerance %g)", what, got, want, rel);
    }
}

/* ---- BatchNormalization in train mode ---- */

static ember_trainer *bn_trainer(const ember_model *m, ember_batchnorm_mode mode)
{
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_SGD, 0.1));
    OK(ember_trainer_options_set_sgd(o, 0.9, 0.0, false));
    OK(ember_trainer_options_set_batchnorm(o, mode));
    OK(ember_trainer_create(m, o, &t));
    ember_trainer_options_destroy(o);
    return t;
}

static void check_against(const ember_trainer *t, const char *name, const char *fixture,
                          bool grad, double rtol, double aref)
{
    ember_tensor *got = NULL, *want = test_train_npy("cnn", fixture);
    if (grad) {
        OK(ember_trainer_param_grad(t, name, &got));
    } else {
        OK(ember_trainer_param_value(t, name, &got));
    }
    expect_allclose(got, want, rtol, aref, name);
    ember_tensor_destroy(got);
    ember_tensor_destroy(want);
}

/* The model saved by `t` to `path`, run in eval mode on x, against bntrain_out.npy. */
static void check_saved(const ember_trainer *t, const char *path, ember_tensor *x,
                        const char *want_file)
{
    OK(ember_trainer_save(t, path));
    ember_model *m = load_path(path, x);
    ember_session *s = NULL;
    ember_tensor *y = NULL, *want = test_train_npy("cnn", want_file);
    OK(ember_session_create(m, NULL, &s));
    OK(ember_tensor_create(EMBER_DTYPE_F32, ember_tensor_dims(want), ember_tensor_rank(want),
                           &y));
    OK(ember_session_run(s, &x, 1, &y, 1));
    expect_allclose(y, want, 1e-5, 1e-6, want_file);
    ember_tensor_destroy(y);
    ember_tensor_destroy(want);
    ember_session_destroy(s);
    ember_model_destroy(m);
    unlink(path);
}

static void bn_train_case(const char *file)
{
    static const char *const params[] = {"conv.weight", "conv.bias", "bn.weight", "bn.bias",
                                         "fc.weight", "fc.bias"};
    char buf[128], path[128];
    if (skip_format(file)) {
        skip();
    }
    ember_tensor *x = test_train_npy("cnn", "x.npy"), *tg = test_train_npy("cnn", "t.npy");
    ember_model *m = load_fixture("cnn", file, x);
    ember_trainer *t = bn_trainer(m, EMBER_BATCHNORM_TRAIN);
    double loss = 0.0;
    OK(ember_trainer_compute(t, &x, 1, tg, &loss));
    expect_close(loss, npy_at("cnn", "bntrain_steps.npy", 0), 1e-5, "first loss");
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        snprintf(buf, sizeof buf, "bntrain_grad__%s.npy", params[i]);
        check_against(t, params[i], buf, true, 1e-3, 1e-5);
    }
    /* the compute above must not have moved the running statistics: after 5 steps they are
     * PyTorch's after its 5 */
    for (int k = 0; k < 5; k++) {
        OK(ember_trainer_step(t, &x, 1, tg, &loss));
        snprintf(buf, sizeof buf, "%s step %d loss", file, k + 1);
        expect_close(loss, npy_at("cnn", "bntrain_steps.npy", k), 1e-4, buf);
    }
    check_against(t, "bn.running_mean", "bntrain_running_mean.npy", false, 1e-4, 1e-5);
    check_against(t, "bn.running_var", "bntrain_running_var.npy", false, 1e-4, 1e-5);
    ember_tensor *g = NULL;
    ember_status *st = ember_trainer_param_grad(t, "bn.running_mean", &g);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    /* saved as ONNX and reloaded: needs the ONNX loader (test_pt_save_bn_train saves .pt) */
    if (test_have_loader("onnx")) {
        snprintf(path, sizeof path, "/tmp/ember_test_bntrain_%ld.onnx", (long)getpid());
        check_saved(t, path, x, "bntrain_out.npy");
    }
    ember_trainer_destroy(t);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
    ember_tensor_destroy(tg);
}

static void test_bn_train_onnx(void **state)
{
    (void)state;
    bn_train_case("model.onnx");
}

static void test_bn_train_pt(void **state)
{
    (void)state;
    bn_train_case("model.pt");
}

/* FROZEN (the default, also set explicitly) keeps the stored statistics: the steps are
 * steps_sgd.npy's (momentum 0.9, weight decay 1e-3 there), and the statistics are no state. */
static void test_bn_frozen_explicit(void **state)
{
    (void)state;
    if (skip_format("model.onnx")) {
        skip();
    }
    ember_tensor *x = test_train_npy("cnn", "x.npy"), *tg = test_train_npy("cnn", "t.npy");
    ember_model *m = load_fixture("cnn", "model.onnx", x);
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_SGD, 0.1));
    OK(ember_trainer_options_set_sgd(o, 0.9, 0.0, false));
    OK(ember_trainer_options_set_weight_decay(o, 1e-3));
    OK(ember_trainer_options_set_batchnorm(o, EMBER_BATCHNORM_FROZEN));
    OK(ember_trainer_create(m, o, &t));
    double loss = 0.0;
    for (int k = 0; k < 5; k++) {
        OK(ember_trainer_step(t, &x, 1, tg, &loss));
        expect_close(loss, npy_at("cnn", "steps_sgd.npy", k), 1e-4, "frozen step loss");
    }
    ember_tensor *v = NULL;
    ember_status *st = ember_trainer_param_value(t, "bn.running_mean", &v);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = ember_trainer_options_set_batchnorm(o, (ember_batchnorm_mode)7);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = ember_trainer_options_set_batchnorm(NULL, EMBER_BATCHNORM_TRAIN);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    ember_trainer_options_destroy(o);
    ember_trainer_destroy(t);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
    ember_tensor_destroy(tg);
}

/* bn1d.onnx (ONNX momentum 0.7: PyTorch's m = 0.3) on x [n, 4], MSE against zeros. */
static ember_trainer *bn1d_trainer(ember_model **m, ember_tensor **x, ember_tensor **zero,
                                   int64_t n)
{
    const int64_t dims[2] = {n, 4};
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 2, x));
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 2, zero));
    float *xv = ember_tensor_data(*x);
    for (int64_t i = 0; i < n * 4; i++) {
        xv[i] = (float)((i * 37 % 11) - 5) * 0.3f + (float)(i % 4);
    }
    memset(ember_tensor_data(*zero), 0, (size_t)(n * 4) * sizeof(float));
    *m = load_fixture("", "bn1d.onnx", *x);
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_loss(o, EMBER_LOSS_MSE, EMBER_REDUCTION_MEAN));
    OK(ember_trainer_options_set_batchnorm(o, EMBER_BATCHNORM_TRAIN));
    OK(ember_trainer_create(*m, o, &t));
    ember_trainer_options_destroy(o);
    return t;
}

/* The running statistics against the formula computed here in double (unbiased variance,
 * m = 1 - 0.7), the loss against the train-mode forward; one value per channel refused. */
static void test_bn_running_formula(void **state)
{
    (void)state;
    if (skip_format("bn1d.onnx")) {
        skip();
    }
    static const float mean0[4] = {0.5f, -0.5f, 0.25f, 0.0f}, var0[4] = {1.0f, 2.0f, 0.5f, 1.5f};
    static const float scale[4] = {1.0f, 0.5f, 2.0f, 1.5f}, bias[4] = {0.0f, 0.1f, -0.2f, 0.3f};
    ember_model *m = NULL;
    ember_tensor *x = NULL, *zero = NULL, *rm = NULL, *rv = NULL;
    ember_trainer *t = bn1d_trainer(&m, &x, &zero, 1);
    EXPECT_ERR(ember_trainer_step(t, &x, 1, zero, NULL), EMBER_ERR_INVALID_ARG,
               "more than one value per channel");
    OK(ember_trainer_param_value(t, "mean", &rm));
    assert_memory_equal(ember_tensor_data(rm), mean0, sizeof mean0); /* not updated */
    ember_tensor_destroy(rm);
    ember_trainer_destroy(t);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
    ember_tensor_destroy(zero);

    const int n = 5;
    t = bn1d_trainer(&m, &x, &zero, n);
    double loss = 0.0, want_loss = 0.0;
    OK(ember_trainer_step(t, &x, 1, zero, &loss));
    OK(ember_trainer_param_value(t, "mean", &rm));
    OK(ember_trainer_param_value(t, "var", &rv));
    const float *xv = ember_tensor_data(x), *rmv = ember_tensor_data(rm);
    const float *rvv = ember_tensor_data(rv);
    for (int c = 0; c < 4; c++) {
        double mu = 0.0, ss = 0.0;
        for (int i = 0; i < n; i++) {
            mu += xv[i * 4 + c] / (double)n;
        }
        for (int i = 0; i < n; i++) {
            ss += (xv[i * 4 + c] - mu) * (xv[i * 4 + c] - mu);
        }
        for (int i = 0; i < n; i++) {
            double y = (xv[i * 4 + c] - mu) / sqrt(ss / n + 1e-5) * scale[c] + bias[c];
            want_loss += y * y / (4.0 * n);
        }
        expect_close(rmv[c], 0.7 * mean0[c] + 0.3 * mu, 1e-6, "running mean");
        expect_close(rvv[c], 0.7 * var0[c] + 0.3 * ss / (n - 1), 1e-6, "running var");
    }
    expect_close(loss, want_loss, 1e-6, "train-mode loss");
    ember_tensor_destroy(rm);
    ember_tensor_destroy(rv);
    ember_trainer_destroy(t);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
    ember_tensor_destroy(zero);
}

/* ---- Dropout in train mode ---- */

#define DN 64
#define DRATIO 0.25

typedef struct drop_fix {
    ember_tensor *x, *target;
    ember_model *m;
} drop_fix;

static void drop_setup(drop_fix *f)
{
    const int64_t dims[2] = {DN, DN};
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 2, &f->x));
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 2, &f->target));
    float *x = ember_tensor_data(f->x), *t = ember_tensor_data(f->target);
    for (int i = 0; i < DN * DN; i++) {
        x[i] = 0.5f + (float)(i % 7) / 7.0f; /* > 0, so |y - t| = y + 10 */
        t[i] = -10.0f;
    }
    f->m = load_fixture("", "dropout.onnx", f->x);
}

static void drop_teardown(drop_fix *f)
{
    ember_model_destroy(f->m);
    ember_tensor_destroy(f->x);
    ember_tensor_destroy(f->target);
}

static ember_trainer *drop_trainer(const drop_fix *f, bool train, uint64_t seed)
{
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_loss(o, EMBER_LOSS_L1, EMBER_REDUCTION_SUM));
    if (train) {
        OK(ember_trainer_options_set_dropout(o, true, seed));
    }
    OK(ember_trainer_create(f->m, o, &t));
    ember_trainer_options_destroy(o);
    return t;
}

/* One compute; keep[i] = whether element i was kept. Checks the gradient of w (0 where
 * dropped, x / (1 - p) where kept: d loss / d y = 1) and that the loss is the forward through
 * the same mask. Returns the number dropped. */
static int drop_compute(const drop_fix *f, ember_trainer *t, unsigned char *keep)
{
    double loss = 0.0;
    ember_tensor *g = NULL;
    OK(ember_trainer_compute(t, &f->x, 1, f->target, &loss));
    OK(ember_trainer_param_grad(t, "w", &g));
    const float *gv = ember_tensor_data(g), *x = ember_tensor_data(f->x);
    const double scale = 1.0 / (1.0 - DRATIO);
    double sum = 0.0;
    int dropped = 0;
    for (int i = 0; i < DN * DN; i++) {
        if (gv[i] == 0.0f) {
            keep[i] = 0;
            dropped++;
            continue;
        }
        keep[i] = 1;
        if (!(fabs(gv[i] - x[i] * scale) <= 1e-6 * x[i] * scale)) {
            fail_msg("grad w[%d] = %.9g: expected 0 or x / (1 - p) = %.9g", i, (double)gv[i],
                     x[i] * scale);
        }
        sum += x[i] * scale;
    }
    /* loss = sum over kept of x w / (1 - p) (w = 1) + 10 per element */
    double want = sum + 10.0 * DN * DN;
    if (!(fabs(loss - want) <= 1e-5 * want)) {
        fail_msg("loss %.9g, the forward through the backward's mask gives %.9g", loss, want);
    }
    ember_tensor_destroy(g);
    return dropped;
}

static int n_differ(const unsigned char *a, const unsigned char *b)
{
    int n = 0;
    for (int i = 0; i < DN * DN; i++) {
        n += a[i] != b[i];
    }
    return n;
}

static void test_dropout_train(void **state)
{
    (void)state;
    if (skip_format("dropout.onnx")) {
        skip();
    }
    static unsigned char k1[DN * DN], k2[DN * DN], k3[DN * DN], k4[DN * DN];
    drop_fix f;
    drop_setup(&f);
    ember_trainer *t = drop_trainer(&f, true, 42);
    int d1 = drop_compute(&f, t, k1), d2 = drop_compute(&f, t, k2);
    /* 4096 Bernoulli(0.25): standard deviation 0.0068 of the rate; 5 of them allowed */
    for (int d = 0; d < 2; d++) {
        double rate = (double)(d == 0 ? d1 : d2) / (DN * DN);
        if (!(fabs(rate - DRATIO) <= 0.034)) {
            fail_msg("dropped rate %g, ratio %g", rate, DRATIO);
        }
    }
    assert_true(n_differ(k1, k2) > DN * DN / 8); /* a new mask each step */
    ember_trainer_destroy(t);
    t = drop_trainer(&f, true, 42);
    drop_compute(&f, t, k3);
    assert_int_equal(n_differ(k1, k3), 0); /* the same seed, the same first mask */
    ember_trainer_destroy(t);
    t = drop_trainer(&f, true, 43);
    drop_compute(&f, t, k4);
    assert_true(n_differ(k1, k4) > DN * DN / 8);
    ember_trainer_destroy(t);
    drop_teardown(&f);
}

/* Off (the default): Dropout is the identity, the gradient of w is x everywhere. */
static void test_dropout_off(void **state)
{
    (void)state;
    if (skip_format("dropout.onnx")) {
        skip();
    }
    drop_fix f;
    drop_setup(&f);
    ember_trainer *t = drop_trainer(&f, false, 0);
    double loss = 0.0;
    ember_tensor *g = NULL;
    OK(ember_trainer_compute(t, &f.x, 1, f.target, &loss));
    OK(ember_trainer_param_grad(t, "w", &g));
    const float *gv = ember_tensor_data(g), *x = ember_tensor_data(f.x);
    for (int i = 0; i < DN * DN; i++) {
        assert_float_equal(gv[i], x[i], 0.0);
    }
    ember_tensor_destroy(g);
    ember_trainer_destroy(t);
    ember_status *st = ember_trainer_options_set_dropout(NULL, true, 1);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    drop_teardown(&f);
}

/* ---- saving .pt ---- */

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0) {
        n = ftell(f);
    }
    if (f != NULL) {
        fclose(f);
    }
    return n;
}

static void pt_path(char *buf, size_t cap, const char *tag)
{
    snprintf(buf, cap, "/tmp/ember_test_%s_%ld.pt", tag, (long)getpid());
}

/* CNN from model.pt, 5 SGD steps in `mode`, saved as .pt: the reload runs to `want`. */
static void pt_case(ember_batchnorm_mode mode, double wd, const char *want)
{
    if (skip_format("model.pt")) {
        skip();
    }
    char path[128];
    pt_path(path, sizeof path, mode == EMBER_BATCHNORM_TRAIN ? "bn" : "frozen");
    ember_tensor *x = test_train_npy("cnn", "x.npy"), *tg = test_train_npy("cnn", "t.npy");
    ember_model *m = load_fixture("cnn", "model.pt", x);
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_SGD, 0.1));
    OK(ember_trainer_options_set_sgd(o, 0.9, 0.0, false));
    OK(ember_trainer_options_set_weight_decay(o, wd));
    OK(ember_trainer_options_set_batchnorm(o, mode));
    OK(ember_trainer_create(m, o, &t));
    for (int k = 0; k < 5; k++) {
        OK(ember_trainer_step(t, &x, 1, tg, NULL));
    }
    OK(ember_trainer_save(t, path));
    assert_int_equal(file_size(path), file_size(test_data_path("train/", "cnn/model.pt")));
    check_saved(t, path, x, want); /* saves again over it, then loads and runs */
    ember_trainer_options_destroy(o);
    ember_trainer_destroy(t);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
    ember_tensor_destroy(tg);
}

static void test_pt_save_bn_train(void **state)
{
    (void)state;
    pt_case(EMBER_BATCHNORM_TRAIN, 0.0, "bntrain_out.npy");
}

static void test_pt_save_frozen(void **state)
{
    (void)state;
    pt_case(EMBER_BATCHNORM_FROZEN, 1e-3, "frozen_out.npy");
}

/* The MLP after 3 Adam steps: a trainer of the saved archive starts from exactly the trained
 * values; an unwritable path fails with IO and leaves nothing. */
static void test_pt_save_exact(void **state)
{
    (void)state;
    if (skip_format("model.pt")) {
        skip();
    }
    char path[128];
    pt_path(path, sizeof path, "mlp");
    ember_tensor *x = test_train_npy("mlp", "x.npy"), *tg = test_train_npy("mlp", "t.npy");
    ember_model *m = load_fixture("mlp", "model.pt", x);
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL, *t2 = NULL;
    OK(ember_trainer_options_create(&o));
    OK(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_ADAM, 0.01));
    OK(ember_trainer_create(m, o, &t));
    for (int k = 0; k < 3; k++) {
        OK(ember_trainer_step(t, &x, 1, tg, NULL));
    }
    EXPECT_ERR(ember_trainer_save(t, "/nonexistent-dir-ember/out.pt"), EMBER_ERR_IO,
               "/nonexistent-dir-ember/out.pt");
    OK(ember_trainer_save(t, path));
    ember_model *m2 = load_path(path, x);
    OK(ember_trainer_create(m2, o, &t2));
    assert_int_equal(ember_trainer_param_count(t2), ember_trainer_param_count(t));
    for (size_t i = 0; i < ember_trainer_param_count(t); i++) {
        const char *name = ember_trainer_param_name(t, i);
        ember_tensor *a = NULL, *b = NULL;
        OK(ember_trainer_param_value(t, name, &a));
        OK(ember_trainer_param_value(t2, name, &b));
        assert_int_equal(ember_tensor_nbytes(a), ember_tensor_nbytes(b));
        assert_memory_equal(ember_tensor_data(a), ember_tensor_data(b), ember_tensor_nbytes(a));
        ember_tensor_destroy(a);
        ember_tensor_destroy(b);
    }
    unlink(path);
    ember_trainer_destroy(t2);
    ember_model_destroy(m2);
    ember_trainer_options_destroy(o);
    ember_trainer_destroy(t);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
    ember_tensor_destroy(tg);
}

static void keep_log(void *ctx, ember_log_level level, const char *msg)
{
    if (level == EMBER_LOG_WARN) {
        snprintf(ctx, 512, "%s", msg);
    }
}

/* A mode asked for on a model without such nodes trains as before and says so (WARN). */
static void test_mode_without_nodes(void **state)
{
    (void)state;
    if (skip_format("model.onnx")) {
        skip();
    }
    char logged[512] = "";
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    ember_model_options_set_log(mo, keep_log, logged, EMBER_LOG_WARN);
    OK(ember_model_load_file(test_data_path("train/", "mlp/model.onnx"), mo, &m));
    for (int k = 0; k < 2; k++) {
        ember_trainer_options *o = NULL;
        ember_trainer *t = NULL;
        OK(ember_trainer_options_create(&o));
        if (k == 0) {
            OK(ember_trainer_options_set_dropout(o, true, 1));
        } else {
            OK(ember_trainer_options_set_batchnorm(o, EMBER_BATCHNORM_TRAIN));
        }
        logged[0] = '\0';
        OK(ember_trainer_create(m, o, &t));
        assert_non_null(strstr(logged, k == 0 ? "no Dropout node" : "no BatchNormalization"));
        ember_trainer_destroy(t);
        ember_trainer_options_destroy(o);
    }
    ember_model_destroy(m);
    ember_model_options_destroy(mo);
}

/* TorchScript's nn.Dropout (tiny_cnn's Dropout(0.2), traced and scripted): the loader writes a
 * Dropout node in inference form, kept at NONE (for the trainer) and gone at ALL, the outputs
 * the same; in train mode it changes the loss (seeded: the same twice), off it does not. */
static void test_dropout_torchscript(void **state)
{
    (void)state;
    static const char *const files[] = {"tiny_cnn.trace.t2.pt", "tiny_cnn.script.t2.pt"};
    if (!test_have_loader("torchscript")) {
        skip();
    }
    for (int f = 0; f < 2; f++) {
        char rel[128];
        snprintf(rel, sizeof rel, "models/%s", files[f]);
        ember_tensor *x = NULL, *want = NULL;
        OK(ember_tensor_load_npy(test_data_path("torchscript/", "models/tiny_cnn.in.npy"), &x));
        OK(ember_tensor_load_npy(test_data_path("torchscript/", "models/tiny_cnn.out.npy"),
                                 &want));
        ember_model *m[2] = {NULL, NULL};
        for (int l = 0; l < 2; l++) {
            ember_model_options *mo = NULL;
            OK(ember_model_options_create(&mo));
            OK(ember_model_options_set_graph_optimization(mo, l == 0 ? EMBER_GRAPH_OPT_NONE
                                                                     : EMBER_GRAPH_OPT_ALL));
            OK(ember_model_options_set_input_shape_at(mo, 0, ember_tensor_dims(x),
                                                      ember_tensor_rank(x)));
            OK(ember_model_load_file(test_data_path("torchscript/", rel), mo, &m[l]));
            ember_model_options_destroy(mo);
            assert_int_equal(tm_count_op(m[l], "Dropout"), l == 0 ? 1 : 0);
            ember_session *s = NULL;
            ember_tensor *y = NULL;
            OK(ember_session_create(m[l], NULL, &s));
            OK(ember_session_run(s, &x, 1, &y, 1));
            expect_allclose(y, want, 1e-4, 1e-5, files[f]);
            ember_tensor_destroy(y);
            ember_session_destroy(s);
        }
        /* the trainer on the NONE model: class 1 for each sample */
        const int64_t n = ember_tensor_dims(x)[0];
        int64_t cls[16];
        assert_true(n <= 16);
        for (int64_t i = 0; i < n; i++) {
            cls[i] = 1;
        }
        ember_tensor *t = NULL;
        OK(ember_tensor_create(EMBER_DTYPE_I64, &n, 1, &t));
        memcpy(ember_tensor_data(t), cls, sizeof(int64_t) * (size_t)n);
        double loss[3];
        for (int k = 0; k < 3; k++) { /* off, on (seed 7), on (seed 7) */
            ember_trainer_options *o = NULL;
            ember_trainer *tr = NULL;
            OK(ember_trainer_options_create(&o));
            ember_trainer_options_set_threads(o, 1);
            if (k > 0) {
                OK(ember_trainer_options_set_dropout(o, true, 7));
            }
            OK(ember_trainer_create(m[0], o, &tr));
            OK(ember_trainer_compute(tr, &x, 1, t, &loss[k]));
            ember_trainer_destroy(tr);
            ember_trainer_options_destroy(o);
        }
        assert_true(loss[1] != loss[0]);
        assert_true(loss[1] == loss[2]);
        ember_tensor_destroy(t);
        ember_model_destroy(m[0]);
        ember_model_destroy(m[1]);
        ember_tensor_destroy(x);
        ember_tensor_destroy(want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bn_train_onnx),     cmocka_unit_test(test_bn_train_pt),
        cmocka_unit_test(test_bn_frozen_explicit), cmocka_unit_test(test_bn_running_formula),
        cmocka_unit_test(test_dropout_train),
        cmocka_unit_test(test_dropout_off),      cmocka_unit_test(test_pt_save_bn_train),
        cmocka_unit_test(test_pt_save_frozen),   cmocka_unit_test(test_pt_save_exact),
        cmocka_unit_test(test_mode_without_nodes),
        cmocka_unit_test(test_dropout_torchscript),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
