/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/train_optim_ref.c: Adagrad, Adam and Momentum. The seven onnx conformance cases
 * (test_adagrad[_multiple], test_adam[_multiple], test_momentum[_multiple],
 * test_nesterov_momentum) with their data (test_adam_multiple's expected values were made with
 * epsilon 1e-2, which its node omits: the test sets it); then naive double formulas in the
 * test for three tensors of odd sizes, f32 and f64, R f64, t = 0 and t > 0 (Adam's bias
 * correction, Momentum's beta), norm_coefficient_post, default attributes; and malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

enum { TR_MAX = 16 };

/* Runs the op over in[0..n_in) -> out[0..n_out) (more tensors than t_run allows). */
static ember_status *tr_run(const em_node *node, em_tensor *in, int n_in, em_tensor *out, int n_out)
{
    em_tensor pin[TR_MAX], pout[TR_MAX];
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        pin[i].data = NULL;
    }
    for (int i = 0; i < n_out; i++) {
        pout[i] = out[i];
        pout[i].data = NULL;
    }
    em_kinfo ki = {node, n_in, n_out, pin, pout, test_allocator(), 0, 1, NULL};
    const em_kernel *k = t_kernel(node->op, EMBER_DTYPE_UNDEFINED);
    void *state = NULL;
    size_t scratch = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch);
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    em_kctx ctx = {NULL, NULL};
    k->run(state, in, out, &ctx);
    em_free(test_allocator(), state);
    return NULL;
}

/* ---- The conformance cases ---------------------------------------------------------------- */

typedef struct conf_case {
    const char *name;
    em_op op;
    int tensors;
    int64_t len[2];      /* elements of tensor 0 and 1 */
    float in[4][2][2];   /* input group, tensor, element */
    float want[3][2][2]; /* output group, tensor, element */
    float alpha, beta, eps, norm, decay;
    const char *mode;
} conf_case;

/* clang-format off */
static const conf_case conf[] = {
    {"test_adagrad", EM_OP_ADAGRAD, 1, {1, 0}, {{{1}}, {{-1}}, {{2}}},
     {{{1.0576962f}}, {{2.998001f}}}, 0, 0, 1e-5f, 0.001f, 0.1f, NULL},
    {"test_adagrad_multiple", EM_OP_ADAGRAD, 2, {1, 2},
     {{{1}, {1, 2}}, {{-1}, {-1, -3}}, {{2}, {4, 1}}},
     {{{1.0576962f}, {1.0446854f, 2.0948617f}}, {{2.998001f}, {4.998001f, 9.988004f}}},
     0, 0, 1e-5f, 0.001f, 0.1f, NULL},
    {"test_adam", EM_OP_ADAM, 1, {2, 0},
     {{{1.2f, 2.8f}}, {{-0.94f, -2.5f}}, {{1.7f, 3.6f}}, {{0.1f, 0.1f}}},
     {{{1.0250363f, 2.6610327f}}, {{1.56806f, 3.2951398f}}, {{0.8032108f, 5.622407f}}},
     0.95f, 0.1f, 1e-7f, 0.001f, 0, NULL},
    {"test_adam_multiple", EM_OP_ADAM, 2, {1, 2},
     {{{1}, {1, 2}}, {{-1}, {-1, -3}}, {{2}, {4, 1}}, {{0.5f}, {1, 10}}},
     {{{0.75913626f}, {0.6286528f, 1.9745853f}}, {{1.85005f}, {3.75005f, 0.80009997f}},
      {{0.5747002f}, {0.9997002f, 9.848201f}}},
     0.95f, 0.85f, 1e-2f, 0.001f, 0, NULL},
    {"test_momentum", EM_OP_MOMENTUM, 1, {2, 0},
     {{{1.2f, 2.8f}}, {{-0.94f, -2.5f}}, {{1.7f, 3.6f}}},
     {{{1.13238f, 2.70772f}}, {{0.67620003f, 0.9227998f}}}, 0.95f, 0.1f, 0, 0.001f, 0,
     "standard"},
    {"test_momentum_multiple", EM_OP_MOMENTUM, 2, {1, 2},
     {{{1}, {1, 2}}, {{-1}, {-1, -3}}, {{2}, {4, 1}}},
     {{{0.9099f}, {0.7199f, 2.2048f}}, {{0.90099996f}, {2.8009999f, -2.0479999f}}},
     0.95f, 0.85f, 0, 0.001f, 0, "standard"},
    {"test_nesterov_momentum", EM_OP_MOMENTUM, 1, {2, 0},
     {{{1.2f, 2.8f}}, {{-0.94f, -2.5f}}, {{1.7f, 3.6f}}},
     {{{1.227535f, 2.95714f}}, {{0.68700004f, 0.94799995f}}}, 0.95f, 1.0f, 0, 0.01f, 0,
     "nesterov"},
};
/* clang-format on */

