/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_pool_ref.c: MaxPool (and its Indices), AveragePool, LpPool and the global pools
 * against naive pooling written here in double. The naive version treats every case as 3-D,
 * works out output sizes and pads from the ONNX formulas itself (explicit pads with floor or
 * ceil_mode, SAME_UPPER, SAME_LOWER, VALID), bounds-checks every tap and takes the first
 * maximum in row-major order. Cases: 1-D, 2-D, 3-D, strides, asymmetric pads, dilations,
 * ceil_mode including a dropped last window, count_include_pad with ceil windows past the end
 * padding, windows lying wholly in the padding, zero batch, p = 1, 2, 3, Indices in both
 * storage orders, the dtypes f16 / f64 / i8 / u8, a threaded run equal to the serial one, a
 * conformance vector, and malformed or declined nodes.
 */
#include "test_ref_util.h"

#include <float.h>
#include <stdio.h>

typedef struct pool_case {
    const char *name;
    em_op op;
    int n_sp;
    int64_t n, c, in[3], k[3];
    int64_t stride[3]; /* all zero: attribute absent */
    int64_t dil[3];    /* all zero: attribute absent */
    int64_t pads[6];
    bool has_pads;
    const char *auto_pad;
    int ceil_mode, count_include_pad;
    uint64_t seed;
    int p;          /* LpPool; 0: attribute absent (2) */
    ember_dtype dt; /* 0: f32 */
} pool_case;

#define MAXP EM_OP_MAXPOOL
#define AVGP EM_OP_AVERAGEPOOL
#define LPP EM_OP_LPPOOL
#define F16 EMBER_DTYPE_F16
#define F64 EMBER_DTYPE_F64

