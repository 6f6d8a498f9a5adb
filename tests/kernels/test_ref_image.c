/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/image_*.c and runtime/shape/shape_image.c: ImageDecoder-20 against PIL. Every fixture of
 * tests/data/image (tools/gen_image_fixtures.py: BMP 1/4/8/16/24/32-bit, OS/2, bitfields,
 * palettes with out-of-range indices; PNM P1-P6 with maxval 15, 100, 1000, 65535; PNG 1/2/8/16-bit
 * grey, RGB(A), LA, palettes with tRNS, Adam7; JPEG 4:2:0, 4:4:4, progressive, grey, CMYK,
 * restart markers; TIFF raw/LZW/deflate/packbits, grey, bilevel, palette, RGBA; WebP lossy,
 * lossless, alpha; JP2 and J2K) is decoded in every pixel_format, with the image known in
 * prepare and not, and compared exactly with PIL's convert("RGB") / convert("L") (BGR: RGB
 * reversed). Then the shape function, malformed nodes, and hostile data: every prefix of every
 * fixture, byte flips, garbage, and headers claiming huge images, which must fail cleanly
 * (INVALID_ARG naming the node and the format) or decode, never crash, hang or leak.
 */
#include "test_ref_util.h"

#include "loaders/npy/npy.h"
#include "shape/shape.h"
#include "core/tensor.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct fixture {
    const char *name, *ext;
} fixture;

static const fixture fixtures[] = {
    {"bmp_bgrx32_topdown", "bmp"}, {"bmp_bw1", "bmp"},         {"bmp_gray8", "bmp"},
    {"bmp_os2_rgb24", "bmp"},      {"bmp_pal4_oob", "bmp"},    {"bmp_pal8", "bmp"},
    {"bmp_rgb24", "bmp"},          {"bmp_rgb555", "bmp"},      {"bmp_rgb565", "bmp"},
    {"bmp_v5_rgba32", "bmp"},      {"j2k_gray", "j2k"},        {"jp2_rgb", "jp2"},
    {"jp2_rgba", "jp2"},           {"jpeg_cmyk", "jpg"},       {"jpeg_gray", "jpg"},
    {"jpeg_progressive", "jpg"},   {"jpeg_restart", "jpg"},    {"jpeg_rgb420", "jpg"},
    {"jpeg_rgb444_q95", "jpg"},    {"png_bw1", "png"},         {"png_gray16", "png"},
    {"png_gray2", "png"},          {"png_gray8", "png"},       {"png_la8", "png"},
    {"png_pal4", "png"},           {"png_pal8_oob", "png"},    {"png_pal8_trns", "png"},
    {"png_rgb16", "png"},          {"png_rgb8", "png"},        {"png_rgb8_adam7", "png"},
    {"png_rgba8", "png"},          {"pnm_p1", "pnm"},          {"pnm_p2_max15", "pnm"},
    {"pnm_p3_comment", "pnm"},     {"pnm_p4", "pnm"},          {"pnm_p5", "pnm"},
    {"pnm_p5_max100", "pnm"},      {"pnm_p5_max65535", "pnm"}, {"pnm_p6", "pnm"},
    {"pnm_p6_max1000", "pnm"},     {"tiff_bw1", "tif"},        {"tiff_deflate_gray", "tif"},
    {"tiff_lzw", "tif"},           {"tiff_pal", "tif"},        {"tiff_jpeg", "tif"},
    {"tiff_raw", "tif"},           {"tiff_rgba", "tif"},       {"webp_alpha", "webp"},
    {"webp_lossless", "webp"},     {"webp_lossy", "webp"},
};
#define N_FIXTURES (sizeof fixtures / sizeof fixtures[0])

static const char *const pixfmts[3] = {"RGB", "BGR", "Grayscale"};

/* ---- Files ------------------------------------------------------------------------------- */

