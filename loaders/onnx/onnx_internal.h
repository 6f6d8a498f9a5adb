/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the ONNX loader's files (not by anything outside loaders/onnx): the load context,
 * name scopes, pending nodes on their way through opset normalisation, and the helpers each
 * file provides. Every message starts with "onnx: <file>: ".
 */
#ifndef EMBER_LOADERS_ONNX_ONNX_INTERNAL_H
#define EMBER_LOADERS_ONNX_ONNX_INTERNAL_H

#include "onnx.h"

#include "onnx.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where raw_data of one initializer of the main graph sits in the model image. */
typedef struct onnx_span {
    size_t off, len;
    bool present;
} onnx_span;

/* A mapped external data file, shared by every tensor that points into it. */
typedef struct onnx_ext {
    char *path; /* resolved (realpath) */
    em_storage *s;
} onnx_ext;

typedef struct onnx_ctx {
    const ember_allocator *al;
    const char *what;  /* the model file as given, or "<memory>" */
    char *dir;         /* realpath of the model's folder; NULL without a file */
    em_storage *image; /* the serialized model */
    int64_t opset;     /* version of the default domain */
    bool no_default;   /* the model imports other domains only (opset is then the newest) */
    onnx_ext *ext;
    int n_ext;
    onnx_span *raw; /* raw_data spans of the main graph's initializers, in order */
    size_t n_raw;
    bool stripped; /* the main graph was unpacked without those raw_data (em_onnx_wire_strip) */
    unsigned serial; /* for names of values the loader makes up */
} onnx_ctx;

/* The values visible in one graph: a hash of value names, and the enclosing graph's scope. */
typedef struct onnx_scope {
    em_graph *g;
    int *slots; /* value index + 1; 0 = empty */
    int cap, n;
    struct onnx_scope *parent;
    const char **used; /* sorted names read by some node (subgraphs included) or returned */
    size_t n_used;
    int depth; /* 0 for the main graph */
} onnx_scope;

/* A node between the NodeProto and the graph: rewrites change its op, inputs and attributes. */
enum { ONNX_MAX_EXTRA_ATTRS = 4, ONNX_EXTRA_INPUTS = 4 };

typedef struct onnx_extra_attr {
    const char *name;
    em_attr_type type; /* EM_ATTR_INT or EM_ATTR_STRING */
    int64_t i;
    const char *s;
} onnx_extra_attr;

typedef struct onnx_pending {
    const Onnx__NodeProto *np;
    const char *name; /* for messages: the node name, or "#<index>" */
    const char *op;   /* ONNX op name after normalisation */
    int n_in;
    int *in;         /* capacity np->n_input + ONNX_EXTRA_INPUTS; -1 = absent */
    int n_out;       /* outputs kept (trailing unused ones may be dropped) */
    bool *skip_attr; /* per np->attribute: dropped by a rewrite */
    int n_extra;
    onnx_extra_attr extra[ONNX_MAX_EXTRA_ATTRS];
    bool emitted; /* the rewrite added the node(s) itself */
} onnx_pending;

