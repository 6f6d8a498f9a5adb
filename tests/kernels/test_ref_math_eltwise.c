/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/math_eltwise_ref.c: Relu, Sigmoid, Tanh (f32) and Add, Sub, Mul, Div (f32, f64, i32,
 * i64) against naive per-element computations in double (integers exactly). Binary cases
 * cover same shapes, scalars on either side, rows, columns, rank mismatch, two-sided
 * broadcasting, zero-sized axes and a tensor large enough to be split into chunks that start
 * mid-row; each runs serially, on a 2-thread pool, and in place (out = A) where A has the
 * output's shape. Integer edge cases: wraparound, truncating division, x / 0 = 0,
 * INT_MIN / -1. Unary ops see extreme inputs (±1000, -0, NaN). Malformed nodes fail cleanly.
 */
#include "test_ref_util.h"

#include <float.h>
#include <limits.h>
#include <stdio.h>

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, N_OPS };
static const em_op bin_ops[N_OPS] = {EM_OP_ADD, EM_OP_SUB, EM_OP_MUL, EM_OP_DIV};
static const ember_dtype bin_dtypes[4] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                          EMBER_DTYPE_I64};

/* ---- typed buffers ------------------------------------------------------------------------ */

static void *buf_new(ember_dtype dt, int64_t n)
{
    return test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
}

static void buf_set(ember_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        break;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        break;
    case EMBER_DTYPE_I32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    default:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    }
}

static double buf_get(ember_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    default:
        return (double)((const int64_t *)p)[i];
    }
}

static bool is_int(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I32 || dt == EMBER_DTYPE_I64;
}

/* Values for operand `which` (0 = A, 1 = B): small integers (zeros included, also as
 * divisors) or floats; float divisors stay away from zero. */
static void buf_fill(ember_dtype dt, void *p, int64_t n, uint64_t seed, int op, int which)
{
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        double v;
        if (is_int(dt)) {
            v = (double)((int64_t)(test_rng_next(&r) % 41) - 20);
        } else if (op == OP_DIV && which == 1) {
            v = test_rng_float(&r, 0.5f, 2.0f) * (test_rng_next(&r) % 2 ? 1.0 : -1.0);
        } else {
            v = test_rng_float(&r, -4.0f, 4.0f);
        }
        buf_set(dt, p, i, v);
    }
}

/* The expected result. Integer operands here are small, so only Div needs care: it truncates
 * toward zero and x / 0 is 0. */
static double ref_op(int op, ember_dtype dt, double a, double b)
{
    if (is_int(dt) && op == OP_DIV) {
        return b == 0.0 ? 0.0 : (double)((int64_t)a / (int64_t)b);
    }
    switch (op) {
    case OP_ADD:
        return a + b;
    case OP_SUB:
        return a - b;
    case OP_MUL:
        return a * b;
    default:
        return a / b;
    }
}

/* ---- binary cases ------------------------------------------------------------------------- */

typedef struct bin_case {
    const char *name;
    int a_rank, b_rank;
    int64_t ad[4], bd[4];
} bin_case;

/* clang-format off */
static const bin_case bin_cases[] = {
    {"same_shape", 2, 2, {7, 17}, {7, 17}},
    {"scalar_b", 2, 0, {7, 17}, {0}},
    {"scalar_a", 0, 2, {0}, {7, 17}},
    {"both_scalar", 0, 0, {0}, {0}},
    {"row", 2, 2, {7, 17}, {1, 17}},
    {"row_rank_mismatch", 3, 1, {3, 7, 17}, {17}},
    {"column", 2, 2, {7, 17}, {7, 1}},
    {"column_vs_3d", 2, 3, {7, 1}, {3, 1, 17}},
    {"outer", 2, 2, {7, 1}, {1, 17}},
    {"mixed_3d", 3, 2, {3, 1, 5}, {4, 1}},
    {"mixed_4d", 4, 4, {2, 3, 1, 5}, {1, 3, 4, 1}},
    {"middle_broadcast", 3, 3, {3, 7, 5}, {3, 1, 5}},
    {"one_element_a", 1, 1, {1}, {5}},
    {"all_ones", 3, 1, {1, 1, 1}, {1}},
    {"zero_rows", 2, 2, {0, 3}, {1, 3}},
    {"zero_middle", 3, 1, {2, 0, 3}, {3}},
    {"large_row", 2, 1, {300, 257}, {257}},
    {"large_column", 2, 2, {257, 300}, {257, 1}},
};
/* clang-format on */

