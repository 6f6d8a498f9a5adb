/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inconsistent arguments to the public API, through ember.h only: counts that do not fit what
 * the implementation holds (2^32 + 1 inputs, 65 inputs, 2^31 sequence items, a thousand-fold
 * thread count), NULL pointers beside a count that says they hold something (dims, data, a
 * shape inside an array), enum values outside their enum, absurd batch sizes, and a handle of
 * the wrong kind. Each is INVALID_ARG with a message naming the function or input and the bad
 * value; none is truncated, misreported or a crash. Plain NULL objects and out pointers of
 * every function are covered by the generated test (tools/gen_api_null_test.py).
 */
#include "ember.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"

typedef struct fx {
    ember_model *m;
    ember_session *s;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    ember_session_options *so = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 1);
    OK(ember_model_load_builtin(NULL, NULL, &f->m));
    OK(ember_session_create(f->m, so, &f->s));
    ember_session_options_destroy(so);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    ember_session_destroy(f->s);
    ember_model_destroy(f->m);
    free(f);
    return 0;
}

/* The built-in model has one input, "input" f32 [N,1,28,28]. */
static const int64_t in_dims[4] = {1, 1, 28, 28};

/* n_inputs = 2^32 + 1 used to be cast to int, read as 1 input, and planned: success. */
static void test_prepare_count_not_truncated(void **state)
{
    fx *f = *state;
    const int64_t *shapes[1] = {in_dims};
    const int ranks[1] = {4};
    size_t n = ((size_t)1 << 32) + 1;
    EXPECT_ERR(ember_session_prepare(f->s, shapes, ranks, n), EMBER_ERR_INVALID_ARG,
               "session_prepare", "model has 1 inputs, 4294967297 were given");
    EXPECT_ERR(ember_session_prepare(f->s, shapes, ranks, 0), EMBER_ERR_INVALID_ARG,
               "model has 1 inputs, 0 were given");
    OK(ember_session_prepare(f->s, shapes, ranks, 1));
}

/* A NULL shape inside the array crashed the planner. */
static void test_prepare_null_shape(void **state)
{
    fx *f = *state;
    const int64_t *shapes[1] = {NULL};
    const int ranks[1] = {4};
    EXPECT_ERR(ember_session_prepare(f->s, shapes, ranks, 1), EMBER_ERR_INVALID_ARG,
               "session_prepare", "input 0 'input'", "NULL shape with rank 4");
    const int64_t *ok_shapes[1] = {in_dims};
    const int bad_ranks[1] = {EMBER_MAX_RANK + 1};
    EXPECT_ERR(ember_session_prepare(f->s, ok_shapes, bad_ranks, 1), EMBER_ERR_INVALID_ARG,
               "input 0 'input'", "rank 9 is out of range 0..8");
    EXPECT_ERR(ember_session_prepare(f->s, NULL, ranks, 1), EMBER_ERR_INVALID_ARG,
               "session_prepare: NULL shapes");
}

/* 65 inputs were UNSUPPORTED ("more than 64"): the model takes 1, so the count is wrong. */
static void test_run_input_count(void **state)
{
    fx *f = *state;
    ember_tensor *x = NULL, *y = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, in_dims, 4, &x));
    ember_tensor *inputs[65];
    for (int i = 0; i < 65; i++) {
        inputs[i] = x;
    }
    EXPECT_ERR(ember_session_run(f->s, inputs, 65, &y, 1), EMBER_ERR_INVALID_ARG,
               "session_run", "model has 1 inputs, 65 were given");
    EXPECT_ERR(ember_session_run(f->s, inputs, SIZE_MAX, &y, 1), EMBER_ERR_INVALID_ARG,
               "model has 1 inputs");
    EXPECT_ERR(ember_session_run(f->s, inputs, 1, &y, SIZE_MAX), EMBER_ERR_INVALID_ARG,
               "model has 1 outputs");
    EXPECT_ERR(ember_session_run(f->s, inputs, 1, NULL, 1), EMBER_ERR_INVALID_ARG,
               "session_run: NULL outputs");
    EXPECT_ERR(ember_session_run(f->s, NULL, 1, &y, 1), EMBER_ERR_INVALID_ARG,
               "session_run: NULL inputs");
    assert_null(y);
    OK(ember_session_run(f->s, inputs, 1, &y, 1));
    ember_tensor_destroy(y);
    ember_tensor_destroy(x);
}

