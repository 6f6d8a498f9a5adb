/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/core/crc32.c: every implementation this CPU can run (the portable slice-by-8, the
 * PCLMULQDQ and VPCLMULQDQ folds) agrees with a bitwise CRC-32 on the standard check values,
 * on random data of every length 0..300 at every offset 0..15 (odd alignments), on lengths
 * around the folding thresholds and block sizes up to a few KB, on a 3 MB buffer, and in
 * chained calls split at random points; em_crc32_combine joins pieces; EMBER_ISA_MAX picks
 * the portable path (scalar) and caps the folding ones.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cpu.h"
#include "core/crc32.h"

/* One bit at a time, straight from the definition. */
static uint32_t crc_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~crc;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++) {
            c = (c & 1) ? (c >> 1) ^ UINT32_C(0xedb88320) : c >> 1;
        }
    }
    return ~c;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static unsigned char *random_bytes(size_t n)
{
    unsigned char *p = malloc(n > 0 ? n : 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)rnd();
    }
    return p;
}

/* The feature masks that select each implementation, as far as this CPU has them. */
typedef struct impl {
    uint64_t isa;
    const char *name;
} impl;

static size_t impls(impl *out)
{
    const uint64_t f = em_cpu_features();
    const uint64_t want[3] = {0, EM_ISA_SSE42 | EM_ISA_PCLMUL,
                              EM_ISA_SSE42 | EM_ISA_PCLMUL | EM_ISA_AVX2_SET | EM_ISA_VPCLMUL};
    static const char *names[3] = {"slice-by-8", "pclmulqdq", "vpclmulqdq"};
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        if ((f & want[i]) == want[i]) {
            out[n].isa = want[i];
            out[n].name = names[i];
            assert_string_equal(em_crc32_impl_name(want[i]), names[i]);
            n++;
        } else {
            print_message("crc32: this CPU cannot run the %s path\n", names[i]);
        }
    }
    return n;
}

static void test_check_values(void **state)
{
    (void)state;
    impl im[3];
    size_t n = impls(im);
    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        em_crc32_fn f = em_crc32_impl(im[i].isa);
        assert_int_equal(f(0, "", 0), 0);
        assert_int_equal(f(0, NULL, 0), 0);
        assert_int_equal(f(0x12345678, NULL, 0), 0x12345678);
        assert_int_equal(f(0, "123456789", 9), 0xcbf43926);
        assert_int_equal(f(0, "a", 1), 0xe8b7be43);
        const char *fox = "The quick brown fox jumps over the lazy dog";
        assert_int_equal(f(0, fox, strlen(fox)), 0x414fa339);
        unsigned char zeros[4096] = {0};
        assert_int_equal(f(0, zeros, sizeof zeros), crc_bitwise(0, zeros, sizeof zeros));
        unsigned char ones[4096];
        memset(ones, 0xff, sizeof ones);
        assert_int_equal(f(0, ones, sizeof ones), crc_bitwise(0, ones, sizeof ones));
    }
}

/* Every length 0..300 at every offset 0..15, from a random starting CRC too. */
static void test_short_lengths_and_offsets(void **state)
{
    (void)state;
    impl im[3];
    size_t n = impls(im);
    unsigned char *buf = random_bytes(300 + 16);
    for (size_t off = 0; off < 16; off++) {
        for (size_t len = 0; len <= 300; len++) {
            uint32_t seed = (uint32_t)rnd();
            uint32_t want0 = crc_bitwise(0, buf + off, len);
            uint32_t want = crc_bitwise(seed, buf + off, len);
            for (size_t i = 0; i < n; i++) {
                em_crc32_fn f = em_crc32_impl(im[i].isa);
                if (f(0, buf + off, len) != want0 || f(seed, buf + off, len) != want) {
                    fail_msg("%s: length %zu at offset %zu", im[i].name, len, off);
                }
            }
        }
    }
    free(buf);
}

