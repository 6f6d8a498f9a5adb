/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the tensor family's reference kernels (kernels_tensor.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_TENSOR_REF_H
#define EMBER_KERNELS_REF_TENSOR_REF_H

#include "kernel.h"

#endif
