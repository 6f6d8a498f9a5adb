/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the text family's kernel tests (tests/kernels/test_ref_text_*.c) on top of
 * test_ref_util.h: string inputs over arrays of C strings, string outputs made as the
 * interpreter makes them (em_str_out_new: pointer array plus arena), running a kernel and
 * finishing its string outputs (the arena's chunks then belong to the output storage, which
 * the test releases), list-of-strings attributes, and exact string checks.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_TEXT_UTIL_H
#define EMBER_TESTS_KERNELS_TEST_REF_TEXT_UTIL_H

#include "test_ref_util.h"

#include "common/test_ok.h"
#include "core/strtensor.h"

#include <stdio.h>

/* Every input's data is visible to prepare (the interpreter's view). */
#define TS_ALL_CONST 0xffu

static inline void ts_in(em_tensor *t, int rank, const int64_t *dims, const char *const *v)
{
    t_tensor(t, EMBER_DTYPE_STRING, rank, dims, (void *)v);
}

/* A string output of dims[0..rank); release the returned storage after the checks. */
static inline em_storage *ts_out(em_tensor *t, int rank, const int64_t *dims)
{
    em_storage *s = NULL;
    t_tensor(t, EMBER_DTYPE_STRING, rank, dims, NULL);
    OK(em_str_out_new(test_allocator(), t, &s));
    return s;
}

static inline void ts_set_strings(t_node *t, const char *name, char **v, int n)
{
    em_attr *a = t_attr_new(t, name, EM_ATTR_STRINGS);
    a->strings = v;
    a->n = n;
}

/* t_run_const with the inputs in const_mask visible to prepare, then em_str_out_finish on each
 * output that has a storage in st[] (NULL entries: not a string output). */
static inline ember_status *ts_run(const em_kernel *k, const em_node *n, em_tensor *in, int n_in,
                                   em_tensor *out, int n_out, em_storage **st, unsigned mask)
{
    ember_status *s = t_run_const(k, n, in, n_in, out, n_out, NULL, mask);
    for (int o = 0; o < n_out; o++) {
        if (st != NULL && st[o] != NULL) {
            ember_status *e = em_str_out_finish(st[o], &out[o], n->name);
            if (s == NULL) {
                s = e;
            } else {
                ember_status_destroy(e);
            }
        }
    }
    return s;
}

static inline void ts_expect(const char *case_name, const em_tensor *t, const char *const *want,
                             int64_t n)
{
    assert_int_equal(t->dtype, EMBER_DTYPE_STRING);
    assert_int_equal(em_tensor_numel(t), n);
    for (int64_t i = 0; i < n; i++) {
        if (strcmp(em_str_at(t, i), want[i]) != 0) {
            fail_msg("case %s: element %lld is \"%s\", expected \"%s\"", case_name, (long long)i,
                     em_str_at(t, i), want[i]);
        }
    }
}

static inline void ts_expect_bool(const char *case_name, const em_tensor *t, const uint8_t *want,
                                  int64_t n)
{
    const uint8_t *got = t->data;
    for (int64_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("case %s: element %lld is %d, expected %d", case_name, (long long)i, got[i],
                     want[i]);
        }
    }
}

#endif /* EMBER_TESTS_KERNELS_TEST_REF_TEXT_UTIL_H */
