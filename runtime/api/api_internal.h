/* SPDX-License-Identifier: Apache-2.0 */
/* The structs behind ember.h's opaque handles, shared by api.c, session.c and loaders' glue. */
#ifndef EMBER_API_API_INTERNAL_H
#define EMBER_API_API_INTERNAL_H

#include "ember.h"
#include "ir/graph.h"
#include "ir/loader.h"
#include "core/pack.h"
#include "core/tensor.h"

#include <pthread.h>
#include <stdbool.h>

/* Most inputs ember_model_options_set_input_rank describes. */
#define EM_MAX_INPUT_SPECS 64
/* Most fixed input shapes and most fixed dim names a model_options holds. */
#define EM_MAX_SHAPE_FIXES 64
/* Most compute threads a session runs (ember_session_options_set_threads). */
#define EM_MAX_THREADS 1024

struct ember_model_options {
    ember_allocator alloc;
    bool has_alloc;
    ember_log_fn log;
    void *log_ctx;
    ember_log_level log_level;
    size_t n_inputs; /* input specs given: [0, n_inputs); unset ones have rank -1 */
    ember_dtype input_dtype[EM_MAX_INPUT_SPECS];
    int input_rank[EM_MAX_INPUT_SPECS];
    bool input_set[EM_MAX_INPUT_SPECS];
    bool has_graph_opt;        /* graph_opt set; EMBER_GRAPH_OPT_ALL otherwise */
    ember_graph_opt graph_opt;
    ember_int8_mode int8;      /* set_int8 (AUTO when unset) */
    ember_precision precision; /* set_precision: weights held in (FP32: as the file) */
    bool trust_checksums;      /* set_verify_checksums(false): weights not CRC-checked */
    size_t n_shapes;           /* set_input_shape / _at: names owned (malloc) */
    em_shape_fix shapes[EM_MAX_SHAPE_FIXES];
    size_t n_dim_fixes;        /* set_dim_value: names owned (malloc) */
    em_dim_fix dim_fixes[EM_MAX_SHAPE_FIXES];
    char *model_name;          /* set_model_name (malloc), NULL: the format's default */
};

struct ember_model {
    ember_allocator alloc; /* copy of the user's allocator */
    const ember_allocator *al; /* &alloc, or NULL for libc */
    ember_log_fn log;
    void *log_ctx;
    ember_log_level log_level;
    const char *format;
    ember_graph_opt graph_opt; /* passes run by model_finish (passes.h) */
    bool int8;                 /* run the QDQ -> integer rewrite (set_int8) */
    ember_precision precision; /* set_precision (FP32 when unset) */
    ember_dtype half_weights;  /* F16 / BF16: weights held in that format (set_precision, or a
                                * half model's own), else UNDEFINED */
    size_t n_half_weights;     /* initializers held so (passes_half.c) */
    size_t n_int8_notes;       /* what it did: node, int8 op or NULL, reason or NULL */
    char **int8_notes;         /* 3 strings per note, owned (allocated with `al`) */
    em_graph *g;
    em_storage *bytes; /* the model image when loaded from memory or a file */
    size_t n_opsets;   /* ONNX opset imports, in file order; none for other formats */
    char **opset_domains; /* owned, allocated with `al` */
    int64_t *opset_versions;
    const ember_model_options *opts; /* during loading only: the caller's options (or NULL) */
    /* Packed weights shared by every plan of every session of the model (core/pack.h). The
     * model stays immutable to its users: the cache has its own lock. */
    em_pack_cache *packs;
    /* Weights held in half at the user's asking (set_precision FP16 / BF16) are dropped once
     * every reader of a plan packed them in `packs` in forms that give them back (session.c,
     * em_model_drop_half); plan_mu orders those drops against other sessions' planning and
     * em_model_restore_half. False: kept (a half model's own weights, the quantizer's). */
    bool drop_half;
    pthread_mutex_t plan_mu;
};

/* em_plan_half_fn (planner.h) with ctx the model: drops the bytes of half initializer `v`
 * when the model drops them and its packs give them back. Caller holds m->plan_mu. */
bool em_model_drop_half(void *m, int v);
/* Gives back the bytes of every dropped half initializer (ember_model_save_onnx, trainers:
 * readers of the weights themselves). */
ember_status *em_model_restore_half(const ember_model *m);

struct ember_tensor {
    em_tensor t;
    size_t nbytes;
    bool owned;
    ember_allocator alloc;
    const ember_allocator *al;
    ember_value_kind kind;  /* sequences and empty optionals: dtype is the element's */
    size_t n_items;         /* sequences: owned items */
    ember_tensor **items;
    em_storage *keep;       /* string tensors: the bytes the elements point into (api_string.c) */
};

struct ember_session_options {
    int threads;
    ember_device device;
    ember_precision precision;
    bool profiling;
    bool isa_set;
    uint64_t isa_cap;
    int plan_cache;
    int idle_contexts;
    size_t memory_limit; /* bytes of one activation arena; 0: no limit */
};

/* Builds the built-in default model into `g`. */
ember_status *em_builtin_default(em_graph *g);
/* Argument checks of the public functions: INVALID_ARG "<fn>: NULL <what>". */
ember_status *em_api_null_arg(const char *fn, const char *what);
/* Checks the dtype, dims and rank a caller gives `fn` for a new tensor; sets `*nbytes`. */
ember_status *em_api_check_shape(const char *fn, ember_dtype dt, const int64_t *dims, int rank,
                                 size_t *nbytes);
/* Whether `dt` is a value of ember_dtype, EMBER_DTYPE_UNDEFINED included. */
bool em_api_dtype_known(ember_dtype dt);
/* Creates an owned tensor with the model's allocator (outputs of a run). */
ember_status *em_tensor_new_owned(const ember_allocator *al, ember_dtype dt, const int64_t *dims,
                                  int rank, ember_tensor **out);
/* Logs through the model's callback when `level` is enabled. */
/* api_value.c: run-time values (core/value.h) to and from handles. from_rv copies the bytes into
 * a new handle; to_rv borrows the handle's bytes (the em_rv must be cleared before the handle
 * is destroyed). */
struct em_rv;
ember_status *em_api_value_from_rv(const ember_allocator *al, const struct em_rv *v,
                                   ember_tensor **out);
ember_status *em_api_value_to_rv(const ember_allocator *al, const ember_tensor *t,
                                 struct em_rv *out);
/* Writes n bytes to `path`, whole or not at all (core/file_write.h; IO naming the file). */
ember_status *em_api_write_file(const char *path, const void *data, size_t n);
/* api_string.c: fills string tensor `t` (of src's element count) with copies of src's
 * strings, which `t` then owns (replacing what it owned before). */
ember_status *em_api_tensor_set_strings(ember_tensor *t, const em_tensor *src);
void em_model_log(const ember_model *m, ember_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
