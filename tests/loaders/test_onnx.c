/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/onnx through ember.h: the fixtures of tools/gen_onnx_fixtures.py (tests/data/onnx)
 * run and match numpy (rtol 1e-4, atol 1e-5); opset imports; TensorProto inputs; models from
 * memory; the malformed corpus (tests/data/onnx_bad) with the code and message each gives;
 * and an allocation-failure sweep over a whole load. Models use test_allocator(), so leaks
 * fail the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "ember.h"

static char path_buf[1024];

static const char *data_path(const char *dir, const char *file)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(path_buf, sizeof path_buf, "%s/%s/%s", root != NULL ? root : "tests/data", dir, file);
    return path_buf;
}

static ember_model_options *options_at(ember_graph_opt level)
{
    ember_model_options *o = NULL;
    assert_null(ember_model_options_create(&o));
    ember_model_options_set_allocator(o, test_allocator());
    assert_null(ember_model_options_set_graph_optimization(o, level));
    return o;
}

/* These tests check the graph the loader builds: no graph passes (runtime/passes/passes.h). */
static ember_model_options *test_options(void) { return options_at(EMBER_GRAPH_OPT_NONE); }

static void expect_ok(ember_status *st)
{
    if (st != NULL) {
        print_error("unexpected %s: %s\n", ember_code_name(ember_status_code(st)),
                    ember_status_message(st));
        ember_status_destroy(st);
        fail();
    }
}

static ember_model *load(const char *dir, const char *file)
{
    ember_model_options *o = test_options();
    ember_model *m = NULL;
    expect_ok(ember_model_load_file(data_path(dir, file), o, &m));
    ember_model_options_destroy(o);
    return m;
}

/* |got - ref| <= atol + rtol * |ref| elementwise, same shape. */
static void expect_close(const char *what, ember_tensor *got, ember_tensor *ref)
{
    assert_int_equal(ember_tensor_dtype(got), EMBER_DTYPE_F32);
    assert_int_equal(ember_tensor_rank(got), ember_tensor_rank(ref));
    assert_memory_equal(ember_tensor_dims(got), ember_tensor_dims(ref),
                        sizeof(int64_t) * (size_t)ember_tensor_rank(ref));
    const float *g = ember_tensor_data(got), *r = ember_tensor_data(ref);
    for (int64_t i = 0; i < ember_tensor_elem_count(ref); i++) {
        if (!(fabsf(g[i] - r[i]) <= 1e-5f + 1e-4f * fabsf(r[i]))) {
            print_error("%s: element %lld is %g, expected %g\n", what, (long long)i, (double)g[i],
                        (double)r[i]);
            fail();
        }
    }
}

/* Runs model m on fixture `name`'s input read from `ext` (".pb" or ".npy") and compares. */
static void run_model(ember_model *m, const char *name, const char *ext)
{
    char file[256];
    ember_tensor *in = NULL, *out = NULL, *ref = NULL;
    ember_session *s = NULL;
    assert_string_equal(ember_model_format(m), "onnx");
    assert_int_equal(ember_model_input_count(m), 1);
    snprintf(file, sizeof file, "%s.in0%s", name, ext);
    expect_ok(ember_tensor_load(data_path("onnx", file), &in));
    snprintf(file, sizeof file, "%s.out0.npy", name);
    expect_ok(ember_tensor_load_npy(data_path("onnx", file), &ref));
    expect_ok(ember_session_create(m, NULL, &s));
    expect_ok(ember_session_run(s, &in, 1, &out, 1));
    expect_close(name, out, ref);
    ember_tensor_destroy(out);
    ember_tensor_destroy(ref);
    ember_tensor_destroy(in);
    ember_session_destroy(s);
}

static void run_fixture(const char *name, const char *ext)
{
    char file[256];
    snprintf(file, sizeof file, "%s.onnx", name);
    ember_model *m = load("onnx", file);
    run_model(m, name, ext);
    ember_model_destroy(m);
}

static void *read_all(const char *path, size_t *size);