static void set_attrs(t_node *tn, const conf_case *c)
{
    if (c->op == EM_OP_ADAGRAD) {
        t_set_float(tn, "decay_factor", c->decay);
        t_set_float(tn, "epsilon", c->eps);
    } else if (c->op == EM_OP_ADAM) {
        t_set_float(tn, "alpha", c->alpha);
        t_set_float(tn, "beta", c->beta);
        t_set_float(tn, "epsilon", c->eps);
    } else {
        t_set_float(tn, "alpha", c->alpha);
        t_set_float(tn, "beta", c->beta);
        t_set_string(tn, "mode", c->mode);
    }
    t_set_float(tn, "norm_coefficient", c->norm);
}

static void test_conformance(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof conf / sizeof conf[0]; ci++) {
        const conf_case *c = &conf[ci];
        int groups = c->op == EM_OP_ADAM ? 4 : 3, n = c->tensors;
        float r = 0.1f, got[3][2][2];
        int64_t t = 0;
        em_tensor in[TR_MAX], out[TR_MAX];
        t_tensor(&in[0], EMBER_DTYPE_F32, 0, NULL, &r);
        t_tensor(&in[1], EMBER_DTYPE_I64, 0, NULL, &t);
        for (int g = 0; g < groups; g++) {
            for (int i = 0; i < n; i++) {
                t_tensor(&in[2 + g * n + i], EMBER_DTYPE_F32, 1, &c->len[i], (void *)c->in[g][i]);
            }
        }
        for (int g = 0; g < groups - 1; g++) {
            for (int i = 0; i < n; i++) {
                t_tensor(&out[g * n + i], EMBER_DTYPE_F32, 1, &c->len[i], got[g][i]);
            }
        }
        t_node tn;
        t_node_init(&tn, c->op, c->name);
        set_attrs(&tn, c);
        t_expect_ok(tr_run(&tn.n, in, 2 + groups * n, out, (groups - 1) * n), c->name);
        for (int g = 0; g < groups - 1; g++) {
            for (int i = 0; i < n; i++) {
                double want[2] = {c->want[g][i][0], c->want[g][i][1]};
                t_check_f32(c->name, got[g][i], want, c->len[i], 1e-6, 2e-6);
            }
        }
    }
}

/* ---- Naive formulas ------------------------------------------------------------------------ */

typedef struct naive_case {
    const char *name;
    em_op op;
    ember_dtype dt;
    int64_t t;
    bool defaults, nesterov;
    float alpha, beta, eps, norm, norm_post, decay;
} naive_case;

/* The case's attribute value, or the op's default when the case uses defaults. */
static double attr_or(const naive_case *c, double v, double dflt)
{
    return c->defaults ? dflt : v;
}

/* Output group values of element e, from inputs x g v h (v, h may be unused). */
static void naive_update(const naive_case *c, double r, double x, double g0, double v, double h,
                         double *o)
{
    double t = (double)c->t;
    if (c->op == EM_OP_ADAGRAD) {
        double norm = attr_or(c, c->norm, 0), eps = attr_or(c, c->eps, 1e-6f);
        double decay = attr_or(c, c->decay, 0), g = norm * x + g0, hn = h + g * g;
        o[0] = x - r / (1 + t * decay) * g / (sqrt(hn) + eps);
        o[1] = hn;
    } else if (c->op == EM_OP_ADAM) {
        double a = attr_or(c, c->alpha, 0.9f), b = attr_or(c, c->beta, 0.999f);
        double eps = attr_or(c, c->eps, 1e-6f), norm = attr_or(c, c->norm, 0);
        double post = attr_or(c, c->norm_post, 0), g = norm * x + g0;
        double vn = a * v + (1 - a) * g, hn = b * h + (1 - b) * g * g;
        double rr = c->t > 0 ? r * sqrt(1 - pow(b, t)) / (1 - pow(a, t)) : r;
        o[0] = (1 - post) * (x - rr * vn / (sqrt(hn) + eps));
        o[1] = vn;
        o[2] = hn;
    } else {
        double g = c->norm * x + g0, vn = c->alpha * v + (c->t > 0 ? c->beta : 1.0) * g;
        o[0] = c->nesterov ? x - r * (g + c->alpha * vn) : x - r * vn;
        o[1] = vn;
    }
}

