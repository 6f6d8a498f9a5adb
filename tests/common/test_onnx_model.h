/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An ONNX image classifier built in memory, for tests that need weights of a chosen size
 * without committing them: x f32 [N, 3, H, W] (N, H, W symbolic) -> Conv 3x3 (3 -> c1) ->
 * Relu -> Conv 3x3 stride 2 (c1 -> c2) -> Relu -> Conv 3x3 stride 2 (c2 -> c2) -> Relu ->
 * GlobalAveragePool -> Flatten -> Gemm (transB, c2 -> classes) -> y f32 [N, classes], opset 13.
 * Weights are a deterministic pattern. No convolution fits oneDNN's Winograd path (stride 1,
 * outputs of 14x14 and more, AVX-512: conv_onednn.c) for inputs up to 56x56, so the weights'
 * packed layouts are the same on every x86 machine: one for batch 1, one for larger batches. The protobuf is written by hand (onnx.proto field
 * numbers in the comments), so it needs neither protobuf nor ember's internals.
 */
#ifndef EMBER_TESTS_TEST_ONNX_MODEL_H
#define EMBER_TESTS_TEST_ONNX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tom_buf {
    uint8_t *p;
    size_t n, cap;
} tom_buf;

static inline void tom_put(tom_buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + n) {
            cap *= 2;
        }
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) {
            abort(); /* a test helper: out of memory ends the test */
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static inline void tom_varint(tom_buf *b, uint64_t v)
{
    uint8_t c[10];
    size_t n = 0;
    do {
        c[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
    tom_put(b, c, n);
}

/* Field `f` as a varint (wire type 0) / length-delimited bytes (wire type 2). */
static inline void tom_int(tom_buf *b, unsigned f, uint64_t v)
{
    tom_varint(b, (uint64_t)f << 3);
    tom_varint(b, v);
}

static inline void tom_bytes(tom_buf *b, unsigned f, const void *d, size_t n)
{
    tom_varint(b, (uint64_t)f << 3 | 2);
    tom_varint(b, n);
    tom_put(b, d, n);
}

static inline void tom_str(tom_buf *b, unsigned f, const char *s)
{
    tom_bytes(b, f, s, strlen(s));
}

/* Appends sub-message `m` as field f of b and frees it. */
static inline void tom_msg(tom_buf *b, unsigned f, tom_buf *m)
{
    tom_bytes(b, f, m->p, m->n);
    free(m->p);
    *m = (tom_buf){0};
}

/* An INTS attribute (AttributeProto: name 1, ints 8, type 20 = INTS 7) of node `node`. */
static inline void tom_attr_ints(tom_buf *node, const char *name, const int64_t *v, int n)
{
    tom_buf a = {0};
    tom_str(&a, 1, name);
    for (int i = 0; i < n; i++) {
        tom_int(&a, 8, (uint64_t)v[i]);
    }
    tom_int(&a, 20, 7);
    tom_msg(node, 5, &a);
}

/* NodeProto (input 1, output 2, name 3, op_type 4) into graph field 1. */
static inline void tom_node(tom_buf *g, const char *op, const char *name, const char *const *in,
                            int n_in, const char *out, int stride, bool conv, bool trans_b)
{
    tom_buf n = {0};
    for (int i = 0; i < n_in; i++) {
        tom_str(&n, 1, in[i]);
    }
    tom_str(&n, 2, out);
    tom_str(&n, 3, name);
    tom_str(&n, 4, op);
    if (conv) {
        const int64_t k[2] = {3, 3}, s[2] = {stride, stride}, pads[4] = {1, 1, 1, 1};
        tom_attr_ints(&n, "kernel_shape", k, 2);
        tom_attr_ints(&n, "strides", s, 2);
        tom_attr_ints(&n, "pads", pads, 4);
    }
    if (trans_b) { /* AttributeProto: name 1, i 3, type 20 = INT 2 */
        tom_buf a = {0};
        tom_str(&a, 1, "transB");
        tom_int(&a, 3, 1);
        tom_int(&a, 20, 2);
        tom_msg(&n, 5, &a);
    }
    tom_msg(g, 1, &n);
}

/* A float initializer (TensorProto: dims 1, data_type 2 = FLOAT 1, name 8, raw_data 9) into
 * graph field 5, filled with a pattern scaled by `scale`. Returns its element count. */
static inline size_t tom_weight(tom_buf *g, const char *name, const int64_t *dims, int rank,
                                float scale)
{
    size_t count = 1;
    tom_buf t = {0};
    for (int i = 0; i < rank; i++) {
        tom_int(&t, 1, (uint64_t)dims[i]);
        count *= (size_t)dims[i];
    }
    tom_int(&t, 2, 1);
    tom_str(&t, 8, name);
    float *w = malloc(count * sizeof *w);
    if (w == NULL) {
        abort();
    }
    for (size_t i = 0; i < count; i++) {
        w[i] = scale * (float)((int)((i * 2654435761u) % 17) - 8) / 8.0f;
    }
    tom_bytes(&t, 9, w, count * sizeof *w);
    free(w);
    tom_msg(g, 5, &t);
    return count;
}

/* ValueInfoProto (name 1, type 2: TypeProto.tensor_type 1: elem_type 1, shape 2: dim 1:
 * dim_value 1 | dim_param 2) into graph field `f` (input 11, output 12). A dim below 0 is
 * symbolic, named by `params[d]`. */
static inline void tom_value(tom_buf *g, unsigned f, const char *name, const int64_t *dims,
                             int rank, const char *const *params)
{
    tom_buf shape = {0}, tensor = {0}, type = {0}, vi = {0};
    for (int d = 0; d < rank; d++) {
        tom_buf dim = {0};
        if (dims[d] >= 0) {
            tom_int(&dim, 1, (uint64_t)dims[d]);
        } else {
            tom_str(&dim, 2, params[d]);
        }
        tom_msg(&shape, 1, &dim);
    }
    tom_int(&tensor, 1, 1);
    tom_msg(&tensor, 2, &shape);
    tom_msg(&type, 1, &tensor);
    tom_str(&vi, 1, name);
    tom_msg(&vi, 2, &type);
    tom_msg(g, f, &vi);
}

/* The model's bytes (free with free()) and, in *weight_bytes, the bytes of its weights. */
static inline uint8_t *test_onnx_cnn(int c1, int c2, int classes, size_t *size,
                                     size_t *weight_bytes)
{
    tom_buf g = {0}, m = {0}, opset = {0};
    const char *x_params[4] = {"N", "", "H", "W"}, *y_params[2] = {"N", ""};
    const int64_t x_dims[4] = {-1, 3, -1, -1}, y_dims[2] = {-1, classes};
    const int64_t w1[4] = {c1, 3, 3, 3}, b1[1] = {c1}, w2[4] = {c2, c1, 3, 3}, b2[1] = {c2};
    const int64_t w3[4] = {c2, c2, 3, 3}, w4[2] = {classes, c2}, b4[1] = {classes};
    size_t count = 0;
    const char *in1[3] = {"x", "w1", "b1"}, *in2[3] = {"r1", "w2", "b2"};
    const char *in3[3] = {"r2", "w3", "b2"}, *in4[3] = {"f", "w4", "b4"};
    const char *r1[1] = {"c1"}, *r2[1] = {"c2"}, *r3[1] = {"c3"}, *p[1] = {"r3"}, *fl[1] = {"p"};
    tom_node(&g, "Conv", "conv1", in1, 3, "c1", 1, true, false);
    tom_node(&g, "Relu", "relu1", r1, 1, "r1", 1, false, false);
    tom_node(&g, "Conv", "conv2", in2, 3, "c2", 2, true, false);
    tom_node(&g, "Relu", "relu2", r2, 1, "r2", 1, false, false);
    tom_node(&g, "Conv", "conv3", in3, 3, "c3", 2, true, false);
    tom_node(&g, "Relu", "relu3", r3, 1, "r3", 1, false, false);
    tom_node(&g, "GlobalAveragePool", "pool", p, 1, "p", 1, false, false);
    tom_node(&g, "Flatten", "flatten", fl, 1, "f", 1, false, false);
    tom_node(&g, "Gemm", "fc", in4, 3, "y", 1, false, true);
    tom_str(&g, 2, "test_cnn");
    count += tom_weight(&g, "w1", w1, 4, 0.2f);
    count += tom_weight(&g, "b1", b1, 1, 0.01f);
    count += tom_weight(&g, "w2", w2, 4, 0.05f);
    count += tom_weight(&g, "b2", b2, 1, 0.01f);
    count += tom_weight(&g, "w3", w3, 4, 0.02f);
    count += tom_weight(&g, "w4", w4, 2, 0.05f);
    count += tom_weight(&g, "b4", b4, 1, 0.01f);
    tom_value(&g, 11, "x", x_dims, 4, x_params);
    tom_value(&g, 12, "y", y_dims, 2, y_params);
    tom_int(&m, 1, 8);      /* ir_version */
    tom_int(&opset, 2, 13); /* OperatorSetIdProto.version (domain "" by default) */
    tom_msg(&m, 8, &opset); /* opset_import */
    tom_msg(&m, 7, &g);     /* graph */
    *size = m.n;
    *weight_bytes = count * sizeof(float);
    return m.p;
}

#endif
