/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/loss_nll_ref.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against a
 * naive double computation written here from the ONNX definitions, in f32, f64, f16 and bf16,
 * with int32 and int64 targets. Cases: [N, C] and [N, C, d1..dk] up to k = 3 with odd sizes,
 * reductions none / sum / mean, with and without weight, ignore_index inside [0, C), negative
 * and above C (ignored targets out of range), every target ignored (mean gives NaN), SCE with
 * and without log_prob; exact vectors of three ONNX conformance cases; malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

/* ---- typed buffers ----------------------------------------------------------------------- */

static void *l_buf(ember_dtype dt, int64_t n)
{
    return test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
}

/* Element access through the reference family's dtype helpers (f16/bf16 round to nearest). */
static double l_get(const void *p, ember_dtype dt, int64_t i)
{
    return em_tref_get(dt, p, i);
}

static void l_set(void *p, ember_dtype dt, int64_t i, double v)
{
    em_tref_set(dt, p, i, v);
}

static double l_tol(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F64:
        return 1e-12;
    case EMBER_DTYPE_F16:
        return 2e-3;
    case EMBER_DTYPE_BF16:
        return 1e-2;
    default:
        return 2e-6;
    }
}

static void l_check(const char *name, ember_dtype dt, const void *got, const double *ref, int64_t n)
{
    double tol = l_tol(dt);
    for (int64_t i = 0; i < n; i++) {
        if (!t_close(l_get(got, dt, i), ref[i], tol, tol)) {
            fail_msg("case %s (%s): index %lld: got %.9g, expected %.9g", name, em_dtype_name(dt),
                     (long long)i, l_get(got, dt, i), ref[i]);
        }
    }
}

/* ---- the naive reference ----------------------------------------------------------------- */

typedef struct loss_case {
    const char *name;
    bool sce;
    int rank;
    int64_t dims[5];
    const char *reduction; /* NULL: attribute absent (mean) */
    bool weight, has_ii, log_prob;
    int64_t ii;
    int ii_every; /* every ii_every-th position gets target ii (0: none) */
} loss_case;

/* x [N, C, D] (values as stored), t [N*D], w [C] or NULL. loss: N*D values, or 1 when reduced;
 * logp [N, C, D] for SCE. */
static void naive(const loss_case *c, int64_t nn, int64_t cc, int64_t dd, const double *x,
                  const int64_t *t, const double *w, double *loss, double *logp)
{
    double sl = 0.0, sw = 0.0;
    bool none = c->reduction != NULL && strcmp(c->reduction, "none") == 0;
    for (int64_t n = 0; n < nn; n++) {
        for (int64_t d = 0; d < dd; d++) {
            double m = -INFINITY, s = 0.0;
            for (int64_t k = 0; k < cc; k++) {
                m = fmax(m, x[(n * cc + k) * dd + d]);
            }
            for (int64_t k = 0; k < cc; k++) {
                s += exp(x[(n * cc + k) * dd + d] - m);
            }
            for (int64_t k = 0; c->sce && k < cc; k++) {
                logp[(n * cc + k) * dd + d] = x[(n * cc + k) * dd + d] - m - log(s);
            }
            int64_t tg = t[n * dd + d];
            bool ign = c->has_ii && tg == c->ii;
            double wt = ign ? 0.0 : w != NULL ? w[tg] : 1.0;
            double v = ign      ? 0.0
                       : c->sce ? logp[(n * cc + tg) * dd + d]
                                : x[(n * cc + tg) * dd + d];
            double l = -wt * v;
            if (none) {
                loss[n * dd + d] = l;
            }
            sl += l;
            sw += wt;
        }
    }
    if (!none) {
        loss[0] = c->reduction != NULL && strcmp(c->reduction, "sum") == 0 ? sl : sl / sw;
    }
}

/* clang-format off */
static const loss_case cases[] = {
    {"nll_nc_none", false, 2, {3, 5}, "none", false, false, false, 0, 0},
    {"nll_nc_default_mean", false, 2, {4, 7}, NULL, false, false, false, 0, 0},
    {"nll_nc_sum_weight", false, 2, {5, 3}, "sum", true, false, false, 0, 0},
    {"nll_ncd1_mean_weight_ii_neg", false, 3, {3, 5, 7}, "mean", true, true, false, -1, 3},
    {"nll_ncd1d2_mean_ii_inside", false, 4, {2, 3, 5, 3}, "mean", false, true, false, 1, 0},
    {"nll_ncd1d2d3_none_ii_high", false, 5, {2, 3, 2, 3, 5}, "none", true, true, false, 9, 4},
    {"nll_all_ignored_mean", false, 3, {2, 3, 2}, "mean", true, true, false, -7, 1},
    {"sce_nc_mean", true, 2, {3, 5}, "mean", false, false, false, 0, 0},
    {"sce_nc_none_logprob", true, 2, {3, 5}, "none", true, false, true, 0, 0},
    {"sce_ncd1_sum_ii_logprob", true, 3, {3, 4, 5}, "sum", true, true, true, 2, 0},
    {"sce_ncd1d2d3_none_ii_neg", true, 5, {2, 5, 2, 3, 3}, "none", false, true, false, -5, 2},
    {"sce_ncd1d2_mean_weight_ii_logprob", true, 4, {3, 4, 3, 2}, "mean", true, true, true, 11, 5},
};
/* clang-format on */

