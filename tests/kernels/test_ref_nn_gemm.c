/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_gemm_ref.c: Gemm f32 and MatMul f32 against naive products in double.
 * Gemm: odd M, K, N (1, 3, 7, 17), transA/transB, alpha/beta (including beta = 0 with an inf
 * in C), every broadcast form of C (absent, scalar, [1], [N], [M,1], [1,N], [M,N]), K = 0,
 * threaded == serial, and malformed nodes. MatMul: 1-D x 1-D, 1-D x N-D, N-D x 1-D, batch
 * broadcasting with rank mismatch, zero-sized axes, threaded == serial, and errors.
 */
#include "test_ref_util.h"

#include <stdio.h>

/* ---- Gemm --------------------------------------------------------------------------------- */

typedef struct gemm_case {
    const char *name;
    int64_t m, k, n;
    int ta, tb;
    float alpha, beta; /* alpha = 0 and beta = 0 in the table mean "attribute absent" (1.0) */
    bool set_alpha, set_beta;
    int c_rank; /* -1: no C */
    int64_t c_dims[2];
    uint64_t seed;
} gemm_case;

/* clang-format off */
static const gemm_case gemm_cases[] = {
    {"plain_1x1x1", 1, 1, 1, 0, 0, 0, 0, false, false, -1, {0}, 1},
    {"plain_3x7x17", 3, 7, 17, 0, 0, 0, 0, false, false, -1, {0}, 2},
    {"c_full", 7, 3, 17, 0, 0, 0, 0, false, false, 2, {7, 17}, 3},
    {"c_row", 17, 7, 3, 0, 0, 0, 0, false, false, 2, {1, 3}, 4},
    {"c_col", 17, 7, 3, 0, 0, 0, 0, false, false, 2, {17, 1}, 5},
    {"c_vec_n", 7, 17, 3, 0, 0, 0, 0, false, false, 1, {3}, 6},
    {"c_vec_1", 7, 17, 3, 0, 0, 0, 0, false, false, 1, {1}, 7},
    {"c_scalar", 3, 3, 7, 0, 0, 0, 0, false, false, 0, {0}, 8},
    {"c_1x1", 3, 3, 7, 0, 0, 0, 0, false, false, 2, {1, 1}, 9},
    {"trans_a", 7, 17, 3, 1, 0, 0, 0, false, false, 1, {3}, 10},
    {"trans_b", 7, 17, 3, 0, 1, 0, 0, false, false, 1, {3}, 11},
    {"trans_ab_alpha_beta", 17, 7, 7, 1, 1, 0.5f, -2.0f, true, true, 2, {17, 7}, 12},
    {"alpha_only", 3, 7, 1, 0, 0, 3.0f, 0, true, false, -1, {0}, 13},
    {"beta_zero_ignores_c", 3, 7, 3, 0, 0, 0, 0.0f, false, true, 2, {3, 3}, 14},
    {"k_zero", 3, 0, 7, 0, 0, 0, 0.25f, false, true, 2, {1, 7}, 15},
    {"m_zero", 0, 3, 7, 0, 0, 0, 0, false, false, 1, {7}, 16},
    {"larger_33x65x31", 33, 65, 31, 0, 1, 0, 0, false, false, 1, {31}, 17},
};
/* clang-format on */

static void gemm_naive(const gemm_case *c, const float *a, const float *b, const float *cc,
                       double *y)
{
    double alpha = c->set_alpha ? c->alpha : 1.0, beta = c->set_beta ? c->beta : 1.0;
    for (int64_t i = 0; i < c->m; i++) {
        for (int64_t j = 0; j < c->n; j++) {
            double acc = 0.0;
            for (int64_t k = 0; k < c->k; k++) {
                double av = c->ta ? a[k * c->m + i] : a[i * c->k + k];
                double bv = c->tb ? b[j * c->k + k] : b[k * c->n + j];
                acc += av * bv;
            }
            double v = alpha * acc;
            if (c->c_rank >= 0 && beta != 0.0) {
                int64_t cm = c->c_rank == 2 ? c->c_dims[0] : 1;
                int64_t cn = c->c_rank >= 1 ? c->c_dims[c->c_rank - 1] : 1;
                v += beta * cc[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)];
            }
            y[i * c->n + j] = v;
        }
    }
}

