/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/text_tfidf_ref.c: TfIdfVectorizer. The spec's skip example worked by hand; the
 * onnx conformance pool on its batch input and on a seeded random batch, checked against a
 * brute-force counter written here (every pool n-gram at every start and skip distance,
 * unigrams once); int32 and int64 inputs; a string pool with UTF-8 items; IDF and TFIDF with
 * and without weights; permuted ngram_indexes; a later duplicate n-gram taking over; empty
 * inputs; malformed attributes.
 */
#include "test_ref_text_util.h"

typedef struct tf_attrs {
    const char *mode;
    int64_t min_gram, max_gram, skip;
    int n_counts;
    int64_t counts[4];
    int n_idx;
    int64_t idx[8];
    int n_pool;
    int64_t pool[16];
    char *spool[8]; /* used when n_pool is 0 */
    int n_spool;
    int n_w;
    float w[8];
} tf_attrs;

static void tf_node(t_node *tn, const char *name, const tf_attrs *a)
{
    t_node_init(tn, EM_OP_TFIDFVECTORIZER, name);
    t_set_string(tn, "mode", a->mode);
    t_set_int(tn, "min_gram_length", a->min_gram);
    t_set_int(tn, "max_gram_length", a->max_gram);
    t_set_int(tn, "max_skip_count", a->skip);
    t_set_ints(tn, "ngram_counts", a->counts, a->n_counts);
    t_set_ints(tn, "ngram_indexes", a->idx, a->n_idx);
    if (a->n_pool > 0) {
        t_set_ints(tn, "pool_int64s", a->pool, a->n_pool);
    }
    if (a->n_spool > 0) {
        ts_set_strings(tn, "pool_strings", (char **)a->spool, a->n_spool);
    }
    if (a->n_w > 0) {
        t_set_floats(tn, "weights", a->w, a->n_w);
    }
}

static ember_status *tf_run(const char *name, const tf_attrs *a, ember_dtype dt, int rank,
                            const int64_t *dims, const void *x, float *y, int64_t out_size)
{
    em_tensor in[1], out[1];
    int64_t yd[2] = {rank == 2 ? dims[0] : out_size, out_size};
    t_tensor(&in[0], dt, rank, dims, (void *)x);
    t_tensor(&out[0], EMBER_DTYPE_F32, rank == 2 ? 2 : 1, yd, y);
    t_node tn;
    tf_node(&tn, name, a);
    return ts_run(t_kernel(EM_OP_TFIDFVECTORIZER, dt), &tn.n, in, 1, out, 1, NULL, 0);
}

static void expect_f32(const char *name, const float *got, const float *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("case %s: element %lld is %g, expected %g", name, (long long)i, got[i],
                     want[i]);
        }
    }
}

static void test_spec_skip_example(void **state)
{
    (void)state;
    /* [94, 17, 36, 12, 28]: with skips up to 2, the bigrams [94, 12] and [17, 28] are seen. */
    tf_attrs a = {"TF", 2, 2, 2, 2, {0, 0}, 2, {0, 1}, 4, {94, 12, 17, 28}, {0}, 0, 0, {0}};
    const int64_t x[5] = {94, 17, 36, 12, 28}, d[1] = {5};
    float y[2];
    t_expect_ok(tf_run("skip2", &a, EMBER_DTYPE_I64, 1, d, x, y, 2), "skip2");
    expect_f32("skip2", y, (const float[]){1, 1}, 2);
    a.skip = 1;
    t_expect_ok(tf_run("skip1", &a, EMBER_DTYPE_I64, 1, d, x, y, 2), "skip1");
    expect_f32("skip1", y, (const float[]){0, 0}, 2);
}

/* The brute-force count of pool n-gram `g` (items it[0..n)) in row x[0..c). */
static float brute(const int32_t *x, int64_t c, const int64_t *it, int n, int64_t skip)
{
    float count = 0;
    for (int64_t d = 1; d <= (n == 1 ? 1 : skip + 1); d++) {
        for (int64_t s = 0; s + d * (n - 1) < c; s++) {
            bool hit = true;
            for (int k = 0; k < n && hit; k++) {
                hit = x[s + d * k] == it[k];
            }
            count += hit;
        }
    }
    return count;
}

static void test_conformance_pool(void **state)
{
    (void)state;
    /* Unigrams 2 3 5 4, bigrams (5,6) (7,8) (6,7). */
    tf_attrs a = {"TF", 1, 2, 5, 2, {0, 4}, 7, {0, 1, 2, 3, 4, 5, 6}, 10,
                  {2, 3, 5, 4, 5, 6, 7, 8, 6, 7}, {0}, 0, 0, {0}};
    const int32_t x[12] = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};
    const int64_t d[2] = {2, 6};
    float y[14];
    t_expect_ok(tf_run("batch", &a, EMBER_DTYPE_I32, 2, d, x, y, 7), "batch");
    expect_f32("batch", y, (const float[]){0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1}, 14);

    int32_t r[4 * 9];
    test_rng rng = {42};
    for (int i = 0; i < 36; i++) {
        r[i] = 2 + (int32_t)(test_rng_next(&rng) % 7);
    }
    for (int64_t skip = 0; skip <= 3; skip++) {
        for (int64_t lo = 1; lo <= 2; lo++) {
            a.skip = skip;
            a.min_gram = lo;
            const int64_t rd[2] = {4, 9};
            float got[28], want[28];
            t_expect_ok(tf_run("random", &a, EMBER_DTYPE_I32, 2, rd, r, got, 7), "random");
            for (int row = 0; row < 4; row++) {
                for (int g = 0; g < 7; g++) {
                    int n = g < 4 ? 1 : 2;
                    const int64_t *it = g < 4 ? &a.pool[g] : &a.pool[4 + 2 * (g - 4)];
                    want[row * 7 + g] = n < lo ? 0 : brute(r + row * 9, 9, it, n, skip);
                }
            }
            expect_f32("random", got, want, 28);
        }
    }
}

