/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 activation kernels (Sigmoid, Tanh, Clip, HardSigmoid, HardSwish, Gelu, Swish, Mish;
 * f32, AVX2 and AVX-512) against the reference: lengths around the vector widths and the
 * 16384-element parallel block, inputs over [-20, 20] plus 0, +-0.6 (tanh's polynomial
 * boundary), +-inf and NaN (propagated), within 1e-6 relative (1e-7 absolute near 0); 2
 * threads bitwise equal to serial; in place. Clip with both, one or no bounds and min > max;
 * HardSigmoid with alpha / beta; Gelu none and tanh, and Gelu none on [-12, 12] within 1e-6
 * relative with no absolute slack (its far tail); Swish with alpha 1 and 0.7. Declines:
 * Clip with a runtime bound, f64, Gelu with an unknown approximation.
 */
#include "test_x86_harness.h"

static const int64_t sizes[] = {1, 7, 8, 9, 15, 16, 17, 33, 100, 16383, 16385, 40000};

typedef struct un_case {
    em_op op;
    int bounds; /* Clip: bit 0 min given, bit 1 max given */
    float lo, hi;
    float alpha, beta; /* HardSigmoid, Swish (alpha); 0: defaults */
    const char *approximate; /* Gelu; NULL: default */
} un_case;

static const un_case cases[] = {
    {EM_OP_SIGMOID, 0, 0, 0, 0, 0, NULL},
    {EM_OP_TANH, 0, 0, 0, 0, 0, NULL},
    {EM_OP_CLIP, 3, 0.0f, 6.0f, 0, 0, NULL},
    {EM_OP_CLIP, 1, -1.5f, 0, 0, 0, NULL},
    {EM_OP_CLIP, 2, 0, 2.5f, 0, 0, NULL},
    {EM_OP_CLIP, 0, 0, 0, 0, 0, NULL},
    {EM_OP_CLIP, 3, 3.0f, -1.0f, 0, 0, NULL},
    {EM_OP_HARDSIGMOID, 0, 0, 0, 0, 0, NULL},
    {EM_OP_HARDSIGMOID, 0, 0, 0, 0.3f, 0.4f, NULL},
    {EM_OP_HARDSWISH, 0, 0, 0, 0, 0, NULL},
    {EM_OP_GELU, 0, 0, 0, 0, 0, NULL},
    {EM_OP_GELU, 0, 0, 0, 0, 0, "none"},
    {EM_OP_GELU, 0, 0, 0, 0, 0, "tanh"},
    {EM_OP_SWISH, 0, 0, 0, 0, 0, NULL},
    {EM_OP_SWISH, 0, 0, 0, 0.7f, 0, NULL},
    {EM_OP_MISH, 0, 0, 0, 0, 0, NULL},
};

static const em_kernel *find(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    return nk > 0 && kt_isa_ok(ks[0]) ? ks[0] : NULL;
}

