/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The BMP and PNM decoders of ImageDecoder (no library), following PIL 9.4 (BmpImagePlugin,
 * PpmImagePlugin, Unpack.c) on the layouts the header parser accepts (runtime/shape/shape_image.c):
 *  - BMP: 1/4/8-bit palettes (B, G, R entries), 16/24/32-bit pixels read through their channel
 *    masks, each channel scaled as PIL does, (v * 255) / max; rows bottom-up unless the height
 *    is negative; every stored row needs its bytes, the padding of the last one excepted.
 *  - PNM: P4/P5/P6 raw and P1/P2/P3 plain. Samples are rescaled as PIL's decoders do,
 *    round(v / maxval * 255) with Python's rounding (half to even), except raw maxval 255 (as
 *    is); grey with maxval > 255 becomes PIL mode I (scaled to 65535, or raw for 65535), whose
 *    conversion to L or RGB clips at 255. P1/P4 bits are 1 = black.
 * Data too short for the pixels is refused by the probe (runtime/shape/shape_image.c) before anything is
 * allocated; plain tokens that are not numbers, too long, or above maxval are INVALID_ARG here.
 */
#include "ref.h"

#include <math.h>
#include <string.h>

/* ---- BMP -------------------------------------------------------------------------------- */

static uint32_t bmp_pixel(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int k = bytes - 1; k >= 0; k--) {
        v = v << 8 | p[k];
    }
    return v;
}

/* One channel of pixel v through mask m, scaled to 8 bits. */
static uint8_t bmp_channel(uint32_t v, uint32_t m)
{
    int shift = 0;
    while (!((m >> shift) & 1u)) {
        shift++;
    }
    uint32_t max = m >> shift;
    return (uint8_t)((uint64_t)((v & m) >> shift) * 255u / max);
}

/* The palette as R, G, B triples: at most 256 entries can be indexed, and PIL takes the entries
 * the file holds (indices past them read as grey). */
static size_t bmp_palette(const em_image_dec *d, uint8_t pal[256 * 3])
{
    const em_image_bmp *b = &d->info->bmp;
    size_t n = b->colors < 256 ? b->colors : 256;
    size_t held = b->palette < d->n ? (d->n - b->palette) / (size_t)b->palette_entry : 0;
    n = n < held ? n : held;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = d->src + b->palette + i * (size_t)b->palette_entry;
        pal[3 * i] = e[2];
        pal[3 * i + 1] = e[1];
        pal[3 * i + 2] = e[0];
    }
    return n;
}

bool em_image_decode_bmp(em_image_dec *d)
{
    const em_image_bmp *b = &d->info->bmp;
    size_t w = (size_t)d->info->width, h = (size_t)d->info->height;
    size_t stride = (((size_t)w * (size_t)b->bits + 31) >> 3) & ~(size_t)3; /* probe: in data */
    uint8_t pal[256 * 3];
    size_t n_colors = 0;
    if (b->bits <= 8) {
        n_colors = bmp_palette(d, pal);
    }
    for (size_t y = 0; y < h; y++) {
        size_t r = b->top_down ? y : h - 1 - y;
        const uint8_t *src = d->src + b->data + r * stride;
        if (b->bits <= 8) {
            uint8_t *dst = d->buf + y * w;
            int per = 8 / b->bits;
            unsigned mask = (1u << b->bits) - 1u;
            for (size_t x = 0; x < w; x++) {
                int sh = 8 - b->bits * (int)(x % (size_t)per + 1);
                dst[x] = (uint8_t)((src[x / (size_t)per] >> sh) & mask);
            }
            continue;
        }
        uint8_t *dst = d->buf + 3 * y * w;
        int bytes = b->bits / 8;
        for (size_t x = 0; x < w; x++) {
            uint32_t v = bmp_pixel(src + x * (size_t)bytes, bytes);
            for (int c = 0; c < 3; c++) {
                dst[3 * x + (size_t)c] = bmp_channel(v, b->masks[c]);
            }
        }
    }
    if (b->bits <= 8) {
        em_image_palette_to_rgb(d->buf, w * h, pal, n_colors);
    }
    d->channels = 3;
    return true;
}

/* ---- PNM -------------------------------------------------------------------------------- */

/* How a sample of maxval becomes 8 bits: PIL's mode I (grey over 255) keeps 16 bits, which its
 * conversions then clip. */
typedef struct pnm_scale {
    uint32_t maxval, out_max;
    bool raw; /* the sample as is (raw maxval 255, or 65535 grey) */
} pnm_scale;

