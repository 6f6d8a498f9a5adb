/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32 (crc32.h). The folding paths keep the running remainder as 128-bit blocks and fold
 * each block forward over a distance D with two carry-less multiplications by x^(D+32) and
 * x^(D-32) mod P (bit-reflected, times x: the 33-bit constants below), then fold the blocks
 * together, reduce 128 -> 64 bits and Barrett-reduce to 32 bits. The constants for D = 128
 * and 512, x^64 and Barrett's are Intel's (zlib/Chromium crc32_simd.c, Linux
 * crc32-pclmul_asm.S); those for D = 256 and 1024 come from the same formula
 * (bitrev32(x^n mod P) << 1); tests/runtime/test_crc32.c checks every path against a bitwise
 * CRC. The folding paths take whole 16-byte blocks of a buffer of 64 bytes or more (256 for
 * the 256-bit path) and leave the tail to slice-by-8.
 */
#include "core/crc32.h"

#include "core/cpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static const uint32_t tab[8][256] = {
#include "crc32_table.inc"
};

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Portable: eight bytes per step through eight tables (8 KB). */
static uint32_t crc_slice8(uint32_t crc, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint32_t c = ~crc;
    for (; n > 0 && ((uintptr_t)p & 7) != 0; n--) {
        c = tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    }
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = rd32(p) ^ c, hi = rd32(p + 4);
        c = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
            tab[4][lo >> 24] ^ tab[3][hi & 0xff] ^ tab[2][(hi >> 8) & 0xff] ^
            tab[1][(hi >> 16) & 0xff] ^ tab[0][hi >> 24];
    }
    for (; n > 0; n--) {
        c = tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    }
    return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_X86 1
#include <immintrin.h>

/* x^(D+32), x^(D-32) mod P for the fold distances D, x^64 mod P, P and Barrett's mu. */
#define K128_LO 0x1751997d0ll /* D = 128: one block onto the next */
#define K128_HI 0x0ccaa009ell
#define K256_LO 0x0f1da05aall /* D = 256: one 256-bit accumulator onto the next */
#define K256_HI 0x15a546366ll
#define K512_LO 0x154442bd4ll /* D = 512: four 128-bit accumulators */
#define K512_HI 0x1c6e41596ll
#define K1024_LO 0x1e88ef372ll /* D = 1024: four 256-bit accumulators */
#define K1024_HI 0x14a7fe880ll
#define K64 0x163cd6124ll
#define POLY 0x1db710641ll
#define MU 0x1f7011641ll

#define TARGET_PCLMUL __attribute__((target("pclmul,sse4.1")))
#define TARGET_VPCLMUL __attribute__((target("pclmul,sse4.1,avx2,vpclmulqdq")))

/* x * x^(D+32) (its low half) + x * x^(D-32) (its high half): x moved D bits on. */
static inline __attribute__((always_inline)) TARGET_PCLMUL __m128i fold128(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* Folds the remaining whole blocks of p[0..n) (n a multiple of 16) into x, then reduces x to
 * the 32-bit CRC register. */
static inline __attribute__((always_inline)) TARGET_PCLMUL uint32_t
fold_finish(__m128i x, const unsigned char *p, size_t n)
{
    __m128i k = _mm_set_epi64x(K128_HI, K128_LO);
    for (; n >= 16; n -= 16, p += 16) {
        x = _mm_xor_si128(fold128(x, k), _mm_loadu_si128((const __m128i *)p));
    }
    /* 128 -> 64 bits (crc32_simd.c's steps): the first 64 bits times x^96 onto the rest, then
     * the first 32 bits of that times x^64. */
    const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i t = _mm_clmulepi64_si128(x, k, 0x10);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
    t = _mm_srli_si128(x, 4);
    x = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), _mm_set_epi64x(0, K64), 0x00);
    x = _mm_xor_si128(x, t);
    /* Barrett: 64 -> 32 bits. */
    const __m128i pm = _mm_set_epi64x(MU, POLY);
    t = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), pm, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), pm, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

