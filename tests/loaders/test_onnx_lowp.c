/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX loader on the low-precision types of ember.h, through ember.h: TensorProtos written
 * here byte by byte (protobuf wire format) with raw_data and int32_data forms of the float8,
 * float6, float4, int4 and int2 types (onnx.proto: 4-bit pairs and 2-bit quads packed LSB
 * first in both; 6-bit packed in raw_data, one per int32 entry), unpacked to one byte per
 * element; data that does not fit the dims; a model importing only ai.onnx.ml; and an opset-28
 * Cast to float8 run end to end. Allocations are leak-checked.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "ember.h"

/* ---- a minimal protobuf writer ---- */

typedef struct pbuf {
    uint8_t b[512];
    size_t n;
} pbuf;

static void put_varint(pbuf *p, uint64_t v)
{
    do {
        uint8_t c = v & 0x7F;
        v >>= 7;
        assert_true(p->n < sizeof p->b);
        p->b[p->n++] = (uint8_t)(c | (v != 0 ? 0x80 : 0));
    } while (v != 0);
}

static void put_int(pbuf *p, unsigned field, uint64_t v)
{
    put_varint(p, field << 3);
    put_varint(p, v);
}

static void put_bytes(pbuf *p, unsigned field, const void *d, size_t n)
{
    put_varint(p, field << 3 | 2);
    put_varint(p, n);
    assert_true(p->n + n <= sizeof p->b);
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

static void put_str(pbuf *p, unsigned field, const char *s)
{
    put_bytes(p, field, s, strlen(s));
}

static void put_msg(pbuf *p, unsigned field, const pbuf *m)
{
    put_bytes(p, field, m->b, m->n);
}

/* TensorProto: dims = 1, data_type = 2, int32_data = 5 (packed), raw_data = 9. */
static pbuf tensor_pb(int data_type, int64_t dim, const uint8_t *raw, size_t n_raw,
                      const int32_t *i32, size_t n_i32)
{
    pbuf p = {{0}, 0}, packed = {{0}, 0};
    put_int(&p, 1, (uint64_t)dim);
    put_int(&p, 2, (uint64_t)data_type);
    if (i32 != NULL) {
        for (size_t i = 0; i < n_i32; i++) {
            put_varint(&packed, (uint64_t)(uint32_t)i32[i]);
        }
        put_msg(&p, 5, &packed);
    }
    if (raw != NULL) {
        put_bytes(&p, 9, raw, n_raw);
    }
    return p;
}

static void expect_tensor(const pbuf *p, ember_dtype dt, int64_t dim, const uint8_t *want)
{
    ember_tensor *t = NULL;
    OK(ember_tensor_load_pb_memory(p->b, p->n, "case.pb", &t));
    assert_int_equal(ember_tensor_dtype(t), dt);
    assert_int_equal(ember_tensor_rank(t), 1);
    assert_int_equal(ember_tensor_dims(t)[0], dim);
    assert_int_equal(ember_tensor_nbytes(t), (size_t)dim);
    assert_memory_equal(ember_tensor_data(t), want, (size_t)dim);
    ember_tensor_destroy(t);
}

static void expect_error(const pbuf *p, ember_code code, const char *text)
{
    ember_tensor *t = NULL;
    ember_status *st = ember_tensor_load_pb_memory(p->b, p->n, "case.pb", &t);
    assert_non_null(st);
    assert_null(t);
    assert_int_equal(ember_status_code(st), code);
    if (strstr(ember_status_message(st), text) == NULL) {
        fail_msg("message '%s' lacks '%s'", ember_status_message(st), text);
    }
    ember_status_destroy(st);
}

/* One TensorProto: data in raw_data (raw) or int32_data (i32), and the bytes ember must hold. */
typedef struct tp_case {
    const char *name;
    int data_type;
    int64_t dim;
    uint8_t raw[4];
    size_t n_raw;
    int32_t i32[4];
    size_t n_i32;
    ember_dtype dt;
    uint8_t want[5];
} tp_case;

static const tp_case tp_cases[] = {
    /* int4 [1, 2, -1]: packed {0x21, 0x0F} in raw_data and in int32_data alike */
    {"i4_raw", 22, 3, {0x21, 0x0F}, 2, {0}, 0, EMBER_DTYPE_I4, {0x1, 0x2, 0xF}},
    {"i4_int32", 22, 3, {0}, 0, {0x21, 0x0F}, 2, EMBER_DTYPE_I4, {0x1, 0x2, 0xF}},
    /* uint2 [1, 2, 3, 0, 1]: 1 | 2 << 2 | 3 << 4 | 0 << 6 = 0x39, then 0x01 */
    {"u2_raw", 25, 5, {0x39, 0x01}, 2, {0}, 0, EMBER_DTYPE_U2, {1, 2, 3, 0, 1}},
    /* float8: one element per byte or per int32 entry */
    {"f8_int32", 17, 2, {0}, 0, {0x7E, 0x38}, 2, EMBER_DTYPE_F8E4M3FN, {0x7E, 0x38}},
    {"f8_raw", 19, 2, {0x7E, 0x38}, 2, {0}, 0, EMBER_DTYPE_F8E5M2, {0x7E, 0x38}},
    /* float6: a 6-bit stream in raw_data; the low 6 bits of each int32 entry */
    {"f6_raw", 27, 5, {0x7F, 0x20, 0x0C, 0x3F}, 4, {0}, 0, EMBER_DTYPE_F6E2M3,
     {0x3F, 0x01, 0x02, 0x03, 0x3F}},
    {"f6_int32", 28, 2, {0}, 0, {0x1F, 0x41}, 2, EMBER_DTYPE_F6E3M2, {0x1F, 0x01}},
    /* float4, one element: the low nibble; float8e8m0 */
    {"f4_raw", 23, 1, {0x07}, 1, {0}, 0, EMBER_DTYPE_F4E2M1, {0x7}},
    {"e8m0_raw", 24, 1, {0x7F}, 1, {0}, 0, EMBER_DTYPE_F8E8M0, {0x7F}},
};

static void test_tensors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tp_cases / sizeof tp_cases[0]; i++) {
        const tp_case *c = &tp_cases[i];
        pbuf p = tensor_pb(c->data_type, c->dim, c->n_raw ? c->raw : NULL, c->n_raw,
                           c->n_i32 ? c->i32 : NULL, c->n_i32);
        expect_tensor(&p, c->dt, c->dim, c->want);
    }
}

