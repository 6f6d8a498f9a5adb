/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/plan/registry.c: em_registry_find returns exactly the entries that match (op, device,
 * ISA subset, dtype or UNDEFINED = any), best priority first, compared with an independent
 * filter over em_registry_at(); isa = 0 gives only portable entries; `cap` truncates to the
 * best ones. The "every op has a reference kernel" rule: each op in ops.def has a portable
 * CPU kernel for f32 (or any dtype) named "...__ref". No (op, dtype, device, isa, priority)
 * key repeats. The registry builds once under concurrent first use. ISA caps from cpu.c
 * (em_isa_cap_parse / em_isa_list) filter the registry as the planner uses them.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan/kernel.h"

enum { MAX_K = 4096 };

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- concurrent first use ----------------------------------------------------------------- */

enum { N_THREADS = 8 };

static void *count_main(void *arg)
{
    size_t *out = arg;
    *out = em_registry_count();
    return NULL;
}

/* Runs first in this executable: the threads race on the registry's construction. */
static void test_concurrent_init(void **state)
{
    (void)state;
    pthread_t t[N_THREADS];
    size_t got[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, count_main, &got[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
    }
    size_t n = em_registry_count();
    assert_true(n > 0);
    for (int i = 0; i < N_THREADS; i++) {
        assert_true(got[i] == n);
    }
    em_registry_init(); /* idempotent */
    assert_true(em_registry_count() == n);
}

/* ---- the table as a whole ----------------------------------------------------------------------
 */

static void test_entries_well_formed(void **state)
{
    (void)state;
    size_t n = em_registry_count();
    assert_true(n <= MAX_K);
    assert_null(em_registry_at(n));
    assert_null(em_registry_at((size_t)-1));
    for (size_t i = 0; i < n; i++) {
        const em_kernel *k = em_registry_at(i);
        assert_non_null(k);
        assert_non_null(k->name);
        assert_non_null(k->run);
        assert_true((unsigned)k->op < EM_OP_COUNT);
        assert_true(k->device == EM_DEV_CPU || k->device == EM_DEV_CUDA);
        assert_true(strncmp(k->name, "em_", 3) == 0);
        assert_non_null(strstr(k->name, "__")); /* em_<op>_<sig>[_<variant>]__<isa> */
        /* The table order is (op ascending, priority descending). */
        if (i > 0) {
            const em_kernel *p = em_registry_at(i - 1);
            assert_true(p->op < k->op || (p->op == k->op && p->priority >= k->priority));
        }
        /* No key repeats: the choice between two such entries would be arbitrary. */
        for (size_t j = 0; j < i; j++) {
            const em_kernel *o = em_registry_at(j);
            if (o->op == k->op && o->dtype == k->dtype && o->device == k->device &&
                o->isa == k->isa && o->priority == k->priority) {
                fail_msg("kernels '%s' and '%s' share (op, dtype, device, isa, priority)", o->name,
                         k->name);
            }
        }
    }
    const char *b = em_registry_backends();
    assert_non_null(b);
    assert_true(strncmp(b, "ref", 3) == 0); /* the reference table is always first */
}

/* Every op in ops.def has a portable CPU reference kernel for f32 (or any dtype; for strings
 * when the op takes only strings, as the text family's), except the ops the interpreter runs
 * itself (EM_OPF_INTERP: control flow, sequences), which have none. */
static void test_every_op_has_reference_kernel(void **state)
{
    (void)state;
    for (int op = 0; op < EM_OP_COUNT; op++) {
        bool found = false;
        ember_dtype dt = EMBER_DTYPE_F32;
        if (em_op_info_of((em_op)op)->flags & EM_OPF_INTERP) {
            continue;
        }
        for (int pass = 0; pass < 2 && !found; pass++) {
            dt = pass == 0 ? EMBER_DTYPE_F32 : EMBER_DTYPE_STRING;
            for (size_t i = 0; i < em_registry_count(); i++) {
                const em_kernel *k = em_registry_at(i);
                if ((int)k->op == op && k->isa == 0 && k->device == EM_DEV_CPU &&
                    (k->dtype == dt || k->dtype == EMBER_DTYPE_UNDEFINED) &&
                    ends_with(k->name, "__ref")) {
                    found = true;
                }
            }
        }
        if (!found) {
            fail_msg("op %s has no portable f32 reference kernel", em_op_name((em_op)op));
        }
        /* ... and the planner's lookup with no ISA at all finds one. */
        const em_kernel *cand[MAX_K];
        size_t nc = em_registry_find((em_op)op, dt, EM_DEV_CPU, 0, cand, MAX_K);
        assert_true(nc >= 1);
    }
}

/* Portable entries are reference kernels, named "__ref", unless they come from an adapter
 * backend, named after it ("__openblas"): names end in the ISA or backend they need. */
static void test_portable_names(void **state)
{
    (void)state;
    char backends[256];
    snprintf(backends, sizeof backends, "%s", em_registry_backends());
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        if (k->isa != 0 || k->device != EM_DEV_CPU) {
            continue;
        }
        if (ends_with(k->name, "__ref")) {
            assert_int_equal(k->priority, 0); /* reference kernels are priority 0 */
            continue;
        }
        const char *suffix = strrchr(k->name, '_'); /* "_openblas" of "__openblas" */
        bool adapter = false;
        if (suffix != NULL && strcmp(suffix + 1, "ref") != 0 && strcmp(suffix + 1, "x86") != 0) {
            char list[260];
            snprintf(list, sizeof list, ",%s,", backends);
            char item[64];
            snprintf(item, sizeof item, ",%s,", suffix + 1);
            adapter = strstr(list, item) != NULL;
        }
        if (!adapter) {
            fail_msg("portable kernel '%s' does not end in \"__ref\" or an adapter's name (%s)",
                     k->name, backends);
        }
    }
}

