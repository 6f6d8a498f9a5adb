/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compute pool. A parallel_for publishes one job (fn, arg, n, chunk) under the pool
 * mutex and bumps a generation counter. Chunks are claimed from one atomic word holding the
 * job's tag, its chunk count and the next chunk index (a compare-and-swap, so a claim on a
 * word of an earlier job fails); whoever finishes a chunk counts it in `done`, and the caller,
 * who claims chunks too, returns when every chunk is done. A caller that finds the pool busy
 * (trylock on `submit`) runs its loop serially instead of queueing.
 * The caller waits for chunks, not for workers: a worker that woke for the job but was not
 * scheduled until its chunks were gone costs nothing (a 2 x 10 us loop after a 0.3 ms pause,
 * machine at load 6: median 234 us when the caller waited for every worker that had joined).
 * A worker reads the job's fields only after a successful claim, and the job cannot end (so
 * its fields cannot change) before that chunk is done.
 * Waiting: a worker polls the generation for SPIN_NS after its last job before it sleeps on
 * the condition variable, and the caller polls for the last chunk's end as long before it
 * sleeps. On this 2-core KVM guest, quiet, a 2-chunk loop of 2 x 100 us took 150 us with
 * sleeping workers (the futex wake-up of an idle vCPU) and 100.5 us with polling ones;
 * mobilenet_v2 at 2 threads went 6.6-7.2 -> 3.9-4.0 ms, resnet18 13.7-15.3 -> 12.2-12.5 ms.
 * With another busy process on the machine polling costs a little (225 -> 250 us on that
 * loop; yielding in the poll was worse, 410-680 us). Idle pools sleep after SPIN_NS.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/thread.h"

#include "core/alloc.h"
#include "core/status.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

struct em_threadpool {
    const ember_allocator *al;
    int n_threads;
    int n_workers;
    pthread_t *workers;
    pthread_mutex_t submit;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_cond_t done_cv;
    atomic_uint_fast64_t generation; /* bumped under mu; polled without it */
    atomic_bool stop;
    /* tag << 32 | chunk count << 16 | next chunk: the open job's claims (count 0: none) */
    atomic_uint_fast64_t claim;
    atomic_int_fast64_t done; /* chunks of the current job finished */
    uint32_t tag;             /* the caller's job counter (under `submit`) */
    em_task_fn fn;
    void *arg;
    int64_t n, chunk;
};

#define CLAIM_COUNT(w) (((w) >> 16) & 0xffff)
#define CLAIM_NEXT(w) ((w)&0xffff)
#define MAX_CHUNKS 0xffff

/* Claims and runs chunks of the open job until none is left; true when this thread finished
 * the job's last chunk. Chunk indices, not item offsets, so nothing overflows even for n near
 * INT64_MAX. */
static bool run_chunks(em_threadpool *p)
{
    uint_fast64_t w = atomic_load_explicit(&p->claim, memory_order_acquire);
    for (;;) {
        if (CLAIM_NEXT(w) >= CLAIM_COUNT(w)) {
            return false;
        }
        if (!atomic_compare_exchange_weak_explicit(&p->claim, &w, w + 1, memory_order_acq_rel,
                                                   memory_order_acquire)) {
            continue; /* w now holds the current word */
        }
        int64_t c = (int64_t)CLAIM_NEXT(w), count = (int64_t)CLAIM_COUNT(w);
        int64_t b = c * p->chunk; /* the job's fields: stable until its chunks are done */
        int64_t e = p->n - b > p->chunk ? b + p->chunk : p->n;
        p->fn(p->arg, b, e);
        if (atomic_fetch_add_explicit(&p->done, 1, memory_order_acq_rel) + 1 == count) {
            return true;
        }
        w = atomic_load_explicit(&p->claim, memory_order_acquire);
    }
}

/* How long a waiting thread polls before it sleeps (see the header). */
#define SPIN_NS 200000

/* A compiler barrier only: PAUSE made no difference on the quiet VM and invites the
 * hypervisor's pause-loop exits. */
static inline void cpu_relax(void)
{
    atomic_signal_fence(memory_order_seq_cst);
}

/* Polls until the generation differs from `seen` or the pool stops; false after SPIN_NS. */
static bool spin_for_job(em_threadpool *p, uint64_t seen)
{
    int64_t t0 = 0;
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(&p->generation, memory_order_acquire) != seen ||
            atomic_load_explicit(&p->stop, memory_order_relaxed)) {
            return true;
        }
        if ((i & 63) == 0) {
            int64_t t = em_now_ns();
            t0 = t0 == 0 ? t : t0;
            if (t - t0 > SPIN_NS) {
                return false;
            }
        }
        cpu_relax();
    }
}

