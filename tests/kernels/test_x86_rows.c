/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 row kernels (Softmax along the last axis, LayerNormalization's Y; f32, AVX2 and
 * AVX-512) against the reference: row lengths around the vector widths (tails), 1 to many
 * rows (enough for the 2-thread pool; bitwise equal to serial), inputs up to +-30 (exp's
 * range), LayerNorm over one or two trailing axes with a full or single-value Scale, B absent
 * / full / single, a large epsilon; RMSNormalization likewise (one or two axes, full or single
 * Scale). Declines: Softmax along another axis, LayerNorm's Mean output, a Scale broadcast
 * along some axes only, RMSNormalization's stash_type 0.
 */
#include "test_x86_harness.h"

static const int64_t lens[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 256, 1000};
static const int64_t nrows[] = {1, 3, 64, 257};

static void check_case(const em_kernel *k, const t_node *tn, const char *name, em_tensor *in,
                       int n_in, int rank, const int64_t *dims, em_threadpool *pool)
{
    int64_t n = t_numel(dims, rank);
    float *ref = t_f32(n), *got = t_f32(n), *par = t_f32(n);
    em_tensor out[1];
    t_tensor(&out[0], EMBER_DTYPE_F32, rank, dims, ref);
    em_op op = tn->n.op;
    const em_kernel *rk = t_kernel(op, op == EM_OP_SOFTMAX ? EMBER_DTYPE_F32 : EMBER_DTYPE_UNDEFINED);
    t_expect_ok(kt_run(rk, &tn->n, in, n_in, out, 1, 0, NULL), name);
    kt_fill_nan(got, n);
    out[0].data = got;
    t_expect_ok(kt_run(k, &tn->n, in, n_in, out, 1, 0, NULL), name);
    /* LayerNorm: f32 statistics; x - mean loses |x| / std ulps against the double reference. */
    double tol = op == EM_OP_SOFTMAX ? 1e-6 : 1e-5;
    kt_check(name, k->name, 0, got, ref, n, tol, 2.0 * tol);
    kt_fill_nan(par, n);
    out[0].data = par;
    t_expect_ok(kt_run(k, &tn->n, in, n_in, out, 1, 0, pool), name);
    kt_check_same(name, k->name, "2-thread result", got, par, n);
    test_free(ref);
    test_free(got);
    test_free(par);
}

static const em_kernel *find(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    return ks[0];
}

