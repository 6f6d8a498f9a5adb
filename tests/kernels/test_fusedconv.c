/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FusedConv's reorders (ReorderToBlocked / FromBlocked; every kernel on whole blocks, partial
 * blocks on the reference, serial and pooled) and the errors of the reference kernel. The
 * kernels' sweep, Gelu and odd slices are in test_fusedconv_sweep_a.c / _b.c, _gelu.c and
 * _odd.c (separate executables for their time under ASan; test_fusedconv_util.h is shared).
 */
#include "test_fusedconv_util.h"

static void test_reorders(void **state)
{
    (void)state;
    const int64_t plain[4] = {2, 21, 3, 5}, blk[5] = {2, 2, 3, 5, 16};
    int64_t n = t_numel(plain, 4), nb = t_numel(blk, 5);
    float *x = t_random_f32(n, 77, -1, 1), *b = t_f32(nb), *back = t_f32(n);
    em_tensor in[1], out[1];
    t_node to, from;
    t_node_init(&to, EM_OP_REORDERTOBLOCKED, "to");
    t_set_int(&to, "block", 16);
    t_node_init(&from, EM_OP_REORDERFROMBLOCKED, "from");
    t_set_int(&from, "channels", 21);
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, plain, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 5, blk, b);
    t_expect_ok(t_run(t_kernel(EM_OP_REORDERTOBLOCKED, EMBER_DTYPE_F32), &to.n, in, 1, out, 1, NULL),
                "to");
    float *want = to_blk(x, 2, 21, 15, 16);
    for (int64_t i = 0; i < nb; i++) {
        assert_true(b[i] == want[i]); /* lanes past channel 21 are zeros */
    }
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, blk, b);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, plain, back);
    t_expect_ok(t_run(t_kernel(EM_OP_REORDERFROMBLOCKED, EMBER_DTYPE_F32), &from.n, in, 1, out, 1, NULL),
                "from");
    for (int64_t i = 0; i < n; i++) {
        assert_true(back[i] == x[i]);
    }
    /* A blocked shape that does not fit the channels. */
    int64_t bad[5] = {2, 3, 3, 5, 16};
    t_tensor(&in[0], EMBER_DTYPE_F32, 5, bad, b);
    t_expect_error(t_run(t_kernel(EM_OP_REORDERFROMBLOCKED, EMBER_DTYPE_F32), &from.n, in, 1, out,
                         1, NULL),
                   EMBER_ERR_INVALID_MODEL, "from", "blocked");
    test_free(x);
    test_free(b);
    test_free(back);
    test_free(want);
}

/* Every reorder kernel (oneDNN's takes whole blocks) both ways, exactly, blocks 16 and 8. */
static void test_reorders_all_kernels(void **state)
{
    (void)state;
    for (int64_t b = 8; b <= 16; b += 8) {
        const int64_t c = 3 * b, plain[4] = {2, c, 3, 5}, blk[5] = {2, 3, 3, 5, b};
        int64_t n = t_numel(plain, 4);
        float *x = t_random_f32(n, 78, -1, 1), *got = t_f32(n), *back = t_f32(n);
        float *want = to_blk(x, 2, c, 15, b);
        const em_kernel *ks[KT_MAX_KERNELS];
        for (int dir = 0; dir < 2; dir++) {
            em_op op = dir == 0 ? EM_OP_REORDERTOBLOCKED : EM_OP_REORDERFROMBLOCKED;
            size_t nk = kt_find(op, "", ks, KT_MAX_KERNELS);
            assert_true(nk >= 1);
            for (size_t ki = 0; ki < nk; ki++) {
                if (!kt_isa_ok(ks[ki])) {
                    continue;
                }
                t_node node;
                t_node_init(&node, op, ks[ki]->name);
                t_set_int(&node, dir == 0 ? "block" : "channels", dir == 0 ? b : c);
                em_tensor in[1], out[1];
                t_tensor(&in[0], EMBER_DTYPE_F32, dir == 0 ? 4 : 5, dir == 0 ? plain : blk,
                         dir == 0 ? x : want);
                t_tensor(&out[0], EMBER_DTYPE_F32, dir == 0 ? 5 : 4, dir == 0 ? blk : plain,
                         dir == 0 ? got : back);
                kt_fill_nan(dir == 0 ? got : back, n);
                t_expect_ok(kt_run(ks[ki], &node.n, in, 1, out, 1, 0u, NULL), ks[ki]->name);
                for (int64_t i = 0; i < n; i++) {
                    assert_true(dir == 0 ? got[i] == want[i] : back[i] == x[i]);
                }
            }
        }
        test_free(x);
        test_free(got);
        test_free(back);
        test_free(want);
    }
}

