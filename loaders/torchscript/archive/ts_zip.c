/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zip layer of TorchScript archives (ts_zip.h). libzip opens the image (with
 * ZIP_CHECKCONS: it compares every local header with its directory entry) and inflates
 * deflated records. libzip does not publish where a record's payload starts, so this file
 * also walks the end-of-directory records (ZIP64 included) and the central directory itself,
 * requires its reading to agree with libzip's entry by entry (names, sizes, methods), and
 * reads each record's local header to find the payload. Invariants after open: every record
 * is a file under the root folder with a safe name, unique; its payload [payload,
 * payload + comp) lies before the central directory; no two records' [local header, payload
 * end) extents overlap; stored records have comp == size. A record's CRC-32 is checked when
 * it is read (em_ts_zip_read), not at open: inflated ones by libzip, stored ones here with
 * the fastest CRC the CPU allows (core/crc32.h, bound at open).
 * Thread safety: libzip handles are not reentrant, so inflating takes a spin lock (C11
 * atomic_flag; inflates are rare and short: code files of a few KB).
 */
#include "ts_zip.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/crc32.h"
#include "core/status.h"

enum {
    SIG_LOCAL = 0x04034b50,
    SIG_CENTRAL = 0x02014b50,
    SIG_EOCD = 0x06054b50,
    SIG_EOCD64 = 0x06064b50,
    SIG_LOCATOR64 = 0x07064b50,
    LOCAL_SIZE = 30,
    CENTRAL_SIZE = 46,
    EOCD_SIZE = 22,
    EOCD64_SIZE = 56,
    LOCATOR64_SIZE = 20,
    FLAG_ENCRYPTED = 0x0001,
    FLAG_DESCRIPTOR = 0x0008,
    FLAG_STRONG = 0x0040,
    METHOD_STORED = 0,
    METHOD_DEFLATE = 8
};

/* Deflate cannot expand data by more than 1032:1; a claim beyond this is a lie. */
#define MAX_DEFLATE_RATIO 1100

typedef struct ts_rec {
    const char *name;   /* full name in the archive, NUL-terminated (in names) */
    const char *sub;    /* the name below the root */
    uint64_t index;     /* libzip's entry index */
    uint64_t local;     /* local header offset */
    uint64_t central;   /* central directory entry offset */
    uint64_t payload;   /* payload offset */
    uint64_t comp, size;
    uint32_t crc;       /* the central directory's CRC-32 */
    uint16_t method, flags;
} ts_rec;

struct em_ts_zip {
    const ember_allocator *al;
    em_storage *image;
    char *what;
    zip_t *za;
    atomic_flag lock;
    em_crc32_fn crc32;
    char *root;       /* "" for a flat archive (EM_TS_ZIP_FLAT) */
    bool flat;
    int64_t version;
    ts_rec *recs;     /* archive order, directories left out */
    const ts_rec **by_name; /* recs sorted by sub name */
    size_t n;
    char *names;
};

/* ---- little-endian reads ----------------------------------------------------------------- */

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static ember_status *bad(const em_ts_zip *z, const char *fmt, const char *detail)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: %s%s", z->what, fmt,
                         detail != NULL ? detail : "");
}

/* ---- end of central directory --------------------------------------------------------- */

typedef struct cdir {
    uint64_t offset, size, n;
} cdir;

/* Finds the directory through the EOCD record (the last one, ending exactly at the end of
 * the file) and, when its ZIP64 locator precedes it, the ZIP64 EOCD record. */
