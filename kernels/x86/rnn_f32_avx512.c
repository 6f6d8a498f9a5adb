/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 RNN, GRU and LSTM, AVX-512: rnn_driver.inc on vmath_avx512.inc, micro-tiles of 6 rows x 4
 * vectors. Parsing and weight packing in rnn_shape.h.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#define RX_MR 6
#define RX_NV 4
#include "rnn_driver.inc"

ember_status *em_rnn_f32_prepare__avx512(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return rx_prepare(ki, VF_LANES, RX_NV, RX_MR, state, scratch_bytes);
}

void em_rnn_f32_release__avx512(const ember_allocator *al, void *state)
{
    rx_free(al, state);
}

void em_rnn_f32__avx512(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    rx_run(state, in, out, ctx);
}
