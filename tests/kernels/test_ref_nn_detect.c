/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_detect_ref.c: NonMaxSuppression and RoiAlign.
 *
 * NonMaxSuppression against a naive greedy selection written here (no heap: it scans for the
 * best remaining candidate each time, IoU in double): corner boxes with flipped corners, center
 * boxes, with and without score_threshold, max_output_boxes_per_class absent (nothing), small
 * and larger than the box count, identical and zero-area boxes, several batches and classes,
 * and one conformance vector. The output's row count comes from the naive selection, as the
 * shape function would give it.
 * RoiAlign against a naive bilinear sampler: avg and max, half_pixel and output_half_pixel,
 * fixed and adaptive sampling_ratio, spatial_scale, rois crossing the border, several batches,
 * f64 and f16, and a conformance vector. Plus malformed nodes for both.
 */
#include "test_ref_util.h"

#include <stdio.h>

#define F32 EMBER_DTYPE_F32
#define I64 EMBER_DTYPE_I64

/* ---- NonMaxSuppression ---------------------------------------------------------------------- */

typedef struct nms_case {
    const char *name;
    int64_t b, c, n;
    int center;
    int64_t max_out; /* < 0: input absent */
    float iou;
    bool has_score;
    float score;
    int kind; /* 0 random, 1 identical boxes, 2 half the boxes of zero area */
    uint64_t seed;
} nms_case;

static double nms_iou(const float *p, const float *q, int center)
{
    double a[4], b[4]; /* x0, y0, x1, y1 */
    const float *s[2] = {p, q};
    double *o[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        if (center) {
            o[k][0] = s[k][0] - s[k][2] / 2.0;
            o[k][1] = s[k][1] - s[k][3] / 2.0;
            o[k][2] = s[k][0] + s[k][2] / 2.0;
            o[k][3] = s[k][1] + s[k][3] / 2.0;
        } else { /* [y1, x1, y2, x2], any two opposite corners */
            o[k][0] = fmin(s[k][1], s[k][3]);
            o[k][1] = fmin(s[k][0], s[k][2]);
            o[k][2] = fmax(s[k][1], s[k][3]);
            o[k][3] = fmax(s[k][0], s[k][2]);
        }
    }
    double iw = fmin(a[2], b[2]) - fmax(a[0], b[0]), ih = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    double aa = (a[2] - a[0]) * (a[3] - a[1]), ab = (b[2] - b[0]) * (b[3] - b[1]);
    if (iw <= 0 || ih <= 0 || aa <= 0 || ab <= 0) {
        return 0.0;
    }
    return iw * ih / (aa + ab - iw * ih);
}

/* The selected rows into sel (room for b * c * n rows); returns their count. */
static int64_t nms_naive(const nms_case *c, const float *boxes, const float *scores, int64_t *sel)
{
    int64_t total = 0;
    bool done[64];
    int64_t kept[64];
    for (int64_t b = 0; b < c->b; b++) {
        for (int64_t k = 0; k < c->c; k++) {
            const float *sc = scores + (b * c->c + k) * c->n;
            int64_t nk = 0;
            memset(done, 0, sizeof done);
            while (nk < (c->max_out < 0 ? 0 : c->max_out)) {
                int64_t best = -1;
                for (int64_t i = 0; i < c->n; i++) {
                    bool ok = !done[i] && (!c->has_score || sc[i] > c->score);
                    if (ok && (best < 0 || sc[i] > sc[best])) {
                        best = i;
                    }
                }
                if (best < 0) {
                    break;
                }
                done[best] = true;
                bool keep = true;
                for (int64_t j = 0; j < nk; j++) {
                    const float *bx = boxes + b * c->n * 4;
                    keep = keep && nms_iou(bx + best * 4, bx + kept[j] * 4, c->center) <= c->iou;
                }
                if (keep) {
                    kept[nk++] = best;
                    sel[3 * total] = b;
                    sel[3 * total + 1] = k;
                    sel[3 * total + 2] = best;
                    total++;
                }
            }
        }
    }
    return total;
}

