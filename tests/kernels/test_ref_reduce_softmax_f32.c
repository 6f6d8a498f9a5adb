/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_softmax_f32_ref.c: Softmax f32 (opset 13, one axis) against a naive softmax in
 * double. Cases: every axis of a 3-D tensor given as positive and negative values, the
 * default axis, rank 1, odd sizes, a length-1 axis, zero-sized axes, large inputs (±1000,
 * which overflow exp without the max subtraction), -inf entries, a threaded run equal to the
 * serial one, and malformed nodes (axis out of range, rank 0, shape mismatch).
 */
#include "test_ref_util.h"

#include <stdio.h>

typedef struct softmax_case {
    const char *name;
    int rank;
    int64_t dims[4];
    bool set_axis;
    int64_t axis;
    float scale; /* inputs drawn from [-scale, scale] */
} softmax_case;

/* clang-format off */
static const softmax_case softmax_cases[] = {
    {"default_axis", 3, {3, 7, 17}, false, 0, 4.0f},
    {"axis0", 3, {3, 7, 17}, true, 0, 4.0f},
    {"axis1", 3, {3, 7, 17}, true, 1, 4.0f},
    {"axis2", 3, {3, 7, 17}, true, 2, 4.0f},
    {"axis_m1", 3, {3, 7, 17}, true, -1, 4.0f},
    {"axis_m2", 3, {3, 7, 17}, true, -2, 4.0f},
    {"axis_m3", 3, {3, 7, 17}, true, -3, 4.0f},
    {"rank1", 1, {17}, false, 0, 4.0f},
    {"rank1_len1", 1, {1}, false, 0, 4.0f},
    {"len1_axis", 3, {3, 1, 5}, true, 1, 4.0f},
    {"rank4_axis1", 4, {2, 10, 3, 3}, true, 1, 4.0f},
    {"large_values", 2, {5, 33}, true, 1, 1000.0f},
    {"zero_outer", 2, {0, 5}, true, 1, 1.0f},
    {"zero_axis", 2, {5, 0}, true, 1, 1.0f},
    {"big_rows", 2, {257, 129}, false, 0, 8.0f},
};
/* clang-format on */

static void softmax_naive(const softmax_case *c, const float *x, double *y)
{
    int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : c->rank - 1);
    int64_t outer = t_numel(c->dims, ax), n = c->dims[ax];
    int64_t inner = t_numel(c->dims + ax + 1, c->rank - ax - 1);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t in = 0; in < inner; in++) {
            const float *xl = x + o * n * inner + in;
            double *yl = y + o * n * inner + in;
            double mx = -INFINITY, s = 0.0;
            /* Not fmax(): GCC 12.2's aarch64 vectorizer fails on that reduction (an internal
             * compiler error in vect_transform_reduction). Same result: a NaN is skipped. */
            for (int64_t i = 0; i < n; i++) {
                mx = xl[i * inner] > mx ? xl[i * inner] : mx;
            }
            for (int64_t i = 0; i < n; i++) {
                s += exp(xl[i * inner] - mx);
            }
            for (int64_t i = 0; i < n; i++) {
                yl[i * inner] = exp(xl[i * inner] - mx) / s;
            }
        }
    }
}

static float *softmax_check(const softmax_case *c, em_threadpool *pool, int64_t *n_out)
{
    int64_t n = t_numel(c->dims, c->rank);
    float *x = t_random_f32(n, (uint64_t)n + 5, -c->scale, c->scale);
    int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : c->rank - 1);
    if (n > 3 && c->dims[ax] > 1 && c->scale < 100.0f) {
        x[1] = -INFINITY; /* contributes exactly 0 to a line with finite entries */
    }
    float *y = t_f32(n);
    double *ref = t_f64(n);
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, c->rank, c->dims, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_SOFTMAX, c->name);
    if (c->set_axis) {
        t_set_int(&tn, "axis", c->axis);
    }
    t_expect_ok(t_run(t_kernel(EM_OP_SOFTMAX, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, pool),
                c->name);
    softmax_naive(c, x, ref);
    t_check_f32(c->name, y, ref, n, 1e-5, 1e-4);
    for (int64_t i = 0; i < n; i++) {
        assert_false(isnan(y[i]));
    }
    test_free(x);
    test_free(ref);
    *n_out = n;
    return y;
}

static void test_softmax_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof softmax_cases / sizeof softmax_cases[0]; i++) {
        int64_t n;
        float *serial = softmax_check(&softmax_cases[i], NULL, &n);
        float *threaded = softmax_check(&softmax_cases[i], pool, &n);
        assert_memory_equal(serial, threaded, (size_t)(n > 0 ? n : 1) * sizeof(float));
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

/* Each line sums to 1. */
static void test_softmax_sums_to_one(void **state)
{
    (void)state;
    int64_t n;
    float *y = softmax_check(&softmax_cases[2], NULL, &n); /* axis 1 of [3, 7, 17] */
    for (int64_t o = 0; o < 3; o++) {
        for (int64_t in = 0; in < 17; in++) {
            double s = 0.0;
            for (int64_t i = 0; i < 7; i++) {
                s += y[(o * 7 + i) * 17 + in];
            }
            assert_true(fabs(s - 1.0) < 1e-6);
        }
    }
    test_free(y);
}

static void test_softmax_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t d[3] = {2, 3, 4}, d_other[3] = {2, 3, 5};
    static const struct {
        const char *name;
        int rank;
        bool set_axis;
        int64_t axis;
        const int64_t *yd;
        ember_dtype out_dtype;
    } bads[] = {
        {"softmax_axis_3", 3, true, 3, d, EMBER_DTYPE_F32},
        {"softmax_axis_m4", 3, true, -4, d, EMBER_DTYPE_F32},
        {"softmax_rank0", 0, false, 0, d, EMBER_DTYPE_F32},
        {"softmax_bad_out", 3, false, 0, d_other, EMBER_DTYPE_F32},
        {"softmax_bad_out_dtype", 3, false, 0, d, EMBER_DTYPE_F64},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, bads[i].rank, d, buf);
        t_tensor(&out[0], bads[i].out_dtype, bads[i].rank, bads[i].yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_SOFTMAX, bads[i].name);
        if (bads[i].set_axis) {
            t_set_int(&tn, "axis", bads[i].axis);
        }
        t_expect_error(t_run(t_kernel(EM_OP_SOFTMAX, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, NULL),
                       EMBER_ERR_INVALID_MODEL, bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_cases),
        cmocka_unit_test(test_softmax_sums_to_one),
        cmocka_unit_test(test_softmax_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
