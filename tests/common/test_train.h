/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the trainer's API tests (tests/api/test_api_train*.c): whether a loader is built,
 * and a fixture array of tests/data/train/DIR. Include after <cmocka.h>. */
#ifndef EMBER_TESTS_TEST_TRAIN_H
#define EMBER_TESTS_TEST_TRAIN_H

#include "common/test_data.h"
#include "common/test_ok.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* True when the library was built with the loader `name` ("onnx", "torchscript", ...). */
static inline bool test_have_loader(const char *name)
{
    const char *info = strstr(ember_build_info(), "loaders=");
    return info != NULL && strstr(info, name) != NULL;
}

/* tests/data/train/DIR/FILE as a tensor (fails the test when it does not load). */
static inline ember_tensor *test_train_npy(const char *dir, const char *file)
{
    char rel[640];
    snprintf(rel, sizeof rel, "%.300s/%.300s", dir, file);
    ember_tensor *t = NULL;
    OK(ember_tensor_load_npy(test_data_path("train/", rel), &t));
    return t;
}

#endif
