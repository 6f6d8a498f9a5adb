/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BlockedPool and BlockedAffine f32 (runtime/ir/blocked.h) on X [N, Cb, H, W, b] holding C
 * channels, straight on the blocked layout: one (batch, channel block) unit at a time, lane by
 * lane, in double. Lanes past C are written 0.
 *
 * BlockedPool follows nn_pool_ref.c exactly: a MaxPool window wholly in the padding yields
 * -FLT_MAX, NaN propagates (the first NaN wins); AveragePool divides by the taps inside the
 * input, or with count_include_pad by those inside the padded input (per axis, multiplied), an
 * empty window yields 0; the global pools reduce the whole plane. BlockedAffine computes
 * act(x * s[c] + t[c]) with FusedConv's reference activation (em_conv_act_apply).
 * BlockedLayerNorm normalises each pixel over its C channels as LayerNormalization does (mean,
 * then the mean of squared deviations, both in double), one (batch, pixel) at a time. BlockedSE
 * computes, per batch, the channel means, the two matrix-vector products with their
 * activations and the gate s[c] in double (in the scratch), then x * s[c].
 */
#include "ref.h"

#include "ir/blocked.h"
#include "ir/fusedconv.h"

#include <float.h>
#include <math.h>

typedef struct blk_dims {
    int64_t n, cb, b, c; /* batch, channel blocks, block, channels */
    int64_t plane;       /* H * W of X */
} blk_dims;

/* Checks X and Y (f32, rank 5) and `channels` against X's blocks. */
static ember_status *blk_check_x(const em_kinfo *ki, blk_dims *d)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_int(ki, "channels", -1, &d->c));
    if (d->c < 1 || x->rank != 5 || ki->out[0].rank != 5 || x->dims[4] < 1 ||
        x->dims[1] != (d->c + x->dims[4] - 1) / x->dims[4]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "X and Y must be [N, ceil(C/b), H, W, b] with 'channels' C >= 1");
    }
    d->n = x->dims[0];
    d->cb = x->dims[1];
    d->b = x->dims[4];
    d->plane = x->dims[2] * x->dims[3];
    return NULL;
fail:
    return st;
}

/* The checks of the ops whose Y is shaped as X: arity, X and Y, Y's dims. */
static ember_status *blk_check_xy(const em_kinfo *ki, int min_in, int max_in, blk_dims *d)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, min_in, max_in, 1));
    EMBER_TRY(blk_check_x(ki, d));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], ki->in[0].dims, 5, "output 0 (Y)"));
fail:
    return st;
}

/* Input i is a plain f32 operand of dims[0..rank). */
static ember_status *blk_check_operand(const em_kinfo *ki, int i, const int64_t *dims, int rank,
                                       const char *what)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[i], EMBER_DTYPE_F32, what));
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[i], dims, rank, what));
fail:
    return st;
}

/* Lanes of unit u (batch * Cb + block) that hold channels. */
static int64_t blk_lanes(const blk_dims *d, int64_t u)
{
    int64_t rest = d->c - (u % d->cb) * d->b;
    return rest < d->b ? rest : d->b;
}

/* ---- BlockedPool ---- */

typedef struct bpool_state {
    blk_dims d;
    em_op op;
    em_ref_window win;
    bool cip;       /* count_include_pad */
    int64_t oh, ow; /* output plane */
} bpool_state;

ember_status *em_blockedpool_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    bpool_state s = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(blk_check_x(ki, &s.d));
    s.op = em_blocked_pool_op(ki->node);
    const em_tensor *x = &ki->in[0];
    int64_t want[5] = {s.d.n, s.d.cb, 1, 1, s.d.b};
    if (s.op == EM_OP_COUNT) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'pool' must be MaxPool, AveragePool, GlobalMaxPool or "
                            "GlobalAveragePool");
    }
    if (s.op == EM_OP_MAXPOOL || s.op == EM_OP_AVERAGEPOOL) {
        int64_t ceil_mode, cip;
        EMBER_TRY(em_ref_attr_int(ki, "ceil_mode", 0, &ceil_mode));
        EMBER_TRY(em_ref_attr_int(ki, "count_include_pad", 0, &cip));
        if ((ceil_mode != 0 && ceil_mode != 1) || (cip != 0 && cip != 1)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "ceil_mode and count_include_pad must be 0 or 1");
        }
        EMBER_TRY(em_ref_window_parse(ki, 2, x->dims + 2, NULL, ceil_mode != 0, &s.win));
        s.cip = cip != 0 && s.op == EM_OP_AVERAGEPOOL;
        want[2] = s.win.out[0];
        want[3] = s.win.out[1];
    } else if (s.d.plane == 0 && s.d.n * s.d.cb > 0) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "pooling an empty spatial extent");
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], want, 5, "output 0 (Y)"));
    s.oh = want[2];
    s.ow = want[3];
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

