/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compute pool. A parallel_for publishes one job (fn, arg, n, chunk) under the pool
 * mutex and bumps a generation counter; sleeping workers wake, claim chunks with an atomic
 * counter, and the last one to finish signals the caller, who also claims chunks. A caller
 * that finds the pool busy (trylock on `submit`) runs its loop serially instead of queueing.
 */
#define _POSIX_C_SOURCE 200809L
#include "thread.h"

#include "alloc.h"
#include "status.h"

#include <pthread.h>
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
    pthread_cond_t done;
    uint64_t generation;
    bool stop;
    int active;
    em_task_fn fn;
    void *arg;
    int64_t n, chunk;
    atomic_int_fast64_t next;
};

/* Claims chunk indices (not item offsets), so nothing overflows even for n near INT64_MAX. */
static void run_chunks(em_threadpool *p)
{
    int64_t n_chunks = (p->n - 1) / p->chunk + 1;
    for (;;) {
        int64_t c = atomic_fetch_add(&p->next, 1);
        if (c >= n_chunks) {
            return;
        }
        int64_t b = c * p->chunk;
        int64_t e = p->n - b > p->chunk ? b + p->chunk : p->n;
        p->fn(p->arg, b, e);
    }
}

static void *worker_main(void *arg)
{
    em_threadpool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->generation == seen && !p->stop) {
            pthread_cond_wait(&p->wake, &p->mu);
        }
        if (p->stop) {
            break;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        run_chunks(p);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->mu);
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
    pthread_cond_init(&p->done, NULL);
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
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_workers; i++) {
        pthread_join(p->workers[i], NULL);
    }
    em_free(p->al, p->workers);
    pthread_cond_destroy(&p->done);
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
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->chunk = chunk;
    atomic_store(&p->next, 0);
    p->active = p->n_workers;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    run_chunks(p);

    pthread_mutex_lock(&p->mu);
    while (p->active > 0) {
        pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->submit);
}

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
