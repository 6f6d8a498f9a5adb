/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fixed input shapes at load (ember_model_options_set_input_shape / _at / _set_dim_value):
 * argument checks, shapes that contradict the model (one clear error naming the file and the
 * input), symbolic models whose inputs and outputs become concrete (the built-in CNN, an ONNX
 * CNN with dims N, H, W), and a TorchScript block (tests/data/torchscript/tensor/swinblock,
 * tools/gen_ts_tensor_fixtures.py) whose window pads and reshape targets come from x's size:
 * with the shape fixed they fold and its Linear + GELU fuses into a FusedGemm; outputs against
 * PyTorch eager's, and against the same model loaded with symbolic dims.
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
#include "common/test_data.h"
#include "common/test_onnx_model.h"

static void expect_dims(const int64_t *got, int rank, const int64_t *want, int want_rank)
{
    assert_int_equal(rank, want_rank);
    for (int d = 0; d < rank; d++) {
        assert_int_equal(got[d], want[d]);
    }
}

/* How many nodes of op `op` the model has after its passes. */
static int op_count(const ember_model *m, const char *op)
{
    int n = 0;
    for (size_t i = 0; i < ember_model_node_count(m); i++) {
        n += strcmp(ember_model_node_op(m, i), op) == 0;
    }
    return n;
}

/* Runs m on x (one input, one output) with one thread. */
static ember_status *run1(const ember_model *m, ember_tensor *x, ember_tensor **y)
{
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 1);
    OK(ember_session_create(m, so, &s));
    ember_session_options_destroy(so);
    ember_status *st = ember_session_run(s, &x, 1, y, 1);
    ember_session_destroy(s);
    return st;
}

static void expect_close(const ember_tensor *a, const ember_tensor *b, float tol)
{
    assert_int_equal(ember_tensor_elem_count(a), ember_tensor_elem_count(b));
    const float *p = ember_tensor_data((ember_tensor *)a), *q = ember_tensor_data((ember_tensor *)b);
    for (int64_t i = 0; i < ember_tensor_elem_count(a); i++) {
        if (!(fabsf(p[i] - q[i]) <= tol * (1.0f + fabsf(q[i])))) {
            fail_msg("element %lld: %g, want %g", (long long)i, (double)p[i], (double)q[i]);
        }
    }
}

static void fill(ember_tensor *t)
{
    float *p = ember_tensor_data(t);
    for (int64_t i = 0; i < ember_tensor_elem_count(t); i++) {
        p[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    }
}

/* m and the symbolic model `plain` agree on an input of shape dims[4]. */
static void expect_same_run(const ember_model *m, const ember_model *plain, const int64_t *dims)
{
    ember_tensor *x = NULL, *y = NULL, *want = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 4, &x));
    fill(x);
    OK(run1(m, x, &y));
    OK(run1(plain, x, &want));
    expect_close(y, want, 1e-5f);
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ember_tensor_destroy(want);
}

