/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember.h — the public C API of ember, a standalone neural-network inference runtime.
 *
 * This header is the manual. Conventions that hold for every function below:
 *
 *  - Objects are opaque and created by `ember_<obj>_create` (or a load call) with the new
 *    object returned through a `**out` argument; on failure `*out` is set to NULL.
 *    `ember_<obj>_destroy` frees an object, returns nothing, and ignores NULL.
 *  - Every call that can fail returns `ember_status *`: NULL means success. A non-NULL
 *    status carries a code and a message and must be released with ember_status_destroy().
 *  - Arguments are checked: a NULL object or out pointer, a count beyond what the object or
 *    the implementation holds and an enum value outside its enum are INVALID_ARG, with a
 *    message naming the function and the argument ("session_memory_info: NULL session").
 *    Accessors that return a value give the fixed value their doc names for a NULL object or
 *    an index out of range; void setters ignore a NULL object.
 *  - Arguments are borrowed for the duration of the call unless the doc says "takes
 *    ownership". Returned `const char *` strings and arrays belong to the object they came
 *    from and stay valid until that object is destroyed.
 *  - The library never prints, exits or aborts on input it was given; model and caller
 *    errors come back as statuses. Internal invariant violations (bugs) abort.
 *
 * Thread-safety, in short: a loaded ember_model is immutable and may be shared by any number
 * of threads and sessions. An ember_session may be run from many threads at once; each
 * concurrent run gets its own activation arena. Options objects and tensors are not
 * synchronised: do not change one from two threads at once. A status belongs to the thread
 * that received it.
 *
 * Sections, in order; each uses only what the ones above it declare:
 *   1. Versions and macros                 6. Models and loading
 *   2. Status                              7. Sessions and running
 *   3. Element types and value kinds       8. Profiling
 *   4. Allocator, logging and strings      9. Tensor files (.npy, ONNX .pb)
 *   5. Tensors, sequences and optionals   10. Run-time version and build info
 * New declarations go into the section they belong to, not at the end of the file.
 */
#ifndef EMBER_H
#define EMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. Versions and macros ------------------------------------------------------------ */

/*
 * Compile-time version of this header and the macros that decorate every declaration below:
 * EMBER_API (exported symbol), EMBER_NODISCARD (a returned status must not be ignored),
 * EMBER_DEPRECATED (marks API due for removal at the next major version). The run-time
 * version of the linked library is in section 10.
 */

#define EMBER_VERSION_MAJOR 0
#define EMBER_VERSION_MINOR 1
#define EMBER_VERSION_PATCH 0
/* major*10000 + minor*100 + patch */
#define EMBER_VERSION_NUMBER \
    (EMBER_VERSION_MAJOR * 10000 + EMBER_VERSION_MINOR * 100 + EMBER_VERSION_PATCH)

#if defined(_WIN32)
#if defined(EMBER_BUILDING_LIBRARY) && defined(EMBER_SHARED_LIBRARY)
#define EMBER_API __declspec(dllexport)
#elif defined(EMBER_SHARED_LIBRARY)
#define EMBER_API __declspec(dllimport)
#else
#define EMBER_API
#endif
#elif defined(__GNUC__)
#define EMBER_API __attribute__((visibility("default")))
#else
#define EMBER_API
#endif

#if defined(__GNUC__)
#define EMBER_NODISCARD __attribute__((warn_unused_result))
#define EMBER_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define EMBER_NODISCARD
#define EMBER_DEPRECATED(msg)
#endif

/* ---- 2. Status ------------------------------------------------------------------------- */

/*
 * How every fallible call reports failure: it returns `ember_status *`, NULL on success.
 * Ownership: a non-NULL status belongs to the caller, who frees it with
 * ember_status_destroy(); the message belongs to the status. Threads: a status belongs to the
 * thread that received it.
 */

/* Codes are stable: values are only ever appended. */
typedef enum ember_code {
    EMBER_OK = 0,
    EMBER_ERR_INVALID_ARG = 1,   /* a caller passed a bad argument (NULL, wrong shape, ...) */
    EMBER_ERR_INVALID_MODEL = 2, /* the model file or bytes are malformed */
    EMBER_ERR_UNSUPPORTED = 3,   /* op, dtype, ISA, device or format not supported */
    EMBER_ERR_OUT_OF_MEMORY = 4,
    EMBER_ERR_IO = 5,     /* a file could not be opened, read, mapped or written */
    EMBER_ERR_DEVICE = 6, /* a device (CUDA) call failed */
    EMBER_ERR_STATE = 7,  /* the call is not valid in the object's current state */
    EMBER_ERR_INTERNAL = 8
} ember_code;

typedef struct ember_status ember_status;

/* The code of `st`; EMBER_OK for NULL. Threads: any. */
EMBER_API ember_code ember_status_code(const ember_status *st);
/* The message of `st`, never NULL ("ok" for NULL). Owned by `st`. Threads: any. */
EMBER_API const char *ember_status_message(const ember_status *st);
/* Frees `st`. Ignores NULL and the preallocated out-of-memory status. */
EMBER_API void ember_status_destroy(ember_status *st);
/* A static name for a code, e.g. "INVALID_MODEL"; "UNKNOWN" for a value not an ember_code. */
EMBER_API const char *ember_code_name(ember_code code);

/* ---- 3. Element types and value kinds -------------------------------------------------- */

/*
 * What a tensor holds (ember_dtype), what a handle holds (ember_value_kind: a tensor, a
 * sequence or an empty optional) and what a model input or output is declared as
 * (ember_type_kind). Names are static strings. Threads: any.
 */

/*
 * Numbering follows ONNX's TensorProto.DataType so values can be appended compatibly.
 *
 * The low-precision types (F8*, F4E2M1, F6*, F8E8M0, U4, I4, U2, I2) are stored one element
 * per byte in memory, whatever their width: the byte holds the element's bit pattern in its
 * low bits (F8: the 8 bits; F6: bits 0-5; F4E2M1, U4, I4: bits 0-3; U2, I2: bits 0-1) and the
 * high bits are 0 (ember writes them so; readers ignore them). So ember_dtype_size() is 1 and a
 * tensor's data is indexed like uint8. ONNX files pack the sub-byte types (4-bit: two per byte,
 * the first element in the low nibble; 2-bit: four per byte from the low bits up; 6-bit: four
 * per three bytes); the loader unpacks them and anything ember writes in ONNX form packs them.
 * Formats: F8E4M3FN (bias 7, no infinity, NaN = S.1111.111), F8E4M3FNUZ (bias 8, NaN = 0x80,
 * no -0), F8E5M2 (IEEE-like, bias 15), F8E5M2FNUZ (bias 16, NaN = 0x80, no -0), F4E2M1 /
 * F6E2M3 (bias 1) / F6E3M2 (bias 3) (no infinity, no NaN), F8E8M0 (2^(e - 127), 0xFF = NaN).
 *
 * Half-precision models (F16 / BF16 weights, inputs and outputs: ONNX fp16 files, TorchScript
 * `.half()` / `.bfloat16()` modules) keep their half inputs and outputs, and compute in fp32
 * on the half values widened (exactly) at load: every intermediate stays fp32, and each half
 * output is the fp32 result rounded once to half (nearest even). Accuracy rule: an output is
 * within one ulp of its half format of the fp32 result on the same half weights and inputs
 * (summation order aside). A run that rounds each op's output to half (PyTorch's CPU half,
 * ONNX Runtime's fp16 kernels) differs from it by those roundings (within rtol 1e-2 for f16,
 * 3e-2 for bf16, on the tested models); a half intermediate that would overflow (beyond 65504
 * in f16) stays finite here. A model's own Cast to F16 / BF16 still rounds there, as ONNX and
 * PyTorch define. Weights are held once, in fp32 (twice the half file's bytes). A graph with
 * half inputs but no half weights runs its ops on their half kernels (planning fails, naming
 * the node, for an op without one), rounding each op's output.
 * See docs/NOTES.md, issue #21.
 */
typedef enum ember_dtype {
    EMBER_DTYPE_UNDEFINED = 0,
    EMBER_DTYPE_F32 = 1,
    EMBER_DTYPE_U8 = 2,
    EMBER_DTYPE_I8 = 3,
    EMBER_DTYPE_U16 = 4,
    EMBER_DTYPE_I16 = 5,
    EMBER_DTYPE_I32 = 6,
    EMBER_DTYPE_I64 = 7,
    EMBER_DTYPE_STRING = 8, /* elements are `const char *`, NUL-terminated UTF-8; NULL reads as "" */
    EMBER_DTYPE_BOOL = 9,
    EMBER_DTYPE_F16 = 10,
    EMBER_DTYPE_F64 = 11,
    EMBER_DTYPE_U32 = 12,
    EMBER_DTYPE_U64 = 13,
    EMBER_DTYPE_BF16 = 16,
    EMBER_DTYPE_F8E4M3FN = 17,
    EMBER_DTYPE_F8E4M3FNUZ = 18,
    EMBER_DTYPE_F8E5M2 = 19,
    EMBER_DTYPE_F8E5M2FNUZ = 20,
    EMBER_DTYPE_U4 = 21,
    EMBER_DTYPE_I4 = 22,
    EMBER_DTYPE_F4E2M1 = 23,
    EMBER_DTYPE_F8E8M0 = 24,
    EMBER_DTYPE_U2 = 25,
    EMBER_DTYPE_I2 = 26,
    EMBER_DTYPE_F6E2M3 = 27,
    EMBER_DTYPE_F6E3M2 = 28
} ember_dtype;

/* Size in bytes of one element of `dt`; 0 for an unknown dtype. Threads: any. */
EMBER_API size_t ember_dtype_size(ember_dtype dt);
/* A static short name ("f32", "i64", "bool", ...); "?" for an unknown dtype. */
EMBER_API const char *ember_dtype_name(ember_dtype dt);

