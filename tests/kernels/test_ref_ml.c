/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/ml_ref.c and ml_tree_ref.c (domain ai.onnx.ml): ArrayFeatureExtractor (negative
 * and out-of-range indices, 1-D X), Binarizer (NaN, ints), LabelEncoder (repeated keys, NaN
 * keys, tensors of other dtypes, string keys and string values, defaults, errors) and TreeEnsemble on two hand-walked trees
 * (every aggregate, LOGISTIC / SOFTMAX / SOFTMAX_ZERO / PROBIT, set membership, missing values
 * to the true branch, a degenerate one-leaf tree, cycles and bad ids refused). Expected values
 * are worked out by hand in the comments, or by the transform's formula on those.
 */
#include "test_ref_text_util.h"

#include <float.h>
#include <stdio.h>

static ember_status *run1(const em_node *node, em_tensor *in, int n_in, em_tensor *out,
                          unsigned const_mask)
{
    return t_run_const(t_kernel(node->op, EMBER_DTYPE_UNDEFINED), node, in, n_in, out, 1, NULL,
                       const_mask);
}

static void set_tensor(t_node *t, const char *name, ember_dtype dt, int64_t n, const void *v)
{
    em_attr *a = t_attr_new(t, name, EM_ATTR_TENSOR);
    t_tensor(&a->t, dt, 1, &n, (void *)v);
}

static void test_array_feature_extractor(void **state)
{
    (void)state;
    t_node nd;
    em_tensor in[2], out[1];
    float x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[6];
    int64_t idx[3] = {3, -4, 1};
    t_node_init(&nd, EM_OP_ARRAYFEATUREEXTRACTOR, "afe");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, (int64_t[]){2, 4}, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, (int64_t[]){3}, idx);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, (int64_t[]){2, 3}, y);
    t_expect_ok(run1(&nd.n, in, 2, out, 0), "2-D");
    const float want[6] = {3, 0, 1, 7, 4, 5};
    assert_memory_equal(y, want, sizeof want);
    /* Out of range: refused when the indices are constant, 0 when they come at run time. */
    idx[1] = 4;
    t_expect_error(run1(&nd.n, in, 2, out, 2), EMBER_ERR_INVALID_MODEL, "afe", "const range");
    t_expect_ok(run1(&nd.n, in, 2, out, 0), "runtime range");
    const float want0[6] = {3, 0, 1, 7, 0, 5};
    assert_memory_equal(y, want0, sizeof want0);
    /* 1-D X of int64: [1, n]. */
    int64_t xi[5] = {10, 11, 12, 13, 14}, yi[2], idx2[2] = {4, 0};
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, (int64_t[]){5}, xi);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, (int64_t[]){2}, idx2);
    t_tensor(&out[0], EMBER_DTYPE_I64, 2, (int64_t[]){1, 2}, yi);
    t_expect_ok(run1(&nd.n, in, 2, out, 0), "1-D");
    assert_int_equal(yi[0], 14);
    assert_int_equal(yi[1], 10);
    /* A planned output of the wrong shape. */
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, (int64_t[]){2}, yi);
    t_expect_error(run1(&nd.n, in, 2, out, 0), EMBER_ERR_INVALID_MODEL, "afe", "shape");
}

