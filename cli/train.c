/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `ember grad` and `ember finetune` (DESIGN.md's CLI contract), on ember.h's trainer:
 *   ember grad MODEL --input X... --target T --loss ce|nll|mse|l1|smoothl1|bce [--output-dir D]
 *       prints loss=<f>; writes D/grad_<parameter>.npy for every trainable parameter
 *   ember finetune MODEL --input X... --target T --loss ce --optim sgd|adam|adamw --lr F ...
 *       --save OUT (.onnx, or .pt for a TorchScript model) [--save-state FILE] [--resume FILE]
 *       prints step=<k> loss=<f> per step (on a terminal, one line redrawn with a bar, the
 *       loss and steps/s), then writes OUT
 * Inputs and targets are .npy files whose first dimension is the sample count; --batch splits
 * them (the last batch of an epoch may be smaller). The model is loaded at graph optimization
 * fold (every node a standard op with a gradient rule).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLI_MAX_PATTERNS 64

typedef struct train_args {
    bool finetune;
    const char *model, *target, *out_dir, *save, *save_state, *resume;
    const char *inputs[CLI_MAX_INPUTS];
    int n_inputs;
    const char *train[CLI_MAX_PATTERNS], *freeze[CLI_MAX_PATTERNS];
    int n_train, n_freeze;
    ember_loss loss;
    ember_reduction reduction;
    double label_smoothing;
    ember_optimizer optim;
    double lr, momentum, dampening, weight_decay, beta1, beta2, eps;
    bool has_lr, has_wd, nesterov, shuffle, bn_train, dropout_train;
    ember_lr_schedule sched;
    int64_t period;
    double factor;
    int steps, epochs, batch, threads;
    unsigned long seed;
} train_args;

static void train_usage(FILE *f, bool finetune)
{
    if (!finetune) {
        fprintf(f, "usage: ember grad MODEL --input X... --target T --loss LOSS [options]\n"
                   "\n"
                   "Prints loss=<f> of MODEL on the inputs against the target and writes the\n"
                   "gradient of every trainable parameter as DIR/grad_<name>.npy (TorchScript:\n"
                   "state_dict names such as fc1.weight; ONNX: initializer names; '/' becomes\n"
                   "'_').\n");
    } else {
        fprintf(f, "usage: ember finetune MODEL --input X... --target T --loss LOSS --optim OPT\n"
                   "                     --lr F --save OUT [options]\n"
                   "\n"
                   "Trains MODEL's parameters, printing step=<k> loss=<f> per step (a progress\n"
                   "bar with the loss and steps/s when stdout is a terminal), and writes\n"
                   "the trained model to OUT: .onnx, or .pt for a model read from a TorchScript\n"
                   "archive (the archive with its tensors rewritten).\n");
    }
    fprintf(f, "\n"
               "options:\n"
               "  --input FILE...      the model's inputs (.npy), in order; the first dimension\n"
               "                       is the sample count\n"
               "  --target FILE        targets (.npy): int64 class indices for ce / nll, float32\n"
               "                       of the output's shape otherwise\n"
               "  --loss LOSS          ce, nll, mse, l1, smoothl1 or bce (with logits)\n"
               "  --reduction R        mean (default) or sum\n"
               "  --label-smoothing F  cross-entropy's label smoothing, in [0, 1)\n"
               "  --train PATTERN      train only parameters matching the glob (repeat)\n"
               "  --freeze PATTERN     keep parameters matching the glob constant (repeat)\n"
               "  --bn frozen|train    BatchNormalization: stored statistics (default) or\n"
               "                       PyTorch's train mode (batch statistics; the running\n"
               "                       statistics are updated and saved)\n"
               "  --dropout off|train  Dropout: the identity (default) or on, its masks drawn\n"
               "                       from --seed\n"
               "  --threads N          compute threads (default: one per core)\n");
    if (!finetune) {
        fprintf(f, "  --output-dir DIR     where the gradients go (default .)\n");
        return;
    }
    fprintf(f, "  --optim OPT          sgd, adam or adamw (PyTorch's update rules)\n"
               "  --lr F               learning rate\n"
               "  --momentum F         SGD momentum      --dampening F   SGD dampening\n"
               "  --nesterov           Nesterov momentum (SGD)\n"
               "  --weight-decay F     L2 (sgd, adam) or decoupled (adamw; default 0.01)\n"
               "  --betas B1,B2        Adam's betas (default 0.9,0.999)  --eps F (1e-8)\n"
               "  --lr-schedule S      constant, step:P:GAMMA, cosine:P[:MIN] or warmup:P[:F]\n"
               "  --steps N            optimizer steps (default: --epochs passes over the data)\n"
               "  --epochs E           passes over the samples (default 1)\n"
               "  --batch B            samples per step (default: all)\n"
               "  --shuffle            shuffle the samples each epoch  --seed S (default 0)\n"
               "  --save OUT           the trained model (.onnx, or .pt from a .pt; written whole\n"
               "                       or not at all)\n"
               "  --save-state FILE    also the optimizer state (momentum / Adam moments, step\n"
               "                       count), to continue later with --resume\n"
               "  --resume FILE        start from a --save-state file (give MODEL as the model\n"
               "                       that run saved, and the same optimizer options): steps\n"
               "                       count on from it; --steps N takes N more\n");
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    if (s == NULL || *s == '\0') {
        return false;
    }
    *out = strtod(s, &end);
    return *end == '\0';
}

static bool parse_loss(const char *s, ember_loss *out)
{
    static const char *const names[] = {"ce", "nll", "mse", "l1", "smoothl1", "bce"};
    for (int i = 0; s != NULL && i < 6; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (ember_loss)i;
            return true;
        }
    }
    return false;
}

