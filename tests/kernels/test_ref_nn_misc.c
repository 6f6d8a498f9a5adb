/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The onnx 1.13+ spatial ops: Col2Im and CenterCropPad (kernels/ref/nn_misc_ref.c), AffineGrid
 * (nn_grid_ref.c) and DeformConv (nn_convt_ref.c), each against a naive version written here:
 * Col2Im as a scatter over block positions (the kernel gathers), CenterCropPad by placing each
 * input element (the kernel fetches), AffineGrid from explicit linspace arrays, DeformConv with
 * bilinear sampling written as a sum of tent weights over every input pixel (the kernel reads
 * four taps); plus DeformConv with zero offsets against a plain direct convolution, conformance
 * vectors, and malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define I64 EMBER_DTYPE_I64

static void check_vals(const char *name, ember_dtype dt, const void *y, const double *ref,
                       int64_t n, double tol)
{
    for (int64_t i = 0; i < n; i++) {
        if (!t_close(em_tref_get(dt, y, i), ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", name, (long long)i,
                     em_tref_get(dt, y, i), ref[i]);
        }
    }
}

/* ---- Col2Im -------------------------------------------------------------------------------- */

typedef struct c2i_case {
    const char *name;
    int n_sp;
    int64_t n, c, img[3], blk[3], s[3], d[3], pads[6];
    ember_dtype dt;
} c2i_case;

static void c2i_run(const c2i_case *c)
{
    int64_t blocks[3] = {1, 1, 1}, L = 1, K = 1, img[3] = {1, 1, 1}, blk[3] = {1, 1, 1};
    for (int i = 0; i < c->n_sp; i++) {
        int64_t span =
            c->img[i] + c->pads[i] + c->pads[c->n_sp + i] - (c->blk[i] - 1) * c->d[i] - 1;
        blocks[i] = span / c->s[i] + 1;
        L *= blocks[i];
        K *= c->blk[i];
        img[i] = c->img[i];
        blk[i] = c->blk[i];
    }
    int64_t xd[3] = {c->n, c->c * K, L}, yd[5] = {c->n, c->c}, nsp = c->n_sp;
    for (int i = 0; i < c->n_sp; i++) {
        yd[2 + i] = c->img[i];
    }
    int64_t nx = t_numel(xd, 3), ny = t_numel(yd, c->n_sp + 2), plane = img[0] * img[1] * img[2];
    float *xf = t_random_f32(nx, 5 + (uint64_t)nx, -4.0f, 4.0f);
    void *x = test_calloc((size_t)nx, 8), *y = test_calloc((size_t)ny, 8);
    double *ref = t_f64(ny);
    for (int64_t i = 0; i < nx; i++) {
        em_tref_set(c->dt, x, i, c->dt == EMBER_DTYPE_I32 ? floor(xf[i]) : xf[i]);
    }
    for (int64_t nc = 0; nc < c->n * c->c; nc++) {
        for (int64_t l = 0; l < L; l++) {
            int64_t lc[3] = {l / (blocks[1] * blocks[2]), l / blocks[2] % blocks[1], l % blocks[2]};
            for (int64_t t = 0; t < K; t++) {
                int64_t tc[3] = {t / (blk[1] * blk[2]), t / blk[2] % blk[1], t % blk[2]}, p[3];
                bool inside = true;
                for (int i = 0; i < 3; i++) {
                    int64_t s = i < c->n_sp ? c->s[i] : 1, d = i < c->n_sp ? c->d[i] : 1;
                    p[i] = lc[i] * s - (i < c->n_sp ? c->pads[i] : 0) + tc[i] * d;
                    inside = inside && p[i] >= 0 && p[i] < img[i];
                }
                if (inside) {
                    ref[nc * plane + (p[0] * img[1] + p[1]) * img[2] + p[2]] +=
                        em_tref_get(c->dt, x, (nc * K + t) * L + l);
                }
            }
        }
    }
    em_tensor in[3], out[1];
    t_tensor(&in[0], c->dt, 3, xd, x);
    t_tensor(&in[1], I64, 1, &nsp, (void *)c->img);
    t_tensor(&in[2], I64, 1, &nsp, (void *)c->blk);
    t_tensor(&out[0], c->dt, c->n_sp + 2, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_COL2IM, c->name);
    t_set_ints(&tn, "strides", c->s, c->n_sp);
    t_set_ints(&tn, "dilations", c->d, c->n_sp);
    t_set_ints(&tn, "pads", c->pads, 2 * c->n_sp);
    const em_kernel *k = t_kernel(EM_OP_COL2IM, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run_const(k, &tn.n, in, 3, out, 1, NULL, 0x6), c->name);
    check_vals(c->name, c->dt, y, ref, ny, 1e-5);
    test_free(xf);
    test_free(x);
    test_free(y);
    test_free(ref);
}

