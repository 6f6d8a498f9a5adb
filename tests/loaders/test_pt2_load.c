/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/pt2 through the public API: the torch.export fixtures of tests/data/pt2
 * (tools/gen_pt2_fixtures.py, torch 2.15: an MLP, a small CNN, a transformer encoder layer,
 * each as exported and after run_decompositions(), an MLP with a dynamic batch dim and the
 * encoder with dynamic batch and sequence dims, run on other sizes, a torch.cond model run on
 * both branches, a two-layer LSTM, while_loop and map as Loop nodes) against PyTorch eager (rtol 1e-4, atol 1e-5); user inputs
 * and outputs keep their names, parameters their FQNs. Symbolic dims' ranges are checked at
 * run time and at load-time fixes. The older layouts (torch 2.1-2.7's flat archive, torch
 * 2.8's torch.save'd weights) give the same results; an archive of two programs loads either
 * by name. Bad archives give one clear line naming the node, field, tensor or record; weight
 * records that are not aligned in the file still run; truncations of an archive at many
 * points never crash or leak (test allocator); a TorchScript archive is still told apart from
 * a .pt2 by content. PT2E quantized programs (torchao's XNNPACKQuantizer and
 * X86InductorQuantizer) match PyTorch's quantized model within one output step, with their
 * convs and linears on the int8 kernels when the rewrite is on.
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

#include "common/test_alloc.h"
#include "common/test_data.h"
#include "common/test_ok.h"

#define data_path(rel) test_data_path("pt2/", rel)

/* Model options whose allocator is cmocka's: a leak fails the test. */
static ember_model_options *opts(void)
{
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, test_allocator());
    return mo;
}

static ember_model *load(const char *file)
{
    ember_model *m = NULL;
    ember_model_options *mo = opts();
    ember_status *st = ember_model_load_file(data_path(file), mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL) {
        fail_msg("%s: %s", file, ember_status_message(st));
    }
    assert_string_equal(ember_model_format(m), "pt2");
    return m;
}

/* Runs `m` on <name>_input.npy and compares with <name>_expected.npy. */
static void check_loaded(ember_model *m, const char *name)
{
    char in[128], out[128];
    snprintf(in, sizeof in, "%s_input.npy", name);
    snprintf(out, sizeof out, "%s_expected.npy", name);
    ember_tensor *x = NULL, *want = NULL, *y = NULL;
    OK(ember_tensor_load(data_path(in), &x));
    OK(ember_tensor_load(data_path(out), &want));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_int_equal(ember_tensor_rank(y), ember_tensor_rank(want));
    for (int d = 0; d < ember_tensor_rank(y); d++) {
        assert_int_equal(ember_tensor_dims(y)[d], ember_tensor_dims(want)[d]);
    }
    const float *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
    for (int64_t i = 0; i < ember_tensor_elem_count(want); i++) {
        if (!(fabs((double)got[i] - ref[i]) <= 1e-5 + 1e-4 * fabs((double)ref[i]))) {
            fail_msg("%s: element %lld is %.8g, PyTorch gives %.8g", name, (long long)i,
                     (double)got[i], (double)ref[i]);
        }
    }
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_tensor_destroy(x);
    ember_tensor_destroy(want);
}

/* Loads `file` and runs it on <name>_input.npy against <name>_expected.npy. */
static void check_file(const char *file, const char *name)
{
    ember_model *m = load(file);
    assert_int_equal(ember_model_input_count(m), 1);
    assert_int_equal(ember_model_output_count(m), 1);
    assert_string_equal(ember_model_input_name(m, 0), strncmp(name, "encoder", 7) == 0 ? "src"
                                                                                       : "x");
    check_loaded(m, name);
    ember_model_destroy(m);
}

/* Runs <name>.pt2 on <name>_input.npy and compares with <name>_expected.npy. */
static void check_model(const char *name)
{
    char file[128];
    snprintf(file, sizeof file, "%s.pt2", name);
    check_file(file, name);
}

static void test_mlp(void **state)
{
    (void)state;
    check_model("mlp");
    check_model("mlp_core");
}

