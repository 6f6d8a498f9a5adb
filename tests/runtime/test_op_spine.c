/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The op spine (runtime/ir/ops.def): every op has the facts that hang off its row, and they
 * carry the name of its family F.
 *  - A shape function (em_shape_fn_of), defined in runtime/shape/shape_F.c or shape_F_*.c.
 *  - A reference kernel in the registry, with a row in kernels/ref/kernels_F.def; an op the
 *    interpreter runs itself (EM_OPF_INTERP) has none. A row's functions are defined in
 *    kernels/ref/G_*.c, G the family of the list holding the row.
 *  - A gradient rule (EM_GRAD) or the EM_NOGRAD mark, as autograd's table has it; a rule is
 *    defined in runtime/autograd/grad_rules_F.c or grad_rules_F_*.c.
 *  - Its row is in runtime/ir/ops_F.def.
 * A function that ops (rows) of several families share may live with any of them, and a shape
 * function so shared also in the common runtime/shape/shape.c. Every file of those folders,
 * and every test file test_shape_*.c, test_autograd_*.c and test_ref_*.c, is named after a
 * family (or is one of the few common files), and each family with kernels has a
 * test_ref_F*.c. The file checks read
 * the sources, found from EMBER_TEST_DATA (the tests/data folder); a definition is found by its
 * first line ("ember_status *em_x(", "void em_x("); a kernel function written by a macro is not
 * found and not checked, but every row must have one found.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "autograd/grad_internal.h"
#include "ir/op.h"
#include "kernels/ref/ref.h"
#include "plan/kernel.h"
#include "shape/shape.h"

/* ---- the lists, expanded here ---------------------------------------------------------------- */

#define STR_(x) #x
#define STR(x) STR_(x)

typedef struct op_row {
    em_op op;
    const char *id, *family, *shape, *grad; /* grad: the rule's name, NULL for EM_NOGRAD */
} op_row;

static const op_row op_rows[] = {
#define EM_GRAD(r) #r
#define EM_NOGRAD NULL
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad)             \
    {EM_OP_##id, #id, STR(EM_FAMILY), #shape, grad},
#include "ir/ops.def"
#undef EM_OP
#undef EM_NOGRAD
#undef EM_GRAD
};
enum { N_OPS = sizeof op_rows / sizeof op_rows[0] };

typedef struct kernel_row {
    em_op op;
    const char *family, *name, *fn[3]; /* prepare, release, run; "NULL" when absent */
} kernel_row;

