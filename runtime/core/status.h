/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Status objects: NULL means success; otherwise a code and a message. Statuses are allocated
 * with libc so that they can be destroyed without an allocator. Out of memory returns one
 * static, preallocated status that ember_status_destroy() ignores, so OOM never allocates.
 */
#ifndef EMBER_CORE_STATUS_H
#define EMBER_CORE_STATUS_H

#include "ember.h"

#include <stdarg.h>

ember_status *em_status_new(ember_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
ember_status *em_status_vnew(ember_code code, const char *fmt, va_list ap);
ember_status *em_status_oom(void);
/* Returns a new status: "<prefix>: <st's message>" with st's code, and destroys `st`. */
ember_status *em_status_wrap(ember_status *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Evaluates `expr`; on failure stores it in the local `st` and jumps to `fail`. */
#define EMBER_TRY(expr)             \
    do {                            \
        st = (expr);                \
        if (st != NULL) goto fail;  \
    } while (0)

/* Evaluates `expr`; returns its status from the calling function when it fails. */
#define EM_RETURN_IF_ERROR(expr)            \
    do {                                    \
        ember_status *em_st_ = (expr);      \
        if (em_st_ != NULL) {               \
            return em_st_;                  \
        }                                   \
    } while (0)

/* Invariant checks, on in every build: a failed one is a bug in ember and aborts. */
void em_assert_fail(const char *expr, const char *file, int line);
#define EMBER_ASSERT(x) ((x) ? (void)0 : em_assert_fail(#x, __FILE__, __LINE__))

#endif /* EMBER_CORE_STATUS_H */
