/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/thread.c: em_parallel_for covers [0, n) exactly once (hits counted with atomics)
 * for many (n, grain, pool size) triples, with chunks of at least `grain` items except the
 * last; a NULL pool runs serially on the caller; a second caller on a busy pool runs its loop
 * serially instead of waiting (checked deterministically while the first loop is held); two
 * threads hammering one pool both stay correct; nested loops complete; pools are created and
 * destroyed repeatedly without leaks (cmocka-tracked allocator) and fail cleanly on OOM;
 * thread ids are distinct per thread; the clock is monotonic; n up to INT64_MAX is split
 * exactly, with no overflow (checked in a child process with a deadline).
 *
 * cmocka asserts must run on the main thread: worker callbacks only record, the test checks.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "core/thread.h"

/* ---- coverage ------------------------------------------------------------------------- */

typedef struct cover {
    int64_t n, grain;
    atomic_int *hits; /* n counters */
    atomic_int calls;
    atomic_int bad_range;   /* calls with begin/end outside [0, n] or begin >= end */
    atomic_int short_chunk; /* calls shorter than grain that do not end at n */
    atomic_int ids[64];     /* em_thread_id() values seen, as a bitmap (ids < 64) */
} cover;

static void cover_fn(void *arg, int64_t begin, int64_t end)
{
    cover *c = arg;
    atomic_fetch_add(&c->calls, 1);
    if (begin < 0 || end > c->n || begin >= end) {
        atomic_fetch_add(&c->bad_range, 1);
        return;
    }
    if (end - begin < c->grain && end != c->n) {
        atomic_fetch_add(&c->short_chunk, 1);
    }
    int id = em_thread_id();
    if (id >= 0 && id < 64) {
        atomic_store(&c->ids[id], 1);
    }
    for (int64_t i = begin; i < end; i++) {
        atomic_fetch_add(&c->hits[i], 1);
    }
}

static void cover_init(cover *c, int64_t n, int64_t grain)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->grain = grain < 1 ? 1 : grain;
    c->hits = calloc((size_t)(n > 0 ? n : 1), sizeof *c->hits);
    assert_non_null(c->hits);
}

/* Runs one loop and checks exact coverage; returns the number of distinct thread ids seen. */
static int check_cover(em_threadpool *pool, int64_t n, int64_t grain)
{
    cover c;
    cover_init(&c, n, grain);
    em_parallel_for(pool, n, grain, cover_fn, &c);
    for (int64_t i = 0; i < n; i++) {
        if (atomic_load(&c.hits[i]) != 1) {
            fail_msg("n=%lld grain=%lld threads=%d: item %lld hit %d times", (long long)n,
                     (long long)grain, em_threadpool_size(pool), (long long)i,
                     atomic_load(&c.hits[i]));
        }
    }
    assert_int_equal(atomic_load(&c.bad_range), 0);
    assert_int_equal(atomic_load(&c.short_chunk), 0);
    if (n <= 0) {
        assert_int_equal(atomic_load(&c.calls), 0);
    } else {
        assert_true(atomic_load(&c.calls) >= 1);
    }
    int distinct = 0;
    for (int i = 0; i < 64; i++) {
        distinct += atomic_load(&c.ids[i]);
    }
    free(c.hits);
    return distinct;
}

static void test_parallel_for_coverage(void **state)
{
    (void)state;
    static const int64_t ns[] = {0,  1,  2,  3,  5,   7,   8,    9,    15,
                                 16, 17, 31, 64, 100, 257, 1000, 4099, 100000};
    static const int64_t grains[] = {-3, 0, 1, 2, 3, 7, 64, 1000, 1 << 20};
    for (int threads = 1; threads <= 8; threads++) {
        em_threadpool *pool = NULL;
        assert_null(em_threadpool_create(test_allocator(), threads, &pool));
        assert_int_equal(em_threadpool_size(pool), threads);
        for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
            for (size_t b = 0; b < sizeof grains / sizeof grains[0]; b++) {
                int distinct = check_cover(pool, ns[a], grains[b]);
                /* Only the caller and the pool's workers run chunks. */
                assert_true(distinct <= threads);
            }
        }
        em_threadpool_destroy(pool);
    }
}

