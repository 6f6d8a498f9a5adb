/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript tensor creation, dtype casts, shape and indexing operators through the public
 * API: the fixtures of tests/data/torchscript/tensor (tools/gen_ts_tensor_fixtures.py), small
 * modules returning many outputs each, traced and scripted, saved by PyTorch 1.13 (t113) and
 * 2.x (t2), loaded with their input's rank declared and run on the traced shape and on another
 * shape (creation sizes come from the input's shape, so they are dynamic). Every output is
 * compared with PyTorch eager's: dtype, shape, and values (rtol 1e-4, atol 1e-5 for floats,
 * exact for integers and bools). Eager's outputs of one input are in <name>.out[2].npys: .npy
 * images, each preceded by its byte count (8 bytes, little-endian).
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
#include "common/test_data.h"
#include "common/test_ts.h"

#define MAX_OUTPUTS 96

#define data_path(rel) test_data_path("torchscript/tensor/", rel)

/* The tensors of a .npys file (see the top); returns their count. */
static size_t load_npys(const char *file, ember_tensor **out, size_t cap)
{
    FILE *f = fopen(data_path(file), "rb");
    if (f == NULL) {
        fail_msg("cannot open %s", data_path(file));
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(size > 0 ? (size_t)size : 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    size_t n = 0, at = 0;
    while (at + 8 <= (size_t)size) {
        uint64_t len = 0;
        for (int i = 7; i >= 0; i--) {
            len = len << 8 | buf[at + (size_t)i];
        }
        assert_true(len <= (uint64_t)size - at - 8 && n < cap);
        OK(ember_tensor_load_npy_memory(buf + at + 8, (size_t)len, file, &out[n++]));
        at += 8 + (size_t)len;
    }
    assert_int_equal(at, (size_t)size);
    free(buf);
    return n;
}

static double elem(const ember_tensor *t, int64_t i)
{
    const void *p = ember_tensor_data((ember_tensor *)t);
    return ember_tensor_dtype(t) == EMBER_DTYPE_F64 ? ((const double *)p)[i]
                                                    : (double)((const float *)p)[i];
}

/* Output j of `model` on `in_name` against PyTorch's. */
static void compare(const char *model, const char *in_name, size_t j, const ember_tensor *got,
                    const ember_tensor *want)
{
    ember_dtype dt = ember_tensor_dtype(want);
    if (ember_tensor_dtype(got) != dt) {
        fail_msg("%s on %s: output %zu is %s, PyTorch gives %s", model, in_name, j,
                 ember_dtype_name(ember_tensor_dtype(got)), ember_dtype_name(dt));
    }
    int rank = ember_tensor_rank(want);
    bool same = ember_tensor_rank(got) == rank;
    for (int d = 0; same && d < rank; d++) {
        same = ember_tensor_dims(got)[d] == ember_tensor_dims(want)[d];
    }
    if (!same) {
        fail_msg("%s on %s: output %zu has another shape (rank %d, PyTorch's %d; dim 0 %lld, "
                 "PyTorch's %lld)", model, in_name, j, ember_tensor_rank(got), rank,
                 ember_tensor_rank(got) > 0 ? (long long)ember_tensor_dims(got)[0] : -1LL,
                 rank > 0 ? (long long)ember_tensor_dims(want)[0] : -1LL);
    }
    int64_t n = ember_tensor_elem_count(want);
    if (dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64) {
        for (int64_t i = 0; i < n; i++) {
            double g = elem(got, i), w = elem(want, i);
            if (!(fabs(g - w) <= 1e-5 + 1e-4 * fabs(w))) {
                fail_msg("%s on %s: output %zu element %lld is %.8g, PyTorch gives %.8g", model,
                         in_name, j, (long long)i, g, w);
            }
        }
        return;
    }
    size_t bytes = (size_t)n * ember_dtype_size(dt);
    if (bytes > 0 && memcmp(ember_tensor_data((ember_tensor *)got),
                            ember_tensor_data((ember_tensor *)want), bytes) != 0) {
        fail_msg("%s on %s: output %zu (%s) differs from PyTorch's", model, in_name, j,
                 ember_dtype_name(dt));
    }
}

/* Runs `model` on <name>.in<sfx>.npy and compares every output with <name>.out<sfx>.npys. */
static void check_case(const char *model, const char *name, const char *sfx)
{
    char in_name[128], out_name[128];
    snprintf(in_name, sizeof in_name, "%s.in%s.npy", name, sfx);
    snprintf(out_name, sizeof out_name, "%s.out%s.npys", name, sfx);
    ember_tensor *x = NULL, *want[MAX_OUTPUTS] = {NULL}, *got[MAX_OUTPUTS] = {NULL};
    OK(ember_tensor_load(data_path(in_name), &x));
    size_t n = load_npys(out_name, want, MAX_OUTPUTS);
    ember_model *m = ts_test_load(data_path(model), ember_tensor_dtype(x), ember_tensor_rank(x));
    if (ember_model_output_count(m) != n) {
        fail_msg("%s: %zu outputs, PyTorch gives %zu", model, ember_model_output_count(m), n);
    }
    ember_session *s = NULL;
    OK(ember_session_create(m, NULL, &s));
    ember_status *st = ember_session_run(s, &x, 1, got, n);
    if (st != NULL) {
        fail_msg("%s on %s: %s", model, in_name, ember_status_message(st));
    }
    for (size_t j = 0; j < n; j++) {
        compare(model, in_name, j, got[j], want[j]);
        ember_tensor_destroy(got[j]);
        ember_tensor_destroy(want[j]);
    }
    ember_session_destroy(s);
    ember_model_destroy(m);
    ember_tensor_destroy(x);
}

/* Every archive of `name` (both PyTorch generations; traced too unless script_only) on both
 * inputs. */
static void check_model(const char *name, bool script_only)
{
    static const char *const kinds[] = {"script", "trace"};
    static const char *const tags[] = {"t113", "t2"};
    for (int k = 0; k < (script_only ? 1 : 2); k++) {
        for (int t = 0; t < 2; t++) {
            char model[128];
            snprintf(model, sizeof model, "%s.%s.%s.pt", name, kinds[k], tags[t]);
            check_case(model, name, "");
            check_case(model, name, "2");
        }
    }
}

/* zeros / ones / full / empty, new_*, *_like, arange, linspace, eye, tensor, aten::to. */
static void test_creation(void **state)
{
    (void)state;
    check_model("creation", false);
}

/* torch.tensor of sizes, scalar_tensor, is_floating_point: scripted only (a trace bakes
 * them in). */
static void test_creation_script(void **state)
{
    (void)state;
    check_model("creation_script", true);
}

/* flip, roll, narrow, split, unbind, stack / hstack / vstack, repeat / tile / expand,
 * tril / triu, movedim, view_as. */
static void test_shape(void **state)
{
    (void)state;
    check_model("shape", false);
}

/* aten::index (index tensors, masks), index_select, gather, scatter, take_along_dim,
 * embedding, masked_select / masked_fill, index_put_ / index_fill_. */
static void test_index(void **state)
{
    (void)state;
    check_model("index", false);
}

/* pads, interpolate / Upsample, pixel (un)shuffle, channel shuffle. */
static void test_resize(void **state)
{
    (void)state;
    check_model("resize", false);
}

/* einsum, swapaxes / swapdims, in-place fill_ / zero_ / copy_ / add_ through slices (swin's
 * shifted-window mask), roll. */
static void test_window(void **state)
{
    (void)state;
    check_model("window", false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_creation), cmocka_unit_test(test_creation_script),
        cmocka_unit_test(test_shape),    cmocka_unit_test(test_index),
        cmocka_unit_test(test_resize),   cmocka_unit_test(test_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
