/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ImageDecoder-20: the kernel, the format dispatch and the conversion to pixel_format (see
 * image_ref.h for the rules). The decoders write grey or RGB into a work buffer of
 * EM_IMAGE_WORK_BPP bytes per pixel, which is converted in place (grey -> RGB from the end, RGB ->
 * luma from the start, BGR by swapping) and copied to the output. Prepare, when it sees the
 * input's data, decodes into its state (the state and the work buffer are one allocation);
 * otherwise run decodes into scratch of the same size.
 */
#define _POSIX_C_SOURCE 200809L
#include "ref.h"

#include "core/alloc.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Helpers shared by the decoders (image_ref.h) ----------------------------------------- */

size_t em_image_work_bytes(int64_t h, int64_t w)
{
    size_t pix = (size_t)h * (size_t)w * EM_IMAGE_WORK_BPP;
    return ((pix + 15) & ~(size_t)15) + (size_t)h * sizeof(uint8_t *);
}

bool em_image_fail(em_image_dec *d, ember_code code, const char *fmt, ...)
{
    if (d->code == EMBER_OK) { /* the first failure is the cause; keep it */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
        for (char *c = d->msg; *c != '\0'; c++) { /* bytes from the file may be anything */
            *c = (*c >= 0x20 && *c < 0x7f) ? *c : '?';
        }
        d->code = code;
    }
    return false;
}

bool em_image_dl_load(const char *format, const char *soname, const char *const *names,
                      void **const *slots, size_t n, char *err, size_t cap)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        snprintf(err, cap, "%s needs %s, which could not be loaded: %s", format, soname,
                 why != NULL ? why : "unknown error");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        *slots[i] = dlsym(h, names[i]);
        if (*slots[i] == NULL) {
            snprintf(err, cap, "%s needs %s from %s, which lacks it (too old?)", format, names[i],
                     soname);
            dlclose(h);
            return false;
        }
    }
    return true;
}

void em_image_gray_to_rgb(uint8_t *buf, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        uint8_t v = buf[i];
        buf[3 * i] = buf[3 * i + 1] = buf[3 * i + 2] = v;
    }
}

void em_image_palette_to_rgb(uint8_t *buf, size_t n, const uint8_t *pal, size_t n_colors)
{
    for (size_t i = n; i-- > 0;) {
        uint8_t k = buf[i];
        uint8_t rgb[3] = {k, k, k};
        if (k < n_colors) {
            memcpy(rgb, pal + 3 * (size_t)k, 3);
        }
        memcpy(buf + 3 * i, rgb, 3);
    }
}

/* ---- Decoding and conversion --------------------------------------------------------------- */

static bool decode(em_image_dec *d)
{
    typedef bool (*decode_fn)(em_image_dec *);
    static const decode_fn by_format[] = {NULL,
                                          em_image_decode_bmp,
                                          em_image_decode_jpeg,
                                          em_image_decode_pnm,
                                          em_image_decode_png,
                                          em_image_decode_tiff,
                                          em_image_decode_webp,
                                          em_image_decode_jpeg2000};
    if (!by_format[d->info->format](d)) {
        return false;
    }
    EMBER_ASSERT(d->channels == 1 || d->channels == 3);
    return true;
}

