/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/attn_norm_ref.c: RMSNormalization-23 and GroupNormalization-21 against formulas
 * written here in double (RMS over the normalised box, scale broadcast by coordinates; group
 * mean and population variance from two plain passes), on odd shapes, every axis form, scale
 * broadcast from full / partial / single-element shapes, f64 and f16 data, mixed X / scale
 * dtypes, serially and on a 2-thread pool; plus malformed nodes.
 */
#include "test_ref_math_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16

static void check(const char *name, ember_dtype dt, const void *y, const double *ref, int64_t n,
                  double tol)
{
    for (int64_t i = 0; i < n; i++) {
        if (!t_close(tm_get(dt, y, i), ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", name, (long long)i,
                     tm_get(dt, y, i), ref[i]);
        }
    }
}

/* Runs node tn on in[0..n_in) into out[0] (data y of n elements of dtype dt, refilled with NaN
 * before each run), serially and on `pool`, and checks y against ref. */
static void run_both(const t_node *tn, em_tensor *in, int n_in, em_tensor *out, ember_dtype dt,
                     const double *ref, int64_t n, em_threadpool *pool)
{
    const double tol = dt == F16 ? 8e-3 : dt == F64 ? 1e-12 : 1e-5;
    const em_kernel *k = t_kernel(tn->n.op, EMBER_DTYPE_UNDEFINED);
    for (int threaded = 0; threaded < 2; threaded++) {
        for (int64_t i = 0; i < n; i++) {
            tm_set(dt, out[0].data, i, NAN);
        }
        t_expect_ok(t_run(k, &tn->n, in, n_in, out, 1, threaded ? pool : NULL), tn->n.name);
        check(tn->n.name, dt, out[0].data, ref, n, tol);
    }
}

/* ---- RMSNormalization ---------------------------------------------------------------------- */

typedef struct rms_case {
    const char *name;
    int rank, w_rank;
    int64_t x[4], w[4];
    int64_t axis;
    float eps; /* 0: the default 1e-5 */
    ember_dtype xt, wt;
} rms_case;

static void rms_run(const rms_case *c, em_threadpool *pool)
{
    int64_t nx = t_numel(c->x, c->rank), nw = t_numel(c->w, c->w_rank);
    void *x = tm_buf(c->xt, nx), *w = tm_buf(c->wt, nw);
    tm_fill(c->xt, x, nx, 3 + (uint64_t)nx, (tm_range){-3.0, 3.0});
    tm_fill(c->wt, w, nw, 4 + (uint64_t)nw, (tm_range){-2.0, 2.0});
    int ax = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
    int64_t inner = t_numel(c->x + ax, c->rank - ax);
    double eps = c->eps != 0.0f ? c->eps : 1e-5f, *ref = t_f64(nx);
    for (int64_t e = 0; e < nx; e++) {
        int64_t row = e / inner, coord[4], rest = e;
        double ms = 0.0;
        for (int64_t k = row * inner; k < (row + 1) * inner; k++) {
            ms += tm_get(c->xt, x, k) * tm_get(c->xt, x, k) / (double)inner;
        }
        for (int d = c->rank - 1; d >= 0; d--) {
            coord[d] = rest % c->x[d];
            rest /= c->x[d];
        }
        double wv = tm_get(c->wt, w, tm_bindex(c->w, c->w_rank, coord, c->rank));
        ref[e] = tm_get(c->xt, x, e) / sqrt(ms + eps) * wv;
    }
    void *y = tm_buf(c->wt, nx);
    em_tensor in[2], out[1];
    t_tensor(&in[0], c->xt, c->rank, c->x, x);
    t_tensor(&in[1], c->wt, c->w_rank, c->w, w);
    t_tensor(&out[0], c->wt, c->rank, c->x, y);
    t_node tn;
    t_node_init(&tn, EM_OP_RMSNORMALIZATION, c->name);
    if (c->axis != -1) {
        t_set_int(&tn, "axis", c->axis);
    }
    if (c->eps != 0.0f) {
        t_set_float(&tn, "epsilon", c->eps);
    }
    run_both(&tn, in, 2, out, c->wt, ref, nx, pool);
    test_free(y);
    test_free(x);
    test_free(w);
    test_free(ref);
}