static ember_status *find_cdir(const em_ts_zip *z, const unsigned char *b, size_t size,
                               cdir *cd)
{
    size_t pos = SIZE_MAX;
    if (size >= EOCD_SIZE) {
        size_t lo = size - EOCD_SIZE > 0xffff ? size - EOCD_SIZE - 0xffff : 0;
        for (size_t p = size - EOCD_SIZE + 1; p-- > lo;) {
            if (rd32(b + p) == SIG_EOCD && p + EOCD_SIZE + rd16(b + p + 20) == size) {
                pos = p;
                break;
            }
        }
    }
    if (pos == SIZE_MAX) {
        return bad(z, "no end of central directory record", NULL);
    }
    const unsigned char *e = b + pos;
    if (rd16(e + 4) != 0 || rd16(e + 6) != 0) {
        return bad(z, "multi-disk archives are not read", NULL);
    }
    cd->n = rd16(e + 10);
    cd->size = rd32(e + 12);
    cd->offset = rd32(e + 16);
    size_t end = pos;
    if (pos >= LOCATOR64_SIZE && rd32(b + pos - LOCATOR64_SIZE) == SIG_LOCATOR64) {
        const unsigned char *l = b + pos - LOCATOR64_SIZE;
        uint64_t off = rd64(l + 8);
        end = pos - LOCATOR64_SIZE;
        if (off > end || end - off < EOCD64_SIZE || rd32(b + off) != SIG_EOCD64) {
            return bad(z, "bad ZIP64 end of central directory record", NULL);
        }
        const unsigned char *e64 = b + off;
        if (rd32(e64 + 16) != 0 || rd32(e64 + 20) != 0) {
            return bad(z, "multi-disk archives are not read", NULL);
        }
        cd->n = rd64(e64 + 32);
        cd->size = rd64(e64 + 40);
        cd->offset = rd64(e64 + 48);
        end = (size_t)off;
    }
    if (cd->offset > end || cd->size > end - cd->offset) {
        return bad(z, "central directory outside the file", NULL);
    }
    if (cd->n > cd->size / CENTRAL_SIZE) {
        return bad(z, "central directory shorter than its entry count", NULL);
    }
    return NULL;
}

/* ---- central directory entries ------------------------------------------------------------ */

typedef struct cent {
    const unsigned char *name;
    uint16_t nlen, method, flags;
    uint32_t crc;
    uint64_t comp, size, local, at;
} cent;

/* Reads the ZIP64 extra field (id 1) of a header: the 64-bit twins of the fields saturated
 * at 0xffffffff, in the order size, comp, local offset. */
static bool read_zip64(const unsigned char *x, size_t xlen, uint64_t *size, uint64_t *comp,
                       uint64_t *local)
{
    uint64_t *want[3] = {size, comp, local};
    while (xlen >= 4) {
        uint16_t id = rd16(x), len = rd16(x + 2);
        if ((size_t)len > xlen - 4) {
            return false;
        }
        if (id == 1) {
            size_t at = 4;
            for (int i = 0; i < 3; i++) {
                if (want[i] == NULL || *want[i] != 0xffffffffu) {
                    continue;
                }
                if (at + 8 > (size_t)len + 4) {
                    return false;
                }
                *want[i] = rd64(x + at);
                at += 8;
            }
            return true;
        }
        x += 4 + (size_t)len;
        xlen -= 4 + (size_t)len;
    }
    return (size == NULL || *size != 0xffffffffu) && (comp == NULL || *comp != 0xffffffffu) &&
           (local == NULL || *local != 0xffffffffu);
}

/* Parses the central entry at *at, advancing *at. */
static ember_status *read_central(const em_ts_zip *z, const unsigned char *b, uint64_t end,
                                  uint64_t *at, cent *c)
{
    const unsigned char *h = b + *at;
    c->at = *at;
    if (end - *at < CENTRAL_SIZE || rd32(h) != SIG_CENTRAL) {
        return bad(z, "bad central directory entry", NULL);
    }
    c->flags = rd16(h + 8);
    c->method = rd16(h + 10);
    c->crc = rd32(h + 16);
    c->comp = rd32(h + 20);
    c->size = rd32(h + 24);
    c->nlen = rd16(h + 28);
    uint16_t xlen = rd16(h + 30), clen = rd16(h + 32);
    c->local = rd32(h + 42);
    uint64_t total = (uint64_t)CENTRAL_SIZE + c->nlen + xlen + clen;
    if (end - *at < total) {
        return bad(z, "central directory entry runs past the directory", NULL);
    }
    c->name = h + CENTRAL_SIZE;
    if (!read_zip64(h + CENTRAL_SIZE + c->nlen, xlen, &c->size, &c->comp, &c->local)) {
        return bad(z, "bad ZIP64 extra field in the central directory", NULL);
    }
    *at += total;
    return NULL;
}

