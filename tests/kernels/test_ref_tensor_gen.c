/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/tensor_gen_ref.c: Shape (start/end, negative and clamped), Size, ConstantOfShape
 * (default f32 zero, int32, f16, bool values; zero-sized and scalar shapes), Range (numpy's
 * arange results for f32/f64/i16/i32/i64, negative deltas, empty ranges, int64 wraparound
 * free extremes) and EyeLike (dtype attribute, k on and off the diagonal, non-square), each
 * against values computed here; malformed nodes fail naming the node.
 */
#include "test_ref_tensor_util.h"

#include <stdio.h>


static const ember_dtype all_dtypes[] = {EMBER_DTYPE_U8, EMBER_DTYPE_F16, EMBER_DTYPE_F32,
                                         EMBER_DTYPE_I64, EMBER_DTYPE_BOOL};
#define N_DTYPES (sizeof all_dtypes / sizeof all_dtypes[0])

static void test_shape_size(void **state)
{
    (void)state;
    static const int64_t xd[4] = {2, 3, 5, 7};
    static const struct {
        const char *name;
        int64_t start, end; /* INT64_MIN: attribute absent */
        int64_t first, n;
    } cases[] = {
        {"all", INT64_MIN, INT64_MIN, 0, 4},
        {"start1", 1, INT64_MIN, 1, 3},
        {"end_neg", INT64_MIN, -1, 0, 3},
        {"both_neg", -3, -1, 1, 2},
        {"clamped", -10, 10, 0, 4},
        {"empty", 3, 1, 0, 0},
        {"start_past_end", 7, INT64_MIN, 0, 0},
    };
    float x[1];
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (size_t di = 0; di < N_DTYPES; di++) {
            t_node nd;
            t_node_init(&nd, EM_OP_SHAPE, "shape");
            if (cases[ci].start != INT64_MIN) {
                t_set_int(&nd, "start", cases[ci].start);
            }
            if (cases[ci].end != INT64_MIN) {
                t_set_int(&nd, "end", cases[ci].end);
            }
            int64_t y[4] = {-1, -1, -1, -1}, n = cases[ci].n;
            em_tensor in, out;
            t_tensor(&in, all_dtypes[di], 4, xd, x); /* data never read */
            t_tensor(&out, EMBER_DTYPE_I64, 1, &n, y);
            t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, 0), cases[ci].name);
            for (int64_t i = 0; i < n; i++) {
                assert_int_equal(y[i], xd[cases[ci].first + i]);
            }
        }
    }
    /* Shape of a scalar is empty; Size counts elements (0 with a zero dim). */
    int64_t y[1], zero = 0, n;
    em_tensor in, out;
    t_node nd;
    t_node_init(&nd, EM_OP_SHAPE, "shape0");
    t_tensor(&in, EMBER_DTYPE_F32, 0, NULL, x);
    t_tensor(&out, EMBER_DTYPE_I64, 1, &zero, y);
    t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, 0), "scalar");
    t_tensor(&out, EMBER_DTYPE_I32, 1, &zero, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "shape0", "i32");
    n = 2;
    t_tensor(&out, EMBER_DTYPE_I64, 1, &n, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "shape0", "len");
    static const int64_t zd[3] = {4, 0, 3};
    t_node_init(&nd, EM_OP_SIZE, "size");
    for (int c = 0; c < 3; c++) {
        t_tensor(&in, c == 2 ? EMBER_DTYPE_U8 : EMBER_DTYPE_F32, c == 0 ? 4 : 3, c == 1 ? zd : xd,
                 x);
        t_tensor(&out, EMBER_DTYPE_I64, 0, NULL, y);
        t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, 0), "size");
        assert_int_equal(y[0], c == 0 ? 210 : c == 1 ? 0 : 30);
    }
    t_tensor(&out, EMBER_DTYPE_I64, 1, &n, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "size", "rank1");
}

/* ---- ConstantOfShape ------------------------------------------------------------------------ */

