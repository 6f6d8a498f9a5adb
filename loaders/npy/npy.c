/* SPDX-License-Identifier: Apache-2.0 */
/*
 * .npy reader and writer (format: numpy/lib/format.py). The header dict is parsed in place
 * by a small scanner over [p, end) that accepts the subset of Python literal syntax numpy
 * itself writes and reads: keys in any order, single or double quotes, any whitespace,
 * trailing commas, `()` and `(n,)` tuples, and Python 2's `3L` longs. Like numpy it rejects
 * unknown or repeated keys. Every read is bounds-checked against the image size, and the one
 * allocation (the tensor's bytes) happens only after the claimed data size has been checked
 * against the bytes actually present.
 */
#include "npy.h"

#include "npy_str.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_ORDER '>'
#define FOREIGN_ORDER '<'
#define FOREIGN_NAME "little-endian"
#else
#define NATIVE_ORDER '<'
#define FOREIGN_ORDER '>'
#define FOREIGN_NAME "big-endian"
#endif

/* Every dtype with a numpy equivalent: the kind character and item size of its descr. */
typedef struct npy_dtype {
    ember_dtype dt;
    char kind;
    unsigned size;
} npy_dtype;

static const npy_dtype npy_dtypes[] = {
    {EMBER_DTYPE_F16, 'f', 2}, {EMBER_DTYPE_F32, 'f', 4}, {EMBER_DTYPE_F64, 'f', 8},
    {EMBER_DTYPE_I8, 'i', 1},  {EMBER_DTYPE_I16, 'i', 2}, {EMBER_DTYPE_I32, 'i', 4},
    {EMBER_DTYPE_I64, 'i', 8}, {EMBER_DTYPE_U8, 'u', 1},  {EMBER_DTYPE_U16, 'u', 2},
    {EMBER_DTYPE_U32, 'u', 4}, {EMBER_DTYPE_U64, 'u', 8}, {EMBER_DTYPE_BOOL, 'b', 1},
};
#define N_NPY_DTYPES (sizeof npy_dtypes / sizeof npy_dtypes[0])

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

enum {
    PREAMBLE_V1 = 10,   /* magic, version, u16 header length */
    DATA_ALIGN = 64,    /* numpy's ARRAY_ALIGN: the data starts at a multiple of this */
    GROWTH_DIGITS = 21, /* numpy's GROWTH_AXIS_MAX_DIGITS: spare room after the dict */
    MAX_SHOWN = 32      /* longest descr or key quoted in a message */
};

/* The three header fields; descr and key text point into the image. */
typedef struct npy_header {
    const char *descr;
    size_t descr_len;
    bool fortran;
    int rank;
    int64_t dims[EM_MAX_RANK];
    bool has_descr, has_fortran, has_shape;
} npy_header;

/* A cursor over the header text. `begin` is where the header starts (for offsets). */
typedef struct scanner {
    const char *begin, *p, *end;
    const char *what;
} scanner;

