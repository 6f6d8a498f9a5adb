/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_math.c: the math family's shape functions through em_shape_infer_node: Cast
 * ('to', missing, types ember lacks), CastLike, comparisons (bool, broadcasting), Where
 * (three-way broadcasting, bool condition, X/Y dtypes), variadic Max/Min/Sum/Mean, Pow (mixed
 * dtypes), Clip (absent and scalar bounds), PRelu (unidirectional slope), IsNaN/IsInf, and the
 * family's ops that use em_shape_ew. Symbolic dims survive where the op passes them through,
 * unknown ranks give unknown ranks (no math op reads input values, so value == NULL is the
 * only case), and em_graph_infer_shapes runs a Cast -> Less -> Where -> Sum chain with a
 * symbolic batch dim. Every error names the node.
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

/* A graph holding one node of `op` with n_in inputs (absent where `absent` has bit i). */
typedef struct fx {
    em_graph *g;
    int node;
} fx;

static fx fx_new(em_op op, int n_in, unsigned absent, const char *name)
{
    fx f;
    int in[16];
    assert_null(em_graph_new(test_allocator(), &f.g));
    for (int i = 0; i < n_in; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "in%d", i);
        assert_null(em_graph_add_input(f.g, nm, EMBER_DTYPE_F32, 0, NULL, NULL, &in[i]));
        if ((absent >> i) & 1u) {
            in[i] = -1;
        }
    }
    const char *const out[] = {"out"};
    assert_null(em_graph_add_node(f.g, op, name, in, n_in, out, 1, &f.node));
    return f;
}

static const em_node *fx_node(const fx *f)
{
    return &f->g->nodes[f->node];
}

static void fx_free(fx *f)
{
    em_graph_destroy(f->g);
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
    shp(EMBER_DTYPE_##dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),               \
        (int64_t[]){__VA_ARGS__})

static em_shape scalar(ember_dtype dt)
{
    return shp(dt, 0, NULL);
}

static em_shape absent(void)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}

static em_shape sym(em_shape s, int d, int32_t id)
{
    s.dims[d].v = -1;
    s.dims[d].sym = id;
    return s;
}

static em_shape infer_ok(const fx *f, const em_shape *in)
{
    em_shape out[1];
    ember_status *st = em_shape_infer_node(fx_node(f), in, out);
    if (st != NULL) {
        fail_msg("node '%s': unexpected error: %s", fx_node(f)->name, ember_status_message(st));
    }
    return out[0];
}

static void infer_err(const fx *f, const em_shape *in, ember_code code)
{
    em_shape out[1];
    ember_status *st = em_shape_infer_node(fx_node(f), in, out);
    if (st == NULL) {
        fail_msg("node '%s': expected an error", fx_node(f)->name);
    }
    bool ok =
        ember_status_code(st) == code && strstr(ember_status_message(st), fx_node(f)->name) != NULL;
    if (!ok) {
        print_error("got %s\n", ember_status_message(st));
    }
    ember_status_destroy(st);
    assert_true(ok);
}

static void expect(const em_shape *s, ember_dtype dt, int rank, const int64_t *dims)
{
    assert_int_equal(s->dtype, dt);
    assert_int_equal(s->rank, rank);
    for (int i = 0; i < rank; i++) {
        assert_int_equal(s->dims[i].v, dims[i]);
    }
}

#define EXPECT(s, dt, ...)                                                                         \
    expect(&(s), EMBER_DTYPE_##dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),      \
           (int64_t[]){__VA_ARGS__})

/* ---- Cast, CastLike, IsNaN ---------------------------------------------------------------- */

