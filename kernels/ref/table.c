/* SPDX-License-Identifier: Apache-2.0 */
/* The reference kernel table, expanded from kernels.def: portable (isa 0), priority 0, CPU. */
#include "ref.h"

#include <stddef.h>

static const em_kernel ref_kernels[] = {
#define EM_KERNEL(name, op, dt, prepare, release, run)                                             \
    {#name, EM_OP_##op, EMBER_DTYPE_##dt, EM_DEV_CPU, 0, 0, prepare, release, run},
#include "kernels.def"
#undef EM_KERNEL
};

const em_kernel_table em_ref_table = {"ref", ref_kernels,
                                      sizeof ref_kernels / sizeof ref_kernels[0], NULL};