static ember_status *fail_msg(ember_code code, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static ember_status *fail_msg(ember_code code, const char *what, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return em_status_new(code, "%s: %s", what, msg);
}

/* Copies at most MAX_SHOWN bytes of untrusted text for a message, printable ASCII only. */
static const char *shown(const char *s, size_t n, char buf[MAX_SHOWN + 4])
{
    size_t k = 0;
    for (; k < n && k < MAX_SHOWN; k++) {
        unsigned char c = (unsigned char)s[k];
        buf[k] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (k < n) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

static ember_status *malformed(const scanner *s, const char *problem)
{
    return fail_msg(EMBER_ERR_INVALID_MODEL, s->what,
                    "malformed .npy header: %s at header byte %td", problem, s->p - s->begin);
}

static void skip_ws(scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        s->p++;
    }
}

/* Skips whitespace, then consumes `c` if it is next. */
static bool accept(scanner *s, char c)
{
    skip_ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* A quoted string without escapes (numpy's keys and descrs never need them). */
static ember_status *scan_string(scanner *s, const char *expected, const char **str, size_t *len)
{
    skip_ws(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"')) {
        return malformed(s, expected);
    }
    char quote = *s->p++;
    const char *b = s->p;
    while (s->p < s->end && *s->p != quote) {
        if (*s->p == '\\') {
            return malformed(s, "escape sequence in a string");
        }
        if (*s->p == '\n') {
            break;
        }
        s->p++;
    }
    if (s->p >= s->end || *s->p != quote) {
        return malformed(s, "unterminated string");
    }
    *str = b;
    *len = (size_t)(s->p - b);
    s->p++;
    return NULL;
}

static ember_status *scan_bool(scanner *s, bool *v)
{
    skip_ws(s);
    size_t left = (size_t)(s->end - s->p);
    if (left >= 4 && memcmp(s->p, "True", 4) == 0) {
        *v = true;
        s->p += 4;
    } else if (left >= 5 && memcmp(s->p, "False", 5) == 0) {
        *v = false;
        s->p += 5;
    } else {
        return malformed(s, "'fortran_order' must be True or False");
    }
    if (s->p < s->end && (*s->p == '_' || (*s->p >= '0' && *s->p <= '9') ||
                          ((*s->p | 0x20) >= 'a' && (*s->p | 0x20) <= 'z'))) {
        return malformed(s, "'fortran_order' must be True or False");
    }
    return NULL;
}

/* A decimal dim, possibly negative (rejected by the caller with a clear message), with an
 * optional Python 2 long suffix. */
static ember_status *scan_dim(scanner *s, int64_t *v)
{
    bool neg = accept(s, '-');
    skip_ws(s);
    if (s->p >= s->end || *s->p < '0' || *s->p > '9') {
        return malformed(s, "expected an integer in 'shape'");
    }
    int64_t x = 0;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
        int d = *s->p - '0';
        if (x > (INT64_MAX - d) / 10) {
            return fail_msg(EMBER_ERR_INVALID_MODEL, s->what,
                            "dimension at header byte %td overflows int64", s->p - s->begin);
        }
        x = x * 10 + d;
        s->p++;
    }
    if (s->p < s->end && (*s->p == 'L' || *s->p == 'l')) {
        s->p++;
    }
    *v = neg ? -x : x;
    return NULL;
}

static ember_status *scan_shape(scanner *s, npy_header *h)
{
    if (!accept(s, '(')) {
        return malformed(s, "'shape' must be a tuple");
    }
    h->rank = 0;
    if (accept(s, ')')) {
        return NULL;
    }
    for (;;) {
        if (h->rank == EM_MAX_RANK) {
            return fail_msg(EMBER_ERR_INVALID_MODEL, s->what,
                            "shape has more than %d dims (rank above EMBER_MAX_RANK)", EM_MAX_RANK);
        }
        ember_status *st = scan_dim(s, &h->dims[h->rank]);
        if (st != NULL) {
            return st;
        }
        h->rank++;
        if (accept(s, ',')) {
            if (accept(s, ')')) {
                return NULL;
            }
        } else if (accept(s, ')')) {
            /* Python's (3) is the int 3, not a tuple; numpy rejects it too. */
            return h->rank == 1 ? malformed(s, "'shape' (n) is not a tuple, expected (n,)") : NULL;
        } else {
            return malformed(s, "expected ',' or ')' in 'shape'");
        }
    }
}

/* Parses the value of `key` into `h`. */
static ember_status *scan_value(scanner *s, const char *key, size_t key_len, npy_header *h)
{
    char buf[MAX_SHOWN + 4];
    bool *seen = NULL;
    ember_status *st = NULL;
    if (key_len == 5 && memcmp(key, "descr", 5) == 0) {
        seen = &h->has_descr;
    } else if (key_len == 13 && memcmp(key, "fortran_order", 13) == 0) {
        seen = &h->has_fortran;
    } else if (key_len == 5 && memcmp(key, "shape", 5) == 0) {
        seen = &h->has_shape;
    } else {
        return fail_msg(EMBER_ERR_INVALID_MODEL, s->what,
                        "malformed .npy header: unexpected key '%s'", shown(key, key_len, buf));
    }
    if (*seen) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, s->what,
                        "malformed .npy header: key '%s' appears twice", shown(key, key_len, buf));
    }
    *seen = true;
    if (seen == &h->has_descr) {
        skip_ws(s);
        if (s->p < s->end && *s->p == '[') {
            return fail_msg(EMBER_ERR_UNSUPPORTED, s->what,
                            "unsupported dtype: structured (record) arrays are not supported");
        }
        st = scan_string(s, "expected a string for 'descr'", &h->descr, &h->descr_len);
    } else if (seen == &h->has_fortran) {
        st = scan_bool(s, &h->fortran);
    } else {
        st = scan_shape(s, h);
    }
    return st;
}

static ember_status *parse_header(const char *text, size_t len, const char *what, npy_header *h)
{
    scanner s = {text, text, text + len, what};
    memset(h, 0, sizeof *h);
    if (!accept(&s, '{')) {
        return malformed(&s, "expected '{'");
    }
    for (;;) {
        if (accept(&s, '}')) {
            break;
        }
        const char *key;
        size_t key_len;
        ember_status *st = scan_string(&s, "expected a quoted key or '}'", &key, &key_len);
        if (st == NULL && !accept(&s, ':')) {
            st = malformed(&s, "expected ':' after a key");
        }
        if (st == NULL) {
            st = scan_value(&s, key, key_len, h);
        }
        if (st != NULL) {
            return st;
        }
        if (!accept(&s, ',')) {
            if (accept(&s, '}')) {
                break;
            }
            return malformed(&s, "expected ',' or '}' after a value");
        }
    }
    skip_ws(&s);
    if (s.p != s.end) {
        return malformed(&s, "unexpected text after the dict");
    }
    const char *missing = !h->has_descr     ? "descr"
                          : !h->has_fortran ? "fortran_order"
                          : !h->has_shape   ? "shape"
                                            : NULL;
    if (missing != NULL) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what, "malformed .npy header: no '%s' key",
                        missing);
    }
    return NULL;
}

