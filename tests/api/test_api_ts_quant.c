/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quantized TorchScript models (issue #19 item 4) through the public API: the fixtures of
 * tests/data/torchscript/quant (tools/gen_ts_quant_fixtures.py), traced and scripted, saved by
 * PyTorch 1.13 (t113) and 2.x (t2), each compared with its own PyTorch's eager output.
 *
 * Statically quantized models (eager PTQ with each engine's qconfig, QAT converted) end in a
 * DeQuantStub: their outputs are multiples of the last layer's output scale, which
 * <name>.<tag>.oscale.npy holds, and the test counts output steps (LSBs): at least 99% of the
 * elements within one step, none further than two (torch's integer requantization and ember's
 * float QDQ round differently where a value falls near a tie). Dynamically quantized models have
 * float outputs: compared within 1e-4 of the output's largest magnitude (the activation is
 * quantized per run the way fbgemm / x86 do; float accumulation order differs).
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/test_ok.h"
#include "common/test_data.h"
#include "common/test_ts.h"

#define data_path(rel) test_data_path("torchscript/quant/", rel)

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        fclose(f);
    }
    return f != NULL;
}

/* Runs archive <name>.<kind>.<tag>.pt on its input and compares with PyTorch's output. */
/* rel: the float outputs' tolerance relative to their largest magnitude; isa: the session's
 * ember_session_options_set_isa_max, or NULL */