static void test_cnn(void **state)
{
    (void)state;
    check_model("cnn");
    check_model("cnn_core");
}

static void test_encoder(void **state)
{
    (void)state;
    check_model("encoder");
    check_model("encoder_core");
    /* batch and sequence dims symbolic (Dim B, Dim S): exported with 2x5, run with 3x7; the
     * program computes sizes from them (sym_size, Python's * on symbolic ints) */
    check_model("encoder_dyn");
}

/* Exported with batch 2 and Dim("batch", 1..64): the input keeps the symbol, the ranges are in
 * the metadata, and batch 5 runs. */
static void test_dynamic_batch(void **state)
{
    (void)state;
    check_model("mlp_dyn");
    ember_model *m = load("mlp_dyn.pt2");
    int64_t dims[8];
    assert_int_equal(ember_model_input_shape(m, 0, dims, 8), 2);
    assert_string_equal(ember_model_input_dim_name(m, 0, 0), "s77");
    assert_int_equal(dims[0], -1);
    assert_int_equal(dims[1], 4);
    const char *key = NULL, *val = NULL;
    bool found = false;
    for (size_t i = 0; i < ember_model_metadata_count(m); i++) {
        assert_true(ember_model_metadata(m, i, &key, &val));
        if (strcmp(key, "pt2.dims") == 0) {
            assert_string_equal(val, "s77=[1, 64]");
            found = true;
        }
    }
    assert_true(found);
    found = false;
    for (size_t i = 0; i < ember_model_metadata_count(m); i++) {
        assert_true(ember_model_metadata(m, i, &key, &val));
        if (strcmp(key, "pt2.signature") == 0) {
            assert_string_equal(val, "parameters=4 buffers=0 constants=0 user_inputs=1 "
                                     "user_outputs=1");
            found = true;
        }
    }
    assert_true(found);
    ember_model_destroy(m);
}

/* Runs m on a zero input of batch `b` (x: [b, 4]); the status, NULL when it ran. */
static ember_status *run_batch(ember_model *m, int64_t b)
{
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    ember_tensor *x = NULL, *y = NULL;
    const int64_t dims[2] = {b, 4};
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 2, &x));
    ember_status *st = ember_session_run(s, &x, 1, &y, 1);
    if (st == NULL) {
        assert_int_equal(ember_tensor_dims(y)[0], b);
    }
    ember_tensor_destroy(y);
    ember_tensor_destroy(x);
    ember_session_destroy(s);
    return st;
}

static void expect_status(ember_status *st, ember_code code, const char *want)
{
    if (st == NULL) {
        fail_msg("succeeded; expected %s with: %s", ember_code_name(code), want);
    }
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strstr(msg, want) == NULL || strchr(msg, '\n') != NULL) {
        fail_msg("%s: %s\nexpected %s with: %s", ember_code_name(ember_status_code(st)), msg,
                 ember_code_name(code), want);
    }
    ember_status_destroy(st);
}

/* Dim("batch", min=1, max=64) is checked at run time as torch's own guards check it: sizes
 * up to 64 run (a low bound of 2 or less is not enforced: ep.module() runs 0 and 1 whatever it
 * says), 65 and 100 are refused in one line naming the input, the dim, its symbol and the
 * range; a plan refused is not cached (a later run within the range still works). A low bound
 * of 3 (mlp_dyn_min3.pt2) is enforced. Fixing the dim at load outside the range fails the
 * load; inside it, the model runs with that batch only. */
