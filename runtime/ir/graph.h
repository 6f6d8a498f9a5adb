/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The graph IR shared by every loader. A graph owns values and nodes, stored in arrays and
 * referred to by index. Nodes are kept in topological order (the verifier checks it): a
 * node's inputs are graph inputs, initializers or outputs of earlier nodes.
 *
 * A value has a dtype and a shape whose dims are either known (>= 0) or symbolic (sym > 0:
 * an index into the graph's symbol names, e.g. "N") or unknown (v = -1, sym = 0).
 * Initializers own an em_tensor whose bytes live in a reference-counted em_storage, which
 * may be a memory map of the model file. Attributes are kept generic (ONNX style) on the
 * node; kernels parse them into their own typed structs while planning.
 */
#ifndef EMBER_IR_GRAPH_H
#define EMBER_IR_GRAPH_H

#include "ember.h"
#include "ir/op.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct em_dim {
    int64_t v;   /* >= 0 when known, -1 otherwise */
    int32_t sym; /* > 0: symbol id (graph->sym_names[sym - 1]); 0: none */
} em_dim;

/* The values a symbolic dim may take, lo..hi inclusive (torch.export's Dim("batch", min=1,
 * max=64), its range constraints). A new symbol allows 0..INT64_MAX. */
typedef struct em_sym_range {
    int64_t lo, hi;
} em_sym_range;

typedef enum em_value_kind {
    EM_VAL_INTERMEDIATE = 0,
    EM_VAL_INPUT,       /* a graph input, bound by the caller at run time */
    EM_VAL_INITIALIZER  /* a constant weight */
} em_value_kind;

/* What a value holds. Sequences and optionals carry their element's dtype in `dtype`; their
 * rank and dims describe the elements when known (rank -1 otherwise). */
typedef enum em_vtype {
    EM_VT_TENSOR = 0,
    EM_VT_SEQUENCE,          /* a list of tensors of one dtype (ONNX seq(tensor)) */
    EM_VT_OPTIONAL,          /* a tensor or nothing (ONNX optional(tensor)) */
    EM_VT_OPTIONAL_SEQUENCE  /* a sequence or nothing */
} em_vtype;

typedef struct em_value {
    char *name;
    em_value_kind kind;
    em_vtype vt;
    ember_dtype dtype;
    int rank;           /* -1 when unknown */
    em_dim dims[EM_MAX_RANK];
    int producer;       /* node index, -1 for inputs and initializers */
    bool is_output;     /* listed among the graph outputs */
    em_tensor init;     /* for initializers: shape and data (data points into `storage`) */
    em_storage *storage;
    em_qparams *q;      /* optional quantization parameters (owned) */
} em_value;

typedef enum em_attr_type {
    EM_ATTR_INT = 0,
    EM_ATTR_FLOAT,
    EM_ATTR_STRING,
    EM_ATTR_INTS,
    EM_ATTR_FLOATS,
    EM_ATTR_STRINGS,
    EM_ATTR_TENSOR,
    EM_ATTR_GRAPH
} em_attr_type;

struct em_graph;

typedef struct em_attr {
    char *name;
    em_attr_type type;
    int64_t i;
    float f;
    char *s;
    int64_t n;          /* element count of ints / floats / strings */
    int64_t *ints;
    float *floats;
    char **strings;
    em_tensor t;        /* EM_ATTR_TENSOR: bytes in `storage` */
    em_storage *storage;
    struct em_graph *g; /* EM_ATTR_GRAPH: owned subgraph */
} em_attr;

typedef struct em_node {
    em_op op;
    char *name;         /* never NULL; may be "" */
    int n_in, n_out;
    int *in;            /* value indices; -1 for an absent optional input */
    int *out;
    int n_attrs;
    em_attr *attrs;
} em_node;

typedef struct em_graph {
    const ember_allocator *al;
    int n_values, cap_values;
    em_value *values;
    int n_nodes, cap_nodes;
    em_node *nodes;
    int n_inputs, n_outputs;
    int *inputs;        /* value indices, positional */
    int *outputs;
    int n_syms;
    char **sym_names;
    em_sym_range *sym_ranges; /* n_syms entries, beside sym_names */
    int n_meta;
    char **meta_keys; /* model metadata (em_graph_set_meta) */
    char **meta_vals;
} em_graph;

ember_status *em_graph_new(const ember_allocator *al, em_graph **out);
void em_graph_destroy(em_graph *g);
/* Drops the resident pages of mapped `image` that no initializer or tensor attribute of g (or
 * of its subgraphs) points into any more, such as the weights Conv+BatchNorm folding
 * replaced; see em_storage_drop_pages. */
ember_status *em_graph_drop_unused_image(const em_graph *g, em_storage *image);
/* Frees what one value / one node owns (name, storage, qparams / inputs, outputs, attributes)
 * and zeroes it; the graph's arrays stay (graph passes drop nodes and values in place). */
void em_value_clear(const ember_allocator *al, em_value *v);
void em_node_clear(const ember_allocator *al, em_node *n);

