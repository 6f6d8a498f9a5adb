/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DFT-20 and STFT-17 as plain O(n^2) sums in double, for any length:
 *     y[k] = norm * sum_{n < avail} w[n] x[n] exp(sign 2 pi i k n / L),   k < n_out,
 * sign -1 forward, +1 inverse (norm 1 / L), w the STFT window (else 1), x real ([..., 1]) or
 * complex ([..., 2]), `avail` the samples present (fewer than L: zero padding; the first L
 * when more). The twiddle angle 2 pi ((k n) mod L) / L is reduced exactly in integers, so its
 * cosine and sine stay accurate for long transforms.
 *
 * DFT: dft_length (input 1, default x.dims[axis]) and axis (input 2, default -2, never the last
 * axis) are read in run; onesided keeps k <= L / 2 of a real input. onesided with inverse is
 * the IRFFT of a complex one-sided spectrum (numpy.fft.irfft, the reference's): a real output
 * [..., L, 1], L = dft_length or 2 (n - 1), from the first L / 2 + 1 bins (zero padded), the
 * imaginary parts of bin 0 and (L even) bin L / 2 ignored:
 *     x[t] = (X0 + 2 sum_{0 < k < L/2} Re(X_k e^{2 pi i k t / L}) + (-1)^t X_{L/2}) / L.
 * onesided with a forward complex input is rejected (see shape_signal.c).
 * STFT: frames of frame_length samples every frame_step samples of signal [batch, length, 1|2],
 * each windowed and transformed (L = frame_length; onesided, the default, keeps L / 2 + 1
 * bins). frame_length is input 3, else the window's length, else the signal length.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double two_pi = 6.283185307179586476925286766559;

/* One transform: x element n at x_off + n * x_stride (imaginary part next to it when cplx);
 * y element k at y_off + k * y_stride (real, imaginary). */
typedef struct dft_line {
    ember_dtype dt;
    const void *x;
    int64_t x_off, x_stride, avail;
    bool cplx;
    const void *w; /* NULL: no window */
    int64_t len, n_out;
    int sign;
    double norm;
    void *y;
    int64_t y_off, y_stride;
} dft_line;

static void dft_1d(const dft_line *t)
{
    for (int64_t k = 0; k < t->n_out; k++) {
        const uint64_t kk = (uint64_t)(k % t->len);
        double re = 0.0, im = 0.0;
        for (int64_t n = 0; n < t->avail; n++) {
            int64_t xi = t->x_off + n * t->x_stride;
            double w = t->w != NULL ? em_tref_get(t->dt, t->w, n) : 1.0;
            double xr = w * em_tref_get(t->dt, t->x, xi);
            double xm = t->cplx ? w * em_tref_get(t->dt, t->x, xi + 1) : 0.0;
            double ang = two_pi * (double)(kk * (uint64_t)n % (uint64_t)t->len) / (double)t->len;
            double c = cos(ang), s = t->sign * sin(ang);
            re += xr * c - xm * s;
            im += xm * c + xr * s;
        }
        em_q_setf(t->dt, t->y, t->y_off + k * t->y_stride, re * t->norm);
        em_q_setf(t->dt, t->y, t->y_off + k * t->y_stride + 1, im * t->norm);
    }
}

/* The IRFFT of one line (t->cplx; `avail` bins present): n_out = len real outputs. */
static void irfft_1d(const dft_line *t)
{
    const int64_t half = t->len / 2, bins = t->avail < half + 1 ? t->avail : half + 1;
    for (int64_t o = 0; o < t->n_out; o++) {
        double sum = 0.0;
        for (int64_t k = 0; k < bins; k++) {
            int64_t xi = t->x_off + k * t->x_stride;
            double xr = em_tref_get(t->dt, t->x, xi), xm = em_tref_get(t->dt, t->x, xi + 1);
            if (k == 0 || (2 * k == t->len)) {
                sum += (k == 0 || o % 2 == 0) ? xr : -xr; /* bin 0, Nyquist: real parts only */
                continue;
            }
            uint64_t r = (uint64_t)k * (uint64_t)o % (uint64_t)t->len;
            double ang = two_pi * (double)r / (double)t->len;
            sum += 2.0 * (xr * cos(ang) - xm * sin(ang));
        }
        em_q_setf(t->dt, t->y, t->y_off + o * t->y_stride, sum * t->norm);
    }
}

static void zero_fill(em_tensor *y)
{
    size_t bytes = em_tensor_nbytes(y);
    if (bytes > 0) {
        memset(y->data, 0, bytes);
    }
}

/* A float signal whose last dim (of `rank`, or >= min_rank when rank is 0) is 1 or 2. */
static ember_status *check_signal(const em_kinfo *ki, int rank, int min_rank)
{
    const em_tensor *x = &ki->in[0];
    ember_status *st = em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0");
    if (st != NULL) {
        return st;
    }
    if (!em_q_is_float(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "input dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    if ((rank > 0 && x->rank != rank) || x->rank < min_rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 has rank %d, expected %s%d",
                            x->rank, rank > 0 ? "" : ">= ", rank > 0 ? rank : min_rank);
    }
    int64_t c = x->dims[x->rank - 1];
    if (c != 1 && c != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "the last dim of input 0 is %lld, expected 1 (real) or 2 (complex)",
                            (long long)c);
    }
    return em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0");
}

