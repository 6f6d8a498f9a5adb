/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_scan_ref.c: CumSum and TopK against naive computations.
 * CumSum: every axis (positive, negative, i32 and i64 axis tensors, 0-D and 1-element 1-D),
 * exclusive and reverse in all four combinations, f32 f64 i32 i64, integer wraparound, a
 * zero-sized axis, an axis given only at run time (and out of range there: zeros), errors.
 * TopK: largest and smallest, every axis, k = 0, 1, n, ties (equal values keep the lower
 * index first, checked against a naive O(n^2) rank computation), NaN, dtypes f32 f64 i32 i64
 * i8 u8 u64 (values above 2^63), K constant or not, and malformed nodes.
 */
#define EM_REDUCE_TEST_HELPERS_ONLY
#include "test_ref_reduce_common.c"

/* ---- CumSum ------------------------------------------------------------------------------ */

typedef struct cumsum_case {
    const char *name;
    int rank;
    int64_t dims[4];
    int64_t axis;
    ember_dtype axis_dt;
    int axis_rank; /* 0 or 1 */
} cumsum_case;

/* clang-format off */
static const cumsum_case cumsum_cases[] = {
    {"1d", 1, {7}, 0, EMBER_DTYPE_I32, 0},
    {"2d_axis0", 2, {4, 5}, 0, EMBER_DTYPE_I64, 1},
    {"2d_axis1", 2, {4, 5}, 1, EMBER_DTYPE_I32, 1},
    {"2d_axis_m1", 2, {4, 5}, -1, EMBER_DTYPE_I64, 0},
    {"3d_axis1", 3, {3, 6, 2}, 1, EMBER_DTYPE_I64, 0},
    {"3d_axis_m3", 3, {3, 6, 2}, -3, EMBER_DTYPE_I32, 1},
    {"zero_axis", 2, {3, 0}, 1, EMBER_DTYPE_I64, 0},
};
/* clang-format on */

static const ember_dtype cumsum_dtypes[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                            EMBER_DTYPE_I64};

static void cumsum_naive(const cumsum_case *c, ember_dtype dt, const void *x, bool excl, bool rev,
                         double *y)
{
    int ax = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
    int64_t n = c->dims[ax], inner = t_numel(c->dims + ax + 1, c->rank - ax - 1);
    int64_t total = t_numel(c->dims, c->rank), coord[4] = {0};
    for (int64_t i = 0; i < total; i++) {
        int64_t pos = coord[ax], line = i - pos * inner;
        double s = 0.0;
        for (int64_t j = 0; j < n; j++) {
            bool take = rev ? (excl ? j > pos : j >= pos) : (excl ? j < pos : j <= pos);
            if (take) {
                s += r_get(x, dt, line + j * inner);
            }
        }
        y[i] = s;
        em_ref_coord_next(coord, c->dims, c->rank);
    }
}

static void cumsum_run(const cumsum_case *c, ember_dtype dt, const void *x, void *y, bool excl,
                       bool rev, bool axis_const)
{
    int32_t a32 = (int32_t)c->axis;
    int64_t a64 = c->axis, one = 1;
    em_tensor in[2], out[1];
    t_tensor(&in[0], dt, c->rank, c->dims, (void *)x);
    t_tensor(&in[1], c->axis_dt, c->axis_rank, &one,
             c->axis_dt == EMBER_DTYPE_I32 ? (void *)&a32 : (void *)&a64);
    t_tensor(&out[0], dt, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_CUMSUM, c->name);
    t_set_int(&tn, "exclusive", excl);
    t_set_int(&tn, "reverse", rev);
    t_expect_ok(t_run_const(t_kernel(EM_OP_CUMSUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1,
                            NULL, axis_const ? 0x2u : 0u),
                c->name);
}

static void test_cumsum_cases(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof cumsum_cases / sizeof cumsum_cases[0]; ci++) {
        const cumsum_case *c = &cumsum_cases[ci];
        int64_t n = t_numel(c->dims, c->rank);
        for (size_t di = 0; di < sizeof cumsum_dtypes / sizeof cumsum_dtypes[0]; di++) {
            ember_dtype dt = cumsum_dtypes[di];
            void *x = r_random(dt, n, (uint64_t)(n + ci * 3 + di), -9.0, 9.0);
            for (int mode = 0; mode < 4; mode++) {
                bool excl = mode & 1, rev = (mode & 2) != 0;
                void *y = r_buf(dt, n), *yc = r_buf(dt, n);
                double *ref = t_f64(n);
                cumsum_run(c, dt, x, y, excl, rev, false);
                cumsum_run(c, dt, x, yc, excl, rev, true);
                cumsum_naive(c, dt, x, excl, rev, ref);
                char name[96];
                snprintf(name, sizeof name, "%s/excl%d/rev%d", c->name, excl, rev);
                r_check(name, y, dt, ref, n, 1e-6, dt == EMBER_DTYPE_F32 ? 1e-6 : 1e-12);
                assert_memory_equal(y, yc, (size_t)(n > 0 ? n : 1) * em_dtype_size(dt));
                test_free(y);
                test_free(yc);
                test_free(ref);
            }
            test_free(x);
        }
    }
}

