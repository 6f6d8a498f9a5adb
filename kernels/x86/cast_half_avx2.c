/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cast between f32 and f16 / bf16 (issue #21): the Casts at the edges of a half-precision
 * model's fp32 compute (runtime/passes/passes_half.c) and the model's own rounding Casts.
 *  f16 -> f32   F16C vcvtph2ps: exact, subnormals included, NaN made quiet;
 *  f32 -> f16   F16C vcvtps2ph with the rounding in the immediate (nearest even, whatever
 *               MXCSR says): overflow to +-inf, NaN made quiet keeping the payload's top bits;
 *  bf16 -> f32  the bits shifted into the high half (exact; a NaN made quiet);
 *  f32 -> bf16  round to nearest even on the bits (x + 0x7fff + lsb) >> 16; NaN -> its top
 *               bits with the quiet bit set (a carry would turn a NaN into inf or the sign).
 * The same bits as runtime/core/lowp.c's scalar conversions and kernels/ref's Cast (through
 * double, math_ew_ref.c; tests/kernels/test_x86_cast.c checks all 65536 half patterns and
 * float edge cases). Every
 * other Cast is declined (the reference runs it). Tails go through an 8-element buffer so
 * that every element takes the vector path. A later AVX512-FP16 / AVX512-BF16 build adds
 * 16-wide rows beside these (vcvtneps2bf16 rounds the same way).
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/status.h"

#include <immintrin.h>
#include <string.h>

typedef enum cast_dir { F16_F32 = 0, BF16_F32, F32_F16, F32_BF16 } cast_dir;

typedef struct cast_state {
    cast_dir dir;
} cast_state;

ember_status *em_cast_half_prepare__avx2(const em_kinfo *ki, void **state,
                                         size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    ember_dtype a = ki->in[0].dtype, b = ki->out[0].dtype;
    cast_dir dir;
    if (a == EMBER_DTYPE_F16 && b == EMBER_DTYPE_F32) {
        dir = F16_F32;
    } else if (a == EMBER_DTYPE_BF16 && b == EMBER_DTYPE_F32) {
        dir = BF16_F32;
    } else if (a == EMBER_DTYPE_F32 && b == EMBER_DTYPE_F16) {
        dir = F32_F16;
    } else if (a == EMBER_DTYPE_F32 && b == EMBER_DTYPE_BF16) {
        dir = F32_BF16;
    } else {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: Cast: f32 <-> f16 / bf16 only",
                             ki->node->name);
    }
    /* Cast-19's saturate applies to float8 only; round_mode (Cast-25) to float8e8m0 */
    cast_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->dir = dir;
    *state = s;
    return NULL;
}

void em_cast_half_release__avx2(const ember_allocator *al, void *state)
{
    em_free(al, state);
}

static inline __m128i bf16_round8(__m256 v)
{
    __m256i x = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb), 16);
    __m256i nanv = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
    __m256i isnan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                       _mm256_set1_epi32(0x7f800000));
    r = _mm256_blendv_epi8(r, nanv, isnan);
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

/* 8 elements from s to d (element sizes by dir). */
static inline void cast8(cast_dir dir, const void *s, void *d)
{
    switch (dir) {
    case F16_F32:
        _mm256_storeu_ps(d, _mm256_cvtph_ps(_mm_loadu_si128(s)));
        break;
    case BF16_F32: {
        __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(s)), 16);
        __m256i isnan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x7f800000));
        x = _mm256_or_si256(x, _mm256_and_si256(isnan, _mm256_set1_epi32(0x400000)));
        _mm256_storeu_si256(d, x);
        break;
    }
    case F32_F16:
        _mm_storeu_si128(d, _mm256_cvtps_ph(_mm256_loadu_ps(s),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        break;
    case F32_BF16:
        _mm_storeu_si128(d, bf16_round8(_mm256_loadu_ps(s)));
        break;
    }
}

typedef struct cast_job {
    cast_dir dir;
    const char *src;
    char *dst;
    size_t isz, osz;
    int64_t n;
} cast_job;

#define CAST_GRAIN 16384

static void cast_range(void *arg, int64_t lo, int64_t hi)
{
    const cast_job *j = arg;
    int64_t b = lo * CAST_GRAIN, e = hi * CAST_GRAIN < j->n ? hi * CAST_GRAIN : j->n, i = b;
    for (; i + 8 <= e; i += 8) {
        cast8(j->dir, j->src + (size_t)i * j->isz, j->dst + (size_t)i * j->osz);
    }
    if (i < e) {
        _Alignas(32) char in[32] = {0}, out[32];
        size_t k = (size_t)(e - i);
        memcpy(in, j->src + (size_t)i * j->isz, k * j->isz);
        cast8(j->dir, in, out);
        memcpy(j->dst + (size_t)i * j->osz, out, k * j->osz);
    }
}

void em_cast_half__avx2(const void *state, const em_tensor *in, em_tensor *out,
                        const em_kctx *ctx)
{
    const cast_state *s = state;
    cast_job j = {s->dir, in[0].data, out[0].data, s->dir <= BF16_F32 ? 2 : 4,
                  s->dir <= BF16_F32 ? 4 : 2, em_tensor_numel(&in[0])};
    int64_t chunks = (j.n + CAST_GRAIN - 1) / CAST_GRAIN;
    if (chunks > 0) {
        em_parallel_for(ctx->pool, chunks, 1, cast_range, &j);
    }
}