static void test_parallel_for_large_n(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 4, &pool));
    for (int rep = 0; rep < 3; rep++) {
        check_cover(pool, 3000017, 1);
        check_cover(pool, 1 << 21, 4096);
    }
    em_threadpool_destroy(pool);
}

/* Many short loops back to back, each with its counters on the caller's stack: a worker that
 * wakes late for one loop must either join a loop that is still open or stay out, so every
 * item of every loop runs exactly once and nothing touches a finished loop's frame. With 4
 * threads on this 2-core machine some workers are always late. */
typedef struct short_loop {
    atomic_int hits[8];
} short_loop;

static void short_task(void *arg, int64_t b, int64_t e)
{
    short_loop *l = arg;
    for (int64_t i = b; i < e; i++) {
        atomic_fetch_add(&l->hits[i], 1);
    }
}

static void test_many_short_loops(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 4, &pool));
    for (int rep = 0; rep < 20000; rep++) {
        short_loop l;
        int64_t n = 2 + rep % 7;
        for (int i = 0; i < 8; i++) {
            atomic_init(&l.hits[i], 0);
        }
        em_parallel_for(pool, n, 1, short_task, &l);
        for (int64_t i = 0; i < 8; i++) {
            if (atomic_load(&l.hits[i]) != (i < n ? 1 : 0)) {
                fail_msg("loop %d: item %lld ran %d times", rep, (long long)i,
                         atomic_load(&l.hits[i]));
            }
        }
    }
    em_threadpool_destroy(pool);
}

static void test_negative_n(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 3, &pool));
    cover c;
    cover_init(&c, 0, 1);
    em_parallel_for(pool, -5, 1, cover_fn, &c);
    em_parallel_for(NULL, -1, 1, cover_fn, &c);
    em_parallel_for(pool, INT64_MIN, 1, cover_fn, &c);
    assert_int_equal(atomic_load(&c.calls), 0);
    free(c.hits);
    em_threadpool_destroy(pool);
}

/* ---- serial paths ---------------------------------------------------------------------- */

typedef struct record {
    int n_calls;
    int64_t begin, end;
    pthread_t who;
} record;

static void record_fn(void *arg, int64_t begin, int64_t end)
{
    record *r = arg;
    r->n_calls++;
    r->begin = begin;
    r->end = end;
    r->who = pthread_self();
}

static void test_null_pool_is_serial(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 2, 17, 1000000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        record r = {0};
        em_parallel_for(NULL, ns[i], 1, record_fn, &r);
        assert_int_equal(r.n_calls, 1);
        assert_int_equal(r.begin, 0);
        assert_int_equal(r.end, ns[i]);
        assert_true(pthread_equal(r.who, pthread_self()));
    }
    assert_int_equal(em_threadpool_size(NULL), 1);
    check_cover(NULL, 12345, 7);
    /* A one-thread pool has no workers: also one call on the caller. */
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 1, &pool));
    record r = {0};
    em_parallel_for(pool, 999, 1, record_fn, &r);
    assert_int_equal(r.n_calls, 1);
    assert_true(pthread_equal(r.who, pthread_self()));
    em_threadpool_destroy(pool);
}

/* ---- a second caller on a busy pool ------------------------------------------------------- */

typedef struct busy {
    em_threadpool *pool;
    atomic_int a_entered; /* chunks of loop A that have started */
    atomic_int b_done;    /* loop B has returned */
    atomic_int a_timed_out;
    record rb;
} busy;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Loop A's body: hold the pool until loop B has finished (at most ~10 s). */
static void hold_fn(void *arg, int64_t begin, int64_t end)
{
    busy *b = arg;
    (void)begin;
    (void)end;
    atomic_fetch_add(&b->a_entered, 1);
    for (int i = 0; i < 10000 && !atomic_load(&b->b_done); i++) {
        sleep_ms(1);
    }
    if (!atomic_load(&b->b_done)) {
        atomic_store(&b->a_timed_out, 1);
    }
}

static void *loop_a(void *arg)
{
    busy *b = arg;
    em_parallel_for(b->pool, 2, 1, hold_fn, b);
    return NULL;
}

