/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The generator the random family's reference kernels share (random_common_ref.c); their
 * entry points are declared by ref.h from kernels_random.def. Included by ref.h.
 *
 * Generator: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC'11), a counter-based generator: block b of run r is philox(key, counter = {b, r}), 128
 * bits giving two uniform doubles (53 bits each). Element i of an op's output draws from block
 * i / 2, so any split of the work over threads yields the same numbers.
 *
 * Seeding, without global mutable state: the key comes from the `seed` attribute when given
 * (the same model gives the same first run everywhere), otherwise from the clock and the
 * state's address at prepare (differs between sessions and processes). Each kernel state
 * counts its runs in a C11 atomic (em_rnd_seed.runs), and run r uses counter stream r: two
 * runs, even concurrent ones, never reuse numbers. run() updates that counter through its
 * const state pointer; the state is heap memory the kernel allocated, never a constant.
 */
#ifndef EMBER_KERNELS_REF_RANDOM_REF_H
#define EMBER_KERNELS_REF_RANDOM_REF_H

#include "plan/kernel.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- The generator (random_common_ref.c) ---------------------------------------------------- */

typedef struct em_rnd_seed {
    uint64_t key;          /* Philox key */
    _Atomic uint64_t runs; /* runs started so far; run r draws from counter stream r */
} em_rnd_seed;

/* Philox4x32-10 of counter ctr[0..4) under key[0..2) into out[0..4). */
void em_rnd_philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Sets s->key from the node's 'seed' attribute (float for the random ops, int for Dropout;
 * both types are accepted) or, without one, from the clock and `salt` (the state's address);
 * sets s->runs to 0. Errors name the node (a 'seed' of another type). */
ember_status *em_rnd_seed_init(const em_kinfo *ki, em_rnd_seed *s, const void *salt);

/* The stream of a new run: the run counter, incremented atomically (s is kernel-owned heap
 * memory; see the header comment). */
uint64_t em_rnd_next_run(const em_rnd_seed *s);

/* Two uniform doubles in [0, 1) from block `block` of run `run`. */
void em_rnd_uniform2(uint64_t key, uint64_t run, uint64_t block, double u[2]);

/* Uniform double in [0, 1) for element i of run `run` (block i / 2, half i % 2). */
double em_rnd_uniform_at(uint64_t key, uint64_t run, int64_t i);

/* Stores v into element i of a float tensor of dtype dt (f16 f32 f64 bf16), then, when the
 * rounded value reached `hi` and lo < hi, steps it one unit below `hi` so that a uniform
 * sample stays in [lo, hi) in the output's precision. */
void em_rnd_store_below(ember_dtype dt, void *p, int64_t i, double v, double lo, double hi);

/* True for f16 f32 f64 bf16. */
bool em_rnd_is_float(ember_dtype dt);

#endif /* EMBER_KERNELS_REF_RANDOM_REF_H */