static void test_cumsum_wrap_and_runtime_axis(void **state)
{
    (void)state;
    const cumsum_case c = {"wrap", 1, {3}, 0, EMBER_DTYPE_I64, 0};
    int32_t x[3] = {INT32_MAX, 1, 5}, y[3];
    cumsum_run(&c, EMBER_DTYPE_I32, x, y, false, false, false);
    assert_int_equal(y[0], INT32_MAX);
    assert_int_equal(y[1], INT32_MIN);
    assert_int_equal(y[2], INT32_MIN + 5);
    /* An out-of-range axis seen only in run: zeros. */
    const cumsum_case bad = {"runtime_bad_axis", 1, {3}, 4, EMBER_DTYPE_I64, 0};
    cumsum_run(&bad, EMBER_DTYPE_I32, x, y, false, false, false);
    assert_int_equal(y[0], 0);
    assert_int_equal(y[2], 0);
}

static void test_cumsum_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t xd[2] = {2, 3}, two = 2, other[2] = {3, 2};
    static const struct {
        const char *name;
        ember_dtype x_dt, a_dt;
        int a_rank;
        const int64_t *a_dims, *y_dims;
        int64_t axis;
        ember_code code;
    } bads[] = {
        {"cs_axis_range", EMBER_DTYPE_F32, EMBER_DTYPE_I64, 0, xd, xd, 2, EMBER_ERR_INVALID_MODEL},
        {"cs_axis_f32", EMBER_DTYPE_F32, EMBER_DTYPE_F32, 0, xd, xd, 0, EMBER_ERR_INVALID_MODEL},
        {"cs_axis_two", EMBER_DTYPE_F32, EMBER_DTYPE_I64, 1, &two, xd, 0, EMBER_ERR_INVALID_MODEL},
        {"cs_out_shape", EMBER_DTYPE_F32, EMBER_DTYPE_I64, 0, xd, other, 0,
         EMBER_ERR_INVALID_MODEL},
        {"cs_bool", EMBER_DTYPE_BOOL, EMBER_DTYPE_I64, 0, xd, xd, 0, EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        int64_t axis[2] = {bads[i].axis, bads[i].axis};
        em_tensor in[2], out[1];
        t_tensor(&in[0], bads[i].x_dt, 2, xd, buf);
        t_tensor(&in[1], bads[i].a_dt, bads[i].a_rank, bads[i].a_dims, axis);
        t_tensor(&out[0], bads[i].x_dt, 2, bads[i].y_dims, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_CUMSUM, bads[i].name);
        t_expect_error(t_run_const(t_kernel(EM_OP_CUMSUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out,
                                   1, NULL, 0x2u),
                       bads[i].code, bads[i].name, bads[i].name);
    }
}

/* ---- TopK -------------------------------------------------------------------------------- */

typedef struct topk_case {
    const char *name;
    int rank;
    int64_t dims[3];
    bool set_axis;
    int64_t axis;
    int64_t k;
} topk_case;

/* clang-format off */
static const topk_case topk_cases[] = {
    {"default", 2, {3, 4}, false, 0, 3},
    {"axis0", 2, {6, 5}, true, 0, 2},
    {"axis_m2", 3, {2, 7, 3}, true, -2, 4},
    {"axis1_all", 3, {2, 7, 3}, true, 1, 7},
    {"k1", 1, {13}, false, 0, 1},
    {"k0", 2, {3, 4}, true, 1, 0},
    {"long_line", 1, {100}, true, 0, 37},
    {"zero_outer", 2, {0, 4}, true, 1, 2},
};
/* clang-format on */

static const ember_dtype topk_dtypes[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                          EMBER_DTYPE_I64, EMBER_DTYPE_I8,  EMBER_DTYPE_U8,
                                          EMBER_DTYPE_U64};

/* Naive: the element of rank r on a line is the one with exactly r elements before it in the
 * order (value, then index), found by counting. Fills values (as double) and indices. */
static void topk_naive(const topk_case *c, ember_dtype dt, const void *x, bool largest,
                       double *vals, double *inds)
{
    int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : c->rank - 1);
    int64_t outer = t_numel(c->dims, ax), n = c->dims[ax];
    int64_t inner = t_numel(c->dims + ax + 1, c->rank - ax - 1);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t in = 0; in < inner; in++) {
            for (int64_t i = 0; i < n; i++) {
                double vi = r_get(x, dt, (o * n + i) * inner + in);
                int64_t rank = 0;
                for (int64_t j = 0; j < n; j++) {
                    double vj = r_get(x, dt, (o * n + j) * inner + in);
                    bool before = largest ? vj > vi : vj < vi;
                    rank += before || (vj == vi && j < i);
                }
                if (rank < c->k) {
                    vals[(o * c->k + rank) * inner + in] = vi;
                    inds[(o * c->k + rank) * inner + in] = (double)i;
                }
            }
        }
    }
}

