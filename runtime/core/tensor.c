/* SPDX-License-Identifier: Apache-2.0 */
/* dtype facts, tensor shape helpers and reference-counted storage (owned, borrowed, mmap). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include "core/tensor.h"

#include "core/alloc.h"
#include "core/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

size_t em_dtype_size(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32: return 4;
    case EMBER_DTYPE_U8: return 1;
    case EMBER_DTYPE_I8: return 1;
    case EMBER_DTYPE_U16: return 2;
    case EMBER_DTYPE_I16: return 2;
    case EMBER_DTYPE_I32: return 4;
    case EMBER_DTYPE_I64: return 8;
    case EMBER_DTYPE_STRING: return sizeof(const char *);
    case EMBER_DTYPE_BOOL: return 1;
    case EMBER_DTYPE_F16: return 2;
    case EMBER_DTYPE_F64: return 8;
    case EMBER_DTYPE_U32: return 4;
    case EMBER_DTYPE_U64: return 8;
    case EMBER_DTYPE_BF16: return 2;
    /* The low-precision types: one element per byte in memory (see ember.h). */
    case EMBER_DTYPE_F8E4M3FN:
    case EMBER_DTYPE_F8E4M3FNUZ:
    case EMBER_DTYPE_F8E5M2:
    case EMBER_DTYPE_F8E5M2FNUZ:
    case EMBER_DTYPE_U4:
    case EMBER_DTYPE_I4:
    case EMBER_DTYPE_F4E2M1:
    case EMBER_DTYPE_F8E8M0:
    case EMBER_DTYPE_U2:
    case EMBER_DTYPE_I2:
    case EMBER_DTYPE_F6E2M3:
    case EMBER_DTYPE_F6E3M2: return 1;
    case EMBER_DTYPE_UNDEFINED: return 0;
    }
    return 0;
}

const char *em_dtype_name(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32: return "f32";
    case EMBER_DTYPE_U8: return "u8";
    case EMBER_DTYPE_I8: return "i8";
    case EMBER_DTYPE_U16: return "u16";
    case EMBER_DTYPE_I16: return "i16";
    case EMBER_DTYPE_I32: return "i32";
    case EMBER_DTYPE_I64: return "i64";
    case EMBER_DTYPE_STRING: return "string";
    case EMBER_DTYPE_BOOL: return "bool";
    case EMBER_DTYPE_F16: return "f16";
    case EMBER_DTYPE_F64: return "f64";
    case EMBER_DTYPE_U32: return "u32";
    case EMBER_DTYPE_U64: return "u64";
    case EMBER_DTYPE_BF16: return "bf16";
    case EMBER_DTYPE_F8E4M3FN: return "f8e4m3fn";
    case EMBER_DTYPE_F8E4M3FNUZ: return "f8e4m3fnuz";
    case EMBER_DTYPE_F8E5M2: return "f8e5m2";
    case EMBER_DTYPE_F8E5M2FNUZ: return "f8e5m2fnuz";
    case EMBER_DTYPE_U4: return "u4";
    case EMBER_DTYPE_I4: return "i4";
    case EMBER_DTYPE_F4E2M1: return "f4e2m1";
    case EMBER_DTYPE_F8E8M0: return "f8e8m0";
    case EMBER_DTYPE_U2: return "u2";
    case EMBER_DTYPE_I2: return "i2";
    case EMBER_DTYPE_F6E2M3: return "f6e2m3";
    case EMBER_DTYPE_F6E3M2: return "f6e3m2";
    case EMBER_DTYPE_UNDEFINED: return "?";
    }
    return "?";
}

bool em_dtype_valid(ember_dtype dt) { return em_dtype_size(dt) != 0; }

size_t ember_dtype_size(ember_dtype dt) { return em_dtype_size(dt); }
const char *ember_dtype_name(ember_dtype dt) { return em_dtype_name(dt); }

int64_t em_tensor_numel(const em_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        n *= t->dims[i];
    }
    return n;
}

bool em_shape_numel_checked(const int64_t *dims, int rank, int64_t *numel)
{
    int64_t nz = 1; /* the product of the non-zero dims: kernels form strides from them */
    bool empty = false;
    if (rank < 0 || rank > EM_MAX_RANK) {
        return false;
    }
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            return false;
        }
        if (dims[i] == 0) {
            empty = true;
        } else if (nz > INT64_MAX / dims[i]) {
            return false;
        } else {
            nz *= dims[i];
        }
    }
    *numel = empty ? 0 : nz;
    return true;
}

bool em_tensor_nbytes_checked(const em_tensor *t, size_t *nbytes)
{
    int64_t n;
    if (!em_shape_numel_checked(t->dims, t->rank, &n) || (uint64_t)n > SIZE_MAX) {
        return false;
    }
    return em_size_mul((size_t)n, em_dtype_size(t->dtype), nbytes);
}

size_t em_tensor_nbytes(const em_tensor *t)
{
    return (size_t)em_tensor_numel(t) * em_dtype_size(t->dtype);
}

void em_tensor_set_shape(em_tensor *t, ember_dtype dt, const int64_t *dims, int rank)
{
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
    }
    for (int i = rank; i < EM_MAX_RANK; i++) {
        t->dims[i] = 0;
    }
}

