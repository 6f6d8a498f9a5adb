/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The quantizer's ops beyond Conv / Gemm / MatMul (issue #20 item 3): ConvTranspose (weights
 * per channel on axis 1), Resize (sharing its input's parameters, ORT's Direct8BitOp), and
 * BatchNormalization / InstanceNormalization / LayerNormalization (ORT's QDQNormalization:
 * input, scale as a per-tensor int8 weight when 1-D, int32 bias, outputs).
 *  - Positive: tests/data/quant/ops.onnx quantized through the C API; the written file's Q/DQ
 *    placement, node by node, equals ONNX Runtime's quantize_static on the same model
 *    (tests/data/quant/ops_ort_qdq.txt, tools/gen_quant_ops_fixture.py), and the QDQ model's
 *    output stays within 30 dB SQNR of the fp32 model (measured ~38 dB).
 *  - Negative: a ConvTranspose with group 2 (ORT's per-channel scales would not fit its bias;
 *    ORT's quantize_static fails on one), a Resize in a model of opset 10 (ORT leaves it) and a
 *    LayerNormalization with a 2-D scale stay fp32 with their reason; the plan touches none of
 *    their tensors.
 *  - The plan of a lone ConvTranspose (weights on axis 1, int32 bias) and BatchNormalization
 *    (per-tensor scale, int32 bias, mean and variance left fp32).
 */
#include "api/api_internal.h"
#include "ir/graph.h"
#include "quantization/qdq_insert.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"

static char g_ops[1024], g_expect[1024];

static int setup(void **state)
{
    (void)state;
    const char *d = getenv("EMBER_TEST_DATA");
    snprintf(g_ops, sizeof g_ops, "%s/quant/ops.onnx", d != NULL ? d : "tests/data");
    snprintf(g_expect, sizeof g_expect, "%s/quant/ops_ort_qdq.txt", d != NULL ? d : "tests/data");
    return 0;
}

static uint64_t g_rng = 0x243f6a8885a308d3ull;

static float randn(void)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
        u[k] = ((double)(g_rng >> 11) + 0.5) / 9007199254740992.0;
    }
    return (float)(sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]));
}

static ember_tensor *rand_x(void)
{
    static const int64_t dims[4] = {1, 4, 8, 8};
    ember_tensor *t = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, dims, 4, &t));
    float *p = ember_tensor_data(t);
    for (int64_t i = 0; i < ember_tensor_elem_count(t); i++) {
        p[i] = randn();
    }
    return t;
}

static int producer(const em_graph *g, int v)
{
    return v >= 0 ? g->values[v].producer : -1;
}

/* Whether value v is read by a QuantizeLinear; *qn is that node. */
static bool read_by_q(const em_graph *g, int v, int *qn)
{
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].op == EM_OP_QUANTIZELINEAR && g->nodes[i].in[0] == v) {
            *qn = i;
            return true;
        }
    }
    return false;
}

/* Whether initializers a and b hold the same bytes. */
static bool same_init(const em_graph *g, int a, int b)
{
    const em_tensor *x = &g->values[a].init, *y = &g->values[b].init;
    size_t n = em_tensor_nbytes(x);
    return n == em_tensor_nbytes(y) && memcmp(x->data, y->data, n) == 0;
}

/* The placement line of node i, as tools/gen_quant_ops_fixture.py writes ORT's. */
static void placement(const em_graph *g, int i, char *line, size_t cap)
{
    const em_node *n = &g->nodes[i];
    char ins[32] = {0}, outs[32] = {0};
    for (int k = 0; k < n->n_in && k < 31; k++) {
        int v = n->in[k], p = producer(g, v);
        char c = 'f';
        if (v < 0) {
            c = '-';
        } else if (p >= 0 && g->nodes[p].op == EM_OP_DEQUANTIZELINEAR) {
            int s = g->nodes[p].in[0];
            c = g->values[s].kind != EM_VAL_INITIALIZER ? 'a'
                : g->values[s].dtype == EMBER_DTYPE_I32  ? 'b'
                                                         : 'w';
        }
        ins[k] = c;
    }
    for (int k = 0; k < n->n_out && k < 31; k++) {
        int qn = -1;
        char c = 'f';
        if (read_by_q(g, n->out[k], &qn)) {
            int p = producer(g, n->in[0]);
            const em_node *q = &g->nodes[qn];
            c = p >= 0 && g->nodes[p].op == EM_OP_DEQUANTIZELINEAR &&
                        same_init(g, g->nodes[p].in[1], q->in[1]) &&
                        same_init(g, g->nodes[p].in[2], q->in[2])
                    ? 's'
                    : 'q';
        }
        outs[k] = c;
    }
    snprintf(line, cap, "%s %s in=%s out=%s", n->name, em_op_name(n->op), ins, outs);
}