static void nms_data(const nms_case *c, float *boxes, float *scores)
{
    test_rng r = {c->seed};
    test_rng_fill(&r, scores, (size_t)(c->b * c->c * c->n), 0.0f, 1.0f);
    test_rng_fill(&r, boxes, (size_t)(c->b * c->n * 4), 0.0f, 4.0f);
    for (int64_t i = 0; i < c->b * c->n; i++) {
        float *bx = boxes + 4 * i;
        if (c->kind == 1) {
            memcpy(bx, boxes, 4 * sizeof(float));
        } else if (c->center) {
            bx[2] = bx[2] * 0.5f + 0.5f; /* width, height > 0 */
            bx[3] = bx[3] * 0.5f + 0.5f;
        } else if (c->kind == 2 && i % 2 == 0) {
            bx[2] = bx[0];
        }
    }
    if (c->kind == 1) {
        for (int64_t i = 0; i < c->b * c->c * c->n; i++) {
            scores[i] = 0.5f;
        }
    }
}

static void nms_run(const nms_case *c)
{
    float boxes[256], scores[256];
    int64_t want[3 * 64 * 4], got[3 * 64 * 4];
    nms_data(c, boxes, scores);
    int64_t rows = nms_naive(c, boxes, scores, want);
    if (c->max_out > 0 && c->score < 1.0f) {
        assert_true(rows > 0); /* the case selects something */
    }
    int64_t bd[3] = {c->b, c->n, 4}, sd[3] = {c->b, c->c, c->n}, yd[2] = {rows, 3}, one = 1;
    float iou = c->iou, score = c->score;
    int64_t max_out = c->max_out;
    em_tensor in[5], out[1];
    t_tensor(&in[0], F32, 3, bd, boxes);
    t_tensor(&in[1], F32, 3, sd, scores);
    t_tensor(&in[2], I64, 1, &one, &max_out);
    t_tensor(&in[3], F32, 0, NULL, &iou);
    t_tensor(&in[4], F32, 1, &one, &score);
    if (c->max_out < 0) {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], I64, 2, yd, got);
    t_node tn;
    t_node_init(&tn, EM_OP_NONMAXSUPPRESSION, c->name);
    if (c->center) {
        t_set_int(&tn, "center_point_box", 1);
    }
    const em_kernel *k = t_kernel(EM_OP_NONMAXSUPPRESSION, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, c->has_score ? 5 : 4, out, 1, NULL), c->name);
    for (int64_t i = 0; i < 3 * rows; i++) {
        if (got[i] != want[i]) {
            fail_msg("case %s: row %lld: got [%lld %lld %lld], expected [%lld %lld %lld]", c->name,
                     (long long)(i / 3), (long long)got[i / 3 * 3], (long long)got[i / 3 * 3 + 1],
                     (long long)got[i / 3 * 3 + 2], (long long)want[i / 3 * 3],
                     (long long)want[i / 3 * 3 + 1], (long long)want[i / 3 * 3 + 2]);
        }
    }
}

