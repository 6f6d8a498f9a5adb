/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 BlockedPool, BlockedAffine, BlockedLayerNorm and BlockedSE (runtime/ir/blocked.h), NEON:
 * blocks of 4 (the layout pass's block on ARM: one vector), 8, 12 or 16 channels:
 * kernels/vec/blocked_driver.inc on vmath_neon.inc.
 */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#include "kernels/vec/blocked_driver.inc"