static void test_args(void **state)
{
    (void)state;
    ember_model_options *mo = NULL;
    const int64_t d4[4] = {1, 3, 8, 8}, bad[2] = {1, -2};
    EXPECT_ERR(ember_model_options_set_input_shape(NULL, "x", d4, 4), EMBER_ERR_INVALID_ARG,
               "model_options_set_input_shape: NULL options");
    EXPECT_ERR(ember_model_options_set_input_shape_at(NULL, 0, d4, 4), EMBER_ERR_INVALID_ARG,
               "model_options_set_input_shape_at: NULL options");
    EXPECT_ERR(ember_model_options_set_dim_value(NULL, "N", 1), EMBER_ERR_INVALID_ARG,
               "model_options_set_dim_value: NULL options");
    OK(ember_model_options_create(&mo));
    EXPECT_ERR(ember_model_options_set_input_shape(mo, NULL, d4, 4), EMBER_ERR_INVALID_ARG,
               "NULL name");
    EXPECT_ERR(ember_model_options_set_input_shape(mo, "", d4, 4), EMBER_ERR_INVALID_ARG,
               "empty name");
    EXPECT_ERR(ember_model_options_set_input_shape(mo, "x", NULL, 4), EMBER_ERR_INVALID_ARG,
               "NULL dims");
    EXPECT_ERR(ember_model_options_set_input_shape(mo, "x", d4, -1), EMBER_ERR_INVALID_ARG,
               "rank -1 is out of range 0..8");
    EXPECT_ERR(ember_model_options_set_input_shape_at(mo, 0, d4, 9), EMBER_ERR_INVALID_ARG,
               "rank 9 is out of range 0..8");
    EXPECT_ERR(ember_model_options_set_input_shape_at(mo, 0, bad, 2), EMBER_ERR_INVALID_ARG,
               "dim 1 is -2");
    EXPECT_ERR(ember_model_options_set_dim_value(mo, NULL, 1), EMBER_ERR_INVALID_ARG,
               "NULL dim_name");
    EXPECT_ERR(ember_model_options_set_dim_value(mo, "", 1), EMBER_ERR_INVALID_ARG,
               "empty dim_name");
    EXPECT_ERR(ember_model_options_set_dim_value(mo, "N", -1), EMBER_ERR_INVALID_ARG,
               "negative size");
    OK(ember_model_options_set_input_shape(mo, "x", NULL, 0)); /* a scalar: no dims needed */
    /* 64 shapes (the scalar's among them) and 64 dim names; the same name or index again
     * replaces, a 65th is refused. */
    for (int i = 0; i < 62; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        OK(ember_model_options_set_input_shape(mo, name, d4, 4));
        OK(ember_model_options_set_dim_value(mo, name, i));
        OK(ember_model_options_set_dim_value(mo, name, i + 1));
    }
    OK(ember_model_options_set_input_shape(mo, "in0", d4, 2));
    OK(ember_model_options_set_input_shape_at(mo, 5, d4, 4));
    OK(ember_model_options_set_input_shape_at(mo, 5, d4, 3));
    OK(ember_model_options_set_dim_value(mo, "last", 1));
    OK(ember_model_options_set_dim_value(mo, "last2", 1));
    EXPECT_ERR(ember_model_options_set_input_shape_at(mo, 6, d4, 4), EMBER_ERR_INVALID_ARG,
               "more than 64 fixed input shapes");
    EXPECT_ERR(ember_model_options_set_dim_value(mo, "more", 1), EMBER_ERR_INVALID_ARG,
               "more than 64 fixed dims");
    ember_model_options_destroy(mo);
    ember_model_options_destroy(NULL);
}

/* Loads the built-in CNN (input "input" f32[N,1,28,28]) with one fix applied by `set`. */
static ember_status *load_builtin(ember_status *(*set)(ember_model_options *), ember_model **m)
{
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    ember_status *st = set(mo);
    if (st == NULL) {
        st = ember_model_load_builtin("default", mo, m);
    }
    ember_model_options_destroy(mo);
    return st;
}

static ember_status *set_batch4(ember_model_options *mo)
{
    const int64_t d[4] = {4, 1, 28, 28};
    return ember_model_options_set_input_shape(mo, "input", d, 4);
}

static ember_status *set_n3(ember_model_options *mo)
{
    ember_status *st = ember_model_options_set_dim_value(mo, "N", 3);
    return st != NULL ? st : ember_model_options_set_dim_value(mo, "no_such_dim", 7);
}

static ember_status *set_free_batch(ember_model_options *mo)
{
    const int64_t d[4] = {-1, 1, 28, 28}; /* -1: N stays symbolic */
    return ember_model_options_set_input_shape_at(mo, 0, d, 4);
}

static ember_status *set_wrong_dim(ember_model_options *mo)
{
    const int64_t d[4] = {4, 1, 28, 29};
    return ember_model_options_set_input_shape(mo, "input", d, 4);
}

static ember_status *set_wrong_rank(ember_model_options *mo)
{
    const int64_t d[3] = {4, 28, 28};
    return ember_model_options_set_input_shape_at(mo, 0, d, 3);
}

static ember_status *set_wrong_name(ember_model_options *mo)
{
    const int64_t d[4] = {4, 1, 28, 28};
    return ember_model_options_set_input_shape(mo, "image", d, 4);
}

static ember_status *set_wrong_index(ember_model_options *mo)
{
    const int64_t d[4] = {4, 1, 28, 28};
    return ember_model_options_set_input_shape_at(mo, 1, d, 4);
}

static ember_status *set_disagree(ember_model_options *mo)
{
    const int64_t d[4] = {4, 1, 28, 28};
    ember_status *st = ember_model_options_set_input_shape(mo, "input", d, 4);
    return st != NULL ? st : ember_model_options_set_dim_value(mo, "N", 2);
}

