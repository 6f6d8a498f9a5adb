/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/signal_dft_ref.c: DFT-20 and STFT-17 against a naive DFT written here in long
 * double (unreduced angles), and numpy's FFT values of ONNX's test_dft, test_dft_axis,
 * test_dft_inverse and test_stft. DFT: real and complex inputs; lengths 1, 2, odd, prime and
 * powers of two; axis absent (-2), positive, negative, the batch axis; dft_length absent,
 * padding and truncating; onesided; inverse; f32 f64 f16 bf16; axis and dft_length known
 * while preparing or only when running; an axis found invalid only when running (zeros).
 * STFT: with and without window and frame_length, onesided or not, complex signals, steps
 * that leave samples over, f32 f64 f16. Errors for both.
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16
#define BF16 EMBER_DTYPE_BF16
#define I32 EMBER_DTYPE_I32
#define I64 EMBER_DTYPE_I64

#define NO_AXIS 100 /* axis input absent */

/* sum_{n < avail} w[n] x[n] e^{sign 2 pi i k n / len} (x complex as re/im pairs, stride xs). */
static void naive_dft(const double *xr, const double *xi, int64_t xs, int64_t avail,
                      const double *w, int64_t len, int sign, int64_t k, double *re, double *im)
{
    const long double pi = 3.141592653589793238462643383279502884L;
    long double sr = 0, si = 0;
    for (int64_t n = 0; n < avail; n++) {
        long double ang = 2.0L * pi * (long double)k * (long double)n / (long double)len;
        long double wv = w != NULL ? w[n] : 1.0L, a = wv * xr[n * xs], b = wv * xi[n * xs];
        long double c = cosl(ang), s = sign * sinl(ang);
        sr += a * c - b * s;
        si += b * c + a * s;
    }
    *re = (double)sr;
    *im = (double)si;
}

/* ---- DFT ------------------------------------------------------------------------------------ */

typedef struct dft_case {
    const char *name;
    int rank;
    int64_t dims[5]; /* last: 1 or 2 */
    int64_t axis;    /* NO_AXIS: absent */
    int64_t len;     /* 0: absent */
    bool onesided, inverse;
    ember_dtype dt;
} dft_case;

static double dft_tol(ember_dtype dt)
{
    return dt == F64 ? 1e-11 : dt == F32 ? 2e-6 : dt == F16 ? 2e-3 : 1e-2;
}

static void dft_run_case(const dft_case *c, unsigned mask)
{
    const int r = c->rank;
    const int ax = c->axis == NO_AXIS ? r - 2 : (int)(c->axis < 0 ? c->axis + r : c->axis);
    const int64_t n_in = c->dims[ax], len = c->len ? c->len : n_in, cplx = c->dims[r - 1];
    const int64_t n_out = c->onesided ? len / 2 + 1 : len;
    int64_t yd[5];
    memcpy(yd, c->dims, sizeof yd);
    yd[ax] = n_out;
    yd[r - 1] = 2;
    const int64_t nx = t_numel(c->dims, r), ny = t_numel(yd, r);
    const int64_t outer = t_numel(c->dims, ax), inner = t_numel(c->dims + ax + 1, r - ax - 2);
    void *x = q_random_frac(c->dt, nx, 61, -256, 256, 256.0);
    void *y = tm_buf(c->dt, ny);
    double *ref = t_f64(ny), *xr = t_f64(n_in), *xi = t_f64(n_in);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t n = 0; n < n_in; n++) {
                int64_t e = ((o * n_in + n) * inner + i) * cplx;
                xr[n] = tm_get(c->dt, x, e);
                xi[n] = cplx == 2 ? tm_get(c->dt, x, e + 1) : 0.0;
            }
            for (int64_t k = 0; k < n_out; k++) {
                int64_t e = ((o * n_out + k) * inner + i) * 2;
                naive_dft(xr, xi, 1, n_in < len ? n_in : len, NULL, len, c->inverse ? 1 : -1, k,
                          &ref[e], &ref[e + 1]);
                if (c->inverse) {
                    ref[e] /= (double)len;
                    ref[e + 1] /= (double)len;
                }
            }
        }
    }
    int64_t len_v = c->len, axis_v = c->axis;
    em_tensor in[3], out[1];
    q_tensor(&in[0], c->dt, r, c->dims, x);
    q_tensor(&in[1], I64, 0, NULL, &len_v);
    q_tensor(&in[2], I64, 1, Q_DIMS(1), &axis_v);
    if (c->len == 0) {
        t_absent(&in[1]);
    }
    if (c->axis == NO_AXIS) {
        t_absent(&in[2]);
    }
    q_tensor(&out[0], c->dt, r, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_DFT, c->name);
    t_set_int(&tn, "onesided", c->onesided);
    t_set_int(&tn, "inverse", c->inverse);
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, c->axis == NO_AXIS ? (c->len ? 2 : 1) : 3, out, 1, mask),
                c->name);
    double tol = dft_tol(c->dt);
    q_check(c->name, y, c->dt, ref, ny, tol * (double)len, tol);
    test_free(x);
    test_free(y);
    test_free(ref);
    test_free(xr);
    test_free(xi);
}

