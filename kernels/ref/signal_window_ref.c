/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HannWindow, HammingWindow, BlackmanWindow-17 and MelWeightMatrix-17.
 *
 * Windows: w[n] = a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n / D), n in [0, size), D = size when
 * periodic (the default) else size - 1; Hann (0.5, 0.5, 0), Hamming (25/46, 21/46, 0),
 * Blackman (0.42, 0.5, 0.08). The angles are reduced exactly (n mod D, 2n mod D) before the
 * cosine, in double. A symmetric window of size 1 (D = 0, where the formula divides by zero)
 * is [1], the convention of numpy, scipy and torch. The result is stored in output_datatype
 * (default float) with ONNX Cast's rules.
 *
 * MelWeightMatrix: ONNX's reference algorithm in double. Mel edges are
 * 2595 log10(1 + hz / 700) of lower/upper_edge_hertz, split into num_mel_bins + 2 points; each
 * point goes back to hz and to the spectrogram bin floor((dft_length + 1) hz / sample_rate);
 * mel bin i is a triangle over bins [b_i, b_{i+2}] peaking (1) at b_{i+1}. Output
 * [dft_length / 2 + 1, num_mel_bins]; bins outside the rows are dropped.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double two_pi = 6.283185307179586476925286766559;

/* Output 0 has the numeric dtype of attribute output_datatype (default float). */
static ember_status *check_out_datatype(const em_kinfo *ki, ember_dtype *dt)
{
    int64_t v;
    ember_status *st = em_ref_attr_int(ki, "output_datatype", EMBER_DTYPE_F32, &v);
    if (st != NULL) {
        return st;
    }
    if (v <= 0 || v > 64 || !em_dtype_valid((ember_dtype)v) || v == EMBER_DTYPE_BOOL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output_datatype %lld is not a numeric dtype", (long long)v);
    }
    *dt = (ember_dtype)v;
    return em_ref_check_tensor(ki, &ki->out[0], *dt, "output 0");
}

/* ---- Windows ----------------------------------------------------------------------------- */

typedef struct em_window_attrs {
    double a0, a1, a2;
    bool periodic;
    ember_dtype dt;
} em_window_attrs;

ember_status *em_window_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_window_attrs a = {0};
    bool known;
    int64_t size = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_q_int_input(ki, 0, "input 0 (size)", true, &known, &size));
    EMBER_TRY(em_q_attr_flag(ki, "periodic", 1, &a.periodic));
    EMBER_TRY(check_out_datatype(ki, &a.dt));
    if (known && size < 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "size %lld is negative", (long long)size);
    }
    if (ki->out[0].rank != 1 || (known && ki->out[0].dims[0] != size)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output 0 must be 1-D of size elements");
    }
    switch (ki->node->op) {
    case EM_OP_HANNWINDOW:
        a.a0 = 0.5;
        a.a1 = 0.5;
        break;
    case EM_OP_HAMMINGWINDOW:
        a.a0 = 25.0 / 46.0;
        a.a1 = 21.0 / 46.0;
        break;
    default:
        a.a0 = 0.42;
        a.a1 = 0.5;
        a.a2 = 0.08;
        break;
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_window__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_window_attrs *a = state;
    const int64_t size = out[0].dims[0];
    const int64_t den = a->periodic ? size : size - 1;
    (void)in;
    (void)ctx;
    for (int64_t n = 0; n < size; n++) {
        double v = 1.0;
        if (den > 0) {
            double c1 = cos(two_pi * (double)(n % den) / (double)den);
            double c2 = cos(two_pi * (double)((2 * n) % den) / (double)den);
            v = a->a0 - a->a1 * c1 + a->a2 * c2;
        }
        em_q_setf(a->dt, out[0].data, n, v);
    }
}

/* ---- MelWeightMatrix --------------------------------------------------------------------- */

typedef struct em_mel_attrs {
    ember_dtype dt, edge_dt;
} em_mel_attrs;

