/* SPDX-License-Identifier: Apache-2.0 */
/* The path of fixture `rel` under folder `sub` (ending in '/', or "") of the test data root:
 * $EMBER_TEST_DATA, else tests/data. The buffer is the calling thread's, valid until its next
 * call. */
#ifndef EMBER_TEST_DATA_H
#define EMBER_TEST_DATA_H

#include <stdio.h>
#include <stdlib.h>

static inline char *test_data_path(const char *sub, const char *rel)
{
    const char *root = getenv("EMBER_TEST_DATA");
    static _Thread_local char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s%s", root ? root : "tests/data", sub, rel);
    return buf;
}

#endif
