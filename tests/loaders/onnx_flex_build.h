/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Builds ONNX models in memory for the FlexAttention tests (test_onnx_flex.c,
 * test_onnx_flex_refused.c) with the structs of the loader's generated onnx.pb-c.h, packs them
 * and loads them through ember.h. Include after <cmocka.h>: failures to build assert.
 */
#ifndef EMBER_TESTS_LOADERS_ONNX_FLEX_BUILD_H
#define EMBER_TESTS_LOADERS_ONNX_FLEX_BUILD_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "ember.h"
#include "onnx/onnx.pb-c.h"

/* ---- building models: every allocation is kept in a tb and freed at once ---- */

enum { TB_MAX = 4096, TB_ATTRS = 8 };

typedef struct tb {
    void *p[TB_MAX];
    int n;
} tb;

static inline void *tb_alloc(tb *b, size_t n)
{
    assert_true(b->n < TB_MAX);
    void *p = calloc(1, n ? n : 1);
    assert_non_null(p);
    b->p[b->n++] = p;
    return p;
}

static inline void tb_free(tb *b)
{
    for (int i = 0; i < b->n; i++) {
        free(b->p[i]);
    }
    b->n = 0;
}

static inline char *tb_str(tb *b, const char *s, size_t len)
{
    char *c = tb_alloc(b, len + 1);
    memcpy(c, s, len);
    return c;
}

/* "a,,b" -> {"a", "", "b"}; "" -> none. */
static inline char **tb_names(tb *b, const char *csv, size_t *n)
{
    *n = 0;
    if (csv[0] == '\0') {
        return NULL;
    }
    size_t cnt = 1;
    for (const char *s = csv; *s; s++) {
        cnt += *s == ',';
    }
    char **v = tb_alloc(b, cnt * sizeof *v);
    for (const char *s = csv; *n < cnt; (*n)++) {
        const char *e = strchr(s, ',');
        size_t len = e != NULL ? (size_t)(e - s) : strlen(s);
        v[*n] = tb_str(b, s, len);
        s += len + (e != NULL);
    }
    return v;
}

static inline Onnx__NodeProto *tb_node(tb *b, const char *op, const char *ins, const char *outs)
{
    Onnx__NodeProto *n = tb_alloc(b, sizeof *n);
    em_onnx__node_proto__init(n);
    n->op_type = tb_str(b, op, strlen(op));
    n->input = tb_names(b, ins, &n->n_input);
    n->output = tb_names(b, outs, &n->n_output);
    n->attribute = tb_alloc(b, TB_ATTRS * sizeof *n->attribute);
    return n;
}

/* A FlexAttention node named "fa". */
static inline Onnx__NodeProto *tb_flex(tb *b, const char *ins, const char *outs)
{
    Onnx__NodeProto *n = tb_node(b, "FlexAttention", ins, outs);
    n->domain = tb_str(b, "ai.onnx.preview", 15);
    n->name = tb_str(b, "fa", 2);
    return n;
}

static inline Onnx__AttributeProto *tb_attr(tb *b, Onnx__NodeProto *n, const char *name,
                                            Onnx__AttributeProto__AttributeType type)
{
    assert_true(n->n_attribute < TB_ATTRS);
    Onnx__AttributeProto *a = tb_alloc(b, sizeof *a);
    em_onnx__attribute_proto__init(a);
    a->name = tb_str(b, name, strlen(name));
    a->has_type = 1;
    a->type = type;
    n->attribute[n->n_attribute++] = a;
    return a;
}