static void test_col2im(void **state)
{
    (void)state;
    static const c2i_case cases[] = {
        {"c2i_basic", 2, 1, 1, {5, 5}, {1, 5}, {1, 1}, {1, 1}, {0}, F32},
        {"c2i_pads", 2, 1, 1, {5, 5}, {1, 5}, {1, 1}, {1, 1}, {0, 1, 0, 1}, F32},
        {"c2i_strides_dil", 2, 2, 3, {7, 6}, {2, 3}, {2, 1}, {2, 2}, {1, 0, 0, 1}, F32},
        {"c2i_1d_f64", 1, 1, 2, {9}, {3}, {2}, {1}, {1, 1}, F64},
        {"c2i_3d", 3, 1, 2, {3, 4, 3}, {2, 2, 2}, {1, 2, 1}, {1, 1, 1}, {0, 1, 0, 0, 0, 1}, F32},
        {"c2i_i32", 2, 1, 1, {4, 4}, {2, 2}, {2, 2}, {1, 1}, {0}, EMBER_DTYPE_I32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        c2i_run(&cases[i]);
    }
    /* Errors: block_shape unknown when planning; L disagrees; channels not a multiple. */
    static const int64_t img[2] = {5, 5}, blk[2] = {1, 5}, two = 2;
    double buf[256] = {0};
    for (int i = 0; i < 3; i++) {
        static const char *const names[] = {"c2i_blk_unknown", "c2i_l", "c2i_channels"};
        int64_t xd[3] = {1, i == 2 ? 7 : 5, i == 1 ? 24 : 25}, yd[4] = {1, 1, 5, 5};
        em_tensor in[3], out[1];
        t_tensor(&in[0], F32, 3, xd, buf);
        t_tensor(&in[1], I64, 1, &two, (void *)img);
        t_tensor(&in[2], I64, 1, &two, (void *)blk);
        t_tensor(&out[0], F32, 4, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_COL2IM, names[i]);
        const em_kernel *k = t_kernel(EM_OP_COL2IM, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(k, &tn.n, in, 3, out, 1, NULL, i == 0 ? 0x2 : 0x6),
                       i == 0 ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL, names[i],
                       names[i]);
    }
}

/* ---- CenterCropPad ------------------------------------------------------------------------- */

static void test_centercroppad(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank, n_axes;
        int64_t in[3], out[3], axes[3];
        ember_dtype dt;
    } cases[] = {
        {"ccp_crop", 3, 0, {20, 10, 3}, {10, 7, 3}, {0}, F32},
        {"ccp_pad", 3, 0, {10, 7, 3}, {20, 10, 3}, {0}, F64},
        {"ccp_crop_pad_odd", 3, 0, {20, 8, 3}, {9, 13, 3}, {0}, EMBER_DTYPE_U8},
        {"ccp_axes_hw", 3, 2, {5, 6, 3}, {4, 9, 3}, {0, 1}, I64},
        {"ccp_neg_axes", 3, 2, {3, 7, 6}, {3, 4, 9}, {-2, -1}, F32},
        {"ccp_rank1", 1, 0, {5}, {2}, {0}, EMBER_DTYPE_I8},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int r = cases[ci].rank, na = cases[ci].n_axes > 0 ? cases[ci].n_axes : r;
        ember_dtype dt = cases[ci].dt;
        int64_t nx = t_numel(cases[ci].in, r), ny = t_numel(cases[ci].out, r), sh[3], nna = na;
        void *x = test_calloc((size_t)nx, 8), *y = test_calloc((size_t)ny, 8);
        double *ref = t_f64(ny);
        for (int i = 0; i < na; i++) {
            int64_t a = cases[ci].n_axes > 0 ? cases[ci].axes[i] : i;
            sh[i] = cases[ci].out[a < 0 ? a + r : a];
        }
        int64_t c[3] = {0, 0, 0};
        for (int64_t i = 0; i < nx; i++) { /* place every input element */
            em_tref_set(dt, x, i, (double)(i % 97) - 40.0 * (dt != EMBER_DTYPE_U8));
            int64_t off = 0;
            bool inside = true;
            for (int d = 0; d < r; d++) {
                int64_t in = cases[ci].in[d], out = cases[ci].out[d];
                int64_t o = in >= out ? c[d] - (in - out) / 2 : c[d] + (out - in) / 2;
                inside = inside && o >= 0 && o < out;
                off = off * out + o;
            }
            if (inside) {
                ref[off] = em_tref_get(dt, x, i);
            }
            em_ref_coord_next(c, cases[ci].in, r);
        }
        em_tensor in[2], out[1];
        t_tensor(&in[0], dt, r, cases[ci].in, x);
        t_tensor(&in[1], I64, 1, &nna, sh);
        t_tensor(&out[0], dt, r, cases[ci].out, y);
        t_node tn;
        t_node_init(&tn, EM_OP_CENTERCROPPAD, cases[ci].name);
        if (cases[ci].n_axes > 0) {
            t_set_ints(&tn, "axes", cases[ci].axes, cases[ci].n_axes);
        }
        const em_kernel *k = t_kernel(EM_OP_CENTERCROPPAD, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run_const(k, &tn.n, in, 2, out, 1, NULL, 0x2), cases[ci].name);
        check_vals(cases[ci].name, dt, y, ref, ny, 0.0);
        test_free(x);
        test_free(y);
        test_free(ref);
    }
    /* Errors: shape of the wrong length; an unlisted axis that changes; shape vs the output. */
    static const int64_t xd[2] = {4, 4}, yd[2] = {2, 4}, yd2[2] = {2, 3}, sh2[2] = {3, 4};
    static const int64_t one = 1, two = 2, ax0[1] = {0};
    double buf[32] = {0};
    for (int i = 0; i < 3; i++) {
        static const char *const names[] = {"ccp_len", "ccp_unlisted", "ccp_value"};
        em_tensor in[2], out[1];
        t_tensor(&in[0], F32, 2, xd, buf);
        t_tensor(&in[1], I64, 1, i == 1 ? &one : &two, (void *)sh2);
        t_tensor(&out[0], F32, 2, i == 1 ? yd2 : yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_CENTERCROPPAD, names[i]);
        if (i < 2) {
            t_set_ints(&tn, "axes", ax0, 1);
        }
        const em_kernel *k = t_kernel(EM_OP_CENTERCROPPAD, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(k, &tn.n, in, 2, out, 1, NULL, 0x2), EMBER_ERR_INVALID_MODEL,
                       names[i], names[i]);
    }
}

