/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/table.c and kernels.def: the reference table covers every op in ops.def; each
 * entry is portable (CPU, isa 0, priority 0), has a run function and a unique, well-formed
 * name ("em_..._ref" style with the "__ref" suffix), and no (op, dtype) key repeats. Also
 * expands kernels.def a second time, as tests may, to check that it stays self-contained.
 */
#include "test_ref_util.h"

#include <stdio.h>

static void test_table_shape(void **state)
{
    (void)state;
    assert_string_equal(em_ref_table.name, "ref");
    assert_true(em_ref_table.n > 0);
    for (size_t i = 0; i < em_ref_table.n; i++) {
        const em_kernel *k = &em_ref_table.kernels[i];
        size_t len = strlen(k->name);
        assert_true(strncmp(k->name, "em_", 3) == 0);
        assert_true(len > 5 && strcmp(k->name + len - 5, "__ref") == 0);
        assert_int_equal(k->device, EM_DEV_CPU);
        assert_int_equal(k->isa, 0);
        assert_int_equal(k->priority, 0);
        assert_non_null(k->run);
        assert_true((unsigned)k->op < EM_OP_COUNT);
        for (size_t j = 0; j < i; j++) {
            const em_kernel *o = &em_ref_table.kernels[j];
            if (strcmp(o->name, k->name) == 0 || (o->op == k->op && o->dtype == k->dtype)) {
                fail_msg("entries %zu (%s) and %zu (%s) collide", j, o->name, i, k->name);
            }
        }
    }
}

static void test_table_covers_ops(void **state)
{
    (void)state;
    for (int op = 0; op < EM_OP_COUNT; op++) {
        /* Ops the interpreter runs itself have no kernel, and must have none. */
        bool interp = (em_op_info_of((em_op)op)->flags & EM_OPF_INTERP) != 0;
        bool found = false;
        for (size_t i = 0; i < em_ref_table.n; i++) {
            found = found || em_ref_table.kernels[i].op == (em_op)op;
        }
        if (interp && found) {
            fail_msg("op %s is run by the interpreter but has a kernel", em_op_name((em_op)op));
        }
        if (!found && !interp) {
            fail_msg("op %s has no reference kernel", em_op_name((em_op)op));
        }
    }
}

static void test_table_dtypes(void **state)
{
    (void)state;
    static const em_op binary[4] = {EM_OP_ADD, EM_OP_SUB, EM_OP_MUL, EM_OP_DIV};
    static const ember_dtype dts[4] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                       EMBER_DTYPE_I64};
    for (int o = 0; o < 4; o++) {
        for (int t = 0; t < 4; t++) {
            assert_non_null(t_kernel(binary[o], dts[t]));
        }
    }
    assert_non_null(t_kernel(EM_OP_RESHAPE, EMBER_DTYPE_UNDEFINED));
    assert_non_null(t_kernel(EM_OP_FLATTEN, EMBER_DTYPE_UNDEFINED));
    assert_non_null(t_kernel(EM_OP_IDENTITY, EMBER_DTYPE_UNDEFINED));
}

/* kernels.def expands on its own: the names listed match the table, in order. */
static const char *const def_names[] = {
#define EM_KERNEL(name, op, dt, prepare, release, run) #name,
#include "kernels/ref/kernels.def"
#undef EM_KERNEL
};

static void test_def_expands(void **state)
{
    (void)state;
    assert_int_equal(sizeof def_names / sizeof def_names[0], em_ref_table.n);
    for (size_t i = 0; i < em_ref_table.n; i++) {
        assert_string_equal(def_names[i], em_ref_table.kernels[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_shape),
        cmocka_unit_test(test_table_covers_ops),
        cmocka_unit_test(test_table_dtypes),
        cmocka_unit_test(test_def_expands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
