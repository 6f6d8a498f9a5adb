/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The grouped AVX2 Winograd cases of test_fusedconv_util.h (groups of whole blocks, 8 to 128
 * channels wide; the 8-wide one must be declined by Winograd and run by the others), in its
 * own executable: only at block 8, the layout Winograd runs (fc_sweep's plain and
 * blocked-16 runs of these cases went to oneDNN's slow grouped paths and took this test past
 * ctest's 600 s on a loaded machine), every activation with and without B and Z, W constant
 * on a 2- or 3-thread pool and W at run time serially (run_case).
 */
#include "test_fusedconv_util.h"

static void test_fusedconv_sweep_c(void **state)
{
    (void)state;
    fc_set r;
    fc_set_init(&r, 1.0f, true);
    const size_t lo = 19, hi = sizeof cases / sizeof cases[0];
    assert_true(lo < hi);
    for (size_t ci = lo; ci < hi; ci++) {
        assert_true(strncmp(cases[ci].name, "wino_g", 6) == 0 && cases[ci].group > 1);
        uint64_t seed = 9000 + 64 * (uint64_t)ci;
        /* B mostly absent: run_case keeps only W constant, and Winograd declines a B at run
         * time (its pack needs it), so a run with B goes to the others only */
        for (int ai = 0; ai < N_SWEPT; ai++) {
            run_case(&cases[ci], ai, ai == 0, ai % 3 != 1, 8, false, seed++, &r);
        }
        run_case(&cases[ci], 1, false, true, 8, false, seed++, &r);
    }
    for (size_t ki = 0; ki < r.n; ki++) {
        const char *name = r.r[ki].k->name;
        print_message("%s: %d runs\n", name, r.r[ki].taken);
        if (strstr(name, "wino") != NULL) { /* the wide-group cases, W constant */
            assert_true(r.r[ki].taken >= 20);
        } else if (strstr(name, "_dw") == NULL) {
            assert_true(r.r[ki].taken > 0);
        }
    }
    fc_set_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_sweep_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
