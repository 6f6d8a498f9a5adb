/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_nn_base.c: the shapes of the nn family's foundation ops against sizes
 * computed independently here: Conv and the pools by counting window positions (or the ONNX
 * formula written out, for ceil_mode), Gemm and MatMul by numpy rules, BatchNormalization's
 * per-channel inputs, and the errors (each naming the node).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_fx.h"

/* ---- independent oracles ---------------------------------------------------------------- */

/* Output positions of a sliding window: starts o*s with the dilated window inside the padded
 * input. Counted one by one. */
static int64_t count_windows(int64_t x, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe)
{
    int64_t n = 0;
    for (int64_t o = 0; o * s + d * (k - 1) <= x + pb + pe - 1; o++) {
        n++;
    }
    return n;
}

/* ONNX MaxPool/AveragePool output size, as in the operator docs:
 *   floor/ceil((x + pads - ((k - 1) * d + 1)) / s + 1)
 * and with ceil_mode, a window that would start in the right padding is dropped (the last
 * window must start inside the input or its left padding; ONNX reference, PyTorch). */
static int64_t onnx_pool_out(int64_t x, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                             int ceil_mode)
{
    double v = (double)(x + pb + pe - ((k - 1) * d + 1)) / (double)s + 1.0;
    int64_t o = ceil_mode ? (int64_t)ceil(v) : (int64_t)floor(v);
    if (ceil_mode && (o - 1) * s >= x + pb) {
        o--;
    }
    return o;
}

/* ---- Conv ------------------------------------------------------------------------------- */

static void test_conv_sweep(void **state)
{
    (void)state;
    int cases = 0;
    for (int64_t h = 1; h <= 9; h++) {
        for (int64_t k = 1; k <= 3; k++) {
            for (int64_t s = 1; s <= 3; s++) {
                for (int64_t d = 1; d <= 2; d++) {
                    for (int64_t pb = 0; pb <= 2; pb++) {
                        int64_t pe = (pb + h) % 2; /* asymmetric pads, both orders */
                        if (h + pb + pe < d * (k - 1) + 1) {
                            continue; /* no window fits */
                        }
                        /* H gets (k, s, d, pb, pe); W = h + 3 gets kernel 1, stride 2, pads
                         * (pe, pb), so swapped attribute positions would show. */
                        fx f = fx_new(EM_OP_CONV, 2, "conv_sweep");
                        const int64_t strides[] = {s, 2}, dil[] = {d, 1}, pads[] = {pb, pe, pe, pb};
                        fx_ints(&f, "strides", strides, 2);
                        fx_ints(&f, "dilations", dil, 2);
                        fx_ints(&f, "pads", pads, 4);
                        em_shape in[2] = {SHP(2, 3, h, h + 3), SHP(5, 3, k, 1)};
                        em_shape o = infer_ok(&f, in);
                        int64_t oh = count_windows(h, k, s, d, pb, pe);
                        int64_t ow = count_windows(h + 3, 1, 2, 1, pe, pb);
                        EXPECT_DIMS(o, 2, 5, oh, ow);
                        assert_int_equal(o.dtype, EMBER_DTYPE_F32);
                        fx_free(&f);
                        cases++;
                    }
                }
            }
        }
    }
    assert_true(cases > 400);
}

static void test_conv_auto_pad(void **state)
{
    (void)state;
    static const char *const modes[] = {"SAME_UPPER", "SAME_LOWER", "VALID"};
    for (int m = 0; m < 3; m++) {
        for (int64_t h = 1; h <= 12; h++) {
            for (int64_t s = 1; s <= 3; s++) {
                for (int64_t k = 1; k <= 4; k++) {
                    if (m == 2 && h < k) {
                        continue;
                    }
                    fx f = fx_new(EM_OP_CONV, 2, "conv_auto");
                    fx_str(&f, "auto_pad", modes[m]);
                    const int64_t strides[] = {s, 1};
                    fx_ints(&f, "strides", strides, 2);
                    em_shape in[2] = {SHP(1, 2, h, 6), SHP(4, 2, k, 3)};
                    em_shape o = infer_ok(&f, in);
                    /* SAME_*: ceil(h / s) whatever the kernel. VALID: windows without pads. */
                    int64_t want = m < 2 ? (h + s - 1) / s : count_windows(h, k, s, 1, 0, 0);
                    int64_t want_w = m < 2 ? 6 : 4;
                    EXPECT_DIMS(o, 1, 4, want, want_w);
                    fx_free(&f);
                }
            }
        }
    }
}

