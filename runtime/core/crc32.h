/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32 of zip, gzip and PNG (polynomial 0x04C11DB7, bit-reflected 0xEDB88320, initial and
 * final XOR 0xFFFFFFFF): the checksum every zip record carries. Three implementations, all
 * giving zlib's crc32() values: PCLMULQDQ folding of 4 x 128 bits (Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ", as in zlib/Chromium and Linux),
 * VPCLMULQDQ folding of 4 x 256 bits, and a portable slice-by-8 for everything else. The
 * choice is bound once by whoever checksums many records (em_crc32_impl) from the CPU's
 * features, which EMBER_ISA_MAX caps as it caps kernels (em_cpu_features_env).
 * Threads: every function is reentrant and keeps no state.
 */
#ifndef EMBER_CORE_CRC32_H
#define EMBER_CORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues `crc` (the CRC of the bytes before, 0 for none) over data[0..n): zlib's crc32()
 * contract, so em_crc32(em_crc32(0, a, na), b, nb) is the CRC of a followed by b. */
typedef uint32_t (*em_crc32_fn)(uint32_t crc, const void *data, size_t n);

/* The fastest implementation the EM_ISA_* mask `isa` allows (0: the portable one). The mask
 * must be a subset of em_cpu_features(). */
em_crc32_fn em_crc32_impl(uint64_t isa);
/* The name of the implementation em_crc32_impl(isa) picks: "vpclmulqdq", "pclmulqdq" or
 * "slice-by-8". */
const char *em_crc32_impl_name(uint64_t isa);

/* em_crc32_impl(em_cpu_features_env()) applied once (choose once and keep the pointer when
 * checksumming many buffers). */
uint32_t em_crc32(uint32_t crc, const void *data, size_t n);

/* The CRC of A followed by B from crc_a = CRC(A), crc_b = CRC(B) and B's length (zlib's
 * crc32_combine), in O(log len_b): checksums of pieces computed apart (on several threads)
 * make the checksum of the whole. */
uint32_t em_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#endif /* EMBER_CORE_CRC32_H */
