/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pass over the raw protobuf before protobuf-c unpacks it. protobuf-c recurses once per
 * nested message, and ONNX's schema is recursive (graphs in attributes of nodes of graphs,
 * TypeProto in TypeProto), so a small file could nest deep enough to exhaust the stack. This
 * walk knows the message fields of onnx.proto that lead to recursion or hold integers, checks
 * the wire format (tags, lengths within their message, varints of at most 10 bytes and 64 bits,
 * packed integer runs included) and refuses subgraphs nested deeper than EM_ONNX_MAX_DEPTH or
 * types deeper than ONNX_MAX_TYPE_DEPTH, before any recursion deeper than those limits
 * happens. Integers inside messages it does not know (StringStringEntryProto, ...) are left to
 * protobuf-c. It also notes where the raw_data of each initializer of
 * the main graph lies in the image.
 *
 * protobuf-c copies every bytes field it unpacks, so unpacking the image as it is would hold
 * the weights twice at once (a 100 MB resnet50 peaked at 290 MB resident before any pass).
 * em_onnx_wire_strip therefore writes a skeleton of the image without the raw_data fields of the
 * main graph's initializers; the loader unpacks the skeleton and reads those bytes in place,
 * where the scan found them (the last raw_data of a tensor, as protobuf keeps the last).
 */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

enum { ONNX_MAX_TYPE_DEPTH = 32 };

/* The message types whose fields can lead to recursion; everything else is a leaf here. */
typedef enum wmsg {
    W_LEAF = 0,
    W_MODEL,
    W_GRAPH,
    W_NODE,
    W_ATTR,
    W_FUNC,
    W_TRAIN,
    W_VALUEINFO,
    W_TYPE,
    W_TYPE_WRAP, /* TypeProto.Sequence / Optional (elem_type = 1) */
    W_TYPE_MAP,  /* TypeProto.Map (value_type = 2) */
    W_TENSOR,
    /* Messages without recursion, walked for their varints (and what they lead to). */
    W_OPSET,       /* OperatorSetIdProto */
    W_SEGMENT,     /* TensorProto.Segment */
    W_SPARSE,      /* SparseTensorProto */
    W_TYPE_TENSOR, /* TypeProto.Tensor and TypeProto.SparseTensor */
    W_SHAPE,       /* TensorShapeProto */
    W_DIM          /* TensorShapeProto.Dimension */
} wmsg;

static const char *const wmsg_names[] = {
    "a message", "ModelProto", "GraphProto", "NodeProto", "AttributeProto", "FunctionProto",
    "TrainingInfoProto", "ValueInfoProto", "TypeProto", "TypeProto.Sequence / Optional",
    "TypeProto.Map", "TensorProto", "OperatorSetIdProto", "TensorProto.Segment",
    "SparseTensorProto", "TypeProto.Tensor", "TensorShapeProto", "TensorShapeProto.Dimension",
};
_Static_assert(sizeof wmsg_names / sizeof wmsg_names[0] == W_DIM + 1, "a name per wmsg");

typedef struct wchild {
    wmsg parent;
    uint32_t field;
    wmsg child;
} wchild;

/* clang-format off */
static const wchild children[] = {
    {W_MODEL, 7, W_GRAPH},  {W_MODEL, 20, W_TRAIN},  {W_MODEL, 25, W_FUNC},
    {W_TRAIN, 1, W_GRAPH},  {W_TRAIN, 2, W_GRAPH},   {W_FUNC, 7, W_NODE},
    {W_GRAPH, 1, W_NODE},   {W_GRAPH, 5, W_TENSOR},  {W_GRAPH, 11, W_VALUEINFO},
    {W_GRAPH, 12, W_VALUEINFO}, {W_GRAPH, 13, W_VALUEINFO},
    {W_NODE, 5, W_ATTR},    {W_ATTR, 6, W_GRAPH},    {W_ATTR, 11, W_GRAPH},
    {W_ATTR, 14, W_TYPE},   {W_ATTR, 15, W_TYPE},    {W_VALUEINFO, 2, W_TYPE},
    {W_TYPE, 4, W_TYPE_WRAP}, {W_TYPE, 9, W_TYPE_WRAP}, {W_TYPE, 5, W_TYPE_MAP},
    {W_TYPE_WRAP, 1, W_TYPE}, {W_TYPE_MAP, 2, W_TYPE},
    {W_MODEL, 8, W_OPSET},  {W_FUNC, 9, W_OPSET},    {W_TENSOR, 3, W_SEGMENT},
    {W_GRAPH, 15, W_SPARSE}, {W_ATTR, 5, W_TENSOR},  {W_ATTR, 10, W_TENSOR},
    {W_ATTR, 22, W_SPARSE}, {W_ATTR, 23, W_SPARSE},  {W_SPARSE, 1, W_TENSOR},
    {W_SPARSE, 2, W_TENSOR}, {W_TYPE, 1, W_TYPE_TENSOR}, {W_TYPE, 8, W_TYPE_TENSOR},
    {W_TYPE_TENSOR, 2, W_SHAPE}, {W_SHAPE, 1, W_DIM},
};

