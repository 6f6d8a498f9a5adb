/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SGEMM throughput probe (not part of ember, not a test): ember's f32 Gemm kernels, called as
 * the planner and executor call them (constant B prepacked in prepare, a [N] bias as C), and
 * OpenBLAS's cblas_sgemm (dlopen'ed, beta = 0, no bias) on the Gemm shapes of the transformer-
 * like suite models, at a given thread count. Prints one line per shape and kernel:
 *   shape M K N  kernel  GFLOP/s (best)  GFLOP/s (median)  ms (median)
 * Built by `cmake --build build --target ember_gemm_bench` (tests/CMakeLists.txt, not part of
 * `all`). Usage:
 *   build/tests/ember_gemm_bench [--threads N] [--kernel SUFFIX] [--act NAME] [--openblas]
 *                                [--no-bias] [--cpu-time] [--cold]
 *                                [--shape M,K,N]... [--time S]
 * --cold evicts the caches (an untimed pass over 256 MiB) before each timed call, so that B
 * comes from DRAM as a model's weights do; --time then counts the timed calls only.
 * SUFFIX selects the registry entries whose name ends with it (default "__avx2"); --act NAME
 * times FusedGemm with that `activation` (runtime/ir/fusedgemm.h) instead of Gemm.
 */
#define _POSIX_C_SOURCE 200809L
#include "kernels/test_ref_util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct bshape {
    const char *model;
    int64_t m, k, n;
} bshape;

static const bshape default_shapes[] = {
    {"convnext s1 fc1", 3136, 96, 384},  {"convnext s1 fc2", 3136, 384, 96},
    {"convnext s2 fc1", 784, 192, 768},  {"convnext s2 fc2", 784, 768, 192},
    {"convnext s3 fc1", 196, 384, 1536}, {"convnext s3 fc2", 196, 1536, 384},
    {"convnext s4 fc1", 49, 768, 3072},  {"convnext s4 fc2", 49, 3072, 768},
    {"vit_b_32 qkv", 50, 768, 2304},     {"vit_b_32 out", 50, 768, 768},
    {"vit_b_32 fc1", 50, 768, 3072},     {"vit_b_32 fc2", 50, 3072, 768},
    {"transf d128 qkv", 64, 128, 384},   {"transf d128 out", 64, 128, 128},
    {"transf d128 fc1", 64, 128, 512},   {"transf d128 fc2", 64, 512, 128},
    {"square 512", 512, 512, 512},
};

/* Wall time, or with --cpu-time (one thread only) this thread's CPU time: on a shared machine
 * the time slices other processes take then do not count. */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(bench_clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*run_fn)(void *ctx);

/* --cold: before each timed call, untimed, a pass over a buffer larger than the last-level
 * cache evicts B (in a model each weight matrix comes from DRAM once per run). */
static float *cold_buf;
static size_t cold_floats;
static volatile float cold_sink;

static void evict_caches(void)
{
    float acc = 0.0f;
    for (size_t i = 0; i < cold_floats; i += 16) {
        cold_buf[i] += 1.0f;
        acc += cold_buf[i];
    }
    cold_sink = acc;
}

