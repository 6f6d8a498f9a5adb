/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the serialized-code parser tests (test_ts_parse.c, test_ts_expr.c):
 * parsing that must succeed, and exact positions. Include after <cmocka.h>.
 */
#ifndef EMBER_TESTS_LOADERS_TS_TEST_UTIL_H
#define EMBER_TESTS_LOADERS_TS_TEST_UTIL_H

#include <string.h>

#include "common/test_alloc.h"
#include "loaders/torchscript/lang/ts_ast.h"

/* Parses `text` into `a`; fails the test with the parser's message on an error. */
static inline em_ts_module *parse_ok(em_ts_ast_arena *a, const char *text, const char *file)
{
    em_ts_module *m = NULL;
    ember_status *st = em_ts_parse_file(a, text, strlen(text), file, &m);
    if (st != NULL) {
        print_error("%s\n", ember_status_message(st));
        ember_status_destroy(st);
        fail();
    }
    return m;
}

static inline void assert_pos(em_ts_pos pos, int line, int col)
{
    if (pos.line != line || pos.col != col) {
        print_error("position %d:%d, expected %d:%d\n", (int)pos.line, (int)pos.col, line, col);
        fail();
    }
}

#endif /* EMBER_TESTS_LOADERS_TS_TEST_UTIL_H */
