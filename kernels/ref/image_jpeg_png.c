/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JPEG and PNG decoders of ImageDecoder, through libjpeg (libjpeg-turbo's libjpeg.so.62)
 * and libpng16, dlopen'ed on first use (pthread_once; the resolved entry points are read-only
 * afterwards). Neither library is linked into libember: processes that never decode an image
 * never map them.
 *
 * JPEG, as PIL decodes it: libjpeg's defaults (ISLOW IDCT, fancy upsampling), 1 component as
 * grey, 3 as RGB (libjpeg's colour conversion), 4 as Adobe-inverted CMYK converted by PIL's
 * cmyk2rgb. Data that ends before the end of the image is an error (libjpeg would pad it with
 * grey); warnings are ignored; progressive files of more than JPEG_MAX_SCANS scans are refused
 * (a known way to make libjpeg spin).
 * PNG, as PIL: 16-bit samples keep their high byte, except 16-bit grey without alpha (PIL mode
 * I), which clips at 255; 1/2/4-bit grey is scaled to 8 bits; alpha and tRNS are dropped;
 * palette indices are looked up here (past the palette: grey i). Chunks after the image data
 * are not read (PIL does not need them either).
 * Errors longjmp out of the library callbacks; everything the callbacks and the code after
 * setjmp change lives in a context struct owned by the caller of the setjmp function, and that
 * caller releases the library objects.
 */
#define _POSIX_C_SOURCE 200809L
#include "ref.h"

#include <string.h>

#ifdef EMBER_HAVE_IMAGE

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>
#include <png.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define JPEG_SONAME "libjpeg.so." STR(JPEG_LIB_VERSION)
#define PNG_SONAME "libpng" STR(PNG_LIBPNG_VER_DLLNUM) ".so." STR(PNG_LIBPNG_VER_SONUM)
#define JPEG_MAX_SCANS 1000

/* ---- JPEG ------------------------------------------------------------------------------- */

#define JPEG_API(X)                                                                                \
    X(std_error, jpeg_std_error, struct jpeg_error_mgr *, (struct jpeg_error_mgr *))               \
    X(create, jpeg_CreateDecompress, void, (j_decompress_ptr, int, size_t))                        \
    X(read_header, jpeg_read_header, int, (j_decompress_ptr, boolean))                             \
    X(start, jpeg_start_decompress, boolean, (j_decompress_ptr))                                   \
    X(read_scanlines, jpeg_read_scanlines, JDIMENSION, (j_decompress_ptr, JSAMPARRAY, JDIMENSION)) \
    X(finish, jpeg_finish_decompress, boolean, (j_decompress_ptr))                                 \
    X(destroy, jpeg_destroy_decompress, void, (j_decompress_ptr))                                  \
    X(resync, jpeg_resync_to_restart, boolean, (j_decompress_ptr, int))

EM_IMAGE_CODEC_API(jpeg, "JPEG", JPEG_SONAME, JPEG_API)

typedef struct jpeg_ctx {
    struct jpeg_decompress_struct ci;
    struct jpeg_error_mgr err;
    struct jpeg_source_mgr src;
    struct jpeg_progress_mgr progress;
    jmp_buf jmp;
    em_image_dec *d;
    bool created, truncated;
} jpeg_ctx;

static void jpeg_on_error(j_common_ptr ci)
{
    jpeg_ctx *c = ci->client_data;
    char buf[JMSG_LENGTH_MAX];
    ci->err->format_message(ci, buf);
    em_image_fail(c->d, EMBER_ERR_INVALID_ARG, "JPEG: %s", buf);
    longjmp(c->jmp, 1);
}

static void jpeg_on_message(j_common_ptr ci, int level)
{
    (void)ci; /* warnings (corrupt data libjpeg recovers from) are ignored, as by PIL */
    (void)level;
}

static void jpeg_on_output(j_common_ptr ci)
{
    (void)ci;
}

static void jpeg_on_progress(j_common_ptr ci)
{
    jpeg_ctx *c = ci->client_data;
    if (ci->is_decompressor && ((j_decompress_ptr)ci)->input_scan_number > JPEG_MAX_SCANS) {
        em_image_fail(c->d, EMBER_ERR_INVALID_ARG, "JPEG: more than %d scans", JPEG_MAX_SCANS);
        longjmp(c->jmp, 1);
    }
}

/* The source: the whole input at once; past its end, EOI markers (and the truncated flag). */
static void jpeg_src_init(j_decompress_ptr ci)
{
    (void)ci;
}

static boolean jpeg_src_fill(j_decompress_ptr ci)
{
    static const JOCTET eoi[2] = {0xff, JPEG_EOI};
    jpeg_ctx *c = ci->client_data;
    c->truncated = true;
    ci->src->next_input_byte = eoi;
    ci->src->bytes_in_buffer = sizeof eoi;
    return TRUE;
}

static void jpeg_src_skip(j_decompress_ptr ci, long n)
{
    if (n <= 0) {
        return;
    }
    if ((unsigned long)n > ci->src->bytes_in_buffer) {
        (void)jpeg_src_fill(ci);
        return;
    }
    ci->src->next_input_byte += n;
    ci->src->bytes_in_buffer -= (size_t)n;
}

/* CMYK as PIL reads JPEG ("CMYK;I": Adobe's inverted values) and converts it (cmyk2rgb), in
 * place from 4 to 3 bytes per pixel. */
static void cmyk_to_rgb(uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = buf + 4 * i;
        unsigned nk = p[3], rgb[3];
        for (int k = 0; k < 3; k++) {
            unsigned t = (255u - p[k]) * nk + 128u;
            rgb[k] = nk - (((t >> 8) + t) >> 8);
        }
        for (int k = 0; k < 3; k++) {
            buf[3 * i + (size_t)k] = (uint8_t)rgb[k];
        }
    }
}

