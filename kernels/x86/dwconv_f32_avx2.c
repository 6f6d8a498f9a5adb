/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise FusedConv f32 on nChw8c, AVX2: dwconv_driver.inc on vmath_avx2.inc, strips of 8
 * output pixels. Parsing and packing in dwconv_shape.h.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#define DW_R 8
#include "dwconv_driver.inc"
