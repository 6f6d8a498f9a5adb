/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Detection ops.
 *
 * NonMaxSuppression-11: boxes [B, N, 4] and scores [B, C, N] (f32), optional
 * max_output_boxes_per_class (int64, default 0: nothing selected), iou_threshold (default 0) and
 * score_threshold (absent: no filtering) -> selected [num_selected, 3] int64 rows
 * [batch, class, box]. The output's row count comes from the shape function, which runs the
 * same selection (em_nms_select, runtime/shape/shape_nn.c) on the same data; scratch holds its work
 * arrays.
 *
 * RoiAlign-16: X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] ->
 * Y [R, C, output_height, output_width]. Each output bin averages (mode avg) or takes the max of
 * (mode max) sampling_ratio^2 bilinear samples (sampling_ratio 0: ceil(bin size) per axis);
 * half_pixel shifts the scaled roi by -0.5, output_half_pixel (RoiAlign-10's behaviour) does not
 * and grows rois to at least 1x1. Sample rules follow ONNX Runtime and ONNX's reference: samples
 * beyond one pixel outside the map count as 0, others clamp to the map; max mode takes the max
 * of the four weighted corner values (w * x), not of the interpolated value.
 */
#include "ref.h"

#include "core/alloc.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- NonMaxSuppression --------------------------------------------------------------------- */

typedef struct em_nms_attrs {
    int64_t bcn[3]; /* batches, classes, boxes */
    int center;
    bool has_max, has_iou, has_score;
} em_nms_attrs;

/* An optional scalar input: absent, or one value of dtype dt (0-D or [1]). */
static ember_status *nms_scalar_input(const em_kinfo *ki, int i, ember_dtype dt, const char *what,
                                      bool *has)
{
    *has = em_ref_has_input(ki, i) && em_tensor_numel(&ki->in[i]) > 0;
    if (!*has) {
        return NULL;
    }
    if (ki->in[i].dtype != dt || ki->in[i].rank > 1 || em_tensor_numel(&ki->in[i]) != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s must be one %s value", what,
                            em_dtype_name(dt));
    }
    return NULL;
}

ember_status *em_nms_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_nms_attrs a;
    int64_t center;
    const em_tensor *b = &ki->in[0], *s = &ki->in[1], *y = &ki->out[0];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 5, 1));
    EMBER_TRY(em_ref_check_tensor(ki, b, EMBER_DTYPE_UNDEFINED, "input 0 (boxes)"));
    EMBER_TRY(em_nn_check_dtype(ki, b, EM_NN_BIT(F32), "input 0 (boxes)"));
    EMBER_TRY(em_ref_check_tensor(ki, s, EMBER_DTYPE_F32, "input 1 (scores)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_I64, "output 0 (selected_indices)"));
    if (b->rank != 3 || b->dims[2] != 4 || s->rank != 3 || s->dims[0] != b->dims[0] ||
        s->dims[2] != b->dims[1]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "boxes must be [batches, boxes, 4] and scores [batches, classes, "
                            "boxes]");
    }
    if (y->rank != 2 || y->dims[1] != 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the output must be [num_selected, 3]");
    }
    EMBER_TRY(nms_scalar_input(ki, 2, EMBER_DTYPE_I64, "max_output_boxes_per_class", &a.has_max));
    EMBER_TRY(nms_scalar_input(ki, 3, EMBER_DTYPE_F32, "iou_threshold", &a.has_iou));
    EMBER_TRY(nms_scalar_input(ki, 4, EMBER_DTYPE_F32, "score_threshold", &a.has_score));
    EMBER_TRY(em_ref_attr_int(ki, "center_point_box", 0, &center));
    if (center != 0 && center != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "center_point_box = %lld, expected 0 or 1",
                            (long long)center);
    }
    a.center = (int)center;
    a.bcn[0] = b->dims[0];
    a.bcn[1] = s->dims[1];
    a.bcn[2] = b->dims[1];
    if (!em_size_mul(sizeof(int64_t) * 2, (size_t)a.bcn[2], scratch_bytes)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "too many boxes");
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_nms__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_nms_attrs *a = state;
    int64_t max_out = a->has_max ? *(const int64_t *)in[2].data : 0;
    float iou = a->has_iou ? *(const float *)in[3].data : 0.0f;
    const float *score = a->has_score ? (const float *)in[4].data : NULL;
    int64_t rows = out[0].dims[0], *sel = out[0].data;
    int64_t got = 0;
    if (max_out > 0 && a->bcn[2] > 0) {
        got = em_nms_select(in[0].data, in[1].data, a->bcn, max_out, iou, score, a->center,
                            ctx->scratch, sel, rows);
    }
    for (int64_t i = got < 0 ? 0 : got; i < rows; i++) { /* never: the shape came from the data */
        sel[3 * i] = sel[3 * i + 1] = sel[3 * i + 2] = 0;
    }
}

