/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Values known while planning (planner.h): keyed graph inputs (Reshape's shape given as an
 * input), plans reused only for equal values, constant subgraphs folded once and skipped at
 * run time, and a keyed input's value missing at prepare time.
 */
#include "api/api_internal.h"
#include "core/alloc.h"
#include "ir/graph.h"
#include "plan/planner.h"

#include "common/test_alloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"


/* x f32[N,6], shape i64[2] -> y = Reshape(x, shape); z = Relu(y) + (a + b), a,b constant. */
static ember_model *make_model(void)
{
    ember_model *m = em_calloc(test_allocator(), 1, sizeof *m);
    assert_non_null(m);
    m->alloc = *test_allocator();
    m->al = &m->alloc;
    m->format = "test";
    OK(em_graph_new(m->al, &m->g));
    em_graph *g = m->g;
    int x, shape, a, b, node;
    int64_t xd[2] = {-1, 6}, sd[1] = {2}, cd[2] = {1, 1};
    const char *names[2] = {"N", NULL};
    float one = 1.0f, two = 2.0f;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, names, &x));
    OK(em_graph_add_input(g, "shape", EMBER_DTYPE_I64, 1, sd, NULL, &shape));
    OK(em_graph_add_initializer_copy(g, "a", EMBER_DTYPE_F32, 2, cd, &one, &a));
    OK(em_graph_add_initializer_copy(g, "b", EMBER_DTYPE_F32, 2, cd, &two, &b));
    int rin[2] = {x, shape}, ain[2] = {a, b};
    const char *y = "y", *r = "r", *c = "c", *z = "z";
    OK(em_graph_add_node(g, EM_OP_RESHAPE, "reshape", rin, 2, &y, 1, &node));
    int yv = g->nodes[node].out[0];
    OK(em_graph_add_node(g, EM_OP_RELU, "relu", &yv, 1, &r, 1, &node));
    int rv = g->nodes[node].out[0];
    OK(em_graph_add_node(g, EM_OP_ADD, "const_add", ain, 2, &c, 1, &node));
    int zin[2] = {rv, g->nodes[node].out[0]};
    OK(em_graph_add_node(g, EM_OP_ADD, "out_add", zin, 2, &z, 1, &node));
    OK(em_graph_mark_output(g, g->nodes[node].out[0]));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return m;
}

static void test_keyed_plan_build(void **state)
{
    (void)state;
    ember_model *m = make_model();
    int64_t xs[2] = {2, 6}, ss[1] = {2}, target[2] = {3, 4}, other[2] = {4, 3};
    const int64_t *shapes[2] = {xs, ss};
    int ranks[2] = {2, 1};
    const void *data[2] = {NULL, target};
    em_plan *p = NULL;
    ember_status *st = em_plan_build(m->g, m->al, 0, 1, NULL, shapes, ranks, NULL, 2, &p);
    assert_int_equal(ember_status_code(st), EMBER_ERR_STATE);
    assert_non_null(strstr(ember_status_message(st), "input 1 'shape' decides output shapes"));
    ember_status_destroy(st);
    assert_null(p);
    OK(em_plan_build(m->g, m->al, 0, 1, NULL, shapes, ranks, data, 2, &p));
    const em_graph *g = m->g;
    int y = em_graph_find_value(g, "y"), c = em_graph_find_value(g, "c");
    assert_int_equal(p->vals[y].t.rank, 2);
    assert_int_equal(p->vals[y].t.dims[0], 3);
    assert_int_equal(p->vals[y].t.dims[1], 4);
    /* a + b is folded: a constant 3, and its node is skipped at run time. */
    assert_int_equal(p->vals[c].loc, EM_LOC_CONST);
    assert_true(p->vals[c].t.data != NULL && *(const float *)p->vals[c].t.data == 3.0f);
    assert_true(p->nodes[2].folded);
    assert_false(p->nodes[0].folded); /* Reshape of the runtime input x */
    assert_false(p->nodes[3].folded);
    assert_true(em_plan_matches(p, shapes, ranks, data, 2));
    const void *data2[2] = {NULL, other};
    assert_false(em_plan_matches(p, shapes, ranks, data2, 2));
    assert_false(em_plan_matches(p, shapes, ranks, NULL, 2));
    char *text = NULL;
    OK(em_plan_to_text(p, &text));
    assert_non_null(strstr(text, "folded"));
    ember_string_free(text);
    em_plan_destroy(p);
    ember_model_destroy(m);
}

