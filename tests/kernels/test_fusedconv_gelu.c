/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv kernels with Gelu (erf and tanh) epilogues on extreme values
 * (test_fusedconv_util.h).
 */
#include "test_fusedconv_util.h"

/* Gelu (erf and tanh) on every case and kernel, plain and blocked (8 and 16), with and without
 * B and Z, the winograd cases also at block 8 (AVX2 Winograd); X scaled by 4 and B by 10 so
 * that conv outputs reach Gelu's tails (|v| up to ~100, where the erf form's negative side is
 * below 1e-30), and every first run with Z holding +Inf, -Inf and NaN: Y there is what the
 * reference gives (Inf, NaN, NaN). No B in the depthwise and Winograd runs: those kernels take
 * only a constant B, and here only W is constant. */
static void test_fusedconv_gelu(void **state)
{
    (void)state;
    fc_set r;
    fc_set_init(&r, 4.0f, false); /* 2 threads throughout */
    uint64_t seed = 19000;
    int wino_runs[KT_MAX_KERNELS] = {0};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        bool wino = strncmp(cases[ci].name, "wino", 4) == 0;
        bool dw = cases[ci].group > 1 && cases[ci].group == cases[ci].c;
        for (int ai = N_SWEPT; ai < (int)(sizeof acts / sizeof acts[0]); ai++) {
            static const int64_t blocks[3] = {0, 16, 8};
            int64_t b = wino ? 8 : blocks[(ci + (size_t)ai) % 3];
            int taken[KT_MAX_KERNELS];
            for (size_t ki = 0; ki < r.n; ki++) {
                taken[ki] = r.r[ki].taken;
            }
            r.poison = true;
            run_case(&cases[ci], ai, !wino && !dw, true, b, false, seed++, &r);
            r.poison = false;
            run_case(&cases[ci], ai, ci % 3 == 0 && !dw, ci % 2 == 1, wino ? 16 : (b + 8) % 24,
                     false, seed++, &r);
            for (size_t ki = 0; ki < r.n; ki++) {
                wino_runs[ki] += wino && r.r[ki].taken > taken[ki];
            }
        }
    }
    for (size_t ki = 0; ki < r.n; ki++) {
        print_message("%s: %d Gelu runs\n", r.r[ki].k->name, r.r[ki].taken);
        assert_true(r.r[ki].taken > 0);
        if (strstr(r.r[ki].k->name, "wino") != NULL) { /* it takes its cases with Gelu */
            assert_true(wino_runs[ki] >= 6);
        }
    }
    fc_set_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusedconv_gelu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
