/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_tensor.c: the tensor family's shape functions through em_shape_infer_node,
 * against sizes worked out here from the ONNX specs: constant value inputs (axes, starts,
 * shape, repeats, pads, split, Range bounds, depth) give known dims; the same inputs without
 * a value give unknown dims (never an error); symbolic dims pass through where the op keeps
 * them; malformed nodes fail with INVALID_MODEL naming the node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "shape/shape.h"
#include "core/status.h"

#define UNK (-1) /* an expected unknown dim */

typedef struct fx {
    em_graph *g;
    int node;
} fx;

static fx fx_new(em_op op, int n_in, int n_out, const char *name)
{
    fx f;
    int in[8];
    const char *outs[8] = {"o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7"};
    assert_null(em_graph_new(test_allocator(), &f.g));
    for (int i = 0; i < n_in; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "in%d", i);
        assert_null(em_graph_add_input(f.g, nm, EMBER_DTYPE_F32, 0, NULL, NULL, &in[i]));
    }
    assert_null(em_graph_add_node(f.g, op, name, in, n_in, outs, n_out, &f.node));
    return f;
}

static const em_node *node(const fx *f)
{
    return &f->g->nodes[f->node];
}

static void fx_int(fx *f, const char *name, int64_t v)
{
    assert_null(em_node_set_int(f->g, f->node, name, v));
}

static void fx_ints(fx *f, const char *name, const int64_t *v, int64_t n)
{
    assert_null(em_node_set_ints(f->g, f->node, name, v, n));
}

static em_shape shp(ember_dtype dt, int rank, const int64_t *dims)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.rank = rank;
    for (int i = 0; i < rank; i++) {
        s.dims[i].v = dims[i];
    }
    return s;
}

#define SHP(dt, ...)                                                                               \
    shp(dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})

static em_shape scalar(ember_dtype dt)
{
    return shp(dt, 0, NULL);
}

/* A 1-D int64 constant input (its shape and its value). */
typedef struct cint {
    em_tensor t;
    int64_t v[16];
} cint;

static em_shape cvec(cint *c, int n, const int64_t *v)
{
    memset(c, 0, sizeof *c);
    memcpy(c->v, v, sizeof(int64_t) * (size_t)n);
    c->t.dtype = EMBER_DTYPE_I64;
    c->t.rank = 1;
    c->t.dims[0] = n;
    c->t.data = c->v;
    int64_t len = n;
    em_shape s = shp(EMBER_DTYPE_I64, 1, &len);
    s.value = &c->t;
    return s;
}

#define CVEC(c, ...)                                                                               \
    cvec(c, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})

/* The same input, value unknown. */
static em_shape novalue(em_shape s)
{
    s.value = NULL;
    return s;
}

static void infer_ok(const fx *f, const em_shape *in, em_shape *out)
{
    ember_status *st = em_shape_infer_node(node(f), in, out);
    if (st != NULL) {
        fail_msg("node '%s': unexpected error: %s", node(f)->name, ember_status_message(st));
    }
}

static void expect_dims(const em_shape *s, int rank, const int64_t *dims)
{
    if (s->rank != rank) {
        fail_msg("rank %d, expected %d", s->rank, rank);
    }
    for (int i = 0; i < rank; i++) {
        if (dims[i] == UNK ? s->dims[i].v >= 0 : s->dims[i].v != dims[i]) {
            fail_msg("dim %d is %lld, expected %lld", i, (long long)s->dims[i].v,
                     (long long)dims[i]);
        }
    }
}

#define EXPECT(s, ...)                                                                             \
    expect_dims(&(s), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),                   \
                (int64_t[]){__VA_ARGS__})

static void infer_err(const fx *f, const em_shape *in, const char *what)
{
    em_shape out[8];
    ember_status *st = em_shape_infer_node(node(f), in, out);
    if (st == NULL) {
        fail_msg("node '%s': expected an error (%s)", node(f)->name, what);
    }
    bool ok = ember_status_code(st) == EMBER_ERR_INVALID_MODEL &&
              strstr(ember_status_message(st), node(f)->name) != NULL;
    if (!ok) {
        print_error("%s: %s\n", what, ember_status_message(st));
    }
    ember_status_destroy(st);
    assert_true(ok);
}