/* Largest rank a tensor may have. */
#define EMBER_MAX_RANK 8

/*
 * Some models take or produce ONNX sequences of tensors (seq(tensor)) and optional values
 * (optional(tensor), optional(seq(tensor))). These travel in ember_tensor handles too: a handle
 * is a tensor, a sequence of tensors, or an empty optional. A present optional is passed as its
 * tensor or sequence. Sequence and empty-optional outputs are always created by the run (pass a
 * NULL slot). The tensor accessors (dtype, rank, data...) describe tensors only: on a sequence
 * they give the element dtype and rank 0 with no data.
 */
typedef enum ember_value_kind {
    EMBER_VALUE_TENSOR = 0,
    EMBER_VALUE_SEQUENCE = 1,
    EMBER_VALUE_NONE = 2 /* an empty optional */
} ember_value_kind;

/* What a model input or output is declared as. */
typedef enum ember_type_kind {
    EMBER_TYPE_TENSOR = 0,
    EMBER_TYPE_SEQUENCE = 1,
    EMBER_TYPE_OPTIONAL = 2,         /* optional(tensor) */
    EMBER_TYPE_OPTIONAL_SEQUENCE = 3 /* optional(seq(tensor)) */
} ember_type_kind;

/* ---- 4. Allocator, logging and returned strings ---------------------------------------- */

/*
 * Hooks a caller sets on the model options (section 6): the allocator for the memory of a
 * model, its sessions and tensors, and the log callback. Strings the library allocates for
 * the caller (graph and plan text) are freed with ember_string_free().
 */

/*
 * A user allocator. Every heap allocation the library makes for a model, its sessions and
 * tensors goes through it (statuses excepted: they use libc so that they can be freed
 * without context). Members come in groups, each either all set or all NULL (libc's
 * behaviour): `alloc`, `realloc` and `free`; `aligned_alloc` and `aligned_free`. `alignment`
 * is a power of two and `size` a multiple of it.
 * Threads: the functions may be called from any thread, concurrently.
 */
typedef struct ember_allocator {
    void *ctx;
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t size);
    void (*free)(void *ctx, void *ptr);
    void *(*aligned_alloc)(void *ctx, size_t alignment, size_t size);
    void (*aligned_free)(void *ctx, void *ptr);
} ember_allocator;

typedef enum ember_log_level {
    EMBER_LOG_ERROR = 0,
    EMBER_LOG_WARN = 1,
    EMBER_LOG_INFO = 2,
    EMBER_LOG_DEBUG = 3
} ember_log_level;

/* Log callback. `msg` is valid for the duration of the call. May fire on worker threads. */
typedef void (*ember_log_fn)(void *ctx, ember_log_level level, const char *msg);

/* Frees a string returned by the library. Ignores NULL. */
EMBER_API void ember_string_free(char *s);

/* ---- 5. Tensors, sequences and optionals ----------------------------------------------- */

/*
 * The handles that carry values into and out of a run. An ember_tensor handle is a dense
 * tensor, a sequence of tensors or an empty optional (section 3). Ownership: a handle returned
 * through `**out` belongs to the caller and is freed with ember_tensor_destroy(); pointers a
 * handle returns (dims, data, strings, sequence items) belong to it. Threads: not
 * synchronised; distinct handles are independent.
 */

/*
 * A dense, C-ordered tensor. It either owns its memory (ember_tensor_create: 64-byte aligned,
 * zero-filled) or wraps caller memory without copying (ember_tensor_wrap: the memory must
 * outlive the tensor). Threads: not synchronised; distinct tensors are independent.
 */
typedef struct ember_tensor ember_tensor;

/* A new zero-filled tensor of dims[0..rank). INVALID_ARG for a dtype with no elements, a rank
 * outside 0..EMBER_MAX_RANK, NULL dims with a rank above 0, negative or overflowing dims. */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_create(ember_dtype dtype,
                                                            const int64_t *dims, int rank,
                                                            ember_tensor **out);
/* Wraps `nbytes` at `data`; `nbytes` must equal the element count times the dtype size
 * (INVALID_ARG otherwise, or for NULL data with a size above 0). */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_wrap(ember_dtype dtype, const int64_t *dims,
                                                          int rank, void *data, size_t nbytes,
                                                          ember_tensor **out);
/* Frees the tensor and, if it owns it, its memory. Ignores NULL. */
EMBER_API void ember_tensor_destroy(ember_tensor *t);
/* The tensor's dtype, rank, dims, element count, size in bytes and data. For a NULL `t`:
 * EMBER_DTYPE_UNDEFINED, -1, NULL, 0, 0 and NULL. */
EMBER_API ember_dtype ember_tensor_dtype(const ember_tensor *t);
EMBER_API int ember_tensor_rank(const ember_tensor *t);
/* Pointer to the tensor's `rank` dims, owned by the tensor (NULL for a NULL `t`). */
EMBER_API const int64_t *ember_tensor_dims(const ember_tensor *t);
EMBER_API int64_t ember_tensor_elem_count(const ember_tensor *t);
EMBER_API size_t ember_tensor_nbytes(const ember_tensor *t);
EMBER_API void *ember_tensor_data(ember_tensor *t);

/* -- String tensors -- */

/*
 * Tensors of dtype EMBER_DTYPE_STRING hold `const char *` elements (ember_tensor_data() gives
 * the array): NUL-terminated UTF-8, a NULL element reading as "". ember_tensor_create() makes
 * one of empty strings; ember_tensor_wrap() wraps the caller's pointer array. Pointers a caller
 * stores into a tensor's array must stay valid while the tensor is used. Strings a run
 * produces and those of the functions below are copies the tensor owns: they stay valid until
 * the tensor is destroyed or, for a bound output slot, filled by another run. A string tensor
 * saves as a numpy unicode array ('<U' with the longest element's length) with
 * ember_tensor_save_npy() (INVALID_ARG for text that is not UTF-8); unicode ('<U') and bytes
 * ('|S') .npy files and TensorProto string_data load as string tensors.
 */

/* A new string tensor of dims[0..rank) holding copies of strings[0..numel) in row-major order
 * (a NULL entry gives ""; `strings` may be NULL when there are no elements). INVALID_ARG for
 * bad dims or a NULL argument. Free it with ember_tensor_destroy(). Threads: any. */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_create_strings(const int64_t *dims, int rank,
                                                                    const char *const *strings,
                                                                    ember_tensor **out);
/* Element i (row-major) of a string tensor: never NULL for an element ("" for a NULL pointer),
 * owned by the tensor. NULL when `t` is NULL or not a string tensor, or i is out of range. */
EMBER_API const char *ember_tensor_string(const ember_tensor *t, int64_t i);

/* -- Sequences and optionals (handle kinds: ember_value_kind, section 3) -- */

/* Whether `t` is a tensor, a sequence or an empty optional (EMBER_VALUE_TENSOR for NULL). */
EMBER_API ember_value_kind ember_tensor_kind(const ember_tensor *t);
/* A new sequence holding copies of items[0..n) (tensors of dtype `elem`; n may be 0). Free it
 * with ember_tensor_destroy(). INVALID_ARG for an `elem` that is not an ember_dtype, an item of
 * another dtype or kind, or more than INT_MAX items. Threads: any. */
EMBER_API EMBER_NODISCARD ember_status *ember_sequence_create(ember_dtype elem,
                                                              ember_tensor *const *items,
                                                              size_t n, ember_tensor **out);
/* Item count of a sequence (0 for other handles and NULL) and item i, owned by the sequence
 * (NULL when out of range). */
EMBER_API size_t ember_sequence_length(const ember_tensor *seq);
EMBER_API ember_tensor *ember_sequence_item(const ember_tensor *seq, size_t i);
/* A new empty optional whose value would have element dtype `elem` (INVALID_ARG when `elem` is
 * not an ember_dtype). */
EMBER_API EMBER_NODISCARD ember_status *ember_optional_none_create(ember_dtype elem,
                                                                   ember_tensor **out);

/* ---- 6. Models and loading ------------------------------------------------------------- */

/*
 * Reading a model (ONNX, TorchScript or built in) and asking what it declares: inputs and
 * outputs, metadata, opsets and its graph. Ownership: a loaded model is freed with
 * ember_model_destroy(), which ends the strings it returned; it must outlive every session
 * created from it. Threads: a loaded model is immutable; every function on a
 * `const ember_model *` may be called concurrently. Model options are not synchronised.
 */

/*
 * A loaded model: the graph, its weights and its declared inputs and outputs. Immutable once
 * loaded. Threads: every function on a `const ember_model *` may be called concurrently.
 * The model must outlive every session created from it.
 */
typedef struct ember_model ember_model;

/* -- Model options -- */

/* Options for loading a model. Threads: not synchronised. */
typedef struct ember_model_options ember_model_options;

EMBER_API EMBER_NODISCARD ember_status *ember_model_options_create(ember_model_options **out);
EMBER_API void ember_model_options_destroy(ember_model_options *opts);
/* Copies `*alloc` (NULL restores libc). The allocator must stay usable for the model's life. */
EMBER_API void ember_model_options_set_allocator(ember_model_options *opts,
                                                 const ember_allocator *alloc);
/* Log callback and the most verbose level passed to it (default: none). */
EMBER_API void ember_model_options_set_log(ember_model_options *opts, ember_log_fn fn,
                                           void *ctx, ember_log_level max_level);

