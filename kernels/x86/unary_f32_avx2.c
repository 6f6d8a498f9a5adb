/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Sigmoid, Tanh, Clip, HardSigmoid, HardSwish, Gelu, Swish, Mish, AVX2: unary_driver.inc on
 * vmath_avx2.inc. */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#include "kernels/vec/unary_driver.inc"