static void test_transpose_concat(void **state)
{
    (void)state;
    em_shape in[3], out[1];
    fx f = fx_new(EM_OP_TRANSPOSE, 1, 1, "tr");
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3, 5);
    in[0].dims[1].v = -1;
    in[0].dims[1].sym = 4;
    infer_ok(&f, in, out);
    EXPECT(out[0], 5, UNK, 2);
    assert_int_equal(out[0].dims[1].sym, 4);
    fx_ints(&f, "perm", (int64_t[]){1, 2, 0}, 3);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, 5, 2);
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_TRANSPOSE, 1, 1, "bad_tr");
    fx_ints(&f, "perm", (int64_t[]){1, 1, 0}, 3);
    infer_err(&f, in, "dup");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_CONCAT, 3, 1, "cat");
    fx_int(&f, "axis", -1);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    in[1] = SHP(EMBER_DTYPE_F32, 2, 0);
    in[2] = SHP(EMBER_DTYPE_F32, 2, 4);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 7);
    in[1].dims[1].v = -1;
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, UNK);
    in[1] = SHP(EMBER_DTYPE_F32, 3, 1);
    infer_err(&f, in, "dims");
    in[1] = SHP(EMBER_DTYPE_I64, 2, 1);
    infer_err(&f, in, "dtype");
    /* 3 + (2^63 - 7) + 4 wraps (found by fuzz_onnx_model); 3 + (2^63 - 8) + 4 does not */
    in[0] = SHP(EMBER_DTYPE_F32, 1, 3);
    in[1] = SHP(EMBER_DTYPE_F32, 1, INT64_MAX - 6);
    in[2] = SHP(EMBER_DTYPE_F32, 1, 4);
    infer_err(&f, in, "2^63");
    in[1].dims[1].v = INT64_MAX - 7;
    infer_ok(&f, in, out);
    EXPECT(out[0], 1, INT64_MAX);
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_CONCAT, 1, 1, "cat_noaxis");
    infer_err(&f, in, "axis");
    em_graph_destroy(f.g);
}

static void test_squeeze_unsqueeze(void **state)
{
    (void)state;
    em_shape in[2], out[1];
    cint c;
    fx f = fx_new(EM_OP_UNSQUEEZE, 2, 1, "usq");
    in[0] = SHP(EMBER_DTYPE_F32, 3, 4);
    in[1] = CVEC(&c, 0, -1);
    infer_ok(&f, in, out);
    EXPECT(out[0], 1, 3, 4, 1);
    in[1] = CVEC(&c, 3, 1);
    infer_ok(&f, in, out);
    EXPECT(out[0], 3, 1, 4, 1);
    in[1] = novalue(in[1]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, UNK, UNK, UNK);
    in[1] = CVEC(&c, 1, -3);
    infer_err(&f, in, "dup");
    in[1] = CVEC(&c, 4);
    infer_err(&f, in, "range");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_SQUEEZE, 2, 1, "sq");
    in[0] = SHP(EMBER_DTYPE_F32, 1, 3, 1, 5);
    in[1] = CVEC(&c, -2);
    infer_ok(&f, in, out);
    EXPECT(out[0], 1, 3, 5);
    in[1] = novalue(in[1]);
    infer_ok(&f, in, out);
    assert_int_equal(out[0].rank, -1);
    in[1] = CVEC(&c, 1);
    infer_err(&f, in, "not 1");
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_SQUEEZE, 1, 1, "sq_all");
    infer_ok(&f, in, out);
    EXPECT(out[0], 3, 5);
    in[0].dims[3].v = -1; /* might be 1: rank unknown */
    infer_ok(&f, in, out);
    assert_int_equal(out[0].rank, -1);
    em_graph_destroy(f.g);
}