static const ember_dtype dtypes[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_F16,
                                     EMBER_DTYPE_BF16};

static void run_case(const loss_case *c, ember_dtype dt, ember_dtype tdt, uint64_t seed)
{
    int64_t nn = c->dims[0], cc = c->dims[1], dd = t_numel(c->dims + 2, c->rank - 2);
    int64_t nx = nn * cc * dd, nt = nn * dd;
    bool none = c->reduction != NULL && strcmp(c->reduction, "none") == 0;
    int64_t tdims[4] = {nn}, nl = none ? nt : 1;
    memcpy(tdims + 1, c->dims + 2, sizeof(int64_t) * (size_t)(c->rank - 2));
    test_rng rng = {seed};
    void *x = l_buf(dt, nx), *w = l_buf(dt, cc), *tg = l_buf(tdt, nt);
    void *loss = l_buf(dt, nl), *logp = l_buf(dt, nx);
    double *xd = t_f64(nx), *wd = t_f64(cc), *rl = t_f64(nl), *rp = t_f64(nx);
    int64_t *ti = test_calloc((size_t)nt, sizeof(int64_t));
    for (int64_t i = 0; i < nx; i++) {
        l_set(x, dt, i, test_rng_float(&rng, -3.0f, 3.0f));
        xd[i] = l_get(x, dt, i); /* the reference sees the values as stored */
    }
    for (int64_t k = 0; k < cc; k++) {
        l_set(w, dt, k, test_rng_float(&rng, 0.25f, 1.25f));
        wd[k] = l_get(w, dt, k);
    }
    for (int64_t i = 0; i < nt; i++) {
        ti[i] = (int64_t)(test_rng_next(&rng) % (uint64_t)cc);
        if (c->ii_every > 0 && i % c->ii_every == 0) {
            ti[i] = c->ii;
        }
        if (tdt == EMBER_DTYPE_I32) {
            ((int32_t *)tg)[i] = (int32_t)ti[i];
        } else {
            ((int64_t *)tg)[i] = ti[i];
        }
    }
    em_tensor in[3], out[2];
    t_tensor(&in[0], dt, c->rank, c->dims, x);
    t_tensor(&in[1], tdt, c->rank - 1, tdims, tg);
    t_tensor(&in[2], dt, 1, &cc, w);
    t_tensor(&out[0], dt, none ? c->rank - 1 : 0, tdims, loss);
    t_tensor(&out[1], dt, c->rank, c->dims, logp);
    t_node tn;
    em_op op = c->sce ? EM_OP_SCELOSS : EM_OP_NLLLOSS;
    t_node_init(&tn, op, c->name);
    if (c->reduction != NULL) {
        t_set_string(&tn, "reduction", c->reduction);
    }
    if (c->has_ii) {
        t_set_int(&tn, "ignore_index", c->ii);
    }
    t_expect_ok(t_run_const(t_kernel(op, EMBER_DTYPE_UNDEFINED), &tn.n, in, c->weight ? 3 : 2, out,
                            c->log_prob ? 2 : 1, NULL, 0x2),
                c->name);
    naive(c, nn, cc, dd, xd, ti, c->weight ? wd : NULL, rl, rp);
    l_check(c->name, dt, loss, rl, nl);
    if (c->log_prob) {
        l_check(c->name, dt, logp, rp, nx);
    }
    test_free(x), test_free(w), test_free(tg), test_free(loss), test_free(logp);
    test_free(xd), test_free(wd), test_free(rl), test_free(rp), test_free(ti);
}

static void test_loss_cases(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (size_t di = 0; di < sizeof dtypes / sizeof dtypes[0]; di++) {
            ember_dtype tdt = (ci + di) % 2 ? EMBER_DTYPE_I32 : EMBER_DTYPE_I64;
            run_case(&cases[ci], dtypes[di], tdt, 100 + ci * 7 + di);
        }
    }
}

/* ---- exact vectors from the ONNX conformance data ---------------------------------------- */