/* ---- RoiAlign ------------------------------------------------------------------------------ */

typedef struct em_roialign_attrs {
    ember_dtype dt;
    int64_t n, c, h, w, rois, oh, ow, sampling;
    double scale;
    bool half_pixel, max_mode;
} em_roialign_attrs;

static ember_status *roialign_attrs(const em_kinfo *ki, em_roialign_attrs *a)
{
    static const char *const ctms[] = {"half_pixel", "output_half_pixel"};
    static const char *const modes[] = {"avg", "max"};
    ember_status *st = NULL;
    int ctm, mode;
    float scale;
    EMBER_TRY(em_nn_attr_enum(ki, "coordinate_transformation_mode", ctms, 2, 0, &ctm));
    EMBER_TRY(em_nn_attr_enum(ki, "mode", modes, 2, 0, &mode));
    EMBER_TRY(em_ref_attr_int(ki, "output_height", 1, &a->oh));
    EMBER_TRY(em_ref_attr_int(ki, "output_width", 1, &a->ow));
    EMBER_TRY(em_ref_attr_int(ki, "sampling_ratio", 0, &a->sampling));
    EMBER_TRY(em_ref_attr_float(ki, "spatial_scale", 1.0f, &scale));
    if (a->oh < 1 || a->ow < 1 || a->oh > ((int64_t)1 << 31) || a->ow > ((int64_t)1 << 31) ||
        a->sampling < 0 || a->sampling > 4096 || !isfinite(scale)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output_height / output_width must be >= 1, sampling_ratio in "
                            "[0, 4096] and spatial_scale finite");
    }
    a->half_pixel = ctm == 0;
    a->max_mode = mode == 1;
    a->scale = scale;
    return NULL;
fail:
    return st;
}

ember_status *em_roialign_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_roialign_attrs a;
    const em_tensor *x = &ki->in[0], *r = &ki->in[1], *bi = &ki->in[2];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, r, x->dtype, "input 1 (rois)"));
    EMBER_TRY(em_ref_check_tensor(ki, bi, EMBER_DTYPE_I64, "input 2 (batch_indices)"));
    if (x->rank != 4 || r->rank != 2 || r->dims[1] != 4 || bi->rank != 1 ||
        bi->dims[0] != r->dims[0]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "X must be [N, C, H, W], rois [R, 4] and batch_indices [R]");
    }
    EMBER_TRY(roialign_attrs(ki, &a));
    a.dt = x->dtype;
    a.n = x->dims[0];
    a.c = x->dims[1];
    a.h = x->dims[2];
    a.w = x->dims[3];
    a.rois = r->dims[0];
    if ((a.h == 0 || a.w == 0) && a.rois * a.c > 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "X has an empty feature map");
    }
    int64_t yd[4] = {a.rois, a.c, a.oh, a.ow};
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], yd, 4, "output 0 (Y)"));
    for (int64_t i = 0; bi->data != NULL && i < a.rois; i++) {
        int64_t b = ((const int64_t *)bi->data)[i];
        if (b < 0 || b >= a.n) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "batch_indices[%lld] = %lld is outside [0, %lld)", (long long)i,
                                (long long)b, (long long)a.n);
        }
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct roialign_job {
    const em_roialign_attrs *a;
    const void *x, *rois;
    const int64_t *bi;
    void *y;
} roialign_job;

/* The four corner offsets and weights of the sample at (yy, xx), or false when it lies more
 * than one pixel outside the map (it then counts as 0). */
