/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the operator schema parser (loaders/torchscript/lang/ts_schema.c) and the
 * type annotation parser (ts_type.c): both read every input. A parsed schema or type must
 * print, the print must parse, and printing that must give the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loaders/torchscript/lang/ts_schema.h"
#include "core/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

static void check_failure(ember_status *st, const char *what)
{
    check(ember_status_code(st) == EMBER_ERR_INVALID_MODEL);
    check(strncmp(ember_status_message(st), what, strlen(what)) == 0);
    ember_status_destroy(st);
}

static void fuzz_schema(em_ts_ast_arena *a, const char *s, size_t n)
{
    em_ts_schema *sc = NULL, *sc2 = NULL;
    ember_status *st = em_ts_schema_parse(a, s, n, "schema", &sc);
    if (st != NULL) {
        check(sc == NULL);
        check_failure(st, "schema:");
        return;
    }
    em_strbuf p1, p2;
    em_strbuf_init(&p1, NULL);
    em_strbuf_init(&p2, NULL);
    em_ts_schema_print(&p1, sc);
    check(!p1.failed && p1.data != NULL);
    st = em_ts_schema_parse(a, p1.data, p1.len, "print1", &sc2);
    check(st == NULL);
    check(sc2->n_args == sc->n_args && sc2->n_rets == sc->n_rets);
    em_ts_schema_print(&p2, sc2);
    check(p2.len == p1.len && memcmp(p1.data, p2.data, p1.len) == 0);
    em_strbuf_free(&p2);
    em_strbuf_free(&p1);
}

static void fuzz_type(em_ts_ast_arena *a, const char *s, size_t n)
{
    em_ts_type *t = NULL, *t2 = NULL;
    ember_status *st = em_ts_type_parse(a, s, n, "type", &t);
    if (st != NULL) {
        check(t == NULL);
        check_failure(st, "type:");
        return;
    }
    em_strbuf p1;
    em_strbuf_init(&p1, NULL);
    em_ts_type_print(&p1, t);
    check(!p1.failed && p1.data != NULL);
    st = em_ts_type_parse(a, p1.data, p1.len, "print1", &t2);
    check(st == NULL && em_ts_type_equal(t, t2));
    em_strbuf_free(&p1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    em_ts_ast_arena *a = em_ts_ast_arena_new(NULL);
    check(a != NULL);
    fuzz_schema(a, (const char *)data, size);
    fuzz_type(a, (const char *)data, size);
    em_ts_ast_arena_free(a);
    return 0;
}
