/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 MaxPool, AveragePool (2-D), GlobalMaxPool and GlobalAveragePool, AVX2: pool_driver.inc
 * on vmath_avx2.inc. Parsing and tables in pool_shape.h.
 */
#include "x86.h"

#include <immintrin.h>
#include <math.h>

#include "vmath_avx2.inc"

#include "pool_driver.inc"

ember_status *em_pool_f32_prepare__avx2(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return px_prepare(ki, state, scratch_bytes);
}

void em_pool_f32_release__avx2(const ember_allocator *al, void *state)
{
    px_free(al, state);
}

void em_pool_f32__avx2(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    px_run(state, in, out, ctx);
}