static void test_conv_groups_and_ranks(void **state)
{
    (void)state;
    /* Grouped: C = 8 = group 2 x W[1] 4. */
    fx f = fx_new(EM_OP_CONV, 3, "conv_g2");
    fx_int(&f, "group", 2);
    em_shape in[3] = {SHP(2, 8, 10, 10), SHP(6, 4, 3, 3), SHP(6)};
    em_shape o = infer_ok(&f, in);
    EXPECT_DIMS(o, 2, 6, 8, 8);
    fx_free(&f);
    /* Depthwise: group = C. */
    f = fx_new(EM_OP_CONV, 2, "conv_dw");
    fx_int(&f, "group", 8);
    em_shape dw[2] = {SHP(1, 8, 5, 5), SHP(8, 1, 3, 3)};
    o = infer_ok(&f, dw);
    EXPECT_DIMS(o, 1, 8, 3, 3);
    fx_free(&f);
    /* Channel mismatches. */
    f = fx_new(EM_OP_CONV, 2, "conv_badc");
    em_shape bad[2] = {SHP(2, 8, 10, 10), SHP(6, 4, 3, 3)};
    infer_err(&f, bad, "channels");
    fx_free(&f);
    f = fx_new(EM_OP_CONV, 2, "conv_badg");
    fx_int(&f, "group", 4);
    infer_err(&f, bad, "channels");
    fx_free(&f);
    f = fx_new(EM_OP_CONV, 2, "conv_g0");
    fx_int(&f, "group", 0);
    infer_err(&f, in, "group");
    fx_free(&f);
    /* X and W ranks differ; rank below 3. */
    f = fx_new(EM_OP_CONV, 2, "conv_rank");
    em_shape r1[2] = {SHP(2, 8, 10, 10), SHP(6, 8, 3)};
    infer_err(&f, r1, NULL);
    em_shape r2[2] = {SHP(2, 8), SHP(6, 8)};
    infer_err(&f, r2, "rank");
    fx_free(&f);
    /* Bad attribute lengths and values. */
    f = fx_new(EM_OP_CONV, 2, "conv_badattr");
    const int64_t three[] = {1, 1, 1};
    fx_ints(&f, "strides", three, 3);
    em_shape ok2[2] = {SHP(1, 2, 5, 5), SHP(2, 2, 3, 3)};
    infer_err(&f, ok2, "strides");
    fx_free(&f);
    f = fx_new(EM_OP_CONV, 2, "conv_negpad");
    const int64_t negp[] = {0, -1, 0, 0};
    fx_ints(&f, "pads", negp, 4);
    infer_err(&f, ok2, NULL);
    fx_free(&f);
    f = fx_new(EM_OP_CONV, 2, "conv_s0");
    const int64_t s0[] = {0, 1};
    fx_ints(&f, "strides", s0, 2);
    infer_err(&f, ok2, NULL);
    fx_free(&f);
}

static void test_conv_1d_3d(void **state)
{
    (void)state;
    /* 1-D: L = 20, k = 4, stride 3, dilation 2, pads (2, 1). */
    fx f = fx_new(EM_OP_CONV, 2, "conv1d");
    const int64_t s1[] = {3}, d1[] = {2}, p1[] = {2, 1};
    fx_ints(&f, "strides", s1, 1);
    fx_ints(&f, "dilations", d1, 1);
    fx_ints(&f, "pads", p1, 2);
    em_shape in1[2] = {SHP(1, 3, 20), SHP(5, 3, 4)};
    em_shape o = infer_ok(&f, in1);
    EXPECT_DIMS(o, 1, 5, count_windows(20, 4, 3, 2, 2, 1));
    fx_free(&f);

    /* 3-D: D,H,W = 7,8,9; kernel 3,2,1; strides 1,2,3; pads begin 1,0,0 end 1,1,0. */
    f = fx_new(EM_OP_CONV, 2, "conv3d");
    const int64_t s3[] = {1, 2, 3}, p3[] = {1, 0, 0, 1, 1, 0};
    fx_ints(&f, "strides", s3, 3);
    fx_ints(&f, "pads", p3, 6);
    em_shape in3[2] = {SHP(2, 2, 7, 8, 9), SHP(4, 2, 3, 2, 1)};
    o = infer_ok(&f, in3);
    EXPECT_DIMS(o, 2, 4, count_windows(7, 3, 1, 1, 1, 1), count_windows(8, 2, 2, 1, 0, 1),
                count_windows(9, 1, 3, 1, 0, 0));
    fx_free(&f);

    /* 3-D SAME_LOWER with strides: ceil(x / s) per axis. */
    f = fx_new(EM_OP_CONV, 2, "conv3d_same");
    fx_str(&f, "auto_pad", "SAME_LOWER");
    fx_ints(&f, "strides", s3, 3);
    o = infer_ok(&f, in3);
    EXPECT_DIMS(o, 2, 4, 7, 4, 3);
    fx_free(&f);

    /* kernel_shape given explicitly agrees with W. */
    f = fx_new(EM_OP_CONV, 2, "conv_ks");
    const int64_t ks[] = {3, 2, 1};
    fx_ints(&f, "kernel_shape", ks, 3);
    o = infer_ok(&f, in3);
    EXPECT_DIMS(o, 2, 4, 5, 7, 9);
    fx_free(&f);
}