typedef struct blk_job {
    const void *s;
    const float *x;
    float *y;
    const float *sc, *sh; /* BlockedAffine: S and T, or NULL */
} blk_job;

/* Max or sum of lane l over the taps [lo, hi) of the window at (start0, start1). */
static double bpool_window(const bpool_state *s, const float *x, int64_t l, const int64_t *start,
                           const int64_t *lo, const int64_t *hi)
{
    const em_ref_window *w = &s->win;
    const int64_t iw = w->in[1], b = s->d.b;
    bool mx = s->op == EM_OP_MAXPOOL;
    double acc = mx ? -INFINITY : 0.0;
    for (int64_t ty = lo[0]; ty < hi[0]; ty++) {
        int64_t iy = start[0] + ty * w->dilation[0];
        for (int64_t tx = lo[1]; tx < hi[1]; tx++) {
            double v = x[((iy * iw) + start[1] + tx * w->dilation[1]) * b + l];
            if (!mx) {
                acc += v;
            } else if (!isnan(acc) && (v > acc || isnan(v))) {
                acc = v;
            }
        }
    }
    return acc;
}

static void bpool_windowed(const bpool_state *s, const float *x, float *y, int64_t lanes)
{
    const em_ref_window *w = &s->win;
    const int64_t b = s->d.b;
    for (int64_t oy = 0; oy < s->oh; oy++) {
        for (int64_t ox = 0; ox < s->ow; ox++) {
            int64_t o[2] = {oy, ox}, start[2], lo[2], hi[2], count = 1;
            bool empty = false;
            for (int d = 0; d < 2; d++) {
                start[d] = o[d] * w->stride[d] - w->pad_begin[d];
                em_ref_taps(start[d], w->kernel[d], w->dilation[d], w->in[d], &lo[d], &hi[d]);
                empty = empty || lo[d] == hi[d];
                int64_t l = lo[d], h = hi[d];
                if (s->cip) {
                    em_ref_taps(start[d] + w->pad_begin[d], w->kernel[d], w->dilation[d],
                                w->in[d] + w->pad_begin[d] + w->pad_end[d], &l, &h);
                }
                count *= h - l;
            }
            float *yo = y + (oy * s->ow + ox) * b;
            for (int64_t l = 0; l < b; l++) {
                double v = 0.0;
                if (l < lanes && s->op == EM_OP_MAXPOOL) {
                    v = empty ? -FLT_MAX : bpool_window(s, x, l, start, lo, hi);
                } else if (l < lanes && !empty && count > 0) {
                    v = bpool_window(s, x, l, start, lo, hi) / (double)count;
                }
                yo[l] = (float)v;
            }
        }
    }
}

static void bpool_global(const bpool_state *s, const float *x, float *y, int64_t lanes)
{
    const int64_t b = s->d.b, plane = s->d.plane;
    for (int64_t l = 0; l < b; l++) {
        double acc = s->op == EM_OP_GLOBALMAXPOOL ? -INFINITY : 0.0;
        for (int64_t p = 0; l < lanes && p < plane; p++) {
            double v = x[p * b + l];
            if (s->op == EM_OP_GLOBALAVERAGEPOOL) {
                acc += v;
            } else if (v > acc || isnan(v)) {
                acc = v;
                if (isnan(v)) {
                    break;
                }
            }
        }
        y[l] = l >= lanes ? 0.0f
                          : (float)(s->op == EM_OP_GLOBALAVERAGEPOOL ? acc / (double)plane : acc);
    }
}

static void bpool_task(void *arg, int64_t begin, int64_t end)
{
    const blk_job *j = arg;
    const bpool_state *s = j->s;
    for (int64_t u = begin; u < end; u++) {
        const float *x = j->x + u * s->d.plane * s->d.b;
        float *y = j->y + u * s->oh * s->ow * s->d.b;
        if (s->op == EM_OP_MAXPOOL || s->op == EM_OP_AVERAGEPOOL) {
            bpool_windowed(s, x, y, blk_lanes(&s->d, u));
        } else {
            bpool_global(s, x, y, blk_lanes(&s->d, u));
        }
    }
}

