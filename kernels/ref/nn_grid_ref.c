/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GridSample (ONNX GridSample-20, and the 4-D GridSample-16 whose mode names bilinear / bicubic
 * are accepted too): X [N, C, D1..Dr], grid [N, O1..Or, r] -> Y [N, C, O1..Or]. Grid point
 * (g_1..g_r) is in normalised coordinates in the reverse axis order (g_1 runs along Dr, the
 * width), -1 and 1 being the centres of the corner pixels (align_corners) or their outer edges.
 *
 * Per axis of length L: x = (g + 1) / 2 * (L - 1) (align_corners) or ((g + 1) * L - 1) / 2;
 * nearest rounds it half to even (for every r: the conformance data of 3-D grids do too); a
 * coordinate outside [0, L - 1] (align_corners) or [-0.5, L - 0.5] is clamped to [0, L - 1]
 * (border) or reflected into that range (reflection). Taps: nearest 1, linear floor(x) and
 * floor(x) + 1, cubic floor(x) - 1 .. floor(x) + 2 with Keys' weights (a = -0.75). A tap outside
 * the input reads 0 (zeros), the clamped index (border) or the reflected index (reflection), as
 * ONNX's reference and PyTorch. The r axes' weights multiply; sums in double.
 */
#include "ref.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { GS_LINEAR, GS_NEAREST, GS_CUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

typedef struct em_gridsample_attrs {
    int n_sp, mode, padding;
    bool align;
    ember_dtype dt, grid_dt;
    int64_t n, c, in[EM_MAX_RANK], out[EM_MAX_RANK], in_plane, out_plane;
} em_gridsample_attrs;

static ember_status *gridsample_attrs(const em_kinfo *ki, em_gridsample_attrs *a)
{
    static const char *const modes[] = {"linear", "nearest", "cubic", "bilinear", "bicubic"};
    static const char *const pads[] = {"zeros", "border", "reflection"};
    ember_status *st = NULL;
    int64_t align;
    EMBER_TRY(em_nn_attr_enum(ki, "mode", modes, 5, GS_LINEAR, &a->mode));
    EMBER_TRY(em_nn_attr_enum(ki, "padding_mode", pads, 3, GS_ZEROS, &a->padding));
    EMBER_TRY(em_ref_attr_int(ki, "align_corners", 0, &align));
    if (align != 0 && align != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "align_corners = %lld, expected 0 or 1",
                            (long long)align);
    }
    a->mode = a->mode == 3 ? GS_LINEAR : (a->mode == 4 ? GS_CUBIC : a->mode);
    a->align = align != 0;
    return NULL;
fail:
    return st;
}