static int bin_shape(const bin_case *c, int64_t *yd)
{
    int r = c->a_rank > c->b_rank ? c->a_rank : c->b_rank;
    for (int d = 0; d < r; d++) {
        int64_t da = d - (r - c->a_rank) >= 0 ? c->ad[d - (r - c->a_rank)] : 1;
        int64_t db = d - (r - c->b_rank) >= 0 ? c->bd[d - (r - c->b_rank)] : 1;
        yd[d] = da == 1 ? db : da;
    }
    return r;
}

/* Index into an operand of output element coordinate `yc` (numpy broadcasting). */
static int64_t bin_index(const int64_t *dims, int rank, const int64_t *yc, int y_rank)
{
    int64_t idx = 0;
    for (int d = 0; d < rank; d++) {
        idx = idx * dims[d] + (dims[d] == 1 ? 0 : yc[d + (y_rank - rank)]);
    }
    return idx;
}

static void bin_naive(const bin_case *c, int op, ember_dtype dt, const void *a, const void *b,
                      double *ref)
{
    int64_t yd[4], yc[4] = {0};
    int yr = bin_shape(c, yd);
    int64_t ny = t_numel(yd, yr);
    for (int64_t i = 0; i < ny; i++) {
        int64_t rest = i;
        for (int d = yr - 1; d >= 0; d--) {
            yc[d] = rest % yd[d];
            rest /= yd[d];
        }
        double va = buf_get(dt, a, bin_index(c->ad, c->a_rank, yc, yr));
        double vb = buf_get(dt, b, bin_index(c->bd, c->b_rank, yc, yr));
        ref[i] = ref_op(op, dt, va, vb);
    }
}

/* Runs one (case, op, dtype) in `mode` 0 serial, 1 threaded, 2 in place. */
static void bin_check(const bin_case *c, int op, ember_dtype dt, int mode, em_threadpool *pool)
{
    char name[160];
    snprintf(name, sizeof name, "%s/%s/%s/%s", c->name, em_op_name(bin_ops[op]), em_dtype_name(dt),
             mode == 0   ? "serial"
             : mode == 1 ? "threaded"
                         : "inplace");
    int64_t yd[4];
    int yr = bin_shape(c, yd);
    int64_t na = t_numel(c->ad, c->a_rank), nb = t_numel(c->bd, c->b_rank), ny = t_numel(yd, yr);
    uint64_t seed = (uint64_t)(op * 1000 + mode * 7) + (uint64_t)na;
    void *a = buf_new(dt, na), *b = buf_new(dt, nb);
    buf_fill(dt, a, na, seed, op, 0);
    buf_fill(dt, b, nb, seed + 99, op, 1);
    double *ref = t_f64(ny);
    bin_naive(c, op, dt, a, b, ref);
    void *y = mode == 2 ? a : buf_new(dt, ny);
    em_tensor in[2], out[1];
    t_tensor(&in[0], dt, c->a_rank, c->ad, a);
    t_tensor(&in[1], dt, c->b_rank, c->bd, b);
    t_tensor(&out[0], dt, yr, yd, y);
    t_node tn;
    t_node_init(&tn, bin_ops[op], name);
    t_expect_ok(t_run(t_kernel(bin_ops[op], dt), &tn.n, in, 2, out, 1, mode == 1 ? pool : NULL),
                name);
    double rtol = dt == EMBER_DTYPE_F32 ? 1e-6 : 0.0;
    for (int64_t i = 0; i < ny; i++) {
        double got = buf_get(dt, y, i);
        if (!t_close(got, ref[i], 0.0, rtol)) {
            fail_msg("case %s: index %lld: got %.17g, expected %.17g", name, (long long)i, got,
                     ref[i]);
        }
    }
    if (y != a) {
        test_free(y);
    }
    test_free(a);
    test_free(b);
    test_free(ref);
}

