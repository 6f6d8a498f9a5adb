/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Concurrency through ember.h, for three models (the built-in CNN, tests/data/onnx/mlp.onnx
 * and the traced TorchScript tiny_cnn): one session run from many threads at once, many
 * sessions of one model, models loaded, run and destroyed while others run, and a plan cache
 * of 1 evicted under concurrent runs of different shapes. Every output must be bit-identical
 * to the single-threaded run of the same shape (computed first, with a session of the same
 * thread count). Sessions use 2 compute threads, so each run also spreads over its session's
 * pool while other threads run on it.
 *
 * tools/test.sh runs this (and tests/runtime/test_thread.c, label `concurrency`) under
 * ThreadSanitizer; see tsan.supp. cmocka asserts stay on the main thread: workers count
 * failures, the test checks the counts after joining.
 */
#include "ember.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"
#include "common/test_data.h"

enum { N_SHAPES = 3, N_THREADS = 6 };

/* A model under test: how to load it and the input of each shape. */
typedef struct fixture {
    const char *name;
    const char *loader;        /* the loader it needs ("builtin": none) */
    const char *file;          /* under $EMBER_TEST_DATA; NULL: the built-in model */
    int rank;                  /* declared input rank (TorchScript), 0: none */
    int64_t dims[N_SHAPES][4]; /* input dims per shape; dims[k][0] varies */
    int in_rank;
} fixture;

static const fixture fixtures[] = {
    {"builtin", "builtin", NULL, 0, {{1, 1, 28, 28}, {2, 1, 28, 28}, {3, 1, 28, 28}}, 4},
    {"onnx mlp", "onnx", "onnx/mlp.onnx", 0, {{1, 16}, {2, 16}, {5, 16}}, 2},
    {"torchscript tiny_cnn", "torchscript", "torchscript/models/tiny_cnn.trace.t2.pt", 4,
     {{1, 3, 16, 16}, {2, 3, 16, 16}, {1, 3, 12, 12}}, 4},
};

/* Whether this build reads the fixture's format (the feature-off builds run this test too). */
static bool built(const fixture *f)
{
    const char *l = strstr(ember_build_info(), " loaders=");
    if (strcmp(f->loader, "builtin") == 0) {
        return true;
    }
    if (l == NULL) {
        return false;
    }
    const char *end = strchr(l + 1, ' '), *hit = strstr(l, f->loader);
    return hit != NULL && (end == NULL || hit < end);
}

#define data_path(rel) test_data_path("", rel)

/* Loads fixture f; NULL (with the status destroyed) on failure, for use on workers. */
static ember_model *load(const fixture *f)
{
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    ember_status *st = ember_model_options_create(&mo);
    if (st == NULL && f->rank > 0) {
        st = ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, f->rank);
    }
    if (st == NULL) {
        st = f->file != NULL ? ember_model_load_file(data_path(f->file), mo, &m)
                             : ember_model_load_builtin(NULL, mo, &m);
    }
    ember_model_options_destroy(mo);
    if (st != NULL) {
        fprintf(stderr, "%s: %s\n", f->name, ember_status_message(st));
        ember_status_destroy(st);
    }
    return m;
}

static ember_session *make_session(const ember_model *m, int cache)
{
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    ember_status *st = ember_session_options_create(&so);
    if (st == NULL) {
        ember_session_options_set_threads(so, 2);
        if (cache > 0) {
            ember_session_options_set_plan_cache(so, cache);
        }
        st = ember_session_create(m, so, &s);
    }
    ember_session_options_destroy(so);
    ember_status_destroy(st);
    return s;
}

/* The input of shape k: deterministic values in [0, 1). */
static ember_tensor *make_input(const fixture *f, int k)
{
    ember_tensor *x = NULL;
    if (ember_tensor_create(EMBER_DTYPE_F32, f->dims[k], f->in_rank, &x) != NULL) {
        return NULL;
    }
    float *d = ember_tensor_data(x);
    for (int64_t i = 0; i < ember_tensor_elem_count(x); i++) {
        d[i] = (float)((i * 7919 + k) % 101) / 101.0f;
    }
    return x;
}

/* Runs shape k on s; 0 when the output is bit-identical to want (which may be NULL: then
 * the output is returned through *got). */
static int run_check(ember_session *s, const fixture *f, int k, const ember_tensor *want,
                     ember_tensor **got)
{
    ember_tensor *x = make_input(f, k), *y = NULL;
    if (x == NULL) {
        return 1;
    }
    ember_status *st = ember_session_run(s, &x, 1, &y, 1);
    int bad = st != NULL;
    if (st != NULL) {
        fprintf(stderr, "%s shape %d: %s\n", f->name, k, ember_status_message(st));
    }
    if (!bad && want != NULL) {
        bad = ember_tensor_nbytes(y) != ember_tensor_nbytes(want) ||
              memcmp(ember_tensor_data(y), ember_tensor_data((ember_tensor *)want),
                     ember_tensor_nbytes(y)) != 0;
    }
    ember_status_destroy(st);
    ember_tensor_destroy(x);
    if (got != NULL && !bad) {
        *got = y;
    } else {
        ember_tensor_destroy(y);
    }
    return bad;
}