/* ---- names -------------------------------------------------------------------------------- */

/* Checks a full entry name (its NUL-free bytes) against the root; sets *is_dir. */
static ember_status *check_name(const em_ts_zip *z, const char *name, size_t rootlen,
                                bool *is_dir)
{
    size_t n = strlen(name);
    if (n == 0 || name[0] == '/' || strchr(name, '\\') != NULL) {
        return bad(z, "hostile record name: ", name);
    }
    if (!z->flat && (strncmp(name, z->root, rootlen) != 0 || name[rootlen] != '/')) {
        return bad(z, "record outside the root folder: ", name);
    }
    *is_dir = name[n - 1] == '/';
    for (const char *s = name; *s != '\0';) {
        const char *e = strchr(s, '/');
        size_t len = e != NULL ? (size_t)(e - s) : strlen(s);
        if ((len == 0 && e != NULL && !(*is_dir && e[1] == '\0')) ||
            (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.')) {
            return bad(z, "hostile record name: ", name);
        }
        s += len + (e != NULL);
    }
    if (!z->flat && !*is_dir && n == rootlen + 1) {
        return bad(z, "hostile record name: ", name);
    }
    return NULL;
}

/* ---- local headers ------------------------------------------------------------------------- */

/* Reads the local header of `r` (central fields filled) and sets r->payload. */
static ember_status *read_local(const em_ts_zip *z, const unsigned char *b, uint64_t limit,
                                ts_rec *r, uint32_t crc)
{
    if (r->local > limit || limit - r->local < LOCAL_SIZE || rd32(b + r->local) != SIG_LOCAL) {
        return bad(z, "bad local header of record ", r->name);
    }
    const unsigned char *h = b + r->local;
    uint16_t flags = rd16(h + 6), method = rd16(h + 8), nlen = rd16(h + 26), xlen = rd16(h + 28);
    uint64_t lcomp = rd32(h + 18), lsize = rd32(h + 22);
    uint32_t lcrc = rd32(h + 14);
    uint64_t payload = r->local + LOCAL_SIZE + nlen + xlen;
    if (payload > limit || method != r->method || nlen != strlen(r->name) ||
        memcmp(h + LOCAL_SIZE, r->name, nlen) != 0 ||
        ((flags ^ r->flags) & (FLAG_ENCRYPTED | FLAG_DESCRIPTOR)) != 0) {
        return bad(z, "local header disagrees with the directory: ", r->name);
    }
    if (!read_zip64(h + LOCAL_SIZE + nlen, xlen, &lsize, &lcomp, NULL)) {
        return bad(z, "bad ZIP64 extra field in the local header of ", r->name);
    }
    bool zero = lcomp == 0 && lsize == 0 && lcrc == 0;
    bool same = lcomp == r->comp && lsize == r->size && lcrc == crc;
    if (!same && !((flags & FLAG_DESCRIPTOR) != 0 && zero)) {
        return bad(z, "local header sizes disagree with the directory: ", r->name);
    }
    if (r->comp > limit - payload) {
        return bad(z, "record runs past the end of its data: ", r->name);
    }
    r->payload = payload;
    return NULL;
}

/* ---- open --------------------------------------------------------------------------------- */

static int cmp_local(const void *a, const void *b)
{
    const ts_rec *x = *(const ts_rec *const *)a, *y = *(const ts_rec *const *)b;
    return x->local < y->local ? -1 : x->local > y->local;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp((*(const ts_rec *const *)a)->sub, (*(const ts_rec *const *)b)->sub);
}

/* Sorts by_name and refuses duplicates and overlapping extents. */
static ember_status *check_layout(em_ts_zip *z)
{
    ember_status *st = NULL;
    const ts_rec **by_off = em_malloc(z->al, sizeof *by_off * (z->n > 0 ? z->n : 1));
    if (by_off == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < z->n; i++) {
        by_off[i] = z->by_name[i] = &z->recs[i];
    }
    qsort(by_off, z->n, sizeof *by_off, cmp_local);
    for (size_t i = 0; i + 1 < z->n && st == NULL; i++) {
        if (by_off[i]->payload + by_off[i]->comp > by_off[i + 1]->local) {
            st = bad(z, "overlapping records: ", by_off[i + 1]->name);
        }
    }
    em_free(z->al, by_off);
    if (st != NULL) {
        return st;
    }
    qsort(z->by_name, z->n, sizeof *z->by_name, cmp_name);
    for (size_t i = 0; i + 1 < z->n; i++) {
        if (strcmp(z->by_name[i]->sub, z->by_name[i + 1]->sub) == 0) {
            return bad(z, "duplicate record name: ", z->by_name[i]->name);
        }
    }
    return NULL;
}

/* Refuses the two older formats torch.jit.load also recognises, with its explanation. */
static ember_status *check_legacy(const em_ts_zip *z, const unsigned char *b, size_t size)
{
    if (size >= 2 && b[0] == 0x80 && b[1] == 0x02) {
        return bad(z, "a legacy torch.save() pickle, not a torch.jit.save() archive", NULL);
    }
    if (size >= 8 && memcmp(b, "PYTORCH1", 8) == 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "%s: archive format of the PyTorch preview release", z->what);
    }
    return NULL;
}