/* clang-format off */
static const dft_case dft_cases[] = {
    {"real_default_axis", 3, {2, 7, 1}, NO_AXIS, 0, false, false, F32},
    {"complex_len1", 3, {3, 1, 2}, NO_AXIS, 0, false, false, F64},
    {"real_len2", 3, {1, 2, 1}, 1, 0, false, false, F64},
    {"prime_13", 3, {2, 13, 2}, -2, 0, false, false, F64},
    {"pow2_16_onesided", 3, {2, 16, 1}, 1, 0, true, false, F64},
    {"odd_15_onesided", 3, {1, 15, 1}, -2, 0, true, false, F32},
    {"axis1_of_4d", 4, {2, 5, 3, 2}, 1, 0, false, false, F64},
    {"axis_m3_of_4d", 4, {2, 5, 3, 1}, -3, 0, false, false, F32},
    {"batch_axis0", 3, {6, 2, 1}, 0, 0, false, false, F64},
    {"pad_len", 3, {2, 5, 1}, 1, 8, false, false, F64},
    {"truncate_len", 3, {2, 9, 2}, 1, 4, false, false, F64},
    {"pad_onesided", 4, {1, 3, 4, 1}, 2, 7, true, false, F32},
    {"inverse", 3, {2, 11, 2}, 1, 0, false, true, F64},
    {"inverse_real", 4, {2, 3, 6, 1}, -3, 0, false, true, F32},
    {"inverse_pad", 3, {1, 5, 2}, 1, 9, false, true, F64},
    {"f16", 3, {2, 9, 2}, 1, 0, false, false, F16},
    {"bf16_onesided", 3, {1, 8, 1}, NO_AXIS, 0, true, false, BF16},
    {"long_257", 3, {1, 257, 1}, 1, 0, false, false, F64},
    {"len_only", 3, {1, 6, 1}, NO_AXIS, 10, false, false, F64},
};
/* clang-format on */

static void test_dft_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof dft_cases / sizeof dft_cases[0]; i++) {
        dft_run_case(&dft_cases[i], 0u);
        dft_run_case(&dft_cases[i], 0x7u);
    }
}