/* A one-element float input `i`. */
static ember_status *float_scalar(const em_kinfo *ki, int i, const char *what)
{
    const em_tensor *t = &ki->in[i];
    ember_status *st = em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, what);
    if (st == NULL &&
        (!em_q_is_float(t->dtype) || t->rank > 1 || em_ref_prod(t->dims, t->rank) != 1)) {
        st = em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s must be one floating-point value", what);
    }
    return st;
}

ember_status *em_melweightmatrix_prepare__ref(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_mel_attrs a = {0};
    bool bins_known, len_known, sr_known;
    int64_t bins = 0, len = 0, sr = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 5, 5, 1));
    EMBER_TRY(em_q_int_input(ki, 0, "input 0 (num_mel_bins)", true, &bins_known, &bins));
    EMBER_TRY(em_q_int_input(ki, 1, "input 1 (dft_length)", true, &len_known, &len));
    EMBER_TRY(em_q_int_input(ki, 2, "input 2 (sample_rate)", true, &sr_known, &sr));
    EMBER_TRY(float_scalar(ki, 3, "input 3 (lower_edge_hertz)"));
    EMBER_TRY(float_scalar(ki, 4, "input 4 (upper_edge_hertz)"));
    if (ki->in[4].dtype != ki->in[3].dtype) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the edge frequencies differ in dtype");
    }
    EMBER_TRY(check_out_datatype(ki, &a.dt));
    if ((bins_known && bins < 0) || (len_known && len < 1) || (sr_known && sr < 1)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "num_mel_bins must be >= 0, dft_length and sample_rate > 0");
    }
    const em_tensor *y = &ki->out[0];
    if (y->rank != 2 || (len_known && y->dims[0] != len / 2 + 1) ||
        (bins_known && y->dims[1] != bins)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output 0 must be [dft_length / 2 + 1, num_mel_bins]");
    }
    a.edge_dt = ki->in[3].dtype;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

static double hz_to_mel(double hz)
{
    return 2595.0 * log10(1.0 + hz / 700.0);
}

/* Spectrogram bin of point i of the mel scale (saturated to int64). */
static int64_t mel_point_bin(double low_mel, double step, int64_t i, int64_t len, int64_t sr)
{
    double hz = 700.0 * (pow(10.0, ((double)i * step + low_mel) / 2595.0) - 1.0);
    return em_math_double_to_i(floor((double)(len + 1) * hz / (double)sr), INT64_MIN / 4,
                               INT64_MAX / 4);
}

void em_melweightmatrix__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const em_mel_attrs *a = state;
    const int64_t rows = out[0].dims[0], cols = out[0].dims[1];
    int64_t len = 0, sr = 0;
    (void)ctx;
    for (int64_t e = 0; e < rows * cols; e++) {
        em_q_setf(a->dt, out[0].data, e, 0.0);
    }
    if (!em_rd_scalar_int(&in[1], &len) || !em_rd_scalar_int(&in[2], &sr) || len < 1 || sr < 1) {
        return;
    }
    const double low = hz_to_mel(em_tref_get(a->edge_dt, in[3].data, 0));
    const double high = hz_to_mel(em_tref_get(a->edge_dt, in[4].data, 0));
    const double step = (high - low) / (double)(cols + 2);
    for (int64_t i = 0; i < cols; i++) {
        int64_t l = mel_point_bin(low, step, i, len, sr);
        int64_t c = mel_point_bin(low, step, i + 1, len, sr);
        int64_t h = mel_point_bin(low, step, i + 2, len, sr);
        if (c == l && c >= 0 && c < rows) {
            em_q_setf(a->dt, out[0].data, c * cols + i, 1.0);
        }
        for (int64_t j = l < 0 ? 0 : l; c != l && j <= c && j < rows; j++) {
            em_q_setf(a->dt, out[0].data, j * cols + i, (double)(j - l) / (double)(c - l));
        }
        for (int64_t j = c < 0 ? 0 : c; j < h && j < rows; j++) {
            em_q_setf(a->dt, out[0].data, j * cols + i, (double)(h - j) / (double)(h - c));
        }
    }
}