static ember_status *open_libzip(em_ts_zip *z, const unsigned char *b, size_t size)
{
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t *src = zip_source_buffer_create(b, size, 0, &err);
    if (src != NULL) {
        z->za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
        if (z->za == NULL) {
            zip_source_free(src);
        }
    }
    ember_status *st = NULL;
    if (z->za == NULL) {
        st = zip_error_code_zip(&err) == ZIP_ER_MEMORY
                 ? em_status_oom()
                 : bad(z, "not a valid zip archive: ", zip_error_strerror(&err));
    }
    zip_error_fini(&err);
    return st;
}

/* Checks entry i against libzip's reading of it and fills r (name copied into *names). */
static ember_status *add_entry(em_ts_zip *z, const unsigned char *b, uint64_t limit,
                               uint64_t i, const cent *c, char **names, bool *skip)
{
    ember_status *st = NULL;
    char *name = *names;
    memcpy(name, c->name, c->nlen);
    name[c->nlen] = '\0';
    *names += c->nlen + 1;
    zip_stat_t zs;
    zip_stat_init(&zs);
    if (memchr(c->name, '\0', c->nlen) != NULL) {
        return bad(z, "hostile record name: ", name);
    }
    if (zip_stat_index(z->za, i, ZIP_FL_ENC_RAW, &zs) != 0 || zs.name == NULL ||
        strcmp(zs.name, name) != 0 || zs.size != c->size || zs.comp_size != c->comp ||
        zs.comp_method != (int32_t)c->method) {
        return bad(z, "central directory entry read two ways differently: ", name);
    }
    if (z->root == NULL && z->flat) {
        z->root = em_strdup(z->al, "");
        if (z->root == NULL) {
            return em_status_oom();
        }
    } else if (z->root == NULL) {
        const char *slash = strchr(name, '/');
        if (slash == NULL || slash == name) {
            return bad(z, "record outside a root folder: ", name);
        }
        z->root = em_malloc(z->al, (size_t)(slash - name) + 1);
        if (z->root == NULL) {
            return em_status_oom();
        }
        memcpy(z->root, name, (size_t)(slash - name));
        z->root[slash - name] = '\0';
    }
    size_t rootlen = strlen(z->root);
    bool is_dir = false;
    EMBER_TRY(check_name(z, name, rootlen, &is_dir));
    if ((c->flags & (FLAG_ENCRYPTED | FLAG_STRONG)) != 0 ||
        ((zs.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 && zs.encryption_method != ZIP_EM_NONE)) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: encrypted record %s", z->what, name);
    }
    if (c->method != METHOD_STORED && c->method != METHOD_DEFLATE) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: record %s: compression method %u",
                             z->what, name, (unsigned)c->method);
    }
    if (c->method == METHOD_STORED && c->comp != c->size) {
        return bad(z, "stored record with two sizes: ", name);
    }
    if (is_dir) {
        *skip = true;
        return c->size == 0 ? NULL : bad(z, "folder entry with data: ", name);
    }
    ts_rec *r = &z->recs[z->n];
    *r = (ts_rec){.name = name, .sub = name + (z->flat ? 0 : rootlen + 1), .index = i,
                  .local = c->local, .central = c->at, .comp = c->comp, .size = c->size,
                  .crc = c->crc, .method = c->method, .flags = c->flags};
    EMBER_TRY(read_local(z, b, limit, r, c->crc));
    *skip = false;
    return NULL;