/* numpy.fft over ONNX's test inputs: x = arange(100) as [1, 10, 10, 1]. */
static void test_dft_numpy(void **state)
{
    (void)state;
    /* clang-format off */
    static const double row0[20] = {
        45, 0, -5, 15.388417685876266, -5, 6.8819096023558668, -5, 3.6327126400268019, -5,
        1.6245984811645318, -5, -1.3322676295501878e-15, -5, -1.6245984811645318, -5,
        -3.6327126400268042, -5, -6.8819096023558668, -5, -15.388417685876263,
    };
    /* clang-format on */
    /* clang-format off */
    static const double col3[20] = {
        480, 0, -50, 153.88417685876266, -50, 68.819096023558672, -50, 36.327126400268028, -50,
        16.245984811645318, -50, -1.4210854715202004e-14, -50, -16.245984811645318, -50,
        -36.327126400268035, -50, -68.819096023558672, -50, -153.88417685876266,
    };
    /* clang-format on */
    /* clang-format off */
    static const double inv_col2[20] = {
        47, 0, -5, -15.388417685876266, -4.9999999999999991, -6.8819096023558677, -5,
        -3.6327126400268028, -4.9999999999999991, -1.624598481164532, -5, 1.4210854715202005e-15,
        -4.9999999999999991, 1.624598481164532, -5, 3.6327126400268037, -4.9999999999999991,
        6.8819096023558677, -5, 15.388417685876266,
    };
    /* clang-format on */
    double x[100], xc[200], y[200], got[20];
    for (int i = 0; i < 100; i++) {
        x[i] = i;
        xc[2 * i] = i;
        xc[2 * i + 1] = 0;
    }
    const int64_t xd[4] = {1, 10, 10, 1}, xcd[4] = {1, 10, 10, 2}, yd[4] = {1, 10, 10, 2};
    int64_t axis;
    em_tensor in[3], out[1];
    t_node tn;
    q_tensor(&in[0], F64, 4, xd, x);
    t_absent(&in[1]);
    q_tensor(&in[2], I64, 0, NULL, &axis);
    q_tensor(&out[0], F64, 4, yd, y);
    /* test_dft_axis (axis 2 = -2): row 0. */
    axis = 2;
    t_node_init(&tn, EM_OP_DFT, "test_dft_axis");
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 3, out, 1, 0x4), "axis2");
    q_check("test_dft_axis", y, F64, row0, 20, 1e-12, 1e-12);
    /* test_dft (axis 1): column 3. */
    axis = 1;
    t_node_init(&tn, EM_OP_DFT, "test_dft");
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 3, out, 1, 0), "axis1");
    for (int k = 0; k < 10; k++) {
        got[2 * k] = y[(k * 10 + 3) * 2];
        got[2 * k + 1] = y[(k * 10 + 3) * 2 + 1];
    }
    q_check("test_dft", got, F64, col3, 20, 1e-11, 1e-12);
    /* test_dft_inverse (axis 1, complex input): column 2. */
    q_tensor(&in[0], F64, 4, xcd, xc);
    t_node_init(&tn, EM_OP_DFT, "test_dft_inverse");
    t_set_int(&tn, "inverse", 1);
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 3, out, 1, 0x4), "inverse");
    for (int k = 0; k < 10; k++) {
        got[2 * k] = y[(k * 10 + 2) * 2];
        got[2 * k + 1] = y[(k * 10 + 2) * 2 + 1];
    }
    q_check("test_dft_inverse", got, F64, inv_col2, 20, 1e-12, 1e-12);
}

/* inverse + onesided: the IRFFT of a one-sided spectrum (numpy.fft.irfft), worked out from
 * x[t] = (X0 + 2 sum_{0<k<L/2} Re(X_k e^{2 pi i k t / L}) + (-1)^t X_{L/2}) / L. */