static float *gemm_check(const gemm_case *c, em_threadpool *pool, bool keep)
{
    int64_t ad[2] = {c->ta ? c->k : c->m, c->ta ? c->m : c->k};
    int64_t bd[2] = {c->tb ? c->n : c->k, c->tb ? c->k : c->n};
    int64_t yd[2] = {c->m, c->n};
    int64_t nc = c->c_rank >= 0 ? t_numel(c->c_dims, c->c_rank) : 0;
    float *a = t_random_f32(c->m * c->k, c->seed, -1.0f, 1.0f);
    float *b = t_random_f32(c->k * c->n, c->seed + 100, -1.0f, 1.0f);
    float *cc = c->c_rank >= 0 ? t_random_f32(nc, c->seed + 200, -1.0f, 1.0f) : NULL;
    if (cc != NULL && c->set_beta && c->beta == 0.0f) {
        cc[0] = INFINITY; /* must not leak into Y through 0 * inf */
    }
    float *y = t_f32(c->m * c->n);
    double *ref = t_f64(c->m * c->n);
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, ad, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, bd, b);
    if (cc != NULL) {
        t_tensor(&in[2], EMBER_DTYPE_F32, c->c_rank, c->c_dims, cc);
    } else {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_GEMM, c->name);
    if (c->ta) {
        t_set_int(&tn, "transA", 1);
    }
    if (c->tb) {
        t_set_int(&tn, "transB", 1);
    }
    if (c->set_alpha) {
        t_set_float(&tn, "alpha", c->alpha);
    }
    if (c->set_beta) {
        t_set_float(&tn, "beta", c->beta);
    }
    int n_in = cc != NULL || c->seed % 2 == 0 ? 3 : 2;
    t_expect_ok(t_run(t_kernel(EM_OP_GEMM, EMBER_DTYPE_F32), &tn.n, in, n_in, out, 1, pool),
                c->name);
    gemm_naive(c, a, b, cc, ref);
    t_check_f32(c->name, y, ref, c->m * c->n, 1e-5, 1e-4);
    test_free(a);
    test_free(b);
    test_free(cc);
    test_free(ref);
    if (!keep) {
        test_free(y);
        return NULL;
    }
    return y;
}

static void test_gemm_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof gemm_cases / sizeof gemm_cases[0]; i++) {
        gemm_check(&gemm_cases[i], NULL, false);
    }
}