/*
 * Declares the dtype and rank of input `index` (0-based, in forward()'s order) of a TorchScript
 * model. TorchScript declares neither, and code that depends on a tensor's rank (say
 * `if input.dim() != 4: raise ...`) is resolved when the model is lowered, so a TorchScript
 * model is built for one rank per input; every dim stays symbolic, so any shape of that rank
 * runs. Inputs not declared are float32 of unknown rank, which traced models usually need no
 * more than; a model whose code needs a rank then fails to load naming this call. ONNX models
 * declare their inputs and ignore it. Returns INVALID_ARG for a NULL `opts`, an index of 64 or
 * more, an invalid dtype or a rank outside -1..EMBER_MAX_RANK (-1: unknown).
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_options_set_input_rank(ember_model_options *opts,
                                                                           size_t index,
                                                                           ember_dtype dtype,
                                                                           int rank);

/*
 * Fixed input shapes (as ONNX Runtime's free-dimension overrides). A model loaded with them is
 * built for those shapes: shape inference, constant folding and the graph passes see concrete
 * dims before they run, so shape arithmetic (a TorchScript model's x.size(2) // 7, an ONNX
 * export's Shape / Gather / Concat chains) folds into constants and patterns that need known
 * dims fuse. The model then runs only inputs of those shapes (a session refuses others,
 * naming the input), and ember_model_input_shape() / ember_model_output_shape() report the
 * concrete dims.
 *
 * ember_model_options_set_input_shape() fixes the input named `name`;
 * ember_model_options_set_input_shape_at() the input at position `index` (as
 * ember_model_input_name(model, index)). `dims` holds `rank` sizes (>= 0), or -1 for a dim to
 * leave as the model declares it; a TorchScript model takes its input's rank from the shape.
 * Setting the same name or index again replaces the shape. The name and dims are copied.
 * ember_model_options_set_dim_value() fixes every input dim of symbolic name `dim_name` (an
 * ONNX dim_param such as "batch"; a TorchScript input `x` has dims "x_0", "x_1", ...) to
 * `value`; a name that no input dim has is ignored, as in ONNX Runtime.
 *
 * Returns INVALID_ARG for a NULL `opts`, a NULL or empty name, NULL `dims` with `rank` > 0, a
 * rank outside 0..EMBER_MAX_RANK, a dim below -1, a negative value, or more than 64 shapes or
 * dim names. Loading fails with INVALID_ARG, in one line naming the file and the input, when a
 * shape names no input of the model or an index past its inputs, has another rank than the
 * input's, or gives a dim a size other than the one the model fixes (or set_input_rank's rank)
 * or a symbolic dim a value outside the range the model declares for it (torch.export's Dim).
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_options_set_input_shape(ember_model_options *opts,
                                                                            const char *name,
                                                                            const int64_t *dims,
                                                                            int rank);
EMBER_API EMBER_NODISCARD ember_status *
ember_model_options_set_input_shape_at(ember_model_options *opts, size_t index,
                                       const int64_t *dims, int rank);
EMBER_API EMBER_NODISCARD ember_status *ember_model_options_set_dim_value(ember_model_options *opts,
                                                                          const char *dim_name,
                                                                          int64_t value);

/*
 * Which model of an archive that holds several to load, by name (`name` is copied; a second
 * call replaces the first). A torch.export archive (.pt2, written by torch.export.save or
 * torch.export.pt2_archive's package_pt2) may hold several programs, models/<name>.json; by
 * default the one named "model" is loaded. The names an archive holds are in its metadata
 * "pt2.models" (ember_model_metadata; `ember inspect` prints them). Loading fails with
 * INVALID_MODEL naming the file and the model when it holds none of that name (INVALID_ARG
 * for the one-program flat archives of torch 2.1-2.7 and a name other than "model"). Formats
 * with one model per file (ONNX, TorchScript) ignore it.
 * Returns INVALID_ARG for a NULL `opts`, a NULL or empty name; OUT_OF_MEMORY.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_options_set_model_name(ember_model_options *opts,
                                                                           const char *name);

/*
 * How much a model's graph is rewritten once at load, before any planning (as ONNX Runtime's
 * SessionOptions.graph_optimization_level). Outputs agree at every level within float
 * rounding; graph inputs, outputs, their names and dtypes are never changed.
 *  - EMBER_GRAPH_OPT_NONE: the graph as the loader built it.
 *  - EMBER_GRAPH_OPT_BASIC: constant folding, dead-code elimination and fusions (Conv +
 *    BatchNormalization, Conv + bias / residual Add / activation into FusedConv).
 *  - EMBER_GRAPH_OPT_ALL (the default): BASIC plus the layout pass, which keeps chains of
 *    convolutions in a channel-blocked layout with reorders only at their edges.
 *  - EMBER_GRAPH_OPT_FOLD: constant folding and dead-code elimination only: every node stays
 *    a standard ONNX op, so the graph can be saved as ONNX (ember_model_save_onnx).
 * ember_model_node_count(), ember_model_graph_text() and `ember inspect` show the graph after
 * the passes. Graphs with control flow (subgraphs) are loaded as they are at every level.
 */
typedef enum ember_graph_opt {
    EMBER_GRAPH_OPT_NONE = 0,
    EMBER_GRAPH_OPT_BASIC = 1,
    EMBER_GRAPH_OPT_ALL = 2,
    EMBER_GRAPH_OPT_FOLD = 3 /* between NONE and BASIC (numbered last to keep the others) */
} ember_graph_opt;

/* Sets the graph optimization level of the models loaded with `opts` (default
 * EMBER_GRAPH_OPT_ALL). INVALID_ARG for a NULL `opts` or a level not listed above. */
EMBER_API EMBER_NODISCARD ember_status *
ember_model_options_set_graph_optimization(ember_model_options *opts, ember_graph_opt level);

/*
 * Whether a QDQ model (QuantizeLinear / DequantizeLinear around its ops, as ONNX Runtime's
 * quantize_static writes) runs its quantized chains as integer ops (QLinearConv, QLinearAdd,
 * int8 MaxPool, ...) or in fp32 on the dequantized weights (issue #19).
 *  - EMBER_INT8_AUTO (the default): ember's choice for the CPU. Today the fp32 path: on AVX2
 *    without VNNI the int8 kernels are slower than the fp32 ones (docs/NOTES.md, issue #19).
 *  - EMBER_INT8_ON: every chain the rewrite can prove exact becomes an integer op; the others
 *    stay fp32 (ember_model_int8_note() says which and why).
 *  - EMBER_INT8_OFF: every chain stays fp32.
 * Outputs of the two paths agree within one quantization step of each quantized tensor. The
 * rewrite runs with the graph passes (not at EMBER_GRAPH_OPT_NONE). INVALID_ARG for a NULL
 * `opts` or a mode not listed here.
 */
typedef enum ember_int8_mode {
    EMBER_INT8_AUTO = 0,
    EMBER_INT8_ON = 1,
    EMBER_INT8_OFF = 2
} ember_int8_mode;

EMBER_API EMBER_NODISCARD ember_status *ember_model_options_set_int8(ember_model_options *opts,
                                                                     ember_int8_mode mode);

/*
 * Precision of weights and arithmetic: of the model's weights (ember_model_options_set_precision)
 * and of a session (ember_session_options_set_precision). BF16 was appended in 0.x (issue #21).
 */
typedef enum ember_precision {
    EMBER_PRECISION_FP32 = 0,
    EMBER_PRECISION_FP16 = 1,
    EMBER_PRECISION_INT8 = 2,
    EMBER_PRECISION_BF16 = 3
} ember_precision;

/*
 * The precision the model holds its large weights in (issue #21; `ember run --precision`).
 *  - EMBER_PRECISION_FP32 (the default): weights as the file has them. A half-precision model
 *    (f16 / bf16 weights) still holds in half those of its packed weights that the graph
 *    passes left unchanged (bit for bit: outputs as in fp32 compute on the half weights).
 *  - EMBER_PRECISION_FP16 / EMBER_PRECISION_BF16: after the graph passes (Conv+BatchNorm
 *    folding included), every f32 weight of at least 1024 elements that the CPU kernels pack
 *    (the W of Conv, but not depthwise ones; the B of Gemm / MatMul) is rounded to that format
 *    (nearest even) and held so: half the bytes. While a plan is built each is widened back to
 *    f32 (exactly), packed, and the widened copy freed, so arithmetic stays fp32 (accumulation
 *    included) on the rounded weights; activations stay fp32. The AVX2 Gemm / MatMul kernels
 *    keep their packed copies in half too (widened as they load them), and so does an AVX2
 *    conv on the blocked layout in builds without oneDNN; other kernels (oneDNN's convs,
 *    Winograd's transformed weights) pack f32. A session may then ask for the same precision. Error against fp32: the weights' rounding, relative 2^-11 (fp16) or 2^-8
 *    (bf16) per weight; docs/NOTES.md has the figures on torchvision models. On CPUs with
 *    AVX512-FP16 / AVX512-BF16 / AMX-BF16 no half arithmetic kernel exists yet: the same path.
 *  - EMBER_PRECISION_INT8: INVALID_ARG (int8 is the quantizer's: ember_quantize_*).
 * INVALID_ARG for a NULL `opts` or a value outside the enum.
 */
EMBER_API EMBER_NODISCARD ember_status *
ember_model_options_set_precision(ember_model_options *opts, ember_precision precision);

/*
 * Whether loading checks the CRC-32 of the weight storages of a TorchScript archive (default
 * true). Every zip record that is read is checked against the CRC-32 its directory entry
 * records; a mismatch fails the load with INVALID_MODEL naming the file and the record
 * ("model.pt: record 'model/data/3': CRC-32 mismatch (stored 0x..., computed 0x...)"), so a
 * corrupted file does not run with wrong weights. With `verify` false the weight storages
 * (the data/ and constants/ records; most of the file) are used without the check, for files
 * you trust; the pickles, code and version records are checked always. The check reads the
 * weights once at load (with PCLMULQDQ folding where the CPU has it: ~7 ms per 100 MB on a
 * Zen 3 core, 4-10 % of ResNet-50's load). ONNX files carry no checksums: the option does not
 * apply to them. INVALID_ARG for a NULL `opts`.
 */