/* ---- AffineGrid ---------------------------------------------------------------------------- */

static void test_affinegrid(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n_sp, align;
        int64_t n, len[3];
        ember_dtype dt;
    } cases[] = {
        {"ag_2d", 2, 0, 2, {5, 6}, F32},         {"ag_2d_align", 2, 1, 2, {5, 6}, F32},
        {"ag_3d", 3, 0, 1, {3, 4, 5}, F64},      {"ag_3d_align", 3, 1, 2, {2, 3, 4}, F32},
        {"ag_len1_align", 2, 1, 1, {1, 3}, F32}, {"ag_f16", 2, 0, 1, {3, 2}, EMBER_DTYPE_F16},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int r = cases[ci].n_sp;
        ember_dtype dt = cases[ci].dt;
        int64_t td[3] = {cases[ci].n, r, r + 1}, sz[5] = {cases[ci].n, 3}, yd[5] = {cases[ci].n};
        int64_t plane = 1, szn = r + 2;
        for (int d = 0; d < r; d++) {
            sz[2 + d] = yd[1 + d] = cases[ci].len[d];
            plane *= cases[ci].len[d];
        }
        yd[1 + r] = r;
        int64_t nt = t_numel(td, 3), ny = cases[ci].n * plane * r;
        float *tf = t_random_f32(nt, 60 + ci, -2.0f, 2.0f);
        void *th = test_calloc((size_t)nt, 8), *y = test_calloc((size_t)ny, 8);
        double *ref = t_f64(ny), lin[3][8];
        for (int64_t i = 0; i < nt; i++) {
            em_tref_set(dt, th, i, tf[i]);
        }
        for (int d = 0; d < r; d++) { /* linspace per axis */
            double L = (double)cases[ci].len[d];
            for (int64_t i = 0; i < cases[ci].len[d]; i++) {
                lin[d][i] = cases[ci].align ? (L == 1 ? -1.0 : -1.0 + 2.0 * (double)i / (L - 1))
                                            : (2.0 * (double)i + 1.0) / L - 1.0;
            }
        }
        for (int64_t n = 0; n < cases[ci].n; n++) {
            for (int64_t p = 0; p < plane; p++) {
                int64_t c[3], q = p;
                for (int d = r - 1; d >= 0; d--) { /* row-major coordinates of p */
                    c[d] = q % cases[ci].len[d];
                    q /= cases[ci].len[d];
                }
                double v[4] = {0, 0, 0, 1.0};
                for (int d = 0; d < r; d++) {
                    v[r - 1 - d] = lin[d][c[d]]; /* x runs along the last axis */
                }
                v[r] = 1.0;
                for (int k = 0; k < r; k++) {
                    double acc = 0.0;
                    for (int j = 0; j <= r; j++) {
                        acc += em_tref_get(dt, th, (n * r + k) * (r + 1) + j) * v[j];
                    }
                    ref[(n * plane + p) * r + k] = acc;
                }
            }
        }
        em_tensor in[2], out[1];
        t_tensor(&in[0], dt, 3, td, th);
        t_tensor(&in[1], I64, 1, &szn, sz);
        t_tensor(&out[0], dt, r + 2, yd, y);
        t_node tn;
        t_node_init(&tn, EM_OP_AFFINEGRID, cases[ci].name);
        t_set_int(&tn, "align_corners", cases[ci].align);
        const em_kernel *k = t_kernel(EM_OP_AFFINEGRID, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run_const(k, &tn.n, in, 2, out, 1, NULL, 0x2), cases[ci].name);
        check_vals(cases[ci].name, dt, y, ref, ny, dt == EMBER_DTYPE_F16 ? 1e-2 : 1e-5);
        test_free(tf);
        test_free(th);
        test_free(y);
        test_free(ref);
    }
    /* Errors: size of 3 values; theta [N, 3, 4] with a 2-D size; i32 theta. */
    static const int64_t sz4[4] = {1, 1, 2, 2};
    double buf[64] = {0};
    for (int i = 0; i < 3; i++) {
        static const char *const names[] = {"ag_size_len", "ag_theta_shape", "ag_i32"};
        int64_t td[3] = {1, i == 1 ? 3 : 2, i == 1 ? 4 : 3}, szl = i == 0 ? 3 : 4;
        int64_t yd[4] = {1, 2, 2, 2};
        em_tensor in[2], out[1];
        ember_dtype dt = i == 2 ? EMBER_DTYPE_I32 : F32;
        t_tensor(&in[0], dt, 3, td, buf);
        t_tensor(&in[1], I64, 1, &szl, (void *)sz4);
        t_tensor(&out[0], dt, 4, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_AFFINEGRID, names[i]);
        const em_kernel *k = t_kernel(EM_OP_AFFINEGRID, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(k, &tn.n, in, 2, out, 1, NULL, 0x2),
                       i == 2 ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL, names[i],
                       names[i]);
    }
}

