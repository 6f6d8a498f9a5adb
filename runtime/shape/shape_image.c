/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shape function of ImageDecoder-20 and the image header parser it shares with the reference
 * kernel (image.h). Output: uint8 [H, W, 3] (pixel_format RGB or BGR) or [H, W, 1] (Grayscale);
 * H and W come from the encoded image's header when the input's value is known, and are unknown
 * otherwise. Every read is bounds-checked against the buffer, every size is checked before any
 * arithmetic can overflow, and the dims are capped (EM_IMAGE_MAX_PIXELS).
 */
#include "shape/shape.h"

#include "ir/image.h"

#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Byte readers (callers check the bounds) ------------------------------------------- */

static uint32_t le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
    return le16(p) | le16(p + 2) << 16;
}

static uint32_t be16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
    return be16(p) << 16 | be16(p + 2);
}

static uint64_t be64(const uint8_t *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static ember_code fail(char *err, size_t cap, ember_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static ember_code fail(char *err, size_t cap, ember_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return code;
}

#define TRUNCATED(fmt_name)                                                                        \
    fail(err, cap, EMBER_ERR_INVALID_ARG, "%s: the header is truncated", fmt_name)

const char *em_image_format_name(em_image_format f)
{
    static const char *const names[] = {"unknown", "BMP",  "JPEG", "PNM",
                                        "PNG",     "TIFF", "WebP", "JPEG 2000"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "unknown";
}

bool em_image_pixfmt_parse(const char *s, em_image_pixfmt *pf)
{
    static const char *const names[] = {"RGB", "BGR", "Grayscale"};
    for (int i = 0; i < 3; i++) {
        if (s != NULL && strcmp(s, names[i]) == 0) {
            *pf = (em_image_pixfmt)i;
            return true;
        }
    }
    return false;
}

int em_image_pixfmt_channels(em_image_pixfmt pf)
{
    return pf == EM_IMAGE_GRAY ? 1 : 3;
}

/* ---- Format detection (PIL's _accept functions) ----------------------------------------- */

static em_image_format detect(const uint8_t *p, size_t n)
{
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t jp2_sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n'};
    static const char tiff_sig[6][4] = {{'M', 'M', 0, 0x2a}, {'I', 'I', 0x2a, 0},
                                        {'M', 'M', 0x2a, 0}, {'I', 'I', 0, 0x2a},
                                        {'M', 'M', 0, 0x2b}, {'I', 'I', 0x2b, 0}};
    if (n >= 2 && p[0] == 'B' && p[1] == 'M') {
        return EM_IMAGE_BMP;
    }
    if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff) {
        return EM_IMAGE_JPEG;
    }
    if (n >= 2 && p[0] == 'P' && p[1] != 0 && strchr("0123456y", p[1]) != NULL) {
        return EM_IMAGE_PNM;
    }
    if (n >= 8 && memcmp(p, png_sig, 8) == 0) {
        return EM_IMAGE_PNG;
    }
    for (int i = 0; n >= 4 && i < 6; i++) {
        if (memcmp(p, tiff_sig[i], 4) == 0) {
            return EM_IMAGE_TIFF;
        }
    }
    if (n >= 16 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0 &&
        (memcmp(p + 12, "VP8 ", 4) == 0 || memcmp(p + 12, "VP8L", 4) == 0 ||
         memcmp(p + 12, "VP8X", 4) == 0)) {
        return EM_IMAGE_WEBP;
    }
    if ((n >= 4 && p[0] == 0xff && p[1] == 0x4f && p[2] == 0xff && p[3] == 0x51) ||
        (n >= 12 && memcmp(p, jp2_sig, 12) == 0)) {
        return EM_IMAGE_JPEG2000;
    }
    return EM_IMAGE_UNKNOWN;
}

/* ---- BMP (BmpImagePlugin: file header, then a 12, 40, 64, 108 or 124-byte DIB header) ---- */

/* BI_BITFIELDS layouts PIL accepts: bits, R, G, B, A masks. */
static bool bmp_masks_ok(int bits, const uint32_t m[4])
{
    static const uint32_t ok[][5] = {{32, 0xff0000, 0xff00, 0xff, 0},
                                     {32, 0xff000000, 0xff0000, 0xff00, 0},
                                     {32, 0xff000000, 0xff0000, 0xff00, 0xff},
                                     {32, 0xff, 0xff00, 0xff0000, 0xff000000},
                                     {32, 0xff0000, 0xff00, 0xff, 0xff000000},
                                     {24, 0xff0000, 0xff00, 0xff, 0},
                                     {16, 0xf800, 0x7e0, 0x1f, 0},
                                     {16, 0x7c00, 0x3e0, 0x1f, 0}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        bool alpha_free = bits != 32; /* 24 and 16 bits compare R, G, B only */
        if ((int)ok[i][0] == bits && ok[i][1] == m[0] && ok[i][2] == m[1] && ok[i][3] == m[2] &&
            (alpha_free || ok[i][4] == m[3])) {
            return true;
        }
    }
    /* PIL reads all-zero 32-bit masks as BGRA. */
    return bits == 32 && m[0] == 0 && m[1] == 0 && m[2] == 0 && m[3] == 0;
}

static ember_code bmp_masks(const uint8_t *p, size_t n, uint32_t hsize, em_image_info *info,
                            size_t *after, char *err, size_t cap)
{
    em_image_bmp *b = &info->bmp;
    uint32_t m[4] = {0, 0, 0, 0};
    if (hsize >= 56) { /* the masks are part of the header */
        for (int i = 0; i < 4; i++) {
            m[i] = le32(p + 54 + 4 * i);
        }
    } else { /* a 40-byte header: three masks follow it */
        if (n < 66) {
            return TRUNCATED("BMP");
        }
        for (int i = 0; i < 3; i++) {
            m[i] = le32(p + 54 + 4 * i);
        }
        *after += 12;
    }
    if (!bmp_masks_ok(b->bits, m)) {
        return fail(err, cap, EMBER_ERR_UNSUPPORTED, "BMP: unsupported bitfields layout");
    }
    if (m[0] == 0 && m[1] == 0 && m[2] == 0) {
        m[0] = 0xff0000, m[1] = 0xff00, m[2] = 0xff;
    }
    memcpy(b->masks, m, sizeof b->masks);
    return EMBER_OK;
}

static ember_code bmp_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    em_image_bmp *b = &info->bmp;
    if (n < 18) {
        return TRUNCATED("BMP");
    }
    uint32_t offset = le32(p + 10), hsize = le32(p + 14), compression = 0, colors = 0;
    if (hsize != 12 && hsize != 40 && hsize != 64 && hsize != 108 && hsize != 124) {
        return fail(err, cap, EMBER_ERR_UNSUPPORTED, "BMP: unsupported header size %u",
                    (unsigned)hsize);
    }
    if (n < 14 + (size_t)hsize) {
        return TRUNCATED("BMP");
    }
    size_t after = 14 + (size_t)hsize;
    if (hsize == 12) { /* OS/2 1.x */
        info->width = le16(p + 18);
        info->height = le16(p + 20);
        b->bits = (int)le16(p + 24);
        b->palette_entry = 3;
    } else {
        b->top_down = p[25] == 0xff;
        info->width = le32(p + 18);
        info->height = b->top_down ? ((int64_t)1 << 32) - le32(p + 22) : le32(p + 22);
        b->bits = (int)le16(p + 28);
        compression = le32(p + 30);
        colors = le32(p + 46);
        b->palette_entry = 4;
    }
    int bits = b->bits;
    if (bits != 1 && bits != 4 && bits != 8 && bits != 16 && bits != 24 && bits != 32) {
        return fail(err, cap, EMBER_ERR_UNSUPPORTED, "BMP: unsupported pixel depth %d", bits);
    }
    static const uint32_t dflt[3][3] = {
        {0x7c00, 0x3e0, 0x1f}, {0xff0000, 0xff00, 0xff}, {0xff0000, 0xff00, 0xff}};
    if (bits >= 16) {
        memcpy(b->masks, dflt[bits / 8 - 2], sizeof b->masks);
    }
    if (compression == 3) {
        ember_code c = bmp_masks(p, n, hsize, info, &after, err, cap);
        if (c != EMBER_OK) {
            return c;
        }
    } else if (compression == 1 || compression == 2) {
        return fail(err, cap, EMBER_ERR_UNSUPPORTED, "BMP: RLE compression is not supported");
    } else if (compression != 0) {
        return fail(err, cap, EMBER_ERR_UNSUPPORTED, "BMP: unsupported compression %u",
                    (unsigned)compression);
    }
    if (bits <= 8) {
        b->colors = colors != 0 ? colors : 1u << bits;
        if (b->colors > 65536) {
            return fail(err, cap, EMBER_ERR_UNSUPPORTED, "BMP: unsupported palette size %u",
                        (unsigned)b->colors);
        }
        if (offset == 14 + hsize) { /* PIL: such an offset points at the palette */
            offset += 4 * b->colors;
        }
        b->palette = after;
        after += (size_t)b->palette_entry * b->colors;
    }
    b->data = offset != 0 ? offset : after;
    return EMBER_OK;
}

/* ---- PNM (PpmImagePlugin: magic, then width, height and maxval tokens) ------------------ */

static bool pnm_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* PIL's _read_token: skips leading whitespace, drops '#' comments up to CR/LF (also inside a
 * token), stops at whitespace after at least one byte; at most 10 bytes, digits only here. */
