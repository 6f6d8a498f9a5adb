/* SPDX-License-Identifier: Apache-2.0 */
/* Small questions tests ask of a loaded model through ember.h. */
#ifndef EMBER_TESTS_TEST_MODEL_H
#define EMBER_TESTS_TEST_MODEL_H

#include "ember.h"

#include <string.h>

/* The number of nodes of op type `op` in the model's graph after its passes. */
static inline int tm_count_op(const ember_model *m, const char *op)
{
    int n = 0;
    for (size_t i = 0; i < ember_model_node_count(m); i++) {
        n += strcmp(ember_model_node_op(m, i), op) == 0;
    }
    return n;
}

#endif