fail:
    return st;
}

static ember_status *read_entries(em_ts_zip *z, const unsigned char *b, size_t size)
{
    ember_status *st = NULL;
    cdir cd = {0};
    EMBER_TRY(find_cdir(z, b, size, &cd));
    zip_int64_t n_lib = zip_get_num_entries(z->za, 0);
    if (n_lib < 0 || (uint64_t)n_lib != cd.n) {
        return bad(z, "central directory entry count read two ways differently", NULL);
    }
    if (cd.n == 0) {
        return bad(z, "empty archive", NULL);
    }
    /* Names fit in the directory's bytes, plus one NUL each. */
    z->names = em_malloc(z->al, (size_t)cd.size + (size_t)cd.n);
    z->recs = em_malloc(z->al, sizeof *z->recs * (size_t)cd.n);
    z->by_name = em_malloc(z->al, sizeof *z->by_name * (size_t)cd.n);
    if (z->names == NULL || z->recs == NULL || z->by_name == NULL) {
        return em_status_oom();
    }
    char *names = z->names;
    uint64_t at = cd.offset, end = cd.offset + cd.size;
    for (uint64_t i = 0; i < cd.n; i++) {
        cent c;
        bool skip = false;
        EMBER_TRY(read_central(z, b, end, &at, &c));
        EMBER_TRY(add_entry(z, b, cd.offset, i, &c, &names, &skip));
        z->n += !skip;
    }
    return check_layout(z);
fail:
    return st;
}

/* ".data/version" (format 6 and later) or "version": ASCII decimal, then '\n'. */
static ember_status *read_version(em_ts_zip *z)
{
    ember_status *st = NULL;
    em_storage *s = NULL;
    const char *name = em_ts_zip_has(z, ".data/version") ? ".data/version" : "version";
    if (!em_ts_zip_has(z, name)) {
        return bad(z, "no version record (.data/version or version)", NULL);
    }
    EMBER_TRY(em_ts_zip_get(z, name, &s));
    const char *p = em_storage_data(s);
    size_t n = em_storage_size(s), i = 0;
    int64_t v = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9' && v <= EM_TS_MAX_FILE_VERSION; i++) {
        v = v * 10 + (p[i] - '0');
    }
    bool digits_only = i > 0 && (i == n || (i + 1 == n && p[i] == '\n'));
    if (!digits_only && v <= EM_TS_MAX_FILE_VERSION) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: record %s is not a decimal number",
                           z->what, name);
    } else if (v < 1) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: file format version 0", z->what);
    } else if (v > EM_TS_MAX_FILE_VERSION) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED,
                           "%s: file format version above %d (the newest ember reads)",
                           z->what, EM_TS_MAX_FILE_VERSION);
    }
    z->version = v;
