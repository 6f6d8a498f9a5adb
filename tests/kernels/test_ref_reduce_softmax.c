/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_softmax_ref.c: LogSoftmax and Hardmax (opset 13) in f32 and f64 against
 * naive per-line computations in double. Cases: every axis of a 3-D tensor, positive and
 * negative, the default axis, rank 1, a length-1 axis, zero-sized axes, large inputs (±1000:
 * exp overflows without the max subtraction), ties in Hardmax (the first maximum wins), NaN
 * and infinities, threaded runs equal to serial ones, and malformed nodes. LpNormalization-22
 * (p 1 and 2, every axis, a zero norm giving 0) on hand-computed values in f64, f32 and f16
 * (whose bit patterns, the nearest halves of 3/13, 4/13 and 12/13, come from Python's struct
 * 'e' format), and its errors.
 */
#define EM_REDUCE_TEST_HELPERS_ONLY
#include "test_ref_reduce_common.c"

typedef struct axis_case {
    const char *name;
    int rank;
    int64_t dims[4];
    bool set_axis;
    int64_t axis;
    double scale;
} axis_case;

/* clang-format off */
static const axis_case axis_cases[] = {
    {"default_axis", 3, {3, 7, 17}, false, 0, 4.0},
    {"axis0", 3, {3, 7, 17}, true, 0, 4.0},
    {"axis1", 3, {3, 7, 17}, true, 1, 4.0},
    {"axis_m1", 3, {3, 7, 17}, true, -1, 4.0},
    {"axis_m2", 3, {3, 7, 17}, true, -2, 4.0},
    {"axis_m3", 3, {3, 7, 17}, true, -3, 4.0},
    {"rank1", 1, {17}, false, 0, 4.0},
    {"len1_axis", 3, {3, 1, 5}, true, 1, 4.0},
    {"rank4", 4, {2, 10, 3, 3}, true, 1, 4.0},
    {"large_values", 2, {5, 33}, true, 1, 1000.0},
    {"zero_outer", 2, {0, 5}, true, 1, 1.0},
    {"zero_axis", 2, {5, 0}, true, 1, 1.0},
};
/* clang-format on */

static const ember_dtype float_dtypes[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64};

static int case_axis(const axis_case *c)
{
    return (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : c->rank - 1);
}

static void axis_naive(const axis_case *c, bool hard, ember_dtype dt, const void *x, double *y)
{
    int ax = case_axis(c);
    int64_t outer = t_numel(c->dims, ax), n = c->dims[ax];
    int64_t inner = t_numel(c->dims + ax + 1, c->rank - ax - 1);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t in = 0; in < inner; in++) {
            int64_t base = o * n * inner + in, arg = 0;
            double mx = -INFINITY, s = 0.0;
            for (int64_t i = 0; i < n; i++) {
                double v = r_get(x, dt, base + i * inner);
                if (v > mx) {
                    mx = v;
                    arg = i;
                }
            }
            for (int64_t i = 0; i < n; i++) {
                s += exp(r_get(x, dt, base + i * inner) - mx);
            }
            for (int64_t i = 0; i < n; i++) {
                double v = r_get(x, dt, base + i * inner);
                y[base + i * inner] = hard ? (i == arg ? 1.0 : 0.0) : v - mx - log(s);
            }
        }
    }
}