static void test_cast(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_CAST, 1, 0, "cast");
    em_shape in[1] = {sym(SHP(F32, 2, 3), 0, 7)};
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* 'to' missing */
    assert_null(em_node_set_int(f.g, f.node, "to", EMBER_DTYPE_F16));
    em_shape o = infer_ok(&f, in);
    assert_int_equal(o.dtype, EMBER_DTYPE_F16);
    assert_int_equal(o.rank, 2);
    assert_int_equal(o.dims[0].sym, 7);
    assert_int_equal(o.dims[1].v, 3);
    fx_free(&f);
    f = fx_new(EM_OP_CAST, 1, 0, "cast_string");
    assert_null(em_node_set_int(f.g, f.node, "to", EMBER_DTYPE_STRING));
    o = infer_ok(&f, in);
    assert_int_equal(o.dtype, EMBER_DTYPE_STRING);
    fx_free(&f);
    f = fx_new(EM_OP_CAST, 1, 0, "cast_float_to");
    assert_null(em_node_set_float(f.g, f.node, "to", 1.0f));
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL);
    fx_free(&f);

    f = fx_new(EM_OP_CASTLIKE, 2, 0, "castlike");
    em_shape in2[2] = {SHP(I64, 4, 5), SHP(BF16, 9)};
    o = infer_ok(&f, in2);
    EXPECT(o, BF16, 4, 5);
    fx_free(&f);

    static const em_op bool_ops[] = {EM_OP_ISNAN, EM_OP_ISINF};
    for (int i = 0; i < 2; i++) {
        f = fx_new(bool_ops[i], 1, 0, "isx");
        em_shape x[1] = {SHP(F16, 2, 0, 3)};
        o = infer_ok(&f, x);
        EXPECT(o, BOOL, 2, 0, 3);
        x[0].rank = -1;
        o = infer_ok(&f, x);
        assert_int_equal(o.rank, -1);
        fx_free(&f);
    }
}

/* BitCast-26: input 0's shape, dtype 'to' of the same bit width (int4: 4 bits). */
static void test_bitcast(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_BITCAST, 1, 0, "bitcast");
    em_shape in[1] = {SHP(F32, 2, 3)};
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* 'to' missing */
    assert_null(em_node_set_int(f.g, f.node, "to", EMBER_DTYPE_I32));
    em_shape o = infer_ok(&f, in);
    EXPECT(o, I32, 2, 3);
    fx_free(&f);
    f = fx_new(EM_OP_BITCAST, 1, 0, "bitcast_width");
    assert_null(em_node_set_int(f.g, f.node, "to", EMBER_DTYPE_I16));
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL);
    in[0] = SHP(I4, 5);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL);
    fx_free(&f);
    f = fx_new(EM_OP_BITCAST, 1, 0, "bitcast_i4");
    assert_null(em_node_set_int(f.g, f.node, "to", EMBER_DTYPE_U4));
    o = infer_ok(&f, in);
    EXPECT(o, U4, 5);
    fx_free(&f);
    f = fx_new(EM_OP_BITCAST, 1, 0, "bitcast_string");
    assert_null(em_node_set_int(f.g, f.node, "to", 8));
    infer_err(&f, in, EMBER_ERR_UNSUPPORTED);
    fx_free(&f);
}

/* ---- broadcasting ops --------------------------------------------------------------------- */

static void test_compare(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_EQUAL, EM_OP_LESS, EM_OP_LESSOREQUAL, EM_OP_GREATER,
                                EM_OP_GREATEROREQUAL};
    for (int i = 0; i < 5; i++) {
        fx f = fx_new(ops[i], 2, 0, "cmp");
        em_shape in[2] = {SHP(I32, 3, 1), SHP(I32, 4)};
        em_shape o = infer_ok(&f, in);
        EXPECT(o, BOOL, 3, 4);
        in[0] = sym(SHP(I32, 1, 4), 0, 3);
        o = infer_ok(&f, in);
        assert_int_equal(o.dims[0].sym, 3);
        in[1] = SHP(I64, 4);
        infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* dtypes differ */
        in[0] = SHP(I64, 3, 5);
        infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* 5 vs 4 */
        in[0].rank = -1;
        o = infer_ok(&f, in);
        assert_true(o.rank == -1 && o.dtype == EMBER_DTYPE_BOOL);
        fx_free(&f);
    }
}

