/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the shape-function tests (tests/runtime/test_shape_*.c): a node built by
 * hand with room for attributes (em_node_attr_* read n.attrs), shapes with known, unknown and
 * symbolic dims, constants, and checks of em_shape_infer_node's results and errors.
 * Include after <cmocka.h>.
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_SHAPE_UTIL_H
#define EMBER_TESTS_RUNTIME_TEST_SHAPE_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/graph.h"
#include "shape/shape.h"
#include "core/status.h"

#define UNK (-1) /* a dim that is (expected) unknown; below -1: the symbol -d - 1 */
#define SN_MAX_IO 16
#define SN_MAX_ATTRS 12
#define SN_MAX_INTS 16

/* A hand-built node. Holds pointers into itself: do not copy it. */
typedef struct sn {
    em_node n;
    int in[SN_MAX_IO], out[SN_MAX_IO];
    em_attr attrs[SN_MAX_ATTRS];
    int64_t ints[SN_MAX_ATTRS][SN_MAX_INTS];
} sn;

static inline void sn_init(sn *s, em_op op, const char *name, int n_in, int n_out)
{
    assert_true(n_in <= SN_MAX_IO && n_out <= SN_MAX_IO);
    memset(s, 0, sizeof *s);
    s->n.op = op;
    s->n.name = (char *)name;
    s->n.n_in = n_in;
    s->n.n_out = n_out;
    s->n.in = s->in;
    s->n.out = s->out;
    s->n.attrs = s->attrs;
    for (int i = 0; i < SN_MAX_IO; i++) {
        s->in[i] = i;
        s->out[i] = SN_MAX_IO + i;
    }
}

static inline em_attr *sn_attr(sn *s, const char *name, em_attr_type type)
{
    assert_true(s->n.n_attrs < SN_MAX_ATTRS);
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
    assert_true(n <= SN_MAX_INTS);
    int slot = s->n.n_attrs;
    em_attr *a = sn_attr(s, name, EM_ATTR_INTS);
    memcpy(s->ints[slot], v, sizeof(int64_t) * (size_t)n);
    a->ints = s->ints[slot];
    a->n = n;
}

/* A shape: a dim of -1 is unknown, below -1 the symbol -d - 1, else known. */
static inline em_shape shp(ember_dtype dt, int rank, const int64_t *dims)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.rank = rank;
    for (int i = 0; i < rank && i < EM_MAX_RANK; i++) {
        s.dims[i].v = dims[i] < 0 ? -1 : dims[i];
        s.dims[i].sym = dims[i] < -1 ? (int32_t)(-dims[i] - 1) : 0;
    }
    return s;
}

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NDIMS(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define SHP(dt, ...) shp(dt, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

/* An absent optional input. */
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

/* A one-element int constant (rank 0) of dtype dt over *t and *v. */
static inline em_shape int_value(ember_dtype dt, em_tensor *t, int64_t *v)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = 0;
    if (dt == EMBER_DTYPE_I32) {
        int32_t x = (int32_t)*v;
        memcpy(v, &x, sizeof x);
    }
    t->data = v;
    em_shape s = shp(dt, 0, NULL);
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

/* An INVALID_MODEL error naming the node. */
static inline void infer_err(const sn *s, const em_shape *in)
{
    em_shape out[SN_MAX_IO];
    ember_status *st = em_shape_infer_node(&s->n, in, out);
    if (st == NULL) {
        fail_msg("node '%s': expected an error", s->n.name);
    }
    bool ok = ember_status_code(st) == EMBER_ERR_INVALID_MODEL &&
              strstr(ember_status_message(st), s->n.name) != NULL;
    if (!ok) {
        print_error("node '%s': got %s\n", s->n.name, ember_status_message(st));
    }
    ember_status_destroy(st);
    assert_true(ok);
}

/* dtype, rank and dims of s: a dim of -1 expects unknown, below -1 that symbol. */
static inline void expect(const em_shape *s, ember_dtype dt, int rank, const int64_t *dims)
{
    assert_int_equal(s->dtype, dt);
    assert_int_equal(s->rank, rank);
    for (int i = 0; i < rank; i++) {
        int64_t v = dims[i] < -1 ? -1 : dims[i];
        int32_t sym = dims[i] < -1 ? (int32_t)(-dims[i] - 1) : 0;
        if (s->dims[i].v != v || (dims[i] < -1 && s->dims[i].sym != sym)) {
            fail_msg("dim %d is %lld (sym %d), expected %lld", i, (long long)s->dims[i].v,
                     (int)s->dims[i].sym, (long long)dims[i]);
        }
    }
}

#define EXPECT(s, dt, ...) expect(&(s), dt, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

#endif /* EMBER_TESTS_RUNTIME_TEST_SHAPE_UTIL_H */