ember_status *em_gridsample_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_gridsample_attrs a;
    int64_t yd[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0], *g = &ki->in[1];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, EM_NN_FLOATS, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, g, EMBER_DTYPE_UNDEFINED, "input 1 (grid)"));
    EMBER_TRY(em_nn_check_dtype(ki, g, EM_NN_FLOATS, "input 1 (grid)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    if (x->rank < 3 || g->rank != x->rank || g->dims[0] != x->dims[0] ||
        g->dims[g->rank - 1] != x->rank - 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "X must be [N, C, D1..Dr] and the grid [N, O1..Or, r] (r >= 1)");
    }
    EMBER_TRY(gridsample_attrs(ki, &a));
    a.n_sp = x->rank - 2;
    a.dt = x->dtype;
    a.grid_dt = g->dtype;
    a.n = x->dims[0];
    a.c = x->dims[1];
    yd[0] = a.n;
    yd[1] = a.c;
    for (int d = 0; d < a.n_sp; d++) {
        a.in[d] = x->dims[2 + d];
        a.out[d] = g->dims[1 + d];
        yd[2 + d] = a.out[d];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], yd, x->rank, "output 0 (Y)"));
    a.in_plane = em_ref_prod(a.in, a.n_sp);
    a.out_plane = em_ref_prod(a.out, a.n_sp);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* Reflects x into [lo, hi] by the nearer border, repeatedly (ONNX's reference). */
static double gs_reflect(double x, double lo, double hi)
{
    double range = hi - lo;
    if (range <= 0.0) {
        return lo;
    }
    if (x < lo || x > hi) {
        double dx = x < lo ? lo - x : x - hi, n = floor(dx / range), r = dx - n * range;
        bool even = fmod(n, 2.0) == 0.0;
        x = (x < lo) == even ? lo + r : hi - r;
    }
    return x;
}

/* The input index a tap at integer coordinate i reads along an axis of length len, or -1
 * (zeros padding outside the input). */
static int64_t gs_index(const em_gridsample_attrs *a, double i, int64_t len, double lo, double hi)
{
    double last = (double)(len - 1);
    switch (a->padding) {
    case GS_BORDER:
        return (int64_t)fmin(fmax(i, 0.0), last);
    case GS_REFLECTION:
        return (int64_t)fmin(fmax(trunc(gs_reflect(i, lo, hi)), 0.0), last);
    default:
        return i >= 0.0 && i <= last ? (int64_t)i : -1;
    }
}

/* Taps (input index or -1) and weights along spatial axis d for normalised coordinate g. */
static int gs_axis(const em_gridsample_attrs *a, int d, double g, int64_t *idx, double *w)
{
    double len = (double)a->in[d];
    double x = a->align ? (g + 1.0) / 2.0 * (len - 1.0) : ((g + 1.0) * len - 1.0) / 2.0;
    double lo = a->align ? 0.0 : -0.5, hi = a->align ? len - 1.0 : len - 0.5;
    x = isnan(x) ? -1e18 : fmin(fmax(x, -1e18), 1e18); /* NaN and inf land far outside */
    if (a->mode == GS_NEAREST) {
        x = nearbyint(x);
    }
    if (x < lo || x > hi) {
        x = a->padding == GS_BORDER       ? fmin(fmax(x, 0.0), len - 1.0)
            : a->padding == GS_REFLECTION ? gs_reflect(x, lo, hi)
                                          : x;
    }
    if (a->mode == GS_NEAREST) {
        idx[0] = gs_index(a, trunc(x), a->in[d], lo, hi);
        w[0] = 1.0;
        return 1;
    }
    double x0 = floor(x), t = x - x0;
    if (a->mode == GS_LINEAR) {
        idx[0] = gs_index(a, x0, a->in[d], lo, hi);
        idx[1] = gs_index(a, x0 + 1.0, a->in[d], lo, hi);
        w[0] = 1.0 - t;
        w[1] = t;
        return 2;
    }
    em_nn_cubic_coeffs(t, -0.75, w);
    for (int k = 0; k < 4; k++) {
        idx[k] = gs_index(a, x0 - 1.0 + k, a->in[d], lo, hi);
    }
    return 4;
}

typedef struct gs_job {
    const em_gridsample_attrs *a;
    const void *x, *grid;
    void *y;
} gs_job;

/* Output position p of batch n: every channel. */
static void gs_point(const gs_job *j, int64_t n, int64_t p)
{
    const em_gridsample_attrs *a = j->a;
    const int r = a->n_sp;
    int64_t idx[EM_MAX_RANK][4], t[EM_MAX_RANK] = {0};
    double w[EM_MAX_RANK][4];
    int cnt[EM_MAX_RANK];
    const int64_t g0 = (n * a->out_plane + p) * r;
    for (int d = 0; d < r; d++) {
        double g = em_nn_get(a->grid_dt, j->grid, g0 + (r - 1 - d));
        cnt[d] = gs_axis(a, d, g, idx[d], w[d]);
    }
    for (int64_t c = 0; c < a->c; c++) {
        const int64_t x0 = (n * a->c + c) * a->in_plane;
        double acc = 0.0;
        memset(t, 0, sizeof t);
        for (;;) {
            int64_t off = 0;
            double wt = 1.0;
            for (int d = 0; d < r && off >= 0; d++) {
                int64_t i = idx[d][t[d]];
                off = i < 0 ? -1 : off * a->in[d] + i;
                wt *= w[d][t[d]];
            }
            if (off >= 0 && wt != 0.0) {
                acc += wt * em_nn_get(a->dt, j->x, x0 + off);
            }
            int d = r - 1;
            while (d >= 0 && ++t[d] == cnt[d]) {
                t[d] = 0;
                d--;
            }
            if (d < 0) {
                break;
            }
        }
        em_nn_set(a->dt, j->y, (n * a->c + c) * a->out_plane + p, acc);
    }
}

static void gs_task(void *arg, int64_t begin, int64_t end)
{
    const gs_job *j = arg;
    for (int64_t i = begin; i < end; i++) {
        gs_point(j, i / j->a->out_plane, i % j->a->out_plane);
    }
}

void em_gridsample__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_gridsample_attrs *a = state;
    gs_job j = {a, in[0].data, in[1].data, out[0].data};
    if (a->out_plane > 0 && a->c > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->n * a->out_plane, 16, gs_task, &j);
    }
}

