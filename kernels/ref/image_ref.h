/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interface between the image family's ImageDecoder kernel (image_decode_ref.c; declared by
 * ref.h from kernels_image.def) and its decoders. Included by ref.h.
 *
 * ImageDecoder-20 decodes what PIL's Image.open decodes (the ONNX reference) and converts it as
 * img.convert("RGB") / img.convert("L") would: grey sources are replicated to RGB, alpha is
 * dropped, palettes are looked up (an index past the palette reads as grey i, as in PIL), and
 * Grayscale is ITU-R 601-2 luma with PIL's rounding: (19595 R + 38470 G + 7471 B + 0x8000) >> 16.
 * BMP and PNM are decoded here (image_bmp_pnm.c); JPEG, PNG, TIFF, WebP and JPEG 2000 through
 * libjpeg, libpng, libtiff, libwebp and libopenjp2, which are not linked but dlopen'ed on first
 * use (image_jpeg_png.c, image_tiff_webp_jp2.c): a missing library is UNSUPPORTED, naming it.
 *
 * Where prepare sees the input's data (always in the interpreter, which runs every graph holding
 * this EM_OPF_DYNAMIC op), it decodes into its state, so that a corrupt or truncated image fails
 * the node with a message, and run copies the pixels out. Without the data in prepare, run
 * decodes into scratch and writes zeros if the image turns out bad.
 */
#ifndef EMBER_KERNELS_REF_IMAGE_REF_H
#define EMBER_KERNELS_REF_IMAGE_REF_H

#include "ir/image.h"
#include "plan/kernel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- The decoders ---------------------------------------------------------------------- */

/* Bytes of work memory per pixel: the decoders' widest intermediate (TIFF's RGBA raster, CMYK
 * JPEG scanlines). */
#define EM_IMAGE_WORK_BPP 4

/* One decode. The decoder fills buf with `channels` bytes per pixel (1: grey, 3: R, G, B), rows
 * top to bottom, or fails with a code and a message that starts with the format's name. */
typedef struct em_image_dec {
    const uint8_t *src; /* the encoded image, n bytes */
    size_t n;
    const em_image_info *info; /* its header (em_image_probe) */
    uint8_t *buf;              /* EM_IMAGE_WORK_BPP * height * width bytes, 16-byte aligned */
    uint8_t **rows;            /* height pointers of scratch (libpng's interlaced rows) */
    int channels;              /* on success: 1 or 3 */
    ember_code code;           /* on failure */
    char msg[320];
} em_image_dec;

/* The work memory for an image of h x w (buf, then rows). */
size_t em_image_work_bytes(int64_t h, int64_t w);
/* Records a failure in d (printf-style message) and returns false. */
bool em_image_fail(em_image_dec *d, ember_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Loads a codec library: dlopen(soname, RTLD_NOW | RTLD_LOCAL), then dlsym(names[i]) into
 * *slots[i] for i < n. False with the reason in err[0..cap), a message starting with `format`
 * ("JPEG needs libjpeg.so.62, which could not be loaded: ..."). The library stays loaded. */
bool em_image_dl_load(const char *format, const char *soname, const char *const *names,
                      void **const *slots, size_t n, char *err, size_t cap);
/* Expansions of a codec's X-macro list X(field, symbol, return type, (parameter types)): the
 * function-pointer members of its API struct, the symbol names, the slots (in `api`), and a
 * compile-time check that each member's type matches the header's declaration (unevaluated:
 * nothing is linked). */
#define EM_IMAGE_API_MEMBER(field, sym, ret, params) ret(*field) params;
#define EM_IMAGE_API_NAME(field, sym, ret, params) #sym,
#define EM_IMAGE_API_SLOT(field, sym, ret, params) (void **)&api->field,
#define EM_IMAGE_API_CHECK(field, sym, ret, params) (void)sizeof(api->field = sym);

/* One codec library, for a file that includes <pthread.h> and the library's header: the struct
 * <name>_api (the members of LIST, an X-macro list as above, and why loading failed), the
 * process-wide instance <name>_lib, loaded once (pthread_once) and read-only afterwards, and
 *     static const <name>_api *<name>_api_get(em_image_dec *d)
 * which loads it on first use and returns it, or NULL with d's failure set (UNSUPPORTED: "JPEG
 * needs libjpeg.so.62, which could not be loaded: ..."). */
#define EM_IMAGE_CODEC_API(name, format, soname, LIST)                                             \
    typedef struct name##_api {                                                                    \
        LIST(EM_IMAGE_API_MEMBER)                                                                  \
        char error[256];                                                                           \
    } name##_api;                                                                                  \
    static name##_api name##_lib;                                                                  \
    static pthread_once_t name##_once = PTHREAD_ONCE_INIT;                                         \
    static void name##_load(void)                                                                  \
    {                                                                                              \
        name##_api *api = &name##_lib;                                                             \
        static const char *const names[] = {LIST(EM_IMAGE_API_NAME)};                              \
        void **const slots[] = {LIST(EM_IMAGE_API_SLOT)};                                          \
        LIST(EM_IMAGE_API_CHECK)                                                                   \
        em_image_dl_load(format, soname, names, slots, sizeof names / sizeof names[0], api->error, \
                         sizeof api->error);                                                       \
    }                                                                                              \
    static const name##_api *name##_api_get(em_image_dec *d)                                       \
    {                                                                                              \
        pthread_once(&name##_once, name##_load);                                                   \
        if (name##_lib.error[0] != '\0') {                                                         \
            em_image_fail(d, EMBER_ERR_UNSUPPORTED, "%s", name##_lib.error);                       \
            return NULL;                                                                           \
        }                                                                                          \
        return &name##_lib;                                                                        \
    }
/* Replicates grey to (v, v, v) over n pixels of buf, in place (from the end). */
void em_image_gray_to_rgb(uint8_t *buf, size_t n);
/* The palette lookup of PIL: index i < n_colors reads pal[i] (3 bytes R, G, B), any other i reads
 * (i, i, i). Expands n indices of buf to RGB in place. */
void em_image_palette_to_rgb(uint8_t *buf, size_t n, const uint8_t *pal, size_t n_colors);

/* image_bmp_pnm.c */
bool em_image_decode_bmp(em_image_dec *d);
bool em_image_decode_pnm(em_image_dec *d);
/* image_jpeg_png.c */
bool em_image_decode_jpeg(em_image_dec *d);
bool em_image_decode_png(em_image_dec *d);
/* image_tiff_webp_jp2.c */
bool em_image_decode_tiff(em_image_dec *d);
bool em_image_decode_webp(em_image_dec *d);
bool em_image_decode_jpeg2000(em_image_dec *d);

#endif /* EMBER_KERNELS_REF_IMAGE_REF_H */
