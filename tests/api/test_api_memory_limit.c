/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The session's memory limit (ember_session_options_set_memory_limit), through ember.h only,
 * on the built-in default model (N symbolic) with an allocator that records the largest block
 * the library asks for:
 *  - under a limit below the plan's arena, ember_session_prepare() and ember_session_run()
 *    return OUT_OF_MEMORY naming the arena's size and the limit, create no output, hold no
 *    plan and no run context, and never ask for a block of the arena's size (which a run
 *    without the limit does ask for: the check sees an arena's request);
 *  - a batch of 2^20 images (an arena of tens of GB) is refused under 64 MiB without a
 *    block of 64 MiB ever being asked for; so is the few-hundred-byte ONNX model of issue
 *    #17's note (ConstantOfShape of [2^32] added to a 1-element input: a 16 GiB arena);
 *  - a model whose shapes are fixed at load plans at session creation: there the limit makes
 *    ember_session_create() fail, leaving *out NULL;
 *  - a limit exactly the arena's size, a larger one and 0 (no limit) run and give the same
 *    bytes as a session without the option; NULL options are ignored.
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_data.h"
#include "common/test_ok.h"
#include "common/test_onnx_model.h"

/* ---- an allocator that records the largest request ---- */

static atomic_size_t g_largest;
static atomic_size_t g_watch; /* a request of exactly this size counts in g_hits */
static atomic_int g_hits;

static void note(size_t n)
{
    if (n == atomic_load(&g_watch)) {
        atomic_fetch_add(&g_hits, 1);
    }
    size_t cur = atomic_load(&g_largest);
    while (n > cur && !atomic_compare_exchange_weak(&g_largest, &cur, n)) {
    }
}

static void *t_alloc(void *ctx, size_t n)
{
    (void)ctx;
    note(n);
    return malloc(n);
}

static void *t_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    note(n);
    return realloc(p, n);
}

static void t_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void *t_aligned_alloc(void *ctx, size_t a, size_t n)
{
    (void)ctx;
    note(n);
    void *p = NULL;
    return posix_memalign(&p, a < sizeof(void *) ? sizeof(void *) : a, n) == 0 ? p : NULL;
}

static const ember_allocator g_al = {NULL, t_alloc, t_realloc, t_free, t_aligned_alloc, t_free};

/* ---- helpers ---- */

static ember_model *load_default(const int64_t *fixed_dims)
{
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, &g_al);
    if (fixed_dims != NULL) {
        OK(ember_model_options_set_input_shape(mo, "input", fixed_dims, 4));
    }
    OK(ember_model_load_builtin(NULL, mo, &m));
    ember_model_options_destroy(mo);
    return m;
}

/* A one-thread session (bit-identical runs) with `limit` set when `set`. */
static ember_status *new_session(const ember_model *m, bool set, size_t limit, ember_session **s)
{
    ember_session_options *so = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 1);
    if (set) {
        ember_session_options_set_memory_limit(so, limit);
    }
    ember_status *st = ember_session_create(m, so, s);
    ember_session_options_destroy(so);
    return st;
}

static size_t stat_of(const ember_session *s, ember_memory_stat k)
{
    size_t v = SIZE_MAX;
    OK(ember_session_memory_stat(s, k, &v));
    return v;
}

static ember_tensor *input_of(void)
{
    ember_tensor *x = NULL;
    OK(ember_tensor_load_npy(test_data_path("", "default_model/input.npy"), &x));
    return x;
}

/* Runs `s` on x into a new tensor (NULL on failure, with the status in *st). */
static ember_tensor *run(ember_session *s, ember_tensor *x, ember_status **st)
{
    ember_tensor *y = NULL;
    *st = ember_session_run(s, &x, 1, &y, 1);
    if (*st != NULL) {
        assert_null(y);
    }
    return y;
}

/* The unlimited run's output and its plan's arena size. */
static ember_tensor *reference(const ember_model *m, ember_tensor *x, size_t *arena)
{
    ember_session *s = NULL;
    ember_status *st = NULL;
    OK(new_session(m, false, 0, &s));
    ember_tensor *y = run(s, x, &st);
    OK(st);
    OK(ember_session_memory_info(s, arena, NULL));
    assert_true(*arena > 4096);
    ember_session_destroy(s);
    return y;
}

static void expect_limit_err(ember_status *st, size_t need, size_t limit)
{
    char want[160];
    snprintf(want, sizeof want, "needs an activation arena of %zu bytes, over the limit of %zu "
             "bytes", need, limit);
    EXPECT_ERR(st, EMBER_ERR_OUT_OF_MEMORY, "memory limit: ", want);
}