static void test_gathers(void **state)
{
    (void)state;
    em_shape in[3], out[1];
    fx f = fx_new(EM_OP_GATHER, 2, 1, "gather");
    fx_int(&f, "axis", -2);
    in[0] = SHP(EMBER_DTYPE_F32, 3, 4, 5);
    in[1] = SHP(EMBER_DTYPE_I32, 2, 6);
    infer_ok(&f, in, out);
    EXPECT(out[0], 3, 2, 6, 5);
    in[1] = scalar(EMBER_DTYPE_I64);
    infer_ok(&f, in, out);
    EXPECT(out[0], 3, 5);
    in[1] = SHP(EMBER_DTYPE_F32, 2);
    infer_err(&f, in, "float indices");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_GATHERELEMENTS, 2, 1, "ge");
    in[0] = SHP(EMBER_DTYPE_F32, 3, 4);
    in[1] = SHP(EMBER_DTYPE_I64, 2, 4);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 4);
    in[1] = SHP(EMBER_DTYPE_I64, 8);
    infer_err(&f, in, "rank");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_GATHERND, 2, 1, "gnd");
    fx_int(&f, "batch_dims", 1);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3, 4, 5);
    in[1] = SHP(EMBER_DTYPE_I64, 2, 7, 2);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 7, 5);
    in[1] = SHP(EMBER_DTYPE_I64, 2, 7, 4);
    infer_err(&f, in, "k too large");
    in[1] = SHP(EMBER_DTYPE_I64, 3, 7, 1);
    infer_err(&f, in, "batch");
    in[1] = SHP(EMBER_DTYPE_I64, 2, 7, 1);
    in[1].dims[2].v = -1;
    infer_ok(&f, in, out);
    assert_int_equal(out[0].rank, -1);
    em_graph_destroy(f.g);

    static const em_op same_ops[] = {EM_OP_SCATTERELEMENTS, EM_OP_SCATTERND, EM_OP_TRILU,
                                     EM_OP_REVERSESEQUENCE};
    for (size_t i = 0; i < 4; i++) {
        f = fx_new(same_ops[i], i < 2 ? 3 : 2, 1, "same");
        in[0] = SHP(EMBER_DTYPE_I32, 3, 4);
        in[1] = SHP(EMBER_DTYPE_I64, 3);
        in[2] = SHP(EMBER_DTYPE_I32, 3, 4);
        infer_ok(&f, in, out);
        EXPECT(out[0], 3, 4);
        assert_int_equal(out[0].dtype, EMBER_DTYPE_I32);
        em_graph_destroy(f.g);
    }
}

static void test_slice(void **state)
{
    (void)state;
    em_shape in[5], out[1];
    cint c[4];
    fx f = fx_new(EM_OP_SLICE, 5, 1, "slice");
    in[0] = SHP(EMBER_DTYPE_F32, 10, 7, 4);
    in[1] = CVEC(&c[0], -1, 1, 0);
    in[2] = CVEC(&c[1], INT64_MIN, INT64_MAX, 4);
    in[3] = CVEC(&c[2], 0, 1, -1);
    in[4] = CVEC(&c[3], -3, 2, INT64_MAX);
    infer_ok(&f, in, out);
    EXPECT(out[0], 4, 3, 1);
    in[4] = novalue(in[4]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, UNK, UNK);
    in[4] = CVEC(&c[3], -3, 0, 1);
    infer_err(&f, in, "step 0");
    in[4] = CVEC(&c[3], 1, 1);
    infer_err(&f, in, "length");
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_SLICE, 3, 1, "slice3");
    in[1] = CVEC(&c[0], 2);
    in[2] = CVEC(&c[1], -2);
    infer_ok(&f, in, out);
    EXPECT(out[0], 6, 7, 4);
    in[2] = CVEC(&c[1], 1);
    infer_ok(&f, in, out);
    EXPECT(out[0], 0, 7, 4);
    em_graph_destroy(f.g);
}

