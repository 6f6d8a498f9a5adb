/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration tests of the public API, through ember.h only: versions, statuses, the default
 * model against PyTorch's output, bound and created outputs, input errors, concurrent runs of
 * one session, zero steady-state allocation, leaks and allocation-failure injection, plan cache,
 * profiling, ISA caps, tensors and .npy files.
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"

#include "common/test_alloc.h"
#include "common/test_data.h"

#include <math.h>
#include <pthread.h>
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

/* The ABI: public enum values never change (B2.9). */
_Static_assert(EMBER_OK == 0 && EMBER_ERR_INVALID_ARG == 1 && EMBER_ERR_INVALID_MODEL == 2 &&
                   EMBER_ERR_UNSUPPORTED == 3 && EMBER_ERR_OUT_OF_MEMORY == 4 &&
                   EMBER_ERR_IO == 5 && EMBER_ERR_DEVICE == 6 && EMBER_ERR_STATE == 7 &&
                   EMBER_ERR_INTERNAL == 8,
               "ember_code values are ABI");
_Static_assert(EMBER_DTYPE_F32 == 1 && EMBER_DTYPE_U8 == 2 && EMBER_DTYPE_I8 == 3 &&
                   EMBER_DTYPE_U16 == 4 && EMBER_DTYPE_I16 == 5 && EMBER_DTYPE_I32 == 6 &&
                   EMBER_DTYPE_I64 == 7 && EMBER_DTYPE_BOOL == 9 && EMBER_DTYPE_F16 == 10 &&
                   EMBER_DTYPE_F64 == 11 && EMBER_DTYPE_U32 == 12 && EMBER_DTYPE_U64 == 13 &&
                   EMBER_DTYPE_BF16 == 16,
               "ember_dtype values are ABI (ONNX numbering)");
_Static_assert(EMBER_DEVICE_CPU == 0 && EMBER_DEVICE_CUDA == 1, "ember_device values are ABI");
_Static_assert(EMBER_PRECISION_FP32 == 0 && EMBER_PRECISION_FP16 == 1 &&
                   EMBER_PRECISION_INT8 == 2 && EMBER_PRECISION_BF16 == 3,
               "ember_precision values are ABI");
_Static_assert(EMBER_LOG_ERROR == 0 && EMBER_LOG_DEBUG == 3, "ember_log_level values are ABI");


/* Expects a failure with `code` whose message contains `needle`. */
static void expect_err(ember_status *st, ember_code code, const char *needle)
{
    assert_non_null(st);
    if (ember_status_code(st) != code || strstr(ember_status_message(st), needle) == NULL) {
        fail_msg("expected %s containing '%s', got %s: %s", ember_code_name(code), needle,
                 ember_code_name(ember_status_code(st)), ember_status_message(st));
    }
    ember_status_destroy(st);
}

#define data_path(rel) test_data_path("", rel)

static ember_model *load_default(const ember_allocator *al)
{
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, al);
    /* The tests here check the plain ops' kernels: no graph passes (test_api_graph_opt.c). */
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    OK(ember_model_load_builtin(NULL, mo, &m));
    ember_model_options_destroy(mo);
    return m;
}

static ember_session *make_session(const ember_model *m, int threads, bool profiling)
{
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, threads);
    ember_session_options_set_profiling(so, profiling);
    OK(ember_session_create(m, so, &s));
    ember_session_options_destroy(so);
    return s;
}

/* |got - want| <= atol + rtol * |want| for every element. */
static void assert_close(const float *got, const float *want, int64_t n, double rtol,
                         double atol)
{
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (!(d <= atol + rtol * fabs((double)want[i]))) {
            fail_msg("element %lld: got %.9g, want %.9g", (long long)i, (double)got[i],
                     (double)want[i]);
        }
    }
}

static void test_version(void **state)
{
    (void)state;
    assert_int_equal(ember_version_number(), EMBER_VERSION_NUMBER);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", EMBER_VERSION_MAJOR, EMBER_VERSION_MINOR,
             EMBER_VERSION_PATCH);
    assert_string_equal(ember_version_string(), want);
    const char *info = ember_build_info();
    assert_non_null(strstr(info, "version="));
    assert_non_null(strstr(info, "isa="));
    assert_non_null(strstr(info, "backends=cpu,ref"));
}

