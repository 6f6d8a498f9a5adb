/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Sigmoid, Tanh, Clip, HardSigmoid, HardSwish, AVX-512: unary_driver.inc on vmath_avx512.inc. */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#include "unary_driver.inc"

ember_status *em_unary_f32_prepare__avx512(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return un_prepare(ki, state, scratch_bytes);
}

void em_unary_f32_release__avx512(const ember_allocator *al, void *state)
{
    em_free(al, state);
}

void em_unary_f32__avx512(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    un_run(state, in, out, ctx);
}