/* Builders. Every name is copied. Functions return NULL status on success. */
ember_status *em_graph_add_value(em_graph *g, const char *name, ember_dtype dt, int rank,
                                 const em_dim *dims, int *out_index);
/* Adds a graph input with the given shape; dims < 0 are unknown, `dim_names[d]` (may be NULL
 * or contain NULLs) makes dim d symbolic. */
ember_status *em_graph_add_input(em_graph *g, const char *name, ember_dtype dt, int rank,
                                 const int64_t *dims, const char *const *dim_names,
                                 int *out_index);
/* Adds an initializer whose data lives in `storage` at `offset` (retained). */
ember_status *em_graph_add_initializer(em_graph *g, const char *name, ember_dtype dt, int rank,
                                       const int64_t *dims, em_storage *storage, size_t offset,
                                       int *out_index);
/* Adds an initializer with freshly allocated bytes copied from `data` (for strings: `data` is
 * an array of `const char *`, and the strings are copied). */
ember_status *em_graph_add_initializer_copy(em_graph *g, const char *name, ember_dtype dt,
                                            int rank, const int64_t *dims, const void *data,
                                            int *out_index);
/* Adds a node. `in` may contain -1 for absent optional inputs; output values are created
 * (intermediates with unknown shape) from `out_names`. Checks the op's arity. */
ember_status *em_graph_add_node(em_graph *g, em_op op, const char *name, const int *in,
                                int n_in, const char *const *out_names, int n_out,
                                int *out_node);
ember_status *em_graph_mark_output(em_graph *g, int value);
int em_graph_find_value(const em_graph *g, const char *name);
/* Symbol id (>= 1) for a symbolic dim name, created when new; 0 on OOM. */
int32_t em_graph_symbol(em_graph *g, const char *name);
/* Narrows the range of symbol `name` (created when new) to lo..hi: the planner refuses input
 * shapes that give the symbol a value outside it, and a load-time fix (ember_model_options_
 * set_input_shape / _set_dim_value) may not fix it outside it either. INVALID_ARG when
 * lo > hi or lo < 0. */
ember_status *em_graph_set_symbol_range(em_graph *g, const char *name, int64_t lo, int64_t hi);
/* Whether symbol `sym` (0: none, always true) may be `x`; *range (may be NULL) gets its range. */
bool em_graph_symbol_allows(const em_graph *g, int32_t sym, int64_t x, em_sym_range *range);
/* "[1, 64]" ("[2, inf]" without an upper bound) into buf (40 bytes are enough); returns buf. */
const char *em_sym_range_text(em_sym_range r, char *buf, size_t cap);

/* Attribute setters on node `node` (copied). */
ember_status *em_node_set_int(em_graph *g, int node, const char *name, int64_t v);
ember_status *em_node_set_float(em_graph *g, int node, const char *name, float v);
ember_status *em_node_set_string(em_graph *g, int node, const char *name, const char *v);
ember_status *em_node_set_ints(em_graph *g, int node, const char *name, const int64_t *v,
                               int64_t n);
ember_status *em_node_set_floats(em_graph *g, int node, const char *name, const float *v,
                                 int64_t n);
/* Appends a blank attribute of `type` for loaders that fill fields themselves. */
ember_status *em_node_add_attr(em_graph *g, int node, const char *name, em_attr_type type,
                               em_attr **out);

/* Attribute getters: the attribute or NULL; typed getters return `dflt` when absent or of
 * another type. em_node_attr_ints returns the count (and sets *v) or -1 when absent. */
const em_attr *em_node_attr(const em_node *n, const char *name);
int64_t em_node_attr_int(const em_node *n, const char *name, int64_t dflt);
float em_node_attr_float(const em_node *n, const char *name, float dflt);
const char *em_node_attr_string(const em_node *n, const char *name, const char *dflt);
int64_t em_node_attr_ints(const em_node *n, const char *name, const int64_t **v);

/* Checks structure: indices in range, topological order, arity, single producers, outputs
 * produced, dims valid. Errors name the node and what is wrong. */
ember_status *em_graph_verify(const em_graph *g);
/* Infers dtypes and (symbolic) shapes of every intermediate from the inputs' declared
 * shapes; dims it cannot tell stay unknown. Errors name the node. */
ember_status *em_graph_infer_shapes(em_graph *g);
/* The same for node `node` alone, from its inputs' current dtypes and shapes. */
ember_status *em_graph_infer_node(em_graph *g, int node);
/* Readable text, one line per node; caller frees with ember_string_free(). */
ember_status *em_graph_to_text(const em_graph *g, char **text);
int64_t em_graph_param_count(const em_graph *g);
/* Model metadata, key -> value (both copied): what the file says of itself (ONNX's producer,
 * doc string and metadata_props; a TorchScript archive's version and module tree). Setting a
 * key again replaces its value. */
ember_status *em_graph_set_meta(em_graph *g, const char *key, const char *value);

#endif /* EMBER_IR_GRAPH_H */
