/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 BlockedPool and BlockedAffine (runtime/ir/blocked.h), AVX-512: blocks of 16 channels:
 * blocked_driver.inc on vmath_avx512.inc.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#include "kernels/vec/blocked_driver.inc"