/* clang-format off */
static const pool_case pool_cases[] = {
    {"max_2d_k2s2", MAXP, 2, 1, 3, {8, 8}, {2, 2}, {2, 2}, {0}, {0}, false, NULL, 0, 0, 1, 0, 0},
    {"max_2d_k3_pad1", MAXP, 2, 2, 2, {7, 9}, {3, 3}, {0}, {0}, {1, 1, 1, 1}, true, NULL, 0, 0, 2, 0, 0},
    {"max_2d_asym", MAXP, 2, 1, 2, {7, 8}, {3, 2}, {2, 3}, {0}, {0, 1, 2, 1}, true, NULL, 0, 0, 3, 0, 0},
    {"max_2d_ceil", MAXP, 2, 1, 2, {7, 8}, {3, 3}, {2, 2}, {0}, {0}, false, NULL, 1, 0, 4, 0, 0},
    {"max_1d_ceil_drop", MAXP, 1, 1, 2, {5}, {2}, {3}, {0}, {0, 1}, true, NULL, 1, 0, 5, 0, 0},
    {"avg_1d_ceil_drop_edge", AVGP, 1, 1, 2, {4}, {2}, {2}, {0}, {0, 1}, true, NULL, 1, 1, 29, 0, 0},
    {"max_2d_ceil_pad", MAXP, 2, 1, 1, {6, 6}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL, 1,
     0, 6, 0, 0},
    {"max_2d_dilation", MAXP, 2, 1, 2, {9, 9}, {3, 3}, {0}, {2, 2}, {2, 2, 2, 2}, true, NULL, 0,
     0, 7, 0, 0},
    {"max_same_upper", MAXP, 2, 1, 3, {7, 8}, {3, 3}, {2, 2}, {0}, {0}, false, "SAME_UPPER", 0, 0,
     8, 0, 0},
    {"max_same_lower", MAXP, 2, 1, 3, {7, 8}, {4, 4}, {0}, {0}, {0}, false, "SAME_LOWER", 0, 0,
     9, 0, 0},
    {"max_valid", MAXP, 2, 1, 2, {9, 7}, {3, 3}, {2, 2}, {0}, {0}, false, "VALID", 0, 0, 10, 0, 0},
    {"max_valid_ceil_ignored", MAXP, 2, 1, 2, {8, 8}, {3, 3}, {2, 2}, {0}, {0}, false, "VALID", 1,
     0, 11, 0, 0},
    {"max_1d", MAXP, 1, 2, 3, {17}, {3}, {2}, {0}, {1, 1}, true, NULL, 0, 0, 12, 0, 0},
    {"max_3d", MAXP, 3, 1, 2, {4, 5, 6}, {2, 2, 3}, {2, 1, 2}, {0}, {0}, false, NULL, 0, 0, 13, 0, 0},
    {"max_all_padding_windows", MAXP, 1, 1, 2, {1}, {1}, {0}, {0}, {2, 0}, true, NULL, 0, 0, 14, 0, 0},
    {"max_zero_batch", MAXP, 2, 0, 3, {5, 5}, {2, 2}, {0}, {0}, {0}, false, NULL, 0, 0, 15, 0, 0},
    {"avg_exclude_pad", AVGP, 2, 1, 3, {7, 7}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL, 0,
     0, 16, 0, 0},
    {"avg_include_pad", AVGP, 2, 1, 3, {7, 7}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL, 0,
     1, 17, 0, 0},
    {"avg_ceil_include_pad", AVGP, 2, 1, 2, {6, 6}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL,
     1, 1, 18, 0, 0},
    {"avg_ceil_exclude_pad", AVGP, 2, 1, 2, {6, 6}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL,
     1, 0, 19, 0, 0},
    {"avg_same_upper", AVGP, 2, 2, 2, {7, 6}, {3, 4}, {2, 1}, {0}, {0}, false, "SAME_UPPER", 0, 0,
     20, 0, 0},
    {"avg_same_lower_include", AVGP, 2, 1, 2, {7, 6}, {4, 4}, {0}, {0}, {0}, false, "SAME_LOWER",
     0, 1, 21, 0, 0},
    {"avg_dilation", AVGP, 2, 1, 2, {9, 8}, {2, 3}, {1, 2}, {2, 2}, {1, 1, 2, 0}, true, NULL, 0,
     1, 22, 0, 0},
    {"avg_1d_include_pad", AVGP, 1, 2, 3, {17}, {4}, {3}, {0}, {2, 1}, true, NULL, 0, 1, 23, 0, 0},
    {"avg_3d", AVGP, 3, 1, 2, {4, 5, 6}, {3, 2, 2}, {1, 2, 2}, {0}, {1, 0, 1, 1, 1, 0}, true,
     NULL, 0, 0, 24, 0, 0},
    {"avg_all_padding_windows", AVGP, 1, 1, 2, {1}, {1}, {0}, {0}, {2, 0}, true, NULL, 0, 0, 25, 0, 0},
    {"avg_all_padding_include", AVGP, 1, 1, 2, {1}, {1}, {0}, {0}, {2, 0}, true, NULL, 0, 1, 26, 0, 0},
    {"max_big", MAXP, 2, 2, 8, {28, 28}, {2, 2}, {2, 2}, {0}, {0}, false, NULL, 0, 0, 27, 0, 0},
    {"avg_big", AVGP, 2, 2, 8, {28, 28}, {3, 3}, {0}, {0}, {1, 1, 1, 1}, true, NULL, 0, 0, 28, 0, 0},
    {"lp_2d", LPP, 2, 1, 3, {6, 7}, {3, 2}, {0}, {0}, {0}, false, NULL, 0, 0, 30, 0, 0},
    {"lp_p3_pads", LPP, 2, 2, 2, {5, 6}, {3, 3}, {2, 1}, {0}, {1, 0, 1, 2}, true, NULL, 0, 0, 31,
     3, 0},
    {"lp_p1_dil_ceil", LPP, 2, 1, 2, {8, 7}, {2, 3}, {2, 2}, {2, 1}, {0}, false, NULL, 1, 0, 32, 1, 0},
    {"lp_same_upper_1d", LPP, 1, 2, 2, {9}, {4}, {2}, {0}, {0}, false, "SAME_UPPER", 0, 0, 33, 0, 0},
    {"lp_3d_f64", LPP, 3, 1, 2, {3, 4, 5}, {2, 2, 2}, {1, 2, 2}, {0}, {0}, false, NULL, 0, 0, 34,
     2, F64},
    {"max_f16", MAXP, 2, 1, 2, {5, 6}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL, 0, 0, 35, 0,
     F16},
    {"max_f64_ceil", MAXP, 2, 1, 2, {6, 7}, {3, 2}, {2, 2}, {0}, {0}, false, NULL, 1, 0, 36, 0,
     F64},
    {"max_i8", MAXP, 2, 2, 2, {5, 5}, {2, 3}, {0}, {0}, {1, 1, 0, 1}, true, NULL, 0, 0, 37, 0,
     EMBER_DTYPE_I8},
    {"max_u8_all_padding", MAXP, 1, 1, 2, {1}, {1}, {0}, {0}, {2, 0}, true, NULL, 0, 0, 38, 0,
     EMBER_DTYPE_U8},
    {"max_u8", MAXP, 2, 1, 1, {5, 5}, {5, 5}, {0}, {0}, {2, 2, 2, 2}, true, NULL, 0, 0, 39, 0,
     EMBER_DTYPE_U8},
    {"avg_f16_include", AVGP, 2, 1, 2, {6, 5}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL, 0, 1,
     40, 0, F16},
    {"avg_f64_same_lower", AVGP, 2, 1, 2, {5, 7}, {2, 3}, {0}, {0}, {0}, false, "SAME_LOWER", 0,
     0, 41, 0, F64},
};
/* clang-format on */

