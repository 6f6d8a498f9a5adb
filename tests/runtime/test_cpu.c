/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/cpu.c: feature detection is stable across calls and threads, closed downwards
 * (AVX-512F implies AVX2, ...), and on x86-64 agrees with the compiler's own detection
 * (__builtin_cpu_supports) and with the kernel's view (/proc/cpuinfo flags), which both
 * include the OS-support (XCR0) checks. Also: ISA cap names and the list formatter.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan/kernel.h"

enum { N_THREADS = 8, N_CALLS = 1000 };

static void *features_thread(void *arg)
{
    uint64_t *out = arg;
    uint64_t first = em_cpu_features();
    for (int i = 0; i < N_CALLS; i++) {
        if (em_cpu_features() != first) {
            first = ~UINT64_C(0);
            break;
        }
    }
    *out = first;
    return NULL;
}

/* Runs first, so the threads race on the very first detection. */
static void test_features_stable_across_threads(void **state)
{
    (void)state;
    pthread_t th[N_THREADS];
    uint64_t got[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, features_thread, &got[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
    }
    uint64_t f = em_cpu_features();
    for (int i = 0; i < N_THREADS; i++) {
        assert_true(got[i] == f);
    }
    assert_true(em_cpu_features() == f);
    assert_true((f >> 63) == 0);
}

/* Each feature implies the ones below it. */
static void test_features_closed_downwards(void **state)
{
    (void)state;
    static const struct {
        uint64_t bit, implies;
    } rules[] = {
        {EM_ISA_AVX2, EM_ISA_AVX},
        {EM_ISA_FMA, EM_ISA_AVX},
        {EM_ISA_F16C, EM_ISA_AVX},
        {EM_ISA_AVXVNNI, EM_ISA_AVX2 | EM_ISA_AVX},
        {EM_ISA_AVX512F, EM_ISA_AVX2_SET & ~(uint64_t)EM_ISA_F16C},
        {EM_ISA_AVX512BW, EM_ISA_AVX512F},
        {EM_ISA_AVX512DQ, EM_ISA_AVX512F},
        {EM_ISA_AVX512VL, EM_ISA_AVX512F},
        {EM_ISA_AVX512VNNI, EM_ISA_AVX512F},
        {EM_ISA_AVX512BF16, EM_ISA_AVX512F},
        {EM_ISA_AVX512FP16, EM_ISA_AVX512F},
        {EM_ISA_AMX, EM_ISA_AVX2 | EM_ISA_FMA},
        {EM_ISA_AMX_BF16, EM_ISA_AVX2 | EM_ISA_FMA},
        {EM_ISA_VPCLMUL, EM_ISA_AVX2 | EM_ISA_PCLMUL},
        {EM_ISA_NEON_DOTPROD, EM_ISA_NEON},
        {EM_ISA_NEON_FP16, EM_ISA_NEON},
        {EM_ISA_NEON_I8MM, EM_ISA_NEON},
        {EM_ISA_SVE, EM_ISA_NEON},
    };
    uint64_t f = em_cpu_features();
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if ((f & rules[i].bit) != 0 && (f & rules[i].implies) != rules[i].implies) {
            print_error("features %#llx: bit %#llx without %#llx\n", (unsigned long long)f,
                        (unsigned long long)rules[i].bit, (unsigned long long)rules[i].implies);
            fail();
        }
    }
#if !defined(__x86_64__)
    assert_int_equal(f & 0xffff, 0);
#endif
#if !defined(__aarch64__)
    assert_int_equal(f & (EM_ISA_NEON | EM_ISA_NEON_DOTPROD | EM_ISA_NEON_FP16 |
                          EM_ISA_NEON_I8MM | EM_ISA_SVE),
                     0);
#endif
#if defined(__aarch64__) && defined(__linux__)
    /* Advanced SIMD is mandatory in ARMv8-A Linux's ABI: every aarch64 CPU reports it. */
    assert_true((f & EM_ISA_NEON) != 0);
#endif
}

#if defined(__x86_64__)
static uint64_t xcr0_now(void)
{
    uint32_t eax, edx;
    __asm__ __volatile__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (uint64_t)edx << 32 | eax;
}
#endif

