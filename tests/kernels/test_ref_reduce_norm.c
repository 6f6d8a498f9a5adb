/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_norm_ref.c: LayerNormalization, InstanceNormalization,
 * MeanVarianceNormalization and LRN in f32 and f64 against naive formulas in double (written
 * directly from the ONNX definitions, with E[x^2] - E[x]^2 variances on well-conditioned data).
 * Cases: every LayerNorm axis (positive and negative) with and without B, broadcast Scale/B,
 * the optional Mean and InvStdDev outputs (f32 and f64), epsilon; InstanceNorm over 1-D to 3-D
 * spatial; MVN with the default and explicit (negative) axes; LRN with odd and even sizes and
 * non-default alpha/beta/bias; threaded runs equal to serial ones; malformed nodes.
 */
#define EM_REDUCE_TEST_HELPERS_ONLY
#include "test_ref_reduce_common.c"

static const ember_dtype float_dtypes[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64};

static double tol(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 ? 1e-5 : 1e-10;
}

/* ---- LayerNormalization ------------------------------------------------------------------ */

typedef struct ln_case {
    const char *name;
    int rank;
    int64_t dims[4];
    int64_t axis;
    int s_rank; /* Scale (and B) rank: the trailing dims of X, or 1s where bcast_one */
    bool bcast_one, has_b;
    int n_out;
    ember_dtype stat_dt;
    float eps;
} ln_case;

/* clang-format off */
static const ln_case ln_cases[] = {
    {"2d_axis1", 2, {3, 8}, 1, 1, false, true, 3, EMBER_DTYPE_F32, 1e-5f},
    {"2d_axis0", 2, {3, 8}, 0, 2, false, true, 3, EMBER_DTYPE_F32, 1e-5f},
    {"3d_axis_m2", 3, {2, 3, 5}, -2, 2, false, false, 1, EMBER_DTYPE_F32, 1e-2f},
    {"4d_axis2_f64_stats", 4, {2, 3, 4, 5}, 2, 2, false, true, 3, EMBER_DTYPE_F64, 1e-5f},
    {"4d_axis_m1_mean_only", 4, {2, 3, 4, 5}, -1, 1, false, true, 2, EMBER_DTYPE_F32, 1e-5f},
    {"bcast_scale", 3, {2, 3, 5}, 1, 2, true, true, 1, EMBER_DTYPE_F32, 1e-5f},
    {"short_scale", 3, {2, 3, 5}, 1, 1, false, true, 1, EMBER_DTYPE_F32, 1e-5f},
};
/* clang-format on */