/* ---- onnx_load.c ---- */
ember_status *em_onnx_err(const onnx_ctx *c, ember_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
const Onnx__AttributeProto *em_onnx_node_attr(const Onnx__NodeProto *np, const char *name,
                                           size_t *index);
bool em_onnx_name_used(const onnx_scope *sc, const char *name);
/* Registers value `idx` under its name; INVALID_MODEL when the name is already defined. */
ember_status *em_onnx_scope_put(const onnx_ctx *c, onnx_scope *sc, int idx);
/* A name for a value the loader makes up, unique in the scope: "<base>__<suffix>_<n>". */
void em_onnx_fresh_name(onnx_ctx *c, const onnx_scope *sc, const char *base, const char *suffix,
                     char *buf, size_t cap);
/* Adds a constant initializer (copied) with a fresh name; `rank` 0 or 1. */
ember_status *em_onnx_add_const(onnx_ctx *c, onnx_scope *sc, const char *base, const char *suffix,
                             ember_dtype dt, const void *data, int64_t n, int rank, int *idx);
/* Adds node `op` with `in` and one fresh output named after `base`, or (out_name) a given
 * output; sets *out_value. */
ember_status *em_onnx_add_node(onnx_ctx *c, onnx_scope *sc, const char *op, const char *node_name,
                            const int *in, int n_in, const char *out_name, int *node,
                            int *out_value);
/* The same with n_out (at most EM_ONNX_MAX_ADDED_OUTPUTS) outputs: out_names NULL, or NULL
 * entries, for fresh names; sets out_values[0..n_out). */
enum { EM_ONNX_MAX_ADDED_OUTPUTS = 4 };
ember_status *em_onnx_add_node_n(onnx_ctx *c, onnx_scope *sc, const char *op,
                              const char *node_name, const int *in, int n_in, int n_out,
                              const char *const *out_names, int *node, int *out_values);
/* Copies the NodeProto's attributes (minus skipped ones) and the extras onto `node`. */
ember_status *em_onnx_copy_attrs(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p, int node);
/* Adds node `np` of graph scope `sc` (`index`: its place, for messages when it has no name):
 * opset rewrites and load-time expansions included. */
ember_status *em_onnx_node_convert(onnx_ctx *c, onnx_scope *sc, const Onnx__NodeProto *np,
                                size_t index);
/* Whether op `name` (an ONNX op type of the default domain) can be loaded. */
bool em_onnx_op_supported(const char *op_type);

/* ---- onnx_tensor.c ---- */
/* protobuf-c's allocator on ember's; `failed` tells an allocation failure from bad data. */
typedef struct onnx_pb_alloc {
    ProtobufCAllocator pa;
    const ember_allocator *al;
    bool failed;
} onnx_pb_alloc;
void em_onnx_pb_allocator(const ember_allocator *al, onnx_pb_alloc *a);
ember_dtype em_onnx_dtype(int32_t onnx_type, bool *known);
/*
 * Converts `tp` to shape + bytes: `*out` is a new reference to the storage holding them at
 * `*offset`. raw_data that lies inside the model image (the main graph's initializers, read
 * in place: em_onnx_wire_strip) is borrowed when aligned. `c` gives messages, allocator and
 * folder.
 */
ember_status *em_onnx_tensor_convert(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                  em_tensor *shape, em_storage **out, size_t *offset);
void em_onnx_ext_free(onnx_ctx *c);

/* ---- onnx_string.c ---- */
/* A string TensorProto's string_data (shape from tensor_shape) as a packed string storage. */
ember_status *em_onnx_tensor_strings(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                  const em_tensor *shape, em_storage **out);
/* Constant's value_string (a 0-D tensor) or value_strings (1-D) as initializer `out` of g. */
ember_status *em_onnx_const_strings(onnx_ctx *c, em_graph *g, const Onnx__AttributeProto *ap,
                                 const char *out, int *idx);

/* ---- onnx_wire.c ---- */
/* Checks nesting limits on the raw protobuf (before protobuf-c recurses into it) and records
 * the raw_data spans of the main graph's initializers into c->raw / c->n_raw. */
ember_status *em_onnx_wire_scan(onnx_ctx *c, const uint8_t *data, size_t size);
/* After em_onnx_wire_scan: *out (em_malloc'ed, or NULL when the main graph's initializers have
 * no raw_data) is the image without those raw_data fields, for protobuf-c to unpack without
 * copying the weights. */
ember_status *em_onnx_wire_strip(onnx_ctx *c, const uint8_t *data, size_t size, uint8_t **out,
                              size_t *out_size);

/* ---- onnx_gradient.c ---- */
/* Expands a Gradient node (ai.onnx.preview.training) by autodiff where it stands. */
ember_status *em_onnx_gradient_convert(onnx_ctx *c, onnx_scope *sc, onnx_pending *p);

/* ---- onnx_flex.c ---- */
/* Expands a FlexAttention node (ai.onnx.preview) into default-domain nodes where it stands,
 * inlining its score_mod / prob_mod subgraphs. */
ember_status *em_onnx_flex_convert(onnx_ctx *c, onnx_scope *sc, onnx_pending *p);

/* ---- onnx_msquant.c ---- */
/* Whether com.microsoft op `op` is expanded at load (DynamicQuantizeMatMul,
 * MatMulIntegerToFloat). */
bool em_onnx_ms_expanded(const char *op);
/* Expands node `p` (of em_onnx_ms_expanded's ops) into default-domain nodes. */
ember_status *em_onnx_ms_convert(onnx_ctx *c, onnx_scope *sc, onnx_pending *p);

/* ---- onnx_opset.c ---- */
/* The op name a NodeProto of the default domain becomes ("Dropout" -> "Identity", ...). */
const char *em_onnx_opset_target(const char *op_type);
/* Rewrites `p` to the newest form of its op for opset c->opset. May add constants or, for
 * forms that need several nodes, add them itself (p->emitted). */
ember_status *em_onnx_opset_normalise(onnx_ctx *c, onnx_scope *sc, onnx_pending *p);

#endif /* EMBER_LOADERS_ONNX_ONNX_INTERNAL_H */
