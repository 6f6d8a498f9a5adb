/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript recurrent layers and attention through the public API: the fixtures of
 * tests/data/torchscript/rnn (tools/gen_ts_rnn_fixtures.py): LSTM / GRU / RNN layers (one and
 * two layers, bidirectional, batch_first, without biases, explicit and default initial
 * states), the four cells, scaled_dot_product_attention (masks, causal, 3-D, scale),
 * MultiheadAttention (weights, masks, the batch_first fast path) and TransformerEncoderLayer's
 * fast path; traced and scripted, saved by PyTorch 1.13 (t113) and 2.x (t2). Each archive is
 * loaded with its inputs' ranks, run on the traced shapes (case a) and on another sequence
 * length and batch (case b), and every output (h_n, c_n, attention weights too) is compared
 * with PyTorch eager's (rtol 1e-4, atol 1e-5). A test checks all archives of one module and
 * then names every one that failed. Also the errors: proj_size and packed sequences.
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
#include "common/test_ts.h"

#define MAX_IO 8

static const char *data_path(char *buf, size_t cap, const char *rel)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/torchscript/rnn/%s", root ? root : "tests/data", rel);
    return buf;
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        fclose(f);
    }
    return f != NULL;
}

/* Loads <name>.<case>.<what><i>.npy for i = 0.. while they exist; returns the count. */
static int load_set(const char *name, char cs, const char *what, ember_tensor **t)
{
    int n = 0;
    for (; n < MAX_IO; n++) {
        char rel[160], path[4096];
        snprintf(rel, sizeof rel, "%s.%c.%s%d.npy", name, cs, what, n);
        if (!exists(data_path(path, sizeof path, rel))) {
            break;
        }
        OK(ember_tensor_load(path, &t[n]));
    }
    return n;
}

static void free_set(ember_tensor **t, int n)
{
    for (int i = 0; i < n; i++) {
        ember_tensor_destroy(t[i]);
    }
}

/* Compares `got` with PyTorch's `want`; a message in err (non-empty) on mismatch. */
static void compare(const ember_tensor *got, const ember_tensor *want, char *err, size_t cap)
{
    if (ember_tensor_dtype(got) != ember_tensor_dtype(want) ||
        ember_tensor_rank(got) != ember_tensor_rank(want)) {
        snprintf(err, cap, "dtype or rank differs (rank %d, PyTorch %d)", ember_tensor_rank(got),
                 ember_tensor_rank(want));
        return;
    }
    for (int d = 0; d < ember_tensor_rank(want); d++) {
        if (ember_tensor_dims(got)[d] != ember_tensor_dims(want)[d]) {
            snprintf(err, cap, "dim %d is %lld, PyTorch %lld", d,
                     (long long)ember_tensor_dims(got)[d], (long long)ember_tensor_dims(want)[d]);
            return;
        }
    }
    const float *g = ember_tensor_data((ember_tensor *)got);
    const float *r = ember_tensor_data((ember_tensor *)want);
    for (int64_t i = 0; i < ember_tensor_elem_count(want); i++) {
        if (!(fabs((double)g[i] - r[i]) <= 1e-5 + 1e-4 * fabs((double)r[i]))) {
            snprintf(err, cap, "element %lld is %.8g, PyTorch gives %.8g", (long long)i,
                     (double)g[i], (double)r[i]);
            return;
        }
    }
}

/* Skips the test in a build without the TorchScript loader (configured without libzip). */
/* Runs archive `model` on case `cs` of fixture `name`; err gets what went wrong, if anything. */
static void run_case(const char *model, const char *name, char cs, char *err, size_t cap)
{
    ember_tensor *in[MAX_IO] = {0}, *want[MAX_IO] = {0}, *got[MAX_IO] = {0};
    int n_in = load_set(name, cs, "in", in), n_out = load_set(name, cs, "out", want);
    ember_model *m = NULL;
    ember_session *s = NULL;
    ember_dtype dt[MAX_IO];
    int ranks[MAX_IO];
    char path[4096];
    for (int i = 0; i < n_in; i++) {
        dt[i] = ember_tensor_dtype(in[i]);
        ranks[i] = ember_tensor_rank(in[i]);
    }
    ember_status *st =
        ts_test_try_load(data_path(path, sizeof path, model), dt, ranks, (size_t)n_in, &m);
    if (n_in == 0 || n_out == 0) {
        snprintf(err, cap, "no inputs or no PyTorch outputs for case %c", cs);
    } else if (st == NULL && ember_model_output_count(m) != (size_t)n_out) {
        snprintf(err, cap, "%zu outputs, PyTorch gives %d", ember_model_output_count(m), n_out);
    }
    if (st == NULL && err[0] == '\0') {
        st = ember_session_create(m, NULL, &s);
    }
    if (st == NULL && err[0] == '\0') {
        st = ember_session_run(s, in, (size_t)n_in, got, (size_t)n_out);
    }
    if (st != NULL) {
        snprintf(err, cap, "%s", ember_status_message(st));
        ember_status_destroy(st);
    }
    for (int o = 0; o < n_out && err[0] == '\0'; o++) {
        if (got[o] == NULL) {
            snprintf(err, cap, "no output tensor");
        } else {
            compare(got[o], want[o], err, cap);
        }
        if (err[0] != '\0') {
            char tmp[512];
            snprintf(tmp, sizeof tmp, "output %d: %s", o, err);
            snprintf(err, cap, "%s", tmp);
        }
    }
    free_set(got, n_out);
    ember_session_destroy(s);
    ember_model_destroy(m);
    free_set(in, n_in);
    free_set(want, n_out);
}