static void test_busy_pool_falls_back_to_serial(void **state)
{
    (void)state;
    busy b;
    memset(&b, 0, sizeof b);
    assert_null(em_threadpool_create(test_allocator(), 2, &b.pool));
    pthread_t ta;
    assert_int_equal(pthread_create(&ta, NULL, loop_a, &b), 0);
    for (int i = 0; i < 10000 && atomic_load(&b.a_entered) == 0; i++) {
        sleep_ms(1);
    }
    assert_true(atomic_load(&b.a_entered) > 0);
    /* Loop A is on the pool and blocked: loop B must run whole, here, without waiting. */
    em_parallel_for(b.pool, 1000, 1, record_fn, &b.rb);
    atomic_store(&b.b_done, 1);
    assert_int_equal(pthread_join(ta, NULL), 0);
    assert_int_equal(atomic_load(&b.a_timed_out), 0);
    assert_int_equal(b.rb.n_calls, 1);
    assert_int_equal(b.rb.begin, 0);
    assert_int_equal(b.rb.end, 1000);
    assert_true(pthread_equal(b.rb.who, pthread_self()));
    /* The pool is usable again afterwards. */
    check_cover(b.pool, 5000, 1);
    em_threadpool_destroy(b.pool);
}

/* ---- two callers hammering one pool ------------------------------------------------------ */

enum { HAMMER_ITERS = 200, HAMMER_N = 3001 };

typedef struct hammer {
    em_threadpool *pool;
    pthread_barrier_t *start;
    int errors;     /* items not hit exactly once, summed over iterations */
    int iterations; /* loops completed */
} hammer;

static void *hammer_main(void *arg)
{
    hammer *h = arg;
    cover c;
    memset(&c, 0, sizeof c);
    c.n = HAMMER_N;
    c.grain = 1;
    c.hits = calloc(HAMMER_N, sizeof *c.hits);
    if (c.hits == NULL) {
        h->errors = -1;
        return NULL;
    }
    pthread_barrier_wait(h->start);
    for (int it = 0; it < HAMMER_ITERS; it++) {
        for (int i = 0; i < HAMMER_N; i++) {
            atomic_store(&c.hits[i], 0);
        }
        em_parallel_for(h->pool, HAMMER_N, 1, cover_fn, &c);
        for (int i = 0; i < HAMMER_N; i++) {
            h->errors += atomic_load(&c.hits[i]) != 1;
        }
        h->iterations++;
    }
    h->errors += atomic_load(&c.bad_range);
    free(c.hits);
    return NULL;
}

static void test_concurrent_callers(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 4, &pool));
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
    hammer h[2] = {{pool, &start, 0, 0}, {pool, &start, 0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, hammer_main, &h[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
    }
    pthread_barrier_destroy(&start);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(h[i].errors, 0);
        assert_int_equal(h[i].iterations, HAMMER_ITERS);
    }
    em_threadpool_destroy(pool);
}

/* ---- nested loops ------------------------------------------------------------------------ */

typedef struct nested {
    em_threadpool *pool;
    atomic_int hits[16 * 100];
} nested;

typedef struct inner_arg {
    nested *nest;
    int64_t row;
} inner_arg;

static void inner_fn(void *arg, int64_t begin, int64_t end)
{
    inner_arg *a = arg;
    for (int64_t j = begin; j < end; j++) {
        atomic_fetch_add(&a->nest->hits[a->row * 100 + j], 1);
    }
}

static void outer_fn(void *arg, int64_t begin, int64_t end)
{
    nested *nest = arg;
    for (int64_t i = begin; i < end; i++) {
        inner_arg a = {nest, i};
        em_parallel_for(nest->pool, 100, 1, inner_fn, &a); /* runs serially: pool is busy */
    }
}

static void test_nested_loops(void **state)
{
    (void)state;
    nested *nest = calloc(1, sizeof *nest);
    assert_non_null(nest);
    assert_null(em_threadpool_create(test_allocator(), 4, &nest->pool));
    em_parallel_for(nest->pool, 16, 1, outer_fn, nest);
    for (int i = 0; i < 16 * 100; i++) {
        assert_int_equal(atomic_load(&nest->hits[i]), 1);
    }
    em_threadpool_destroy(nest->pool);
    free(nest);
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

static void test_create_destroy_repeatedly(void **state)
{
    (void)state;
    for (int rep = 0; rep < 5; rep++) {
        for (int threads = 1; threads <= 8; threads++) {
            em_threadpool *pool = NULL;
            assert_null(em_threadpool_create(test_allocator(), threads, &pool));
            assert_int_equal(em_threadpool_size(pool), threads);
            if (rep % 2 == 0) {
                check_cover(pool, 100 * threads + rep, 1);
            }
            em_threadpool_destroy(pool); /* idle or just used: both must join cleanly */
        }
    }
    em_threadpool_destroy(NULL);

    /* n_threads <= 0 means one per core. */
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 0, &pool));
    assert_int_equal(em_threadpool_size(pool), em_cpu_count());
    check_cover(pool, 777, 1);
    em_threadpool_destroy(pool);
    assert_true(em_cpu_count() >= 1);
}