EMBER_API EMBER_NODISCARD ember_status *
ember_model_options_set_verify_checksums(ember_model_options *opts, bool verify);

/* -- Loading -- */

/*
 * Loads a model file; the format (ONNX protobuf, TorchScript zip archive or torch.export
 * .pt2 archive) is told by content, not by name. `opts` may be NULL. Returns INVALID_ARG, IO,
 * INVALID_MODEL, UNSUPPORTED (a format or op this build does not read) or OUT_OF_MEMORY.
 * ember runs inference and keeps no state between runs: a torch.export program that updates
 * its buffers (a BatchNorm exported in train mode, a running average; in-place ops or
 * buffer_mutation outputs) runs on the buffers as saved and its updates are dropped (metadata
 * "pt2.dropped_mutations" lists them) when no output reads them, so each run gives what
 * PyTorch's module gives however often it was called; a program whose outputs read a buffer it
 * updates (a step counter) is refused with UNSUPPORTED naming the buffer.
 * On success `*out` is freed with ember_model_destroy().
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_load_file(const char *path,
                                                              const ember_model_options *opts,
                                                              ember_model **out);

/* Flags for ember_model_load_memory. */
#define EMBER_LOAD_BORROW 0x1u /* do not copy: the bytes must outlive the model, unchanged */

/* Loads a model from `size` bytes at `data`. Copies the bytes unless EMBER_LOAD_BORROW.
 * INVALID_ARG for a flag other than EMBER_LOAD_BORROW. */
EMBER_API EMBER_NODISCARD ember_status *ember_model_load_memory(const void *data, size_t size,
                                                                unsigned flags,
                                                                const ember_model_options *opts,
                                                                ember_model **out);

/*
 * Loads a model built into the library. `name` NULL or "default" gives the default model:
 * a small MNIST-sized CNN (input "input" f32 [N,1,28,28], output "probs" f32 [N,10]) with
 * deterministic weights. Returns INVALID_ARG for an unknown name.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_load_builtin(const char *name,
                                                                 const ember_model_options *opts,
                                                                 ember_model **out);

EMBER_API void ember_model_destroy(ember_model *model);

/* -- Inputs and outputs -- */

/* Format the model was read from: "onnx", "torchscript" or "builtin" (NULL for NULL). */
EMBER_API const char *ember_model_format(const ember_model *model);
/* Number of inputs / outputs (0 for a NULL model). */
EMBER_API size_t ember_model_input_count(const ember_model *model);
EMBER_API size_t ember_model_output_count(const ember_model *model);
/* Name of input/output `i`, or NULL when `i` is out of range or `model` NULL. Owned by the
 * model. */
EMBER_API const char *ember_model_input_name(const ember_model *model, size_t i);
EMBER_API const char *ember_model_output_name(const ember_model *model, size_t i);
/* Declared dtype of input/output `i` (EMBER_DTYPE_UNDEFINED when out of range or NULL). */
EMBER_API ember_dtype ember_model_input_dtype(const ember_model *model, size_t i);
EMBER_API ember_dtype ember_model_output_dtype(const ember_model *model, size_t i);
/* The declared kind of model input / output i (EMBER_TYPE_TENSOR when out of range or NULL). */
EMBER_API ember_type_kind ember_model_input_type(const ember_model *model, size_t i);
EMBER_API ember_type_kind ember_model_output_type(const ember_model *model, size_t i);
/*
 * Declared shape of input/output `i`: writes up to `cap` dims to `dims` and returns the rank
 * (-1 when `i` is out of range, `model` NULL or the rank unknown). A symbolic or unknown dim is
 * -1; its name, if it has one, comes from ember_model_input_dim_name(). With `dims` NULL or
 * `cap` 0 or less nothing is written: the rank alone.
 */
EMBER_API int ember_model_input_shape(const ember_model *model, size_t i, int64_t *dims,
                                      int cap);
EMBER_API int ember_model_output_shape(const ember_model *model, size_t i, int64_t *dims,
                                       int cap);
/* Name of symbolic dim `d` of input/output `i` ("N", "batch", ...), or NULL when it has none
 * (and for a NULL model or an index out of range). */
EMBER_API const char *ember_model_input_dim_name(const ember_model *model, size_t i, int d);
EMBER_API const char *ember_model_output_dim_name(const ember_model *model, size_t i, int d);

/* -- Metadata and opsets -- */

/*
 * Model metadata as key/value strings, in the order the loader set them. ONNX models give
 * "producer_name", "producer_version", "domain", "model_version", "doc_string", "graph_name"
 * (those present) and their metadata_props; TorchScript archives give "torchscript.version"
 * (the archive's file format version), "torchscript.root" (the root module's class) and
 * "torchscript.modules" (the module tree: one line per module, indented by depth, with its
 * attribute name, class and parameter count). ember_model_metadata() returns false for an
 * index out of range (the count is 0 and it returns false for a NULL model); either
 * out-argument may be NULL; the strings live as long as the model.
 */
EMBER_API size_t ember_model_metadata_count(const ember_model *model);
EMBER_API bool ember_model_metadata(const ember_model *model, size_t i, const char **key,
                                    const char **value);

/*
 * The operator sets a model imports, in the order of its file: `domain` is "" for ONNX's
 * default domain (or as written, e.g. "ai.onnx", "com.microsoft") and `version` its opset.
 * Built-in and TorchScript models import none (count 0). ember_model_opset() returns false
 * when `i` is out of range (then the out-arguments are untouched); a NULL model counts 0 and
 * gives false. `*domain` belongs to the model. Either out-argument may be NULL. Threads: any,
 * like every read of a model.
 */
EMBER_API size_t ember_model_opset_count(const ember_model *model);
EMBER_API bool ember_model_opset(const ember_model *model, size_t i, const char **domain,
                                 int64_t *version);

/* -- Graph -- */

/* Number of nodes, the op name of node `i` ("Conv", ...) and its node name (may be ""); 0 and
 * NULL for a NULL model, NULL for `i` out of range. */
EMBER_API size_t ember_model_node_count(const ember_model *model);
EMBER_API const char *ember_model_node_op(const ember_model *model, size_t i);
EMBER_API const char *ember_model_node_name(const ember_model *model, size_t i);
/*
 * What the int8 rewrite (ember_model_options_set_int8) did at load, one entry per quantized
 * chain it looked at, in graph order: `node` the chain's node name (the Conv, Add, ...), and
 * either `int8_op` the integer op it now runs as ("QLinearConv", "MaxPool (int8)", ...) with
 * `why` NULL, or `int8_op` NULL and `why` the reason the chain stays fp32. Count 0 when the
 * rewrite did not run (mode OFF / AUTO on this CPU) and for a NULL model;
 * ember_model_int8_note() returns false for `i` out of range. Out-arguments may be NULL; the
 * strings live as long as the model.
 */
EMBER_API size_t ember_model_int8_note_count(const ember_model *model);
EMBER_API bool ember_model_int8_note(const ember_model *model, size_t i, const char **node,
                                     const char **int8_op, const char **why);
/* Total number of elements in the model's weights (initializers); 0 for a NULL model. */
EMBER_API int64_t ember_model_param_count(const ember_model *model);
/* Bytes of the model's weights (initializers) of dtype `dtype` as the model holds them after
 * loading (EMBER_DTYPE_F16 / BF16 ones after ember_model_options_set_precision); 0 for a NULL
 * model or a dtype it holds none of. */
EMBER_API size_t ember_model_weight_bytes(const ember_model *model, ember_dtype dtype);
/*
 * The graph in ember's readable text form, one node per line. On success `*text` is a
 * NUL-terminated string freed with ember_string_free().
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_graph_text(const ember_model *model,
                                                               char **text);

/*
 * Writes the model's graph, as ember holds it after the load-time passes, as an ONNX file that
 * ember, ONNX Runtime and onnx's checker read back: a TorchScript archive becomes an ONNX
 * model without Python (`ember convert`). Load the model with EMBER_GRAPH_OPT_FOLD (or NONE)
 * first: the fusions of BASIC and ALL make ops that only ember runs (FusedConv, the blocked
 * layout), and those are refused with UNSUPPORTED naming the node. The default domain's opset
 * is the newest of 21, the source file's and what the ops need; weights past 1.8 GB go to
 * "<path>.data" beside it (ONNX external data). The file is written to a temporary name and
 * renamed, so `path` is either the whole model or untouched. INVALID_ARG for NULL arguments,
 * IO naming the file, UNSUPPORTED naming the node or value. Threads: any, like every read of a
 * model.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_model_save_onnx(const ember_model *model,
                                                             const char *path);

/* ---- 7. Sessions and running ----------------------------------------------------------- */

/*
 * A session turns a model into something runnable: session options, creation, running,
 * plans prepared ahead of a run and what they cost in memory. Ownership: a session is freed
 * with ember_session_destroy() and borrows its model. Threads: ember_session_run() and the
 * read-only queries may be called from many threads at once; session options are not
 * synchronised; ember_session_release_plans() must not overlap a run on the same session,
 * nor ember_session_destroy() any call on it.
 */

typedef enum ember_device { EMBER_DEVICE_CPU = 0, EMBER_DEVICE_CUDA = 1 } ember_device;
/* ember_precision: section 4, with ember_model_options_set_precision(). */

/* Options for a session. Threads: not synchronised. */
typedef struct ember_session_options ember_session_options;

EMBER_API EMBER_NODISCARD ember_status *ember_session_options_create(ember_session_options **out);
EMBER_API void ember_session_options_destroy(ember_session_options *opts);
/* Compute threads, the calling thread included; 0 (default) means one per core. More than
 * 1024 makes ember_session_create() return INVALID_ARG. */
