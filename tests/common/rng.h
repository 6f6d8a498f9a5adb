/* SPDX-License-Identifier: Apache-2.0 */
/* Deterministic test data: splitmix64, fixed seeds, floats in [lo, hi). */
#ifndef EMBER_TESTS_RNG_H
#define EMBER_TESTS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct test_rng {
    uint64_t s;
} test_rng;

static inline uint64_t test_rng_next(test_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline float test_rng_float(test_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((test_rng_next(r) >> 40) * (1.0 / 16777216.0));
}

static inline void test_rng_fill(test_rng *r, float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = test_rng_float(r, lo, hi);
    }
}

#endif