/* A batch whose tensors cannot be addressed was INVALID_MODEL: it is the caller's shape. */
static void test_absurd_batch(void **state)
{
    fx *f = *state;
    int64_t dims[4] = {INT64_MAX, 1, 28, 28};
    const int64_t *shapes[1] = {dims};
    const int ranks[1] = {4};
    EXPECT_ERR(ember_session_prepare(f->s, shapes, ranks, 1), EMBER_ERR_INVALID_ARG,
               "input 0 'input'", "overflow");
    dims[0] = (int64_t)1 << 50; /* the input fits in size_t, the first convolution's output not */
    EXPECT_ERR(ember_session_prepare(f->s, shapes, ranks, 1), EMBER_ERR_INVALID_ARG,
               "output 0 would overflow", "input shapes");
}

/* A NULL dims with rank 4 read as "rank 4 out of range"; NULL data as "16 bytes given, the
 * shape needs 16". */
static void test_tensor_shape_args(void **state)
{
    (void)state;
    ember_tensor *t = (ember_tensor *)(void *)&t;
    EXPECT_ERR(ember_tensor_create(EMBER_DTYPE_F32, NULL, 4, &t), EMBER_ERR_INVALID_ARG,
               "tensor_create: NULL dims with rank 4");
    assert_null(t);
    int64_t d[2] = {2, 2};
    EXPECT_ERR(ember_tensor_wrap(EMBER_DTYPE_F32, d, 2, NULL, 16, &t), EMBER_ERR_INVALID_ARG,
               "tensor_wrap: NULL data");
    float buf[4] = {0};
    EXPECT_ERR(ember_tensor_wrap(EMBER_DTYPE_F32, d, 2, buf, 12, &t), EMBER_ERR_INVALID_ARG,
               "tensor_wrap: 12 bytes given, the shape needs 16");
    EXPECT_ERR(ember_tensor_create(EMBER_DTYPE_F32, d, 9, &t), EMBER_ERR_INVALID_ARG,
               "tensor_create: rank 9 is out of range 0..8");
    EXPECT_ERR(ember_tensor_create((ember_dtype)999, d, 2, &t), EMBER_ERR_INVALID_ARG,
               "tensor_create: dtype 999 is not an ember_dtype");
    EXPECT_ERR(ember_tensor_create(EMBER_DTYPE_UNDEFINED, d, 2, &t), EMBER_ERR_INVALID_ARG,
               "tensor_create: dtype EMBER_DTYPE_UNDEFINED");
    EXPECT_ERR(ember_tensor_create_strings(NULL, 2, NULL, &t), EMBER_ERR_INVALID_ARG,
               "tensor_create_strings: NULL dims with rank 2");
    EXPECT_ERR(ember_tensor_create_strings(d, 2, NULL, &t), EMBER_ERR_INVALID_ARG,
               "tensor_create_strings: NULL strings for 4 elements");
    assert_null(t);
    /* NULL data with nothing to hold is a valid empty tensor. */
    int64_t z[1] = {0};
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, z, 1, NULL, 0, &t));
    assert_int_equal(ember_tensor_elem_count(t), 0);
    ember_tensor_destroy(t);
}

