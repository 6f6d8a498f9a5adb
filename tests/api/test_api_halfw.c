/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Weights held in half precision (issue #21: ember_model_options_set_precision, `ember run
 * --precision fp16|bf16`) through ember.h, on tools/gen_halfw_fixtures.py's fixtures
 * (tests/data/half/halfw*.onnx): an fp32 net with Conv (plain, depthwise, 1x1, one under the
 * 1024-element floor), MatMul and Gemm weights.
 *  - Exact oracle: at EMBER_GRAPH_OPT_FOLD (no Conv+BN folding, so the rounded weights are the
 *    file's), the fp16 / bf16 run equals bit for bit the fp32 run of halfw.w16 / halfw.wbf16,
 *    the file with those weights rounded in numpy: the weights are rounded once, widened
 *    exactly, packed, and the arithmetic is the fp32 path's. It holds with the x86 kernels
 *    (which pack and let the planner free the widened copy) and under EMBER_ISA_MAX scalar
 *    (reference kernels: the copy is kept), on two sessions of one model and two input
 *    shapes, and the output differs from the unrounded model's (the rounding took place).
 *  - At the default level (weights rounded after folding): within the accuracy target
 *    of the fp32 output, rtol 1e-2 (fp16) / 3e-2 (bf16) with atol 1% of the output's largest
 *    magnitude, argmax equal.
 *  - ember_model_weight_bytes: the packed weights of >= 1024 elements in half, the rest f32.
 *  - Dropped once packed: with the x86 kernels, a conv weight's half bytes are dropped once its
 *    readers packed it (oneDNN's / convh's packs give it back); the GEMM's are kept (its packs
 *    do not); a second session shares the packs (the model's pack bytes do not grow); a new
 *    input shape, a session of reference kernels (which read the weight itself, widened from
 *    the packs), ember_trainer_create and ember_model_save_onnx (the bytes come back, equal to
 *    a model that kept them) all work, every output bit for bit a never-dropping model's.
 *  - Arguments: NULL options, INT8 and values outside the enum refused; a session asking for
 *    fp16 / bf16 on a model holding other weights is UNSUPPORTED naming the precision; a
 *    model with no weight to hold in half (cnn_v13: all under the floor) runs unchanged.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "ember.h"

#include "common/test_alloc.h"
#include "api/api_internal.h"
#include "core/cpu.h"
#include "ir/graph.h"

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

/* f32 weights held in half by the fixture: Conv 16->32 3x3, Conv 32->64 1x1, MatMul 64x64,
 * Gemm 10x256 (tools/gen_halfw_fixtures.py prints their names). */
#define HELD_ELEMS (4608 + 2048 + 4096 + 2560)

static const char *data_path(const char *rel, char *buf, size_t cap)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/%s", root ? root : "tests/data", rel);
    return buf;
}

static ember_status *try_load(const char *rel, ember_graph_opt level, ember_precision p,
                              ember_model **m)
{
    char path[4096];
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, test_allocator());
    OK(ember_model_options_set_graph_optimization(mo, level));
    OK(ember_model_options_set_precision(mo, p));
    ember_status *st = ember_model_load_file(data_path(rel, path, sizeof path), mo, m);
    ember_model_options_destroy(mo);
    return st;
}

static ember_model *load(const char *rel, ember_graph_opt level, ember_precision p)
{
    ember_model *m = NULL;
    ember_status *st = try_load(rel, level, p, &m);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED) {
        print_message("skipped %s: %s\n", rel, ember_status_message(st));
        ember_status_destroy(st);
        return NULL; /* no ONNX loader in this build */
    }
    OK(st);
    return m;
}

static ember_tensor *load_npy(const char *rel)
{
    char path[4096];
    ember_tensor *t = NULL;
    OK(ember_tensor_load_npy(data_path(rel, path, sizeof path), &t));
    return t;
}

/* The input's first `batch` items (batch 1 or 2). */
static ember_tensor *input(int batch)
{
    ember_tensor *t = load_npy("half/halfw.in0.npy"), *x = NULL;
    int64_t dims[4];
    memcpy(dims, ember_tensor_dims(t), sizeof dims);
    dims[0] = batch;
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 4, &x));
    memcpy(ember_tensor_data(x), ember_tensor_data(t), ember_tensor_nbytes(x));
    ember_tensor_destroy(t);
    return x;
}

/* One run of m on x, precision p, ISA cap `isa` (NULL: native). */
static ember_tensor *run(const ember_model *m, ember_precision p, const char *isa, ember_tensor *x)
{
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    ember_tensor *y = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 2);
    ember_session_options_set_precision(so, p);
    if (isa != NULL) {
        OK(ember_session_options_set_isa_max(so, isa));
    }
    OK(ember_session_create(m, so, &s));
    OK(ember_session_run(s, &x, 1, &y, 1));
    ember_session_destroy(s);
    ember_session_options_destroy(so);
    return y;
}

static void assert_same(ember_tensor *a, ember_tensor *b)
{
    assert_int_equal(ember_tensor_nbytes(a), ember_tensor_nbytes(b));
    assert_memory_equal(ember_tensor_data(a), ember_tensor_data(b), ember_tensor_nbytes(a));
}

static void exact(ember_precision p, const char *rounded)
{
    ember_model *m = load("half/halfw.onnx", EMBER_GRAPH_OPT_FOLD, p);
    if (m == NULL) {
        return;
    }
    ember_model *r = load(rounded, EMBER_GRAPH_OPT_FOLD, EMBER_PRECISION_FP32);
    ember_model *f = load("half/halfw.onnx", EMBER_GRAPH_OPT_FOLD, EMBER_PRECISION_FP32);
    ember_dtype half = p == EMBER_PRECISION_FP16 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
    assert_int_equal(ember_model_weight_bytes(m, half), 2 * HELD_ELEMS);
    assert_int_equal(ember_model_weight_bytes(m, EMBER_DTYPE_F32) + 4 * HELD_ELEMS,
                     ember_model_weight_bytes(f, EMBER_DTYPE_F32));
    assert_int_equal(ember_model_weight_bytes(r, half), 0);
    static const char *const isas[] = {NULL, "scalar"};
    for (int k = 0; k < 2; k++) {
        for (int batch = 1; batch <= 2; batch++) {
            ember_tensor *x = input(batch);
            ember_tensor *y = run(m, p, isas[k], x), *y2 = run(m, p, isas[k], x);
            ember_tensor *want = run(r, EMBER_PRECISION_FP32, isas[k], x);
            ember_tensor *y32 = run(f, EMBER_PRECISION_FP32, isas[k], x);
            assert_same(y, want);
            assert_same(y2, want); /* a second session: its own widening and packs */
            assert_memory_not_equal(ember_tensor_data(y), ember_tensor_data(y32),
                                    ember_tensor_nbytes(y));
            ember_tensor_destroy(y);
            ember_tensor_destroy(y2);
            ember_tensor_destroy(want);
            ember_tensor_destroy(y32);
            ember_tensor_destroy(x);
        }
    }
    ember_model_destroy(m);
    ember_model_destroy(r);
    ember_model_destroy(f);
}

static void test_fp16_exact(void **state)
{
    (void)state;
    exact(EMBER_PRECISION_FP16, "half/halfw.w16.onnx");
}

static void test_bf16_exact(void **state)
{
    (void)state;
    exact(EMBER_PRECISION_BF16, "half/halfw.wbf16.onnx");
}

/* The default passes (Conv+BN folded first, then rounded): the accuracy target. */
static void close_to_fp32(ember_precision p, double rtol)
{
    ember_model *m = load("half/halfw.onnx", EMBER_GRAPH_OPT_ALL, p);
    if (m == NULL) {
        return;
    }
    ember_model *f = load("half/halfw.onnx", EMBER_GRAPH_OPT_ALL, EMBER_PRECISION_FP32);
    ember_dtype half = p == EMBER_PRECISION_FP16 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
    assert_int_equal(ember_model_weight_bytes(m, half), 2 * HELD_ELEMS);
    ember_tensor *x = input(2);
    ember_tensor *y = run(m, p, NULL, x), *y32 = run(f, EMBER_PRECISION_FP32, NULL, x);
    const float *a = ember_tensor_data(y), *b = ember_tensor_data(y32);
    size_t n = ember_tensor_nbytes(y) / sizeof(float), cls = 10;
    double amax = 0, worst = 0;
    for (size_t i = 0; i < n; i++) { /* branches, not fmax: aarch64 gcc 12's vectorizer
                                       * crashed on these loops */
        double v = fabs(b[i]);
        if (v > amax) {
            amax = v;
        }
    }
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)a[i] - b[i]), tol = 0.01 * amax + rtol * fabs(b[i]);
        if (err > worst) {
            worst = err;
        }
        if (err > tol) {
            fail_msg("element %zu: %g against fp32 %g (tolerance %g)", i, a[i], b[i], tol);
        }
    }
    for (size_t r = 0; r < n / cls; r++) {
        size_t ia = 0, ib = 0;
        for (size_t c = 1; c < cls; c++) {
            ia = a[r * cls + c] > a[r * cls + ia] ? c : ia;
            ib = b[r * cls + c] > b[r * cls + ib] ? c : ib;
        }
        assert_int_equal(ia, ib);
    }
    worst /= amax;
    assert_true(worst > 0); /* rounded */
    print_message("max |error| / max |fp32| = %.3g\n", worst);
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ember_tensor_destroy(y32);
    ember_model_destroy(m);
    ember_model_destroy(f);
}

static void test_fp16_close(void **state)
{
    (void)state;
    close_to_fp32(EMBER_PRECISION_FP16, 1e-2);
}

static void test_bf16_close(void **state)
{
    (void)state;
    close_to_fp32(EMBER_PRECISION_BF16, 3e-2);
}

static const em_value *value_of(const ember_model *m, const char *name)
{
    int v = em_graph_find_value(m->g, name);
    assert_true(v >= 0);
    return &m->g->values[v];
}

/* One session's two runs of m: batch 1 with isa, then batch 2; compared with model r's. */
static void same_runs(const ember_model *m, const ember_model *r, ember_precision p,
                      const char *isa)
{
    for (int batch = 1; batch <= 2; batch++) {
        ember_tensor *x = input(batch);
        ember_tensor *y = run(m, p, isa, x), *want = run(r, p, isa, x);
        assert_same(y, want);
        ember_tensor_destroy(y);
        ember_tensor_destroy(want);
        ember_tensor_destroy(x);
    }
}

static void drop_and_give_back(ember_precision p)
{
    /* FOLD: savable (ALL's blocked layout has no ONNX form); its plain convs run on oneDNN */
    ember_model *m = load("half/halfw.onnx", EMBER_GRAPH_OPT_FOLD, p);
    if (m == NULL) {
        return;
    }
    ember_model *r = load("half/halfw.onnx", EMBER_GRAPH_OPT_FOLD, p);
    r->drop_half = false; /* the oracle keeps its half bytes */
    const char *conv = "onnx::Conv_52", *mm = "onnx::MatMul_56";
    /* the plain convs' packs give their weights back with oneDNN's conv (builds without it
     * run them on kernels that keep the weight: nothing dropped, the rest holds the same) */
    const char *be = strstr(ember_build_info(), "backends=");
    bool x86 = getenv("EMBER_ISA_MAX") == NULL && be != NULL && strstr(be, ",onednn") != NULL &&
               (em_cpu_features() & EM_ISA_AVX2_SET) == EM_ISA_AVX2_SET;
    /* a first session: the conv weights go once packed, the GEMM's stay */
    ember_session_options *so = NULL;
    ember_session *s1 = NULL, *s2 = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 2);
    ember_session_options_set_precision(so, p);
    OK(ember_session_create(m, so, &s1));
    ember_tensor *x = input(1), *y1 = NULL, *y2 = NULL;
    OK(ember_session_run(s1, &x, 1, &y1, 1));
    if (x86) {
        assert_null(value_of(m, conv)->init.data);
        assert_null(value_of(m, "pw.weight")->init.data);
        assert_non_null(value_of(m, mm)->init.data);
    }
    assert_non_null(value_of(r, conv)->init.data);
    size_t packed = em_pack_cache_bytes(m->packs, NULL);
    OK(ember_session_create(m, so, &s2)); /* a second session shares the packs */
    OK(ember_session_run(s2, &x, 1, &y2, 1));
    assert_same(y1, y2);
    assert_int_equal(em_pack_cache_bytes(m->packs, NULL), packed);
    ember_tensor *want = run(r, p, NULL, x);
    assert_same(y1, want);
    ember_tensor_destroy(want);
    ember_tensor_destroy(y1);
    ember_tensor_destroy(y2);
    ember_tensor_destroy(x);
    /* new shapes and other kernels need the weights themselves: widened from the packs */
    same_runs(m, r, p, NULL);
    same_runs(m, r, p, "scalar");
    ember_session_destroy(s1);
    ember_session_destroy(s2);
    ember_session_options_destroy(so);
    /* a trainer reads the weights themselves: they come back first */
    if (x86) {
        assert_null(value_of(m, conv)->init.data);
    }
    ember_trainer_options *to = NULL;
    ember_trainer *tr = NULL;
    OK(ember_trainer_options_create(&to));
    OK(ember_trainer_options_set_loss(to, EMBER_LOSS_MSE, EMBER_REDUCTION_MEAN));
    ember_status *tst = ember_trainer_create(m, to, &tr);
    if (tst != NULL) { /* training half weights is not this test's: the restore is */
        print_message("trainer on half weights: %s\n", ember_status_message(tst));
        ember_status_destroy(tst);
    }
    ember_trainer_destroy(tr);
    ember_trainer_options_destroy(to);
    const em_value *tw = value_of(m, conv), *rw = value_of(r, conv);
    assert_non_null(tw->init.data);
    assert_memory_equal(tw->init.data, rw->init.data, em_tensor_nbytes(&rw->init));
    same_runs(m, r, p, NULL); /* drops again after the restore, same outputs */
    /* saving reads the weights: they come back, the half values the oracle holds */
    char path[] = "/tmp/ember_test_halfw_save_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    OK(ember_model_save_onnx(m, path));
    unlink(path);
    const em_value *a = value_of(m, conv), *b = value_of(r, conv);
    assert_non_null(a->init.data);
    assert_int_equal(em_tensor_nbytes(&a->init), em_tensor_nbytes(&b->init));
    assert_memory_equal(a->init.data, b->init.data, em_tensor_nbytes(&a->init));
    same_runs(m, r, p, NULL);
    ember_model_destroy(m);
    ember_model_destroy(r);
}

static void test_fp16_drop(void **state)
{
    (void)state;
    drop_and_give_back(EMBER_PRECISION_FP16);
}

static void test_bf16_drop(void **state)
{
    (void)state;
    drop_and_give_back(EMBER_PRECISION_BF16);
}

static void test_args(void **state)
{
    (void)state;
    ember_model_options *mo = NULL;
    EXPECT_ERR(ember_model_options_set_precision(NULL, EMBER_PRECISION_FP16), EMBER_ERR_INVALID_ARG,
               "model_options_set_precision", "NULL");
    OK(ember_model_options_create(&mo));
    EXPECT_ERR(ember_model_options_set_precision(mo, EMBER_PRECISION_INT8), EMBER_ERR_INVALID_ARG,
               "int8", "quantiz");
    EXPECT_ERR(ember_model_options_set_precision(mo, (ember_precision)4), EMBER_ERR_INVALID_ARG,
               "4 is not an ember_precision");
    EXPECT_ERR(ember_model_options_set_precision(mo, (ember_precision)-1), EMBER_ERR_INVALID_ARG,
               "-1 is not an ember_precision");
    OK(ember_model_options_set_precision(mo, EMBER_PRECISION_BF16));
    ember_model_options_destroy(mo);
    assert_int_equal(ember_model_weight_bytes(NULL, EMBER_DTYPE_F32), 0);

    ember_model *m = load("half/halfw.onnx", EMBER_GRAPH_OPT_ALL, EMBER_PRECISION_FP16);
    if (m == NULL) {
        return;
    }
    ember_model *f = load("half/halfw.onnx", EMBER_GRAPH_OPT_ALL, EMBER_PRECISION_FP32);
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_precision(so, EMBER_PRECISION_BF16);
    EXPECT_ERR(ember_session_create(m, so, &s), EMBER_ERR_UNSUPPORTED, "precision bf16",
               "holds its weights in f16", "EMBER_PRECISION_BF16");
    assert_null(s);
    ember_session_options_set_precision(so, EMBER_PRECISION_FP16);
    EXPECT_ERR(ember_session_create(f, so, &s), EMBER_ERR_UNSUPPORTED, "precision fp16", "fp32");
    ember_session_options_set_precision(so, EMBER_PRECISION_INT8);
    EXPECT_ERR(ember_session_create(m, so, &s), EMBER_ERR_UNSUPPORTED, "int8");
    ember_session_options_set_precision(so, (ember_precision)4);
    EXPECT_ERR(ember_session_create(m, so, &s), EMBER_ERR_INVALID_ARG, "precision 4");
    ember_session_options_set_precision(so, EMBER_PRECISION_FP32); /* fp32: any model */
    OK(ember_session_create(m, so, &s));
    ember_session_destroy(s);
    ember_session_options_set_precision(so, EMBER_PRECISION_FP16);
    OK(ember_session_create(m, so, &s));
    ember_session_destroy(s);
    ember_session_options_destroy(so);
    ember_model_destroy(m);
    ember_model_destroy(f);
}

/* cnn_v13: every weight under the floor, so nothing is held in half and nothing changes. */
static void test_nothing_to_hold(void **state)
{
    (void)state;
    ember_model *m = load("onnx/cnn_v13.onnx", EMBER_GRAPH_OPT_ALL, EMBER_PRECISION_FP16);
    if (m == NULL) {
        return;
    }
    ember_model *f = load("onnx/cnn_v13.onnx", EMBER_GRAPH_OPT_ALL, EMBER_PRECISION_FP32);
    assert_int_equal(ember_model_weight_bytes(m, EMBER_DTYPE_F16), 0);
    assert_int_equal(ember_model_weight_bytes(m, EMBER_DTYPE_F32),
                     ember_model_weight_bytes(f, EMBER_DTYPE_F32));
    ember_tensor *x = load_npy("onnx/cnn_v13.in0.npy");
    ember_tensor *y = run(m, EMBER_PRECISION_FP16, NULL, x);
    ember_tensor *y32 = run(f, EMBER_PRECISION_FP32, NULL, x);
    assert_same(y, y32);
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ember_tensor_destroy(y32);
    ember_model_destroy(m);
    ember_model_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp16_exact), cmocka_unit_test(test_bf16_exact),
        cmocka_unit_test(test_fp16_close), cmocka_unit_test(test_bf16_close),
        cmocka_unit_test(test_fp16_drop),  cmocka_unit_test(test_bf16_drop),
        cmocka_unit_test(test_args),       cmocka_unit_test(test_nothing_to_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
