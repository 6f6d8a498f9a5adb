/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TIFF, WebP and JPEG 2000 decoders of ImageDecoder, through libtiff.so.6 (4.5+: per-handle
 * error handlers, so nothing is printed and no global handler changes), libwebp.so.7 and
 * libopenjp2.so.7, dlopen'ed on first use like image_jpeg_png.c does. Values follow PIL 9.4:
 *  - TIFF, first directory. Strip images of 8-bit RGB(A), grey(+alpha), palette (colormap
 *    entries >> 8) and 1/2/4/8-bit grey are read by scanline and converted as PIL's unpackers do
 *    (MinIsWhite inverted, low depths scaled, associated alpha divided out); anything else
 *    (tiles, planar, 16-bit, YCbCr, CMYK...) goes through libtiff's RGBA interface, which may
 *    round differently from PIL where PIL keeps more bits.
 *  - WebP, still images (animations are UNSUPPORTED), decoded to RGB; alpha is dropped.
 *  - JPEG 2000 (codestream or JP2): 1-4 components of the full size, sRGB / grey / unspecified
 *    colour space; samples become 8 bits as PIL's unpackers do (Jpeg2KDecode.c: offset for signed
 *    samples, shift by 8 - precision with rounding, keep the low byte), and grey JP2 files over 9
 *    bits (PIL mode I;16) clip at 255.
 */
#define _POSIX_C_SOURCE 200809L
#include "ref.h"

#include <string.h>

#if defined(EMBER_HAVE_IMAGE_TIFF) || defined(EMBER_HAVE_IMAGE_WEBP) ||                            \
    defined(EMBER_HAVE_IMAGE_OPENJP2)
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#endif

/* Returns false (UNSUPPORTED) from a decoder whose library headers were not found at build time. */
#define NOT_BUILT(d, fmt, header)                                                                  \
    em_image_fail(d, EMBER_ERR_UNSUPPORTED,                                                        \
                  fmt " decoding is not built in (EMBER_WITH_IMAGE=OFF, or no " header             \
                      " at build time)")

/* ---- TIFF ------------------------------------------------------------------------------- */

#ifdef EMBER_HAVE_IMAGE_TIFF
#include <tiffio.h>

#define TIFF_SONAME "libtiff.so.6"
#define TIFF_MAX_ALLOC ((tmsize_t)512 << 20)

#define TIFF_API(X)                                                                                \
    X(opts_alloc, TIFFOpenOptionsAlloc, TIFFOpenOptions *, (void))                                 \
    X(opts_free, TIFFOpenOptionsFree, void, (TIFFOpenOptions *))                                   \
    X(opts_max_alloc, TIFFOpenOptionsSetMaxSingleMemAlloc, void, (TIFFOpenOptions *, tmsize_t))    \
    X(opts_error, TIFFOpenOptionsSetErrorHandlerExtR, void,                                        \
      (TIFFOpenOptions *, TIFFErrorHandlerExtR, void *))                                           \
    X(opts_warning, TIFFOpenOptionsSetWarningHandlerExtR, void,                                    \
      (TIFFOpenOptions *, TIFFErrorHandlerExtR, void *))                                           \
    X(open, TIFFClientOpenExt, TIFF *,                                                             \
      (const char *, const char *, thandle_t, TIFFReadWriteProc, TIFFReadWriteProc, TIFFSeekProc,  \
       TIFFCloseProc, TIFFSizeProc, TIFFMapFileProc, TIFFUnmapFileProc, TIFFOpenOptions *))        \
    X(close, TIFFClose, void, (TIFF *))                                                            \
    X(get_field, TIFFGetField, int, (TIFF *, uint32_t, ...))                                       \
    X(get_field_dflt, TIFFGetFieldDefaulted, int, (TIFF *, uint32_t, ...))                         \
    X(is_tiled, TIFFIsTiled, int, (TIFF *))                                                        \
    X(scanline_size, TIFFScanlineSize64, uint64_t, (TIFF *))                                       \
    X(read_scanline, TIFFReadScanline, int, (TIFF *, void *, uint32_t, uint16_t))                  \
    X(rgba_ok, TIFFRGBAImageOK, int, (TIFF *, char *))                                             \
    X(read_rgba, TIFFReadRGBAImageOriented, int, (TIFF *, uint32_t, uint32_t, uint32_t *, int, int))

