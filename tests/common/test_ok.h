/* SPDX-License-Identifier: Apache-2.0 */
/* OK(expr): fails the current cmocka test, naming the call and its message, when `expr`
 * returns a status. Include after <cmocka.h>. */
#ifndef EMBER_TESTS_TEST_OK_H
#define EMBER_TESTS_TEST_OK_H

#include "ember.h"

#define OK(expr)                                                                  \
    do {                                                                          \
        ember_status *st_ = (expr);                                               \
        if (st_ != NULL) {                                                        \
            fail_msg("%s: %s", #expr, ember_status_message(st_));                 \
        }                                                                         \
    } while (0)

#endif
