/* SPDX-License-Identifier: Apache-2.0 */
/* Status objects. The OOM status is a static object so that reporting OOM never allocates. */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ember_status {
    ember_code code;
    char msg[];
};

static const struct {
    ember_code code;
    char msg[32];
} oom_status = {EMBER_ERR_OUT_OF_MEMORY, "out of memory"};

ember_status *em_status_oom(void) { return (ember_status *)(void *)&oom_status; }

ember_status *em_status_vnew(ember_code code, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) {
        n = 0;
    }
    ember_status *st = malloc(sizeof *st + (size_t)n + 1);
    if (st == NULL) {
        va_end(ap2);
        return em_status_oom();
    }
    st->code = code;
    vsnprintf(st->msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return st;
}

ember_status *em_status_new(ember_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ember_status *st = em_status_vnew(code, fmt, ap);
    va_end(ap);
    return st;
}

ember_status *em_status_wrap(ember_status *st, const char *fmt, ...)
{
    if (st == NULL || st == em_status_oom()) {
        return st;
    }
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    ember_status *w = em_status_new(st->code, "%s: %s", prefix, st->msg);
    ember_status_destroy(st);
    return w;
}

ember_code ember_status_code(const ember_status *st) { return st == NULL ? EMBER_OK : st->code; }

const char *ember_status_message(const ember_status *st) { return st == NULL ? "ok" : st->msg; }

void ember_status_destroy(ember_status *st)
{
    if (st == NULL || st == em_status_oom()) {
        return;
    }
    free(st);
}

const char *ember_code_name(ember_code code)
{
    switch (code) {
    case EMBER_OK: return "OK";
    case EMBER_ERR_INVALID_ARG: return "INVALID_ARG";
    case EMBER_ERR_INVALID_MODEL: return "INVALID_MODEL";
    case EMBER_ERR_UNSUPPORTED: return "UNSUPPORTED";
    case EMBER_ERR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case EMBER_ERR_IO: return "IO";
    case EMBER_ERR_DEVICE: return "DEVICE";
    case EMBER_ERR_STATE: return "STATE";
    case EMBER_ERR_INTERNAL: return "INTERNAL";
    }
    return "UNKNOWN";
}

void em_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "ember: internal error: assertion '%s' failed at %s:%d\n", expr, file, line);
    abort();
}