static void test_gemm_threaded_matches_serial(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof gemm_cases / sizeof gemm_cases[0]; i++) {
        const gemm_case *c = &gemm_cases[i];
        float *serial = gemm_check(c, NULL, true);
        float *threaded = gemm_check(c, pool, true);
        assert_memory_equal(serial, threaded, (size_t)(c->m * c->n) * sizeof(float));
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

typedef struct gemm_bad {
    const char *name;
    ember_code code;
    int a_rank;
    int64_t ad[3], bd[2], yd[2];
    int c_rank; /* -1: none */
    int64_t cd[3];
    int trans_a;
    ember_dtype b_dtype;
} gemm_bad;

/* clang-format off */
static const gemm_bad gemm_bads[] = {
    {"gemm_bad_k", EMBER_ERR_INVALID_MODEL, 2, {3, 4}, {5, 7}, {3, 7}, -1, {0}, 0, EMBER_DTYPE_F32},
    {"gemm_bad_rank", EMBER_ERR_INVALID_MODEL, 3, {1, 3, 4}, {4, 7}, {3, 7}, -1, {0}, 0,
     EMBER_DTYPE_F32},
    {"gemm_bad_c_m_vector", EMBER_ERR_INVALID_MODEL, 2, {3, 4}, {4, 7}, {3, 7}, 1, {3}, 0,
     EMBER_DTYPE_F32},
    {"gemm_bad_c_rank3", EMBER_ERR_INVALID_MODEL, 2, {3, 4}, {4, 7}, {3, 7}, 3, {1, 3, 7}, 0,
     EMBER_DTYPE_F32},
    {"gemm_bad_out", EMBER_ERR_INVALID_MODEL, 2, {3, 4}, {4, 7}, {7, 3}, -1, {0}, 0,
     EMBER_DTYPE_F32},
    {"gemm_bad_trans_value", EMBER_ERR_INVALID_MODEL, 2, {3, 4}, {4, 7}, {3, 7}, -1, {0}, 2,
     EMBER_DTYPE_F32},
    {"gemm_bad_dtype", EMBER_ERR_INVALID_MODEL, 2, {3, 4}, {4, 7}, {3, 7}, -1, {0}, 0,
     EMBER_DTYPE_I32},
};
/* clang-format on */

static void test_gemm_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof gemm_bads / sizeof gemm_bads[0]; i++) {
        const gemm_bad *c = &gemm_bads[i];
        em_tensor in[3], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, c->a_rank, c->ad, buf);
        t_tensor(&in[1], c->b_dtype, 2, c->bd, buf);
        if (c->c_rank >= 0) {
            t_tensor(&in[2], EMBER_DTYPE_F32, c->c_rank, c->cd, buf);
        } else {
            t_absent(&in[2]);
        }
        t_tensor(&out[0], EMBER_DTYPE_F32, 2, c->yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_GEMM, c->name);
        if (c->trans_a != 0) {
            t_set_int(&tn, "transA", c->trans_a);
        }
        t_expect_error(t_run(t_kernel(EM_OP_GEMM, EMBER_DTYPE_F32), &tn.n, in, 3, out, 1, NULL),
                       c->code, c->name, c->name);
    }
}

/* ---- MatMul ------------------------------------------------------------------------------- */

typedef struct matmul_case {
    const char *name;
    int a_rank, b_rank;
    int64_t ad[4], bd[4];
    uint64_t seed;
} matmul_case;

/* clang-format off */
static const matmul_case matmul_cases[] = {
    {"vec_vec", 1, 1, {7}, {7}, 1},
    {"vec_mat", 1, 2, {7}, {7, 3}, 2},
    {"mat_vec", 2, 1, {3, 7}, {7}, 3},
    {"mat_mat", 2, 2, {17, 7}, {7, 3}, 4},
    {"vec_batch", 1, 3, {3}, {2, 3, 5}, 5},
    {"batch_vec", 3, 1, {2, 5, 3}, {3}, 6},
    {"batch_same", 3, 3, {3, 7, 5}, {3, 5, 1}, 7},
    {"batch_broadcast_b", 3, 2, {3, 7, 5}, {5, 4}, 8},
    {"batch_broadcast_a", 2, 3, {7, 5}, {3, 5, 4}, 9},
    {"batch_both_ones", 4, 3, {2, 1, 3, 4}, {5, 4, 6}, 10},
    {"batch_cross", 4, 4, {2, 1, 3, 4}, {1, 5, 4, 2}, 11},
    {"zero_k", 2, 2, {3, 0}, {0, 4}, 12},
    {"zero_m", 3, 2, {2, 0, 3}, {3, 4}, 13},
    {"zero_batch", 3, 3, {0, 2, 3}, {1, 3, 4}, 14},
};
/* clang-format on */

/* Y's shape by numpy's rules, worked out independently of the kernel. */
static int matmul_shape(const matmul_case *c, int64_t *yd)
{
    int ra = c->a_rank > 2 ? c->a_rank - 2 : 0, rb = c->b_rank > 2 ? c->b_rank - 2 : 0;
    int r = ra > rb ? ra : rb, yr = 0;
    for (int d = 0; d < r; d++) {
        int64_t da = d - (r - ra) >= 0 ? c->ad[d - (r - ra)] : 1;
        int64_t db = d - (r - rb) >= 0 ? c->bd[d - (r - rb)] : 1;
        yd[yr++] = da == 1 ? db : da;
    }
    if (c->a_rank > 1) {
        yd[yr++] = c->ad[c->a_rank - 2];
    }
    if (c->b_rank > 1) {
        yd[yr++] = c->bd[c->b_rank - 1];
    }
    return yr;
}

