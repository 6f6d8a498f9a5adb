/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 Gemm and MatMul kernels (AVX2 6x16, AVX-512 14x32) against the reference kernel:
 * tile-boundary and odd shapes, transposes, alpha / beta, every C broadcast, K = 0, batched
 * and broadcast MatMul, B as a runtime input and as a prepacked constant, and a 2-thread pool
 * that must reproduce the serial result bit for bit; FusedGemm (the activation epilogue) with
 * every activation on full and edge tiles, each C form, several K blocks, M = 1 and K = 0.
 * Skips when the CPU lacks the ISA.
 */
#include "test_x86_harness.h"

static void test_gemm(void **state)
{
    kt_mm_suite(EM_OP_GEMM, *state);
}
static void test_matmul(void **state)
{
    kt_mm_suite(EM_OP_MATMUL, *state);
}

static void test_fusedgemm(void **state)
{
    kt_fusedgemm_suite(*state);
}

/* Declines what the fast path does not handle (the planner then uses the reference). */
static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_GEMM, *state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_GEMM, "g");
    float buf[64] = {0};
    int64_t d23[] = {2, 3}, d32[] = {3, 2}, d22[] = {2, 2}, d3[] = {3}, d44[] = {4, 4};
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, d32, buf);
    t_absent(&in[2]);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, buf);
    /* C of shape [3] does not broadcast to [2, 2]. */
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, d3, buf);
    t_expect_error(kt_run(ks[0], &node.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "g",
                   "bad C");
    /* Wrong output shape. */
    t_absent(&in[2]);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d44, buf);
    t_expect_error(kt_run(ks[0], &node.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "g",
                   "bad Y");
    /* FusedGemm with an activation it does not know. */
    t_node fn;
    t_node_init(&fn, EM_OP_FUSEDGEMM, "fg");
    t_set_string(&fn, "activation", "Softplus");
    const em_kernel *fk[KT_MAX_KERNELS];
    if (kt_find(EM_OP_FUSEDGEMM, *state, fk, KT_MAX_KERNELS) > 0) {
        t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, buf);
        t_expect_error(kt_run(fk[0], &fn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "fg",
                       "unknown activation");
    }
    /* Not f32. */
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, buf);
    in[0].dtype = EMBER_DTYPE_F64;
    t_expect_error(kt_run(ks[0], &node.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "g",
                   "f64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_gemm, "__avx2"),      KT_TEST(test_gemm, "__avx512"),
        KT_TEST(test_matmul, "__avx2"),    KT_TEST(test_matmul, "__avx512"),
        KT_TEST(test_fusedgemm, "__avx2"), KT_TEST(test_fusedgemm, "__avx512"),
        KT_TEST(test_declines, "__avx2"),  KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
