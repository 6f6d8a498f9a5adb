/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The quantizer through ember.h (section 9b) on small fixtures: tests/data/onnx/cnn_v13.onnx
 * (Conv, BatchNormalization, Relu, MaxPool, GlobalAveragePool, Flatten, Gemm) and
 * tests/data/quant/matmul.onnx (MatMul, Add, Relu, MatMul; tools/gen_quant_fixtures.py).
 * Calibration batches are random N(0, 1) tensors made here. Checked on real outputs: each
 * quantized model against the fp32 model on fresh inputs (SQNR in dB: above 20 dB for static,
 * whose fresh inputs may clip, above 30 dB for dynamic and weight-only), and the graph's structure through ember_model_node_op (QuantizeLinear /
 * DequantizeLinear / DynamicQuantizeLinear / MatMulInteger counts); the calibration cache
 * reproduces the same file byte for byte; an excluded op stays fp32; bad input (no
 * calibration, wrong count or shape, NaN, an exclude matching nothing, a method this build
 * lacks, a malformed cache) gives the documented errors.
 */
#include "ember.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"
#include "common/test_model.h"

static char g_cnn[1024], g_mm[1024], g_badw[1024], g_badw_exp[1024];

static int setup(void **state)
{
    (void)state;
    const char *d = getenv("EMBER_TEST_DATA");
    snprintf(g_cnn, sizeof g_cnn, "%s/onnx/cnn_v13.onnx", d != NULL ? d : "tests/data");
    snprintf(g_mm, sizeof g_mm, "%s/quant/matmul.onnx", d != NULL ? d : "tests/data");
    snprintf(g_badw, sizeof g_badw, "%s/quant/badw.onnx", d != NULL ? d : "tests/data");
    snprintf(g_badw_exp, sizeof g_badw_exp, "%s/quant/badw_expected.txt",
             d != NULL ? d : "tests/data");
    return 0;
}

/* Every model here is ONNX: a build without the ONNX loader skips the tests. */
static void need_onnx(void)
{
    if (strstr(ember_build_info(), ",onnx") == NULL) {
        skip();
    }
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static float randn(void)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
        u[k] = ((double)(g_rng >> 11) + 0.5) / 9007199254740992.0;
    }
    return (float)(sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]));
}

static ember_tensor *rand_tensor(const int64_t *dims, int rank)
{
    ember_tensor *t = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, rank, &t));
    float *p = ember_tensor_data(t);
    for (int64_t i = 0; i < ember_tensor_elem_count(t); i++) {
        p[i] = randn();
    }
    return t;
}

static const int64_t cnn_dims[4] = {2, 3, 8, 8};
static const int64_t mm_dims[2] = {4, 16};

/* entropy_bins >= 0: ember_quantize_options_set_entropy(entropy_bins, entropy_levels). */
static ember_quantizer *make_entropy(const char *path, ember_quant_mode mode, const char *exclude,
                                     ember_calib_method method, int n_batches,
                                     const int64_t *dims, int rank, int64_t entropy_bins,
                                     int entropy_levels)
{
    ember_quantize_options *o = NULL;
    OK(ember_quantize_options_create(&o));
    OK(ember_quantize_options_set_mode(o, mode));
    OK(ember_quantize_options_set_method(o, method, 99.9));
    if (entropy_bins >= 0) {
        OK(ember_quantize_options_set_entropy(o, entropy_bins, entropy_levels));
    }
    if (exclude != NULL) {
        OK(ember_quantize_options_add_exclude(o, exclude));
    }
    ember_quantizer *q = NULL;
    OK(ember_quantizer_create(path, NULL, o, &q));
    ember_quantize_options_destroy(o);
    for (int b = 0; b < n_batches; b++) {
        ember_tensor *x = rand_tensor(dims, rank);
        OK(ember_quantizer_add_batch(q, &x, 1));
        ember_tensor_destroy(x);
    }
    assert_int_equal(ember_quantizer_batch_count(q), (size_t)n_batches);
    return q;
}

static ember_quantizer *make_with(const char *path, ember_quant_mode mode, const char *exclude,
                                  ember_calib_method method, int n_batches, const int64_t *dims,
                                  int rank)
{
    return make_entropy(path, mode, exclude, method, n_batches, dims, rank, -1, 0);
}

