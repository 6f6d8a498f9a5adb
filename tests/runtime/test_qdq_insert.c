/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The quantizer's arithmetic (quantization/qdq_insert.c): em_qi_scale_zp against ONNX
 * Runtime's compute_scale_zp, bit for bit, on the 836 cases of tests/data/quant/scale_zp.txt
 * (random ranges over seven decades, ranges that exclude 0 on either side, all-zero and
 * subnormal ranges; u8 / s8, symmetric or not), written by tools/gen_quant_fixtures.py with
 * onnxruntime 1.32. ORT is not needed here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "quantization/qdq_insert.h"

static void test_scale_zp_matches_ort(void **state)
{
    (void)state;
    const char *dir = getenv("EMBER_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/quant/scale_zp.txt", dir != NULL ? dir : "tests/data");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char lo_s[64], hi_s[64], s_s[64];
    int qmin, qmax, sym, zp, n = 0;
    while (fscanf(f, "%63s %63s %d %d %d %63s %d", lo_s, hi_s, &qmin, &qmax, &sym, s_s, &zp) == 7) {
        float lo = strtof(lo_s, NULL), hi = strtof(hi_s, NULL), want = strtof(s_s, NULL);
        float s = 0.0f;
        int z = -999;
        int qmin2, qmax2;
        em_qi_qrange(qmin == 0 ? EMBER_DTYPE_U8 : EMBER_DTYPE_I8, sym != 0, &qmin2, &qmax2);
        assert_int_equal(qmin2, qmin);
        assert_int_equal(qmax2, qmax);
        em_qi_scale_zp(lo, hi, qmin, qmax, sym != 0, &s, &z);
        if (s != want || z != zp) {
            fail_msg("case %d [%a, %a] q[%d, %d] sym %d: scale %a zp %d, ORT %a %d", n, (double)lo,
                     (double)hi, qmin, qmax, sym, (double)s, z, (double)want, zp);
        }
        n++;
    }
    fclose(f);
    assert_int_equal(n, 836);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale_zp_matches_ort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
