/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plan: the graph prepared for one input-shape signature. Every value has a concrete shape
 * and a location; every node has its chosen kernel, its prepared state and (optionally) a
 * scratch buffer. Activations live in one arena whose layout comes from value lifetimes:
 *
 *  1. lifetime of a value = [producer node, last consumer node];
 *  2. values join "buffers": a view op (EM_OPF_ALIAS) shares its input's buffer, and an
 *     elementwise op (EM_OPF_EW) writes over input 0's buffer when that buffer dies at the
 *     node (in place); scratch is a buffer that lives for its node only;
 *     A Concat whose inputs can be written straight into its output is done in place
 *     (em_plan_node.in_place, the executor skips it): when the output's dims before the axis
 *     are all 1, each input is one contiguous piece of the output, so its producer writes
 *     there (the value's buffer is the Concat's, at byte offset `sub`). Concats are visited
 *     last first, so a chain such as densenet's, where each Concat takes the previous one's
 *     inputs plus one more, places every feature once in the last Concat's buffer and makes
 *     the earlier Concats views of its prefixes. Inputs must be arena values written by a
 *     kernel (no view, no graph input or output), distinct, at EM_ALIGN-aligned offsets;
 *     such a buffer lives from its first member's producer to the last reader of any member;
 *  3. buffers are placed largest first, each at the lowest EM_ALIGN-aligned offset where it
 *     overlaps no already placed buffer whose lifetime intersects its own (TFLM's greedy
 *     first-fit), with EM_TAIL_PAD bytes of readable slack after each.
 *
 * Values known while planning. Some inputs decide output *shapes* by their values (ops.def's
 * value_inputs: Reshape's shape, Slice's starts, ...). A backward pass marks every value whose
 * contents such an input needs, through the nodes that compute it (but not through ops that
 * read only shapes, EM_OPF_SHAPE_ONLY). A graph input so marked is "keyed": the plan copies its
 * value, and the plan is reused only for runs with the same value. Then, in node order, a node
 * whose inputs are all known is executed once while planning ("folded") when its value is
 * needed or its outputs are small (EM_FOLD_MAX_BYTES); its outputs become plan constants and
 * the executor skips it. Shape-only ops fold whenever their input shapes are known.
 * A Cast of a half-precision initializer to f32 (weights stored in half, passes_halfw.c)
 * always folds: the widened copy is what its readers pack, and once every reader has packed
 * it (em_kinfo_mark_packed) the plan frees it, so the weight is held as the half initializer
 * and the packs alone.
 */
#ifndef EMBER_PLAN_PLANNER_H
#define EMBER_PLAN_PLANNER_H

#include "ir/graph.h"
#include "plan/kernel.h"

typedef enum em_loc {
    EM_LOC_NONE = 0, /* absent optional input */
    EM_LOC_ARENA,
    EM_LOC_CONST,
    EM_LOC_INPUT,  /* caller input `index` */
    EM_LOC_OUTPUT  /* caller output `index` */
} em_loc;

typedef struct em_plan_value {
    em_tensor t;      /* concrete dtype and shape; data set for constants */
    em_loc loc;
    int index;        /* input/output position for EM_LOC_INPUT/OUTPUT */
    int buf;          /* buffer id for EM_LOC_ARENA */
    size_t sub;       /* byte offset in that buffer (an input of an in-place Concat) */
    int first, last;  /* lifetime in node indices */
    size_t bytes;
} em_plan_value;

typedef struct em_plan_buf {
    size_t bytes;     /* payload, before padding */
    size_t offset;
    int first, last;
} em_plan_buf;

/* Largest total output of a node folded only because its inputs are constant. */
#define EM_FOLD_MAX_BYTES ((size_t)64 << 10)

typedef struct em_plan_node {
    const em_node *node;
    const em_kernel *k;
    void *state;
    bool folded;      /* executed while planning: its outputs are plan constants */
    bool in_place;    /* a Concat whose inputs were written into its output: not run */
    int scratch_buf;  /* -1 when the kernel needs none */
    int in_base;      /* index of the node's first tensor in the run context's arrays */
    int out_base;
} em_plan_node;