static ember_code pnm_token(const uint8_t *p, size_t n, size_t *pos, uint32_t *v, char *err,
                            size_t cap)
{
    char tok[12];
    size_t len = 0, i = *pos;
    while (len <= 10 && i < n) {
        uint8_t c = p[i++];
        if (pnm_space(c)) {
            if (len == 0) {
                continue;
            }
            break;
        }
        if (c == '#') {
            while (i < n && p[i] != '\r' && p[i] != '\n') {
                i++;
            }
            i += i < n;
            continue;
        }
        tok[len++] = (char)c;
    }
    *pos = i;
    if (len == 0) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "PNM: the header ends early");
    }
    if (len > 10) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "PNM: header token too long");
    }
    uint64_t x = 0;
    for (size_t k = 0; k < len; k++) {
        if (tok[k] < '0' || tok[k] > '9') {
            return fail(err, cap, EMBER_ERR_INVALID_ARG, "PNM: header token '%.*s' is not a number",
                        (int)len, tok);
        }
        x = x * 10 + (uint64_t)(tok[k] - '0');
    }
    *v = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
    return EMBER_OK;
}

static ember_code pnm_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    em_image_pnm *m = &info->pnm;
    size_t i = 0, mlen = 0;
    char magic[7];
    while (mlen < 6 && i < n) {
        uint8_t c = p[i++];
        if (pnm_space(c)) {
            break;
        }
        magic[mlen++] = (char)c;
    }
    if (mlen != 2 || magic[1] < '1' || magic[1] > '6') {
        bool pil_ext = mlen >= 3 && (magic[1] == '0' || magic[1] == 'y');
        return fail(err, cap, pil_ext ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_ARG,
                    "PNM: %s magic '%.*s'", pil_ext ? "unsupported" : "bad", (int)mlen, magic);
    }
    m->kind = magic[1];
    m->channels = (m->kind == '3' || m->kind == '6') ? 3 : 1;
    bool bitmap = m->kind == '1' || m->kind == '4';
    uint32_t v[3] = {0, 0, 1};
    for (int t = 0; t < (bitmap ? 2 : 3); t++) {
        ember_code c = pnm_token(p, n, &i, &v[t], err, cap);
        if (c != EMBER_OK) {
            return c;
        }
    }
    if (v[2] == 0 || v[2] > 65535) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "PNM: maxval %u is not in [1, 65535]",
                    (unsigned)v[2]);
    }
    info->width = v[0];
    info->height = v[1];
    m->maxval = v[2];
    m->data = i;
    return EMBER_OK;
}