static bool parse_schedule(const char *s, train_args *a)
{
    char kind[16] = "";
    long long p = 0;
    double f = -1.0;
    if (s == NULL || strcmp(s, "constant") == 0) {
        a->sched = EMBER_LR_CONSTANT;
        return s != NULL;
    }
    int n = sscanf(s, "%15[a-z]:%lld:%lf", kind, &p, &f);
    if (n < 2 || p <= 0) {
        return false;
    }
    a->period = p;
    if (strcmp(kind, "step") == 0 && n == 3) {
        a->sched = EMBER_LR_STEP;
    } else if (strcmp(kind, "cosine") == 0) {
        a->sched = EMBER_LR_COSINE;
        f = n == 3 ? f : 0.0;
    } else if (strcmp(kind, "warmup") == 0) {
        a->sched = EMBER_LR_LINEAR_WARMUP;
        f = n == 3 ? f : 1.0 / 3.0;
    } else {
        return false;
    }
    a->factor = f;
    return true;
}

/* Parses argv; returns 0 to go on, else the exit status (usage printed). */
static int parse_args(int argc, char **argv, train_args *a)
{
    const char *cmd = a->finetune ? "finetune" : "grad";
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            train_usage(stdout, a->finetune);
            return -1;
        } else if (strcmp(o, "--input") == 0) {
            while (i + 1 < argc && argv[i + 1][0] != '-' && a->n_inputs < CLI_MAX_INPUTS) {
                a->inputs[a->n_inputs++] = argv[++i];
            }
            ok = a->n_inputs > 0;
            continue;
        } else if (strcmp(o, "--nesterov") == 0) {
            a->nesterov = true;
            continue;
        } else if (strcmp(o, "--shuffle") == 0) {
            a->shuffle = true;
            continue;
        } else if (o[0] != '-') {
            if (a->model != NULL) {
                return cli_error("%s: more than one model given ('%s' and '%s')", cmd, a->model,
                                 o), 2;
            }
            a->model = o;
            continue;
        } else if (v == NULL) {
            return cli_error("%s: %s needs a value (see ember %s --help)", cmd, o, cmd), 2;
        } else if (strcmp(o, "--target") == 0) {
            a->target = v;
        } else if (strcmp(o, "--loss") == 0) {
            ok = parse_loss(v, &a->loss);
        } else if (strcmp(o, "--reduction") == 0) {
            ok = strcmp(v, "mean") == 0 || strcmp(v, "sum") == 0;
            a->reduction = strcmp(v, "sum") == 0 ? EMBER_REDUCTION_SUM : EMBER_REDUCTION_MEAN;
        } else if (strcmp(o, "--label-smoothing") == 0) {
            ok = parse_double(v, &a->label_smoothing);
        } else if (strcmp(o, "--train") == 0 || strcmp(o, "--freeze") == 0) {
            bool tr = strcmp(o, "--train") == 0;
            int *n = tr ? &a->n_train : &a->n_freeze;
            ok = *n < CLI_MAX_PATTERNS;
            if (ok) {
                (tr ? a->train : a->freeze)[(*n)++] = v;
            }
        } else if (strcmp(o, "--bn") == 0) {
            ok = strcmp(v, "frozen") == 0 || strcmp(v, "train") == 0;
            a->bn_train = strcmp(v, "train") == 0;
        } else if (strcmp(o, "--dropout") == 0) {
            ok = strcmp(v, "off") == 0 || strcmp(v, "train") == 0;
            a->dropout_train = strcmp(v, "train") == 0;
        } else if (strcmp(o, "--threads") == 0) {
            ok = cli_parse_int(v, 0, 1024, &a->threads);
        } else if (strcmp(o, "--output-dir") == 0 && !a->finetune) {
            a->out_dir = v;
        } else if (!a->finetune) {
            return cli_error("grad: unknown option '%s' (see ember grad --help)", o), 2;
        } else if (strcmp(o, "--optim") == 0) {
            ok = strcmp(v, "sgd") == 0 || strcmp(v, "adam") == 0 || strcmp(v, "adamw") == 0;
            a->optim = strcmp(v, "adam") == 0    ? EMBER_OPTIMIZER_ADAM
                       : strcmp(v, "adamw") == 0 ? EMBER_OPTIMIZER_ADAMW
                                                 : EMBER_OPTIMIZER_SGD;
        } else if (strcmp(o, "--lr") == 0) {
            ok = parse_double(v, &a->lr) && a->lr > 0.0;
            a->has_lr = true;
        } else if (strcmp(o, "--momentum") == 0) {
            ok = parse_double(v, &a->momentum);
        } else if (strcmp(o, "--dampening") == 0) {
            ok = parse_double(v, &a->dampening);
        } else if (strcmp(o, "--weight-decay") == 0) {
            ok = parse_double(v, &a->weight_decay);
            a->has_wd = true;
        } else if (strcmp(o, "--betas") == 0) {
            char *end;
            a->beta1 = strtod(v, &end);
            ok = *end == ',' && parse_double(end + 1, &a->beta2);
        } else if (strcmp(o, "--eps") == 0) {
            ok = parse_double(v, &a->eps);
        } else if (strcmp(o, "--lr-schedule") == 0) {
            ok = parse_schedule(v, a);
        } else if (strcmp(o, "--steps") == 0) {
            ok = cli_parse_int(v, 1, 1 << 30, &a->steps);
        } else if (strcmp(o, "--epochs") == 0) {
            ok = cli_parse_int(v, 1, 1 << 20, &a->epochs);
        } else if (strcmp(o, "--batch") == 0) {
            ok = cli_parse_int(v, 1, 1 << 30, &a->batch);
        } else if (strcmp(o, "--seed") == 0) {
            int s = 0;
            ok = cli_parse_int(v, 0, 1 << 30, &s);
            a->seed = (unsigned long)s;
        } else if (strcmp(o, "--save") == 0) {
            a->save = v;
        } else if (strcmp(o, "--save-state") == 0 && a->finetune) {
            a->save_state = v;
        } else if (strcmp(o, "--resume") == 0 && a->finetune) {
            a->resume = v;
        } else {
            return cli_error("finetune: unknown option '%s' (see ember finetune --help)", o), 2;
        }
        if (!ok) {
            return cli_error("%s: bad value '%s' for %s (see ember %s --help)", cmd, v, o, cmd),
                   2;
        }
        i++;
    }
    const char *missing = a->model == NULL ? "a MODEL" : a->n_inputs == 0 ? "--input"
                          : a->target == NULL                           ? "--target"
                          : a->finetune && !a->has_lr                   ? "--lr"
                          : a->finetune && a->save == NULL              ? "--save"
                                                                        : NULL;
    if (missing != NULL) {
        train_usage(stderr, a->finetune);
        return cli_error("%s needs %s", cmd, missing), 2;
    }
    return 0;
}