/* Repeated integer fields, which may come packed (one length-delimited run of varints). */
static const wchild packed[] = {
    {W_TENSOR, 1, W_LEAF},  {W_TENSOR, 5, W_LEAF},   {W_TENSOR, 7, W_LEAF},
    {W_TENSOR, 11, W_LEAF}, {W_ATTR, 8, W_LEAF},     {W_SPARSE, 3, W_LEAF},
};
/* clang-format on */

typedef struct wstate {
    onnx_ctx *c;
    const uint8_t *base;
    size_t raw_cap;
} wstate;

static wmsg child_of(wmsg parent, uint32_t field)
{
    for (size_t i = 0; i < sizeof children / sizeof children[0]; i++) {
        if (children[i].parent == parent && children[i].field == field) {
            return children[i].child;
        }
    }
    return W_LEAF;
}

typedef enum vread { V_OK = 0, V_END, V_LONG } vread;

/* Reads a varint; V_LONG when it has more than 10 bytes or its 10th byte carries bits beyond
 * 64 (protobuf's limit, which a lenient reader would truncate silently). */
static vread varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*p >= end) {
            return V_END;
        }
        uint8_t b = *(*p)++;
        if (shift == 63 && (b & 0x7e) != 0) {
            return V_LONG;
        }
        x |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *v = x;
            return V_OK;
        }
    }
    return V_LONG;
}

static bool is_packed(wmsg t, uint32_t field)
{
    for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++) {
        if (packed[i].parent == t && packed[i].field == field) {
            return true;
        }
    }
    return false;
}

static ember_status *bad_wire(const wstate *w, const uint8_t *at)
{
    return em_onnx_err(w->c, EMBER_ERR_INVALID_MODEL,
                    "not a valid ONNX model (protobuf parse error near byte %td)", at - w->base);
}

static ember_status *long_varint(const wstate *w, const uint8_t *at, wmsg t, uint32_t field)
{
    return em_onnx_err(w->c, EMBER_ERR_INVALID_MODEL,
                       "field %u of %s at byte %td: a varint longer than 10 bytes or beyond 64 "
                       "bits", field, wmsg_names[t], at - w->base);
}

/* The payload [p, end) of packed repeated varints. */
static ember_status *walk_packed(const wstate *w, const uint8_t *p, const uint8_t *end, wmsg t,
                                 uint32_t field)
{
    while (p < end) {
        const uint8_t *at = p;
        uint64_t v;
        vread r = varint(&p, end, &v);
        if (r != V_OK) {
            return r == V_LONG ? long_varint(w, at, t, field) : bad_wire(w, at);
        }
    }
    return NULL;
}

static ember_status *note_raw(wstate *w, onnx_span **slot)
{
    onnx_ctx *c = w->c;
    if (c->n_raw == w->raw_cap) {
        size_t nc = w->raw_cap ? w->raw_cap * 2 : 64, bytes;
        if (!em_size_mul(nc, sizeof *c->raw, &bytes)) {
            return em_status_oom();
        }
        onnx_span *r = em_realloc(c->al, c->raw, bytes);
        if (r == NULL) {
            return em_status_oom();
        }
        c->raw = r;
        w->raw_cap = nc;
    }
    *slot = &c->raw[c->n_raw++];
    memset(*slot, 0, sizeof **slot);
    return NULL;
}