/* ---- DFT --------------------------------------------------------------------------------- */

typedef struct em_dft_attrs {
    ember_dtype dt;
    bool inverse, onesided, has_len, has_axis;
    bool irfft; /* inverse and onesided: complex one-sided input, real output */
} em_dft_attrs;

/* The transform length when dft_length is absent: n, or 2 (n - 1) for the IRFFT. */
static int64_t default_len(const em_dft_attrs *a, int64_t n)
{
    return a->irfft ? 2 * (n - 1) : n;
}

/* The axis of a rank-r input, valid in [-r, -2] and [0, r - 2]. */
static bool dft_axis(int64_t axis, int r, int *ax)
{
    if (axis < -(int64_t)r || axis > r - 2 || axis == -1) {
        return false;
    }
    *ax = (int)(axis < 0 ? axis + r : axis);
    return true;
}

/* The expected output dims when axis and length are known. */
static ember_status *dft_check_out(const em_kinfo *ki, const em_dft_attrs *a, int ax, int64_t len)
{
    const em_tensor *x = &ki->in[0];
    int64_t dims[EM_MAX_RANK];
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    dims[x->rank - 1] = a->irfft ? 1 : 2;
    dims[ax] = a->onesided && !a->irfft ? len / 2 + 1 : len;
    return em_ref_check_shape(ki, &ki->out[0], dims, x->rank, "output 0");
}

ember_status *em_dft_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_dft_attrs a = {0};
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    bool len_known, axis_known;
    int64_t len = 0, axis = -2;
    int ax = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 3, 1));
    EMBER_TRY(check_signal(ki, 0, 2));
    EMBER_TRY(em_q_attr_flag(ki, "inverse", 0, &a.inverse));
    EMBER_TRY(em_q_attr_flag(ki, "onesided", 0, &a.onesided));
    a.irfft = a.onesided && a.inverse;
    if (a.onesided && (a.inverse ? x->dims[x->rank - 1] != 2 : x->dims[x->rank - 1] == 2)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "onesided needs a real input (forward) or a complex one (inverse)");
    }
    EMBER_TRY(em_q_int_input(ki, 1, "input 1 (dft_length)", false, &len_known, &len));
    EMBER_TRY(em_q_int_input(ki, 2, "input 2 (axis)", false, &axis_known, &axis));
    a.has_len = em_ref_has_input(ki, 1);
    a.has_axis = em_ref_has_input(ki, 2);
    if (len_known && len < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "dft_length %lld is not positive",
                            (long long)len);
    }
    if ((axis_known || !a.has_axis) && !dft_axis(axis, x->rank, &ax)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "axis %lld is out of range [-%d, -2] or [0, %d]", (long long)axis,
                            x->rank, x->rank - 2);
    }
    if (y->rank != x->rank || y->dims[y->rank - 1] != (a.irfft ? 1 : 2)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output 0 must be [..., %d] of x's rank",
                            a.irfft ? 1 : 2);
    }
    if ((axis_known || !a.has_axis) && (len_known || !a.has_len)) {
        len = a.has_len ? len : default_len(&a, x->dims[ax]);
        if (len < 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "the IRFFT of one bin needs dft_length");
        }
        EMBER_TRY(dft_check_out(ki, &a, ax, len));
    }
    a.dt = x->dtype;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct dft_job {
    const em_dft_attrs *a;
    const em_tensor *x;
    em_tensor *y;
    int ax;
    int64_t len, inner;
} dft_job;

static void dft_task(void *arg, int64_t begin, int64_t end)
{
    const dft_job *j = arg;
    const em_tensor *x = j->x;
    const int64_t c = x->dims[x->rank - 1], n_in = x->dims[j->ax], n_out = j->y->dims[j->ax];
    const int64_t yc = j->a->irfft ? 1 : 2;
    dft_line t = {j->a->dt,
                  x->data,
                  0,
                  j->inner * c,
                  n_in < j->len ? n_in : j->len,
                  c == 2,
                  NULL,
                  j->len,
                  n_out,
                  j->a->inverse ? 1 : -1,
                  j->a->inverse ? 1.0 / (double)j->len : 1.0,
                  j->y->data,
                  0,
                  j->inner * yc};
    for (int64_t line = begin; line < end; line++) {
        int64_t o = line / j->inner, i = line % j->inner;
        t.x_off = (o * n_in * j->inner + i) * c;
        t.y_off = (o * n_out * j->inner + i) * yc;
        if (j->a->irfft) {
            irfft_1d(&t);
        } else {
            dft_1d(&t);
        }
    }
}

