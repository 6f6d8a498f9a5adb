/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CPU features: the EM_ISA_* bits kernels require and the planner matches (plan/kernel.h),
 * detected once per process (cpu.c).
 */
#ifndef EMBER_CORE_CPU_H
#define EMBER_CORE_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU features, detected once (cpu.c). */
enum {
    EM_ISA_SSE42 = 1u << 0,
    EM_ISA_AVX = 1u << 1,
    EM_ISA_AVX2 = 1u << 2,
    EM_ISA_FMA = 1u << 3,
    EM_ISA_F16C = 1u << 4,
    EM_ISA_AVX512F = 1u << 5,
    EM_ISA_AVX512BW = 1u << 6,
    EM_ISA_AVX512DQ = 1u << 7,
    EM_ISA_AVX512VL = 1u << 8,
    EM_ISA_AVX512VNNI = 1u << 9,
    EM_ISA_AVX512BF16 = 1u << 10,
    EM_ISA_AVX512FP16 = 1u << 11,
    EM_ISA_AVXVNNI = 1u << 12,
    EM_ISA_AMX = 1u << 13, /* AMX-TILE + AMX-INT8, OS state and permission (cpu.c) */
    EM_ISA_PCLMUL = 1u << 14,  /* PCLMULQDQ (core/crc32.c) */
    EM_ISA_VPCLMUL = 1u << 15, /* VPCLMULQDQ on 256-bit registers, with AVX2 */
    EM_ISA_NEON = 1u << 16,
    EM_ISA_NEON_DOTPROD = 1u << 17,
    EM_ISA_NEON_FP16 = 1u << 18,
    EM_ISA_NEON_I8MM = 1u << 19, /* SMMLA/UMMLA/USMMLA (AT_HWCAP2 i8mm) */
    EM_ISA_SVE = 1u << 20,       /* reported only: no SVE kernel yet */
    /* AMX-BF16 tiles (TDPBF16PS), with AMX's OS state and permission (cpu.c). Reported for the
     * half-precision kernels to come (issue #21); no kernel requires it yet. */
    EM_ISA_AMX_BF16 = 1u << 21
};
#define EM_ISA_AVX2_SET (EM_ISA_AVX | EM_ISA_AVX2 | EM_ISA_FMA | EM_ISA_F16C)
#define EM_ISA_AVX512_SET \
    (EM_ISA_AVX2_SET | EM_ISA_AVX512F | EM_ISA_AVX512BW | EM_ISA_AVX512DQ | EM_ISA_AVX512VL)

/* Features detected on this CPU (cpu.c), usable now. The session caps them with
 * EMBER_ISA_MAX and ember_session_options_set_isa_max(). */
uint64_t em_cpu_features(void);
/* em_cpu_features() capped by the environment variable EMBER_ISA_MAX when it names a cap
 * em_isa_cap_parse knows (an unknown name caps nothing here; sessions refuse it): for code
 * outside sessions, such as the loaders' checksums (core/crc32.h). */
uint64_t em_cpu_features_env(void);
/* Parses "scalar" | "avx2" | "avx512" | "native" to a feature mask; false when unknown. */
bool em_isa_cap_parse(const char *name, uint64_t *mask);
/* Writes the feature names as a comma list ("avx2,fma,...", "scalar" for 0) into buf and
 * returns buf; names that do not fit whole are dropped; always NUL-terminated. */
const char *em_isa_list(uint64_t features, char *buf, size_t cap);

#endif /* EMBER_CORE_CPU_H */