/* Agrees with the compiler runtime's detection, which also checks XCR0. */
static void test_x86_matches_builtin(void **state)
{
    (void)state;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    uint64_t f = em_cpu_features();
    assert_int_equal(!!(f & EM_ISA_SSE42), !!__builtin_cpu_supports("sse4.2"));
    assert_int_equal(!!(f & EM_ISA_AVX), !!__builtin_cpu_supports("avx"));
    assert_int_equal(!!(f & EM_ISA_AVX2), !!__builtin_cpu_supports("avx2"));
    assert_int_equal(!!(f & EM_ISA_FMA), !!__builtin_cpu_supports("fma"));
    assert_int_equal(!!(f & EM_ISA_AVX512F), !!__builtin_cpu_supports("avx512f"));
    assert_int_equal(!!(f & EM_ISA_AVX512BW), !!__builtin_cpu_supports("avx512bw"));
    assert_int_equal(!!(f & EM_ISA_AVX512DQ), !!__builtin_cpu_supports("avx512dq"));
    assert_int_equal(!!(f & EM_ISA_AVX512VL), !!__builtin_cpu_supports("avx512vl"));
    assert_int_equal(!!(f & EM_ISA_AVX512VNNI), !!__builtin_cpu_supports("avx512vnni"));
    assert_int_equal(!!(f & EM_ISA_PCLMUL), !!__builtin_cpu_supports("pclmul"));
    if (f & EM_ISA_AVX2) { /* ember counts VPCLMULQDQ only with AVX2 */
        assert_int_equal(!!(f & EM_ISA_VPCLMUL), !!__builtin_cpu_supports("vpclmulqdq"));
    }
    if (f & EM_ISA_AVX) {
        assert_int_equal(xcr0_now() & 0x6, 0x6);
    }
    if (f & EM_ISA_AVX512F) {
        assert_int_equal(xcr0_now() & 0xe6, 0xe6);
    }
#else
    skip();
#endif
}

/* Agrees with the kernel's flags, which it clears for state the OS does not save. */
static void test_x86_matches_proc_cpuinfo(void **state)
{
    (void)state;
#if defined(__x86_64__) && defined(__linux__)
    static const struct {
        uint64_t bit;
        const char *flag;
    } flags[] = {
        {EM_ISA_SSE42, "sse4_2"},
        {EM_ISA_AVX, "avx"},
        {EM_ISA_AVX2, "avx2"},
        {EM_ISA_FMA, "fma"},
        {EM_ISA_F16C, "f16c"},
        {EM_ISA_AVX512F, "avx512f"},
        {EM_ISA_AVX512BW, "avx512bw"},
        {EM_ISA_AVX512DQ, "avx512dq"},
        {EM_ISA_AVX512VL, "avx512vl"},
        {EM_ISA_AVX512VNNI, "avx512_vnni"},
        {EM_ISA_AVX512BF16, "avx512_bf16"},
        {EM_ISA_AVX512FP16, "avx512_fp16"},
        {EM_ISA_AVXVNNI, "avx_vnni"},
        {EM_ISA_PCLMUL, "pclmulqdq"},
    };
    static char line[8192];
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (fp == NULL) {
        skip();
    }
    bool found = false;
    while (fgets(line, sizeof line, fp) != NULL) {
        if (strncmp(line, "flags", 5) == 0) {
            found = true;
            break;
        }
    }
    fclose(fp);
    if (!found) {
        skip();
    }
    uint64_t f = em_cpu_features();
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        char word[32];
        snprintf(word, sizeof word, " %s", flags[i].flag);
        const char *p = strstr(line, word);
        size_t n = strlen(word);
        bool has = p != NULL && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0');
        if (has != ((f & flags[i].bit) != 0)) {
            print_error("%s: /proc/cpuinfo %d, em_cpu_features %d\n", flags[i].flag, has,
                        (f & flags[i].bit) != 0);
            fail();
        }
    }
#else
    skip();
#endif
}

static void test_isa_cap_parse(void **state)
{
    (void)state;
    uint64_t m = 12345;
    assert_true(em_isa_cap_parse("scalar", &m));
    assert_true(m == 0);
    assert_true(em_isa_cap_parse("avx2", &m));
    assert_true(m == (EM_ISA_SSE42 | EM_ISA_AVX2_SET | EM_ISA_PCLMUL | EM_ISA_VPCLMUL));
    assert_true(em_isa_cap_parse("avx512", &m));
    const uint64_t avx512 = EM_ISA_SSE42 | EM_ISA_AVX512_SET | EM_ISA_AVX512VNNI |
                            EM_ISA_AVX512BF16 | EM_ISA_AVX512FP16 | EM_ISA_PCLMUL |
                            EM_ISA_VPCLMUL;
    assert_true((m & avx512) == avx512);
    assert_true((m & EM_ISA_AMX) == 0);
    assert_true((m & EM_ISA_NEON) == 0);
    assert_true(em_isa_cap_parse("neon", &m)); /* Advanced SIMD only: no x86 bit, no extension */
    assert_true(m == EM_ISA_NEON);
    assert_true(em_isa_cap_parse("native", &m));
    assert_true(m == UINT64_MAX);

    static const struct {
        const char *name;
        const char *same_as;
    } mixed[] = {{"SCALAR", "scalar"},
                 {"Avx2", "avx2"},
                 {"AVX512", "avx512"},
                 {"aVx512", "avx512"},
                 {"NEON", "neon"},
                 {"Native", "native"}};
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
        uint64_t a = 1, b = 2;
        assert_true(em_isa_cap_parse(mixed[i].name, &a));
        assert_true(em_isa_cap_parse(mixed[i].same_as, &b));
        assert_true(a == b);
    }

    static const char *unknown[] = {"",    "avx",      "avx3",    "avx2 ", " avx2",      "avx512f",
                                    "sse", "native\n", "scalarx", "neonx", "AVX2,AVX512"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        m = 777;
        assert_false(em_isa_cap_parse(unknown[i], &m));
        assert_true(m == 777);
    }
    assert_false(em_isa_cap_parse(NULL, &m));
    assert_false(em_isa_cap_parse("avx2", NULL));
}