/* Walks the message in [p, end) of type `t`. `main_graph` is true inside the model's graph. */
static ember_status *walk(wstate *w, const uint8_t *p, const uint8_t *end, wmsg t, int gdepth,
                          int tdepth, bool main_graph)
{
    while (p < end) {
        const uint8_t *at = p;
        uint64_t tag, len;
        if (varint(&p, end, &tag) != V_OK || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) {
            return bad_wire(w, at);
        }
        uint32_t field = (uint32_t)(tag >> 3);
        switch (tag & 7) {
        case 0: {
            vread r = varint(&p, end, &len);
            if (r != V_OK) {
                return r == V_LONG ? long_varint(w, at, t, field) : bad_wire(w, at);
            }
            continue;
        }
        case 1:
        case 5: {
            size_t k = (tag & 7) == 1 ? 8 : 4;
            if ((size_t)(end - p) < k) {
                return bad_wire(w, at);
            }
            p += k;
            continue;
        }
        case 2:
            break;
        default:
            return bad_wire(w, at); /* groups and reserved wire types */
        }
        if (varint(&p, end, &len) != V_OK || len > (uint64_t)(end - p)) {
            return bad_wire(w, at);
        }
        const uint8_t *sub = p;
        p += len;
        if (is_packed(t, field)) {
            ember_status *st = walk_packed(w, sub, p, t, field);
            if (st != NULL) {
                return st;
            }
            continue;
        }
        if (t == W_TENSOR && field == 9 && main_graph && w->c->n_raw > 0) {
            onnx_span *r = &w->c->raw[w->c->n_raw - 1];
            r->off = (size_t)(sub - w->base);
            r->len = (size_t)len;
            r->present = true;
            continue;
        }
        wmsg ct = child_of(t, field);
        if (ct == W_LEAF) {
            continue;
        }
        int gd = gdepth + (ct == W_GRAPH), td = tdepth + (ct == W_TYPE);
        if (gd > EM_ONNX_MAX_DEPTH + 1) {
            return em_onnx_err(w->c, EMBER_ERR_INVALID_MODEL, "subgraphs nested deeper than %d levels",
                            EM_ONNX_MAX_DEPTH);
        }
        if (td > ONNX_MAX_TYPE_DEPTH) {
            return em_onnx_err(w->c, EMBER_ERR_INVALID_MODEL, "types nested deeper than %d levels",
                            ONNX_MAX_TYPE_DEPTH);
        }
        bool in_main = (t == W_MODEL && ct == W_GRAPH) || (main_graph && t == W_GRAPH);
        if (main_graph && t == W_GRAPH && ct == W_TENSOR) {
            onnx_span *slot;
            ember_status *st = note_raw(w, &slot);
            if (st != NULL) {
                return st;
            }
        }
        ember_status *st = walk(w, sub, sub + len, ct, gd, td, in_main && ct != W_NODE);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

ember_status *em_onnx_wire_scan(onnx_ctx *c, const uint8_t *data, size_t size)
{
    wstate w = {c, data, 0};
    return walk(&w, data, data + size, W_MODEL, 0, 0, false);
}

/* ---- the skeleton without the main graph's initializer raw_data ---- */

static size_t put_varint(uint8_t *o, uint64_t v)
{
    size_t n = 0;
    do {
        o[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
    return n;
}

/* Copies message [p, end) of type t (W_MODEL, W_GRAPH of the main graph or W_TENSOR of its
 * initializers) to o, leaving out W_TENSOR's raw_data and re-encoding the lengths of the
 * messages on the way; returns the bytes written (never more than end - p). The image passed
 * em_onnx_wire_scan, so the wire format is known to be sound. */
static size_t strip(const uint8_t *p, const uint8_t *end, wmsg t, uint8_t *o)
{
    size_t n = 0;
    while (p < end) {
        const uint8_t *at = p;
        uint64_t tag = 0, len = 0;
        (void)varint(&p, end, &tag);
        uint32_t field = (uint32_t)(tag >> 3);
        switch (tag & 7) {
        case 0:
            (void)varint(&p, end, &len);
            break;
        case 1:
            p += 8;
            break;
        case 5:
            p += 4;
            break;
        default: /* 2: the scan refused every other wire type */
            (void)varint(&p, end, &len);
            p += len;
            break;
        }
        if ((tag & 7) == 2 && t == W_TENSOR && field == 9) {
            continue; /* raw_data: read in place from the image */
        }
        /* Only the path to the main graph's initializers is rewritten. */
        wmsg ct = (tag & 7) == 2 ? child_of(t, field) : W_LEAF;
        if (!(t == W_MODEL && ct == W_GRAPH) && !(t == W_GRAPH && ct == W_TENSOR)) {
            memcpy(o + n, at, (size_t)(p - at));
            n += (size_t)(p - at);
            continue;
        }
        /* Tag, then the child written 10 bytes on (room for any length varint), moved back. */
        const uint8_t *sub = p - len;
        size_t tn = put_varint(o + n, tag), room = 10;
        size_t cn = strip(sub, p, ct, o + n + tn + room);
        size_t ln = put_varint(o + n + tn, cn);
        memmove(o + n + tn + ln, o + n + tn + room, cn);
        n += tn + ln + cn;
    }
    return n;
}

ember_status *em_onnx_wire_strip(onnx_ctx *c, const uint8_t *data, size_t size, uint8_t **out,
                              size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    size_t raw = 0;
    for (size_t i = 0; i < c->n_raw; i++) {
        raw += c->raw[i].present ? c->raw[i].len : 0;
    }
    if (raw == 0) {
        return NULL;
    }
    /* The child of a message is written 10 bytes past its tag before it moves back, and it is
     * no longer than its source: size + 10 per nesting level (model, graph, tensor) suffices. */
    uint8_t *o = em_malloc(c->al, size + 32);
    if (o == NULL) {
        return em_status_oom();
    }
    *out_size = strip(data, data + size, W_MODEL, o);
    *out = o;
    return NULL;
}
