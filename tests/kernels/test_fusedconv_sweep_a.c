/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FusedConv sweep (test_fusedconv_util.h) over the first ten cases (plain, strided, dilated, grouped, depthwise, wide, first convs).
 */
#include "test_fusedconv_util.h"

static void test_fusedconv_sweep_a(void **state)
{
    (void)state;
    fc_sweep(0, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_sweep_a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
