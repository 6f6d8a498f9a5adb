/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_batchnorm_ref.c: BatchNormalization f32 against the formula in double.
 * Inference: rank 2, 3, 4 and 5 inputs, a single channel, a zero batch, default and explicit
 * epsilon, a threaded run equal to the serial one, the running-statistics outputs (copies of
 * input_mean / input_var). Training (training_mode = 1): batch statistics per channel (the
 * population variance) computed naively in the test, running_mean / running_var with default
 * and explicit momentum, one, two or three outputs, a hand-computed case, threaded = serial.
 * Malformed nodes: parameter shapes and dtypes, rank 1, output shapes, training_mode 2,
 * momentum NaN, too many outputs.
 */
#include "test_ref_util.h"

#include <stdio.h>

typedef struct bn_case {
    const char *name;
    int rank;
    int64_t dims[5];
    bool set_eps;
    float eps;
} bn_case;

/* clang-format off */
static const bn_case bn_cases[] = {
    {"bn_rank2", 2, {7, 17}, false, 0},
    {"bn_rank3", 3, {2, 3, 7}, true, 1e-3f},
    {"bn_rank4", 4, {2, 3, 5, 7}, false, 0},
    {"bn_rank5", 5, {1, 4, 3, 2, 5}, true, 0.5f},
    {"bn_one_channel", 4, {3, 1, 4, 4}, false, 0},
    {"bn_zero_batch", 4, {0, 3, 4, 4}, false, 0},
    {"bn_eps_zero", 4, {1, 3, 2, 2}, true, 0.0f},
    {"bn_big", 4, {2, 32, 17, 17}, false, 0},
};
/* clang-format on */

/* Random inputs X, scale, B, input_mean, input_var (p[0..4)) bound to in[0..5). */
typedef struct bn_data {
    float *x, *p[4];
} bn_data;

static void bn_data_new(bn_data *d, em_tensor *in, int rank, const int64_t *dims, const int64_t *ch,
                        uint64_t seed)
{
    static const float lo[4] = {-2.0f, -1.0f, -1.0f, 0.1f}, hi[4] = {2.0f, 1.0f, 1.0f, 3.0f};
    int64_t n = t_numel(dims, rank);
    d->x = t_random_f32(n, (uint64_t)n + seed, -3.0f, seed == 0 ? 3.0f : 5.0f);
    t_tensor(&in[0], EMBER_DTYPE_F32, rank, dims, d->x);
    for (int i = 0; i < 4; i++) {
        d->p[i] = t_random_f32(*ch, seed + 1 + (uint64_t)i, lo[i], hi[i]);
        t_tensor(&in[1 + i], EMBER_DTYPE_F32, 1, ch, d->p[i]);
    }
}

static void bn_data_free(bn_data *d)
{
    test_free(d->x);
    for (int i = 0; i < 4; i++) {
        test_free(d->p[i]);
    }
}

static float *bn_check(const bn_case *c, em_threadpool *pool, int64_t *n_out)
{
    int64_t n = t_numel(c->dims, c->rank), ch = c->dims[1];
    int64_t plane = t_numel(c->dims + 2, c->rank - 2);
    em_tensor in[5], out[1];
    bn_data d;
    bn_data_new(&d, in, c->rank, c->dims, &ch, 0);
    const float *x = d.x, *scale = d.p[0], *bias = d.p[1], *mean = d.p[2], *var = d.p[3];
    float *y = t_f32(n);
    double *ref = t_f64(n);
    double eps = c->set_eps ? c->eps : 1e-5f;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i / plane) % ch;
        ref[i] = ((double)x[i] - mean[k]) / sqrt((double)var[k] + eps) * scale[k] + bias[k];
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_BATCHNORM, c->name);
    if (c->set_eps) {
        t_set_float(&tn, "epsilon", c->eps);
    }
    t_set_float(&tn, "momentum", 0.9f); /* ignored in inference */
    t_expect_ok(t_run(t_kernel(EM_OP_BATCHNORM, EMBER_DTYPE_F32), &tn.n, in, 5, out, 1, pool),
                c->name);
    t_check_f32(c->name, y, ref, n, 1e-6, 1e-6);
    bn_data_free(&d);
    test_free(ref);
    *n_out = n;
    return y;
}

