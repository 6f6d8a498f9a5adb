/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 elementwise kernels (Relu, Add, Mul f32; AVX2 and AVX-512) against the reference:
 * lengths around the vector widths and unroll steps (tails), misaligned pointers, guard
 * words after the output that must stay untouched, in-place (out == in0), lengths spanning
 * several parallel blocks on a 2-thread pool (bitwise equal to serial), NaN propagation, and
 * declining broadcasting shapes. Skips when the CPU lacks the ISA.
 */
#include "test_x86_harness.h"

#define GUARD 32
#define SENTINEL 12345.0f

/* Around 8/16 lanes, the 32/64-element unrolled steps and the 16384-element parallel block. */
static const int64_t sizes[] = {0,  1,  7,  8,   9,    15,   16,    17,    31,    32,   33,
                                63, 64, 65, 100, 1000, 4099, 16383, 16384, 16385, 40000};

static bool all_sentinel(const float *p, int n)
{
    for (int i = 0; i < n; i++) {
        if (p[i] != SENTINEL) {
            return false;
        }
    }
    return true;
}

static void run_op(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    const em_kernel *k = ks[0];
    int n_in = op == EM_OP_RELU ? 1 : 2;
    t_node node;
    t_node_init(&node, op, "ew");
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        uint64_t seed = 77 + si;
        char name[64];
        snprintf(name, sizeof name, "%s_n%lld", em_op_name(op), (long long)n);
        /* +1 float of offset: misaligned for every vector width. */
        float *a = t_random_f32(n + 1, seed, -2.0f, 2.0f),
              *b = t_random_f32(n + 1, seed + 1, -2.0f, 2.0f);
        float *ref = t_f32(n), *got = t_f32(n + 1 + GUARD), *par = t_f32(n), *inpl = t_f32(n);
        if (n > 3) {
            a[2] = NAN; /* propagated by Relu, Add and Mul alike */
        }
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, a + 1);
        t_tensor(&in[1], EMBER_DTYPE_F32, 1, &n, b + 1);
        t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, ref);
        t_expect_ok(kt_run(t_kernel(op, EMBER_DTYPE_F32), &node.n, in, n_in, out, 1, 0, NULL),
                    name);

        for (int i = 0; i < n + 1 + GUARD; i++) {
            got[i] = SENTINEL;
        }
        out[0].data = got + 1;
        t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, 0, NULL), name);
        kt_check(name, k->name, seed, got + 1, ref, n, 0.0, 1e-6);
        if (got[0] != SENTINEL || !all_sentinel(got + 1 + n, GUARD)) {
            fail_msg("case %s, kernel %s: wrote outside the output", name, k->name);
        }

        out[0].data = par;
        t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, 0, pool), name);
        kt_check_same(name, k->name, "2-thread result", got + 1, par, n);

        memcpy(inpl, a + 1, sizeof(float) * (size_t)n); /* in place: out == in0 */
        in[0].data = inpl;
        out[0].data = inpl;
        t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, 0, pool), name);
        kt_check(name, k->name, seed, inpl, ref, n, 0.0, 1e-6);

        test_free(a);
        test_free(b);
        test_free(ref);
        test_free(got);
        test_free(par);
        test_free(inpl);
    }
    em_threadpool_destroy(pool);
}

static void test_relu(void **state)
{
    run_op(EM_OP_RELU, *state);
}
static void test_add(void **state)
{
    run_op(EM_OP_ADD, *state);
}
static void test_mul(void **state)
{
    run_op(EM_OP_MUL, *state);
}

/* Broadcasting and non-f32 inputs are declined (the planner falls back to the reference). */
static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_ADD, *state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_ADD, "add");
    float buf[8] = {0};
    int64_t d23[] = {2, 3}, d3[] = {3};
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d3, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_expect_error(kt_run(ks[0], &node.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "add",
                   "broadcast");
    t_tensor(&in[1], EMBER_DTYPE_I32, 2, d23, buf);
    t_expect_error(kt_run(ks[0], &node.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "add",
                   "i32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_relu, "__avx2"),     KT_TEST(test_relu, "__avx512"),
        KT_TEST(test_add, "__avx2"),      KT_TEST(test_add, "__avx512"),
        KT_TEST(test_mul, "__avx2"),      KT_TEST(test_mul, "__avx512"),
        KT_TEST(test_declines, "__avx2"), KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
