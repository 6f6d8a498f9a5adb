/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_grid_ref.c: GridSample against a naive version written here in double with the
 * structure of ONNX's reference: the outermost spatial axis interpolates values that the inner
 * axes interpolated recursively, and every tap goes through "pixel at" with the padding rule.
 * Cases: 1-D, 2-D and 3-D grids; linear, nearest (ties at half pixels) and cubic; zeros, border
 * and reflection padding far outside [-1, 1]; align_corners 0 and 1; an axis of length 1; the
 * opset-16 mode names; f16 / f64 X and a grid of another dtype; a threaded run; two
 * conformance vectors; and malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

#define F32 EMBER_DTYPE_F32

typedef struct gs_case {
    const char *name;
    int n_sp;
    int64_t n, c, in[3], out[3];
    const char *mode, *padding;
    int align;
    ember_dtype dt, grid_dt;
    float lo, hi; /* grid values drawn in [lo, hi] */
    uint64_t seed;
} gs_case;

/* clang-format off */
static const gs_case gs_cases[] = {
    {"linear_zeros", 2, 1, 2, {4, 5}, {3, 4}, NULL, NULL, 0, F32, F32, -1.3f, 1.3f, 1},
    {"linear_border_align", 2, 2, 1, {3, 6}, {5, 2}, "linear", "border", 1, F32, F32, -2, 2, 2},
    {"linear_reflect", 2, 1, 2, {5, 4}, {4, 4}, "bilinear", "reflection", 0, F32, F32, -4, 4, 3},
    {"linear_reflect_align", 2, 1, 1, {4, 3}, {3, 5}, "linear", "reflection", 1, F32, F32, -5, 5,
     4},
    {"nearest_zeros", 2, 1, 2, {4, 6}, {4, 3}, "nearest", NULL, 0, F32, F32, -1.2f, 1.2f, 5},
    {"nearest_border_align", 2, 1, 1, {5, 5}, {3, 3}, "nearest", "border", 1, F32, F32, -2, 2, 6},
    {"nearest_reflect", 2, 2, 1, {3, 4}, {4, 2}, "nearest", "reflection", 0, F32, F32, -3, 3, 7},
    {"nearest_ties", 2, 1, 1, {4, 4}, {3, 3}, "nearest", NULL, 0, F32, F32, 0, 0, 8},
    {"cubic_zeros", 2, 1, 2, {5, 6}, {3, 4}, "cubic", NULL, 0, F32, F32, -1.2f, 1.2f, 9},
    {"cubic_border_align", 2, 1, 1, {4, 5}, {4, 3}, "bicubic", "border", 1, F32, F32, -1.5f, 1.5f,
     10},
    {"cubic_reflect", 2, 1, 2, {4, 4}, {3, 3}, "cubic", "reflection", 0, F32, F32, -3, 3, 11},
    {"cubic_reflect_align", 2, 1, 1, {5, 3}, {3, 4}, "cubic", "reflection", 1, F32, F32, -3, 3,
     12},
    {"linear_1d", 1, 2, 3, {7}, {5}, "linear", "reflection", 0, F32, F32, -2, 2, 13},
    {"cubic_1d", 1, 1, 2, {6}, {9}, "cubic", "border", 0, F32, F32, -1.5f, 1.5f, 14},
    {"linear_3d", 3, 1, 2, {3, 4, 5}, {2, 3, 2}, "linear", NULL, 0, F32, F32, -1.2f, 1.2f, 15},
    {"nearest_3d_align", 3, 1, 1, {3, 2, 4}, {2, 2, 3}, "nearest", "border", 1, F32, F32, -1.5f,
     1.5f, 16},
    {"cubic_3d_reflect", 3, 1, 1, {3, 3, 4}, {2, 2, 2}, "cubic", "reflection", 0, F32, F32, -2, 2,
     17},
    {"length1_reflect_align", 2, 1, 1, {1, 4}, {2, 3}, "linear", "reflection", 1, F32, F32, -2, 2,
     18},
    {"f64_grid_f32_x", 2, 1, 2, {4, 4}, {3, 3}, "linear", NULL, 0, F32, EMBER_DTYPE_F64, -1.2f,
     1.2f, 19},
    {"f64_cubic", 2, 1, 1, {5, 5}, {3, 3}, "cubic", "border", 0, EMBER_DTYPE_F64, F32, -1.2f, 1.2f,
     20},
    {"f16_linear", 2, 1, 2, {4, 4}, {3, 3}, "linear", NULL, 0, EMBER_DTYPE_F16, EMBER_DTYPE_F16,
     -1.2f, 1.2f, 21},
    {"big", 2, 2, 3, {17, 15}, {13, 11}, "linear", "border", 0, F32, F32, -1.1f, 1.1f, 22},
};
/* clang-format on */

