/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON plain-layout MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool
 * (kernels/arm/pool_f32_neon.c: kernels/vec/pool_driver.inc on 4-lane vectors) against the
 * reference: the cases of test_x86_pool.c, whose kernels are found by name suffix, so it is
 * included here with its main renamed.
 */
int x86_pool_main(void); /* the included file's main, unused here */
#define main x86_pool_main
#include "test_x86_pool.c"
#undef main

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_maxpool, "__neon"), KT_TEST(test_avgpool, "__neon"),
        KT_TEST(test_gmax, "__neon"),    KT_TEST(test_gavg, "__neon"),
        KT_TEST(test_declines, "__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