fail:
    em_storage_release(s);
    return st;
}

ember_status *em_ts_zip_open(em_storage *image, const char *what, const ember_allocator *al,
                             em_ts_zip **out)
{
    return em_ts_zip_open_flags(image, what, al, 0, out);
}

ember_status *em_ts_zip_open_flags(em_storage *image, const char *what,
                                   const ember_allocator *al, unsigned flags, em_ts_zip **out)
{
    ember_status *st = NULL;
    em_ts_zip *z = NULL;
    if (out == NULL || image == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "ts_zip_open: NULL argument");
    }
    *out = NULL;
    z = em_calloc(al, 1, sizeof *z);
    if (z == NULL) {
        return em_status_oom();
    }
    z->al = al;
    z->flat = (flags & EM_TS_ZIP_FLAT) != 0;
    atomic_flag_clear(&z->lock);
    z->crc32 = em_crc32_impl(em_cpu_features_env());
    z->image = em_storage_retain(image);
    z->what = em_strdup(al, what != NULL ? what : "<archive>");
    if (z->what == NULL) {
        st = em_status_oom();
        goto fail;
    }
    const unsigned char *b = em_storage_data(image);
    size_t size = em_storage_size(image);
    EMBER_TRY(check_legacy(z, b, size));
    EMBER_TRY(open_libzip(z, b, size));
    EMBER_TRY(read_entries(z, b, size));
    if (!z->flat) {
        EMBER_TRY(read_version(z));
    }
    *out = z;
    return NULL;
fail:
    em_ts_zip_close(z);
    return st;
}

void em_ts_zip_close(em_ts_zip *z)
{
    if (z == NULL) {
        return;
    }
    if (z->za != NULL) {
        zip_discard(z->za);
    }
    em_free(z->al, z->by_name);
    em_free(z->al, z->recs);
    em_free(z->al, z->names);
    em_free(z->al, z->root);
    em_free(z->al, z->what);
    em_storage_release(z->image);
    em_free(z->al, z);
}

const char *em_ts_zip_root(const em_ts_zip *z) { return z->root; }
int64_t em_ts_zip_version(const em_ts_zip *z) { return z->version; }
size_t em_ts_zip_count(const em_ts_zip *z) { return z->n; }

const char *em_ts_zip_name(const em_ts_zip *z, size_t i)
{
    return i < z->n ? z->recs[i].sub : NULL;
}

static const ts_rec *find(const em_ts_zip *z, const char *name)
{
    size_t lo = 0, hi = z->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(z->by_name[mid]->sub, name);
        if (c == 0) {
            return z->by_name[mid];
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

bool em_ts_zip_has(const em_ts_zip *z, const char *name) { return find(z, name) != NULL; }

bool em_ts_zip_locate(const em_ts_zip *z, const char *name, em_ts_zip_loc *out)
{
    const ts_rec *r = find(z, name);
    if (r == NULL) {
        return false;
    }
    *out = (em_ts_zip_loc){r->local, r->central, r->payload, r->comp, r->size, r->method,
                           r->flags};
    return true;
}

static ember_status *crc_mismatch(const em_ts_zip *z, const ts_rec *r, uint32_t computed)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL,
                         "%s: record '%s': CRC-32 mismatch (stored 0x%08x, computed 0x%08x)",
                         z->what, r->name, (unsigned)r->crc, (unsigned)computed);
}

/* Inflates r into data[0..r->size) with libzip (which checks the CRC-32 at the end), and
 * checks that nothing follows. */