static void test_binarizer(void **state)
{
    (void)state;
    t_node nd;
    em_tensor in[1], out[1];
    double x[5] = {-1, 0.5, 1, 1.5, NAN}, y[5];
    t_node_init(&nd, EM_OP_BINARIZER, "bin");
    t_set_float(&nd, "threshold", 1.0f);
    t_tensor(&in[0], EMBER_DTYPE_F64, 1, (int64_t[]){5}, x);
    t_tensor(&out[0], EMBER_DTYPE_F64, 1, (int64_t[]){5}, y);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "f64");
    const double want[5] = {0, 0, 0, 1, 0}; /* only 1.5 > 1; NaN > 1 is false */
    assert_memory_equal(y, want, sizeof want);
    int32_t xi[4] = {-3, 0, 1, 7}, yi[4];
    t_node_init(&nd, EM_OP_BINARIZER, "bin"); /* default threshold 0 */
    t_tensor(&in[0], EMBER_DTYPE_I32, 1, (int64_t[]){4}, xi);
    t_tensor(&out[0], EMBER_DTYPE_I32, 1, (int64_t[]){4}, yi);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "i32");
    assert_int_equal(yi[0], 0);
    assert_int_equal(yi[1], 0);
    assert_int_equal(yi[2], 1);
    assert_int_equal(yi[3], 1);
    uint8_t xb[1] = {1}, yb[1];
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, (int64_t[]){1}, xb);
    t_tensor(&out[0], EMBER_DTYPE_U8, 1, (int64_t[]){1}, yb);
    t_expect_error(run1(&nd.n, in, 1, out, 0), EMBER_ERR_UNSUPPORTED, "bin", "u8");
}

static void test_label_encoder(void **state)
{
    (void)state;
    t_node nd;
    em_tensor in[1], out[1];
    /* int keys, the repeated key 5 maps to its last value; float values, default 9. */
    int64_t x[4] = {5, 3, 4, -7};
    float y[4];
    static const float vals[3] = {1.5f, 2.5f, 3.5f};
    t_node_init(&nd, EM_OP_LABELENCODER, "le");
    t_set_ints(&nd, "keys_int64s", (int64_t[]){5, 3, 5}, 3);
    t_set_floats(&nd, "values_floats", vals, 3);
    t_set_float(&nd, "default_float", 9.0f);
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, (int64_t[]){4}, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, (int64_t[]){4}, y);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "int keys");
    const float want[4] = {3.5f, 2.5f, 9.0f, 9.0f};
    assert_memory_equal(y, want, sizeof want);

    /* float keys with a NaN key, int64 values, the spec's default -1. */
    static const float fkeys[3] = {NAN, 1.0f, -2.5f};
    float xf[4] = {NAN, 1.0f, 2.0f, -2.5f};
    int64_t yi[4];
    t_node_init(&nd, EM_OP_LABELENCODER, "le");
    t_set_floats(&nd, "keys_floats", fkeys, 3);
    t_set_ints(&nd, "values_int64s", (int64_t[]){7, 8, 9}, 3);
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, (int64_t[]){4}, xf);
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, (int64_t[]){4}, yi);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "float keys");
    assert_int_equal(yi[0], 7);
    assert_int_equal(yi[1], 8);
    assert_int_equal(yi[2], -1);
    assert_int_equal(yi[3], 9);

    /* keys_tensor int32, values_tensor int16 with default_tensor; input int32 [2, 2]. */
    static const int32_t tk[2] = {100, -100};
    static const int16_t tv[2] = {1, 2}, td[1] = {-5};
    int32_t x32[4] = {-100, 0, 100, 100};
    int16_t y16[4];
    t_node_init(&nd, EM_OP_LABELENCODER, "le");
    set_tensor(&nd, "keys_tensor", EMBER_DTYPE_I32, 2, tk);
    set_tensor(&nd, "values_tensor", EMBER_DTYPE_I16, 2, tv);
    set_tensor(&nd, "default_tensor", EMBER_DTYPE_I16, 1, td);
    t_tensor(&in[0], EMBER_DTYPE_I32, 2, (int64_t[]){2, 2}, x32);
    t_tensor(&out[0], EMBER_DTYPE_I16, 2, (int64_t[]){2, 2}, y16);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "tensors");
    assert_int_equal(y16[0], 2);
    assert_int_equal(y16[1], -5);
    assert_int_equal(y16[2], 1);
    assert_int_equal(y16[3], 1);

    /* Errors: key and value counts differ; float input against int keys; two keys_*. */
    t_node_init(&nd, EM_OP_LABELENCODER, "le_bad");
    t_set_ints(&nd, "keys_int64s", (int64_t[]){1, 2}, 2);
    t_set_ints(&nd, "values_int64s", (int64_t[]){1}, 1);
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, (int64_t[]){4}, x);
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, (int64_t[]){4}, yi);
    t_expect_error(run1(&nd.n, in, 1, out, 0), EMBER_ERR_INVALID_MODEL, "le_bad", "counts");
    t_node_init(&nd, EM_OP_LABELENCODER, "le_bad");
    t_set_ints(&nd, "keys_int64s", (int64_t[]){1}, 1);
    t_set_ints(&nd, "values_int64s", (int64_t[]){1}, 1);
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, (int64_t[]){4}, xf);
    t_expect_error(run1(&nd.n, in, 1, out, 0), EMBER_ERR_INVALID_MODEL, "le_bad", "key dtype");
    t_set_floats(&nd, "keys_floats", fkeys, 1);
    t_expect_error(run1(&nd.n, in, 1, out, 0), EMBER_ERR_INVALID_MODEL, "le_bad", "two keys");
}

