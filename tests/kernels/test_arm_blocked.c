/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON BlockedPool, BlockedAffine, BlockedLayerNorm and BlockedSE kernels
 * (kernels/arm/blocked_f32_neon.c: kernels/vec/blocked_driver.inc on 4-lane vectors) against
 * the reference: the cases of test_x86_blocked.c (pools with NaN / -inf, every window form,
 * every activation and operand form, LayerNorm offsets up to 1000, SE gates; serial and 2
 * threads bitwise equal; padding lanes 0; the rank-4 decline), with the sweeps' blocks 4 (the
 * layout pass's block on ARM: one vector) and 8 (two) instead of x86's 8 and 16. The x86 file's
 * cases find kernels by name suffix, so it is included here with its main renamed.
 */
#define BK_SWEEP_BLOCK(bit) ((bit) ? 4 : 8)
int x86_blocked_main(void); /* the included file's main, unused here */
#define main x86_blocked_main
#include "test_x86_blocked.c"
#undef main

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_pool, "__neon"),      KT_TEST(test_maxpool_bitwise, "__neon"),
        KT_TEST(test_affine, "__neon"),    KT_TEST(test_layernorm, "__neon"),
        KT_TEST(test_se, "__neon"),        KT_TEST(test_declines, "__neon"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