static void topk_run(const topk_case *c, ember_dtype dt, const void *x, bool largest, bool k_const,
                     void *vals, int64_t *inds)
{
    int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : c->rank - 1);
    int64_t od[3], one = 1, k = c->k;
    memcpy(od, c->dims, sizeof od);
    od[ax] = c->k;
    em_tensor in[2], out[2];
    t_tensor(&in[0], dt, c->rank, c->dims, (void *)x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &one, &k);
    t_tensor(&out[0], dt, c->rank, od, vals);
    t_tensor(&out[1], EMBER_DTYPE_I64, c->rank, od, inds);
    t_node tn;
    t_node_init(&tn, EM_OP_TOPK, c->name);
    if (c->set_axis) {
        t_set_int(&tn, "axis", c->axis);
    }
    t_set_int(&tn, "largest", largest);
    t_expect_ok(t_run_const(t_kernel(EM_OP_TOPK, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 2, NULL,
                      k_const ? 0x2u : 0u),
                c->name);
}

static void test_topk_cases(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof topk_cases / sizeof topk_cases[0]; ci++) {
        const topk_case *c = &topk_cases[ci];
        int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : c->rank - 1);
        int64_t n = t_numel(c->dims, c->rank),
                n_out = n / (c->dims[ax] > 0 ? c->dims[ax] : 1) * c->k;
        if (c->dims[ax] == 0 || n == 0) {
            n_out = 0;
        }
        for (size_t di = 0; di < sizeof topk_dtypes / sizeof topk_dtypes[0]; di++) {
            ember_dtype dt = topk_dtypes[di];
            /* A narrow integer range gives many ties. */
            void *x = r_random(dt, n, (uint64_t)(n * 5 + ci + di), 0.0, r_is_float(dt) ? 1.0 : 5.0);
            for (int largest = 0; largest < 2; largest++) {
                void *vals = r_buf(dt, n_out), *vals_c = r_buf(dt, n_out);
                int64_t *inds = test_calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(int64_t));
                int64_t *inds_c = test_calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(int64_t));
                double *rv = t_f64(n_out), *ri = t_f64(n_out);
                topk_run(c, dt, x, largest != 0, false, vals, inds);
                topk_run(c, dt, x, largest != 0, true, vals_c, inds_c);
                topk_naive(c, dt, x, largest != 0, rv, ri);
                char name[96];
                snprintf(name, sizeof name, "%s/largest%d", c->name, largest);
                r_check(name, vals, dt, rv, n_out, 0, 0);
                r_check(name, inds, EMBER_DTYPE_I64, ri, n_out, 0, 0);
                assert_memory_equal(inds, inds_c, (size_t)(n_out > 0 ? n_out : 1) * 8);
                test_free(vals);
                test_free(vals_c);
                test_free(inds);
                test_free(inds_c);
                test_free(rv);
                test_free(ri);
            }
            test_free(x);
        }
    }
}