static void test_conv_symbolic_batch(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_CONV, 2, "conv_sym");
    em_shape in[2] = {SHP(0, 3, 16, 16), SHP(8, 3, 3, 3)};
    in[0] = sym_dim(in[0], 0, 5);
    em_shape o = infer_ok(&f, in);
    assert_int_equal(o.rank, 4);
    assert_true(o.dims[0].v == -1 && o.dims[0].sym == 5);
    assert_true(o.dims[1].v == 8 && o.dims[2].v == 14 && o.dims[3].v == 14);
    /* An unknown spatial dim stays unknown. */
    in[0].dims[2].v = -1;
    o = infer_ok(&f, in);
    assert_true(o.dims[2].v == -1 && o.dims[2].sym == 0);
    assert_true(o.dims[3].v == 14);
    /* Input 0 without a dtype is an error. */
    in[0].dtype = EMBER_DTYPE_UNDEFINED;
    infer_err(&f, in, "dtype");
    fx_free(&f);
}

/* ---- pools -------------------------------------------------------------------------------- */

static void test_pool_sweep(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_MAXPOOL, EM_OP_AVERAGEPOOL};
    int dropped = 0, cases = 0;
    for (int oi = 0; oi < 2; oi++) {
        for (int64_t x = 1; x <= 11; x++) {
            for (int64_t k = 1; k <= 4; k++) {
                for (int64_t s = 1; s <= 3; s++) {
                    for (int64_t pad = 0; pad <= 2; pad++) {
                        for (int cm = 0; cm <= 1; cm++) {
                            int64_t d = ops[oi] == EM_OP_MAXPOOL ? 1 + (x % 2) : 1;
                            int64_t pb = pad, pe = (pad + k) % 3;
                            if (x + pb + pe < (k - 1) * d + 1) {
                                continue;
                            }
                            fx f = fx_new(ops[oi], 1, "pool_sweep");
                            const int64_t ks[] = {k, 2}, st[] = {s, 2}, dl[] = {d, 1},
                                          pads[] = {pb, 0, pe, 1};
                            fx_ints(&f, "kernel_shape", ks, 2);
                            fx_ints(&f, "strides", st, 2);
                            fx_ints(&f, "pads", pads, 4);
                            if (d != 1) {
                                fx_ints(&f, "dilations", dl, 2);
                            }
                            fx_int(&f, "ceil_mode", cm);
                            em_shape in[1] = {SHP(3, 4, x, 7)};
                            em_shape o = infer_ok(&f, in);
                            int64_t want = onnx_pool_out(x, k, s, d, pb, pe, cm);
                            int64_t want_w = onnx_pool_out(7, 2, 2, 1, 0, 1, cm);
                            if (o.rank != 4 || o.dims[0].v != 3 || o.dims[1].v != 4 ||
                                o.dims[2].v != want || o.dims[3].v != want_w) {
                                fail_msg("%s x=%lld k=%lld s=%lld d=%lld pads=(%lld,%lld) "
                                         "ceil=%d: got [%lld,%lld], want [%lld,%lld]",
                                         em_op_name(ops[oi]), (long long)x, (long long)k,
                                         (long long)s, (long long)d, (long long)pb, (long long)pe,
                                         cm, (long long)o.dims[2].v, (long long)o.dims[3].v,
                                         (long long)want, (long long)want_w);
                            }
                            if (cm) {
                                double v = (double)(x + pb + pe - ((k - 1) * d + 1)) / (double)s;
                                dropped += (int64_t)ceil(v) + 1 != want;
                            }
                            fx_free(&f);
                            cases++;
                        }
                    }
                }
            }
        }
    }
    assert_true(cases > 500);
    assert_true(dropped > 0); /* the sweep reaches the "starts in the right padding" rule */
}