static uint8_t *read_file(const char *name, const char *ext, size_t *size)
{
    const char *root = getenv("EMBER_TEST_DATA");
    char path[512];
    snprintf(path, sizeof path, "%s/image/%s.%s", root != NULL ? root : "tests/data", name, ext);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("cannot open %s", path);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = test_malloc((size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *size = (size_t)len;
    return buf;
}

/* PIL's decode of a fixture: [H, W, 4] = R, G, B, L. */
typedef struct expected {
    int64_t h, w;
    uint8_t *px;
} expected;

static expected read_expected(const char *name)
{
    size_t size;
    uint8_t *raw = read_file(name, "npy", &size);
    em_tensor t;
    em_storage *stg = NULL;
    ember_status *st = em_npy_read(raw, size, name, test_allocator(), &t, &stg);
    t_expect_ok(st, name);
    assert_int_equal(t.dtype, EMBER_DTYPE_U8);
    assert_int_equal(t.rank, 3);
    assert_int_equal(t.dims[2], 4);
    expected e = {t.dims[0], t.dims[1], test_malloc((size_t)(t.dims[0] * t.dims[1] * 4))};
    memcpy(e.px, em_storage_data(stg), (size_t)(e.h * e.w * 4));
    em_storage_release(stg);
    test_free(raw);
    return e;
}

/* ---- Running the kernel ------------------------------------------------------------------- */

/* Decodes data[0..n) as pixel_format pf (NULL: no attribute) into out (h x w x c, poisoned
 * first). prepare sees the data when `konst`. */
static ember_status *decode(const uint8_t *data, size_t n, const char *pf, int64_t h, int64_t w,
                            uint8_t *out, bool konst)
{
    int c = pf != NULL && strcmp(pf, "Grayscale") == 0 ? 1 : 3;
    int64_t xdims[1] = {(int64_t)n}, ydims[3] = {h, w, c};
    em_tensor in[1], outs[1];
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, xdims, (void *)data);
    t_tensor(&outs[0], EMBER_DTYPE_U8, 3, ydims, out);
    memset(out, 0xa5, (size_t)(h * w * c));
    t_node tn;
    t_node_init(&tn, EM_OP_IMAGEDECODER, "img_dec");
    if (pf != NULL) {
        t_set_string(&tn, "pixel_format", pf);
    }
    const em_kernel *k = t_kernel(EM_OP_IMAGEDECODER, EMBER_DTYPE_UNDEFINED);
    return t_run_const(k, &tn.n, in, 1, outs, 1, NULL, konst ? 1u : 0u);
}

static void check_pixels(const char *name, const char *pf, const expected *e, const uint8_t *got)
{
    int c = strcmp(pf, "Grayscale") == 0 ? 1 : 3;
    for (int64_t i = 0; i < e->h * e->w; i++) {
        for (int k = 0; k < c; k++) {
            int src = c == 1 ? 3 : strcmp(pf, "BGR") == 0 ? 2 - k : k;
            uint8_t want = e->px[4 * i + src];
            if (got[i * c + k] != want) {
                fail_msg("%s as %s: pixel (%lld, %lld) channel %d: got %u, PIL gives %u", name, pf,
                         (long long)(i / e->w), (long long)(i % e->w), k, got[i * c + k], want);
            }
        }
    }
}

/* A fixture: its bytes and PIL's decode. */
typedef struct loaded {
    const char *name;
    uint8_t *data;
    size_t n;
    expected e;
    uint8_t *out; /* room for the decoded image */
} loaded;

static void unload(loaded *l)
{
    test_free(l->out);
    test_free(l->e.px);
    test_free(l->data);
}

/* Loads fixture f. With need_codec, false (nothing held) when its codec library was not built in
 * or cannot be loaded (UNSUPPORTED): its cases are skipped. BMP and PNM need no library. */
static bool load(size_t f, bool need_codec, loaded *l)
{
    l->name = fixtures[f].name;
    l->data = read_file(fixtures[f].name, fixtures[f].ext, &l->n);
    l->e = read_expected(fixtures[f].name);
    l->out = test_malloc((size_t)(l->e.h * l->e.w * 3));
    if (!need_codec || strcmp(fixtures[f].ext, "bmp") == 0 || strcmp(fixtures[f].ext, "pnm") == 0) {
        return true;
    }
    ember_status *st = decode(l->data, l->n, "RGB", l->e.h, l->e.w, l->out, true);
    bool missing = ember_status_code(st) == EMBER_ERR_UNSUPPORTED;
    if (missing) {
        print_message("skipping %s: %s\n", l->name, ember_status_message(st));
        unload(l);
    }
    ember_status_destroy(st);
    return !missing;
}

/* ---- Fixtures against PIL ------------------------------------------------------------------- */

static void test_fixtures(void **state)
{
    (void)state;
    loaded l;
    for (size_t f = 0; f < N_FIXTURES; f++) {
        if (!load(f, true, &l)) {
            continue;
        }
        for (int p = 0; p < 3; p++) {
            for (int konst = 0; konst < 2; konst++) {
                t_expect_ok(decode(l.data, l.n, pixfmts[p], l.e.h, l.e.w, l.out, konst), l.name);
                check_pixels(l.name, pixfmts[p], &l.e, l.out);
            }
        }
        t_expect_ok(decode(l.data, l.n, NULL, l.e.h, l.e.w, l.out, true), l.name); /* RGB */
        check_pixels(l.name, "RGB", &l.e, l.out);
        unload(&l);
    }
}

/* ---- The shape function ------------------------------------------------------------------- */

static ember_status *shape_of(const uint8_t *data, size_t n, const char *pf, ember_dtype dt,
                              int rank, bool with_value, em_shape *out)
{
    int64_t dims[2] = {(int64_t)n, 1};
    em_tensor v;
    t_tensor(&v, dt, rank, dims, (void *)data);
    em_shape in;
    memset(&in, 0, sizeof in);
    in.dtype = dt;
    in.rank = rank;
    in.dims[0] = em_dim_known((int64_t)n);
    in.value = with_value ? &v : NULL;
    memset(out, 0, sizeof *out);
    out->rank = -1;
    t_node tn;
    t_node_init(&tn, EM_OP_IMAGEDECODER, "img_shape");
    if (pf != NULL) {
        t_set_string(&tn, "pixel_format", pf);
    }
    return em_shape_image_decoder(&tn.n, &in, out);
}

static void test_shape(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = read_file("jpeg_rgb420", "jpg", &n);
    em_shape out;
    t_expect_ok(shape_of(data, n, NULL, EMBER_DTYPE_U8, 1, true, &out), "rgb");
    assert_int_equal(out.dtype, EMBER_DTYPE_U8);
    assert_int_equal(out.rank, 3);
    assert_int_equal(out.dims[0].v, 13);
    assert_int_equal(out.dims[1].v, 19);
    assert_int_equal(out.dims[2].v, 3);
    t_expect_ok(shape_of(data, n, "Grayscale", EMBER_DTYPE_U8, 1, false, &out), "unknown");
    assert_int_equal(out.rank, 3);
    assert_true(out.dims[0].v < 0 && out.dims[1].v < 0);
    assert_int_equal(out.dims[2].v, 1);
    t_expect_error(shape_of(data, n, "YUV", EMBER_DTYPE_U8, 1, true, &out), EMBER_ERR_INVALID_MODEL,
                   "img_shape", "bad pixel_format");
    t_expect_error(shape_of(data, n, NULL, EMBER_DTYPE_I8, 1, true, &out), EMBER_ERR_INVALID_MODEL,
                   "img_shape", "int8 input");
    t_expect_error(shape_of(data, n, NULL, EMBER_DTYPE_U8, 2, false, &out), EMBER_ERR_INVALID_MODEL,
                   "img_shape", "2-D input");
    t_expect_error(shape_of(data, 40, NULL, EMBER_DTYPE_U8, 1, true, &out), EMBER_ERR_INVALID_ARG,
                   "img_shape", "header cut before the frame");
    /* Every fixture's dims come out of its header. */
    loaded l;
    for (size_t f = 0; f < N_FIXTURES; f++) {
        load(f, false, &l);
        t_expect_ok(shape_of(l.data, l.n, "BGR", EMBER_DTYPE_U8, 1, true, &out), l.name);
        assert_int_equal(out.dims[0].v, l.e.h);
        assert_int_equal(out.dims[1].v, l.e.w);
        unload(&l);
    }
    test_free(data);
}

/* ---- Malformed nodes and data ------------------------------------------------------------- */

static void expect_decode_error(const uint8_t *data, size_t n, int64_t h, int64_t w,
                                ember_code code, const char *what, const char *case_name)
{
    uint8_t *out = test_malloc((size_t)(h * w * 3));
    ember_status *st = decode(data, n, "RGB", h, w, out, true);
    if (st != NULL && what != NULL && strstr(ember_status_message(st), what) == NULL) {
        fail_msg("case %s: message '%s' does not name '%s'", case_name, ember_status_message(st),
                 what);
    }
    t_expect_error(st, code, "img_dec", case_name);
    /* Without the data in prepare, run cannot fail: it writes zeros. */
    t_expect_ok(decode(data, n, "RGB", h, w, out, false), case_name);
    for (int64_t i = 0; i < h * w * 3; i++) {
        assert_int_equal(out[i], 0);
    }
    test_free(out);
}

static void test_bad_nodes(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = read_file("png_rgb8", "png", &n);
    uint8_t out[7 * 5 * 3];
    int64_t xdims[1] = {(int64_t)n}, ydims[3] = {5, 7, 3};
    em_tensor in[1], outs[1];
    t_node tn;
    const em_kernel *k = t_kernel(EM_OP_IMAGEDECODER, EMBER_DTYPE_UNDEFINED);

    t_expect_error(decode(data, n, "YUV", 5, 7, out, true), EMBER_ERR_INVALID_MODEL, "img_dec",
                   "pixel_format YUV");
    t_node_init(&tn, EM_OP_IMAGEDECODER, "img_dec");
    t_set_int(&tn, "pixel_format", 1);
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, xdims, data);
    t_tensor(&outs[0], EMBER_DTYPE_U8, 3, ydims, out);
    t_expect_error(t_run_const(k, &tn.n, in, 1, outs, 1, NULL, 1), EMBER_ERR_INVALID_MODEL,
                   "img_dec", "int pixel_format");
    t_node_init(&tn, EM_OP_IMAGEDECODER, "img_dec");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, xdims, data);
    t_expect_error(t_run_const(k, &tn.n, in, 1, outs, 1, NULL, 1), EMBER_ERR_INVALID_MODEL,
                   "img_dec", "float input");
    int64_t x2[2] = {1, (int64_t)n};
    t_tensor(&in[0], EMBER_DTYPE_U8, 2, x2, data);
    t_expect_error(t_run_const(k, &tn.n, in, 1, outs, 1, NULL, 1), EMBER_ERR_INVALID_MODEL,
                   "img_dec", "2-D input");
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, xdims, data);
    ydims[2] = 1; /* RGB into one channel */
    t_tensor(&outs[0], EMBER_DTYPE_U8, 3, ydims, out);
    t_expect_error(t_run_const(k, &tn.n, in, 1, outs, 1, NULL, 1), EMBER_ERR_INVALID_MODEL,
                   "img_dec", "1-channel output for RGB");
    /* A planned shape other than the image's. */
    expect_decode_error(data, n, 4, 7, EMBER_ERR_INVALID_ARG, "PNG", "wrong planned shape");
    test_free(data);
}

