/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The torch.export loader's entry in the loader table, built in every configuration. A `.pt2`
 * is a zip like a TorchScript archive, so its sniff reads the zip's central directory (end
 * record, ZIP64 locator when the classic fields overflow) and looks for the records that only
 * torch.export writes: "<root>/archive_format" (torch 2.8+) or
 * "serialized_exported_program.json" (2.1-2.7). The loader table asks it before TorchScript.
 * Every read is bounds-checked: any bytes give NONE or a layout, never a read past n.
 */
#include "pt2.h"

#include "core/status.h"

#include <stdint.h>
#include <string.h>

static uint64_t rd(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; k--) {
        v = (v << 8) | p[k];
    }
    return v;
}

static bool ends_with(const unsigned char *name, size_t len, const char *tail, bool own_segment)
{
    size_t t = strlen(tail);
    if (len < t || memcmp(name + len - t, tail, t) != 0) {
        return false;
    }
    return !own_segment || len == t || name[len - t - 1] == '/';
}

/* Where the central directory starts and how many entries it has; false when not found. */
static bool find_directory(const unsigned char *d, size_t n, uint64_t *off, uint64_t *count)
{
    if (n < 22) {
        return false;
    }
    size_t lowest = n - 22 > 65535 ? n - 22 - 65535 : 0;
    for (size_t e = n - 22 + 1; e-- > lowest;) {
        if (memcmp(d + e, "PK\005\006", 4) != 0) {
            continue;
        }
        *count = rd(d + e + 10, 2);
        *off = rd(d + e + 16, 4);
        if (*count != 0xFFFF && *off != 0xFFFFFFFFu) {
            return true;
        }
        /* ZIP64: the locator sits just before the end record and points at the ZIP64 one. */
        if (e < 20 || memcmp(d + e - 20, "PK\006\007", 4) != 0) {
            return false;
        }
        uint64_t z = rd(d + e - 20 + 8, 8);
        if (z > n || n - z < 56 || memcmp(d + z, "PK\006\006", 4) != 0) {
            return false;
        }
        *count = rd(d + z + 32, 8);
        *off = rd(d + z + 48, 8);
        return true;
    }
    return false;
}

em_pt2_layout em_pt2_layout_of(const unsigned char *d, size_t n)
{
    uint64_t off = 0, count = 0;
    if (n < 4 || memcmp(d, "PK\003\004", 4) != 0 || !find_directory(d, n, &off, &count)) {
        return EM_PT2_NONE;
    }
    em_pt2_layout found = EM_PT2_NONE;
    for (uint64_t i = 0; i < count && off <= n && n - off >= 46; i++) {
        const unsigned char *h = d + off;
        if (memcmp(h, "PK\001\002", 4) != 0) {
            break;
        }
        size_t name_len = (size_t)rd(h + 28, 2);
        uint64_t step = 46 + name_len + rd(h + 30, 2) + rd(h + 32, 2);
        if (n - off < 46 + name_len) {
            break;
        }
        const unsigned char *name = h + 46;
        if (ends_with(name, name_len, "archive_format", true)) {
            return EM_PT2_PACKAGE;
        }
        if (ends_with(name, name_len, "serialized_exported_program.json", true)) {
            found = EM_PT2_FLAT;
        }
        off += step;
    }
    return found;
}

static bool pt2_sniff(const unsigned char *d, size_t n)
{
    return em_pt2_layout_of(d, n) != EM_PT2_NONE;
}

#ifdef EMBER_HAVE_PT2
static ember_status *pt2_entry_load(const em_load_args *a, em_graph *g, em_load_info *info)
{
    (void)info;
    return em_pt2_load(a, g);
}
#define PT2_LOAD pt2_entry_load
#else
#define PT2_LOAD NULL
#endif

const em_loader em_loader_pt2 = {
    "pt2", "a torch.export archive (.pt2)",
    "configured with EMBER_WITH_PT2=OFF or without libzip", false, pt2_sniff, PT2_LOAD, NULL,
    NULL, NULL,
};
