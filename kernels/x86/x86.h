/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 kernel table and the prototypes of its entries, generated from kernels.def.
 * Nothing here contains intrinsics: the functions live in *_avx2.c / *_avx512.c units that
 * are compiled with their own ISA flags and are reached only through em_x86_table, whose
 * `isa` bits the registry checks against the CPU before anything in them runs.
 */
#ifndef EMBER_KERNELS_X86_X86_H
#define EMBER_KERNELS_X86_X86_H

#include "ir/fusedconv.h"
#include "plan/kernel.h"

#include <stddef.h>

extern const em_kernel_table em_x86_table;

/* The release of stateless kernels (their prepare leaves *state NULL). */
void em_x86_release_none(const ember_allocator *al, void *state);

#define EM_X86_KERNEL(name, op, dt, isa, prio, prepare, release, run)                              \
    ember_status *prepare(const em_kinfo *ki, void **state, size_t *scratch_bytes);                \
    void release(const ember_allocator *al, void *state);                                          \
    void run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);
#include "kernels.def"
#undef EM_X86_KERNEL

/* FusedConv's activation `act` (Sigmoid, Tanh, SiLU, Gelu or GeluTanh; any other works) in
 * place over n floats: conv_onednn.c runs these after the convolution instead of as oneDNN
 * post-ops, whose exp-based eltwise costs ~0.57 ns an element here (unary_driver.inc). */
void em_conv_act_f32__avx2(em_conv_act act, float *y, size_t n);
void em_conv_act_f32__avx512(em_conv_act act, float *y, size_t n);

/* Whether em_qlinearconv_u8__avx2 (state from its prepare) runs x through its vpmaddubsw path
 * (every activation small enough for the weights' pair sums to stay exact in int16) rather
 * than the int16 one; for tests and probes. */
bool em_qlinearconv_u8_ubs__avx2(const void *state, const em_tensor *x);

#endif /* EMBER_KERNELS_X86_X86_H */
