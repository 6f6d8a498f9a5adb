/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CPU feature detection, once per process, into the EM_ISA_* mask of cpu.h.
 *
 * x86-64 follows ONNX Runtime's MLAS (mlas/lib/platform.cpp): a feature counts only when
 * CPUID reports it AND the OS saves the registers it uses, as XCR0 (read with XGETBV) says:
 * the AVX family needs XMM|YMM state (bits 1, 2); AVX-512 also opmask|ZMM_Hi256|Hi16_ZMM
 * (bits 5, 6, 7); AMX needs XTILECFG|XTILEDATA (bits 17, 18) and, on Linux, the per-process
 * permission of arch_prctl(ARCH_REQ_XCOMP_PERM). Unlike MLAS, detection only asks whether the
 * permission is already held (ARCH_GET_XCOMP_PERM): requesting it enlarges the process's
 * signal frames, a side effect that belongs to the first AMX kernel, not to detection. As in MLAS, AVX-512 and AMX are looked at
 * only when AVX2 and FMA are usable, so the mask is closed downwards (AVX-512F implies AVX2).
 * aarch64 Linux reads getauxval(AT_HWCAP) and getauxval(AT_HWCAP2). Anywhere else: 0 (portable kernels only).
 * EMBER_ISA_MAX is not applied by em_cpu_features: the planner caps the mask with
 * em_isa_cap_parse(); em_cpu_features_env applies it for code outside sessions (checksums).
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* syscall(), for arch_prctl */
#endif
#include "core/cpu.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#if defined(__x86_64__)

/* CPUID leaf 1, ECX */
#define C1_PCLMUL (1u << 1)
#define C1_FMA (1u << 12)
#define C1_SSE42 (1u << 20)
#define C1_OSXSAVE (1u << 27)
#define C1_AVX (1u << 28)
#define C1_F16C (1u << 29)
/* leaf 7 subleaf 0, EBX / ECX / EDX */
#define C7B_AVX2 (1u << 5)
#define C7B_AVX512F (1u << 16)
#define C7B_AVX512DQ (1u << 17)
#define C7B_AVX512BW (1u << 30)
#define C7B_AVX512VL (1u << 31)
#define C7C_VPCLMUL (1u << 10)
#define C7C_AVX512VNNI (1u << 11)
#define C7D_AVX512FP16 (1u << 23)
#define C7D_AMX_TILE (1u << 24)
#define C7D_AMX_INT8 (1u << 25)
#define C7D_AMX_BF16 (1u << 22)
/* leaf 7 subleaf 1, EAX */
#define C71A_AVXVNNI (1u << 4)
#define C71A_AVX512BF16 (1u << 5)
/* XCR0 state components */
#define XCR0_AVX UINT64_C(0x6)     /* XMM | YMM */
#define XCR0_AVX512 UINT64_C(0xe0) /* opmask | ZMM_Hi256 | Hi16_ZMM */
#define XCR0_AMX UINT64_C(0x60000) /* XTILECFG | XTILEDATA */

/* XGETBV(0). Only called once CPUID says OSXSAVE, so the instruction exists. Inline asm
 * rather than _xgetbv() so that this unit needs no -mxsave. */
static uint64_t read_xcr0(void)
{
    uint32_t eax, edx;
    __asm__ __volatile__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (uint64_t)edx << 32 | eax;
}

/* Linux only hands out AMX tile state to processes that asked for it; this does not ask. */
static bool amx_permitted(void)
{
#if defined(__linux__)
    enum { ARCH_GET_XCOMP_PERM = 0x1022 };
    unsigned long mask = 0;
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &mask) != 0) {
        return false;
    }
    return (mask & XCR0_AMX) == XCR0_AMX;
#else
    return true;
#endif
}

/* The AVX-512 family, given that AVX2 and FMA are usable. */
static uint64_t detect_avx512(uint32_t b7, uint32_t c7, uint32_t d7, uint32_t a71, uint64_t xcr0)
{
    uint64_t f = 0;
    if ((b7 & C7B_AVX512F) == 0 || (xcr0 & XCR0_AVX512) != XCR0_AVX512) {
        return 0;
    }
    f |= EM_ISA_AVX512F;
    f |= (b7 & C7B_AVX512BW) ? EM_ISA_AVX512BW : 0;
    f |= (b7 & C7B_AVX512DQ) ? EM_ISA_AVX512DQ : 0;
    f |= (b7 & C7B_AVX512VL) ? EM_ISA_AVX512VL : 0;
    f |= (c7 & C7C_AVX512VNNI) ? EM_ISA_AVX512VNNI : 0;
    f |= (a71 & C71A_AVX512BF16) ? EM_ISA_AVX512BF16 : 0;
    f |= (d7 & C7D_AVX512FP16) ? EM_ISA_AVX512FP16 : 0;
    return f;
}