typedef struct pool_geom {
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
} pool_geom;

static void pool_geometry(const pool_case *c, pool_geom *g)
{
    for (int i = 0; i < 3; i++) {
        bool sp = i < c->n_sp;
        g->in[i] = sp ? c->in[i] : 1;
        g->k[i] = sp ? c->k[i] : 1;
        g->s[i] = sp && c->stride[0] != 0 ? c->stride[i] : 1;
        g->d[i] = sp && c->dil[0] != 0 ? c->dil[i] : 1;
        g->pb[i] = sp && c->has_pads ? c->pads[i] : 0;
        g->pe[i] = sp && c->has_pads ? c->pads[c->n_sp + i] : 0;
        int64_t ext = (g->k[i] - 1) * g->d[i] + 1;
        if (sp && c->auto_pad != NULL && strncmp(c->auto_pad, "SAME", 4) == 0) {
            g->out[i] = (g->in[i] + g->s[i] - 1) / g->s[i];
            int64_t total = (g->out[i] - 1) * g->s[i] + ext - g->in[i];
            total = total < 0 ? 0 : total;
            g->pb[i] = strcmp(c->auto_pad, "SAME_UPPER") == 0 ? total / 2 : (total + 1) / 2;
            g->pe[i] = total - g->pb[i];
        } else if (sp && c->auto_pad != NULL && strcmp(c->auto_pad, "VALID") == 0) {
            g->out[i] = (g->in[i] - ext) / g->s[i] + 1;
        } else {
            double span = (double)(g->in[i] + g->pb[i] + g->pe[i] - ext) / (double)g->s[i];
            g->out[i] = (int64_t)(c->ceil_mode ? ceil(span) : floor(span)) + 1;
            /* ceil_mode: a window starting in the end padding is dropped. */
            if (c->ceil_mode && (g->out[i] - 1) * g->s[i] >= g->in[i] + g->pb[i]) {
                g->out[i]--;
            }
        }
    }
}

static ember_dtype pool_dt(const pool_case *c)
{
    return c->dt != EMBER_DTYPE_UNDEFINED ? c->dt : EMBER_DTYPE_F32;
}

static bool pool_is_int(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I8 || dt == EMBER_DTYPE_U8;
}

/* The lowest value of the case's dtype: MaxPool's value of a window in the padding. */
static double pool_lowest(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I8   ? -128.0
           : dt == EMBER_DTYPE_U8 ? 0.0
           : dt == F16            ? -65504.0
           : dt == F64            ? -DBL_MAX
                                  : -FLT_MAX;
}

