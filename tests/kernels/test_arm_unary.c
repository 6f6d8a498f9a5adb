/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON activations (kernels/arm/unary_f32_neon.c) against the reference: the cases of
 * test_x86_unary.c (Sigmoid, Tanh, Clip, HardSigmoid, HardSwish, Gelu, Swish, Mish on lengths
 * around the vector widths, +-inf, NaN, 2 threads, in place; Gelu's far tail; declines), run
 * on the "__neon" kernels, and Relu (NEON only: x86 has its own), exact, NaN propagated.
 * The x86 file's cases are ISA-neutral (they find kernels by name suffix and skip
 * what the CPU lacks), so it is included here with its main renamed, rather than copied;
 * the NEON units are the same kernels/vec templates on 4-lane vectors.
 */
int x86_unary_main(void); /* the included file's main, unused here */
#define main x86_unary_main
#include "test_x86_unary.c"
#undef main

/* Relu: exact against the reference on every length class, with -0, +-inf and NaN. */
static void test_relu(void **state)
{
    const em_kernel *k = find(EM_OP_RELU, *state);
    if (k == NULL) {
        skip();
    }
    t_node tn;
    t_node_init(&tn, EM_OP_RELU, "relu");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        float *x = t_random_f32(n, 900 + si, -5.0f, 5.0f);
        static const float special[] = {-0.0f, INFINITY, -INFINITY, NAN, -NAN, 0.0f};
        for (int i = 0; i < 6 && i < n; i++) {
            x[(int64_t)i * 7 % n] = special[i];
        }
        float *ref = t_f32(n), *got = t_f32(n);
        em_tensor in[1], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
        t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, ref);
        t_expect_ok(kt_run(t_kernel(EM_OP_RELU, EMBER_DTYPE_F32), &tn.n, in, 1, out, 1, 0,
                           NULL),
                    "relu");
        kt_fill_nan(got, n);
        out[0].data = got;
        t_expect_ok(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), "relu");
        kt_check("relu", k->name, si, got, ref, n, 0.0, 0.0);
        test_free(x);
        test_free(ref);
        test_free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__neon"),
        KT_TEST(test_relu, "__neon"),
        KT_TEST(test_gelu_tail, "__neon"),
        KT_TEST(test_declines, "__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