static void test_bad_data(void **state)
{
    (void)state;
    static const uint8_t garbage[] = "this is no image at all";
    expect_decode_error(garbage, sizeof garbage, 2, 2, EMBER_ERR_INVALID_ARG, "not a BMP",
                        "garbage");
    expect_decode_error(garbage, 0, 2, 2, EMBER_ERR_INVALID_ARG, NULL, "empty");
    /* Headers claiming 65535 x 65535 (JPEG) and 2^31-1 squared (PNG): refused before any
     * allocation. */
    static const uint8_t big_jpeg[] = {0xff, 0xd8, 0xff, 0xc0, 0, 11,   8, 0xff,
                                       0xff, 0xff, 0xff, 1,    1, 0x11, 0};
    expect_decode_error(big_jpeg, sizeof big_jpeg, 2, 2, EMBER_ERR_INVALID_ARG, "over the limit",
                        "huge JPEG");
    uint8_t big_png[33] = {0x89, 'P',  'N',  'G',  '\r', '\n', 0x1a, '\n', 0,    0,
                           0,    13,   'I',  'H',  'D',  'R',  0x7f, 0xff, 0xff, 0xff,
                           0x7f, 0xff, 0xff, 0xff, 8,    2,    0,    0,    0};
    expect_decode_error(big_png, sizeof big_png, 2, 2, EMBER_ERR_INVALID_ARG, "PNG", "huge PNG");
    static const uint8_t big_bmp[54] = {
        'B', 'M', [10] = 54, [14] = 40, [19] = 0x40, [23] = 0x40, [26] = 1, [28] = 24};
    expect_decode_error(big_bmp, sizeof big_bmp, 2, 2, EMBER_ERR_INVALID_ARG, "BMP: the pixel data",
                        "16384 x 16384 BMP in 54 bytes");
    static const uint8_t zero_bmp[] = "BM\0\0\0\0\0\0\0\0\x1a\0\0\0\x0c\0\0\0\0\0\x05\0\1\0\x18\0";
    expect_decode_error(zero_bmp, sizeof zero_bmp - 1, 2, 2, EMBER_ERR_INVALID_ARG, "0 x",
                        "zero-width BMP");
    static const uint8_t pnm_big_sample[] = "P2 1 1 7\n9\n";
    expect_decode_error(pnm_big_sample, sizeof pnm_big_sample - 1, 1, 1, EMBER_ERR_INVALID_ARG,
                        "over maxval", "PNM sample over maxval");
    static const uint8_t rle_bmp[54] = {
        'B', 'M', [10] = 54, [14] = 40, [18] = 1, [22] = 1, [26] = 1, [28] = 8, [30] = 1};
    expect_decode_error(rle_bmp, sizeof rle_bmp, 1, 1, EMBER_ERR_UNSUPPORTED, "RLE", "RLE BMP");
}

