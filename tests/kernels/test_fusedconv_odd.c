/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv kernels on group and block counts that do not divide by the thread count
 * (test_fusedconv_util.h).
 */
#include "test_fusedconv_util.h"

/* Group and block counts that do not divide by the thread count: oneDNN's slices are unequal
 * (conv_onednn.c plan_slices). Blocked layouts only, a few epilogues, on 2 and 3 threads (the
 * sweep, test_fusedconv_sweep_a.c / _b.c, takes minutes under ASan). */
static const fc_case odd_cases[] = {
    {"group13",     1, 104, 8, 7,  104, 3, 3, 13, {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"depthwise20", 1, 20, 9,  10, 20, 3, 3, 20, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"1x1_m40",     1, 24, 5,  6,  40, 1, 1, 1,  {1, 1}, {1, 1}, {0, 0, 0, 0}},
};

static void test_fusedconv_odd_slices(void **state)
{
    (void)state;
    fc_set r;
    fc_set_init(&r, 1.0f, true);
    uint64_t seed = 9900;
    for (size_t ci = 0; ci < sizeof odd_cases / sizeof odd_cases[0]; ci++) {
        for (int64_t b = 8; b <= 16; b += 8) { /* seeds alternate the 2- and 3-thread pool */
            run_case(&odd_cases[ci], 0, true, false, b, false, seed++, &r);
            run_case(&odd_cases[ci], 1, false, true, b, false, seed++, &r);
            run_case(&odd_cases[ci], 8, true, true, b, false, seed++, &r);
            run_case(&odd_cases[ci], 3, false, false, b, false, seed++, &r);
        }
    }
    for (size_t ki = 0; ki < r.n; ki++) {
        if (strstr(r.r[ki].k->name, "onednn") != NULL) {
            assert_true(r.r[ki].taken > 0);
        }
    }
    fc_set_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_odd_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
