/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember_model_save_onnx through ember.h: TorchScript fixtures (traced and scripted, torch 1.13
 * and 2.x: convolutions, a Loop, LSTM, GRU, a transformer encoder) and ONNX fixtures (a Loop,
 * a subgraph with its own initializers, strings, external data, ONNX Runtime's quantizer's
 * QOperator file with com.microsoft ops and its QDQ file) are loaded at
 * EMBER_GRAPH_OPT_FOLD, written as ONNX, loaded back at the default level and run on the
 * fixture's inputs next to the original model: every output must agree (floats within 1e-5 +
 * 1e-5 |x|, other dtypes and strings exactly), inputs and outputs keep their names, dtypes
 * and symbolic dims, metadata survives. Then what a user gets wrong: NULL arguments, a graph
 * with ember's fused ops (UNSUPPORTED naming the node), paths that cannot be written (IO
 * naming the file, and nothing left behind). ONNX Runtime reading the written files is checked
 * outside CI (docs/NOTES.md: the suite's models through `ember convert` and ORT).
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"
#include <dirent.h>
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

#include "common/test_data.h"
#include "common/test_ok.h"
#include "common/test_ts.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/ember_save_onnx_XXXXXX", t && t[0] ? t : "/tmp");
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

/* Removes every file of tmpdir, then tmpdir; fails when `expect_empty` and something is left
 * (a temporary file a failed write should have removed). */
static void clean_tmpdir(bool expect_empty)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    struct dirent *e;
    char left[300] = "";
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char p[600];
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        if (left[0] == '\0') {
            snprintf(left, sizeof left, "%s", e->d_name);
        }
        remove(p);
    }
    closedir(d);
    if (expect_empty && left[0] != '\0') {
        fail_msg("left behind in %s: %s", tmpdir, left);
    }
}

static int teardown(void **state)
{
    (void)state;
    clean_tmpdir(false);
    rmdir(tmpdir);
    return 0;
}

static const char *tmp_path(const char *name)
{
    static _Thread_local char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* Loads `path` at level FOLD (TorchScript: inputs of these dtypes and ranks). Skips the test
 * when the build lacks the loader. */
static ember_model *load_fold(const char *path, const ember_tensor *const *in, size_t n_in)
{
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD));
    for (size_t i = 0; i < n_in; i++) {
        OK(ember_model_options_set_input_rank(mo, i, ember_tensor_dtype(in[i]),
                                              ember_tensor_rank(in[i])));
    }
    ember_status *st = ember_model_load_file(path, mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL && strstr(ember_status_message(st), "this build has no") != NULL) {
        ember_status_destroy(st);
        skip();
    }
    if (st != NULL) {
        fail_msg("%s: %s", path, ember_status_message(st));
    }
    return m;
}

static ember_model *load_back(const char *path)
{
    ember_model *m = NULL;
    ember_status *st = ember_model_load_file(path, NULL, &m);
    if (st != NULL && strstr(ember_status_message(st), "this build has no") != NULL) {
        ember_status_destroy(st); /* written without the ONNX loader: cannot be read back */
        skip();
    }
    if (st != NULL) {
        fail_msg("reading back %s: %s", path, ember_status_message(st));
    }
    return m;
}

static void run(ember_model *m, ember_tensor *const *in, size_t n_in, ember_tensor **out,
                size_t n_out)
{
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, in, n_in, out, n_out));
    ember_session_destroy(s);
}

static void compare(const char *what, size_t k, ember_tensor *a, ember_tensor *b)
{
    assert_int_equal(ember_tensor_dtype(a), ember_tensor_dtype(b));
    assert_int_equal(ember_tensor_rank(a), ember_tensor_rank(b));
    for (int d = 0; d < ember_tensor_rank(a); d++) {
        assert_int_equal(ember_tensor_dims(a)[d], ember_tensor_dims(b)[d]);
    }
    int64_t n = ember_tensor_elem_count(a);
    if (ember_tensor_dtype(a) == EMBER_DTYPE_STRING) {
        for (int64_t i = 0; i < n; i++) {
            assert_string_equal(ember_tensor_string(a, i), ember_tensor_string(b, i));
        }
    } else if (ember_tensor_dtype(a) == EMBER_DTYPE_F32) {
        const float *x = ember_tensor_data(a), *y = ember_tensor_data(b);
        for (int64_t i = 0; i < n; i++) {
            bool same = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) ||
                        fabs((double)x[i] - y[i]) <= 1e-5 + 1e-5 * fabs((double)x[i]);
            if (!same) {
                fail_msg("%s: output %zu element %lld: original %.9g, written back %.9g", what,
                         k, (long long)i, (double)x[i], (double)y[i]);
            }
        }
    } else {
        assert_memory_equal(ember_tensor_data(a), ember_tensor_data(b), ember_tensor_nbytes(a));
    }
}

