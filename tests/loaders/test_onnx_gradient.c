/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX Gradient op (ai.onnx.preview.training), expanded by autodiff at load, through
 * ember.h: the fixtures of tools/gen_gradient_fixtures.py (tests/data/onnx_gradient), whose
 * expected gradients are worked out by hand with numpy: an MLP's weight gradients with a
 * symbolic batch (xs are initializers, zs the data), the gradient taken at other values than
 * the forward's (the inputs of the Gradient node differ from xs / zs), an empty output name,
 * a gradient against an intermediate value; and the messages of the models the loader
 * refuses. Models use test_allocator(), so leaks fail the test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_ok.h"
#include "ember.h"

static const char *path_of(const char *file, char *buf, size_t cap)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/onnx_gradient/%s", root != NULL ? root : "tests/data", file);
    return buf;
}

static ember_status *load(const char *name, ember_model **m)
{
    char file[128], path[1024];
    ember_model_options *o = NULL;
    OK(ember_model_options_create(&o));
    ember_model_options_set_allocator(o, test_allocator());
    snprintf(file, sizeof file, "%s.onnx", name);
    ember_status *st = ember_model_load_file(path_of(file, path, sizeof path), o, m);
    ember_model_options_destroy(o);
    return st;
}

static void expect_close(const char *what, ember_tensor *got, ember_tensor *ref)
{
    assert_int_equal(ember_tensor_rank(got), ember_tensor_rank(ref));
    for (int d = 0; d < ember_tensor_rank(ref); d++) {
        assert_int_equal(ember_tensor_dims(got)[d], ember_tensor_dims(ref)[d]);
    }
    const float *g = ember_tensor_data(got), *r = ember_tensor_data(ref);
    for (int64_t i = 0; i < ember_tensor_elem_count(ref); i++) {
        if (!(fabsf(g[i] - r[i]) <= 1e-5f + 1e-4f * fabsf(r[i]))) {
            fail_msg("%s: element %lld is %g, expected %g", what, (long long)i, (double)g[i],
                     (double)r[i]);
        }
    }
}

/* Runs fixture `name` (n_in inputs, n_out outputs) and compares every output. */
static void run_case(const char *name, int n_in, int n_out)
{
    char file[128], path[1024], what[160];
    ember_tensor *in[4] = {NULL}, *out[4] = {NULL}, *ref = NULL;
    ember_model *m = NULL;
    ember_session *s = NULL;
    OK(load(name, &m));
    assert_int_equal(ember_model_input_count(m), n_in);
    assert_int_equal(ember_model_output_count(m), n_out);
    for (int i = 0; i < n_in; i++) {
        snprintf(file, sizeof file, "%s.in%d.npy", name, i);
        OK(ember_tensor_load_npy(path_of(file, path, sizeof path), &in[i]));
    }
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, in, (size_t)n_in, out, (size_t)n_out));
    for (int i = 0; i < n_out; i++) {
        snprintf(file, sizeof file, "%s.out%d.npy", name, i);
        OK(ember_tensor_load_npy(path_of(file, path, sizeof path), &ref));
        snprintf(what, sizeof what, "%s output %d", name, i);
        expect_close(what, out[i], ref);
        ember_tensor_destroy(ref);
        ember_tensor_destroy(out[i]);
    }
    for (int i = 0; i < n_in; i++) {
        ember_tensor_destroy(in[i]);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
}

static void test_mlp(void **state)
{
    (void)state;
    run_case("mlp", 2, 3);
}

static void test_rebind(void **state)
{
    (void)state;
    run_case("rebind", 4, 2);
}

static void test_skip_and_intermediate(void **state)
{
    (void)state;
    run_case("skip", 2, 2);
}

static void expect_refused(const char *name, ember_code code, const char *part)
{
    ember_model *m = NULL;
    ember_status *st = load(name, &m);
    assert_null(m);
    assert_non_null(st);
    if (ember_status_code(st) != code || strstr(ember_status_message(st), part) == NULL) {
        fail_msg("%s: unexpected error: %s", name, ember_status_message(st));
    }
    ember_status_destroy(st);
}

static void test_refused(void **state)
{
    (void)state;
    expect_refused("bad_y_after", EMBER_ERR_INVALID_MODEL,
                   "node 'grad' (Gradient): y names 'c', which no earlier node or input defines");
    expect_refused("bad_count", EMBER_ERR_INVALID_MODEL,
                   "node 'grad' (Gradient): has 1 inputs, xs and zs name 2 values");
    expect_refused("bad_domain", EMBER_ERR_UNSUPPORTED, "unsupported operator: node #1 (Gradient)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlp),
        cmocka_unit_test(test_rebind),
        cmocka_unit_test(test_skip_and_intermediate),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
