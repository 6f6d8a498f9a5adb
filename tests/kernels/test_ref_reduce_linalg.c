/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_linalg_ref.c: Det in f32 and f64 against the Leibniz formula (a sum over
 * all permutations, independent of elimination) for M = 1..5, batched inputs [*, M, M],
 * M = 0 (determinant 1), matrices that need pivoting (zero leading entry), singular matrices
 * (exactly 0), and malformed nodes.
 * Einsum against loops written out per equation: matmul, batch matmul, transpose (explicit and
 * implicit "ji"), diagonal, trace, inner and outer products, sums, three inputs, mixed-case
 * labels (implicit output in ASCII order), spaces, "..." batch diagonal and "..." broadcasting
 * of different ranks with size-1 dims, zero-sized labels; f32 f64 i32 i64 (integer products
 * wrap); and malformed equations.
 */
#define EM_REDUCE_TEST_HELPERS_ONLY
#include "test_ref_reduce_common.c"

/* Leibniz: sum over permutations p of sign(p) * prod a[i][p[i]], by recursion over rows. */
static double leibniz(const double *a, int64_t m, int64_t row, unsigned used)
{
    if (row == m) {
        return 1.0;
    }
    double s = 0.0;
    int sign = 1;
    for (int64_t c = 0; c < m; c++) {
        if (used & (1u << c)) {
            continue;
        }
        s += sign * a[row * m + c] * leibniz(a, m, row + 1, used | (1u << c));
        sign = -sign;
    }
    return s;
}

static void det_run(ember_dtype dt, int rank, const int64_t *dims, void *x, void *y,
                    const char *name)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], dt, rank, dims, x);
    t_tensor(&out[0], dt, rank - 2, dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_DET, name);
    t_expect_ok(t_run(t_kernel(EM_OP_DET, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
                name);
}

static void test_det_cases(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t dims[4];
    } cases[] = {
        {"2d", 2, {2, 2}},
        {"1x1", 2, {1, 1}},
        {"3x3", 2, {3, 3}},
        {"batch", 3, {4, 3, 3}},
        {"nd_batch", 4, {2, 3, 4, 4}},
        {"5x5", 2, {5, 5}},
        {"m0", 3, {2, 0, 0}},
    };
    static const ember_dtype dts[2] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int rank = cases[ci].rank;
        int64_t m = cases[ci].dims[rank - 1], mm = m * m;
        int64_t batch = t_numel(cases[ci].dims, rank - 2), n = batch * mm;
        for (size_t di = 0; di < 2; di++) {
            ember_dtype dt = dts[di];
            void *x = r_random(dt, n, (uint64_t)(n + ci), -2.0, 2.0);
            if (m >= 2) {
                r_set(x, dt, 0, 0.0); /* the first pivot needs a row swap */
            }
            void *y = r_buf(dt, batch);
            double *ref = t_f64(batch), *a = t_f64(mm);
            det_run(dt, rank, cases[ci].dims, x, y, cases[ci].name);
            for (int64_t b = 0; b < batch; b++) {
                for (int64_t i = 0; i < mm; i++) {
                    a[i] = r_get(x, dt, b * mm + i);
                }
                ref[b] = leibniz(a, m, 0, 0);
            }
            r_check(cases[ci].name, y, dt, ref, batch, 1e-6, dt == EMBER_DTYPE_F32 ? 1e-5 : 1e-11);
            test_free(x);
            test_free(y);
            test_free(ref);
            test_free(a);
        }
    }
}

static void test_det_singular(void **state)
{
    (void)state;
    /* Row 2 = row 0 + row 1; and a zero column. */
    double x[18] = {1, 2, 3, 4, 5, 6, 5, 7, 9, 0, 1, 2, 0, 3, 4, 0, 5, 6}, y[2] = {7, 7};
    static const int64_t d[3] = {2, 3, 3};
    det_run(EMBER_DTYPE_F64, 3, d, x, y, "singular");
    assert_true(fabs(y[0]) < 1e-12);
    assert_true(y[1] == 0.0);
    /* A permutation matrix with an odd permutation: -1. */
    float p[9] = {0, 1, 0, 1, 0, 0, 0, 0, 1}, py;
    det_run(EMBER_DTYPE_F32, 2, d + 1, p, &py, "permutation");
    assert_true(py == -1.0f);
}

