/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Threads: a small pthread wrapper and the compute pool. A pool of N threads has N-1 workers;
 * the calling thread takes part in every parallel_for. Workers poll for the next job for
 * 0.2 ms after each one (a network's ops run back to back), then sleep on a condition
 * variable. One pool may serve several sessions and concurrent runs: while one
 * caller's loop is on the pool, another caller's loop runs serially on its own thread rather
 * than waiting, so concurrent runs never deadlock or queue behind each other.
 */
#ifndef EMBER_CORE_THREAD_H
#define EMBER_CORE_THREAD_H

#include "ember.h"

#include <stdint.h>

typedef struct em_threadpool em_threadpool;

/* Body of a parallel loop: processes items [begin, end). */
typedef void (*em_task_fn)(void *arg, int64_t begin, int64_t end);

ember_status *em_threadpool_create(const ember_allocator *al, int n_threads,
                                   em_threadpool **out);
void em_threadpool_destroy(em_threadpool *pool);
int em_threadpool_size(const em_threadpool *pool);
/* Runs fn over [0, n) split into chunks of at least `grain` items; returns when all are done.
 * pool may be NULL (serial). Makes no allocation. */
void em_parallel_for(em_threadpool *pool, int64_t n, int64_t grain, em_task_fn fn, void *arg);
/* Elements (floats moved or computed, about a ns each) below which a chunk of a parallel loop
 * is not worth its dispatch and a worker's wake-up. */
#define EM_GRAIN_ELEMS 16384
/* The grain, in items of item_elems elements each, that makes chunks of at least
 * EM_GRAIN_ELEMS elements (>= 1). */
static inline int64_t em_grain(int64_t item_elems)
{
    int64_t per = item_elems > 0 ? item_elems : 1;
    return per >= EM_GRAIN_ELEMS ? 1 : (EM_GRAIN_ELEMS + per - 1) / per;
}
/* Gives the core to another thread (sched_yield): for bounded waits that spin first. */
void em_thread_yield(void);
/* Number of online cores. */
int em_cpu_count(void);
/* Monotonic clock in nanoseconds. */
int64_t em_now_ns(void);
/* A small id for the calling thread (0 for the first thread that asks, 1, 2, ...). */
int em_thread_id(void);

#endif /* EMBER_CORE_THREAD_H */