static void test_label_encoder_strings(void **state)
{
    (void)state;
    t_node nd;
    em_tensor in[1], out[1];
    /* String keys (the repeated "b" maps to its last value) to int64, default 42. */
    static char *keys[4] = {"b", "a", "", "b"};
    static const char *const x[6] = {"a", "b", "c", "", "ab", NULL}; /* NULL reads as "" */
    int64_t y[6];
    t_node_init(&nd, EM_OP_LABELENCODER, "le_s");
    ts_set_strings(&nd, "keys_strings", keys, 4);
    t_set_ints(&nd, "values_int64s", (int64_t[]){1, 2, 3, 4}, 4);
    t_set_int(&nd, "default_int64", 42);
    ts_in(&in[0], 2, (int64_t[]){2, 3}, x);
    t_tensor(&out[0], EMBER_DTYPE_I64, 2, (int64_t[]){2, 3}, y);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "string keys");
    const int64_t want[6] = {2, 4, 42, 3, 42, 3};
    assert_memory_equal(y, want, sizeof want);

    /* keys_tensor of strings, values_tensor int32, default_tensor. */
    static const char *const tk[2] = {"x", "yy"};
    static const int32_t tv[2] = {7, 8}, td[1] = {-1};
    static const char *const x2[3] = {"yy", "x", "z"};
    int32_t y32[3];
    t_node_init(&nd, EM_OP_LABELENCODER, "le_s");
    set_tensor(&nd, "keys_tensor", EMBER_DTYPE_STRING, 2, tk);
    set_tensor(&nd, "values_tensor", EMBER_DTYPE_I32, 2, tv);
    set_tensor(&nd, "default_tensor", EMBER_DTYPE_I32, 1, td);
    ts_in(&in[0], 1, (int64_t[]){3}, x2);
    t_tensor(&out[0], EMBER_DTYPE_I32, 1, (int64_t[]){3}, y32);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "string key tensor");
    assert_int_equal(y32[0], 8);
    assert_int_equal(y32[1], 7);
    assert_int_equal(y32[2], -1);

    /* int keys to string values, the spec's default "_Unused", then default_string. */
    static char *vals[3] = {"one", "two", "three"};
    int64_t xi[4] = {2, 9, 1, 3};
    t_node_init(&nd, EM_OP_LABELENCODER, "le_s");
    t_set_ints(&nd, "keys_int64s", (int64_t[]){1, 2, 3}, 3);
    ts_set_strings(&nd, "values_strings", vals, 3);
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, (int64_t[]){4}, xi);
    em_storage *st = ts_out(&out[0], 1, (int64_t[]){4});
    t_expect_ok(ts_run(t_kernel(EM_OP_LABELENCODER, EMBER_DTYPE_UNDEFINED), &nd.n, in, 1, out, 1,
                       &st, 0), "string values");
    static const char *const want_s[4] = {"two", "_Unused", "one", "three"};
    ts_expect("string values", &out[0], want_s, 4);
    em_storage_release(st);
    t_set_string(&nd, "default_string", "?");
    st = ts_out(&out[0], 1, (int64_t[]){4});
    t_expect_ok(ts_run(t_kernel(EM_OP_LABELENCODER, EMBER_DTYPE_UNDEFINED), &nd.n, in, 1, out, 1,
                       &st, 0), "default_string");
    static const char *const want_d[4] = {"two", "?", "one", "three"};
    ts_expect("default_string", &out[0], want_d, 4);
    em_storage_release(st);

    /* A string input against int keys, and int input against string keys, are refused. */
    t_node_init(&nd, EM_OP_LABELENCODER, "le_bad");
    t_set_ints(&nd, "keys_int64s", (int64_t[]){1}, 1);
    t_set_ints(&nd, "values_int64s", (int64_t[]){1}, 1);
    ts_in(&in[0], 1, (int64_t[]){3}, x2);
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, (int64_t[]){3}, y);
    t_expect_error(run1(&nd.n, in, 1, out, 0), EMBER_ERR_INVALID_MODEL, "le_bad", "str vs int");
    t_node_init(&nd, EM_OP_LABELENCODER, "le_bad");
    ts_set_strings(&nd, "keys_strings", keys, 1);
    t_set_ints(&nd, "values_int64s", (int64_t[]){1}, 1);
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, (int64_t[]){3}, y);
    t_expect_error(run1(&nd.n, in, 1, out, 0), EMBER_ERR_INVALID_MODEL, "le_bad", "int vs str");
}