/* Lengths around the thresholds (64, 256) and block multiples up to a few KB, and 3 MB. */
static void test_long_lengths(void **state)
{
    (void)state;
    impl im[3];
    size_t n = impls(im);
    const size_t big = (3u << 20) + 13;
    unsigned char *buf = random_bytes(big + 64);
    for (size_t len = 240; len <= 4200; len += (len < 600 ? 1 : 37)) {
        size_t off = rnd() % 64;
        uint32_t want = crc_bitwise(0, buf + off, len);
        for (size_t i = 0; i < n; i++) {
            if (em_crc32_impl(im[i].isa)(0, buf + off, len) != want) {
                fail_msg("%s: length %zu at offset %zu", im[i].name, len, off);
            }
        }
    }
    for (size_t off = 0; off < 3; off++) {
        uint32_t want = crc_bitwise(0, buf + off, big - off);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(em_crc32_impl(im[i].isa)(0, buf + off, big - off), want);
        }
    }
    free(buf);
}

/* Chained calls over random pieces give the CRC of the whole, and so does combining. */
static void test_chained_and_combined(void **state)
{
    (void)state;
    impl im[3];
    size_t n = impls(im);
    const size_t len = 200000;
    unsigned char *buf = random_bytes(len);
    const uint32_t want = crc_bitwise(0, buf, len);
    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < n; i++) {
            em_crc32_fn f = em_crc32_impl(im[i].isa);
            uint32_t crc = 0, joined = 0;
            for (size_t at = 0; at < len;) {
                size_t k = round < 20 ? (size_t)(rnd() % 700) : (size_t)(rnd() % 40000);
                k = k < len - at ? k : len - at;
                crc = f(crc, buf + at, k);
                joined = em_crc32_combine(joined, f(0, buf + at, k), k);
                at += k;
            }
            if (crc != want || joined != want) {
                fail_msg("%s: round %d: chained %08x, combined %08x, want %08x", im[i].name,
                         round, crc, joined, want);
            }
        }
    }
    assert_int_equal(em_crc32_combine(0x89abcdef, 0, 0), 0x89abcdef);
    assert_int_equal(em_crc32_combine(0, crc_bitwise(0, buf, 1000), 1000),
                     crc_bitwise(0, buf, 1000));
    free(buf);
}

/* EMBER_ISA_MAX caps the choice as it caps kernels. */
static void test_isa_max(void **state)
{
    (void)state;
    unsigned char *buf = random_bytes(5000);
    const uint32_t want = crc_bitwise(0, buf, 5000);
    const uint64_t f = em_cpu_features();
    static const char *caps[] = {"scalar", "avx2", "avx512", "native"};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        assert_int_equal(setenv("EMBER_ISA_MAX", caps[i], 1), 0);
        uint64_t cap = 0;
        assert_true(em_isa_cap_parse(caps[i], &cap));
        assert_true(em_cpu_features_env() == (f & cap));
        assert_string_equal(em_crc32_impl_name(em_cpu_features_env()),
                            em_crc32_impl_name(f & cap));
        assert_int_equal(em_crc32(0, buf, 5000), want);
    }
    assert_int_equal(setenv("EMBER_ISA_MAX", "scalar", 1), 0);
    assert_string_equal(em_crc32_impl_name(em_cpu_features_env()), "slice-by-8");
    assert_int_equal(setenv("EMBER_ISA_MAX", "bogus", 1), 0); /* sessions refuse it */
    assert_true(em_cpu_features_env() == f);
    assert_int_equal(unsetenv("EMBER_ISA_MAX"), 0);
    assert_true(em_cpu_features_env() == f);
    if ((f & (EM_ISA_AVX2 | EM_ISA_VPCLMUL)) == (EM_ISA_AVX2 | EM_ISA_VPCLMUL)) {
        assert_string_equal(em_crc32_impl_name(f), "vpclmulqdq");
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_values),
        cmocka_unit_test(test_short_lengths_and_offsets),
        cmocka_unit_test(test_long_lengths),
        cmocka_unit_test(test_chained_and_combined),
        cmocka_unit_test(test_isa_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