void em_blockedpool_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const bpool_state *s = state;
    blk_job j = {s, in[0].data, out[0].data, NULL, NULL};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, s->d.n * s->d.cb, 1, bpool_task, &j);
}

/* ---- BlockedAffine ---- */

typedef struct baff_state {
    blk_dims d;
    em_conv_epilogue e;
    bool has[2];           /* S, T given */
    em_chan_operand op[2]; /* their layouts */
} baff_state;

ember_status *em_blockedaffine_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    baff_state s = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(blk_check_xy(ki, 1, 3, &s.d));
    if (!em_conv_epilogue_parse(ki->node, &s.e)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'activation' or 'activation_params' is not one FusedConv takes");
    }
    for (int i = 0; i < 2; i++) {
        const em_tensor *p = &ki->in[1 + i];
        s.has[i] = em_ref_has_input(ki, 1 + i);
        if (!s.has[i]) {
            continue;
        }
        EMBER_TRY(
            em_ref_check_tensor(ki, p, EMBER_DTYPE_F32, i == 0 ? "input 1 (S)" : "input 2 (T)"));
        if (!em_chan_operand_parse(p->rank, p->dims, s.d.n, s.d.c, s.d.b, &s.op[i])) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input %d must be per-channel: [C], [C, 1, 1], [N or 1, C, 1, "
                                "1] or [N or 1, C/b, 1, 1, b]",
                                1 + i);
        }
    }
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

static void baff_task(void *arg, int64_t begin, int64_t end)
{
    const blk_job *j = arg;
    const baff_state *s = j->s;
    const int64_t b = s->d.b, plane = s->d.plane;
    for (int64_t u = begin; u < end; u++) {
        int64_t n = u / s->d.cb, c0 = (u % s->d.cb) * b, lanes = blk_lanes(&s->d, u);
        const float *x = j->x + u * plane * b;
        float *y = j->y + u * plane * b;
        for (int64_t l = 0; l < b; l++) {
            double sc = s->has[0] && l < lanes ? j->sc[n * s->op[0].batch_stride + c0 + l] : 1.0;
            double sh = s->has[1] && l < lanes ? j->sh[n * s->op[1].batch_stride + c0 + l] : 0.0;
            for (int64_t p = 0; p < plane; p++) {
                y[p * b + l] = l < lanes
                                   ? (float)em_conv_act_apply(&s->e, (double)x[p * b + l] * sc + sh)
                                   : 0.0f;
            }
        }
    }
}

void em_blockedaffine_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                               const em_kctx *ctx)
{
    const baff_state *s = state;
    blk_job j = {s, in[0].data, out[0].data, s->has[0] ? in[1].data : NULL,
                 s->has[1] ? in[2].data : NULL};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, s->d.n * s->d.cb, 1, baff_task, &j);
}

/* ---- BlockedLayerNorm ---- */

typedef struct bln_state {
    blk_dims d;
    float eps;
    bool has_b;
} bln_state;

ember_status *em_blockedlayernorm_prepare__ref(const em_kinfo *ki, void **state,
                                               size_t *scratch_bytes)
{
    ember_status *st = NULL;
    bln_state s = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(blk_check_xy(ki, 2, 3, &s.d));
    EMBER_TRY(em_ref_attr_float(ki, "epsilon", 1e-5f, &s.eps));
    s.has_b = em_ref_has_input(ki, 2);
    for (int i = 1; i < (s.has_b ? 3 : 2); i++) {
        EMBER_TRY(blk_check_operand(ki, i, &s.d.c, 1, i == 1 ? "input 1 (Scale)" : "input 2 (B)"));
    }
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

static void bln_task(void *arg, int64_t begin, int64_t end)
{
    const blk_job *j = arg;
    const bln_state *s = j->s;
    const int64_t b = s->d.b, plane = s->d.plane, cb = s->d.cb, c = s->d.c;
    for (int64_t u = begin; u < end; u++) { /* u = batch * plane + pixel */
        int64_t n = u / plane, p = u % plane;
        const float *x = j->x + n * cb * plane * b + p * b;
        float *y = j->y + n * cb * plane * b + p * b;
        double sum = 0.0, sq = 0.0;
        for (int64_t ch = 0; ch < c; ch++) {
            sum += x[(ch / b) * plane * b + ch % b];
        }
        double mean = sum / (double)c;
        for (int64_t ch = 0; ch < c; ch++) {
            double dv = x[(ch / b) * plane * b + ch % b] - mean;
            sq += dv * dv;
        }
        double inv = 1.0 / sqrt(sq / (double)c + (double)s->eps);
        for (int64_t ch = 0; ch < cb * b; ch++) {
            double v = 0.0;
            if (ch < c) {
                v = (x[(ch / b) * plane * b + ch % b] - mean) * inv * j->sc[ch] +
                    (s->has_b ? j->sh[ch] : 0.0);
            }
            y[(ch / b) * plane * b + ch % b] = (float)v;
        }
    }
}

void em_blockedlayernorm_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                                  const em_kctx *ctx)
{
    const bln_state *s = state;
    blk_job j = {s, in[0].data, out[0].data, in[1].data, s->has_b ? in[2].data : NULL};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, s->d.n * s->d.plane, 64, bln_task, &j);
}