static void test_dft_irfft(void **state)
{
    (void)state;
    /* L = 2 (n - 1) = 2: x = ((3 + 1) / 2, (3 - 1) / 2); the imaginary parts of bins 0 and L/2
     * are ignored */
    const double x[4] = {3, 7, 1, 5}, want2[2] = {2, 1};
    double y[3];
    em_tensor in[3], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_DFT, "irfft");
    t_set_int(&tn, "inverse", 1);
    t_set_int(&tn, "onesided", 1);
    q_tensor(&in[0], F64, 3, Q_DIMS(1, 2, 2), x);
    q_tensor(&out[0], F64, 3, Q_DIMS(1, 2, 1), y);
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 1, out, 1, 0), "irfft");
    q_check("irfft", y, F64, want2, 2, 1e-15, 1e-15);
    /* L = 3 (dft_length): X0 = 3, X1 = i: x[t] = (3 - 2 sin(2 pi t / 3)) / 3 */
    const double xo[4] = {3, 0, 0, 1};
    const double want3[3] = {1, (3 - sqrt(3.0)) / 3, (3 + sqrt(3.0)) / 3};
    int64_t len = 3;
    q_tensor(&in[0], F64, 3, Q_DIMS(1, 2, 2), xo);
    q_tensor(&in[1], I64, 0, NULL, &len);
    q_tensor(&out[0], F64, 3, Q_DIMS(1, 3, 1), y);
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 2, out, 1, 0x2), "irfft_len3");
    q_check("irfft_len3", y, F64, want3, 3, 1e-15, 1e-15);
    /* a real input cannot be the IRFFT's */
    q_tensor(&in[0], F64, 3, Q_DIMS(1, 4, 1), xo);
    q_tensor(&out[0], F64, 3, Q_DIMS(1, 6, 1), y);
    t_expect_error(q_run(EM_OP_DFT, &tn, in, 1, out, 1, 0), EMBER_ERR_INVALID_MODEL, "irfft",
                   "irfft real");
}

/* An axis (or dft_length) seen only when running and invalid there gives zeros. */
static void test_dft_runtime_invalid(void **state)
{
    (void)state;
    float x[6] = {1, 2, 3, 4, 5, 6}, y[12];
    const double zeros[12] = {0};
    int64_t axis = 2, len = 0;
    em_tensor in[3], out[1];
    t_node tn;
    q_tensor(&in[0], F32, 3, Q_DIMS(1, 6, 1), x);
    q_tensor(&in[1], I64, 0, NULL, &len);
    q_tensor(&in[2], I64, 0, NULL, &axis);
    q_tensor(&out[0], F32, 3, Q_DIMS(1, 6, 2), y);
    t_node_init(&tn, EM_OP_DFT, "late_axis");
    memset(y, 0x7f, sizeof y);
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 3, out, 1, 0), "late axis");
    q_check("late_axis", y, F32, zeros, 12, 0, 0);
    axis = 1;
    memset(y, 0x7f, sizeof y);
    t_node_init(&tn, EM_OP_DFT, "late_len");
    t_expect_ok(q_run(EM_OP_DFT, &tn, in, 3, out, 1, 0), "late len");
    q_check("late_len", y, F32, zeros, 12, 0, 0);
}

static void test_dft_errors(void **state)
{
    (void)state;
    /* clang-format off */
    static const struct {
        const char *name;
        ember_dtype dt, len_dt;
        int rank;
        int64_t dims[3], ydims[3];
        int64_t axis, len; /* len 0: absent */
        bool onesided, inverse;
        ember_code code;
    } bads[] = {
        {"d_inverse_onesided", F32, I64, 3, {1, 4, 1}, {1, 3, 2}, 1, 0, true, true,
         EMBER_ERR_INVALID_MODEL},
        {"d_onesided_complex", F32, I64, 3, {1, 4, 2}, {1, 3, 2}, 1, 0, true, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_axis_last", F32, I64, 3, {1, 4, 1}, {1, 4, 2}, 2, 0, false, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_axis_m1", F32, I64, 3, {1, 4, 1}, {1, 4, 2}, -1, 0, false, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_axis_range", F32, I64, 3, {1, 4, 1}, {1, 4, 2}, -4, 0, false, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_len_zero", F32, I64, 3, {1, 4, 1}, {1, 4, 2}, 1, -1, false, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_len_f32", F32, F32, 3, {1, 4, 1}, {1, 4, 2}, 1, 4, false, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_rank1", F32, I64, 1, {4}, {4}, 0, 0, false, false, EMBER_ERR_INVALID_MODEL},
        {"d_last3", F32, I64, 3, {1, 4, 3}, {1, 4, 2}, 1, 0, false, false, EMBER_ERR_INVALID_MODEL},
        {"d_int", I32, I64, 3, {1, 4, 1}, {1, 4, 2}, 1, 0, false, false, EMBER_ERR_UNSUPPORTED},
        {"d_out_shape", F32, I64, 3, {1, 4, 1}, {1, 3, 2}, 1, 0, false, false,
         EMBER_ERR_INVALID_MODEL},
        {"d_out_len", F32, I64, 3, {1, 4, 1}, {1, 4, 2}, 1, 6, false, false,
         EMBER_ERR_INVALID_MODEL},
    };
    /* clang-format on */
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        int64_t axis = bads[i].axis, len = bads[i].len == -1 ? 0 : bads[i].len;
        float flen = (float)len;
        em_tensor in[3], out[1];
        q_tensor(&in[0], bads[i].dt, bads[i].rank, bads[i].dims, buf);
        q_tensor(&in[1], bads[i].len_dt, 0, NULL, bads[i].len_dt == F32 ? (void *)&flen : &len);
        q_tensor(&in[2], I64, 0, NULL, &axis);
        q_tensor(&out[0], bads[i].dt, bads[i].rank, bads[i].ydims, buf);
        if (bads[i].len == 0) {
            t_absent(&in[1]);
        }
        t_node tn;
        t_node_init(&tn, EM_OP_DFT, bads[i].name);
        t_set_int(&tn, "onesided", bads[i].onesided);
        t_set_int(&tn, "inverse", bads[i].inverse);
        t_expect_error(q_run(EM_OP_DFT, &tn, in, 3, out, 1, 0x6), bads[i].code, bads[i].name,
                       bads[i].name);
    }
}

