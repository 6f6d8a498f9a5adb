/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Depthwise FusedConv f32 on the channel-blocked layout of 4 channels (nChw4c, the layout
 * pass's block on ARM), NEON: kernels/vec/dwconv_driver.inc on vmath_neon.inc, strips of up
 * to 8 output pixels (8 accumulators and a kernel row's 10 input columns fit in the 32 vector
 * registers). Every epilogue is taken (there is no other blocked depthwise kernel on ARM).
 * The entry points are named *_blocked__neon: the plain-layout depthwise unit
 * (dwconv_f32_neon.c) has the template's names.
 */
#include "arm.h"

#include <arm_neon.h>
#include <math.h>

#include "vmath_neon.inc"

#undef VF_NAME
#define VF_NAME(base) base##_blocked__neon
#define DW_R 8
#define DW_R7 6
#define DW_CHEAP_EPILOGUES 1
#include "kernels/vec/dwconv_driver.inc"