typedef struct em_plan {
    const ember_allocator *al;
    const em_graph *g;
    int n_inputs;
    int64_t *sig;     /* per input: rank then dims (signature for the cache) */
    size_t sig_len;
    int n_values;
    em_plan_value *vals;
    int n_nodes;
    em_plan_node *nodes;
    int n_bufs;
    em_plan_buf *bufs;
    int n_tensors_in, n_tensors_out;
    size_t arena_bytes;
    size_t naive_bytes;
    int n_owned;
    em_storage **owned; /* bytes of keyed inputs and folded values */
    em_pack_cache *packs; /* packings of those (plan-owned constants; pack.h) */
    em_pack_cache *shared; /* em_plan_build's `shared` (may be NULL) */
    /* Half initializers (weights held in half) whose widened copy every reader of this plan
     * packed in `shared`, keyed by the initializer's em_value: the model may drop their bytes
     * once em_pack_cache_keep says those packs give them back (session.c); a later plan then
     * widens such an initializer, its data NULL, from them (em_pack_cache_unpack). */
    int n_half_packed;
    int *half_packed;
} em_plan;

/* Called by em_plan_build_ex during the build, for each half initializer `value` as soon as
 * every reader of its widened copy has packed it in `shared` (before the next node's packs
 * exist, so the initializer's bytes and all the packs are never alive at once); returns true
 * when it dropped the initializer's bytes (its data is NULL from then on). */
typedef bool em_plan_half_fn(void *ctx, int value);

/* Builds the plan of `g` for concrete input shapes (shapes[i] has ranks[i] dims), for kernels
 * restricted to the features `isa` and run with `n_threads` threads. `data` (may be NULL, and
 * may hold NULLs) gives the inputs' bytes: keyed inputs need theirs, else STATE naming them.
 * `shared` (may be NULL) is where kernels pack weights that are initializers of `g`, shared
 * with other plans of `g`; it must outlive the plan. Packings of constants the plan computes
 * itself go to the plan's own cache. */
ember_status *em_plan_build(const em_graph *g, const ember_allocator *al, uint64_t isa,
                            int n_threads, em_pack_cache *shared, const int64_t *const *shapes,
                            const int *ranks, const void *const *data, int n_inputs,
                            em_plan **out);
/* em_plan_build with em_plan_half_fn `half` (may be NULL) and its ctx. */
ember_status *em_plan_build_ex(const em_graph *g, const ember_allocator *al, uint64_t isa,
                               int n_threads, em_pack_cache *shared, const int64_t *const *shapes,
                               const int *ranks, const void *const *data, int n_inputs,
                               em_plan_half_fn *half, void *half_ctx, em_plan **out);
void em_plan_destroy(em_plan *p);
/* Picks, for node `n` with these concrete inputs (data of constants visible to prepare) and
 * outputs, the highest-priority CPU kernel whose prepare accepts it: the kernel, its prepared
 * state and the scratch bytes one run needs. Shared by the planner and the interpreter.
 * `packs` (may be NULL) says where the kernel packs constant weights (kernel.h). */
ember_status *em_kernel_pick(const em_node *n, const em_tensor *tin, const em_tensor *tout,
                             const ember_allocator *al, uint64_t isa, int n_threads,
                             const em_kpacks *packs, const em_kernel **k, void **state,
                             size_t *scratch);
/* True when the plan fits these shapes and, for keyed inputs, these values. */
bool em_plan_matches(const em_plan *p, const int64_t *const *shapes, const int *ranks,
                     const void *const *data, int n_inputs);
/* Text form: per node its kernel, per arena value its size, offset and lifetime. */
ember_status *em_plan_to_text(const em_plan *p, char **text);

#endif /* EMBER_PLAN_PLANNER_H */