/* The register (crc inverted, as zlib keeps it) after p[0..n), n >= 64 and a multiple of 16. */
static TARGET_PCLMUL uint32_t fold_pclmul(uint32_t reg, const unsigned char *p, size_t n)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)p);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)reg));
    const __m128i k = _mm_set_epi64x(K512_HI, K512_LO);
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        x0 = _mm_xor_si128(fold128(x0, k), _mm_loadu_si128((const __m128i *)p));
        x1 = _mm_xor_si128(fold128(x1, k), _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = _mm_xor_si128(fold128(x2, k), _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = _mm_xor_si128(fold128(x3, k), _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    const __m128i k1 = _mm_set_epi64x(K128_HI, K128_LO);
    __m128i x = _mm_xor_si128(fold128(x0, k1), x1);
    x = _mm_xor_si128(fold128(x, k1), x2);
    x = _mm_xor_si128(fold128(x, k1), x3);
    return fold_finish(x, p, n);
}

static TARGET_PCLMUL uint32_t crc_pclmul(uint32_t crc, const void *data, size_t n)
{
    const unsigned char *p = data;
    if (n >= 64) {
        size_t m = n & ~(size_t)15;
        crc = ~fold_pclmul(~crc, p, m);
        p += m;
        n -= m;
    }
    return crc_slice8(crc, p, n);
}

static inline __attribute__((always_inline)) TARGET_VPCLMUL __m256i fold256(__m256i x, __m256i k)
{
    return _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
                            _mm256_clmulepi64_epi128(x, k, 0x11));
}

/* As fold_pclmul with four 256-bit accumulators (128 bytes a step); n >= 256. */
static TARGET_VPCLMUL uint32_t fold_vpclmul(uint32_t reg, const unsigned char *p, size_t n)
{
    __m256i y0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i y1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i y2 = _mm256_loadu_si256((const __m256i *)(p + 64));
    __m256i y3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    y0 = _mm256_xor_si256(y0, _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)reg)));
    const __m256i k = _mm256_set_epi64x(K1024_HI, K1024_LO, K1024_HI, K1024_LO);
    for (p += 128, n -= 128; n >= 128; p += 128, n -= 128) {
        y0 = _mm256_xor_si256(fold256(y0, k), _mm256_loadu_si256((const __m256i *)p));
        y1 = _mm256_xor_si256(fold256(y1, k), _mm256_loadu_si256((const __m256i *)(p + 32)));
        y2 = _mm256_xor_si256(fold256(y2, k), _mm256_loadu_si256((const __m256i *)(p + 64)));
        y3 = _mm256_xor_si256(fold256(y3, k), _mm256_loadu_si256((const __m256i *)(p + 96)));
    }
    const __m256i k2 = _mm256_set_epi64x(K256_HI, K256_LO, K256_HI, K256_LO);
    __m256i y = _mm256_xor_si256(fold256(y0, k2), y1);
    y = _mm256_xor_si256(fold256(y, k2), y2);
    y = _mm256_xor_si256(fold256(y, k2), y3);
    __m128i x = _mm_xor_si128(fold128(_mm256_castsi256_si128(y), _mm_set_epi64x(K128_HI, K128_LO)),
                              _mm256_extracti128_si256(y, 1));
    return fold_finish(x, p, n);
}

static TARGET_VPCLMUL uint32_t crc_vpclmul(uint32_t crc, const void *data, size_t n)
{
    if (n < 256) {
        return crc_pclmul(crc, data, n);
    }
    const unsigned char *p = data;
    size_t m = n & ~(size_t)15;
    crc = ~fold_vpclmul(~crc, p, m);
    return crc_slice8(crc, p + m, n - m);
}
#endif /* x86-64 */

em_crc32_fn em_crc32_impl(uint64_t isa)
{
#ifdef CRC_X86
    if ((isa & (EM_ISA_VPCLMUL | EM_ISA_AVX2)) == (EM_ISA_VPCLMUL | EM_ISA_AVX2)) {
        return crc_vpclmul;
    }
    if ((isa & (EM_ISA_PCLMUL | EM_ISA_SSE42)) == (EM_ISA_PCLMUL | EM_ISA_SSE42)) {
        return crc_pclmul;
    }
#else
    (void)isa;
#endif
    return crc_slice8;
}

const char *em_crc32_impl_name(uint64_t isa)
{
    em_crc32_fn f = em_crc32_impl(isa);
#ifdef CRC_X86
    if (f == crc_vpclmul) {
        return "vpclmulqdq";
    }
    if (f == crc_pclmul) {
        return "pclmulqdq";
    }
#endif
    (void)f;
    return "slice-by-8";
}

uint32_t em_crc32(uint32_t crc, const void *data, size_t n)
{
    return em_crc32_impl(em_cpu_features_env())(crc, data, n);
}

/* ---- combining (zlib's crc32_combine, by multiplication modulo P) ---- */

/* a * b modulo P, both bit-reflected (x^0 is bit 31). */
static uint32_t multmodp(uint32_t a, uint32_t b)
{
    uint32_t m = UINT32_C(1) << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0) {
                break;
            }
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ UINT32_C(0xedb88320) : b >> 1;
    }
    return p;
}

uint32_t em_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    /* x^(8 len_b) mod P by squaring: sq = x^(2^k), starting from x^8 (k = 3). */
    uint32_t sq = UINT32_C(1) << 23, f = UINT32_C(1) << 31; /* x^8, 1 */
    for (; len_b != 0; len_b >>= 1) {
        if (len_b & 1) {
            f = multmodp(sq, f);
        }
        sq = multmodp(sq, sq);
    }
    return multmodp(f, crc_a) ^ crc_b;
}