static void test_bn_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof bn_cases / sizeof bn_cases[0]; i++) {
        int64_t n;
        float *serial = bn_check(&bn_cases[i], NULL, &n);
        float *threaded = bn_check(&bn_cases[i], pool, &n);
        assert_memory_equal(serial, threaded, (size_t)(n > 0 ? n : 1) * sizeof(float));
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

typedef struct bn_train_case {
    const char *name;
    int rank;
    int64_t dims[5];
    bool set_eps, set_momentum;
    float eps, momentum;
    int n_out;
} bn_train_case;

/* clang-format off */
static const bn_train_case bn_train_cases[] = {
    {"bnt_example", 4, {2, 3, 4, 5}, false, false, 0, 0, 3},
    {"bnt_epsilon", 4, {2, 3, 4, 5}, true, false, 1e-2f, 0, 3},
    {"bnt_rank2", 2, {9, 5}, false, true, 0, 0.5f, 3},
    {"bnt_rank3_y_only", 3, {3, 2, 7}, false, false, 0, 0, 1},
    {"bnt_rank5_mean_only", 5, {2, 3, 2, 3, 2}, true, true, 1e-3f, 0.0f, 2},
    {"bnt_batch1", 4, {1, 4, 3, 3}, false, true, 0, 1.0f, 3},
    {"bnt_big", 4, {3, 16, 9, 11}, false, false, 0, 0, 3},
};
/* clang-format on */

/* Runs a training case; returns Y (and fills the running statistics) for the caller. */
static float *bnt_check(const bn_train_case *c, em_threadpool *pool, float *rm, float *rv)
{
    int64_t n = t_numel(c->dims, c->rank), ch = c->dims[1];
    int64_t plane = t_numel(c->dims + 2, c->rank - 2), per = n / ch;
    em_tensor in[5], out[3];
    bn_data d;
    bn_data_new(&d, in, c->rank, c->dims, &ch, 10);
    const float *x = d.x, *scale = d.p[0], *bias = d.p[1], *mean = d.p[2], *var = d.p[3];
    float *y = t_f32(n);
    double *ref = t_f64(n), *sum = t_f64(ch), *sq = t_f64(ch), *ref_m = t_f64(ch),
           *ref_v = t_f64(ch);
    double eps = c->set_eps ? c->eps : 1e-5f, mom = c->set_momentum ? c->momentum : 0.9f;
    for (int64_t i = 0; i < n; i++) {
        sum[(i / plane) % ch] += x[i];
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i / plane) % ch;
        double dev = x[i] - sum[k] / (double)per;
        sq[k] += dev * dev;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i / plane) % ch;
        double m = sum[k] / (double)per, v = sq[k] / (double)per;
        ref[i] = ((double)x[i] - m) / sqrt(v + eps) * scale[k] + bias[k];
    }
    for (int64_t k = 0; k < ch; k++) {
        ref_m[k] = mean[k] * mom + sum[k] / (double)per * (1.0 - mom);
        ref_v[k] = var[k] * mom + sq[k] / (double)per * (1.0 - mom);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, c->rank, c->dims, y);
    t_tensor(&out[1], EMBER_DTYPE_F32, 1, &ch, rm);
    t_tensor(&out[2], EMBER_DTYPE_F32, 1, &ch, rv);
    t_node tn;
    t_node_init(&tn, EM_OP_BATCHNORM, c->name);
    t_set_int(&tn, "training_mode", 1);
    if (c->set_eps) {
        t_set_float(&tn, "epsilon", c->eps);
    }
    if (c->set_momentum) {
        t_set_float(&tn, "momentum", c->momentum);
    }
    t_expect_ok(
        t_run(t_kernel(EM_OP_BATCHNORM, EMBER_DTYPE_F32), &tn.n, in, 5, out, c->n_out, pool),
        c->name);
    t_check_f32(c->name, y, ref, n, 1e-5, 1e-5);
    if (c->n_out > 1) {
        t_check_f32(c->name, rm, ref_m, ch, 1e-6, 1e-6);
    }
    if (c->n_out > 2) {
        t_check_f32(c->name, rv, ref_v, ch, 1e-6, 1e-6);
    }
    bn_data_free(&d);
    test_free(ref);
    test_free(sum);
    test_free(sq);
    test_free(ref_m);
    test_free(ref_v);
    return y;
}

