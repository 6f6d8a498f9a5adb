/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calibration collector cost probe (not part of ember, not a test): one em_calib with the
 * default bins fed 32 batches of 2^20 normal values (each batch's spread grown by GROW, so the
 * histograms grow as activations' ranges do), then each method's range. Prints the add cost
 * per value and each method's time, in this thread's CPU time (a shared machine's time slices
 * do not count). Built by `cmake --build build --target ember_calib_bench`
 * (tests/CMakeLists.txt, not part of `all`). Usage: build/tests/ember_calib_bench [GROW]
 * (default 0; 0.05 grows the range 2.5x over the batches).
 */
#define _POSIX_C_SOURCE 200809L
#include "quantization/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(ember_status *st)
{
    fprintf(stderr, "ember_calib_bench: %s\n", ember_status_message(st));
    ember_status_destroy(st);
    return 1;
}

int main(int argc, char **argv)
{
    double grow = argc > 1 ? atof(argv[1]) : 0;
    enum { BATCHES = 32, N = 1 << 20 };
    float *x = malloc(sizeof(float) * N);
    em_calib *c = NULL;
    ember_status *st = em_calib_new(0, &c);
    if (x == NULL || st != NULL) {
        return st != NULL ? fail(st) : 1;
    }
    uint32_t s = 1;
    double t_add = 0;
    for (int b = 0; b < BATCHES; b++) {
        for (int i = 0; i < N; i++) {
            s = s * 1664525u + 1013904223u;
            double u = (s >> 8) / 16777216.0 + 1e-9;
            s = s * 1664525u + 1013904223u;
            double v = (s >> 8) / 16777216.0;
            x[i] = (float)((1 + grow * b) * sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
        }
        double t0 = cpu_now();
        if ((st = em_calib_add(c, x, N)) != NULL) {
            return fail(st);
        }
        t_add += cpu_now() - t0;
    }
    printf("add: %.2f ns/value (%d batches of %d values, growth %g per batch)\n",
           t_add * 1e9 / ((double)BATCHES * N), BATCHES, N, grow);
    for (int m = 0; m < EM_CALIB_METHOD_COUNT; m++) {
        float lo, hi;
        double t0 = cpu_now();
        if ((st = em_calib_range(c, (em_calib_method)m, NULL, &lo, &hi)) != NULL) {
            return fail(st);
        }
        printf("%-10s %9.3f ms  [%g, %g]\n", em_calib_method_name((em_calib_method)m),
               (cpu_now() - t0) * 1e3, lo, hi);
    }
    em_calib_free(c);
    free(x);
    return 0;
}