static void test_dim_range(void **state)
{
    (void)state;
    ember_model *m = load("mlp_dyn.pt2");
    assert_string_equal(ember_model_input_dim_name(m, 0, 0), "s77");
    assert_null(run_batch(m, 1));
    assert_null(run_batch(m, 64));
    expect_status(run_batch(m, 100), EMBER_ERR_INVALID_ARG,
                  "input 0 'x': dim 0 ('s77') is 100, outside its range [0, 64]");
    expect_status(run_batch(m, 65), EMBER_ERR_INVALID_ARG, "is 65, outside its range [0, 64]");
    assert_null(run_batch(m, 33));
    ember_model_destroy(m);
    m = load("mlp_dyn_min3.pt2");
    expect_status(run_batch(m, 2), EMBER_ERR_INVALID_ARG,
                  "input 0 'x': dim 0 ('s77') is 2, outside its range [3, 64]");
    assert_null(run_batch(m, 3));
    expect_status(run_batch(m, 65), EMBER_ERR_INVALID_ARG, "is 65, outside its range [3, 64]");
    ember_model_destroy(m);

    /* encoder_dyn: two symbols, each with its own high bound (batch 1..16, seq 2..64; seq 1
     * runs: torch does not enforce the low bound 2 either) */
    m = load("encoder_dyn.pt2");
    const char *key = NULL, *val = NULL;
    for (size_t i = 0; i < ember_model_metadata_count(m); i++) {
        assert_true(ember_model_metadata(m, i, &key, &val));
        if (strcmp(key, "pt2.dims") == 0) {
            break;
        }
    }
    assert_string_equal(key, "pt2.dims");
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    const char *bsym = ember_model_input_dim_name(m, 0, 0);
    const char *ssym = ember_model_input_dim_name(m, 0, 1);
    assert_non_null(bsym);
    assert_non_null(ssym);
    const int64_t shapes[][3] = {{16, 64, 16}, {1, 2, 16}, {2, 1, 16}, {17, 5, 16}, {2, 65, 16}};
    for (int k = 0; k < 5; k++) {
        ember_tensor *x = NULL, *y = NULL;
        OK(ember_tensor_create(EMBER_DTYPE_F32, shapes[k], 3, &x));
        ember_status *st = ember_session_run(s, &x, 1, &y, 1);
        char want[128];
        int d = shapes[k][0] > 16 ? 0 : 1;
        snprintf(want, sizeof want, "input 0 'src': dim %d ('%s') is %lld, outside its range "
                 "[0, %d]", d, d == 0 ? bsym : ssym, (long long)shapes[k][d], d == 0 ? 16 : 64);
        if (k < 3) {
            if (st != NULL) {
                fail_msg("%lldx%lld: %s", (long long)shapes[k][0], (long long)shapes[k][1],
                         ember_status_message(st));
            }
        } else {
            expect_status(st, EMBER_ERR_INVALID_ARG, want);
        }
        ember_tensor_destroy(y);
        ember_tensor_destroy(x);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);

    /* fixed at load */
    ember_model_options *mo = opts();
    OK(ember_model_options_set_dim_value(mo, "s77", 65));
    ember_status *st = ember_model_load_file(data_path("mlp_dyn.pt2"), mo, &m);
    expect_status(st, EMBER_ERR_INVALID_ARG, "mlp_dyn.pt2: input 'x': dim 0 ('s77') is fixed "
                  "to 65, outside its range [0, 64]");
    ember_model_options_destroy(mo);
    mo = opts();
    const int64_t big[2] = {100, 4};
    OK(ember_model_options_set_input_shape(mo, "x", big, 2));
    expect_status(ember_model_load_file(data_path("mlp_dyn.pt2"), mo, &m), EMBER_ERR_INVALID_ARG,
                  "is fixed to 100, outside its range [0, 64]");
    ember_model_options_destroy(mo);
    mo = opts();
    const int64_t ok[2] = {7, 4};
    OK(ember_model_options_set_input_shape(mo, "x", ok, 2));
    OK(ember_model_load_file(data_path("mlp_dyn.pt2"), mo, &m));
    ember_model_options_destroy(mo);
    assert_null(run_batch(m, 7));
    expect_status(run_batch(m, 8), EMBER_ERR_INVALID_ARG, "dim 0 is 8, expected 7");
    ember_model_destroy(m);
}

static const char *meta(const ember_model *m, const char *want)
{
    const char *key = NULL, *val = NULL;
    for (size_t i = 0; i < ember_model_metadata_count(m); i++) {
        assert_true(ember_model_metadata(m, i, &key, &val));
        if (strcmp(key, want) == 0) {
            return val;
        }
    }
    fail_msg("no metadata %s", want);
    return NULL;
}