static const kernel_row kernel_rows[] = {
#define EM_KERNEL(name, op, dt, prepare, release, run)                                             \
    {EM_OP_##op, STR(EM_FAMILY), #name, {#prepare, #release, #run}},
#include "kernels/ref/kernels.def"
#undef EM_KERNEL
};
enum { N_KERNEL_ROWS = sizeof kernel_rows / sizeof kernel_rows[0] };

/* ---- problems are collected, then reported together ------------------------------------------ */

static int n_problems;

static void problem(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void problem(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error("op spine: %s\n", msg);
    n_problems++;
}

static void report(void)
{
    if (n_problems > 0) {
        fail_msg("%d problem(s), listed above", n_problems);
    }
}

/* ---- families -------------------------------------------------------------------------------- */

static const char *families[N_OPS];
static int n_families;

static void collect_families(void)
{
    n_families = 0;
    for (int i = 0; i < N_OPS; i++) {
        bool seen = false;
        for (int f = 0; f < n_families && !seen; f++) {
            seen = strcmp(families[f], op_rows[i].family) == 0;
        }
        if (!seen) {
            families[n_families++] = op_rows[i].family;
        }
    }
}

/* `rest` (a file name past its prefix, up to its suffix) is a family's name, or one followed by
 * "_<part>"; the family, or NULL. */
static const char *family_of_name(const char *rest, size_t len)
{
    for (int f = 0; f < n_families; f++) {
        size_t fl = strlen(families[f]);
        if (len >= fl && strncmp(rest, families[f], fl) == 0 && (len == fl || rest[fl] == '_')) {
            return families[f];
        }
    }
    return NULL;
}

static bool in_list(const char *s, const char *const *list, int n)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(s, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* ---- the runtime facts ----------------------------------------------------------------------- */

static void test_every_op_has_its_facts(void **state)
{
    (void)state;
    assert_int_equal(N_OPS, EM_OP_COUNT);
    n_problems = 0;
    for (int i = 0; i < N_OPS; i++) {
        const op_row *r = &op_rows[i];
        em_op op = r->op;
        assert_int_equal((int)op, i); /* ids are dense, in the order of the rows */
        if (strcmp(em_op_family(op), r->family) != 0) {
            problem("%s: em_op_family says %s, its row is in ops_%s.def", r->id, em_op_family(op),
                    r->family);
        }
        if (em_shape_fn_of(op) == NULL) {
            problem("%s has no shape function", r->id);
        }
        bool interp = (em_op_info_of(op)->flags & EM_OPF_INTERP) != 0;
        size_t n_ref = 0;
        for (size_t k = 0; k < em_registry_count(); k++) {
            const em_kernel *e = em_registry_at(k);
            size_t len = strlen(e->name);
            n_ref += e->op == op && e->isa == 0 && e->device == EM_DEV_CPU && len > 5 &&
                     strcmp(e->name + len - 5, "__ref") == 0;
        }
        if (!interp && n_ref == 0) {
            problem("%s has no reference kernel in the registry", r->id);
        }
        if (interp && n_ref > 0) {
            problem("%s is run by the interpreter (EM_OPF_INTERP) but has a kernel", r->id);
        }
        int in_own_list = 0;
        for (int k = 0; k < N_KERNEL_ROWS; k++) {
            in_own_list += kernel_rows[k].op == op && strcmp(kernel_rows[k].family, r->family) == 0;
        }
        if (!interp && in_own_list == 0) {
            problem("%s has no kernel row in kernels_%s.def", r->id, r->family);
        }
        if ((em_gx_rule_of(op) != NULL) != (r->grad != NULL)) {
            problem("%s: the rule table says %s, the grad column %s", r->id,
                    em_gx_rule_of(op) != NULL ? "a rule" : "none",
                    r->grad != NULL ? r->grad : "EM_NOGRAD");
        }
    }
    /* The kernel rows expanded here are the table's. */
    assert_int_equal(N_KERNEL_ROWS, (int)em_ref_table.n);
    report();
}

/* ---- the sources ----------------------------------------------------------------------------- */

static char root[1024];

static bool find_root(void)
{
    const char *data = getenv("EMBER_TEST_DATA");
    if (data == NULL) {
        return false;
    }
    snprintf(root, sizeof root, "%s/../..", data);
    return true;
}

/* The whole file, NUL-terminated (free it), or NULL. */
static char *read_file(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) {
            break;
        }
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
    }
    return buf;
}

enum { MAX_FILES = 256 };

/* A folder's files whose names start with `prefix` and end with `suffix`. */
typedef struct folder {
    const char *dir;
    int n;
    char *name[MAX_FILES];
    char *text[MAX_FILES];
} folder;

static void folder_read(folder *fo, const char *dir, const char *prefix, const char *suffix)
{
    char path[2048];
    memset(fo, 0, sizeof *fo);
    fo->dir = dir;
    snprintf(path, sizeof path, "%s/%s", root, dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        size_t len = strlen(e->d_name), pl = strlen(prefix), sl = strlen(suffix);
        if (len < pl + sl || strncmp(e->d_name, prefix, pl) != 0 ||
            strcmp(e->d_name + len - sl, suffix) != 0) {
            continue;
        }
        assert_true(fo->n < MAX_FILES);
        fo->name[fo->n] = strdup(e->d_name);
        fo->text[fo->n] = read_file(dir, e->d_name);
        assert_non_null(fo->text[fo->n]);
        fo->n++;
    }
    closedir(d);
}

static void folder_free(folder *fo)
{
    for (int i = 0; i < fo->n; i++) {
        free(fo->name[i]);
        free(fo->text[i]);
    }
}

/* The file of `fo` defining function `fn` (a line starting "ember_status *fn(" or "void fn("),
 * or NULL. */
static const char *defining_file(const folder *fo, const char *fn)
{
    char pat[2][256];
    snprintf(pat[0], sizeof pat[0], "\nember_status *%s(", fn);
    snprintf(pat[1], sizeof pat[1], "\nvoid %s(", fn);
    for (int i = 0; i < fo->n; i++) {
        if (strstr(fo->text[i], pat[0]) != NULL || strstr(fo->text[i], pat[1]) != NULL) {
            return fo->name[i];
        }
    }
    return NULL;
}

/* Whether file `name` = <prefix><family>[_part]<suffix> belongs to one of fams[0..n). */
static bool file_of(const char *name, const char *prefix, const char *suffix,
                    const char *const *fams, int n)
{
    size_t pl = strlen(prefix), len = strlen(name), sl = strlen(suffix);
    if (strncmp(name, prefix, pl) != 0 || len < pl + sl || strcmp(name + len - sl, suffix) != 0) {
        return false;
    }
    const char *fam = family_of_name(name + pl, len - pl - sl);
    return fam != NULL && in_list(fam, fams, n);
}

/* The families of the ops whose `column` of the op rows names `fn`. */
static int op_families_using(const char *fn, bool grad, const char **fams)
{
    int n = 0;
    for (int i = 0; i < N_OPS; i++) {
        const char *v = grad ? op_rows[i].grad : op_rows[i].shape;
        if (v != NULL && strcmp(v, fn) == 0 && !in_list(op_rows[i].family, fams, n)) {
            fams[n++] = op_rows[i].family;
        }
    }
    return n;
}

static void test_facts_live_in_family_files(void **state)
{
    (void)state;
    if (!find_root()) {
        skip(); /* run outside ctest: no EMBER_TEST_DATA */
    }
    collect_families();
    n_problems = 0;
    folder ops, shapes, grads, kernels;
    folder_read(&ops, "runtime/ir", "ops_", ".def");
    folder_read(&shapes, "runtime/shape", "shape", ".c");
    folder_read(&grads, "runtime/autograd", "grad_rules_", ".c");
    folder_read(&kernels, "kernels/ref", "", ".c");
    const char *fams[N_OPS];
    for (int i = 0; i < N_OPS; i++) {
        const op_row *r = &op_rows[i];
        char row[128], file[128];
        snprintf(row, sizeof row, "\nEM_OP(%s,", r->id);
        snprintf(file, sizeof file, "ops_%s.def", r->family);
        bool found = false;
        for (int k = 0; k < ops.n && !found; k++) {
            found = strcmp(ops.name[k], file) == 0 && strstr(ops.text[k], row) != NULL;
        }
        if (!found) {
            problem("%s: its row is not in runtime/ir/%s", r->id, file);
        }
        /* The shape function: in shape_F[_*].c, or shared and in a sharer's file or shape.c. */
        int nf = op_families_using(r->shape, false, fams);
        const char *where = defining_file(&shapes, r->shape);
        if (where == NULL) {
            problem("%s: %s is defined in no runtime/shape/ file", r->id, r->shape);
        } else if (!file_of(where, "shape_", ".c", &r->family, 1) &&
                   !(nf > 1 && (strcmp(where, "shape.c") == 0 ||
                                file_of(where, "shape_", ".c", fams, nf)))) {
            problem("%s: %s is in %s, not in shape_%s[_*].c", r->id, r->shape, where, r->family);
        }
        /* The gradient rule: in grad_rules_F[_*].c, or shared and in a sharer's file. */
        if (r->grad != NULL) {
            char fn[128];
            snprintf(fn, sizeof fn, "em_gx_rule_%s", r->grad);
            nf = op_families_using(r->grad, true, fams);
            where = defining_file(&grads, fn);
            if (where == NULL) {
                problem("%s: %s is defined in no runtime/autograd/grad_rules_*.c", r->id, fn);
            } else if (!file_of(where, "grad_rules_", ".c", nf > 1 ? fams : &r->family,
                                nf > 1 ? nf : 1)) {
                problem("%s: %s is in %s, not in grad_rules_%s[_*].c", r->id, fn, where,
                        r->family);
            }
        }
    }
    /* Each kernel row's functions: in G_*.c (G the row's list), or shared and in a sharer's. */
    for (int k = 0; k < N_KERNEL_ROWS; k++) {
        const kernel_row *kr = &kernel_rows[k];
        int checked = 0;
        for (int j = 0; j < 3; j++) {
            const char *fn = kr->fn[j];
            if (strcmp(fn, "NULL") == 0) {
                continue;
            }
            int nf = 0;
            for (int o = 0; o < N_KERNEL_ROWS; o++) {
                const char *of = kernel_rows[o].family;
                if (strcmp(kernel_rows[o].fn[j], fn) == 0 && !in_list(of, fams, nf)) {
                    fams[nf++] = of;
                }
            }
            const char *where = defining_file(&kernels, fn);
            if (where == NULL) {
                continue; /* written by a macro */
            }
            checked++;
            if (!file_of(where, "", ".c", nf > 1 ? fams : &kr->family, nf > 1 ? nf : 1)) {
                problem("kernel %s: %s is in kernels/ref/%s, not in %s_*.c", kr->name, fn, where,
                        kr->family);
            }
        }
        if (checked == 0) {
            problem("kernel %s: none of its functions is defined in kernels/ref/", kr->name);
        }
    }
    folder_free(&ops);
    folder_free(&shapes);
    folder_free(&grads);
    folder_free(&kernels);
    report();
}

/* ---- file names ------------------------------------------------------------------------------ */

/* Every file of dir named <read><anything><suffix> is <prefix><family>[_part]<suffix> (prefix
 * starts with read), or one of `common`. */
static void check_names(const char *dir, const char *read, const char *prefix, const char *suffix,
                        const char *const *common, int n_common)
{
    folder fo;
    folder_read(&fo, dir, read, suffix);
    for (int i = 0; i < fo.n; i++) {
        if (!in_list(fo.name[i], common, n_common) &&
            !file_of(fo.name[i], prefix, suffix, families, n_families)) {
            problem("%s/%s is named after no op family", dir, fo.name[i]);
        }
    }
    folder_free(&fo);
}

static void test_files_are_named_by_family(void **state)
{
    (void)state;
    if (!find_root()) {
        skip();
    }
    collect_families();
    n_problems = 0;
    static const char *const shape_common[] = {"shape.c"};
    static const char *const ref_common[] = {"common_ref.c", "table.c"};
    static const char *const ref_headers[] = {"ref.h"};
    static const char *const test_shape_common[] = {"test_shape.c", "test_shape_util.h",
                                                    "test_shape_fx.h"};
    static const char *const test_ref_common[] = {"test_ref_common.c", "test_ref_table.c",
                                                  "test_ref_util.h"};
    static const char *const test_autograd_common[] = {"test_autograd.c", "test_autograd_util.h"};
    check_names("runtime/ir", "ops_", "ops_", ".def", NULL, 0);
    check_names("runtime/shape", "shape", "shape_", ".c", shape_common, 1);
    check_names("runtime/autograd", "grad_rules", "grad_rules_", ".c", NULL, 0);
    check_names("kernels/ref", "kernels_", "kernels_", ".def", NULL, 0);
    check_names("kernels/ref", "", "", ".c", ref_common, 2);
    check_names("kernels/ref", "", "", ".h", ref_headers, 1);
    check_names("tests/runtime", "test_shape", "test_shape_", ".c", test_shape_common, 1);
    check_names("tests/runtime", "test_shape", "test_shape_", ".h", test_shape_common + 1, 2);
    check_names("tests/runtime", "test_autograd", "test_autograd_", ".c", test_autograd_common, 1);
    check_names("tests/runtime", "test_autograd", "test_autograd_", ".h", test_autograd_common + 1,
                1);
    check_names("tests/kernels", "test_ref", "test_ref_", ".c", test_ref_common, 2);
    check_names("tests/kernels", "test_ref", "test_ref_", ".h", test_ref_common + 2, 1);
    /* A family with kernels has their tests. */
    folder tests;
    folder_read(&tests, "tests/kernels", "test_ref_", ".c");
    for (int f = 0; f < n_families; f++) {
        bool has_kernels = false, has_test = false;
        for (int k = 0; k < N_KERNEL_ROWS && !has_kernels; k++) {
            has_kernels = strcmp(kernel_rows[k].family, families[f]) == 0;
        }
        for (int t = 0; t < tests.n && !has_test; t++) {
            has_test = file_of(tests.name[t], "test_ref_", ".c", &families[f], 1);
        }
        if (has_kernels && !has_test) {
            problem("family %s has kernels but no tests/kernels/test_ref_%s[_*].c", families[f],
                    families[f]);
        }
    }
    folder_free(&tests);
    report();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_has_its_facts),
        cmocka_unit_test(test_facts_live_in_family_files),
        cmocka_unit_test(test_files_are_named_by_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
