/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 BlockedPool and BlockedAffine (runtime/ir/blocked.h), AVX2: blocks of 8 or 16 channels:
 * blocked_driver.inc on vmath_avx2.inc.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#include "kernels/vec/blocked_driver.inc"
