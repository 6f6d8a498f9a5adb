/* SPDX-License-Identifier: Apache-2.0 */
/* Files written whole or not at all: see file_write.h. */
#define _POSIX_C_SOURCE 200809L
#include "core/file_write.h"

#include "core/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ember_status *em_afile_open(const char *path, em_afile *a)
{
    *a = (em_afile){0};
    if (path == NULL || path[0] == '\0') {
        return em_status_new(EMBER_ERR_INVALID_ARG, "cannot write a file with an empty path");
    }
    size_t n = strlen(path);
    a->path = malloc(n + 1);
    a->tmp = malloc(n + 64);
    if (a->path == NULL || a->tmp == NULL) {
        em_afile_abort(a);
        return em_status_oom();
    }
    memcpy(a->path, path, n + 1);
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        /* A device or a pipe (/dev/stdout, /dev/null): written in place, never renamed over. */
        free(a->tmp);
        a->tmp = NULL;
        a->f = fopen(path, "wb");
        if (a->f != NULL) {
            return NULL;
        }
        ember_status *st = em_status_new(EMBER_ERR_IO, "%s: cannot open for writing: %s", path,
                                         strerror(errno));
        em_afile_abort(a);
        return st;
    }
    /* The struct's address tells apart concurrent writers of one process; O_EXCL the rest. */
    for (unsigned k = 0;; k++) {
        snprintf(a->tmp, n + 64, "%s.%ld.%lx%u.tmp", path, (long)getpid(),
                 (unsigned long)((uintptr_t)a >> 4 & 0xfffff), k);
        int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            a->f = fdopen(fd, "wb");
            if (a->f == NULL) {
                close(fd);
                unlink(a->tmp);
                break;
            }
            return NULL;
        }
        if (errno != EEXIST || k >= 100) {
            break;
        }
    }
    int e = errno;
    free(a->tmp);
    a->tmp = NULL; /* nothing to remove */
    ember_status *st = em_status_new(EMBER_ERR_IO, "%s: cannot create the file: %s", path,
                                     strerror(e));
    em_afile_abort(a);
    return st;
}

void em_afile_write(em_afile *a, const void *data, size_t n)
{
    if (a->f == NULL || a->err != 0 || n == 0) {
        return;
    }
    if (fwrite(data, 1, n, a->f) != n) {
        a->err = errno != 0 ? errno : -1;
        return;
    }
    a->written += n;
}

ember_status *em_afile_commit(em_afile *a)
{
    ember_status *st = NULL;
    if (a->f == NULL) {
        st = em_status_new(EMBER_ERR_IO, "%s: not open for writing", a->path ? a->path : "?");
    } else {
        if (fflush(a->f) != 0 && a->err == 0) {
            a->err = errno;
        }
        if (fclose(a->f) != 0 && a->err == 0) {
            a->err = errno;
        }
        a->f = NULL;
        if (a->err != 0) {
            st = em_status_new(EMBER_ERR_IO, "%s: write failed: %s", a->path,
                               a->err > 0 ? strerror(a->err) : "short write");
        } else if (a->tmp != NULL && rename(a->tmp, a->path) != 0) {
            st = em_status_new(EMBER_ERR_IO, "%s: cannot rename the written file into place: %s",
                               a->path, strerror(errno));
        } else {
            free(a->tmp);
            a->tmp = NULL; /* renamed: nothing to remove */
        }
    }
    em_afile_abort(a);
    return st;
}

void em_afile_abort(em_afile *a)
{
    if (a->f != NULL) {
        fclose(a->f);
    }
    if (a->tmp != NULL) {
        unlink(a->tmp);
    }
    free(a->tmp);
    free(a->path);
    *a = (em_afile){0};
}

ember_status *em_write_file_atomic(const char *path, const void *data, size_t n)
{
    em_afile a;
    ember_status *st = em_afile_open(path, &a);
    if (st != NULL) {
        return st;
    }
    em_afile_write(&a, data, n);
    return em_afile_commit(&a);
}
