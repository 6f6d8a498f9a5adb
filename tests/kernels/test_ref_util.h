/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the reference-kernel tests (tests/kernels/test_ref_*.c): nodes built by
 * hand (em_node / em_attr filled directly, no graph needed), tensors over test buffers,
 * calling a kernel the way the planner and executor do (prepare sees data only for what the
 * test marks constant: here, nothing), and tolerance checks |got - ref| <= atol + rtol * |ref|
 * that print the case and index on failure. All allocation goes through test_allocator() or
 * cmocka's test_malloc, so a leak fails the test.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_UTIL_H
#define EMBER_TESTS_KERNELS_TEST_REF_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "common/rng.h"
#include "common/test_alloc.h"
#include "kernels/ref/ref.h"
#include "core/status.h"
#include "core/thread.h"

#define T_MAX_ATTRS 16
#define T_MAX_INTS 16
#define T_MAX_IO 12

/* A node with room for its attributes. Holds pointers into itself: do not copy it. */
typedef struct t_node {
    em_node n;
    em_attr attrs[T_MAX_ATTRS];
    int64_t ints[T_MAX_ATTRS][T_MAX_INTS];
} t_node;

static inline void t_node_init(t_node *t, em_op op, const char *name)
{
    memset(t, 0, sizeof *t);
    t->n.op = op;
    t->n.name = (char *)name;
    t->n.attrs = t->attrs;
}

static inline em_attr *t_attr_new(t_node *t, const char *name, em_attr_type type)
{
    assert_true(t->n.n_attrs < T_MAX_ATTRS);
    em_attr *a = &t->attrs[t->n.n_attrs++];
    a->name = (char *)name;
    a->type = type;
    return a;
}

static inline void t_set_int(t_node *t, const char *name, int64_t v)
{
    t_attr_new(t, name, EM_ATTR_INT)->i = v;
}

static inline void t_set_float(t_node *t, const char *name, float v)
{
    t_attr_new(t, name, EM_ATTR_FLOAT)->f = v;
}

static inline void t_set_string(t_node *t, const char *name, const char *v)
{
    t_attr_new(t, name, EM_ATTR_STRING)->s = (char *)v;
}

static inline void t_set_ints(t_node *t, const char *name, const int64_t *v, int n)
{
    assert_true(n <= T_MAX_INTS);
    int slot = t->n.n_attrs;
    em_attr *a = t_attr_new(t, name, EM_ATTR_INTS);
    memcpy(t->ints[slot], v, sizeof(int64_t) * (size_t)n);
    a->ints = t->ints[slot];
    a->n = n;
}

/* A float-list attribute that borrows v[0..n) (which must outlive the node). */
static inline void t_set_floats(t_node *t, const char *name, const float *v, int64_t n)
{
    em_attr *a = t_attr_new(t, name, EM_ATTR_FLOATS);
    a->floats = (float *)v;
    a->n = n;
}

static inline void t_tensor(em_tensor *t, ember_dtype dt, int rank, const int64_t *dims, void *data)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    for (int d = 0; d < rank; d++) {
        t->dims[d] = dims[d];
    }
    t->data = data;
}

/* An absent optional input: dtype UNDEFINED. Its data points at NaNs so that a kernel that
 * reads it anyway produces NaN (or trips ASan) instead of passing by luck. */
static inline void t_absent(em_tensor *t)
{
    static const float poison[4] = {NAN, NAN, NAN, NAN};
    memset(t, 0, sizeof *t);
    t->data = (void *)poison;
}

static inline const em_kernel *t_kernel(em_op op, ember_dtype dt)
{
    for (size_t i = 0; i < em_ref_table.n; i++) {
        const em_kernel *k = &em_ref_table.kernels[i];
        if (k->op == op && k->dtype == dt) {
            return k;
        }
    }
    fail_msg("no reference kernel for %s / %s", em_op_name(op), em_dtype_name(dt));
    return NULL;
}