/* ---- PNG, JPEG, TIFF, WebP, JPEG 2000: the dims only ------------------------------------- */

static ember_code png_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    if (n < 24 || be32(p + 8) != 13 || memcmp(p + 12, "IHDR", 4) != 0) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "PNG: the first chunk is not IHDR");
    }
    info->width = be32(p + 16);
    info->height = be32(p + 20);
    return EMBER_OK;
}

/* Walks the markers up to the first SOFn (as libjpeg: bytes between markers are skipped). */
static ember_code jpeg_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    size_t i = 2;
    for (;;) {
        while (i < n && p[i] != 0xff) {
            i++;
        }
        while (i < n && p[i] == 0xff) {
            i++;
        }
        if (i >= n) {
            return TRUNCATED("JPEG");
        }
        uint8_t m = p[i++];
        if (m == 0xd9 || m == 0xda) {
            return fail(err, cap, EMBER_ERR_INVALID_ARG, "JPEG: no frame header before %s",
                        m == 0xda ? "the scan" : "the end");
        }
        if (m == 0x00 || m == 0x01 || (m >= 0xd0 && m <= 0xd8)) {
            continue; /* no length (0x00: a stuffed byte, not a marker) */
        }
        if (i + 2 > n) {
            return TRUNCATED("JPEG");
        }
        size_t len = be16(p + i);
        bool sof = m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
        if (sof) {
            if (len < 8 || i + 7 > n) {
                return TRUNCATED("JPEG");
            }
            info->height = be16(p + i + 3);
            info->width = be16(p + i + 5);
            return EMBER_OK;
        }
        if (len < 2) {
            return fail(err, cap, EMBER_ERR_INVALID_ARG, "JPEG: bad marker length");
        }
        i += len;
    }
}

