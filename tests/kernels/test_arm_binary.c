/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON Add, Sub, Mul, Div (kernels/arm/binary_f32_neon.c) against the reference: the
 * cases of test_x86_binary.c (same shape, scalar, trailing-block and per-channel broadcasts,
 * either operand small, odd sizes, in place; declines), run on the "__neon" kernels.
 * The x86 file's cases are ISA-neutral (they find kernels by name suffix and skip
 * what the CPU lacks), so it is included here with its main renamed, rather than copied;
 * the NEON units are the same kernels/vec templates on 4-lane vectors.
 */
int x86_binary_main(void); /* the included file's main, unused here */
#define main x86_binary_main
#include "test_x86_binary.c"
#undef main

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__neon"),
        KT_TEST(test_declines, "__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
