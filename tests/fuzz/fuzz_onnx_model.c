/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-model libFuzzer target for ONNX: bytes -> ember_model_load_memory -> session -> one
 * run on generated inputs (fuzz_model.h), with a structure-aware mutator.
 *
 * The mutator walks the protobuf wire format with ONNX's schema (which field of which
 * message is a submessage, a name, an op_type, a dtype, a dim, packed numbers, ...), changes
 * one thing and writes the message back with correct lengths, so most mutants still parse
 * and reach the graph builder, the shape inference, the planner and the kernels:
 *  - a value: varints (ir_version, opset versions, dims, dtypes, attribute types and ints),
 *    floats, packed numbers (dims, ints, float_data), op_type from a list of ONNX ops, value
 *    names from the model's own names (rewiring the graph), domains, attribute names, bytes;
 *  - a field: deleted, duplicated, swapped with a sibling, copied from another message of
 *    the same type (a node, an attribute, an initializer from elsewhere in the model), or
 *    made up from the schema (a new node, attribute, dim, tensor);
 *  - bytes: one time in eight libFuzzer's own mutation of the whole file, so the wire
 *    format itself (varints, lengths, wire types) is fuzzed too.
 * LLVMFuzzerCustomCrossOver copies a field of the second input into a message of the same
 * type in the first.
 * Seeds: tests/fuzz/corpus/fuzz_onnx_model (small models of tests/data/onnx).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_model.h"
#include "fuzz_mut.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
                                 uint8_t *out, size_t max_out, unsigned seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_model_run(data, size, NULL, 0);
    return 0;
}

/* ---- the schema ----------------------------------------------------------------------- */

enum { /* message types */
    T_NONE = -1,
    T_MODEL,
    T_GRAPH,
    T_NODE,
    T_ATTR,
    T_TENSOR,
    T_VALUE,
    T_TYPE,
    T_TTENSOR,
    T_SHAPE,
    T_DIM,
    T_OPSET,
    T_STRSTR,
    T_SEQ,
    T_MAP,
    T_SPARSE,
    T_FUNC,
    T_SEG,
    T_COUNT
};

enum { /* what a field holds */
    K_VARINT,
    K_DTYPE,
    K_ATYPE,
    K_DIM,
    K_F32,
    K_F64,
    K_MSG,
    K_OPTYPE,
    K_NAME,
    K_DOMAIN,
    K_ATTRNAME,
    K_BYTES,
    K_PVARINT, /* packed varints */
    K_PF32,    /* packed fixed32 */
    K_PF64     /* packed fixed64 */
};

typedef struct fdef {
    int msg;
    unsigned num;
    int kind;
    int child; /* message type of a K_MSG field */
} fdef;