typedef struct tiff_reader {
    const uint8_t *p;
    size_t n;
    bool big_endian, big_tiff;
} tiff_reader;

static uint64_t tiff_uint(const tiff_reader *t, size_t at, int bytes)
{
    uint64_t v = 0;
    for (int k = 0; k < bytes; k++) {
        int b = t->big_endian ? k : bytes - 1 - k;
        v = v << 8 | t->p[at + (size_t)b];
    }
    return v;
}

/* ImageWidth (256) and ImageLength (257) of the first IFD (classic or BigTIFF). */
static ember_code tiff_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    tiff_reader t = {p, n, p[0] == 'M', false};
    if (n < 8) {
        return TRUNCATED("TIFF");
    }
    uint64_t version = tiff_uint(&t, 2, 2);
    if (version != 42 && version != 43) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "TIFF: bad version %u", (unsigned)version);
    }
    t.big_tiff = version == 43;
    int osz = t.big_tiff ? 8 : 4, csz = t.big_tiff ? 8 : 2, esz = t.big_tiff ? 20 : 12;
    if (n < (size_t)(t.big_tiff ? 16 : 8)) {
        return TRUNCATED("TIFF");
    }
    uint64_t ifd = tiff_uint(&t, t.big_tiff ? 8 : 4, osz);
    if (ifd > n || n - ifd < (uint64_t)csz) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "TIFF: the first IFD is outside the file");
    }
    uint64_t count = tiff_uint(&t, (size_t)ifd, csz);
    if (count > (n - ifd - (uint64_t)csz) / (uint64_t)esz) {
        return TRUNCATED("TIFF");
    }
    int64_t dims[2] = {-1, -1};
    for (uint64_t e = 0; e < count; e++) {
        size_t at = (size_t)ifd + (size_t)csz + (size_t)e * (size_t)esz;
        uint64_t tag = tiff_uint(&t, at, 2), type = tiff_uint(&t, at + 2, 2);
        if (tag != 256 && tag != 257) {
            continue;
        }
        int vsz = type == 3 ? 2 : type == 4 ? 4 : type == 16 ? 8 : 0;
        if (vsz == 0 || tiff_uint(&t, at + 4, t.big_tiff ? 8 : 4) != 1) {
            return fail(err, cap, EMBER_ERR_INVALID_ARG, "TIFF: bad image %s field",
                        tag == 256 ? "width" : "length");
        }
        uint64_t v = tiff_uint(&t, at + (t.big_tiff ? 12 : 8), vsz);
        dims[tag - 256] = v > INT32_MAX ? INT32_MAX : (int64_t)v;
    }
    if (dims[0] < 0 || dims[1] < 0) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "TIFF: no image width or length");
    }
    info->width = dims[0];
    info->height = dims[1];
    return EMBER_OK;
}

