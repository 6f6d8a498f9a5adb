/* SPDX-License-Identifier: Apache-2.0 */
/*
 * em_pass_half_to_f32 (runtime/passes/passes_half.c) on hand-built graphs:
 *  - f16 input -> Mul by an f16 weight -> Relu -> f16 output, twice read: the input gets a Cast
 *    to f32 first, the weight is widened in place (bit-exact values, f32 storage), the output
 *    keeps its name and dtype behind a Cast to f16 and its reader inside the graph reads f32;
 *  - bf16 the same way; an f16 ConstantOfShape value widened; a model Cast f16 -> f32 becomes
 *    Identity; Cast to f16 of an f32 value stays (rounding) with a Cast to f32 after it;
 *    CastLike to an f16 target becomes Cast(to=f16);
 *  - left alone: an all-f32 graph (nothing changes), a half graph without half weights (the
 *    half kernels round per op, as ONNX's one-op conformance graphs expect) and a half graph
 *    with a subgraph;
 *  - memory: tests/data/half/cnn.f16.onnx loaded, no initializer is half or points into the
 *    model's image any more (one fp32 copy of the weights; the image's pages are given back).
 * Each rewritten graph verifies and infers shapes; the values run in test_api_half.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include "core/lowp.h"

static const int64_t d4[1] = {4};

static int input(em_graph *g, const char *name, ember_dtype dt)
{
    int v;
    OK(em_graph_add_input(g, name, dt, 1, d4, NULL, &v));
    return v;
}

static int half_init(em_graph *g, const char *name, ember_dtype dt, const float *vals)
{
    uint16_t h[4];
    em_f32_to_half_n(dt, vals, h, 4);
    return tp_init(g, name, dt, 1, d4, h);
}

static const em_node *producer(const em_graph *g, const char *value)
{
    int v = em_graph_find_value(g, value);
    assert_true(v >= 0);
    assert_true(g->values[v].producer >= 0);
    return &g->nodes[g->values[v].producer];
}

static void finish(em_graph *g)
{
    OK(em_pass_half_to_f32(g));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    tp_debug_print(g);
    for (int v = 0; v < g->n_values; v++) { /* nothing half but inputs, outputs, rounding */
        const em_value *x = &g->values[v];
        bool half = x->dtype == EMBER_DTYPE_F16 || x->dtype == EMBER_DTYPE_BF16;
        if (half && x->kind != EM_VAL_INPUT && !x->is_output) {
            const em_node *p = &g->nodes[x->producer];
            assert_int_equal(p->op, EM_OP_CAST);
            assert_true(g->values[p->in[0]].dtype == EMBER_DTYPE_F32);
        }
    }
}

static void check_edges(ember_dtype dt)
{
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    static const float wv[4] = {0.1f, -2.5f, 65504.0f, 1e-7f};
    int x = input(g, "x", dt), w = half_init(g, "w", dt, wv);
    int y = tp_op2(g, EM_OP_RELU, tp_op2(g, EM_OP_MUL, x, w, "m"), -1, "y");
    int z = tp_op2(g, EM_OP_NEG, y, -1, "z");
    OK(em_graph_mark_output(g, y));
    OK(em_graph_mark_output(g, z));
    OK(em_graph_infer_shapes(g));
    finish(g);
    /* the input and outputs keep name and dtype */
    assert_int_equal(g->values[g->inputs[0]].dtype, dt);
    assert_string_equal(g->values[g->outputs[0]].name, "y");
    assert_int_equal(g->values[g->outputs[0]].dtype, dt);
    assert_int_equal(g->values[g->outputs[1]].dtype, dt);
    /* the first node casts the input to f32 */
    assert_int_equal(g->nodes[0].op, EM_OP_CAST);
    assert_int_equal(g->nodes[0].in[0], g->inputs[0]);
    assert_int_equal(g->values[g->nodes[0].out[0]].dtype, EMBER_DTYPE_F32);
    /* Mul reads it and the weight, widened exactly into f32 storage */
    const em_node *mul = producer(g, "m");
    assert_int_equal(mul->in[0], g->nodes[0].out[0]);
    const em_value *wv32 = &g->values[mul->in[1]];
    assert_int_equal(wv32->kind, EM_VAL_INITIALIZER);
    assert_int_equal(wv32->dtype, EMBER_DTYPE_F32);
    assert_int_equal(wv32->init.dtype, EMBER_DTYPE_F32);
    for (int i = 0; i < 4; i++) {
        uint16_t h;
        em_f32_to_half_n(dt, &wv[i], &h, 1);
        float want;
        em_half_to_f32_n(dt, &h, &want, 1);
        assert_memory_equal(&((const float *)wv32->init.data)[i], &want, sizeof want);
    }
    /* y: Relu writes an f32 value, a Cast to the half type writes y; Neg reads the f32 one */
    const em_node *cy = producer(g, "y");
    assert_int_equal(cy->op, EM_OP_CAST);
    assert_int_equal(em_node_attr_int(cy, "to", 0), dt);
    assert_int_equal(g->nodes[g->values[cy->in[0]].producer].op, EM_OP_RELU);
    const em_node *neg = &g->nodes[g->values[producer(g, "z")->in[0]].producer];
    assert_int_equal(neg->op, EM_OP_NEG);
    assert_int_equal(neg->in[0], cy->in[0]);
    em_graph_destroy(g);
}

