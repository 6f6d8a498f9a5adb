/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The int8 GEMM kernels of qgemm_driver.inc with AVX-VNNI's vpdpbusd on ymm (the VEX form:
 * Alder Lake and later cores, Zen 5). Compiled with -mavxvnni besides the AVX2 flags
 * (CMakeLists.txt); registered with EM_ISA_AVXVNNI, so it runs only where CPUID says so.
 */
#include <immintrin.h>

#define QG_SFX(name) name##__avxvnni
#define QG_V __m256i
#define QG_L 8
#define QG_MR 6 /* 12 accumulators + 2 panel vectors + the broadcast: 15 of 16 ymm */
#define QG_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define QG_SET1(v) _mm256_set1_epi32(v)
#define QG_ZERO() _mm256_setzero_si256()
#define QG_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define QG_DOT(acc, u, s) _mm256_dpbusd_avx_epi32((acc), (u), (s))

#include "qgemm_driver.inc"
