/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_signal.c: the signal family's shape functions through em_shape_infer_node.
 * Windows (size known or not, int32/int64, output_datatype), DFT-20 (axis and dft_length
 * absent, known and unknown; onesided; symbolic dims kept), STFT (frame_length from the input,
 * the window or the signal; frames; onesided), MelWeightMatrix, and the errors, each naming
 * the node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_shape_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16
#define I32 EMBER_DTYPE_I32
#define I64 EMBER_DTYPE_I64

static void test_window(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_tensor t;
    int64_t v = 10;
    em_shape in[1] = {int_value(I32, &t, &v)};
    sn_init(&s, EM_OP_HANNWINDOW, "hann", 1, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 10);
    sn_init(&s, EM_OP_BLACKMANWINDOW, "black_f64", 1, 1);
    sn_int(&s, "output_datatype", F64);
    v = 0;
    in[0] = int_value(I64, &t, &v);
    infer_ok(&s, in, out);
    EXPECT(out[0], F64, 0);
    sn_init(&s, EM_OP_HAMMINGWINDOW, "ham_unknown", 1, 1);
    in[0] = shp(I64, 1, DIMS(1));
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1);
    /* Errors: float size, two values, negative size, bool / unknown output dtype. */
    sn_init(&s, EM_OP_HANNWINDOW, "w_float", 1, 1);
    in[0] = shp(F32, 0, NULL);
    infer_err(&s, in);
    sn_init(&s, EM_OP_HANNWINDOW, "w_two", 1, 1);
    in[0] = shp(I64, 1, DIMS(2));
    infer_err(&s, in);
    sn_init(&s, EM_OP_HANNWINDOW, "w_neg", 1, 1);
    v = -3;
    in[0] = int_value(I64, &t, &v);
    infer_err(&s, in);
    sn_init(&s, EM_OP_HANNWINDOW, "w_bool", 1, 1);
    sn_int(&s, "output_datatype", EMBER_DTYPE_BOOL);
    v = 3;
    in[0] = int_value(I64, &t, &v);
    infer_err(&s, in);
    sn_init(&s, EM_OP_HANNWINDOW, "w_dtype_0", 1, 1);
    sn_int(&s, "output_datatype", 0);
    infer_err(&s, in);
}

static void test_dft(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_tensor tl, ta;
    int64_t len, axis;
    em_shape in[3] = {shp(F32, 4, DIMS(-2, 10, 6, 1)), absent(), absent()};
    /* Defaults: axis -2 (the last signal axis), the input's length. */
    sn_init(&s, EM_OP_DFT, "dft", 1, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -2, 10, 6, 2);
    sn_init(&s, EM_OP_DFT, "dft_onesided", 1, 1);
    sn_int(&s, "onesided", 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -2, 10, 4, 2);
    /* axis 1 known, dft_length known, onesided. */
    sn_init(&s, EM_OP_DFT, "dft_axis_len", 3, 1);
    sn_int(&s, "onesided", 1);
    len = 9;
    axis = 1;
    in[1] = int_value(I32, &tl, &len);
    in[2] = int_value(I64, &ta, &axis);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -2, 5, 6, 2);
    /* Negative axis -3 is axis 1; the batch axis is allowed. */
    axis = -3;
    in[2] = int_value(I64, &ta, &axis);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -2, 5, 6, 2);
    axis = 0;
    in[2] = int_value(I64, &ta, &axis);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 5, 10, 6, 2);
    /* Unknown dft_length: that dim unknown; unknown axis: every dim but the last. */
    in[1] = shp(I64, 0, NULL);
    axis = 2;
    in[2] = int_value(I64, &ta, &axis);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -2, 10, -1, 2);
    in[2] = shp(I64, 1, DIMS(1));
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, -1, -1, 2);
    /* Complex input, inverse. */
    sn_init(&s, EM_OP_DFT, "dft_inverse", 1, 1);
    sn_int(&s, "inverse", 1);
    em_shape cx = shp(F64, 3, DIMS(2, 7, 2));
    infer_ok(&s, &cx, out);
    EXPECT(out[0], F64, 2, 7, 2);
    /* inverse + onesided: the IRFFT, a real output of 2 (n - 1) or dft_length samples. */
    sn_init(&s, EM_OP_DFT, "dft_irfft", 1, 1);
    sn_int(&s, "inverse", 1);
    sn_int(&s, "onesided", 1);
    infer_ok(&s, &cx, out);
    EXPECT(out[0], F64, 2, 12, 1);
    sn_init(&s, EM_OP_DFT, "dft_irfft_len", 2, 1);
    sn_int(&s, "inverse", 1);
    sn_int(&s, "onesided", 1);
    em_shape cx_len[2] = {cx, int_value(I64, &tl, &len)};
    len = 5;
    infer_ok(&s, cx_len, out);
    EXPECT(out[0], F64, 2, 5, 1);
    /* Errors. */
    sn_init(&s, EM_OP_DFT, "dft_inv_onesided", 1, 1);
    sn_int(&s, "inverse", 1);
    sn_int(&s, "onesided", 1);
    infer_err(&s, in);
    sn_init(&s, EM_OP_DFT, "dft_onesided_complex", 1, 1);
    sn_int(&s, "onesided", 1);
    infer_err(&s, &cx);
    sn_init(&s, EM_OP_DFT, "dft_last3", 1, 1);
    em_shape bad = shp(F32, 3, DIMS(2, 7, 3));
    infer_err(&s, &bad);
    sn_init(&s, EM_OP_DFT, "dft_rank1", 1, 1);
    bad = shp(F32, 1, DIMS(7));
    infer_err(&s, &bad);
    em_shape in2[3] = {shp(F32, 3, DIMS(1, 8, 1)), absent(), absent()};
    static const int64_t bad_axes[] = {2, -1, 3, -4};
    for (size_t i = 0; i < sizeof bad_axes / sizeof bad_axes[0]; i++) {
        sn_init(&s, EM_OP_DFT, "dft_bad_axis", 3, 1);
        axis = bad_axes[i];
        in2[2] = int_value(I64, &ta, &axis);
        infer_err(&s, in2);
    }
    sn_init(&s, EM_OP_DFT, "dft_len0", 2, 1);
    len = 0;
    in2[1] = int_value(I64, &tl, &len);
    infer_err(&s, in2);
    sn_init(&s, EM_OP_DFT, "dft_len_float", 2, 1);
    in2[1] = shp(F32, 0, NULL);
    infer_err(&s, in2);
}