/* The flat layout of torch 2.1-2.7 (no root folder; state dict and constants torch.save'd
 * into records of their own, Parameters as _rebuild_parameter, buffers plain) and torch 2.8's
 * package with data/weights/model.pt: the same programs as cnn.pt2 and mlp_dyn.pt2, the same
 * results; the dims' ranges are kept and checked there too. Weights inside a nested zip that
 * Python's zipfile did not align are copied, not mapped misaligned (UBSan checks). */
static void test_older_layouts(void **state)
{
    (void)state;
    check_file("cnn_flat.pt2", "cnn");
    check_file("cnn_pt28.pt2", "cnn");
    check_file("mlp_dyn_flat.pt2", "mlp_dyn");
    check_file("mlp_dyn_pt28.pt2", "mlp_dyn");
    ember_model *m = load("cnn_flat.pt2");
    assert_string_equal(meta(m, "pt2.layout"), "flat (torch 2.1-2.7)");
    assert_string_equal(meta(m, "pt2.signature"), "parameters=9 buffers=6 constants=0 "
                                                  "user_inputs=1 user_outputs=1");
    ember_model_destroy(m);
    m = load("cnn_pt28.pt2");
    assert_string_equal(meta(m, "pt2.layout"), "package, weights torch.save'd (torch 2.8)");
    assert_string_equal(meta(m, "pt2.models"), "model");
    ember_model_destroy(m);
    m = load("mlp_dyn_flat.pt2");
    assert_string_equal(meta(m, "pt2.dims"), "s77=[1, 64]");
    expect_status(run_batch(m, 65), EMBER_ERR_INVALID_ARG, "is 65, outside its range [0, 64]");
    ember_model_destroy(m);
    m = load("cnn.pt2");
    assert_string_equal(meta(m, "pt2.layout"), "package, raw weights (torch 2.9+)");
    ember_model_destroy(m);
}

/* torch.cond on data: an If node whose branches are the program's two subgraphs (each
 * closed over its operands: the input and the Linear's weights, captured); both branches
 * are taken, each against PyTorch eager. */
static void test_cond(void **state)
{
    (void)state;
    check_file("cond.pt2", "cond");
    ember_model *m = load("cond.pt2");
    check_loaded(m, "cond_neg");
    ember_model_destroy(m);
}

/* A two-layer nn.LSTM as torch.export keeps it (aten.lstm.input, its flat weight list) and a
 * Linear on the last step: exported with batch 2 (Dim LB, 1..32), run with batch 3. */
static void test_lstm(void **state)
{
    (void)state;
    check_model("lstm");
}

/* Loads `file` with model name `name` (NULL: the default). */
static ember_status *load_named(const char *file, const char *name, ember_model **m)
{
    ember_model_options *mo = opts();
    if (name != NULL) {
        OK(ember_model_options_set_model_name(mo, name));
    }
    ember_status *st = ember_model_load_file(data_path(file), mo, m);
    ember_model_options_destroy(mo);
    return st;
}

/* two.pt2 holds an MLP ("model") and the CNN ("cnn"), two_pt28.pt2 the same in torch 2.8's
 * layout: the default is "model", the option picks the other, an unknown name is one line
 * listing what the archive holds, and the option's own arguments are checked. */