static inline void tb_attr_f(tb *b, Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = tb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

static inline void tb_attr_i(tb *b, Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = tb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

static inline void tb_attr_g(tb *b, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g)
{
    tb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH)->g = g;
}

/* A value of element type `elem` (0: no type) and dims "2,L,4" (NULL: no shape). */
static inline Onnx__ValueInfoProto *tb_vi(tb *b, const char *name, int elem, const char *dims)
{
    Onnx__ValueInfoProto *vi = tb_alloc(b, sizeof *vi);
    em_onnx__value_info_proto__init(vi);
    vi->name = tb_str(b, name, strlen(name));
    if (elem == 0) {
        return vi;
    }
    Onnx__TypeProto *tp = tb_alloc(b, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = tb_alloc(b, sizeof *tt);
    em_onnx__type_proto__init(tp);
    em_onnx__type_proto__tensor__init(tt);
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    vi->type = tp;
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    if (dims != NULL) {
        Onnx__TensorShapeProto *sh = tb_alloc(b, sizeof *sh);
        em_onnx__tensor_shape_proto__init(sh);
        char **names = tb_names(b, dims, &sh->n_dim);
        sh->dim = tb_alloc(b, (sh->n_dim + 1) * sizeof *sh->dim);
        for (size_t i = 0; i < sh->n_dim; i++) {
            Onnx__TensorShapeProto__Dimension *d = tb_alloc(b, sizeof *d);
            em_onnx__tensor_shape_proto__dimension__init(d);
            if (names[i][0] >= '0' && names[i][0] <= '9') {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                d->dim_value = atoll(names[i]);
            } else {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                d->dim_param = names[i];
            }
            sh->dim[i] = d;
        }
        tt->shape = sh;
    }
    return vi;
}

static inline uint16_t to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, man = x & 0x7FFFFFu;
    int32_t exp = (int32_t)((x >> 23) & 0xFF) - 127 + 15;
    if (exp >= 31) {
        return (uint16_t)(sign | 0x7C00u);
    }
    uint32_t shift = 13, h;
    if (exp <= 0) { /* subnormal */
        if (exp < -10) {
            return (uint16_t)sign;
        }
        man |= 0x800000u;
        shift = (uint32_t)(14 - exp);
        h = man >> shift;
    } else {
        h = ((uint32_t)exp << 10) | (man >> 13);
    }
    uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    h += rem > half || (rem == half && (h & 1));
    return (uint16_t)(sign | h);
}

static inline double from_f16(uint16_t h)
{
    int exp = (h >> 10) & 31, man = h & 1023;
    double v = exp == 0 ? ldexp(man, -24) : exp == 31 ? INFINITY : ldexp(man | 1024, exp - 25);
    return (h & 0x8000) ? -v : v;
}

static inline size_t elem_size(int elem)
{
    return elem == 10 ? 2 : elem == 11 || elem == 7 ? 8 : elem == 9 ? 1 : 4;
}

/* x in the layout of `elem` (1 f32, 10 f16, 11 f64, 7 i64, 9 bool); returns x as stored. */
static inline double put_elem(int elem, void *dst, double x)
{
    if (elem == 1) {
        float f = (float)x;
        memcpy(dst, &f, 4);
        return f;
    }
    if (elem == 10) {
        uint16_t h = to_f16((float)x);
        memcpy(dst, &h, 2);
        return from_f16(h);
    }
    if (elem == 7) {
        int64_t i = (int64_t)x;
        memcpy(dst, &i, 8);
        return (double)i;
    }
    if (elem == 9) {
        *(uint8_t *)dst = x != 0;
        return x != 0;
    }
    memcpy(dst, &x, 8);
    return x;
}

/* An initializer of dims "2,3" ("" for a scalar) holding vals. */
static inline Onnx__TensorProto *tb_tensor(tb *b, const char *name, int elem, const char *dims,
                                           const double *vals)
{
    Onnx__TensorProto *t = tb_alloc(b, sizeof *t);
    em_onnx__tensor_proto__init(t);
    t->name = tb_str(b, name, strlen(name));
    t->has_data_type = 1;
    t->data_type = elem;
    char **d = tb_names(b, dims, &t->n_dims);
    t->dims = tb_alloc(b, (t->n_dims + 1) * sizeof *t->dims);
    size_t count = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        t->dims[i] = atoll(d[i]);
        count *= (size_t)t->dims[i];
    }
    t->has_raw_data = 1;
    t->raw_data.len = count * elem_size(elem);
    t->raw_data.data = tb_alloc(b, t->raw_data.len);
    for (size_t i = 0; i < count; i++) {
        put_elem(elem, t->raw_data.data + i * elem_size(elem), vals[i]);
    }
    return t;
}

static inline Onnx__TensorProto *tb_scalar(tb *b, const char *name, int elem, double v)
{
    return tb_tensor(b, name, elem, "", &v);
}

/* "Q:1:2,3 c:9: x" -> value infos Q (f32 [2, 3]), c (a bool scalar), x (no type). */
static inline void **tb_vis(tb *b, const char *spec)
{
    size_t n = 0;
    void **l = tb_alloc(b, (strlen(spec) / 2 + 2) * sizeof *l);
    for (const char *s = spec; *s != '\0'; n++) {
        size_t len = strcspn(s, " ");
        char *name = tb_str(b, s, len), *elem = strchr(name, ':'), *dims = NULL;
        if (elem != NULL) {
            *elem++ = '\0';
            if ((dims = strchr(elem, ':')) != NULL) {
                *dims++ = '\0';
            }
        }
        l[n] = tb_vi(b, name, elem != NULL ? atoi(elem) : 0, dims);
        s += len + (s[len] == ' ');
    }
    return l;
}