EMBER_API void ember_session_options_set_threads(ember_session_options *opts, int n_threads);
/* Device and precision; a value outside its enum makes ember_session_create() return
 * INVALID_ARG naming it. Precision FP16 / BF16 needs a model that holds its weights in that
 * format (loaded with ember_model_options_set_precision, or an f16 / bf16 model): otherwise
 * UNSUPPORTED naming the precision; INT8 is UNSUPPORTED (quantize the model instead). */
EMBER_API void ember_session_options_set_device(ember_session_options *opts, ember_device dev);
EMBER_API void ember_session_options_set_precision(ember_session_options *opts,
                                                   ember_precision p);
/* Record per-node timings of every run (see ember_session_profile_*). Default off. */
EMBER_API void ember_session_options_set_profiling(ember_session_options *opts, bool on);
/*
 * Cap on the CPU features kernels may use: "scalar", "avx2", "avx512", "neon"
 * (AArch64 Advanced SIMD without its extensions) or "native" (default).
 * The environment variable EMBER_ISA_MAX sets the same cap for every session.
 * INVALID_ARG for an unknown name.
 */
EMBER_API EMBER_NODISCARD ember_status *
ember_session_options_set_isa_max(ember_session_options *opts, const char *isa);
/* How many plans (one per distinct input-shape signature) a session caches; default 8. */
EMBER_API void ember_session_options_set_plan_cache(ember_session_options *opts, int n_plans);
/*
 * How many idle run contexts each cached plan keeps once no run of the session is in flight;
 * default 1. A run context is what one run owns: an activation arena of the plan's
 * arena_bytes (ember_session_memory_info) and per-node tables. A run takes an idle context
 * of its plan or makes one, so n overlapping runs of one shape hold n contexts. When a run
 * ends, its plan keeps at most n_idle + (runs still in flight) idle contexts, and when the
 * last run in flight ends, every plan keeps at most n_idle: the other contexts of a burst are
 * freed. 0 frees them all whenever the session is quiet (each run then maps a new arena).
 * A negative value counts as 0.
 */
EMBER_API void ember_session_options_set_idle_contexts(ember_session_options *opts, int n_idle);
/*
 * Memory limit: the most bytes one run context's activation arena may take (the plan's
 * arena_bytes, see ember_session_memory_info, which holds every intermediate tensor and every
 * kernel's scratch); 0 (default) means no limit. The limit is per run context, not a session
 * total: n overlapping runs of one shape may hold n arenas of up to `bytes` each (bound them
 * with fewer threads calling ember_session_run, and idle ones with
 * ember_session_options_set_idle_contexts). Checked whenever a plan is built, right after
 * its memory is planned and before any arena is mapped: a plan over the limit is freed again
 * and ember_session_create() (when it plans at creation), ember_session_prepare() or
 * ember_session_run() returns OUT_OF_MEMORY, "memory limit: the plan for these input shapes
 * needs an activation arena of N bytes, over the limit of L bytes". It does not bound the
 * model's weights, packed weights, the plans' own tables, tensors the caller or a run creates,
 * nor models run node by node (no plan); a caller-supplied ember_allocator bounds those.
 */
EMBER_API void ember_session_options_set_memory_limit(ember_session_options *opts, size_t bytes);

/*
 * A model prepared for running: kernels chosen, memory planned per input-shape signature,
 * a thread pool. Threads: ember_session_run() and the read-only queries may be called from
 * many threads at once; each concurrent run gets its own activation arena. Destroy only when
 * no call on the session is in progress.
 */
typedef struct ember_session ember_session;

/*
 * Creates a session for `model` (which must outlive it). `opts` may be NULL. When every
 * input shape is fully known, the plan for it is built here. Returns INVALID_ARG for options
 * holding a value outside its enum or too many threads, UNSUPPORTED for a device, precision
 * or op this build cannot run, OUT_OF_MEMORY.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_session_create(const ember_model *model,
                                                             const ember_session_options *opts,
                                                             ember_session **out);
EMBER_API void ember_session_destroy(ember_session *s);

/*
 * Runs the model. `inputs` holds the model's inputs in positional order. `outputs` has one
 * slot per model output: a slot holding a tensor receives the result in place (its dtype and
 * shape must match, INVALID_ARG otherwise); a NULL slot receives a new tensor the caller frees
 * with ember_tensor_destroy(). With every output bound, a run of an already planned shape makes
 * no heap allocation. INVALID_ARG when `n_inputs` or `n_outputs` is not the model's count, or
 * an input's shape contradicts the model's: a dim the model fixes, a symbolic dim given two
 * values, or one outside the range the model declares for it (torch.export's
 * Dim("batch", min=3, max=64): "input 0 'x': dim 0 ('s77') is 100, outside its range [3, 64]";
 * as torch's own guards, a low bound of 2 or less is not enforced).
 * Errors name the input, the node and what is wrong.
 * Threads: may be called concurrently on one session.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_session_run(ember_session *s,
                                                          ember_tensor *const *inputs,
                                                          size_t n_inputs,
                                                          ember_tensor **outputs,
                                                          size_t n_outputs);

/*
 * Builds (or finds in the cache) the plan for the given input shapes without running it.
 * `shapes[i]` points at `ranks[i]` dims of input i. INVALID_ARG when `n_inputs` is not the
 * model's input count, a rank is outside 0..EMBER_MAX_RANK or a shape of rank above 0 is
 * NULL; STATE for a model run node by node, which has no plan.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_session_prepare(ember_session *s,
                                                              const int64_t *const *shapes,
                                                              const int *ranks, size_t n_inputs);
/* Number of compute threads the session uses (0 for a NULL session). */
EMBER_API int ember_session_thread_count(const ember_session *s);

/* -- Plans and memory -- */

/*
 * What a session holds, and what bounds it:
 *  - plans: at most the plan cache's cap (ember_session_options_set_plan_cache), each with
 *    its kernels' state;
 *  - run contexts: per plan, one per overlapping run, trimmed when runs end
 *    (ember_session_options_set_idle_contexts), each holding one activation arena (of at
 *    most the session's memory limit when one is set: ember_session_options_set_memory_limit);
 *  - packed weights: kernels that repack constant weights into their own layout (oneDNN's
 *    convolutions, GEMM panels) share each packing between every plan of every session of
 *    the model whose layout is the same, so shape churn adds at most a few copies of the
 *    weights (one per layout the kernels choose), not one per plan.
 * So RSS stays within the cap's plans and their arenas plus the packed weights, whatever
 * number of shapes a session sees. Big blocks (arenas, weights, packed weights, tensors of
 * 256 KiB and more) are mapped and unmapped directly rather than kept in malloc's heap, so
 * that destroying a session and its model gives their memory back to the system.
 *
 * Process-wide caches: oneDNN (in builds with it, see ember_build_info()) keeps every
 * primitive it creates in a cache of its own, 1024 primitives by default, each holding
 * generated code, which under shape churn held most of a process's growth. When the first
 * session is created, ember sets that capacity to EMBER_ONEDNN_PRIMITIVE_CACHE, unless the
 * environment variable ONEDNN_PRIMITIVE_CACHE_CAPACITY (or DNNL_PRIMITIVE_CACHE_CAPACITY) is
 * set or the program has changed it with oneDNN's dnnl_set_primitive_cache_capacity(); either
 * stays in force (0 turns the cache off). ember's plans keep their own primitives, so the
 * cache only saves generating code again when a plan is rebuilt for shapes seen before (by
 * another session, or after eviction from the plan cache).
 */
#define EMBER_ONEDNN_PRIMITIVE_CACHE 256

/* What ember_session_memory_stat reports. Values may be appended within a major version. */
typedef enum ember_memory_stat {
    EMBER_MEMORY_PLANS = 0,               /* plans cached now */
    EMBER_MEMORY_PLAN_ARENA_BYTES = 1,    /* sum of the cached plans' arena sizes */
    EMBER_MEMORY_PACKED_WEIGHT_BYTES = 2, /* packed weights: the model's shared ones (held for
                                           * all its sessions, each copy once) plus those of
                                           * constants this session's plans computed */
    EMBER_MEMORY_RUN_CONTEXTS = 3,        /* run contexts alive, in use or idle */
    EMBER_MEMORY_IDLE_RUN_CONTEXTS = 4,   /* of those, idle ones of cached plans */
    EMBER_MEMORY_RUN_CONTEXT_BYTES = 5    /* bytes of all run contexts (arenas and tables) */
} ember_memory_stat;

/*
 * One memory figure of the session, into `*value` (0 when nothing is held, also before the
 * first plan). INVALID_ARG for a NULL session or value, or a stat outside ember_memory_stat.
 * Threads: may be called while the session runs; the figures are a snapshot.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_session_memory_stat(const ember_session *s,
                                                                  ember_memory_stat stat,
                                                                  size_t *value);

/*
 * Memory figures of the most recently built plan: `arena_bytes` is the size of one activation
 * arena, `naive_bytes` the sum of all intermediate tensors (what a planner without reuse would
 * need). Either out-argument may be NULL. STATE when no plan was built yet.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_session_memory_info(const ember_session *s,
                                                                  size_t *arena_bytes,
                                                                  size_t *naive_bytes);
/*
 * The most recent plan as text: per node its kernel, and per intermediate its size, offset in
 * the arena and lifetime [first node, last node]. Free with ember_string_free().
 */
EMBER_API EMBER_NODISCARD ember_status *ember_session_plan_text(const ember_session *s,
                                                                char **text);
/* Drops every cached plan and idle arena; the next run plans again. Threads: not concurrent
 * with a run on the same session. */
EMBER_API void ember_session_release_plans(ember_session *s);

/* ---- 8. Profiling ---------------------------------------------------------------------- */

