/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pattern fusions on what an exporter writes: the ONNX files in tests/data/fuse, small
 * modules exported by torch 1.13 at opset 13 (tools/gen_fuse_fixtures.py): LayerNorm over one
 * and two axes and without affine, LLaMA's and a plain RMSNorm, GELU (nn.GELU, BERT's, tanh,
 * GPT-2's), HardSwish (nn.Hardswish, x * relu6(x + 3) / 6), HardSigmoid, SiLU, Mish, a
 * TransformerEncoderLayer with GELU, one under a causal mask, and a conv block (Hardswish, SiLU, squeeze-and-excitation
 * with Hardsigmoid, Mish). Loaded at the default level each holds the fused ops and none of
 * the decomposed ones, and gives torch's output; loaded without passes it gives the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "common/test_model.h"
#include "core/cpu.h"

#include <math.h>

typedef struct fx_count {
    const char *op;
    int n;
} fx_count;

typedef struct fx_case {
    const char *name;
    int nodes; /* node count after the passes; -1: not checked */
    fx_count ops[10];
} fx_case;

static const fx_case cases[] = {
    {"layernorm", 1, {{"LayerNormalization", 1}}},
    {"layernorm_2axes", 1, {{"LayerNormalization", 1}}},
    {"layernorm_plain", 1, {{"LayerNormalization", 1}}},
    {"rmsnorm_llama", 1, {{"RMSNormalization", 1}}},
    {"rmsnorm_plain", 1, {{"RMSNormalization", 1}}},
    {"gelu_erf", 1, {{"Gelu", 1}}},
    {"gelu_bert", 1, {{"Gelu", 1}}},
    {"gelu_tanh", 1, {{"Gelu", 1}}},
    {"gelu_gpt2", 1, {{"Gelu", 1}}},
    {"hardswish", 1, {{"HardSwish", 1}}},
    {"hardswish_relu6", 1, {{"HardSwish", 1}}},
    {"hardsigmoid_relu6", 1, {{"HardSigmoid", 1}}},
    {"silu", 1, {{"Swish", 1}}},
    {"mish", 1, {{"Mish", 1}}},
    {"encoder_layer",
     -1,
     {{"LayerNormalization", 2},
      {"Gelu", 0}, /* fused into linear1's Gemm */
      {"FusedGemm", 1},
      {"Attention", 1},
      {"ReduceMean", 0},
      {"Erf", 0},
      {"Softmax", 0},
      {"Shape", 0},
      {"MatMul", 0}}},
    {"encoder_layer_mask",
     -1,
     {{"LayerNormalization", 2},
      {"Attention", 1},
      {"Softmax", 0},
      {"Add", 2}, /* the residuals */
      {"Mul", 0},
      {"Div", 0}}},
    {"conv_block",
     -1,
     {{"FusedConv", 5},
      {"Conv", 0},
      {"HardSigmoid", 0},
      {"HardSwish", 0},
      {"Sigmoid", 0},
      {"Swish", 0},
      {"Mish", 1},
      {"Softplus", 0}}},
};

/* Convs with nothing to fuse (no activation after them), counted in `cases` as FusedConv: the
 * layout pass makes them blocked FusedConvs, but only on a CPU with a channel block (AVX2,
 * AVX-512 or NEON, passes_layout.c); elsewhere (older x86) they stay Conv. */
static int plain_convs(const char *name)
{
    return strcmp(name, "conv_block") == 0 ? 1 : 0; /* c3, before Mish */
}

static const char *data_path(const char *name, const char *suffix, char *buf, size_t cap)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/fuse/%s%s", root ? root : "tests/data", name, suffix);
    return buf;
}

/* The model at `level`; NULL (the test skips) when this build has no ONNX loader. */
static ember_model *load(const char *name, ember_graph_opt level)
{
    char path[4096];
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    OK(ember_model_options_create(&mo));
    ember_model_options_set_allocator(mo, test_allocator());
    OK(ember_model_options_set_graph_optimization(mo, level));
    ember_status *st = ember_model_load_file(data_path(name, ".onnx", path, sizeof path), mo, &m);
    ember_model_options_destroy(mo);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED) {
        ember_status_destroy(st);
        return NULL;
    }
    OK(st);
    return m;
}

/* Nodes of op `op`; for FusedConv, a BlockedSE counts as its two 1x1 convs (the layout pass,
 * where the CPU has a block, fuses a squeeze-excite: passes_se.c). */
static int count_op(const ember_model *m, const char *op)
{
    bool conv = strcmp(op, "FusedConv") == 0;
    return tm_count_op(m, op) + (conv ? 2 * tm_count_op(m, "BlockedSE") : 0);
}

