/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the tensor family's kernel tests (test_ref_tensor_*.c). */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_TENSOR_UTIL_H
#define EMBER_TESTS_KERNELS_TEST_REF_TENSOR_UTIL_H

#include "test_ref_util.h"

/* Runs the op's reference kernel like t_run, but prepare sees the data of the inputs whose bit
 * is set in `konst` (constants at plan time); the other inputs' values exist only in run. */
static inline ember_status *run_k(const em_node *node, em_tensor *in, int n_in, em_tensor *out, int n_out,
                           unsigned konst)
{
    const em_kernel *k = t_kernel(node->op, EMBER_DTYPE_UNDEFINED);
    em_tensor pin[T_MAX_IO], pout[T_MAX_IO];
    assert_true(n_in <= T_MAX_IO && n_out <= T_MAX_IO);
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        pin[i].data = (konst & (1u << i)) ? in[i].data : NULL;
    }
    for (int i = 0; i < n_out; i++) {
        pout[i] = out[i];
        pout[i].data = NULL;
    }
    em_kinfo ki = {node, n_in, n_out, pin, pout, test_allocator(), 0, 1, NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch_bytes);
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    assert_int_equal(scratch_bytes, 0);
    em_kctx ctx = {NULL, NULL};
    k->run(state, in, out, &ctx);
    em_free(test_allocator(), state);
    return NULL;
}

/* A buffer of n elements of dt whose bytes follow a pattern that differs at every byte, so a
 * misplaced element (or a wrong byte order inside one) shows. */
static inline void *pattern(ember_dtype dt, int64_t n, unsigned seed)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * em_dtype_size(dt);
    unsigned char *p = test_malloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        p[i] = (unsigned char)(i * 37u + seed * 101u + 11u + i / 251u);
    }
    return p;
}

/* An output buffer poisoned with 0xA5, so unwritten elements show. */
static inline void *poisoned(ember_dtype dt, int64_t n)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * em_dtype_size(dt);
    unsigned char *p = test_malloc(bytes);
    memset(p, 0xA5, bytes);
    return p;
}

/* Element i of got equals element src[i] of x (src[i] < 0: all-zero bytes). */
static inline void expect_gathered(const char *name, ember_dtype dt, const void *got, const void *x,
                            const int64_t *src, int64_t n)
{
    size_t es = em_dtype_size(dt);
    unsigned char zero[16] = {0};
    for (int64_t i = 0; i < n; i++) {
        const void *want = src[i] < 0 ? zero : (const unsigned char *)x + (size_t)src[i] * es;
        if (memcmp((const unsigned char *)got + (size_t)i * es, want, es) != 0) {
            fail_msg("case %s (%s): element %lld differs from source %lld", name, em_dtype_name(dt),
                     (long long)i, (long long)src[i]);
        }
    }
}

/* Row-major flat index of coordinate c in dims. */
static inline int64_t flat(const int64_t *c, const int64_t *dims, int rank)
{
    int64_t f = 0;
    for (int d = 0; d < rank; d++) {
        f = f * dims[d] + c[d];
    }
    return f;
}

#endif