EM_IMAGE_CODEC_API(tiff, "TIFF", TIFF_SONAME, TIFF_API)

typedef struct tiff_io {
    em_image_dec *d;
    uint64_t pos;
} tiff_io;

static tmsize_t tiff_read(thandle_t h, void *buf, tmsize_t size)
{
    tiff_io *io = (tiff_io *)h;
    uint64_t left = io->pos < io->d->n ? io->d->n - io->pos : 0;
    uint64_t k = size < 0 ? 0 : (uint64_t)size < left ? (uint64_t)size : left;
    memcpy(buf, io->d->src + io->pos, (size_t)k);
    io->pos += k;
    return (tmsize_t)k;
}

static tmsize_t tiff_write(thandle_t h, void *buf, tmsize_t size)
{
    (void)h;
    (void)buf;
    (void)size;
    return -1;
}

static toff_t tiff_seek(thandle_t h, toff_t off, int whence)
{
    tiff_io *io = (tiff_io *)h;
    uint64_t base = whence == SEEK_CUR ? io->pos : whence == SEEK_END ? io->d->n : 0;
    if (off > UINT64_MAX - base) {
        return (toff_t)-1;
    }
    io->pos = base + off;
    return io->pos;
}

static int tiff_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t tiff_size(thandle_t h)
{
    return ((tiff_io *)h)->d->n;
}

static int tiff_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0; /* not mapped: libtiff reads through tiff_read */
}

static void tiff_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

static int tiff_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    char msg[256];
    (void)tif;
    (void)module;
    vsnprintf(msg, sizeof msg, fmt, ap);
    em_image_fail(user, EMBER_ERR_INVALID_ARG, "TIFF: %s", msg);
    return 1; /* handled: libtiff's global handler (stderr) is not called */
}

static int tiff_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

typedef struct tiff_layout {
    uint16_t bps, spp, photometric, planar, extra; /* extra: the first ExtraSamples entry */
} tiff_layout;

/* True when the scanline reader handles the layout (PIL's raw unpackers for it are simple). */
static bool tiff_simple(const tiff_api *a, TIFF *tif, const tiff_layout *l)
{
    if (a->is_tiled(tif) || l->planar != PLANARCONFIG_CONTIG) {
        return false;
    }
    switch (l->photometric) {
    case PHOTOMETRIC_RGB:
        return l->bps == 8 && (l->spp == 3 || l->spp == 4);
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE:
        return (l->spp == 1 && (l->bps == 1 || l->bps == 2 || l->bps == 4 || l->bps == 8)) ||
               (l->spp == 2 && l->bps == 8);
    case PHOTOMETRIC_PALETTE:
        return l->spp == 1 && (l->bps == 1 || l->bps == 2 || l->bps == 4 || l->bps == 8);
    default:
        return false;
    }
}

/* PIL's "RGBa" / "La": v un-premultiplied by alpha a. */
static unsigned unpremultiply(unsigned v, unsigned a)
{
    if (a == 255) {
        return v;
    }
    return a == 0 ? 0 : v * 255u / a > 255u ? 255u : v * 255u / a;
}

/* Packed samples of `bits` < 8 (one per pixel, MSB first, rows of `row` bytes) to one byte each,
 * from the end so that nothing is overwritten before it is read. */
static void tiff_unpack(uint8_t *buf, size_t w, size_t h, size_t row, int bits)
{
    for (size_t i = w * h; i-- > 0;) {
        size_t bit = (i % w) * (size_t)bits;
        const uint8_t *src = buf + (i / w) * row;
        buf[i] = (uint8_t)((src[bit / 8] >> (8 - bits - (int)(bit % 8))) & ((1u << bits) - 1u));
    }
}