static const char *const fixtures[] = {
    "mlp",      "cnn_v7",   "cnn_v13",       "softmax_v11", "softmax_v11_sym",
    "softmax_v13", "reshape_v4", "reshape_v13", "typed",     "constant",
    "external", "groupnorm_v18", "big_weights", "subgraph_init",
};

/* big_weights keeps 90 KB of its initializers in raw_data, which the loader reads in place from
 * the file (em_onnx_wire_strip); with the graph passes, the conv's weights fold the BatchNorm and
 * the pages of the originals are dropped (em_graph_drop_unused_image). Sessions made after
 * that, the second one after the first is gone, still compute the right answer; so does the
 * model loaded from memory, owned or borrowed. */
static void test_big_weights(void **state)
{
    (void)state;
    ember_model_options *o = options_at(EMBER_GRAPH_OPT_ALL);
    ember_model *m = NULL;
    expect_ok(ember_model_load_file(data_path("onnx", "big_weights.onnx"), o, &m));
    run_model(m, "big_weights", ".pb");
    run_model(m, "big_weights", ".npy");
    ember_model_destroy(m);
    size_t n;
    void *b = read_all(data_path("onnx", "big_weights.onnx"), &n);
    for (unsigned flags = 0; flags <= EMBER_LOAD_BORROW; flags += EMBER_LOAD_BORROW) {
        expect_ok(ember_model_load_memory(b, n, flags, o, &m));
        run_model(m, "big_weights", ".pb");
        ember_model_destroy(m);
    }
    test_free(b);
    ember_model_options_destroy(o);
}

static void test_fixtures(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        run_fixture(fixtures[i], ".pb");
    }
    run_fixture("mlp", ".npy");
}

static void test_declared_io_and_opsets(void **state)
{
    (void)state;
    int64_t dims[4];
    const char *domain = NULL;
    int64_t version = 0;
    ember_model *m = load("onnx", "mlp.onnx");
    assert_string_equal(ember_model_input_name(m, 0), "x");
    assert_int_equal(ember_model_input_shape(m, 0, dims, 4), 2);
    assert_int_equal(dims[0], -1);
    assert_int_equal(dims[1], 16);
    assert_string_equal(ember_model_input_dim_name(m, 0, 0), "N");
    assert_string_equal(ember_model_output_name(m, 0), "y");
    assert_int_equal(ember_model_param_count(m), 16 * 32 + 32 + 10 * 32 + 10);
    assert_int_equal(ember_model_opset_count(m), 1);
    assert_true(ember_model_opset(m, 0, &domain, &version));
    assert_string_equal(domain, "");
    assert_int_equal(version, 13);
    assert_false(ember_model_opset(m, 1, &domain, &version));
    ember_model_destroy(m);

    ember_model *b = NULL;
    expect_ok(ember_model_load_builtin(NULL, NULL, &b));
    assert_int_equal(ember_model_opset_count(b), 0);
    assert_false(ember_model_opset(b, 0, NULL, NULL));
    ember_model_destroy(b);
}

/* Loads fixture `file` and checks that its graph text holds every one of needles[0..n). */
static void expect_graph(const char *file, const char *const *needles, size_t n)
{
    char *text = NULL;
    ember_model *m = load("onnx", file);
    expect_ok(ember_model_graph_text(m, &text));
    for (size_t i = 0; i < n; i++) {
        if (strstr(text, needles[i]) == NULL) {
            print_error("%s: '%s' not in the graph:\n%s\n", file, needles[i], text);
            fail();
        }
    }
    ember_string_free(text);
    ember_model_destroy(m);
}

/* Opset 11 Softmax at axis 1 of a rank-3 input becomes Flatten -> Softmax -> Reshape. */
static void test_softmax_rewrite(void **state)
{
    (void)state;
    static const char *const softmax[] = {"= Flatten(", "= Softmax(", "axis=1",
                                          "%y: f32[N,3,4] = Reshape("};
    static const char *const reshape[] = {"const %reshape__shape_"};
    expect_graph("softmax_v11_sym.onnx", softmax, 4);
    expect_graph("reshape_v4.onnx", reshape, 1);
}

