/* SPDX-License-Identifier: Apache-2.0 */
/* f32 Softmax (last axis) and LayerNormalization (Y only), AVX-512: rows_driver.inc on
 * vmath_avx512.inc. */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx512.inc"

#include "rows_driver.inc"

ember_status *em_rows_f32_prepare__avx512(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return rw_prepare(ki, state, scratch_bytes);
}

void em_rows_f32__avx512(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    rw_run(state, in, out, ctx);
}

void em_rows_f32_release__avx512(const ember_allocator *al, void *state)
{
    em_free(al, state);
}
