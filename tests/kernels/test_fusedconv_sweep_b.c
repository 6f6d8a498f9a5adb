/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FusedConv sweep (test_fusedconv_util.h) over the rest (alexnet's 11x11, Winograd, narrow groups, the AVX2 Winograd edge cases).
 */
#include "test_fusedconv_util.h"

static void test_fusedconv_sweep_b(void **state)
{
    (void)state;
    fc_sweep(10, 19); /* sweep_c: the grouped Winograd cases after them */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_sweep_b),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
