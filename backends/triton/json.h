/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small JSON reader for the Triton backend: Triton hands the model configuration
 * (config.pbtxt) to the backend as JSON (TRITONBACKEND_ModelConfig). The whole document is
 * parsed into a tree; strings are unescaped (\uXXXX to UTF-8, surrogate pairs joined).
 * The backend links only ember's public library, so it cannot use the loaders' internal reader.
 */
#ifndef EMBER_TRITON_JSON_H
#define EMBER_TRITON_JSON_H

#include <stdbool.h>
#include <stddef.h>

typedef enum em_tj_kind {
    EM_TJ_NULL,
    EM_TJ_BOOL,
    EM_TJ_NUMBER,
    EM_TJ_STRING,
    EM_TJ_ARRAY,
    EM_TJ_OBJECT
} em_tj_kind;

typedef struct em_tj em_tj;
struct em_tj {
    em_tj_kind kind;
    bool boolean;
    double number;
    char *string; /* EM_TJ_STRING */
    size_t count; /* items of an array or object */
    char **keys;  /* EM_TJ_OBJECT: one key per item */
    em_tj *items;
};

/* Parses `len` bytes; NULL on error with a one-line reason (offset included) in `err`. */
em_tj *em_tj_parse(const char *text, size_t len, char *err, size_t err_size);
void em_tj_free(em_tj *v);
/* The member `key` of an object (NULL when `v` is not an object or has no such member). */
const em_tj *em_tj_get(const em_tj *v, const char *key);

#endif
