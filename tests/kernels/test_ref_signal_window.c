/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/signal_window_ref.c: HannWindow, HammingWindow, BlackmanWindow-17 and
 * MelWeightMatrix-17 against naive formulas written here (cosines of unreduced angles), exact
 * vectors from numpy (np.hanning, np.blackman: ONNX's symmetric Hann and Blackman) and ONNX's
 * test_melweightmatrix, plus a numpy run of ONNX's MelWeightMatrix reference algorithm on
 * non-trivial parameters. Windows: periodic and symmetric, sizes 0, 1, 2 and odd and even
 * sizes, size as int32/int64 of rank 0 and [1], known or not while preparing,
 * output_datatype f32 f64 f16 int32. MelWeightMatrix: f32 f64 f16 int32 outputs, odd
 * dft_length, int64 / double inputs. Errors for both.
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16
#define I32 EMBER_DTYPE_I32
#define I64 EMBER_DTYPE_I64

static const em_op windows[3] = {EM_OP_HANNWINDOW, EM_OP_HAMMINGWINDOW, EM_OP_BLACKMANWINDOW};

/* The window formula as the spec writes it. */
static double window_ref(em_op op, int64_t n, int64_t size, bool periodic)
{
    const double pi = acos(-1.0);
    double den = periodic ? (double)size : (double)(size - 1);
    if (den == 0.0) {
        return 1.0;
    }
    double c1 = cos(2.0 * pi * (double)n / den), c2 = cos(4.0 * pi * (double)n / den);
    switch (op) {
    case EM_OP_HANNWINDOW:
        return 0.5 - 0.5 * c1;
    case EM_OP_HAMMINGWINDOW:
        return 25.0 / 46.0 - (1.0 - 25.0 / 46.0) * c1;
    default:
        return 0.42 - 0.5 * c1 + 0.08 * c2;
    }
}

static ember_status *window_run(em_op op, const char *name, const void *size, ember_dtype size_dt,
                                int size_rank, bool periodic, ember_dtype y_dt, int64_t n, void *y,
                                unsigned mask)
{
    em_tensor in[1], out[1];
    q_tensor(&in[0], size_dt, size_rank, Q_DIMS(1), size);
    q_tensor(&out[0], y_dt, 1, &n, y);
    t_node tn;
    t_node_init(&tn, op, name);
    t_set_int(&tn, "periodic", periodic);
    if (y_dt != F32) {
        t_set_int(&tn, "output_datatype", y_dt);
    }
    return q_run(op, &tn, in, 1, out, 1, mask);
}

static void test_window_naive(void **state)
{
    (void)state;
    static const int64_t sizes[] = {0, 1, 2, 5, 10, 16, 33, 1000};
    static const ember_dtype dts[] = {F64, F32, F16, I32};
    char name[96];
    for (int w = 0; w < 3; w++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (int p = 0; p < 2; p++) {
                for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
                    const int64_t n = sizes[si];
                    const ember_dtype dt = dts[di];
                    snprintf(name, sizeof name, "%s_%lld_p%d_%s", em_op_name(windows[w]),
                             (long long)n, p, em_dtype_name(dt));
                    void *y = tm_buf(dt, n);
                    double *ref = t_f64(n);
                    for (int64_t i = 0; i < n; i++) {
                        double v = window_ref(windows[w], i, n, p == 1);
                        ref[i] = dt == I32 ? trunc(v) : dt == F32 ? (double)(float)v : v;
                    }
                    int32_t s32 = (int32_t)n;
                    t_expect_ok(window_run(windows[w], name, &s32, I32, 0, p == 1, dt, n, y,
                                           (unsigned)(si & 1)),
                                name);
                    double tol = dt == F64 ? 1e-14 : dt == F32 ? 1e-7 : dt == F16 ? 1e-3 : 0.0;
                    q_check(name, y, dt, ref, n, tol, tol);
                    test_free(y);
                    test_free(ref);
                }
            }
        }
    }
}

