/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_resize_ref.c: Resize against a naive version written here in double that
 * follows the structure of ONNX's reference implementation rather than the kernel's: it
 * interpolates axis by axis recursively, and finds a filter's taps as "the n indices nearest to
 * x, ties to the lower one" among the input padded by edge copies, with the weights of the
 * reference's formulas (nearest modes, linear, Keys cubic, antialiased tent and cubic,
 * exclude_outside). Output sizes come from the test's own scales / sizes arithmetic (axes,
 * keep_aspect_ratio_policy). Cases: every mode and coordinate_transformation_mode, nearest
 * modes, antialias, axes, roi with extrapolation, ranks 1 to 5, odd sizes, u8 / i32 / f16 / f64,
 * a threaded run equal to the serial one, vectors of ONNX's conformance cases, and errors.
 */
#include "test_ref_util.h"

#include <stdio.h>

#define F32 EMBER_DTYPE_F32
#define DIMS4(a, b, c, d) ((const int64_t[]){a, b, c, d})

typedef struct rz_case {
    const char *name;
    int rank;
    int64_t dims[5];
    ember_dtype dt;
    const char *mode, *ctm, *nearest; /* NULL: attribute absent */
    float cubic_a;                    /* 0: absent */
    int exclude, antialias;
    const char *policy;
    int n_axes; /* 0: attribute absent (every axis) */
    int64_t axes[5];
    bool sizes;     /* vals are sizes, else scales */
    double vals[5]; /* one per resized axis */
    double roi[10]; /* starts then ends, one per resized axis */
    float extrap;
    uint64_t seed;
} rz_case;

