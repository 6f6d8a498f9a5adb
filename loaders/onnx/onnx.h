/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX loader's interface to runtime/api/api.c: ModelProto -> em_graph, and TensorProto
 * files (the conformance suite's input_0.pb) -> tensors. Built only with EMBER_HAVE_ONNX;
 * this header itself needs neither protobuf-c nor the generated code.
 *
 * The loader accepts the default domain ("" or "ai.onnx") at opsets 1 to 21 and rewrites
 * every node to the newest form of its op (onnx_opset.c), so kernels see one form per op.
 * Threads: every function is reentrant and keeps no state.
 */
#ifndef EMBER_LOADERS_ONNX_ONNX_H
#define EMBER_LOADERS_ONNX_ONNX_H

#include "ember.h"
#include "ir/graph.h"
#include "core/tensor.h"

#include <stddef.h>
#include <stdint.h>

/* Deepest nesting of subgraphs (If/Loop/Scan bodies) the loader builds. */
#define EM_ONNX_MAX_DEPTH 32
/* Oldest and newest opset of the default domain the loader reads. */
#define EM_ONNX_OPSET_MIN 1
#define EM_ONNX_OPSET_MAX 28
/* Newest IR version (ModelProto.ir_version) the loader knows: ONNX 1.23's. */
#define EM_ONNX_IR_VERSION_MAX 14

/* The opset imports of a model, in file order; allocated with the graph's allocator. */
typedef struct em_onnx_opsets {
    size_t n;
    char **domains; /* "" for the default domain, as written in the file */
    int64_t *versions;
} em_onnx_opsets;

/*
 * Builds `g` (empty, from em_graph_new) from the ModelProto in `image`. `path` is the model
 * file (NULL when loaded from memory): messages name it, and external data is looked up in
 * its folder (models from memory cannot have external data). Initializers whose raw_data is
 * suitably aligned borrow `image` (retained); others are copied. External data files are
 * mapped. On success `*opsets` (zeroed on entry) holds the opset imports; free it with
 * em_onnx_opsets_free(). Returns INVALID_MODEL, UNSUPPORTED, IO or OUT_OF_MEMORY; on failure
 * `g` may hold a partial graph (the caller destroys it) and `*opsets` is empty.
 */
ember_status *em_onnx_load(em_storage *image, const char *path, em_graph *g,
                           em_onnx_opsets *opsets);
void em_onnx_opsets_free(const ember_allocator *al, em_onnx_opsets *opsets);

/*
 * Reads a serialized TensorProto of `size` bytes at `data` (borrowed). `what` names it in
 * messages (NULL: "<memory>"); `path`, when not NULL, is the file, whose folder holds any
 * external data. Fills `*shape` (dtype, rank, dims; data NULL) and `*out`, an owned storage
 * allocated with `al` holding exactly the tensor's bytes (strings: a packed string storage,
 * strtensor.h). Returns INVALID_MODEL, UNSUPPORTED (dtypes ember lacks), IO or OUT_OF_MEMORY;
 * on failure `*out` is NULL.
 */
ember_status *em_onnx_read_tensor(const void *data, size_t size, const char *what, const char *path,
                                  const ember_allocator *al, em_tensor *shape, em_storage **out);

/*
 * Reads a serialized SequenceProto (vt EM_VT_SEQUENCE) or OptionalProto (the optional kinds)
 * into `*out`, a run-time value (core/value.h) whose bytes are allocated with `al`: a sequence of
 * tensors, a tensor, or EM_RV_NONE for an empty optional. `what` names the source in messages.
 */
struct em_rv;
ember_status *em_onnx_read_value(const void *data, size_t size, const char *what, em_vtype vt,
                                 const ember_allocator *al, struct em_rv *out);

#endif /* EMBER_LOADERS_ONNX_ONNX_H */