/* Runs m on the case's input; the output tensor (the caller destroys it). */
static ember_tensor *run(const ember_model *m, const char *name)
{
    char path[4096];
    ember_tensor *x = NULL, *y = NULL;
    ember_session *s = NULL;
    OK(ember_tensor_load_npy(data_path(name, ".in0.npy", path, sizeof path), &x));
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, &y, 1));
    ember_session_destroy(s);
    ember_tensor_destroy(x);
    return y;
}

static void expect_close(const char *name, const char *what, ember_tensor *got, ember_tensor *want)
{
    assert_int_equal(ember_tensor_elem_count(got), ember_tensor_elem_count(want));
    const float *a = ember_tensor_data(got), *b = ember_tensor_data(want);
    for (int64_t i = 0; i < ember_tensor_elem_count(got); i++) {
        if (!(fabsf(a[i] - b[i]) <= 1e-5f + 1e-4f * fabsf(b[i]))) {
            fail_msg("%s: [%lld] %.9g, %s %.9g", name, (long long)i, (double)a[i], what,
                     (double)b[i]);
        }
    }
}

static void test_fixtures(void **state)
{
    (void)state;
    char path[4096];
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const fx_case *c = &cases[ci];
        ember_model *opt = load(c->name, EMBER_GRAPH_OPT_ALL);
        ember_model *plain = load(c->name, EMBER_GRAPH_OPT_NONE);
        if (opt == NULL || plain == NULL) {
            ember_model_destroy(opt);
            ember_model_destroy(plain);
            skip();
        }
        if (c->nodes >= 0 && (int)ember_model_node_count(opt) != c->nodes) {
            fail_msg("%s: %zu nodes after the passes, expected %d", c->name,
                     ember_model_node_count(opt), c->nodes);
        }
        bool blocks = (em_cpu_features() & (EM_ISA_AVX2 | EM_ISA_AVX512F | EM_ISA_NEON)) != 0;
        for (int k = 0; k < (int)(sizeof c->ops / sizeof c->ops[0]) && c->ops[k].op != NULL; k++) {
            int want = c->ops[k].n;
            if (!blocks && strcmp(c->ops[k].op, "FusedConv") == 0) {
                want -= plain_convs(c->name);
            } else if (!blocks && strcmp(c->ops[k].op, "Conv") == 0) {
                want += plain_convs(c->name);
            }
            if (count_op(opt, c->ops[k].op) != want) {
                fail_msg("%s: %d %s nodes, expected %d", c->name, count_op(opt, c->ops[k].op),
                         c->ops[k].op, want);
            }
        }
        ember_tensor *want = NULL;
        OK(ember_tensor_load_npy(data_path(c->name, ".out0.npy", path, sizeof path), &want));
        ember_tensor *a = run(opt, c->name), *b = run(plain, c->name);
        expect_close(c->name, "torch", a, want);
        expect_close(c->name, "torch", b, want);
        expect_close(c->name, "unoptimised", a, b);
        ember_tensor_destroy(a);
        ember_tensor_destroy(b);
        ember_tensor_destroy(want);
        ember_model_destroy(opt);
        ember_model_destroy(plain);
    }
}

/* Failing allocation i (i = 1, 2, ...) while loading encoder_layer_mask.onnx (every pattern
 * pass but the activations' runs on it, and folding, Gemm) gives a clean out-of-memory status
 * and leaks nothing; the first load that succeeds has the fused graph. */
static void test_alloc_failure_sweep(void **state)
{
    (void)state;
    char path[4096];
    data_path("encoder_layer_mask", ".onnx", path, sizeof path);
    long total = 0;
    for (long i = 1;; i++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        ca.fail_at = i;
        ember_model_options *mo = NULL;
        ember_model *m = NULL;
        OK(ember_model_options_create(&mo));
        ember_model_options_set_allocator(mo, &ca.al);
        ember_status *st = ember_model_load_file(path, mo, &m);
        if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED) {
            ember_status_destroy(st);
            ember_model_options_destroy(mo);
            skip();
        }
        if (st != NULL) {
            assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
        } else {
            assert_int_equal(count_op(m, "Attention"), 1);
            assert_int_equal(count_op(m, "LayerNormalization"), 2);
            total = i - 1;
        }
        ember_status_destroy(st);
        ember_model_destroy(m);
        ember_model_options_destroy(mo);
        assert_int_equal(atomic_load(&ca.live), 0);
        if (total > 0) {
            break;
        }
    }
    assert_true(total > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_alloc_failure_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