/* Every archive of fixture `name` (traced and scripted, both PyTorch generations, when the
 * generator wrote it) on both cases; fails naming each archive that does not match. */
static void check_model(const char *name)
{
    static const char *const kinds[] = {"trace", "script"};
    static const char *const tags[] = {"t113", "t2"};
    char report[8192] = "";
    int n_run = 0, n_bad = 0;
    for (int k = 0; k < 2; k++) {
        for (int t = 0; t < 2; t++) {
            char model[160], path[4096];
            snprintf(model, sizeof model, "%s.%s.%s.pt", name, kinds[k], tags[t]);
            if (!exists(data_path(path, sizeof path, model))) {
                continue;
            }
            for (const char *cs = "ab"; *cs != '\0'; cs++) {
                char err[1024] = "";
                run_case(model, name, *cs, err, sizeof err);
                n_run++;
                if (err[0] != '\0') {
                    size_t len = strlen(report);
                    snprintf(report + len, sizeof report - len, "\n  %s case %c: %.300s", model,
                             *cs, err);
                    n_bad++;
                    break; /* case b would fail the same way */
                }
            }
        }
    }
    assert_true(n_run > 0);
    if (n_bad > 0) {
        fail_msg("%s: %d archive(s) fail:%s", name, n_bad, report);
    }
}

#define MODEL_TEST(id)                 \
    static void test_##id(void **state) \
    {                                  \
        (void)state;                   \
        check_model(#id);              \
    }

MODEL_TEST(lstm1)
MODEL_TEST(lstm_bi2)
MODEL_TEST(lstm_bf_bi)
MODEL_TEST(gru_bi2)
MODEL_TEST(gru_bf)
MODEL_TEST(rnn_tanh2)
MODEL_TEST(rnn_relu_bf_bi)
MODEL_TEST(lstm_default)
MODEL_TEST(gru_default)
MODEL_TEST(cells)
MODEL_TEST(cells_default)
MODEL_TEST(sdpa)
MODEL_TEST(sdpa_scale)
MODEL_TEST(mha)
MODEL_TEST(encoder)

/* Loading `model` with inputs of these dtypes and ranks fails with `code` and `needle`. */
static void expect_load_error(const char *model, const ember_dtype *dt, const int *ranks, int n,
                              ember_code code, const char *needle)
{
    ember_model *m = NULL;
    char path[4096];
    ember_status *st =
        ts_test_try_load(data_path(path, sizeof path, model), dt, ranks, (size_t)n, &m);
    assert_non_null(st);
    if (ember_status_code(st) != code || strstr(ember_status_message(st), needle) == NULL) {
        fail_msg("%s: expected %s containing '%s', got %s: %s", model, ember_code_name(code),
                 needle, ember_code_name(ember_status_code(st)), ember_status_message(st));
    }
    assert_null(m);
    ember_status_destroy(st);
}

static void test_errors(void **state)
{
    (void)state;
    const ember_dtype f = EMBER_DTYPE_F32;
    expect_load_error("lstm_proj.trace.t113.pt", (ember_dtype[]){f, f, f}, (int[]){3, 3, 3}, 3,
                      EMBER_ERR_UNSUPPORTED, "aten::lstm with proj_size");
    expect_load_error("lstm_packed.script.t113.pt", (ember_dtype[]){f, EMBER_DTYPE_I64, f, f},
                      (int[]){2, 1, 3, 3}, 4, EMBER_ERR_UNSUPPORTED, "PackedSequence");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lstm1),          cmocka_unit_test(test_lstm_bi2),
        cmocka_unit_test(test_lstm_bf_bi),     cmocka_unit_test(test_gru_bi2),
        cmocka_unit_test(test_gru_bf),         cmocka_unit_test(test_rnn_tanh2),
        cmocka_unit_test(test_rnn_relu_bf_bi), cmocka_unit_test(test_lstm_default),
        cmocka_unit_test(test_gru_default),    cmocka_unit_test(test_cells),
        cmocka_unit_test(test_cells_default),  cmocka_unit_test(test_sdpa),
        cmocka_unit_test(test_sdpa_scale),     cmocka_unit_test(test_mha),
        cmocka_unit_test(test_encoder),        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