/* Every reorder kernel on planes big enough to be split over a pool (2 and 3 threads, and
 * serially), with partial blocks (21 channels; oneDNN may decline those) and whole ones. */
static void test_reorders_pooled(void **state)
{
    (void)state;
    em_threadpool *pools[3] = {NULL, NULL, NULL};
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pools[1]), "pool2");
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pools[2]), "pool3");
    const em_kernel *ks[KT_MAX_KERNELS];
    int ran_partial = 0;
    for (int64_t b = 8; b <= 16; b += 8) {
        for (int64_t c = 21; c <= 3 * b; c += 3 * b - 21) {
            const int64_t plain[4] = {2, c, 40, 31}, blk[5] = {2, (c + b - 1) / b, 40, 31, b};
            int64_t n = t_numel(plain, 4), nb = t_numel(blk, 5);
            float *x = t_random_f32(n, 79 + c, -1, 1), *got = t_f32(nb), *back = t_f32(n);
            float *want = to_blk(x, 2, c, 40 * 31, b);
            for (int dir = 0; dir < 2; dir++) {
                em_op op = dir == 0 ? EM_OP_REORDERTOBLOCKED : EM_OP_REORDERFROMBLOCKED;
                size_t nk = kt_find(op, "", ks, KT_MAX_KERNELS);
                for (size_t ki = 0; ki < nk; ki++) {
                    for (int pi = 0; pi < 3 && kt_isa_ok(ks[ki]); pi++) {
                        t_node node;
                        t_node_init(&node, op, ks[ki]->name);
                        t_set_int(&node, dir == 0 ? "block" : "channels", dir == 0 ? b : c);
                        em_tensor in[1], out[1];
                        t_tensor(&in[0], EMBER_DTYPE_F32, dir == 0 ? 4 : 5,
                                 dir == 0 ? plain : blk, dir == 0 ? x : want);
                        t_tensor(&out[0], EMBER_DTYPE_F32, dir == 0 ? 5 : 4,
                                 dir == 0 ? blk : plain, dir == 0 ? got : back);
                        kt_fill_nan(dir == 0 ? got : back, dir == 0 ? nb : n);
                        ember_status *st = kt_run(ks[ki], &node.n, in, 1, out, 1, 0u, pools[pi]);
                        if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED &&
                            c % b != 0 && !strstr(ks[ki]->name, "__ref")) {
                            ember_status_destroy(st);
                            continue;
                        }
                        t_expect_ok(st, ks[ki]->name);
                        ran_partial += c % b != 0;
                        for (int64_t i = 0; i < (dir == 0 ? nb : n); i++) {
                            assert_true(dir == 0 ? got[i] == want[i] : back[i] == x[i]);
                        }
                    }
                }
            }
            test_free(x);
            test_free(got);
            test_free(back);
            test_free(want);
        }
    }
    assert_true(ran_partial >= 12); /* the reference, both ways, b 8 and 16, 3 pools */
    em_threadpool_destroy(pools[1]);
    em_threadpool_destroy(pools[2]);
}

static void test_ref_errors(void **state)
{
    (void)state;
    float buf[512] = {0};
    int64_t xd[4] = {1, 2, 6, 6}, wd[4] = {3, 2, 3, 3}, yd[4] = {1, 3, 4, 4}, zd[4] = {1, 3, 5, 4};
    em_tensor in[4], out[1];
    t_node node;
    t_node_init(&node, EM_OP_FUSEDCONV, "fc");
    t_set_string(&node, "activation", "Mish");
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xd, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, buf);
    t_absent(&in[2]);
    t_tensor(&in[3], EMBER_DTYPE_F32, 4, zd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, yd, buf);
    const em_kernel *k = t_kernel(EM_OP_FUSEDCONV, EMBER_DTYPE_F32);
    t_expect_error(t_run(k, &node.n, in, 2, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "fc",
                   "activation");
    t_node_init(&node, EM_OP_FUSEDCONV, "fz");
    t_set_string(&node, "activation", "Relu");
    t_set_floats(&node, "activation_params", (const float[]){1.0f}, 1);
    t_expect_error(t_run(k, &node.n, in, 2, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "fz",
                   "activation_params");
    t_node_init(&node, EM_OP_FUSEDCONV, "zshape");
    t_expect_error(t_run(k, &node.n, in, 4, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "zshape", "Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reorders),
        cmocka_unit_test(test_reorders_all_kernels),
        cmocka_unit_test(test_reorders_pooled),
        cmocka_unit_test(test_ref_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
