/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/common_ref.c: the helpers every reference kernel relies on. em_ref_taps against
 * brute force over a sweep of starts, sizes and dilations; em_ref_window_parse on hand-worked
 * ONNX examples (explicit pads, ceil_mode including the dropped window, SAME_UPPER versus
 * SAME_LOWER with odd padding, VALID ignoring ceil_mode, kernel_shape from the weights) and on
 * malformed attributes; typed attribute readers (defaults, wrong type, wrong count); and the
 * "node '<name>' (<Op>): ..." message format.
 */
#include "test_ref_util.h"

#include <stdio.h>

static void test_taps_bruteforce(void **state)
{
    (void)state;
    for (int64_t in = 0; in <= 6; in++) {
        for (int64_t k = 1; k <= 4; k++) {
            for (int64_t dil = 1; dil <= 3; dil++) {
                for (int64_t start = -8; start <= 8; start++) {
                    int64_t lo, hi, want_lo = -1, want_hi = -1;
                    for (int64_t t = 0; t < k; t++) {
                        int64_t pos = start + t * dil;
                        if (pos >= 0 && pos < in) {
                            want_lo = want_lo < 0 ? t : want_lo;
                            want_hi = t + 1;
                        }
                    }
                    em_ref_taps(start, k, dil, in, &lo, &hi);
                    if (want_lo < 0) {
                        assert_int_equal(lo, hi);
                    } else {
                        assert_int_equal(lo, want_lo);
                        assert_int_equal(hi, want_hi);
                    }
                }
            }
        }
    }
}

static ember_status *parse(t_node *tn, int n_sp, const int64_t *in, const int64_t *kernel,
                           bool ceil_mode, em_ref_window *w)
{
    em_kinfo ki = {&tn->n, 1, 1, NULL, NULL, test_allocator(), 0, 1, NULL};
    return em_ref_window_parse(&ki, n_sp, in, kernel, ceil_mode, w);
}

static void test_window_explicit(void **state)
{
    (void)state;
    t_node tn;
    em_ref_window w;
    static const int64_t in[2] = {7, 8}, k[2] = {3, 2}, s[2] = {2, 3}, p[4] = {1, 0, 0, 2};
    t_node_init(&tn, EM_OP_MAXPOOL, "mp");
    t_set_ints(&tn, "kernel_shape", k, 2);
    t_set_ints(&tn, "strides", s, 2);
    t_set_ints(&tn, "pads", p, 4);
    t_expect_ok(parse(&tn, 2, in, NULL, false, &w), "explicit");
    /* floor((7 + 1 - 3) / 2) + 1 = 3, floor((8 + 2 - 2) / 3) + 1 = 3 */
    assert_int_equal(w.out[0], 3);
    assert_int_equal(w.out[1], 3);
    assert_int_equal(w.pad_begin[0], 1);
    assert_int_equal(w.pad_end[1], 2);
    assert_int_equal(w.dilation[0], 1);
    t_expect_ok(parse(&tn, 2, in, NULL, true, &w), "explicit ceil");
    /* ceil(5 / 2) + 1 = 4 (start 6 < 7 + 1: kept); ceil(8 / 3) + 1 = 4 (start 9 >= 8: dropped) */
    assert_int_equal(w.out[0], 4);
    assert_int_equal(w.out[1], 3);

    /* in 4, k 2, s 2, pads (0, 1): ceil(3 / 2) + 1 = 3, but the third window would start at 4,
     * exactly where the end padding begins: dropped. */
    static const int64_t in1[1] = {4}, k1[1] = {2}, s1[1] = {2}, p1[2] = {0, 1};
    t_node_init(&tn, EM_OP_AVERAGEPOOL, "ap");
    t_set_ints(&tn, "kernel_shape", k1, 1);
    t_set_ints(&tn, "strides", s1, 1);
    t_set_ints(&tn, "pads", p1, 2);
    t_expect_ok(parse(&tn, 1, in1, NULL, true, &w), "ceil edge");
    assert_int_equal(w.out[0], 2);
    t_expect_ok(parse(&tn, 1, in1, NULL, false, &w), "floor edge");
    assert_int_equal(w.out[0], 2);
}