/* ---- STFT ----------------------------------------------------------------------------------- */

typedef struct stft_case {
    const char *name;
    int64_t batch, length, comp, step, flen; /* flen 0: input absent */
    int64_t wlen;                            /* 0: no window */
    bool onesided;
    ember_dtype dt;
} stft_case;

static void stft_run_case(const stft_case *c, unsigned mask)
{
    const int64_t flen = c->flen ? c->flen : c->wlen ? c->wlen : c->length;
    const int64_t frames = (c->length - flen) / c->step + 1;
    const int64_t bins = c->onesided ? flen / 2 + 1 : flen;
    const int64_t xd[3] = {c->batch, c->length, c->comp}, yd[4] = {c->batch, frames, bins, 2};
    const int64_t nx = t_numel(xd, 3), ny = t_numel(yd, 4);
    void *x = q_random_frac(c->dt, nx, 71, -512, 512, 256.0);
    void *w = q_random_frac(c->dt, c->wlen ? c->wlen : 1, 72, 0, 256, 256.0);
    void *y = tm_buf(c->dt, ny);
    double *ref = t_f64(ny), *xr = t_f64(c->length), *xi = t_f64(c->length), *wv = t_f64(flen);
    for (int64_t n = 0; c->wlen && n < flen; n++) {
        wv[n] = tm_get(c->dt, w, n);
    }
    for (int64_t b = 0; b < c->batch; b++) {
        for (int64_t n = 0; n < c->length; n++) {
            xr[n] = tm_get(c->dt, x, (b * c->length + n) * c->comp);
            xi[n] = c->comp == 2 ? tm_get(c->dt, x, (b * c->length + n) * 2 + 1) : 0.0;
        }
        for (int64_t f = 0; f < frames; f++) {
            for (int64_t k = 0; k < bins; k++) {
                int64_t e = ((b * frames + f) * bins + k) * 2;
                naive_dft(xr + f * c->step, xi + f * c->step, 1, flen, c->wlen ? wv : NULL, flen,
                          -1, k, &ref[e], &ref[e + 1]);
            }
        }
    }
    int64_t step = c->step;
    int32_t fl = (int32_t)c->flen;
    em_tensor in[4], out[1];
    q_tensor(&in[0], c->dt, 3, xd, x);
    q_tensor(&in[1], I64, 1, Q_DIMS(1), &step);
    q_tensor(&in[2], c->dt, 1, &c->wlen, w);
    q_tensor(&in[3], I32, 0, NULL, &fl);
    if (!c->wlen) {
        t_absent(&in[2]);
    }
    if (!c->flen) {
        t_absent(&in[3]);
    }
    q_tensor(&out[0], c->dt, 4, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_STFT, c->name);
    if (!c->onesided) {
        t_set_int(&tn, "onesided", 0);
    }
    t_expect_ok(q_run(EM_OP_STFT, &tn, in, c->flen ? 4 : c->wlen ? 3 : 2, out, 1, mask), c->name);
    double tol = dft_tol(c->dt);
    q_check(c->name, y, c->dt, ref, ny, tol * (double)flen * 2.0, tol);
    void *bufs[] = {x, w, y, ref, xr, xi, wv};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        test_free(bufs[i]);
    }
}