static bool roi_sample(const em_roialign_attrs *a, double yy, double xx, int64_t *pos, double *w)
{
    if (yy < -1.0 || yy > (double)a->h || xx < -1.0 || xx > (double)a->w) {
        return false;
    }
    yy = fmax(yy, 0.0);
    xx = fmax(xx, 0.0);
    int64_t y0 = (int64_t)yy, x0 = (int64_t)xx, y1, x1;
    if (y0 >= a->h - 1) {
        y0 = y1 = a->h - 1;
        yy = (double)y0;
    } else {
        y1 = y0 + 1;
    }
    if (x0 >= a->w - 1) {
        x0 = x1 = a->w - 1;
        xx = (double)x0;
    } else {
        x1 = x0 + 1;
    }
    double ly = yy - (double)y0, lx = xx - (double)x0, hy = 1.0 - ly, hx = 1.0 - lx;
    pos[0] = y0 * a->w + x0;
    pos[1] = y0 * a->w + x1;
    pos[2] = y1 * a->w + x0;
    pos[3] = y1 * a->w + x1;
    w[0] = hy * hx;
    w[1] = hy * lx;
    w[2] = ly * hx;
    w[3] = ly * lx;
    return true;
}

/* One output plane: roi r, channel c. */
static void roialign_plane(const roialign_job *j, int64_t r, int64_t c)
{
    const em_roialign_attrs *a = j->a;
    const ember_dtype dt = a->dt;
    const double off = a->half_pixel ? 0.5 : 0.0;
    double x1 = em_nn_get(dt, j->rois, 4 * r) * a->scale - off;
    double y1 = em_nn_get(dt, j->rois, 4 * r + 1) * a->scale - off;
    double rw = em_nn_get(dt, j->rois, 4 * r + 2) * a->scale - off - x1;
    double rh = em_nn_get(dt, j->rois, 4 * r + 3) * a->scale - off - y1;
    if (!a->half_pixel) {
        rw = fmax(rw, 1.0);
        rh = fmax(rh, 1.0);
    }
    double bh = rh / (double)a->oh, bw = rw / (double)a->ow;
    int64_t gh = a->sampling > 0 ? a->sampling : (int64_t)ceil(fmin(fmax(bh, 0.0), 1e6));
    int64_t gw = a->sampling > 0 ? a->sampling : (int64_t)ceil(fmin(fmax(bw, 0.0), 1e6));
    int64_t count = gh * gw > 1 ? gh * gw : 1, b = j->bi[r];
    int64_t x0 = (b >= 0 && b < a->n ? b * a->c + c : -1) * a->h * a->w;
    int64_t y0 = (r * a->c + c) * a->oh * a->ow;
    for (int64_t ph = 0; ph < a->oh; ph++) {
        for (int64_t pw = 0; pw < a->ow; pw++) {
            double acc = 0.0;
            bool first = true;
            for (int64_t iy = 0; x0 >= 0 && iy < gh; iy++) {
                double yy = y1 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                for (int64_t ix = 0; ix < gw; ix++) {
                    double xx = x1 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                    int64_t pos[4] = {0, 0, 0, 0};
                    double w[4] = {0, 0, 0, 0}, v = 0.0, m = 0.0;
                    bool in = roi_sample(a, yy, xx, pos, w);
                    for (int k = 0; k < 4; k++) {
                        double t = in ? w[k] * em_nn_get(dt, j->x, x0 + pos[k]) : 0.0;
                        v += t;
                        m = k == 0 || t > m ? t : m;
                    }
                    acc = !a->max_mode ? acc + v : (first || m > acc ? m : acc);
                    first = false;
                }
            }
            em_nn_set(dt, j->y, y0 + ph * a->ow + pw, a->max_mode ? acc : acc / (double)count);
        }
    }
}

static void roialign_task(void *arg, int64_t begin, int64_t end)
{
    const roialign_job *j = arg;
    for (int64_t rc = begin; rc < end; rc++) {
        roialign_plane(j, rc / j->a->c, rc % j->a->c);
    }
}

void em_roialign__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_roialign_attrs *a = state;
    roialign_job j = {a, in[0].data, in[1].data, in[2].data, out[0].data};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->rois * a->c, 1, roialign_task, &j);
}