static void test_tensor_errors(void **state)
{
    (void)state;
    static const uint8_t three[3] = {1, 2, 3};
    static const int32_t three_i32[3] = {1, 2, 3};
    pbuf p = tensor_pb(22, 3, three, 3, NULL, 0);
    expect_error(&p, EMBER_ERR_INVALID_MODEL, "raw_data has 3 bytes, its dims [3] need 2");
    p = tensor_pb(21, 3, NULL, 0, three_i32, 3);
    expect_error(&p, EMBER_ERR_INVALID_MODEL, "has 3 values, its dims [3] need 2");
    p = tensor_pb(17, 2, NULL, 0, three_i32, 1);
    expect_error(&p, EMBER_ERR_INVALID_MODEL, "need 2");
    p = tensor_pb(27, 5, three, 3, NULL, 0);
    expect_error(&p, EMBER_ERR_INVALID_MODEL, "need 4");
    p = tensor_pb(29, 1, three, 1, NULL, 0);
    expect_error(&p, EMBER_ERR_UNSUPPORTED, "data type 29");
}

/* ---- models ---- */

/* ValueInfoProto of a 1-D tensor [dim] of data type dt. */
static pbuf value_info(const char *name, int dt, int64_t dim)
{
    pbuf d = {{0}, 0}, shape = {{0}, 0}, tt = {{0}, 0}, type = {{0}, 0}, vi = {{0}, 0};
    put_int(&d, 1, (uint64_t)dim);           /* Dimension.dim_value */
    put_msg(&shape, 1, &d);                  /* TensorShapeProto.dim */
    put_int(&tt, 1, (uint64_t)dt);           /* TypeProto.Tensor.elem_type */
    put_msg(&tt, 2, &shape);                 /* TypeProto.Tensor.shape */
    put_msg(&type, 1, &tt);                  /* TypeProto.tensor_type */
    put_str(&vi, 1, name);
    put_msg(&vi, 2, &type);
    return vi;
}