static void test_softmax(void **state)
{
    const em_kernel *k = find(EM_OP_SOFTMAX, *state);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t ri = 0; ri < sizeof nrows / sizeof nrows[0]; ri++) {
            int64_t dims[3] = {2, nrows[ri], lens[li]};
            char name[64];
            snprintf(name, sizeof name, "softmax_%lldx%lld", (long long)nrows[ri],
                     (long long)lens[li]);
            float *x = t_random_f32(t_numel(dims, 3), li * 10 + ri, -30.0f, 30.0f);
            em_tensor in[1];
            t_tensor(&in[0], EMBER_DTYPE_F32, 3, dims, x);
            t_node tn;
            t_node_init(&tn, EM_OP_SOFTMAX, "sm");
            t_set_int(&tn, "axis", ri % 2 == 0 ? -1 : 2);
            check_case(k, &tn, name, in, 1, 3, dims, pool);
            test_free(x);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_layernorm(void **state)
{
    const em_kernel *k = find(EM_OP_LAYERNORM, *state);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ci = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t ri = 0; ri < sizeof nrows / sizeof nrows[0]; ri++, ci++) {
            bool two_axes = ci % 3 == 2 && lens[li] % 2 == 0;
            int64_t dims[3] = {nrows[ri], two_axes ? 2 : 1, two_axes ? lens[li] / 2 : lens[li]};
            int64_t nd[2] = {dims[1], dims[2]}, one = 1;
            int b_mode = ci % 3; /* 0 none, 1 full, 2 single */
            bool scale_single = ci % 5 == 4;
            float *x = t_random_f32(t_numel(dims, 3), (uint64_t)ci, -3.0f, 5.0f);
            float *sc = t_random_f32(lens[li], (uint64_t)ci + 100, 0.5f, 1.5f);
            float *b = t_random_f32(lens[li], (uint64_t)ci + 200, -1.0f, 1.0f);
            em_tensor in[3];
            t_tensor(&in[0], EMBER_DTYPE_F32, 3, dims, x);
            if (scale_single) {
                t_tensor(&in[1], EMBER_DTYPE_F32, 1, &one, sc);
            } else {
                t_tensor(&in[1], EMBER_DTYPE_F32, two_axes ? 2 : 1, two_axes ? nd : nd + 1, sc);
            }
            if (b_mode == 1) {
                t_tensor(&in[2], EMBER_DTYPE_F32, two_axes ? 2 : 1, two_axes ? nd : nd + 1, b);
            } else if (b_mode == 2) {
                t_tensor(&in[2], EMBER_DTYPE_F32, 1, &one, b);
            } else {
                t_absent(&in[2]);
            }
            t_node tn;
            t_node_init(&tn, EM_OP_LAYERNORM, "ln");
            t_set_int(&tn, "axis", two_axes ? 1 : -1);
            if (ci % 4 == 1) {
                t_set_float(&tn, "epsilon", 0.5f);
            }
            char name[96];
            snprintf(name, sizeof name, "layernorm_%lldx%lldx%lld_b%d_s%d", (long long)dims[0],
                     (long long)dims[1], (long long)dims[2], b_mode, (int)scale_single);
            check_case(k, &tn, name, in, b_mode == 0 ? 2 : 3, 3, dims, pool);
            test_free(x);
            test_free(sc);
            test_free(b);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_rmsnorm(void **state)
{
    const em_kernel *k = find(EM_OP_RMSNORMALIZATION, *state);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ci = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t ri = 0; ri < sizeof nrows / sizeof nrows[0]; ri++, ci++) {
            bool two_axes = ci % 3 == 1 && lens[li] % 2 == 0, scale_single = ci % 4 == 3;
            int64_t dims[3] = {nrows[ri], two_axes ? 2 : 1, two_axes ? lens[li] / 2 : lens[li]};
            int64_t nd[2] = {dims[1], dims[2]}, one = 1;
            float *x = t_random_f32(t_numel(dims, 3), (uint64_t)ci + 300, -3.0f, 5.0f);
            float *sc = t_random_f32(lens[li], (uint64_t)ci + 400, 0.5f, 1.5f);
            em_tensor in[2];
            t_tensor(&in[0], EMBER_DTYPE_F32, 3, dims, x);
            if (scale_single) {
                t_tensor(&in[1], EMBER_DTYPE_F32, 1, &one, sc);
            } else {
                t_tensor(&in[1], EMBER_DTYPE_F32, two_axes ? 2 : 1, two_axes ? nd : nd + 1, sc);
            }
            t_node tn;
            t_node_init(&tn, EM_OP_RMSNORMALIZATION, "rms");
            t_set_int(&tn, "axis", two_axes ? 1 : -1);
            if (ci % 5 == 2) {
                t_set_float(&tn, "epsilon", 0.5f);
            }
            char name[96];
            snprintf(name, sizeof name, "rmsnorm_%lldx%lldx%lld_s%d", (long long)dims[0],
                     (long long)dims[1], (long long)dims[2], (int)scale_single);
            check_case(k, &tn, name, in, 2, 3, dims, pool);
            test_free(x);
            test_free(sc);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_declines(void **state)
{
    const em_kernel *sm = find(EM_OP_SOFTMAX, *state), *ln = find(EM_OP_LAYERNORM, *state);
    float buf[64] = {0};
    int64_t d[2] = {4, 8}, d21[2] = {4, 1};
    em_tensor in[3], out[2];
    t_node tn;
    t_node_init(&tn, EM_OP_SOFTMAX, "sm0");
    t_set_int(&tn, "axis", 0);
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d, buf);
    t_expect_error(kt_run(sm, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "sm0", "axis");
    t_node_init(&tn, EM_OP_LAYERNORM, "ln0");
    t_set_int(&tn, "axis", 0);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, d21, buf); /* [4, 1] over [4, 8]: partly broadcast */
    t_expect_error(kt_run(ln, &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "ln0",
                   "scale");
    t_node_init(&tn, EM_OP_LAYERNORM, "ln1");
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d + 1, buf);
    t_tensor(&out[1], EMBER_DTYPE_F32, 2, d21, buf);
    t_expect_error(kt_run(ln, &tn.n, in, 2, out, 2, 0, NULL), EMBER_ERR_UNSUPPORTED, "ln1", "mean");
    const em_kernel *rms = find(EM_OP_RMSNORMALIZATION, *state);
    t_node_init(&tn, EM_OP_RMSNORMALIZATION, "rms0");
    t_set_int(&tn, "stash_type", 0);
    t_expect_error(kt_run(rms, &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "rms0",
                   "f32");
    t_node_init(&tn, EM_OP_RMSNORMALIZATION, "rms1");
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, d21, buf);
    t_expect_error(kt_run(rms, &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "rms1",
                   "scale");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_softmax, "__avx2"),   KT_TEST(test_softmax, "__avx512"),
        KT_TEST(test_layernorm, "__avx2"), KT_TEST(test_layernorm, "__avx512"),
        KT_TEST(test_rmsnorm, "__avx2"),   KT_TEST(test_rmsnorm, "__avx512"),
        KT_TEST(test_declines, "__avx2"),  KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
