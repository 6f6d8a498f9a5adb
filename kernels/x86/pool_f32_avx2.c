/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 MaxPool, AveragePool (2-D), GlobalMaxPool and GlobalAveragePool, AVX2: pool_driver.inc
 * on vmath_avx2.inc. Parsing and tables in pool_shape.h.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#include "kernels/vec/pool_driver.inc"
