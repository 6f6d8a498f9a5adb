/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript archives, layer 1: the zip container (torch.jit.save writes it with miniz).
 *
 * Every record lives under one top folder whose name is arbitrary (the file's base name when
 * saved, "archive" from a stream): the name of the first entry up to its first '/' is the
 * root, and an entry outside it, a name with a ".." or "." segment, an empty segment, a
 * leading '/', a backslash or a NUL byte is refused, as are duplicate names. Folder entries
 * ("root/code/", written by zip tools, never by torch) are skipped. Records are looked up by
 * their name below the root ("data.pkl", "data/0", "code/__torch__/foo.py",
 * ".data/version"). ZIP64 archives and data descriptors (torch writes both) are read.
 * A legacy torch.save() pickle (0x80 0x02) and the 2018 preview format ("PYTORCH1") are
 * recognised and refused with that explanation.
 *
 * Stored (method 0) records are handed out as views of the mapped file, with no copy (torch
 * writes storages stored, their payload 64-byte aligned). Deflated records (code files over
 * 200 bytes) are inflated into new storages, refusing any whose inflated size exceeds what its
 * directory entry claims, EM_TS_ZIP_MAX_INFLATE, or what deflate can expand its compressed
 * size to (so nothing is allocated for a claim the data cannot meet), or whose CRC fails.
 * Overlapping records, records past the start of the central directory, and names, methods,
 * flags or sizes that disagree between the central directory and the local header are
 * refused when the archive is opened. A record's CRC-32 is checked against the central
 * directory's when the record is read, not at open (that would read every weight whether
 * used or not): inflated records by libzip, stored ones by core/crc32.h (PCLMULQDQ folding
 * where the CPU has it, ~14 GB/s on Zen 3), unless the caller trusts the file.
 *
 * Built on libzip (directory, validation, inflate). libzip does not publish a record's data
 * offset, so ts_zip.c also reads the central directory (checked entry by entry against
 * libzip's reading of it) and each record's local header to find where its payload starts.
 * Threads: an open archive is read-only; em_ts_zip_get may be called from several threads
 * (inflating takes a lock: libzip handles are not reentrant).
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_ZIP_H
#define EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_ZIP_H

#include "ember.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest record the reader inflates (code and pickles; storages are stored, not deflated). */
#define EM_TS_ZIP_MAX_INFLATE ((size_t)1 << 30)
/* Newest file format version read (caffe2/serialize/versions.h: kMaxSupportedFileFormatVersion). */
#define EM_TS_MAX_FILE_VERSION 10

typedef struct em_ts_zip em_ts_zip;

/*
 * Opens the archive held by `image` (the whole file; retained until em_ts_zip_close).
 * `what` names the file in messages. Checks the directory as described above and reads the
 * format version from ".data/version" or else "version" (ASCII decimal, then '\n'), refusing
 * versions outside 1..EM_TS_MAX_FILE_VERSION (10: torch's newest
 * reader accepts 0xA). Returns INVALID_ARG (NULL image or out), INVALID_MODEL (not a zip,
 * truncated, hostile names or records, no version record, version 0 or not decimal),
 * UNSUPPORTED (version above the maximum, encryption, a compression method other than
 * stored/deflate, the preview format) or OUT_OF_MEMORY. On failure *out is NULL.
 */
ember_status *em_ts_zip_open(em_storage *image, const char *what, const ember_allocator *al,
                             em_ts_zip **out);
/* Flags of em_ts_zip_open_flags. */
enum {
    /* Records at the top level, no root folder and no version record: the flat archives
     * torch.export.save wrote with Python's zipfile in torch 2.1-2.7 (version, serialized_*).
     * Names are checked as above, below an empty root; em_ts_zip_root is "" and
     * em_ts_zip_version 0. */
    EM_TS_ZIP_FLAT = 1u << 0
};
ember_status *em_ts_zip_open_flags(em_storage *image, const char *what,
                                   const ember_allocator *al, unsigned flags, em_ts_zip **out);
void em_ts_zip_close(em_ts_zip *z);

/* The root folder name (without '/'), the file format version, and the record count. */
const char *em_ts_zip_root(const em_ts_zip *z);
int64_t em_ts_zip_version(const em_ts_zip *z);
size_t em_ts_zip_count(const em_ts_zip *z);
/* Name of record i below the root ("code/__torch__/m.py"), in archive order, folders left
 * out; NULL when i >= count. Valid until close. */
const char *em_ts_zip_name(const em_ts_zip *z, size_t i);
bool em_ts_zip_has(const em_ts_zip *z, const char *name);

/* Where record `name` (below the root) lies in the image, for rewriting it in place
 * (ts_save.c): byte offsets of its local header, central directory entry and payload, its
 * compressed and plain sizes, method (0 stored, 8 deflate) and general-purpose flags (bit 3: a
 * data descriptor follows the payload). False when there is no such record. */
typedef struct em_ts_zip_loc {
    uint64_t local, central, payload, comp, size;
    uint16_t method, flags;
} em_ts_zip_loc;
bool em_ts_zip_locate(const em_ts_zip *z, const char *name, em_ts_zip_loc *out);

/* Flags of em_ts_zip_read. */
enum {
    /* A stored record of a file the caller trusts: its CRC-32 is not computed (the weights of
     * ember_model_options_set_verify_checksums(false)). Deflated records are checked always. */
    EM_TS_ZIP_TRUST_CRC = 1u << 0
};

/*
 * The bytes of record `name` (below the root) as a new storage reference: a borrowed view of
 * the image that keeps it alive (stored records, and empty ones) or an owned inflated copy
 * (EM_ALIGN-aligned), its CRC-32 checked unless `flags` has EM_TS_ZIP_TRUST_CRC. Release with
 * em_storage_release. A missing record is INVALID_MODEL naming the record and the file; a
 * deflated record over the limits above is INVALID_MODEL; a CRC-32 that does not match is
 * INVALID_MODEL as "<file>: record '<full name>': CRC-32 mismatch (stored 0x..., computed
 * 0x...)"; OUT_OF_MEMORY. On failure *out is NULL.
 */
ember_status *em_ts_zip_read(const em_ts_zip *z, const char *name, unsigned flags,
                             em_storage **out);
/* em_ts_zip_read with no flags: the CRC-32 checked. */
ember_status *em_ts_zip_get(const em_ts_zip *z, const char *name, em_storage **out);

/* The storages of a pickle in an archive (em_ts_record_fn of ts_pickle.h, ctx an
 * em_ts_zip_records): key K is record "<dir>/K" read with `flags`; a missing one is
 * INVALID_MODEL naming `what` ("model.pt: data.pkl"), the key and the record. */
typedef struct em_ts_zip_records {
    const em_ts_zip *zip;
    const char *what;
    const char *dir;
    unsigned flags; /* em_ts_zip_read's: EM_TS_ZIP_TRUST_CRC for trusted weights */
} em_ts_zip_records;
ember_status *em_ts_zip_record(void *ctx, const char *key, em_storage **out);

#endif /* EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_ZIP_H */
