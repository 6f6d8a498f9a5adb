/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel interface and registry: op x dtype x device x ISA.
 *
 * Every kernel is one em_kernel entry in its directory's kernels.def X-macro list. While
 * planning, the planner picks per node the highest-priority eligible entry (its ISA bits a
 * subset of the CPU's, capped by EMBER_ISA_MAX) whose `prepare` accepts the node; the choice
 * is stored in the plan, so the executor never searches.
 *
 *  prepare  validates attributes, dtypes and shapes (all known here), parses attributes into
 *           a kernel-owned state, may repack constant weights (constant inputs have data;
 *           through em_pack_get on em_kinfo_packs(), so that plans share the packed copy:
 *           core/pack.h), and reports how many scratch bytes one run needs. Returns
 *           UNSUPPORTED to decline (the planner then tries the next entry) or another error
 *           for an invalid node.
 *  run      computes only: no allocation, no status, no logging. Input/output tensors have
 *           the planned shapes and valid data; scratch (if asked for) is EM_ALIGN-aligned.
 *           Outputs never alias inputs unless the op is EM_OPF_EW (then out[0] may equal
 *           in[0] exactly) or EM_OPF_ALIAS (the copy is skipped when data pointers match).
 */
#ifndef EMBER_PLAN_KERNEL_H
#define EMBER_PLAN_KERNEL_H

#include "ember.h"
#include "ir/graph.h"
#include "ir/op.h"
#include "core/cpu.h"
#include "core/pack.h"
#include "core/tensor.h"
#include "core/thread.h"

#include <stddef.h>
#include <stdint.h>

typedef enum em_device { EM_DEV_CPU = 0, EM_DEV_CUDA = 1 } em_device;

/* Where a node's kernel packs its constant inputs (core/pack.h): `shared` (the model's, for
 * every plan of every session) for inputs that are initializers of the graph (bit i of
 * shared_in set for input i), `own` (the plan's) for constants the plan computed itself,
 * whose addresses die with it. */
typedef struct em_kpacks {
    em_pack_cache *shared;
    em_pack_cache *own;
    uint64_t shared_in;
    /* May be NULL. The kernel picked sets bit i (em_kinfo_mark_packed) when prepare copied
     * constant input i into a pack and its run never reads that input's data: the planner
     * may then free a constant it computed itself for that input (half-stored weights widened
     * for packing, passes_halfw.c) once every reader has packed it. */
    uint64_t *packed_in;
    /* Bit i: constant input i is the f32 copy of an f16 (f16_in) or bf16 (bf16_in) initializer
     * (weights held in half, passes_halfw.c), so every value of it is exact in that format and
     * a kernel may pack it in half (em_kinfo_half_of) without changing its results. */
    uint64_t f16_in, bf16_in;
    /* May be NULL, else one entry per input: non-NULL for an input whose packs go to `shared`
     * under that key source instead of the input's data address (the f32 copy of a half
     * initializer, which each plan widens anew: keyed by the initializer, its packs are
     * shared by every plan of the model). Kernels ask em_kinfo_pack_at. */
    const void *const *key_src;
} em_kpacks;

/* What prepare sees. `in` always has n_in entries (node->n_in) and `out` n_out. Constant
 * inputs (initializers) have data; other data pointers are NULL. An absent optional input
 * has dtype EMBER_DTYPE_UNDEFINED, rank 0 and data NULL, in prepare and in run alike. */
typedef struct em_kinfo {
    const em_node *node;
    int n_in, n_out;
    const em_tensor *in;
    const em_tensor *out;
    const ember_allocator *al;
    uint64_t isa;  /* features usable by this plan */
    int n_threads; /* threads em_parallel_for may use in run (the session's pool size, >= 1) */
    const em_kpacks *packs; /* may be NULL: packs are private (em_kinfo_packs) */
} em_kinfo;

/* The pack cache for packings of constant input i (NULL: private packs). */
static inline em_pack_cache *em_kinfo_packs(const em_kinfo *ki, int i)
{
    const em_kpacks *p = ki->packs;
    if (p == NULL) {
        return NULL;
    }
    return i >= 0 && i < 64 && (p->shared_in >> i & 1) ? p->shared : p->own;
}

/* The pack cache and the key source (em_pack_key's src, set at *src) for packing constant
 * input i: the planner's stable key for a widened half weight (em_kpacks' key_src), else the
 * input's data and em_kinfo_packs. */
static inline em_pack_cache *em_kinfo_pack_at(const em_kinfo *ki, int i, const void **src)
{
    const em_kpacks *p = ki->packs;
    if (p != NULL && p->key_src != NULL && i >= 0 && i < ki->n_in && p->key_src[i] != NULL) {
        *src = p->key_src[i];
        return p->shared;
    }
    *src = i >= 0 && i < ki->n_in ? ki->in[i].data : NULL;
    return em_kinfo_packs(ki, i);
}

/* Prepare's note that constant input i now lives in a pack its run reads instead (em_kpacks). */
static inline void em_kinfo_mark_packed(const em_kinfo *ki, int i)
{
    if (ki->packs != NULL && ki->packs->packed_in != NULL && i >= 0 && i < 64) {
        *ki->packs->packed_in |= (uint64_t)1 << i;
    }
}

/* EMBER_DTYPE_F16 / EMBER_DTYPE_BF16 when constant input i holds only values of that format
 * (em_kpacks' f16_in / bf16_in), else EMBER_DTYPE_UNDEFINED. */
static inline ember_dtype em_kinfo_half_of(const em_kinfo *ki, int i)
{
    const em_kpacks *p = ki->packs;
    if (p == NULL || i < 0 || i >= 64) {
        return EMBER_DTYPE_UNDEFINED;
    }
    return (p->f16_in >> i & 1)    ? EMBER_DTYPE_F16
           : (p->bf16_in >> i & 1) ? EMBER_DTYPE_BF16
                                   : EMBER_DTYPE_UNDEFINED;
}

/* What run sees besides its tensors. */
typedef struct em_kctx {
    em_threadpool *pool; /* may be NULL: run serially */
    void *scratch;       /* `scratch_bytes` from prepare, EM_ALIGN-aligned, or NULL */
} em_kctx;

/* The entry points' function types, which kernel lists may declare their functions with (a
 * definition of another type then fails to compile); tables hold pointers to them. */
typedef ember_status *em_kprepare_proto(const em_kinfo *ki, void **state, size_t *scratch_bytes);
typedef void em_krelease_proto(const ember_allocator *al, void *state);
typedef void em_krun_proto(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx);
typedef em_kprepare_proto *em_kprepare_fn;
typedef em_krelease_proto *em_krelease_fn;
typedef em_krun_proto *em_krun_fn;

typedef struct em_kernel {
    const char *name;       /* "em_conv_f32__ref": in logs, plans and tests */
    em_op op;
    ember_dtype dtype;      /* dtype of input 0; EMBER_DTYPE_UNDEFINED = any dtype */
    em_device device;
    uint64_t isa;           /* EM_ISA_* bits required; 0 = portable */
    int priority;           /* highest eligible wins; ref kernels are 0 */
    em_kprepare_fn prepare; /* NULL: no state, no scratch, accepts everything */
    em_krelease_fn release; /* NULL: state freed with em_free */
    em_krun_fn run;
} em_kernel;

/* A kernel table contributed by one directory (kernels/ref, kernels/x86, adapters). */
typedef struct em_kernel_table {
    const char *name; /* "ref", "x86", "openblas", ... */
    const em_kernel *kernels;
    size_t n;
    /* Called once, when the registry is built, before any of the table's kernels prepares:
     * process-wide settings of the table's library (oneDNN's primitive cache). May be NULL. */
    void (*init)(void);
} em_kernel_table;

/* The registry is built once (thread-safe, idempotent) from the compiled-in tables. */
void em_registry_init(void);
/* Candidates for (op, dtype, device) usable with `isa`, best first. Returns the count written
 * (at most cap). */
size_t em_registry_find(em_op op, ember_dtype dt, em_device dev, uint64_t isa,
                        const em_kernel **out, size_t cap);
/* Every registered entry (for tests that sweep all kernels of an op). */
size_t em_registry_count(void);
const em_kernel *em_registry_at(size_t i);
/* Names of the compiled-in tables, comma-separated ("ref,x86,openblas"). */
const char *em_registry_backends(void);

#endif /* EMBER_PLAN_KERNEL_H */