/* Converts the 8-bit samples in d->buf (spp per pixel) to grey or RGB, forward in place. */
static void tiff_convert(em_image_dec *d, const tiff_layout *l, const uint16_t *cmap[3])
{
    size_t n = (size_t)d->info->width * (size_t)d->info->height, spp = l->spp;
    bool assoc = l->extra == EXTRASAMPLE_ASSOCALPHA,
         white = l->photometric == PHOTOMETRIC_MINISWHITE;
    uint8_t *b = d->buf;
    if (l->photometric == PHOTOMETRIC_RGB) {
        for (size_t i = 0; i < n; i++) {
            unsigned a = spp == 4 && assoc ? b[4 * i + 3] : 255;
            for (size_t k = 0; k < 3; k++) {
                b[3 * i + k] = (uint8_t)unpremultiply(b[spp * i + k], a);
            }
        }
        d->channels = 3;
        return;
    }
    if (l->photometric == PHOTOMETRIC_PALETTE) {
        uint8_t rgb[256 * 3];
        size_t n_colors = (size_t)1 << l->bps;
        for (size_t i = 0; i < n_colors; i++) {
            for (size_t k = 0; k < 3; k++) {
                rgb[3 * i + k] = (uint8_t)(cmap[k][i] >> 8);
            }
        }
        em_image_palette_to_rgb(b, n, rgb, n_colors);
        d->channels = 3;
        return;
    }
    unsigned scale = 255u / ((1u << l->bps) - 1u);
    for (size_t i = 0; i < n; i++) {
        unsigned v = b[spp * i] * scale;
        v = white ? 255u - v : v;
        b[i] = (uint8_t)unpremultiply(v, spp == 2 && assoc ? b[2 * i + 1] : 255);
    }
    d->channels = 1;
}

static bool tiff_scanlines(em_image_dec *d, const tiff_api *a, TIFF *tif, const tiff_layout *l)
{
    const uint16_t *cmap[3] = {NULL, NULL, NULL};
    if (l->photometric == PHOTOMETRIC_PALETTE &&
        !a->get_field(tif, TIFFTAG_COLORMAP, &cmap[0], &cmap[1], &cmap[2])) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "TIFF: a palette image without a colormap");
    }
    size_t w = (size_t)d->info->width, h = (size_t)d->info->height;
    size_t row = (w * l->spp * l->bps + 7) / 8;
    if (a->scanline_size(tif) != row) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "TIFF: unexpected scanline size");
    }
    for (size_t y = 0; y < h; y++) {
        if (a->read_scanline(tif, d->buf + y * row, (uint32_t)y, 0) < 0) {
            return em_image_fail(d, EMBER_ERR_INVALID_ARG, "TIFF: cannot read row %zu", y);
        }
    }
    if (l->bps < 8) {
        tiff_unpack(d->buf, w, h, row, l->bps);
    }
    tiff_convert(d, l, cmap);
    return true;
}

static bool tiff_rgba(em_image_dec *d, const tiff_api *a, TIFF *tif)
{
    char why[1024];
    if (!a->rgba_ok(tif, why)) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED, "TIFF: %s", why);
    }
    size_t n = (size_t)d->info->width * (size_t)d->info->height;
    if (!a->read_rgba(tif, (uint32_t)d->info->width, (uint32_t)d->info->height,
                      (uint32_t *)(void *)d->buf, ORIENTATION_TOPLEFT, 1)) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "TIFF: cannot read the image");
    }
    for (size_t i = 0; i < n; i++) { /* ABGR words to R, G, B bytes, forward */
        uint32_t v;
        memcpy(&v, d->buf + 4 * i, 4);
        d->buf[3 * i] = (uint8_t)TIFFGetR(v);
        d->buf[3 * i + 1] = (uint8_t)TIFFGetG(v);
        d->buf[3 * i + 2] = (uint8_t)TIFFGetB(v);
    }
    d->channels = 3;
    return true;
}

