/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The loader interface: what each loaders/<format>/ folder registers in the loader table
 * (runtime/api/loaders.c), as kernel folders register kernel tables. A loader turns a file's
 * bytes into a graph (ir/graph.h); it sees runtime core/, ir/ and shape/, never the planner or
 * the executor. The API tells formats apart by asking each entry's `sniff`, in table order, so
 * no file of the API names a format or tests a build option.
 *
 * An entry exists in every build: `sniff` needs nothing but bytes, and a loader that was not
 * built (its library missing or switched off) has `load` NULL and says why in `missing`, so
 * that a file of its format gets a clear UNSUPPORTED instead of "unknown format".
 * Threads: entries are constant; every function is reentrant.
 */
#ifndef EMBER_IR_LOADER_H
#define EMBER_IR_LOADER_H

#include "core/tensor.h"
#include "core/value.h"
#include "ember.h"
#include "ir/graph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a loader may assume of the model's i-th tensor input when the file does not say
 * (TorchScript declares no ranks); from ember_model_options_set_input_rank. */
typedef struct em_input_spec {
    ember_dtype dtype; /* UNDEFINED: float32 */
    int rank;          /* -1: unknown */
} em_input_spec;

/* A caller's fixed shape for one input (ember_model_options_set_input_shape / _at): by name, or
 * by position when `name` is NULL. dims[d] of -1 leaves dim d as the model declares it. */
typedef struct em_shape_fix {
    char *name;
    size_t index;
    int rank;
    int64_t dims[EM_MAX_RANK];
} em_shape_fix;

/* A caller's value for every input dim of symbolic name `name` (ember_model_options_set_dim_value). */
typedef struct em_dim_fix {
    char *name;
    int64_t value;
} em_dim_fix;

typedef struct em_load_args {
    em_storage *image;            /* the whole file or buffer; weights may retain it */
    const char *path;             /* the file (messages, external data); NULL from memory */
    const em_input_spec *inputs;  /* n_inputs entries, may be fewer than the model's inputs */
    size_t n_inputs;
    bool trust_checksums;         /* ember_model_options_set_verify_checksums(false): a format
                                   * whose weights carry checksums uses them unchecked */
    const em_shape_fix *shapes;   /* fixed input shapes, applied before any shape is inferred */
    size_t n_shapes;
    const em_dim_fix *dim_fixes;  /* fixed symbolic input dims, by name */
    size_t n_dim_fixes;
    const char *model_name;       /* which of an archive's models (ember_model_options_set_
                                   * model_name); NULL: the format's default ("model") */
} em_load_args;

/*
 * Applies a->shapes and a->dim_fixes to input `index` (its position among the graph's inputs)
 * named `name`: *rank (-1: unknown) and dims[0..*rank) (-1: unknown) are what the model
 * declares, names[d] (NULL: none) the symbolic dims' names. A fixed dim gets its value and
 * names[d] NULL; an unknown rank takes a shape's. INVALID_ARG naming `what` (the file) and the
 * input when a shape contradicts the declared rank or a declared dim, or two fixes disagree.
 */
ember_status *em_load_fix_input(const em_load_args *a, const char *what, size_t index,
                                const char *name, int *rank, int64_t *dims, const char **names);
/* Applies the fixes to every input of `g` after loading (em_load_fix_input) and checks that
 * each shape fix names an input of `g`: INVALID_ARG naming `what` otherwise. */
ember_status *em_load_fix_graph(const em_load_args *a, const char *what, em_graph *g);

/* What a loader reports besides the graph; zeroed by the caller. Arrays are allocated with the
 * graph's allocator and owned by the caller after a successful load. */
typedef struct em_load_info {
    size_t n_opsets;       /* ONNX opset imports, in file order */
    char **opset_domains;  /* "" for the default domain */
    int64_t *opset_versions;
} em_load_info;

/* One tensor of a model file to rewrite (em_loader.save_weights): `name` as the loader names
 * the initializer (TorchScript: the state_dict name), and either f32 values (`f32`, numel
 * elements, in the tensor's logical C order) or, with f32 NULL, `add_i64` added to an int64
 * tensor (BatchNorm's num_batches_tracked). An `optional` tensor the file lacks is skipped. */
typedef struct em_weight_patch {
    const char *name;
    const float *f32;
    int64_t numel;
    int64_t add_i64;
    bool optional;
} em_weight_patch;

typedef struct em_loader {
    const char *name;    /* "onnx": build info, messages */
    const char *kind;    /* what sniff recognised, for messages: "an ONNX model" */
    const char *missing; /* when load is NULL: why ("configured with EMBER_WITH_ONNX=OFF ...") */
    bool refuses;        /* recognised only to be refused with a hint (a torch.save pickle):
                          * no loader of its own, left out of the build info's list */
    /* Whether the image's first bytes (n of them, n >= 1) look like this format. */
    bool (*sniff)(const unsigned char *head, size_t n);
    /* Builds `g` (empty) from a->image. Returns INVALID_MODEL, UNSUPPORTED, IO or
     * OUT_OF_MEMORY; on failure `g` may be partial (the caller destroys it). NULL: not built. */
    ember_status *(*load)(const em_load_args *a, em_graph *g, em_load_info *info);
    /* Optional: one serialized tensor of this format (ONNX's TensorProto), as
     * em_onnx_read_tensor describes. NULL: the format has none, or the loader is not built. */
    ember_status *(*read_tensor)(const void *data, size_t size, const char *what,
                                 const char *path, const ember_allocator *al, em_tensor *shape,
                                 em_storage **out);
    /* Optional: one serialized sequence or optional value (ONNX's SequenceProto /
     * OptionalProto) into a run-time value. */
    ember_status *(*read_value)(const void *data, size_t size, const char *what, em_vtype vt,
                                const ember_allocator *al, em_rv *out);
    /* Optional: writes to `path` (whole or not at all) a copy of the model file `image` with
     * the n tensors of `w` replaced and everything else kept (a trainer's save in the model's
     * own format). `what` names the source in messages. NULL: not supported or not built. */
    ember_status *(*save_weights)(em_storage *image, const char *what,
                                  const em_weight_patch *w, size_t n, const char *path,
                                  const ember_allocator *al);
} em_loader;

#endif /* EMBER_IR_LOADER_H */
