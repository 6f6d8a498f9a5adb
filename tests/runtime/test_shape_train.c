/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_train.c: Adagrad, Adam and Momentum with one and several optimized tensors
 * (each output like its tensor, symbolic dims kept), and their errors (whole groups, output
 * count, R and T dtypes and ranks, a group tensor of another dtype or shape); plus
 * BatchNormalization's training outputs (runtime/shape/shape_nn_base.c em_shape_batchnorm).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_shape_util.h"

/* R, T, then `groups` groups of tensors of shapes [2, 3] and [5] (f64 when `f64`). */
static void optim_inputs(em_shape *in, int groups, int tensors, bool f64)
{
    ember_dtype dt = f64 ? EMBER_DTYPE_F64 : EMBER_DTYPE_F32;
    in[0] = shp(EMBER_DTYPE_F32, 0, NULL);
    in[1] = shp(EMBER_DTYPE_I64, 0, NULL);
    for (int g = 0; g < groups; g++) {
        for (int i = 0; i < tensors; i++) {
            in[2 + g * tensors + i] = i == 0 ? SHP(dt, 2, 3) : SHP(dt, 5);
        }
    }
}

static void test_optimizers(void **state)
{
    (void)state;
    static const struct {
        em_op op;
        int groups;
    } ops[] = {{EM_OP_ADAGRAD, 3}, {EM_OP_ADAM, 4}, {EM_OP_MOMENTUM, 3}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        for (int tensors = 1; tensors <= 2; tensors++) {
            sn s;
            em_shape in[16], out[16];
            int groups = ops[k].groups;
            sn_init(&s, ops[k].op, "opt", 2 + groups * tensors, (groups - 1) * tensors);
            optim_inputs(in, groups, tensors, tensors == 2);
            in[2].dims[0].v = -1;
            in[2].dims[0].sym = 3;
            infer_ok(&s, in, out);
            ember_dtype dt = tensors == 2 ? EMBER_DTYPE_F64 : EMBER_DTYPE_F32;
            for (int g = 0; g < groups - 1; g++) {
                EXPECT(out[g * tensors], dt, UNK, 3);
                assert_int_equal(out[g * tensors].dims[0].sym, 3);
                if (tensors == 2) {
                    EXPECT(out[g * tensors + 1], dt, 5);
                }
            }
        }
    }
}

static void test_optimizer_errors(void **state)
{
    (void)state;
    sn s;
    em_shape in[16];
    optim_inputs(in, 3, 2, false);
    sn_init(&s, EM_OP_ADAGRAD, "opt_groups", 7, 4);
    infer_err(&s, in);
    sn_init(&s, EM_OP_ADAGRAD, "opt_outputs", 8, 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_ADAGRAD, "opt_r_int", 8, 4);
    in[0] = shp(EMBER_DTYPE_I64, 0, NULL);
    infer_err(&s, in);
    sn_init(&s, EM_OP_ADAGRAD, "opt_r_vec", 8, 4);
    in[0] = SHP(EMBER_DTYPE_F32, 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MOMENTUM, "opt_t_f32", 8, 4);
    optim_inputs(in, 3, 2, false);
    in[1] = shp(EMBER_DTYPE_F32, 0, NULL);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MOMENTUM, "opt_g_dtype", 8, 4);
    optim_inputs(in, 3, 2, false);
    in[4] = SHP(EMBER_DTYPE_F64, 2, 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_ADAM, "opt_h_shape", 10, 6);
    optim_inputs(in, 4, 2, false);
    in[9] = SHP(EMBER_DTYPE_F32, 6);
    infer_err(&s, in);
    sn_init(&s, EM_OP_ADAM, "opt_x_int", 6, 3);
    optim_inputs(in, 4, 1, false);
    for (int g = 0; g < 4; g++) {
        in[2 + g] = SHP(EMBER_DTYPE_I32, 2, 3);
    }
    infer_err(&s, in);
}

static void test_batchnorm_training_outputs(void **state)
{
    (void)state;
    sn s;
    em_shape in[5], out[3];
    sn_init(&s, EM_OP_BATCHNORM, "bn", 5, 3);
    sn_int(&s, "training_mode", 1);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3, 4, 5);
    for (int i = 1; i < 5; i++) {
        in[i] = SHP(EMBER_DTYPE_F32, 3);
    }
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 4, 5);
    EXPECT(out[1], EMBER_DTYPE_F32, 3);
    EXPECT(out[2], EMBER_DTYPE_F32, 3);
    in[3] = absent(); /* input_mean's shape unknown: [C] from X */
    in[3].dtype = EMBER_DTYPE_F32;
    infer_ok(&s, in, out);
    EXPECT(out[1], EMBER_DTYPE_F32, 3);
    sn_init(&s, EM_OP_BATCHNORM, "bn_bad_var", 5, 3);
    in[4] = SHP(EMBER_DTYPE_F32, 4);
    infer_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimizers),
        cmocka_unit_test(test_optimizer_errors),
        cmocka_unit_test(test_batchnorm_training_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