/*
 * Per-node timings of a session created with ember_session_options_set_profiling(). A
 * snapshot outlives its session but not its model, whose names it returns; free it with
 * ember_profile_destroy(). Threads: a snapshot is read-only and may be shared.
 */

/*
 * A snapshot of the per-node events recorded by a session created with profiling on: one
 * event per node per run, with start time (ns from the session's creation) and duration.
 * A snapshot is independent of its session once taken, but its strings belong to the model:
 * destroy it before the model. Threads: read-only, may be shared.
 */
typedef struct ember_profile ember_profile;

/* Takes a snapshot of the events recorded so far; `clear` drops them from the session. */
EMBER_API EMBER_NODISCARD ember_status *ember_session_profile(ember_session *s, bool clear,
                                                              ember_profile **out);
EMBER_API void ember_profile_destroy(ember_profile *p);
/* Number of events (0 for a NULL profile). The accessors of event `i` below give "" and 0 for
 * a NULL profile or `i` out of range. */
EMBER_API size_t ember_profile_event_count(const ember_profile *p);
/* Node name (never NULL; "" when unnamed), op name and kernel name of event `i`. */
EMBER_API const char *ember_profile_event_node(const ember_profile *p, size_t i);
EMBER_API const char *ember_profile_event_op(const ember_profile *p, size_t i);
EMBER_API const char *ember_profile_event_kernel(const ember_profile *p, size_t i);
EMBER_API int64_t ember_profile_event_start_ns(const ember_profile *p, size_t i);
EMBER_API int64_t ember_profile_event_dur_ns(const ember_profile *p, size_t i);
/* Sequence number of the run the event belongs to (0, 1, ...) and a small thread id. */
EMBER_API int64_t ember_profile_event_run(const ember_profile *p, size_t i);
EMBER_API int ember_profile_event_thread(const ember_profile *p, size_t i);

/* ---- 9. Tensor files (.npy, ONNX .pb) -------------------------------------------------- */

/*
 * Reading and writing values as files (test data, `ember run` inputs and outputs): NumPy
 * `.npy` and serialized ONNX protobuf values. Ownership: a value read is a new handle freed
 * with ember_tensor_destroy(); a value written is only read. Threads: any, on distinct
 * handles; errors name the file.
 */

/* -- NumPy .npy -- */

/*
 * Reads a NumPy `.npy` file (format 1.0–3.0, C order, little-endian, any dtype above) into a
 * new owned tensor freed with ember_tensor_destroy(). IO when the file cannot be read;
 * INVALID_MODEL for a malformed or truncated file, Fortran order or big-endian data;
 * UNSUPPORTED for a dtype ember has no equivalent of or an unknown format version.
 * The message names the file.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_load_npy(const char *path,
                                                              ember_tensor **out);
/* The same from `size` bytes in memory; `what` names the source in messages (may be NULL). */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_load_npy_memory(const void *data,
                                                                     size_t size,
                                                                     const char *what,
                                                                     ember_tensor **out);
/* Writes `t` as a `.npy` file (format 1.0, C order, little-endian; strings as '<U'). IO on a
 * write error; UNSUPPORTED for bf16, which NumPy has no type for; INVALID_ARG for a sequence
 * or an empty optional (ember_value_save_pb() writes those). */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_save_npy(const ember_tensor *t,
                                                              const char *path);

/* -- ONNX TensorProto, SequenceProto, OptionalProto -- */

/*
 * Reads a serialized ONNX TensorProto (a `.pb` file such as the conformance suite's
 * input_0.pb) into a new owned tensor freed with ember_tensor_destroy(). Data may be in
 * raw_data, in the typed fields (string_data for strings) or in an external file beside
 * `path`. IO when a file cannot be read; INVALID_MODEL for a malformed file or data that does
 * not match the dims; UNSUPPORTED for dtypes ember lacks or a build without the ONNX loader.
 * The message names the file. Threads: any.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_load_pb(const char *path,
                                                             ember_tensor **out);
/* The same from `size` bytes in memory (no external data); `what` names the source in
 * messages (may be NULL). */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_load_pb_memory(const void *data,
                                                                    size_t size,
                                                                    const char *what,
                                                                    ember_tensor **out);
/*
 * Reads a serialized ONNX value of the given kind: a TensorProto (EMBER_TYPE_TENSOR), a
 * SequenceProto of tensors (EMBER_TYPE_SEQUENCE) or an OptionalProto (the optional kinds;
 * an empty one gives an EMBER_VALUE_NONE handle). The kind must come from the model (a file
 * does not say which message it holds). Errors as for ember_tensor_load_pb(); INVALID_ARG for
 * a `kind` that is not an ember_type_kind. Threads: any.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_value_load_pb(const char *path, ember_type_kind kind,
                                                            ember_tensor **out);
/*
 * Writes `v` to `path` as a serialized ONNX value, the inverse of ember_value_load_pb(): with
 * kind EMBER_TYPE_TENSOR a TensorProto (dims, data_type, raw_data), EMBER_TYPE_SEQUENCE a
 * SequenceProto of tensors, the optional kinds an OptionalProto (empty for an EMBER_VALUE_NONE
 * handle). Every dtype with a fixed element size can be written, bfloat16 included, which
 * .npy cannot hold. INVALID_ARG when `v` is not of `kind`, IO when the file cannot be written.
 * Threads: any.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_value_save_pb(const ember_tensor *v,
                                                            ember_type_kind kind,
                                                            const char *path);

/* -- Either format -- */

/*
 * Reads a tensor file of either kind, told apart by content: a `.npy` file starts with
 * "\x93NUMPY", anything else is read as an ONNX TensorProto. Errors as for
 * ember_tensor_load_npy() and ember_tensor_load_pb(). Threads: any.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_tensor_load(const char *path, ember_tensor **out);

/* ---- 9b. Quantization (issue #20) ------------------------------------------------------- */

/*
 * ember's own quantizer: an fp32 model (ONNX or TorchScript) becomes a QDQ ONNX model as ONNX
 * Runtime's quantize_static writes it (QuantizeLinear -> DequantizeLinear pairs on the
 * activations of Conv, Gemm, MatMul, Add, Mul, Concat, pools, Sigmoid, ...; int8 weights with
 * a DequantizeLinear, int32 biases), which ember (ember_model_options_set_int8) and ONNX
 * Runtime both run. Scales and zero points follow ORT's compute_scale_zp. Calibration runs
 * the fp32 model on ember's own executor, batch by batch, and keeps each observed
 * activation's range (MinMax: the smallest minimum and largest maximum over every batch).
 * Ownership: options and quantizers are freed by their destroy functions. Threads: a
 * quantizer is not synchronised (one thread at a time); options neither.
 */
typedef enum ember_quant_mode {
    EMBER_QUANT_STATIC = 0,     /* calibrated activations and int8 weights (QDQ) */
    EMBER_QUANT_DYNAMIC = 1,    /* MatMul weights int8, activations quantized at run time */
    EMBER_QUANT_WEIGHT_ONLY = 2 /* int8 weights + DequantizeLinear, fp32 compute */
} ember_quant_mode;

/* How an activation's range is chosen from the calibration batches (ONNX Runtime's calibrators'
 * semantics, docs/NOTES.md "Issue #20 item 1"): */
typedef enum ember_calib_method {
    EMBER_CALIB_MINMAX = 0,     /* the exact min and max */
    EMBER_CALIB_PERCENTILE = 1, /* symmetric, the percentile of |x| (ORT's PercentileCalibrater) */
    EMBER_CALIB_ENTROPY = 2,    /* the KL-divergence threshold (ORT's EntropyCalibrater) */
    EMBER_CALIB_MSE = 3         /* the least squared quantization error (PyTorch's
                                 * HistogramObserver) */
} ember_calib_method;

typedef struct ember_quantize_options ember_quantize_options;

/* Defaults: static, per-channel weights, u8 asymmetric activations, MinMax, nothing excluded
 * (ORT quantize_static's defaults with per_channel=True). */
EMBER_API EMBER_NODISCARD ember_status *ember_quantize_options_create(ember_quantize_options **out);
EMBER_API void ember_quantize_options_destroy(ember_quantize_options *opts);
/* INVALID_ARG for a NULL `opts` or a mode outside ember_quant_mode. */
EMBER_API EMBER_NODISCARD ember_status *ember_quantize_options_set_mode(ember_quantize_options *opts,
                                                                         ember_quant_mode mode);
/* Per-channel weights (Conv on axis 0, Gemm on axis 1 or 0 with transB, MatMul's 2-D B on
 * axis 1) or one scale per weight tensor. INVALID_ARG for a NULL `opts`. */
EMBER_API EMBER_NODISCARD ember_status *
ember_quantize_options_set_per_channel(ember_quantize_options *opts, bool per_channel);
/* Activation storage type: EMBER_DTYPE_U8 (default) or EMBER_DTYPE_I8; INVALID_ARG
 * otherwise. */
EMBER_API EMBER_NODISCARD ember_status *
ember_quantize_options_set_activation_type(ember_quantize_options *opts, ember_dtype dt);
/* Symmetric activations (default false; weights are always symmetric int8). With symmetric
 * activations Relu / Clip stay as nodes between their own Q/DQ pairs, as in ORT. INVALID_ARG
 * for a NULL `opts`. */
EMBER_API EMBER_NODISCARD ember_status *
ember_quantize_options_set_symmetric(ember_quantize_options *opts, bool symmetric);
/* Calibration method; `percentile` (in (0, 100]) is read for EMBER_CALIB_PERCENTILE only.
 * The histogram methods keep a bounded histogram per observed tensor (48-384 KB) and choose the
 * ranges when the model is written, the cache saved or the report made (entropy:
 * ember_quantize_options_set_entropy). INVALID_ARG for a NULL `opts`, a method outside the enum or a
 * bad percentile. */