static double elem(ember_dtype dt, const void *p, int64_t i)
{
    return dt == EMBER_DTYPE_F32 ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void naive_check(const naive_case *c)
{
    enum { T = 3 };
    const int64_t len[T] = {1, 7, 33};
    int groups = c->op == EM_OP_ADAM ? 4 : 3;
    size_t es = em_dtype_size(c->dt);
    double r = 0.05;
    int64_t t = c->t;
    void *bufs[4 * T + 3 * T];
    em_tensor in[TR_MAX], out[TR_MAX];
    t_tensor(&in[0], EMBER_DTYPE_F64, 1, (const int64_t[]){1}, &r);
    t_tensor(&in[1], EMBER_DTYPE_I64, 0, NULL, &t);
    for (int g = 0; g < groups; g++) {
        for (int i = 0; i < T; i++) {
            /* H (and Adam's H) must be >= 0: its sqrt is taken. */
            bool positive = g == groups - 1 && c->op != EM_OP_MOMENTUM;
            float *src =
                t_random_f32(len[i], (uint64_t)(g * 10 + i + 1), positive ? 0.0f : -2.0f, 2.0f);
            void *p = test_calloc((size_t)len[i], es);
            for (int64_t e = 0; e < len[i]; e++) {
                if (c->dt == EMBER_DTYPE_F32) {
                    ((float *)p)[e] = src[e];
                } else {
                    ((double *)p)[e] = src[e] * 1.0000001;
                }
            }
            test_free(src);
            bufs[g * T + i] = p;
            t_tensor(&in[2 + g * T + i], c->dt, 1, &len[i], p);
        }
    }
    for (int g = 0; g < groups - 1; g++) {
        for (int i = 0; i < T; i++) {
            bufs[4 * T + g * T + i] = test_calloc((size_t)len[i], es);
            t_tensor(&out[g * T + i], c->dt, 1, &len[i], bufs[4 * T + g * T + i]);
        }
    }
    t_node tn;
    t_node_init(&tn, c->op, c->name);
    if (!c->defaults) {
        conf_case a = {0};
        a.op = c->op;
        a.alpha = c->alpha;
        a.beta = c->beta;
        a.eps = c->eps;
        a.norm = c->norm;
        a.decay = c->decay;
        a.mode = c->nesterov ? "nesterov" : "standard";
        set_attrs(&tn, &a);
        if (c->op == EM_OP_ADAM) {
            t_set_float(&tn, "norm_coefficient_post", c->norm_post);
        }
    }
    t_expect_ok(tr_run(&tn.n, in, 2 + groups * T, out, (groups - 1) * T), c->name);
    double tol = c->dt == EMBER_DTYPE_F32 ? 2e-6 : 1e-12;
    for (int i = 0; i < T; i++) {
        for (int64_t e = 0; e < len[i]; e++) {
            double v[4] = {0}, o[3];
            for (int g = 0; g < groups; g++) {
                v[g] = elem(c->dt, bufs[g * T + i], e);
            }
            double hv = groups == 4 ? v[3] : v[2];
            naive_update(c, r, v[0], v[1], v[2], hv, o);
            for (int g = 0; g < groups - 1; g++) {
                double got = elem(c->dt, bufs[4 * T + g * T + i], e);
                if (!t_close(got, o[g], tol, tol)) {
                    fail_msg("case %s: output group %d tensor %d element %lld: %.12g, expected "
                             "%.12g",
                             c->name, g, i, (long long)e, got, o[g]);
                }
            }
        }
    }
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++) {
        if (b < (size_t)(groups * T) || (b >= 4 * T && b < (size_t)(4 * T + (groups - 1) * T))) {
            test_free(bufs[b]);
        }
    }
}