static const npy_dtype *dtype_by_descr(char kind, unsigned size)
{
    for (size_t i = 0; i < N_NPY_DTYPES; i++) {
        if (npy_dtypes[i].kind == kind && npy_dtypes[i].size == size) {
            return &npy_dtypes[i];
        }
    }
    return NULL;
}

static const npy_dtype *dtype_by_ember(ember_dtype dt)
{
    for (size_t i = 0; i < N_NPY_DTYPES; i++) {
        if (npy_dtypes[i].dt == dt) {
            return &npy_dtypes[i];
        }
    }
    return NULL;
}

/* Maps a descr ("<f4", "|b1", "=i8", "u2") to a dtype. A missing byte-order character, '='
 * and '|' mean native order; 1-byte types take any order character. */
static ember_status *check_descr(const npy_header *h, const char *what, ember_dtype *dt)
{
    char buf[MAX_SHOWN + 4];
    const char *d = h->descr;
    size_t n = h->descr_len;
    char order = '=';
    if (n > 0 && strchr("<>|=", d[0]) != NULL) {
        order = d[0];
        d++;
        n--;
    }
    const npy_dtype *nd = NULL;
    if (n == 2 && d[1] >= '1' && d[1] <= '8') {
        nd = dtype_by_descr(d[0], (unsigned)(d[1] - '0'));
    }
    if (nd == NULL) {
        return fail_msg(EMBER_ERR_UNSUPPORTED, what, "unsupported dtype '%s'",
                        shown(h->descr, h->descr_len, buf));
    }
    if (nd->size > 1 && order == FOREIGN_ORDER) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        FOREIGN_NAME " data ('%s') is not supported; convert with "
                                     "a.astype('%c%c%u')",
                        shown(h->descr, h->descr_len, buf), NATIVE_ORDER, nd->kind, nd->size);
    }
    *dt = nd->dt;
    return NULL;
}

/* Checks magic, version and header length; the header is [*hdr_start, + *hdr_len). */
static ember_status *read_preamble(const unsigned char *b, size_t size, const char *what,
                                   size_t *hdr_start, size_t *hdr_len)
{
    for (size_t i = 0; i < size && i < sizeof npy_magic; i++) {
        if (b[i] != npy_magic[i]) {
            return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                            "not a .npy file (bad magic: expected \\x93NUMPY)");
        }
    }
    if (size < 8) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        "truncated header: %zu bytes, too short for a .npy file", size);
    }
    unsigned major = b[6], minor = b[7];
    if (major < 1 || major > 3 || minor != 0) {
        return fail_msg(EMBER_ERR_UNSUPPORTED, what,
                        "unsupported .npy format version %u.%u (1.0, 2.0 and 3.0 are read)", major,
                        minor);
    }
    size_t start = major == 1 ? 10 : 12;
    if (size < start) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        "truncated header: %zu bytes, the version %u.0 preamble needs %zu", size,
                        major, start);
    }
    size_t len = (size_t)b[8] | (size_t)b[9] << 8;
    if (major > 1) {
        len |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
    }
    if (len > size - start) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        "truncated header: header length %zu runs past the end of the file "
                        "(%zu bytes after the preamble)",
                        len, size - start);
    }
    *hdr_start = start;
    *hdr_len = len;
    return NULL;
}

