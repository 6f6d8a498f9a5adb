/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON depthwise FusedConv on the channel-blocked layout of 4 channels
 * (em_fusedconv_f32_dwblk__neon, kernels/arm/dwconv_blocked_f32_neon.c:
 * kernels/vec/dwconv_driver.inc on 4-lane vectors) against the naive double-precision
 * convolution of test_x86_dwconv.c: its cases (partial blocks with NaN in the padding lanes,
 * 1x1 to 7x7 kernels, strides 1-3, dilation, asymmetric and SAME pads, batch 2, B and Z, every
 * activation: the NEON unit takes them all), serial and 2 threads bitwise equal, and its
 * declines (plain layout, plain_input, block 8, not depthwise, W / B at run time, f64, Mish,
 * a mismatched output size). The x86 file is included with its main renamed.
 */
int x86_dwconv_main(void); /* the included file's main, unused here */
#define main x86_dwconv_main
#include "test_x86_dwconv.c"
#undef main

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_dwconv_cases, "_dwblk__neon"),
        KT_TEST(test_dwconv_declines, "_dwblk__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
