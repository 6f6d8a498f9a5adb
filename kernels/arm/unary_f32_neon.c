/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Relu, Sigmoid, Tanh, Clip, HardSigmoid, HardSwish, Gelu, Swish, Mish, NEON:
 * kernels/vec/unary_driver.inc on vmath_neon.inc. */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#include "kernels/vec/unary_driver.inc"