static void test_bn_training(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof bn_train_cases / sizeof bn_train_cases[0]; i++) {
        const bn_train_case *c = &bn_train_cases[i];
        int64_t n = t_numel(c->dims, c->rank), ch = c->dims[1];
        float *rm = t_f32(ch), *rv = t_f32(ch), *rm2 = t_f32(ch), *rv2 = t_f32(ch);
        float *serial = bnt_check(c, NULL, rm, rv);
        float *threaded = bnt_check(c, pool, rm2, rv2);
        assert_memory_equal(serial, threaded, (size_t)n * sizeof(float));
        assert_memory_equal(rm, rm2, (size_t)ch * sizeof(float));
        assert_memory_equal(rv, rv2, (size_t)ch * sizeof(float));
        test_free(serial);
        test_free(threaded);
        test_free(rm);
        test_free(rv);
        test_free(rm2);
        test_free(rv2);
    }
    em_threadpool_destroy(pool);
}

/* X [2, 1, 2] = 1 2 3 4: mean 2.5, population variance 1.25 (not the sample 5/3). */
static void test_bn_training_by_hand(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 4}, scale = 2.0f, bias = 0.5f, mean = 1.0f, var = 2.0f;
    float y[4], rm, rv;
    const int64_t xd[3] = {2, 1, 2}, one = 1;
    em_tensor in[5], out[3];
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &one, &scale);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, &one, &bias);
    t_tensor(&in[3], EMBER_DTYPE_F32, 1, &one, &mean);
    t_tensor(&in[4], EMBER_DTYPE_F32, 1, &one, &var);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, xd, y);
    t_tensor(&out[1], EMBER_DTYPE_F32, 1, &one, &rm);
    t_tensor(&out[2], EMBER_DTYPE_F32, 1, &one, &rv);
    t_node tn;
    t_node_init(&tn, EM_OP_BATCHNORM, "bn_by_hand");
    t_set_int(&tn, "training_mode", 1);
    t_set_float(&tn, "epsilon", 0.0f);
    t_set_float(&tn, "momentum", 0.75f);
    t_expect_ok(t_run(t_kernel(EM_OP_BATCHNORM, EMBER_DTYPE_F32), &tn.n, in, 5, out, 3, NULL),
                "bn_by_hand");
    const double sd = sqrt(1.25), want[4] = {-1.5 / sd * 2 + 0.5, -0.5 / sd * 2 + 0.5,
                                             0.5 / sd * 2 + 0.5, 1.5 / sd * 2 + 0.5};
    t_check_f32("bn_by_hand", y, want, 4, 1e-6, 1e-6);
    assert_float_equal(rm, 1.0 * 0.75 + 2.5 * 0.25, 1e-6);
    assert_float_equal(rv, 2.0 * 0.75 + 1.25 * 0.25, 1e-6);
}

