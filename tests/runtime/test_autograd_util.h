/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finite-difference checks of runtime/autograd/autograd.c, shared by tests/runtime/test_autograd*.c.
 *
 * A case declares its graph inputs (declared dims, -1 = a symbolic dim, and the dims they run
 * with), builds a forward with the IR builders, and returns y. The harness runs the forward
 * once to learn y's shape, adds a random seed W of that shape, differentiates
 * L = sum(y * W) with respect to every input (em_autograd with dy = W), and compares each
 * gradient element with the central difference (L(x + eps) - L(x - eps)) / (2 eps), L summed
 * in double from y: |autograd - fd| <= atol + rtol |fd|. Everything runs through the session
 * API, so the planner, folding and kernels run the backward nodes as they would in use.
 * Include after <cmocka.h>.
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_AUTOGRAD_UTIL_H
#define EMBER_TESTS_RUNTIME_TEST_AUTOGRAD_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "api/api_internal.h"
#include "autograd/autograd.h"
#include "ir/graph.h"
#include "common/rng.h"
#include "common/test_alloc.h"
#include "common/test_ok.h"

enum { AG_ANY = 0, AG_POS, AG_UNIT }; /* input values: |v| in [0.25, 1.75] random sign,
                                       * v in [0.25, 1.75], or |v| in [0.1, 0.8] */
enum { AG_MAX_IN = 6, AG_MAX_N = 512 };

typedef struct ag_in {
    int rank;
    int64_t decl[EM_MAX_RANK]; /* declared dims; -1: symbolic */
    int64_t run[EM_MAX_RANK];
    int kind;
    bool fixed;                /* not differentiated (still a graph input) */
} ag_in;

typedef int (*ag_build_fn)(em_graph *g, const int *in);

typedef struct ag_case {
    const char *name;
    ember_dtype dt;
    int n_in;
    ag_in in[AG_MAX_IN];
    ag_build_fn build;
    double eps, atol, rtol; /* 0: defaults for the dtype */
} ag_case;

/* ---- graph building ---- */

static inline int ag_node(em_graph *g, em_op op, const int *in, int n_in)
{
    char name[32];
    int ni;
    snprintf(name, sizeof name, "v%d", g->n_values);
    const char *outs[] = {name};
    OK(em_graph_add_node(g, op, name, in, n_in, outs, 1, &ni));
    return g->nodes[ni].out[0];
}

static inline int ag_op1(em_graph *g, em_op op, int a) { return ag_node(g, op, &a, 1); }

static inline int ag_op2(em_graph *g, em_op op, int a, int b)
{
    const int in[2] = {a, b};
    return ag_node(g, op, in, 2);
}

static inline int ag_op3(em_graph *g, em_op op, int a, int b, int c)
{
    const int in[3] = {a, b, c};
    return ag_node(g, op, in, 3);
}

static inline int ag_prod(const em_graph *g, int v) { return g->values[v].producer; }

static inline void ag_int(em_graph *g, int v, const char *name, int64_t x)
{
    OK(em_node_set_int(g, ag_prod(g, v), name, x));
}

static inline void ag_float(em_graph *g, int v, const char *name, float x)
{
    OK(em_node_set_float(g, ag_prod(g, v), name, x));
}

static inline void ag_ints(em_graph *g, int v, const char *name, const int64_t *x, int n)
{
    OK(em_node_set_ints(g, ag_prod(g, v), name, x, n));
}

static inline void ag_string(em_graph *g, int v, const char *name, const char *s)
{
    OK(em_node_set_string(g, ag_prod(g, v), name, s));
}

/* A 1-D int64 constant (n = -1: rank 0). */
static inline int ag_i64(em_graph *g, const int64_t *v, int n)
{
    char name[32];
    int idx;
    int64_t len = n < 0 ? 1 : n;
    snprintf(name, sizeof name, "c%d", g->n_values);
    OK(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_I64, n < 0 ? 0 : 1, &len, v, &idx));
    return idx;
}

/* A float constant of g's first input's dtype with the given shape. */
static inline int ag_const(em_graph *g, ember_dtype dt, int rank, const int64_t *dims,
                           const double *v)
{
    char name[32];
    int idx;
    double buf64[64];
    float buf32[64];
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= dims[i];
    }
    assert_true(n <= 64);
    for (int64_t i = 0; i < n; i++) {
        buf64[i] = v[i];
        buf32[i] = (float)v[i];
    }
    snprintf(name, sizeof name, "c%d", g->n_values);
    OK(em_graph_add_initializer_copy(g, name, dt, rank, dims,
                                     dt == EMBER_DTYPE_F64 ? (void *)buf64 : (void *)buf32, &idx));
    return idx;
}