static ember_code webp_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    const uint8_t *c = p + 20; /* the first chunk's payload */
    if (memcmp(p + 12, "VP8X", 4) == 0) {
        if (n < 30) {
            return TRUNCATED("WebP");
        }
        info->width = (int64_t)(le32(c + 4) & 0xffffff) + 1;
        info->height = (int64_t)(le32(c + 6) >> 8) + 1;
    } else if (memcmp(p + 12, "VP8L", 4) == 0) {
        if (n < 25 || c[0] != 0x2f) {
            return n < 25 ? TRUNCATED("WebP")
                          : fail(err, cap, EMBER_ERR_INVALID_ARG, "WebP: bad VP8L signature");
        }
        uint32_t bits = le32(c + 1);
        info->width = (int64_t)(bits & 0x3fff) + 1;
        info->height = (int64_t)((bits >> 14) & 0x3fff) + 1;
    } else {
        if (n < 30) {
            return TRUNCATED("WebP");
        }
        if (c[3] != 0x9d || c[4] != 0x01 || c[5] != 0x2a) {
            return fail(err, cap, EMBER_ERR_INVALID_ARG, "WebP: bad VP8 start code");
        }
        info->width = le16(c + 6) & 0x3fff;
        info->height = le16(c + 8) & 0x3fff;
    }
    return EMBER_OK;
}

/* The SIZ segment right after SOC: image size minus the image offset. */
static ember_code j2k_siz(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    if (n < 24 || p[0] != 0xff || p[1] != 0x4f || p[2] != 0xff || p[3] != 0x51) {
        return n < 24 ? TRUNCATED("JPEG 2000")
                      : fail(err, cap, EMBER_ERR_INVALID_ARG, "JPEG 2000: no SIZ segment");
    }
    uint32_t xsiz = be32(p + 8), ysiz = be32(p + 12), xo = be32(p + 16), yo = be32(p + 20);
    info->width = xsiz > xo ? (int64_t)(xsiz - xo) : 0;
    info->height = ysiz > yo ? (int64_t)(ysiz - yo) : 0;
    return EMBER_OK;
}

/* A JP2 file: top-level boxes up to the contiguous codestream box 'jp2c'. */
static ember_code jp2_parse(const uint8_t *p, size_t n, em_image_info *info, char *err, size_t cap)
{
    if (n >= 4 && p[0] == 0xff) {
        return j2k_siz(p, n, info, err, cap);
    }
    size_t i = 0;
    while (i + 8 <= n) {
        uint64_t len = be32(p + i), hdr = 8;
        if (len == 1) {
            if (i + 16 > n) {
                break;
            }
            len = be64(p + i + 8);
            hdr = 16;
        } else if (len == 0) {
            len = n - i;
        }
        if (len < hdr || len > n - i) {
            len = n - i; /* a box past the end: let the codestream reader report it */
        }
        if (memcmp(p + i + 4, "jp2c", 4) == 0) {
            return j2k_siz(p + i + hdr, (size_t)(len - hdr), info, err, cap);
        }
        i += (size_t)len;
    }
    return fail(err, cap, EMBER_ERR_INVALID_ARG, "JPEG 2000: no codestream box");
}

/* The fewest bytes that can hold the pixels of an uncompressed format (BMP: every stored row but
 * the padding of the last, as PIL reads them; PNM: raw samples, or one byte per plain bit and two
 * per plain sample but the last), so that a short file fails before anything is allocated. 0 for
 * the compressed formats, whose decoders find truncation themselves. */