/* One output element of one plane; *arg: the row-major offset of the first maximum, or -1. */
static double pool_point(const pool_case *c, const pool_geom *g, const double *x, const int64_t *o,
                         int64_t *arg)
{
    double mx = pool_lowest(pool_dt(c)), sum = 0.0, lp = 0.0, p = c->p > 0 ? c->p : 2;
    int64_t inside = 0, padded = 0;
    *arg = -1;
    for (int64_t k0 = 0; k0 < g->k[0]; k0++) {
        for (int64_t k1 = 0; k1 < g->k[1]; k1++) {
            for (int64_t k2 = 0; k2 < g->k[2]; k2++) {
                int64_t kk[3] = {k0, k1, k2}, idx[3];
                bool in_input = true, in_padded = true;
                for (int i = 0; i < 3; i++) {
                    idx[i] = o[i] * g->s[i] - g->pb[i] + kk[i] * g->d[i];
                    in_input = in_input && idx[i] >= 0 && idx[i] < g->in[i];
                    in_padded = in_padded && idx[i] >= -g->pb[i] && idx[i] < g->in[i] + g->pe[i];
                }
                padded += in_padded;
                if (in_input) {
                    int64_t off = (idx[0] * g->in[1] + idx[1]) * g->in[2] + idx[2];
                    double v = x[off];
                    if (*arg < 0 || v > mx || (v == mx && off < *arg)) {
                        mx = v;
                        *arg = off;
                    }
                    sum += v;
                    lp += pow(fabs(v), p);
                    inside++;
                }
            }
        }
    }
    if (c->op == EM_OP_MAXPOOL) {
        return mx;
    }
    if (c->op == EM_OP_LPPOOL) {
        return pow(lp, 1.0 / p);
    }
    int64_t count = c->count_include_pad ? padded : inside;
    return count > 0 ? sum / (double)count : 0.0;
}

/* Values and (MaxPool) indices of every output; storage_order 1 gives column-major offsets. */
static void pool_naive(const pool_case *c, const pool_geom *g, const double *x, double *y,
                       int64_t *ind, bool col_major)
{
    int64_t in_plane = g->in[0] * g->in[1] * g->in[2], yi = 0;
    for (int64_t p = 0; p < c->n * c->c; p++) {
        int64_t o[3], arg;
        for (o[0] = 0; o[0] < g->out[0]; o[0]++) {
            for (o[1] = 0; o[1] < g->out[1]; o[1]++) {
                for (o[2] = 0; o[2] < g->out[2]; o[2]++) {
                    y[yi] = pool_point(c, g, x + p * in_plane, o, &arg);
                    if (col_major && arg >= 0) { /* spatial axes first, trailing ones of size 1 */
                        int64_t i2 = arg % g->in[2], i1 = arg / g->in[2] % g->in[1];
                        int64_t i0 = arg / (g->in[1] * g->in[2]);
                        arg = i0 + i1 * g->in[0] + i2 * g->in[0] * g->in[1];
                    }
                    ind[yi++] = arg < 0 ? -1 : p * in_plane + arg;
                }
            }
        }
    }
}

static void pool_node(const pool_case *c, t_node *tn)
{
    t_node_init(tn, c->op, c->name);
    t_set_ints(tn, "kernel_shape", c->k, c->n_sp);
    if (c->stride[0] != 0) {
        t_set_ints(tn, "strides", c->stride, c->n_sp);
    }
    if (c->dil[0] != 0) {
        t_set_ints(tn, "dilations", c->dil, c->n_sp);
    }
    if (c->has_pads) {
        t_set_ints(tn, "pads", c->pads, 2 * c->n_sp);
    }
    if (c->auto_pad != NULL) {
        t_set_string(tn, "auto_pad", c->auto_pad);
    }
    if (c->ceil_mode) {
        t_set_int(tn, "ceil_mode", 1);
    }
    if (c->count_include_pad) {
        t_set_int(tn, "count_include_pad", 1);
    }
    if (c->p > 0) {
        t_set_int(tn, "p", c->p);
    }
}

