/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the text family's reference kernels (kernels_text.def). */
#ifndef EMBER_KERNELS_REF_TEXT_REF_H
#define EMBER_KERNELS_REF_TEXT_REF_H

#include "kernel.h"

#endif