static void test_nms_cases(void **state)
{
    (void)state;
    static const nms_case cases[] = {
        {"corner_random", 2, 3, 17, 0, 4, 0.3f, true, 0.2f, 0, 1},
        {"corner_no_score", 1, 2, 23, 0, 5, 0.5f, false, 0.0f, 0, 2},
        {"center_random", 2, 2, 13, 1, 3, 0.25f, true, 0.1f, 0, 3},
        {"max_out_big", 1, 1, 11, 0, 100, 0.4f, true, 0.0f, 0, 4},
        {"max_out_absent", 1, 2, 5, 0, -1, 0.5f, true, 0.0f, 0, 5},
        {"max_out_zero", 2, 1, 5, 0, 0, 0.5f, false, 0.0f, 0, 6},
        {"identical", 1, 1, 10, 0, 3, 0.5f, true, 0.0f, 1, 7},
        {"zero_area", 1, 1, 12, 0, 12, 0.1f, false, 0.0f, 2, 8},
        {"score_filters_all", 1, 2, 6, 0, 3, 0.5f, true, 1.5f, 0, 9},
        {"iou_zero", 1, 1, 20, 1, 20, 0.0f, true, 0.0f, 0, 10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nms_run(&cases[i]);
    }
}

/* ONNX's test_nonmaxsuppression_suppress_by_IOU: rows [0 0 3], [0 0 0], [0 0 5]. */
static void test_nms_vector(void **state)
{
    (void)state;
    float boxes[24] = {0.0f, 0.0f,  1.0f, 1.0f,  0.0f, 0.1f,   1.0f, 1.1f,
                       0.0f, -0.1f, 1.0f, 0.9f,  0.0f, 10.0f,  1.0f, 11.0f,
                       0.0f, 10.1f, 1.0f, 11.1f, 0.0f, 100.0f, 1.0f, 101.0f};
    float scores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}, iou = 0.5f, score = 0.0f;
    int64_t max_out = 3, got[9], one = 1;
    static const int64_t want[9] = {0, 0, 3, 0, 0, 0, 0, 0, 5};
    int64_t bd[3] = {1, 6, 4}, sd[3] = {1, 1, 6}, yd[2] = {3, 3};
    em_tensor in[5], out[1];
    t_tensor(&in[0], F32, 3, bd, boxes);
    t_tensor(&in[1], F32, 3, sd, scores);
    t_tensor(&in[2], I64, 1, &one, &max_out);
    t_tensor(&in[3], F32, 1, &one, &iou);
    t_tensor(&in[4], F32, 1, &one, &score);
    t_tensor(&out[0], I64, 2, yd, got);
    t_node tn;
    t_node_init(&tn, EM_OP_NONMAXSUPPRESSION, "nms_vector");
    const em_kernel *k = t_kernel(EM_OP_NONMAXSUPPRESSION, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 5, out, 1, NULL), "nms_vector");
    assert_memory_equal(got, want, sizeof want);
}

static void test_nms_errors(void **state)
{
    (void)state;
    static const char *const names[] = {"nms_f64",  "nms_box3", "nms_scores", "nms_iou2",
                                        "nms_cpb2", "nms_out2", "nms_max_f32"};
    static const ember_code codes[] = {EMBER_ERR_UNSUPPORTED,   EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL, EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL, EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL};
    double buf[64] = {0};
    for (int i = 0; i < 7; i++) {
        int64_t bd[3] = {1, 4, i == 1 ? 3 : 4}, sd[3] = {1, 2, i == 2 ? 5 : 4};
        int64_t yd[2] = {0, i == 5 ? 2 : 3}, one = 1, two = 2;
        em_tensor in[5], out[1];
        t_tensor(&in[0], i == 0 ? EMBER_DTYPE_F64 : F32, 3, bd, buf);
        t_tensor(&in[1], F32, 3, sd, buf);
        t_tensor(&in[2], i == 6 ? F32 : I64, 1, &one, buf);
        t_tensor(&in[3], F32, 1, i == 3 ? &two : &one, buf);
        t_tensor(&in[4], F32, 1, &one, buf);
        t_tensor(&out[0], I64, 2, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_NONMAXSUPPRESSION, names[i]);
        if (i == 4) {
            t_set_int(&tn, "center_point_box", 2);
        }
        const em_kernel *k = t_kernel(EM_OP_NONMAXSUPPRESSION, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, 5, out, 1, NULL), codes[i], names[i], names[i]);
    }
}

/* ---- RoiAlign ------------------------------------------------------------------------------- */

typedef struct roi_case {
    const char *name;
    ember_dtype dt;
    int64_t n, c, h, w, oh, ow, sampling;
    float scale;
    bool output_half_pixel, max_mode;
    int64_t n_rois;
    float rois[4][4];
    int64_t bi[4];
    uint64_t seed;
} roi_case;

/* Bilinear value of plane x at (yy, xx) (max mode: the largest weighted corner), 0 when the
 * point is more than one pixel outside. */
static double roi_bilinear(const double *x, int64_t h, int64_t w, double yy, double xx,
                           bool max_mode)
{
    if (yy < -1.0 || yy > (double)h || xx < -1.0 || xx > (double)w) {
        return 0.0;
    }
    yy = fmin(fmax(yy, 0.0), (double)(h - 1));
    xx = fmin(fmax(xx, 0.0), (double)(w - 1));
    int64_t y0 = (int64_t)floor(yy), x0 = (int64_t)floor(xx);
    int64_t y1 = y0 + 1 < h ? y0 + 1 : y0, x1 = x0 + 1 < w ? x0 + 1 : x0;
    double ly = yy - (double)y0, lx = xx - (double)x0;
    double v[4] = {(1 - ly) * (1 - lx) * x[y0 * w + x0], (1 - ly) * lx * x[y0 * w + x1],
                   ly * (1 - lx) * x[y1 * w + x0], ly * lx * x[y1 * w + x1]};
    if (max_mode) { /* ONNX Runtime's max: of the weighted corners */
        return fmax(fmax(v[0], v[1]), fmax(v[2], v[3]));
    }
    return v[0] + v[1] + v[2] + v[3];
}