static void set_value_attr(t_node *nd, ember_dtype dt, void *data, int rank)
{
    em_attr *a = t_attr_new(nd, "value", EM_ATTR_TENSOR);
    static const int64_t one = 1;
    t_tensor(&a->t, dt, rank, &one, data);
}

static void test_constantofshape(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {{2, 3, 4}, {5, 0, 1}, {0}};
    static const int64_t ranks[] = {3, 3, 0};
    float fv = 2.5f;
    int32_t iv = -7;
    uint16_t hv = 0x3C00; /* 1.0 */
    uint8_t bv = 1;
    struct {
        const char *name;
        ember_dtype dt;
        void *v;
    } values[] = {{"default", EMBER_DTYPE_F32, NULL},
                  {"f32", EMBER_DTYPE_F32, &fv},
                  {"i32", EMBER_DTYPE_I32, &iv},
                  {"f16", EMBER_DTYPE_F16, &hv},
                  {"bool", EMBER_DTYPE_BOOL, &bv}};
    for (size_t si = 0; si < 3; si++) {
        for (size_t vi = 0; vi < sizeof values / sizeof values[0]; vi++) {
            for (unsigned konst = 0; konst < 2; konst++) {
                int rank = (int)ranks[si];
                int64_t n = t_numel(shapes[si], rank), len = rank;
                t_node nd;
                t_node_init(&nd, EM_OP_CONSTANTOFSHAPE, "cos");
                if (values[vi].v != NULL) {
                    set_value_attr(&nd, values[vi].dt, values[vi].v, (int)vi % 2);
                }
                void *y = poisoned(values[vi].dt, n);
                em_tensor in, out;
                t_tensor(&in, EMBER_DTYPE_I64, 1, &len, (void *)shapes[si]);
                t_tensor(&out, values[vi].dt, rank, shapes[si], y);
                t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, konst), values[vi].name);
                size_t es = em_dtype_size(values[vi].dt);
                static const unsigned char zero[8] = {0};
                for (int64_t i = 0; i < n; i++) {
                    const void *want = values[vi].v != NULL ? values[vi].v : zero;
                    assert_memory_equal((unsigned char *)y + (size_t)i * es, want, es);
                }
                test_free(y);
            }
        }
    }
    /* A value of two elements; output dtype other than the value's; shape disagreeing. */
    float two[2] = {1, 2}, y[24];
    static const int64_t xd[3] = {2, 3, 4}, bad[3] = {2, 3, 5}, three = 3;
    t_node nd;
    em_tensor in, out;
    t_node_init(&nd, EM_OP_CONSTANTOFSHAPE, "bad_cos");
    em_attr *a = t_attr_new(&nd, "value", EM_ATTR_TENSOR);
    static const int64_t len2 = 2;
    t_tensor(&a->t, EMBER_DTYPE_F32, 1, &len2, two);
    t_tensor(&in, EMBER_DTYPE_I64, 1, &three, (void *)xd);
    t_tensor(&out, EMBER_DTYPE_F32, 3, xd, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cos", "two");
    t_node_init(&nd, EM_OP_CONSTANTOFSHAPE, "bad_cos");
    t_tensor(&out, EMBER_DTYPE_I32, 3, xd, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cos", "dt");
    t_tensor(&out, EMBER_DTYPE_F32, 3, bad, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 1), EMBER_ERR_INVALID_MODEL, "bad_cos", "shp");
    t_tensor(&in, EMBER_DTYPE_I32, 1, &three, (void *)xd);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cos", "i32");
}

/* ---- Range ---------------------------------------------------------------------------------- */