/* clang-format off */
static const fdef schema[] = {
    {T_MODEL, 1, K_VARINT, T_NONE},    {T_MODEL, 2, K_BYTES, T_NONE},
    {T_MODEL, 3, K_BYTES, T_NONE},     {T_MODEL, 4, K_DOMAIN, T_NONE},
    {T_MODEL, 5, K_VARINT, T_NONE},    {T_MODEL, 6, K_BYTES, T_NONE},
    {T_MODEL, 7, K_MSG, T_GRAPH},      {T_MODEL, 8, K_MSG, T_OPSET},
    {T_MODEL, 14, K_MSG, T_STRSTR},    {T_MODEL, 20, K_MSG, T_FUNC},
    {T_OPSET, 1, K_DOMAIN, T_NONE},    {T_OPSET, 2, K_VARINT, T_NONE},
    {T_GRAPH, 1, K_MSG, T_NODE},       {T_GRAPH, 2, K_BYTES, T_NONE},
    {T_GRAPH, 5, K_MSG, T_TENSOR},     {T_GRAPH, 15, K_MSG, T_SPARSE},
    {T_GRAPH, 10, K_BYTES, T_NONE},    {T_GRAPH, 11, K_MSG, T_VALUE},
    {T_GRAPH, 12, K_MSG, T_VALUE},     {T_GRAPH, 13, K_MSG, T_VALUE},
    {T_NODE, 1, K_NAME, T_NONE},       {T_NODE, 2, K_NAME, T_NONE},
    {T_NODE, 3, K_BYTES, T_NONE},      {T_NODE, 4, K_OPTYPE, T_NONE},
    {T_NODE, 7, K_DOMAIN, T_NONE},     {T_NODE, 5, K_MSG, T_ATTR},
    {T_ATTR, 1, K_ATTRNAME, T_NONE},   {T_ATTR, 20, K_ATYPE, T_NONE},
    {T_ATTR, 2, K_F32, T_NONE},        {T_ATTR, 3, K_DIM, T_NONE},
    {T_ATTR, 4, K_BYTES, T_NONE},      {T_ATTR, 5, K_MSG, T_TENSOR},
    {T_ATTR, 6, K_MSG, T_GRAPH},       {T_ATTR, 22, K_MSG, T_SPARSE},
    {T_ATTR, 14, K_MSG, T_TYPE},       {T_ATTR, 7, K_PF32, T_NONE},
    {T_ATTR, 8, K_PVARINT, T_NONE},    {T_ATTR, 9, K_BYTES, T_NONE},
    {T_ATTR, 10, K_MSG, T_TENSOR},     {T_ATTR, 11, K_MSG, T_GRAPH},
    {T_ATTR, 21, K_ATTRNAME, T_NONE},  {T_TENSOR, 1, K_PVARINT, T_NONE},
    {T_TENSOR, 2, K_DTYPE, T_NONE},    {T_TENSOR, 3, K_MSG, T_SEG},
    {T_TENSOR, 4, K_PF32, T_NONE},     {T_TENSOR, 5, K_PVARINT, T_NONE},
    {T_TENSOR, 6, K_BYTES, T_NONE},    {T_TENSOR, 7, K_PVARINT, T_NONE},
    {T_TENSOR, 8, K_NAME, T_NONE},     {T_TENSOR, 9, K_BYTES, T_NONE},
    {T_TENSOR, 10, K_PF64, T_NONE},    {T_TENSOR, 11, K_PVARINT, T_NONE},
    {T_TENSOR, 13, K_MSG, T_STRSTR},   {T_TENSOR, 14, K_VARINT, T_NONE},
    {T_VALUE, 1, K_NAME, T_NONE},      {T_VALUE, 2, K_MSG, T_TYPE},
    {T_TYPE, 1, K_MSG, T_TTENSOR},     {T_TYPE, 4, K_MSG, T_SEQ},
    {T_TYPE, 5, K_MSG, T_MAP},         {T_TYPE, 9, K_MSG, T_SEQ},
    {T_TYPE, 8, K_MSG, T_TTENSOR},     {T_TTENSOR, 1, K_DTYPE, T_NONE},
    {T_TTENSOR, 2, K_MSG, T_SHAPE},    {T_SHAPE, 1, K_MSG, T_DIM},
    {T_DIM, 1, K_DIM, T_NONE},         {T_DIM, 2, K_BYTES, T_NONE},
    {T_SEQ, 1, K_MSG, T_TYPE},         {T_MAP, 1, K_DTYPE, T_NONE},
    {T_MAP, 2, K_MSG, T_TYPE},         {T_SPARSE, 1, K_MSG, T_TENSOR},
    {T_SPARSE, 2, K_MSG, T_TENSOR},    {T_SPARSE, 3, K_PVARINT, T_NONE},
    {T_FUNC, 1, K_BYTES, T_NONE},      {T_FUNC, 4, K_NAME, T_NONE},
    {T_FUNC, 5, K_NAME, T_NONE},       {T_FUNC, 6, K_ATTRNAME, T_NONE},
    {T_FUNC, 11, K_MSG, T_ATTR},       {T_FUNC, 7, K_MSG, T_NODE},
    {T_FUNC, 9, K_MSG, T_OPSET},       {T_FUNC, 8, K_DOMAIN, T_NONE},
    {T_STRSTR, 1, K_BYTES, T_NONE},    {T_STRSTR, 2, K_BYTES, T_NONE},
    {T_SEG, 1, K_VARINT, T_NONE},      {T_SEG, 2, K_VARINT, T_NONE},
};
/* clang-format on */
#define N_SCHEMA (sizeof schema / sizeof schema[0])