static ember_quantizer *make(const char *path, ember_quant_mode mode, const char *exclude,
                             int n_batches, const int64_t *dims, int rank)
{
    return make_with(path, mode, exclude, EMBER_CALIB_MINMAX, n_batches, dims, rank);
}

/* SQNR in dB of `q` against the fp32 model at `path` on 8 fresh inputs. */
static double sqnr(const char *path, const ember_model *q, const int64_t *dims, int rank)
{
    ember_model *f = NULL;
    OK(ember_model_load_file(path, NULL, &f));
    ember_session *sf = NULL, *sq = NULL;
    OK(ember_session_create(f, NULL, &sf));
    OK(ember_session_create(q, NULL, &sq));
    double sig = 0, noise = 0;
    for (int b = 0; b < 8; b++) {
        ember_tensor *x = rand_tensor(dims, rank), *yf = NULL, *yq = NULL;
        OK(ember_session_run(sf, &x, 1, &yf, 1));
        OK(ember_session_run(sq, &x, 1, &yq, 1));
        assert_int_equal(ember_tensor_elem_count(yf), ember_tensor_elem_count(yq));
        const float *a = ember_tensor_data(yf), *c = ember_tensor_data(yq);
        for (int64_t i = 0; i < ember_tensor_elem_count(yf); i++) {
            sig += (double)a[i] * a[i];
            noise += ((double)a[i] - c[i]) * ((double)a[i] - c[i]);
        }
        ember_tensor_destroy(x);
        ember_tensor_destroy(yf);
        ember_tensor_destroy(yq);
    }
    ember_session_destroy(sf);
    ember_session_destroy(sq);
    ember_model_destroy(f);
    return 10.0 * log10(sig / noise);
}

/* Static: Q/DQ pairs, int8 weights; on fresh inputs (which may fall outside the calibrated
 * ranges and clip) the output SQNR against fp32 is above 20 dB both as the QDQ graph in fp32
 * and with the int8 rewrite on (measured: about 26-28 dB with 32 batches; on the calibration
 * inputs themselves the CLI test asks for 30 dB). */
