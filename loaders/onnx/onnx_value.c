/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SequenceProto and OptionalProto files (the conformance suite's inputs of sequence and
 * optional type), read at the wire level: Debian's onnx.proto lacks these messages (they live
 * in onnx-data.proto), and they are small. Field numbers, from onnx-data.proto:
 *   SequenceProto: name 1, elem_type 2, tensor_values 3, sequence_values 5, ...
 *   OptionalProto: name 1, elem_type 2, tensor_value 3, sequence_value 5, ...
 * Only sequences of tensors are supported (maps, sparse tensors and nesting are refused).
 */
#include "onnx.h"

#include "core/alloc.h"
#include "core/value.h"
#include "core/status.h"

#include <string.h>

static bool rd_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            return true;
        }
    }
    return false;
}

/* Next field: number, wire type, and for wire type 2 its bytes. */
static bool next_field(const uint8_t **p, const uint8_t *end, uint32_t *field,
                       const uint8_t **sub, size_t *len)
{
    uint64_t key, v;
    if (!rd_varint(p, end, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX) {
        return false;
    }
    *field = (uint32_t)(key >> 3);
    *sub = NULL;
    switch (key & 7) {
    case 0: return rd_varint(p, end, &v);
    case 1: return end - *p >= 8 && (*p += 8, true);
    case 5: return end - *p >= 4 && (*p += 4, true);
    case 2:
        if (!rd_varint(p, end, &v) || v > (uint64_t)(end - *p)) {
            return false;
        }
        *sub = *p;
        *len = (size_t)v;
        *p += v;
        return true;
    default: return false;
    }
}

static ember_status *bad(const char *what, const char *msg)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: %s", what, msg);
}

static ember_status *read_tensor(const uint8_t *d, size_t n, const char *what,
                                 const ember_allocator *al, em_rv *out)
{
    memset(out, 0, sizeof *out);
    ember_status *st = em_onnx_read_tensor(d, n, what, NULL, al, &out->t, &out->s);
    if (st == NULL) {
        out->kind = EM_RV_TENSOR;
        out->t.data = em_storage_data(out->s);
    }
    return st;
}

static ember_status *read_sequence(const uint8_t *p, const uint8_t *end, const char *what,
                                   const ember_allocator *al, em_rv *out)
{
    uint32_t f;
    const uint8_t *sub, *q = p;
    size_t len, n = 0;
    while (q < end) { /* count the tensors first */
        if (!next_field(&q, end, &f, &sub, &len)) {
            return bad(what, "malformed SequenceProto");
        }
        if (f == 3 && sub != NULL) {
            n++;
        } else if (f >= 4 && f <= 7) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: only sequences of dense tensors "
                                 "are supported", what);
        }
    }
    out->kind = EM_RV_SEQUENCE;
    if (n > 0 && (out->items = em_calloc(al, n, sizeof *out->items)) == NULL) {
        return em_status_oom();
    }
    for (q = p; q < end;) {
        next_field(&q, end, &f, &sub, &len);
        if (f == 3 && sub != NULL) {
            ember_status *st = read_tensor(sub, len, what, al, &out->items[out->n]);
            out->n++;
            if (st != NULL) {
                return st;
            }
            out->elem = out->items[0].t.dtype;
        }
    }
    return NULL;
}

ember_status *em_onnx_read_value(const void *data, size_t size, const char *what, em_vtype vt,
                                 const ember_allocator *al, em_rv *out)
{
    const uint8_t *p = data, *end = p + size, *sub;
    ember_status *st = NULL;
    uint32_t f;
    size_t len;
    memset(out, 0, sizeof *out);
    what = what != NULL ? what : "<memory>";
    if (vt == EM_VT_SEQUENCE) {
        st = read_sequence(p, end, what, al, out);
    } else {
        out->kind = EM_RV_NONE;
        while (st == NULL && p < end) {
            if (!next_field(&p, end, &f, &sub, &len)) {
                st = bad(what, "malformed OptionalProto");
            } else if (f == 3 && sub != NULL && out->kind == EM_RV_NONE) {
                st = read_tensor(sub, len, what, al, out);
            } else if (f == 5 && sub != NULL && out->kind == EM_RV_NONE) {
                st = read_sequence(sub, sub + len, what, al, out);
            } else if (f >= 3 && f <= 7) {
                st = em_status_new(EMBER_ERR_UNSUPPORTED, "%s: an optional of a kind ember "
                                   "does not support (map, sparse tensor, nesting)", what);
            }
        }
    }
    if (st != NULL) {
        em_rv_clear(al, out);
    }
    return st;
}