/*
 * Two trees over X [4, 2], two targets. Tree A (root 0): node 0 "x0 <= 0.5" true -> leaf 0
 * (w 1, target 0), false -> node 1 "x1 in {2, 3}" (NaN goes true) true -> leaf 1 (w 2, t 1),
 * false -> leaf 2 (w -4, t 0). Tree B (root 2): node 2 "x1 > 2.5" true -> leaf 3 (w 10, t 1),
 * false -> leaf 4 (w 20, t 0).
 *   row (0, 2):     A leaf 0, B leaf 4: SUM [21, 0]
 *   row (1, 3):     A leaf 1, B leaf 3: SUM [0, 12]
 *   row (1, NaN):   A leaf 1 (missing -> true), B leaf 4: SUM [20, 2]
 *   row (NaN, 7):   A node 0 false (NaN <= 0.5), leaf 2; B leaf 3: SUM [-4, 10]
 */
static const float tx[8] = {0, 2, 1, 3, 1, NAN, NAN, 7};
static const uint8_t t_modes[3] = {0, 6, 3};
static const float t_splits[3] = {0.5f, 0, 2.5f};
static const float t_weights[5] = {1, 2, -4, 10, 20};
static const float t_members[3] = {2, 3, NAN};

static void trees_node(t_node *nd, int agg, int post)
{
    t_node_init(nd, EM_OP_TREEENSEMBLE, "trees");
    t_set_ints(nd, "nodes_featureids", (int64_t[]){0, 1, 1}, 3);
    t_set_ints(nd, "nodes_truenodeids", (int64_t[]){0, 1, 3}, 3);
    t_set_ints(nd, "nodes_trueleafs", (int64_t[]){1, 1, 1}, 3);
    t_set_ints(nd, "nodes_falsenodeids", (int64_t[]){1, 2, 4}, 3);
    t_set_ints(nd, "nodes_falseleafs", (int64_t[]){0, 1, 1}, 3);
    t_set_ints(nd, "nodes_missing_value_tracks_true", (int64_t[]){0, 1, 0}, 3);
    set_tensor(nd, "nodes_modes", EMBER_DTYPE_U8, 3, t_modes);
    set_tensor(nd, "nodes_splits", EMBER_DTYPE_F32, 3, t_splits);
    t_set_ints(nd, "leaf_targetids", (int64_t[]){0, 1, 0, 1, 0}, 5);
    set_tensor(nd, "leaf_weights", EMBER_DTYPE_F32, 5, t_weights);
    set_tensor(nd, "membership_values", EMBER_DTYPE_F32, 3, t_members);
    t_set_ints(nd, "tree_roots", (int64_t[]){0, 2}, 2);
    t_set_int(nd, "n_targets", 2);
    t_set_int(nd, "aggregate_function", agg);
    t_set_int(nd, "post_transform", post);
}

