/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON Gemm, MatMul and FusedGemm (kernels/arm/gemm_f32_neon.c: the 6x16 micro-kernel in
 * the packed driver) against the reference: the cases of test_x86_gemm.c (tile-boundary and
 * odd shapes, transposes, alpha / beta, every C broadcast, K = 0, batched and broadcast
 * MatMul, B at run time and prepacked, 2 threads bitwise equal to 1, every FusedGemm
 * activation, declines), run on the "__neon" kernels.
 * The x86 file's cases are ISA-neutral (they find kernels by name suffix and skip
 * what the CPU lacks), so it is included here with its main renamed, rather than copied;
 * the NEON units are the same kernels/vec templates on 4-lane vectors.
 */
int x86_gemm_main(void); /* the included file's main, unused here */
#define main x86_gemm_main
#include "test_x86_gemm.c"
#undef main

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_gemm, "__neon"),
        KT_TEST(test_matmul, "__neon"),
        KT_TEST(test_fusedgemm, "__neon"),
        KT_TEST(test_declines, "__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