/* clang-format off */
static const stft_case stft_cases[] = {
    {"flen_only", 1, 128, 1, 8, 16, 0, true, F32},
    {"window_only", 2, 50, 1, 7, 0, 12, true, F64},
    {"window_and_flen", 1, 33, 1, 5, 9, 9, false, F64},
    {"leftover", 3, 40, 1, 6, 11, 0, true, F64},
    {"complex", 2, 21, 2, 4, 7, 7, false, F64},
    {"single_frame", 1, 10, 1, 3, 0, 0, true, F64},
    {"step_over_len", 1, 17, 1, 20, 5, 0, false, F32},
    {"f16", 1, 24, 1, 4, 8, 8, true, F16},
};
/* clang-format on */

static void test_stft_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof stft_cases / sizeof stft_cases[0]; i++) {
        stft_run_case(&stft_cases[i], 0u);
        stft_run_case(&stft_cases[i], 0xfu);
    }
}

/* numpy over test_stft's signal arange(128): frame 1 (samples 8..23) of frame_length 16. */
static void test_stft_numpy(void **state)
{
    (void)state;
    /* clang-format off */
    static const double frame1[18] = {
        248, 0, -8, 40.218715937006785, -8, 19.313708498984759, -8, 11.972846101323912, -8, 8, -8,
        5.3454291033543893, -8, 3.3137084989847612, -8, 1.5912989390372658, -8, 0,
    };
    /* clang-format on */
    double x[128], y[15 * 9 * 2];
    for (int i = 0; i < 128; i++) {
        x[i] = i;
    }
    int64_t step = 8, flen = 16;
    em_tensor in[4], out[1];
    q_tensor(&in[0], F64, 3, Q_DIMS(1, 128, 1), x);
    q_tensor(&in[1], I64, 0, NULL, &step);
    t_absent(&in[2]);
    q_tensor(&in[3], I64, 0, NULL, &flen);
    q_tensor(&out[0], F64, 4, Q_DIMS(1, 15, 9, 2), y);
    t_node tn;
    t_node_init(&tn, EM_OP_STFT, "test_stft");
    t_expect_ok(q_run(EM_OP_STFT, &tn, in, 4, out, 1, 0xa), "stft");
    q_check("test_stft", y + 18, F64, frame1, 18, 1e-12, 1e-12);
}

