/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test allocators. test_allocator() routes every ember allocation through cmocka's
 * test_malloc/test_free so that a test fails on a leak. The counting allocator counts
 * allocations (thread-safe) and can be told to fail the i-th one, for failure injection.
 */
#ifndef EMBER_TESTS_TEST_ALLOC_H
#define EMBER_TESTS_TEST_ALLOC_H

#include "ember.h"

#include <stdatomic.h>
#include <stdint.h>

/* An allocator on cmocka's test_malloc/test_free (leak-checked per test). */
const ember_allocator *test_allocator(void);

typedef struct counting_alloc {
    atomic_long n_alloc;   /* allocations made so far (alloc, realloc, aligned_alloc) */
    atomic_long n_free;
    atomic_long live;      /* allocations not yet freed */
    long fail_at;          /* fail the allocation with this 1-based number; 0 = never */
    ember_allocator al;
} counting_alloc;

void counting_alloc_init(counting_alloc *ca);

#endif