static ember_status *trees_run(const t_node *nd, float *y)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, (int64_t[]){4, 2}, (void *)tx);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, (int64_t[]){4, 2}, y);
    return run1(&nd->n, in, 1, out, 0);
}

static void test_tree_ensemble_aggregates(void **state)
{
    (void)state;
    static const double sum[8] = {21, 0, 0, 12, 20, 2, -4, 10};
    const double F = FLT_MAX;
    static double min[8], max[8], avg[8];
    /* MIN / MAX start from +-FLT_MAX (targets no leaf reaches keep it). */
    const double mn[8] = {1, F, F, 2, 20, 2, -4, 10}, mx[8] = {20, -F, -F, 10, 20, 2, -4, 10};
    for (int i = 0; i < 8; i++) {
        min[i] = mn[i];
        max[i] = mx[i];
        avg[i] = sum[i] / 2;
    }
    const double *want[4] = {avg, sum, min, max};
    for (int agg = 0; agg < 4; agg++) {
        t_node nd;
        float y[8];
        trees_node(&nd, agg, 0);
        t_expect_ok(trees_run(&nd, y), "aggregate");
        t_check_f32("aggregate", y, want[agg], 8, 0, 1e-7);
    }
}

static void test_tree_ensemble_transforms(void **state)
{
    (void)state;
    static const double sum[8] = {21, 0, 0, 12, 20, 2, -4, 10};
    double want[8];
    t_node nd;
    float y[8];
    /* LOGISTIC: 1 / (1 + e^-s). */
    for (int i = 0; i < 8; i++) {
        want[i] = 1 / (1 + exp(-sum[i]));
    }
    trees_node(&nd, 1, 2);
    t_expect_ok(trees_run(&nd, y), "logistic");
    t_check_f32("logistic", y, want, 8, 1e-7, 1e-6);
    /* SOFTMAX over the two targets of a row; SOFTMAX_ZERO leaves zeros at 0 (rows 0 and 1
     * then hold one nonzero, which takes everything). */
    for (int r = 0; r < 4; r++) {
        double a = exp(sum[2 * r]), b = exp(sum[2 * r + 1]);
        want[2 * r] = a / (a + b);
        want[2 * r + 1] = b / (a + b);
    }
    trees_node(&nd, 1, 1);
    t_expect_ok(trees_run(&nd, y), "softmax");
    t_check_f32("softmax", y, want, 8, 1e-7, 1e-6);
    want[0] = 1;
    want[1] = 0;
    want[2] = 0;
    want[3] = 1;
    trees_node(&nd, 1, 3);
    t_expect_ok(trees_run(&nd, y), "softmax_zero");
    t_check_f32("softmax_zero", y, want, 8, 1e-7, 1e-6);
}

/* One degenerate tree (a single leaf, both branches the same leaf) under PROBIT: the normal
 * quantile of the weight, 0.975 -> 1.959963984540054, for every row. */