static void test_stft(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_tensor ts, tf;
    int64_t step = 8, flen = 16;
    /* test_stft: [1, 128, 1], step 8, frame_length 16, onesided (default). */
    em_shape in[4] = {shp(F32, 3, DIMS(1, 128, 1)), int_value(I64, &ts, &step), absent(),
                      int_value(I64, &tf, &flen)};
    sn_init(&s, EM_OP_STFT, "stft", 4, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 1, 15, 9, 2);
    /* The window's length, not onesided. */
    sn_init(&s, EM_OP_STFT, "stft_window", 3, 1);
    sn_int(&s, "onesided", 0);
    in[2] = shp(F32, 1, DIMS(12));
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 1, 15, 12, 2);
    /* Neither: the whole signal is one frame. */
    sn_init(&s, EM_OP_STFT, "stft_whole", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 1, 1, 65, 2);
    /* Unknown step: frames unknown; symbolic batch kept. */
    sn_init(&s, EM_OP_STFT, "stft_unknown", 4, 1);
    em_shape un[4] = {shp(F32, 3, DIMS(-2, 100, 1)), shp(I32, 0, NULL), absent(),
                      int_value(I64, &tf, &flen)};
    infer_ok(&s, un, out);
    EXPECT(out[0], F32, -2, -1, 9, 2);
    /* Errors. */
    sn_init(&s, EM_OP_STFT, "stft_window_len", 4, 1);
    in[2] = shp(F32, 1, DIMS(12));
    infer_err(&s, in);
    sn_init(&s, EM_OP_STFT, "stft_rank", 2, 1);
    em_shape bad[2] = {shp(F32, 2, DIMS(1, 128)), in[1]};
    infer_err(&s, bad);
    sn_init(&s, EM_OP_STFT, "stft_onesided_complex", 2, 1);
    bad[0] = shp(F32, 3, DIMS(1, 128, 2));
    infer_err(&s, bad);
    sn_init(&s, EM_OP_STFT, "stft_step0", 2, 1);
    step = 0;
    bad[0] = shp(F32, 3, DIMS(1, 128, 1));
    bad[1] = int_value(I64, &ts, &step);
    infer_err(&s, bad);
    sn_init(&s, EM_OP_STFT, "stft_flen_long", 4, 1);
    step = 4;
    flen = 200;
    em_shape lg[4] = {shp(F32, 3, DIMS(1, 128, 1)), int_value(I64, &ts, &step), absent(),
                      int_value(I64, &tf, &flen)};
    infer_err(&s, lg);
}

static void test_mel(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_tensor t0, t1, t2;
    int64_t bins = 8, len = 16, sr = 8192;
    em_shape in[5] = {int_value(I32, &t0, &bins), int_value(I32, &t1, &len), int_value(I32, &t2, &sr),
                      shp(F32, 0, NULL), shp(F32, 0, NULL)};
    sn_init(&s, EM_OP_MELWEIGHTMATRIX, "mel", 5, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 9, 8);
    sn_init(&s, EM_OP_MELWEIGHTMATRIX, "mel_f16", 5, 1);
    sn_int(&s, "output_datatype", F16);
    in[1] = shp(I64, 0, NULL);
    infer_ok(&s, in, out);
    EXPECT(out[0], F16, -1, 8);
    sn_init(&s, EM_OP_MELWEIGHTMATRIX, "mel_sr0", 5, 1);
    sr = 0;
    in[2] = int_value(I64, &t2, &sr);
    infer_err(&s, in);
    sn_init(&s, EM_OP_MELWEIGHTMATRIX, "mel_bins_float", 5, 1);
    in[0] = shp(F32, 0, NULL);
    infer_err(&s, in);
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