static void test_det_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t sq[3] = {2, 3, 3}, rect[2] = {3, 4}, d1[1] = {3}, other[1] = {3};
    static const struct {
        const char *name;
        ember_dtype dt, y_dt;
        int rank;
        const int64_t *dims;
        int y_rank;
        const int64_t *yd;
        ember_code code;
    } bads[] = {
        {"det_rect", EMBER_DTYPE_F32, EMBER_DTYPE_F32, 2, rect, 0, NULL, EMBER_ERR_INVALID_MODEL},
        {"det_rank1", EMBER_DTYPE_F32, EMBER_DTYPE_F32, 1, d1, 0, NULL, EMBER_ERR_INVALID_MODEL},
        {"det_out_shape", EMBER_DTYPE_F32, EMBER_DTYPE_F32, 3, sq, 1, other,
         EMBER_ERR_INVALID_MODEL},
        {"det_out_dtype", EMBER_DTYPE_F32, EMBER_DTYPE_F64, 3, sq, 1, sq, EMBER_ERR_INVALID_MODEL},
        {"det_i32", EMBER_DTYPE_I32, EMBER_DTYPE_I32, 3, sq, 1, sq, EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], bads[i].dt, bads[i].rank, bads[i].dims, buf);
        t_tensor(&out[0], bads[i].y_dt, bads[i].y_rank, bads[i].yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_DET, bads[i].name);
        t_expect_error(
            t_run(t_kernel(EM_OP_DET, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
            bads[i].code, bads[i].name, bads[i].name);
    }
}

/* ---- Einsum ------------------------------------------------------------------------------ */

/* Expected output of one equation from inputs as doubles (x[i] row-major). */
typedef void (*ein_ref_fn)(const double *const *x, double *y);

static void ref_matmul(const double *const *x, double *y) /* [2,3] x [3,4] */
{
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 4; k++) {
            double s = 0;
            for (int j = 0; j < 3; j++) {
                s += x[0][i * 3 + j] * x[1][j * 4 + k];
            }
            y[i * 4 + k] = s;
        }
    }
}

static void ref_bmm(const double *const *x, double *y) /* [3,2,4] x [3,4,5] */
{
    for (int b = 0; b < 3; b++) {
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < 5; k++) {
                double s = 0;
                for (int j = 0; j < 4; j++) {
                    s += x[0][(b * 2 + i) * 4 + j] * x[1][(b * 4 + j) * 5 + k];
                }
                y[(b * 2 + i) * 5 + k] = s;
            }
        }
    }
}

static void ref_transpose(const double *const *x, double *y) /* [3,4] -> [4,3] */
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++) {
            y[j * 3 + i] = x[0][i * 4 + j];
        }
    }
}

static void ref_diag(const double *const *x, double *y) /* [4,4] -> [4] */
{
    for (int i = 0; i < 4; i++) {
        y[i] = x[0][i * 5];
    }
}

static void ref_trace(const double *const *x, double *y)
{
    y[0] = x[0][0] + x[0][5] + x[0][10] + x[0][15];
}

static void ref_inner(const double *const *x, double *y) /* [5], [5] */
{
    y[0] = 0;
    for (int i = 0; i < 5; i++) {
        y[0] += x[0][i] * x[1][i];
    }
}

static void ref_outer(const double *const *x, double *y) /* [3], [4] -> [3,4] */
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++) {
            y[i * 4 + j] = x[0][i] * x[1][j];
        }
    }
}

static void ref_sum(const double *const *x, double *y) /* [3,4] -> [] */
{
    y[0] = 0;
    for (int i = 0; i < 12; i++) {
        y[0] += x[0][i];
    }
}

