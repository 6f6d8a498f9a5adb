/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The int8 GEMM kernels of qgemm_driver.inc with AVX512-VNNI's vpdpbusd on zmm (Cascade Lake
 * and later Xeons, Ice Lake, Zen 4). Compiled with -mavx512vnni besides the AVX-512 flags
 * (CMakeLists.txt); registered with EM_ISA_AVX512VNNI, so it runs only where CPUID says so.
 */
#include <immintrin.h>

#define QG_SFX(name) name##__avx512vnni
#define QG_V __m512i
#define QG_L 16
#define QG_MR 8 /* 16 accumulators + 2 panel vectors + the broadcast of 32 zmm */
#define QG_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define QG_SET1(v) _mm512_set1_epi32(v)
#define QG_ZERO() _mm512_setzero_si512()
#define QG_STORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define QG_DOT(acc, u, s) _mm512_dpbusd_epi32((acc), (u), (s))

#include "qgemm_driver.inc"