static void test_shape_size_expand_cos(void **state)
{
    (void)state;
    em_shape in[2], out[1];
    cint c;
    fx f = fx_new(EM_OP_SHAPE, 1, 1, "shape");
    in[0] = SHP(EMBER_DTYPE_U8, 2, 3, 4, 5);
    fx_int(&f, "start", -3);
    fx_int(&f, "end", 100);
    infer_ok(&f, in, out);
    EXPECT(out[0], 3);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_I64);
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_SIZE, 1, 1, "size");
    infer_ok(&f, in, out);
    assert_int_equal(out[0].rank, 0);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_I64);
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_EXPAND, 2, 1, "expand");
    in[0] = SHP(EMBER_DTYPE_F32, 3, 1);
    in[1] = CVEC(&c, 2, 1, 6);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 3, 6);
    in[1] = novalue(in[1]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, UNK, UNK);
    in[1] = CVEC(&c, 2, 6);
    infer_err(&f, in, "no broadcast");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_CONSTANTOFSHAPE, 1, 1, "cos");
    in[0] = CVEC(&c, 2, 0, 3);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 0, 3);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_F32);
    em_attr *a;
    static int32_t one = 1;
    assert_null(em_node_add_attr(f.g, f.node, "value", EM_ATTR_TENSOR, &a));
    a->t.dtype = EMBER_DTYPE_I32;
    a->t.rank = 1;
    a->t.dims[0] = 1;
    a->t.data = &one;
    infer_ok(&f, in, out);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_I32);
    in[0] = novalue(in[0]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, UNK, UNK);
    in[0] = CVEC(&c, 2, -1);
    infer_err(&f, in, "negative");
    a->t.dims[0] = 2;
    in[0] = CVEC(&c, 2);
    infer_err(&f, in, "two values");
    em_graph_destroy(f.g);
}

static void test_split(void **state)
{
    (void)state;
    em_shape in[2], out[4];
    cint c;
    fx f = fx_new(EM_OP_SPLIT, 2, 3, "split");
    fx_int(&f, "axis", -1);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 6);
    in[1] = CVEC(&c, 1, 0, 5);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 1);
    EXPECT(out[1], 2, 0);
    EXPECT(out[2], 2, 5);
    in[1] = novalue(in[1]);
    infer_ok(&f, in, out);
    EXPECT(out[2], 2, UNK);
    in[1] = CVEC(&c, 1, 1, 5);
    infer_err(&f, in, "sum");
    in[1] = CVEC(&c, 1, 5);
    infer_err(&f, in, "count");
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_SPLIT, 1, 3, "split_num");
    fx_int(&f, "num_outputs", 3);
    in[0] = SHP(EMBER_DTYPE_F32, 7, 2);
    infer_ok(&f, in, out);
    EXPECT(out[0], 3, 2);
    EXPECT(out[1], 3, 2);
    EXPECT(out[2], 1, 2);
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_SPLIT, 1, 3, "split_eq");
    infer_err(&f, in, "7 into 3");
    in[0] = SHP(EMBER_DTYPE_F32, 9, 2);
    infer_ok(&f, in, out);
    EXPECT(out[2], 3, 2);
    em_graph_destroy(f.g);
}

static void test_tile_pad(void **state)
{
    (void)state;
    em_shape in[4], out[1];
    cint c[2];
    fx f = fx_new(EM_OP_TILE, 2, 1, "tile");
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    in[1] = CVEC(&c[0], 3, 0);
    infer_ok(&f, in, out);
    EXPECT(out[0], 6, 0);
    in[1] = novalue(in[1]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, UNK);
    in[1] = CVEC(&c[0], 3);
    infer_err(&f, in, "length");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_PAD, 4, 1, "pad");
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3, 4);
    in[1] = CVEC(&c[0], 1, -1, 2, 0);
    in[2] = scalar(EMBER_DTYPE_F32);
    in[3] = CVEC(&c[1], 0, -1);
    infer_ok(&f, in, out);
    EXPECT(out[0], 5, 3, 3);
    in[3] = novalue(in[3]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK, UNK, UNK);
    in[3] = CVEC(&c[1], 0, 0);
    infer_err(&f, in, "dup");
    in[3] = CVEC(&c[1], 0, 2);
    in[1] = CVEC(&c[0], 0, -5, 0, 0);
    infer_err(&f, in, "crop");
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_PAD, 2, 1, "pad2");
    in[1] = CVEC(&c[0], 0, 1, 2, 0, 0, 3);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 4, 9);
    in[1] = CVEC(&c[0], 0, 1);
    infer_err(&f, in, "length");
    em_graph_destroy(f.g);
}

