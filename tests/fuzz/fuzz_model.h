/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run half of the whole-model fuzz targets (fuzz_onnx_model, fuzz_ts_model): bytes ->
 * ember_model_load_memory -> session -> one run on inputs made from the model's declared
 * shapes and dtypes. Everything goes through ember.h.
 *
 * Bounds. ember has no memory limit of its own: every allocation it makes goes through the
 * model's ember_allocator, and a failed one comes back as OUT_OF_MEMORY. The harness loads
 * with a bounded allocator (FUZZ_ALLOC_ONE bytes per allocation, FUZZ_ALLOC_LIVE live at
 * once), so a hostile shape or constant meets a clean OUT_OF_MEMORY instead of taking the
 * machine; whatever ember or its dependencies allocate outside that allocator is bounded by
 * libFuzzer's -malloc_limit_mb / -rss_limit_mb, and reaching those is a finding. Inputs are
 * small: a symbolic or unknown dim is 2, and a declared shape of more than FUZZ_MAX_ELEMS
 * elements skips the run (the model still loads and plans).
 */
#ifndef EMBER_FUZZ_MODEL_H
#define EMBER_FUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ember.h"

#define FUZZ_ALLOC_ONE ((size_t)64 << 20)
#define FUZZ_ALLOC_LIVE ((size_t)256 << 20)
#define FUZZ_MAX_ELEMS ((int64_t)1 << 16)

/* Aborts when `ok` is false (libFuzzer reports it as a crash). */
void fuzz_check(int ok);

/* Input i of a format that declares none (TorchScript): the dtype and rank to declare, and
 * the dims to run with (0: free, given 2). */
typedef struct fuzz_rank {
    ember_dtype dtype;
    int rank;
    int64_t dims[EMBER_MAX_RANK];
} fuzz_rank;

/* Loads data[0..size) (borrowed) with the bounded allocator and the given input ranks
 * (n_ranks may be 0), and when it loads: prints its graph, creates a one-thread session with
 * a plan cache of 2, runs once on generated inputs (a dim the model leaves free takes the
 * hint in `ranks` or 2), and again with a free first dim of 1 (another plan). Checks the API's promises on the way (a status or an object, never
 * both; outputs of the declared count). Leaks nothing (the allocator's live count is checked
 * at the end). */
void fuzz_model_run(const uint8_t *data, size_t size, const fuzz_rank *ranks, int n_ranks);

#endif /* EMBER_FUZZ_MODEL_H */