static void check_archive_tol(const char *name, const char *kind, const char *tag, int rank,
                              double rel, const char *isa)
{
    char model[160], file[160];
    snprintf(model, sizeof model, "%s.%s.%s.pt", name, kind, tag);
    if (!exists(data_path(model))) {
        return; /* a form this PyTorch version does not have (gen_ts_quant_fixtures.py) */
    }
    ember_model *m = ts_test_load(data_path(model), EMBER_DTYPE_F32, rank);
    ember_tensor *x = NULL, *want = NULL, *y = NULL, *oscale = NULL;
    snprintf(file, sizeof file, "%s.%s.in.npy", name, tag);
    OK(ember_tensor_load(data_path(file), &x));
    snprintf(file, sizeof file, "%s.%s.out.npy", name, tag);
    OK(ember_tensor_load(data_path(file), &want));
    snprintf(file, sizeof file, "%s.%s.oscale.npy", name, tag);
    if (exists(data_path(file))) {
        OK(ember_tensor_load(data_path(file), &oscale));
    }
    ember_session *s = NULL;
    ember_session_options *so = NULL;
    OK(ember_session_options_create(&so));
    if (isa != NULL) {
        OK(ember_session_options_set_isa_max(so, isa));
    }
    OK(ember_session_create(m, so, &s));
    ember_session_options_destroy(so);
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_int_equal(ember_tensor_rank(y), ember_tensor_rank(want));
    for (int d = 0; d < ember_tensor_rank(y); d++) {
        assert_int_equal(ember_tensor_dims(y)[d], ember_tensor_dims(want)[d]);
    }
    const float *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
    int64_t n = ember_tensor_elem_count(want), within = 0;
    double maxref = 0, maxd = 0;
    /* Not fmax(): GCC 12.2's aarch64 vectorizer fails on that reduction (an internal compiler
     * error in vect_transform_reduction). Same result: a NaN is skipped. */
    for (int64_t i = 0; i < n; i++) {
        double r = fabs((double)ref[i]), d = fabs((double)got[i] - ref[i]);
        maxref = r > maxref ? r : maxref;
        maxd = d > maxd ? d : maxd;
    }
    if (oscale != NULL) {
        assert_int_equal(ember_tensor_dtype(oscale), EMBER_DTYPE_F64);
        double step = *(const double *)ember_tensor_data(oscale);
        for (int64_t i = 0; i < n; i++) {
            double lsb = fabs((double)got[i] - ref[i]) / step;
            within += lsb <= 1.0 + 1e-3;
            if (!(lsb <= 2.0 + 1e-3)) {
                fail_msg("%s: element %lld is %.8g, PyTorch gives %.8g (%.1f steps of %g)", model,
                         (long long)i, (double)got[i], (double)ref[i], lsb, step);
            }
        }
        print_message("%s: %lld of %lld elements within 1 LSB (%.2f%%), largest %.0f LSB\n", model,
                      (long long)within, (long long)n, 100.0 * (double)within / (double)n,
                      maxd / step);
        if (within * 100 < n * 99) {
            fail_msg("%s: only %lld of %lld elements within one output step", model,
                     (long long)within, (long long)n);
        }
    } else {
        print_message("%s%s%s: largest difference %.3g (output magnitude %.3g)\n", model,
                      isa != NULL ? ", isa " : "", isa != NULL ? isa : "", maxd, maxref);
        for (int64_t i = 0; i < n; i++) {
            if (!(fabs((double)got[i] - ref[i]) <= rel * maxref + 1e-6)) {
                fail_msg("%s: element %lld is %.8g, PyTorch gives %.8g", model, (long long)i,
                         (double)got[i], (double)ref[i]);
            }
        }
    }
    ember_tensor_destroy(y);
    ember_tensor_destroy(x);
    ember_tensor_destroy(want);
    ember_tensor_destroy(oscale);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void check_all_isa(const char *name, int rank, double rel, const char *isa)
{
    static const char *const kinds[] = {"trace", "script"};
    static const char *const tags[] = {"t113", "t2"};
    for (int k = 0; k < 2; k++) {
        for (int t = 0; t < 2; t++) {
            check_archive_tol(name, kinds[k], tags[t], rank, rel, isa);
        }
    }
}

static void check_all(const char *name, int rank) { check_all_isa(name, rank, 1e-4, NULL); }

/* Eager static PTQ, one engine each: per-channel weights (fbgemm, x86), per-tensor (qnnpack);
 * conv+relu, hardswish, add_relu, add, cat, max / average pooling, linear. */
static void test_static_fbgemm(void **state) { (void)state; check_all("static_fbgemm", 4); }
static void test_static_x86(void **state) { (void)state; check_all("static_x86", 4); }
static void test_static_qnnpack(void **state) { (void)state; check_all("static_qnnpack", 4); }
/* QAT (fused ConvReLU2d trained with fake quantization), converted */
static void test_qat(void **state) { (void)state; check_all("qat", 4); }
/* FX: scales and zero points as buffers (quantize_per_tensor.tensor_qparams) */
static void test_fx(void **state) { (void)state; check_all("fx", 4); }
/* A Conv2dPackedParamsBase attribute pickled with its own state: version 2 (what both PyTorch
 * generations write) and version 3 (packed_conv.v3.t2.pt: the same archive with the state
 * rewritten by gen_ts_quant_fixtures.py, same reference) */
static void test_packed_conv(void **state)
{
    (void)state;
    check_all("packed_conv", 4);
    check_archive_tol("packed_conv", "v3", "t2", 4, 1e-4, NULL);
}
/* quantize_dynamic of an MLP: quantized::linear_dynamic with reduce_range (fbgemm / x86) */
static void test_dyn_mlp(void **state) { (void)state; check_all("dyn_mlp", 2); }

/* quantize_dynamic of a 2-layer LSTM / GRU (CellParamsBase "quantized_dynamic" cells,
 * aten::quantized_lstm / quantized_gru): ember dequantizes the int8 weights and runs the fp32
 * layer with torch's quantization of each Linear's input (the layer input once, h at every
 * step: ts_ops_rnn.c, em_dynamic_qmax), so the outputs agree to float rounding: measured
 * 4.5e-8 (LSTM) and 6e-8 (GRU) of outputs up to 0.53 (without the per-step quantization they
 * were 0.61% and 0.55% off). */
static void test_dyn_lstm(void **state)
{
    (void)state;
    check_all("dyn_lstm", 3);
    check_all_isa("dyn_lstm", 3, 1e-4, "scalar"); /* the reference kernel's form of the same */
}

static void test_dyn_gru(void **state)
{
    (void)state;
    check_all("dyn_gru", 3);
    check_all_isa("dyn_gru", 3, 1e-4, "scalar");
}

/* No ONNX op quantizes an LSTM's h at every step: saving says so, naming the node, and writes
 * nothing. */
static void test_dyn_lstm_no_onnx(void **state)
{
    (void)state;
    const char *path = data_path("dyn_lstm.trace.t2.pt");
    if (!exists(path)) {
        skip();
    }
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, 3));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD));
    ember_status *st = ember_model_load_file(path, mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL && strstr(ember_status_message(st), "this build has no TorchScript") != NULL) {
        ember_status_destroy(st);
        skip();
    }
    OK(st);
    char out[] = "/tmp/ember_dyn_lstm_XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    remove(out);
    EXPECT_ERR(ember_model_save_onnx(m, out), EMBER_ERR_UNSUPPORTED, "LSTM",
               "quantizes its hidden state");
    assert_false(exists(out));
    ember_model_destroy(m);
}

