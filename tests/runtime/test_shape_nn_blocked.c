/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_nn_blocked.c: BlockedPool (each pool kind, ceil_mode, pads, auto_pad, a
 * symbolic batch and unknown spatial dims kept) and BlockedAffine (every per-channel operand
 * form, absent operands, activations), and the errors, each naming the node: missing or wrong
 * `channels`, a plain or wrongly blocked X, an unknown `pool`, operands of another shape or
 * dtype, an activation FusedConv does not take. BlockedLayerNorm: X's shape kept (symbolic batch,
 * B absent), Scale / B of the wrong length, rank or dtype, a plain X.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "ir/graph.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_util.h"

#define F32 EMBER_DTYPE_F32

static void pool_node(sn *s, const char *name, const char *pool, int64_t c)
{
    sn_init(s, EM_OP_BLOCKEDPOOL, name, 1, 1);
    sn_str(s, "pool", pool);
    sn_int(s, "channels", c);
}

static void test_blockedpool(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    /* 19 channels in blocks of 8: [N, 3, H, W, 8]; batch symbolic (symbol 1: dim -2). */
    em_shape x = SHP(F32, -2, 3, 11, 12, 8);
    pool_node(&s, "max", "MaxPool", 19);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    sn_ints(&s, "strides", DIMS(2, 2), 2);
    infer_ok(&s, &x, out);
    EXPECT(out[0], F32, -2, 3, 5, 5, 8);
    pool_node(&s, "max_ceil", "MaxPool", 19);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    sn_ints(&s, "strides", DIMS(2, 2), 2);
    sn_int(&s, "ceil_mode", 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], F32, -2, 3, 5, 6, 8);
    pool_node(&s, "avg_pads", "AveragePool", 19);
    sn_ints(&s, "kernel_shape", DIMS(2, 3), 2);
    sn_ints(&s, "pads", DIMS(1, 0, 0, 2), 4);
    infer_ok(&s, &x, out);
    EXPECT(out[0], F32, -2, 3, 11, 12, 8);
    pool_node(&s, "avg_same", "AveragePool", 19);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    sn_ints(&s, "strides", DIMS(2, 3), 2);
    sn_str(&s, "auto_pad", "SAME_UPPER");
    infer_ok(&s, &x, out);
    EXPECT(out[0], F32, -2, 3, 6, 4, 8);
    pool_node(&s, "gap", "GlobalAveragePool", 19);
    infer_ok(&s, &x, out);
    EXPECT(out[0], F32, -2, 3, 1, 1, 8);
    pool_node(&s, "gmax", "GlobalMaxPool", 19);
    em_shape unk = SHP(F32, 1, 2, UNK, UNK, 16);
    infer_ok(&s, &unk, out);
    EXPECT(out[0], F32, 1, 2, 1, 1, 16);
    pool_node(&s, "max_unk", "MaxPool", 19);
    sn_ints(&s, "kernel_shape", DIMS(2, 2), 2);
    infer_ok(&s, &unk, out);
    EXPECT(out[0], F32, 1, 2, UNK, UNK, 16);
    em_shape unranked = absent();
    unranked.dtype = F32;
    infer_ok(&s, &unranked, out);
    assert_int_equal(out[0].rank, -1);
}

static void test_blockedpool_errors(void **state)
{
    (void)state;
    sn s;
    em_shape x = SHP(F32, 1, 3, 11, 12, 8), plain = SHP(F32, 1, 19, 11, 12);
    em_shape blocks = SHP(F32, 1, 2, 11, 12, 8), i64 = SHP(EMBER_DTYPE_I64, 1, 3, 11, 12, 8);
    pool_node(&s, "no_channels", "MaxPool", 0);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    infer_err(&s, &x);
    pool_node(&s, "lp", "LpPool", 19);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    infer_err(&s, &x);
    pool_node(&s, "plain_x", "MaxPool", 19);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    infer_err(&s, &plain);
    infer_err(&s, &i64);
    pool_node(&s, "blocks", "MaxPool", 19); /* 19 channels need 3 blocks of 8 */
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    infer_err(&s, &blocks);
    pool_node(&s, "no_kernel", "AveragePool", 19);
    infer_err(&s, &x);
}

static void affine_node(sn *s, const char *name, int n_in, int64_t c)
{
    sn_init(s, EM_OP_BLOCKEDAFFINE, name, n_in, 1);
    sn_int(s, "channels", c);
}

