/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the nn family's reference kernels (kernels_nn.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_NN_REF_H
#define EMBER_KERNELS_REF_NN_REF_H

#include "kernel.h"

#endif /* EMBER_KERNELS_REF_NN_REF_H */