static void test_strings_and_modes(void **state)
{
    (void)state;
    tf_attrs a = {"TF", 1, 2, 0, 2, {0, 2}, 4, {0, 1, 2, 3}, 0, {0},
                  {"a", "\xc3\xa9", "a", "\xc3\xa9", "\xc3\xa9", "c"}, 6, 0, {0}};
    const char *x[4] = {"a", "\xc3\xa9", "c", "\xc3\xa9"};
    const int64_t d[1] = {4};
    float y[4];
    static const struct {
        const char *mode;
        int n_w;
        float want[4];
    } modes[] = {{"TF", 0, {1, 2, 1, 1}},         {"IDF", 0, {1, 1, 1, 1}},
                 {"IDF", 4, {0.5f, 2, 3, 4}},     {"TFIDF", 4, {0.5f, 4, 3, 4}},
                 {"TFIDF", 0, {1, 2, 1, 1}}};
    memcpy(a.w, (const float[]){0.5f, 2, 3, 4}, sizeof(float) * 4);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        a.mode = modes[m].mode;
        a.n_w = modes[m].n_w;
        t_expect_ok(tf_run("str_mode", &a, EMBER_DTYPE_STRING, 1, d, x, y, 4), modes[m].mode);
        expect_f32(modes[m].mode, y, modes[m].want, 4);
    }
    /* Permuted columns; an n-gram listed twice counts in its last column only. */
    tf_attrs p = {"TF", 1, 1, 0, 1, {0}, 4, {3, 2, 1, 0}, 4, {7, 8, 9, 7}, {0}, 0, 0, {0}};
    const int64_t xi[3] = {7, 9, 7}, di[1] = {3};
    t_expect_ok(tf_run("perm", &p, EMBER_DTYPE_I64, 1, di, xi, y, 4), "perm");
    expect_f32("perm", y, (const float[]){2, 1, 0, 0}, 4);
}

static void test_empty(void **state)
{
    (void)state;
    tf_attrs a = {"TF", 1, 1, 0, 1, {0}, 2, {0, 1}, 2, {1, 2}, {0}, 0, 0, {0}};
    float y[4] = {9, 9, 9, 9};
    t_expect_ok(tf_run("empty1d", &a, EMBER_DTYPE_I32, 1, (const int64_t[]){0}, NULL, y, 2),
                "empty1d");
    expect_f32("empty1d", y, (const float[]){0, 0}, 2);
    t_expect_ok(tf_run("empty2d", &a, EMBER_DTYPE_I32, 2, (const int64_t[]){2, 0}, NULL, y, 2),
                "empty2d");
    expect_f32("empty2d", y, (const float[]){0, 0, 0, 0}, 4);
}

static void test_errors(void **state)
{
    (void)state;
    const int32_t x[2] = {1, 2};
    const int64_t d[1] = {2};
    float y[4];
    tf_attrs ok = {"TF", 1, 1, 0, 1, {0}, 2, {0, 1}, 2, {1, 2}, {0}, 0, 0, {0}};
    tf_attrs a = ok;
    a.mode = "BM25";
    t_expect_error(tf_run("tf_bad", &a, EMBER_DTYPE_I32, 1, d, x, y, 2), EMBER_ERR_INVALID_MODEL,
                   "tf_bad", "mode");
    a = ok;
    a.n_spool = 1;
    a.spool[0] = "x";
    t_expect_error(tf_run("tf_bad", &a, EMBER_DTYPE_I32, 1, d, x, y, 2), EMBER_ERR_INVALID_MODEL,
                   "tf_bad", "two pools");
    a = ok;
    a.n_counts = 2;
    a.counts[1] = 9;
    t_expect_error(tf_run("tf_bad", &a, EMBER_DTYPE_I32, 1, d, x, y, 2), EMBER_ERR_INVALID_MODEL,
                   "tf_bad", "counts past the pool");
    a = ok;
    a.n_idx = 1;
    t_expect_error(tf_run("tf_bad", &a, EMBER_DTYPE_I32, 1, d, x, y, 1), EMBER_ERR_INVALID_MODEL,
                   "tf_bad", "too few indexes");
    a = ok;
    a.min_gram = 2;
    t_expect_error(tf_run("tf_bad", &a, EMBER_DTYPE_I32, 1, d, x, y, 2), EMBER_ERR_INVALID_MODEL,
                   "tf_bad", "min > max");
    const char *sx[2] = {"1", "2"};
    t_expect_error(tf_run("tf_bad", &ok, EMBER_DTYPE_STRING, 1, d, sx, y, 2),
                   EMBER_ERR_INVALID_MODEL, "tf_bad", "strings against an int pool");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_skip_example), cmocka_unit_test(test_conformance_pool),
        cmocka_unit_test(test_strings_and_modes), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