void em_dft__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_dft_attrs *a = state;
    const em_tensor *x = &in[0];
    int64_t axis = -2, len = 0;
    int ax;
    if ((a->has_axis && !em_rd_scalar_int(&in[2], &axis)) || !dft_axis(axis, x->rank, &ax)) {
        zero_fill(&out[0]);
        return;
    }
    if (!a->has_len) {
        len = default_len(a, x->dims[ax]);
    } else if (!em_rd_scalar_int(&in[1], &len)) {
        len = 0;
    }
    if (len < 1) {
        zero_fill(&out[0]);
        return;
    }
    dft_job j = {a, x, &out[0], ax, len, em_ref_prod(x->dims + ax + 1, x->rank - ax - 2)};
    int64_t lines = em_ref_prod(x->dims, ax) * j.inner;
    if (lines > 0 && out[0].dims[ax] > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, lines, 1, dft_task, &j);
    }
}

/* ---- STFT -------------------------------------------------------------------------------- */

typedef struct em_stft_attrs {
    ember_dtype dt;
    bool onesided, has_window, has_flen;
} em_stft_attrs;

/* Checks the window (input 2, when given) and the output shape as far as values are known. */
static ember_status *stft_check(const em_kinfo *ki, const em_stft_attrs *a, bool step_known,
                                int64_t step, bool flen_known, int64_t flen)
{
    const em_tensor *x = &ki->in[0], *w = &ki->in[2], *y = &ki->out[0];
    ember_status *st = NULL;
    if (a->has_window) {
        EMBER_TRY(em_ref_check_tensor(ki, w, x->dtype, "input 2 (window)"));
        if (w->rank != 1 || (flen_known && w->dims[0] != flen)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "the window must be 1-D of frame_length elements");
        }
        flen_known = flen_known || !a->has_flen;
        flen = a->has_flen ? flen : w->dims[0];
    } else if (!a->has_flen) {
        flen_known = true;
        flen = x->dims[1];
    }
    if (flen_known && (flen < 1 || flen > x->dims[1])) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "frame_length %lld is outside [1, signal length %lld]", (long long)flen,
                            (long long)x->dims[1]);
    }
    bool ok = y->rank == 4 && y->dims[0] == x->dims[0] && y->dims[3] == 2;
    ok = ok && (!flen_known || y->dims[2] == (a->onesided ? flen / 2 + 1 : flen));
    ok = ok && (!flen_known || !step_known || y->dims[1] == (x->dims[1] - flen) / step + 1);
    if (!ok) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output 0 must be [batch, frames, bins, 2] as the spec computes");
    }
    return NULL;
fail:
    return st;
}

ember_status *em_stft_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_stft_attrs a = {0};
    bool step_known, flen_known;
    int64_t step = 0, flen = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 4, 1));
    EMBER_TRY(check_signal(ki, 3, 3));
    EMBER_TRY(em_q_attr_flag(ki, "onesided", 1, &a.onesided));
    if (a.onesided && ki->in[0].dims[2] == 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "onesided needs a real signal");
    }
    EMBER_TRY(em_q_int_input(ki, 1, "input 1 (frame_step)", true, &step_known, &step));
    EMBER_TRY(em_q_int_input(ki, 3, "input 3 (frame_length)", false, &flen_known, &flen));
    if (step_known && step < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "frame_step %lld is not positive",
                            (long long)step);
    }
    a.has_window = em_ref_has_input(ki, 2);
    a.has_flen = em_ref_has_input(ki, 3);
    EMBER_TRY(stft_check(ki, &a, step_known, step, flen_known, flen));
    a.dt = ki->in[0].dtype;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_stft__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_stft_attrs *a = state;
    const em_tensor *x = &in[0];
    const int64_t batch = x->dims[0], length = x->dims[1], c = x->dims[2];
    const int64_t frames = out[0].dims[1], bins = out[0].dims[2];
    int64_t step = 0, flen = length;
    (void)ctx;
    if (a->has_window) {
        flen = in[2].dims[0];
    }
    if ((a->has_flen && !em_rd_scalar_int(&in[3], &flen)) || !em_rd_scalar_int(&in[1], &step) ||
        step < 1 || flen < 1 || (a->has_window && in[2].dims[0] != flen)) {
        zero_fill(&out[0]);
        return;
    }
    dft_line t = {a->dt, x->data, 0,  c,   0,           c == 2, a->has_window ? in[2].data : NULL,
                  flen,  bins,    -1, 1.0, out[0].data, 0,      2};
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t f = 0; f < frames; f++) {
            int64_t start = f * step, rest = length - start;
            t.avail = rest < 0 ? 0 : rest < flen ? rest : flen;
            t.x_off = (b * length + (rest < 0 ? 0 : start)) * c;
            t.y_off = (b * frames + f) * bins * 2;
            dft_1d(&t);
        }
    }
}
