/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the graph-pass tests (tests/runtime/test_passes*.c): op counts of a rewritten
 * graph, its text on stdout when PASSES_DEBUG is set, and one session run of a model with a
 * single f32 input. Include after test_autograd_util.h.
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_PASSES_UTIL_H
#define EMBER_TESTS_RUNTIME_TEST_PASSES_UTIL_H

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

#endif /* EMBER_TESTS_RUNTIME_TEST_PASSES_UTIL_H */
