/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_loss.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss shapes through
 * em_shape_infer_node: reduction none ([N, d1..dk]) / sum / mean / absent (scalars), dims
 * taken from the target where the input's are unknown, unknown ranks, SCE's log_prob, and
 * the errors (each naming the node).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ir/graph.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_util.h"

#define F32 EMBER_DTYPE_F32
#define I64 EMBER_DTYPE_I64

static void test_reductions(void **state)
{
    (void)state;
    static const char *const reds[4] = {"none", "sum", "mean", NULL};
    static const int64_t xd[4] = {3, 5, 2, 4}, td[3] = {3, 2, 4}, wd[1] = {5};
    for (int op = 0; op < 2; op++) {
        for (int r = 0; r < 4; r++) {
            sn s;
            em_shape out[2];
            sn_init(&s, op ? EM_OP_SCELOSS : EM_OP_NLLLOSS, "loss", 3, 1);
            if (reds[r] != NULL) {
                sn_str(&s, "reduction", reds[r]);
            }
            em_shape in[3] = {shp(F32, 4, xd), shp(I64, 3, td), shp(F32, 1, wd)};
            infer_ok(&s, in, out);
            if (r == 0) {
                expect(&out[0], F32, 3, td);
            } else {
                expect(&out[0], F32, 0, NULL);
            }
        }
    }
}

static void test_nc_and_unknown(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    static const int64_t xd[2] = {-1, 5}, td[1] = {7}, xu[3] = {-1, 5, -1}, tu[2] = {6, 3};
    sn_init(&s, EM_OP_NLLLOSS, "nc", 2, 1);
    sn_str(&s, "reduction", "none");
    em_shape in[3] = {shp(EMBER_DTYPE_F64, 2, xd), shp(EMBER_DTYPE_I32, 1, td)};
    infer_ok(&s, in, out);
    expect(&out[0], EMBER_DTYPE_F64, 1, td); /* N from the target */
    in[0] = shp(F32, 3, xu);
    in[1] = shp(I64, 2, tu);
    infer_ok(&s, in, out);
    expect(&out[0], F32, 2, tu);
    in[0] = shp(F32, -1, NULL);
    infer_ok(&s, in, out);
    expect(&out[0], F32, 2, tu); /* rank and dims from the target */
    in[1] = shp(I64, -1, NULL);
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, -1);
}

static void test_sce_log_prob(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    static const int64_t xd[3] = {3, 5, 2}, td[2] = {3, 2};
    sn_init(&s, EM_OP_SCELOSS, "sce", 2, 2);
    em_shape in[2] = {shp(F32, 3, xd), shp(I64, 2, td)};
    infer_ok(&s, in, out);
    expect(&out[0], F32, 0, NULL);
    expect(&out[1], F32, 3, xd);
    assert_null(out[1].value);
}

static void test_errors(void **state)
{
    (void)state;
    static const int64_t x2[2] = {3, 5}, x3[3] = {3, 5, 2}, t1[1] = {3}, t2[2] = {3, 4},
                         t2ok[2] = {3, 2}, w4[1] = {4}, w5[1] = {5}, w22[2] = {5, 1};
    struct {
        const char *name, *red;
        em_shape in[3];
        int n_in;
    } cases[] = {
        {"rank1_input", "none", {shp(F32, 1, t1), shp(I64, 1, t1)}, 2},
        {"float_target", "none", {shp(F32, 2, x2), shp(F32, 1, t1)}, 2},
        {"target_rank", "none", {shp(F32, 3, x3), shp(I64, 1, t1)}, 2},
        {"target_dim", "none", {shp(F32, 3, x3), shp(I64, 2, t2)}, 2},
        {"weight_dtype", "mean", {shp(F32, 3, x3), shp(I64, 2, t2ok), shp(I64, 1, w5)}, 3},
        {"weight_rank", "mean", {shp(F32, 3, x3), shp(I64, 2, t2ok), shp(F32, 2, w22)}, 3},
        {"weight_len", "mean", {shp(F32, 3, x3), shp(I64, 2, t2ok), shp(F32, 1, w4)}, 3},
        {"bad_reduction", "average", {shp(F32, 2, x2), shp(I64, 1, t1)}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int op = 0; op < 2; op++) {
            sn s;
            sn_init(&s, op ? EM_OP_SCELOSS : EM_OP_NLLLOSS, cases[i].name, cases[i].n_in, 1);
            sn_str(&s, "reduction", cases[i].red);
            infer_err(&s, cases[i].in);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_nc_and_unknown),
        cmocka_unit_test(test_sce_log_prob),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