static void test_window_auto_pad(void **state)
{
    (void)state;
    t_node tn;
    em_ref_window w;
    static const int64_t in[1] = {7}, k[1] = {4}, s[1] = {2};
    /* out = ceil(7 / 2) = 4; total pad = 3 * 2 + 4 - 7 = 3 */
    t_node_init(&tn, EM_OP_CONV, "conv_same");
    t_set_ints(&tn, "strides", s, 1);
    t_set_string(&tn, "auto_pad", "SAME_UPPER");
    t_expect_ok(parse(&tn, 1, in, k, false, &w), "same_upper");
    assert_int_equal(w.out[0], 4);
    assert_int_equal(w.pad_begin[0], 1);
    assert_int_equal(w.pad_end[0], 2);
    tn.attrs[1].s = "SAME_LOWER";
    t_expect_ok(parse(&tn, 1, in, k, false, &w), "same_lower");
    assert_int_equal(w.out[0], 4);
    assert_int_equal(w.pad_begin[0], 2);
    assert_int_equal(w.pad_end[0], 1);
    tn.attrs[1].s = "VALID";
    t_expect_ok(parse(&tn, 1, in, k, true, &w), "valid");
    assert_int_equal(w.out[0], 2); /* floor((7 - 4) / 2) + 1, ceil_mode ignored */
    assert_int_equal(w.pad_begin[0], 0);
    tn.attrs[1].s = "NOTSET";
    t_expect_ok(parse(&tn, 1, in, k, false, &w), "notset");
    assert_int_equal(w.out[0], 2);
}

static void test_window_kernel_from_weights(void **state)
{
    (void)state;
    t_node tn;
    em_ref_window w;
    static const int64_t in[3] = {5, 6, 7}, k[3] = {3, 1, 2}, d[3] = {1, 2, 3};
    t_node_init(&tn, EM_OP_CONV, "conv3d");
    t_set_ints(&tn, "dilations", d, 3);
    t_expect_ok(parse(&tn, 3, in, k, false, &w), "from weights");
    assert_int_equal(w.kernel[2], 2);
    assert_int_equal(w.out[0], 3);
    assert_int_equal(w.out[1], 6);
    assert_int_equal(w.out[2], 4); /* extent (2 - 1) * 3 + 1 = 4 */
    t_set_ints(&tn, "kernel_shape", k, 3);
    t_expect_ok(parse(&tn, 3, in, k, false, &w), "kernel_shape agrees");
}

static void test_window_errors(void **state)
{
    (void)state;
    static const int64_t in[2] = {4, 4}, k[2] = {3, 3}, one[1] = {1}, neg[2] = {1, -1};
    static const int64_t huge[2] = {1, (int64_t)1 << 40}, k_big[2] = {5, 5};
    em_ref_window w;
    t_node tn;

    t_node_init(&tn, EM_OP_MAXPOOL, "mp_missing_kernel");
    t_expect_error(parse(&tn, 2, in, NULL, false, &w), EMBER_ERR_INVALID_MODEL, "mp_missing_kernel",
                   "missing kernel_shape");

    t_node_init(&tn, EM_OP_CONV, "conv_strides_count");
    t_set_ints(&tn, "strides", one, 1);
    t_expect_error(parse(&tn, 2, in, k, false, &w), EMBER_ERR_INVALID_MODEL, "conv_strides_count",
                   "strides count");

    t_node_init(&tn, EM_OP_CONV, "conv_dilation_negative");
    t_set_ints(&tn, "dilations", neg, 2);
    t_expect_error(parse(&tn, 2, in, k, false, &w), EMBER_ERR_INVALID_MODEL,
                   "conv_dilation_negative", "negative dilation");

    t_node_init(&tn, EM_OP_CONV, "conv_stride_huge");
    t_set_ints(&tn, "strides", huge, 2);
    t_expect_error(parse(&tn, 2, in, k, false, &w), EMBER_ERR_INVALID_MODEL, "conv_stride_huge",
                   "huge stride");

    t_node_init(&tn, EM_OP_CONV, "conv_auto_pad_type");
    t_set_int(&tn, "auto_pad", 1);
    t_expect_error(parse(&tn, 2, in, k, false, &w), EMBER_ERR_INVALID_MODEL, "conv_auto_pad_type",
                   "auto_pad type");

    t_node_init(&tn, EM_OP_CONV, "conv_kernel_too_big");
    t_expect_error(parse(&tn, 2, in, k_big, false, &w), EMBER_ERR_INVALID_MODEL,
                   "conv_kernel_too_big", "kernel too big");

    t_node_init(&tn, EM_OP_CONV, "conv_zero_spatial");
    t_expect_error(parse(&tn, 0, in, k, false, &w), EMBER_ERR_INVALID_MODEL, "conv_zero_spatial",
                   "no spatial axes");
}