/* prepare, run, release. prepare sees the data of the inputs whose bit is set in const_mask
 * (constants at plan time); the others' data pointers are hidden, as for runtime inputs. On a
 * prepare error returns the status (and checks that no state was left behind). */
static inline ember_status *t_run_const(const em_kernel *k, const em_node *node, em_tensor *in,
                                        int n_in, em_tensor *out, int n_out,
                                        em_threadpool *pool, unsigned const_mask)
{
    em_tensor pin[T_MAX_IO], pout[T_MAX_IO];
    assert_true(n_in <= T_MAX_IO && n_out <= T_MAX_IO);
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        if (!(const_mask & (1u << i))) {
            pin[i].data = NULL;
        }
    }
    for (int i = 0; i < n_out; i++) {
        pout[i] = out[i];
        pout[i].data = NULL;
    }
    em_kinfo ki = {node, n_in, n_out, pin, pout, test_allocator(), 0,
                   em_threadpool_size(pool), NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare != NULL ? k->prepare(&ki, &state, &scratch_bytes) : NULL;
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    void *scratch = scratch_bytes > 0 ? em_aligned_alloc(test_allocator(), scratch_bytes) : NULL;
    em_kctx ctx = {pool, scratch};
    k->run(state, in, out, &ctx);
    em_aligned_free(test_allocator(), scratch);
    if (k->release != NULL) {
        k->release(test_allocator(), state);
    } else {
        em_free(test_allocator(), state);
    }
    return NULL;
}

/* t_run_const with every input's data hidden from prepare. */
static inline ember_status *t_run(const em_kernel *k, const em_node *node, em_tensor *in, int n_in,
                                  em_tensor *out, int n_out, em_threadpool *pool)
{
    return t_run_const(k, node, in, n_in, out, n_out, pool, 0);
}

static inline void t_expect_ok(ember_status *st, const char *case_name)
{
    if (st != NULL) {
        print_error("case %s: unexpected status %s: %s\n", case_name,
                    ember_code_name(ember_status_code(st)), ember_status_message(st));
        ember_status_destroy(st);
        fail();
    }
}

/* A status with `code` whose message names the node. */
static inline void t_expect_error(ember_status *st, ember_code code, const char *node_name,
                                  const char *case_name)
{
    if (st == NULL) {
        fail_msg("case %s: expected %s, got success", case_name, ember_code_name(code));
    }
    const char *msg = ember_status_message(st);
    bool ok = ember_status_code(st) == code && strstr(msg, node_name) != NULL;
    if (!ok) {
        print_error("case %s: expected %s naming '%s', got %s: %s\n", case_name,
                    ember_code_name(code), node_name, ember_code_name(ember_status_code(st)), msg);
    }
    ember_status_destroy(st);
    assert_true(ok);
}

static inline bool t_close(double got, double ref, double atol, double rtol)
{
    if (isnan(ref) || isnan(got)) {
        return isnan(ref) && isnan(got);
    }
    if (isinf(ref) || isinf(got)) {
        return got == ref;
    }
    return fabs(got - ref) <= atol + rtol * fabs(ref);
}

static inline void t_check_f32(const char *case_name, const float *got, const double *ref,
                               int64_t n, double atol, double rtol)
{
    for (int64_t i = 0; i < n; i++) {
        if (!t_close(got[i], ref[i], atol, rtol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g (atol %g, rtol %g)", case_name,
                     (long long)i, (double)got[i], ref[i], atol, rtol);
        }
    }
}

static inline float *t_f32(int64_t n)
{
    return test_calloc((size_t)(n > 0 ? n : 1), sizeof(float));
}

static inline double *t_f64(int64_t n)
{
    return test_calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

static inline float *t_random_f32(int64_t n, uint64_t seed, float lo, float hi)
{
    float *p = t_f32(n);
    test_rng r = {seed};
    test_rng_fill(&r, p, (size_t)n, lo, hi);
    return p;
}

static inline int64_t t_numel(const int64_t *dims, int rank)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        n *= dims[d];
    }
    return n;
}

#endif /* EMBER_TESTS_KERNELS_TEST_REF_UTIL_H */