/* clang-format off */
static const rz_case rz_cases[] = {
    {"nearest_up", 4, {1, 2, 3, 4}, F32, NULL, NULL, NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1, 1, 2, 3}, {0}, 0, 1},
    {"nearest_down_floor_asym", 4, {1, 1, 5, 7}, F32, "nearest", "asymmetric", "floor", 0, 0, 0,
     NULL, 0, {0}, false, {1, 1, 0.6, 0.5}, {0}, 0, 2},
    {"nearest_sizes_ceil_align", 4, {1, 1, 4, 5}, F32, "nearest", "align_corners", "ceil", 0, 0, 0,
     NULL, 0, {0}, true, {1, 1, 7, 9}, {0}, 0, 3},
    {"nearest_prefer_ceil_tfnn", 4, {2, 1, 5, 3}, F32, "nearest", "tf_half_pixel_for_nn",
     "round_prefer_ceil", 0, 0, 0, NULL, 0, {0}, true, {2, 1, 3, 8}, {0}, 0, 4},
    {"linear_up", 4, {1, 2, 3, 5}, F32, "linear", NULL, NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1, 1, 2, 1.5}, {0}, 0, 5},
    {"linear_down_align", 4, {1, 1, 4, 7}, F32, "linear", "align_corners", NULL, 0, 0, 0, NULL, 0,
     {0}, false, {1, 1, 0.6, 0.6}, {0}, 0, 6},
    {"linear_pytorch_out1", 4, {1, 1, 4, 6}, F32, "linear", "pytorch_half_pixel", NULL, 0, 0, 0,
     NULL, 0, {0}, true, {1, 1, 3, 1}, {0}, 0, 7},
    {"linear_half_pixel_sym", 4, {1, 1, 7, 5}, F32, "linear", "half_pixel_symmetric", NULL, 0, 0, 0,
     NULL, 0, {0}, false, {1, 1, 0.7, 1.7}, {0}, 0, 8},
    {"cubic_up", 4, {1, 1, 4, 5}, F32, "cubic", NULL, NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1, 1, 2, 1.6}, {0}, 0, 9},
    {"cubic_down_exclude_a05", 4, {1, 2, 6, 5}, F32, "cubic", NULL, NULL, -0.5f, 1, 0, NULL, 0,
     {0}, false, {1, 1, 0.8, 0.6}, {0}, 0, 10},
    {"cubic_asym", 4, {1, 1, 4, 4}, F32, "cubic", "asymmetric", NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1, 1, 2, 2}, {0}, 0, 11},
    {"cubic_align_exclude", 4, {1, 1, 5, 4}, F32, "cubic", "align_corners", NULL, 0, 1, 0, NULL, 0,
     {0}, true, {1, 1, 8, 3}, {0}, 0, 12},
    {"linear_antialias", 4, {1, 1, 7, 9}, F32, "linear", NULL, NULL, 0, 0, 1, NULL, 0, {0}, false,
     {1, 1, 0.6, 0.35}, {0}, 0, 13},
    {"cubic_antialias_sizes", 4, {1, 2, 8, 9}, F32, "cubic", NULL, NULL, 0, 0, 1, NULL, 0, {0},
     true, {1, 2, 3, 4}, {0}, 0, 14},
    {"cubic_antialias_exclude_up", 4, {1, 1, 5, 6}, F32, "cubic", NULL, NULL, -0.5f, 1, 1, NULL, 0,
     {0}, false, {1, 1, 0.5, 1.5}, {0}, 0, 15},
    {"crop_linear", 4, {1, 1, 4, 4}, F32, "linear", "tf_crop_and_resize", NULL, 0, 0, 0, NULL, 0,
     {0}, true, {1, 1, 3, 3}, {0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7}, 10.0f, 16},
    {"crop_axes_nearest", 4, {1, 2, 5, 6}, F32, "nearest", "tf_crop_and_resize", NULL, 0, 0, 0,
     NULL, 2, {3, 2}, false, {1.5, 0.8}, {-0.2, 0.3, 0.9, 1.1}, -3.0f, 17},
    {"crop_cubic", 4, {1, 1, 6, 5}, F32, "cubic", "tf_crop_and_resize", NULL, 0, 0, 0, NULL, 0,
     {0}, true, {1, 1, 4, 1}, {0, 0, 0.1, 0.3, 1, 1, 0.8, 0.6}, 0.5f, 18},
    {"axes_2_3_sizes", 4, {2, 3, 4, 5}, F32, "linear", NULL, NULL, 0, 0, 0, NULL, 2, {2, 3}, true,
     {7, 3}, {0}, 0, 19},
    {"axes_neg_scales", 4, {1, 2, 3, 4}, F32, "nearest", NULL, NULL, 0, 0, 0, NULL, 1, {-1},
     false, {2.5}, {0}, 0, 20},
    {"not_larger", 4, {1, 1, 4, 6}, F32, "nearest", NULL, NULL, 0, 0, 0, "not_larger", 2, {2, 3},
     true, {7, 8}, {0}, 0, 21},
    {"not_smaller", 4, {1, 1, 4, 6}, F32, "linear", NULL, NULL, 0, 0, 0, "not_smaller", 2, {2, 3},
     true, {7, 8}, {0}, 0, 22},
    {"channels_too", 4, {2, 3, 3, 3}, F32, "linear", NULL, NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1, 2, 1, 0.7}, {0}, 0, 23},
    {"rank1_cubic", 1, {9}, F32, "cubic", NULL, NULL, 0, 0, 0, NULL, 0, {0}, false, {1.7}, {0}, 0,
     24},
    {"rank5_trilinear", 5, {1, 2, 3, 4, 3}, F32, "linear", "align_corners", NULL, 0, 0, 0, NULL, 3,
     {2, 3, 4}, false, {2, 0.5, 1.5}, {0}, 0, 25},
    {"u8_nearest", 4, {1, 1, 3, 5}, EMBER_DTYPE_U8, "nearest", NULL, NULL, 0, 0, 0, NULL, 0, {0},
     false, {1, 1, 2, 1.4}, {0}, 0, 26},
    {"u8_cubic_saturates", 4, {1, 1, 4, 4}, EMBER_DTYPE_U8, "cubic", NULL, NULL, 0, 0, 0, NULL, 0,
     {0}, false, {1, 1, 2, 2}, {0}, 0, 27},
    {"i32_linear", 4, {1, 1, 3, 3}, EMBER_DTYPE_I32, "linear", NULL, NULL, 0, 0, 0, NULL, 0, {0},
     false, {1, 1, 2, 2}, {0}, 0, 28},
    {"i8_linear", 2, {3, 4}, EMBER_DTYPE_I8, "linear", NULL, NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1.5, 1.5}, {0}, 0, 29},
    {"f64_cubic", 4, {1, 1, 5, 5}, EMBER_DTYPE_F64, "cubic", NULL, NULL, 0, 0, 0, NULL, 0, {0},
     false, {1, 1, 1.4, 0.6}, {0}, 0, 30},
    {"f16_linear", 4, {1, 1, 4, 4}, EMBER_DTYPE_F16, "linear", NULL, NULL, 0, 0, 0, NULL, 0, {0},
     false, {1, 1, 1.5, 0.5}, {0}, 0, 31},
    {"big_linear", 4, {2, 3, 17, 19}, F32, "linear", NULL, NULL, 0, 0, 0, NULL, 0, {0}, false,
     {1, 1, 1.7, 0.55}, {0}, 0, 32},
};
/* clang-format on */