static void run_once(ember_session *s, const int64_t *target, float *out12)
{
    float xd[12];
    for (int i = 0; i < 12; i++) {
        xd[i] = (float)(i - 6);
    }
    int64_t xs[2] = {2, 6}, ss[1] = {2};
    ember_tensor *in[2] = {NULL, NULL}, *y = NULL;
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, xs, 2, xd, sizeof xd, &in[0]));
    OK(ember_tensor_wrap(EMBER_DTYPE_I64, ss, 1, (void *)target, 2 * sizeof(int64_t), &in[1]));
    OK(ember_session_run(s, in, 2, &y, 1));
    assert_int_equal(ember_tensor_dims(y)[0], target[0]);
    assert_int_equal(ember_tensor_dims(y)[1], target[1]);
    memcpy(out12, ember_tensor_data(y), 12 * sizeof(float));
    ember_tensor_destroy(y);
    ember_tensor_destroy(in[0]);
    ember_tensor_destroy(in[1]);
}

/* Through a session: the output shape follows the shape input's value, each value gets its
 * own cached plan, and the folded constant enters the result. */
static void test_keyed_session(void **state)
{
    (void)state;
    ember_model *m = make_model();
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_profiling(so, true);
    OK(ember_session_create(m, so, &s)); /* the eager plan is skipped: 'shape' is keyed */
    ember_session_options_destroy(so);
    int64_t t1[2] = {3, 4}, t2[2] = {4, 3}, t3[2] = {-1, 2};
    float got[12];
    const int64_t *targets[3] = {t1, t2, t1};
    for (int r = 0; r < 3; r++) {
        run_once(s, targets[r], got);
        for (int i = 0; i < 12; i++) { /* relu(x) + 3 */
            float x = (float)(i - 6);
            assert_true(got[i] == (x > 0 ? x : 0.0f) + 3.0f);
        }
    }
    int64_t t3_resolved[2] = {6, 2};
    float xd[12] = {0};
    int64_t xs[2] = {2, 6}, ss[1] = {2};
    ember_tensor *in[2] = {NULL, NULL}, *y = NULL;
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, xs, 2, xd, sizeof xd, &in[0]));
    OK(ember_tensor_wrap(EMBER_DTYPE_I64, ss, 1, t3, sizeof t3, &in[1]));
    OK(ember_session_run(s, in, 2, &y, 1));
    assert_memory_equal(ember_tensor_dims(y), t3_resolved, sizeof t3_resolved);
    ember_tensor_destroy(y);
    ember_tensor_destroy(in[0]);
    ember_tensor_destroy(in[1]);
    /* Folded nodes do not run: 3 of the 4 nodes appear per run. */
    ember_profile *prof = NULL;
    OK(ember_session_profile(s, false, &prof));
    assert_int_equal(ember_profile_event_count(prof), 4 * 3);
    for (size_t i = 0; i < ember_profile_event_count(prof); i++) {
        assert_string_not_equal(ember_profile_event_node(prof, i), "const_add");
    }
    ember_profile_destroy(prof);
    /* prepare without values cannot plan a keyed model. */
    const int64_t *shapes[2] = {xs, ss};
    int ranks[2] = {2, 1};
    ember_status *st = ember_session_prepare(s, shapes, ranks, 2);
    assert_int_equal(ember_status_code(st), EMBER_ERR_STATE);
    ember_status_destroy(st);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

/* y = Reshape(Relu(x), Shape(x)): Shape reads only x's shape, so it folds while planning and
 * the plan is not keyed on x's values (no data needed to plan). */
static void test_shape_only_folds(void **state)
{
    (void)state;
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    int x, node;
    int64_t xd[2] = {-1, 6};
    const char *names[2] = {"N", NULL};
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, names, &x));
    const char *sn = "s", *rn = "r", *yn = "y";
    OK(em_graph_add_node(g, EM_OP_SHAPE, "shape", &x, 1, &sn, 1, &node));
    int sv = g->nodes[node].out[0];
    OK(em_graph_add_node(g, EM_OP_RELU, "relu", &x, 1, &rn, 1, &node));
    int rin[2] = {g->nodes[node].out[0], sv};
    OK(em_graph_add_node(g, EM_OP_RESHAPE, "reshape", rin, 2, &yn, 1, &node));
    OK(em_graph_mark_output(g, g->nodes[node].out[0]));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    int64_t xs[2] = {3, 6};
    const int64_t *shapes[1] = {xs};
    int rank = 2;
    em_plan *p = NULL;
    OK(em_plan_build(g, test_allocator(), 0, 1, NULL, shapes, &rank, NULL, 1, &p));
    assert_true(p->nodes[0].folded);
    assert_int_equal(p->vals[x].loc, EM_LOC_INPUT); /* not keyed */
    assert_int_equal(p->vals[sv].loc, EM_LOC_CONST);
    const int64_t *sd = p->vals[sv].t.data;
    assert_true(sd[0] == 3 && sd[1] == 6);
    int y = g->outputs[0];
    assert_int_equal(p->vals[y].t.dims[0], 3);
    assert_int_equal(p->vals[y].t.dims[1], 6);
    em_plan_destroy(p);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keyed_plan_build),
        cmocka_unit_test(test_keyed_session),
        cmocka_unit_test(test_shape_only_folds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