static void test_where(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_WHERE, 3, 0, "where");
    em_shape in[3] = {SHP(BOOL, 2, 1, 7), SHP(U8, 5, 1), scalar(EMBER_DTYPE_U8)};
    em_shape o = infer_ok(&f, in);
    EXPECT(o, U8, 2, 5, 7);
    in[0] = SHP(F32, 2, 1, 7);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* condition not bool */
    in[0] = SHP(BOOL, 2, 1, 7);
    in[2] = scalar(EMBER_DTYPE_I8);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* X u8, Y i8 */
    in[2] = SHP(U8, 6);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* 6 vs 7 */
    fx_free(&f);
}

static void test_variadic(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_MAX, EM_OP_MIN, EM_OP_SUM, EM_OP_MEAN};
    for (int i = 0; i < 4; i++) {
        fx f = fx_new(ops[i], 3, 0, "variadic");
        em_shape in[3] = {sym(SHP(F32, 1, 3, 1), 0, 2), SHP(F32, 4, 1, 1, 5), SHP(F32, 1)};
        em_shape o = infer_ok(&f, in);
        assert_int_equal(o.dtype, EMBER_DTYPE_F32);
        assert_int_equal(o.rank, 4);
        assert_int_equal(o.dims[0].v, 4);
        assert_int_equal(o.dims[1].sym, 2);
        assert_int_equal(o.dims[2].v, 3);
        assert_int_equal(o.dims[3].v, 5);
        in[2] = SHP(F64, 1);
        infer_err(&f, in, EMBER_ERR_INVALID_MODEL);
        fx_free(&f);
        f = fx_new(ops[i], 1, 0, "variadic_one");
        o = infer_ok(&f, in);
        assert_int_equal(o.rank, 3);
        fx_free(&f);
    }
}

static void test_pow_and_ew(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_POW, 2, 0, "pow");
    em_shape in[2] = {SHP(I32, 2, 3), SHP(F32, 3)};
    em_shape o = infer_ok(&f, in);
    EXPECT(o, I32, 2, 3);
    in[1] = SHP(F32, 4);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL);
    fx_free(&f);
    static const em_op same[] = {EM_OP_MOD, EM_OP_BITSHIFT, EM_OP_AND, EM_OP_OR, EM_OP_XOR};
    for (int i = 0; i < 5; i++) {
        f = fx_new(same[i], 2, 0, "binary_ew");
        em_shape b[2] = {SHP(U16, 4, 1), SHP(U16, 6)};
        o = infer_ok(&f, b);
        EXPECT(o, U16, 4, 6);
        b[1] = SHP(U8, 6);
        infer_err(&f, b, EMBER_ERR_INVALID_MODEL);
        fx_free(&f);
    }
    static const em_op unary[] = {EM_OP_NEG,   EM_OP_NOT,       EM_OP_EXP,
                                  EM_OP_ROUND, EM_OP_LEAKYRELU, EM_OP_ATANH};
    for (int i = 0; i < 6; i++) {
        f = fx_new(unary[i], 1, 0, "unary_ew");
        em_shape x[1] = {sym(SHP(F16, 3, 2), 1, 4)};
        o = infer_ok(&f, x);
        assert_true(o.dtype == EMBER_DTYPE_F16 && o.rank == 2 && o.dims[1].sym == 4);
        fx_free(&f);
    }
}