/* Runs fn for about `budget` seconds after 3 warm-up calls; best and median seconds a call. */
static void time_it(run_fn fn, void *ctx, double budget, double *best, double *median)
{
    enum { MAX_RUNS = 4096 };
    static double t[MAX_RUNS];
    for (int i = 0; i < 3; i++) {
        fn(ctx);
    }
    int n = 0;
    double start = now_s();
    double spent = 0.0;
    while (n < MAX_RUNS && (n < 5 || spent < budget)) {
        if (cold_buf != NULL) {
            evict_caches();
        }
        double t0 = now_s();
        fn(ctx);
        t[n++] = now_s() - t0;
        spent = cold_buf != NULL ? spent + t[n - 1] : now_s() - start;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    *best = t[0];
    *median = t[n / 2];
}

typedef struct ember_job {
    const em_kernel *k;
    void *state;
    em_tensor in[3], out[1];
    em_kctx ctx;
} ember_job;

static void ember_call(void *p)
{
    ember_job *j = p;
    j->k->run(j->state, j->in, j->out, &j->ctx);
}

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef struct blas_job {
    sgemm_fn sgemm;
    int m, n, k;
    const float *a, *b;
    float *y;
} blas_job;

static void blas_call(void *p)
{
    blas_job *j = p;
    /* CblasRowMajor 101, CblasNoTrans 111 */
    j->sgemm(101, 111, 111, j->m, j->n, j->k, 1.0f, j->a, j->k, j->b, j->n, 0.0f, j->y, j->n);
}

static void report(const bshape *s, const char *who, double best, double median)
{
    double flop = 2.0 * (double)s->m * (double)s->n * (double)s->k;
    printf("%-16s %5lld %5lld %5lld  %-26s %7.1f %7.1f %9.4f\n", s->model, (long long)s->m,
           (long long)s->k, (long long)s->n, who, flop / best * 1e-9, flop / median * 1e-9,
           median * 1e3);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int threads = 1, want_blas = 0, bias = 1;
    const char *suffix = "__avx2", *act = NULL;
    double budget = 0.4;
    bshape shapes[64];
    size_t n_shapes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc) {
            suffix = argv[++i];
        } else if (strcmp(argv[i], "--act") == 0 && i + 1 < argc) {
            act = argv[++i];
        } else if (strcmp(argv[i], "--cpu-time") == 0) {
            bench_clock = CLOCK_THREAD_CPUTIME_ID;
        } else if (strcmp(argv[i], "--no-bias") == 0) {
            bias = 0;
        } else if (strcmp(argv[i], "--cold") == 0) {
            cold_floats = (size_t)64 << 20; /* 256 MiB */
        } else if (strcmp(argv[i], "--openblas") == 0) {
            want_blas = 1;
        } else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
            budget = atof(argv[++i]);
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && n_shapes < 64) {
            long long m, k, n;
            if (sscanf(argv[++i], "%lld,%lld,%lld", &m, &k, &n) != 3) {
                fprintf(stderr, "bad --shape %s (M,K,N)\n", argv[i]);
                return 2;
            }
            shapes[n_shapes++] = (bshape){"custom", m, k, n};
        } else {
            fprintf(stderr,
                    "usage: %s [--threads N] [--kernel SUFFIX] [--act NAME] [--openblas] "
                    "[--no-bias] [--cpu-time] [--cold] [--shape M,K,N]... [--time S]\n",
                    argv[0]);
            return 2;
        }
    }
    if (cold_floats > 0 && (cold_buf = calloc(cold_floats, sizeof(float))) == NULL) {
        fprintf(stderr, "no memory for --cold\n");
        return 1;
    }
    if (n_shapes == 0) {
        n_shapes = sizeof default_shapes / sizeof default_shapes[0];
        memcpy(shapes, default_shapes, sizeof default_shapes);
    }
    ember_status *st = NULL;
    const em_op gemm_op = act != NULL ? EM_OP_FUSEDGEMM : EM_OP_GEMM;
    em_registry_init();
    const em_kernel *ks[16];
    size_t nk = 0, ls = strlen(suffix);
    for (size_t i = 0; i < em_registry_count() && nk < 16; i++) {
        const em_kernel *k = em_registry_at(i);
        size_t ln = strlen(k->name);
        if (k->op == gemm_op && k->dtype == EMBER_DTYPE_F32 && k->device == EM_DEV_CPU &&
            ln >= ls && strcmp(k->name + ln - ls, suffix) == 0 &&
            (k->isa & ~em_cpu_features()) == 0) {
            ks[nk++] = k;
        }
    }
    sgemm_fn sgemm = NULL;
    if (want_blas) {
        void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        void (*set_threads)(int) = NULL;
        if (h != NULL) {
            *(void **)&sgemm = dlsym(h, "cblas_sgemm");
            *(void **)&set_threads = dlsym(h, "openblas_set_num_threads");
        }
        if (sgemm == NULL || set_threads == NULL) {
            fprintf(stderr, "no libopenblas.so.0 with cblas_sgemm\n");
            return 1;
        }
        set_threads(threads);
    }
    if (bench_clock != CLOCK_MONOTONIC && threads != 1) {
        fprintf(stderr, "--cpu-time measures one thread: use --threads 1\n");
        return 2;
    }
    em_threadpool *pool = NULL;
    if (threads > 1 && (st = em_threadpool_create(NULL, threads, &pool)) != NULL) {
        fprintf(stderr, "pool: %s\n", ember_status_message(st));
        return 1;
    }
    printf("%-16s %5s %5s %5s  %-26s %7s %7s %9s\n", "shape", "M", "K", "N", "kernel", "best",
           "median", "ms");
    for (size_t si = 0; si < n_shapes; si++) {
        const bshape *s = &shapes[si];
        int64_t da[2] = {s->m, s->k}, db[2] = {s->k, s->n}, dc[1] = {s->n}, dy[2] = {s->m, s->n};
        float *a = malloc(sizeof(float) * (size_t)(s->m * s->k));
        float *b = malloc(sizeof(float) * (size_t)(s->k * s->n));
        float *c = malloc(sizeof(float) * (size_t)s->n);
        float *y = malloc(sizeof(float) * (size_t)(s->m * s->n));
        test_rng r = {1};
        test_rng_fill(&r, a, (size_t)(s->m * s->k), -1.0f, 1.0f);
        test_rng_fill(&r, b, (size_t)(s->k * s->n), -1.0f, 1.0f);
        test_rng_fill(&r, c, (size_t)s->n, -1.0f, 1.0f);
        for (size_t ki = 0; ki < nk; ki++) {
            t_node node;
            t_node_init(&node, gemm_op, "bench");
            if (act != NULL) {
                t_set_string(&node, "activation", act);
            }
            ember_job j = {.k = ks[ki]};
            t_tensor(&j.in[0], EMBER_DTYPE_F32, 2, da, NULL);
            t_tensor(&j.in[1], EMBER_DTYPE_F32, 2, db, b);
            t_tensor(&j.in[2], EMBER_DTYPE_F32, 1, dc, c);
            if (!bias) {
                t_absent(&j.in[2]);
            }
            t_tensor(&j.out[0], EMBER_DTYPE_F32, 2, dy, NULL);
            em_kinfo ki_ = {&node.n, 3, 1, j.in, j.out, NULL, em_cpu_features(), threads, NULL};
            size_t scratch_bytes = 0;
            st = ks[ki]->prepare(&ki_, &j.state, &scratch_bytes);
            if (st != NULL) {
                printf("%-16s %s: %s\n", s->model, ks[ki]->name, ember_status_message(st));
                ember_status_destroy(st);
                continue;
            }
            void *scratch = scratch_bytes > 0 ? em_aligned_alloc(NULL, scratch_bytes) : NULL;
            j.in[0].data = a;
            j.out[0].data = y;
            j.ctx = (em_kctx){pool, scratch};
            double best, median;
            time_it(ember_call, &j, budget, &best, &median);
            report(s, ks[ki]->name, best, median);
            em_aligned_free(NULL, scratch);
            ks[ki]->release(NULL, j.state);
        }
        if (sgemm != NULL) {
            blas_job bj = {sgemm, (int)s->m, (int)s->n, (int)s->k, a, b, y};
            double best, median;
            time_it(blas_call, &bj, budget, &best, &median);
            report(s, "openblas cblas_sgemm", best, median);
        }
        free(a);
        free(b);
        free(c);
        free(y);
    }
    em_threadpool_destroy(pool);
    free(cold_buf);
    return 0;
}