/* ---- the naive resize ------------------------------------------------------------------------ */

typedef struct rz_geom {
    int rank;
    int64_t in[5], out[5], stride[5];
    bool resized[5];
    double scale[5], length[5], roi0[5], roi1[5];
} rz_geom;

static bool rz_is(const char *s, const char *v, const char *dflt)
{
    return strcmp(s != NULL ? s : dflt, v) == 0;
}

static void rz_geometry(const rz_case *c, rz_geom *g)
{
    int n_axes = c->n_axes > 0 ? c->n_axes : c->rank;
    int slot[5];
    g->rank = c->rank;
    for (int d = 0; d < c->rank; d++) {
        g->in[d] = c->dims[d];
        slot[d] = c->n_axes > 0 ? -1 : d;
    }
    for (int i = 0; i < c->n_axes; i++) {
        slot[c->axes[i] < 0 ? c->axes[i] + c->rank : c->axes[i]] = i;
    }
    double common = rz_is(c->policy, "not_smaller", "stretch") ? 0.0 : 1e300;
    for (int d = 0; d < c->rank; d++) {
        g->resized[d] = slot[d] >= 0;
        g->scale[d] = 1.0;
        g->out[d] = g->in[d];
        g->roi0[d] = slot[d] >= 0 ? c->roi[slot[d]] : 0.0;
        g->roi1[d] = slot[d] >= 0 ? c->roi[n_axes + slot[d]] : 1.0;
        if (slot[d] < 0) {
            continue;
        }
        double v = c->vals[slot[d]];
        if (!c->sizes) {
            g->scale[d] = (float)v;
            g->out[d] = (int64_t)floorf((float)g->in[d] * (float)v);
        } else {
            g->scale[d] = v / (double)g->in[d];
            g->out[d] = (int64_t)v;
            common = rz_is(c->policy, "not_smaller", "stretch") ? fmax(common, g->scale[d])
                                                                : fmin(common, g->scale[d]);
        }
    }
    for (int d = 0; d < c->rank; d++) {
        if (g->resized[d] && c->sizes && !rz_is(c->policy, "stretch", "stretch")) {
            g->scale[d] = common;
            g->out[d] = (int64_t)(common * (double)g->in[d] + 0.5);
        }
        g->length[d] = g->scale[d] * (double)g->in[d];
    }
    for (int d = c->rank - 1; d >= 0; d--) {
        g->stride[d] = d == c->rank - 1 ? 1 : g->stride[d + 1] * g->in[d + 1];
    }
}

/* The reference's source coordinate; false outside the crop (extrapolate). */
static bool rz_coord(const rz_case *c, const rz_geom *g, int d, int64_t o, double *x)
{
    double s = g->scale[d], len = g->length[d], in = (double)g->in[d];
    if (rz_is(c->ctm, "align_corners", "half_pixel")) {
        *x = len == 1.0 ? 0.0 : (double)o * (in - 1.0) / (len - 1.0);
    } else if (rz_is(c->ctm, "asymmetric", "half_pixel")) {
        *x = (double)o / s;
    } else if (rz_is(c->ctm, "tf_half_pixel_for_nn", "half_pixel")) {
        *x = ((double)o + 0.5) / s;
    } else if (rz_is(c->ctm, "pytorch_half_pixel", "half_pixel")) {
        *x = len == 1.0 ? 0.0 : ((double)o + 0.5) / s - 0.5; /* the spec's 0 for length 1 */
    } else if (rz_is(c->ctm, "half_pixel_symmetric", "half_pixel")) {
        double adj = (double)g->out[d] / len;
        *x = in / 2.0 * (1.0 - adj) + ((double)o + 0.5) / s - 0.5;
    } else if (rz_is(c->ctm, "tf_crop_and_resize", "half_pixel")) {
        double span = g->roi1[d] - g->roi0[d];
        *x = len == 1.0 ? span * (in - 1.0) / 2.0 : (double)o * span * (in - 1.0) / (len - 1.0);
        *x += g->roi0[d] * (in - 1.0);
        return *x >= 0.0 && *x <= in - 1.0;
    } else {
        *x = ((double)o + 0.5) / s - 0.5;
    }
    return true;
}

