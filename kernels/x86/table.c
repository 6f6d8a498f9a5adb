/* SPDX-License-Identifier: Apache-2.0 */
/*
 * em_x86_table, expanded from kernels.def. This unit is compiled without ISA flags and holds
 * no kernel code: the registry filters entries by their `isa` bits before any of them runs.
 */
#include "x86.h"

void em_x86_release_none(const ember_allocator *al, void *state)
{
    (void)al;
    (void)state;
}

/* clang-format off */
static const em_kernel x86_kernels[] = {
#define EM_X86_KERNEL(name, op, dt, isa, prio, prepare, release, run) \
    {#name, EM_OP_##op, EMBER_DTYPE_##dt, EM_DEV_CPU, (isa), (prio), prepare, release, run},
#include "kernels.def"
#undef EM_X86_KERNEL
};
/* clang-format on */

const em_kernel_table em_x86_table = {"x86", x86_kernels,
                                      sizeof x86_kernels / sizeof x86_kernels[0], NULL};
