/* SPDX-License-Identifier: Apache-2.0 */
/*
 * int8 kernel throughput probe (not part of ember, not a test): every registered QLinearConv /
 * QLinearMatMul kernel whose name ends with one of the given suffixes, on resnet18's conv
 * shapes (u8 x, per-channel s8 w, as ORT's quantize_static makes them), a depthwise and a
 * grouped conv, and a few MatMul shapes, prepared as the planner does (weights constant) and
 * run on 1 thread. Prints one line per shape and kernel:
 *   shape  kernel  GMAC/s (best)  ms (median)
 * with this thread's CPU time (a shared machine's time slices do not count). Kernels whose ISA
 * this CPU lacks are reported as skipped. Built by `cmake --build build --target
 * ember_qconv_bench` (tests/CMakeLists.txt, not part of `all`). Usage:
 *   build/tests/ember_qconv_bench [--time S] [--w7] [SUFFIX...]
 * (--w7: weights in [-64, 63], as ORT's reduce_range makes them, so u8__avx2 takes its
 * vpmaddubsw path; without it, this bench's full-range weights and x take the int16 one)
 * (default suffixes: u8__avx2 qg__avx2 qg__avxvnni qg__avx512vnni).
 */
#define _POSIX_C_SOURCE 200809L
#include "kernels/test_ref_util.h"

#include "core/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct qshape {
    const char *name;
    int64_t c, h, m, k, stride, pad, group; /* conv; for a matmul (k == 0): m, c = K, h = N */
} qshape;

static const qshape shapes[] = {
    {"r18 conv1 7x7 s2", 3, 224, 64, 7, 2, 3, 1},  {"r18 l1 3x3", 64, 56, 64, 3, 1, 1, 1},
    {"r18 l2.0 3x3 s2", 64, 56, 128, 3, 2, 1, 1},  {"r18 l2 3x3", 128, 28, 128, 3, 1, 1, 1},
    {"r18 l2 ds 1x1 s2", 64, 56, 128, 1, 2, 0, 1}, {"r18 l3.0 3x3 s2", 128, 28, 256, 3, 2, 1, 1},
    {"r18 l3 3x3", 256, 14, 256, 3, 1, 1, 1},      {"r18 l4.0 3x3 s2", 256, 14, 512, 3, 2, 1, 1},
    {"r18 l4 3x3", 512, 7, 512, 3, 1, 1, 1},       {"r50 1x1 256>64", 256, 56, 64, 1, 1, 0, 1},
    {"r50 1x1 512>128", 512, 28, 128, 1, 1, 0, 1}, {"mbv2 dw 3x3", 144, 56, 144, 3, 1, 1, 144},
    {"group8 3x3", 256, 28, 256, 3, 1, 1, 8},      {"mm 128x768x768", 768, 768, 128, 0, 0, 0, 0},
    {"mm 1x512x1000", 512, 1000, 1, 0, 0, 0, 0},
};

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const em_kernel *find(em_op op, const char *suffix)
{
    size_t ls = strlen(suffix);
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        size_t ln = strlen(k->name);
        if (k->op == op && ln >= ls && strcmp(k->name + ln - ls, suffix) == 0) {
            return k;
        }
    }
    return NULL;
}

