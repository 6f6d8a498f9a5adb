/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Transpose of 1-, 2-, 4- and 8-byte elements, AVX2: transpose_driver.inc with 8 x 8 register
 * tiles of 4-byte elements and 4 x 4 of 8-byte ones (transpose_tiles_avx2.inc).
 */
#include "x86.h"

#include "transpose_tiles_avx2.inc"

#define TR_T4 8
#define TR_T8 4
#define tr_tile4 tr_tile4x8
#define tr_tile8 tr_tile8x4
#define TR_NAME(base) base##__avx2
#include "transpose_driver.inc"