static ember_status *make_options(const train_args *a, ember_trainer_options **out)
{
    ember_trainer_options *o = NULL;
    ember_status *st = ember_trainer_options_create(&o);
    if (st == NULL) {
        st = ember_trainer_options_set_loss(o, a->loss, a->reduction);
    }
    if (st == NULL && a->label_smoothing != 0.0) {
        st = ember_trainer_options_set_label_smoothing(o, a->label_smoothing);
    }
    for (int i = 0; st == NULL && i < a->n_train; i++) {
        st = ember_trainer_options_add_train(o, a->train[i]);
    }
    for (int i = 0; st == NULL && i < a->n_freeze; i++) {
        st = ember_trainer_options_add_freeze(o, a->freeze[i]);
    }
    if (st == NULL && a->bn_train) {
        st = ember_trainer_options_set_batchnorm(o, EMBER_BATCHNORM_TRAIN);
    }
    if (st == NULL && a->dropout_train) {
        st = ember_trainer_options_set_dropout(o, true, a->seed);
    }
    if (st == NULL && a->finetune) {
        st = ember_trainer_options_set_optimizer(o, a->optim, a->lr);
        if (st == NULL && a->optim == EMBER_OPTIMIZER_SGD) {
            st = ember_trainer_options_set_sgd(o, a->momentum, a->dampening, a->nesterov);
        }
        if (st == NULL && a->optim != EMBER_OPTIMIZER_SGD) {
            st = ember_trainer_options_set_adam(o, a->beta1, a->beta2, a->eps);
        }
        if (st == NULL && a->has_wd) {
            st = ember_trainer_options_set_weight_decay(o, a->weight_decay);
        }
        if (st == NULL) {
            st = ember_trainer_options_set_lr_schedule(o, a->sched, a->period, a->factor);
        }
    }
    ember_trainer_options_set_threads(o, a->threads);
    if (st != NULL) {
        ember_trainer_options_destroy(o);
        o = NULL;
    }
    *out = o;
    return st;
}