static void test_placement_as_ort(void **state)
{
    (void)state;
    if (strstr(ember_build_info(), ",onnx") == NULL) {
        skip();
    }
    ember_quantizer *q = NULL;
    OK(ember_quantizer_create(g_ops, NULL, NULL, &q));
    for (int b = 0; b < 8; b++) {
        ember_tensor *x = rand_x();
        OK(ember_quantizer_add_batch(q, &x, 1));
        ember_tensor_destroy(x);
    }
    char path[256];
    snprintf(path, sizeof path, "qdq_ops_%d.onnx", (int)(g_rng & 0xffff));
    OK(ember_quantizer_save_onnx(q, path));
    ember_model_options *mo = NULL;
    OK(ember_model_options_create(&mo));
    OK(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    ember_model *m = NULL;
    OK(ember_model_load_file(path, mo, &m));
    remove(path);
    ember_model_options_destroy(mo);
    const em_graph *g = m->g;
    FILE *f = fopen(g_expect, "r");
    assert_non_null(f);
    char want[256];
    int n_lines = 0;
    while (fgets(want, sizeof want, f) != NULL) {
        want[strcspn(want, "\n")] = '\0';
        char name[128];
        assert_int_equal(sscanf(want, "%127s", name), 1);
        int found = -1;
        for (int i = 0; i < g->n_nodes; i++) {
            if (strcmp(g->nodes[i].name, name) == 0) {
                found = i;
            }
        }
        assert_true(found >= 0);
        char got[256];
        placement(g, found, got, sizeof got);
        print_message("ORT:   %s\nember: %s\n", want, got);
        assert_string_equal(got, want);
        n_lines++;
    }
    fclose(f);
    assert_int_equal(n_lines, 9);
    /* every node that is not Q / DQ is in ORT's list (ember folded the same Relu) */
    int others = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        em_op op = g->nodes[i].op;
        others += op != EM_OP_QUANTIZELINEAR && op != EM_OP_DEQUANTIZELINEAR;
    }
    assert_int_equal(others, n_lines);

    /* the QDQ model against the fp32 model on fresh inputs */
    ember_model *fm = NULL, *qm = NULL;
    OK(ember_model_load_file(g_ops, NULL, &fm));
    ember_model_options *off = NULL;
    OK(ember_model_options_create(&off));
    OK(ember_model_options_set_int8(off, EMBER_INT8_OFF));
    OK(ember_quantizer_load_model(q, off, &qm));
    ember_model_options_destroy(off);
    ember_session *sf = NULL, *sq = NULL;
    OK(ember_session_create(fm, NULL, &sf));
    OK(ember_session_create(qm, NULL, &sq));
    double sig = 0, noise = 0;
    for (int b = 0; b < 4; b++) {
        ember_tensor *x = rand_x(), *yf = NULL, *yq = NULL;
        OK(ember_session_run(sf, &x, 1, &yf, 1));
        OK(ember_session_run(sq, &x, 1, &yq, 1));
        assert_int_equal(ember_tensor_elem_count(yf), ember_tensor_elem_count(yq));
        const float *a = ember_tensor_data(yf), *c = ember_tensor_data(yq);
        for (int64_t i = 0; i < ember_tensor_elem_count(yf); i++) {
            sig += (double)a[i] * a[i];
            noise += ((double)a[i] - c[i]) * ((double)a[i] - c[i]);
        }
        ember_tensor_destroy(x);
        ember_tensor_destroy(yf);
        ember_tensor_destroy(yq);
    }
    double db = 10.0 * log10(sig / noise);
    print_message("ops.onnx: QDQ model %.2f dB against fp32\n", db);
    assert_true(db > 30.0);
    ember_session_destroy(sf);
    ember_session_destroy(sq);
    ember_model_destroy(fm);
    ember_model_destroy(qm);
    ember_model_destroy(m);
    ember_quantizer_destroy(q);
}

/* A graph x -> node (op, weight w of shape wd as input `wat` (1 or 2; input 1 absent when 2),
 * extra inputs) -> y, for the plan. */
static em_graph *one_node_at(em_op op, int wat, const int64_t *wd, int wrank, int n_extra,
                             const int64_t *ed, int erank, int *node)
{
    em_graph *g = NULL;
    OK(em_graph_new(NULL, &g));
    static const int64_t xd[4] = {1, 4, 8, 8};
    int x, w, in[6];
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 4, xd, NULL, &x));
    float data[256] = {0};
    for (int k = 0; k < 256; k++) {
        data[k] = 0.5f + fabsf(randn()); /* positive: fits Resize's scales and BN's variance */
    }
    OK(em_graph_add_initializer_copy(g, "w", EMBER_DTYPE_F32, wrank, wd, data, &w));
    in[0] = x;
    in[1] = wat == 1 ? w : -1;
    in[2] = w;
    for (int k = 0; k < n_extra; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "e%d", k);
        int *slot = &in[wat + 1 + k];
        OK(em_graph_add_initializer_copy(g, nm, EMBER_DTYPE_F32, erank, ed, data, slot));
    }
    const char *outs[1] = {"y"};
    OK(em_graph_add_node(g, op, "n", in, wat + 1 + n_extra, outs, 1, node));
    OK(em_graph_mark_output(g, g->nodes[*node].out[0]));
    return g;
}

