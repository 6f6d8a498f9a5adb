/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loading an optional library at first use (cuBLAS, OpenBLAS): header-only, so only the units
 * that dlopen need the dl library. Threads: call it under the caller's pthread_once.
 */
#ifndef EMBER_CORE_DL_UTIL_H
#define EMBER_CORE_DL_UTIL_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* The first of names[0..n) that dlopen loads (RTLD_NOW | RTLD_LOCAL), or NULL with
 * "cannot load <names[0]>: <why>" in err. The handle stays open for the process's life. */
static inline void *em_dlopen_first(const char *const *names, size_t n, char *err, size_t cap)
{
    void *h = NULL;
    for (size_t i = 0; h == NULL && i < n; i++) {
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (h == NULL) {
        const char *why = dlerror();
        snprintf(err, cap, "cannot load %s: %s", names[0], why != NULL ? why : "unknown error");
    }
    return h;
}

#endif