static const fdef *lookup(int msg, unsigned num)
{
    for (size_t i = 0; i < N_SCHEMA; i++) {
        if (schema[i].msg == msg && schema[i].num == num) {
            return &schema[i];
        }
    }
    return NULL;
}

static const char *const ops[] = {
    "Conv", "Relu", "Add", "Mul", "Sub", "Div", "MatMul", "Gemm", "Reshape", "Transpose",
    "Concat", "Split", "Slice", "Gather", "Squeeze", "Unsqueeze", "Softmax", "LogSoftmax",
    "MaxPool", "AveragePool", "GlobalAveragePool", "BatchNormalization", "Flatten",
    "Identity", "Constant", "ConstantOfShape", "Shape", "Size", "Expand", "Tile", "Pad",
    "Resize", "Cast", "Clip", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Pow", "ReduceMean",
    "ReduceSum", "ReduceMax", "ArgMax", "TopK", "Where", "Equal", "Less", "Greater", "Not",
    "And", "If", "Loop", "Scan", "Range", "NonZero", "Einsum", "LSTM", "GRU", "RNN",
    "LayerNormalization", "GroupNormalization", "InstanceNormalization", "Dropout",
    "ConvTranspose", "DepthToSpace", "SpaceToDepth", "CumSum", "OneHot", "ScatterND",
    "GatherND", "ScatterElements", "GatherElements", "QuantizeLinear", "DequantizeLinear",
    "QLinearConv", "QLinearMatMul", "MatMulInteger", "ConvInteger", "Erf", "Gelu",
    "HardSwish", "LeakyRelu", "PRelu", "Elu", "Min", "Max", "Sum", "Mean", "Abs", "Neg",
    "Floor", "Round", "Reciprocal", "SequenceConstruct", "SequenceAt", "SplitToSequence",
    "ConcatFromSequence", "SequenceEmpty", "SequenceInsert", "SequenceLength", "Optional",
    "OptionalHasElement", "OptionalGetElement", "StringNormalizer", "Trilu", "Mod",
    "BitShift", "Attention", "NonMaxSuppression", "RoiAlign", "GridSample", "DFT", "STFT",
    "Unique", "Compress", "ReverseSequence", "EyeLike", "RandomNormal", "MaxUnpool", "LRN",
    "Hardmax", "Col2Im", "CenterCropPad", "Upsample", "CastLike", "Det", "ReduceL2",
    "LpPool", "MeanVarianceNormalization", "Softplus", "IsNaN", "Celu", "Shrink",
};

static const char *const attr_names[] = {
    "axis", "axes", "kernel_shape", "strides", "pads", "dilations", "group", "perm",
    "epsilon", "alpha", "beta", "transA", "transB", "keepdims", "mode", "value", "to",
    "split", "starts", "ends", "direction", "hidden_size", "num_outputs", "auto_pad",
    "ceil_mode", "then_branch", "else_branch", "body", "equation", "largest", "k",
    "noop_with_empty_axes", "allowzero", "coordinate_transformation_mode", "layout",
    "blocksize", "output_padding", "output_shape", "count_include_pad", "sorted",
};

static const char *const domains[] = {"", "ai.onnx", "com.microsoft", "ai.onnx.ml", "x"};

/* ---- a parsed message ------------------------------------------------------------------- */

typedef struct pb_msg pb_msg;

typedef struct pb_field {
    unsigned num;
    int wt;
    uint64_t v;     /* wire types 0, 1, 5 */
    uint8_t *bytes; /* wire type 2 without a parsed submessage (owned) */
    size_t len;
    pb_msg *sub; /* wire type 2 parsed as the schema's submessage */
} pb_field;

struct pb_msg {
    int type;
    pb_field *f;
    size_t n, cap;
};

static void msg_free(pb_msg *m);

static void field_clear(pb_field *f)
{
    free(f->bytes);
    msg_free(f->sub);
    f->bytes = NULL;
    f->sub = NULL;
}

static void msg_free(pb_msg *m)
{
    if (m != NULL) {
        for (size_t i = 0; i < m->n; i++) {
            field_clear(&m->f[i]);
        }
        free(m->f);
        free(m);
    }
}