static void test_rmsnorm(void **state)
{
    (void)state;
    static const rms_case cases[] = {
        {"rms_last", 3, 1, {2, 3, 5}, {5}, -1, 0, F32, F32},
        {"rms_axis0_full", 2, 2, {3, 7}, {3, 7}, 0, 0, F32, F32},
        {"rms_axis1_partial", 4, 3, {2, 3, 1, 5}, {3, 1, 5}, 1, 0.1f, F32, F32},
        {"rms_bcast_inner", 3, 2, {3, 4, 5}, {4, 1}, -2, 0, F32, F32},
        {"rms_one_scale", 3, 1, {2, 3, 9}, {1}, 2, 0.5f, F64, F64},
        {"rms_f16", 2, 1, {5, 7}, {7}, 1, 0, F16, F16},
        {"rms_mixed", 2, 1, {3, 5}, {5}, -1, 0, F32, F64},
        {"rms_scale_outer", 3, 3, {2, 3, 4}, {2, 1, 4}, 1, 0, F32, F32},
    };
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rms_run(&cases[i], pool);
    }
    em_threadpool_destroy(pool);
}

static void test_rmsnorm_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const struct {
        const char *name;
        int w_rank;
        int64_t w[3], axis, stash;
        ember_code code;
    } bad[] = {
        {"rms_axis", 1, {5}, 2, 1, EMBER_ERR_INVALID_MODEL},
        {"rms_scale_shape", 1, {4}, -1, 1, EMBER_ERR_INVALID_MODEL},
        {"rms_scale_rank", 3, {1, 3, 5}, -1, 1, EMBER_ERR_INVALID_MODEL},
        {"rms_stash", 1, {5}, -1, 11, EMBER_ERR_UNSUPPORTED},
    };
    int64_t xd[2] = {3, 5};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        em_tensor in[2], out[1];
        t_tensor(&in[0], F32, 2, xd, buf);
        t_tensor(&in[1], F32, bad[i].w_rank, bad[i].w, buf);
        t_tensor(&out[0], F32, 2, xd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_RMSNORMALIZATION, bad[i].name);
        t_set_int(&tn, "axis", bad[i].axis);
        t_set_int(&tn, "stash_type", bad[i].stash);
        const em_kernel *k = t_kernel(EM_OP_RMSNORMALIZATION, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, 2, out, 1, NULL), bad[i].code, bad[i].name, bad[i].name);
    }
}

/* ---- GroupNormalization -------------------------------------------------------------------- */

typedef struct gn_case {
    const char *name;
    int rank;
    int64_t x[5];
    int64_t groups;
    float eps;
    ember_dtype dt;
} gn_case;

static void gn_run(const gn_case *c, em_threadpool *pool)
{
    const int64_t n = c->x[0], ch = c->x[1], nx = t_numel(c->x, c->rank);
    const int64_t sp = nx / (n * ch), cg = ch / c->groups;
    void *x = tm_buf(c->dt, nx), *s = tm_buf(c->dt, ch), *b = tm_buf(c->dt, ch);
    tm_fill(c->dt, x, nx, 7 + (uint64_t)nx, (tm_range){-2.0, 5.0});
    tm_fill(c->dt, s, ch, 8, (tm_range){-1.5, 1.5});
    tm_fill(c->dt, b, ch, 9, (tm_range){-1.0, 1.0});
    double *ref = t_f64(nx), eps = c->eps != 0.0f ? c->eps : 1e-5f;
    for (int64_t in = 0; in < n; in++) {
        for (int64_t g = 0; g < c->groups; g++) {
            double mean = 0.0, var = 0.0;
            for (int64_t k = 0; k < cg * sp; k++) {
                mean += tm_get(c->dt, x, (in * ch + g * cg) * sp + k) / (double)(cg * sp);
            }
            for (int64_t k = 0; k < cg * sp; k++) {
                double d = tm_get(c->dt, x, (in * ch + g * cg) * sp + k) - mean;
                var += d * d / (double)(cg * sp);
            }
            for (int64_t k = 0; k < cg * sp; k++) {
                int64_t chan = g * cg + k / sp, e = (in * ch + g * cg) * sp + k;
                ref[e] = tm_get(c->dt, s, chan) * (tm_get(c->dt, x, e) - mean) / sqrt(var + eps) +
                         tm_get(c->dt, b, chan);
            }
        }
    }
    int64_t cd = ch;
    void *y = tm_buf(c->dt, nx);
    em_tensor in[3], out[1];
    t_tensor(&in[0], c->dt, c->rank, c->x, x);
    t_tensor(&in[1], c->dt, 1, &cd, s);
    t_tensor(&in[2], c->dt, 1, &cd, b);
    t_tensor(&out[0], c->dt, c->rank, c->x, y);
    t_node tn;
    t_node_init(&tn, EM_OP_GROUPNORMALIZATION, c->name);
    t_set_int(&tn, "num_groups", c->groups);
    if (c->eps != 0.0f) {
        t_set_float(&tn, "epsilon", c->eps);
    }
    run_both(&tn, in, 3, out, c->dt, ref, nx, pool);
    test_free(y);
    test_free(x);
    test_free(s);
    test_free(b);
    test_free(ref);
}