/* Half of each fixture: an error naming the format (PIL refuses these too). */
static void test_truncated(void **state)
{
    (void)state;
    loaded l;
    for (size_t f = 0; f < N_FIXTURES; f++) {
        if (!load(f, true, &l)) {
            continue;
        }
        char what[64];
        snprintf(what, sizeof what, "%s truncated", l.name);
        expect_decode_error(l.data, l.n / 2, l.e.h, l.e.w, EMBER_ERR_INVALID_ARG, NULL, what);
        unload(&l);
    }
}

/* Every prefix and 300 byte flips of every fixture: any outcome but a crash, hang or leak (ASan
 * and cmocka's leak check watch). */
static void test_hostile(void **state)
{
    (void)state;
    test_rng rng = {12345};
    loaded l;
    for (size_t f = 0; f < N_FIXTURES; f++) {
        load(f, false, &l);
        size_t step = l.n > 600 ? 7 : 1;
        for (size_t len = 0; len < l.n; len += step) {
            ember_status_destroy(decode(l.data, len, "Grayscale", l.e.h, l.e.w, l.out, len % 2));
        }
        uint8_t *copy = test_malloc(l.n);
        for (int k = 0; k < 300; k++) {
            memcpy(copy, l.data, l.n);
            for (int flips = 1 + k % 3; flips > 0; flips--) {
                uint64_t r = test_rng_next(&rng);
                copy[r % l.n] ^= (uint8_t)(1u << ((r >> 32) % 8));
            }
            ember_status_destroy(decode(copy, l.n, "RGB", l.e.h, l.e.w, l.out, k % 2 == 0));
        }
        test_free(copy);
        unload(&l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),  cmocka_unit_test(test_shape),
        cmocka_unit_test(test_bad_nodes), cmocka_unit_test(test_bad_data),
        cmocka_unit_test(test_truncated), cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