bool em_tensor_same_shape(const em_tensor *a, const em_tensor *b)
{
    if (a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] != b->dims[i]) {
            return false;
        }
    }
    return true;
}

void em_dims_str(const int64_t *dims, int rank, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0) {
        return;
    }
    buf[0] = '\0';
    len += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && len < cap; i++) {
        len += (size_t)snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)dims[i]);
    }
    if (len < cap) {
        snprintf(buf + len, cap - len, "]");
    }
}

void em_tensor_shape_str(const em_tensor *t, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s", em_dtype_name(t->dtype));
    if (n >= 0 && (size_t)n < cap) {
        em_dims_str(t->dims, t->rank, buf + n, cap - (size_t)n);
    }
}

struct em_storage {
    atomic_int refs;
    em_storage_kind kind;
    const ember_allocator *al;
    void *data;
    size_t size;
    em_storage **kept; /* storages this one keeps alive (em_storage_keep), released with it */
    int n_kept, cap_kept;
};

static ember_status *storage_new(const ember_allocator *al, em_storage_kind kind, void *data,
                                 size_t size, em_storage **out)
{
    em_storage *s = em_malloc(al, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    atomic_init(&s->refs, 1);
    s->kind = kind;
    s->al = al;
    s->data = data;
    s->size = size;
    s->kept = NULL;
    s->n_kept = s->cap_kept = 0;
    *out = s;
    return NULL;
}

ember_status *em_storage_new_owned(const ember_allocator *al, size_t nbytes, em_storage **out)
{
    *out = NULL;
    void *d = em_big_alloc(al, nbytes, true);
    if (d == NULL) {
        return em_status_oom();
    }
    ember_status *st = storage_new(al, EM_STORAGE_OWNED, d, nbytes, out);
    if (st != NULL) {
        em_big_free(al, d, nbytes);
    }
    return st;
}

ember_status *em_storage_new_borrowed(const ember_allocator *al, void *data, size_t nbytes,
                                      em_storage **out)
{
    *out = NULL;
    return storage_new(al, EM_STORAGE_BORROWED, data, nbytes, out);
}

ember_status *em_storage_new_mmap(const ember_allocator *al, const char *path, em_storage **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return em_status_new(EMBER_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat sbuf;
    if (fstat(fd, &sbuf) != 0 || !S_ISREG(sbuf.st_mode)) {
        close(fd);
        return em_status_new(EMBER_ERR_IO, "%s: not a regular file", path);
    }
    size_t size = (size_t)sbuf.st_size;
    void *d = NULL;
    if (size > 0) {
        d = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (d == MAP_FAILED) {
            int e = errno;
            close(fd);
            return em_status_new(EMBER_ERR_IO, "%s: cannot map: %s", path, strerror(e));
        }
    }
    close(fd);
    ember_status *st = storage_new(al, EM_STORAGE_MMAP, d, size, out);
    if (st != NULL && d != NULL) {
        munmap(d, size);
    }
    return st;
}

void *em_storage_data(const em_storage *s) { return s->data; }
size_t em_storage_size(const em_storage *s) { return s->size; }
em_storage_kind em_storage_kind_of(const em_storage *s) { return s->kind; }

void em_storage_drop_pages(em_storage *s, size_t off, size_t len)
{
    if (s == NULL || s->kind != EM_STORAGE_MMAP || s->data == NULL || off >= s->size) {
        return;
    }
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
    uintptr_t lo = (uintptr_t)s->data + off;
    uintptr_t hi = (uintptr_t)s->data + (len < s->size - off ? off + len : s->size);
    lo = (lo + page - 1) / page * page;
    hi = hi / page * page;
    if (hi > lo) { /* a read-only private mapping: pages come back from the file when read */
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
}

em_storage *em_storage_retain(em_storage *s)
{
    if (s != NULL) {
        atomic_fetch_add(&s->refs, 1);
    }
    return s;
}

void em_storage_release(em_storage *s)
{
    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1) {
        return;
    }
    if (s->kind == EM_STORAGE_OWNED) {
        em_big_free(s->al, s->data, s->size);
    } else if (s->kind == EM_STORAGE_MMAP && s->data != NULL) {
        munmap(s->data, s->size);
    }
    for (int i = 0; i < s->n_kept; i++) {
        em_storage_release(s->kept[i]);
    }
    em_free(s->al, s->kept);
    em_free(s->al, s);
}

ember_status *em_storage_keep(em_storage *s, em_storage *dep)
{
    if (dep == NULL || dep == s) {
        return NULL;
    }
    for (int i = 0; i < s->n_kept; i++) {
        if (s->kept[i] == dep) {
            return NULL;
        }
    }
    if (s->n_kept == s->cap_kept) {
        int cap = s->cap_kept > 0 ? 2 * s->cap_kept : 4;
        em_storage **k = em_realloc(s->al, s->kept, sizeof *k * (size_t)cap);
        if (k == NULL) {
            return em_status_oom();
        }
        s->kept = k;
        s->cap_kept = cap;
    }
    s->kept[s->n_kept++] = em_storage_retain(dep);
    return NULL;
}

int em_storage_kept_count(const em_storage *s) { return s != NULL ? s->n_kept : 0; }

em_storage *em_storage_kept(const em_storage *s, int i)
{
    return s != NULL && i >= 0 && i < s->n_kept ? s->kept[i] : NULL;
}