static bool jpeg_run(jpeg_ctx *c, const jpeg_api *a)
{
    j_decompress_ptr ci = &c->ci;
    em_image_dec *d = c->d;
    if (setjmp(c->jmp) != 0) {
        return false;
    }
    c->created = true; /* destroy is safe from here on: create clears ci->mem first */
    a->create(ci, JPEG_LIB_VERSION, sizeof *ci);
    ci->src = &c->src;
    ci->progress = &c->progress;
    a->read_header(ci, TRUE);
    J_COLOR_SPACE out = ci->num_components == 1   ? JCS_GRAYSCALE
                        : ci->num_components == 3 ? JCS_RGB
                                                  : JCS_CMYK;
    if (ci->num_components != 1 && ci->num_components != 3 && ci->num_components != 4) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED, "JPEG: %d components are not supported",
                             ci->num_components);
    }
    if (ci->image_width != (JDIMENSION)d->info->width ||
        ci->image_height != (JDIMENSION)d->info->height) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "JPEG: inconsistent frame size");
    }
    ci->out_color_space = out;
    a->start(ci);
    size_t stride = (size_t)ci->output_width * (size_t)ci->output_components;
    if (ci->output_width != ci->image_width || ci->output_height != ci->image_height ||
        ci->output_components != ci->num_components) {
        return em_image_fail(d, EMBER_ERR_INTERNAL, "JPEG: unexpected output layout");
    }
    while (ci->output_scanline < ci->output_height) {
        JSAMPROW row = d->buf + (size_t)ci->output_scanline * stride;
        if (a->read_scanlines(ci, &row, 1) != 1) {
            return em_image_fail(d, EMBER_ERR_INVALID_ARG, "JPEG: no scanline decoded");
        }
    }
    a->finish(ci);
    if (c->truncated) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "JPEG: the data is truncated");
    }
    size_t n = (size_t)d->info->width * (size_t)d->info->height;
    if (ci->num_components == 4) {
        cmyk_to_rgb(d->buf, n);
    }
    d->channels = ci->num_components == 1 ? 1 : 3;
    return true;
}

bool em_image_decode_jpeg(em_image_dec *d)
{
    const jpeg_api *a = jpeg_api_get(d);
    if (a == NULL) {
        return false;
    }
    jpeg_ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.ci.client_data = &c;
    c.ci.err = a->std_error(&c.err);
    c.err.error_exit = jpeg_on_error;
    c.err.emit_message = jpeg_on_message;
    c.err.output_message = jpeg_on_output;
    c.src.init_source = jpeg_src_init;
    c.src.fill_input_buffer = jpeg_src_fill;
    c.src.skip_input_data = jpeg_src_skip;
    c.src.resync_to_restart = a->resync;
    c.src.term_source = jpeg_src_init;
    c.src.next_input_byte = d->src;
    c.src.bytes_in_buffer = d->n;
    c.progress.progress_monitor = jpeg_on_progress;
    bool ok = jpeg_run(&c, a);
    if (c.created) {
        a->destroy(&c.ci);
    }
    return ok;
}

/* ---- PNG -------------------------------------------------------------------------------- */