static void test_blockedaffine(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    const em_shape ops[] = {
        SHP(F32, 19),           SHP(F32, 19, 1, 1),      SHP(F32, 1, 19, 1, 1),
        SHP(F32, -2, 19, 1, 1), SHP(F32, 1, 3, 1, 1, 8), SHP(F32, -2, 3, 1, 1, 8),
        SHP(F32, UNK)};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        em_shape in[3] = {SHP(F32, -2, 3, 5, 7, 8), ops[i], ops[(i + 1) % 6]};
        affine_node(&s, "st", 3, 19);
        infer_ok(&s, in, out);
        EXPECT(out[0], F32, -2, 3, 5, 7, 8);
        in[1] = absent();
        affine_node(&s, "t_only", 3, 19);
        sn_str(&s, "activation", "LeakyRelu");
        infer_ok(&s, in, out);
        EXPECT(out[0], F32, -2, 3, 5, 7, 8);
    }
    em_shape x = SHP(F32, 2, 2, 4, 4, 16);
    affine_node(&s, "act_only", 1, 32);
    sn_str(&s, "activation", "Relu");
    infer_ok(&s, &x, out);
    EXPECT(out[0], F32, 2, 2, 4, 4, 16);
    affine_node(&s, "clip", 1, 32);
    sn_str(&s, "activation", "Clip");
    sn_attr(&s, "activation_params", EM_ATTR_FLOATS)->n = 0;
    infer_ok(&s, &x, out);
}

static void test_blockedaffine_errors(void **state)
{
    (void)state;
    sn s;
    const em_shape bad[] = {SHP(F32, 18),
                            SHP(F32, 1, 19),
                            SHP(F32, 19, 1),
                            SHP(F32, 3, 19, 1, 1),
                            SHP(F32, 1, 19, 2, 1),
                            SHP(F32, 1, 2, 1, 1, 8),
                            SHP(F32, 1, 3, 1, 1, 16),
                            SHP(EMBER_DTYPE_F64, 19),
                            SHP(F32, 1, 19, 1, 1, 1, 1)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        em_shape in[3] = {SHP(F32, 2, 3, 5, 7, 8), bad[i], absent()};
        affine_node(&s, "bad_s", 3, 19);
        infer_err(&s, in);
        in[1] = absent();
        in[2] = bad[i];
        affine_node(&s, "bad_t", 3, 19);
        infer_err(&s, in);
    }
    em_shape x = SHP(F32, 2, 3, 5, 7, 8);
    affine_node(&s, "mish", 1, 19);
    sn_str(&s, "activation", "Mish");
    infer_err(&s, &x);
    affine_node(&s, "relu_params", 1, 19);
    sn_str(&s, "activation", "Relu");
    em_attr *a = sn_attr(&s, "activation_params", EM_ATTR_FLOATS);
    static float p[1] = {1.0f};
    a->floats = p;
    a->n = 1;
    infer_err(&s, &x);
    affine_node(&s, "channels_blocks", 1, 25);
    infer_err(&s, &x);
    em_shape plain = SHP(F32, 2, 19, 5, 7);
    affine_node(&s, "plain", 1, 19);
    infer_err(&s, &plain);
}

static void test_blockedlayernorm(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[3] = {SHP(F32, -2, 3, 5, 7, 8), SHP(F32, 19), SHP(F32, 19)};
    for (int n_in = 2; n_in <= 3; n_in++) {
        sn_init(&s, EM_OP_BLOCKEDLAYERNORM, "bln", n_in, 1);
        sn_int(&s, "channels", 19);
        infer_ok(&s, in, out);
        EXPECT(out[0], F32, -2, 3, 5, 7, 8);
    }
    in[2] = absent();
    sn_init(&s, EM_OP_BLOCKEDLAYERNORM, "bln_no_b", 3, 1);
    sn_int(&s, "channels", 19);
    infer_ok(&s, in, out);
    const em_shape bad[] = {SHP(F32, 18), SHP(F32, 1, 19), SHP(EMBER_DTYPE_F64, 19)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int slot = 1; slot <= 2; slot++) {
            em_shape b[3] = {SHP(F32, 2, 3, 5, 7, 8), SHP(F32, 19), SHP(F32, 19)};
            b[slot] = bad[i];
            sn_init(&s, EM_OP_BLOCKEDLAYERNORM, "bln_bad", 3, 1);
            sn_int(&s, "channels", 19);
            infer_err(&s, b);
        }
    }
    em_shape plain[2] = {SHP(F32, 2, 19, 5, 7), SHP(F32, 19)};
    sn_init(&s, EM_OP_BLOCKEDLAYERNORM, "bln_plain", 2, 1);
    sn_int(&s, "channels", 19);
    infer_err(&s, plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blockedpool),
        cmocka_unit_test(test_blockedpool_errors),
        cmocka_unit_test(test_blockedaffine),
        cmocka_unit_test(test_blockedaffine_errors),
        cmocka_unit_test(test_blockedlayernorm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