static void test_layernorm_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof ln_cases / sizeof ln_cases[0]; ci++) {
        const ln_case *c = &ln_cases[ci];
        int ax = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
        int64_t n = t_numel(c->dims, c->rank), outer = t_numel(c->dims, ax), inner = n / outer;
        int64_t sd[4], stat_d[4];
        for (int d = 0; d < c->s_rank; d++) {
            sd[d] = c->dims[c->rank - c->s_rank + d];
        }
        if (c->bcast_one) {
            sd[c->s_rank - 1] = 1; /* broadcast along the last axis */
        }
        for (int d = 0; d < c->rank; d++) {
            stat_d[d] = d < ax ? c->dims[d] : 1;
        }
        int64_t ns = t_numel(sd, c->s_rank);
        for (size_t di = 0; di < 2; di++) {
            ember_dtype dt = float_dtypes[di];
            void *x = r_random(dt, n, (uint64_t)(n + ci), -3.0, 5.0);
            void *s = r_random(dt, ns, (uint64_t)(ns + 7), 0.5, 2.0);
            void *b = r_random(dt, ns, (uint64_t)(ns + 9), -1.0, 1.0);
            void *y[2], *mean[2], *inv[2];
            for (int run = 0; run < 2; run++) {
                y[run] = r_buf(dt, n);
                mean[run] = r_buf(c->stat_dt, outer);
                inv[run] = r_buf(c->stat_dt, outer);
                em_tensor in[3], out[3];
                t_tensor(&in[0], dt, c->rank, c->dims, x);
                t_tensor(&in[1], dt, c->s_rank, sd, s);
                t_tensor(&in[2], dt, c->s_rank, sd, b);
                t_tensor(&out[0], dt, c->rank, c->dims, y[run]);
                t_tensor(&out[1], c->stat_dt, c->rank, stat_d, mean[run]);
                t_tensor(&out[2], c->stat_dt, c->rank, stat_d, inv[run]);
                t_node tn;
                t_node_init(&tn, EM_OP_LAYERNORM, c->name);
                t_set_int(&tn, "axis", c->axis);
                t_set_float(&tn, "epsilon", c->eps);
                t_expect_ok(t_run(t_kernel(EM_OP_LAYERNORM, EMBER_DTYPE_UNDEFINED), &tn.n, in,
                                  c->has_b ? 3 : 2, out, c->n_out, run ? pool : NULL),
                            c->name);
            }
            double *ry = t_f64(n), *rm = t_f64(outer), *ri = t_f64(outer);
            for (int64_t o = 0; o < outer; o++) {
                double s1 = 0.0, s2 = 0.0;
                for (int64_t i = 0; i < inner; i++) {
                    double v = r_get(x, dt, o * inner + i);
                    s1 += v;
                    s2 += v * v;
                }
                double m = s1 / (double)inner, var = s2 / (double)inner - m * m;
                rm[o] = m;
                ri[o] = 1.0 / sqrt(var + (double)c->eps);
                for (int64_t i = 0; i < inner; i++) {
                    /* Scale index: i over the trailing s_rank dims, the last one maybe 1. */
                    int64_t last = c->dims[c->rank - 1], si = i % ns;
                    if (c->bcast_one) {
                        si = (i / last) % ns;
                    }
                    double v = (r_get(x, dt, o * inner + i) - m) * ri[o] * r_get(s, dt, si);
                    ry[o * inner + i] = v + (c->has_b ? r_get(b, dt, si) : 0.0);
                }
            }
            r_check(c->name, y[0], dt, ry, n, tol(dt), tol(dt));
            if (c->n_out > 1) {
                r_check(c->name, mean[0], c->stat_dt, rm, outer, tol(dt), tol(c->stat_dt));
            }
            if (c->n_out > 2) {
                r_check(c->name, inv[0], c->stat_dt, ri, outer, tol(dt), tol(c->stat_dt));
            }
            assert_memory_equal(y[0], y[1], (size_t)n * em_dtype_size(dt));
            for (int run = 0; run < 2; run++) {
                test_free(y[run]);
                test_free(mean[run]);
                test_free(inv[run]);
            }
            test_free(x);
            test_free(s);
            test_free(b);
            test_free(ry);
            test_free(rm);
            test_free(ri);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_layernorm_errors(void **state)
{
    (void)state;
    float buf[128] = {0};
    static const int64_t xd[3] = {2, 3, 4}, s4[1] = {4}, s5[1] = {5}, s34[2] = {3, 4},
                         st_ok[3] = {2, 3, 1}, st_bad[3] = {2, 1, 1};
    static const struct {
        const char *name;
        ember_dtype x_dt, s_dt, st_dt;
        int s_rank;
        const int64_t *sd, *std;
        int64_t axis;
        ember_code code;
    } bads[] = {
        {"ln_axis", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 1, s4, st_ok, 3,
         EMBER_ERR_INVALID_MODEL},
        {"ln_scale_dims", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 1, s5, st_ok, -1,
         EMBER_ERR_INVALID_MODEL},
        {"ln_scale_rank", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 2, s34, st_ok, -1,
         EMBER_ERR_INVALID_MODEL},
        {"ln_scale_dtype", EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_F32, 1, s4, st_ok, -1,
         EMBER_ERR_INVALID_MODEL},
        {"ln_stat_shape", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 1, s4, st_bad, -1,
         EMBER_ERR_INVALID_MODEL},
        {"ln_stat_dtype", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_I32, 1, s4, st_ok, -1,
         EMBER_ERR_UNSUPPORTED},
        {"ln_i32", EMBER_DTYPE_I32, EMBER_DTYPE_I32, EMBER_DTYPE_F32, 1, s4, st_ok, -1,
         EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[2], out[2];
        t_tensor(&in[0], bads[i].x_dt, 3, xd, buf);
        t_tensor(&in[1], bads[i].s_dt, bads[i].s_rank, bads[i].sd, buf);
        t_tensor(&out[0], bads[i].x_dt, 3, xd, buf);
        t_tensor(&out[1], bads[i].st_dt, 3, bads[i].std, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_LAYERNORM, bads[i].name);
        t_set_int(&tn, "axis", bads[i].axis);
        t_expect_error(
            t_run(t_kernel(EM_OP_LAYERNORM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 2, NULL),
            bads[i].code, bads[i].name, bads[i].name);
    }
}

/* ---- InstanceNormalization --------------------------------------------------------------- */

static void test_instancenorm(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t dims[5];
        float eps;
    } cases[] = {
        {"1d", 3, {2, 3, 7}, 1e-5f},
        {"2d_eps", 4, {2, 4, 3, 5}, 1e-2f},
        {"3d", 5, {1, 2, 3, 2, 4}, 1e-5f},
        {"one_elem", 3, {2, 2, 1}, 1e-5f},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int64_t n = t_numel(cases[ci].dims, cases[ci].rank), c = cases[ci].dims[1];
        int64_t sp = n / (cases[ci].dims[0] * c);
        for (size_t di = 0; di < 2; di++) {
            ember_dtype dt = float_dtypes[di];
            void *x = r_random(dt, n, (uint64_t)(n + ci), -2.0, 4.0);
            void *s = r_random(dt, c, 3, 0.5, 2.0), *b = r_random(dt, c, 4, -1.0, 1.0);
            void *y = r_buf(dt, n);
            double *ref = t_f64(n);
            em_tensor in[3], out[1];
            t_tensor(&in[0], dt, cases[ci].rank, cases[ci].dims, x);
            t_tensor(&in[1], dt, 1, &c, s);
            t_tensor(&in[2], dt, 1, &c, b);
            t_tensor(&out[0], dt, cases[ci].rank, cases[ci].dims, y);
            t_node tn;
            t_node_init(&tn, EM_OP_INSTANCENORM, cases[ci].name);
            t_set_float(&tn, "epsilon", cases[ci].eps);
            t_expect_ok(t_run(t_kernel(EM_OP_INSTANCENORM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 3,
                              out, 1, NULL),
                        cases[ci].name);
            for (int64_t g = 0; g < n / sp; g++) {
                double s1 = 0.0, s2 = 0.0;
                for (int64_t i = 0; i < sp; i++) {
                    double v = r_get(x, dt, g * sp + i);
                    s1 += v;
                    s2 += v * v;
                }
                double m = s1 / (double)sp, var = s2 / (double)sp - m * m;
                for (int64_t i = 0; i < sp; i++) {
                    ref[g * sp + i] = r_get(s, dt, g % c) * (r_get(x, dt, g * sp + i) - m) /
                                          sqrt(var + (double)cases[ci].eps) +
                                      r_get(b, dt, g % c);
                }
            }
            r_check(cases[ci].name, y, dt, ref, n, tol(dt), tol(dt));
            test_free(x);
            test_free(s);
            test_free(b);
            test_free(y);
            test_free(ref);
        }
    }
    /* Errors: rank 2, scale of the wrong length, integer input. */
    float buf[64] = {0};
    static const int64_t d2[2] = {2, 3}, d3[3] = {2, 3, 4}, c3 = 3, c4 = 4;
    static const struct {
        const char *name;
        ember_dtype dt;
        int rank;
        const int64_t *dims, *sc;
        ember_code code;
    } bads[] = {
        {"in_rank2", EMBER_DTYPE_F32, 2, d2, &c3, EMBER_ERR_INVALID_MODEL},
        {"in_scale_len", EMBER_DTYPE_F32, 3, d3, &c4, EMBER_ERR_INVALID_MODEL},
        {"in_i64", EMBER_DTYPE_I64, 3, d3, &c3, EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[3], out[1];
        t_tensor(&in[0], bads[i].dt, bads[i].rank, bads[i].dims, buf);
        t_tensor(&in[1], bads[i].dt, 1, bads[i].sc, buf);
        t_tensor(&in[2], bads[i].dt, 1, bads[i].sc, buf);
        t_tensor(&out[0], bads[i].dt, bads[i].rank, bads[i].dims, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_INSTANCENORM, bads[i].name);
        t_expect_error(
            t_run(t_kernel(EM_OP_INSTANCENORM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 3, out, 1, NULL),
            bads[i].code, bads[i].name, bads[i].name);
    }
}

/* ---- MeanVarianceNormalization ----------------------------------------------------------- */

static void test_mvn(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t dims[4];
        int n_axes; /* -1: default [0, 2, 3] */
        int64_t axes[3];
    } cases[] = {
        {"default", 4, {3, 3, 3, 1}, -1, {0}},
        {"default_big", 4, {2, 5, 3, 4}, -1, {0}},
        {"axes_m1", 3, {2, 3, 6}, 1, {-1}},
        {"axes_0_1", 3, {2, 3, 6}, 2, {1, 0}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int rank = cases[ci].rank;
        int64_t n = t_numel(cases[ci].dims, rank);
        unsigned mask = 0;
        if (cases[ci].n_axes < 0) {
            mask = 0xDu;
        }
        for (int i = 0; i < cases[ci].n_axes; i++) {
            int64_t a = cases[ci].axes[i];
            mask |= 1u << (a < 0 ? a + rank : a);
        }
        for (size_t di = 0; di < 2; di++) {
            ember_dtype dt = float_dtypes[di];
            void *x = r_random(dt, n, (uint64_t)(n + ci), -2.0, 4.0);
            void *y = r_buf(dt, n);
            double *ref = t_f64(n), *s1 = t_f64(n), *s2 = t_f64(n), *cnt = t_f64(n);
            em_tensor in[1], out[1];
            t_tensor(&in[0], dt, rank, cases[ci].dims, x);
            t_tensor(&out[0], dt, rank, cases[ci].dims, y);
            t_node tn;
            t_node_init(&tn, EM_OP_MVN, cases[ci].name);
            if (cases[ci].n_axes >= 0) {
                t_set_ints(&tn, "axes", cases[ci].axes, cases[ci].n_axes);
            }
            t_expect_ok(
                t_run(t_kernel(EM_OP_MVN, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
                cases[ci].name);
            /* Group id of each element: its coordinates on the kept axes, row-major. */
            int64_t coord[4] = {0};
            int64_t *grp = test_calloc((size_t)n, sizeof(int64_t));
            for (int64_t i = 0; i < n; i++) {
                int64_t g = 0;
                for (int d = 0; d < rank; d++) {
                    g = (mask & (1u << d)) ? g : g * cases[ci].dims[d] + coord[d];
                }
                grp[i] = g;
                double v = r_get(x, dt, i);
                s1[g] += v;
                s2[g] += v * v;
                cnt[g] += 1;
                em_ref_coord_next(coord, cases[ci].dims, rank);
            }
            for (int64_t i = 0; i < n; i++) {
                int64_t g = grp[i];
                double m = s1[g] / cnt[g], sd = sqrt(s2[g] / cnt[g] - m * m);
                ref[i] = (r_get(x, dt, i) - m) / (sd + 1e-9);
            }
            r_check(cases[ci].name, y, dt, ref, n, tol(dt), tol(dt));
            test_free(grp);
            test_free(x);
            test_free(y);
            test_free(ref);
            test_free(s1);
            test_free(s2);
            test_free(cnt);
        }
    }
    float buf[64] = {0};
    static const int64_t d3[3] = {2, 3, 4}, bad_axes[2] = {0, 0}, range[1] = {3};
    static const struct {
        const char *name;
        const int64_t *axes;
        int n;
    } bads[] = {
        {"mvn_default_rank3", NULL, -1}, {"mvn_repeat", bad_axes, 2}, {"mvn_range", range, 1}};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 3, d3, buf);
        t_tensor(&out[0], EMBER_DTYPE_F32, 3, d3, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_MVN, bads[i].name);
        if (bads[i].n >= 0) {
            t_set_ints(&tn, "axes", bads[i].axes, bads[i].n);
        }
        t_expect_error(
            t_run(t_kernel(EM_OP_MVN, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
            EMBER_ERR_INVALID_MODEL, bads[i].name, bads[i].name);
    }
}

/* ---- LRN --------------------------------------------------------------------------------- */

static void test_lrn(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t dims[4];
        int64_t size;
        bool defaults;
        float alpha, beta, bias;
    } cases[] = {
        {"default", 4, {2, 5, 3, 3}, 3, true, 0, 0, 0},
        {"size2", 4, {1, 6, 2, 4}, 2, false, 0.002f, 0.5f, 2.0f},
        {"size5_3d", 3, {2, 7, 5}, 5, false, 0.01f, 0.75f, 1.0f},
        {"size_gt_c", 4, {1, 3, 2, 2}, 8, false, 0.1f, 1.0f, 1.0f},
    };
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int64_t n = t_numel(cases[ci].dims, cases[ci].rank), c = cases[ci].dims[1];
        int64_t sp = n / (cases[ci].dims[0] * c), size = cases[ci].size;
        double alpha = cases[ci].defaults ? 1e-4 : cases[ci].alpha;
        double beta = cases[ci].defaults ? 0.75 : cases[ci].beta;
        double bias = cases[ci].defaults ? 1.0 : cases[ci].bias;
        for (size_t di = 0; di < 2; di++) {
            ember_dtype dt = float_dtypes[di];
            void *x = r_random(dt, n, (uint64_t)(n + ci), -3.0, 3.0);
            void *y = r_buf(dt, n), *yp = r_buf(dt, n);
            double *ref = t_f64(n);
            em_tensor in[1], out[1];
            t_tensor(&in[0], dt, cases[ci].rank, cases[ci].dims, x);
            t_tensor(&out[0], dt, cases[ci].rank, cases[ci].dims, y);
            t_node tn;
            t_node_init(&tn, EM_OP_LRN, cases[ci].name);
            t_set_int(&tn, "size", size);
            if (!cases[ci].defaults) {
                t_set_float(&tn, "alpha", cases[ci].alpha);
                t_set_float(&tn, "beta", cases[ci].beta);
                t_set_float(&tn, "bias", cases[ci].bias);
                alpha = (float)alpha, beta = (float)beta, bias = (float)bias;
            } else {
                alpha = 1e-4f, beta = 0.75f;
            }
            const em_kernel *k = t_kernel(EM_OP_LRN, EMBER_DTYPE_UNDEFINED);
            t_expect_ok(t_run(k, &tn.n, in, 1, out, 1, NULL), cases[ci].name);
            out[0].data = yp;
            t_expect_ok(t_run(k, &tn.n, in, 1, out, 1, pool), cases[ci].name);
            for (int64_t i = 0; i < n; i++) {
                int64_t ch = (i / sp) % c, b = i / (sp * c), s = i % sp;
                double sq = 0.0;
                for (int64_t j = 0; j < c; j++) {
                    /* channel j is in the window of ch iff ch - floor((size-1)/2) <= j <=
                     * ch + ceil((size-1)/2) */
                    if (j >= ch - (size - 1) / 2 && j <= ch + size / 2) {
                        double v = r_get(x, dt, (b * c + j) * sp + s);
                        sq += v * v;
                    }
                }
                ref[i] = r_get(x, dt, i) / pow(bias + alpha / (double)size * sq, beta);
            }
            r_check(cases[ci].name, y, dt, ref, n, tol(dt), tol(dt));
            assert_memory_equal(y, yp, (size_t)n * em_dtype_size(dt));
            test_free(x);
            test_free(y);
            test_free(yp);
            test_free(ref);
        }
    }
    em_threadpool_destroy(pool);
    float buf[64] = {0};
    static const int64_t d1[1] = {4}, d4[4] = {1, 2, 2, 2};
    static const struct {
        const char *name;
        int rank;
        const int64_t *dims;
        int64_t size;
    } bads[] = {{"lrn_rank1", 1, d1, 3}, {"lrn_size0", 4, d4, 0}, {"lrn_no_size", 4, d4, -1}};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, bads[i].rank, bads[i].dims, buf);
        t_tensor(&out[0], EMBER_DTYPE_F32, bads[i].rank, bads[i].dims, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_LRN, bads[i].name);
        if (bads[i].size >= 0) {
            t_set_int(&tn, "size", bads[i].size);
        }
        t_expect_error(
            t_run(t_kernel(EM_OP_LRN, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
            EMBER_ERR_INVALID_MODEL, bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layernorm_cases),
        cmocka_unit_test(test_layernorm_errors),
        cmocka_unit_test(test_instancenorm),
        cmocka_unit_test(test_mvn),
        cmocka_unit_test(test_lrn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
