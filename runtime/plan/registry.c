/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel registry: built once from the compiled-in tables into one array sorted by
 * (op, priority descending; at equal priority an entry for one dtype comes before an any-dtype
 * entry, so the text family's string Cast rows are tried before the generic Cast). Lookups
 * scan the op's range. It is read-only after initialisation, which pthread_once makes
 * thread-safe; it is the registry's own state.
 */
#define _POSIX_C_SOURCE 200809L
#include "plan/kernel.h"

#include "plan/backends.h"
#include "core/status.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KERNELS 4096

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static const em_kernel *reg[MAX_KERNELS];
static size_t reg_n;
static size_t op_begin[EM_OP_COUNT + 1];
static char backends[256];

static int cmp_kernel(const void *a, const void *b)
{
    const em_kernel *x = *(const em_kernel *const *)a, *y = *(const em_kernel *const *)b;
    if (x->op != y->op) {
        return x->op < y->op ? -1 : 1;
    }
    if (x->priority != y->priority) {
        return x->priority > y->priority ? -1 : 1;
    }
    if ((x->dtype == EMBER_DTYPE_UNDEFINED) != (y->dtype == EMBER_DTYPE_UNDEFINED)) {
        return x->dtype == EMBER_DTYPE_UNDEFINED ? 1 : -1; /* an exact dtype before "any" */
    }
    return strcmp(x->name, y->name);
}

static void registry_build(void)
{
    const em_kernel_table *const *t = em_backend_tables();
    size_t len = 0;
    for (; *t != NULL; t++) {
        if ((*t)->init != NULL) {
            (*t)->init();
        }
        len += (size_t)snprintf(backends + len, sizeof backends - len, len ? ",%s" : "%s",
                                (*t)->name);
        if (len >= sizeof backends) {
            len = sizeof backends - 1;
        }
        for (size_t i = 0; i < (*t)->n; i++) {
            EMBER_ASSERT(reg_n < MAX_KERNELS);
            EMBER_ASSERT((unsigned)(*t)->kernels[i].op < EM_OP_COUNT);
            reg[reg_n++] = &(*t)->kernels[i];
        }
    }
    qsort(reg, reg_n, sizeof reg[0], cmp_kernel);
    /* No (op, dtype, device, isa, priority) key may repeat: the choice would be arbitrary. */
    for (size_t i = 1; i < reg_n; i++) {
        const em_kernel *a = reg[i - 1], *b = reg[i];
        EMBER_ASSERT(!(a->op == b->op && a->dtype == b->dtype && a->device == b->device &&
                       a->isa == b->isa && a->priority == b->priority));
    }
    size_t k = 0;
    for (int op = 0; op <= EM_OP_COUNT; op++) {
        while (k < reg_n && (int)reg[k]->op < op) {
            k++;
        }
        op_begin[op] = k;
    }
}

void em_registry_init(void) { pthread_once(&reg_once, registry_build); }

size_t em_registry_find(em_op op, ember_dtype dt, em_device dev, uint64_t isa,
                        const em_kernel **out, size_t cap)
{
    em_registry_init();
    size_t n = 0;
    if ((unsigned)op >= EM_OP_COUNT) {
        return 0;
    }
    for (size_t i = op_begin[op]; i < op_begin[op + 1] && n < cap; i++) {
        const em_kernel *k = reg[i];
        if (k->device != dev || (k->isa & ~isa) != 0) {
            continue;
        }
        if (k->dtype != EMBER_DTYPE_UNDEFINED && k->dtype != dt) {
            continue;
        }
        out[n++] = k;
    }
    return n;
}

size_t em_registry_count(void)
{
    em_registry_init();
    return reg_n;
}

const em_kernel *em_registry_at(size_t i)
{
    em_registry_init();
    return i < reg_n ? reg[i] : NULL;
}

const char *em_registry_backends(void)
{
    em_registry_init();
    return backends;
}
