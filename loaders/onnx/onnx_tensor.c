/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TensorProto -> shape + bytes. Data comes from raw_data (little-endian, borrowed from the
 * model image when its address suits the dtype's alignment, else copied), from the typed
 * fields (float_data; int32_data, which also carries i8/u8/i16/u16/bool and the bit patterns
 * of f16/bf16 and of the float8 / float6 types one per entry, and the packed bytes of the 4-bit
 * and 2-bit types one byte per entry; int64_data; double_data; uint64_data for u32/u64) or from
 * an external file (data_location EXTERNAL: `location` relative to the model's folder,
 * `offset`, `length`), mapped once per file and borrowed. The sub-byte types (4-, 2- and 6-bit)
 * are packed in raw_data and external files (onnx.proto) and unpacked here into ember's one
 * byte per element (a copy; see ember.h). Every count and size comes from the file, so each is
 * checked: rank <= EMBER_MAX_RANK, dims >= 0 with no overflow, data exactly as long as the
 * dims say, external ranges inside their file, locations inside the model's folder.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "core/lowp.h"
#include "core/status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ONNX_BIG_ENDIAN 1
#else
#define ONNX_BIG_ENDIAN 0
#endif

static void *pb_alloc(void *ctx, size_t n)
{
    onnx_pb_alloc *a = ctx;
    void *p = em_malloc(a->al, n ? n : 1);
    a->failed |= p == NULL;
    return p;
}

static void pb_free(void *ctx, void *p)
{
    em_free(((onnx_pb_alloc *)ctx)->al, p);
}

void em_onnx_pb_allocator(const ember_allocator *al, onnx_pb_alloc *a)
{
    a->pa.alloc = pb_alloc;
    a->pa.free = pb_free;
    a->pa.allocator_data = a;
    a->al = al;
    a->failed = false;
}

ember_dtype em_onnx_dtype(int32_t t, bool *known)
{
    /* ember_dtype follows TensorProto.DataType: only the gaps need a check. */
    *known = t > 0 && t != 14 && t != 15 && em_dtype_valid((ember_dtype)t);
    return *known ? (ember_dtype)t : EMBER_DTYPE_UNDEFINED;
}

static const char *onnx_type_name(int32_t t)
{
    switch (t) {
    case 8:
        return "string";
    case 14:
        return "complex64";
    case 15:
        return "complex128";
    case 17:
        return "float8e4m3fn";
    case 18:
        return "float8e4m3fnuz";
    case 19:
        return "float8e5m2";
    case 20:
        return "float8e5m2fnuz";
    default:
        return "unknown";
    }
}

/* Checks dtype, rank and dims; fills `shape` and the byte size. */
static ember_status *tensor_shape(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                  em_tensor *shape, size_t *nbytes)
{
    bool known;
    ember_dtype dt = em_onnx_dtype(tp->data_type, &known);
    if (!known) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "tensor '%s': data type %d (%s) is not supported",
                        name, (int)tp->data_type, onnx_type_name(tp->data_type));
    }
    if (tp->n_dims > EM_MAX_RANK) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "tensor '%s': rank %zu exceeds the maximum %d",
                        name, tp->n_dims, EM_MAX_RANK);
    }
    for (size_t d = 0; d < tp->n_dims; d++) {
        if (tp->dims[d] < 0) {
            return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "tensor '%s': dim %zu is negative (%lld)",
                            name, d, (long long)tp->dims[d]);
        }
    }
    em_tensor_set_shape(shape, dt, tp->dims, (int)tp->n_dims);
    if (!em_tensor_nbytes_checked(shape, nbytes)) {
        char buf[160];
        em_dims_str(tp->dims, (int)tp->n_dims, buf, sizeof buf);
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "tensor '%s': dims %s overflow", name, buf);
    }
    if (tp->segment != NULL) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "tensor '%s': segmented tensors are not supported", name);
    }
    return NULL;
}

/* ---- typed fields ---- */

/* A new owned storage holding n elements of the packed sub-byte dtype `dt` unpacked from
 * `src` (em_lowp_packed_size(dt, n) bytes). */
static ember_status *unpacked(onnx_ctx *c, ember_dtype dt, size_t n, const uint8_t *src,
                              em_storage **out)
{
    ember_status *st = em_storage_new_owned(c->al, n, out);
    if (st == NULL && n > 0) {
        em_lowp_unpack(dt, src, em_storage_data(*out), n);
    }
    return st;
}

/* The typed field that holds `dt` and its entry count. */
static size_t typed_count(const Onnx__TensorProto *tp, ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return tp->n_float_data;
    case EMBER_DTYPE_I64:
        return tp->n_int64_data;
    case EMBER_DTYPE_F64:
        return tp->n_double_data;
    case EMBER_DTYPE_U32:
    case EMBER_DTYPE_U64:
        return tp->n_uint64_data;
    default:
        return tp->n_int32_data;
    }
}