static void *worker_main(void *arg)
{
    em_threadpool *p = arg;
    uint64_t seen = 0;
    for (;;) {
        if (!spin_for_job(p, seen)) {
            pthread_mutex_lock(&p->mu);
            while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop)) {
                pthread_cond_wait(&p->wake, &p->mu);
            }
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) {
            break;
        }
        seen = atomic_load_explicit(&p->generation, memory_order_acquire);
        if (run_chunks(p)) {
            pthread_mutex_lock(&p->mu); /* the caller may be asleep on `done` */
            pthread_cond_signal(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
    return NULL;
}

ember_status *em_threadpool_create(const ember_allocator *al, int n_threads, em_threadpool **out)
{
    *out = NULL;
    if (n_threads <= 0) {
        n_threads = em_cpu_count();
    }
    em_threadpool *p = em_calloc(al, 1, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    p->al = al;
    p->n_threads = n_threads;
    pthread_mutex_init(&p->submit, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    if (n_threads > 1) {
        p->workers = em_calloc(al, (size_t)n_threads - 1, sizeof *p->workers);
        if (p->workers == NULL) {
            em_threadpool_destroy(p);
            return em_status_oom();
        }
        for (int i = 0; i < n_threads - 1; i++) {
            if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
                em_threadpool_destroy(p);
                return em_status_new(EMBER_ERR_INTERNAL, "thread pool: cannot start thread %d",
                                     i + 1);
            }
            p->n_workers++;
        }
    }
    *out = p;
    return NULL;
}

void em_threadpool_destroy(em_threadpool *p)
{
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_workers; i++) {
        pthread_join(p->workers[i], NULL);
    }
    em_free(p->al, p->workers);
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->submit);
    em_free(p->al, p);
}

int em_threadpool_size(const em_threadpool *p) { return p == NULL ? 1 : p->n_threads; }

void em_parallel_for(em_threadpool *p, int64_t n, int64_t grain, em_task_fn fn, void *arg)
{
    if (n <= 0) {
        return;
    }
    if (grain < 1) {
        grain = 1;
    }
    if (p == NULL || p->n_workers == 0 || n <= grain || pthread_mutex_trylock(&p->submit) != 0) {
        fn(arg, 0, n);
        return;
    }
    /* About four chunks per thread balances load without much claiming overhead. */
    int64_t parts = (int64_t)p->n_threads * 4;
    int64_t chunk = n / parts + (n % parts != 0);
    if (chunk < grain) {
        chunk = grain;
    }
    if ((n - 1) / chunk + 1 > MAX_CHUNKS) {
        chunk = (n - 1) / MAX_CHUNKS + 1;
    }
    uint_fast64_t count = (uint_fast64_t)((n - 1) / chunk + 1);
    pthread_mutex_lock(&p->mu);
    /* No chunk of the last job is running (it ended) and none of its claims can succeed. */
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->chunk = chunk;
    p->tag++;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_store_explicit(&p->claim, (uint_fast64_t)p->tag << 32 | count << 16,
                          memory_order_release);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    /* Claim chunks, then wait for the ones workers hold (polling, then asleep). */
    run_chunks(p);
    int64_t t0 = 0;
    for (unsigned i = 1;
         atomic_load_explicit(&p->done, memory_order_acquire) != (int_fast64_t)count; i++) {
        if ((i & 63) == 0) {
            int64_t t = em_now_ns();
            t0 = t0 == 0 ? t : t0;
            if (t - t0 > SPIN_NS) {
                pthread_mutex_lock(&p->mu);
                while (atomic_load(&p->done) != (int_fast64_t)count) {
                    pthread_cond_wait(&p->done_cv, &p->mu);
                }
                pthread_mutex_unlock(&p->mu);
                break;
            }
        }
        cpu_relax();
    }
    pthread_mutex_unlock(&p->submit);
}

void em_thread_yield(void) { sched_yield(); }

int em_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 256 ? 256 : (int)n);
}

int64_t em_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Thread ids are per process; the counter is the thread module's own state. */
static atomic_int next_thread_id;
static _Thread_local int my_thread_id = -1;

int em_thread_id(void)
{
    if (my_thread_id < 0) {
        my_thread_id = atomic_fetch_add(&next_thread_id, 1);
    }
    return my_thread_id;
}
