/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript archives, layer 2: the pickles (data.pkl, constants.pkl) as a tree of values.
 *
 * The reader runs the protocol-2 pickle machine PyTorch's pickler writes (PROTO, GLOBAL,
 * [LONG_]BINPUT/BINGET, MARK, [EMPTY_]TUPLE[1-3], EMPTY_LIST/LIST, APPEND[S],
 * EMPTY_DICT/DICT, SETITEM[S], NEWOBJ, BUILD, REDUCE, BINPERSID, BININT[12], BININT, LONG1,
 * BINFLOAT (big-endian), BINUNICODE, NEWTRUE/NEWFALSE, NONE, STOP) and the extra ones Python's
 * own pickler emits (SHORT_BINUNICODE, BINUNICODE8, SHORT_BINBYTES, BINBYTES[8], BINSTRING,
 * SHORT_BINSTRING, INT, LONG, LONG4, FLOAT, MEMOIZE, FRAME, STACK_GLOBAL, PUT/GET,
 * NEWOBJ_EX, POP, POP_MARK, DUP, EMPTY_SET/ADDITEMS/FROZENSET, BINUNICODE,
 * STRING/UNICODE). PROTO (2 to 5) may only come first; STOP must leave exactly one value
 * and no MARK. Memo indices must be dense, as every pickler writes them (a put at most one
 * past the last). Anything else, or an opcode out of place (an empty stack, a MARK missing,
 * a memo index never put, APPEND to a non-list), is refused with its byte offset; known
 * opcodes ember does not read (INST, OBJ, EXT*, PERSID, out-of-band buffers) are
 * UNSUPPORTED. Strings must be UTF-8, integers must fit int64 (else UNSUPPORTED).
 * Python sets and frozensets become LISTs with type_tag "set" / "frozenset"; dict keys are
 * kept in order and may repeat in hostile input (em_tsv_dict_get finds the last).
 *
 * Globals are resolved as torch's unpickler does: torch._utils._rebuild_tensor_v2 (6 or 7
 * fields), torch._utils._rebuild_qtensor (per-tensor and per-channel affine),
 * torch.<T>Storage (every dtype, quantized ones included), torch.<qscheme>, torch.device,
 * torch.jit._pickle.build_{int,double,bool,tensor}list and restore_type_tag,
 * collections.OrderedDict, torch._utils._rebuild_parameter (its tensor: torch.save'd state
 * dicts), builtins.complex (refused: UNSUPPORTED), and any other class
 * (a "__torch__...." name) becomes an object whose state is what BUILD gives it (NONE
 * without BUILD; a second BUILD is refused); other classes and calls are UNSUPPORTED, named.
 * Persistent ids ("storage", <type>, key, location, numel) load record "<dir>/<key>" through
 * the caller's callback, once per key, so tensors that view one storage share it; a storage
 * of 0 elements is not loaded. BINPERSID itself yields the whole storage as a 1-D tensor
 * (as torch's unpickler does), which _rebuild_tensor_v2 / _rebuild_qtensor then view.
 * Storage types: Float Double Half BFloat16 Long Int Short Char Byte Bool UInt16 UInt32
 * UInt64 Float8_e5m2 Float8_e4m3fn Float8_e5m2fnuz Float8_e4m3fnuz Float8_e8m0fnu, and
 * QInt8 QUInt8 QInt32 for quantized tensors only; Complex*, QUInt4x2, QUInt2x4 and others
 * are UNSUPPORTED with their name. _rebuild_tensor_v2's 7th field (torch >= 2.0 writes it
 * only when a math bit is set) is {"neg": True} -> .neg; "conj" is UNSUPPORTED.
 *
 * Values form a DAG (the memo shares them). All of a pickle's values live in one arena freed
 * by em_ts_pickle_free; consumers must not assume a tree (walk with a visited set or a depth
 * bound, never recursively without one). Bounds: EM_TS_PICKLE_MAX_DEPTH nested containers,
 * EM_TS_PICKLE_MAX_MEMO memo entries; tensor offsets, sizes and strides are checked against
 * their storage with overflow-safe arithmetic.
 * Threads: reentrant, no state.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_PICKLE_H
#define EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_PICKLE_H

#include "ember.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_TS_PICKLE_MAX_DEPTH 256
#define EM_TS_PICKLE_MAX_MEMO ((size_t)1 << 24)

typedef enum em_tsv_kind {
    EM_TSV_NONE = 0,
    EM_TSV_BOOL,
    EM_TSV_INT,
    EM_TSV_FLOAT,
    EM_TSV_STR,     /* UTF-8 bytes, NUL-terminated (may contain NULs: use .str.n) */
    EM_TSV_BYTES,
    EM_TSV_TUPLE,
    EM_TSV_LIST,
    EM_TSV_DICT,
    EM_TSV_TENSOR,
    EM_TSV_OBJECT,  /* a class instance: qualified class name + state (NONE if never built) */
    EM_TSV_DEVICE,  /* torch.device("cpu"): .str holds the text */
    EM_TSV_GLOBAL   /* a global not called: "module.name" in .str */
} em_tsv_kind;