static void test_range(void **state)
{
    (void)state;
    /* Lengths and values as numpy.arange gives them. */
    static const struct {
        const char *name;
        ember_dtype dt;
        double start, limit, delta;
        int64_t n;
    } cases[] = {
        {"f32_up", EMBER_DTYPE_F32, 1, 5, 2, 2},
        {"f32_frac", EMBER_DTYPE_F32, 0.5, 3.25, 0.5, 6},
        {"f32_down", EMBER_DTYPE_F32, 10, 4, -3, 2},
        {"f32_empty", EMBER_DTYPE_F32, 1, 1, 1, 0},
        {"f64", EMBER_DTYPE_F64, -1, 1, 0.3, 7},
        {"i32_down", EMBER_DTYPE_I32, 10, 6, -3, 2},
        {"i32_up", EMBER_DTYPE_I32, -5, 7, 4, 3},
        {"i16", EMBER_DTYPE_I16, 0, 10, 3, 4},
        {"i64_wrong_direction", EMBER_DTYPE_I64, 0, 10, -1, 0},
        {"i64", EMBER_DTYPE_I64, 3, -4, -1, 7},
        {"f16_stash_f32", EMBER_DTYPE_F16, 1, 9, 1.5, 6},  /* Range-27 */
        {"bf16_stash_f32", EMBER_DTYPE_BF16, -2, 2, 0.5, 8},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        ember_dtype dt = cases[ci].dt;
        unsigned char s[8], l[8], d[8];
        em_tref_set(dt, s, 0, cases[ci].start);
        em_tref_set(dt, l, 0, cases[ci].limit);
        em_tref_set(dt, d, 0, cases[ci].delta);
        int64_t n = cases[ci].n;
        void *y = poisoned(dt, n);
        t_node nd;
        t_node_init(&nd, EM_OP_RANGE, "range");
        em_tensor in[3], out;
        t_tensor(&in[0], dt, 0, NULL, s);
        t_tensor(&in[1], dt, 0, NULL, l);
        t_tensor(&in[2], dt, 0, NULL, d);
        t_tensor(&out, dt, 1, &n, y);
        t_expect_ok(run_k(&nd.n, in, 3, &out, 1, (unsigned)ci % 2 ? 7u : 0u), cases[ci].name);
        for (int64_t i = 0; i < n; i++) {
            double want = cases[ci].start + (double)i * cases[ci].delta;
            double got = em_tref_get(dt, y, i);
            if (!t_close(got, want, 0, dt == EMBER_DTYPE_F32 ? 1e-6 : 1e-15)) {
                fail_msg("case %s: element %lld: got %g, want %g", cases[ci].name, (long long)i,
                         got, want);
            }
        }
        test_free(y);
    }
    /* Extremes: int64 start + i * delta right up to the limit without overflow. */
    int64_t s = INT64_MAX - 2, l = INT64_MAX, d = 1, y[2], two = 2;
    t_node nd;
    t_node_init(&nd, EM_OP_RANGE, "range_max");
    em_tensor in[3], out;
    t_tensor(&in[0], EMBER_DTYPE_I64, 0, NULL, &s);
    t_tensor(&in[1], EMBER_DTYPE_I64, 0, NULL, &l);
    t_tensor(&in[2], EMBER_DTYPE_I64, 0, NULL, &d);
    t_tensor(&out, EMBER_DTYPE_I64, 1, &two, y);
    t_expect_ok(run_k(&nd.n, in, 3, &out, 1, 0), "range_max");
    assert_true(y[0] == INT64_MAX - 2 && y[1] == INT64_MAX - 1);
    /* f16 through stash_type double: 0.25 + 2 * 0.5 = 1.25 exactly; other stash types fail */
    uint16_t hs = 0x3400, hl = 0x3E00, hd = 0x3800, hy[3]; /* f16 0.25, 1.5, 0.5 */
    int64_t three = 3;
    t_node_init(&nd, EM_OP_RANGE, "range_stash");
    t_set_int(&nd, "stash_type", EMBER_DTYPE_F64);
    t_tensor(&in[0], EMBER_DTYPE_F16, 0, NULL, &hs);
    t_tensor(&in[1], EMBER_DTYPE_F16, 0, NULL, &hl);
    t_tensor(&in[2], EMBER_DTYPE_F16, 0, NULL, &hd);
    t_tensor(&out, EMBER_DTYPE_F16, 1, &three, hy);
    t_expect_ok(run_k(&nd.n, in, 3, &out, 1, 0), "range_stash");
    assert_true(hy[0] == 0x3400 && hy[1] == 0x3A00 && hy[2] == 0x3D00); /* 0.25, 0.75, 1.25 */
    t_node_init(&nd, EM_OP_RANGE, "range_stash");
    t_set_int(&nd, "stash_type", EMBER_DTYPE_F16);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_UNSUPPORTED, "range_stash", "f16");
    /* Mixed dtypes, non-scalar inputs, unsupported dtype, 2-D output. */
    int32_t l32 = 5;
    t_node_init(&nd, EM_OP_RANGE, "bad_range");
    t_tensor(&in[1], EMBER_DTYPE_I32, 0, NULL, &l32);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_range", "mix");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &two, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_range", "vec");
    uint8_t u = 1;
    for (int i = 0; i < 3; i++) {
        t_tensor(&in[i], EMBER_DTYPE_U8, 0, NULL, &u);
    }
    t_tensor(&out, EMBER_DTYPE_U8, 1, &two, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_UNSUPPORTED, "bad_range", "u8");
}