static void typed_fill(const Onnx__TensorProto *tp, ember_dtype dt, void *dst, size_t n)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        memcpy(dst, tp->float_data, n * 4);
        return;
    case EMBER_DTYPE_I64:
        memcpy(dst, tp->int64_data, n * 8);
        return;
    case EMBER_DTYPE_F64:
        memcpy(dst, tp->double_data, n * 8);
        return;
    case EMBER_DTYPE_U64:
        memcpy(dst, tp->uint64_data, n * 8);
        return;
    case EMBER_DTYPE_I32:
        memcpy(dst, tp->int32_data, n * 4);
        return;
    default:
        break;
    }
    if (dt == EMBER_DTYPE_U32) {
        for (size_t i = 0; i < n; i++) {
            ((uint32_t *)dst)[i] = (uint32_t)tp->uint64_data[i];
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)tp->int32_data[i];
        if (dt == EMBER_DTYPE_BOOL) {
            ((uint8_t *)dst)[i] = v != 0;
        } else if (em_lowp_packed_bits(dt) == 6) {
            ((uint8_t *)dst)[i] = (uint8_t)(v & 0x3F);
        } else if (em_dtype_size(dt) == 1) { /* i8, u8, float8; packed bytes of 4 / 2 bits */
            ((uint8_t *)dst)[i] = (uint8_t)v;
        } else { /* i16, u16, and the bit patterns of f16 and bf16 */
            ((uint16_t *)dst)[i] = (uint16_t)v;
        }
    }
}

static ember_status *from_typed(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                const em_tensor *shape, size_t nbytes, em_storage **out)
{
    const ember_dtype dt = shape->dtype;
    const bool packed = em_lowp_packed_bits(dt) == 4 || em_lowp_packed_bits(dt) == 2;
    size_t numel = (size_t)em_tensor_numel(shape), have = typed_count(tp, dt);
    size_t need = packed ? em_lowp_packed_size(dt, numel) : numel;
    if (have != need) {
        char buf[160];
        em_dims_str(shape->dims, shape->rank, buf, sizeof buf);
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': has %zu values, its dims %s need %zu", name, have, buf,
                        need);
    }
    if (packed) {
        uint8_t *bytes = em_malloc(c->al, need > 0 ? need : 1);
        if (bytes == NULL) {
            return em_status_oom();
        }
        typed_fill(tp, dt, bytes, need);
        ember_status *st = unpacked(c, dt, numel, bytes, out);
        em_free(c->al, bytes);
        return st;
    }
    ember_status *st = em_storage_new_owned(c->al, nbytes, out);
    if (st == NULL && numel > 0) {
        typed_fill(tp, shape->dtype, em_storage_data(*out), numel);
    }
    return st;
}

/* ---- external data ---- */

/* A location must stay inside the model's folder: relative, no "..", no symlink out. */
static ember_status *ext_resolve(onnx_ctx *c, const char *name, const char *loc, char **out)
{
    *out = NULL;
    if (c->dir == NULL) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "tensor '%s': external data '%s' needs the model's file path (the model "
                        "was loaded from memory)",
                        name, loc);
    }
    bool dotdot = strcmp(loc, "..") == 0 || strncmp(loc, "../", 3) == 0 ||
                  strstr(loc, "/../") != NULL ||
                  (strlen(loc) >= 3 && strcmp(loc + strlen(loc) - 3, "/..") == 0);
    if (loc[0] == '\0' || loc[0] == '/' || loc[0] == '\\' || strchr(loc, ':') != NULL || dotdot) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': external data location '%s' is outside the model's folder",
                        name, loc);
    }
    size_t n = strlen(c->dir) + strlen(loc) + 2;
    char *joined = em_malloc(c->al, n);
    if (joined == NULL) {
        return em_status_oom();
    }
    snprintf(joined, n, "%s/%s", c->dir, loc);
    char *real = realpath(joined, NULL);
    em_free(c->al, joined);
    if (real == NULL) {
        return em_onnx_err(c, EMBER_ERR_IO, "tensor '%s': external data file '%s' cannot be opened",
                        name, loc);
    }
    size_t dl = strlen(c->dir);
    bool inside = strncmp(real, c->dir, dl) == 0 && (real[dl] == '/' || c->dir[dl - 1] == '/');
    if (!inside) {
        free(real); /* realpath() allocates with libc */
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': external data location '%s' is outside the model's folder",
                        name, loc);
    }
    *out = em_strdup(c->al, real);
    free(real);
    return *out == NULL ? em_status_oom() : NULL;
}