static void test_naive(void **state)
{
    (void)state;
    /* clang-format off */
    static const naive_case cases[] = {
        {"adagrad_f32_t0", EM_OP_ADAGRAD, EMBER_DTYPE_F32, 0, false, false, 0, 0, 1e-4f, 0.01f, 0, 0.5f},
        {"adagrad_f64_t5", EM_OP_ADAGRAD, EMBER_DTYPE_F64, 5, false, false, 0, 0, 1e-4f, 0.01f, 0, 0.5f},
        {"adagrad_defaults", EM_OP_ADAGRAD, EMBER_DTYPE_F64, 3, true, false, 0, 0, 0, 0, 0, 0},
        {"adam_f32_t0", EM_OP_ADAM, EMBER_DTYPE_F32, 0, false, false, 0.9f, 0.99f, 1e-3f, 0.02f, 0.1f, 0},
        {"adam_f64_t7", EM_OP_ADAM, EMBER_DTYPE_F64, 7, false, false, 0.8f, 0.9f, 1e-3f, 0.02f, 0.1f, 0},
        {"adam_defaults_t2", EM_OP_ADAM, EMBER_DTYPE_F64, 2, true, false, 0, 0, 0, 0, 0, 0},
        {"momentum_f32_t3", EM_OP_MOMENTUM, EMBER_DTYPE_F32, 3, false, false, 0.9f, 0.3f, 0, 0.01f, 0, 0},
        {"momentum_f64_t0", EM_OP_MOMENTUM, EMBER_DTYPE_F64, 0, false, false, 0.9f, 0.3f, 0, 0.01f, 0, 0},
        {"nesterov_f64_t4", EM_OP_MOMENTUM, EMBER_DTYPE_F64, 4, false, true, 0.7f, 0.5f, 0, 0.02f, 0, 0},
        {"nesterov_f32_t0", EM_OP_MOMENTUM, EMBER_DTYPE_F32, 0, false, true, 0.7f, 0.5f, 0, 0.02f, 0, 0},
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        naive_check(&cases[i]);
    }
}

/* ---- Malformed nodes ------------------------------------------------------------------------ */

static void test_errors(void **state)
{
    (void)state;
    double buf[8] = {0};
    static const int64_t two = 2, three = 3;
    static const struct {
        const char *name;
        em_op op;
        int n_in, n_out;
        ember_dtype r_dt, t_dt, x_dt, h_dt;
        const int64_t *h_len;
        const char *mode; /* Momentum: NULL = absent */
        bool no_alpha;
    } bads[] = {
        {"tr_groups", EM_OP_ADAGRAD, 6, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, NULL, false},
        {"tr_outputs", EM_OP_ADAGRAD, 5, 3, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, NULL, false},
        {"tr_r_int", EM_OP_ADAGRAD, 5, 2, EMBER_DTYPE_I64, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, NULL, false},
        {"tr_t_f32", EM_OP_ADAGRAD, 5, 2, EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, NULL, false},
        {"tr_x_f16", EM_OP_ADAGRAD, 5, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F16,
         EMBER_DTYPE_F16, &two, NULL, false},
        {"tr_h_dtype", EM_OP_ADAGRAD, 5, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F64, &two, NULL, false},
        {"tr_h_shape", EM_OP_ADAM, 6, 3, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &three, NULL, false},
        {"tr_mode", EM_OP_MOMENTUM, 5, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, "heavy_ball", false},
        {"tr_no_mode", EM_OP_MOMENTUM, 5, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, NULL, false},
        {"tr_no_alpha", EM_OP_MOMENTUM, 5, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, &two, "standard", true},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[TR_MAX], out[TR_MAX];
        t_tensor(&in[0], bads[i].r_dt, 0, NULL, buf);
        t_tensor(&in[1], bads[i].t_dt, 0, NULL, buf);
        for (int k = 2; k < bads[i].n_in; k++) {
            bool last = k == bads[i].n_in - 1;
            t_tensor(&in[k], last ? bads[i].h_dt : bads[i].x_dt, 1, last ? bads[i].h_len : &two,
                     buf);
        }
        for (int k = 0; k < bads[i].n_out; k++) {
            t_tensor(&out[k], bads[i].x_dt, 1, &two, buf);
        }
        t_node tn;
        t_node_init(&tn, bads[i].op, bads[i].name);
        if (bads[i].op == EM_OP_MOMENTUM) {
            if (!bads[i].no_alpha) {
                t_set_float(&tn, "alpha", 0.9f);
            }
            t_set_float(&tn, "beta", 0.9f);
            t_set_float(&tn, "norm_coefficient", 0.0f);
            if (bads[i].mode != NULL) {
                t_set_string(&tn, "mode", bads[i].mode);
            }
        }
        t_expect_error(tr_run(&tn.n, in, bads[i].n_in, out, bads[i].n_out), EMBER_ERR_INVALID_MODEL,
                       bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance),
        cmocka_unit_test(test_naive),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