static void *axis_run(const axis_case *c, em_op op, ember_dtype dt, const void *x,
                      em_threadpool *pool)
{
    int64_t n = t_numel(c->dims, c->rank);
    void *y = r_buf(dt, n);
    em_tensor in[1], out[1];
    t_tensor(&in[0], dt, c->rank, c->dims, (void *)x);
    t_tensor(&out[0], dt, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, op, c->name);
    if (c->set_axis) {
        t_set_int(&tn, "axis", c->axis);
    }
    t_expect_ok(t_run(t_kernel(op, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, pool), c->name);
    return y;
}

static void test_axis_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof axis_cases / sizeof axis_cases[0]; ci++) {
        const axis_case *c = &axis_cases[ci];
        for (size_t di = 0; di < 2; di++) {
            for (int hard = 0; hard < 2; hard++) {
                ember_dtype dt = float_dtypes[di];
                em_op op = hard ? EM_OP_HARDMAX : EM_OP_LOGSOFTMAX;
                int64_t n = t_numel(c->dims, c->rank);
                void *x = r_random(dt, n, (uint64_t)(n + ci), -c->scale, c->scale);
                if (hard && n > 4) {
                    r_set(x, dt, 3, r_get(x, dt, 2) + 100.0); /* a line with a clear max */
                }
                void *y = axis_run(c, op, dt, x, NULL);
                void *yp = axis_run(c, op, dt, x, pool);
                double *ref = t_f64(n);
                axis_naive(c, hard != 0, dt, x, ref);
                char name[96];
                snprintf(name, sizeof name, "%s/%s", c->name, em_op_name(op));
                r_check(name, y, dt, ref, n, 1e-6, dt == EMBER_DTYPE_F32 ? 1e-6 : 1e-12);
                assert_memory_equal(y, yp, (size_t)(n > 0 ? n : 1) * em_dtype_size(dt));
                test_free(x);
                test_free(y);
                test_free(yp);
                test_free(ref);
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* Ties: the first maximum; NaN counts as the maximum; LogSoftmax with -inf and +inf. */
static void test_special_values(void **state)
{
    (void)state;
    const axis_case c = {"special", 1, {5}, false, 0, 1.0};
    float ties[5] = {1.0f, 3.0f, 2.0f, 3.0f, 3.0f};
    float *y = axis_run(&c, EM_OP_HARDMAX, EMBER_DTYPE_F32, ties, NULL);
    static const double hard_ties[5] = {0, 1, 0, 0, 0};
    r_check("hardmax_ties", y, EMBER_DTYPE_F32, hard_ties, 5, 0, 0);
    test_free(y);
    float nan_x[5] = {1.0f, 3.0f, NAN, 9.0f, NAN};
    y = axis_run(&c, EM_OP_HARDMAX, EMBER_DTYPE_F32, nan_x, NULL);
    static const double hard_nan[5] = {0, 0, 1, 0, 0};
    r_check("hardmax_nan", y, EMBER_DTYPE_F32, hard_nan, 5, 0, 0);
    test_free(y);
    float ninf[5] = {0.0f, -INFINITY, 0.0f, -INFINITY, 0.0f};
    y = axis_run(&c, EM_OP_LOGSOFTMAX, EMBER_DTYPE_F32, ninf, NULL);
    double l3 = -log(3.0);
    const double ls_ninf[5] = {l3, -INFINITY, l3, -INFINITY, l3};
    r_check("logsoftmax_ninf", y, EMBER_DTYPE_F32, ls_ninf, 5, 1e-6, 1e-6);
    test_free(y);
    float pinf[5] = {0.0f, INFINITY, 0.0f, 1.0f, 2.0f};
    y = axis_run(&c, EM_OP_LOGSOFTMAX, EMBER_DTYPE_F32, pinf, NULL);
    for (int i = 0; i < 5; i++) {
        assert_true(isnan(y[i]));
    }
    test_free(y);
}

static void test_axis_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t d[3] = {2, 3, 4}, d_other[3] = {2, 3, 5};
    static const struct {
        const char *name;
        em_op op;
        int rank;
        int64_t axis;
        ember_dtype x_dt, y_dt;
        const int64_t *yd;
        ember_code code;
    } bads[] = {
        {"ls_axis_3", EM_OP_LOGSOFTMAX, 3, 3, EMBER_DTYPE_F32, EMBER_DTYPE_F32, d,
         EMBER_ERR_INVALID_MODEL},
        {"hm_axis_m4", EM_OP_HARDMAX, 3, -4, EMBER_DTYPE_F32, EMBER_DTYPE_F32, d,
         EMBER_ERR_INVALID_MODEL},
        {"ls_rank0", EM_OP_LOGSOFTMAX, 0, -1, EMBER_DTYPE_F32, EMBER_DTYPE_F32, d,
         EMBER_ERR_INVALID_MODEL},
        {"hm_bad_out", EM_OP_HARDMAX, 3, -1, EMBER_DTYPE_F32, EMBER_DTYPE_F32, d_other,
         EMBER_ERR_INVALID_MODEL},
        {"ls_out_dtype", EM_OP_LOGSOFTMAX, 3, -1, EMBER_DTYPE_F32, EMBER_DTYPE_F64, d,
         EMBER_ERR_INVALID_MODEL},
        {"hm_i32", EM_OP_HARDMAX, 3, -1, EMBER_DTYPE_I32, EMBER_DTYPE_I32, d,
         EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], bads[i].x_dt, bads[i].rank, d, buf);
        t_tensor(&out[0], bads[i].y_dt, bads[i].rank, bads[i].yd, buf);
        t_node tn;
        t_node_init(&tn, bads[i].op, bads[i].name);
        t_set_int(&tn, "axis", bads[i].axis);
        t_expect_error(
            t_run(t_kernel(bads[i].op, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
            bads[i].code, bads[i].name, bads[i].name);
    }
}

static ember_status *lpnorm(const t_node *tn, ember_dtype dt, int rank, const int64_t *dims,
                            const void *x, void *y)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], dt, rank, dims, (void *)x);
    t_tensor(&out[0], dt, rank, dims, y);
    return t_run(t_kernel(EM_OP_LPNORMALIZATION, EMBER_DTYPE_UNDEFINED), &tn->n, in, 1, out, 1,
                 NULL);
}