/* Runs the case (with the Indices output when storage_order >= 0) and checks it; returns Y. */
static void *pool_check(const pool_case *c, em_threadpool *pool, int storage_order, size_t *bytes)
{
    pool_geom g;
    pool_geometry(c, &g);
    ember_dtype dt = pool_dt(c);
    int rank = c->n_sp + 2;
    int64_t xd[5] = {c->n, c->c}, yd[5] = {c->n, c->c};
    for (int i = 0; i < c->n_sp; i++) {
        xd[2 + i] = c->in[i];
        yd[2 + i] = g.out[i];
    }
    int64_t nx = t_numel(xd, rank), ny = t_numel(yd, rank);
    float *xf = t_random_f32(nx, c->seed, pool_is_int(dt) ? -128.0f : -2.0f,
                             pool_is_int(dt) ? 127.0f : 2.0f);
    double *xv = t_f64(nx), *ref = t_f64(ny);
    void *x = test_calloc((size_t)(nx > 0 ? nx : 1), 8),
         *y = test_calloc((size_t)(ny > 0 ? ny : 1), 8);
    int64_t *ind = test_calloc((size_t)(ny > 0 ? ny : 1), 8),
            *want = test_calloc((size_t)(ny > 0 ? ny : 1), 8);
    for (int64_t i = 0; i < nx; i++) {
        em_tref_set(dt, x, i, dt == EMBER_DTYPE_U8 ? fabsf(xf[i]) : xf[i]);
        xv[i] = em_tref_get(dt, x, i);
    }
    em_tensor in[1], out[2];
    t_tensor(&in[0], dt, rank, xd, x);
    t_tensor(&out[0], dt, rank, yd, y);
    t_tensor(&out[1], EMBER_DTYPE_I64, rank, yd, ind);
    t_node tn;
    pool_node(c, &tn);
    if (storage_order > 0) {
        t_set_int(&tn, "storage_order", storage_order);
    }
    const em_kernel *k = t_kernel(c->op, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 1, out, storage_order >= 0 ? 2 : 1, pool), c->name);
    pool_naive(c, &g, xv, ref, want, storage_order == 1);
    double tol = dt == F16 ? 2e-3 : (pool_is_int(dt) ? 0.0 : 1e-5);
    for (int64_t i = 0; i < ny; i++) {
        double got = em_tref_get(dt, y, i);
        if (!t_close(got, ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i, got,
                     ref[i]);
        }
        if (storage_order >= 0 && ind[i] != want[i]) {
            fail_msg("case %s: Indices[%lld] = %lld, expected %lld", c->name, (long long)i,
                     (long long)ind[i], (long long)want[i]);
        }
    }
    test_free(xf);
    test_free(xv);
    test_free(ref);
    test_free(x);
    test_free(ind);
    test_free(want);
    *bytes = (size_t)(ny > 0 ? ny : 1) * em_dtype_size(dt);
    return y;
}

static void test_pool_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof pool_cases / sizeof pool_cases[0]; i++) {
        size_t bytes;
        void *serial = pool_check(&pool_cases[i], NULL, -1, &bytes);
        void *threaded = pool_check(&pool_cases[i], pool, -1, &bytes);
        assert_memory_equal(serial, threaded, bytes);
        test_free(serial);
        test_free(threaded);
        if (pool_cases[i].op == MAXP) { /* Indices in both storage orders */
            test_free(pool_check(&pool_cases[i], i % 2 ? pool : NULL, 0, &bytes));
            test_free(pool_check(&pool_cases[i], NULL, 1, &bytes));
        }
    }
    em_threadpool_destroy(pool);
}

/* ONNX's test_maxpool_with_argmax_2d_precomputed_strides: 1..25 as 5x5, k 2, s 2,
 * storage_order 1 -> values 7 9 17 19, Indices 6 16 8 18 (column-major). */
static void test_pool_argmax_vector(void **state)
{
    (void)state;
    static const int64_t xd[4] = {1, 1, 5, 5}, yd[4] = {1, 1, 2, 2}, k[2] = {2, 2};
    static const int64_t want_i[4] = {6, 16, 8, 18};
    static const double want_y[4] = {7, 9, 17, 19};
    float x[25], y[4];
    int64_t ind[4];
    for (int i = 0; i < 25; i++) {
        x[i] = (float)(i + 1);
    }
    em_tensor in[1], out[2];
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xd, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, yd, y);
    t_tensor(&out[1], EMBER_DTYPE_I64, 4, yd, ind);
    t_node tn;
    t_node_init(&tn, MAXP, "argmax_vector");
    t_set_ints(&tn, "kernel_shape", k, 2);
    t_set_ints(&tn, "strides", k, 2);
    t_set_int(&tn, "storage_order", 1);
    t_expect_ok(t_run(t_kernel(MAXP, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 2, NULL),
                "argmax_vector");
    t_check_f32("argmax_vector", y, want_y, 4, 0.0, 0.0);
    assert_memory_equal(ind, want_i, sizeof want_i);
}