static void test_clip_prelu(void **state)
{
    (void)state;
    fx f = fx_new(EM_OP_CLIP, 3, 0x2, "clip"); /* min absent */
    em_shape in[3] = {SHP(I8, 2, 3), absent(), scalar(EMBER_DTYPE_I8)};
    em_shape o = infer_ok(&f, in);
    EXPECT(o, I8, 2, 3);
    in[2] = SHP(I8, 2);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* max holds two elements */
    in[2] = SHP(I16, 1);
    infer_err(&f, in, EMBER_ERR_INVALID_MODEL); /* max of another dtype */
    fx_free(&f);
    f = fx_new(EM_OP_CLIP, 1, 0, "clip_x_only");
    o = infer_ok(&f, in);
    EXPECT(o, I8, 2, 3);
    fx_free(&f);

    f = fx_new(EM_OP_PRELU, 2, 0, "prelu");
    em_shape p[2] = {sym(SHP(F32, 1, 3, 4, 5), 0, 1), SHP(F32, 3, 1, 1)};
    o = infer_ok(&f, p);
    assert_true(o.rank == 4 && o.dims[0].sym == 1 && o.dims[1].v == 3 && o.dims[3].v == 5);
    p[1] = SHP(F32, 4);
    infer_err(&f, p, EMBER_ERR_INVALID_MODEL); /* 4 against W = 5 */
    p[1] = SHP(F32, 1, 1, 3, 4, 5);
    infer_err(&f, p, EMBER_ERR_INVALID_MODEL); /* higher rank than X */
    p[1] = SHP(F16, 1);
    infer_err(&f, p, EMBER_ERR_INVALID_MODEL);
    fx_free(&f);
}

/* ---- a graph ------------------------------------------------------------------------------ */

/* x: f32[N, 4] -> Cast(to i32) -> Less(., c) -> Where(., x, y) -> Sum(., x) : f32[N, 4] */
static void test_graph_chain(void **state)
{
    (void)state;
    em_graph *g = NULL;
    int x, y, c, n0, n1, n2, n3;
    assert_null(em_graph_new(test_allocator(), &g));
    const int64_t xd[2] = {-1, 4};
    const char *const names[2] = {"N", NULL};
    assert_null(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, names, &x));
    assert_null(em_graph_add_input(g, "y", EMBER_DTYPE_F32, 0, NULL, NULL, &y));
    const int32_t cv = 2;
    const int64_t one = 1;
    assert_null(em_graph_add_initializer_copy(g, "c", EMBER_DTYPE_I32, 1, &one, &cv, &c));
    const char *o0[] = {"xi"}, *o1[] = {"lt"}, *o2[] = {"w"}, *o3[] = {"s"};
    int i0[] = {x};
    assert_null(em_graph_add_node(g, EM_OP_CAST, "cast", i0, 1, o0, 1, &n0));
    assert_null(em_node_set_int(g, n0, "to", EMBER_DTYPE_I32));
    int i1[] = {g->nodes[n0].out[0], c};
    assert_null(em_graph_add_node(g, EM_OP_LESS, "less", i1, 2, o1, 1, &n1));
    int i2[] = {g->nodes[n1].out[0], x, y};
    assert_null(em_graph_add_node(g, EM_OP_WHERE, "where", i2, 3, o2, 1, &n2));
    int i3[] = {g->nodes[n2].out[0], x};
    assert_null(em_graph_add_node(g, EM_OP_SUM, "sum", i3, 2, o3, 1, &n3));
    assert_null(em_graph_infer_shapes(g));
    const em_value *v0 = &g->values[g->nodes[n0].out[0]];
    const em_value *v1 = &g->values[g->nodes[n1].out[0]];
    const em_value *v3 = &g->values[g->nodes[n3].out[0]];
    assert_true(v0->dtype == EMBER_DTYPE_I32 && v1->dtype == EMBER_DTYPE_BOOL);
    assert_true(v3->dtype == EMBER_DTYPE_F32 && v3->rank == 2);
    assert_true(v3->dims[0].sym > 0 && v3->dims[1].v == 4);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast),        cmocka_unit_test(test_bitcast),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_where),       cmocka_unit_test(test_variadic),
        cmocka_unit_test(test_pow_and_ew),  cmocka_unit_test(test_clip_prelu),
        cmocka_unit_test(test_graph_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