/* ---- DeformConv ---------------------------------------------------------------------------- */

typedef struct dc_case {
    const char *name;
    int64_t n, c, oc, group, og, h, w, kh, kw, s[2], d[2], pads[4];
    int offsets; /* 0: zero offsets and no mask (a plain convolution), 1: random with a mask */
    bool bias;
    ember_dtype dt;
} dc_case;

/* Bilinear sampling as a sum of tent weights over every pixel: zero outside the input. */
static double dc_tent(const double *plane, int64_t h, int64_t w, double y, double x)
{
    double acc = 0.0;
    for (int64_t i = 0; i < h; i++) {
        for (int64_t j = 0; j < w; j++) {
            acc += fmax(0.0, 1.0 - fabs(y - (double)i)) * fmax(0.0, 1.0 - fabs(x - (double)j)) *
                   plane[i * w + j];
        }
    }
    return acc;
}

static void dc_run(const dc_case *c)
{
    int64_t oh = (c->h + c->pads[0] + c->pads[2] - (c->kh - 1) * c->d[0] - 1) / c->s[0] + 1;
    int64_t ow = (c->w + c->pads[1] + c->pads[3] - (c->kw - 1) * c->d[1] - 1) / c->s[1] + 1;
    int64_t taps = c->kh * c->kw, cg = c->c / c->group, ocg = c->oc / c->group;
    int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->oc, cg, c->kh, c->kw};
    int64_t od[4] = {c->n, c->og * taps * 2, oh, ow}, md[4] = {c->n, c->og * taps, oh, ow};
    int64_t yd[4] = {c->n, c->oc, oh, ow};
    int64_t nx = t_numel(xd, 4), nw = t_numel(wd, 4), no = t_numel(od, 4), nm = t_numel(md, 4);
    int64_t ny = t_numel(yd, 4);
    double *v[5];
    void *buf[5];
    int64_t sizes[5] = {nx, nw, no, c->oc, nm};
    for (int i = 0; i < 5; i++) {
        float *f = t_random_f32(sizes[i], 70 + (uint64_t)i * 13, i == 2 ? -1.5f : -1.0f,
                                i == 2 ? 1.5f : 1.0f);
        buf[i] = test_calloc((size_t)sizes[i], 8);
        v[i] = t_f64(sizes[i]);
        for (int64_t j = 0; j < sizes[i]; j++) {
            double val = c->offsets == 0 && i == 2 ? 0.0 : f[j];
            em_tref_set(c->dt, buf[i], j, val);
            v[i][j] = em_tref_get(c->dt, buf[i], j);
        }
        test_free(f);
    }
    double *ref = t_f64(ny);
    void *y = test_calloc((size_t)ny, 8);
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t m = 0; m < c->oc; m++) {
            for (int64_t i = 0; i < oh * ow; i++) {
                double acc = c->bias ? v[3][m] : 0.0;
                for (int64_t ic = (m / ocg) * cg; ic < (m / ocg + 1) * cg; ic++) {
                    int64_t og = ic / (c->c / c->og);
                    for (int64_t t = 0; t < taps; t++) {
                        int64_t ch = (n * c->og + og) * taps + t;
                        double yy = (double)(i / ow * c->s[0] - c->pads[0] + t / c->kw * c->d[0]);
                        double xx = (double)(i % ow * c->s[1] - c->pads[1] + t % c->kw * c->d[1]);
                        double mk = c->offsets ? v[4][ch * oh * ow + i] : 1.0;
                        yy += v[2][2 * ch * oh * ow + i];
                        xx += v[2][(2 * ch + 1) * oh * ow + i];
                        double s = c->offsets ? dc_tent(v[0] + (n * c->c + ic) * c->h * c->w, c->h,
                                                        c->w, yy, xx)
                                              : 0.0;
                        if (!c->offsets) { /* zero offsets: the plain convolution's tap */
                            int64_t iy = (int64_t)yy, ix = (int64_t)xx;
                            s = iy >= 0 && iy < c->h && ix >= 0 && ix < c->w
                                    ? v[0][((n * c->c + ic) * c->h + iy) * c->w + ix]
                                    : 0.0;
                        }
                        acc += v[1][(m * cg + ic % cg) * taps + t] * mk * s;
                    }
                }
                ref[(n * c->oc + m) * oh * ow + i] = acc;
            }
        }
    }
    em_tensor in[5], out[1];
    t_tensor(&in[0], c->dt, 4, xd, buf[0]);
    t_tensor(&in[1], c->dt, 4, wd, buf[1]);
    t_tensor(&in[2], c->dt, 4, od, buf[2]);
    t_tensor(&in[3], c->dt, 1, &c->oc, buf[3]);
    t_tensor(&in[4], c->dt, 4, md, buf[4]);
    if (!c->bias) {
        t_absent(&in[3]);
    }
    t_tensor(&out[0], c->dt, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_DEFORMCONV, c->name);
    t_set_int(&tn, "group", c->group);
    t_set_int(&tn, "offset_group", c->og);
    t_set_ints(&tn, "strides", c->s, 2);
    t_set_ints(&tn, "dilations", c->d, 2);
    t_set_ints(&tn, "pads", c->pads, 4);
    const em_kernel *k = t_kernel(EM_OP_DEFORMCONV, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, c->offsets ? 5 : 4, out, 1, NULL), c->name);
    check_vals(c->name, c->dt, y, ref, ny, 1e-5);
    for (int i = 0; i < 5; i++) {
        test_free(buf[i]);
        test_free(v[i]);
    }
    test_free(ref);
    test_free(y);
}