/* Inference with the running-statistics outputs: they pass input_mean / input_var through. */
static void test_bn_inference_outputs(void **state)
{
    (void)state;
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, p[2] = {1, 1}, b[2] = {0, 0}, m[2] = {0.5f, -1};
    float v[2] = {2, 3}, y[8], rm[2], rv[2];
    const int64_t xd[3] = {2, 2, 2}, two = 2;
    em_tensor in[5], out[3];
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &two, p);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, &two, b);
    t_tensor(&in[3], EMBER_DTYPE_F32, 1, &two, m);
    t_tensor(&in[4], EMBER_DTYPE_F32, 1, &two, v);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, xd, y);
    t_tensor(&out[1], EMBER_DTYPE_F32, 1, &two, rm);
    t_tensor(&out[2], EMBER_DTYPE_F32, 1, &two, rv);
    t_node tn;
    t_node_init(&tn, EM_OP_BATCHNORM, "bn_inference_outputs");
    t_expect_ok(t_run(t_kernel(EM_OP_BATCHNORM, EMBER_DTYPE_F32), &tn.n, in, 5, out, 3, NULL),
                "bn_inference_outputs");
    assert_memory_equal(rm, m, sizeof m);
    assert_memory_equal(rv, v, sizeof v);
    assert_float_equal(y[2], (3.0 - (-1.0)) / sqrt(3.0 + 1e-5f), 1e-6);
}

typedef struct bn_bad {
    const char *name;
    ember_code code;
    int x_rank;
    int64_t xd[4];
    int64_t param_len; /* length of every parameter */
    int bad_param;     /* index of a parameter given another shape/dtype; 0: none */
    ember_dtype bad_dtype;
    int64_t yd[4];
    int n_out;
    int training;
    float momentum;
} bn_bad;

/* clang-format off */
static const bn_bad bn_bads[] = {
    {"bn_training2", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 1, 2, 0.9f},
    {"bn_four_outputs", EMBER_ERR_UNSUPPORTED, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 4, 1, 0.9f},
    {"bn_momentum_nan", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 1, 1, NAN},
    {"bn_running_shape", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 2, 1, 0.9f},
    {"bn_scale_len", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 1, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 1, 0, 0.9f},
    {"bn_var_len", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 4, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 1, 1, 0.9f},
    {"bn_mean_dtype", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 3, EMBER_DTYPE_F64,
     {1, 3, 2, 2}, 1, 0, 0.9f},
    {"bn_rank1", EMBER_ERR_INVALID_MODEL, 1, {3}, 3, 0, EMBER_DTYPE_F32, {3}, 1, 0, 0.9f},
    {"bn_bad_out", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 3}, 1, 1, 0.9f},
};
/* clang-format on */

static void test_bn_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof bn_bads / sizeof bn_bads[0]; i++) {
        const bn_bad *c = &bn_bads[i];
        em_tensor in[5], out[4];
        int64_t wrong_len = c->param_len + 1;
        t_tensor(&in[0], EMBER_DTYPE_F32, c->x_rank, c->xd, buf);
        for (int p = 1; p < 5; p++) {
            bool bad = p == c->bad_param;
            t_tensor(&in[p], bad ? c->bad_dtype : EMBER_DTYPE_F32, 1,
                     bad && c->bad_dtype == EMBER_DTYPE_F32 ? &wrong_len : &c->param_len, buf);
        }
        for (int o = 0; o < 4; o++) {
            /* The running statistics get Y's shape: wrong unless n_out is 1. */
            t_tensor(&out[o], EMBER_DTYPE_F32, c->x_rank, c->yd, buf);
        }
        t_node tn;
        t_node_init(&tn, EM_OP_BATCHNORM, c->name);
        if (c->training) {
            t_set_int(&tn, "training_mode", c->training);
        }
        t_set_float(&tn, "momentum", c->momentum);
        t_expect_error(
            t_run(t_kernel(EM_OP_BATCHNORM, EMBER_DTYPE_F32), &tn.n, in, 5, out, c->n_out, NULL),
            c->code, c->name, c->name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bn_cases),
        cmocka_unit_test(test_bn_training),
        cmocka_unit_test(test_bn_training_by_hand),
        cmocka_unit_test(test_bn_inference_outputs),
        cmocka_unit_test(test_bn_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