static double rz_cubic_w(double t, double a)
{
    t = fabs(t);
    if (t <= 1.0) {
        return (a + 2.0) * t * t * t - (a + 3.0) * t * t + 1.0;
    }
    return t < 2.0 ? a * t * t * t - 5.0 * a * t * t + 8.0 * a * t - 4.0 * a : 0.0;
}

/* The reference's coefficients for `ratio` in (0, 1]; returns their count. */
static int rz_coeffs(const rz_case *c, double ratio, double scale, double *w)
{
    double a = c->cubic_a != 0.0f ? c->cubic_a : -0.75;
    if (rz_is(c->mode, "nearest", "nearest")) {
        bool up = ratio == 1.0 ||
                  (rz_is(c->nearest, "round_prefer_floor", "round_prefer_floor") && ratio > 0.5) ||
                  (rz_is(c->nearest, "round_prefer_ceil", "x") && ratio >= 0.5) ||
                  rz_is(c->nearest, "ceil", "x");
        w[0] = up ? 0.0 : 1.0;
        w[1] = up ? 1.0 : 0.0;
        return 2;
    }
    bool linear = rz_is(c->mode, "linear", "nearest");
    if (!c->antialias) {
        int n = linear ? 2 : 4;
        for (int i = 0; i < n; i++) {
            double t = (double)(i - (linear ? 0 : 1)) - ratio;
            w[i] = linear ? fmax(0.0, 1.0 - fabs(t)) : rz_cubic_w(t, a);
        }
        return n;
    }
    double s = fmin(scale, 1.0), sum = 0.0;
    int start = (int)floor(-(linear ? 1.0 : 2.0) / s) + 1, n = 2 - 2 * start;
    for (int i = 0; i < n; i++) {
        double t = s * ((double)(start + i) - ratio);
        w[i] = linear ? fmax(0.0, 1.0 - fabs(t)) : rz_cubic_w(t, a);
        sum += w[i];
    }
    for (int i = 0; i < n; i++) {
        w[i] /= sum;
    }
    return n;
}

/* The n indices nearest to x among [-pad, in + pad), ties to the lower, ascending. */
static void rz_neighbours(double x, int n, int64_t in, int64_t *idx)
{
    int64_t pad = (n + 1) / 2, got = 0;
    bool taken[512] = {false};
    assert_true(in + 2 * pad <= 512);
    while (got < n) {
        int64_t best = -1;
        for (int64_t j = 0; j < in + 2 * pad; j++) {
            double dj = fabs(x - (double)(j - pad));
            if (!taken[j] && (best < 0 || dj < fabs(x - (double)(best - pad)))) {
                best = j;
            }
        }
        taken[best] = true;
        got++;
    }
    for (int64_t j = 0, k = 0; j < in + 2 * pad; j++) {
        if (taken[j]) {
            idx[k++] = j - pad;
        }
    }
}

static double rz_interp(const rz_case *c, const rz_geom *g, const double *x, int64_t base, int d,
                        const int64_t *o)
{
    if (d == g->rank) {
        return x[base];
    }
    if (!g->resized[d]) {
        return rz_interp(c, g, x, base + o[d] * g->stride[d], d + 1, o);
    }
    double xo, w[512];
    int64_t idx[512];
    bool inside = rz_coord(c, g, d, o[d], &xo);
    if (!inside) {
        return c->extrap;
    }
    double ratio = xo == floor(xo) ? 1.0 : xo - floor(xo);
    int n = rz_coeffs(c, ratio, g->scale[d], w);
    rz_neighbours(xo, n, g->in[d], idx);
    if (c->exclude) {
        double sum = 0.0;
        for (int i = 0; i < n; i++) {
            w[i] = idx[i] < 0 || idx[i] >= g->in[d] ? 0.0 : w[i];
            sum += w[i];
        }
        for (int i = 0; i < n; i++) {
            w[i] /= sum;
        }
    }
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        int64_t j = idx[i] < 0 ? 0 : (idx[i] >= g->in[d] ? g->in[d] - 1 : idx[i]);
        if (w[i] != 0.0) {
            acc += w[i] * rz_interp(c, g, x, base + j * g->stride[d], d + 1, o);
        }
    }
    return acc;
}

