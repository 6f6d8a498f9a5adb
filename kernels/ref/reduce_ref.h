/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the reduce family's reference kernels (kernels_reduce.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_REDUCE_REF_H
#define EMBER_KERNELS_REF_REDUCE_REF_H

#include "kernel.h"

#endif