/* Inserts a field at position `at`; takes over its pointers. */
static bool msg_insert(pb_msg *m, size_t at, pb_field f)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        pb_field *p = realloc(m->f, cap * sizeof *p);
        if (p == NULL) {
            return false;
        }
        m->f = p;
        m->cap = cap;
    }
    memmove(m->f + at + 1, m->f + at, (m->n - at) * sizeof *m->f);
    m->f[at] = f;
    m->n++;
    return true;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    if (q != NULL && n > 0) {
        memcpy(q, p, n);
    }
    return q;
}

/* Parses b[0..n) as a message of `type`; NULL when the wire format breaks. */
static pb_msg *parse(int type, const uint8_t *b, size_t n, int depth)
{
    pb_msg *m = calloc(1, sizeof *m);
    if (m == NULL || depth > 40) {
        free(m);
        return NULL;
    }
    m->type = type;
    const uint8_t *p = b, *end = b + n;
    while (p < end) {
        uint64_t tag = 0, v = 0;
        pb_field f = {0};
        if (!fz_get_varint(&p, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0xffff) {
            goto bad;
        }
        f.num = (unsigned)(tag >> 3);
        f.wt = (int)(tag & 7);
        switch (f.wt) {
        case 0:
            if (!fz_get_varint(&p, end, &f.v)) {
                goto bad;
            }
            break;
        case 1:
        case 5: {
            size_t w = f.wt == 1 ? 8 : 4;
            if ((size_t)(end - p) < w) {
                goto bad;
            }
            for (size_t i = 0; i < w; i++) {
                f.v |= (uint64_t)p[i] << (8 * i);
            }
            p += w;
            break;
        }
        case 2: {
            if (!fz_get_varint(&p, end, &v) || v > (uint64_t)(end - p)) {
                goto bad;
            }
            const fdef *d = lookup(type, f.num);
            if (d != NULL && d->kind == K_MSG) {
                f.sub = parse(d->child, p, (size_t)v, depth + 1);
            }
            if (f.sub == NULL) {
                f.bytes = dup_bytes(p, (size_t)v);
                f.len = (size_t)v;
                if (f.bytes == NULL) {
                    goto bad;
                }
            }
            p += v;
            break;
        }
        default:
            goto bad;
        }
        if (!msg_insert(m, m->n, f)) {
            field_clear(&f);
            goto bad;
        }
    }
    return m;
bad:
    msg_free(m);
    return NULL;
}

static void write_msg(fz_buf *b, const pb_msg *m);

static void write_field(fz_buf *b, const pb_field *f)
{
    fz_put_varint(b, ((uint64_t)f->num << 3) | (uint64_t)f->wt);
    switch (f->wt) {
    case 0: fz_put_varint(b, f->v); break;
    case 1: fz_put_le(b, f->v, 8); break;
    case 5: fz_put_le(b, f->v, 4); break;
    default:
        if (f->sub != NULL) {
            fz_buf sb = {0};
            write_msg(&sb, f->sub);
            b->failed |= sb.failed;
            fz_put_varint(b, sb.n);
            fz_put(b, sb.p, sb.n);
            fz_buf_free(&sb);
        } else {
            fz_put_varint(b, f->len);
            fz_put(b, f->bytes, f->len);
        }
    }
}

static void write_msg(fz_buf *b, const pb_msg *m)
{
    for (size_t i = 0; i < m->n; i++) {
        write_field(b, &m->f[i]);
    }
}

static pb_msg *msg_copy(const pb_msg *m);

static bool field_copy(const pb_field *src, pb_field *dst)
{
    *dst = *src;
    dst->bytes = NULL;
    dst->sub = NULL;
    if (src->sub != NULL) {
        dst->sub = msg_copy(src->sub);
        return dst->sub != NULL;
    }
    if (src->wt == 2) {
        dst->bytes = dup_bytes(src->bytes, src->len);
        return dst->bytes != NULL;
    }
    return true;
}

static pb_msg *msg_copy(const pb_msg *m)
{
    pb_msg *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return NULL;
    }
    c->type = m->type;
    for (size_t i = 0; i < m->n; i++) {
        pb_field f;
        if (!field_copy(&m->f[i], &f) || !msg_insert(c, c->n, f)) {
            field_clear(&f);
            msg_free(c);
            return NULL;
        }
    }
    return c;
}