/* Naive: walks every output element, maps its batch coordinate into A and B directly. */
static void matmul_naive(const matmul_case *c, const float *a, const float *b, double *y)
{
    int64_t m = c->a_rank > 1 ? c->ad[c->a_rank - 2] : 1, k = c->ad[c->a_rank - 1];
    int64_t n = c->b_rank > 1 ? c->bd[c->b_rank - 1] : 1;
    int ra = c->a_rank > 2 ? c->a_rank - 2 : 0, rb = c->b_rank > 2 ? c->b_rank - 2 : 0;
    int r = ra > rb ? ra : rb;
    int64_t batch[4], nb = 1;
    for (int d = 0; d < r; d++) {
        int64_t da = d - (r - ra) >= 0 ? c->ad[d - (r - ra)] : 1;
        int64_t db = d - (r - rb) >= 0 ? c->bd[d - (r - rb)] : 1;
        batch[d] = da == 1 ? db : da;
        nb *= batch[d];
    }
    for (int64_t bi = 0; bi < nb; bi++) {
        int64_t coord[4], rest = bi, aoff = 0, boff = 0;
        for (int d = r - 1; d >= 0; d--) {
            coord[d] = rest % batch[d];
            rest /= batch[d];
        }
        for (int d = 0; d < ra; d++) {
            int64_t dim = c->ad[d];
            aoff = aoff * dim + (dim == 1 ? 0 : coord[d + (r - ra)]);
        }
        for (int d = 0; d < rb; d++) {
            int64_t dim = c->bd[d];
            boff = boff * dim + (dim == 1 ? 0 : coord[d + (r - rb)]);
        }
        for (int64_t i = 0; i < m; i++) {
            for (int64_t j = 0; j < n; j++) {
                double acc = 0.0;
                for (int64_t kk = 0; kk < k; kk++) {
                    acc += (double)a[aoff * m * k + i * k + kk] * b[boff * k * n + kk * n + j];
                }
                y[(bi * m + i) * n + j] = acc;
            }
        }
    }
}

static float *matmul_check(const matmul_case *c, em_threadpool *pool, bool keep)
{
    int64_t yd[6];
    int yr = matmul_shape(c, yd);
    int64_t na = t_numel(c->ad, c->a_rank), nb = t_numel(c->bd, c->b_rank), ny = t_numel(yd, yr);
    float *a = t_random_f32(na, c->seed, -1.0f, 1.0f);
    float *b = t_random_f32(nb, c->seed + 50, -1.0f, 1.0f);
    float *y = t_f32(ny);
    double *ref = t_f64(ny);
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, c->a_rank, c->ad, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, c->b_rank, c->bd, b);
    t_tensor(&out[0], EMBER_DTYPE_F32, yr, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_MATMUL, c->name);
    t_expect_ok(t_run(t_kernel(EM_OP_MATMUL, EMBER_DTYPE_F32), &tn.n, in, 2, out, 1, pool),
                c->name);
    matmul_naive(c, a, b, ref);
    t_check_f32(c->name, y, ref, ny, 1e-5, 1e-4);
    test_free(a);
    test_free(b);
    test_free(ref);
    if (!keep) {
        test_free(y);
        return NULL;
    }
    return y;
}