static void test_two_models(void **state)
{
    (void)state;
    static const char *const files[] = {"two.pt2", "two_pt28.pt2"};
    for (int f = 0; f < 2; f++) {
        ember_model *m = NULL;
        OK(load_named(files[f], NULL, &m));
        assert_string_equal(meta(m, "pt2.models"), "model, cnn");
        assert_int_equal(ember_model_input_shape(m, 0, NULL, 0), 2);
        check_loaded(m, "mlp");
        ember_model_destroy(m);
        OK(load_named(files[f], "model", &m));
        check_loaded(m, "mlp");
        ember_model_destroy(m);
        OK(load_named(files[f], "cnn", &m));
        assert_int_equal(ember_model_input_shape(m, 0, NULL, 0), 4);
        assert_string_equal(ember_model_output_name(m, 0), "linear");
        check_loaded(m, "cnn");
        ember_model_destroy(m);
        expect_status(load_named(files[f], "nope", &m), EMBER_ERR_INVALID_MODEL,
                      "the archive has no model named 'nope' (no record models/nope.json; it "
                      "holds: model, cnn)");
        assert_null(m);
    }
    ember_model *m = NULL;
    expect_status(load_named("cnn_flat.pt2", "cnn", &m), EMBER_ERR_INVALID_ARG,
                  "cnn_flat.pt2: the archive has no model named 'cnn' (an archive of the flat "
                  "layout of torch 2.1-2.7 holds one program, 'model')");
    OK(load_named("cnn_flat.pt2", "model", &m));
    ember_model_destroy(m);
    ember_model_options *mo = opts();
    expect_status(ember_model_options_set_model_name(NULL, "x"), EMBER_ERR_INVALID_ARG,
                  "options");
    expect_status(ember_model_options_set_model_name(mo, NULL), EMBER_ERR_INVALID_ARG, "name");
    expect_status(ember_model_options_set_model_name(mo, ""), EMBER_ERR_INVALID_ARG,
                  "empty name");
    OK(ember_model_options_set_model_name(mo, "first"));
    OK(ember_model_options_set_model_name(mo, "cnn")); /* replaces the first */
    OK(ember_model_load_file(data_path("two.pt2"), mo, &m));
    assert_int_equal(ember_model_input_shape(m, 0, NULL, 0), 4);
    ember_model_destroy(m);
    ember_model_options_destroy(mo);
}

/* Parameters are initializers named by their FQN; the output keeps the program's name. */
/* A PT2E quantized program (tools/gen_pt2_fixtures.py write_quantized) with the int8 rewrite
 * `mode`, run on <name>_input.npy against PyTorch's quantized model: at least 99% of the
 * output elements within one output step (<name>_lsb.npy) and none beyond two. Returns the
 * fraction within a hundredth of a step ("exact"). */
static double check_quantized(const char *name, ember_int8_mode mode)
{
    char file[128], in[128], out[128], lsb[128];
    snprintf(file, sizeof file, "%s.pt2", name);
    snprintf(in, sizeof in, "%s_input.npy", name);
    snprintf(out, sizeof out, "%s_expected.npy", name);
    snprintf(lsb, sizeof lsb, "%s_lsb.npy", name);
    ember_model *m = NULL;
    ember_model_options *mo = opts();
    OK(ember_model_options_set_int8(mo, mode));
    OK(ember_model_load_file(data_path(file), mo, &m));
    ember_model_options_destroy(mo);
    ember_tensor *x = NULL, *want = NULL, *step = NULL, *y = NULL;
    OK(ember_tensor_load(data_path(in), &x));
    OK(ember_tensor_load(data_path(out), &want));
    OK(ember_tensor_load(data_path(lsb), &step));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, &y, 1));
    assert_int_equal(ember_tensor_elem_count(y), ember_tensor_elem_count(want));
    const float *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
    const double q = *(const float *)ember_tensor_data(step);
    assert_true(q > 0);
    int64_t n = ember_tensor_elem_count(want), within = 0, exact = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - ref[i]) / q;
        within += d <= 1.0 + 1e-3;
        exact += d <= 0.01;
        if (d > 2.0) {
            fail_msg("%s: element %lld is %.8g, PyTorch gives %.8g (%.2f steps of %g)", name,
                     (long long)i, (double)got[i], (double)ref[i], d, q);
        }
    }
    if (within * 100 < n * 99) {
        fail_msg("%s: %lld of %lld elements within one step", name, (long long)within,
                 (long long)n);
    }
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_tensor_destroy(x);
    ember_tensor_destroy(want);
    ember_tensor_destroy(step);
    ember_model_destroy(m);
    return (double)exact / (double)n;
}