static void roi_naive(const roi_case *c, const double *x, double *y)
{
    for (int64_t r = 0; r < c->n_rois; r++) {
        double off = c->output_half_pixel ? 0.0 : 0.5;
        double x1 = c->rois[r][0] * (double)c->scale - off,
               y1 = c->rois[r][1] * (double)c->scale - off;
        double rw = c->rois[r][2] * (double)c->scale - off - x1;
        double rh = c->rois[r][3] * (double)c->scale - off - y1;
        if (c->output_half_pixel) {
            rw = fmax(rw, 1.0);
            rh = fmax(rh, 1.0);
        }
        double bh = rh / (double)c->oh, bw = rw / (double)c->ow;
        int64_t gh = c->sampling > 0 ? c->sampling : (int64_t)ceil(bh);
        int64_t gw = c->sampling > 0 ? c->sampling : (int64_t)ceil(bw);
        for (int64_t ch = 0; ch < c->c; ch++) {
            const double *plane = x + (c->bi[r] * c->c + ch) * c->h * c->w;
            for (int64_t p = 0; p < c->oh * c->ow; p++) {
                double acc = c->max_mode ? -INFINITY : 0.0;
                for (int64_t iy = 0; iy < gh; iy++) {
                    for (int64_t ix = 0; ix < gw; ix++) {
                        double yy =
                            y1 + (double)(p / c->ow) * bh + ((double)iy + 0.5) * bh / (double)gh;
                        double xx =
                            x1 + (double)(p % c->ow) * bw + ((double)ix + 0.5) * bw / (double)gw;
                        double v = roi_bilinear(plane, c->h, c->w, yy, xx, c->max_mode);
                        acc = c->max_mode ? fmax(acc, v) : acc + v;
                    }
                }
                y[(r * c->c + ch) * c->oh * c->ow + p] =
                    c->max_mode ? acc : acc / (double)(gh * gw > 0 ? gh * gw : 1);
            }
        }
    }
}

static void roi_run(const roi_case *c, em_threadpool *pool)
{
    int64_t nx = c->n * c->c * c->h * c->w, ny = c->n_rois * c->c * c->oh * c->ow;
    float *xf = t_random_f32(nx, c->seed, -1.0f, 2.0f);
    double *xv = t_f64(nx), *ref = t_f64(ny);
    void *x = test_calloc((size_t)nx, 8), *y = test_calloc((size_t)ny, 8),
         *rois = test_calloc(16, 8);
    for (int64_t i = 0; i < nx; i++) {
        em_tref_set(c->dt, x, i, xf[i]);
        xv[i] = em_tref_get(c->dt, x, i);
    }
    for (int64_t i = 0; i < 4 * c->n_rois; i++) {
        em_tref_set(c->dt, rois, i, c->rois[i / 4][i % 4]);
    }
    int64_t xd[4] = {c->n, c->c, c->h, c->w}, rd[2] = {c->n_rois, 4};
    int64_t yd[4] = {c->n_rois, c->c, c->oh, c->ow};
    em_tensor in[3], out[1];
    t_tensor(&in[0], c->dt, 4, xd, x);
    t_tensor(&in[1], c->dt, 2, rd, rois);
    t_tensor(&in[2], I64, 1, &c->n_rois, (void *)c->bi);
    t_tensor(&out[0], c->dt, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_ROIALIGN, c->name);
    t_set_int(&tn, "output_height", c->oh);
    t_set_int(&tn, "output_width", c->ow);
    t_set_int(&tn, "sampling_ratio", c->sampling);
    t_set_float(&tn, "spatial_scale", c->scale);
    t_set_string(&tn, "coordinate_transformation_mode",
                 c->output_half_pixel ? "output_half_pixel" : "half_pixel");
    if (c->max_mode) {
        t_set_string(&tn, "mode", "max");
    }
    const em_kernel *k = t_kernel(EM_OP_ROIALIGN, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run_const(k, &tn.n, in, 3, out, 1, pool, 0x4), c->name);
    roi_naive(c, xv, ref);
    double tol = c->dt == EMBER_DTYPE_F16 ? 3e-3 : 1e-5;
    for (int64_t i = 0; i < ny; i++) {
        if (!t_close(em_tref_get(c->dt, y, i), ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i,
                     em_tref_get(c->dt, y, i), ref[i]);
        }
    }
    test_free(xf);
    test_free(xv);
    test_free(ref);
    test_free(x);
    test_free(y);
    test_free(rois);
}

