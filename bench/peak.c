/* SPDX-License-Identifier: Apache-2.0 */
/* Single-core clock and FMA-throughput probe for bench/run.py (not part of ember).
 *
 * Prints one JSON object:
 *   ghz         core clock: a chain of dependent 1-cycle integer adds, timed in thread CPU time
 *   ymm_gflops  fp32 FMA throughput with 256-bit vectors (12 independent accumulators)
 *   zmm_gflops  the same with 512-bit vectors (only when built with AVX-512 and argv[1] is "512")
 * flops/cycle = gflops / ghz tells how many FMA lanes retire per cycle: 32 for one 512-bit FMA
 * per cycle (e.g. AMD Zen 4, whose two 256-bit FMA pipes split a 512-bit op), 64 for two
 * 512-bit FMA units (Intel server cores with 2 FMA ports, AMD Zen 5).
 * Built by run.py: cc -O2 -mavx2 -mfma [-mavx512f] peak.c -o peak
 */
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define ADD10 "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t" \
              "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t"

static double clock_ghz(void) {
    const long n = 20000000; /* x 100 adds = 2e9 cycles at most ~0.6 s */
    double best = 0;
    for (int r = 0; r < 3; r++) {
        unsigned long x = 0;
        double t0 = cpu_now();
        for (long i = 0; i < n / 10; i++)
            __asm__ volatile(ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 : "+r"(x));
        double t = cpu_now() - t0;
        double g = (double)n * 10 / t / 1e9;
        if (g > best) best = g;
    }
    return best;
}

#define ACC(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

static double ymm_gflops(void) {
    __m256 b = _mm256_set1_ps(1.0000001f), c = _mm256_set1_ps(1e-7f);
#define DY(i) __m256 a##i = _mm256_set1_ps((float)i);
    ACC(DY)
    const long n = 20000000;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = cpu_now();
        for (long i = 0; i < n; i++) {
#define SY(i) a##i = _mm256_fmadd_ps(a##i, b, c);
            ACC(SY)
            __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5),
                             "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
        }
        double t = cpu_now() - t0;
        double g = (double)n * 12 * 8 * 2 / t / 1e9;
        if (g > best) best = g;
    }
    __m256 s = _mm256_setzero_ps();
#define UY(i) s = _mm256_add_ps(s, a##i);
    ACC(UY)
    float o[8];
    _mm256_storeu_ps(o, s);
    return o[0] == 12345.f ? 0 : best; /* keeps the results alive */
}

#ifdef __AVX512F__
static double zmm_gflops(void) {
    __m512 b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-7f);
#define DZ(i) __m512 a##i = _mm512_set1_ps((float)i);
    ACC(DZ)
    const long n = 20000000;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = cpu_now();
        for (long i = 0; i < n; i++) {
#define SZ(i) a##i = _mm512_fmadd_ps(a##i, b, c);
            ACC(SZ)
            __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                             "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));
        }
        double t = cpu_now() - t0;
        double g = (double)n * 12 * 16 * 2 / t / 1e9;
        if (g > best) best = g;
    }
    __m512 s = _mm512_setzero_ps();
#define UZ(i) s = _mm512_add_ps(s, a##i);
    ACC(UZ)
    float o[16];
    _mm512_storeu_ps(o, s);
    return o[0] == 12345.f ? 0 : best;
}
#endif

int main(int argc, char **argv) {
    double ghz = clock_ghz();
    double y = ymm_gflops();
    double z = 0;
#ifdef __AVX512F__
    if (argc > 1 && strcmp(argv[1], "512") == 0) z = zmm_gflops();
#else
    (void)argc;
    (void)argv;
#endif
    printf("{\"ghz\": %.3f, \"ymm_gflops\": %.2f, \"zmm_gflops\": %.2f}\n", ghz, y, z);
    return 0;
}