static inline ember_dtype ag_dt(const em_graph *g) { return g->values[g->inputs[0]].dtype; }

/* ---- running ---- */

typedef struct ag_run {
    ember_model *m;
    ember_session *s;
    int n_in;
    void *data[AG_MAX_IN];
    int64_t n[AG_MAX_IN];
    ember_tensor *in[AG_MAX_IN];
} ag_run;

static inline ember_model *ag_model(void)
{
    ember_model *m = em_calloc(test_allocator(), 1, sizeof *m);
    assert_non_null(m);
    m->alloc = *test_allocator();
    m->al = &m->alloc;
    m->format = "test";
    OK(em_graph_new(m->al, &m->g));
    return m;
}

static inline double ag_get(ember_dtype dt, const void *p, int64_t i)
{
    return dt == EMBER_DTYPE_F64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static inline void ag_set(ember_dtype dt, void *p, int64_t i, double v)
{
    if (dt == EMBER_DTYPE_F64) {
        ((double *)p)[i] = v;
    } else {
        ((float *)p)[i] = (float)v;
    }
}

/* Runs the session; outputs[0..n_out) are created (caller destroys them). */
static inline void ag_exec(ag_run *r, ember_tensor **outs, int n_out)
{
    for (int i = 0; i < n_out; i++) {
        outs[i] = NULL;
    }
    OK(ember_session_run(r->s, r->in, (size_t)r->n_in, outs, (size_t)n_out));
}

static inline void ag_free_outs(ember_tensor **outs, int n)
{
    for (int i = 0; i < n; i++) {
        ember_tensor_destroy(outs[i]);
        outs[i] = NULL;
    }
}

/* sum(y * w) in double. */
static inline double ag_loss(ember_tensor *y, const void *w)
{
    ember_dtype dt = ember_tensor_dtype(y);
    double s = 0;
    for (int64_t i = 0; i < ember_tensor_elem_count(y); i++) {
        s += ag_get(dt, ember_tensor_data(y), i) * ag_get(dt, w, i);
    }
    return s;
}

/* Builds the case's graph with its inputs into a fresh model; *y the output. */
static inline ember_model *ag_build(const ag_case *tc, int *y)
{
    ember_model *m = ag_model();
    int in[AG_MAX_IN];
    for (int i = 0; i < tc->n_in; i++) {
        char name[32], dn[EM_MAX_RANK][32];
        const char *dnames[EM_MAX_RANK];
        for (int d = 0; d < tc->in[i].rank; d++) {
            snprintf(dn[d], sizeof dn[d], "s%d_%d", i, d);
            dnames[d] = tc->in[i].decl[d] < 0 ? dn[d] : NULL;
        }
        snprintf(name, sizeof name, "x%d", i);
        OK(em_graph_add_input(m->g, name, tc->dt, tc->in[i].rank, tc->in[i].decl, dnames,
                              &in[i]));
    }
    *y = tc->build(m->g, in);
    OK(em_graph_mark_output(m->g, *y));
    OK(em_graph_verify(m->g));
    OK(em_graph_infer_shapes(m->g));
    return m;
}

static inline void ag_open(ag_run *r, ember_model *m)
{
    r->m = m;
    OK(ember_session_create(m, NULL, &r->s));
}

static inline void ag_inputs(ag_run *r, const ag_case *tc, uint64_t seed)
{
    test_rng rng = {seed};
    size_t es = tc->dt == EMBER_DTYPE_F64 ? 8 : 4;
    r->n_in = tc->n_in;
    for (int i = 0; i < tc->n_in; i++) {
        int64_t n = 1;
        for (int d = 0; d < tc->in[i].rank; d++) {
            n *= tc->in[i].run[d];
        }
        assert_true(n <= AG_MAX_N);
        r->n[i] = n;
        r->data[i] = test_calloc((size_t)(n ? n : 1), es);
        for (int64_t j = 0; j < n; j++) {
            double u = test_rng_float(&rng, 0.25f, 1.75f);
            bool neg = tc->in[i].kind != AG_POS && (test_rng_next(&rng) & 1);
            if (tc->in[i].kind == AG_UNIT) {
                u = test_rng_float(&rng, 0.1f, 0.8f);
            }
            ag_set(tc->dt, r->data[i], j, neg ? -u : u);
        }
        OK(ember_tensor_wrap(tc->dt, tc->in[i].run, tc->in[i].rank, r->data[i],
                             (size_t)n * es, &r->in[i]));
    }
}

static inline void ag_close(ag_run *r, bool free_inputs)
{
    ember_session_destroy(r->s);
    r->s = NULL;
    for (int i = 0; free_inputs && i < r->n_in; i++) {
        ember_tensor_destroy(r->in[i]);
        test_free(r->data[i]);
    }
}

/* Compares the gradient of input i (tensor d) with central differences. */
static inline void ag_check_input(const ag_case *tc, ag_run *r, int i, ember_tensor *d,
                                  const void *w, int n_out)
{
    double eps = tc->eps > 0 ? tc->eps : (tc->dt == EMBER_DTYPE_F64 ? 1e-6 : 1e-2);
    double atol = tc->atol > 0 ? tc->atol : (tc->dt == EMBER_DTYPE_F64 ? 1e-6 : 2e-3);
    double rtol = tc->rtol > 0 ? tc->rtol : (tc->dt == EMBER_DTYPE_F64 ? 1e-5 : 1e-2);
    ember_tensor *outs[AG_MAX_IN + 1];
    bool same = ember_tensor_rank(d) == tc->in[i].rank;
    for (int k = 0; same && k < tc->in[i].rank; k++) {
        same = ember_tensor_dims(d)[k] == tc->in[i].run[k];
    }
    if (!same) {
        fail_msg("%s: d/dx%d has another shape than x%d", tc->name, i, i);
    }
    for (int64_t j = 0; j < r->n[i]; j++) {
        double x0 = ag_get(tc->dt, r->data[i], j), lp, lm;
        ag_set(tc->dt, r->data[i], j, x0 + eps);
        ag_exec(r, outs, n_out);
        lp = ag_loss(outs[0], w);
        ag_free_outs(outs, n_out);
        ag_set(tc->dt, r->data[i], j, x0 - eps);
        ag_exec(r, outs, n_out);
        lm = ag_loss(outs[0], w);
        ag_free_outs(outs, n_out);
        ag_set(tc->dt, r->data[i], j, x0);
        double fd = (lp - lm) / (2 * eps), got = ag_get(tc->dt, ember_tensor_data(d), j);
        if (!(fabs(got - fd) <= atol + rtol * fabs(fd))) {
            fail_msg("%s: d/dx%d[%lld] = %.8g, finite difference %.8g", tc->name, i,
                     (long long)j, got, fd);
        }
    }
}

/* The whole check of one case. */
static inline void ag_check(const ag_case *tc, uint64_t seed)
{
    ag_run r = {0};
    int y, xs[AG_MAX_IN], dxs[AG_MAX_IN], n_x = 0, wv;
    ember_tensor *outs[AG_MAX_IN + 1];
    ember_model *m = ag_build(tc, &y);
    ag_open(&r, m);
    ag_inputs(&r, tc, seed);
    ag_exec(&r, outs, 1);
    ember_tensor *y0 = outs[0];
    /* The seed W: random, y's shape. */
    test_rng rng = {seed ^ 0x5eedu};
    int64_t ny = ember_tensor_elem_count(y0);
    void *w = test_calloc((size_t)(ny ? ny : 1), 8);
    for (int64_t j = 0; j < ny; j++) {
        ag_set(tc->dt, w, j, test_rng_float(&rng, -1.0f, 1.0f));
    }
    ember_session_destroy(r.s);
    OK(em_graph_add_initializer_copy(m->g, "seed", tc->dt, ember_tensor_rank(y0),
                                     ember_tensor_dims(y0), w, &wv));
    ember_tensor_destroy(y0);
    for (int i = 0; i < tc->n_in; i++) {
        if (!tc->in[i].fixed) {
            xs[n_x++] = m->g->inputs[i];
        }
    }
    em_autograd_spec spec = {y, wv, n_x, xs, NULL};
    OK(em_autograd(m->g, &spec, dxs));
    for (int i = 0; i < n_x; i++) {
        OK(em_graph_mark_output(m->g, dxs[i]));
    }
    OK(em_graph_verify(m->g));
    OK(em_graph_infer_shapes(m->g));
    OK(ember_session_create(m, NULL, &r.s));
    ag_exec(&r, outs, n_x + 1);
    for (int i = 0, k = 0; i < tc->n_in; i++) {
        if (!tc->in[i].fixed) {
            ag_check_input(tc, &r, i, outs[1 + k++], w, n_x + 1);
        }
    }
    ag_free_outs(outs, n_x + 1);
    test_free(w);
    ag_close(&r, true);
    ember_model_destroy(m);
}

/* Checks cases[0..n), case i with seed seed + i. */
static inline void ag_check_all(const ag_case *cases, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        ag_check(&cases[i], seed + i);
    }
}

#endif /* EMBER_TESTS_RUNTIME_TEST_AUTOGRAD_UTIL_H */