static void test_roialign_cases(void **state)
{
    (void)state;
    /* clang-format off */
    static const roi_case cases[] = {
        {"avg_half_pixel", F32, 1, 2, 10, 9, 3, 4, 2, 1.0f, false, false, 3,
         {{0, 0, 8, 9}, {1.5f, 2, 4, 7.5f}, {5, 5, 9, 9}}, {0, 0, 0}, 1},
        {"avg_output_half_pixel", F32, 1, 1, 7, 8, 2, 3, 2, 1.0f, true, false, 2,
         {{0, 0, 6, 7}, {3, 3, 3.2f, 3.1f}}, {0, 0}, 2},
        {"max_mode", F32, 2, 2, 6, 7, 3, 3, 2, 1.0f, false, true, 3,
         {{0, 0, 5, 6}, {1, 1, 4, 3}, {-1, -2, 3, 8}}, {1, 0, 1}, 3},
        {"adaptive_sampling", F32, 1, 2, 12, 11, 2, 3, 0, 0.5f, false, false, 2,
         {{0, 0, 21, 19}, {4, 6, 13, 9}}, {0, 0}, 4},
        {"outside_border", F32, 1, 1, 5, 5, 3, 3, 3, 1.0f, false, false, 2,
         {{-4, -3, 2, 2}, {3, 3, 9, 8}}, {0, 0}, 5},
        {"f64_max", EMBER_DTYPE_F64, 2, 1, 6, 6, 2, 2, 0, 2.0f, true, true, 2,
         {{0, 0, 2.5f, 2.5f}, {0.5f, 1, 2, 3}}, {1, 0}, 6},
        {"f16_avg", EMBER_DTYPE_F16, 1, 2, 5, 6, 2, 2, 2, 1.0f, false, false, 1,
         {{0.5f, 0.5f, 4.5f, 3.5f}}, {0}, 7},
    };
    /* clang-format on */
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        roi_run(&cases[i], i % 2 ? pool : NULL);
    }
    em_threadpool_destroy(pool);
}