static void ref_rowsum(const double *const *x, double *y) /* [3,4] -> [3] */
{
    for (int i = 0; i < 3; i++) {
        y[i] = x[0][i * 4] + x[0][i * 4 + 1] + x[0][i * 4 + 2] + x[0][i * 4 + 3];
    }
}

static void ref_chain(const double *const *x, double *y) /* [2,3] [3,4] [4,2] -> [2,2] */
{
    for (int i = 0; i < 2; i++) {
        for (int l = 0; l < 2; l++) {
            double s = 0;
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k < 4; k++) {
                    s += x[0][i * 3 + j] * x[1][j * 4 + k] * x[2][k * 2 + l];
                }
            }
            y[i * 2 + l] = s;
        }
    }
}

/* "Ab,bc" (A = 2, b = 3, c = 4): implicit output "Ac" (ASCII: A before c). */
static void ref_mixed(const double *const *x, double *y)
{
    ref_matmul(x, y);
}

static void ref_batch_diag(const double *const *x, double *y) /* [3,2,4,4] -> [3,2,4] */
{
    for (int b = 0; b < 6; b++) {
        for (int i = 0; i < 4; i++) {
            y[b * 4 + i] = x[0][b * 16 + i * 5];
        }
    }
}

/* "...ij,...jk": A [2,1,3,4], B [5,4,2] -> [2,5,3,2] (implicit "...ik"). */
static void ref_bcast(const double *const *x, double *y)
{
    for (int p = 0; p < 2; p++) {
        for (int q = 0; q < 5; q++) {
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < 2; k++) {
                    double s = 0;
                    for (int j = 0; j < 4; j++) {
                        s += x[0][(p * 3 + i) * 4 + j] * x[1][(q * 4 + j) * 2 + k];
                    }
                    y[((p * 5 + q) * 3 + i) * 2 + k] = s;
                }
            }
        }
    }
}

static void ref_zero(const double *const *x, double *y) /* "ij,jk" with j = 0: zeros [2,3] */
{
    (void)x;
    for (int i = 0; i < 6; i++) {
        y[i] = 0;
    }
}

typedef struct ein_case {
    const char *name, *eq;
    int n_in;
    int rank[3];
    int64_t dims[3][4];
    int out_rank;
    int64_t out_dims[4];
    ein_ref_fn ref;
} ein_case;

/* clang-format off */
static const ein_case ein_cases[] = {
    {"matmul", "ij,jk->ik", 2, {2, 2}, {{2, 3}, {3, 4}}, 2, {2, 4}, ref_matmul},
    {"matmul_implicit_spaces", " ij , jk ", 2, {2, 2}, {{2, 3}, {3, 4}}, 2, {2, 4}, ref_matmul},
    {"batch_matmul", "bij,bjk->bik", 2, {3, 3}, {{3, 2, 4}, {3, 4, 5}}, 3, {3, 2, 5}, ref_bmm},
    {"transpose", "ij->ji", 1, {2}, {{3, 4}}, 2, {4, 3}, ref_transpose},
    {"transpose_implicit", "ji", 1, {2}, {{3, 4}}, 2, {4, 3}, ref_transpose},
    {"diagonal", "ii->i", 1, {2}, {{4, 4}}, 1, {4}, ref_diag},
    {"trace", "ii", 1, {2}, {{4, 4}}, 0, {0}, ref_trace},
    {"inner", "i,i", 2, {1, 1}, {{5}, {5}}, 0, {0}, ref_inner},
    {"outer", "i,j->ij", 2, {1, 1}, {{3}, {4}}, 2, {3, 4}, ref_outer},
    {"sum", "ij->", 1, {2}, {{3, 4}}, 0, {0}, ref_sum},
    {"rowsum", "ij->i", 1, {2}, {{3, 4}}, 1, {3}, ref_rowsum},
    {"chain", "ij,jk,kl->il", 3, {2, 2, 2}, {{2, 3}, {3, 4}, {4, 2}}, 2, {2, 2}, ref_chain},
    {"mixed_case", "Ab,bc", 2, {2, 2}, {{2, 3}, {3, 4}}, 2, {2, 4}, ref_mixed},
    {"batch_diagonal", "...ii->...i", 1, {4}, {{3, 2, 4, 4}}, 3, {3, 2, 4}, ref_batch_diag},
    {"ellipsis_bcast", "...ij,...jk", 2, {4, 3}, {{2, 1, 3, 4}, {5, 4, 2}}, 4, {2, 5, 3, 2},
     ref_bcast},
    {"zero_label", "ij,jk", 2, {2, 2}, {{2, 0}, {0, 3}}, 2, {2, 3}, ref_zero},
};
/* clang-format on */