static void test_static_cnn(void **state)
{
    (void)state;
    need_onnx();
    ember_quantizer *q = make(g_cnn, EMBER_QUANT_STATIC, NULL, 32, cnn_dims, 4);
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_int8(mo, EMBER_INT8_OFF));
    ember_model *m_off = NULL, *m_on = NULL;
    OK(ember_quantizer_load_model(q, mo, &m_off));
    OK(ember_quantizer_load_model(q, NULL, &m_on));
    /* Q on x, the conv output, the maxpool output, gap, Flatten's output (sharing gap's
     * parameters, as ORT's quantize_output_same_as_input) and logits */
    assert_int_equal(tm_count_op(m_off, "QuantizeLinear"), 6);
    double db_off = sqnr(g_cnn, m_off, cnn_dims, 4), db_on = sqnr(g_cnn, m_on, cnn_dims, 4);
    print_message("cnn_v13 static: SQNR %.2f dB (QDQ in fp32), %.2f dB (int8 rewrite on)\n",
                  db_off, db_on);
    assert_true(db_off > 20.0);
    assert_true(db_on > 20.0);
    char *text = NULL;
    OK(ember_quantizer_report(q, true, &text));
    assert_non_null(strstr(text, "output logits: SQNR"));
    /* the BatchNormalization after the Conv is folded into it first (ORT's quant_pre_process
     * does), so the Relu after them folds into the conv's Q/DQ and nothing stays fp32 */
    assert_non_null(strstr(text, "6 of 6 nodes quantized (1 Relu / Clip folded"));
    assert_null(strstr(text, "fp32:"));
    assert_int_equal(tm_count_op(m_off, "BatchNormalization"), 0);
    ember_string_free(text);
    ember_model_destroy(m_off);
    ember_model_destroy(m_on);
    ember_model_options_destroy(mo);
    ember_quantizer_destroy(q);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    b[len] = '\0'; /* test_methods compares the texts as strings */
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* The cache gives the same file as the calibration it was saved from. */
static void test_cache_round_trip(void **state)
{
    (void)state;
    need_onnx();
    char cache[64], f1[64], f2[64];
    snprintf(cache, sizeof cache, "quant_cache_%d.txt", (int)(g_rng & 0xffff));
    snprintf(f1, sizeof f1, "quant_a_%d.onnx", (int)(g_rng & 0xffff));
    snprintf(f2, sizeof f2, "quant_b_%d.onnx", (int)(g_rng & 0xffff));
    ember_quantizer *q = make(g_cnn, EMBER_QUANT_STATIC, NULL, 3, cnn_dims, 4);
    OK(ember_quantizer_save_calibration(q, cache));
    OK(ember_quantizer_save_onnx(q, f1));
    ember_quantizer_destroy(q);
    ember_quantizer *q2 = make(g_cnn, EMBER_QUANT_STATIC, NULL, 0, cnn_dims, 4);
    OK(ember_quantizer_load_calibration(q2, cache));
    OK(ember_quantizer_save_onnx(q2, f2));
    ember_quantizer_destroy(q2);
    size_t n1, n2;
    char *a = slurp(f1, &n1), *b = slurp(f2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    free(a);
    free(b);
    /* a malformed cache names its line */
    FILE *f = fopen(cache, "w");
    fputs("ember-calibration 1 minmax\nrange 0x1p+0 nonsense x\n", f);
    fclose(f);
    ember_quantizer *q3 = make(g_cnn, EMBER_QUANT_STATIC, NULL, 0, cnn_dims, 4);
    EXPECT_ERR(ember_quantizer_load_calibration(q3, cache), EMBER_ERR_INVALID_MODEL, ":2: bad range");
    f = fopen(cache, "w");
    fputs("something else\n", f);
    fclose(f);
    EXPECT_ERR(ember_quantizer_load_calibration(q3, cache), EMBER_ERR_INVALID_MODEL,
               "not an ember calibration file");
    ember_quantizer_destroy(q3);
    remove(cache);
    remove(f1);
    remove(f2);
}

/* An excluded op type stays fp32: its output (the logits) gets no Q/DQ. */
static void test_exclude(void **state)
{
    (void)state;
    need_onnx();
    ember_quantizer *a = make(g_cnn, EMBER_QUANT_STATIC, NULL, 2, cnn_dims, 4);
    ember_quantizer *b = make(g_cnn, EMBER_QUANT_STATIC, "Gemm", 2, cnn_dims, 4);
    ember_model *ma = NULL, *mb = NULL;
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_int8(mo, EMBER_INT8_OFF));
    OK(ember_quantizer_load_model(a, mo, &ma));
    OK(ember_quantizer_load_model(b, mo, &mb));
    ember_model_options_destroy(mo);
    assert_int_equal(tm_count_op(mb, "QuantizeLinear") + 1, tm_count_op(ma, "QuantizeLinear"));
    char *text = NULL;
    OK(ember_quantizer_report(b, false, &text));
    assert_non_null(strstr(text, "fp32: Gemm node 'fc': excluded"));
    ember_string_free(text);
    assert_true(sqnr(g_cnn, mb, cnn_dims, 4) > 20.0);
    ember_model_destroy(ma);
    ember_model_destroy(mb);
    ember_quantizer_destroy(a);
    ember_quantizer_destroy(b);
}

/* Dynamic: each MatMul (and a Gemm) becomes DynamicQuantizeLinear + MatMulInteger; weight-only:
 * int8 weights and DequantizeLinear, no QuantizeLinear. Both above 30 dB against fp32. */