/* Converts the decoded pixels (d->channels per pixel) to pf in place. */
static void to_pixfmt(uint8_t *buf, size_t n, int channels, em_image_pixfmt pf)
{
    if (pf == EM_IMAGE_GRAY) {
        for (size_t i = 0; channels == 3 && i < n; i++) {
            const uint8_t *p = buf + 3 * i;
            buf[i] = (uint8_t)((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
        }
        return;
    }
    if (channels == 1) {
        em_image_gray_to_rgb(buf, n);
    }
    for (size_t i = 0; pf == EM_IMAGE_BGR && i < n; i++) {
        uint8_t t = buf[3 * i];
        buf[3 * i] = buf[3 * i + 2];
        buf[3 * i + 2] = t;
    }
}

/* Probes and decodes src[0..n) into work (em_image_work_bytes(h, w) bytes) as pf, expecting
 * h x w when h >= 0. */
static bool decode_to(const uint8_t *src, size_t n, int64_t h, int64_t w, em_image_pixfmt pf,
                      uint8_t *work, em_image_dec *d, em_image_info *info)
{
    memset(d, 0, sizeof *d);
    ember_code c = em_image_probe(src, n, info, d->msg, sizeof d->msg);
    if (c != EMBER_OK) {
        d->code = c;
        return false;
    }
    if (h >= 0 && (info->height != h || info->width != w)) {
        return em_image_fail(d, EMBER_ERR_INVALID_ARG,
                             "%s: the image is %lld x %lld, the output was planned as %lld x %lld",
                             em_image_format_name(info->format), (long long)info->height,
                             (long long)info->width, (long long)h, (long long)w);
    }
    size_t pix = (size_t)info->height * (size_t)info->width;
    d->src = src;
    d->n = n;
    d->info = info;
    d->buf = work;
    /* Pixels a codec leaves unwritten on corrupt data (libtiff can report a broken JPEG strip
     * as read) are zeros in every run, not what the reused work buffer held before. */
    memset(work, 0, pix * EM_IMAGE_WORK_BPP);
    d->rows = (uint8_t **)(void *)(work + ((pix * EM_IMAGE_WORK_BPP + 15) & ~(size_t)15));
    if (!decode(d)) {
        return false;
    }
    to_pixfmt(work, pix, d->channels, pf);
    return true;
}

/* ---- The kernel ---------------------------------------------------------------------------- */

typedef struct image_state {
    em_image_pixfmt pf;
    int64_t h, w;
    size_t out_bytes;
    bool decoded; /* prepare decoded the image: the pixels follow the state */
} image_state;

/* The state and, when decoded, its pixels: one block. */
#define STATE_BYTES ((sizeof(image_state) + 15) & ~(size_t)15)

ember_status *em_imagedecoder_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    const char *pfs = NULL;
    image_state s = {EM_IMAGE_RGB, 0, 0, 0, false};
    image_state *ps = NULL;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_U8, "input 0 (encoded_stream)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_U8, "output 0 (image)"));
    EMBER_TRY(em_ref_attr_string(ki, "pixel_format", "RGB", &pfs));
    if (!em_image_pixfmt_parse(pfs, &s.pf)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "pixel_format '%s' is not RGB, BGR or Grayscale", pfs);
    }
    if (x->rank != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 has rank %d, expected 1",
                            x->rank);
    }
    int c = em_image_pixfmt_channels(s.pf);
    if (y->rank != 3 || y->dims[2] != c || y->dims[0] < 1 || y->dims[1] < 1 ||
        y->dims[1] > EM_IMAGE_MAX_PIXELS / y->dims[0]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output 0 must be [H, W, %d] with 1 <= H * W <= %lld", c,
                            (long long)EM_IMAGE_MAX_PIXELS);
    }
    s.h = y->dims[0];
    s.w = y->dims[1];
    s.out_bytes = (size_t)s.h * (size_t)s.w * (size_t)c;
    size_t work = em_image_work_bytes(s.h, s.w);
    if (x->data == NULL) {
        *scratch_bytes = work;
        return em_ref_state_new(ki, &s, sizeof s, state);
    }
    ps = em_malloc(ki->al, STATE_BYTES + work);
    if (ps == NULL) {
        return em_status_oom();
    }
    em_image_dec d;
    em_image_info info;
    if (!decode_to(x->data, (size_t)x->dims[0], s.h, s.w, s.pf, (uint8_t *)ps + STATE_BYTES, &d,
                   &info)) {
        st = em_ref_error(ki, d.code, "%s", d.msg);
        goto fail;
    }
    s.decoded = true;
    *ps = s;
    *state = ps;
    return NULL;
fail:
    em_free(ki->al, ps);
    return st;
}

void em_imagedecoder__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const image_state *s = state;
    if (s->decoded) {
        memcpy(out[0].data, (const uint8_t *)s + STATE_BYTES, s->out_bytes);
        return;
    }
    em_image_dec d;
    em_image_info info;
    if (decode_to(in[0].data, (size_t)in[0].dims[0], s->h, s->w, s->pf, ctx->scratch, &d, &info)) {
        memcpy(out[0].data, ctx->scratch, s->out_bytes);
    } else {
        memset(out[0].data, 0, s->out_bytes); /* run cannot fail: a bad image reads as black */
    }
}