/* numpy's exact values: np.hanning(7), np.blackman(7), np.hanning(9)[:-1] (periodic 8). */
static void test_window_numpy(void **state)
{
    (void)state;
    const double hann7[7] = {0.0, 0.2500000000000001, 0.75, 1.0, 0.75, 0.2500000000000001, 0.0};
    const double black7[7] = {-1.3877787807814457e-17, 1.3000000000000009e-01,
                              6.3000000000000012e-01,  9.9999999999999989e-01,
                              6.3000000000000012e-01,  1.3000000000000009e-01,
                              -1.3877787807814457e-17};
    const double hann8p[8] = {0.0, 0.14644660940672627, 0.5, 0.8535533905932738,
                              1.0, 0.8535533905932738,  0.5, 0.14644660940672627};
    double y[8];
    int64_t s7 = 7, s8 = 8;
    t_expect_ok(window_run(EM_OP_HANNWINDOW, "hann7", &s7, I64, 1, false, F64, 7, y, 1), "h7");
    q_check("hann7", y, F64, hann7, 7, 1e-16, 1e-15);
    t_expect_ok(window_run(EM_OP_BLACKMANWINDOW, "black7", &s7, I64, 0, false, F64, 7, y, 0), "b7");
    q_check("black7", y, F64, black7, 7, 1e-16, 1e-15);
    t_expect_ok(window_run(EM_OP_HANNWINDOW, "hann8p", &s8, I64, 0, true, F64, 8, y, 1), "h8");
    q_check("hann8p", y, F64, hann8p, 8, 1e-16, 1e-15);
    /* Periodic size 1: the formula at n = 0 (Hann 0); symmetric size 1: [1]. */
    double one[1];
    int64_t s1 = 1;
    const double zero_ref[1] = {0.0}, one_ref[1] = {1.0};
    t_expect_ok(window_run(EM_OP_HANNWINDOW, "p1", &s1, I64, 0, true, F64, 1, one, 1), "p1");
    q_check("p1", one, F64, zero_ref, 1, 0, 0);
    t_expect_ok(window_run(EM_OP_HAMMINGWINDOW, "s1", &s1, I64, 0, false, F64, 1, one, 1), "s1");
    q_check("s1", one, F64, one_ref, 1, 0, 0);
}

static void test_window_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        ember_dtype size_dt, y_dt;
        int size_rank;
        int64_t size_len, size, n, periodic, attr_dt;
        ember_code code;
    } bads[] = {
        {"w_size_f32", F32, F32, 0, 1, 4, 4, 1, F32, EMBER_ERR_INVALID_MODEL},
        {"w_size_two", I64, F32, 1, 2, 4, 4, 1, F32, EMBER_ERR_INVALID_MODEL},
        {"w_size_neg", I64, F32, 0, 1, -1, 0, 1, F32, EMBER_ERR_INVALID_MODEL},
        {"w_size_mismatch", I64, F32, 0, 1, 5, 4, 1, F32, EMBER_ERR_INVALID_MODEL},
        {"w_periodic_2", I64, F32, 0, 1, 4, 4, 2, F32, EMBER_ERR_INVALID_MODEL},
        {"w_bool", I64, EMBER_DTYPE_BOOL, 0, 1, 4, 4, 1, EMBER_DTYPE_BOOL, EMBER_ERR_INVALID_MODEL},
        {"w_dtype_99", I64, F32, 0, 1, 4, 4, 1, 99, EMBER_ERR_INVALID_MODEL},
        {"w_y_mismatch", I64, F32, 0, 1, 4, 4, 1, F64, EMBER_ERR_INVALID_MODEL},
    };
    double buf[8] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        int64_t size[2] = {bads[i].size, bads[i].size};
        em_tensor in[1], out[1];
        q_tensor(&in[0], bads[i].size_dt, bads[i].size_rank, &bads[i].size_len, size);
        q_tensor(&out[0], bads[i].y_dt, 1, &bads[i].n, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_HANNWINDOW, bads[i].name);
        t_set_int(&tn, "periodic", bads[i].periodic);
        t_set_int(&tn, "output_datatype", bads[i].attr_dt);
        t_expect_error(q_run(EM_OP_HANNWINDOW, &tn, in, 1, out, 1, 1), bads[i].code, bads[i].name,
                       bads[i].name);
    }
    /* A 2-D output. */
    int32_t s = 4;
    em_tensor in[1], out[1];
    q_tensor(&in[0], I32, 0, NULL, &s);
    q_tensor(&out[0], F32, 2, Q_DIMS(2, 2), buf);
    t_node tn;
    t_node_init(&tn, EM_OP_BLACKMANWINDOW, "w_rank2");
    t_expect_error(q_run(EM_OP_BLACKMANWINDOW, &tn, in, 1, out, 1, 0), EMBER_ERR_INVALID_MODEL,
                   "w_rank2", "rank 2");
}

/* ---- MelWeightMatrix ---------------------------------------------------------------------- */

/* ONNX's algorithm, written out again: the spectrogram bin of each mel point, then the
 * triangles (column i rises from b[i] to b[i+1] and falls to b[i+2]). */
