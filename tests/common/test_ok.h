/* SPDX-License-Identifier: Apache-2.0 */
/* OK(expr): fails the current cmocka test, naming the call and its message, when `expr`
 * returns a status; EXPECT_ERR below. Include after <cmocka.h>. */
#ifndef EMBER_TESTS_TEST_OK_H
#define EMBER_TESTS_TEST_OK_H

#include "ember.h"

#include <string.h>

#define OK(expr)                                                                  \
    do {                                                                          \
        ember_status *st_ = (expr);                                               \
        if (st_ != NULL) {                                                        \
            fail_msg("%s: %s", #expr, ember_status_message(st_));                 \
        }                                                                         \
    } while (0)

/* EXPECT_ERR(expr, code, needle...): expects a failure with `code` whose message contains each
 * needle. */
static inline void expect_err_v(ember_status *st, ember_code code, const char *const *needles)
{
    if (st == NULL) {
        fail_msg("expected %s containing '%s', got success", ember_code_name(code), needles[0]);
    }
    const char *msg = ember_status_message(st);
    for (int i = 0; needles[i] != NULL; i++) {
        if (ember_status_code(st) != code || strstr(msg, needles[i]) == NULL) {
            fail_msg("expected %s containing '%s', got %s: %s", ember_code_name(code),
                     needles[i], ember_code_name(ember_status_code(st)), msg);
        }
    }
    ember_status_destroy(st);
}

#define EXPECT_ERR(st, code, ...) \
    expect_err_v((st), (code), (const char *const[]){__VA_ARGS__, NULL})

#endif