#define PNG_API(X)                                                                                 \
    X(create, png_create_read_struct, png_structp,                                                 \
      (png_const_charp, png_voidp, png_error_ptr, png_error_ptr))                                  \
    X(create_info, png_create_info_struct, png_infop, (png_const_structrp))                        \
    X(destroy, png_destroy_read_struct, void, (png_structpp, png_infopp, png_infopp))              \
    X(set_read_fn, png_set_read_fn, void, (png_structrp, png_voidp, png_rw_ptr))                   \
    X(get_io_ptr, png_get_io_ptr, png_voidp, (png_const_structrp))                                 \
    X(get_error_ptr, png_get_error_ptr, png_voidp, (png_const_structrp))                           \
    X(set_user_limits, png_set_user_limits, void, (png_structrp, png_uint_32, png_uint_32))        \
    X(read_info, png_read_info, void, (png_structrp, png_inforp))                                  \
    X(get_ihdr, png_get_IHDR, png_uint_32,                                                         \
      (png_const_structrp, png_const_inforp, png_uint_32 *, png_uint_32 *, int *, int *, int *,    \
       int *, int *))                                                                              \
    X(set_strip_16, png_set_strip_16, void, (png_structrp))                                        \
    X(set_strip_alpha, png_set_strip_alpha, void, (png_structrp))                                  \
    X(set_packing, png_set_packing, void, (png_structrp))                                          \
    X(set_expand_gray, png_set_expand_gray_1_2_4_to_8, void, (png_structrp))                       \
    X(set_interlace, png_set_interlace_handling, int, (png_structrp))                              \
    X(update_info, png_read_update_info, void, (png_structrp, png_inforp))                         \
    X(get_rowbytes, png_get_rowbytes, size_t, (png_const_structrp, png_const_inforp))              \
    X(read_image, png_read_image, void, (png_structrp, png_bytepp))                                \
    X(get_plte, png_get_PLTE, png_uint_32, (png_const_structrp, png_inforp, png_colorp *, int *))  \
    X(set_crc_action, png_set_crc_action, void, (png_structrp, int, int))

EM_IMAGE_CODEC_API(png, "PNG", PNG_SONAME, PNG_API)

typedef struct png_ctx {
    png_structp png;
    png_infop info;
    jmp_buf jmp;
    em_image_dec *d;
    size_t pos;
    uint64_t idat_end; /* end of the last IDAT chunk's data (0: none seen) */
} png_ctx;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_lib.get_error_ptr(png);
    em_image_fail(c->d, EMBER_ERR_INVALID_ARG, "PNG: %s", msg);
    longjmp(c->jmp, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* ignored, as by PIL */
    (void)msg;
}

/* Where the image data ends: the data of the last chunk of the first run of IDAT chunks. */
static uint64_t png_idat_end(const uint8_t *p, size_t n)
{
    uint64_t pos = 8, end = 0;
    while (pos + 8 <= n) {
        uint64_t len = (uint64_t)p[pos] << 24 | (uint64_t)p[pos + 1] << 16 |
                       (uint64_t)p[pos + 2] << 8 | p[pos + 3];
        bool idat = memcmp(p + pos + 4, "IDAT", 4) == 0;
        if (!idat && end != 0) {
            break;
        }
        if (idat) {
            end = pos + 8 + len;
        }
        if (len > n - pos - 8) {
            break;
        }
        pos += 8 + len + 4;
    }
    return end;
}

/* Reads from the input. Past its end: an error, unless all the image data is there (PIL does not
 * need the IDAT CRC nor the chunks after it): then zeros (IDAT's CRC is not checked). */
static void png_on_read(png_structp png, png_bytep out, size_t len)
{
    png_ctx *c = png_lib.get_io_ptr(png);
    size_t left = c->d->n - c->pos;
    if (len > left) {
        if (c->idat_end == 0 || c->d->n < c->idat_end) {
            em_image_fail(c->d, EMBER_ERR_INVALID_ARG, "PNG: the data is truncated");
            longjmp(c->jmp, 1);
        }
        memset(out + left, 0, len - left);
        len = left;
    }
    memcpy(out, c->d->src + c->pos, len);
    c->pos += len;
}