static void test_deformconv(void **state)
{
    (void)state;
    static const dc_case cases[] = {
        {"dc_plain", 1, 2, 3, 1, 1, 5, 6, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}, 0, true, F32},
        {"dc_plain_strided",
         2,
         4,
         2,
         2,
         1,
         7,
         5,
         2,
         3,
         {2, 1},
         {1, 2},
         {0, 1, 1, 0},
         0,
         false,
         F64},
        {"dc_offsets_mask", 1, 2, 2, 1, 1, 5, 5, 2, 2, {1, 1}, {1, 1}, {0}, 1, true, F32},
        {"dc_groups", 2, 4, 4, 2, 2, 6, 5, 3, 2, {2, 1}, {1, 1}, {1, 0, 1, 1}, 1, true, F32},
        {"dc_dilated_f64", 1, 3, 2, 1, 3, 7, 7, 2, 2, {1, 2}, {2, 2}, {1, 1, 0, 0}, 1, false, F64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_run(&cases[i]);
    }
}

/* ONNX's test_deform_conv_with_mask_bias. */
static void test_deformconv_vector(void **state)
{
    (void)state;
    static const int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, od[4] = {1, 8, 2, 2};
    static const int64_t md[4] = {1, 4, 2, 2}, yd[4] = {1, 1, 2, 2}, one = 1;
    float x[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, w[4] = {1, 1, 1, 1}, off[32] = {0.5f}, b = 1.0f;
    float mask[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.2f, 1, 1, 1, 1}, y[4];
    off[21] = -0.1f;
    static const double want[4] = {10.5, 12.899999618530273, 21.0, 19.399999618530273};
    em_tensor in[5], out[1];
    t_tensor(&in[0], F32, 4, xd, x);
    t_tensor(&in[1], F32, 4, wd, w);
    t_tensor(&in[2], F32, 4, od, off);
    t_tensor(&in[3], F32, 1, &one, &b);
    t_tensor(&in[4], F32, 4, md, mask);
    t_tensor(&out[0], F32, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_DEFORMCONV, "dc_vector");
    t_set_ints(&tn, "kernel_shape", (const int64_t[]){2, 2}, 2);
    const em_kernel *k = t_kernel(EM_OP_DEFORMCONV, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 5, out, 1, NULL), "dc_vector");
    t_check_f32("dc_vector", y, want, 4, 1e-5, 1e-6);
}