static ember_status *inflate(const em_ts_zip *z, const ts_rec *r, unsigned char *data)
{
    ember_status *st = NULL;
    /* The lock is the only state the const handle changes (libzip's own, not ours). */
    atomic_flag *lock = (atomic_flag *)&z->lock;
    while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire)) {
    }
    zip_file_t *f = zip_fopen_index(z->za, r->index, 0);
    if (f == NULL) {
        st = bad(z, "cannot read record: ", r->name);
        goto done;
    }
    uint64_t got = 0;
    while (got < r->size) {
        zip_int64_t k = zip_fread(f, data + got, r->size - got);
        if (k <= 0) {
            break;
        }
        got += (uint64_t)k;
    }
    /* libzip checks the CRC when it reaches the end: reading one byte past the claimed size
     * either finds the end (0), more data (1), or a stream or CRC error (-1). */
    unsigned char extra;
    zip_int64_t k = got == r->size ? zip_fread(f, &extra, 1) : -1;
    if (k > 0) {
        st = bad(z, "record inflates to more than its directory entry says: ", r->name);
    } else if (k < 0 && zip_error_code_zip(zip_file_get_error(f)) == ZIP_ER_CRC) {
        st = crc_mismatch(z, r, z->crc32(0, data, (size_t)r->size));
    } else if (k < 0) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: record %s: %s", z->what, r->name,
                           zip_error_strerror(zip_file_get_error(f)));
    }
    int rc = zip_fclose(f);
    if (st == NULL && rc != 0) {
        st = bad(z, "record fails its CRC check: ", r->name);
    }
done:
    atomic_flag_clear_explicit(lock, memory_order_release);
    return st;
}

ember_status *em_ts_zip_get(const em_ts_zip *z, const char *name, em_storage **out)
{
    return em_ts_zip_read(z, name, 0, out);
}

ember_status *em_ts_zip_read(const em_ts_zip *z, const char *name, unsigned flags,
                             em_storage **out)
{
    ember_status *st = NULL;
    em_storage *s = NULL;
    if (out == NULL || z == NULL || name == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "ts_zip_read: NULL argument");
    }
    *out = NULL;
    const ts_rec *r = find(z, name);
    if (r == NULL) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: no record %s%s%s", z->what, z->root,
                             z->flat ? "" : "/", name);
    }
    unsigned char *image = em_storage_data(z->image);
    if (r->method == METHOD_STORED || r->size == 0) {
        if ((flags & EM_TS_ZIP_TRUST_CRC) == 0 || r->size == 0) {
            uint32_t crc = z->crc32(0, image + r->payload, (size_t)r->size);
            if (crc != r->crc) {
                return crc_mismatch(z, r, crc);
            }
        }
        EMBER_TRY(em_storage_new_borrowed(z->al, image + r->payload, r->method == METHOD_STORED
                                                                         ? (size_t)r->size
                                                                         : 0, &s));
        EMBER_TRY(em_storage_keep(s, z->image));
        *out = s;
        return NULL;
    }
    if (r->size > EM_TS_ZIP_MAX_INFLATE || r->size / MAX_DEFLATE_RATIO > r->comp) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "%s: record %s claims to inflate %llu bytes to %llu", z->what,
                             r->name, (unsigned long long)r->comp, (unsigned long long)r->size);
    }
    EMBER_TRY(em_storage_new_owned(z->al, (size_t)r->size, &s));
    EMBER_TRY(inflate(z, r, em_storage_data(s)));
    *out = s;
    return NULL;
fail:
    em_storage_release(s);
    return st;
}

ember_status *em_ts_zip_record(void *ctx, const char *key, em_storage **out)
{
    const em_ts_zip_records *rc = ctx;
    char name[256];
    if (snprintf(name, sizeof name, "%s/%s", rc->dir, key) >= (int)sizeof name) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: storage key '%.40s...' is too long",
                             rc->what, key);
    }
    if (!em_ts_zip_has(rc->zip, name)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor storage '%s' has no record "
                             "%s/%s", rc->what, key, em_ts_zip_root(rc->zip), name);
    }
    return em_ts_zip_read(rc->zip, name, rc->flags, out);
}