static ember_status *ext_map(onnx_ctx *c, const char *path, em_storage **s)
{
    for (int i = 0; i < c->n_ext; i++) {
        if (strcmp(c->ext[i].path, path) == 0) {
            *s = c->ext[i].s;
            return NULL;
        }
    }
    onnx_ext *e = em_realloc(c->al, c->ext, sizeof *e * (size_t)(c->n_ext + 1));
    if (e == NULL) {
        return em_status_oom();
    }
    c->ext = e;
    ember_status *st = em_storage_new_mmap(c->al, path, s);
    if (st != NULL) {
        return em_status_wrap(st, "onnx: %s", c->what);
    }
    e[c->n_ext].path = em_strdup(c->al, path);
    e[c->n_ext].s = *s;
    if (e[c->n_ext].path == NULL) {
        em_storage_release(*s);
        return em_status_oom();
    }
    c->n_ext++;
    return NULL;
}

void em_onnx_ext_free(onnx_ctx *c)
{
    for (int i = 0; i < c->n_ext; i++) {
        em_free(c->al, c->ext[i].path);
        em_storage_release(c->ext[i].s);
    }
    em_free(c->al, c->ext);
    c->ext = NULL;
    c->n_ext = 0;
}

/* Parses a decimal offset/length; false when it is not a non-negative int64. */
static bool parse_size(const char *s, uint64_t *v)
{
    if (s == NULL || *s == '\0') {
        return false;
    }
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10) {
            return false;
        }
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return x <= (uint64_t)INT64_MAX;
}

static ember_status *from_external(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                   size_t nbytes, em_storage **out, size_t *offset)
{
    const char *loc = NULL, *soff = NULL, *slen = NULL;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        const char *k = e->key != NULL ? e->key : "";
        if (strcmp(k, "location") == 0) {
            loc = e->value;
        } else if (strcmp(k, "offset") == 0) {
            soff = e->value;
        } else if (strcmp(k, "length") == 0) {
            slen = e->value;
        }
    }
    if (loc == NULL) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "tensor '%s': external data has no location",
                        name);
    }
    uint64_t off = 0, len = nbytes;
    if ((soff != NULL && !parse_size(soff, &off)) || (slen != NULL && !parse_size(slen, &len))) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': external data offset or length is not a number", name);
    }
    if (len != nbytes) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': external data length %llu, its dims need %zu bytes", name,
                        (unsigned long long)len, nbytes);
    }
    char *path = NULL;
    em_storage *s = NULL;
    ember_status *st = ext_resolve(c, name, loc, &path);
    if (st == NULL) {
        st = ext_map(c, path, &s);
    }
    em_free(c->al, path);
    if (st != NULL) {
        return st;
    }
    size_t fsize = em_storage_size(s);
    if (off > fsize || len > fsize - off) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': external data [%llu, %llu) is past the end of '%s' (%zu "
                        "bytes)",
                        name, (unsigned long long)off, (unsigned long long)(off + len), loc, fsize);
    }
    *out = em_storage_retain(s);
    *offset = (size_t)off;
    return NULL;
}

/* ---- raw_data ---- */

static ember_status *from_raw(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                              const em_tensor *shape, size_t nbytes, em_storage **out,
                              size_t *offset)
{
    if (ONNX_BIG_ENDIAN && em_dtype_size(shape->dtype) > 1) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "tensor '%s': raw_data is little-endian; big-endian hosts are not "
                        "supported",
                        name);
    }
    /* packed: the sub-byte types (whose nbytes is their element count); else nbytes itself */
    const size_t stored = em_lowp_packed_size(shape->dtype, nbytes);
    if (tp->raw_data.len != stored) {
        char buf[160];
        em_dims_str(shape->dims, shape->rank, buf, sizeof buf);
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': raw_data has %zu bytes, its dims %s need %zu", name,
                        tp->raw_data.len, buf, stored);
    }
    if (em_lowp_packed_bits(shape->dtype) != 0) {
        return unpacked(c, shape->dtype, nbytes, tp->raw_data.data, out);
    }
    size_t align = em_dtype_size(shape->dtype);
    const uint8_t *raw = tp->raw_data.data;
    const uint8_t *base = c->image != NULL ? em_storage_data(c->image) : NULL;
    if (base != NULL && nbytes > 0 && raw >= base && (size_t)(raw - base) < em_storage_size(c->image) &&
        nbytes <= em_storage_size(c->image) - (size_t)(raw - base) && (uintptr_t)raw % align == 0) {
        *out = em_storage_retain(c->image); /* read in place from the model image */
        *offset = (size_t)(raw - base);
        return NULL;
    }
    ember_status *st = em_storage_new_owned(c->al, nbytes, out);
    if (st == NULL && nbytes > 0) {
        memcpy(em_storage_data(*out), tp->raw_data.data, nbytes);
        if (base != NULL && raw >= base && (size_t)(raw - base) < em_storage_size(c->image)) {
            /* the copy is what the model reads: a mapped image's pages go back now, not
             * after the passes (else both are resident: the load-time peak) */
            em_storage_drop_pages(c->image, (size_t)(raw - base), nbytes);
        }
    }
    return st;
}