static void test_pool_specific(void **state)
{
    (void)state;
    /* The classic ResNet stem pool: 112 -> 56 with k3 s2 p1. */
    fx f = fx_new(EM_OP_MAXPOOL, 1, "stem_pool");
    const int64_t k3[] = {3, 3}, s2[] = {2, 2}, p1[] = {1, 1, 1, 1};
    fx_ints(&f, "kernel_shape", k3, 2);
    fx_ints(&f, "strides", s2, 2);
    fx_ints(&f, "pads", p1, 4);
    em_shape in[1] = {SHP(1, 64, 112, 112)};
    em_shape o = infer_ok(&f, in);
    EXPECT_DIMS(o, 1, 64, 56, 56);
    fx_free(&f);
    /* ceil_mode: 5 with k2 s2 gives windows at 0, 2 and 4 (the last one partial): 3, where
     * floor mode gives 2. */
    f = fx_new(EM_OP_AVERAGEPOOL, 1, "avg_ceil");
    const int64_t k2[] = {2}, st2[] = {2};
    fx_ints(&f, "kernel_shape", k2, 1);
    fx_ints(&f, "strides", st2, 1);
    fx_int(&f, "ceil_mode", 1);
    em_shape in5[1] = {SHP(1, 1, 5)};
    o = infer_ok(&f, in5);
    EXPECT_DIMS(o, 1, 1, 3);
    fx_free(&f);
    /* Missing kernel_shape. */
    f = fx_new(EM_OP_MAXPOOL, 1, "pool_nok");
    infer_err(&f, in, "kernel_shape");
    fx_free(&f);
    /* Wrong kernel_shape length. */
    f = fx_new(EM_OP_AVERAGEPOOL, 1, "pool_badk");
    fx_ints(&f, "kernel_shape", k2, 1);
    infer_err(&f, in, "kernel_shape");
    fx_free(&f);
    /* Rank 2 input. */
    f = fx_new(EM_OP_MAXPOOL, 1, "pool_rank2");
    fx_ints(&f, "kernel_shape", k2, 1);
    em_shape r2[1] = {SHP(4, 4)};
    infer_err(&f, r2, "rank");
    fx_free(&f);
    /* auto_pad SAME_UPPER on a pool: ceil(x / s). */
    f = fx_new(EM_OP_MAXPOOL, 1, "pool_same");
    fx_ints(&f, "kernel_shape", k3, 2);
    fx_ints(&f, "strides", s2, 2);
    fx_str(&f, "auto_pad", "SAME_UPPER");
    em_shape in7[1] = {SHP(1, 2, 7, 8)};
    o = infer_ok(&f, in7);
    EXPECT_DIMS(o, 1, 2, 4, 4);
    fx_free(&f);
}

static void test_global_average_pool(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_GLOBALAVERAGEPOOL, 1, "gap");
    em_shape in[1] = {sym_dim(SHP(0, 16, 7, 9), 0, 3)};
    em_shape o = infer_ok(&f, in);
    EXPECT_DIMS(o, -1, 16, 1, 1);
    assert_true(o.dims[0].v == -1 && o.dims[0].sym == 3);
    em_shape in1[1] = {SHP(2, 3, 5)};
    o = infer_ok(&f, in1);
    EXPECT_DIMS(o, 2, 3, 1);
    em_shape in3[1] = {SHP(2, 3, 5, 6, 7)};
    o = infer_ok(&f, in3);
    EXPECT_DIMS(o, 2, 3, 1, 1, 1);
    em_shape bad[1] = {SHP(2, 3)};
    infer_err(&f, bad, "rank");
    fx_free(&f);
}

/* ---- Gemm and MatMul ------------------------------------------------------------------------ */

