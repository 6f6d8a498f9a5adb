/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Add, Sub, Mul, Div with scalar / trailing-block broadcasting, AVX2: binary_driver.inc on
 * vmath_avx2.inc. Below the same-shape Add / Mul kernels in priority. */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#include "kernels/vec/binary_driver.inc"