static void test_isa_list(void **state)
{
    (void)state;
    char buf[256];
    assert_string_equal(em_isa_list(0, buf, sizeof buf), "scalar");
    assert_ptr_equal(em_isa_list(0, buf, sizeof buf), buf);
    assert_string_equal(em_isa_list(EM_ISA_SSE42 | EM_ISA_AVX2_SET, buf, sizeof buf),
                        "sse4.2,avx,avx2,fma,f16c");
    assert_string_equal(
        em_isa_list(EM_ISA_SSE42 | EM_ISA_AVX512_SET | EM_ISA_AVX512VNNI, buf, sizeof buf),
        "sse4.2,avx,avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni");
    assert_string_equal(
        em_isa_list(EM_ISA_AVX512BF16 | EM_ISA_AVX512FP16 | EM_ISA_AVXVNNI | EM_ISA_AMX, buf,
                    sizeof buf),
        "avx512bf16,avx512fp16,avxvnni,amx-int8");
    assert_string_equal(em_isa_list(EM_ISA_AMX | EM_ISA_AMX_BF16, buf, sizeof buf),
                        "amx-int8,amx-bf16");
    assert_string_equal(em_isa_list(EM_ISA_PCLMUL | EM_ISA_VPCLMUL, buf, sizeof buf),
                        "pclmulqdq,vpclmulqdq");
    assert_string_equal(
        em_isa_list(EM_ISA_NEON | EM_ISA_NEON_DOTPROD | EM_ISA_NEON_FP16, buf, sizeof buf),
        "neon,neon_dotprod,neon_fp16");
    assert_string_equal(em_isa_list(EM_ISA_NEON | EM_ISA_NEON_I8MM | EM_ISA_SVE, buf, sizeof buf),
                        "neon,i8mm,sve");
    /* Bits without a name are not printed. */
    assert_string_equal(em_isa_list(UINT64_C(1) << 40, buf, sizeof buf), "scalar");
    assert_string_equal(em_isa_list(EM_ISA_AVX | (UINT64_C(1) << 40), buf, sizeof buf), "avx");

    /* The detected set prints, and every name in it is one the formatter knows. */
    em_isa_list(em_cpu_features(), buf, sizeof buf);
    assert_true(strlen(buf) > 0);
}

/* A short buffer holds only whole names, is always terminated, and is never overrun. */
static void test_isa_list_small_buffer(void **state)
{
    (void)state;
    const uint64_t f = EM_ISA_SSE42 | EM_ISA_AVX2_SET; /* "sse4.2,avx,avx2,fma,f16c" */
    static const struct {
        size_t cap;
        const char *want;
    } cases[] = {
        {1, ""},
        {6, ""},
        {7, "sse4.2"},
        {10, "sse4.2"},
        {11, "sse4.2,avx"},
        {25, "sse4.2,avx,avx2,fma,f16c"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        memset(buf, 'Z', sizeof buf);
        assert_ptr_equal(em_isa_list(f, buf, cases[i].cap), buf);
        assert_string_equal(buf, cases[i].want);
        for (size_t k = cases[i].cap; k < sizeof buf; k++) {
            assert_int_equal(buf[k], 'Z');
        }
    }
    char buf[8];
    memset(buf, 'Z', sizeof buf);
    em_isa_list(f, buf, 0);
    assert_int_equal(buf[0], 'Z');
    assert_string_equal(em_isa_list(0, buf, 7), "scalar");
    memset(buf, 'Z', sizeof buf);
    assert_string_equal(em_isa_list(0, buf, 6), "");
    assert_int_equal(buf[6], 'Z');
    assert_null(em_isa_list(f, NULL, 10));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_features_stable_across_threads),
        cmocka_unit_test(test_features_closed_downwards),
        cmocka_unit_test(test_x86_matches_builtin),
        cmocka_unit_test(test_x86_matches_proc_cpuinfo),
        cmocka_unit_test(test_isa_cap_parse),
        cmocka_unit_test(test_isa_list),
        cmocka_unit_test(test_isa_list_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