static void test_cases(void **state)
{
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const un_case *c = &cases[ci];
        const em_kernel *k = find(c->op, *state);
        if (k == NULL) {
            continue;
        }
        t_node tn;
        t_node_init(&tn, c->op, "act");
        if (c->alpha != 0.0f) {
            t_set_float(&tn, "alpha", c->alpha);
        }
        if (c->alpha != 0.0f && c->op == EM_OP_HARDSIGMOID) {
            t_set_float(&tn, "beta", c->beta);
        }
        if (c->approximate != NULL) {
            t_set_string(&tn, "approximate", c->approximate);
        }
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            int64_t n = sizes[si], one = 1;
            char name[64];
            snprintf(name, sizeof name, "%s_%zu_n%lld", em_op_name(c->op), ci, (long long)n);
            float *x = t_random_f32(n, ci * 100 + si, -20.0f, 20.0f);
            static const float special[] = {0.0f, 0.6f, -0.6f, 0.625f, INFINITY, -INFINITY, NAN,
                                            1e-4f};
            for (int i = 0; i < 8 && i < n; i++) {
                x[(int64_t)i * 5 % n] = special[i];
            }
            float *ref = t_f32(n), *got = t_f32(n), *par = t_f32(n);
            float lo = c->lo, hi = c->hi;
            em_tensor in[3], out[1];
            t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
            t_tensor(&in[1], EMBER_DTYPE_F32, 0, &one, &lo);
            t_tensor(&in[2], EMBER_DTYPE_F32, 0, &one, &hi);
            int n_in = 1;
            if (c->op == EM_OP_CLIP) {
                n_in = 3;
                if (!(c->bounds & 1)) {
                    t_absent(&in[1]);
                }
                if (!(c->bounds & 2)) {
                    t_absent(&in[2]);
                }
            }
            t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, ref);
            const em_kernel *rk = t_kernel(c->op, c->op == EM_OP_SIGMOID || c->op == EM_OP_TANH
                                                      ? EMBER_DTYPE_F32
                                                      : EMBER_DTYPE_UNDEFINED);
            t_expect_ok(kt_run(rk, &tn.n, in, n_in, out, 1, 0x6u, NULL), name);
            kt_fill_nan(got, n);
            out[0].data = got;
            t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, NULL), name);
            kt_check(name, k->name, ci, got, ref, n, 1e-7, 1e-6);
            out[0].data = par;
            t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, pool), name);
            kt_check_same(name, k->name, "2-thread result", got, par, n);
            out[0].data = x; /* in place */
            t_expect_ok(kt_run(k, &tn.n, in, n_in, out, 1, 0x6u, pool), name);
            kt_check_same(name, k->name, "in-place result", got, x, n);
            test_free(x);
            test_free(ref);
            test_free(got);
            test_free(par);
            ran++;
        }
    }
    em_threadpool_destroy(pool);
    if (ran == 0) {
        skip();
    }
}

/* Gelu (erf) over [-12, 12] within 1e-6 relative with no absolute slack: the far negative
 * tail (Gelu(-12) ~ -2e-32) keeps its relative precision (x^2 / 2 is carried as hi + lo into
 * the exponential), and 0 stays 0. */
static void test_gelu_tail(void **state)
{
    const em_kernel *k = find(EM_OP_GELU, *state);
    if (k == NULL) {
        skip();
    }
    t_node tn;
    t_node_init(&tn, EM_OP_GELU, "gelu");
    int64_t n = 24001;
    float *x = t_f32(n), *ref = t_f32(n), *got = t_f32(n);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(-12.0 + 24.0 * (double)i / (double)(n - 1));
    }
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, ref);
    t_expect_ok(kt_run(t_kernel(EM_OP_GELU, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, 0, NULL),
                "gelu_tail");
    out[0].data = got;
    t_expect_ok(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), "gelu_tail");
    kt_check("gelu_tail", k->name, 0, got, ref, n, 0.0, 1e-6);
    test_free(x);
    test_free(ref);
    test_free(got);
}

static void test_declines(void **state)
{
    const em_kernel *k = find(EM_OP_CLIP, *state);
    if (k == NULL) {
        skip();
    }
    float buf[8] = {0};
    int64_t n = 8, one = 1;
    em_tensor in[3], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_CLIP, "clip");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, &one, buf);
    t_tensor(&in[2], EMBER_DTYPE_F32, 0, &one, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, buf);
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 1, 0x4u, NULL), EMBER_ERR_UNSUPPORTED, "clip",
                   "runtime min");
    t_tensor(&in[0], EMBER_DTYPE_F64, 1, &n, buf);
    t_tensor(&out[0], EMBER_DTYPE_F64, 1, &n, buf);
    t_expect_error(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "clip", "f64");
    const em_kernel *gk = find(EM_OP_GELU, *state);
    t_node_init(&tn, EM_OP_GELU, "gelu");
    t_set_string(&tn, "approximate", "sigmoid");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, buf);
    t_expect_error(kt_run(gk, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "gelu",
                   "tanh");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__avx2"),     KT_TEST(test_cases, "__avx512"),
        KT_TEST(test_gelu_tail, "__avx2"), KT_TEST(test_gelu_tail, "__avx512"),
        KT_TEST(test_declines, "__avx2"),  KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