/* Broken quantization fields (tools/gen_ts_quant_fixtures.py bad): one clear error each, naming
 * the module attribute or node. */
static void test_bad(void **state)
{
    (void)state;
    static const struct {
        const char *file, *needle;
        int rank;
    } cases[] = {
        {"weight_scale_zero.pt",
         "quantized tensor 'fc1._packed_params._packed_params.0': scale 0 / zero point 0 out of "
         "range", 2},
        {"weight_scale_negative.pt",
         "quantized tensor 'fc1._packed_params._packed_params.0': scale -0.5 / zero point 0", 2},
        {"weight_scale_nan.pt",
         "quantized tensor 'fc1._packed_params._packed_params.0': scale nan / zero point 0", 2},
        {"weight_zero_point.pt",
         "quantized tensor 'fc1._packed_params._packed_params.0': scale 0.00247409 / zero point "
         "200 out of range", 2},
        {"weight_truncated.pt", "storage 0: the record holds 100 bytes, the storage needs 160", 2},
        {"packed_triple.pt",
         "'fc1._packed_params._packed_params': packed linear weights are not a (weight, bias) "
         "pair", 2},
        {"packed_conv_version.pt", "'p': Conv2dPackedParamsBase state of version 9 (2 and 3 are "
         "supported)", 4},
        {"packed_conv_version_str.pt", "'p': Conv2dPackedParamsBase state of version '7' (2 "
         "and 3 are supported)", 4},
        {"packed_conv_params.pt",
         "'p': Conv2dPackedParamsBase state (version 2) is not (\"2\", [params int16[11], "
         "weight], [bias])", 4},
        {"cell_type.pt",
         "'rnn._all_weight_values.0.param': CellParamsBase of type 'quantized_fp16abx'", 3},
        {"conv_output_scale_zero.pt",
         "quantized::conv2d_relu: node 'conv/conv2d_relu': scale 0 / zero point 0 out of range "
         "for u8", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rel[96];
        snprintf(rel, sizeof rel, "bad/%s", cases[i].file);
        ember_model *m = NULL;
        ember_dtype dt = EMBER_DTYPE_F32;
        ember_status *st = ts_test_try_load(data_path(rel), &dt, &cases[i].rank, 1, &m);
        ember_code want = strstr(cases[i].file, "cell_") != NULL ||
                                  strstr(cases[i].file, "_version") != NULL
                              ? EMBER_ERR_UNSUPPORTED
                              : EMBER_ERR_INVALID_MODEL;
        if (st == NULL || ember_status_code(st) != want ||
            strstr(ember_status_message(st), cases[i].needle) == NULL) {
            fail_msg("%s: expected %s with '%s', got %s", cases[i].file, ember_code_name(want),
                     cases[i].needle, st != NULL ? ember_status_message(st) : "success");
        }
        assert_null(m);
        ember_status_destroy(st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_fbgemm), cmocka_unit_test(test_static_x86),
        cmocka_unit_test(test_static_qnnpack),
        cmocka_unit_test(test_qat), cmocka_unit_test(test_fx), cmocka_unit_test(test_packed_conv), cmocka_unit_test(test_dyn_mlp),
        cmocka_unit_test(test_dyn_lstm), cmocka_unit_test(test_dyn_gru), cmocka_unit_test(test_dyn_lstm_no_onnx),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
