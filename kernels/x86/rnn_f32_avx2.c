/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 RNN, GRU and LSTM, AVX2: rnn_driver.inc on vmath_avx2.inc, micro-tiles of 3 rows x 4
 * vectors. Parsing and weight packing in rnn_shape.h.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#define RX_MR 3
#define RX_NV 4
#include "rnn_driver.inc"
