/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape_dyn.c: NonZero, Unique and Compress through em_shape_infer_node. Without the
 * deciding input's value the data-decided dims are unknown (never an error) and the others
 * exact (NonZero's rank row, Unique's inverse_indices length, Compress's other axes); with it
 * they are exact: NonZero over float zeros of both signs and NaN, 0-D inputs; Unique with and
 * without axis (negative too), NaN and -0 collapsed, empty inputs; Compress with and without
 * axis, short conditions. Errors name the node. The helpers (a hand-built node with up to 16
 * inputs, shapes, constant values) are shared with test_shape_random.c and test_shape_train.c,
 * which include this file with EM_SHAPE_DYN_HELPERS_ONLY.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "graph.h"
#include "shape.h"
#include "status.h"

#define UNK (-1) /* an expected unknown dim */

/* A hand-built node (em_node_attr_* read n.attrs). */
typedef struct sn {
    em_node n;
    int in[16], out[16];
    em_attr attrs[8];
    int64_t ints[8][8];
} sn;

static inline void sn_init(sn *s, em_op op, const char *name, int n_in, int n_out)
{
    memset(s, 0, sizeof *s);
    s->n.op = op;
    s->n.name = (char *)name;
    s->n.n_in = n_in;
    s->n.n_out = n_out;
    s->n.in = s->in;
    s->n.out = s->out;
    s->n.attrs = s->attrs;
    for (int i = 0; i < 16; i++) {
        s->in[i] = i;
        s->out[i] = 16 + i;
    }
}

static inline em_attr *sn_attr(sn *s, const char *name, em_attr_type type)
{
    assert_true(s->n.n_attrs < 8);
    em_attr *a = &s->attrs[s->n.n_attrs++];
    a->name = (char *)name;
    a->type = type;
    return a;
}

static inline void sn_int(sn *s, const char *name, int64_t v)
{
    sn_attr(s, name, EM_ATTR_INT)->i = v;
}

static inline void sn_float(sn *s, const char *name, float v)
{
    sn_attr(s, name, EM_ATTR_FLOAT)->f = v;
}

static inline void sn_str(sn *s, const char *name, const char *v)
{
    sn_attr(s, name, EM_ATTR_STRING)->s = (char *)v;
}

static inline void sn_ints(sn *s, const char *name, const int64_t *v, int n)
{
    int slot = s->n.n_attrs;
    em_attr *a = sn_attr(s, name, EM_ATTR_INTS);
    memcpy(s->ints[slot], v, sizeof(int64_t) * (size_t)n);
    a->ints = s->ints[slot];
    a->n = n;
}

static inline em_shape shp(ember_dtype dt, int rank, const int64_t *dims)
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

static inline em_shape absent(void)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}

/* The shape `s` with a value over `data` (kept in *t). */
static inline em_shape with_value(em_shape s, em_tensor *t, const void *data)
{
    memset(t, 0, sizeof *t);
    t->dtype = s.dtype;
    t->rank = s.rank;
    for (int d = 0; d < s.rank; d++) {
        t->dims[d] = s.dims[d].v;
    }
    t->data = (void *)data;
    s.value = t;
    return s;
}

static inline void infer_ok(const sn *s, const em_shape *in, em_shape *out)
{
    ember_status *st = em_shape_infer_node(&s->n, in, out);
    if (st != NULL) {
        fail_msg("node '%s': unexpected error: %s", s->n.name, ember_status_message(st));
    }
}

static inline void infer_err(const sn *s, const em_shape *in)
{
    em_shape out[16];
    ember_status *st = em_shape_infer_node(&s->n, in, out);
    if (st == NULL) {
        fail_msg("node '%s': expected an error", s->n.name);
    }
    bool ok = ember_status_code(st) == EMBER_ERR_INVALID_MODEL &&
              strstr(ember_status_message(st), s->n.name) != NULL;
    if (!ok) {
        print_error("%s\n", ember_status_message(st));
    }
    ember_status_destroy(st);
    assert_true(ok);
}

static inline void expect_dims(const em_shape *s, ember_dtype dt, int rank, const int64_t *dims)
{
    if (s->dtype != dt) {
        fail_msg("dtype %d, expected %d", (int)s->dtype, (int)dt);
    }
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

#define EXPECT(s, dt, ...)                                                                         \
    expect_dims(&(s), dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),               \
                (int64_t[]){__VA_ARGS__})

#ifndef EM_SHAPE_DYN_HELPERS_ONLY

/* ---- NonZero ------------------------------------------------------------------------------ */

static void test_nonzero(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    em_tensor t;
    sn_init(&s, EM_OP_NONZERO, "nz", 1, 1);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 2, UNK);
    const float xf[6] = {0.0f, -0.0f, NAN, 1.0f, 0.0f, -2.0f};
    in[0] = with_value(SHP(EMBER_DTYPE_F32, 2, 3), &t, xf);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 2, 3);
    const uint16_t xh[4] = {0x8000, 0x0001, 0x0000, 0x7e00}; /* -0, tiny, 0, NaN (f16) */
    in[0] = with_value(SHP(EMBER_DTYPE_F16, 4), &t, xh);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 1, 2);
    const int64_t x0 = 5;
    in[0] = with_value(shp(EMBER_DTYPE_I64, 0, NULL), &t, &x0);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 1, 1);
    const uint8_t xb[3] = {0, 0, 0};
    in[0] = with_value(SHP(EMBER_DTYPE_BOOL, 1, 3), &t, xb);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 2, 0);
    in[0] = absent();
    in[0].dtype = EMBER_DTYPE_F32;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK, UNK);
}