typedef struct gs_geom {
    const gs_case *c;
    int64_t stride[3];
    double coord[3]; /* unnormalised, after the out-of-range rule; per spatial axis */
} gs_geom;

static double gs_reflect(double x, double lo, double hi)
{
    double rng = hi - lo;
    if (rng == 0.0) {
        return lo;
    }
    while (x < lo || x > hi) { /* one border at a time */
        x = x < lo ? 2.0 * lo - x : 2.0 * hi - x;
    }
    return x;
}

static bool gs_is(const char *s, const char *v, const char *dflt)
{
    return strcmp(s != NULL ? s : dflt, v) == 0;
}

/* Value of tap i along axis d: the value of the inner axes at that index, or 0 (zeros). */
static double gs_interp(const gs_geom *g, const double *x, int64_t base, int d);

static double gs_pixel(const gs_geom *g, const double *x, int64_t base, int d, double i)
{
    const gs_case *c = g->c;
    double len = (double)c->in[d], lo = c->align ? 0.0 : -0.5, hi = c->align ? len - 1 : len - 0.5;
    if (gs_is(c->padding, "border", "zeros")) {
        i = fmin(fmax(i, 0.0), len - 1);
    } else if (gs_is(c->padding, "reflection", "zeros")) {
        i = trunc(gs_reflect(i, lo, hi));
    } else if (i < 0 || i > len - 1) {
        return 0.0;
    }
    return gs_interp(g, x, base + (int64_t)i * g->stride[d], d + 1);
}

static double gs_interp(const gs_geom *g, const double *x, int64_t base, int d)
{
    const gs_case *c = g->c;
    if (d == c->n_sp) {
        return x[base];
    }
    double xc = g->coord[d], x0 = floor(xc), t = xc - x0, acc = 0.0;
    if (gs_is(c->mode, "nearest", "linear")) {
        return gs_pixel(g, x, base, d, xc);
    }
    if (gs_is(c->mode, "linear", "linear") || gs_is(c->mode, "bilinear", "linear")) {
        return (1 - t) * gs_pixel(g, x, base, d, x0) + t * gs_pixel(g, x, base, d, x0 + 1);
    }
    for (int k = -1; k <= 2; k++) { /* Keys, a = -0.75, written from the kernel's definition */
        double s = fabs((double)k - t), a = -0.75, w;
        w = s <= 1 ? (a + 2) * s * s * s - (a + 3) * s * s + 1
                   : (s < 2 ? a * s * s * s - 5 * a * s * s + 8 * a * s - 4 * a : 0.0);
        acc += w * gs_pixel(g, x, base, d, x0 + k);
    }
    return acc;
}

/* The unnormalised coordinate along axis d of grid value v. */
static double gs_coord(const gs_case *c, int d, double v)
{
    double len = (double)c->in[d];
    double xc = c->align ? (v + 1) / 2 * (len - 1) : ((v + 1) * len - 1) / 2;
    double lo = c->align ? 0.0 : -0.5, hi = c->align ? len - 1 : len - 0.5;
    if (gs_is(c->mode, "nearest", "linear")) {
        double r = floor(xc + 0.5); /* half to even */
        xc = r - xc == 0.5 && fmod(r, 2.0) != 0.0 ? r - 1 : r;
    }
    if (xc < lo || xc > hi) {
        if (gs_is(c->padding, "border", "zeros")) {
            xc = fmin(fmax(xc, 0.0), len - 1);
        } else if (gs_is(c->padding, "reflection", "zeros")) {
            xc = gs_reflect(xc, lo, hi);
        }
    }
    return xc;
}