static void test_deformconv_errors(void **state)
{
    (void)state;
    static const char *const names[] = {"dc_rank5", "dc_offset_ch", "dc_out",
                                        "dc_group", "dc_mask",      "dc_i32"};
    double buf[512] = {0};
    for (int i = 0; i < 6; i++) {
        int64_t xd[5] = {1, 2, 4, 4, 1}, wd[4] = {2, 2, 2, 2};
        int64_t od[4] = {1, i == 1 ? 6 : 8, 3, i == 2 ? 4 : 3}, md[4] = {1, i == 4 ? 3 : 4, 3, 3};
        int64_t yd[4] = {1, 2, 3, i == 2 ? 4 : 3};
        em_tensor in[5], out[1];
        ember_dtype dt = i == 5 ? EMBER_DTYPE_I32 : F32;
        t_tensor(&in[0], dt, i == 0 ? 5 : 4, xd, buf);
        t_tensor(&in[1], dt, 4, wd, buf);
        t_tensor(&in[2], dt, 4, od, buf);
        t_absent(&in[3]);
        t_tensor(&in[4], dt, 4, md, buf);
        t_tensor(&out[0], dt, 4, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_DEFORMCONV, names[i]);
        if (i == 3) {
            t_set_int(&tn, "group", 2);
        }
        const em_kernel *k = t_kernel(EM_OP_DEFORMCONV, EMBER_DTYPE_UNDEFINED);
        ember_code code = i == 0 || i == 5 ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL;
        t_expect_error(t_run(k, &tn.n, in, 5, out, 1, NULL), code, names[i], names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_col2im),
        cmocka_unit_test(test_centercroppad),
        cmocka_unit_test(test_affinegrid),
        cmocka_unit_test(test_deformconv),
        cmocka_unit_test(test_deformconv_vector),
        cmocka_unit_test(test_deformconv_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