static void mel_ref(int64_t bins, int64_t len, int64_t sr, double lo_hz, double hi_hz, double *out)
{
    const int64_t rows = len / 2 + 1;
    int64_t b[64];
    double lo = 2595.0 * log10(1.0 + lo_hz / 700.0), hi = 2595.0 * log10(1.0 + hi_hz / 700.0);
    for (int64_t i = 0; i < bins + 2; i++) {
        double mel = (double)i * ((hi - lo) / (double)(bins + 2)) + lo;
        double hz = 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
        b[i] = (int64_t)floor((double)(len + 1) * hz / (double)sr);
    }
    memset(out, 0, sizeof(double) * (size_t)(rows * bins));
    for (int64_t i = 0; i < bins; i++) {
        for (int64_t j = 0; j < rows; j++) {
            double v = 0.0;
            if (j >= b[i] && j <= b[i + 1]) {
                v = b[i + 1] == b[i] ? (j == b[i] ? 1.0 : 0.0)
                                     : (double)(j - b[i]) / (double)(b[i + 1] - b[i]);
            }
            if (j >= b[i + 1] && j < b[i + 2]) {
                v = (double)(b[i + 2] - j) / (double)(b[i + 2] - b[i + 1]);
            }
            out[j * bins + i] = v;
        }
    }
}

static ember_status *mel_run(const char *name, int64_t bins, int64_t len, int64_t sr, double lo_hz,
                             double hi_hz, ember_dtype int_dt, ember_dtype edge_dt,
                             ember_dtype y_dt, void *y, unsigned mask)
{
    int64_t vals[3] = {bins, len, sr};
    double edges[2] = {lo_hz, hi_hz};
    void *iv = tm_buf(int_dt, 3), *ev = tm_buf(edge_dt, 2);
    for (int i = 0; i < 3; i++) {
        tm_set(int_dt, iv, i, (double)vals[i]);
    }
    tm_set(edge_dt, ev, 0, edges[0]);
    tm_set(edge_dt, ev, 1, edges[1]);
    size_t ies = em_dtype_size(int_dt), ees = em_dtype_size(edge_dt);
    em_tensor in[5], out[1];
    for (int i = 0; i < 3; i++) {
        q_tensor(&in[i], int_dt, 0, NULL, (char *)iv + ies * (size_t)i);
    }
    q_tensor(&in[3], edge_dt, 0, NULL, ev);
    q_tensor(&in[4], edge_dt, 1, Q_DIMS(1), (char *)ev + ees);
    q_tensor(&out[0], y_dt, 2, Q_DIMS(len / 2 + 1, bins), y);
    t_node tn;
    t_node_init(&tn, EM_OP_MELWEIGHTMATRIX, name);
    if (y_dt != F32) {
        t_set_int(&tn, "output_datatype", y_dt);
    }
    ember_status *st = q_run(EM_OP_MELWEIGHTMATRIX, &tn, in, 5, out, 1, mask);
    test_free(iv);
    test_free(ev);
    return st;
}

static void test_mel_vectors(void **state)
{
    (void)state;
    /* test_melweightmatrix: 8 bins, dft_length 16, 8192 Hz, [0, 4096]. */
    double want[72] = {0};
    const int ones[8][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
    for (int k = 0; k < 8; k++) {
        want[ones[k][0] * 8 + ones[k][1]] = 1.0;
    }
    float y[84];
    t_expect_ok(mel_run("test_melweightmatrix", 8, 16, 8192, 0.0, 4096.0, I32, F32, F32, y, 0),
                "mel");
    q_check("test_melweightmatrix", y, F32, want, 72, 0, 0);
    /* numpy, ONNX's reference algorithm: 4 bins, dft_length 40, 8000 Hz, [200, 3500]
     * (mel points fall in bins 1 2 4 6 9 13). */
    double want2[84] = {0};
    const double nz[][3] = {
        {2, 0, 1.0},       {3, 0, 0.5}, {3, 1, 0.5},       {4, 1, 1.0},       {5, 1, 0.5},
        {5, 2, 0.5},       {6, 2, 1.0}, {7, 2, 2.0 / 3.0}, {7, 3, 1.0 / 3.0}, {8, 2, 1.0 / 3.0},
        {8, 3, 2.0 / 3.0}, {9, 3, 1.0}, {10, 3, 0.75},     {11, 3, 0.5},      {12, 3, 0.25}};
    for (size_t k = 0; k < sizeof nz / sizeof nz[0]; k++) {
        want2[(int)nz[k][0] * 4 + (int)nz[k][1]] = nz[k][2];
    }
    double y2[84];
    t_expect_ok(mel_run("numpy_mel", 4, 40, 8000, 200.0, 3500.0, I64, F64, F64, y2, 0x1f), "numpy");
    q_check("numpy_mel", y2, F64, want2, 84, 0, 0);
}

static void test_mel_naive(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t bins, len, sr;
        double lo, hi;
        ember_dtype y_dt;
    } cases[] = {
        {"mel_odd_len", 5, 31, 16000, 100.0, 6000.0, F32},
        {"mel_many", 20, 512, 22050, 30.0, 11025.0, F64},
        {"mel_f16", 6, 64, 8000, 0.0, 4000.0, F16},
        {"mel_i32", 6, 64, 8000, 0.0, 4000.0, I32},
        {"mel_wide", 3, 10, 1000, 0.0, 900.0, F64},
        {"mel_zero_bins", 0, 8, 1000, 0.0, 400.0, F32},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t rows = cases[c].len / 2 + 1, n = rows * cases[c].bins;
        double *ref = t_f64(n);
        void *y = tm_buf(cases[c].y_dt, n);
        mel_ref(cases[c].bins, cases[c].len, cases[c].sr, cases[c].lo, cases[c].hi, ref);
        if (cases[c].y_dt == I32) {
            for (int64_t i = 0; i < n; i++) {
                ref[i] = trunc(ref[i]);
            }
        }
        t_expect_ok(mel_run(cases[c].name, cases[c].bins, cases[c].len, cases[c].sr, cases[c].lo,
                            cases[c].hi, I64, F32, cases[c].y_dt, y, c & 1 ? 0x1f : 0),
                    cases[c].name);
        double tol = cases[c].y_dt == F16 ? 1e-3 : cases[c].y_dt == F32 ? 1e-7 : 0.0;
        q_check(cases[c].name, y, cases[c].y_dt, ref, n, tol, tol);
        test_free(ref);
        test_free(y);
    }
}