/* ---- em_registry_find against an independent filter
 * ----------------------------------------------- */

static void check_find(em_op op, ember_dtype dt, em_device dev, uint64_t isa)
{
    const em_kernel *got[MAX_K];
    size_t n = em_registry_find(op, dt, dev, isa, got, MAX_K);
    /* Expected: every registered entry that matches, counted independently. */
    size_t want = 0;
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        bool match = k->op == op && k->device == dev && (k->isa & isa) == k->isa &&
                     (k->dtype == dt || k->dtype == EMBER_DTYPE_UNDEFINED);
        if (!match) {
            continue;
        }
        want++;
        bool listed = false;
        for (size_t j = 0; j < n; j++) {
            listed |= got[j] == k;
        }
        if (!listed) {
            fail_msg("find(%s, %s, isa %#llx) misses '%s'", em_op_name(op), em_dtype_name(dt),
                     (unsigned long long)isa, k->name);
        }
    }
    assert_int_equal(n, want);
    for (size_t j = 0; j < n; j++) {
        const em_kernel *k = got[j];
        assert_int_equal(k->op, op);
        assert_int_equal(k->device, dev);
        assert_true((k->isa & ~isa) == 0);
        assert_true(k->dtype == dt || k->dtype == EMBER_DTYPE_UNDEFINED);
        if (isa == 0) {
            assert_true(k->isa == 0);
        }
        if (j > 0 && got[j - 1]->priority < k->priority) {
            fail_msg("find(%s): '%s' (priority %d) before '%s' (priority %d)", em_op_name(op),
                     got[j - 1]->name, got[j - 1]->priority, k->name, k->priority);
        }
        if (j > 0 && got[j - 1]->priority == k->priority &&
            got[j - 1]->dtype == EMBER_DTYPE_UNDEFINED && k->dtype != EMBER_DTYPE_UNDEFINED) {
            fail_msg("find(%s): any-dtype '%s' before '%s' of the same priority", em_op_name(op),
                     got[j - 1]->name, k->name);
        }
    }
    /* cap truncates to the best entries, in the same order. */
    for (size_t cap = 0; cap <= n; cap++) {
        const em_kernel *few[MAX_K];
        size_t m = em_registry_find(op, dt, dev, isa, few, cap);
        assert_int_equal(m, cap);
        for (size_t j = 0; j < m; j++) {
            assert_ptr_equal(few[j], got[j]);
        }
    }
}

static void test_find_filters(void **state)
{
    (void)state;
    static const ember_dtype dts[] = {EMBER_DTYPE_F32,      EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                      EMBER_DTYPE_I64,      EMBER_DTYPE_U8,  EMBER_DTYPE_F16,
                                      EMBER_DTYPE_STRING,   EMBER_DTYPE_BOOL,
                                      EMBER_DTYPE_UNDEFINED};
    const uint64_t isas[] = {0,
                             EM_ISA_SSE42 | EM_ISA_AVX2_SET,
                             EM_ISA_AVX2_SET & ~(uint64_t)EM_ISA_FMA, /* AVX2 without FMA */
                             EM_ISA_AVX512_SET,
                             EM_ISA_NEON | EM_ISA_NEON_DOTPROD,
                             em_cpu_features(),
                             UINT64_MAX};
    for (int op = 0; op < EM_OP_COUNT; op++) {
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
            for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
                check_find((em_op)op, dts[d], EM_DEV_CPU, isas[i]);
                check_find((em_op)op, dts[d], EM_DEV_CUDA, isas[i]);
            }
        }
    }
    /* An op id outside ops.def finds nothing. */
    const em_kernel *got[4];
    assert_int_equal(
        em_registry_find((em_op)EM_OP_COUNT, EMBER_DTYPE_F32, EM_DEV_CPU, UINT64_MAX, got, 4), 0);
}