EMBER_API EMBER_NODISCARD ember_status *
ember_quantize_options_set_method(ember_quantize_options *opts, ember_calib_method method,
                                  double percentile);
/* Entropy's histogram and search (EMBER_CALIB_ENTROPY only): the KL search runs on `bins` bins
 * over [-T, T] (T the largest |x|) of all calibration values, as ORT's quantize_static makes it
 * (num_bins), quantized to `levels` bins (num_quantized_bins). Default 128 / 128, ORT's
 * defaults, where the one window is the whole range: the min and max. bins = 0 searches the
 * histogram as it grew batch by batch (2 x 2048 bins to start); with levels 256 that is
 * TensorRT's scale of search (slower: 50-250 ms a tensor). INVALID_ARG for a NULL `opts`,
 * bins outside 0 or [2, 2^21], levels outside [2, 65536]. */
EMBER_API EMBER_NODISCARD ember_status *
ember_quantize_options_set_entropy(ember_quantize_options *opts, int64_t bins, int levels);
/* Leaves in fp32 every node whose name or op type (e.g. "Gemm") is `name` (copied; repeat for
 * more). An entry that matches no node makes ember_quantizer_create fail with INVALID_ARG
 * naming it. INVALID_ARG for NULL arguments or an empty name. */
EMBER_API EMBER_NODISCARD ember_status *
ember_quantize_options_add_exclude(ember_quantize_options *opts, const char *name);

typedef struct ember_quantizer ember_quantizer;

/*
 * Loads the fp32 model at `path` with `model_opts` (may be NULL; its graph optimization level
 * is replaced by EMBER_GRAPH_OPT_FOLD, input shapes and ranks are kept: a TorchScript model
 * needs them) and decides what to quantize with `opts` (may be NULL: the defaults).
 * INVALID_ARG for NULL `path` / `out` or an exclude entry matching nothing, UNSUPPORTED for a
 * calibration method this build lacks, and the errors of ember_model_load_file.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_create(const char *path,
                                                              const ember_model_options *model_opts,
                                                              const ember_quantize_options *opts,
                                                              ember_quantizer **out);
EMBER_API void ember_quantizer_destroy(ember_quantizer *q);
/*
 * Runs the fp32 model on one calibration batch: `inputs` are the model's inputs in positional
 * order (ember_model_input_name gives the names), as for ember_session_run. Static mode only
 * (INVALID_ARG otherwise); STATE after the model was written. Errors: INVALID_ARG for a count
 * or a tensor of the wrong dtype or shape (naming the input); INVALID_MODEL naming the tensor
 * and its node when an observed activation holds NaN or Inf.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_add_batch(ember_quantizer *q,
                                                                  ember_tensor *const *inputs,
                                                                  size_t n_inputs);
/* Batches added so far (0 for NULL). */
EMBER_API size_t ember_quantizer_batch_count(const ember_quantizer *q);
/* The fp32 model being quantized (owned by `q`; NULL for NULL): its inputs, names, ... */
EMBER_API const ember_model *ember_quantizer_model(const ember_quantizer *q);
/*
 * The calibration cache: the observed ranges in a small versioned text file
 * ("ember-calibration 1" then one "range LO HI NAME" line per tensor, LO and HI as C99 hex
 * floats), written whole or not at all. Loading replaces the ranges of the tensors it names
 * (batches added later widen them); a file that lacks a tensor this model needs fails at
 * finishing, naming it. INVALID_ARG for NULL arguments; IO naming the file; INVALID_MODEL
 * naming the file and line of a malformed file.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_save_calibration(const ember_quantizer *q,
                                                                         const char *path);
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_load_calibration(ember_quantizer *q,
                                                                         const char *path);
/*
 * Finishes: rewrites the graph (once; later calls reuse it) and writes it to `path` as an ONNX
 * model (opset 21), whole or not at all. STATE for static mode without any batch or cache
 * (naming the first tensor without a range). INVALID_ARG for NULL arguments; IO naming the
 * file.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_save_onnx(ember_quantizer *q,
                                                                 const char *path);
/*
 * Finishes as ember_quantizer_save_onnx and loads the quantized model in memory with
 * `model_opts` (may be NULL: the int8 rewrite on, EMBER_INT8_ON). Free `*out` with
 * ember_model_destroy; it does not borrow `q`.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_load_model(ember_quantizer *q,
                                                                   const ember_model_options *model_opts,
                                                                   ember_model **out);
/*
 * A readable report (free with ember_string_free): how many nodes were quantized, each node
 * left in fp32 with the reason, the exclude entries; after finishing, with `sqnr` true and
 * calibration batches kept (the first 32), on those batches: the outputs' SQNR and argmax
 * agreement of the QDQ model (run by ember, int8 rewrite off) against the fp32 model, and per
 * calibrated tensor the SQNR in dB alone (the fp32 value against its own quantize-dequantize
 * round trip; its producer's weight against its int8 round trip) and accumulated (the tensor
 * as its readers see it in the QDQ model, every quantization up to there), then the tensor
 * with the lowest SQNR alone and the one whose accumulated SQNR falls most below its input's.
 * INVALID_ARG for NULL arguments.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_quantizer_report(ember_quantizer *q, bool sqnr,
                                                               char **text);

/* ---- 11. Training (issue #22) ---------------------------------------------------------- */

/*
 * Fine-tuning without Python: a trainer computes a loss on a model's output 0 against a
 * target, its gradients with respect to the trainable parameters, and applies an optimizer
 * after each step; the result is saved with the updated weights as ONNX, or, for a TorchScript
 * model, as its own archive rewritten.
 *
 * Load the model with EMBER_GRAPH_OPT_NONE: FOLD folds computations on weights (TorchScript's
 * transposed Linear weights) into new constants, which would then train in the parameters'
 * place under their node's name, and the fused ops of BASIC and ALL (FusedConv, the blocked
 * layout) have no gradient rule. (The training graph itself is folded once the parameters are
 * inputs, so NONE costs nothing at run time.) The trainer clones the model's graph (the model
 * is not changed and its sessions keep running), turns the trainable parameters into inputs
 * bound to the trainer's own f32 buffers, appends the loss and the backward nodes, and plans
 * forward and backward together as one session (one activation arena). Trainable parameters:
 * the model's f32 initializers of rank >= 1 that the loss depends on (ONNX initializer names;
 * TorchScript state_dict names such as fc1.weight), all of them by default or those matching
 * a train pattern, less those matching a freeze pattern; frozen ones stay constants.
 * BatchNormalization's running statistics are never trained. By default the model runs in
 * eval mode (BatchNormalization with its stored statistics, Dropout off); options turn on
 * PyTorch's train mode for BatchNormalization (batch statistics, running statistics updated)
 * and for Dropout (seeded masks).
 *
 * Ownership: a trainer borrows its model (which must outlive it) and owns its parameters,
 * gradients and optimizer state; tensors it returns are new and owned by the caller.
 * Threads: calls on one trainer must not overlap; distinct trainers (also of one model) may
 * be used from different threads. Trainer options are not synchronised.
 */

/* The loss, on model output 0. CROSS_ENTROPY (log-softmax over axis 1) and NLL (the output
 * holds log-probabilities) take int64 class indices of the output's shape less axis 1; the
 * others take f32 targets of the output's shape (BCE_WITH_LOGITS: probabilities in [0, 1]).
 * SMOOTH_L1 uses beta 1 (PyTorch's default). */
typedef enum ember_loss {
    EMBER_LOSS_CROSS_ENTROPY = 0,
    EMBER_LOSS_NLL = 1,
    EMBER_LOSS_MSE = 2,
    EMBER_LOSS_L1 = 3,
    EMBER_LOSS_SMOOTH_L1 = 4,
    EMBER_LOSS_BCE_WITH_LOGITS = 5
} ember_loss;
typedef enum ember_reduction { EMBER_REDUCTION_MEAN = 0, EMBER_REDUCTION_SUM = 1 } ember_reduction;
/* PyTorch's torch.optim.SGD, Adam and AdamW, same update formulas and defaults. */
typedef enum ember_optimizer {
    EMBER_OPTIMIZER_SGD = 0,
    EMBER_OPTIMIZER_ADAM = 1,
    EMBER_OPTIMIZER_ADAMW = 2
} ember_optimizer;
/* Learning rate at step t (0-based) from the base rate lr, with `period` P and `factor` f:
 * CONSTANT lr; STEP lr f^floor(t / P) (StepLR, f = gamma); COSINE f + (lr - f)(1 + cos(pi t /
 * P)) / 2 (CosineAnnealingLR, f = eta_min); LINEAR_WARMUP lr (f + (1 - f) min(t, P) / P)
 * (LinearLR from start factor f to 1 over P steps). */
typedef enum ember_lr_schedule {
    EMBER_LR_CONSTANT = 0,
    EMBER_LR_STEP = 1,
    EMBER_LR_COSINE = 2,
    EMBER_LR_LINEAR_WARMUP = 3
} ember_lr_schedule;

/* Options of a trainer. Defaults: cross-entropy, mean, no label smoothing, every parameter,
 * SGD with lr 0.01 and no momentum, constant rate, one thread per core. Not synchronised. */
typedef struct ember_trainer_options ember_trainer_options;

EMBER_API EMBER_NODISCARD ember_status *ember_trainer_options_create(ember_trainer_options **out);
EMBER_API void ember_trainer_options_destroy(ember_trainer_options *opts);
/* INVALID_ARG for a NULL `opts` or a value outside its enum. */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_options_set_loss(ember_trainer_options *opts,
                                                                      ember_loss loss,
                                                                      ember_reduction reduction);