static void test_range(void **state)
{
    (void)state;
    em_shape in[3], out[1];
    em_tensor t[3];
    float fv[3] = {1.0f, 2.0f, 0.3f};
    int32_t iv[3] = {10, -5, -4};
    fx f = fx_new(EM_OP_RANGE, 3, 1, "range");
    for (int i = 0; i < 3; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].dtype = EMBER_DTYPE_F32;
        t[i].data = &fv[i];
        in[i] = scalar(EMBER_DTYPE_F32);
        in[i].value = &t[i];
    }
    infer_ok(&f, in, out);
    EXPECT(out[0], 4); /* ceil(1 / 0.3) */
    in[1] = novalue(in[1]);
    infer_ok(&f, in, out);
    EXPECT(out[0], UNK);
    for (int i = 0; i < 3; i++) {
        t[i].dtype = EMBER_DTYPE_I32;
        t[i].data = &iv[i];
        in[i] = scalar(EMBER_DTYPE_I32);
        in[i].value = &t[i];
    }
    infer_ok(&f, in, out);
    EXPECT(out[0], 4); /* 10, 6, 2, -2 */
    iv[2] = 4;
    infer_ok(&f, in, out);
    EXPECT(out[0], 0);
    iv[2] = 0;
    infer_err(&f, in, "delta 0");
    in[2].dtype = EMBER_DTYPE_F32;
    infer_err(&f, in, "dtypes");
    em_graph_destroy(f.g);
}

static void test_onehot_space_eye(void **state)
{
    (void)state;
    em_shape in[3], out[1];
    em_tensor dt;
    int64_t depth = 10;
    memset(&dt, 0, sizeof dt);
    dt.dtype = EMBER_DTYPE_I64;
    dt.data = &depth;
    fx f = fx_new(EM_OP_ONEHOT, 3, 1, "onehot");
    fx_int(&f, "axis", 1);
    in[0] = SHP(EMBER_DTYPE_I64, 2, 3);
    in[1] = scalar(EMBER_DTYPE_I64);
    in[1].value = &dt;
    in[2] = SHP(EMBER_DTYPE_U8, 2);
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, 10, 3);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_U8);
    in[1].value = NULL;
    infer_ok(&f, in, out);
    EXPECT(out[0], 2, UNK, 3);
    in[2] = SHP(EMBER_DTYPE_U8, 3);
    infer_err(&f, in, "values");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_DEPTHTOSPACE, 1, 1, "d2s");
    fx_int(&f, "blocksize", 2);
    in[0] = SHP(EMBER_DTYPE_F32, 1, 8, 3, 5);
    infer_ok(&f, in, out);
    EXPECT(out[0], 1, 2, 6, 10);
    in[0] = SHP(EMBER_DTYPE_F32, 1, 6, 3, 5);
    infer_err(&f, in, "C");
    em_graph_destroy(f.g);
    f = fx_new(EM_OP_SPACETODEPTH, 1, 1, "s2d");
    fx_int(&f, "blocksize", 3);
    in[0] = SHP(EMBER_DTYPE_F32, 1, 2, 6, 9);
    infer_ok(&f, in, out);
    EXPECT(out[0], 1, 18, 2, 3);
    in[0] = SHP(EMBER_DTYPE_F32, 1, 2, 6, 8);
    infer_err(&f, in, "W");
    em_graph_destroy(f.g);

    f = fx_new(EM_OP_EYELIKE, 1, 1, "eye");
    fx_int(&f, "dtype", EMBER_DTYPE_F64);
    in[0] = SHP(EMBER_DTYPE_I32, 3, 4);
    infer_ok(&f, in, out);
    EXPECT(out[0], 3, 4);
    assert_int_equal(out[0].dtype, EMBER_DTYPE_F64);
    in[0] = SHP(EMBER_DTYPE_I32, 3);
    infer_err(&f, in, "1d");
    em_graph_destroy(f.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose_concat),
        cmocka_unit_test(test_squeeze_unsqueeze),
        cmocka_unit_test(test_gathers),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_shape_size_expand_cos),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_tile_pad),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_onehot_space_eye),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