static void test_dynamic_and_weight_only(void **state)
{
    (void)state;
    need_onnx();
    ember_quantizer *d = make(g_mm, EMBER_QUANT_DYNAMIC, NULL, 0, mm_dims, 2);
    ember_quantizer *w = make(g_mm, EMBER_QUANT_WEIGHT_ONLY, NULL, 0, mm_dims, 2);
    ember_model *md = NULL, *mw = NULL;
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD));
    OK(ember_quantizer_load_model(d, mo, &md));
    OK(ember_quantizer_load_model(w, mo, &mw));
    assert_int_equal(tm_count_op(md, "DynamicQuantizeLinear"), 2);
    assert_int_equal(tm_count_op(md, "MatMulInteger"), 2);
    assert_int_equal(tm_count_op(md, "MatMul"), 0);
    assert_int_equal(tm_count_op(mw, "QuantizeLinear"), 0);
    assert_int_equal(tm_count_op(mw, "MatMul"), 2);
    double dd = sqnr(g_mm, md, mm_dims, 2), dw = sqnr(g_mm, mw, mm_dims, 2);
    print_message("matmul: dynamic %.2f dB, weight-only %.2f dB\n", dd, dw);
    assert_true(dd > 30.0);
    assert_true(dw > 30.0);
    /* cnn_v13's Gemm (transB = 1, a bias): ORT's quantize_dynamic leaves Gemm in fp32; ember
     * writes it as MatMulInteger on the transposed int8 weight, then adds C */
    ember_quantizer *dg = make(g_cnn, EMBER_QUANT_DYNAMIC, NULL, 0, cnn_dims, 4);
    ember_model *mdg = NULL;
    OK(ember_quantizer_load_model(dg, mo, &mdg));
    assert_int_equal(tm_count_op(mdg, "MatMulInteger"), 1);
    assert_int_equal(tm_count_op(mdg, "Gemm"), 0);
    double dg_db = sqnr(g_cnn, mdg, cnn_dims, 4);
    print_message("cnn_v13 dynamic (Gemm): %.2f dB\n", dg_db);
    assert_true(dg_db > 30.0);
    ember_model_destroy(mdg);
    ember_quantizer_destroy(dg);
    ember_tensor *x = rand_tensor(mm_dims, 2);
    EXPECT_ERR(ember_quantizer_add_batch(d, &x, 1), EMBER_ERR_INVALID_ARG, "only static mode");
    ember_tensor_destroy(x);
    ember_model_destroy(md);
    ember_model_destroy(mw);
    ember_model_options_destroy(mo);
    ember_quantizer_destroy(d);
    ember_quantizer_destroy(w);
}

/* The histogram methods: each gives a usable model (SQNR above 15 dB on fresh inputs, where
 * MinMax gives ~27). Percentile, MSE and entropy searched on the histogram as it grew with 256
 * levels (TensorRT's scale) calibrate ranges that differ from MinMax's on the same batches (the
 * cache files differ past their first line, which names the method); entropy with ORT's
 * defaults (128 bins, 128 levels: one window) calibrates exactly MinMax's. */
static void test_methods(void **state)
{
    (void)state;
    need_onnx();
    static const struct {
        ember_calib_method m;
        int64_t bins;
        int levels;
    } cfg[] = {{EMBER_CALIB_MINMAX, -1, 0},   {EMBER_CALIB_PERCENTILE, -1, 0},
               {EMBER_CALIB_ENTROPY, -1, 0},  {EMBER_CALIB_ENTROPY, 0, 256},
               {EMBER_CALIB_ENTROPY, 512, 128}, {EMBER_CALIB_MSE, -1, 0}};
    enum { N = sizeof cfg / sizeof cfg[0] };
    char *text[N];
    const uint64_t seed = g_rng;
    for (int i = 0; i < N; i++) {
        char cache[64];
        snprintf(cache, sizeof cache, "quant_method_%d_%d.txt", i, (int)(seed & 0xffff));
        g_rng = seed; /* the same batches for every method (and fresh inputs after them) */
        ember_quantizer *q = make_entropy(g_cnn, EMBER_QUANT_STATIC, NULL, cfg[i].m, 12, cnn_dims,
                                          4, cfg[i].bins, cfg[i].levels);
        OK(ember_quantizer_save_calibration(q, cache));
        size_t n;
        text[i] = slurp(cache, &n);
        remove(cache);
        ember_model *m = NULL;
        OK(ember_quantizer_load_model(q, NULL, &m));
        double db = sqnr(g_cnn, m, cnn_dims, 4);
        print_message("cnn_v13 method %d (entropy bins %lld, levels %d): SQNR %.2f dB\n",
                      (int)cfg[i].m, (long long)cfg[i].bins, cfg[i].levels, db);
        assert_true(db > 15.0);
        ember_model_destroy(m);
        ember_quantizer_destroy(q);
    }
    const char *body0 = strchr(text[0], '\n');
    for (int i = 1; i < N; i++) {
        const char *body = strchr(text[i], '\n');
        assert_non_null(body);
        bool same = strcmp(body, body0) == 0;
        if (cfg[i].m == EMBER_CALIB_ENTROPY && cfg[i].bins < 0) {
            if (!same) {
                fail_msg("entropy with ORT's defaults calibrated other ranges than MinMax");
            }
        } else if (same) {
            fail_msg("config %d calibrated the same ranges as MinMax", i);
        }
    }
    for (int i = 0; i < N; i++) {
        free(text[i]);
    }
    ember_quantize_options *o = NULL;
    OK(ember_quantize_options_create(&o));
    EXPECT_ERR(ember_quantize_options_set_entropy(o, 1, 128), EMBER_ERR_INVALID_ARG,
               "1 bins is not 0 or in [2, 2097152]");
    EXPECT_ERR(ember_quantize_options_set_entropy(o, (int64_t)1 << 22, 128),
               EMBER_ERR_INVALID_ARG, "4194304 bins");
    EXPECT_ERR(ember_quantize_options_set_entropy(o, 128, 1), EMBER_ERR_INVALID_ARG,
               "1 levels is not in [2, 65536]");
    ember_quantize_options_destroy(o);
}

