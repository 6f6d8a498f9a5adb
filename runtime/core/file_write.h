/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Files written whole or not at all: bytes go to a temporary file beside the target
 * ("<path>.<pid>.<n>.tmp", created exclusively), which is renamed over `path` only when every
 * write and the close succeeded; on any failure (or em_afile_abort) the temporary file is
 * removed, so a reader never sees a half-written model or array. A path that exists and is
 * not a regular file (/dev/stdout, a pipe) is written in place.
 * Threads: one em_afile per thread; several may write different paths concurrently.
 */
#ifndef EMBER_CORE_FILE_WRITE_H
#define EMBER_CORE_FILE_WRITE_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct em_afile {
    FILE *f;
    char *path; /* the target (copied) */
    char *tmp;  /* the temporary file */
    int err;    /* errno of the first failed write, or -1 for a short write */
    uint64_t written;
} em_afile;

/* Creates the temporary file for `path`. IO naming `path` when it cannot be created (a
 * missing folder, no permission). */
ember_status *em_afile_open(const char *path, em_afile *a);
/* Appends n bytes; failures are remembered and reported by em_afile_commit. */
void em_afile_write(em_afile *a, const void *data, size_t n);
/* Closes, then renames the temporary file over the target; on failure removes it and returns
 * IO naming the target. Frees `a`'s names either way. */
ember_status *em_afile_commit(em_afile *a);
/* Closes and removes the temporary file (a no-op on a zeroed em_afile). */
void em_afile_abort(em_afile *a);

/* The whole of data[0..n) to `path` through em_afile. */
ember_status *em_write_file_atomic(const char *path, const void *data, size_t n);

#endif /* EMBER_CORE_FILE_WRITE_H */
