/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writer of serialized ONNX values (internal; ember_value_save_pb wraps it): TensorProto,
 * SequenceProto of tensors and OptionalProto, the format of the conformance suite's
 * input_N.pb / output_N.pb files, so ember can hand back what numpy's .npy cannot hold
 * (bfloat16, sequences, empty optionals).
 *
 * Encoding (protobuf wire format, onnx.proto and onnx-data.proto field numbers): a tensor is
 * dims (1, varint each), data_type (2) and raw_data (9, little-endian element bytes); a
 * sequence is elem_type (2) = TENSOR and one tensor_values (3) per item; an optional is
 * elem_type (2) = TENSOR or SEQUENCE and its tensor_value (3) or sequence_value (5), or just
 * elem_type for an empty one. Sub-byte dtypes (int4, uint4, float4, int2, uint2, float6), one
 * element per byte in memory, are packed as ONNX stores them. Needs no protobuf library, so it is built without the ONNX
 * loader too. Threads: reentrant, no state.
 */
#ifndef EMBER_LOADERS_ONNX_PB_WRITE_H
#define EMBER_LOADERS_ONNX_PB_WRITE_H

#include "ember.h"
#include "core/tensor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer; `failed` is set (and bytes stop growing) on allocation failure. */
typedef struct em_pbuf {
    uint8_t *p;
    size_t n, cap;
    bool failed;
} em_pbuf;

void em_pbuf_free(em_pbuf *b);

/* Appends field `field` as a varint / as length-delimited bytes. */
void em_pb_varint(em_pbuf *b, uint32_t field, uint64_t v);
void em_pb_bytes(em_pbuf *b, uint32_t field, const void *data, size_t n);
/* A float as wire type 5 (fixed32, little-endian); a NUL-terminated string (NULL: ""); the
 * bytes of a finished sub-message. */
void em_pb_float(em_pbuf *b, uint32_t field, float v);
void em_pb_string(em_pbuf *b, uint32_t field, const char *s);
void em_pb_message(em_pbuf *b, uint32_t field, const em_pbuf *msg);

/* Appends the TensorProto of `t` (no field tag: the message itself). UNSUPPORTED for dtypes
 * without a fixed element size; OUT_OF_MEMORY when the buffer failed. */
ember_status *em_pb_tensor(em_pbuf *b, const em_tensor *t);

/* The elem_type numbers of onnx-data.proto's SequenceProto / OptionalProto. */
enum { EM_PB_ELEM_TENSOR = 1, EM_PB_ELEM_SEQUENCE = 3 };

#endif /* EMBER_LOADERS_ONNX_PB_WRITE_H */