/* Precision 9 read as "precision int8"; an unknown device or an absurd thread count. */
static void test_session_option_values(void **state)
{
    fx *f = *state;
    ember_session_options *so = NULL;
    ember_session *s = (ember_session *)(void *)&s;
    OK(ember_session_options_create(&so));
    ember_session_options_set_precision(so, (ember_precision)9);
    EXPECT_ERR(ember_session_create(f->m, so, &s), EMBER_ERR_INVALID_ARG,
               "session_create: precision 9 is not an ember_precision");
    assert_null(s);
    ember_session_options_set_precision(so, EMBER_PRECISION_INT8);
    EXPECT_ERR(ember_session_create(f->m, so, &s), EMBER_ERR_UNSUPPORTED, "precision int8");
    ember_session_options_set_precision(so, EMBER_PRECISION_FP32);
    ember_session_options_set_device(so, (ember_device)7);
    EXPECT_ERR(ember_session_create(f->m, so, &s), EMBER_ERR_INVALID_ARG,
               "session_create: device 7 is not an ember_device");
    ember_session_options_set_device(so, EMBER_DEVICE_CPU);
    ember_session_options_set_threads(so, INT_MAX);
    EXPECT_ERR(ember_session_create(f->m, so, &s), EMBER_ERR_INVALID_ARG,
               "session_create: 2147483647 threads");
    ember_session_options_set_threads(so, 1);
    /* A huge plan cache holds no memory until plans are made. */
    ember_session_options_set_plan_cache(so, INT_MAX);
    OK(ember_session_create(f->m, so, &s));
    ember_tensor *x = NULL;
    for (int64_t n = 1; n <= 20; n++) { /* 20 plans: the cache grows past its first slots */
        int64_t d[4] = {n, 1, 28, 28};
        ember_tensor *y = NULL;
        OK(ember_tensor_create(EMBER_DTYPE_F32, d, 4, &x));
        OK(ember_session_run(s, &x, 1, &y, 1));
        assert_int_equal(ember_tensor_dims(y)[0], n);
        ember_tensor_destroy(x);
        ember_tensor_destroy(y);
    }
    ember_session_destroy(s);
    ember_session_options_destroy(so);
}

/* Enum arguments outside their enum name the value; statuses name the function. */
static void test_enum_values(void **state)
{
    (void)state;
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    EXPECT_ERR(ember_model_options_set_graph_optimization(mo, (ember_graph_opt)5),
               EMBER_ERR_INVALID_ARG, "model_options_set_graph_optimization", "unknown level 5");
    EXPECT_ERR(ember_model_options_set_input_rank(mo, 0, (ember_dtype)999, 4),
               EMBER_ERR_INVALID_ARG, "dtype 999 is not an ember_dtype");
    EXPECT_ERR(ember_model_options_set_input_rank(mo, 64, EMBER_DTYPE_F32, 4),
               EMBER_ERR_INVALID_ARG, "index 64 is out of range 0..63");
    EXPECT_ERR(ember_model_options_set_input_rank(mo, SIZE_MAX, EMBER_DTYPE_F32, 4),
               EMBER_ERR_INVALID_ARG, "is out of range 0..63");
    EXPECT_ERR(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, -2),
               EMBER_ERR_INVALID_ARG, "rank -2 is out of range -1..8");
    ember_model_options_destroy(mo);
    ember_tensor *t = (ember_tensor *)(void *)&t;
    EXPECT_ERR(ember_value_load_pb("/nonexistent.pb", (ember_type_kind)999, &t),
               EMBER_ERR_INVALID_ARG, "value_load_pb: kind 999 is not an ember_type_kind");
    assert_null(t);
    EXPECT_ERR(ember_sequence_create((ember_dtype)999, NULL, 0, &t), EMBER_ERR_INVALID_ARG,
               "sequence_create: elem 999 is not an ember_dtype");
    EXPECT_ERR(ember_optional_none_create((ember_dtype)-1, &t), EMBER_ERR_INVALID_ARG,
               "optional_none_create: elem -1 is not an ember_dtype");
    ember_model *m = (ember_model *)(void *)&m;
    static const unsigned char junk[4] = {1, 2, 3, 4};
    EXPECT_ERR(ember_model_load_memory(junk, sizeof junk, 0x6, NULL, &m), EMBER_ERR_INVALID_ARG,
               "model_load_memory: unknown flags 0x6");
    assert_null(m);
}