/* ---- EyeLike -------------------------------------------------------------------------------- */

static void test_eyelike(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{4, 4}, {3, 5}, {5, 2}, {0, 3}};
    static const int64_t ks[] = {0, 1, -1, 3, -4, 9, INT64_MAX, INT64_MIN};
    static const ember_dtype dts[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                      EMBER_DTYPE_I64, EMBER_DTYPE_U8,  EMBER_DTYPE_BOOL,
                                      EMBER_DTYPE_F16, EMBER_DTYPE_BF16};
    float x[25];
    for (size_t si = 0; si < 4; si++) {
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
                int64_t n = shapes[si][0] * shapes[si][1];
                bool attr = di % 2 == 0;
                ember_dtype dt = dts[di], xt = attr ? EMBER_DTYPE_F32 : dt;
                void *y = poisoned(dt, n);
                t_node nd;
                t_node_init(&nd, EM_OP_EYELIKE, "eye");
                if (attr) {
                    t_set_int(&nd, "dtype", dt);
                }
                if (ks[ki] != 0) {
                    t_set_int(&nd, "k", ks[ki]);
                }
                em_tensor in, out;
                t_tensor(&in, xt, 2, shapes[si], x);
                t_tensor(&out, dt, 2, shapes[si], y);
                t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, 0), "eyelike");
                for (int64_t i = 0; i < shapes[si][0]; i++) {
                    for (int64_t j = 0; j < shapes[si][1]; j++) {
                        double got = em_tref_get(dt, y, i * shapes[si][1] + j);
                        double want = (double)j - (double)i == (double)ks[ki] ? 1 : 0;
                        if (got != want) {
                            fail_msg("eyelike %s k=%lld [%lld,%lld]: got %g", em_dtype_name(dt),
                                     (long long)ks[ki], (long long)i, (long long)j, got);
                        }
                    }
                }
                test_free(y);
            }
        }
    }
    float y[6];
    static const int64_t xd[2] = {2, 3}, x1[1] = {6};
    t_node nd;
    em_tensor in, out;
    t_node_init(&nd, EM_OP_EYELIKE, "bad_eye");
    t_tensor(&in, EMBER_DTYPE_F32, 1, x1, x);
    t_tensor(&out, EMBER_DTYPE_F32, 1, x1, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_eye", "1d");
    t_tensor(&in, EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&out, EMBER_DTYPE_F32, 2, xd, y);
    t_set_int(&nd, "dtype", 8); /* string: no ember dtype */
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_eye", "str");
    t_node_init(&nd, EM_OP_EYELIKE, "bad_eye");
    t_set_int(&nd, "dtype", EMBER_DTYPE_I32);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_eye", "dt");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_size),
        cmocka_unit_test(test_constantofshape),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_eyelike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
