/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Models the interpreter runs, through ember.h: a seq(tensor) input (built with
 * ember_sequence_create and read from a SequenceProto with ember_value_load_pb), a Loop with a
 * loop-carried value, a scan output and a value captured from the outer graph (fixtures of
 * tools/gen_onnx_fixtures.py, references computed by numpy), the kind errors, and an
 * allocation-failure sweep over an interpreted run. Allocations are leak-checked.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/test_ok.h"

#include "common/test_alloc.h"
#include "ember.h"


static const char *data_path(const char *file)
{
    static _Thread_local char buf[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/onnx/%s", root != NULL ? root : "tests/data", file);
    return buf;
}

static ember_model *load(const char *file, const ember_allocator *al)
{
    ember_model_options *o = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&o));
    ember_model_options_set_allocator(o, al);
    OK(ember_model_load_file(data_path(file), o, &m));
    ember_model_options_destroy(o);
    return m;
}

static ember_tensor *npy(const char *file)
{
    ember_tensor *t = NULL;
    OK(ember_tensor_load_npy(data_path(file), &t));
    return t;
}

static void expect_equal_f32(const ember_tensor *got, const ember_tensor *want)
{
    assert_int_equal(ember_tensor_kind(got), EMBER_VALUE_TENSOR);
    assert_int_equal(ember_tensor_dtype(got), EMBER_DTYPE_F32);
    assert_int_equal(ember_tensor_rank(got), ember_tensor_rank(want));
    assert_memory_equal(ember_tensor_dims(got), ember_tensor_dims(want),
                        sizeof(int64_t) * (size_t)ember_tensor_rank(want));
    const float *g = ember_tensor_data((ember_tensor *)got);
    const float *w = ember_tensor_data((ember_tensor *)want);
    for (int64_t i = 0; i < ember_tensor_elem_count(want); i++) {
        if (!(fabsf(g[i] - w[i]) <= 1e-6f + 1e-5f * fabsf(w[i]))) {
            fail_msg("element %lld is %g, expected %g", (long long)i, (double)g[i],
                     (double)w[i]);
        }
    }
}

static void run_seq(ember_session *s, ember_tensor *seq)
{
    ember_tensor *out[2] = {NULL, NULL}, *want = npy("seq_concat.out0.npy");
    OK(ember_session_run(s, &seq, 1, out, 2));
    expect_equal_f32(out[0], want);
    assert_int_equal(ember_tensor_dtype(out[1]), EMBER_DTYPE_I64);
    assert_int_equal(*(const int64_t *)ember_tensor_data(out[1]), 2);
    ember_tensor_destroy(out[0]);
    ember_tensor_destroy(out[1]);
    ember_tensor_destroy(want);
}

static void test_sequence_input(void **state)
{
    (void)state;
    ember_model *m = load("seq_concat.onnx", test_allocator());
    assert_int_equal(ember_model_input_type(m, 0), EMBER_TYPE_SEQUENCE);
    assert_int_equal(ember_model_output_type(m, 0), EMBER_TYPE_TENSOR);
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    ember_tensor *items[2] = {npy("seq_concat.in0_item0.npy"), npy("seq_concat.in0_item1.npy")};
    ember_tensor *seq = NULL, *seq_pb = NULL;
    OK(ember_sequence_create(EMBER_DTYPE_F32, items, 2, &seq));
    assert_int_equal(ember_tensor_kind(seq), EMBER_VALUE_SEQUENCE);
    assert_int_equal(ember_sequence_length(seq), 2);
    assert_null(ember_sequence_item(seq, 2));
    run_seq(s, seq);
    /* The same sequence read from its SequenceProto file. */
    OK(ember_value_load_pb(data_path("seq_concat.in0.pb"), EMBER_TYPE_SEQUENCE, &seq_pb));
    assert_int_equal(ember_sequence_length(seq_pb), 2);
    for (size_t i = 0; i < 2; i++) {
        expect_equal_f32(ember_sequence_item(seq_pb, i), items[i]);
    }
    run_seq(s, seq_pb);
    /* A tensor where the model takes a sequence, and a bound slot for a created output. */
    ember_tensor *out[2] = {NULL, NULL};
    ember_status *st = ember_session_run(s, &items[0], 1, out, 2);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "takes a sequence of tensors"));
    ember_status_destroy(st);
    assert_null(out[0]);
    out[0] = items[1]; /* [1, 3] cannot hold the [3, 3] result */
    st = ember_session_run(s, &seq, 1, out, 2);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "output 0 'y'"));
    ember_status_destroy(st);
    assert_null(out[1]); /* created outputs are destroyed on failure */
    ember_tensor_destroy(seq);
    ember_tensor_destroy(seq_pb);
    ember_tensor_destroy(items[0]);
    ember_tensor_destroy(items[1]);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_sequence_handles(void **state)
{
    (void)state;
    ember_tensor *t = npy("seq_concat.in0_item0.npy"), *seq = NULL, *none = NULL;
    ember_status *st = ember_sequence_create(EMBER_DTYPE_I64, &t, 1, &seq);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "item 0 is not a tensor of dtype i64"));
    ember_status_destroy(st);
    assert_null(seq);
    OK(ember_sequence_create(EMBER_DTYPE_F32, NULL, 0, &seq));
    assert_int_equal(ember_sequence_length(seq), 0);
    OK(ember_optional_none_create(EMBER_DTYPE_F32, &none));
    assert_int_equal(ember_tensor_kind(none), EMBER_VALUE_NONE);
    assert_int_equal(ember_sequence_length(none), 0);
    /* A sequence where a plain model takes a tensor. */
    ember_model *m = load("mlp.onnx", test_allocator());
    ember_session *s = NULL;
    ember_tensor *out = NULL;
    OK(ember_session_create(m, NULL, &s));
    st = ember_session_run(s, &seq, 1, &out, 1);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "a tensor is needed"));
    ember_status_destroy(st);
    ember_session_destroy(s);
    ember_model_destroy(m);
    ember_tensor_destroy(seq);
    ember_tensor_destroy(none);
    ember_tensor_destroy(t);
}