/* Output sizes that pin down the ceil_mode rules, independent of the naive geometry. */
static void test_pool_ceil_sizes(void **state)
{
    (void)state;
    pool_geom g;
    pool_geometry(&pool_cases[4], &g); /* in 5, k 2, s 3, pads (0, 1), ceil: 3 -> 2 */
    assert_int_equal(g.out[0], 2);
    pool_geometry(&pool_cases[5], &g); /* in 4, k 2, s 2, pads (0, 1), ceil: 3 -> 2 (the last
                                        * window would start exactly at the end padding) */
    assert_int_equal(g.out[0], 2);
    pool_geometry(&pool_cases[6], &g); /* in 6, k 3, s 2, pads 1, ceil: 4 */
    assert_int_equal(g.out[0], 4);
    pool_geometry(&pool_cases[11], &g); /* VALID in 8, k 3, s 2: 3 whatever ceil_mode says */
    assert_int_equal(g.out[0], 3);
}

/* MaxPool propagates NaN (as numpy and PyTorch do); AveragePool does by arithmetic. */
static void test_pool_nan(void **state)
{
    (void)state;
    static const int64_t xd[3] = {1, 1, 5}, yd[3] = {1, 1, 4}, k[1] = {2};
    float x[5] = {1.0f, NAN, 3.0f, 2.0f, -1.0f}, y[4];
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, yd, y);
    for (int p = 0; p < 2; p++) {
        em_op op = p == 0 ? EM_OP_MAXPOOL : EM_OP_AVERAGEPOOL;
        t_node tn;
        t_node_init(&tn, op, "pool_nan");
        t_set_ints(&tn, "kernel_shape", k, 1);
        t_expect_ok(t_run(t_kernel(op, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL), "nan");
        assert_true(isnan(y[0]) && isnan(y[1]));
        assert_true(y[2] == (p == 0 ? 3.0f : 2.5f));
        assert_true(y[3] == (p == 0 ? 2.0f : 0.5f));
    }
}

/* ---- GlobalAveragePool, GlobalMaxPool, GlobalLpPool ---------------------------------------- */