/* A tensor's data has one source: raw_data, one typed field, or an external file. Which of
 * two would win is the reader's accident (ONNX Runtime reads raw_data, others the typed
 * field), so a tensor with two is refused, naming both. */
static ember_status *one_source(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name)
{
    const char *src[8];
    int n = 0;
    bool external = tp->has_data_location &&
                    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    if (tp->has_raw_data) {
        src[n++] = "raw_data";
    }
    if (external) {
        src[n++] = "external data";
    }
    src[n] = "float_data";
    n += tp->n_float_data > 0;
    src[n] = "int32_data";
    n += tp->n_int32_data > 0;
    src[n] = "string_data";
    n += tp->n_string_data > 0;
    src[n] = "int64_data";
    n += tp->n_int64_data > 0;
    src[n] = "double_data";
    n += tp->n_double_data > 0;
    src[n] = "uint64_data";
    n += tp->n_uint64_data > 0;
    if (n > 1) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "tensor '%s': holds both %s and %s (a "
                           "tensor's data has one source)", name, src[0], src[1]);
    }
    return NULL;
}

ember_status *em_onnx_tensor_convert(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                  em_tensor *shape, em_storage **out, size_t *offset)
{
    size_t nbytes;
    *out = NULL;
    *offset = 0;
    memset(shape, 0, sizeof *shape);
    ember_status *st = tensor_shape(c, tp, name, shape, &nbytes);
    if (st != NULL) {
        return st;
    }
    st = one_source(c, tp, name);
    if (st != NULL) {
        return st;
    }
    if (shape->dtype == EMBER_DTYPE_STRING) {
        return em_onnx_tensor_strings(c, tp, name, shape, out);
    }
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        if (em_lowp_packed_bits(shape->dtype) == 0) {
            return from_external(c, tp, name, nbytes, out, offset);
        }
        em_storage *s = NULL; /* packed bytes in the file: unpack a copy */
        st = from_external(c, tp, name, em_lowp_packed_size(shape->dtype, nbytes), &s, offset);
        if (st == NULL) {
            st = unpacked(c, shape->dtype, nbytes,
                          (const uint8_t *)em_storage_data(s) + *offset, out);
            *offset = 0;
        }
        em_storage_release(s);
        return st;
    }
    if (tp->has_raw_data) {
        return from_raw(c, tp, name, shape, nbytes, out, offset);
    }
    return from_typed(c, tp, name, shape, nbytes, out);
}

ember_status *em_onnx_read_tensor(const void *data, size_t size, const char *what, const char *path,
                                  const ember_allocator *al, em_tensor *shape, em_storage **out)
{
    onnx_pb_alloc pa;
    onnx_ctx c = {.al = al, .what = what != NULL ? what : "<memory>"};
    em_storage *s = NULL;
    size_t off = 0;
    ember_status *st = NULL;
    *out = NULL;
    memset(shape, 0, sizeof *shape);
    em_onnx_pb_allocator(al, &pa);
    Onnx__TensorProto *tp = em_onnx__tensor_proto__unpack(&pa.pa, size, data);
    if (tp == NULL) {
        return pa.failed ? em_status_oom()
                         : em_onnx_err(&c, EMBER_ERR_INVALID_MODEL,
                                    "not a valid ONNX TensorProto (protobuf parse error)");
    }
    if (path != NULL) {
        char *real = realpath(path, NULL);
        char *slash = real != NULL ? strrchr(real, '/') : NULL;
        if (slash != NULL) {
            *(slash == real ? slash + 1 : slash) = '\0';
            c.dir = em_strdup(al, real);
        }
        free(real);
    }
    const char *name = tp->name != NULL && tp->name[0] ? tp->name : "<unnamed>";
    st = em_onnx_tensor_convert(&c, tp, name, shape, &s, &off);
    if (st == NULL && shape->dtype == EMBER_DTYPE_STRING) {
        *out = em_storage_retain(s); /* packed and owned already: the bytes follow the pointers */
    } else if (st == NULL) {
        /* The caller wants exactly the tensor's bytes in an owned storage. */
        size_t nbytes = em_tensor_nbytes(shape);
        st = em_storage_new_owned(al, nbytes, out);
        if (st == NULL && nbytes > 0) {
            memcpy(em_storage_data(*out), (const char *)em_storage_data(s) + off, nbytes);
        }
    }
    if (st != NULL) {
        memset(shape, 0, sizeof *shape);
    }
    em_storage_release(s);
    em_onnx_ext_free(&c);
    em_free(al, c.dir);
    em_onnx__tensor_proto__free_unpacked(tp, &pa.pa);
    return st;
}