/* ---- running the kernel -----------------------------------------------------------------------
 */

static void rz_node(const rz_case *c, t_node *tn)
{
    t_node_init(tn, EM_OP_RESIZE, c->name);
    if (c->mode != NULL) {
        t_set_string(tn, "mode", c->mode);
    }
    if (c->ctm != NULL) {
        t_set_string(tn, "coordinate_transformation_mode", c->ctm);
    }
    if (c->nearest != NULL) {
        t_set_string(tn, "nearest_mode", c->nearest);
    }
    if (c->cubic_a != 0.0f) {
        t_set_float(tn, "cubic_coeff_a", c->cubic_a);
    }
    if (c->exclude) {
        t_set_int(tn, "exclude_outside", 1);
    }
    if (c->antialias) {
        t_set_int(tn, "antialias", 1);
    }
    if (c->policy != NULL) {
        t_set_string(tn, "keep_aspect_ratio_policy", c->policy);
    }
    if (c->n_axes > 0) {
        t_set_ints(tn, "axes", c->axes, c->n_axes);
    }
    if (c->extrap != 0.0f) {
        t_set_float(tn, "extrapolation_value", c->extrap);
    }
}

static void *rz_check(const rz_case *c, em_threadpool *pool, size_t *bytes, unsigned const_mask)
{
    rz_geom g;
    rz_geometry(c, &g);
    int na = c->n_axes > 0 ? c->n_axes : c->rank;
    int64_t nx = t_numel(g.in, c->rank), ny = t_numel(g.out, c->rank), nroi = 2 * na, nna = na;
    bool is_int = c->dt != F32 && c->dt != EMBER_DTYPE_F64 && c->dt != EMBER_DTYPE_F16;
    float *xf = t_random_f32(nx, c->seed, is_int ? 0.0f : -2.0f, is_int ? 120.0f : 2.0f);
    double *xv = t_f64(nx), *ref = t_f64(ny);
    void *x = test_calloc((size_t)nx, 8), *y = test_calloc((size_t)(ny > 0 ? ny : 1), 8);
    for (int64_t i = 0; i < nx; i++) {
        em_tref_set(c->dt, x, i, is_int ? floor(xf[i]) : xf[i]);
        xv[i] = em_tref_get(c->dt, x, i);
    }
    float scales[5], roi[10];
    int64_t sizes[5];
    for (int i = 0; i < na; i++) {
        scales[i] = (float)c->vals[i];
        sizes[i] = (int64_t)c->vals[i];
        roi[i] = (float)c->roi[i];
        roi[na + i] = (float)c->roi[na + i];
    }
    em_tensor in[4], out[1];
    t_tensor(&in[0], c->dt, c->rank, g.in, x);
    t_tensor(&in[1], F32, 1, &nroi, roi);
    if (c->sizes) {
        t_absent(&in[2]);
        t_tensor(&in[3], EMBER_DTYPE_I64, 1, &nna, sizes);
    } else {
        t_tensor(&in[2], F32, 1, &nna, scales);
    }
    if (c->ctm == NULL || strcmp(c->ctm, "tf_crop_and_resize") != 0) {
        t_absent(&in[1]);
    }
    t_tensor(&out[0], c->dt, c->rank, g.out, y);
    t_node tn;
    rz_node(c, &tn);
    const em_kernel *k = t_kernel(EM_OP_RESIZE, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run_const(k, &tn.n, in, c->sizes ? 4 : 3, out, 1, pool, const_mask), c->name);
    int64_t o[5] = {0};
    for (int64_t i = 0; i < ny; i++) {
        ref[i] = rz_interp(c, &g, xv, 0, 0, o);
        em_ref_coord_next(o, g.out, c->rank);
    }
    for (int64_t i = 0; i < ny; i++) {
        double got = em_tref_get(c->dt, y, i), want = ref[i];
        if (is_int) {
            /* The kernel truncates toward zero and saturates; a weighted sum that is an integer
             * in exact arithmetic may land a hair either side of it in double. */
            double hi = c->dt == EMBER_DTYPE_U8 ? 255.0 : (c->dt == EMBER_DTYPE_I8 ? 127.0 : 2e9);
            double lo = c->dt == EMBER_DTYPE_U8 ? 0.0 : (c->dt == EMBER_DTYPE_I8 ? -128.0 : -2e9);
            double w0 = fmin(fmax(trunc(want - 1e-6), lo), hi);
            double w1 = fmin(fmax(trunc(want + 1e-6), lo), hi);
            want = got == w1 ? w1 : w0;
        }
        double tol = c->dt == EMBER_DTYPE_F16 ? 4e-3 : (is_int ? 0.0 : 1e-5);
        if (!t_close(got, want, tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i, got,
                     want);
        }
    }
    test_free(xf);
    test_free(xv);
    test_free(ref);
    test_free(x);
    *bytes = (size_t)(ny > 0 ? ny : 1) * em_dtype_size(c->dt);
    return y;
}