/* The ops of `file` loaded with the int8 rewrite on: how many nodes run `op`. */
static size_t count_ops(const char *file, const char *op, size_t *chains, size_t *int8_chains)
{
    ember_model *m = NULL;
    ember_model_options *mo = opts();
    OK(ember_model_options_set_int8(mo, EMBER_INT8_ON));
    OK(ember_model_load_file(data_path(file), mo, &m));
    ember_model_options_destroy(mo);
    size_t n = 0;
    for (size_t i = 0; i < ember_model_node_count(m); i++) {
        n += strcmp(ember_model_node_op(m, i), op) == 0;
    }
    *chains = ember_model_int8_note_count(m);
    *int8_chains = 0;
    for (size_t i = 0; i < *chains; i++) {
        const char *int8_op = NULL;
        assert_true(ember_model_int8_note(m, i, NULL, &int8_op, NULL));
        *int8_chains += int8_op != NULL;
    }
    ember_model_destroy(m);
    return n;
}

static void test_pt2e(void **state)
{
    (void)state;
    /* qcnn: XNNPACKQuantizer (int8 activations, per-channel weights), the output a dequantized
     * int8 tensor; qmlp: X86InductorQuantizer (uint8), a float last linear; qmlp_rr: the same
     * with reduce_range (quantize_per_tensor's 0..127: a Clip after the QuantizeLinear). */
    static const char *const names[] = {"qcnn", "qmlp", "qmlp_rr"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        double off = check_quantized(names[i], EMBER_INT8_OFF);
        double on = check_quantized(names[i], EMBER_INT8_ON);
        print_message("%s: %.1f%% of the outputs exact (int8 off), %.1f%% (int8 on)\n", names[i],
                      100 * off, 100 * on);
        assert_true(off >= 0.9 && on >= 0.9);
    }
    /* every conv of qcnn runs as QLinearConv, both linears of qmlp as QGemm; no float conv or
     * Gemm is left */
    size_t chains = 0, int8_chains = 0;
    assert_int_equal(count_ops("qcnn.pt2", "QLinearConv", &chains, &int8_chains), 3);
    assert_int_equal(count_ops("qcnn.pt2", "FusedConv", &chains, &int8_chains), 0);
    assert_int_equal(count_ops("qcnn.pt2", "Conv", &chains, &int8_chains), 0);
    assert_int_equal(chains, 6); /* the convs, the max pool, the avg pool, the flatten */
    assert_int_equal(int8_chains, 6);
    assert_int_equal(count_ops("qmlp.pt2", "QGemm", &chains, &int8_chains), 2);
    assert_int_equal(count_ops("qmlp.pt2", "Gemm", &chains, &int8_chains), 0);
    assert_int_equal(int8_chains, 2);
    assert_int_equal(count_ops("qmlp_rr.pt2", "QGemm", &chains, &int8_chains), 2);
    assert_int_equal(count_ops("qmlp_rr.pt2", "Clip", &chains, &int8_chains), 2);
}

static void test_names(void **state)
{
    (void)state;
    ember_model *m = load("cnn.pt2");
    assert_string_equal(ember_model_output_name(m, 0), "linear");
    ember_model_destroy(m);
}

static void expect_error(const char *file, ember_code code, const char *want)
{
    ember_model *m = NULL;
    ember_model_options *mo = opts();
    ember_status *st = ember_model_load_file(data_path(file), mo, &m);
    ember_model_options_destroy(mo);
    if (st == NULL) {
        fail_msg("%s loaded", file);
    }
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != code || strstr(msg, want) == NULL || strchr(msg, '\n') != NULL) {
        fail_msg("%s gave %s: %s\nexpected %s with: %s", file,
                 ember_code_name(ember_status_code(st)), msg, ember_code_name(code), want);
    }
    assert_null(m);
    ember_status_destroy(st);
}