/* The serial outputs of every shape of fixture f (a fresh session, one run at a time). */
static void references(const fixture *f, ember_tensor *want[N_SHAPES])
{
    ember_model *m = load(f);
    assert_non_null(m);
    ember_session *s = make_session(m, 0);
    assert_non_null(s);
    for (int k = 0; k < N_SHAPES; k++) {
        want[k] = NULL;
        assert_int_equal(run_check(s, f, k, NULL, &want[k]), 0);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void free_refs(ember_tensor *want[N_SHAPES])
{
    for (int k = 0; k < N_SHAPES; k++) {
        ember_tensor_destroy(want[k]);
    }
}

/* ---- workers -------------------------------------------------------------------------- */

typedef struct job {
    const fixture *f;
    ember_session *s;  /* shared session, or NULL: the worker makes its own */
    const ember_model *m;
    ember_tensor *const *want;
    int id, iters;
    atomic_int *failures;
    int mode; /* 0 run on s (or an own session of m), 1 load/run/destroy a whole model */
} job;

static void *worker(void *p)
{
    job *j = p;
    int bad = 0;
    if (j->mode == 1) {
        for (int it = 0; it < j->iters; it++) {
            ember_model *m = load(j->f);
            ember_session *s = m != NULL ? make_session(m, 0) : NULL;
            bad += s == NULL || run_check(s, j->f, (j->id + it) % N_SHAPES,
                                          j->want[(j->id + it) % N_SHAPES], NULL);
            ember_session_destroy(s);
            ember_model_destroy(m);
        }
    } else {
        ember_session *s = j->s != NULL ? j->s : make_session(j->m, 0);
        bad += s == NULL;
        for (int it = 0; it < j->iters && s != NULL; it++) {
            int k = (j->id + it) % N_SHAPES;
            bad += run_check(s, j->f, k, j->want[k], NULL);
        }
        if (j->s == NULL) {
            ember_session_destroy(s);
        }
    }
    atomic_fetch_add(j->failures, bad);
    return NULL;
}

/* Starts n workers of `proto` (ids 0..n-1) and joins them. */
static void run_workers(job proto, int n)
{
    pthread_t th[16];
    job jobs[16];
    for (int i = 0; i < n; i++) {
        jobs[i] = proto;
        jobs[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < n; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
    }
}

/* ---- tests ---------------------------------------------------------------------------- */

/* What a test does with one fixture: its model m, a session s of it (plan cache `cache`),
 * the serial outputs want[]; it adds the failures its workers saw. */
typedef void (*scenario)(const fixture *f, ember_model *m, ember_session *s,
                         ember_tensor *const *want, atomic_int *failures);

/* Runs `go` for every fixture this build can load and checks that no worker failed. */
static void each_fixture(int cache, scenario go)
{
    for (size_t fi = 0; fi < sizeof fixtures / sizeof fixtures[0]; fi++) {
        const fixture *f = &fixtures[fi];
        if (!built(f)) {
            continue;
        }
        ember_tensor *want[N_SHAPES];
        references(f, want);
        ember_model *m = load(f);
        ember_session *s = m != NULL ? make_session(m, cache) : NULL;
        assert_non_null(s);
        atomic_int failures = 0;
        go(f, m, s, want, &failures);
        if (atomic_load(&failures) != 0) {
            fail_msg("%s: %d failed runs", f->name, atomic_load(&failures));
        }
        ember_session_destroy(s);
        ember_model_destroy(m);
        free_refs(want);
    }
}

/* Many threads run one session at once, shapes mixed. */
static void one_session(const fixture *f, ember_model *m, ember_session *s,
                        ember_tensor *const *want, atomic_int *failures)
{
    run_workers((job){f, s, m, want, 0, 40, failures, 0}, N_THREADS);
}

static void test_one_session_many_threads(void **state)
{
    (void)state;
    each_fixture(0, one_session);
}

/* Each thread makes its own session of one shared model and runs it. */
static void own_sessions(const fixture *f, ember_model *m, ember_session *s,
                         ember_tensor *const *want, atomic_int *failures)
{
    (void)s;
    run_workers((job){f, NULL, m, want, 0, 20, failures, 0}, N_THREADS);
}

static void test_many_sessions(void **state)
{
    (void)state;
    each_fixture(0, own_sessions);
}

/* Threads load, run and destroy whole models while other threads keep running a session of
 * the same fixture. */
static void churn(const fixture *f, ember_model *m, ember_session *s, ember_tensor *const *want,
                  atomic_int *failures)
{
    job churn_jobs[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        churn_jobs[i] = (job){f, NULL, NULL, want, i, 8, failures, 1};
        assert_int_equal(pthread_create(&th[i], NULL, worker, &churn_jobs[i]), 0);
    }
    run_workers((job){f, s, m, want, 0, 30, failures, 0}, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
    }
}

static void test_load_destroy_while_running(void **state)
{
    (void)state;
    each_fixture(0, churn);
}

/* A plan cache of 1 while threads run different shapes on one session: nearly every run
 * evicts the plan another run may still be using. */
static void test_plan_cache_evictions(void **state)
{
    (void)state;
    each_fixture(1, one_session);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_session_many_threads),
        cmocka_unit_test(test_many_sessions),
        cmocka_unit_test(test_load_destroy_while_running),
        cmocka_unit_test(test_plan_cache_evictions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