static uint64_t detect(void)
{
    uint32_t a, b, c, d;
    uint64_t f = 0;
    if (!__get_cpuid_count(1, 0, &a, &b, &c, &d)) {
        return 0;
    }
    const uint32_t c1 = c;
    f |= (c1 & C1_SSE42) ? EM_ISA_SSE42 : 0;
    f |= (c1 & C1_PCLMUL) ? EM_ISA_PCLMUL : 0;
    if ((c1 & (C1_OSXSAVE | C1_AVX)) != (C1_OSXSAVE | C1_AVX)) {
        return f;
    }
    const uint64_t xcr0 = read_xcr0();
    if ((xcr0 & XCR0_AVX) != XCR0_AVX) {
        return f;
    }
    f |= EM_ISA_AVX;
    f |= (c1 & C1_FMA) ? EM_ISA_FMA : 0;
    f |= (c1 & C1_F16C) ? EM_ISA_F16C : 0;

    uint32_t b7 = 0, c7 = 0, d7 = 0, a71 = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        b7 = b;
        c7 = c;
        d7 = d;
        if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) {
            a71 = a;
        }
    }
    if ((b7 & C7B_AVX2) == 0 || (c1 & C1_FMA) == 0) {
        return f;
    }
    f |= EM_ISA_AVX2;
    f |= (a71 & C71A_AVXVNNI) ? EM_ISA_AVXVNNI : 0;
    f |= (c7 & C7C_VPCLMUL) != 0 && (c1 & C1_PCLMUL) != 0 ? EM_ISA_VPCLMUL : 0;
    f |= detect_avx512(b7, c7, d7, a71, xcr0);
    if ((d7 & (C7D_AMX_TILE | C7D_AMX_INT8)) == (C7D_AMX_TILE | C7D_AMX_INT8) &&
        (xcr0 & XCR0_AMX) == XCR0_AMX && amx_permitted()) {
        f |= EM_ISA_AMX;
    }
    if ((d7 & (C7D_AMX_TILE | C7D_AMX_BF16)) == (C7D_AMX_TILE | C7D_AMX_BF16) &&
        (xcr0 & XCR0_AMX) == XCR0_AMX && amx_permitted()) {
        f |= EM_ISA_AMX_BF16;
    }
    return f;
}

#elif defined(__aarch64__) && defined(__linux__)

/* asm/hwcap.h values, spelled out for old headers. */
#define HWCAP_BIT_ASIMD (1ul << 1)
#define HWCAP_BIT_FPHP (1ul << 9)
#define HWCAP_BIT_ASIMDHP (1ul << 10)
#define HWCAP_BIT_ASIMDDP (1ul << 20)
#define HWCAP_BIT_SVE (1ul << 22)
#define HWCAP2_BIT_I8MM (1ul << 13)
#ifndef AT_HWCAP2
#define AT_HWCAP2 26
#endif

static uint64_t detect(void)
{
    unsigned long hw = getauxval(AT_HWCAP);
    uint64_t f = 0;
    if ((hw & HWCAP_BIT_ASIMD) == 0) {
        return 0;
    }
    f |= EM_ISA_NEON;
    f |= (hw & HWCAP_BIT_ASIMDDP) ? EM_ISA_NEON_DOTPROD : 0;
    /* fp16 kernels need both scalar (fphp) and vector (asimdhp) half-precision arithmetic. */
    if ((hw & (HWCAP_BIT_FPHP | HWCAP_BIT_ASIMDHP)) == (HWCAP_BIT_FPHP | HWCAP_BIT_ASIMDHP)) {
        f |= EM_ISA_NEON_FP16;
    }
    f |= (getauxval(AT_HWCAP2) & HWCAP2_BIT_I8MM) ? EM_ISA_NEON_I8MM : 0;
    f |= (hw & HWCAP_BIT_SVE) ? EM_ISA_SVE : 0;
    return f;
}

#else

static uint64_t detect(void)
{
    return 0;
}

#endif

/* Bit 63 (never an EM_ISA_* bit) marks the cache as filled, so "no features" is cached too.
 * Two threads racing on the first call may both run detect(); it is idempotent and they
 * store the same value. */
#define FEATURES_DETECTED (UINT64_C(1) << 63)
static _Atomic uint64_t g_features;