static bool tiff_run(em_image_dec *d, const tiff_api *a, TIFF *tif)
{
    uint32_t w = 0, h = 0;
    tiff_layout l = {0, 0, 0, 0, 0};
    uint16_t n_extra = 0, *extra = NULL;
    a->get_field(tif, TIFFTAG_IMAGEWIDTH, &w);
    a->get_field(tif, TIFFTAG_IMAGELENGTH, &h);
    if (w != (uint32_t)d->info->width || h != (uint32_t)d->info->height) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "TIFF: inconsistent image size");
    }
    a->get_field_dflt(tif, TIFFTAG_BITSPERSAMPLE, &l.bps);
    a->get_field_dflt(tif, TIFFTAG_SAMPLESPERPIXEL, &l.spp);
    a->get_field_dflt(tif, TIFFTAG_PLANARCONFIG, &l.planar);
    if (!a->get_field(tif, TIFFTAG_PHOTOMETRIC, &l.photometric)) {
        l.photometric = 0xffff; /* unknown: leave it to the RGBA interface */
    }
    if (a->get_field_dflt(tif, TIFFTAG_EXTRASAMPLES, &n_extra, &extra) && n_extra > 0) {
        l.extra = extra[0];
    }
    return tiff_simple(a, tif, &l) ? tiff_scanlines(d, a, tif, &l) : tiff_rgba(d, a, tif);
}

bool em_image_decode_tiff(em_image_dec *d)
{
    const tiff_api *a = tiff_api_get(d);
    if (a == NULL) {
        return false;
    }
    tiff_io io = {d, 0};
    TIFFOpenOptions *opts = a->opts_alloc();
    if (opts == NULL) {
        return em_image_fail(d, EMBER_ERR_OUT_OF_MEMORY, "TIFF: out of memory");
    }
    a->opts_max_alloc(opts, TIFF_MAX_ALLOC);
    a->opts_error(opts, tiff_on_error, d);
    a->opts_warning(opts, tiff_on_warning, d);
    TIFF *tif = a->open("ImageDecoder", "rm", (thandle_t)&io, tiff_read, tiff_write, tiff_seek,
                        tiff_close, tiff_size, tiff_map, tiff_unmap, opts);
    a->opts_free(opts);
    if (tif == NULL) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "TIFF: cannot open the image");
    }
    bool ok = tiff_run(d, a, tif);
    a->close(tif);
    return ok;
}

#else

bool em_image_decode_tiff(em_image_dec *d)
{
    return NOT_BUILT(d, "TIFF", "tiffio.h");
}

#endif /* EMBER_HAVE_IMAGE_TIFF */

/* ---- WebP ------------------------------------------------------------------------------- */

#ifdef EMBER_HAVE_IMAGE_WEBP
#include <webp/decode.h>

#define WEBP_SONAME "libwebp.so.7"

#define WEBP_API(X)                                                                                \
    X(init_config, WebPInitDecoderConfigInternal, int, (WebPDecoderConfig *, int))                 \
    X(get_features, WebPGetFeaturesInternal, VP8StatusCode,                                        \
      (const uint8_t *, size_t, WebPBitstreamFeatures *, int))                                     \
    X(decode, WebPDecode, VP8StatusCode, (const uint8_t *, size_t, WebPDecoderConfig *))           \
    X(free_buffer, WebPFreeDecBuffer, void, (WebPDecBuffer *))

EM_IMAGE_CODEC_API(webp, "WebP", WEBP_SONAME, WEBP_API)

static bool webp_status(em_image_dec *d, VP8StatusCode s)
{
    static const char *const why[] = {"ok",
                                      "out of memory",
                                      "invalid parameter",
                                      "bitstream error",
                                      "unsupported feature",
                                      "suspended",
                                      "user abort",
                                      "not enough data (truncated)"};
    const char *w = (unsigned)s < sizeof why / sizeof why[0] ? why[s] : "unknown error";
    return em_image_fail(
        d, s == VP8_STATUS_UNSUPPORTED_FEATURE ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_ARG,
        "WebP: %s", w);
}