/* Validates the parsed shape and computes the data size in bytes. */
static ember_status *check_shape(const npy_header *h, ember_dtype dt, const char *what,
                                 size_t *nbytes)
{
    char dims[192];
    for (int i = 0; i < h->rank; i++) {
        if (h->dims[i] < 0) {
            return fail_msg(EMBER_ERR_INVALID_MODEL, what, "negative dimension %lld in shape",
                            (long long)h->dims[i]);
        }
    }
    int64_t numel;
    if (!em_shape_numel_checked(h->dims, h->rank, &numel) || (uint64_t)numel > SIZE_MAX ||
        !em_size_mul((size_t)numel, em_dtype_size(dt), nbytes)) {
        em_dims_str(h->dims, h->rank, dims, sizeof dims);
        return fail_msg(EMBER_ERR_INVALID_MODEL, what, "shape %s of %s overflows the byte size",
                        dims, em_dtype_name(dt));
    }
    return NULL;
}

static bool is_string_descr(const npy_header *h)
{
    char kind, order;
    size_t chars;
    return em_npy_str_descr(h->descr, h->descr_len, &kind, &chars, &order);
}

/* A '<U<n>' or '|S<n>' array (npy_str.h) at data[0..avail) into a packed string storage. */
static ember_status *read_strings(const unsigned char *data, size_t avail, const char *what,
                                  const ember_allocator *al, const npy_header *h,
                                  em_tensor *shape, em_storage **out)
{
    char kind, order, buf[MAX_SHOWN + 4];
    size_t chars, item, nbytes;
    int64_t numel;
    em_npy_str_descr(h->descr, h->descr_len, &kind, &chars, &order);
    if (kind == 'U' && order == FOREIGN_ORDER) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        FOREIGN_NAME " data ('%s') is not supported; convert with a.astype('%cU%zu')",
                        shown(h->descr, h->descr_len, buf), NATIVE_ORDER, chars);
    }
    if (h->fortran) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        "Fortran-order arrays are not supported; save with np.ascontiguousarray");
    }
    ember_status *st = check_shape(h, EMBER_DTYPE_STRING, what, &nbytes);
    if (st != NULL) {
        return st;
    }
    em_shape_numel_checked(h->dims, h->rank, &numel);
    if (!em_npy_str_itemsize(kind, chars, &item) || !em_size_mul((size_t)numel, item, &nbytes)) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what, "the string array's byte size overflows");
    }
    if (avail < nbytes) {
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        "truncated data: has %zu bytes of data, expected %zu ('%s')", avail,
                        nbytes, shown(h->descr, h->descr_len, buf));
    }
    if (item == 0 && numel > ((int64_t)1 << 20)) { /* no data bounds the pointer array */
        return fail_msg(EMBER_ERR_INVALID_MODEL, what,
                        "%lld elements of the zero-length dtype '%s' (at most 2^20 are read)",
                        (long long)numel, shown(h->descr, h->descr_len, buf));
    }
    st = em_npy_str_read(data, numel, kind, chars, what, al, out);
    if (st == NULL) {
        em_tensor_set_shape(shape, EMBER_DTYPE_STRING, h->dims, h->rank);
    }
    return st;
}

ember_status *em_npy_read(const void *data, size_t size, const char *what,
                          const ember_allocator *al, em_tensor *shape, em_storage **out)
{
    ember_status *st = NULL;
    em_storage *stg = NULL;
    const unsigned char *b = data;
    size_t hdr_start = 0, hdr_len = 0, nbytes = 0;
    npy_header h;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;

    if (what == NULL) {
        what = "npy";
    }
    if (out != NULL) {
        *out = NULL;
    }
    if (shape != NULL) {
        memset(shape, 0, sizeof *shape);
    }
    if (out == NULL || shape == NULL || (data == NULL && size > 0)) {
        return fail_msg(EMBER_ERR_INVALID_ARG, what, "em_npy_read: NULL argument");
    }
    EMBER_TRY(read_preamble(b, size, what, &hdr_start, &hdr_len));
    EMBER_TRY(parse_header((const char *)b + hdr_start, hdr_len, what, &h));
    if (is_string_descr(&h)) {
        return read_strings(b + hdr_start + hdr_len, size - hdr_start - hdr_len, what, al, &h,
                            shape, out);
    }
    EMBER_TRY(check_descr(&h, what, &dt));
    if (h.fortran) {
        st = fail_msg(EMBER_ERR_INVALID_MODEL, what,
                      "Fortran-order arrays are not supported; save with np.ascontiguousarray");
        goto fail;
    }
    EMBER_TRY(check_shape(&h, dt, what, &nbytes));
    size_t avail = size - hdr_start - hdr_len;
    if (avail < nbytes) {
        char dims[192];
        em_dims_str(h.dims, h.rank, dims, sizeof dims);
        st = fail_msg(EMBER_ERR_INVALID_MODEL, what,
                      "truncated data: has %zu bytes of data, expected %zu (%s%s)", avail, nbytes,
                      em_dtype_name(dt), dims);
        goto fail;
    }
    EMBER_TRY(em_storage_new_owned(al, nbytes, &stg));
    if (nbytes > 0) {
        memcpy(em_storage_data(stg), b + hdr_start + hdr_len, nbytes);
    }
    em_tensor_set_shape(shape, dt, h.dims, h.rank);
    *out = stg;
    return NULL;
fail:
    em_storage_release(stg);
    return st;
}