static uint8_t pnm_sample(const pnm_scale *s, uint32_t v)
{
    double r = s->raw ? (double)v : nearbyint((double)v / (double)s->maxval * (double)s->out_max);
    if (r > (double)s->out_max) {
        r = (double)s->out_max;
    }
    return r > 255.0 ? 255 : (uint8_t)r;
}

static bool pnm_raw(em_image_dec *d, size_t count, const pnm_scale *s)
{
    const em_image_pnm *m = &d->info->pnm;
    size_t bps = m->maxval < 256 ? 1 : 2; /* the probe checked that count samples are there */
    const uint8_t *p = d->src + m->data;
    for (size_t i = 0; i < count; i++) {
        uint32_t v = bps == 1 ? p[i] : (uint32_t)p[2 * i] << 8 | p[2 * i + 1];
        d->buf[i] = pnm_sample(s, v);
    }
    return true;
}

static bool pnm_bits(em_image_dec *d)
{
    const em_image_pnm *m = &d->info->pnm;
    size_t w = (size_t)d->info->width, h = (size_t)d->info->height, row = (w + 7) / 8;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *src = d->src + m->data + y * row;
        for (size_t x = 0; x < w; x++) {
            d->buf[y * w + x] = (src[x / 8] >> (7 - x % 8)) & 1u ? 0 : 255;
        }
    }
    return true;
}

/* The next byte of plain data with '#' comments (through their CR or LF) removed; -1 at the
 * end. */
static int plain_next(const em_image_dec *d, size_t *pos)
{
    while (*pos < d->n) {
        uint8_t c = d->src[(*pos)++];
        if (c != '#') {
            return c;
        }
        while (*pos < d->n && d->src[*pos] != '\r' && d->src[*pos] != '\n') {
            (*pos)++;
        }
        *pos += *pos < d->n;
    }
    return -1;
}

static bool plain_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* P1: '0' / '1' characters, whitespace optional. */
static bool pnm_plain_bits(em_image_dec *d, size_t count)
{
    size_t pos = d->info->pnm.data, k = 0;
    while (k < count) {
        int c = plain_next(d, &pos);
        if (c < 0) {
            return em_image_fail(d, EMBER_ERR_INVALID_ARG,
                                 "PNM: the pixel data is truncated (%zu of %zu samples)", k, count);
        }
        if (plain_space(c)) {
            continue;
        }
        if (c != '0' && c != '1') {
            return em_image_fail(d, EMBER_ERR_INVALID_ARG, "PNM: bad bitmap character 0x%02x",
                                 (unsigned)c);
        }
        d->buf[k++] = c == '1' ? 0 : 255;
    }
    return true;
}

/* P2 / P3: decimal tokens of at most 10 digits, each at most maxval. */
static bool pnm_plain(em_image_dec *d, size_t count, const pnm_scale *s)
{
    size_t pos = d->info->pnm.data;
    for (size_t k = 0; k < count; k++) {
        int c;
        while ((c = plain_next(d, &pos)) >= 0 && plain_space(c)) {
        }
        uint64_t v = 0;
        int len = 0;
        for (; c >= 0 && !plain_space(c); c = plain_next(d, &pos)) {
            if (c < '0' || c > '9' || ++len > 10) {
                return em_image_fail(d, EMBER_ERR_INVALID_ARG,
                                     "PNM: sample %zu is not a number of at most 10 digits", k);
            }
            v = v * 10 + (uint64_t)(c - '0');
        }
        if (len == 0) {
            return em_image_fail(d, EMBER_ERR_INVALID_ARG,
                                 "PNM: the pixel data is truncated (%zu of %zu samples)", k, count);
        }
        if (v > s->maxval) {
            return em_image_fail(d, EMBER_ERR_INVALID_ARG,
                                 "PNM: sample %zu (%llu) is over maxval %u", k,
                                 (unsigned long long)v, (unsigned)s->maxval);
        }
        d->buf[k] = pnm_sample(s, (uint32_t)v);
    }
    return true;
}

bool em_image_decode_pnm(em_image_dec *d)
{
    const em_image_pnm *m = &d->info->pnm;
    size_t count = (size_t)d->info->width * (size_t)d->info->height * (size_t)m->channels;
    bool plain = m->kind <= '3', grey16 = m->channels == 1 && m->maxval > 255;
    pnm_scale s = {m->maxval, grey16 ? 65535u : 255u, false};
    s.raw = !plain && (m->maxval == 255 || (grey16 && m->maxval == 65535));
    d->channels = m->channels;
    switch (m->kind) {
    case '1':
        return pnm_plain_bits(d, count);
    case '4':
        return pnm_bits(d);
    default:
        return plain ? pnm_plain(d, count, &s) : pnm_raw(d, count, &s);
    }
}