static void assert_same(ember_tensor *a, ember_tensor *b)
{
    assert_int_equal(ember_tensor_elem_count(a), ember_tensor_elem_count(b));
    assert_memory_equal(ember_tensor_data(a), ember_tensor_data(b),
                        (size_t)ember_tensor_elem_count(a) * sizeof(float));
}

/* Runs x through s and expects `want`'s bytes. */
static void run_matches(ember_session *s, ember_tensor *x, ember_tensor *want)
{
    ember_status *st = NULL;
    ember_tensor *y = run(s, x, &st);
    OK(st);
    assert_same(y, want);
    ember_tensor_destroy(y);
}

/* Expects the limit's OUT_OF_MEMORY over `limit_text`; returns the arena size it names. */
static unsigned long long limit_err_need(ember_status *st, const char *limit_text)
{
    assert_non_null(st);
    assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
    unsigned long long need = 0;
    const char *p = strstr(ember_status_message(st), "arena of ");
    assert_non_null(p);
    assert_int_equal(sscanf(p, "arena of %llu bytes", &need), 1);
    assert_non_null(strstr(ember_status_message(st), limit_text));
    ember_status_destroy(st);
    return need;
}

/* ---- tests ---- */

static void test_over_limit_fails_before_the_arena(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_tensor *x = input_of();
    size_t arena = 0;
    ember_tensor *want = reference(m, x, &arena);
    const size_t limits[] = {1, 4096, arena - 1};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        ember_session *s = NULL;
        OK(new_session(m, true, limits[i], &s)); /* N is symbolic: nothing planned yet */
        assert_int_equal(stat_of(s, EMBER_MEMORY_PLANS), 0);
        atomic_store(&g_watch, arena);
        atomic_store(&g_hits, 0);
        const int64_t dims[4] = {3, 1, 28, 28};
        const int64_t *shapes[1] = {dims};
        const int ranks[1] = {4};
        expect_limit_err(ember_session_prepare(s, shapes, ranks, 1), arena, limits[i]);
        ember_status *st = NULL;
        assert_null(run(s, x, &st));
        expect_limit_err(st, arena, limits[i]);
        assert_int_equal(atomic_load(&g_hits), 0);
        assert_int_equal(stat_of(s, EMBER_MEMORY_PLANS), 0);
        assert_int_equal(stat_of(s, EMBER_MEMORY_RUN_CONTEXTS), 0);
        assert_int_equal(stat_of(s, EMBER_MEMORY_RUN_CONTEXT_BYTES), 0);
        /* A smaller batch whose arena fits runs in the same session. */
        if (limits[i] == arena - 1) {
            const int64_t d1[4] = {1, 1, 28, 28};
            const int64_t *sh1[1] = {d1};
            OK(ember_session_prepare(s, sh1, ranks, 1));
            size_t a1 = 0;
            OK(ember_session_memory_info(s, &a1, NULL));
            assert_true(a1 <= limits[i]);
        }
        ember_session_destroy(s);
    }
    /* Without the limit, the first run asks for the arena (one run context). */
    ember_session *s = NULL;
    OK(new_session(m, false, 0, &s));
    atomic_store(&g_hits, 0);
    run_matches(s, x, want);
    assert_true(atomic_load(&g_hits) >= 1);
    atomic_store(&g_watch, 0);
    ember_session_destroy(s);
    ember_tensor_destroy(want);
    ember_tensor_destroy(x);
    ember_model_destroy(m);
}

/* What the limit is for: a tiny model asked for a huge batch. 2^20 images of 28x28 need an
 * arena of tens of GB; the refusal must come without any such request. */