static void test_builtin(void **state)
{
    (void)state;
    ember_model *plain = NULL, *m = NULL;
    int64_t dims[EMBER_MAX_RANK];
    OK(ember_model_load_builtin("default", NULL, &plain));
    OK(load_builtin(set_batch4, &m));
    const int64_t in4[4] = {4, 1, 28, 28}, out4[2] = {4, 10}, out3[2] = {3, 10};
    expect_dims(dims, ember_model_input_shape(m, 0, dims, EMBER_MAX_RANK), in4, 4);
    expect_dims(dims, ember_model_output_shape(m, 0, dims, EMBER_MAX_RANK), out4, 2);
    assert_null(ember_model_input_dim_name(m, 0, 0));
    /* Same outputs as the symbolic model on that shape; another batch is refused. */
    expect_same_run(m, plain, in4);
    ember_tensor *x = NULL, *y = NULL;
    const int64_t in2[4] = {2, 1, 28, 28};
    OK(ember_tensor_create(EMBER_DTYPE_F32, in2, 4, &x));
    EXPECT_ERR(run1(m, x, &y), EMBER_ERR_INVALID_ARG, "input");
    ember_tensor_destroy(x);
    ember_model_destroy(m);
    /* By dim name: N fixed; a name no input has is ignored. */
    OK(load_builtin(set_n3, &m));
    expect_dims(dims, ember_model_output_shape(m, 0, dims, EMBER_MAX_RANK), out3, 2);
    ember_model_destroy(m);
    /* -1 leaves the dim symbolic. */
    OK(load_builtin(set_free_batch, &m));
    assert_int_equal(ember_model_input_shape(m, 0, dims, EMBER_MAX_RANK), 4);
    assert_true(dims[0] < 0);
    assert_string_equal(ember_model_input_dim_name(m, 0, 0), "N");
    ember_model_destroy(m);
    ember_model_destroy(plain);
    /* Contradictions: one line naming the model and the input. */
    m = (ember_model *)(void *)&m;
    EXPECT_ERR(load_builtin(set_wrong_dim, &m), EMBER_ERR_INVALID_ARG, "builtin:default",
               "input 'input'", "dim 3 the size 29, but it is 28");
    assert_null(m);
    EXPECT_ERR(load_builtin(set_wrong_rank, &m), EMBER_ERR_INVALID_ARG, "input 'input'",
               "[4,28,28] has rank 3", "[?,1,28,28] (rank 4)");
    EXPECT_ERR(load_builtin(set_wrong_name, &m), EMBER_ERR_INVALID_ARG, "input 'image'",
               "no input of that name (its inputs: 'input')");
    EXPECT_ERR(load_builtin(set_wrong_index, &m), EMBER_ERR_INVALID_ARG,
               "fixed for input 1, but the model has 1 input");
    EXPECT_ERR(load_builtin(set_disagree, &m), EMBER_ERR_INVALID_ARG, "input 'input'",
               "dim 'N' gives dim 0 the size 2, but it is 4");
    assert_null(m);
}

/* Whether this build has the loader named (ember_build_info's ",onnx", ",torchscript"). */
static bool have_loader(const char *tag) { return strstr(ember_build_info(), tag) != NULL; }

/* An ONNX CNN with x f32[N,3,H,W] and y f32[N,5]: dims by name make both concrete. */
static void test_onnx_dims(void **state)
{
    (void)state;
    if (!have_loader(",onnx")) {
        skip(); /* configured without the ONNX loader */
    }
    size_t size = 0, wbytes = 0;
    uint8_t *bytes = test_onnx_cnn(4, 8, 5, &size, &wbytes);
    ember_model_options *mo = NULL;
    ember_model *m = NULL, *plain = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_dim_value(mo, "N", 2));
    OK(ember_model_options_set_dim_value(mo, "H", 12));
    OK(ember_model_options_set_dim_value(mo, "W", 10));
    ember_status *st = ember_model_load_memory(bytes, size, 0, mo, &m);
    if (st != NULL && strstr(ember_status_message(st), "no loader") != NULL) {
        ember_status_destroy(st);
        ember_model_options_destroy(mo);
        free(bytes);
        skip();
    }
    OK(st);
    OK(ember_model_load_memory(bytes, size, 0, NULL, &plain));
    int64_t dims[EMBER_MAX_RANK];
    const int64_t in[4] = {2, 3, 12, 10}, out[2] = {2, 5};
    expect_dims(dims, ember_model_input_shape(m, 0, dims, EMBER_MAX_RANK), in, 4);
    expect_dims(dims, ember_model_output_shape(m, 0, dims, EMBER_MAX_RANK), out, 2);
    assert_true(ember_model_output_shape(plain, 0, dims, EMBER_MAX_RANK) == 2 && dims[0] < 0);
    expect_same_run(m, plain, in);
    ember_model_destroy(m);
    /* A shape against the file's fixed channel count. */
    const int64_t bad[4] = {2, 4, 12, 10};
    OK(ember_model_options_set_input_shape(mo, "x", bad, 4));
    m = NULL;
    EXPECT_ERR(ember_model_load_memory(bytes, size, 0, mo, &m), EMBER_ERR_INVALID_ARG,
               "<memory>: input 'x'", "dim 1 the size 4, but it is 3");
    assert_null(m);
    ember_model_options_destroy(mo);
    ember_model_destroy(plain);
    free(bytes);
}

