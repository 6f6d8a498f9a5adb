/* SPDX-License-Identifier: Apache-2.0 */
/* Loading TorchScript fixtures in cmocka tests. Include after <cmocka.h>. */
#ifndef EMBER_TESTS_TEST_TS_H
#define EMBER_TESTS_TEST_TS_H

#include "ember.h"
#include "test_ok.h"

#include <stddef.h>
#include <string.h>

/* Loads the archive at `path` with n inputs of these dtypes and ranks into *m. Skips the test in
 * builds without TorchScript (configured without libzip); any other failure is returned. */
static inline ember_status *ts_test_try_load(const char *path, const ember_dtype *dt,
                                             const int *rank, size_t n, ember_model **m)
{
    ember_model_options *mo = NULL;
    *m = NULL;
    OK(ember_model_options_create(&mo));
    for (size_t i = 0; i < n; i++) {
        OK(ember_model_options_set_input_rank(mo, i, dt[i], rank[i]));
    }
    ember_status *st = ember_model_load_file(path, mo, m);
    ember_model_options_destroy(mo);
    if (st != NULL && strstr(ember_status_message(st), "this build has no TorchScript") != NULL) {
        ember_status_destroy(st);
        skip();
    }
    return st;
}

/* The archive at `path` with one input of dtype dt and rank `rank`; fails the test naming the
 * file when it does not load. */
static inline ember_model *ts_test_load(const char *path, ember_dtype dt, int rank)
{
    ember_model *m = NULL;
    ember_status *st = ts_test_try_load(path, &dt, &rank, 1, &m);
    if (st != NULL) {
        fail_msg("%s: %s", path, ember_status_message(st));
    }
    return m;
}

#endif
