/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BatchNormalization-15 f32. X [N, C, D1..Dk], scale, B, input_mean, input_var all [C]:
 *     y = (x - mean[c]) * (scale[c] / sqrt(var[c] + epsilon)) + B[c]
 * evaluated in double and rounded once. Inference (training_mode = 0) uses mean = input_mean
 * and var = input_var; work is split over (batch x channel) planes. Training (training_mode =
 * 1) uses the batch statistics of each channel over N and the spatial axes, the variance the
 * population one (divided by the count, as the spec and its reference implementation say),
 * and writes the optional outputs
 *     running_mean = input_mean * momentum + mean * (1 - momentum)   (running_var likewise);
 * work is split over channels. Inference with those outputs present (older models list them)
 * writes input_mean and input_var to them unchanged.
 */
#include "ref.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct em_batchnorm_attrs {
    double epsilon, momentum;
    bool training;
    int n_out;
    int64_t batch;
    int64_t channels;
    int64_t n_planes; /* N * C */
    int64_t plane;    /* elements per spatial plane (1 for rank 2) */
} em_batchnorm_attrs;

static ember_status *batchnorm_params(const em_kinfo *ki, int64_t channels)
{
    ember_status *st = NULL;
    static const char *const what[5] = {"", "input 1 (scale)", "input 2 (B)",
                                        "input 3 (input_mean)", "input 4 (input_var)"};
    for (int i = 1; i < 5; i++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[i], EMBER_DTYPE_F32, what[i]));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[i], &channels, 1, what[i]));
    }
    return NULL;
fail:
    return st;
}

ember_status *em_batchnorm_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_batchnorm_attrs a;
    int64_t training;
    float eps, momentum;
    const em_tensor *x = &ki->in[0];
    static const char *const out_what[3] = {"output 0 (Y)", "output 1 (running_mean)",
                                            "output 2 (running_var)"};

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_attr_int(ki, "training_mode", 0, &training));
    if (training != 0 && training != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "training_mode is %lld, expected 0 or 1",
                            (long long)training);
    }
    EMBER_TRY(em_ref_check_arity(ki, 5, 5, 3));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    if (x->rank < 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input X has rank %d, expected at least 2 (N, C, ...)", x->rank);
    }
    EMBER_TRY(batchnorm_params(ki, x->dims[1]));
    for (int o = 0; o < ki->n_out; o++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[o], EMBER_DTYPE_F32, out_what[o]));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[o], o == 0 ? x->dims : &x->dims[1],
                                     o == 0 ? x->rank : 1, out_what[o]));
    }
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &eps));
    if (!(eps >= 0.0f)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "epsilon %g is negative", (double)eps);
    }
    EMBER_TRY(em_ref_attr_float(ki, "momentum", 0.9f, &momentum));
    if (!isfinite(momentum)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "momentum %g is not finite",
                            (double)momentum);
    }
    a.epsilon = eps;
    a.momentum = momentum;
    a.training = training != 0;
    a.n_out = ki->n_out;
    a.batch = x->dims[0];
    a.channels = x->dims[1];
    a.n_planes = x->dims[0] * x->dims[1];
    a.plane = em_ref_prod(x->dims + 2, x->rank - 2);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct batchnorm_job {
    const em_batchnorm_attrs *a;
    const float *x, *scale, *bias, *mean, *var;
    float *y, *run_mean, *run_var; /* the running statistics may be NULL (absent outputs) */
} batchnorm_job;

static void batchnorm_task(void *arg, int64_t begin, int64_t end)
{
    const batchnorm_job *j = arg;
    const int64_t plane = j->a->plane;
    for (int64_t p = begin; p < end; p++) {
        int64_t c = p % j->a->channels;
        double mul = (double)j->scale[c] / sqrt((double)j->var[c] + j->a->epsilon);
        double mean = j->mean[c], bias = j->bias[c];
        const float *x = j->x + p * plane;
        float *y = j->y + p * plane;
        for (int64_t i = 0; i < plane; i++) {
            y[i] = (float)(((double)x[i] - mean) * mul + bias);
        }
    }
}

/* Training: channels [begin, end), each normalized by its own batch statistics. */
static void batchnorm_train_task(void *arg, int64_t begin, int64_t end)
{
    const batchnorm_job *j = arg;
    const em_batchnorm_attrs *a = j->a;
    const int64_t plane = a->plane, cs = a->channels * plane;
    const double count = (double)(a->batch * plane);
    for (int64_t c = begin; c < end; c++) {
        double sum = 0.0, sq = 0.0;
        for (int64_t b = 0; b < a->batch; b++) {
            const float *x = j->x + b * cs + c * plane;
            for (int64_t i = 0; i < plane; i++) {
                sum += x[i];
            }
        }
        double mean = count > 0 ? sum / count : 0.0;
        for (int64_t b = 0; b < a->batch; b++) {
            const float *x = j->x + b * cs + c * plane;
            for (int64_t i = 0; i < plane; i++) {
                sq += ((double)x[i] - mean) * ((double)x[i] - mean);
            }
        }
        double var = count > 0 ? sq / count : 0.0;
        double mul = (double)j->scale[c] / sqrt(var + a->epsilon), bias = j->bias[c];
        for (int64_t b = 0; b < a->batch; b++) {
            const float *x = j->x + b * cs + c * plane;
            float *y = j->y + b * cs + c * plane;
            for (int64_t i = 0; i < plane; i++) {
                y[i] = (float)(((double)x[i] - mean) * mul + bias);
            }
        }
        if (j->run_mean != NULL) {
            j->run_mean[c] = (float)(j->mean[c] * a->momentum + mean * (1.0 - a->momentum));
        }
        if (j->run_var != NULL) {
            j->run_var[c] = (float)(j->var[c] * a->momentum + var * (1.0 - a->momentum));
        }
    }
}

void em_batchnorm_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const em_batchnorm_attrs *a = state;
    em_threadpool *pool = ctx != NULL ? ctx->pool : NULL;
    batchnorm_job j = {.a = a,
                       .x = in[0].data,
                       .scale = in[1].data,
                       .bias = in[2].data,
                       .mean = in[3].data,
                       .var = in[4].data,
                       .y = out[0].data};
    j.run_mean = a->n_out > 1 ? out[1].data : NULL;
    j.run_var = a->n_out > 2 ? out[2].data : NULL;
    if (a->training) {
        em_parallel_for(pool, a->channels, 1, batchnorm_train_task, &j);
        return;
    }
    em_parallel_for(pool, a->n_planes, 1, batchnorm_task, &j);
    for (int64_t c = 0; c < a->channels; c++) {
        if (j.run_mean != NULL) {
            j.run_mean[c] = j.mean[c];
        }
        if (j.run_var != NULL) {
            j.run_var[c] = j.var[c];
        }
    }
}