/* A sequence of 2^31 items does not fit the interpreter's int count; a sequence or an empty
 * optional is not a .npy array (tensor_save_npy read its missing data). */
static void test_handles(void **state)
{
    (void)state;
    ember_tensor *x = NULL, *seq = NULL, *none = NULL;
    int64_t d[1] = {3};
    OK(ember_tensor_create(EMBER_DTYPE_F32, d, 1, &x));
    ember_tensor *items[1] = {x};
    EXPECT_ERR(ember_sequence_create(EMBER_DTYPE_F32, items, (size_t)INT_MAX + 1, &seq),
               EMBER_ERR_INVALID_ARG, "sequence_create: 2147483648 items");
    EXPECT_ERR(ember_sequence_create(EMBER_DTYPE_F32, NULL, 2, &seq), EMBER_ERR_INVALID_ARG,
               "sequence_create: NULL items with n 2");
    OK(ember_sequence_create(EMBER_DTYPE_F32, items, 1, &seq));
    OK(ember_optional_none_create(EMBER_DTYPE_F32, &none));
    EXPECT_ERR(ember_tensor_save_npy(seq, "/tmp/ember_test_args_seq.npy"), EMBER_ERR_INVALID_ARG,
               "tensor_save_npy: the handle is a sequence");
    EXPECT_ERR(ember_tensor_save_npy(none, "/tmp/ember_test_args_none.npy"),
               EMBER_ERR_INVALID_ARG, "tensor_save_npy: the handle is an empty optional");
    ember_tensor_destroy(none);
    ember_tensor_destroy(seq);
    ember_tensor_destroy(x);
}

/* Status functions on a NULL object locked its mutex; accessors dereferenced it. */
static void test_null_objects(void **state)
{
    fx *f = *state;
    size_t a = 7, b = 7;
    char *text = (char *)&text;
    EXPECT_ERR(ember_session_memory_info(NULL, &a, &b), EMBER_ERR_INVALID_ARG,
               "session_memory_info: NULL session");
    assert_int_equal(a, 7);
    EXPECT_ERR(ember_session_plan_text(NULL, &text), EMBER_ERR_INVALID_ARG,
               "session_plan_text: NULL session");
    assert_null(text);
    EXPECT_ERR(ember_model_graph_text(NULL, &text), EMBER_ERR_INVALID_ARG,
               "model_graph_text: NULL model");
    assert_int_equal(ember_model_input_count(NULL), 0);
    assert_null(ember_model_input_name(NULL, 0));
    assert_int_equal(ember_model_input_dtype(NULL, 0), EMBER_DTYPE_UNDEFINED);
    assert_int_equal(ember_model_input_shape(NULL, 0, NULL, 0), -1);
    assert_int_equal(ember_tensor_dtype(NULL), EMBER_DTYPE_UNDEFINED);
    assert_int_equal(ember_tensor_rank(NULL), -1);
    assert_null(ember_tensor_dims(NULL));
    assert_null(ember_tensor_data(NULL));
    assert_int_equal(ember_session_thread_count(NULL), 0);
    assert_int_equal(ember_profile_event_count(NULL), 0);
    assert_string_equal(ember_profile_event_op(NULL, 0), "");
    /* The declared shape with no room for dims gives the rank alone. */
    assert_int_equal(ember_model_input_shape(f->m, 0, NULL, EMBER_MAX_RANK), 4);
    int64_t dims[2] = {5, 5};
    assert_int_equal(ember_model_input_shape(f->m, 0, dims, -3), 4);
    assert_int_equal(dims[0], 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prepare_count_not_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prepare_null_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_input_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_absurd_batch, setup, teardown),
        cmocka_unit_test(test_tensor_shape_args),
        cmocka_unit_test_setup_teardown(test_session_option_values, setup, teardown),
        cmocka_unit_test(test_enum_values),
        cmocka_unit_test(test_handles),
        cmocka_unit_test_setup_teardown(test_null_objects, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