/* GroupNormalization-18's per-group scale (a constant) and bias (an intermediate) become
 * per-channel inputs: a [6] constant and Reshape -> Expand -> Reshape. */
static void test_groupnorm_rewrite(void **state)
{
    (void)state;
    static const char *const want[] = {"const %#1__scale_0: f32[6]", "f32[2,3] = Expand(",
                                       "f32[6] = Reshape(",
                                       "= GroupNormalization(%x, %#1__scale_0, "};
    expect_graph("groupnorm_v18.onnx", want, 4);
}

static void *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = test_malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

static void test_memory(void **state)
{
    (void)state;
    size_t n;
    ember_model *m = NULL;
    ember_model_options *o = test_options();
    void *b = read_all(data_path("onnx", "mlp.onnx"), &n);
    expect_ok(ember_model_load_memory(b, n, 0, o, &m));
    assert_int_equal(ember_model_node_count(m), 4);
    ember_model_destroy(m);
    expect_ok(ember_model_load_memory(b, n, EMBER_LOAD_BORROW, o, &m));
    assert_string_equal(ember_model_node_op(m, 3), "Softmax");
    ember_model_destroy(m);
    test_free(b);

    b = read_all(data_path("onnx", "external.onnx"), &n);
    ember_status *st = ember_model_load_memory(b, n, 0, o, &m);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "loaded from memory"));
    assert_null(m);
    ember_status_destroy(st);
    test_free(b);
    ember_model_options_destroy(o);
}

static void test_tensor_pb(void **state)
{
    (void)state;
    ember_tensor *a = NULL, *b = NULL;
    expect_ok(ember_tensor_load_pb(data_path("onnx", "cnn_v7.in0.pb"), &a));
    expect_ok(ember_tensor_load_npy(data_path("onnx", "cnn_v7.in0.npy"), &b));
    assert_int_equal(ember_tensor_rank(a), 4);
    assert_int_equal(ember_tensor_nbytes(a), ember_tensor_nbytes(b));
    assert_memory_equal(ember_tensor_data(a), ember_tensor_data(b), ember_tensor_nbytes(a));
    ember_tensor_destroy(a);
    ember_tensor_destroy(b);

    static const unsigned char junk[] = {0x0a, 0x7f, 0x01};
    ember_status *st = ember_tensor_load_pb_memory(junk, sizeof junk, "junk.pb", &a);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(st), "junk.pb"));
    assert_null(a);
    ember_status_destroy(st);
    st = ember_tensor_load(data_path("onnx", "does_not_exist.pb"), &a);
    assert_int_equal(ember_status_code(st), EMBER_ERR_IO);
    ember_status_destroy(st);
}

typedef struct bad_case {
    const char *file;
    ember_code code;
    const char *needle;
} bad_case;