bool em_image_decode_webp(em_image_dec *d)
{
    const webp_api *a = webp_api_get(d);
    if (a == NULL) {
        return false;
    }
    WebPDecoderConfig cfg;
    if (!a->init_config(&cfg, WEBP_DECODER_ABI_VERSION)) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED, "WebP: %s has another ABI", WEBP_SONAME);
    }
    VP8StatusCode s = a->get_features(d->src, d->n, &cfg.input, WEBP_DECODER_ABI_VERSION);
    if (s != VP8_STATUS_OK) {
        return webp_status(d, s);
    }
    if (cfg.input.has_animation) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED, "WebP: animations are not supported");
    }
    size_t w = (size_t)d->info->width, h = (size_t)d->info->height;
    if (cfg.input.width != (int)w || cfg.input.height != (int)h) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "WebP: inconsistent image size");
    }
    cfg.output.colorspace = MODE_RGB;
    cfg.output.is_external_memory = 1;
    cfg.output.u.RGBA.rgba = d->buf;
    cfg.output.u.RGBA.stride = (int)(3 * w);
    cfg.output.u.RGBA.size = 3 * w * h;
    s = a->decode(d->src, d->n, &cfg);
    a->free_buffer(&cfg.output); /* external memory: frees nothing of ours */
    if (s != VP8_STATUS_OK) {
        return webp_status(d, s);
    }
    d->channels = 3;
    return true;
}

#else

bool em_image_decode_webp(em_image_dec *d)
{
    return NOT_BUILT(d, "WebP", "webp/decode.h");
}

#endif /* EMBER_HAVE_IMAGE_WEBP */

/* ---- JPEG 2000 -------------------------------------------------------------------------- */

#ifdef EMBER_HAVE_IMAGE_OPENJP2
#include <openjpeg.h>

#define OPJ_SONAME "libopenjp2.so.7"

#define J2K_API(X)                                                                                 \
    X(stream_create, opj_stream_create, opj_stream_t *, (OPJ_SIZE_T, OPJ_BOOL))                    \
    X(stream_destroy, opj_stream_destroy, void, (opj_stream_t *))                                  \
    X(set_read, opj_stream_set_read_function, void, (opj_stream_t *, opj_stream_read_fn))          \
    X(set_skip, opj_stream_set_skip_function, void, (opj_stream_t *, opj_stream_skip_fn))          \
    X(set_seek, opj_stream_set_seek_function, void, (opj_stream_t *, opj_stream_seek_fn))          \
    X(set_user_data, opj_stream_set_user_data, void,                                               \
      (opj_stream_t *, void *, opj_stream_free_user_data_fn))                                      \
    X(set_length, opj_stream_set_user_data_length, void, (opj_stream_t *, OPJ_UINT64))             \
    X(create, opj_create_decompress, opj_codec_t *, (OPJ_CODEC_FORMAT))                            \
    X(destroy, opj_destroy_codec, void, (opj_codec_t *))                                           \
    X(set_error, opj_set_error_handler, OPJ_BOOL, (opj_codec_t *, opj_msg_callback, void *))       \
    X(set_warning, opj_set_warning_handler, OPJ_BOOL, (opj_codec_t *, opj_msg_callback, void *))   \
    X(set_info, opj_set_info_handler, OPJ_BOOL, (opj_codec_t *, opj_msg_callback, void *))         \
    X(default_params, opj_set_default_decoder_parameters, void, (opj_dparameters_t *))             \
    X(setup, opj_setup_decoder, OPJ_BOOL, (opj_codec_t *, opj_dparameters_t *))                    \
    X(read_header, opj_read_header, OPJ_BOOL, (opj_stream_t *, opj_codec_t *, opj_image_t **))     \
    X(decode, opj_decode, OPJ_BOOL, (opj_codec_t *, opj_stream_t *, opj_image_t *))                \
    X(end, opj_end_decompress, OPJ_BOOL, (opj_codec_t *, opj_stream_t *))                          \
    X(image_destroy, opj_image_destroy, void, (opj_image_t *))

