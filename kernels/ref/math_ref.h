/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the math family's reference kernels (kernels_math.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_MATH_REF_H
#define EMBER_KERNELS_REF_MATH_REF_H

#include "kernel.h"

#endif