static void test_create_oom(void **state)
{
    (void)state;
    /* Two allocations: the pool and the worker array. */
    for (long fail = 1; fail <= 2; fail++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = fail;
        em_threadpool *pool = (em_threadpool *)&ca;
        ember_status *st = em_threadpool_create(&ca.al, 4, &pool);
        assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        ember_status_destroy(st);
        assert_null(pool);
        assert_int_equal(ca.live, 0);
    }
    counting_alloc ca;
    counting_alloc_init(&ca);
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(&ca.al, 4, &pool));
    em_threadpool_destroy(pool);
    assert_int_equal(ca.live, 0);
}

/* ---- thread ids and the clock --------------------------------------------------------------- */

enum { N_ID_THREADS = 8 };

static void *id_main(void *arg)
{
    int *out = arg;
    out[0] = em_thread_id();
    out[1] = em_thread_id(); /* stable within a thread */
    return NULL;
}

static void test_thread_ids(void **state)
{
    (void)state;
    int mine = em_thread_id();
    assert_true(mine >= 0);
    assert_int_equal(em_thread_id(), mine);
    int got[N_ID_THREADS][2];
    pthread_t t[N_ID_THREADS];
    for (int i = 0; i < N_ID_THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, id_main, got[i]), 0);
    }
    for (int i = 0; i < N_ID_THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
    }
    for (int i = 0; i < N_ID_THREADS; i++) {
        assert_true(got[i][0] >= 0);
        assert_int_equal(got[i][0], got[i][1]);
        assert_int_not_equal(got[i][0], mine);
        for (int j = 0; j < i; j++) {
            assert_int_not_equal(got[i][0], got[j][0]);
        }
    }
    assert_int_equal(em_thread_id(), mine);
}

static void test_now_ns_monotonic(void **state)
{
    (void)state;
    int64_t prev = em_now_ns();
    assert_true(prev >= 0);
    for (int i = 0; i < 100000; i++) {
        int64_t t = em_now_ns();
        assert_true(t >= prev);
        prev = t;
    }
    int64_t t0 = em_now_ns();
    sleep_ms(20);
    int64_t dt = em_now_ns() - t0;
    assert_true(dt >= 20 * 1000000LL);
    assert_true(dt < 20 * 1000000000LL); /* sanity: nanoseconds, not something coarser */
}

/* ---- extreme n ------------------------------------------------------------------------------ */

/* The loop bounds are int64_t: the largest n must still be split into [0, n) exactly, without
 * overflow in the chunk arithmetic or in the shared claim counter. Items are not touched:
 * ranges are recorded and checked to tile [0, n). Runs in a child process with a deadline,
 * because an overflowing loop may abort (UBSan) or never return (a wrapped counter). */
typedef struct ranges {
    pthread_mutex_t mu;
    int n;
    int64_t b[4096], e[4096];
    int overflow;
} ranges;

static void ranges_fn(void *arg, int64_t begin, int64_t end)
{
    ranges *r = arg;
    pthread_mutex_lock(&r->mu);
    if (r->n < 4096) {
        r->b[r->n] = begin;
        r->e[r->n] = end;
        r->n++;
    } else {
        r->overflow = 1;
    }
    pthread_mutex_unlock(&r->mu);
}

