/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Add, Sub, Mul, Div with scalar / trailing-block broadcasting, AVX2: binary_driver.inc on
 * vmath_avx2.inc. Below the same-shape Add / Mul kernels in priority. */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#include "binary_driver.inc"

ember_status *em_binary_f32_prepare__avx2(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return bn_prepare(ki, state, scratch_bytes);
}

void em_binary_f32_release__avx2(const ember_allocator *al, void *state)
{
    em_free(al, state);
}

void em_binary_f32__avx2(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    bn_run(state, in, out, ctx);
}