EM_IMAGE_CODEC_API(opj, "JPEG 2000", OPJ_SONAME, J2K_API)

typedef struct j2k_io {
    em_image_dec *d;
    size_t pos;
} j2k_io;

static OPJ_SIZE_T j2k_read(void *buf, OPJ_SIZE_T len, void *user)
{
    j2k_io *io = user;
    size_t left = io->d->n - io->pos, k = len < left ? len : left;
    if (k == 0) {
        return (OPJ_SIZE_T)-1;
    }
    memcpy(buf, io->d->src + io->pos, k);
    io->pos += k;
    return k;
}

static OPJ_OFF_T j2k_skip(OPJ_OFF_T n, void *user)
{
    j2k_io *io = user;
    if (n < 0 ? (uint64_t)-n > io->pos : (uint64_t)n > io->d->n - io->pos) {
        return -1;
    }
    io->pos = (size_t)((OPJ_OFF_T)io->pos + n);
    return n;
}

static OPJ_BOOL j2k_seek(OPJ_OFF_T off, void *user)
{
    j2k_io *io = user;
    if (off < 0 || (uint64_t)off > io->d->n) {
        return OPJ_FALSE;
    }
    io->pos = (size_t)off;
    return OPJ_TRUE;
}

static void j2k_on_error(const char *msg, void *user)
{
    size_t len = strlen(msg);
    while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == '\r')) {
        len--;
    }
    em_image_fail(user, EMBER_ERR_INVALID_ARG, "JPEG 2000: %.*s", (int)len, msg);
}

static void j2k_on_message(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

/* One component as PIL unpacks it to `bits` (8, or 16 for mode I;16): the sample truncated to
 * its container (1, 2 or 4 bytes), plus the signed offset and rounding, shifted by bits - prec. */
typedef struct j2k_comp {
    const OPJ_INT32 *data;
    uint32_t mask, offset;
    int shift;
} j2k_comp;

static void j2k_comp_init(const opj_image_comp_t *c, int bits, j2k_comp *out)
{
    int prec = (int)c->prec, csiz = (prec + 7) >> 3;
    out->data = c->data;
    out->mask = csiz == 1 ? 0xffu : csiz == 2 ? 0xffffu : 0xffffffffu;
    out->shift = bits - prec;
    out->offset = c->sgnd ? 1u << (prec - 1) : 0;
    if (out->shift < 0) {
        out->offset += 1u << (-out->shift - 1);
    }
}

static uint32_t j2k_value(const j2k_comp *c, size_t i)
{
    uint32_t x = c->offset + ((uint32_t)c->data[i] & c->mask);
    return c->shift < 0 ? x >> -c->shift : x << c->shift;
}

/* Checks what PIL's unpackers accept and fills buf (grey or RGB). */
static bool j2k_unpack(em_image_dec *d, const opj_image_t *img)
{
    size_t w = (size_t)d->info->width, h = (size_t)d->info->height, n = w * h;
    unsigned nc = img->numcomps;
    OPJ_COLOR_SPACE cs = img->color_space;
    if (cs == OPJ_CLRSPC_UNSPECIFIED) {
        cs = nc <= 2 ? OPJ_CLRSPC_GRAY : OPJ_CLRSPC_SRGB;
    }
    bool grey = cs == OPJ_CLRSPC_GRAY && (nc == 1 || nc == 2);
    if (!grey && !(cs == OPJ_CLRSPC_SRGB && (nc == 3 || nc == 4))) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED,
                             "JPEG 2000: %u components in colour space %d are not supported", nc,
                             (int)img->color_space);
    }
    if (img->x1 - img->x0 != w || img->y1 - img->y0 != h) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "JPEG 2000: inconsistent image size");
    }
    unsigned used = grey ? 1 : 3; /* alpha is dropped: PIL's output does not depend on it */
    for (unsigned k = 0; k < used; k++) {
        const opj_image_comp_t *c = &img->comps[k];
        if (c->dx != 1 || c->dy != 1 || c->w != w || c->h != h || c->data == NULL || c->prec < 1 ||
            c->prec > 31) {
            return em_image_fail(d, EMBER_ERR_UNSUPPORTED,
                                 "JPEG 2000: component %u is subsampled, empty or of precision %u",
                                 k, c->prec);
        }
    }
    /* PIL's mode: I;16 for one component of a JP2 whose header says more than 9 bits. */
    bool i16 = nc == 1 && d->src[0] != 0xff && img->comps[0].prec > 9;
    j2k_comp comp[3];
    for (unsigned k = 0; k < used; k++) {
        j2k_comp_init(&img->comps[k], i16 ? 16 : 8, &comp[k]);
    }
    for (size_t i = 0; i < n; i++) {
        for (unsigned k = 0; k < used; k++) {
            uint32_t v = j2k_value(&comp[k], i);
            d->buf[used * i + k] = i16 ? (uint8_t)((v & 0xffffu) > 255 ? 255 : v) : (uint8_t)v;
        }
    }
    d->channels = (int)used;
    return true;
}