/* A model of one node `op` of `domain` (x f32 [3] -> y of dtype y_dt), importing `import` at
 * `version`; `to` > 0 adds the int attribute 'to'. */
static pbuf model_pb(const char *op, const char *domain, const char *import, int version,
                     int to, int y_dt)
{
    pbuf node = {{0}, 0}, attr = {{0}, 0}, graph = {{0}, 0}, ops = {{0}, 0}, m = {{0}, 0};
    put_str(&node, 1, "x");
    put_str(&node, 2, "y");
    put_str(&node, 4, op);
    if (to > 0) {
        put_str(&attr, 1, "to");
        put_int(&attr, 3, (uint64_t)to); /* AttributeProto.i */
        put_int(&attr, 20, 2);           /* AttributeProto.type = INT */
        put_msg(&node, 5, &attr);
    }
    put_str(&node, 7, domain);
    put_msg(&graph, 1, &node);
    put_str(&graph, 2, "g");
    pbuf in = value_info("x", 1, 3), out = value_info("y", y_dt, 3);
    put_msg(&graph, 11, &in);
    put_msg(&graph, 12, &out);
    put_int(&m, 1, 10); /* ir_version */
    put_str(&ops, 1, import);
    put_int(&ops, 2, (uint64_t)version);
    put_msg(&m, 8, &ops);
    put_msg(&m, 7, &graph);
    return m;
}

static ember_status *load_model(const pbuf *p, ember_model **m)
{
    ember_model_options *o = NULL;
    OK(ember_model_options_create(&o));
    ember_model_options_set_allocator(o, test_allocator());
    ember_status *st = ember_model_load_memory(p->b, p->n, 0, o, m);
    ember_model_options_destroy(o);
    return st;
}

static void test_other_domains_only(void **state)
{
    (void)state;
    ember_model *m = NULL;
    /* an ai.onnx.ml node ember lacks: valid without the default domain, unsupported */
    pbuf p = model_pb("SVMClassifier", "ai.onnx.ml", "ai.onnx.ml", 1, 0, 1);
    ember_status *st = load_model(&p, &m);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "SVMClassifier, domain 'ai.onnx.ml'"));
    ember_status_destroy(st);
    /* a default-domain node in a model that imports only ai.onnx.ml */
    p = model_pb("Identity", "", "ai.onnx.ml", 1, 0, 1);
    st = load_model(&p, &m);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_MODEL);
    assert_non_null(strstr(ember_status_message(st), "(Identity) is of the default domain"));
    ember_status_destroy(st);
    assert_null(m);
}

static void test_cast_float8_end_to_end(void **state)
{
    (void)state;
    ember_model *m = NULL;
    ember_session *s = NULL;
    pbuf p = model_pb("Cast", "", "", 28, 17, 17);
    OK(load_model(&p, &m));
    assert_int_equal(ember_model_output_dtype(m, 0), EMBER_DTYPE_F8E4M3FN);
    OK(ember_session_create(m, NULL, &s));
    /* 448 is the largest e4m3fn (0x7E); 465 rounds past it and saturates (saturate defaults
     * to 1); NaN is S.1111.111 */
    const float x[3] = {448.0f, 465.0f, NAN};
    const int64_t dims[1] = {3};
    ember_tensor *in = NULL, *out = NULL;
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, dims, 1, (void *)x, sizeof x, &in));
    OK(ember_session_run(s, &in, 1, &out, 1));
    assert_int_equal(ember_tensor_dtype(out), EMBER_DTYPE_F8E4M3FN);
    static const uint8_t want[3] = {0x7E, 0x7E, 0x7F};
    assert_memory_equal(ember_tensor_data(out), want, 3);
    ember_tensor_destroy(out);
    ember_tensor_destroy(in);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensors),
        cmocka_unit_test(test_tensor_errors),
        cmocka_unit_test(test_other_domains_only),
        cmocka_unit_test(test_cast_float8_end_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
