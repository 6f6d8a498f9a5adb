/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OpenBLAS Gemm, FusedGemm and MatMul adapters against the reference kernel, on the same
 * case tables as the x86 kernels (transposes, alpha / beta, C broadcasting, K = 0, batched and
 * broadcast MatMul). Skips when this build has no OpenBLAS. The adapter runs blocks of rows on
 * ember's pool with OpenBLAS single-threaded; the 2-thread run must match the serial one bit for
 * bit.
 */
#include "test_x86_harness.h"

static void test_gemm(void **state)
{
    (void)state;
    kt_mm_suite(EM_OP_GEMM, "__openblas");
}

static void test_matmul(void **state)
{
    (void)state;
    kt_mm_suite(EM_OP_MATMUL, "__openblas");
}

static void test_fusedgemm(void **state)
{
    (void)state;
    kt_fusedgemm_suite("__openblas");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_fusedgemm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