static ember_status *run_loop(ember_session *s, int64_t n, ember_tensor **out)
{
    ember_tensor *in[3] = {NULL, npy("loop.in1.npy"), npy("loop.in2.npy")};
    OK(ember_tensor_create(EMBER_DTYPE_I64, NULL, 0, &in[0]));
    *(int64_t *)ember_tensor_data(in[0]) = n;
    ember_status *st = ember_session_run(s, in, 3, out, 2);
    for (int i = 0; i < 3; i++) {
        ember_tensor_destroy(in[i]);
    }
    return st;
}

static void test_loop(void **state)
{
    (void)state;
    ember_model *m = load("loop.onnx", test_allocator());
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    ember_tensor *out[2] = {NULL, NULL};
    ember_tensor *want[2] = {npy("loop.out0.npy"), npy("loop.out1.npy")};
    OK(run_loop(s, 4, out)); /* the fixture's trip count */
    expect_equal_f32(out[0], want[0]);
    expect_equal_f32(out[1], want[1]);
    for (int i = 0; i < 2; i++) {
        ember_tensor_destroy(out[i]);
        out[i] = NULL;
    }
    OK(run_loop(s, 0, out)); /* no iteration: acc0 back, an empty [0, 3] scan output */
    ember_tensor *acc0 = npy("loop.in1.npy");
    expect_equal_f32(out[0], acc0);
    assert_int_equal(ember_tensor_rank(out[1]), 2);
    assert_int_equal(ember_tensor_dims(out[1])[0], 0);
    assert_int_equal(ember_tensor_dims(out[1])[1], 3);
    ember_tensor_destroy(acc0);
    for (int i = 0; i < 2; i++) {
        ember_tensor_destroy(out[i]);
        ember_tensor_destroy(want[i]);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
}

/* Fails allocation i = 1, 2, ... of an interpreted run: a clean status and nothing leaked. */
static void test_loop_alloc_failures(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    ember_model *m = load("loop.onnx", &ca.al);
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    long live0 = atomic_load(&ca.live);
    for (long i = 1;; i++) {
        ember_tensor *out[2] = {NULL, NULL};
        ca.fail_at = atomic_load(&ca.n_alloc) + i;
        ember_status *st = run_loop(s, 3, out);
        ca.fail_at = 0;
        if (st == NULL) {
            ember_tensor_destroy(out[0]);
            ember_tensor_destroy(out[1]);
            assert_true(i > 20);
            break;
        }
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        ember_status_destroy(st);
        assert_null(out[0]);
        assert_null(out[1]);
        if (atomic_load(&ca.live) != live0) {
            fail_msg("allocation %ld failed: %ld allocations leaked", i,
                     atomic_load(&ca.live) - live0);
        }
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
    assert_int_equal(atomic_load(&ca.live), 0);
}

/* Reads a whole file (small test outputs) into buf; returns its size. */
static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* The file at `path` holds exactly want[0..n). */
static void expect_file(const char *path, const unsigned char *want, size_t n)
{
    unsigned char buf[256];
    assert_int_equal(slurp(path, buf, sizeof buf), n);
    assert_memory_equal(buf, want, n);
}

/* A new 1-D tensor of n elements of dtype dt copied from `data`. */
static ember_tensor *tensor_1d(ember_dtype dt, int64_t n, const void *data)
{
    ember_tensor *t = NULL;
    OK(ember_tensor_create(dt, &n, 1, &t));
    memcpy(ember_tensor_data(t), data, (size_t)n * ember_dtype_size(dt));
    return t;
}

/* ember_value_save_pb: the wire bytes of a small tensor worked out by hand, a bfloat16
 * tensor (which .npy cannot hold) and a sequence read back, an empty optional, kind errors. */
static void test_value_save_pb(void **state)
{
    (void)state;
    char path[] = "/tmp/ember_save_pb_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    /* i64 [2] = {1, -1}: dims 2 (08 02), data_type 7 (10 07), raw_data of 16 bytes (4a 10). */
    static const int64_t v[2] = {1, -1};
    ember_tensor *t = tensor_1d(EMBER_DTYPE_I64, 2, v), *back = NULL;
    OK(ember_value_save_pb(t, EMBER_TYPE_TENSOR, path));
    static const unsigned char want[] = {0x08, 0x02, 0x10, 0x07, 0x4a, 0x10, 1, 0, 0, 0, 0, 0, 0,
                                         0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    expect_file(path, want, sizeof want);
    /* A kind the value is not. */
    ember_status *st = ember_value_save_pb(t, EMBER_TYPE_SEQUENCE, path);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "not a sequence"));
    ember_status_destroy(st);
    ember_tensor_destroy(t);

    /* int4 [3] = {1, -1, 7}, one element per byte in memory (bit patterns 0x1 0xF 0x7), packed
     * two per byte, low nibble first: raw_data f1 07; dims 3 (08 03), data_type 22 (10 16). */
    static const uint8_t q[3] = {0x1, 0xF, 0x7};
    t = tensor_1d(EMBER_DTYPE_I4, 3, q);
    OK(ember_value_save_pb(t, EMBER_TYPE_TENSOR, path));
    static const unsigned char want4[] = {0x08, 0x03, 0x10, 0x16, 0x4a, 0x02, 0xf1, 0x07};
    expect_file(path, want4, sizeof want4);
    OK(ember_tensor_load_pb(path, &back));
    assert_memory_equal(ember_tensor_data(back), q, 3);
    ember_tensor_destroy(back);
    ember_tensor_destroy(t);

    /* bfloat16 [3]: 1.0 (0x3f80), -2.0 (0xc000), 0.5 (0x3f00), round trip. */
    static const uint16_t h[3] = {0x3f80, 0xc000, 0x3f00};
    t = tensor_1d(EMBER_DTYPE_BF16, 3, h);
    OK(ember_value_save_pb(t, EMBER_TYPE_TENSOR, path));
    OK(ember_tensor_load_pb(path, &back));
    assert_int_equal(ember_tensor_dtype(back), EMBER_DTYPE_BF16);
    assert_int_equal(ember_tensor_rank(back), 1);
    assert_memory_equal(ember_tensor_data(back), h, 6);
    ember_tensor_destroy(back);

    /* A sequence of the bf16 tensor and an empty one, as a SequenceProto and inside an
     * OptionalProto. */
    const int64_t d0[2] = {0, 4};
    ember_tensor *items[2] = {t, NULL};
    OK(ember_tensor_create(EMBER_DTYPE_BF16, d0, 2, &items[1]));
    ember_tensor *seq = NULL;
    OK(ember_sequence_create(EMBER_DTYPE_BF16, items, 2, &seq));
    for (int k = 0; k < 2; k++) {
        ember_type_kind kind = k ? EMBER_TYPE_OPTIONAL_SEQUENCE : EMBER_TYPE_SEQUENCE;
        OK(ember_value_save_pb(seq, kind, path));
        OK(ember_value_load_pb(path, kind, &back));
        assert_int_equal(ember_tensor_kind(back), EMBER_VALUE_SEQUENCE);
        assert_int_equal(ember_sequence_length(back), 2);
        assert_memory_equal(ember_tensor_data(ember_sequence_item(back, 0)), h, 6);
        assert_int_equal(ember_tensor_rank(ember_sequence_item(back, 1)), 2);
        assert_int_equal(ember_tensor_elem_count(ember_sequence_item(back, 1)), 0);
        ember_tensor_destroy(back);
    }
    ember_tensor_destroy(seq);
    ember_tensor_destroy(items[1]);
    ember_tensor_destroy(t);

    /* An empty optional: elem_type TENSOR (10 01) and nothing else. */
    ember_tensor *none = NULL;
    OK(ember_optional_none_create(EMBER_DTYPE_F32, &none));
    OK(ember_value_save_pb(none, EMBER_TYPE_OPTIONAL, path));
    static const unsigned char want_none[] = {0x10, 0x01};
    expect_file(path, want_none, sizeof want_none);
    OK(ember_value_load_pb(path, EMBER_TYPE_OPTIONAL, &back));
    assert_int_equal(ember_tensor_kind(back), EMBER_VALUE_NONE);
    ember_tensor_destroy(back);
    st = ember_value_save_pb(none, EMBER_TYPE_TENSOR, path);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    ember_tensor_destroy(none);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence_input),
        cmocka_unit_test(test_sequence_handles),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_loop_alloc_failures),
        cmocka_unit_test(test_value_save_pb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
