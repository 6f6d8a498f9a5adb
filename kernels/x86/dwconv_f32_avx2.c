/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise FusedConv f32 on nChw8c, AVX2: dwconv_driver.inc on vmath_avx2.inc, strips of 8
 * output pixels. Parsing and packing in dwconv_shape.h.
 *
 * Takes only Sigmoid, Tanh and SiLU epilogues. Measured on the Zen 4 here with oneDNN held to
 * AVX2 (DNNL_MAX_CPU_ISA=AVX2), one thread, hot caches, us per conv (ours / oneDNN):
 * with SiLU 32x112x112 3x3 328 / 357, 96x112x112 3x3 s2 254 / 274, 240x28x28 5x5 204 / 225,
 * 1152x7x7 5x5 63 / 130; with Clip (or none) oneDNN is ahead: 96x112x112 s2 140 / 99,
 * 480x14x14 3x3 39 / 31, 576x14x14 s2 19 / 12 (16 ymm registers hold 8 accumulators and a
 * kernel row's 10 input columns only with spills). ConvNeXt's 7x7 (no activation) stays with
 * oneDNN: on the Zen 3 here (1 thread, convnext_tiny's 18 depthwise convs per run, 3 runs each)
 * ours took 5.1-6.3 ms in pieces of DW_R7 = 4 (3, 5, 6: no better; the generic loop before it
 * 15 ms), oneDNN 4.2-4.4 ms, ONNX Runtime 9.6 ms.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#define DW_R 8
#define DW_R7 4
#define DW_CHEAP_EPILOGUES 0
#include "kernels/vec/dwconv_driver.inc"