/* LpNormalization of x (f64 or f32, dims [2, n / 2]) with attributes p and axis (0: absent),
 * against want within rtol. */
static void lp_case(const char *name, ember_dtype dt, const int64_t *dims, const void *x,
                    const double *want, int64_t p, int64_t axis, double rtol)
{
    double y[6];
    t_node tn;
    t_node_init(&tn, EM_OP_LPNORMALIZATION, name);
    if (p != 0) {
        t_set_int(&tn, "p", p);
    }
    t_set_int(&tn, "axis", axis);
    t_expect_ok(lpnorm(&tn, dt, 2, dims, x, y), name);
    for (int64_t i = 0; i < dims[0] * dims[1]; i++) {
        double got = dt == EMBER_DTYPE_F64 ? y[i] : (double)((const float *)(void *)y)[i];
        if (!t_close(got, want[i], 0, rtol)) {
            fail_msg("%s: element %lld is %.17g, expected %.17g", name, (long long)i, got,
                     want[i]);
        }
    }
}

static void test_lpnorm_values(void **state)
{
    (void)state;
    t_node tn;
    const int64_t d22[2] = {2, 2}, d23[2] = {2, 3}, d3[1] = {3};
    /* p = 2 along axis 1: [3, 4] / 5; an all-zero row stays 0 (not NaN) */
    const double x1[4] = {3, 4, 0, 0}, w1[4] = {0.6, 0.8, 0, 0};
    lp_case("l2_axis1", EMBER_DTYPE_F64, d22, x1, w1, 0, 1, 1e-15);
    /* p = 2 along axis 0: columns [3, 4] and [1, 1] */
    const double x0[4] = {3, 1, 4, 1}, w0[4] = {0.6, sqrt(0.5), 0.8, sqrt(0.5)};
    lp_case("l2_axis0", EMBER_DTYPE_F64, d22, x0, w0, 2, 0, 1e-15);
    /* p = 1 along the last axis: sum of |x| is 5 and 7 */
    const float x2[6] = {1, 2, 2, 3, 0, -4};
    const double w2[6] = {0.2, 0.4, 0.4, 3.0 / 7, 0, -4.0 / 7};
    lp_case("l1_last", EMBER_DTYPE_F32, d23, x2, w2, 1, -1, 1e-7);
    /* defaults (p 2, axis -1) in f16: [3, 4, 12] / 13 */
    const uint16_t x3[3] = {0x4200, 0x4400, 0x4A00}, w3[3] = {0x3362, 0x34EC, 0x3B62};
    uint16_t y3[3];
    t_node_init(&tn, EM_OP_LPNORMALIZATION, "l2_f16");
    t_expect_ok(lpnorm(&tn, EMBER_DTYPE_F16, 1, d3, x3, y3), "l2_f16");
    assert_memory_equal(y3, w3, sizeof w3);
}

static void test_lpnorm_errors(void **state)
{
    (void)state;
    t_node tn;
    const int64_t d22[2] = {2, 2};
    double buf[4] = {0};
    int32_t ibuf[4] = {0};
    t_node_init(&tn, EM_OP_LPNORMALIZATION, "lp_p3");
    t_set_int(&tn, "p", 3);
    t_expect_error(lpnorm(&tn, EMBER_DTYPE_F64, 2, d22, buf, buf), EMBER_ERR_INVALID_MODEL,
                   "lp_p3", "p 3");
    t_node_init(&tn, EM_OP_LPNORMALIZATION, "lp_axis");
    t_set_int(&tn, "axis", 2);
    t_expect_error(lpnorm(&tn, EMBER_DTYPE_F64, 2, d22, buf, buf), EMBER_ERR_INVALID_MODEL,
                   "lp_axis", "axis 2");
    t_node_init(&tn, EM_OP_LPNORMALIZATION, "lp_i32");
    t_expect_error(lpnorm(&tn, EMBER_DTYPE_I32, 2, d22, ibuf, ibuf), EMBER_ERR_UNSUPPORTED,
                   "lp_i32", "i32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axis_cases),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_axis_errors),
        cmocka_unit_test(test_lpnorm_values),
        cmocka_unit_test(test_lpnorm_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