static void test_einsum_cases(void **state)
{
    (void)state;
    static const ember_dtype dts[4] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                       EMBER_DTYPE_I64};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof ein_cases / sizeof ein_cases[0]; ci++) {
        const ein_case *c = &ein_cases[ci];
        int64_t n_out = t_numel(c->out_dims, c->out_rank);
        for (size_t di = 0; di < 4; di++) {
            ember_dtype dt = dts[di];
            void *x[3] = {NULL, NULL, NULL};
            double *xd[3] = {NULL, NULL, NULL};
            em_tensor in[3], out[1];
            for (int i = 0; i < c->n_in; i++) {
                int64_t n = t_numel(c->dims[i], c->rank[i]);
                x[i] = r_random(dt, n, (uint64_t)(n * 3 + i + ci), -3.0, 3.0);
                xd[i] = t_f64(n);
                for (int64_t k = 0; k < n; k++) {
                    xd[i][k] = r_get(x[i], dt, k);
                }
                t_tensor(&in[i], dt, c->rank[i], c->dims[i], x[i]);
            }
            void *y = r_buf(dt, n_out), *yp = r_buf(dt, n_out);
            double *ref = t_f64(n_out);
            t_tensor(&out[0], dt, c->out_rank, c->out_dims, y);
            t_node tn;
            t_node_init(&tn, EM_OP_EINSUM, c->name);
            t_set_string(&tn, "equation", c->eq);
            const em_kernel *k = t_kernel(EM_OP_EINSUM, EMBER_DTYPE_UNDEFINED);
            t_expect_ok(t_run(k, &tn.n, in, c->n_in, out, 1, NULL), c->name);
            out[0].data = yp;
            t_expect_ok(t_run(k, &tn.n, in, c->n_in, out, 1, pool), c->name);
            c->ref((const double *const *)xd, ref);
            r_check(c->name, y, dt, ref, n_out, 1e-6, dt == EMBER_DTYPE_F32 ? 1e-6 : 1e-12);
            assert_memory_equal(y, yp, (size_t)(n_out > 0 ? n_out : 1) * em_dtype_size(dt));
            for (int i = 0; i < c->n_in; i++) {
                test_free(x[i]);
                test_free(xd[i]);
            }
            test_free(y);
            test_free(yp);
            test_free(ref);
        }
    }
    em_threadpool_destroy(pool);
}