static void test_mel_errors(void **state)
{
    (void)state;
    double buf[64] = {0};
    /* Negative bins and a shape other than [len / 2 + 1, bins], with constant inputs. */
    t_expect_error(mel_run("mel_neg", -1, 8, 1000, 0.0, 400.0, I64, F32, F32, buf, 0x7),
                   EMBER_ERR_INVALID_MODEL, "mel_neg", "neg");
    t_expect_error(mel_run("mel_sr0", 2, 8, 0, 0.0, 400.0, I64, F32, F32, buf, 0x7),
                   EMBER_ERR_INVALID_MODEL, "mel_sr0", "sr");
    em_tensor in[5], out[1];
    int64_t v[3] = {2, 8, 1000};
    float e[2] = {0, 400};
    double de = 400.0;
    t_node tn;
    for (int i = 0; i < 3; i++) {
        q_tensor(&in[i], I64, 0, NULL, &v[i]);
    }
    q_tensor(&in[3], F32, 0, NULL, &e[0]);
    q_tensor(&in[4], EMBER_DTYPE_F64, 0, NULL, &de);
    q_tensor(&out[0], F32, 2, Q_DIMS(5, 2), buf);
    t_node_init(&tn, EM_OP_MELWEIGHTMATRIX, "mel_edge_dtypes");
    t_expect_error(q_run(EM_OP_MELWEIGHTMATRIX, &tn, in, 5, out, 1, 0x1f), EMBER_ERR_INVALID_MODEL,
                   "mel_edge_dtypes", "edges");
    q_tensor(&in[4], F32, 0, NULL, &e[1]);
    q_tensor(&out[0], F32, 2, Q_DIMS(4, 2), buf);
    t_node_init(&tn, EM_OP_MELWEIGHTMATRIX, "mel_shape");
    t_expect_error(q_run(EM_OP_MELWEIGHTMATRIX, &tn, in, 5, out, 1, 0x1f), EMBER_ERR_INVALID_MODEL,
                   "mel_shape", "shape");
    q_tensor(&out[0], F32, 2, Q_DIMS(5, 2), buf);
    q_tensor(&in[0], F32, 0, NULL, &e[0]);
    t_node_init(&tn, EM_OP_MELWEIGHTMATRIX, "mel_bins_f32");
    t_expect_error(q_run(EM_OP_MELWEIGHTMATRIX, &tn, in, 5, out, 1, 0), EMBER_ERR_INVALID_MODEL,
                   "mel_bins_f32", "bins dtype");
    q_tensor(&in[0], I64, 0, NULL, &v[0]);
    q_tensor(&in[3], I64, 0, NULL, &v[0]);
    t_node_init(&tn, EM_OP_MELWEIGHTMATRIX, "mel_edge_int");
    t_expect_error(q_run(EM_OP_MELWEIGHTMATRIX, &tn, in, 5, out, 1, 0), EMBER_ERR_INVALID_MODEL,
                   "mel_edge_int", "edge dtype");
    q_tensor(&in[3], F32, 0, NULL, &e[0]);
    t_node_init(&tn, EM_OP_MELWEIGHTMATRIX, "mel_out_dtype");
    t_set_int(&tn, "output_datatype", EMBER_DTYPE_F64);
    t_expect_error(q_run(EM_OP_MELWEIGHTMATRIX, &tn, in, 5, out, 1, 0), EMBER_ERR_INVALID_MODEL,
                   "mel_out_dtype", "out dtype");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_naive),  cmocka_unit_test(test_window_numpy),
        cmocka_unit_test(test_window_errors), cmocka_unit_test(test_mel_vectors),
        cmocka_unit_test(test_mel_naive),     cmocka_unit_test(test_mel_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
