/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BatchNormalization f32, inference form (ONNX BatchNormalization-15, training_mode = 0):
 * X [N, C, D1..Dk], scale, B, input_mean, input_var all [C]:
 *     y = (x - mean[c]) * (scale[c] / sqrt(var[c] + epsilon)) + B[c]
 * evaluated in double and rounded once. training_mode = 1 (and the running-statistics
 * outputs that come with it) is declined. Work is split over (batch x channel) planes.
 */
#include "ref.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct em_batchnorm_attrs {
    double epsilon;
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
    float eps;
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_attr_int(ki, "training_mode", 0, &training));
    if (training != 0) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "training_mode = %lld is not supported (inference only)",
                            (long long)training);
    }
    EMBER_TRY(em_ref_check_arity(ki, 5, 5, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    if (x->rank < 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input X has rank %d, expected at least 2 (N, C, ...)", x->rank);
    }
    EMBER_TRY(batchnorm_params(ki, x->dims[1]));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &eps));
    if (!(eps >= 0.0f)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "epsilon %g is negative", (double)eps);
    }
    a.epsilon = eps;
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
    float *y;
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

void em_batchnorm_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const em_batchnorm_attrs *a = state;
    batchnorm_job j = {a, in[0].data, in[1].data, in[2].data, in[3].data, in[4].data, out[0].data};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n_planes, 1, batchnorm_task, &j);
}