static int cmp_begin(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* No cmocka here (this runs in the child): returns 0 when the ranges tile [0, n). */
static int tiling_ok(em_threadpool *pool, int64_t n, int64_t grain)
{
    static ranges r;
    static int64_t pairs[4096][2];
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.mu, NULL);
    em_parallel_for(pool, n, grain, ranges_fn, &r);
    if (r.overflow || r.n < 1) {
        fprintf(stderr, "n=%lld: %d calls%s\n", (long long)n, r.n, r.overflow ? " (or more)" : "");
        return 1;
    }
    for (int i = 0; i < r.n; i++) {
        pairs[i][0] = r.b[i];
        pairs[i][1] = r.e[i];
    }
    qsort(pairs, (size_t)r.n, sizeof pairs[0], cmp_begin);
    int64_t at = 0;
    for (int i = 0; i < r.n; i++) {
        if (pairs[i][0] != at || pairs[i][1] <= pairs[i][0]) {
            fprintf(stderr, "n=%lld: range %d is [%lld,%lld), expected to start at %lld\n",
                    (long long)n, i, (long long)pairs[i][0], (long long)pairs[i][1], (long long)at);
            return 1;
        }
        at = pairs[i][1];
    }
    pthread_mutex_destroy(&r.mu);
    return at == n ? 0 : 1;
}

static int extreme_child(void)
{
    em_threadpool *pool = NULL;
    ember_status *st = em_threadpool_create(NULL, 4, &pool);
    if (st != NULL) {
        return 1;
    }
    int bad = tiling_ok(pool, INT64_MAX / 2, INT64_MAX / 64);
    bad |= tiling_ok(NULL, INT64_MAX, 1);
    bad |= tiling_ok(pool, INT64_MAX, INT64_MAX / 8);
    bad |= tiling_ok(pool, INT64_MAX - 1, INT64_MAX / 1000);
    em_threadpool_destroy(pool);
    return bad;
}

/* em_grain: chunks of at least EM_GRAIN_ELEMS elements, rounded up, never below 1. */
static void test_grain(void **state)
{
    (void)state;
    assert_int_equal(em_grain(EM_GRAIN_ELEMS), 1);
    assert_int_equal(em_grain(EM_GRAIN_ELEMS * 3), 1);
    assert_int_equal(em_grain(EM_GRAIN_ELEMS - 1), 2);
    assert_int_equal(em_grain(EM_GRAIN_ELEMS / 2), 2);
    assert_int_equal(em_grain(EM_GRAIN_ELEMS / 2 + 1), 2);
    assert_int_equal(em_grain(EM_GRAIN_ELEMS / 2 - 1), 3);
    assert_int_equal(em_grain(1), EM_GRAIN_ELEMS);
    assert_int_equal(em_grain(0), EM_GRAIN_ELEMS);
    assert_int_equal(em_grain(-5), EM_GRAIN_ELEMS);
    for (int64_t per = 1; per < 3 * EM_GRAIN_ELEMS; per += 997) {
        int64_t g = em_grain(per);
        assert_true(g >= 1 && g * per >= EM_GRAIN_ELEMS && (g == 1 || (g - 1) * per < EM_GRAIN_ELEMS));
    }
}

static void test_extreme_n(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        _exit(extreme_child());
    }
    int status = 0;
    pid_t w = 0;
    for (int ms = 0; ms < 30000 && (w = waitpid(pid, &status, WNOHANG)) == 0; ms += 10) {
        sleep_ms(10);
    }
    if (w == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fail_msg("em_parallel_for(n near INT64_MAX) did not return within 30 s");
    }
    assert_int_equal(w, pid);
    if (WIFSIGNALED(status)) {
        fail_msg("em_parallel_for(n near INT64_MAX) died with signal %d", WTERMSIG(status));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail_msg("em_parallel_for(n near INT64_MAX): ranges do not tile [0, n) (exit status "
                 "%d; an UBSan report above names the overflow)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_ids),
        cmocka_unit_test(test_parallel_for_coverage),
        cmocka_unit_test(test_parallel_for_large_n),
        cmocka_unit_test(test_many_short_loops),
        cmocka_unit_test(test_negative_n),
        cmocka_unit_test(test_null_pool_is_serial),
        cmocka_unit_test(test_busy_pool_falls_back_to_serial),
        cmocka_unit_test(test_concurrent_callers),
        cmocka_unit_test(test_nested_loops),
        cmocka_unit_test(test_create_destroy_repeatedly),
        cmocka_unit_test(test_create_oom),
        cmocka_unit_test(test_now_ns_monotonic),
        cmocka_unit_test(test_extreme_n),
        cmocka_unit_test(test_grain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
