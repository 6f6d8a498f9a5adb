/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The int8 GEMM kernels of qgemm_driver.inc with vpdpbusd emulated exactly on AVX2: each
 * 32-bit lane's 4 u8 x s8 products are split into the even and odd bytes, zero-extended (u8)
 * and sign-extended (s8) to int16, multiplied and pair-summed by two vpmaddwd (|products|
 * <= 255 * 128, so the pair sums are exact) and added: the same wrapping int32 sum as
 * vpdpbusd. This runs the very packing, blocking and epilogue code of the AVX-VNNI and
 * AVX512-VNNI variants on any AVX2 CPU, where the tests check it against the reference.
 */
#include <immintrin.h>

static inline __m256i qg_dot_emu(__m256i acc, __m256i u, __m256i s)
{
    const __m256i lo = _mm256_set1_epi16(0x00ff);
    __m256i ue = _mm256_and_si256(u, lo), uo = _mm256_srli_epi16(u, 8);
    __m256i se = _mm256_srai_epi16(_mm256_slli_epi16(s, 8), 8), so = _mm256_srai_epi16(s, 8);
    return _mm256_add_epi32(acc,
                            _mm256_add_epi32(_mm256_madd_epi16(ue, se), _mm256_madd_epi16(uo, so)));
}

#define QG_SFX(name) name##__avx2
#define QG_V __m256i
#define QG_L 8
#define QG_MR 4
#define QG_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define QG_SET1(v) _mm256_set1_epi32(v)
#define QG_ZERO() _mm256_setzero_si256()
#define QG_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define QG_DOT(acc, u, s) qg_dot_emu((acc), (u), (s))

#include "qgemm_driver.inc"
