/* SPDX-License-Identifier: Apache-2.0 */
/*
 * em_arm_table, expanded from kernels.def. Holds no kernel code: the registry filters entries
 * by their `isa` bits before any of them runs.
 */
#include "arm.h"

/* clang-format off */
static const em_kernel arm_kernels[] = {
#define EM_ARM_KERNEL(name, op, dt, isa, prio, prepare, release, run) \
    {#name, EM_OP_##op, EMBER_DTYPE_##dt, EM_DEV_CPU, (isa), (prio), prepare, release, run},
#include "kernels.def"
#undef EM_ARM_KERNEL
};
/* clang-format on */

const em_kernel_table em_arm_table = {"arm", arm_kernels,
                                      sizeof arm_kernels / sizeof arm_kernels[0], NULL};
