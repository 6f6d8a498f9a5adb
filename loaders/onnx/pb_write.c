/* SPDX-License-Identifier: Apache-2.0 */
/* Serialized ONNX values: see pb_write.h. */
#include "pb_write.h"

#include "core/lowp.h"
#include "core/status.h"

#include <stdlib.h>
#include <string.h>

void em_pbuf_free(em_pbuf *b)
{
    free(b->p);
    *b = (em_pbuf){0};
}

static void put(em_pbuf *b, const void *data, size_t n)
{
    if (b->failed || n == 0) {
        return;
    }
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2) {
                b->failed = true;
                return;
            }
            cap *= 2;
        }
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_varint(em_pbuf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        tmp[n++] |= v ? 0x80 : 0;
    } while (v);
    put(b, tmp, n);
}

void em_pb_varint(em_pbuf *b, uint32_t field, uint64_t v)
{
    put_varint(b, (uint64_t)field << 3 | 0); /* wire type 0: varint */
    put_varint(b, v);
}

void em_pb_bytes(em_pbuf *b, uint32_t field, const void *data, size_t n)
{
    put_varint(b, (uint64_t)field << 3 | 2); /* wire type 2: length-delimited */
    put_varint(b, n);
    put(b, data, n);
}

void em_pb_float(em_pbuf *b, uint32_t field, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    put_varint(b, (uint64_t)field << 3 | 5); /* wire type 5: fixed32 */
    put(b, le, 4);
}

void em_pb_string(em_pbuf *b, uint32_t field, const char *s)
{
    em_pb_bytes(b, field, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

void em_pb_message(em_pbuf *b, uint32_t field, const em_pbuf *msg)
{
    if (msg->failed) {
        b->failed = true;
        return;
    }
    em_pb_bytes(b, field, msg->p, msg->n);
}

ember_status *em_pb_tensor(em_pbuf *b, const em_tensor *t)
{
    size_t nbytes = 0;
    if (ember_dtype_size(t->dtype) == 0 || !em_tensor_nbytes_checked(t, &nbytes)) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "TensorProto: cannot write a %s tensor",
                             em_dtype_name(t->dtype));
    }
    for (int i = 0; i < t->rank; i++) {
        em_pb_varint(b, 1, (uint64_t)t->dims[i]); /* int64 dims: two's complement varints */
    }
    em_pb_varint(b, 2, (uint64_t)t->dtype); /* ember's dtype numbers are ONNX's */
    if (em_lowp_packed_bits(t->dtype) != 0) { /* sub-byte types: ONNX packs them (lowp.h) */
        size_t n = em_lowp_packed_size(t->dtype, nbytes);
        uint8_t *packed = n ? malloc(n) : NULL;
        if (n && packed == NULL) {
            return em_status_new(EMBER_ERR_OUT_OF_MEMORY, "TensorProto: out of memory");
        }
        if (n) {
            em_lowp_pack(t->dtype, t->data, packed, nbytes);
        }
        em_pb_bytes(b, 9, packed, n);
        free(packed);
    } else {
        /* raw_data is little-endian, as are ember's targets (x86-64, ARM); onnx_tensor.c reads
         * it with the same assumption. */
        em_pb_bytes(b, 9, nbytes ? t->data : NULL, nbytes);
    }
    return b->failed ? em_status_new(EMBER_ERR_OUT_OF_MEMORY, "TensorProto: out of memory")
                     : NULL;
}