static void test_half_edges(void **state)
{
    (void)state;
    check_edges(EMBER_DTYPE_F16);
    check_edges(EMBER_DTYPE_BF16);
}

static void test_half_casts_and_attrs(void **state)
{
    (void)state;
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    int x = input(g, "x", EMBER_DTYPE_F32);
    /* rounding point: Cast(x, f16) -> Cast(f32) (the model's) -> Add */
    int h = tp_op2(g, EM_OP_CAST, x, -1, "h");
    OK(em_node_set_int(g, g->n_nodes - 1, "to", EMBER_DTYPE_F16));
    int back = tp_op2(g, EM_OP_CAST, h, -1, "back");
    OK(em_node_set_int(g, g->n_nodes - 1, "to", EMBER_DTYPE_F32));
    /* ConstantOfShape with an f16 value, then CastLike of x to it (rounds to f16) */
    uint16_t two = em_f32_to_f16(2.0f);
    int cs = tp_op2(g, EM_OP_CONSTANTOFSHAPE, tp_ints(g, "shape", d4, 1), -1, "c");
    em_attr *a = NULL;
    OK(em_node_add_attr(g, g->n_nodes - 1, "value", EM_ATTR_TENSOR, &a));
    OK(em_storage_new_owned(g->al, 2, &a->storage));
    memcpy(em_storage_data(a->storage), &two, 2);
    int64_t one = 1;
    em_tensor_set_shape(&a->t, EMBER_DTYPE_F16, &one, 1);
    a->t.data = em_storage_data(a->storage);
    int cl = tp_op2(g, EM_OP_CASTLIKE, x, cs, "cl");
    int s = tp_op2(g, EM_OP_ADD, cl, cs, "s");
    int y = tp_op2(g, EM_OP_ADD, back, tp_op2(g, EM_OP_CAST, s, -1, "s32"), "y");
    OK(em_node_set_int(g, g->n_nodes - 2, "to", EMBER_DTYPE_F32));
    OK(em_graph_mark_output(g, y));
    OK(em_graph_infer_shapes(g));
    finish(g);
    assert_int_equal(g->values[g->inputs[0]].dtype, EMBER_DTYPE_F32);
    assert_int_equal(g->values[y].dtype, EMBER_DTYPE_F32);
    /* h still rounds to f16; its reader (the model's Cast to f32, now a no-op) is Identity of
     * the widening Cast added after h */
    assert_int_equal(g->values[em_graph_find_value(g, "h")].dtype, EMBER_DTYPE_F16);
    const em_node *nb = producer(g, "back");
    assert_int_equal(nb->op, EM_OP_IDENTITY);
    const em_node *wid = &g->nodes[g->values[nb->in[0]].producer];
    assert_int_equal(wid->op, EM_OP_CAST);
    assert_int_equal(g->values[wid->in[0]].dtype, EMBER_DTYPE_F16);
    /* ConstantOfShape's value widened to f32 (2.0) */
    const em_attr *va = em_node_attr(producer(g, "c"), "value");
    assert_int_equal(va->t.dtype, EMBER_DTYPE_F32);
    assert_true(*(const float *)va->t.data == 2.0f);
    assert_int_equal(g->values[em_graph_find_value(g, "c")].dtype, EMBER_DTYPE_F32);
    /* CastLike to the f16 target: a Cast to f16 of one input, widened after */
    const em_node *ncl = producer(g, "cl");
    assert_int_equal(ncl->op, EM_OP_CAST);
    assert_int_equal(ncl->n_in, 1);
    assert_int_equal(em_node_attr_int(ncl, "to", 0), EMBER_DTYPE_F16);
    assert_int_equal(g->values[em_graph_find_value(g, "s")].dtype, EMBER_DTYPE_F32);
    em_graph_destroy(g);
}