/* ---- Unique ------------------------------------------------------------------------------- */

static void test_unique(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[4];
    em_tensor t;
    sn_init(&s, EM_OP_UNIQUE, "uq", 1, 4);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, UNK);
    EXPECT(out[1], EMBER_DTYPE_I64, UNK);
    EXPECT(out[2], EMBER_DTYPE_I64, 6);
    EXPECT(out[3], EMBER_DTYPE_I64, UNK);
    const float x[6] = {2, 1, 1, 3, 4, 3};
    in[0] = with_value(SHP(EMBER_DTYPE_F32, 6), &t, x);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 4);
    EXPECT(out[1], EMBER_DTYPE_I64, 4);
    EXPECT(out[2], EMBER_DTYPE_I64, 6);
    EXPECT(out[3], EMBER_DTYPE_I64, 4);
    const double xn[6] = {NAN, 0.0, -0.0, NAN, 1.0, 1.0}; /* NaN, 0, 1 */
    in[0] = with_value(SHP(EMBER_DTYPE_F64, 3, 2), &t, xn);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F64, 3);
    in[0] = with_value(SHP(EMBER_DTYPE_F64, 0, 2), &t, xn);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F64, 0);
    EXPECT(out[2], EMBER_DTYPE_I64, 0);

    /* test_unique_sorted_with_axis_3d: axis 1 of [2, 4, 2] has 3 distinct slices. */
    const float x3[16] = {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1};
    sn_init(&s, EM_OP_UNIQUE, "uq_axis", 1, 3);
    sn_int(&s, "axis", 1);
    in[0] = with_value(SHP(EMBER_DTYPE_F32, 2, 4, 2), &t, x3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 3, 2);
    EXPECT(out[1], EMBER_DTYPE_I64, 3);
    EXPECT(out[2], EMBER_DTYPE_I64, 4);
    in[0].value = NULL;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, UNK, 2);
    EXPECT(out[2], EMBER_DTYPE_I64, 4);
    /* axis -1 of [[1, 0, 0], [1, 0, 0], [2, 3, 3]]: columns 1 and 2 are equal. */
    const int32_t xi[9] = {1, 0, 0, 1, 0, 0, 2, 3, 3};
    sn_init(&s, EM_OP_UNIQUE, "uq_neg", 1, 1);
    sn_int(&s, "axis", -1);
    in[0] = with_value(SHP(EMBER_DTYPE_I32, 3, 3), &t, xi);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 3, 2);

    sn_init(&s, EM_OP_UNIQUE, "uq_bad_axis", 1, 1);
    sn_int(&s, "axis", 2);
    in[0] = SHP(EMBER_DTYPE_F32, 2, 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_UNIQUE, "uq_axis_str", 1, 1);
    sn_str(&s, "axis", "0");
    infer_err(&s, in);
}

/* ---- Compress ----------------------------------------------------------------------------- */

static void test_compress(void **state)
{
    (void)state;
    sn s;
    em_shape in[2], out[1];
    em_tensor t;
    const uint8_t c[5] = {0, 1, 1, 0, 1};
    sn_init(&s, EM_OP_COMPRESS, "cp", 2, 1);
    sn_int(&s, "axis", 0);
    in[0] = SHP(EMBER_DTYPE_F32, 3, 2);
    in[1] = SHP(EMBER_DTYPE_BOOL, 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, UNK, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 3), &t, c);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 2), &t, c); /* shorter: one true */
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 1, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 4), &t, c); /* longer, but false past the end */
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, 2, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 5), &t, c); /* a true past the end */
    infer_err(&s, in);

    sn_init(&s, EM_OP_COMPRESS, "cp_flat", 2, 1);
    in[0] = SHP(EMBER_DTYPE_I64, 3, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 5), &t, c);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, 3);
    in[1].value = NULL;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK);
    in[0] = absent(); /* rank unknown: still 1-D, length unknown */
    in[0].dtype = EMBER_DTYPE_I64;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, UNK);

    sn_init(&s, EM_OP_COMPRESS, "cp_neg", 2, 1);
    sn_int(&s, "axis", -1);
    in[0] = SHP(EMBER_DTYPE_U8, 3, 2);
    in[1] = with_value(SHP(EMBER_DTYPE_BOOL, 2), &t, c);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_U8, 3, 1);
    sn_init(&s, EM_OP_COMPRESS, "cp_axis_range", 2, 1);
    sn_int(&s, "axis", -3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_COMPRESS, "cp_cond_f32", 2, 1);
    in[1] = SHP(EMBER_DTYPE_F32, 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_COMPRESS, "cp_cond_2d", 2, 1);
    in[1] = SHP(EMBER_DTYPE_BOOL, 2, 1);
    infer_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonzero),
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_compress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* EM_SHAPE_DYN_HELPERS_ONLY */
