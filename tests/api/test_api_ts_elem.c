/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript elementwise math, comparisons, type promotion and reductions through the public
 * API: the modules of tools/gen_ts_elem_fixtures.py (tests/data/torchscript/elem), traced and
 * scripted, saved by PyTorch 1.13 (t113) and 2.x (t2), loaded with their input's rank and
 * dtype declared, run on the traced shape and on another shape. Every output is compared with
 * PyTorch eager's: dtype, shape, and values (floats within rtol 1e-4 and atol 1e-5, f16 within
 * its own precision; integers and bools exactly). The outputs' dtypes are where PyTorch's
 * promotion rules show: f16 buffers with f32 inputs, int64 and bool tensors with Python floats,
 * 0-d tensors, true division of integers, sums of bools.
 */
#include "ember.h"
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
#include "common/test_ts.h"

static const char *data_path(char *buf, size_t cap, const char *rel)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/torchscript/elem/%s", root ? root : "tests/data", rel);
    return buf;
}

static bool file_exists(const char *rel)
{
    char path[4096];
    FILE *f = fopen(data_path(path, sizeof path, rel), "rb");
    if (f != NULL) {
        fclose(f);
    }
    return f != NULL;
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m != 0 ? NAN : INFINITY)
                         : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Element i of a numeric tensor as a double; *exact for integers and bools. */
static double elem(ember_tensor *t, int64_t i, bool *exact)
{
    const void *p = ember_tensor_data(t);
    *exact = true;
    switch (ember_tensor_dtype(t)) {
    case EMBER_DTYPE_F32:
        *exact = false;
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        *exact = false;
        return ((const double *)p)[i];
    case EMBER_DTYPE_F16:
        *exact = false;
        return half_to_double(((const uint16_t *)p)[i]);
    case EMBER_DTYPE_I64:
        return (double)((const int64_t *)p)[i];
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_BOOL:
        return ((const uint8_t *)p)[i];
    default:
        fail_msg("unexpected dtype %s", ember_dtype_name(ember_tensor_dtype(t)));
        return 0;
    }
}

static void compare(const char *what, size_t k, ember_tensor *got, ember_tensor *want)
{
    if (ember_tensor_dtype(got) != ember_tensor_dtype(want)) {
        fail_msg("%s output %zu: dtype %s, PyTorch gives %s", what, k,
                 ember_dtype_name(ember_tensor_dtype(got)),
                 ember_dtype_name(ember_tensor_dtype(want)));
    }
    if (ember_tensor_rank(got) != ember_tensor_rank(want)) {
        fail_msg("%s output %zu: rank %d, PyTorch gives %d", what, k, ember_tensor_rank(got),
                 ember_tensor_rank(want));
    }
    for (int d = 0; d < ember_tensor_rank(got); d++) {
        if (ember_tensor_dims(got)[d] != ember_tensor_dims(want)[d]) {
            fail_msg("%s output %zu: dim %d is %lld, PyTorch gives %lld", what, k, d,
                     (long long)ember_tensor_dims(got)[d], (long long)ember_tensor_dims(want)[d]);
        }
    }
    /* f16 results: PyTorch rounds each op to f16 (2^-11 relative), so allow one unit. */
    double rtol = ember_tensor_dtype(want) == EMBER_DTYPE_F16 ? 1e-3 : 1e-4;
    int64_t n = ember_tensor_elem_count(want);
    for (int64_t i = 0; i < n; i++) {
        bool exact = true;
        double g = elem(got, i, &exact), r = elem(want, i, &exact);
        bool ok = exact ? g == r
                        : (isnan(r) ? isnan(g) : (g == r || fabs(g - r) <= 1e-5 + rtol * fabs(r)));
        if (!ok) {
            fail_msg("%s output %zu: element %lld is %.9g, PyTorch gives %.9g", what, k,
                     (long long)i, g, r);
        }
    }
}

/* Runs `model` on <name>.in<sfx>.npy; compares every output with <name>.out<sfx>.<k>.npy. */
static void check_case(const char *model, const char *name, const char *sfx)
{
    char rel[128], path[4096], what[256];
    snprintf(rel, sizeof rel, "%s.in%s.npy", name, sfx);
    snprintf(what, sizeof what, "%s on %s", model, rel);
    ember_tensor *x = NULL;
    OK(ember_tensor_load(data_path(path, sizeof path, rel), &x));
    ember_model *m = ts_test_load(data_path(path, sizeof path, model), ember_tensor_dtype(x),
                                  ember_tensor_rank(x));
    size_t n = ember_model_output_count(m);
    snprintf(rel, sizeof rel, "%s.out%s.%zu.npy", name, sfx, n);
    if (n == 0 || file_exists(rel)) {
        fail_msg("%s: %zu outputs, PyTorch gives more", what, n);
    }
    snprintf(rel, sizeof rel, "%s.out%s.%zu.npy", name, sfx, n - 1);
    if (!file_exists(rel)) {
        fail_msg("%s: %zu outputs, PyTorch gives fewer", what, n);
    }
    ember_tensor **ys = calloc(n, sizeof *ys);
    assert_non_null(ys);
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    OK(ember_session_run(s, &x, 1, ys, n));
    for (size_t k = 0; k < n; k++) {
        ember_tensor *want = NULL;
        snprintf(rel, sizeof rel, "%s.out%s.%zu.npy", name, sfx, k);
        OK(ember_tensor_load(data_path(path, sizeof path, rel), &want));
        compare(what, k, ys[k], want);
        ember_tensor_destroy(want);
        ember_tensor_destroy(ys[k]);
    }
    free(ys);
    ember_session_destroy(s);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
}

/* Every archive of the module named by *state (traced and scripted, PyTorch 1.13 and 2.x), on
 * the traced shape and on the other one. */
static void test_module(void **state)
{
    const char *name = *state;
    for (int i = 0; i < 4; i++) {
        char model[128];
        snprintf(model, sizeof model, "%s.%s.%s.pt", name, i & 1 ? "script" : "trace",
                 i & 2 ? "t2" : "t113");
        check_case(model, name, "");
        check_case(model, name, "2");
    }
}

#define MODULE(name) {name, test_module, NULL, NULL, (void *)(name)}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* add/sub (alpha), rsub, mul, div (rounding modes), floor_divide, remainder, fmod, pow
         * both ways, unary math, maximum/minimum, clamp (scalar and tensor bounds), in place */
        MODULE("arith"),
        /* torch.result_type: f16/f64/int64/bool buffers, 0-d tensors, Python numbers, sizes */
        MODULE("promote"),
        /* int64 input: division modes on negatives, comparisons, bitwise and logical ops */
        MODULE("intops"),
        /* int64 input: reductions (int64 sums, indices), where, masked_fill, in place */
        MODULE("intreduce"),
        /* comparisons, logical and bitwise ops on bools, where, masked_fill, all/any */
        MODULE("logic"),
        /* activations (functional, modules, in place), softmax and log_softmax with dtype */
        MODULE("acts"),
        /* sum/mean/prod/amax/max/argmax/std/var/norms/all/any/logsumexp/cumsum */
        MODULE("reduce"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
