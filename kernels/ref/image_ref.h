/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the image family's reference kernels (kernels_image.def). */
#ifndef EMBER_KERNELS_REF_IMAGE_REF_H
#define EMBER_KERNELS_REF_IMAGE_REF_H

#include "kernel.h"

#endif /* EMBER_KERNELS_REF_IMAGE_REF_H */
