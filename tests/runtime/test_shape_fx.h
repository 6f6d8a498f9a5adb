/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fixture of test_shape.c, test_shape_nn_base.c and test_shape_tensor_reshape.c: a graph
 * holding one node of an op (attributes set on it), shapes with known and symbolic dims, and
 * checks of em_shape_infer_node's results and errors (each naming the node). Include after
 * <cmocka.h>.
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_SHAPE_FX_H
#define EMBER_TESTS_RUNTIME_TEST_SHAPE_FX_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/test_alloc.h"
#include "shape/shape.h"
#include "core/status.h"

/* A graph holding one node of `op` with n_in placeholder inputs; attributes are set on it. */
typedef struct fx {
    em_graph *g;
    int node;
} fx;

static inline fx fx_new(em_op op, int n_in, const char *name)
{
    fx f;
    int in[16];
    assert_null(em_graph_new(test_allocator(), &f.g));
    for (int i = 0; i < n_in; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "in%d", i);
        assert_null(em_graph_add_input(f.g, nm, EMBER_DTYPE_F32, 0, NULL, NULL, &in[i]));
    }
    const char *const out[] = {"out"};
    assert_null(em_graph_add_node(f.g, op, name, in, n_in, out, 1, &f.node));
    return f;
}

static inline const em_node *fx_node(const fx *f)
{
    return &f->g->nodes[f->node];
}

static inline void fx_ints(fx *f, const char *name, const int64_t *v, int64_t n)
{
    assert_null(em_node_set_ints(f->g, f->node, name, v, n));
}

static inline void fx_int(fx *f, const char *name, int64_t v)
{
    assert_null(em_node_set_int(f->g, f->node, name, v));
}

static inline void fx_str(fx *f, const char *name, const char *v)
{
    assert_null(em_node_set_string(f->g, f->node, name, v));
}

static inline void fx_free(fx *f)
{
    em_graph_destroy(f->g);
}

/* A shape with known dims. */
static inline em_shape shp(ember_dtype dt, int rank, const int64_t *dims)
{
    em_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.rank = rank;
    for (int i = 0; i < rank; i++) {
        s.dims[i].v = dims[i];
        s.dims[i].sym = 0;
    }
    return s;
}

#define SHP(...)                                                                                   \
    shp(EMBER_DTYPE_F32, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),                \
        (int64_t[]){__VA_ARGS__})

static inline em_shape sym_dim(em_shape s, int d, int32_t sym)
{
    s.dims[d].v = -1;
    s.dims[d].sym = sym;
    return s;
}

/* Infers and checks success; returns the output shape. */
static inline em_shape infer_ok(const fx *f, const em_shape *in)
{
    em_shape out[2];
    ember_status *st = em_shape_infer_node(fx_node(f), in, out);
    if (st != NULL) {
        fail_msg("unexpected error: %s", ember_status_message(st));
    }
    return out[0];
}

static inline void expect_dims(const em_shape *s, int rank, const int64_t *dims)
{
    if (s->rank != rank) {
        fail_msg("rank %d, expected %d", s->rank, rank);
    }
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            continue; /* checked by the caller (symbolic or unknown) */
        }
        if (s->dims[i].v != dims[i]) {
            fail_msg("dim %d is %lld, expected %lld", i, (long long)s->dims[i].v,
                     (long long)dims[i]);
        }
    }
}

#define EXPECT_DIMS(s, ...)                                                                        \
    expect_dims(&(s), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),                   \
                (int64_t[]){__VA_ARGS__})

/* Infers and expects INVALID_MODEL naming the node and containing `what` (may be NULL). */
static inline void infer_err(const fx *f, const em_shape *in, const char *what)
{
    em_shape out[2];
    ember_status *st = em_shape_infer_node(fx_node(f), in, out);
    if (st == NULL) {
        fail_msg("node '%s': expected an error (%s)", fx_node(f)->name, what ? what : "");
    }
    char m[1024];
    ember_code code = ember_status_code(st);
    snprintf(m, sizeof m, "%s", ember_status_message(st));
    ember_status_destroy(st);
    assert_int_equal(code, EMBER_ERR_INVALID_MODEL);
    if (strstr(m, fx_node(f)->name) == NULL || (what != NULL && strstr(m, what) == NULL)) {
        fail_msg("message \"%s\" should name '%s' and say \"%s\"", m, fx_node(f)->name,
                 what ? what : "");
    }
}

#endif /* EMBER_TESTS_RUNTIME_TEST_SHAPE_FX_H */
