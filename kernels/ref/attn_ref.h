/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the attn family's reference kernels (kernels_attn.def). */
#ifndef EMBER_KERNELS_REF_ATTN_REF_H
#define EMBER_KERNELS_REF_ATTN_REF_H

#include "kernel.h"

#endif