/* ---- walking ---------------------------------------------------------------------------- */

typedef struct fref {
    pb_msg *m;
    size_t i;
} fref;

typedef struct walk {
    fref *fields;
    size_t n_fields, cap_fields;
    pb_msg **msgs;
    size_t n_msgs, cap_msgs;
    const pb_field *names[256]; /* K_NAME strings seen (the first 256) */
    size_t n_names;
} walk;

static void walk_msg(walk *w, pb_msg *m)
{
    if (w->n_msgs == w->cap_msgs) {
        size_t cap = w->cap_msgs ? 2 * w->cap_msgs : 64;
        pb_msg **p = realloc(w->msgs, cap * sizeof *p);
        if (p == NULL) {
            return;
        }
        w->msgs = p;
        w->cap_msgs = cap;
    }
    w->msgs[w->n_msgs++] = m;
    for (size_t i = 0; i < m->n; i++) {
        if (w->n_fields == w->cap_fields) {
            size_t cap = w->cap_fields ? 2 * w->cap_fields : 256;
            fref *p = realloc(w->fields, cap * sizeof *p);
            if (p == NULL) {
                return;
            }
            w->fields = p;
            w->cap_fields = cap;
        }
        w->fields[w->n_fields++] = (fref){m, i};
        const fdef *d = lookup(m->type, m->f[i].num);
        if (d != NULL && d->kind == K_NAME && m->f[i].bytes != NULL && w->n_names < 256) {
            w->names[w->n_names++] = &m->f[i];
        }
        if (m->f[i].sub != NULL) {
            walk_msg(w, m->f[i].sub);
        }
    }
}

static void walk_free(walk *w)
{
    free(w->fields);
    free(w->msgs);
}

/* ---- mutations -------------------------------------------------------------------------- */

static void set_string(pb_field *f, const char *s)
{
    field_clear(f);
    f->len = strlen(s);
    f->bytes = dup_bytes((const uint8_t *)s, f->len);
    if (f->bytes == NULL) {
        f->len = 0;
        f->bytes = dup_bytes(NULL, 0);
    }
}

static uint32_t interesting_f32(fz_rng *r)
{
    static const uint32_t v[] = {0x00000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x7fc00000,
                                 0x7f800000, 0xff800000, 0x7149f2ca, 0x80000000, 0x0da24260,
                                 0x40000000, 0x00000001};
    return fz_one_in(r, 4) ? (uint32_t)fz_next(r) : v[fz_below(r, sizeof v / sizeof v[0])];
}

static int64_t small_dim(fz_rng *r, int64_t old)
{
    return fz_one_in(r, 3) ? fz_interesting(r, old) : (int64_t)fz_below(r, 6) - 1;
}

/* Changes the packed numbers of f: one element changed, dropped or repeated. */
static void mutate_packed(fz_rng *r, pb_field *f, int kind)
{
    size_t w = kind == K_PF32 ? 4 : 8;
    fz_buf b = {0};
    if (kind == K_PVARINT) {
        uint64_t vals[512];
        size_t n = 0;
        const uint8_t *p = f->bytes, *end = f->bytes + f->len;
        while (p < end && n < 512) {
            if (!fz_get_varint(&p, end, &vals[n++])) {
                return;
            }
        }
        size_t at = fz_below(r, n + 1), op = fz_below(r, 3);
        for (size_t i = 0; i <= n; i++) {
            if (i == at && (op == 1 || i == n)) { /* insert */
                fz_put_varint(&b, (uint64_t)small_dim(r, 1));
            }
            if (i == n || (i == at && op == 2)) { /* end, or drop */
                continue;
            }
            fz_put_varint(&b, i == at ? (uint64_t)small_dim(r, (int64_t)vals[i]) : vals[i]);
        }
    } else {
        size_t n = f->len / w, at = fz_below(r, n + 1), op = fz_below(r, 3);
        for (size_t i = 0; i <= n; i++) {
            if (i == at && (op == 1 || i == n)) {
                fz_put_le(&b, kind == K_PF32 ? interesting_f32(r) : fz_next(r), (int)w);
            }
            if (i == n || (i == at && op == 2)) {
                continue;
            }
            if (i == at) {
                fz_put_le(&b, kind == K_PF32 ? interesting_f32(r) : fz_next(r), (int)w);
            } else {
                fz_put(&b, f->bytes + i * w, w);
            }
        }
    }
    if (!b.failed) {
        free(f->bytes);
        f->bytes = b.p ? b.p : dup_bytes(NULL, 0);
        f->len = b.n;
    } else {
        fz_buf_free(&b);
    }
}