#define ts_path(rel) test_data_path("torchscript/tensor/", rel)

/* Loads swinblock.<kind>.pt: with the shape of `x` fixed when `fix`, else of rank 4. */
static ember_model *load_block(const char *kind, const ember_tensor *x, bool fix)
{
    char file[64];
    snprintf(file, sizeof file, "swinblock.%s.pt", kind);
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    if (fix) {
        OK(ember_model_options_set_input_shape(mo, "x", ember_tensor_dims(x), 4));
    } else {
        OK(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, 4));
    }
    ember_status *st = ember_model_load_file(ts_path(file), mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL) {
        fail_msg("%s: %s", file, ember_status_message(st));
    }
    return m;
}

/* The first tensor of a .npys file (8-byte length, then a .npy image). */
static ember_tensor *load_npys_first(const char *file)
{
    FILE *f = fopen(ts_path(file), "rb");
    assert_non_null(f);
    unsigned char len8[8];
    assert_int_equal(fread(len8, 1, 8, f), 8);
    uint64_t len = 0;
    for (int i = 7; i >= 0; i--) {
        len = len << 8 | len8[i];
    }
    unsigned char *buf = malloc(len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, len, f), len);
    fclose(f);
    ember_tensor *t = NULL;
    OK(ember_tensor_load_npy_memory(buf, len, file, &t));
    free(buf);
    return t;
}

static void test_torchscript_block(void **state)
{
    (void)state;
    if (!have_loader(",torchscript")) {
        skip(); /* configured without the TorchScript loader */
    }
    static const char *const kinds[] = {"trace.t113", "script.t113", "trace.t2", "script.t2"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int which = 0; which < 2; which++) {
            ember_tensor *x = NULL, *y = NULL, *ys = NULL;
            OK(ember_tensor_load(ts_path(which ? "swinblock.in2.npy" : "swinblock.in.npy"), &x));
            ember_tensor *want = load_npys_first(which ? "swinblock.out2.npys"
                                                       : "swinblock.out.npys");
            ember_model *fixed = load_block(kinds[k], x, true);
            ember_model *sym = load_block(kinds[k], x, false);
            /* Symbolic: the sizes are computed at run time and fc1 + GELU stay apart. */
            assert_true(op_count(sym, "Shape") > 0);
            assert_true(op_count(sym, "MatMul") > 0);
            /* Fixed: shape arithmetic folded, fc1 + GELU one FusedGemm, and the pad, when
             * the size needs none, gone. */
            assert_int_equal(op_count(fixed, "Shape"), 0);
            assert_int_equal(op_count(fixed, "MatMul"), 0);
            assert_int_equal(op_count(fixed, "Gelu"), 0);
            assert_int_equal(op_count(fixed, "FusedGemm"), 1);
            assert_int_equal(op_count(fixed, "Pad"), which ? 0 : 1);
            assert_true(ember_model_node_count(fixed) < ember_model_node_count(sym));
            int64_t dims[EMBER_MAX_RANK];
            expect_dims(dims, ember_model_output_shape(fixed, 0, dims, EMBER_MAX_RANK),
                        ember_tensor_dims(want), 4);
            OK(run1(fixed, x, &y));
            OK(run1(sym, x, &ys));
            expect_close(y, want, 1e-4f);
            expect_close(y, ys, 1e-5f);
            ember_tensor_destroy(y);
            ember_tensor_destroy(ys);
            ember_tensor_destroy(want);
            ember_tensor_destroy(x);
            ember_model_destroy(fixed);
            ember_model_destroy(sym);
        }
    }
}

/* TorchScript: a shape whose rank differs from set_input_rank's, and a name that is no
 * argument of forward(). */
static void test_torchscript_errors(void **state)
{
    (void)state;
    if (!have_loader(",torchscript")) {
        skip(); /* configured without the TorchScript loader */
    }
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    const int64_t d[4] = {1, 5, 7, 8};
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, 3));
    OK(ember_model_options_set_input_shape_at(mo, 0, d, 4));
    ember_status *st = ember_model_load_file(ts_path("swinblock.trace.t2.pt"), mo, &m);
    EXPECT_ERR(st, EMBER_ERR_INVALID_ARG, "swinblock.trace.t2.pt", "input 'x'", "rank 4",
               "(rank 3)");
    ember_model_options_destroy(mo);
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_input_shape(mo, "input", d, 4));
    EXPECT_ERR(ember_model_load_file(ts_path("swinblock.trace.t2.pt"), mo, &m),
               EMBER_ERR_INVALID_ARG, "input 'input'", "its inputs: 'x'");
    assert_null(m);
    ember_model_options_destroy(mo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_onnx_dims),
        cmocka_unit_test(test_torchscript_block),
        cmocka_unit_test(test_torchscript_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