static void test_bad_archives(void **state)
{
    (void)state;
    /* The rewriting alone keeps it loadable; Python's zipfile does not align the weight
     * records as torch does, so they are copied, not mapped misaligned (UBSan checks). */
    check_file("bad_ok.pt2", "mlp");
    expect_error("bad_unknown_op.pt2", EMBER_ERR_UNSUPPORTED,
                 "node 'relu' (torch.ops.aten.frobnicate.default): aten op 'frobnicate' is not "
                 "supported");
    expect_error("bad_no_signature.pt2", EMBER_ERR_INVALID_MODEL,
                 "models/model.json: field 'graph_module.signature' is missing");
    expect_error("bad_schema_major.pt2", EMBER_ERR_UNSUPPORTED,
                 "ExportedProgram schema version 99.20; ember reads majors 1 to 8");
    expect_error("bad_weight_size.pt2", EMBER_ERR_INVALID_MODEL,
                 "tensor 'l1.weight': its sizes, strides and offset reach past the 128 bytes of "
                 "record data/weights/weight_0");
    expect_error("bad_missing_weight.pt2", EMBER_ERR_INVALID_MODEL,
                 "tensor 'l1.weight': its record data/weights/weight_9 is missing");
    /* the older layouts with records that are not torch.save zips */
    expect_error("bad_flat.pt2", EMBER_ERR_INVALID_MODEL,
                 "bad_flat.pt2: serialized_state_dict.pt: no end of central directory record");
    expect_error("bad_pickled_weights.pt2", EMBER_ERR_INVALID_MODEL,
                 "bad_pickled_weights.pt2: data/weights/model.pt: not a valid zip archive: Not a "
                 "zip archive");
    expect_error("bad_while_loop.pt2", EMBER_ERR_INVALID_MODEL,
                 "node 'relu' (torch.ops.higher_order.while_loop): while_loop takes 4 inputs "
                 "(cond_fn and body_fn as graphs, carried_inputs, additional_inputs)");
    expect_error("bad_cond_outputs.pt2", EMBER_ERR_INVALID_MODEL,
                 "node 'cond' (torch.ops.higher_order.cond): the branches return different "
                 "numbers of values, or none");
    expect_error("bad_qdtype.pt2", EMBER_ERR_UNSUPPORTED,
                 "node 'quantize_per_tensor' (torch.ops.quantized_decomposed.quantize_per_tensor."
                 "default): quantized dtype i32 is not supported (uint8 and int8 are)");
    expect_error("bad_qrange.pt2", EMBER_ERR_INVALID_MODEL,
                 "node 'quantize_per_tensor' (torch.ops.quantized_decomposed.quantize_per_tensor."
                 "default): quant_min .. quant_max (0 .. 300) is not a range within u8's 0 .. 255");
    expect_error("bad_qaxis.pt2", EMBER_ERR_INVALID_MODEL,
                 "node 'dequantize_per_channel' (torch.ops.quantized_decomposed.dequantize_per_"
                 "channel.default): scales has 32 elements; the input has 16 along axis 1");
    expect_error("bad_qdynamic.pt2", EMBER_ERR_UNSUPPORTED,
                 "node 'quantize_per_tensor' (torch.ops.quantized_decomposed.choose_qparams."
                 "tensor): quantized_decomposed op 'choose_qparams.tensor' is not supported "
                 "(ember lowers quantize / dequantize per tensor and per channel with constant "
                 "parameters: static PT2E quantization)");
    expect_error("bad_undefined_arg.pt2", EMBER_ERR_INVALID_MODEL,
                 "node 'relu' (torch.ops.aten.relu.default): argument 'self': 'nowhere' is not "
                 "defined before it");
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = test_malloc((size_t)len);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* Every 97th prefix of an archive (and the last 64 bytes one by one): a clean status, no leak. */
static void test_truncated(void **state)
{
    (void)state;
    static const char *const files[] = {"mlp.pt2", "mlp_dyn_flat.pt2", "mlp_dyn_pt28.pt2"};
    for (int f = 0; f < 3; f++) {
        size_t n = 0;
        unsigned char *b = read_all(data_path(files[f]), &n);
        ember_model_options *mo = opts();
        for (size_t cut = 0; cut < n; cut += cut + 64 >= n ? 1 : 97) {
            ember_model *m = NULL;
            ember_status *st = ember_model_load_memory(b, cut, EMBER_LOAD_BORROW, mo, &m);
            if (st == NULL) {
                fail_msg("%s cut at %zu of %zu bytes loaded", files[f], cut, n);
            }
            assert_null(m);
            ember_status_destroy(st);
        }
        ember_model_options_destroy(mo);
        test_free(b);
    }
}

/* Both are zips: the sniff reads the central directory, so each goes to its own loader. */
static void test_told_apart(void **state)
{
    (void)state;
    ember_model *m = NULL;
    ember_model_options *mo = opts();
    OK(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, 3));
    ember_status *st = ember_model_load_file(test_data_path("torchscript/models/",
                                                            "gru.script.t113.pt"), mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL) {
        fail_msg("%s", ember_status_message(st));
    }
    assert_string_equal(ember_model_format(m), "torchscript");
    ember_model_destroy(m);
}