static void test_binary_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof bin_cases / sizeof bin_cases[0]; i++) {
        const bin_case *c = &bin_cases[i];
        int64_t yd[4];
        int yr = bin_shape(c, yd);
        /* In place needs A to hold exactly the output's elements. */
        bool inplace = t_numel(c->ad, c->a_rank) == t_numel(yd, yr) && c->a_rank == yr;
        for (int op = 0; op < N_OPS; op++) {
            for (int t = 0; t < 4; t++) {
                for (int mode = 0; mode < (inplace ? 3 : 2); mode++) {
                    bin_check(c, op, bin_dtypes[t], mode, pool);
                }
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* ---- integer edge cases ------------------------------------------------------------------- */

static void run_i32(em_op op, const int32_t *a, const int32_t *b, int32_t *y, int64_t n)
{
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_I32, 1, &n, (void *)a);
    t_tensor(&in[1], EMBER_DTYPE_I32, 1, &n, (void *)b);
    t_tensor(&out[0], EMBER_DTYPE_I32, 1, &n, y);
    t_node tn;
    t_node_init(&tn, op, "int_edges");
    t_expect_ok(t_run(t_kernel(op, EMBER_DTYPE_I32), &tn.n, in, 2, out, 1, NULL), "int_edges");
}

static void run_i64(em_op op, const int64_t *a, const int64_t *b, int64_t *y, int64_t n)
{
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, &n, (void *)a);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &n, (void *)b);
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, &n, y);
    t_node tn;
    t_node_init(&tn, op, "int_edges");
    t_expect_ok(t_run(t_kernel(op, EMBER_DTYPE_I64), &tn.n, in, 2, out, 1, NULL), "int_edges");
}

static void test_integer_edges(void **state)
{
    (void)state;
    int32_t y32[6];
    int64_t y64[6];
    {
        const int32_t a[6] = {-7, 7, -7, 5, INT32_MIN, INT32_MAX};
        const int32_t b[6] = {2, -2, -2, 0, -1, 1};
        const int32_t want_div[6] = {-3, -3, 3, 0, INT32_MIN, INT32_MAX};
        const int32_t want_add[6] = {-5, 5, -9, 5, INT32_MAX, INT32_MIN};
        const int32_t want_sub[6] = {-9, 9, -5, 5, INT32_MIN + 1, INT32_MAX - 1};
        const int32_t want_mul[6] = {-14, -14, 14, 0, INT32_MIN, INT32_MAX};
        run_i32(EM_OP_DIV, a, b, y32, 6);
        assert_memory_equal(y32, want_div, sizeof want_div);
        run_i32(EM_OP_ADD, a, b, y32, 6);
        assert_memory_equal(y32, want_add, sizeof want_add);
        run_i32(EM_OP_SUB, a, b, y32, 6);
        assert_memory_equal(y32, want_sub, sizeof want_sub);
        run_i32(EM_OP_MUL, a, b, y32, 6);
        assert_memory_equal(y32, want_mul, sizeof want_mul);
    }
    {
        const int64_t a[6] = {-7, 7, -7, 5, INT64_MIN, INT64_MAX};
        const int64_t b[6] = {2, -2, -2, 0, -1, 1};
        const int64_t want_div[6] = {-3, -3, 3, 0, INT64_MIN, INT64_MAX};
        const int64_t want_add[6] = {-5, 5, -9, 5, INT64_MAX, INT64_MIN};
        const int64_t want_mul[6] = {-14, -14, 14, 0, INT64_MIN, INT64_MAX};
        run_i64(EM_OP_DIV, a, b, y64, 6);
        assert_memory_equal(y64, want_div, sizeof want_div);
        run_i64(EM_OP_ADD, a, b, y64, 6);
        assert_memory_equal(y64, want_add, sizeof want_add);
        run_i64(EM_OP_MUL, a, b, y64, 6);
        assert_memory_equal(y64, want_mul, sizeof want_mul);
    }
}

/* ---- unary -------------------------------------------------------------------------------- */

static double ref_unary(em_op op, double x)
{
    switch (op) {
    case EM_OP_RELU:
        return x < 0.0 ? 0.0 : x;
    case EM_OP_SIGMOID:
        return 1.0 / (1.0 + exp(-x));
    default:
        return tanh(x);
    }
}

typedef struct unary_case {
    const char *name;
    int rank;
    int64_t dims[3];
} unary_case;

static const unary_case unary_cases[] = {
    {"u_2d", 2, {7, 17}},
    {"u_scalar", 0, {0}},
    {"u_zero", 2, {0, 5}},
    {"u_large", 2, {300, 257}},
};

static void unary_check(em_op op, const unary_case *c, int mode, em_threadpool *pool)
{
    char name[128];
    snprintf(name, sizeof name, "%s/%s/%d", c->name, em_op_name(op), mode);
    int64_t n = t_numel(c->dims, c->rank);
    float *x = t_random_f32(n, (uint64_t)n + (uint64_t)op, -6.0f, 6.0f);
    static const float special[] = {-1000.0f, 1000.0f, -100.0f, 100.0f, -0.0f, 0.0f, 1e-30f};
    for (int64_t i = 0; i < n && i < (int64_t)(sizeof special / sizeof special[0]); i++) {
        x[i] = special[i];
    }
    double *ref = t_f64(n);
    for (int64_t i = 0; i < n; i++) {
        ref[i] = ref_unary(op, x[i]);
    }
    float *y = mode == 2 ? x : t_f32(n);
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, c->rank, c->dims, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, op, name);
    t_expect_ok(t_run(t_kernel(op, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, mode == 1 ? pool : NULL),
                name);
    t_check_f32(name, y, ref, n, 1e-40, 1e-6); /* atol: f32 subnormals (sigmoid(-100)) */
    if (y != x) {
        test_free(y);
    }
    test_free(x);
    test_free(ref);
}