static void same_signature(const ember_model *a, const ember_model *b)
{
    assert_int_equal(ember_model_input_count(a), ember_model_input_count(b));
    assert_int_equal(ember_model_output_count(a), ember_model_output_count(b));
    for (size_t i = 0; i < ember_model_input_count(a); i++) {
        assert_string_equal(ember_model_input_name(a, i), ember_model_input_name(b, i));
        assert_int_equal(ember_model_input_dtype(a, i), ember_model_input_dtype(b, i));
        int64_t da[EMBER_MAX_RANK], db[EMBER_MAX_RANK];
        int ra = ember_model_input_shape(a, i, da, EMBER_MAX_RANK);
        assert_int_equal(ra, ember_model_input_shape(b, i, db, EMBER_MAX_RANK));
        for (int d = 0; d < ra; d++) {
            assert_int_equal(da[d], db[d]);
            const char *na = ember_model_input_dim_name(a, i, d);
            const char *nb = ember_model_input_dim_name(b, i, d);
            assert_true((na == NULL) == (nb == NULL));
            if (na != NULL) {
                assert_string_equal(na, nb);
            }
        }
    }
    for (size_t i = 0; i < ember_model_output_count(a); i++) {
        assert_string_equal(ember_model_output_name(a, i), ember_model_output_name(b, i));
        assert_int_equal(ember_model_output_dtype(a, i), ember_model_output_dtype(b, i));
    }
}

/* Loads `path` at FOLD with inputs in[], saves it, reads it back, and compares signature and
 * outputs of both on in[]. Returns the written-back model (the caller destroys it). */
static ember_model *roundtrip(const char *path, ember_tensor **in, size_t n_in)
{
    bool ts = strstr(path, ".pt") != NULL; /* TorchScript declares no ranks: the inputs' */
    ember_model *m = load_fold(path, (const ember_tensor *const *)in, ts ? n_in : 0);
    const char *out = tmp_path("model.onnx");
    ember_status *st = ember_model_save_onnx(m, out);
    if (st != NULL) {
        fail_msg("saving %s: %s", path, ember_status_message(st));
    }
    ember_model *back = load_back(out);
    assert_string_equal(ember_model_format(back), "onnx");
    same_signature(m, back);
    size_t n_out = ember_model_output_count(m);
    ember_tensor *ya[8] = {NULL}, *yb[8] = {NULL};
    assert_true(n_out <= 8);
    run(m, in, n_in, ya, n_out);
    run(back, in, n_in, yb, n_out);
    for (size_t k = 0; k < n_out; k++) {
        compare(path, k, ya[k], yb[k]);
        ember_tensor_destroy(ya[k]);
        ember_tensor_destroy(yb[k]);
    }
    ember_model_destroy(m);
    return back;
}

static void ts_case(const char *name, const char *form)
{
    char model[128], input[128];
    snprintf(model, sizeof model, "%s.%s.pt", name, form);
    snprintf(input, sizeof input, "%s.in.npy", name);
    ember_tensor *x = NULL;
    OK(ember_tensor_load(test_data_path("torchscript/models/", input), &x));
    ember_model *back = roundtrip(test_data_path("torchscript/models/", model), &x, 1);
    /* the archive's own description travels as metadata_props */
    bool found = false;
    for (size_t i = 0; i < ember_model_metadata_count(back); i++) {
        const char *k = NULL, *v = NULL;
        assert_true(ember_model_metadata(back, i, &k, &v));
        found |= strcmp(k, "torchscript.version") == 0 && v[0] != '\0';
    }
    assert_true(found);
    ember_model_destroy(back);
    ember_tensor_destroy(x);
    clean_tmpdir(false);
}

static void test_torchscript(void **state)
{
    (void)state;
    static const char *const names[] = {"tiny_cnn",  "tiny_resnet", "tiny_mobile",
                                        "tiny_vgg",  "tiny_shuffle", "lstm",
                                        "gru",       "transformer", "rnn_cell_loop"};
    static const char *const forms[] = {"trace.t2", "script.t2", "trace.t113", "script.t113"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            char model[128];
            snprintf(model, sizeof model, "%s.%s.pt", names[i], forms[f]);
            FILE *probe = fopen(test_data_path("torchscript/models/", model), "rb");
            if (probe == NULL) {
                continue; /* not every fixture has every form */
            }
            fclose(probe);
            ts_case(names[i], forms[f]);
        }
    }
}