static const float conf_x[30] = {
    0.548813522f, 0.715189338f, 0.602763355f,  0.544883192f,  0.423654795f,  0.64589411f,
    0.437587202f, 0.891772985f, 0.963662744f,  0.383441508f,  0.791725039f,  0.528894901f,
    0.568044543f, 0.925596654f, 0.0710360557f, 0.0871293023f, 0.0202183966f, 0.832619846f,
    0.778156757f, 0.870012164f, 0.978618324f,  0.799158573f,  0.461479366f,  0.780529201f,
    0.118274428f, 0.63992101f,  0.143353283f,  0.944668889f,  0.521848321f,  0.414661944f};

/* NegativeLogLikelihoodLoss with reduction none of f32 x [N, C] and int64 t [N] into loss [N]. */
static void nll_none_f32(const char *name, const int64_t *xd, const float *x, const int64_t *t,
                         float *loss)
{
    em_tensor in[2], out[1];
    t_node tn;
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, (void *)x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, xd, (void *)t);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, xd, loss);
    t_node_init(&tn, EM_OP_NLLLOSS, name);
    t_set_string(&tn, "reduction", "none");
    t_expect_ok(t_run(t_kernel(EM_OP_NLLLOSS, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1, NULL),
                name);
}

/* test_nllloss_NC: [3, 5], reduction none; test_nllloss_NCd1d2d3_sum_weight_high_ii: [3, 5],
 * ignore_index 10 (target 0 is 10), weight, sum. */
static void test_conformance_nll(void **state)
{
    (void)state;
    static const int64_t xd[2] = {3, 5}, td[1] = {3}, wd[1] = {5};
    static const int64_t t_nc[3] = {1, 4, 3}, t_high[3] = {10, 4, 3};
    static const float w_high[5] = {0.368241549f, 0.957155168f, 0.140350774f, 0.870087266f,
                                    0.473608047f};
    static const double y_nc[3] = {-0.715189338, -0.383441508, -0.925596654};
    static const double y_high[1] = {-0.986950874};
    float loss[3];
    em_tensor in[3], out[1];
    t_node tn;
    nll_none_f32("nllloss_NC", xd, conf_x, t_nc, loss);
    t_check_f32("nllloss_NC", loss, y_nc, 3, 1e-7, 1e-6);

    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, (void *)conf_x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, td, (void *)t_high);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, wd, (void *)w_high);
    t_tensor(&out[0], EMBER_DTYPE_F32, 0, NULL, loss);
    t_node_init(&tn, EM_OP_NLLLOSS, "nllloss_sum_weight_high_ii");
    t_set_string(&tn, "reduction", "sum");
    t_set_int(&tn, "ignore_index", 10);
    t_expect_ok(t_run(t_kernel(EM_OP_NLLLOSS, EMBER_DTYPE_UNDEFINED), &tn.n, in, 3, out, 1, NULL),
                "nllloss_sum_weight_high_ii");
    t_check_f32("nllloss_sum_weight_high_ii", loss, y_high, 1, 1e-7, 1e-6);
}

/* test_sce_mean_weight_ii_3d_log_prob: [3, 5, 2], ignore_index 1, weight, mean, log_prob. */
static void test_conformance_sce(void **state)
{
    (void)state;
    static const int64_t xd[3] = {3, 5, 2}, td[2] = {3, 2}, wd[1] = {5};
    static const int64_t t[6] = {1, 3, 2, 4, 2, 0};
    static const float w[5] = {0.200000003f, 0.300000012f, 0.600000024f, 0.100000001f, 0.5f};
    static const double y[1] = {1.78836834};
    static const double lp[30] = {-1.67647338, -1.5448482,  -1.62252367, -1.71515441, -1.80163217,
                                  -1.61414349, -1.7876997,  -1.36826468, -1.26162422, -1.87659609,
                                  -1.31770146, -1.77346444, -1.54138207, -1.37676251, -2.0383904,
                                  -2.21522999, -2.08920813, -1.46973932, -1.33126974, -1.43234694,
                                  -1.12698138, -1.54153585, -1.64412045, -1.56016517, -1.98732531,
                                  -1.70077336, -1.96224642, -1.39602542, -1.58375132, -1.92603254};
    float loss[1], logp[30];
    em_tensor in[3], out[2];
    t_node tn;
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, (void *)conf_x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, td, (void *)t);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, wd, (void *)w);
    t_tensor(&out[0], EMBER_DTYPE_F32, 0, NULL, loss);
    t_tensor(&out[1], EMBER_DTYPE_F32, 3, xd, logp);
    t_node_init(&tn, EM_OP_SCELOSS, "sce_mean_weight_ii_3d_log_prob");
    t_set_string(&tn, "reduction", "mean");
    t_set_int(&tn, "ignore_index", 1);
    t_expect_ok(t_run(t_kernel(EM_OP_SCELOSS, EMBER_DTYPE_UNDEFINED), &tn.n, in, 3, out, 2, NULL),
                "sce_conformance");
    t_check_f32("sce_conformance loss", loss, y, 1, 1e-6, 1e-6);
    t_check_f32("sce_conformance log_prob", logp, lp, 30, 1e-6, 1e-6);
}