static void mutate_value(fz_rng *r, walk *w, pb_msg *m, pb_field *f)
{
    const fdef *d = lookup(m->type, f->num);
    int kind = d != NULL ? d->kind : K_BYTES;
    if (f->wt == 0) {
        switch (kind) {
        case K_DTYPE: f->v = fz_one_in(r, 8) ? (uint64_t)fz_interesting(r, (int64_t)f->v)
                                             : fz_below(r, 25); break;
        case K_ATYPE: f->v = fz_below(r, 16); break;
        case K_DIM:
        case K_PVARINT: f->v = (uint64_t)small_dim(r, (int64_t)f->v); break;
        default: f->v = (uint64_t)fz_interesting(r, (int64_t)f->v); break;
        }
        return;
    }
    if (f->wt == 5) {
        f->v = interesting_f32(r);
        return;
    }
    if (f->wt == 1) {
        f->v = fz_one_in(r, 2) ? fz_next(r) : (uint64_t)fz_interesting(r, (int64_t)f->v);
        return;
    }
    if (f->wt != 2 || f->sub != NULL) {
        return;
    }
    switch (kind) {
    case K_OPTYPE: set_string(f, fz_pick(r, ops, sizeof ops / sizeof ops[0])); return;
    case K_DOMAIN: set_string(f, fz_pick(r, domains, sizeof domains / sizeof domains[0])); return;
    case K_ATTRNAME:
        set_string(f, fz_pick(r, attr_names, sizeof attr_names / sizeof attr_names[0]));
        return;
    case K_NAME:
        if (w->n_names > 0 && !fz_one_in(r, 8)) {
            const pb_field *src = w->names[fz_below(r, w->n_names)];
            uint8_t *p = dup_bytes(src->bytes, src->len);
            if (p != NULL) {
                size_t len = src->len; /* src may be f itself */
                free(f->bytes);
                f->bytes = p;
                f->len = len;
            }
        } else {
            set_string(f, fz_one_in(r, 2) ? "" : "fz");
        }
        return;
    case K_PVARINT:
    case K_PF32:
    case K_PF64: mutate_packed(r, f, kind); return;
    default: {
        uint8_t *p = NULL;
        size_t n = 0;
        if (fz_mutate_bytes(f->bytes, f->len, 16, &p, &n)) {
            free(f->bytes);
            f->bytes = p;
            f->len = n;
        }
    }
    }
}

/* A new field of message type `type`, made up from the schema. */
static bool make_field(fz_rng *r, walk *w, int type, pb_field *out)
{
    size_t n = 0;
    const fdef *cands[32];
    for (size_t i = 0; i < N_SCHEMA && n < 32; i++) {
        if (schema[i].msg == type) {
            cands[n++] = &schema[i];
        }
    }
    if (n == 0) {
        return false;
    }
    const fdef *d = cands[fz_below(r, n)];
    memset(out, 0, sizeof *out);
    out->num = d->num;
    switch (d->kind) {
    case K_VARINT:
    case K_DTYPE:
    case K_ATYPE:
    case K_DIM:
        out->wt = 0;
        out->v = d->kind == K_DTYPE ? 1 + fz_below(r, 16) : (uint64_t)small_dim(r, 1);
        return true;
    case K_F32: out->wt = 5; out->v = interesting_f32(r); return true;
    case K_F64: out->wt = 1; out->v = fz_next(r); return true;
    case K_MSG:
        out->wt = 2;
        out->sub = calloc(1, sizeof *out->sub);
        if (out->sub == NULL) {
            return false;
        }
        out->sub->type = d->child;
        /* A node gets an op_type and an input, an attribute a name; the rest start empty. */
        for (int k = 0; k < 2 && (d->child == T_NODE || d->child == T_ATTR || d->child == T_DIM); k++) {
            pb_field g;
            if (make_field(r, w, d->child, &g) && !msg_insert(out->sub, out->sub->n, g)) {
                field_clear(&g);
            }
        }
        return true;
    default:
        out->wt = 2;
        out->bytes = dup_bytes(NULL, 0);
        if (out->bytes == NULL) {
            return false;
        }
        mutate_value(r, w, &(pb_msg){type, NULL, 0, 0}, out);
        return true;
    }
}