static uint64_t min_bytes(const em_image_info *info)
{
    uint64_t w = (uint64_t)info->width, h = (uint64_t)info->height;
    if (info->format == EM_IMAGE_BMP) {
        uint64_t bits = (uint64_t)info->bmp.bits, stride = ((w * bits + 31) >> 3) & ~(uint64_t)3;
        return info->bmp.data + stride * (h - 1) + (w * bits + 7) / 8;
    }
    if (info->format != EM_IMAGE_PNM) {
        return 0;
    }
    const em_image_pnm *m = &info->pnm;
    uint64_t count = w * h * (uint64_t)m->channels;
    switch (m->kind) {
    case '1':
        return m->data + count;
    case '4':
        return m->data + (w + 7) / 8 * h;
    case '2':
    case '3':
        return m->data + 2 * count - 1;
    default:
        return m->data + count * (m->maxval < 256 ? 1 : 2);
    }
}

ember_code em_image_probe(const uint8_t *data, size_t n, em_image_info *info, char *err, size_t cap)
{
    typedef ember_code (*parse_fn)(const uint8_t *, size_t, em_image_info *, char *, size_t);
    static const parse_fn parsers[] = {NULL,      bmp_parse,  jpeg_parse, pnm_parse,
                                       png_parse, tiff_parse, webp_parse, jp2_parse};
    memset(info, 0, sizeof *info);
    info->format = data != NULL ? detect(data, n) : EM_IMAGE_UNKNOWN;
    if (info->format == EM_IMAGE_UNKNOWN) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG,
                    "the input is not a BMP, JPEG, JPEG 2000, PNG, PNM, TIFF or WebP image "
                    "(%zu bytes)",
                    n);
    }
    ember_code c = parsers[info->format](data, n, info, err, cap);
    if (c != EMBER_OK) {
        return c;
    }
    const char *name = em_image_format_name(info->format);
    if (info->width <= 0 || info->height <= 0) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG, "%s: the image is %lld x %lld pixels", name,
                    (long long)info->width, (long long)info->height);
    }
    if (info->width > EM_IMAGE_MAX_PIXELS / info->height) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG,
                    "%s: %lld x %lld pixels is over the limit of %lld pixels", name,
                    (long long)info->width, (long long)info->height,
                    (long long)EM_IMAGE_MAX_PIXELS);
    }
    uint64_t need = min_bytes(info);
    if (need > n) {
        return fail(err, cap, EMBER_ERR_INVALID_ARG,
                    "%s: the pixel data is truncated (%llu bytes needed, %zu given)", name,
                    (unsigned long long)need, n);
    }
    return EMBER_OK;
}

/* ---- The shape function ---------------------------------------------------------------- */

ember_status *em_shape_image_decoder(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    const em_attr *a = em_node_attr(n, "pixel_format");
    em_image_pixfmt pf = EM_IMAGE_RGB;
    if (a != NULL && (a->type != EM_ATTR_STRING || !em_image_pixfmt_parse(a->s, &pf))) {
        return em_shape_bad(n, "attribute 'pixel_format' must be \"RGB\", \"BGR\" or "
                               "\"Grayscale\"");
    }
    if ((x->dtype != EMBER_DTYPE_UNDEFINED && x->dtype != EMBER_DTYPE_U8) ||
        (x->rank >= 0 && x->rank != 1)) {
        return em_shape_bad(n, "input 0 (encoded_stream) must be a 1-D uint8 tensor");
    }
    out->dtype = EMBER_DTYPE_U8;
    out->rank = 3;
    out->dims[0] = em_dim_unknown();
    out->dims[1] = em_dim_unknown();
    out->dims[2] = em_dim_known(em_image_pixfmt_channels(pf));
    const em_tensor *v = x->value;
    if (v == NULL) {
        return NULL;
    }
    size_t len = (size_t)em_tensor_numel(v);
    if (v->data == NULL && len > 0) {
        return em_shape_bad(n, "input 0 has a value without data");
    }
    em_image_info info;
    char err[256];
    ember_code c = em_image_probe(v->data, len, &info, err, sizeof err);
    if (c != EMBER_OK) {
        return em_status_new(c, "node '%s' (%s): %s", n->name, em_op_name(n->op), err);
    }
    out->dims[0] = em_dim_known(info.height);
    out->dims[1] = em_dim_known(info.width);
    return NULL;
}
