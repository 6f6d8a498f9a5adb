/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/batchnorm_ref.c: BatchNormalization f32 (inference) against the formula in
 * double. Cases: rank 2, 3, 4 and 5 inputs, a single channel, a zero batch, default and
 * explicit epsilon, a threaded run equal to the serial one; declined training_mode = 1 and
 * extra outputs; malformed nodes (parameter shapes and dtypes, rank 1, output shape).
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

static float *bn_check(const bn_case *c, em_threadpool *pool, int64_t *n_out)
{
    int64_t n = t_numel(c->dims, c->rank), ch = c->dims[1];
    int64_t plane = t_numel(c->dims + 2, c->rank - 2);
    float *x = t_random_f32(n, (uint64_t)n, -3.0f, 3.0f);
    float *scale = t_random_f32(ch, 1, -2.0f, 2.0f), *bias = t_random_f32(ch, 2, -1.0f, 1.0f);
    float *mean = t_random_f32(ch, 3, -1.0f, 1.0f), *var = t_random_f32(ch, 4, 0.1f, 3.0f);
    float *y = t_f32(n);
    double *ref = t_f64(n);
    double eps = c->set_eps ? c->eps : 1e-5f;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i / plane) % ch;
        ref[i] = ((double)x[i] - mean[k]) / sqrt((double)var[k] + eps) * scale[k] + bias[k];
    }
    em_tensor in[5], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, c->rank, c->dims, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &ch, scale);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, &ch, bias);
    t_tensor(&in[3], EMBER_DTYPE_F32, 1, &ch, mean);
    t_tensor(&in[4], EMBER_DTYPE_F32, 1, &ch, var);
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
    test_free(x);
    test_free(scale);
    test_free(bias);
    test_free(mean);
    test_free(var);
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
} bn_bad;

/* clang-format off */
static const bn_bad bn_bads[] = {
    {"bn_training", EMBER_ERR_UNSUPPORTED, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32, {1, 3, 2, 2},
     1, 1},
    {"bn_three_outputs", EMBER_ERR_UNSUPPORTED, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 3, 0},
    {"bn_scale_len", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 1, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 1, 0},
    {"bn_var_len", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 4, EMBER_DTYPE_F32,
     {1, 3, 2, 2}, 1, 0},
    {"bn_mean_dtype", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 3, EMBER_DTYPE_F64,
     {1, 3, 2, 2}, 1, 0},
    {"bn_rank1", EMBER_ERR_INVALID_MODEL, 1, {3}, 3, 0, EMBER_DTYPE_F32, {3}, 1, 0},
    {"bn_bad_out", EMBER_ERR_INVALID_MODEL, 4, {1, 3, 2, 2}, 3, 0, EMBER_DTYPE_F32,
     {1, 3, 2, 3}, 1, 0},
};
/* clang-format on */

static void test_bn_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof bn_bads / sizeof bn_bads[0]; i++) {
        const bn_bad *c = &bn_bads[i];
        em_tensor in[5], out[3];
        int64_t wrong_len = c->param_len + 1;
        t_tensor(&in[0], EMBER_DTYPE_F32, c->x_rank, c->xd, buf);
        for (int p = 1; p < 5; p++) {
            bool bad = p == c->bad_param;
            t_tensor(&in[p], bad ? c->bad_dtype : EMBER_DTYPE_F32, 1,
                     bad && c->bad_dtype == EMBER_DTYPE_F32 ? &wrong_len : &c->param_len, buf);
        }
        for (int o = 0; o < 3; o++) {
            t_tensor(&out[o], EMBER_DTYPE_F32, c->x_rank, c->yd, buf);
        }
        t_node tn;
        t_node_init(&tn, EM_OP_BATCHNORM, c->name);
        if (c->training) {
            t_set_int(&tn, "training_mode", 1);
        }
        t_expect_error(
            t_run(t_kernel(EM_OP_BATCHNORM, EMBER_DTYPE_F32), &tn.n, in, 5, out, c->n_out, NULL),
            c->code, c->name, c->name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bn_cases),
        cmocka_unit_test(test_bn_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