static void test_resize_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof rz_cases / sizeof rz_cases[0]; i++) {
        size_t bytes;
        /* prepare sees the scales / sizes (as the planner's plan constants) or not at all */
        void *serial = rz_check(&rz_cases[i], NULL, &bytes, 0xe);
        void *threaded = rz_check(&rz_cases[i], pool, &bytes, 0);
        assert_memory_equal(serial, threaded, bytes);
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

/* Vectors of ONNX's conformance cases (onnx 1.23 suite), X = 1..16 as [1, 1, 4, 4] unless said. */
static void rz_vector(const char *name, const int64_t *xd, const float *x, const char *mode,
                      const char *ctm, bool antialias, const float *scales, const int64_t *sizes,
                      const int64_t *yd, const double *want)
{
    int64_t four = 4, ny = t_numel(yd, 4);
    float y[64];
    em_tensor in[4], out[1];
    t_tensor(&in[0], F32, 4, xd, (void *)x);
    t_absent(&in[1]);
    if (scales != NULL) {
        t_tensor(&in[2], F32, 1, &four, (void *)scales);
    } else {
        t_absent(&in[2]);
        t_tensor(&in[3], EMBER_DTYPE_I64, 1, &four, (void *)sizes);
    }
    t_tensor(&out[0], F32, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_RESIZE, name);
    t_set_string(&tn, "mode", mode);
    if (ctm != NULL) {
        t_set_string(&tn, "coordinate_transformation_mode", ctm);
    }
    if (antialias) {
        t_set_int(&tn, "antialias", 1);
    }
    const em_kernel *k = t_kernel(EM_OP_RESIZE, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, scales != NULL ? 3 : 4, out, 1, NULL), name);
    t_check_f32(name, y, want, ny, 1e-6, 1e-6);
}

static void test_resize_vectors(void **state)
{
    (void)state;
    static const float x16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const float x4[4] = {1, 2, 3, 4}, s06[4] = {1, 1, 0.6f, 0.6f};
    static const float s1_06[4] = {1, 1, 1, 0.6f};
    static const int64_t d16[4] = {1, 1, 4, 4}, d4[4] = {1, 1, 1, 4}, sz3[4] = {1, 1, 3, 3};
    static const double lin_aa[4] = {2.875, 4.5, 9.375, 11.0};
    static const double cub_aa[9] = {
        1.7750091552734375, 3.120007276535034,  4.465005397796631,  7.155001640319824, 8.5,
        9.844998359680176,  12.534994125366211, 13.879992485046387, 15.224990844726562};
    static const double sym[2] = {1.6666667461395264, 3.3333332538604736};
    rz_vector("linear_antialias", d16, x16, "linear", NULL, true, s06, NULL, DIMS4(1, 1, 2, 2),
              lin_aa);
    rz_vector("cubic_antialias", d16, x16, "cubic", NULL, true, NULL, sz3, DIMS4(1, 1, 3, 3),
              cub_aa);
    rz_vector("half_pixel_symmetric", d4, x4, "linear", "half_pixel_symmetric", false, s1_06, NULL,
              DIMS4(1, 1, 1, 2), sym);
}