#define LIST(...) ((void *[]){__VA_ARGS__, NULL})
#define NONE LIST(NULL)

static inline void **tb_list(tb *b, void **l, size_t *n)
{
    for (*n = 0; l[*n] != NULL; (*n)++) {
    }
    void **c = tb_alloc(b, (*n + 1) * sizeof *c);
    memcpy(c, l, *n * sizeof *c);
    return c;
}

static inline Onnx__GraphProto *tb_graph(tb *b, void **nodes, void **ins, void **outs, void **inits)
{
    Onnx__GraphProto *g = tb_alloc(b, sizeof *g);
    em_onnx__graph_proto__init(g);
    g->name = tb_str(b, "g", 1);
    g->node = (Onnx__NodeProto **)tb_list(b, nodes, &g->n_node);
    g->input = (Onnx__ValueInfoProto **)tb_list(b, ins, &g->n_input);
    g->output = (Onnx__ValueInfoProto **)tb_list(b, outs, &g->n_output);
    g->initializer = (Onnx__TensorProto **)tb_list(b, inits, &g->n_initializer);
    return g;
}

/* Packs a model importing the default domain at opset 26 and ai.onnx.preview at `preview`
 * (0: not imported) and loads it with test_allocator() (or `al`). */
static inline ember_status *tb_load(tb *b, Onnx__GraphProto *g, int64_t preview,
                                    const ember_allocator *al, ember_model **m)
{
    Onnx__ModelProto mp;
    Onnx__OperatorSetIdProto os[2], *osp[2] = {&os[0], &os[1]};
    em_onnx__model_proto__init(&mp);
    em_onnx__operator_set_id_proto__init(&os[0]);
    em_onnx__operator_set_id_proto__init(&os[1]);
    os[0].domain = (char *)"";
    os[0].has_version = os[1].has_version = 1;
    os[0].version = 26;
    os[1].domain = (char *)"ai.onnx.preview";
    os[1].version = preview;
    mp.has_ir_version = 1;
    mp.ir_version = 10;
    mp.opset_import = osp;
    mp.n_opset_import = preview != 0 ? 2 : 1;
    mp.graph = g;
    size_t n = em_onnx__model_proto__get_packed_size(&mp);
    uint8_t *buf = tb_alloc(b, n);
    assert_int_equal(em_onnx__model_proto__pack(&mp, buf), n);
    ember_model_options *o = NULL;
    OK(ember_model_options_create(&o));
    ember_model_options_set_allocator(o, al != NULL ? al : test_allocator());
    ember_status *st = ember_model_load_memory(buf, n, 0, o, m);
    ember_model_options_destroy(o);
    return st;
}

/* The usual graph: inputs Q, K, V of `elem` with the given dims, node `fa`, output Y. */
static inline Onnx__GraphProto *flex_graph(tb *b, int elem, const char *q, const char *k,
                                           const char *v, Onnx__NodeProto *fa)
{
    return tb_graph(b, LIST(fa),
                    LIST(tb_vi(b, "Q", elem, q), tb_vi(b, "K", elem, k), tb_vi(b, "V", elem, v)),
                    LIST(tb_vi(b, "Y", elem, NULL)), NONE);
}

/* Q, K, V (f16 [1, 2, 3, 4], [1, 2, 5, 4], [1, 2, 5, 3]) carried through a Loop of one trip
 * whose body inputs have no declared type, so that FlexAttention's type is known only at run
 * time: the softmax precision must be given (f32 when `precision`). Output Y [1, 1, 2, 3, 3]. */
static inline Onnx__GraphProto *loop_graph(tb *b, bool precision)
{
    Onnx__NodeProto *fa = tb_flex(b, "q,k,v", "y");
    if (precision) {
        tb_attr_i(b, fa, "softmax_precision", 1);
    }
    Onnx__GraphProto *body =
        tb_graph(b,
                 LIST(tb_node(b, "Identity", "c", "c1"), tb_node(b, "Identity", "q", "q1"),
                      tb_node(b, "Identity", "k", "k1"), tb_node(b, "Identity", "v", "v1"), fa),
                 tb_vis(b, "i:7: c:9: q k v"), tb_vis(b, "c1:9: q1 k1 v1 y"), NONE);
    Onnx__NodeProto *loop = tb_node(b, "Loop", "trip,,Q,K,V", "qf,kf,vf,Y");
    tb_attr_g(b, loop, "body", body);
    return tb_graph(b, LIST(loop), tb_vis(b, "Q:10:1,2,3,4 K:10:1,2,5,4 V:10:1,2,5,3"),
                    tb_vis(b, "Y:10"), LIST(tb_scalar(b, "trip", 7, 1)));
}

#endif