/* Einsum "i,i->" (a dot product) of two vectors of 2 elements of dtype dt. */
static void dot2(ember_dtype dt, const void *a, const void *b, void *y, const char *name)
{
    static const int64_t d2 = 2;
    em_tensor in[2], out[1];
    t_tensor(&in[0], dt, 1, &d2, (void *)a);
    t_tensor(&in[1], dt, 1, &d2, (void *)b);
    t_tensor(&out[0], dt, 0, NULL, y);
    t_node tn;
    t_node_init(&tn, EM_OP_EINSUM, name);
    t_set_string(&tn, "equation", "i,i->");
    t_expect_ok(t_run(t_kernel(EM_OP_EINSUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1, NULL),
                name);
}

/* Integer products and sums wrap (two's complement). */
static void test_einsum_wrap(void **state)
{
    (void)state;
    int32_t a[2] = {65536, 3}, b[2] = {65536, 1}, y = 0;
    dot2(EMBER_DTYPE_I32, a, b, &y, "wrap");
    assert_int_equal(y, 3); /* 2^32 wraps to 0, plus 3 */
}

/* 16-bit floats (Det-22, Einsum-28): computed in double, rounded once. bf16 1, 2, 3, 4 are
 * 0x3F80 0x4000 0x4040 0x4080; f16 2, 1, 3 are 0x4000 0x3C00 0x4200; det [[2, 1], [1, 3]] = 5
 * is f16 0x4500; [1, 2] . [3, 4] = 11 is bf16 0x4130. */
static void test_half_floats(void **state)
{
    (void)state;
    const uint16_t m[4] = {0x4000, 0x3C00, 0x3C00, 0x4200};
    uint16_t det = 0;
    const int64_t d22[2] = {2, 2};
    det_run(EMBER_DTYPE_F16, 2, d22, (void *)m, &det, "det_f16");
    assert_int_equal(det, 0x4500);
    const uint16_t a[2] = {0x3F80, 0x4000}, b[2] = {0x4040, 0x4080};
    uint16_t y = 0;
    dot2(EMBER_DTYPE_BF16, a, b, &y, "dot_bf16");
    assert_int_equal(y, 0x4130);
}

static void test_einsum_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t d23[2] = {2, 3}, d34[2] = {3, 4}, d44[2] = {4, 4}, d24[2] = {2, 4};
    static const struct {
        const char *name, *eq;
        const int64_t *b_dims, *y_dims;
        ember_dtype b_dt;
    } bads[] = {
        {"e_terms", "ij->ij", d34, d24, EMBER_DTYPE_F32},
        {"e_rank", "ijk,jk->ik", d34, d24, EMBER_DTYPE_F32},
        {"e_size", "ij,jk->ik", d44, d24, EMBER_DTYPE_F32},
        {"e_char", "ij,j1->i", d34, d24, EMBER_DTYPE_F32},
        {"e_dots", "i..j,jk->ik", d34, d24, EMBER_DTYPE_F32},
        {"e_out_absent", "ij,jk->iz", d34, d24, EMBER_DTYPE_F32},
        {"e_out_repeat", "ij,jk->ii", d34, d24, EMBER_DTYPE_F32},
        {"e_out_shape", "ij,jk->ki", d34, d24, EMBER_DTYPE_F32},
        {"e_dtypes", "ij,jk->ik", d34, d24, EMBER_DTYPE_F64},
        {"e_no_equation", NULL, d34, d24, EMBER_DTYPE_F32},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 2, d23, buf);
        t_tensor(&in[1], bads[i].b_dt, 2, bads[i].b_dims, buf);
        t_tensor(&out[0], EMBER_DTYPE_F32, 2, bads[i].y_dims, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_EINSUM, bads[i].name);
        if (bads[i].eq != NULL) {
            t_set_string(&tn, "equation", bads[i].eq);
        }
        t_expect_error(
            t_run(t_kernel(EM_OP_EINSUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1, NULL),
            EMBER_ERR_INVALID_MODEL, bads[i].name, bads[i].name);
    }
    int32_t ib[4] = {0};
    static const int64_t d2 = 2;
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, &d2, ib);
    t_tensor(&out[0], EMBER_DTYPE_U8, 1, &d2, ib);
    t_node tn;
    t_node_init(&tn, EM_OP_EINSUM, "e_u8");
    t_set_string(&tn, "equation", "i->i");
    t_expect_error(t_run(t_kernel(EM_OP_EINSUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
                   EMBER_ERR_UNSUPPORTED, "e_u8", "e_u8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_det_cases),   cmocka_unit_test(test_det_singular),
        cmocka_unit_test(test_det_errors),  cmocka_unit_test(test_einsum_cases),
        cmocka_unit_test(test_einsum_wrap), cmocka_unit_test(test_einsum_errors),
        cmocka_unit_test(test_half_floats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
