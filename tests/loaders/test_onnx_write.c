/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX writer (loaders/onnx/onnx_write.c) on graphs built by hand, for what the
 * conformance roundtrip (onnx_conformance --roundtrip) and the API test
 * (test_api_save_onnx.c) do not reach: external data (every initializer of 1 KiB or more in
 * "<file>.data" at 4096-aligned offsets), names that ONNX would reject (two values or two nodes
 * of one name, values without a name) made unique, an absent optional input between present
 * ones, symbolic dims, the opset a late op needs and an opset asked for that is too old, and
 * what it refuses (ember's internal ops, values with quantization parameters). Written files
 * are read back through ember.h and run against values computed here.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/test_ok.h"
#include "ember.h"
#include "ir/graph.h"
#include "loaders/onnx/onnx_write.h"

#define K 4
#define M 300 /* W is K x M floats: 4800 bytes, external under EM_ONNX_EXT_ALWAYS */

static char dir[256];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ember_onnx_write_XXXXXX", t && t[0] ? t : "/tmp");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char p[512];
    const char *files[] = {"m.onnx", "m.onnx.data", "late.onnx"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        remove(p);
    }
    rmdir(dir);
    return 0;
}

static float w_at(int k, int m) { return (float)((k * 37 + m * 11) % 23 - 11) / 8.0f; }

/* y = Clip(MatMul(x, W) + b, max = 2) with x f32 [N, K] (N symbolic), W [K, M], b [M]; the
 * MatMul's and the Add's outputs are both named "t" and both nodes "n"; the Clip's output has
 * no name; Clip's min is absent, its max present. */
static em_graph *build(void)
{
    em_graph *g = NULL;
    OK(em_graph_new(NULL, &g));
    int x, w, b, mx, n;
    const int64_t xd[2] = {-1, K}, wd[2] = {K, M}, bd[1] = {M};
    const char *xn[2] = {"N", NULL};
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, xn, &x));
    float *wv = malloc(sizeof(float) * K * M), bv[M], two = 2.0f;
    assert_non_null(wv);
    for (int k = 0; k < K; k++) {
        for (int m = 0; m < M; m++) {
            wv[k * M + m] = w_at(k, m);
        }
    }
    for (int m = 0; m < M; m++) {
        bv[m] = (float)(m % 7) * 0.25f - 0.5f;
    }
    OK(em_graph_add_initializer_copy(g, "W", EMBER_DTYPE_F32, 2, wd, wv, &w));
    OK(em_graph_add_initializer_copy(g, "b", EMBER_DTYPE_F32, 1, bd, bv, &b));
    OK(em_graph_add_initializer_copy(g, "max", EMBER_DTYPE_F32, 0, NULL, &two, &mx));
    free(wv);
    const char *t = "t", *empty = "";
    int in1[2] = {x, w};
    OK(em_graph_add_node(g, EM_OP_MATMUL, "n", in1, 2, &t, 1, &n));
    int in2[2] = {g->nodes[n].out[0], b};
    OK(em_graph_add_node(g, EM_OP_ADD, "n", in2, 2, &t, 1, &n));
    int in3[3] = {g->nodes[n].out[0], -1, mx};
    OK(em_graph_add_node(g, EM_OP_CLIP, "", in3, 3, &empty, 1, &n));
    OK(em_graph_mark_output(g, g->nodes[n].out[0]));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    return g;
}

static off_t file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? sb.st_size : -1;
}