typedef struct j2k_ctx {
    opj_stream_t *stream;
    opj_codec_t *codec;
    opj_image_t *image;
} j2k_ctx;

static bool j2k_run(em_image_dec *d, const opj_api *a, j2k_ctx *c, j2k_io *io)
{
    c->stream = a->stream_create(64 * 1024, OPJ_TRUE);
    bool codestream = d->src[0] == 0xff;
    c->codec = a->create(codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
    if (c->stream == NULL || c->codec == NULL) {
        return em_image_fail(d, EMBER_ERR_OUT_OF_MEMORY, "JPEG 2000: out of memory");
    }
    a->set_read(c->stream, j2k_read);
    a->set_skip(c->stream, j2k_skip);
    a->set_seek(c->stream, j2k_seek);
    a->set_user_data(c->stream, io, NULL);
    a->set_length(c->stream, d->n);
    a->set_error(c->codec, j2k_on_error, d);
    a->set_warning(c->codec, j2k_on_message, d);
    a->set_info(c->codec, j2k_on_message, d);
    opj_dparameters_t params;
    a->default_params(&params);
    if (!a->setup(c->codec, &params) || !a->read_header(c->stream, c->codec, &c->image) ||
        c->image == NULL) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "JPEG 2000: bad header");
    }
    if (c->image->numcomps < 1 || c->image->numcomps > 4 ||
        c->image->color_space == OPJ_CLRSPC_UNKNOWN) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED,
                             "JPEG 2000: %u components / this colour space are not supported",
                             c->image->numcomps);
    }
    if (!a->decode(c->codec, c->stream, c->image) || !a->end(c->codec, c->stream)) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "JPEG 2000: the data is corrupt");
    }
    return j2k_unpack(d, c->image);
}

bool em_image_decode_jpeg2000(em_image_dec *d)
{
    const opj_api *a = opj_api_get(d);
    if (a == NULL) {
        return false;
    }
    j2k_io io = {d, 0};
    j2k_ctx c = {NULL, NULL, NULL};
    bool ok = j2k_run(d, a, &c, &io);
    if (c.image != NULL) {
        a->image_destroy(c.image);
    }
    if (c.codec != NULL) {
        a->destroy(c.codec);
    }
    if (c.stream != NULL) {
        a->stream_destroy(c.stream);
    }
    return ok;
}

#else

bool em_image_decode_jpeg2000(em_image_dec *d)
{
    return NOT_BUILT(d, "JPEG 2000", "openjpeg.h");
}

#endif /* EMBER_HAVE_IMAGE_OPENJP2 */