static void test_global_cases(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        em_op op;
        int rank, p;
        int64_t dims[5];
        ember_dtype dt;
    } cases[] = {
        {"gap_2d", EM_OP_GLOBALAVERAGEPOOL, 4, 0, {2, 3, 7, 5}, EMBER_DTYPE_F32},
        {"gap_1x1", EM_OP_GLOBALAVERAGEPOOL, 4, 0, {1, 17, 1, 1}, EMBER_DTYPE_F32},
        {"gap_1d", EM_OP_GLOBALAVERAGEPOOL, 3, 0, {2, 3, 7}, EMBER_DTYPE_F32},
        {"gap_3d", EM_OP_GLOBALAVERAGEPOOL, 5, 0, {1, 2, 3, 4, 5}, EMBER_DTYPE_F32},
        {"gap_zero_batch", EM_OP_GLOBALAVERAGEPOOL, 4, 0, {0, 3, 4, 4}, EMBER_DTYPE_F32},
        {"gap_big", EM_OP_GLOBALAVERAGEPOOL, 4, 0, {2, 64, 17, 17}, EMBER_DTYPE_F32},
        {"gap_f16", EM_OP_GLOBALAVERAGEPOOL, 4, 0, {1, 3, 5, 5}, F16},
        {"gmp_2d", EM_OP_GLOBALMAXPOOL, 4, 0, {2, 3, 7, 5}, EMBER_DTYPE_F32},
        {"gmp_3d_f64", EM_OP_GLOBALMAXPOOL, 5, 0, {1, 2, 3, 4, 5}, F64},
        {"gmp_1d_f16", EM_OP_GLOBALMAXPOOL, 3, 0, {2, 5, 9}, F16},
        {"glp_2d", EM_OP_GLOBALLPPOOL, 4, 0, {2, 3, 6, 5}, EMBER_DTYPE_F32},
        {"glp_p3_f64", EM_OP_GLOBALLPPOOL, 4, 3, {1, 2, 4, 3}, F64},
        {"glp_p1_1d", EM_OP_GLOBALLPPOOL, 3, 1, {3, 2, 11}, EMBER_DTYPE_F32},
    };
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rank = cases[i].rank;
        ember_dtype dt = cases[i].dt;
        int64_t yd[5] = {cases[i].dims[0], cases[i].dims[1], 1, 1, 1};
        int64_t planes = yd[0] * yd[1], plane = t_numel(cases[i].dims + 2, rank - 2);
        float *xf = t_random_f32(planes * plane, 40 + i, -3.0f, 3.0f);
        void *x = test_calloc((size_t)(planes * plane + 1), 8),
             *y = test_calloc((size_t)planes + 1, 8);
        double *ref = t_f64(planes), p = cases[i].p > 0 ? cases[i].p : 2;
        for (int64_t q = 0; q < planes; q++) {
            double sum = 0.0, mx = -INFINITY;
            for (int64_t j = 0; j < plane; j++) {
                em_tref_set(dt, x, q * plane + j, xf[q * plane + j]);
                double v = em_tref_get(dt, x, q * plane + j);
                sum += cases[i].op == EM_OP_GLOBALLPPOOL ? pow(fabs(v), p) : v;
                mx = fmax(mx, v);
            }
            ref[q] = cases[i].op == EM_OP_GLOBALMAXPOOL  ? mx
                     : cases[i].op == EM_OP_GLOBALLPPOOL ? pow(sum, 1.0 / p)
                                                         : sum / (double)plane;
        }
        em_tensor in[1], out[1];
        t_tensor(&in[0], dt, rank, cases[i].dims, x);
        t_tensor(&out[0], dt, rank, yd, y);
        t_node tn;
        t_node_init(&tn, cases[i].op, cases[i].name);
        if (cases[i].p > 0) {
            t_set_int(&tn, "p", cases[i].p);
        }
        const em_kernel *k = t_kernel(cases[i].op, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run(k, &tn.n, in, 1, out, 1, i % 2 ? pool : NULL), cases[i].name);
        double tol = dt == F16 ? 2e-3 : 1e-5;
        for (int64_t q = 0; q < planes; q++) {
            if (!t_close(em_tref_get(dt, y, q), ref[q], tol, tol)) {
                fail_msg("case %s: plane %lld: got %.9g, expected %.9g", cases[i].name,
                         (long long)q, em_tref_get(dt, y, q), ref[q]);
            }
        }
        test_free(xf);
        test_free(x);
        test_free(y);
        test_free(ref);
    }
    em_threadpool_destroy(pool);
}

/* ---- errors and declined cases ------------------------------------------------------------ */

typedef struct pool_bad {
    const char *name;
    em_op op;
    ember_code code;
    int rank, n_out;
    int64_t xd[4], yd[4];
    const char *attr;
} pool_bad;

/* clang-format off */
static const pool_bad pool_bads[] = {
    {"mp_storage_order", MAXP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3},
     "storage_order"},
    {"mp_indices_dtype", MAXP, EMBER_ERR_INVALID_MODEL, 4, 2, {1, 1, 4, 4}, {1, 1, 3, 3},
     "indices_f32"},
    {"mp_three_outputs", MAXP, EMBER_ERR_UNSUPPORTED, 4, 3, {1, 1, 4, 4}, {1, 1, 3, 3}, NULL},
    {"mp_i32", MAXP, EMBER_ERR_UNSUPPORTED, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3}, "i32"},
    {"ap_u8", AVGP, EMBER_ERR_UNSUPPORTED, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3}, "u8"},
    {"lp_p0", LPP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3}, "p0"},
    {"lp_p_float", LPP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3}, "p_float"},
    {"gmp_bad_out", EM_OP_GLOBALMAXPOOL, EMBER_ERR_INVALID_MODEL, 4, 1, {2, 3, 4, 4},
     {2, 3, 2, 1}, NULL},
    {"glp_i8", EM_OP_GLOBALLPPOOL, EMBER_ERR_UNSUPPORTED, 4, 1, {2, 3, 4, 4}, {2, 3, 1, 1}, "i8"},
    {"mp_no_kernel_shape", MAXP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3},
     "no_kernel"},
    {"mp_kernel_shape_len", MAXP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3},
     "kernel_len"},
    {"mp_bad_out", MAXP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 4, 4}, NULL},
    {"mp_bad_ceil", MAXP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3}, "ceil2"},
    {"mp_rank2", MAXP, EMBER_ERR_INVALID_MODEL, 2, 1, {1, 4}, {1, 3}, NULL},
    {"mp_kernel_too_big", MAXP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 1, 1}, {1, 1, 0, 0}, NULL},
    {"ap_bad_cip", AVGP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3}, "cip2"},
    {"ap_dilation_zero", AVGP, EMBER_ERR_INVALID_MODEL, 4, 1, {1, 1, 4, 4}, {1, 1, 3, 3},
     "dil0"},
    {"gap_rank2", EM_OP_GLOBALAVERAGEPOOL, EMBER_ERR_INVALID_MODEL, 2, 1, {2, 3}, {2, 3}, NULL},
    {"gap_bad_out", EM_OP_GLOBALAVERAGEPOOL, EMBER_ERR_INVALID_MODEL, 4, 1, {2, 3, 4, 4},
     {2, 3, 1, 2}, NULL},
    {"gap_empty_plane", EM_OP_GLOBALAVERAGEPOOL, EMBER_ERR_UNSUPPORTED, 4, 1, {2, 3, 0, 4},
     {2, 3, 1, 1}, NULL},
};
/* clang-format on */

