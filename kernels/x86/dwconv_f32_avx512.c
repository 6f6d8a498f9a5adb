/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise FusedConv f32 on nChw16c, AVX-512: dwconv_driver.inc on vmath_avx512.inc, strips
 * of 8 output pixels. Parsing and packing in dwconv_shape.h.
 *
 * Takes every epilogue: measured faster than oneDNN (one thread, hot caches, us per conv, ours /
 * oneDNN) with SiLU on every depthwise conv of efficientnet_b0 (32x112x112 3x3 173 / 262 ...
 * 1152x7x7 5x5 42 / 54) and with Clip(0, 6) or none on those of mobilenet_v2 (32x112x112 78 / 110,
 * 480x14x14 23 / 25), ties on the 3x3 stride-2 ones (576x14x14 10.1 / 10.0, 96x112x112 98 / 100).
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#define DW_R 8
#define DW_CHEAP_EPILOGUES 1
#include "kernels/vec/dwconv_driver.inc"