static void test_stft_errors(void **state)
{
    (void)state;
    /* clang-format off */
    static const struct {
        const char *name;
        ember_dtype dt, w_dt;
        int rank;
        int64_t dims[3], step, flen, wlen, ydims[4];
        bool onesided;
        ember_code code;
    } bads[] = {
        {"s_rank2", F32, F32, 2, {1, 16}, 4, 8, 0, {1, 3, 5, 2}, true, EMBER_ERR_INVALID_MODEL},
        {"s_onesided_complex", F32, F32, 3, {1, 16, 2}, 4, 8, 0, {1, 3, 5, 2}, true,
         EMBER_ERR_INVALID_MODEL},
        {"s_step0", F32, F32, 3, {1, 16, 1}, 0, 8, 0, {1, 3, 5, 2}, true, EMBER_ERR_INVALID_MODEL},
        {"s_window_len", F32, F32, 3, {1, 16, 1}, 4, 8, 6, {1, 3, 5, 2}, true,
         EMBER_ERR_INVALID_MODEL},
        {"s_window_dtype", F32, F64, 3, {1, 16, 1}, 4, 8, 8, {1, 3, 5, 2}, true,
         EMBER_ERR_INVALID_MODEL},
        {"s_flen_long", F32, F32, 3, {1, 16, 1}, 4, 17, 0, {1, 1, 9, 2}, true,
         EMBER_ERR_INVALID_MODEL},
        {"s_out_frames", F32, F32, 3, {1, 16, 1}, 4, 8, 0, {1, 4, 5, 2}, true,
         EMBER_ERR_INVALID_MODEL},
        {"s_out_bins", F32, F32, 3, {1, 16, 1}, 4, 8, 0, {1, 3, 8, 2}, true,
         EMBER_ERR_INVALID_MODEL},
        {"s_int", I32, I32, 3, {1, 16, 1}, 4, 8, 0, {1, 3, 5, 2}, true, EMBER_ERR_UNSUPPORTED},
    };
    /* clang-format on */
    float buf[256] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        int64_t step = bads[i].step, flen = bads[i].flen;
        em_tensor in[4], out[1];
        q_tensor(&in[0], bads[i].dt, bads[i].rank, bads[i].dims, buf);
        q_tensor(&in[1], I64, 0, NULL, &step);
        q_tensor(&in[2], bads[i].w_dt, 1, &bads[i].wlen, buf);
        q_tensor(&in[3], I64, 0, NULL, &flen);
        if (!bads[i].wlen) {
            t_absent(&in[2]);
        }
        q_tensor(&out[0], bads[i].dt, 4, bads[i].ydims, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_STFT, bads[i].name);
        t_set_int(&tn, "onesided", bads[i].onesided);
        t_expect_error(q_run(EM_OP_STFT, &tn, in, 4, out, 1, 0xa), bads[i].code, bads[i].name,
                       bads[i].name);
    }
    /* frame_step absent. */
    em_tensor in[2], out[1];
    q_tensor(&in[0], F32, 3, Q_DIMS(1, 16, 1), buf);
    t_absent(&in[1]);
    q_tensor(&out[0], F32, 4, Q_DIMS(1, 1, 9, 2), buf);
    t_node tn;
    t_node_init(&tn, EM_OP_STFT, "s_no_step");
    t_expect_error(q_run(EM_OP_STFT, &tn, in, 2, out, 1, 0), EMBER_ERR_INVALID_MODEL, "s_no_step",
                   "no step");
}

static void test_threaded(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pool), "pool");
    const int64_t xd[4] = {3, 7, 5, 2}, yd[4] = {3, 7, 5, 2};
    const int64_t n = 210;
    double *x = q_random_frac(F64, n, 81, -100, 100, 8.0), *y1 = t_f64(n), *y2 = t_f64(n);
    int64_t axis = -3;
    em_tensor in[3], out[1];
    q_tensor(&in[0], F64, 4, xd, x);
    t_absent(&in[1]);
    q_tensor(&in[2], I64, 0, NULL, &axis);
    q_tensor(&out[0], F64, 4, yd, y1);
    t_node tn;
    t_node_init(&tn, EM_OP_DFT, "threaded");
    t_expect_ok(q_run_pool(EM_OP_DFT, &tn, in, 3, out, 1, 0x4, NULL), "serial");
    out[0].data = y2;
    t_expect_ok(q_run_pool(EM_OP_DFT, &tn, in, 3, out, 1, 0x4, pool), "pool");
    assert_memory_equal(y1, y2, sizeof(double) * (size_t)n);
    em_threadpool_destroy(pool);
    test_free(x);
    test_free(y1);
    test_free(y2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dft_cases),           cmocka_unit_test(test_dft_numpy),
        cmocka_unit_test(test_dft_runtime_invalid), cmocka_unit_test(test_dft_errors),
        cmocka_unit_test(test_dft_irfft),
        cmocka_unit_test(test_stft_cases),          cmocka_unit_test(test_stft_numpy),
        cmocka_unit_test(test_stft_errors),         cmocka_unit_test(test_threaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