static void bench_one(const qshape *s, const em_kernel *k, double budget, bool w7)
{
    const bool conv = s->k > 0;
    t_node node;
    t_node_init(&node, conv ? EM_OP_QLINEARCONV : EM_OP_QLINEARMATMUL, s->name);
    int64_t oh = conv ? (s->h + 2 * s->pad - s->k) / s->stride + 1 : 0;
    int64_t xd[4] = {1, s->c, s->h, s->h}, wd[4] = {s->m, s->c / (conv ? s->group : 1), s->k, s->k};
    int64_t yd[4] = {1, s->m, oh, oh}, md = s->m, ad[2] = {s->m, s->c}, bd[2] = {s->c, s->h};
    int64_t myd[2] = {s->m, s->h}, nd = s->h;
    if (conv) {
        int64_t ks[2] = {s->k, s->k}, st[2] = {s->stride, s->stride};
        int64_t pads[4] = {s->pad, s->pad, s->pad, s->pad};
        t_set_ints(&node, "kernel_shape", ks, 2);
        t_set_ints(&node, "strides", st, 2);
        t_set_ints(&node, "pads", pads, 4);
        if (s->group > 1) {
            t_set_int(&node, "group", s->group);
        }
    }
    int64_t nx = conv ? t_numel(xd, 4) : t_numel(ad, 2);
    int64_t nw = conv ? t_numel(wd, 4) : t_numel(bd, 2);
    int64_t ny = conv ? t_numel(yd, 4) : t_numel(myd, 2);
    double macs = conv ? (double)ny * (double)(wd[1] * s->k * s->k)
                       : (double)s->m * (double)s->c * (double)s->h;
    uint8_t *x = malloc((size_t)nx), *w = malloc((size_t)nw), *y = malloc((size_t)ny);
    float xs = 0.02f, ys = 0.05f, *ws = malloc(sizeof(float) * 1024);
    int32_t *bias = malloc(sizeof(int32_t) * 1024);
    uint8_t xz = 128, yz = 0, wz[1024] = {0};
    for (int64_t i = 0; i < nx; i++) {
        x[i] = (uint8_t)(i * 37 + 11);
    }
    for (int64_t i = 0; i < nw; i++) {
        w[i] = (uint8_t)(i * 53 + 7);
        if (w7) { /* 7-bit weights [-64, 63]: u8__avx2's vpmaddubsw path for any x */
            w[i] = (uint8_t)((int8_t)w[i] >> 1);
        }
    }
    for (int i = 0; i < 1024; i++) {
        ws[i] = 1e-3f * (float)(1 + i % 7);
        bias[i] = i * 13 - 5000;
    }
    em_tensor in[9], pin[9], out[1];
    int n_in = conv ? 9 : 8;
    t_tensor(&in[0], EMBER_DTYPE_U8, conv ? 4 : 2, conv ? xd : ad, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &xs);
    t_tensor(&in[2], EMBER_DTYPE_U8, 0, NULL, &xz);
    t_tensor(&in[3], EMBER_DTYPE_I8, conv ? 4 : 2, conv ? wd : bd, w);
    t_tensor(&in[4], EMBER_DTYPE_F32, 1, conv ? &md : &nd, ws);
    t_tensor(&in[5], EMBER_DTYPE_I8, 1, conv ? &md : &nd, wz);
    t_tensor(&in[6], EMBER_DTYPE_F32, 0, NULL, &ys);
    t_tensor(&in[7], EMBER_DTYPE_U8, 0, NULL, &yz);
    t_tensor(&in[8], EMBER_DTYPE_I32, 1, &md, bias);
    t_tensor(&out[0], EMBER_DTYPE_U8, conv ? 4 : 2, conv ? yd : myd, y);
    memcpy(pin, in, sizeof in);
    pin[0].data = NULL; /* the activations are not constant */
    em_tensor pout = out[0];
    pout.data = NULL;
    em_kinfo ki = {&node.n, n_in, 1, pin, &pout, test_allocator(), em_cpu_features(), 1, NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch_bytes);
    if (st != NULL) {
        printf("%-18s %-32s declined: %s\n", s->name, k->name, ember_status_message(st));
        ember_status_destroy(st);
    } else {
        void *scratch =
            scratch_bytes > 0 ? em_aligned_alloc(test_allocator(), scratch_bytes) : NULL;
        em_kctx ctx = {NULL, scratch};
        enum { MAX_RUNS = 2048 };
        static double t[MAX_RUNS];
        k->run(state, in, out, &ctx);
        int n = 0;
        double start = cpu_now();
        while (n < MAX_RUNS && (n < 5 || cpu_now() - start < budget)) {
            double t0 = cpu_now();
            k->run(state, in, out, &ctx);
            t[n++] = cpu_now() - t0;
        }
        qsort(t, (size_t)n, sizeof t[0], cmp_double);
        printf("%-18s %-32s %7.1f GMAC/s %9.3f ms\n", s->name, k->name, macs / t[0] * 1e-9,
               t[n / 2] * 1e3);
        em_aligned_free(test_allocator(), scratch);
        k->release(test_allocator(), state);
    }
    fflush(stdout);
    free(x);
    free(w);
    free(y);
    free(ws);
    free(bias);
}

int main(int argc, char **argv)
{
    const char *defaults[] = {"u8__avx2", "qg__avx2", "qg__avxvnni", "qg__avx512vnni"};
    const char *suffixes[16];
    int n_suf = 0;
    double budget = 0.3;
    bool w7 = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--w7") == 0) {
            w7 = true;
        } else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
            budget = atof(argv[++i]);
        } else if (n_suf < 16) {
            suffixes[n_suf++] = argv[i];
        }
    }
    if (n_suf == 0) {
        memcpy(suffixes, defaults, sizeof defaults);
        n_suf = 4;
    }
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int j = 0; j < n_suf; j++) {
            const em_kernel *k =
                find(shapes[i].k > 0 ? EM_OP_QLINEARCONV : EM_OP_QLINEARMATMUL, suffixes[j]);
            if (k == NULL) {
                continue;
            }
            if ((k->isa & ~em_cpu_features()) != 0) {
                printf("%-18s %-32s skipped: this CPU lacks its ISA\n", shapes[i].name, k->name);
                continue;
            }
            bench_one(&shapes[i], k, budget, w7);
        }
    }
    return 0;
}
