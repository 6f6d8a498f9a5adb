/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the dyn family's reference kernels (kernels_dyn.def). Included by ref.h. */
#ifndef EMBER_KERNELS_REF_DYN_REF_H
#define EMBER_KERNELS_REF_DYN_REF_H

#include "kernel.h"

#endif /* EMBER_KERNELS_REF_DYN_REF_H */