static void test_status_and_dtypes(void **state)
{
    (void)state;
    assert_int_equal(ember_status_code(NULL), EMBER_OK);
    assert_string_equal(ember_status_message(NULL), "ok");
    ember_status_destroy(NULL);
    assert_string_equal(ember_code_name(EMBER_ERR_INVALID_MODEL), "INVALID_MODEL");
    assert_int_equal(ember_dtype_size(EMBER_DTYPE_F32), 4);
    assert_int_equal(ember_dtype_size(EMBER_DTYPE_BF16), 2);
    assert_int_equal(ember_dtype_size(EMBER_DTYPE_I64), 8);
    assert_int_equal(ember_dtype_size((ember_dtype)99), 0);
    assert_string_equal(ember_dtype_name(EMBER_DTYPE_BOOL), "bool");
}

static void test_default_model_io(void **state)
{
    (void)state;
    ember_model *m = load_default(test_allocator());
    int64_t dims[8];
    assert_string_equal(ember_model_format(m), "builtin");
    assert_int_equal(ember_model_input_count(m), 1);
    assert_int_equal(ember_model_output_count(m), 1);
    assert_string_equal(ember_model_input_name(m, 0), "input");
    assert_string_equal(ember_model_output_name(m, 0), "probs");
    assert_null(ember_model_input_name(m, 1));
    assert_int_equal(ember_model_input_dtype(m, 0), EMBER_DTYPE_F32);
    assert_int_equal(ember_model_input_shape(m, 0, dims, 8), 4);
    assert_true(dims[0] == -1 && dims[1] == 1 && dims[2] == 28 && dims[3] == 28);
    assert_string_equal(ember_model_input_dim_name(m, 0, 0), "N");
    assert_null(ember_model_input_dim_name(m, 0, 1));
    assert_int_equal(ember_model_output_shape(m, 0, dims, 8), 2);
    assert_true(dims[0] == -1 && dims[1] == 10);
    assert_string_equal(ember_model_output_dim_name(m, 0, 0), "N");
    assert_int_equal(ember_model_input_shape(m, 5, dims, 8), -1);
    /* conv1 8*9+8, bn 4*8, conv2 8*8*9+8, conv3 16*8*9+16, fc1 784*64+64, fc2 64*10+10 */
    assert_int_equal(ember_model_param_count(m),
                     (8 * 9 + 8) + 32 + (8 * 8 * 9 + 8) + (16 * 8 * 9 + 16) + (784 * 64 + 64) +
                         (64 * 10 + 10));
    assert_int_equal(ember_model_node_count(m), 14);
    assert_string_equal(ember_model_node_op(m, 0), "Conv");
    assert_string_equal(ember_model_node_name(m, 0), "conv1");
    assert_null(ember_model_node_op(m, 99));
    char *text = NULL;
    OK(ember_model_graph_text(m, &text));
    assert_non_null(strstr(text, "%probs: f32[N,10] = Softmax(%fc2) {axis=1}"));
    ember_string_free(text);
    ember_model_destroy(m);
}