static em_graph *one_node(em_op op, const int64_t *wd, int wrank, int n_extra,
                          const int64_t *ed, int erank, int *node)
{
    return one_node_at(op, 1, wd, wrank, n_extra, ed, erank, node);
}

/* Infers g's shapes (the plan reads the output's dtype) and checks y is f32. */
static void infer(em_graph *g)
{
    OK(em_graph_infer_shapes(g));
    assert_int_equal(g->values[em_graph_find_value(g, "y")].dtype, EMBER_DTYPE_F32);
}

static void expect_fp32(em_graph *g, int node, int opset, const char *why_part)
{
    em_qi_opts o = {0};
    o.opset = opset;
    o.mode = EM_QI_STATIC;
    o.per_channel = true;
    o.act_dt = EMBER_DTYPE_U8;
    em_qi_plan p;
    OK(em_qi_plan_make(g, &o, &p));
    assert_false(p.quant[node]);
    assert_non_null(p.why[node]);
    print_message("%s: %s\n", em_op_name(g->nodes[node].op), p.why[node]);
    assert_non_null(strstr(p.why[node], why_part));
    for (int v = 0; v < g->n_values; v++) {
        assert_false(p.act[v]);
        assert_int_equal(p.w_axis[v], -1);
        assert_int_equal(p.bias_of[v], -1);
    }
    em_qi_plan_free(NULL, &p);
    em_graph_destroy(g);
}

static void test_left_fp32(void **state)
{
    (void)state;
    int node = -1;
    /* ConvTranspose, group 2: weight [C_in 4, C_out / 2 = 3, 2, 2], bias [6] */
    static const int64_t wt[4] = {4, 3, 2, 2}, bt[1] = {6};
    em_graph *g = one_node(EM_OP_CONVTRANSPOSE, wt, 4, 1, bt, 1, &node);
    OK(em_node_set_int(g, node, "group", 2));
    infer(g);
    expect_fp32(g, node, 13, "group > 1");
    /* Resize (X, no roi, scales) in a model of opset 10 (the loader writes Resize-10 so) */
    static const int64_t sc[1] = {4};
    g = one_node_at(EM_OP_RESIZE, 2, sc, 1, 0, NULL, 0, &node);
    infer(g);
    expect_fp32(g, node, 10, "opset 11");
    /* LayerNormalization with a 2-D scale [8, 8] */
    static const int64_t ls[2] = {8, 8};
    g = one_node(EM_OP_LAYERNORM, ls, 2, 0, NULL, 0, &node);
    OK(em_node_set_int(g, node, "axis", 2));
    infer(g);
    expect_fp32(g, node, 13, "not 1-D");
}

/* The same ops with what ORT quantizes: ConvTranspose group 1 gets per-channel weights on axis
 * 1 and an int32 bias; BatchNormalization a per-tensor scale, an int32 bias, fp32 mean / var. */
static void test_planned(void **state)
{
    (void)state;
    int node = -1;
    static const int64_t wt[4] = {4, 6, 2, 2}, bt[1] = {6};
    em_graph *g = one_node(EM_OP_CONVTRANSPOSE, wt, 4, 1, bt, 1, &node);
    infer(g);
    em_qi_opts o = {0};
    o.mode = EM_QI_STATIC;
    o.per_channel = true;
    o.act_dt = EMBER_DTYPE_U8;
    em_qi_plan p;
    OK(em_qi_plan_make(g, &o, &p));
    assert_true(p.quant[node]);
    assert_int_equal(p.w_axis[g->nodes[node].in[1]], 1);
    assert_int_equal(p.bias_of[g->nodes[node].in[2]], node);
    assert_true(p.act[g->nodes[node].in[0]] && p.act[g->nodes[node].out[0]]);
    em_qi_plan_free(NULL, &p);
    em_graph_destroy(g);

    static const int64_t c[1] = {4};
    g = one_node(EM_OP_BATCHNORM, c, 1, 3, c, 1, &node);
    infer(g);
    OK(em_qi_plan_make(g, &o, &p));
    const em_node *n = &g->nodes[node];
    assert_true(p.quant[node]);
    assert_int_equal(p.w_axis[n->in[1]], -2);
    assert_int_equal(p.bias_of[n->in[2]], node);
    assert_int_equal(p.w_axis[n->in[3]], -1);
    assert_int_equal(p.w_axis[n->in[4]], -1);
    assert_true(p.act[n->in[0]] && p.act[n->out[0]]);
    em_qi_plan_free(NULL, &p);
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement_as_ort),
        cmocka_unit_test(test_left_fp32),
        cmocka_unit_test(test_planned),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