/* Reads `path` back and checks y on a 3-row input against the formula. */
static void check_runs(const char *path)
{
    ember_model *m = NULL;
    ember_status *st = ember_model_load_file(path, NULL, &m);
    if (st != NULL && strstr(ember_status_message(st), "this build has no") != NULL) {
        ember_status_destroy(st);
        skip();
    }
    OK(st);
    assert_string_equal(ember_model_input_name(m, 0), "x");
    assert_string_equal(ember_model_input_dim_name(m, 0, 0), "N");
    float xv[3 * K];
    for (int i = 0; i < 3 * K; i++) {
        xv[i] = (float)(i % 5) - 1.5f;
    }
    const int64_t d[2] = {3, K};
    ember_tensor *xt = NULL, *y = NULL;
    OK(ember_tensor_wrap(EMBER_DTYPE_F32, d, 2, xv, sizeof xv, &xt));
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &xt, 1, &y, 1));
    assert_int_equal(ember_tensor_dims(y)[0], 3);
    assert_int_equal(ember_tensor_dims(y)[1], M);
    const float *yv = ember_tensor_data(y);
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < M; c++) {
            double acc = (double)(c % 7) * 0.25 - 0.5;
            for (int k = 0; k < K; k++) {
                acc += (double)xv[r * K + k] * w_at(k, c);
            }
            double want = acc > 2.0 ? 2.0 : acc;
            assert_true(fabs(yv[r * M + c] - want) <= 1e-4 + 1e-5 * fabs(want));
        }
    }
    ember_tensor_destroy(y);
    ember_tensor_destroy(xt);
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_external_and_names(void **state)
{
    (void)state;
    em_graph *g = build();
    char path[512], data[520];
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    snprintf(data, sizeof data, "%s.data", path);
    em_onnx_write_opts o = {0, 0, EM_ONNX_EXT_ALWAYS};
    OK(em_onnx_write_file(g, path, &o));
    /* W (4800 bytes) went out at offset 0; b (1200 bytes) at 8192; the 4-byte max stayed in */
    assert_int_equal(file_size(data), 8192 + M * 4);
    assert_true(file_size(path) < 1024);
    check_runs(path);
    /* inline: no data file, the same results */
    remove(data);
    o.external = EM_ONNX_EXT_NEVER;
    OK(em_onnx_write_file(g, path, &o));
    assert_int_equal(file_size(data), -1);
    assert_true(file_size(path) > K * M * 4);
    check_runs(path);
    /* in memory: the same bytes as the file */
    em_pbuf b;
    OK(em_onnx_write_buf(g, &o, &b));
    assert_int_equal((off_t)b.n, file_size(path));
    em_pbuf_free(&b);
    em_graph_destroy(g);
}

static void test_opset_and_refusals(void **state)
{
    (void)state;
    em_graph *g = build();
    em_onnx_write_opts o = {0, 0, EM_ONNX_EXT_NEVER};
    /* the graph's value x gets quantization parameters: refused, naming it */
    static const float sc = 0.5f;
    static const int32_t zp = 0;
    em_qparams q = {-1, 1, &sc, &zp};
    g->values[g->inputs[0]].q = &q;
    em_pbuf b;
    ember_status *st = em_onnx_write_buf(g, &o, &b);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "'x'"));
    ember_status_destroy(st);
    em_pbuf_free(&b);
    g->values[g->inputs[0]].q = NULL;
    /* a late op (Swish, opset 24) raises the opset; asking for 22 is refused */
    int n;
    const char *sw = "sw";
    int in[1] = {g->outputs[0]};
    OK(em_graph_add_node(g, EM_OP_SWISH, "late", in, 1, &sw, 1, &n));
    g->values[g->outputs[0]].is_output = false;
    g->outputs[0] = g->nodes[n].out[0];
    g->values[g->outputs[0]].is_output = true;
    OK(em_graph_infer_shapes(g));
    o.opset = 22;
    st = em_onnx_write_buf(g, &o, &b);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "24"));
    ember_status_destroy(st);
    em_pbuf_free(&b);
    o.opset = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/late.onnx", dir);
    OK(em_onnx_write_file(g, path, &o));
    ember_model *m = NULL;
    st = ember_model_load_file(path, NULL, &m);
    if (st == NULL) {
        const char *domain = NULL;
        int64_t version = 0;
        assert_true(ember_model_opset(m, 0, &domain, &version));
        assert_int_equal(version, 24);
        ember_model_destroy(m);
    } else {
        assert_non_null(strstr(ember_status_message(st), "this build has no"));
        ember_status_destroy(st);
    }
    /* an internal op: refused, naming the node */
    g->nodes[n].op = EM_OP_FUSEDGEMM;
    st = em_onnx_write_buf(g, &o, &b);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_non_null(strstr(ember_status_message(st), "node 'late' (FusedGemm)"));
    ember_status_destroy(st);
    em_pbuf_free(&b);
    g->nodes[n].op = EM_OP_SWISH;
    em_graph_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_and_names),
        cmocka_unit_test(test_opset_and_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
