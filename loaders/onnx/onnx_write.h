/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX model writer: an em_graph -> ModelProto file that ember, ONNX Runtime and onnx's
 * checker read back. Used by ember_model_save_onnx (and so by `ember convert`, the quantizer
 * and the trainer's save). Needs no protobuf library (pb_write.h encodes the wire format), so
 * it is built without the ONNX loader too.
 *
 * What is written: every node in graph order (op type, domain, name, inputs with "" for an
 * absent optional one, outputs, attributes of every kind, subgraphs of If / Loop / Scan /
 * SequenceMap with their outer-scope captures left as references by name), the graph's inputs
 * and outputs with dtypes and (symbolic) shapes, the initializers that nodes or outputs read,
 * model metadata (doc_string, domain, model_version, metadata_props) and the opset imports.
 * The default domain's opset is the opset the caller asks for, else the newest of 21, the
 * source model's and the first opset of each op used (Attention 23, TensorScatter 24, ...):
 * the loader keeps every node in the newest form of its op, which opset 21 and later read
 * alike (onnx_opset.c). ir_version follows the opset (onnx's VERSION_TABLE).
 *
 * Refused with UNSUPPORTED naming the node: ember's internal ops (FusedConv, FusedGemm, the
 * blocked-layout ops: save a model loaded with EMBER_GRAPH_OPT_FOLD), the Scan-8 form,
 * values with quantization parameters attached.
 *
 * Large models: ONNX files cannot exceed 2 GiB, so when the initializers pass
 * EM_ONNX_WRITE_INLINE_MAX bytes (or when asked), every initializer of at least
 * EM_ONNX_WRITE_EXT_MIN bytes goes to "<file name>.data" beside the model (ONNX's external
 * data: location, offset (4096-aligned), length). Both files are written to temporary names
 * and renamed (core/file_write.h).
 * Threads: reentrant; the graph is only read.
 */
#ifndef EMBER_LOADERS_ONNX_ONNX_WRITE_H
#define EMBER_LOADERS_ONNX_ONNX_WRITE_H

#include "ember.h"
#include "ir/graph.h"
#include "pb_write.h"

#include <stdint.h>

#define EM_ONNX_WRITE_INLINE_MAX ((uint64_t)1800 << 20)
#define EM_ONNX_WRITE_EXT_MIN 1024
/* The lowest default-domain opset written (see above). */
#define EM_ONNX_WRITE_OPSET_MIN 21

typedef enum em_onnx_ext {
    EM_ONNX_EXT_AUTO = 0, /* external data only past EM_ONNX_WRITE_INLINE_MAX */
    EM_ONNX_EXT_NEVER,    /* fail with UNSUPPORTED past the 2 GiB limit instead */
    EM_ONNX_EXT_ALWAYS    /* initializers of EM_ONNX_WRITE_EXT_MIN bytes or more go outside */
} em_onnx_ext;

typedef struct em_onnx_write_opts {
    int64_t opset;        /* default-domain opset to declare; 0: chosen as above */
    int64_t source_opset; /* the source model's default-domain opset (0: none or unknown) */
    em_onnx_ext external;
} em_onnx_write_opts;

/* Writes `g` to `path` (opts may be NULL: all defaults). IO naming the file, UNSUPPORTED or
 * INVALID_ARG naming the node or value; nothing is left at `path` on failure. */
ember_status *em_onnx_write_file(const em_graph *g, const char *path, const em_onnx_write_opts *o);
/* The ModelProto in memory (never external data); `out` zeroed on entry, freed by the caller
 * with em_pbuf_free (also on failure). */
ember_status *em_onnx_write_buf(const em_graph *g, const em_onnx_write_opts *o, em_pbuf *out);

#endif /* EMBER_LOADERS_ONNX_ONNX_WRITE_H */
