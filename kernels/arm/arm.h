/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ARM kernel table and the prototypes of its entries, generated from kernels.def, and the
 * few functions the NEON units share. The functions live in *_neon.c units, reached only
 * through em_arm_table, whose `isa` bits the registry checks against the CPU (and
 * EMBER_ISA_MAX) before anything in them runs.
 */
#ifndef EMBER_KERNELS_ARM_ARM_H
#define EMBER_KERNELS_ARM_ARM_H

#include "core/thread.h"
#include "ir/fusedconv.h"
#include "plan/kernel.h"

#include <stddef.h>

extern const em_kernel_table em_arm_table;

#define EM_ARM_KERNEL(name, op, dt, isa, prio, prepare, release, run)                              \
    ember_status *prepare(const em_kinfo *ki, void **state, size_t *scratch_bytes);                \
    void release(const ember_allocator *al, void *state);                                          \
    void run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
#include "kernels.def"
#undef EM_ARM_KERNEL

/* The packed SGEMM of gemm_f32_neon.c for another NEON kernel (the im2col convolution): a
 * plan for *sh (kernels/vec/gemm_shape.h) that reads A, B and C at run time (ki names the node
 * and gives the allocator and thread count), its release, and one product into y, with
 * `scratch` holding the plan's scratch bytes. */
struct em_gemm_shape;
ember_status *em_sgemm_plan__neon(const em_kinfo *ki, const struct em_gemm_shape *sh,
                                  void **state, size_t *scratch_bytes);
void em_sgemm_release__neon(const ember_allocator *al, void *state);
void em_sgemm_run__neon(const void *state, const float *a, const float *b, const float *c,
                        float *y, float *scratch, em_threadpool *pool);

/* FusedConv's activation in place over n floats (kernels/vec/unary_driver.inc). */
void em_conv_act_f32__neon(em_conv_act act, float *y, size_t n);

#endif /* EMBER_KERNELS_ARM_ARM_H */