static void test_errors(void **state)
{
    (void)state;
    need_onnx();
    ember_quantize_options *o = NULL;
    OK(ember_quantize_options_create(&o));
    ember_quantizer *q = NULL;
    OK(ember_quantize_options_add_exclude(o, "NoSuchOp"));
    EXPECT_ERR(ember_quantizer_create(g_cnn, NULL, o, &q), EMBER_ERR_INVALID_ARG,
               "'NoSuchOp' matches no node");
    assert_null(q);
    ember_quantize_options_destroy(o);
    OK(ember_quantize_options_create(&o));
    EXPECT_ERR(ember_quantize_options_set_method(o, EMBER_CALIB_PERCENTILE, 0.0),
               EMBER_ERR_INVALID_ARG, "percentile 0");
    EXPECT_ERR(ember_quantize_options_set_activation_type(o, EMBER_DTYPE_I32),
               EMBER_ERR_INVALID_ARG, "neither EMBER_DTYPE_U8 nor EMBER_DTYPE_I8");
    ember_quantize_options_destroy(o);

    q = make(g_cnn, EMBER_QUANT_STATIC, NULL, 0, cnn_dims, 4);
    EXPECT_ERR(ember_quantizer_save_onnx(q, "never_written.onnx"), EMBER_ERR_STATE,
               "no calibration range for tensor 'x'", "no batch was added");
    ember_tensor *x = rand_tensor(cnn_dims, 4);
    EXPECT_ERR(ember_quantizer_add_batch(q, &x, 2), EMBER_ERR_INVALID_ARG, "2 inputs given");
    float *p = ember_tensor_data(x);
    p[17] = NAN;
    EXPECT_ERR(ember_quantizer_add_batch(q, &x, 1), EMBER_ERR_INVALID_MODEL,
               "tensor 'x' (output of graph input node 'x') holds NaN or Inf");
    ember_tensor_destroy(x);
    const int64_t bad[4] = {2, 3, 9, 8};
    x = rand_tensor(bad, 4);
    EXPECT_ERR(ember_quantizer_add_batch(q, &x, 1), EMBER_ERR_INVALID_ARG, "input 0 'x'");
    ember_tensor_destroy(x);
    assert_int_equal(ember_quantizer_batch_count(q), 0);
    x = rand_tensor(cnn_dims, 4);
    OK(ember_quantizer_add_batch(q, &x, 1));
    EXPECT_ERR(ember_quantizer_save_onnx(q, "/nonexistent-dir/q.onnx"), EMBER_ERR_IO,
               "/nonexistent-dir/q.onnx");
    ember_tensor_destroy(x);
    ember_quantizer_destroy(q);
}