/* Programs that update buffers: a BatchNorm exported in train mode (batch statistics; running
 * statistics and num_batches_tracked updated), a running average no output reads, each as
 * exported (in-place ops) and after run_decompositions() (buffer_mutation outputs). They run
 * with the updates dropped and give PyTorch's output of a later call on every run; a program
 * whose output reads the buffer it updates (a step counter) is refused naming it. */
static void test_mutations(void **state)
{
    (void)state;
    static const char *const names[][2] = {
        {"bn_train", "bn.running_mean, bn.running_var, bn.num_batches_tracked"},
        {"bn_train_core", "bn.running_mean, bn.running_var, bn.num_batches_tracked"},
        {"ema", "avg"},
        {"ema_core", "avg"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.pt2", names[i][0]);
        ember_model *m = load(file);
        assert_string_equal(meta(m, "pt2.dropped_mutations"), names[i][1]);
        assert_int_equal(ember_model_output_count(m), 1);
        check_loaded(m, names[i][0]);
        check_loaded(m, names[i][0]); /* a second run: the same (no state kept) */
        ember_model_destroy(m);
    }
    expect_error("counter.pt2", EMBER_ERR_UNSUPPORTED,
                 "counter.pt2: the program updates 'steps' and its outputs read it: ember runs "
                 "inference on the saved weights and keeps no state between runs, so its "
                 "outputs would not follow PyTorch's after the first call");
    expect_error("counter_core.pt2", EMBER_ERR_UNSUPPORTED,
                 "counter_core.pt2: the program updates 'steps' and its outputs read it");
}

/* torch.ops.higher_order.while_loop -> Loop: a step count and a data-dependent exit (the
 * _big input exits before the first step); map_impl -> Loop over xs's first dim with scan
 * outputs, an extra operand captured. */
static void test_loops(void **state)
{
    (void)state;
    ember_model *m = load("while_loop.pt2");
    check_loaded(m, "while_loop");
    check_loaded(m, "while_loop_big");
    ember_model_destroy(m);
    m = load("map.pt2");
    assert_int_equal(ember_model_input_count(m), 2);
    ember_tensor *x[2] = {NULL, NULL}, *want = NULL, *y = NULL;
    OK(ember_tensor_load(data_path("map_input.npy"), &x[0]));
    OK(ember_tensor_load(data_path("map_input_1.npy"), &x[1]));
    OK(ember_tensor_load(data_path("map_expected.npy"), &want));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, x, 2, &y, 1));
    assert_int_equal(ember_tensor_elem_count(y), ember_tensor_elem_count(want));
    assert_int_equal(ember_tensor_dims(y)[0], 5);
    const float *got = ember_tensor_data(y), *ref = ember_tensor_data(want);
    for (int64_t i = 0; i < ember_tensor_elem_count(want); i++) {
        assert_true(fabs((double)got[i] - ref[i]) <= 1e-5 + 1e-4 * fabs((double)ref[i]));
    }
    ember_tensor_destroy(y);
    ember_tensor_destroy(want);
    ember_tensor_destroy(x[0]);
    ember_tensor_destroy(x[1]);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlp),          cmocka_unit_test(test_cnn),
        cmocka_unit_test(test_encoder),      cmocka_unit_test(test_dynamic_batch),
        cmocka_unit_test(test_names),        cmocka_unit_test(test_bad_archives),
        cmocka_unit_test(test_truncated),    cmocka_unit_test(test_told_apart),
        cmocka_unit_test(test_dim_range),    cmocka_unit_test(test_older_layouts),
        cmocka_unit_test(test_two_models),   cmocka_unit_test(test_cond),
        cmocka_unit_test(test_lstm),         cmocka_unit_test(test_pt2e),
        cmocka_unit_test(test_mutations),    cmocka_unit_test(test_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
