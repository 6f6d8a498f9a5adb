/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape_signal.c: the signal family's shape functions through em_shape_infer_node.
 * Windows (size known or not, int32/int64, output_datatype), DFT-20 (axis and dft_length
 * absent, known and unknown; onesided; symbolic dims kept), STFT (frame_length from the input,
 * the window or the signal; frames; onesided), MelWeightMatrix, and the errors, each naming
 * the node.
 */
#define EM_SHAPE_QS_HELPERS_ONLY
#include "test_shape_quant.c"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16
#define I32 EMBER_DTYPE_I32
#define I64 EMBER_DTYPE_I64

static void test_window(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_tensor t;
    int64_t v = 10;
    em_shape in[1] = {qs_value(I32, &t, &v)};
    qs_init(&s, EM_OP_HANNWINDOW, "hann", 1, 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 10);
    qs_init(&s, EM_OP_BLACKMANWINDOW, "black_f64", 1, 1);
    qs_int(&s, "output_datatype", F64);
    v = 0;
    in[0] = qs_value(I64, &t, &v);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F64, 0);
    qs_init(&s, EM_OP_HAMMINGWINDOW, "ham_unknown", 1, 1);
    in[0] = qs_shape(I64, 1, QD(1));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -1);
    /* Errors: float size, two values, negative size, bool / unknown output dtype. */
    qs_init(&s, EM_OP_HANNWINDOW, "w_float", 1, 1);
    in[0] = qs_shape(F32, 0, NULL);
    qs_err(&s, in);
    qs_init(&s, EM_OP_HANNWINDOW, "w_two", 1, 1);
    in[0] = qs_shape(I64, 1, QD(2));
    qs_err(&s, in);
    qs_init(&s, EM_OP_HANNWINDOW, "w_neg", 1, 1);
    v = -3;
    in[0] = qs_value(I64, &t, &v);
    qs_err(&s, in);
    qs_init(&s, EM_OP_HANNWINDOW, "w_bool", 1, 1);
    qs_int(&s, "output_datatype", EMBER_DTYPE_BOOL);
    v = 3;
    in[0] = qs_value(I64, &t, &v);
    qs_err(&s, in);
    qs_init(&s, EM_OP_HANNWINDOW, "w_dtype_0", 1, 1);
    qs_int(&s, "output_datatype", 0);
    qs_err(&s, in);
}

static void test_dft(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_tensor tl, ta;
    int64_t len, axis;
    em_shape in[3] = {qs_shape(F32, 4, QD(-2, 10, 6, 1)), qs_absent(), qs_absent()};
    /* Defaults: axis -2 (the last signal axis), the input's length. */
    qs_init(&s, EM_OP_DFT, "dft", 1, 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -2, 10, 6, 2);
    qs_init(&s, EM_OP_DFT, "dft_onesided", 1, 1);
    qs_int(&s, "onesided", 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -2, 10, 4, 2);
    /* axis 1 known, dft_length known, onesided. */
    qs_init(&s, EM_OP_DFT, "dft_axis_len", 3, 1);
    qs_int(&s, "onesided", 1);
    len = 9;
    axis = 1;
    in[1] = qs_value(I32, &tl, &len);
    in[2] = qs_value(I64, &ta, &axis);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -2, 5, 6, 2);
    /* Negative axis -3 is axis 1; the batch axis is allowed. */
    axis = -3;
    in[2] = qs_value(I64, &ta, &axis);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -2, 5, 6, 2);
    axis = 0;
    in[2] = qs_value(I64, &ta, &axis);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 5, 10, 6, 2);
    /* Unknown dft_length: that dim unknown; unknown axis: every dim but the last. */
    in[1] = qs_shape(I64, 0, NULL);
    axis = 2;
    in[2] = qs_value(I64, &ta, &axis);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -2, 10, -1, 2);
    in[2] = qs_shape(I64, 1, QD(1));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, -1, -1, -1, 2);
    /* Complex input, inverse. */
    qs_init(&s, EM_OP_DFT, "dft_inverse", 1, 1);
    qs_int(&s, "inverse", 1);
    em_shape cx = qs_shape(F64, 3, QD(2, 7, 2));
    qs_ok(&s, &cx, out);
    QS_EXPECT(out[0], F64, 2, 7, 2);
    /* Errors. */
    qs_init(&s, EM_OP_DFT, "dft_inv_onesided", 1, 1);
    qs_int(&s, "inverse", 1);
    qs_int(&s, "onesided", 1);
    qs_err(&s, in);
    qs_init(&s, EM_OP_DFT, "dft_onesided_complex", 1, 1);
    qs_int(&s, "onesided", 1);
    qs_err(&s, &cx);
    qs_init(&s, EM_OP_DFT, "dft_last3", 1, 1);
    em_shape bad = qs_shape(F32, 3, QD(2, 7, 3));
    qs_err(&s, &bad);
    qs_init(&s, EM_OP_DFT, "dft_rank1", 1, 1);
    bad = qs_shape(F32, 1, QD(7));
    qs_err(&s, &bad);
    em_shape in2[3] = {qs_shape(F32, 3, QD(1, 8, 1)), qs_absent(), qs_absent()};
    static const int64_t bad_axes[] = {2, -1, 3, -4};
    for (size_t i = 0; i < sizeof bad_axes / sizeof bad_axes[0]; i++) {
        qs_init(&s, EM_OP_DFT, "dft_bad_axis", 3, 1);
        axis = bad_axes[i];
        in2[2] = qs_value(I64, &ta, &axis);
        qs_err(&s, in2);
    }
    qs_init(&s, EM_OP_DFT, "dft_len0", 2, 1);
    len = 0;
    in2[1] = qs_value(I64, &tl, &len);
    qs_err(&s, in2);
    qs_init(&s, EM_OP_DFT, "dft_len_float", 2, 1);
    in2[1] = qs_shape(F32, 0, NULL);
    qs_err(&s, in2);
}