/* An attention model needs opset 23 (Attention's first): the writer declares what it uses. */
static void test_opset(void **state)
{
    (void)state;
    ember_tensor *x = NULL;
    OK(ember_tensor_load(test_data_path("torchscript/models/", "transformer.in.npy"), &x));
    ember_model *back = roundtrip(test_data_path("torchscript/models/", "transformer.trace.t2.pt"),
                                  &x, 1);
    bool attention = false;
    for (size_t i = 0; i < ember_model_node_count(back); i++) {
        attention |= strcmp(ember_model_node_op(back, i), "Attention") == 0;
    }
    const char *domain = NULL;
    int64_t version = 0;
    assert_int_equal(ember_model_opset_count(back), 1);
    assert_true(ember_model_opset(back, 0, &domain, &version));
    assert_string_equal(domain, "");
    assert_true(version >= (attention ? 23 : 21));
    ember_model_destroy(back);
    ember_tensor_destroy(x);
    clean_tmpdir(false);
}

static void onnx_case(const char *name, int n_in)
{
    char model[128];
    snprintf(model, sizeof model, "%s.onnx", name);
    ember_tensor *in[4] = {NULL};
    for (int i = 0; i < n_in; i++) {
        char f[128];
        snprintf(f, sizeof f, "%s.in%d.npy", name, i);
        OK(ember_tensor_load(test_data_path("onnx/", f), &in[i]));
    }
    ember_model_destroy(roundtrip(test_data_path("onnx/", model), in, (size_t)n_in));
    for (int i = 0; i < n_in; i++) {
        ember_tensor_destroy(in[i]);
    }
    clean_tmpdir(false);
}

static void test_onnx(void **state)
{
    (void)state;
    onnx_case("cnn_v13", 1);
    onnx_case("cnn_v7", 1);        /* opset 7 source: written at 21 in the newest forms */
    onnx_case("softmax_v11_sym", 1);
    onnx_case("loop", 3);          /* a Loop body */
    onnx_case("subgraph_init", 1); /* a body with initializers of its own */
    onnx_case("text", 2);          /* string inputs, outputs and initializers */
    onnx_case("external", 1);      /* external data in: written inline */
    onnx_case("groupnorm_v18", 1);
    /* ORT's quantizer's QOperator (com.microsoft QLinearAdd, QGemm, ...) and QDQ forms */
    ember_tensor *q = NULL;
    OK(ember_tensor_load(test_data_path("qdq/", "small.in0.npy"), &q));
    ember_model_destroy(roundtrip(test_data_path("qdq/", "small_qop.onnx"), &q, 1));
    clean_tmpdir(false);
    ember_model_destroy(roundtrip(test_data_path("qdq/", "small_qdq.onnx"), &q, 1));
    clean_tmpdir(false);
    ember_tensor_destroy(q);
}

static void test_errors(void **state)
{
    (void)state;
    clean_tmpdir(false); /* what a test skipped after writing left */
    ember_model *m = NULL;
    ember_status *st = ember_model_save_onnx(NULL, tmp_path("x.onnx"));
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    OK(ember_model_load_builtin("default", NULL, &m)); /* level ALL: fused convolutions */
    st = ember_model_save_onnx(m, NULL);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    ember_status_destroy(st);
    st = ember_model_save_onnx(m, tmp_path("fused.onnx"));
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "FusedConv"));
    assert_non_null(strstr(ember_status_message(st), "EMBER_GRAPH_OPT_FOLD"));
    ember_status_destroy(st);
    clean_tmpdir(true); /* nothing written */
    ember_model_destroy(m);

    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD));
    OK(ember_model_load_builtin("default", mo, &m));
    ember_model_options_destroy(mo);
    st = ember_model_save_onnx(m, tmp_path("no/such/folder/x.onnx"));
    assert_int_equal(ember_status_code(st), EMBER_ERR_IO);
    assert_non_null(strstr(ember_status_message(st), "no/such/folder/x.onnx"));
    ember_status_destroy(st);
    st = ember_model_save_onnx(m, tmpdir); /* a folder */
    assert_int_equal(ember_status_code(st), EMBER_ERR_IO);
    ember_status_destroy(st);
    clean_tmpdir(true);
    /* an existing file is replaced whole */
    FILE *f = fopen(tmp_path("old.onnx"), "wb");
    assert_non_null(f);
    fputs("not a model", f);
    fclose(f);
    OK(ember_model_save_onnx(m, tmp_path("old.onnx")));
    ember_model *back = load_back(tmp_path("old.onnx"));
    same_signature(m, back);
    ember_model_destroy(back);
    ember_model_destroy(m);
    clean_tmpdir(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torchscript),
        cmocka_unit_test(test_opset),
        cmocka_unit_test(test_onnx),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