/* ---- errors ------------------------------------------------------------------------------------
 */

typedef struct rz_bad {
    const char *name;
    ember_code code;
    ember_dtype dt;
    const char *what;
} rz_bad;

static void rz_bad_node(const rz_bad *c, t_node *tn, em_tensor *in, int *n_in, em_tensor *out,
                        void *buf)
{
    static const int64_t xd[4] = {1, 1, 2, 2}, yd[4] = {1, 1, 4, 4}, four = 4, three = 3;
    static const float scales[4] = {1, 1, 2, 2};
    static const int64_t sizes[4] = {1, 1, 4, 4};
    const char *w = c->what;
    t_node_init(tn, EM_OP_RESIZE, c->name);
    t_tensor(&in[0], c->dt, 4, xd, buf);
    t_absent(&in[1]);
    t_tensor(&in[2], F32, 1, strcmp(w, "scales_len") == 0 ? &three : &four, (void *)scales);
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &four, (void *)sizes);
    *n_in = strcmp(w, "both") == 0 || strcmp(w, "sizes_f32") == 0 ? 4 : 3;
    if (strcmp(w, "neither") == 0) {
        t_absent(&in[2]);
    } else if (strcmp(w, "sizes_f32") == 0) {
        t_absent(&in[2]);
        t_tensor(&in[3], F32, 1, &four, (void *)scales);
    } else if (strcmp(w, "mode") == 0) {
        t_set_string(tn, "mode", "bilinear");
    } else if (strcmp(w, "ctm") == 0) {
        t_set_string(tn, "coordinate_transformation_mode", "corners");
    } else if (strcmp(w, "crop_no_roi") == 0) {
        t_set_string(tn, "coordinate_transformation_mode", "tf_crop_and_resize");
    } else if (strcmp(w, "axes") == 0) {
        t_set_ints(tn, "axes", (const int64_t[]){2, 2, 3, 1}, 4);
    } else if (strcmp(w, "exclude") == 0) {
        t_set_int(tn, "exclude_outside", 2);
    } else if (strcmp(w, "policy") == 0) {
        t_set_string(tn, "keep_aspect_ratio_policy", "fit");
    }
    t_tensor(&out[0], c->dt, 4, strcmp(w, "bad_y") == 0 ? xd : yd, buf);
}

static void test_resize_errors(void **state)
{
    (void)state;
    static const rz_bad bads[] = {
        {"rz_both", EMBER_ERR_INVALID_MODEL, F32, "both"},
        {"rz_neither", EMBER_ERR_INVALID_MODEL, F32, "neither"},
        {"rz_scales_len", EMBER_ERR_INVALID_MODEL, F32, "scales_len"},
        {"rz_sizes_f32", EMBER_ERR_INVALID_MODEL, F32, "sizes_f32"},
        {"rz_mode", EMBER_ERR_INVALID_MODEL, F32, "mode"},
        {"rz_ctm", EMBER_ERR_INVALID_MODEL, F32, "ctm"},
        {"rz_crop_no_roi", EMBER_ERR_INVALID_MODEL, F32, "crop_no_roi"},
        {"rz_axes_repeat", EMBER_ERR_INVALID_MODEL, F32, "axes"},
        {"rz_exclude", EMBER_ERR_INVALID_MODEL, F32, "exclude"},
        {"rz_policy", EMBER_ERR_INVALID_MODEL, F32, "policy"},
        {"rz_bad_y", EMBER_ERR_INVALID_MODEL, F32, "bad_y"},
        {"rz_bool", EMBER_ERR_UNSUPPORTED, EMBER_DTYPE_BOOL, ""},
    };
    double buf[32] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        t_node tn;
        em_tensor in[4], out[1];
        int n_in;
        rz_bad_node(&bads[i], &tn, in, &n_in, out, buf);
        const em_kernel *k = t_kernel(EM_OP_RESIZE, EMBER_DTYPE_UNDEFINED);
        /* scales / sizes visible to prepare, as the planner makes them */
        t_expect_error(t_run_const(k, &tn.n, in, n_in, out, 1, NULL, 0xe), bads[i].code,
                       bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resize_cases),
        cmocka_unit_test(test_resize_vectors),
        cmocka_unit_test(test_resize_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