static void test_stft(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_tensor ts, tf;
    int64_t step = 8, flen = 16;
    /* test_stft: [1, 128, 1], step 8, frame_length 16, onesided (default). */
    em_shape in[4] = {qs_shape(F32, 3, QD(1, 128, 1)), qs_value(I64, &ts, &step), qs_absent(),
                      qs_value(I64, &tf, &flen)};
    qs_init(&s, EM_OP_STFT, "stft", 4, 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 1, 15, 9, 2);
    /* The window's length, not onesided. */
    qs_init(&s, EM_OP_STFT, "stft_window", 3, 1);
    qs_int(&s, "onesided", 0);
    in[2] = qs_shape(F32, 1, QD(12));
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 1, 15, 12, 2);
    /* Neither: the whole signal is one frame. */
    qs_init(&s, EM_OP_STFT, "stft_whole", 2, 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 1, 1, 65, 2);
    /* Unknown step: frames unknown; symbolic batch kept. */
    qs_init(&s, EM_OP_STFT, "stft_unknown", 4, 1);
    em_shape un[4] = {qs_shape(F32, 3, QD(-2, 100, 1)), qs_shape(I32, 0, NULL), qs_absent(),
                      qs_value(I64, &tf, &flen)};
    qs_ok(&s, un, out);
    QS_EXPECT(out[0], F32, -2, -1, 9, 2);
    /* Errors. */
    qs_init(&s, EM_OP_STFT, "stft_window_len", 4, 1);
    in[2] = qs_shape(F32, 1, QD(12));
    qs_err(&s, in);
    qs_init(&s, EM_OP_STFT, "stft_rank", 2, 1);
    em_shape bad[2] = {qs_shape(F32, 2, QD(1, 128)), in[1]};
    qs_err(&s, bad);
    qs_init(&s, EM_OP_STFT, "stft_onesided_complex", 2, 1);
    bad[0] = qs_shape(F32, 3, QD(1, 128, 2));
    qs_err(&s, bad);
    qs_init(&s, EM_OP_STFT, "stft_step0", 2, 1);
    step = 0;
    bad[0] = qs_shape(F32, 3, QD(1, 128, 1));
    bad[1] = qs_value(I64, &ts, &step);
    qs_err(&s, bad);
    qs_init(&s, EM_OP_STFT, "stft_flen_long", 4, 1);
    step = 4;
    flen = 200;
    em_shape lg[4] = {qs_shape(F32, 3, QD(1, 128, 1)), qs_value(I64, &ts, &step), qs_absent(),
                      qs_value(I64, &tf, &flen)};
    qs_err(&s, lg);
}

static void test_mel(void **state)
{
    (void)state;
    qs_node s;
    em_shape out[1];
    em_tensor t0, t1, t2;
    int64_t bins = 8, len = 16, sr = 8192;
    em_shape in[5] = {qs_value(I32, &t0, &bins), qs_value(I32, &t1, &len), qs_value(I32, &t2, &sr),
                      qs_shape(F32, 0, NULL), qs_shape(F32, 0, NULL)};
    qs_init(&s, EM_OP_MELWEIGHTMATRIX, "mel", 5, 1);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F32, 9, 8);
    qs_init(&s, EM_OP_MELWEIGHTMATRIX, "mel_f16", 5, 1);
    qs_int(&s, "output_datatype", F16);
    in[1] = qs_shape(I64, 0, NULL);
    qs_ok(&s, in, out);
    QS_EXPECT(out[0], F16, -1, 8);
    qs_init(&s, EM_OP_MELWEIGHTMATRIX, "mel_sr0", 5, 1);
    sr = 0;
    in[2] = qs_value(I64, &t2, &sr);
    qs_err(&s, in);
    qs_init(&s, EM_OP_MELWEIGHTMATRIX, "mel_bins_float", 5, 1);
    in[0] = qs_shape(F32, 0, NULL);
    qs_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_dft),
        cmocka_unit_test(test_stft),
        cmocka_unit_test(test_mel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