/* Rows idx[0..n) of t (its first dimension) as a new tensor. */
static ember_status *take_rows(ember_tensor *t, const int64_t *idx, int64_t n, ember_tensor **out)
{
    int64_t dims[EMBER_MAX_RANK];
    int rank = ember_tensor_rank(t);
    memcpy(dims, ember_tensor_dims(t), sizeof(int64_t) * (size_t)rank);
    size_t row = ember_tensor_nbytes(t) / (size_t)(dims[0] > 0 ? dims[0] : 1);
    dims[0] = n;
    ember_status *st = ember_tensor_create(ember_tensor_dtype(t), dims, rank, out);
    for (int64_t i = 0; st == NULL && i < n; i++) {
        memcpy((char *)ember_tensor_data(*out) + (size_t)i * row,
               (const char *)ember_tensor_data(t) + (size_t)idx[i] * row, row);
    }
    return st;
}

/* The files: inputs then the target; all must share the first dimension (the sample count).
 * Returns 0, or the exit status after printing the error. */
static int load_data(const train_args *a, ember_tensor **data, int64_t *n_samples)
{
    for (int i = 0; i <= a->n_inputs; i++) {
        const char *f = i < a->n_inputs ? a->inputs[i] : a->target;
        ember_status *st = ember_tensor_load(f, &data[i]);
        if (st != NULL) {
            return cli_fail(st);
        }
        int64_t n = ember_tensor_rank(data[i]) > 0 ? ember_tensor_dims(data[i])[0] : -1;
        if (n <= 0 || (i > 0 && n != *n_samples)) {
            return cli_error("%s: its first dimension (%lld) must be the sample count%s", f,
                             (long long)n, i > 0 ? ", the same as the other files'" : " (> 0)");
        }
        *n_samples = n;
    }
    return 0;
}

