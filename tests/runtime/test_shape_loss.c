/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape_loss.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss shapes through
 * em_shape_infer_node: reduction none ([N, d1..dk]) / sum / mean / absent (scalars), dims
 * taken from the target where the input's are unknown, unknown ranks, SCE's log_prob, and
 * the errors (each naming the node).
 */
#ifndef EMBER_TESTS_RUNTIME_TEST_SHAPE_LOSS_C
#define EMBER_TESTS_RUNTIME_TEST_SHAPE_LOSS_C

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "graph.h"
#include "shape.h"
#include "status.h"

/* The helpers below are shared with test_shape_rnn.c, which includes this file with
 * EM_SHAPE_TEST_HELPERS_ONLY defined (dropping this file's tests and main). */

/* A hand-built node with room for attributes (em_node_attr_* read n.attrs). */
typedef struct sn {
    em_node n;
    int in[8], out[3];
    em_attr attrs[4];
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
    for (int i = 0; i < 8; i++) {
        s->in[i] = i;
    }
    for (int i = 0; i < 3; i++) {
        s->out[i] = 8 + i;
    }
}

static inline em_attr *sn_attr(sn *s, const char *name, em_attr_type type)
{
    assert_true(s->n.n_attrs < 4);
    em_attr *a = &s->attrs[s->n.n_attrs++];
    a->name = (char *)name;
    a->type = type;
    return a;
}

static inline void sn_int(sn *s, const char *name, int64_t v)
{
    sn_attr(s, name, EM_ATTR_INT)->i = v;
}

static inline void sn_str(sn *s, const char *name, const char *v)
{
    sn_attr(s, name, EM_ATTR_STRING)->s = (char *)v;
}

/* A shape; dims of -1 are unknown. rank -1: unknown rank. */
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

/* dtype, rank and dims (-1: expect unknown) of s. */
static inline void expect(const em_shape *s, ember_dtype dt, int rank, const int64_t *dims)
{
    assert_int_equal(s->dtype, dt);
    assert_int_equal(s->rank, rank);
    for (int i = 0; i < rank; i++) {
        if (s->dims[i].v != dims[i]) {
            fail_msg("dim %d is %lld, expected %lld", i, (long long)s->dims[i].v,
                     (long long)dims[i]);
        }
    }
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
    em_shape out[3];
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

#ifndef EM_SHAPE_TEST_HELPERS_ONLY

#define F32 EMBER_DTYPE_F32
#define I64 EMBER_DTYPE_I64

static void test_reductions(void **state)
{
    (void)state;
    static const char *const reds[4] = {"none", "sum", "mean", NULL};
    static const int64_t xd[4] = {3, 5, 2, 4}, td[3] = {3, 2, 4}, wd[1] = {5};
    for (int op = 0; op < 2; op++) {
        for (int r = 0; r < 4; r++) {
            sn s;
            em_shape out[2];
            sn_init(&s, op ? EM_OP_SCELOSS : EM_OP_NLLLOSS, "loss", 3, 1);
            if (reds[r] != NULL) {
                sn_str(&s, "reduction", reds[r]);
            }
            em_shape in[3] = {shp(F32, 4, xd), shp(I64, 3, td), shp(F32, 1, wd)};
            infer_ok(&s, in, out);
            if (r == 0) {
                expect(&out[0], F32, 3, td);
            } else {
                expect(&out[0], F32, 0, NULL);
            }
        }
    }
}

static void test_nc_and_unknown(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    static const int64_t xd[2] = {-1, 5}, td[1] = {7}, xu[3] = {-1, 5, -1}, tu[2] = {6, 3};
    sn_init(&s, EM_OP_NLLLOSS, "nc", 2, 1);
    sn_str(&s, "reduction", "none");
    em_shape in[3] = {shp(EMBER_DTYPE_F64, 2, xd), shp(EMBER_DTYPE_I32, 1, td)};
    infer_ok(&s, in, out);
    expect(&out[0], EMBER_DTYPE_F64, 1, td); /* N from the target */
    in[0] = shp(F32, 3, xu);
    in[1] = shp(I64, 2, tu);
    infer_ok(&s, in, out);
    expect(&out[0], F32, 2, tu);
    in[0] = shp(F32, -1, NULL);
    infer_ok(&s, in, out);
    expect(&out[0], F32, 2, tu); /* rank and dims from the target */
    in[1] = shp(I64, -1, NULL);
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, -1);
}

static void test_sce_log_prob(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    static const int64_t xd[3] = {3, 5, 2}, td[2] = {3, 2};
    sn_init(&s, EM_OP_SCELOSS, "sce", 2, 2);
    em_shape in[2] = {shp(F32, 3, xd), shp(I64, 2, td)};
    infer_ok(&s, in, out);
    expect(&out[0], F32, 0, NULL);
    expect(&out[1], F32, 3, xd);
    assert_null(out[1].value);
}

static void test_errors(void **state)
{
    (void)state;
    static const int64_t x2[2] = {3, 5}, x3[3] = {3, 5, 2}, t1[1] = {3}, t2[2] = {3, 4},
                         t2ok[2] = {3, 2}, w4[1] = {4}, w5[1] = {5}, w22[2] = {5, 1};
    struct {
        const char *name, *red;
        em_shape in[3];
        int n_in;
    } cases[] = {
        {"rank1_input", "none", {shp(F32, 1, t1), shp(I64, 1, t1)}, 2},
        {"float_target", "none", {shp(F32, 2, x2), shp(F32, 1, t1)}, 2},
        {"target_rank", "none", {shp(F32, 3, x3), shp(I64, 1, t1)}, 2},
        {"target_dim", "none", {shp(F32, 3, x3), shp(I64, 2, t2)}, 2},
        {"weight_dtype", "mean", {shp(F32, 3, x3), shp(I64, 2, t2ok), shp(I64, 1, w5)}, 3},
        {"weight_rank", "mean", {shp(F32, 3, x3), shp(I64, 2, t2ok), shp(F32, 2, w22)}, 3},
        {"weight_len", "mean", {shp(F32, 3, x3), shp(I64, 2, t2ok), shp(F32, 1, w4)}, 3},
        {"bad_reduction", "average", {shp(F32, 2, x2), shp(I64, 1, t1)}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int op = 0; op < 2; op++) {
            sn s;
            sn_init(&s, op ? EM_OP_SCELOSS : EM_OP_NLLLOSS, cases[i].name, cases[i].n_in, 1);
            sn_str(&s, "reduction", cases[i].red);
            infer_err(&s, cases[i].in);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_nc_and_unknown),
        cmocka_unit_test(test_sce_log_prob),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* EM_SHAPE_TEST_HELPERS_ONLY */
#endif /* EMBER_TESTS_RUNTIME_TEST_SHAPE_LOSS_C */
