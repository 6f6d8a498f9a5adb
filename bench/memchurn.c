/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resident memory under shape churn and bursts (issue #17, item 5), on ember.h alone.
 *
 *   memchurn MODEL [--shapes N] [--passes P] [--burst T] [--threads K] [--cap C]
 *
 * MODEL is a 4-D image model (TorchScript or ONNX) taking one f32 input [B, 3, H, W]. Prints
 * RSS (from /proc/self/statm) after each step as `step rss_mb=...`:
 *   start, load, passN (N shapes, batch 1-4, sides 32-228, the same sequence every pass),
 *   destroy (session and model gone), then a fresh load and session and one run: load2;
 *   T threads run one 1x3x224x224 shape at once: burst_peak (the peak RSS during the burst,
 *   VmHWM after a reset through /proc/self/clear_refs), burst (every run returned, threads
 *   alive), after_burst (threads joined), release (ember_session_release_plans), destroy2.
 *   anon_mb is RssAnon: RSS less file pages (the libraries' code, mapped model files).
 * With -DEMBER_MEMORY_STATS (a library with ember_session_memory_stat, issue #17 item 5 on),
 * each line also has the session's report: plans, their arenas, packed weights, run contexts.
 * Build: cc -O2 [-DEMBER_MEMORY_STATS] -Iinclude bench/memchurn.c -Lbuild -lember -lpthread
 *        -o memchurn
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double rss_mb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &size, &res) != 2) {
            res = 0;
        }
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* A field of /proc/self/status in MiB: RssAnon (resident memory that is not file pages:
 * code, mapped model files) or VmHWM (peak RSS since the last reset_peak). */
static double status_mb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, key, strlen(key)) == 0) {
            kb = atof(line + strlen(key));
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return kb / 1024.0;
}

static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f != NULL) {
        fputs("5", f);
        fclose(f);
    }
}