static unsigned long next_rand(unsigned long *s)
{
    *s = *s * 6364136223846793005ul + 1442695040888963407ul;
    return *s >> 33;
}

static int run_grad(const train_args *a, ember_trainer *t, ember_tensor **data)
{
    double loss = 0.0;
    ember_status *st = ember_trainer_compute(t, data, (size_t)a->n_inputs, data[a->n_inputs],
                                             &loss);
    if (st != NULL) {
        return cli_fail(st);
    }
    printf("loss=%.9g\n", loss);
    const char *dir = a->out_dir != NULL ? a->out_dir : ".";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        return cli_error("grad: cannot create --output-dir %s: %s", dir, strerror(errno));
    }
    for (size_t i = 0; i < ember_trainer_param_count(t) && st == NULL; i++) {
        const char *name = ember_trainer_param_name(t, i);
        char path[4096], clean[1024];
        snprintf(clean, sizeof clean, "%s", name);
        for (char *c = clean; *c != '\0'; c++) {
            *c = *c == '/' || *c == '\\' ? '_' : *c;
        }
        snprintf(path, sizeof path, "%s/grad_%s.npy", dir, clean);
        ember_tensor *g = NULL;
        st = ember_trainer_param_grad(t, name, &g);
        if (st == NULL) {
            st = ember_tensor_save_npy(g, path);
        }
        ember_tensor_destroy(g);
    }
    return st != NULL ? cli_fail(st) : 0;
}

static bool is_pt(const char *path)
{
    size_t n = path != NULL ? strlen(path) : 0;
    return (n >= 3 && strcmp(path + n - 3, ".pt") == 0) ||
           (n >= 4 && strcmp(path + n - 4, ".pth") == 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One step's report on stdout: DESIGN.md's `step=<k> loss=<f>` line, or on a terminal one
 * line redrawn in place: a bar, the step, the loss and the rate (a newline after the last). */
/* Step k of `total` this run (after `start` steps taken before: --resume) took `secs` so far. */
static void report_step(bool tty, int64_t start, int64_t k, int64_t total, double loss,
                        double secs)
{
    if (!tty) {
        printf("step=%lld loss=%.9g\n", (long long)(start + k), loss);
    } else {
        int w = 30, done = total > 0 ? (int)(w * k / total) : w;
        printf("\r[%.*s%*s] step=%lld/%lld loss=%.6g %.2f steps/s\033[K", done,
               "##############################", w - done, "", (long long)(start + k),
               (long long)(start + total), loss, secs > 0.0 ? (double)k / secs : 0.0);
        if (k == total) {
            putchar('\n');
        }
    }
    fflush(stdout);
}

static int run_finetune(const train_args *a, const ember_model *m, ember_trainer *t,
                        ember_tensor **data, int64_t n)
{
    int64_t batch = a->batch > 0 && a->batch < n ? a->batch : n;
    int64_t per_epoch = (n + batch - 1) / batch;
    int64_t total = a->steps > 0 ? a->steps : (a->epochs > 0 ? a->epochs : 1) * per_epoch;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)n);
    ember_tensor *b[CLI_MAX_INPUTS + 1] = {0};
    ember_status *st = NULL;
    if (perm == NULL) {
        return cli_error("finetune: out of memory");
    }
    unsigned long rs = a->seed * 2654435761ul + 1;
    bool tty = isatty(1) != 0;
    int64_t start = ember_trainer_step_count(t);
    double t0 = now_s();
    for (int64_t i = 0; i < n; i++) {
        perm[i] = i;
    }
    for (int64_t k = 0; k < total && st == NULL; k++) {
        int64_t pos = k % per_epoch;
        if (pos == 0 && a->shuffle) {
            for (int64_t i = n - 1; i > 0; i--) {
                int64_t j = (int64_t)(next_rand(&rs) % (unsigned long)(i + 1)), tmp = perm[i];
                perm[i] = perm[j];
                perm[j] = tmp;
            }
        }
        int64_t lo = pos * batch, cnt = lo + batch <= n ? batch : n - lo;
        bool whole = cnt == n && !a->shuffle;
        for (int i = 0; i <= a->n_inputs && st == NULL; i++) {
            ember_tensor_destroy(b[i]);
            b[i] = NULL;
            if (!whole) {
                st = take_rows(data[i], perm + lo, cnt, &b[i]);
            }
        }
        ember_tensor **in = whole ? data : b;
        double loss = 0.0;
        if (st == NULL) {
            st = ember_trainer_step(t, in, (size_t)a->n_inputs, in[a->n_inputs], &loss);
        }
        if (st == NULL) {
            report_step(tty, start, k + 1, total, loss, now_s() - t0);
        } else if (tty && k > 0) {
            putchar('\n'); /* end the bar before the error */
            fflush(stdout);
        }
    }
    for (int i = 0; i <= a->n_inputs; i++) {
        ember_tensor_destroy(b[i]);
    }
    free(perm);
    if (st == NULL) {
        st = ember_trainer_save(t, a->save);
    }
    if (st == NULL) {
        bool pt = is_pt(a->save);
        bool ts = strcmp(ember_model_format(m), "torchscript") == 0;
        fprintf(stderr, "wrote %s after %lld steps%s\n", a->save,
                (long long)ember_trainer_step_count(t),
                ts && !pt ? " (as ONNX; name it .pt to rewrite the TorchScript archive)" : "");
    }
    if (st == NULL && a->save_state != NULL) {
        st = ember_trainer_save_state(t, a->save_state);
        if (st == NULL) {
            fprintf(stderr, "wrote %s (the optimizer state after %lld steps)\n", a->save_state,
                    (long long)ember_trainer_step_count(t));
        }
    }
    return st != NULL ? cli_fail(st) : 0;
}

