/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Add, Sub, Mul, Div, same shape or with scalar / trailing-block / per-channel
 * broadcasting, NEON: kernels/vec/binary_driver.inc on vmath_neon.inc. */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#include "kernels/vec/binary_driver.inc"