/* NaN sorts above every number; u64 values above 2^63 compare as unsigned. */
static void test_topk_special(void **state)
{
    (void)state;
    const topk_case c = {"special", 1, {5}, false, 0, 5};
    float xf[5] = {1.0f, NAN, -INFINITY, 7.0f, NAN};
    float vf[5];
    int64_t ind[5];
    topk_run(&c, EMBER_DTYPE_F32, xf, true, false, vf, ind);
    static const int64_t want_l[5] = {1, 4, 3, 0, 2};
    assert_memory_equal(ind, want_l, sizeof want_l);
    topk_run(&c, EMBER_DTYPE_F32, xf, false, false, vf, ind);
    static const int64_t want_s[5] = {2, 0, 3, 1, 4};
    assert_memory_equal(ind, want_s, sizeof want_s);
    uint64_t xu[5] = {1, UINT64_MAX, (uint64_t)1 << 63, 5, UINT64_MAX};
    uint64_t vu[5];
    topk_run(&c, EMBER_DTYPE_U64, xu, true, true, vu, ind);
    static const int64_t want_u[5] = {1, 4, 2, 3, 0};
    assert_memory_equal(ind, want_u, sizeof want_u);
    assert_true(vu[0] == UINT64_MAX && vu[2] == (uint64_t)1 << 63 && vu[4] == 1);
}

static void test_topk_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    int64_t ibuf[64] = {0};
    static const int64_t xd[2] = {3, 4}, od[2] = {3, 2}, big[2] = {3, 5}, od_bad[2] = {2, 2};
    static const struct {
        const char *name;
        ember_dtype x_dt, k_dt, i_dt;
        int64_t k, axis;
        const int64_t *vd, *id;
        int n_out;
        ember_code code;
    } bads[] = {
        {"tk_k_mismatch", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 3, -1, od, od, 2,
         EMBER_ERR_INVALID_MODEL},
        {"tk_k_too_big", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 5, -1, big, big, 2,
         EMBER_ERR_INVALID_MODEL},
        {"tk_k_i32", EMBER_DTYPE_F32, EMBER_DTYPE_I32, EMBER_DTYPE_I64, 2, -1, od, od, 2,
         EMBER_ERR_INVALID_MODEL},
        {"tk_axis", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 2, 2, od, od, 2,
         EMBER_ERR_INVALID_MODEL},
        {"tk_ind_i32", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I32, 2, -1, od, od, 2,
         EMBER_ERR_INVALID_MODEL},
        {"tk_ind_shape", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 2, -1, od, od_bad, 2,
         EMBER_ERR_INVALID_MODEL},
        {"tk_one_output", EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 2, -1, od, od, 1,
         EMBER_ERR_INVALID_MODEL},
        {"tk_bool", EMBER_DTYPE_BOOL, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 2, -1, od, od, 2,
         EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        int64_t one = 1, k = bads[i].k;
        em_tensor in[2], out[2];
        t_tensor(&in[0], bads[i].x_dt, 2, xd, buf);
        t_tensor(&in[1], bads[i].k_dt, 1, &one, &k);
        t_tensor(&out[0], bads[i].x_dt, 2, bads[i].vd, buf);
        t_tensor(&out[1], bads[i].i_dt, 2, bads[i].id, ibuf);
        t_node tn;
        t_node_init(&tn, EM_OP_TOPK, bads[i].name);
        t_set_int(&tn, "axis", bads[i].axis);
        t_expect_error(t_run_const(t_kernel(EM_OP_TOPK, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out,
                             bads[i].n_out, NULL, 0x2u),
                       bads[i].code, bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cumsum_cases),  cmocka_unit_test(test_cumsum_wrap_and_runtime_axis),
        cmocka_unit_test(test_cumsum_errors), cmocka_unit_test(test_topk_cases),
        cmocka_unit_test(test_topk_special),  cmocka_unit_test(test_topk_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