static int cli_train(int argc, char **argv, bool finetune)
{
    train_args a;
    memset(&a, 0, sizeof a);
    a.finetune = finetune;
    a.beta1 = 0.9;
    a.beta2 = 0.999;
    a.eps = 1e-8;
    a.epochs = 1;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0) {
        return rc < 0 ? 0 : rc;
    }
    ember_tensor *data[CLI_MAX_INPUTS + 1] = {0};
    ember_model *m = NULL;
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    int64_t n = 0;
    ember_status *st = NULL;
    rc = load_data(&a, data, &n);
    if (rc == 0) {
        bool batched = a.finetune && a.batch > 0 && a.batch < n;
        cli_load ld = {a.model, a.inputs, a.n_inputs, NULL, 0, EMBER_GRAPH_OPT_NONE, true,
                       batched, EMBER_INT8_OFF, EMBER_PRECISION_FP32, NULL};
        st = cli_load_model(&ld, &m);
    }
    if (rc == 0 && st == NULL) {
        st = make_options(&a, &o);
    }
    if (rc == 0 && st == NULL) {
        st = ember_trainer_create(m, o, &t);
    }
    if (rc == 0 && st == NULL && a.resume != NULL) {
        st = ember_trainer_load_state(t, a.resume);
    }
    if (rc != 0) {
        /* load_data printed the error */
    } else if (st != NULL) {
        rc = cli_fail(st);
    } else if (finetune && is_pt(a.save) && strcmp(ember_model_format(m), "torchscript") != 0) {
        /* refused before training rather than after it */
        cli_error("finetune: --save %s: a .pt archive is written only for a model read from a "
                  "TorchScript archive (%s is %s); save it as .onnx", a.save, a.model,
                  ember_model_format(m));
        rc = 2;
    } else {
        rc = finetune ? run_finetune(&a, m, t, data, n) : run_grad(&a, t, data);
    }
    ember_trainer_destroy(t);
    ember_trainer_options_destroy(o);
    ember_model_destroy(m);
    for (int i = 0; i <= a.n_inputs; i++) {
        ember_tensor_destroy(data[i]);
    }
    return rc;
}

int cli_grad(int argc, char **argv)
{
    return cli_train(argc, argv, false);
}

int cli_finetune(int argc, char **argv)
{
    return cli_train(argc, argv, true);
}
