/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Image headers for ImageDecoder-20 (runtime/shape/shape_image.c), shared by its shape function, which
 * needs the dims of an encoded image, and the reference kernel (kernels/ref/image_*.c), which
 * decodes it. The format is told by magic bytes as PIL's Image.open does (the ONNX reference
 * decodes with PIL): BMP "BM", JPEG FF D8 FF, PNM "P" + one of "0123456y", PNG's signature,
 * the six TIFF byte-order/version prefixes, RIFF....WEBP with a VP8/VP8L/VP8X chunk, and a
 * JPEG 2000 codestream (FF 4F FF 51) or JP2 signature box. Headers are parsed by hand here,
 * with every field checked against the buffer; no codec library is needed to know the dims.
 */
#ifndef EMBER_IR_IMAGE_H
#define EMBER_IR_IMAGE_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Images with more pixels than this are refused before anything is allocated (the decoders
 * need 4 bytes per pixel of work memory: 1 GiB at the cap). */
#define EM_IMAGE_MAX_PIXELS ((int64_t)1 << 28)

typedef enum em_image_format {
    EM_IMAGE_UNKNOWN = 0,
    EM_IMAGE_BMP,
    EM_IMAGE_JPEG,
    EM_IMAGE_PNM,
    EM_IMAGE_PNG,
    EM_IMAGE_TIFF,
    EM_IMAGE_WEBP,
    EM_IMAGE_JPEG2000
} em_image_format;

/* The pixel_format attribute. */
typedef enum em_image_pixfmt { EM_IMAGE_RGB = 0, EM_IMAGE_BGR, EM_IMAGE_GRAY } em_image_pixfmt;

/* What the BMP decoder needs (PIL's BmpImagePlugin rules). */
typedef struct em_image_bmp {
    int bits;          /* 1, 4, 8 (palette), 16, 24 or 32 */
    uint32_t masks[3]; /* 16/24/32 bits: where R, G and B sit in the little-endian pixel */
    bool top_down;     /* negative height: first row first */
    size_t palette;    /* bits <= 8: offset of the palette */
    int palette_entry; /* bytes per palette entry: 4 (B, G, R, x) or 3 (OS/2 1.x) */
    uint32_t colors;   /* palette entries the header declares (1 << bits if 0) */
    size_t data;       /* offset of the first stored row */
} em_image_bmp;

/* What the PNM decoder needs (PIL's PpmImagePlugin rules). */
typedef struct em_image_pnm {
    char kind;       /* '1' .. '6' as in "P6" */
    int channels;    /* 1 (P1 P2 P4 P5) or 3 (P3 P6) */
    uint32_t maxval; /* 1 .. 65535 (1 for bitmaps) */
    size_t data;     /* offset of the first sample */
} em_image_pnm;

typedef struct em_image_info {
    em_image_format format;
    int64_t height, width; /* both >= 1, height * width <= EM_IMAGE_MAX_PIXELS */
    em_image_bmp bmp;      /* format BMP only */
    em_image_pnm pnm;      /* format PNM only */
} em_image_info;

/* The format's name ("JPEG", "JPEG 2000", ...). */
const char *em_image_format_name(em_image_format f);
/* Parses "RGB" | "BGR" | "Grayscale"; false for anything else. */
bool em_image_pixfmt_parse(const char *s, em_image_pixfmt *pf);
/* Output channels of a pixel format (3 or 1). */
int em_image_pixfmt_channels(em_image_pixfmt pf);

/* Tells the format of data[0..n) and reads its dims (and the BMP / PNM layout). Returns EMBER_OK
 * or the code of the failure (INVALID_ARG: not an image, a bad or truncated header, zero or too
 * many pixels, BMP or raw PNM pixel data shorter than the pixels need; UNSUPPORTED: a variant no
 * decoder handles) with a message naming the format in err[0..cap). */
ember_code em_image_probe(const uint8_t *data, size_t n, em_image_info *info, char *err,
                          size_t cap);

#endif /* EMBER_IR_IMAGE_H */