static void test_groupnorm(void **state)
{
    (void)state;
    static const gn_case cases[] = {
        {"gn_nchw", 4, {2, 6, 3, 5}, 3, 0, F32},
        {"gn_one_group", 4, {3, 4, 2, 2}, 1, 0.01f, F32},
        {"gn_instance", 3, {2, 5, 7}, 5, 0, F64},
        {"gn_no_spatial", 2, {3, 4}, 2, 0.5f, F32},
        {"gn_5d_f16", 5, {1, 4, 3, 2, 3}, 2, 0, F16},
    };
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gn_run(&cases[i], pool);
    }
    em_threadpool_destroy(pool);
}

/* Hand-checked: one group of x = (1, 2, 3, 4) (mean 2.5, variance 1.25), scale 2, bias 1:
 * y = 2 (x - 2.5) / sqrt(1.25) + 1 with epsilon 0. */
static void test_groupnorm_by_hand(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 4}, s[2] = {2, 2}, b[2] = {1, 1}, y[4];
    int64_t xd[3] = {1, 2, 2}, cd = 2;
    em_tensor in[3], out[1];
    t_tensor(&in[0], F32, 3, xd, x);
    t_tensor(&in[1], F32, 1, &cd, s);
    t_tensor(&in[2], F32, 1, &cd, b);
    t_tensor(&out[0], F32, 3, xd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_GROUPNORMALIZATION, "gn_hand");
    t_set_int(&tn, "num_groups", 1);
    t_set_float(&tn, "epsilon", 0.0f);
    const em_kernel *k = t_kernel(EM_OP_GROUPNORMALIZATION, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 3, out, 1, NULL), "gn_hand");
    for (int i = 0; i < 4; i++) {
        double want = 2.0 * (x[i] - 2.5) / sqrt(1.25) + 1.0;
        if (!t_close(y[i], want, 1e-6, 1e-6)) {
            fail_msg("gn_hand[%d] = %g, expected %g", i, (double)y[i], want);
        }
    }
}

static void test_groupnorm_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const struct {
        const char *name;
        int64_t groups, sc; /* scale / bias length */
    } bad[] = {
        {"gn_groups_divide", 4, 6},
        {"gn_per_group_scale", 2, 2}, /* the opset-18 form reaching the kernel */
        {"gn_no_groups", 0, 6},
    };
    int64_t xd[3] = {1, 6, 2};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        em_tensor in[3], out[1];
        t_tensor(&in[0], F32, 3, xd, buf);
        t_tensor(&in[1], F32, 1, &bad[i].sc, buf);
        t_tensor(&in[2], F32, 1, &bad[i].sc, buf);
        t_tensor(&out[0], F32, 3, xd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_GROUPNORMALIZATION, bad[i].name);
        if (bad[i].groups > 0) {
            t_set_int(&tn, "num_groups", bad[i].groups);
        }
        const em_kernel *k = t_kernel(EM_OP_GROUPNORMALIZATION, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, 3, out, 1, NULL), EMBER_ERR_INVALID_MODEL, bad[i].name,
                       bad[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rmsnorm),          cmocka_unit_test(test_rmsnorm_errors),
        cmocka_unit_test(test_groupnorm),        cmocka_unit_test(test_groupnorm_by_hand),
        cmocka_unit_test(test_groupnorm_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