static void *gs_run(const gs_case *c, em_threadpool *pool, size_t *bytes)
{
    int r = c->n_sp, rank = r + 2;
    int64_t xd[5] = {c->n, c->c}, gd[5] = {c->n}, yd[5] = {c->n, c->c};
    for (int d = 0; d < r; d++) {
        xd[2 + d] = c->in[d];
        gd[1 + d] = c->out[d];
        yd[2 + d] = c->out[d];
    }
    gd[1 + r] = r;
    int64_t nx = t_numel(xd, rank), ng = t_numel(gd, rank), ny = t_numel(yd, rank);
    float *xf = t_random_f32(nx, c->seed, -2.0f, 2.0f);
    float *gf = t_random_f32(ng, c->seed + 7, c->lo, c->hi);
    if (strcmp(c->name, "nearest_ties") == 0) { /* points exactly between pixels */
        for (int64_t i = 0; i < ng; i++) {
            gf[i] = (float)((double)(i % 5) / 2.0 - 1.0);
        }
    }
    double *xv = t_f64(nx), *ref = t_f64(ny);
    void *x = test_calloc((size_t)nx, 8), *grid = test_calloc((size_t)ng, 8);
    void *y = test_calloc((size_t)ny, 8);
    for (int64_t i = 0; i < nx; i++) {
        em_tref_set(c->dt, x, i, xf[i]);
        xv[i] = em_tref_get(c->dt, x, i);
    }
    for (int64_t i = 0; i < ng; i++) {
        em_tref_set(c->grid_dt, grid, i, gf[i]);
    }
    em_tensor in[2], out[1];
    t_tensor(&in[0], c->dt, rank, xd, x);
    t_tensor(&in[1], c->grid_dt, rank, gd, grid);
    t_tensor(&out[0], c->dt, rank, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_GRIDSAMPLE, c->name);
    if (c->mode != NULL) {
        t_set_string(&tn, "mode", c->mode);
    }
    if (c->padding != NULL) {
        t_set_string(&tn, "padding_mode", c->padding);
    }
    t_set_int(&tn, "align_corners", c->align);
    const em_kernel *k = t_kernel(EM_OP_GRIDSAMPLE, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 2, out, 1, pool), c->name);
    gs_geom g = {c, {0}, {0}};
    for (int d = r - 1; d >= 0; d--) {
        g.stride[d] = d == r - 1 ? 1 : g.stride[d + 1] * c->in[d + 1];
    }
    int64_t op = ny / (c->n * c->c), ip = nx / (c->n * c->c);
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t p = 0; p < op; p++) {
            for (int d = 0; d < r; d++) {
                double v = em_tref_get(c->grid_dt, grid, (n * op + p) * r + (r - 1 - d));
                g.coord[d] = gs_coord(c, d, v);
            }
            for (int64_t ch = 0; ch < c->c; ch++) {
                ref[(n * c->c + ch) * op + p] = gs_interp(&g, xv, (n * c->c + ch) * ip, 0);
            }
        }
    }
    double tol = c->dt == EMBER_DTYPE_F16 ? 4e-3 : 1e-5;
    for (int64_t i = 0; i < ny; i++) {
        if (!t_close(em_tref_get(c->dt, y, i), ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i,
                     em_tref_get(c->dt, y, i), ref[i]);
        }
    }
    test_free(xf);
    test_free(gf);
    test_free(xv);
    test_free(ref);
    test_free(x);
    test_free(grid);
    *bytes = (size_t)ny * em_dtype_size(c->dt);
    return y;
}