/* After png_read_image: palette indices to RGB, 16-bit grey (big-endian) clipped to 8 bits. */
static void png_finish(png_ctx *c, const png_api *a, int color_type, bool gray16)
{
    em_image_dec *d = c->d;
    size_t n = (size_t)d->info->width * (size_t)d->info->height;
    d->channels = (color_type & PNG_COLOR_MASK_COLOR) ? 3 : 1;
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_colorp pal = NULL;
        int n_pal = 0;
        uint8_t rgb[256 * 3];
        if (!a->get_plte(c->png, c->info, &pal, &n_pal) || n_pal < 0 || n_pal > 256) {
            n_pal = 0;
        }
        for (int i = 0; i < n_pal; i++) {
            rgb[3 * i] = pal[i].red;
            rgb[3 * i + 1] = pal[i].green;
            rgb[3 * i + 2] = pal[i].blue;
        }
        em_image_palette_to_rgb(d->buf, n, rgb, (size_t)n_pal);
    } else if (gray16) {
        for (size_t i = 0; i < n; i++) {
            d->buf[i] = d->buf[2 * i] != 0 ? 255 : d->buf[2 * i + 1];
        }
    }
}

static bool png_run(png_ctx *c, const png_api *a)
{
    em_image_dec *d = c->d;
    if (setjmp(c->jmp) != 0) {
        return false;
    }
    c->png = a->create(PNG_LIBPNG_VER_STRING, c, png_on_error, png_on_warning);
    c->info = c->png != NULL ? a->create_info(c->png) : NULL;
    if (c->info == NULL) {
        return em_image_fail(d, EMBER_ERR_UNSUPPORTED,
                             "PNG: %s could not start a decoder (built against libpng %s)",
                             PNG_SONAME, PNG_LIBPNG_VER_STRING);
    }
    a->set_read_fn(c->png, c, png_on_read);
    a->set_user_limits(c->png, 0x7fffffff, 0x7fffffff); /* the probe capped the size */
    /* PIL checks the CRC of every chunk before the image data, and not that of IDAT. */
    a->set_crc_action(c->png, PNG_CRC_DEFAULT, PNG_CRC_ERROR_QUIT);
    a->read_info(c->png, c->info);
    a->set_crc_action(c->png, PNG_CRC_QUIET_USE, PNG_CRC_DEFAULT);
    png_uint_32 w = 0, h = 0;
    int depth = 0, ct = 0;
    a->get_ihdr(c->png, c->info, &w, &h, &depth, &ct, NULL, NULL, NULL);
    if (w != (png_uint_32)d->info->width || h != (png_uint_32)d->info->height) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG, "PNG: inconsistent image size");
    }
    bool gray16 = ct == PNG_COLOR_TYPE_GRAY && depth == 16;
    if (depth == 16 && !gray16) {
        a->set_strip_16(c->png);
    }
    if (depth < 8) {
        (ct == PNG_COLOR_TYPE_PALETTE ? a->set_packing : a->set_expand_gray)(c->png);
    }
    if (ct & PNG_COLOR_MASK_ALPHA) {
        a->set_strip_alpha(c->png);
    }
    a->set_interlace(c->png);
    a->update_info(c->png, c->info);
    size_t px = ct == PNG_COLOR_TYPE_PALETTE ? 1 : (ct & PNG_COLOR_MASK_COLOR) ? 3 : gray16 ? 2 : 1;
    size_t row = a->get_rowbytes(c->png, c->info);
    if (row != px * (size_t)w) {
        return em_image_fail(d, EMBER_ERR_INTERNAL, "PNG: unexpected row size %zu", row);
    }
    for (size_t y = 0; y < h; y++) {
        d->rows[y] = d->buf + y * row;
    }
    a->read_image(c->png, d->rows);
    png_finish(c, a, ct, gray16);
    return true;
}

bool em_image_decode_png(em_image_dec *d)
{
    const png_api *a = png_api_get(d);
    if (a == NULL) {
        return false;
    }
    png_ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.idat_end = png_idat_end(d->src, d->n);
    bool ok = png_run(&c, a);
    if (c.png != NULL) {
        a->destroy(&c.png, c.info != NULL ? &c.info : NULL, NULL);
    }
    return ok;
}

#else /* !EMBER_HAVE_IMAGE */

bool em_image_decode_jpeg(em_image_dec *d)
{
    return em_image_fail(
        d, EMBER_ERR_UNSUPPORTED,
        "JPEG decoding is not built in (EMBER_WITH_IMAGE=OFF, or no jpeglib.h at build time)");
}

bool em_image_decode_png(em_image_dec *d)
{
    return em_image_fail(
        d, EMBER_ERR_UNSUPPORTED,
        "PNG decoding is not built in (EMBER_WITH_IMAGE=OFF, or no png.h at build time)");
}

#endif
