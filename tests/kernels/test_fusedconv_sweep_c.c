/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FusedConv sweep (test_fusedconv_util.h) over the grouped AVX2 Winograd cases (groups of
 * whole blocks, 8 to 64 channels wide; the narrow one must be declined by Winograd and run by
 * the others), in its own executable for its time under ASan.
 */
#include "test_fusedconv_util.h"

static void test_fusedconv_sweep_c(void **state)
{
    (void)state;
    fc_sweep(19, sizeof cases / sizeof cases[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_sweep_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
