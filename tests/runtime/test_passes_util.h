/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the graph-pass tests (tests/runtime/test_passes*.c): op counts of a rewritten
 * graph, its text on stdout when PASSES_DEBUG is set, one session run of a model with a
 * single f32 input, and the pattern-fusion harness (a graph built twice, the passes run on one,
 * op counts and outputs compared). Include after test_autograd_util.h.
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_PASSES_UTIL_H
#define EMBER_TESTS_RUNTIME_TEST_PASSES_UTIL_H

#include "passes/passes.h"
#include "plan/fold.h"

#include <math.h>
#include <stdlib.h>

static inline int tp_count_op(const em_graph *g, em_op o)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        n += g->nodes[i].op == o;
    }
    return n;
}

static inline void tp_debug_print(const em_graph *g)
{
    if (getenv("PASSES_DEBUG") != NULL) {
        char *t = NULL;
        OK(em_graph_to_text(g, &t));
        print_message("%s\n", t);
        ember_string_free(t);
    }
}

/* Runs m on the f32 input x of dims xd[0..rank) into outs[0..n_out) (new tensors). */
static inline void tp_run(ember_model *m, int rank, const int64_t *xd, const float *x,
                          ember_tensor **outs, int n_out)
{
    ember_session *s = NULL;
    ember_tensor *in = NULL;
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        n *= xd[d];
    }
    OK(ember_session_create(m, NULL, &s));
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, xd, rank, (void *)x, sizeof(float) * (size_t)n, &in));
    for (int i = 0; i < n_out; i++) {
        outs[i] = NULL;
    }
    OK(ember_session_run(s, &in, 1, outs, (size_t)n_out));
    ember_tensor_destroy(in);
    ember_session_destroy(s);
}

/* Adds f32 initializer `name` of dims[0..rank), values uniform in [lo, hi) from `seed`. */
static inline int tp_init_f32(em_graph *g, const char *name, int rank, const int64_t *dims,
                              uint64_t seed, float lo, float hi)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= dims[i];
    }
    float *v = test_malloc(sizeof(float) * (size_t)n);
    uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = lo + (hi - lo) * (float)((s >> 40) & 0xffffff) / (float)0xffffff;
    }
    int idx;
    OK(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, rank, dims, v, &idx));
    test_free(v);
    return idx;
}

/* Initializer `name` with a copy of `data`; returns the value. */
static inline int tp_init(em_graph *g, const char *name, ember_dtype dt, int rank,
                          const int64_t *dims, const void *data)
{
    int v;
    OK(em_graph_add_initializer_copy(g, name, dt, rank, dims, data, &v));
    return v;
}

/* ---- pattern-fusion cases (test_passes_norm.c, test_passes_act.c, test_passes_cancel.c) ---- */

/* Node of op reading in[0..n_in) with one output named `name`; returns that value. */
static inline int tp_op(em_graph *g, em_op op, const int *in, int n_in, const char *name)
{
    int ni;
    const char *outs[1] = {name};
    OK(em_graph_add_node(g, op, name, in, n_in, outs, 1, &ni));
    return g->nodes[ni].out[0];
}

static inline int tp_op2(em_graph *g, em_op op, int a, int b, const char *name)
{
    const int in[2] = {a, b};
    return tp_op(g, op, in, b >= 0 ? 2 : 1, name);
}

static inline int tp_op3(em_graph *g, em_op op, int a, int b, int c, const char *name)
{
    const int in[3] = {a, b, c};
    return tp_op(g, op, in, 3, name);
}

/* An f32 scalar (rank 0) initializer. */
static inline int tp_scalar(em_graph *g, const char *name, float v)
{
    int idx;
    OK(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_F32, 0, NULL, &v, &idx));
    return idx;
}

/* An int64 [n] initializer. */
static inline int tp_ints(em_graph *g, const char *name, const int64_t *v, int64_t n)
{
    int idx;
    OK(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_I64, 1, &n, v, &idx));
    return idx;
}

/* Builds a case's graph on input value x (its outputs marked by the builder). */
typedef void (*tp_build_fn)(em_graph *g, int x, int variant);

typedef struct tp_count {
    em_op op;
    int n;
} tp_count;

/* A model whose graph is build(x [xd], variant), shapes inferred; dim d of x is the symbol
 * names[d] where names (may be NULL) gives one. */
static inline ember_model *tp_build(tp_build_fn build, int variant, int rank, const int64_t *xd,
                                    const char *const *names)
{
    ember_model *m = ag_model();
    int64_t d[EM_MAX_RANK];
    int x;
    for (int i = 0; i < rank; i++) {
        d[i] = names != NULL && names[i] != NULL ? -1 : xd[i];
    }
    OK(em_graph_add_input(m->g, "x", EMBER_DTYPE_F32, rank, d, names, &x));
    build(m->g, x, variant);
    OK(em_graph_verify(m->g));
    OK(em_graph_infer_shapes(m->g));
    return m;
}