static void pool_bad_attrs(t_node *tn, const pool_bad *c)
{
    static const int64_t k2[2] = {2, 2}, k3[3] = {2, 2, 2}, d0[2] = {1, 0};
    const char *a = c->attr != NULL ? c->attr : "";
    bool global = c->op == EM_OP_GLOBALAVERAGEPOOL || c->op == EM_OP_GLOBALMAXPOOL ||
                  c->op == EM_OP_GLOBALLPPOOL;
    if (!global && strcmp(a, "no_kernel") != 0) {
        t_set_ints(tn, "kernel_shape", strcmp(a, "kernel_len") == 0 ? k3 : k2,
                   strcmp(a, "kernel_len") == 0 ? 3 : 2);
    }
    if (strcmp(a, "storage_order") == 0) {
        t_set_int(tn, "storage_order", 2);
    } else if (strcmp(a, "p0") == 0) {
        t_set_int(tn, "p", 0);
    } else if (strcmp(a, "p_float") == 0) {
        t_set_float(tn, "p", 2.0f);
    } else if (strcmp(a, "ceil2") == 0) {
        t_set_int(tn, "ceil_mode", 2);
    } else if (strcmp(a, "cip2") == 0) {
        t_set_int(tn, "count_include_pad", 2);
    } else if (strcmp(a, "dil0") == 0) {
        t_set_ints(tn, "dilations", d0, 2);
    }
}

static void test_pool_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof pool_bads / sizeof pool_bads[0]; i++) {
        const pool_bad *c = &pool_bads[i];
        const char *a = c->attr != NULL ? c->attr : "";
        ember_dtype dt = strcmp(a, "i32") == 0  ? EMBER_DTYPE_I32
                         : strcmp(a, "u8") == 0 ? EMBER_DTYPE_U8
                         : strcmp(a, "i8") == 0 ? EMBER_DTYPE_I8
                                                : EMBER_DTYPE_F32;
        em_tensor in[1], out[3];
        t_tensor(&in[0], dt, c->rank, c->xd, buf);
        t_tensor(&out[0], dt, c->rank, c->yd, buf);
        t_tensor(&out[1], strcmp(a, "indices_f32") == 0 ? EMBER_DTYPE_F32 : EMBER_DTYPE_I64,
                 c->rank, c->yd, buf);
        t_tensor(&out[2], EMBER_DTYPE_I64, c->rank, c->yd, buf);
        t_node tn;
        t_node_init(&tn, c->op, c->name);
        pool_bad_attrs(&tn, c);
        const em_kernel *k = t_kernel(c->op, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, 1, out, c->n_out, NULL), c->code, c->name, c->name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_cases),         cmocka_unit_test(test_pool_ceil_sizes),
        cmocka_unit_test(test_pool_argmax_vector), cmocka_unit_test(test_pool_nan),
        cmocka_unit_test(test_global_cases),       cmocka_unit_test(test_pool_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
