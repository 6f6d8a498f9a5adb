/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 BlockedPool and BlockedAffine (runtime/blocked.h), AVX-512: blocks of 16 channels:
 * blocked_driver.inc on vmath_avx512.inc.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

/* max(a, b), a NaN of either operand kept (vrangeps, imm 1: max, sign from the comparison) */
#define BK_MAX_NAN(a, b) _mm512_range_ps((a), (b), 1)

#include "blocked_driver.inc"