/* Runs the default model on tests/data/default_model/input.npy and checks PyTorch's output. */
static void test_default_model_matches_pytorch(void **state)
{
    (void)state;
    ember_model *m = load_default(test_allocator());
    ember_session *s = make_session(m, 2, false);
    ember_tensor *x = NULL, *want = NULL, *y = NULL;
    OK(ember_tensor_load_npy(data_path("default_model/input.npy"), &x));
    OK(ember_tensor_load_npy(data_path("default_model/expected.npy"), &want));
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_non_null(y);
    assert_int_equal(ember_tensor_rank(y), 2);
    assert_int_equal(ember_tensor_dims(y)[0], 3);
    assert_int_equal(ember_tensor_dims(y)[1], 10);
    assert_close(ember_tensor_data(y), ember_tensor_data(want), 30, 1e-4, 1e-6);
    /* A second run into the same (now bound) output gives the same numbers. */
    float first[30];
    memcpy(first, ember_tensor_data(y), sizeof first);
    memset(ember_tensor_data(y), 0, sizeof first);
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_memory_equal(first, ember_tensor_data(y), sizeof first);
    ember_tensor_destroy(x);
    ember_tensor_destroy(want);
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

/* Different ISA caps choose different kernels and must agree. */
static void test_isa_caps_agree(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_tensor *x = NULL, *want = NULL;
    OK(ember_tensor_load_npy(data_path("default_model/input.npy"), &x));
    OK(ember_tensor_load_npy(data_path("default_model/expected.npy"), &want));
    const char *caps[] = {"scalar", "avx2", "avx512", "native"};
    for (size_t c = 0; c < 4; c++) {
        ember_session_options *so = NULL;
        ember_session *s = NULL;
        ember_tensor *y = NULL;
        char *plan = NULL;
        OK(ember_session_options_create(&so));
        OK(ember_session_options_set_isa_max(so, caps[c]));
        OK(ember_session_create(m, so, &s));
        OK(ember_session_run(s, &x, 1, &y, 1));
        assert_close(ember_tensor_data(y), ember_tensor_data(want), 30, 1e-4, 1e-6);
        OK(ember_session_plan_text(s, &plan));
        if (c == 0) { /* scalar: only portable reference kernels */
            assert_null(strstr(plan, "__avx"));
            assert_non_null(strstr(plan, "em_conv_f32__ref"));
        }
        ember_string_free(plan);
        ember_tensor_destroy(y);
        ember_session_destroy(s);
        ember_session_options_destroy(so);
    }
    ember_session_options *so = NULL;
    OK(ember_session_options_create(&so));
    expect_err(ember_session_options_set_isa_max(so, "sse9"), EMBER_ERR_INVALID_ARG, "sse9");
    ember_session_options_destroy(so);
    ember_tensor_destroy(x);
    ember_tensor_destroy(want);
    ember_model_destroy(m);
}

static void test_env_isa_cap(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_session *s = NULL;
    char *plan = NULL;
    setenv("EMBER_ISA_MAX", "scalar", 1);
    s = make_session(m, 1, false);
    int64_t shape[4] = {1, 1, 28, 28};
    const int64_t *shapes[1] = {shape};
    int rank = 4;
    OK(ember_session_prepare(s, shapes, &rank, 1));
    OK(ember_session_plan_text(s, &plan));
    assert_null(strstr(plan, "__avx"));
    ember_string_free(plan);
    ember_session_destroy(s);
    setenv("EMBER_ISA_MAX", "bogus", 1);
    expect_err(ember_session_create(m, NULL, &s), EMBER_ERR_INVALID_ARG, "EMBER_ISA_MAX");
    assert_null(s);
    unsetenv("EMBER_ISA_MAX");
    ember_model_destroy(m);
}

static void test_run_errors(void **state)
{
    (void)state;
    ember_model *m = load_default(test_allocator());
    ember_session *s = make_session(m, 1, false);
    ember_tensor *x = NULL, *y = NULL, *bad = NULL;
    int64_t d[4] = {2, 1, 28, 28};
    OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
    expect_err(ember_session_run(s, &x, 0, &y, 1), EMBER_ERR_INVALID_ARG, "1 inputs");
    expect_err(ember_session_run(s, &x, 1, &y, 2), EMBER_ERR_INVALID_ARG, "1 outputs");
    OK(ember_tensor_create(EMBER_DTYPE_F64, d, 4, &bad));
    expect_err(ember_session_run(s, &bad, 1, &y, 1), EMBER_ERR_INVALID_ARG,
               "input 0 'input': dtype f64, expected f32");
    ember_tensor_destroy(bad);
    int64_t d3[3] = {1, 28, 28};
    OK(ember_tensor_create(EMBER_DTYPE_F32, d3, 3, &bad));
    expect_err(ember_session_run(s, &bad, 1, &y, 1), EMBER_ERR_INVALID_ARG, "'input': rank 3");
    ember_tensor_destroy(bad);
    int64_t dc[4] = {1, 2, 28, 28};
    OK(ember_tensor_create(EMBER_DTYPE_F32, dc, 4, &bad));
    expect_err(ember_session_run(s, &bad, 1, &y, 1), EMBER_ERR_INVALID_ARG,
               "dim 1 is 2, expected 1");
    ember_tensor_destroy(bad);
    assert_null(y);
    /* A bound output of the wrong shape is refused and left untouched. */
    int64_t od[2] = {3, 10};
    OK(ember_tensor_create(EMBER_DTYPE_F32, od, 2, &y));
    expect_err(ember_session_run(s, &x, 1, &y, 1), EMBER_ERR_INVALID_ARG,
               "output 0 'probs': bound tensor is f32[3,10], the model produces f32[2,10]");
    ember_tensor_destroy(y);
    y = NULL;
    expect_err(ember_session_run(NULL, &x, 1, &y, 1), EMBER_ERR_INVALID_ARG, "NULL");
    ember_tensor_destroy(x);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_load_errors(void **state)
{
    (void)state;
    ember_model *m = NULL;
    expect_err(ember_model_load_file("/nonexistent/model.onnx", NULL, &m), EMBER_ERR_IO,
               "/nonexistent/model.onnx");
    assert_null(m);
    const char junk[] = "this is not a model";
    expect_err(ember_model_load_memory(junk, sizeof junk, 0, NULL, &m), EMBER_ERR_INVALID_MODEL,
               "not a model");
    const char zip[] = "PK\003\004rest"; /* a TorchScript archive's magic, then garbage */
    if (strstr(ember_build_info(), ",torchscript") != NULL) {
        expect_err(ember_model_load_memory(zip, sizeof zip, EMBER_LOAD_BORROW, NULL, &m),
                   EMBER_ERR_INVALID_MODEL, "zip archive");
    } else { /* configured without the TorchScript loader: the format is still recognised */
        expect_err(ember_model_load_memory(zip, sizeof zip, EMBER_LOAD_BORROW, NULL, &m),
                   EMBER_ERR_UNSUPPORTED, "a TorchScript archive; this build has no loader");
    }
    /* A torch.save() pickle is recognised (to be refused) in every build. */
    static const unsigned char pickle[] = {0x80, 0x02, 0x7d, 0x71, 0x00, 0x2e};
    expect_err(ember_model_load_memory(pickle, sizeof pickle, 0, NULL, &m),
               EMBER_ERR_UNSUPPORTED, "torch.save()");
    /* A ModelProto's first tag (ir_version) and a truncated varint. */
    static const unsigned char onnx[] = {0x08, 0x80};
    if (strstr(ember_build_info(), ",onnx") != NULL) {
        expect_err(ember_model_load_memory(onnx, sizeof onnx, 0, NULL, &m),
                   EMBER_ERR_INVALID_MODEL, "<memory>");
    } else {
        expect_err(ember_model_load_memory(onnx, sizeof onnx, 0, NULL, &m),
                   EMBER_ERR_UNSUPPORTED, "an ONNX model; this build has no loader");
    }
    expect_err(ember_model_load_memory(NULL, 10, 0, NULL, &m), EMBER_ERR_INVALID_ARG, "NULL");
    expect_err(ember_model_load_builtin("resnet", NULL, &m), EMBER_ERR_INVALID_ARG, "resnet");
    assert_null(m);
}

static void test_options_unsupported(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_device(so, EMBER_DEVICE_CUDA);
    expect_err(ember_session_create(m, so, &s), EMBER_ERR_UNSUPPORTED, "cuda");
    ember_session_options_set_device(so, EMBER_DEVICE_CPU);
    ember_session_options_set_precision(so, EMBER_PRECISION_FP16);
    expect_err(ember_session_create(m, so, &s), EMBER_ERR_UNSUPPORTED, "fp16");
    assert_null(s);
    ember_session_options_set_precision(so, EMBER_PRECISION_FP32);
    ember_session_options_set_threads(so, 3);
    OK(ember_session_create(m, so, &s));
    assert_int_equal(ember_session_thread_count(s), 3);
    ember_session_destroy(s);
    ember_session_options_destroy(so);
    ember_model_destroy(m);
}

/* Plans: one per shape, memory figures, release. The portable kernels, which take no scratch
 * from the arena: then the arena, with reuse, never exceeds the intermediates' naive sum (NEON's
 * im2col convolution takes more scratch than reuse saves on this model). */
static void test_plan_cache(void **state)
{
    (void)state;
    ember_model *m = load_default(test_allocator());
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    size_t arena = 0, naive = 0, arena1 = 0;
    OK(ember_session_options_create(&so));
    OK(ember_session_options_set_isa_max(so, "scalar"));
    ember_session_options_set_plan_cache(so, 1);
    OK(ember_session_create(m, so, &s));
    ember_session_options_destroy(so);
    expect_err(ember_session_memory_info(s, &arena, &naive), EMBER_ERR_STATE, "no plan");
    for (int round = 0; round < 3; round++) {
        for (int64_t n = 1; n <= 3; n++) {
            int64_t d[4] = {n, 1, 28, 28};
            ember_tensor *x = NULL, *y = NULL;
            OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
            OK(ember_session_run(s, &x, 1, &y, 1));
            assert_int_equal(ember_tensor_dims(y)[0], n);
            OK(ember_session_memory_info(s, &arena, &naive));
            assert_true(arena > 0 && arena <= naive + 64 * 32);
            if (n == 1) {
                arena1 = arena;
            } else {
                assert_true(arena > arena1);
            }
            ember_tensor_destroy(x);
            ember_tensor_destroy(y);
        }
    }
    char *text = NULL;
    OK(ember_session_plan_text(s, &text));
    assert_non_null(strstr(text, "arena"));
    assert_non_null(strstr(text, "em_conv_f32"));
    ember_string_free(text);
    ember_session_release_plans(s);
    expect_err(ember_session_memory_info(s, &arena, &naive), EMBER_ERR_STATE, "no plan");
    ember_session_destroy(s);
    ember_model_destroy(m);
}

typedef struct worker_arg {
    ember_session *s;
    const ember_tensor *want[3];
    int failures;
    int id;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *a = p;
    for (int it = 0; it < 25; it++) {
        int64_t n = 1 + (it + a->id) % 3;
        int64_t d[4] = {n, 1, 28, 28};
        ember_tensor *x = NULL, *y = NULL;
        if (ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x) != NULL) {
            a->failures++;
            continue;
        }
        float *xd = ember_tensor_data(x);
        for (int64_t i = 0; i < n * 784; i++) {
            xd[i] = (float)((i * 7919) % 101) / 101.0f;
        }
        ember_status *st = ember_session_run(a->s, &x, 1, &y, 1);
        if (st != NULL || memcmp(ember_tensor_data(y), ember_tensor_data((ember_tensor *)a->want[n - 1]),
                                 ember_tensor_nbytes(y)) != 0) {
            a->failures++;
        }
        ember_status_destroy(st);
        ember_tensor_destroy(x);
        ember_tensor_destroy(y);
    }
    return NULL;
}

/* Many threads run one session at once with mixed shapes; each result equals the serial one. */
static void test_concurrent_runs(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_session *s = make_session(m, 2, true);
    ember_tensor *want[3] = {NULL};
    for (int64_t n = 1; n <= 3; n++) {
        int64_t d[4] = {n, 1, 28, 28};
        ember_tensor *x = NULL;
        OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
        float *xd = ember_tensor_data(x);
        for (int64_t i = 0; i < n * 784; i++) {
            xd[i] = (float)((i * 7919) % 101) / 101.0f;
        }
        OK(ember_session_run(s, &x, 1, &want[n - 1], 1));
        ember_tensor_destroy(x);
    }
    pthread_t th[8];
    worker_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (worker_arg){s, {want[0], want[1], want[2]}, 0, i};
        assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    ember_profile *p = NULL;
    OK(ember_session_profile(s, false, &p));
    assert_int_equal(ember_profile_event_count(p), (3 + 8 * 25) * ember_model_node_count(m));
    ember_profile_destroy(p);
    for (int i = 0; i < 3; i++) {
        ember_tensor_destroy(want[i]);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
}

/* After the first run of a shape, runs with bound outputs allocate nothing. */
static void test_steady_state_no_alloc(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    ember_model *m = load_default(&ca.al);
    ember_session *s = make_session(m, 2, false);
    ember_tensor *x = NULL, *y = NULL;
    int64_t d[4] = {4, 1, 28, 28}, od[2] = {4, 10};
    OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
    OK(ember_tensor_create(EMBER_DTYPE_F32, od, 2, &y));
    OK(ember_session_run(s, &x, 1, &y, 1));
    long before = atomic_load(&ca.n_alloc);
    for (int i = 0; i < 50; i++) {
        OK(ember_session_run(s, &x, 1, &y, 1));
    }
    assert_int_equal(atomic_load(&ca.n_alloc), before);
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_model_destroy(m);
    assert_int_equal(atomic_load(&ca.live), 0);
}

/* Failing allocation i (i = 1, 2, ...) anywhere in load / session / run gives a clean
 * out-of-memory status and leaks nothing. */
static void test_alloc_failure_sweep(void **state)
{
    (void)state;
    int64_t d[4] = {2, 1, 28, 28};
    ember_tensor *x = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
    long total = 0;
    for (long i = 1;; i++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = i;
        ember_model_options *mo = NULL;
        ember_model *m = NULL;
        ember_session *s = NULL;
        ember_tensor *y = NULL;
        OK(ember_model_options_create(&mo));
        ember_model_options_set_allocator(mo, &ca.al);
        OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
        ember_status *st = ember_model_load_builtin(NULL, mo, &m);
        if (st == NULL) {
            st = ember_session_create(m, NULL, &s);
        }
        if (st == NULL) {
            st = ember_session_run(s, &x, 1, &y, 1);
        }
        bool failed = st != NULL;
        if (failed) {
            assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
            assert_null(y);
        }
        ember_status_destroy(st);
        ember_tensor_destroy(y);
        ember_session_destroy(s);
        ember_model_destroy(m);
        ember_model_options_destroy(mo);
        assert_int_equal(atomic_load(&ca.live), 0);
        if (!failed) {
            total = i - 1;
            break;
        }
    }
    assert_true(total > 20); /* the sweep really went through many allocations */
    ember_tensor_destroy(x);
}

static void test_profile(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_session *s = make_session(m, 1, false);
    ember_profile *p = NULL;
    expect_err(ember_session_profile(s, false, &p), EMBER_ERR_STATE, "profiling is off");
    ember_session_destroy(s);
    s = make_session(m, 1, true);
    int64_t d[4] = {1, 1, 28, 28};
    ember_tensor *x = NULL, *y = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
    for (int i = 0; i < 3; i++) {
        OK(ember_session_run(s, &x, 1, &y, 1));
    }
    OK(ember_session_profile(s, true, &p));
    size_t n = ember_profile_event_count(p), nodes = ember_model_node_count(m);
    assert_int_equal(n, 3 * nodes);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ember_profile_event_run(p, i), (int64_t)(i / nodes));
        assert_string_equal(ember_profile_event_op(p, i), ember_model_node_op(m, i % nodes));
        assert_string_equal(ember_profile_event_node(p, i), ember_model_node_name(m, i % nodes));
        assert_true(ember_profile_event_dur_ns(p, i) >= 0);
        assert_true(strlen(ember_profile_event_kernel(p, i)) > 0);
        if (i % nodes > 0) { /* nodes run in order */
            assert_true(ember_profile_event_start_ns(p, i) >= ember_profile_event_start_ns(p, i - 1));
        }
    }
    ember_profile_destroy(p);
    OK(ember_session_profile(s, false, &p)); /* cleared */
    assert_int_equal(ember_profile_event_count(p), 0);
    ember_profile_destroy(p);
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

typedef struct log_capture {
    int n;
    bool saw_kernel;
} log_capture;

static void capture_log(void *ctx, ember_log_level level, const char *msg)
{
    log_capture *c = ctx;
    assert_true(level <= EMBER_LOG_DEBUG);
    c->n++;
    if (strstr(msg, "node 0 'conv1' (Conv): kernel em_conv_f32") != NULL) {
        c->saw_kernel = true;
    }
}

/* The log callback receives the planner's kernel choices at DEBUG, and nothing below its level. */
static void test_log_callback(void **state)
{
    (void)state;
    log_capture cap = {0, false};
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_log(mo, capture_log, &cap, EMBER_LOG_DEBUG);
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    OK(ember_model_load_builtin(NULL, mo, &m));
    ember_session *s = make_session(m, 1, false);
    int64_t shape[4] = {1, 1, 28, 28};
    const int64_t *shapes[1] = {shape};
    int rank = 4;
    OK(ember_session_prepare(s, shapes, &rank, 1));
    assert_true(cap.saw_kernel);
    assert_true(cap.n >= 15);
    ember_session_destroy(s);
    ember_model_destroy(m);
    cap.n = 0;
    ember_model_options_set_log(mo, capture_log, &cap, EMBER_LOG_INFO);
    OK(ember_model_load_builtin(NULL, mo, &m));
    s = make_session(m, 1, false);
    OK(ember_session_prepare(s, shapes, &rank, 1));
    assert_int_equal(cap.n, 0);
    ember_session_destroy(s);
    ember_model_destroy(m);
    ember_model_options_destroy(mo);
}

static void test_tensors_and_npy(void **state)
{
    (void)state;
    float buf[6] = {1, 2, 3, 4, 5, 6};
    int64_t d[2] = {2, 3};
    ember_tensor *t = NULL, *u = NULL;
    expect_err(ember_tensor_wrap(EMBER_DTYPE_F32, d, 2, buf, 20, &t), EMBER_ERR_INVALID_ARG,
               "20 bytes given, the shape needs 24");
    expect_err(ember_tensor_create((ember_dtype)42, d, 2, &t), EMBER_ERR_INVALID_ARG, "dtype");
    int64_t neg[2] = {2, -3};
    expect_err(ember_tensor_create(EMBER_DTYPE_F32, neg, 2, &t), EMBER_ERR_INVALID_ARG, "dims");
    expect_err(ember_tensor_create(EMBER_DTYPE_F32, d, 9, &t), EMBER_ERR_INVALID_ARG, "rank");
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, d, 2, buf, sizeof buf, &t));
    assert_ptr_equal(ember_tensor_data(t), buf);
    assert_int_equal(ember_tensor_elem_count(t), 6);
    char path[] = "/tmp/ember_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    OK(ember_tensor_save_npy(t, path));
    OK(ember_tensor_load_npy(path, &u));
    assert_int_equal(ember_tensor_dtype(u), EMBER_DTYPE_F32);
    assert_int_equal(ember_tensor_rank(u), 2);
    assert_memory_equal(ember_tensor_dims(u), d, sizeof d);
    assert_memory_equal(ember_tensor_data(u), buf, sizeof buf);
    assert_int_equal((uintptr_t)ember_tensor_data(u) % 64, 0);
    unlink(path);
    ember_tensor_destroy(u);
    expect_err(ember_tensor_save_npy(t, "/nonexistent-dir/x.npy"), EMBER_ERR_IO,
               "/nonexistent-dir/x.npy");
    expect_err(ember_tensor_load_npy("/nonexistent.npy", &u), EMBER_ERR_IO, "/nonexistent.npy");
    assert_null(u);
    ember_tensor_destroy(t);
    ember_tensor_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_status_and_dtypes),
        cmocka_unit_test(test_default_model_io),
        cmocka_unit_test(test_default_model_matches_pytorch),
        cmocka_unit_test(test_isa_caps_agree),
        cmocka_unit_test(test_env_isa_cap),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_options_unsupported),
        cmocka_unit_test(test_plan_cache),
        cmocka_unit_test(test_concurrent_runs),
        cmocka_unit_test(test_steady_state_no_alloc),
        cmocka_unit_test(test_alloc_failure_sweep),
        cmocka_unit_test(test_profile),
        cmocka_unit_test(test_log_callback),
        cmocka_unit_test(test_tensors_and_npy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