static void test_gemm(void **state)
{
    (void)state;
    static const struct {
        int ta, tb;
        int64_t a0, a1, b0, b1;
    } cases[] = {
        {0, 0, 3, 5, 5, 7}, /* A[M,K] B[K,N] */
        {1, 0, 5, 3, 5, 7}, /* A[K,M] */
        {0, 1, 3, 5, 7, 5}, /* B[N,K] */
        {1, 1, 5, 3, 7, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx f = fx_new(EM_OP_GEMM, 2, "gemm");
        fx_int(&f, "transA", cases[i].ta);
        fx_int(&f, "transB", cases[i].tb);
        em_shape in[2] = {SHP(cases[i].a0, cases[i].a1), SHP(cases[i].b0, cases[i].b1)};
        em_shape o = infer_ok(&f, in);
        EXPECT_DIMS(o, 3, 7);
        /* K off by one on B's side. */
        if (cases[i].tb) {
            in[1].dims[1].v++;
        } else {
            in[1].dims[0].v++;
        }
        infer_err(&f, in, "K=");
        fx_free(&f);
    }
    /* C broadcasts to [M, N]. */
    fx f = fx_new(EM_OP_GEMM, 3, "gemm_c");
    em_shape in[3] = {SHP(3, 5), SHP(5, 7), SHP(7)};
    em_shape o = infer_ok(&f, in);
    EXPECT_DIMS(o, 3, 7);
    in[2] = SHP(3, 7);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 3, 7);
    in[2] = SHP(3, 1);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 3, 7);
    in[2] = SHP(8);
    infer_err(&f, in, NULL);
    /* Absent C (undefined dtype) is skipped. */
    memset(&in[2], 0, sizeof in[2]);
    in[2].rank = -1;
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 3, 7);
    /* Ranks other than 2. */
    in[0] = SHP(2, 3, 5);
    infer_err(&f, in, "rank");
    fx_free(&f);
}

static void test_matmul(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_MATMUL, 2, "mm");
    em_shape in[2] = {SHP(3, 4), SHP(4, 5)};
    em_shape o = infer_ok(&f, in);
    EXPECT_DIMS(o, 3, 5);
    /* 1-D promotion: [K] x [K, N] -> [N]; [M, K] x [K] -> [M]; [K] x [K] -> scalar. */
    in[0] = SHP(4);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 5);
    in[0] = SHP(3, 4);
    in[1] = SHP(4);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 3);
    in[0] = SHP(4);
    o = infer_ok(&f, in);
    assert_int_equal(o.rank, 0);
    /* [K] x [B, K, N] -> [B, N]. */
    in[1] = SHP(6, 4, 5);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 6, 5);
    /* Batch broadcasting: [2,1,M,K] x [3,K,N] -> [2,3,M,N]. */
    in[0] = SHP(2, 1, 3, 4);
    in[1] = SHP(3, 4, 5);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 2, 3, 3, 5);
    in[0] = SHP(7, 3, 4);
    in[1] = SHP(4, 5);
    o = infer_ok(&f, in);
    EXPECT_DIMS(o, 7, 3, 5);
    /* Symbolic batch passes through. */
    in[0] = sym_dim(SHP(0, 3, 4), 0, 2);
    o = infer_ok(&f, in);
    assert_int_equal(o.rank, 3);
    assert_true(o.dims[0].sym == 2 && o.dims[0].v == -1);
    assert_true(o.dims[1].v == 3 && o.dims[2].v == 5);
    /* Mismatches: inner dims, batch dims. */
    in[0] = SHP(3, 4);
    in[1] = SHP(5, 6);
    infer_err(&f, in, "inner");
    in[0] = SHP(4);
    in[1] = SHP(5);
    infer_err(&f, in, "inner");
    in[0] = SHP(2, 3, 4);
    in[1] = SHP(3, 4, 5);
    infer_err(&f, in, "broadcast");
    /* Rank 0. */
    in[0] = shp(EMBER_DTYPE_F32, 0, NULL);
    in[1] = SHP(4, 5);
    infer_err(&f, in, "rank");
    fx_free(&f);
}

/* ---- BatchNormalization ------------------------------------------------------------------- */

static void test_batchnorm(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_BATCHNORM, 5, "bn");
    em_shape in[5] = {SHP(2, 6, 5, 5), SHP(6), SHP(6), SHP(6), SHP(6)};
    em_shape o = infer_ok(&f, in);
    EXPECT_DIMS(o, 2, 6, 5, 5);
    in[3] = SHP(5);
    infer_err(&f, in, "channels");
    in[3] = SHP(6, 1);
    infer_err(&f, in, "rank");
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_sweep),
        cmocka_unit_test(test_conv_auto_pad),
        cmocka_unit_test(test_conv_groups_and_ranks),
        cmocka_unit_test(test_conv_1d_3d),
        cmocka_unit_test(test_conv_symbolic_batch),
        cmocka_unit_test(test_pool_sweep),
        cmocka_unit_test(test_pool_specific),
        cmocka_unit_test(test_global_average_pool),
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_batchnorm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