/* clang-format off */
static const bad_case bad_cases[] = {
    {"truncated.onnx",         EMBER_ERR_INVALID_MODEL, "not a valid ONNX model (protobuf parse error"},
    {"bitflip.onnx",           EMBER_ERR_INVALID_MODEL, "not a valid ONNX model (protobuf parse error"},
    {"unknown_op.onnx",        EMBER_ERR_UNSUPPORTED,
     "unsupported operators: node 'conv_7' (ConvTranspose2), node 'x' (NoSuchOp)"},
    {"unknown_domain.onnx",    EMBER_ERR_UNSUPPORTED, "node 'n0' (Gelu, domain 'com.microsoft')"},
    {"wrong_arity.onnx",       EMBER_ERR_INVALID_MODEL, "node 'n0' (Relu): has 2 inputs"},
    {"short_data.onnx",        EMBER_ERR_INVALID_MODEL, "tensor 'w': raw_data has 20 bytes, its dims [4,4] need 64"},
    {"external_outside.onnx",  EMBER_ERR_INVALID_MODEL, "'../outside.bin' is outside the model's folder"},
    {"external_past_end.onnx", EMBER_ERR_INVALID_MODEL, "is past the end of 'external.bin'"},
    {"dims_overflow.onnx",     EMBER_ERR_INVALID_MODEL, "tensor 'w': dims [1099511627776,1099511627776,1048576] overflow"},
    {"deep_nesting.onnx",      EMBER_ERR_INVALID_MODEL, "subgraphs nested deeper than 32 levels"},
    {"opset_too_new.onnx",     EMBER_ERR_UNSUPPORTED, "opset 30 of the default domain is not supported"},
    /* Accepted by a lenient reader (issue #17): each refused, naming the field. */
    {"varint_long.onnx",       EMBER_ERR_INVALID_MODEL, "field 1 of ModelProto at byte 0: a varint longer than 10 bytes"},
    {"varint_overflow.onnx",   EMBER_ERR_INVALID_MODEL, "field 1 of ModelProto at byte 0: a varint longer than 10 bytes or beyond 64 bits"},
    {"negative_dim.onnx",      EMBER_ERR_INVALID_MODEL, "graph input 'x': dim 1 is -3"},
    {"two_sources.onnx",       EMBER_ERR_INVALID_MODEL, "tensor 'w': holds both raw_data and float_data"},
    {"no_outputs.onnx",        EMBER_ERR_INVALID_MODEL, "graph 'g' has no outputs"},
    {"ir_version_0.onnx",      EMBER_ERR_INVALID_MODEL, "ir_version 0 is outside 1 to 14"},
    {"ir_version_99.onnx",     EMBER_ERR_UNSUPPORTED, "ir_version 99 is outside 1 to 14 (14 is the newest ember knows"},
};
/* clang-format on */

static void test_bad_models(void **state)
{
    (void)state;
    ember_model_options *o = test_options();
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *b = &bad_cases[i];
        ember_model *m = (ember_model *)(uintptr_t)1;
        ember_status *st = ember_model_load_file(data_path("onnx_bad", b->file), o, &m);
        const char *msg = ember_status_message(st);
        if (ember_status_code(st) != b->code || strstr(msg, b->needle) == NULL ||
            strncmp(msg, "onnx: ", 6) != 0 || strstr(msg, b->file) == NULL) {
            print_error("%s: got %s '%s', expected %s with '%s'\n", b->file,
                        ember_code_name(ember_status_code(st)), msg, ember_code_name(b->code),
                        b->needle);
            fail();
        }
        assert_null(m);
        ember_status_destroy(st);
    }
    ember_model_options_destroy(o);
}

/* Fails allocation i = 1, 2, ... of a whole load: each gives a clean status and frees all. */
static void test_alloc_failures(void **state)
{
    (void)state;
    const char *files[] = {"mlp.onnx", "softmax_v11_sym.onnx", "constant.onnx", "external.onnx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        for (long i = 1;; i++) {
            counting_alloc ca;
            counting_alloc_init(&ca);
            ca.fail_at = i;
            ember_model_options *o = NULL;
            ember_model *m = NULL;
            assert_null(ember_model_options_create(&o));
            ember_model_options_set_allocator(o, &ca.al);
            assert_null(ember_model_options_set_graph_optimization(o, EMBER_GRAPH_OPT_NONE));
            ember_status *st = ember_model_load_file(data_path("onnx", files[f]), o, &m);
            ember_model_options_destroy(o);
            if (st == NULL) {
                ember_model_destroy(m);
                assert_int_equal(atomic_load(&ca.live), 0);
                assert_true(i > 10);
                break;
            }
            assert_null(m);
            assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
            ember_status_destroy(st);
            if (atomic_load(&ca.live) != 0) {
                print_error("%s: allocation %ld failed, %ld allocations leaked\n", files[f], i,
                            (long)atomic_load(&ca.live));
                fail();
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),        cmocka_unit_test(test_declared_io_and_opsets),
        cmocka_unit_test(test_softmax_rewrite), cmocka_unit_test(test_memory),
        cmocka_unit_test(test_tensor_pb),       cmocka_unit_test(test_bad_models),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_groupnorm_rewrite), cmocka_unit_test(test_big_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