/* The number after `key` on the report line that starts with `line` (NAN when absent). */
static double report_value(const char *text, const char *line, const char *key)
{
    const char *l = strstr(text, line);
    if (l == NULL) {
        return NAN;
    }
    const char *end = strchr(l, '\n');
    const char *k = strstr(l, key);
    double v = NAN;
    if (k == NULL || (end != NULL && k > end) || sscanf(k + strlen(key), "%lf", &v) != 1) {
        return NAN;
    }
    return v;
}

/* The report on tests/data/quant/badw.onnx (tools/gen_quant_report_fixture.py): conv2's
 * weights are badly quantizable (one weight of 1 per output channel, the other 287 below half a
 * step, so they round to 0). Each weight's own SQNR equals numpy's round trip of the same
 * per-channel quantization (badw_expected.txt, within 0.01 dB); conv2's tensor has the lowest
 * SQNR alone (its weight) and the largest drop of the accumulated SQNR, which falls by more
 * than 6 dB from conv1's tensor to conv2's (measured 39.9 -> 27.3 dB); the graph input's
 * accumulated SQNR is its own round trip, and the last tensor's is the model output's. */
static void test_report_per_node(void **state)
{
    (void)state;
    need_onnx();
    static const int64_t dims[4] = {1, 3, 8, 8};
    ember_quantizer *q = make(g_badw, EMBER_QUANT_STATIC, NULL, 8, dims, 4);
    char *text = NULL;
    OK(ember_quantizer_report(q, true, &text));
    fputs(text, stderr);
    FILE *f = fopen(g_badw_exp, "r");
    assert_non_null(f);
    char name[16];
    double want;
    int n = 0;
    while (fscanf(f, "%15s %lf", name, &want) == 2) {
        char key[64];
        snprintf(key, sizeof key, "weight %s (", name);
        const char *w = strstr(text, key);
        assert_non_null(w);
        const char *db = strstr(w, ") ");
        assert_non_null(db);
        double got = strtod(db + 2, NULL);
        print_message("weight %s: %.4f dB, numpy %.4f dB\n", name, got, want);
        assert_true(fabs(got - want) < 0.01);
        n++;
    }
    fclose(f);
    assert_int_equal(n, 3);
    double w1 = report_value(text, "  tensor r1 ", "weight w1 (Conv conv1) ");
    double w2 = report_value(text, "  tensor r2 ", "weight w2 (Conv conv2) ");
    assert_true(w2 < 30.0 && w1 > 40.0);
    double acc_x = report_value(text, "  tensor x ", "accumulated ");
    double own_x = report_value(text, "  tensor x ", "SQNR alone: output ");
    double acc_r1 = report_value(text, "  tensor r1 ", "accumulated ");
    double acc_r2 = report_value(text, "  tensor r2 ", "accumulated ");
    double acc_out = report_value(text, "  tensor logits ", "accumulated ");
    double out = report_value(text, "output logits: ", "SQNR ");
    assert_false(isnan(acc_x) || isnan(own_x) || isnan(acc_r1) || isnan(acc_r2) ||
                 isnan(acc_out) || isnan(out));
    assert_true(fabs(acc_x - own_x) < 0.005);
    assert_true(acc_r1 > 30.0);
    assert_true(acc_r2 < acc_r1 - 6.0);
    assert_true(acc_r2 < w2 + 1.0); /* the weight's loss reaches the tensor */
    assert_true(fabs(acc_out - out) < 0.005);
    assert_non_null(strstr(text, "lowest SQNR alone: "));
    assert_non_null(strstr(strstr(text, "lowest SQNR alone: "), "tensor r2 (Relu relu2)"));
    const char *dl = strstr(text, "largest SQNR drop: tensor r2 (Relu relu2)");
    assert_non_null(dl);
    double fall = NAN;
    assert_non_null(strstr(dl, " dB, "));
    fall = strtod(strstr(dl, " dB, ") + 5, NULL);
    assert_true(fabs(fall - (acc_r1 - acc_r2)) < 0.02);
    assert_non_null(strstr(dl, "below its input r1\n"));
    ember_string_free(text);
    ember_quantizer_destroy(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_cnn),
        cmocka_unit_test(test_cache_round_trip),
        cmocka_unit_test(test_exclude),
        cmocka_unit_test(test_dynamic_and_weight_only),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_report_per_node),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
