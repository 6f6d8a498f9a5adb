/* SPDX-License-Identifier: Apache-2.0 */
/* The loader table (loaders.h): the one place that names the formats. */
#include "api/loaders.h"

#include <stdio.h>
#include <string.h>

extern const em_loader em_loader_onnx;        /* loaders/onnx/onnx_entry.c */
extern const em_loader em_loader_pt2;         /* loaders/pt2/pt2_entry.c (a zip: before TorchScript) */
extern const em_loader em_loader_torchscript; /* loaders/torchscript/ts_entry.c */
extern const em_loader em_loader_torch_save;  /* loaders/torchscript/ts_entry.c */

static const em_loader *const table[] = {
    &em_loader_pt2,
    &em_loader_torchscript,
    &em_loader_torch_save,
    &em_loader_onnx,
};

const em_loader *em_loader_for(const unsigned char *head, size_t n)
{
    for (size_t i = 0; n > 0 && i < sizeof table / sizeof table[0]; i++) {
        if (table[i]->sniff(head, n)) {
            return table[i];
        }
    }
    return NULL;
}

const em_loader *em_loader_named(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i]->name, name) == 0) {
            return table[i];
        }
    }
    return NULL;
}

/* Joins, after `first`, the name (or kind) of every entry that is a format of its own and, with
 * built_only, whose loader this build has. */
static const char *join(const char *first, const char *sep, bool built_only, bool kind, char *buf,
                        size_t cap)
{
    size_t len = 0;
    if (cap == 0) {
        return buf;
    }
    buf[0] = '\0';
    if (first != NULL) {
        len = (size_t)snprintf(buf, cap, "%s", first);
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0] && len < cap; i++) {
        if (table[i]->refuses || (built_only && table[i]->load == NULL)) {
            continue;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", len > 0 ? sep : "",
                                kind ? table[i]->kind : table[i]->name);
    }
    return buf;
}

const char *em_loader_list(const char *first, char *buf, size_t cap)
{
    return join(first, ",", true, false, buf, cap);
}

const char *em_loader_kinds(char *buf, size_t cap)
{
    return join(NULL, " or ", false, true, buf, cap);
}
