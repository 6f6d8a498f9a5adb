/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the loss family's reference kernels (kernels_loss.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_LOSS_REF_H
#define EMBER_KERNELS_REF_LOSS_REF_H

#include "kernel.h"

#endif /* EMBER_KERNELS_REF_LOSS_REF_H */