static void test_matmul_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof matmul_cases / sizeof matmul_cases[0]; i++) {
        const matmul_case *c = &matmul_cases[i];
        int64_t yd[6];
        int64_t ny = t_numel(yd, matmul_shape(c, yd));
        float *serial = matmul_check(c, NULL, true);
        float *threaded = matmul_check(c, pool, true);
        assert_memory_equal(serial, threaded, (size_t)(ny > 0 ? ny : 1) * sizeof(float));
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

/* The same cases in f64: inputs are the f32 random values widened (exact), so the naive
 * double result is the exact reference; the kernel must accumulate in double too. */
static void test_matmul_f64(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof matmul_cases / sizeof matmul_cases[0]; i++) {
        const matmul_case *c = &matmul_cases[i];
        int64_t yd[6];
        int yr = matmul_shape(c, yd);
        int64_t na = t_numel(c->ad, c->a_rank), nb = t_numel(c->bd, c->b_rank);
        int64_t ny = t_numel(yd, yr);
        float *a = t_random_f32(na, c->seed, -1.0f, 1.0f);
        float *b = t_random_f32(nb, c->seed + 50, -1.0f, 1.0f);
        double *ad = t_f64(na), *bd = t_f64(nb), *y = t_f64(ny), *ref = t_f64(ny);
        for (int64_t e = 0; e < na; e++) {
            ad[e] = a[e];
        }
        for (int64_t e = 0; e < nb; e++) {
            bd[e] = b[e];
        }
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F64, c->a_rank, c->ad, ad);
        t_tensor(&in[1], EMBER_DTYPE_F64, c->b_rank, c->bd, bd);
        t_tensor(&out[0], EMBER_DTYPE_F64, yr, yd, y);
        t_node tn;
        t_node_init(&tn, EM_OP_MATMUL, c->name);
        t_expect_ok(t_run(t_kernel(EM_OP_MATMUL, EMBER_DTYPE_F64), &tn.n, in, 2, out, 1, NULL),
                    c->name);
        matmul_naive(c, a, b, ref);
        for (int64_t e = 0; e < ny; e++) {
            if (fabs(y[e] - ref[e]) > 1e-12 * (1.0 + fabs(ref[e]))) {
                fail_msg("case %s (f64): element %lld is %.17g, expected %.17g", c->name,
                         (long long)e, y[e], ref[e]);
            }
        }
        test_free(a);
        test_free(b);
        test_free(ad);
        test_free(bd);
        test_free(y);
        test_free(ref);
    }
    /* Mixed f64 and f32 operands are refused. */
    double a2[6] = {0}, y2[4];
    float b2[6] = {0};
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F64, 2, (int64_t[]){2, 3}, a2);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, (int64_t[]){3, 2}, b2);
    t_tensor(&out[0], EMBER_DTYPE_F64, 2, (int64_t[]){2, 2}, y2);
    t_node tn;
    t_node_init(&tn, EM_OP_MATMUL, "mixed");
    t_expect_error(t_run(t_kernel(EM_OP_MATMUL, EMBER_DTYPE_F64), &tn.n, in, 2, out, 1, NULL),
                   EMBER_ERR_INVALID_MODEL, "mixed", "f64 x f32");
}

typedef struct matmul_bad {
    const char *name;
    int a_rank, b_rank, y_rank;
    int64_t ad[3], bd[3], yd[3];
} matmul_bad;

static const matmul_bad matmul_bads[] = {
    {"matmul_bad_k", 2, 2, 2, {3, 4}, {5, 2}, {3, 2}},
    {"matmul_bad_batch", 3, 3, 3, {2, 3, 4}, {3, 4, 2}, {2, 3, 2}},
    {"matmul_bad_out", 2, 2, 2, {3, 4}, {4, 2}, {3, 3}},
    {"matmul_bad_out_rank", 1, 1, 1, {4}, {4}, {1}},
    {"matmul_bad_scalar", 0, 2, 1, {0}, {4, 2}, {2}},
};

static void test_matmul_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof matmul_bads / sizeof matmul_bads[0]; i++) {
        const matmul_bad *c = &matmul_bads[i];
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, c->a_rank, c->ad, buf);
        t_tensor(&in[1], EMBER_DTYPE_F32, c->b_rank, c->bd, buf);
        t_tensor(&out[0], EMBER_DTYPE_F32, c->y_rank, c->yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_MATMUL, c->name);
        t_expect_error(t_run(t_kernel(EM_OP_MATMUL, EMBER_DTYPE_F32), &tn.n, in, 2, out, 1, NULL),
                       EMBER_ERR_INVALID_MODEL, c->name, c->name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_cases),    cmocka_unit_test(test_gemm_threaded_matches_serial),
        cmocka_unit_test(test_gemm_errors),   cmocka_unit_test(test_matmul_cases),
        cmocka_unit_test(test_matmul_errors), cmocka_unit_test(test_matmul_f64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