/* ---- malformed nodes --------------------------------------------------------------------- */

typedef struct bad_case {
    const char *name;
    em_op op;
    ember_code code;
    int x_rank;
    int64_t x_dims[3];
    ember_dtype x_dt, t_dt;
    int t_rank;
    int64_t t_dims[2];
    int64_t w_n; /* 0: no weight */
    const char *reduction;
    int y_rank;
    int64_t y_dims[2];
    int n_out;
    bool const_target; /* the target holds 7 (C = 4), without ignore_index */
} bad_case;

/* clang-format off */
static const bad_case bad_cases[] = {
    {"rank1_input", EM_OP_NLLLOSS, EMBER_ERR_INVALID_MODEL, 1, {4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {4}, 0, "none", 1, {4}, 1, false},
    {"float_target", EM_OP_NLLLOSS, EMBER_ERR_INVALID_MODEL, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_F32, 1, {2}, 0, "none", 1, {2}, 1, false},
    {"target_shape", EM_OP_NLLLOSS, EMBER_ERR_INVALID_MODEL, 3, {2, 4, 3}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 2, {2, 4}, 0, "none", 2, {2, 4}, 1, false},
    {"weight_size", EM_OP_NLLLOSS, EMBER_ERR_INVALID_MODEL, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {2}, 3, "mean", 0, {0}, 1, false},
    {"bad_reduction", EM_OP_SCELOSS, EMBER_ERR_INVALID_MODEL, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {2}, 0, "avg", 0, {0}, 1, false},
    {"loss_not_scalar", EM_OP_SCELOSS, EMBER_ERR_INVALID_MODEL, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {2}, 0, "sum", 1, {2}, 1, false},
    {"loss_shape_none", EM_OP_NLLLOSS, EMBER_ERR_INVALID_MODEL, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {2}, 0, "none", 1, {4}, 1, false},
    {"int_input", EM_OP_NLLLOSS, EMBER_ERR_UNSUPPORTED, 2, {2, 4}, EMBER_DTYPE_I32,
     EMBER_DTYPE_I64, 1, {2}, 0, "none", 1, {2}, 1, false},
    {"nll_two_outputs", EM_OP_NLLLOSS, EMBER_ERR_UNSUPPORTED, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {2}, 0, "none", 1, {2}, 2, false},
    {"const_target_range", EM_OP_NLLLOSS, EMBER_ERR_INVALID_MODEL, 2, {2, 4}, EMBER_DTYPE_F32,
     EMBER_DTYPE_I64, 1, {2}, 0, "none", 1, {2}, 1, true},
};
/* clang-format on */

static void test_loss_errors(void **state)
{
    (void)state;
    double xbuf[32] = {0}, ybuf[32] = {0}, wbuf[8] = {0};
    int64_t tbuf[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        em_tensor in[3], out[2];
        t_tensor(&in[0], c->x_dt, c->x_rank, c->x_dims, xbuf);
        t_tensor(&in[1], c->t_dt, c->t_rank, c->t_dims, tbuf);
        t_tensor(&in[2], c->x_dt, 1, &c->w_n, wbuf);
        t_tensor(&out[0], c->x_dt, c->y_rank, c->y_dims, ybuf);
        t_tensor(&out[1], c->x_dt, c->x_rank, c->x_dims, ybuf);
        t_node tn;
        t_node_init(&tn, c->op, c->name);
        t_set_string(&tn, "reduction", c->reduction);
        ember_status *st =
            t_run_const(t_kernel(c->op, EMBER_DTYPE_UNDEFINED), &tn.n, in, c->w_n > 0 ? 3 : 2, out,
                        c->n_out, NULL, c->const_target ? 0x2u : 0u);
        t_expect_error(st, c->code, c->name, c->name);
    }
}

/* An out-of-range target seen only at run time gives NaN instead of reading out of bounds. */
static void test_loss_runtime_bad_target(void **state)
{
    (void)state;
    static const int64_t xd[2] = {2, 3};
    static const float x[6] = {1, 2, 3, 4, 5, 6};
    static const int64_t t[2] = {1, 5};
    float loss[2];
    nll_none_f32("runtime_bad_target", xd, x, t, loss);
    assert_true(loss[0] == -2.0f);
    assert_true(isnan(loss[1]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loss_cases),
        cmocka_unit_test(test_conformance_nll),
        cmocka_unit_test(test_conformance_sce),
        cmocka_unit_test(test_loss_errors),
        cmocka_unit_test(test_loss_runtime_bad_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