static void check(ember_status *st, const char *what)
{
    if (st != NULL) {
        fprintf(stderr, "memchurn: %s: %s\n", what, ember_status_message(st));
        exit(1);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void report(const char *step, const ember_session *s)
{
    printf("%-12s rss_mb=%.1f anon_mb=%.1f", step, rss_mb(), status_mb("RssAnon:"));
#ifdef EMBER_MEMORY_STATS
    if (s != NULL) {
        static const struct {
            ember_memory_stat k;
            const char *name;
        } stats[] = {{EMBER_MEMORY_PLANS, "plans"},
                     {EMBER_MEMORY_PLAN_ARENA_BYTES, "plan_arenas_mb"},
                     {EMBER_MEMORY_PACKED_WEIGHT_BYTES, "packed_mb"},
                     {EMBER_MEMORY_RUN_CONTEXTS, "contexts"},
                     {EMBER_MEMORY_RUN_CONTEXT_BYTES, "contexts_mb"}};
        for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
            size_t v = 0;
            ember_status *st = ember_session_memory_stat(s, stats[i].k, &v);
            if (st == NULL) {
                bool mb = strstr(stats[i].name, "_mb") != NULL;
                if (mb) {
                    printf(" %s=%.1f", stats[i].name, (double)v / (1024.0 * 1024.0));
                } else {
                    printf(" %s=%zu", stats[i].name, v);
                }
            }
            ember_status_destroy(st);
        }
    }
#else
    (void)s;
#endif
    printf("\n");
    fflush(stdout);
}

static ember_status *run_shape(ember_session *s, int64_t b, int64_t h, int64_t w)
{
    int64_t dims[4] = {b, 3, h, w};
    ember_tensor *x = NULL, *y = NULL;
    ember_status *st = ember_tensor_create(EMBER_DTYPE_F32, dims, 4, &x);
    if (st == NULL) {
        float *d = ember_tensor_data(x);
        for (int64_t i = 0; i < ember_tensor_elem_count(x); i++) {
            d[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
        }
        st = ember_session_run(s, &x, 1, &y, 1);
    }
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    return st;
}

typedef struct burst {
    ember_session *s;
    pthread_barrier_t *start, *done, *release;
    ember_status *st;
} burst;

static void *burst_thread(void *arg)
{
    burst *b = arg;
    pthread_barrier_wait(b->start);
    b->st = run_shape(b->s, 1, 224, 224);
    pthread_barrier_wait(b->done);
    pthread_barrier_wait(b->release);
    return NULL;
}

static void load(const char *path, int threads, int cap, ember_model **m, ember_session **s)
{
    ember_model_options *mo = NULL;
    ember_session_options *so = NULL;
    check(ember_model_options_create(&mo), "model options");
    check(ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, 4), "input rank");
    check(ember_model_load_file(path, mo, m), path);
    ember_model_options_destroy(mo);
    check(ember_session_options_create(&so), "session options");
    ember_session_options_set_threads(so, threads);
    ember_session_options_set_plan_cache(so, cap);
    check(ember_session_create(*m, so, s), "session");
    ember_session_options_destroy(so);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int n_shapes = 200, passes = 2, n_burst = 64, threads = 0, cap = 8;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shapes") == 0 && i + 1 < argc) {
            n_shapes = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc) {
            passes = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--burst") == 0 && i + 1 < argc) {
            n_burst = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc) {
            cap = atoi(argv[++i]);
        } else {
            path = argv[i];
        }
    }
    if (path == NULL) {
        fprintf(stderr, "usage: memchurn MODEL [--shapes N] [--passes P] [--burst T] "
                        "[--threads K] [--cap C]\n");
        return 2;
    }
    ember_model *m = NULL;
    ember_session *s = NULL;
    report("start", NULL);
    load(path, threads, cap, &m, &s);
    report("load", s);
    for (int p = 1; p <= passes; p++) {
        double t0 = now_s();
        unsigned seed = 12345;
        for (int i = 0; i < n_shapes; i++) {
            seed = seed * 1103515245u + 12345u;
            int64_t b = 1 + (seed >> 16) % 4;
            seed = seed * 1103515245u + 12345u;
            int64_t h = 32 + (seed >> 16) % 197;
            seed = seed * 1103515245u + 12345u;
            int64_t w = 32 + (seed >> 16) % 197;
            check(run_shape(s, b, h, w), "run");
        }
        char name[32];
        snprintf(name, sizeof name, "pass%d", p);
        printf("pass%d_s=%.1f\n", p, now_s() - t0);
        report(name, s);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
    report("destroy", NULL);
    if (n_burst > 0) {
        load(path, threads, cap, &m, &s);
        check(run_shape(s, 1, 224, 224), "run");
        report("load2", s);
        reset_peak();
        pthread_barrier_t start, done, release;
        pthread_barrier_init(&start, NULL, (unsigned)n_burst);
        pthread_barrier_init(&done, NULL, (unsigned)n_burst + 1);
        pthread_barrier_init(&release, NULL, (unsigned)n_burst + 1);
        burst *b = calloc((size_t)n_burst, sizeof *b);
        pthread_t *t = calloc((size_t)n_burst, sizeof *t);
        for (int i = 0; i < n_burst; i++) {
            b[i] = (burst){s, &start, &done, &release, NULL};
            pthread_create(&t[i], NULL, burst_thread, &b[i]);
        }
        pthread_barrier_wait(&done);
        printf("burst_peak   rss_mb=%.1f\n", status_mb("VmHWM:"));
        report("burst", s);
        pthread_barrier_wait(&release);
        for (int i = 0; i < n_burst; i++) {
            pthread_join(t[i], NULL);
            check(b[i].st, "burst run");
        }
        report("after_burst", s);
        ember_session_release_plans(s);
        report("release", s);
        ember_session_destroy(s);
        ember_model_destroy(m);
        report("destroy2", NULL);
        free(b);
        free(t);
    }
    return 0;
}