static void test_half_left_alone(void **state)
{
    (void)state;
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    int x = input(g, "x", EMBER_DTYPE_F32);
    int y = tp_op2(g, EM_OP_RELU, x, -1, "y");
    OK(em_graph_mark_output(g, y));
    OK(em_graph_infer_shapes(g));
    int nn = g->n_nodes, nv = g->n_values;
    OK(em_pass_half_to_f32(g));
    assert_int_equal(g->n_nodes, nn);
    assert_int_equal(g->n_values, nv);
    em_graph_destroy(g);

    /* half inputs but no half weights (ONNX's one-op graphs): left to the half kernels */
    OK(em_graph_new(test_allocator(), &g));
    x = input(g, "x", EMBER_DTYPE_BF16);
    y = tp_op2(g, EM_OP_MUL, x, x, "y");
    OK(em_graph_mark_output(g, y));
    OK(em_graph_infer_shapes(g));
    OK(em_pass_half_to_f32(g));
    assert_int_equal(g->n_nodes, 1);
    assert_int_equal(g->values[y].dtype, EMBER_DTYPE_BF16);
    em_graph_destroy(g);

    /* a half graph with a subgraph (an If's branch): left as it is */
    OK(em_graph_new(test_allocator(), &g));
    x = input(g, "x", EMBER_DTYPE_F16);
    y = tp_op2(g, EM_OP_ADD, x, half_init(g, "w", EMBER_DTYPE_F16, (const float[4]){1, 2, 3, 4}),
               "y");
    OK(em_graph_mark_output(g, y));
    OK(em_graph_infer_shapes(g));
    em_attr *a = NULL;
    OK(em_node_add_attr(g, g->n_nodes - 1, "body", EM_ATTR_GRAPH, &a));
    OK(em_graph_new(test_allocator(), &a->g));
    OK(em_pass_half_to_f32(g));
    assert_int_equal(g->n_nodes, 1);
    assert_int_equal(g->values[y].dtype, EMBER_DTYPE_F16);
    em_graph_destroy(g);
}

static void test_half_weights_once(void **state)
{
    (void)state;
    const char *root = getenv("EMBER_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/half/cnn.f16.onnx", root ? root : "tests/data");
    ember_model *m = NULL;
    ember_status *st = ember_model_load_file(path, NULL, &m);
    if (ember_status_code(st) == EMBER_ERR_UNSUPPORTED) { /* no ONNX loader */
        ember_status_destroy(st);
        skip();
    }
    OK(st);
    assert_non_null(m->bytes);
    const char *lo = em_storage_data(m->bytes), *hi = lo + em_storage_size(m->bytes);
    int n = 0;
    for (int v = 0; v < m->g->n_values; v++) {
        const em_value *x = &m->g->values[v];
        if (x->kind != EM_VAL_INITIALIZER || x->dtype == EMBER_DTYPE_I64) {
            continue;
        }
        n++;
        assert_int_equal(x->dtype, EMBER_DTYPE_F32);
        const char *d = x->init.data;
        assert_true(d == NULL || d < lo || d >= hi);
    }
    assert_true(n >= 4); /* folded conv weights and biases, the Gemm's */
    ember_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_edges),
        cmocka_unit_test(test_half_casts_and_attrs),
        cmocka_unit_test(test_half_left_alone),
        cmocka_unit_test(test_half_weights_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
