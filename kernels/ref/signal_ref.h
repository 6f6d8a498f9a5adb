/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the signal family's reference kernels (kernels_signal.def). Included by ref.h.
 * All register with dtype UNDEFINED and check dtypes in prepare; float inputs are f32, f64,
 * f16 or bf16 and everything is computed in double (twiddles and windows included, with their
 * angles reduced to [0, 2 pi) exactly in integers before the cosine). Values read from inputs
 * that decide shapes (sizes, lengths, axes) are validated in prepare when constant and read
 * again in run, where an out-of-range value (never planned) yields zeros, not a stray access.
 * The dtype helpers are the quant family's (em_q_setf, em_q_scalar_int) and em_tref_get. */
#ifndef EMBER_KERNELS_REF_SIGNAL_REF_H
#define EMBER_KERNELS_REF_SIGNAL_REF_H

#include "plan/kernel.h"

/* The signature every entry below shares (kernel.h em_krun_fn / em_kprepare_fn). */
#define EM_SIGNAL_REF_DECL(prep, run)                                                              \
    ember_status *prep(const em_kinfo *ki, void **state, size_t *scratch_bytes);                   \
    void run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* signal_window_ref.c: HannWindow, HammingWindow, BlackmanWindow-17 (size i32/i64, periodic,
 * output_datatype: any numeric dtype) and MelWeightMatrix-17 (output_datatype). */
EM_SIGNAL_REF_DECL(em_window_prepare__ref, em_window__ref)
EM_SIGNAL_REF_DECL(em_melweightmatrix_prepare__ref, em_melweightmatrix__ref)

/* signal_dft_ref.c: DFT-20 (dft_length and axis inputs, onesided, inverse; real or complex
 * input; any length, O(n^2)) and STFT-17 (frame_step, optional window and frame_length,
 * onesided). */
EM_SIGNAL_REF_DECL(em_dft_prepare__ref, em_dft__ref)
EM_SIGNAL_REF_DECL(em_stft_prepare__ref, em_stft__ref)

#undef EM_SIGNAL_REF_DECL

#endif /* EMBER_KERNELS_REF_SIGNAL_REF_H */