/* Concrete expectations from the reference list (kernels/ref/kernels.def). */
static void test_find_examples(void **state)
{
    (void)state;
    const em_kernel *got[MAX_K];
    /* With isa 0, Relu f32 is exactly the reference kernel. */
    size_t n = em_registry_find(EM_OP_RELU, EMBER_DTYPE_F32, EM_DEV_CPU, 0, got, MAX_K);
    assert_int_equal(n, 1);
    assert_string_equal(got[0]->name, "em_relu_f32__ref");
    /* Relu has no i64 kernel; Add has one. */
    assert_int_equal(
        em_registry_find(EM_OP_RELU, EMBER_DTYPE_I64, EM_DEV_CPU, UINT64_MAX, got, MAX_K), 0);
    n = em_registry_find(EM_OP_ADD, EMBER_DTYPE_I64, EM_DEV_CPU, 0, got, MAX_K);
    assert_int_equal(n, 1);
    assert_string_equal(got[0]->name, "em_add_i64__ref");
    /* UNDEFINED-dtype kernels (the views) match every dtype. */
    static const ember_dtype any[] = {EMBER_DTYPE_F32, EMBER_DTYPE_I8, EMBER_DTYPE_BOOL,
                                      EMBER_DTYPE_BF16, EMBER_DTYPE_U64};
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++) {
        n = em_registry_find(EM_OP_RESHAPE, any[i], EM_DEV_CPU, 0, got, MAX_K);
        assert_int_equal(n, 1);
        assert_string_equal(got[0]->name, "em_reshape__ref");
        n = em_registry_find(EM_OP_FLATTEN, any[i], EM_DEV_CPU, 0, got, MAX_K);
        assert_int_equal(n, 1);
        assert_string_equal(got[0]->name, "em_flatten__ref");
    }
    /* With every ISA, the reference kernel is still listed, and last (priority 0 is the
     * lowest). */
    n = em_registry_find(EM_OP_RELU, EMBER_DTYPE_F32, EM_DEV_CPU, UINT64_MAX, got, MAX_K);
    assert_true(n >= 1);
    assert_string_equal(got[n - 1]->name, "em_relu_f32__ref");
}

/* ---- ISA caps as the planner applies them
 * ----------------------------------------------------------- */

static void test_isa_caps_filter(void **state)
{
    (void)state;
    uint64_t scalar = 1, avx2 = 0, avx512 = 0, native = 0;
    assert_true(em_isa_cap_parse("scalar", &scalar));
    assert_true(em_isa_cap_parse("AVX2", &avx2));
    assert_true(em_isa_cap_parse("avx512", &avx512));
    assert_true(em_isa_cap_parse("native", &native));
    assert_true(scalar == 0);
    assert_true((avx2 & EM_ISA_AVX2_SET) == EM_ISA_AVX2_SET);
    assert_true((avx2 & EM_ISA_AVX512F) == 0);
    assert_true((avx512 & avx2) == avx2); /* caps are nested */
    assert_true((avx512 & EM_ISA_AVX512_SET) == EM_ISA_AVX512_SET);
    assert_true(native == UINT64_MAX);
    uint64_t untouched = 42;
    assert_false(em_isa_cap_parse("pentium", &untouched));
    assert_true(untouched == 42);

    /* A cap limits what the registry offers: nothing above avx2 under the avx2 cap. */
    const em_kernel *got[MAX_K];
    for (int op = 0; op < EM_OP_COUNT; op++) {
        size_t n = em_registry_find((em_op)op, EMBER_DTYPE_F32, EM_DEV_CPU, avx2, got, MAX_K);
        for (size_t j = 0; j < n; j++) {
            assert_true((got[j]->isa & EM_ISA_AVX512F) == 0);
            assert_true((got[j]->isa & ~avx2) == 0);
        }
        n = em_registry_find((em_op)op, EMBER_DTYPE_F32, EM_DEV_CPU, scalar, got, MAX_K);
        for (size_t j = 0; j < n; j++) {
            assert_true(got[j]->isa == 0);
        }
    }

    char buf[256];
    assert_string_equal(em_isa_list(0, buf, sizeof buf), "scalar");
    assert_string_equal(em_isa_list(EM_ISA_AVX2 | EM_ISA_FMA, buf, sizeof buf), "avx2,fma");
    /* Every kernel's requirement prints as a list of known names. */
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        em_isa_list(k->isa, buf, sizeof buf);
        assert_true(strlen(buf) > 0);
        if (k->isa == 0) {
            assert_string_equal(buf, "scalar");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_init),
        cmocka_unit_test(test_entries_well_formed),
        cmocka_unit_test(test_every_op_has_reference_kernel),
        cmocka_unit_test(test_portable_names),
        cmocka_unit_test(test_find_filters),
        cmocka_unit_test(test_find_examples),
        cmocka_unit_test(test_isa_caps_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