/* ---- AffineGrid ---------------------------------------------------------------------------- */
/*
 * AffineGrid-20: theta [N, 2, 3] (or [N, 3, 4]) and size [N, C, H, W] (or [N, C, D, H, W]) ->
 * grid [N, H, W, 2] (or [N, D, H, W, 3]) of theta @ (x, y[, z], 1), where x runs along W: -1 + 2i
 * / (L - 1) with align_corners (-1 when L = 1), else -1 + (2i + 1) / L, the pixel centres of
 * GridSample's convention. Y's shape carries `size`, so run never reads it. f16 f32 f64.
 */

typedef struct em_affinegrid_attrs {
    int n_sp;
    bool align;
    ember_dtype dt;
    int64_t n, len[3], plane;
} em_affinegrid_attrs;

ember_status *em_affinegrid_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_affinegrid_attrs a;
    int64_t align, yd[5];
    const em_tensor *th = &ki->in[0], *sz = &ki->in[1], *y = &ki->out[0];

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, th, EMBER_DTYPE_UNDEFINED, "input 0 (theta)"));
    EMBER_TRY(em_nn_check_dtype(ki, th, EM_NN_FLOATS, "input 0 (theta)"));
    EMBER_TRY(em_ref_check_tensor(ki, sz, EMBER_DTYPE_I64, "input 1 (size)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, th->dtype, "output 0 (grid)"));
    EMBER_TRY(em_ref_attr_int(ki, "align_corners", 0, &align));
    if (sz->rank != 1 || (sz->dims[0] != 4 && sz->dims[0] != 5) || (align != 0 && align != 1)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "size must hold 4 or 5 int64 values and align_corners be 0 or 1");
    }
    a.n_sp = (int)sz->dims[0] - 2;
    if (th->rank != 3 || th->dims[1] != a.n_sp || th->dims[2] != a.n_sp + 1 ||
        y->rank != a.n_sp + 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "theta must be [N, %d, %d] and the grid of rank %d", a.n_sp, a.n_sp + 1,
                            a.n_sp + 2);
    }
    a.align = align != 0;
    a.dt = th->dtype;
    a.n = th->dims[0];
    yd[0] = a.n;
    for (int d = 0; d < a.n_sp; d++) {
        a.len[d] = y->dims[1 + d];
        yd[1 + d] = a.len[d];
        if (sz->data != NULL && ((const int64_t *)sz->data)[2 + d] != a.len[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the grid's shape differs from size");
        }
    }
    yd[1 + a.n_sp] = a.n_sp;
    EMBER_TRY(em_ref_check_shape(ki, y, yd, a.n_sp + 2, "output 0 (grid)"));
    a.plane = em_ref_prod(a.len, a.n_sp);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_affinegrid__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_affinegrid_attrs *a = state;
    const int r = a->n_sp, cols = r + 1;
    (void)ctx;
    for (int64_t n = 0; n < a->n; n++) {
        int64_t o[3] = {0, 0, 0};
        for (int64_t p = 0; p < a->plane; p++) {
            double v[4]; /* x (last axis) first, then y, z; then 1 */
            for (int d = 0; d < r; d++) {
                double len = (double)a->len[d], i = (double)o[d];
                double c = a->align ? (len > 1.0 ? -1.0 + 2.0 * i / (len - 1.0) : -1.0)
                                    : -1.0 + (2.0 * i + 1.0) / len;
                v[r - 1 - d] = c;
            }
            v[r] = 1.0;
            for (int k = 0; k < r; k++) {
                double acc = 0.0;
                for (int j = 0; j < cols; j++) {
                    acc += em_nn_get(a->dt, in[0].data, (n * r + k) * cols + j) * v[j];
                }
                em_nn_set(a->dt, out[0].data, (n * a->plane + p) * r + k, acc);
            }
            em_ref_coord_next(o, a->len, r);
        }
    }
}