/* The dict as numpy 1.22+ writes it: sorted keys, repr'd values, a trailing ", ", then
 * spare spaces so that the first dim can grow in place. Returns its length. */
static size_t format_dict(const em_tensor *t, const char *descr, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                                descr);
    for (int i = 0; i < t->rank; i++) {
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i > 0 ? ", " : "", (long long)t->dims[i]);
    }
    n += (size_t)snprintf(buf + n, cap - n, "%s), }", t->rank == 1 ? "," : "");
    EMBER_ASSERT(n + GROWTH_DIGITS < cap);
    if (t->rank > 0) {
        int digits = snprintf(NULL, 0, "%lld", (long long)t->dims[0]);
        for (int i = digits; i < GROWTH_DIGITS; i++) {
            buf[n++] = ' ';
        }
    }
    buf[n] = '\0';
    return n;
}

ember_status *em_npy_write(const em_tensor *t, void **out, size_t *out_size)
{
    /* Dict prefix, 8 dims of up to 19 digits plus ", ", the suffix and the growth spaces. */
    char dict[64 + EM_MAX_RANK * 24 + GROWTH_DIGITS + 8];
    size_t nbytes = 0, total = 0;

    if (out != NULL) {
        *out = NULL;
    }
    if (out_size != NULL) {
        *out_size = 0;
    }
    if (t == NULL || out == NULL || out_size == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "npy: em_npy_write: NULL argument");
    }
    const npy_dtype *nd = dtype_by_ember(t->dtype);
    char descr[32];
    size_t chars = 0;
    if (nd == NULL && t->dtype != EMBER_DTYPE_STRING) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "npy: dtype %s has no .npy equivalent",
                             em_dtype_name(t->dtype));
    }
    if (t->rank < 0 || t->rank > EM_MAX_RANK || !em_tensor_nbytes_checked(t, &nbytes)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "npy: invalid rank %d or dims", t->rank);
    }
    if (nbytes > 0 && t->data == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "npy: tensor has no data");
    }
    if (nd == NULL) { /* strings: numpy unicode of the longest element's length */
        ember_status *st = em_npy_str_chars(t, &chars);
        if (st != NULL) {
            return st;
        }
        if (!em_size_mul((size_t)em_tensor_numel(t), 4 * chars, &nbytes)) {
            return em_status_oom();
        }
        snprintf(descr, sizeof descr, "%cU%zu", NATIVE_ORDER, chars);
    } else {
        snprintf(descr, sizeof descr, "%c%c%u", nd->size == 1 ? '|' : NATIVE_ORDER, nd->kind,
                 nd->size);
    }
    size_t dict_len = format_dict(t, descr, dict, sizeof dict);
    /* numpy's padding: 1..64 spaces, so there is always at least one. */
    size_t pad = DATA_ALIGN - (PREAMBLE_V1 + dict_len + 1) % DATA_ALIGN;
    size_t hdr_len = dict_len + pad + 1;
    EMBER_ASSERT(hdr_len <= 0xffff);
    if (!em_size_add(PREAMBLE_V1 + hdr_len, nbytes, &total)) {
        return em_status_oom();
    }
    unsigned char *buf = em_malloc(NULL, total); /* NULL allocator: libc, freed with free() */
    if (buf == NULL) {
        return em_status_oom();
    }
    memcpy(buf, npy_magic, sizeof npy_magic);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(hdr_len & 0xff);
    buf[9] = (unsigned char)(hdr_len >> 8);
    memcpy(buf + PREAMBLE_V1, dict, dict_len);
    memset(buf + PREAMBLE_V1 + dict_len, ' ', pad);
    buf[PREAMBLE_V1 + hdr_len - 1] = '\n';
    if (nd == NULL) {
        em_npy_str_fill(t, chars, buf + PREAMBLE_V1 + hdr_len);
    } else if (nbytes > 0) {
        memcpy(buf + PREAMBLE_V1 + hdr_len, t->data, nbytes);
    }
    *out = buf;
    *out_size = total;
    return NULL;
}
