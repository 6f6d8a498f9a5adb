/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the train family's reference kernels (kernels_train.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_TRAIN_REF_H
#define EMBER_KERNELS_REF_TRAIN_REF_H

#include "kernel.h"

#endif /* EMBER_KERNELS_REF_TRAIN_REF_H */
