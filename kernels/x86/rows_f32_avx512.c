/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Softmax (last axis), LayerNormalization (Y only) and RMSNormalization, AVX-512:
 * rows_driver.inc on vmath_avx512.inc. */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#include "rows_driver.inc"
