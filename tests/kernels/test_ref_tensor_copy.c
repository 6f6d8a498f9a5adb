/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/tensor_copy_ref.c: Reshape, Flatten and Identity (any dtype). The kernel copies the
 * bytes of input 0 unless the output aliases it. Checks: byte-exact copies for f32, i64, u8,
 * bool, f16 and a rank-0 tensor, the aliased case leaves the bytes alone, zero-sized tensors,
 * one registered kernel per op that accepts any dtype, and malformed nodes (element count or
 * dtype mismatch, wrong input count).
 */
#include "test_ref_util.h"

#include <stdio.h>

static const em_op copy_ops[3] = {EM_OP_RESHAPE, EM_OP_FLATTEN, EM_OP_IDENTITY};

/* Inputs for `op`: Reshape also takes its i64 shape tensor. */
static int copy_inputs(em_op op, em_tensor *in, ember_dtype dt, int rank, const int64_t *dims,
                       void *data, int64_t *shape_buf, int y_rank, const int64_t *yd)
{
    t_tensor(&in[0], dt, rank, dims, data);
    if (op != EM_OP_RESHAPE) {
        return 1;
    }
    int64_t n = y_rank;
    memcpy(shape_buf, yd, sizeof(int64_t) * (size_t)y_rank);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &n, shape_buf);
    return 2;
}

static void test_copy_dtypes(void **state)
{
    (void)state;
    static const ember_dtype dts[] = {EMBER_DTYPE_F32,  EMBER_DTYPE_I64, EMBER_DTYPE_U8,
                                      EMBER_DTYPE_BOOL, EMBER_DTYPE_F16, EMBER_DTYPE_F64};
    static const int64_t xd[3] = {3, 1, 7}, yd[2] = {3, 7}, scalar_d[1] = {1};
    for (int o = 0; o < 3; o++) {
        for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
            for (int scalar = 0; scalar < 2; scalar++) {
                char name[96];
                snprintf(name, sizeof name, "%s/%s%s", em_op_name(copy_ops[o]),
                         em_dtype_name(dts[t]), scalar ? "/scalar" : "");
                int x_rank = scalar ? 0 : 3, y_rank = scalar ? 1 : 2;
                const int64_t *ydims = scalar ? scalar_d : yd;
                size_t nbytes = (size_t)(scalar ? 1 : 21) * em_dtype_size(dts[t]);
                unsigned char *x = test_malloc(nbytes), *y = test_calloc(1, nbytes);
                for (size_t i = 0; i < nbytes; i++) {
                    x[i] = (unsigned char)(i * 37 + 11);
                }
                em_tensor in[2], out[1];
                int64_t shape_buf[4];
                int n_in =
                    copy_inputs(copy_ops[o], in, dts[t], x_rank, xd, x, shape_buf, y_rank, ydims);
                t_tensor(&out[0], dts[t], y_rank, ydims, y);
                t_node tn;
                t_node_init(&tn, copy_ops[o], name);
                const em_kernel *k = t_kernel(copy_ops[o], EMBER_DTYPE_UNDEFINED);
                t_expect_ok(t_run(k, &tn.n, in, n_in, out, 1, NULL), name);
                assert_memory_equal(x, y, nbytes);
                test_free(x);
                test_free(y);
            }
        }
    }
}

/* With out aliasing in, nothing is written (the bytes stay; ASan would flag an overlapping
 * memcpy). */
static void test_copy_aliased(void **state)
{
    (void)state;
    float x[12];
    for (int i = 0; i < 12; i++) {
        x[i] = (float)i * 0.5f;
    }
    static const int64_t xd[2] = {3, 4}, yd[1] = {12};
    for (int o = 0; o < 3; o++) {
        em_tensor in[2], out[1];
        int64_t shape_buf[4];
        int n_in = copy_inputs(copy_ops[o], in, EMBER_DTYPE_F32, 2, xd, x, shape_buf, 1, yd);
        t_tensor(&out[0], EMBER_DTYPE_F32, 1, yd, x);
        t_node tn;
        t_node_init(&tn, copy_ops[o], "aliased");
        t_expect_ok(
            t_run(t_kernel(copy_ops[o], EMBER_DTYPE_UNDEFINED), &tn.n, in, n_in, out, 1, NULL),
            "aliased");
        for (int i = 0; i < 12; i++) {
            assert_true(x[i] == (float)i * 0.5f);
        }
    }
}

static void test_copy_zero_sized(void **state)
{
    (void)state;
    static const int64_t xd[2] = {0, 4}, yd[3] = {2, 0, 3};
    for (int o = 0; o < 3; o++) {
        em_tensor in[2], out[1];
        int64_t shape_buf[4];
        int n_in = copy_inputs(copy_ops[o], in, EMBER_DTYPE_F32, 2, xd, NULL, shape_buf, 3, yd);
        t_tensor(&out[0], EMBER_DTYPE_F32, 3, yd, NULL);
        t_node tn;
        t_node_init(&tn, copy_ops[o], "zero_sized");
        t_expect_ok(
            t_run(t_kernel(copy_ops[o], EMBER_DTYPE_UNDEFINED), &tn.n, in, n_in, out, 1, NULL),
            "zero_sized");
    }
}

static void test_copy_errors(void **state)
{
    (void)state;
    float buf[32] = {0};
    static const int64_t xd[2] = {3, 4}, y_bad[2] = {5, 2}, y_ok[1] = {12};
    for (int o = 0; o < 3; o++) {
        em_tensor in[2], out[1];
        int64_t shape_buf[4];
        t_node tn;
        const em_kernel *k = t_kernel(copy_ops[o], EMBER_DTYPE_UNDEFINED);

        int n_in = copy_inputs(copy_ops[o], in, EMBER_DTYPE_F32, 2, xd, buf, shape_buf, 2, y_bad);
        t_tensor(&out[0], EMBER_DTYPE_F32, 2, y_bad, buf);
        t_node_init(&tn, copy_ops[o], "copy_bad_count");
        t_expect_error(t_run(k, &tn.n, in, n_in, out, 1, NULL), EMBER_ERR_INVALID_MODEL,
                       "copy_bad_count", em_op_name(copy_ops[o]));

        t_tensor(&out[0], EMBER_DTYPE_I32, 1, y_ok, buf);
        t_node_init(&tn, copy_ops[o], "copy_bad_dtype");
        t_expect_error(t_run(k, &tn.n, in, n_in, out, 1, NULL), EMBER_ERR_INVALID_MODEL,
                       "copy_bad_dtype", em_op_name(copy_ops[o]));

        t_tensor(&out[0], EMBER_DTYPE_F32, 1, y_ok, buf);
        t_node_init(&tn, copy_ops[o], "copy_bad_arity");
        t_expect_error(t_run(k, &tn.n, in, n_in == 2 ? 1 : 2, out, 1, NULL),
                       EMBER_ERR_INVALID_MODEL, "copy_bad_arity", em_op_name(copy_ops[o]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_dtypes),
        cmocka_unit_test(test_copy_aliased),
        cmocka_unit_test(test_copy_zero_sized),
        cmocka_unit_test(test_copy_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
