/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The loader table: every loaders/<format>/ entry (ir/loader.h), in the order formats are
 * asked whether a file is theirs. Adding a format is one line in loaders.c.
 */
#ifndef EMBER_API_LOADERS_H
#define EMBER_API_LOADERS_H

#include "ir/loader.h"

#include <stddef.h>

/* The entry whose sniff accepts the image's first n bytes, or NULL. */
const em_loader *em_loader_for(const unsigned char *head, size_t n);
/* The entry named `name` ("onnx"), or NULL. */
const em_loader *em_loader_named(const char *name);
/* Writes the names of the loaders this build can run ("onnx,torchscript"), comma-separated,
 * after `first` (NULL: none), into buf; always NUL-terminated. Returns buf. */
const char *em_loader_list(const char *first, char *buf, size_t cap);
/* Writes what the formats ember knows are, built or not ("a TorchScript archive or an ONNX
 * model"), for the message about a file of none of them. Returns buf. */
const char *em_loader_kinds(char *buf, size_t cap);

#endif /* EMBER_API_LOADERS_H */