/* ---- BlockedSE ---- */

typedef struct bse_state {
    blk_dims d;
    int64_t r;                 /* the squeezed width R */
    em_conv_epilogue act, gate; /* after W1, after W2 */
    bool has_b1, has_b2;
} bse_state;

ember_status *em_blockedse_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    bse_state s = {0};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(blk_check_xy(ki, 3, 5, &s.d));
    if (!em_conv_epilogue_parse(ki->node, &s.act) ||
        !em_conv_epilogue_parse_attrs(ki->node, "gate", "gate_params", &s.gate)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'activation' and 'gate' must be activations FusedConv takes");
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], EMBER_DTYPE_F32, "input 1 (W1)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], EMBER_DTYPE_F32, "input 2 (W2)"));
    s.r = ki->in[1].rank == 4 ? ki->in[1].dims[0] : 0;
    const int64_t w1[4] = {s.r, s.d.c, 1, 1}, w2[4] = {s.d.c, s.r, 1, 1};
    if (s.r < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "W1 must be [R, C, 1, 1] with R >= 1");
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[1], w1, 4, "input 1 (W1)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], w2, 4, "input 2 (W2)"));
    s.has_b1 = em_ref_has_input(ki, 3);
    s.has_b2 = em_ref_has_input(ki, 4);
    if (s.has_b1) {
        EMBER_TRY(blk_check_operand(ki, 3, &s.r, 1, "input 3 (B1)"));
    }
    if (s.has_b2) {
        EMBER_TRY(blk_check_operand(ki, 4, &s.d.c, 1, "input 4 (B2)"));
    }
    *scratch_bytes = sizeof(double) * (size_t)(s.d.n * s.d.c * 2 + s.r);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_blockedse_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const bse_state *s = state;
    const blk_dims *d = &s->d;
    const int64_t b = d->b, c = d->c, r = s->r;
    const float *x = in[0].data, *w1 = in[1].data, *w2 = in[2].data;
    const float *b1 = s->has_b1 ? in[3].data : NULL, *b2 = s->has_b2 ? in[4].data : NULL;
    double *mean = (double *)ctx->scratch, *gate = mean + d->n * c, *hid = gate + d->n * c;
    float *y = out[0].data;
    for (int64_t n = 0; n < d->n; n++) {
        for (int64_t ch = 0; ch < c; ch++) {
            const float *xc = x + ((n * d->cb + ch / b) * d->plane) * b + ch % b;
            double sum = 0.0;
            for (int64_t p = 0; p < d->plane; p++) {
                sum += xc[p * b];
            }
            mean[n * c + ch] = sum / (double)d->plane;
        }
        for (int64_t k = 0; k < r; k++) {
            double acc = b1 != NULL ? b1[k] : 0.0;
            for (int64_t ch = 0; ch < c; ch++) {
                acc += (double)w1[k * c + ch] * mean[n * c + ch];
            }
            hid[k] = em_conv_act_apply(&s->act, acc);
        }
        for (int64_t ch = 0; ch < c; ch++) {
            double acc = b2 != NULL ? b2[ch] : 0.0;
            for (int64_t k = 0; k < r; k++) {
                acc += (double)w2[ch * r + k] * hid[k];
            }
            gate[n * c + ch] = em_conv_act_apply(&s->gate, acc);
        }
    }
    for (int64_t u = 0; u < d->n * d->cb; u++) {
        int64_t n = u / d->cb, c0 = (u % d->cb) * b, lanes = blk_lanes(d, u);
        for (int64_t p = 0; p < d->plane; p++) {
            for (int64_t l = 0; l < b; l++) {
                int64_t at = (u * d->plane + p) * b + l;
                y[at] = l < lanes ? (float)((double)x[at] * gate[n * c + c0 + l]) : 0.0f;
            }
        }
    }
}