/* Runs the passes of `o` on build's graph, checks the op counts want[0..n_want), and that the
 * graph computes what the unoptimised one does on an input in [-4, 4) of dims xd, every output
 * within atol + rtol |ref|, names and ranks kept; x's dims named in names[] (may be NULL) are
 * symbols while the passes run; `extra` (may be NULL) the passes' extras. */
static inline void tp_check_passes_extra(tp_build_fn build, int variant, int rank,
                                         const int64_t *xd, const char *const *names,
                                         const tp_count *want, int n_want, double atol,
                                         double rtol, const em_passes_options *o,
                                         const em_passes_extra *extra)
{
    ember_model *plain = tp_build(build, variant, rank, xd, names);
    ember_model *opt = tp_build(build, variant, rank, xd, names);
    OK(em_passes_run_extra(opt->g, o, extra));
    tp_debug_print(opt->g);
    for (int i = 0; i < n_want; i++) {
        if (tp_count_op(opt->g, want[i].op) != want[i].n) {
            fail_msg("variant %d: %d %s nodes, expected %d", variant,
                     tp_count_op(opt->g, want[i].op), em_op_name(want[i].op), want[i].n);
        }
    }
    int n_out = plain->g->n_outputs;
    assert_int_equal(opt->g->n_outputs, n_out);
    assert_true(n_out <= 8);
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        n *= xd[d];
    }
    float *x = test_malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)((i * 7919) % 1000) / 125.0f - 4.0f;
    }
    ember_tensor *a[8], *b[8];
    tp_run(plain, rank, xd, x, a, n_out);
    tp_run(opt, rank, xd, x, b, n_out);
    for (int i = 0; i < n_out; i++) {
        const em_value *va = &plain->g->values[plain->g->outputs[i]];
        const em_value *vb = &opt->g->values[opt->g->outputs[i]];
        assert_string_equal(va->name, vb->name);
        assert_int_equal(ember_tensor_elem_count(a[i]), ember_tensor_elem_count(b[i]));
        assert_int_equal(ember_tensor_rank(a[i]), ember_tensor_rank(b[i]));
        const float *pa = ember_tensor_data(a[i]), *pb = ember_tensor_data(b[i]);
        for (int64_t k = 0; k < ember_tensor_elem_count(a[i]); k++) {
            if (!(fabs((double)pa[k] - (double)pb[k]) <= atol + rtol * fabs((double)pa[k]))) {
                fail_msg("variant %d, output %d [%lld]: %.9g, unoptimised %.9g", variant, i,
                         (long long)k, (double)pb[k], (double)pa[k]);
            }
        }
    }
    ag_free_outs(a, n_out);
    ag_free_outs(b, n_out);
    test_free(x);
    ember_model_destroy(plain);
    ember_model_destroy(opt);
}

/* tp_check_passes_extra without extras. */
static inline void tp_check_passes_named(tp_build_fn build, int variant, int rank,
                                         const int64_t *xd, const char *const *names,
                                         const tp_count *want, int n_want, double atol,
                                         double rtol, const em_passes_options *o)
{
    tp_check_passes_extra(build, variant, rank, xd, names, want, n_want, atol, rtol, o, NULL);
}

/* tp_check_passes_named with no named dims. */
static inline void tp_check_passes(tp_build_fn build, int variant, int rank, const int64_t *xd,
                                   const tp_count *want, int n_want, double atol, double rtol,
                                   const em_passes_options *o)
{
    tp_check_passes_named(build, variant, rank, xd, NULL, want, n_want, atol, rtol, o);
}

/* tp_check_passes_named with the folding and fusing passes, no layout. */
static inline void tp_check_fused_named(tp_build_fn build, int variant, int rank,
                                        const int64_t *xd, const char *const *names,
                                        const tp_count *want, int n_want, double atol,
                                        double rtol)
{
    em_passes_options o = {true, true, false, 0, em_plan_eval_const};
    tp_check_passes_named(build, variant, rank, xd, names, want, n_want, atol, rtol, &o);
}

static inline void tp_check_fused(tp_build_fn build, int variant, int rank, const int64_t *xd,
                                  const tp_count *want, int n_want, double atol, double rtol)
{
    tp_check_fused_named(build, variant, rank, xd, NULL, want, n_want, atol, rtol);
}

#endif /* EMBER_TESTS_RUNTIME_TEST_PASSES_UTIL_H */