/* Cross-entropy's label smoothing, in [0, 1) (PyTorch's label_smoothing); INVALID_ARG
 * otherwise or for a NULL `opts`. */
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_set_label_smoothing(ember_trainer_options *opts, double eps);
/* Adds a glob pattern (`*`, `?`; copied) of parameter names to train (with none, every
 * parameter trains) or to freeze. A pattern that matches no parameter makes
 * ember_trainer_create fail with INVALID_ARG naming it. INVALID_ARG for NULL or empty. */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_options_add_train(ember_trainer_options *opts,
                                                                       const char *pattern);
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_add_freeze(ember_trainer_options *opts, const char *pattern);
/* Chooses the optimizer and its learning rate (> 0), resetting the optimizer's other settings
 * to PyTorch's defaults: momentum 0, dampening 0, no Nesterov; betas (0.9, 0.999), eps 1e-8;
 * weight decay 0 (AdamW: 0.01). INVALID_ARG for a NULL `opts`, an unknown optimizer or a bad
 * rate. */
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_set_optimizer(ember_trainer_options *opts, ember_optimizer optimizer,
                                    double lr);
/* SGD's momentum (>= 0), dampening and Nesterov momentum (which needs momentum > 0 and
 * dampening 0, as in PyTorch). INVALID_ARG for a NULL `opts` or a bad value. */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_options_set_sgd(ember_trainer_options *opts,
                                                                     double momentum,
                                                                     double dampening,
                                                                     bool nesterov);
/* Adam's and AdamW's betas (in [0, 1)) and eps (> 0). INVALID_ARG otherwise. */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_options_set_adam(ember_trainer_options *opts,
                                                                      double beta1, double beta2,
                                                                      double eps);
/* Weight decay (>= 0): L2 added to the gradient (SGD, Adam) or decoupled (AdamW). */
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_set_weight_decay(ember_trainer_options *opts, double weight_decay);
/* The learning-rate schedule (see ember_lr_schedule); `period` > 0 unless CONSTANT. */
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_set_lr_schedule(ember_trainer_options *opts, ember_lr_schedule schedule,
                                      int64_t period, double factor);
/* Compute threads, as ember_session_options_set_threads (0: one per core). */
EMBER_API void ember_trainer_options_set_threads(ember_trainer_options *opts, int n_threads);

/* BatchNormalization during training. FROZEN (the default): the stored running mean and
 * variance normalize, as in eval mode. TRAIN: PyTorch's train mode: the batch mean and biased
 * variance over N and the spatial axes normalize (gradients flow through them), and after each
 * ember_trainer_step the running statistics are updated as PyTorch does:
 *     running = (1 - m) running + m batch   (the variance's batch value unbiased: n / (n - 1))
 * with m = 1 - the node's ONNX `momentum` attribute (ONNX weighs the old value by it; PyTorch's
 * default momentum 0.1 is exported as 0.9). The running statistics are model state: read them
 * with ember_trainer_param_value by name, and ember_trainer_save writes them. A batch with one
 * value per channel (N x spatial = 1) is refused with INVALID_ARG, as PyTorch does. */
typedef enum ember_batchnorm_mode {
    EMBER_BATCHNORM_FROZEN = 0,
    EMBER_BATCHNORM_TRAIN = 1
} ember_batchnorm_mode;
/* INVALID_ARG for a NULL `opts` or a mode outside the enum. */
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_set_batchnorm(ember_trainer_options *opts, ember_batchnorm_mode mode);
/* Dropout during training: off by default (the identity, as in eval mode); with `train`, each
 * Dropout node zeroes elements with its ratio and scales the others by 1 / (1 - ratio), with a
 * new mask at every step, drawn from `seed` (the same seed gives the same masks; the masks are
 * not PyTorch's). The backward reads the forward's mask. A TorchScript model's nn.Dropout
 * (aten::dropout) is such a node when the model was loaded at EMBER_GRAPH_OPT_NONE (as `ember
 * finetune` does); every other level drops inference-form Dropout nodes, ONNX ones included.
 * INVALID_ARG for a NULL `opts`. */
EMBER_API EMBER_NODISCARD ember_status *
ember_trainer_options_set_dropout(ember_trainer_options *opts, bool train, uint64_t seed);

typedef struct ember_trainer ember_trainer;

/*
 * Creates a trainer of `model` with `opts` (may be NULL: the defaults). Errors: INVALID_ARG
 * for NULL `model` / `out`, a pattern matching no parameter (the message lists the
 * parameters), a parameter a train pattern names that the loss does not depend on, no
 * trainable parameter, an output that does not suit the loss; UNSUPPORTED for an op without
 * a gradient rule (naming the node and op; fused ops when the model was not loaded at
 * EMBER_GRAPH_OPT_NONE or FOLD), control flow or a quantized model.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_create(const ember_model *model,
                                                            const ember_trainer_options *opts,
                                                            ember_trainer **out);
EMBER_API void ember_trainer_destroy(ember_trainer *t);

/*
 * One training step: runs the model on `inputs` (its inputs in positional order, as for
 * ember_session_run), the loss against `target`, the gradients, then the optimizer. `*loss`
 * (may be NULL) receives the loss before the update. Errors: INVALID_ARG for a wrong input
 * count, a NULL tensor, a target of the wrong dtype, rank or shape or a class index outside
 * [0, C) (naming the first bad one); STATE when the loss is NaN or infinite: the message names
 * the step, and the parameters are left as they were.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_step(ember_trainer *t,
                                                          ember_tensor *const *inputs,
                                                          size_t n_inputs,
                                                          const ember_tensor *target,
                                                          double *loss);
/* As ember_trainer_step without the update: the loss and the gradients only (`ember grad`).
 * The step count does not change. */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_compute(ember_trainer *t,
                                                             ember_tensor *const *inputs,
                                                             size_t n_inputs,
                                                             const ember_tensor *target,
                                                             double *loss);
/* Optimizer steps taken (0 for NULL). */
EMBER_API int64_t ember_trainer_step_count(const ember_trainer *t);
/* The trainable parameters, in the order of the model's values (0 / NULL out of range). */
EMBER_API size_t ember_trainer_param_count(const ember_trainer *t);
EMBER_API const char *ember_trainer_param_name(const ember_trainer *t, size_t i);
/* A copy of the current value, or of the gradient of the last step or compute, of the
 * parameter named `name`, freed with ember_tensor_destroy(). The value of a running statistic
 * of train-mode BatchNormalization (its initializer / state_dict name) can be read too.
 * INVALID_ARG for NULL arguments or a name that is not a trainable parameter (or statistic);
 * STATE for a gradient before any step. */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_param_value(const ember_trainer *t,
                                                                 const char *name,
                                                                 ember_tensor **out);
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_param_grad(const ember_trainer *t,
                                                                const char *name,
                                                                ember_tensor **out);
/*
 * Writes the model with the current parameters (and the running statistics of train-mode
 * BatchNormalization) to `path`, through a temporary file renamed, so `path` is whole or
 * untouched. A `.pt` / `.pth` path, for a model loaded from a TorchScript archive: a copy of
 * that archive whose `data/N` storages of the trained tensors are rewritten in place (and
 * BatchNorm's num_batches_tracked advanced by the steps taken in train mode); the code, the
 * module tree and every other record stay byte for byte, so torch.jit.load opens it as the
 * original; it copies the model's bytes as loaded (a mapped file must not have been changed
 * since). Any other path: ONNX (as ember_model_save_onnx). INVALID_ARG for NULL arguments
 * or a trained tensor the archive does not hold as a float32 attribute of a module;
 * UNSUPPORTED for a .pt path when the model is not TorchScript; IO naming the file.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_save(const ember_trainer *t,
                                                          const char *path);
/*
 * The optimizer's state, for resuming a fine-tuning later: the step count and, per trainable
 * parameter (by name), SGD's momentum buffer or Adam's / AdamW's two moments, written to
 * `path` (a small binary file, "EMBEROPT" and a version; through a temporary file renamed, so
 * `path` is whole or untouched). A trainer created with the same options on the model that
 * ember_trainer_save wrote, then given this state with ember_trainer_load_state, continues as
 * if it had not stopped: the same parameters, bit for bit, after the same later steps (the
 * learning-rate schedule and Adam's bias correction go on from the step count). Not carried:
 * Dropout's masks, which restart from the trainer's seed (give another seed to the resumed
 * trainer if that matters). INVALID_ARG for NULL arguments; IO naming the file.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_save_state(const ember_trainer *t,
                                                                const char *path);
/*
 * Reads a state written by ember_trainer_save_state into `t` (before its first step or
 * between steps): the step count and the optimizer buffers. Errors, `t` unchanged:
 * INVALID_ARG for NULL arguments or a state of another optimizer (naming both); INVALID_MODEL
 * naming the file for one that is not such a state, another version, a truncated file, a
 * parameter `t` does not train or has with another shape, a parameter count that differs;
 * IO naming the file when it cannot be opened.
 */
EMBER_API EMBER_NODISCARD ember_status *ember_trainer_load_state(ember_trainer *t,
                                                                const char *path);

/* ---- 10. Run-time version and build info ----------------------------------------------- */

/*
 * What the linked library is and what it was built with; compare with the macros of
 * section 1 to detect a header/library mismatch. Static strings. Threads: any.
 */

/* The version of the library linked at run time, e.g. "0.1.0". Static string. Threads: any. */
EMBER_API const char *ember_version_string(void);
/* EMBER_VERSION_NUMBER of the library linked at run time. Threads: any. */
EMBER_API int ember_version_number(void);
/*
 * What this build contains, one `key=value` token per item separated by spaces, e.g.
 * "version=0.1.0 isa=avx2,avx512f,avx512vnni backends=cpu,openblas,onednn cuda=off".
 * `isa=` lists the features detected on this CPU and usable by compiled-in kernels.
 * Static string, valid for the life of the process. Threads: any.
 */
EMBER_API const char *ember_build_info(void);

#ifdef __cplusplus
}
#endif

#endif /* EMBER_H */
