/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 MaxPool, AveragePool (2-D), GlobalMaxPool and GlobalAveragePool on plain NCHW, NEON:
 * kernels/vec/pool_driver.inc on vmath_neon.inc. Parsing and tables in pool_shape.h.
 */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#include "kernels/vec/pool_driver.inc"