/* ONNX's test_roialign_aligned_true, roi 1 (expected values as the case stores them). */
static void test_roialign_vector(void **state)
{
    (void)state;
    static const float x[100] = {
        0.2764f, 0.7150f, 0.1958f, 0.3416f, 0.4638f, 0.0259f, 0.2963f, 0.6518f, 0.4856f, 0.7250f,
        0.9637f, 0.0895f, 0.2919f, 0.6753f, 0.0234f, 0.6132f, 0.8085f, 0.5324f, 0.8992f, 0.4467f,
        0.3265f, 0.8479f, 0.9698f, 0.2471f, 0.9336f, 0.1878f, 0.4766f, 0.4308f, 0.3400f, 0.2162f,
        0.0206f, 0.1720f, 0.2155f, 0.4394f, 0.0653f, 0.3406f, 0.7724f, 0.3921f, 0.2541f, 0.5799f,
        0.4062f, 0.2194f, 0.4473f, 0.4687f, 0.7109f, 0.9327f, 0.9815f, 0.6320f, 0.1728f, 0.6119f,
        0.3097f, 0.1283f, 0.4984f, 0.5068f, 0.4279f, 0.0173f, 0.4388f, 0.0430f, 0.4671f, 0.7119f,
        0.1011f, 0.8477f, 0.4726f, 0.1777f, 0.9923f, 0.4042f, 0.1869f, 0.7795f, 0.9946f, 0.9689f,
        0.1366f, 0.3671f, 0.7011f, 0.6234f, 0.9867f, 0.5585f, 0.6985f, 0.5609f, 0.8788f, 0.9928f,
        0.5697f, 0.8511f, 0.6711f, 0.9406f, 0.8751f, 0.7496f, 0.1650f, 0.1049f, 0.1559f, 0.2514f,
        0.7012f, 0.4056f, 0.7879f, 0.3461f, 0.0415f, 0.2998f, 0.5094f, 0.3727f, 0.5482f, 0.0502f};
    static const double want[25] = {0.3070, 0.2187, 0.3337, 0.4880, 0.4870, 0.1871, 0.4914,
                                    0.5561, 0.4192, 0.3686, 0.1433, 0.4608, 0.5971, 0.5310,
                                    0.4982, 0.2788, 0.4386, 0.6022, 0.7000, 0.7524, 0.5774,
                                    0.7024, 0.7251, 0.7338, 0.8163};
    float rois[4] = {0, 5, 4, 9}, y[25];
    int64_t bi = 0, one = 1, xd[4] = {1, 1, 10, 10}, rd[2] = {1, 4}, yd[4] = {1, 1, 5, 5};
    em_tensor in[3], out[1];
    t_tensor(&in[0], F32, 4, xd, (void *)x);
    t_tensor(&in[1], F32, 2, rd, rois);
    t_tensor(&in[2], I64, 1, &one, &bi);
    t_tensor(&out[0], F32, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_ROIALIGN, "roi_vector");
    t_set_int(&tn, "output_height", 5);
    t_set_int(&tn, "output_width", 5);
    t_set_int(&tn, "sampling_ratio", 2);
    const em_kernel *k = t_kernel(EM_OP_ROIALIGN, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 3, out, 1, NULL), "roi_vector");
    t_check_f32("roi_vector", y, want, 25, 1e-4, 0.0);
}

static void test_roialign_errors(void **state)
{
    (void)state;
    static const char *const names[] = {
        "roi_i32", "roi_rank3", "roi_cols",  "roi_bi_len",      "roi_mode",
        "roi_ctm", "roi_out_h", "roi_bad_y", "roi_batch_index", "roi_empty_map"};
    static const ember_code codes[] = {EMBER_ERR_UNSUPPORTED,   EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL, EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL, EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL, EMBER_ERR_INVALID_MODEL,
                                       EMBER_ERR_INVALID_MODEL, EMBER_ERR_INVALID_MODEL};
    double buf[64] = {0};
    int64_t bad_bi[2] = {0, 3};
    for (int i = 0; i < 10; i++) {
        int64_t xd[4] = {2, 1, i == 9 ? 0 : 4, 4}, rd[2] = {2, i == 2 ? 5 : 4}, bn = i == 3 ? 3 : 2;
        int64_t yd[4] = {2, 1, 1, i == 7 ? 2 : 1};
        em_tensor in[3], out[1];
        ember_dtype dt = i == 0 ? EMBER_DTYPE_I32 : F32;
        t_tensor(&in[0], dt, i == 1 ? 3 : 4, xd, buf);
        t_tensor(&in[1], dt, 2, rd, buf);
        t_tensor(&in[2], I64, 1, &bn, i == 8 ? (void *)bad_bi : (void *)buf);
        t_tensor(&out[0], dt, 4, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_ROIALIGN, names[i]);
        if (i == 4) {
            t_set_string(&tn, "mode", "median");
        } else if (i == 5) {
            t_set_string(&tn, "coordinate_transformation_mode", "align_corners");
        } else if (i == 6) {
            t_set_int(&tn, "output_height", 0);
        }
        const em_kernel *k = t_kernel(EM_OP_ROIALIGN, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(k, &tn.n, in, 3, out, 1, NULL, 0x4), codes[i], names[i],
                       names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nms_cases),       cmocka_unit_test(test_nms_vector),
        cmocka_unit_test(test_nms_errors),      cmocka_unit_test(test_roialign_cases),
        cmocka_unit_test(test_roialign_vector), cmocka_unit_test(test_roialign_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