typedef enum em_ts_qscheme {
    EM_TS_QSCHEME_NONE = 0,
    EM_TS_PER_TENSOR_AFFINE,
    EM_TS_PER_CHANNEL_AFFINE,
    EM_TS_PER_TENSOR_SYMMETRIC,
    EM_TS_PER_CHANNEL_SYMMETRIC,
    EM_TS_PER_CHANNEL_AFFINE_FLOAT_QPARAMS
} em_ts_qscheme;

typedef struct em_tsv em_tsv;

/* A tensor record: a strided view of a storage. Elements, not bytes, for offset/strides. */
typedef struct em_tsv_tensor {
    ember_dtype dtype;       /* element type; quantized qint8/quint8/qint32 -> I8/U8/I32 */
    em_storage *storage;     /* the whole storage record; NULL when it has no elements.
                                Held by the pickle: em_storage_retain it to keep it longer */
    const char *key;         /* storage record key ("0", "1", ...), in the pickle's arena */
    const char *location;    /* "cpu", "cuda:0", ... as saved, in the pickle's arena */
    int64_t storage_numel;   /* elements in the storage */
    int64_t offset;
    int rank;
    int64_t sizes[EMBER_MAX_RANK];
    int64_t strides[EMBER_MAX_RANK];
    bool requires_grad;
    bool neg;                /* torch's negative bit (a _neg_view): the values are minus the
                                stored ones (7th field {"neg": True}; 1.13 drops the bit) */
    em_ts_qscheme qscheme;   /* NONE unless from _rebuild_qtensor: PER_TENSOR_AFFINE,
                                PER_CHANNEL_AFFINE or ..._AFFINE_FLOAT_QPARAMS (symmetric
                                schemes are UNSUPPORTED; torch never saves them) */
    double scale;            /* per-tensor affine: finite, > 0 */
    int64_t zero_point;
    /* per-channel: 1-D plain tensors of sizes[axis] elements. torch writes f64 scales and
     * i64 zero points for per_channel_affine, f32 and f32 for ..._float_qparams; f32/f64
     * scales and i64/i32/f32/f64 zero points are accepted. */
    const em_tsv *scales;
    const em_tsv *zero_points;
    int64_t axis;            /* per-channel: 0 <= axis < rank */
} em_tsv_tensor;

struct em_tsv {
    em_tsv_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
        struct { const char *s; size_t n; } str;                 /* STR, BYTES, DEVICE, GLOBAL */
        struct { em_tsv **items; size_t n; const char *type_tag; } seq; /* TUPLE, LIST */
        struct { em_tsv **keys; em_tsv **values; size_t n; const char *type_tag; } dict;
        em_tsv_tensor t;
        struct { const char *cls; em_tsv *state; } obj; /* cls: "__torch__.a.b.Name" */
    } u;
};

/* Loads storage record `key` of the pickle's folder ("data/<key>"): a new reference, which
 * the pickle takes over (it checks the size against the persistent id's numel). */
typedef ember_status *(*em_ts_record_fn)(void *ctx, const char *key, em_storage **out);

typedef struct em_ts_pickle em_ts_pickle;

/*
 * Runs the pickle of `size` bytes at `data` (borrowed). `what` names it in messages
 * ("resnet.pt: data.pkl"). `records` loads storages (NULL: a persistent id is an error).
 * On success `*out` holds the arena and em_ts_pickle_root() its value; every string, value
 * and storage reference lives until em_ts_pickle_free. Returns INVALID_ARG (NULL out, or
 * NULL data with a size), INVALID_MODEL (malformed, as "<what>: byte <offset>: <OPCODE>:
 * <problem>"; cycles and nesting beyond the bound as "<what>: ..."), UNSUPPORTED (a global,
 * storage type, qscheme or opcode ember does not read, named) or OUT_OF_MEMORY; the
 * callback's errors pass through unchanged. On failure *out is NULL.
 */
ember_status *em_ts_pickle_load(const void *data, size_t size, const char *what,
                                em_ts_record_fn records, void *ctx, const ember_allocator *al,
                                em_ts_pickle **out);
const em_tsv *em_ts_pickle_root(const em_ts_pickle *p);
/* The protocol of the pickle's PROTO opcode; -1 when it has none (protocols 0 and 1). */
int em_ts_pickle_protocol(const em_ts_pickle *p);
void em_ts_pickle_free(em_ts_pickle *p);

/* Dict lookup by string key (the last entry with that key); NULL when absent or `d` is not
 * a dict. */
const em_tsv *em_tsv_dict_get(const em_tsv *d, const char *key);
/* Whether the tensor's strides are the contiguous C-order ones for its sizes (dims of size
 * 1 may have any stride). */
bool em_tsv_tensor_contiguous(const em_tsv_tensor *t);
/* "tensor", "list", ... for messages. */
const char *em_tsv_kind_name(em_tsv_kind k);

#endif /* EMBER_LOADERS_TORCHSCRIPT_ARCHIVE_TS_PICKLE_H */