static void mutate_tree(fz_rng *r, pb_msg *root)
{
    walk w = {0};
    walk_msg(&w, root);
    if (w.n_fields == 0 || w.n_msgs == 0) {
        walk_free(&w);
        return;
    }
    fref at = w.fields[fz_below(r, w.n_fields)];
    pb_field *f = &at.m->f[at.i];
    pb_field c;
    switch (fz_below(r, 10)) {
    case 0: /* delete */
        field_clear(f);
        memmove(f, f + 1, (at.m->n - at.i - 1) * sizeof *f);
        at.m->n--;
        break;
    case 1: /* duplicate next to itself */
        if (field_copy(f, &c) && !msg_insert(at.m, at.i + 1, c)) {
            field_clear(&c);
        }
        break;
    case 2: { /* swap with a sibling */
        size_t j = fz_below(r, at.m->n);
        pb_field t = at.m->f[j];
        at.m->f[j] = *f;
        *f = t;
        break;
    }
    case 3: { /* copy into another message of the same type */
        pb_msg *dst = w.msgs[fz_below(r, w.n_msgs)];
        for (size_t k = 0; k < 8 && dst->type != at.m->type; k++) {
            dst = w.msgs[fz_below(r, w.n_msgs)];
        }
        if (dst->type == at.m->type && field_copy(f, &c) &&
            !msg_insert(dst, fz_below(r, dst->n + 1), c)) {
            field_clear(&c);
        }
        break;
    }
    case 4: { /* a new field from the schema */
        pb_msg *dst = w.msgs[fz_below(r, w.n_msgs)];
        if (make_field(r, &w, dst->type, &c) && !msg_insert(dst, fz_below(r, dst->n + 1), c)) {
            field_clear(&c);
        }
        break;
    }
    default: /* a value; a submessage picks one of its fields */
        while (f->sub != NULL && f->sub->n > 0) {
            at = (fref){f->sub, fz_below(r, f->sub->n)};
            f = &at.m->f[at.i];
        }
        mutate_value(r, &w, at.m, f);
        break;
    }
    walk_free(&w);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    fz_rng r;
    fz_seed(&r, seed);
    pb_msg *root = fz_one_in(&r, 8) ? NULL : parse(T_MODEL, data, size, 0);
    if (root == NULL) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    int rounds = 1 + (int)fz_below(&r, 3);
    for (int i = 0; i < rounds; i++) {
        mutate_tree(&r, root);
    }
    fz_buf b = {0};
    write_msg(&b, root);
    msg_free(root);
    size_t n = fz_emit(&b, data, max_size);
    return n > 0 ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
                                 uint8_t *out, size_t max_out, unsigned seed)
{
    fz_rng r;
    fz_seed(&r, seed);
    pb_msg *a = parse(T_MODEL, d1, n1, 0), *b = parse(T_MODEL, d2, n2, 0);
    size_t n = 0;
    if (a != NULL && b != NULL) {
        walk wa = {0}, wb = {0};
        walk_msg(&wa, a);
        walk_msg(&wb, b);
        for (int tries = 0; tries < 16 && wb.n_fields > 0 && wa.n_msgs > 0; tries++) {
            fref src = wb.fields[fz_below(&r, wb.n_fields)];
            pb_msg *dst = wa.msgs[fz_below(&r, wa.n_msgs)];
            pb_field c;
            if (dst->type != src.m->type || !field_copy(&src.m->f[src.i], &c)) {
                continue;
            }
            if (!msg_insert(dst, fz_below(&r, dst->n + 1), c)) {
                field_clear(&c);
            }
            break;
        }
        walk_free(&wa);
        walk_free(&wb);
        fz_buf buf = {0};
        write_msg(&buf, a);
        n = fz_emit(&buf, out, max_out);
    }
    msg_free(a);
    msg_free(b);
    return n;
}
