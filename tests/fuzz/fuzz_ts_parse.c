/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the serialized TorchScript code parser (loaders/torchscript/lang/ts_lex.c,
 * ts_parse*.c, ts_ast_print.c, ts_type.c). Any input must give a module or INVALID_MODEL,
 * without out-of-bounds access, leak, stack overflow or undefined behaviour. A module must
 * print, the print must parse, and printing that must give the same text (the printer's
 * fixed point). Every parameter and return annotation also goes through the type converter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loaders/torchscript/lang/ts_type.h"
#include "core/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

static void check_types(em_ts_ast_arena *a, const em_ts_func *f)
{
    for (size_t i = 0; i < f->n_params; i++) {
        em_ts_type *t = NULL;
        if (f->params[i].type != NULL) {
            ember_status *st = em_ts_type_from_expr(a, f->params[i].type, &t);
            check(st == NULL || ember_status_code(st) == EMBER_ERR_INVALID_MODEL);
            ember_status_destroy(st);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    em_ts_ast_arena *a = em_ts_ast_arena_new(NULL);
    em_ts_module *m = NULL, *m2 = NULL, *m3 = NULL;
    check(a != NULL);
    ember_status *st = em_ts_parse_file(a, (const char *)data, size, "fuzz.py", &m);
    if (st != NULL) {
        check(ember_status_code(st) == EMBER_ERR_INVALID_MODEL && m == NULL);
        check(strncmp(ember_status_message(st), "fuzz.py:", 8) == 0);
        ember_status_destroy(st);
        em_ts_ast_arena_free(a);
        return 0;
    }
    for (size_t i = 0; i < m->n_decls; i++) {
        if (m->decls[i].kind == EM_TS_D_FUNC) {
            check_types(a, m->decls[i].u.func);
        } else if (m->decls[i].kind == EM_TS_D_CLASS) {
            const em_ts_class *c = m->decls[i].u.cls;
            for (size_t k = 0; k < c->n_members; k++) {
                if (c->members[k].kind == EM_TS_M_METHOD) {
                    check_types(a, c->members[k].method);
                }
            }
        }
    }
    em_strbuf p1, p2;
    em_strbuf_init(&p1, NULL);
    em_strbuf_init(&p2, NULL);
    em_ts_ast_print(&p1, m);
    check(!p1.failed);
    st = em_ts_parse_file(a, p1.data != NULL ? p1.data : "", p1.len, "print1.py", &m2);
    check(st == NULL);
    em_ts_ast_print(&p2, m2);
    check(p2.len == p1.len && (p1.len == 0 || memcmp(p1.data, p2.data, p1.len) == 0));
    st = em_ts_parse_file(a, p2.data != NULL ? p2.data : "", p2.len, "print2.py", &m3);
    check(st == NULL && m3->n_decls == m->n_decls);
    em_strbuf_free(&p2);
    em_strbuf_free(&p1);
    em_ts_ast_arena_free(a);
    return 0;
}