static void test_gridsample_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof gs_cases / sizeof gs_cases[0]; i++) {
        size_t bytes;
        void *serial = gs_run(&gs_cases[i], NULL, &bytes);
        void *threaded = gs_run(&gs_cases[i], pool, &bytes);
        assert_memory_equal(serial, threaded, bytes);
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

/* ONNX's test_gridsample_bicubic and test_gridsample_reflection_padding: X = 0..5 as
 * [1, 1, 3, 2], grid [1, 2, 4, 2]. */
static void gs_vector(const char *name, const char *mode, const char *padding, const float *grid,
                      const double *want)
{
    static const float x[6] = {0, 1, 2, 3, 4, 5};
    static const int64_t xd[4] = {1, 1, 3, 2}, gd[4] = {1, 2, 4, 2}, yd[4] = {1, 1, 2, 4};
    float y[8];
    em_tensor in[2], out[1];
    t_tensor(&in[0], F32, 4, xd, (void *)x);
    t_tensor(&in[1], F32, 4, gd, (void *)grid);
    t_tensor(&out[0], F32, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_GRIDSAMPLE, name);
    t_set_string(&tn, "mode", mode);
    t_set_string(&tn, "padding_mode", padding);
    t_expect_ok(
        t_run(t_kernel(EM_OP_GRIDSAMPLE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1, NULL), name);
    t_check_f32(name, y, want, 8, 1e-4, 0.0);
}

static void test_gridsample_vectors(void **state)
{
    (void)state;
    static const float g1[16] = {-1.0f, -1.0f, -0.5f, -0.5f, -0.2f, -0.2f, 0.0f, 0.0f,
                                 0.0f,  0.0f,  -0.2f, -0.2f, 0.5f,  0.5f,  1.0f, 1.0f};
    static const float g2[16] = {-10.0f, -10.0f, -5.0f, -5.0f, -0.2f, -0.2f, 10.0f, 10.0f,
                                 10.0f,  10.0f,  -0.2f, -0.2f, 5.0f,  5.0f,  10.0f, 10.0f};
    static const double bicubic[8] = {-0.1406, 0.3828, 1.7556, 2.9688,
                                      2.9688,  1.7556, 5.1445, 1.3906};
    static const double reflect[8] = {2.5, 0.0, 1.7, 2.5, 2.5, 1.7, 5.0, 2.5};
    gs_vector("gs_bicubic", "bicubic", "zeros", g1, bicubic);
    gs_vector("gs_reflection", "bilinear", "reflection", g2, reflect);
}

static void test_gridsample_errors(void **state)
{
    (void)state;
    static const char *const names[] = {"gs_i32",    "gs_grid_rank", "gs_grid_last",
                                        "gs_batch",  "gs_mode",      "gs_padding",
                                        "gs_align2", "gs_bad_y",     "gs_rank2"};
    double buf[256] = {0};
    for (int i = 0; i < 9; i++) {
        int64_t xd[4] = {i == 3 ? 2 : 1, 1, 4, 4}, gd[4] = {1, 3, 3, i == 2 ? 3 : 2};
        int64_t yd[4] = {xd[0], 1, 3, i == 7 ? 4 : 3};
        em_tensor in[2], out[1];
        ember_dtype dt = i == 0 ? EMBER_DTYPE_I32 : F32;
        t_tensor(&in[0], dt, i == 8 ? 2 : 4, xd, buf);
        t_tensor(&in[1], F32, i == 1 ? 3 : 4, gd, buf);
        t_tensor(&out[0], dt, 4, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_GRIDSAMPLE, names[i]);
        if (i == 4) {
            t_set_string(&tn, "mode", "area");
        } else if (i == 5) {
            t_set_string(&tn, "padding_mode", "wrap");
        } else if (i == 6) {
            t_set_int(&tn, "align_corners", 2);
        }
        t_expect_error(
            t_run(t_kernel(EM_OP_GRIDSAMPLE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1, NULL),
            i == 0 ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL, names[i], names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gridsample_cases),
        cmocka_unit_test(test_gridsample_vectors),
        cmocka_unit_test(test_gridsample_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