static void test_attr_readers(void **state)
{
    (void)state;
    t_node tn;
    t_node_init(&tn, EM_OP_GEMM, "gemm_attrs");
    static const int64_t three[3] = {4, 5, 6};
    t_set_int(&tn, "i", 7);
    t_set_float(&tn, "f", 0.25f);
    t_set_string(&tn, "s", "hello");
    t_set_ints(&tn, "v", three, 3);
    em_kinfo ki = {&tn.n, 0, 0, NULL, NULL, test_allocator(), 0, 1, NULL};
    int64_t i, v[4];
    float f;
    const char *s;
    bool present;
    t_expect_ok(em_ref_attr_int(&ki, "i", 1, &i), "int");
    assert_int_equal(i, 7);
    t_expect_ok(em_ref_attr_int(&ki, "absent", -3, &i), "int default");
    assert_int_equal(i, -3);
    t_expect_ok(em_ref_attr_float(&ki, "f", 1.0f, &f), "float");
    assert_true(f == 0.25f);
    t_expect_ok(em_ref_attr_string(&ki, "s", "x", &s), "string");
    assert_string_equal(s, "hello");
    t_expect_ok(em_ref_attr_ints(&ki, "v", 3, 0, v, &present), "ints");
    assert_true(present && v[0] == 4 && v[2] == 6);
    t_expect_ok(em_ref_attr_ints(&ki, "absent", 2, 9, v, &present), "ints default");
    assert_true(!present && v[0] == 9 && v[1] == 9);
    t_expect_error(em_ref_attr_float(&ki, "i", 1.0f, &f), EMBER_ERR_INVALID_MODEL, "gemm_attrs",
                   "int as float");
    t_expect_error(em_ref_attr_int(&ki, "v", 1, &i), EMBER_ERR_INVALID_MODEL, "gemm_attrs",
                   "ints as int");
    t_expect_error(em_ref_attr_ints(&ki, "v", 2, 0, v, NULL), EMBER_ERR_INVALID_MODEL, "gemm_attrs",
                   "ints count");
}

static void test_error_format(void **state)
{
    (void)state;
    t_node tn;
    t_node_init(&tn, EM_OP_CONV, "conv_3");
    em_kinfo ki = {&tn.n, 0, 0, NULL, NULL, test_allocator(), 0, 1, NULL};
    ember_status *st =
        em_ref_error(&ki, EMBER_ERR_INVALID_MODEL, "weight rank %d, expected %d", 3, 4);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_string_equal(ember_status_message(st),
                        "node 'conv_3' (Conv): weight rank 3, expected 4");
    ember_status_destroy(st);
}

static void test_check_tensor(void **state)
{
    (void)state;
    t_node tn;
    t_node_init(&tn, EM_OP_ADD, "add_shapes");
    em_kinfo ki = {&tn.n, 0, 0, NULL, NULL, test_allocator(), 0, 1, NULL};
    em_tensor t;
    static const int64_t neg[2] = {3, -1}, big[2] = {INT64_MAX / 2, 3}, ok[2] = {3, 0};
    t_tensor(&t, EMBER_DTYPE_F32, 2, neg, NULL);
    t_expect_error(em_ref_check_tensor(&ki, &t, EMBER_DTYPE_F32, "input 0"),
                   EMBER_ERR_INVALID_MODEL, "add_shapes", "negative dim");
    t_tensor(&t, EMBER_DTYPE_F32, 2, big, NULL);
    t_expect_error(em_ref_check_tensor(&ki, &t, EMBER_DTYPE_F32, "input 0"),
                   EMBER_ERR_INVALID_MODEL, "add_shapes", "overflowing numel");
    t_tensor(&t, EMBER_DTYPE_UNDEFINED, 2, ok, NULL);
    t_expect_error(em_ref_check_tensor(&ki, &t, EMBER_DTYPE_UNDEFINED, "input 0"),
                   EMBER_ERR_INVALID_MODEL, "add_shapes", "no dtype");
    t_tensor(&t, EMBER_DTYPE_I8, 2, ok, NULL);
    t_expect_ok(em_ref_check_tensor(&ki, &t, EMBER_DTYPE_UNDEFINED, "input 0"), "any dtype");
    t.rank = EM_MAX_RANK + 1;
    t_expect_error(em_ref_check_tensor(&ki, &t, EMBER_DTYPE_UNDEFINED, "input 0"),
                   EMBER_ERR_INVALID_MODEL, "add_shapes", "rank too big");
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taps_bruteforce),
        cmocka_unit_test(test_window_explicit),
        cmocka_unit_test(test_window_auto_pad),
        cmocka_unit_test(test_window_kernel_from_weights),
        cmocka_unit_test(test_window_errors),
        cmocka_unit_test(test_attr_readers),
        cmocka_unit_test(test_error_format),
        cmocka_unit_test(test_check_tensor),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