static void test_tree_ensemble_probit(void **state)
{
    (void)state;
    static const uint8_t modes[1] = {0};
    static const double splits[1] = {0}, w[1] = {0.975};
    double x[3] = {-1, 5, NAN}, y[3];
    t_node nd;
    t_node_init(&nd, EM_OP_TREEENSEMBLE, "probit");
    t_set_ints(&nd, "nodes_featureids", (int64_t[]){99}, 1); /* never read */
    t_set_ints(&nd, "nodes_truenodeids", (int64_t[]){0}, 1);
    t_set_ints(&nd, "nodes_trueleafs", (int64_t[]){1}, 1);
    t_set_ints(&nd, "nodes_falsenodeids", (int64_t[]){0}, 1);
    t_set_ints(&nd, "nodes_falseleafs", (int64_t[]){1}, 1);
    set_tensor(&nd, "nodes_modes", EMBER_DTYPE_U8, 1, modes);
    set_tensor(&nd, "nodes_splits", EMBER_DTYPE_F64, 1, splits);
    t_set_ints(&nd, "leaf_targetids", (int64_t[]){0}, 1);
    set_tensor(&nd, "leaf_weights", EMBER_DTYPE_F64, 1, w);
    t_set_ints(&nd, "tree_roots", (int64_t[]){0}, 1);
    t_set_int(&nd, "n_targets", 1);
    t_set_int(&nd, "post_transform", 4);
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F64, 2, (int64_t[]){3, 1}, x);
    t_tensor(&out[0], EMBER_DTYPE_F64, 2, (int64_t[]){3, 1}, y);
    t_expect_ok(run1(&nd.n, in, 1, out, 0), "probit");
    for (int r = 0; r < 3; r++) {
        assert_true(fabs(y[r] - 1.959963984540054) < 1e-12);
    }
}

static void test_tree_ensemble_errors(void **state)
{
    (void)state;
    t_node nd;
    float y[8];
    /* A cycle: node 1's false branch back to node 0. */
    trees_node(&nd, 1, 0);
    nd.ints[4][1] = 0; /* nodes_falseleafs[1] = 0: node 1's false branch is a node, */
    nd.ints[3][1] = 0; /* nodes_falsenodeids[1] = 0: node 0, whose false branch is node 1 */
    t_expect_error(trees_run(&nd, y), EMBER_ERR_INVALID_MODEL, "trees", "cycle");
    /* A leaf id past the leaves. */
    trees_node(&nd, 1, 0);
    nd.ints[1][2] = 5;
    t_expect_error(trees_run(&nd, y), EMBER_ERR_INVALID_MODEL, "trees", "leaf id");
    /* A feature past X's 2 columns. */
    trees_node(&nd, 1, 0);
    nd.ints[0][2] = 2;
    t_expect_error(trees_run(&nd, y), EMBER_ERR_INVALID_MODEL, "trees", "feature");
    /* A target past n_targets. */
    trees_node(&nd, 1, 0);
    nd.ints[8][0] = 2;
    t_expect_error(trees_run(&nd, y), EMBER_ERR_INVALID_MODEL, "trees", "target");
    /* A MEMBER node without its NaN-terminated set. */
    static const float no_nan[2] = {2, 3};
    trees_node(&nd, 1, 0);
    nd.attrs[10].t.dims[0] = 2;
    nd.attrs[10].t.data = (void *)no_nan;
    t_expect_error(trees_run(&nd, y), EMBER_ERR_INVALID_MODEL, "trees", "membership");
    /* nodes_* of different lengths. */
    trees_node(&nd, 1, 0);
    nd.attrs[1].n = 2;
    t_expect_error(trees_run(&nd, y), EMBER_ERR_INVALID_MODEL, "trees", "lengths");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_feature_extractor),
        cmocka_unit_test(test_binarizer),
        cmocka_unit_test(test_label_encoder),
        cmocka_unit_test(test_label_encoder_strings),
        cmocka_unit_test(test_tree_ensemble_aggregates),
        cmocka_unit_test(test_tree_ensemble_transforms),
        cmocka_unit_test(test_tree_ensemble_probit),
        cmocka_unit_test(test_tree_ensemble_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