static void test_unary_cases(void **state)
{
    (void)state;
    static const em_op ops[3] = {EM_OP_RELU, EM_OP_SIGMOID, EM_OP_TANH};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof unary_cases / sizeof unary_cases[0]; i++) {
        for (int o = 0; o < 3; o++) {
            for (int mode = 0; mode < 3; mode++) {
                unary_check(ops[o], &unary_cases[i], mode, pool);
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* Relu keeps NaN and -0; sigmoid and tanh of NaN are NaN. */
static void test_unary_special(void **state)
{
    (void)state;
    float x[3] = {NAN, -0.0f, -INFINITY}, y[3];
    int64_t n = 3;
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, y);
    t_node tn;
    t_node_init(&tn, EM_OP_RELU, "relu_special");
    t_expect_ok(t_run(t_kernel(EM_OP_RELU, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, NULL), "relu");
    assert_true(isnan(y[0]));
    assert_true(y[1] == 0.0f && signbit(y[1]));
    assert_true(y[2] == 0.0f);
    tn.n.op = EM_OP_SIGMOID;
    t_expect_ok(t_run(t_kernel(EM_OP_SIGMOID, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, NULL),
                "sigmoid");
    assert_true(isnan(y[0]));
    assert_true(y[1] == 0.5f && y[2] == 0.0f);
    tn.n.op = EM_OP_TANH;
    t_expect_ok(t_run(t_kernel(EM_OP_TANH, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, NULL), "tanh");
    assert_true(isnan(y[0]));
    assert_true(y[2] == -1.0f);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_eltwise_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t d34[2] = {3, 4}, d54[2] = {5, 4}, d44[2] = {4, 4}, d4[1] = {4};
    em_tensor in[2], out[1];
    t_node tn;

    t_node_init(&tn, EM_OP_ADD, "add_not_broadcastable");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d34, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, d54, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d54, buf);
    t_expect_error(t_run(t_kernel(EM_OP_ADD, EMBER_DTYPE_F32), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "add_not_broadcastable", "not broadcastable");

    t_node_init(&tn, EM_OP_MUL, "mul_bad_out");
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d4, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d44, buf);
    t_expect_error(t_run(t_kernel(EM_OP_MUL, EMBER_DTYPE_F32), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "mul_bad_out", "bad out");

    t_node_init(&tn, EM_OP_SUB, "sub_mixed_dtypes");
    t_tensor(&in[1], EMBER_DTYPE_F64, 1, d4, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d34, buf);
    t_expect_error(t_run(t_kernel(EM_OP_SUB, EMBER_DTYPE_F32), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "sub_mixed_dtypes", "mixed dtypes");

    t_node_init(&tn, EM_OP_DIV, "div_u8");
    t_tensor(&in[0], EMBER_DTYPE_U8, 2, d34, buf);
    t_tensor(&in[1], EMBER_DTYPE_U8, 1, d4, buf);
    t_tensor(&out[0], EMBER_DTYPE_U8, 2, d34, buf);
    t_expect_error(t_run(t_kernel(EM_OP_DIV, EMBER_DTYPE_I32), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_UNSUPPORTED, "div_u8", "u8");

    t_node_init(&tn, EM_OP_RELU, "relu_bad_out");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d34, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d44, buf);
    t_expect_error(t_run(t_kernel(EM_OP_RELU, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "relu_bad_out", "relu out");

    t_node_init(&tn, EM_OP_TANH, "tanh_f64");
    t_tensor(&in[0], EMBER_DTYPE_F64, 2, d34, buf);
    t_tensor(&out[0], EMBER_DTYPE_F64, 2, d34, buf);
    t_expect_error(t_run(t_kernel(EM_OP_TANH, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "tanh_f64", "tanh f64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_cases),   cmocka_unit_test(test_integer_edges),
        cmocka_unit_test(test_unary_cases),    cmocka_unit_test(test_unary_special),
        cmocka_unit_test(test_eltwise_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