uint64_t em_cpu_features(void)
{
    uint64_t v = atomic_load_explicit(&g_features, memory_order_acquire);
    if ((v & FEATURES_DETECTED) == 0) {
        v = detect() | FEATURES_DETECTED;
        atomic_store_explicit(&g_features, v, memory_order_release);
    }
    return v & ~FEATURES_DETECTED;
}

uint64_t em_cpu_features_env(void)
{
    uint64_t f = em_cpu_features(), cap = UINT64_MAX;
    const char *env = getenv("EMBER_ISA_MAX");
    if (env != NULL && em_isa_cap_parse(env, &cap)) {
        f &= cap;
    }
    return f;
}

/* clang-format off */
static const struct {
    const char *name;
    uint64_t mask;
} isa_caps[] = {
    {"scalar", 0},
    {"avx2",   EM_ISA_SSE42 | EM_ISA_AVX2_SET | EM_ISA_PCLMUL | EM_ISA_VPCLMUL},
    /* Everything x86 below AMX: AVX-VNNI is the VEX form of an AVX-512 VNNI instruction. */
    {"avx512", EM_ISA_SSE42 | EM_ISA_AVX512_SET | EM_ISA_AVX512VNNI | EM_ISA_AVX512BF16 |
               EM_ISA_AVX512FP16 | EM_ISA_AVXVNNI | EM_ISA_PCLMUL | EM_ISA_VPCLMUL},
    /* AArch64's Advanced SIMD alone: the NEON units, without the dot-product, fp16, i8mm or
     * SVE extensions (kernels/arm). */
    {"neon",   EM_ISA_NEON},
    {"native", UINT64_MAX},
};

/* In the order em_isa_list prints them. */
static const struct {
    uint64_t bit;
    const char *name;
} isa_names[] = {
    {EM_ISA_SSE42, "sse4.2"},          {EM_ISA_AVX, "avx"},
    {EM_ISA_AVX2, "avx2"},             {EM_ISA_FMA, "fma"},
    {EM_ISA_F16C, "f16c"},             {EM_ISA_AVX512F, "avx512f"},
    {EM_ISA_AVX512BW, "avx512bw"},     {EM_ISA_AVX512DQ, "avx512dq"},
    {EM_ISA_AVX512VL, "avx512vl"},     {EM_ISA_AVX512VNNI, "avx512vnni"},
    {EM_ISA_AVX512BF16, "avx512bf16"}, {EM_ISA_AVX512FP16, "avx512fp16"},
    {EM_ISA_AVXVNNI, "avxvnni"},       {EM_ISA_AMX, "amx-int8"},
    {EM_ISA_PCLMUL, "pclmulqdq"},      {EM_ISA_VPCLMUL, "vpclmulqdq"},
    {EM_ISA_NEON, "neon"},             {EM_ISA_NEON_DOTPROD, "neon_dotprod"},
    {EM_ISA_NEON_FP16, "neon_fp16"},   {EM_ISA_NEON_I8MM, "i8mm"},
    {EM_ISA_SVE, "sve"},               {EM_ISA_AMX_BF16, "amx-bf16"},
};
/* clang-format on */

/* ASCII-only, so the result does not depend on the C locale. */
static bool ascii_case_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) {
            return false;
        }
        if (x == '\0') {
            return true;
        }
    }
}

bool em_isa_cap_parse(const char *name, uint64_t *mask)
{
    if (name == NULL || mask == NULL) {
        return false;
    }
    for (size_t i = 0; i < sizeof isa_caps / sizeof isa_caps[0]; i++) {
        if (ascii_case_equal(name, isa_caps[i].name)) {
            *mask = isa_caps[i].mask;
            return true;
        }
    }
    return false;
}

/* Appends `sep` + `item` only if both fit whole (with the NUL), so a short buffer never ends
 * in a partial, misleading name ("avx512" cut from "avx512vnni"). */
static bool append_item(char *buf, size_t cap, size_t *len, const char *sep, const char *item)
{
    size_t ns = strlen(sep), ni = strlen(item);
    if (*len + ns + ni >= cap) {
        return false;
    }
    memcpy(buf + *len, sep, ns);
    memcpy(buf + *len + ns, item, ni + 1);
    *len += ns + ni;
    return true;
}

const char *em_isa_list(uint64_t features, char *buf, size_t cap)
{
    size_t len = 0;
    bool any = false;
    if (buf == NULL || cap == 0) {
        return buf;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof isa_names / sizeof isa_names[0]; i++) {
        if ((features & isa_names[i].bit) == 0) {
            continue;
        }
        if (!append_item(buf, cap, &len, any ? "," : "", isa_names[i].name)) {
            return buf;
        }
        any = true;
    }
    if (!any) {
        append_item(buf, cap, &len, "", "scalar");
    }
    return buf;
}