static void test_huge_batch_refused_without_mapping(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_session *s = NULL;
    const size_t limit = (size_t)64 << 20;
    OK(new_session(m, true, limit, &s));
    atomic_store(&g_largest, 0);
    const int64_t dims[4] = {(int64_t)1 << 20, 1, 28, 28};
    const int64_t *shapes[1] = {dims};
    const int ranks[1] = {4};
    unsigned long long need = limit_err_need(ember_session_prepare(s, shapes, ranks, 1),
                                             "over the limit of 67108864 bytes");
    /* conv1's output alone: 2^20 x 8 x 28 x 28 floats */
    assert_true(need >= ((unsigned long long)1 << 20) * 8 * 28 * 28 * 4);
    assert_true(atomic_load(&g_largest) < limit);
    assert_int_equal(stat_of(s, EMBER_MEMORY_PLANS), 0);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

/* Issue #17's small file: x f32 [1] + ConstantOfShape([2^32]) -> y f32 [2^32], opset 13. */
static uint8_t *tiny_huge_model(size_t *size)
{
    tom_buf g = {0}, m = {0}, opset = {0}, t = {0};
    const int64_t x_dims[1] = {1}, y_dims[1] = {(int64_t)1 << 32};
    const int64_t shape = (int64_t)1 << 32;
    const char *in1[1] = {"shape"}, *in2[2] = {"x", "big"};
    tom_node(&g, "ConstantOfShape", "fill", in1, 1, "big", 1, false, false);
    tom_node(&g, "Add", "add", in2, 2, "y", 1, false, false);
    tom_str(&g, 2, "tiny_huge");
    tom_int(&t, 1, 1);     /* TensorProto.dims */
    tom_int(&t, 2, 7);     /* data_type INT64 */
    tom_str(&t, 8, "shape");
    tom_bytes(&t, 9, &shape, sizeof shape); /* raw_data, little-endian */
    tom_msg(&g, 5, &t);    /* initializer */
    tom_value(&g, 11, "x", x_dims, 1, NULL);
    tom_value(&g, 12, "y", y_dims, 1, NULL);
    tom_int(&m, 1, 8);
    tom_int(&opset, 2, 13);
    tom_msg(&m, 8, &opset);
    tom_msg(&m, 7, &g);
    *size = m.n;
    return m.p;
}

static void test_tiny_model_huge_arena(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *bytes = tiny_huge_model(&size);
    assert_true(size < 300); /* 141 bytes */
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, &g_al);
    atomic_store(&g_largest, 0);
    ember_status *st = ember_model_load_memory(bytes, size, 0, mo, &m);
    ember_model_options_destroy(mo);
    free(bytes);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED) {
        ember_status_destroy(st); /* a build without the ONNX loader */
        skip();
    }
    OK(st);
    const size_t limit = (size_t)256 << 20;
    ember_session *s = NULL;
    st = new_session(m, true, limit, &s); /* shapes are all known: plans here */
    assert_null(s);
    unsigned long long need = limit_err_need(st, "over the limit of 268435456 bytes");
    assert_true(need >= ((unsigned long long)4 << 32)); /* 2^32 floats */
    assert_true(atomic_load(&g_largest) < limit);
    ember_model_destroy(m);
}

/* Shapes fixed at load: the plan is built by ember_session_create(), which then fails. */
static void test_create_fails_when_it_plans(void **state)
{
    (void)state;
    const int64_t dims[4] = {3, 1, 28, 28};
    ember_model *m = load_default(dims);
    ember_tensor *x = input_of();
    size_t arena = 0;
    ember_tensor *want = reference(m, x, &arena);
    ember_session *s = (ember_session *)&s; /* a sentinel that must read NULL */
    expect_limit_err(new_session(m, true, arena / 2, &s), arena, arena / 2);
    assert_null(s);
    OK(new_session(m, true, arena, &s));
    assert_int_equal(stat_of(s, EMBER_MEMORY_PLANS), 1);
    run_matches(s, x, want);
    ember_session_destroy(s);
    ember_tensor_destroy(want);
    ember_tensor_destroy(x);
    ember_model_destroy(m);
}

/* Limits that fit (exactly the arena, above it, 0 = none) run and match the unlimited run. */
static void test_fitting_limits_match(void **state)
{
    (void)state;
    ember_model *m = load_default(NULL);
    ember_tensor *x = input_of();
    size_t arena = 0;
    ember_tensor *want = reference(m, x, &arena);
    const size_t limits[] = {arena, arena + 1, (size_t)1 << 30, SIZE_MAX, 0};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        ember_session *s = NULL;
        OK(new_session(m, true, limits[i], &s));
        run_matches(s, x, want);
        run_matches(s, x, want); /* reusing the run context */
        size_t a = 0;
        OK(ember_session_memory_info(s, &a, NULL));
        assert_int_equal(a, arena);
        ember_session_destroy(s);
    }
    /* A later setter replaces the limit; NULL options are ignored. */
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_memory_limit(so, 1);
    ember_session_options_set_memory_limit(so, 0);
    ember_session_options_set_memory_limit(NULL, 1);
    OK(ember_session_create(m, so, &s));
    ember_session_options_destroy(so);
    run_matches(s, x, want);
    ember_session_destroy(s);
    ember_tensor_destroy(want);
    ember_tensor_destroy(x);
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_over_limit_fails_before_the_arena),
        cmocka_unit_test(test_huge_batch_refused_without_mapping),
        cmocka_unit_test(test_create_fails_when_it_plans),
        cmocka_unit_test(test_tiny_model_huge_arena),
        cmocka_unit_test(test_fitting_limits_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
