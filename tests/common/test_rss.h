/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resident memory of the test process, for tests that bound memory growth: RSS from
 * /proc/self/statm (Linux; 0 elsewhere, so callers skip). Header-only, no state.
 */
#ifndef EMBER_TESTS_TEST_RSS_H
#define EMBER_TESTS_TEST_RSS_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#define TEST_MIB ((size_t)1 << 20)

/* 1 under AddressSanitizer, ThreadSanitizer or MemorySanitizer, whose quarantine and shadow
 * memory make RSS meaningless as a bound: tests then skip their RSS assertions. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_RSS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define TEST_RSS_SANITIZED 1
#endif
#endif
#ifndef TEST_RSS_SANITIZED
#define TEST_RSS_SANITIZED 0
#endif

/* Resident set size in bytes; 0 when /proc/self/statm cannot be read. */
static inline size_t test_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f == NULL) {
        return 0;
    }
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) {
        resident = 0;
    }
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return resident > 0 && page > 0 ? (size_t)resident * (size_t)page : 0;
}

/* b - a in MiB, signed: for messages. */
static inline double test_mib_diff(size_t b, size_t a)
{
    return ((double)b - (double)a) / (double)TEST_MIB;
}

#endif
